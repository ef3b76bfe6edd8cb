//! The TCP sender: NewReno loss recovery (RFC 5681, RFC 6582), limited transmit (RFC 3042) and
//! the retransmission timer (RFC 6298).
//!
//! Protocol logic only: it does no I/O and never reads a clock. Time comes in as `now`; segments
//! to transmit go out through a caller-owned `Vec<Segment>` (reused, so nothing allocates per
//! packet); the timer the caller must run is [`TcpSender::rto_deadline`].
//! Sequence numbers are byte offsets from 0 (the connection is established at start).

use crate::cc::{Cc, CongestionControl};
use crate::cc_state::{CcState, Window};
use crate::policy::{AckInfo, SenderAction, SenderPolicy, SenderView, StandardTcp, hooks};
use crate::rtt::{RtoConfig, RttEstimator};
use crate::sack::Scoreboard;
use crate::segment::{Segment, SendCause};
use crate::timeout_class::{TimeoutClassStats, TimeoutClassifier, TimeoutContext};
use incastsim_core::packet::flags;
use incastsim_core::{Duration, FlowId, Time};

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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SenderConfig {
    /// Sender maximum segment size, payload bytes.
    pub smss: u32,
    pub initial_cwnd_segments: u32,
    pub dupack_threshold: u32,
    pub limited_transmit: bool,
    pub rto: RtoConfig,
    pub rtt_sampling: RttSampling,
    pub recovery_exit: RecoveryExit,
    /// RFC 5681 §4.1: after an idle period longer than RTO, restart from min(IW, cwnd).
    pub slow_start_after_idle: bool,
    /// RFC 3168 ECN: ECT on new data, react to ECN-Echo once per window, CWR.
    pub ecn: bool,
    /// RFC 6675 SACK-based loss recovery (instead of NewReno's).
    pub sack: bool,
}

/// Successive-timeout histogram bins: index k-1 counts episodes of exactly k timeouts in a row
/// of one segment, for k = 1..7; the last bin counts 8 or more.
pub const SUCCESSIVE_TIMEOUT_BINS: usize = 8;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    pub fast_retransmits: u64,
    pub partial_ack_retransmits: u64,
    pub limited_transmit_segments: u64,
    pub timeouts: u64,
    /// Sum of the RTO values that expired: time the flow spent waiting on timeouts.
    pub timeout_wait_ps: u64,
    pub successive_timeouts: [u64; SUCCESSIVE_TIMEOUT_BINS],
    pub max_successive_timeouts: u32,
    /// cwnd reductions in response to ECN-Echo.
    pub ecn_reductions: u64,
    pub sack_retransmits: u64,
    /// Retransmissions a scheme asked for (e.g. probabilistic retransmission's marked ones).
    pub scheme_retransmits: u64,
    /// Dummy packets sent (PLATO).
    pub dummies_sent: u64,
    /// Timeouts a scheme fired before the timer expired (PLATO).
    pub forced_timeouts: u64,
    /// The RTO value that expired at the flow's first timeout (0: none yet): the X_i of the RTO
    /// randomization paper's analysis (its Eq. 4-7).
    pub first_timeout_rto_ps: u64,
}

impl SenderStats {
    fn record_successive(&mut self, k: u32) {
        let bin = (k as usize).clamp(1, SUCCESSIVE_TIMEOUT_BINS) - 1;
        self.successive_timeouts[bin] += 1;
        self.max_successive_timeouts = self.max_successive_timeouts.max(k);
    }
}

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
    pub policy: P,
}

impl<P: SenderPolicy> TcpSender<P> {
    pub fn new(flow: FlowId, cfg: SenderConfig, cc: Cc, policy: P) -> Self {
        assert!(cfg.smss > 0 && cfg.initial_cwnd_segments > 0 && cfg.dupack_threshold > 0);
        let smss = policy.initial_smss(cfg.smss).max(1) as u64;
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
            hooks: policy.hooks(),
            packet_cwnd: false,
            seg_ends: std::collections::VecDeque::new(),
            policy,
        }
    }

    pub fn flow(&self) -> FlowId {
        self.flow
    }
    pub fn window(&self) -> Window {
        self.w
    }
    pub fn cc(&self) -> &Cc {
        &self.cc
    }
    /// The controller's state (cwnd, ssthresh, CUBIC's W_max and K, DCTCP's α), the same fields
    /// whatever the controller: for outputs and time series. Built on each call.
    pub fn cc_state(&self) -> CcState {
        self.cc.state(&self.w)
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    pub fn app_limit(&self) -> u64 {
        self.app_limit
    }
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    pub fn dupacks(&self) -> u32 {
        self.dupacks
    }
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }
    pub fn successive_timeouts(&self) -> u32 {
        self.successive_timeouts
    }
    /// Timeouts by class (ABTT, IBTT whole/partial window, tail, retransmission loss) and the
    /// book's per-flow model inputs; see [`crate::timeout_class`].
    pub fn timeout_classes(&self) -> &TimeoutClassStats {
        &self.timeout_classifier.stats
    }
    /// When the retransmission timer expires, if it is running.
    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_deadline
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

    #[inline(never)]
    pub fn view(&self, now: Time) -> SenderView {
        let window = self.w.cwnd.min(self.peer_window);
        let next = (self.app_limit - self.snd_max).min(self.w.smss);
        SenderView {
            now,
            flow: self.flow,
            cc: self.cc_state(),
            smss: self.w.smss,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            snd_max: self.snd_max,
            app_bytes_written: self.app_limit,
            successive_timeouts: self.successive_timeouts,
            dupacks: self.dupacks,
            srtt: self.rtt.srtt(),
            base_rto: self.rtt.rto(),
            rto_min: self.cfg.rto.min,
            rto_max: self.cfg.rto.max,
            granularity: self.cfg.rto.granularity,
            mss: self.cfg.smss as u64,
            in_recovery: self.in_recovery,
            can_send_new: self.snd_nxt == self.snd_max
                && next > 0
                && self.snd_max + next <= self.snd_una + window,
        }
    }

    /// A dummy ACK (only the scheme sees it: TCP ignores it, it is not a duplicate ACK; returns
    /// true) or the scheme's look at an ACK before TCP processes it.
    #[cold]
    fn scheme_ack(&mut self, now: Time, ack: &AckInfo, out: &mut Vec<Segment>) -> bool {
        let view = self.view(now);
        if ack.flags & incastsim_core::packet::flags::DUMMY != 0 {
            let action = self.policy.on_ack(&view, ack);
            self.apply(now, action, out);
            return true;
        }
        self.policy.before_ack(&view, ack);
        false
    }

    /// Carries out what a scheme hook asked for.
    #[inline(never)]
    fn apply(&mut self, now: Time, action: SenderAction, out: &mut Vec<Segment>) {
        match action {
            SenderAction::None => {}
            SenderAction::RetransmitHighest { flags }
            | SenderAction::RetransmitOldest { flags } => {
                if self.snd_max <= self.snd_una {
                    return;
                }
                let seq = match action {
                    SenderAction::RetransmitHighest { .. } => self.last_new_seq.max(self.snd_una),
                    _ => self.snd_una,
                };
                let len = (self.snd_max - seq).min(self.w.smss) as u32;
                self.stats.scheme_retransmits += 1;
                self.emit_flagged(now, seq, len, SendCause::Scheme, flags, out);
            }
            SenderAction::SendDummy { flags } => {
                self.stats.dummies_sent += 1;
                out.push(Segment {
                    seq: self.snd_max,
                    len: 0,
                    cause: SendCause::Dummy,
                    flags: flags | incastsim_core::packet::flags::DUMMY,
                    ect: false,
                });
            }
            SenderAction::FireRto => {
                if self.rto_deadline.is_some() && self.snd_una < self.snd_max {
                    self.stats.forced_timeouts += 1;
                    // The flow waited only since the timer was armed.
                    self.armed_rto = now.since(self.rto_armed_at);
                    self.retransmission_timeout(now, out);
                }
            }
            SenderAction::SetSmss(bytes) => {
                // The byte window is kept: DSR's cwnd rewrite (Alg. 4) preserves cwnd × MSS.
                self.w.smss = bytes.max(1) as u64;
            }
            SenderAction::SetSmssKeepSegments(bytes) => {
                let (old, new) = (self.w.smss, bytes.max(1) as u64);
                let scale = |b: u64| (b / old).max(1).saturating_mul(new);
                self.w.cwnd = scale(self.w.cwnd);
                if self.w.ssthresh < u64::MAX / 4 {
                    self.w.ssthresh = scale(self.w.ssthresh).max(2 * new);
                }
                self.w.smss = new;
            }
        }
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

    /// The SACK scoreboard, when SACK is on.
    pub fn scoreboard(&self) -> Option<&Scoreboard> {
        self.scoreboard.as_ref()
    }

    /// Processes an incoming ACK.
    pub fn on_ack(&mut self, now: Time, ack: &AckInfo, out: &mut Vec<Segment>) {
        self.process_ack(now, ack, out);
        self.check_sequence_invariants();
    }

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
        let acked = ack.ack.saturating_sub(self.snd_una);
        if self.cfg.ecn {
            // DCTCP's estimator sees every ACK (before any reaction to it).
            self.cc
                .on_ack_ecn(acked, ack.ece, ack.ack.max(self.snd_una), self.snd_nxt);
        }
        if ack.ack > self.snd_una {
            self.on_new_ack(now, ack, out);
        } else if ack.ack == self.snd_una
            && self.snd_max > self.snd_una
            && (self.scoreboard.is_none() || newly_sacked > 0)
        {
            // RFC 5681 §2: a duplicate ACK (no data, same ack, same window, data outstanding);
            // with SACK, RFC 6675 §2 also requires that it SACKs new data.
            self.on_duplicate_ack(now, out);
        }
        if self.cfg.ecn && ack.ece {
            self.on_ecn_echo(now, out);
        }
        if self.hooks & hooks::ON_ACK != 0 {
            let view = self.view(now);
            let action = self.policy.on_ack(&view, ack);
            self.apply(now, action, out);
        }
    }

    /// RFC 3168 §6.1.2 (and RFC 8257 §3.3 for DCTCP's reduction): reduce once per window, not
    /// during loss recovery (which already reduced), and mark the next new segment CWR.
    fn on_ecn_echo(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.in_recovery || self.snd_una < self.ecn_recover {
            return;
        }
        let flight = self.flight_size();
        self.w.ssthresh = self.cc.ssthresh_on_ecn(&self.w, now, flight);
        self.w.cwnd = self.w.ssthresh;
        self.ecn_recover = self.snd_max.max(self.snd_una + 1);
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
        self.send_window(now, out);
    }

    fn on_new_ack(&mut self, now: Time, ack: &AckInfo, out: &mut Vec<Segment>) {
        let acked = ack.ack - self.snd_una;
        let sample = match self.cfg.rtt_sampling {
            // RFC 7323 §4.1: take a sample from TSecr of an ACK that acknowledges new data.
            RttSampling::Timestamps => Some(now.since(Time(ack.ts_echo_ps))),
            RttSampling::OncePerRtt => match self.rtt_timing {
                Some((end, sent)) if ack.ack >= end => {
                    self.rtt_timing = None;
                    Some(now.since(sent))
                }
                _ => None,
            },
        };
        if let Some(r) = sample {
            self.rtt.sample(r);
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
        let mut acked_for_cc = acked;
        if self.packet_cwnd {
            // Without ABC the window grows per acknowledged segment, whatever its size.
            let mut segments = 0;
            while self.seg_ends.front().is_some_and(|&e| e <= self.snd_una) {
                self.seg_ends.pop_front();
                segments += 1;
            }
            acked_for_cc = segments.max(1) * self.w.smss;
        }
        if let Some(sb) = &mut self.scoreboard {
            sb.advance(self.snd_una);
        }
        let mut restart_timer = true;
        if self.in_recovery && self.scoreboard.is_some() && ack.ack < self.recover {
            // RFC 6675 §5: during SACK recovery a partial ACK only updates the scoreboard;
            // NextSeg() decides what to send, clocked by the pipe estimate.
            self.arm_rto(now);
            self.sack_send(now, out);
            return;
        }
        if self.in_recovery {
            if ack.ack >= self.recover {
                // RFC 6582 §3.2 step 3: a full ACK ends fast recovery.
                self.in_recovery = false;
                self.dupacks = 0;
                self.w.cwnd = match self.cfg.recovery_exit {
                    RecoveryExit::Ssthresh => self.w.ssthresh,
                    RecoveryExit::MinFlight => {
                        let flight = self.snd_nxt - self.snd_una;
                        self.w.ssthresh.min(flight.max(self.w.smss) + self.w.smss)
                    }
                };
                self.cc.on_recovery_exit(&mut self.w, now);
            } else {
                // RFC 6582 §3.2 step 5: a partial ACK. Retransmit the first unacknowledged
                // segment, deflate cwnd by the amount acknowledged, add back one SMSS if at least
                // one SMSS was acknowledged, and send new data if the window allows.
                let len = self.retransmit_len();
                self.emit(now, self.snd_una, len, SendCause::PartialAck, out);
                self.w.cwnd = self.w.cwnd.saturating_sub(acked);
                if acked >= self.w.smss {
                    self.w.cwnd += self.w.smss;
                }
                self.w.cwnd = self.w.cwnd.max(self.w.smss);
                // RFC 6582 §4 "Impatient" variant: only the first partial ACK resets the timer.
                restart_timer = self.partial_acks == 0;
                self.partial_acks += 1;
            }
        } else {
            self.dupacks = 0;
            let _ = sample;
            self.cc
                .on_ack(&mut self.w, now, acked_for_cc, self.rtt.srtt());
        }
        if self.snd_una == self.snd_max {
            // RFC 6298 §5.2: all outstanding data acknowledged: stop the timer.
            self.rto_deadline = None;
        } else if restart_timer {
            // RFC 6298 §5.3: an ACK of new data restarts the timer.
            self.arm_rto(now);
        }
        self.send_window(now, out);
    }

    fn on_duplicate_ack(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.dupacks += 1;
        let smss = self.w.smss;
        if self.scoreboard.is_some() {
            return self.on_sack_duplicate_ack(now, out);
        }
        if self.in_recovery {
            // RFC 6582 §3.2 step 4: inflate cwnd by one SMSS per additional duplicate ACK.
            self.w.cwnd += smss;
            self.send_window(now, out);
        } else if self.dupacks == self.cfg.dupack_threshold {
            // RFC 6582 §3.2 step 2: enter fast retransmit only if the ACK covers more than
            // `recover` (avoids a second reduction for losses from the same window, and spurious
            // fast retransmits after a timeout).
            if self.snd_una >= self.recover {
                let flight = self.flight_size();
                // RFC 5681 §3.2 steps 2-4.
                self.w.ssthresh = self.cc.ssthresh_on_loss(&self.w, now, flight);
                self.recover = self.snd_max;
                self.in_recovery = true;
                self.partial_acks = 0;
                let len = self.retransmit_len();
                self.emit(now, self.snd_una, len, SendCause::FastRetransmit, out);
                self.w.cwnd = self.w.ssthresh + self.cfg.dupack_threshold as u64 * smss;
                self.send_window(now, out);
            }
        } else if self.dupacks < self.cfg.dupack_threshold && self.cfg.limited_transmit {
            self.limited_transmit(now, out);
        }
    }

    /// RFC 3042 §2: on each of the first two duplicate ACKs, send one segment of new data if the
    /// receiver's window allows and FlightSize stays within cwnd + 2*SMSS (also RFC 6675 §5 (3)).
    fn limited_transmit(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.snd_nxt == self.snd_max && self.snd_nxt < self.app_limit {
            let allowed = (self.w.cwnd + self.dupacks as u64 * self.w.smss).min(self.peer_window);
            let len = self.next_len(now);
            let fits = if self.packet_cwnd {
                self.packet_window_allows(self.dupacks as u64)
                    && self.snd_nxt + len as u64 <= self.snd_una + self.peer_window
            } else {
                self.snd_nxt + len as u64 <= self.snd_una + allowed
            };
            if fits {
                let seq = self.snd_nxt;
                self.emit(now, seq, len, SendCause::LimitedTransmit, out);
            }
        }
    }

    /// RFC 6675 §5: duplicate ACK handling with a SACK scoreboard.
    fn on_sack_duplicate_ack(&mut self, now: Time, out: &mut Vec<Segment>) {
        let (smss, dupthresh) = (self.w.smss, self.cfg.dupack_threshold);
        if self.in_recovery {
            return self.sack_send(now, out);
        }
        let lost = self
            .scoreboard
            .as_ref()
            .is_some_and(|sb| sb.is_lost(self.snd_una, dupthresh, smss));
        if (self.dupacks >= dupthresh || lost) && self.snd_una >= self.recover {
            // Step (4): RecoveryPoint = HighData; ssthresh = cwnd = FlightSize/2 (RFC 5681
            // eq. 4, through the controller); retransmit the first segment presumed lost.
            let flight = self.flight_size();
            self.w.ssthresh = self.cc.ssthresh_on_loss(&self.w, now, flight);
            self.w.cwnd = self.w.ssthresh;
            self.recover = self.snd_max;
            self.in_recovery = true;
            self.high_rxt = self.snd_una;
            let end = self
                .scoreboard
                .as_ref()
                .map_or(u64::MAX, |sb| sb.next_sacked_start(self.snd_una));
            let len = (self.snd_max.min(end) - self.snd_una).min(smss) as u32;
            self.emit(now, self.snd_una, len, SendCause::FastRetransmit, out);
            self.high_rxt = self.snd_una + len as u64;
            self.sack_send(now, out);
        } else if self.dupacks < dupthresh && self.cfg.limited_transmit {
            self.limited_transmit(now, out);
        }
    }

    /// RFC 6675 §5 step (5): while cwnd − pipe ≥ 1 SMSS, send what NextSeg() picks.
    fn sack_send(&mut self, now: Time, out: &mut Vec<Segment>) {
        let (smss, dupthresh) = (self.w.smss, self.cfg.dupack_threshold);
        loop {
            let Some(sb) = &self.scoreboard else { return };
            let pipe = sb.pipe(self.snd_una, self.snd_max, self.high_rxt, dupthresh, smss);
            if self.w.cwnd < pipe + smss {
                return;
            }
            // NextSeg() rule (1): the first lost, not yet retransmitted, unSACKed byte;
            // rule (3): else (after new data) the first unSACKed byte above HighRxt below the
            // highest SACKed byte.
            let mut lost_hole = None;
            let mut other_hole = None;
            let highest = sb.highest_sacked().unwrap_or(0);
            for h in sb.holes(self.snd_una, self.snd_max, dupthresh, smss) {
                let start = h.start.max(self.high_rxt);
                if start >= h.end || start >= highest {
                    continue;
                }
                if h.lost {
                    lost_hole = Some((start, h.end));
                    break;
                }
                other_hole.get_or_insert((start, h.end));
            }
            if let Some((s, e)) = lost_hole {
                let len = (e - s).min(smss) as u32;
                self.emit(now, s, len, SendCause::SackRetransmit, out);
                self.high_rxt = s + len as u64;
                continue;
            }
            // Rule (2): new data, if the receiver's window allows.
            if self.snd_nxt == self.snd_max && self.snd_max < self.app_limit {
                let len = self.next_len(now);
                if self.snd_max + len as u64 <= self.snd_una + self.peer_window {
                    let seq = self.snd_max;
                    self.emit(now, seq, len, SendCause::New, out);
                    continue;
                }
            }
            if let Some((s, e)) = other_hole {
                let len = (e - s).min(smss) as u32;
                self.emit(now, s, len, SendCause::SackRetransmit, out);
                self.high_rxt = s + len as u64;
                continue;
            }
            // Rule (4), the rescue retransmission: once per recovery, one segment holding the
            // highest outstanding unSACKed byte (a tail loss leaves nothing SACKed above it).
            // HighRxt is not updated.
            if self.rescue_rxt != Some(self.recover) {
                let Some(sb) = &self.scoreboard else { return };
                if let Some(h) = sb.holes(self.snd_una, self.snd_max, dupthresh, smss).last()
                    && h.end > self.high_rxt
                {
                    let len = (h.end - h.start).min(smss);
                    self.rescue_rxt = Some(self.recover);
                    self.emit(now, h.end - len, len as u32, SendCause::SackRetransmit, out);
                    continue;
                }
            }
            return;
        }
    }

    /// The retransmission timer expired (the caller guarantees `now` is the deadline).
    pub fn on_timeout(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.retransmission_timeout(now, out);
        self.check_sequence_invariants();
    }

    /// The timer expired, or a scheme fired it ([`SenderAction::FireRto`]).
    fn retransmission_timeout(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.rto_deadline = None;
        if self.snd_una >= self.snd_max {
            return;
        }
        if self.stats.timeouts == 0 {
            self.stats.first_timeout_rto_ps = self.armed_rto.as_ps();
        }
        self.stats.timeouts += 1;
        self.stats.timeout_wait_ps += self.armed_rto.as_ps();
        self.timeout_classifier.on_timeout(&TimeoutContext {
            snd_una: self.snd_una,
            snd_max: self.snd_max,
            app_limit: self.app_limit,
            dupacks: self.dupacks,
            dupack_threshold: self.cfg.dupack_threshold,
            smss: self.w.smss,
            first_of_run: self.successive_timeouts == 0,
            rto_ps: self.armed_rto.as_ps(),
        });
        self.successive_timeouts += 1;
        let flight = self.flight_size();
        // RFC 5681 §3.1: ssthresh (held on a repeated timeout of the same segment), cwnd = 1 SMSS.
        self.cc
            .on_timeout(&mut self.w, now, flight, self.successive_timeouts == 1);
        // RFC 6582 §3.2: after a timeout, recover = highest sequence sent; leave fast recovery.
        self.recover = self.snd_max;
        self.in_recovery = false;
        self.dupacks = 0;
        // RFC 6298 §5.5: back off the timer; Karn: no RTT sample from retransmitted data.
        self.backoff = self.backoff.saturating_add(1);
        self.rtt_timing = None;
        // RFC 6298 §5.4: retransmit the earliest unacknowledged segment; then go back N,
        // skipping data the receiver has SACKed (the scoreboard is kept, as Linux does).
        self.high_rxt = self.snd_una;
        self.snd_nxt = self.snd_una;
        let len = self.retransmit_len();
        let seq = self.snd_una;
        self.emit(now, seq, len, SendCause::Timeout, out);
        self.snd_nxt = seq + len as u64;
        // §5.6: the timer was started by `emit` with the backed-off RTO.
        if self.hooks & hooks::ON_TIMEOUT != 0 {
            let view = self.view(now);
            match self.policy.on_timeout(&view) {
                SenderAction::FireRto => {}
                action => self.apply(now, action, out),
            }
        }
    }

    /// Length of a retransmission starting at snd_una (up to the next SACKed byte).
    fn retransmit_len(&self) -> u32 {
        let end = self
            .scoreboard
            .as_ref()
            .map_or(u64::MAX, |sb| sb.next_sacked_start(self.snd_una));
        (self.snd_max.min(end) - self.snd_una).min(self.w.smss) as u32
    }

    /// Length of the segment starting at snd_nxt: resent data up to snd_max keeps to snd_max;
    /// new data is sized by the policy.
    /// The policy is asked once per new segment; its answer is kept until that segment is sent,
    /// so a window-limited sender does not redraw a randomized size.
    #[inline(always)]
    fn next_len(&mut self, now: Time) -> u32 {
        if self.snd_nxt < self.snd_max {
            let end = self
                .scoreboard
                .as_ref()
                .map_or(u64::MAX, |sb| sb.next_sacked_start(self.snd_nxt));
            (self.snd_max.min(end) - self.snd_nxt).min(self.w.smss) as u32
        } else {
            let max = (self.app_limit - self.snd_nxt).min(self.w.smss) as u32;
            let chosen = match self.next_new_len {
                Some(len) => len,
                None if self.hooks & hooks::PAYLOAD == 0 => {
                    self.next_new_len = Some(max);
                    max
                }
                None => {
                    let view = self.view(now);
                    let len = self.policy.new_segment_payload(&view, max);
                    self.next_new_len = Some(len);
                    len
                }
            };
            chosen.clamp(1, max)
        }
    }

    /// Sends as much as min(cwnd, rwnd) allows from snd_nxt.
    fn send_window(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.in_recovery && self.scoreboard.is_some() {
            return self.sack_send(now, out);
        }
        while self.snd_nxt < self.app_limit {
            // Going back N after a timeout: skip what the receiver has SACKed.
            if self.snd_nxt < self.snd_max
                && let Some(end) = self
                    .scoreboard
                    .as_ref()
                    .and_then(|sb| sb.sacked_end(self.snd_nxt))
            {
                self.snd_nxt = end.min(self.snd_max);
                continue;
            }
            let window = self.w.cwnd.min(self.peer_window);
            let len = self.next_len(now);
            // Data the receiver has SACKed has left the network: it does not count in flight.
            let sacked = self
                .scoreboard
                .as_ref()
                .map_or(0, |sb| sb.covered(self.snd_una, self.snd_nxt));
            if self.packet_cwnd {
                if !self.packet_window_allows(0)
                    || self.snd_nxt + len as u64 > self.snd_una + self.peer_window
                {
                    break;
                }
            } else if self.snd_nxt + len as u64 > self.snd_una + window + sacked {
                break;
            }
            let cause = if self.snd_nxt < self.snd_max {
                SendCause::GoBackN
            } else {
                SendCause::New
            };
            let seq = self.snd_nxt;
            self.emit(now, seq, len, cause, out);
        }
    }

    #[inline]
    fn emit(&mut self, now: Time, seq: u64, len: u32, cause: SendCause, out: &mut Vec<Segment>) {
        self.emit_flagged(now, seq, len, cause, 0, out)
    }

    fn emit_flagged(
        &mut self,
        now: Time,
        seq: u64,
        len: u32,
        cause: SendCause,
        extra_flags: u8,
        out: &mut Vec<Segment>,
    ) {
        debug_assert!(len > 0 && seq + len as u64 <= self.app_limit);
        let retransmission = seq < self.snd_max;
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        match cause {
            SendCause::FastRetransmit => self.stats.fast_retransmits += 1,
            SendCause::PartialAck => self.stats.partial_ack_retransmits += 1,
            SendCause::LimitedTransmit => self.stats.limited_transmit_segments += 1,
            SendCause::SackRetransmit => self.stats.sack_retransmits += 1,
            _ => {}
        }
        if retransmission {
            self.stats.retransmitted_segments += 1;
            self.stats.retransmitted_bytes += len as u64;
            self.rtt_timing = None; // Karn's algorithm
            self.timeout_classifier
                .on_retransmit(seq, len, self.snd_una);
        } else {
            self.next_new_len = None;
            self.last_new_seq = seq;
            if self.packet_cwnd {
                self.seg_ends.push_back(seq + len as u64);
            }
            if self.cfg.rtt_sampling == RttSampling::OncePerRtt && self.rtt_timing.is_none() {
                self.rtt_timing = Some((seq + len as u64, now));
            }
        }
        // Retransmissions of a hole (fast retransmit, partial ACK) do not move snd_nxt.
        if matches!(
            cause,
            SendCause::New | SendCause::LimitedTransmit | SendCause::GoBackN
        ) {
            self.snd_nxt = seq + len as u64;
        }
        self.snd_max = self.snd_max.max(seq + len as u64);
        let mut segment = Segment {
            seq,
            len,
            cause,
            flags: extra_flags | if retransmission { flags::RETX } else { 0 },
            ect: false,
        };
        if self.cfg.ecn && !retransmission {
            // RFC 3168 §6.1.5: ECT and CWR only on new data, never on retransmissions.
            segment.ect = true;
            if self.cwr_pending {
                segment.flags |= flags::CWR;
                self.cwr_pending = false;
            }
        }
        if self.hooks & hooks::FLAGS != 0 {
            let view = self.view(now);
            segment.flags |= self.policy.segment_flags(&view, &segment);
        }
        out.push(segment);
        self.last_send = now;
        // RFC 6298 §5.1: start the timer if it is not running.
        if self.rto_deadline.is_none() {
            self.arm_rto(now);
        }
    }

    #[inline(always)]
    fn arm_rto(&mut self, now: Time) {
        let rfc = self.rtt.backed_off_rto(self.backoff);
        let rto = if self.hooks & hooks::RTO != 0 {
            let view = self.view(now);
            self.policy.retransmission_timeout(&view, rfc)
        } else {
            rfc
        };
        self.armed_rto = rto;
        self.rto_armed_at = now;
        let g = self.cfg.rto.granularity;
        // Timers run on a clock of granularity G: the deadline is rounded up to a tick.
        let deadline = Time(
            (now + rto)
                .0
                .div_ceil(g.0.max(1))
                .saturating_mul(g.0.max(1)),
        );
        self.rto_deadline = Some(deadline);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(debug_assertions)]
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
        };
        let mut s = TcpSender::new(0, cfg, Cc::NewReno(Default::default()), StandardTcp);
        s.write(Time::ZERO, 5000, &mut Vec::new());
        s.snd_nxt = 2000;
        s.stop_writing();
    }
}
