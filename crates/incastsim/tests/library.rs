//! The library path from code: a config built in code equals the same config from YAML, and a
//! sweep reports its progress to a closure.

use incastsim::ConfigBuilder;
use incastsim::ProgressFn;
use incastsim::scenario::from_yaml_checked;
use incastsim::sweep::{Sweep, run_sweep};
use std::sync::Mutex;

#[test]
fn a_config_built_in_code_equals_the_yaml_one() {
    let yaml = "senders: 8
topology: {kind: star, link_rate: 1Gbps, switch_buffer: 32KB}
tcp: {rto_min: 1ms}
workload: {kind: synchronized_reads, sru: 64KB, blocks: 2}
";
    let from_yaml = from_yaml_checked(yaml, &[]).unwrap();
    let built = ConfigBuilder::new()
        .set("senders", 8)
        .set("topology.kind", "star")
        .set("topology.link_rate", "1Gbps")
        .set("topology.switch_buffer", "32KB")
        .set("tcp.rto_min", "1ms")
        .set(
            "workload",
            serde_json::json!({"kind": "synchronized_reads", "sru": "64KB", "blocks": 2}),
        )
        .build()
        .unwrap();
    assert_eq!(built.to_yaml(), from_yaml.to_yaml());
    let overridden = ConfigBuilder::from_yaml(yaml)
        .unwrap()
        .overrides(&["senders=16"])
        .build()
        .unwrap();
    assert_eq!(overridden.senders, 16);
    // Errors name the key, as for a file.
    let e = ConfigBuilder::from_yaml(yaml)
        .unwrap()
        .set("workload.blocks", "many")
        .build()
        .unwrap_err();
    assert!(e.to_string().contains("workload.blocks"), "{e}");
    let e = ConfigBuilder::new()
        .set("senders", 4)
        .set("senders.x", 1)
        .build()
        .unwrap_err();
    assert!(e.to_string().contains("senders"), "{e}");
}

#[test]
fn a_sweep_tells_a_closure_its_progress() {
    let yaml = "name: lib-sweep
senders: 2
topology: {kind: star}
workload: {kind: synchronized_reads, sru: 16KB, blocks: 1}
sweep:
  seeds: 2
  grid: {senders: [2, 4]}
";
    let sweep = Sweep::from_yaml(yaml, &[]).unwrap();
    let dir = std::env::temp_dir().join(format!("incastsim-lib-sweep-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let seen = Mutex::new(Vec::new());
    let progress = ProgressFn::new(|done, total| seen.lock().unwrap().push((done, total)));
    let report = run_sweep(&sweep, &dir, 2, None, &progress).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(report.runs_computed, 4);
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.first(), Some(&(0, 4)));
    assert_eq!(seen.last(), Some(&(4, 4)));
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0));
}
