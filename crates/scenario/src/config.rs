//! The scenario configuration: YAML in human units → a checked [`Config`].
//!
//! Loading goes YAML → generic tree → `--set` overrides → typed structs (unknown keys refused,
//! errors name the key path) → [`Config::validate`] (cross-field checks). Everything after
//! `Config::load` can trust its input. Defaults are the incast literature's (benchmark S1), and
//! [`Config::resolved`] fills every default in so the printed config says exactly what ran.

use crate::units::{Buffer, Bytes, Dur, Rate};
use incastsim_core::{BitsPerSec, Duration};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A configuration error: which key, what value, what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {message}")]
    Io { path: String, message: String },
    #[error("YAML syntax error: {0}")]
    Syntax(String),
    #[error("{key}: {message}")]
    Key { key: String, message: String },
    #[error("{key} = {value}: {allowed}")]
    Invalid {
        key: String,
        value: String,
        allowed: String,
    },
    #[error("--set {arg:?}: {message}")]
    Override { arg: String, message: String },
    #[error(
        "this config has a `sweep:` section: run it with `incastsim sweep`, or run its base point with --set sweep=null"
    )]
    HasSweep,
}

pub(crate) fn invalid(
    key: &str,
    value: impl fmt::Display,
    allowed: impl Into<String>,
) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_string(),
        value: value.to_string(),
        allowed: allowed.into(),
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// A label for the scenario, copied into every output row.
    #[serde(default = "default_name")]
    pub name: String,
    /// Base seed of the run. A (config, seed) pair replays bit-identically.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Number of sending servers (N).
    pub senders: u32,
    pub topology: TopologyConfig,
    #[serde(default)]
    pub tcp: TcpConfig,
    pub workload: WorkloadConfig,
    /// TCP settings that differ for some flows (e.g. SACK on some, CUBIC on others).
    #[serde(default)]
    pub flow_overrides: Vec<FlowOverride>,
    /// Background traffic sharing the network with the workload.
    #[serde(default)]
    pub background: Vec<BackgroundConfig>,
    /// More TCP traffic in the same run: long-lived, Poisson at a target load, staggered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub traffic: Vec<crate::traffic::TrafficConfig>,
    /// Flow-metric settings: FCT size groups, the flows Jain's index is computed over.
    #[serde(default)]
    pub metrics: MetricsConfig,
    /// Opt-in sampled time series (off by default, and free when off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_series: Option<TimeSeriesConfig>,
    #[serde(default)]
    pub scheme: SchemeConfig,
    #[serde(default)]
    pub run: RunConfig,
}

/// TCP settings for some flows. In the YAML, `tcp` may give any subset of the `tcp` keys; the
/// rest is inherited from the top-level `tcp` (the resolved config shows them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowOverride {
    /// Flow indices (flow i is sender i), 0-based.
    pub flows: Vec<u32>,
    pub tcp: TcpConfig,
}

/// Merges `over` into `base`: mappings recursively, anything else replaced.
fn deep_merge(base: &mut serde_json::Value, over: &serde_json::Value) {
    match (base, over) {
        (serde_json::Value::Object(b), serde_json::Value::Object(o)) => {
            for (k, v) in o {
                deep_merge(b.entry(k.clone()).or_insert(serde_json::Value::Null), v);
            }
        }
        (b, o) => *b = o.clone(),
    }
}

/// What to sample, and how often, into timeseries.csv.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeSeriesConfig {
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

/// Background traffic sources.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum BackgroundConfig {
    /// Constant-bit-rate UDP: one datagram of `packet_size` (on the wire) every
    /// packet_size/rate, from each selected source host to the destination.
    UdpCbr {
        /// `senders` (one source per sender), `sender:I`, `receiver` or `receiver:I`.
        from: String,
        to: String,
        rate: Rate,
        #[serde(default = "default_udp_size")]
        packet_size: Bytes,
        #[serde(default = "default_zero_dur")]
        start: Dur,
        /// Stop sending at this time (default: never).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stop: Option<Dur>,
        #[serde(default)]
        dscp: u8,
    },
}

fn default_udp_size() -> Bytes {
    Bytes(1000)
}

/// Which hosts a background source uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostSelector {
    AllSenders,
    Sender(u32),
    Receiver(u32),
}

impl HostSelector {
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

fn default_name() -> String {
    "unnamed".into()
}
fn default_seed() -> u64 {
    1
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TopologyConfig {
    /// N servers and one client on one switch; every link identical.
    Star(LinkDefaults),
    /// Senders on a left switch, receivers on a right switch, one bottleneck link between them.
    Dumbbell(DumbbellConfig),
    /// A k-ary fat-tree (k pods; k/2 edge and k/2 aggregation switches per pod; (k/2)² cores;
    /// k³/4 hosts), all links identical.
    FatTree(FatTreeConfig),
    /// A single-rooted tree: racks of hosts under top-of-rack switches under one aggregation switch.
    Tree(TreeConfig),
    /// Any graph: hosts and switches by count, links listed, optional explicit routes.
    Custom(CustomTopologyConfig),
}

/// One full-duplex link of a custom topology; unset fields take the topology's defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomLink {
    /// Node names: `hostI` or `switchJ`.
    pub a: String,
    pub b: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Dur>,
    /// Buffer of this link's switch-side output ports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Buffer>,
}

/// An explicit next hop: at switch `at`, packets for host `to` go to neighbour `via`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomRoute {
    pub at: String,
    pub to: String,
    pub via: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomTopologyConfig {
    pub hosts: u32,
    pub switches: u32,
    pub links: Vec<CustomLink>,
    /// Explicit next hops; every other (node, host) pair uses shortest paths with ECMP.
    #[serde(default)]
    pub routes: Vec<CustomRoute>,
    #[serde(default = "default_link_rate")]
    pub link_rate: Rate,
    #[serde(default = "default_link_delay")]
    pub link_delay: Dur,
    #[serde(default = "default_switch_buffer")]
    pub switch_buffer: Buffer,
    #[serde(default)]
    pub switch_queue: QueueConfig,
    #[serde(default = "default_one")]
    pub priority_classes: u32,
    #[serde(default = "default_host_buffer")]
    pub host_buffer: Buffer,
    #[serde(default)]
    pub link_loss: f64,
    #[serde(default = "default_zero_dur")]
    pub switch_delay: Dur,
    /// Per-packet random extra processing delay U[0, value] at each switch (a link's packets
    /// keep their order). Breaks deterministic phase effects; 0 = constant processing delay.
    #[serde(default = "default_zero_dur")]
    pub switch_delay_jitter: Dur,
    /// Each node's clock is off by U[-x, +x] parts per million (IEEE 802.3 allows ±100 ppm), so
    /// its ports send at rate × (1 + offset). Lets lockstep packet trains drift apart, as they
    /// do in real networks; 0 = every port at exactly its nominal rate.
    #[serde(default)]
    pub clock_tolerance_ppm: f64,
    #[serde(default)]
    pub receiver_host: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender_hosts: Option<Vec<u32>>,
}

/// How switches pick among equal-cost next hops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoutingConfig {
    /// A deterministic hash of the flow (and the run seed): one path per flow, flows spread.
    #[default]
    Ecmp,
    /// By destination host: next hop index = destination mod number of next hops (the fat-tree
    /// paper's static two-level routing; every flow to one host shares its uplinks).
    Static,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FatTreeConfig {
    pub k: u32,
    #[serde(default = "default_link_rate")]
    pub link_rate: Rate,
    #[serde(default = "default_link_delay")]
    pub link_delay: Dur,
    #[serde(default = "default_switch_buffer")]
    pub switch_buffer: Buffer,
    #[serde(default)]
    pub switch_queue: QueueConfig,
    #[serde(default = "default_one")]
    pub priority_classes: u32,
    #[serde(default = "default_host_buffer")]
    pub host_buffer: Buffer,
    #[serde(default)]
    pub link_loss: f64,
    #[serde(default = "default_zero_dur")]
    pub switch_delay: Dur,
    /// Per-packet random extra processing delay U[0, value] at each switch (a link's packets
    /// keep their order). Breaks deterministic phase effects; 0 = constant processing delay.
    #[serde(default = "default_zero_dur")]
    pub switch_delay_jitter: Dur,
    /// Each node's clock is off by U[-x, +x] parts per million (IEEE 802.3 allows ±100 ppm), so
    /// its ports send at rate × (1 + offset). Lets lockstep packet trains drift apart, as they
    /// do in real networks; 0 = every port at exactly its nominal rate.
    #[serde(default)]
    pub clock_tolerance_ppm: f64,
    #[serde(default)]
    pub routing: RoutingConfig,
    /// Host index of the receiver (hosts are numbered pod by pod, edge by edge).
    #[serde(default)]
    pub receiver_host: u32,
    /// Host indices of the senders (default: the first `senders` hosts other than the receiver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender_hosts: Option<Vec<u32>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeConfig {
    pub racks: u32,
    pub hosts_per_rack: u32,
    #[serde(default = "default_link_rate")]
    pub link_rate: Rate,
    /// Rate of the rack-to-aggregation links (default: link_rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink_rate: Option<Rate>,
    #[serde(default = "default_link_delay")]
    pub link_delay: Dur,
    #[serde(default = "default_switch_buffer")]
    pub switch_buffer: Buffer,
    #[serde(default)]
    pub switch_queue: QueueConfig,
    #[serde(default = "default_one")]
    pub priority_classes: u32,
    #[serde(default = "default_host_buffer")]
    pub host_buffer: Buffer,
    #[serde(default)]
    pub link_loss: f64,
    #[serde(default = "default_zero_dur")]
    pub switch_delay: Dur,
    /// Per-packet random extra processing delay U[0, value] at each switch (a link's packets
    /// keep their order). Breaks deterministic phase effects; 0 = constant processing delay.
    #[serde(default = "default_zero_dur")]
    pub switch_delay_jitter: Dur,
    /// Each node's clock is off by U[-x, +x] parts per million (IEEE 802.3 allows ±100 ppm), so
    /// its ports send at rate × (1 + offset). Lets lockstep packet trains drift apart, as they
    /// do in real networks; 0 = every port at exactly its nominal rate.
    #[serde(default)]
    pub clock_tolerance_ppm: f64,
    #[serde(default)]
    pub receiver_host: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender_hosts: Option<Vec<u32>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumbbellConfig {
    #[serde(default = "default_link_rate")]
    pub link_rate: Rate,
    #[serde(default = "default_link_delay")]
    pub link_delay: Dur,
    #[serde(default = "default_switch_buffer")]
    pub switch_buffer: Buffer,
    #[serde(default)]
    pub switch_queue: QueueConfig,
    #[serde(default = "default_one")]
    pub priority_classes: u32,
    #[serde(default = "default_host_buffer")]
    pub host_buffer: Buffer,
    #[serde(default)]
    pub link_loss: f64,
    #[serde(default = "default_zero_dur")]
    pub switch_delay: Dur,
    /// Per-packet random extra processing delay U[0, value] at each switch (a link's packets
    /// keep their order). Breaks deterministic phase effects; 0 = constant processing delay.
    #[serde(default = "default_zero_dur")]
    pub switch_delay_jitter: Dur,
    /// Each node's clock is off by U[-x, +x] parts per million (IEEE 802.3 allows ±100 ppm), so
    /// its ports send at rate × (1 + offset). Lets lockstep packet trains drift apart, as they
    /// do in real networks; 0 = every port at exactly its nominal rate.
    #[serde(default)]
    pub clock_tolerance_ppm: f64,
    #[serde(default = "default_one")]
    pub receivers: u32,
    /// Rate of the switch-to-switch link (defaults to link_rate).
    #[serde(default)]
    pub bottleneck_rate: Option<Rate>,
    /// Propagation delay of the switch-to-switch link (defaults to link_delay).
    #[serde(default)]
    pub bottleneck_delay: Option<Dur>,
}

fn default_one() -> u32 {
    1
}

/// The queue discipline of every switch output port.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueConfig {
    /// Drop arrivals that do not fit the buffer.
    #[default]
    DropTail,
    /// RED (Floyd & Jacobson): thresholds in bytes or packets, on an EWMA of the queue.
    Red {
        min_th: Buffer,
        max_th: Buffer,
        #[serde(default = "default_max_p")]
        max_p: f64,
        #[serde(default = "default_w_q")]
        w_q: f64,
        #[serde(default = "default_true")]
        gentle: bool,
        /// Mark ECN-capable packets instead of dropping them.
        #[serde(default)]
        ecn: bool,
    },
    /// WRED: a RED profile per traffic class (DSCP); unlisted DSCPs use the first profile.
    Wred {
        profiles: Vec<WredProfile>,
        #[serde(default = "default_w_q")]
        w_q: f64,
        #[serde(default = "default_true")]
        gentle: bool,
        #[serde(default)]
        ecn: bool,
    },
    /// DCTCP marking: CE on ECN-capable arrivals when the instantaneous queue exceeds K.
    EcnThreshold { k: Buffer },
    /// PLATO's switch: at or above the threshold, only labelled packets are admitted.
    ThresholdAdmit { threshold: Buffer },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WredProfile {
    pub dscp: Vec<u8>,
    pub min_th: Buffer,
    pub max_th: Buffer,
    #[serde(default = "default_max_p")]
    pub max_p: f64,
}

fn default_max_p() -> f64 {
    0.1
}
fn default_w_q() -> f64 {
    0.002
}

/// Link and buffer parameters shared by the built-in topologies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkDefaults {
    #[serde(default = "default_link_rate")]
    pub link_rate: Rate,
    /// One-way propagation delay of every link.
    #[serde(default = "default_link_delay")]
    pub link_delay: Dur,
    /// Per-output-port buffer of every switch port.
    #[serde(default = "default_switch_buffer")]
    pub switch_buffer: Buffer,
    /// Queue discipline of every switch port.
    #[serde(default)]
    pub switch_queue: QueueConfig,
    /// Strict-priority classes per switch port (class = min(DSCP, classes − 1), highest first);
    /// 1 means one FIFO.
    #[serde(default = "default_one")]
    pub priority_classes: u32,
    /// The host NIC queue (unlimited by default, as a host's socket buffer backs it).
    #[serde(default = "default_host_buffer")]
    pub host_buffer: Buffer,
    /// Per-direction Bernoulli loss probability of every link.
    #[serde(default)]
    pub link_loss: f64,
    /// Switch processing delay added to every packet a switch receives.
    #[serde(default = "default_zero_dur")]
    pub switch_delay: Dur,
    /// Per-packet random extra processing delay U[0, value] at each switch (a link's packets
    /// keep their order). Breaks deterministic phase effects; 0 = constant processing delay.
    #[serde(default = "default_zero_dur")]
    pub switch_delay_jitter: Dur,
    /// Each node's clock is off by U[-x, +x] parts per million (IEEE 802.3 allows ±100 ppm), so
    /// its ports send at rate × (1 + offset). Lets lockstep packet trains drift apart, as they
    /// do in real networks; 0 = every port at exactly its nominal rate.
    #[serde(default)]
    pub clock_tolerance_ppm: f64,
}

fn default_link_rate() -> Rate {
    Rate(BitsPerSec::gbps(1))
}
fn default_link_delay() -> Dur {
    Dur(Duration::from_us(25))
}
fn default_switch_buffer() -> Buffer {
    Buffer::Bytes(32_000)
}
fn default_host_buffer() -> Buffer {
    Buffer::Unlimited
}
fn default_zero_dur() -> Dur {
    Dur(Duration::ZERO)
}

impl TopologyConfig {
    pub fn kind(&self) -> &'static str {
        match self {
            TopologyConfig::Star(_) => "star",
            TopologyConfig::Dumbbell(_) => "dumbbell",
            TopologyConfig::FatTree(_) => "fat_tree",
            TopologyConfig::Tree(_) => "tree",
            TopologyConfig::Custom(_) => "custom",
        }
    }

    /// Hosts in the topology, for placement checks.
    pub fn host_count(&self, senders: u32) -> u64 {
        match self {
            TopologyConfig::Star(_) => senders as u64 + 1,
            TopologyConfig::Dumbbell(d) => senders as u64 + d.receivers as u64,
            TopologyConfig::FatTree(f) => (f.k as u64).pow(3) / 4,
            TopologyConfig::Tree(t) => t.racks as u64 * t.hosts_per_rack as u64,
            TopologyConfig::Custom(c) => c.hosts as u64,
        }
    }

    /// Receiver and sender host indices for topologies with explicit placement.
    pub fn placement(&self) -> Option<(u32, Option<&[u32]>)> {
        match self {
            TopologyConfig::FatTree(f) => Some((f.receiver_host, f.sender_hosts.as_deref())),
            TopologyConfig::Tree(t) => Some((t.receiver_host, t.sender_hosts.as_deref())),
            TopologyConfig::Custom(c) => Some((c.receiver_host, c.sender_hosts.as_deref())),
            _ => None,
        }
    }

    pub fn routing(&self) -> RoutingConfig {
        match self {
            TopologyConfig::FatTree(f) => f.routing,
            _ => RoutingConfig::Ecmp,
        }
    }
    pub fn links(&self) -> LinkDefaults {
        match self {
            TopologyConfig::Star(l) => l.clone(),
            TopologyConfig::FatTree(d) => LinkDefaults {
                link_rate: d.link_rate,
                link_delay: d.link_delay,
                switch_buffer: d.switch_buffer,
                switch_queue: d.switch_queue.clone(),
                priority_classes: d.priority_classes,
                host_buffer: d.host_buffer,
                link_loss: d.link_loss,
                switch_delay: d.switch_delay,
                switch_delay_jitter: d.switch_delay_jitter,
                clock_tolerance_ppm: d.clock_tolerance_ppm,
            },
            TopologyConfig::Custom(d) => LinkDefaults {
                link_rate: d.link_rate,
                link_delay: d.link_delay,
                switch_buffer: d.switch_buffer,
                switch_queue: d.switch_queue.clone(),
                priority_classes: d.priority_classes,
                host_buffer: d.host_buffer,
                link_loss: d.link_loss,
                switch_delay: d.switch_delay,
                switch_delay_jitter: d.switch_delay_jitter,
                clock_tolerance_ppm: d.clock_tolerance_ppm,
            },
            TopologyConfig::Tree(d) => LinkDefaults {
                link_rate: d.link_rate,
                link_delay: d.link_delay,
                switch_buffer: d.switch_buffer,
                switch_queue: d.switch_queue.clone(),
                priority_classes: d.priority_classes,
                host_buffer: d.host_buffer,
                link_loss: d.link_loss,
                switch_delay: d.switch_delay,
                switch_delay_jitter: d.switch_delay_jitter,
                clock_tolerance_ppm: d.clock_tolerance_ppm,
            },
            TopologyConfig::Dumbbell(d) => LinkDefaults {
                link_rate: d.link_rate,
                link_delay: d.link_delay,
                switch_buffer: d.switch_buffer,
                switch_queue: d.switch_queue.clone(),
                priority_classes: d.priority_classes,
                host_buffer: d.host_buffer,
                link_loss: d.link_loss,
                switch_delay: d.switch_delay,
                switch_delay_jitter: d.switch_delay_jitter,
                clock_tolerance_ppm: d.clock_tolerance_ppm,
            },
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CongestionControlName {
    Newreno,
    /// RFC 9438 (parameters in `tcp.cubic`).
    Cubic,
    /// RFC 8257 (parameters in `tcp.dctcp`; implies ECN).
    Dctcp,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossRecovery {
    /// RFC 6582 NewReno fast recovery (no SACK).
    Newreno,
    /// RFC 2018 SACK blocks and RFC 6675 pipe-based recovery.
    Sack,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CubicParams {
    #[serde(default = "default_cubic_c")]
    pub c: f64,
    #[serde(default = "default_cubic_beta")]
    pub beta: f64,
    #[serde(default = "default_true")]
    pub fast_convergence: bool,
    /// HyStart is not modelled: slow start runs until loss or ssthresh (only `false` is valid).
    #[serde(default)]
    pub hystart: bool,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams {
            c: default_cubic_c(),
            beta: default_cubic_beta(),
            fast_convergence: true,
            hystart: false,
        }
    }
}
fn default_cubic_c() -> f64 {
    0.4
}
fn default_cubic_beta() -> f64 {
    0.7
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DctcpParams {
    /// EWMA gain of α.
    #[serde(default = "default_dctcp_g")]
    pub g: f64,
    #[serde(default = "default_dctcp_alpha")]
    pub initial_alpha: f64,
}

impl Default for DctcpParams {
    fn default() -> Self {
        DctcpParams {
            g: default_dctcp_g(),
            initial_alpha: default_dctcp_alpha(),
        }
    }
}
fn default_dctcp_g() -> f64 {
    1.0 / 16.0
}
fn default_dctcp_alpha() -> f64 {
    1.0
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSamplingName {
    Timestamps,
    OncePerRtt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryExitName {
    Ssthresh,
    MinFlight,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelayedAckConfig {
    #[serde(default)]
    pub enabled: bool,
    /// ACK every this many full segments.
    #[serde(default = "default_delack_count")]
    pub count: u32,
    #[serde(default = "default_delack_timeout")]
    pub timeout: Dur,
}

impl Default for DelayedAckConfig {
    fn default() -> Self {
        DelayedAckConfig {
            enabled: false,
            count: default_delack_count(),
            timeout: default_delack_timeout(),
        }
    }
}
fn default_delack_count() -> u32 {
    2
}
fn default_delack_timeout() -> Dur {
    Dur(Duration::from_ms(40))
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpConfig {
    #[serde(default = "default_cc")]
    pub congestion_control: CongestionControlName,
    #[serde(default = "default_recovery")]
    pub loss_recovery: LossRecovery,
    /// RFC 3168 ECN (always on with DCTCP).
    #[serde(default)]
    pub ecn: bool,
    #[serde(default)]
    pub cubic: CubicParams,
    #[serde(default)]
    pub dctcp: DctcpParams,
    /// DSCP (traffic class) of the connections' packets.
    #[serde(default)]
    pub dscp: u8,
    /// Maximum segment size: payload bytes per full segment.
    #[serde(default = "default_mss")]
    pub mss: Bytes,
    /// TCP/IP header bytes on every packet.
    #[serde(default = "default_header")]
    pub header: Bytes,
    /// Initial congestion window, in segments.
    #[serde(default = "default_initial_cwnd")]
    pub initial_cwnd: u32,
    /// Receiver's advertised window, in segments of `mss` bytes.
    #[serde(default = "default_rwnd")]
    pub receive_window_segments: u32,
    #[serde(default = "default_dupthresh")]
    pub dupack_threshold: u32,
    /// RFC 3042 limited transmit.
    #[serde(default = "default_true")]
    pub limited_transmit: bool,
    #[serde(default = "default_rto_min")]
    pub rto_min: Dur,
    #[serde(default = "default_rto_max")]
    pub rto_max: Dur,
    /// RTO before the first RTT sample; defaults to `rto_min` (see ARCHITECTURE.md).
    #[serde(default)]
    pub rto_initial: Option<Dur>,
    /// Timer/clock granularity G of RFC 6298.
    #[serde(default = "default_granularity")]
    pub clock_granularity: Dur,
    #[serde(default = "default_rtt_sampling")]
    pub rtt_sampling: RttSamplingName,
    /// cwnd when NewReno recovery ends (RFC 6582 §3.2 step 3 option).
    #[serde(default = "default_recovery_exit")]
    pub recovery_exit_cwnd: RecoveryExitName,
    #[serde(default)]
    pub delayed_ack: DelayedAckConfig,
    /// RFC 5681 §4.1 restart window after idle. Off: cwnd is kept across blocks.
    #[serde(default)]
    pub slow_start_after_idle: bool,
    /// ns-2's Agent/TCP `overhead_`: each data segment leaves the host an extra U[0, value]
    /// later, in order. Random per-packet timing breaks the phase effects that identical packet
    /// sizes and constant delays otherwise lock in (Floyd & Jacobson, 1992). 0 = off.
    #[serde(default = "default_zero_dur")]
    pub send_overhead: Dur,
    /// What cwnd counts: `bytes` (RFC 5681 byte counting) or `packets` (segments of any size,
    /// grown per acknowledged segment: Linux without ABC, as in the TCPRand paper).
    #[serde(default)]
    pub cwnd_unit: CwndUnit,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CwndUnit {
    #[default]
    Bytes,
    Packets,
}

impl Default for TcpConfig {
    fn default() -> Self {
        serde_json::from_value(serde_json::json!({})).expect("all TCP fields have defaults")
    }
}

fn default_cc() -> CongestionControlName {
    CongestionControlName::Newreno
}
fn default_recovery() -> LossRecovery {
    LossRecovery::Newreno
}
fn default_mss() -> Bytes {
    Bytes(1000)
}
fn default_header() -> Bytes {
    Bytes(40)
}
fn default_initial_cwnd() -> u32 {
    2
}
fn default_rwnd() -> u32 {
    1000
}
fn default_dupthresh() -> u32 {
    3
}
fn default_true() -> bool {
    true
}
fn default_rto_min() -> Dur {
    Dur(Duration::from_ms(200))
}
fn default_rto_max() -> Dur {
    Dur(Duration::from_secs(60))
}
fn default_granularity() -> Dur {
    Dur(Duration::from_us(1))
}
fn default_rtt_sampling() -> RttSamplingName {
    RttSamplingName::Timestamps
}
fn default_recovery_exit() -> RecoveryExitName {
    RecoveryExitName::Ssthresh
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum WorkloadConfig {
    /// The client requests a block from every server and asks for the next block only when all
    /// servers' responses have arrived. Give `sru` (fixed bytes per server) or `block` (fixed
    /// bytes per block, striped over the servers).
    SynchronizedReads {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sru: Option<Bytes>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        block: Option<Bytes>,
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
    },
    /// Long-lived flows from every sender, each always having data to send.
    Bulk {
        duration: Dur,
        #[serde(default = "default_zero_dur")]
        start_jitter: Dur,
    },
    /// No flows of its own: only the `traffic:` generators. Arrivals run for `duration`; with
    /// `drain` (the default) the run then continues until every finite flow has completed
    /// (bounded by `run.max_sim_time`), so every arrival gets a flow-completion time.
    Traffic {
        duration: Dur,
        #[serde(default = "default_true")]
        drain: bool,
    },
}

/// Flow-metric settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsConfig {
    /// The two size edges of the small / mid / large FCT groups: small < edge 1 <= mid < edge 2
    /// <= large (the TCPRand paper's 100 KB and 10 MB by default).
    #[serde(default = "default_fct_bins")]
    pub fct_bins: Vec<Bytes>,
    #[serde(default)]
    pub fairness: FairnessConfig,
    /// Evaluate the book's incast models (Kulkarni & Agrawal Eq. 3.21, 3.39, 3.40) on the
    /// inputs measured from the run and write them next to the goodput in runs.csv.
    #[serde(default)]
    pub models: bool,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig {
            fct_bins: default_fct_bins(),
            fairness: FairnessConfig::default(),
            models: false,
        }
    }
}

fn default_fct_bins() -> Vec<Bytes> {
    vec![Bytes(100_000), Bytes(10_000_000)]
}

/// Which goodputs Jain's index (runs.csv `jain_fairness`) is computed over.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FairnessConfig {
    /// `workload` (the workload's flows; all flows for a `traffic` workload), `all`, `traffic`,
    /// `traffic[I]` (one generator's flows) or flow indices such as "0,3,5-9".
    #[serde(default = "default_fairness_flows")]
    pub flows: String,
    /// `flow`: one goodput per flow. `sender`: per source host, the mean goodput of its flows
    /// (the TCPRand paper's g_i).
    #[serde(default)]
    pub per: FairnessPer,
}

impl Default for FairnessConfig {
    fn default() -> Self {
        FairnessConfig {
            flows: default_fairness_flows(),
            per: FairnessPer::Flow,
        }
    }
}

fn default_fairness_flows() -> String {
    "workload".into()
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FairnessPer {
    #[default]
    Flow,
    Sender,
}

fn default_request_size() -> Bytes {
    Bytes(40)
}
fn default_jitter() -> Dur {
    Dur(Duration::from_us(20))
}

impl WorkloadConfig {
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

pub use crate::scheme_config::SchemeConfig;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// A run that has not finished by this simulated time stops and is reported incomplete.
    #[serde(default = "default_max_sim_time")]
    pub max_sim_time: Dur,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            max_sim_time: default_max_sim_time(),
        }
    }
}
fn default_max_sim_time() -> Dur {
    Dur(Duration::from_secs(3600))
}

/// Sets `path` (dot-separated keys) in a YAML tree to `value`, creating sections as needed.
pub fn set_path(
    tree: &mut serde_json::Value,
    path: &str,
    value: serde_json::Value,
) -> Result<(), String> {
    let keys: Vec<&str> = path.trim().split('.').collect();
    if keys.iter().any(|k| k.is_empty()) {
        return Err("empty key in the path".into());
    }
    let mut node = tree;
    for (i, key) in keys.iter().enumerate() {
        // `name[I]` steps into entry I of the list `name` (e.g. traffic[0].load).
        let (key, index) = match key.strip_suffix(']').and_then(|k| k.split_once('[')) {
            Some((name, idx)) => {
                let idx: usize = idx
                    .trim()
                    .parse()
                    .map_err(|_| format!("{key}: the index must be a number"))?;
                (name, Some(idx))
            }
            None => (*key, None),
        };
        if let Some(idx) = index {
            let list = node
                .get_mut(key)
                .and_then(|v| v.as_array_mut())
                .ok_or_else(|| format!("{} is not a list", keys[..=i].join(".")))?;
            let len = list.len();
            let entry = list
                .get_mut(idx)
                .ok_or_else(|| format!("{key}[{idx}]: the list {key} has {len} entries"))?;
            if i + 1 == keys.len() {
                *entry = value;
                return Ok(());
            }
            node = entry;
            continue;
        }
        let map = match node {
            serde_json::Value::Object(m) => m,
            serde_json::Value::Null => {
                *node = serde_json::Value::Object(Default::default());
                node.as_object_mut().expect("just made an object")
            }
            _ => return Err(format!("{} is not a section", keys[..i].join("."))),
        };
        if i + 1 == keys.len() {
            map.insert(key.to_string(), value);
            return Ok(());
        }
        node = map
            .entry(key.to_string())
            .or_insert(serde_json::Value::Null);
    }
    unreachable!("the loop returns at the last key")
}

/// Reads a command-line value as a YAML scalar (`32` is a number, `1ms` a string, `[1, 2]` a list).
pub fn parse_value(raw: &str) -> serde_json::Value {
    let t = raw.trim();
    match serde_saphyr::from_str::<serde_json::Value>(raw) {
        Ok(serde_json::Value::Null) if !t.is_empty() && t != "null" && t != "~" => {
            serde_json::Value::String(raw.to_string())
        }
        Ok(v) => v,
        Err(_) => serde_json::Value::String(raw.to_string()),
    }
}

/// Applies one `--set key.path=value` to a YAML tree.
pub fn apply_override(tree: &mut serde_json::Value, arg: &str) -> Result<(), ConfigError> {
    let err = |message: String| ConfigError::Override {
        arg: arg.to_string(),
        message,
    };
    let (path, raw) = arg
        .split_once('=')
        .ok_or_else(|| err("expected key.path=value".into()))?;
    set_path(tree, path, parse_value(raw)).map_err(err)
}

/// Parses YAML text into a tree (a mapping at the top).
pub fn parse_tree(text: &str) -> Result<serde_json::Value, ConfigError> {
    let mut tree: serde_json::Value =
        serde_saphyr::from_str(text).map_err(|e| ConfigError::Syntax(e.to_string()))?;
    if tree.is_null() {
        tree = serde_json::Value::Object(Default::default());
    }
    if !tree.is_object() {
        return Err(ConfigError::Syntax(
            "the config must be a mapping of keys to values".into(),
        ));
    }
    Ok(tree)
}

impl Config {
    /// Reads, overrides, type-checks and validates a config file.
    pub fn load(path: &std::path::Path, overrides: &[String]) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Config::from_yaml(&text, overrides)
    }

    pub fn from_yaml(text: &str, overrides: &[String]) -> Result<Config, ConfigError> {
        let mut tree = parse_tree(text)?;
        for o in overrides {
            apply_override(&mut tree, o)?;
        }
        // `--set sweep=null` runs a sweep config's base point as one scenario.
        if let Some(m) = tree.as_object_mut()
            && m.get("sweep").is_some_and(|v| v.is_null())
        {
            m.remove("sweep");
        }
        if tree.get("sweep").is_some() {
            return Err(ConfigError::HasSweep);
        }
        Config::from_tree(tree)
    }

    /// Type-checks, resolves and validates a config tree (with any overrides already applied).
    pub fn from_tree(mut tree: serde_json::Value) -> Result<Config, ConfigError> {
        // A flow override's `tcp` is partial: complete it from the top-level `tcp`.
        let base_tcp = tree
            .get("tcp")
            .cloned()
            .unwrap_or(serde_json::Value::Object(Default::default()));
        if let Some(serde_json::Value::Array(groups)) = tree.get_mut("flow_overrides") {
            for g in groups.iter_mut() {
                if let Some(over) = g.get("tcp").cloned() {
                    let mut merged = base_tcp.clone();
                    deep_merge(&mut merged, &over);
                    g["tcp"] = merged;
                }
            }
        }
        let cfg: Config = serde_path_to_error::deserialize(tree).map_err(|e| {
            let key = e.path().to_string();
            ConfigError::Key {
                key: if key == "." { "config".into() } else { key },
                message: e.into_inner().to_string(),
            }
        })?;
        let cfg = cfg.resolved();
        cfg.validate()?;
        Ok(cfg)
    }

    /// Fills in defaults that depend on other keys, so the config says exactly what runs.
    pub fn resolved(mut self) -> Config {
        for t in
            std::iter::once(&mut self.tcp).chain(self.flow_overrides.iter_mut().map(|g| &mut g.tcp))
        {
            if t.congestion_control == CongestionControlName::Dctcp {
                t.ecn = true;
            }
            t.rto_initial.get_or_insert(t.rto_min);
        }
        if let TopologyConfig::Dumbbell(d) = &mut self.topology {
            d.bottleneck_rate.get_or_insert(d.link_rate);
            d.bottleneck_delay.get_or_insert(d.link_delay);
        }
        let rto_initial = *self.tcp.rto_initial.get_or_insert(self.tcp.rto_min);
        if let WorkloadConfig::SynchronizedReads {
            request_timeout, ..
        } = &mut self.workload
        {
            request_timeout.get_or_insert(rto_initial);
        }
        self
    }

    pub fn to_yaml(&self) -> String {
        serde_saphyr::to_string(self).expect("a config always serializes")
    }

    /// Wire size of a full data packet.
    pub fn full_packet_bytes(&self) -> u64 {
        self.tcp.mss.0 + self.tcp.header.0
    }

    /// The TCP settings of flow `f` (its override group's, or the top-level ones).
    pub fn tcp_for_flow(&self, f: u32) -> &TcpConfig {
        self.flow_overrides
            .iter()
            .find(|g| g.flows.contains(&f))
            .map_or(&self.tcp, |g| &g.tcp)
    }

    /// Cross-field checks: refuses scenarios that cannot run, naming the key and what is allowed.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let mut seen = std::collections::BTreeSet::new();
        for (i, g) in self.flow_overrides.iter().enumerate() {
            let key = format!("flow_overrides[{i}]");
            if g.flows.is_empty() {
                return Err(invalid(
                    &format!("{key}.flows"),
                    "[]",
                    "at least one flow index",
                ));
            }
            for &f in &g.flows {
                if f >= self.senders || !seen.insert(f) {
                    return Err(invalid(
                        &format!("{key}.flows"),
                        f,
                        format!(
                            "distinct flow indices below senders = {}, each in one group",
                            self.senders
                        ),
                    ));
                }
            }
            // Check the group's TCP settings exactly as the top-level ones, under its own key.
            let mut alone = self.clone();
            alone.tcp = g.tcp.clone();
            alone.flow_overrides.clear();
            alone.validate().map_err(|e| match e {
                ConfigError::Invalid {
                    key: k,
                    value,
                    allowed,
                } if k.starts_with("tcp.") => ConfigError::Invalid {
                    key: format!("{key}.{k}"),
                    value,
                    allowed,
                },
                other => other,
            })?;
        }
        const MAX_SENDERS: u32 = 1_000_000;
        if self.senders == 0 || self.senders > MAX_SENDERS {
            return Err(invalid(
                "senders",
                self.senders,
                format!("between 1 and {MAX_SENDERS}"),
            ));
        }
        let l = self.topology.links();
        check_rate("topology.link_rate", l.link_rate)?;
        if !(0.0..1.0).contains(&l.link_loss) || l.link_loss.is_nan() {
            return Err(invalid(
                "topology.link_loss",
                l.link_loss,
                "a probability in [0, 1)",
            ));
        }
        let t = &self.tcp;
        if t.mss.0 == 0 || t.mss.0 > 1_000_000 {
            return Err(invalid("tcp.mss", t.mss.0, "between 1 B and 1 MB"));
        }
        if t.header.0 > 65_535 {
            return Err(invalid("tcp.header", t.header.0, "at most 65535 bytes"));
        }
        let full = self.full_packet_bytes();
        for (key, buf) in [
            ("topology.switch_buffer", l.switch_buffer),
            ("topology.host_buffer", l.host_buffer),
        ] {
            match buf {
                Buffer::Bytes(b) if b < full => {
                    return Err(invalid(
                        key,
                        buf,
                        format!(
                            "room for at least one full packet: tcp.mss + tcp.header = {full} B"
                        ),
                    ));
                }
                Buffer::Packets(0) => return Err(invalid(key, buf, "at least 1 packet")),
                _ => {}
            }
        }
        match &self.topology {
            TopologyConfig::FatTree(f) if f.k < 2 || f.k % 2 == 1 || f.k > 48 => {
                return Err(invalid("topology.k", f.k, "an even number from 2 to 48"));
            }
            TopologyConfig::Tree(t) if t.racks == 0 || t.hosts_per_rack == 0 => {
                return Err(invalid(
                    "topology.racks / topology.hosts_per_rack",
                    format!("{} x {}", t.racks, t.hosts_per_rack),
                    "at least 1 each",
                ));
            }
            TopologyConfig::Tree(t) if t.uplink_rate.is_some_and(|r| r.0.0 == 0) => {
                return Err(invalid("topology.uplink_rate", "0bps", "a positive rate"));
            }
            _ => {}
        }
        if let TopologyConfig::Custom(c) = &self.topology {
            crate::build::check_custom(c)?;
        }
        if let Some((receiver, senders)) = self.topology.placement() {
            let hosts = self.topology.host_count(self.senders);
            if receiver as u64 >= hosts {
                return Err(invalid(
                    "topology.receiver_host",
                    receiver,
                    format!("a host index below {hosts}"),
                ));
            }
            match senders {
                None if self.senders as u64 >= hosts => {
                    return Err(invalid(
                        "senders",
                        self.senders,
                        format!("at most {} (hosts other than the receiver)", hosts - 1),
                    ));
                }
                Some(list) => {
                    if list.len() != self.senders as usize {
                        return Err(invalid(
                            "topology.sender_hosts",
                            format!("{} hosts", list.len()),
                            format!("exactly `senders` = {} hosts", self.senders),
                        ));
                    }
                    let mut seen = std::collections::BTreeSet::new();
                    for &h in list {
                        if h as u64 >= hosts || h == receiver || !seen.insert(h) {
                            return Err(invalid(
                                "topology.sender_hosts",
                                h,
                                format!(
                                    "distinct host indices below {hosts}, other than the receiver"
                                ),
                            ));
                        }
                    }
                }
                None => {}
            }
        }
        if let TopologyConfig::Dumbbell(d) = &self.topology {
            if let Some(r) = d.bottleneck_rate {
                check_rate("topology.bottleneck_rate", r)?;
            }
            if d.receivers == 0 || d.receivers > MAX_SENDERS {
                return Err(invalid(
                    "topology.receivers",
                    d.receivers,
                    format!("between 1 and {MAX_SENDERS}"),
                ));
            }
        }
        if !(0.0..=1000.0).contains(&l.clock_tolerance_ppm) {
            return Err(invalid(
                "topology.clock_tolerance_ppm",
                l.clock_tolerance_ppm,
                "0 (exact rates) up to 1000",
            ));
        }
        if l.switch_delay_jitter.0 > Duration::from_ms(100) {
            return Err(invalid(
                "topology.switch_delay_jitter",
                l.switch_delay_jitter.0,
                "0 (constant processing delay) up to 100ms",
            ));
        }
        validate_queue(&l.switch_queue, l.switch_buffer)?;
        if l.priority_classes == 0 || l.priority_classes > 64 {
            return Err(invalid(
                "topology.priority_classes",
                l.priority_classes,
                "1 (FIFO) to 64",
            ));
        }
        if t.cubic.hystart {
            return Err(invalid(
                "tcp.cubic.hystart",
                true,
                "false: HyStart is not modelled",
            ));
        }
        if !(t.cubic.c > 0.0 && t.cubic.c.is_finite()) {
            return Err(invalid("tcp.cubic.c", t.cubic.c, "a positive number"));
        }
        if !(t.cubic.beta > 0.0 && t.cubic.beta < 1.0) {
            return Err(invalid(
                "tcp.cubic.beta",
                t.cubic.beta,
                "a number in (0, 1)",
            ));
        }
        if !(t.dctcp.g > 0.0 && t.dctcp.g <= 1.0) {
            return Err(invalid("tcp.dctcp.g", t.dctcp.g, "a number in (0, 1]"));
        }
        if !(0.0..=1.0).contains(&t.dctcp.initial_alpha) {
            return Err(invalid(
                "tcp.dctcp.initial_alpha",
                t.dctcp.initial_alpha,
                "a number in [0, 1]",
            ));
        }
        if t.send_overhead.0 > Duration::from_ms(100) {
            return Err(invalid(
                "tcp.send_overhead",
                t.send_overhead.0,
                "0 (off) up to 100ms",
            ));
        }
        if t.dscp > 63 {
            return Err(invalid("tcp.dscp", t.dscp, "0 to 63"));
        }
        for (i, b) in self.background.iter().enumerate() {
            let BackgroundConfig::UdpCbr {
                from,
                to,
                rate,
                packet_size,
                dscp,
                start,
                stop,
            } = b;
            let key = |k: &str| format!("background[{i}].{k}");
            let receivers = match &self.topology {
                TopologyConfig::Dumbbell(d) => d.receivers,
                TopologyConfig::Star(_)
                | TopologyConfig::FatTree(_)
                | TopologyConfig::Tree(_)
                | TopologyConfig::Custom(_) => 1,
            };
            for (k, v) in [("from", from), ("to", to)] {
                match HostSelector::parse(v) {
                    None => {
                        return Err(invalid(
                            &key(k),
                            v,
                            "senders, sender:I, receiver or receiver:I",
                        ));
                    }
                    Some(HostSelector::Sender(s)) if s >= self.senders => {
                        return Err(invalid(
                            &key(k),
                            v,
                            format!("a sender index below {}", self.senders),
                        ));
                    }
                    Some(HostSelector::Receiver(r)) if r >= receivers => {
                        return Err(invalid(
                            &key(k),
                            v,
                            format!("a receiver index below {receivers}"),
                        ));
                    }
                    Some(HostSelector::AllSenders) if k == "to" => {
                        return Err(invalid(
                            &key(k),
                            v,
                            "one host: sender:I, receiver or receiver:I",
                        ));
                    }
                    _ => {}
                }
            }
            if HostSelector::parse(from) == HostSelector::parse(to) {
                return Err(invalid(&key("to"), to, "a host other than `from`"));
            }
            check_rate(&key("rate"), *rate)?;
            if packet_size.0 == 0 || packet_size.0 > 65_535 {
                return Err(invalid(
                    &key("packet_size"),
                    packet_size.0,
                    "1 to 65535 bytes",
                ));
            }
            if *dscp > 63 {
                return Err(invalid(&key("dscp"), dscp, "0 to 63"));
            }
            if let Some(stop) = stop
                && stop.0 <= start.0
            {
                return Err(invalid(
                    &key("stop"),
                    stop.0,
                    format!("after start ({})", start.0),
                ));
            }
        }
        if t.initial_cwnd == 0 || t.initial_cwnd > 1_000_000 {
            return Err(invalid(
                "tcp.initial_cwnd",
                t.initial_cwnd,
                "between 1 and 1000000 segments",
            ));
        }
        if t.receive_window_segments == 0
            || t.receive_window_segments as u64 * t.mss.0 > u32::MAX as u64
        {
            return Err(invalid(
                "tcp.receive_window_segments",
                t.receive_window_segments,
                "at least 1, and receive_window_segments * mss below 4 GiB",
            ));
        }
        if t.dupack_threshold == 0 || t.dupack_threshold > 1000 {
            return Err(invalid(
                "tcp.dupack_threshold",
                t.dupack_threshold,
                "between 1 and 1000",
            ));
        }
        if t.rto_min.0 == Duration::ZERO {
            return Err(invalid("tcp.rto_min", t.rto_min.0, "a positive duration"));
        }
        if t.rto_max.0 < t.rto_min.0 {
            return Err(invalid(
                "tcp.rto_max",
                t.rto_max.0,
                format!("at least tcp.rto_min ({})", t.rto_min.0),
            ));
        }
        if let Some(init) = t.rto_initial
            && init.0 == Duration::ZERO
        {
            return Err(invalid("tcp.rto_initial", init.0, "a positive duration"));
        }
        if t.delayed_ack.enabled {
            if t.delayed_ack.count == 0 {
                return Err(invalid("tcp.delayed_ack.count", 0, "at least 1 segment"));
            }
            if t.delayed_ack.timeout.0 == Duration::ZERO {
                return Err(invalid(
                    "tcp.delayed_ack.timeout",
                    t.delayed_ack.timeout.0,
                    "a positive duration",
                ));
            }
        }
        match &self.workload {
            WorkloadConfig::SynchronizedReads {
                sru,
                block,
                blocks,
                request_size,
                ..
            } => {
                match (sru, block) {
                    (Some(_), Some(_)) | (None, None) => {
                        return Err(invalid(
                            "workload.sru / workload.block",
                            "both or neither",
                            "exactly one: sru (bytes per server per block) or block (bytes per block, striped over the senders)",
                        ));
                    }
                    (Some(s), None) if s.0 == 0 => {
                        return Err(invalid("workload.sru", s.0, "at least 1 byte"));
                    }
                    (None, Some(b)) if b.0 < self.senders as u64 => {
                        return Err(invalid(
                            "workload.block",
                            b.0,
                            format!("at least one byte per sender ({} B)", self.senders),
                        ));
                    }
                    _ => {}
                }
                if *blocks == 0 {
                    return Err(invalid("workload.blocks", 0, "at least 1"));
                }
                if request_size.0 == 0 || request_size.0 > full {
                    return Err(invalid(
                        "workload.request_size",
                        request_size.0,
                        format!("between 1 and {full} bytes"),
                    ));
                }
            }
            WorkloadConfig::Bulk { duration, .. } | WorkloadConfig::Traffic { duration, .. } => {
                if duration.0 == Duration::ZERO {
                    return Err(invalid(
                        "workload.duration",
                        duration.0,
                        "a positive duration",
                    ));
                }
            }
        }
        // Draw the traffic generators' flows once: this validates their hosts, sizes and loads.
        let built = crate::build::build_topology(self);
        let generated = crate::traffic::generate_for(self, self.seed, &built)?;
        let workload_flows = self.workload.flow_count(self.senders) as usize;
        let total_flows = workload_flows + generated.len();
        if total_flows == 0 {
            return Err(invalid(
                "traffic",
                "no flows",
                "a `traffic` workload needs generators that start at least one flow",
            ));
        }
        let bins = &self.metrics.fct_bins;
        if bins.len() != 2 || bins[0].0 == 0 || bins[1].0 <= bins[0].0 {
            return Err(invalid(
                "metrics.fct_bins",
                format!("{:?}", bins.iter().map(|b| b.0).collect::<Vec<_>>()),
                "two increasing positive sizes (small < first <= mid < second <= large)",
            ));
        }
        let generators: Vec<u32> = generated.iter().map(|g| g.generator).collect();
        crate::traffic::select_flows(
            &self.metrics.fairness.flows,
            workload_flows,
            &generators,
            self.traffic.len(),
        )
        .map_err(|allowed| {
            invalid(
                "metrics.fairness.flows",
                &self.metrics.fairness.flows,
                allowed,
            )
        })?;
        if let Some(ts) = &self.time_series {
            if ts.interval.0 == Duration::ZERO {
                return Err(invalid(
                    "time_series.interval",
                    ts.interval.0,
                    "a positive duration",
                ));
            }
            if let Some(&f) = ts.flows.iter().find(|&&f| f as usize >= total_flows) {
                return Err(invalid(
                    "time_series.flows",
                    f,
                    format!("flow indices below the number of flows ({total_flows})"),
                ));
            }
            if !ts.ports.is_empty() || ts.on_change_port.is_some() {
                let names = crate::build::port_names(&built.topology);
                if let Some(p) = ts
                    .ports
                    .iter()
                    .chain(ts.on_change_port.iter())
                    .find(|p| !names.contains(p))
                {
                    let examples: Vec<&String> = names.iter().take(4).collect();
                    return Err(invalid(
                        "time_series.ports",
                        p,
                        format!("an existing port \"from->to\", e.g. {examples:?}"),
                    ));
                }
            }
        }
        self.scheme.validate(self)?;
        if self.run.max_sim_time.0 == Duration::ZERO {
            return Err(invalid(
                "run.max_sim_time",
                self.run.max_sim_time.0,
                "a positive duration",
            ));
        }
        Ok(())
    }
}

fn validate_queue(q: &QueueConfig, buffer: Buffer) -> Result<(), ConfigError> {
    let key = "topology.switch_queue";
    let threshold = |k: &str, b: &Buffer| -> Result<f64, ConfigError> {
        match *b {
            Buffer::Bytes(n) => Ok(n as f64),
            Buffer::Packets(n) => Ok(n as f64),
            Buffer::Unlimited => Err(invalid(
                &format!("{key}.{k}"),
                b,
                "a size in bytes or packets",
            )),
        }
    };
    let same_unit = |a: &Buffer, b: &Buffer| std::mem::discriminant(a) == std::mem::discriminant(b);
    let red = |min: &Buffer, max: &Buffer, max_p: f64, prefix: &str| -> Result<(), ConfigError> {
        let (lo, hi) = (
            threshold(&format!("{prefix}min_th"), min)?,
            threshold(&format!("{prefix}max_th"), max)?,
        );
        if !same_unit(min, max) {
            return Err(invalid(
                &format!("{key}.{prefix}max_th"),
                max,
                "the same unit as min_th (bytes or packets)",
            ));
        }
        if lo >= hi {
            return Err(invalid(
                &format!("{key}.{prefix}max_th"),
                max,
                format!("more than min_th ({min})"),
            ));
        }
        if !(max_p > 0.0 && max_p <= 1.0) {
            return Err(invalid(
                &format!("{key}.{prefix}max_p"),
                max_p,
                "a probability in (0, 1]",
            ));
        }
        Ok(())
    };
    let w_q_ok = |w: f64| -> Result<(), ConfigError> {
        if w > 0.0 && w <= 1.0 {
            Ok(())
        } else {
            Err(invalid(&format!("{key}.w_q"), w, "a weight in (0, 1]"))
        }
    };
    match q {
        QueueConfig::DropTail => {}
        QueueConfig::Red {
            min_th,
            max_th,
            max_p,
            w_q,
            ..
        } => {
            red(min_th, max_th, *max_p, "")?;
            w_q_ok(*w_q)?;
        }
        QueueConfig::Wred { profiles, w_q, .. } => {
            if profiles.is_empty() {
                return Err(invalid(
                    &format!("{key}.profiles"),
                    "[]",
                    "at least one profile",
                ));
            }
            let mut seen = [false; 64];
            for (i, p) in profiles.iter().enumerate() {
                red(&p.min_th, &p.max_th, p.max_p, &format!("profiles[{i}]."))?;
                if !same_unit(&p.min_th, &profiles[0].min_th) {
                    return Err(invalid(
                        &format!("{key}.profiles[{i}].min_th"),
                        p.min_th,
                        "the unit of the first profile",
                    ));
                }
                for &d in &p.dscp {
                    if d > 63 || seen[d as usize] {
                        return Err(invalid(
                            &format!("{key}.profiles[{i}].dscp"),
                            d,
                            "DSCP values 0-63, each in one profile",
                        ));
                    }
                    seen[d as usize] = true;
                }
            }
            w_q_ok(*w_q)?;
        }
        QueueConfig::EcnThreshold { k } => {
            threshold("k", k)?;
        }
        QueueConfig::ThresholdAdmit { threshold: t } => {
            threshold("threshold", t)?;
        }
    }
    let _ = buffer;
    Ok(())
}

fn check_rate(key: &str, r: Rate) -> Result<(), ConfigError> {
    if r.0.0 == 0 {
        return Err(invalid(key, "0bps", "a positive rate"));
    }
    Ok(())
}
