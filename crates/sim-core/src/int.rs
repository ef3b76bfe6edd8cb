//! In-band network telemetry (INT) as HPCC uses it (Li et al., "HPCC: High Precision Congestion
//! Control", SIGCOMM 2019, §3.2 and Fig. 4): every switch egress a data packet leaves appends
//! one record of its own state, and the receiver echoes the records in the ACK.
//!
//! A [`crate::Packet`] is one cache line and has no room for five hop records (the fork's
//! `IntHeader` packs each in 64 bits: 8 × 5 B + 2). So the records ride *beside* the packet: the
//! packet carries the flag [`crate::packet::flags::INT`] and the count of records stamped so
//! far, and the records themselves sit in a store the engine keeps per flow and PSN. They are
//! still the packet's header: written only by the switches it crosses, read only by the
//! receiver's echo and the sender's controller after the ACK came back.

use crate::{BitsPerSec, Time};

/// One switch egress's INT record, taken when the packet starts its transmission there (the
/// HPCC fork stamps in `SwitchNode::SwitchNotifyDequeue`: `ih.PushHop(Now, m_txBytes[ifIndex],
/// queue bytes, bit rate)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntHop {
    /// When the packet started its transmission (HPCC's `ts`).
    pub ts: Time,
    /// Bytes the port had transmitted, this packet included (HPCC's `txBytes`).
    pub tx_bytes: u64,
    /// Bytes waiting in the port's queue after this packet left it (HPCC's `qLen`).
    pub qlen_bytes: u64,
    /// The port's line rate (HPCC's `B`).
    pub rate: BitsPerSec,
}

/// The most INT records a packet collects: later switches stamp nothing (the HPCC fork's
/// `IntHeader::maxHop` is 5, a three-tier fat-tree's switch hops; this leaves room for longer
/// custom paths).
pub const MAX_INT_HOPS: usize = 8;
