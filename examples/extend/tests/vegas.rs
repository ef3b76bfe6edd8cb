//! `vegas`, a delay-based controller written against the public controller trait: it reads
//! every ACK's own RTT sample (`on_ack_sample`) with `tcp.ecn` off, and holds α to β of each
//! flow's packets in the bottleneck queue (Brakmo & Peterson 1995, §3.2), where NewReno fills
//! the buffer and drops. Runs go through this crate's binary, in `run` and in `sweep`.

mod common;
use common::{cli, config, scratch};

use std::path::Path;

/// The bottleneck port's (`switch0->host<N>`) mean queue in bytes and its drops, from
/// ports.csv.
fn bottleneck(out: &Path, senders: usize) -> (f64, u64) {
    let mut r = csv::Reader::from_path(out.join("ports.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |name: &str| h.iter().position(|c| c == name).unwrap();
    let (from, to, mean, drops) = (
        col("from_node"),
        col("to_node"),
        col("mean_queue_bytes"),
        col("drops_buffer"),
    );
    let receiver = format!("host{senders}");
    let row = r
        .records()
        .map(Result::unwrap)
        .find(|row| &row[from] == "switch0" && row[to] == receiver)
        .expect("the bottleneck port");
    (row[mean].parse().unwrap(), row[drops].parse().unwrap())
}

fn run(out: &Path, senders: usize, seed: u64, cc: &str) {
    cli(&[
        "run",
        config("bulk-dumbbell.yaml").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--set",
        &format!("senders={senders}"),
        "--set",
        &format!("seed={seed}"),
        "--set",
        "workload.duration=0.2s",
        "--set",
        &format!("tcp.congestion_control={cc}"),
        // Timing noise, so that the result is not a phase artifact.
        "--set",
        "topology.switch_delay_jitter=1us",
    ]);
}

/// S3's dumbbell (10 Gb/s, 256 KB drop-tail, 1040 B packets, 1 µs switch-delay jitter),
/// `tcp.ecn` off: with Vegas's
/// α = 2, β = 4 the bottleneck holds about 2 to 4 packets per flow on average (slow start's
/// overshoot included) and drops nothing; NewReno keeps it near full and drops.
#[test]
fn vegas_holds_alpha_to_beta_packets_per_flow_in_the_queue() {
    let dir = scratch("vegas", "queue");
    for (senders, seed) in [(4, 1), (8, 2), (8, 3)] {
        let out = dir.join(format!("vegas-{senders}"));
        run(&out, senders, seed, "vegas");
        let (mean, drops) = bottleneck(&out, senders);
        let per_flow = mean / 1040.0 / senders as f64;
        assert!(
            (1.5..=4.5).contains(&per_flow),
            "{senders} flows: {per_flow:.2} packets per flow queued"
        );
        assert_eq!(drops, 0, "{senders} flows");
        let flows = std::fs::read_to_string(out.join("flows.csv")).unwrap();
        assert!(flows.contains(",vegas,"), "the controller column names it");
    }
    let reno = dir.join("newreno");
    run(&reno, 4, 1, "newreno");
    let (mean, drops) = bottleneck(&reno, 4);
    assert!(mean / 1040.0 > 100.0 && drops > 0, "{mean} {drops}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Its parameters are checked and sweepable, and a sweep over them runs through the binary.
#[test]
fn vegas_sweeps_over_its_own_parameters() {
    let dir = scratch("vegas", "sweep");
    let text = std::fs::read_to_string(config("bulk-dumbbell.yaml")).unwrap()
        + "\nsweep: {seeds: 1, grid: {tcp.congestion_control.beta: [4, 8]}}\n";
    let yaml = dir.join("vegas.yaml");
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
        "senders=4",
        "--set",
        "workload.duration=0.05s",
        "--set",
        "tcp.congestion_control=vegas",
    ]);
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 3, "{runs}");
    assert!(runs.contains("vegas"), "{runs}");
    let bad = common::error(&["tcp.congestion_control={name: vegas, alpha: 3, beta: 2}"]);
    assert!(
        bad.starts_with("tcp.congestion_control.beta = 2: a number of packets ≥ alpha"),
        "{bad}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The controller's own values (`base_rtt_us`, `vegas_diff_packets`) reach flows.csv (a final
/// snapshot per flow, finished ones included), timeseries.csv (sampled flows) and a sweep's
/// flows.csv, whose header declared them before its first run.
#[test]
fn vegas_values_reach_flows_timeseries_and_sweeps() {
    let dir = scratch("vegas", "values");
    let out = dir.join("run");
    cli(&[
        "run",
        config("bulk-dumbbell.yaml").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--set",
        "senders=2",
        "--set",
        "workload.duration=0.02s",
        "--set",
        "tcp.congestion_control=vegas",
        "--set",
        "time_series={interval: 1ms, flows: [0]}",
    ]);
    let mut flows = csv::Reader::from_path(out.join("flows.csv")).unwrap();
    let h = flows.headers().unwrap().clone();
    let base = h.iter().position(|c| c == "base_rtt_us").expect("a column");
    assert!(h.iter().any(|c| c == "vegas_diff_packets"), "{h:?}");
    for row in flows.records().map(Result::unwrap) {
        // The path's RTT: 4 hops of 10 µs propagation plus serialization, at least 40 µs.
        let v: f64 = row[base].parse().unwrap();
        assert!((40.0..60.0).contains(&v), "base RTT {v} µs");
    }
    let series = std::fs::read_to_string(out.join("timeseries.csv")).unwrap();
    let samples = series
        .lines()
        .filter(|l| l.contains(",base_rtt_us,"))
        .count();
    assert!(samples >= 19, "{samples} samples of base_rtt_us");

    // A sweep keeps the columns.
    let text = std::fs::read_to_string(config("bulk-dumbbell.yaml")).unwrap()
        + "\nsweep: {seeds: 2, grid: {senders: [2, 3]}}\n";
    let yaml = dir.join("vegas.yaml");
    std::fs::write(&yaml, text).unwrap();
    let swept = dir.join("sweep");
    cli(&[
        "sweep",
        yaml.to_str().unwrap(),
        "--out",
        swept.to_str().unwrap(),
        "--jobs",
        "2",
        "--set",
        "workload.duration=0.01s",
        "--set",
        "tcp.congestion_control=vegas",
    ]);
    let flows = std::fs::read_to_string(swept.join("flows.csv")).unwrap();
    let header = flows.lines().next().unwrap();
    assert!(
        header.contains("base_rtt_us,vegas_diff_packets"),
        "{header}"
    );
    assert_eq!(flows.lines().count(), 1 + 2 * (2 + 3), "{flows}");
    std::fs::remove_dir_all(&dir).unwrap();
}
