//! TCPRand (Lee et al., Computer Networks 2017, "seed 002"): the payload of every new segment is
//! drawn uniformly from [rMin, MSS] (§4), with rMin static or adapted to CUBIC's window curve
//! (Algorithm 1, Eq. 2-3).

use incastsim_core::SimRng;
use incastsim_tcp::policy::{SenderPolicy, SenderView, hooks};

/// Algorithm 1's parameters. Windows are in segments (the paper counts cwnd in packets).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdaptiveRMin {
    /// μ and σ² of Φ.
    pub mu: f64,
    /// σ² of Φ.
    pub sigma2: f64,
    /// ν_τ ∈ [1, ∞]: trigger point τ = W_max − (W_max − α)/ν_τ (Eq. 2).
    pub nu_tau: f64,
    /// ν_ω ∈ [0, ∞): end point ω = W_max + (W_max − α)/ν_ω (Eq. 3); 0 gives ω = ∞.
    pub nu_omega: f64,
    /// θ: lower bound of rMin, bytes (200 B in the paper).
    pub theta: u32,
}

/// How rMin, the smallest payload drawn, is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RMin {
    /// A fixed rMin in bytes (1 ≤ rMin ≤ MSS).
    Static(u32),
    /// Algorithm 1 (CUBIC only).
    Adaptive(AdaptiveRMin),
}

/// TCPRand's sender: each new segment's payload is drawn from U[rMin, MSS] (Lee et al.), so
/// synchronized senders stop losing the same packets.
#[derive(Clone, Debug)]
pub struct TcpRand {
    /// How rMin is chosen.
    pub r_min: RMin,
    /// The last rMin used (for tests and traces).
    pub last_r_min: u32,
    rng: SimRng,
}

/// The normal CDF Φ(x; μ, σ²) = ½(1 + erf((x − μ)/(σ√2))) (Algorithm 1 line 4).
pub fn normal_cdf(x: f64, mu: f64, sigma2: f64) -> f64 {
    0.5 * (1.0 + statrs::function::erf::erf((x - mu) / (sigma2.sqrt() * std::f64::consts::SQRT_2)))
}

impl AdaptiveRMin {
    /// Algorithm 1: rMin for a window of `cwnd` segments given CUBIC's W_max and α (the window at
    /// the start of the epoch, after the β reduction), all in segments.
    pub fn r_min(&self, mss: u32, cwnd: f64, w_max: f64, alpha: f64) -> u32 {
        if w_max.partial_cmp(&alpha) != Some(std::cmp::Ordering::Greater) {
            // No loss yet, or a degenerate epoch (x undefined): no randomization (inferred).
            return mss;
        }
        let span = w_max - alpha;
        // Eq. 2 and Eq. 3 (ν_τ = ∞ → τ = W_max; ν_ω = 0 → ω = ∞).
        let tau = w_max - span / self.nu_tau;
        let omega = if self.nu_omega == 0.0 {
            f64::INFINITY
        } else {
            w_max + span / self.nu_omega
        };
        if tau <= cwnd && cwnd <= omega {
            let x = (cwnd - alpha) / span;
            let phi = normal_cdf(x, self.mu, self.sigma2);
            // Line 5: rMin = max(MSS × (1 − Φ), θ).
            ((mss as f64 * (1.0 - phi)).round() as u32)
                .max(self.theta)
                .min(mss)
        } else {
            mss
        }
    }
}

impl TcpRand {
    /// TCPRand drawing from `rng` (the flow's scheme stream).
    pub fn new(r_min: RMin, rng: SimRng) -> Self {
        TcpRand {
            r_min,
            last_r_min: 0,
            rng,
        }
    }

    /// rMin for the connection's state now.
    pub fn current_r_min(&self, view: &SenderView) -> u32 {
        let mss = view.smss as u32;
        match self.r_min {
            RMin::Static(r) => r.clamp(1, mss),
            RMin::Adaptive(a) => match view.cc.cubic {
                Some(c) if view.cc.ssthresh_bytes < u64::MAX / 4 => {
                    let smss = view.smss as f64;
                    // α = cwnd(0) of the epoch = ssthresh after the β reduction.
                    let alpha = view.cc.ssthresh_bytes as f64 / smss;
                    let cwnd = view.cc.cwnd_bytes as f64 / smss;
                    a.r_min(mss, cwnd, c.w_max_segments, alpha)
                }
                // Before the first loss W_max and α are undefined: full-size segments.
                _ => mss,
            },
        }
    }
}

impl SenderPolicy for TcpRand {
    fn hooks(&self) -> u16 {
        hooks::PAYLOAD
    }
    fn new_segment_payload(&mut self, view: &SenderView, max_payload: u32) -> u32 {
        // §4: "a uniform random number in the range of [rMin, MSS]", one draw per new segment;
        // the tail of the application's data may be shorter.
        let mss = view.smss as u32;
        let r_min = self.current_r_min(view);
        self.last_r_min = r_min;
        let size = self.rng.range_inclusive(r_min as u64, mss as u64) as u32;
        size.min(max_payload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phi_matches_tables() {
        // Φ(0) = 0.5; Φ(1) = 0.841345; Φ(-1) = 0.158655 (standard normal table).
        assert!((normal_cdf(0.0, 0.0, 1.0) - 0.5).abs() < 1e-12);
        assert!((normal_cdf(1.0, 0.0, 1.0) - 0.841_344_746).abs() < 1e-8);
        assert!((normal_cdf(0.0, 1.0, 1.0) - 0.158_655_254).abs() < 1e-8);
        // σ² = 5: Φ(2; 1, 5) = Φ(1/√5) = Φ(0.447214) = 0.672639.
        assert!((normal_cdf(2.0, 1.0, 5.0) - 0.672_639).abs() < 1e-5);
    }

    /// Algorithm 1 with the default (σ², μ, ν_τ, ν_ω) = (1, 1, 1, 1), MSS 1448 B, θ = 200 B, on a
    /// CUBIC epoch with α = 70 and W_max = 100 segments: x = (cwnd − 70)/30.
    #[test]
    fn r_min_at_x_0_1_2_by_hand() {
        let a = AdaptiveRMin {
            mu: 1.0,
            sigma2: 1.0,
            nu_tau: 1.0,
            nu_omega: 1.0,
            theta: 200,
        };
        // τ = 100 − 30 = 70, ω = 130.
        // x = 0 (cwnd = α = 70): Φ(0; 1, 1) = 0.158655 → 1448 × 0.841345 = 1218.27 → 1218.
        assert_eq!(a.r_min(1448, 70.0, 100.0, 70.0), 1218);
        // x = 1 (cwnd = W_max): Φ = 0.5 → 724.
        assert_eq!(a.r_min(1448, 100.0, 100.0, 70.0), 724);
        // x = 2 (cwnd = 130 = ω): Φ = 0.841345 → 1448 × 0.158655 = 229.73 → 230 (above θ).
        assert_eq!(a.r_min(1448, 130.0, 100.0, 70.0), 230);
        // Outside [τ, ω]: rMin = MSS.
        assert_eq!(a.r_min(1448, 69.0, 100.0, 70.0), 1448);
        assert_eq!(a.r_min(1448, 131.0, 100.0, 70.0), 1448);
        // Most aggressive (σ², μ, ν_τ, ν_ω) = (1, 0, 1, 0): ω = ∞, Φ(2; 0, 1) = 0.97725 →
        // 1448 × 0.02275 = 32.9 → θ = 200.
        let aggressive = AdaptiveRMin {
            mu: 0.0,
            nu_omega: 0.0,
            ..a
        };
        assert_eq!(aggressive.r_min(1448, 130.0, 100.0, 70.0), 200);
        assert_eq!(aggressive.r_min(1448, 1e6, 100.0, 70.0), 200);
        // Most conservative (1, 1, ∞, 1): τ = W_max, so below W_max no randomization.
        let conservative = AdaptiveRMin {
            nu_tau: f64::INFINITY,
            ..a
        };
        assert_eq!(conservative.r_min(1448, 99.0, 100.0, 70.0), 1448);
        assert_eq!(conservative.r_min(1448, 100.0, 100.0, 70.0), 724);
        // Degenerate epoch: W_max ≤ α.
        assert_eq!(a.r_min(1448, 50.0, 50.0, 50.0), 1448);
    }
}
