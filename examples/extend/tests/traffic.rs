//! The template's traffic generator, `incast_bursts`, from YAML through this crate's binary:
//! exactly the flows computed by hand appear in flows.csv; a sweep grid over its own
//! parameter; a bad parameter gets the built-ins' error shape; `components` lists it.

mod common;
use common::{scratch, shape, try_cli};

use incastsim_extend_template::extensions;
use std::path::{Path, PathBuf};

fn ok(args: &[&str]) -> String {
    let out = try_cli(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A star of 4 senders (hosts 0-3) and the receiver (host 4), 1 Gbps, 25 us links, only
/// traffic for 6 ms: bursts every 2 ms from 1 ms, 20 KB from each sender.
const BURSTS: &str = r#"
name: bursts
senders: 4
topology: {kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 100KB}
tcp: {mss: 1460B, header: 40B, initial_cwnd: 2, rto_min: 10ms, delayed_ack: {enabled: false}}
workload: {kind: traffic, duration: 6ms}
traffic:
  - {kind: incast_bursts, period: 2ms, size: 20KB, start: 1ms}
"#;

fn write_config(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("bursts.yaml");
    std::fs::write(&path, text).unwrap();
    path
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

/// By hand: bursts start at 1, 3 and 5 ms (the k with 1 ms + k·2 ms < 6 ms: k = 0, 1, 2);
/// each has one 20 000-byte flow from each of hosts 0, 1, 2, 3 (in that order) to host 4. So
/// flows.csv has 12 rows, flow 4k + i from host i at 1 + 2k ms, every one complete.
#[test]
fn its_flows_are_the_hand_computed_ones() {
    let dir = scratch("traffic", "hand");
    let cfg = write_config(&dir, BURSTS);
    let out = dir.join("out");
    ok(&["run", cfg.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let flows = rows(&out.join("flows.csv"));
    assert_eq!(flows.len(), 12);
    for (n, f) in flows.iter().enumerate() {
        let (k, i) = (n / 4, n % 4);
        assert_eq!(f["flow"], n.to_string());
        assert_eq!(f["kind"], "incast_bursts");
        assert_eq!(f["generator"], "0");
        assert_eq!(f["src_host"], i.to_string(), "flow {n}");
        assert_eq!(f["dst_host"], "4");
        assert_eq!(f["size_bytes"], "20000");
        let start: f64 = f["start_s"].parse().unwrap();
        assert!(
            (start - (0.001 + 0.002 * k as f64)).abs() < 1e-12,
            "flow {n}: {start}"
        );
        assert_eq!(f["bytes_delivered"], "20000", "flow {n} completes");
        assert!(!f["fct_ms"].is_empty() && !f["slowdown"].is_empty());
    }
    // The resolved config prints its parameters with the defaults; the manifest names it and
    // its crate.
    let resolved = std::fs::read_to_string(out.join("config.resolved.yaml")).unwrap();
    assert!(
        resolved.contains("name: incast_bursts") && resolved.contains("to: receiver"),
        "{resolved}"
    );
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(
        manifest.contains("incast_bursts") && manifest.contains("incastsim-extend-template"),
        "{manifest}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A sweep from YAML with a grid over the generator's own parameter: one row per point, the
/// parameter a column, and the number of flows following it (3 bursts of 4 at 2 ms, 5 at
/// 1 ms).
#[test]
fn a_sweep_grids_over_its_period() {
    let dir = scratch("traffic", "sweep");
    let cfg = write_config(
        &dir,
        &format!("{BURSTS}sweep:\n  seeds: 1\n  grid:\n    traffic[0].period: [1ms, 2ms]\n"),
    );
    let out = dir.join("out");
    ok(&[
        "sweep",
        cfg.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--jobs",
        "2",
    ]);
    let runs = rows(&out.join("runs.csv"));
    assert_eq!(runs.len(), 2);
    let flows: Vec<(String, String)> = runs
        .iter()
        .map(|r| (r["traffic[0].period"].clone(), r["flows_finite"].clone()))
        .collect();
    assert_eq!(
        flows,
        [("1ms".into(), "20".into()), ("2ms".into(), "12".into())]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn error(traffic: &str) -> String {
    let text = BURSTS.replace(
        "  - {kind: incast_bursts, period: 2ms, size: 20KB, start: 1ms}",
        &format!("  - {traffic}"),
    );
    let ext = extensions();
    incastsim::scenario::Config::from_yaml_with(&text, &[], &ext)
        .and_then(|cfg| incastsim::scenario::check_buildable(&cfg, &ext))
        .unwrap_err()
        .to_string()
}

/// A bad parameter gets the same error shape as a built-in generator's.
#[test]
fn bad_parameters_are_refused_as_the_builtins_are() {
    let builtin =
        error("{kind: staggered, from: senders, to: receiver, interval: 1ms, duration: 0s}");
    let mine = error("{kind: incast_bursts, period: 0s}");
    assert_eq!(
        shape(&builtin),
        ("traffic[0].duration", "0s", "positive durations")
    );
    assert_eq!(
        shape(&mine),
        ("traffic[0].period", "0s", "a positive duration")
    );
    // Host selectors are the built-ins', with their message.
    let builtin =
        error("{kind: staggered, from: \"sender:9\", to: receiver, interval: 1ms, duration: 1ms}");
    let mine = error("{kind: incast_bursts, sources: \"sender:9\"}");
    assert_eq!(shape(&mine).0, "traffic[0].sources");
    let (_, value, allowed) = shape(&builtin);
    assert_eq!((shape(&mine).1, shape(&mine).2), (value, allowed));
    // An unknown kind lists the built-ins and this crate's generator.
    let e = error("{kind: bursts}");
    let (key, value, allowed) = shape(&e);
    assert_eq!((key, value), ("traffic[0].kind", "bursts"));
    assert!(
        allowed.contains("poisson") && allowed.contains("incast_bursts"),
        "{e}"
    );
    // Through the binary, the same message.
    let dir = scratch("traffic", "bad");
    let cfg = write_config(&dir, &BURSTS.replace("period: 2ms", "period: 0s"));
    let out = try_cli(&["check", cfg.to_str().unwrap()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("traffic[0].period = 0s: a positive duration"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `components` lists it with its crate and defaults.
#[test]
fn components_lists_it() {
    let text = ok(&["components"]);
    assert!(
        text.contains("incast_bursts (from incastsim-extend-template 0.1.0)"),
        "{text}"
    );
    assert!(text.contains("default period: 1ms"), "{text}");
    assert!(text.contains("built in: long_lived, poisson"), "{text}");
}

/// `name:` selects a generator as at every other extension point; `kind:`, the older spelling,
/// still works and reads the same; both at once is refused.
#[test]
fn name_and_kind_select_the_same_generator() {
    let ext = extensions();
    let load = |entry: &str| {
        let text = BURSTS.replace(
            "  - {kind: incast_bursts, period: 2ms, size: 20KB, start: 1ms}",
            &format!("  - {entry}"),
        );
        incastsim::scenario::Config::from_yaml_with(&text, &[], &ext)
    };
    let by_kind = load("{kind: incast_bursts, period: 2ms, size: 20KB, start: 1ms}").unwrap();
    let by_name = load("{name: incast_bursts, period: 2ms, size: 20KB, start: 1ms}").unwrap();
    assert_eq!(by_kind, by_name);
    // A built-in by `name:` too.
    load("{name: poisson, load: 0.1, sizes: {kind: fixed, size: 10KB}}").unwrap();
    let both = load("{kind: poisson, name: incast_bursts}")
        .unwrap_err()
        .to_string();
    assert!(
        both.contains("both kind") && both.contains("traffic"),
        "{both}"
    );
}
