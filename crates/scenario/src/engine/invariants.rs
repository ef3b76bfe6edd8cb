//! End-of-run invariants: packets conserved, bytes delivered in order exactly once, workloads
//! delivered what they asked for. Checked by `run_once` after every run (and by tests).

use super::apps::Workload;
use super::{Outcome, Simulation};
use crate::plan::FlowOrigin;

impl Simulation {
    /// Checks the end-of-run invariants; returns a description of the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        let c = self.network.counters;
        let (dropped, in_flight) = (self.packets_dropped(), self.packets_in_flight());
        if c.sent != c.delivered + dropped + in_flight {
            return Err(format!(
                "packet conservation: sent {} != delivered {} + dropped {} + in flight {}",
                c.sent, c.delivered, dropped, in_flight
            ));
        }
        let t = &self.transport;
        for f in 0..t.flows.len() {
            let (s, r) = (t.conns.sender_summary(f), t.conns.receiver_summary(f));
            // Every byte delivered exactly once and in order: the receiver's in-order point is the
            // count of delivered bytes, and it never passes what the application wrote.
            if r.stats.delivered_bytes != r.rcv_nxt || r.rcv_nxt > s.app_limit {
                return Err(format!(
                    "flow {f}: delivered {} B, rcv_nxt {}, written {}",
                    r.stats.delivered_bytes, r.rcv_nxt, s.app_limit
                ));
            }
            if s.snd_una > r.rcv_nxt {
                return Err(format!(
                    "flow {f}: sender saw ACK {} beyond receiver {}",
                    s.snd_una, r.rcv_nxt
                ));
            }
        }
        if let Workload::SyncReads(w) = &self.workload
            && self.outcome == Some(Outcome::Completed)
        {
            for f in 0..self.workload_flows {
                let expected = w.per_flow_bytes[f] * w.blocks_total as u64;
                let got = t.conns.receiver_summary(f).stats.delivered_bytes;
                if got != expected {
                    return Err(format!("flow {f}: delivered {got} of {expected} B"));
                }
            }
        }
        // A sized flow delivers exactly its size, and completes when it has.
        for (f, origin) in t.origin.iter().enumerate() {
            let FlowOrigin::Generated { index, .. } = *origin else {
                continue;
            };
            let i = index as usize;
            let got = t.conns.receiver_summary(f).stats.delivered_bytes;
            let completed = self.generated.completed_at[i];
            if let Some(size) = self.generated.spec[i].size
                && (got > size || (got == size) != completed.is_some())
            {
                return Err(format!(
                    "flow {f}: delivered {got} of {size} B, completed {completed:?}"
                ));
            }
        }
        Ok(())
    }
}
