//! Priority Flow Control (issue 40): a hand-worked 2:1 duty cycle, lossless under random
//! fabrics and loads, and the counted overflow of a headroom set too small. The ingress
//! accounting's own hand trace is a unit test in the switch crate (`crates/switch/src/pfc.rs`).

use crate::common;
use common::run;
use incastsim_scenario::{Config, RunResult};
use proptest::prelude::*;

/// Two hosts send UDP at 100 Gbps (1000 B on the wire) into one 100 Gbps port for 100 µs, on
/// lossless priority 1, static XOFF 20 KB, XON offset 3 KiB (3072 B); 1 µs links. A TCP bulk
/// flow per host on lossy priority 0 keeps the run going (strict priority starves it).
fn two_to_one(extra: &[&str]) -> Config {
    let yaml = "name: pfc-2to1
senders: 2
topology: {kind: star, link_rate: 100Gbps, link_delay: 1us, switch_buffer: 1MB, priority_classes: 2}
workload: {kind: bulk, duration: 300us, start_jitter: 0us}
background:
  - {kind: udp_cbr, from: senders, to: receiver, rate: 100Gbps, packet_size: 1000B, start: 0us, stop: 100us, dscp: 1}
pfc: {priorities: [1], xoff: 20KB}
";
    let sets: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    Config::from_yaml(yaml, &sets).expect("valid config")
}

fn pfc_row<'a>(r: &'a RunResult, from: &str, to: &str) -> &'a incastsim_scenario::PfcRecord {
    r.pfc
        .iter()
        .find(|p| p.from_node == from && p.to_node == to)
        .expect("a pfc.csv row")
}

/// The duty cycle, worked by hand (r = 100 Gbps = 12.5 B/ns; both inputs alike, so while
/// both hold packets the egress drains each at r/2 = 6.25 B/ns):
/// - Rising: an input gains r − r/2 = 6.25 B/ns. It crosses XOFF (20,000 B) at t0.
/// - The PAUSE leaves at once (the port back to the host is idle): 64 B take 5.12 ns, then
///   1 µs of link: the host stops at t0 + 1.005 µs. Bytes already on the wire, and those the
///   host sends meanwhile, keep arriving until t0 + 2.005 µs (+ the 80 ns packet on its
///   wire): the count peaks near 20,000 + 2.085 µs × 6.25 B/ns ≈ 33,000 B (≤ XOFF + headroom).
/// - Draining at 6.25 B/ns to the XON point 20,000 − 3,072 = 16,928 B takes ≈ 2.57 µs: the
///   RESUME leaves at ≈ t0 + 4.66 µs and reaches the host at ≈ t0 + 5.67 µs, so each pause
///   lasts ≈ 4.66 µs. New bytes arrive 1 µs later (≈ t0 + 6.67 µs), the count down to
///   16,928 − 2.01 µs × 6.25 ≈ 4,360 B, and climbs back to XOFF in (20,000 − 4,360) / 6.25
///   ≈ 2.50 µs: one cycle ≈ 9.2 µs, paused ≈ 51 % of it.
/// - The hosts queue what the pause holds back, so the two hosts' 2 × 1,250 packets leave the
///   switch at the egress rate: 2.5 MB / 12.5 B/ns = 200 µs, ≈ 200 / 9.2 ≈ 21.7 cycles; the
///   last climb may stop short of XOFF, so 21 or 22 pauses per input, each answered by a
///   RESUME, none refreshed (a pause lasts 4.7 µs, its refresh is due after 168 µs).
#[test]
fn two_to_one_matches_the_hand_worked_duty_cycle() {
    let r = run(&two_to_one(&[]), 1);
    assert_eq!(r.run.drops_total, 0, "lossless: nothing dropped");
    for host in ["host0", "host1"] {
        let switch_side = pfc_row(&r, "switch0", host);
        let host_side = pfc_row(&r, host, "switch0");
        assert!(
            (21..=22).contains(&switch_side.pauses_sent),
            "{host}: {} pauses",
            switch_side.pauses_sent
        );
        assert_eq!(switch_side.resumes_sent, switch_side.pauses_sent);
        assert_eq!(switch_side.xoff_crossings, switch_side.pauses_sent);
        assert_eq!(host_side.pauses_received, switch_side.pauses_sent);
        // The count never exceeds XOFF + headroom; it peaks near the hand-worked 33,000 B.
        let peak = switch_side.ingress_peak_bytes;
        assert!(peak <= 20_000 + switch_side.headroom_bytes, "{peak}");
        assert!((32_000..=34_000).contains(&peak), "peak {peak}");
        assert_eq!(switch_side.overflow_drops, 0);
        // Each pause ≈ 4.66 µs; ≈ 51 % of the 200 µs the backlog takes.
        let mean = host_side.paused_us / host_side.pauses_received as f64;
        assert!((4.4..=4.9).contains(&mean), "mean pause {mean} µs");
        assert!(host_side.longest_pause_us < 5.0);
        let share = host_side.paused_us / 200.0;
        assert!((0.45..=0.56).contains(&share), "paused {share}");
    }
    // The congested port's own traffic is not paused (the receiver sends no PAUSE).
    assert_eq!(pfc_row(&r, "switch0", "host2").pauses_received, 0);
}

/// PAUSE and RESUME frames are in the pcap capture of the port that sends them (one per
/// frame), and the time series shows the paused class and its waiting packets.
#[test]
fn frames_are_captured_and_pauses_sampled() {
    let cfg = two_to_one(&[
        "pcap={ports: [\"switch0->host0\"]}",
        "time_series={interval: 1us, ports: [\"host0->switch0\"]}",
    ]);
    let r = run(&cfg, 1);
    let s = pfc_row(&r, "switch0", "host0");
    let capture = r.capture.as_ref().expect("captured");
    let frames: Vec<_> = capture
        .packets
        .iter()
        .filter(|c| c.packet.kind == incastsim_core::PacketKind::Pause)
        .collect();
    assert_eq!(frames.len() as u64, s.pauses_sent + s.resumes_sent);
    assert!(frames.iter().all(|c| c.packet.dscp == 1));
    assert_eq!(
        frames.iter().filter(|c| c.packet.seq == 0).count() as u64,
        s.resumes_sent
    );
    let samples = |metric: &str| {
        r.time_series
            .iter()
            .filter(|t| t.metric == metric)
            .map(|t| t.value)
            .collect::<Vec<f64>>()
    };
    let paused = samples("paused_p1");
    let share = paused.iter().sum::<f64>() / paused.len() as f64;
    assert!(paused.iter().all(|&v| v == 0.0 || v == 1.0));
    assert!(
        (0.3..0.7).contains(&share),
        "paused in {share} of the samples"
    );
    assert!(samples("waiting_p1_packets").iter().any(|&v| v > 10.0));
}

/// A headroom set below what is on the wire overflows: the drops are counted as headroom
/// drops (pfc.csv, runs.csv's total), and the run reports them instead of failing.
#[test]
fn a_headroom_too_small_overflows_and_is_counted() {
    let r = run(&two_to_one(&["pfc.headroom=2KB"]), 1);
    let overflow: u64 = r.pfc.iter().map(|p| p.overflow_drops).sum();
    assert!(overflow > 0);
    // The other drops are the lossy TCP packets behind paused UDP in the hosts' NIC queues.
    let r2 = &r.run;
    let other = r2.drops_buffer + r2.drops_aqm + r2.drops_link_loss;
    assert_eq!(r2.drops_total, overflow + other);
    for p in &r.pfc {
        assert!(p.ingress_peak_bytes <= 20_000 + 2_000 + 1_000);
    }
}

/// Without RESUME frames, pauses lapse on their own: the input stops refreshing below XON.
/// With a short pause time (100 quanta = 512 ns at 100 Gbps), refreshes keep the host paused.
#[test]
fn pauses_lapse_without_resume_and_refresh_while_over() {
    let r = run(
        &two_to_one(&["pfc.resume=false", "pfc.pause_quanta=100"]),
        1,
    );
    let s = pfc_row(&r, "switch0", "host0");
    assert_eq!(s.resumes_sent, 0);
    assert!(s.pauses_sent > s.xoff_crossings, "refreshed: {s:?}");
    assert_eq!(r.run.drops_total, 0);
}

/// Hosts that ignore PAUSEs overflow the switch's headroom: counted, not hidden.
#[test]
fn hosts_that_ignore_pauses_overflow() {
    let r = run(&two_to_one(&["pfc.hosts_honour=false"]), 1);
    let overflow: u64 = r.pfc.iter().map(|p| p.overflow_drops).sum();
    assert!(overflow > 0);
    assert_eq!(pfc_row(&r, "host0", "switch0").paused_us, 0.0);
}

/// A random lossless fabric: a star or a k = 4 fat-tree, link rates and delays, static or
/// dynamic XOFF with computed headroom, TCP or RoCE (go-back-N, IRN) flows (on the lossless
/// class, with a switch buffer far too small for them) and a UDP blast, with switch delay
/// jitter, and hosts that take packets at 5 or 40 Gbps (`pfc.host_receive`) or at once.
#[allow(clippy::too_many_arguments)]
fn random_case(
    fat_tree: bool,
    senders: u32,
    gbps: u64,
    delay_ns: u64,
    dynamic: bool,
    xoff_kb: u64,
    udp_gbps: u64,
    jitter_ns: u64,
    transport: &str,
    host_rx_gbps: u64,
) -> Config {
    let topology = if fat_tree {
        format!(
            "{{kind: fat_tree, k: 4, link_rate: {gbps}Gbps, link_delay: {delay_ns}ns, switch_buffer: 2MB, priority_classes: 2, switch_delay_jitter: {jitter_ns}ns}}"
        )
    } else {
        format!(
            "{{kind: star, link_rate: {gbps}Gbps, link_delay: {delay_ns}ns, switch_buffer: 2MB, priority_classes: 2, switch_delay_jitter: {jitter_ns}ns}}"
        )
    };
    let xoff = if dynamic {
        "dynamic: {alpha: 2^-3, pool: 4MB}".to_string()
    } else {
        format!("xoff: {xoff_kb}KB")
    };
    let host_rx = if host_rx_gbps > 0 {
        format!(", host_receive: {{rate: {host_rx_gbps}Gbps, xoff: 20KB}}")
    } else {
        String::new()
    };
    let yaml = format!(
        "name: pfc-random
senders: {senders}
topology: {topology}
tcp: {{dscp: 1, mss: 1000B, transport: {transport}}}
workload: {{kind: synchronized_reads, sru: 64KB, blocks: 2, start_jitter: 0us}}
background:
  - {{kind: udp_cbr, from: senders, to: receiver, rate: {udp_gbps}Gbps, packet_size: 1000B, start: 0us, stop: 30us, dscp: 1}}
pfc: {{priorities: [1], {xoff}{host_rx}}}
run: {{max_sim_time: 20ms}}
"
    );
    Config::from_yaml(&yaml, &[]).expect("valid config")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// With computed headroom, no packet of a lossless priority is ever dropped, whatever
    /// the fabric, rates, thresholds and load (the debug build also asserts it at every
    /// admission).
    #[test]
    fn lossless_with_computed_headroom(
        fat_tree in any::<bool>(),
        senders in 2u32..8,
        gbps in prop::sample::select(vec![10u64, 25, 40, 100]),
        delay_ns in 100u64..3000,
        dynamic in any::<bool>(),
        xoff_kb in 4u64..60,
        udp_gbps in 1u64..100,
        jitter_ns in prop::sample::select(vec![0u64, 1000]),
        transport in prop::sample::select(vec!["tcp", "roce", "{kind: roce, recovery: irn}"]),
        host_rx_gbps in prop::sample::select(vec![0u64, 0, 5, 40]),
        seed in 1u64..1000,
    ) {
        let cfg = random_case(
            fat_tree, senders, gbps, delay_ns, dynamic, xoff_kb, udp_gbps, jitter_ns, transport,
            host_rx_gbps,
        );
        let r = run(&cfg, seed);
        prop_assert!(r.run.events > 1000, "{} events", r.run.events);
        prop_assert_eq!(r.run.drops_total, 0, "{:?}", cfg.pfc);
        prop_assert!(r.run.completed, "did not complete");
        prop_assert!(r.pfc.iter().all(|p| p.overflow_drops == 0));
    }
}

/// What needs the topology built is refused by `check` (and every run) too, with the key, the
/// value and what is allowed: XOFF with a computed headroom over the switch buffer (naming the
/// port), a dynamic pool smaller than the headroom its switch reserves.
#[test]
fn thresholds_that_do_not_fit_the_built_fabric_are_refused() {
    let builtin = incastsim_scenario::Extensions::builtin();
    let e = incastsim_scenario::check_buildable(
        &two_to_one(&["topology.switch_buffer=30KB"]),
        &builtin,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("pfc.xoff = 20KB: at most the switch buffer (30KB) less the headroom of the input from host0->switch0 (29224 bytes, computed"),
        "{e}"
    );
    let e = incastsim_scenario::check_buildable(
        &two_to_one(&["pfc={priorities: [1], dynamic: {pool: 60KB}}"]),
        &builtin,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("pfc.dynamic.pool = 60KB: above the headroom switch0 reserves (87672 bytes"),
        "{e}"
    );
    assert!(incastsim_scenario::check_buildable(&two_to_one(&[]), &builtin).is_ok());
}

/// Collateral damage (NDP §6, `configs/pfc-collateral.yaml`, 5 blocks): with PFC the long flow
/// to the incast receiver's neighbour loses most of its throughput, over TCP or RoCE on the
/// lossless class; over lossy TCP, it keeps it.
#[test]
fn pfc_hurts_the_long_flow_next_to_an_incast() {
    let long_flow = |set: &[&str]| {
        let mut sets = vec!["workload.blocks=5"];
        sets.extend_from_slice(set);
        let cfg = common::shipped("pfc-collateral.yaml", &sets);
        let r = run(&cfg, 1);
        assert!(r.run.completed);
        let f = r
            .flows
            .iter()
            .find(|f| f.src_host == 127)
            .expect("the long flow");
        f.goodput_mbps
    };
    let lossy = long_flow(&["pfc=null"]);
    let lossless = long_flow(&[]);
    assert!(
        lossless < 0.6 * lossy,
        "PFC {lossless:.0} Mbps, lossy {lossy:.0} Mbps"
    );
    let roce = long_flow(&["tcp.transport=roce"]);
    assert!(
        roce < 0.6 * lossy,
        "RoCE + PFC {roce:.0} Mbps, lossy TCP {lossy:.0} Mbps"
    );
}

/// DWRR between classes (`topology.class_weights`): two 100 Gbps UDP sources, one per class,
/// into one 100 Gbps port with weights 3:1 share it 3:1; strict priority gives class 1 nearly
/// everything. Both classes lossless (PFC), so what the port admits by 200 µs is what it
/// served plus a queue bounded by XOFF and headroom (with one drop-tail buffer for both, the
/// arrivals, not the scheduler, would decide who gets in).
#[test]
fn dwrr_shares_the_port_by_weight() {
    let yaml = "name: dwrr
senders: 2
topology: {kind: star, link_rate: 100Gbps, link_delay: 1us, switch_buffer: 1MB, priority_classes: 2, class_weights: [3, 1]}
workload: {kind: bulk, duration: 200us, start_jitter: 0us}
pfc: {priorities: [0, 1], xoff: 20KB}
background:
  - {kind: udp_cbr, from: \"sender:0\", to: receiver, rate: 100Gbps, packet_size: 1000B, start: 0us, stop: 300us, dscp: 0}
  - {kind: udp_cbr, from: \"sender:1\", to: receiver, rate: 100Gbps, packet_size: 1000B, start: 0us, stop: 300us, dscp: 1}
";
    let share = |extra: &[&str]| {
        let sets: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        let r = run(&Config::from_yaml(yaml, &sets).unwrap(), 1);
        let class = |c: u32| {
            r.port_classes
                .iter()
                .find(|p| p.to_node == "host2" && p.class == c)
                .map_or(0, |p| p.packets_enqueued)
        };
        class(0) as f64 / (class(0) + class(1)) as f64
    };
    let weighted = share(&[]);
    assert!(
        (0.72..=0.78).contains(&weighted),
        "class 0's share {weighted}"
    );
    let strict = share(&["topology.class_weights=null"]);
    assert!(strict < 0.1, "strict priority: class 0's share {strict}");
    let e = Config::from_yaml(yaml, &["topology.class_weights=[1]".to_string()]).unwrap_err();
    assert!(
        e.to_string().starts_with("topology.class_weights = [1]: one weight from 1 to 1000 per class (topology.priority_classes = 2"),
        "{e}"
    );
}

/// Each flow's paused time, its victim flag and the pause depth in the 2:1 case: each UDP
/// flow is paused only at its host's NIC, from the first datagram that waits there in a
/// pause (at most one 80 ns datagram interval after the pause starts: the one before is on
/// the wire) to the RESUME, so a little less than its host's port; their destination port (switch0->host2)
/// is where the inputs' bytes wait, unpaused: a congestion point, so neither is a victim.
/// Every PAUSE comes from that congestion point: depth 1.
#[test]
fn two_to_one_flows_are_paused_but_not_victims() {
    let r = run(&two_to_one(&[]), 1);
    assert!(r.pfc_deadlocks.is_empty());
    let udp: Vec<_> = r.pfc_flows.iter().filter(|f| f.kind == "udp").collect();
    assert_eq!(udp.len(), 2);
    for f in &udp {
        let host = pfc_row(&r, &f.src, "switch0");
        assert!(!f.victim, "{f:?}");
        // The NIC's paused time less at most one datagram interval per pause.
        let slack = host.pauses_received as f64 * 0.080;
        assert!(f.paused_us <= host.paused_us + 1e-6, "{f:?} vs {host:?}");
        assert!(f.paused_us >= host.paused_us - slack, "{f:?} vs {host:?}");
    }
    // The lossy TCP flows (class 0) are not listed.
    assert!(r.pfc_flows.iter().all(|f| f.kind == "udp"));
    let s = &r.pfc_summary[0];
    assert_eq!((s.max_pause_depth, s.deadlocks, s.victim_flows), (1, 0, 0));
    assert_eq!(s.paused_flows, 2);
}

/// A victim and a pause two hops deep. switch0 holds host0 and host1, switch1 holds host2,
/// host3 and host4 (one link between the switches). host1 (60 Gbps) and host4 (60 Gbps) send
/// to host2: switch1->host2 is the congestion point. host0 sends 30 Gbps to host3, whose port
/// is never congested; its packets share the link switch0->switch1 with host1's, so when
/// switch1's input from switch0 pauses that link (depth 1), host0's packets wait behind the
/// pause: host0's flow is a victim. switch0's inputs from host0 and host1 then fill behind the
/// paused link and pause their hosts: depth 2.
#[test]
fn a_flow_behind_someone_elses_pause_is_a_victim() {
    let yaml = "name: pfc-victim
senders: 4
topology:
  kind: custom
  hosts: 5
  switches: 2
  link_rate: 100Gbps
  link_delay: 1us
  switch_buffer: 1MB
  priority_classes: 2
  links:
    - {a: host0, b: switch0}
    - {a: host1, b: switch0}
    - {a: switch0, b: switch1}
    - {a: host2, b: switch1}
    - {a: host3, b: switch1}
    - {a: host4, b: switch1}
  receiver_host: 2
workload: {kind: bulk, duration: 400us, start_jitter: 0us}
background:
  - {kind: udp_cbr, from: 'sender:0', to: 'sender:2', rate: 30Gbps, packet_size: 1000B, stop: 300us, dscp: 1}
  - {kind: udp_cbr, from: 'sender:1', to: receiver, rate: 60Gbps, packet_size: 1000B, stop: 300us, dscp: 1}
  - {kind: udp_cbr, from: 'sender:3', to: receiver, rate: 60Gbps, packet_size: 1000B, stop: 300us, dscp: 1}
pfc: {priorities: [1], xoff: 10KB}
";
    let cfg = Config::from_yaml(yaml, &[]).expect("valid config");
    let r = run(&cfg, 1);
    assert_eq!(r.run.drops_total - r.run.drops_buffer, 0);
    let flow = |src: &str| {
        r.pfc_flows
            .iter()
            .find(|f| f.kind == "udp" && f.src == src)
            .expect("a pfc_flows.csv row")
    };
    let (victim, incast_far, incast_near) = (flow("host0"), flow("host1"), flow("host4"));
    assert_eq!(victim.dst, "host3");
    assert!(victim.paused_us > 0.0 && victim.victim, "{victim:?}");
    assert!(
        incast_far.paused_us > 0.0 && !incast_far.victim,
        "{incast_far:?}"
    );
    assert!(!incast_near.victim, "{incast_near:?}");
    // switch1 paused the link (depth 1), switch0 its hosts (depth 2).
    assert!(pfc_row(&r, "switch1", "switch0").pauses_sent > 0);
    let s = &r.pfc_summary[0];
    assert_eq!(s.max_pause_depth, 2, "{s:?}");
    assert!(s.max_pause_depth_port.ends_with("->switch0"), "{s:?}");
    assert_eq!(s.victim_flows, 1);
    assert!(r.pfc_deadlocks.is_empty());
}

/// The cyclic buffer dependency of `configs/pfc-deadlock.yaml` (four switches in a ring,
/// every lossless flow routed two hops clockwise): the four clockwise ring ports pause one
/// another in a cycle within tens of µs; after `pfc.deadlock.after` (1 ms) the run stops
/// with `Outcome::PfcDeadlock`, and pfc_deadlocks.csv names the cycle. Every UDP flow is a
/// victim (the host ports are never congested; the ring links are).
#[test]
fn the_ring_deadlocks_and_the_cycle_is_reported() {
    let expected = "switch0->switch1 switch1->switch2 switch2->switch3 switch3->switch0";
    for seed in [1, 2, 3] {
        let cfg = common::shipped("pfc-deadlock.yaml", &[]);
        let mut sim = incastsim_scenario::Simulation::new(&cfg, seed).expect("plan");
        assert_eq!(sim.run(), incastsim_scenario::Outcome::PfcDeadlock);
        assert_eq!(
            incastsim_scenario::Outcome::PfcDeadlock.as_str(),
            "pfc_deadlock"
        );
        let r = sim.results();
        assert!(!r.run.completed);
        assert_eq!(r.pfc_deadlocks.len(), 1, "seed {seed}");
        let d = &r.pfc_deadlocks[0];
        assert_eq!((d.ports.as_str(), d.length, d.priority), (expected, 4, 1));
        assert!(
            d.formed_us < 100.0,
            "seed {seed}: formed at {} µs",
            d.formed_us
        );
        assert!((d.detected_us - d.formed_us - 1000.0).abs() < 1e-6, "{d:?}");
        // The run stopped at the detection.
        assert!((r.run.sim_time_s * 1e6 - d.detected_us).abs() < 1e-3);
        let udp: Vec<_> = r.pfc_flows.iter().filter(|f| f.kind == "udp").collect();
        assert_eq!(udp.len(), 4);
        assert!(
            udp.iter().all(|f| f.victim && f.paused_us > 900.0),
            "{udp:?}"
        );
        assert_eq!(r.pfc_summary[0].deadlocks, 1);
        assert_eq!(r.pfc.iter().map(|p| p.overflow_drops).sum::<u64>(), 0);
    }
}

/// `action: continue` reports the deadlock once and runs on to the time limit.
#[test]
fn a_deadlock_with_action_continue_runs_on() {
    let cfg = common::shipped(
        "pfc-deadlock.yaml",
        &[
            "pfc.deadlock.action=continue",
            "pfc.deadlock.after=200us",
            "run.max_sim_time=1ms",
            "workload.duration=1ms",
        ],
    );
    let mut sim = incastsim_scenario::Simulation::new(&cfg, 1).expect("plan");
    let outcome = sim.run();
    assert_ne!(outcome, incastsim_scenario::Outcome::PfcDeadlock);
    let r = sim.results();
    assert_eq!(r.pfc_deadlocks.len(), 1);
    let d = &r.pfc_deadlocks[0];
    assert!((d.detected_us - d.formed_us - 200.0).abs() < 1e-6, "{d:?}");
    assert!(r.run.sim_time_s * 1e6 > 999.0);
}

/// A k = 4 fat-tree with up-down routing (ECMP) under the same kind of load, made heavier:
/// an incast into one host and every other host blasting a host in another pod at line
/// rate, all lossless, with 1 µs switch delay jitter, a detector 20 times as eager (50 µs),
/// over several seeds. Pauses spread (depth ≥ 2) but up-down routes have no cyclic buffer
/// dependency: no deadlock is ever reported.
#[test]
fn no_deadlock_on_an_up_down_fat_tree() {
    let mut background = String::new();
    for i in 0..15u32 {
        // Sender i (hosts 1..16) to a host 4-8 further on: in another pod.
        let to = (i + 5) % 15;
        background.push_str(&format!(
            "  - {{kind: udp_cbr, from: 'sender:{i}', to: 'sender:{to}', rate: 100Gbps, packet_size: 1000B, stop: 150us, dscp: 1}}\n"
        ));
    }
    background.push_str(
        "  - {kind: udp_cbr, from: senders, to: receiver, rate: 40Gbps, packet_size: 1000B, stop: 150us, dscp: 1}\n",
    );
    let yaml = format!(
        "name: pfc-fat-tree-no-deadlock
senders: 15
topology: {{kind: fat_tree, k: 4, link_rate: 100Gbps, link_delay: 1us, switch_buffer: 2MB, priority_classes: 2, switch_delay_jitter: 1us}}
workload: {{kind: bulk, duration: 600us, start_jitter: 0us}}
background:
{background}pfc: {{priorities: [1], xoff: 20KB, deadlock: {{after: 50us}}}}
"
    );
    let cfg = Config::from_yaml(&yaml, &[]).expect("valid config");
    for seed in [1, 2, 3, 4] {
        let mut sim = incastsim_scenario::Simulation::new(&cfg, seed).expect("plan");
        let outcome = sim.run();
        assert_eq!(
            outcome,
            incastsim_scenario::Outcome::Completed,
            "seed {seed}"
        );
        let r = sim.results();
        assert!(
            r.pfc_deadlocks.is_empty(),
            "seed {seed}: {:?}",
            r.pfc_deadlocks
        );
        let pauses: u64 = r.pfc.iter().map(|p| p.pauses_sent).sum();
        assert!(pauses > 100, "seed {seed}: only {pauses} pauses");
        let s = &r.pfc_summary[0];
        assert!(s.max_pause_depth >= 2, "seed {seed}: {s:?}");
        assert_eq!(r.pfc.iter().map(|p| p.overflow_drops).sum::<u64>(), 0);
    }
}

/// The collateral-damage study (`configs/pfc-collateral.yaml`, one block): the long flow
/// host127 -> host1 is the one victim (paused behind the incast's pauses while host1's port
/// is never congested); every incast flow is paused but not a victim (host0's port is the
/// congestion point); the pauses reach deep into the k = 8 fat-tree (depth ≥ 3) and no
/// deadlock is reported.
#[test]
fn the_collateral_long_flow_is_the_victim() {
    let cfg = common::shipped(
        "pfc-collateral.yaml",
        &["workload.blocks=1", "workload.sru=32KB"],
    );
    let r = run(&cfg, 1);
    let victims: Vec<_> = r.pfc_flows.iter().filter(|f| f.victim).collect();
    assert_eq!(victims.len(), 1, "{victims:?}");
    assert_eq!(
        (victims[0].src.as_str(), victims[0].dst.as_str()),
        ("host127", "host1")
    );
    assert!(victims[0].paused_us > 0.0);
    let s = &r.pfc_summary[0];
    assert!(s.max_pause_depth >= 3, "{s:?}");
    assert_eq!(s.deadlocks, 0);
    assert!(r.pfc_deadlocks.is_empty());
}

/// Host receive buffers (`pfc.host_receive`): a receiver whose NIC hands packets to the host
/// at 50 Gbps PAUSEs its switch whenever 40 KB of the lossless class wait; the switch then
/// fills and pauses the senders in turn. Nothing is dropped, the host's count stays within its
/// XOFF and the headroom of its link, and every datagram arrives (the lossy TCP flows share
/// the 50 Gbps into the host: they take the link whenever the lossless class is paused).
#[test]
fn a_slow_host_pauses_its_switch() {
    let r = run(
        &two_to_one(&[
            "pfc.host_receive={rate: 50Gbps, xoff: 40KB}",
            "workload.duration=2ms",
        ]),
        1,
    );
    // Nothing lossless is dropped (the lossy TCP flows lose packets in the senders' NIC
    // queues, full of paused datagrams).
    assert!(r.pfc.iter().all(|p| p.overflow_drops == 0));
    assert!(r.port_classes.iter().all(|c| c.class != 1 || c.drops == 0));
    assert_eq!(r.run.udp_packets_delivered, r.run.udp_packets_sent);
    let host = pfc_row(&r, "host2", "switch0");
    assert!(host.pauses_sent > 0 && host.resumes_sent > 0, "{host:?}");
    assert!(host.ingress_peak_bytes > 40_000);
    assert!(host.ingress_peak_bytes <= 40_000 + host.headroom_bytes);
    let port = pfc_row(&r, "switch0", "host2");
    assert_eq!(port.pauses_received, host.pauses_sent);
    assert!(port.paused_us > 50.0, "paused {} µs", port.paused_us);
    // The switch, its egress to the host paused, pauses both senders.
    assert!(pfc_row(&r, "switch0", "host0").pauses_sent > 0);
    let e = Config::from_yaml(
        "senders: 2
topology: {kind: star, priority_classes: 2}
tcp: {dscp: 1}
workload: {kind: synchronized_reads, sru: 64KB, blocks: 1}
pfc: {priorities: [1], xoff: 10KB}",
        &["pfc.host_receive={rate: 50Gbps, xoff: 2KB}".to_string()],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("pfc.host_receive.xoff = 2000B: at least one largest packet"),
        "{e}"
    );
}
