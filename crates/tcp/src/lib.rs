//! incastsim-tcp: TCP as pure state machines (no I/O, no clock: time is an input).
//!
//! - [`sender`]: NewReno loss recovery (RFC 5681, 6582), limited transmit (RFC 3042) and the
//!   retransmission timer (RFC 6298). "An RTO fires" is [`TcpSender::on_timeout`].
//! - [`receiver`]: cumulative ACKs, reassembly, delayed ACKs.
//! - [`cc`]: the congestion-control trait and the controllers (NewReno, CUBIC, DCTCP).
//! - [`cc_state`]: the window and controller state as plain values (a leaf module).
//! - [`segment`]: the segments a sender emits (a leaf module).
//! - [`rtt`]: SRTT/RTTVAR/RTO per RFC 6298.
//! - [`policy`]: the hooks incast schemes use.

#![warn(missing_docs)]

pub mod cc;
pub mod cc_state;
pub mod policy;
pub mod rack;
pub mod receiver;
pub mod rtt;
pub mod sack;
pub mod segment;
pub mod sender;
pub mod summary;
pub mod timeout_class;

pub use cc::{
    AckSample, BuiltinController, Cc, CcControl, CongestionControl, ControllerParams, Cubic,
    CubicConfig, Dctcp, DctcpConfig, DynController, ExtensionCc, NewReno, RenoFriendlyAlpha,
    cc_hooks,
};
pub use cc_state::{CcState, CubicState, RecoveryState, Window};
pub use policy::{AckInfo, ReceiverPolicy, SenderAction, SenderPolicy, SenderView, StandardTcp};
pub use receiver::{
    AckOut, DelayedAckConfig, EcnFeedback, ReceiverConfig, ReceiverStats, TcpReceiver,
};
pub use rtt::{RtoConfig, RttEstimator};
pub use segment::{Segment, SendCause};
pub use sender::{
    RecoveryExit, RttSampling, SUCCESSIVE_TIMEOUT_BINS, SenderConfig, SenderStats, TcpSender,
};
pub use summary::{ReceiverSummary, SenderSummary};
pub use timeout_class::{TimeoutClass, TimeoutClassStats};

#[cfg(test)]
mod cc_hook_tests;
#[cfg(test)]
mod rack_traces;
#[cfg(test)]
mod trace_tests;
