//! End-to-end tests of the `incastsim` binary.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_incastsim"))
}

fn config(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../configs")
        .join(name)
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("incastsim-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn run_s1(out: &Path, extra: &[&str]) -> std::process::Output {
    let mut c = bin();
    c.args(["run"]).arg(config("incast-classic.yaml"));
    c.args(["--set", "senders=8", "--set", "workload.blocks=20", "--out"])
        .arg(out);
    c.args(extra);
    c.output().unwrap()
}

#[test]
fn help_on_every_command() {
    for args in [
        vec!["--help"],
        vec!["run", "--help"],
        vec!["check", "--help"],
        vec!["schemes", "--help"],
    ] {
        let o = bin().args(&args).output().unwrap();
        assert!(o.status.success(), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stdout).contains("Usage"));
    }
}

#[test]
fn same_config_and_seed_give_byte_identical_csvs() {
    let (a, b) = (tempdir("det-a"), tempdir("det-b"));
    assert!(run_s1(&a, &["--seed", "11"]).status.success());
    assert!(run_s1(&b, &["--seed", "11"]).status.success());
    for f in [
        "runs.csv",
        "flows.csv",
        "senders.csv",
        "ports.csv",
        "blocks.csv",
        "config.resolved.yaml",
    ] {
        let (x, y) = (
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
        );
        assert!(!x.is_empty());
        assert_eq!(x, y, "{f} differs between identical runs");
    }
    let c = tempdir("det-c");
    assert!(run_s1(&c, &["--seed", "12"]).status.success());
    assert_ne!(
        std::fs::read(a.join("runs.csv")).unwrap(),
        std::fs::read(c.join("runs.csv")).unwrap()
    );
}

#[test]
fn outputs_have_the_documented_columns() {
    let out = tempdir("cols");
    let o = run_s1(&out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("goodput") && stdout.contains("events/s"),
        "{stdout}"
    );
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    let header = runs.lines().next().unwrap();
    for col in [
        "scenario",
        "seed",
        "senders",
        "goodput_mbps",
        "jain_fairness",
        "rto_count",
        "rto_run_1",
        "bct_p99_ms",
        "drops_total",
        "events",
    ] {
        assert!(
            header.split(',').any(|c| c == col),
            "runs.csv lacks {col}: {header}"
        );
    }
    assert_eq!(runs.lines().count(), 2);
    let flows = std::fs::read_to_string(out.join("flows.csv")).unwrap();
    assert_eq!(flows.lines().count(), 9, "one row per flow");
    assert_eq!(
        std::fs::read_to_string(out.join("blocks.csv"))
            .unwrap()
            .lines()
            .count(),
        21
    );
    // The resolved config is complete and loads again to the same scenario.
    let resolved = std::fs::read_to_string(out.join("config.resolved.yaml")).unwrap();
    for key in [
        "rto_initial",
        "clock_granularity",
        "limited_transmit",
        "request_timeout",
        "host_buffer",
    ] {
        assert!(resolved.contains(key), "resolved config lacks {key}");
    }
    let again = tempdir("cols-again");
    let o2 = bin()
        .arg("run")
        .arg(out.join("config.resolved.yaml"))
        .arg("--out")
        .arg(&again)
        .output()
        .unwrap();
    assert!(
        o2.status.success(),
        "{}",
        String::from_utf8_lossy(&o2.stderr)
    );
    assert_eq!(
        std::fs::read(out.join("runs.csv")).unwrap(),
        std::fs::read(again.join("runs.csv")).unwrap(),
        "rerunning the resolved config reproduces the results"
    );
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(manifest.contains("events_per_s") && manifest.contains("incastsim_version"));
}

#[test]
fn bad_config_is_refused_with_a_clear_message() {
    let out = tempdir("bad");
    let o = run_s1(&out, &["--set", "tcp.rto_min=200xs"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("tcp.rto_min") && err.contains("200xs"),
        "{err}"
    );
    assert!(
        !out.join("runs.csv").exists(),
        "nothing is written for a refused config"
    );
    let o = bin()
        .args(["run", "/nonexistent/config.yaml"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/config.yaml"));
}

#[test]
fn check_prints_the_resolved_config() {
    let o = bin()
        .arg("check")
        .arg(config("bulk-dumbbell.yaml"))
        .output()
        .unwrap();
    assert!(o.status.success());
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(
        s.contains("rto_min: 10ms") && s.contains("link_rate: 10Gbps"),
        "{s}"
    );
    // Knobs left out of the resolved YAML at their defaults still show (issue 15).
    for knob in ["run.tie_order: fifo", "topology.shared_buffer: none"] {
        assert!(
            s.contains(&format!("# default, not printed above: {knob}")),
            "{s}"
        );
    }
}

#[test]
fn schemes_lists_every_scheme_with_defaults() {
    let o = bin().arg("schemes").output().unwrap();
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    for needle in [
        "tda",
        "default delta: 1ms",
        "default omega: 2",
        "maa",
        "default sigma: 1",
        "tcprand",
        "default r_min: adaptive",
        "default theta: 200B",
        "prob_retx",
        "default period: 20us",
        "default p: 0.001",
        "dsr",
        "default mss_dsr: 50B",
        "plato",
        "fine_rto",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    // Each parameter's meaning and the form of its value (issue 39, item 6).
    for needle in [
        "Δ of Eq. 8, the interval width before any timeout. (a duration, e.g. 1ms)",
        "MSS_dsr: the small segment size a transfer starts with, bytes. (bytes, e.g. 64KB)",
        "(a number)",
        "(true or false)",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    // Every parameter line of a built-in scheme is followed by its meaning.
    let lines: Vec<&str> = text.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with("  default ") {
            let next = lines.get(i + 1).copied().unwrap_or("");
            assert!(next.starts_with("      "), "no meaning after {l:?}");
        }
    }
}

/// A reader that stops early (`incastsim schemes | head -1`) ends the command quietly: no panic
/// message, and the status of a process ended by SIGPIPE, never Rust's panic status 101.
#[cfg(unix)]
#[test]
fn closed_stdout_ends_quietly() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let mut child = bin()
        .args(["schemes"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the pipe at once: the command's first line meets a closed pipe (were the command
    // faster than this, it would write into the pipe buffer and succeed: still no panic).
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(status.code(), Some(101), "{err}");
    assert!(
        status.success() || status.signal() == Some(libc_sigpipe()),
        "{status:?} {err}"
    );
}

#[cfg(unix)]
fn libc_sigpipe() -> i32 {
    13 // SIGPIPE on Linux and the BSDs
}

/// A reused output folder keeps no file of an earlier run that this run does not write.
#[test]
fn reused_folder_drops_a_stale_time_series() {
    let out = tempdir("stale");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("timeseries.csv"), "from an earlier run\n").unwrap();
    let o = run_s1(&out, &["--set", "workload.blocks=1"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.join("runs.csv").exists());
    assert!(
        !out.join("timeseries.csv").exists(),
        "stale timeseries.csv kept"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// Every CSV has its header, even with no rows (blocks.csv of a bulk run used to be 0 bytes).
#[test]
fn every_csv_has_a_header_even_without_rows() {
    let out = tempdir("headers");
    let o = bin()
        .args(["run"])
        .arg(config("bulk-dumbbell.yaml"))
        .args(["--set", "workload.duration=0.001s", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let blocks = std::fs::read_to_string(out.join("blocks.csv")).unwrap();
    assert_eq!(blocks, "scenario,seed,senders,block,completion_ms\n");
    for e in std::fs::read_dir(&out).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "csv") {
            let text = std::fs::read_to_string(&p).unwrap();
            let header = text.lines().next().unwrap_or("");
            assert!(header.contains(','), "{} has no header", p.display());
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// A large run re-executes the binary with glibc's huge-page tunable where the kernel wants
/// programs to ask (`madvise` mode), and the manifest says whether the heap was on huge pages;
/// `INCASTSIM_HUGE_PAGES=off` keeps the system's default, and so does a small run. The results
/// are the same either way.
#[test]
fn a_large_runs_heap_goes_on_huge_pages_unless_told_not_to() {
    use incastsim::host::{OPT_OUT_VAR, ThpMode};
    let manifest_flag = |out: &Path| {
        let text = std::fs::read_to_string(out.join("manifest.json")).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        json["heap_huge_pages"].as_bool().unwrap()
    };
    let run = |tag: &str, large: bool, opt_out: bool| {
        let out = tempdir(tag);
        let mut c = bin();
        if large {
            // 1,024 hosts, 20 µs of arrivals.
            c.args(["run"]).arg(config("websearch-fattree.yaml")).args([
                "--set",
                "topology.k=16",
                "--set",
                "senders=1023",
                "--set",
                "workload.duration=20us",
            ]);
        } else {
            c.args(["run"]).arg(config("incast-classic.yaml")).args([
                "--set",
                "senders=4",
                "--set",
                "workload.blocks=2",
            ]);
        }
        c.arg("--out")
            .arg(&out)
            .env_remove("GLIBC_TUNABLES")
            .env_remove(OPT_OUT_VAR);
        if opt_out {
            c.env(OPT_OUT_VAR, "off");
        }
        let o = c.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        out
    };
    let mode = ThpMode::of_this_host();
    let always = mode == Some(ThpMode::Always);
    let asks = cfg!(all(target_os = "linux", target_env = "gnu")) && mode == Some(ThpMode::Madvise);
    let (on, off) = (run("huge-on", true, false), run("huge-off", true, true));
    assert_eq!(manifest_flag(&on), always || asks, "kernel mode {mode:?}");
    assert_eq!(manifest_flag(&off), always);
    for file in ["runs.csv", "flows.csv"] {
        assert_eq!(
            std::fs::read(on.join(file)).unwrap(),
            std::fs::read(off.join(file)).unwrap()
        );
    }
    let small = run("huge-small", false, false);
    assert_eq!(manifest_flag(&small), always);
}

/// A small sweep of S1 into `out` (`n` senders values, one seed, `blocks` blocks each).
fn sweep_cmd(out: &Path, senders: &str, blocks: u32) -> Command {
    let mut c = bin();
    c.arg("sweep")
        .arg(config("incast-sweep.yaml"))
        .args(["--set", "sweep.seeds=1", "--set"])
        .arg(format!("workload.blocks={blocks}"))
        .args(["--set"])
        .arg(format!(
            "sweep.grid={{senders: {senders}, tcp.rto_min: [200ms]}}"
        ))
        .args(["--jobs", "1", "--no-plots", "--out"])
        .arg(out);
    c
}

/// Issue 38, item 1: `run --out` aimed at a sweep's folder is refused before anything runs,
/// naming the command and the file that shows it, and the sweep's files are left as they were.
#[test]
fn run_refuses_a_sweep_folder_and_leaves_it_intact() {
    let dir = tempdir("run-into-sweep");
    assert!(sweep_cmd(&dir, "[2, 4]", 1).status().unwrap().success());
    let before = std::fs::read(dir.join("runs.csv")).unwrap();
    let o = run_s1(&dir, &[]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("holds the results of `incastsim sweep`")
            && err.contains("choose another --out"),
        "{err}"
    );
    assert_eq!(std::fs::read(dir.join("runs.csv")).unwrap(), before);
    assert!(!dir.join("flows.csv.tmp").exists() && !dir.join("blocks.csv").exists());
    // The sweep still resumes as complete.
    let again = sweep_cmd(&dir, "[2, 4]", 1).output().unwrap();
    assert!(again.status.success());
    assert_eq!(std::fs::read(dir.join("runs.csv")).unwrap(), before);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 38, item 1: a run aimed at a sweep in progress is refused, and the sweep finishes with
/// all its runs.
#[test]
fn run_into_a_live_sweep_folder_leaves_the_sweep_intact() {
    let dir = tempdir("run-into-live-sweep");
    let mut sweep = sweep_cmd(&dir, "[16, 32, 48, 64]", 100).spawn().unwrap();
    let t0 = std::time::Instant::now();
    while !dir.join("sweep.lock").exists() && t0.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let o = run_s1(&dir, &[]);
    assert!(!o.status.success(), "the run went into the sweep's folder");
    assert!(String::from_utf8_lossy(&o.stderr).contains("`incastsim sweep`"));
    // Refused while the sweep was still running (its four runs take about a second).
    assert!(sweep.try_wait().unwrap().is_none(), "the sweep ended first");
    assert!(sweep.wait().unwrap().success());
    let runs = std::fs::read_to_string(dir.join("runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 4, "{runs}");
    let header_fields = runs.lines().next().unwrap().split(',').count();
    assert!(runs.lines().all(|l| l.split(',').count() == header_fields));
    let again = sweep_cmd(&dir, "[16, 32, 48, 64]", 100).output().unwrap();
    assert!(String::from_utf8_lossy(&again.stderr).contains("4 of 4 runs already done"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 38, item 10: a reused run folder keeps no earlier run's pcap traces.
#[test]
fn reused_run_folder_drops_old_pcap_traces() {
    let dir = tempdir("stale-pcap");
    let traced = bin()
        .arg("run")
        .arg(config("incast-pcap.yaml"))
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(traced.status.success());
    assert!(dir.join("pcap/flow-0.pcap").exists());
    assert!(run_s1(&dir, &[]).status.success());
    assert!(
        !dir.join("pcap").exists(),
        "an earlier run's traces were kept"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 38, item 8: a failed write to standard output (here a full device) is an error with
/// exit status 2, not a panic (101); a run's files are written before its summary.
#[test]
fn a_full_stdout_is_an_error_not_a_panic() {
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let dir = tempdir("full-stdout");
    let cfg = config("incast-classic.yaml");
    let cases: Vec<Vec<std::ffi::OsString>> = vec![
        vec!["schemes".into()],
        vec!["components".into()],
        vec!["check".into(), cfg.clone().into()],
        vec![
            "run".into(),
            cfg.into(),
            "--set".into(),
            "workload.blocks=2".into(),
            "--out".into(),
            dir.clone().into(),
        ],
    ];
    for args in cases {
        let o = bin().args(&args).stdout(full()).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            err.contains("cannot write to standard output"),
            "{args:?}: {err}"
        );
    }
    assert!(dir.join("runs.csv").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 38, item 9: `incastsim slurm` writes `--partition` and `--time` into `#SBATCH` lines of
/// shell scripts, so only plain Slurm words pass; more shards than runs, or more CPUs than a
/// node has, are refused too. Nothing is written for a refused call.
#[test]
fn slurm_refuses_values_that_are_not_plain_slurm_words() {
    let dir = tempdir("slurm-words");
    let slurm = |extra: &[&str]| {
        let mut c = bin();
        c.arg("slurm")
            .arg(config("incast-sweep.yaml"))
            .args(["--set", "sweep.seeds=1"]) // 32 runs
            .args(extra);
        if !extra.contains(&"--shards") {
            c.args(["--shards", "4"]);
        }
        c.arg("--out").arg(&dir);
        c.output().unwrap()
    };
    for (extra, says) in [
        (&["--partition", "debug\ntouch X"][..], "--partition"),
        (&["--partition", "a b"][..], "--partition"),
        (&["--time", "1:00;rm -rf x"][..], "--time"),
        (&["--time", "$(id)"][..], "--time"),
        (
            &["--shards", "33"][..],
            "more shards than the sweep's 32 runs",
        ),
        (&["--cpus-per-task", "100000"][..], "--cpus-per-task 100000"),
    ] {
        let o = slurm(extra);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(says), "{extra:?}: {err}");
        assert!(!dir.join("slurm").exists(), "{extra:?} wrote scripts");
    }
    let o = slurm(&[
        "--shards",
        "4",
        "--partition",
        "gpu,debug",
        "--time",
        "2-00:00:00",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let script = std::fs::read_to_string(dir.join("slurm/shards.sbatch")).unwrap();
    assert!(
        script.contains("#SBATCH --partition=gpu,debug\n")
            && script.contains("#SBATCH --time=2-00:00:00\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 39, item 5: `incastsim slurm` checks its results folder up front, as `sweep` does:
/// a folder (or a shard folder in it) holding another sweep's results is refused before any
/// script is written, where before the whole array ran and the merge job failed.
#[test]
fn slurm_refuses_a_folder_of_another_sweep_up_front() {
    let dir = tempdir("slurm-clash");
    // A local sweep of 2 runs fills the folder.
    let o = bin()
        .arg("sweep")
        .arg(config("incast-sweep.yaml"))
        .args(["--set", "sweep.seeds=1", "--set", "sweep.grid.senders=[2]"])
        .args(["--set", "workload.blocks=1", "--no-plots"])
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let slurm = |sets: &[&str], out: &std::path::Path| {
        let mut c = bin();
        c.arg("slurm").arg(config("incast-sweep.yaml"));
        for s in sets {
            c.args(["--set", s]);
        }
        c.args(["--shards", "2", "--out"]).arg(out);
        c.output().unwrap()
    };
    // Another sweep (other seeds) into it: refused, nothing written.
    let o = slurm(&["sweep.seeds=3"], &dir);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("different sweep configuration"), "{err}");
    assert!(!dir.join("slurm").exists());
    // A shard folder of another sweep in a fresh folder: refused too.
    let fresh = tempdir("slurm-clash-shards");
    std::fs::create_dir_all(fresh.join("shards")).unwrap();
    std::fs::rename(&dir, fresh.join("shards/shard-0")).unwrap();
    let o = slurm(&["sweep.seeds=3"], &fresh);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("shard-0 holds results of a different"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&fresh);
}

/// Issue 38, item 20 (small ones), each case naming what it checks.
#[test]
fn small_messages_say_what_is_meant() {
    let dir = tempdir("small-messages");
    let cfg = config("incast-classic.yaml");
    let run = |extra: &[&str]| {
        let mut c = bin();
        c.arg("run").arg(&cfg).args(extra).arg("--out").arg(&dir);
        c.output().unwrap()
    };
    // No block completed: the summary says so instead of "mean NaN ms".
    let o = run(&["--set", "run.max_sim_time=1ms"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("blocks 0/100: no block completed") && !out.contains("NaN"),
        "{out}"
    );
    // --max-memory in SI bytes is reported in binary units that say so (MiB, not "MB").
    let o = run(&["--max-memory", "100KB"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("limit of 97.7 KiB"), "{err}");
    // An unknown paper lists the papers there are.
    let o = bin()
        .args(["reproduce", "nosuch"])
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no paper \"nosuch\"") && err.contains("kulkarni"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 38, item 20: an OS error is printed once (it came back twice through the error's
/// chain), and a missing config's path once.
#[test]
fn os_errors_are_printed_once() {
    let o = bin()
        .arg("run")
        .arg(config("incast-classic.yaml"))
        .args(["--set", "workload.blocks=1", "--out", "/proc/nonexistent/x"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    let o = bin()
        .args(["check", "no-such-config.yaml"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("no-such-config.yaml").count(), 2, "{err}"); // "invalid config X: cannot read X: ..."
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
}

/// `incastsim run` on a shipped config (a path under `configs/`) with `sets` overrides, into
/// `out`: its standard output (the run must succeed).
fn run_summary(config: &str, sets: &[&str], out: &std::path::Path) -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_incastsim"));
    cmd.args(["run", &format!("configs/{config}")]);
    for s in sets {
        cmd.args(["--set", s]);
    }
    let o = cmd
        .arg("--out")
        .arg(out)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Issue 39, item 4: a traffic run's summary shows what the workload exists for, its flows'
/// completion times and slowdowns.
#[test]
fn a_traffic_run_summary_shows_fct_and_slowdown() {
    let stdout = run_summary(
        "websearch-fattree.yaml",
        &["topology.k=4", "senders=15", "workload.duration=5ms"],
        &tempdir("traffic-summary"),
    );
    let line = stdout
        .lines()
        .find(|l| l.contains("FCT"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        line.contains("completed") && line.contains("p99") && line.contains("slowdown"),
        "{line}"
    );
}

/// Issue 39, item 4: a collective run's summary shows each job (iterations, completion, the
/// ideal, busBW), and a traffic workload's headline names the hosts.
#[test]
fn a_collective_run_summary_shows_each_job() {
    let out = tempdir("collective-summary");
    let stdout = run_summary(
        "collectives/parameter-server.yaml",
        &["traffic[0].iterations=2", "senders=4"],
        &out,
    );
    let line = stdout
        .lines()
        .find(|l| l.starts_with("  collective job 0 (parameter_server, 5 ranks)"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        line.contains("2/2 iterations completed")
            && line.contains("completion mean")
            && line.contains("ideal")
            && line.contains("busBW"),
        "{line}"
    );
    assert!(out.join("collectives.csv").exists() && out.join("collective_steps.csv").exists());
    // A traffic workload's headline names the hosts, not `senders` (issue 39, item 4).
    assert!(
        stdout.contains("star topology, 5 hosts, traffic"),
        "{stdout}"
    );
}

/// Issue 39, item 4: a lossless run's summary shows its pauses (and the deepest, the victims
/// and the deadlocks); a run without `pfc:` prints no such line.
#[test]
fn a_lossless_run_summary_shows_its_pauses() {
    let run = |sets: &[&str]| {
        let sets: Vec<&str> = ["workload.blocks=2"].iter().chain(sets).copied().collect();
        run_summary("roce-rack-incast.yaml", &sets, &tempdir("pfc-summary"))
    };
    let stdout = run(&[]);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("  PFC:"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        line.contains("PAUSEs")
            && line.contains("most paused")
            && line.contains("deepest pause")
            && line.contains("0 deadlocks"),
        "{line}"
    );
    assert!(!run(&["pfc=null"]).contains("PFC:"));
}
