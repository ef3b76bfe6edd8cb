//! The TCP sender: NewReno loss recovery (RFC 5681, RFC 6582), limited transmit (RFC 3042) and
//! the retransmission timer (RFC 6298).
//!
//! Protocol logic only: it does no I/O and never reads a clock. Time comes in as `now`; segments
//! to transmit go out through a caller-owned `Vec<Segment>` (reused, so nothing allocates per
//! packet); the timer the caller must run is [`TcpSender::rto_deadline`].
//! Sequence numbers are byte offsets from 0 (the connection is established at start).
//!
//! This file holds the sender's state, its accessors and the entry points the caller drives
//! (`write`, `on_ack`, `on_timeout`, `on_scheme_timer`, `stop_writing`) with ACK processing;
//! the machinery is in submodules: `recovery` (fast retransmit and recovery, NewReno and SACK),
//! `rto` (RTT samples and the retransmission timer), `emit` (sizing and sending segments),
//! `scheme` (the scheme hooks' view and actions) and `stats` (counters).

mod controller;
#[cfg(test)]
mod ecn_tests;
mod emit;
mod prr;
mod rack;
mod recovery;
mod rto;
mod scheme;
mod stats;

pub use stats::{SUCCESSIVE_TIMEOUT_BINS, SenderStats};

use crate::cc::{Cc, CongestionControl};
use crate::cc_state::{CcState, RecoveryState, Window};
use crate::policy::{AckInfo, SenderPolicy, StandardTcp, hooks};
use crate::rack::Rack;
use crate::rtt::{RtoConfig, RttEstimator};
use crate::sack::Scoreboard;
use crate::segment::Segment;
use crate::timeout_class::{TimeoutClassStats, TimeoutClassifier};
use incastsim_core::{Duration, FlowId, Time};

/// A bit of `TcpSender::hooks` beside the scheme's (`policy::hooks`), set when the controller
/// asks for optional hooks: the new-data fast path (`send_new_data`) is not for this sender,
/// and the ACK path calls the controller's sample hook (tested with the scheme's `ON_ACK`).
const NOT_FAST: u16 = 1 << 15;

/// How RTT samples are taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RttSampling {
    /// Every ACK of new data gives a sample from the echoed timestamp (RFC 7323 §4; Linux).
    Timestamps,
    /// One timed segment per round trip, discarded if anything is retransmitted (Karn's
    /// algorithm, RFC 6298 §3; classic BSD and ns-2 without timestamps).
    OncePerRtt,
}

/// cwnd when a full ACK ends NewReno fast recovery (RFC 6582 §3.2 step 3 allows both).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryExit {
    /// cwnd = ssthresh ("deflating the window"; ns-2, ns-3 and Linux do this).
    Ssthresh,
    /// cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS), which avoids a burst.
    MinFlight,
}

/// A sender's parameters (from a TCP profile).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SenderConfig {
    /// Sender maximum segment size, payload bytes.
    pub smss: u32,
    /// Initial window, segments (RFC 5681 §3.1 IW; the incast papers use 2).
    pub initial_cwnd_segments: u32,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681: 3).
    pub dupack_threshold: u32,
    /// Send new data on the first two duplicate ACKs (RFC 3042).
    pub limited_transmit: bool,
    /// RTO bounds and granularity.
    pub rto: RtoConfig,
    /// Which ACKs give RTT samples (timestamps or Karn's rule).
    pub rtt_sampling: RttSampling,
    /// When fast recovery ends.
    pub recovery_exit: RecoveryExit,
    /// RFC 5681 §4.1: after an idle period longer than RTO, restart from min(IW, cwnd).
    pub slow_start_after_idle: bool,
    /// RFC 3168 ECN: ECT on new data, react to ECN-Echo once per window, CWR.
    pub ecn: bool,
    /// RFC 6675 SACK-based loss recovery (instead of NewReno's).
    pub sack: bool,
    /// RFC 8985 RACK loss detection in place of the DupAck threshold (needs `sack`).
    pub rack: bool,
    /// RFC 8985 §7 Tail Loss Probe (needs `rack`).
    pub tlp: bool,
    /// RFC 6937 Proportional Rate Reduction of cwnd during fast recovery.
    pub prr: bool,
}

/// A TCP sender: congestion control `Cc`, loss detection and recovery (fast retransmit,
/// NewReno, SACK, RACK-TLP), the RFC 6298 retransmission timer, and a scheme's hooks `P`.
/// It never reads a clock or a random stream of its own: the engine gives it the time and
/// a scheme draws from its own stream, so a run is deterministic.
#[derive(Clone, Debug)]
pub struct TcpSender<P: SenderPolicy = StandardTcp> {
    cfg: SenderConfig,
    flow: FlowId,
    w: Window,
    cc: Cc,
    rtt: RttEstimator,
    /// Oldest unacknowledged byte.
    snd_una: u64,
    /// Next byte to send (moves back to snd_una after a timeout: go-back-N).
    snd_nxt: u64,
    /// One past the highest byte ever sent.
    snd_max: u64,
    /// One past the last byte the application has written.
    app_limit: u64,
    peer_window: u64,
    dupacks: u32,
    in_recovery: bool,
    /// RFC 6582 `recover`, stored as one past the highest byte sent when it was recorded.
    recover: u64,
    partial_acks: u32,
    /// Diagnostics only: classifies each timeout (ABTT / IBTT kinds; `timeout_class`).
    timeout_classifier: TimeoutClassifier,
    backoff: u32,
    successive_timeouts: u32,
    rto_deadline: Option<Time>,
    armed_rto: Duration,
    /// When the running timer was armed (a scheme may fire it early).
    rto_armed_at: Time,
    /// Start of the highest new segment sent (for [`SenderAction::RetransmitHighest`]).
    last_new_seq: u64,
    /// (end of the timed segment, its send time) in `OncePerRtt` mode.
    rtt_timing: Option<(u64, Time)>,
    last_send: Time,
    /// The policy's size for the next new segment, once asked.
    next_new_len: Option<u32>,
    /// SACK scoreboard (RFC 6675), when SACK is on.
    scoreboard: Option<Scoreboard>,
    /// RFC 6675 HighRxt: one past the highest byte retransmitted in this recovery.
    high_rxt: u64,
    /// RFC 6675 RescueRxt: the RecoveryPoint of the recovery that used rule (4), if any.
    rescue_rxt: Option<u64>,
    /// No further ECN reaction until snd_una passes this (once per window, RFC 3168 §6.1.2).
    ecn_recover: u64,
    /// Set CWR on the next new data segment (RFC 3168 §6.1.2).
    cwr_pending: bool,
    stats: SenderStats,
    /// The policy's [`SenderPolicy::hooks`] bits, read once.
    hooks: u16,
    /// cwnd counts packets (segments of any size), as Linux without ABC; see
    /// [`TcpSender::set_packet_cwnd`].
    packet_cwnd: bool,
    /// In packet mode: the end of every new segment not yet acknowledged, in order.
    seg_ends: std::collections::VecDeque<u64>,
    /// RFC 8985 RACK state, when RACK is on.
    rack: Option<Rack>,
    /// RACK's reordering timer (RFC 8985 §6.2 step 5).
    rack_deadline: Option<Time>,
    /// The Tail Loss Probe timer, PTO (RFC 8985 §7.2).
    tlp_deadline: Option<Time>,
    /// TLP.end_seq and TLP.is_retrans of the outstanding probe (RFC 8985 §7.3).
    tlp_end_seq: Option<u64>,
    tlp_is_retrans: bool,
    /// After an RTO until snd_una passes `recover` (RACK only: RTO recovery of RFC 8985).
    rto_recovery: bool,
    /// Any of RACK, TLP or PRR is on, or the controller asks for optional hooks: the one flag
    /// the common path tests (their work is out of line, so the default path pays one branch
    /// per site).
    extended: bool,
    /// RFC 6937 state: prr_delivered, prr_out, RecoverFS; and, without SACK, the duplicate
    /// ACKs since the last advance of snd_una (each counts one SMSS delivered).
    prr_delivered: u64,
    prr_out: u64,
    recover_fs: u64,
    prr_dupacks: u64,
    /// PRR's sndcnt of the last ACK and the DeliveredData of the ACK being processed.
    prr_sndcnt: u64,
    prr_ack_delivered: u64,
    /// The controller's [`crate::cc::cc_hooks`] bits, read once (0 for every built-in).
    cc_hooks: u8,
    /// The ACK samples, pacing and timer of a controller that asks for them.
    cc_extras: Option<Box<controller::CcExtras>>,
    /// The scheme's sender-side state.
    pub policy: P,
}

impl<P: SenderPolicy> TcpSender<P> {
    /// A sender for `flow` with nothing to send yet. Panics if `smss`, the initial window or the
    /// duplicate-ACK threshold is 0 (the config checks refuse them first).
    pub fn new(flow: FlowId, cfg: SenderConfig, cc: Cc, policy: P) -> Self {
        assert!(cfg.smss > 0 && cfg.initial_cwnd_segments > 0 && cfg.dupack_threshold > 0);
        let smss = policy.initial_smss(cfg.smss).max(1) as u64;
        let cc_hooks = cc.cc_hooks();
        TcpSender {
            cfg,
            flow,
            w: Window {
                cwnd: cfg.initial_cwnd_segments as u64 * smss,
                ssthresh: u64::MAX / 2,
                smss,
            },
            cc,
            rtt: RttEstimator::new(cfg.rto),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_limit: 0,
            // Until the first ACK, assume the peer's window is unlimited (set by the caller's
            // configuration through `set_peer_window` at connection setup).
            peer_window: u64::MAX / 2,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            partial_acks: 0,
            timeout_classifier: TimeoutClassifier::default(),
            backoff: 0,
            successive_timeouts: 0,
            rto_deadline: None,
            armed_rto: Duration::ZERO,
            rto_armed_at: Time::ZERO,
            last_new_seq: 0,
            rtt_timing: None,
            last_send: Time::ZERO,
            next_new_len: None,
            scoreboard: cfg.sack.then(Scoreboard::default),
            high_rxt: 0,
            rescue_rxt: None,
            ecn_recover: 0,
            cwr_pending: false,
            stats: SenderStats::default(),
            // A controller's hooks keep the sender off the new-data fast path (pacing is tested
            // on the general one), at no cost to the fast path's test.
            hooks: policy.hooks() | if cc_hooks != 0 { NOT_FAST } else { 0 },
            packet_cwnd: false,
            seg_ends: std::collections::VecDeque::new(),
            rack: cfg.rack.then(Rack::default),
            rack_deadline: None,
            tlp_deadline: None,
            tlp_end_seq: None,
            tlp_is_retrans: false,
            rto_recovery: false,
            extended: cfg.rack || cfg.tlp || cfg.prr || cc_hooks != 0,
            prr_delivered: 0,
            prr_out: 0,
            recover_fs: 0,
            prr_dupacks: 0,
            prr_sndcnt: 0,
            prr_ack_delivered: 0,
            cc_hooks,
            cc_extras: (cc_hooks != 0).then(|| Box::new(controller::CcExtras::new(cc_hooks))),
            policy,
        }
    }

    /// The flow index.
    pub fn flow(&self) -> FlowId {
        self.flow
    }
    /// cwnd, ssthresh and SMSS, bytes.
    pub fn window(&self) -> Window {
        self.w
    }
    /// The congestion controller (its own state: CUBIC's curve, DCTCP's α).
    pub fn cc(&self) -> &Cc {
        &self.cc
    }
    /// The controller's state (cwnd, ssthresh, CUBIC's W_max and K, DCTCP's α), the same fields
    /// whatever the controller: for outputs and time series. Built on each call.
    pub fn cc_state(&self) -> CcState {
        CcState {
            recovery: self.recovery_state(),
            ..self.cc.state(&self.w)
        }
    }
    /// Where the sender is in loss recovery. Derived, not stored: fast recovery is
    /// `in_recovery`; after a timeout `recover` is the highest byte sent (RFC 6582 §3.2) and
    /// fast recovery ends only on an ACK at or past `recover`, so "not in fast recovery and
    /// snd_una below `recover`" is exactly the go-back-N phase after a timeout.
    pub fn recovery_state(&self) -> RecoveryState {
        if self.in_recovery {
            RecoveryState::FastRecovery
        } else if self.snd_una < self.recover {
            RecoveryState::RtoRecovery
        } else {
            RecoveryState::Open
        }
    }
    /// Oldest unacknowledged byte.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    /// Next byte to send.
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    /// One past the highest byte ever sent.
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    /// One past the last byte the application has written (what may be sent).
    pub fn app_limit(&self) -> u64 {
        self.app_limit
    }
    /// In fast or SACK recovery.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    /// Duplicate ACKs since the last ACK of new data.
    pub fn dupacks(&self) -> u32 {
        self.dupacks
    }
    /// The RTT estimator (SRTT, RTTVAR, RTO).
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// Counters so far.
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }
    /// Timeouts of the current segment in a row (0 after an ACK of new data).
    pub fn successive_timeouts(&self) -> u32 {
        self.successive_timeouts
    }
    /// Timeouts by class (ABTT, IBTT whole/partial window, tail, retransmission loss) and the
    /// book's per-flow model inputs; see [`crate::timeout_class`].
    pub fn timeout_classes(&self) -> &TimeoutClassStats {
        &self.timeout_classifier.stats
    }
    /// The SACK scoreboard, when SACK is on.
    pub fn scoreboard(&self) -> Option<&Scoreboard> {
        self.scoreboard.as_ref()
    }

    /// When the retransmission timer expires, if it is running.
    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_deadline
    }
    /// RACK's state, when RACK is on.
    pub fn rack(&self) -> Option<&Rack> {
        self.rack.as_ref()
    }
    /// RACK's reordering timer and the Tail Loss Probe timer, if running.
    pub fn rack_deadline(&self) -> Option<Time> {
        self.rack_deadline
    }
    /// When the Tail Loss Probe fires (RFC 8985 §7), if armed.
    pub fn tlp_deadline(&self) -> Option<Time> {
        self.tlp_deadline
    }
    /// The earliest of the sender's timers (RTO, RACK reordering, TLP): one timer slot for all,
    /// as Linux multiplexes them on one timer (`icsk_pending`). Without RACK and TLP it is the
    /// RTO deadline. When it expires the caller calls [`TcpSender::on_timer`].
    #[inline]
    pub fn timer_deadline(&self) -> Option<Time> {
        if !self.extended {
            return self.rto_deadline;
        }
        let mut d = self.rto_deadline;
        for t in [
            self.rack_deadline,
            self.tlp_deadline,
            self.controller_deadline(),
        ]
        .into_iter()
        .flatten()
        {
            d = Some(d.map_or(t, |d| d.min(t)));
        }
        d
    }
    /// The RTO value the running timer was armed with.
    pub fn armed_rto(&self) -> Duration {
        self.armed_rto
    }
    /// Everything written has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.snd_una == self.app_limit
    }
    /// Counts cwnd in packets instead of bytes (Linux without Appropriate Byte Counting, which
    /// the TCPRand paper uses): at most cwnd/SMSS segments of any size in flight; each ACK grows
    /// the window by the number of segments it acknowledges (× SMSS) instead of its bytes; the
    /// FlightSize behind ssthresh is the number of segments in flight × SMSS. SACK recovery's
    /// pipe stays in bytes.
    pub fn set_packet_cwnd(&mut self, on: bool) {
        self.packet_cwnd = on;
        if on {
            self.seg_ends.reserve(64);
        }
    }

    /// Segments in flight below `upto` (packet mode).
    fn packets_below(&self, upto: u64) -> u64 {
        if upto <= self.snd_una || self.seg_ends.is_empty() {
            return 0;
        }
        let (a, b) = self.seg_ends.as_slices();
        let full = a.partition_point(|&e| e < upto) + b.partition_point(|&e| e < upto);
        (full as u64 + 1).min(self.seg_ends.len() as u64)
    }

    /// RFC 5681's FlightSize (bytes), or segments in flight × SMSS in packet mode.
    fn flight_size(&self) -> u64 {
        if self.packet_cwnd {
            self.packets_below(self.snd_nxt) * self.w.smss
        } else {
            self.snd_nxt - self.snd_una
        }
    }

    /// Whether one more segment of `len` bytes at snd_nxt fits cwnd (+ `extra` segments) in
    /// packet mode.
    fn packet_window_allows(&self, extra: u64) -> bool {
        self.packets_below(self.snd_nxt) < (self.w.cwnd / self.w.smss).max(1) + extra
    }

    /// Packet mode: forgets the segments snd_una has passed; returns how many there were.
    #[inline(always)]
    fn pop_acked_segments(&mut self) -> u64 {
        let mut segments = 0;
        while self.seg_ends.front().is_some_and(|&e| e <= self.snd_una) {
            self.seg_ends.pop_front();
            segments += 1;
        }
        segments
    }

    /// The receive window advertised at connection setup.
    pub fn set_peer_window(&mut self, bytes: u64) {
        self.peer_window = bytes;
    }

    /// Counts a run of successive timeouts that is still open at the end of a simulation.
    pub fn close_stats(&mut self) {
        if self.successive_timeouts > 0 {
            self.stats.record_successive(self.successive_timeouts);
            self.successive_timeouts = 0;
        }
    }

    /// The send sequence space is ordered (RFC 9293 §3.3.1, with snd_max the highest byte sent
    /// and app_limit the end of the application's data): snd_una ≤ snd_nxt ≤ snd_max ≤
    /// app_limit. Checked, in builds with debug assertions (tests included), on leaving every
    /// public entry point that can move the sequence space.
    #[inline]
    fn check_sequence_invariants(&self) {
        debug_assert!(
            self.snd_una <= self.snd_nxt,
            "flow {}: snd_una {} > snd_nxt {}",
            self.flow,
            self.snd_una,
            self.snd_nxt
        );
        debug_assert!(
            self.snd_nxt <= self.snd_max,
            "flow {}: snd_nxt {} > snd_max {}",
            self.flow,
            self.snd_nxt,
            self.snd_max
        );
        debug_assert!(
            self.snd_max <= self.app_limit,
            "flow {}: snd_max {} > app_limit {}",
            self.flow,
            self.snd_max,
            self.app_limit
        );
    }

    /// The values the controller and the scheme report of their own
    /// ([`CongestionControl::value_names`], [`SenderPolicy::value_names`]), by name: the
    /// controller's first. Empty (no allocation) when they report none.
    pub fn component_values(&self) -> Vec<(&'static str, f64)> {
        let (cc, scheme) = (self.cc.value_names(), self.policy.value_names());
        if cc.is_empty() && scheme.is_empty() {
            return Vec::new();
        }
        let mut values = vec![0.0; cc.len().max(scheme.len())];
        let mut named = Vec::with_capacity(cc.len() + scheme.len());
        self.cc.values(&mut values[..cc.len()]);
        named.extend(cc.iter().copied().zip(values.iter().copied()));
        self.policy.values(&mut values[..scheme.len()]);
        named.extend(scheme.iter().copied().zip(values.iter().copied()));
        named
    }

    /// The scheme's periodic timer fired (the caller runs it only for schemes that have one).
    pub fn on_scheme_timer(&mut self, now: Time, out: &mut Vec<Segment>) {
        let view = self.view(now);
        let action = self.policy.on_timer(&view);
        self.apply(now, action, out);
        self.check_sequence_invariants();
    }

    /// The scheme's oracle for the number of active senders of the task (MAA).
    pub fn set_active_senders(&mut self, n: u32) {
        self.policy.set_active_senders(n);
    }

    /// The application hands `bytes` more bytes to the connection.
    pub fn write(&mut self, now: Time, bytes: u64, out: &mut Vec<Segment>) {
        if self.cc_hooks != 0 {
            self.controller_start(now);
        }
        let idle = self.snd_una == self.snd_max;
        if self.cfg.slow_start_after_idle && idle && now.since(self.last_send) >= self.rtt.rto() {
            // RFC 5681 §4.1: restart window RW = min(IW, cwnd).
            let iw = self.cfg.initial_cwnd_segments as u64 * self.w.smss;
            self.w.cwnd = self.w.cwnd.min(iw);
        }
        self.timeout_classifier
            .on_write(self.snd_una, self.app_limit);
        self.app_limit += bytes;
        self.send_window(now, out);
        self.check_sequence_invariants();
    }

    /// The application writes nothing more: data already sent (and its retransmissions) is
    /// still delivered, no new data is sent. (Fixed-duration flows.)
    pub fn stop_writing(&mut self) {
        self.app_limit = self.app_limit.min(self.snd_max);
        self.check_sequence_invariants();
    }

    /// Processes an incoming ACK.
    pub fn on_ack(&mut self, now: Time, ack: &AckInfo, out: &mut Vec<Segment>) {
        self.process_ack(now, ack, out);
        self.check_sequence_invariants();
    }

    #[inline(always)]
    fn process_ack(&mut self, now: Time, ack: &AckInfo, out: &mut Vec<Segment>) {
        if (ack.flags & incastsim_core::packet::flags::DUMMY) as u16
            | (self.hooks & hooks::BEFORE_ACK)
            != 0
            && self.scheme_ack(now, ack, out)
        {
            return;
        }
        self.peer_window = ack.window;
        if ack.ack > self.snd_max {
            return; // acknowledges data never sent: not acceptable (RFC 9293 §3.10.7.4)
        }
        // RFC 6675 §5 (update the scoreboard with the ACK's SACK blocks).
        let mut newly_sacked = 0;
        if let Some(sb) = &mut self.scoreboard {
            let floor = ack.ack.max(self.snd_una);
            for &(s, e) in ack.sack() {
                let e = e.min(self.snd_max);
                if e > floor {
                    newly_sacked += sb.insert(s.max(floor), e);
                }
            }
        }
        if self.extended {
            self.extended_before_ack(now, ack, newly_sacked);
        }
        let acked = ack.ack.saturating_sub(self.snd_una);
        let ece = self.cfg.ecn && ack.ece;
        if self.cfg.ecn {
            // DCTCP's estimator sees every ACK before any reaction to it, so the reduction on
            // this ACK uses the α of the window it closes (RFC 8257 §3.3 steps 1-8 in order).
            self.cc
                .on_ack_ecn(acked, ack.ece, ack.ack.max(self.snd_una), self.snd_nxt);
        }
        if ack.ack > self.snd_una {
            // Reacts to ECE itself, before it sends.
            self.on_new_ack(now, ack, ece, out);
            if self.extended {
                self.extended_after_ack(now, out);
            }
        } else {
            if ack.ack == self.snd_una
                && self.snd_max > self.snd_una
                && (self.scoreboard.is_none() || newly_sacked > 0)
            {
                // RFC 5681 §2: a duplicate ACK (no data, same ack, same window, data
                // outstanding); with SACK, RFC 6675 §2 also requires that it SACKs new data.
                self.on_duplicate_ack(now, out);
            }
            if self.extended {
                self.extended_after_ack(now, out);
            }
            if ece {
                self.on_ecn_echo(now);
                self.send_window(now, out);
            }
        }
        if self.hooks & (hooks::ON_ACK | NOT_FAST) != 0 {
            self.after_ack_hooks(now, ack, acked, newly_sacked, out);
        }
    }

    /// The hooks that hear of an ACK after TCP processed it: the controller's sample (if it
    /// asks: `NOT_FAST` is set exactly then), then the scheme's `on_ack`.
    #[inline(never)]
    fn after_ack_hooks(
        &mut self,
        now: Time,
        ack: &AckInfo,
        acked: u64,
        newly_sacked: u64,
        out: &mut Vec<Segment>,
    ) {
        if self.cc_hooks != 0 {
            self.controller_ack(now, ack.ece, acked, newly_sacked, out);
        }
        if self.hooks & hooks::ON_ACK != 0 {
            let view = self.view(now);
            let action = self.policy.on_ack(&view, ack);
            self.apply(now, action, out);
        }
    }

    /// RFC 3168 §6.1.2 (and RFC 8257 §3.3 for DCTCP's reduction): "the TCP sender's congestion
    /// window should be reduced only once in response to a series of dropped and/or CE packets
    /// from a single window of data": not during loss recovery (which already reduced), not
    /// again before the window outstanding at the last reduction is acknowledged. Marks the next
    /// new segment CWR. The caller sends afterwards, with the reduced window.
    fn on_ecn_echo(&mut self, now: Time) {
        if self.in_recovery || self.snd_una < self.ecn_recover {
            return;
        }
        let flight = self.flight_size();
        self.w.ssthresh = self.cc.ssthresh_on_ecn(&self.w, now, flight);
        self.w.cwnd = self.w.ssthresh;
        self.ecn_recover = self.snd_max.max(self.snd_una + 1);
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
    }

    /// ssthresh on entering fast recovery: the controller's loss reduction, unless an ECN
    /// reduction already answered this window of data (RFC 3168 §6.1.2: one reduction per
    /// window for dropped and CE packets together; Linux's `tcp_enter_recovery` keeps ssthresh
    /// when already in CWR). Then ssthresh stays as that reduction set it.
    pub(super) fn ssthresh_on_loss(&mut self, now: Time) -> u64 {
        if self.snd_una < self.ecn_recover {
            return self.w.ssthresh;
        }
        let flight = self.flight_size();
        self.cc.ssthresh_on_loss(&self.w, now, flight)
    }

    #[inline(always)]
    fn on_new_ack(&mut self, now: Time, ack: &AckInfo, ece: bool, out: &mut Vec<Segment>) {
        let acked = ack.ack - self.snd_una;
        if let Some(r) = self.rtt_sample(now, ack) {
            self.rtt.sample(r);
            if let Some(rack) = &mut self.rack {
                rack.on_rtt_sample(r); // RFC 8985 §6.2 step 1
            }
        }
        // A new ACK ends exponential backoff (RFC 6298 §5.7 / the source papers' Eq. 2: "whenever
        // an acknowledgement is received, the backoff parameter is reset").
        self.backoff = 0;
        if self.successive_timeouts > 0 {
            self.stats.record_successive(self.successive_timeouts);
            self.successive_timeouts = 0;
        }
        self.snd_una = ack.ack;
        if self.snd_nxt < self.snd_una {
            self.snd_nxt = self.snd_una;
        }
        let acked_for_cc = if self.packet_cwnd {
            // Without ABC the window grows per acknowledged segment, whatever its size.
            self.pop_acked_segments().max(1) * self.w.smss
        } else {
            acked
        };
        if let Some(sb) = &mut self.scoreboard {
            sb.advance(self.snd_una);
        }
        if self.rto_recovery && self.snd_una >= self.recover {
            self.end_rto_recovery();
        }
        if self.in_recovery && self.scoreboard.is_some() && ack.ack < self.recover {
            // RFC 6675 §5: during SACK recovery a partial ACK only updates the scoreboard;
            // NextSeg() decides what to send, clocked by the pipe estimate.
            self.arm_rto(now);
            self.sack_send(now, out);
            return;
        }
        let restart_timer = if self.in_recovery {
            self.newreno_recovery_ack(now, ack.ack, acked, out)
        } else {
            self.dupacks = 0;
            // RFC 3168 §6.1.2: "the sender SHOULD NOT increase the congestion window in
            // response to the receipt of an ECN-Echo ACK packet" (nor do Linux and ns-3).
            if !ece {
                self.cc
                    .on_ack(&mut self.w, now, acked_for_cc, self.rtt.srtt());
            }
            true
        };
        if self.snd_una == self.snd_max {
            // RFC 6298 §5.2: all outstanding data acknowledged: stop the timer.
            self.rto_deadline = None;
        } else if restart_timer {
            // RFC 6298 §5.3: an ACK of new data restarts the timer.
            self.arm_rto(now);
        }
        if ece {
            // Reduce before sending, so this ACK releases data only within the reduced window.
            self.on_ecn_echo(now);
        }
        if self.extended && self.cfg.tlp {
            // RFC 8985 §7.2: an ACK of new data (re)starts the PTO, or stops it.
            self.tlp_arm(now);
        }
        self.send_window(now, out);
    }

    /// The retransmission timer expired (the caller guarantees `now` is the deadline).
    pub fn on_timeout(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.retransmission_timeout(now, out);
        self.check_sequence_invariants();
    }

    /// [`TcpSender::timer_deadline`] expired: runs whichever timers are due, RACK's reordering
    /// timer first, then the loss probe (which re-arms the RTO), then the RTO.
    #[inline]
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.extended {
            self.rack_timers(now, out);
        }
        if self.rto_deadline.is_some_and(|d| d <= now) {
            self.retransmission_timeout(now, out);
        }
        if self.extended && self.cc_hooks != 0 {
            self.controller_timers(now, out);
        }
        self.check_sequence_invariants();
    }
}

/// The invariant checks exist only with debug assertions (as in the test profile).
#[cfg(all(test, debug_assertions))]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "snd_nxt 2000 > snd_max 1000")]
    fn sequence_invariants_are_checked() {
        let cfg = SenderConfig {
            smss: 1000,
            initial_cwnd_segments: 1,
            dupack_threshold: 3,
            limited_transmit: false,
            rto: RtoConfig {
                min: Duration::from_ms(200),
                max: Duration::from_secs(60),
                initial: Duration::from_ms(200),
                granularity: Duration::from_us(1),
            },
            rtt_sampling: RttSampling::Timestamps,
            recovery_exit: RecoveryExit::Ssthresh,
            slow_start_after_idle: false,
            ecn: false,
            sack: false,
            rack: false,
            tlp: false,
            prr: false,
        };
        let mut s = TcpSender::new(0, cfg, Cc::NewReno(Default::default()), StandardTcp);
        s.write(Time::ZERO, 5000, &mut Vec::new());
        s.snd_nxt = 2000;
        s.stop_writing();
    }
}
