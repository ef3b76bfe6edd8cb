//! What the two ends hand to the engine for the wire and take back from it: plain `Copy`
//! values (a leaf module). The engine maps them onto `incastsim_core::Packet`.
//!
//! PSNs are `u64` and never wrap. The InfiniBand PSN is a 24-bit field that wraps (IBTA vol. 1
//! §9.2), which only matters for a QP with more than 2^23 packets outstanding; a simulation
//! has no use for the modular arithmetic, so PSN p is packet p of the QP's whole life, counted
//! from 0.

use incastsim_core::{TELEMETRY_WORDS, Time};

/// A data packet the sender puts on the wire (and the receiver takes back, as the engine
/// delivered it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataPacket {
    /// Packet sequence number.
    pub psn: u64,
    /// Payload bytes (the MTU, or less for the last packet of a message).
    pub payload: u32,
    /// The BTH AckReq bit (IBTA vol. 1 §9.2): set on the last packet of each message, so the
    /// responder acknowledges it whatever its ACK coalescing.
    pub ack_req: bool,
    /// Sent before (go-back-N resend, selective retransmission or timeout).
    pub retransmit: bool,
    /// When the sender emitted it: the receiver echoes it in the ACK (the timestamp TIMELY and
    /// the HPCC fork read, `ch.ack.ih.ts`), so the sender takes an RTT sample per ACK.
    pub sent_at: Time,
}

/// Positive or negative acknowledgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AckKind {
    /// Everything below `epsn` arrived in order.
    Ack,
    /// A sequence-error NAK (IBTA vol. 1 §9.7.5.2.4): everything below `epsn` arrived, and a
    /// later packet arrived before `epsn`.
    Nack,
}

/// An ACK or NACK the receiver sends back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckPacket {
    /// ACK or NACK.
    pub kind: AckKind,
    /// The cumulative acknowledgement: the next PSN the receiver expects (every PSN below it
    /// arrived). A NAK carries the same value, the PSN to resend from.
    pub epsn: u64,
    /// Selective repeat's NACK: the out-of-order PSN that triggered it (IRN's simplified
    /// selective acknowledgement, SIGCOMM 2018 §3.1). `None` on ACKs and on go-back-N NAKs.
    pub sack_psn: Option<u64>,
    /// The `sent_at` of the data packet that triggered this ACK.
    pub echo_sent_at: Time,
    /// The PSN of the data packet that triggered this ACK (whose INT records it echoes).
    pub trigger_psn: u64,
    /// A packet this ACK covers arrived CE-marked: the ECN echo (the HPCC fork sets its ACK's
    /// CNP flag so, `qbbHeader::FLAG_CNP`). DCQCN's separate CNPs are generated from
    /// [`crate::RxOutcome::ce_marked`].
    pub ecn_echo: bool,
    /// The triggering data packet's in-band telemetry words, echoed (HPCC's ACK carries the
    /// data packet's INT header back: `seqh.SetIntHeader(ch.udp.ih)` in the fork's
    /// `ReceiveUdp`).
    pub telemetry: [u64; TELEMETRY_WORDS],
}
