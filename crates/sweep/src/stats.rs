//! Summary statistics of one metric over the replicates of one sweep point.

use incastsim_scenario::results::metrics::quantile;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// count, mean, sample standard deviation, 95 % confidence interval of the mean (Student's t with
/// n − 1 degrees of freedom), median, p5, p95, p99, min, max. Non-finite values (a metric that
/// does not apply to a run) are left out; with fewer than two values std and CI are NaN.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Finite values summarized (NaN and infinite ones are left out).
    pub count: usize,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1); NaN below two values.
    pub std: f64,
    /// Lower end of the 95 % confidence interval of the mean (Student's t, n − 1 d.o.f.).
    pub ci95_low: f64,
    /// Upper end of that interval.
    pub ci95_high: f64,
    /// Median (linear interpolation).
    pub median: f64,
    /// 5th percentile.
    pub p5: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

/// The two-sided 95 % critical value of Student's t with `df` degrees of freedom.
pub fn t_critical_95(df: usize) -> f64 {
    if df == 0 {
        return f64::NAN;
    }
    StudentsT::new(0.0, 1.0, df as f64).map_or(f64::NAN, |t| t.inverse_cdf(0.975))
}

/// Summarizes `values` (non-finite ones left out); NaN statistics where undefined.
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

/// A 95 % confidence interval of the ratio of two means, mean(a) / mean(b), from independent
/// samples: Fieller's theorem with Student's t at min(n_a, n_b) − 1 degrees of freedom (a
/// conservative choice for unequal variances). `None` when the interval is unbounded (the
/// denominator's mean is not significantly different from zero: g = t² s_b²/(n_b b̄²) ≥ 1) or a
/// sample has fewer than two values. The point estimate is mean(a) / mean(b).
pub fn fieller_ratio_ci95(a: &[f64], b: &[f64]) -> Option<(f64, f64)> {
    let (sa, sb) = (summarize(a), summarize(b));
    if sa.count < 2 || sb.count < 2 || sb.mean == 0.0 {
        return None;
    }
    let t = t_critical_95(sa.count.min(sb.count) - 1);
    let va = sa.std * sa.std / sa.count as f64;
    let vb = sb.std * sb.std / sb.count as f64;
    let g = t * t * vb / (sb.mean * sb.mean);
    if g >= 1.0 {
        return None;
    }
    let r = sa.mean / sb.mean;
    let half = t / sb.mean.abs() * (va * (1.0 - g) + r * r * vb).sqrt();
    Some(((r - half) / (1.0 - g), (r + half) / (1.0 - g)))
}

/// The 1-based ranks (l, u) of a distribution-free 95 % confidence interval [x(l), x(u)] of the
/// q-quantile from n sorted values: l is the largest rank with P(B < l) ≤ 0.025 and u the
/// smallest with P(B ≥ u) ≤ 0.025, B ~ Binomial(n, q) (the number of values below the
/// quantile). A rank outside 1..=n means that side is unbounded with this many values.
pub fn quantile_ci95_ranks(n: usize, q: f64) -> (usize, usize) {
    // The binomial pmf, computed in log space (n up to millions).
    let ln_pmf = |k: usize| {
        use statrs::function::gamma::ln_gamma;
        ln_gamma(n as f64 + 1.0) - ln_gamma(k as f64 + 1.0) - ln_gamma((n - k) as f64 + 1.0)
            + k as f64 * q.ln()
            + (n - k) as f64 * (1.0 - q).ln()
    };
    let pmf: Vec<f64> = (0..=n).map(|k| ln_pmf(k).exp()).collect();
    // P(B < l) = sum_{k < l} pmf(k).
    let mut below = 0.0;
    let mut l = 0;
    for (k, p) in pmf.iter().enumerate() {
        if below + p > 0.025 {
            break;
        }
        below += p;
        l = k + 1;
    }
    let mut above = 0.0;
    let mut u = n + 1;
    for k in (0..=n).rev() {
        if above + pmf[k] > 0.025 {
            break;
        }
        above += pmf[k];
        u = k;
    }
    (l, u)
}

/// The q-quantile of `values` (linear interpolation) with its distribution-free 95 % confidence
/// interval ([`quantile_ci95_ranks`]; an unbounded side is ±infinity). Non-finite values are
/// left out; `None` without values.
pub fn quantile_with_ci95(values: &[f64], q: f64) -> Option<(f64, f64, f64)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let (l, u) = quantile_ci95_ranks(n, q);
    let lo = if l >= 1 { v[l - 1] } else { f64::NEG_INFINITY };
    let hi = if u <= n { v[u - 1] } else { f64::INFINITY };
    Some((quantile(&v, q), lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fieller_interval_of_a_ratio() {
        // a: mean 10, s² = 2.5 (n 5); b: mean 5, s² = 2.5 (n 5). t(4) = 2.776445,
        // va = vb = 0.5, g = t²·0.5/25 = 0.154173, R = 2,
        // half = t/5 · sqrt(0.5·(1 − g) + 4·0.5) = 0.555289 · 1.556567 = 0.864347,
        // CI = (2 ∓ 0.864347)/(1 − g) = [1.342654, 3.386445].
        let a = [8.0, 9.0, 10.0, 11.0, 12.0];
        let b = [3.0, 4.0, 5.0, 6.0, 7.0];
        let (lo, hi) = fieller_ratio_ci95(&a, &b).unwrap();
        assert!(
            close(lo, 1.342654, 1e-5) && close(hi, 3.386445, 1e-5),
            "{lo} {hi}"
        );
        // A denominator not distinguishable from zero: unbounded.
        assert!(fieller_ratio_ci95(&a, &[-1.0, 1.0, 0.5]).is_none());
        // No spread: the interval is the ratio.
        assert_eq!(
            fieller_ratio_ci95(&[4.0, 4.0], &[2.0, 2.0]),
            Some((2.0, 2.0))
        );
    }

    #[test]
    fn quantile_interval_ranks() {
        // Median of 10 values: the classic ranks 2 and 9 (coverage 97.9 %).
        assert_eq!(quantile_ci95_ranks(10, 0.5), (2, 9));
        // 95th percentile of 100 values, B ~ Binomial(100, 0.95): P(B < 90) = 0.0115 and
        // P(B < 91) = 0.0282, so l = 90; P(B ≥ 100) = 0.0059 and P(B ≥ 99) = 0.0371, so u = 100.
        let (l, u) = quantile_ci95_ranks(100, 0.95);
        assert_eq!((l, u), (90, 100));
        // Too few values for an upper bound of p95.
        let (_, u) = quantile_ci95_ranks(20, 0.95);
        assert_eq!(u, 21);
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        let (p95, lo, hi) = quantile_with_ci95(&v, 0.95).unwrap();
        assert!(close(p95, 95.05, 1e-9));
        assert_eq!((lo, hi), (90.0, 100.0));
    }

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
