//! RDMA congestion control (`tcp.transport.congestion_control`, issue 41): DCQCN's CNPs
//! (notification point, at most one per 50 µs per queue pair), HPCC's in-band telemetry (one
//! record per switch egress, echoed in the ACK), TIMELY reacting to the RTT, the controllers'
//! columns, a researcher's own controller through the extension registry, determinism and the
//! refusals. The controllers' hand traces are unit tests in `crates/roce/src/cc/`.

use crate::common;
use common::run;
use incastsim_core::{Duration, Time};
use incastsim_roce::{AckSample, ControllerState, RateControl, RateController};
use incastsim_scenario::extend::{RdmaControllerContext, RdmaControllerExtension};
use incastsim_scenario::{Config, Extensions, RunOptions, RunResult, run_with};
use serde::{Deserialize, Serialize};

/// An 8:1 rack incast at 100 Gbps over RoCE on priority 1 with PFC, RED marking ECN with the
/// DCQCN paper's thresholds (Kmin 5 KB, Kmax 200 KB, Pmax 1 %, on the instantaneous queue).
fn rack(cc: &str, extra: &[&str]) -> Config {
    let yaml = format!(
        "name: rdma-rack
senders: 8
topology:
  kind: star
  link_rate: 100Gbps
  link_delay: 1us
  switch_buffer: 1MB
  priority_classes: 2
  switch_queue: {{kind: red, min_th: 5KB, max_th: 200KB, max_p: 0.01, w_q: 1, gentle: false, ecn: true}}
tcp: {{dscp: 1, transport: {{kind: roce, congestion_control: {cc}}}}}
workload: {{kind: synchronized_reads, sru: 512KB, blocks: 4}}
pfc: {{priorities: [1], xoff: 100KB}}
"
    );
    let sets: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    Config::from_yaml(&yaml, &sets).unwrap_or_else(|e| panic!("{cc}: {e}"))
}

/// Flow f's value of rate-controller column `name` (flows.csv), if it has one.
fn column(r: &RunResult, f: usize, name: &str) -> Option<f64> {
    use incastsim_scenario::probe::ProbeValue;
    match r.flows[f].probes.get(name)? {
        ProbeValue::Float(v) => Some(*v),
        ProbeValue::UInt(v) => Some(*v as f64),
        ProbeValue::Int(v) => Some(*v as f64),
        _ => None,
    }
}

fn all_delivered(r: &RunResult) {
    assert!(r.run.completed, "not completed");
    for f in &r.flows {
        assert_eq!(f.bytes_delivered, 4 * 512_000, "flow {}", f.flow);
    }
}

/// DCQCN as the paper: marked packets make the receivers send CNPs, never two within 50 µs on
/// one queue pair; the senders cut their rates (α rises from its first CNP) and recover;
/// everything is delivered without a drop. A second run is identical.
#[test]
fn dcqcn_cnps_cut_the_rates_at_most_one_per_interval() {
    let cfg = rack("{kind: dcqcn, preset: paper}", &[]);
    let r = run(&cfg, 1);
    all_delivered(&r);
    assert_eq!(r.run.drops_total, 0);
    assert!(r.run.ecn_marks > 0, "the switch marks");
    let sim_us = r.run.sim_time_s * 1e6;
    let mut cnps = 0.0;
    for f in 0..r.flows.len() {
        let sent = column(&r, f, "rdma_cnps_sent").unwrap();
        let received = column(&r, f, "rdma_cnps_received").unwrap();
        // At most one per 50 µs of the run, per queue pair; lossless: every CNP arrives.
        assert!(
            sent <= (sim_us / 50.0).floor() + 1.0,
            "flow {f}: {sent} CNPs"
        );
        assert_eq!(sent, received, "flow {f}");
        cnps += received;
        assert_eq!(r.flows[f].congestion_control, "dcqcn");
        assert!(column(&r, f, "rdma_alpha").is_some());
        assert!(column(&r, f, "rdma_target_rate_gbps").is_some());
        assert!(column(&r, f, "rdma_utilization").is_none());
    }
    assert!(cnps > 0.0, "CNPs came back");
    // runs.csv names the queue pairs' controller, MTU, header and timeout, not the section's
    // unused TCP keys (NewReno, MSS 1000 B + 40 B, RTO_min 200 ms).
    assert_eq!(r.run.congestion_control, "dcqcn");
    assert_eq!((r.run.mss_bytes, r.run.header_bytes), (1000, 62));
    assert_eq!(r.run.rto_min_us, 67_108.864);
    assert!(
        r.run.fast_retransmit_bound.is_nan(),
        "no fast retransmit: empty"
    );
    let irn = run(&rack("none", &["tcp.transport.recovery=irn"]), 1);
    assert_eq!(irn.run.congestion_control, "roce_irn");
    assert_eq!(irn.run.rto_min_us, 100.0, "IRN's RTO_low");
    let decreases: f64 = (0..8)
        .map(|f| column(&r, f, "rdma_rate_decreases").unwrap())
        .sum();
    assert!(decreases > 0.0);
    let mean = column(&r, 0, "rdma_mean_rate_gbps").unwrap();
    assert!(mean > 0.0 && mean < 100.0, "mean rate {mean} Gbps");
    // Field by field (srtt_us is NaN for a queue pair, never equal to itself).
    assert_eq!(
        format!("{:?}", run(&cfg, 1).flows),
        format!("{:?}", r.flows),
        "deterministic"
    );
}

/// The fork's DCQCN takes its CNP from the ACK's ECN flag: no CNP packets, yet the rates are cut.
#[test]
fn the_forks_dcqcn_reacts_to_ecn_echoes() {
    let r = run(&rack("dcqcn", &[]), 1);
    all_delivered(&r);
    let decreases: f64 = (0..8)
        .map(|f| column(&r, f, "rdma_rate_decreases").unwrap())
        .sum();
    assert!(decreases > 0.0);
    assert!((0..8).all(|f| column(&r, f, "rdma_cnps_sent") == Some(0.0)));
}

/// HPCC keeps the incast's queue far below what queue pairs at line rate build (they fill up
/// to PFC's XOFF), and it needs no PAUSE; TIMELY, reacting to the RTT, cuts its rate too.
#[test]
fn hpcc_keeps_the_queue_short_and_timely_reacts() {
    // The port to the client: the switch's deepest queue.
    let bottleneck = |r: &RunResult| {
        r.ports
            .iter()
            .filter(|p| p.from_node.starts_with("switch"))
            .map(|p| p.max_queue_bytes)
            .max()
            .unwrap()
    };
    let none = run(&rack("none", &[]), 1);
    let hpcc = run(&rack("hpcc", &[]), 1);
    all_delivered(&none);
    all_delivered(&hpcc);
    assert!(
        bottleneck(&hpcc) * 4 < bottleneck(&none),
        "HPCC {} B, none {} B",
        bottleneck(&hpcc),
        bottleneck(&none)
    );
    assert!(none.pfc.iter().any(|p| p.pauses_sent > 0));
    assert!(hpcc.pfc.iter().all(|p| p.pauses_sent == 0));
    for f in 0..8 {
        let u = column(&hpcc, f, "rdma_utilization").expect("HPCC's U");
        assert!(u > 0.0, "flow {f}: U {u}");
        assert!(column(&hpcc, f, "rdma_window_bytes").is_some());
    }
    let timely = run(&rack("timely", &[]), 1);
    all_delivered(&timely);
    assert!((0..8).any(|f| column(&timely, f, "rdma_rate_decreases").unwrap() > 0.0));
    assert!(column(&timely, 0, "rdma_rtt_gradient").is_some());
}

/// HPCC with ACK coalescing (`ack_every` 4): without the receiver's ACK timer the config is
/// refused (a window an ACK shrinks leaves the packets held back unacknowledged until the
/// 67 ms timeout: before the timer and the refusal, a 16:1 incast's blocks took 100 times
/// longer);
/// with a 2 µs timer no queue pair times out and the blocks take within 5 % of per-packet
/// ACKs' time.
#[test]
fn hpcc_with_ack_coalescing_runs_on_the_ack_timer() {
    let refused = Config::from_yaml(
        "senders: 2
topology: {kind: star, priority_classes: 2}
tcp: {dscp: 1, transport: {kind: roce, congestion_control: hpcc, ack_every: 4}}
workload: {kind: synchronized_reads, sru: 64KB, blocks: 1}",
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(
        refused.contains("tcp.transport.ack_timeout = unset"),
        "{refused}"
    );
    let every = run(&rack("hpcc", &[]), 1);
    let coalesced = run(
        &rack(
            "hpcc",
            &["tcp.transport.ack_every=4", "tcp.transport.ack_timeout=2us"],
        ),
        1,
    );
    all_delivered(&coalesced);
    assert_eq!(coalesced.run.rto_count, 0);
    let (a, b) = (every.run.bct_mean_ms, coalesced.run.bct_mean_ms);
    assert!(
        b < a * 1.05,
        "block time {b} ms coalesced, {a} ms per packet"
    );
    // A quarter of the ACKs: packets sent fall from about 2 to about 1.25 per data packet.
    assert!(
        coalesced.run.packets_sent * 10 < every.run.packets_sent * 7,
        "{} packets coalesced, {} per packet",
        coalesced.run.packets_sent,
        every.run.packets_sent
    );
}

/// A researcher's controller, registered from outside: it keeps the line rate and reports,
/// as its "utilization", the most INT records any ACK echoed, and checks each record (the
/// port's 100 Gbps rate, timestamps inside the RTT, transmitted bytes growing per hop).
#[derive(Clone, Debug, Default)]
struct IntRecorder {
    most_hops: usize,
    last_tx: Vec<u64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

impl RateController for IntRecorder {
    fn on_ack(&mut self, s: &AckSample<'_>, _ctl: &mut RateControl) {
        self.most_hops = self.most_hops.max(s.int.len());
        if self.last_tx.len() != s.int.len() {
            self.last_tx = vec![0; s.int.len()];
        }
        for (i, hop) in s.int.iter().enumerate() {
            assert_eq!(hop.rate.0, 100_000_000_000, "hop {i}");
            assert!(hop.ts <= s.now && s.now.since(hop.ts) < Duration::from_ms(5));
            assert!(hop.ts > Time::ZERO);
            assert!(
                hop.tx_bytes >= self.last_tx[i],
                "hop {i}: counters only grow"
            );
            self.last_tx[i] = hop.tx_bytes;
        }
    }
    fn state(&self) -> ControllerState {
        ControllerState {
            utilization: Some(self.most_hops as f64),
            ..ControllerState::default()
        }
    }
}

impl RdmaControllerExtension for IntRecorder {
    type Params = NoParams;
    const DESCRIPTION: &'static str = "records the INT records ACKs echo (test)";
    fn new(_params: &NoParams, ctx: &RdmaControllerContext) -> IntRecorder {
        assert_eq!(ctx.line_rate.0, 100_000_000_000);
        assert!(ctx.base_rtt > Duration::ZERO);
        IntRecorder::default()
    }
}

fn extensions() -> Extensions {
    Extensions::new().rdma_congestion_control::<IntRecorder>("int_recorder")
}

/// Runs `yaml` with the test's extension.
fn run_ext(yaml: &str, sets: &[&str]) -> RunResult {
    let ext = extensions();
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let cfg = Config::from_yaml_with(yaml, &sets, &ext).expect("valid");
    incastsim_scenario::check_buildable(&cfg, &ext).expect("buildable");
    run_with(&cfg, 1, &RunOptions::new().extensions(&ext)).expect("runs")
}

/// One INT record per switch egress on the data packet's path: 1 through a star's switch, 5
/// across a k = 4 fat-tree's pods (ToR, aggregation, core, aggregation, ToR), 3 within a pod.
#[test]
fn int_records_one_per_switch_on_the_path() {
    let star = "name: int-star
senders: 4
topology: {kind: star, link_rate: 100Gbps, link_delay: 1us}
tcp: {transport: {kind: roce, congestion_control: int_recorder, int_telemetry: true}}
workload: {kind: synchronized_reads, sru: 64KB, blocks: 2}
";
    let r = run_ext(star, &[]);
    assert!(r.run.completed);
    assert!((0..4).all(|f| column(&r, f, "rdma_utilization") == Some(1.0)));
    // The INT header's 42 bytes ride on every data packet: 1000 + 62 + 42.
    assert!(
        r.flows
            .iter()
            .all(|f| f.congestion_control == "int_recorder")
    );
    let tree = "name: int-tree
senders: 1
topology: {kind: fat_tree, k: 4, link_rate: 100Gbps, link_delay: 1us}
tcp: {transport: {kind: roce, congestion_control: int_recorder, int_telemetry: true}}
workload: {kind: traffic, duration: 30us}
traffic:
  - {kind: long_lived, from: host:0, to: host:15, count: 1, start: 0us}
  - {kind: long_lived, from: host:0, to: host:1, count: 1, start: 0us}
  - {kind: long_lived, from: host:0, to: host:2, count: 1, start: 0us}
";
    let r = run_ext(tree, &[]);
    let hops: Vec<f64> = (0..3)
        .map(|f| column(&r, f, "rdma_utilization").unwrap())
        .collect();
    assert_eq!(hops, [5.0, 1.0, 3.0]);
}

/// Refused by name: a TCP controller on RoCE flows, an RDMA one on TCP flows, an unknown
/// RDMA controller (listing what there is), a parameter out of range (naming its key).
#[test]
fn controllers_on_the_wrong_transport_are_refused() {
    let err = |yaml: &str| {
        incastsim_scenario::from_yaml_checked(yaml, &[])
            .expect_err("refused")
            .to_string()
    };
    let base = "senders: 4\ntopology: {kind: star}\nworkload: {kind: synchronized_reads, sru: 64KB, blocks: 1}\n";
    let e = err(&format!(
        "{base}tcp: {{transport: {{kind: roce, congestion_control: dctcp}}}}\n"
    ));
    assert!(
        e.contains("tcp.transport.congestion_control") && e.contains("dctcp is a TCP"),
        "{e}"
    );
    let e = err(&format!("{base}tcp: {{congestion_control: hpcc}}\n"));
    assert!(
        e.contains("tcp.congestion_control") && e.contains("hpcc is an RDMA"),
        "{e}"
    );
    let e = err(&format!(
        "{base}tcp: {{congestion_control: cubic, transport: {{kind: roce}}}}\n"
    ));
    assert!(e.contains("tcp.congestion_control = cubic"), "{e}");
    let e = err(&format!(
        "{base}tcp: {{transport: {{kind: roce, congestion_control: swift}}}}\n"
    ));
    assert!(e.contains("one of none, dcqcn, hpcc, timely"), "{e}");
    let e = err(&format!(
        "{base}tcp: {{transport: {{kind: roce, congestion_control: {{kind: dcqcn, g: 2}}}}}}\n"
    ));
    assert!(e.contains("tcp.transport.congestion_control.g = 2"), "{e}");
    let e = err(&format!(
        "{base}tcp: {{transport: {{kind: roce, congestion_control: hpcc, int_telemetry: false}}}}\n"
    ));
    assert!(e.contains("int_telemetry"), "{e}");
}

/// The time series samples a controller's state view beside the rate: HPCC's U and window,
/// DCQCN's α and target rate, TIMELY's gradient.
#[test]
fn the_time_series_shows_the_controllers_state() {
    for (cc, metrics) in [
        (
            "hpcc",
            &["rate_gbps", "rdma_utilization", "window_bytes"][..],
        ),
        (
            "{kind: dcqcn, preset: paper}",
            &["rdma_alpha", "target_rate_gbps"][..],
        ),
        ("timely", &["rtt_gradient"][..]),
    ] {
        let r = run(
            &rack(cc, &["time_series={interval: 20us, flows: [0, 3]}"]),
            1,
        );
        for m in metrics {
            let n = r
                .time_series
                .iter()
                .filter(|s| s.object == "flow 3" && s.metric == *m)
                .count();
            assert!(n > 5, "{cc}: {m} sampled {n} times");
        }
    }
}
