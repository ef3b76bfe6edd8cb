//! The rate controller of a RoCE section's queue pairs (`tcp.transport.congestion_control`):
//! from the config's choice to a factory that builds one `incastsim_roce::Controller` per
//! queue pair (as `plan/tcp.rs`'s `ControllerFactory` does for TCP).

use crate::config::{ConfigError, RdmaCcConfig, TransportConfig};
use crate::extend::{Extensions, PreparedRdmaController, RdmaControllerContext};
use incastsim_roce::Controller;
use std::sync::Arc;

/// The class of CNPs when `cnp_dscp` is not set: 48, the DSCP ConnectX NICs give CNPs by
/// default (NVIDIA MLNX_OFED "DCQCN" parameters: `cnp_dscp` 48, `cnp_802p_prio` 6); with
/// fewer classes it lands in the highest (class = min(DSCP, classes − 1)).
pub const DEFAULT_CNP_DSCP: u8 = 48;

/// Builds each queue pair's rate controller.
#[derive(Clone, Debug, Default)]
pub enum RdmaControllerFactory {
    /// No controller: the initial rate throughout.
    #[default]
    Fixed,
    /// A controller registered by a downstream crate.
    Extension(Arc<dyn PreparedRdmaController>),
}

impl RdmaControllerFactory {
    /// The factory of section `t` (`key`: its `tcp.` prefix, for errors).
    pub fn new(
        t: &TransportConfig,
        key: &str,
        extensions: &Extensions,
    ) -> Result<RdmaControllerFactory, ConfigError> {
        let TransportConfig::Roce(r) = t else {
            return Ok(RdmaControllerFactory::Fixed);
        };
        Ok(match &r.congestion_control {
            RdmaCcConfig::None => RdmaControllerFactory::Fixed,
            RdmaCcConfig::Extension(choice) => {
                RdmaControllerFactory::Extension(extensions.prepare_rdma_controller(
                    &format!("{key}transport.congestion_control"),
                    choice,
                )?)
            }
            _ => RdmaControllerFactory::Fixed,
        })
    }

    /// Whether the controllers need each flow's base RTT.
    pub fn needs_base_rtt(&self) -> bool {
        !matches!(self, RdmaControllerFactory::Fixed)
    }

    /// The controller of one queue pair.
    pub fn new_controller(&self, ctx: &RdmaControllerContext) -> Controller {
        match self {
            RdmaControllerFactory::Fixed => Controller::default(),
            RdmaControllerFactory::Extension(e) => e.new_controller(ctx),
        }
    }
}

/// The INT store's size when some queue pair's data packets carry an INT header: (PSN slots
/// per flow, records per packet). A slot is reused only after its ACK came back if the ring
/// holds twice the packets a QP can have in flight: its window, which HPCC keeps at most
/// one bandwidth-delay product (`line rate × base RTT`, its W_init), or the configured one.
/// Records: the most switches on a planned flow's path (at most `MAX_INT_HOPS`).
pub fn int_store_size(
    fabric: &super::fabric::Fabric,
    flows: &[super::PlannedFlow],
    profiles: &[super::tcp::TcpProfile],
    base_rtts: &[incastsim_core::Duration],
) -> Option<(u64, usize)> {
    let int_profile = |p: &super::tcp::TcpProfile| p.roce.filter(|r| r.int_telemetry);
    if !profiles.iter().any(|p| int_profile(p).is_some()) {
        return None;
    }
    let mut packets = 0u64;
    let mut hops = 1usize;
    for (i, f) in flows.iter().enumerate() {
        let Some(r) = int_profile(&profiles[f.profile as usize]) else {
            continue;
        };
        let rate = fabric.ports[fabric.host_port[f.src as usize] as usize]
            .serialization()
            .rate();
        let rtt = base_rtts.get(i).copied().unwrap_or_default();
        let bdp_bytes = (rate.as_f64() / 8.0 * rtt.as_secs_f64()).ceil() as u64;
        let window = bdp_bytes.max(r.window_bytes.unwrap_or(0));
        packets = packets.max(window.div_ceil(u64::from(r.mtu.max(1))));
        hops = hops.max(fabric.path(f.src, f.dst).len().saturating_sub(1));
    }
    Some((2 * packets + 64, hops.min(incastsim_core::MAX_INT_HOPS)))
}
