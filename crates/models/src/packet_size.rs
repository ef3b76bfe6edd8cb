//! The packet-size bound on the number of senders: Ge et al., "An effective solution of TCP
//! Incast problem" (seed 001), §4, Eq. 1–3.
//!
//! With N synchronized, fair flows through one switch port, the buffer plus the link hold
//! `M = (B + 2CT)/L` packets (Eq. 1), each flow's window is `W = M/N` (Eq. 2), and a flow can only
//! recover a loss by three duplicate ACKs (not a timeout) if `W > 5`, hence
//! `N < (B + 2CT)/(5L)` (Eq. 3): smaller packets (smaller L) raise the largest safe N.
//!
//! # Reading of T
//! The paper's definition of T is garbled ("transmission experiment set is T"). We read it as the
//! one-way propagation delay `T` of the link, so that `2CT` is the data in flight over one round
//! trip of that delay (`C` converted to bytes/s: `C_bps / 8`). The function takes T as given and
//! does not assume a topology:
//! - with the paper's parameter table ("Link delay 25 µs", "RTT 100 µs"), `T = 25 µs` gives
//!   `2CT = 6,250 B` at 1 Gbps: the pipe of one 25 µs link, half of the path's BDP;
//! - if T is meant as the one-way delay of the whole sender → receiver path (two 25 µs links),
//!   pass `T = RTT/2 = 50 µs`, which gives `2CT = C·RTT = 12,500 B`, the full BDP.
//!
//! `incastsim model nmax` passes `--delay` through unchanged; pick the reading you want.

use crate::{ModelError, non_negative, positive};

/// The bound of Eq. 3 and the quantities behind it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NmaxBound {
    /// `2CT` in bytes: the data in flight over the delay T's round trip.
    pub pipe_bytes: f64,
    /// `M = (B + 2CT)/L` (Eq. 1): packets the buffer and the pipe hold together.
    pub m_packets: f64,
    /// `(B + 2CT)/(5L)` (Eq. 3): N must be strictly below this.
    pub bound: f64,
    /// The largest integer N with `N < bound` (0 if even one sender does not fit).
    pub n_max: u64,
}

/// Eq. 3 of paper 001: `N < (B + 2CT)/(5L)`.
///
/// - `buffer_bytes`: B, the switch (port) buffer;
/// - `link_rate_bps`: C, the per-server link capacity in bits/s (converted to bytes/s here);
/// - `one_way_delay_s`: T, see the module docs for its reading;
/// - `packet_bytes`: L, the packet length.
pub fn n_max_bound(
    buffer_bytes: f64,
    link_rate_bps: f64,
    one_way_delay_s: f64,
    packet_bytes: f64,
) -> Result<NmaxBound, ModelError> {
    non_negative("buffer_bytes", buffer_bytes)?;
    positive("link_rate_bps", link_rate_bps)?;
    non_negative("one_way_delay_s", one_way_delay_s)?;
    positive("packet_bytes", packet_bytes)?;
    let pipe_bytes = 2.0 * (link_rate_bps / 8.0) * one_way_delay_s;
    let m_packets = (buffer_bytes + pipe_bytes) / packet_bytes;
    let bound = m_packets / 5.0;
    if !bound.is_finite() {
        return Err(ModelError::OutOfRange {
            name: "packet_bytes",
            value: packet_bytes,
            allowed: "large enough that (B + 2CT)/(5L) is finite",
        });
    }
    // Largest integer strictly below `bound`: ceil(bound) − 1 (5.1 → 5, 5.0 → 4, 0.3 → 0).
    let n_max = (bound.ceil() - 1.0).max(0.0) as u64;
    Ok(NmaxBound {
        pipe_bytes,
        m_packets,
        bound,
        n_max,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // By hand: B = 32 KB = 32,000 B, C = 1 Gbps = 1.25e8 B/s, T = 25 µs
    //   2CT = 2 · 1.25e8 · 25e-6 = 6,250 B;  B + 2CT = 38,250 B
    //   L = 1500 B: 38,250 / 7,500 = 5.1  → N_max = 5
    //   L =  750 B: 38,250 / 3,750 = 10.2 → N_max = 10
    // With T = 50 µs (= RTT/2): 2CT = 12,500 B; 44,500/7,500 = 5.933 → 5; 44,500/3,750 = 11.867 → 11.
    // With B = 32 KiB = 32,768 B, T = 50 µs: 45,268/7,500 = 6.0357 → 6; /3,750 = 12.071 → 12.
    #[test]
    fn hand_values() {
        let b = n_max_bound(32_000.0, 1e9, 25e-6, 1500.0).unwrap();
        assert!((b.pipe_bytes - 6_250.0).abs() < 1e-9);
        assert!((b.m_packets - 25.5).abs() < 1e-12);
        assert!((b.bound - 5.1).abs() < 1e-12);
        assert_eq!(b.n_max, 5);
        let b = n_max_bound(32_000.0, 1e9, 25e-6, 750.0).unwrap();
        assert!((b.bound - 10.2).abs() < 1e-12);
        assert_eq!(b.n_max, 10);
        let b = n_max_bound(32_000.0, 1e9, 50e-6, 1500.0).unwrap();
        assert!((b.bound - 44_500.0 / 7_500.0).abs() < 1e-12);
        assert_eq!(b.n_max, 5);
        assert_eq!(n_max_bound(32_000.0, 1e9, 50e-6, 750.0).unwrap().n_max, 11);
        assert_eq!(n_max_bound(32_768.0, 1e9, 50e-6, 1500.0).unwrap().n_max, 6);
        assert_eq!(n_max_bound(32_768.0, 1e9, 50e-6, 750.0).unwrap().n_max, 12);
    }

    #[test]
    fn strict_inequality_and_tiny_buffers() {
        // (B + 2CT)/(5L) = 30,000/7,500 = 4 exactly: N must be < 4.
        let b = n_max_bound(30_000.0, 1e9, 0.0, 1500.0).unwrap();
        assert_eq!(b.bound, 4.0);
        assert_eq!(b.n_max, 3);
        assert_eq!(n_max_bound(1_000.0, 1e9, 0.0, 1500.0).unwrap().n_max, 0);
        assert_eq!(n_max_bound(0.0, 1e9, 0.0, 1500.0).unwrap().n_max, 0);
    }

    #[test]
    fn invalid_inputs_are_errors() {
        for (b, c, t, l, name) in [
            (-1.0, 1e9, 25e-6, 1500.0, "buffer_bytes"),
            (32e3, 0.0, 25e-6, 1500.0, "link_rate_bps"),
            (32e3, 1e9, f64::NAN, 1500.0, "one_way_delay_s"),
            (32e3, 1e9, 25e-6, 0.0, "packet_bytes"),
            (32e3, 1e9, 25e-6, f64::INFINITY, "packet_bytes"),
        ] {
            match n_max_bound(b, c, t, l) {
                Err(ModelError::OutOfRange { name: n, .. }) => assert_eq!(n, name),
                other => panic!("{name}: {other:?}"),
            }
        }
    }
}
