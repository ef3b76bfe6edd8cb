//! Criterion benchmarks on the standard scenarios (../shared/benchmarks.md).
//!
//! `cargo bench -p incastsim-benches` — each iteration is one whole run, single-threaded:
//! - S3 `bulk-dumbbell`: 16 NewReno flows at 10 Gbps for 1 s simulated (~2.4 M packets), and its
//!   CUBIC+SACK and DCTCP variants;
//! - S1 `incast-classic` at N = 64 (100 blocks of 256 KB, RTO_min 200 ms) and N = 16;
//! - S4 `outcast-fattree` (k = 4 fat-tree, 15 CUBIC flows, 1 s of its 10 s);
//! - `websearch-fattree`: Poisson web-search flows on a k = 8 fat-tree at load 0.5.

use criterion::{Criterion, criterion_group, criterion_main};
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

fn run(cfg: &Config) -> u64 {
    let mut sim = Simulation::new(cfg, cfg.seed).expect("shipped config plans");
    sim.run();
    sim.events_processed()
}

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

criterion_group!(benches, scenarios);
criterion_main!(benches);
