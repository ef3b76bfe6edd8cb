//! Priority Flow Control (IEEE 802.1Qbb) at a switch's ingress: the bytes each (input port,
//! priority) holds in the buffer, split into the part below XOFF and the headroom above it, and
//! the decisions to PAUSE, RESUME and drop.
//!
//! The accounting is the HPCC ns-3 fork's (`SwitchMmu`, `switch-mmu.cc`), which follows
//! Broadcom's MMU: a packet that would take its input's count above XOFF goes to the input's
//! headroom; an input pauses while it has headroom bytes or its count is at XOFF; it resumes
//! once the headroom is empty and the count is `xon_offset` below XOFF (or zero); a packet
//! that finds both XOFF and the headroom full is dropped. A packet leaves its input's count
//! when it leaves the buffer (gets the transmitter), from the headroom first. (The fork's
//! per-input reserve, which such a switch keeps outside the shared pool, is not modelled.)

/// Bytes of a PFC frame on the wire: a minimum-size Ethernet frame (802.1Qbb Annex N; MAC
/// control opcode 0x0101, a class-enable vector and eight 16-bit pause times, padded).
pub const PAUSE_FRAME_BYTES: u64 = 64;

/// Bytes in one pause quantum: 512 bit times (IEEE 802.3 Annex 31B.2).
pub const QUANTUM_BYTES: u64 = 64;

/// How an input's XOFF threshold is set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum XoffRule {
    /// A fixed number of bytes per (input port, priority).
    Static(u64),
    /// α × the free bytes of the switch's lossless pool: pool − every input's headroom − the
    /// bytes inputs hold below XOFF (the HPCC fork's `GetPfcThreshold`).
    Dynamic {
        /// α.
        alpha: f64,
        /// The switch's lossless pool, bytes.
        pool: u64,
        /// n when α = 2⁻ⁿ and the pool is below 2⁵³ bytes: then α × free is exactly
        /// free >> n ([`XoffRule::dynamic`] sets it; an admission computes the threshold).
        shift: Option<u32>,
    },
}

/// One switch's lossless pool, for [`XoffRule::Dynamic`]: its size less the headroom its
/// inputs reserve, and what its inputs hold below XOFF.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LosslessPool {
    /// Pool bytes not reserved as headroom.
    pub sharable: u64,
    /// Bytes the switch's inputs hold below XOFF (Σ [`IngressCount::below_xoff`]).
    pub used: u64,
}

impl XoffRule {
    /// The dynamic rule with `alpha` over a pool of `pool` bytes. With α a power of two
    /// (2⁻ⁿ, as 1/8 and 1/16 usually are) and every free count below 2⁵³, the product is
    /// exact in `f64`, so its truncation is a shift: the same threshold without the float.
    pub fn dynamic(alpha: f64, pool: u64) -> XoffRule {
        let shift = (0..64u32)
            .find(|&n| alpha == 1.0 / (1u64 << n) as f64)
            .filter(|_| pool < 1 << 53);
        XoffRule::Dynamic { alpha, pool, shift }
    }

    /// The XOFF threshold now, given the switch's pool (read for the dynamic rule only).
    #[inline]
    pub fn threshold(&self, pool: &LosslessPool) -> u64 {
        match *self {
            XoffRule::Static(bytes) => bytes,
            XoffRule::Dynamic { alpha, shift, .. } => {
                let free = pool.sharable.saturating_sub(pool.used);
                if let Some(n) = shift {
                    return free >> n;
                }
                // Through i64 when the free bytes fit (always, in practice): one instruction
                // each way instead of the u64 ⇄ f64 sequences, the same value (below 2^63 the
                // conversions agree; a product below 0 saturates to 0 as `as u64` does).
                if free <= i64::MAX as u64 {
                    let x = alpha * (free as i64) as f64;
                    if x < 9.2e18 {
                        return (x as i64).max(0) as u64;
                    }
                }
                (alpha * free as f64) as u64
            }
        }
    }
}

/// One (input port, priority)'s bytes in the buffer and pause state, with its counters.
/// One cache line each (a lossless packet's admission and departure read one, not two).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct IngressCount {
    /// Bytes held that came in below XOFF.
    pub below_xoff: u64,
    /// Bytes held that came in above XOFF (the headroom in use).
    pub headroom: u64,
    /// The owner's index of the lossless pool the input's switch draws from (its dynamic
    /// XOFF's), kept here so that an admission and a departure read one line for both.
    pub pool: u32,
    /// A PAUSE is in force: sent, and neither resumed nor let lapse.
    pub paused: bool,
    /// Times the input went over XOFF (a PAUSE sent from the unpaused state).
    pub xoff_crossings: u64,
    /// Largest headroom in use, bytes.
    pub headroom_peak: u64,
    /// Largest count (below XOFF plus headroom), bytes.
    pub peak: u64,
    /// Packets dropped with the headroom full.
    pub overflow_drops: u64,
}

/// What an admission of a lossless packet did to its input's count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IngressAdmission {
    /// Counted; `pause`: the input just went over XOFF and must send a PAUSE.
    Counted {
        /// Send a PAUSE now.
        pause: bool,
    },
    /// Dropped: above XOFF with the headroom full.
    Overflow,
}

const _: () = assert!(std::mem::size_of::<IngressCount>() == 64);

impl IngressCount {
    /// Bytes held in all.
    pub fn bytes(&self) -> u64 {
        self.below_xoff + self.headroom
    }

    /// Whether a packet of `wire` bytes fits: below XOFF, or in the headroom of
    /// `headroom_limit` bytes (the HPCC fork's `CheckIngressAdmission`).
    pub fn fits(&self, wire: u64, xoff: u64, headroom_limit: u64) -> bool {
        self.below_xoff + wire <= xoff || self.headroom + wire <= headroom_limit
    }

    /// Counts a packet of `wire` bytes that stays in the buffer (`UpdateIngressAdmission`):
    /// below XOFF if it fits there, else in the headroom. Returns the bytes it added below
    /// XOFF (the pool's use) and whether the input must now PAUSE (`CheckShouldPause`).
    pub fn admit(&mut self, wire: u64, xoff: u64) -> (u64, bool) {
        let below = if self.below_xoff + wire > xoff {
            self.headroom += wire;
            self.headroom_peak = self.headroom_peak.max(self.headroom);
            0
        } else {
            self.below_xoff += wire;
            wire
        };
        self.peak = self.peak.max(self.bytes());
        let pause = !self.paused && (self.headroom > 0 || self.below_xoff >= xoff);
        if pause {
            self.paused = true;
            self.xoff_crossings += 1;
        }
        (below, pause)
    }

    /// A packet of `wire` bytes left the buffer (`RemoveFromIngressAdmission`: from the
    /// headroom first). Returns the bytes it took from below XOFF (the pool's use).
    pub fn remove(&mut self, wire: u64) -> u64 {
        let from_headroom = self.headroom.min(wire);
        self.headroom -= from_headroom;
        let below = wire - from_headroom;
        debug_assert!(
            self.below_xoff >= below,
            "an input released more than it held"
        );
        self.below_xoff -= below;
        below
    }

    /// Whether a paused input may resume (`CheckShouldResume`): no headroom in use, and its
    /// count zero or `xon_offset` below XOFF. Clears the pause if so.
    pub fn try_resume(&mut self, xoff: u64, xon_offset: u64) -> bool {
        let resume = self.paused
            && self.headroom == 0
            && (self.below_xoff == 0 || self.below_xoff + xon_offset <= xoff);
        if resume {
            self.paused = false;
        }
        resume
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand trace at XOFF = 3000 B, headroom 2000 B, 1000 B packets, XON offset 1500 B:
    /// three packets fill to XOFF and pause; two go to the headroom; the sixth overflows; the
    /// input resumes once the headroom is empty and the count is at most 1500 B.
    #[test]
    fn hand_trace_pause_headroom_overflow_resume() {
        let (xoff, room, off) = (3000, 2000, 1500);
        let mut c = IngressCount::default();
        assert_eq!(c.admit(1000, xoff), (1000, false));
        assert_eq!(c.admit(1000, xoff), (1000, false));
        // At XOFF: pause.
        assert_eq!(c.admit(1000, xoff), (1000, true));
        assert!(c.paused);
        assert!(c.fits(1000, xoff, room));
        assert_eq!(c.admit(1000, xoff), (0, false), "headroom; already paused");
        assert_eq!(c.admit(1000, xoff), (0, false));
        assert_eq!((c.below_xoff, c.headroom, c.peak), (3000, 2000, 5000));
        assert!(
            !c.fits(1000, xoff, room),
            "XOFF and headroom full: overflow"
        );
        // Departures empty the headroom first; no resume while it holds bytes.
        assert_eq!(c.remove(1000), 0);
        assert!(!c.try_resume(xoff, off));
        assert_eq!(c.remove(1000), 0);
        assert!(!c.try_resume(xoff, off), "3000 B: not 1500 B below XOFF");
        assert_eq!(c.remove(1000), 1000);
        assert!(!c.try_resume(xoff, off), "2000 B");
        assert_eq!(c.remove(1000), 1000);
        assert!(c.try_resume(xoff, off), "1000 B + 1500 B ≤ 3000 B");
        assert!(!c.paused);
        assert_eq!((c.xoff_crossings, c.headroom_peak), (1, 2000));
    }

    /// The dynamic threshold shrinks as the pool fills: α × (sharable − used).
    #[test]
    fn dynamic_threshold_follows_the_free_pool() {
        let rule = XoffRule::dynamic(0.125, 1_000_000);
        assert!(matches!(rule, XoffRule::Dynamic { shift: Some(3), .. }));
        let mut pool = LosslessPool {
            sharable: 800_000,
            used: 0,
        };
        assert_eq!(rule.threshold(&pool), 100_000);
        pool.used = 400_000;
        assert_eq!(rule.threshold(&pool), 50_000);
        pool.used = 900_000;
        assert_eq!(rule.threshold(&pool), 0);
        assert_eq!(XoffRule::Static(7).threshold(&pool), 7);
    }

    /// A power-of-two α's shift gives the float product's threshold, bit for bit, for every
    /// free count below 2⁵³; other α (and larger pools) keep the float.
    #[test]
    fn power_of_two_alpha_shifts_to_the_same_threshold() {
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for n in 0..64u32 {
            let alpha = 1.0 / (1u64 << n) as f64;
            let pool = (1u64 << 53) - 1;
            let fast = XoffRule::dynamic(alpha, pool);
            assert!(matches!(fast, XoffRule::Dynamic { shift: Some(s), .. } if s == n));
            let float = XoffRule::Dynamic {
                alpha,
                pool,
                shift: None,
            };
            for k in 0..200 {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let free = match k {
                    0 => 0,
                    1 => 1,
                    2 => pool,
                    _ => (x >> 11) >> (x % 53),
                };
                let p = LosslessPool {
                    sharable: free,
                    used: 0,
                };
                assert_eq!(
                    fast.threshold(&p),
                    float.threshold(&p),
                    "α = 2^-{n}, free {free}"
                );
            }
        }
        for alpha in [0.3, 1.5, 2.0, 0.0] {
            assert!(matches!(
                XoffRule::dynamic(alpha, 1 << 20),
                XoffRule::Dynamic { shift: None, .. }
            ));
        }
        assert!(matches!(
            XoffRule::dynamic(0.125, 1 << 53),
            XoffRule::Dynamic { shift: None, .. }
        ));
    }
}
