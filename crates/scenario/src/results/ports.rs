//! Per-port results: ports.csv, port_classes.csv, and the time series (sampled, plus the exact
//! queue trace of `time_series.on_change_port`).

use crate::engine::Simulation;
use crate::results::metrics::{
    PfcRecord, PortClassRecord, PortRecord, SharedBufferRecord, TimeSeriesRecord,
};
use incastsim_core::Time;

/// The rows of ports.csv (diagnostic columns are filled later).
pub(crate) fn port_records(sim: &mut Simulation, end: Time) -> Vec<PortRecord> {
    let end_ps = end.as_ps().max(1) as f64;
    let fabric = &mut sim.network.fabric;
    let mean_queue: Vec<f64> = fabric
        .ports
        .iter_mut()
        .map(|p| p.mean_queue_bytes(end))
        .collect();
    let cfg = &sim.cfg;
    // The disciplines' own values: the same columns on every row.
    let values: Vec<Vec<(&'static str, f64)>> =
        fabric.ports.iter().map(|p| p.discipline_values()).collect();
    let mut names: Vec<&'static str> = Vec::new();
    for (name, _) in values.iter().flatten() {
        if !names.contains(name) {
            names.push(name);
        }
    }
    fabric
        .ports
        .iter()
        .enumerate()
        .map(|(i, p)| (i, p, p.stats()))
        .map(|(i, p, st)| PortRecord {
            scenario: cfg.name.clone(),
            seed: sim.seed,
            senders: cfg.senders,
            port: i as u32,
            from_node: fabric.node_names[fabric.port_from[i] as usize].clone(),
            to_node: fabric.node_names[p.to as usize].clone(),
            packets_enqueued: st.enqueued_packets,
            // Both causes, then each.
            drops_buffer: st.drops_buffer + st.drops_threshold,
            drops_threshold: st.drops_threshold,
            drops_buffer_full: st.drops_buffer,
            drops_aqm: st.drops_aqm,
            drops_link_loss: st.drops_link_loss,
            ecn_marks: st.ecn_marks,
            mean_queue_bytes: mean_queue[i],
            max_queue_bytes: st.max_buffered_bytes,
            max_queue_packets: st.max_buffered_packets,
            utilization: (st.busy_ps as f64 / end_ps).min(1.0),
            values: crate::probe::columns::ProbeColumns(
                names
                    .iter()
                    .map(|&n| {
                        let v = values[i].iter().find(|(k, _)| *k == n).map(|&(_, v)| v);
                        (n.to_string(), v.into())
                    })
                    .collect(),
            ),
            ..PortRecord::default()
        })
        .collect()
}

/// The rows of port_classes.csv: per port and traffic class that saw any packet.
pub(crate) fn port_class_records(sim: &Simulation) -> Vec<PortClassRecord> {
    let fabric = &sim.network.fabric;
    // Usually one class per port that carried packets: about one row per port.
    let mut out = Vec::with_capacity(fabric.ports.len());
    for (i, p) in fabric.ports.iter().enumerate() {
        let st = p.stats();
        for c in 0..incastsim_switch::STAT_CLASSES {
            if st.class_enqueued[c] + st.class_drops[c] > 0 {
                out.push(PortClassRecord {
                    scenario: sim.cfg.name.clone(),
                    seed: sim.seed,
                    senders: sim.cfg.senders,
                    port: i as u32,
                    from_node: fabric.node_names[fabric.port_from[i] as usize].clone(),
                    to_node: fabric.node_names[p.to as usize].clone(),
                    class: c as u32,
                    packets_enqueued: st.class_enqueued[c],
                    drops: st.class_drops[c],
                    ecn_marks: st.class_marks[c],
                });
            }
        }
    }
    out
}

/// The rows of shared_buffers.csv: every queue of every shared buffer. On a shared-buffer port,
/// ports.csv's `drops_buffer` counts both causes (split there too: `drops_threshold`,
/// `drops_buffer_full`); this file adds the buffers' own totals and occupancy.
pub(crate) fn shared_buffer_records(sim: &mut Simulation, end: Time) -> Vec<SharedBufferRecord> {
    let fabric = &mut sim.network.fabric;
    let mut out = Vec::new();
    for (i, sb) in fabric.shared_buffers.iter().enumerate() {
        let means: Vec<f64> = sb
            .ports
            .iter()
            .map(|&p| fabric.ports[p as usize].mean_queue_bytes(end))
            .collect();
        let base = SharedBufferRecord {
            scenario: sim.cfg.name.clone(),
            seed: sim.seed,
            senders: sim.cfg.senders,
            switch: fabric.node_names[fabric.shared_buffer_switch[i] as usize].clone(),
            size_bytes: sb.params.size_bytes,
            alpha: sb.params.alpha,
            reserved_per_queue_bytes: sb.params.reserved_per_queue_bytes,
            buffer_max_occupancy_bytes: sb.stats.max_occupancy_bytes,
            buffer_mean_occupancy_bytes: means.iter().sum(),
            buffer_drops_threshold: sb.stats.drops_threshold,
            buffer_drops_full: sb.stats.drops_buffer_full,
            ..SharedBufferRecord::default()
        };
        for (&p, mean) in sb.ports.iter().zip(means) {
            let port = &fabric.ports[p as usize];
            out.push(SharedBufferRecord {
                port: p,
                to_node: fabric.node_names[port.to as usize].clone(),
                drops_threshold: port.stats().drops_threshold,
                drops_full: port.stats().drops_buffer,
                max_queue_bytes: port.stats().max_buffered_bytes,
                mean_queue_bytes: mean,
                ..base.clone()
            });
        }
    }
    out
}

/// The rows of pfc.csv: per port and lossless priority, the frames it sent and received,
/// its pause time, and the counts of its node's input from its far end.
pub(crate) fn pfc_records(sim: &Simulation, end: Time) -> Vec<PfcRecord> {
    let Some(pfc) = sim.network.pfc.as_deref() else {
        return Vec::new();
    };
    let fabric = &sim.network.fabric;
    let mut out = Vec::new();
    for p in 0..fabric.ports.len() as u32 {
        let input = pfc.plan.reverse[p as usize];
        for &class in &pfc.plan.lossless {
            let slot = pfc.slot(p, class as usize).expect("lossless");
            let count = &pfc.counts[pfc.slot(input, class as usize).expect("lossless")];
            let pause = &pfc.pause[slot];
            let (paused_ps, longest_ps) = pause.paused_by(end);
            out.push(PfcRecord {
                scenario: sim.cfg.name.clone(),
                seed: sim.seed,
                senders: sim.cfg.senders,
                port: p,
                from_node: fabric.node_names[fabric.port_from[p as usize] as usize].clone(),
                to_node: fabric.node_names[fabric.ports[p as usize].to as usize].clone(),
                priority: class,
                pauses_sent: pause.pauses_sent,
                resumes_sent: pause.resumes_sent,
                pauses_received: pause.pauses_received,
                resumes_received: pause.resumes_received,
                paused_us: paused_ps as f64 / 1e6,
                longest_pause_us: longest_ps as f64 / 1e6,
                xoff_crossings: count.xoff_crossings,
                ingress_peak_bytes: count.peak,
                headroom_bytes: pfc.plan.headroom[input as usize],
                headroom_peak_bytes: count.headroom_peak,
                overflow_drops: count.overflow_drops,
            });
        }
    }
    out
}

/// The sampled series, then the exact queue trace of the traced port.
pub(crate) fn time_series(sim: &mut Simulation, end: Time) -> Vec<TimeSeriesRecord> {
    let mut series = std::mem::take(&mut sim.obs.sampler.series);
    let Some(port) = sim.obs.sampler.traced_port else {
        return series;
    };
    let object = format!("port {}", sim.network.fabric.port_name(port));
    for (t, bytes, packets) in sim.network.fabric.ports[port as usize].take_trace(end) {
        for (metric, value) in [
            ("queue_bytes_exact", bytes as f64),
            ("queue_packets_exact", packets as f64),
        ] {
            series.push(TimeSeriesRecord {
                scenario: sim.cfg.name.clone(),
                seed: sim.seed,
                time_s: t.as_secs_f64(),
                object: object.clone(),
                metric,
                value,
            });
        }
    }
    series
}
