//! End-to-end tests of `incastsim sweep`, `merge` and `plot`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SWEEP: &str = r#"
name: small-sweep
seed: 3
senders: 1
topology: {kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 32KB}
tcp: {rto_min: 1ms}
workload: {kind: synchronized_reads, sru: 64KB, blocks: 5}
sweep:
  seeds: 3
  grid:
    senders: [1, 4, 8]
    tcp.rto_min: [1ms, 200us]
  plots:
    - {x: senders, y: goodput_mbps, series: rto_min}
"#;

const RESULT_FILES: [&str; 3] = ["runs.csv", "flows.csv", "summary.csv"];

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_incastsim"))
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("incastsim-sweep-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write_config(dir: &Path, text: &str) -> PathBuf {
    let p = dir.join("sweep-config.yaml");
    std::fs::write(&p, text).unwrap();
    p
}

fn sweep(config: &Path, out: &Path, extra: &[&str]) -> Output {
    bin()
        .arg("sweep")
        .arg(config)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

fn ok(o: Output) -> Output {
    assert!(
        o.status.success(),
        "failed: {}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn assert_same_results(a: &Path, b: &Path) {
    for f in RESULT_FILES {
        let (x, y) = (
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
        );
        assert!(x.len() > 100, "{} is nearly empty", a.join(f).display());
        assert!(
            x == y,
            "{f} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

#[test]
fn results_do_not_depend_on_jobs() {
    let d = tempdir("jobs");
    let cfg = write_config(&d, SWEEP);
    ok(sweep(&cfg, &d.join("one"), &["--jobs", "1"]));
    ok(sweep(&cfg, &d.join("two"), &["--jobs", "2"]));
    ok(sweep(&cfg, &d.join("four"), &["--jobs", "4"]));
    assert_same_results(&d.join("one"), &d.join("two"));
    assert_same_results(&d.join("one"), &d.join("four"));
    let runs = std::fs::read_to_string(d.join("one/runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 6 * 3, "6 points x 3 seeds");
    let header = runs.lines().next().unwrap();
    assert!(
        header.starts_with("point,replicate,senders,tcp.rto_min,scenario,seed,"),
        "{header}"
    );
    assert_eq!(
        header.split(',').filter(|c| *c == "senders").count(),
        1,
        "no duplicate columns"
    );
    assert!(
        d.join("one/plots/goodput_mbps-vs-senders-by-rto_min.png")
            .exists()
    );
    assert!(
        d.join("one/plots/goodput_mbps-vs-senders-by-rto_min.svg")
            .exists()
    );
}

#[test]
fn adding_seeds_keeps_earlier_results() {
    let d = tempdir("more-seeds");
    let cfg = write_config(&d, SWEEP);
    let out = d.join("out");
    ok(sweep(&cfg, &out, &["--set", "sweep.seeds=2"]));
    let before = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    let o = ok(sweep(&cfg, &out, &[]));
    assert!(String::from_utf8_lossy(&o.stdout).contains("6 runs computed, 12 already done"));
    let after = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    for line in before.lines() {
        assert!(after.contains(line), "an earlier run changed: {line}");
    }
    ok(sweep(&cfg, &d.join("fresh"), &[]));
    assert_same_results(&out, &d.join("fresh"));
}

#[test]
fn resume_after_a_simulated_crash_gives_identical_files() {
    let d = tempdir("crash");
    let cfg = write_config(&d, SWEEP);
    let full = d.join("full");
    ok(sweep(&cfg, &full, &[]));
    // A crash after 7 runs, in the middle of writing the 8th run's flow rows and a run row:
    // completion order, half-written lines, no summary.
    let crashed = d.join("crashed");
    std::fs::create_dir_all(&crashed).unwrap();
    for f in ["sweep.lock.json", "sweep.yaml"] {
        std::fs::copy(full.join(f), crashed.join(f)).unwrap();
    }
    let runs = std::fs::read_to_string(full.join("runs.csv")).unwrap();
    let mut lines: Vec<&str> = runs.lines().collect();
    let header = lines.remove(0);
    lines.reverse(); // not the final order
    let kept: Vec<&str> = lines[..7].to_vec();
    let partial = &lines[7][..lines[7].len() / 2];
    std::fs::write(
        crashed.join("runs.csv"),
        format!("{header}\n{}\n{partial}", kept.join("\n")),
    )
    .unwrap();
    let flows = std::fs::read_to_string(full.join("flows.csv")).unwrap();
    let mut flow_lines: Vec<&str> = flows.lines().collect();
    let fheader = flow_lines.remove(0);
    let id = |l: &str| l.split(',').take(2).collect::<Vec<_>>().join(",");
    let kept_ids: Vec<String> = kept.iter().map(|l| id(l)).collect();
    let mut fl: Vec<&str> = flow_lines
        .iter()
        .copied()
        .filter(|l| kept_ids.contains(&id(l)))
        .collect();
    let orphan = flow_lines
        .iter()
        .copied()
        .find(|l| !kept_ids.contains(&id(l)))
        .unwrap();
    fl.push(orphan); // flow rows of a run whose run row never made it
    std::fs::write(
        crashed.join("flows.csv"),
        format!("{fheader}\n{}\n{}", fl.join("\n"), &orphan[..10]),
    )
    .unwrap();
    // The index rows of the 7 complete runs (the index row is written last).
    let index = std::fs::read_to_string(full.join("runs.index.csv")).unwrap();
    let index_lines: Vec<&str> = index
        .lines()
        .skip(1)
        .filter(|l| kept_ids.contains(&id(l)))
        .collect();
    std::fs::write(
        crashed.join("runs.index.csv"),
        format!(
            "{}\n{}\n",
            index.lines().next().unwrap(),
            index_lines.join("\n")
        ),
    )
    .unwrap();
    let o = ok(sweep(&cfg, &crashed, &[]));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("11 runs computed, 7 already done"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert_same_results(&full, &crashed);
}

#[test]
fn resume_after_kill_9_gives_identical_files() {
    let d = tempdir("kill");
    // Long enough (~2 s of work) that the kills land mid-sweep.
    let cfg = write_config(
        &d,
        &SWEEP
            .replace("seeds: 3", "seeds: 30")
            .replace("blocks: 5", "blocks: 60"),
    );
    let full = d.join("full");
    ok(sweep(&cfg, &full, &[]));
    let killed = d.join("killed");
    let rows = |dir: &Path| {
        std::fs::read_to_string(dir.join("runs.csv"))
            .map_or(0, |s| s.lines().count().saturating_sub(1))
    };
    let mut interrupted = 0;
    for delay_ms in [200, 400, 600] {
        let mut child = bin()
            .arg("sweep")
            .arg(&cfg)
            .arg("--out")
            .arg(&killed)
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        if rows(&killed) < 180 {
            interrupted += 1;
        }
    }
    assert!(
        interrupted > 0,
        "no kill landed mid-sweep: the test sweep is too short"
    );
    ok(sweep(&cfg, &killed, &[]));
    assert_same_results(&full, &killed);
}

/// Issue 17, finding 2: four sweeps started at once into one folder. Before the folder lock all
/// four exited 0 with rows missing or mixed; now one runs, the others refuse naming the holder,
/// and the files equal those of a sweep run alone.
#[test]
fn concurrent_sweeps_into_one_folder_one_runs_the_others_refuse() {
    let d = tempdir("concurrent");
    let cfg = write_config(&d, &SWEEP.replace("seeds: 3", "seeds: 12"));
    let alone = d.join("alone");
    ok(sweep(&cfg, &alone, &[]));
    let shared = d.join("shared");
    let children: Vec<_> = (0..4)
        .map(|_| {
            bin()
                .arg("sweep")
                .arg(&cfg)
                .arg("--out")
                .arg(&shared)
                .arg("--jobs")
                .arg("1")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outputs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let winners = outputs.iter().filter(|o| o.status.success()).count();
    assert_eq!(winners, 1, "exactly one sweep runs");
    for o in outputs.iter().filter(|o| !o.status.success()) {
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("in use by another sweep"), "{err}");
        assert!(err.contains("pid ") && err.contains("host "), "{err}");
    }
    assert_same_results(&alone, &shared);
}

/// Issue 17, finding 3: resume re-runs a run whose rows vanished from flows.csv (emptied,
/// deleted or edited), says so, and ends with the files of an uninterrupted sweep.
#[test]
fn resume_restores_rows_lost_from_flows_csv() {
    let d = tempdir("lost-rows");
    let cfg = write_config(&d, SWEEP);
    let full = d.join("full");
    ok(sweep(&cfg, &full, &[]));
    let out = d.join("out");
    ok(sweep(&cfg, &out, &[]));
    // Emptied (header kept): every run is re-run.
    let flows = std::fs::read_to_string(out.join("flows.csv")).unwrap();
    std::fs::write(
        out.join("flows.csv"),
        format!("{}\n", flows.lines().next().unwrap()),
    )
    .unwrap();
    let o = ok(sweep(&cfg, &out, &[]));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("18 run(s)") && err.contains("will be run again"),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("18 runs computed, 0 already done"));
    assert_same_results(&full, &out);
    // Deleted.
    std::fs::remove_file(out.join("flows.csv")).unwrap();
    ok(sweep(&cfg, &out, &[]));
    assert_same_results(&full, &out);
    // One value edited in runs.csv: that run alone is redone.
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    let mut lines: Vec<String> = runs.lines().map(String::from).collect();
    let edited = lines[3].clone();
    let mut fields: Vec<&str> = edited.split(',').collect();
    let last = fields.len() - 1;
    fields[last] = "12345";
    lines[3] = fields.join(",");
    std::fs::write(out.join("runs.csv"), lines.join("\n") + "\n").unwrap();
    let o = ok(sweep(&cfg, &out, &[]));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("its row in runs.csv was changed"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("1 runs computed, 17 already done"));
    assert_same_results(&full, &out);
}

/// Merge refuses a shard folder whose flows.csv lost rows instead of merging a hole.
#[test]
fn merge_refuses_a_shard_with_missing_rows() {
    let d = tempdir("merge-hole");
    let cfg = write_config(&d, SWEEP);
    let a = d.join("a");
    let b = d.join("b");
    ok(sweep(&cfg, &a, &["--shard", "1/2"]));
    ok(sweep(&cfg, &b, &["--shard", "2/2"]));
    let flows = std::fs::read_to_string(b.join("flows.csv")).unwrap();
    let kept: Vec<&str> = flows.lines().take(flows.lines().count() - 2).collect();
    std::fs::write(b.join("flows.csv"), kept.join("\n") + "\n").unwrap();
    let o = bin()
        .arg("merge")
        .arg(&a)
        .arg(&b)
        .arg("--out")
        .arg(d.join("merged"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("incomplete or altered") && err.contains("flows.csv has"),
        "{err}"
    );
    // Resuming the shard repairs it; then the merge goes through.
    ok(sweep(&cfg, &b, &["--shard", "2/2"]));
    ok(bin()
        .arg("merge")
        .arg(&a)
        .arg(&b)
        .arg("--out")
        .arg(d.join("merged"))
        .output()
        .unwrap());
    ok(sweep(&cfg, &d.join("single"), &[]));
    assert_same_results(&d.join("single"), &d.join("merged"));
}

#[test]
fn merged_shards_equal_one_machine() {
    let d = tempdir("shards");
    let cfg = write_config(&d, SWEEP);
    ok(sweep(&cfg, &d.join("single"), &[]));
    let mut shard_dirs = Vec::new();
    for i in 1..=3 {
        let dir = d.join(format!("shard{i}"));
        ok(sweep(&cfg, &dir, &["--shard", &format!("{i}/3")]));
        shard_dirs.push(dir);
    }
    let total: usize = shard_dirs
        .iter()
        .map(|s| {
            std::fs::read_to_string(s.join("runs.csv"))
                .unwrap()
                .lines()
                .count()
                - 1
        })
        .sum();
    assert_eq!(total, 18, "shards partition the runs");
    let merged = d.join("merged");
    ok(bin()
        .arg("merge")
        .args(&shard_dirs)
        .arg("--out")
        .arg(&merged)
        .output()
        .unwrap());
    assert_same_results(&d.join("single"), &merged);
    assert!(
        merged
            .join("plots/goodput_mbps-vs-senders-by-rto_min.png")
            .exists()
    );
    let manifest = std::fs::read_to_string(merged.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"complete\": true") && manifest.contains("\"runs_total\": 18"));
    // Issue 38, item 11: two of three shards merge into a folder marked incomplete, and the
    // merge says how many runs are missing (exit status 2).
    let partial = d.join("partial");
    let o = bin()
        .arg("merge")
        .args(&shard_dirs[..2])
        .arg("--out")
        .arg(&partial)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("of the sweep's 18 runs") && err.contains("missing"),
        "{err}"
    );
    let manifest = std::fs::read_to_string(partial.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"complete\": false"), "{manifest}");
}

#[test]
fn changed_config_in_the_same_folder_is_refused() {
    let d = tempdir("changed");
    let cfg = write_config(&d, SWEEP);
    let out = d.join("out");
    ok(sweep(&cfg, &out, &[]));
    let o = sweep(&cfg, &out, &["--set", "workload.blocks=6"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("different sweep configuration"));
    let other = write_config(&tempdir("changed-2"), &SWEEP.replace("32KB", "64KB"));
    ok(sweep(&other, &d.join("elsewhere"), &[]));
    let o = bin()
        .arg("merge")
        .arg(&out)
        .arg(d.join("elsewhere"))
        .arg("--out")
        .arg(d.join("m"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("different sweep configuration"));
}

#[test]
fn bad_sweeps_are_refused_before_running() {
    let d = tempdir("bad");
    let cases = [
        (
            SWEEP.replace("tcp.rto_min: [1ms, 200us]", "tcp.rto_mni: [1ms]"),
            vec![],
            "rto_mni",
        ),
        (
            SWEEP.replace("[1, 4, 8]", "[]"),
            vec![],
            "sweep.grid.senders: empty list",
        ),
        (SWEEP.replace("seeds: 3", "seeds: 0"), vec![], "sweep.seeds"),
        (SWEEP.to_string(), vec!["--shard", "3/2"], "1 <= i <= n"),
        (SWEEP.replace("[1, 4, 8]", "[1, 0]"), vec![], "senders=0"),
    ];
    for (i, (text, extra, expect)) in cases.iter().enumerate() {
        let cfg = write_config(&d, text);
        let out = d.join(format!("out{i}"));
        let o = sweep(&cfg, &out, extra);
        assert_eq!(o.status.code(), Some(2), "case {i} should fail");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(expect), "case {i}: {err:?} lacks {expect:?}");
        assert!(
            !out.join("runs.csv").exists(),
            "case {i}: nothing may be written"
        );
    }
    // `run` on a sweep config says to use `sweep`.
    let cfg = write_config(&d, SWEEP);
    let o = bin().arg("run").arg(&cfg).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("incastsim sweep"));
}

#[test]
fn plot_command_draws_from_a_sweep_folder() {
    let d = tempdir("plot");
    let cfg = write_config(&d, SWEEP);
    let out = d.join("out");
    ok(sweep(&cfg, &out, &["--no-plots"]));
    let o = ok(bin()
        .arg("plot")
        .arg(&out)
        .args([
            "--x",
            "senders",
            "--y",
            "rto_count",
            "--series",
            "rto_min",
            "--log-y",
            "--name",
            "rtos",
        ])
        .output()
        .unwrap());
    assert!(String::from_utf8_lossy(&o.stdout).contains("rtos.png"));
    assert!(out.join("plots/rtos.svg").exists());
    // Issue 38, item 12: without --series the other swept key would zig-zag one line through
    // its values: refused, naming the key to draw as series.
    let o = bin()
        .arg("plot")
        .arg(&out)
        .args(["--x", "senders", "--y", "rto_count"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--series tcp.rto_min"));
    let o = bin()
        .arg("plot")
        .arg(&out)
        .args(["--x", "tcp.rto_min", "--y", "goodput_mbps"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("mixes units"));
    // Issue 39, item 3: a log x axis, only the PDF, into another folder.
    let pdfs = d.join("pdfs");
    let o = ok(bin()
        .arg("plot")
        .arg(&out)
        .args([
            "--x",
            "senders",
            "--y",
            "goodput_mbps",
            "--series",
            "rto_min",
        ])
        .args(["--log-x", "--format", "pdf", "--name", "g", "--out"])
        .arg(&pdfs)
        .output()
        .unwrap());
    assert!(String::from_utf8_lossy(&o.stdout).contains("g.pdf"));
    assert!(
        std::fs::read(pdfs.join("g.pdf"))
            .unwrap()
            .starts_with(b"%PDF-")
    );
    assert!(!pdfs.join("g.png").exists() && !pdfs.join("g.svg").exists());
    // An unknown metric is answered with the summary's metrics.
    let o = bin()
        .arg("plot")
        .arg(&out)
        .args(["--x", "senders", "--y", "goodput", "--series", "rto_min"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("no metric \"goodput\" in the summary (did you mean ")
            && e.contains("its metrics: ")
            && e.contains("rto_count"),
        "{e}"
    );
}

/// A sweep with a point of 512 hosts or more re-executes the binary with glibc's huge-page
/// tunable as `incastsim run` does (where the kernel's mode is `madvise`); a sweep of small
/// points does not. The manifest says which.
#[test]
fn a_sweep_of_large_points_puts_the_heap_on_huge_pages() {
    use incastsim::host::{OPT_OUT_VAR, ThpMode};
    const LARGE: &str = r#"
name: large-sweep
seed: 1
senders: 1023
topology: {kind: fat_tree, k: 16, link_rate: 10Gbps, link_delay: 1us, switch_buffer: 100 packets, receiver_host: 0}
tcp: {mss: 1460B, rto_min: 1ms}
workload: {kind: traffic, duration: 10us, drain: true}
traffic:
  - {kind: poisson, load: 0.5, sizes: {kind: cdf, file: websearch}, sources: all, destinations: all}
sweep:
  seeds: 1
  grid:
    tcp.initial_cwnd: [10]
"#;
    let flag = |text: &str, tag: &str| {
        let dir = tempdir(tag);
        let config = write_config(&dir, text);
        let out = dir.join("out");
        ok(bin()
            .arg("sweep")
            .arg(&config)
            .arg("--out")
            .arg(&out)
            .env_remove("GLIBC_TUNABLES")
            .env_remove(OPT_OUT_VAR)
            .output()
            .unwrap());
        let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
        manifest.contains("\"heap_huge_pages\": true")
    };
    let mode = ThpMode::of_this_host();
    let always = mode == Some(ThpMode::Always);
    let asks = cfg!(all(target_os = "linux", target_env = "gnu")) && mode == Some(ThpMode::Madvise);
    assert_eq!(
        flag(LARGE, "huge-large"),
        always || asks,
        "kernel mode {mode:?}"
    );
    assert_eq!(flag(SWEEP, "huge-small"), always);
}

/// Issue 38, item 18: a damaged results file is refused naming the file and the way out, and
/// following the advice (delete it, run again) completes the sweep with every result.
#[test]
fn a_damaged_results_file_names_the_way_out() {
    let d = tempdir("damaged");
    let cfg = write_config(&d, SWEEP);
    let out = d.join("out");
    ok(sweep(&cfg, &out, &[]));
    let good = std::fs::read(out.join("runs.csv")).unwrap();
    let mut bad = good.clone();
    bad.extend_from_slice(b"0,9,1,1ms,broken\n");
    std::fs::write(out.join("runs.csv"), &bad).unwrap();
    let o = sweep(&cfg, &out, &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("runs.csv") && err.contains("delete it and run the same sweep again"),
        "{err}"
    );
    std::fs::remove_file(out.join("runs.csv")).unwrap();
    ok(sweep(&cfg, &out, &[]));
    assert_eq!(std::fs::read(out.join("runs.csv")).unwrap(), good);
}

/// Issue 38, item 19: rerunning a finished sweep computes nothing and keeps the manifest of the
/// runs that did the work (its timing was replaced by 0 s).
#[test]
fn rerunning_a_finished_sweep_keeps_its_manifest() {
    let d = tempdir("rerun-manifest");
    let cfg = write_config(&d, SWEEP);
    let out = d.join("out");
    ok(sweep(&cfg, &out, &[]));
    let before = std::fs::read(out.join("manifest.json")).unwrap();
    ok(sweep(&cfg, &out, &[]));
    assert_eq!(std::fs::read(out.join("manifest.json")).unwrap(), before);
}
