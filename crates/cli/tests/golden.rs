//! Golden outputs: every shipped config, run short through the real binary, must write exactly the
//! bytes stored under `tests/golden/` (repository root).
//!
//! These files guard refactors: a change that moves any number, any column or the order of events
//! (the `events` column of runs.csv counts them) shows up here. When a change is *meant* to move
//! results, refresh the files with
//!
//! ```text
//! UPDATE_GOLDEN=1 cargo test -p incastsim-cli --test cli golden::
//! ```
//!
//! and review the diff in the commit that makes the change (its message says why they moved).
//!
//! Compared: every CSV, the resolved config (`config.resolved.yaml`, `points.resolved.yaml`,
//! `sweep.yaml`, `experiment.resolved.yaml`) and a sweep's `summary.csv`. Not compared: the
//! manifest and the sweep lock (wall-clock facts, version), and plots (images).
//!
//! Budget (issue 36, item 7: goldens a person can review): all of `tests/golden/` at most
//! [`MAX_GOLDEN_BYTES`], and the `events` column of every golden runs.csv summing to at most
//! [`MAX_GOLDEN_EVENTS`] (`goldens_stay_within_budget`). A case gets what its config is for, not
//! its whole grid: the full sweeps are the reproductions' business (`incastsim sweep`,
//! `incastsim reproduce`), and docs/reproductions/ holds their results.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How a config is run: the command, the config path under `configs/` (without `.yaml`) and the
/// overrides that keep it short while still exercising what it is for.
///
/// The paper sweeps (`configs/papers/`) run 2-4 of their grid points: `sweep.grid={...}` replaces
/// the config's grid with the same keys, in the same order, and fewer values, so a kept point
/// keeps its label, hence its seeds and every number it had when the case ran the whole grid.
/// Each case keeps every scheme the paper compares (the parameter variants with a code path of
/// their own, not the ones that only change a value) next to the baseline, at the cheapest sender
/// count where the scheme acts (timeouts, drops, recovery happen there: see each case's comment).
/// Small sender counts because bytes grow with them: summary.csv costs ~10 KB per point, flows.csv
/// a row per flow.
struct Case {
    command: &'static str,
    config: &'static str,
    overrides: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        command: "run",
        config: "bulk-dumbbell",
        overrides: &["workload.duration=0.05s"],
    },
    Case {
        command: "run",
        config: "bulk-dumbbell-cubic",
        overrides: &["workload.duration=0.05s"],
    },
    Case {
        command: "run",
        config: "bulk-dumbbell-dctcp",
        overrides: &["workload.duration=0.05s"],
    },
    Case {
        command: "run",
        config: "incast-classic",
        overrides: &["workload.blocks=5"],
    },
    Case {
        command: "run",
        config: "incast-pcap",
        overrides: &[],
    },
    Case {
        command: "run",
        config: "incast-dctcp",
        overrides: &["workload.blocks=5"],
    },
    Case {
        command: "sweep",
        config: "incast-sweep",
        // Both ends and the middle of N, the classic and the fine-grained RTO_min: every path
        // the 32-point grid reaches, in a quarter of the bytes.
        overrides: &[
            "workload.blocks=2",
            "sweep.seeds=2",
            "sweep.grid={senders: [1, 4, 16, 64], tcp.rto_min: [200ms, 1ms]}",
        ],
    },
    Case {
        command: "sweep",
        config: "incast-linux",
        overrides: &["workload.blocks=2", "sweep.seeds=2"],
    },
    Case {
        command: "sweep",
        config: "incast-ns2",
        overrides: &["workload.blocks=2", "sweep.seeds=2"],
    },
    Case {
        command: "run",
        config: "outcast-fattree",
        overrides: &["workload.duration=0.2s"],
    },
    Case {
        command: "sweep",
        config: "pfc-collateral-sweep",
        // The three fabrics at one incast flow per host, one seed, 2 ms.
        overrides: &[
            "workload.duration=2ms",
            "sweep.seeds=1",
            "sweep.grid={\"traffic[0].count\": [1]}",
        ],
    },
    Case {
        command: "run",
        config: "pfc-collateral",
        // One block of the 64:1 incast beside the long flow: PAUSEs, pfc.csv, no drop.
        overrides: &["workload.blocks=1", "workload.sru=32KB"],
    },
    Case {
        command: "sweep",
        config: "pfc-deadlock-sweep",
        // Below and above the onset (50 Gbps per host), one seed, 2 ms.
        overrides: &[
            "run.max_sim_time=2ms",
            "workload.duration=2ms",
            "sweep.seeds=1",
            "sweep.zip={\"background[0].rate\": [45Gbps, 100Gbps], \"background[1].rate\": [45Gbps, 100Gbps], \"background[2].rate\": [45Gbps, 100Gbps], \"background[3].rate\": [45Gbps, 100Gbps]}",
        ],
    },
    Case {
        command: "run",
        config: "pfc-deadlock",
        // The ring locks within ~11 µs; confirmed 100 µs later, the run stops (pfc_deadlock):
        // pfc_deadlocks.csv names the cycle.
        overrides: &["pfc.deadlock.after=100us"],
    },
    Case {
        command: "run",
        config: "rdma-fairness",
        // DCQCN (paper), 2 ms after the late flow starts: marks, CNPs, cuts; the RDMA run columns.
        overrides: &["workload.duration=12ms", "metrics.rate_from=6ms"],
    },
    Case {
        command: "sweep",
        config: "rdma-fairness-sweep",
        // The two papers' controllers, one length, with jitter, one seed.
        overrides: &[
            "sweep.seeds=1",
            "sweep.grid={tcp.transport.congestion_control: [{kind: dcqcn, preset: paper}, {kind: timely, preset: paper}], workload.duration: [12ms], topology.switch_delay_jitter: [1us]}",
            "metrics.rate_from=6ms",
        ],
    },
    Case {
        command: "run",
        config: "rdma-incast",
        // Four queue pairs under DCQCN (fork), one 256 KB block: PFC pauses, the queue series.
        overrides: &[
            "senders=4",
            "workload.blocks=1",
            "workload.sru=256KB",
            "time_series={interval: 5us, ports: [\"switch0->host4\"]}",
        ],
    },
    Case {
        command: "sweep",
        config: "rdma-incast-sweep",
        // The four controllers (the zip, none included) at N = 4, one block, with jitter.
        overrides: &[
            "sweep.seeds=1",
            "workload.blocks=1",
            "workload.sru=256KB",
            "sweep.grid={senders: [4], topology.switch_delay_jitter: [1us]}",
        ],
    },
    Case {
        command: "run",
        config: "rdma-fct",
        // 0.1 ms of Hadoop arrivals on the k = 4 fat-tree under DCQCN (fork): sized flows, slowdowns.
        overrides: &["workload.duration=0.1ms"],
    },
    Case {
        command: "sweep",
        config: "rdma-fct-sweep",
        // DCQCN and HPCC at 30 % load on k = 4, 0.1 ms of arrivals, with jitter, one seed.
        overrides: &[
            "sweep.seeds=1",
            "topology.k=4",
            "senders=15",
            "traffic[1].fan_in=12",
            "workload.duration=0.1ms",
            "sweep.grid={\"traffic[0].load\": [0.3], topology.switch_delay_jitter: [1us], tcp.transport.congestion_control: [{kind: dcqcn, preset: hpcc_fork}, {kind: hpcc, preset: hpcc_fork}]}",
        ],
    },
    Case {
        command: "run",
        config: "collectives/ring-allreduce",
        // 1 MB over 8 ranks instead of 64 MB over 16: 14 dependent steps of 8 flows on RoCE
        // with PFC.
        overrides: &["traffic[0].size=1MB", "traffic[0].ranks=8"],
    },
    Case {
        command: "sweep",
        config: "collectives/ring-allreduce-sweep",
        // The three all-reduces in order on 4 ranks, one seed, 1 MB, one iteration.
        overrides: &[
            "sweep.seeds=1",
            "traffic[0].size=1MB",
            "traffic[0].ranks=4",
            "traffic[0].iterations=1",
            "sweep.grid={\"traffic[0].algorithm\": [ring_allreduce, halving_doubling_allreduce, double_binary_tree_allreduce], \"traffic[0].placement\": [in_order]}",
        ],
    },
    Case {
        command: "run",
        config: "collectives/all-to-all",
        // 1 MB per rank over 8 ranks, a flow per pair.
        overrides: &[
            "traffic[0].size=1MB",
            "traffic[0].chunks=1",
            "traffic[0].ranks=8",
        ],
    },
    Case {
        command: "run",
        config: "collectives/all-to-all-1024",
        // The same pairwise all-to-all on 8 ranks of a k = 4 fat-tree: 7 dependent rounds.
        overrides: &[
            "topology.k=4",
            "senders=15",
            "traffic[0].size=64KB",
            "traffic[0].ranks=8",
        ],
    },
    Case {
        command: "run",
        config: "collectives/parameter-server",
        // 4 workers, 2 iterations: a push that loses and waits for RTOs, then the pull.
        overrides: &["senders=4", "traffic[0].iterations=2"],
    },
    Case {
        command: "run",
        config: "collectives/goal-trace",
        // LogGOPSim's published 16-rank dissemination barrier, whole.
        overrides: &[],
    },
    Case {
        command: "sweep",
        config: "roce-rack-incast-sweep",
        // The smallest N, the three fabrics (the zip), two seeds, two blocks.
        overrides: &[
            "workload.blocks=2",
            "sweep.seeds=2",
            "sweep.grid={senders: [8]}",
        ],
    },
    Case {
        command: "run",
        config: "roce-rack-incast",
        // Four queue pairs, two blocks: PFC pauses the incast, nothing dropped.
        overrides: &["senders=4", "workload.blocks=2"],
    },
    Case {
        command: "sweep",
        config: "rto-nonincast",
        // The lightest, a middle and the heaviest load of the nine.
        overrides: &[
            "workload.duration=0.05s",
            "sweep.seeds=2",
            "sweep.grid={\"traffic[0].load\": [0.1, 0.5, 0.9]}",
        ],
    },
    Case {
        command: "sweep",
        config: "shared-buffer-incast",
        overrides: &["workload.blocks=2", "sweep.seeds=2"],
    },
    Case {
        command: "run",
        config: "tcprand-testbed",
        overrides: &["workload.duration=0.2s"],
    },
    Case {
        command: "run",
        config: "websearch-fattree",
        overrides: &["workload.duration=0.01s"],
    },
    Case {
        command: "run",
        config: "rdma-fattree-k8",
        // S6 on a k = 4 fat-tree for 0.3 ms: web-search flows and a 12-sender incast group
        // under DCQCN, PAUSEs in the shared buffers, nothing dropped.
        overrides: &[
            "topology.k=4",
            "senders=15",
            "workload.duration=0.3ms",
            "traffic[1].fan_in=12",
        ],
    },
    Case {
        command: "run",
        config: "alltoall-k16",
        // S7's pairwise all-to-all of 16 KB per peer on 8 ranks of a k = 4 fat-tree.
        overrides: &[
            "topology.k=4",
            "senders=15",
            "traffic[0].ranks=8",
            "traffic[0].size=128000B",
        ],
    },
    Case {
        command: "run",
        config: "fattree-k32-cubic",
        overrides: &[
            "topology.k=4",
            "senders=15",
            "traffic[0].flows=8", // 1 MB each: drops and an RTO, 52 k events
        ],
    },
    Case {
        command: "sweep",
        config: "papers/book-fig3-8",
        // N = 1 (no loss: the models are left empty) and N = 8 (losses: p_c, p_r and the models);
        // every run stops at run.max_sim_time (censored: include).
        overrides: &[
            "run.max_sim_time=0.05s",
            "sweep.seeds=2",
            "sweep.grid={senders: [1, 8], topology.switch_delay_jitter: [0us, 1us]}",
        ],
    },
    Case {
        command: "sweep",
        config: "papers/ge-smaller-packets",
        // Both packet sizes (each its own Eq. 3 bound), both jitters; N = 2 has RTOs and fast
        // retransmits.
        overrides: &[
            "workload.blocks=2",
            "sweep.seeds=2",
            "sweep.grid={senders: [2], tcp.mss: [710B, 1460B], topology.switch_delay_jitter: [0us, 1us]}",
        ],
    },
    Case {
        command: "sweep",
        config: "papers/hafeez-fig4-max-rto",
        // rto_static with a 2 KB buffer at N = 4 and 8: most flows time out, some twice in a row.
        overrides: &[
            "run.max_sim_time=0.2s",
            "sweep.seeds=2",
            "sweep.grid={senders: [4, 8], topology.switch_delay_jitter: [0us, 1us]}",
        ],
    },
    Case {
        command: "sweep",
        config: "papers/hafeez-rto-randomization",
        // Every scheme at N = 4 with jitter: each scheme's randomized RTO fires (max_first_rto_ms
        // is not RTO_min). Successive timeouts: the -bg case.
        overrides: &[
            "run.max_sim_time=0.2s",
            "sweep.seeds=2",
            "sweep.grid={senders: [4], scheme: [none, rto_static, tda, maa], topology.switch_delay_jitter: [1us]}",
        ],
    },
    Case {
        command: "sweep",
        config: "papers/hafeez-rto-randomization-bg",
        // Every scheme at N = 4 without jitter: successive timeouts in every scheme (TDA's
        // omega^s), runs censored at run.max_sim_time, FSA's omega_long on the background flows
        // (past 1 MB sent) and omega_short on the task's.
        overrides: &[
            "run.max_sim_time=0.1s",
            "sweep.seeds=2",
            "sweep.grid={senders: [4], scheme: [none, tda, maa, fsa], topology.switch_delay_jitter: [0us]}",
        ],
    },
    Case {
        command: "sweep",
        config: "papers/kulkarni-dsr",
        // TCP, DSR and DSR with compressed headers at N = 2, where runs time out.
        overrides: &[
            "workload.blocks=2",
            "sweep.seeds=2",
            "sweep.grid={senders: [2], scheme: [none, dsr, {name: dsr, compressed_header: 4B}], topology.switch_delay_jitter: [0us]}",
        ],
    },
    Case {
        command: "sweep",
        config: "papers/kulkarni-prob-retx",
        // TCP and PR's three code paths (default; segment: last_sent; suspend_in_recovery:
        // false) at N = 4, where fast recovery happens and PR resends segments that were not
        // lost; p = 0.01 differs from p = 0.001 only in value.
        overrides: &[
            "workload.blocks=2",
            "sweep.seeds=2",
            "sweep.grid={senders: [4], scheme: [none, {name: prob_retx, p: 0.001}, {name: prob_retx, p: 0.001, segment: last_sent}, {name: prob_retx, p: 0.001, suspend_in_recovery: false}], topology.switch_delay_jitter: [0us]}",
        ],
    },
    Case {
        command: "sweep",
        config: "papers/lee-tcprand-outcast",
        // TCP, adaptive and static rMin on the 20-packet buffer (the most drops and RTOs).
        overrides: &[
            "workload.duration=0.05s",
            "sweep.seeds=2",
            "sweep.grid={topology.switch_buffer: [20 packets], scheme: [none, tcprand, {name: tcprand, r_min: 200B}], topology.switch_delay_jitter: [0us]}",
        ],
    },
    Case {
        command: "sweep",
        config: "papers/shukla-plato",
        // NewReno and PLATO at N = 8 and 32 with jitter: NewReno runs wait out the 200 ms RTO
        // (censored at run.max_sim_time), PLATO's complete (at 32 after timeouts).
        overrides: &[
            "run.max_sim_time=0.2s",
            "sweep.seeds=2",
            "sweep.grid={senders: [8, 32], scheme: [none, plato], topology.switch_delay_jitter: [1us]}",
        ],
    },
    Case {
        command: "experiment",
        config: "papers/tcprand-fig5",
        overrides: &[
            "experiment.r_min={from: 1, to: 1448, step: 181}",
            "experiment.trials=50",
        ],
    },
    Case {
        command: "sweep",
        config: "papers/vasudevan-fine-grained-rto",
        // Both schemes, both jitters at N = 8: every run times out, up to 3 times in a row
        // (fine_rto's randomized backoff).
        overrides: &[
            "workload.blocks=2",
            "sweep.seeds=2",
            "sweep.grid={senders: [8], scheme: [none, fine_rto], topology.switch_delay_jitter: [0us, 1us]}",
        ],
    },
    Case {
        command: "sweep",
        config: "papers/wu-ictcp",
        // TCP and ICTCP at N = 4 (ICTCP's 2-MSS start costs goodput) and N = 8 (TCP times out,
        // ICTCP does not).
        overrides: &[
            "workload.blocks=2",
            "sweep.seeds=2",
            "sweep.grid={senders: [4, 8], scheme: [none, ictcp], topology.switch_delay_jitter: [0us]}",
        ],
    },
];

/// At most this many bytes under `tests/golden/` (file contents, all cases together): 3 MB,
/// plus 0.2 MB for the two standard scenarios S6 and S7 (`rdma-fattree-k8`, `alltoall-k16`),
/// whose smallest cases still write every port of a fat-tree.
const MAX_GOLDEN_BYTES: u64 = 3_200_000;

/// At most this many simulated events: the `events` column summed over every golden runs.csv.
const MAX_GOLDEN_EVENTS: u64 = 25_000_000;

/// Files that differ between identical runs (wall clock, version) or are images.
const NOT_COMPARED: &[&str] = &["manifest.json", "sweep.lock.json", "sweep.lock", "plots"];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn golden_dir(case: &Case) -> PathBuf {
    repo().join("tests/golden").join(case.config)
}

/// The compared files under `dir`, as paths relative to it (`runs.csv`, `pcap/flow-0.pcap`).
fn compared_files(dir: &Path) -> BTreeSet<String> {
    fn walk(dir: &Path, prefix: &str, out: &mut BTreeSet<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            if prefix.is_empty() && NOT_COMPARED.contains(&name.as_str()) {
                continue;
            }
            let rel = format!("{prefix}{name}");
            if e.path().is_dir() {
                walk(&e.path(), &format!("{rel}/"), out);
            } else {
                out.insert(rel);
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, "", &mut out);
    out
}

/// Line number and both lines of the first difference, for the failure message.
fn first_difference(expected: &str, actual: &str) -> String {
    for (i, (e, a)) in expected.lines().zip(actual.lines()).enumerate() {
        if e != a {
            let cut = |s: &str| s.chars().take(400).collect::<String>();
            return format!(
                "line {}:\n    golden: {}\n    now:    {}",
                i + 1,
                cut(e),
                cut(a)
            );
        }
    }
    format!(
        "{} lines in golden, {} now",
        expected.lines().count(),
        actual.lines().count()
    )
}

fn check(config: &str) {
    let case = CASES
        .iter()
        .find(|c| c.config == config)
        .expect("case listed");
    let out = std::env::temp_dir().join(format!(
        "incastsim-golden-{}-{}",
        config.replace('/', "-"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&out);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_incastsim"));
    // From the repository, as a user runs the shipped configs (file paths in them, such as a
    // GOAL trace's, are relative to it).
    cmd.current_dir(repo());
    cmd.arg(case.command)
        .arg(repo().join("configs").join(format!("{config}.yaml")));
    for o in case.overrides {
        cmd.args(["--set", o]);
    }
    if case.command == "sweep" {
        cmd.args(["--no-plots", "--jobs", "2"]);
    }
    let output = cmd.arg("--out").arg(&out).output().unwrap();
    assert!(
        output.status.success(),
        "{config}: {}",
        String::from_utf8_lossy(&output.stderr)
    );

    let golden = golden_dir(case);
    let now = compared_files(&out);
    assert!(!now.is_empty(), "{config}: no output files");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        let _ = std::fs::remove_dir_all(&golden);
        std::fs::create_dir_all(&golden).unwrap();
        for f in &now {
            if let Some(parent) = golden.join(f).parent() {
                std::fs::create_dir_all(parent).unwrap();
            }
            std::fs::copy(out.join(f), golden.join(f)).unwrap();
        }
        let _ = std::fs::remove_dir_all(&out);
        return;
    }
    let stored = compared_files(&golden);
    let mut problems = Vec::new();
    if stored != now {
        problems.push(format!("files: golden {stored:?}, now {now:?}"));
    }
    for f in stored.intersection(&now) {
        let expected = std::fs::read(golden.join(f)).unwrap();
        let actual = std::fs::read(out.join(f)).unwrap();
        if expected == actual {
            continue;
        }
        let at = match (std::str::from_utf8(&expected), std::str::from_utf8(&actual)) {
            (Ok(e), Ok(a)) => first_difference(e, a),
            // Binary files (pcap traces): the first byte that differs.
            _ => {
                let i = expected
                    .iter()
                    .zip(&actual)
                    .take_while(|(e, a)| e == a)
                    .count();
                format!(
                    "byte {i} ({} bytes in golden, {} now)",
                    expected.len(),
                    actual.len()
                )
            }
        };
        problems.push(format!("{f} differs at {at}"));
    }
    let _ = std::fs::remove_dir_all(&out);
    assert!(
        problems.is_empty(),
        "{config}: output differs from tests/golden/{config} \
         (if the change is meant, UPDATE_GOLDEN=1 and say why in the commit):\n  {}",
        problems.join("\n  ")
    );
}

/// A new shipped config must get a golden case (and a stale case must go).
#[test]
fn every_shipped_config_has_a_case() {
    let mut shipped = BTreeSet::new();
    for sub in ["", "papers/", "collectives/"] {
        for e in std::fs::read_dir(repo().join("configs").join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "yaml") {
                let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
                shipped.insert(format!("{sub}{stem}"));
            }
        }
    }
    let cased: BTreeSet<String> = CASES.iter().map(|c| c.config.to_string()).collect();
    assert_eq!(shipped, cased);
}

/// Every file under `dir`, recursively (a folder that vanishes meanwhile is skipped).
fn files_under(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, files);
        } else {
            files.push(p);
        }
    }
}

/// The fields of one CSV line (a quoted field may hold commas; `""` inside it is one quote).
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(String::new()),
            c => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

/// The sum of the `events` column of one runs.csv.
fn events_in(runs_csv: &Path) -> u64 {
    let text = std::fs::read_to_string(runs_csv).unwrap();
    let mut lines = text.lines();
    let header = csv_fields(lines.next().unwrap_or_default());
    let col = header
        .iter()
        .position(|h| h == "events")
        .unwrap_or_else(|| panic!("{}: no events column", runs_csv.display()));
    lines
        .map(|l| {
            csv_fields(l)[col]
                .parse::<u64>()
                .unwrap_or_else(|e| panic!("{}: events {e}: {l}", runs_csv.display()))
        })
        .sum()
}

/// The goldens stay small enough to review and quick to run (module docs): a case that needs
/// more should run fewer points, seeds, blocks or less time.
#[test]
fn goldens_stay_within_budget() {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        // The other tests are rewriting the files right now: check on the next plain run.
        eprintln!("UPDATE_GOLDEN: budget not checked; run the tests again without it");
        return;
    }
    let mut files = Vec::new();
    files_under(&repo().join("tests/golden"), &mut files);
    let bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .sum();
    let events: u64 = files
        .iter()
        .filter(|f| f.file_name().is_some_and(|n| n == "runs.csv"))
        .map(|f| events_in(f))
        .sum();
    assert!(
        bytes <= MAX_GOLDEN_BYTES,
        "tests/golden holds {bytes} bytes, more than {MAX_GOLDEN_BYTES}"
    );
    assert!(
        events <= MAX_GOLDEN_EVENTS,
        "the golden runs simulate {events} events, more than {MAX_GOLDEN_EVENTS}"
    );
}

/// Every file under `tests/golden/` belongs to a case (a removed or renamed case leaves none).
#[test]
fn no_stray_golden_files() {
    let root = repo().join("tests/golden");
    let cased: BTreeSet<PathBuf> = CASES.iter().map(golden_dir).collect();
    let mut files = Vec::new();
    files_under(&root, &mut files);
    let stray: Vec<String> = files
        .iter()
        .filter(|f| !cased.iter().any(|d| f.starts_with(d)))
        .map(|f| f.strip_prefix(&root).unwrap().display().to_string())
        .collect();
    assert!(
        stray.is_empty(),
        "tests/golden: files of no case: {stray:?}"
    );
}

macro_rules! golden_tests {
    ($($test:ident => $config:literal,)*) => {
        $(
            #[test]
            fn $test() {
                check($config);
            }
        )*
        /// Each case has exactly one test function.
        #[test]
        fn every_case_has_a_test() {
            let tested: BTreeSet<&str> = [$($config),*].into_iter().collect();
            let cased: BTreeSet<&str> = CASES.iter().map(|c| c.config).collect();
            assert_eq!(tested, cased);
        }
    };
}

golden_tests! {
    bulk_dumbbell => "bulk-dumbbell",
    bulk_dumbbell_cubic => "bulk-dumbbell-cubic",
    bulk_dumbbell_dctcp => "bulk-dumbbell-dctcp",
    incast_classic => "incast-classic",
    incast_dctcp => "incast-dctcp",
    incast_pcap => "incast-pcap",
    incast_sweep => "incast-sweep",
    incast_linux => "incast-linux",
    incast_ns2 => "incast-ns2",
    outcast_fattree => "outcast-fattree",
    pfc_collateral => "pfc-collateral",
    pfc_collateral_sweep => "pfc-collateral-sweep",
    pfc_deadlock => "pfc-deadlock",
    pfc_deadlock_sweep => "pfc-deadlock-sweep",
    rdma_fairness => "rdma-fairness",
    rdma_fairness_sweep => "rdma-fairness-sweep",
    rdma_incast => "rdma-incast",
    rdma_incast_sweep => "rdma-incast-sweep",
    rdma_fct => "rdma-fct",
    collectives_ring_allreduce => "collectives/ring-allreduce",
    collectives_ring_allreduce_sweep => "collectives/ring-allreduce-sweep",
    collectives_all_to_all => "collectives/all-to-all",
    collectives_all_to_all_1024 => "collectives/all-to-all-1024",
    collectives_parameter_server => "collectives/parameter-server",
    collectives_goal_trace => "collectives/goal-trace",
    rdma_fct_sweep => "rdma-fct-sweep",
    roce_rack_incast => "roce-rack-incast",
    roce_rack_incast_sweep => "roce-rack-incast-sweep",
    shared_buffer_incast => "shared-buffer-incast",
    rto_nonincast => "rto-nonincast",
    tcprand_testbed => "tcprand-testbed",
    websearch_fattree => "websearch-fattree",
    fattree_k32_cubic => "fattree-k32-cubic",
    rdma_fattree_k8 => "rdma-fattree-k8",
    alltoall_k16 => "alltoall-k16",
    book_fig3_8 => "papers/book-fig3-8",
    ge_smaller_packets => "papers/ge-smaller-packets",
    hafeez_fig4_max_rto => "papers/hafeez-fig4-max-rto",
    hafeez_rto_randomization => "papers/hafeez-rto-randomization",
    hafeez_rto_randomization_bg => "papers/hafeez-rto-randomization-bg",
    kulkarni_dsr => "papers/kulkarni-dsr",
    kulkarni_prob_retx => "papers/kulkarni-prob-retx",
    lee_tcprand_outcast => "papers/lee-tcprand-outcast",
    shukla_plato => "papers/shukla-plato",
    tcprand_fig5 => "papers/tcprand-fig5",
    vasudevan_fine_grained_rto => "papers/vasudevan-fine-grained-rto",
    wu_ictcp => "papers/wu-ictcp",
}
