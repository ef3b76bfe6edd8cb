//! incastsim-scenario: from a YAML config to a finished run.
//!
//! - [`config`]: the config schema, defaults, `--set` overrides and config-only checks (the
//!   `incastsim-config` crate, re-exported).
//! - [`plan_checks`]: the config checks that need the topology built or the traffic drawn
//!   ([`check_buildable`]; [`load_checked`] loads and checks a config in full).
//! - [`units`]: human units ("25us", "1Gbps", "32KB").
//! - [`build`]: topologies and host roles.
//! - [`sim`]: the [`Simulation`] value and its event loop (where packets and timers are handled).
//! - [`scheme_config`]: the `scheme:` section (incast mitigation schemes and their parameters);
//!   [`scheme_build`] makes their sender and receiver state.
//! - [`traffic`]: long-lived, Poisson and staggered flows; the ideal flow-completion time.
//! - [`metrics`]: result records (runs, flows, ports), Jain's index, quantiles.

pub mod build;
pub mod cdf;
pub mod config;
pub mod diagnostics;
pub mod enqueue_experiment;
pub mod metrics;
pub mod plan_checks;
pub mod scheme_build;
pub mod scheme_config;
pub mod sim;
pub mod traffic;
pub mod units;

pub use config::{Config, ConfigError};
pub use metrics::{
    DropRunRecord, FlowRecord, PortClassRecord, PortRecord, RunRecord, RunResult, TimeSeriesRecord,
};
pub use plan_checks::{check_buildable, from_yaml_checked, load_checked};
pub use sim::{Outcome, Simulation, run_once};
