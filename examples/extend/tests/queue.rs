//! The template's queue discipline `my_threshold` from YAML, through this crate's binary:
//! with `action: mark` it is the built-in `ecn_threshold` (S1 with DCTCP, run for run); with
//! `action: drop` and T packets, the drop-tail buffer of T + 1 packets (the drops move from
//! "buffer full" to "AQM", nothing else changes but the columns derived from the configured
//! buffer); the resolved config names the providing crate and reproduces the run; its bad parameter gets the built-ins' error
//! shape; a sweep grids over its threshold.

mod common;
use common::{cli, config, error, numbers, run, scratch, table, without};

use std::path::Path;

/// S1 with DCTCP (`configs/incast-dctcp.yaml`, K = 20 packets): marking above 20 packets
/// through the extension gives every CSV the built-in `ecn_threshold` gives, byte for byte.
#[test]
fn marking_equals_the_builtin_ecn_threshold_on_s1_dctcp() {
    let dir = scratch("queue", "mark");
    let sets = ["workload.blocks=20"];
    let (builtin, mine) = (dir.join("builtin"), dir.join("mine"));
    run("incast-dctcp.yaml", &sets, &builtin);
    let queue = "topology.switch_queue={name: my_threshold, threshold: 20 packets, action: mark}";
    run("incast-dctcp.yaml", &[sets[0], queue], &mine);
    for file in ["runs.csv", "flows.csv", "ports.csv"] {
        let a = std::fs::read_to_string(builtin.join(file)).unwrap();
        let b = std::fs::read_to_string(mine.join(file)).unwrap();
        assert_eq!(a, b, "{file} differs");
    }
    let marks = numbers(&table(&mine.join("runs.csv")), "ecn_marks");
    assert!(marks[0] > 0, "it marked");
    let resolved = std::fs::read_to_string(mine.join("config.resolved.yaml")).unwrap();
    assert!(
        resolved.contains("name: my_threshold") && resolved.contains("action: mark"),
        "{resolved}"
    );
    let manifest = std::fs::read_to_string(mine.join("manifest.json")).unwrap();
    assert!(
        manifest.contains("queue_discipline") && manifest.contains("incastsim-extend-template"),
        "{manifest}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// By hand: dropping arrivals that find more than 19 packets queued admits while the queue
/// holds at most 19, so the queue peaks at 20 packets — a drop-tail buffer of 20 packets.
/// Inside a 32 KB buffer (30 full packets, never reached) the run is S1's with
/// `switch_buffer: 20 packets`, each "buffer full" drop there an AQM drop here.
#[test]
fn dropping_equals_a_drop_tail_buffer_one_packet_larger() {
    let dir = scratch("queue", "drop");
    let base = ["senders=16", "workload.blocks=20"];
    let (builtin, mine) = (dir.join("builtin"), dir.join("mine"));
    run(
        "incast-classic.yaml",
        &[base[0], base[1], "topology.switch_buffer=20 packets"],
        &builtin,
    );
    run(
        "incast-classic.yaml",
        &[
            base[0],
            base[1],
            "topology.switch_queue={name: my_threshold, threshold: 19 packets}",
        ],
        &mine,
    );
    // The config's buffer and what derives from it (the model's fast-retransmit bound).
    let drop_columns = [
        "switch_buffer",
        "fast_retransmit_bound",
        "drops_buffer",
        "drops_buffer_full",
        "drops_aqm",
    ];
    for file in ["runs.csv", "flows.csv"] {
        let a = table(&builtin.join(file));
        let b = table(&mine.join(file));
        assert_eq!(
            without(&a, &drop_columns),
            without(&b, &drop_columns),
            "{file} differs"
        );
    }
    let (a, b) = (
        table(&builtin.join("runs.csv")),
        table(&mine.join("runs.csv")),
    );
    let full = numbers(&a, "drops_buffer_full")[0];
    assert!(full > 0, "the 20-packet buffer overflowed");
    assert_eq!(numbers(&a, "drops_aqm"), [0]);
    assert_eq!(
        numbers(&b, "drops_aqm"),
        [full],
        "every drop is the threshold's"
    );
    assert_eq!(numbers(&b, "drops_buffer_full"), [0]);
    // No switch queue held more than 20 packets (host NICs are unlimited).
    let switch_ports = |dir: &Path| -> Vec<Vec<(String, String)>> {
        table(&dir.join("ports.csv"))
            .into_iter()
            .filter(|row| {
                row.iter()
                    .any(|(h, v)| h == "from_node" && v.starts_with("switch"))
            })
            .collect()
    };
    let max_queue = numbers(&switch_ports(&mine), "max_queue_packets");
    assert_eq!(max_queue.iter().max(), Some(&20));
    assert_eq!(
        max_queue,
        numbers(&switch_ports(&builtin), "max_queue_packets")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A sweep from YAML with a grid over the discipline's own parameter.
#[test]
fn my_threshold_sweeps_over_its_threshold() {
    let dir = scratch("queue", "sweep");
    let text = std::fs::read_to_string(config("incast-classic.yaml")).unwrap()
        + "\nsweep: {seeds: 1, grid: {topology.switch_queue.threshold: [5 packets, 25 packets]}}\n";
    let yaml = dir.join("threshold.yaml");
    std::fs::write(&yaml, text).unwrap();
    let out = dir.join("out");
    cli(&[
        "sweep",
        yaml.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--jobs",
        "2",
        "--set",
        "topology.switch_queue=my_threshold",
        "--set",
        "workload.blocks=5",
    ]);
    let runs = table(&out.join("runs.csv"));
    assert_eq!(runs.len(), 2);
    let header: Vec<&str> = runs[0].iter().map(|(h, _)| h.as_str()).collect();
    assert!(
        header.contains(&"topology.switch_queue.threshold"),
        "{header:?}"
    );
    let aqm = numbers(&runs, "drops_aqm");
    assert!(
        aqm.iter().all(|&d| d > 0) && aqm[0] != aqm[1],
        "each threshold acts, differently: {aqm:?}"
    );
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(manifest.contains("my_threshold"), "{manifest}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A bad parameter reads as the built-in's; an unknown name lists both kinds of names.
#[test]
fn bad_parameters_are_refused_as_the_builtins_are() {
    let builtin = error(&["topology.switch_queue={kind: ecn_threshold, k: unlimited}"]);
    let mine = error(&["topology.switch_queue={name: my_threshold, threshold: unlimited}"]);
    assert_eq!(
        builtin,
        "topology.switch_queue.k = unlimited: a size in bytes or packets"
    );
    assert_eq!(
        mine,
        "topology.switch_queue.threshold = unlimited: a size in bytes or packets"
    );
    let e = error(&["topology.switch_queue={name: my_threshold, action: shout}"]);
    assert!(
        e.starts_with("topology.switch_queue.action") && e.contains("drop") && e.contains("mark"),
        "{e}"
    );
    let e = error(&["topology.switch_queue={name: pie}"]);
    assert!(
        e.starts_with("topology.switch_queue = pie: one of drop_tail, red, wred")
            && e.contains("my_threshold"),
        "{e}"
    );
}

/// `components` lists it with its crate and defaults.
#[test]
fn components_lists_the_discipline() {
    let out = cli(&["components"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("my_threshold (from incastsim-extend-template 0.1.0)"),
        "{text}"
    );
    assert!(text.contains("default threshold: 20 packets"), "{text}");
    assert!(text.contains("default action: drop"), "{text}");
}

/// `config.resolved.yaml` names the providing crate (in a comment) and, run again, reproduces
/// the run byte for byte.
#[test]
fn the_resolved_config_names_the_crate_and_reproduces_the_run() {
    let dir = scratch("queue", "resolved");
    let (first, again) = (dir.join("first"), dir.join("again"));
    run(
        "incast-classic.yaml",
        &[
            "workload.blocks=5",
            "topology.switch_queue={name: my_threshold, threshold: 10 packets}",
        ],
        &first,
    );
    let resolved = first.join("config.resolved.yaml");
    let text = std::fs::read_to_string(&resolved).unwrap();
    assert!(
        text.contains(
            "# extension: queue_discipline my_threshold from incastsim-extend-template 0.1.0"
        ),
        "{text}"
    );
    cli(&[
        "run",
        resolved.to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    for file in ["runs.csv", "flows.csv", "ports.csv", "config.resolved.yaml"] {
        let a = std::fs::read_to_string(first.join(file)).unwrap();
        let b = std::fs::read_to_string(again.join(file)).unwrap();
        assert_eq!(a, b, "{file} differs");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
