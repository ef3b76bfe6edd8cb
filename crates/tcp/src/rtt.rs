//! Round-trip time estimation and the retransmission timeout, per RFC 6298.

use incastsim_core::Duration;

/// RTO parameters. `granularity` is the clock granularity G of RFC 6298 §2: it enters the RTO
/// formula and timer deadlines are rounded up to a multiple of it (tick-driven kernel timers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtoConfig {
    /// RTO_min: the RTO is never below this (RFC 6298 (2.4) says 1 s; the incast papers lower it).
    pub min: Duration,
    /// RTO_max: the backed-off RTO is capped here (RFC 6298 (2.5)).
    pub max: Duration,
    /// RTO before the first RTT sample (RFC 6298 §2.1 says 1 s; the incast literature's
    /// established connections behave as if it were RTO_min, which is incastsim's default).
    pub initial: Duration,
    /// The clock granularity G of RFC 6298 (2.2)-(2.3): RTO >= SRTT + max(G, 4 RTTVAR).
    pub granularity: Duration,
}

/// SRTT/RTTVAR estimator (RFC 6298 §2). All arithmetic is in integer picoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttEstimator {
    cfg: RtoConfig,
    srtt: Option<Duration>,
    rttvar: Duration,
    rto: Duration,
    samples: u64,
    /// Σ of the samples, ps (for the mean RTT the book's model is fed with, §3.2).
    sample_sum_ps: u128,
}

impl RttEstimator {
    /// An estimator before its first sample (RTO = the initial value).
    pub fn new(cfg: RtoConfig) -> RttEstimator {
        // §2.1: until a sample is taken, RTO is the initial value.
        let rto = clamp(cfg.initial, cfg);
        RttEstimator {
            cfg,
            srtt: None,
            rttvar: Duration::ZERO,
            rto,
            samples: 0,
            sample_sum_ps: 0,
        }
    }

    /// SRTT, None before the first sample.
    pub fn srtt(&self) -> Option<Duration> {
        self.srtt
    }
    /// RTTVAR (zero before the first sample).
    pub fn rttvar(&self) -> Duration {
        self.rttvar
    }
    /// RTT samples taken.
    pub fn samples(&self) -> u64 {
        self.samples
    }
    /// Σ of every RTT sample taken, ps (mean RTT = this / [`RttEstimator::samples`]).
    pub fn sample_sum_ps(&self) -> u128 {
        self.sample_sum_ps
    }
    /// The RTO bounds it was built with.
    pub fn config(&self) -> RtoConfig {
        self.cfg
    }

    /// The current RTO without backoff.
    pub fn rto(&self) -> Duration {
        self.rto
    }

    /// The RTO after `backoff` successive doublings (§5.5), capped at RTO_max (§2.5).
    pub fn backed_off_rto(&self, backoff: u32) -> Duration {
        let factor = 1u64.checked_shl(backoff.min(62)).unwrap_or(u64::MAX);
        let d = self.rto.saturating_mul(factor);
        if d > self.cfg.max { self.cfg.max } else { d }
    }

    /// Feeds one RTT measurement R.
    #[inline(always)]
    pub fn sample(&mut self, r: Duration) {
        self.samples += 1;
        self.sample_sum_ps += r.0 as u128;
        let g = self.cfg.granularity;
        match self.srtt {
            None => {
                // §2.2: SRTT <- R, RTTVAR <- R/2.
                self.srtt = Some(r);
                self.rttvar = Duration(r.0 / 2);
            }
            Some(srtt) => {
                // §2.3 with alpha = 1/8, beta = 1/4; RTTVAR is updated with the old SRTT.
                let err = srtt.0.abs_diff(r.0);
                self.rttvar = Duration((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(Duration((7 * srtt.0 + r.0) / 8));
            }
        }
        // §2.2/2.3: RTO <- SRTT + max(G, K*RTTVAR), K = 4; then §2.4 (min) and §2.5 (max).
        let k_rttvar = self.rttvar.saturating_mul(4);
        let var_term = if k_rttvar > g { k_rttvar } else { g };
        self.rto = clamp(self.srtt.unwrap_or_default() + var_term, self.cfg);
    }
}

fn clamp(rto: Duration, cfg: RtoConfig) -> Duration {
    let rto = if rto < cfg.min { cfg.min } else { rto };
    if rto > cfg.max { cfg.max } else { rto }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(min_us: u64) -> RtoConfig {
        RtoConfig {
            min: Duration::from_us(min_us),
            max: Duration::from_secs(60),
            initial: Duration::from_us(min_us),
            granularity: Duration::from_us(1),
        }
    }

    #[test]
    fn rfc6298_on_a_known_sequence() {
        // Hand-worked with alpha = 1/8, beta = 1/4, K = 4, G = 1 us, RTO_min = 1 us.
        let mut e = RttEstimator::new(cfg(1));
        e.sample(Duration::from_us(100));
        assert_eq!(e.srtt(), Some(Duration::from_us(100)));
        assert_eq!(e.rttvar(), Duration::from_us(50));
        assert_eq!(e.rto(), Duration::from_us(300)); // 100 + 4*50
        e.sample(Duration::from_us(200));
        // RTTVAR = 3/4*50 + 1/4*|100-200| = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5
        assert_eq!(e.rttvar(), Duration::from_ns(62_500));
        assert_eq!(e.srtt(), Some(Duration::from_ns(112_500)));
        assert_eq!(e.rto(), Duration::from_ns(362_500));
        e.sample(Duration::from_us(100));
        // RTTVAR = 3/4*62.5 + 1/4*12.5 = 50; SRTT = 7/8*112.5 + 1/8*100 = 110.9375
        assert_eq!(e.rttvar(), Duration::from_us(50));
        assert_eq!(e.srtt(), Some(Duration::from_ps(110_937_500)));
        assert_eq!(e.rto(), Duration::from_ps(310_937_500));
    }

    #[test]
    fn rto_min_and_granularity_apply() {
        let mut e = RttEstimator::new(cfg(200_000)); // RTO_min 200 ms
        assert_eq!(e.rto(), Duration::from_ms(200), "no sample: initial RTO");
        e.sample(Duration::from_us(100));
        assert_eq!(
            e.rto(),
            Duration::from_ms(200),
            "RTO_min floors a 300 us RTO"
        );
        // With a constant RTT, RTTVAR decays until G dominates: RTO -> SRTT + G.
        let mut e = RttEstimator::new(cfg(1));
        for _ in 0..200 {
            e.sample(Duration::from_us(100));
        }
        assert_eq!(e.rto(), Duration::from_us(101));
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let mut c = cfg(200_000);
        c.max = Duration::from_secs(1);
        let e = RttEstimator::new(c);
        assert_eq!(e.backed_off_rto(0), Duration::from_ms(200));
        assert_eq!(e.backed_off_rto(1), Duration::from_ms(400));
        assert_eq!(e.backed_off_rto(2), Duration::from_ms(800));
        assert_eq!(e.backed_off_rto(3), Duration::from_secs(1));
        assert_eq!(e.backed_off_rto(200), Duration::from_secs(1));
    }
}
