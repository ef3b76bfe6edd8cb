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
    assert!(size > 0 && tcp.mss > 0 && !fwd.is_empty() && !rev.is_empty());
    let n = size.div_ceil(tcp.mss);
    let w0 = tcp.initial_cwnd_segments.max(1);
    let rwnd = tcp.receive_window_segments.max(1);
    // After the ACK of segment j (ACKs in order), segments below (j+1) + min(w0 + j + 1, rwnd)
    // may be sent; before any ACK, below min(w0, rwnd).
    let allowed = |acked: u64| acked + (w0 + acked).min(rwnd);
    let mut fwd_free = vec![Time::ZERO; fwd.len()];
    let mut rev_free = vec![Time::ZERO; rev.len()];
    // Every segment but maybe the last is full: its transmission times, once per hop.
    let full_tx: Vec<Duration> = fwd
        .iter()
        .map(|hop| hop.serialization.time_for(tcp.mss + tcp.header))
        .collect();
    let ack_tx: Vec<Duration> = rev
        .iter()
        .map(|hop| hop.serialization.time_for(tcp.header))
        .collect();
    let mut ack_times: Vec<Time> = Vec::with_capacity(n as usize);
    let mut acked = 0u64; // ACKs that have opened the window for the current segment
    let mut delivered = Time::ZERO;
    for i in 0..n {
        while allowed(acked) <= i {
            acked += 1;
        }
        let release = if acked == 0 {
            Time::ZERO
        } else {
            ack_times[acked as usize - 1]
        };
        let payload = tcp.mss.min(size - i * tcp.mss);
        let mut t = release;
        for (h, hop) in fwd.iter().enumerate() {
            let tx = if payload == tcp.mss {
                full_tx[h]
            } else {
                hop.serialization.time_for(payload + tcp.header)
            };
            fwd_free[h] = t.max(fwd_free[h]) + tx;
            t = fwd_free[h] + hop.latency;
        }
        delivered = t;
        for (h, hop) in rev.iter().enumerate() {
            rev_free[h] = t.max(rev_free[h]) + ack_tx[h];
            t = rev_free[h] + hop.latency;
        }
        ack_times.push(t);
    }
    delivered.since(Time::ZERO)
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
}
