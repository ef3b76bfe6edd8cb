//! incastsim-scenario: from a checked config to a finished run, in three steps with one job each.
//!
//! - [`plan`]: [`Plan::new`] turns a [`Config`] and a seed into every object a run needs
//!   (topology, ports, TCP profiles, flows with their origins, schemes, applications, probes);
//!   the only fallible step before a run. The config itself (schema, units, overrides,
//!   config-only checks) is the `incastsim-config` crate, re-exported as [`config`].
//!   Topologies in [`build`], traffic generators in [`traffic`], schemes in [`scheme_build`].
//! - [`engine`]: [`Simulation::from_plan`] and the event loop (network, transport, applications,
//!   probes); cannot fail.
//! - [`results`]: the finished run read into records ([`metrics`]): runs, flows, ports, series.
//!
//! [`run_once`] does all three and checks the end-of-run invariants.

pub mod build;
pub mod cdf;
pub mod diagnostics;
pub mod engine;
pub mod enqueue_experiment;
pub mod fabric;
pub mod ideal_fct;
pub mod metrics;
pub mod plan;
mod results;
pub mod scheme_build;
pub mod traffic;

pub use config::{Config, ConfigError};
pub use engine::{Outcome, Simulation};
/// The config crate: schema, units, overrides, config-only checks.
pub use incastsim_config as config;
pub use incastsim_config::units;
pub use metrics::{
    DropRunRecord, FlowRecord, PortClassRecord, PortRecord, RunRecord, RunResult, TimeSeriesRecord,
};
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
}

/// Plans, runs and collects one (config, seed), checking the end-of-run invariants.
pub fn run_once(cfg: &Config, seed: u64) -> Result<RunResult, RunError> {
    let mut sim = Simulation::from_plan(Plan::new(cfg, seed)?);
    sim.run();
    sim.check_invariants().map_err(RunError::Invariant)?;
    Ok(sim.results())
}
