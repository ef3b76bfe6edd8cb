//! Link rates and the exact serialization time of a packet.

use crate::time::{Duration, PS_PER_S};

/// A link rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BitsPerSec(pub u64);

impl BitsPerSec {
    /// `g` Gbit/s.
    pub fn gbps(g: u64) -> BitsPerSec {
        BitsPerSec(g * 1_000_000_000)
    }
    /// `m` Mbit/s.
    pub fn mbps(m: u64) -> BitsPerSec {
        BitsPerSec(m * 1_000_000)
    }
    /// The rate in bit/s as a float.
    pub fn as_f64(self) -> f64 {
        self.0 as f64
    }
}

/// Serialization time per byte, precomputed per port so the per-packet path is one multiply.
///
/// Every rate that divides 8·10¹² (1, 2.5, 10, 25, 40, 100, 400 Gbps; 100 Mbps, …) is exact per byte;
/// other rates fall back to a 128-bit division that rounds up (a packet never leaves early).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SerializationRate {
    rate: BitsPerSec,
    ps_per_byte: Option<u64>,
}

impl SerializationRate {
    /// `rate` must be non-zero (configs are validated before they get here).
    pub fn new(rate: BitsPerSec) -> SerializationRate {
        assert!(rate.0 > 0, "link rate must be positive");
        let bits_ps = 8 * PS_PER_S;
        let ps_per_byte = bits_ps.is_multiple_of(rate.0).then(|| bits_ps / rate.0);
        SerializationRate { rate, ps_per_byte }
    }
    /// The rate it was built for.
    pub fn rate(&self) -> BitsPerSec {
        self.rate
    }
    /// Serialization time of `bytes` bytes in picoseconds: exact, or rounded up to a whole
    /// picosecond when the rate (bit/s) does not divide 8 × 10^12.
    #[inline]
    pub fn time_for(&self, bytes: u64) -> Duration {
        match self.ps_per_byte {
            Some(p) => Duration(bytes * p),
            None => {
                let num = bytes as u128 * 8 * PS_PER_S as u128;
                Duration(num.div_ceil(self.rate.0 as u128) as u64)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_byte_at_100gbps_is_exact() {
        let r = SerializationRate::new(BitsPerSec::gbps(100));
        assert_eq!(r.time_for(1), Duration(80));
        assert_eq!(r.time_for(1040), Duration(83_200));
    }

    #[test]
    fn full_frame_at_1gbps() {
        let r = SerializationRate::new(BitsPerSec::gbps(1));
        assert_eq!(r.time_for(1040), Duration::from_ns(8320));
    }

    #[test]
    fn inexact_rates_round_up() {
        let r = SerializationRate::new(BitsPerSec(3_000_000_000));
        // 8 bits / 3e9 = 2666.67 ps -> 2667
        assert_eq!(r.time_for(1), Duration(2667));
        assert_eq!(r.time_for(3), Duration(8000));
    }
}
