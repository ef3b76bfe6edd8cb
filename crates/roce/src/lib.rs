//! incastsim-roce: the RoCEv2 host transport as pure state machines (no I/O, no clock: time is
//! an input), one reliable-connection queue pair per flow.
//!
//! - [`sender`]: [`RoceSender`], the requester: messages segmented into MTU packets with PSNs,
//!   per-packet pacing at the current rate, an optional window (HPCC) and BDP cap (IRN),
//!   go-back-N or selective-repeat loss recovery, the retransmission timer.
//! - [`receiver`]: [`RoceReceiver`], the responder: in-order delivery, ACKs every `ack_every`
//!   packets, sequence-error NAKs, IRN's out-of-order buffer; CE marks reported for DCQCN.
//! - [`controller`]: the [`RateController`] hook a congestion controller implements, and the
//!   [`Controller`] enum the sender dispatches on.
//! - [`cc`]: the built-in controllers, [`Dcqcn`], [`Hpcc`] and [`Timely`], each from its paper
//!   and the HPCC authors' ns-3 fork, with their parameter sets.
//! - [`config`]: [`RoceConfig`] and the defaults, each with its source.
//! - [`packet`]: the [`DataPacket`] and [`AckPacket`] values exchanged with the engine.
//!
//! What the two recovery modes model:
//!
//! - **Go-back-N** ([`Recovery::GoBackN`]), as Mellanox ConnectX NICs (and the HPCC authors'
//!   ns-3 fork, alibaba-edu/High-Precision-Congestion-Control, `rdma-hw.cc`) do: the receiver
//!   drops out-of-order packets and NAKs the PSN it expects, once per gap; the sender resends
//!   everything from it.
//! - **Selective repeat** ([`Recovery::SelectiveRepeat`]), as IRN (Mittal et al., "Revisiting
//!   Network Support for RDMA", SIGCOMM 2018): the receiver keeps out-of-order packets and
//!   NACKs each with the cumulative PSN and its own; the sender retransmits only what is
//!   missing, then new packets; a BDP cap bounds the packets in flight.
//!
//! Both end with the retransmission timer when no NACK can come (a lost tail).
//!
//! PSNs are `u64` from 0 and never wrap (the wire format's 24-bit wrap is irrelevant here; see
//! [`packet`]).
//!
//! For the engine that carries these on `incastsim_core::Packet`: `seq` holds the PSN (data)
//! or the expected PSN (ACK/NACK), `timestamp_ps` the send time or its echo, `header_bytes`
//! [`RoceConfig::header_bytes`] (an ACK is [`RoceConfig::ack_bytes`] with no payload),
//! `flags::RETX` the retransmission mark and `flags::ECE` the ECN echo. AckReq, the NACK kind
//! and the NACK's selective PSN have no field or flag bit in `Packet` yet, and
//! `Packet::telemetry` reads nothing on an ACK, so echoing telemetry needs a place of its own.

#![warn(missing_docs)]

pub mod cc;
pub mod config;
pub mod controller;
pub mod packet;
pub mod receiver;
mod scoreboard;
pub mod sender;

pub use cc::{
    AlphaUpdate, Dcqcn, DcqcnParams, DecreaseOrder, Hpcc, HpccParams, HyperIncrease, Timely,
    TimelyParams, TimelyUpdate,
};
pub use config::{
    DCQCN_CNP_INTERVAL, DEFAULT_IB_TIMEOUT_EXPONENT, HPCC_FORK_MTU, HPCC_FORK_NACK_INTERVAL,
    HPCC_INT_HEADER_BYTES, IB_ACK_TIMEOUT_UNIT, IRN_RTO_HIGH, IRN_RTO_LOW, IRN_RTO_LOW_PACKETS,
    ROCEV2_ACK_BYTES, ROCEV2_CNP_BYTES, ROCEV2_DATA_HEADER_BYTES, Recovery, RoceConfig, RtoConfig,
};
pub use controller::{
    AckSample, Controller, ControllerState, CustomController, DynRateController, FixedRate,
    RateControl, RateController,
};
pub use packet::{AckKind, AckPacket, DataPacket};
pub use receiver::{Arrival, ReceiverStats, RoceReceiver, RxOutcome};
pub use sender::{AckOutcome, RoceSender, SenderStats};

#[cfg(test)]
mod harness;
#[cfg(test)]
mod trace_tests;
