//! The `traffic:` section: generators of traffic beyond the main workload (long-lived flows,
//! Poisson arrivals at a target load, staggered fixed-duration flows, a random permutation of
//! fixed-size flows), or a generator registered by a downstream crate, chosen by the same
//! `kind` key (`{kind: incast_bursts, period: 1ms}`). Generation is done by the scenario crate.

use crate::choice::{ExtensionChoice, tagged_builtins};
pub use crate::collective::{CollectiveAlgorithm, ControlLatencyConfig, RankPlacement};
use crate::defaults::default_one;
use crate::units::{Bytes, Dur};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

tagged_builtins! {
    /// One traffic generator (`traffic:` list entry).
    ///
    /// A `kind` that is not built in names a registered extension: the entry is kept as an
    /// [`TrafficConfig::Extension`] (its other keys are the extension's parameters) and checked by
    /// the loader's catalog ([`crate::extension`]).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(tag = "kind", deny_unknown_fields)]
    pub enum TrafficConfig, names BUILTIN_KINDS, name_fn kind {
        /// `count` flows from each host in `from` to `to`, always having data, from `start` until
        /// `stop` (default: the end of the run).
        LongLived = "long_lived" {
            /// The hosts that send.
            from: HostList,
            /// The one host they send to.
            to: String,
            /// Flows per sending host.
            #[serde(default = "default_one")]
            count: u32,
            /// When the flows start.
            #[serde(default)]
            start: Dur,
            /// When they stop (default: the end of the run).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            stop: Option<Dur>,
        },
        /// Flows arriving as a Poisson process so that the expected application bytes offered per
        /// second are `load` × the capacity of the reference links: `load_link` (a port name such
        /// as "switch0->host16") if given, else the links into the destination hosts. Each arrival
        /// picks a source uniformly from `sources` and a different destination uniformly from
        /// `destinations`, and a size from `sizes`. Arrivals in [start, stop).
        Poisson = "poisson" {
            /// Offered load as a fraction of the reference links' capacity.
            load: f64,
            /// Flow sizes.
            sizes: SizeDistConfig,
            /// Hosts an arrival may come from.
            #[serde(default)]
            sources: HostList,
            /// Hosts an arrival may go to.
            #[serde(default)]
            destinations: HostList,
            /// The port whose capacity `load` refers to (`switch0->host16`).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            load_link: Option<String>,
            /// When arrivals begin.
            #[serde(default)]
            start: Dur,
            /// Default: the workload's `duration` (bulk or traffic workloads).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            stop: Option<Dur>,
        },
        /// Flow i (from the i-th host of `from`) starts at start + i·interval and sends for
        /// `duration` (one value for all, or one per flow: TCPRand's convergence test uses
        /// 270, 210, 150, 90 and 30 s at 30 s intervals).
        Staggered = "staggered" {
            /// The hosts that send, one flow each, in order.
            from: HostList,
            /// The one host they send to.
            to: String,
            /// When flow 0 starts.
            #[serde(default)]
            start: Dur,
            /// Time between flow starts.
            interval: Dur,
            /// How long each flow sends.
            duration: DurList,
        },
        /// Incast events arriving as a Poisson process: at each, `fan_in` distinct hosts from
        /// `sources` each send `size` bytes to one host drawn from `destinations` (not among
        /// them), all at the event's time (+ U[0, start_jitter] each). Events arrive so that the
        /// expected bytes offered per second are `load` × the capacity of the reference links
        /// (`load_link`, else the links into the destinations), as the HPCC authors' incast
        /// background: groups of 60 senders × 500 KB at 2 % of capacity (HPCC#36).
        Incast = "incast" {
            /// Offered load as a fraction of the reference links' capacity.
            load: f64,
            /// Senders per event.
            fan_in: u32,
            /// Bytes each sender sends.
            size: Bytes,
            /// Hosts the senders are drawn from.
            #[serde(default)]
            sources: HostList,
            /// Hosts the receiver is drawn from.
            #[serde(default)]
            destinations: HostList,
            /// The port whose capacity `load` refers to (`switch0->host16`).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            load_link: Option<String>,
            /// When events begin.
            #[serde(default)]
            start: Dur,
            /// Default: the workload's `duration` (bulk or traffic workloads).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            stop: Option<Dur>,
            /// Each sender starts after an extra U[0, start_jitter].
            #[serde(default)]
            start_jitter: Dur,
        },
        /// `flows` flows of `size` bytes between random host pairs, each host sending at most one
        /// and receiving at most one (a random partial permutation): distinct sources drawn from
        /// `sources`, distinct destinations from `destinations`, never a flow to itself, every
        /// such set of pairs equally likely. Flow i starts at start + U[0, start_jitter].
        Permutation = "permutation" {
            /// Number of flows (pairs).
            flows: u32,
            /// Bytes per flow.
            size: Bytes,
            /// Hosts the sources are drawn from.
            #[serde(default)]
            sources: HostList,
            /// Hosts the destinations are drawn from.
            #[serde(default)]
            destinations: HostList,
            /// Earliest start.
            #[serde(default)]
            start: Dur,
            /// Each flow starts after an extra U[0, start_jitter].
            #[serde(default)]
            start_jitter: Dur,
        },
        /// A collective operation of one job (an ML training job's all-reduce, all-to-all,
        /// parameter-server exchange): its ranks mapped onto `hosts`, each transfer a flow that
        /// starts when the flows it needs have finished (`iterations` times, `compute` apart).
        Collective = "collective" {
            /// The algorithm.
            algorithm: CollectiveAlgorithm,
            /// The message size S per rank, as NCCL's tests define it for the algorithm.
            size: Bytes,
            /// The job's hosts (default: every host).
            #[serde(default)]
            hosts: HostList,
            /// Ranks (default: every host of `hosts`).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            ranks: Option<u32>,
            /// How ranks map to hosts.
            #[serde(default)]
            placement: RankPlacement,
            /// Pieces each transfer is cut into and pipelined (NCCL's chunks).
            #[serde(default = "default_one")]
            chunks: u32,
            /// Times the collective runs.
            #[serde(default = "default_one")]
            iterations: u32,
            /// Compute time at each rank before each iteration.
            #[serde(default)]
            compute: Dur,
            /// When the job starts.
            #[serde(default)]
            start: Dur,
            /// Parameter servers (`parameter_server` only; ranks 0..servers).
            #[serde(default = "default_one")]
            servers: u32,
            /// How the news of a finished flow reaches the next sender's host.
            #[serde(default)]
            control_latency: ControlLatencyConfig,
        },
        /// A trace in GOAL, the schedule format of LogGOPSim and schedgen (ATLAHS's traces):
        /// each rank's sends, receives and computation with their dependencies, its ranks
        /// mapped onto `hosts`.
        Goal = "goal" {
            /// The trace file (relative to the working directory).
            file: String,
            /// The job's hosts (default: every host).
            #[serde(default)]
            hosts: HostList,
            /// How ranks map to hosts.
            #[serde(default)]
            placement: RankPlacement,
            /// The duration of one unit of a `calc` (GOAL's costs are in nanoseconds).
            #[serde(default = "default_calc_unit")]
            calc_unit: Dur,
            /// When the trace starts.
            #[serde(default)]
            start: Dur,
            /// How the news of a finished flow reaches the next sender's host.
            #[serde(default)]
            control_latency: ControlLatencyConfig,
        },
    }
}

/// GOAL's unit of computation: a nanosecond (LogGOPSim's times are in ns).
fn default_calc_unit() -> Dur {
    Dur(incastsim_core::Duration::from_ns(1))
}

impl<'de> Deserialize<'de> for TrafficConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut value = serde_json::Value::deserialize(d)?;
        // `name:` selects the generator as at every other extension point; `kind:`, the older
        // spelling, is still accepted (and is what the resolved config prints for built-ins).
        if let serde_json::Value::Object(m) = &mut value
            && let Some(name) = m.remove("name")
        {
            if let Some(kind) = m.get("kind") {
                return Err(serde::de::Error::custom(format!(
                    "both kind ({kind}) and name ({name}): write one of them (name: <generator>)"
                )));
            }
            m.insert("kind".into(), name);
        }
        let extension = match value.get("kind") {
            Some(serde_json::Value::String(kind)) if !BUILTIN_KINDS.contains(&kind.as_str()) => {
                Some(kind.clone())
            }
            _ => None,
        };
        match (extension, value) {
            (Some(name), serde_json::Value::Object(mut params)) => {
                params.remove("kind");
                Ok(TrafficConfig::Extension(ExtensionChoice { name, params }))
            }
            // Built-ins (and entries without a `kind`) as the derived deserializer reads them.
            (_, value) => TrafficConfig::deserialize(value).map_err(serde::de::Error::custom),
        }
    }
}

impl Serialize for TrafficConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            TrafficConfig::Extension(e) => {
                // A registered generator prints as every registered component: `name:`.
                let mut map = serde_json::Map::new();
                map.insert("name".into(), e.name.clone().into());
                map.extend(e.params.clone());
                map.serialize(s)
            }
            builtin => TrafficConfig::serialize(builtin, s),
        }
    }
}

/// One duration, or a list of them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "OneOrManyDur")]
pub struct DurList(pub Vec<Dur>);

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrManyDur {
    One(Dur),
    Many(Vec<Dur>),
}

impl From<OneOrManyDur> for DurList {
    fn from(v: OneOrManyDur) -> DurList {
        match v {
            OneOrManyDur::One(d) => DurList(vec![d]),
            OneOrManyDur::Many(v) => DurList(v),
        }
    }
}

/// Flow sizes of a Poisson generator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeDistConfig {
    /// Every flow the same size.
    Fixed {
        /// The size.
        size: Bytes,
    },
    /// Uniform integer bytes in [min, max].
    Uniform {
        /// Smallest size.
        min: Bytes,
        /// Largest size.
        max: Bytes,
    },
    /// An empirical CDF: a shipped one by name (`websearch`, `datamining`, `hadoop`) or a file
    /// path (relative to the working directory) in the format of `configs/workloads/*.cdf`.
    Cdf {
        /// `websearch`, `datamining`, `hadoop`, or a file path.
        file: String,
    },
}

/// Hosts named in a config: one string or a list. Each entry is `all`, `senders`, `receiver`,
/// `sender:I`, `sender:I-J`, `receiver:I`, `host:I` or `host:I-J` (topology host indices, as in
/// node names `hostI`). A list left out means every host: the default is `all`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "OneOrMany")]
pub struct HostList(pub Vec<String>);

impl Default for HostList {
    fn default() -> Self {
        HostList(vec!["all".into()])
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl From<OneOrMany> for HostList {
    fn from(v: OneOrMany) -> HostList {
        match v {
            OneOrMany::One(s) => HostList(vec![s]),
            OneOrMany::Many(v) => HostList(v),
        }
    }
}
