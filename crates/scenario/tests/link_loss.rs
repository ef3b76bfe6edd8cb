//! Loss where a researcher puts it: `topology.lossy_links` (per link direction, by port name,
//! Bernoulli or Gilbert-Elliott) and a custom link's own `loss`.

use crate::common;
use common::{run, shipped};
use incastsim_scenario::from_yaml_checked;

fn drops_by_port(r: &incastsim_scenario::RunResult) -> Vec<(String, u64)> {
    r.ports
        .iter()
        .filter(|p| p.drops_link_loss > 0)
        .map(|p| (format!("{}->{}", p.from_node, p.to_node), p.drops_link_loss))
        .collect()
}

#[test]
fn gilbert_elliott_on_one_direction_loses_its_mean_there_only() {
    // P(Bad) = 0.002/(0.002 + 0.2) ≈ 0.99 %: bursts of mean 5 packets.
    let cfg = shipped(
        "bulk-dumbbell.yaml",
        &[
            "senders=4",
            "workload.duration=50ms",
            "topology.lossy_links=[{ports: [\"switch0->host4\"], loss: {kind: gilbert_elliott, \
             p_good_to_bad: 0.002, p_bad_to_good: 0.2}}]",
        ],
    );
    let r = run(&cfg, 1);
    let drops = drops_by_port(&r);
    assert_eq!(drops.len(), 1, "{drops:?}");
    assert_eq!(drops[0].0, "switch0->host4");
    let port = r.ports.iter().find(|p| p.to_node == "host4").unwrap();
    let rate = port.drops_link_loss as f64 / port.packets_enqueued as f64;
    let mean = 0.002 / 0.202;
    // Bursts of 5: the loss count's standard error is ~√5 × that of Bernoulli.
    assert!(
        (rate / mean - 1.0).abs() < 0.3,
        "loss rate {rate}, model {mean}"
    );
}

#[test]
fn later_rules_win_and_stars_select_every_uplink() {
    let cfg = shipped(
        "bulk-dumbbell.yaml",
        &[
            "senders=4",
            "workload.duration=20ms",
            "topology.lossy_links=[{ports: [\"host*->switch0\"], loss: {kind: bernoulli, p: 0.01}}, \
             {ports: [\"host4->switch0\"], loss: {kind: bernoulli, p: 0.0}}]",
        ],
    );
    let drops = drops_by_port(&run(&cfg, 1));
    let names: Vec<&str> = drops.iter().map(|d| d.0.as_str()).collect();
    // Data leaves host0..host3; host4 (the receiver) sends only ACKs, and its rule is p = 0.
    assert_eq!(
        names,
        [
            "host0->switch0",
            "host1->switch0",
            "host2->switch0",
            "host3->switch0"
        ]
    );
}

#[test]
fn a_custom_link_has_its_own_loss() {
    let cfg = shipped(
        "tcprand-testbed.yaml",
        &[
            "workload.duration=50ms",
            "topology.links[2]={a: switch0, b: switch1, loss: {kind: bernoulli, p: 0.02}}",
        ],
    );
    let drops = drops_by_port(&run(&cfg, 1));
    assert!(!drops.is_empty());
    for (name, _) in &drops {
        assert!(
            name == "switch0->switch1" || name == "switch1->switch0",
            "{drops:?}"
        );
    }
}

#[test]
fn link_loss_alone_draws_as_before() {
    // `link_loss` still means Bernoulli on every link direction, from the same streams: the
    // same run with the same loss written as a rule over every port gives the same results.
    let base = ["senders=4", "workload.duration=20ms"];
    let a = shipped(
        "bulk-dumbbell.yaml",
        &[base[0], base[1], "topology.link_loss=0.01"],
    );
    let b = shipped(
        "bulk-dumbbell.yaml",
        &[
            base[0],
            base[1],
            "topology.lossy_links=[{ports: [\"*\"], loss: {kind: bernoulli, p: 0.01}}]",
        ],
    );
    let (ra, rb) = (run(&a, 7), run(&b, 7));
    assert_eq!(ra.flows, rb.flows);
    assert_eq!(ra.ports, rb.ports);
}

const BASE: &str = r#"
senders: 4
topology: {kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 32KB}
workload: {kind: synchronized_reads, sru: 256KB, blocks: 2}
"#;

fn err(overrides: &[&str]) -> String {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    match from_yaml_checked(BASE, &o) {
        Ok(_) => panic!("{overrides:?} was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_loss_settings_name_the_key_the_value_and_what_is_allowed() {
    let e = err(&[
        "topology.lossy_links=[{ports: [\"switch0->host9\"], loss: {kind: bernoulli, p: 0.1}}]",
    ]);
    assert!(
        e.contains("topology.lossy_links[0].ports[0]") && e.contains("switch0->host9"),
        "{e}"
    );
    let e = err(&["topology.lossy_links=[{ports: [\"*\"], loss: {kind: bernoulli, p: 1.5}}]"]);
    assert!(
        e.contains("topology.lossy_links[0].loss.p") && e.contains("1.5"),
        "{e}"
    );
    let e = err(&[
        "topology.lossy_links=[{ports: [\"*\"], loss: {kind: gilbert_elliott, p_good_to_bad: 0, p_bad_to_good: 0.5}}]",
    ]);
    assert!(e.contains("p_good_to_bad") && e.contains("(0, 1]"), "{e}");
    let e = err(&["topology.lossy_links=[{ports: [], loss: {kind: bernoulli, p: 0.1}}]"]);
    assert!(e.contains("topology.lossy_links[0].ports"), "{e}");
}
