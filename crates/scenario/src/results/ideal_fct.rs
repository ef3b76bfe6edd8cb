//! The ideal flow-completion time: a flow alone on the idle network (the denominator of the
//! slowdown in flows.csv), computed exactly for store-and-forward hops and ACK-clocked slow start.

use incastsim_core::{Duration, SerializationRate, Time};

/// One hop of a path for the ideal-FCT computation: the output port's serialization and the
/// latency to the next node (propagation + that node's processing delay).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hop {
    /// Serialization time per byte of the hop's link.
    pub serialization: SerializationRate,
    /// Propagation (and fixed switching) delay of the hop.
    pub latency: Duration,
}

/// TCP parameters the ideal FCT depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IdealTcp {
    /// Payload bytes of a full segment.
    pub mss: u64,
    /// TCP/IP header bytes per packet.
    pub header: u64,
    /// Initial congestion window, segments (slow start begins there).
    pub initial_cwnd_segments: u64,
    /// The receiver's window, segments (the window never exceeds it).
    pub receive_window_segments: u64,
}

/// The completion time of a `size`-byte flow alone on an idle network: serialization at every
/// hop (store-and-forward), propagation and processing delays, and the slow-start rounds of an
/// ACK-clocked sender (initial window `initial_cwnd_segments`, +1 segment per ACK, one ACK per
/// segment, no loss, window capped by the receive window). Computed exactly by the max-plus
/// recurrence of a tandem of FIFO links: segment i leaves hop h at
/// `max(arrival_h(i), departure_h(i-1)) + tx_h(i)`, and is released by the ACK that opens the
/// window for it. Delayed ACKs are not modelled (their cost counts as slowdown).
pub fn ideal_fct(fwd: &[Hop], rev: &[Hop], size: u64, tcp: IdealTcp) -> Duration {
    IdealPath::new(fwd, rev, tcp).fct(size)
}

/// [`ideal_fct`] for many flows on one pair of paths with the same TCP parameters.
///
/// Why: a flow's first segments are the same full segments whatever its size (only the last
/// may be shorter), so the recurrence's state before segment i is shared by every flow of more
/// than i segments. Stepped once up to the largest flow, the path answers each size with its
/// last segment alone (per flow, the work grew with the flow's segments times its hops; per
/// path, only with the largest flows of each path length). Same arithmetic in the same
/// order, so the same result to the picosecond.
#[derive(Clone, Debug)]
pub struct IdealPath {
    fwd: Vec<Hop>,
    rev: Vec<Hop>,
    tcp: IdealTcp,
    /// A full segment's and an ACK's transmission time at each hop.
    full_tx: Vec<Duration>,
    ack_tx: Vec<Duration>,
    /// When each hop's link is next free, after the segments stepped so far.
    fwd_free: Vec<Time>,
    rev_free: Vec<Time>,
    /// When the ACK of each segment stepped so far reaches the sender.
    ack_times: Vec<Time>,
    /// ACKs that opened the window for the last segment stepped (never fewer for a later one).
    acked: u64,
}

impl IdealPath {
    /// A path pair with no segment sent yet.
    pub fn new(fwd: &[Hop], rev: &[Hop], tcp: IdealTcp) -> IdealPath {
        assert!(tcp.mss > 0 && !fwd.is_empty() && !rev.is_empty());
        IdealPath {
            fwd: fwd.to_vec(),
            rev: rev.to_vec(),
            tcp,
            full_tx: fwd
                .iter()
                .map(|hop| hop.serialization.time_for(tcp.mss + tcp.header))
                .collect(),
            ack_tx: rev
                .iter()
                .map(|hop| hop.serialization.time_for(tcp.header))
                .collect(),
            fwd_free: vec![Time::ZERO; fwd.len()],
            rev_free: vec![Time::ZERO; rev.len()],
            ack_times: Vec::new(),
            acked: 0,
        }
    }

    /// The ideal FCT of a `size`-byte flow (see [`ideal_fct`]). Cheapest when asked in
    /// increasing order of size: a smaller flow than one asked before starts over.
    pub fn fct(&mut self, size: u64) -> Duration {
        assert!(size > 0);
        let n = size.div_ceil(self.tcp.mss);
        if self.ack_times.len() as u64 > n - 1 {
            *self = IdealPath::new(&self.fwd, &self.rev, self.tcp);
        }
        // Every segment but the last is full: step the ones not stepped yet.
        while (self.ack_times.len() as u64) < n - 1 {
            self.step_full_segment();
        }
        let last_payload = size - (n - 1) * self.tcp.mss;
        let (mut t, _) = self.release(n - 1);
        for (h, hop) in self.fwd.iter().enumerate() {
            let tx = if last_payload == self.tcp.mss {
                self.full_tx[h]
            } else {
                hop.serialization.time_for(last_payload + self.tcp.header)
            };
            t = t.max(self.fwd_free[h]) + tx + hop.latency;
        }
        t.since(Time::ZERO)
    }

    /// When segment `i` may be sent (every segment before it has been stepped): after the
    /// ACK that opens the window for it, or at 0 if the initial window covers it; and the
    /// number of ACKs that takes.
    fn release(&self, i: u64) -> (Time, u64) {
        let w0 = self.tcp.initial_cwnd_segments.max(1);
        let rwnd = self.tcp.receive_window_segments.max(1);
        // After the ACK of segment j (ACKs in order), segments below (j+1) + min(w0 + j + 1,
        // rwnd) may be sent; before any ACK, below min(w0, rwnd).
        let allowed = |acked: u64| acked + (w0 + acked).min(rwnd);
        let mut acked = self.acked;
        while allowed(acked) <= i {
            acked += 1;
        }
        let release = if acked == 0 {
            Time::ZERO
        } else {
            self.ack_times[acked as usize - 1]
        };
        (release, acked)
    }

    /// Sends the next segment (a full one) through the forward hops and its ACK back.
    fn step_full_segment(&mut self) {
        let mut t;
        (t, self.acked) = self.release(self.ack_times.len() as u64);
        for (h, hop) in self.fwd.iter().enumerate() {
            self.fwd_free[h] = t.max(self.fwd_free[h]) + self.full_tx[h];
            t = self.fwd_free[h] + hop.latency;
        }
        for (h, hop) in self.rev.iter().enumerate() {
            self.rev_free[h] = t.max(self.rev_free[h]) + self.ack_tx[h];
            t = self.rev_free[h] + hop.latency;
        }
        self.ack_times.push(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use incastsim_core::BitsPerSec;

    fn hops(n: usize, gbps: u64, latency_us: u64) -> Vec<Hop> {
        vec![
            Hop {
                serialization: SerializationRate::new(BitsPerSec::gbps(gbps)),
                latency: Duration::from_us(latency_us),
            };
            n
        ]
    }

    const TCP: IdealTcp = IdealTcp {
        mss: 1460,
        header: 40,
        initial_cwnd_segments: 2,
        receive_window_segments: 1000,
    };

    #[test]
    fn one_segment_is_store_and_forward() {
        // 1000 B + 40 B at 1 Gbps = 8.32 us per hop, two hops, 10 us latency each.
        let fct = ideal_fct(&hops(2, 1, 10), &hops(2, 1, 10), 1000, TCP);
        assert_eq!(fct, Duration::from_ns(2 * 8320 + 2 * 10_000));
    }

    #[test]
    fn slow_start_rounds_closed_form() {
        // Equal-rate path: rounds of 2, 4, 8, ... segments one RTT apart while the window is
        // below the bandwidth-delay product, then line rate.
        // T = 12 us per 1500 B packet, T_ack = 0.32 us, 2 hops of 25 us:
        // RTT = 2*12 + 2*0.32 + 4*25 = 124.64 us; BDP = 10.39 packets.
        // 20 segments: rounds of 2, 4 and 8 each wait for the ACK clock (8 * 12 = 96 us < RTT),
        // so the last 6 segments start at 3 RTT and go back to back:
        // FCT = 3*RTT + 6*T + (H-1)*T + 2*25 = 373.92 + 72 + 12 + 50 = 507.92 us.
        let fct = ideal_fct(&hops(2, 1, 25), &hops(2, 1, 25), 20 * 1460, TCP);
        assert_eq!(fct, Duration::from_ns(507_920));
        // 40 segments: round 3 has window 16 (16 * 12 = 192 us > RTT): from 3 RTT the sender
        // streams the remaining 26 segments: 373.92 + 26*12 + 12 + 50 = 747.92 us.
        let fct = ideal_fct(&hops(2, 1, 25), &hops(2, 1, 25), 40 * 1460, TCP);
        assert_eq!(fct, Duration::from_ns(747_920));
    }

    #[test]
    fn receive_window_caps_the_rounds() {
        // rwnd 1 segment: stop-and-wait, one RTT (of a full packet) per segment.
        let tcp = IdealTcp {
            receive_window_segments: 1,
            ..TCP
        };
        let fct = ideal_fct(&hops(2, 1, 25), &hops(2, 1, 25), 3 * 1460, tcp);
        // Two full RTTs (124.64 us) then the third segment's one-way time 2*12 + 50 = 74 us.
        assert_eq!(fct, Duration::from_ns(2 * 124_640 + 74_000));
    }

    /// The recurrence stepped segment by segment for one flow, as [`ideal_fct`] did before
    /// [`IdealPath`] shared the steps between flows: the reference it must equal.
    fn reference_fct(fwd: &[Hop], rev: &[Hop], size: u64, tcp: IdealTcp) -> Duration {
        let n = size.div_ceil(tcp.mss);
        let w0 = tcp.initial_cwnd_segments.max(1);
        let rwnd = tcp.receive_window_segments.max(1);
        let allowed = |acked: u64| acked + (w0 + acked).min(rwnd);
        let mut fwd_free = vec![Time::ZERO; fwd.len()];
        let mut rev_free = vec![Time::ZERO; rev.len()];
        let mut ack_times: Vec<Time> = Vec::new();
        let (mut acked, mut delivered) = (0u64, Time::ZERO);
        for i in 0..n {
            while allowed(acked) <= i {
                acked += 1;
            }
            let mut t = if acked == 0 {
                Time::ZERO
            } else {
                ack_times[acked as usize - 1]
            };
            let payload = tcp.mss.min(size - i * tcp.mss);
            for (h, hop) in fwd.iter().enumerate() {
                fwd_free[h] = t.max(fwd_free[h]) + hop.serialization.time_for(payload + tcp.header);
                t = fwd_free[h] + hop.latency;
            }
            delivered = t;
            for (h, hop) in rev.iter().enumerate() {
                rev_free[h] = t.max(rev_free[h]) + hop.serialization.time_for(tcp.header);
                t = rev_free[h] + hop.latency;
            }
            ack_times.push(t);
        }
        delivered.since(Time::ZERO)
    }

    fn hop(mbps: u64, latency_ns: u64) -> Hop {
        Hop {
            serialization: SerializationRate::new(BitsPerSec::mbps(mbps)),
            latency: Duration::from_ns(latency_ns),
        }
    }

    proptest::proptest! {
        /// One path answering sizes in any order (larger and smaller than the ones before,
        /// repeats, partial and full last segments) gives each flow the reference's FCT, on
        /// paths with unequal rates and latencies and windows the receiver caps or not.
        #[test]
        fn a_shared_path_equals_the_per_flow_recurrence(
            fwd in proptest::collection::vec((1u64..40, 0u64..20_000), 1..5),
            rev in proptest::collection::vec((1u64..40, 0u64..20_000), 1..5),
            sizes in proptest::collection::vec(1u64..60_000, 1..12),
            w0 in 1u64..12,
            rwnd in 1u64..40,
            mss in proptest::sample::select(vec![100u64, 536, 1460]),
        ) {
            let fwd: Vec<Hop> = fwd.iter().map(|&(r, l)| hop(r * 250, l)).collect();
            let rev: Vec<Hop> = rev.iter().map(|&(r, l)| hop(r * 250, l)).collect();
            let tcp = IdealTcp {
                mss,
                header: 40,
                initial_cwnd_segments: w0,
                receive_window_segments: rwnd,
            };
            let mut path = IdealPath::new(&fwd, &rev, tcp);
            for &size in &sizes {
                proptest::prop_assert_eq!(path.fct(size), reference_fct(&fwd, &rev, size, tcp));
            }
        }
    }
}
