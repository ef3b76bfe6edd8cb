//! Parameter server (Li et al. 2014, "Scaling Distributed Machine Learning with the Parameter
//! Server"; the many-to-one push is the incast this simulator studies).
//!
//! Ranks 0..m are servers and m..n workers (W = n − m). S is cut into m shards; shard s lives
//! on server s, and each shard goes as `chunks` chunk transfers.
//! * Step 0, push: every worker sends shard s to server s, for every s, at once (after its
//!   opening delay).
//! * Step 1, pull: per server s and chunk c, a join (a zero-length delay at the server,
//!   labelled step 1) waits for chunk c of shard s from every worker and for the server's
//!   opening delay; the server then sends chunk c of shard s to every worker. The join keeps
//!   the dependencies at W + 1 per (server, chunk) instead of W per pull.
//!
//! A worker sends and receives S; server s receives and sends W × shard s. The depth is 2.

use super::{Job, piece};
use crate::schedule::{NodeId, ScheduleError};

pub(super) fn run(job: &mut Job<'_>, size: u64, servers: u32) -> Result<(), ScheduleError> {
    let (m, n) = (servers, job.ranks);
    let workers = (n - m) as usize;
    let shard = |s: u32| piece(size, u64::from(m), u64::from(s));
    // pushes[(c · m + s) · W + w]: chunk c of shard s from worker m + w.
    let mut pushes = vec![0 as NodeId; job.chunks as usize * m as usize * workers];
    for c in 0..job.chunks {
        for w in m..n {
            for s in 0..m {
                let node = job.send((w, s), job.chunk(shard(s), c), 0, &[], true)?;
                let at = (c as usize * m as usize + s as usize) * workers + (w - m) as usize;
                pushes[at] = node;
            }
        }
    }
    for c in 0..job.chunks {
        for s in 0..m {
            let at = (c as usize * m as usize + s as usize) * workers;
            let join = job.join(s, 1, &pushes[at..at + workers])?;
            for w in m..n {
                job.send((s, w), job.chunk(shard(s), c), 1, &[join], false)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::{spec, transfers};
    use super::super::{Algorithm, AlgorithmError};
    use crate::schedule::Op;
    use incastsim_core::Duration;

    fn ps(servers: u32) -> Algorithm {
        Algorithm::ParameterServer { servers }
    }

    #[test]
    fn workers_push_and_pull_s_servers_carry_their_shard_per_worker() {
        for (n, m, chunks) in [(2u32, 1u32, 1u32), (6, 2, 3), (9, 3, 1)] {
            let size = 3_000 * u64::from(m * chunks);
            let s = spec(ps(m), n, size, chunks).build().unwrap();
            let (sent, received) = (s.bytes_sent_per_rank(), s.bytes_received_per_rank());
            let shard = size / u64::from(m);
            for r in 0..n {
                let want = if r < m {
                    u64::from(n - m) * shard
                } else {
                    size
                };
                assert_eq!((sent[r as usize], received[r as usize]), (want, want));
            }
            let pushes = (n - m) * m * chunks;
            assert_eq!(transfers(&s).count(), 2 * pushes as usize);
            assert_eq!(s.len(), (2 * pushes + m * chunks) as usize);
            assert_eq!(s.transfer_depth(), 2);
        }
    }

    #[test]
    fn one_server_three_workers_by_hand() {
        let s = spec(ps(1), 4, 90, 1).build().unwrap();
        // Pushes 1→0, 2→0, 3→0 (nodes 0..3), the join (3), pulls 0→1, 0→2, 0→3.
        for w in 1..4u32 {
            let push = w - 1;
            assert_eq!(
                s.op(push),
                Op::Transfer {
                    src: w,
                    dst: 0,
                    bytes: 90
                }
            );
            assert_eq!((s.label(push), s.deps(push)), ((0, 0), &[] as &[u32]));
            let pull = 3 + w;
            assert_eq!(
                s.op(pull),
                Op::Transfer {
                    src: 0,
                    dst: w,
                    bytes: 90
                }
            );
            assert_eq!((s.label(pull), s.deps(pull)), ((0, 1), &[3u32] as &[u32]));
        }
        assert_eq!(
            s.op(3),
            Op::Delay {
                rank: 0,
                duration: Duration::ZERO
            }
        );
        assert_eq!(s.deps(3), &[0, 1, 2]);
        assert_eq!(s.label(3), (0, 1));
    }

    #[test]
    fn needs_a_server_and_a_worker() {
        for m in [0, 4, 5] {
            let e = spec(ps(m), 4, 1_000, 1).build().unwrap_err();
            assert_eq!(
                e,
                AlgorithmError::Servers {
                    servers: m,
                    ranks: 4
                }
            );
            assert!(e.to_string().contains("1 to 3 servers"), "{e}");
        }
    }
}
