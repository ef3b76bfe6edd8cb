//! incastsim: a fast, deterministic packet-level simulator for data-center incast.
//!
//! This facade re-exports the pieces as one library:
//! ```no_run
//! use incastsim::scenario::{load_checked, run_once};
//! // Loads, applies `--set`-style overrides and checks the config in full.
//! let cfg = load_checked("configs/incast-classic.yaml".as_ref(), &["senders=32".into()]).unwrap();
//! let result = run_once(&cfg, cfg.seed).unwrap();
//! println!("{} Mbps, {} RTOs", result.run.goodput_mbps, result.run.rto_count);
//! ```

/// The config schema, units, `--set` overrides and config-only checks.
pub use incastsim_config as config;
pub use incastsim_core as core;
/// The papers' closed-form incast models (`incastsim model`).
pub use incastsim_models as models;
pub use incastsim_plot as plot;
pub use incastsim_scenario as scenario;
pub use incastsim_schemes as schemes;
pub use incastsim_sweep as sweep;
pub use incastsim_switch as switch;
pub use incastsim_tcp as tcp;

/// Components from a downstream crate, registered by name: [`Extensions`] and the extension
/// traits (see `incastsim_scenario::extend`).
pub use incastsim_scenario::extend;
pub use incastsim_scenario::extend::Extensions;
pub use incastsim_scenario::{extensions, provider};

pub mod output;
pub mod pcap;

/// The incastsim version, written into every manifest.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The git revision this build came from, if the build could see one.
pub const GIT_REVISION: Option<&str> = option_env!("INCASTSIM_GIT_REVISION");
