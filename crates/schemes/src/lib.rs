//! incastsim-schemes: incast mitigation schemes, plugged into TCP through the policy hooks of
//! [`incastsim_tcp::SenderPolicy`] and [`incastsim_tcp::ReceiverPolicy`].
//!
//! The simulation holds one [`SenderScheme`] / [`ReceiverScheme`] per connection: an enum, so
//! hooks are a `match` on the per-packet path and runs without a scheme pay nothing. A new scheme
//! is a type implementing the policy traits (one module) plus one variant here and one config
//! struct in `incastsim-config` (`crates/config/src/scheme.rs`); see ARCHITECTURE.md "How to add a scheme".

#![warn(missing_docs)]

pub mod dsr;
pub mod ictcp;
pub mod plato;
pub mod prob_retx;
pub mod rto;
pub mod tcprand;

use incastsim_core::{Duration, Time};
use incastsim_tcp::policy::{AckInfo, ReceiverPolicy, SenderAction, SenderPolicy, SenderView};
use incastsim_tcp::{Segment, StandardTcp};

pub use dsr::Dsr;
pub use ictcp::{IctcpHost, IctcpParams, IctcpReceiver};
pub use plato::{PlatoReceiver, PlatoSender, PlatoState, RetxLabel};
pub use prob_retx::{PrTarget, ProbRetxReceiver, ProbRetxSender};
pub use rto::{FineGrainedRto, RtoRandMode, RtoRandomization};
pub use tcprand::{AdaptiveRMin, RMin, TcpRand};

/// Sender-side scheme state of one connection.
#[derive(Clone, Debug)]
pub enum SenderScheme {
    /// Plain TCP (`scheme: none`).
    None(StandardTcp),
    /// RTO randomization: static, TDA, MAA or FSA.
    RtoRand(RtoRandomization),
    /// Fine-grained RTO's randomized backoff (Vasudevan et al.).
    FineRto(FineGrainedRto),
    /// TCPRand: randomized segment sizes (Lee et al.).
    TcpRand(TcpRand),
    /// Probabilistic retransmission, sender side (Kulkarni & Agrawal).
    ProbRetx(ProbRetxSender),
    /// Dynamic segment resizing (Kulkarni & Agrawal).
    Dsr(Dsr),
    /// PLATO's labelling and dummy probes, sender side.
    Plato(PlatoSender),
    /// A scheme registered by a downstream crate (`incastsim_scenario::Extensions`): one
    /// indirect call per hook it names in `hooks()`.
    Extension(Box<dyn DynSenderPolicy>),
}

/// Receiver-side scheme state of one connection.
#[derive(Clone, Debug)]
pub enum ReceiverScheme {
    /// Plain TCP.
    None(StandardTcp),
    /// Probabilistic retransmission, receiver side (extra duplicate ACKs).
    ProbRetx(ProbRetxReceiver),
    /// PLATO's receiver: labelled ACKs.
    Plato(PlatoReceiver),
    /// ICTCP: receive-window control from measured throughput.
    Ictcp(IctcpReceiver),
    /// A scheme registered by a downstream crate.
    Extension(Box<dyn DynReceiverPolicy>),
}

/// A sender-side policy behind a pointer: any [`SenderPolicy`] that can be cloned and printed
/// (implemented for every such type).
pub trait DynSenderPolicy: SenderPolicy + std::fmt::Debug {
    /// A boxed copy (so that [`SenderScheme`] stays `Clone`).
    fn box_clone(&self) -> Box<dyn DynSenderPolicy>;
}

impl<T: SenderPolicy + Clone + std::fmt::Debug + 'static> DynSenderPolicy for T {
    fn box_clone(&self) -> Box<dyn DynSenderPolicy> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn DynSenderPolicy> {
    fn clone(&self) -> Self {
        self.box_clone()
    }
}

/// A receiver-side policy behind a pointer (see [`DynSenderPolicy`]).
pub trait DynReceiverPolicy: ReceiverPolicy + std::fmt::Debug {
    /// A boxed copy (so that [`ReceiverScheme`] stays `Clone`).
    fn box_clone(&self) -> Box<dyn DynReceiverPolicy>;
}

impl<T: ReceiverPolicy + Clone + std::fmt::Debug + 'static> DynReceiverPolicy for T {
    fn box_clone(&self) -> Box<dyn DynReceiverPolicy> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn DynReceiverPolicy> {
    fn clone(&self) -> Self {
        self.box_clone()
    }
}

/// Calls `$call` on whichever scheme `$self` holds.
macro_rules! each_sender {
    ($self:expr, $p:ident => $call:expr) => {
        match $self {
            SenderScheme::None($p) => $call,
            SenderScheme::RtoRand($p) => $call,
            SenderScheme::FineRto($p) => $call,
            SenderScheme::TcpRand($p) => $call,
            SenderScheme::ProbRetx($p) => $call,
            SenderScheme::Dsr($p) => $call,
            SenderScheme::Plato($p) => $call,
            SenderScheme::Extension($p) => $call,
        }
    };
}

macro_rules! each_receiver {
    ($self:expr, $p:ident => $call:expr) => {
        match $self {
            ReceiverScheme::None($p) => $call,
            ReceiverScheme::ProbRetx($p) => $call,
            ReceiverScheme::Plato($p) => $call,
            ReceiverScheme::Ictcp($p) => $call,
            ReceiverScheme::Extension($p) => $call,
        }
    };
}

impl SenderPolicy for SenderScheme {
    #[inline]
    fn hooks(&self) -> u16 {
        each_sender!(self, p => p.hooks())
    }
    #[inline]
    fn initial_smss(&self, configured_mss: u32) -> u32 {
        each_sender!(self, p => p.initial_smss(configured_mss))
    }
    #[inline]
    fn retransmission_timeout(&mut self, view: &SenderView, rfc6298_rto: Duration) -> Duration {
        each_sender!(self, p => p.retransmission_timeout(view, rfc6298_rto))
    }
    #[inline]
    fn new_segment_payload(&mut self, view: &SenderView, max_payload: u32) -> u32 {
        each_sender!(self, p => p.new_segment_payload(view, max_payload))
    }
    #[inline]
    fn segment_flags(&mut self, view: &SenderView, segment: &Segment) -> u8 {
        each_sender!(self, p => p.segment_flags(view, segment))
    }
    #[inline]
    fn before_ack(&mut self, view: &SenderView, ack: &AckInfo) {
        each_sender!(self, p => p.before_ack(view, ack))
    }
    #[inline]
    fn on_ack(&mut self, view: &SenderView, ack: &AckInfo) -> SenderAction {
        each_sender!(self, p => p.on_ack(view, ack))
    }
    #[inline]
    fn on_timeout(&mut self, view: &SenderView) -> SenderAction {
        each_sender!(self, p => p.on_timeout(view))
    }
    #[inline]
    fn timer_period(&self) -> Option<Duration> {
        each_sender!(self, p => p.timer_period())
    }
    #[inline]
    fn on_timer(&mut self, view: &SenderView) -> SenderAction {
        each_sender!(self, p => p.on_timer(view))
    }
    #[inline]
    fn value_names(&self) -> &'static [&'static str] {
        each_sender!(self, p => p.value_names())
    }
    fn values(&self, out: &mut [f64]) {
        each_sender!(self, p => p.values(out))
    }
    fn wants_active_senders(&self) -> bool {
        each_sender!(self, p => p.wants_active_senders())
    }
    #[inline]
    fn set_active_senders(&mut self, n: u32) {
        each_sender!(self, p => p.set_active_senders(n))
    }
}

impl ReceiverPolicy for ReceiverScheme {
    #[inline]
    fn rx_hooks(&self) -> u16 {
        each_receiver!(self, p => p.rx_hooks())
    }
    #[inline]
    fn advertised_window(&mut self, now: Time, configured_bytes: u32) -> u32 {
        each_receiver!(self, p => p.advertised_window(now, configured_bytes))
    }
    #[inline]
    fn extra_duplicate_acks(&mut self, flags: u8, unseen: bool) -> u32 {
        each_receiver!(self, p => p.extra_duplicate_acks(flags, unseen))
    }
    #[inline]
    fn ack_flags(&mut self, segment_flags: u8) -> u8 {
        each_receiver!(self, p => p.ack_flags(segment_flags))
    }
    #[inline]
    fn on_data(&mut self, now: Time, len: u32) {
        each_receiver!(self, p => p.on_data(now, len))
    }
}
