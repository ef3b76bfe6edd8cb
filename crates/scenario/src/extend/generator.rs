//! The traffic-generator extension point: [`TrafficGeneratorExtension`], and the prepared form
//! the plan draws with ([`PreparedTraffic`]).

use super::{ExtensionParams, read_params, under};
use crate::config::ConfigError;
use crate::traffic::{GeneratedFlow, PreparedTraffic, TrafficContext};
use std::fmt::Debug;
use std::sync::Arc;

/// A traffic generator from outside incastsim (who sends what, when), selected by its name as
/// the `kind` of an entry of `traffic:`, beside its parameters:
/// `traffic: [{kind: incast_bursts, period: 1ms, size: 64KB}]`.
///
/// It is drawn at plan time, as the built-in generators are: [`generate`](Self::generate)
/// returns every flow of the entry, built with [`TrafficContext::sized_flow`] (a flow that
/// completes: FCT and slowdown in flows.csv) or [`TrafficContext::backlogged_flow`] (always
/// has data until its stop). The context resolves host lists with the built-ins' selectors
/// (declare a [`crate::traffic::HostList`] parameter, e.g. `sources`, and call
/// [`TrafficContext::hosts`]), gives the arrival window, MSS and link rate, and the entry's own
/// random stream (`Stream::Workload`, instance = the entry's index). The flows are checked
/// (two different hosts, a positive size, a stop after the start) and put in start order;
/// after that they are generated flows like any other (flows.csv rows with the registered name
/// as `kind`, FCT, ideal FCT, slowdown, `flow_overrides` and `traffic[I]` selections).
///
/// Determinism: `generate` sees only its parameters and the context, so a (config, seed) pair
/// draws the same flows on any thread.
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
}

/// Generator `T` registered as `name`, its parameters `params` (found under `key`) read.
pub(super) fn prepare<T: TrafficGeneratorExtension>(
    name: &'static str,
    key: &str,
    params: &serde_json::Map<String, serde_json::Value>,
) -> Result<Arc<dyn PreparedTraffic>, ConfigError> {
    let params = read_params::<T::Params>(key, params)?;
    Ok(Arc::new(TrafficWith::<T> { name, params }))
}
