//! incastsim-schemes: incast mitigation schemes, plugged into TCP through the policy hooks of
//! [`incastsim_tcp::SenderPolicy`] and [`incastsim_tcp::ReceiverPolicy`].
//!
//! The simulation holds one [`SenderScheme`] / [`ReceiverScheme`] per connection: an enum, so
//! hooks are a `match` on the per-packet path and runs without a scheme pay nothing. A new scheme
//! is a type implementing the policy traits plus one variant here.
//!
//! Only the baseline exists so far; the source papers' schemes are added as variants.

use incastsim_core::{Duration, Time};
use incastsim_tcp::policy::{AckInfo, ReceiverPolicy, SenderPolicy, SenderView};
use incastsim_tcp::{Segment, StandardTcp};

/// The schemes a run can select, by config name.
pub const SCHEME_NAMES: &[(&str, &str)] = &[("none", "plain TCP: no incast mitigation")];

/// Sender-side scheme state of one connection.
#[derive(Clone, Debug)]
pub enum SenderScheme {
    None(StandardTcp),
}

/// Receiver-side scheme state of one connection.
#[derive(Clone, Debug)]
pub enum ReceiverScheme {
    None(StandardTcp),
}

impl SenderPolicy for SenderScheme {
    #[inline]
    fn retransmission_timeout(&mut self, view: &SenderView, rfc6298_rto: Duration) -> Duration {
        match self {
            SenderScheme::None(p) => p.retransmission_timeout(view, rfc6298_rto),
        }
    }
    #[inline]
    fn new_segment_payload(&mut self, view: &SenderView, max_payload: u32) -> u32 {
        match self {
            SenderScheme::None(p) => p.new_segment_payload(view, max_payload),
        }
    }
    #[inline]
    fn segment_flags(&mut self, view: &SenderView, segment: &Segment) -> u8 {
        match self {
            SenderScheme::None(p) => p.segment_flags(view, segment),
        }
    }
    #[inline]
    fn on_ack(&mut self, view: &SenderView, ack: &AckInfo) {
        match self {
            SenderScheme::None(p) => p.on_ack(view, ack),
        }
    }
    #[inline]
    fn on_timeout(&mut self, view: &SenderView) {
        match self {
            SenderScheme::None(p) => p.on_timeout(view),
        }
    }
}

impl ReceiverPolicy for ReceiverScheme {
    #[inline]
    fn advertised_window(&mut self, now: Time, configured_bytes: u32) -> u32 {
        match self {
            ReceiverScheme::None(p) => p.advertised_window(now, configured_bytes),
        }
    }
    #[inline]
    fn extra_duplicate_acks(&mut self, flags: u8, segment_was_new: bool) -> u32 {
        match self {
            ReceiverScheme::None(p) => p.extra_duplicate_acks(flags, segment_was_new),
        }
    }
}
