//! The scenario configuration: YAML in human units → a checked [`Config`].
//!
//! Loading goes YAML → generic tree → `--set` overrides → typed structs (unknown keys refused,
//! errors name the key path) → [`Config::validate`] (the checks that need only config values).
//! Checks that need the topology built or the traffic drawn live with the builders
//! (`incastsim_scenario::check_buildable`). Defaults are the incast literature's (benchmark S1),
//! and [`Config::resolved`] fills every default in so the printed config says exactly what ran.

use crate::defaults::default_seed;
use crate::scheme::SchemeConfig;
use crate::tcp::TcpConfig;
use crate::topology::TopologyConfig;
use crate::traffic::TrafficConfig;
use crate::units::Dur;
use crate::workload::{
    BackgroundConfig, MetricsConfig, PcapConfig, TimeSeriesConfig, WorkloadConfig,
};
use incastsim_core::Duration;
use incastsim_tcp::BuiltinController;
use serde::{Deserialize, Serialize};

/// Where a `tcp` section sits: the top level (`None`) or `flow_overrides[i]` (`Some(i)`). It
/// displays as the section's key (`tcp`, `flow_overrides[2].tcp`), which errors name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpSectionKey(pub Option<usize>);

impl TcpSectionKey {
    /// The top-level `tcp` section.
    pub const TOP: TcpSectionKey = TcpSectionKey(None);

    /// The key of `name` inside the section (`tcp.rack`, `flow_overrides[0].tcp.rack`).
    pub fn key(&self, name: &str) -> String {
        format!("{self}.{name}")
    }

    /// The section's TCP profile index in a plan: 0 for the top level, i + 1 for group i.
    pub fn profile_index(&self) -> usize {
        self.0.map_or(0, |i| i + 1)
    }
}

impl std::fmt::Display for TcpSectionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            None => f.write_str("tcp"),
            Some(i) => write!(f, "flow_overrides[{i}].tcp"),
        }
    }
}

/// A scenario: the whole YAML file. Load it with [`Config::load`] or [`Config::from_yaml`]; a
/// loaded config is complete (every default filled in) and passed the config-only checks.
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
    /// The network: `star`, `dumbbell`, `fat_tree`, `tree` or `custom`, with links and buffers.
    pub topology: TopologyConfig,
    /// TCP settings of every flow (`flow_overrides` change them for some).
    #[serde(default)]
    pub tcp: TcpConfig,
    /// What the senders do: synchronized reads (incast), bulk transfer, or only `traffic:`.
    pub workload: WorkloadConfig,
    /// TCP settings that differ for some flows (e.g. SACK on some, CUBIC on others).
    #[serde(default)]
    pub flow_overrides: Vec<FlowOverride>,
    /// Background traffic sharing the network with the workload.
    #[serde(default)]
    pub background: Vec<BackgroundConfig>,
    /// More TCP traffic in the same run: long-lived, Poisson at a target load, staggered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub traffic: Vec<TrafficConfig>,
    /// Flow-metric settings: FCT size groups, the flows Jain's index is computed over.
    #[serde(default)]
    pub metrics: MetricsConfig,
    /// Opt-in sampled time series (off by default, and free when off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_series: Option<TimeSeriesConfig>,
    /// Opt-in packet traces (pcap files; off by default, and free when off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcap: Option<PcapConfig>,
    /// The incast mitigation scheme (`none` by default).
    #[serde(default)]
    pub scheme: SchemeConfig,
    /// Limits of the run (simulated time, events, wall time) and the order of simultaneous events.
    #[serde(default)]
    pub run: RunConfig,
    /// Measurements registered by a downstream crate, by name with their parameters
    /// (`probes: [{name: mean_qdelay}]`; `incastsim_scenario::probe`). They observe: the
    /// built-in columns are the same with or without them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub probes: Vec<crate::extension::ExtensionChoice>,
    /// Priority Flow Control on every link for the lossless priorities (off when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pfc: Option<crate::pfc::PfcConfig>,
}

/// TCP settings for some flows. In the YAML, `tcp` may give any subset of the `tcp` keys; the
/// rest is inherited from the top-level `tcp` (the resolved config shows them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowOverride {
    /// Flow indices (flow i is sender i), 0-based.
    pub flows: Vec<u32>,
    /// The TCP keys that differ for these flows.
    pub tcp: TcpConfig,
}

// `Config` has required keys (`senders`, `topology`, `workload`), so serde cannot fill `name`
// and `seed` from a `Default`.
fn default_name() -> String {
    "unnamed".into()
}

/// Limits of a run and the order of simultaneous events (`run:`); absent keys take
/// [`RunConfig::default`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    /// A run that has not finished by this simulated time stops and is reported incomplete.
    pub max_sim_time: Dur,
    /// A run that has processed this many events stops and is reported incomplete (null: no
    /// limit). Deterministic, unlike `max_wall_time`. Both are printed in resolved configs only
    /// when set, so the resolved configs of earlier results stay byte for byte the same.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_events: Option<u64>,
    /// A run still going after this much wall-clock time stops and is reported incomplete (null:
    /// no limit). Where it stops depends on the machine: use it as a safety net, not to size runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_wall_time: Option<Dur>,
    /// The order of events that fall on the same picosecond (shown only when not `fifo`).
    #[serde(skip_serializing_if = "TieOrderConfig::is_fifo")]
    pub tie_order: TieOrderConfig,
}

/// The order of simultaneous events (two packets reaching a port in the same picosecond).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TieOrderConfig {
    /// First scheduled, first run (deterministic; the same sender wins every exact tie).
    #[default]
    Fifo,
    /// A seeded random order among events scheduled ahead for the same picosecond (still
    /// bit-reproducible for a given seed; `Stream::TieOrder`).
    Random,
}

impl TieOrderConfig {
    /// Whether the order is `fifo` (the default).
    pub fn is_fifo(&self) -> bool {
        *self == TieOrderConfig::Fifo
    }
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            // One simulated hour: a safety net, not a run length.
            max_sim_time: Dur(Duration::from_secs(3600)),
            // No event or wall-clock limit.
            max_events: None,
            max_wall_time: None,
            // First scheduled, first run.
            tie_order: TieOrderConfig::Fifo,
        }
    }
}

impl Config {
    /// Keys the resolved YAML leaves out while they hold their default (so that configs from
    /// before they existed resolve to the same bytes), as `key: value  # meaning` lines for
    /// `incastsim check` to print.
    pub fn unprinted_defaults(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.run.tie_order.is_fifo() {
            out.push(
                "run.tie_order: fifo  # or random: seeded order of same-picosecond events".into(),
            );
        }
        if self.topology.links().shared_buffer.is_none() {
            out.push(
                "topology.shared_buffer: none  # static per-port buffers (switch_buffer); or {size, alpha, reserved_per_queue, switches}"
                    .into(),
            );
        }
        if let TopologyConfig::Custom(c) = &self.topology
            && c.routing.is_ecmp()
        {
            out.push("topology.routing: ecmp  # or static, packet_spray".into());
        }
        out
    }

    /// Every `tcp` section with its key: the top-level one first, then each `flow_overrides`
    /// group's, in order. The one walk over them: checks, extension look-ups and TCP profiles
    /// all take it, so a section can never be left out of one of them.
    pub fn tcp_sections(&self) -> impl Iterator<Item = (TcpSectionKey, &TcpConfig)> {
        std::iter::once((TcpSectionKey::TOP, &self.tcp)).chain(
            self.flow_overrides
                .iter()
                .enumerate()
                .map(|(i, g)| (TcpSectionKey(Some(i)), &g.tcp)),
        )
    }

    /// Whether some section's RoCE data packets carry an INT header (switch ports then decide
    /// each departure at dequeue, where they stamp it).
    pub fn int_telemetry_on(&self) -> bool {
        self.tcp_sections().any(|(_, t)| match &t.transport {
            crate::transport::TransportConfig::Roce(r) => r.int_on(),
            crate::transport::TransportConfig::Tcp => false,
        })
    }

    /// Whether some section's flows run over RoCE (`tcp.transport: roce`).
    pub fn roce_on(&self) -> bool {
        self.tcp_sections()
            .any(|(_, t)| matches!(t.transport, crate::transport::TransportConfig::Roce(_)))
    }

    /// [`Config::tcp_sections`], mutable.
    pub fn tcp_sections_mut(&mut self) -> impl Iterator<Item = (TcpSectionKey, &mut TcpConfig)> {
        std::iter::once((TcpSectionKey::TOP, &mut self.tcp)).chain(
            self.flow_overrides
                .iter_mut()
                .enumerate()
                .map(|(i, g)| (TcpSectionKey(Some(i)), &mut g.tcp)),
        )
    }

    /// Fills in defaults that depend on other keys, so the config says exactly what runs.
    pub fn resolved(mut self) -> Config {
        for (_, t) in self.tcp_sections_mut() {
            if t.congestion_control.is(BuiltinController::Dctcp) {
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

    /// The config as YAML with every default filled in (config.resolved.yaml): running it again
    /// reproduces the results.
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
}
