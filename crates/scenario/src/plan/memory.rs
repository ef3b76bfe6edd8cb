//! An estimate of a run's memory, made before its per-flow state is built, so a run too large
//! for the machine is refused up front (with the estimate and the knob) instead of swapping or
//! being killed halfway.
//!
//! The costs are calibrated upward from measurements (peak RSS of `incastsim run`): S1 uses
//! 6 MB with 1 sender and 99 MB with 10,000 (≈ 9.3 KB per sender: TCP state, records,
//! diagnostics, host and ports); a port's queue holds at most its buffer. The estimate is meant
//! to be an upper bound for the shipped scenarios, not exact.

use crate::config::{Config, WorkloadConfig};
use crate::plan::topology::BuiltTopology;
use incastsim_switch::BufferLimit;

/// Fixed cost of a run: the program, its allocator, the config, output buffers.
const BASE_BYTES: u64 = 16 << 20;
/// Per TCP flow: sender and receiver state, scheme, flow record, diagnostics (measured 9.3 KB
/// per S1 sender including its host and ports).
const FLOW_BYTES: u64 = 12 << 10;
/// Per flow that waits at a gate (a collective's, `plan/traffic/depend.rs`): its plan entry,
/// gate and edges, packed summary and result row, measured 0.9 KB per flow on the 1,024-rank
/// all-to-all (`configs/collectives/all-to-all-1024.yaml`: 923 MiB peak for 1,047,552 flows);
/// its connection exists only while it is in flight, counted in `live_gated`.
const GATED_FLOW_BYTES: u64 = 1 << 10;
/// Per host and per port: node names, routes, port state and statistics.
const HOST_BYTES: u64 = 512;
const PORT_BYTES: u64 = 2 << 10;
/// Per packet a port's queue can hold (the queued packet and its departure time).
const QUEUED_PACKET_BYTES: u64 = 96;
/// Per block of synchronized reads (its completion time, kept for blocks.csv).
const BLOCK_BYTES: u64 = 16;
/// Per time-series sample (one row).
const SAMPLE_BYTES: u64 = 64;

/// What a run is expected to need at its peak, and of what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryEstimate {
    /// The estimated peak, bytes.
    pub bytes: u64,
    /// TCP flows.
    pub flows: u64,
    /// Of them, flows that wait at gates (planned, built only while in flight).
    pub gated: u64,
    /// Output ports.
    pub ports: u64,
    /// Blocks whose completion times are kept.
    pub blocks: u64,
    /// Time-series samples kept.
    pub samples: u64,
}

impl std::fmt::Display for MemoryEstimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "about {} ({} TCP flows, {} ports",
            human_bytes(self.bytes),
            self.flows,
            self.ports
        )?;
        if self.gated > 0 {
            write!(f, ", {} flows waiting for others", self.gated)?;
        }
        if self.blocks > 0 {
            write!(f, ", {} blocks", self.blocks)?;
        }
        if self.samples > 0 {
            write!(f, ", {} time-series samples", self.samples)?;
        }
        write!(f, ")")
    }
}

/// `1.5 GB`, `340 MB`, `12 KB` (powers of 1024, as `free -h`).
pub fn human_bytes(b: u64) -> String {
    // Powers of 1024, so the binary units' names (`--max-memory 100MB` is 95.4 MiB).
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = b as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < units.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", units[i])
    }
}

/// The estimate for `cfg` on `built` with `flows` TCP flows (saturating: an absurd size gives
/// `u64::MAX`, which no limit accepts), of which `gated` wait at gates and at most
/// `live_gated` of those are expected in flight at once.
pub fn estimate(
    cfg: &Config,
    built: &BuiltTopology,
    flows: u64,
    gated: u64,
    live_gated: u64,
) -> MemoryEstimate {
    let topology = &built.topology;
    let links = cfg.topology.links();
    let full_packet = cfg.full_packet_bytes().max(1);
    let queue_packets = |limit: BufferLimit| match limit {
        BufferLimit::Bytes(b) => b / full_packet + 1,
        BufferLimit::Packets(p) => u64::from(p),
        // A host NIC without a limit holds at most its flows' windows: counted per flow.
        BufferLimit::Unlimited => 0,
    };
    let mut queues = 0u64;
    for (i, spec) in topology.ports.iter().enumerate() {
        let from_host = matches!(
            topology.nodes[spec.from as usize],
            incastsim_core::NodeKind::Host(_)
        );
        let b = if from_host {
            links.host_buffer
        } else {
            built.port_buffers[i].unwrap_or(links.switch_buffer)
        };
        queues = queues.saturating_add(queue_packets(crate::plan::topology::buffer_limit(b)));
    }
    let ports = topology.ports.len() as u64;
    let hosts = topology.host_count() as u64;
    let blocks = match &cfg.workload {
        WorkloadConfig::SynchronizedReads { blocks, .. } => u64::from(*blocks),
        _ => 0,
    };
    // Samples: only for fixed-duration workloads (a block count gives no end time up front).
    let samples = match (&cfg.time_series, &cfg.workload) {
        (
            Some(ts),
            WorkloadConfig::Bulk { duration, .. } | WorkloadConfig::Traffic { duration, .. },
        ) => {
            let horizon = duration.0.min(cfg.run.max_sim_time.0).as_ps();
            let per_sample = (ts.ports.len() + ts.flows.len()) as u64;
            (horizon / ts.interval.0.as_ps().max(1)).saturating_mul(per_sample)
        }
        _ => 0,
    };
    let bytes = BASE_BYTES
        .saturating_add((flows - gated).saturating_mul(FLOW_BYTES))
        .saturating_add(gated.saturating_mul(GATED_FLOW_BYTES))
        .saturating_add(live_gated.min(gated).saturating_mul(FLOW_BYTES))
        .saturating_add(hosts.saturating_mul(HOST_BYTES))
        .saturating_add(ports.saturating_mul(PORT_BYTES))
        .saturating_add(queues.saturating_mul(QUEUED_PACKET_BYTES))
        .saturating_add(blocks.saturating_mul(BLOCK_BYTES))
        .saturating_add(samples.saturating_mul(SAMPLE_BYTES));
    MemoryEstimate {
        bytes,
        flows,
        gated,
        ports,
        blocks,
        samples,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(3 << 30), "3.0 GiB");
    }
}
