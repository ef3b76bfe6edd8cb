//! Scenario tests of congestion control, ECN, SACK, AQMs and background traffic.

use crate::common;
use common::*;
use incastsim_scenario::{from_yaml_checked, load_checked};

fn bottleneck<'a>(
    r: &'a incastsim_scenario::RunResult,
    to: &str,
) -> &'a incastsim_scenario::PortRecord {
    r.ports
        .iter()
        .find(|p| p.from_node.starts_with("switch") && p.to_node == to)
        .expect("bottleneck port")
}

#[test]
fn dctcp_holds_the_queue_near_k_at_full_utilization() {
    let cfg = shipped("bulk-dumbbell-dctcp.yaml", &["workload.duration=300ms"]);
    let r = run(&cfg, 1);
    let port = bottleneck(&r, "host16");
    let k_bytes = 65.0 * 1040.0;
    assert!(
        port.mean_queue_bytes > 0.7 * k_bytes && port.mean_queue_bytes < 1.5 * k_bytes,
        "mean queue {:.0} B vs K = {k_bytes} B",
        port.mean_queue_bytes
    );
    assert!(port.utilization > 0.99, "utilization {}", port.utilization);
    assert_eq!(r.run.drops_total, 0);
    assert!(r.run.ecn_marks > 0 && r.run.ecn_reductions > 0);
    // Drop-tail NewReno on the same scenario fills the buffer instead.
    let dt = run(
        &shipped("bulk-dumbbell.yaml", &["workload.duration=300ms"]),
        1,
    );
    assert!(bottleneck(&dt, "host16").mean_queue_bytes > 2.0 * port.mean_queue_bytes);
}

#[test]
fn cubic_and_sack_keep_s3_at_line_rate() {
    let r = run(
        &shipped("bulk-dumbbell-cubic.yaml", &["workload.duration=300ms"]),
        1,
    );
    assert!(r.run.goodput_mbps > 9000.0, "{}", r.run.goodput_mbps);
    assert!(r.run.jain_fairness > 0.9);
    assert_eq!(r.run.congestion_control, "cubic");
}

#[test]
fn incast_variants_complete_and_keep_invariants() {
    let variants: &[&[&str]] = &[
        &["tcp.loss_recovery=sack"],
        &[
            "tcp.loss_recovery=sack",
            "tcp.rto_min=1ms",
            "topology.link_loss=0.01",
        ],
        &["tcp.congestion_control=cubic"],
        &[
            "tcp.congestion_control=cubic",
            "tcp.loss_recovery=sack",
            "tcp.delayed_ack.enabled=true",
        ],
        &[
            "tcp.congestion_control=dctcp",
            "topology.switch_queue.kind=ecn_threshold",
            "topology.switch_queue.k=20 packets",
        ],
        &[
            "tcp.congestion_control=dctcp",
            "topology.switch_queue.kind=ecn_threshold",
            "topology.switch_queue.k=10KB",
            "tcp.delayed_ack.enabled=true",
        ],
        &[
            "tcp.ecn=true",
            "topology.switch_queue.kind=red",
            "topology.switch_queue.min_th=5 packets",
            "topology.switch_queue.max_th=15 packets",
            "topology.switch_queue.ecn=true",
        ],
        &[
            "topology.switch_queue.kind=red",
            "topology.switch_queue.min_th=5KB",
            "topology.switch_queue.max_th=20KB",
            "topology.switch_queue.gentle=false",
        ],
        &[
            "topology.switch_queue.kind=threshold_admit",
            "topology.switch_queue.threshold=10 packets",
        ],
    ];
    for v in variants {
        let mut o = vec!["senders=16", "workload.blocks=10", "tcp.rto_min=10ms"];
        o.extend_from_slice(v);
        let r = run(&shipped("incast-classic.yaml", &o), 2);
        assert!(r.run.completed, "{v:?}");
    }
}

#[test]
fn sack_recovery_repairs_holes_beyond_the_first_in_incast() {
    // With SACK, holes other than the first are retransmitted within the same recovery
    // (NextSeg), where NewReno needs a partial ACK per hole.
    let cfg = shipped(
        "incast-classic.yaml",
        &[
            "senders=16",
            "tcp.rto_min=10ms",
            "workload.blocks=10",
            "tcp.loss_recovery=sack",
        ],
    );
    let sack = run(&cfg, 1);
    assert!(sack.run.sack_retransmits > 0);
    assert!(sack.run.completed);
    let newreno = run(&s1(16, "10ms"), 1);
    assert_eq!(newreno.run.sack_retransmits, 0);
}

#[test]
fn ecn_over_red_replaces_drops_with_marks() {
    let base = [
        "senders=8",
        "workload.blocks=20",
        "tcp.rto_min=10ms",
        "topology.switch_queue.kind=red",
        "topology.switch_queue.min_th=5 packets",
        "topology.switch_queue.max_th=25 packets",
        "topology.switch_queue.w_q=0.2",
    ];
    let mut with_ecn: Vec<&str> = base.to_vec();
    with_ecn.extend(["topology.switch_queue.ecn=true", "tcp.ecn=true"]);
    let drop = run(&shipped("incast-classic.yaml", &base), 4);
    let mark = run(&shipped("incast-classic.yaml", &with_ecn), 4);
    assert!(drop.run.drops_aqm > 0 && drop.run.ecn_marks == 0);
    assert!(mark.run.ecn_marks > 0 && mark.run.ecn_reductions > 0);
    assert!(
        mark.run.drops_aqm < drop.run.drops_aqm,
        "{} vs {}",
        mark.run.drops_aqm,
        drop.run.drops_aqm
    );
}

#[test]
fn threshold_admission_caps_unlabelled_traffic() {
    let cfg = shipped(
        "incast-classic.yaml",
        &[
            "senders=16",
            "workload.blocks=5",
            "topology.switch_queue.kind=threshold_admit",
            "topology.switch_queue.threshold=10 packets",
        ],
    );
    let r = run(&cfg, 1);
    let port = bottleneck(&r, "host16");
    assert!(port.drops_aqm > 0);
    assert!(
        port.max_queue_packets <= 10,
        "no labelled traffic: the queue stays at the threshold"
    );
}

#[test]
fn wred_applies_a_profile_per_class() {
    let yaml = r#"
senders: 4
topology:
  kind: star
  switch_buffer: 100 packets
  switch_queue:
    kind: wred
    w_q: 1.0
    profiles:
      - {dscp: [0], min_th: 2 packets, max_th: 4 packets, max_p: 1.0}
      - {dscp: [10], min_th: 200 packets, max_th: 300 packets}
tcp: {rto_min: 1ms, dscp: 10}
workload: {kind: synchronized_reads, sru: 64KB, blocks: 3}
"#;
    // TCP traffic in class 10 sees the lenient profile, whose thresholds exceed the buffer.
    let lenient = run(&from_yaml_checked(yaml, &[]).unwrap(), 1);
    assert_eq!(lenient.run.drops_aqm, 0);
    // The same traffic in class 0 hits the strict profile.
    let strict = run(&from_yaml_checked(yaml, &["tcp.dscp=0".into()]).unwrap(), 1);
    assert!(strict.run.drops_aqm > 0);
}

#[test]
fn udp_cbr_sends_at_its_rate() {
    let yaml = r#"
senders: 2
topology: {kind: star, link_rate: 1Gbps}
tcp: {rto_min: 1ms}
workload: {kind: bulk, duration: 100ms}
background:
  - {kind: udp_cbr, from: senders, to: receiver, rate: 10Mbps, packet_size: 1000B, start: 1ms, stop: 51ms, dscp: 3}
"#;
    let r = run(&from_yaml_checked(yaml, &[]).unwrap(), 1);
    // 1000 B at 10 Mbps is one datagram per 800 us; from 1 ms to 51 ms: 62.5 -> 63 per source.
    assert_eq!(r.run.udp_packets_sent, 2 * 63);
    assert!(
        r.run.udp_packets_delivered > 0 && r.run.udp_packets_delivered <= r.run.udp_packets_sent
    );
    assert!(r.run.completed);
}

#[test]
fn new_features_are_deterministic() {
    let cfg = shipped(
        "incast-dctcp.yaml",
        &[
            "senders=16",
            "workload.blocks=10",
            "tcp.loss_recovery=sack",
            "tcp.rto_min=1ms",
            "topology.link_loss=0.001",
        ],
    );
    assert_eq!(format!("{:?}", run(&cfg, 9)), format!("{:?}", run(&cfg, 9)));
}

#[test]
fn bad_feature_configs_are_refused() {
    let base = "senders: 2\ntopology: {kind: star}\nworkload: {kind: bulk, duration: 1ms}\n";
    let err = |o: &[&str]| {
        from_yaml_checked(base, &o.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .unwrap_err()
            .to_string()
    };
    assert!(err(&["tcp.congestion_control=vegas"]).contains("cubic"));
    assert!(err(&["tcp.cubic.hystart=true"]).contains("HyStart"));
    assert!(err(&["tcp.cubic.beta=1.5"]).contains("tcp.cubic.beta"));
    assert!(
        err(&[
            "topology.switch_queue.kind=red",
            "topology.switch_queue.min_th=10 packets",
            "topology.switch_queue.max_th=5 packets"
        ])
        .contains("max_th")
    );
    assert!(
        err(&[
            "topology.switch_queue.kind=red",
            "topology.switch_queue.min_th=10 packets",
            "topology.switch_queue.max_th=50KB"
        ])
        .contains("same unit")
    );
    assert!(err(&["topology.switch_queue.kind=codel"]).contains("drop_tail"));
    assert!(
        err(&["background=[{kind: udp_cbr, from: sender:5, to: receiver, rate: 1Mbps}]"])
            .contains("sender index below 2")
    );
    assert!(
        err(&["background=[{kind: udp_cbr, from: receiver, to: receiver, rate: 1Mbps}]"])
            .contains("other than")
    );
}

#[test]
fn strict_priority_protects_the_high_class() {
    let yaml = r#"
senders: 4
topology: {kind: star, link_rate: 1Gbps, switch_buffer: 50 packets, priority_classes: 2}
tcp: {rto_min: 1ms, dscp: 0}
workload: {kind: bulk, duration: 100ms}
background:
  - {kind: udp_cbr, from: sender:0, to: receiver, rate: 300Mbps, packet_size: 1000B, dscp: 1}
"#;
    let udp_drops = |r: &incastsim_scenario::RunResult| -> u64 {
        r.port_classes
            .iter()
            .filter(|c| c.class == 1)
            .map(|c| c.drops)
            .sum()
    };
    let tcp_drops = |r: &incastsim_scenario::RunResult| -> u64 {
        r.port_classes
            .iter()
            .filter(|c| c.class == 0)
            .map(|c| c.drops)
            .sum()
    };
    let prio = run(&from_yaml_checked(yaml, &[]).unwrap(), 1);
    assert!(tcp_drops(&prio) > 0, "TCP fills the shared buffer");
    // Strict priority changes the order of service, not admission: UDP still loses packets that
    // arrive when TCP has filled the shared buffer (no pushout), but fewer than in one FIFO,
    // because its own packets never wait behind TCP's.
    let fifo = run(
        &from_yaml_checked(yaml, &["topology.priority_classes=1".into()]).unwrap(),
        1,
    );
    assert!(
        udp_drops(&prio) < udp_drops(&fifo),
        "priority {} vs FIFO {}",
        udp_drops(&prio),
        udp_drops(&fifo)
    );
    assert!(prio.run.udp_packets_delivered > fifo.run.udp_packets_delivered);
}

#[test]
fn outcast_fattree_runs_and_keeps_invariants() {
    let r = run(
        &shipped("outcast-fattree.yaml", &["workload.duration=300ms"]),
        1,
    );
    assert!(r.run.completed);
    assert_eq!(r.flows.len(), 15);
    assert!(r.run.goodput_mbps > 800.0, "{}", r.run.goodput_mbps);
    assert_eq!(r.run.topology, "fat_tree");
    // Static routing and a tree topology run too.
    let r = run(
        &shipped(
            "outcast-fattree.yaml",
            &["workload.duration=100ms", "topology.routing=static"],
        ),
        1,
    );
    assert!(r.run.completed);
    let tree = r#"
senders: 7
topology: {kind: tree, racks: 2, hosts_per_rack: 4, uplink_rate: 10Gbps, receiver_host: 0}
tcp: {rto_min: 1ms}
workload: {kind: synchronized_reads, sru: 64KB, blocks: 3}
"#;
    let r = run(&from_yaml_checked(tree, &[]).unwrap(), 1);
    assert!(r.run.completed);
}

#[test]
fn placement_is_validated() {
    let base =
        "senders: 3\ntopology: {kind: fat_tree, k: 4}\nworkload: {kind: bulk, duration: 1ms}\n";
    let err = |o: &[&str]| {
        from_yaml_checked(base, &o.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .unwrap_err()
            .to_string()
    };
    assert!(err(&["topology.k=5"]).contains("even"));
    assert!(err(&["topology.receiver_host=16"]).contains("below 16"));
    assert!(err(&["senders=16"]).contains("at most 15"));
    assert!(err(&["topology.sender_hosts=[1, 2]"]).contains("exactly"));
    assert!(err(&["topology.sender_hosts=[1, 2, 0]"]).contains("other than the receiver"));
    assert!(err(&["topology.sender_hosts=[1, 1, 2]"]).contains("distinct"));
    let ok = from_yaml_checked(base, &["topology.sender_hosts=[5, 9, 13]".into()]).unwrap();
    let r = run(&ok, 1);
    assert_eq!(
        r.flows.iter().map(|f| f.src_host).collect::<Vec<_>>(),
        vec![5, 9, 13]
    );
}

#[test]
fn sack_and_controllers_are_selectable_per_flow() {
    let yaml = r#"
senders: 8
topology: {kind: star, switch_buffer: 32KB}
tcp: {rto_min: 10ms}
workload: {kind: synchronized_reads, sru: 256KB, blocks: 10}
flow_overrides:
  - flows: [0, 1, 2, 3]
    tcp: {loss_recovery: sack}
  - flows: [7]
    tcp: {congestion_control: cubic, dscp: 5}
"#;
    let cfg = from_yaml_checked(yaml, &[]).unwrap();
    // The override inherits everything else from the top-level tcp (and resolves its defaults).
    assert_eq!(cfg.flow_overrides[0].tcp.rto_min, cfg.tcp.rto_min);
    assert_eq!(
        cfg.tcp_for_flow(2).loss_recovery,
        incastsim_scenario::config::LossRecovery::Sack
    );
    assert_eq!(
        cfg.tcp_for_flow(4).loss_recovery,
        incastsim_scenario::config::LossRecovery::Newreno
    );
    let r = run(&cfg, 3);
    assert!(r.run.completed);
    let sack: u64 = r.flows[..4].iter().map(|f| f.sack_retransmits).sum();
    let plain: u64 = r.flows[4..].iter().map(|f| f.sack_retransmits).sum();
    assert!(sack > 0, "SACK flows use SACK recovery");
    assert_eq!(plain, 0, "the others do not");
    assert_eq!(r.flows[7].congestion_control, "cubic");
    assert_eq!(r.flows[6].congestion_control, "newreno");
    assert!(
        r.port_classes
            .iter()
            .any(|c| c.class == 5 && c.packets_enqueued > 0)
    );
    // The resolved config loads again to the same scenario.
    let again = from_yaml_checked(&cfg.to_yaml(), &[]).unwrap();
    assert_eq!(again, cfg);
    // Bad groups are refused with their key.
    let bad = |o: &str| {
        from_yaml_checked(yaml, &[o.to_string()])
            .unwrap_err()
            .to_string()
    };
    assert!(bad("flow_overrides=[{flows: [9], tcp: {}}]").contains("flow_overrides[0].flows"));
    assert!(
        bad("flow_overrides=[{flows: [1], tcp: {rto_min: 0s}}]")
            .contains("flow_overrides[0].tcp.rto_min")
    );
    assert!(
        bad("flow_overrides=[{flows: [1], tcp: {}}, {flows: [1], tcp: {}}]")
            .contains("each in one group")
    );
}

#[test]
fn time_series_samples_queues_links_and_flows() {
    let overrides = [
        "senders=8",
        "workload.blocks=5",
        "tcp.rto_min=1ms",
        "time_series={interval: 100us, ports: [switch0->host8], flows: [0, 7]}",
    ];
    let cfg = shipped("incast-classic.yaml", &overrides);
    let r = run(&cfg, 1);
    let samples = (r.run.sim_time_s / 100e-6).floor() as usize + 1;
    let port_q: Vec<f64> = r
        .time_series
        .iter()
        .filter(|x| x.object == "port switch0->host8" && x.metric == "queue_bytes")
        .map(|x| x.value)
        .collect();
    assert!(
        port_q.len() + 1 >= samples && port_q.len() <= samples + 1,
        "{} samples for {samples}",
        port_q.len()
    );
    assert!(
        port_q.iter().all(|&q| q <= 32_000.0),
        "the queue never exceeds its buffer"
    );
    assert!(
        port_q.iter().any(|&q| q > 20_000.0),
        "incast fills the buffer at times"
    );
    let util: Vec<f64> = r
        .time_series
        .iter()
        .filter(|x| x.metric == "utilization")
        .map(|x| x.value)
        .collect();
    assert!(util.iter().all(|&u| (0.0..=1.1).contains(&u)));
    assert!(
        r.time_series
            .iter()
            .any(|x| x.object == "flow 7" && x.metric == "cwnd_bytes" && x.value > 2000.0)
    );
    // Off by default: no series and no sampling events.
    let plain = run(&shipped("incast-classic.yaml", &overrides[..3]), 1);
    assert!(plain.time_series.is_empty());
    assert_eq!(
        plain.run.goodput_mbps, r.run.goodput_mbps,
        "sampling does not change the run"
    );
    assert!(plain.run.events < r.run.events);
    let bad = from_yaml_checked(
        &cfg.to_yaml(),
        &["time_series.ports=[switch0->host99]".into()],
    )
    .unwrap_err();
    assert!(bad.to_string().contains("time_series.ports"));
}

const DIAMOND: &str = r#"
senders: 1
topology:
  kind: custom
  hosts: 2
  switches: 4
  link_rate: 1Gbps
  link_delay: 5us
  switch_buffer: 100 packets
  links:
    - {a: host0, b: switch0}
    - {a: switch0, b: switch1}
    - {a: switch0, b: switch2, buffer: 10 packets}
    - {a: switch1, b: switch3}
    - {a: switch2, b: switch3, rate: 500Mbps}
    - {a: switch3, b: host1}
  routes:
    - {at: switch0, to: host1, via: switch2}
  receiver_host: 1
tcp: {rto_min: 1ms}
workload: {kind: bulk, duration: 50ms}
"#;

#[test]
fn custom_topology_with_explicit_routes_and_link_overrides() {
    let r = run(&from_yaml_checked(DIAMOND, &[]).unwrap(), 1);
    assert!(r.run.completed);
    let port = |from: &str, to: &str| {
        r.ports
            .iter()
            .find(|p| p.from_node == from && p.to_node == to)
            .unwrap()
    };
    // The explicit route sends everything via switch2; the equal-cost switch1 branch stays idle.
    assert!(port("switch0", "switch2").packets_enqueued > 1000);
    assert_eq!(port("switch0", "switch1").packets_enqueued, 0);
    // switch2 -> switch3 runs at 500 Mbps: it is the bottleneck, and goodput follows it.
    assert!(
        r.run.goodput_mbps > 400.0 && r.run.goodput_mbps < 500.0,
        "{}",
        r.run.goodput_mbps
    );
    assert!(port("switch2", "switch3").drops_buffer > 0);
    // The 10-packet buffer override applies to switch0's port on that link.
    assert!(port("switch0", "switch2").max_queue_packets <= 10);
}

#[test]
fn bad_custom_topologies_are_refused() {
    let err = |o: &[&str]| {
        from_yaml_checked(
            DIAMOND,
            &o.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        )
        .unwrap_err()
        .to_string()
    };
    assert!(err(&["topology.routes=[{at: switch0, to: host1, via: switch1}, {at: switch1, to: host1, via: switch0}]"]).contains("loop"));
    assert!(
        err(&["topology.routes=[{at: switch0, to: host1, via: switch3}]"])
            .contains("neighbour of switch0")
    );
    assert!(err(&["topology.routes=[{at: router0, to: host1, via: switch1}]"]).contains("router0"));
    assert!(
        err(&["topology.routes=[{at: switch0, to: switch3, via: switch1}]"]).contains("a host")
    );
    assert!(
        err(&["topology.links=[{a: host0, b: switch0}]"])
            .contains("every host needs exactly one link")
    );
    let cut = err(&[
        "topology.routes=[]",
        "topology.links=[{a: host0, b: switch0}, {a: host1, b: switch1}]",
    ]);
    assert!(
        cut.contains("topology.links") && cut.contains("cannot reach"),
        "{cut}"
    );
    assert!(err(&["topology.links=[{a: host0, b: switch9}]"]).contains("switch0..switch3"));
}

#[test]
fn on_change_trace_records_every_queue_change_in_order() {
    let overrides = [
        "senders=8",
        "workload.blocks=3",
        "tcp.rto_min=1ms",
        "time_series={interval: 1ms, on_change_port: switch0->host8}",
    ];
    let r = run(&shipped("incast-classic.yaml", &overrides), 1);
    let trace: Vec<(f64, f64)> = r
        .time_series
        .iter()
        .filter(|x| x.metric == "queue_packets_exact")
        .map(|x| (x.time_s, x.value))
        .collect();
    assert!(trace.windows(2).all(|w| w[0].0 <= w[1].0), "time order");
    assert!(
        trace.windows(2).all(|w| (w[0].1 - w[1].1).abs() == 1.0),
        "each record is one admission or departure"
    );
    assert!(trace.iter().all(|&(_, q)| q <= 31.0));
    let port = r
        .ports
        .iter()
        .find(|p| p.from_node == "switch0" && p.to_node == "host8")
        .unwrap();
    let admissions = trace.windows(2).filter(|w| w[1].1 > w[0].1).count() + 1;
    assert_eq!(
        admissions as u64, port.packets_enqueued,
        "every admission is recorded"
    );
}

/// S4 with drop-tail: the 2-hop flow from the receiver's own edge switch gets far below its
/// fair share while the 6-hop flows get more than theirs (TCP outcast): as shipped (1 us of
/// random processing time per packet keeps packet trains from locking into one phase), with
/// ns-2's random send overhead instead, and without any randomness when the switches add no
/// processing delay.
#[test]
fn s4_shows_tcp_outcast() {
    for overrides in [
        &["workload.duration=2s"][..],
        &[
            "workload.duration=2s",
            "topology.switch_delay_jitter=0us",
            "tcp.send_overhead=2us",
        ][..],
        &[
            "workload.duration=2s",
            "topology.switch_delay=0us",
            "topology.switch_delay_jitter=0us",
        ][..],
    ] {
        let r = run(&shipped("outcast-fattree.yaml", overrides), 1);
        let g: Vec<f64> = r.flows.iter().map(|f| f.goodput_mbps).collect();
        let fair = r.run.goodput_mbps / 15.0;
        let six_hop = g[3..].iter().sum::<f64>() / 12.0;
        assert!(
            g[0] < 0.5 * fair,
            "{overrides:?}: 2-hop {:.1} Mbps, fair {fair:.1}",
            g[0]
        );
        assert!(
            six_hop > fair,
            "{overrides:?}: 6-hop mean {six_hop:.1}, fair {fair:.1}"
        );
        // The 2-hop flow's losses come in runs that take whole windows: it times out more than
        // twice as often as any 6-hop flow, and spends more than twice as long in timeouts.
        let six = &r.flows[3..];
        let max_rtos = six.iter().map(|f| f.rto_count).max().unwrap();
        let max_wait = six.iter().map(|f| f.timeout_wait_s).fold(0.0, f64::max);
        assert!(
            r.flows[0].rto_count > 2 * max_rtos,
            "{overrides:?}: {} vs {max_rtos}",
            r.flows[0].rto_count
        );
        assert!(r.flows[0].timeout_wait_s > 2.0 * max_wait, "{overrides:?}");
    }
}

#[test]
fn phase_lockout_of_short_flows_is_broken_by_processing_jitter() {
    // A long-lived flow whose NIC is as fast as the bottleneck arrives in lockstep with the
    // departures of a full drop-tail queue: with exact timing it takes every freed slot and the
    // other flows' retransmissions are dropped for ever (RFC 2309's lock-out). This seed of the
    // RTO paper's non-incast setting locks out every other flow; 100 ns of random processing
    // time per packet frees them.
    let o = |jitter: &str| {
        [
            "sweep=null".to_string(),
            "traffic[0].load=0.1".into(),
            "workload.duration=0.2s".into(),
            "run.max_sim_time=3s".into(),
            // The 1000-segment window of the paper's setting (the config bounds it to 64).
            "tcp.receive_window_segments=1000".into(),
            format!("topology.switch_delay_jitter={jitter}"),
        ]
    };
    let path = config_path("rto-nonincast.yaml");
    let locked = run(
        &load_checked(&path, &o("0us")).unwrap(),
        7507021992811783096,
    );
    let free = run(
        &load_checked(&path, &o("100ns")).unwrap(),
        7507021992811783096,
    );
    assert!(
        !locked.run.completed,
        "short flows locked out until the time limit"
    );
    assert!(locked.run.flows_completed < locked.run.flows_finite / 2);
    assert!(free.run.completed);
    assert_eq!(free.run.flows_completed, free.run.flows_finite);
    let long: Vec<f64> = free
        .flows
        .iter()
        .filter(|f| f.kind == "long_lived")
        .map(|f| f.goodput_mbps)
        .collect();
    assert!(
        long.iter().all(|&g| g > 200.0),
        "long flows share: {long:?}"
    );
}

#[test]
fn send_overhead_delays_segments_without_reordering_them() {
    let base = "senders: 1\ntopology: {kind: star, link_rate: 1Gbps, switch_buffer: 10MB}\ntcp: {rto_min: 1ms}\nworkload: {kind: synchronized_reads, sru: 2MB, blocks: 3}\n";
    let plain = run(&from_yaml_checked(base, &[]).unwrap(), 1);
    let o = ["tcp.send_overhead=20us".to_string()];
    let cfg = from_yaml_checked(base, &o).unwrap();
    let a = run(&cfg, 1);
    // In order: no duplicate ACKs, so no retransmission of any kind.
    assert_eq!(a.run.retransmitted_segments, 0);
    assert_eq!(a.run.fast_retransmits, 0);
    assert_eq!(a.run.app_bytes, plain.run.app_bytes);
    // The delay costs time (the sender's ACK clock slows) but at most 20 us per segment.
    assert!(a.run.sim_time_s > plain.run.sim_time_s);
    let segments = a.run.data_segments_sent as f64;
    assert!(a.run.sim_time_s < plain.run.sim_time_s + segments * 20e-6);
    assert_eq!(format!("{:?}", a), format!("{:?}", run(&cfg, 1)));
    assert_ne!(format!("{:?}", a.run), format!("{:?}", run(&cfg, 2).run));
}

#[test]
fn clock_tolerance_offsets_each_node_within_bounds() {
    use incastsim_scenario::Simulation;
    let cfg = shipped(
        "outcast-fattree.yaml",
        &["topology.clock_tolerance_ppm=100", "workload.duration=20ms"],
    );
    let sim = Simulation::new(&cfg, 3).unwrap();
    let nominal = 1e9;
    let mut distinct = std::collections::BTreeSet::new();
    for p in sim.ports() {
        let r = p.serialization().rate().0 as f64;
        assert!((r / nominal - 1.0).abs() <= 100e-6 + 1e-12, "{r}");
        distinct.insert(p.serialization().rate().0);
    }
    // 36 nodes, each with its own offset.
    assert!(distinct.len() > 30, "{}", distinct.len());
    let a = run(&cfg, 3);
    assert!(a.run.completed);
    assert_eq!(format!("{a:?}"), format!("{:?}", run(&cfg, 3)));
}
