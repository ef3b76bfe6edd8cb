//! incastsim-scenario: from a checked config to a finished run, in three steps with one job each.
//!
//! - [`plan`]: [`Plan::new`] turns a [`Config`] and a seed into every object a run needs
//!   (topology, ports, TCP profiles, flows with their origins, schemes, applications, probes);
//!   the only fallible step before a run. The config itself (schema, units, overrides,
//!   config-only checks) is the `incastsim-config` crate, re-exported as [`config`].
//!   Topologies in [`plan::topology`], traffic generators in [`plan::traffic`], schemes in
//!   [`plan::schemes`].
//! - [`engine`]: [`Simulation::from_plan`] and the event loop (network, transport, applications,
//!   probes); cannot fail.
//! - [`results`]: the finished run read into records ([`results::metrics`]): runs, flows, ports,
//!   series.
//! - [`extend`]: the registry of components from other crates; [`probe`]: observers of a run.
//!
//! [`run_once`] does all three and checks the end-of-run invariants; [`run_with`] the same with
//! [`RunOptions`] (extensions, a memory limit, a stop flag, probes).

#![warn(missing_docs)]

pub mod engine;
pub mod extend;
pub mod plan;
pub mod probe;
pub mod results;

pub use config::{Config, ConfigError};
pub use engine::{FlowState, Outcome, RunProgress, Simulation};
pub use extend::Extensions;
/// The config crate: schema, units, overrides, config-only checks.
pub use incastsim_config as config;
pub use incastsim_config::units;
pub use results::metrics::{
    DropRunRecord, FlowRecord, PfcDeadlockRecord, PfcFlowRecord, PfcRecord, PfcSummaryRecord,
    PortClassRecord, PortRecord, RunRecord, RunResult, TimeSeriesRecord,
};
use std::sync::atomic::{AtomicBool, Ordering};

pub use plan::{Plan, check_buildable, from_yaml_checked, load_checked};

/// Why a run could not produce results.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunError {
    /// The config describes a scenario that cannot run.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// An end-of-run invariant failed (a simulator bug: please report it).
    #[error("invariant violated: {0}")]
    Invariant(String),
    /// Stopped by the stop flag (SIGINT/SIGTERM) before it finished: nothing to keep.
    #[error("interrupted")]
    Interrupted,
}

/// How to plan and run one (config, seed): every option is off by default, so
/// `RunOptions::default()` is the plain run of [`run_once`]. Build it with the methods:
///
/// ```
/// # use incastsim_scenario::RunOptions;
/// # use std::sync::atomic::AtomicBool;
/// // Your components (`.congestion_control::<MyCc>("my_cc")`, ...); none here.
/// let (extensions, stop) = (incastsim_scenario::extensions!(), AtomicBool::new(false));
/// let options = RunOptions::new()
///     .extensions(&extensions) // components registered by other crates
///     .max_memory(4 << 30) // refuse a run estimated above 4 GiB
///     .stop(&stop) // stop early (RunError::Interrupted) once set
///     .probes(&[]); // probes built for the run, after the config's `probes:`
/// ```
///
/// [`run_with`] reads every option; [`Plan::build`] all but `stop`, which is read while the
/// run runs ([`drive`] takes it).
#[derive(Clone, Copy, Default)]
pub struct RunOptions<'a> {
    /// The components the config may name besides the built-ins ([`crate::extend`]); `None`:
    /// [`Extensions::builtin`].
    pub extensions: Option<&'a Extensions>,
    /// Refuse (before building any per-flow state) a run whose [`plan::memory::estimate`]
    /// exceeds this many bytes.
    pub max_memory: Option<u64>,
    /// Stop the run early, with [`RunError::Interrupted`], once this is set (SIGINT/SIGTERM).
    pub stop: Option<&'a AtomicBool>,
    /// One probe per factory is built for the run ([`probe`]), after the config's `probes:`,
    /// and hears every hook; their columns and tables are in the result.
    pub probes: &'a [probe::ProbeFactory],
}

impl<'a> RunOptions<'a> {
    /// No options: the plain run.
    pub fn new() -> RunOptions<'a> {
        RunOptions::default()
    }

    /// The config may name the components `extensions` registers.
    pub fn extensions(self, extensions: &'a Extensions) -> RunOptions<'a> {
        RunOptions {
            extensions: Some(extensions),
            ..self
        }
    }

    /// Refuse a run whose memory estimate exceeds `bytes` (`None`: no limit).
    pub fn max_memory(self, bytes: impl Into<Option<u64>>) -> RunOptions<'a> {
        RunOptions {
            max_memory: bytes.into(),
            ..self
        }
    }

    /// Stop early once `stop` is set.
    pub fn stop(self, stop: &'a AtomicBool) -> RunOptions<'a> {
        RunOptions {
            stop: Some(stop),
            ..self
        }
    }

    /// Build one probe per factory for the run.
    pub fn probes(self, probes: &'a [probe::ProbeFactory]) -> RunOptions<'a> {
        RunOptions { probes, ..self }
    }
}

impl std::fmt::Debug for RunOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("extensions", &self.extensions)
            .field("max_memory", &self.max_memory)
            .field("stop", &self.stop)
            .field("probes", &self.probes.len())
            .finish()
    }
}

/// Plans, runs and collects one (config, seed), checking the end-of-run invariants.
pub fn run_once(cfg: &Config, seed: u64) -> Result<RunResult, RunError> {
    run_with(cfg, seed, &RunOptions::default())
}

/// [`run_once`] with `options`: extensions, a memory limit, a stop flag, probes
/// ([`RunOptions`]).
pub fn run_with(cfg: &Config, seed: u64, options: &RunOptions) -> Result<RunResult, RunError> {
    let mut sim = Simulation::from_plan(Plan::build(cfg, seed, options)?);
    if drive(&mut sim, options.stop, None) == Outcome::Interrupted {
        return Err(RunError::Interrupted);
    }
    sim.check_invariants().map_err(RunError::Invariant)?;
    Ok(sim.results())
}

/// Called with where a run is and the wall-clock time since it started (progress lines).
pub type ProgressFn<'a> = &'a mut dyn FnMut(&RunProgress, std::time::Duration);

/// Runs `sim` watched from outside the engine (which never reads the clock): it stops with
/// [`Outcome::WallTimeLimit`] after `run.max_wall_time` of wall-clock time and with
/// [`Outcome::Interrupted`] once `stop` is set; `progress` hears from it every
/// [`engine::WATCH_EVERY_EVENTS`] events. An interrupted run's results are what it computed so
/// far, marked incomplete.
pub fn drive(
    sim: &mut Simulation,
    stop: Option<&AtomicBool>,
    mut progress: Option<ProgressFn>,
) -> Outcome {
    let started = std::time::Instant::now();
    let max_wall = sim
        .cfg
        .run
        .max_wall_time
        .map(|d| std::time::Duration::from_secs_f64(d.0.as_secs_f64()));
    sim.run_watched(&mut |p| {
        if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Some(Outcome::Interrupted);
        }
        let elapsed = started.elapsed();
        if max_wall.is_some_and(|m| elapsed >= m) {
            return Some(Outcome::WallTimeLimit);
        }
        if let Some(f) = progress.as_mut() {
            f(p, elapsed);
        }
        None
    })
}
