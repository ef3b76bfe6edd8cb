//! The retransmission timer (RFC 6298): the RTT samples behind it, arming it, and what the
//! sender does when it expires.

use super::{RttSampling, TcpSender};
use crate::cc::CongestionControl;
use crate::policy::{AckInfo, SenderAction, SenderPolicy, hooks};
use crate::segment::{Segment, SendCause};
use crate::timeout_class::TimeoutContext;
use incastsim_core::{Duration, Time};

impl<P: SenderPolicy> TcpSender<P> {
    /// The RTT sample an ACK of new data gives, if any.
    #[inline(always)]
    pub(super) fn rtt_sample(&mut self, now: Time, ack: &AckInfo) -> Option<Duration> {
        match self.cfg.rtt_sampling {
            // RFC 7323 §4.1: take a sample from TSecr of an ACK that acknowledges new data.
            RttSampling::Timestamps => Some(now.since(Time(ack.ts_echo_ps))),
            RttSampling::OncePerRtt => match self.rtt_timing {
                Some((end, sent)) if ack.ack >= end => {
                    self.rtt_timing = None;
                    Some(now.since(sent))
                }
                _ => None,
            },
        }
    }

    #[inline(always)]
    pub(super) fn arm_rto(&mut self, now: Time) {
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

    /// The timer expired, or a scheme fired it ([`SenderAction::FireRto`]).
    pub(super) fn retransmission_timeout(&mut self, now: Time, out: &mut Vec<Segment>) {
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
        if let Some(rack) = &mut self.rack {
            // RFC 8985 §6.3 / §7: RTO recovery; the probe episode and the reordering timer end.
            rack.mark_all_lost();
            self.rto_recovery = true;
            self.tlp_end_seq = None;
            self.tlp_deadline = None;
            self.rack_deadline = None;
        }
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
}
