//! The template's reactive traffic generator, `barrier_waves`, through this crate's binary:
//! wave k + 1 starts `gap` after the last flow of wave k finished (read back from flows.csv),
//! every wave has one flow per source, and the outputs are byte-identical run after run and
//! whatever a sweep's thread count.

mod common;
use common::{cli, scratch};

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A star of 4 senders (hosts 0-3) and the receiver (host 4), 1 Gbps, 25 us links: 3 waves of
/// 20 KB from each sender, 100 us apart. The traffic workload's arrivals end at 1 ms, before
/// the last wave: the run drains, so it waits for the waves added meanwhile.
const WAVES: &str = r#"
name: waves
senders: 4
topology: {kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 100KB}
tcp: {mss: 1460B, header: 40B, initial_cwnd: 2, rto_min: 10ms, delayed_ack: {enabled: false}}
workload: {kind: traffic, duration: 1ms}
traffic:
  - {name: barrier_waves, waves: 3, size: 20KB, gap: 100us}
"#;

fn write_config(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("waves.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

/// `file` (a CSV) as maps from column to value, one per row.
fn rows(file: &Path) -> Vec<HashMap<String, String>> {
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

fn num(row: &HashMap<String, String>, key: &str) -> f64 {
    row[key]
        .parse()
        .unwrap_or_else(|_| panic!("{key} = {:?}", row[key]))
}

/// Checks the waves of one run's flows (in flow order): `waves` waves of 4 flows, each from
/// hosts 0-3 to host 4, complete; each wave's first start is the previous wave's last finish
/// plus the gap (to the picosecond the CSV keeps).
fn check_waves(flows: &[&HashMap<String, String>], waves: usize, gap_s: f64) {
    assert_eq!(flows.len(), 4 * waves);
    let mut last_finish: Option<f64> = None;
    for (k, wave) in flows.chunks(4).enumerate() {
        let mut first_start = f64::INFINITY;
        let mut finish = 0.0f64;
        for (i, f) in wave.iter().enumerate() {
            assert_eq!(f["kind"], "barrier_waves");
            assert_eq!(f["src_host"], i.to_string(), "wave {k}");
            assert_eq!(f["dst_host"], "4");
            assert_eq!(f["bytes_delivered"], "20000", "wave {k} flow {i} completes");
            assert!(!f["slowdown"].is_empty() && !f["ideal_fct_ms"].is_empty());
            let start = num(f, "start_s");
            first_start = first_start.min(start);
            finish = finish.max(start + num(f, "fct_ms") / 1e3);
        }
        if let Some(prev) = last_finish {
            assert!(
                first_start >= prev + gap_s - 1e-12,
                "wave {k} starts at {first_start}, the previous one finished at {prev}"
            );
            assert!(
                (first_start - (prev + gap_s)).abs() < 1e-9,
                "wave {k}: not started by the barrier"
            );
        } else {
            assert_eq!(first_start, 0.0);
        }
        last_finish = Some(finish);
    }
}

#[test]
fn each_wave_starts_when_the_previous_one_has_finished() {
    let dir = scratch("waves", "run");
    let cfg = write_config(&dir, WAVES);
    let (a, b) = (dir.join("a"), dir.join("b"));
    for out in [&a, &b] {
        cli(&["run", cfg.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    }
    let flows = rows(&a.join("flows.csv"));
    check_waves(&flows.iter().collect::<Vec<_>>(), 3, 100e-6);
    let runs = rows(&a.join("runs.csv"));
    assert_eq!(runs[0]["completed"], "true");
    assert_eq!(runs[0]["flows_finite"], "12");
    assert_eq!(runs[0]["flows_completed"], "12");
    // The generator's own values (its reactor's, declared as VALUE_NAMES): runs.csv columns.
    assert_eq!(num(&runs[0], "traffic[0].waves_completed"), 3.0);
    let last_finish_ms = flows
        .iter()
        .map(|f| num(f, "start_s") * 1e3 + num(f, "fct_ms"))
        .fold(0.0, f64::max);
    let barrier_ms: f64 = runs[0]["traffic[0].last_barrier_ms"].parse().unwrap();
    assert!(
        (barrier_ms - last_finish_ms).abs() < 1e-6,
        "{barrier_ms} vs {last_finish_ms}"
    );
    // Determinism: the second run's files are the first's, byte for byte.
    for file in ["flows.csv", "runs.csv", "ports.csv"] {
        assert_eq!(
            std::fs::read(a.join(file)).unwrap(),
            std::fs::read(b.join(file)).unwrap(),
            "{file} differs between two runs"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A sweep over the gap and the number of waves, 2 seeds each, on one thread and on two: the
/// same files, and every run's waves right.
#[test]
fn a_sweep_runs_the_waves_the_same_on_any_thread_count() {
    let dir = scratch("waves", "sweep");
    let cfg = write_config(
        &dir,
        &format!(
            "{WAVES}sweep:\n  seeds: 2\n  grid:\n    traffic[0].gap: [0us, 200us]\n    traffic[0].waves: [2, 4]\n"
        ),
    );
    let (one, two) = (dir.join("one"), dir.join("two"));
    for (out, jobs) in [(&one, "1"), (&two, "2")] {
        cli(&[
            "sweep",
            cfg.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--jobs",
            jobs,
        ]);
    }
    for file in ["flows.csv", "runs.csv"] {
        assert_eq!(
            std::fs::read(one.join(file)).unwrap(),
            std::fs::read(two.join(file)).unwrap(),
            "{file} differs between --jobs 1 and --jobs 2"
        );
    }
    let runs = rows(&one.join("runs.csv"));
    assert_eq!(runs.len(), 8);
    let flows = rows(&one.join("flows.csv"));
    for run in &runs {
        let waves: usize = run["traffic[0].waves"].parse().unwrap();
        let gap_s = match run["traffic[0].gap"].as_str() {
            "0us" | "0s" => 0.0,
            "200us" => 200e-6,
            other => panic!("gap {other}"),
        };
        assert_eq!(run["completed"], "true");
        assert_eq!(run["flows_finite"], (4 * waves).to_string());
        // Declared before the sweep's first run, so its runs.csv has the column.
        assert_eq!(num(run, "traffic[0].waves_completed"), waves as f64);
        let mine: Vec<&HashMap<String, String>> = flows
            .iter()
            .filter(|f| f["point"] == run["point"] && f["replicate"] == run["replicate"])
            .collect();
        check_waves(&mine, waves, gap_s);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
