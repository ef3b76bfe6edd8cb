//! Human units in configs: "25us", "1Gbps", "32KB", "256KiB", "100 packets".
//!
//! KB/MB/GB are powers of 1000 and KiB/MiB/GiB powers of 1024, as in the benchmark definitions.
//! Every value serializes back to the same form, so a resolved config can be read again.

use incastsim_core::time::{PS_PER_MS, PS_PER_NS, PS_PER_S, PS_PER_US, format_ps};
use incastsim_core::{BitsPerSec, Duration};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Splits "12.5 ms" into (12.5, "ms"). Accepts an optional space between number and unit.
fn split_number(s: &str) -> Option<(&str, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == '_'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(end);
    let digits = num.replace('_', "");
    let ok = digits.chars().any(|c| c.is_ascii_digit()) && digits.matches('.').count() <= 1;
    ok.then_some((num, unit.trim()))
}

/// Why a number with a unit did not become an integer.
enum ScaleError {
    /// It has a fraction of the smallest unit (`0.5ps`).
    NotWhole,
    /// It is larger than the largest the type holds.
    TooLarge,
}

/// `num` (decimal digits with an optional fraction; `_` separators) times `scale`, computed
/// exactly in integers: no value passes through a float, so every integer up to `u64::MAX`
/// is exact, and a result that would not fit is an error of its own.
fn scaled(num: &str, scale: u64) -> Result<u64, ScaleError> {
    let digits = num.replace('_', "");
    let (int, frac) = digits.split_once('.').unwrap_or((&digits, ""));
    let frac = frac.trim_end_matches('0');
    let parse = |d: &str| -> Result<u128, ScaleError> {
        if d.is_empty() {
            return Ok(0);
        }
        d.parse::<u128>().map_err(|_| ScaleError::TooLarge)
    };
    let whole = parse(int)?
        .checked_mul(u128::from(scale))
        .ok_or(ScaleError::TooLarge)?;
    let mut part = 0u128;
    if !frac.is_empty() {
        let den = 10u128
            .checked_pow(frac.len() as u32)
            .ok_or(ScaleError::NotWhole)?;
        let num = parse(frac)?
            .checked_mul(u128::from(scale))
            .ok_or(ScaleError::TooLarge)?;
        if num % den != 0 {
            return Err(ScaleError::NotWhole);
        }
        part = num / den;
    }
    let total = whole.checked_add(part).ok_or(ScaleError::TooLarge)?;
    u64::try_from(total).map_err(|_| ScaleError::TooLarge)
}

/// The error of a number that did not scale: `what` ("duration"), the smallest unit, and the
/// largest value written in `largest`.
fn scale_error(s: &str, what: &str, e: ScaleError, unit: &str, largest: &str) -> String {
    match e {
        ScaleError::NotWhole => format!("invalid {what} {s:?}: not a whole number of {unit}"),
        ScaleError::TooLarge => format!("invalid {what} {s:?}: too large (at most {largest})"),
    }
}

/// A negative number is refused as such (not as a missing unit).
fn refuse_negative(s: &str, what: &str) -> Result<(), String> {
    if s.trim().starts_with('-') {
        return Err(format!("invalid {what} {s:?}: must not be negative"));
    }
    Ok(())
}

/// What a duration looks like, for error messages.
pub const DURATION_HELP: &str =
    "a duration with a unit: ps, ns, us, ms or s (e.g. \"25us\", \"200ms\")";
/// What a rate looks like, for error messages.
pub const RATE_HELP: &str = "a rate with a unit: bps, Kbps, Mbps, Gbps or Tbps (e.g. \"1Gbps\")";
/// What a size looks like, for error messages.
pub const BYTES_HELP: &str = "a size in bytes: a plain integer or a number with B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024), e.g. \"32KB\"";
/// What a buffer looks like, for error messages.
pub const BUFFER_HELP: &str = "a buffer size: bytes (e.g. \"32KB\", \"256KiB\"), a packet count (e.g. \"100 packets\"), or \"unlimited\"";

/// Parses `25us`, `200ms`, ... into integer picoseconds (exact: no float rounding error).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    refuse_negative(s, "duration")?;
    let bad = || format!("invalid duration {s:?}: expected {DURATION_HELP}");
    let (n, unit) = split_number(s).ok_or_else(bad)?;
    let scale = match unit {
        "ps" => 1,
        "ns" => PS_PER_NS,
        "us" | "µs" => PS_PER_US,
        "ms" => PS_PER_MS,
        "s" => PS_PER_S,
        _ => return Err(bad()),
    };
    scaled(n, scale).map(Duration).map_err(|e| {
        let largest = format!("{} s", u64::MAX / PS_PER_S);
        scale_error(s, "duration", e, "picoseconds", &largest)
    })
}

/// Parses `1Gbps`, `100Mbps`, ... into bit/s.
pub fn parse_rate(s: &str) -> Result<BitsPerSec, String> {
    refuse_negative(s, "rate")?;
    let bad = || format!("invalid rate {s:?}: expected {RATE_HELP}");
    let (n, unit) = split_number(s).ok_or_else(bad)?;
    let scale = match unit {
        "bps" => 1,
        "Kbps" | "kbps" => 1_000,
        "Mbps" => 1_000_000,
        "Gbps" => 1_000_000_000,
        "Tbps" => 1_000_000_000_000,
        _ => return Err(bad()),
    };
    scaled(n, scale).map(BitsPerSec).map_err(|e| {
        let largest = format!("{} bps", u64::MAX);
        scale_error(s, "rate", e, "bits per second", &largest)
    })
}

/// Parses `32KB`, `256KiB`, `1448` into bytes (KB = 1000 B, KiB = 1024 B).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    refuse_negative(s, "size")?;
    let bad = || format!("invalid size {s:?}: expected {BYTES_HELP}");
    let (n, unit) = split_number(s).ok_or_else(bad)?;
    let scale = match unit {
        "" | "B" => 1,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        _ => return Err(bad()),
    };
    scaled(n, scale).map_err(|e| {
        let largest = format!("{} B", u64::MAX);
        scale_error(s, "size", e, "bytes", &largest)
    })
}

/// Writes a size back in the largest exact unit; sizes under 10 KB stay in bytes ("1000B").
pub fn format_bytes(b: u64) -> String {
    if b < 10_000 {
        return format!("{b}B");
    }
    const UNITS: [(u64, &str); 6] = [
        (1_000_000_000, "GB"),
        (1 << 30, "GiB"),
        (1_000_000, "MB"),
        (1 << 20, "MiB"),
        (1_000, "KB"),
        (1 << 10, "KiB"),
    ];
    for (scale, unit) in UNITS {
        if b >= scale && b.is_multiple_of(scale) {
            return format!("{}{}", b / scale, unit);
        }
    }
    format!("{b}B")
}

/// Formats a rate with the largest unit that keeps it whole (`1Gbps`).
pub fn format_rate(r: BitsPerSec) -> String {
    const UNITS: [(u64, &str); 4] = [
        (1_000_000_000_000, "Tbps"),
        (1_000_000_000, "Gbps"),
        (1_000_000, "Mbps"),
        (1_000, "Kbps"),
    ];
    for (scale, unit) in UNITS {
        if r.0 >= scale && r.0.is_multiple_of(scale) {
            return format!("{}{}", r.0 / scale, unit);
        }
    }
    format!("{}bps", r.0)
}

/// Accepts a string, or an integer where `allow_int` says so (bytes, counts).
struct StrOrInt {
    expecting: &'static str,
}

enum Raw {
    Str(String),
    Int(u64),
}

impl<'de> Visitor<'de> for StrOrInt {
    type Value = Raw;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.expecting)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Raw, E> {
        Ok(Raw::Str(v.to_string()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Raw, E> {
        Ok(Raw::Int(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Raw, E> {
        if v < 0 {
            return Err(E::custom(format!(
                "invalid value {v}: must not be negative; expected {}",
                self.expecting
            )));
        }
        Ok(Raw::Int(v as u64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Raw, E> {
        Err(E::custom(format!(
            "invalid value {v}: expected {}",
            self.expecting
        )))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Raw, E> {
        Err(E::custom(format!(
            "invalid value {v}: expected {}",
            self.expecting
        )))
    }
}

/// A duration in a config ("25us"); its default is zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Dur(pub Duration);

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match d.deserialize_any(StrOrInt {
            expecting: DURATION_HELP,
        })? {
            Raw::Str(s) => parse_duration(&s).map(Dur).map_err(de::Error::custom),
            Raw::Int(0) => Ok(Dur(Duration::ZERO)),
            Raw::Int(n) => Err(de::Error::custom(format!(
                "invalid duration {n}: a number needs a unit; expected {DURATION_HELP}"
            ))),
        }
    }
}
impl Serialize for Dur {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_ps(self.0.as_ps()))
    }
}

/// A link rate in a config ("1Gbps").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate(pub BitsPerSec);

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match d.deserialize_any(StrOrInt {
            expecting: RATE_HELP,
        })? {
            Raw::Str(s) => parse_rate(&s).map(Rate).map_err(de::Error::custom),
            Raw::Int(n) => Err(de::Error::custom(format!(
                "invalid rate {n}: a number needs a unit; expected {RATE_HELP}"
            ))),
        }
    }
}
impl Serialize for Rate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_rate(self.0))
    }
}

/// A size in bytes in a config ("32KB", "256KiB", 1000); its default is zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Bytes(pub u64);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match d.deserialize_any(StrOrInt {
            expecting: BYTES_HELP,
        })? {
            Raw::Str(s) => parse_bytes(&s).map(Bytes).map_err(de::Error::custom),
            Raw::Int(n) => Ok(Bytes(n)),
        }
    }
}
impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_bytes(self.0))
    }
}

/// A buffer size: bytes, packets, or unlimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buffer {
    /// This many bytes (a packet is admitted if it fits).
    Bytes(u64),
    /// This many packets, whatever their size.
    Packets(u32),
    /// No limit: nothing is dropped for lack of buffer.
    Unlimited,
}

/// Parses `32KB`, `100 packets` or `unlimited`.
pub fn parse_buffer(s: &str) -> Result<Buffer, String> {
    let t = s.trim();
    if t == "unlimited" {
        return Ok(Buffer::Unlimited);
    }
    for suffix in ["packets", "packet", "pkts", "pkt"] {
        if let Some(n) = t.strip_suffix(suffix) {
            return n
                .trim()
                .parse::<u32>()
                .map(Buffer::Packets)
                .map_err(|_| format!("invalid buffer {s:?}: expected {BUFFER_HELP}"));
        }
    }
    parse_bytes(t)
        .map(Buffer::Bytes)
        .map_err(|_| format!("invalid buffer {s:?}: expected {BUFFER_HELP}"))
}

impl<'de> Deserialize<'de> for Buffer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match d.deserialize_any(StrOrInt {
            expecting: BUFFER_HELP,
        })? {
            Raw::Str(s) => parse_buffer(&s).map_err(de::Error::custom),
            Raw::Int(n) => Ok(Buffer::Bytes(n)),
        }
    }
}
impl Serialize for Buffer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Buffer::Bytes(b) => s.serialize_str(&format_bytes(*b)),
            Buffer::Packets(p) => s.serialize_str(&format!("{p} packets")),
            Buffer::Unlimited => s.serialize_str("unlimited"),
        }
    }
}

impl fmt::Display for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Buffer::Bytes(b) => f.write_str(&format_bytes(*b)),
            Buffer::Packets(p) => write!(f, "{p} packets"),
            Buffer::Unlimited => f.write_str("unlimited"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("25us").unwrap(), Duration::from_us(25));
        assert_eq!(parse_duration("200 ms").unwrap(), Duration::from_ms(200));
        assert_eq!(parse_duration("1.5ms").unwrap(), Duration::from_us(1500));
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert!(parse_duration("25").is_err());
        assert!(parse_duration("25xs").unwrap_err().contains("25xs"));
        assert!(parse_duration("-5ms").is_err());
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("1Gbps").unwrap(), BitsPerSec(1_000_000_000));
        assert_eq!(parse_rate("2.5Gbps").unwrap(), BitsPerSec(2_500_000_000));
        assert_eq!(parse_rate("100Mbps").unwrap(), BitsPerSec(100_000_000));
        assert!(parse_rate("1GBps").is_err());
        assert_eq!(format_rate(BitsPerSec(2_500_000_000)), "2500Mbps");
    }

    #[test]
    fn sizes_use_decimal_kb_and_binary_kib() {
        assert_eq!(parse_bytes("32KB").unwrap(), 32_000);
        assert_eq!(parse_bytes("256KiB").unwrap(), 262_144);
        assert_eq!(parse_bytes("1000B").unwrap(), 1000);
        assert_eq!(parse_bytes("1.5MB").unwrap(), 1_500_000);
        assert_eq!(parse_bytes("1000").unwrap(), 1000);
        assert!(parse_bytes("1.5B").is_err());
        assert_eq!(format_bytes(256_000), "256KB");
        assert_eq!(format_bytes(262_144), "256KiB");
        assert_eq!(format_bytes(1040), "1040B");
    }

    #[test]
    fn buffers() {
        assert_eq!(parse_buffer("32KB").unwrap(), Buffer::Bytes(32_000));
        assert_eq!(parse_buffer("100 packets").unwrap(), Buffer::Packets(100));
        assert_eq!(parse_buffer("unlimited").unwrap(), Buffer::Unlimited);
        assert!(parse_buffer("lots").unwrap_err().contains("lots"));
    }

    #[test]
    fn round_trips_through_serde() {
        let d: Dur = serde_json::from_str("\"25us\"").unwrap();
        assert_eq!(serde_json::to_string(&d).unwrap(), "\"25us\"");
        let b: Buffer = serde_json::from_str("\"100 packets\"").unwrap();
        assert_eq!(serde_json::to_string(&b).unwrap(), "\"100 packets\"");
        let e = serde_json::from_str::<Dur>("25").unwrap_err().to_string();
        assert!(e.contains("needs a unit"), "{e}");
    }

    /// Issue 38, items 13 and 15: every integer up to u64::MAX parses exactly (no float on the
    /// way); a value too large for its type says so (not "not a whole number"); a negative
    /// one says it is negative (not "expected a unit").
    #[test]
    fn numbers_with_units_parse_exactly_and_say_what_is_wrong() {
        assert_eq!(
            parse_bytes("123456789012345678B"),
            Ok(123_456_789_012_345_678)
        );
        assert_eq!(parse_bytes("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_bytes("1_000.5KB"), Ok(1_000_500));
        assert_eq!(
            parse_rate("9007199254740993bps").unwrap().0,
            9_007_199_254_740_993
        );
        assert_eq!(
            parse_duration("9007199254740993ps").unwrap().0,
            9_007_199_254_740_993
        );
        assert_eq!(parse_duration("0.1ns").unwrap(), Duration(100));
        assert_eq!(parse_duration("1.250us").unwrap(), Duration(1_250_000));
        let e = parse_duration("100000000s").unwrap_err();
        assert_eq!(
            e,
            "invalid duration \"100000000s\": too large (at most 18446744 s)"
        );
        let e = parse_bytes("18446744073709551616B").unwrap_err();
        assert!(
            e.ends_with("too large (at most 18446744073709551615 B)"),
            "{e}"
        );
        let e = parse_duration("0.5ps").unwrap_err();
        assert!(e.ends_with("not a whole number of picoseconds"), "{e}");
        for (e, what) in [
            (parse_duration("-1ms").unwrap_err(), "duration"),
            (parse_rate("-1Gbps").unwrap_err(), "rate"),
            (parse_bytes("-5KB").unwrap_err(), "size"),
        ] {
            assert!(
                e.starts_with(&format!("invalid {what}")) && e.ends_with("must not be negative"),
                "{e}"
            );
        }
        assert!(parse_duration("1.2.3ms").is_err());
        assert!(parse_duration("ms").is_err());
    }
}
