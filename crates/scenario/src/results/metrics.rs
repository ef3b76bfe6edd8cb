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
#[non_exhaustive]
pub struct RunRecord {
    /// The config's `name`.
    pub scenario: String,
    /// The run's seed (a sweep derives one per point and replicate).
    pub seed: u64,
    /// The topology `kind` (`star`, `dumbbell`, `fat_tree`, ...).
    pub topology: String,
    /// The config's `senders` (the swept N of incast curves).
    pub senders: u32,
    /// The workload `kind` (`synchronized_reads`, `bulk`, `traffic`, ...).
    pub workload: String,
    /// The mitigation scheme (`none`, or its name).
    pub scheme: String,
    /// The congestion controller of the top-level `tcp` (`newreno`, `cubic`, `dctcp`).
    pub congestion_control: String,
    /// Rate of every link, bit/s.
    pub link_rate_bps: u64,
    /// Switch buffer per output port as configured (`32KB`, `64 packets`, `unlimited`).
    pub switch_buffer: String,
    /// Payload bytes of a full segment.
    pub mss_bytes: u64,
    /// TCP/IP header bytes on every packet.
    pub header_bytes: u64,
    /// Lower bound of the retransmission timeout, µs (RFC 6298 (2.4); the incast papers lower it).
    pub rto_min_us: f64,
    /// Ge et al. Eq. 3: senders below which each keeps a window > 5 packets (fast retransmit
    /// still works): (B + 2CT)/(5L).
    pub fast_retransmit_bound: f64,
    /// Bytes each sender sends per block (synchronized reads; mean if striping is uneven).
    pub sru_bytes: f64,
    /// Blocks the client asks for (synchronized reads).
    pub blocks: u32,
    /// True if the workload finished before run.max_sim_time.
    pub completed: bool,
    /// Simulated seconds until the last block completed (or the bulk duration): the goodput's denominator.
    pub sim_time_s: f64,
    /// Application bytes delivered in order by the workload's flows (all flows for a `traffic` workload).
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
    /// How many of `flows_finite` finished before the run ended.
    pub flows_completed: u64,
    /// Flow-completion times of the completed finite flows, and slowdown = FCT / ideal FCT
    /// (the flow alone on an idle network).
    pub fct_mean_ms: f64,
    /// Median FCT of the completed sized flows, ms.
    pub fct_p50_ms: f64,
    /// 99th-percentile FCT of the completed sized flows, ms (linear interpolation).
    pub fct_p99_ms: f64,
    /// Largest FCT of the completed sized flows, ms.
    pub fct_max_ms: f64,
    /// Mean slowdown (FCT / ideal FCT, >= 1) of the completed sized flows.
    pub slowdown_mean: f64,
    /// 99th-percentile slowdown of the completed sized flows.
    pub slowdown_p99: f64,
    /// The same per size group (`metrics.fct_bins`; default small < 100 KB <= mid < 10 MB <=
    /// large).
    pub fct_small_count: u64,
    /// Mean FCT of the completed sized flows of the small group, ms (empty without any).
    pub fct_small_mean_ms: f64,
    /// Median FCT of the completed sized flows of the small group, ms.
    pub fct_small_p50_ms: f64,
    /// 99th-percentile FCT of the completed sized flows of the small group, ms (linear interpolation).
    pub fct_small_p99_ms: f64,
    /// Largest FCT of the completed sized flows of the small group, ms.
    pub fct_small_max_ms: f64,
    /// Mean slowdown (FCT / ideal FCT, >= 1) of the completed sized flows of the small group.
    pub slowdown_small_mean: f64,
    /// 99th-percentile slowdown of the completed sized flows of the small group.
    pub slowdown_small_p99: f64,
    /// Number of completed sized flows of the mid group.
    pub fct_mid_count: u64,
    /// Mean FCT of the completed sized flows of the mid group, ms (empty without any).
    pub fct_mid_mean_ms: f64,
    /// Median FCT of the completed sized flows of the mid group, ms.
    pub fct_mid_p50_ms: f64,
    /// 99th-percentile FCT of the completed sized flows of the mid group, ms (linear interpolation).
    pub fct_mid_p99_ms: f64,
    /// Largest FCT of the completed sized flows of the mid group, ms.
    pub fct_mid_max_ms: f64,
    /// Mean slowdown (FCT / ideal FCT, >= 1) of the completed sized flows of the mid group.
    pub slowdown_mid_mean: f64,
    /// 99th-percentile slowdown of the completed sized flows of the mid group.
    pub slowdown_mid_p99: f64,
    /// Number of completed sized flows of the large group.
    pub fct_large_count: u64,
    /// Mean FCT of the completed sized flows of the large group, ms (empty without any).
    pub fct_large_mean_ms: f64,
    /// Median FCT of the completed sized flows of the large group, ms.
    pub fct_large_p50_ms: f64,
    /// 99th-percentile FCT of the completed sized flows of the large group, ms (linear interpolation).
    pub fct_large_p99_ms: f64,
    /// Largest FCT of the completed sized flows of the large group, ms.
    pub fct_large_max_ms: f64,
    /// Mean slowdown (FCT / ideal FCT, >= 1) of the completed sized flows of the large group.
    pub slowdown_large_mean: f64,
    /// 99th-percentile slowdown of the completed sized flows of the large group.
    pub slowdown_large_p99: f64,
    /// Blocks whose every response arrived before the run ended.
    pub blocks_completed: u32,
    /// Mean block completion time (request to last response byte), ms.
    pub bct_mean_ms: f64,
    /// Median block completion time, ms.
    pub bct_p50_ms: f64,
    /// 99th-percentile block completion time, ms (linear interpolation).
    pub bct_p99_ms: f64,
    /// Largest block completion time, ms.
    pub bct_max_ms: f64,
    /// Retransmission timeouts that fired, over all flows.
    pub rto_count: u64,
    /// Flows that had at least one timeout.
    pub flows_with_rto: u32,
    /// Episodes of exactly k successive timeouts of one segment (k = 1..7), then 8 or more.
    pub rto_run_1: u64,
    /// Episodes where one segment timed out exactly 2 times in a row.
    pub rto_run_2: u64,
    /// Episodes where one segment timed out exactly 3 times in a row.
    pub rto_run_3: u64,
    /// Episodes where one segment timed out exactly 4 times in a row.
    pub rto_run_4: u64,
    /// Episodes where one segment timed out exactly 5 times in a row.
    pub rto_run_5: u64,
    /// Episodes where one segment timed out exactly 6 times in a row.
    pub rto_run_6: u64,
    /// Episodes where one segment timed out exactly 7 times in a row.
    pub rto_run_7: u64,
    /// Episodes where one segment timed out 8 or more times in a row.
    pub rto_run_8plus: u64,
    /// The longest run of successive timeouts of one segment (exponential backoff depth + 1).
    pub max_successive_rto: u32,
    /// X = the largest RTO value that expired at a flow's first timeout, over the flows that
    /// timed out (the RTO randomization paper's max RTO, its Eq. 4-7; NaN if none did).
    pub max_first_rto_ms: f64,
    /// Total seconds flows spent waiting for timeouts that then fired (from the last send to the expiry).
    pub timeout_wait_s: f64,
    /// Fast retransmissions (third duplicate ACK, RFC 5681 §3.2, or RACK).
    pub fast_retransmits: u64,
    /// Retransmissions chosen by RFC 6675 NextSeg (SACK loss recovery).
    pub sack_retransmits: u64,
    /// Data segments sent again, for any reason.
    pub retransmitted_segments: u64,
    /// Data segments sent, first transmissions and retransmissions.
    pub data_segments_sent: u64,
    /// Congestion-window reductions on ECN-Echo (at most one per window, RFC 3168 §6.1.2).
    pub ecn_reductions: u64,
    /// Packets dropped, any reason (`drops_buffer + drops_aqm + drops_link_loss`).
    pub drops_total: u64,
    /// Refused for want of buffer: `drops_threshold` + `drops_buffer_full`.
    pub drops_buffer: u64,
    /// Of those, refused by a shared buffer's Dynamic Threshold (0 with static buffers).
    pub drops_threshold: u64,
    /// Of those, refused because the packet did not fit (a full static buffer, or a shared
    /// buffer whose queue was below its threshold but whose free space was too small).
    pub drops_buffer_full: u64,
    /// Packets dropped by an AQM's decision (RED) rather than a full buffer.
    pub drops_aqm: u64,
    /// Packets lost on a link by the configured random loss.
    pub drops_link_loss: u64,
    /// Most drops at any one port: where the incast bottleneck is.
    pub max_port_drops: u64,
    /// Packets marked CE by switches.
    pub ecn_marks: u64,
    /// Background UDP datagrams sent.
    pub udp_packets_sent: u64,
    /// Background UDP datagrams that reached their destination.
    pub udp_packets_delivered: u64,
    /// Packets hosts sent (data, ACKs, requests, UDP).
    pub packets_sent: u64,
    /// Packets switches forwarded.
    pub packets_forwarded: u64,
    /// Events the engine processed (a measure of the run's cost).
    pub events: u64,
    // ----- diagnostics (crate::engine::diagnostics; docs/diagnostics.md) -----
    /// Timeouts by class (`incastsim_tcp::timeout_class`); they add up to `rto_count`.
    pub rto_abtt: u64,
    /// Timeouts within a block with no duplicate ACK since the last new ACK (PLATO's block loss).
    pub rto_ibtt_whole_window: u64,
    /// Timeouts within a block after 1-2 duplicate ACKs: part of the window got through, too little for fast retransmit.
    pub rto_ibtt_partial_window: u64,
    /// Timeouts on a lost tail: at most dupthresh × SMSS outstanding and nothing more to send, so three duplicate ACKs could never come.
    pub rto_ibtt_tail: u64,
    /// Timeouts of an already retransmitted segment.
    pub rto_ibtt_retransmission: u64,
    /// Packets offered to all ports, and (buffer + AQM drops) / offered.
    pub packets_offered: u64,
    /// (buffer + AQM drops) / `packets_offered`; empty when nothing was offered.
    pub drop_ratio: f64,
    /// Runs of consecutive drops per (output port, input port), lengths 1..7, 8+.
    pub input_drop_run_1: u64,
    /// Runs of exactly 2 consecutive drops at one (output port, input port).
    pub input_drop_run_2: u64,
    /// Runs of exactly 3 consecutive drops at one (output port, input port).
    pub input_drop_run_3: u64,
    /// Runs of exactly 4 consecutive drops at one (output port, input port).
    pub input_drop_run_4: u64,
    /// Runs of exactly 5 consecutive drops at one (output port, input port).
    pub input_drop_run_5: u64,
    /// Runs of exactly 6 consecutive drops at one (output port, input port).
    pub input_drop_run_6: u64,
    /// Runs of exactly 7 consecutive drops at one (output port, input port).
    pub input_drop_run_7: u64,
    /// Runs of 8 or more consecutive drops at one (output port, input port).
    pub input_drop_run_8plus: u64,
    /// The longest run of consecutive drops at one (output port, input port).
    pub max_input_drop_run: u32,
    /// Runs of consecutive drops of one flow's data segments at one port.
    pub flow_drop_run_1: u64,
    /// Runs of exactly 2 consecutive drops of one flow's data segments at one port.
    pub flow_drop_run_2: u64,
    /// Runs of exactly 3 consecutive drops of one flow's data segments at one port.
    pub flow_drop_run_3: u64,
    /// Runs of exactly 4 consecutive drops of one flow's data segments at one port.
    pub flow_drop_run_4: u64,
    /// Runs of exactly 5 consecutive drops of one flow's data segments at one port.
    pub flow_drop_run_5: u64,
    /// Runs of exactly 6 consecutive drops of one flow's data segments at one port.
    pub flow_drop_run_6: u64,
    /// Runs of exactly 7 consecutive drops of one flow's data segments at one port.
    pub flow_drop_run_7: u64,
    /// Runs of 8 or more consecutive drops of one flow's data segments at one port.
    pub flow_drop_run_8plus: u64,
    /// The longest run of consecutive drops of one flow's data segments at one port.
    pub max_flow_drop_run: u32,
    /// The book's §3.2 measurements over the model flows (the workload's).
    pub model_flows: u32,
    /// Data packets the model flows sent.
    pub model_packets_sent: u64,
    /// Loss indications over the model flows: fast retransmits + first timeouts.
    pub loss_indications: u64,
    /// Loss events of the cumulative flow: rounds in which at least one model flow lost a packet (§3.1.1.2).
    pub loss_events: u64,
    /// `loss_events` / segments sent (the book's p_c).
    pub p_c: f64,
    /// `loss_indications` / data segments sent, retransmissions included (the book's p_r).
    pub p_r: f64,
    /// ABTTs per block requested (the book's δ).
    pub delta_abtt_per_block: f64,
    /// Mean of all RTT samples of the model flows, µs.
    pub rtt_mean_us: f64,
    /// Mean RTO of first timeouts, ms (RTO_min if none; the book's T0).
    pub t0_ms: f64,
    /// The block in packets, Σ SRU / MSS (the book's L).
    pub block_packets: f64,
    /// Delayed ACK was on: the models assume one ACK per packet.
    pub delayed_ack: bool,
    /// The book's models (Eq. 3.21, 3.39, 3.40) on the measured inputs, in Mbps of payload
    /// (`metrics.models: true`; NaN otherwise or where a model is undefined).
    pub model_td_only_mbps: f64,
    /// The full model (Eq. 3.39) on the measured inputs, Mbps of payload.
    pub model_full_mbps: f64,
    /// The split model (Eq. 3.40), Mbps of payload.
    pub model_split_mbps: f64,
    /// The models' j on the measured inputs: loss indications per loss event (p_r / p_c).
    pub model_j: f64,
    /// The Full model's Q: the probability that a loss indication is a timeout.
    pub model_q_full: f64,
    /// The Split model's Q (same meaning).
    pub model_q_split: f64,
    /// Columns added by probes (`crate::probe`), after every built-in column; none without.
    #[serde(flatten)]
    pub probes: crate::probe::columns::ProbeColumns,
}

/// Fills the eight fields of a run-length histogram from its bins.
macro_rules! set_bins {
    ($rec:expr, $bins:expr, $($f:ident),+) => {{
        let mut it = $bins.iter();
        $( $rec.$f = *it.next().expect("8 bins"); )+
    }};
}

// The per-port records (ports.csv, port_classes.csv, shared_buffers.csv, time series).
mod pfc;
mod ports;
pub use pfc::{PfcDeadlockRecord, PfcFlowRecord, PfcSummaryRecord};
pub use ports::{PfcRecord, PortClassRecord, PortRecord, SharedBufferRecord, TimeSeriesRecord};

impl RunRecord {
    /// Sets `input_drop_run_1` … `input_drop_run_8plus` from a histogram of run lengths 1..7, 8+.
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
    /// Sets `flow_drop_run_1` … `flow_drop_run_8plus` from a histogram of run lengths 1..7, 8+.
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
    /// Sets `drop_run_1` … `drop_run_8plus` from a histogram of run lengths 1..7, 8+.
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
    /// Sets `drop_run_1` … `drop_run_8plus` from a histogram of run lengths 1..7, 8+.
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
#[non_exhaustive]
pub struct DropRunRecord {
    /// The config's `name`.
    pub scenario: String,
    /// The run's seed (a sweep derives one per point and replicate).
    pub seed: u64,
    /// The config's `senders` (the swept N of incast curves).
    pub senders: u32,
    /// The output port (as in ports.csv).
    pub port: u32,
    /// The output port as `from->to`.
    pub port_name: String,
    /// The input port (the link the packets arrived on); empty for a host's own packets.
    pub input_port: Option<u32>,
    /// The input link (`host3->switch0`), or `local` for the node's own packets.
    pub input_name: String,
    /// Packets from this input offered to the port.
    pub packets_offered: u64,
    /// Of those, dropped at admission.
    pub drops: u64,
    /// `drops / packets_offered`.
    pub drop_ratio: f64,
    /// Runs of exactly 1 consecutive drops from this input.
    pub drop_run_1: u64,
    /// Runs of exactly 2 consecutive drops from this input.
    pub drop_run_2: u64,
    /// Runs of exactly 3 consecutive drops from this input.
    pub drop_run_3: u64,
    /// Runs of exactly 4 consecutive drops from this input.
    pub drop_run_4: u64,
    /// Runs of exactly 5 consecutive drops from this input.
    pub drop_run_5: u64,
    /// Runs of exactly 6 consecutive drops from this input.
    pub drop_run_6: u64,
    /// Runs of exactly 7 consecutive drops from this input.
    pub drop_run_7: u64,
    /// Runs of 8 or more consecutive drops from this input.
    pub drop_run_8plus: u64,
    /// The longest run of consecutive drops from this input.
    pub max_drop_run: u32,
}

/// FCT statistics of one group of flows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FctStats {
    /// Flows in the group that completed.
    pub count: u64,
    /// Mean FCT, ms (NaN for an empty group).
    pub mean_ms: f64,
    /// Median FCT, ms.
    pub p50_ms: f64,
    /// 99th-percentile FCT, ms.
    pub p99_ms: f64,
    /// Largest FCT, ms.
    pub max_ms: f64,
    /// Mean slowdown (FCT / ideal FCT).
    pub slowdown_mean: f64,
    /// Median slowdown (runs.csv's `slowdown_p50` columns: RDMA runs only).
    pub slowdown_p50: f64,
    /// 95th-percentile slowdown (as `slowdown_p50`).
    pub slowdown_p95: f64,
    /// 99th-percentile slowdown.
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
            slowdown_p50: quantile(&slow, 0.5),
            slowdown_p95: quantile(&slow, 0.95),
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

    /// Sets `rto_run_1` … `rto_run_8plus` from the successive-timeout histogram.
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
#[non_exhaustive]
pub struct FlowRecord {
    /// The config's `name`.
    pub scenario: String,
    /// The run's seed (a sweep derives one per point and replicate).
    pub seed: u64,
    /// The config's `senders` (the swept N of incast curves).
    pub senders: u32,
    /// Flow index: workload flows first, then generated flows in generator and start order.
    pub flow: u32,
    /// The sending host.
    pub src_host: u32,
    /// The receiving host.
    pub dst_host: u32,
    /// `workload`, or the generator kind (`long_lived`, `poisson`, `staggered`).
    pub kind: std::borrow::Cow<'static, str>,
    /// Index in `traffic:` (empty for workload flows).
    pub generator: Option<u32>,
    /// When the flow started, simulated seconds.
    pub start_s: f64,
    /// Bytes to send (empty: always has data).
    pub size_bytes: Option<u64>,
    /// Flow-completion time: start to the last byte delivered in order (empty if unfinished).
    pub fct_ms: Option<f64>,
    /// FCT of the same flow alone on an idle network.
    pub ideal_fct_ms: Option<f64>,
    /// `fct_ms / ideal_fct_ms` (>= 1; empty until the flow completes).
    pub slowdown: Option<f64>,
    /// The flow's congestion controller (its profile's; `flow_overrides` may differ from the run's).
    pub congestion_control: std::borrow::Cow<'static, str>,
    /// Bytes the receiver delivered in order to the application.
    pub bytes_delivered: u64,
    /// Bytes delivered / the flow's active time: the run for workload flows, start to
    /// completion for sized flows, start to stop (or the end of the run) otherwise.
    pub goodput_mbps: f64,
    /// Timeouts that fired (the TCPRand paper's timeout frequency).
    pub rto_count: u64,
    /// The longest run of successive timeouts of one segment.
    pub max_successive_rto: u32,
    /// Seconds spent waiting for timeouts that fired (the TCPRand paper's timeout period).
    pub timeout_wait_s: f64,
    /// Fast retransmissions (third duplicate ACK or RACK).
    pub fast_retransmits: u64,
    /// Retransmissions chosen by RFC 6675 NextSeg.
    pub sack_retransmits: u64,
    /// Data segments sent again (equals tshark's retransmission + out-of-order counts on its trace).
    pub retransmitted_segments: u64,
    /// Data segments sent, first transmissions and retransmissions.
    pub segments_sent: u64,
    /// Window reductions on ECN-Echo.
    pub ecn_reductions: u64,
    /// Congestion window at the end of the run, bytes.
    pub final_cwnd_bytes: u64,
    /// Slow-start threshold at the end of the run, bytes.
    pub final_ssthresh_bytes: u64,
    /// Smoothed RTT at the end of the run, µs (RFC 6298 SRTT).
    pub srtt_us: f64,
    /// DCTCP's α (RFC 8257 §3.3) averaged over its updates (one per window of data), and its
    /// value at the end of the run; empty for other controllers.
    pub dctcp_alpha_mean: Option<f64>,
    /// DCTCP's α at the end of the run.
    pub dctcp_alpha_final: Option<f64>,
    // ----- diagnostics (crate::engine::diagnostics) -----
    /// ABTT timeouts: its whole first window of a block lost (the five classes add up to `rto_count`).
    pub rto_abtt: u64,
    /// Timeouts with no duplicate ACK since the last new ACK.
    pub rto_ibtt_whole_window: u64,
    /// Timeouts after 1-2 duplicate ACKs.
    pub rto_ibtt_partial_window: u64,
    /// Timeouts on a lost tail (too little outstanding for three duplicate ACKs).
    pub rto_ibtt_tail: u64,
    /// Timeouts of an already retransmitted segment.
    pub rto_ibtt_retransmission: u64,
    /// Fast retransmits + first timeouts (the book's loss indications).
    pub loss_indications: u64,
    /// Data segments of this flow dropped at admission, and their runs per port.
    pub drops: u64,
    /// Runs of exactly 1 consecutive drops of its data segments at one port.
    pub drop_run_1: u64,
    /// Runs of exactly 2 consecutive drops of its data segments at one port.
    pub drop_run_2: u64,
    /// Runs of exactly 3 consecutive drops of its data segments at one port.
    pub drop_run_3: u64,
    /// Runs of exactly 4 consecutive drops of its data segments at one port.
    pub drop_run_4: u64,
    /// Runs of exactly 5 consecutive drops of its data segments at one port.
    pub drop_run_5: u64,
    /// Runs of exactly 6 consecutive drops of its data segments at one port.
    pub drop_run_6: u64,
    /// Runs of exactly 7 consecutive drops of its data segments at one port.
    pub drop_run_7: u64,
    /// Runs of 8 or more consecutive drops of its data segments at one port.
    pub drop_run_8plus: u64,
    /// Its longest run of consecutive dropped data segments at one port.
    pub max_drop_run: u32,
    /// Columns added by probes (`crate::probe`), after every built-in column; none without.
    #[serde(flatten)]
    pub probes: crate::probe::columns::ProbeColumns,
}

/// One row of senders.csv: the flows one host sent in one run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SenderRecord {
    /// The config's `name`.
    pub scenario: String,
    /// The run's seed (a sweep derives one per point and replicate).
    pub seed: u64,
    /// The config's `senders` (the swept N of incast curves).
    pub senders: u32,
    /// The sending host.
    pub src_host: u32,
    /// Flows this host sent.
    pub flows: u32,
    /// Bytes its flows delivered in order.
    pub bytes_delivered: u64,
    /// Mean goodput of its flows (the TCPRand paper's g_i).
    pub mean_flow_goodput_mbps: f64,
    /// Sum of its flows' goodputs.
    pub total_goodput_mbps: f64,
    /// Timeouts of its flows.
    pub rto_count: u64,
    /// Seconds its flows spent waiting for timeouts that fired.
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

/// Everything one run produces.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct RunResult {
    /// The run's row of runs.csv.
    pub run: RunRecord,
    /// One row of flows.csv per TCP connection, in flow order.
    pub flows: Vec<FlowRecord>,
    /// One row of ports.csv per output port.
    pub ports: Vec<PortRecord>,
    /// One row of port_classes.csv per port and traffic class that saw traffic.
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
    pub probe_tables: Vec<crate::probe::columns::ProbeTable>,
    /// PFC per port and lossless priority (pfc.csv; empty without `pfc:`).
    pub pfc: Vec<PfcRecord>,
    /// PFC deadlocks found (pfc_deadlocks.csv; empty without `pfc:` or a deadlock).
    pub pfc_deadlocks: Vec<PfcDeadlockRecord>,
    /// Per flow on a lossless priority: paused time, victim (pfc_flows.csv; empty without `pfc:`).
    pub pfc_flows: Vec<PfcFlowRecord>,
    /// The run's pause depth, deadlocks and victims (pfc_summary.csv; empty without `pfc:`).
    pub pfc_summary: Vec<PfcSummaryRecord>,
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
