//! TCP profiles: one per override group (the top-level `tcp`, then each `flow_overrides[i]`),
//! converted once from config into the protocol crates' settings. A profile builds a fresh
//! controller per connection, as quinn's `ControllerFactory` does.

use crate::config::ConfigError;
use crate::config::{
    CongestionControlName, CwndReduction, CwndUnit, LossRecovery, RecoveryExitName,
    RttSamplingName, TcpConfig,
};
use crate::extend::{ControllerContext, Extensions, PreparedController};
use crate::plan::traffic::IdealTcp;
use incastsim_core::Duration;
use incastsim_tcp::{
    BuiltinController, Cc, ControllerParams, DelayedAckConfig, EcnFeedback, ReceiverConfig,
    RecoveryExit, RtoConfig, RttSampling, SenderConfig,
};
use std::sync::Arc;

/// The congestion controller a profile builds, with its parameters.
#[derive(Clone, Debug)]
pub enum ControllerFactory {
    /// A built-in (`incastsim_tcp::BuiltinController`) with the `tcp` section's parameters.
    Builtin(BuiltinController, ControllerParams),
    /// A controller registered by a downstream crate, its parameters read.
    Extension(Arc<dyn PreparedController>),
}

impl ControllerFactory {
    /// The controller of one connection (`ctx`: its flow, segment size and random stream).
    pub fn new_controller(&self, ctx: &ControllerContext) -> Cc {
        match self {
            ControllerFactory::Builtin(b, params) => b.new_controller(params),
            ControllerFactory::Extension(e) => e.new_controller(ctx),
        }
    }
}

/// Everything a connection of one override group needs, in the protocol crates' types.
#[derive(Clone, Debug)]
pub struct TcpProfile {
    /// The sender's parameters (MSS, RTO bounds, loss recovery, ...).
    pub sender: SenderConfig,
    /// The receiver's parameters (window, delayed ACK).
    pub receiver: ReceiverConfig,
    /// Makes each flow's congestion controller.
    pub controller: ControllerFactory,
    /// `tcp.cwnd_unit: packets`.
    pub packet_cwnd: bool,
    /// Header bytes on the wire (a scheme may compress them: DSR).
    pub wire_header_bytes: u16,
    /// The DSCP of the profile's packets (traffic class).
    pub dscp: u8,
    /// ns-2's `overhead_`: each segment leaves after an extra U[0, send_overhead].
    pub send_overhead: Duration,
    /// The settings the closed-form ideal FCT and base RTT use (the config's header).
    pub ideal: IdealTcp,
    /// `transport: roce`: the flows are RoCEv2 queue pairs with this configuration (the TCP
    /// parts above are then unused).
    pub roce: Option<incastsim_roce::RoceConfig>,
    /// `transport: roce`: builds each queue pair's rate controller.
    pub rdma_controller: super::rdma_cc::RdmaControllerFactory,
    /// `transport: roce`: the class of the receivers' CNPs.
    pub cnp_dscp: u8,
}

impl TcpProfile {
    /// `scheme_header`: the header size a scheme imposes, if any; `key`: where `t` is
    /// (`tcp`, `flow_overrides[0].tcp`), for errors; `extensions`: the registered controllers.
    pub fn new(
        t: &TcpConfig,
        scheme_header: Option<u64>,
        key: &str,
        extensions: &Extensions,
    ) -> Result<TcpProfile, ConfigError> {
        let roce = roce_config(&t.transport);
        Ok(TcpProfile {
            roce,
            rdma_controller: super::rdma_cc::RdmaControllerFactory::new(
                &t.transport,
                &format!("{key}."),
                extensions,
            )?,
            cnp_dscp: match &t.transport {
                crate::config::TransportConfig::Roce(r) => {
                    r.cnp_dscp.unwrap_or(super::rdma_cc::DEFAULT_CNP_DSCP)
                }
                crate::config::TransportConfig::Tcp => 0,
            },
            sender: sender_config(t),
            receiver: receiver_config(t),
            controller: controller(t, key, extensions)?,
            packet_cwnd: t.cwnd_unit == CwndUnit::Packets,
            wire_header_bytes: match &roce {
                Some(r) => r.header_bytes,
                None => scheme_header.unwrap_or(t.header.0) as u16,
            },
            dscp: t.dscp,
            send_overhead: t.send_overhead.0,
            ideal: match &roce {
                // A queue pair sends at line rate from the start: no window limits it alone.
                Some(r) => IdealTcp {
                    mss: u64::from(r.mtu),
                    header: u64::from(r.header_bytes),
                    initial_cwnd_segments: u64::from(u32::MAX),
                    receive_window_segments: u64::from(u32::MAX),
                },
                None => IdealTcp {
                    mss: t.mss.0,
                    header: t.header.0,
                    initial_cwnd_segments: t.initial_cwnd as u64,
                    receive_window_segments: t.receive_window_segments as u64,
                },
            },
        })
    }
}

/// A `tcp.transport: roce` section's queue-pair configuration: the keys it sets over
/// `incastsim_roce`'s defaults (IRN: its preset's timers).
fn roce_config(t: &crate::config::TransportConfig) -> Option<incastsim_roce::RoceConfig> {
    use crate::config::{RoceRecovery, TransportConfig};
    use incastsim_roce::{RoceConfig, RtoConfig};
    let TransportConfig::Roce(r) = t else {
        return None;
    };
    let mut c = match r.recovery {
        RoceRecovery::GoBackN => RoceConfig::default(),
        RoceRecovery::Irn => RoceConfig::irn(),
    };
    if let Some(mtu) = r.mtu {
        c.mtu = mtu.0 as u32;
    }
    if let Some(h) = r.header {
        // An ACK is the data header plus the 4-byte AETH (IBTA vol. 1 §9.3).
        c.header_bytes = h.0 as u16;
        c.ack_bytes = h.0 as u16 + 4;
    }
    if let Some(n) = r.ack_every {
        c.ack_every = n;
    }
    c.ack_timeout = r.ack_timeout.map(|d| d.0);
    c.rto = match (r.recovery, c.rto) {
        (RoceRecovery::GoBackN, rto) => r.rto.map_or(rto, |d| RtoConfig::Fixed(d.0)),
        (
            RoceRecovery::Irn,
            RtoConfig::Irn {
                low,
                high,
                low_below_packets,
            },
        ) => RtoConfig::Irn {
            low: r.rto.map_or(low, |d| d.0),
            high: r.rto_high.map_or(high, |d| d.0),
            low_below_packets: r.rto_low_below.unwrap_or(low_below_packets),
        },
        (RoceRecovery::Irn, rto) => rto,
    };
    c.window_bytes = r.window.map(|b| b.0);
    c.bdp_cap_packets = r.bdp_cap_packets;
    c.nack_reissue = r.nack_reissue.map(|d| d.0);
    c.initial_rate = r.initial_rate.map(|r| r.0);
    if r.int_on() {
        // HPCC's INT header rides on every data packet and is echoed in its ACK.
        let int = r.int_header_bytes() as u16;
        c.int_telemetry = true;
        c.header_bytes += int;
        c.ack_bytes += int;
    }
    if let crate::config::RdmaCcConfig::Dcqcn {
        cnp_interval,
        preset,
        ..
    } = &r.congestion_control
    {
        // The paper's notification point sends CNPs (at most one per N = 50 µs); the fork's
        // CNP is a flag on the ACK instead, unless `cnp_interval` asks for both.
        c.cnp_interval = match (preset, cnp_interval) {
            (_, Some(d)) => Some(d.0),
            (crate::config::CcPreset::Paper, None) => Some(incastsim_roce::DCQCN_CNP_INTERVAL),
            (crate::config::CcPreset::HpccFork, None) => None,
        };
    }
    Some(c)
}

fn sender_config(t: &TcpConfig) -> SenderConfig {
    SenderConfig {
        smss: t.mss.0 as u32,
        initial_cwnd_segments: t.initial_cwnd,
        dupack_threshold: t.dupack_threshold,
        limited_transmit: t.limited_transmit,
        rto: RtoConfig {
            min: t.rto_min.0,
            max: t.rto_max.0,
            initial: t.rto_initial.map_or(t.rto_min.0, |d| d.0),
            granularity: t.clock_granularity.0,
        },
        rtt_sampling: match t.rtt_sampling {
            RttSamplingName::Timestamps => RttSampling::Timestamps,
            RttSamplingName::OncePerRtt => RttSampling::OncePerRtt,
        },
        recovery_exit: match t.recovery_exit_cwnd {
            RecoveryExitName::Ssthresh => RecoveryExit::Ssthresh,
            RecoveryExitName::MinFlight => RecoveryExit::MinFlight,
        },
        slow_start_after_idle: t.slow_start_after_idle,
        ecn: t.ecn,
        sack: t.loss_recovery == LossRecovery::Sack,
        rack: t.rack,
        tlp: t.tlp,
        prr: t.cwnd_reduction == CwndReduction::Prr,
    }
}

fn receiver_config(t: &TcpConfig) -> ReceiverConfig {
    ReceiverConfig {
        window_bytes: (t.receive_window_segments as u64 * t.mss.0) as u32,
        delayed_ack: t.delayed_ack.enabled.then_some(DelayedAckConfig {
            count: t.delayed_ack.count,
            timeout: t.delayed_ack.timeout.0,
        }),
        ecn: match (&t.congestion_control, t.ecn) {
            (c, _) if c.is(BuiltinController::Dctcp) => EcnFeedback::Dctcp,
            (_, true) => EcnFeedback::Classic,
            (_, false) => EcnFeedback::Off,
        },
        sack: t.loss_recovery == LossRecovery::Sack,
        dsack: t.dsack,
    }
}

fn controller(
    t: &TcpConfig,
    key: &str,
    extensions: &Extensions,
) -> Result<ControllerFactory, ConfigError> {
    Ok(match &t.congestion_control {
        CongestionControlName::Extension(choice) => ControllerFactory::Extension(
            extensions.prepare_controller(&format!("{key}.congestion_control"), choice)?,
        ),
        CongestionControlName::Builtin(b) => ControllerFactory::Builtin(*b, t.controller_params()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, TcpProfileName};
    use incastsim_tcp::RenoFriendlyAlpha;

    /// Every value a profile sets reaches the sender, receiver and controller a connection is
    /// built from (the config side is tested in `incastsim_config::profiles`).
    #[test]
    fn every_profile_value_reaches_the_connection() {
        for name in ["linux", "ns3", "ns2", "rfc"] {
            let cfg = Config::from_yaml(
                "senders: 2\ntopology: {kind: star}\nworkload: {kind: synchronized_reads, sru: 64KB}\n",
                &[
                    format!("tcp.profile={name}"),
                    "tcp.congestion_control=cubic".into(),
                ],
            )
            .unwrap();
            let t = &cfg.tcp;
            let p = TcpProfile::new(t, None, "tcp", &Extensions::builtin()).unwrap();
            let (s, r) = (p.sender, p.receiver);
            assert_eq!(s.initial_cwnd_segments, t.initial_cwnd, "{name}");
            assert_eq!(s.limited_transmit, t.limited_transmit, "{name}");
            assert_eq!(s.sack, t.loss_recovery == LossRecovery::Sack, "{name}");
            assert_eq!((s.rack, s.tlp), (t.rack, t.tlp), "{name}");
            assert_eq!(s.prr, t.cwnd_reduction == CwndReduction::Prr, "{name}");
            assert_eq!(s.rto.min, t.rto_min.0, "{name}");
            assert_eq!(s.rto.max, t.rto_max.0, "{name}");
            assert_eq!(s.rto.granularity, t.clock_granularity.0, "{name}");
            assert_eq!(
                s.rtt_sampling == RttSampling::Timestamps,
                t.rtt_sampling == RttSamplingName::Timestamps
            );
            assert_eq!(r.dsack, t.dsack, "{name}");
            assert_eq!(r.sack, s.sack, "{name}");
            assert_eq!(
                r.window_bytes as u64,
                t.receive_window_segments as u64 * t.mss.0
            );
            assert_eq!(
                r.delayed_ack.map(|d| (d.count, d.timeout)),
                t.delayed_ack
                    .enabled
                    .then_some((t.delayed_ack.count, t.delayed_ack.timeout.0)),
                "{name}"
            );
            let ControllerFactory::Builtin(BuiltinController::Cubic, params) = p.controller.clone()
            else {
                panic!("cubic")
            };
            let c = params.cubic;
            let linux_alpha = matches!(
                cfg.tcp.profile,
                Some(TcpProfileName::Linux | TcpProfileName::Ns3)
            );
            assert_eq!(
                c.reno_friendly_alpha == RenoFriendlyAlpha::Linux,
                linux_alpha,
                "{name}"
            );
        }
    }
}
