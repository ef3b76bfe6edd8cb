//! Golden outputs: every shipped config, run short through the real binary, must write exactly the
//! bytes stored under `tests/golden/` (repository root).
//!
//! These files guard refactors: a change that moves any number, any column or the order of events
//! (the `events` column of runs.csv counts them) shows up here. When a change is *meant* to move
//! results, refresh the files with
//!
//! ```text
//! UPDATE_GOLDEN=1 cargo test -p incastsim-cli --test golden
//! ```
//!
//! and review the diff in the commit that makes the change (its message says why they moved).
//!
//! Compared: every CSV, the resolved config (`config.resolved.yaml`, `points.resolved.yaml`,
//! `sweep.yaml`, `experiment.resolved.yaml`) and a sweep's `summary.csv`. Not compared: the
//! manifest and the sweep lock (wall-clock facts, version), and plots (images).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How a config is run: the command, the config path under `configs/` (without `.yaml`) and the
/// overrides that keep it short while still exercising what it is for.
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
        config: "incast-dctcp",
        overrides: &["workload.blocks=5"],
    },
    Case {
        command: "sweep",
        config: "incast-sweep",
        overrides: &["workload.blocks=2", "sweep.seeds=2"],
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
        config: "rto-nonincast",
        overrides: &["workload.duration=0.05s", "sweep.seeds=2"],
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
        overrides: &["run.max_sim_time=0.05s", "sweep.seeds=2"],
    },
    Case {
        command: "sweep",
        config: "papers/ge-smaller-packets",
        overrides: &["workload.blocks=2", "sweep.seeds=2"],
    },
    Case {
        command: "sweep",
        config: "papers/hafeez-fig4-max-rto",
        overrides: &["run.max_sim_time=0.2s", "sweep.seeds=2"],
    },
    Case {
        command: "sweep",
        config: "papers/hafeez-rto-randomization",
        overrides: &["run.max_sim_time=0.2s", "sweep.seeds=2"],
    },
    Case {
        command: "sweep",
        config: "papers/hafeez-rto-randomization-bg",
        overrides: &["run.max_sim_time=0.1s", "sweep.seeds=2"],
    },
    Case {
        command: "sweep",
        config: "papers/kulkarni-dsr",
        overrides: &["workload.blocks=2", "sweep.seeds=2"],
    },
    Case {
        command: "sweep",
        config: "papers/kulkarni-prob-retx",
        overrides: &["workload.blocks=2", "sweep.seeds=2"],
    },
    Case {
        command: "sweep",
        config: "papers/lee-tcprand-outcast",
        overrides: &["workload.duration=0.05s", "sweep.seeds=2"],
    },
    Case {
        command: "sweep",
        config: "papers/shukla-plato",
        overrides: &["run.max_sim_time=0.2s", "sweep.seeds=2"],
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
        overrides: &["workload.blocks=2", "sweep.seeds=2"],
    },
    Case {
        command: "sweep",
        config: "papers/wu-ictcp",
        overrides: &["workload.blocks=2", "sweep.seeds=2"],
    },
];

/// Files that differ between identical runs (wall clock, version) or are images.
const NOT_COMPARED: &[&str] = &["manifest.json", "sweep.lock.json", "sweep.lock", "plots"];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn golden_dir(case: &Case) -> PathBuf {
    repo().join("tests/golden").join(case.config)
}

fn compared_files(dir: &Path) -> BTreeSet<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeSet::new();
    };
    entries
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !NOT_COMPARED.contains(&n.as_str()))
        .collect()
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
        let expected = std::fs::read_to_string(golden.join(f)).unwrap();
        let actual = std::fs::read_to_string(out.join(f)).unwrap();
        if expected != actual {
            problems.push(format!(
                "{f} differs at {}",
                first_difference(&expected, &actual)
            ));
        }
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
    for sub in ["", "papers/"] {
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
    incast_sweep => "incast-sweep",
    incast_linux => "incast-linux",
    incast_ns2 => "incast-ns2",
    outcast_fattree => "outcast-fattree",
    shared_buffer_incast => "shared-buffer-incast",
    rto_nonincast => "rto-nonincast",
    tcprand_testbed => "tcprand-testbed",
    websearch_fattree => "websearch-fattree",
    fattree_k32_cubic => "fattree-k32-cubic",
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
