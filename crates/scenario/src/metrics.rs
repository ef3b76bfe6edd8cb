//! Run results: what goes into runs.csv, flows.csv and ports.csv.
//!
//! Every field is computed from simulated quantities only (no wall-clock), so the CSVs of a
//! (config, seed) pair are byte-identical on every machine and thread count.

use incastsim_tcp::SUCCESSIVE_TIMEOUT_BINS;
use serde::Serialize;

/// Jain's fairness index (Σx)² / (n·Σx²); 1 for equal shares, 1/n when one flow has all.
/// Defined as 1 for an empty set or all-zero shares (nobody is treated unfairly).
pub fn jain_fairness(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let sum: f64 = xs.iter().sum();
    let sum_sq: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || sum_sq == 0.0 {
        1.0
    } else {
        sum * sum / (n * sum_sq)
    }
}

/// The q-quantile (0 ≤ q ≤ 1) by linear interpolation between order statistics (numpy's
/// default, "type 7"). `sorted` must be sorted ascending; NaN if empty.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// One row of runs.csv.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RunRecord {
    pub scenario: String,
    pub seed: u64,
    pub topology: String,
    pub senders: u32,
    pub workload: String,
    pub scheme: String,
    pub congestion_control: String,
    pub link_rate_bps: u64,
    pub switch_buffer: String,
    pub mss_bytes: u64,
    pub header_bytes: u64,
    pub rto_min_us: f64,
    /// Ge et al. Eq. 3: senders below which each keeps a window > 5 packets (fast retransmit
    /// still works): (B + 2CT)/(5L).
    pub fast_retransmit_bound: f64,
    /// Bytes each sender sends per block (synchronized reads; mean if striping is uneven).
    pub sru_bytes: f64,
    pub blocks: u32,
    /// True if the workload finished before run.max_sim_time.
    pub completed: bool,
    pub sim_time_s: f64,
    pub app_bytes: u64,
    /// Application bytes delivered / total time.
    pub goodput_mbps: f64,
    pub jain_fairness: f64,
    pub blocks_completed: u32,
    pub bct_mean_ms: f64,
    pub bct_p50_ms: f64,
    pub bct_p99_ms: f64,
    pub bct_max_ms: f64,
    pub rto_count: u64,
    pub flows_with_rto: u32,
    /// Episodes of exactly k successive timeouts of one segment (k = 1..7), then 8 or more.
    pub rto_run_1: u64,
    pub rto_run_2: u64,
    pub rto_run_3: u64,
    pub rto_run_4: u64,
    pub rto_run_5: u64,
    pub rto_run_6: u64,
    pub rto_run_7: u64,
    pub rto_run_8plus: u64,
    pub max_successive_rto: u32,
    pub timeout_wait_s: f64,
    pub fast_retransmits: u64,
    pub sack_retransmits: u64,
    pub retransmitted_segments: u64,
    pub data_segments_sent: u64,
    pub ecn_reductions: u64,
    pub drops_total: u64,
    pub drops_buffer: u64,
    pub drops_aqm: u64,
    pub drops_link_loss: u64,
    pub max_port_drops: u64,
    pub ecn_marks: u64,
    pub udp_packets_sent: u64,
    pub udp_packets_delivered: u64,
    pub packets_sent: u64,
    pub packets_forwarded: u64,
    pub events: u64,
}

impl RunRecord {
    pub fn set_successive(&mut self, hist: &[u64; SUCCESSIVE_TIMEOUT_BINS]) {
        [
            &mut self.rto_run_1,
            &mut self.rto_run_2,
            &mut self.rto_run_3,
            &mut self.rto_run_4,
            &mut self.rto_run_5,
            &mut self.rto_run_6,
            &mut self.rto_run_7,
            &mut self.rto_run_8plus,
        ]
        .into_iter()
        .zip(hist)
        .for_each(|(dst, v)| *dst = *v);
    }
}

/// One row of flows.csv.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FlowRecord {
    pub scenario: String,
    pub seed: u64,
    pub senders: u32,
    pub flow: u32,
    pub src_host: u32,
    pub dst_host: u32,
    pub congestion_control: String,
    pub bytes_delivered: u64,
    pub goodput_mbps: f64,
    pub rto_count: u64,
    pub max_successive_rto: u32,
    pub timeout_wait_s: f64,
    pub fast_retransmits: u64,
    pub sack_retransmits: u64,
    pub retransmitted_segments: u64,
    pub segments_sent: u64,
    pub ecn_reductions: u64,
    pub final_cwnd_bytes: u64,
    pub final_ssthresh_bytes: u64,
    pub srtt_us: f64,
}

/// One row of ports.csv.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PortRecord {
    pub scenario: String,
    pub seed: u64,
    pub senders: u32,
    pub port: u32,
    pub from_node: String,
    pub to_node: String,
    pub packets_enqueued: u64,
    pub drops_buffer: u64,
    pub drops_aqm: u64,
    pub drops_link_loss: u64,
    pub ecn_marks: u64,
    pub mean_queue_bytes: f64,
    pub max_queue_bytes: u64,
    pub max_queue_packets: u32,
    pub utilization: f64,
}

/// One row of port_classes.csv: a port's counters for one traffic class (DSCP, capped at 7).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PortClassRecord {
    pub scenario: String,
    pub seed: u64,
    pub senders: u32,
    pub port: u32,
    pub from_node: String,
    pub to_node: String,
    pub class: u32,
    pub packets_enqueued: u64,
    pub drops: u64,
    pub ecn_marks: u64,
}

/// One row of timeseries.csv (long format).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimeSeriesRecord {
    pub scenario: String,
    pub seed: u64,
    pub time_s: f64,
    /// "port switch0->host16" or "flow 3".
    pub object: String,
    pub metric: &'static str,
    pub value: f64,
}

/// Everything one run produces.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    pub run: RunRecord,
    pub flows: Vec<FlowRecord>,
    pub ports: Vec<PortRecord>,
    pub port_classes: Vec<PortClassRecord>,
    /// Sampled series, if the config asked for them.
    pub time_series: Vec<TimeSeriesRecord>,
    /// Completion time of every block, ms.
    pub block_times_ms: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_bounds() {
        assert_eq!(jain_fairness(&[5.0, 5.0, 5.0]), 1.0);
        assert!((jain_fairness(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        // (1+2+3)^2 / (3 * 14) = 36/42
        assert!((jain_fairness(&[1.0, 2.0, 3.0]) - 36.0 / 42.0).abs() < 1e-12);
    }

    #[test]
    fn quantiles_interpolate() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 1.0), 4.0);
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert!((quantile(&v, 0.99) - 3.97).abs() < 1e-12);
        assert!(quantile(&[], 0.5).is_nan());
    }
}
