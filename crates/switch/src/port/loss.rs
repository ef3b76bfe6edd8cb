//! Random loss on a link: Bernoulli or Gilbert-Elliott, drawn per packet at the far end.

use incastsim_core::SimRng;

/// Random loss on one direction of a link, drawn per packet at the far end from the link's own
/// random stream.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LinkLoss {
    /// Lossless: no draw.
    None,
    /// Each packet is lost with probability `p` (> 0), independently: one draw per packet.
    Bernoulli {
        /// Loss probability per packet.
        p: f64,
    },
    /// Gilbert-Elliott: a two-state Markov chain stepped once per packet. A packet is lost with
    /// probability `loss_in_good` or `loss_in_bad` according to the state it finds; then the
    /// state moves Good → Bad with probability `p_good_to_bad`, Bad → Good with `p_bad_to_good`
    /// (the order of Linux netem's `gemodel`). Starts in Good. Stationary P(Bad) = p/(p + r);
    /// mean sojourn in Bad 1/r packets, so losses come in bursts of mean length 1/r when
    /// `loss_in_bad` = 1 and `loss_in_good` = 0 (Gilbert's model).
    GilbertElliott {
        /// Probability of moving Good → Bad after a packet.
        p_good_to_bad: f64,
        /// Probability of moving Bad → Good after a packet.
        p_bad_to_good: f64,
        /// Loss probability in Good.
        loss_in_good: f64,
        /// Loss probability in Bad.
        loss_in_bad: f64,
        /// The current state: in Bad.
        bad: bool,
    },
}

impl LinkLoss {
    /// Bernoulli loss with probability `p`; lossless (no draws at all) when `p` is 0.
    pub fn bernoulli(p: f64) -> LinkLoss {
        if p > 0.0 {
            LinkLoss::Bernoulli { p }
        } else {
            LinkLoss::None
        }
    }

    /// The long-run fraction of packets lost.
    pub fn mean_loss(&self) -> f64 {
        match *self {
            LinkLoss::None => 0.0,
            LinkLoss::Bernoulli { p } => p,
            LinkLoss::GilbertElliott {
                p_good_to_bad: p,
                p_bad_to_good: r,
                loss_in_good,
                loss_in_bad,
                ..
            } => {
                let bad = p / (p + r);
                bad * loss_in_bad + (1.0 - bad) * loss_in_good
            }
        }
    }

    /// Whether the next packet is lost.
    #[inline(always)]
    pub fn lose(&mut self, rng: &mut SimRng) -> bool {
        match self {
            LinkLoss::None => false,
            LinkLoss::Bernoulli { p } => rng.bernoulli(*p),
            LinkLoss::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_in_good,
                loss_in_bad,
                bad,
            } => {
                let lost = rng.bernoulli(if *bad { *loss_in_bad } else { *loss_in_good });
                let flip = if *bad { *p_bad_to_good } else { *p_good_to_bad };
                if rng.bernoulli(flip) {
                    *bad = !*bad;
                }
                lost
            }
        }
    }
}
