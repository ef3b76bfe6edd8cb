//! runs.csv's RDMA columns: written only when some flow runs an RDMA rate controller (a RoCE
//! queue pair with `congestion_control` other than `none`), so every other run's runs.csv keeps
//! its columns. The rate controllers' fairness and activity over the flows, the switches'
//! queues, PFC's pause time, and the slowdown quantiles the HPCC paper's FCT study reports.
//! Computed from the other records (flows.csv's `rdma_*` values, ports.csv, pfc.csv, the FCT
//! statistics), so each has one definition.

use crate::probe::ProbeValue;
use crate::results::metrics::{FctStats, FlowRecord, PfcRecord, PortRecord, jain_fairness};

/// The columns, in order (after the built-in columns, before the generators' and probes').
pub const RDMA_RUN_COLUMNS: [&str; 12] = [
    "rdma_mean_rate_gbps",
    "rdma_rate_jain",
    "rdma_rate_max_over_min",
    "rdma_cnps",
    "rdma_rate_decreases",
    "max_switch_queue_bytes",
    "mean_bottleneck_queue_bytes",
    "pfc_paused_us",
    "slowdown_p50",
    "slowdown_p95",
    "slowdown_small_p50",
    "slowdown_small_p95",
];

/// A flow's value of flows.csv's column `name` (its rate controller's), if it has one.
fn flow_value(f: &FlowRecord, name: &str) -> Option<f64> {
    match f.probes.get(name)? {
        ProbeValue::Float(v) => Some(*v),
        ProbeValue::UInt(v) => Some(*v as f64),
        ProbeValue::Int(v) => Some(*v as f64),
        _ => None,
    }
}

/// The columns' values.
///
/// - `rdma_mean_rate_gbps`: the mean over the fairness-selected flows (`chosen`, those with a
///   rate controller) of their mean rates (flows.csv's `rdma_mean_rate_gbps`);
/// - `rdma_rate_jain`, `rdma_rate_max_over_min`: Jain's index and max/min of their final rates
///   (`rdma_final_rate_gbps`), or with `metrics.rate_from` of their mean rates since then
///   (`rdma_window_rate_gbps`); max/min empty when the smallest is 0 or fewer than 2 flows;
/// - `rdma_cnps`, `rdma_rate_decreases`: CNPs received and rate cuts, summed over every flow;
/// - `max_switch_queue_bytes`: the largest `max_queue_bytes` of a port leaving a switch
///   (`switch_port[i]` for ports.csv's row i); `mean_bottleneck_queue_bytes`: the largest
///   `mean_queue_bytes` (time-averaged) of such a port;
/// - `pfc_paused_us`: pfc.csv's `paused_us` summed over its rows (ports and priorities; 0
///   without PFC);
/// - `slowdown_p50`, `slowdown_p95`, `slowdown_small_{p50,p95}`: slowdown quantiles of the
///   completed sized flows, all and the small group (empty without any).
pub fn run_columns(
    flows: &[FlowRecord],
    chosen: &[usize],
    ports: &[PortRecord],
    switch_port: &[bool],
    pfc: &[PfcRecord],
    fct_all: &FctStats,
    fct_small: &FctStats,
) -> Vec<(String, ProbeValue)> {
    let picked: Vec<&FlowRecord> = chosen
        .iter()
        .filter_map(|&f| flows.get(f))
        .filter(|f| flow_value(f, "rdma_final_rate_gbps").is_some())
        .collect();
    let means: Vec<f64> = picked
        .iter()
        .filter_map(|f| flow_value(f, "rdma_mean_rate_gbps"))
        .collect();
    // With `metrics.rate_from`, the rates since then; else the final ones.
    let finals: Vec<f64> = picked
        .iter()
        .filter_map(|f| {
            flow_value(f, "rdma_window_rate_gbps").or_else(|| flow_value(f, "rdma_final_rate_gbps"))
        })
        .collect();
    let mean_rate = if means.is_empty() {
        f64::NAN
    } else {
        means.iter().sum::<f64>() / means.len() as f64
    };
    let jain = if finals.is_empty() {
        f64::NAN
    } else {
        jain_fairness(&finals)
    };
    let max = finals.iter().copied().fold(f64::NAN, f64::max);
    let min = finals.iter().copied().fold(f64::NAN, f64::min);
    let max_over_min = if finals.len() >= 2 && min > 0.0 {
        max / min
    } else {
        f64::NAN
    };
    let sum = |name: &str| -> u64 {
        flows
            .iter()
            .filter_map(|f| flow_value(f, name))
            .sum::<f64>() as u64
    };
    let switch_ports = || {
        ports
            .iter()
            .enumerate()
            .filter(|(i, _)| switch_port.get(*i).copied().unwrap_or(false))
            .map(|(_, p)| p)
    };
    let max_queue = switch_ports().map(|p| p.max_queue_bytes).max().unwrap_or(0);
    let mean_queue = switch_ports()
        .map(|p| p.mean_queue_bytes)
        .fold(0.0, f64::max);
    let paused: f64 = pfc.iter().map(|r| r.paused_us).sum();
    let values: [ProbeValue; 12] = [
        mean_rate.into(),
        jain.into(),
        max_over_min.into(),
        sum("rdma_cnps_received").into(),
        sum("rdma_rate_decreases").into(),
        max_queue.into(),
        mean_queue.into(),
        paused.into(),
        fct_all.slowdown_p50.into(),
        fct_all.slowdown_p95.into(),
        fct_small.slowdown_p50.into(),
        fct_small.slowdown_p95.into(),
    ];
    RDMA_RUN_COLUMNS
        .iter()
        .map(|n| n.to_string())
        .zip(values)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::columns::ProbeColumns;

    fn flow(mean: Option<f64>, fin: Option<f64>, cnps: u64, cuts: u64) -> FlowRecord {
        let mut v = Vec::new();
        if let Some(m) = mean {
            v.push(("rdma_mean_rate_gbps".to_string(), ProbeValue::Float(m)));
        }
        v.push((
            "rdma_final_rate_gbps".to_string(),
            fin.map_or(ProbeValue::Missing, ProbeValue::Float),
        ));
        v.push((
            "rdma_cnps_received".to_string(),
            ProbeValue::Float(cnps as f64),
        ));
        v.push((
            "rdma_rate_decreases".to_string(),
            ProbeValue::Float(cuts as f64),
        ));
        FlowRecord {
            probes: ProbeColumns(v),
            ..FlowRecord::default()
        }
    }

    fn port(max: u64, mean: f64) -> PortRecord {
        PortRecord {
            max_queue_bytes: max,
            mean_queue_bytes: mean,
            ..PortRecord::default()
        }
    }

    fn get<'a>(cols: &'a [(String, ProbeValue)], name: &str) -> &'a ProbeValue {
        &cols.iter().find(|(k, _)| k == name).expect(name).1
    }

    fn float(v: &ProbeValue) -> f64 {
        match v {
            ProbeValue::Float(x) => *x,
            ProbeValue::UInt(x) => *x as f64,
            other => panic!("not a number: {other:?}"),
        }
    }

    #[test]
    fn rates_queues_pauses_and_slowdowns() {
        let flows = [
            flow(Some(30.0), Some(40.0), 3, 2),
            flow(Some(10.0), Some(20.0), 5, 4),
            // Not selected: its counts still add up, its rates do not count.
            flow(Some(99.0), Some(1.0), 7, 1),
        ];
        let ports = [port(5000, 100.0), port(9000, 50.0), port(1_000_000, 9e5)];
        // The third port is a host's NIC: not a switch port.
        let switch = [true, true, false];
        let pfc = [
            PfcRecord {
                paused_us: 1.5,
                ..PfcRecord::default()
            },
            PfcRecord {
                paused_us: 2.0,
                ..PfcRecord::default()
            },
        ];
        let all = FctStats::of(&[(1.0, 1.0), (1.0, 2.0), (1.0, 3.0), (1.0, 4.0), (1.0, 5.0)]);
        let small = FctStats::of(&[(1.0, 2.0), (1.0, 4.0)]);
        let cols = run_columns(&flows, &[0, 1], &ports, &switch, &pfc, &all, &small);
        let names: Vec<&str> = cols.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, RDMA_RUN_COLUMNS);
        assert_eq!(float(get(&cols, "rdma_mean_rate_gbps")), 20.0);
        // (40 + 20)² / (2 · (1600 + 400)) = 3600 / 4000
        assert!((float(get(&cols, "rdma_rate_jain")) - 0.9).abs() < 1e-12);
        assert_eq!(float(get(&cols, "rdma_rate_max_over_min")), 2.0);
        assert_eq!(get(&cols, "rdma_cnps"), &ProbeValue::UInt(15));
        assert_eq!(get(&cols, "rdma_rate_decreases"), &ProbeValue::UInt(7));
        assert_eq!(
            get(&cols, "max_switch_queue_bytes"),
            &ProbeValue::UInt(9000)
        );
        assert_eq!(float(get(&cols, "mean_bottleneck_queue_bytes")), 100.0);
        assert_eq!(float(get(&cols, "pfc_paused_us")), 3.5);
        assert_eq!(float(get(&cols, "slowdown_p50")), 3.0);
        // h = 4 · 0.95 = 3.8: 4 + 0.8 · 1
        assert!((float(get(&cols, "slowdown_p95")) - 4.8).abs() < 1e-12);
        assert_eq!(float(get(&cols, "slowdown_small_p50")), 3.0);
        assert!((float(get(&cols, "slowdown_small_p95")) - 3.9).abs() < 1e-12);
    }

    #[test]
    fn what_does_not_exist_is_empty() {
        // One selected flow without a mean rate (it never got an ACK), no sized flows.
        let flows = [flow(None, Some(0.0), 0, 0)];
        let none = FctStats::of(&[]);
        let cols = run_columns(&flows, &[0], &[], &[], &[], &none, &none);
        let empty = |name: &str| {
            let v = get(&cols, name);
            // NaN is written as an empty field (ProbeValue's Serialize).
            assert!(
                matches!(v, ProbeValue::Float(x) if x.is_nan()),
                "{name}: {v:?}"
            );
        };
        empty("rdma_mean_rate_gbps");
        empty("rdma_rate_max_over_min");
        empty("slowdown_p50");
        empty("slowdown_small_p95");
        // Jain of one all-zero share: 1 (nobody is treated unfairly).
        assert_eq!(float(get(&cols, "rdma_rate_jain")), 1.0);
        assert_eq!(float(get(&cols, "pfc_paused_us")), 0.0);
        assert_eq!(get(&cols, "max_switch_queue_bytes"), &ProbeValue::UInt(0));
        // Equal rates: max/min 1.
        let flows = [
            flow(Some(5.0), Some(5.0), 0, 0),
            flow(Some(5.0), Some(5.0), 0, 0),
        ];
        let cols = run_columns(&flows, &[0, 1], &[], &[], &[], &none, &none);
        assert_eq!(float(get(&cols, "rdma_rate_max_over_min")), 1.0);
    }
}
