//! The packet: a small `Copy` value that travels through port FIFOs by value.
//!
//! It carries everything later features need (flow id, seq/ack, payload and header bytes, flags,
//! ECN codepoint, a DSCP/label byte, a timestamp, up to three SACK blocks) in one 64-byte cache
//! line (`packet_stays_small` checks it), so no packet ever allocates.

/// Index of a host (end node). Hosts are numbered 0..hosts in the topology.
pub type HostId = u32;
/// Index of a flow (one TCP connection or one UDP source).
pub type FlowId = u32;

/// What a packet is: it decides which handler receives it at the far end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum PacketKind {
    /// TCP segment carrying payload from the flow's sender to its receiver.
    #[default]
    Data,
    /// Pure TCP acknowledgement from the receiver back to the sender.
    Ack,
    /// An application request (client → server); `seq` carries the block number.
    Request,
    /// A UDP datagram of a constant-bit-rate background source.
    Udp,
    /// A PFC frame (IEEE 802.1Qbb): `dscp` is the paused class, `seq` the pause time in
    /// quanta (0: resume), `flow` the port that sent it. The network carries PFC frames as
    /// control frames of their own (they are never queued, forwarded or delivered); this
    /// kind only describes one in a capture.
    Pause,
}

/// ECN codepoint in the IP header (RFC 3168 §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Ecn {
    /// Not ECN-capable: a marking queue drops it instead.
    #[default]
    NotEct,
    /// ECN-capable, ECT(0) (what RFC 3168 senders use).
    Ect0,
    /// ECN-capable, ECT(1).
    Ect1,
    /// Congestion Experienced: marked by a queue.
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
    /// A scheme's dummy packet: no payload, not part of the sequence space (PLATO's heartbeat
    /// probes and the receiver's dummy ACKs that answer them).
    pub const DUMMY: u8 = 1 << 4;
    /// A scheme's mark in a reserved header bit (probabilistic retransmission, Kulkarni &
    /// Agrawal §4.2: "one of the six reserved bits in the segment's header").
    pub const MARK: u8 = 1 << 5;
    /// A switch cut the payload (packet trimming, as NDP's switches do: Handley et al.,
    /// SIGCOMM 2017, §3.1): `payload_bytes` is what is left. No built-in transport reads
    /// trimmed packets yet; a discipline that trims is for transports that do.
    pub const TRIMMED: u8 = 1 << 6;
    /// The packet carries an in-band telemetry header (HPCC): every switch egress it leaves
    /// stamps a record ([`crate::int`]); on a data packet `sack_count` counts the records.
    pub const INT: u8 = 1 << 7;
}

/// A SACK block (RFC 2018) as offsets from the packet's cumulative ACK, so it fits in 8 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    /// Negative for a D-SACK block below the cumulative ACK (RFC 2883).
    pub start_offset: i32,
    /// Bytes covered by the block.
    pub len: u32,
}

/// A simulated packet: a fixed-size copyable value (one cache line), so queues move packets
/// without allocating. (`Default`: an empty data packet of flow 0, which fills a queue's
/// unused slots.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Packet {
    /// Data: the first payload byte's sequence number. Ack: the cumulative acknowledgement (next
    /// byte expected; see [`Packet::ack`]). Request: the block number. Udp: datagram number.
    /// (A pure ACK carries no data and a data segment no ACK, so one field serves both and the
    /// packet stays one cache line.)
    pub seq: u64,
    /// Data: the sender's transmit time (ps). Ack: the echoed timestamp (RFC 7323 TSecr).
    pub timestamp_ps: u64,
    /// The TCP connection (or UDP source) it belongs to.
    pub flow: FlowId,
    /// The destination host: routing reads only this.
    pub dst: HostId,
    /// Payload bytes (0 for pure ACKs).
    pub payload_bytes: u32,
    /// Advertised receive window in bytes (on ACKs).
    pub window_bytes: u32,
    /// Header bytes: size on the wire = `header_bytes + payload_bytes`.
    pub header_bytes: u16,
    /// Data, ACK, request or UDP.
    pub kind: PacketKind,
    /// Flag bits ([`flags`]): TCP's RETX, CWR, ECE and the schemes' labels.
    pub flags: u8,
    /// The IP header's ECN codepoint.
    pub ecn: Ecn,
    /// Traffic class / DSCP / label, used by class-aware queue disciplines.
    pub dscp: u8,
    /// SACK blocks on ACKs; the first `sack_count` are valid.
    pub sack_count: u8,
    /// SACK blocks, relative to the cumulative ACK.
    pub sack: [SackBlock; 3],
    /// The network's forwarding cursor: which entry of the path its flow took (computed once,
    /// when the sender's host hands it to its NIC) the next switch uses. [`NO_PATH`]: none,
    /// each switch looks up its routes. Not a header field; transport never reads it.
    pub hop: u8,
}

// A packet is copied into every queue it waits in: it stays within one cache line. It fills
// all 64 bytes (8 + 8 + 4 × 4 + 2 + 5 × 1 + 3 × 8 + 1); in-band telemetry shares the SACK
// blocks' bytes on packets that are not ACKs (`Packet::telemetry`).
const _: () = assert!(std::mem::size_of::<Packet>() <= 64);

/// Words of in-band telemetry a packet other than an ACK carries ([`Packet::telemetry`]).
pub const TELEMETRY_WORDS: usize = 3;

/// [`Packet::hop`] of a packet that switches route by their tables.
pub const NO_PATH: u8 = u8::MAX;

impl Packet {
    /// The in-band telemetry words switches stamped into this packet (`None` on an ACK). A
    /// queue discipline writes them with [`Packet::set_telemetry`] at admission or at dequeue
    /// (HPCC-style INT: queue length, bytes sent, a timestamp); which word means what is the
    /// discipline's declaration, read by the component it cooperates with (a probe at
    /// delivery; a transport that echoes them). They share the bytes an ACK's SACK blocks use
    /// (a data segment carries none), so a packet stays one cache line; all 0 when sent.
    pub fn telemetry(&self) -> Option<[u64; TELEMETRY_WORDS]> {
        (self.kind != PacketKind::Ack).then(|| {
            self.sack
                .map(|b| (u64::from(b.start_offset as u32) << 32) | u64::from(b.len))
        })
    }

    /// Stamps telemetry word `word` (< [`TELEMETRY_WORDS`]) with `value`. Refused (false,
    /// nothing written) on an ACK, whose bytes there are SACK blocks, or for a word out of
    /// range.
    pub fn set_telemetry(&mut self, word: usize, value: u64) -> bool {
        if self.kind == PacketKind::Ack || word >= TELEMETRY_WORDS {
            return false;
        }
        self.sack[word] = SackBlock {
            start_offset: (value >> 32) as u32 as i32,
            len: value as u32,
        };
        true
    }

    /// A packet with every optional field empty.
    pub fn new(
        kind: PacketKind,
        flow: FlowId,
        dst: HostId,
        payload_bytes: u32,
        header_bytes: u16,
    ) -> Packet {
        Packet {
            seq: 0,
            timestamp_ps: 0,
            flow,
            dst,
            payload_bytes,
            window_bytes: 0,
            header_bytes,
            kind,
            flags: 0,
            ecn: Ecn::NotEct,
            dscp: 0,
            sack_count: 0,
            sack: [SackBlock::default(); 3],
            hop: NO_PATH,
        }
    }

    /// The cumulative acknowledgement of an ACK.
    #[inline]
    pub fn ack(&self) -> u64 {
        self.seq
    }

    /// Bytes on the wire (payload plus headers): what serialization and buffers count.
    #[inline]
    pub fn wire_bytes(&self) -> u32 {
        self.payload_bytes + self.header_bytes as u32
    }
    /// Whether flag bit(s) `f` are set.
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
            std::mem::size_of::<Packet>() <= 64,
            "{}",
            std::mem::size_of::<Packet>()
        );
    }

    /// Telemetry words round-trip every 64-bit value on data packets, start at 0, and are
    /// refused on ACKs (whose bytes there are SACK blocks).
    #[test]
    fn telemetry_words_round_trip_and_spare_acks() {
        let mut p = Packet::new(PacketKind::Data, 1, 2, 1000, 40);
        assert_eq!(p.telemetry(), Some([0; TELEMETRY_WORDS]));
        for (i, v) in [u64::MAX, 1 << 63 | 7, 0x1234_5678_9abc_def0]
            .into_iter()
            .enumerate()
        {
            assert!(p.set_telemetry(i, v));
        }
        assert_eq!(
            p.telemetry(),
            Some([u64::MAX, 1 << 63 | 7, 0x1234_5678_9abc_def0])
        );
        assert_eq!(p.sack_count, 0, "TCP sees no SACK block");
        assert!(!p.set_telemetry(TELEMETRY_WORDS, 1));
        let mut ack = Packet::new(PacketKind::Ack, 1, 2, 0, 40);
        assert!(!ack.set_telemetry(0, 5));
        assert_eq!((ack.telemetry(), ack.sack[0].len), (None, 0));
    }
}
