//! RACK (RFC 8985 §6): time-based loss detection. A segment is lost when a segment sent
//! sufficiently later (more than the reordering window) has been delivered, cumulatively or
//! selectively. Because the rule compares *transmission times*, it also finds lost
//! retransmissions, which the DupAck threshold of RFC 6675 cannot.
//!
//! Plain state: the sender feeds it every transmission ([`Rack::on_send`]) and every ACK
//! ([`Rack::on_ack`]); [`Rack::detect_loss`] marks segments lost and says how long until the
//! next one could be (the reordering timer). The segment records live in a `VecDeque` that is
//! reused for the whole connection (no allocation per segment once it has grown).

use crate::sack::Scoreboard;
use incastsim_core::{Duration, Time};
use std::collections::VecDeque;

/// RFC 8985 §6.2 step 4: after 16 recoveries without a D-SACK, the reordering window's
/// multiplier goes back to 1.
const REO_WND_PERSIST: u32 = 16;

/// One segment not yet cumulatively acknowledged (RFC 8985 §6.1's per-segment variables).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentRecord {
    /// First byte of the segment.
    pub start: u64,
    /// One past its last byte.
    pub end: u64,
    /// Segment.xmit_ts: when it was last (re)transmitted.
    pub xmit: Time,
    /// Segment.retransmitted: sent more than once.
    pub retransmitted: bool,
    /// Segment.lost: marked lost and not retransmitted since.
    pub lost: bool,
    /// Selectively acknowledged.
    pub sacked: bool,
}

/// The connection's RACK state (RFC 8985 §6.1).
#[derive(Clone, Debug)]
pub struct Rack {
    segs: VecDeque<SegmentRecord>,
    /// RACK.xmit_ts and RACK.end_seq of RACK.segment, the most recently sent segment
    /// delivered so far (None until one is).
    newest: Option<(Time, u64)>,
    /// RACK.rtt: the RTT of RACK.segment.
    rtt: Duration,
    /// RACK.min_RTT. RFC 8985 §6.2 asks for a windowed minimum; Linux's window is 300 s, longer
    /// than any run here, so the minimum over the connection is the same thing.
    min_rtt: Option<Duration>,
    /// RACK.fack: the highest end sequence delivered.
    fack: u64,
    /// RACK.reordering_seen.
    reordering_seen: bool,
    /// RACK.reo_wnd_mult, RACK.reo_wnd_persist and RACK.dsack_round (§6.2 step 4).
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    dsack_round: Option<u64>,
    /// RACK.segs_sacked: records currently SACKed.
    segs_sacked: u32,
    /// Bytes newly delivered (cumulatively or selectively) by the last ACK: PRR's DeliveredData.
    pub delivered_bytes: u64,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            segs: VecDeque::with_capacity(64),
            newest: None,
            rtt: Duration::ZERO,
            min_rtt: None,
            fack: 0,
            reordering_seen: false,
            reo_wnd_mult: 1,
            reo_wnd_persist: 0,
            dsack_round: None,
            segs_sacked: 0,
            delivered_bytes: 0,
        }
    }
}

/// RFC 8985 §6.2 RACK_sent_after(t1, seq1, t2, seq2): sent later, ties broken by sequence.
fn sent_after(t1: Time, seq1: u64, t2: Time, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Rack {
    /// The segments not yet cumulatively acknowledged, in sequence order.
    pub fn records(&self) -> &VecDeque<SegmentRecord> {
        &self.segs
    }
    /// Reordering was observed (RFC 8985 §6.2 step 1: RACK.reordering_seen).
    pub fn reordering_seen(&self) -> bool {
        self.reordering_seen
    }
    /// The reordering window's multiplier (RFC 8985 §6.2 step 4: RACK.reo_wnd_mult).
    pub fn reo_wnd_mult(&self) -> u32 {
        self.reo_wnd_mult
    }
    /// Segment records currently SACKed (RACK.segs_sacked).
    pub fn segs_sacked(&self) -> u32 {
        self.segs_sacked
    }
    /// The minimum RTT seen (RACK.min_RTT), None before a sample.
    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }
    /// RACK.rtt.
    pub fn rtt(&self) -> Duration {
        self.rtt
    }

    /// §6.2 step 1: an RTT measurement (RFC 6298 / RFC 7323) updates RACK.min_RTT.
    pub fn on_rtt_sample(&mut self, r: Duration) {
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
    }

    /// §6.1: a (re)transmission of `[start, end)` at `now` records Segment.xmit_ts, clears
    /// Segment.lost and, for a retransmission, sets Segment.retransmitted. New data appends a
    /// record; a retransmission updates every record it overlaps.
    pub fn on_send(&mut self, start: u64, end: u64, now: Time, retransmission: bool) {
        if !retransmission {
            self.segs.push_back(SegmentRecord {
                start,
                end,
                xmit: now,
                retransmitted: false,
                lost: false,
                sacked: false,
            });
            return;
        }
        let i = self.segs.partition_point(|r| r.end <= start);
        for r in self.segs.range_mut(i..) {
            if r.start >= end {
                break;
            }
            if r.sacked {
                continue;
            }
            r.xmit = now;
            r.retransmitted = true;
            r.lost = false;
        }
    }

    /// §6.2 steps 2 and 3: the records the ACK delivers (cumulatively up to `ack`, or SACKed
    /// per `sb`, the scoreboard already updated with `blocks`) advance RACK.segment, RACK.rtt
    /// and RACK.fack, and reveal reordering. Returns whether anything was newly delivered.
    pub fn on_ack(&mut self, now: Time, ack: u64, blocks: &[(u64, u64)], sb: &Scoreboard) -> bool {
        self.delivered_bytes = 0;
        while let Some(&r) = self.segs.front() {
            if r.end > ack {
                break;
            }
            self.segs.pop_front();
            if r.sacked {
                self.segs_sacked -= 1;
            } else {
                self.delivered_bytes += r.end - r.start;
                self.deliver(now, r);
            }
        }
        // The first record may be cut by the ACK (a segment acknowledged in part).
        if let Some(first) = self.segs.front_mut()
            && first.start < ack
        {
            self.delivered_bytes += ack - first.start;
            first.start = ack;
        }
        for &(s, e) in blocks {
            let i = self.segs.partition_point(|r| r.end <= s);
            let mut j = i;
            while j < self.segs.len() && self.segs[j].start < e {
                let r = self.segs[j];
                if !r.sacked && sb.covered(r.start, r.end) == r.end - r.start {
                    self.segs[j].sacked = true;
                    self.segs_sacked += 1;
                    self.delivered_bytes += r.end - r.start;
                    self.deliver(now, r);
                }
                j += 1;
            }
        }
        self.delivered_bytes > 0
    }

    /// RACK_update() for one delivered segment, and step 3's reordering check.
    fn deliver(&mut self, now: Time, r: SegmentRecord) {
        // Step 3: a never-retransmitted segment delivered below RACK.fack was reordered.
        if r.end > self.fack {
            self.fack = r.end;
        } else if r.end < self.fack && !r.retransmitted {
            self.reordering_seen = true;
        }
        let rtt = now.since(r.xmit);
        // Step 2: a retransmitted segment delivered less than min_RTT after its last
        // transmission may be the original's delivery: ignore it. (The TSecr test of the same
        // step is not applied: RFC 7323 §4.3 echoes TS.Recent from the left window edge, so an
        // ACK that SACKs a retransmission above a hole echoes an older timestamp even when it
        // acknowledges the retransmission, e.g. a tail loss probe. Linux's tcp_rack_advance
        // applies only the min_RTT test, for the same reason.)
        if r.retransmitted && self.min_rtt.is_none_or(|m| rtt < m) {
            return;
        }
        let newer = self
            .newest
            .is_none_or(|(t, seq)| sent_after(r.xmit, r.end, t, seq));
        if newer {
            self.newest = Some((r.xmit, r.end));
            self.rtt = rtt;
        }
    }

    /// §6.2 step 4, D-SACK part: grow the reordering window's multiplier once per round trip
    /// that sees a D-SACK.
    pub fn on_dsack(&mut self, dsack: bool, snd_una: u64, snd_nxt: u64) {
        if self.dsack_round.is_some_and(|r| snd_una >= r) {
            self.dsack_round = None;
        }
        if self.dsack_round.is_none() && dsack {
            self.dsack_round = Some(snd_nxt);
            self.reo_wnd_mult += 1;
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
    }

    /// §6.2 step 4: on leaving fast or RTO recovery, one recovery fewer keeps the multiplier.
    pub fn on_recovery_exit(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }

    /// §6.2 step 4: RACK.reo_wnd. Zero (the DupAck threshold's behaviour) until reordering has
    /// been seen, once in recovery or DupThresh segments are SACKed; else min_RTT/4 times the
    /// multiplier, at most SRTT.
    pub fn reo_wnd(&self, in_recovery: bool, dupthresh: u32, srtt: Option<Duration>) -> Duration {
        if !self.reordering_seen && (in_recovery || self.segs_sacked >= dupthresh) {
            return Duration::ZERO;
        }
        let w = Duration(self.min_rtt.unwrap_or_default().0 / 4 * self.reo_wnd_mult as u64);
        match srtt {
            Some(s) if s < w => s,
            _ => w,
        }
    }

    /// §6.2 step 5, RACK_detect_loss(): marks lost every undelivered segment sent before
    /// RACK.segment more than RACK.rtt + `reo_wnd` ago. Returns how many were newly marked and,
    /// if a segment may still be declared lost later, how long until then (the reordering
    /// timer, §6.3).
    pub fn detect_loss(&mut self, now: Time, reo_wnd: Duration) -> (u32, Option<Duration>) {
        let Some((rack_xmit, rack_end)) = self.newest else {
            return (0, None);
        };
        let (mut lost, mut timeout) = (0, None::<Duration>);
        for r in self.segs.iter_mut() {
            if r.sacked || r.lost || !sent_after(rack_xmit, rack_end, r.xmit, r.end) {
                continue;
            }
            let deadline = r.xmit + self.rtt + reo_wnd;
            if deadline <= now {
                r.lost = true;
                lost += 1;
            } else {
                let remaining = deadline.since(now);
                timeout = Some(timeout.map_or(remaining, |t| t.max(remaining)));
            }
        }
        (lost, timeout)
    }

    /// The first segment marked lost and not retransmitted since, at or above `from`.
    pub fn first_lost(&self, from: u64) -> Option<(u64, u64)> {
        let i = self.segs.partition_point(|r| r.end <= from);
        self.segs
            .range(i..)
            .find(|r| r.lost && !r.sacked)
            .map(|r| (r.start.max(from), r.end))
    }

    /// Whether any segment is marked lost and not retransmitted since.
    pub fn any_lost(&self) -> bool {
        self.segs.iter().any(|r| r.lost && !r.sacked)
    }

    /// Bytes in flight (the `pipe` of RFC 6675, with RACK's loss marks in place of IsLost()):
    /// undelivered bytes not marked lost (a retransmission clears the mark).
    pub fn pipe(&self) -> u64 {
        self.segs
            .iter()
            .filter(|r| !r.sacked && !r.lost)
            .map(|r| r.end - r.start)
            .sum()
    }

    /// After an RTO everything outstanding is resent from snd_una (go-back-N): RFC 8985 §6.3's
    /// RTO marks, which the retransmissions then clear one by one.
    pub fn mark_all_lost(&mut self) {
        for r in self.segs.iter_mut().filter(|r| !r.sacked) {
            r.lost = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(t: u64) -> Time {
        Time(t * 1_000_000)
    }

    /// Ten 1000 B segments sent 1 us apart from t = 0; 1 is lost; the SACKs of 2, 3, 4 arrive
    /// 100 us after each was sent.
    #[test]
    fn a_segment_is_lost_once_a_later_one_is_delivered_rtt_plus_reo_wnd_after_it_was_sent() {
        let mut rack = Rack::default();
        let mut sb = Scoreboard::default();
        for i in 0..10 {
            rack.on_send(i * 1000, (i + 1) * 1000, us(i), false);
        }
        rack.on_rtt_sample(Duration::from_us(100));
        assert!(rack.on_ack(us(100), 1000, &[], &sb), "segment 0 delivered");
        assert_eq!(rack.rtt(), Duration::from_us(100));
        sb.insert(2000, 3000);
        rack.on_ack(us(102), 1000, &[(2000, 3000)], &sb);
        // One SACKed segment (< DupThresh), no reordering seen: reo_wnd = min_RTT/4 = 25 us.
        let reo = rack.reo_wnd(false, 3, Some(Duration::from_us(100)));
        assert_eq!(reo, Duration::from_us(25));
        // Segment 1: sent at 1 us, deadline 1 + 100 + 25 = 126 us.
        assert_eq!(
            rack.detect_loss(us(102), reo),
            (0, Some(Duration::from_us(24)))
        );
        assert_eq!(rack.detect_loss(us(126), reo), (1, None));
        assert_eq!(rack.first_lost(1000), Some((1000, 2000)));
        // Pipe: 8 segments outstanding above 1000 minus the SACKed one and the lost one.
        assert_eq!(rack.pipe(), 7000);
        // The retransmission clears the mark and counts in flight again.
        rack.on_send(1000, 2000, us(130), true);
        assert_eq!(rack.pipe(), 8000);
        assert!(!rack.any_lost());
    }

    #[test]
    fn dupthresh_sacks_or_recovery_zero_the_window_until_reordering_is_seen() {
        let mut rack = Rack::default();
        let mut sb = Scoreboard::default();
        for i in 0..6 {
            rack.on_send(i * 1000, (i + 1) * 1000, us(i), false);
        }
        rack.on_rtt_sample(Duration::from_us(100));
        for i in 2..5 {
            sb.insert(i * 1000, (i + 1) * 1000);
            rack.on_ack(us(100 + i), 0, &[(i * 1000, (i + 1) * 1000)], &sb);
        }
        assert_eq!(rack.segs_sacked(), 3);
        assert_eq!(rack.reo_wnd(false, 3, None), Duration::ZERO);
        assert_eq!(rack.reo_wnd(true, 3, None), Duration::ZERO);
        // Segments 0 and 1, delayed, arrive now: delivered below RACK.fack, never retransmitted.
        rack.on_ack(us(110), 2000, &[], &sb);
        assert!(rack.reordering_seen());
        assert_eq!(rack.reo_wnd(true, 3, None), Duration::from_us(25));
        // A D-SACK grows the multiplier (once per round), capped by SRTT.
        rack.on_dsack(true, 2000, 6000);
        rack.on_dsack(true, 2000, 6000);
        assert_eq!(rack.reo_wnd_mult(), 2);
        assert_eq!(rack.reo_wnd(false, 3, None), Duration::from_us(50));
        assert_eq!(
            rack.reo_wnd(false, 3, Some(Duration::from_us(40))),
            Duration::from_us(40)
        );
        // 16 recoveries without D-SACK reset it.
        for _ in 0..16 {
            rack.on_recovery_exit();
        }
        assert_eq!(rack.reo_wnd_mult(), 1);
    }

    #[test]
    fn a_retransmission_acknowledged_sooner_than_min_rtt_does_not_advance_rack() {
        let mut rack = Rack::default();
        let sb = Scoreboard::default();
        rack.on_send(0, 1000, us(0), false);
        rack.on_send(1000, 2000, us(1), false);
        rack.on_rtt_sample(Duration::from_us(100));
        rack.on_send(0, 1000, us(150), true);
        // The original's ACK arrives 10 us after the retransmission: ambiguous, ignored.
        rack.on_ack(us(160), 1000, &[], &sb);
        assert_eq!(rack.newest, None);
    }
}
