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
//! [`run_once`] does all three and checks the end-of-run invariants.

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
    DropRunRecord, FlowRecord, PortClassRecord, PortRecord, RunRecord, RunResult, TimeSeriesRecord,
};
use std::sync::atomic::{AtomicBool, Ordering};

pub use plan::{
    Plan, check_buildable, check_buildable_with, from_yaml_checked, from_yaml_checked_with,
    load_checked, load_checked_with,
};

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

/// Plans, runs and collects one (config, seed), checking the end-of-run invariants.
pub fn run_once(cfg: &Config, seed: u64) -> Result<RunResult, RunError> {
    run_once_until(cfg, seed, None, None)
}

/// [`run_once`] with probes: one probe per factory is built for the run (`crate::probe`) and
/// hears every hook; their columns and tables are in the result.
pub fn run_once_with_probes(
    cfg: &Config,
    seed: u64,
    probes: &[probe::ProbeFactory],
) -> Result<RunResult, RunError> {
    let mut sim = Simulation::from_plan(Plan::new(cfg, seed)?);
    sim.add_probes(probes);
    sim.run();
    sim.check_invariants().map_err(RunError::Invariant)?;
    Ok(sim.results())
}

/// [`run_once`] that stops early, with [`RunError::Interrupted`], once `stop` is set, and
/// refuses a run whose memory estimate exceeds `max_memory` bytes ([`Plan::new_within`]).
pub fn run_once_until(
    cfg: &Config,
    seed: u64,
    stop: Option<&AtomicBool>,
    max_memory: Option<u64>,
) -> Result<RunResult, RunError> {
    run_once_until_with(cfg, seed, stop, max_memory, &Extensions::builtin())
}

/// [`run_once`] with the components `extensions` registers.
pub fn run_once_with(
    cfg: &Config,
    seed: u64,
    extensions: &Extensions,
) -> Result<RunResult, RunError> {
    run_once_until_with(cfg, seed, None, None, extensions)
}

/// [`run_once_until`] with the components `extensions` registers.
pub fn run_once_until_with(
    cfg: &Config,
    seed: u64,
    stop: Option<&AtomicBool>,
    max_memory: Option<u64>,
    extensions: &Extensions,
) -> Result<RunResult, RunError> {
    let mut sim = Simulation::from_plan(Plan::new_within_with(cfg, seed, max_memory, extensions)?);
    if drive(&mut sim, stop, None) == Outcome::Interrupted {
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
