//! The template's probe (`mean_queueing_delay`) through this crate's binary (`main_with`), as
//! a user runs it: its column is right on a hand-worked case, in a run and in a sweep.

mod common;
use common::{cli, scratch};

use std::path::Path;

/// Column `name` of a CSV file.
fn column(file: &Path, name: &str) -> Vec<String> {
    let mut r = csv::Reader::from_path(file).unwrap();
    let i = r.headers().unwrap().iter().position(|c| c == name);
    let i = i.unwrap_or_else(|| panic!("{}: no column {name}", file.display()));
    r.records().map(|row| row.unwrap()[i].to_string()).collect()
}

/// Two servers answer one block of 2 segments each (1000 B + 40 B headers = 8.32 µs at
/// 1 Gbps), no start jitter, IW 2 (both segments at once).
const TWO_SERVERS: &str = "
name: probe-hand
seed: 1
senders: 2
topology: {kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 100KB}
tcp: {mss: 1000B, header: 40B, initial_cwnd: 2, delayed_ack: {enabled: false}}
workload: {kind: synchronized_reads, sru: 2000B, blocks: 1, request_size: 40B, start_jitter: 0us}
probes: [{name: mean_queueing_delay}]
";

/// By hand: the client's two 40 B requests leave its NIC 0.32 µs apart, so server 1 starts
/// 0.32 µs after server 0. At each server's NIC the second segment waits for the first's
/// 8.32 µs. At the switch's port to the client (A = server 0's first segment's arrival):
/// f0 seg 1 arrives at A and leaves at once (0); f1 seg 1 arrives at A + 0.32 and waits until
/// A + 8.32 (8.00); f0 seg 2 arrives at A + 8.32 and waits until A + 16.64 (8.32); f1 seg 2
/// arrives at A + 8.64 and waits until A + 24.96 (16.32). Means over each flow's 4 hops:
/// flow 0 (0 + 8.32 + 0 + 8.32) / 4 = 4.16 µs, flow 1 (0 + 8.32 + 8.00 + 16.32) / 4 = 8.16 µs.
const HAND_WORKED: [f64; 2] = [4.16, 8.16];

fn assert_hand_worked(values: &[String]) {
    assert_eq!(values.len(), 2, "{values:?}");
    for (v, want) in values.iter().zip(HAND_WORKED) {
        let v: f64 = v.parse().unwrap();
        assert!((v - want).abs() < 1e-9, "{values:?}");
    }
}

#[test]
fn mean_queueing_delay_is_right_on_the_hand_worked_case() {
    let dir = scratch("probe", "run");
    let yaml = dir.join("two.yaml");
    std::fs::write(&yaml, TWO_SERVERS).unwrap();
    let out = dir.join("out");
    cli(&[
        "run",
        yaml.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_hand_worked(&column(&out.join("flows.csv"), "mean_queueing_delay_us"));
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(manifest.contains("mean_queueing_delay"), "{manifest}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mean_queueing_delay_is_a_column_of_a_sweep() {
    let dir = scratch("probe", "sweep");
    let yaml = dir.join("two-sweep.yaml");
    // Point 0 is the hand-worked case; point 1 has four senders.
    let text = format!("{TWO_SERVERS}sweep: {{seeds: 1, grid: {{senders: [2, 4]}}}}\n");
    std::fs::write(&yaml, text).unwrap();
    let out = dir.join("out");
    cli(&[
        "sweep",
        yaml.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let flows = out.join("flows.csv");
    let points = column(&flows, "point");
    let delays = column(&flows, "mean_queueing_delay_us");
    assert_eq!(points, ["0", "0", "1", "1", "1", "1"]);
    assert_hand_worked(&delays[..2]);
    // More senders, more waiting: every flow of point 1 has a delay, their mean above point 0's.
    let four: Vec<f64> = delays[2..].iter().map(|v| v.parse().unwrap()).collect();
    assert!(
        four.iter().sum::<f64>() / 4.0 > (4.16 + 8.16) / 2.0,
        "{four:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
