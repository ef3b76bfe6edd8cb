//! The example scheme in `examples/rto_jitter.rs` works as its documentation says.

#[path = "../examples/rto_jitter.rs"]
mod rto_jitter;

#[test]
fn example_scheme_jitters_the_backed_off_rto() {
    let armed = rto_jitter::demo(7);
    // RTO_min 10 ms, backoff ×2 per timeout, plus U(0, 2 ms).
    for (b, rto) in armed.iter().enumerate() {
        let base = 10.0 * 2f64.powi(b as i32);
        assert!((base..=base + 2.0).contains(rto), "{armed:?}");
    }
    assert_ne!(rto_jitter::demo(7), rto_jitter::demo(8));
    assert_eq!(rto_jitter::demo(7), armed);
}
