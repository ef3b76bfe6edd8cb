//! The [`Schedule`]: transfers and delays in dependency order, stored flat (a 1,024-rank
//! all-to-all is a million transfers, so no allocation per node).

use incastsim_core::Duration;

/// A node of a [`Schedule`]: its index, in creation order.
pub type NodeId = u32;

/// What a node does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `bytes` from rank `src` to rank `dst`. It starts at `src` once everything it waits for is
    /// done, and is done when its last byte has reached `dst`.
    Transfer {
        /// Sending rank.
        src: u32,
        /// Receiving rank.
        dst: u32,
        /// Bytes sent.
        bytes: u64,
    },
    /// `rank` is busy for `duration` (compute, a reduction, a `calc` of a trace), starting once
    /// everything it waits for is done.
    Delay {
        /// The rank.
        rank: u32,
        /// How long.
        duration: Duration,
    },
}

impl Op {
    /// The rank where the node starts (a transfer's sender, a delay's rank).
    pub fn rank(&self) -> u32 {
        match *self {
            Op::Transfer { src, .. } => src,
            Op::Delay { rank, .. } => rank,
        }
    }
}

/// A schedule that cannot be built as asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// A rank at or past the schedule's rank count.
    #[error("rank {rank} is not among the {ranks} ranks (0..{ranks})")]
    UnknownRank {
        /// The rank named.
        rank: u32,
        /// Ranks in the schedule.
        ranks: u32,
    },
    /// A transfer from a rank to itself.
    #[error("a transfer from rank {0} to itself")]
    SelfTransfer(u32),
    /// A transfer of 0 bytes.
    #[error("a transfer of 0 bytes from rank {src} to rank {dst}")]
    Empty {
        /// Sending rank.
        src: u32,
        /// Receiving rank.
        dst: u32,
    },
    /// A dependency on a node not created before this one.
    #[error("node {node} waits for node {on}, which does not exist before it")]
    ForwardDependency {
        /// The node being added.
        node: NodeId,
        /// The node it waits for.
        on: NodeId,
    },
    /// More nodes or dependencies than 32-bit indices hold.
    #[error("more than 4,294,967,295 nodes or dependencies")]
    TooLarge,
}

/// Transfers and delays between `ranks` ranks, each waiting for nodes created before it (so
/// creation order is a topological order and the graph has no cycle by construction).
///
/// Each node also carries a `step` label (the algorithm's step, or a trace's sequence), and
/// the builder tracks an `iteration`: results group transfers by (iteration, step).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schedule {
    ranks: u32,
    ops: Vec<Op>,
    /// Per node: (iteration, step).
    labels: Vec<(u32, u32)>,
    /// Node i waits for `deps[dep_start[i]..dep_start[i + 1]]`.
    dep_start: Vec<u32>,
    deps: Vec<NodeId>,
}

impl Schedule {
    /// An empty schedule over `ranks` ranks.
    pub fn new(ranks: u32) -> Schedule {
        Schedule {
            ranks,
            dep_start: vec![0],
            ..Schedule::default()
        }
    }

    /// Ranks.
    pub fn ranks(&self) -> u32 {
        self.ranks
    }

    /// Nodes.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether it has no node.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Node `n`'s operation.
    pub fn op(&self, n: NodeId) -> Op {
        self.ops[n as usize]
    }

    /// Every node's operation, in creation order.
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    /// Node `n`'s (iteration, step).
    pub fn label(&self, n: NodeId) -> (u32, u32) {
        self.labels[n as usize]
    }

    /// The nodes `n` waits for.
    pub fn deps(&self, n: NodeId) -> &[NodeId] {
        let i = n as usize;
        &self.deps[self.dep_start[i] as usize..self.dep_start[i + 1] as usize]
    }

    /// Dependencies in all.
    pub fn dep_count(&self) -> usize {
        self.deps.len()
    }

    /// Adds a transfer of `bytes` from `src` to `dst`, labelled (`iteration`, `step`), that
    /// starts when every node of `after` is done (at once if `after` is empty).
    pub fn transfer(
        &mut self,
        src: u32,
        dst: u32,
        bytes: u64,
        label: (u32, u32),
        after: &[NodeId],
    ) -> Result<NodeId, ScheduleError> {
        self.check_rank(src)?;
        self.check_rank(dst)?;
        if src == dst {
            return Err(ScheduleError::SelfTransfer(src));
        }
        if bytes == 0 {
            return Err(ScheduleError::Empty { src, dst });
        }
        self.push(Op::Transfer { src, dst, bytes }, label, after)
    }

    /// Adds a delay of `duration` at `rank`, labelled (`iteration`, `step`), that starts when
    /// every node of `after` is done.
    pub fn delay(
        &mut self,
        rank: u32,
        duration: Duration,
        label: (u32, u32),
        after: &[NodeId],
    ) -> Result<NodeId, ScheduleError> {
        self.check_rank(rank)?;
        self.push(Op::Delay { rank, duration }, label, after)
    }

    fn check_rank(&self, rank: u32) -> Result<(), ScheduleError> {
        if rank < self.ranks {
            Ok(())
        } else {
            Err(ScheduleError::UnknownRank {
                rank,
                ranks: self.ranks,
            })
        }
    }

    fn push(
        &mut self,
        op: Op,
        label: (u32, u32),
        after: &[NodeId],
    ) -> Result<NodeId, ScheduleError> {
        let node = u32::try_from(self.ops.len()).map_err(|_| ScheduleError::TooLarge)?;
        if node == u32::MAX {
            return Err(ScheduleError::TooLarge);
        }
        if let Some(&on) = after.iter().find(|&&d| d >= node) {
            return Err(ScheduleError::ForwardDependency { node, on });
        }
        let end =
            u32::try_from(self.deps.len() + after.len()).map_err(|_| ScheduleError::TooLarge)?;
        self.deps.extend_from_slice(after);
        self.dep_start.push(end);
        self.ops.push(op);
        self.labels.push(label);
        Ok(node)
    }

    /// Bytes each rank sends, in all.
    pub fn bytes_sent_per_rank(&self) -> Vec<u64> {
        let mut out = vec![0; self.ranks as usize];
        for op in &self.ops {
            if let Op::Transfer { src, bytes, .. } = *op {
                out[src as usize] += bytes;
            }
        }
        out
    }

    /// Bytes each rank receives, in all.
    pub fn bytes_received_per_rank(&self) -> Vec<u64> {
        let mut out = vec![0; self.ranks as usize];
        for op in &self.ops {
            if let Op::Transfer { dst, bytes, .. } = *op {
                out[dst as usize] += bytes;
            }
        }
        out
    }

    /// The length of the longest chain of transfers (delays count 0): the number of
    /// transfer latencies a run of this schedule must pay one after another.
    pub fn transfer_depth(&self) -> u32 {
        let mut depth = vec![0u32; self.ops.len()];
        for n in 0..self.ops.len() {
            let before = self
                .deps(n as NodeId)
                .iter()
                .map(|&d| depth[d as usize])
                .max();
            let own = u32::from(matches!(self.ops[n], Op::Transfer { .. }));
            depth[n] = before.unwrap_or(0) + own;
        }
        depth.into_iter().max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_wait_only_for_earlier_nodes() {
        let mut s = Schedule::new(3);
        let a = s.transfer(0, 1, 10, (0, 0), &[]).unwrap();
        let d = s.delay(1, Duration::from_us(5), (0, 0), &[a]).unwrap();
        let b = s.transfer(1, 2, 10, (0, 1), &[d]).unwrap();
        assert_eq!(s.deps(b), &[d]);
        assert_eq!(s.deps(a), &[] as &[NodeId]);
        assert_eq!(s.transfer_depth(), 2);
        assert_eq!(
            s.transfer(0, 1, 10, (0, 0), &[7]),
            Err(ScheduleError::ForwardDependency { node: 3, on: 7 })
        );
        assert_eq!(
            s.transfer(0, 0, 10, (0, 0), &[]),
            Err(ScheduleError::SelfTransfer(0))
        );
        assert_eq!(
            s.transfer(0, 3, 10, (0, 0), &[]),
            Err(ScheduleError::UnknownRank { rank: 3, ranks: 3 })
        );
        assert_eq!(
            s.transfer(0, 1, 0, (0, 0), &[]),
            Err(ScheduleError::Empty { src: 0, dst: 1 })
        );
        assert_eq!(s.bytes_sent_per_rank(), vec![10, 10, 0]);
        assert_eq!(s.bytes_received_per_rank(), vec![0, 10, 10]);
    }
}
