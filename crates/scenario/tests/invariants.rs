//! Every scenario keeps the engine's invariants: packets sent = delivered + dropped + in flight,
//! every byte delivered once and in order, queues within limits, time monotone (the last two are
//! debug assertions, active in tests).

use crate::common;
use common::*;
use incastsim_scenario::{Config, Simulation, from_yaml_checked, load_checked};
use proptest::prelude::*;

fn assert_completes(cfg: &Config) {
    let r = run(cfg, 7);
    assert!(r.run.completed, "{}: did not complete", cfg.name);
}

#[test]
fn s1_variants_keep_invariants() {
    for rto in ["200ms", "10ms", "1ms", "200us"] {
        assert_completes(&s1(8, rto));
    }
}

#[test]
fn s3_keeps_invariants_and_is_fair() {
    let cfg = shipped("bulk-dumbbell.yaml", &["workload.duration=200ms"]);
    let r = run(&cfg, 1);
    assert!(r.run.completed);
    assert!(
        r.run.goodput_mbps > 9000.0,
        "S3 goodput {:.0} Mbps",
        r.run.goodput_mbps
    );
    assert!(
        r.run.jain_fairness > 0.95,
        "S3 Jain {:.3}",
        r.run.jain_fairness
    );
}

#[test]
fn feature_variants_keep_invariants() {
    let variants: &[&[&str]] = &[
        &["tcp.delayed_ack.enabled=true"],
        &[
            "tcp.delayed_ack.enabled=true",
            "tcp.delayed_ack.count=4",
            "tcp.delayed_ack.timeout=1ms",
        ],
        &["tcp.limited_transmit=false"],
        &["tcp.rtt_sampling=once_per_rtt", "tcp.rto_min=1ms"],
        &["tcp.recovery_exit_cwnd=min_flight"],
        &["tcp.slow_start_after_idle=true"],
        &["topology.link_loss=0.01", "tcp.rto_min=1ms"],
        &["topology.switch_buffer=20 packets"],
        &["topology.host_buffer=64KB", "tcp.rto_min=1ms"],
        &["workload.sru=~", "workload.block=1MB"],
        &[
            "workload.sru=~",
            "workload.block=999999",
            "workload.blocks=3",
        ],
        &[
            "tcp.mss=1460B",
            "tcp.initial_cwnd=10",
            "topology.switch_delay=25us",
        ],
        &["tcp.clock_granularity=1ms", "tcp.rto_min=1ms"],
    ];
    for v in variants {
        let mut o = vec!["senders=8", "workload.blocks=10"];
        o.extend_from_slice(v);
        let cfg = shipped("incast-classic.yaml", &o);
        let r = run(&cfg, 3);
        assert!(r.run.completed, "{v:?}: did not complete");
    }
}

#[test]
fn dumbbell_keeps_invariants() {
    let yaml = r#"
name: dumbbell
senders: 6
topology: {kind: dumbbell, receivers: 2, bottleneck_rate: 1Gbps, link_rate: 10Gbps, link_delay: 5us, switch_buffer: 100 packets}
tcp: {rto_min: 1ms}
workload: {kind: bulk, duration: 50ms}
"#;
    let cfg = from_yaml_checked(yaml, &[]).unwrap();
    let r = run(&cfg, 1);
    assert!(r.run.completed);
    let g = r.run.goodput_mbps;
    assert!(
        g > 850.0 && g < 1000.0,
        "bottleneck-limited goodput {g:.0} Mbps"
    );
    // The bottleneck port is the only one that drops.
    let dropping: Vec<_> = r.ports.iter().filter(|p| p.drops_buffer > 0).collect();
    assert!(
        dropping
            .iter()
            .all(|p| p.from_node == "switch0" && p.to_node == "switch1"),
        "{dropping:?}"
    );
}

#[test]
fn link_loss_is_counted_and_recovered() {
    let cfg = s1(4, "1ms");
    let mut o = cfg.clone();
    o.topology = match o.topology {
        incastsim_scenario::config::TopologyConfig::Star(mut l) => {
            l.link_loss = 0.02;
            incastsim_scenario::config::TopologyConfig::Star(l)
        }
        t => t,
    };
    let r = run(&o, 5);
    assert!(r.run.completed);
    assert!(r.run.drops_link_loss > 0);
    assert_eq!(
        r.run.drops_total,
        r.run.drops_buffer + r.run.drops_link_loss
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    /// Random small incast scenarios finish and keep every invariant.
    #[test]
    fn random_scenarios_keep_invariants(
        n in 1u32..10,
        buffer_pkts in 2u32..40,
        sru_kb in 1u64..40,
        blocks in 1u32..4,
        loss_permille in 0u32..30,
        delack in any::<bool>(),
        lt in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let overrides = vec![
            format!("senders={n}"),
            format!("topology.switch_buffer={buffer_pkts} packets"),
            format!("workload.sru={sru_kb}KB"),
            format!("workload.blocks={blocks}"),
            format!("topology.link_loss={}", loss_permille as f64 / 1000.0),
            format!("tcp.delayed_ack.enabled={delack}"),
            format!("tcp.limited_transmit={lt}"),
            "tcp.rto_min=1ms".to_string(),
        ];
        let cfg = load_checked(&config_path("incast-classic.yaml"), &overrides).unwrap();
        let mut sim = Simulation::new(&cfg, seed).unwrap();
        let outcome = sim.run();
        prop_assert_eq!(outcome, incastsim_scenario::Outcome::Completed);
        prop_assert!(sim.check_invariants().is_ok(), "{:?}", sim.check_invariants());
        let c = sim.counters();
        prop_assert_eq!(c.sent, c.delivered + sim.packets_dropped() + sim.packets_in_flight());
    }
}

#[test]
fn lost_request_is_retried_despite_late_duplicates() {
    // Regression: a request lost to link loss while a stale duplicate of the previous block was
    // still arriving left the server unasked forever (found by the property test above).
    let yaml = r#"
senders: 8
topology: {kind: star, switch_buffer: 14 packets, link_loss: 0.017}
tcp: {rto_min: 1ms, delayed_ack: {enabled: true}}
workload: {kind: synchronized_reads, sru: 19KB, blocks: 3}
run: {max_sim_time: 10s}
"#;
    let cfg = from_yaml_checked(yaml, &[]).unwrap();
    let r = run(&cfg, 453);
    assert!(r.run.completed);
    assert_eq!(r.run.blocks_completed, 3);
}
