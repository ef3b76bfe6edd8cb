//! The RTO randomization paper's Fig. 4: E[X], the largest RTO picked by the senders of an
//! incast task, from simulation against its Eq. 6 (RTO_min = 10 ms, Δ = 4 ms).

use crate::common;

use common::{config_path, run};
use incastsim_models::rto::expected_max_rto;
use incastsim_scenario::load_checked;

#[test]
fn simulated_max_rto_matches_eq6_within_3_percent() {
    let path = config_path("papers/hafeez-fig4-max-rto.yaml");
    for n in [4u32, 8, 16, 32, 64, 128, 256] {
        let cfg = load_checked(&path, &["sweep=null".into(), format!("senders={n}")]).unwrap();
        let seeds = 40;
        let (mut sum_x, mut sum_m) = (0.0, 0.0);
        for seed in 1..=seeds {
            let r = run(&cfg, seed);
            assert!(r.run.completed);
            // Every draw is one of the paper's X_i: U(8 ms, 12 ms).
            assert!(
                (8.0..=12.0).contains(&r.run.max_first_rto_ms),
                "{}",
                r.run.max_first_rto_ms
            );
            sum_x += r.run.max_first_rto_ms;
            sum_m += r.run.flows_with_rto as f64;
        }
        let (x, m) = (sum_x / seeds as f64, sum_m / seeds as f64);
        let eq6 = expected_max_rto(10.0, 4.0, n as u64).unwrap();
        let err = (x - eq6).abs() / eq6;
        assert!(
            err < 0.03,
            "N = {n}: simulated E[X] {x:.3} ms vs Eq. 6 {eq6:.3} ms ({m:.1} flows timed out)"
        );
    }
}
