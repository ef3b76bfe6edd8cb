//! RoCEv2 hosts (`tcp.transport: roce`, issue 40 item 3): every workload and traffic generator
//! runs over them, lossless under PFC, go-back-N and IRN recovering what a lossy fabric drops,
//! TCP and RoCE flows side by side, deterministic. The queue pairs' own hand traces are unit
//! tests in `crates/roce`.

use crate::common;
use common::run;
use incastsim_scenario::{Config, RunResult};

/// An 8:1 rack incast at 100 Gbps over RoCE on priority 1, with PFC (static XOFF 100 KB).
fn rack(extra: &[&str]) -> Config {
    let yaml = "name: roce-rack
senders: 8
topology: {kind: star, link_rate: 100Gbps, link_delay: 1us, switch_buffer: 1MB, priority_classes: 2}
tcp: {dscp: 1, transport: {kind: roce}}
workload: {kind: synchronized_reads, sru: 256KB, blocks: 5, start_jitter: 0us}
pfc: {priorities: [1], xoff: 100KB}
";
    let sets: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    Config::from_yaml(yaml, &sets).expect("valid config")
}

fn all_delivered(r: &RunResult) {
    assert!(r.run.completed, "not completed");
    for f in &r.flows {
        assert_eq!(f.bytes_delivered, 5 * 256_000, "flow {}", f.flow);
    }
}

/// With PFC nothing is dropped and the block time is the bytes at line rate (8 × 256 KB at
/// 100 Gbps = 164 µs of serialization, plus a few µs of latency and headers: 62 B per 1000 B).
#[test]
fn lossless_rack_incast_runs_at_line_rate() {
    let r = run(&rack(&[]), 1);
    all_delivered(&r);
    assert_eq!(r.run.drops_total, 0);
    assert_eq!(r.run.rto_count, 0);
    assert!(r.flows.iter().all(|f| f.retransmitted_segments == 0));
    assert!(
        r.flows
            .iter()
            .all(|f| f.congestion_control == "roce_go_back_n")
    );
    let block_ms = r.block_times_ms[1];
    let ideal_ms = 8.0 * 256_000.0 * 1062.0 / 1000.0 * 8.0 / 100e9 * 1e3;
    assert!(
        block_ms > ideal_ms && block_ms < ideal_ms * 1.1,
        "block {block_ms} ms, serialization {ideal_ms} ms"
    );
    assert!(r.pfc.iter().any(|p| p.pauses_sent > 0), "the incast pauses");
}

/// Pauses that lapse (`pfc.resume: false`, 100 quanta = 512 ns at 100 Gbps, refreshed while
/// over XOFF): each lapse wakes the paused port and the queue pairs waiting in its host's NIC
/// line (a port told of its lapses asks for no look at a pause's end by itself). Nothing is
/// lost or stuck: every block completes, none is retransmitted, no RESUME is sent, and the
/// blocks stay near line rate.
#[test]
fn queue_pairs_resume_when_their_pause_lapses() {
    let r = run(&rack(&["pfc.resume=false", "pfc.pause_quanta=100"]), 1);
    all_delivered(&r);
    assert_eq!(r.run.drops_total, 0);
    assert_eq!(r.run.rto_count, 0);
    assert!(r.flows.iter().all(|f| f.retransmitted_segments == 0));
    assert!(r.pfc.iter().all(|p| p.resumes_sent == 0));
    assert!(r.pfc.iter().any(|p| p.pauses_sent > 0), "the incast pauses");
    let block_ms = r.block_times_ms[1];
    let ideal_ms = 8.0 * 256_000.0 * 1062.0 / 1000.0 * 8.0 / 100e9 * 1e3;
    assert!(
        block_ms < ideal_ms * 1.2,
        "block {block_ms} ms, serialization {ideal_ms} ms"
    );
}

/// Lossy, go-back-N resends from every NAK and waits out its 67 ms timer when the tail is
/// lost; IRN resends only what is lost, with 100/320 µs timers: both deliver everything, IRN
/// far sooner (Mittal et al., SIGCOMM 2018, §5: IRN without PFC beats RoCE without it).
#[test]
fn lossy_go_back_n_and_irn_recover_everything() {
    let lossy = ["pfc=null", "topology.switch_buffer=200KB"];
    let gbn = run(&rack(&lossy), 1);
    all_delivered(&gbn);
    assert!(gbn.run.drops_total > 0);
    let resent: u64 = gbn.flows.iter().map(|f| f.retransmitted_segments).sum();
    assert!(
        resent > gbn.run.drops_total / 2,
        "go-back-N resends what follows a loss"
    );
    let mut irn_sets = lossy.to_vec();
    irn_sets.push("tcp.transport={kind: roce, recovery: irn}");
    let irn = run(&rack(&irn_sets), 1);
    all_delivered(&irn);
    assert!(irn.flows.iter().all(|f| f.congestion_control == "roce_irn"));
    assert!(
        irn.run.goodput_mbps > 20.0 * gbn.run.goodput_mbps,
        "IRN {} Mbps, go-back-N {} Mbps",
        irn.run.goodput_mbps,
        gbn.run.goodput_mbps
    );
}

/// The generators run over RoCE too (Poisson arrivals with web-search sizes, a permutation),
/// and a `flow_overrides` group puts some flows on TCP beside the RoCE ones; with the run
/// draining, every flow completes and has an FCT, and the run replays bit for bit.
#[test]
fn generators_and_mixed_groups_run_over_roce() {
    let yaml = "name: roce-traffic
senders: 4
topology: {kind: fat_tree, k: 4, link_rate: 40Gbps, link_delay: 1us, switch_buffer: 1MB, priority_classes: 2, switch_delay_jitter: 1us}
tcp: {dscp: 1, transport: {kind: roce, recovery: irn}}
flow_overrides: [{flows: [0, 1], tcp: {dscp: 0, transport: tcp}}]
workload: {kind: traffic, duration: 2ms}
traffic:
  - {kind: poisson, load: 0.3, sizes: {kind: cdf, file: websearch}, stop: 2ms}
  - {kind: permutation, flows: 8, size: 200KB, start: 1ms}
pfc: {priorities: [1], xoff: 60KB}
run: {max_sim_time: 2s}
";
    let cfg = Config::from_yaml(yaml, &[]).expect("valid");
    let r = run(&cfg, 3);
    assert!(r.run.completed);
    let roce: Vec<_> = r
        .flows
        .iter()
        .filter(|f| f.congestion_control == "roce_irn")
        .collect();
    assert!(roce.len() > 10, "{} RoCE flows", roce.len());
    assert_eq!(
        r.flows
            .iter()
            .filter(|f| f.congestion_control != "roce_irn")
            .count(),
        2,
        "the override group's two TCP flows"
    );
    for f in &r.flows {
        if let Some(size) = f.size_bytes {
            assert_eq!(f.bytes_delivered, size, "flow {}", f.flow);
            let (fct, slowdown) = (f.fct_ms.expect("an FCT"), f.slowdown.expect("a slowdown"));
            assert!(
                fct > 0.0 && slowdown >= 1.0 - 1e-9,
                "flow {}: {f:?}",
                f.flow
            );
        }
    }
    // Bit for bit (as text: a queue pair's SRTT is NaN, which never equals itself).
    let again = run(&cfg, 3);
    assert_eq!(format!("{:?}", r.flows), format!("{:?}", again.flows));
    assert_eq!(r.pfc, again.pfc);
}

/// Bad transport values are refused with the key, the value and what is allowed.
#[test]
fn bad_transport_values_are_refused() {
    for (set, expect) in [
        (
            "tcp.transport=quic",
            "tcp.transport: unknown transport \"quic\": tcp, or roce",
        ),
        (
            "tcp.transport={kind: roce, recovery: go_back_n, rto_high: 1ms}",
            "tcp.transport.rto_high = set: only with recovery: irn",
        ),
        (
            "tcp.transport={kind: roce, ack_every: 0}",
            "tcp.transport.ack_every = 0: 1 to 1024 packets",
        ),
        (
            "tcp.transport={kind: roce, ack_every: 4, window: 16KB}",
            "tcp.transport.ack_timeout = unset: a duration with ack_every > 1 (here 4) and a window",
        ),
        (
            "tcp.transport={kind: roce, ack_timeout: 5us}",
            "tcp.transport.ack_timeout = set: only with ack_every > 1",
        ),
        (
            "tcp.transport={kind: roce, recovery: irn, ack_every: 2, ack_timeout: 100us}",
            "tcp.transport.ack_timeout = 100us: below the retransmission timeout (100us, IRN's RTO_low)",
        ),
        (
            "tcp.transport={kind: roce, recovery: irn, rto: 1ms, rto_high: 500us}",
            "tcp.transport.rto_high = 500us: at least RTO_low (1ms)",
        ),
        (
            "scheme={name: tda}",
            "tcp.transport = roce: tcp with scheme tda",
        ),
    ] {
        let e = Config::from_yaml(
            "senders: 2
topology: {kind: star}
tcp: {transport: roce}
workload: {kind: synchronized_reads, sru: 64KB, blocks: 1}",
            &[set.to_string()],
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with(expect), "{set}: {e}");
    }
}

/// A long-lived RoCE flow with `stop` sends nothing new after it (its endless message is cut
/// at what has gone): at 100 Gbps for 100 µs a flow alone delivers about 100e9 × 100e-6 / 8 ×
/// 1000 / 1062 ≈ 1.18 MB, and nothing after.
#[test]
fn a_long_lived_roce_flow_stops_at_its_stop() {
    let yaml = "name: roce-stop
senders: 1
topology: {kind: star, link_rate: 100Gbps, link_delay: 1us}
tcp: {transport: {kind: roce}}
workload: {kind: traffic, duration: 300us}
traffic:
  - {kind: long_lived, from: sender:0, to: receiver, count: 1, start: 0us, stop: 100us}
";
    let cfg = Config::from_yaml(yaml, &[]).expect("valid");
    let r = run(&cfg, 1);
    let delivered = r.flows[0].bytes_delivered as f64;
    let at_line_rate = 100e9 * 100e-6 / 8.0 * 1000.0 / 1062.0;
    assert!(
        delivered > 0.95 * at_line_rate && delivered < 1.02 * at_line_rate,
        "{delivered} B delivered, {at_line_rate} B at line rate for 100 µs"
    );
}

/// A NIC pulls its queue pairs' packets when its link can take one (`engine/nic.rs`): three
/// line-rate QPs on one host, a fourth on another, into one receiver. Lossless (PFC pauses
/// both senders) and lossy (IRN, no PFC): a sender's port never holds more than the packet on
/// the wire, and the host's three QPs share its link in turn, within 2 %. Lossless, each of
/// the three is charged paused time (it waited in its NIC's line while the NIC was paused),
/// about equally.
#[test]
fn a_nic_sends_its_queue_pairs_in_turn_and_queues_none() {
    let yaml = "name: roce-nic
senders: 2
topology: {kind: star, link_rate: 100Gbps, link_delay: 1us, switch_buffer: 4MB, priority_classes: 2}
tcp: {dscp: 1, transport: {kind: roce}}
workload: {kind: traffic, duration: 300us}
traffic:
  - {kind: long_lived, from: sender:0, to: receiver, count: 3, start: 0us, stop: 200us}
  - {kind: long_lived, from: sender:1, to: receiver, count: 1, start: 0us, stop: 200us}
pfc: {priorities: [1], xoff: 50KB}
";
    let lossless = Config::from_yaml(yaml, &[]).expect("valid");
    let lossy = Config::from_yaml(
        yaml,
        &[
            "pfc=null".to_string(),
            "tcp.transport={kind: roce, recovery: irn}".to_string(),
        ],
    )
    .expect("valid");
    for (name, cfg) in [("lossless", &lossless), ("lossy", &lossy)] {
        let r = run(cfg, 1);
        let host = r.flows[0].src_host;
        if name == "lossless" {
            assert!(r.pfc.iter().any(|p| p.pauses_sent > 0), "the incast pauses");
            let paused: Vec<f64> = r
                .pfc_flows
                .iter()
                .filter(|p| r.flows[p.flow as usize].src_host == host)
                .map(|p| p.paused_us)
                .collect();
            assert_eq!(paused.len(), 3, "{paused:?}");
            let (lo, hi) = range(&paused);
            assert!(
                lo > 0.5 * hi && lo > 0.0,
                "paused at their NIC: {paused:?} µs"
            );
        }
        let senders: Vec<u32> = r.flows.iter().map(|f| f.src_host).collect();
        for p in r.ports.iter().filter(|p| {
            p.from_node
                .strip_prefix("host")
                .and_then(|h| h.parse::<u32>().ok())
                .is_some_and(|h| senders.contains(&h))
        }) {
            assert!(
                p.max_queue_packets <= 1,
                "{name}: {} held {} packets",
                p.from_node,
                p.max_queue_packets
            );
        }
        let shares: Vec<f64> = r
            .flows
            .iter()
            .filter(|f| f.src_host == host)
            .map(|f| f.bytes_delivered as f64)
            .collect();
        assert_eq!(shares.len(), 3, "{name}");
        let (lo, hi) = range(&shares);
        assert!(
            hi < lo * 1.02,
            "{name}: the QPs of one host delivered {shares:?}"
        );
    }
}

/// The smallest and the largest of `v`.
fn range(v: &[f64]) -> (f64, f64) {
    v.iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)))
}

/// Records the longest a RoCE data packet (class 1 or 2) waited at `port` between its
/// admission and its first bit on the wire.
struct NicWait {
    port: String,
    longest_ps: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl incastsim_scenario::probe::Probe for NicWait {
    fn on_dequeue(
        &mut self,
        _now: incastsim_core::Time,
        port: &incastsim_scenario::probe::PortView,
        p: &incastsim_core::Packet,
        admitted: incastsim_core::Time,
        tx_start: incastsim_core::Time,
    ) {
        if port.name == self.port && p.kind == incastsim_core::PacketKind::Data && p.dscp > 0 {
            let wait = tx_start.since(admitted).as_ps();
            self.longest_ps
                .fetch_max(wait, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// Two line-rate queue pairs on one host in two classes, and a TCP flow from the same host
/// in class 0 whose window waits in the port (strict priority; PFC on the queue pairs'
/// classes, which gives a host's port its classes, with an XOFF no queue reaches). The NIC
/// takes the higher class's packets while it has any and the lower class's after it stops
/// (at 100 µs and 200 µs); though TCP's packets wait in the port at every pick, neither queue
/// pair's packet ever stands ready there: each starts the instant it is admitted.
#[test]
fn a_nic_serves_its_queue_pairs_classes_by_strict_priority() {
    let yaml = "name: roce-nic-classes
senders: 3
topology: {kind: star, link_rate: 100Gbps, link_delay: 1us, switch_buffer: 4MB, priority_classes: 3}
tcp: {dscp: 1, transport: {kind: roce}}
flow_overrides:
  - {flows: [1], tcp: {dscp: 2, transport: {kind: roce}}}
  - {flows: [2], tcp: {dscp: 0, transport: tcp}}
workload: {kind: traffic, duration: 400us}
traffic:
  - {kind: long_lived, from: sender:0, to: receiver, count: 1, start: 0us, stop: 200us}
  - {kind: long_lived, from: sender:0, to: receiver, count: 1, start: 0us, stop: 100us}
  - {kind: long_lived, from: sender:0, to: receiver, count: 1, start: 0us, stop: 300us}
pfc: {priorities: [1, 2], xoff: 1MB}
";
    let cfg = Config::from_yaml(yaml, &[]).expect("valid");
    let longest = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let mut sim = incastsim_scenario::Simulation::new(&cfg, 1).expect("plans");
    sim.add_probe(Box::new(NicWait {
        port: "host0->switch0".into(),
        longest_ps: longest.clone(),
    }));
    sim.run();
    sim.check_invariants().unwrap();
    let r = sim.results();
    assert!(r.pfc.iter().all(|p| p.pauses_sent == 0), "nothing pauses");
    assert!(r.flows.iter().all(|f| f.src_host == 0));
    assert_eq!(
        longest.load(std::sync::atomic::Ordering::Relaxed),
        0,
        "a queue pair's packet waited in its NIC's port"
    );
    // 100 µs at 100 Gbps, in payload bytes (1000 of each 1062 on the wire).
    let line = 100e9 * 100e-6 / 8.0 * 1000.0 / 1062.0;
    let low = r.flows[0].bytes_delivered as f64;
    let high = r.flows[1].bytes_delivered as f64;
    assert!(
        (high / line - 1.0).abs() < 0.03,
        "the higher class alone for 100 µs: {high} B, line rate {line} B"
    );
    assert!(
        (low / line - 1.0).abs() < 0.03,
        "the lower class from 100 to 200 µs: {low} B, line rate {line} B"
    );
}
