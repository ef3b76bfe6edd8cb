//! The classic incast curve on benchmark S1 (../shared/benchmarks.md).

use crate::common;
use common::*;

fn goodput(n: u32, rto: &str, seed: u64) -> f64 {
    let r = run(&s1(n, rto), seed);
    assert!(r.run.completed, "N={n} rto={rto}: did not finish");
    assert_eq!(r.run.blocks_completed, 100);
    assert_eq!(r.run.app_bytes, n as u64 * 256_000 * 100);
    r.run.goodput_mbps
}

#[test]
fn one_sender_reaches_line_rate() {
    // Goodput ceiling with 1000 B payload in 1040 B frames is 961.5 Mbps; the per-block request
    // round trip costs a little more.
    let g = goodput(1, "200ms", 1);
    assert!(
        g >= 850.0,
        "N=1 goodput {g:.1} Mbps is below 85% of line rate"
    );
    assert!(
        g <= 961.6,
        "N=1 goodput {g:.1} Mbps exceeds the payload ceiling"
    );
}

#[test]
fn goodput_collapses_with_rto_min_200ms() {
    let g1 = goodput(1, "200ms", 1);
    for n in [16, 32, 64] {
        let g = goodput(n, "200ms", 1);
        assert!(
            g < 0.3 * g1,
            "N={n}: {g:.1} Mbps is no collapse from {g1:.1} Mbps"
        );
    }
}

#[test]
fn fine_grained_rto_keeps_goodput_far_higher() {
    for n in [16, 64] {
        let coarse = goodput(n, "200ms", 1);
        let fine = goodput(n, "200us", 1);
        assert!(
            fine > 3.0 * coarse,
            "N={n}: 200us gives {fine:.1}, 200ms gives {coarse:.1} Mbps"
        );
        assert!(fine > 400.0, "N={n}: 200us gives only {fine:.1} Mbps");
    }
}

#[test]
fn timeouts_grow_with_senders() {
    let few = run(&s1(4, "200ms"), 1).run.rto_count;
    let many = run(&s1(64, "200ms"), 1).run.rto_count;
    assert!(many > 10 * few.max(1), "RTOs: N=4 -> {few}, N=64 -> {many}");
}
