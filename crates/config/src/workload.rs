//! The workload and what else shares the network: `workload:`, `background:`, `metrics:`,
//! `time_series:` and `pcap:`.

use crate::defaults::{default_one, default_true};
use crate::units::{Bytes, Dur, Rate};
use incastsim_core::Duration;
use serde::{Deserialize, Serialize};

/// What the senders do (`workload:`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum WorkloadConfig {
    /// The client requests a block from every server and asks for the next block only when all
    /// servers' responses have arrived. Give `sru` (fixed bytes per server) or `block` (fixed
    /// bytes per block, striped over the servers).
    SynchronizedReads {
        /// Bytes each server sends per block (the server request unit).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sru: Option<Bytes>,
        /// Bytes per block, striped over the servers (instead of `sru`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        block: Option<Bytes>,
        /// Blocks the client reads.
        #[serde(default = "default_one")]
        blocks: u32,
        /// Size of a request packet on the wire.
        #[serde(default = "default_request_size")]
        request_size: Bytes,
        /// Each server delays each response by U[0, start_jitter].
        #[serde(default = "default_jitter")]
        start_jitter: Dur,
        /// A request with no response data after this long is sent again (only link loss can
        /// drop one); defaults to the TCP initial RTO.
        #[serde(default)]
        request_timeout: Option<Dur>,
        /// The first block is requested this long after time 0, so that `traffic:` flows are
        /// already running when the task starts; `goodput_mbps` is measured from then.
        #[serde(default, skip_serializing_if = "is_zero_dur")]
        warmup: Dur,
    },
    /// Long-lived flows from every sender, each always having data to send.
    Bulk {
        /// How long the flows send (the run's length).
        duration: Dur,
        /// Each flow starts after U[0, start_jitter].
        #[serde(default)]
        start_jitter: Dur,
    },
    /// No flows of its own: only the `traffic:` generators. Arrivals run for `duration`; with
    /// `drain` (the default) the run then continues until every finite flow has completed
    /// (bounded by `run.max_sim_time`), so every arrival gets a flow-completion time.
    Traffic {
        /// How long arrivals run.
        duration: Dur,
        /// Keep running until the flows started by then finish.
        #[serde(default = "default_true")]
        drain: bool,
    },
}

/// Flow-metric settings; absent keys take [`MetricsConfig::default`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MetricsConfig {
    /// The two size edges of the small / mid / large FCT groups: small < edge 1 <= mid < edge 2
    /// <= large (the TCPRand paper's 100 KB and 10 MB by default).
    pub fct_bins: Vec<Bytes>,
    /// Which goodputs Jain's index is computed over.
    pub fairness: FairnessConfig,
    /// Evaluate the book's incast models (Kulkarni & Agrawal Eq. 3.21, 3.39, 3.40) on the
    /// inputs measured from the run and write them next to the goodput in runs.csv.
    pub models: bool,
    /// RoCE rate controllers: each queue pair's mean rate from this time on (flows.csv
    /// `rdma_window_rate_gbps`), which runs.csv's `rdma_rate_jain` and
    /// `rdma_rate_max_over_min` then compare instead of the final rates (a reading of "final
    /// rates" that the sawtooth of an instantaneous rate does not blur). Default: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_from: Option<Dur>,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig {
            // The TCPRand paper's (Lee et al. 2017) small / mid / large edges: 100 KB and 10 MB.
            fct_bins: vec![Bytes(100_000), Bytes(10_000_000)],
            // The workload's flows, one goodput per flow.
            fairness: FairnessConfig::default(),
            // Off: the book's models are opt-in.
            models: false,
            // The final rates.
            rate_from: None,
        }
    }
}

/// Which goodputs Jain's index (runs.csv `jain_fairness`) is computed over.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FairnessConfig {
    /// `workload` (the workload's flows; all flows for a `traffic` workload), `all`, `traffic`,
    /// `traffic[I]` (one generator's flows) or flow indices such as "0,3,5-9".
    pub flows: String,
    /// `flow`: one goodput per flow. `sender`: per source host, the mean goodput of its flows
    /// (the TCPRand paper's g_i).
    pub per: FairnessPer,
}

impl Default for FairnessConfig {
    fn default() -> Self {
        FairnessConfig {
            // The workload's flows (all flows for a `traffic` workload).
            flows: "workload".into(),
            // One goodput per flow.
            per: FairnessPer::Flow,
        }
    }
}

/// One goodput value per flow or per sending host, for Jain's index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FairnessPer {
    /// One value per flow.
    #[default]
    Flow,
    /// One value per sending host (its flows' goodputs summed).
    Sender,
}

fn is_zero_dur(d: &Dur) -> bool {
    d.0 == Duration::ZERO
}

// The workload and background variants have required keys or sit in a tagged enum, so their
// defaults stay one function each.
// S1: a request is one bare TCP/IP header (40 B).
fn default_request_size() -> Bytes {
    Bytes(40)
}
// S1: each response starts after U[0, 20 µs].
fn default_jitter() -> Dur {
    Dur(Duration::from_us(20))
}

impl WorkloadConfig {
    /// The workload `kind` as configs and runs.csv spell it.
    pub fn kind(&self) -> &'static str {
        match self {
            WorkloadConfig::SynchronizedReads { .. } => "synchronized_reads",
            WorkloadConfig::Bulk { .. } => "bulk",
            WorkloadConfig::Traffic { .. } => "traffic",
        }
    }

    /// Flows the workload itself runs (one per sender; none for `traffic`).
    pub fn flow_count(&self, senders: u32) -> u32 {
        match self {
            WorkloadConfig::Traffic { .. } => 0,
            _ => senders,
        }
    }
}

/// What to sample, and how often, into timeseries.csv.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeSeriesConfig {
    /// Time between samples.
    pub interval: Dur,
    /// Output ports as "from->to" node names (e.g. "switch0->host16"): queue occupancy and
    /// link utilization over each interval.
    #[serde(default)]
    pub ports: Vec<String>,
    /// Flow indices: cwnd, ssthresh, RTO and SRTT.
    #[serde(default)]
    pub flows: Vec<u32>,
    /// One port whose queue is recorded at every change (each admission and departure), exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_change_port: Option<String>,
}

/// Packet traces Wireshark reads (`pcap:`): one nanosecond-resolution pcap file per capture
/// point, with Ethernet/IPv4/TCP headers built from the simulated packets. Off by default, and
/// free when off (one branch per packet).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PcapConfig {
    /// Flow indices: each flow's connection as its sending host sees it (data segments as they
    /// are handed to the NIC, ACKs and requests as they arrive): `pcap/flow-<i>.pcap`.
    pub flows: Vec<u32>,
    /// Output ports as "from->to" node names: every packet as it reaches the far end of the
    /// port's link: `pcap/port-<from>-<to>.pcap`.
    pub ports: Vec<String>,
    /// Bytes kept of each frame (the payload is not simulated, so the default keeps the headers
    /// with three SACK blocks: 14 Ethernet + 20 IPv4 + 60 TCP).
    pub snaplen: Bytes,
}

impl Default for PcapConfig {
    fn default() -> Self {
        PcapConfig {
            // Nothing captured until flows or ports are named.
            flows: Vec::new(),
            ports: Vec::new(),
            // 128 B: the headers with three SACK blocks (14 Ethernet + 20 IPv4 + 60 TCP = 94 B).
            snaplen: Bytes(128),
        }
    }
}

/// The smallest `pcap.snaplen` allowed: a frame's Ethernet, IPv4 and TCP headers without options.
pub const PCAP_MIN_SNAPLEN: u64 = 54;
/// The largest `pcap.snaplen` allowed (libpcap's limit).
pub const PCAP_MAX_SNAPLEN: u64 = 262_144;

/// Background traffic sources.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum BackgroundConfig {
    /// Constant-bit-rate UDP: one datagram of `packet_size` (on the wire) every
    /// packet_size/rate, from each selected source host to the destination.
    UdpCbr {
        /// `senders` (one source per sender), `sender:I`, `receiver` or `receiver:I`.
        from: String,
        /// `receiver`, `receiver:I`, `sender:I`: the destination host.
        to: String,
        /// Sending rate of each source, on the wire.
        rate: Rate,
        /// Bytes of each datagram on the wire.
        #[serde(default = "default_udp_size")]
        packet_size: Bytes,
        /// When the sources start.
        #[serde(default)]
        start: Dur,
        /// Stop sending at this time (default: never).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stop: Option<Dur>,
        /// DSCP of the datagrams (their traffic class).
        #[serde(default)]
        dscp: u8,
    },
}

// 1000 B datagrams on the wire.
fn default_udp_size() -> Bytes {
    Bytes(1000)
}

/// Which hosts a background source uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostSelector {
    /// Every sender (`senders`).
    AllSenders,
    /// Sender I (`sender:I`).
    Sender(u32),
    /// Receiver I (`receiver`, `receiver:I`).
    Receiver(u32),
}

impl HostSelector {
    /// Parses `senders`, `sender:I`, `receiver` or `receiver:I`.
    pub fn parse(s: &str) -> Option<HostSelector> {
        match s.trim() {
            "senders" => Some(HostSelector::AllSenders),
            "receiver" => Some(HostSelector::Receiver(0)),
            t => {
                let (kind, i) = t.split_once(':')?;
                let i: u32 = i.trim().parse().ok()?;
                match kind.trim() {
                    "sender" => Some(HostSelector::Sender(i)),
                    "receiver" => Some(HostSelector::Receiver(i)),
                    _ => None,
                }
            }
        }
    }
}
