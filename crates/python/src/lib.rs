//! `incastsim._native`: the Rust side of the Python package. Every function is a thin call into
//! the library (`incastsim` facade, `incastsim-scenario`, `incastsim-sweep`, the CLI's model
//! table); the tables cross as the CSV text `incastsim run` writes, so a DataFrame read from it
//! equals one read from the file. The pure-Python wrapper (`python/incastsim/__init__.py`) makes
//! DataFrames, the progress bar and the friendly signatures.
//!
//! Simulations run with the GIL released (`Python::detach`); a sweep re-attaches only to report
//! progress and to check for Ctrl-C after each run and every 100 ms.

use incastsim::output::{Manifest, csv_tables, write_run_outputs};
use incastsim::scenario::{Config, RunError as SimRunError, from_yaml_checked, load_checked};
use incastsim::sweep::{Progress, Sweep, SweepError as SimSweepError, run_sweep};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

create_exception!(_native, Error, PyException, "Any incastsim error.");
create_exception!(
    _native,
    ConfigError,
    Error,
    "The config (or an override) is invalid; the message names the key, the value and what is allowed."
);
create_exception!(
    _native,
    RunError,
    Error,
    "A run broke an end-of-run invariant (a simulator bug: please report it with the config)."
);
create_exception!(
    _native,
    SweepError,
    Error,
    "A sweep could not run or store its results."
);
create_exception!(_native, OutputError, Error, "Results could not be written.");
create_exception!(
    _native,
    ModelError,
    Error,
    "Invalid parameters for an analytic model."
);

/// What the CLI says before a config error: "invalid config PATH" (or without a path for a
/// YAML string or dict).
fn config_label(config: &str, is_path: bool, what: &str) -> String {
    if is_path {
        format!("invalid {what} {config}")
    } else {
        format!("invalid {what}")
    }
}

fn load(config: &str, is_path: bool, overrides: &[String]) -> PyResult<Config> {
    let cfg = if is_path {
        load_checked(Path::new(config), overrides)
    } else {
        from_yaml_checked(config, overrides)
    };
    cfg.map_err(|e| {
        ConfigError::new_err(format!("{}: {e}", config_label(config, is_path, "config")))
    })
}

/// Runs one scenario. Returns the CSV text of every table by file name and the resolved config
/// as JSON; with `out`, also writes the run's folder as `incastsim run --out` does.
#[pyfunction]
#[pyo3(signature = (config, is_path, seed=None, overrides=Vec::new(), out=None, max_memory=String::from("50%")))]
fn run(
    py: Python<'_>,
    config: String,
    is_path: bool,
    seed: Option<u64>,
    overrides: Vec<String>,
    out: Option<String>,
    max_memory: String,
) -> PyResult<(Vec<(String, String)>, String)> {
    let limit = incastsim_cli::memory_limit(&max_memory)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("{e:#}")))?;
    let mut cfg = load(&config, is_path, &overrides)?;
    if let Some(seed) = seed {
        cfg.seed = seed;
    }
    let started_unix_s = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let wall = Instant::now();
    // The CLI's path: plan (refusing a run over the memory limit, as `incastsim run
    // --max-memory` does), drive (honours run.max_wall_time), check invariants, results.
    // Ctrl-C: the run is watched every few thousand events; at most every 50 ms the watcher
    // takes the GIL to let Python see a pending SIGINT, which stops the run.
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (result, outcome) = py
        .detach(|| {
            let options = incastsim::scenario::RunOptions::new().max_memory(limit);
            let plan = incastsim::scenario::Plan::build(&cfg, cfg.seed, &options)
                .map_err(SimRunError::Config)?;
            let mut sim = incastsim::scenario::Simulation::from_plan(plan);
            let mut last_check = std::time::Duration::ZERO;
            let mut watch = |_: &incastsim::scenario::RunProgress, elapsed: std::time::Duration| {
                if elapsed >= last_check + std::time::Duration::from_millis(50) {
                    last_check = elapsed;
                    if Python::attach(|py| py.check_signals()).is_err() {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            };
            let outcome = incastsim::scenario::drive(&mut sim, Some(&stop), Some(&mut watch));
            if outcome == incastsim::scenario::Outcome::Interrupted {
                return Err(SimRunError::Interrupted);
            }
            sim.check_invariants().map_err(SimRunError::Invariant)?;
            Ok::<_, SimRunError>((sim.results(), outcome))
        })
        .map_err(|e| match e {
            SimRunError::Config(c) => {
                ConfigError::new_err(format!("{}: {c}", config_label(&config, is_path, "config")))
            }
            SimRunError::Invariant(m) => RunError::new_err(format!(
                "invariant violated (please report this with the config): {m}"
            )),
            SimRunError::Interrupted => {
                pyo3::exceptions::PyKeyboardInterrupt::new_err("run interrupted (Ctrl-C)")
            }
        })?;
    let wall_s = wall.elapsed().as_secs_f64();
    let results = std::slice::from_ref(&result);
    if let Some(dir) = out {
        let r = &result.run;
        let manifest = Manifest {
            incastsim_version: incastsim::VERSION.into(),
            git_revision: incastsim::GIT_REVISION.map(Into::into),
            config_path: if is_path {
                config.clone()
            } else {
                "<python>".into()
            },
            overrides: overrides.clone(),
            seeds: vec![cfg.seed],
            outcome: outcome.as_str().into(),
            warnings: incastsim::config::config_warnings(&cfg)
                .iter()
                .map(ToString::to_string)
                .collect(),
            started_unix_s,
            extensions: Vec::new(),
            wall_time_s: wall_s,
            events: r.events,
            events_per_s: r.events as f64 / wall_s,
            packets_sent: r.packets_sent,
            packets_per_s: r.packets_sent as f64 / wall_s,
            heap_huge_pages: incastsim::host::heap_on_huge_pages(),
        };
        write_run_outputs(Path::new(&dir), &cfg, results, &manifest)
            .map_err(|e| OutputError::new_err(e.to_string()))?;
    }
    let tables = csv_tables(results)
        .map_err(|e| OutputError::new_err(e.to_string()))?
        .into_iter()
        .map(|(name, bytes)| (name, String::from_utf8_lossy(&bytes).into_owned()))
        .collect();
    let resolved = serde_json::to_string(&cfg).map_err(|e| OutputError::new_err(e.to_string()))?;
    Ok((tables, resolved))
}

/// The resolved config (YAML, every default filled in), as `incastsim check` prints it.
#[pyfunction]
#[pyo3(signature = (config, is_path, overrides=Vec::new()))]
fn check(config: String, is_path: bool, overrides: Vec<String>) -> PyResult<String> {
    // An experiment config (`experiment:`) is checked as `incastsim check` checks it.
    let text = if is_path {
        std::fs::read_to_string(&config).ok()
    } else {
        Some(config.clone())
    };
    let is_experiment = text
        .and_then(|t| incastsim::config::parse_tree(&t).ok())
        .is_some_and(|tree| tree.get("experiment").is_some());
    if is_experiment {
        use incastsim::config::experiment::ExperimentFile;
        let file = if is_path {
            ExperimentFile::load(Path::new(&config), &overrides)
        } else {
            ExperimentFile::from_yaml(&config, &overrides)
        };
        return file.map(|f| f.to_yaml()).map_err(|e| {
            ConfigError::new_err(format!("{}: {e}", config_label(&config, is_path, "config")))
        });
    }
    Ok(load(&config, is_path, &overrides)?.to_yaml())
}

/// Progress of a sweep, reported to a Python callable `callback(done, total)`, and Ctrl-C.
struct PyProgress {
    callback: Option<Py<PyAny>>,
    total: AtomicU64,
    /// The KeyboardInterrupt (or the callback's exception) that stops the sweep.
    stopped: Mutex<Option<PyErr>>,
}

impl PyProgress {
    fn report(&self, done: u64) {
        let Some(cb) = &self.callback else { return };
        Python::attach(|py| {
            if let Err(e) = cb.call1(py, (done, self.total.load(Ordering::Relaxed))) {
                self.stopped.lock().unwrap().get_or_insert(e);
            }
        });
    }
}

impl Progress for PyProgress {
    fn begin(&self, total: u64, already: u64) {
        self.total.store(total, Ordering::Relaxed);
        self.report(already);
    }
    fn advance(&self, done: u64) {
        self.report(done);
    }
    fn should_stop(&self) -> bool {
        let mut stopped = self.stopped.lock().unwrap();
        if stopped.is_none()
            && let Err(e) = Python::attach(|py| py.check_signals())
        {
            *stopped = Some(e);
        }
        stopped.is_some()
    }
}

/// Runs a sweep into `out` (resumable: a folder with some runs done continues), with the GIL
/// released. Returns (runs computed, runs already done). Ctrl-C stops it after the runs in
/// progress are stored and raises KeyboardInterrupt.
#[pyfunction]
#[pyo3(signature = (config, is_path, out, jobs=None, overrides=Vec::new(), progress=None))]
fn sweep(
    py: Python<'_>,
    config: String,
    is_path: bool,
    out: String,
    jobs: Option<usize>,
    overrides: Vec<String>,
    progress: Option<Py<PyAny>>,
) -> PyResult<(u64, u64)> {
    let spec = if is_path {
        Sweep::load(Path::new(&config), &overrides)
    } else {
        Sweep::from_yaml(&config, &overrides)
    }
    .map_err(|e| {
        ConfigError::new_err(format!(
            "{}: {e}",
            config_label(&config, is_path, "sweep config")
        ))
    })?;
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if jobs == 0 {
        return Err(SweepError::new_err(
            "--jobs 0: at least 1 worker thread is needed",
        ));
    }
    let progress = PyProgress {
        callback: progress,
        total: AtomicU64::new(0),
        stopped: Mutex::new(None),
    };
    let report = py.detach(|| run_sweep(&spec, Path::new(&out), jobs, None, &progress));
    if let Some(e) = progress.stopped.lock().unwrap().take() {
        return Err(e);
    }
    let report = report.map_err(|e| match e {
        SimSweepError::Config(_) | SimSweepError::Spec { .. } | SimSweepError::Point { .. } => {
            ConfigError::new_err(e.to_string())
        }
        other => SweepError::new_err(other.to_string()),
    })?;
    Ok((report.runs_computed, report.runs_already_done))
}

/// `incastsim model ARGV...`: the CSV table.
#[pyfunction]
fn model(argv: Vec<String>) -> PyResult<String> {
    incastsim_cli::model_cmd::model_from_args(&argv)
        .map_err(|e| ModelError::new_err(format!("{e:#}")))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", incastsim::VERSION)?;
    m.add("Error", py.get_type::<Error>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("RunError", py.get_type::<RunError>())?;
    m.add("SweepError", py.get_type::<SweepError>())?;
    m.add("OutputError", py.get_type::<OutputError>())?;
    m.add("ModelError", py.get_type::<ModelError>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(model, m)?)?;
    Ok(())
}
