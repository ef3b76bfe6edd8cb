//! The controller's optional hooks on the sender's side ([`crate::cc::cc_hooks`]): the
//! [`AckSample`] of every ACK, the delivery-rate estimator, pacing and the controller's own
//! timer. A controller that asks for none of them (every built-in) has no [`CcExtras`], and
//! the sender pays one flag test per ACK, per segment sent and per send loop.

use super::TcpSender;
use crate::cc::{AckSample, CcControl, CongestionControl, DeliveryRate, cc_hooks};
use crate::policy::SenderPolicy;
use crate::segment::Segment;
use incastsim_core::{Duration, SerializationRate, Time};

/// What the sender keeps for a controller's optional hooks (boxed: off the common path).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct CcExtras {
    /// What the controller asked for last.
    ctl: CcControl,
    /// `ctl.pacing_rate` as a serialization rate (exact picoseconds per byte).
    pacing: Option<SerializationRate>,
    /// The earliest time the next paced segment may go.
    pacing_next: Time,
    /// A send loop stopped for pacing: wake at `pacing_next`.
    pacing_wait: bool,
    /// Header bytes per segment on the wire (pacing spaces wire sizes).
    header_bytes: u32,
    /// The delivery-rate estimator ([`cc_hooks::DELIVERY_RATE`]).
    rate: Option<DeliveryRate>,
    /// Bytes delivered so far, without the estimator.
    delivered: u64,
    /// The RTT estimator's sample count and sum before the ACK being processed (a sample it
    /// took is the difference), and the smallest sample so far.
    rtt_samples_before: (u64, u128),
    min_rtt: Option<Duration>,
    /// `CongestionControl::on_cc_start` was called.
    started: bool,
    /// Bytes of the ACK being processed that were SACKed before it.
    acked_sacked: u64,
}

impl CcExtras {
    /// The state for a controller asking for `hooks`.
    pub(super) fn new(hooks: u8) -> CcExtras {
        CcExtras {
            ctl: CcControl::default(),
            pacing: None,
            pacing_next: Time::ZERO,
            pacing_wait: false,
            header_bytes: 0,
            rate: (hooks & cc_hooks::DELIVERY_RATE != 0).then(DeliveryRate::default),
            delivered: 0,
            rtt_samples_before: (0, 0),
            min_rtt: None,
            started: false,
            acked_sacked: 0,
        }
    }
}

impl<P: SenderPolicy> TcpSender<P> {
    /// The controller's pacing rate and timer as it last set them (`None` without the optional
    /// hooks).
    pub fn cc_control(&self) -> Option<CcControl> {
        self.cc_extras.as_ref().map(|x| x.ctl)
    }

    /// Header bytes each segment carries on the wire (pacing spaces segments by their wire
    /// size). Set by the caller at connection setup; 0 by default.
    pub fn set_header_bytes(&mut self, bytes: u32) {
        if let Some(x) = &mut self.cc_extras {
            x.header_bytes = bytes;
        }
    }

    /// The controller's start hook, once, before the first segment is sent.
    pub(super) fn controller_start(&mut self, now: Time) {
        let Some(x) = &mut self.cc_extras else { return };
        if x.started {
            return;
        }
        x.started = true;
        let before = x.ctl;
        self.cc.on_cc_start(&mut self.w, now, &mut x.ctl);
        self.controller_applied(before);
    }

    /// After TCP processed an ACK that acknowledged `acked` bytes cumulatively and SACKed
    /// `newly_sacked`: the delivery-rate sample, then the controller's
    /// [`CongestionControl::on_ack_sample`], then whatever the changed window or pacing
    /// allows.
    #[cold]
    #[inline(never)]
    pub(super) fn controller_ack(
        &mut self,
        now: Time,
        ece: bool,
        acked: u64,
        newly_sacked: u64,
        out: &mut Vec<Segment>,
    ) {
        let flight_size = self.snd_nxt - self.snd_una;
        let in_recovery = self.in_recovery || self.rto_recovery;
        let srtt = self.rtt.srtt();
        let (samples, sum) = (self.rtt.samples(), self.rtt.sample_sum_ps());
        let Some(x) = &mut self.cc_extras else { return };
        // The estimator took at most one sample from this ACK: the sums' difference.
        let rtt = (samples > x.rtt_samples_before.0)
            .then(|| Duration((sum - x.rtt_samples_before.1) as u64));
        if let Some(r) = rtt {
            x.min_rtt = Some(x.min_rtt.map_or(r, |m| m.min(r)));
        }
        let newly_delivered = acked - x.acked_sacked.min(acked) + newly_sacked;
        x.acked_sacked = 0;
        let delivery_rate_bps = match &mut x.rate {
            Some(r) => r.on_ack(now, newly_delivered, self.snd_una),
            None => None,
        };
        x.delivered += newly_delivered;
        let sample = AckSample {
            now,
            rtt,
            srtt,
            min_rtt: x.min_rtt,
            acked_bytes: acked,
            sacked_bytes: newly_sacked,
            flight_size,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            delivered_bytes: x.delivered,
            delivery_rate_bps,
            ece,
            in_recovery,
            duplicate: acked == 0,
        };
        if self.cc_hooks & cc_hooks::ACK_SAMPLE == 0 {
            return;
        }
        let (window, ctl) = (self.w, x.ctl);
        self.cc.on_ack_sample(&mut self.w, &sample, &mut x.ctl);
        if self.controller_applied(ctl) || self.w != window {
            self.send_window(now, out);
        }
    }

    /// Takes up what a controller hook changed in its [`CcControl`] (from `before`) and keeps
    /// the window at one SMSS at least (RFC 5681's loss window: a smaller one would stall the
    /// connection). Whether the pacing rate changed.
    fn controller_applied(&mut self, before: CcControl) -> bool {
        self.w.cwnd = self.w.cwnd.max(self.w.smss);
        let Some(x) = &mut self.cc_extras else {
            return false;
        };
        if x.ctl.pacing_rate == before.pacing_rate {
            return false;
        }
        x.pacing = x
            .ctl
            .pacing_rate
            .filter(|r| r.0 > 0)
            .map(SerializationRate::new);
        true
    }

    /// Before TCP processes an ACK up to `ack` (from `extended_before_ack`): the bytes below
    /// it that were SACKed before, delivered already (the ACK's sample must not count them
    /// again).
    pub(super) fn controller_before_ack(&mut self, ack: u64) {
        let acked_sacked = match &self.scoreboard {
            Some(sb) if ack > self.snd_una => sb.covered(self.snd_una, ack),
            _ => 0,
        };
        let (samples, sum) = (self.rtt.samples(), self.rtt.sample_sum_ps());
        if let Some(x) = &mut self.cc_extras {
            x.acked_sacked = acked_sacked;
            x.rtt_samples_before = (samples, sum);
        }
    }

    /// Bookkeeping of every segment sent (from `extended_on_send`): its send record
    /// (`flight_empty`: nothing was in flight before it) and the pacing budget.
    pub(super) fn controller_on_send(&mut self, now: Time, seq: u64, len: u32, flight_empty: bool) {
        let Some(x) = &mut self.cc_extras else { return };
        if let Some(r) = &mut x.rate {
            r.on_send(now, seq, len, flight_empty);
        }
        if let Some(rate) = x.pacing {
            let wire = len as u64 + x.header_bytes as u64;
            x.pacing_next = x.pacing_next.max(now) + rate.time_for(wire);
        }
    }

    /// Whether pacing holds the next segment back at `now` (then the sender's timer wakes it
    /// at the pacing time).
    #[inline(always)]
    pub(super) fn paced_out(&mut self, now: Time) -> bool {
        self.cc_hooks != 0 && self.pacing_holds(now)
    }

    #[cold]
    #[inline(never)]
    fn pacing_holds(&mut self, now: Time) -> bool {
        match &mut self.cc_extras {
            Some(x) if x.pacing.is_some() && x.pacing_next > now => {
                x.pacing_wait = true;
                true
            }
            _ => false,
        }
    }

    /// The earliest of the controller's timer and the paced sender's wake-up, while the
    /// connection has data outstanding or to send.
    pub(super) fn controller_deadline(&self) -> Option<Time> {
        let x = self.cc_extras.as_ref()?;
        if self.snd_una >= self.app_limit {
            return None;
        }
        let pacing = x.pacing_wait.then_some(x.pacing_next);
        match (x.ctl.timer, pacing) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The controller's timer or the pacing wake-up is due at `now`.
    pub(super) fn controller_timers(&mut self, now: Time, out: &mut Vec<Segment>) {
        let Some(x) = &mut self.cc_extras else { return };
        let mut send = false;
        if x.pacing_wait && x.pacing_next <= now {
            x.pacing_wait = false;
            send = true;
        }
        if x.ctl.timer.is_some_and(|t| t <= now) {
            x.ctl.timer = None;
            let before = x.ctl;
            self.cc.on_cc_timer(&mut self.w, now, &mut x.ctl);
            self.controller_applied(before);
            send = true;
        }
        if send {
            self.send_window(now, out);
        }
    }
}
