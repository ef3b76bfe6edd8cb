//! RACK-TLP in the sender (RFC 8985): feeding RACK each ACK, entering recovery on its loss
//! marks, sending what it marks lost, its reordering timer, and the Tail Loss Probe.

use super::TcpSender;
use crate::cc::CongestionControl;
use crate::policy::{AckInfo, SenderPolicy};
use crate::segment::{Segment, SendCause};
use incastsim_core::{Duration, Time};

/// RFC 8985 §7.2 WCDelAckT: the worst-case delayed-ACK timer added to the PTO when one
/// segment is in flight (the RFC's recommended 200 ms).
pub const WC_DEL_ACK_T: Duration = Duration::from_ms(200);

/// RFC 2883 §4: the first SACK block is a D-SACK if it lies below the cumulative ACK or
/// inside the second block.
fn is_dsack(ack: &AckInfo) -> bool {
    let b = ack.sack();
    match b {
        [] => false,
        [(_, e), ..] if *e <= ack.ack => true,
        [(s, e), (s2, e2), ..] => s2 <= s && e <= e2,
        _ => false,
    }
}

impl<P: SenderPolicy> TcpSender<P> {
    /// Before an ACK's processing (RACK, TLP or PRR on): PRR's DeliveredData, then RACK (which
    /// may start recovery), then PRR's cwnd for an ACK of a recovery already under way.
    #[cold]
    #[inline(never)]
    pub(super) fn extended_before_ack(&mut self, now: Time, ack: &AckInfo, newly_sacked: u64) {
        let was_recovering = self.in_recovery;
        if self.cc_hooks != 0 {
            self.controller_before_ack(ack.ack);
        }
        if self.cfg.prr {
            self.prr_note_delivered(ack, newly_sacked);
        }
        if self.rack.is_some() {
            self.rack_on_ack(now, ack);
        }
        if self.cfg.prr && was_recovering && self.in_recovery {
            self.prr_on_ack(ack.ack.max(self.snd_una));
        }
    }

    /// After an ACK's processing: send what RACK has marked lost, if recovering.
    #[cold]
    #[inline(never)]
    pub(super) fn extended_after_ack(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.rack.is_some() && (self.in_recovery || self.rto_recovery) {
            self.rack_send(now, out);
        }
    }

    /// Every segment sent: RACK's transmission time, PRR's prr_out, the PTO (RFC 8985 §7.2:
    /// new data that is not itself a probe (re)starts it).
    #[cold]
    #[inline(never)]
    pub(super) fn extended_on_send(
        &mut self,
        now: Time,
        seq: u64,
        len: u32,
        retransmission: bool,
        cause: SendCause,
    ) {
        if self.cfg.prr && self.in_recovery {
            self.prr_out += len as u64; // RFC 6937: prr_out counts every byte sent in recovery
        }
        if let Some(rack) = &mut self.rack {
            rack.on_send(seq, seq + len as u64, now, retransmission);
        }
        if self.cfg.tlp && !retransmission && cause != SendCause::LossProbe {
            self.tlp_arm(now);
        }
        if self.cc_hooks != 0 {
            // snd_nxt before this send: these causes moved it from `seq` (`emit_segment`).
            let snd_nxt_before = if matches!(
                cause,
                SendCause::New | SendCause::LimitedTransmit | SendCause::GoBackN
            ) {
                seq
            } else {
                self.snd_nxt
            };
            self.controller_on_send(now, seq, len, snd_nxt_before == self.snd_una);
        }
    }

    /// RTO recovery ends when snd_una passes `recover`.
    #[cold]
    pub(super) fn end_rto_recovery(&mut self) {
        self.rto_recovery = false;
        if let Some(rack) = &mut self.rack {
            rack.on_recovery_exit();
        }
    }

    /// RFC 8985 §6.2 steps 1-5 and §7.4 on an ACK (the scoreboard already holds its blocks).
    fn rack_on_ack(&mut self, now: Time, ack: &AckInfo) {
        let cum = ack.ack.max(self.snd_una);
        let dsack = is_dsack(ack);
        let (Some(rack), Some(sb)) = (&mut self.rack, &self.scoreboard) else {
            return;
        };
        rack.on_ack(now, cum, ack.sack(), sb);
        rack.on_dsack(dsack, cum, self.snd_max);
        if self.tlp_end_seq.is_some() {
            self.tlp_process_ack(now, ack, dsack);
        }
        self.rack_detect(now, cum);
    }

    /// Step 5 (RACK_detect_loss_and_arm_timer) and, if something is now marked lost, fast
    /// recovery (RFC 8985 §6.2: the lost segments are retransmitted under the congestion
    /// control's loss response, RFC 5681 / RFC 6675 / RFC 6937).
    fn rack_detect(&mut self, now: Time, una: u64) {
        let srtt = self.rtt.srtt();
        let in_recovery = self.in_recovery || self.rto_recovery;
        let Some(rack) = &mut self.rack else { return };
        let reo_wnd = rack.reo_wnd(in_recovery, self.cfg.dupack_threshold, srtt);
        let (lost, timeout) = rack.detect_loss(now, reo_wnd);
        self.rack_deadline = timeout.map(|t| now + t);
        if lost > 0 && !in_recovery && una >= self.recover {
            self.rack_enter_recovery(now);
        }
    }

    /// RFC 6675 §5 step (4) with RACK's loss marks: ssthresh from the controller, cwnd =
    /// ssthresh (or PRR's), RecoveryPoint = HighData.
    fn rack_enter_recovery(&mut self, now: Time) {
        let flight = self.flight_size();
        self.w.ssthresh = self.cc.ssthresh_on_loss(&self.w, now, flight);
        self.w.cwnd = self.w.ssthresh;
        self.recover = self.snd_max;
        self.in_recovery = true;
        self.high_rxt = self.snd_una;
        self.tlp_deadline = None;
        self.stats.fast_retransmits += 1;
        if self.cfg.prr {
            self.prr_start();
        }
    }

    /// RFC 6675 §5 step (5) with RACK: while cwnd − pipe ≥ 1 SMSS, retransmit the first
    /// segment marked lost, else send new data (NextSeg() rules (1) and (2)). Rules (3) and
    /// (4) are left out: RACK's timer and the loss probe cover what they guess at.
    pub(super) fn rack_send(&mut self, now: Time, out: &mut Vec<Segment>) {
        let smss = self.w.smss;
        loop {
            if self.paced_out(now) {
                return;
            }
            let Some(rack) = &self.rack else { return };
            if self.w.cwnd < rack.pipe() + smss {
                return;
            }
            if let Some((s, e)) = rack.first_lost(self.snd_una) {
                let len = (e - s).min(smss) as u32;
                let cause = if self.rto_recovery {
                    SendCause::GoBackN
                } else {
                    SendCause::SackRetransmit
                };
                self.emit(now, s, len, cause, out);
                self.high_rxt = self.high_rxt.max(s + len as u64);
                continue;
            }
            if self.snd_max < self.app_limit {
                let seq = self.snd_max;
                self.snd_nxt = seq;
                let len = self.next_len(now);
                if seq + len as u64 <= self.snd_una + self.peer_window {
                    self.emit(now, seq, len, SendCause::New, out);
                    continue;
                }
            }
            self.snd_nxt = self.snd_nxt.max(self.snd_una);
            return;
        }
    }

    /// The reordering timer or the PTO expired (called from `on_timer`).
    pub(super) fn rack_timers(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.rack_deadline.is_some_and(|d| d <= now) {
            // RFC 8985 §6.2 step 5: RACK_detect_loss_and_arm_timer() again.
            self.rack_deadline = None;
            self.rack_detect(now, self.snd_una);
            if self.in_recovery || self.rto_recovery {
                self.rack_send(now, out);
            }
        }
        if self.tlp_deadline.is_some_and(|d| d <= now) {
            self.tlp_deadline = None;
            self.tlp_send_probe(now, out);
        }
    }

    /// RFC 8985 §7.2: (re)start the PTO after new data is sent or an ACK acknowledges new
    /// data, unless in fast or RTO recovery, segments are SACKed, or a probe is outstanding;
    /// otherwise the RTO alone runs. PTO = 2·SRTT (+ WCDelAckT with one segment in flight;
    /// 1 s without an SRTT), and not beyond the RTO's expiry.
    pub(super) fn tlp_arm(&mut self, now: Time) {
        self.tlp_deadline = None;
        let sacked = self.rack.as_ref().map_or(0, |r| r.segs_sacked());
        if self.in_recovery
            || self.rto_recovery
            || sacked > 0
            || self.tlp_end_seq.is_some()
            || self.snd_una >= self.snd_max
        {
            return;
        }
        let pto = match self.rtt.srtt() {
            Some(srtt) => {
                let mut pto = srtt.saturating_mul(2);
                if self.snd_max - self.snd_una <= self.w.smss {
                    pto = pto + WC_DEL_ACK_T;
                }
                pto
            }
            None => Duration::from_secs(1),
        };
        let mut at = now + pto;
        if let Some(rto) = self.rto_deadline {
            at = at.min(rto);
        }
        self.tlp_deadline = Some(at);
    }

    /// RFC 8985 §7.3: send one probe, new data if the receive window allows, else the last
    /// segment again; then the RTO (not the PTO) runs.
    fn tlp_send_probe(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.snd_una >= self.snd_max || self.tlp_end_seq.is_some() {
            return;
        }
        let new_data = self.snd_max < self.app_limit && self.snd_nxt == self.snd_max && {
            let len = self.next_len(now) as u64;
            self.snd_max + len <= self.snd_una + self.peer_window
        };
        let (seq, len) = if new_data {
            (self.snd_max, self.next_len(now))
        } else {
            let last = self
                .rack
                .as_ref()
                .and_then(|r| r.records().iter().rev().find(|r| !r.sacked).copied());
            match last {
                Some(r) => (r.start, ((r.end - r.start).min(self.w.smss)) as u32),
                None => return,
            }
        };
        self.tlp_is_retrans = !new_data;
        self.tlp_end_seq = Some(self.snd_max.max(seq + len as u64));
        self.stats.loss_probes += 1;
        self.emit(now, seq, len, SendCause::LossProbe, out);
        if new_data {
            self.snd_nxt = self.snd_max;
        }
        self.arm_rto(now);
    }

    /// RFC 8985 §7.4: did the probe repair a loss? A retransmitted probe that the receiver
    /// needed (the ACK passes TLP.end_seq without a D-SACK of it) means a tail segment was lost:
    /// the congestion control reduces as for a loss (Linux: one CWR reduction).
    fn tlp_process_ack(&mut self, now: Time, ack: &AckInfo, dsack: bool) {
        let Some(end) = self.tlp_end_seq else { return };
        if ack.ack < end {
            return;
        }
        // New data delivered, or the D-SACK says the retransmitted probe was redundant.
        let redundant = dsack && ack.sack().first().is_some_and(|b| b.1 == end);
        if !self.tlp_is_retrans || redundant {
            self.tlp_end_seq = None;
        } else if ack.ack > end {
            self.tlp_end_seq = None;
            let flight = self.flight_size();
            self.w.ssthresh = self.cc.ssthresh_on_loss(&self.w, now, flight);
            self.w.cwnd = self.w.cwnd.min(self.w.ssthresh);
        } else if ack.ack == self.snd_una && ack.sack_count == 0 {
            self.tlp_end_seq = None;
        }
    }
}
