//! [`IncastBursts`]: a traffic generator of this crate's own, `traffic: [{kind: incast_bursts,
//! period: 2ms, size: 20KB}]`: every `period`, each host of `sources` sends `size` bytes to the
//! one host `to` (all to one: a periodic incast, as a partition-aggregate service's queries
//! cause), from `start` on.

use incastsim::config::invalid;
use incastsim::config::units::{Bytes, Dur};
use incastsim::core::{Duration, Time};
use incastsim::extend::{GeneratedFlow, TrafficContext, TrafficGeneratorExtension};
use incastsim::scenario::ConfigError;
use incastsim::scenario::plan::traffic::{HostList, MAX_GENERATED_FLOWS};
use serde::{Deserialize, Serialize};

/// `incast_bursts`' parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IncastBurstsParams {
    /// The hosts that answer each burst (the built-ins' host selectors: `senders`,
    /// `sender:0-3`, `host:5`, ...).
    #[serde(default = "senders")]
    pub sources: HostList,
    /// The one host every burst goes to.
    #[serde(default = "receiver")]
    pub to: String,
    /// Time between bursts.
    #[serde(default = "one_ms")]
    pub period: Dur,
    /// Bytes each source sends per burst.
    #[serde(default = "sixty_four_kb")]
    pub size: Bytes,
    /// How many bursts; by default as many as start before the workload's `duration` ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bursts: Option<u32>,
    /// When the first burst starts.
    #[serde(default = "zero")]
    pub start: Dur,
    /// Each flow starts after an extra U[0, jitter] (from the entry's own random stream).
    #[serde(default = "zero")]
    pub jitter: Dur,
}

fn senders() -> HostList {
    HostList(vec!["senders".into()])
}
fn receiver() -> String {
    "receiver".into()
}
fn one_ms() -> Dur {
    Dur(Duration::from_ms(1))
}
fn sixty_four_kb() -> Bytes {
    Bytes(64_000)
}
fn zero() -> Dur {
    Dur(Duration::ZERO)
}

/// The generator's registration (`extensions!().traffic_generator::<IncastBursts>(...)`).
pub struct IncastBursts;

impl TrafficGeneratorExtension for IncastBursts {
    type Params = IncastBurstsParams;
    const DESCRIPTION: &'static str = "every `period`, each of `sources` sends `size` bytes to `to` (a periodic all-to-one burst)";

    fn check(p: &IncastBurstsParams) -> Result<(), ConfigError> {
        if p.period.0 == Duration::ZERO {
            return Err(invalid("period", p.period.0, "a positive duration"));
        }
        if p.size.0 == 0 {
            return Err(invalid("size", p.size.0, "at least 1 byte"));
        }
        if p.bursts == Some(0) {
            return Err(invalid("bursts", 0, "at least 1 burst"));
        }
        Ok(())
    }

    /// Burst k (k = 0, 1, ...) starts at start + k·period; within a burst, one flow per source
    /// in the order `sources` lists them, each at the burst's start + U[0, jitter] (one draw per
    /// flow, in that order, only when `jitter` is positive).
    fn generate(
        p: &IncastBurstsParams,
        ctx: &mut TrafficContext,
    ) -> Result<Vec<GeneratedFlow>, ConfigError> {
        let srcs = ctx.hosts(&p.sources, "sources")?;
        let dst = ctx.host(&p.to, "to")?;
        if srcs.contains(&dst) {
            return Err(invalid(
                "sources",
                format!("host{dst}"),
                "hosts other than `to`",
            ));
        }
        let bursts = match (p.bursts, ctx.duration()) {
            (Some(n), _) => u64::from(n),
            // Every k with start + k·period < duration.
            (None, Some(d)) if d > p.start.0 => {
                (d - p.start.0).as_ps().div_ceil(p.period.0.as_ps())
            }
            (None, Some(d)) => {
                return Err(invalid(
                    "start",
                    p.start.0,
                    format!("a time before the workload's duration ({d})"),
                ));
            }
            (None, None) => {
                return Err(invalid(
                    "bursts",
                    "(none)",
                    "a number of bursts (required when the workload has no duration, e.g. synchronized_reads)",
                ));
            }
        };
        if bursts.saturating_mul(srcs.len() as u64) > MAX_GENERATED_FLOWS {
            return Err(invalid(
                "bursts",
                bursts,
                format!(
                    "at most {MAX_GENERATED_FLOWS} flows in all ({} sources each burst)",
                    srcs.len()
                ),
            ));
        }
        let mut flows = Vec::with_capacity(bursts as usize * srcs.len());
        for k in 0..bursts {
            let at = Time::ZERO + p.start.0 + Duration(p.period.0.as_ps() * k);
            for &src in &srcs {
                let jitter = if p.jitter.0 > Duration::ZERO {
                    ctx.rng().duration_up_to(p.jitter.0)
                } else {
                    Duration::ZERO
                };
                flows.push(ctx.sized_flow(src, dst, at + jitter, p.size.0));
            }
        }
        Ok(flows)
    }
}
