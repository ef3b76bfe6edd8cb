//! DCTCP against its steady-state analysis (Alizadeh et al., "Data Center TCP", SIGCOMM 2010,
//! §3.3): N long-lived flows share one bottleneck of capacity C with marking threshold K.
//!
//! With W* = (C·RTT + K)/N the window at which the queue reaches K, the analysis gives
//! - Q_max = N (W* + 1) − C·RTT = K + N (the queue peaks N packets above K: each flow adds one
//!   packet in the round trip before the marks reach it);
//! - the amplitude A = ½ √(2 N (C·RTT + K)), so Q_min = K + N − A;
//! - α from α² (1 − α/4) = (2W* + 1)/(W* + 1)² (Eq. 7), ≈ √(2/W*).
//!
//! Tolerances. Q_max and Q_min come from the window dynamics alone: Q_max within 2 packets +
//! 5 % (the packet on the wire counts in the queue; 20 µs sampling), Q_min within A/4. α is
//! where the analysis idealizes most: it assumes every flow is marked in exactly one round trip
//! per cycle and so reduces once per cycle. Flows that are not synchronized keep the queue above
//! K a little longer, so a flow's first window after its reduction is often marked too: counted
//! from the time series (flow 0's cwnd drops per upward crossing of K), flows reduce r = 1.7-2.1
//! times per cycle here. With r reductions of α/2 per cycle and one marked round trip, the same
//! argument as Eq. 7 gives α ≈ √(2/(r W*)), i.e. 0.69-0.76 × √(2/W*); measured α is 0.6-0.75 ×
//! Eq. 7 (N = 2 lowest: with two flows a marking episode ends as soon as one flow reduces).
//! So the band is [0.5, 1.1] × α_Eq.7: the analysis's upper end with 10 % for the EWMA's noise
//! (g = 1/16), and room below for up to ~2.5 reductions per cycle. The marked fraction of
//! packets is α's steady-state value by definition and is held to the same band. W* ≥ 10 here:
//! below that (N = 40 at 100 µs: W* = 3.6-4.7) the windows sit near DCTCP's 2-segment floor
//! and α is not small, which the analysis assumes.

use crate::common;
use common::{run, shipped};

const LINK_DELAY_US: f64 = 25.0; // RTT ≈ 100 µs, the paper's 10 Gbps setting
const C_BPS: f64 = 10e9;
const PACKET: f64 = 1040.0; // mss 1000 B + header 40 B
const ACK: f64 = 40.0;

struct Measured {
    q_max: f64,
    q_p5: f64,
    alpha: f64,
    mark_fraction: f64,
}

fn measure(n: u32, k: u32, seed: u64) -> Measured {
    let flows: Vec<String> = (0..n).map(|f| f.to_string()).collect();
    let cfg = shipped(
        "bulk-dumbbell-dctcp.yaml",
        &[
            &format!("senders={n}"),
            &format!("topology.switch_queue.k={k} packets"),
            &format!("topology.link_delay={LINK_DELAY_US}us"),
            "topology.switch_buffer=2000KB",
            // ~1 µs of per-packet timing noise at the switch, so no result rests on lockstep.
            "topology.switch_delay_jitter=1us",
            "workload.duration=50ms",
            &format!(
                "time_series={{interval: 20us, ports: [\"switch0->host{n}\"], flows: [{}]}}",
                flows.join(", ")
            ),
        ],
    );
    let r = run(&cfg, seed);
    let warm = 0.015; // α starts at 1; a few hundred round trips settle it
    let series = |metric: &str| -> Vec<f64> {
        r.time_series
            .iter()
            .filter(|s| s.metric == metric && s.time_s >= warm)
            .map(|s| s.value)
            .collect()
    };
    let mut q = series("queue_packets");
    q.sort_by(f64::total_cmp);
    let alphas = series("dctcp_alpha");
    let port = r
        .ports
        .iter()
        .find(|p| p.from_node == "switch0" && p.to_node == format!("host{n}"))
        .unwrap();
    assert_eq!(port.drops_buffer, 0, "the analysis has no losses");
    Measured {
        q_max: q[q.len() - 1],
        q_p5: q[q.len() / 20],
        alpha: alphas.iter().sum::<f64>() / alphas.len() as f64,
        mark_fraction: port.ecn_marks as f64 / port.packets_enqueued as f64,
    }
}

/// Eq. 7 solved for α by bisection.
fn alpha_eq7(w: f64) -> f64 {
    let rhs = (2.0 * w + 1.0) / ((w + 1.0) * (w + 1.0));
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let m: f64 = (lo + hi) / 2.0;
        if m * m * (1.0 - m / 4.0) < rhs {
            lo = m;
        } else {
            hi = m;
        }
    }
    lo
}

#[test]
fn dctcp_matches_the_steady_state_analysis() {
    let rtt = 4.0 * LINK_DELAY_US * 1e-6 + 2.0 * (PACKET + ACK) * 8.0 / C_BPS;
    let bdp = C_BPS * rtt / 8.0 / PACKET;
    for (n, k, seed) in [(2, 20, 1), (2, 65, 2), (10, 20, 3), (10, 65, 4)] {
        let w = (bdp + k as f64) / n as f64;
        assert!(w >= 10.0);
        let q_max = (k + n) as f64;
        let amplitude = 0.5 * (2.0 * n as f64 * (bdp + k as f64)).sqrt();
        let (lo, hi) = (0.5 * alpha_eq7(w), 1.1 * alpha_eq7(w));
        let m = measure(n, k, seed);
        let at = format!(
            "N = {n}, K = {k}: W* = {w:.1}, Q_max {q_max}, Q_min {:.1}, α in [{lo:.3}, {hi:.3}]; \
             measured Q_max {}, Q p5 {}, α {:.3}, marked {:.3}",
            q_max - amplitude,
            m.q_max,
            m.q_p5,
            m.alpha,
            m.mark_fraction
        );
        assert!((m.q_max - q_max).abs() <= 2.0 + 0.05 * q_max, "{at}");
        assert!(
            (m.q_p5 - (q_max - amplitude).max(0.0)).abs() <= amplitude / 4.0,
            "{at}"
        );
        assert!(m.alpha >= lo && m.alpha <= hi, "{at}");
        assert!(m.mark_fraction >= lo && m.mark_fraction <= hi, "{at}");
    }
}
