//! What pauses did to flows, and how far they spread: each flow's paused time, the ports that
//! were congestion points (for victims), and each PAUSE's propagation depth. All of it is
//! computed when a pause stretch ends, at an XOFF crossing and at the end of the run: never
//! per packet.
//!
//! - **Paused time of a flow**: the time during which at least one packet of the flow (data,
//!   ACK or request of a TCP flow; a datagram of a UDP source) waited in a paused class queue,
//!   anywhere (host NICs and switches). A paused class sends nothing, so when a stretch
//!   [t0, t1] ends, every packet still waiting in that class waited through
//!   [max(t0, its admission), t1]; the stretch end charges those intervals, and each flow keeps
//!   the union of its intervals (a flow paused at two hops at once counts once).
//! - **Congestion point**: when an input crosses XOFF, the egress (port, class) of its node
//!   holding most of the input's bytes caused it. If that egress was not paused, its own
//!   backlog, not a pause from further on, made the input pause: it is a congestion point at
//!   that time (a mark). The scan of the node's class queues runs once per crossing.
//! - **Victim**: a flow that was paused while its destination port (the last switch's port to
//!   its receiver) was never a congestion point from the flow's start to its end.
//! - **Depth**: a PAUSE sent by an input whose crossing a congestion point caused has depth
//!   1: it reaches one hop upstream of the congested port. One whose crossing a paused egress
//!   caused, that egress paused by a PAUSE of depth d, has depth d + 1. Around a cycle of pauses the depth would grow without
//!   end; it is capped at the number of switches (a chain of pauses along a simple path
//!   crosses each switch at most once).

use super::PfcState;
use incastsim_core::{PacketKind, Time};
use incastsim_switch::OutputPort;

/// One flow's paused intervals (ps, disjoint, sorted) and its class.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowPause {
    /// Disjoint intervals [start, end), ps, in time order.
    pub intervals: Vec<(u64, u64)>,
}

impl FlowPause {
    /// Adds [s, e): merged with every interval it touches.
    pub fn add(&mut self, s: u64, e: u64) {
        if s >= e {
            return;
        }
        let v = &mut self.intervals;
        if let Some(&(ls, le)) = v.last()
            && ls <= s
            && le >= e
        {
            return; // already covered (the flow's later packets in one stretch)
        }
        let i = v.partition_point(|&(_, end)| end < s);
        let j = v.partition_point(|&(start, _)| start <= e);
        let (mut s, mut e) = (s, e);
        if i < j {
            s = s.min(v[i].0);
            e = e.max(v[j - 1].1);
        }
        v.splice(i..j, [(s, e)]);
    }

    /// Total time covered, ps.
    pub fn total(&self) -> u64 {
        self.intervals.iter().map(|&(s, e)| e - s).sum()
    }
}

/// Every flow's paused intervals: TCP flows by flow index, UDP sources by source index.
#[derive(Clone, Debug, Default)]
pub struct FlowPauses {
    /// Per TCP flow (grows as flows are seen).
    pub tcp: Vec<FlowPause>,
    /// Per UDP source.
    pub udp: Vec<FlowPause>,
}

impl FlowPauses {
    /// The entry of `packet`'s flow.
    fn of(&mut self, kind: PacketKind, flow: u32) -> &mut FlowPause {
        let v = if kind == PacketKind::Udp {
            &mut self.udp
        } else {
            &mut self.tcp
        };
        let f = flow as usize;
        if v.len() <= f {
            v.resize_with(f + 1, FlowPause::default);
        }
        &mut v[f]
    }

    /// Charges every flow with a packet waiting in `class` at `port` for [max(from, its
    /// admission), to), and every RoCE flow in that (port, class)'s NIC line (`line`: a host
    /// port's, `engine/nic.rs`) for [max(from, when it is due to send), to): its packets wait in the
    /// queue pair, not in the port.
    pub fn charge(
        &mut self,
        port: &OutputPort,
        class: usize,
        from: Time,
        to: Time,
        line: impl Iterator<Item = (u32, Time)>,
    ) {
        // Packets come oldest first, so a packet of the flow just charged is covered by its
        // earlier packet's interval: a queue pair's run of packets costs one lookup.
        let mut last = None;
        for (packet, admitted) in port.class_waiting_iter(class) {
            let flow = (packet.kind == PacketKind::Udp, packet.flow);
            if last == Some(flow) {
                continue;
            }
            last = Some(flow);
            let s = admitted.max(from).as_ps();
            self.of(packet.kind, packet.flow).add(s, to.as_ps());
        }
        for (flow, due) in line {
            let s = due.max(from).as_ps();
            self.of(PacketKind::Data, flow).add(s, to.as_ps());
        }
    }
}

impl PfcState {
    /// The input fed by `input` crossed XOFF for `class` at `now`: the egress holding most
    /// of its bytes (the lowest port on a tie) caused it. If that egress is paused, the
    /// PAUSE about to go is one hop deeper than the egress's own; if not, that egress is a
    /// congestion point and the PAUSE has depth 1.
    pub fn on_xoff(&mut self, now: Time, ports: &[OutputPort], input: u32, class: usize) {
        let node = ports[input as usize].to as usize;
        let mut cause = None::<(u64, u32)>;
        for &q in &self.node_ports[node] {
            let bytes = ports[q as usize].bytes_from(class, input);
            if bytes > 0 && cause.is_none_or(|(b, _)| bytes > b) {
                cause = Some((bytes, q));
            }
        }
        let Some((_, egress)) = cause else {
            return;
        };
        let es = self.slot(egress, class).expect("lossless");
        let depth = if self.pause[es].until > now {
            (self.depth[es] + 1).min(self.depth_cap)
        } else {
            if self.marks[es].last() != Some(&now) {
                self.marks[es].push(now);
            }
            1
        };
        let slot = self.slot(input, class).expect("lossless");
        self.depth[slot] = depth;
        if depth > self.max_depth.0 {
            self.max_depth = (depth, input);
        }
    }

    /// Whether the egress `port` was a congestion point for `class` at some time in
    /// [from, to].
    pub fn congested_between(&self, port: u32, class: usize, from: Time, to: Time) -> bool {
        let Some(slot) = self.slot(port, class) else {
            return false;
        };
        let marks = &self.marks[slot];
        let i = marks.partition_point(|&t| t < from);
        marks.get(i).is_some_and(|&t| t <= to)
    }

    /// Each flow's paused time by `end`, ps (TCP flows, UDP sources): what the ended
    /// stretches charged, with the stretches still going at `end` charged up to it.
    pub fn flow_paused_ps(
        &self,
        ports: &[OutputPort],
        nic: &crate::engine::nic::NicLines,
        end: Time,
    ) -> (Vec<u64>, Vec<u64>) {
        let mut open = self.flows.clone();
        let k_count = self.classes();
        for (slot, pause) in self.pause.iter().enumerate() {
            if pause.until <= end || pause.from >= end {
                continue; // ended stretches were charged when they ended
            }
            let port = &ports[slot / k_count];
            let class = self.plan.lossless[slot % k_count] as usize;
            if !port.class_paused(class, pause.from) {
                continue; // a host that ignores PAUSEs: counted, never applied
            }
            let port_index = (slot / k_count) as u32;
            let line = nic.line(port_index, class);
            open.charge(port, class, pause.from, pause.until.min(end), line);
        }
        let totals = |v: &[FlowPause]| v.iter().map(FlowPause::total).collect();
        (totals(&open.tcp), totals(&open.udp))
    }
}

#[cfg(test)]
mod tests {
    use super::FlowPause;

    /// Intervals merge into a disjoint union, out of order too.
    #[test]
    fn intervals_merge() {
        let mut f = FlowPause::default();
        f.add(10, 20);
        f.add(15, 18); // covered
        f.add(30, 40);
        f.add(5, 12); // extends the first to the left
        assert_eq!(f.intervals, vec![(5, 20), (30, 40)]);
        f.add(19, 31); // bridges both
        assert_eq!(f.intervals, vec![(5, 40)]);
        f.add(50, 50); // empty
        f.add(40, 45); // touching: merged
        assert_eq!(f.intervals, vec![(5, 45)]);
        assert_eq!(f.total(), 40);
    }
}
