//! Broadcast of S from rank 0 along the chain 0 → 1 → … → n − 1, pipelined in `chunks`
//! chunks (NCCL's ring broadcast, the ring cut open after the root; Thakur, Rabenseifner and
//! Gropp 2005 §4.1 for pipelined broadcast).
//!
//! Hop h (step h, 0..n − 1) is rank h → rank h + 1. Chunk c on hop h waits for chunk c on
//! hop h − 1 (rank h has received it) and for rank h's opening delay. Every rank but the
//! last sends S, every rank but the root receives S, and the depth is n − 1.

use super::Job;
use crate::schedule::{NodeId, ScheduleError};

pub(super) fn run(job: &mut Job<'_>, size: u64) -> Result<(), ScheduleError> {
    // received[c]: chunk c on the previous hop.
    let mut received: Vec<NodeId> = Vec::with_capacity(job.chunks as usize);
    for hop in 0..job.ranks - 1 {
        for c in 0..job.chunks {
            let bytes = job.chunk(size, c);
            let after = received.get(c as usize).map(std::slice::from_ref);
            let node = job.send((hop, hop + 1), bytes, hop, after.unwrap_or_default(), true)?;
            match received.get_mut(c as usize) {
                Some(slot) => *slot = node,
                None => received.push(node),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::Algorithm;
    use super::super::tests::spec;
    use crate::schedule::Op;

    #[test]
    fn a_chain_from_rank_zero() {
        for (n, chunks) in [(2u32, 1u32), (5, 4), (9, 1)] {
            let s = spec(Algorithm::Broadcast, n, 1_000, chunks)
                .build()
                .unwrap();
            let sent = s.bytes_sent_per_rank();
            let received = s.bytes_received_per_rank();
            for r in 0..n as usize {
                assert_eq!(sent[r], if r + 1 < n as usize { 1_000 } else { 0 });
                assert_eq!(received[r], if r > 0 { 1_000 } else { 0 });
            }
            assert_eq!(s.len(), ((n - 1) * chunks) as usize);
            assert_eq!(s.transfer_depth(), n - 1);
        }
    }

    #[test]
    fn four_ranks_three_chunks_by_hand() {
        // 1,000 bytes in chunks of 334, 333, 333; node = hop·3 + c.
        let s = spec(Algorithm::Broadcast, 4, 1_000, 3).build().unwrap();
        for hop in 0..3u32 {
            for c in 0..3u32 {
                let node = hop * 3 + c;
                let bytes = if c == 0 { 334 } else { 333 };
                assert_eq!(
                    s.op(node),
                    Op::Transfer {
                        src: hop,
                        dst: hop + 1,
                        bytes
                    }
                );
                assert_eq!(s.label(node), (0, hop));
                let want: Vec<u32> = if hop == 0 { vec![] } else { vec![node - 3] };
                assert_eq!(s.deps(node), want.as_slice());
            }
        }
    }
}
