//! PFC's diagnostics as records: the deadlocks found (pfc_deadlocks.csv), each lossless flow's
//! paused time and whether it was a victim (pfc_flows.csv), and the run's pause depth
//! (pfc_summary.csv). The definitions are in `engine/pfc/flows.rs` and docs/lossless.md.

use super::RunEnd;
use super::flows::FlowStats;
use crate::engine::Simulation;
use crate::results::metrics::{PfcDeadlockRecord, PfcFlowRecord, PfcSummaryRecord};
use incastsim_core::{HostId, Time};

/// pfc_deadlocks.csv, pfc_flows.csv and pfc_summary.csv's rows (all empty without `pfc:`).
pub(crate) fn pfc_diagnostics(
    sim: &Simulation,
    e: &RunEnd,
    fs: &FlowStats,
) -> (
    Vec<PfcDeadlockRecord>,
    Vec<PfcFlowRecord>,
    Vec<PfcSummaryRecord>,
) {
    let Some(pfc) = sim.network.pfc.as_deref() else {
        return (Vec::new(), Vec::new(), Vec::new());
    };
    let fabric = &sim.network.fabric;
    let ps_us = |ps: u64| ps as f64 / 1e6;
    let deadlocks: Vec<PfcDeadlockRecord> = pfc
        .deadlock
        .reports
        .iter()
        .map(|d| PfcDeadlockRecord {
            scenario: sim.cfg.name.clone(),
            seed: sim.seed,
            priority: d.class,
            formed_us: ps_us(d.formed.as_ps()),
            detected_us: ps_us(d.detected.as_ps()),
            length: d.ports.len() as u32,
            ports: d
                .ports
                .iter()
                .map(|&p| fabric.port_name(p))
                .collect::<Vec<_>>()
                .join(" "),
            port_indices: d
                .ports
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(" "),
        })
        .collect();
    let classes = sim.cfg.topology.links().priority_classes.max(1);
    let class_of = |dscp: u8| u32::from(dscp).min(classes - 1) as usize;
    let host_name = |h: HostId| {
        let nic = fabric.host_port[h as usize] as usize;
        fabric.node_names[fabric.port_from[nic] as usize].clone()
    };
    // The last switch's port to host h.
    let dst_port = |h: HostId| pfc.plan.reverse[fabric.host_port[h as usize] as usize];
    let (tcp_ps, udp_ps) = pfc.flow_paused_ps(&fabric.ports, &sim.network.nic, e.end);
    let mut flows = Vec::new();
    let mut row = |kind: &str, flow: usize, src, dst, class, paused: u64, from: Time, to: Time| {
        let lossless = pfc.slot(0, class).is_some();
        if !lossless && paused == 0 {
            return;
        }
        let victim = paused > 0 && !pfc.congested_between(dst_port(dst), class, from, to);
        flows.push(PfcFlowRecord {
            scenario: sim.cfg.name.clone(),
            seed: sim.seed,
            kind: kind.into(),
            flow: flow as u32,
            src: host_name(src),
            dst: host_name(dst),
            paused_us: ps_us(paused),
            victim,
        });
    };
    for (f, ends) in sim.transport.flows.iter().enumerate() {
        let dscp = sim
            .flow_profile
            .get(f)
            .map_or(sim.cfg.tcp.dscp, |&p| sim.profiles[p as usize].dscp);
        let start = fs.start.get(f).copied().unwrap_or(Time::ZERO);
        let end = match fs.fct.get(f).copied().flatten() {
            Some(fct) => start + fct,
            None => e.end,
        };
        let paused = tcp_ps.get(f).copied().unwrap_or(0);
        row(
            "tcp",
            f,
            ends.src,
            ends.dst,
            class_of(dscp),
            paused,
            start,
            end,
        );
    }
    for (i, u) in sim.udp.iter().enumerate() {
        let p = u.plan();
        let paused = udp_ps.get(i).copied().unwrap_or(0);
        row(
            "udp",
            i,
            p.src,
            p.dst,
            class_of(p.dscp),
            paused,
            u.start(),
            e.end,
        );
    }
    let (depth, depth_port) = pfc.max_depth;
    let summary = PfcSummaryRecord {
        scenario: sim.cfg.name.clone(),
        seed: sim.seed,
        max_pause_depth: depth,
        max_pause_depth_port: if depth > 0 {
            fabric.port_name(depth_port)
        } else {
            String::new()
        },
        deadlocks: deadlocks.len() as u32,
        paused_flows: flows.iter().filter(|f| f.paused_us > 0.0).count() as u32,
        victim_flows: flows.iter().filter(|f| f.victim).count() as u32,
    };
    (deadlocks, flows, vec![summary])
}
