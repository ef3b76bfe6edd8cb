//! The `collective` and `goal` traffic kinds: a [`Schedule`] (from a collective algorithm or a
//! GOAL trace, `incastsim-collective`) placed on hosts and turned into flows and gates through
//! the same [`TrafficContext`] API a downstream generator uses ([`super::depend`]).
//!
//! Each transfer becomes one sized flow: with nothing to wait for, it starts at the entry's
//! `start`; else it is gated on a gate at its sender's host that waits for the transfers
//! (flows) and delays (gates) before it. A delay becomes a gate with that delay. A transfer
//! whose only wait is one delay on its own host is gated on that delay's gate directly.

use super::context::{TrafficContext, add_entry_flows};
use super::depend::{ControlLatency, GateId};
use super::{GeneratedFlow, HostList};
use crate::config::{ConfigError, invalid};
use incastsim_collective::goal::{GoalOptions, read_goal};
use incastsim_collective::{Algorithm, AlgorithmError, CollectiveSpec, Op, Schedule};
use incastsim_config::traffic::{
    CollectiveAlgorithm, ControlLatencyConfig, RankPlacement, TrafficConfig,
};
use incastsim_core::{Duration, HostId, Time};

/// One collective job (an entry of kind `collective` or `goal`) as results read it: which
/// generated flows are its transfers, and each one's (iteration, step).
#[derive(Clone, Debug, PartialEq)]
pub struct CollectiveJob {
    /// Its entry in `traffic:`.
    pub generator: u32,
    /// The algorithm (`ring_allreduce`, ...) or `goal`.
    pub algorithm: &'static str,
    /// Ranks.
    pub ranks: u32,
    /// The message size S (a trace: the most bytes any rank sends).
    pub size_bytes: u64,
    /// NCCL's bus-bandwidth factor (busBW = algBW × this; `None` for a trace).
    pub bus_factor: Option<f64>,
    /// Host of each rank.
    pub hosts: Vec<HostId>,
    /// Its first flow, as an index into the generated flows; its flows are consecutive.
    pub first_flow: u32,
    /// Per flow of the job (in flow order): (iteration, step).
    pub labels: Vec<(u32, u32)>,
}

/// How many generated flows wait at gates, and how many of them may be in flight at once: a
/// collective's widest step twice (ranks drift apart by about a step), every other gated
/// flow (a downstream generator's: nothing bounds it).
pub fn gated_flows(flows: &[GeneratedFlow], jobs: &[CollectiveJob]) -> (u64, u64) {
    let gated = flows.iter().filter(|f| f.gate.is_some()).count() as u64;
    let mut in_jobs = 0u64;
    let mut live = 0u64;
    for job in jobs {
        let mut labels = job.labels.clone();
        labels.sort_unstable();
        let widest = labels
            .chunk_by(|a, b| a == b)
            .map(<[_]>::len)
            .max()
            .unwrap_or(0);
        let job_gated = (0..job.labels.len())
            .filter(|&k| flows[job.first_flow as usize + k].gate.is_some())
            .count() as u64;
        in_jobs += job_gated;
        live += (2 * widest as u64).min(job_gated);
    }
    (gated, live + (gated - in_jobs))
}

/// What the job's schedule and placement are, before flows.
pub(crate) struct JobSpec<'a> {
    pub algorithm: &'static str,
    pub size_bytes: u64,
    pub bus_factor: Option<f64>,
    pub hosts: &'a HostList,
    pub placement: &'a RankPlacement,
    pub start: Duration,
    pub control_latency: ControlLatencyConfig,
}

/// Draws entry `ctx.index()`, a `collective` or `goal` entry `t`, appending its flows.
pub(crate) fn draw(
    t: &TrafficConfig,
    ctx: &mut TrafficContext,
    flows: &mut Vec<GeneratedFlow>,
) -> Result<CollectiveJob, ConfigError> {
    let key = format!("traffic[{}]", ctx.index());
    let in_entry = |e: ConfigError| crate::extend::under(&key, e);
    match t {
        TrafficConfig::Goal {
            file,
            hosts,
            placement,
            calc_unit,
            start,
            control_latency,
        } => {
            let text = std::fs::read_to_string(file).map_err(|e| {
                invalid(
                    &format!("{key}.file"),
                    file,
                    format!("a readable GOAL trace ({e})"),
                )
            })?;
            let opts = GoalOptions {
                calc_unit: calc_unit.0,
                ..GoalOptions::default()
            };
            let schedule = read_goal(&text, &opts)
                .map_err(|e| invalid(&format!("{key}.file"), file, format!("a GOAL trace: {e}")))?;
            let size_bytes = schedule
                .bytes_sent_per_rank()
                .into_iter()
                .max()
                .unwrap_or(0);
            let spec = JobSpec {
                algorithm: "goal",
                size_bytes,
                bus_factor: None,
                hosts,
                placement,
                start: start.0,
                control_latency: *control_latency,
            };
            add_job(ctx, &schedule, spec, flows).map_err(in_entry)
        }
        TrafficConfig::Collective { .. } => {
            let (schedule, spec) = algorithm_job(t, ctx).map_err(in_entry)?;
            add_job(ctx, &schedule, spec, flows).map_err(in_entry)
        }
        _ => unreachable!("only collective and goal entries are drawn here"),
    }
}

/// Places `schedule` as entry `ctx.index()` and appends its flows to `flows`.
pub(crate) fn add_job(
    ctx: &mut TrafficContext,
    schedule: &Schedule,
    spec: JobSpec,
    flows: &mut Vec<GeneratedFlow>,
) -> Result<CollectiveJob, ConfigError> {
    let hosts = place_ranks(ctx, schedule.ranks(), spec.hosts, spec.placement)?;
    ctx.set_control_latency(match spec.control_latency {
        ControlLatencyConfig::Path => ControlLatency::Path,
        ControlLatencyConfig::Fixed(d) => ControlLatency::Fixed(d.0),
    });
    let (drawn, labels) = schedule_flows(ctx, schedule, &hosts, Time::ZERO + spec.start)?;
    let first = flows.len();
    let place = add_entry_flows(ctx, drawn, flows)?;
    let mut ordered = vec![(0, 0); labels.len()];
    for (pos, label) in labels.into_iter().enumerate() {
        ordered[place[pos] as usize - first] = label;
    }
    Ok(CollectiveJob {
        generator: ctx.index() as u32,
        algorithm: spec.algorithm,
        ranks: schedule.ranks(),
        size_bytes: spec.size_bytes,
        bus_factor: spec.bus_factor,
        hosts,
        first_flow: first as u32,
        labels: ordered,
    })
}

/// The host of each of `ranks` ranks: from the entry's `hosts`, by `placement`.
fn place_ranks(
    ctx: &mut TrafficContext,
    ranks: u32,
    list: &HostList,
    placement: &RankPlacement,
) -> Result<Vec<HostId>, ConfigError> {
    let n = ranks as usize;
    if let RankPlacement::List(hosts) = placement {
        let count = ctx.host_count();
        let mut seen = vec![false; count as usize];
        for &h in hosts {
            if h >= count || std::mem::replace(&mut seen[h as usize], true) {
                return Err(invalid(
                    "placement",
                    format!("{hosts:?}"),
                    format!("distinct host indices below {count}"),
                ));
            }
        }
        if hosts.len() < n {
            return Err(invalid(
                "placement",
                format!("{} hosts", hosts.len()),
                format!("a host for each of the {n} ranks"),
            ));
        }
        return Ok(hosts[..n].to_vec());
    }
    let mut hosts = ctx.hosts(list, "hosts")?;
    if hosts.len() < n {
        return Err(invalid(
            "hosts",
            format!("{} hosts", hosts.len()),
            format!("a host for each of the {n} ranks"),
        ));
    }
    match placement {
        RankPlacement::InOrder | RankPlacement::List(_) => {}
        RankPlacement::Random => {
            let rng = ctx.rng();
            for i in 0..hosts.len().saturating_sub(1) {
                let j = i + rng.below((hosts.len() - i) as u64) as usize;
                hosts.swap(i, j);
            }
        }
        RankPlacement::PerRack => {
            // Round robin over the racks in order of their first host: rank i goes to rack
            // i mod R (racks that run out drop out of the rotation).
            let mut racks: Vec<(u32, Vec<HostId>)> = Vec::new();
            for &h in &hosts {
                let rack = ctx.rack_of(h);
                match racks.iter_mut().find(|(r, _)| *r == rack) {
                    Some((_, members)) => members.push(h),
                    None => racks.push((rack, vec![h])),
                }
            }
            let mut out = Vec::with_capacity(hosts.len());
            let mut round = 0;
            while out.len() < hosts.len() {
                for (_, members) in &racks {
                    if let Some(&h) = members.get(round) {
                        out.push(h);
                    }
                }
                round += 1;
            }
            hosts = out;
        }
    }
    hosts.truncate(n);
    Ok(hosts)
}

/// A transfer's (iteration, step).
type Label = (u32, u32);

/// Flag of a node handle that is a gate (else the flow's position in the entry's list).
const GATE: u32 = 1 << 31;

/// The flows and gates of `schedule` with rank r on `hosts[r]`, starting at `start`; with
/// each flow's (iteration, step).
fn schedule_flows(
    ctx: &mut TrafficContext,
    schedule: &Schedule,
    hosts: &[HostId],
    start: Time,
) -> Result<(Vec<GeneratedFlow>, Vec<Label>), ConfigError> {
    let mut handle: Vec<u32> = Vec::with_capacity(schedule.len());
    let mut flows = Vec::new();
    let mut labels = Vec::new();
    let (mut wait_flows, mut wait_gates) = (Vec::new(), Vec::new());
    let offset = start.since(Time::ZERO);
    for n in 0..schedule.len() as u32 {
        wait_flows.clear();
        wait_gates.clear();
        for &d in schedule.deps(n) {
            let h = handle[d as usize];
            if h & GATE != 0 {
                wait_gates.push(h & !GATE);
            } else {
                wait_flows.push(h as usize);
            }
        }
        let new_gate = |ctx: &mut TrafficContext, host, delay, wf: &[usize], wg: &[GateId]| {
            let g = ctx.gate(host, delay, wf, wg)?;
            if g & GATE != 0 {
                return Err(invalid("gate", g, "fewer than 2^31 gates"));
            }
            Ok::<GateId, ConfigError>(g)
        };
        match schedule.op(n) {
            Op::Transfer { src, dst, bytes } => {
                let (s, d) = (hosts[src as usize], hosts[dst as usize]);
                let flow = if wait_flows.is_empty() && wait_gates.is_empty() {
                    ctx.sized_flow(s, d, start, bytes)
                } else {
                    let own = match (wait_flows.is_empty(), wait_gates.as_slice()) {
                        (true, &[g]) if ctx.gate_host(g) == Some(s) => Some(g),
                        _ => None,
                    };
                    let gate = match own {
                        Some(g) => g,
                        None => new_gate(ctx, s, Duration::ZERO, &wait_flows, &wait_gates)?,
                    };
                    ctx.gated_flow(s, d, gate, bytes)
                };
                handle.push(flows.len() as u32);
                flows.push(flow);
                labels.push(schedule.label(n));
            }
            Op::Delay { rank, duration } => {
                // A delay that waits for nothing runs from the job's start.
                let roots = wait_flows.is_empty() && wait_gates.is_empty();
                let delay = if roots { duration + offset } else { duration };
                let host = hosts[rank as usize];
                let g = new_gate(ctx, host, delay, &wait_flows, &wait_gates)?;
                handle.push(g | GATE);
            }
        }
    }
    Ok((flows, labels))
}

/// The schedule of a `collective` entry and how to place it: the algorithm built over the
/// entry's ranks (default: every host of `hosts`).
fn algorithm_job<'a>(
    t: &'a TrafficConfig,
    ctx: &mut TrafficContext,
) -> Result<(Schedule, JobSpec<'a>), ConfigError> {
    let TrafficConfig::Collective {
        algorithm,
        size,
        hosts,
        ranks,
        placement,
        chunks,
        iterations,
        compute,
        start,
        servers,
        control_latency,
    } = t
    else {
        unreachable!("a collective entry")
    };
    let ranks = match (ranks, placement) {
        (Some(r), _) => *r,
        (None, RankPlacement::List(list)) => list.len() as u32,
        (None, _) => ctx.hosts(hosts, "hosts")?.len() as u32,
    };
    let algorithm = match algorithm {
        CollectiveAlgorithm::RingAllreduce => Algorithm::RingAllReduce,
        CollectiveAlgorithm::HalvingDoublingAllreduce => Algorithm::HalvingDoublingAllReduce,
        CollectiveAlgorithm::DoubleBinaryTreeAllreduce => Algorithm::DoubleBinaryTreeAllReduce,
        CollectiveAlgorithm::AllToAll => Algorithm::AllToAll,
        CollectiveAlgorithm::PairwiseAllToAll => Algorithm::PairwiseAllToAll,
        CollectiveAlgorithm::RingAllgather => Algorithm::RingAllGather,
        CollectiveAlgorithm::RingReduceScatter => Algorithm::RingReduceScatter,
        CollectiveAlgorithm::Broadcast => Algorithm::Broadcast,
        CollectiveAlgorithm::ParameterServer => Algorithm::ParameterServer { servers: *servers },
    };
    let spec = CollectiveSpec {
        algorithm,
        ranks,
        size: size.0,
        chunks: *chunks,
        iterations: *iterations,
        compute: compute.0,
    };
    let schedule = spec.build().map_err(|e| {
        let (key, value) = match &e {
            AlgorithmError::TooFewRanks { .. }
            | AlgorithmError::NotPowerOfTwo(_)
            | AlgorithmError::RanksOutOfSchedule { .. } => ("ranks", ranks.to_string()),
            AlgorithmError::NoChunks => ("chunks", chunks.to_string()),
            AlgorithmError::NoIterations => ("iterations", iterations.to_string()),
            AlgorithmError::Servers { .. } => ("servers", servers.to_string()),
            AlgorithmError::TooSmall { .. } => ("size", size.0.to_string()),
            _ => ("algorithm", algorithm.name().to_string()),
        };
        invalid(key, value, e.to_string())
    })?;
    let job = JobSpec {
        algorithm: algorithm.name(),
        size_bytes: size.0,
        bus_factor: Some(algorithm.bus_bandwidth_factor(ranks)),
        hosts,
        placement,
        start: start.0,
        control_latency: *control_latency,
    };
    Ok((schedule, job))
}
