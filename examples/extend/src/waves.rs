//! [`BarrierWaves`]: a reactive traffic generator, `traffic: [{name: barrier_waves, waves: 4,
//! size: 20KB, gap: 100us}]`: each host of `sources` sends `size` bytes to `to` at once (an
//! incast wave), and wave k + 1 starts `gap` after the last flow of wave k has finished, as a
//! barrier-synchronized job (bulk-synchronous steps, a partition-aggregate round) does. Its
//! later waves are added while the run goes, by its [`TrafficReactor`]: the template of a
//! generator whose flows start when others finish.

use incastsim::config::invalid;
use incastsim::config::units::{Bytes, Dur};
use incastsim::core::{Duration, HostId, Time};
use incastsim::extend::{
    FinishedFlow, GeneratedFlow, ReactionContext, TrafficContext, TrafficGeneratorExtension,
    TrafficReactor,
};
use incastsim::scenario::ConfigError;
use incastsim::scenario::plan::traffic::{HostList, MAX_GENERATED_FLOWS};
use serde::{Deserialize, Serialize};

/// `barrier_waves`' parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BarrierWavesParams {
    /// The hosts that send in every wave (the built-ins' host selectors).
    #[serde(default = "senders")]
    pub sources: HostList,
    /// The one host every wave goes to.
    #[serde(default = "receiver")]
    pub to: String,
    /// Bytes each source sends per wave.
    #[serde(default = "sixty_four_kb")]
    pub size: Bytes,
    /// How many waves.
    #[serde(default = "four")]
    pub waves: u32,
    /// Time from the last flow of a wave finishing to the next wave's start.
    #[serde(default = "zero")]
    pub gap: Dur,
    /// When the first wave starts.
    #[serde(default = "zero")]
    pub start: Dur,
}

fn senders() -> HostList {
    HostList(vec!["senders".into()])
}
fn receiver() -> String {
    "receiver".into()
}
fn sixty_four_kb() -> Bytes {
    Bytes(64_000)
}
fn four() -> u32 {
    4
}
fn zero() -> Dur {
    Dur(Duration::ZERO)
}

/// The generator's registration (`extensions!().traffic_generator::<BarrierWaves>(...)`).
pub struct BarrierWaves;

impl TrafficGeneratorExtension for BarrierWaves {
    type Params = BarrierWavesParams;
    const DESCRIPTION: &'static str = "incast waves behind a barrier: wave k+1 starts `gap` after the last flow of wave k finishes";
    const VALUE_NAMES: &'static [&'static str] = &["waves_completed", "last_barrier_ms"];

    fn check(p: &BarrierWavesParams) -> Result<(), ConfigError> {
        if p.size.0 == 0 {
            return Err(invalid("size", p.size.0, "at least 1 byte"));
        }
        if p.waves == 0 {
            return Err(invalid("waves", 0, "at least 1 wave"));
        }
        Ok(())
    }

    /// The first wave only: one flow per source, in the order `sources` lists them, at
    /// `start`. The others come from the reactor.
    fn generate(
        p: &BarrierWavesParams,
        ctx: &mut TrafficContext,
    ) -> Result<Vec<GeneratedFlow>, ConfigError> {
        let (srcs, dst) = hosts(p, ctx)?;
        if u64::from(p.waves).saturating_mul(srcs.len() as u64) > MAX_GENERATED_FLOWS {
            return Err(invalid(
                "waves",
                p.waves,
                format!(
                    "at most {MAX_GENERATED_FLOWS} flows in all ({} sources each wave)",
                    srcs.len()
                ),
            ));
        }
        let at = Time::ZERO + p.start.0;
        Ok(srcs
            .iter()
            .map(|&src| ctx.sized_flow(src, dst, at, p.size.0))
            .collect())
    }

    fn reactor(
        p: &BarrierWavesParams,
        ctx: &mut TrafficContext,
    ) -> Result<Option<Box<dyn TrafficReactor>>, ConfigError> {
        let (srcs, dst) = hosts(p, ctx)?;
        Ok(Some(Box::new(Barrier {
            left: srcs.len(),
            srcs,
            dst,
            size: p.size.0,
            gap: p.gap.0,
            waves_left: p.waves - 1,
            waves_completed: 0,
            last_barrier: None,
        })))
    }
}

/// The sources and the destination, which must not be one of them.
fn hosts(
    p: &BarrierWavesParams,
    ctx: &TrafficContext,
) -> Result<(Vec<HostId>, HostId), ConfigError> {
    let srcs = ctx.hosts(&p.sources, "sources")?;
    let dst = ctx.host(&p.to, "to")?;
    if srcs.contains(&dst) {
        return Err(invalid(
            "sources",
            format!("host{dst}"),
            "hosts other than `to`",
        ));
    }
    Ok((srcs, dst))
}

/// The barrier: counts the current wave's flows still running; the last one to finish starts
/// the next wave.
struct Barrier {
    srcs: Vec<HostId>,
    dst: HostId,
    size: u64,
    gap: Duration,
    /// Flows of the current wave not finished yet.
    left: usize,
    /// Waves still to start.
    waves_left: u32,
    /// Waves whose every flow finished, and when the last of them did (its values in
    /// runs.csv: `traffic[I].waves_completed`, `traffic[I].last_barrier_ms`).
    waves_completed: u32,
    last_barrier: Option<incastsim::core::Time>,
}

impl TrafficReactor for Barrier {
    fn on_flow_finish(&mut self, done: &FinishedFlow, ctx: &mut ReactionContext) {
        self.left -= 1;
        if self.left > 0 {
            return;
        }
        self.waves_completed += 1;
        self.last_barrier = Some(done.finish);
        if self.waves_left == 0 {
            return;
        }
        self.waves_left -= 1;
        for &src in &self.srcs {
            // A refused flow (past run.max_sim_time, or the run's flow cap) is not waited for:
            // the waves end there.
            if ctx.sized_flow(src, self.dst, self.size, self.gap).is_ok() {
                self.left += 1;
            }
        }
        if self.left == 0 {
            self.waves_left = 0;
        }
    }

    fn values(&self, out: &mut [f64]) {
        let barrier_ms = self
            .last_barrier
            .map_or(f64::NAN, |t| t.as_secs_f64() * 1e3);
        out.copy_from_slice(&[f64::from(self.waves_completed), barrier_ms]);
    }
}
