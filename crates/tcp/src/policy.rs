//! Hooks where incast mitigation schemes act on a TCP connection.
//!
//! Each hook has a default that is plain TCP, so [`StandardTcp`] is the baseline. The sender and
//! receiver are generic over their policy type: a scheme is compiled in (no `dyn` per packet), and
//! runs that use no scheme pay nothing. The schemes crate provides an enum over the schemes that
//! implements these traits.

use crate::sender::Segment;
use incastsim_core::{Duration, FlowId, Time};

/// What a sender-side hook may look at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SenderView {
    pub now: Time,
    pub flow: FlowId,
    pub cwnd: u64,
    pub ssthresh: u64,
    pub smss: u64,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// Bytes the application has handed to the connection so far.
    pub app_bytes_written: u64,
    /// How many times in a row the oldest outstanding segment has timed out.
    pub successive_timeouts: u32,
    pub srtt: Option<Duration>,
    pub in_recovery: bool,
}

/// A cumulative ACK as the sender sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckInfo {
    pub ack: u64,
    /// Receiver's advertised window, bytes.
    pub window: u64,
    /// Echoed transmit timestamp (RFC 7323 TSecr), ps.
    pub ts_echo_ps: u64,
    /// ECN-Echo set.
    pub ece: bool,
    /// SACK blocks (RFC 2018), most recent first; only the first `sack_count` are valid.
    pub sack_blocks: [(u64, u64); 3],
    pub sack_count: u8,
}

impl AckInfo {
    /// A cumulative ACK with no ECN-Echo and no SACK blocks.
    pub fn plain(ack: u64, window: u64, ts_echo_ps: u64) -> AckInfo {
        AckInfo {
            ack,
            window,
            ts_echo_ps,
            ece: false,
            sack_blocks: [(0, 0); 3],
            sack_count: 0,
        }
    }
    pub fn sack(&self) -> &[(u64, u64)] {
        &self.sack_blocks[..self.sack_count as usize]
    }
}

pub trait SenderPolicy {
    /// The retransmission timeout to arm, given the RFC 6298 value after backoff.
    /// (RTO randomization, fine-grained RTO.)
    fn retransmission_timeout(&mut self, _view: &SenderView, rfc6298_rto: Duration) -> Duration {
        rfc6298_rto
    }
    /// Payload bytes of the next segment of new data, at most `max_payload` (≥ 1).
    /// (TCPRand, dynamic segment resizing.)
    fn new_segment_payload(&mut self, _view: &SenderView, max_payload: u32) -> u32 {
        max_payload
    }
    /// Extra flag bits for an outgoing data segment, e.g. a label. (PLATO.)
    fn segment_flags(&mut self, _view: &SenderView, _segment: &Segment) -> u8 {
        0
    }
    /// Called after the sender has processed an ACK.
    fn on_ack(&mut self, _view: &SenderView, _ack: &AckInfo) {}
    /// Called after the sender has processed a retransmission timeout.
    fn on_timeout(&mut self, _view: &SenderView) {}
}

pub trait ReceiverPolicy {
    /// The window to advertise (ICTCP adjusts it).
    fn advertised_window(&mut self, _now: Time, configured_bytes: u32) -> u32 {
        configured_bytes
    }
    /// Extra duplicate ACKs to send after a segment (probabilistic retransmission answers a
    /// marked, previously unseen segment with three).
    fn extra_duplicate_acks(&mut self, _flags: u8, _segment_was_new: bool) -> u32 {
        0
    }
}

/// Plain TCP: every hook at its default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StandardTcp;

impl SenderPolicy for StandardTcp {}
impl ReceiverPolicy for StandardTcp {}
