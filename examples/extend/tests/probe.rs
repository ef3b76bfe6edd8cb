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

/// `file` (a CSV) as maps from column to value, one per row.
fn rows(file: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(file).unwrap();
    let headers = r.headers().unwrap().clone();
    r.records()
        .map(|row| {
            headers
                .iter()
                .map(str::to_string)
                .zip(row.unwrap().iter().map(str::to_string))
                .collect()
        })
        .collect()
}

/// The incast of four senders, with the queue-length histogram.
fn histogram_config(extra: &str) -> String {
    TWO_SERVERS
        .replace("senders: 2", "senders: 4")
        .replace("sru: 2000B", "sru: 20000B")
        .replace(
            "probes: [{name: mean_queueing_delay}]",
            "probes: [{name: queue_histogram}]",
        )
        + extra
}

/// In a run, the histogram's ports are ports.csv's (by name, from the hooks' `PortView`): per
/// port its admissions add up to `packets_enqueued` and its longest queue is
/// `max_queue_packets`.
#[test]
fn the_queue_histogram_agrees_with_ports_csv() {
    let dir = scratch("probe", "histogram-run");
    let yaml = dir.join("hist.yaml");
    std::fs::write(&yaml, histogram_config("")).unwrap();
    let out = dir.join("out");
    cli(&[
        "run",
        yaml.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let hist = rows(&out.join("queue_histogram.csv"));
    let ports = rows(&out.join("ports.csv"));
    let mut seen = 0;
    for p in &ports {
        let name = format!("{}->{}", p["from_node"], p["to_node"]);
        let mine: Vec<_> = hist.iter().filter(|h| h["port"] == name).collect();
        let enqueued: u64 = p["packets_enqueued"].parse().unwrap();
        let admissions: u64 = mine
            .iter()
            .map(|h| h["admissions"].parse::<u64>().unwrap())
            .sum();
        assert_eq!(admissions, enqueued, "{name}");
        if enqueued > 0 {
            seen += 1;
            let longest = mine
                .iter()
                .map(|h| h["queue_packets"].parse::<u32>().unwrap())
                .max();
            assert_eq!(
                longest.unwrap().to_string(),
                p["max_queue_packets"],
                "{name}"
            );
            assert!(mine.iter().all(|h| h["rate_bps"] == "1000000000"));
        }
    }
    assert_eq!(
        seen,
        hist.iter()
            .map(|h| &h["port"])
            .collect::<std::collections::HashSet<_>>()
            .len()
    );
    assert!(seen >= 5, "four NICs and the switch's port to the client");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A sweep writes the probe's own table: one file, `point` and `replicate` first, every run's
/// rows sorted by run; resuming a finished sweep leaves it as it was.
#[test]
fn the_queue_histogram_table_survives_a_sweep() {
    let dir = scratch("probe", "histogram-sweep");
    let yaml = dir.join("hist-sweep.yaml");
    let text = histogram_config("sweep: {seeds: 2, grid: {senders: [2, 4]}}\n");
    std::fs::write(&yaml, text).unwrap();
    let out = dir.join("out");
    let args = [
        "sweep",
        yaml.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    cli(&args);
    let file = out.join("queue_histogram.csv");
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        text.lines().next().unwrap(),
        "point,replicate,port,rate_bps,queue_packets,admissions"
    );
    let hist = rows(&file);
    let runs: Vec<(String, String)> = hist
        .iter()
        .map(|h| (h["point"].clone(), h["replicate"].clone()))
        .collect();
    let mut sorted = runs.clone();
    sorted.sort();
    assert_eq!(runs, sorted, "sorted by run");
    sorted.dedup();
    assert_eq!(sorted.len(), 4, "rows of every run: {sorted:?}");
    // Each run's admissions at the switch's port to the client: every data packet of the
    // block (20 000 B in 1000 B segments from each sender), more with retransmissions.
    for (point, senders) in [("0", 2u64), ("1", 4)] {
        for rep in ["0", "1"] {
            let to_client: u64 = hist
                .iter()
                .filter(|h| h["point"] == point && h["replicate"] == rep)
                .filter(|h| {
                    h["port"].starts_with("switch")
                        && h["port"].ends_with(&format!("host{senders}"))
                })
                .map(|h| h["admissions"].parse::<u64>().unwrap())
                .sum();
            assert!(
                to_client >= 20 * senders,
                "point {point} rep {rep}: {to_client}"
            );
        }
    }
    // Resumed with nothing to do: the same file.
    cli(&args);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    std::fs::remove_dir_all(&dir).unwrap();
}
