//! The records of PFC's diagnostics (runs with `pfc:` only, single runs): pfc_deadlocks.csv,
//! pfc_flows.csv and pfc_summary.csv. pfc.csv's rows are `PfcRecord` (`ports.rs`).

use serde::Serialize;

/// One row of pfc_deadlocks.csv: a cycle of paused queues that lasted `pfc.deadlock.after`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct PfcDeadlockRecord {
    /// The config's `name`.
    pub scenario: String,
    /// The run's seed.
    pub seed: u64,
    /// The lossless priority (traffic class) deadlocked.
    pub priority: u8,
    /// When the detector first saw the cycle (at the pause that closed it, or at a re-check,
    /// at most 10 µs or `after` / 4 later), µs.
    pub formed_us: f64,
    /// When it was confirmed (`formed_us` + `after`), µs.
    pub detected_us: f64,
    /// Ports in the cycle.
    pub length: u32,
    /// The cycle's ports as ports.csv names them, each waiting on the next and the last on
    /// the first, space-separated, from the lowest port index.
    pub ports: String,
    /// The same ports by index (ports.csv `port`), space-separated.
    pub port_indices: String,
}

/// One row of pfc_flows.csv: a flow on a lossless priority (or one that was paused).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct PfcFlowRecord {
    /// The config's `name`.
    pub scenario: String,
    /// The run's seed.
    pub seed: u64,
    /// `tcp` (flows.csv's flows) or `udp` (a background source).
    pub kind: String,
    /// The flow index (flows.csv `flow`) or the UDP source's index (`background` order).
    pub flow: u32,
    /// The sending host.
    pub src: String,
    /// The receiving host.
    pub dst: String,
    /// Time during which some packet of the flow waited in a paused queue, µs.
    pub paused_us: f64,
    /// Paused while its destination port (the last switch's port to `dst`) was never a
    /// congestion point during the flow's life (docs/lossless.md).
    pub victim: bool,
}

/// One row of pfc_summary.csv per run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct PfcSummaryRecord {
    /// The config's `name`.
    pub scenario: String,
    /// The run's seed.
    pub seed: u64,
    /// How many hops upstream of a congested port the deepest PAUSE reached (0: no PAUSE;
    /// capped at the number of switches).
    pub max_pause_depth: u32,
    /// The port that deepest PAUSE paused (empty without one).
    pub max_pause_depth_port: String,
    /// Deadlocks found (rows of pfc_deadlocks.csv).
    pub deadlocks: u32,
    /// Flows (rows of pfc_flows.csv) that were paused, and of them the victims.
    pub paused_flows: u32,
    /// Paused flows whose own destination port was never congested.
    pub victim_flows: u32,
}
