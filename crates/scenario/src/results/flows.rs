//! Per-flow results: each flow's start, completion time and goodput, the ideal FCT and slowdown
//! of sized flows, Jain's index over the chosen flows, and the rows of flows.csv.

use super::RunEnd;
use crate::config::FairnessPer;
use crate::engine::Simulation;
use crate::plan::FlowOrigin;
use crate::plan::traffic::{GeneratedFlow, Hop, IdealTcp};
use crate::results::ideal_fct::IdealPath;
use crate::results::metrics::{FctStats, FlowRecord, jain_fairness};
use incastsim_config::traffic::BUILTIN_KINDS;
use incastsim_core::{Duration, HostId, Time};
use std::collections::HashMap;

/// What flows.csv and the FCT/fairness columns of runs.csv are computed from.
pub(crate) struct FlowStats {
    /// Per flow: when it started.
    pub start: Vec<Time>,
    /// Per flow: its completion time, if it is a sized flow that completed.
    pub fct: Vec<Option<Duration>>,
    /// Per flow: goodput over its active time (the whole run for workload flows), Mb/s.
    pub goodput_mbps: Vec<f64>,
    /// Per flow: its ideal completion time, if it completed.
    pub ideal: Vec<Option<Duration>>,
    pub jain: f64,
    /// FCT statistics of all sized flows, then of the small, mid and large groups.
    pub fct_all: FctStats,
    pub fct_groups: [FctStats; 3],
}

/// The generated flow behind flow f, with its index among the generated flows.
fn generated(sim: &Simulation, f: usize) -> Option<(usize, &GeneratedFlow)> {
    match sim.transport.origin[f] {
        FlowOrigin::Workload => None,
        FlowOrigin::Generated { index, .. } => {
            Some((index as usize, &sim.generated.spec[index as usize]))
        }
    }
}

fn rate_mbps(bytes: u64, d: Duration) -> f64 {
    if d == Duration::ZERO {
        0.0
    } else {
        bytes as f64 * 8.0 / d.as_secs_f64() / 1e6
    }
}

impl FlowStats {
    pub fn of(sim: &Simulation, e: &RunEnd) -> FlowStats {
        let n = e.delivered.len();
        let mut start = vec![Time::ZERO; n];
        let mut fct = vec![None; n];
        let mut goodput_mbps = vec![0.0; n];
        for f in 0..n {
            let Some((i, g)) = generated(sim, f) else {
                goodput_mbps[f] = e.mbps(e.delivered[f]);
                continue;
            };
            start[f] = g.start;
            if let (Some(size), Some(done)) = (g.size, sim.generated.completed_at[i]) {
                fct[f] = Some(done.since(g.start));
                goodput_mbps[f] = rate_mbps(size, done.since(g.start));
                continue;
            }
            goodput_mbps[f] = match (g.stop, sim.generated.delivered_at_stop[i]) {
                (Some(stop), Some(bytes)) => rate_mbps(bytes, stop.since(g.start)),
                _ if e.end > g.start => rate_mbps(e.delivered[f], e.end.since(g.start)),
                _ => 0.0,
            };
        }
        let ideal = ideal_fcts(sim, &fct);
        // (size, FCT ms, slowdown) of every completed sized flow.
        let pairs: Vec<(u64, f64, f64)> = (0..n)
            .filter_map(|f| {
                let size = generated(sim, f)?.1.size?;
                let (fct, ideal) = (fct[f]?, ideal[f]?);
                let slowdown = fct.as_ps() as f64 / ideal.as_ps() as f64;
                Some((size, fct.as_ms_f64(), slowdown))
            })
            .collect();
        let group = |lo: u64, hi: u64| {
            FctStats::of(
                &pairs
                    .iter()
                    .filter(|p| p.0 >= lo && p.0 < hi)
                    .map(|p| (p.1, p.2))
                    .collect::<Vec<_>>(),
            )
        };
        let bins = &sim.cfg.metrics.fct_bins;
        let (e1, e2) = (bins[0].0, bins[1].0);
        FlowStats {
            jain: fairness(sim, &goodput_mbps),
            start,
            fct,
            goodput_mbps,
            ideal,
            fct_all: group(0, u64::MAX),
            fct_groups: [group(0, e1), group(e1, e2), group(e2, u64::MAX)],
        }
    }
}

/// What an ideal FCT depends on besides the size: the forward and reverse paths' hops and
/// TCP's parameters.
type IdealKey = (Vec<Hop>, Vec<Hop>, IdealTcp);

/// Each completed sized flow's completion time alone on the idle network (see
/// [`crate::results::ideal_fct::ideal_fct`]).
fn ideal_fcts(sim: &Simulation, fct: &[Option<Duration>]) -> Vec<Option<Duration>> {
    let asks = fct.iter().enumerate().filter_map(|(f, done)| {
        let size = done.and_then(|_| generated(sim, f)?.1.size)?;
        Some((f, size))
    });
    let mut ideal = vec![None; fct.len()];
    for (f, d) in ideal_fcts_of(sim, asks) {
        ideal[f] = Some(d);
    }
    ideal
}

/// The ideal FCT of each (flow, size) asked, on the flow's paths with its TCP profile: flows
/// whose paths have the same hop parameters and whose TCP parameters agree share one
/// [`IdealPath`] (on a fat-tree with one link speed, a path per path length), asked in
/// increasing order of size, so that each segment position is stepped once per path, not once
/// per flow. Also the collectives' ideal (`results/collectives.rs`), with a step's sizes.
pub(super) fn ideal_fcts_of(
    sim: &Simulation,
    asks: impl Iterator<Item = (usize, u64)>,
) -> Vec<(usize, Duration)> {
    let fabric = &sim.network.fabric;
    let mut paths: HashMap<IdealKey, u32> = HashMap::new();
    let mut shared: Vec<IdealPath> = Vec::new();
    // (path, size, flow) of every flow asked.
    let mut asked: Vec<(u32, u64, u32)> = Vec::new();
    for (f, size) in asks {
        let ends = sim.transport.flows[f];
        let key = (
            fabric.path(ends.src, ends.dst),
            fabric.path(ends.dst, ends.src),
            sim.profile_of(f).ideal,
        );
        let path = *paths.entry(key).or_insert_with_key(|(fwd, rev, tcp)| {
            shared.push(IdealPath::new(fwd, rev, *tcp));
            shared.len() as u32 - 1
        });
        asked.push((path, size, f as u32));
    }
    asked.sort_unstable();
    asked
        .into_iter()
        .map(|(path, size, f)| (f as usize, shared[path as usize].fct(size)))
        .collect()
}

/// The flows `metrics.fairness.flows` selects.
pub(crate) fn fairness_flows(sim: &Simulation) -> Vec<usize> {
    let cfg = &sim.cfg;
    let generators: Vec<u32> = sim.generated.spec.iter().map(|g| g.generator).collect();
    // Checked by the plan; an unselectable spec would select nothing.
    crate::plan::traffic::select_flows(
        &cfg.metrics.fairness.flows,
        sim.workload_flows,
        &generators,
        cfg.traffic.len(),
    )
    .unwrap_or_default()
}

/// Jain's index over `metrics.fairness.flows`, per flow or per sending host.
fn fairness(sim: &Simulation, goodput_mbps: &[f64]) -> f64 {
    let cfg = &sim.cfg;
    let chosen = fairness_flows(sim);
    match cfg.metrics.fairness.per {
        FairnessPer::Flow => {
            jain_fairness(&chosen.iter().map(|&f| goodput_mbps[f]).collect::<Vec<_>>())
        }
        FairnessPer::Sender => {
            // The TCPRand paper's g_i: the mean goodput of the flows sender i sent.
            let mut per_host = std::collections::BTreeMap::<HostId, (f64, u32)>::new();
            for &f in &chosen {
                let e = per_host.entry(sim.transport.flows[f].src).or_default();
                e.0 += goodput_mbps[f];
                e.1 += 1;
            }
            jain_fairness(
                &per_host
                    .values()
                    .map(|(sum, n)| sum / *n as f64)
                    .collect::<Vec<_>>(),
            )
        }
    }
}

/// The rows of flows.csv (diagnostic columns are filled later).
pub(crate) fn flow_records(sim: &Simulation, e: &RunEnd, fs: &FlowStats) -> Vec<FlowRecord> {
    let cfg = &sim.cfg;
    let t = &sim.transport;
    // The controllers' and schemes' own values: the same columns on every row.
    let value_names = t.conns.value_names();
    (0..t.flows.len())
        .map(|f| {
            let values = if value_names.is_empty() {
                Vec::new()
            } else {
                component_columns(&value_names, &t.conns.component_values(f))
            };
            let s = t.conns.sender_summary(f);
            let (st, cc) = (&s.stats, s.cc);
            let gen_flow = generated(sim, f).map(|(_, g)| g);
            FlowRecord {
                scenario: cfg.name.clone(),
                seed: sim.seed,
                senders: cfg.senders,
                flow: f as u32,
                src_host: t.flows[f].src,
                dst_host: t.flows[f].dst,
                // Borrowed names (no allocation per row) but for a registered generator's.
                kind: match gen_flow {
                    None => "workload".into(),
                    Some(g) => {
                        let kind = cfg.traffic[g.generator as usize].kind();
                        match BUILTIN_KINDS.iter().find(|k| **k == kind) {
                            Some(k) => (*k).into(),
                            None => kind.to_string().into(),
                        }
                    }
                },
                generator: gen_flow.map(|g| g.generator),
                start_s: fs.start[f].as_secs_f64(),
                size_bytes: gen_flow.and_then(|g| g.size),
                fct_ms: fs.fct[f].map(|d| d.as_ms_f64()),
                ideal_fct_ms: fs.ideal[f].map(|d| d.as_ms_f64()),
                slowdown: fs.fct[f]
                    .zip(fs.ideal[f])
                    .map(|(a, b)| a.as_ps() as f64 / b.as_ps() as f64),
                congestion_control: s.cc_name.into(),
                bytes_delivered: e.delivered[f],
                goodput_mbps: fs.goodput_mbps[f],
                rto_count: st.timeouts,
                max_successive_rto: st.max_successive_timeouts,
                timeout_wait_s: st.timeout_wait_ps as f64 / 1e12,
                fast_retransmits: st.fast_retransmits,
                sack_retransmits: st.sack_retransmits,
                retransmitted_segments: st.retransmitted_segments,
                segments_sent: st.segments_sent,
                ecn_reductions: st.ecn_reductions,
                final_cwnd_bytes: cc.cwnd_bytes,
                final_ssthresh_bytes: cc.ssthresh_bytes.min(u32::MAX as u64 * 1000),
                srtt_us: s.srtt.map_or(f64::NAN, |d| d.as_us_f64()),
                dctcp_alpha_mean: cc.dctcp_alpha_mean,
                dctcp_alpha_final: cc.dctcp_alpha,
                probes: crate::probe::columns::ProbeColumns(values),
                ..FlowRecord::default()
            }
        })
        .collect()
}

/// One flow's component values as columns `names` (empty where its components report none).
fn component_columns(
    names: &[&'static str],
    values: &[(&'static str, f64)],
) -> Vec<(String, crate::probe::ProbeValue)> {
    names
        .iter()
        .map(|&n| {
            let v = values.iter().find(|(k, _)| *k == n).map(|&(_, v)| v);
            (n.to_string(), v.into())
        })
        .collect()
}
