//! End-to-end tests of the incast diagnostics: timeout classes, drop runs, the book's model
//! inputs and predictions. The small scenarios force drops with a one-packet switch buffer and
//! no start jitter, so every drop below is worked out by hand.

use crate::common;
use common::*;
use incastsim_scenario::{Config, RunResult};

/// S1's star (1 Gbps, 25 µs links, 1000 B MSS + 40 B headers) with N servers answering
/// `sru` each, a switch port that holds only the packet it is sending, no start jitter.
fn tiny(n: u32, sru: &str, blocks: u32) -> Config {
    shipped(
        "incast-classic.yaml",
        &[
            &format!("senders={n}"),
            &format!("workload.sru={sru}"),
            &format!("workload.blocks={blocks}"),
            "workload.start_jitter=0us",
            "topology.switch_buffer=1 packets",
        ],
    )
}

fn classes_partition(r: &RunResult) {
    let run = &r.run;
    assert_eq!(
        run.rto_abtt
            + run.rto_ibtt_whole_window
            + run.rto_ibtt_partial_window
            + run.rto_ibtt_tail
            + run.rto_ibtt_retransmission,
        run.rto_count,
        "timeout classes add up to rto_count"
    );
    for f in &r.flows {
        assert_eq!(
            f.rto_abtt
                + f.rto_ibtt_whole_window
                + f.rto_ibtt_partial_window
                + f.rto_ibtt_tail
                + f.rto_ibtt_retransmission,
            f.rto_count,
            "flow {}",
            f.flow
        );
    }
}

/// Two servers, two segments each. The client's requests leave 0.32 µs apart, so server 1's
/// segments reach the switch 0.32 µs after server 0's: A0 is admitted (T), B0 dropped
/// (T + 0.32 µs, A0 still sending), A1 admitted (T + 8.32 µs, A0 just left), B1 dropped. Flow 1
/// lost its whole first window of the block: one ABTT, one drop run of length 2.
#[test]
fn whole_first_window_dropped_is_an_abtt_end_to_end() {
    let r = run(&tiny(2, "2000B", 1), 1);
    classes_partition(&r);
    assert_eq!(r.run.rto_count, 1);
    assert_eq!(r.run.rto_abtt, 1);
    assert_eq!(r.flows[1].rto_abtt, 1);
    assert_eq!(r.flows[0].rto_count, 0);
    assert_eq!(r.run.drops_total, 2);
    assert_eq!(r.flows[1].drops, 2);
    assert_eq!((r.flows[1].drop_run_1, r.flows[1].drop_run_2), (0, 1));
    assert_eq!(r.run.input_drop_run_2, 1);
    assert_eq!(r.run.max_input_drop_run, 2);
    // drop_runs.csv: the pair (switch0->host2, from host1) holds the run.
    let pair = r
        .drop_runs
        .iter()
        .find(|d| d.drops > 0)
        .expect("one pair with drops");
    assert_eq!(pair.port_name, "switch0->host2");
    assert_eq!(pair.input_name, "host1->switch0");
    assert_eq!((pair.drops, pair.drop_run_2, pair.max_drop_run), (2, 1, 2));
    // Offered at that pair: B0, B1, then B0 and B1 again after the timeout: 4.
    assert_eq!(pair.packets_offered, 4);
    assert!((pair.drop_ratio - 0.5).abs() < 1e-12);
    // ports.csv: the bottleneck saw A0, A1, B0, B1 twice: 6 offered, 2 dropped.
    let port = r
        .ports
        .iter()
        .find(|p| p.from_node == "switch0" && p.to_node == "host2")
        .unwrap();
    assert_eq!((port.packets_offered, port.drop_run_2), (6, 1));
    assert!((port.drop_ratio - 2.0 / 6.0).abs() < 1e-12);
    // The book's inputs: one loss indication (the timeout), one cumulative loss event, δ = 1
    // ABTT per block, T0 = RTO_min.
    assert_eq!((r.run.loss_indications, r.run.loss_events), (1, 1));
    assert!((r.run.delta_abtt_per_block - 1.0).abs() < 1e-12);
    assert!((r.run.t0_ms - 200.0).abs() < 1e-9);
    assert_eq!(r.run.block_packets, 4.0);
}

/// Three servers, one segment each: only server 0's is admitted, both others are ABTTs. Their
/// retransmissions expire in the same microsecond (deadlines round up to the 1 µs clock) and
/// meet at the switch again: one gets through, the other is dropped, so that flow's second
/// timeout is a retransmission ("double") loss, and its run of successive timeouts is 2.
#[test]
fn dropped_retransmission_is_a_retransmission_loss_end_to_end() {
    let r = run(&tiny(3, "1000B", 1), 1);
    classes_partition(&r);
    assert_eq!(r.run.rto_count, 3);
    assert_eq!(r.run.rto_abtt, 2);
    assert_eq!(r.run.rto_ibtt_retransmission, 1);
    assert_eq!((r.run.rto_run_1, r.run.rto_run_2), (1, 1));
    let double = r
        .flows
        .iter()
        .find(|f| f.rto_ibtt_retransmission == 1)
        .unwrap();
    assert_eq!(double.rto_abtt, 1);
    assert_eq!(double.max_successive_rto, 2);
    // That flow's two drops at the bottleneck are one run: nothing of it admitted in between.
    assert_eq!(
        (double.drops, double.drop_run_2, double.max_drop_run),
        (2, 1, 2)
    );
    // Two loss indications (the ABTTs; the backed-off expiry is the same indication).
    assert_eq!(r.run.loss_indications, 2);
    assert!((r.run.t0_ms - 200.0).abs() < 1e-9, "first timeouts only");
}

#[test]
fn timeout_classes_partition_and_classic_incast_has_abtts() {
    // S1 at N = 32: ABTTs dominate at large N (book §3.2, Fig. 3.11).
    let r = run(&s1(32, "200ms"), 1);
    classes_partition(&r);
    assert!(r.run.rto_abtt > 0, "{:?}", r.run.rto_abtt);
    assert!(r.run.delta_abtt_per_block > 0.0);
    // Drop-run histograms count every admission drop once per run length.
    let by_runs: u64 = [
        r.run.input_drop_run_1,
        2 * r.run.input_drop_run_2,
        3 * r.run.input_drop_run_3,
    ]
    .iter()
    .sum();
    assert!(by_runs <= r.run.drops_buffer);
    let flow_drops: u64 = r.flows.iter().map(|f| f.drops).sum();
    assert_eq!(
        flow_drops, r.run.drops_buffer,
        "S1 drops only data segments"
    );
    let runs_total: u64 = r.drop_runs.iter().map(|d| d.drops).sum();
    assert_eq!(runs_total, r.run.drops_buffer + r.run.drops_aqm);
    // Delayed ACK is off in S1, and the measured inputs are in range.
    assert!(!r.run.delayed_ack);
    assert!(r.run.p_c > 0.0 && r.run.p_c <= r.run.p_r && r.run.p_r < 1.0);
    assert!(r.run.rtt_mean_us > 100.0 && r.run.rtt_mean_us < 1000.0);
    assert!(r.run.model_full_mbps.is_nan(), "models only when asked");
}

#[test]
fn models_are_written_next_to_the_goodput_when_asked() {
    let mut cfg = s1(16, "200ms");
    cfg.metrics.models = true;
    cfg.workload = tiny(16, "256KB", 10).workload;
    let r = run(&cfg, 1);
    let b = incastsim_models::book::BookParams {
        n_senders: 16,
        p_c: r.run.p_c,
        p_r: r.run.p_r,
        delta_abtts_per_block: r.run.delta_abtt_per_block,
        rtt_s: r.run.rtt_mean_us / 1e6,
        t0_s: r.run.t0_ms / 1e3,
        block_packets: 16.0 * 256.0,
        n_star: 3,
    }
    .evaluate()
    .unwrap();
    let mbps = |pps: f64| pps * 1000.0 * 8.0 / 1e6;
    assert_eq!(r.run.block_packets, 4096.0);
    assert!((r.run.model_full_mbps - mbps(b.full_pps)).abs() < 1e-9);
    assert!((r.run.model_split_mbps - mbps(b.split_pps)).abs() < 1e-9);
    assert!((r.run.model_td_only_mbps - mbps(b.td_only_pps)).abs() < 1e-9);
    assert!((r.run.model_j - b.j).abs() < 1e-12);
    // j = p_r/p_c = loss indications per cumulative loss event (capped at n).
    let j = (r.run.loss_indications as f64 / r.run.loss_events as f64).min(16.0);
    assert!((r.run.model_j - j).abs() < 1e-9);
}

#[test]
fn diagnostics_are_deterministic() {
    let cfg = s1(24, "200ms");
    let (a, b) = (run(&cfg, 3), run(&cfg, 3));
    // NaN != NaN, so compare the printed values.
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
}
