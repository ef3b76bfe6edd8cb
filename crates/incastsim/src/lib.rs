//! incastsim: a fast, deterministic packet-level simulator for data-center incast, as a library.
//!
//! A run goes Config → Plan → Engine → Results (`ARCHITECTURE.md`): a config is checked in
//! full before anything runs, a run cannot fail once planned, and the same config and seed give
//! the same results, bit for bit, on any machine and thread count.
//!
//! # From code
//!
//! **1. A config**: from a file or YAML text ([`scenario::load_checked`],
//! [`scenario::from_yaml_checked`], with `--set`-style overrides), or built in code with
//! [`ConfigBuilder`] (typed values, checked exactly as a file is, with the same errors).
//!
//! **2. Run it**: [`scenario::run_once`] gives a [`scenario::RunResult`], the rows of
//! `runs.csv`, `flows.csv`, `ports.csv`, ... as typed records; [`output`] writes them as
//! `incastsim run` does. [`scenario::run_with`] takes [`scenario::RunOptions`] besides:
//! components from other crates, a memory limit, a stop flag, probes.
//!
//! ```
//! use incastsim::ConfigBuilder;
//! use incastsim::scenario::run_once;
//!
//! let cfg = ConfigBuilder::from_yaml(
//!     "senders: 8
//! topology: {kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 32KB}
//! workload: {kind: synchronized_reads, sru: 64KB, blocks: 2}",
//! )
//! .unwrap()
//! .set("tcp.rto_min", "1ms")
//! .build()
//! .unwrap();
//! let result = run_once(&cfg, cfg.seed).unwrap();
//! assert!(result.run.completed);
//! println!("{:.0} Mbps, {} RTOs", result.run.goodput_mbps, result.run.rto_count);
//! ```
//!
//! **3. Or step it** (tests, notebooks): [`scenario::Simulation::run_until`] runs to a time and
//! pauses; read a flow ([`scenario::Simulation::flow_state`]: its controller's state, sequence
//! numbers, bytes delivered) or a port ([`scenario::Simulation::port_occupancy`], `ports()`),
//! then continue. The results equal those of one uninterrupted run.
//!
//! ```
//! use incastsim::core::{Duration, Time};
//! use incastsim::scenario::{Outcome, Simulation, from_yaml_checked};
//!
//! let cfg = from_yaml_checked(
//!     "senders: 4
//! topology: {kind: star}
//! workload: {kind: synchronized_reads, sru: 64KB, blocks: 2}",
//!     &[],
//! )
//! .unwrap();
//! let mut sim = Simulation::new(&cfg, cfg.seed).unwrap();
//! let t = Time::ZERO + Duration::from_us(500);
//! assert_eq!(sim.run_until(t), None); // paused at 500 µs
//! let flow = sim.flow_state(0);
//! let queue = sim.port_occupancy(0, t);
//! println!("cwnd {} B, {} B queued", flow.cc.cwnd_bytes, queue.bytes);
//! assert_eq!(sim.run(), Outcome::Completed);
//! let result = sim.results();
//! assert_eq!(result.flows.len(), 4);
//! ```
//!
//! **4. Sweeps**: [`sweep::Sweep::from_yaml`] expands and checks a `sweep:` section;
//! [`sweep::run_sweep`] runs it on threads into a resumable folder, telling a [`ProgressFn`]
//! (or any [`sweep::Progress`]) as runs finish.
//!
//! **Measurements of one's own**: a [`scenario::probe::Probe`] hears packets enqueued, marked,
//! dropped, dequeued and delivered, ACKs with the sender's state, RTOs, and transfers starting
//! and finishing, and adds columns to `runs.csv`/`flows.csv` or writes a CSV file of its own
//! ([`scenario::RunOptions::probes`], [`scenario::Simulation::add_probe`]). Without probes a
//! hook costs one predictable branch.
//!
//! ```
//! use incastsim::core::{Packet, PacketKind, Time};
//! use incastsim::scenario::probe::{FinishedRun, PortView, Probe, ProbeFactory, ProbeReport};
//! use incastsim::scenario::{RunOptions, from_yaml_checked, run_with};
//! use std::sync::Arc;
//!
//! /// Data packets' total queueing delay, as a runs.csv column.
//! struct QueueingDelay(u64);
//! impl Probe for QueueingDelay {
//!     fn on_dequeue(&mut self, _: Time, _: &PortView, p: &Packet, admitted: Time, tx_start: Time) {
//!         if p.kind == PacketKind::Data {
//!             self.0 += tx_start.since(admitted).as_ps();
//!         }
//!     }
//!     fn finish(&mut self, _: &dyn FinishedRun, report: &mut ProbeReport) {
//!         report.run_column("data_queueing_us", self.0 as f64 / 1e6);
//!     }
//! }
//!
//! let yaml = "senders: 4
//! topology: {kind: star}
//! workload: {kind: synchronized_reads, sru: 64KB, blocks: 1}";
//! let cfg = from_yaml_checked(yaml, &[]).unwrap();
//! let probe: ProbeFactory = Arc::new(|_setup| Box::new(QueueingDelay(0)));
//! let probes = [probe];
//! let result = run_with(&cfg, cfg.seed, &RunOptions::new().probes(&probes)).unwrap();
//! assert!(result.run.probes.get("data_queueing_us").is_some());
//! ```
//!
//! # Read the records as `incastsim run` writes them
//!
//! [`output::csv_tables`] gives each CSV file's bytes (the files `incastsim run` writes with
//! [`output::write_run_outputs`]); the guide's output reference (docs/outputs.md) documents every column.
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
/// Micro-experiments on a single switch port (`incastsim experiment`).
pub use incastsim_experiment as experiment;
/// The papers' closed-form incast models (`incastsim model`).
pub use incastsim_models as models;
/// Plots of sweep summaries (PNG and SVG, mean with 95 % confidence intervals).
pub use incastsim_plot as plot;
/// RoCEv2 queue pairs and their rate controllers (DCQCN, HPCC, TIMELY, the `RateController`
/// hook a researcher's own implements).
pub use incastsim_roce as roce;
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

mod builder;
pub mod host;
pub mod output;
mod output_error;
pub mod pcap;

pub use builder::{ConfigBuilder, ProgressFn};

/// The incastsim version, written into every manifest.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The git revision this build came from, if the build could see one.
pub const GIT_REVISION: Option<&str> = option_env!("INCASTSIM_GIT_REVISION");
