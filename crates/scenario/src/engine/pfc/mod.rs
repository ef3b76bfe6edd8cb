//! PFC as the run goes: every switch input's count per lossless class (the switch crate's
//! `IngressCount`), each port's pause state as its far end set it, and the frames that cross
//! links. The network calls it on a lossless admission at a switch (`Network::offer_pfc`), on
//! a lossless packet's departure (`Network::on_departed`) and on the two PFC events.
//!
//! A count lives at the switch the packet came into, indexed by the port it came in by (the
//! upstream node's port, as the engine names inputs); the PAUSE leaves by the port back
//! ([`PfcPlan::reverse`]) and pauses that same upstream port.

pub mod deadlock;
pub mod flows;
pub mod host_rx;

use crate::plan::fabric::Fabric;
use crate::plan::pfc::{NOT_LOSSLESS, PfcPlan};
use incastsim_core::{NodeKind, Time};
use incastsim_switch::pfc::IngressCount;

/// One port's pause as its far end set it, and the frames it sent and received.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortPause {
    /// The current (or last) stretch of pause: from, until (`until` ≤ now: not paused).
    pub from: Time,
    /// When the current (or last) stretch ends.
    pub until: Time,
    /// Time paused in the stretches that ended before `from`, ps.
    pub closed_ps: u64,
    /// Longest stretch that ended before `from`, ps.
    pub longest_closed_ps: u64,
    /// PAUSE frames (quanta > 0) this port sent, for its node's input from the far end.
    pub pauses_sent: u64,
    /// RESUME frames (quanta 0) this port sent.
    pub resumes_sent: u64,
    /// PAUSE frames that paused this port.
    pub pauses_received: u64,
    /// RESUME frames that resumed it.
    pub resumes_received: u64,
}

impl PortPause {
    /// A PAUSE until `until` arrived at `now`: extends the current stretch, or starts one.
    pub fn on_pause(&mut self, now: Time, until: Time) {
        self.pauses_received += 1;
        if self.until > now {
            self.until = until;
            return;
        }
        self.close();
        self.from = now;
        self.until = until;
    }

    /// A RESUME arrived at `now`: the stretch ends now.
    pub fn on_resume(&mut self, now: Time) {
        self.resumes_received += 1;
        if self.until > now {
            self.until = now;
        }
    }

    fn close(&mut self) {
        let len = self.until.as_ps().saturating_sub(self.from.as_ps());
        self.closed_ps += len;
        self.longest_closed_ps = self.longest_closed_ps.max(len);
        self.from = self.until;
    }

    /// Time paused by `end` and the longest stretch, ps (a stretch still going counts to `end`).
    pub fn paused_by(&self, end: Time) -> (u64, u64) {
        let open = self
            .until
            .min(end)
            .as_ps()
            .saturating_sub(self.from.as_ps().min(end.as_ps()));
        (self.closed_ps + open, self.longest_closed_ps.max(open))
    }
}

/// PFC's state in a run.
pub struct PfcState {
    /// The plan: classes, thresholds, headroom, reverse ports, pools.
    pub plan: PfcPlan,
    /// Per (input port, lossless class k), at `port * K + k`: the count at the port's far end.
    pub counts: Vec<IngressCount>,
    /// Per (input port, k): when its PAUSE refresh is due (`Time::MAX`: none).
    pub refresh_at: Vec<Time>,
    /// Per (port, k): the port's own pause and frames.
    pub pause: Vec<PortPause>,
    /// Per node: the ports leaving it (the wait-for graph's and the depth's neighbours).
    pub node_ports: Vec<Vec<u32>>,
    /// Per (input port, k): the depth of the input's last PAUSE (`flows.rs`).
    pub depth: Vec<u32>,
    /// The largest depth any PAUSE had, and the input that sent it (depth 0: none).
    pub max_depth: (u32, u32),
    /// Depths are capped at the number of switches.
    pub depth_cap: u32,
    /// Per (egress port, k): when it was a congestion point (`flows.rs`), in time order.
    pub marks: Vec<Vec<Time>>,
    /// Each flow's paused intervals, charged as pause stretches end.
    pub flows: flows::FlowPauses,
    /// The deadlock detector (`deadlock.rs`).
    pub deadlock: deadlock::Deadlock,
    /// The hosts' receive buffers (`pfc.host_receive`; `host_rx.rs`).
    pub host_rx: Option<host_rx::HostReceive>,
}

impl PfcState {
    /// The state of a run over `fabric`.
    pub fn new(plan: PfcPlan, fabric: &Fabric) -> PfcState {
        let n = fabric.ports.len() * plan.lossless.len();
        let mut node_ports = vec![Vec::new(); fabric.nodes.len()];
        for (p, &from) in fabric.port_from.iter().enumerate() {
            node_ports[from as usize].push(p as u32);
        }
        let switches = fabric
            .nodes
            .iter()
            .filter(|k| matches!(k, NodeKind::Switch(_)))
            .count();
        let k_count = plan.lossless.len().max(1);
        let counts = (0..n)
            .map(|slot| IngressCount {
                pool: plan.pool_of_input[slot / k_count],
                ..IngressCount::default()
            })
            .collect();
        PfcState {
            counts,
            refresh_at: vec![Time::MAX; n],
            pause: vec![PortPause::default(); n],
            node_ports,
            depth: vec![0; n],
            max_depth: (0, u32::MAX),
            depth_cap: switches.max(1) as u32,
            marks: vec![Vec::new(); n],
            flows: flows::FlowPauses::default(),
            deadlock: deadlock::Deadlock::new(n),
            host_rx: plan
                .host_receive
                .map(|(rate, xoff)| host_rx::HostReceive::new(fabric.host_port.len(), rate, xoff)),
            plan,
        }
    }

    /// Lossless classes.
    #[inline]
    pub fn classes(&self) -> usize {
        self.plan.lossless.len()
    }

    /// The index of (port, class) if `class` is lossless.
    #[inline]
    pub fn slot(&self, port: u32, class: usize) -> Option<usize> {
        let k = *self.plan.lossless_index.get(class)?;
        (k != NOT_LOSSLESS).then(|| port as usize * self.classes() + k as usize)
    }

    /// The XOFF threshold now of the input whose count is `slot` (its switch's pool is read
    /// from the count's line).
    #[inline]
    pub fn xoff_at(&self, slot: usize) -> u64 {
        let pool = self.counts[slot].pool;
        let pool = self
            .plan
            .pools
            .get(pool as usize)
            .copied()
            .unwrap_or_default();
        self.plan.rule.threshold(&pool)
    }

    /// Adds `added` bytes to (and takes `removed` from) the pool of the switch whose input's
    /// count is `slot`.
    #[inline]
    pub fn pool_change_at(&mut self, slot: usize, added: u64, removed: u64) {
        let pool = self.counts[slot].pool;
        if let Some(p) = self.plan.pools.get_mut(pool as usize) {
            p.used = p.used + added - removed;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stretches: a refresh extends one, a RESUME ends it, a lapse closes it at its time, and
    /// one still going counts up to the end.
    #[test]
    fn pause_stretches_add_up() {
        let t = |us: u64| Time(us * 1_000_000);
        let mut p = PortPause::default();
        p.on_pause(t(10), t(20));
        p.on_pause(t(15), t(30)); // refreshed
        p.on_resume(t(25));
        assert_eq!(p.paused_by(t(100)), (15_000_000, 15_000_000));
        p.on_pause(t(40), t(45)); // lapses at 45
        p.on_pause(t(50), t(200)); // still going at the end
        assert_eq!(
            p.paused_by(t(100)),
            (15_000_000 + 5_000_000 + 50_000_000, 50_000_000)
        );
        assert_eq!((p.pauses_received, p.resumes_received), (4, 1));
    }
}
