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
//! `incastsim run` does.
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
//! ([`scenario::run_once_with_probes`], [`scenario::Simulation::add_probe`]). Without probes a
//! hook costs one predictable branch.
//!
//! ```
//! use incastsim::core::{Packet, PacketKind, Time};
//! use incastsim::scenario::probe::{Probe, ProbeFactory, ProbeReport};
//! use incastsim::scenario::{Simulation, from_yaml_checked, run_once_with_probes};
//! use std::sync::Arc;
//!
//! /// Data packets' total queueing delay, as a runs.csv column.
//! struct QueueingDelay(u64);
//! impl Probe for QueueingDelay {
//!     fn on_dequeue(&mut self, _: Time, _: u32, p: &Packet, admitted: Time, tx_start: Time) {
//!         if p.kind == PacketKind::Data {
//!             self.0 += tx_start.since(admitted).as_ps();
//!         }
//!     }
//!     fn finish(&mut self, _: &Simulation, report: &mut ProbeReport) {
//!         report.run_column("data_queueing_us", self.0 as f64 / 1e6);
//!     }
//! }
//!
//! let yaml = "senders: 4
//! topology: {kind: star}
//! workload: {kind: synchronized_reads, sru: 64KB, blocks: 1}";
//! let cfg = from_yaml_checked(yaml, &[]).unwrap();
//! let probe: ProbeFactory = Arc::new(|_setup| Box::new(QueueingDelay(0)));
//! let result = run_once_with_probes(&cfg, cfg.seed, &[probe]).unwrap();
//! assert!(result.run.probes.get("data_queueing_us").is_some());
//! ```

/// The config schema, units, `--set` overrides and config-only checks.
pub use incastsim_config as config;
/// Time, rates, packets, random streams, the event queue and the topology graph.
pub use incastsim_core as core;
/// The papers' closed-form incast models (`incastsim model`).
pub use incastsim_models as models;
/// Plots of a sweep's `summary.csv`.
pub use incastsim_plot as plot;
/// From a checked config to results: plan, engine, results, probes.
pub use incastsim_scenario as scenario;
/// The incast schemes (sender and receiver policies).
pub use incastsim_schemes as schemes;
/// Sweeps: grids, seeds, the parallel executor, the resumable store, merge, summaries.
pub use incastsim_sweep as sweep;
/// Output ports and queue disciplines.
pub use incastsim_switch as switch;
/// TCP as state machines and its congestion controllers.
pub use incastsim_tcp as tcp;

/// Components from a downstream crate, registered by name: [`Extensions`] and the extension
/// traits (see `incastsim_scenario::extend`).
pub use incastsim_scenario::extend;
pub use incastsim_scenario::extend::Extensions;
pub use incastsim_scenario::{extensions, provider};

mod builder;
pub mod output;
pub mod pcap;

pub use builder::{ConfigBuilder, ProgressFn};

/// The incastsim version, written into every manifest.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The git revision this build came from, if the build could see one.
pub const GIT_REVISION: Option<&str> = option_env!("INCASTSIM_GIT_REVISION");
