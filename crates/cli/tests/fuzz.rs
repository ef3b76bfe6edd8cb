//! Issue 17: a fuzz test over the shipped configs. Each case mutates one config
//! deterministically (a number made 0, negative, huge or a string; a key deleted or
//! duplicated; a list and a map swapped; a unit value made absurd) and runs it through the
//! library path with short limits. Asserted: no panic, no hang (each case must finish within a
//! wall-clock bound), no invariant violation, and every run that starts has passed its memory
//! estimate against a limit (`RunOptions::max_memory`).

use incastsim::config::{Config, parse_tree};
use incastsim::scenario::{Plan, RunOptions, Simulation, drive};
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Cases over all shipped configs.
const CASES: u64 = 300;
/// A case that has not finished after this long hangs (generous: 2 busy cores, debug build).
const CASE_BOUND: Duration = Duration::from_secs(20);
/// Memory limit of the estimate check for mutated configs (the k = 32 fat-tree is estimated
/// at 539 MB).
const MAX_MEMORY: u64 = 1 << 30;
/// The limit for the shipped configs as they are: S7 (`alltoall-k16.yaml`, a million planned
/// flows) is estimated at 1.1 GiB.
const MAX_MEMORY_SHIPPED: u64 = 2 << 30;

/// A field of /proc/self/status in bytes (Linux), e.g. "VmHWM" (peak resident) or "VmRSS".
fn proc_status(field: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The largest measured peak / estimate, in thousandths (reported at the end).
static WORST_PER_MILLE: AtomicU64 = AtomicU64::new(0);

/// Resets the peak resident size to the current one (Linux >= 4.0); false if not possible.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// SplitMix64: a fixed, dependency-free stream for choosing mutations.
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Paths (object keys and array indices) of every node below the root.
fn paths(v: &Value, prefix: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                prefix.push(json!(k));
                out.push(prefix.clone());
                paths(c, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                prefix.push(json!(i));
                out.push(prefix.clone());
                paths(c, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn node<'a>(root: &'a mut Value, path: &[Value]) -> &'a mut Value {
    path.iter().fold(root, |v, p| match p {
        Value::String(k) => &mut v[k.as_str()],
        Value::Number(i) => &mut v[i.as_u64().unwrap() as usize],
        _ => unreachable!(),
    })
}

/// Replaces, deletes or reshapes the node at one random path; returns what it did.
fn mutate(tree: &mut Value, s: &mut Stream) -> String {
    let mut all = Vec::new();
    paths(tree, &mut Vec::new(), &mut all);
    let path = all[s.below(all.len())].clone();
    let shown: Vec<String> = path.iter().map(|p| p.to_string()).collect();
    let shown = shown.join(".");
    let what = s.below(16);
    if what == 0 {
        // Delete the key (or list element).
        let (last, parent) = path.split_last().unwrap();
        match (node(tree, parent), last) {
            (Value::Object(m), Value::String(k)) => {
                m.shift_remove(k);
            }
            (Value::Array(a), Value::Number(i)) => {
                a.remove(i.as_u64().unwrap() as usize);
            }
            _ => {}
        }
        return format!("delete {shown}");
    }
    let target = node(tree, &path);
    let new = match what {
        1 => json!(0),
        2 => json!(-1),
        3 => json!(u64::MAX),
        4 => json!(1e300),
        5 => json!("banana"),
        6 => json!("0s"),
        7 => json!("1e30s"),
        8 => json!("18446744073709551615 packets"),
        9 => match target.clone() {
            // Swap a list and a map.
            Value::Array(a) => Value::Object(
                a.into_iter()
                    .enumerate()
                    .map(|(i, v)| (format!("k{i}"), v))
                    .collect::<Map<_, _>>(),
            ),
            Value::Object(m) => Value::Array(m.into_iter().map(|(_, v)| v).collect()),
            other => json!([other]),
        },
        10 => json!({}),
        // Mild: a number or a unit value's number doubled or halved (mostly still valid, so
        // the engine runs it).
        12..=15 => {
            let f = if what.is_multiple_of(2) { 2.0 } else { 0.5 };
            match &*target {
                Value::Number(n) if n.is_u64() => json!((n.as_u64().unwrap() as f64 * f) as u64),
                Value::Number(n) => json!(n.as_f64().unwrap_or(1.0) * f),
                Value::String(t) => {
                    let end = t
                        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                        .unwrap_or(t.len());
                    match t[..end].parse::<f64>() {
                        Ok(x) => json!(format!("{}{}", x * f, &t[end..])),
                        Err(_) => json!(t.clone()),
                    }
                }
                other => other.clone(),
            }
        }
        _ => match target {
            // A number scaled up, a unit value with a huge number.
            Value::Number(n) => json!(n.as_f64().unwrap_or(1.0) * 1e6),
            Value::String(t) => {
                let digits: String = t.chars().take_while(|c| c.is_ascii_digit()).collect();
                json!(format!("{}{}", "9".repeat(25), &t[digits.len()..]))
            }
            _ => json!(null),
        },
    };
    let line = format!("{shown} = {new}");
    *target = new;
    line
}

/// Adds (or replaces) one of the sections whose checks and bounds the mutations above rarely
/// reach: an extension-style map (`{name: ..., <param>: ...}` at a component's key), a time
/// series, a pcap capture or a run bound, each with values drawn from absurd to valid.
fn add_section(tree: &mut Value, s: &mut Stream) -> String {
    let odd = |s: &mut Stream| -> Value {
        [
            json!(0),
            json!(-1),
            json!(".nan"),
            json!(1e300),
            json!("banana"),
            json!("1ns"),
            json!("1us"),
            json!("10us"),
            json!("1ms"),
            json!([1, 2]),
            json!({"name": "x"}),
            json!(null),
        ][s.below(12)]
        .clone()
    };
    let Some(root) = tree.as_object_mut() else {
        return "not a map".into();
    };
    // Each is valid about half the time, so that the engine runs many of them.
    let (key, value) = match s.below(8) {
        0 => {
            let (name, param) = [
                ("tda", "delta"),
                ("prob_retx", "p"),
                ("dsr", "mss_dsr"),
                ("nonesuch", "x"),
            ][s.below(4)];
            ("scheme", json!({"name": name, param: odd(s)}))
        }
        1 => {
            let cc = ["dctcp", "cubic", "newreno", "vegas"][s.below(4)];
            let map = if s.below(2) == 0 {
                json!({"name": cc})
            } else {
                json!({"name": cc, "beta": odd(s)})
            };
            if let Some(t) = root
                .entry("tcp")
                .or_insert_with(|| json!({}))
                .as_object_mut()
            {
                t.insert("congestion_control".into(), map.clone());
            }
            return format!("tcp.congestion_control = {map}");
        }
        2 => {
            let map = match s.below(3) {
                0 => json!({"name": "ecn_threshold", "threshold": odd(s)}),
                1 => json!({"name": "codel", "target": odd(s)}),
                _ => json!({"kind": "drop_tail"}),
            };
            if let Some(t) = root
                .entry("topology")
                .or_insert_with(|| json!({}))
                .as_object_mut()
            {
                t.insert("switch_queue".into(), map.clone());
            }
            return format!("topology.switch_queue = {map}");
        }
        3 | 4 => (
            "time_series",
            json!({"interval": odd(s), "ports": ["switch0->host0"], "flows": [0]}),
        ),
        5 => ("pcap", json!({"flows": [0], "snaplen": odd(s)})),
        6 => ("probes", json!([{"name": "nonesuch", "x": odd(s)}])),
        _ => {
            let order = ["fifo", "random"][s.below(2)];
            ("run", json!({"max_sim_time": odd(s), "tie_order": order}))
        }
    };
    root.insert(key.into(), value.clone());
    format!("{key} = {value}")
}

/// Duplicates one line of the YAML text (a duplicate key, or a repeated list entry).
fn duplicate_line(text: &str, s: &mut Stream) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let i = s.below(lines.len());
    let mut out: Vec<&str> = lines[..=i].to_vec();
    out.extend_from_slice(&lines[i..]);
    out.join("\n")
}

/// How a case ended.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ended {
    /// Refused by the config checks.
    Refused,
    /// Refused when planned (a buildable check, or its memory estimate over the limit).
    NotPlanned,
    Ran,
}

/// Runs one mutated config through the library path; Err is an invariant violation.
fn run_case(tree: Value) -> Result<Ended, String> {
    run_case_within(tree, MAX_MEMORY)
}

/// [`run_case`] with the estimate checked against `max_memory`.
fn run_case_within(tree: Value, max_memory: u64) -> Result<Ended, String> {
    let mut tree = tree;
    if let Some(m) = tree.as_object_mut() {
        m.remove("sweep");
        // Short limits, overriding whatever the mutation did to them.
        let run = m.entry("run").or_insert_with(|| json!({}));
        if let Some(r) = run.as_object_mut() {
            r.insert("max_events".into(), json!(20_000));
            r.insert("max_wall_time".into(), json!("2s"));
        }
    }
    let Ok(cfg) = Config::from_tree(tree) else {
        return Ok(Ended::Refused);
    };
    // The memory estimate is checked before any per-flow state is built.
    let Ok(plan) = Plan::build(&cfg, cfg.seed, &RunOptions::new().max_memory(max_memory)) else {
        return Ok(Ended::NotPlanned);
    };
    // Peak memory of the run over what the process held before, against the estimate (only
    // where the peak can be reset; the allocator may reuse freed memory, so this is a floor).
    let estimate = plan.memory_estimate;
    let before = if reset_peak() {
        proc_status("VmRSS:")
    } else {
        None
    };
    let mut sim = Simulation::from_plan(plan);
    drive(&mut sim, None, None);
    sim.check_invariants()?;
    // What grows with simulated time (time series, a traced port, pcap packets) is outside
    // the estimate and held to the limit's remainder instead (`Outcome::MemoryLimit`).
    let recorded = sim.recorded_bytes();
    let _ = sim.results();
    drop(sim);
    if let (Some(before), Some(peak)) = (before, proc_status("VmHWM:")) {
        let used = peak.saturating_sub(before);
        WORST_PER_MILLE.fetch_max(used * 1000 / estimate.max(1), Ordering::Relaxed);
        // The records are copied once into the results (rows for the CSVs): twice them.
        if used > estimate + 2 * recorded {
            return Err(format!(
                "peak memory {used} B above the estimate {estimate} B and twice the records ({recorded} B)"
            ));
        }
    }
    Ok(Ended::Ran)
}

/// Runs `tree` with `incastsim run` in a child process (so that its peak is its own, not
/// what this process's allocator kept from earlier cases): the child's peak resident memory
/// (`wait4`'s `ru_maxrss`), the run's estimate, and its outcome (from the manifest).
#[cfg(target_os = "linux")]
#[allow(clippy::zombie_processes)] // reaped by `wait4`, which `Child::wait` cannot replace here
fn child_run_peak(tree: &Value, limit: Option<u64>, dir: &std::path::Path) -> (u64, u64, String) {
    use std::os::unix::process::ExitStatusExt;
    let cfg = Config::from_tree(tree.clone()).unwrap();
    let estimate = Plan::new(&cfg, cfg.seed).unwrap().memory_estimate;
    let yaml = dir.join("case.yaml");
    std::fs::write(&yaml, serde_json::to_string(tree).unwrap()).unwrap();
    let out = dir.join("out");
    let _ = std::fs::remove_dir_all(&out);
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_incastsim"))
        .args([
            "run",
            yaml.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args([
            "--max-memory",
            &limit.map_or("100%".into(), |l| format!("{l}B")),
        ])
        // Huge pages change nothing but the peak's rounding; keep 4 KiB pages here.
        .env("INCASTSIM_HUGE_PAGES", "off")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: zeroed is a valid rusage (plain integers); wait4 waits for our own child and
    // writes into the two locals.
    let mut usage = unsafe { std::mem::zeroed::<libc::rusage>() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    assert!(
        std::process::ExitStatus::from_raw(status).success(),
        "{tree}"
    );
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let outcome = manifest["outcome"].as_str().unwrap_or("").to_string();
    (usage.ru_maxrss as u64 * 1024, estimate, outcome)
}

#[test]
fn mutated_shipped_configs_never_panic_hang_or_break_invariants() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    // Configs name workload CDFs relative to the repository root.
    std::env::set_current_dir(&root).unwrap();
    let mut configs: Vec<(String, String)> = std::fs::read_dir(root.join("configs"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    configs.sort();
    assert!(configs.len() >= 10);
    // Issue 38's memory-estimate test: runs that grow with senders, flows, ports and
    // simulated time stay within their estimate (`run_case` asserts it against the process's
    // peak; what grows with time may add twice what it recorded, and is held to the limit's
    // remainder).
    let grown = |name: &str, sets: &[(&str, Value)]| {
        let text = &configs.iter().find(|(n, _)| n == name).unwrap().1;
        let mut tree = parse_tree(text).unwrap();
        for (path, v) in sets {
            let mut node = &mut tree;
            for k in path.split('.') {
                node = &mut node[k];
            }
            *node = v.clone();
        }
        tree
    };
    #[cfg(target_os = "linux")]
    {
        let dir = std::env::temp_dir().join(format!("incastsim-memory-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // What a minimal run of the binary holds (code, allocator, buffers; and the pages of
        // this test process the child shares between fork and exec, which `ru_maxrss`
        // counts): the floor the runs' growth is measured from.
        let minimal = grown(
            "incast-classic.yaml",
            &[("senders", json!(1)), ("workload.blocks", json!(1))],
        );
        let (floor, _, _) = child_run_peak(&minimal, None, &dir);
        let series = |interval: &str| json!({"interval": interval, "ports": ["switch0->host16"], "flows": [0, 1, 2]});
        let cases = [
            (
                "incast-classic.yaml",
                vec![("senders", json!(2000)), ("workload.blocks", json!(1))],
                None,
            ),
            (
                "incast-classic.yaml",
                vec![("senders", json!(64)), ("workload.blocks", json!(20))],
                None,
            ),
            (
                "websearch-fattree.yaml",
                vec![("topology.k", json!(8)), ("senders", json!(127))],
                None,
            ),
            (
                "bulk-dumbbell.yaml",
                vec![
                    ("time_series", series("100us")),
                    ("workload.duration", json!("0.2s")),
                ],
                None,
            ),
            // Samples every microsecond until 100 blocks are done would hold gigabytes (a
            // block count gives no end time, so the estimate cannot count them): the limit
            // stops the run.
            (
                "incast-classic.yaml",
                vec![("time_series", series("1us"))],
                Some(96u64 << 20),
            ),
        ];
        for (name, sets, limit) in cases {
            let (peak, estimate, outcome) = child_run_peak(&grown(name, &sets), limit, &dir);
            let used = peak.saturating_sub(floor);
            eprintln!(
                "{name} {sets:?}: peak {peak} B ({used} B over a minimal run), estimate {estimate} B, {outcome}"
            );
            match limit {
                None => assert!(
                    used <= 2 * estimate,
                    "{name} {sets:?}: peak {used} B over twice the estimate {estimate} B"
                ),
                Some(limit) => {
                    assert_eq!(outcome, "max_memory", "{name} {sets:?}");
                    assert!(
                        peak <= limit,
                        "{name} {sets:?}: peak {peak} B over the limit {limit} B"
                    );
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
    // Unmutated, every shipped config runs. After the child processes above: a child's peak
    // counts the pages it shares with this process between fork and exec, and S7's million
    // planned flows leave this process large.
    for (name, text) in &configs {
        let tree = parse_tree(text).unwrap();
        assert_eq!(
            run_case_within(tree, MAX_MEMORY_SHIPPED),
            Ok(Ended::Ran),
            "{name}"
        );
    }
    let started = Instant::now();
    // INCASTSIM_FUZZ_SEED / INCASTSIM_FUZZ_CASES explore further by hand; CI uses the defaults.
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let cases = env("INCASTSIM_FUZZ_CASES", CASES);
    let mut s = Stream(env("INCASTSIM_FUZZ_SEED", 17));
    let mut slowest = (Duration::ZERO, String::new());
    let mut ended: Vec<Ended> = Vec::new();
    for case in 0..cases {
        let (name, text) = &configs[case as usize % configs.len()];
        let (what, tree) = if s.below(8) == 0 {
            let t = duplicate_line(text, &mut s);
            ("duplicated a line".to_string(), parse_tree(&t))
        } else {
            let mut tree = parse_tree(text).unwrap();
            let mut what = Vec::new();
            if s.below(4) == 0 {
                // A section, alone (its own values are the mutation).
                what.push(add_section(&mut tree, &mut s));
            } else {
                for _ in 0..1 + s.below(2) {
                    what.push(mutate(&mut tree, &mut s));
                }
            }
            (what.join("; "), Ok(tree))
        };
        let Ok(tree) = tree else { continue };
        let label = format!("case {case}: {name}: {what}");
        let (tx, rx) = mpsc::channel();
        let t0 = Instant::now();
        std::thread::spawn(move || {
            let r = std::panic::catch_unwind(move || run_case(tree));
            let _ = tx.send(r);
        });
        match rx.recv_timeout(CASE_BOUND) {
            Ok(Ok(Ok(e))) => ended.push(e),
            Ok(Ok(Err(violation))) => panic!("{label}: invariant violated: {violation}"),
            Ok(Err(_)) => panic!("{label}: panicked"),
            Err(_) => panic!("{label}: still running after {CASE_BOUND:?} (a hang)"),
        }
        if t0.elapsed() > slowest.0 {
            slowest = (t0.elapsed(), label);
        }
    }
    let count = |e| ended.iter().filter(|&&x| x == e).count();
    let (refused, not_planned, ran) = (
        count(Ended::Refused),
        count(Ended::NotPlanned),
        count(Ended::Ran),
    );
    eprintln!(
        "{cases} cases ({refused} refused, {not_planned} not planned, {ran} ran) in {:.1} s; peak memory at most {:.1}% of the estimate; slowest {:.2} s ({})",
        started.elapsed().as_secs_f64(),
        WORST_PER_MILLE.load(Ordering::Relaxed) as f64 / 10.0,
        slowest.0.as_secs_f64(),
        slowest.1
    );
    // Mutations must leave enough configs runnable for the test to test the engine. About a
    // quarter run (83 of 300 with 34 shipped configs, 70 with 36: the cases fall on other
    // configs and mutations), so the floor is a fifth.
    assert!(ran >= cases as usize / 5, "only {ran} of {cases} cases ran");
}
