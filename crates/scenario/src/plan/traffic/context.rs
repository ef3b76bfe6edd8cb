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

use super::depend::{ControlLatency, DeclaredGate, EntryGates, GateId};
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
    /// The gates this entry declares ([`super::depend`]).
    pub(crate) gates: EntryGates,
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
            gates: EntryGates::default(),
        }
    }

    /// The same, with this entry's gates numbered from `first_gate` (the gates earlier entries
    /// declared come first).
    pub(crate) fn with_first_gate(mut self, first_gate: GateId) -> TrafficContext<'a> {
        self.gates.first = first_gate;
        self
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

    /// The rack of host `h`: the node its (first) link leads to, its top-of-rack switch in a
    /// fat-tree or leaf-spine (hosts of one rack share it).
    pub fn rack_of(&self, h: HostId) -> u32 {
        self.place.racks.get(h as usize).copied().unwrap_or(h)
    }

    /// The host of gate `g`, one this entry declared.
    pub fn gate_host(&self, g: GateId) -> Option<HostId> {
        let local = g.checked_sub(self.gates.first)? as usize;
        self.gates.gates.get(local).map(|d| d.host)
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
            gate: None,
        }
    }

    /// Declares a gate at `host` ([`super::depend`]): it opens `delay` after every flow of
    /// `after_flows` has completed and every gate of `after_gates` has opened, each heard of
    /// after the entry's control latency when it happened at another host. `after_flows` are
    /// positions in the list this entry returns (sized flows without a stop, either not gated
    /// or gated on a gate declared before this one); `after_gates` are this entry's earlier
    /// gates. With both empty, it opens `delay` after the start of the run. The flows are
    /// checked when the entry's list is complete, the rest here (keys relative to the entry).
    pub fn gate(
        &mut self,
        host: HostId,
        delay: Duration,
        after_flows: &[usize],
        after_gates: &[GateId],
    ) -> Result<GateId, ConfigError> {
        let id = self.gates.first + self.gates.gates.len() as GateId;
        if host >= self.place.host_count {
            return Err(invalid(
                "gate",
                format!("gate {id} at host{host}"),
                format!("a host of the topology's {}", self.place.host_count),
            ));
        }
        if let Some(&g) = after_gates
            .iter()
            .find(|&&g| g < self.gates.first || g >= id)
        {
            return Err(invalid(
                "gate",
                format!("gate {id} waits for gate {g}"),
                "gates this entry declared before it",
            ));
        }
        let flow_refs = self.gates.flow_refs.len() as u32;
        self.gates.flow_refs.extend(
            after_flows
                .iter()
                .map(|&f| u32::try_from(f).unwrap_or(u32::MAX)),
        );
        let gate_refs = self.gates.gate_refs.len() as u32;
        self.gates.gate_refs.extend_from_slice(after_gates);
        self.gates.gates.push(DeclaredGate {
            host,
            delay,
            flows: (flow_refs, self.gates.flow_refs.len() as u32),
            gates: (gate_refs, self.gates.gate_refs.len() as u32),
        });
        Ok(id)
    }

    /// A flow of `bytes` bytes from `src` (the host of `gate`) to `dst` that starts when
    /// `gate` opens.
    pub fn gated_flow(&self, src: HostId, dst: HostId, gate: GateId, bytes: u64) -> GeneratedFlow {
        GeneratedFlow {
            generator: self.index as u32,
            src,
            dst,
            start: Time::ZERO,
            size: Some(bytes),
            stop: None,
            gate: Some(gate),
        }
    }

    /// How the news of a finished flow reaches a gate at another host (default
    /// [`ControlLatency::Path`]).
    pub fn set_control_latency(&mut self, latency: ControlLatency) {
        self.gates.latency = latency;
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
            gate: None,
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
    add_entry_flows(ctx, drawn, flows)?;
    Ok(generator.reactor(ctx)?.map(|reactor| ReactiveEntry {
        reactor,
        rng: ctx.rng.clone(),
    }))
}

/// Checks entry `ctx.index()`'s flows `drawn` and appends them to `flows`: two different hosts
/// of the topology, a positive size, a stop after the start, and its gates' rules
/// ([`super::depend`]); numbered as the entry's and put in start order (a stable sort: flows
/// starting together keep the generator's order), the gated ones last in the generator's
/// order. The gates' flow references become run-wide generated-flow indices. Returns where
/// each of `drawn` went (its index in `flows`).
pub(crate) fn add_entry_flows(
    ctx: &mut TrafficContext,
    drawn: Vec<GeneratedFlow>,
    flows: &mut Vec<GeneratedFlow>,
) -> Result<Vec<u32>, ConfigError> {
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
    let gates = &ctx.gates;
    let gate_count = gates.gates.len() as GateId;
    for (n, f) in drawn.iter().enumerate() {
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
        if let Some(g) = f.gate {
            let local = g.wrapping_sub(gates.first);
            if local >= gate_count {
                return Err(invalid(
                    &key,
                    flow(format!("gated on gate {g}")),
                    "a gate this entry declared",
                ));
            }
            let host = gates.gates[local as usize].host;
            if f.src != host || f.size.is_none() || f.stop.is_some() {
                return Err(invalid(
                    &key,
                    flow(format!(
                        "host{} -> host{} on gate {g} at host{host}",
                        f.src, f.dst
                    )),
                    "a sized flow without a stop, sent from its gate's host",
                ));
            }
        }
    }
    for (k, g) in gates.gates.iter().enumerate() {
        let id = gates.first + k as GateId;
        for &r in &gates.flow_refs[g.flows.0 as usize..g.flows.1 as usize] {
            let waited = drawn.get(r as usize);
            let ok = waited.is_some_and(|w| {
                w.size.is_some() && w.stop.is_none() && w.gate.is_none_or(|h| h < id)
            });
            if !ok {
                return Err(invalid(
                    &key,
                    format!("gate {id} waits for its flow {r}"),
                    format!(
                        "one of the entry's {} flows, sized, without a stop, not gated on this gate or a later one",
                        drawn.len()
                    ),
                ));
            }
        }
    }
    // Start order for the flows with a start time (a stable sort: the engine starts an entry's
    // flows one after another), then the gated ones in the generator's order; the gates'
    // references follow each flow to its place.
    let first = flows.len();
    let index = ctx.index as u32;
    let mut order: Vec<u32> = (0..drawn.len() as u32).collect();
    order.sort_by_key(|&i| {
        let f = &drawn[i as usize];
        (
            f.gate.is_some(),
            if f.gate.is_some() {
                Time::ZERO
            } else {
                f.start
            },
        )
    });
    let mut place = vec![0u32; drawn.len()];
    for (new, &old) in order.iter().enumerate() {
        place[old as usize] = (first + new) as u32;
    }
    flows.extend(order.iter().map(|&i| GeneratedFlow {
        generator: index,
        ..drawn[i as usize]
    }));
    for r in &mut ctx.gates.flow_refs {
        *r = place[*r as usize];
    }
    Ok(place)
}
