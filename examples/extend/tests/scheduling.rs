//! The template's disciplines that schedule at dequeue, `codel` (RFC 8289) and `drr2`
//! (deficit round robin over two queues), from YAML through this crate's binary, in `run` and
//! in `sweep`. Each run checks the end-of-run invariants (packets conserved with the ones the
//! disciplines hold and drop at the head) in debug builds.

mod common;
use common::{cli, column, config, numbers, run, scratch, table, try_cli, without};

/// A discipline that schedules but never reorders or drops is a FIFO: CoDel at its RFC
/// defaults (5 ms target, far above S1's queueing delays) and DRR with one queue in use
/// (`classify: dscp`, every packet DSCP 0) give S1's drop-tail run, every flow and port
/// alike; only the event count differs (one transmission-end event per departure).
#[test]
fn disciplines_that_never_act_equal_drop_tail_on_s1() {
    let dir = scratch("scheduling", "fifo");
    let sets = "workload.blocks=20";
    let builtin = dir.join("builtin");
    run("incast-classic.yaml", &[sets], &builtin);
    for (name, queue) in [
        ("codel", "topology.switch_queue=codel"),
        ("drr2", "topology.switch_queue={name: drr2, classify: dscp}"),
    ] {
        let mine = dir.join(name);
        run("incast-classic.yaml", &[sets, queue], &mine);
        let a = std::fs::read_to_string(builtin.join("flows.csv")).unwrap();
        let b = std::fs::read_to_string(mine.join("flows.csv")).unwrap();
        assert_eq!(a, b, "{name}: flows.csv differs");
        // ports.csv: the same, beside CoDel's own values (its columns after the built-in ones).
        let own = ["codel_drops", "codel_dropping", "codel_count"];
        assert_eq!(
            without(&table(&builtin.join("ports.csv")), &own),
            without(&table(&mine.join("ports.csv")), &own),
            "{name}: ports.csv differs"
        );
        let (a, b) = (
            table(&builtin.join("runs.csv")),
            table(&mine.join("runs.csv")),
        );
        assert_eq!(without(&a, &["events"]), without(&b, &["events"]), "{name}");
        assert!(numbers(&b, "events")[0] > numbers(&a, "events")[0]);
        assert!(
            numbers(&b, "drops_buffer_full")[0] > 0,
            "the buffer overflowed"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// CoDel with a target below S1's queueing delay drops at the head: counted as AQM drops at
/// the switch port (ports.csv, runs.csv), the run completes with every packet accounted for,
/// and it is deterministic (the resolved config reproduces it byte for byte).
#[test]
fn codel_drops_at_the_head_and_reproduces() {
    let dir = scratch("scheduling", "codel");
    let (first, again) = (dir.join("first"), dir.join("again"));
    run(
        "incast-classic.yaml",
        &[
            "workload.blocks=10",
            "topology.switch_queue={name: codel, target: 20us, interval: 200us}",
            "time_series={interval: 1ms, ports: [switch0->host16]}",
        ],
        &first,
    );
    let runs = table(&first.join("runs.csv"));
    let aqm = numbers(&runs, "drops_aqm")[0];
    assert!(aqm > 0, "CoDel dropped");
    assert_eq!(
        column(&runs, "completed"),
        ["true"],
        "every block completed"
    );
    let ports = table(&first.join("ports.csv"));
    let per_port: u64 = numbers(&ports, "drops_aqm").iter().sum();
    assert_eq!(per_port, aqm, "every head drop counted once, at its port");
    // CoDel's own drop count (a value it declares) is a ports.csv column: the port's AQM
    // drops at switch ports, empty at host NICs (drop-tail).
    for row in &ports {
        let get = |k: &str| row.iter().find(|(c, _)| c == k).unwrap().1.clone();
        if get("from_node").starts_with("switch") {
            let codel: f64 = get("codel_drops").parse().unwrap();
            assert_eq!(codel, get("drops_aqm").parse::<f64>().unwrap(), "{row:?}");
        } else {
            assert_eq!(get("codel_drops"), "", "{row:?}");
        }
    }
    // ... and a metric of the sampled port's time series, growing to the port's total.
    let series = std::fs::read_to_string(first.join("timeseries.csv")).unwrap();
    let drops: Vec<f64> = series
        .lines()
        .filter(|l| l.contains(",codel_drops,"))
        .map(|l| l.rsplit(',').next().unwrap().parse().unwrap())
        .collect();
    assert!(
        drops.len() > 5 && drops.windows(2).all(|w| w[0] <= w[1]),
        "{drops:?}"
    );
    assert!(*drops.last().unwrap() > 0.0, "{drops:?}");
    let resolved = first.join("config.resolved.yaml");
    let text = std::fs::read_to_string(&resolved).unwrap();
    assert!(
        text.contains("name: codel") && text.contains("target: 20us"),
        "{text}"
    );
    cli(&[
        "run",
        resolved.to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    for file in ["runs.csv", "flows.csv", "ports.csv"] {
        let a = std::fs::read_to_string(first.join(file)).unwrap();
        let b = std::fs::read_to_string(again.join(file)).unwrap();
        assert_eq!(a, b, "{file} differs");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// DRR over the flows' two queues reorders departures (the run differs from drop-tail's) and
/// completes; a sweep grids over its quantum and over CoDel's target.
#[test]
fn drr2_and_codel_sweep_over_their_parameters() {
    let dir = scratch("scheduling", "sweep");
    let base = std::fs::read_to_string(config("incast-classic.yaml")).unwrap();
    for (name, queue, grid, key) in [
        (
            "codel",
            "{name: codel, interval: 200us}",
            "{topology.switch_queue.target: [20us, 50us]}",
            "topology.switch_queue.target",
        ),
        (
            "drr2",
            "drr2",
            "{topology.switch_queue.quantum: [1500B, 3000B]}",
            "topology.switch_queue.quantum",
        ),
    ] {
        let yaml = dir.join(format!("{name}.yaml"));
        std::fs::write(
            &yaml,
            format!("{base}\nsweep: {{seeds: 1, grid: {grid}}}\n"),
        )
        .unwrap();
        let out = dir.join(name);
        cli(&[
            "sweep",
            yaml.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--jobs",
            "2",
            "--set",
            &format!("topology.switch_queue={queue}"),
            "--set",
            "workload.blocks=5",
        ]);
        let runs = table(&out.join("runs.csv"));
        assert_eq!(runs.len(), 2, "{name}");
        let header: Vec<&str> = runs[0].iter().map(|(h, _)| h.as_str()).collect();
        assert!(header.contains(&key), "{header:?}");
        assert_eq!(
            column(&runs, "completed"),
            ["true", "true"],
            "every block completed"
        );
        let goodput = column(&runs, "goodput_mbps");
        assert_ne!(goodput[0], goodput[1], "{name}: the parameter matters");
        let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
        assert!(manifest.contains(name), "{manifest}");
        if name == "codel" {
            assert!(numbers(&runs, "drops_aqm").iter().all(|&d| d > 0));
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A discipline that schedules refuses strict-priority classes on its ports (two schedulers),
/// at plan time, naming the key; bad parameters name theirs.
#[test]
fn conflicting_and_bad_settings_are_refused() {
    let cfg = config("incast-classic.yaml");
    let out = try_cli(&[
        "run",
        cfg.to_str().unwrap(),
        "--set",
        "topology.switch_queue=codel",
        "--set",
        "topology.priority_classes=2",
    ]);
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("topology.priority_classes = 2: 1 with topology.switch_queue codel"),
        "{e}"
    );
    let e = common::error(&["topology.switch_queue={name: codel, target: 0s}"]);
    assert_eq!(e, "topology.switch_queue.target = 0s: a positive duration");
    let e = common::error(&["topology.switch_queue={name: drr2, quantum: 0}"]);
    assert_eq!(
        e,
        "topology.switch_queue.quantum = 0: a positive size in bytes"
    );
    let e = common::error(&["topology.switch_queue={name: drr2, classify: port}"]);
    assert!(
        e.starts_with("topology.switch_queue.classify") && e.contains("flow") && e.contains("dscp"),
        "{e}"
    );
}

/// On a shared-buffer switch (`configs/shared-buffer-incast.yaml`, one 128 KB pool under the
/// Dynamic Threshold) the held packets count in the pool as queued ones do: CoDel at its
/// defaults gives drop-tail's flows byte for byte, and an aggressive CoDel drops at the head
/// while the pool keeps admitting (its debug-build recount checks the pool's accounts).
#[test]
fn codel_on_a_shared_buffer_switch() {
    let dir = scratch("scheduling", "shared");
    let base = ["sweep=null", "senders=24"];
    let (builtin, defaults, aggressive) = (
        dir.join("builtin"),
        dir.join("defaults"),
        dir.join("aggressive"),
    );
    run("shared-buffer-incast.yaml", &base, &builtin);
    run(
        "shared-buffer-incast.yaml",
        &[base[0], base[1], "topology.switch_queue=codel"],
        &defaults,
    );
    let a = std::fs::read_to_string(builtin.join("flows.csv")).unwrap();
    let b = std::fs::read_to_string(defaults.join("flows.csv")).unwrap();
    assert_eq!(a, b, "flows.csv differs");
    run(
        "shared-buffer-incast.yaml",
        &[
            base[0],
            base[1],
            "topology.switch_queue={name: codel, target: 20us, interval: 200us}",
        ],
        &aggressive,
    );
    let runs = table(&aggressive.join("runs.csv"));
    assert!(numbers(&runs, "drops_aqm")[0] > 0);
    assert!(
        numbers(&runs, "drops_threshold")[0] > 0,
        "the pool still refuses"
    );
    assert_eq!(column(&runs, "completed"), ["true"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
