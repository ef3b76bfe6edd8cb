//! Criterion benchmarks on the standard scenarios (../shared/benchmarks.md).
//!
//! `cargo bench -p incastsim-benches` — each iteration is one run, single-threaded. Groups (pick
//! some with a filter: `cargo bench -p incastsim-benches -- scenarios/`):
//! - `scenarios`, whole runs (set-up included):
//!   - S3 `bulk-dumbbell`: 16 NewReno flows at 10 Gbps for 1 s simulated (~2.4 M packets), and
//!     its CUBIC+SACK and DCTCP variants;
//!   - S1 `incast-classic` at N = 64 (100 blocks of 256 KB, RTO_min 200 ms) and N = 16;
//!   - S4 `outcast-fattree` (k = 4 fat-tree, 15 CUBIC flows, 1 s of its 10 s);
//!   - `websearch-fattree`: Poisson web-search flows on a k = 8 fat-tree at load 0.5.
//! - `websearch-scale`: the same web-search workload at k = 8, 16, 32 (128, 1,024 and 8,192
//!   hosts, every host a sender), arrivals for 0.1 s, 0.01 s and 0.002 s (438, 339 and 571
//!   flows at seed 1, drained; 6.7 M, 5.5 M and 8.4 M events). The event loop only (set-up
//!   excluded), with its events as the throughput, so criterion reports events/s: the goal is a
//!   flat per-event cost. Counting the events takes one run of each before the group (~15 s and
//!   1.6 GB at k = 32), even when a filter leaves the group out.
//! - `shared-buffer`: S3 with static per-port buffers (256 KB) against S3 whose switch has one
//!   shared buffer of 512 KB with Dynamic Threshold α = 1 (so the bottleneck queue may also
//!   reach 256 KB): the event loop, with its events as the throughput (the dynamics differ a
//!   little, so compare events/s). Issue 15's bound: shared within 5 % of static.
//! - `roce`: the web-search run at 100 Gbps over RoCE with PFC, against TCP lossy (NewReno on
//!   drop-tail, and DCTCP on the RED/ECN marking the controlled runs use), RoCE lossy (IRN)
//!   alone and under DCQCN, and RoCE with PFC under DCQCN, HPCC and TIMELY: the event loop,
//!   events as the throughput.
//! - `set-up`: building the run alone (topology, routes, flows) for those fat-trees and S5.
//! - `S5` `fattree-k32-cubic`: 4,096 CUBIC flows of 1 MB on a k = 32 fat-tree, until all
//!   complete; the event loop only (36.9 M events). About 29 s per run on this 2-core machine
//!   (set-up 0.3 s, peak memory ~170 MB), so run it on its own with
//!   `cargo bench -p incastsim-benches -- S5/`.
//!
//! - `S6` and `S7`: the RDMA fat-tree (against the same arrivals over TCP) and the 1,024-rank
//!   all-to-all, whole (10-20 s per run): only when a filter names them (`-- S6/`, `-- S7/`).
//!
//! The slow groups use flat sampling: 10 samples of one run each when a run takes seconds
//! (plus the warm-up).

use criterion::{BatchSize, Criterion, SamplingMode, Throughput, criterion_group};
use incastsim::scenario::{Config, Simulation};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

fn config(name: &str, overrides: &[&str]) -> Config {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../configs")
        .join(name);
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    incastsim::scenario::load_checked(&path, &o).expect("shipped config")
}

fn setup(cfg: &Config) -> Simulation {
    Simulation::new(cfg, cfg.seed).expect("shipped config plans")
}

fn run(cfg: &Config) -> u64 {
    let mut sim = setup(cfg);
    sim.run();
    sim.events_processed()
}

/// The event loop of a set-up run; returns the simulation so that dropping it is not timed.
fn event_loop(mut sim: Simulation) -> Simulation {
    sim.run();
    sim
}

/// `websearch-fattree.yaml` on a k-ary fat-tree, every host but the receiver a sender, with
/// `duration` of arrivals.
fn websearch(k: u32, duration: &str) -> Config {
    let senders = format!("senders={}", k * k * k / 4 - 1);
    let k = format!("topology.k={k}");
    let duration = format!("workload.duration={duration}");
    config("websearch-fattree.yaml", &[&k, &senders, &duration])
}

const WEBSEARCH_SCALE: &[(u32, &str)] = &[(8, "0.1s"), (16, "0.01s"), (32, "0.002s")];

fn scenarios(c: &mut Criterion) {
    let mut g = c.benchmark_group("scenarios");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    let s3 = config("bulk-dumbbell.yaml", &[]);
    g.bench_function("S3 bulk-dumbbell 16x10G 1s", |b| {
        b.iter(|| black_box(run(&s3)))
    });
    let s3_cubic = config("bulk-dumbbell-cubic.yaml", &[]);
    g.bench_function("S3 CUBIC+SACK", |b| b.iter(|| black_box(run(&s3_cubic))));
    let s3_dctcp = config("bulk-dumbbell-dctcp.yaml", &[]);
    g.bench_function("S3 DCTCP K=65", |b| b.iter(|| black_box(run(&s3_dctcp))));
    let s1_64 = config("incast-classic.yaml", &["senders=64"]);
    g.bench_function("S1 incast-classic N=64", |b| {
        b.iter(|| black_box(run(&s1_64)))
    });
    let s1_16 = config("incast-classic.yaml", &["senders=16"]);
    g.bench_function("S1 incast-classic N=16", |b| {
        b.iter(|| black_box(run(&s1_16)))
    });
    let s4 = config("outcast-fattree.yaml", &["workload.duration=1s"]);
    g.bench_function("S4 outcast-fattree 1s", |b| b.iter(|| black_box(run(&s4))));
    let web = config("websearch-fattree.yaml", &[]);
    g.bench_function("websearch k=8 load 0.5", |b| {
        b.iter(|| black_box(run(&web)))
    });
    g.finish();
}

fn websearch_scale(c: &mut Criterion) {
    let mut g = c.benchmark_group("websearch-scale");
    g.sample_size(10).sampling_mode(SamplingMode::Flat);
    for &(k, duration) in WEBSEARCH_SCALE {
        let cfg = websearch(k, duration);
        g.throughput(Throughput::Elements(run(&cfg)));
        g.bench_function(format!("k={k} {duration} event loop"), |b| {
            b.iter_batched(|| setup(&cfg), event_loop, BatchSize::PerIteration)
        });
    }
    g.finish();
}

fn shared_buffer(c: &mut Criterion) {
    let mut g = c.benchmark_group("shared-buffer");
    g.sample_size(10).sampling_mode(SamplingMode::Flat);
    let static_s3 = config("bulk-dumbbell.yaml", &[]);
    let shared_s3 = config(
        "bulk-dumbbell.yaml",
        &["topology.shared_buffer={size: 512KB, alpha: 1}"],
    );
    for (name, cfg) in [
        ("S3 static 256KB", &static_s3),
        ("S3 shared 512KB a=1", &shared_s3),
    ] {
        g.throughput(Throughput::Elements(run(cfg)));
        g.bench_function(format!("{name} event loop"), |b| {
            b.iter_batched(|| setup(cfg), event_loop, BatchSize::PerIteration)
        });
    }
    g.finish();
}

/// RoCE with PFC at 100 Gbps (issue 40): web-search arrivals at load 0.5 on the k = 8
/// fat-tree (`websearch-fattree.yaml`), every flow a go-back-N queue pair on lossless priority
/// 1, 1 µs links, dynamic XOFF; beside it the same arrivals over lossy TCP at 100 Gbps.
fn roce(c: &mut Criterion) {
    let mut g = c.benchmark_group("roce");
    g.sample_size(10).sampling_mode(SamplingMode::Flat);
    let base = [
        "topology.link_rate=100Gbps",
        "topology.link_delay=1us",
        "topology.switch_buffer=1MB",
        "topology.priority_classes=2",
        "workload.duration=1ms",
    ];
    let mut roce_sets = base.to_vec();
    roce_sets.extend([
        "tcp.dscp=1",
        "tcp.transport=roce",
        "pfc={priorities: [1], dynamic: {alpha: 2^-3, pool: 12MB}}",
    ]);
    let roce = config("websearch-fattree.yaml", &roce_sets);
    let tcp = config("websearch-fattree.yaml", &base);
    // The same RoCE run under each RDMA controller (issue 41): DCQCN on RED/ECN marking with
    // the paper's thresholds, HPCC on in-band telemetry, TIMELY on RTTs.
    let with_cc = |cc: &str| {
        let mut sets = roce_sets.to_vec();
        let transport = format!("tcp.transport={{kind: roce, congestion_control: {cc}}}");
        sets.push(&transport);
        sets.push(
            "topology.switch_queue={kind: red, min_th: 5KB, max_th: 200KB, max_p: 0.01, w_q: 1, gentle: false, ecn: true}",
        );
        config("websearch-fattree.yaml", &sets)
    };
    let (dcqcn, hpcc, timely) = (with_cc("dcqcn"), with_cc("hpcc"), with_cc("timely"));
    // RoCE without PFC (IRN's selective repeat), alone and under DCQCN: the transport's own
    // per-event cost against TCP's, PFC's apart.
    let mut lossy_sets = base.to_vec();
    lossy_sets.extend(["tcp.dscp=1", "tcp.transport={kind: roce, recovery: irn}"]);
    let irn = config("websearch-fattree.yaml", &lossy_sets);
    let mut dcqcn_lossy_sets = base.to_vec();
    dcqcn_lossy_sets.extend([
        "tcp.dscp=1",
        "tcp.transport={kind: roce, recovery: irn, congestion_control: dcqcn}",
        "topology.switch_queue={kind: red, min_th: 5KB, max_th: 200KB, max_p: 0.01, w_q: 1, gentle: false, ecn: true}",
    ]);
    let irn_dcqcn = config("websearch-fattree.yaml", &dcqcn_lossy_sets);
    // The TCP twin of the controlled runs: DCTCP on the same RED/ECN marking, so that both
    // sides pay for the marking discipline.
    let mut dctcp_sets = base.to_vec();
    dctcp_sets.extend([
        "tcp.congestion_control=dctcp",
        "topology.switch_queue={kind: red, min_th: 5KB, max_th: 200KB, max_p: 0.01, w_q: 1, gentle: false, ecn: true}",
    ]);
    let dctcp = config("websearch-fattree.yaml", &dctcp_sets);
    for (name, cfg) in [
        ("websearch k=8 100G RoCE+PFC 1ms", &roce),
        ("websearch k=8 100G TCP lossy 1ms", &tcp),
        ("websearch k=8 100G DCTCP RED lossy 1ms", &dctcp),
        ("websearch k=8 100G RoCE IRN lossy 1ms", &irn),
        ("websearch k=8 100G RoCE IRN DCQCN lossy 1ms", &irn_dcqcn),
        ("websearch k=8 100G RoCE+PFC DCQCN 1ms", &dcqcn),
        ("websearch k=8 100G RoCE+PFC HPCC 1ms", &hpcc),
        ("websearch k=8 100G RoCE+PFC TIMELY 1ms", &timely),
    ] {
        g.throughput(Throughput::Elements(run(cfg)));
        g.bench_function(format!("{name} event loop"), |b| {
            b.iter_batched(|| setup(cfg), event_loop, BatchSize::PerIteration)
        });
    }
    g.finish();
}

fn set_up(c: &mut Criterion) {
    let mut g = c.benchmark_group("set-up");
    g.sample_size(10).sampling_mode(SamplingMode::Flat);
    for &(k, duration) in WEBSEARCH_SCALE {
        let cfg = websearch(k, duration);
        g.bench_function(format!("websearch k={k}"), |b| {
            b.iter_batched(|| (), |()| setup(&cfg), BatchSize::PerIteration)
        });
    }
    let s5 = config("fattree-k32-cubic.yaml", &[]);
    g.bench_function("S5 k=32", |b| {
        b.iter_batched(|| (), |()| setup(&s5), BatchSize::PerIteration)
    });
    g.finish();
}

/// S5 at full size: slow today (see the module doc), so in a group of its own.
fn s5(c: &mut Criterion) {
    let mut g = c.benchmark_group("S5");
    g.sample_size(10).sampling_mode(SamplingMode::Flat);
    let s5 = config("fattree-k32-cubic.yaml", &[]);
    g.bench_function("fattree-k32-cubic event loop", |b| {
        b.iter_batched(|| setup(&s5), event_loop, BatchSize::PerIteration)
    });
    g.finish();
}

/// S6 (`rdma-fattree-k8`: RoCE + PFC + DCQCN on a k = 8 fat-tree at 100 Gbps, web search at
/// 30 % plus 60-sender incast groups, 10 ms of arrivals) against the same arrivals over lossy
/// TCP (NewReno with SACK, no PFC, the same switches marking nothing TCP reacts to), and S7
/// (`alltoall-k16`: the 1,024-rank pairwise all-to-all). The event loop, events as the
/// throughput; each run takes 10-20 s, so they run only when a filter names them:
/// `cargo bench -p incastsim-benches -- S6/` (or `S7/`).
fn s6_s7(c: &mut Criterion) {
    // Opt-in: counting their events alone takes a minute, which no other filter should pay.
    let named = |group: &str| {
        std::env::args()
            .skip(1)
            .any(|a| !a.starts_with('-') && a.contains(group))
    };
    if named("S6") {
        s6(c);
    }
    if named("S7") {
        s7(c);
    }
}

fn s6(c: &mut Criterion) {
    let mut g = c.benchmark_group("S6");
    g.sample_size(10).sampling_mode(SamplingMode::Flat);
    let s6 = config("rdma-fattree-k8.yaml", &[]);
    let s6_tcp = config(
        "rdma-fattree-k8.yaml",
        &[
            "tcp.transport=tcp",
            "tcp.dscp=0",
            "pfc=null",
            "topology.shared_buffer=null",
            "topology.switch_queue={kind: drop_tail}",
            "tcp.loss_recovery=sack",
            "tcp.mss=1000B",
        ],
    );
    for (name, cfg) in [
        ("rdma-fattree-k8 event loop", &s6),
        ("rdma-fattree-k8 over TCP event loop", &s6_tcp),
    ] {
        g.throughput(Throughput::Elements(run(cfg)));
        g.bench_function(name, |b| {
            b.iter_batched(|| setup(cfg), event_loop, BatchSize::PerIteration)
        });
    }
    g.finish();
}

fn s7(c: &mut Criterion) {
    let mut g = c.benchmark_group("S7");
    g.sample_size(10).sampling_mode(SamplingMode::Flat);
    let s7 = config("alltoall-k16.yaml", &[]);
    g.throughput(Throughput::Elements(run(&s7)));
    g.bench_function("alltoall-k16 event loop", |b| {
        b.iter_batched(|| setup(&s7), event_loop, BatchSize::PerIteration)
    });
    g.finish();
}

criterion_group!(
    benches,
    scenarios,
    websearch_scale,
    shared_buffer,
    roce,
    set_up,
    s5,
    s6_s7
);
/// `criterion_main!` with the heap on 2 MiB pages first, as the `incastsim` binary has it
/// (`incastsim::host`), so the benchmarks measure what a user runs.
fn main() {
    incastsim::host::reexec_with_huge_pages();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
