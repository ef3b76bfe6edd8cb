//! Queue disciplines: the one place a port decides to admit, mark or drop a packet.

use incastsim_core::{Packet, Time};

/// How much a port's buffer holds when a packet arrives (the packet itself not included).
/// The packet being serialized still occupies the buffer until its last bit leaves: this is a
/// store-and-forward switch's shared buffer, as in htsim and real hardware.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Occupancy {
    pub bytes: u64,
    pub packets: u32,
}

/// A buffer limit, in bytes or in packets, or none (a host NIC by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferLimit {
    Bytes(u64),
    Packets(u32),
    Unlimited,
}

impl BufferLimit {
    /// Whether a packet of `wire_bytes` fits on top of `occ`.
    #[inline]
    pub fn fits(&self, occ: Occupancy, wire_bytes: u32) -> bool {
        match *self {
            BufferLimit::Bytes(b) => occ.bytes + wire_bytes as u64 <= b,
            BufferLimit::Packets(p) => occ.packets < p,
            BufferLimit::Unlimited => true,
        }
    }
    /// Invariant check: the buffer is within its limit.
    pub fn holds(&self, occ: Occupancy) -> bool {
        match *self {
            BufferLimit::Bytes(b) => occ.bytes <= b,
            BufferLimit::Packets(p) => occ.packets <= p,
            BufferLimit::Unlimited => true,
        }
    }
}

/// Why a packet was dropped. Every drop is counted with exactly one reason, at exactly one place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// The output buffer had no room.
    BufferFull,
    /// An active queue management discipline chose to drop.
    Aqm,
    /// Random loss on the link (Bernoulli, per direction).
    LinkLoss,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Admit,
    /// Admitted, with the ECN codepoint set to CE by the discipline.
    AdmitMarked,
    Drop(DropReason),
}

/// A queue discipline decides at enqueue time. Implement it for a new AQM, then add a variant to
/// [`QueueDisc`] so the per-packet path stays an enum match (no dynamic dispatch).
pub trait QueueDiscipline {
    /// Decides the fate of `packet` arriving at `now` when the buffer holds `occupancy`.
    fn on_enqueue(&mut self, packet: &mut Packet, occupancy: Occupancy, now: Time) -> Verdict;
    /// The hard limit of the buffer (checked as an invariant).
    fn limit(&self) -> BufferLimit;
}

/// Drop-tail: admit while the packet fits the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DropTail {
    pub limit: BufferLimit,
}

impl QueueDiscipline for DropTail {
    #[inline]
    fn on_enqueue(&mut self, packet: &mut Packet, occ: Occupancy, _now: Time) -> Verdict {
        if self.limit.fits(occ, packet.wire_bytes()) {
            Verdict::Admit
        } else {
            Verdict::Drop(DropReason::BufferFull)
        }
    }
    fn limit(&self) -> BufferLimit {
        self.limit
    }
}

/// The queue disciplines a port can run, dispatched by `match`.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueDisc {
    DropTail(DropTail),
}

impl QueueDisc {
    pub fn drop_tail(limit: BufferLimit) -> QueueDisc {
        QueueDisc::DropTail(DropTail { limit })
    }
}

impl QueueDiscipline for QueueDisc {
    #[inline]
    fn on_enqueue(&mut self, packet: &mut Packet, occ: Occupancy, now: Time) -> Verdict {
        match self {
            QueueDisc::DropTail(d) => d.on_enqueue(packet, occ, now),
        }
    }
    fn limit(&self) -> BufferLimit {
        match self {
            QueueDisc::DropTail(d) => d.limit(),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use incastsim_core::{Ecn, PacketKind};

    pub(crate) fn pkt(payload: u32) -> Packet {
        Packet {
            seq: 0,
            ack: 0,
            timestamp_ps: 0,
            flow: 0,
            src: 0,
            dst: 1,
            payload_bytes: payload,
            window_bytes: 0,
            header_bytes: 40,
            kind: PacketKind::Data,
            flags: 0,
            ecn: Ecn::NotEct,
            dscp: 0,
        }
    }

    #[test]
    fn drop_tail_in_bytes_counts_headers() {
        let mut q = DropTail {
            limit: BufferLimit::Bytes(32_000),
        };
        let mut p = pkt(1000);
        // 30 full frames (31,200 B) fit; a 31st (32,240 B) does not.
        let occ = Occupancy {
            bytes: 29 * 1040,
            packets: 29,
        };
        assert_eq!(q.on_enqueue(&mut p, occ, Time::ZERO), Verdict::Admit);
        let occ = Occupancy {
            bytes: 30 * 1040,
            packets: 30,
        };
        assert_eq!(
            q.on_enqueue(&mut p, occ, Time::ZERO),
            Verdict::Drop(DropReason::BufferFull)
        );
        // A 40-byte ACK still fits in the remaining 800 bytes.
        let mut ack = pkt(0);
        assert_eq!(q.on_enqueue(&mut ack, occ, Time::ZERO), Verdict::Admit);
    }

    #[test]
    fn drop_tail_in_packets() {
        let mut q = DropTail {
            limit: BufferLimit::Packets(100),
        };
        let mut p = pkt(1460);
        let occ = Occupancy {
            bytes: 0,
            packets: 99,
        };
        assert_eq!(q.on_enqueue(&mut p, occ, Time::ZERO), Verdict::Admit);
        let occ = Occupancy {
            bytes: 0,
            packets: 100,
        };
        assert_eq!(
            q.on_enqueue(&mut p, occ, Time::ZERO),
            Verdict::Drop(DropReason::BufferFull)
        );
    }
}
