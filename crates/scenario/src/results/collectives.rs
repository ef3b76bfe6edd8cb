//! The collectives' results: `collectives.csv` (a row per job and iteration) and
//! `collective_steps.csv` (a row per job, iteration and step), written through the probes'
//! table mechanism so that sweeps keep them in long format with point and replicate; and
//! runs.csv columns that summarize them, so sweeps summarize them like any metric.
//!
//! Definitions:
//! - an iteration's **completion** runs from its first transfer's start to its last
//!   transfer's completion (the compute before it is not counted, as NCCL's tests time a
//!   collective);
//! - **algorithm bandwidth** is S / completion, **bus bandwidth** algBW × NCCL's factor
//!   (`incastsim_collective::Algorithm::bus_bandwidth_factor`; empty for a trace);
//! - the **ideal** completion is the same schedule on the idle network: each transfer takes
//!   the ideal FCT (`results/ideal_fct.rs`) of the bytes its busier end moves in its step
//!   (the most its sender sends or its receiver receives in that step: a step's flows that
//!   share a host link share its rate), chained through the gates with their delays and
//!   control latencies. Pipelining between steps (chunks) is not credited beyond that, so
//!   with chunks the slowdown can dip slightly below 1;
//! - a step's **duration** runs from its first flow's start to its last flow's completion;
//!   the slowest step is the longest, and the flow that made it slowest is its last to
//!   complete.

use crate::engine::Simulation;
use crate::plan::traffic::collective::CollectiveJob;
use crate::probe::{ProbeTable, ProbeValue};
use incastsim_core::{Duration, HostId, Time};
use std::collections::HashMap;

/// The runs.csv columns of a run with collectives (in this order).
pub const COLLECTIVE_RUN_COLUMNS: [&str; 6] = [
    "collective_iterations_completed",
    "collective_time_ms",
    "collective_time_max_ms",
    "collective_alg_bw_gbps",
    "collective_bus_bw_gbps",
    "collective_slowdown",
];

/// The columns of collectives.csv.
pub const COLLECTIVES_COLUMNS: [&str; 18] = [
    "job",
    "algorithm",
    "ranks",
    "size_bytes",
    "iteration",
    "start_s",
    "completion_ms",
    "alg_bw_gbps",
    "bus_bw_gbps",
    "ideal_ms",
    "slowdown",
    "steps",
    "slowest_step",
    "slowest_step_ms",
    "slowest_flow",
    "drops",
    "rto_count",
    "paused_us",
];

/// The columns of collective_steps.csv.
pub const STEP_COLUMNS: [&str; 14] = [
    "job",
    "iteration",
    "step",
    "flows",
    "bytes",
    "start_s",
    "end_s",
    "duration_ms",
    "ideal_ms",
    "drops",
    "rto_count",
    "paused_us",
    "longest_flow",
    "longest_fct_ms",
];

/// The file names of the two tables.
pub const COLLECTIVES_FILE: &str = "collectives.csv";
/// See [`COLLECTIVES_FILE`].
pub const STEPS_FILE: &str = "collective_steps.csv";

/// The two tables as a sweep declares them before its first run.
pub fn declared_tables() -> Vec<crate::probe::ProbeTableColumns> {
    let table = |file: &str, columns: &[&str]| crate::probe::ProbeTableColumns {
        file: file.into(),
        columns: columns.iter().map(|c| c.to_string()).collect(),
    };
    vec![
        table(COLLECTIVES_FILE, &COLLECTIVES_COLUMNS),
        table(STEPS_FILE, &STEP_COLUMNS),
    ]
}

/// Whether a config's traffic has a collective job (then the tables and columns exist).
pub fn has_collectives(cfg: &crate::Config) -> bool {
    use crate::plan::traffic::TrafficConfig;
    cfg.traffic.iter().any(|t| {
        matches!(
            t,
            TrafficConfig::Collective { .. } | TrafficConfig::Goal { .. }
        )
    })
}

/// One (job, iteration, step) being summed.
#[derive(Clone, Copy, Debug)]
struct Step {
    flows: u64,
    bytes: u64,
    start: Time,
    end: Option<Time>,
    ideal_start: Time,
    ideal_end: Time,
    drops: u64,
    rtos: u64,
    /// Its flows' paused times summed, ps (with PFC).
    paused_ps: u64,
    /// The flow that completed last, and the longest FCT with its flow.
    last: Option<(Time, u32)>,
    longest: Option<(Duration, u32)>,
}

impl Step {
    fn new() -> Step {
        Step {
            flows: 0,
            bytes: 0,
            start: Time::MAX,
            end: Some(Time::ZERO),
            ideal_start: Time::MAX,
            ideal_end: Time::ZERO,
            drops: 0,
            rtos: 0,
            paused_ps: 0,
            last: None,
            longest: None,
        }
    }
}

/// The two tables and the runs.csv columns (empty when the run has no collective).
pub fn collective_results(sim: &Simulation) -> (Vec<ProbeTable>, Vec<(String, ProbeValue)>) {
    let jobs = &sim.collectives;
    if jobs.is_empty() {
        return (Vec::new(), Vec::new());
    }
    // Each flow's paused time (pfc_flows.csv's `paused_us`), with PFC.
    let end = sim.finished_at.unwrap_or(sim.events.now());
    let paused = sim.network.pfc.as_deref().map(|pfc| {
        pfc.flow_paused_ps(&sim.network.fabric.ports, &sim.network.nic, end)
            .0
    });
    let (ideal_start, ideal_end) = ideal_times(sim);
    let mut per_iteration = Vec::new();
    let mut step_rows = Vec::new();
    let mut times_ms = Vec::new();
    let (mut alg, mut bus, mut slow) = (Vec::new(), Vec::new(), Vec::new());
    for job in jobs {
        let steps = job_steps(sim, job, &ideal_start, &ideal_end, paused.as_deref());
        // (iteration) → its steps, in step order.
        let mut iterations: Vec<(u32, Vec<(u32, Step)>)> = Vec::new();
        for ((iteration, step), s) in steps {
            match iterations.last_mut() {
                Some((i, v)) if *i == iteration => v.push((step, s)),
                _ => iterations.push((iteration, vec![(step, s)])),
            }
        }
        for (iteration, steps) in iterations {
            let start = steps
                .iter()
                .map(|(_, s)| s.start)
                .min()
                .unwrap_or(Time::ZERO);
            let end = steps
                .iter()
                .try_fold(Time::ZERO, |acc, (_, s)| s.end.map(|e| acc.max(e)));
            let ideal_start = steps.iter().map(|(_, s)| s.ideal_start).min();
            let ideal_end = steps.iter().map(|(_, s)| s.ideal_end).max();
            let ideal = ideal_start.zip(ideal_end).map(|(a, b)| b.since(a));
            let completion = end.map(|e| e.since(start));
            let alg_bw = completion
                .filter(|c| *c > Duration::ZERO)
                .map(|c| job.size_bytes as f64 * 8.0 / c.as_secs_f64() / 1e9);
            let bus_bw = alg_bw.zip(job.bus_factor).map(|(a, f)| a * f);
            let slowdown = completion
                .zip(ideal)
                .filter(|(_, i)| *i > Duration::ZERO)
                .map(|(c, i)| c.as_ps() as f64 / i.as_ps() as f64);
            let slowest = steps
                .iter()
                .filter_map(|(k, s)| s.end.map(|e| (e.since(s.start), *k, s.last)))
                .max_by_key(|(d, k, _)| (*d, std::cmp::Reverse(*k)));
            if let Some(c) = completion {
                times_ms.push(c.as_ms_f64());
            }
            alg.extend(alg_bw);
            bus.extend(bus_bw);
            slow.extend(slowdown);
            per_iteration.push(vec![
                job.generator.into(),
                job.algorithm.into(),
                job.ranks.into(),
                job.size_bytes.into(),
                iteration.into(),
                start.as_secs_f64().into(),
                completion.map(|c| c.as_ms_f64()).into(),
                alg_bw.into(),
                bus_bw.into(),
                ideal.map(|i| i.as_ms_f64()).into(),
                slowdown.into(),
                (steps.len() as u64).into(),
                slowest.map(|(_, k, _)| k).into(),
                slowest.map(|(d, _, _)| d.as_ms_f64()).into(),
                slowest.and_then(|(_, _, last)| last).map(|(_, f)| f).into(),
                steps.iter().map(|(_, s)| s.drops).sum::<u64>().into(),
                steps.iter().map(|(_, s)| s.rtos).sum::<u64>().into(),
                paused
                    .as_ref()
                    .map(|_| steps.iter().map(|(_, s)| s.paused_ps).sum::<u64>() as f64 / 1e6)
                    .into(),
            ]);
            for (step, s) in &steps {
                step_rows.push(vec![
                    job.generator.into(),
                    iteration.into(),
                    (*step).into(),
                    s.flows.into(),
                    s.bytes.into(),
                    s.start.as_secs_f64().into(),
                    s.end.map(|e| e.as_secs_f64()).into(),
                    s.end.map(|e| e.since(s.start).as_ms_f64()).into(),
                    s.ideal_end.since(s.ideal_start).as_ms_f64().into(),
                    s.drops.into(),
                    s.rtos.into(),
                    paused.as_ref().map(|_| s.paused_ps as f64 / 1e6).into(),
                    s.longest.map(|(_, f)| f).into(),
                    s.longest.map(|(d, _)| d.as_ms_f64()).into(),
                ]);
            }
        }
    }
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    let run = vec![
        (times_ms.len() as u64).into(),
        mean(&times_ms).into(),
        times_ms.iter().copied().reduce(f64::max).into(),
        mean(&alg).into(),
        mean(&bus).into(),
        mean(&slow).into(),
    ];
    let run = COLLECTIVE_RUN_COLUMNS
        .iter()
        .map(|c| c.to_string())
        .zip(run)
        .collect();
    let table = |file: &str, header: &[&str], rows| ProbeTable {
        file: file.into(),
        header: header.iter().map(|c| c.to_string()).collect(),
        rows,
    };
    (
        vec![
            table(COLLECTIVES_FILE, &COLLECTIVES_COLUMNS, per_iteration),
            table(STEPS_FILE, &STEP_COLUMNS, step_rows),
        ],
        run,
    )
}

/// Job `job`'s steps, summed, in (iteration, step) order.
fn job_steps(
    sim: &Simulation,
    job: &CollectiveJob,
    ideal_start: &[Time],
    ideal_end: &[Time],
    paused: Option<&[u64]>,
) -> Vec<((u32, u32), Step)> {
    let mut steps: HashMap<(u32, u32), Step> = HashMap::new();
    for (k, &label) in job.labels.iter().enumerate() {
        let i = job.first_flow as usize + k;
        let f = sim.workload_flows + i;
        let g = &sim.generated.spec[i];
        let s = steps.entry(label).or_insert_with(Step::new);
        s.flows += 1;
        s.bytes += g.size.unwrap_or(0);
        s.start = s.start.min(g.start);
        let done = sim.generated.completed_at[i];
        s.end = s.end.zip(done).map(|(a, b)| a.max(b));
        s.ideal_start = s.ideal_start.min(ideal_start[i]);
        s.ideal_end = s.ideal_end.max(ideal_end[i]);
        // flows.csv's `drops` and `rto_count` of the flow.
        s.drops += sim.obs.diag.flow_drop_count(f);
        s.rtos += sim.transport.conns.sender_summary(f).stats.timeouts;
        s.paused_ps += paused.and_then(|p| p.get(f)).copied().unwrap_or(0);
        if let Some(t) = done {
            if s.last.is_none_or(|(l, _)| t > l) {
                s.last = Some((t, f as u32));
            }
            let fct = t.since(g.start);
            if s.longest.is_none_or(|(l, _)| fct > l) {
                s.longest = Some((fct, f as u32));
            }
        }
    }
    let mut out: Vec<_> = steps.into_iter().collect();
    out.sort_unstable_by_key(|(k, _)| *k);
    out
}

/// Each generated flow's ideal start and completion (see the module doc): every flow's
/// ideal FCT for its step's bytes at its busier end, chained through the gates.
fn ideal_times(sim: &Simulation) -> (Vec<Time>, Vec<Time>) {
    let spec = &sim.generated.spec;
    let durations = ideal_durations(sim);
    let deps = sim.gates.dependencies();
    let mut start = vec![Time::ZERO; spec.len()];
    let mut end = vec![Time::ZERO; spec.len()];
    // When each gate has heard everything, ideally.
    let mut ready = vec![Time::ZERO; deps.gates.len()];
    let latency = |from: HostId, g: u32| deps.news_latency(&sim.network.fabric, from, g);
    for (i, f) in spec.iter().enumerate() {
        if f.gate.is_none() {
            start[i] = f.start;
            end[i] = f.start + durations[i];
            for &g in deps.gates_after_flow(i) {
                ready[g as usize] = ready[g as usize].max(end[i] + latency(f.dst, g));
            }
        }
    }
    for g in 0..deps.gates.len() {
        let gate = deps.gates[g];
        let open = ready[g] + gate.delay;
        for &i in deps.flows_gated_on(g as u32) {
            let i = i as usize;
            start[i] = open;
            end[i] = open + durations[i];
            for &after in deps.gates_after_flow(i) {
                let at = end[i] + latency(spec[i].dst, after);
                ready[after as usize] = ready[after as usize].max(at);
            }
        }
        for &after in deps.gates_after_gate(g as u32) {
            let at = open + latency(gate.host, after);
            ready[after as usize] = ready[after as usize].max(at);
        }
    }
    (start, end)
}

/// Per generated flow of a collective job: the ideal FCT of the bytes its busier end moves in
/// its step (0 for other flows).
fn ideal_durations(sim: &Simulation) -> Vec<Duration> {
    let mut out = vec![Duration::ZERO; sim.generated.spec.len()];
    let busier = busier_end_bytes(sim);
    let first = sim.workload_flows;
    let asks = sim
        .collectives
        .iter()
        .flat_map(|job| (0..job.labels.len()).map(move |k| job.first_flow as usize + k));
    let asks = asks.map(|i| (first + i, busier[i]));
    for (f, d) in super::flows::ideal_fcts_of(sim, asks) {
        out[f - first] = d;
    }
    out
}

/// Per generated flow of a collective job: the most bytes its sender sends or its receiver
/// receives in its (iteration, step), over the step's flows (0 for other flows). The job's
/// flows are taken step by step (sorted by label), each host's bytes summed in one dense
/// table reset between steps, so memory stays a few bytes per flow.
fn busier_end_bytes(sim: &Simulation) -> Vec<u64> {
    let spec = &sim.generated.spec;
    let hosts = sim.network.fabric.host_port.len();
    let mut out = vec![0u64; spec.len()];
    let (mut sent, mut received) = (vec![0u64; hosts], vec![0u64; hosts]);
    let mut touched: Vec<HostId> = Vec::new();
    for job in &sim.collectives {
        let mut order: Vec<u32> = (0..job.labels.len() as u32).collect();
        order.sort_by_key(|&k| job.labels[k as usize]);
        for group in order.chunk_by(|a, b| job.labels[*a as usize] == job.labels[*b as usize]) {
            for &k in group {
                let g = &spec[job.first_flow as usize + k as usize];
                let bytes = g.size.unwrap_or(0);
                sent[g.src as usize] += bytes;
                received[g.dst as usize] += bytes;
                touched.extend([g.src, g.dst]);
            }
            for &k in group {
                let i = job.first_flow as usize + k as usize;
                let g = &spec[i];
                out[i] = sent[g.src as usize].max(received[g.dst as usize]);
            }
            for h in touched.drain(..) {
                sent[h as usize] = 0;
                received[h as usize] = 0;
            }
        }
    }
    out
}
