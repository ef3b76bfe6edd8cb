//! Helpers shared by the scenario tests.
#![allow(dead_code)]

use incastsim_scenario::{Config, RunResult, load_checked, run_once};
use std::path::PathBuf;

pub fn config_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../configs")
        .join(name)
}

/// Loads a shipped config with overrides (panics with the error message if invalid).
pub fn shipped(name: &str, overrides: &[&str]) -> Config {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    load_checked(&config_path(name), &o).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Runs one seed and checks the end-of-run invariants (run_once fails on a violation; the
/// per-event ones — time monotone, queues within limits — are debug assertions, on in tests).
pub fn run(cfg: &Config, seed: u64) -> RunResult {
    run_once(cfg, seed).unwrap_or_else(|v| panic!("invariant violated: {v}"))
}

/// S1 with N senders and the given RTO_min.
pub fn s1(n: u32, rto_min: &str) -> Config {
    shipped(
        "incast-classic.yaml",
        &[&format!("senders={n}"), &format!("tcp.rto_min={rto_min}")],
    )
}
