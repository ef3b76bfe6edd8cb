//! How each flow's TCP sender and receiver are built. The plan keeps this recipe, not the
//! connections: the engine builds a traffic generator's connection when its flow starts and
//! folds it into a summary when it has finished (`engine/transport.rs`), so a run with tens of
//! thousands of flows holds full TCP state only for those in progress.
//!
//! Building late builds the same connection: a sender's and a receiver's state is a function
//! of the run seed, the flow id, its destination and its profile alone (the scheme's and the
//! controller's random streams are per flow, `Stream::Scheme` and the controller's context),
//! never of what was built before it.

use super::TcpProfile;
use crate::config::SchemeConfig;
use crate::extend::{ControllerContext, PreparedScheme, SchemeContext};
use crate::plan::schemes::ReceiverFactory;
use incastsim_core::{BitsPerSec, FlowId, HostId};
use incastsim_schemes::{ReceiverScheme, SenderScheme};
use incastsim_tcp::{TcpReceiver, TcpSender};
use std::sync::Arc;

/// The TCP profiles of `cfg` (the top-level `tcp`, then each `flow_overrides` group) and the
/// factory of a run seeded `seed` that builds connections with them.
pub fn factory(
    cfg: &crate::Config,
    seed: u64,
    extensions: &crate::extend::Extensions,
) -> Result<(Vec<TcpProfile>, ConnectionFactory), crate::config::ConfigError> {
    let scheme_header = cfg.scheme.header_bytes();
    let profiles: Vec<TcpProfile> = cfg
        .tcp_sections()
        .map(|(key, t)| TcpProfile::new(t, scheme_header, &key.to_string(), extensions))
        .collect::<Result<_, _>>()?;
    let scheme_extension = crate::plan::schemes::prepare_extension(&cfg.scheme, extensions)?;
    let capacity_bps = cfg.topology.links().link_rate.0.as_f64();
    let mut factory = ConnectionFactory::new(
        seed,
        &cfg.scheme,
        scheme_extension,
        profiles.clone(),
        capacity_bps,
    );
    factory.rate_from = cfg
        .metrics
        .rate_from
        .map(|d| incastsim_core::Time::ZERO + d.0);
    Ok((profiles, factory))
}

/// The flows.csv columns of `cfg`'s controllers' and scheme's own values
/// ([`ConnectionFactory::value_names`]), known before any run (a sweep writes its headers
/// with them).
pub fn value_columns(
    cfg: &crate::Config,
    extensions: &crate::extend::Extensions,
) -> Result<Vec<&'static str>, crate::config::ConfigError> {
    Ok(factory(cfg, 0, extensions)?.1.value_names())
}

/// Builds flow f's sender and receiver (see the module doc).
pub struct ConnectionFactory {
    seed: u64,
    scheme: SchemeConfig,
    extension: Option<Arc<dyn PreparedScheme>>,
    receivers: ReceiverFactory,
    profiles: Vec<TcpProfile>,
    /// Per host: its link's rate (the controllers' `link_rate`).
    host_link_rate: Vec<BitsPerSec>,
    /// Per planned flow: its base RTT, for RDMA rate controllers (empty when none needs it;
    /// a flow added while the run goes takes the largest).
    flow_base_rtt: Vec<incastsim_core::Duration>,
    /// `metrics.rate_from`: each queue pair keeps its mean rate from then on.
    pub rate_from: Option<incastsim_core::Time>,
}

/// Builds nothing useful: what a plan holds once the engine has taken its factory.
impl Default for ConnectionFactory {
    fn default() -> ConnectionFactory {
        ConnectionFactory::new(0, &SchemeConfig::None, None, Vec::new(), 0.0)
    }
}

impl ConnectionFactory {
    /// The factory of a run seeded `seed` with `scheme` (`extension`: the prepared scheme when
    /// it is a registered one), the TCP `profiles` and receivers on links of `capacity_bps`.
    pub fn new(
        seed: u64,
        scheme: &SchemeConfig,
        extension: Option<Arc<dyn PreparedScheme>>,
        profiles: Vec<TcpProfile>,
        capacity_bps: f64,
    ) -> ConnectionFactory {
        ConnectionFactory {
            seed,
            scheme: scheme.clone(),
            receivers: crate::plan::schemes::receiver_factory(
                scheme,
                extension.clone(),
                capacity_bps,
            ),
            extension,
            profiles,
            host_link_rate: Vec::new(),
            flow_base_rtt: Vec::new(),
            rate_from: None,
        }
    }

    /// Profile `profile`'s RoCE queue-pair configuration, if its transport is RoCE.
    pub fn roce(&self, profile: u32) -> Option<incastsim_roce::RoceConfig> {
        self.profiles.get(profile as usize).and_then(|p| p.roce)
    }

    /// Whether some profile's RDMA controller reads its flow's base RTT.
    pub fn needs_base_rtts(&self) -> bool {
        self.profiles
            .iter()
            .any(|p| p.roce.is_some() && p.rdma_controller.needs_base_rtt())
    }

    /// Sets the planned flows' base RTTs.
    pub fn with_base_rtts(mut self, rtts: Vec<incastsim_core::Duration>) -> ConnectionFactory {
        self.flow_base_rtt = rtts;
        self
    }

    /// Flow `flow`'s queue-pair rate controller (profile `profile`, NIC at `line_rate`) and the
    /// class of its CNPs.
    pub fn roce_controller(
        &self,
        flow: u32,
        profile: u32,
        line_rate: BitsPerSec,
    ) -> (incastsim_roce::Controller, u8) {
        let p = &self.profiles[profile as usize];
        let base_rtt = self
            .flow_base_rtt
            .get(flow as usize)
            .or_else(|| self.flow_base_rtt.iter().max())
            .copied()
            .unwrap_or_default();
        let mtu = p.roce.map_or(0, |r| r.mtu);
        let ctx =
            crate::extend::RdmaControllerContext::new(self.seed, flow, line_rate, base_rtt, mtu);
        (p.rdma_controller.new_controller(&ctx), p.cnp_dscp)
    }

    /// The line rate of host `h`'s NIC (a RoCE sender paces from it).
    pub fn host_link_rate(&self, h: HostId) -> BitsPerSec {
        self.host_link_rate
            .get(h as usize)
            .copied()
            .unwrap_or(BitsPerSec(1))
    }

    /// The names of the values the connections' controllers and schemes report of their own
    /// (`TcpSender::component_values`), over every TCP profile, each once, in the order they
    /// first appear: flows.csv's columns for them (a flow whose components lack one leaves it
    /// empty).
    pub fn value_names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = Vec::new();
        for profile in 0..self.profiles.len() as u32 {
            for (name, _) in self.sender(0, 0, 1, profile).component_values() {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        if self.has_rdma_values() {
            names.extend(crate::engine::roce::RDMA_VALUE_NAMES);
        }
        names
    }

    /// Whether some RoCE profile runs a rate controller: its queue pairs then report
    /// [`crate::engine::roce::RDMA_VALUE_NAMES`] (a run without one keeps its columns).
    pub fn has_rdma_values(&self) -> bool {
        self.profiles.iter().any(|p| {
            p.roce.is_some()
                && !matches!(
                    p.rdma_controller,
                    crate::plan::rdma_cc::RdmaControllerFactory::Fixed
                )
        })
    }

    /// Each host's link rate, by host index (what a controller's context gives as
    /// `link_rate`).
    pub fn with_host_link_rates(mut self, rates: Vec<BitsPerSec>) -> ConnectionFactory {
        self.host_link_rate = rates;
        self
    }

    /// Flow `flow`'s sender (from host `src` to host `dst`, with TCP profile `profile`),
    /// before it sends.
    pub fn sender(
        &self,
        flow: u32,
        src: HostId,
        dst: HostId,
        profile: u32,
    ) -> TcpSender<SenderScheme> {
        let p = &self.profiles[profile as usize];
        let ctx = SchemeContext::new(self.seed, flow, dst, p.ideal.mss as u32);
        let scheme =
            crate::plan::schemes::sender_scheme(&self.scheme, self.extension.as_deref(), &ctx);
        let link_rate = self
            .host_link_rate
            .get(src as usize)
            .copied()
            .unwrap_or(BitsPerSec(0));
        let cc = ControllerContext::new(
            self.seed,
            flow,
            p.sender.smss,
            p.wire_header_bytes as u32,
            link_rate,
        );
        let mut s = TcpSender::new(
            flow as FlowId,
            p.sender,
            p.controller.new_controller(&cc),
            scheme,
        );
        s.set_peer_window(p.receiver.window_bytes as u64);
        s.set_packet_cwnd(p.packet_cwnd);
        s.set_header_bytes(p.wire_header_bytes as u32);
        s
    }

    /// Flow `flow`'s receiver (at host `dst`, with TCP profile `profile`).
    pub fn receiver(
        &mut self,
        flow: u32,
        dst: HostId,
        profile: u32,
    ) -> TcpReceiver<ReceiverScheme> {
        let p = &self.profiles[profile as usize];
        let ctx = SchemeContext::new(self.seed, flow, dst, p.ideal.mss as u32);
        TcpReceiver::new(p.receiver, self.receivers.make(&ctx))
    }
}
