//! Helpers for the algorithms' tests, and the tests every algorithm shares: names, bus
//! bandwidth factors, spec errors, jobs in a shared schedule, and a property test over random
//! valid specs.

use incastsim_core::Duration;
use proptest::prelude::*;

use super::{Algorithm, AlgorithmError, CollectiveSpec, build};
use crate::schedule::{NodeId, Op, Schedule, ScheduleError};

/// One iteration of `algorithm` without compute.
pub(crate) fn spec(algorithm: Algorithm, ranks: u32, size: u64, chunks: u32) -> CollectiveSpec {
    CollectiveSpec {
        algorithm,
        ranks,
        size,
        chunks,
        iterations: 1,
        compute: Duration::ZERO,
    }
}

/// The transfers of `s` as (src, dst, bytes), in creation order.
pub(crate) fn transfers(s: &Schedule) -> impl Iterator<Item = (u32, u32, u64)> + '_ {
    s.ops().iter().filter_map(|op| match *op {
        Op::Transfer { src, dst, bytes } => Some((src, dst, bytes)),
        Op::Delay { .. } => None,
    })
}

const ALL: [Algorithm; 9] = [
    Algorithm::RingAllReduce,
    Algorithm::HalvingDoublingAllReduce,
    Algorithm::DoubleBinaryTreeAllReduce,
    Algorithm::AllToAll,
    Algorithm::PairwiseAllToAll,
    Algorithm::RingAllGather,
    Algorithm::RingReduceScatter,
    Algorithm::Broadcast,
    Algorithm::ParameterServer { servers: 1 },
];

#[test]
fn names_are_the_config_words() {
    let names: Vec<&str> = ALL.iter().map(Algorithm::name).collect();
    assert_eq!(names, Algorithm::NAMES);
    assert_eq!(
        Algorithm::ParameterServer { servers: 7 }.name(),
        "parameter_server"
    );
}

#[test]
fn bus_bandwidth_factors_are_nccls() {
    let f = |a: Algorithm| a.bus_bandwidth_factor(8);
    for a in &ALL[..3] {
        assert_eq!(f(*a), 2.0 * 7.0 / 8.0);
    }
    for a in &ALL[3..7] {
        assert_eq!(f(*a), 7.0 / 8.0);
    }
    assert_eq!(f(Algorithm::Broadcast), 1.0);
    assert_eq!(f(Algorithm::ParameterServer { servers: 2 }), 1.0);
}

#[test]
fn bad_specs_are_errors_that_name_the_value() {
    let ok = spec(Algorithm::RingAllReduce, 4, 4_000, 2);
    assert_eq!(ok.validate(), Ok(()));
    let cases = [
        (
            CollectiveSpec { ranks: 1, ..ok },
            AlgorithmError::TooFewRanks {
                algorithm: "ring_allreduce",
                ranks: 1,
            },
            "at least 2 ranks, got 1",
        ),
        (
            CollectiveSpec { chunks: 0, ..ok },
            AlgorithmError::NoChunks,
            "chunks must be at least 1",
        ),
        (
            CollectiveSpec {
                iterations: 0,
                ..ok
            },
            AlgorithmError::NoIterations,
            "iterations must be at least 1",
        ),
        (
            CollectiveSpec { size: 7, ..ok },
            AlgorithmError::TooSmall {
                algorithm: "ring_allreduce",
                size: 7,
                ranks: 4,
                chunks: 2,
                min: 8,
            },
            "size 7 B is too small: ring_allreduce with 4 ranks and 2 chunks needs at least 8 B",
        ),
        (
            spec(Algorithm::DoubleBinaryTreeAllReduce, 64, 5, 3),
            AlgorithmError::TooSmall {
                algorithm: "double_binary_tree_allreduce",
                size: 5,
                ranks: 64,
                chunks: 3,
                min: 6,
            },
            "needs at least 6 B",
        ),
        (
            spec(Algorithm::Broadcast, 3, 0, 1),
            AlgorithmError::TooSmall {
                algorithm: "broadcast",
                size: 0,
                ranks: 3,
                chunks: 1,
                min: 1,
            },
            "needs at least 1 B",
        ),
        (
            spec(Algorithm::PairwiseAllToAll, 100_000, 1 << 40, 1),
            AlgorithmError::TooManyTransfers {
                transfers: 100_000 * 99_999,
                iterations: 1,
            },
            "9999900000 transfers",
        ),
    ];
    for (bad, error, text) in cases {
        assert_eq!(build(&bad), Err(error.clone()));
        assert!(error.to_string().contains(text), "{error}");
    }
}

#[test]
fn jobs_share_a_schedule_at_rank_offsets() {
    let mut s = Schedule::new(10);
    let ring = spec(Algorithm::RingAllGather, 4, 400, 1);
    let a2a = CollectiveSpec {
        compute: Duration::from_us(3),
        iterations: 2,
        ..spec(Algorithm::AllToAll, 3, 300, 1)
    };
    let first = ring.build_into(&mut s, 0).unwrap();
    let second = a2a.build_into(&mut s, 7).unwrap();
    assert_eq!(first, 0..12);
    // Two iterations of 3 delays and 6 transfers.
    assert_eq!(second, 12..30);
    for n in second {
        assert!((7..10).contains(&s.op(n).rank()));
        assert!(s.deps(n).iter().all(|&d| d >= 12));
    }
    let sent = s.bytes_sent_per_rank();
    assert_eq!(sent, [300, 300, 300, 300, 0, 0, 0, 400, 400, 400]);
    assert_eq!(
        a2a.build_into(&mut s, 8),
        Err(AlgorithmError::RanksOutOfSchedule {
            first_rank: 8,
            ranks: 3,
            schedule_ranks: 10
        })
    );
    assert!(
        a2a.build_into(&mut s, 8)
            .unwrap_err()
            .to_string()
            .contains("ranks 8..11 do not fit in the schedule's 10 ranks")
    );
    assert_eq!(
        AlgorithmError::from(ScheduleError::TooLarge).to_string(),
        ScheduleError::TooLarge.to_string()
    );
}

#[test]
fn iterations_repeat_the_same_transfers() {
    for algorithm in ALL {
        let one = spec(algorithm, 4, 4_000, 2).build().unwrap();
        let three = CollectiveSpec {
            iterations: 3,
            ..spec(algorithm, 4, 4_000, 2)
        }
        .build()
        .unwrap();
        let sent = |s: &Schedule| s.bytes_sent_per_rank();
        let tripled: Vec<u64> = sent(&one).iter().map(|b| 3 * b).collect();
        assert_eq!(sent(&three), tripled, "{}", algorithm.name());
        // A rank opens the next iteration once the transfers it took part in are done, so
        // iterations follow each other except in the broadcast chain, where rank h is done
        // after hop h and starts the next broadcast while later hops still run: iterations
        // overlap there and each adds one hop.
        let depth = match algorithm {
            Algorithm::Broadcast => one.transfer_depth() + 2,
            _ => 3 * one.transfer_depth(),
        };
        assert_eq!(three.transfer_depth(), depth, "{}", algorithm.name());
        // Iterations 1 and 2 open with 4 zero-length delays each.
        let delays = |s: &Schedule| s.len() - transfers(s).count();
        assert_eq!(delays(&three), 3 * delays(&one) + 2 * 4);
    }
}

/// Bytes all ranks send in one iteration, in closed form.
fn total_bytes(spec: &CollectiveSpec) -> u64 {
    let (n, size) = (u64::from(spec.ranks), spec.size);
    match spec.algorithm {
        Algorithm::RingAllReduce
        | Algorithm::HalvingDoublingAllReduce
        | Algorithm::DoubleBinaryTreeAllReduce => 2 * (n - 1) * size,
        Algorithm::AllToAll
        | Algorithm::PairwiseAllToAll
        | Algorithm::RingAllGather
        | Algorithm::RingReduceScatter
        | Algorithm::Broadcast => (n - 1) * size,
        Algorithm::ParameterServer { servers } => 2 * (n - u64::from(servers)) * size,
    }
}

fn valid_spec() -> impl Strategy<Value = CollectiveSpec> {
    (
        0..9usize,
        2..=9u32,
        1..=3u32,
        1..=3u32,
        0..=2u64,
        0..500u64,
        0..8u32,
    )
        .prop_map(|(a, ranks, chunks, iterations, compute_us, extra, seed)| {
            let algorithm = match ALL[a] {
                Algorithm::ParameterServer { .. } => Algorithm::ParameterServer {
                    servers: 1 + seed % (ranks - 1),
                },
                other => other,
            };
            let ranks = match algorithm {
                Algorithm::HalvingDoublingAllReduce => 1 << (1 + ranks % 3),
                _ => ranks,
            };
            CollectiveSpec {
                algorithm,
                ranks,
                size: algorithm.pieces(ranks) * u64::from(chunks) + extra,
                chunks,
                iterations,
                compute: Duration::from_us(compute_us),
            }
        })
}

proptest! {
    #[test]
    fn valid_specs_build_sound_schedules(spec in valid_spec()) {
        let s = build(&spec).unwrap();
        let sent: u64 = s.bytes_sent_per_rank().iter().sum();
        let received: u64 = s.bytes_received_per_rank().iter().sum();
        prop_assert_eq!(sent, received);
        prop_assert_eq!(sent, u64::from(spec.iterations) * total_bytes(&spec));
        prop_assert_eq!(transfers(&s).count() as u128, spec.transfer_count());

        // Opening delays (step 0 delays: the parameter server's joins are step 1), one bit
        // each; `reach[n]` holds the opening delays node n waits for, directly or not.
        let n = spec.ranks;
        let bit = |rank: u32, iteration: u32| 1u64 << (iteration * n + rank);
        let mut opening = vec![None; (n * spec.iterations) as usize];
        let mut reach = vec![0u64; s.len()];
        for node in 0..s.len() as NodeId {
            let deps = s.deps(node);
            prop_assert!(deps.iter().all(|&d| d < node));
            let mut mask = deps.iter().fold(0, |m, &d| m | reach[d as usize]);
            let (iteration, step) = s.label(node);
            prop_assert!(iteration < spec.iterations);
            match s.op(node) {
                Op::Delay { rank, duration } if step == 0 => {
                    prop_assert_eq!(duration, spec.compute);
                    mask |= bit(rank, iteration);
                    opening[(iteration * n + rank) as usize] = Some(node);
                }
                Op::Delay { duration, .. } => prop_assert_eq!(duration, Duration::ZERO),
                Op::Transfer { src, dst, .. } => {
                    // A rank sends nothing of an iteration before its compute for it.
                    let opened = iteration > 0 || spec.compute > Duration::ZERO;
                    prop_assert_eq!(opened, mask & bit(src, iteration) != 0);
                    // The next iteration waits for this transfer at both ends.
                    if iteration + 1 < spec.iterations {
                        for rank in [src, dst] {
                            let next = opening[((iteration + 1) * n + rank) as usize];
                            prop_assert_eq!(next, None, "opened before its transfers");
                        }
                    }
                }
            }
            reach[node as usize] = mask;
        }
        for node in 0..s.len() as NodeId {
            let (iteration, _) = s.label(node);
            if let Op::Transfer { src, dst, .. } = s.op(node)
                && iteration + 1 < spec.iterations
            {
                for rank in [src, dst] {
                    let next = opening[((iteration + 1) * n + rank) as usize].unwrap();
                    prop_assert!(s.deps(next).contains(&node));
                }
            }
        }
    }
}
