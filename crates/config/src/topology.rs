//! The `topology:` section: built-in topologies, custom graphs, links, buffers and queues.

use crate::defaults::default_one;
use crate::units::{Buffer, Bytes, Dur, Rate};
use incastsim_core::{BitsPerSec, Duration};
use serde::{Deserialize, Serialize};

pub use crate::queue::{QUEUE_KINDS, QueueConfig, WredProfile};

/// The network (`topology:`), by `kind`.
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
    /// The other end: `hostI` or `switchJ`.
    pub b: String,
    /// This link's rate (default: the topology's `link_rate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// This link's one-way delay (default: `link_delay`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Dur>,
    /// Buffer of this link's switch-side output ports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Buffer>,
    /// Loss on both directions of this link, instead of the topology's `link_loss`
    /// (`lossy_links` can still override one direction).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossModel>,
}

/// Random loss on one direction of a link.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LossModel {
    /// Each packet lost independently with probability `p`.
    Bernoulli {
        /// Loss probability per packet.
        p: f64,
    },
    /// Bursty loss (Gilbert-Elliott): a Good/Bad Markov chain stepped per packet; a packet is
    /// lost with `loss_in_good` / `loss_in_bad` by the state it finds. Mean loss
    /// p/(p + r) · loss_in_bad + r/(p + r) · loss_in_good with p = `p_good_to_bad`,
    /// r = `p_bad_to_good`; bursts last 1/r packets on average.
    GilbertElliott {
        /// Probability of moving from Good to Bad per packet.
        p_good_to_bad: f64,
        /// Probability of moving from Bad to Good per packet (bursts last 1/this packets).
        p_bad_to_good: f64,
        /// Loss probability in the Good state.
        #[serde(default)]
        loss_in_good: f64,
        /// Loss probability in the Bad state (default 1).
        #[serde(default = "default_loss_in_bad")]
        loss_in_bad: f64,
    },
}

// A tagged variant with required keys: a default function. 1: Gilbert's original model, every
// packet in the Bad state lost.
fn default_loss_in_bad() -> f64 {
    1.0
}

/// Loss on the link directions named by `ports`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LossyLink {
    /// Port names as in ports.csv and `time_series` (`switch0->host16`: the direction from
    /// switch0 to host16); `*` matches any run of characters (`host*->switch0`: every host's
    /// uplink to switch0). Each entry must match at least one port.
    pub ports: Vec<String>,
    /// The loss on those directions.
    pub loss: LossModel,
}

/// An explicit next hop: at switch `at`, packets for host `to` go to neighbour `via`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomRoute {
    /// The switch (`switchJ`).
    pub at: String,
    /// The destination host (`hostI`).
    pub to: String,
    /// The neighbour to forward to.
    pub via: String,
}

/// A `custom` topology: any graph of hosts and switches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomTopologyConfig {
    /// Number of hosts (`host0` ...).
    pub hosts: u32,
    /// Number of switches (`switch0` ...).
    pub switches: u32,
    /// The full-duplex links.
    pub links: Vec<CustomLink>,
    /// Explicit next hops; every other (node, host) pair uses shortest paths with ECMP.
    #[serde(default)]
    pub routes: Vec<CustomRoute>,
    /// How switches pick among equal-cost next hops (shown only when not `ecmp`).
    #[serde(default, skip_serializing_if = "RoutingConfig::is_ecmp")]
    pub routing: RoutingConfig,
    /// Rate of every link (`1Gbps`).
    #[serde(default = "default_link_rate")]
    pub link_rate: Rate,
    /// One-way propagation delay of every link.
    #[serde(default = "default_link_delay")]
    pub link_delay: Dur,
    /// Buffer of each switch output port: bytes, `N packets` or `unlimited`.
    #[serde(default = "default_switch_buffer")]
    pub switch_buffer: Buffer,
    /// Queue discipline of the switch ports (drop-tail, RED/WRED, ECN threshold, threshold admission).
    #[serde(default)]
    pub switch_queue: QueueConfig,
    /// One shared buffer per switch with Dynamic Threshold admission instead of a static
    /// buffer per output port (absent: static per-port buffers, `switch_buffer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_buffer: Option<SharedBufferConfig>,
    /// Strict-priority classes per switch port, by DSCP (1: one FIFO queue).
    #[serde(default = "default_one")]
    pub priority_classes: u32,
    /// Deficit weighted round robin between the classes instead of strict priority: one
    /// weight per class (class c gets weight × the largest packet per round; Shreedhar &
    /// Varghese, SIGCOMM 1995). Absent: strict priority, the highest class first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_weights: Option<Vec<u32>>,
    /// The queue a switch port's discipline judges a packet by: `port` (default), the whole
    /// port's occupancy; `class`, the packet's class queue alone (per-queue ECN marking and
    /// drops, as the HPCC fork's switches mark each egress queue by its own bytes). Only with
    /// `priority_classes` > 1 or `pfc`.
    #[serde(default, skip_serializing_if = "QueueScope::is_port")]
    pub queue_scope: QueueScope,
    /// Buffer of each host NIC queue (`unlimited`: the host never drops its own packets).
    #[serde(default = "default_host_buffer")]
    pub host_buffer: Buffer,
    /// Probability that a packet is lost on any link direction (independent per packet; 0 = none).
    #[serde(default)]
    pub link_loss: f64,
    /// Loss on chosen link directions (by port name), over `link_loss`; later entries win.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lossy_links: Vec<LossyLink>,
    /// Fixed processing delay a packet spends in each switch, on top of the link delays.
    #[serde(default)]
    pub switch_delay: Dur,
    /// Per-packet random extra processing delay U[0, value] at each switch (a link's packets
    /// keep their order). Breaks deterministic phase effects; 0 = constant processing delay.
    #[serde(default)]
    pub switch_delay_jitter: Dur,
    /// Each node's clock is off by U[-x, +x] parts per million (IEEE 802.3 allows ±100 ppm), so
    /// its ports send at rate × (1 + offset). Lets lockstep packet trains drift apart, as they
    /// do in real networks; 0 = every port at exactly its nominal rate.
    #[serde(default)]
    pub clock_tolerance_ppm: f64,
    /// Host index of the receiver (the client).
    #[serde(default)]
    pub receiver_host: u32,
    /// Host indices of the senders (default: the first hosts that are not the receiver).
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
    /// Random packet spraying (Dixit et al., INFOCOM 2013): every packet independently picks a
    /// uniformly random equal-cost next hop, from a seeded stream per switch. Packets of one
    /// flow take different paths and may arrive out of order; TCP's `dupack_threshold` (and
    /// SACK) absorb the reordering.
    PacketSpray,
}

impl RoutingConfig {
    /// Whether it is flow-hash ECMP (the default).
    pub fn is_ecmp(&self) -> bool {
        *self == RoutingConfig::Ecmp
    }
}

/// α of the Dynamic Threshold: any positive number, or a power of two as switch vendors expose
/// it ("2^-3"; Broadcom's settings are 2^k, k from −7 to 6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Alpha {
    /// This value.
    Number(f64),
    /// 2^k (written `2^k`).
    PowerOfTwo(i32),
}

impl Alpha {
    /// α as a number.
    pub fn value(&self) -> f64 {
        match *self {
            Alpha::Number(a) => a,
            Alpha::PowerOfTwo(k) => 2f64.powi(k),
        }
    }
}

impl std::fmt::Display for Alpha {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Alpha::Number(a) => write!(f, "{a}"),
            Alpha::PowerOfTwo(k) => write!(f, "2^{k}"),
        }
    }
}

/// What `alpha` may be (also the check's message).
pub const ALPHA_HELP: &str = "a positive number, or \"2^k\" with k an integer from -7 to 6";

impl<'de> Deserialize<'de> for Alpha {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Alpha;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(ALPHA_HELP)
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Alpha, E> {
                Ok(Alpha::Number(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Alpha, E> {
                Ok(Alpha::Number(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Alpha, E> {
                Ok(Alpha::Number(v as f64))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Alpha, E> {
                let bad = || E::custom(format!("invalid alpha {v:?}: expected {ALPHA_HELP}"));
                let t = v.trim();
                if let Some(k) = t.strip_prefix("2^") {
                    let k = k.trim().trim_start_matches('(').trim_end_matches(')');
                    return k
                        .trim()
                        .parse::<i32>()
                        .map(Alpha::PowerOfTwo)
                        .map_err(|_| bad());
                }
                t.parse::<f64>().map(Alpha::Number).map_err(|_| bad())
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for Alpha {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Alpha::Number(a) => s.serialize_f64(a),
            Alpha::PowerOfTwo(k) => s.serialize_str(&format!("2^{k}")),
        }
    }
}

/// A shared-buffer switch (Choudhury & Hahne, IEEE/ACM ToN 1998): one buffer of `size` bytes
/// for all the switch's output queues; a queue may grow while its length (above its
/// reservation) is below α × (free shared space).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedBufferConfig {
    /// B: the whole buffer of one switch, in bytes.
    pub size: Bytes,
    /// The Dynamic Threshold's α.
    #[serde(default = "default_alpha")]
    pub alpha: Alpha,
    /// Bytes each output queue owns outside the shared pool (the pool is the rest).
    #[serde(default)]
    pub reserved_per_queue: Bytes,
    /// The switches that share their buffer, by name ("switch1"); default: every switch. The
    /// others keep static per-port buffers (`switch_buffer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switches: Option<Vec<String>>,
}

// `size` is required, so serde cannot fill `alpha` from a `Default`: α = 1.
fn default_alpha() -> Alpha {
    Alpha::Number(1.0)
}

/// A `fat_tree` topology (Al-Fares et al.).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FatTreeConfig {
    /// k, the switch port count (even): k pods, k³/4 hosts.
    pub k: u32,
    /// Rate of every link (`1Gbps`).
    #[serde(default = "default_link_rate")]
    pub link_rate: Rate,
    /// One-way propagation delay of every link.
    #[serde(default = "default_link_delay")]
    pub link_delay: Dur,
    /// Buffer of each switch output port: bytes, `N packets` or `unlimited`.
    #[serde(default = "default_switch_buffer")]
    pub switch_buffer: Buffer,
    /// Queue discipline of the switch ports (drop-tail, RED/WRED, ECN threshold, threshold admission).
    #[serde(default)]
    pub switch_queue: QueueConfig,
    /// One shared buffer per switch with Dynamic Threshold admission instead of a static
    /// buffer per output port (absent: static per-port buffers, `switch_buffer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_buffer: Option<SharedBufferConfig>,
    /// Strict-priority classes per switch port, by DSCP (1: one FIFO queue).
    #[serde(default = "default_one")]
    pub priority_classes: u32,
    /// Deficit weighted round robin between the classes instead of strict priority: one
    /// weight per class (class c gets weight × the largest packet per round; Shreedhar &
    /// Varghese, SIGCOMM 1995). Absent: strict priority, the highest class first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_weights: Option<Vec<u32>>,
    /// The queue a switch port's discipline judges a packet by: `port` (default), the whole
    /// port's occupancy; `class`, the packet's class queue alone (per-queue ECN marking and
    /// drops, as the HPCC fork's switches mark each egress queue by its own bytes). Only with
    /// `priority_classes` > 1 or `pfc`.
    #[serde(default, skip_serializing_if = "QueueScope::is_port")]
    pub queue_scope: QueueScope,
    /// Buffer of each host NIC queue (`unlimited`: the host never drops its own packets).
    #[serde(default = "default_host_buffer")]
    pub host_buffer: Buffer,
    /// Probability that a packet is lost on any link direction (independent per packet; 0 = none).
    #[serde(default)]
    pub link_loss: f64,
    /// Loss on chosen link directions (by port name), over `link_loss`; later entries win.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lossy_links: Vec<LossyLink>,
    /// Fixed processing delay a packet spends in each switch, on top of the link delays.
    #[serde(default)]
    pub switch_delay: Dur,
    /// Per-packet random extra processing delay U[0, value] at each switch (a link's packets
    /// keep their order). Breaks deterministic phase effects; 0 = constant processing delay.
    #[serde(default)]
    pub switch_delay_jitter: Dur,
    /// Each node's clock is off by U[-x, +x] parts per million (IEEE 802.3 allows ±100 ppm), so
    /// its ports send at rate × (1 + offset). Lets lockstep packet trains drift apart, as they
    /// do in real networks; 0 = every port at exactly its nominal rate.
    #[serde(default)]
    pub clock_tolerance_ppm: f64,
    /// How switches pick among equal-cost next hops.
    #[serde(default)]
    pub routing: RoutingConfig,
    /// Host index of the receiver (hosts are numbered pod by pod, edge by edge).
    #[serde(default)]
    pub receiver_host: u32,
    /// Host indices of the senders (default: the first `senders` hosts other than the receiver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender_hosts: Option<Vec<u32>>,
}

/// A `tree` topology: racks under one aggregation switch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeConfig {
    /// Number of racks (top-of-rack switches).
    pub racks: u32,
    /// Hosts under each top-of-rack switch.
    pub hosts_per_rack: u32,
    /// Rate of every link (`1Gbps`).
    #[serde(default = "default_link_rate")]
    pub link_rate: Rate,
    /// Rate of the rack-to-aggregation links (default: link_rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink_rate: Option<Rate>,
    /// One-way propagation delay of every link.
    #[serde(default = "default_link_delay")]
    pub link_delay: Dur,
    /// Buffer of each switch output port: bytes, `N packets` or `unlimited`.
    #[serde(default = "default_switch_buffer")]
    pub switch_buffer: Buffer,
    /// Queue discipline of the switch ports (drop-tail, RED/WRED, ECN threshold, threshold admission).
    #[serde(default)]
    pub switch_queue: QueueConfig,
    /// One shared buffer per switch with Dynamic Threshold admission instead of a static
    /// buffer per output port (absent: static per-port buffers, `switch_buffer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_buffer: Option<SharedBufferConfig>,
    /// Strict-priority classes per switch port, by DSCP (1: one FIFO queue).
    #[serde(default = "default_one")]
    pub priority_classes: u32,
    /// Deficit weighted round robin between the classes instead of strict priority: one
    /// weight per class (class c gets weight × the largest packet per round; Shreedhar &
    /// Varghese, SIGCOMM 1995). Absent: strict priority, the highest class first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_weights: Option<Vec<u32>>,
    /// The queue a switch port's discipline judges a packet by: `port` (default), the whole
    /// port's occupancy; `class`, the packet's class queue alone (per-queue ECN marking and
    /// drops, as the HPCC fork's switches mark each egress queue by its own bytes). Only with
    /// `priority_classes` > 1 or `pfc`.
    #[serde(default, skip_serializing_if = "QueueScope::is_port")]
    pub queue_scope: QueueScope,
    /// Buffer of each host NIC queue (`unlimited`: the host never drops its own packets).
    #[serde(default = "default_host_buffer")]
    pub host_buffer: Buffer,
    /// Probability that a packet is lost on any link direction (independent per packet; 0 = none).
    #[serde(default)]
    pub link_loss: f64,
    /// Loss on chosen link directions (by port name), over `link_loss`; later entries win.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lossy_links: Vec<LossyLink>,
    /// Fixed processing delay a packet spends in each switch, on top of the link delays.
    #[serde(default)]
    pub switch_delay: Dur,
    /// Per-packet random extra processing delay U[0, value] at each switch (a link's packets
    /// keep their order). Breaks deterministic phase effects; 0 = constant processing delay.
    #[serde(default)]
    pub switch_delay_jitter: Dur,
    /// Each node's clock is off by U[-x, +x] parts per million (IEEE 802.3 allows ±100 ppm), so
    /// its ports send at rate × (1 + offset). Lets lockstep packet trains drift apart, as they
    /// do in real networks; 0 = every port at exactly its nominal rate.
    #[serde(default)]
    pub clock_tolerance_ppm: f64,
    /// Host index of the receiver (the client).
    #[serde(default)]
    pub receiver_host: u32,
    /// Host indices of the senders (default: the first hosts that are not the receiver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender_hosts: Option<Vec<u32>>,
}

/// A `dumbbell` topology: senders and receivers on two switches joined by a bottleneck link.
/// Absent keys take [`DumbbellConfig::default`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DumbbellConfig {
    /// Rate of every link (`1Gbps`).
    pub link_rate: Rate,
    /// One-way propagation delay of every link.
    pub link_delay: Dur,
    /// Buffer of each switch output port: bytes, `N packets` or `unlimited`.
    pub switch_buffer: Buffer,
    /// Queue discipline of the switch ports (drop-tail, RED/WRED, ECN threshold, threshold admission).
    pub switch_queue: QueueConfig,
    /// One shared buffer per switch with Dynamic Threshold admission instead of a static
    /// buffer per output port (absent: static per-port buffers, `switch_buffer`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared_buffer: Option<SharedBufferConfig>,
    /// Strict-priority classes per switch port, by DSCP (1: one FIFO queue).
    pub priority_classes: u32,
    /// Deficit weighted round robin between the classes instead of strict priority: one
    /// weight per class (class c gets weight × the largest packet per round; Shreedhar &
    /// Varghese, SIGCOMM 1995). Absent: strict priority, the highest class first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_weights: Option<Vec<u32>>,
    /// The queue a switch port's discipline judges a packet by: `port` (default), the whole
    /// port's occupancy; `class`, the packet's class queue alone (per-queue ECN marking and
    /// drops, as the HPCC fork's switches mark each egress queue by its own bytes). Only with
    /// `priority_classes` > 1 or `pfc`.
    #[serde(default, skip_serializing_if = "QueueScope::is_port")]
    pub queue_scope: QueueScope,
    /// Buffer of each host NIC queue (`unlimited`: the host never drops its own packets).
    pub host_buffer: Buffer,
    /// Probability that a packet is lost on any link direction (independent per packet; 0 = none).
    pub link_loss: f64,
    /// Loss on chosen link directions (by port name), over `link_loss`; later entries win.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lossy_links: Vec<LossyLink>,
    /// Fixed processing delay a packet spends in each switch, on top of the link delays.
    pub switch_delay: Dur,
    /// Per-packet random extra processing delay U[0, value] at each switch (a link's packets
    /// keep their order). Breaks deterministic phase effects; 0 = constant processing delay.
    pub switch_delay_jitter: Dur,
    /// Each node's clock is off by U[-x, +x] parts per million (IEEE 802.3 allows ±100 ppm), so
    /// its ports send at rate × (1 + offset). Lets lockstep packet trains drift apart, as they
    /// do in real networks; 0 = every port at exactly its nominal rate.
    pub clock_tolerance_ppm: f64,
    /// Hosts on the right switch (receivers).
    pub receivers: u32,
    /// Rate of the switch-to-switch link (defaults to link_rate).
    pub bottleneck_rate: Option<Rate>,
    /// Propagation delay of the switch-to-switch link (defaults to link_delay).
    pub bottleneck_delay: Option<Dur>,
}

/// Link and buffer parameters shared by the built-in topologies. Absent keys take
/// [`LinkDefaults::default`], which is also where the other topologies' link defaults come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LinkDefaults {
    /// Rate of every link (`1Gbps`).
    pub link_rate: Rate,
    /// One-way propagation delay of every link.
    pub link_delay: Dur,
    /// Per-output-port buffer of every switch port.
    pub switch_buffer: Buffer,
    /// Queue discipline of every switch port.
    pub switch_queue: QueueConfig,
    /// One shared buffer per switch with Dynamic Threshold admission instead of a static
    /// buffer per output port (absent: static per-port buffers, `switch_buffer`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared_buffer: Option<SharedBufferConfig>,
    /// Strict-priority classes per switch port (class = min(DSCP, classes − 1), highest first);
    /// 1 means one FIFO.
    pub priority_classes: u32,
    /// Deficit weighted round robin between the classes instead of strict priority: one
    /// weight per class (class c gets weight × the largest packet per round; Shreedhar &
    /// Varghese, SIGCOMM 1995). Absent: strict priority, the highest class first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_weights: Option<Vec<u32>>,
    /// The queue a switch port's discipline judges a packet by: `port` (default), the whole
    /// port's occupancy; `class`, the packet's class queue alone (per-queue ECN marking and
    /// drops, as the HPCC fork's switches mark each egress queue by its own bytes). Only with
    /// `priority_classes` > 1 or `pfc`.
    #[serde(default, skip_serializing_if = "QueueScope::is_port")]
    pub queue_scope: QueueScope,
    /// The host NIC queue (unlimited by default, as a host's socket buffer backs it).
    pub host_buffer: Buffer,
    /// Per-direction Bernoulli loss probability of every link.
    pub link_loss: f64,
    /// Loss on chosen link directions (by port name), over `link_loss`; later entries win.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lossy_links: Vec<LossyLink>,
    /// Switch processing delay added to every packet a switch receives.
    pub switch_delay: Dur,
    /// Per-packet random extra processing delay U[0, value] at each switch (a link's packets
    /// keep their order). Breaks deterministic phase effects; 0 = constant processing delay.
    pub switch_delay_jitter: Dur,
    /// Each node's clock is off by U[-x, +x] parts per million (IEEE 802.3 allows ±100 ppm), so
    /// its ports send at rate × (1 + offset). Lets lockstep packet trains drift apart, as they
    /// do in real networks; 0 = every port at exactly its nominal rate.
    pub clock_tolerance_ppm: f64,
    /// Star only: hosts on the switch that are neither senders nor the receiver (hosts N+1…),
    /// for traffic that must not share the senders' links (`traffic: … from: "other:0-1"`).
    #[serde(skip_serializing_if = "is_zero")]
    pub extra_hosts: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Default for LinkDefaults {
    fn default() -> Self {
        LinkDefaults {
            // S1: 1 Gbps links.
            link_rate: Rate(BitsPerSec::gbps(1)),
            // S1: 25 µs one way (100 µs RTT through one switch).
            link_delay: Dur(Duration::from_us(25)),
            // S1: 32 KB per output port.
            switch_buffer: Buffer::Bytes(32_000),
            // Drop-tail.
            switch_queue: QueueConfig::DropTail,
            // Static per-port buffers.
            shared_buffer: None,
            // One FIFO queue per port.
            priority_classes: 1,
            // Strict priority between classes.
            class_weights: None,
            // The whole port's occupancy.
            queue_scope: QueueScope::Port,
            // Unlimited: a host's socket buffer backs its NIC queue.
            host_buffer: Buffer::Unlimited,
            // No loss, no processing delay, exact clocks.
            link_loss: 0.0,
            lossy_links: Vec::new(),
            switch_delay: Dur::default(),
            switch_delay_jitter: Dur::default(),
            clock_tolerance_ppm: 0.0,
            // Star: no hosts beyond the senders and the receiver.
            extra_hosts: 0,
        }
    }
}

impl Default for DumbbellConfig {
    fn default() -> Self {
        let l = LinkDefaults::default();
        DumbbellConfig {
            link_rate: l.link_rate,
            link_delay: l.link_delay,
            switch_buffer: l.switch_buffer,
            switch_queue: l.switch_queue,
            shared_buffer: l.shared_buffer,
            priority_classes: l.priority_classes,
            class_weights: l.class_weights,
            queue_scope: l.queue_scope,
            host_buffer: l.host_buffer,
            link_loss: l.link_loss,
            lossy_links: l.lossy_links,
            switch_delay: l.switch_delay,
            switch_delay_jitter: l.switch_delay_jitter,
            clock_tolerance_ppm: l.clock_tolerance_ppm,
            // One receiver.
            receivers: 1,
            // The bottleneck is `link_rate` / `link_delay` once resolved (Config::resolved).
            bottleneck_rate: None,
            bottleneck_delay: None,
        }
    }
}

// `fat_tree`, `tree` and `custom` have required keys (`k`, `racks`, `hosts`, ...), so serde
// cannot fill them from a struct's `Default`: their link defaults come one by one from
// [`LinkDefaults::default`].
fn default_link_rate() -> Rate {
    LinkDefaults::default().link_rate
}
fn default_link_delay() -> Dur {
    LinkDefaults::default().link_delay
}
fn default_switch_buffer() -> Buffer {
    LinkDefaults::default().switch_buffer
}
fn default_host_buffer() -> Buffer {
    LinkDefaults::default().host_buffer
}

impl TopologyConfig {
    /// The topology `kind` as configs spell it (`star`, `fat_tree`, ...).
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
            TopologyConfig::Star(l) => senders as u64 + 1 + l.extra_hosts as u64,
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

    /// How switches pick among equal-cost next hops (ECMP for topologies without the key).
    pub fn routing(&self) -> RoutingConfig {
        match self {
            TopologyConfig::FatTree(f) => f.routing,
            TopologyConfig::Custom(c) => c.routing,
            _ => RoutingConfig::Ecmp,
        }
    }
    /// The switch ports' queue discipline (`topology.switch_queue`), whatever the kind.
    pub fn switch_queue(&self) -> &QueueConfig {
        match self {
            TopologyConfig::Star(l) => &l.switch_queue,
            TopologyConfig::Dumbbell(d) => &d.switch_queue,
            TopologyConfig::FatTree(d) => &d.switch_queue,
            TopologyConfig::Tree(d) => &d.switch_queue,
            TopologyConfig::Custom(d) => &d.switch_queue,
        }
    }

    /// [`TopologyConfig::switch_queue`], to change (the loader completes an extension's
    /// parameters in place).
    pub fn switch_queue_mut(&mut self) -> &mut QueueConfig {
        match self {
            TopologyConfig::Star(l) => &mut l.switch_queue,
            TopologyConfig::Dumbbell(d) => &mut d.switch_queue,
            TopologyConfig::FatTree(d) => &mut d.switch_queue,
            TopologyConfig::Tree(d) => &mut d.switch_queue,
            TopologyConfig::Custom(d) => &mut d.switch_queue,
        }
    }

    /// The link and buffer parameters, whatever the kind.
    pub fn links(&self) -> LinkDefaults {
        match self {
            TopologyConfig::Star(l) => l.clone(),
            TopologyConfig::FatTree(d) => LinkDefaults {
                link_rate: d.link_rate,
                link_delay: d.link_delay,
                switch_buffer: d.switch_buffer,
                switch_queue: d.switch_queue.clone(),
                shared_buffer: d.shared_buffer.clone(),
                priority_classes: d.priority_classes,
                class_weights: d.class_weights.clone(),
                queue_scope: d.queue_scope,
                host_buffer: d.host_buffer,
                link_loss: d.link_loss,
                lossy_links: d.lossy_links.clone(),
                switch_delay: d.switch_delay,
                switch_delay_jitter: d.switch_delay_jitter,
                clock_tolerance_ppm: d.clock_tolerance_ppm,
                extra_hosts: 0,
            },
            TopologyConfig::Custom(d) => LinkDefaults {
                link_rate: d.link_rate,
                link_delay: d.link_delay,
                switch_buffer: d.switch_buffer,
                switch_queue: d.switch_queue.clone(),
                shared_buffer: d.shared_buffer.clone(),
                priority_classes: d.priority_classes,
                class_weights: d.class_weights.clone(),
                queue_scope: d.queue_scope,
                host_buffer: d.host_buffer,
                link_loss: d.link_loss,
                lossy_links: d.lossy_links.clone(),
                switch_delay: d.switch_delay,
                switch_delay_jitter: d.switch_delay_jitter,
                clock_tolerance_ppm: d.clock_tolerance_ppm,
                extra_hosts: 0,
            },
            TopologyConfig::Tree(d) => LinkDefaults {
                link_rate: d.link_rate,
                link_delay: d.link_delay,
                switch_buffer: d.switch_buffer,
                switch_queue: d.switch_queue.clone(),
                shared_buffer: d.shared_buffer.clone(),
                priority_classes: d.priority_classes,
                class_weights: d.class_weights.clone(),
                queue_scope: d.queue_scope,
                host_buffer: d.host_buffer,
                link_loss: d.link_loss,
                lossy_links: d.lossy_links.clone(),
                switch_delay: d.switch_delay,
                switch_delay_jitter: d.switch_delay_jitter,
                clock_tolerance_ppm: d.clock_tolerance_ppm,
                extra_hosts: 0,
            },
            TopologyConfig::Dumbbell(d) => LinkDefaults {
                link_rate: d.link_rate,
                link_delay: d.link_delay,
                switch_buffer: d.switch_buffer,
                switch_queue: d.switch_queue.clone(),
                shared_buffer: d.shared_buffer.clone(),
                priority_classes: d.priority_classes,
                class_weights: d.class_weights.clone(),
                queue_scope: d.queue_scope,
                host_buffer: d.host_buffer,
                link_loss: d.link_loss,
                lossy_links: d.lossy_links.clone(),
                switch_delay: d.switch_delay,
                switch_delay_jitter: d.switch_delay_jitter,
                clock_tolerance_ppm: d.clock_tolerance_ppm,
                extra_hosts: 0,
            },
        }
    }
}

/// `topology.queue_scope`: what occupancy a switch port's queue discipline sees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueueScope {
    /// The whole port's bytes and packets.
    #[default]
    Port,
    /// The arriving packet's class queue (waiting for the transmitter).
    Class,
}

impl QueueScope {
    /// The default (not printed in resolved configs).
    pub fn is_port(&self) -> bool {
        *self == QueueScope::Port
    }
}
