//! The transport part of the engine: each flow's TCP sender and receiver, their lazy timers, and
//! the conversion between TCP's segments/ACKs and packets. TCP itself is a pure state machine
//! (`incastsim_tcp`); this part only feeds it packets and timer expiries and collects what it
//! emits into scratch buffers, which the engine hands to the network.

use super::connections::Connections;
use super::event::{Event, Events, sync_timer, timer_fires};
use crate::plan::{FlowOrigin, Plan, SendOverheadPlan};
use incastsim_core::packet::flags;
use incastsim_core::{Duration, Ecn, FlowId, HostId, Packet, PacketKind, SackBlock, Time};
use incastsim_tcp::{AckInfo, AckOut, Segment};
use std::collections::VecDeque;

/// A flow's endpoints.
#[derive(Clone, Copy, Debug)]
pub struct FlowEnds {
    /// The sending host (the data sender).
    pub src: HostId,
    /// The receiving host.
    pub dst: HostId,
}

/// ns-2-style random send overhead of one flow: segments wait U[0, max] before leaving, never
/// overtaking each other.
struct SendOverhead {
    plan: SendOverheadPlan,
    pending: VecDeque<(Time, Packet)>,
    last_release: Time,
}

/// The TCP endpoints of every flow and their timers.
pub struct Transport {
    /// Each flow's hosts, by flow index.
    pub flows: Vec<FlowEnds>,
    /// Where each flow comes from (workload or a traffic generator).
    pub origin: Vec<FlowOrigin>,
    /// Each flow's sender, receiver and their timers while in progress, its summary once
    /// finished (`connections.rs`).
    pub conns: Connections,
    /// Per flow: header bytes and DSCP of its packets.
    flow_header: Vec<u16>,
    flow_dscp: Vec<u8>,
    /// Empty when no flow has a send overhead.
    send_overhead: Vec<SendOverhead>,
    /// What the last TCP call emitted (reused: no allocation per packet).
    pub segments: Vec<Segment>,
    /// The ACKs the last TCP call emitted (reused: no allocation per packet).
    pub acks: Vec<AckOut>,
    /// Scheme support (idle for `scheme: none`): the per-flow timer period and whether each
    /// flow's timer event is pending; the active-senders oracle (MAA).
    scheme_timer_period: Option<Duration>,
    /// Some flow's receiver delays ACKs (only then can a receiver have a delayed-ACK deadline,
    /// so only then is there a timer to keep in step after each data segment).
    delayed_acks: bool,
    /// Some flow runs over RoCE: tested first by [`Transport::is_roce`], beside the other
    /// per-packet flags (a TCP-only run reads nothing of the RoCE store).
    any_roce: bool,
    scheme_timer_pending: Vec<bool>,
    active_oracle: bool,
    flow_active: Vec<bool>,
    active_senders: u32,
}

impl Transport {
    /// Takes the plan's connection factory (the plan keeps the rest). A traffic generator's
    /// flow is built when it starts and freed when finished, unless the scheme reads the number
    /// of active senders (every sender hears of each change) or a time series samples it.
    pub fn new(plan: &mut Plan) -> Transport {
        let n = plan.flows.len();
        let profile = |f: usize| &plan.profiles[plan.flows[f].profile as usize];
        let origin: Vec<FlowOrigin> = plan.flows.iter().map(|f| f.origin).collect();
        let mut sampled = vec![false; n];
        for &f in &plan.observe.flows {
            if let Some(s) = sampled.get_mut(f as usize) {
                *s = true;
            }
        }
        let oracle = plan.active_senders_oracle;
        let conns = Connections::new(
            std::mem::take(&mut plan.connections),
            &origin,
            plan.flows.iter().map(|f| f.src).collect(),
            plan.flows.iter().map(|f| f.dst).collect(),
            plan.flows.iter().map(|f| f.profile).collect(),
            |f| matches!(origin[f], FlowOrigin::Generated { .. }) && !oracle && !sampled[f],
        );
        Transport {
            flows: plan
                .flows
                .iter()
                .map(|f| FlowEnds {
                    src: f.src,
                    dst: f.dst,
                })
                .collect(),
            flow_header: (0..n).map(|f| profile(f).wire_header_bytes).collect(),
            flow_dscp: (0..n).map(|f| profile(f).dscp).collect(),
            origin,
            conns,
            send_overhead: std::mem::take(&mut plan.send_overhead)
                .into_iter()
                .map(|plan| SendOverhead {
                    plan,
                    pending: VecDeque::new(),
                    last_release: Time::ZERO,
                })
                .collect(),
            segments: Vec::with_capacity(64),
            acks: Vec::with_capacity(8),
            scheme_timer_period: plan.scheme_timer_period,
            delayed_acks: plan
                .profiles
                .iter()
                .any(|p| p.receiver.delayed_ack.is_some()),
            any_roce: plan.profiles.iter().any(|p| p.roce.is_some()),
            scheme_timer_pending: vec![false; n],
            active_oracle: plan.active_senders_oracle,
            flow_active: vec![false; n],
            active_senders: 0,
        }
    }

    /// Adds flow `flows.len()` from `src` to `dst` while the run goes (a reactive generator's),
    /// with TCP profile `profile` (index `profile_index`) and, if any flow has a send overhead,
    /// its own overhead stream. Its connection is built when it starts and freed when finished,
    /// unless the scheme reads the number of active senders (then built now and kept, as the
    /// plan-time flows are). Returns its id.
    #[cold]
    pub fn add_flow(
        &mut self,
        seed: u64,
        ends: FlowEnds,
        origin: FlowOrigin,
        profile_index: u32,
        profile: &crate::plan::TcpProfile,
    ) -> usize {
        let f = self.flows.len();
        self.flows.push(ends);
        self.origin.push(origin);
        self.flow_header.push(profile.wire_header_bytes);
        self.flow_dscp.push(profile.dscp);
        if !self.send_overhead.is_empty() {
            self.send_overhead.push(SendOverhead {
                plan: SendOverheadPlan {
                    max: profile.send_overhead,
                    rng: incastsim_core::SimRng::for_stream(
                        seed,
                        incastsim_core::rng::Stream::SendOverhead,
                        f as u64,
                    ),
                },
                pending: VecDeque::new(),
                last_release: Time::ZERO,
            });
        }
        self.scheme_timer_pending.push(false);
        self.flow_active.push(false);
        self.conns
            .add(ends.src, ends.dst, profile_index, !self.active_oracle);
        f
    }

    /// Whether flow f runs over RoCE (`tcp.transport: roce`): its ends are in `conns.roce`,
    /// and the engine takes the RoCE path for its packets, writes and timer.
    #[inline(always)]
    pub fn is_roce(&self, f: usize) -> bool {
        self.any_roce && self.conns.roce.has(f)
    }

    /// Whether any flow runs over RoCE.
    pub fn any_roce(&self) -> bool {
        self.any_roce
    }

    /// Flow f's DSCP (its packets' class).
    #[inline(always)]
    pub fn flow_dscp(&self, f: usize) -> u8 {
        self.flow_dscp[f]
    }

    /// RoCE data packet i of `conns.roce.out` as a packet of flow f.
    #[inline]
    pub fn roce_data_packet(&self, f: usize, i: usize) -> Packet {
        let int = self.conns.roce.get(f).sender.config().int_telemetry;
        super::roce::data_packet(
            f,
            self.flows[f].dst,
            self.flow_header[f],
            self.flow_dscp[f],
            int,
            &self.conns.roce.out[i],
        )
    }

    /// The RoCE ACK or NAK flow f's receiver just answered, as a packet.
    #[inline(always)] // per data packet; its second caller, the ACK timer, is rare
    pub fn roce_ack_packet(&self, f: usize) -> Option<Packet> {
        let a = self.conns.roce.ack?;
        let bytes = self.conns.roce.get(f).sender.config().ack_bytes;
        Some(super::roce::ack_packet(
            f,
            self.flows[f].src,
            bytes,
            self.flow_dscp[f],
            &a,
            self.conns.roce.echo_int,
        ))
    }

    /// The CNP flow f's receiver just asked for, as a packet (DCQCN's notification point:
    /// sent at the QP's `cnp_dscp`).
    #[inline]
    pub fn roce_cnp_packet(&self, f: usize) -> Option<Packet> {
        if !self.conns.roce.cnp {
            return None;
        }
        let cfg = self.conns.roce.get(f).sender.config();
        Some(super::roce::cnp_packet(
            f,
            self.flows[f].src,
            cfg.cnp_bytes,
            self.conns.roce.cnp_dscp(f),
        ))
    }

    /// Bytes flow f's receiver has delivered in order, whatever its transport.
    pub fn delivered_bytes(&self, f: usize) -> u64 {
        if self.is_roce(f) {
            return self.conns.roce.delivered_bytes(f);
        }
        self.conns.get(f).receiver.stats().delivered_bytes
    }

    /// One past the highest byte flow f's receiver got, in order or not (RoCE: in order).
    pub fn highest_received(&self, f: usize) -> u64 {
        if self.is_roce(f) {
            return self.conns.roce.delivered_bytes(f);
        }
        self.conns.get(f).receiver.highest_received()
    }

    /// The RTO event of `flow` popped; true if the timer fired (the sender's retransmissions
    /// or probe are then in `segments`).
    pub fn on_rto_event(
        &mut self,
        now: Time,
        flow: u32,
        generation: u32,
        events: &mut Events,
    ) -> bool {
        // A finished flow's timer was disarmed: its stale event does nothing.
        let Some(c) = self.conns.try_get_mut(flow as usize) else {
            return false;
        };
        let fired = timer_fires(&mut c.rto_timer, events, now, generation, |generation| {
            Event::Rto { flow, generation }
        });
        if fired {
            self.segments.clear();
            c.sender.on_timer(now, &mut self.segments);
        }
        fired
    }

    /// The delayed-ACK event of `flow` popped; true if the timer fired (the ACK is in `acks`).
    pub fn on_delack_event(
        &mut self,
        now: Time,
        flow: u32,
        generation: u32,
        events: &mut Events,
    ) -> bool {
        let Some(c) = self.conns.try_get_mut(flow as usize) else {
            return false;
        };
        let fired = timer_fires(&mut c.delack_timer, events, now, generation, |generation| {
            Event::DelayedAck { flow, generation }
        });
        if fired {
            self.acks.clear();
            c.receiver.on_delack_timeout(now, &mut self.acks);
        }
        fired
    }

    /// A data packet reached flow f's receiver; its ACKs go into `acks`. Returns the bytes
    /// newly delivered in order to the application.
    #[inline(never)] // out of line as before the split: inlined, the receiver bloats the loop
    pub fn on_data(&mut self, now: Time, f: usize, packet: &Packet) -> u64 {
        self.acks.clear();
        self.conns.get_mut(f).receiver.on_segment(
            now,
            packet.seq,
            packet.payload_bytes,
            packet.timestamp_ps,
            packet.flags,
            packet.ecn == Ecn::Ce,
            &mut self.acks,
        )
    }

    /// Cache hint: `packet` reaches its host one event from now. The first lines of the
    /// receiver (data) or sender (ACK) it is for, where the per-packet fields are.
    #[inline(always)]
    pub fn prefetch_delivery(&self, packet: &Packet) {
        self.conns.prefetch(packet.flow as usize, packet.kind);
    }

    /// An ACK reached flow f's sender; what it sends in reply goes into `segments`.
    #[inline(always)]
    pub fn on_ack(&mut self, now: Time, f: usize, packet: &Packet) {
        let mut info = AckInfo::plain(
            packet.ack(),
            packet.window_bytes as u64,
            packet.timestamp_ps,
        );
        info.ece = packet.has_flag(flags::ECE);
        info.flags = packet.flags & (flags::LABEL | flags::DUMMY);
        info.sack_count = packet.sack_count;
        for (dst, b) in info
            .sack_blocks
            .iter_mut()
            .zip(&packet.sack[..packet.sack_count as usize])
        {
            let start = packet.ack().wrapping_add_signed(b.start_offset as i64);
            *dst = (start, start + b.len as u64);
        }
        self.segments.clear();
        self.conns
            .get_mut(f)
            .sender
            .on_ack(now, &info, &mut self.segments);
    }

    /// Flow f's application writes `bytes`; the segments it may send go into `segments`.
    pub fn write(&mut self, now: Time, f: usize, bytes: u64) {
        self.segments.clear();
        self.conns
            .get_mut(f)
            .sender
            .write(now, bytes, &mut self.segments);
    }

    /// Segment i of `segments` as a packet of flow f.
    #[inline]
    pub fn data_packet(&self, now: Time, f: usize, i: usize) -> Packet {
        let s = self.segments[i];
        let mut packet = Packet::new(
            PacketKind::Data,
            f as FlowId,
            self.flows[f].dst,
            s.len,
            self.flow_header[f],
        );
        packet.seq = s.seq;
        packet.timestamp_ps = now.as_ps();
        packet.flags = s.flags;
        packet.dscp = self.flow_dscp[f];
        if s.ect {
            packet.ecn = Ecn::Ect0;
        }
        packet
    }

    /// ACK i of `acks` as a packet of flow f.
    #[inline]
    pub fn ack_packet(&self, f: usize, i: usize) -> Packet {
        let a = self.acks[i];
        let mut packet = Packet::new(
            PacketKind::Ack,
            f as FlowId,
            self.flows[f].src,
            0,
            self.flow_header[f],
        );
        packet.seq = a.ack; // an ACK's cumulative acknowledgement
        packet.timestamp_ps = a.ts_echo_ps;
        packet.window_bytes = a.window;
        packet.dscp = self.flow_dscp[f];
        packet.flags |= a.flags;
        if a.ece {
            packet.flags |= flags::ECE;
        }
        packet.sack_count = a.sack_count;
        for (dst, &(start, end)) in packet
            .sack
            .iter_mut()
            .zip(&a.sack_blocks[..a.sack_count as usize])
        {
            *dst = SackBlock {
                start_offset: (start as i64 - a.ack as i64) as i32,
                len: (end - start) as u32,
            };
        }
        packet
    }

    /// Whether flow f's segments wait a random send overhead before leaving.
    #[inline]
    pub fn has_send_overhead(&self, f: usize) -> bool {
        self.send_overhead
            .get(f)
            .is_some_and(|o| o.plan.max > Duration::ZERO)
    }

    /// Queues a packet of a flow with a send overhead to leave later (ns-2's `overhead_`: an
    /// extra U[0, max], never overtaking the previous segment).
    #[cold]
    pub fn defer(&mut self, now: Time, f: usize, packet: Packet, events: &mut Events) {
        let o = &mut self.send_overhead[f];
        let release = (now + o.plan.rng.duration_up_to(o.plan.max)).max(o.last_release);
        o.last_release = release;
        o.pending.push_back((release, packet));
        if o.pending.len() == 1 {
            events.schedule(release, Event::DeferredSend { flow: f as u32 }.into());
        }
    }

    /// The next overhead-delayed packet of `flow` leaves now.
    pub fn release_deferred(
        &mut self,
        now: Time,
        flow: u32,
        events: &mut Events,
    ) -> Option<Packet> {
        let o = &mut self.send_overhead[flow as usize];
        let (_, mut packet) = o.pending.pop_front()?;
        if let Some(&(next, _)) = o.pending.front() {
            events.schedule(next, Event::DeferredSend { flow }.into());
        }
        packet.timestamp_ps = now.as_ps();
        Some(packet)
    }

    /// Mirrors the sender's timer deadline (the RTO; with RACK-TLP the earliest of the RTO,
    /// RACK's reordering timer and the loss probe: one slot, see `TcpSender::timer_deadline`)
    /// into its lazy timer.
    #[inline]
    pub fn sync_rto_timer(&mut self, f: usize, events: &mut Events) {
        let c = self.conns.get_mut(f);
        let want = c.sender.timer_deadline();
        sync_timer(&mut c.rto_timer, want, events, |generation| Event::Rto {
            flow: f as u32,
            generation,
        });
        if let Some(period) = self.scheme_timer_period {
            self.arm_scheme_timer(f, period, events);
        }
    }

    /// Moves flow `f`'s delayed-ACK timer to its receiver's current deadline (lazily: a changed
    /// deadline bumps the generation, so the old event is ignored).
    #[inline]
    pub fn sync_delack_timer(&mut self, f: usize, events: &mut Events) {
        if !self.delayed_acks {
            return;
        }
        let c = self.conns.get_mut(f);
        let want = c.receiver.delack_deadline();
        sync_timer(&mut c.delack_timer, want, events, |generation| {
            Event::DelayedAck {
                flow: f as u32,
                generation,
            }
        });
    }

    /// Schedules flow f's scheme timer if it has data outstanding and no timer event pending.
    #[cold]
    fn arm_scheme_timer(&mut self, f: usize, period: Duration, events: &mut Events) {
        let s = &self.conns.get(f).sender;
        if !self.scheme_timer_pending[f] && s.snd_una() < s.snd_max() {
            self.scheme_timer_pending[f] = true;
            let at = events.now() + period;
            events.schedule(at, Event::SchemeTimer { flow: f as u32 }.into());
        }
    }

    /// Flow f's scheme timer fired; true if the sender acted (its segments are in `segments`).
    #[cold]
    pub fn on_scheme_timer(&mut self, now: Time, f: usize) -> bool {
        self.scheme_timer_pending[f] = false;
        // A finished flow has nothing outstanding (and no timer to re-arm).
        let Some(c) = self.conns.try_get_mut(f) else {
            return false;
        };
        let s = &mut c.sender;
        let acted = s.snd_una() < s.snd_max();
        if acted {
            self.segments.clear();
            s.on_scheme_timer(now, &mut self.segments);
        }
        acted
    }

    /// MAA's oracle: a flow is active from its server's start until its response is delivered.
    #[inline]
    pub fn set_flow_active(&mut self, f: usize, active: bool) {
        if self.active_oracle && self.flow_active[f] != active {
            self.update_active(f, active);
        }
    }

    #[cold]
    fn update_active(&mut self, f: usize, active: bool) {
        self.flow_active[f] = active;
        if active {
            self.active_senders += 1;
        } else {
            self.active_senders -= 1;
        }
        let n = self.active_senders;
        // With this oracle every connection is built up front and kept (`Transport::new`).
        for c in self.conns.live_mut() {
            c.sender.set_active_senders(n);
        }
    }
}
