//! The row of runs.csv: the scenario's identity columns, then the workload's outcome, goodput,
//! fairness and FCTs, the TCP totals and the drops (diagnostic columns are filled later).

use super::RunEnd;
use super::flows::FlowStats;
use crate::config::WorkloadConfig;
use crate::engine::apps::Workload;
use crate::engine::{Outcome, Simulation};
use crate::results::metrics::{RunRecord, quantile};
use incastsim_tcp::SUCCESSIVE_TIMEOUT_BINS;

/// Block completion times in ms (synchronized reads; empty otherwise).
pub(crate) fn block_times_ms(sim: &Simulation) -> Vec<f64> {
    match &sim.workload {
        Workload::SyncReads(w) => w.block_times.iter().map(|d| d.as_ms_f64()).collect(),
        Workload::Bulk(_) | Workload::Traffic { .. } => Vec::new(),
    }
}

pub(crate) fn run_record(sim: &Simulation, e: &RunEnd, fs: &FlowStats) -> RunRecord {
    let mut run = identity(sim);
    workload_outcome(sim, e, fs, &mut run);
    tcp_totals(sim, &mut run);
    drops(sim, &mut run);
    run.set_fct(&fs.fct_all, &fs.fct_groups);
    run
}

/// The columns before `completed`: what scenario this is.
fn identity(sim: &Simulation) -> RunRecord {
    let cfg = &sim.cfg;
    let links = cfg.topology.links();
    let sru_bytes = match &sim.workload {
        Workload::SyncReads(w) => {
            w.per_flow_bytes.iter().sum::<u64>() as f64 / w.per_flow_bytes.len() as f64
        }
        Workload::Bulk(_) | Workload::Traffic { .. } => 0.0,
    };
    // The top-level section's transport: a RoCE run names its queue pairs' controller (as
    // flows.csv does), MTU, header and retransmission timeout (IRN's RTO_low), not the
    // section's TCP keys, which its flows do not use.
    // Ge et al.'s bound is on TCP's fast retransmit (three duplicate ACKs), which a queue pair
    // does not have: empty for a RoCE run.
    let (congestion_control, mss_bytes, header_bytes, rto_min_us, fast_retransmit_bound) =
        match (&cfg.tcp.transport, &sim.profiles[0].roce) {
            (crate::config::TransportConfig::Roce(r), Some(roce)) => (
                roce_controller_name(r),
                u64::from(roce.mtu),
                u64::from(roce.header_bytes),
                match roce.rto {
                    incastsim_roce::RtoConfig::Fixed(d) => d,
                    incastsim_roce::RtoConfig::Irn { low, .. } => low,
                }
                .as_us_f64(),
                f64::NAN,
            ),
            _ => (
                cfg.tcp.congestion_control.name(),
                cfg.tcp.mss.0,
                cfg.tcp.header.0,
                cfg.tcp.rto_min.0.as_us_f64(),
                crate::results::metrics::fast_retransmit_sender_bound(cfg),
            ),
        };
    RunRecord {
        scenario: cfg.name.clone(),
        seed: sim.seed,
        topology: cfg.topology.kind().into(),
        senders: cfg.senders,
        workload: cfg.workload.kind().into(),
        scheme: cfg.scheme.name().into(),
        congestion_control: congestion_control.to_string(),
        link_rate_bps: links.link_rate.0.0,
        switch_buffer: links.switch_buffer.to_string(),
        mss_bytes,
        header_bytes,
        rto_min_us,
        fast_retransmit_bound,
        sru_bytes,
        blocks: match &cfg.workload {
            WorkloadConfig::SynchronizedReads { blocks, .. } => *blocks,
            _ => 0,
        },
        ..RunRecord::default()
    }
}

/// The name flows.csv gives a RoCE section's flows: their rate controller's, or without one
/// the transport's recovery (`roce_go_back_n`, `roce_irn`).
fn roce_controller_name(r: &crate::config::RoceTransportConfig) -> &str {
    use crate::config::{RdmaCcConfig, RoceRecovery};
    match (&r.congestion_control, r.recovery) {
        (RdmaCcConfig::None, RoceRecovery::GoBackN) => "roce_go_back_n",
        (RdmaCcConfig::None, RoceRecovery::Irn) => "roce_irn",
        (cc, _) => cc.name(),
    }
}

/// Whether the workload completed, goodput, fairness, blocks and flow counts.
fn workload_outcome(sim: &Simulation, e: &RunEnd, fs: &FlowStats, run: &mut RunRecord) {
    let w = sim.workload_flows;
    let all_bytes: u64 = e.delivered.iter().sum();
    let app_bytes = if w > 0 {
        e.delivered[..w].iter().sum()
    } else {
        all_bytes
    };
    let mut sorted = block_times_ms(sim);
    sorted.sort_by(f64::total_cmp);
    run.completed = sim.outcome == Some(Outcome::Completed);
    run.sim_time_s = e.secs;
    run.app_bytes = app_bytes;
    run.goodput_mbps = match &sim.workload {
        // Measured from the first request (`workload.warmup`), not from time 0.
        Workload::SyncReads(w) if w.warmup > incastsim_core::Duration::ZERO => {
            let secs = e.secs - w.warmup.as_secs_f64();
            if secs > 0.0 {
                app_bytes as f64 * 8.0 / secs / 1e6
            } else {
                0.0
            }
        }
        _ => e.mbps(app_bytes),
    };
    run.total_goodput_mbps = e.mbps(all_bytes);
    run.jain_fairness = fs.jain;
    run.flows_finite = sim
        .generated
        .spec
        .iter()
        .filter(|g| g.size.is_some())
        .count() as u64;
    run.flows_completed = fs.fct_all.count;
    run.blocks_completed = match &sim.workload {
        Workload::SyncReads(w) => w.block_times.len() as u32,
        _ => 0,
    };
    run.bct_mean_ms = if sorted.is_empty() {
        f64::NAN
    } else {
        sorted.iter().sum::<f64>() / sorted.len() as f64
    };
    run.bct_p50_ms = quantile(&sorted, 0.5);
    run.bct_p99_ms = quantile(&sorted, 0.99);
    run.bct_max_ms = sorted.last().copied().unwrap_or(f64::NAN);
}

/// Timeouts, retransmissions and segments summed over every sender.
fn tcp_totals(sim: &Simulation, run: &mut RunRecord) {
    let conns = &sim.transport.conns;
    let mut hist = [0u64; SUCCESSIVE_TIMEOUT_BINS];
    let (mut wait_ps, mut max_first_rto_ps) = (0u64, 0u64);
    for f in 0..sim.transport.flows.len() {
        let st = conns.sender_summary(f).stats;
        for (h, v) in hist.iter_mut().zip(&st.successive_timeouts) {
            *h += v;
        }
        run.rto_count += st.timeouts;
        run.flows_with_rto += u32::from(st.timeouts > 0);
        run.max_successive_rto = run.max_successive_rto.max(st.max_successive_timeouts);
        run.fast_retransmits += st.fast_retransmits;
        run.sack_retransmits += st.sack_retransmits;
        run.retransmitted_segments += st.retransmitted_segments;
        run.data_segments_sent += st.segments_sent;
        run.ecn_reductions += st.ecn_reductions;
        wait_ps += st.timeout_wait_ps;
        max_first_rto_ps = max_first_rto_ps.max(st.first_timeout_rto_ps);
    }
    run.timeout_wait_s = wait_ps as f64 / 1e12;
    run.max_first_rto_ms = if max_first_rto_ps > 0 {
        max_first_rto_ps as f64 / 1e9
    } else {
        f64::NAN
    };
    run.set_successive(&hist);
}

/// Drops by reason, marks, UDP and packet counts, and the number of events.
fn drops(sim: &Simulation, run: &mut RunRecord) {
    let ports = &sim.network.fabric.ports;
    run.drops_total = sim.packets_dropped();
    // A shared buffer's threshold drops count as buffer drops, and on their own.
    run.drops_threshold = ports.iter().map(|p| p.stats().drops_threshold).sum();
    run.drops_buffer_full = ports.iter().map(|p| p.stats().drops_buffer).sum();
    run.drops_buffer = run.drops_threshold + run.drops_buffer_full;
    run.drops_aqm = ports.iter().map(|p| p.stats().drops_aqm).sum();
    run.drops_link_loss = ports.iter().map(|p| p.stats().drops_link_loss).sum();
    run.max_port_drops = ports
        .iter()
        .map(|p| p.stats().drops_total())
        .max()
        .unwrap_or(0);
    run.ecn_marks = ports.iter().map(|p| p.stats().ecn_marks).sum();
    run.udp_packets_sent = sim.udp.iter().map(|u| u.sent).sum();
    run.udp_packets_delivered = sim.udp.iter().map(|u| u.delivered).sum();
    let c = sim.network.counters;
    run.packets_sent = c.sent;
    run.packets_forwarded = c.forwarded;
    run.events = sim.events_processed;
}
