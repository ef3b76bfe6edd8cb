//! Eq. 6–7 of the RTO randomization paper (seed 000) against a Monte Carlo estimate: N senders
//! draw RTOs uniformly in [RTO_min − Δ/2, RTO_min + Δ/2]; the mean of their maximum must match
//! E[X] (Eq. 6) and its variance Var(X) (Eq. 7).

use incastsim_models::rto::{expected_max_rto, var_max_rto};
use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn unit_f64(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

#[test]
fn mean_and_variance_of_the_max_rto_match_eq_6_and_7() {
    let (rto_min_s, delta_s) = (10e-3, 4e-3);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x5EED_0006);
    let trials = 20_000;
    for n in [4u64, 8, 16, 32, 64, 128, 256] {
        let mut sum = 0.0;
        let mut sum_sq = 0.0;
        for _ in 0..trials {
            let mut max = f64::NEG_INFINITY;
            for _ in 0..n {
                let x = rto_min_s - delta_s / 2.0 + delta_s * unit_f64(&mut rng);
                max = max.max(x);
            }
            sum += max;
            sum_sq += max * max;
        }
        let mean = sum / trials as f64;
        let var = sum_sq / trials as f64 - mean * mean;
        let e = expected_max_rto(rto_min_s, delta_s, n).unwrap();
        let v = var_max_rto(rto_min_s, delta_s, n).unwrap();
        assert!(
            (mean - e).abs() <= 0.01 * e,
            "N = {n}: simulated mean {mean}, Eq. 6 {e}"
        );
        // The standard error of the sample variance is about v·√(2/trials) ≈ 1 %; allow 10 %.
        assert!(
            (var - v).abs() <= 0.10 * v,
            "N = {n}: simulated variance {var}, Eq. 7 {v}"
        );
    }
}
