//! The TCP receiver: cumulative ACKs, out-of-order reassembly, delayed ACKs (RFC 5681 §4.2,
//! RFC 1122 §4.2.3.2) and timestamp echo (RFC 7323 §4.3).
//!
//! The application reads every in-order byte as soon as it arrives, so the advertised window is
//! the configured receive buffer (out-of-order data is held beyond it, as Linux's OFO queue is).

use crate::policy::{ReceiverPolicy, StandardTcp, hooks};
use incastsim_core::{Duration, Time};
use smallvec::SmallVec;

/// Out-of-order ranges a receiver holds without a buffer of its own (more spill to the heap).
const INLINE_RANGES: usize = 4;

/// When a receiver may hold back an ACK (RFC 1122 4.2.3.2, RFC 5681 §4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DelayedAckConfig {
    /// ACK at least every `count` full segments (RFC 5681: at least every second).
    pub count: u32,
    /// ...and no later than this after the first unacknowledged segment (Linux: 40 ms).
    pub timeout: Duration,
}

/// How the receiver echoes congestion-experienced marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnFeedback {
    /// Never echo CE (ECN off).
    Off,
    /// RFC 3168 §6.1.3: ECE on every ACK from a CE mark until a segment with CWR arrives.
    Classic,
    /// RFC 8257 §3.2: ECE mirrors the CE bit of the data being acknowledged; a change of CE
    /// state flushes a pending delayed ACK with the old state first.
    Dctcp,
}

/// A receiver's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReceiverConfig {
    /// The advertised receive window, bytes (the sender never has more outstanding).
    pub window_bytes: u32,
    /// `None`: ACK every segment.
    pub delayed_ack: Option<DelayedAckConfig>,
    /// How CE marks are echoed to the sender.
    pub ecn: EcnFeedback,
    /// Send up to three SACK blocks (RFC 2018).
    pub sack: bool,
    /// RFC 2883 D-SACK: a duplicate segment is reported in the first SACK block (with `sack`).
    pub dsack: bool,
}

/// An ACK the caller must send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckOut {
    /// The cumulative ACK: the next byte expected in order.
    pub ack: u64,
    /// The advertised window, bytes.
    pub window: u32,
    /// The timestamp echoed (RFC 7323 TSecr), ps: the sender's send time of the segment that
    /// triggered the ACK.
    pub ts_echo_ps: u64,
    /// ECN-Echo.
    pub ece: bool,
    /// SACK blocks, most recently changed first (RFC 2018 §4); the first `sack_count` are valid.
    pub sack_blocks: [(u64, u64); 3],
    /// How many of `sack_blocks` are valid (0 to 3).
    pub sack_count: u8,
    /// Scheme flag bits (`flags::LABEL`, `flags::DUMMY`).
    pub flags: u8,
}

/// A receiver's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReceiverStats {
    /// Data segments received, duplicates included.
    pub segments: u64,
    /// Bytes delivered to the application: each byte exactly once, in order.
    pub delivered_bytes: u64,
    /// Segments carrying only bytes already received.
    pub duplicate_segments: u64,
    /// Segments that arrived above a gap (held for in-order delivery).
    pub out_of_order_segments: u64,
    /// ACKs sent.
    pub acks_sent: u64,
    /// Dummy packets received (and answered with a dummy ACK).
    pub dummies: u64,
}

/// A TCP receiver: reassembly, cumulative and SACK ACKs, delayed ACK and ECN echo, with a
/// scheme's receiver hooks `P`.
#[derive(Clone, Debug)]
pub struct TcpReceiver<P: ReceiverPolicy = StandardTcp> {
    cfg: ReceiverConfig,
    rcv_nxt: u64,
    /// Out-of-order byte ranges [start, end), sorted, disjoint, all beyond rcv_nxt. The first
    /// few are held in the receiver itself: a loss leaves a receiver holding a range or two,
    /// which every later segment reads, and a separate buffer was a cache miss per segment at
    /// scale (S5).
    ooo: SmallVec<[(u64, u64); INLINE_RANGES]>,
    /// For each out-of-order range, when it last changed (for SACK block order).
    ooo_stamp: SmallVec<[u64; INLINE_RANGES]>,
    stamp: u64,
    /// RFC 3168 ECE latch, or DCTCP's CE state.
    ece_state: bool,
    ts_recent: u64,
    unacked_segments: u32,
    delack_deadline: Option<Time>,
    /// Scheme flag bits for the next ACK (accumulated over the segments it acknowledges).
    ack_flags: u8,
    /// The policy's `hooks::RX_*` bits, read once.
    hooks: u16,
    /// A duplicate segment to report as a D-SACK on the next ACK (RFC 2883).
    dsack: Option<(u64, u64)>,
    stats: ReceiverStats,
    /// The scheme's receiver-side state.
    pub policy: P,
}

impl<P: ReceiverPolicy> TcpReceiver<P> {
    /// A receiver expecting byte 0.
    pub fn new(cfg: ReceiverConfig, policy: P) -> Self {
        TcpReceiver {
            cfg,
            rcv_nxt: 0,
            ooo: SmallVec::new(),
            ooo_stamp: SmallVec::new(),
            stamp: 0,
            ece_state: false,
            ts_recent: 0,
            unacked_segments: 0,
            delack_deadline: None,
            ack_flags: 0,
            hooks: policy.rx_hooks(),
            dsack: None,
            stats: ReceiverStats::default(),
            policy,
        }
    }

    /// The next byte expected in order (everything below was delivered).
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }
    /// Counters so far.
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }
    /// The out-of-order byte ranges held, `[start, end)`, sorted.
    pub fn out_of_order_ranges(&self) -> &[(u64, u64)] {
        &self.ooo
    }
    /// One past the highest byte received, in order or not.
    pub fn highest_received(&self) -> u64 {
        self.ooo
            .last()
            .map_or(self.rcv_nxt, |&(_, e)| e.max(self.rcv_nxt))
    }
    /// When a held-back ACK must go out (None: no ACK pending).
    pub fn delack_deadline(&self) -> Option<Time> {
        self.delack_deadline
    }

    /// Processes a data segment (`ce`: it arrived marked Congestion Experienced); returns the
    /// bytes newly delivered in order to the application.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)] // one copy, called from the engine's out-of-line data path
    pub fn on_segment(
        &mut self,
        now: Time,
        seq: u64,
        len: u32,
        ts_val_ps: u64,
        flags: u8,
        ce: bool,
        out: &mut Vec<AckOut>,
    ) -> u64 {
        if flags & incastsim_core::packet::flags::DUMMY != 0 {
            self.answer_dummy(now, flags, out);
            return 0;
        }
        self.stats.segments += 1;
        if self.hooks != 0 {
            if self.hooks & hooks::RX_ON_DATA != 0 {
                self.policy.on_data(now, len);
            }
            if self.hooks & hooks::RX_ACK_FLAGS != 0 {
                self.ack_flags |= self.policy.ack_flags(flags);
            }
        }
        self.update_ecn_echo(now, flags, ce, out);
        let end = seq + len as u64;
        let before = self.rcv_nxt;
        // No byte of the segment has arrived before (the ranges are sorted and disjoint).
        let unseen = self.hooks & hooks::RX_EXTRA_DUPACKS != 0 && seq >= self.rcv_nxt && {
            let i = self.ooo.partition_point(|&(_, e)| e <= seq);
            i == self.ooo.len() || self.ooo[i].0 >= end
        };
        // RFC 5681 §4.2: out-of-order segments and segments that fill a gap are ACKed at once.
        let mut immediate = false;
        if seq <= self.rcv_nxt {
            // RFC 7323 §4.3: TS.Recent comes from segments at the left window edge.
            self.ts_recent = ts_val_ps;
        }
        if end <= self.rcv_nxt {
            self.stats.duplicate_segments += 1;
            immediate = true;
            if self.cfg.dsack {
                self.dsack = Some((seq, end));
            }
        } else if seq > self.rcv_nxt {
            if self.cfg.dsack {
                // RFC 2883 §4.1.2: a duplicate of out-of-order data already held.
                let i = self.ooo.partition_point(|&(_, e)| e < end);
                if self.ooo.get(i).is_some_and(|&(s, e)| s <= seq && end <= e) {
                    self.dsack = Some((seq, end));
                }
            }
            self.stats.out_of_order_segments += 1;
            self.insert_out_of_order(seq, end);
            immediate = true;
        } else {
            self.rcv_nxt = end;
            if !self.ooo.is_empty() {
                immediate = true;
                let mut merged = 0;
                for &(s, e) in &self.ooo {
                    if s > self.rcv_nxt {
                        break;
                    }
                    self.rcv_nxt = self.rcv_nxt.max(e);
                    merged += 1;
                }
                self.ooo.drain(..merged);
                self.ooo_stamp.drain(..merged);
            }
        }
        let delivered = self.rcv_nxt - before;
        self.stats.delivered_bytes += delivered;
        match self.cfg.delayed_ack {
            Some(d) if !immediate => {
                self.unacked_segments += 1;
                if self.unacked_segments >= d.count {
                    self.ack_now(now, out);
                } else if self.delack_deadline.is_none() {
                    self.delack_deadline = Some(now + d.timeout);
                }
            }
            _ => self.ack_now(now, out),
        }
        if self.hooks & hooks::RX_EXTRA_DUPACKS != 0 {
            for _ in 0..self.policy.extra_duplicate_acks(flags, unseen) {
                self.send_ack(now, out);
            }
        }
        delivered
    }

    /// A scheme's dummy packet (PLATO): discarded; answered at once by a dummy ACK that carries
    /// the scheme's ACK flags. Receiver state is untouched.
    #[inline(always)]
    fn answer_dummy(&mut self, now: Time, flags: u8, out: &mut Vec<AckOut>) {
        self.stats.dummies += 1;
        self.stats.acks_sent += 1;
        let window = self.policy.advertised_window(now, self.cfg.window_bytes);
        out.push(AckOut {
            ack: self.rcv_nxt,
            window,
            ts_echo_ps: self.ts_recent,
            ece: self.ece_state,
            sack_blocks: [(0, 0); 3],
            sack_count: 0,
            flags: incastsim_core::packet::flags::DUMMY | self.policy.ack_flags(flags),
        });
    }

    /// The ECN-Echo state the next ACKs carry, after a segment with flags `flags` (`ce`: marked
    /// Congestion Experienced) arrived.
    #[inline(always)]
    fn update_ecn_echo(&mut self, now: Time, flags: u8, ce: bool, out: &mut Vec<AckOut>) {
        match self.cfg.ecn {
            EcnFeedback::Off => {}
            EcnFeedback::Classic => {
                // A CWR ends the echo; a CE (even on the same segment) starts it again.
                if flags & incastsim_core::packet::flags::CWR != 0 {
                    self.ece_state = false;
                }
                self.ece_state |= ce;
            }
            EcnFeedback::Dctcp => {
                if ce != self.ece_state {
                    if self.unacked_segments > 0 {
                        self.send_ack(now, out); // acknowledges the earlier data with the old state
                    }
                    self.ece_state = ce;
                }
            }
        }
    }

    /// The delayed-ACK timer expired.
    pub fn on_delack_timeout(&mut self, now: Time, out: &mut Vec<AckOut>) {
        self.delack_deadline = None;
        if self.unacked_segments > 0 {
            self.send_ack(now, out);
        }
    }

    #[inline(never)]
    fn send_ack(&mut self, now: Time, out: &mut Vec<AckOut>) {
        self.ack_now(now, out)
    }

    /// Sends an ACK of everything received in order (with the D-SACK and SACK blocks due):
    /// inlined into `on_segment`, which sends one per data segment.
    #[inline(always)]
    fn ack_now(&mut self, now: Time, out: &mut Vec<AckOut>) {
        self.unacked_segments = 0;
        self.delack_deadline = None;
        self.stats.acks_sent += 1;
        let window = if self.hooks & hooks::RX_WINDOW != 0 {
            self.policy.advertised_window(now, self.cfg.window_bytes)
        } else {
            self.cfg.window_bytes
        };
        let mut ack = AckOut {
            ack: self.rcv_nxt,
            window,
            ts_echo_ps: self.ts_recent,
            ece: self.ece_state,
            sack_blocks: [(0, 0); 3],
            sack_count: 0,
            flags: self.ack_flags,
        };
        self.ack_flags = 0;
        if self.cfg.dsack
            && let Some(d) = self.dsack.take()
        {
            // RFC 2883 §4: the D-SACK block first, then the usual blocks.
            ack.sack_blocks[0] = d;
            ack.sack_count = 1;
        }
        if self.cfg.sack && !self.ooo.is_empty() {
            // RFC 2018 §4: the first block holds the most recently received segment; the others
            // repeat the most recently changed blocks. Pick the three newest stamps.
            let mut order: [usize; 3] = [usize::MAX; 3];
            for (i, &st) in self.ooo_stamp.iter().enumerate() {
                let mut pos = 3;
                while pos > 0
                    && (order[pos - 1] == usize::MAX || self.ooo_stamp[order[pos - 1]] < st)
                {
                    pos -= 1;
                }
                if pos < 3 {
                    order.copy_within(pos..2, pos + 1);
                    order[pos] = i;
                }
            }
            for &i in order.iter().take_while(|&&i| i != usize::MAX) {
                if ack.sack_count as usize == ack.sack_blocks.len() {
                    break;
                }
                ack.sack_blocks[ack.sack_count as usize] = self.ooo[i];
                ack.sack_count += 1;
            }
        }
        out.push(ack);
    }

    fn insert_out_of_order(&mut self, start: u64, end: u64) {
        // Find the first range that ends at or after `start`; merge everything overlapping.
        self.stamp += 1;
        let i = self.ooo.partition_point(|&(_, e)| e < start);
        let mut j = i;
        let (mut s, mut e) = (start, end);
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            s = s.min(self.ooo[j].0);
            e = e.max(self.ooo[j].1);
            j += 1;
        }
        if i == j {
            self.ooo.insert(i, (s, e));
            self.ooo_stamp.insert(i, self.stamp);
        } else {
            self.ooo[i] = (s, e);
            self.ooo_stamp[i] = self.stamp;
            self.ooo.drain(i + 1..j);
            self.ooo_stamp.drain(i + 1..j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rx(delayed: Option<DelayedAckConfig>) -> TcpReceiver {
        TcpReceiver::new(
            ReceiverConfig {
                window_bytes: 1_000_000,
                delayed_ack: delayed,
                ecn: EcnFeedback::Off,
                sack: false,
                dsack: false,
            },
            StandardTcp,
        )
    }

    #[test]
    fn in_order_segments_are_acked_cumulatively() {
        let mut r = rx(None);
        let mut out = Vec::new();
        assert_eq!(r.on_segment(Time(1), 0, 1000, 1, 0, false, &mut out), 1000);
        assert_eq!(
            r.on_segment(Time(2), 1000, 1000, 2, 0, false, &mut out),
            1000
        );
        assert_eq!(
            out.iter().map(|a| a.ack).collect::<Vec<_>>(),
            vec![1000, 2000]
        );
        assert_eq!(out[1].ts_echo_ps, 2);
    }

    #[test]
    fn a_hole_gives_duplicate_acks_then_a_jump() {
        let mut r = rx(None);
        let mut out = Vec::new();
        r.on_segment(Time(1), 0, 1000, 1, 0, false, &mut out);
        r.on_segment(Time(2), 2000, 1000, 2, 0, false, &mut out); // segment 1000..2000 lost
        r.on_segment(Time(3), 3000, 1000, 3, 0, false, &mut out);
        assert_eq!(
            r.on_segment(Time(4), 1000, 1000, 4, 0, false, &mut out),
            3000
        );
        let acks: Vec<u64> = out.iter().map(|a| a.ack).collect();
        assert_eq!(acks, vec![1000, 1000, 1000, 4000]);
        // Duplicate ACKs echo the timestamp of the last in-order segment (RFC 7323 §4.3).
        assert_eq!(out[2].ts_echo_ps, 1);
        assert_eq!(out[3].ts_echo_ps, 4);
    }

    #[test]
    fn delayed_ack_every_second_segment_and_on_timeout() {
        let d = DelayedAckConfig {
            count: 2,
            timeout: Duration::from_ms(40),
        };
        let mut r = rx(Some(d));
        let mut out = Vec::new();
        r.on_segment(Time(0), 0, 1000, 0, 0, false, &mut out);
        assert!(out.is_empty());
        assert_eq!(r.delack_deadline(), Some(Time(0) + Duration::from_ms(40)));
        r.on_segment(Time(1), 1000, 1000, 1, 0, false, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(r.delack_deadline(), None);
        r.on_segment(Time(2), 2000, 1000, 2, 0, false, &mut out);
        r.on_delack_timeout(Time(2) + Duration::from_ms(40), &mut out);
        assert_eq!(out.last().unwrap().ack, 3000);
        // Out of order: immediate ACK even with delayed ACKs on.
        r.on_segment(Time(3), 5000, 1000, 3, 0, false, &mut out);
        assert_eq!(out.last().unwrap().ack, 3000);
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn sack_blocks_put_the_latest_first() {
        let mut r = TcpReceiver::new(
            ReceiverConfig {
                window_bytes: 1 << 20,
                delayed_ack: None,
                ecn: EcnFeedback::Off,
                sack: true,
                dsack: false,
            },
            StandardTcp,
        );
        let mut out = Vec::new();
        r.on_segment(Time(0), 0, 1000, 0, 0, false, &mut out);
        r.on_segment(Time(0), 2000, 1000, 0, 0, false, &mut out);
        r.on_segment(Time(0), 6000, 1000, 0, 0, false, &mut out);
        r.on_segment(Time(0), 4000, 1000, 0, 0, false, &mut out);
        let last = out.last().unwrap();
        assert_eq!(last.ack, 1000);
        assert_eq!(
            &last.sack_blocks[..last.sack_count as usize],
            &[(4000, 5000), (6000, 7000), (2000, 3000)]
        );
        r.on_segment(Time(0), 8000, 1000, 0, 0, false, &mut out);
        let last = out.last().unwrap();
        assert_eq!(
            &last.sack_blocks[..3],
            &[(8000, 9000), (4000, 5000), (6000, 7000)],
            "at most three"
        );
        // Filling the first hole: the ACK jumps and the remaining blocks are still reported.
        r.on_segment(Time(0), 1000, 1000, 0, 0, false, &mut out);
        let last = out.last().unwrap();
        assert_eq!(last.ack, 3000);
        assert_eq!(last.sack_count, 3);
    }

    #[test]
    fn classic_ecn_echo_latches_until_cwr() {
        use incastsim_core::packet::flags::CWR;
        let mut r = TcpReceiver::new(
            ReceiverConfig {
                window_bytes: 1 << 20,
                delayed_ack: None,
                ecn: EcnFeedback::Classic,
                sack: false,
                dsack: false,
            },
            StandardTcp,
        );
        let mut out = Vec::new();
        r.on_segment(Time(0), 0, 1000, 0, 0, true, &mut out);
        r.on_segment(Time(0), 1000, 1000, 0, 0, false, &mut out);
        r.on_segment(Time(0), 2000, 1000, 0, CWR, false, &mut out);
        let eces: Vec<bool> = out.iter().map(|a| a.ece).collect();
        assert_eq!(eces, vec![true, true, false]);
    }

    #[test]
    fn dctcp_echo_follows_ce_and_flushes_delayed_acks_on_change() {
        let d = DelayedAckConfig {
            count: 2,
            timeout: Duration::from_ms(40),
        };
        let mut r = TcpReceiver::new(
            ReceiverConfig {
                window_bytes: 1 << 20,
                delayed_ack: Some(d),
                ecn: EcnFeedback::Dctcp,
                sack: false,
                dsack: false,
            },
            StandardTcp,
        );
        let mut out = Vec::new();
        r.on_segment(Time(0), 0, 1000, 0, 0, false, &mut out); // delayed
        r.on_segment(Time(0), 1000, 1000, 0, 0, true, &mut out); // CE: flush ACK 1000 with ECE=0
        assert_eq!(
            out.iter().map(|a| (a.ack, a.ece)).collect::<Vec<_>>(),
            vec![(1000, false)]
        );
        r.on_segment(Time(0), 2000, 1000, 0, 0, true, &mut out); // second CE: ACK 3000, ECE=1
        assert_eq!(out.last().map(|a| (a.ack, a.ece)), Some((3000, true)));
    }

    proptest! {
        /// Whatever order segments (with duplicates) arrive in, every byte is delivered exactly
        /// once, in order, and the final ACK covers everything.
        #[test]
        fn every_byte_delivered_once(order in proptest::collection::vec(0usize..40, 1..200)) {
            let mut r = rx(None);
            let mut out = Vec::new();
            let mut delivered = 0u64;
            let mut last_ack = 0;
            for &i in &order {
                delivered += r.on_segment(Time(0), i as u64 * 100, 100, 0, 0, false, &mut out);
                let a = out.last().unwrap().ack;
                prop_assert!(a >= last_ack, "ACKs never go backwards");
                last_ack = a;
            }
            for i in 0..40u64 {
                delivered += r.on_segment(Time(0), i * 100, 100, 0, 0, false, &mut out);
            }
            prop_assert_eq!(delivered, 4000);
            prop_assert_eq!(r.rcv_nxt(), 4000);
            prop_assert!(r.out_of_order_ranges().is_empty());
        }
    }
}
