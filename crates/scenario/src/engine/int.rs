//! The INT records of HPCC's data packets, kept beside the packets (`incastsim_core::int`
//! says why): per flow, a ring of records indexed by PSN, one slot of `stride` hops per PSN.
//!
//! Who touches it: a switch egress appends its record when a data packet that carries the
//! INT flag gets the transmitter ([`crate::engine::network::Network`]), the packet counting its
//! records in `sack_count`; the receiver's ACK names the PSN and the count
//! (`engine/roce.rs`); the sender's controller reads them when that ACK arrives. So the
//! records cross the network only inside their packets, as the header they model.
//!
//! A ring slot is reused by PSN `p + entries`: the plan sizes the ring to at least twice the
//! packets a QP may have in flight (its window), so a slot is rewritten only after its ACK came
//! back. A go-back-N resend of PSN `p` rewrites `p`'s slot, so an ACK of the first copy still
//! in flight may read the resend's records: the same hops a moment later.

use incastsim_core::{FlowId, IntHop, MAX_INT_HOPS};

/// Per flow, the INT records of its packets in flight.
pub struct IntStore {
    /// Hop records per PSN slot.
    stride: usize,
    /// Slots per ring − 1 (a power of two minus one).
    mask: u64,
    /// By flow: its ring (`stride` × slots records), empty until its first packet is stamped
    /// and again once the flow has nothing in flight.
    rings: Vec<Box<[IntHop]>>,
    /// Rings of flows that finished, for the next flows (memory follows the flows in flight).
    spare: Vec<Box<[IntHop]>>,
}

/// An unwritten record.
const BLANK: IntHop = IntHop {
    ts: incastsim_core::Time::ZERO,
    tx_bytes: 0,
    qlen_bytes: 0,
    rate: incastsim_core::BitsPerSec(0),
};

impl IntStore {
    /// Rings of at least `slots` PSNs (rounded up to a power of two) of `hops` records each
    /// (at most [`MAX_INT_HOPS`]).
    pub fn new(slots: u64, hops: usize) -> IntStore {
        IntStore {
            stride: hops.clamp(1, MAX_INT_HOPS),
            mask: slots.max(2).next_power_of_two() - 1,
            rings: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// Records per packet: a packet that already has this many gets no more.
    #[inline]
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Writes hop `hop` (< [`IntStore::stride`]) of flow `flow`'s packet `psn`.
    pub fn stamp(&mut self, flow: FlowId, psn: u64, hop: usize, record: IntHop) {
        let f = flow as usize;
        if self.rings.len() <= f {
            self.rings.resize_with(f + 1, Default::default);
        }
        if self.rings[f].is_empty() {
            // At the flow's first stamped packet (after it went quiet: a spare ring).
            self.rings[f] = self.spare.pop().unwrap_or_else(|| {
                vec![BLANK; self.stride * (self.mask as usize + 1)].into_boxed_slice()
            });
        }
        let slot = (psn & self.mask) as usize * self.stride;
        self.rings[f][slot + hop] = record;
    }

    /// The first `hops` records of flow `flow`'s packet `psn` (empty if it has none).
    pub fn records(&self, flow: FlowId, psn: u64, hops: usize) -> &[IntHop] {
        match self.rings.get(flow as usize) {
            Some(r) if !r.is_empty() => {
                let slot = (psn & self.mask) as usize * self.stride;
                &r[slot..slot + hops.min(self.stride)]
            }
            _ => &[],
        }
    }

    /// Flow `flow` has nothing in flight: its ring goes to the spares (an ACK of a stray
    /// duplicate then finds no records, and its controller skips it).
    pub fn release(&mut self, flow: FlowId) {
        if let Some(r) = self.rings.get_mut(flow as usize)
            && !r.is_empty()
        {
            self.spare.push(std::mem::take(r));
        }
    }

    /// Heap bytes of the rings (for the memory report).
    pub fn heap_bytes(&self) -> usize {
        self.rings
            .iter()
            .chain(&self.spare)
            .map(|r| std::mem::size_of_val(&**r))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use incastsim_core::{BitsPerSec, Time};

    /// Records land in their PSN's slot, a ring of 4 reuses slot 1 for PSN 5, and a flow
    /// never stamped has none.
    #[test]
    fn slots_by_psn() {
        let mut s = IntStore::new(3, 2);
        let rec = |t| IntHop {
            ts: Time(t),
            tx_bytes: t,
            qlen_bytes: 0,
            rate: BitsPerSec::gbps(100),
        };
        s.stamp(7, 1, 0, rec(10));
        s.stamp(7, 1, 1, rec(11));
        assert_eq!(s.records(7, 1, 2), [rec(10), rec(11)]);
        assert_eq!(s.records(7, 1, 9).len(), 2);
        s.stamp(7, 5, 0, rec(50));
        assert_eq!(s.records(7, 1, 1), [rec(50)]);
        assert!(s.records(3, 1, 2).is_empty());
        assert!(s.records(70, 1, 2).is_empty());
        assert_eq!(s.heap_bytes(), 4 * 2 * std::mem::size_of::<IntHop>());
        // A finished flow's ring serves the next flow.
        s.release(7);
        assert!(s.records(7, 1, 2).is_empty());
        s.stamp(9, 0, 0, rec(1));
        assert_eq!(s.heap_bytes(), 4 * 2 * std::mem::size_of::<IntHop>());
        assert_eq!(s.records(9, 0, 1), [rec(1)]);
    }
}
