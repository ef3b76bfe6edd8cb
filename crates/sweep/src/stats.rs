//! Summary statistics of one metric over the replicates of one sweep point.

use incastsim_scenario::metrics::quantile;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// count, mean, sample standard deviation, 95 % confidence interval of the mean (Student's t with
/// n − 1 degrees of freedom), median, p5, p95, p99, min, max. Non-finite values (a metric that
/// does not apply to a run) are left out; with fewer than two values std and CI are NaN.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub count: usize,
    pub mean: f64,
    pub std: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
    pub median: f64,
    pub p5: f64,
    pub p95: f64,
    pub p99: f64,
    pub min: f64,
    pub max: f64,
}

/// The two-sided 95 % critical value of Student's t with `df` degrees of freedom.
pub fn t_critical_95(df: usize) -> f64 {
    if df == 0 {
        return f64::NAN;
    }
    StudentsT::new(0.0, 1.0, df as f64).map_or(f64::NAN, |t| t.inverse_cdf(0.975))
}

pub fn summarize(values: &[f64]) -> Summary {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let nan = f64::NAN;
    if n == 0 {
        return Summary {
            count: 0,
            mean: nan,
            std: nan,
            ci95_low: nan,
            ci95_high: nan,
            median: nan,
            p5: nan,
            p95: nan,
            p99: nan,
            min: nan,
            max: nan,
        };
    }
    let mean = v.iter().sum::<f64>() / n as f64;
    let (std, half) = if n >= 2 {
        let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
        let std = var.sqrt();
        (std, t_critical_95(n - 1) * std / (n as f64).sqrt())
    } else {
        (nan, nan)
    };
    Summary {
        count: n,
        mean,
        std,
        ci95_low: mean - half,
        ci95_high: mean + half,
        median: quantile(&v, 0.5),
        p5: quantile(&v, 0.05),
        p95: quantile(&v, 0.95),
        p99: quantile(&v, 0.99),
        min: v[0],
        max: v[n - 1],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn t_critical_values_match_tables() {
        // Standard two-sided 95 % table values.
        assert!(close(t_critical_95(1), 12.706, 1e-3));
        assert!(close(t_critical_95(4), 2.776, 1e-3));
        assert!(close(t_critical_95(19), 2.093, 1e-3));
        assert!(close(t_critical_95(1000), 1.962, 1e-3));
    }

    #[test]
    fn hand_computed_summary() {
        // Values 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sample variance 32/7, std 2.13809.
        let s = summarize(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(s.count, 8);
        assert!(close(s.mean, 5.0, 1e-12));
        assert!(close(s.std, (32.0f64 / 7.0).sqrt(), 1e-12));
        // CI half width = t(0.975, 7) * std / sqrt(8) = 2.364624 * 2.138090 / 2.828427 = 1.787495
        assert!(
            close(s.ci95_high - s.mean, 1.787495, 1e-5),
            "{}",
            s.ci95_high - s.mean
        );
        assert!(close(s.mean - s.ci95_low, 1.787495, 1e-5));
        assert_eq!((s.median, s.min, s.max), (4.5, 2.0, 9.0));
        // p5: h = 7 * 0.05 = 0.35 -> 2 + 0.35 * (4 - 2) = 2.7
        assert!(close(s.p5, 2.7, 1e-12));
        // p95: h = 6.65 -> 7 + 0.65 * 2 = 8.3; p99: h = 6.93 -> 8.86
        assert!(close(s.p95, 8.3, 1e-12));
        assert!(close(s.p99, 8.86, 1e-12));
    }

    #[test]
    fn degenerate_inputs() {
        let one = summarize(&[3.0]);
        assert_eq!((one.count, one.mean, one.median), (1, 3.0, 3.0));
        assert!(one.std.is_nan() && one.ci95_low.is_nan());
        let none = summarize(&[f64::NAN]);
        assert_eq!(none.count, 0);
        assert!(none.mean.is_nan());
        let same = summarize(&[2.0, 2.0, 2.0]);
        assert_eq!((same.std, same.ci95_low, same.ci95_high), (0.0, 2.0, 2.0));
    }
}
