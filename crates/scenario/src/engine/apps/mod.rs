//! The applications: what each flow's application writes and when, one file each. They keep
//! their own state, schedule their own events and hand back news (a request to send, a block
//! done) as return values; the engine acts on it.

pub mod bulk;
pub mod generated;
pub mod sync_reads;
pub mod udp;

use crate::plan::WorkloadPlan;
pub use bulk::Bulk;
use incastsim_core::Duration;
pub use sync_reads::SyncReads;

/// Bytes an always-busy application writes: far more than any run can send.
pub const ALWAYS_HAS_DATA: u64 = u64::MAX / 4;

/// The workload application.
pub enum Workload {
    /// Synchronized reads: the client asks every server for a block, then the next.
    SyncReads(SyncReads),
    /// Bulk transfer: every flow always has data until `duration`.
    Bulk(Bulk),
    /// Only the traffic generators; arrivals end at `duration`, then drain if asked.
    Traffic {
        /// When generator arrivals end (simulated time from the start).
        duration: Duration,
        /// Keep running after `duration` until the flows started by then finish.
        drain: bool,
    },
}

impl Workload {
    /// The application the plan describes.
    pub fn new(plan: WorkloadPlan) -> Workload {
        match plan {
            WorkloadPlan::SyncReads(p) => Workload::SyncReads(SyncReads::new(p)),
            WorkloadPlan::Bulk {
                duration,
                start_jitter,
                jitter_rngs,
            } => Workload::Bulk(Bulk {
                duration,
                start_jitter,
                jitter_rngs,
            }),
            WorkloadPlan::Traffic { duration, drain } => Workload::Traffic { duration, drain },
        }
    }

    /// What workload flow f's application writes when it starts.
    pub fn bytes_to_write(&self, f: usize) -> u64 {
        match self {
            Workload::SyncReads(w) => w.per_flow_bytes[f],
            Workload::Bulk(_) | Workload::Traffic { .. } => ALWAYS_HAS_DATA,
        }
    }
}
