//! Loss recovery on duplicate and partial ACKs: NewReno fast retransmit and fast recovery
//! (RFC 5681 §3.2, RFC 6582), limited transmit (RFC 3042) and SACK-based recovery (RFC 6675).
//! The timeout path is in `rto`.

use super::{RecoveryExit, TcpSender};
use crate::cc::CongestionControl;
use crate::policy::SenderPolicy;
use crate::segment::{Segment, SendCause};
use incastsim_core::Time;

impl<P: SenderPolicy> TcpSender<P> {
    /// A new ACK during NewReno fast recovery (RFC 6582 §3.2): a full ACK ends the recovery, a
    /// partial one retransmits the next hole. `ack` is the new cumulative ACK, `acked` the bytes
    /// it acknowledged. Returns whether the ACK restarts the retransmission timer.
    #[inline(always)]
    pub(super) fn newreno_recovery_ack(
        &mut self,
        now: Time,
        ack: u64,
        acked: u64,
        out: &mut Vec<Segment>,
    ) -> bool {
        if ack >= self.recover {
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
            if let Some(rack) = &mut self.rack {
                rack.on_recovery_exit();
            }
            true
        } else {
            // RFC 6582 §3.2 step 5: a partial ACK. Retransmit the first unacknowledged
            // segment, deflate cwnd by the amount acknowledged, add back one SMSS if at least
            // one SMSS was acknowledged, and send new data if the window allows.
            let len = self.retransmit_len();
            self.emit(now, self.snd_una, len, SendCause::PartialAck, out);
            let restart_timer = self.partial_acks == 0;
            self.partial_acks += 1;
            if self.cfg.prr {
                // RFC 6937: cwnd was set from this ACK's DeliveredData; the retransmission
                // counts against sndcnt.
                self.prr_send_new(now, len as u64, out);
                return restart_timer;
            }
            self.w.cwnd = self.w.cwnd.saturating_sub(acked);
            if acked >= self.w.smss {
                self.w.cwnd += self.w.smss;
            }
            self.w.cwnd = self.w.cwnd.max(self.w.smss);
            // RFC 6582 §4 "Impatient" variant: only the first partial ACK resets the timer.
            restart_timer
        }
    }

    /// A duplicate ACK (RFC 5681 §2): limited transmit on the first ones, fast retransmit on
    /// the dupthresh-th, then fast recovery.
    #[inline(always)]
    pub(super) fn on_duplicate_ack(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.dupacks += 1;
        let smss = self.w.smss;
        if self.scoreboard.is_some() {
            return self.on_sack_duplicate_ack(now, out);
        }
        if self.in_recovery {
            if self.cfg.prr {
                return self.prr_send_new(now, 0, out);
            }
            // RFC 6582 §3.2 step 4: inflate cwnd by one SMSS per additional duplicate ACK.
            self.w.cwnd += smss;
            self.send_window(now, out);
        } else if self.dupacks == self.cfg.dupack_threshold {
            // RFC 6582 §3.2 step 2: enter fast retransmit only if the ACK covers more than
            // `recover` (avoids a second reduction for losses from the same window, and spurious
            // fast retransmits after a timeout).
            if self.snd_una >= self.recover {
                // RFC 5681 §3.2 steps 2-4.
                self.w.ssthresh = self.ssthresh_on_loss(now);
                self.recover = self.snd_max;
                self.in_recovery = true;
                self.partial_acks = 0;
                if self.cfg.prr {
                    self.prr_start();
                }
                let len = self.retransmit_len();
                self.emit(now, self.snd_una, len, SendCause::FastRetransmit, out);
                if self.cfg.prr {
                    return self.prr_send_new(now, len as u64, out);
                }
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
        if self.rack.is_some() {
            // RFC 8985: RACK, not the DupAck count, starts recovery (`rack_on_ack`).
            if self.dupacks < dupthresh && self.cfg.limited_transmit {
                self.limited_transmit(now, out);
            }
            return;
        }
        let lost = self
            .scoreboard
            .as_ref()
            .is_some_and(|sb| sb.is_lost(self.snd_una, dupthresh, smss));
        if (self.dupacks >= dupthresh || lost) && self.snd_una >= self.recover {
            // Step (4): RecoveryPoint = HighData; ssthresh = cwnd = FlightSize/2 (RFC 5681
            // eq. 4, through the controller); retransmit the first segment presumed lost.
            self.w.ssthresh = self.ssthresh_on_loss(now);
            self.w.cwnd = self.w.ssthresh;
            self.recover = self.snd_max;
            self.in_recovery = true;
            self.high_rxt = self.snd_una;
            if self.cfg.prr {
                self.prr_start();
            }
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
    pub(super) fn sack_send(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.rack.is_some() {
            return self.rack_send(now, out);
        }
        let (smss, dupthresh) = (self.w.smss, self.cfg.dupack_threshold);
        loop {
            if self.paced_out(now) {
                return;
            }
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
}
