//! The segments a sender hands to the caller for the wire: a leaf module of plain values, shared
//! by the sender and the policy hooks (which see each outgoing segment).

/// Why a segment is being sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SendCause {
    /// First transmission of new data.
    New,
    /// New data sent on a duplicate ACK (RFC 3042 limited transmit).
    LimitedTransmit,
    /// The retransmission on the third duplicate ACK (RFC 5681 §3.2).
    FastRetransmit,
    /// A retransmission on a partial ACK during fast recovery (RFC 6582 §3.2 step 5).
    PartialAck,
    /// A retransmission chosen by RFC 6675 NextSeg() during SACK recovery.
    SackRetransmit,
    /// The retransmission at snd_una when the RTO fires (RFC 6298 (5.4)).
    Timeout,
    /// Resent after a timeout as the window reopens from snd_una (go-back-N).
    GoBackN,
    /// A retransmission a scheme asked for
    /// ([`crate::policy::SenderAction::RetransmitHighest`] / `Oldest`).
    Scheme,
    /// A scheme's dummy packet: no payload, outside the sequence space.
    Dummy,
    /// RFC 8985 §7.3 Tail Loss Probe: new data, or the last segment again.
    LossProbe,
}

/// A segment the caller must put on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Sequence number of the first payload byte.
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Why it is sent (first transmission or which retransmission rule).
    pub cause: SendCause,
    /// Packet flag bits (RETX, CWR, scheme labels).
    pub flags: u8,
    /// Send as ECN-capable (ECT(0)): new data of an ECN flow (RFC 3168 §6.1.5: never a
    /// retransmission).
    pub ect: bool,
}
