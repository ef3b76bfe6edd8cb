//! What a registered traffic generator sees and how its flows join the built-ins' ones.
//!
//! An entry `{kind: <registered name>, ...}` of `traffic:` is drawn at plan time like a built-in
//! entry: its generator gets a [`TrafficContext`] (the hosts through the same selectors as
//! `sources:`/`destinations:`, the run's arrival window, the MSS, the link rate, and its own
//! random stream) and returns its flows; [`draw_extension`] checks them (two different hosts of
//! the topology, a positive size, a stop after the start), numbers them as entry `index` and
//! puts them in start order. From then on they are [`GeneratedFlow`]s like any other: flows.csv
//! rows (with the generator's name as `kind`), FCT, ideal FCT and slowdown, `flow_overrides`
//! and `metrics.fairness.flows` selections (`traffic[I]`).

use super::reactive::TrafficReactor;
use super::{GeneratedFlow, HostList, LinkCapacity, MAX_GENERATED_FLOWS, Placement};
use crate::config::{ConfigError, invalid};
use incastsim_core::rng::Stream;
use incastsim_core::units::BitsPerSec;
use incastsim_core::{Duration, HostId, SimRng, Time};
use std::fmt::Debug;
use std::sync::Arc;

/// A registered generator with its parameters read, ready to draw the flows of one entry of
/// `traffic:` (the registry's `TrafficGeneratorExtension` behind a trait object).
pub trait PreparedTraffic: Send + Sync + Debug {
    /// The flows of the entry `ctx` describes. Errors name keys relative to the entry
    /// (`period`); the caller puts them under `traffic[I]`.
    fn generate(&self, ctx: &mut TrafficContext) -> Result<Vec<GeneratedFlow>, ConfigError>;
    /// The entry's run-time part if it is reactive (see [`super::reactive`]), asked once per
    /// run right after [`generate`](Self::generate) with the same context. Default: none.
    fn reactor(
        &self,
        ctx: &mut TrafficContext,
    ) -> Result<Option<Box<dyn TrafficReactor>>, ConfigError> {
        let _ = ctx;
        Ok(None)
    }
    /// Names of the values its reactor reports (`TrafficGeneratorExtension::VALUE_NAMES`).
    fn value_names(&self) -> &'static [&'static str] {
        &[]
    }
}

/// A reactive entry as the engine holds it: its reactor and its random stream (the entry's
/// `Stream::Workload`, continued after the plan-time draw).
pub struct ReactiveEntry {
    /// The generator's run-time part.
    pub reactor: Box<dyn TrafficReactor>,
    /// The entry's stream ([`super::reactive::ReactionContext::rng`]).
    pub rng: SimRng,
}

impl Debug for ReactiveEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReactiveEntry")
    }
}

/// Per entry of `traffic:`, its registered generator (`None` for a built-in `kind`).
pub type PreparedGenerators = [Option<Arc<dyn PreparedTraffic>>];

/// What a registered traffic generator draws its flows against: one entry of `traffic:` in one
/// run. Host lists are resolved as the built-ins' `sources:`/`destinations:` are
/// ([`TrafficContext::hosts`]); randomness comes only from [`TrafficContext::rng`], the entry's
/// own stream, so a generator cannot shift any other component's draws.
pub struct TrafficContext<'a> {
    index: usize,
    place: &'a Placement<'a>,
    capacity: LinkCapacity<'a>,
    duration: Option<Duration>,
    mss: u32,
    link_rate: BitsPerSec,
    rng: SimRng,
}

impl<'a> TrafficContext<'a> {
    /// The context of entry `index` in a run seeded with `seed`: its stream is
    /// `Stream::Workload` with instance `index`, the one a built-in entry at that index draws
    /// from (so replacing a built-in entry by an extension, or adding one, leaves every other
    /// entry's flows as they were).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        index: usize,
        seed: u64,
        place: &'a Placement<'a>,
        capacity: LinkCapacity<'a>,
        duration: Option<Duration>,
        mss: u32,
        link_rate: BitsPerSec,
    ) -> TrafficContext<'a> {
        TrafficContext {
            index,
            place,
            capacity,
            duration,
            mss,
            link_rate,
            rng: SimRng::for_stream(seed, Stream::Workload, index as u64),
        }
    }

    /// The entry's index in `traffic:` (flows.csv's `generator`, `traffic[I]` selections).
    pub fn index(&self) -> usize {
        self.index
    }

    /// The hosts a host list names (`all`, `senders`, `receiver`, `sender:I-J`, `host:I`,
    /// `other:I`, ..., as in the built-ins' `sources:`), in order, without repeats; `key` (relative
    /// to the entry, e.g. `"sources"`) names it in errors.
    pub fn hosts(&self, list: &HostList, key: &str) -> Result<Vec<HostId>, ConfigError> {
        self.place.hosts(list, key)
    }

    /// The one host `name` names (`receiver`, `host:3`); `key` names it in errors.
    pub fn host(&self, name: &str, key: &str) -> Result<HostId, ConfigError> {
        self.place.host(name, key)
    }

    /// Hosts in the topology (host ids are `0..host_count`).
    pub fn host_count(&self) -> u32 {
        self.place.host_count
    }

    /// The placed senders (what `senders` selects).
    pub fn senders(&self) -> &[HostId] {
        self.place.servers
    }

    /// The placed receivers (what `receiver` selects).
    pub fn receivers(&self) -> &[HostId] {
        self.place.clients
    }

    /// The run's arrival window: the workload's `duration` (bulk or traffic workloads, where
    /// the built-in Poisson arrivals stop by default), `None` with synchronized reads.
    pub fn duration(&self) -> Option<Duration> {
        self.duration
    }

    /// The connections' maximum segment size (`tcp.mss`), bytes.
    pub fn mss(&self) -> u32 {
        self.mss
    }

    /// The topology's link rate (`topology.link_rate`).
    pub fn link_rate(&self) -> BitsPerSec {
        self.link_rate
    }

    /// The capacity of the links into `hosts`, bits/s (what a built-in Poisson entry's `load`
    /// refers to without `load_link`).
    pub fn capacity_into(&self, hosts: &[HostId]) -> f64 {
        (self.capacity)(None, hosts).unwrap_or(0.0)
    }

    /// The capacity of output port `name` (`"switch0->host16"`), bits/s, if there is one.
    pub fn port_capacity(&self, name: &str) -> Option<f64> {
        (self.capacity)(Some(name), &[])
    }

    /// The entry's own random stream (derived from the run seed and the entry's index).
    pub fn rng(&mut self) -> &mut SimRng {
        &mut self.rng
    }

    /// A flow of `bytes` bytes from `src` to `dst` starting at `start` (it completes when the
    /// last byte is delivered: FCT and slowdown in flows.csv).
    pub fn sized_flow(&self, src: HostId, dst: HostId, start: Time, bytes: u64) -> GeneratedFlow {
        GeneratedFlow {
            generator: self.index as u32,
            src,
            dst,
            start,
            size: Some(bytes),
            stop: None,
        }
    }

    /// A flow that always has data from `start` until `stop` (or the end of the run), as the
    /// built-in `long_lived` and `staggered` entries draw.
    pub fn backlogged_flow(
        &self,
        src: HostId,
        dst: HostId,
        start: Time,
        stop: Option<Time>,
    ) -> GeneratedFlow {
        GeneratedFlow {
            generator: self.index as u32,
            src,
            dst,
            start,
            size: None,
            stop,
        }
    }
}

/// Draws entry `ctx.index()` with `generator` and appends its flows to `flows`: each checked
/// (errors under `traffic[I]`, naming the flow), numbered as the entry's, in start order (a
/// stable sort: flows starting together keep the generator's order). Returns the entry's
/// reactive part, if the generator has one (asked after the draw, so its stream continues
/// where the draw left it).
pub fn draw_extension(
    generator: &dyn PreparedTraffic,
    ctx: &mut TrafficContext,
    flows: &mut Vec<GeneratedFlow>,
) -> Result<Option<ReactiveEntry>, ConfigError> {
    let drawn = generator.generate(ctx)?;
    let key = format!("traffic[{}]", ctx.index);
    let total = flows.len() as u64 + drawn.len() as u64;
    if total > MAX_GENERATED_FLOWS {
        return Err(invalid(
            "traffic",
            total,
            format!("at most {MAX_GENERATED_FLOWS} flows in all"),
        ));
    }
    let hosts = ctx.host_count();
    let first = flows.len();
    for (n, mut f) in drawn.into_iter().enumerate() {
        let flow = |what: String| format!("its flow {n} ({what})");
        if f.src >= hosts || f.dst >= hosts || f.src == f.dst {
            return Err(invalid(
                &key,
                flow(format!("host{} -> host{}", f.src, f.dst)),
                format!("flows between two different hosts of the topology's {hosts}"),
            ));
        }
        if f.size == Some(0) {
            return Err(invalid(&key, flow("size 0".into()), "at least 1 byte"));
        }
        if let Some(stop) = f.stop
            && stop <= f.start
        {
            return Err(invalid(
                &key,
                flow(format!("start {}, stop {}", f.start, stop)),
                "a stop after the start",
            ));
        }
        f.generator = ctx.index as u32;
        flows.push(f);
    }
    // The engine starts an entry's flows one after another: they must be in start order.
    flows[first..].sort_by_key(|f| f.start);
    Ok(generator.reactor(ctx)?.map(|reactor| ReactiveEntry {
        reactor,
        rng: ctx.rng.clone(),
    }))
}
