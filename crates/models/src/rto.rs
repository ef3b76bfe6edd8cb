//! The maximum of N randomized RTOs: Hafeez et al., "Mitigating Datacenter Incast Congestion
//! Using RTO Randomization", GLOBECOM 2015 (seed 000), §IV-A "Analysis".
//!
//! Each of N senders draws its RTO uniformly from `[RTO_min − Δ/2, RTO_min + Δ/2]` (Eq. 3);
//! `X = max(X_1, …, X_N)` is the RTO of the sender that waits longest, which sets when the last
//! retransmission of an incast can arrive. The paper ignores successive timeouts here (its
//! footnote 2), and so do these functions.
//!
//! All times are in seconds. The interval must not reach below zero (`Δ ≤ 2·RTO_min`).

use crate::{ModelError, at_least_one, non_negative};

fn check(rto_min_s: f64, delta_s: f64, n: u64) -> Result<(), ModelError> {
    non_negative("rto_min_s", rto_min_s)?;
    non_negative("delta_s", delta_s)?;
    at_least_one("n", n)?;
    if delta_s / 2.0 > rto_min_s {
        return Err(ModelError::OutOfRange {
            name: "delta_s",
            value: delta_s,
            allowed: "at most 2 * rto_min_s (an RTO interval that stays >= 0)",
        });
    }
    Ok(())
}

/// E\[X\], the expected maximum RTO of `n` senders, in seconds: paper 000, Eq. 6,
/// `E[X] = RTO_min + Δ(N−1)/(2(N+1))` (the closed form of the integral Eq. 5).
///
/// `E[X] = RTO_min` for N = 1 and tends to `RTO_min + Δ/2` as N grows.
pub fn expected_max_rto(rto_min_s: f64, delta_s: f64, n: u64) -> Result<f64, ModelError> {
    check(rto_min_s, delta_s, n)?;
    let n = n as f64;
    Ok(rto_min_s + delta_s * (n - 1.0) / (2.0 * (n + 1.0)))
}

/// Var(X), the variance of the maximum RTO of `n` senders, in s²: paper 000, Eq. 7,
/// `Var(X) = 2Δ²/((N+1)(N+2)) − Δ²/(N+1)²`.
///
/// (Algebraically `N·Δ²/((N+1)²(N+2))`, the variance of the maximum of N uniforms; computed in
/// that form, which has no cancellation.)
pub fn var_max_rto(rto_min_s: f64, delta_s: f64, n: u64) -> Result<f64, ModelError> {
    check(rto_min_s, delta_s, n)?;
    let n = n as f64;
    let d2 = delta_s * delta_s;
    Ok(n * d2 / ((n + 1.0) * (n + 1.0) * (n + 2.0)))
}

/// The upper bound the paper gives with Eq. 7, `Var(X) ≤ Δ²/(N+1)²`, in s².
pub fn var_max_rto_bound(rto_min_s: f64, delta_s: f64, n: u64) -> Result<f64, ModelError> {
    check(rto_min_s, delta_s, n)?;
    let n1 = n as f64 + 1.0;
    Ok(delta_s * delta_s / (n1 * n1))
}

/// P(X > k): the probability that the maximum RTO of `n` senders exceeds `k_s` seconds,
/// paper 000, Eq. 4, `P(X > k) = 1 − [(k − (RTO_min − Δ/2))/Δ]^N`.
///
/// Eq. 4 holds for k inside the interval; outside it the probability is 1 (k below
/// `RTO_min − Δ/2`) or 0 (k at or above `RTO_min + Δ/2`). With Δ = 0 every RTO equals RTO_min, so
/// the result is 1 for k < RTO_min and 0 otherwise.
pub fn p_max_rto_greater(
    rto_min_s: f64,
    delta_s: f64,
    n: u64,
    k_s: f64,
) -> Result<f64, ModelError> {
    check(rto_min_s, delta_s, n)?;
    if k_s.is_nan() {
        return Err(ModelError::OutOfRange {
            name: "k_s",
            value: k_s,
            allowed: "a number (seconds)",
        });
    }
    let lo = rto_min_s - delta_s / 2.0;
    let hi = rto_min_s + delta_s / 2.0;
    if k_s < lo {
        return Ok(1.0);
    }
    if k_s >= hi {
        return Ok(0.0);
    }
    // Here delta_s > 0 (lo <= k < hi).
    let frac = (k_s - lo) / delta_s;
    Ok(1.0 - frac.powf(n as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    // RTO_min = 10 ms, Δ = 4 ms (the paper's Fig. 4). By hand, Eq. 6:
    //   N = 4:   10 + 4·3/(2·5)     = 10 + 1.2        = 11.2 ms
    //   N = 16:  10 + 4·15/(2·17)   = 10 + 30/17      = 11.764705882… ms
    //   N = 256: 10 + 4·255/(2·257) = 10 + 510/257    = 11.984435797… ms
    #[test]
    fn expected_max_matches_hand_values() {
        let e = |n| expected_max_rto(10e-3, 4e-3, n).unwrap();
        assert!(close(e(1), 10e-3, 1e-12));
        assert!(close(e(4), 11.2e-3, 1e-12));
        assert!(close(e(16), 10e-3 + 30.0 / 17.0 * 1e-3, 1e-12));
        assert!(close(e(256), 10e-3 + 510.0 / 257.0 * 1e-3, 1e-12));
        // Cross-checked with python3 (straight transcription of Eq. 6): 0.011764705882352941,
        // 0.01198443579766537.
        assert!(close(e(16), 0.011764705882352941, 1e-12));
        assert!(close(e(256), 0.01198443579766537, 1e-12));
    }

    // By hand, Eq. 7 with Δ = 4 ms (Δ² = 16e-6 s²):
    //   N = 1: 2·16e-6/(2·3) − 16e-6/4  = 5.333e-6 − 4e-6       = 1.3333e-6 (= Δ²/12, one uniform)
    //   N = 4: 2·16e-6/(5·6) − 16e-6/25 = 1.06667e-6 − 0.64e-6 = 4.2667e-7
    // python3 gave 4.921184159938484e-08 (N = 16) and 2.4036653079150423e-10 (N = 256).
    #[test]
    fn variance_matches_hand_values_and_bound() {
        let v = |n| var_max_rto(10e-3, 4e-3, n).unwrap();
        assert!(close(v(1), 16e-6 / 12.0, 1e-12));
        assert!(close(v(4), 32e-6 / 30.0 - 16e-6 / 25.0, 1e-12));
        assert!(close(v(16), 4.921184159938484e-08, 1e-12));
        assert!(close(v(256), 2.4036653079150423e-10, 1e-12));
        for n in [1, 2, 3, 4, 8, 16, 64, 256, 1 << 20] {
            let b = var_max_rto_bound(10e-3, 4e-3, n).unwrap();
            assert!(v(n) <= b, "n = {n}");
            // The paper's printed difference form agrees with the cancellation-free one.
            let nf = n as f64;
            let printed =
                2.0 * 16e-6 / ((nf + 1.0) * (nf + 2.0)) - 16e-6 / ((nf + 1.0) * (nf + 1.0));
            assert!(close(v(n), printed, 1e-6), "n = {n}");
        }
    }

    #[test]
    fn limits_for_many_senders() {
        let e = expected_max_rto(10e-3, 4e-3, 1_000_000).unwrap();
        assert!((e - 12e-3).abs() < 1e-8, "E[X] -> RTO_min + Δ/2");
        assert!(var_max_rto(10e-3, 4e-3, 1_000_000).unwrap() < 1e-16);
        // Δ = 0: no randomization, X = RTO_min.
        assert_eq!(expected_max_rto(10e-3, 0.0, 64).unwrap(), 10e-3);
        assert_eq!(var_max_rto(10e-3, 0.0, 64).unwrap(), 0.0);
    }

    // Eq. 4 by hand: RTO_min = 10 ms, Δ = 4 ms → interval [8, 12] ms.
    //   N = 4, k = 11 ms:   1 − (3/4)^4    = 1 − 81/256 = 0.68359375
    //   N = 16, k = 11.5 ms: 1 − (3.5/4)^16 = 0.8819329129787514 (python3)
    #[test]
    fn tail_probability() {
        let p = |n, k| p_max_rto_greater(10e-3, 4e-3, n, k).unwrap();
        assert!(close(p(4, 11e-3), 1.0 - 81.0 / 256.0, 1e-12));
        assert!(close(p(16, 11.5e-3), 0.8819329129787514, 1e-9));
        assert_eq!(p(4, 7e-3), 1.0);
        assert_eq!(p(4, 12e-3), 0.0);
        assert_eq!(p(4, 13e-3), 0.0);
        assert!(close(p(1, 10e-3), 0.5, 1e-12));
        assert_eq!(p_max_rto_greater(10e-3, 0.0, 8, 9e-3).unwrap(), 1.0);
        assert_eq!(p_max_rto_greater(10e-3, 0.0, 8, 10e-3).unwrap(), 0.0);
        // Monotone non-increasing in k, non-decreasing in N.
        let mut last = 1.0;
        for i in 0..=40 {
            let k = 8e-3 + i as f64 * 0.1e-3;
            let x = p(16, k);
            assert!(x <= last && (0.0..=1.0).contains(&x));
            assert!(p(32, k) >= x);
            last = x;
        }
    }

    #[test]
    fn invalid_inputs_are_errors() {
        assert_eq!(
            expected_max_rto(10e-3, 4e-3, 0),
            Err(ModelError::Zero { name: "n" })
        );
        assert!(matches!(
            expected_max_rto(10e-3, -1e-3, 4),
            Err(ModelError::OutOfRange {
                name: "delta_s",
                ..
            })
        ));
        assert!(matches!(
            var_max_rto(f64::NAN, 1e-3, 4),
            Err(ModelError::OutOfRange {
                name: "rto_min_s",
                ..
            })
        ));
        assert!(matches!(
            expected_max_rto(1e-3, 3e-3, 4),
            Err(ModelError::OutOfRange {
                name: "delta_s",
                ..
            })
        ));
        assert!(matches!(
            p_max_rto_greater(10e-3, 4e-3, 4, f64::NAN),
            Err(ModelError::OutOfRange { name: "k_s", .. })
        ));
        let msg = expected_max_rto(10e-3, -1e-3, 4).unwrap_err().to_string();
        assert!(msg.contains("delta_s") && msg.contains("-0.001"), "{msg}");
    }
}
