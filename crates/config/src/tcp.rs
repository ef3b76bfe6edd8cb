//! The `tcp:` section (and each flow-override group's `tcp`): congestion control, loss
//! recovery, segment sizes, windows and timers.

use crate::choice::ExtensionChoice;
use crate::units::{Bytes, Dur};
use incastsim_core::Duration;
use incastsim_tcp::{BuiltinController, ControllerParams, CubicConfig, DctcpConfig};
use serde::{Deserialize, Serialize};

/// `tcp.congestion_control`: a built-in controller by name (its parameters in `tcp.cubic` /
/// `tcp.dctcp`; the names are declared once, with the controllers, in
/// `incastsim_tcp::BuiltinController`), or a controller registered by a downstream crate, with
/// its parameters beside its name (`{name: my_reno, beta: 0.8}`; see [`crate::extension`]).
#[derive(Clone, Debug, PartialEq)]
pub enum CongestionControlName {
    /// A built-in controller.
    Builtin(BuiltinController),
    /// A registered extension (checked and completed by the loader's `Catalog`).
    Extension(ExtensionChoice),
}

impl CongestionControlName {
    /// The name in outputs (a built-in's, or the extension's).
    pub fn name(&self) -> &str {
        match self {
            CongestionControlName::Builtin(b) => b.name(),
            CongestionControlName::Extension(e) => &e.name,
        }
    }

    /// Whether this is built-in `b`.
    pub fn is(&self, b: BuiltinController) -> bool {
        *self == CongestionControlName::Builtin(b)
    }
}

impl Serialize for CongestionControlName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            // Built-ins print as a plain name.
            CongestionControlName::Builtin(b) => s.serialize_str(b.name()),
            CongestionControlName::Extension(e) => e.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for CongestionControlName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let choice = ExtensionChoice::from_value(
            serde_json::Value::deserialize(d)?,
            "congestion controller",
        )
        .map_err(serde::de::Error::custom)?;
        if choice.name != "none" && crate::rdma_cc::RDMA_CC_KINDS.contains(&choice.name.as_str()) {
            return Err(serde::de::Error::custom(format!(
                "{} is an RDMA congestion controller: a RoCE queue pair's, set as \
                 tcp.transport: {{kind: roce, congestion_control: {}}}",
                choice.name, choice.name
            )));
        }
        let Some(builtin) = BuiltinController::from_name(&choice.name) else {
            return Ok(CongestionControlName::Extension(choice));
        };
        if let Some(k) = choice.params.keys().next() {
            return Err(serde::de::Error::custom(format!(
                "{}: {} takes its parameters from tcp.{} (or none: newreno), not beside its name",
                k, choice.name, choice.name
            )));
        }
        Ok(CongestionControlName::Builtin(builtin))
    }
}

/// How losses are recovered (`tcp.loss_recovery`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum LossRecovery {
    /// RFC 6582 NewReno fast recovery (no SACK).
    Newreno,
    /// RFC 2018 SACK blocks and RFC 6675 pipe-based recovery.
    Sack,
}

/// How cwnd moves during fast recovery.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CwndReduction {
    /// NewReno: RFC 6582 window inflation; SACK: cwnd = ssthresh with RFC 6675's pipe.
    #[default]
    Standard,
    /// RFC 6937 Proportional Rate Reduction (PRR-SSRB), as Linux (since 3.2) and ns-3.
    Prr,
}

/// A named set of TCP defaults (see the guide, docs/tcp-profiles.md); any key given beside it wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TcpProfileName {
    /// Linux 6.x defaults (sysctls, `include/net/tcp.h`).
    Linux,
    /// ns-3's attribute defaults.
    Ns3,
    /// ns-2.35's defaults (`ns-default.tcl`; the incast papers' simulator).
    Ns2,
    /// The RFCs' values (RTO_min 1 s, IW 4, SACK, RACK-TLP, PRR).
    Rfc,
}

/// Which ACKs give RTT samples (`tcp.rtt_sampling`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSamplingName {
    /// Every ACK of new data (RFC 7323 timestamps), except as Karn's rule forbids.
    Timestamps,
    /// One timed segment per round trip (no timestamps, as ns-2 and BSD).
    OncePerRtt,
}

/// cwnd when NewReno fast recovery ends (RFC 6582 §3.2 step 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryExitName {
    /// cwnd = ssthresh.
    Ssthresh,
    /// cwnd = min(ssthresh, FlightSize + SMSS).
    MinFlight,
}

/// Delayed ACK (`tcp.delayed_ack`, RFC 1122 4.2.3.2, RFC 5681 §4.2); absent keys take
/// [`DelayedAckConfig::default`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DelayedAckConfig {
    /// Hold back ACKs (off: ACK every segment).
    pub enabled: bool,
    /// ACK every this many full segments.
    pub count: u32,
    /// Send a held-back ACK no later than this after the first unacknowledged segment (Linux: 40 ms).
    pub timeout: Dur,
}

impl Default for DelayedAckConfig {
    fn default() -> Self {
        DelayedAckConfig {
            // Off: the incast literature's receivers ACK every segment (S1).
            enabled: false,
            // RFC 5681 §4.2: an ACK at least every second full-sized segment.
            count: 2,
            // Linux's 40 ms (TCP_DELACK_MIN).
            timeout: Dur(Duration::from_ms(40)),
        }
    }
}

/// The `tcp:` section: every TCP setting, in human units; see the guide, docs/config.md.
/// Absent keys take [`TcpConfig::default`] (incastsim's own defaults: the incast literature's
/// S1 setting, `configs/incast-classic.yaml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TcpConfig {
    /// A named set of defaults (`linux`, `ns3`, `ns2`, `rfc`) filled in under the keys given
    /// here; absent: incastsim's own defaults. Applied when the config is loaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<TcpProfileName>,
    /// `newreno`, `cubic` or `dctcp`.
    pub congestion_control: CongestionControlName,
    /// `newreno` (RFC 6582) or `sack` (RFC 2018 + RFC 6675).
    pub loss_recovery: LossRecovery,
    /// RFC 8985 RACK: time-based loss detection (with SACK) in place of the DupAck threshold,
    /// which also finds lost retransmissions.
    pub rack: bool,
    /// RFC 8985 §7 Tail Loss Probe (needs `rack`).
    pub tlp: bool,
    /// RFC 2883 D-SACK: the receiver reports duplicate segments (needs SACK); RACK widens its
    /// reordering window on them (RFC 8985 §6.2 step 4).
    pub dsack: bool,
    /// cwnd during fast recovery: `standard` or `prr` (RFC 6937).
    pub cwnd_reduction: CwndReduction,
    /// RFC 3168 ECN (always on with DCTCP).
    pub ecn: bool,
    /// CUBIC's parameters (used when `congestion_control: cubic`; RFC 9438 §5 defaults).
    pub cubic: CubicConfig,
    /// DCTCP's parameters (used when `congestion_control: dctcp`; RFC 8257 defaults).
    pub dctcp: DctcpConfig,
    /// DSCP (traffic class) of the connections' packets.
    pub dscp: u8,
    /// Maximum segment size: payload bytes per full segment.
    pub mss: Bytes,
    /// TCP/IP header bytes on every packet.
    pub header: Bytes,
    /// Initial congestion window, in segments.
    pub initial_cwnd: u32,
    /// Receiver's advertised window, in segments of `mss` bytes.
    pub receive_window_segments: u32,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681: 3).
    pub dupack_threshold: u32,
    /// RFC 3042 limited transmit.
    pub limited_transmit: bool,
    /// Lower bound of the RTO (RFC 6298 (2.4) says 1 s; the incast papers lower it to 1 ms or 200 µs).
    pub rto_min: Dur,
    /// Upper bound of the backed-off RTO (RFC 6298 (2.5)).
    pub rto_max: Dur,
    /// RTO before the first RTT sample; defaults to `rto_min` (see ARCHITECTURE.md).
    pub rto_initial: Option<Dur>,
    /// Timer/clock granularity G of RFC 6298.
    pub clock_granularity: Dur,
    /// `timestamps` (every ACK) or `once_per_rtt` (one timed segment per round trip).
    pub rtt_sampling: RttSamplingName,
    /// cwnd when NewReno recovery ends (RFC 6582 §3.2 step 3 option).
    pub recovery_exit_cwnd: RecoveryExitName,
    /// Delayed ACK on the receivers.
    pub delayed_ack: DelayedAckConfig,
    /// RFC 5681 §4.1 restart window after idle. Off: cwnd is kept across blocks.
    pub slow_start_after_idle: bool,
    /// ns-2's Agent/TCP `overhead_`: each data segment leaves the host an extra U[0, value]
    /// later, in order. Random per-packet timing breaks the phase effects that identical packet
    /// sizes and constant delays otherwise lock in (Floyd & Jacobson, 1992). 0 = off.
    pub send_overhead: Dur,
    /// What cwnd counts: `bytes` (RFC 5681 byte counting) or `packets` (segments of any size,
    /// grown per acknowledged segment: Linux without ABC, as in the TCPRand paper).
    pub cwnd_unit: CwndUnit,
    /// The transport of these flows: `tcp` (this section's TCP), or `{kind: roce, ...}`
    /// (RoCEv2 queue pairs; see [`crate::transport`]).
    #[serde(skip_serializing_if = "crate::transport::TransportConfig::is_tcp")]
    pub transport: crate::transport::TransportConfig,
}

/// What cwnd counts (`tcp.cwnd_unit`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CwndUnit {
    /// Bytes (RFC 5681 byte counting).
    #[default]
    Bytes,
    /// Segments of any size, grown per acknowledged segment (Linux without ABC).
    Packets,
}

impl TcpConfig {
    /// The built-in controllers' parameters, as `BuiltinController::new_controller` takes them.
    pub fn controller_params(&self) -> ControllerParams {
        ControllerParams {
            cubic: self.cubic,
            dctcp: self.dctcp,
        }
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            // No profile: the values below.
            profile: None,
            // NewReno (RFC 5681, RFC 6582), the incast literature's TCP (S1).
            congestion_control: CongestionControlName::Builtin(BuiltinController::NewReno),
            // RFC 6582 NewReno fast recovery, no SACK (S1).
            loss_recovery: LossRecovery::Newreno,
            // The RFC 8985 / RFC 2883 extensions are opt-in.
            rack: false,
            tlp: false,
            dsack: false,
            // RFC 6582 window inflation (NewReno) / RFC 6675 (SACK).
            cwnd_reduction: CwndReduction::Standard,
            // Off (DCTCP turns it on when the config is resolved).
            ecn: false,
            // RFC 9438's parameters.
            cubic: CubicConfig::default(),
            // RFC 8257's parameters.
            dctcp: DctcpConfig::default(),
            // Best effort.
            dscp: 0,
            // S1: 1000-byte segments.
            mss: Bytes(1000),
            // 20 B IPv4 + 20 B TCP, no options.
            header: Bytes(40),
            // S1: 2 segments, as ns-2 (the `ns2` profile).
            initial_cwnd: 2,
            // S1: 1000 segments.
            receive_window_segments: 1000,
            // RFC 5681 §3.2: 3 duplicate ACKs.
            dupack_threshold: 3,
            // RFC 3042 limited transmit on.
            limited_transmit: true,
            // S1: 200 ms, as Linux and ns-2 (RFC 6298 (2.4) says 1 s; the incast papers lower
            // it to 1 ms or 200 µs).
            rto_min: Dur(Duration::from_ms(200)),
            // RFC 6298 (2.5): at least 60 s.
            rto_max: Dur(Duration::from_secs(60)),
            // `rto_min` once resolved (Config::resolved).
            rto_initial: None,
            // G of RFC 6298: 1 µs (timer deadlines round up to it).
            clock_granularity: Dur(Duration::from_us(1)),
            // RFC 7323 timestamps: every ACK of new data is a sample.
            rtt_sampling: RttSamplingName::Timestamps,
            // RFC 6582 §3.2 step 3, first option: cwnd = ssthresh.
            recovery_exit_cwnd: RecoveryExitName::Ssthresh,
            // Off: ACK every segment (S1).
            delayed_ack: DelayedAckConfig::default(),
            // Off: cwnd is kept across blocks (S1).
            slow_start_after_idle: false,
            // 0: off.
            send_overhead: Dur(Duration::ZERO),
            // RFC 5681 byte counting.
            cwnd_unit: CwndUnit::Bytes,
            // TCP.
            transport: crate::transport::TransportConfig::Tcp,
        }
    }
}
