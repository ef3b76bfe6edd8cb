//! incastsim: a fast, deterministic packet-level simulator for data-center incast.
//!
//! A run goes Config → Plan → Engine → Results: a [`Config`](scenario::Config) (YAML with
//! human units, `--set`-style overrides, checked in full with every error naming the key, the
//! value and what is allowed) and a seed become a [`Plan`](scenario::Plan) (every object the
//! run needs), which the engine ([`Simulation`](scenario::Simulation)) runs to a
//! [`RunResult`](scenario::RunResult) of records: one [`RunRecord`](scenario::RunRecord) for
//! the run, one [`FlowRecord`](scenario::FlowRecord) per TCP connection, one
//! [`PortRecord`](scenario::PortRecord) per switch port. [`output`] writes them as the CSV
//! files of `incastsim run`; [`sweep`] runs grids of configs × seeds in parallel.
//!
//! The same config and seed give bit-identical results on any machine and with any thread
//! count: time is integer picoseconds and every random component draws from its own seeded
//! stream.
//!
//! # Run a config
//!
//! [`scenario::from_yaml_checked`] parses and checks a config (from a string;
//! [`scenario::load_checked`] reads a file), [`scenario::run_once`] plans, runs and checks the
//! end-of-run invariants:
//! ```
//! use incastsim::scenario::{from_yaml_checked, run_once};
//!
//! // Four servers answer a client's 20 KB reads over one 1 Gbps switch with 32 KB per port.
//! let yaml = "
//! name: tiny-incast
//! seed: 1
//! senders: 4
//! topology: {kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 32KB}
//! tcp: {congestion_control: newreno, rto_min: 200ms}
//! workload: {kind: synchronized_reads, sru: 20KB, blocks: 2}
//! ";
//! // Overrides use the `--set key=value` syntax of the command line.
//! let cfg = from_yaml_checked(yaml, &["tcp.rto_min=1ms".into()]).unwrap();
//! let result = run_once(&cfg, cfg.seed).unwrap();
//!
//! // One run record, one flow record per server, one completion time per block.
//! assert_eq!(result.run.senders, 4);
//! assert_eq!(result.flows.len(), 4);
//! assert_eq!(result.block_times_ms.len(), 2);
//! for flow in &result.flows {
//!     assert_eq!(flow.bytes_delivered, 2 * 20_000);
//! }
//! println!("{:.1} Mbps, {} RTOs", result.run.goodput_mbps, result.run.rto_count);
//! ```
//!
//! # Read the records as `incastsim run` writes them
//!
//! [`output::csv_tables`] gives each CSV file's bytes (the files `incastsim run` writes with
//! [`output::write_run_outputs`]); README.md's "Output columns" documents every column.
//! ```
//! # use incastsim::scenario::{from_yaml_checked, run_once};
//! # let yaml = "
//! # senders: 2
//! # topology: {kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 32KB}
//! # workload: {kind: synchronized_reads, sru: 10KB, blocks: 1}
//! # ";
//! let cfg = from_yaml_checked(yaml, &[]).unwrap();
//! let result = run_once(&cfg, 7).unwrap();
//! let tables = incastsim::output::csv_tables(std::slice::from_ref(&result)).unwrap();
//! let (name, flows_csv) = tables.iter().find(|(name, _)| name == "flows.csv").unwrap();
//! let text = String::from_utf8(flows_csv.clone()).unwrap();
//! let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
//! assert!(header.contains(&"fct_ms"));
//! assert_eq!(text.lines().count(), 1 + 2, "{name}: a header and one row per flow");
//! ```
//!
//! # Run a sweep
//!
//! A `sweep:` section makes a grid of points × seeds; [`sweep::run_sweep`] runs it in parallel
//! into a folder (resumable: running it again skips the stored runs) and writes `runs.csv`,
//! `flows.csv` and `summary.csv` (one row per point and metric: mean, 95 % confidence interval,
//! quantiles).
//! Results do not depend on the number of threads.
//! ```
//! use incastsim::sweep::{Silent, Sweep, run_sweep};
//!
//! let yaml = "
//! name: tiny-sweep
//! senders: 2
//! topology: {kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 32KB}
//! workload: {kind: synchronized_reads, sru: 10KB, blocks: 1}
//! sweep:
//!   seeds: 2
//!   grid: {senders: [2, 4]}
//! ";
//! let sweep = Sweep::from_yaml(yaml, &[]).unwrap();
//! assert_eq!(sweep.runs_total(), 4);
//! let dir = std::env::temp_dir().join(format!("incastsim-doc-sweep-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&dir);
//! let report = run_sweep(&sweep, &dir, 2, None, &Silent).unwrap();
//! assert_eq!(report.runs_computed, 4);
//! let summary = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
//! assert!(summary.lines().any(|row| row.contains("goodput_mbps")));
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

#![warn(missing_docs)]

/// The config schema, units, `--set` overrides and config-only checks.
pub use incastsim_config as config;
/// The event engine's core: integer time (picoseconds), events, timers, seeded random streams,
/// packets, the topology graph and routing.
pub use incastsim_core as core;
/// The papers' closed-form incast models (`incastsim model`).
pub use incastsim_models as models;
/// Plots of sweep summaries (PNG and SVG, mean with 95 % confidence intervals).
pub use incastsim_plot as plot;
/// From a checked config to a finished run: [`Plan`](scenario::Plan), the engine
/// ([`Simulation`](scenario::Simulation)) and the records ([`RunResult`](scenario::RunResult)).
pub use incastsim_scenario as scenario;
/// Incast mitigation schemes, behind the TCP policy hooks.
pub use incastsim_schemes as schemes;
/// Sweeps: grids × seeds in parallel, resumable, sharded, with confidence intervals.
pub use incastsim_sweep as sweep;
/// Switch output ports and their queue disciplines (admission, ECN marking).
pub use incastsim_switch as switch;
/// TCP senders and receivers: congestion control, loss recovery, RTO, the policy hooks.
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
