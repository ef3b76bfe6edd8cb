//! Simulated time: integer picoseconds.
//!
//! One byte at 100 Gbps takes 80 ps and at 400 Gbps 20 ps, so picoseconds make every common link
//! rate's serialization time exact. A `u64` of picoseconds spans ~213 days of simulated time.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Picoseconds per nanosecond.
pub const PS_PER_NS: u64 = 1_000;
/// Picoseconds per microsecond.
pub const PS_PER_US: u64 = 1_000_000;
/// Picoseconds per millisecond.
pub const PS_PER_MS: u64 = 1_000_000_000;
/// Picoseconds per second.
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// An instant of simulated time, in picoseconds since the start of the run.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct Time(pub u64);

/// A span of simulated time, in picoseconds.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct Duration(pub u64);

impl Time {
    /// The start of the run.
    pub const ZERO: Time = Time(0);
    /// Never reached: "no deadline".
    pub const MAX: Time = Time(u64::MAX);

    /// Picoseconds since the start of the run.
    pub fn as_ps(self) -> u64 {
        self.0
    }
    /// Seconds since the start of the run (for output only: arithmetic stays in integers).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    /// Time elapsed since `earlier`; zero if `earlier` is later (never negative).
    pub fn since(self, earlier: Time) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

impl Duration {
    /// No time.
    pub const ZERO: Duration = Duration(0);
    /// The longest duration (≈ 213 days): "forever".
    pub const MAX: Duration = Duration(u64::MAX);

    /// `ps` picoseconds.
    pub const fn from_ps(ps: u64) -> Duration {
        Duration(ps)
    }
    /// `ns` nanoseconds.
    pub const fn from_ns(ns: u64) -> Duration {
        Duration(ns * PS_PER_NS)
    }
    /// `us` microseconds.
    pub const fn from_us(us: u64) -> Duration {
        Duration(us * PS_PER_US)
    }
    /// `ms` milliseconds.
    pub const fn from_ms(ms: u64) -> Duration {
        Duration(ms * PS_PER_MS)
    }
    /// `s` seconds.
    pub const fn from_secs(s: u64) -> Duration {
        Duration(s * PS_PER_S)
    }
    /// Picoseconds.
    pub fn as_ps(self) -> u64 {
        self.0
    }
    /// Seconds (for output).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    /// Microseconds (for output).
    pub fn as_us_f64(self) -> f64 {
        self.0 as f64 / PS_PER_US as f64
    }
    /// Milliseconds (for output).
    pub fn as_ms_f64(self) -> f64 {
        self.0 as f64 / PS_PER_MS as f64
    }
    /// `k` times the duration, capped at [`Duration::MAX`] (RTO backoff).
    pub fn saturating_mul(self, k: u64) -> Duration {
        Duration(self.0.saturating_mul(k))
    }
    /// Rounds up to a whole multiple of `granularity` (a zero granularity leaves it unchanged).
    pub fn round_up_to(self, granularity: Duration) -> Duration {
        if granularity.0 <= 1 {
            return self;
        }
        Duration(self.0.div_ceil(granularity.0).saturating_mul(granularity.0))
    }
}

impl Add<Duration> for Time {
    type Output = Time;
    fn add(self, d: Duration) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Duration> for Time {
    fn add_assign(&mut self, d: Duration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Add for Duration {
    type Output = Duration;
    fn add(self, d: Duration) -> Duration {
        Duration(self.0.saturating_add(d.0))
    }
}
impl Sub for Duration {
    type Output = Duration;
    fn sub(self, d: Duration) -> Duration {
        Duration(self.0.saturating_sub(d.0))
    }
}

/// Writes `ps` picoseconds with the largest unit that keeps it an integer ("25us", "200ms", "1500ns").
pub fn format_ps(ps: u64) -> String {
    const UNITS: [(u64, &str); 5] = [
        (PS_PER_S, "s"),
        (PS_PER_MS, "ms"),
        (PS_PER_US, "us"),
        (PS_PER_NS, "ns"),
        (1, "ps"),
    ];
    if ps == 0 {
        return "0s".to_string();
    }
    for (scale, unit) in UNITS {
        if ps.is_multiple_of(scale) {
            return format!("{}{}", ps / scale, unit);
        }
    }
    unreachable!("every integer is a multiple of 1 ps")
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_ps(self.0))
    }
}
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t={}", format_ps(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_with_largest_exact_unit() {
        assert_eq!(format_ps(25 * PS_PER_US), "25us");
        assert_eq!(format_ps(200 * PS_PER_MS), "200ms");
        assert_eq!(format_ps(1_500 * PS_PER_NS), "1500ns");
        assert_eq!(format_ps(0), "0s");
        assert_eq!(format_ps(80), "80ps");
    }

    #[test]
    fn rounds_up_to_granularity() {
        let g = Duration::from_us(1);
        assert_eq!(Duration::from_ns(1).round_up_to(g), g);
        assert_eq!(Duration::from_us(3).round_up_to(g), Duration::from_us(3));
        assert_eq!(Duration::from_ns(3001).round_up_to(g), Duration::from_us(4));
        assert_eq!(
            Duration::from_ns(3001).round_up_to(Duration::ZERO),
            Duration::from_ns(3001)
        );
    }
}
