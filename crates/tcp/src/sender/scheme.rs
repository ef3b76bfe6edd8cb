//! What a scheme sees and asks for: the [`SenderView`] its hooks read, and carrying out the
//! [`SenderAction`] they return with the sender's own machinery.

use super::TcpSender;
use crate::policy::{AckInfo, SenderAction, SenderPolicy, SenderView};
use crate::segment::{Segment, SendCause};
use incastsim_core::Time;

impl<P: SenderPolicy> TcpSender<P> {
    /// What a sender hook sees now (built only when a hook is called).
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
    pub(super) fn scheme_ack(&mut self, now: Time, ack: &AckInfo, out: &mut Vec<Segment>) -> bool {
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
    pub(super) fn apply(&mut self, now: Time, action: SenderAction, out: &mut Vec<Segment>) {
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
}
