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
/// Memory limit of the estimate check (the k = 32 fat-tree is estimated at 539 MB).
const MAX_MEMORY: u64 = 1 << 30;

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
    let Ok(plan) = Plan::build(&cfg, cfg.seed, &RunOptions::new().max_memory(MAX_MEMORY)) else {
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
    let _ = sim.results();
    drop(sim);
    if let (Some(before), Some(peak)) = (before, proc_status("VmHWM:")) {
        let used = peak.saturating_sub(before);
        WORST_PER_MILLE.fetch_max(used * 1000 / estimate.max(1), Ordering::Relaxed);
        if used > estimate {
            return Err(format!(
                "peak memory {used} B above the estimate {estimate} B"
            ));
        }
    }
    Ok(Ended::Ran)
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
    // Unmutated, every shipped config runs.
    for (name, text) in &configs {
        let tree = parse_tree(text).unwrap();
        assert_eq!(run_case(tree), Ok(Ended::Ran), "{name}");
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
            for _ in 0..1 + s.below(2) {
                what.push(mutate(&mut tree, &mut s));
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
    // Mutations must leave enough configs runnable for the test to test the engine.
    assert!(ran >= cases as usize / 4, "only {ran} of {cases} cases ran");
}
