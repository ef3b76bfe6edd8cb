//! Ring all-reduce, all-gather and reduce-scatter (NCCL's ring; Thakur, Rabenseifner and
//! Gropp 2005, "Optimization of Collective Communication Operations in MPICH", §4).
//!
//! S is cut into n pieces. In every step rank i sends one piece to rank i + 1 (mod n):
//! * reduce-scatter, steps 0..n − 1: in step s, piece i − s − 1 (mod n), the partial sum it has
//!   just received added to its own; after n − 1 steps rank i holds piece i reduced;
//! * all-gather, steps 0..n − 1: in step t, piece i − t (mod n), first its own and then the
//!   one it has just received;
//! * all-reduce: the reduce-scatter (steps 0..n − 1), then the all-gather (steps n − 1..2(n − 1)).
//!
//! Each piece goes as `chunks` chunk transfers. Chunk c of step s from rank i waits for chunk c
//! of step s − 1 received by rank i (from rank i − 1), and for rank i's opening delay (its
//! reduction needs its own data); step 0 waits only for the opening delay.

use super::{Job, piece};
use crate::schedule::{NodeId, ScheduleError};

/// Which phases to run.
pub(super) struct Phases {
    reduce_scatter: bool,
    all_gather: bool,
}

pub(super) const ALL_REDUCE: Phases = Phases {
    reduce_scatter: true,
    all_gather: true,
};
pub(super) const ALL_GATHER: Phases = Phases {
    reduce_scatter: false,
    all_gather: true,
};
pub(super) const REDUCE_SCATTER: Phases = Phases {
    reduce_scatter: true,
    all_gather: false,
};

pub(super) fn run(job: &mut Job<'_>, size: u64, phases: Phases) -> Result<(), ScheduleError> {
    let n = job.ranks;
    let parts = u64::from(n);
    // Per step, the piece rank i sends is i + shift (mod n).
    let reduce_scatter = (0..n - 1).map(|s| n - 1 - s);
    let all_gather = (0..n - 1).map(|t| n - t);
    let shifts: Vec<u32> = match (phases.reduce_scatter, phases.all_gather) {
        (true, true) => reduce_scatter.chain(all_gather).collect(),
        (true, false) => reduce_scatter.collect(),
        _ => all_gather.collect(),
    };
    let chunks = job.chunks as usize;
    // sent[c · n + i]: chunk c of the previous step, sent by rank i.
    let mut sent: Vec<NodeId> = Vec::new();
    let mut next: Vec<NodeId> = Vec::with_capacity(chunks * n as usize);
    for (step, &shift) in shifts.iter().enumerate() {
        next.clear();
        for c in 0..job.chunks {
            for i in 0..n {
                let bytes = job.chunk(piece(size, parts, u64::from((i + shift) % n)), c);
                let from = (i + n - 1) % n;
                let received = sent.get(c as usize * n as usize + from as usize);
                let after = received.map(std::slice::from_ref).unwrap_or_default();
                let node = job.send((i, (i + 1) % n), bytes, step as u32, after, true)?;
                next.push(node);
            }
        }
        std::mem::swap(&mut sent, &mut next);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::{spec, transfers};
    use super::super::{Algorithm, CollectiveSpec};
    use crate::schedule::Op;
    use incastsim_core::Duration;

    #[test]
    fn all_reduce_sends_two_n_minus_one_over_n_of_s() {
        for (n, chunks) in [(2, 1), (4, 1), (4, 3), (7, 2)] {
            let size = 12_000 * u64::from(n);
            let s = spec(Algorithm::RingAllReduce, n, size, chunks)
                .build()
                .unwrap();
            let each = 2 * u64::from(n - 1) * size / u64::from(n);
            assert!(s.bytes_sent_per_rank().iter().all(|&b| b == each));
            assert!(s.bytes_received_per_rank().iter().all(|&b| b == each));
            assert_eq!(s.len(), (2 * (n - 1) * n * chunks) as usize);
            // Chunks are independent chains: the depth does not grow with them.
            assert_eq!(s.transfer_depth(), 2 * (n - 1));
        }
    }

    #[test]
    fn a_remainder_goes_to_the_first_pieces() {
        // S = 4·100 + 3: pieces 101, 101, 101, 100. Rank i sends every piece but piece i in
        // the reduce-scatter and every piece but piece i + 1 in the all-gather.
        let s = spec(Algorithm::RingAllReduce, 4, 403, 2).build().unwrap();
        let pieces = [101, 101, 101, 100];
        let sent = s.bytes_sent_per_rank();
        for i in 0..4 {
            assert_eq!(sent[i], 2 * 403 - pieces[i] - pieces[(i + 1) % 4]);
        }
        let total: u64 = sent.iter().sum();
        assert_eq!(total, s.bytes_received_per_rank().iter().sum());
        // Chunks of a 101-byte piece: 51 and 50.
        assert!(transfers(&s).all(|(_, _, bytes)| bytes == 50 || bytes == 51));
    }

    #[test]
    fn all_gather_and_reduce_scatter_send_n_minus_one_pieces() {
        for algorithm in [Algorithm::RingAllGather, Algorithm::RingReduceScatter] {
            let s = spec(algorithm, 5, 5_000, 2).build().unwrap();
            assert!(s.bytes_sent_per_rank().iter().all(|&b| b == 4_000));
            assert!(s.bytes_received_per_rank().iter().all(|&b| b == 4_000));
            assert_eq!(s.len(), 4 * 5 * 2);
            assert_eq!(s.transfer_depth(), 4);
        }
    }

    #[test]
    fn step_s_waits_for_the_same_chunk_of_step_s_minus_one_from_the_left() {
        let s = spec(Algorithm::RingAllReduce, 4, 4_000, 2).build().unwrap();
        // Nodes are created step by step, chunk by chunk, rank by rank: node = (s·2 + c)·4 + i.
        let node = |step: u32, c: u32, i: u32| (step * 2 + c) * 4 + i;
        for step in 0..6 {
            for c in 0..2 {
                for i in 0..4 {
                    let me = node(step, c, i);
                    assert_eq!(s.label(me), (0, step));
                    let Op::Transfer { src, dst, bytes } = s.op(me) else {
                        panic!("node {me} is not a transfer");
                    };
                    assert_eq!((src, dst, bytes), (i, (i + 1) % 4, 500));
                    let want: Vec<u32> = if step == 0 {
                        vec![]
                    } else {
                        vec![node(step - 1, c, (i + 3) % 4)]
                    };
                    assert_eq!(
                        s.deps(me),
                        want.as_slice(),
                        "step {step} chunk {c} rank {i}"
                    );
                }
            }
        }
    }

    #[test]
    fn iterations_chain_through_compute_delays() {
        let s = CollectiveSpec {
            compute: Duration::from_us(10),
            iterations: 3,
            ..spec(Algorithm::RingAllGather, 3, 300, 1)
        }
        .build()
        .unwrap();
        // Per iteration: 3 delays and 2 steps × 3 transfers.
        assert_eq!(s.len(), 3 * (3 + 6));
        assert_eq!(s.transfer_depth(), 3 * 2);
        // Iteration 1's delay at rank 0 waits for what rank 0 sent (0→1) and received (2→0)
        // in iteration 0: nodes 3..9 are iteration 0's transfers, (step, rank) = ((n−3)/3, (n−3)%3).
        assert_eq!(
            s.op(9),
            Op::Delay {
                rank: 0,
                duration: Duration::from_us(10)
            }
        );
        assert_eq!(s.label(9), (1, 0));
        assert_eq!(s.deps(9), &[3, 5, 6, 8]);
        // Step 1 of iteration 1 at rank 1 waits for step 0 from rank 0 and rank 1's delay.
        assert_eq!(s.deps(16), &[12, 10]);
    }
}
