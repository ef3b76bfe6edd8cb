//! Building the scheme state of a run from its `scheme:` section: each flow's sender-side state
//! and, per receiving host, the receiver-side state.

use crate::config::ConfigError;
use crate::extend::{Extensions, PreparedScheme, SchemeContext};
use incastsim_config::scheme::{
    DsrParams, FineRtoParams, FsaParams, MaaParams, PlatoParams, PlatoRetxLabelName, PrSegmentName,
    ProbRetxParams, RMinConfig, RtoStaticParams, SchemeConfig, TcprandParams, TdaParams,
};
use incastsim_core::SimRng;
use incastsim_core::rng::Stream;
use incastsim_schemes::{
    AdaptiveRMin, Dsr, FineGrainedRto, IctcpHost, IctcpParams, IctcpReceiver, PlatoReceiver,
    PlatoSender, PrTarget, ProbRetxReceiver, ProbRetxSender, RMin, ReceiverScheme, RetxLabel,
    RtoRandMode, RtoRandomization, SenderScheme, TcpRand,
};
use incastsim_tcp::StandardTcp;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// The sender-side state of flow `flow`. Its randomness is the flow's own `Stream::Scheme`
/// generator, so runs with and without a scheme see the same jitter and loss draws.
/// `extension`: the prepared scheme when `scheme` is a registered extension (see
/// [`prepare_extension`]); its sender side gets `ctx`.
pub fn sender_scheme(
    scheme: &SchemeConfig,
    extension: Option<&dyn PreparedScheme>,
    ctx: &SchemeContext,
) -> SenderScheme {
    let (run_seed, flow) = (ctx.run_seed(), ctx.flow);
    let rng = || SimRng::for_stream(run_seed, Stream::Scheme, flow as u64);
    match scheme {
        SchemeConfig::None => SenderScheme::None(StandardTcp),
        SchemeConfig::Extension(_) => extension
            .and_then(|e| e.sender(ctx))
            .unwrap_or(SenderScheme::None(StandardTcp)),
        SchemeConfig::RtoStatic(RtoStaticParams { delta }) => SenderScheme::RtoRand(
            RtoRandomization::new(RtoRandMode::Static { delta: delta.0 }, rng()),
        ),
        SchemeConfig::Tda(TdaParams {
            delta,
            omega,
            keep_backoff,
            s_max,
            lower_bound,
        }) => SenderScheme::RtoRand(RtoRandomization::new(
            RtoRandMode::Tda {
                delta: delta.0,
                omega: *omega,
                keep_backoff: *keep_backoff,
                s_max: *s_max,
                lower_bound: lower_bound.map(|d| d.0),
            },
            rng(),
        )),
        SchemeConfig::Maa(MaaParams { sigma, unit }) => {
            SenderScheme::RtoRand(RtoRandomization::new(
                RtoRandMode::Maa {
                    sigma: *sigma,
                    unit: unit.0,
                },
                rng(),
            ))
        }
        SchemeConfig::Fsa(FsaParams {
            delta,
            omega_long,
            omega_short,
            long_after,
        }) => SenderScheme::RtoRand(RtoRandomization::new(
            RtoRandMode::Fsa {
                delta: delta.0,
                omega_long: *omega_long,
                omega_short: *omega_short,
                long_after: long_after.0,
            },
            rng(),
        )),
        SchemeConfig::FineRto(FineRtoParams { max_extra }) => {
            SenderScheme::FineRto(FineGrainedRto::new(*max_extra, rng()))
        }
        SchemeConfig::Tcprand(p) => SenderScheme::TcpRand(TcpRand::new(tcprand_r_min(p), rng())),
        SchemeConfig::ProbRetx(ProbRetxParams {
            period,
            p,
            segment,
            suspend_in_recovery,
        }) => SenderScheme::ProbRetx(ProbRetxSender::new(
            period.0,
            *p,
            pr_target(*segment),
            *suspend_in_recovery,
            rng(),
        )),
        SchemeConfig::Dsr(DsrParams {
            mss_dsr,
            cwnd_dsr,
            per_transfer,
            ..
        }) => SenderScheme::Dsr(Dsr {
            mss_dsr: mss_dsr.0 as u32,
            cwnd_dsr: *cwnd_dsr,
            per_transfer: *per_transfer,
        }),
        SchemeConfig::Plato(_) => SenderScheme::Plato(PlatoSender::default()),
        SchemeConfig::Ictcp(_) => SenderScheme::None(StandardTcp),
    }
}

/// TCPRand's r_min: a fixed size, or Algorithm 1's adaptive r_min with its parameters.
fn tcprand_r_min(p: &TcprandParams) -> RMin {
    let TcprandParams {
        r_min,
        mu,
        sigma2,
        nu_tau,
        nu_omega,
        theta,
    } = p;
    match r_min {
        RMinConfig::Fixed(b) => RMin::Static(*b as u32),
        RMinConfig::Adaptive => RMin::Adaptive(AdaptiveRMin {
            mu: *mu,
            sigma2: *sigma2,
            nu_tau: nu_tau.0,
            nu_omega: nu_omega.0,
            theta: theta.0 as u32,
        }),
    }
}

/// The segment probabilistic retransmission resends, by its config name.
fn pr_target(segment: PrSegmentName) -> PrTarget {
    match segment {
        PrSegmentName::SndUna => PrTarget::SndUna,
        PrSegmentName::LastSent => PrTarget::LastSent,
    }
}

/// Makes the receiver-side state of each flow; state shared by the flows of one receiving host
/// (ICTCP's interface) is created once per host. `capacity_bps`: the receivers' link rate.
/// `extension`: the prepared scheme when `scheme` is a registered extension.
pub fn receiver_factory(
    scheme: &SchemeConfig,
    extension: Option<Arc<dyn PreparedScheme>>,
    capacity_bps: f64,
) -> ReceiverFactory {
    ReceiverFactory {
        scheme: scheme.clone(),
        extension,
        capacity_bps,
        hosts: Vec::new(),
    }
}

/// Builds each flow's receiver-side scheme state (see [`receiver_factory`]). It owns what it
/// reads, so the engine can build a connection when its flow starts: every state is a function
/// of the flow's context alone (ICTCP's per-host state is created on the host's first flow and
/// only read at construction), so building late builds the same state.
pub struct ReceiverFactory {
    scheme: SchemeConfig,
    extension: Option<Arc<dyn PreparedScheme>>,
    capacity_bps: f64,
    hosts: Vec<(u32, Rc<RefCell<IctcpHost>>)>,
}

/// The registered scheme `scheme` names, ready to build connections (`None` for a built-in).
pub fn prepare_extension(
    scheme: &SchemeConfig,
    extensions: &Extensions,
) -> Result<Option<Arc<dyn PreparedScheme>>, ConfigError> {
    match scheme {
        SchemeConfig::Extension(choice) => extensions.prepare_scheme("scheme", choice).map(Some),
        _ => Ok(None),
    }
}

impl ReceiverFactory {
    /// The state of flow `ctx.flow`, received by host `ctx.dst` with segments of `ctx.mss`
    /// bytes.
    pub fn make(&mut self, ctx: &SchemeContext) -> ReceiverScheme {
        let (dst, mss) = (ctx.dst, ctx.mss);
        match &self.scheme {
            SchemeConfig::Extension(_) => self
                .extension
                .as_ref()
                .and_then(|e| e.receiver(ctx))
                .unwrap_or(ReceiverScheme::None(StandardTcp)),
            SchemeConfig::ProbRetx(_) => ReceiverScheme::ProbRetx(ProbRetxReceiver),
            SchemeConfig::Plato(PlatoParams {
                retransmission_label,
            }) => ReceiverScheme::Plato(PlatoReceiver {
                retransmission_label: match retransmission_label {
                    PlatoRetxLabelName::Separate => RetxLabel::Separate,
                    PlatoRetxLabelName::Heartbeat => RetxLabel::Heartbeat,
                },
            }),
            SchemeConfig::Ictcp(p) => {
                let host = match self.hosts.iter().find(|(h, _)| *h == dst) {
                    Some((_, host)) => host.clone(),
                    None => {
                        let params = IctcpParams {
                            gamma1: p.gamma1,
                            gamma2: p.gamma2,
                            alpha: p.alpha,
                            beta: p.beta,
                            initial_rtt: p.initial_rtt.0,
                            min_window_mss: p.min_window_segments,
                        };
                        let host = Rc::new(RefCell::new(IctcpHost::new(self.capacity_bps, params)));
                        self.hosts.push((dst, host.clone()));
                        host
                    }
                };
                ReceiverScheme::Ictcp(IctcpReceiver::new(host, mss))
            }
            _ => ReceiverScheme::None(StandardTcp),
        }
    }
}
