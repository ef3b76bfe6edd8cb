//! Proportional Rate Reduction (RFC 6937 §3, PRR-SSRB): during fast recovery cwnd follows the
//! data the receiver reports delivered, so that by the end of recovery the flight is close to
//! ssthresh without the bursts or stalls of RFC 6675's and RFC 6582's window arithmetic.

use super::TcpSender;
use crate::policy::{AckInfo, SenderPolicy};
use crate::segment::{Segment, SendCause};
use incastsim_core::Time;

impl<P: SenderPolicy> TcpSender<P> {
    /// RFC 6937 §3 "at the start of recovery": prr_delivered = prr_out = 0, RecoverFS =
    /// snd.nxt − snd.una; then the ACK that started recovery is processed as any other.
    pub(super) fn prr_start(&mut self) {
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.recover_fs = self.snd_max - self.snd_una;
        self.prr_delivered += self.prr_ack_delivered;
        self.prr_update_cwnd(self.snd_una);
    }

    /// Every ACK: its DeliveredData (RFC 6937 §3: the change in snd.una plus newly SACKed
    /// bytes; without SACK one SMSS per duplicate ACK, and on an advance of snd.una its change
    /// less one SMSS per duplicate ACK already counted).
    pub(super) fn prr_note_delivered(&mut self, ack: &AckInfo, newly_sacked: u64) {
        let smss = self.w.smss;
        let delivered = if self.scoreboard.is_some() {
            ack.ack.saturating_sub(self.snd_una) + newly_sacked
        } else if ack.ack > self.snd_una {
            let d = (ack.ack - self.snd_una).saturating_sub(self.prr_dupacks * smss);
            self.prr_dupacks = 0;
            d
        } else if ack.ack == self.snd_una && self.snd_max > self.snd_una {
            self.prr_dupacks += 1;
            smss
        } else {
            0
        };
        self.prr_ack_delivered = delivered;
    }

    /// An ACK of a recovery already under way (not the one that started it, which
    /// [`TcpSender::prr_start`] counts): prr_delivered += DeliveredData; cwnd = pipe + sndcnt.
    pub(super) fn prr_on_ack(&mut self, una: u64) {
        self.prr_delivered += self.prr_ack_delivered;
        self.prr_update_cwnd(una);
    }

    /// RFC 6675 pipe (with RACK's loss marks when RACK is on); without SACK, the flight less
    /// one SMSS per duplicate ACK since snd.una last moved.
    fn prr_pipe(&self, una: u64) -> u64 {
        if let Some(rack) = &self.rack {
            rack.pipe()
        } else if let Some(sb) = &self.scoreboard {
            let (dupthresh, smss) = (self.cfg.dupack_threshold, self.w.smss);
            sb.pipe(una, self.snd_max, self.high_rxt.max(una), dupthresh, smss)
        } else {
            (self.snd_max - una).saturating_sub(self.prr_dupacks * self.w.smss)
        }
    }

    /// RFC 6937 §3 on each ACK in recovery:
    /// pipe > ssthresh: sndcnt = ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out;
    /// else (PRR-SSRB): sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out,
    /// DeliveredData) + MSS). The first retransmission goes out whatever sndcnt says (as Linux's
    /// tcp_cwnd_reduction forces it). cwnd = pipe + sndcnt.
    fn prr_update_cwnd(&mut self, una: u64) {
        let (smss, ssthresh) = (self.w.smss, self.w.ssthresh);
        let pipe = self.prr_pipe(una);
        let mut sndcnt = if pipe > ssthresh {
            (self.prr_delivered * ssthresh)
                .div_ceil(self.recover_fs.max(1))
                .saturating_sub(self.prr_out)
        } else {
            let limit = self
                .prr_delivered
                .saturating_sub(self.prr_out)
                .max(self.prr_ack_delivered)
                + smss;
            (ssthresh - pipe).min(limit)
        };
        if self.prr_out == 0 {
            sndcnt = sndcnt.max(smss);
        }
        self.prr_sndcnt = sndcnt;
        self.w.cwnd = pipe + sndcnt;
    }

    /// Without SACK: new data worth what is left of sndcnt after `already` bytes (the
    /// retransmission this ACK caused) went out.
    pub(super) fn prr_send_new(&mut self, now: Time, already: u64, out: &mut Vec<Segment>) {
        let mut budget = self.prr_sndcnt.saturating_sub(already);
        while self.snd_nxt == self.snd_max && self.snd_nxt < self.app_limit {
            let len = self.next_len(now);
            if len as u64 > budget || self.snd_nxt + len as u64 > self.snd_una + self.peer_window {
                return;
            }
            budget -= len as u64;
            let seq = self.snd_nxt;
            self.emit(now, seq, len, SendCause::New, out);
        }
    }
}
