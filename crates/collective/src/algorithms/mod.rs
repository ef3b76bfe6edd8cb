//! Collective algorithms as [`Schedule`]s: a [`CollectiveSpec`] (algorithm, ranks, size,
//! chunks, iterations, compute gap) is checked once and then built into transfers and delays.
//!
//! # Conventions shared by every algorithm
//!
//! * **Size.** `size` is S, the buffer size in bytes in the meaning of nccl-tests
//!   (`doc/PERFORMANCE.md`): the all-reduce and broadcast buffer; the all-gather *output* and
//!   reduce-scatter *input* (each rank owns S/n of it); the all-to-all send buffer of one rank
//!   (S/n to each rank, itself included); the gradient a parameter-server worker pushes.
//! * **Exact split.** S is cut into `parts` integer pieces that sum to S: piece k has
//!   ⌊S/parts⌋ bytes plus one if k < S mod parts (the remainder goes to the first pieces). A
//!   piece sent as a transfer is cut the same way into `chunks` chunk transfers. A spec whose
//!   smallest chunk would be 0 bytes is refused ([`AlgorithmError::TooSmall`]).
//! * **Chunks.** Chunk c of a step waits only for chunk c of the steps it depends on (NCCL
//!   pipelines a collective in chunks along its ring or tree); chunks do not wait for each
//!   other, so the network decides how concurrent chunk flows share a link.
//! * **Labels.** Every node is labelled (iteration, step), the step counted from 0 within the
//!   iteration as each algorithm's documentation says.
//! * **Iterations.** Before iteration k a rank runs a delay of `compute` (labelled (k, 0)); in
//!   iteration 0 only when `compute` is not zero. The delay before iteration k + 1 waits for
//!   every transfer of iteration k that the rank sent or received, and every transfer a rank
//!   sends in iteration k waits for the rank's delay, directly or through its other
//!   dependencies: a rank takes no part in an iteration before its compute for it is done. A
//!   receiver is not waited for (its buffers are assumed posted). The opening delays add at
//!   most three dependencies per transfer: the next delays wait for it at both ends, and it
//!   may wait for its sender's delay.
//! * **Ranks** are the job's own, 0..`ranks`; [`CollectiveSpec::build_into`] shifts them into
//!   a larger schedule shared by several jobs.

mod all_to_all;
mod broadcast;
mod halving_doubling;
mod parameter_server;
mod ring;
mod tree;

use std::ops::Range;

use incastsim_core::Duration;

use crate::schedule::{NodeId, Op, Schedule, ScheduleError};

/// A collective algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Ring all-reduce: a ring reduce-scatter (steps 0..n − 1) then a ring all-gather (steps
    /// n − 1..2(n − 1)); in each step rank i sends a piece of S/n to rank i + 1.
    RingAllReduce,
    /// Rabenseifner's all-reduce: a reduce-scatter by recursive vector halving and distance
    /// doubling (steps 0..L, partner i XOR 2^step, S/2 down to S/n), then an all-gather by
    /// vector doubling and distance halving (steps L..2L, S/n up to S/2), L = log2 n. The
    /// rank count must be a power of two.
    HalvingDoublingAllReduce,
    /// NCCL's double binary tree all-reduce: two trees (NCCL's `ncclGetDtree`) each reduce
    /// half of S up to their root and broadcast it back down, pipelined in chunks; the steps
    /// are the tree levels (⌈log2 n⌉ up, as many down).
    DoubleBinaryTreeAllReduce,
    /// Every rank sends S/n to every other rank, all at once (step 0).
    AllToAll,
    /// All-to-all in n − 1 rounds: in round r (step r − 1) rank i sends S/n to rank i + r
    /// (mod n), after its round r − 1 send and receive.
    PairwiseAllToAll,
    /// Ring all-gather: steps 0..n − 1, rank i sending S/n to rank i + 1 in each.
    RingAllGather,
    /// Ring reduce-scatter: steps 0..n − 1, rank i sending S/n to rank i + 1 in each.
    RingReduceScatter,
    /// Broadcast of S from rank 0 along the chain 0 → 1 → … → n − 1 (hop h is step h),
    /// pipelined in chunks.
    Broadcast,
    /// Ranks 0..`servers` are parameter servers, the others workers: each worker pushes
    /// S/servers to every server at once (step 0: the incast), and each server sends its
    /// aggregated shard back to every worker once every worker's push has arrived (step 1,
    /// through a zero-length join delay at the server labelled step 1).
    ParameterServer {
        /// Server ranks, 1 to ranks − 1.
        servers: u32,
    },
}

impl Algorithm {
    /// The configuration words of the algorithms, in declaration order.
    pub const NAMES: [&'static str; 9] = [
        "ring_allreduce",
        "halving_doubling_allreduce",
        "double_binary_tree_allreduce",
        "all_to_all",
        "pairwise_all_to_all",
        "ring_allgather",
        "ring_reduce_scatter",
        "broadcast",
        "parameter_server",
    ];

    /// The algorithm's configuration word (snake case, one of [`Algorithm::NAMES`]).
    pub fn name(&self) -> &'static str {
        let i = match self {
            Algorithm::RingAllReduce => 0,
            Algorithm::HalvingDoublingAllReduce => 1,
            Algorithm::DoubleBinaryTreeAllReduce => 2,
            Algorithm::AllToAll => 3,
            Algorithm::PairwiseAllToAll => 4,
            Algorithm::RingAllGather => 5,
            Algorithm::RingReduceScatter => 6,
            Algorithm::Broadcast => 7,
            Algorithm::ParameterServer { .. } => 8,
        };
        Algorithm::NAMES[i]
    }

    /// NCCL's bus-bandwidth factor for `ranks` ranks: bus bandwidth = S / time × factor, so
    /// that it compares with a rank's link speed whatever the collective (nccl-tests
    /// `doc/PERFORMANCE.md`): all-reduce 2(n − 1)/n, all-gather, reduce-scatter and all-to-all
    /// (n − 1)/n, broadcast 1. The factor belongs to the collective, not to the algorithm, so
    /// the three all-reduces share one.
    ///
    /// A parameter server is given 1: a worker sends S and receives S, so S / time is the
    /// bandwidth of a worker's link, as busBw is a rank's link bandwidth for the others. A
    /// server's link carries workers/servers times that in each direction (the incast).
    pub fn bus_bandwidth_factor(&self, ranks: u32) -> f64 {
        let n = f64::from(ranks);
        match self {
            Algorithm::RingAllReduce
            | Algorithm::HalvingDoublingAllReduce
            | Algorithm::DoubleBinaryTreeAllReduce => 2.0 * (n - 1.0) / n,
            Algorithm::AllToAll
            | Algorithm::PairwiseAllToAll
            | Algorithm::RingAllGather
            | Algorithm::RingReduceScatter => (n - 1.0) / n,
            Algorithm::Broadcast | Algorithm::ParameterServer { .. } => 1.0,
        }
    }

    /// Into how many pieces S is first cut; S must hold `pieces × chunks` bytes so no chunk
    /// is empty.
    fn pieces(&self, ranks: u32) -> u64 {
        match *self {
            Algorithm::RingAllReduce
            | Algorithm::HalvingDoublingAllReduce
            | Algorithm::AllToAll
            | Algorithm::PairwiseAllToAll
            | Algorithm::RingAllGather
            | Algorithm::RingReduceScatter => u64::from(ranks),
            Algorithm::DoubleBinaryTreeAllReduce => 2,
            Algorithm::Broadcast => 1,
            Algorithm::ParameterServer { servers } => u64::from(servers),
        }
    }

    /// Transfers in one iteration over `ranks` ranks with `chunks` chunks (u128: a bad spec
    /// may ask for more than fits a schedule).
    fn transfers_per_iteration(&self, ranks: u32, chunks: u32) -> u128 {
        let n = u128::from(ranks);
        let per_chunk = match *self {
            Algorithm::RingAllReduce => 2 * (n - 1) * n,
            Algorithm::HalvingDoublingAllReduce => 2 * u128::from(ranks.ilog2()) * n,
            // Two trees of n − 1 edges, each edge used up and down.
            Algorithm::DoubleBinaryTreeAllReduce => 4 * (n - 1),
            Algorithm::AllToAll | Algorithm::PairwiseAllToAll => n * (n - 1),
            Algorithm::RingAllGather | Algorithm::RingReduceScatter => (n - 1) * n,
            Algorithm::Broadcast => n - 1,
            Algorithm::ParameterServer { servers } => {
                let m = u128::from(servers);
                2 * m * (n - m)
            }
        };
        per_chunk * u128::from(chunks)
    }
}

/// One collective job: what to run, on how many ranks, how big, how often.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CollectiveSpec {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Ranks taking part, at least 2.
    pub ranks: u32,
    /// S, the collective's size in bytes in the nccl-tests meaning (see the module
    /// documentation).
    pub size: u64,
    /// Chunks each piece is pipelined in, at least 1.
    pub chunks: u32,
    /// Times the collective runs, one after another, at least 1.
    pub iterations: u32,
    /// Each rank's compute before each iteration (before the first too, when not zero).
    pub compute: Duration,
}

/// A [`CollectiveSpec`] that cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AlgorithmError {
    /// Fewer than 2 ranks.
    #[error("{algorithm} needs at least 2 ranks, got {ranks}")]
    TooFewRanks {
        /// The algorithm's name.
        algorithm: &'static str,
        /// Ranks asked for.
        ranks: u32,
    },
    /// Halving-doubling over a rank count that is not a power of two.
    #[error(
        "halving_doubling_allreduce needs a power-of-two number of ranks (2, 4, 8, …), got {0}"
    )]
    NotPowerOfTwo(u32),
    /// Zero chunks.
    #[error("chunks must be at least 1, got 0")]
    NoChunks,
    /// Zero iterations.
    #[error("iterations must be at least 1, got 0")]
    NoIterations,
    /// A parameter server without servers or without workers.
    #[error(
        "parameter_server with {ranks} ranks needs 1 to {} servers (at least one worker), got {servers}",
        ranks - 1
    )]
    Servers {
        /// Servers asked for.
        servers: u32,
        /// Ranks in all.
        ranks: u32,
    },
    /// A size so small that a chunk would be 0 bytes.
    #[error(
        "size {size} B is too small: {algorithm} with {ranks} ranks and {chunks} chunks needs at least {min} B so that no transfer is empty"
    )]
    TooSmall {
        /// The algorithm's name.
        algorithm: &'static str,
        /// Size asked for.
        size: u64,
        /// Ranks.
        ranks: u32,
        /// Chunks.
        chunks: u32,
        /// The smallest size allowed.
        min: u64,
    },
    /// More transfers than a schedule's 32-bit node indices hold.
    #[error(
        "{transfers} transfers ({iterations} iterations); a schedule holds at most 4,294,967,294 nodes"
    )]
    TooManyTransfers {
        /// Transfers the spec asks for.
        transfers: u128,
        /// Iterations.
        iterations: u32,
    },
    /// The job's ranks do not fit in the schedule it is built into.
    #[error(
        "the job's ranks {first_rank}..{} do not fit in the schedule's {schedule_ranks} ranks",
        u64::from(*first_rank) + u64::from(*ranks)
    )]
    RanksOutOfSchedule {
        /// The schedule rank of the job's rank 0.
        first_rank: u32,
        /// The job's ranks.
        ranks: u32,
        /// The schedule's ranks.
        schedule_ranks: u32,
    },
    /// The schedule refused a node (it grew past its 32-bit indices).
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
}

/// Builds `spec` as a schedule of its own (ranks 0..`spec.ranks`).
pub fn build(spec: &CollectiveSpec) -> Result<Schedule, AlgorithmError> {
    spec.build()
}

impl CollectiveSpec {
    /// Checks the spec: every error a build can meet except the schedule's own size limit.
    pub fn validate(&self) -> Result<(), AlgorithmError> {
        let algorithm = self.algorithm.name();
        if self.ranks < 2 {
            return Err(AlgorithmError::TooFewRanks {
                algorithm,
                ranks: self.ranks,
            });
        }
        if self.chunks == 0 {
            return Err(AlgorithmError::NoChunks);
        }
        if self.iterations == 0 {
            return Err(AlgorithmError::NoIterations);
        }
        match self.algorithm {
            Algorithm::HalvingDoublingAllReduce if !self.ranks.is_power_of_two() => {
                return Err(AlgorithmError::NotPowerOfTwo(self.ranks));
            }
            Algorithm::ParameterServer { servers } if servers == 0 || servers >= self.ranks => {
                return Err(AlgorithmError::Servers {
                    servers,
                    ranks: self.ranks,
                });
            }
            _ => {}
        }
        // ⌊S/p⌋ ≥ chunks ⇔ S ≥ p·chunks: then every piece and chunk is at least 1 byte.
        let min = self.algorithm.pieces(self.ranks) * u64::from(self.chunks);
        if self.size < min {
            return Err(AlgorithmError::TooSmall {
                algorithm,
                size: self.size,
                ranks: self.ranks,
                chunks: self.chunks,
                min,
            });
        }
        let transfers = self.transfer_count();
        if transfers >= u128::from(u32::MAX) {
            return Err(AlgorithmError::TooManyTransfers {
                transfers,
                iterations: self.iterations,
            });
        }
        Ok(())
    }

    /// Transfers the spec builds, over all iterations.
    pub fn transfer_count(&self) -> u128 {
        self.algorithm
            .transfers_per_iteration(self.ranks, self.chunks)
            * u128::from(self.iterations)
    }

    /// Builds the spec as a schedule of its own (ranks 0..`ranks`).
    pub fn build(&self) -> Result<Schedule, AlgorithmError> {
        let mut schedule = Schedule::new(self.ranks);
        self.build_into(&mut schedule, 0)?;
        Ok(schedule)
    }

    /// Appends the spec to `schedule` with its rank r as schedule rank `first_rank + r`, and
    /// returns the nodes it added (they wait only for each other). The spec is checked first;
    /// if the schedule then overflows its 32-bit indices the error comes with a partly
    /// appended job in `schedule`.
    pub fn build_into(
        &self,
        schedule: &mut Schedule,
        first_rank: u32,
    ) -> Result<Range<NodeId>, AlgorithmError> {
        self.validate()?;
        if u64::from(first_rank) + u64::from(self.ranks) > u64::from(schedule.ranks()) {
            return Err(AlgorithmError::RanksOutOfSchedule {
                first_rank,
                ranks: self.ranks,
                schedule_ranks: schedule.ranks(),
            });
        }
        let first_node = node_index(schedule.len())?;
        let mut job = Job {
            schedule,
            first_rank,
            ranks: self.ranks,
            chunks: self.chunks,
            iteration: 0,
            start: vec![None; self.ranks as usize],
            scratch: Vec::new(),
        };
        let mut previous = None;
        for iteration in 0..self.iterations {
            job.iteration = iteration;
            let begin = job.schedule.len();
            match previous {
                None if self.compute == Duration::ZERO => {}
                None => {
                    for rank in 0..self.ranks {
                        let at = job.first_rank + rank;
                        let node = job.schedule.delay(at, self.compute, (iteration, 0), &[])?;
                        job.start[rank as usize] = Some(node);
                    }
                }
                Some(range) => job.open_after(range, self.compute)?,
            }
            let body = job.schedule.len();
            match self.algorithm {
                Algorithm::RingAllReduce => ring::run(&mut job, self.size, ring::ALL_REDUCE)?,
                Algorithm::RingAllGather => ring::run(&mut job, self.size, ring::ALL_GATHER)?,
                Algorithm::RingReduceScatter => {
                    ring::run(&mut job, self.size, ring::REDUCE_SCATTER)?
                }
                Algorithm::HalvingDoublingAllReduce => halving_doubling::run(&mut job, self.size)?,
                Algorithm::DoubleBinaryTreeAllReduce => tree::run(&mut job, self.size)?,
                Algorithm::AllToAll => all_to_all::run_at_once(&mut job, self.size)?,
                Algorithm::PairwiseAllToAll => all_to_all::run_pairwise(&mut job, self.size)?,
                Algorithm::Broadcast => broadcast::run(&mut job, self.size)?,
                Algorithm::ParameterServer { servers } => {
                    parameter_server::run(&mut job, self.size, servers)?
                }
            }
            debug_assert!(job.schedule.len() > begin);
            previous = Some(body..job.schedule.len());
        }
        Ok(first_node..node_index(job.schedule.len())?)
    }
}

fn node_index(len: usize) -> Result<NodeId, ScheduleError> {
    NodeId::try_from(len).map_err(|_| ScheduleError::TooLarge)
}

/// Piece `k` of `total` cut into `parts` pieces: ⌊total/parts⌋, plus one for the first
/// `total mod parts` pieces.
fn piece(total: u64, parts: u64, k: u64) -> u64 {
    total / parts + u64::from(k < total % parts)
}

/// Bytes of pieces `a..b` of `total` cut into `parts` pieces.
fn pieces_sum(total: u64, parts: u64, a: u64, b: u64) -> u64 {
    let r = total % parts;
    (b - a) * (total / parts) + (b.min(r) - a.min(r))
}

/// One job being built: the schedule, where its ranks sit in it, and the current iteration.
struct Job<'s> {
    schedule: &'s mut Schedule,
    first_rank: u32,
    ranks: u32,
    chunks: u32,
    iteration: u32,
    /// Per rank, the delay that opens the current iteration (none in iteration 0 without
    /// compute).
    start: Vec<Option<NodeId>>,
    /// Dependencies being assembled for one node.
    scratch: Vec<NodeId>,
}

impl Job<'_> {
    /// Chunk `c` of a transfer of `bytes`.
    fn chunk(&self, bytes: u64, c: u32) -> u64 {
        piece(bytes, u64::from(self.chunks), u64::from(c))
    }

    /// Adds a transfer between job ranks `src` and `dst` labelled (iteration, `step`) that
    /// waits for `after`, and for `src`'s opening delay too if `own_start`.
    fn send(
        &mut self,
        (src, dst): (u32, u32),
        bytes: u64,
        step: u32,
        after: &[NodeId],
        own_start: bool,
    ) -> Result<NodeId, ScheduleError> {
        self.scratch.clear();
        self.scratch.extend_from_slice(after);
        if own_start && let Some(start) = self.start[src as usize] {
            self.scratch.push(start);
        }
        self.schedule.transfer(
            self.first_rank + src,
            self.first_rank + dst,
            bytes,
            (self.iteration, step),
            &self.scratch,
        )
    }

    /// Adds a zero-length delay at job rank `rank` that waits for `after` and for the rank's
    /// opening delay: a join, so that many transfers can wait for many others through one
    /// node instead of through every pair.
    fn join(&mut self, rank: u32, step: u32, after: &[NodeId]) -> Result<NodeId, ScheduleError> {
        self.scratch.clear();
        self.scratch.extend_from_slice(after);
        if let Some(start) = self.start[rank as usize] {
            self.scratch.push(start);
        }
        self.schedule.delay(
            self.first_rank + rank,
            Duration::ZERO,
            (self.iteration, step),
            &self.scratch,
        )
    }

    /// Opens the current iteration: each rank's delay of `compute` waits for every transfer
    /// of `previous` (the last iteration's nodes) that the rank sent or received. The lists
    /// are gathered flat (counting sort by rank), two entries per transfer.
    fn open_after(
        &mut self,
        previous: Range<usize>,
        compute: Duration,
    ) -> Result<(), ScheduleError> {
        let n = self.ranks as usize;
        let first = self.first_rank;
        let ops = &self.schedule.ops()[previous.clone()];
        let mut offsets = vec![0u32; n + 1];
        for op in ops {
            if let Op::Transfer { src, dst, .. } = *op {
                offsets[(src - first) as usize + 1] += 1;
                offsets[(dst - first) as usize + 1] += 1;
            }
        }
        for r in 0..n {
            offsets[r + 1] += offsets[r];
        }
        let mut fill = offsets.clone();
        let mut flat = vec![0 as NodeId; offsets[n] as usize];
        for (k, op) in ops.iter().enumerate() {
            if let Op::Transfer { src, dst, .. } = *op {
                let node = node_index(previous.start + k)?;
                for rank in [src, dst] {
                    let at = &mut fill[(rank - first) as usize];
                    flat[*at as usize] = node;
                    *at += 1;
                }
            }
        }
        for rank in 0..n {
            let after = &flat[offsets[rank] as usize..offsets[rank + 1] as usize];
            let node =
                self.schedule
                    .delay(first + rank as u32, compute, (self.iteration, 0), after)?;
            self.start[rank] = Some(node);
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests;
