//! The TCP receiver: cumulative ACKs, out-of-order reassembly, delayed ACKs (RFC 5681 §4.2,
//! RFC 1122 §4.2.3.2) and timestamp echo (RFC 7323 §4.3).
//!
//! The application reads every in-order byte as soon as it arrives, so the advertised window is
//! the configured receive buffer (out-of-order data is held beyond it, as Linux's OFO queue is).

use crate::policy::{ReceiverPolicy, StandardTcp};
use incastsim_core::{Duration, Time};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DelayedAckConfig {
    /// ACK at least every `count` full segments (RFC 5681: at least every second).
    pub count: u32,
    /// ...and no later than this after the first unacknowledged segment (Linux: 40 ms).
    pub timeout: Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReceiverConfig {
    pub window_bytes: u32,
    /// `None`: ACK every segment.
    pub delayed_ack: Option<DelayedAckConfig>,
}

/// An ACK the caller must send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckOut {
    pub ack: u64,
    pub window: u32,
    pub ts_echo_ps: u64,
    /// ECN-Echo (set by the caller's ECN logic).
    pub ece: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    pub segments: u64,
    /// Bytes delivered to the application: each byte exactly once, in order.
    pub delivered_bytes: u64,
    pub duplicate_segments: u64,
    pub out_of_order_segments: u64,
    pub acks_sent: u64,
}

#[derive(Clone, Debug)]
pub struct TcpReceiver<P: ReceiverPolicy = StandardTcp> {
    cfg: ReceiverConfig,
    rcv_nxt: u64,
    /// Out-of-order byte ranges [start, end), sorted, disjoint, all beyond rcv_nxt.
    ooo: Vec<(u64, u64)>,
    ts_recent: u64,
    unacked_segments: u32,
    delack_deadline: Option<Time>,
    stats: ReceiverStats,
    pub policy: P,
}

impl<P: ReceiverPolicy> TcpReceiver<P> {
    pub fn new(cfg: ReceiverConfig, policy: P) -> Self {
        TcpReceiver {
            cfg,
            rcv_nxt: 0,
            ooo: Vec::with_capacity(8),
            ts_recent: 0,
            unacked_segments: 0,
            delack_deadline: None,
            stats: ReceiverStats::default(),
            policy,
        }
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }
    pub fn out_of_order_ranges(&self) -> &[(u64, u64)] {
        &self.ooo
    }
    /// One past the highest byte received, in order or not.
    pub fn highest_received(&self) -> u64 {
        self.ooo
            .last()
            .map_or(self.rcv_nxt, |&(_, e)| e.max(self.rcv_nxt))
    }
    pub fn delack_deadline(&self) -> Option<Time> {
        self.delack_deadline
    }

    /// Processes a data segment; returns the bytes newly delivered in order to the application.
    pub fn on_segment(
        &mut self,
        now: Time,
        seq: u64,
        len: u32,
        ts_val_ps: u64,
        flags: u8,
        out: &mut Vec<AckOut>,
    ) -> u64 {
        self.stats.segments += 1;
        let end = seq + len as u64;
        let before = self.rcv_nxt;
        // RFC 5681 §4.2: out-of-order segments and segments that fill a gap are ACKed at once.
        let mut immediate = false;
        if seq <= self.rcv_nxt {
            // RFC 7323 §4.3: TS.Recent comes from segments at the left window edge.
            self.ts_recent = ts_val_ps;
        }
        if end <= self.rcv_nxt {
            self.stats.duplicate_segments += 1;
            immediate = true;
        } else if seq > self.rcv_nxt {
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
            }
        }
        let delivered = self.rcv_nxt - before;
        self.stats.delivered_bytes += delivered;
        match self.cfg.delayed_ack {
            Some(d) if !immediate => {
                self.unacked_segments += 1;
                if self.unacked_segments >= d.count {
                    self.send_ack(now, out);
                } else if self.delack_deadline.is_none() {
                    self.delack_deadline = Some(now + d.timeout);
                }
            }
            _ => self.send_ack(now, out),
        }
        for _ in 0..self
            .policy
            .extra_duplicate_acks(flags, delivered > 0 || seq > before)
        {
            self.send_ack(now, out);
        }
        delivered
    }

    /// The delayed-ACK timer expired.
    pub fn on_delack_timeout(&mut self, now: Time, out: &mut Vec<AckOut>) {
        self.delack_deadline = None;
        if self.unacked_segments > 0 {
            self.send_ack(now, out);
        }
    }

    fn send_ack(&mut self, now: Time, out: &mut Vec<AckOut>) {
        self.unacked_segments = 0;
        self.delack_deadline = None;
        self.stats.acks_sent += 1;
        let window = self.policy.advertised_window(now, self.cfg.window_bytes);
        out.push(AckOut {
            ack: self.rcv_nxt,
            window,
            ts_echo_ps: self.ts_recent,
            ece: false,
        });
    }

    fn insert_out_of_order(&mut self, start: u64, end: u64) {
        // Find the first range that ends at or after `start`; merge everything overlapping.
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
        } else {
            self.ooo[i] = (s, e);
            self.ooo.drain(i + 1..j);
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
            },
            StandardTcp,
        )
    }

    #[test]
    fn in_order_segments_are_acked_cumulatively() {
        let mut r = rx(None);
        let mut out = Vec::new();
        assert_eq!(r.on_segment(Time(1), 0, 1000, 1, 0, &mut out), 1000);
        assert_eq!(r.on_segment(Time(2), 1000, 1000, 2, 0, &mut out), 1000);
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
        r.on_segment(Time(1), 0, 1000, 1, 0, &mut out);
        r.on_segment(Time(2), 2000, 1000, 2, 0, &mut out); // segment 1000..2000 lost
        r.on_segment(Time(3), 3000, 1000, 3, 0, &mut out);
        assert_eq!(r.on_segment(Time(4), 1000, 1000, 4, 0, &mut out), 3000);
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
        r.on_segment(Time(0), 0, 1000, 0, 0, &mut out);
        assert!(out.is_empty());
        assert_eq!(r.delack_deadline(), Some(Time(0) + Duration::from_ms(40)));
        r.on_segment(Time(1), 1000, 1000, 1, 0, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(r.delack_deadline(), None);
        r.on_segment(Time(2), 2000, 1000, 2, 0, &mut out);
        r.on_delack_timeout(Time(2) + Duration::from_ms(40), &mut out);
        assert_eq!(out.last().unwrap().ack, 3000);
        // Out of order: immediate ACK even with delayed ACKs on.
        r.on_segment(Time(3), 5000, 1000, 3, 0, &mut out);
        assert_eq!(out.last().unwrap().ack, 3000);
        assert_eq!(out.len(), 3);
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
                delivered += r.on_segment(Time(0), i as u64 * 100, 100, 0, 0, &mut out);
                let a = out.last().unwrap().ack;
                prop_assert!(a >= last_ack, "ACKs never go backwards");
                last_ack = a;
            }
            for i in 0..40u64 {
                delivered += r.on_segment(Time(0), i * 100, 100, 0, 0, &mut out);
            }
            prop_assert_eq!(delivered, 4000);
            prop_assert_eq!(r.rcv_nxt(), 4000);
            prop_assert!(r.out_of_order_ranges().is_empty());
        }
    }
}
