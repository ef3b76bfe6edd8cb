//! RTO randomization (Hafeez et al., GLOBECOM 2015, "seed 000") and fine-grained RTO with
//! randomized backoff (Vasudevan et al., SIGCOMM 2009).
//!
//! Every draw comes from the connection's own `Stream::Scheme` generator, one draw each time the
//! retransmission timer is armed (inferred: the paper does not say when the draw happens).

use incastsim_core::{Duration, SimRng};
use incastsim_tcp::policy::{SenderPolicy, SenderView, hooks};

/// How the randomization interval is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RtoRandMode {
    /// Eq. 3: RTO = U(RTO_min − Δ/2, RTO_min + Δ/2), then Eq. 2's backoff × 2^b.
    Static {
        /// Δ: the interval's width.
        delta: Duration,
    },
    /// TDA, Eq. 8: RTO = U(RTO_min − ω^s Δ/2, RTO_min + ω^s Δ/2), s = successive timeouts of
    /// the segment (0 before any timeout). Three readings of §III-C are parameters:
    /// - `keep_backoff`: whether Eq. 2's ×2^b still multiplies the draw. Default no: the paper
    ///   likens TDA to 802.11's randomized backoff, where the growing contention window *is* the
    ///   backoff, and says "TDA increases the backoff interval exponentially" (§IV-B1).
    /// - `s_max`: Eq. 8's s ∈ {1, …, M} caps s at M, whose value is not given: `None` = no cap.
    /// - `lower_bound`: the lowest RTO a draw may take once Eq. 8's interval reaches below it
    ///   (ω^s Δ/2 > RTO_min); `None` = the clock granularity (a timer cannot fire sooner).
    Tda {
        /// Δ before any timeout.
        delta: Duration,
        /// ω: the interval grows ω-fold per successive timeout.
        omega: f64,
        /// Multiply the draw by Eq. 2's 2^b as well.
        keep_backoff: bool,
        /// M, the largest s (None: no cap).
        s_max: Option<u32>,
        /// The lowest RTO a draw may take (None: the clock granularity).
        lower_bound: Option<Duration>,
    },
    /// MAA: Eq. 3 with Δ = f(N, σ) = ⌊N / (σ log₂ N)⌋ units, N = active senders of the task;
    /// Eq. 2's backoff on top.
    Maa {
        /// σ of f(N, σ).
        sigma: f64,
        /// The unit of f(N, σ).
        unit: Duration,
    },
    /// FSA: TDA with ω_long once the flow has sent `long_after` bytes, else ω_short.
    Fsa {
        /// Δ, as for TDA.
        delta: Duration,
        /// ω for long flows.
        omega_long: f64,
        /// ω for short flows.
        omega_short: f64,
        /// Bytes sent after which a flow is long.
        long_after: u64,
    },
}

/// RTO randomization (static, TDA, MAA or FSA) for one connection.
#[derive(Clone, Debug)]
pub struct RtoRandomization {
    /// How the interval is chosen.
    pub mode: RtoRandMode,
    /// MAA's N: senders of the task active now (set by the engine's oracle).
    pub active_senders: u32,
    rng: SimRng,
}

/// MAA's f(N, σ) = ⌊N / (σ log₂ N)⌋, in units of the configured unit; 0 for N ≤ 1 (log 1 = 0:
/// a lone sender needs no desynchronization).
pub fn maa_interval_units(n: u32, sigma: f64) -> u64 {
    if n <= 1 {
        return 0;
    }
    let n = n as f64;
    (n / (sigma * n.log2())).floor().max(0.0) as u64
}

/// A draw from U(center − len/2, center + len/2), the lower end kept at ≥ `floor` (a timer
/// cannot fire before the next clock tick; Eq. 8's interval can reach below zero for large s).
pub fn uniform_around(rng: &mut SimRng, center: Duration, len: f64, floor: Duration) -> Duration {
    let c = center.as_ps() as f64;
    let lo = (c - len / 2.0).max(floor.as_ps().max(1) as f64);
    let hi = (c + len / 2.0).max(lo);
    Duration((lo + (hi - lo) * rng.unit_f64()).round() as u64)
}

fn capped(ps: f64, max: Duration) -> Duration {
    if ps >= max.as_ps() as f64 {
        max
    } else {
        Duration(ps as u64)
    }
}

impl RtoRandomization {
    /// A randomizer drawing from `rng` (the flow's scheme stream).
    pub fn new(mode: RtoRandMode, rng: SimRng) -> Self {
        RtoRandomization {
            mode,
            active_senders: 0,
            rng,
        }
    }

    /// The randomization interval length (ps) for this arm, and whether Eq. 2's ×2^b applies.
    pub fn interval(&self, view: &SenderView) -> (f64, bool) {
        let s = view.successive_timeouts as i32;
        match self.mode {
            RtoRandMode::Static { delta } => (delta.as_ps() as f64, true),
            RtoRandMode::Tda {
                delta,
                omega,
                keep_backoff,
                s_max,
                ..
            } => {
                let s = s_max.map_or(s, |m| s.min(m as i32));
                (omega.powi(s) * delta.as_ps() as f64, keep_backoff)
            }
            RtoRandMode::Maa { sigma, unit } => (
                maa_interval_units(self.active_senders, sigma) as f64 * unit.as_ps() as f64,
                true,
            ),
            RtoRandMode::Fsa {
                delta,
                omega_long,
                omega_short,
                long_after,
            } => {
                // "The size of flows is estimated based on the amount of bytes sent so far."
                let omega = if view.snd_max >= long_after {
                    omega_long
                } else {
                    omega_short
                };
                (omega.powi(s) * delta.as_ps() as f64, false)
            }
        }
    }
}

impl SenderPolicy for RtoRandomization {
    fn hooks(&self) -> u16 {
        hooks::RTO
    }
    fn retransmission_timeout(&mut self, view: &SenderView, _rfc6298_rto: Duration) -> Duration {
        // RTO_min in the paper's formulas is the RFC 6298 RTO before backoff (Eq. 1, "almost
        // always RTO_min" in a data center).
        let (len, backoff) = self.interval(view);
        let floor = match self.mode {
            RtoRandMode::Tda {
                lower_bound: Some(b),
                ..
            } => b.max(view.granularity),
            _ => view.granularity,
        };
        let rto = uniform_around(&mut self.rng, view.base_rto, len, floor);
        let factor = if backoff {
            // Eq. 2: timeout = RTO × 2^b, b = successive timeouts (reset by an ACK).
            2f64.powi(view.successive_timeouts.min(62) as i32)
        } else {
            1.0
        };
        capped(rto.as_ps() as f64 * factor, view.rto_max)
    }
    fn wants_active_senders(&self) -> bool {
        matches!(self.mode, RtoRandMode::Maa { .. })
    }
    fn set_active_senders(&mut self, n: u32) {
        self.active_senders = n;
    }
}

/// Fine-grained RTO (Vasudevan et al. 2009): RTO_min and the clock granularity come from the
/// `tcp` section (200 µs and 1 µs in the paper); this adds its randomized backoff,
/// timeout = RTO × 2^b × (1 + U(0, max_extra)) with max_extra = 0.5 (§5.3 of that paper).
#[derive(Clone, Debug)]
pub struct FineGrainedRto {
    /// The backoff's extra factor is U(0, max_extra).
    pub max_extra: f64,
    rng: SimRng,
}

impl FineGrainedRto {
    /// Fine-grained RTO drawing from `rng` (the flow's scheme stream).
    pub fn new(max_extra: f64, rng: SimRng) -> Self {
        FineGrainedRto { max_extra, rng }
    }
}

impl SenderPolicy for FineGrainedRto {
    fn hooks(&self) -> u16 {
        hooks::RTO
    }
    fn retransmission_timeout(&mut self, view: &SenderView, rfc6298_rto: Duration) -> Duration {
        let extra = 1.0 + self.max_extra * self.rng.unit_f64();
        capped(rfc6298_rto.as_ps() as f64 * extra, view.rto_max)
    }
}
