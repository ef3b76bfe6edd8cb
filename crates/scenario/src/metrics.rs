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

/// Ge et al. ("seed 001") Eq. 3, N < (B + 2CT)/(5L), for this config (through
/// `incastsim_models::packet_size::n_max_bound`): B the switch buffer (bytes; a buffer in packets
/// counts full packets), C the link rate, T the one-way propagation delay from a sender to the
/// receiver through one switch (two links of `link_delay`, so 2CT is the round-trip
/// bandwidth-delay product: the paper's 25 µs links give its 100 µs RTT), L a full packet
/// (mss + header). NaN when the buffer is unlimited.
pub fn fast_retransmit_sender_bound(cfg: &crate::config::Config) -> f64 {
    let l = cfg.full_packet_bytes() as f64;
    let links = cfg.topology.links();
    let b = match links.switch_buffer {
        crate::units::Buffer::Bytes(b) => b as f64,
        crate::units::Buffer::Packets(p) => p as f64 * l,
        crate::units::Buffer::Unlimited => return f64::NAN,
    };
    let t = 2.0 * links.link_delay.0.as_secs_f64();
    incastsim_models::packet_size::n_max_bound(b, links.link_rate.0.as_f64(), t, l)
        .map_or(f64::NAN, |n| n.bound)
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
    /// Application bytes of the workload's flows (all flows for a `traffic` workload) / total
    /// time.
    pub goodput_mbps: f64,
    /// Application bytes of every TCP flow (workload and traffic generators) / total time.
    pub total_goodput_mbps: f64,
    /// Jain's index over `metrics.fairness` (default: the workload's flows, one value per flow).
    pub jain_fairness: f64,
    /// Flows of the traffic generators with a size (Poisson), and how many completed.
    pub flows_finite: u64,
    pub flows_completed: u64,
    /// Flow-completion times of the completed finite flows, and slowdown = FCT / ideal FCT
    /// (the flow alone on an idle network).
    pub fct_mean_ms: f64,
    pub fct_p50_ms: f64,
    pub fct_p99_ms: f64,
    pub fct_max_ms: f64,
    pub slowdown_mean: f64,
    pub slowdown_p99: f64,
    /// The same per size group (`metrics.fct_bins`; default small < 100 KB <= mid < 10 MB <=
    /// large).
    pub fct_small_count: u64,
    pub fct_small_mean_ms: f64,
    pub fct_small_p50_ms: f64,
    pub fct_small_p99_ms: f64,
    pub fct_small_max_ms: f64,
    pub slowdown_small_mean: f64,
    pub slowdown_small_p99: f64,
    pub fct_mid_count: u64,
    pub fct_mid_mean_ms: f64,
    pub fct_mid_p50_ms: f64,
    pub fct_mid_p99_ms: f64,
    pub fct_mid_max_ms: f64,
    pub slowdown_mid_mean: f64,
    pub slowdown_mid_p99: f64,
    pub fct_large_count: u64,
    pub fct_large_mean_ms: f64,
    pub fct_large_p50_ms: f64,
    pub fct_large_p99_ms: f64,
    pub fct_large_max_ms: f64,
    pub slowdown_large_mean: f64,
    pub slowdown_large_p99: f64,
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
    /// X = the largest RTO value that expired at a flow's first timeout, over the flows that
    /// timed out (the RTO randomization paper's max RTO, its Eq. 4-7; NaN if none did).
    pub max_first_rto_ms: f64,
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
    // ----- diagnostics (crate::diagnostics; README "Diagnostics") -----
    /// Timeouts by class (`incastsim_tcp::timeout_class`); they add up to `rto_count`.
    pub rto_abtt: u64,
    pub rto_ibtt_whole_window: u64,
    pub rto_ibtt_partial_window: u64,
    pub rto_ibtt_tail: u64,
    pub rto_ibtt_retransmission: u64,
    /// Packets offered to all ports, and (buffer + AQM drops) / offered.
    pub packets_offered: u64,
    pub drop_ratio: f64,
    /// Runs of consecutive drops per (output port, input port), lengths 1..7, 8+.
    pub input_drop_run_1: u64,
    pub input_drop_run_2: u64,
    pub input_drop_run_3: u64,
    pub input_drop_run_4: u64,
    pub input_drop_run_5: u64,
    pub input_drop_run_6: u64,
    pub input_drop_run_7: u64,
    pub input_drop_run_8plus: u64,
    pub max_input_drop_run: u32,
    /// Runs of consecutive drops of one flow's data segments at one port.
    pub flow_drop_run_1: u64,
    pub flow_drop_run_2: u64,
    pub flow_drop_run_3: u64,
    pub flow_drop_run_4: u64,
    pub flow_drop_run_5: u64,
    pub flow_drop_run_6: u64,
    pub flow_drop_run_7: u64,
    pub flow_drop_run_8plus: u64,
    pub max_flow_drop_run: u32,
    /// The book's §3.2 measurements over the model flows (the workload's).
    pub model_flows: u32,
    pub model_packets_sent: u64,
    pub loss_indications: u64,
    pub loss_events: u64,
    pub p_c: f64,
    pub p_r: f64,
    pub delta_abtt_per_block: f64,
    pub rtt_mean_us: f64,
    pub t0_ms: f64,
    pub block_packets: f64,
    /// Delayed ACK was on: the models assume one ACK per packet.
    pub delayed_ack: bool,
    /// The book's models (Eq. 3.21, 3.39, 3.40) on the measured inputs, in Mbps of payload
    /// (`metrics.models: true`; NaN otherwise or where a model is undefined).
    pub model_td_only_mbps: f64,
    pub model_full_mbps: f64,
    pub model_split_mbps: f64,
    pub model_j: f64,
    pub model_q_full: f64,
    pub model_q_split: f64,
    /// Columns added by probes (`crate::probe`), after every built-in column; none without.
    #[serde(flatten)]
    pub probes: crate::probe::ProbeColumns,
}

/// Fills the eight fields of a run-length histogram from its bins.
macro_rules! set_bins {
    ($rec:expr, $bins:expr, $($f:ident),+) => {{
        let mut it = $bins.iter();
        $( $rec.$f = *it.next().expect("8 bins"); )+
    }};
}

impl RunRecord {
    pub fn set_input_drop_runs(&mut self, b: &[u64; 8]) {
        set_bins!(
            self,
            b,
            input_drop_run_1,
            input_drop_run_2,
            input_drop_run_3,
            input_drop_run_4,
            input_drop_run_5,
            input_drop_run_6,
            input_drop_run_7,
            input_drop_run_8plus
        );
    }
    pub fn set_flow_drop_runs(&mut self, b: &[u64; 8]) {
        set_bins!(
            self,
            b,
            flow_drop_run_1,
            flow_drop_run_2,
            flow_drop_run_3,
            flow_drop_run_4,
            flow_drop_run_5,
            flow_drop_run_6,
            flow_drop_run_7,
            flow_drop_run_8plus
        );
    }
}

impl FlowRecord {
    pub fn set_drop_runs(&mut self, b: &[u64; 8]) {
        set_bins!(
            self,
            b,
            drop_run_1,
            drop_run_2,
            drop_run_3,
            drop_run_4,
            drop_run_5,
            drop_run_6,
            drop_run_7,
            drop_run_8plus
        );
    }
}

impl PortRecord {
    pub fn set_drop_runs(&mut self, b: &[u64; 8]) {
        set_bins!(
            self,
            b,
            drop_run_1,
            drop_run_2,
            drop_run_3,
            drop_run_4,
            drop_run_5,
            drop_run_6,
            drop_run_7,
            drop_run_8plus
        );
    }
}

impl DropRunRecord {
    pub fn set_runs(&mut self, b: &[u64; 8]) {
        set_bins!(
            self,
            b,
            drop_run_1,
            drop_run_2,
            drop_run_3,
            drop_run_4,
            drop_run_5,
            drop_run_6,
            drop_run_7,
            drop_run_8plus
        );
    }
}

/// One row of drop_runs.csv: an (output port, input port) pair that was offered packets.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DropRunRecord {
    pub scenario: String,
    pub seed: u64,
    pub senders: u32,
    pub port: u32,
    pub port_name: String,
    /// The input port (the link the packets arrived on); empty for a host's own packets.
    pub input_port: Option<u32>,
    pub input_name: String,
    pub packets_offered: u64,
    pub drops: u64,
    pub drop_ratio: f64,
    pub drop_run_1: u64,
    pub drop_run_2: u64,
    pub drop_run_3: u64,
    pub drop_run_4: u64,
    pub drop_run_5: u64,
    pub drop_run_6: u64,
    pub drop_run_7: u64,
    pub drop_run_8plus: u64,
    pub max_drop_run: u32,
}

/// FCT statistics of one group of flows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FctStats {
    pub count: u64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    pub slowdown_mean: f64,
    pub slowdown_p99: f64,
}

impl FctStats {
    /// From (FCT ms, slowdown) pairs; NaN statistics for an empty group.
    pub fn of(pairs: &[(f64, f64)]) -> FctStats {
        let mut fct: Vec<f64> = pairs.iter().map(|p| p.0).collect();
        let mut slow: Vec<f64> = pairs.iter().map(|p| p.1).collect();
        fct.sort_by(f64::total_cmp);
        slow.sort_by(f64::total_cmp);
        let mean = |v: &[f64]| {
            if v.is_empty() {
                f64::NAN
            } else {
                v.iter().sum::<f64>() / v.len() as f64
            }
        };
        FctStats {
            count: pairs.len() as u64,
            mean_ms: mean(&fct),
            p50_ms: quantile(&fct, 0.5),
            p99_ms: quantile(&fct, 0.99),
            max_ms: fct.last().copied().unwrap_or(f64::NAN),
            slowdown_mean: mean(&slow),
            slowdown_p99: quantile(&slow, 0.99),
        }
    }
}

impl RunRecord {
    /// Fills the FCT columns: all completed finite flows, then the three size groups.
    pub fn set_fct(&mut self, all: &FctStats, groups: &[FctStats; 3]) {
        self.fct_mean_ms = all.mean_ms;
        self.fct_p50_ms = all.p50_ms;
        self.fct_p99_ms = all.p99_ms;
        self.fct_max_ms = all.max_ms;
        self.slowdown_mean = all.slowdown_mean;
        self.slowdown_p99 = all.slowdown_p99;
        let [s, m, l] = groups;
        (
            self.fct_small_count,
            self.fct_small_mean_ms,
            self.fct_small_p50_ms,
            self.fct_small_p99_ms,
            self.fct_small_max_ms,
            self.slowdown_small_mean,
            self.slowdown_small_p99,
        ) = (
            s.count,
            s.mean_ms,
            s.p50_ms,
            s.p99_ms,
            s.max_ms,
            s.slowdown_mean,
            s.slowdown_p99,
        );
        (
            self.fct_mid_count,
            self.fct_mid_mean_ms,
            self.fct_mid_p50_ms,
            self.fct_mid_p99_ms,
            self.fct_mid_max_ms,
            self.slowdown_mid_mean,
            self.slowdown_mid_p99,
        ) = (
            m.count,
            m.mean_ms,
            m.p50_ms,
            m.p99_ms,
            m.max_ms,
            m.slowdown_mean,
            m.slowdown_p99,
        );
        (
            self.fct_large_count,
            self.fct_large_mean_ms,
            self.fct_large_p50_ms,
            self.fct_large_p99_ms,
            self.fct_large_max_ms,
            self.slowdown_large_mean,
            self.slowdown_large_p99,
        ) = (
            l.count,
            l.mean_ms,
            l.p50_ms,
            l.p99_ms,
            l.max_ms,
            l.slowdown_mean,
            l.slowdown_p99,
        );
    }

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
    /// `workload`, or the generator kind (`long_lived`, `poisson`, `staggered`).
    pub kind: String,
    /// Index in `traffic:` (empty for workload flows).
    pub generator: Option<u32>,
    pub start_s: f64,
    /// Bytes to send (empty: always has data).
    pub size_bytes: Option<u64>,
    /// Flow-completion time: start to the last byte delivered in order (empty if unfinished).
    pub fct_ms: Option<f64>,
    /// FCT of the same flow alone on an idle network.
    pub ideal_fct_ms: Option<f64>,
    pub slowdown: Option<f64>,
    pub congestion_control: String,
    pub bytes_delivered: u64,
    /// Bytes delivered / the flow's active time: the run for workload flows, start to
    /// completion for sized flows, start to stop (or the end of the run) otherwise.
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
    /// DCTCP's α (RFC 8257 §3.3) averaged over its updates (one per window of data), and its
    /// value at the end of the run; empty for other controllers.
    pub dctcp_alpha_mean: Option<f64>,
    pub dctcp_alpha_final: Option<f64>,
    // ----- diagnostics (crate::diagnostics) -----
    pub rto_abtt: u64,
    pub rto_ibtt_whole_window: u64,
    pub rto_ibtt_partial_window: u64,
    pub rto_ibtt_tail: u64,
    pub rto_ibtt_retransmission: u64,
    /// Fast retransmits + first timeouts (the book's loss indications).
    pub loss_indications: u64,
    /// Data segments of this flow dropped at admission, and their runs per port.
    pub drops: u64,
    pub drop_run_1: u64,
    pub drop_run_2: u64,
    pub drop_run_3: u64,
    pub drop_run_4: u64,
    pub drop_run_5: u64,
    pub drop_run_6: u64,
    pub drop_run_7: u64,
    pub drop_run_8plus: u64,
    pub max_drop_run: u32,
    /// Columns added by probes (`crate::probe`), after every built-in column; none without.
    #[serde(flatten)]
    pub probes: crate::probe::ProbeColumns,
}

/// One row of senders.csv: the flows one host sent in one run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SenderRecord {
    pub scenario: String,
    pub seed: u64,
    pub senders: u32,
    pub src_host: u32,
    pub flows: u32,
    pub bytes_delivered: u64,
    /// Mean goodput of its flows (the TCPRand paper's g_i).
    pub mean_flow_goodput_mbps: f64,
    /// Sum of its flows' goodputs.
    pub total_goodput_mbps: f64,
    pub rto_count: u64,
    pub timeout_wait_s: f64,
}

/// Per-sender aggregates of one run's flows, by source host.
pub fn sender_records(flows: &[FlowRecord]) -> Vec<SenderRecord> {
    let mut by_host = std::collections::BTreeMap::<u32, SenderRecord>::new();
    for f in flows {
        let r = by_host.entry(f.src_host).or_insert_with(|| SenderRecord {
            scenario: f.scenario.clone(),
            seed: f.seed,
            senders: f.senders,
            src_host: f.src_host,
            flows: 0,
            bytes_delivered: 0,
            mean_flow_goodput_mbps: 0.0,
            total_goodput_mbps: 0.0,
            rto_count: 0,
            timeout_wait_s: 0.0,
        });
        r.flows += 1;
        r.bytes_delivered += f.bytes_delivered;
        r.total_goodput_mbps += f.goodput_mbps;
        r.rto_count += f.rto_count;
        r.timeout_wait_s += f.timeout_wait_s;
    }
    by_host
        .into_values()
        .map(|mut r| {
            r.mean_flow_goodput_mbps = r.total_goodput_mbps / r.flows as f64;
            r
        })
        .collect()
}

/// One row of ports.csv.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
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
    // ----- diagnostics (crate::diagnostics) -----
    /// Packets offered (admitted + dropped at admission); (buffer + AQM drops) / offered.
    pub packets_offered: u64,
    pub drop_ratio: f64,
    /// Runs of consecutive drops per input port, summed over the port's inputs.
    pub drop_run_1: u64,
    pub drop_run_2: u64,
    pub drop_run_3: u64,
    pub drop_run_4: u64,
    pub drop_run_5: u64,
    pub drop_run_6: u64,
    pub drop_run_7: u64,
    pub drop_run_8plus: u64,
    pub max_drop_run: u32,
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

/// One row of shared_buffers.csv (written only by runs with shared-buffer switches): one output
/// queue of a shared buffer, with the buffer's own figures repeated on each of its rows.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SharedBufferRecord {
    pub scenario: String,
    pub seed: u64,
    pub senders: u32,
    /// The switch whose buffer it is ("switch1").
    pub switch: String,
    pub size_bytes: u64,
    pub alpha: f64,
    pub reserved_per_queue_bytes: u64,
    /// Highest total occupancy of the buffer, and its time average over the run.
    pub buffer_max_occupancy_bytes: u64,
    pub buffer_mean_occupancy_bytes: f64,
    /// The buffer's drops by cause (all its queues).
    pub buffer_drops_threshold: u64,
    pub buffer_drops_full: u64,
    /// The queue (output port, as in ports.csv) and its drops by cause.
    pub port: u32,
    pub to_node: String,
    pub drops_threshold: u64,
    pub drops_full: u64,
    pub max_queue_bytes: u64,
    pub mean_queue_bytes: f64,
}

/// One row of timeseries.csv (long format).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
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
    /// Drop runs per (output port, input port) (drop_runs.csv).
    pub drop_runs: Vec<DropRunRecord>,
    /// The captured packets, if the config asked for pcap traces (`pcap:`).
    pub capture: Option<crate::engine::capture::CaptureResult>,
    /// The queues of the shared buffers (shared_buffers.csv; empty without shared buffers).
    pub shared_buffers: Vec<SharedBufferRecord>,
    /// Probes' own CSV files (`crate::probe::ProbeReport::table`); empty without probes.
    pub probe_tables: Vec<crate::probe::ProbeTable>,
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
