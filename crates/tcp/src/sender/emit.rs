//! Emission: how long the next segment is, sending what the window allows, and the bookkeeping
//! every segment sent goes through (statistics, Karn, ECN marks, scheme flags, the timer).

use super::{RttSampling, TcpSender};
use crate::policy::{SenderPolicy, hooks};
use crate::segment::{Segment, SendCause};
use incastsim_core::Time;
use incastsim_core::packet::flags;

impl<P: SenderPolicy> TcpSender<P> {
    /// Length of a retransmission starting at snd_una (up to the next SACKed byte).
    pub(super) fn retransmit_len(&self) -> u32 {
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
    pub(super) fn next_len(&mut self, now: Time) -> u32 {
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
    pub(super) fn send_window(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.in_recovery && self.scoreboard.is_some() {
            return self.sack_send(now, out);
        }
        if self.extended
            && (self.in_recovery || self.rto_recovery)
            && (self.cfg.prr || self.rack.is_some())
        {
            // PRR without SACK: `prr_send_new` sent sndcnt, nothing more. RACK after an RTO:
            // resend what is marked lost, clocked by the pipe.
            if self.rto_recovery {
                self.rack_send(now, out);
            }
            return;
        }
        if self.snd_nxt >= self.snd_max
            && !self.packet_cwnd
            && self.hooks & (hooks::PAYLOAD | super::NOT_FAST) == 0
            && self.scoreboard.as_ref().is_none_or(|sb| sb.is_empty())
        {
            return self.send_new_data(now, out);
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
            if self.paced_out(now) {
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

    /// [`TcpSender::send_window`]'s loop when only new data can go (nothing to resend below
    /// snd_max, nothing SACKed, byte-counted window, segment sizes not chosen by a scheme): the
    /// same segments, with the window edge computed once (sending new data moves neither
    /// snd_una, cwnd nor the peer's window).
    #[inline(always)]
    fn send_new_data(&mut self, now: Time, out: &mut Vec<Segment>) {
        debug_assert_eq!(self.snd_nxt, self.snd_max);
        // RFC 5681 §2/§3: send while snd_nxt + len stays within snd_una + min(cwnd, rwnd).
        let edge = self.snd_una + self.w.cwnd.min(self.peer_window);
        while self.snd_nxt < self.app_limit {
            let max = (self.app_limit - self.snd_nxt).min(self.w.smss) as u32;
            // As `next_len`: the size chosen for this segment is kept until it is sent.
            let len = match self.next_new_len {
                Some(len) => len,
                None => {
                    self.next_new_len = Some(max);
                    max
                }
            }
            .clamp(1, max);
            if self.snd_nxt + len as u64 > edge {
                break;
            }
            let seq = self.snd_nxt;
            // Inlined here (the one per-ACK caller); elsewhere `emit_flagged` stays one copy.
            self.emit_segment(now, seq, len, SendCause::New, 0, out);
        }
    }

    #[inline]
    pub(super) fn emit(
        &mut self,
        now: Time,
        seq: u64,
        len: u32,
        cause: SendCause,
        out: &mut Vec<Segment>,
    ) {
        self.emit_flagged(now, seq, len, cause, 0, out)
    }

    #[inline(never)] // one copy for the many rarer callers (retransmissions, probes)
    pub(super) fn emit_flagged(
        &mut self,
        now: Time,
        seq: u64,
        len: u32,
        cause: SendCause,
        extra_flags: u8,
        out: &mut Vec<Segment>,
    ) {
        self.emit_segment(now, seq, len, cause, extra_flags, out)
    }

    /// The bookkeeping of every segment sent (see [`TcpSender::emit_flagged`]).
    #[inline(always)]
    fn emit_segment(
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
        if self.extended {
            self.extended_on_send(now, seq, len, retransmission, cause);
        }
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
}
