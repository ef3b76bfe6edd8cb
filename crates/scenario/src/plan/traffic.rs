//! Traffic beyond the main workload, composable in one run: long-lived flows, flows arriving as a
//! Poisson process at a target load, flows started one after another for fixed durations, and a
//! random permutation of fixed-size flows (each host sends at most one and receives at most one).
//!
//! Every flow of every generator is drawn at build time from the generator's own RNG stream
//! (`Stream::Workload`, index = generator), so each flow is a preallocated connection, adding a
//! generator never changes another generator's flows, and the event heap holds one pending
//! start per generator (each start schedules the next).
//!
//! An entry whose `kind` is a registered generator (a downstream crate's
//! `TrafficGeneratorExtension`) is drawn the same way, by the generator itself, from the same
//! stream ([`context`]: [`TrafficContext`], [`draw_extension`]).
//!
//! Also here: the ideal flow-completion time (the flow alone on its path), the denominator of
//! slowdown.

pub mod collective;
pub mod context;
pub mod depend;
pub mod reactive;

use crate::config::{Config, ConfigError, WorkloadConfig, invalid};
use crate::plan::cdf::EmpiricalCdf;
use crate::units::Dur;
pub use context::{
    PreparedGenerators, PreparedTraffic, ReactiveEntry, TrafficContext, draw_extension,
};
pub use incastsim_config::traffic::{DurList, HostList, SizeDistConfig, TrafficConfig};
use incastsim_core::rng::Stream;
use incastsim_core::{Duration, HostId, SimRng, Time};
pub use reactive::{FinishedFlow, ReactionContext, RefusedFlow, TrafficReactor};

/// The shipped flow-size CDFs (embedded, so configs need no file path). The files in
/// `crates/scenario/workloads/` are links to `configs/workloads/`, so the published crate
/// carries them.
pub const BUILTIN_CDFS: &[(&str, &str)] = &[
    ("websearch", include_str!("../../workloads/websearch.cdf")),
    ("datamining", include_str!("../../workloads/datamining.cdf")),
    ("hadoop", include_str!("../../workloads/hadoop.cdf")),
];

/// A sampler for a [`SizeDistConfig`].
#[derive(Clone, Debug)]
pub enum SizeDist {
    /// Every flow this many bytes.
    Fixed(u64),
    /// Uniform on [low, high] bytes, integers.
    Uniform(u64, u64),
    /// An empirical CDF (websearch, datamining, hadoop or a file).
    Cdf(EmpiricalCdf),
}

impl SizeDist {
    /// The distribution `c` describes; `key` names it in errors.
    pub fn from_config(c: &SizeDistConfig, key: &str) -> Result<SizeDist, ConfigError> {
        match c {
            SizeDistConfig::Fixed { size } if size.0 == 0 => {
                Err(invalid(&format!("{key}.size"), size.0, "at least 1 byte"))
            }
            SizeDistConfig::Fixed { size } => Ok(SizeDist::Fixed(size.0)),
            SizeDistConfig::Uniform { min, max } if min.0 == 0 || max.0 < min.0 => Err(invalid(
                &format!("{key}.min/max"),
                format!("{}..{}", min.0, max.0),
                "1 <= min <= max bytes",
            )),
            SizeDistConfig::Uniform { min, max } => Ok(SizeDist::Uniform(min.0, max.0)),
            SizeDistConfig::Cdf { file } => {
                let cdf = match BUILTIN_CDFS.iter().find(|(n, _)| n == file) {
                    Some((_, text)) => EmpiricalCdf::parse(text),
                    None => EmpiricalCdf::load(std::path::Path::new(file)),
                };
                cdf.map(SizeDist::Cdf).map_err(|e| {
                    invalid(
                        &format!("{key}.file"),
                        file,
                        format!("websearch, datamining, hadoop or a readable CDF file ({e})"),
                    )
                })
            }
        }
    }

    /// Expected size in bytes.
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Fixed(s) => *s as f64,
            SizeDist::Uniform(a, b) => (*a as f64 + *b as f64) / 2.0,
            SizeDist::Cdf(c) => c.mean(),
        }
    }

    /// One flow size, bytes (at least 1), drawn from `rng`.
    pub fn sample(&self, rng: &mut SimRng) -> u64 {
        match self {
            SizeDist::Fixed(s) => *s,
            SizeDist::Uniform(a, b) => rng.range_inclusive(*a, *b),
            SizeDist::Cdf(c) => c.sample(rng).max(1),
        }
    }
}

/// Where the named hosts are: the topology's hosts, the placed senders and receivers.
pub struct Placement<'a> {
    /// Hosts in the topology.
    pub host_count: u32,
    /// The placed senders (`senders`, `sender:I` in host lists).
    pub servers: &'a [HostId],
    /// The placed receivers (`receiver`, `receiver:I`).
    pub clients: &'a [HostId],
    /// Per host, its rack: the node its first link leads to (empty: each host its own).
    pub racks: &'a [u32],
}

const HOST_FORMS: &str = "all, senders, receiver, sender:I, sender:I-J, receiver:I, host:I, host:I-J, other:I or other:I-J (hosts neither sender nor receiver, e.g. a star's extra_hosts)";

fn range(spec: &str, len: u32) -> Option<std::ops::Range<u32>> {
    let (a, b) = match spec.split_once('-') {
        Some((a, b)) => (a.trim().parse().ok()?, b.trim().parse().ok()?),
        None => {
            let a: u32 = spec.trim().parse().ok()?;
            (a, a)
        }
    };
    (a <= b && b < len).then_some(a..b + 1)
}

impl Placement<'_> {
    /// The hosts of one entry, or `None` if it does not parse or names a host that is not there.
    fn entry(&self, e: &str) -> Option<Vec<HostId>> {
        let e = e.trim();
        match e {
            "all" => return Some((0..self.host_count).collect()),
            "senders" => return Some(self.servers.to_vec()),
            "receiver" | "receivers" => return Some(self.clients.to_vec()),
            _ => {}
        }
        let (kind, spec) = e.split_once(':')?;
        match kind.trim() {
            "sender" => Some(
                range(spec, self.servers.len() as u32)?
                    .map(|i| self.servers[i as usize])
                    .collect(),
            ),
            "receiver" => Some(
                range(spec, self.clients.len() as u32)?
                    .map(|i| self.clients[i as usize])
                    .collect(),
            ),
            "host" => Some(range(spec, self.host_count)?.collect()),
            "other" => {
                let mut taken = vec![false; self.host_count as usize];
                for &h in self.servers.iter().chain(self.clients.iter()) {
                    taken[h as usize] = true;
                }
                let others: Vec<HostId> = (0..self.host_count)
                    .filter(|&h| !taken[h as usize])
                    .collect();
                Some(
                    range(spec, others.len() as u32)?
                        .map(|i| others[i as usize])
                        .collect(),
                )
            }
            _ => None,
        }
    }

    /// The hosts of a list, in order, without repeats (linear in the hosts: a list over a
    /// million senders resolves at once).
    pub fn hosts(&self, list: &HostList, key: &str) -> Result<Vec<HostId>, ConfigError> {
        let mut out: Vec<HostId> = Vec::new();
        let mut seen = vec![false; self.host_count as usize];
        for e in &list.0 {
            let hosts = self.entry(e).ok_or_else(|| {
                invalid(
                    key,
                    e,
                    format!(
                        "{HOST_FORMS} ({} hosts, {} senders, {} receivers)",
                        self.host_count,
                        self.servers.len(),
                        self.clients.len()
                    ),
                )
            })?;
            for h in hosts {
                if !std::mem::replace(&mut seen[h as usize], true) {
                    out.push(h);
                }
            }
        }
        if out.is_empty() {
            return Err(invalid(key, "[]", "at least one host"));
        }
        Ok(out)
    }

    /// The one host `name` names (`host:3`, `sender:0`, `receiver`); `key` names it in errors.
    pub fn host(&self, name: &str, key: &str) -> Result<HostId, ConfigError> {
        let hosts = self.hosts(&HostList(vec![name.into()]), key)?;
        if hosts.len() != 1 {
            return Err(invalid(key, name, "exactly one host"));
        }
        Ok(hosts[0])
    }
}

/// A flow drawn by a traffic generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeneratedFlow {
    /// Index of its generator in `traffic:`.
    pub generator: u32,
    /// The sending host.
    pub src: HostId,
    /// The receiving host.
    pub dst: HostId,
    /// When it starts.
    pub start: Time,
    /// Bytes to send, or `None` for a flow that always has data.
    pub size: Option<u64>,
    /// When the application stops writing (fixed-duration flows).
    pub stop: Option<Time>,
    /// The gate it waits for ([`depend`]): it starts when that gate opens, and `start` is
    /// then set to that time. `None`: it starts at `start`.
    pub gate: Option<depend::GateId>,
}

/// Most flows one run may preallocate (about 2 KB each); also the cap on a run's generated
/// flows with those reactive generators add while it runs ([`reactive`]).
pub const MAX_GENERATED_FLOWS: u64 = 2_000_000;

/// What the traffic generators drew at plan time.
#[derive(Debug, Default)]
pub struct Drawn {
    /// Every generated flow, in entry and start order.
    pub flows: Vec<GeneratedFlow>,
    /// Per entry of `traffic:`, its reactive part if it has one; empty when no entry does (so
    /// the engine tests one empty list per completion).
    pub reactive: Vec<Option<ReactiveEntry>>,
    /// Per entry whose generator declares values of its own (`PreparedTraffic::value_names`):
    /// its index and the names (runs.csv columns `traffic[I].<name>`).
    pub value_names: Vec<(u32, &'static [&'static str])>,
    /// The gates the generators declared and who waits for what ([`depend`]; empty without).
    pub dependencies: depend::Dependencies,
    /// The collective jobs (entries of kind `collective` or `goal`), in entry order.
    pub collectives: Vec<collective::CollectiveJob>,
}

/// Capacity of the reference links of a Poisson generator, bits/s.
pub type LinkCapacity<'a> = &'a dyn Fn(Option<&str>, &[HostId]) -> Option<f64>;

/// Arrival rate (flows/s) for a Poisson generator: load × capacity / (8 × mean size).
pub fn poisson_rate(load: f64, capacity_bps: f64, mean_size_bytes: f64) -> f64 {
    load * capacity_bps / (8.0 * mean_size_bytes)
}

/// The end of arrivals of a Poisson generator with no `stop`: the workload's duration.
fn default_stop(cfg: &Config) -> Option<Duration> {
    match &cfg.workload {
        WorkloadConfig::Bulk { duration, .. } | WorkloadConfig::Traffic { duration, .. } => {
            Some(duration.0)
        }
        WorkloadConfig::SynchronizedReads { .. } => None,
    }
}

/// A generator being drawn: its index (error keys, RNG stream, [`GeneratedFlow::generator`]) and
/// what it draws against: the run's seed, the config (the default end of Poisson arrivals), where
/// named hosts are and the capacity of links.
struct Generator<'a> {
    index: usize,
    seed: u64,
    cfg: &'a Config,
    place: &'a Placement<'a>,
    capacity: LinkCapacity<'a>,
}

impl<'a> Generator<'a> {
    /// The config key `k` of this generator, as errors name it: `traffic[I].k`.
    fn key(&self, k: &str) -> String {
        format!("traffic[{}].{k}", self.index)
    }

    /// The context a registered generator at this entry would get (built-ins that declare
    /// gates use the same API), its gates numbered from `next_gate`.
    fn context(&self, next_gate: &mut depend::GateId) -> TrafficContext<'a> {
        TrafficContext::new(
            self.index,
            self.seed,
            self.place,
            self.capacity,
            default_stop(self.cfg),
            self.cfg.tcp.mss.0 as u32,
            self.cfg.topology.links().link_rate.0,
        )
        .with_first_gate(*next_gate)
    }
}

/// Draws every flow of every generator (validating the generators on the way). `capacity`
/// gives the capacity of a named port, or of the links into a set of hosts; `prepared` holds,
/// per entry, the registered generator of an entry whose `kind` is not built in (an empty
/// slice when no entry names one).
pub fn generate(
    cfg: &Config,
    seed: u64,
    place: &Placement,
    capacity: LinkCapacity,
    prepared: &PreparedGenerators,
) -> Result<Drawn, ConfigError> {
    let mut flows = Vec::new();
    let mut reactive: Vec<Option<ReactiveEntry>> = Vec::new();
    let mut value_names = Vec::new();
    // Per entry that declared gates: its declarations (gate ids run on across entries).
    let mut gates: Vec<(usize, depend::EntryGates)> = Vec::new();
    let mut next_gate: depend::GateId = 0;
    let mut collectives = Vec::new();
    for (g, t) in cfg.traffic.iter().enumerate() {
        let generator = Generator {
            index: g,
            seed,
            cfg,
            place,
            capacity,
        };
        match t {
            TrafficConfig::LongLived {
                from,
                to,
                count,
                start,
                stop,
            } => long_lived(&generator, from, to, *count, *start, *stop, &mut flows)?,
            TrafficConfig::Staggered {
                from,
                to,
                start,
                interval,
                duration,
            } => staggered(
                &generator, from, to, *start, *interval, duration, &mut flows,
            )?,
            TrafficConfig::Poisson {
                load,
                sizes,
                sources,
                destinations,
                load_link,
                start,
                stop,
            } => poisson(
                &generator,
                *load,
                sizes,
                sources,
                destinations,
                load_link.as_deref(),
                *start,
                *stop,
                &mut flows,
            )?,
            TrafficConfig::Permutation {
                flows: count,
                size,
                sources,
                destinations,
                start,
                start_jitter,
            } => permutation(
                &generator,
                *count,
                size.0,
                sources,
                destinations,
                *start,
                *start_jitter,
                &mut flows,
            )?,
            TrafficConfig::Incast {
                load,
                fan_in,
                size,
                sources,
                destinations,
                load_link,
                start,
                stop,
                start_jitter,
            } => incast(
                &generator,
                IncastSpec {
                    load: *load,
                    fan_in: *fan_in,
                    size: size.0,
                    sources,
                    destinations,
                    load_link: load_link.as_deref(),
                    start: *start,
                    stop: *stop,
                    start_jitter: *start_jitter,
                },
                &mut flows,
            )?,
            TrafficConfig::Collective { .. } | TrafficConfig::Goal { .. } => {
                let mut ctx = generator.context(&mut next_gate);
                let job = collective::draw(t, &mut ctx, &mut flows)?;
                collectives.push(job);
                if !ctx.gates.gates.is_empty() {
                    next_gate += ctx.gates.gates.len() as depend::GateId;
                    gates.push((g, std::mem::take(&mut ctx.gates)));
                }
            }
            TrafficConfig::Extension(choice) => {
                let Some(Some(extension)) = prepared.get(g) else {
                    return Err(crate::config::extension::unknown_name(
                        crate::config::extension::ExtensionPoint::TrafficGenerator,
                        &generator.key("kind"),
                        &choice.name,
                        &[],
                    ));
                };
                let mut ctx = TrafficContext::new(
                    g,
                    seed,
                    place,
                    capacity,
                    default_stop(cfg),
                    cfg.tcp.mss.0 as u32,
                    cfg.topology.links().link_rate.0,
                )
                .with_first_gate(next_gate);
                if !extension.value_names().is_empty() {
                    value_names.push((g as u32, extension.value_names()));
                }
                if let Some(entry) = draw_extension(extension.as_ref(), &mut ctx, &mut flows)? {
                    reactive.resize_with(cfg.traffic.len(), || None);
                    reactive[g] = Some(entry);
                }
                if !ctx.gates.gates.is_empty() {
                    next_gate += ctx.gates.gates.len() as depend::GateId;
                    gates.push((g, std::mem::take(&mut ctx.gates)));
                }
            }
        }
        if flows.len() as u64 > MAX_GENERATED_FLOWS {
            return Err(too_many_flows(flows.len()));
        }
    }
    let dependencies = depend::Dependencies::build(&flows, gates, cfg.traffic.len());
    Ok(Drawn {
        flows,
        reactive,
        value_names,
        dependencies,
        collectives,
    })
}

/// A `long_lived` generator: `count` always-backlogged flows from each host of `from` to `to`,
/// all starting at `start` (draws nothing from the RNG).
fn long_lived(
    generator: &Generator,
    from: &HostList,
    to: &str,
    count: u32,
    start: Dur,
    stop: Option<Dur>,
    flows: &mut Vec<GeneratedFlow>,
) -> Result<(), ConfigError> {
    if count == 0 || count > 10_000 {
        return Err(invalid(
            &generator.key("count"),
            count,
            "1 to 10000 flows per source",
        ));
    }
    let dst = generator.place.host(to, &generator.key("to"))?;
    let srcs = generator.place.hosts(from, &generator.key("from"))?;
    if let Some(stop) = stop
        && stop.0 <= start.0
    {
        return Err(invalid(
            &generator.key("stop"),
            stop.0,
            "a time after `start`",
        ));
    }
    // The cap before the flows exist, not after (a long list of sources × count).
    let total = flows.len() as u64 + srcs.len() as u64 * count as u64;
    if total > MAX_GENERATED_FLOWS {
        return Err(too_many_flows(total as usize));
    }
    for src in srcs {
        if src == dst {
            return Err(invalid(
                &generator.key("from"),
                src,
                "hosts other than `to`",
            ));
        }
        for _ in 0..count {
            flows.push(GeneratedFlow {
                generator: generator.index as u32,
                src,
                dst,
                start: Time::ZERO + start.0,
                size: None,
                stop: stop.map(|s| Time::ZERO + s.0),
                gate: None,
            });
        }
    }
    Ok(())
}

/// A `staggered` generator: flow i from the i-th host of `from` to `to`, starting at
/// start + i·interval and sending for its duration (draws nothing from the RNG).
fn staggered(
    generator: &Generator,
    from: &HostList,
    to: &str,
    start: Dur,
    interval: Dur,
    duration: &DurList,
    flows: &mut Vec<GeneratedFlow>,
) -> Result<(), ConfigError> {
    let dst = generator.place.host(to, &generator.key("to"))?;
    let srcs = generator.place.hosts(from, &generator.key("from"))?;
    if duration.0.len() != 1 && duration.0.len() != srcs.len() {
        return Err(invalid(
            &generator.key("duration"),
            format!("{} values", duration.0.len()),
            format!("one duration, or one per flow ({})", srcs.len()),
        ));
    }
    if let Some(d) = duration.0.iter().find(|d| d.0 == Duration::ZERO) {
        return Err(invalid(
            &generator.key("duration"),
            d.0,
            "positive durations",
        ));
    }
    for (i, src) in srcs.into_iter().enumerate() {
        if src == dst {
            return Err(invalid(
                &generator.key("from"),
                src,
                "hosts other than `to`",
            ));
        }
        let duration = duration.0[i.min(duration.0.len() - 1)];
        let at = Time::ZERO + start.0 + Duration(interval.0.0 * i as u64);
        flows.push(GeneratedFlow {
            generator: generator.index as u32,
            src,
            dst,
            start: at,
            size: None,
            stop: Some(at + duration.0),
            gate: None,
        });
    }
    Ok(())
}

/// More generated flows than one run may hold.
fn too_many_flows(count: usize) -> ConfigError {
    invalid(
        "traffic",
        count,
        format!("at most {MAX_GENERATED_FLOWS} flows in all"),
    )
}

/// The end of a Poisson generator's arrivals: its `stop`, else the workload's duration; it must
/// come after `start`.
fn poisson_stop(
    generator: &Generator,
    start: Dur,
    stop: Option<Dur>,
) -> Result<Duration, ConfigError> {
    match stop.map(|s| s.0).or_else(|| default_stop(generator.cfg)) {
        Some(s) if s > start.0 => Ok(s),
        Some(s) => Err(invalid(&generator.key("stop"), s, "a time after `start`")),
        None => Err(invalid(
            &generator.key("stop"),
            "(none)",
            "an end of arrivals (required with synchronized_reads)",
        )),
    }
}

/// A `poisson` generator: checks its settings, then draws its arrivals in [start, stop) from
/// the generator's own stream (per arrival: the gap, the source, the destination until it
/// differs from the source, then the size). Its arguments are the fields of
/// [`TrafficConfig::Poisson`].
#[allow(clippy::too_many_arguments)]
fn poisson(
    generator: &Generator,
    load: f64,
    sizes: &SizeDistConfig,
    sources: &HostList,
    destinations: &HostList,
    load_link: Option<&str>,
    start: Dur,
    stop: Option<Dur>,
    flows: &mut Vec<GeneratedFlow>,
) -> Result<(), ConfigError> {
    check_load(generator, load)?;
    let dist = SizeDist::from_config(sizes, &generator.key("sizes"))?;
    let srcs = generator.place.hosts(sources, &generator.key("sources"))?;
    let dsts = generator
        .place
        .hosts(destinations, &generator.key("destinations"))?;
    if srcs.len() == 1 && dsts == srcs {
        return Err(invalid(
            &generator.key("destinations"),
            dsts[0],
            "a host other than the only source",
        ));
    }
    // Every source needs a destination other than itself, or drawing one never ends.
    if let Some(&lonely) = srcs.iter().find(|&&s| dsts.iter().all(|&d| d == s)) {
        return Err(invalid(
            &generator.key("destinations"),
            destinations.0.join(", "),
            format!(
                "a host other than each source: host{lonely} is among the sources and is the only destination (e.g. sources: senders, destinations: receiver)"
            ),
        ));
    }
    let capacity_bps = reference_capacity(generator, load_link, &dsts)?;
    let stop = poisson_stop(generator, start, stop)?;
    let rate = poisson_rate(load, capacity_bps, dist.mean());
    check_expected_flows(generator, load, rate * (stop - start.0).as_secs_f64())?;
    let mut rng = SimRng::for_stream(generator.seed, Stream::Workload, generator.index as u64);
    let mean_gap_ps = 1e12 / rate;
    let mut t = Time::ZERO + start.0;
    let end = Time::ZERO + stop;
    loop {
        t += exponential_gap(&mut rng, mean_gap_ps);
        if t >= end {
            break;
        }
        if flows.len() as u64 >= MAX_GENERATED_FLOWS {
            return Err(too_many_flows(flows.len() + 1));
        }
        let src = srcs[rng.below(srcs.len() as u64) as usize];
        let dst = loop {
            let d = dsts[rng.below(dsts.len() as u64) as usize];
            if d != src {
                break d;
            }
        };
        flows.push(GeneratedFlow {
            generator: generator.index as u32,
            src,
            dst,
            start: t,
            size: Some(dist.sample(&mut rng)),
            stop: None,
            gate: None,
        });
    }
    Ok(())
}

/// A Poisson generator's `load`: a number in (0, 10].
fn check_load(generator: &Generator, load: f64) -> Result<(), ConfigError> {
    if !(load.is_finite() && load > 0.0 && load <= 10.0) {
        return Err(invalid(&generator.key("load"), load, "a number in (0, 10]"));
    }
    Ok(())
}

/// The capacity `load` refers to: port `load_link`'s, else the links into `dsts`.
fn reference_capacity(
    generator: &Generator,
    load_link: Option<&str>,
    dsts: &[HostId],
) -> Result<f64, ConfigError> {
    (generator.capacity)(load_link, dsts).ok_or_else(|| {
        invalid(
            &generator.key("load_link"),
            load_link.unwrap_or(""),
            "an output port name \"from->to\" (e.g. \"switch0->host16\")",
        )
    })
}

/// Refuses a load that asks for more than [`MAX_GENERATED_FLOWS`] flows on average.
fn check_expected_flows(
    generator: &Generator,
    load: f64,
    expected: f64,
) -> Result<(), ConfigError> {
    if expected > MAX_GENERATED_FLOWS as f64 {
        return Err(invalid(
            &generator.key("load"),
            load,
            format!(
                "at most {MAX_GENERATED_FLOWS} flows per run (this asks for {expected:.0}: shorten stop - start)"
            ),
        ));
    }
    Ok(())
}

/// The next gap of a Poisson process of mean gap `mean_gap_ps`: exponential by inversion,
/// -ln(1 - U) with U in [0, 1).
fn exponential_gap(rng: &mut SimRng, mean_gap_ps: f64) -> Duration {
    Duration((-(1.0 - rng.unit_f64()).ln() * mean_gap_ps).round() as u64)
}

/// The fields of [`TrafficConfig::Incast`].
struct IncastSpec<'a> {
    load: f64,
    fan_in: u32,
    size: u64,
    sources: &'a HostList,
    destinations: &'a HostList,
    load_link: Option<&'a str>,
    start: Dur,
    stop: Option<Dur>,
    start_jitter: Dur,
}

/// An `incast` generator: checks its settings, then draws Poisson events in [start, stop) at
/// rate load × capacity / (fan_in × size × 8) from the generator's own stream; at each, a
/// receiver uniformly from the destinations and `fan_in` distinct senders uniformly from the
/// sources other than it (an ordered choice, partial Fisher-Yates), each flow starting at the
/// event's time + U[0, start_jitter]. Flows are listed in start order (ties in draw order).
fn incast(
    generator: &Generator,
    spec: IncastSpec<'_>,
    flows: &mut Vec<GeneratedFlow>,
) -> Result<(), ConfigError> {
    let load = spec.load;
    check_load(generator, load)?;
    if spec.size == 0 {
        return Err(invalid(
            &generator.key("size"),
            spec.size,
            "at least 1 byte",
        ));
    }
    let srcs = generator
        .place
        .hosts(spec.sources, &generator.key("sources"))?;
    let dsts = generator
        .place
        .hosts(spec.destinations, &generator.key("destinations"))?;
    // Every receiver needs fan_in senders other than itself.
    let fewest = dsts
        .iter()
        .map(|d| srcs.iter().filter(|s| *s != d).count())
        .min()
        .unwrap_or(0);
    if spec.fan_in == 0 || spec.fan_in as usize > fewest {
        return Err(invalid(
            &generator.key("fan_in"),
            spec.fan_in,
            format!("1 to {fewest} (the sources other than a receiver)"),
        ));
    }
    let capacity_bps = reference_capacity(generator, spec.load_link, &dsts)?;
    let stop = poisson_stop(generator, spec.start, spec.stop)?;
    let event_bytes = spec.size as f64 * f64::from(spec.fan_in);
    let rate = poisson_rate(load, capacity_bps, event_bytes);
    let events = rate * (stop - spec.start.0).as_secs_f64();
    check_expected_flows(generator, load, events * f64::from(spec.fan_in))?;
    let mut rng = SimRng::for_stream(generator.seed, Stream::Workload, generator.index as u64);
    let mean_gap_ps = 1e12 / rate;
    let first = flows.len();
    let mut t = Time::ZERO + spec.start.0;
    let end = Time::ZERO + stop;
    let n = spec.fan_in as usize;
    let mut senders: Vec<HostId> = Vec::with_capacity(srcs.len());
    loop {
        t += exponential_gap(&mut rng, mean_gap_ps);
        if t >= end {
            break;
        }
        if (flows.len() + n) as u64 > MAX_GENERATED_FLOWS {
            return Err(too_many_flows(flows.len() + n));
        }
        let dst = dsts[rng.below(dsts.len() as u64) as usize];
        senders.clear();
        senders.extend(srcs.iter().copied().filter(|&s| s != dst));
        choose(&mut senders, n, &mut rng);
        for &src in &senders[..n] {
            flows.push(GeneratedFlow {
                generator: generator.index as u32,
                src,
                dst,
                start: t + rng.duration_up_to(spec.start_jitter.0),
                size: Some(spec.size),
                stop: None,
                gate: None,
            });
        }
    }
    // The engine starts a generator's flows one after another: they must be in start order.
    flows[first..].sort_by_key(|f| f.start);
    Ok(())
}

/// The first `n` entries of `v` become a uniformly random ordered choice of `n` of its entries
/// (a partial Fisher-Yates shuffle).
fn choose(v: &mut [HostId], n: usize, rng: &mut SimRng) {
    for i in 0..n {
        let j = i + rng.below((v.len() - i) as u64) as usize;
        v.swap(i, j);
    }
}

/// A `permutation` generator: checks its settings, then draws `count` (source, destination)
/// pairs from the generator's own stream: an ordered choice of `count` distinct sources and one
/// of `count` distinct destinations, drawn again until no pair is a host sending to itself (so
/// every valid set of pairs is equally likely; a draw succeeds with probability about 1/e or
/// better, since at most `count` / |destinations| <= 1 pair is expected to collide), then one
/// start time per pair, start + U[0, start_jitter]. Flows are listed in start order (ties in
/// draw order). Its arguments are the fields of [`TrafficConfig::Permutation`].
#[allow(clippy::too_many_arguments)]
fn permutation(
    generator: &Generator,
    count: u32,
    size: u64,
    sources: &HostList,
    destinations: &HostList,
    start: Dur,
    start_jitter: Dur,
    flows: &mut Vec<GeneratedFlow>,
) -> Result<(), ConfigError> {
    if size == 0 {
        return Err(invalid(&generator.key("size"), size, "at least 1 byte"));
    }
    let mut srcs = generator.place.hosts(sources, &generator.key("sources"))?;
    let mut dsts = generator
        .place
        .hosts(destinations, &generator.key("destinations"))?;
    let most = srcs.len().min(dsts.len());
    if count == 0 || count as usize > most {
        return Err(invalid(
            &generator.key("flows"),
            count,
            format!(
                "1 to {most} flows (each of the {} sources sends at most one, each of the {} destinations receives at most one)",
                srcs.len(),
                dsts.len()
            ),
        ));
    }
    // With |sources| >= flows and |destinations| >= flows, pairs avoiding self-sends exist
    // unless both sets are the same single host.
    if srcs.len() == 1 && dsts == srcs {
        return Err(invalid(
            &generator.key("destinations"),
            dsts[0],
            "a host other than the only source",
        ));
    }
    let n = count as usize;
    let mut rng = SimRng::for_stream(generator.seed, Stream::Workload, generator.index as u64);
    loop {
        choose(&mut srcs, n, &mut rng);
        choose(&mut dsts, n, &mut rng);
        if srcs[..n].iter().zip(&dsts[..n]).all(|(s, d)| s != d) {
            break;
        }
    }
    let first = flows.len();
    for (&src, &dst) in srcs[..n].iter().zip(&dsts[..n]) {
        flows.push(GeneratedFlow {
            generator: generator.index as u32,
            src,
            dst,
            start: Time::ZERO + start.0 + rng.duration_up_to(start_jitter.0),
            size: Some(size),
            stop: None,
            gate: None,
        });
    }
    // The engine starts a generator's flows one after another: they must be in start order.
    flows[first..].sort_by_key(|f| f.start);
    Ok(())
}

/// [`generate`] on a built topology: ports by name, and the links into destination hosts.
pub fn generate_for(
    cfg: &Config,
    seed: u64,
    built: &crate::plan::topology::BuiltTopology,
    prepared: &PreparedGenerators,
) -> Result<Drawn, ConfigError> {
    if cfg.traffic.is_empty() {
        return Ok(Drawn::default());
    }
    let t = &built.topology;
    let names = crate::plan::topology::port_names(t);
    // The capacity of the links into each node, summed in port order: one pass over the ports
    // (not one per destination host, which at k = 32 was 8,192 passes over 49 k ports).
    let mut into_node = vec![0.0f64; t.nodes.len()];
    for p in &t.ports {
        into_node[p.to as usize] += p.rate.as_f64();
    }
    let capacity = |link: Option<&str>, dsts: &[HostId]| -> Option<f64> {
        match link {
            Some(name) => names
                .iter()
                .position(|n| n == name)
                .map(|i| t.ports[i].rate.as_f64()),
            None => Some(
                dsts.iter()
                    .map(|&h| into_node[t.node_of_host(h) as usize])
                    .sum(),
            ),
        }
    };
    let racks: Vec<u32> = (0..t.host_count() as HostId)
        .map(|h| {
            let node = t.node_of_host(h);
            t.ports_of[node as usize]
                .first()
                .map_or(node, |&p| t.ports[p as usize].to)
        })
        .collect();
    let place = Placement {
        host_count: t.host_count() as u32,
        servers: &built.servers,
        clients: &built.clients,
        racks: &racks,
    };
    generate(cfg, seed, &place, &capacity, prepared)
}

/// The flow indices a fairness spec selects: `workload`, `all`, `traffic`, `traffic[I]` or a
/// list such as "0,3,5-9". Flows 0..workload_flows are the workload's; generated flow i is
/// flow workload_flows + i, from generator `generators[i]`. Err: what is allowed.
pub fn select_flows(
    spec: &str,
    workload_flows: usize,
    generators: &[u32],
    generator_count: usize,
) -> Result<Vec<usize>, String> {
    let total = workload_flows + generators.len();
    let traffic = |pick: &dyn Fn(u32) -> bool| -> Vec<usize> {
        generators
            .iter()
            .enumerate()
            .filter(|(_, g)| pick(**g))
            .map(|(i, _)| workload_flows + i)
            .collect()
    };
    let spec = spec.trim();
    let flows = match spec {
        "workload" if workload_flows > 0 => (0..workload_flows).collect(),
        "workload" | "all" => (0..total).collect(),
        "traffic" => traffic(&|_| true),
        _ => {
            if let Some(i) = spec
                .strip_prefix("traffic[")
                .and_then(|r| r.strip_suffix(']'))
            {
                match i.trim().parse::<u32>() {
                    Ok(g) if (g as usize) < generator_count => traffic(&|x| x == g),
                    _ => {
                        return Err(format!(
                            "traffic[I] with I below {generator_count} (the number of generators)"
                        ));
                    }
                }
            } else {
                let mut out = Vec::new();
                for part in spec.split(',') {
                    let r = range(part, total as u32).ok_or_else(|| {
                        format!(
                            "workload, all, traffic, traffic[I] or flow indices below {total} such as \"0,3,5-9\""
                        )
                    })?;
                    out.extend(r.map(|f| f as usize));
                }
                out
            }
        }
    };
    if flows.is_empty() {
        return Err("a selection with at least one flow".into());
    }
    Ok(flows)
}

pub use crate::results::ideal_fct::{Hop, IdealTcp, ideal_fct};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson_rate_formula() {
        // 50% of 1 Gbps with 30 KB mean flows: 0.5e9 / 8 / 30000 = 2083.33 flows/s.
        assert!((poisson_rate(0.5, 1e9, 30_000.0) - 2083.333).abs() < 0.01);
    }
}
