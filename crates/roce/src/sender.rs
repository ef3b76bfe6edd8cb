//! The requester side of a reliable-connection queue pair: segmentation into PSNs, per-packet
//! pacing at the controller's rate, the window and BDP caps, go-back-N or selective-repeat loss
//! recovery, and the retransmission timer.
//!
//! Protocol logic only: no I/O, no clock. Time comes in as `now`; packets leave through a
//! caller-owned `Vec<DataPacket>`; the engine asks [`RoceSender::next_send_time`] when the next
//! packet may go and [`RoceSender::timer_deadline`] when to call [`RoceSender::on_timer`].
//!
//! The engine's loop for one QP:
//!
//! 1. [`post_message`](RoceSender::post_message) for each work request;
//! 2. at [`next_send_time`](RoceSender::next_send_time) call [`emit`](RoceSender::emit);
//! 3. on an ACK/NACK call [`on_ack`](RoceSender::on_ack), on a CNP
//!    [`on_cnp`](RoceSender::on_cnp), at [`timer_deadline`](RoceSender::timer_deadline)
//!    [`on_timer`](RoceSender::on_timer) (each emits what may go at once);
//! 4. after any call, ask `next_send_time` and `timer_deadline` again.
//!
//! Before each call that may send, the engine tells the sender whether its NIC can take a
//! packet now ([`set_nic_busy`](RoceSender::set_nic_busy)); a sender that is
//! [`due`](RoceSender::due) while its NIC is busy waits for the NIC instead of its pacing time.

use crate::config::{Recovery, RoceConfig};
use crate::controller::{AckSample, Controller, RateControl, RateController};
use crate::packet::{AckKind, AckPacket, DataPacket};
use crate::scoreboard::Scoreboard;
use incastsim_core::{BitsPerSec, IntHop, SerializationRate, Time};
use std::collections::VecDeque;

/// The sender's counters, for outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data packets sent: first transmissions and retransmissions.
    pub packets_sent: u64,
    /// Payload bytes sent, retransmissions included.
    pub bytes_sent: u64,
    /// Packets sent again (go-back-N resends, selective retransmissions, after timeouts).
    pub retransmitted_packets: u64,
    /// Payload bytes sent again.
    pub retransmitted_bytes: u64,
    /// Retransmission timeouts that fired with packets outstanding.
    pub timeouts: u64,
    /// Positive ACKs received.
    pub acks_received: u64,
    /// NACKs received.
    pub nacks_received: u64,
    /// CNPs received.
    pub cnps_received: u64,
    /// Payload bytes cumulatively acknowledged.
    pub bytes_acked: u64,
    /// Messages whose every packet is acknowledged.
    pub messages_completed: u64,
}

/// What an ACK or NACK did, for the engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckOutcome {
    /// Payload bytes it newly acknowledged.
    pub acked_bytes: u64,
    /// Messages it completed (an RDMA completion for each, in order).
    pub messages_completed: u32,
    /// Every posted message is now acknowledged.
    pub all_acked: bool,
}

/// A posted message (work request): its PSNs and bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Message {
    first_psn: u64,
    packets: u64,
    first_byte: u64,
    bytes: u64,
}

impl Message {
    #[inline]
    fn end_psn(&self) -> u64 {
        self.first_psn + self.packets
    }
}

/// A RoCE requester (one QP, one flow). See the module documentation for how the engine drives
/// it.
#[derive(Clone, Debug)]
pub struct RoceSender {
    cfg: RoceConfig,
    line_rate: BitsPerSec,
    controller: Controller,
    /// The controller's rate, window and timer.
    ctl: RateControl,
    /// Serialization at `ctl.rate`, rebuilt when the rate changes.
    pace: SerializationRate,
    /// The controller's `on_start` ran.
    started: bool,
    /// Messages not yet fully acknowledged, in PSN order.
    msgs: VecDeque<Message>,
    /// One past the last PSN of everything posted.
    end_psn: u64,
    /// Bytes posted.
    end_bytes: u64,
    /// Oldest unacknowledged PSN.
    snd_una: u64,
    /// Next PSN to send: new data, or (go-back-N) a resend below `snd_max`.
    snd_nxt: u64,
    /// One past the highest PSN ever sent.
    snd_max: u64,
    /// Byte offset of `snd_una`.
    una_bytes: u64,
    /// Selective repeat's per-packet state (empty in go-back-N).
    board: Scoreboard,
    /// Selective repeat: in loss recovery until `snd_una` reaches `recovery_point`.
    in_recovery: bool,
    recovery_point: u64,
    /// The last packet's send time and wire bytes: the pacing clock.
    last_send: Option<(Time, u64)>,
    rto_deadline: Option<Time>,
    stats: SenderStats,
    /// The rate's integral over time since the first send up to `rate_at` (bits/s × ps), for
    /// the mean rate.
    rate_area: u128,
    /// When the rate last changed (or the first send).
    rate_at: Time,
    /// When the first packet went (the controller's `on_start`).
    started_at: Time,
    /// The mean-rate window's start (`set_rate_window`) and the rate's integral at it, once
    /// the rate has moved past it.
    window: Option<(Time, Option<u128>)>,
    /// Each packet sent may need more than the plain path: the controller hears sends
    /// ([`Controller::hears_sends`]) or a window (the config's, the controller's, IRN's BDP
    /// cap) may close behind it (then it asks for an ACK). False for a QP at a fixed rate
    /// without a window, whose sends skip both.
    per_packet_extras: bool,
    /// The host's NIC cannot take a packet of this QP's class now, so
    /// [`emit`](Self::emit) releases nothing (set by the host before each call:
    /// [`set_nic_busy`](Self::set_nic_busy)). A NIC pulls the next packet from a QP when
    /// its link can take one (the HPCC fork's `QbbNetDevice::DequeueAndTransmit` asks its
    /// `RdmaEgressQueue` for a QP only when the link is free and the priority not paused);
    /// a QP does not fill a queue in front of it.
    nic_busy: bool,
}

impl RoceSender {
    /// A QP on a NIC of `line_rate`, with nothing posted yet. Panics if the MTU or the line rate
    /// is 0 (the config checks refuse them first).
    pub fn new(cfg: RoceConfig, line_rate: BitsPerSec, controller: Controller) -> RoceSender {
        assert!(cfg.mtu > 0, "the MTU must be positive");
        assert!(line_rate.0 > 0, "the line rate must be positive");
        let rate = cfg.initial_rate.unwrap_or(line_rate).max(BitsPerSec(1));
        let controller_extras = controller.hears_sends() || controller.may_set_window();
        RoceSender {
            cfg,
            line_rate,
            controller,
            ctl: RateControl {
                rate,
                window_bytes: cfg.window_bytes,
                timer: None,
            },
            pace: SerializationRate::new(rate),
            started: false,
            msgs: VecDeque::new(),
            end_psn: 0,
            end_bytes: 0,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            una_bytes: 0,
            board: Scoreboard::default(),
            in_recovery: false,
            recovery_point: 0,
            last_send: None,
            rto_deadline: None,
            stats: SenderStats::default(),
            rate_area: 0,
            rate_at: Time::ZERO,
            started_at: Time::ZERO,
            window: None,
            per_packet_extras: controller_extras
                || cfg.window_bytes.is_some()
                || cfg.bdp_cap_packets.is_some(),
            nic_busy: false,
        }
    }

    /// Posts a message of `bytes` bytes (an RDMA WRITE or SEND work request): it takes
    /// ⌈bytes / MTU⌉ PSNs after those already posted, its last packet carrying AckReq. Panics
    /// on 0 bytes (a zero-length message is one header-only packet in InfiniBand; no workload
    /// here has one).
    pub fn post_message(&mut self, bytes: u64) {
        assert!(bytes > 0, "a message has at least one byte");
        let packets = bytes.div_ceil(u64::from(self.cfg.mtu));
        self.msgs.push_back(Message {
            first_psn: self.end_psn,
            packets,
            first_byte: self.end_bytes,
            bytes,
        });
        self.end_psn += packets;
        self.end_bytes += bytes;
    }

    /// The application stops (a fixed-duration flow's end): what is posted and not yet sent
    /// is withdrawn, the last message ending at the highest PSN sent, so the queue pair
    /// finishes what is in flight and sends nothing new (a packet already sent keeps its
    /// place, resends included).
    pub fn withdraw_unsent(&mut self) {
        let keep = self.snd_max;
        let mtu = u64::from(self.cfg.mtu);
        while let Some(m) = self.msgs.back_mut() {
            if m.first_psn >= keep {
                self.end_psn = m.first_psn;
                self.end_bytes = m.first_byte;
                self.msgs.pop_back();
                continue;
            }
            if m.end_psn() > keep {
                m.packets = keep - m.first_psn;
                m.bytes = m.bytes.min(m.packets * mtu);
                self.end_psn = keep;
                self.end_bytes = m.first_byte + m.bytes;
            }
            break;
        }
    }

    /// When the next packet may leave, if one may: `None` while there is nothing to send or
    /// the window (or BDP cap) is full, which only an ACK, a timeout or a new message changes.
    /// Otherwise `now` or the pacing time, whichever is later: the last packet's send time plus
    /// its wire bytes at the current rate (the HPCC fork's `m_nextAvail`, `UpdateNextAvail`; a
    /// rate change moves it as the fork's `ChangeRate` does).
    pub fn next_send_time(&self, now: Time) -> Option<Time> {
        self.has_sendable().then(|| self.pace_time().max(now))
    }

    /// Sends what may leave at `now` into `out` (appended; the caller reuses the `Vec`) and
    /// returns how many. Pacing lets at most one packet go per instant; a call earlier than
    /// [`next_send_time`](Self::next_send_time) sends nothing. A caller that is late does not
    /// get a catch-up burst: the next packet is paced from this one (as a NIC's scheduler).
    /// Nothing goes while the NIC is busy ([`set_nic_busy`](Self::set_nic_busy)).
    pub fn emit(&mut self, now: Time, out: &mut Vec<DataPacket>) -> usize {
        if self.nic_busy {
            return 0;
        }
        if !self.started {
            self.started = true;
            self.started_at = now;
            self.rate_at = now;
            self.controller.on_start(now, self.line_rate, &mut self.ctl);
            self.apply_ctl(now);
        }
        let mut sent = 0;
        while self.has_sendable() && self.pace_time() <= now {
            let (psn, retransmit) = self.take_next();
            let (payload, last_of_message) = self.shape(psn);
            let ack_req =
                last_of_message || (self.per_packet_extras && self.window_closed_behind());
            out.push(DataPacket {
                psn,
                payload,
                ack_req,
                retransmit,
                sent_at: now,
            });
            let s = &mut self.stats;
            s.packets_sent += 1;
            s.bytes_sent += u64::from(payload);
            if retransmit {
                s.retransmitted_packets += 1;
                s.retransmitted_bytes += u64::from(payload);
            }
            let wire = self.cfg.wire_bytes(payload);
            self.last_send = Some((now, wire));
            if self.per_packet_extras && self.controller.hears_sends() {
                // DCQCN's byte counter counts what is sent.
                self.controller.on_send(now, wire, &mut self.ctl);
                self.apply_ctl(now);
            }
            // IBTA vol. 1 §9.7.6.1.3: the transport timer runs while requests are outstanding;
            // it starts with the first one sent and restarts on progress (`on_ack`).
            if self.rto_deadline.is_none() {
                self.rto_deadline = Some(now + self.cfg.rto.value(self.packets_in_flight()));
            }
            sent += 1;
        }
        sent
    }

    /// The next packet to send: selective repeat takes a lost packet first, then new data (IRN
    /// §3.1: "retransmit lost packets, then new ones"); go-back-N sends `snd_nxt`, which after a
    /// NAK or a timeout is below `snd_max` (a resend).
    fn take_next(&mut self) -> (u64, bool) {
        if self.cfg.recovery == Recovery::SelectiveRepeat {
            if let Some(psn) = self.board.take_lost() {
                return (psn, true);
            }
            self.board.on_new_sent();
        }
        let psn = self.snd_nxt;
        let resend = psn < self.snd_max;
        self.snd_nxt += 1;
        self.snd_max = self.snd_max.max(self.snd_nxt);
        (psn, resend)
    }

    /// An ACK or NACK arrived at `now`. Processes it (cumulative acknowledgement, go-back-N
    /// rewind or selective-repeat loss marking, the timer), hands the controller its sample,
    /// then sends what may leave at once into `out`.
    /// `int`: the INT records the ACK echoed (empty without INT), for the controller.
    pub fn on_ack(
        &mut self,
        now: Time,
        ack: &AckPacket,
        int: &[IntHop],
        out: &mut Vec<DataPacket>,
    ) -> AckOutcome {
        let nack = ack.kind == AckKind::Nack;
        if nack {
            self.stats.nacks_received += 1;
        } else {
            self.stats.acks_received += 1;
        }
        let before = self.snd_una;
        let (acked_bytes, messages_completed) = self.advance(ack.epsn.min(self.snd_max));
        if nack {
            match self.cfg.recovery {
                // IBTA vol. 1 §9.7.5.2.4 and ConnectX: resend everything from the NAKed PSN
                // (the HPCC fork's `RecoverQueue`: snd_nxt = snd_una after acknowledging it).
                Recovery::GoBackN => self.snd_nxt = self.snd_una,
                // IRN §3.1: the NACK's cumulative PSN and the PSN that triggered it tell which
                // packets are lost: every one below the highest selectively acknowledged that
                // the receiver lacks. The first NACK opens a recovery that ends when the
                // cumulative acknowledgement passes what was sent when it opened.
                Recovery::SelectiveRepeat => {
                    if let Some(s) = ack.sack_psn {
                        self.board.sack(s);
                    }
                    if !self.in_recovery {
                        self.in_recovery = true;
                        self.recovery_point = self.snd_max;
                    }
                    let limit = self.board.high_sack().max(self.snd_una + 1);
                    self.board.mark_lost_below(limit);
                }
            }
        }
        if self.in_recovery && self.snd_una >= self.recovery_point {
            self.in_recovery = false;
        }
        if self.snd_una > before {
            // Progress restarts the transport timer; nothing outstanding stops it.
            self.rto_deadline = (self.snd_una < self.snd_max)
                .then(|| now + self.cfg.rto.value(self.packets_in_flight()));
        }
        let sample = AckSample {
            now,
            nack,
            acked_bytes,
            rtt: now.since(ack.echo_sent_at),
            ecn_echo: ack.ecn_echo,
            telemetry: ack.telemetry,
            int,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            bytes_in_flight: self.bytes_in_flight(),
        };
        self.controller.on_ack(&sample, &mut self.ctl);
        self.apply_ctl(now);
        self.emit(now, out);
        AckOutcome {
            acked_bytes,
            messages_completed,
            all_acked: self.all_acked(),
        }
    }

    /// Moves the cumulative acknowledgement to `epsn` (no-op if not beyond `snd_una`); returns
    /// the bytes and messages it acknowledged.
    fn advance(&mut self, epsn: u64) -> (u64, u32) {
        if epsn <= self.snd_una {
            return (0, 0);
        }
        let bytes = self.offset(epsn);
        let acked = bytes - self.una_bytes;
        self.una_bytes = bytes;
        self.snd_una = epsn;
        self.snd_nxt = self.snd_nxt.max(epsn);
        let mut done = 0;
        while self.msgs.front().is_some_and(|m| m.end_psn() <= epsn) {
            self.msgs.pop_front();
            done += 1;
        }
        self.board.advance(epsn);
        self.stats.bytes_acked += acked;
        self.stats.messages_completed += u64::from(done);
        (acked, done)
    }

    /// A CNP for this QP arrived: the controller reacts, then what may leave at once goes.
    pub fn on_cnp(&mut self, now: Time, out: &mut Vec<DataPacket>) {
        self.stats.cnps_received += 1;
        self.controller.on_cnp(now, &mut self.ctl);
        self.apply_ctl(now);
        self.emit(now, out);
    }

    /// The earliest of the retransmission timer and the controller's timer (the latter only
    /// while something is unacknowledged or unsent).
    pub fn timer_deadline(&self) -> Option<Time> {
        let cc = self.ctl.timer.filter(|_| !self.all_acked());
        match (self.rto_deadline, cc) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Runs what is due at `now`: the controller's timer, then the retransmission timeout;
    /// then sends what may leave at once. A call before either deadline only sends.
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<DataPacket>) {
        if self.ctl.timer.is_some_and(|t| t <= now) {
            self.ctl.timer = None;
            self.controller.on_timer(now, &mut self.ctl);
            self.apply_ctl(now);
        }
        if self.rto_deadline.is_some_and(|t| t <= now) {
            self.retransmission_timeout();
        }
        self.emit(now, out);
    }

    /// The transport timer expired: go back to `snd_una`. Go-back-N resends everything from
    /// there (IBTA vol. 1 §9.7.6.1.3: the requester retries from the oldest unacknowledged
    /// request); selective repeat resends every packet in flight the receiver has not
    /// selectively acknowledged. The timer restarts with the first resend. No retry limit: an
    /// InfiniBand QP would go to the error state after `retry_cnt` (at most 7) timeouts; a
    /// simulated flow keeps trying.
    fn retransmission_timeout(&mut self) {
        self.rto_deadline = None;
        if self.snd_una >= self.snd_max {
            return;
        }
        self.stats.timeouts += 1;
        match self.cfg.recovery {
            Recovery::GoBackN => self.snd_nxt = self.snd_una,
            Recovery::SelectiveRepeat => {
                self.board.mark_all_lost();
                self.in_recovery = true;
                self.recovery_point = self.snd_max;
            }
        }
    }

    /// Sets the sending rate (a controller outside the hooks, or the engine). 0 is taken as
    /// 1 bit/s.
    pub fn set_rate(&mut self, rate: BitsPerSec) {
        self.ctl.rate = rate;
        let at = self.rate_at;
        self.apply_ctl(at);
    }

    /// Sets the window in bytes (`None`: none).
    pub fn set_window(&mut self, window_bytes: Option<u64>) {
        self.ctl.window_bytes = window_bytes;
        self.per_packet_extras |= window_bytes.is_some();
    }

    /// Rebuilds the pacing clock after the controller touched `ctl` at `now` (and closes the
    /// old rate's stretch of the mean).
    #[inline]
    fn apply_ctl(&mut self, now: Time) {
        if self.ctl.rate.0 == 0 {
            self.ctl.rate = BitsPerSec(1);
        }
        if self.ctl.rate != self.pace.rate() {
            let old = self.pace.rate();
            if let Some((from, at @ None)) = &mut self.window
                && *from <= now
            {
                // The window opened during the old rate's stretch.
                let start = (*from).max(self.rate_at);
                *at = Some(
                    self.rate_area
                        + u128::from(old.0) * u128::from(start.since(self.rate_at).as_ps()),
                );
            }
            self.rate_area += u128::from(old.0) * u128::from(now.since(self.rate_at).as_ps());
            self.rate_at = now;
            self.pace = SerializationRate::new(self.ctl.rate);
        }
    }

    /// The rate averaged over time from the first send to `end` (`None` before the first
    /// send or at it).
    pub fn mean_rate(&self, end: Time) -> Option<BitsPerSec> {
        let span = end.since(self.started_at).as_ps();
        if !self.started || span == 0 {
            return None;
        }
        let tail = u128::from(self.ctl.rate.0) * u128::from(end.since(self.rate_at).as_ps());
        Some(BitsPerSec(
            ((self.rate_area + tail) / u128::from(span)) as u64,
        ))
    }

    /// Keeps the rate's mean from `from` on ([`RoceSender::window_rate`]).
    pub fn set_rate_window(&mut self, from: Time) {
        self.window = Some((from, None));
    }

    /// The rate averaged over time from the window's start (or the first send, if later) to
    /// `end` (`None` without a window, before the first send, or for an empty span).
    pub fn window_rate(&self, end: Time) -> Option<BitsPerSec> {
        let (from, at) = self.window?;
        if !self.started {
            return None;
        }
        let start = from.max(self.started_at);
        if end <= start {
            return None;
        }
        // The integral up to `start`: the snapshot, or (the rate unchanged since) read off now.
        let area_at = |t: Time| {
            self.rate_area + u128::from(self.ctl.rate.0) * u128::from(t.since(self.rate_at).as_ps())
        };
        let before = match at {
            Some(a) if from >= self.started_at => a,
            _ if start >= self.rate_at => area_at(start),
            // The QP started after the window opened: nothing before its first send.
            _ => 0,
        };
        let span = end.since(start).as_ps();
        Some(BitsPerSec(
            ((area_at(end) - before) / u128::from(span)) as u64,
        ))
    }

    /// What the rate controller reports of itself.
    pub fn controller_state(&self) -> crate::ControllerState {
        self.controller.state()
    }

    /// The earliest time the pacing lets the next packet go.
    #[inline]
    fn pace_time(&self) -> Time {
        self.last_send
            .map_or(Time::ZERO, |(t, wire)| t + self.pace.time_for(wire))
    }

    /// Whether the host's NIC has no room for this QP's next packet (see the field); the host
    /// sets it before each call that may send.
    #[inline]
    pub fn set_nic_busy(&mut self, busy: bool) {
        self.nic_busy = busy;
    }

    /// Whether a packet is due at `now`: one may be sent and the pacing allows it. A QP due
    /// while its NIC is busy waits for the NIC, not for a timer.
    #[inline]
    pub fn due(&self, now: Time) -> bool {
        self.has_sendable() && self.pace_time() <= now
    }

    /// Something may be sent once the pacing allows: a lost packet (selective repeat), or the
    /// next PSN if the window and BDP cap are open.
    #[inline]
    fn has_sendable(&self) -> bool {
        (self.cfg.recovery == Recovery::SelectiveRepeat && self.board.lost() > 0)
            || (self.snd_nxt < self.end_psn && self.window_open())
    }

    /// The packet just sent closed the window (or IRN's BDP cap) with data still to send: it
    /// asks for an ACK at once (the BTH AckReq bit, IBTA vol. 1 §9.2), or with ACK coalescing
    /// (`ack_every` > 1) the responder would wait for packets the window does not let go, and
    /// the QP would stall until its timeout.
    #[inline]
    fn window_closed_behind(&self) -> bool {
        (self.ctl.window_bytes.is_some() || self.cfg.bdp_cap_packets.is_some())
            && self.snd_nxt < self.end_psn
            && !self.window_open()
    }

    /// The window (bytes, the HPCC fork's `IsWinBound`) and IRN's BDP cap (packets) both count
    /// from `snd_una` to `snd_nxt`. Either lets one packet go when nothing is in flight, so a
    /// window below one packet still makes progress.
    #[inline]
    fn window_open(&self) -> bool {
        let packets = self.snd_nxt - self.snd_una;
        if packets == 0 {
            return true;
        }
        if self
            .cfg
            .bdp_cap_packets
            .is_some_and(|cap| packets >= u64::from(cap))
        {
            return false;
        }
        self.ctl
            .window_bytes
            .is_none_or(|w| self.bytes_in_flight() < w)
    }

    /// The message holding `psn` (which is posted and not yet acknowledged).
    #[inline]
    fn message(&self, psn: u64) -> &Message {
        let i = self.msgs.partition_point(|m| m.end_psn() <= psn);
        &self.msgs[i]
    }

    /// Payload bytes of `psn` and whether it ends its message (AckReq).
    fn shape(&self, psn: u64) -> (u32, bool) {
        let m = self.message(psn);
        let k = psn - m.first_psn;
        let mtu = u64::from(self.cfg.mtu);
        let payload = (m.bytes - k * mtu).min(mtu) as u32;
        (payload, k + 1 == m.packets)
    }

    /// Byte offset of the first byte of `psn` (`end_bytes` at `end_psn`).
    fn offset(&self, psn: u64) -> u64 {
        if psn >= self.end_psn {
            return self.end_bytes;
        }
        let m = self.message(psn);
        m.first_byte + (psn - m.first_psn) * u64::from(self.cfg.mtu)
    }

    /// Packets in flight for the timer's choice (IRN's RTO_low below N): sent and neither
    /// cumulatively nor (selective repeat) selectively acknowledged.
    fn packets_in_flight(&self) -> u64 {
        match self.cfg.recovery {
            Recovery::GoBackN => self.snd_max - self.snd_una,
            Recovery::SelectiveRepeat => self.board.unsacked(),
        }
    }

    /// Payload bytes from `snd_una` to `snd_nxt`.
    pub fn bytes_in_flight(&self) -> u64 {
        self.offset(self.snd_nxt) - self.una_bytes
    }

    /// Every posted message is acknowledged (true before anything is posted).
    pub fn all_acked(&self) -> bool {
        self.snd_una == self.end_psn
    }

    /// Its counters.
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }

    /// Oldest unacknowledged PSN.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    /// Next PSN to send (go-back-N: possibly a resend).
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }

    /// One past the highest PSN sent.
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }

    /// One past the last PSN posted.
    pub fn end_psn(&self) -> u64 {
        self.end_psn
    }

    /// Bytes posted.
    pub fn bytes_posted(&self) -> u64 {
        self.end_bytes
    }

    /// The current sending rate.
    pub fn rate(&self) -> BitsPerSec {
        self.ctl.rate
    }

    /// The current window in bytes, if any.
    pub fn window_bytes(&self) -> Option<u64> {
        self.ctl.window_bytes
    }

    /// The NIC's line rate.
    pub fn line_rate(&self) -> BitsPerSec {
        self.line_rate
    }

    /// Selective repeat is recovering losses.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// The retransmission timer's deadline alone.
    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_deadline
    }

    /// Its parameters.
    pub fn config(&self) -> &RoceConfig {
        &self.cfg
    }

    /// Its rate controller.
    pub fn controller(&self) -> &Controller {
        &self.controller
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RtoConfig;
    use incastsim_core::Duration;

    fn sender(cfg: RoceConfig, bytes: u64) -> RoceSender {
        let mut s = RoceSender::new(cfg, BitsPerSec::gbps(100), Controller::default());
        s.post_message(bytes);
        s
    }

    fn ack(epsn: u64) -> AckPacket {
        AckPacket {
            kind: AckKind::Ack,
            epsn,
            sack_psn: None,
            echo_sent_at: Time::ZERO,
            trigger_psn: 0,
            ecn_echo: false,
            telemetry: [0; 3],
        }
    }

    /// A controller's `on_send` hears every data packet put on the wire, with its wire bytes
    /// (payload and header), retransmissions included; a rate it sets there paces the next
    /// packet.
    #[test]
    fn the_controller_hears_every_packet_sent() {
        #[derive(Clone, Debug, Default)]
        struct Sent(Vec<u64>);
        impl crate::RateController for Sent {
            fn on_ack(&mut self, _: &crate::AckSample<'_>, _: &mut crate::RateControl) {}
            fn on_send(&mut self, _: Time, wire: u64, ctl: &mut crate::RateControl) {
                self.0.push(wire);
                ctl.rate = BitsPerSec::gbps(50);
            }
        }
        let cfg = RoceConfig::default();
        let header = u64::from(cfg.header_bytes);
        let c = Controller::Custom(crate::CustomController::new("sent", Sent::default()));
        let mut s = RoceSender::new(cfg, BitsPerSec::gbps(100), c);
        s.post_message(2_500);
        let mut out = Vec::new();
        s.emit(Time::ZERO, &mut out);
        // The rate set at the first packet paces the second: its wire bytes at 50 Gbps.
        let gap_ps = (1_000 + header) * 8 * 20;
        assert_eq!(s.next_send_time(Time::ZERO), Some(Time(gap_ps)));
        let mut t = Time::ZERO;
        while let Some(n) = s.next_send_time(t) {
            t = n;
            s.emit(t, &mut out);
        }
        let Controller::Custom(c) = s.controller() else {
            unreachable!()
        };
        let sent = c.controller.as_any().downcast_ref::<Sent>().unwrap();
        assert_eq!(sent.0, [1_000 + header, 1_000 + header, 500 + header]);
    }

    /// While the NIC is busy a due QP releases nothing and stays due; once the NIC takes its
    /// packet (late), the next one is paced from that late send, with no catch-up burst.
    #[test]
    fn a_busy_nic_holds_the_packet_in_the_queue_pair() {
        let mut s = sender(RoceConfig::default(), 3_000);
        let mut out = Vec::new();
        s.set_nic_busy(true);
        assert_eq!(s.emit(Time::ZERO, &mut out), 0);
        assert!(s.due(Time::ZERO));
        assert_eq!(s.snd_nxt(), 0);
        // The NIC takes it 5 µs later: PSN 0 goes then, PSN 1 one wire time (1,062 B at
        // 100 Gbps: 84.96 ns) after.
        s.set_nic_busy(false);
        let late = Time::ZERO + Duration::from_us(5);
        assert_eq!(s.emit(late, &mut out), 1);
        assert_eq!(out[0].sent_at, late);
        assert!(!s.due(late));
        let wire = RoceConfig::default().wire_bytes(1_000);
        assert_eq!(
            s.next_send_time(late),
            Some(late + Duration::from_ps(wire * 80))
        );
    }

    /// Withdrawing the unsent part of a 10-packet message after 3 went ends it at PSN 3: the
    /// three complete it, nothing more is sent; before anything is sent, all is withdrawn.
    #[test]
    fn withdrawing_unsent_ends_the_message_at_what_went() {
        let mut s = sender(RoceConfig::default(), 10_000);
        let mut out = Vec::new();
        for t in 0..3 {
            s.emit(Time(t * 1_000_000), &mut out);
        }
        assert_eq!(out.len(), 3);
        s.withdraw_unsent();
        assert_eq!((s.end_psn(), s.bytes_posted()), (3, 3_000));
        assert_eq!(s.next_send_time(Time(10_000_000)), None);
        s.on_ack(Time(10_000_000), &ack(3), &[], &mut out);
        assert!(s.all_acked());
        let mut idle = sender(RoceConfig::default(), 5_000);
        idle.withdraw_unsent();
        assert_eq!((idle.end_psn(), idle.bytes_posted()), (0, 0));
        assert!(idle.all_acked());
    }

    /// A caller that comes late gets one packet, and the next is paced from it: no burst.
    #[test]
    fn a_late_caller_gets_no_burst() {
        let mut s = sender(RoceConfig::default(), 5_000);
        let mut out = Vec::new();
        s.emit(Time::ZERO, &mut out);
        assert_eq!(s.emit(Time(1_000_000), &mut out), 1);
        assert_eq!(s.next_send_time(Time(1_000_000)), Some(Time(1_084_960)));
    }

    /// A window smaller than one packet still lets one packet go at a time; a zero rate is
    /// taken as 1 bit/s instead of dividing by zero.
    #[test]
    fn degenerate_window_and_rate_still_progress() {
        let cfg = RoceConfig {
            window_bytes: Some(1),
            ..RoceConfig::default()
        };
        let mut s = sender(cfg, 3_000);
        let mut out = Vec::new();
        s.emit(Time::ZERO, &mut out);
        assert_eq!(s.next_send_time(Time(1)), None, "window full");
        s.on_ack(Time(2_000_000), &ack(1), &[], &mut out);
        assert_eq!(
            out.len(),
            2,
            "the ACK opened the window and the pacing allows it"
        );
        s.set_rate(BitsPerSec(0));
        assert_eq!(s.rate(), BitsPerSec(1));
    }

    /// Stale and out-of-range acknowledgements change nothing; progress restarts the timer and
    /// the last ACK stops it; byte counts follow a short last packet.
    #[test]
    fn acknowledgements_and_the_timer() {
        let cfg = RoceConfig {
            rto: RtoConfig::Fixed(Duration::from_us(10)),
            ..RoceConfig::default()
        };
        let mut s = sender(cfg, 2_500);
        let mut out = Vec::new();
        let mut t = Time::ZERO;
        while let Some(n) = s.next_send_time(t) {
            t = n;
            s.emit(t, &mut out);
        }
        assert_eq!(
            s.rto_deadline(),
            Some(Time(10_000_000)),
            "armed at the first send"
        );
        let o = s.on_ack(Time(3_000_000), &ack(2), &[], &mut out);
        assert_eq!(
            (o.acked_bytes, o.messages_completed, o.all_acked),
            (2_000, 0, false)
        );
        assert_eq!(
            s.rto_deadline(),
            Some(Time(13_000_000)),
            "restarted on progress"
        );
        assert_eq!(s.bytes_in_flight(), 500);
        assert_eq!(
            s.on_ack(Time(3_000_001), &ack(1), &[], &mut out)
                .acked_bytes,
            0
        );
        let o = s.on_ack(Time(4_000_000), &ack(99), &[], &mut out);
        assert_eq!(
            (o.acked_bytes, o.messages_completed, o.all_acked),
            (500, 1, true)
        );
        assert_eq!((s.rto_deadline(), s.timer_deadline()), (None, None));
        assert_eq!(s.stats().bytes_acked, 2_500);
    }
}
