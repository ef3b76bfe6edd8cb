//! Why did a retransmission timeout fire? Every RTO is put in exactly one class when it expires,
//! from state the sender already has (no per-packet work beyond one interval update on a
//! retransmission). The classes follow the source papers:
//!
//! - **ABTT**, *anterior block transfer timeout* (Kulkarni & Agrawal, ch. 3 §3.1.1.3: "if any
//!   flow loses all the packets in its window [at the start of a block transfer], then it will
//!   enter a timeout"): no ACK has advanced `snd_una` since the application's write that began
//!   the current block (response), no duplicate ACK arrived either, and the segment at
//!   `snd_una` was never retransmitted. The flow's whole first window of the block was lost.
//! - **IBTT**, *intermediate block transfer timeout* ("fails to receive enough duplicate ACKs to
//!   trigger Fast Recovery", same section): every other timeout, split by why too few
//!   duplicate ACKs came back (PLATO, Shukla et al. §2, names "block", "tail" and "double"
//!   losses):
//!   - **retransmission loss** (PLATO's *double* loss): the segment at `snd_una` had already been
//!     retransmitted (fast retransmit, partial ACK, SACK, go-back-N or an earlier timeout) and
//!     that retransmission was lost too. Every successive timeout (the 2nd, 3rd … expiry for one
//!     segment) is in this class, since the previous expiry retransmitted the segment.
//!   - **tail loss**: the application has nothing more to send (`snd_max` = bytes written) and
//!     at most `dupthresh` segments' worth of data (`dupthresh` × SMSS bytes) was outstanding,
//!     so even if every segment after the lost one arrived, fewer than `dupthresh` duplicate
//!     ACKs could come back.
//!   - **whole-window loss** (PLATO's *block* loss): not a tail, and no duplicate ACK arrived
//!     since the last ACK of new data: the lost segment and everything sent after it were lost.
//!   - **partial-window loss**: not a tail, 1 ≤ duplicate ACKs < `dupthresh`: some segments
//!     after the lost one arrived, not enough. (Also holds the rare timeouts during a SACK
//!     recovery that had not yet retransmitted `snd_una`.)
//!
//! The tests are applied in the order retransmission → ABTT → tail → whole → partial, so the
//! classes partition the timeouts: their counts add up to the flow's `timeouts`.
//!
//! "Already retransmitted" is tracked as one byte interval `[lo, hi)` known to have been
//! resent: NewReno and go-back-N retransmit upward from `snd_una`, so one interval is exact for
//! them. With SACK, a retransmission of a hole above a still-unretransmitted `snd_una` is not
//! recorded (the interval keeps the lowest range), so a later timeout of that hole may be
//! classed as not retransmitted; this is the one approximation.

/// The class of one retransmission timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimeoutClass {
    /// No ACK advanced snd_una since the write that began the block and no duplicate ACK came:
    /// the whole first window of the block was lost (the book's ABTT, §3.1.1.3).
    Abtt,
    /// No duplicate ACK since the last ACK of new data (PLATO's block loss).
    IbttWholeWindow,
    /// 1-2 duplicate ACKs: part of the window got through, too little for fast retransmit.
    IbttPartialWindow,
    /// Nothing more to send and at most dupthresh × SMSS outstanding: three duplicate ACKs could
    /// never come.
    IbttTail,
    /// The segment at snd_una was already retransmitted (PLATO's double loss; every backed-off
    /// expiry).
    IbttRetransmission,
}

/// Timeout counts per class and the inputs of the book's model a sender can measure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TimeoutClassStats {
    /// [`TimeoutClass::Abtt`] timeouts.
    pub abtt: u64,
    /// [`TimeoutClass::IbttWholeWindow`] timeouts.
    pub ibtt_whole_window: u64,
    /// [`TimeoutClass::IbttPartialWindow`] timeouts.
    pub ibtt_partial_window: u64,
    /// [`TimeoutClass::IbttTail`] timeouts.
    pub ibtt_tail: u64,
    /// [`TimeoutClass::IbttRetransmission`] timeouts.
    pub ibtt_retransmission: u64,
    /// Timeouts that were the first of a run of successive timeouts (the book's "single"
    /// timeouts, before any backoff doubling), and the sum of their RTO values.
    pub first_timeouts: u64,
    /// Sum of the first timeouts' RTO values, ps (the book's T0 = this / `first_timeouts`).
    pub first_timeout_wait_ps: u64,
    /// Application writes that began a block (see [`TimeoutClassifier::on_write`]).
    pub blocks_started: u64,
}

impl TimeoutClassStats {
    /// Timeouts within a block: every class but ABTT.
    pub fn ibtt(&self) -> u64 {
        self.ibtt_whole_window
            + self.ibtt_partial_window
            + self.ibtt_tail
            + self.ibtt_retransmission
    }
    /// Every timeout.
    pub fn total(&self) -> u64 {
        self.abtt + self.ibtt()
    }
    /// Adds `o`'s counts (summing over flows).
    pub fn add(&mut self, o: &TimeoutClassStats) {
        self.abtt += o.abtt;
        self.ibtt_whole_window += o.ibtt_whole_window;
        self.ibtt_partial_window += o.ibtt_partial_window;
        self.ibtt_tail += o.ibtt_tail;
        self.ibtt_retransmission += o.ibtt_retransmission;
        self.first_timeouts += o.first_timeouts;
        self.first_timeout_wait_ps += o.first_timeout_wait_ps;
        self.blocks_started += o.blocks_started;
    }
}

/// The sender state at the moment a timeout expires (before it changes anything).
#[derive(Clone, Copy, Debug)]
pub struct TimeoutContext {
    /// Oldest unacknowledged byte.
    pub snd_una: u64,
    /// One past the highest byte sent.
    pub snd_max: u64,
    /// One past the last byte the application has written.
    pub app_limit: u64,
    /// Duplicate ACKs since the last ACK of new data.
    pub dupacks: u32,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupack_threshold: u32,
    /// Sender maximum segment size, bytes.
    pub smss: u64,
    /// This expiry is the first of a run (no timeout of this segment before it).
    pub first_of_run: bool,
    /// The RTO value that expired, ps.
    pub rto_ps: u64,
}

/// Per-sender classifier state: where the current block began and which bytes were resent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeoutClassifier {
    /// First byte of the current block (the write that found everything acknowledged).
    block_start: u64,
    /// Bytes `[retx_lo, retx_hi)` have been retransmitted at least once.
    retx_lo: u64,
    retx_hi: u64,
    /// Counts so far.
    pub stats: TimeoutClassStats,
}

impl TimeoutClassifier {
    /// The application writes; `snd_una` and `app_limit` are taken before the write. A write
    /// that finds everything written already acknowledged begins a block (a response of the
    /// synchronized-reads workload, a flow of a traffic generator); a write while data is still
    /// outstanding extends the current block.
    #[inline]
    pub fn on_write(&mut self, snd_una: u64, app_limit: u64) {
        if snd_una == app_limit {
            self.block_start = app_limit;
            self.stats.blocks_started += 1;
        }
    }

    /// A retransmission of `[seq, seq + len)` is sent while `snd_una` is as given.
    #[inline]
    pub fn on_retransmit(&mut self, seq: u64, len: u32, snd_una: u64) {
        let end = seq + len as u64;
        if seq <= self.retx_hi && end >= self.retx_lo && self.retx_hi > snd_una {
            // Touches the live interval: extend it.
            self.retx_lo = self.retx_lo.min(seq);
            self.retx_hi = self.retx_hi.max(end);
        } else if self.retx_hi <= snd_una || seq <= snd_una {
            // The old interval is fully acknowledged (or this one starts at snd_una): replace.
            self.retx_lo = seq;
            self.retx_hi = end;
        }
    }

    /// Classifies a timeout that is expiring now and counts it.
    pub fn on_timeout(&mut self, c: &TimeoutContext) -> TimeoutClass {
        let class = Self::classify(self.block_start, self.retx_lo, self.retx_hi, c);
        let s = &mut self.stats;
        match class {
            TimeoutClass::Abtt => s.abtt += 1,
            TimeoutClass::IbttWholeWindow => s.ibtt_whole_window += 1,
            TimeoutClass::IbttPartialWindow => s.ibtt_partial_window += 1,
            TimeoutClass::IbttTail => s.ibtt_tail += 1,
            TimeoutClass::IbttRetransmission => s.ibtt_retransmission += 1,
        }
        if c.first_of_run {
            s.first_timeouts += 1;
            s.first_timeout_wait_ps += c.rto_ps;
        }
        class
    }

    fn classify(block_start: u64, retx_lo: u64, retx_hi: u64, c: &TimeoutContext) -> TimeoutClass {
        let retransmitted = retx_lo <= c.snd_una && c.snd_una < retx_hi;
        if retransmitted {
            // PLATO's "double" loss: the retransmission of snd_una's segment was lost.
            TimeoutClass::IbttRetransmission
        } else if c.snd_una == block_start && c.dupacks == 0 {
            // Book §3.1.1.3: the whole first window of the block lost, no ACK at all.
            TimeoutClass::Abtt
        } else if c.snd_max == c.app_limit
            && c.snd_max - c.snd_una <= c.dupack_threshold as u64 * c.smss
        {
            // Too few segments follow the lost one to produce dupthresh duplicate ACKs.
            TimeoutClass::IbttTail
        } else if c.dupacks == 0 {
            TimeoutClass::IbttWholeWindow
        } else {
            TimeoutClass::IbttPartialWindow
        }
    }
}

/// Hand-worked traces (SMSS = 1000 B, dupthresh 3, sequence numbers are byte offsets), in the
/// style of `trace_tests.rs`: each drives a `TcpSender` at explicit times and checks the class
/// of the timeout that follows a chosen loss pattern.
#[cfg(test)]
mod tests {
    use super::TimeoutClass::*;
    use super::*;
    use crate::*;
    use incastsim_core::{Duration, Time};

    fn sender(initial_cwnd: u32, limited_transmit: bool) -> TcpSender {
        let cfg = SenderConfig {
            smss: 1000,
            initial_cwnd_segments: initial_cwnd,
            dupack_threshold: 3,
            limited_transmit,
            rto: RtoConfig {
                min: Duration::from_ms(200),
                max: Duration::from_secs(60),
                initial: Duration::from_ms(200),
                granularity: Duration::from_us(1),
            },
            rtt_sampling: RttSampling::Timestamps,
            recovery_exit: RecoveryExit::Ssthresh,
            slow_start_after_idle: false,
            ecn: false,
            sack: false,
            rack: false,
            tlp: false,
            prr: false,
        };
        TcpSender::new(0, cfg, Cc::NewReno(NewReno::default()), StandardTcp)
    }

    fn us(t: u64) -> Time {
        Time(t * 1_000_000)
    }

    fn write(s: &mut TcpSender, t: u64, bytes: u64) -> Vec<u64> {
        let mut out = Vec::new();
        s.write(us(t), bytes, &mut out);
        out.iter().map(|g| g.seq).collect()
    }

    fn ack(s: &mut TcpSender, t: u64, ackno: u64) -> Vec<(u64, SendCause)> {
        let mut out = Vec::new();
        s.on_ack(
            us(t),
            &AckInfo::plain(ackno, 1_000_000, us(t - 100).0),
            &mut out,
        );
        out.iter().map(|g| (g.seq, g.cause)).collect()
    }

    /// Fires the running timer at its deadline; returns the class it was counted in.
    fn expire(s: &mut TcpSender) -> TimeoutClass {
        let before = *s.timeout_classes();
        let at = s.rto_deadline().expect("timer running");
        s.on_timeout(at, &mut Vec::new());
        let after = s.timeout_classes();
        assert_eq!(after.total(), before.total() + 1);
        assert_eq!(
            after.total(),
            s.stats().timeouts,
            "classes partition timeouts"
        );
        [
            (after.abtt - before.abtt, Abtt),
            (
                after.ibtt_whole_window - before.ibtt_whole_window,
                IbttWholeWindow,
            ),
            (
                after.ibtt_partial_window - before.ibtt_partial_window,
                IbttPartialWindow,
            ),
            (after.ibtt_tail - before.ibtt_tail, IbttTail),
            (
                after.ibtt_retransmission - before.ibtt_retransmission,
                IbttRetransmission,
            ),
        ]
        .into_iter()
        .find(|(d, _)| *d == 1)
        .expect("one class counted")
        .1
    }

    #[test]
    fn whole_first_window_of_a_block_lost_is_abtt() {
        let mut s = sender(2, true);
        assert_eq!(write(&mut s, 0, 10_000), vec![0, 1000]);
        // Both segments are dropped: no ACK of any kind comes back.
        assert_eq!(expire(&mut s), Abtt);
        assert_eq!(s.timeout_classes().first_timeouts, 1);
        assert_eq!(s.timeout_classes().first_timeout_wait_ps, 200_000_000_000);
        // The retransmission of segment 0 is lost too: a successive timeout of a segment
        // already retransmitted is a retransmission ("double") loss, not a second ABTT.
        assert_eq!(expire(&mut s), IbttRetransmission);
        assert_eq!(
            s.timeout_classes().first_timeouts,
            1,
            "backoff is not a first timeout"
        );
    }

    #[test]
    fn abtt_is_per_block_the_second_block_counts_again() {
        let mut s = sender(2, true);
        write(&mut s, 0, 2000);
        ack(&mut s, 100, 1000);
        ack(&mut s, 101, 2000);
        assert!(s.all_acked());
        // Block 2: the write finds everything acknowledged, so it begins a block; its first
        // window (now 4 segments) is lost whole.
        assert_eq!(write(&mut s, 500, 10_000).len(), 4);
        assert_eq!(expire(&mut s), Abtt);
        assert_eq!(s.timeout_classes().blocks_started, 2);
    }

    #[test]
    fn first_window_with_a_duplicate_ack_is_not_abtt() {
        let mut s = sender(2, false);
        write(&mut s, 0, 10_000);
        // Segment 0 lost, segment 1 arrives: one duplicate ACK. Not a whole-window loss, and
        // more data waits: a partial-window IBTT.
        ack(&mut s, 100, 0);
        assert_eq!(expire(&mut s), IbttPartialWindow);
    }

    #[test]
    fn loss_of_the_last_segment_is_a_tail_loss() {
        let mut s = sender(10, true);
        assert_eq!(write(&mut s, 0, 5000).len(), 5);
        // Segments 0..3 arrive, segment 4 (the last of the response) is dropped: nothing follows
        // it, so no duplicate ACK can come back.
        for (t, a) in [(100, 1000), (101, 2000), (102, 3000), (103, 4000)] {
            assert!(ack(&mut s, t, a).is_empty());
        }
        assert_eq!(expire(&mut s), IbttTail);
    }

    #[test]
    fn loss_among_the_last_three_segments_is_a_tail_loss() {
        let mut s = sender(10, true);
        write(&mut s, 0, 6000);
        for (t, a) in [(100, 1000), (101, 2000), (102, 3000)] {
            ack(&mut s, t, a);
        }
        // Segment 3 lost, 4 and 5 arrive: two duplicate ACKs, and the data is exhausted.
        ack(&mut s, 104, 3000);
        ack(&mut s, 105, 3000);
        assert_eq!(s.dupacks(), 2);
        assert_eq!(expire(&mut s), IbttTail);
    }

    #[test]
    fn everything_after_an_ack_lost_mid_block_is_a_whole_window_loss() {
        let mut s = sender(2, true);
        write(&mut s, 0, 20_000);
        // Segment 0's ACK opens the window to 3: segments 2000 and 3000 go out. Segment 1 and
        // both new ones are dropped; more data waits, so it is not a tail.
        assert_eq!(ack(&mut s, 100, 1000).len(), 2);
        assert_eq!(expire(&mut s), IbttWholeWindow);
    }

    #[test]
    fn lost_fast_retransmission_is_a_retransmission_loss() {
        let mut s = sender(10, false);
        write(&mut s, 0, 20_000);
        // Segment 0 lost, 1..9 arrive: the third duplicate ACK triggers the fast retransmit.
        let mut sent = Vec::new();
        for t in 100..109 {
            sent.extend(ack(&mut s, t, 0));
        }
        assert_eq!(sent[0], (0, SendCause::FastRetransmit));
        // The fast retransmission of segment 0 is dropped: the timer expires in recovery.
        assert_eq!(expire(&mut s), IbttRetransmission);
    }

    #[test]
    fn lost_go_back_n_segment_is_a_retransmission_loss() {
        let mut s = sender(4, true);
        write(&mut s, 0, 20_000);
        // Block start, whole window lost: ABTT. The retransmission of 0 arrives (ACK 1000);
        // slow start resends 1000 and 2000 (go-back-N), and 1000 is lost again.
        assert_eq!(expire(&mut s), Abtt);
        let t = s.rto_deadline().unwrap().as_ps() / 1_000_000 - 199_000;
        let resent = ack(&mut s, t, 1000);
        assert_eq!(resent[0], (1000, SendCause::GoBackN));
        assert_eq!(expire(&mut s), IbttRetransmission);
    }
}
