//! RoCEv2 queue pairs in the engine (`tcp.transport: roce`): each such flow's sender and
//! receiver (`incastsim_roce`, pure state machines) with their lazy timers: the sender's pacing
//! (`Rto` events), its transport timer (retransmission and rate controller, `RoceTimer`
//! events), the receiver's ACK coalescing timer (`DelayedAck` events, with `ack_timeout`
//! only); the line a queue pair waits in for its NIC (`engine/nic.rs`); and the mapping
//! between their packets and the simulator's [`Packet`].
//!
//! On the wire a RoCE data packet is a `Data` packet whose `seq` is its PSN, `timestamp_ps`
//! when it was sent, the `RETX` flag a retransmission, ECT(0) (RoCEv2 NICs mark their packets
//! ECN-capable for DCQCN), and `window_bytes` its BTH flags (bit 0: AckReq, IBTA vol. 1 §9.2;
//! the field carries a TCP ACK's window otherwise). An ACK or NAK is an `Ack` packet whose
//! `seq` is the expected PSN, `timestamp_ps` the echoed send time, `window_bytes` the AETH
//! syndrome (0x00 ACK, 0x60 NAK PSN sequence error; IBTA vol. 1 §9.3.1), `ECE` the ECN echo,
//! and IRN's selective PSN the first SACK block (offset from the expected PSN, length 1).

use super::int::IntStore;
use incastsim_core::packet::flags;
use incastsim_core::{
    BitsPerSec, Ecn, FlowId, HostId, LazyTimer, Packet, PacketKind, SackBlock, Time,
};
use incastsim_roce::{
    AckKind, AckPacket, Controller, DataPacket, RoceConfig, RoceReceiver, RoceSender,
};
use incastsim_tcp::{ReceiverSummary, SenderSummary};

/// BTH AckReq in a RoCE data packet's `window_bytes`.
pub const BTH_ACK_REQ: u32 = 1;
/// AETH syndrome of a NAK for a PSN sequence error (IBTA vol. 1 §9.3.1, Table 44).
pub const AETH_NAK_SEQUENCE_ERROR: u32 = 0x60;
/// An `Ack` packet whose `window_bytes` is this is a CNP (BTH opcode 0x81, IBTA Annex A17.9.2;
/// shifted clear of the AETH syndromes).
pub const CNP_OPCODE: u32 = 0x81 << 8;

/// A RoCE flow's two ends, their three timers and its place in its NIC's line.
pub struct RoceEnds {
    /// The requester (data sender).
    pub sender: RoceSender,
    /// The responder (data receiver).
    pub receiver: RoceReceiver,
    /// The sender's pacing: when its next packet may leave (`Rto` events; not armed while it
    /// waits in its NIC's line).
    pub timer: LazyTimer,
    /// The sender's transport timer: the earlier of its retransmission timer and its rate
    /// controller's (`RoceTimer` events). Apart from the pacing, so that a queue pair that
    /// waits for its NIC keeps it armed, and a paced send after the wait does not leave a
    /// far retransmission event behind in the queue.
    pub transport_timer: LazyTimer,
    /// The receiver's ACK coalescing timer (`ack_timeout`), a `DelayedAck` event as TCP's
    /// receiver has: its own, at its own node.
    pub ack_timer: LazyTimer,
    /// The INT records of the newest packet the receiver holds back an ACK for (what the
    /// timer's ACK echoes).
    pub ack_echo_int: Option<u8>,
    /// The class of the CNPs its receiver sends.
    pub cnp_dscp: u8,
    /// When the last ACK came (the end of its mean rate's span).
    pub last_ack: Time,
    /// The flow it belongs to.
    pub flow: u32,
    /// Its sender is due but waits in its NIC's line ([`super::nic::NicLines`]): no pacing
    /// timer until the NIC takes its packet.
    pub nic_waiting: bool,
}

impl RoceEnds {
    /// Before a call that may send: the sender holds its packet if its NIC cannot take one now
    /// (`nic_busy`) or it waits in the NIC's line, which alone sends it then (`engine/nic.rs`).
    #[inline]
    fn hold_unless_nic_takes(&mut self, nic_busy: bool) {
        self.sender.set_nic_busy(nic_busy || self.nic_waiting);
    }
}

/// The flows.csv columns of a queue pair's rate controller (the same for every controller;
/// empty where one has no such variable): its rate averaged from the first send to the last
/// ACK, and from `metrics.rate_from` to the last ACK, its final rate, target rate (DCQCN), α (DCQCN), U (HPCC), RTT gradient (TIMELY) and
/// window, the CNPs it received and its receiver sent, and its rate cuts and raises.
pub const RDMA_VALUE_NAMES: [&str; 12] = [
    "rdma_mean_rate_gbps",
    "rdma_window_rate_gbps",
    "rdma_final_rate_gbps",
    "rdma_target_rate_gbps",
    "rdma_alpha",
    "rdma_utilization",
    "rdma_rtt_gradient",
    "rdma_window_bytes",
    "rdma_cnps_received",
    "rdma_cnps_sent",
    "rdma_rate_decreases",
    "rdma_rate_increases",
];

/// No RoCE ends (in `RoceFlows::slot`).
const NONE: u32 = u32::MAX;

/// Every RoCE flow's ends, by flow (empty without RoCE flows: one length test per question).
#[derive(Default)]
pub struct RoceFlows {
    slot: Vec<u32>,
    ends: Vec<RoceEnds>,
    /// What the last sender call emitted (reused: no allocation per packet).
    pub out: Vec<DataPacket>,
    /// What the last receiver call answered.
    pub ack: Option<AckPacket>,
    /// The last receiver call asks for a CNP to the sender (DCQCN's notification point).
    pub cnp: bool,
    /// INT records the last data packet carried, echoed in its ACK (`flags::INT` set: the
    /// data packet carried an INT header).
    pub echo_int: Option<u8>,
    /// Some queue pair's receiver has an ACK coalescing timer (`ack_timeout`): without one,
    /// a data packet's arrival does not look at the timer.
    ack_timers: bool,
}

impl RoceFlows {
    /// Makes flow `f` a RoCE flow: a queue pair with `cfg` and `controller` on a NIC of
    /// `line_rate`, its receiver's CNPs sent at `cnp_dscp`.
    pub fn add(
        &mut self,
        f: usize,
        cfg: RoceConfig,
        line_rate: BitsPerSec,
        controller: Controller,
        cnp_dscp: u8,
    ) {
        if self.slot.len() <= f {
            self.slot.resize(f + 1, NONE);
        }
        self.slot[f] = self.ends.len() as u32;
        self.ack_timers |= cfg.ack_timeout.is_some();
        self.ends
            .push(RoceFlows::new_ends(f, cfg, line_rate, controller, cnp_dscp));
    }

    /// A queue pair as [`RoceFlows::add`] makes it for flow `f`, not added.
    pub fn new_ends(
        f: usize,
        cfg: RoceConfig,
        line_rate: BitsPerSec,
        controller: Controller,
        cnp_dscp: u8,
    ) -> RoceEnds {
        RoceEnds {
            sender: RoceSender::new(cfg, line_rate, controller),
            receiver: RoceReceiver::new(&cfg),
            timer: LazyTimer::default(),
            transport_timer: LazyTimer::default(),
            ack_timer: LazyTimer::default(),
            ack_echo_int: None,
            cnp_dscp,
            last_ack: Time::ZERO,
            flow: f as u32,
            nic_waiting: false,
        }
    }

    /// Whether flow f's queue pair is done: everything posted is acknowledged and no timer of
    /// its sender (retransmission, pacing, its controller's) or its receiver (ACK coalescing)
    /// is armed, so nothing can happen to it any more. A finished flow then gives its ends up
    /// ([`RoceFlows::remove`]).
    pub fn is_done(&self, f: usize) -> bool {
        let e = self.get(f);
        e.sender.all_acked()
            && e.sender.timer_deadline().is_none()
            && !e.timer.is_armed()
            && !e.transport_timer.is_armed()
            && !e.ack_timer.is_armed()
            && !e.nic_waiting
    }

    /// Takes flow f's ends out (a finished flow's; the slot of the one moved into its place
    /// follows).
    pub fn remove(&mut self, f: usize) -> RoceEnds {
        let i = self.slot[f] as usize;
        let e = self.ends.swap_remove(i);
        if let Some(moved) = self.ends.get(i) {
            self.slot[moved.flow as usize] = i as u32;
        }
        self.slot[f] = NONE;
        e
    }

    /// Whether flow `f` is a RoCE flow.
    #[inline(always)]
    pub fn has(&self, f: usize) -> bool {
        self.slot.get(f).is_some_and(|&s| s != NONE)
    }

    /// The class flow f's CNPs travel in.
    pub fn cnp_dscp(&self, f: usize) -> u8 {
        self.get(f).cnp_dscp
    }

    /// Queue pairs built and not finished.
    pub fn live_count(&self) -> usize {
        self.ends.len()
    }

    /// Whether any flow is.
    #[inline(always)]
    pub fn any(&self) -> bool {
        !self.ends.is_empty()
    }

    /// Flow `f`'s ends (a RoCE flow).
    pub fn get(&self, f: usize) -> &RoceEnds {
        &self.ends[self.slot[f] as usize]
    }

    /// Flow `f`'s ends, to change.
    pub fn get_mut(&mut self, f: usize) -> &mut RoceEnds {
        let i = self.slot[f] as usize;
        &mut self.ends[i]
    }

    /// Flow f's rate controller's values, by [`RDMA_VALUE_NAMES`] (those it has).
    pub fn values(&self, f: usize) -> Vec<(&'static str, f64)> {
        RoceFlows::values_of(self.get(f))
    }

    /// The values of a queue pair's rate controller, by [`RDMA_VALUE_NAMES`] (those it has).
    pub fn values_of(e: &RoceEnds) -> Vec<(&'static str, f64)> {
        let s = &e.sender;
        let st = s.controller_state();
        let gbps = |r: BitsPerSec| r.as_f64() / 1e9;
        let n = RDMA_VALUE_NAMES;
        let mut v = Vec::with_capacity(n.len());
        if let Some(r) = s.mean_rate(e.last_ack) {
            v.push((n[0], gbps(r)));
        }
        if let Some(r) = s.window_rate(e.last_ack) {
            v.push((n[1], gbps(r)));
        }
        v.push((n[2], gbps(s.rate())));
        let optional = [
            st.target_rate.map(gbps),
            st.alpha,
            st.utilization,
            st.rtt_gradient,
            s.window_bytes().map(|w| w as f64),
        ];
        for (name, value) in n[3..8].iter().zip(optional) {
            if let Some(value) = value {
                v.push((*name, value));
            }
        }
        v.push((n[8], s.stats().cnps_received as f64));
        v.push((n[9], e.receiver.stats().cnps_sent as f64));
        v.push((n[10], st.rate_decreases as f64));
        v.push((n[11], st.rate_increases as f64));
        v
    }

    /// Flow `f`'s sender and receiver summaries as the results read a flow's (its counters in
    /// TCP's terms: packets as segments, the queue pair's retransmissions and timeouts).
    pub fn summary(&self, f: usize) -> (SenderSummary, ReceiverSummary) {
        RoceFlows::summary_of(self.get(f))
    }

    /// A queue pair's summaries (see [`RoceFlows::summary`]).
    pub fn summary_of(e: &RoceEnds) -> (SenderSummary, ReceiverSummary) {
        let s = e.sender.stats();
        let mut sender = SenderSummary {
            stats: Default::default(),
            timeout_classes: Default::default(),
            // A queue pair has no window of its own: its rate, in bytes per RTT, is the
            // controller's business (the next issue's). Reported as the bytes in flight.
            cc: incastsim_tcp::CcState {
                cwnd_bytes: e.sender.bytes_in_flight(),
                ssthresh_bytes: u64::MAX / 2,
                cubic: None,
                dctcp_alpha: None,
                dctcp_alpha_mean: None,
                recovery: if e.sender.in_recovery() {
                    incastsim_tcp::RecoveryState::FastRecovery
                } else {
                    incastsim_tcp::RecoveryState::Open
                },
            },
            cc_name: match (e.sender.controller(), e.sender.config().recovery) {
                (Controller::Fixed(_), incastsim_roce::Recovery::GoBackN) => "roce_go_back_n",
                (Controller::Fixed(_), incastsim_roce::Recovery::SelectiveRepeat) => "roce_irn",
                // A rate controller names the flow's congestion control.
                (c, _) => c.name(),
            },
            srtt: None,
            rtt_samples: 0,
            rtt_sample_sum_ps: 0,
            snd_una: s.bytes_acked,
            snd_max: s.bytes_sent - s.retransmitted_bytes,
            app_limit: e.sender.bytes_posted(),
        };
        sender.stats.segments_sent = s.packets_sent;
        sender.stats.bytes_sent = s.bytes_sent;
        sender.stats.retransmitted_segments = s.retransmitted_packets;
        sender.stats.retransmitted_bytes = s.retransmitted_bytes;
        sender.stats.timeouts = s.timeouts;
        let r = e.receiver.stats();
        let mut receiver = ReceiverSummary {
            rcv_nxt: e.receiver.bytes_delivered(),
            highest_received: e.receiver.bytes_delivered(),
            ..ReceiverSummary::default()
        };
        receiver.stats.segments = r.packets;
        receiver.stats.delivered_bytes = e.receiver.bytes_delivered();
        receiver.stats.duplicate_segments = r.duplicates;
        receiver.stats.acks_sent = r.acks_sent + r.nacks_sent;
        (sender, receiver)
    }
}

impl RoceFlows {
    /// Flow f's application posts a message of `bytes`: what may leave now goes into `out`.
    ///
    /// In this and the other calls that may send, `nic_busy` says its host's NIC cannot take a
    /// packet of its class now; then, and while the queue pair waits in the NIC's line (it
    /// sends only when the line reaches it: `engine/nic.rs`), nothing leaves.
    pub fn write(&mut self, now: Time, f: usize, bytes: u64, nic_busy: bool) {
        self.out.clear();
        let i = self.slot[f] as usize;
        let e = &mut self.ends[i];
        e.hold_unless_nic_takes(nic_busy);
        e.sender.post_message(bytes);
        e.sender.emit(now, &mut self.out);
    }

    /// Flow f's host NIC takes its next packet (it waited in the NIC's line): what may leave
    /// now goes into `out`.
    pub fn on_nic_ready(&mut self, now: Time, f: usize) {
        self.out.clear();
        let i = self.slot[f] as usize;
        let e = &mut self.ends[i];
        e.nic_waiting = false;
        e.sender.set_nic_busy(false);
        e.sender.emit(now, &mut self.out);
    }

    /// Whether flow f's sender, whose NIC cannot take its packet now, is due at `at` (when
    /// that NIC can next take one) and not yet in the NIC's line: it then joins it (the
    /// caller puts it there) and this returns when its packet is due (`now` or its pacing
    /// time), from which a pause of its class counts as its paused time.
    #[inline]
    pub fn joins_nic_line(&mut self, at: Time, now: Time, f: usize) -> Option<Time> {
        let i = self.slot[f] as usize;
        let e = &mut self.ends[i];
        let joins = !e.nic_waiting && e.sender.due(at);
        e.nic_waiting |= joins;
        joins.then(|| e.sender.next_send_time(now).unwrap_or(now))
    }

    /// A data packet of flow f reached its receiver: its ACK or NAK, if any, goes into `ack`.
    /// Returns the bytes newly delivered in order.
    pub fn on_data(&mut self, now: Time, f: usize, packet: &Packet) -> u64 {
        let i = self.slot[f] as usize;
        let (d, ce, telemetry) = data_of(packet);
        let e = &mut self.ends[i];
        let rx = e.receiver.on_data(now, &d, ce, telemetry);
        self.ack = rx.ack;
        self.cnp = rx.cnp;
        self.echo_int = packet.has_flag(flags::INT).then_some(packet.sack_count);
        if self.ack_timers && rx.ack.is_none() && e.receiver.ack_deadline().is_some() {
            e.ack_echo_int = self.echo_int;
        }
        rx.delivered_bytes
    }

    /// Moves flow f's ACK coalescing timer to its receiver's deadline (nothing to do, and
    /// no event, without `ack_timeout`).
    #[inline(always)]
    pub fn sync_ack_timer(&mut self, f: usize, events: &mut super::event::Events) {
        if self.ack_timers {
            self.move_ack_timer(f, events);
        }
    }

    /// [`RoceFlows::sync_ack_timer`] in a run with ACK timers.
    #[cold]
    #[inline(never)]
    fn move_ack_timer(&mut self, f: usize, events: &mut super::event::Events) {
        let i = self.slot[f] as usize;
        let e = &mut self.ends[i];
        super::event::sync_timer(
            &mut e.ack_timer,
            e.receiver.ack_deadline(),
            events,
            ack_timer_event(f as u32),
        );
    }

    /// Flow f's ACK coalescing timer event popped: true if it fired and its ACK is in `ack`
    /// (a flow already finished, or a stale event, does nothing).
    #[cold]
    pub fn on_ack_timer_event(
        &mut self,
        now: Time,
        f: usize,
        generation: u32,
        events: &mut super::event::Events,
    ) -> bool {
        if !self.has(f) {
            return false;
        }
        let i = self.slot[f] as usize;
        let e = &mut self.ends[i];
        let fired = super::event::timer_fires(
            &mut e.ack_timer,
            events,
            now,
            generation,
            ack_timer_event(f as u32),
        );
        if !fired {
            return false;
        }
        self.ack = e.receiver.on_ack_timer(now);
        self.cnp = false;
        self.echo_int = e.ack_echo_int;
        self.ack.is_some()
    }

    /// An ACK or NAK of flow f reached its sender (with the INT records it echoes, from
    /// `int`): what may leave now goes into `out`. True if everything the flow sent is
    /// acknowledged.
    pub fn on_ack(
        &mut self,
        now: Time,
        f: usize,
        packet: &Packet,
        int: &IntStore,
        nic_busy: bool,
    ) -> bool {
        self.out.clear();
        let i = self.slot[f] as usize;
        let e = &mut self.ends[i];
        e.hold_unless_nic_takes(nic_busy);
        let ack = ack_of(packet);
        self.ends[i].last_ack = now;
        let records = match echoed_int(packet) {
            Some(hops) => int.records(packet.flow, ack.trigger_psn, hops as usize),
            None => &[],
        };
        self.ends[i]
            .sender
            .on_ack(now, &ack, records, &mut self.out)
            .all_acked
    }

    /// A CNP for flow f reached its sender: what may leave now goes into `out`.
    pub fn on_cnp(&mut self, now: Time, f: usize, nic_busy: bool) {
        self.out.clear();
        let i = self.slot[f] as usize;
        let e = &mut self.ends[i];
        e.hold_unless_nic_takes(nic_busy);
        e.sender.on_cnp(now, &mut self.out);
    }

    /// Flow f's pacing event popped: true if it fired (what pacing lets leave now is in
    /// `out`).
    pub fn on_timer_event(
        &mut self,
        now: Time,
        f: usize,
        generation: u32,
        events: &mut super::event::Events,
        nic_busy: bool,
    ) -> bool {
        let i = self.slot[f] as usize;
        let e = &mut self.ends[i];
        let fired =
            super::event::timer_fires(&mut e.timer, events, now, generation, rto_event(f as u32));
        if fired {
            self.out.clear();
            e.hold_unless_nic_takes(nic_busy);
            e.sender.emit(now, &mut self.out);
        }
        fired
    }

    /// Flow f's transport timer event popped (carrying the low bits of its generation): true
    /// if it fired (a due retransmission timeout or controller timer ran, then what pacing
    /// lets leave now is in `out`). A flow already finished does nothing.
    #[cold]
    pub fn on_transport_timer_event(
        &mut self,
        now: Time,
        f: usize,
        low_generation: u32,
        events: &mut super::event::Events,
        nic_busy: bool,
    ) -> bool {
        if !self.has(f) {
            return false;
        }
        let i = self.slot[f] as usize;
        let e = &mut self.ends[i];
        let generation = e
            .transport_timer
            .live_generation(low_generation, super::event::ROCE_GENERATION_BITS);
        let fired = super::event::timer_fires(
            &mut e.transport_timer,
            events,
            now,
            generation,
            transport_timer_event(f as u32),
        );
        if fired {
            self.out.clear();
            e.hold_unless_nic_takes(nic_busy);
            e.sender.on_timer(now, &mut self.out);
        }
        fired
    }

    /// Moves flow f's pacing timer to its next paced send (none while it waits in its NIC's
    /// line: the NIC wakes it) and its transport timer to its sender's timer.
    pub fn sync_timer(&mut self, f: usize, events: &mut super::event::Events) {
        let now = events.now();
        let i = self.slot[f] as usize;
        let e = &mut self.ends[i];
        let pace = if e.nic_waiting {
            None
        } else {
            e.sender.next_send_time(now)
        };
        super::event::sync_timer(&mut e.timer, pace, events, rto_event(f as u32));
        // A controller's timer already due (it fell due while the QP was idle) fires now.
        let transport = e.sender.timer_deadline().map(|t| t.max(now));
        super::event::sync_timer(
            &mut e.transport_timer,
            transport,
            events,
            transport_timer_event(f as u32),
        );
    }

    /// Bytes flow f's receiver has delivered in order.
    pub fn delivered_bytes(&self, f: usize) -> u64 {
        self.get(f).receiver.bytes_delivered()
    }
}

/// Flow `flow`'s sender transport timer event (retransmission, its controller's) of a given
/// generation.
#[inline]
fn transport_timer_event(flow: u32) -> impl Fn(u32) -> super::event::Event {
    move |generation| super::event::Event::RoceTimer { flow, generation }
}

/// Flow `flow`'s sender pacing event of a given generation.
#[inline]
fn rto_event(flow: u32) -> impl Fn(u32) -> super::event::Event {
    move |generation| super::event::Event::Rto { flow, generation }
}

/// Flow `flow`'s receiver ACK coalescing timer event of a given generation.
#[inline]
fn ack_timer_event(flow: u32) -> impl Fn(u32) -> super::event::Event {
    move |generation| super::event::Event::DelayedAck { flow, generation }
}

/// The packet of RoCE data packet `d` of flow `flow` to host `dst` (with an INT header if
/// `int`: switches stamp it, `sack_count` counting their records).
#[inline]
pub fn data_packet(
    flow: usize,
    dst: HostId,
    header: u16,
    dscp: u8,
    int: bool,
    d: &DataPacket,
) -> Packet {
    let mut p = Packet::new(PacketKind::Data, flow as FlowId, dst, d.payload, header);
    if int {
        p.flags |= flags::INT;
    }
    p.seq = d.psn;
    p.timestamp_ps = d.sent_at.as_ps();
    p.dscp = dscp;
    p.ecn = Ecn::Ect0;
    if d.retransmit {
        p.flags |= flags::RETX;
    }
    if d.ack_req {
        p.window_bytes = BTH_ACK_REQ;
    }
    p
}

/// The RoCE data packet a [`data_packet`] carries, whether it arrived CE-marked, and its
/// telemetry.
#[inline]
pub fn data_of(p: &Packet) -> (DataPacket, bool, [u64; incastsim_core::TELEMETRY_WORDS]) {
    (
        DataPacket {
            psn: p.seq,
            payload: p.payload_bytes,
            ack_req: p.window_bytes & BTH_ACK_REQ != 0,
            retransmit: p.has_flag(flags::RETX),
            sent_at: Time(p.timestamp_ps),
        },
        p.ecn == Ecn::Ce,
        p.telemetry().unwrap_or_default(),
    )
}

/// The packet of ACK or NAK `a` of flow `flow`, back to host `src` (`bytes` on the wire),
/// echoing `echo_int` INT records of its triggering packet (`None`: it carried no INT header).
/// The echo names the triggering PSN (`sack[1]`) and the record count (`sack[2]`), blocks a
/// RoCE ACK leaves free (IRN's selective PSN is `sack[0]`).
#[inline]
pub fn ack_packet(
    flow: usize,
    src: HostId,
    bytes: u16,
    dscp: u8,
    a: &AckPacket,
    echo_int: Option<u8>,
) -> Packet {
    let mut p = Packet::new(PacketKind::Ack, flow as FlowId, src, 0, bytes);
    if let Some(hops) = echo_int {
        p.flags |= flags::INT;
        p.sack[1] = SackBlock {
            start_offset: (a.trigger_psn >> 32) as u32 as i32,
            len: a.trigger_psn as u32,
        };
        p.sack[2].len = u32::from(hops);
    }
    p.seq = a.epsn;
    p.timestamp_ps = a.echo_sent_at.as_ps();
    p.dscp = dscp;
    if a.kind == AckKind::Nack {
        p.window_bytes = AETH_NAK_SEQUENCE_ERROR;
    }
    if a.ecn_echo {
        p.flags |= flags::ECE;
    }
    if let Some(psn) = a.sack_psn {
        p.sack_count = 1;
        p.sack[0] = SackBlock {
            start_offset: (psn - a.epsn) as i32,
            len: 1,
        };
    }
    p
}

/// The ACK or NAK an [`ack_packet`] carries.
#[inline]
pub fn ack_of(p: &Packet) -> AckPacket {
    AckPacket {
        kind: if p.window_bytes == AETH_NAK_SEQUENCE_ERROR {
            AckKind::Nack
        } else {
            AckKind::Ack
        },
        epsn: p.seq,
        sack_psn: (p.sack_count > 0)
            .then(|| p.seq.wrapping_add_signed(i64::from(p.sack[0].start_offset))),
        echo_sent_at: Time(p.timestamp_ps),
        trigger_psn: (u64::from(p.sack[1].start_offset as u32) << 32) | u64::from(p.sack[1].len),
        ecn_echo: p.has_flag(flags::ECE),
        telemetry: [0; incastsim_core::TELEMETRY_WORDS],
    }
}

/// The INT records an ACK echoes (`None`: its data packet carried no INT header).
#[inline]
pub fn echoed_int(p: &Packet) -> Option<u8> {
    p.has_flag(flags::INT).then_some(p.sack[2].len as u8)
}

/// A CNP for flow `flow` back to its sender's host `src` (`bytes` on the wire, class `dscp`).
#[inline]
pub fn cnp_packet(flow: usize, src: HostId, bytes: u16, dscp: u8) -> Packet {
    let mut p = Packet::new(PacketKind::Ack, flow as FlowId, src, 0, bytes);
    p.window_bytes = CNP_OPCODE;
    p.dscp = dscp;
    p
}

/// Whether an `Ack` packet of a RoCE flow is a CNP.
#[inline]
pub fn is_cnp(p: &Packet) -> bool {
    p.window_bytes == CNP_OPCODE
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field a RoCE packet carries survives the trip through a [`Packet`].
    #[test]
    fn packets_round_trip() {
        let d = DataPacket {
            psn: 1 << 40,
            payload: 1000,
            ack_req: true,
            retransmit: true,
            sent_at: Time(123_456),
        };
        let p = data_packet(7, 3, 62, 3, false, &d);
        assert_eq!((p.wire_bytes(), p.dscp, p.ecn), (1062, 3, Ecn::Ect0));
        assert_eq!(data_of(&p), (d, false, [0; 3]));
        assert!(!p.has_flag(flags::INT));
        assert!(data_packet(7, 3, 62, 3, true, &d).has_flag(flags::INT));
        for (kind, sack_psn, echo) in [
            (AckKind::Ack, None, None),
            (AckKind::Nack, None, Some(5)),
            (AckKind::Nack, Some(1005), Some(3)),
        ] {
            let a = AckPacket {
                kind,
                epsn: 1000,
                sack_psn,
                echo_sent_at: Time(99),
                trigger_psn: if echo.is_some() { (1 << 40) + 999 } else { 0 },
                ecn_echo: true,
                telemetry: [0; 3],
            };
            let p = ack_packet(7, 2, 66, 3, &a, echo);
            assert_eq!((p.wire_bytes(), p.dst), (66, 2));
            assert_eq!(ack_of(&p), a);
            assert_eq!(echoed_int(&p), echo);
            assert!(!is_cnp(&p));
        }
        let c = cnp_packet(7, 2, 78, 48);
        assert!(is_cnp(&c));
        assert_eq!((c.wire_bytes(), c.dscp, c.kind), (78, 48, PacketKind::Ack));
    }
}
