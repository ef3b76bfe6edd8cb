//! The packet: a small `Copy` value that travels through port FIFOs by value.
//!
//! It carries everything later features need (flow id, seq/ack, payload and header bytes, flags,
//! ECN codepoint, a DSCP/label byte, a timestamp) in 56 bytes, so no packet ever allocates.

/// Index of a host (end node). Hosts are numbered 0..hosts in the topology.
pub type HostId = u32;
/// Index of a flow (one TCP connection or one UDP source).
pub type FlowId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PacketKind {
    /// TCP segment carrying payload from the flow's sender to its receiver.
    Data,
    /// Pure TCP acknowledgement from the receiver back to the sender.
    Ack,
    /// An application request (client → server); `seq` carries the block number.
    Request,
}

/// ECN codepoint in the IP header (RFC 3168 §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect0,
    Ect1,
    Ce,
}

/// TCP and simulator flag bits.
pub mod flags {
    /// ECN-Echo (RFC 3168 §6.1).
    pub const ECE: u8 = 1 << 0;
    /// Congestion Window Reduced (RFC 3168 §6.1).
    pub const CWR: u8 = 1 << 1;
    /// The segment is a retransmission (for statistics and schemes; not visible to TCP logic).
    pub const RETX: u8 = 1 << 2;
    /// Scheme label (e.g. PLATO's labelled packets); switches may act on it.
    pub const LABEL: u8 = 1 << 3;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Data: first payload byte's sequence number. Request: block number.
    pub seq: u64,
    /// Ack: next byte expected (cumulative acknowledgement).
    pub ack: u64,
    /// Data: the sender's transmit time (ps). Ack: the echoed timestamp (RFC 7323 TSecr).
    pub timestamp_ps: u64,
    pub flow: FlowId,
    pub src: HostId,
    pub dst: HostId,
    pub payload_bytes: u32,
    /// Advertised receive window in bytes (on ACKs).
    pub window_bytes: u32,
    pub header_bytes: u16,
    pub kind: PacketKind,
    pub flags: u8,
    pub ecn: Ecn,
    /// Traffic class / DSCP / label, used by class-aware queue disciplines.
    pub dscp: u8,
}

impl Packet {
    /// Bytes on the wire (payload plus headers): what serialization and buffers count.
    #[inline]
    pub fn wire_bytes(&self) -> u32 {
        self.payload_bytes + self.header_bytes as u32
    }
    #[inline]
    pub fn has_flag(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_stays_small() {
        assert!(
            std::mem::size_of::<Packet>() <= 56,
            "{}",
            std::mem::size_of::<Packet>()
        );
    }
}
