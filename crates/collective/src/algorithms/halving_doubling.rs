//! Rabenseifner's all-reduce over a power-of-two n = 2^L (Thakur, Rabenseifner and Gropp 2005,
//! §4.4, and MPICH's `MPIR_Allreduce_intra_reduce_scatter_allgather`).
//!
//! S is cut into n blocks. Every rank starts holding all of them:
//! * reduce-scatter by recursive vector halving and distance doubling, steps j = 0..L: rank i
//!   exchanges with i XOR 2^j; of the blocks it holds it keeps the half on its side (the
//!   lower half if bit j of i is 0) and sends the other half, S/2, S/4, …, S/n. It ends with
//!   block bitreverse(i) reduced;
//! * all-gather by vector doubling and distance halving, steps L + j for j = 0..L: rank i
//!   sends everything it holds to i XOR 2^(L−1−j), S/n, …, S/2, undoing the reduce-scatter.
//!
//! Each transfer goes as `chunks` chunk transfers; chunk c of step s from rank i waits for
//! chunk c rank i received in step s − 1 (from its partner then) and for rank i's opening
//! delay. Each rank sends 2(n − 1)/n·S in 2L steps.

use super::{Job, pieces_sum};
use crate::schedule::{NodeId, ScheduleError};

/// The blocks rank `i` holds before reduce-scatter step `j` (after step j − 1), as
/// (first, count): all n before step 0, halved on `i`'s side at each step.
fn held_before(n: u32, i: u32, j: u32) -> (u64, u64) {
    let (mut first, mut count) = (0u64, u64::from(n));
    for bit in 0..j {
        count /= 2;
        if i >> bit & 1 == 1 {
            first += count;
        }
    }
    (first, count)
}

pub(super) fn run(job: &mut Job<'_>, size: u64) -> Result<(), ScheduleError> {
    let n = job.ranks;
    let levels = n.ilog2();
    let blocks = u64::from(n);
    let chunks = job.chunks as usize;
    // sent[c · n + i]: chunk c of the previous step, sent by rank i; and that step's distance.
    let mut sent: Vec<NodeId> = Vec::new();
    let mut next: Vec<NodeId> = Vec::with_capacity(chunks * n as usize);
    let mut last_distance = 0;
    for step in 0..2 * levels {
        let reducing = step < levels;
        let j = if reducing {
            step
        } else {
            2 * levels - 1 - step
        };
        let distance = 1u32 << j;
        next.clear();
        for c in 0..job.chunks {
            for i in 0..n {
                let (first, count) = if reducing {
                    let (first, count) = held_before(n, i, j);
                    let half = count / 2;
                    // Keep this side's half, send the other.
                    if i >> j & 1 == 0 {
                        (first + half, half)
                    } else {
                        (first, half)
                    }
                } else {
                    held_before(n, i, j + 1)
                };
                let bytes = job.chunk(pieces_sum(size, blocks, first, first + count), c);
                let received = if step == 0 {
                    None
                } else {
                    sent.get(c as usize * n as usize + (i ^ last_distance) as usize)
                };
                let after = received.map(std::slice::from_ref).unwrap_or_default();
                let node = job.send((i, i ^ distance), bytes, step, after, true)?;
                next.push(node);
            }
        }
        std::mem::swap(&mut sent, &mut next);
        last_distance = distance;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::{spec, transfers};
    use super::super::{Algorithm, AlgorithmError};
    use super::held_before;
    use crate::schedule::Op;

    #[test]
    fn each_rank_sends_two_n_minus_one_over_n_of_s_in_two_log_n_steps() {
        for (n, chunks) in [(2u32, 1u32), (4, 1), (8, 3), (16, 2)] {
            let size = 1_000 * u64::from(n);
            let s = spec(Algorithm::HalvingDoublingAllReduce, n, size, chunks)
                .build()
                .unwrap();
            let each = 2 * u64::from(n - 1) * size / u64::from(n);
            assert!(s.bytes_sent_per_rank().iter().all(|&b| b == each));
            assert!(s.bytes_received_per_rank().iter().all(|&b| b == each));
            let levels = n.ilog2();
            assert_eq!(s.len(), (2 * levels * n * chunks) as usize);
            assert_eq!(s.transfer_depth(), 2 * levels);
        }
    }

    #[test]
    fn ranks_end_the_reduce_scatter_with_their_bit_reversed_block() {
        for i in 0..8 {
            assert_eq!(held_before(8, i, 3), (u64::from(i.reverse_bits() >> 29), 1));
        }
    }

    #[test]
    fn four_ranks_by_hand() {
        // S = 4,000: blocks of 1,000. Steps: distance 1 (2,000 B), 2 (1,000 B), then 2
        // (1,000 B), 1 (2,000 B). Nodes: step · 4 + rank.
        let s = spec(Algorithm::HalvingDoublingAllReduce, 4, 4_000, 1)
            .build()
            .unwrap();
        let want = [(1, 2_000), (2, 1_000), (2, 1_000), (1, 2_000)];
        for (step, &(distance, size)) in want.iter().enumerate() {
            for i in 0..4u32 {
                let node = step as u32 * 4 + i;
                assert_eq!(
                    s.op(node),
                    Op::Transfer {
                        src: i,
                        dst: i ^ distance,
                        bytes: size
                    }
                );
                assert_eq!(s.label(node), (0, step as u32));
                let deps: Vec<u32> = if step == 0 {
                    vec![]
                } else {
                    // What rank i received in the previous step: from its partner then.
                    let before = want[step - 1].0;
                    vec![(step as u32 - 1) * 4 + (i ^ before)]
                };
                assert_eq!(s.deps(node), deps.as_slice());
            }
        }
        // Rank 0 keeps blocks 0..2 and sends 2..4 to rank 1, which sends it 0..2.
        assert_eq!(transfers(&s).next(), Some((0, 1, 2_000)));
    }

    #[test]
    fn uneven_blocks_sum_to_s() {
        // S = 8·100 + 5: blocks 0..5 have 101 bytes.
        let s = spec(Algorithm::HalvingDoublingAllReduce, 8, 805, 1)
            .build()
            .unwrap();
        let sent: u64 = s.bytes_sent_per_rank().iter().sum();
        // Reduce-scatter: everything but the rank's own block, summed over ranks, is 7·S;
        // the all-gather mirrors it.
        assert_eq!(sent, 2 * 7 * 805);
    }

    #[test]
    fn needs_a_power_of_two() {
        let e = spec(Algorithm::HalvingDoublingAllReduce, 6, 6_000, 1).build();
        assert_eq!(e, Err(AlgorithmError::NotPowerOfTwo(6)));
        assert!(e.unwrap_err().to_string().contains("got 6"));
    }
}
