//! Hooks where incast mitigation schemes act on a TCP connection.
//!
//! Each hook has a default that is plain TCP, so [`StandardTcp`] is the baseline. The sender and
//! receiver are generic over their policy type: a scheme is compiled in (no `dyn` per packet), and
//! runs that use no scheme pay nothing. The schemes crate provides an enum over the schemes that
//! implements these traits.
//!
//! A hook sees the connection through a [`SenderView`] (a copy of the state it may read) and acts
//! by its return value: a duration, a payload size, flag bits, or a [`SenderAction`] the sender
//! carries out itself (retransmit a marked segment, send a dummy packet, fire the RTO now, change
//! the segment size). A scheme never mutates TCP state directly, so TCP's invariants stay TCP's.

use crate::cc_state::CcState;
use crate::segment::Segment;
use incastsim_core::{Duration, FlowId, Time};

/// What a sender-side hook may look at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SenderView {
    /// The simulated time of the hook call.
    pub now: Time,
    /// The connection's flow index.
    pub flow: FlowId,
    /// The congestion controller's state: cwnd and ssthresh (bytes), and CUBIC's curve (TCPRand
    /// adapts to it) or DCTCP's α when the flow runs those.
    pub cc: CcState,
    /// The segment size in use (SMSS), payload bytes.
    pub smss: u64,
    /// Oldest unacknowledged byte (RFC 793 SND.UNA).
    pub snd_una: u64,
    /// Next byte to send (SND.NXT; below `snd_max` while going back after a timeout).
    pub snd_nxt: u64,
    /// One past the highest byte ever sent.
    pub snd_max: u64,
    /// Bytes the application has handed to the connection so far.
    pub app_bytes_written: u64,
    /// How many times in a row the oldest outstanding segment has timed out.
    pub successive_timeouts: u32,
    /// Duplicate ACKs counted since the last new ACK.
    pub dupacks: u32,
    /// Smoothed RTT (RFC 6298), None before the first sample.
    pub srtt: Option<Duration>,
    /// RFC 6298 RTO before backoff: max(RTO_min, SRTT + max(G, 4 RTTVAR)).
    pub base_rto: Duration,
    /// The configured RTO_min and RTO_max.
    pub rto_min: Duration,
    /// Upper bound of the RTO (RFC 6298 (2.5)).
    pub rto_max: Duration,
    /// Timer granularity G.
    pub granularity: Duration,
    /// The configured sender MSS (the segment size without any scheme).
    pub mss: u64,
    /// In fast recovery (RFC 6582) or SACK recovery (RFC 6675).
    pub in_recovery: bool,
    /// New data could be sent now (the application has unsent data and cwnd/rwnd allow a
    /// segment beyond snd_nxt).
    pub can_send_new: bool,
}

/// A cumulative ACK as the sender sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckInfo {
    /// The cumulative ACK: the next byte the receiver expects.
    pub ack: u64,
    /// Receiver's advertised window, bytes.
    pub window: u64,
    /// Echoed transmit timestamp (RFC 7323 TSecr), ps.
    pub ts_echo_ps: u64,
    /// ECN-Echo set.
    pub ece: bool,
    /// SACK blocks (RFC 2018), most recent first; only the first `sack_count` are valid.
    pub sack_blocks: [(u64, u64); 3],
    /// How many of `sack_blocks` are valid (0 to 3).
    pub sack_count: u8,
    /// Scheme flag bits of the ACK packet (`flags::LABEL`, `flags::DUMMY`).
    pub flags: u8,
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
            flags: 0,
        }
    }
    /// The valid SACK blocks, `[start, end)` byte ranges.
    pub fn sack(&self) -> &[(u64, u64)] {
        &self.sack_blocks[..self.sack_count as usize]
    }
}

/// Something a sender hook asks the sender to do. The sender does it with its own machinery,
/// so a scheme cannot break TCP's sequence-space invariants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SenderAction {
    /// Nothing: TCP proceeds as usual.
    #[default]
    None,
    /// Retransmit the outstanding segment with the highest sequence number, with these extra
    /// flag bits (probabilistic retransmission, Kulkarni & Agrawal Alg. 1).
    RetransmitHighest {
        /// Scheme flag bits added to the packet (`flags::LABEL`, ...).
        flags: u8,
    },
    /// Retransmit the segment at snd_una, with these extra flag bits.
    RetransmitOldest {
        /// Scheme flag bits added to the packet (`flags::LABEL`, ...).
        flags: u8,
    },
    /// Send a dummy packet: no payload, outside the sequence space, with `flags::DUMMY` and these
    /// extra flag bits (PLATO's heartbeat).
    SendDummy {
        /// Scheme flag bits added to the packet (`flags::LABEL`, ...).
        flags: u8,
    },
    /// Fire the retransmission timeout now (PLATO, when the ACK clock is dead).
    FireRto,
    /// Use this segment size (SMSS) from now on; the byte window is kept (DSR, Alg. 4).
    SetSmss(u32),
    /// Use this segment size from now on, keeping cwnd and ssthresh in segments (their bytes
    /// scale with the size): DSR restarting a new transfer with small segments.
    SetSmssKeepSegments(u32),
}

/// Bits naming the per-segment/per-ACK sender hooks, for [`SenderPolicy::hooks`].
pub mod hooks {
    /// [`SenderPolicy::retransmission_timeout`](super::SenderPolicy::retransmission_timeout).
    pub const RTO: u16 = 1 << 0;
    /// [`SenderPolicy::new_segment_payload`](super::SenderPolicy::new_segment_payload).
    pub const PAYLOAD: u16 = 1 << 1;
    /// [`SenderPolicy::segment_flags`](super::SenderPolicy::segment_flags).
    pub const FLAGS: u16 = 1 << 2;
    /// [`SenderPolicy::before_ack`](super::SenderPolicy::before_ack).
    pub const BEFORE_ACK: u16 = 1 << 3;
    /// [`SenderPolicy::on_ack`](super::SenderPolicy::on_ack).
    pub const ON_ACK: u16 = 1 << 4;
    /// [`SenderPolicy::on_timeout`](super::SenderPolicy::on_timeout).
    pub const ON_TIMEOUT: u16 = 1 << 5;
    /// Every sender hook (the always-correct default).
    pub const ALL: u16 = (1 << 6) - 1;
    /// Receiver hooks, for [`ReceiverPolicy::rx_hooks`](super::ReceiverPolicy::rx_hooks):
    /// [`ReceiverPolicy::advertised_window`](super::ReceiverPolicy::advertised_window).
    pub const RX_WINDOW: u16 = 1 << 0;
    /// [`ReceiverPolicy::extra_duplicate_acks`](super::ReceiverPolicy::extra_duplicate_acks).
    pub const RX_EXTRA_DUPACKS: u16 = 1 << 1;
    /// [`ReceiverPolicy::ack_flags`](super::ReceiverPolicy::ack_flags).
    pub const RX_ACK_FLAGS: u16 = 1 << 2;
    /// [`ReceiverPolicy::on_data`](super::ReceiverPolicy::on_data).
    pub const RX_ON_DATA: u16 = 1 << 3;
    /// Every receiver hook (the always-correct default).
    pub const RX_ALL: u16 = (1 << 4) - 1;
}

/// The sender-side hooks of an incast mitigation scheme (RTO, segment size, flags, actions on
/// ACK, timeout and timer). Every method has a plain-TCP default, so a scheme overrides only what
/// it changes, and it acts only through return values (see the module docs).
pub trait SenderPolicy {
    /// Which of the hot-path hooks this policy overrides ([`hooks`] bits). The sender reads it
    /// once, at construction, and neither builds a [`SenderView`] nor calls a hook whose bit is
    /// clear, so plain TCP pays one bit test per hook site. The default (all) is always correct.
    fn hooks(&self) -> u16 {
        hooks::ALL
    }
    /// The segment size the connection starts with (DSR starts with MSS_dsr).
    fn initial_smss(&self, configured_mss: u32) -> u32 {
        configured_mss
    }
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
    /// Called when an ACK arrives, before TCP processes it (not for dummy ACKs).
    fn before_ack(&mut self, _view: &SenderView, _ack: &AckInfo) {}
    /// Called after the sender has processed an ACK (and for a dummy ACK, which TCP ignores).
    fn on_ack(&mut self, _view: &SenderView, _ack: &AckInfo) -> SenderAction {
        SenderAction::None
    }
    /// Called after the sender has processed a retransmission timeout. (`FireRto` is ignored.)
    fn on_timeout(&mut self, _view: &SenderView) -> SenderAction {
        SenderAction::None
    }
    /// A per-connection periodic timer, if the scheme wants one. The engine runs it only while
    /// the connection has data outstanding, and never for schemes that return `None`.
    fn timer_period(&self) -> Option<Duration> {
        None
    }
    /// The periodic timer fired (only while data is outstanding).
    fn on_timer(&mut self, _view: &SenderView) -> SenderAction {
        SenderAction::None
    }
    /// Whether the scheme needs [`SenderPolicy::set_active_senders`] (MAA's oracle).
    fn wants_active_senders(&self) -> bool {
        false
    }
    /// The number of senders of the application task that are active now.
    fn set_active_senders(&mut self, _n: u32) {}
    /// Names of values of its own the scheme reports per connection (columns of flows.csv
    /// and metrics of the flows' time series, as a controller's
    /// [`crate::CongestionControl::value_names`]). Default: none.
    fn value_names(&self) -> &'static [&'static str] {
        &[]
    }
    /// Its values now, one per name of [`SenderPolicy::value_names`], in that order.
    fn values(&self, out: &mut [f64]) {
        let _ = out;
    }
}

/// The receiver-side hooks of a scheme (advertised window, extra duplicate ACKs, ACK flags, data
/// arrival). Every method has a plain-TCP default.
pub trait ReceiverPolicy {
    /// Which receiver hooks this policy overrides (`hooks::RX_*` bits; read once, as for the
    /// sender). The default (all) is always correct.
    fn rx_hooks(&self) -> u16 {
        hooks::RX_ALL
    }
    /// The window to advertise (ICTCP adjusts it).
    fn advertised_window(&mut self, _now: Time, configured_bytes: u32) -> u32 {
        configured_bytes
    }
    /// Extra duplicate ACKs to send after a data segment (probabilistic retransmission answers a
    /// marked, previously unseen segment with three). `unseen`: no byte of the segment had
    /// arrived before.
    fn extra_duplicate_acks(&mut self, _flags: u8, _unseen: bool) -> u32 {
        0
    }
    /// Extra flag bits for the ACK answering a segment with flags `segment_flags` (PLATO labels
    /// the ACK of a labelled segment). Also applied to the dummy ACK that answers a dummy.
    fn ack_flags(&mut self, _segment_flags: u8) -> u8 {
        0
    }
    /// A data segment of `len` payload bytes arrived at `now` (ICTCP measures throughput).
    fn on_data(&mut self, _now: Time, _len: u32) {}
}

/// Plain TCP: every hook at its default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StandardTcp;

impl SenderPolicy for StandardTcp {
    fn hooks(&self) -> u16 {
        0
    }
}
impl ReceiverPolicy for StandardTcp {
    fn rx_hooks(&self) -> u16 {
        0
    }
}
