//! All-to-all: every rank sends piece j of its S-byte buffer (S cut into n pieces) to rank j.
//!
//! * At once: every transfer i → j (j ≠ i) starts when rank i's opening delay is done; one
//!   step (0). This is the naive all-to-all of NCCL's `ncclGroupStart` of sends and receives.
//! * Pairwise exchange (Thakur, Rabenseifner and Gropp 2005, §4.5): rounds r = 1..n, step
//!   r − 1; in round r rank i sends to i + r (mod n) and receives from i − r (mod n). Rank i's
//!   round r + 1 send waits for its round r send and its round r receive. For n = 1,024 that
//!   is 1,047,552 transfers with two dependencies each.
//!
//! Each piece goes as `chunks` chunk transfers; in the pairwise exchange chunk c waits for
//! chunk c of the previous round.

use super::{Job, piece};
use crate::schedule::{NodeId, ScheduleError};

pub(super) fn run_at_once(job: &mut Job<'_>, size: u64) -> Result<(), ScheduleError> {
    let n = job.ranks;
    for i in 0..n {
        for j in (0..n).filter(|&j| j != i) {
            let bytes = piece(size, u64::from(n), u64::from(j));
            for c in 0..job.chunks {
                job.send((i, j), job.chunk(bytes, c), 0, &[], true)?;
            }
        }
    }
    Ok(())
}

pub(super) fn run_pairwise(job: &mut Job<'_>, size: u64) -> Result<(), ScheduleError> {
    let n = job.ranks;
    let chunks = job.chunks as usize;
    // sent[c · n + i]: chunk c of the previous round, sent by rank i.
    let mut sent: Vec<NodeId> = Vec::new();
    let mut next: Vec<NodeId> = Vec::with_capacity(chunks * n as usize);
    for round in 1..n {
        next.clear();
        for c in 0..job.chunks {
            for i in 0..n {
                let dst = (i + round) % n;
                let bytes = job.chunk(piece(size, u64::from(n), u64::from(dst)), c);
                let node = if round == 1 {
                    job.send((i, dst), bytes, 0, &[], true)?
                } else {
                    let row = c as usize * n as usize;
                    let from = (i + n - (round - 1)) % n;
                    let after = [sent[row + i as usize], sent[row + from as usize]];
                    job.send((i, dst), bytes, round - 1, &after, false)?
                };
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
    fn every_rank_sends_n_minus_one_pieces() {
        for algorithm in [Algorithm::AllToAll, Algorithm::PairwiseAllToAll] {
            for (n, chunks) in [(2u32, 1u32), (5, 1), (6, 3)] {
                let size = 600 * u64::from(n);
                let s = spec(algorithm, n, size, chunks).build().unwrap();
                let each = u64::from(n - 1) * 600;
                assert!(s.bytes_sent_per_rank().iter().all(|&b| b == each));
                assert!(s.bytes_received_per_rank().iter().all(|&b| b == each));
                assert_eq!(s.len(), (n * (n - 1) * chunks) as usize);
                let depth = if algorithm == Algorithm::AllToAll {
                    1
                } else {
                    n - 1
                };
                assert_eq!(s.transfer_depth(), depth);
            }
        }
    }

    #[test]
    fn rank_j_gets_piece_j() {
        // S = 3·100 + 1: piece 0 has 101 bytes.
        let s = spec(Algorithm::AllToAll, 3, 301, 1).build().unwrap();
        let got: Vec<_> = transfers(&s).collect();
        assert_eq!(
            got,
            [
                (0, 1, 100),
                (0, 2, 100),
                (1, 0, 101),
                (1, 2, 100),
                (2, 0, 101),
                (2, 1, 100)
            ]
        );
        assert!((0..6).all(|n| s.deps(n).is_empty() && s.label(n) == (0, 0)));
    }

    #[test]
    fn four_ranks_pairwise_by_hand() {
        // Node = (round − 1)·4 + i; round r: i → i + r.
        let s = spec(Algorithm::PairwiseAllToAll, 4, 400, 1)
            .build()
            .unwrap();
        for round in 1..4u32 {
            for i in 0..4u32 {
                let node = (round - 1) * 4 + i;
                let dst = (i + round) % 4;
                assert_eq!(
                    s.op(node),
                    Op::Transfer {
                        src: i,
                        dst,
                        bytes: 100
                    }
                );
                assert_eq!(s.label(node), (0, round - 1));
                let want: Vec<u32> = if round == 1 {
                    vec![]
                } else {
                    // Its own last send, and what it received last: from i − (round − 1).
                    let before = (round - 2) * 4;
                    vec![before + i, before + (i + 4 - (round - 1)) % 4]
                };
                assert_eq!(s.deps(node), want.as_slice(), "round {round} rank {i}");
            }
        }
    }

    #[test]
    fn the_first_round_waits_for_the_compute() {
        let s = CollectiveSpec {
            compute: Duration::from_us(1),
            ..spec(Algorithm::PairwiseAllToAll, 3, 300, 1)
        }
        .build()
        .unwrap();
        // Delays 0..3, round 1 at 3..6 waiting for them, round 2 only for round 1.
        assert_eq!(s.deps(4), &[1]);
        assert_eq!(s.deps(7), &[4, 3]);
    }

    #[test]
    fn a_thousand_ranks_pairwise_builds_fast() {
        let started = std::time::Instant::now();
        let s = spec(Algorithm::PairwiseAllToAll, 1_024, 1 << 20, 1)
            .build()
            .unwrap();
        let elapsed = started.elapsed();
        assert_eq!(s.len(), 1_047_552);
        assert_eq!(s.dep_count(), 2 * (1_047_552 - 1_024));
        assert_eq!(s.bytes_sent_per_rank()[17], 1_023 * 1_024);
        // Generous, for a loaded machine; it takes some tens of milliseconds.
        assert!(elapsed.as_secs_f64() < 2.0, "{elapsed:?}");
    }
}
