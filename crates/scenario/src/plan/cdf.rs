//! Empirical flow-size distributions: piecewise-linear CDFs read from `configs/workloads/*.cdf`.
//!
//! File format: `#` comment lines, then `size_bytes cumulative` pairs in increasing order. The
//! cumulative column may be a fraction (ending at 1) or a percentage (ending at 100); the file's
//! last value says which. Sizes are interpolated linearly between points, so the mean is
//! Σ (c_{i+1} − c_i)(s_i + s_{i+1})/2, and sampling is inverse-transform.

use incastsim_core::SimRng;

/// A piecewise-linear CDF of flow sizes (the data-center workloads' size distributions).
#[derive(Clone, Debug, PartialEq)]
pub struct EmpiricalCdf {
    /// (size in bytes, cumulative probability in [0, 1]), both non-decreasing.
    points: Vec<(f64, f64)>,
}

impl EmpiricalCdf {
    /// Parses the file format above; the error names the line and what is wrong.
    pub fn parse(text: &str) -> Result<EmpiricalCdf, String> {
        let mut points = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut it = line.split_whitespace();
            let (Some(s), Some(c), None) = (it.next(), it.next(), it.next()) else {
                return Err(format!(
                    "line {}: expected `size cumulative`, got {line:?}",
                    i + 1
                ));
            };
            let s: f64 = s
                .parse()
                .map_err(|_| format!("line {}: bad size {s:?}", i + 1))?;
            let c: f64 = c
                .parse()
                .map_err(|_| format!("line {}: bad cumulative value {c:?}", i + 1))?;
            if let Some(&(ps, pc)) = points.last()
                && (s < ps || c < pc)
            {
                return Err(format!(
                    "line {}: sizes and cumulative values must not decrease",
                    i + 1
                ));
            }
            if !(s >= 0.0 && c >= 0.0) {
                return Err(format!("line {}: negative value", i + 1));
            }
            points.push((s, c));
        }
        let last = points.last().map(|p| p.1).ok_or("no data points")?;
        let scale = if (last - 100.0).abs() < 1e-9 {
            100.0
        } else if (last - 1.0).abs() < 1e-12 {
            1.0
        } else {
            return Err(format!(
                "the last cumulative value is {last}: it must be 1 (fraction) or 100 (percent)"
            ));
        };
        for p in &mut points {
            p.1 /= scale;
        }
        if points.len() < 2 {
            return Err("at least two points are needed".into());
        }
        Ok(EmpiricalCdf { points })
    }

    /// Reads and parses the file at `path` (at most 1 MB); the error names the path.
    pub fn load(path: &std::path::Path) -> Result<EmpiricalCdf, String> {
        // Opening a FIFO (named pipe) waits for a writer, maybe forever: refused unopened.
        #[cfg(unix)]
        if let Ok(meta) = std::fs::metadata(path) {
            use std::os::unix::fs::FileTypeExt;
            let t = meta.file_type();
            if t.is_fifo() || t.is_socket() {
                return Err(format!(
                    "{}: a named pipe or socket, not a file: a flow-size CDF is read from a file",
                    path.display()
                ));
            }
        }
        // A CDF has tens to hundreds of lines: 1 MB bounds a wrong path such as /dev/zero.
        let text = incastsim_config::read_bounded(path, 1 << 20, "a flow-size CDF")?;
        EmpiricalCdf::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The mean of the piecewise-linear distribution.
    pub fn mean(&self) -> f64 {
        self.points
            .windows(2)
            .map(|w| (w[1].1 - w[0].1) * (w[0].0 + w[1].0) / 2.0)
            .sum()
    }

    /// P(size ≤ x).
    pub fn cdf(&self, x: f64) -> f64 {
        let i = self.points.partition_point(|p| p.0 <= x);
        if i == 0 {
            return 0.0;
        }
        if i == self.points.len() {
            return 1.0;
        }
        let (a, b) = (self.points[i - 1], self.points[i]);
        a.1 + (b.1 - a.1) * (x - a.0) / (b.0 - a.0)
    }

    /// The size at cumulative probability `u` in [0, 1).
    pub fn quantile(&self, u: f64) -> f64 {
        let i = self
            .points
            .partition_point(|p| p.1 <= u)
            .clamp(1, self.points.len() - 1);
        let (a, b) = (self.points[i - 1], self.points[i]);
        if b.1 <= a.1 {
            b.0
        } else {
            a.0 + (b.0 - a.0) * (u - a.1) / (b.1 - a.1)
        }
    }

    /// Draws a flow size in whole bytes (at least 1).
    pub fn sample(&self, rng: &mut SimRng) -> u64 {
        (self.quantile(rng.unit_f64()).round() as u64).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped(name: &str) -> EmpiricalCdf {
        let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../configs/workloads")
            .join(name);
        EmpiricalCdf::load(&p).unwrap()
    }

    #[test]
    fn analytic_means_match_the_files() {
        // The means quoted in each file's header (those of the linear interpolation).
        assert!((shipped("websearch.cdf").mean() - 1_711_250.0).abs() < 1.0);
        assert!((shipped("datamining.cdf").mean() - 12_658_199.0).abs() < 1.0);
        assert!((shipped("hadoop.cdf").mean() - 120_420.8).abs() < 0.1);
    }

    #[test]
    fn sampler_reproduces_the_cdf_and_the_mean() {
        for (name, n, tol) in [
            ("websearch.cdf", 1_000_000, 0.01),
            ("hadoop.cdf", 1_000_000, 0.01),
            ("datamining.cdf", 4_000_000, 0.03),
        ] {
            let cdf = shipped(name);
            let mut rng = SimRng::new(17);
            let mut samples: Vec<u64> = (0..n).map(|_| cdf.sample(&mut rng)).collect();
            let mean = samples.iter().sum::<u64>() as f64 / n as f64;
            assert!(
                (mean / cdf.mean() - 1.0).abs() < tol,
                "{name}: sample mean {mean} vs {}",
                cdf.mean()
            );
            samples.sort_unstable();
            // Empirical CDF at each breakpoint within 0.3 percentage points.
            for &(s, c) in &cdf.points {
                let below = samples.partition_point(|&x| (x as f64) <= s) as f64 / n as f64;
                assert!(
                    (below - c).abs() < 0.003,
                    "{name}: F({s}) = {below}, table {c}"
                );
            }
        }
    }

    #[test]
    fn bad_files_are_refused() {
        assert!(
            EmpiricalCdf::parse("0 0\n10 50\n")
                .unwrap_err()
                .contains("must be 1")
        );
        assert!(
            EmpiricalCdf::parse("0 0\n10 0.5\n5 1\n")
                .unwrap_err()
                .contains("must not decrease")
        );
        assert!(
            EmpiricalCdf::parse("# only comments\n")
                .unwrap_err()
                .contains("no data")
        );
        assert!(
            EmpiricalCdf::parse("0 0 0\n")
                .unwrap_err()
                .contains("expected")
        );
        let c = EmpiricalCdf::parse("0 0\n100 100\n").unwrap();
        assert_eq!((c.mean(), c.quantile(0.25), c.cdf(50.0)), (50.0, 25.0, 0.5));
    }
}
