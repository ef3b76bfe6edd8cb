//! Collectives as traffic (`configs/collectives/`): the ring all-reduce and the all-to-all
//! against their closed forms, the parameter server's incast collapse with its RTO classes,
//! a published GOAL trace, bad traces and specs refused by line and key, and determinism.

use crate::common::{config_path, run, shipped};
use incastsim_scenario::probe::{ProbeTable, ProbeValue};
use incastsim_scenario::{RunResult, load_checked};

/// Column `name` of `table`'s rows, as numbers (empty fields as NaN).
fn column(table: &ProbeTable, name: &str) -> Vec<f64> {
    let c = table.header.iter().position(|h| h == name).expect(name);
    table
        .rows
        .iter()
        .map(|r| match &r[c] {
            ProbeValue::Float(v) => *v,
            ProbeValue::UInt(v) => *v as f64,
            ProbeValue::Int(v) => *v as f64,
            _ => f64::NAN,
        })
        .collect()
}

fn table<'a>(r: &'a RunResult, file: &str) -> &'a ProbeTable {
    r.probe_tables.iter().find(|t| t.file == file).expect(file)
}

fn run_column(r: &RunResult, name: &str) -> f64 {
    match r
        .run
        .probes
        .0
        .iter()
        .find(|(c, _)| c == name)
        .map(|(_, v)| v)
    {
        Some(ProbeValue::Float(v)) => *v,
        Some(ProbeValue::UInt(v)) => *v as f64,
        other => panic!("{name}: {other:?}"),
    }
}

/// 64 MB over 16 ranks of 100 Gbit/s: 2(n−1)/n · S/B = 30/16 · 64e6 · 8 / 1e11 = 9.6 ms, plus
/// 2(n−1) = 30 steps' latency. A step ends when its last packet reaches the next rank: at
/// most 6 hops of 1 µs propagation, 0.5 µs mean switch jitter and one 4,158-byte packet's
/// serialization (0.33 µs) each, so ≤ 30 · 6 · 1.83 µs = 0.33 ms. The run must be within 5 %
/// of that.
#[test]
fn ring_allreduce_takes_the_closed_form_time() {
    let r = run(&shipped("collectives/ring-allreduce.yaml", &[]), 1);
    let c = table(&r, "collectives.csv");
    assert_eq!(c.rows.len(), 1);
    let completion_ms = column(c, "completion_ms")[0];
    let n = 16.0;
    let bandwidth_ms = 2.0 * (n - 1.0) / n * 64e6 * 8.0 / 100e9 * 1e3;
    let latency_ms = 30.0 * 6.0 * (1.0 + 0.5 + 4158.0 * 8.0 / 100e9 * 1e6) * 1e-3;
    let closed = bandwidth_ms + latency_ms;
    assert!(
        (completion_ms / closed - 1.0).abs() < 0.05,
        "ring all-reduce {completion_ms} ms, closed form {closed} ms"
    );
    assert!(completion_ms > bandwidth_ms, "faster than the link");
    // busBW = algBW · 2(n−1)/n, and it is near the link's payload rate.
    let alg = column(c, "alg_bw_gbps")[0];
    let bus = column(c, "bus_bw_gbps")[0];
    assert!((bus / alg - 2.0 * 15.0 / 16.0).abs() < 1e-12);
    assert!(bus > 90.0 && bus < 100.0, "busBW {bus} Gbit/s");
    // runs.csv summarizes the one iteration.
    assert_eq!(run_column(&r, "collective_bus_bw_gbps"), bus);
    assert_eq!(run_column(&r, "collective_time_ms"), completion_ms);
    let steps = table(&r, "collective_steps.csv");
    assert_eq!(steps.rows.len(), 30);
    assert!(column(steps, "paused_us").iter().all(|p| *p >= 0.0));
    assert!(column(steps, "flows").iter().all(|&f| f == 16.0));
    assert_eq!(column(c, "drops")[0], 0.0);
    // The ideal (each step's ideal FCT, chained) is within a few % of the run.
    let slowdown = column(c, "slowdown")[0];
    assert!((1.0..1.05).contains(&slowdown), "slowdown {slowdown}");
}

/// 16 MB per rank, 1 MB to each of 15 peers, all at once on a full-bisection k = 4 fat-tree:
/// (n−1)/n · S/B per host, B the NIC's payload rate (100 Gbit/s × 4096 / 4158 with RoCE's
/// headers), is 1.218 ms. Lossless: no drop. Within 10 % on each of 4 seeds.
#[test]
fn all_to_all_takes_the_closed_form_time_without_drops() {
    let cfg = shipped("collectives/all-to-all.yaml", &[]);
    let payload_rate = 100e9 * 4096.0 / 4158.0;
    let closed_ms = 15.0 / 16.0 * 16e6 * 8.0 / payload_rate * 1e3;
    for seed in 1..=4 {
        let r = run(&cfg, seed);
        let c = table(&r, "collectives.csv");
        let completion_ms = column(c, "completion_ms")[0];
        assert!(
            completion_ms > closed_ms && completion_ms < 1.10 * closed_ms,
            "seed {seed}: all-to-all {completion_ms} ms, closed form {closed_ms} ms"
        );
        assert_eq!(r.run.drops_total, 0, "seed {seed}");
        assert_eq!(column(c, "drops")[0], 0.0);
        assert_eq!(r.flows.len(), 16 * 15 * 8);
        // PFC paused the incast: the pauses are summed from pfc_flows.csv's.
        let paused: f64 = r.pfc_flows.iter().map(|f| f.paused_us).sum();
        assert!(paused > 0.0);
        assert!(
            (column(c, "paused_us")[0] - paused).abs() < 1e-6 * paused,
            "{paused}"
        );
    }
}

/// A parameter server on S1's network: every push is S1's block (16 senders × 256 KB to one
/// host at once, 32 KB of buffer, RTO_min 200 ms), and it collapses as S1 does: with S1's
/// buffer the push waits for 200 ms timeouts, with a buffer that holds the burst it does not.
/// The diagnostics put every RTO in one of their classes.
#[test]
fn parameter_server_push_collapses_like_s1() {
    let ps = |set: &[&str]| {
        let mut set = set.to_vec();
        set.push("traffic[0].iterations=3");
        run(&shipped("collectives/parameter-server.yaml", &set), 1)
    };
    let small = ps(&[]);
    let big = ps(&["topology.switch_buffer=4MB"]);
    let push_ms = |r: &RunResult| {
        let steps = table(r, "collective_steps.csv");
        let step = column(steps, "step");
        let d = column(steps, "duration_ms");
        let push: Vec<f64> = step
            .iter()
            .zip(&d)
            .filter(|(s, _)| **s == 0.0)
            .map(|(_, d)| *d)
            .collect();
        push.iter().sum::<f64>() / push.len() as f64
    };
    // 16 × 256 KB at 1 Gbit/s with headers: about 34.9 ms of link time.
    assert!(
        push_ms(&big) < 40.0,
        "a big buffer: push {} ms",
        push_ms(&big)
    );
    assert!(
        push_ms(&small) > 200.0,
        "S1's buffer: push {} ms",
        push_ms(&small)
    );
    // S1 itself, the same 16 × 256 KB per block: its blocks take as long.
    let s1 = run(&crate::common::s1(16, "200ms"), 1);
    let block_ms = s1.block_times_ms.iter().sum::<f64>() / s1.block_times_ms.len() as f64;
    assert!(block_ms > 200.0, "S1 block {block_ms} ms");
    let c = table(&small, "collectives.csv");
    assert!(column(c, "slowdown").iter().all(|&s| s > 3.0));
    // The slowest step is the push (step 0), the incast.
    assert!(column(c, "slowest_step").iter().all(|&s| s == 0.0));
    let rtos: u64 = small.flows.iter().map(|f| f.rto_count).sum();
    let classified: u64 = small
        .flows
        .iter()
        .map(|f| {
            f.rto_abtt
                + f.rto_ibtt_whole_window
                + f.rto_ibtt_partial_window
                + f.rto_ibtt_tail
                + f.rto_ibtt_retransmission
        })
        .sum();
    assert!(rtos > 0);
    assert_eq!(classified, rtos, "every RTO has a class");
    assert_eq!(column(c, "rto_count").iter().sum::<f64>(), rtos as f64);
    assert_eq!(big.flows.iter().map(|f| f.rto_count).sum::<u64>(), 0);
}

fn goal_file() -> String {
    let p = config_path("../crates/collective/tests/data/dissemination_16.goal");
    p.to_str().unwrap().to_string()
}

/// The published trace runs to completion: its 64 messages, 4 dependent rounds, each round's
/// message sent only after the previous round's arrived.
#[test]
fn a_published_goal_trace_runs() {
    let file = format!("traffic[0].file={}", goal_file());
    let r = run(&shipped("collectives/goal-trace.yaml", &[&file]), 1);
    assert_eq!(r.flows.len(), 64);
    assert!(r.flows.iter().all(|f| f.fct_ms.is_some()));
    let steps = table(&r, "collective_steps.csv");
    assert_eq!(column(steps, "flows"), vec![16.0; 4]);
    // A rank sends in round k once its round k − 1 message arrived: no round starts before
    // some message of the round before has arrived.
    let start = column(steps, "start_s");
    let end = column(steps, "end_s");
    let fct_end: Vec<f64> = r
        .flows
        .iter()
        .map(|f| f.start_s + f.fct_ms.unwrap() / 1e3)
        .collect();
    for k in 1..4 {
        let first_arrival = r
            .flows
            .iter()
            .zip(&fct_end)
            .filter(|(f, _)| f.start_s >= start[k - 1] && f.start_s < start[k])
            .map(|(_, e)| *e)
            .fold(f64::INFINITY, f64::min);
        assert!(
            start[k] >= first_arrival - 1e-9,
            "round {k} before any arrival"
        );
        assert!(end[k] > end[k - 1]);
    }
    let c = table(&r, "collectives.csv");
    assert!(column(c, "slowdown")[0] >= 0.99);
}

/// A bad trace is refused before the run, naming the file's line; bad collective settings name
/// their key and what is allowed.
#[test]
fn bad_traces_and_specs_are_refused_by_line_and_key() {
    let dir = std::env::temp_dir().join(format!("incastsim-goal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.goal");
    std::fs::write(
        &bad,
        "num_ranks 2\nrank 0 {\nl1: send 10b to 1 tag 0\nl2: frobnicate\n}\n",
    )
    .unwrap();
    let path = config_path("collectives/goal-trace.yaml");
    let load = |set: &[String]| load_checked(&path, set).expect_err("refused").to_string();
    let e = load(&[format!("traffic[0].file={}", bad.display())]);
    assert!(e.contains("traffic[0].file") && e.contains("line 4"), "{e}");
    let e = load(&[format!(
        "traffic[0].file={}",
        dir.join("none.goal").display()
    )]);
    assert!(e.contains("traffic[0].file"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();

    let ring = config_path("collectives/ring-allreduce.yaml");
    let load = |set: &str| {
        load_checked(&ring, &[set.to_string()])
            .expect_err("refused")
            .to_string()
    };
    let load2 = |a: &str, b: &str| {
        load_checked(&ring, &[a.to_string(), b.to_string()])
            .expect_err("refused")
            .to_string()
    };
    let e = load2(
        "traffic[0].algorithm=halving_doubling_allreduce",
        "traffic[0].ranks=12",
    );
    assert!(
        e.contains("traffic[0].ranks") && e.contains("power-of-two"),
        "{e}"
    );
    let e = load("traffic[0].ranks=17");
    assert!(
        e.contains("traffic[0].hosts") && e.contains("17 ranks"),
        "{e}"
    );
    let e = load("traffic[0].chunks=0");
    assert!(e.contains("traffic[0].chunks"), "{e}");
    let e = load("traffic[0].placement=[0, 1, 1]");
    assert!(
        e.contains("traffic[0].placement") && e.contains("distinct"),
        "{e}"
    );
    let e = load("traffic[0].algorithm=ring");
    assert!(e.contains("ring_allreduce"), "{e}");
}

/// Same config and seed, same tables; ranks placed per rack put ring neighbours in different
/// racks (every step crosses the fabric) and change the result.
#[test]
fn collectives_are_deterministic_and_placement_matters() {
    let cfg = shipped(
        "collectives/ring-allreduce.yaml",
        &[
            "traffic[0].size=4MB",
            "traffic[0].iterations=2",
            "traffic[0].compute=20us",
        ],
    );
    let a = run(&cfg, 7);
    let b = run(&cfg, 7);
    assert_eq!(a.probe_tables, b.probe_tables);
    assert_eq!(table(&a, "collectives.csv").rows.len(), 2);
    let per_rack = shipped(
        "collectives/ring-allreduce.yaml",
        &["traffic[0].size=4MB", "traffic[0].placement=per_rack"],
    );
    let p = run(&per_rack, 7);
    // Ring neighbours (rank i, i + 1) are in different racks: every flow leaves its rack.
    let racks = |h: u32| h / 2;
    assert!(
        p.flows
            .iter()
            .all(|f| racks(f.src_host) != racks(f.dst_host))
    );
    let in_order = shipped("collectives/ring-allreduce.yaml", &["traffic[0].size=4MB"]);
    let o = run(&in_order, 7);
    assert!(
        o.flows
            .iter()
            .any(|f| racks(f.src_host) == racks(f.dst_host))
    );
}

/// Two jobs share the fabric at once, each on its own hosts: each has its rows, and its flows
/// stay among its hosts.
#[test]
fn two_jobs_share_the_fabric_each_on_its_hosts() {
    let cfg = shipped(
        "collectives/ring-allreduce.yaml",
        &[
            "traffic=[{kind: collective, algorithm: ring_allreduce, size: 2MB, hosts: \"host:0-7\"}, {kind: collective, algorithm: pairwise_all_to_all, size: 2MB, hosts: \"host:8-15\", placement: random}]",
        ],
    );
    let r = run(&cfg, 3);
    let c = table(&r, "collectives.csv");
    assert_eq!(column(c, "job"), vec![0.0, 1.0]);
    assert_eq!(column(c, "ranks"), vec![8.0, 8.0]);
    for f in &r.flows {
        let job = f.generator.expect("generated");
        let range = if job == 0 { 0..8 } else { 8..16 };
        assert!(
            range.contains(&f.src_host) && range.contains(&f.dst_host),
            "{job}: {} -> {}",
            f.src_host,
            f.dst_host
        );
    }
    assert_eq!(r.flows.len(), 2 * 7 * 8 + 8 * 7);
    assert!(column(c, "completion_ms").iter().all(|t| *t > 0.0));
}
