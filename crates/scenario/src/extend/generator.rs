//! The traffic-generator extension point: [`TrafficGeneratorExtension`], and the prepared form
//! the plan draws with ([`PreparedTraffic`]).

use super::{
    Catalog, Codec, ExtensionParams, ExtensionPoint, Extensions, Registered,
    prepare as prepare_choice, read_params, under, unknown_name,
};
use crate::config::ConfigError;
use crate::plan::traffic::{GeneratedFlow, PreparedTraffic, TrafficContext, TrafficReactor};
use std::fmt::Debug;
use std::marker::PhantomData;
use std::sync::Arc;

/// A traffic generator from outside incastsim (who sends what, when), selected by its name as
/// the `kind` of an entry of `traffic:`, beside its parameters:
/// `traffic: [{kind: incast_bursts, period: 1ms, size: 64KB}]`.
///
/// It is drawn at plan time, as the built-in generators are: [`generate`](Self::generate)
/// returns every flow of the entry, built with [`TrafficContext::sized_flow`] (a flow that
/// completes: FCT and slowdown in flows.csv) or [`TrafficContext::backlogged_flow`] (always
/// has data until its stop). The context resolves host lists with the built-ins' selectors
/// (declare a [`crate::plan::traffic::HostList`] parameter, e.g. `sources`, and call
/// [`TrafficContext::hosts`]), gives the arrival window, MSS and link rate, and the entry's own
/// random stream (`Stream::Workload`, instance = the entry's index). The flows are checked
/// (two different hosts, a positive size, a stop after the start) and put in start order;
/// after that they are generated flows like any other (flows.csv rows with the registered name
/// as `kind`, FCT, ideal FCT, slowdown, `flow_overrides` and `traffic[I]` selections).
///
/// Determinism: `generate` sees only its parameters and the context, so a (config, seed) pair
/// draws the same flows on any thread.
///
/// **Reactive generators.** A generator whose flows depend on when others finish (incast
/// waves behind a barrier, the steps of a collective) also implements
/// [`reactor`](Self::reactor): its [`TrafficReactor`] hears of each of the entry's sized flows
/// finishing and adds flows then ([`crate::plan::traffic::ReactionContext`], whose
/// constructors refuse a bad flow instead of adding it; see
/// [`crate::plan::traffic::reactive`] for the bounds: `run.max_sim_time`, the run's flow cap).
pub trait TrafficGeneratorExtension: 'static {
    /// Its parameters (everything beside `kind` in its entry of `traffic:`).
    type Params: ExtensionParams;
    /// One line for `incastsim components`.
    const DESCRIPTION: &'static str;
    /// Checks the parameters while the config loads (keys relative to the entry:
    /// `invalid("period", 0, "a positive duration")` reads `traffic[0].period = 0: ...`).
    fn check(_params: &Self::Params) -> Result<(), ConfigError> {
        Ok(())
    }
    /// Every flow of the entry `ctx` describes. Errors that need the topology (a host list
    /// naming hosts that are not there) name keys relative to the entry, as in
    /// [`check`](Self::check).
    fn generate(
        params: &Self::Params,
        ctx: &mut TrafficContext,
    ) -> Result<Vec<GeneratedFlow>, ConfigError>;
    /// The entry's run-time part, for a generator that adds flows while the run goes: asked
    /// once per run right after [`generate`](Self::generate), with the same context (its
    /// random stream continues into the reactor's [`crate::plan::traffic::ReactionContext::rng`]).
    /// Default: `None`, an open-loop generator (the run pays nothing).
    fn reactor(
        params: &Self::Params,
        ctx: &mut TrafficContext,
    ) -> Result<Option<Box<dyn TrafficReactor>>, ConfigError> {
        let _ = (params, ctx);
        Ok(None)
    }
    /// Names of values of its own its reactor reports at the end of the run
    /// ([`TrafficReactor::values`], in this order): runs.csv columns `traffic[I].<name>`,
    /// declared before the run so that sweeps keep them (empty where the entry has no
    /// reactor). Default: none.
    const VALUE_NAMES: &'static [&'static str] = &[];
}

impl Extensions {
    /// Registers traffic generator `T` as `name` (`traffic: [{kind: <name>, ...}]`; see
    /// [`TrafficGeneratorExtension`]).
    pub fn traffic_generator<T: TrafficGeneratorExtension>(
        mut self,
        name: &'static str,
    ) -> Extensions {
        self.refuse_taken(ExtensionPoint::TrafficGenerator, name);
        self.traffic_generators.push(Registered {
            info: self.info(ExtensionPoint::TrafficGenerator, name, T::DESCRIPTION),
            codec: Arc::new(Codec::<T::Params> {
                check: T::check,
                _params: PhantomData,
            }),
            prepare: Some(prepare::<T>),
        });
        self
    }

    /// Per entry of `cfg.traffic`, its registered generator ready to draw (`None` for a
    /// built-in `kind`); an unknown name or unreadable parameters are errors under
    /// `traffic[I]`.
    pub fn prepare_traffic(
        &self,
        cfg: &crate::Config,
    ) -> Result<Vec<Option<Arc<dyn PreparedTraffic>>>, ConfigError> {
        cfg.traffic
            .iter()
            .enumerate()
            .map(|(i, t)| match t {
                crate::plan::traffic::TrafficConfig::Extension(choice) => {
                    // The name is the entry's `kind`: an unknown one is blamed on that key.
                    let names = self.names(ExtensionPoint::TrafficGenerator);
                    if !names.contains(&choice.name.as_str()) {
                        let key = format!("traffic[{i}].kind");
                        let point = ExtensionPoint::TrafficGenerator;
                        return Err(unknown_name(point, &key, &choice.name, &names));
                    }
                    prepare_choice(
                        &self.traffic_generators,
                        ExtensionPoint::TrafficGenerator,
                        &format!("traffic[{i}]"),
                        choice,
                    )
                    .map(Some)
                }
                _ => Ok(None),
            })
            .collect()
    }
}

struct TrafficWith<T: TrafficGeneratorExtension> {
    name: &'static str,
    params: T::Params,
}

impl<T: TrafficGeneratorExtension> Debug for TrafficWith<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {:?}", self.name, self.params)
    }
}

impl<T: TrafficGeneratorExtension> PreparedTraffic for TrafficWith<T> {
    fn generate(&self, ctx: &mut TrafficContext) -> Result<Vec<GeneratedFlow>, ConfigError> {
        let key = format!("traffic[{}]", ctx.index());
        T::generate(&self.params, ctx).map_err(|e| under(&key, e))
    }
    fn reactor(
        &self,
        ctx: &mut TrafficContext,
    ) -> Result<Option<Box<dyn TrafficReactor>>, ConfigError> {
        let key = format!("traffic[{}]", ctx.index());
        T::reactor(&self.params, ctx).map_err(|e| under(&key, e))
    }
    fn value_names(&self) -> &'static [&'static str] {
        T::VALUE_NAMES
    }
}

/// Generator `T` registered as `name`, its parameters `params` (found under `key`) read.
fn prepare<T: TrafficGeneratorExtension>(
    name: &'static str,
    key: &str,
    params: &serde_json::Map<String, serde_json::Value>,
) -> Result<Arc<dyn PreparedTraffic>, ConfigError> {
    let params = read_params::<T::Params>(key, params)?;
    Ok(Arc::new(TrafficWith::<T> { name, params }))
}
