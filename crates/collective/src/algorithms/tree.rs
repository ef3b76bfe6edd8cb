//! NCCL's double binary tree all-reduce (NCCL 2.4 blog, "Massively Scale Your Deep Learning
//! Training with NCCL 2.4"; Sanders, Speck and Träff 2009, "Two-tree algorithms for full
//! bandwidth broadcast, reduction and scan").
//!
//! The trees are NCCL's (`ncclGetBtree` and `ncclGetDtree`, `src/graph/trees.cc`), over ranks
//! rather than over nodes of GPUs:
//! * tree 0 is the in-order binary tree rooted at rank 0: rank r ≠ 0 with lowest set bit b
//!   has parent (r XOR b) OR 2b, or r XOR b if that is not a rank; rank 0 has a single child,
//!   the largest power of two below n. Odd ranks are its leaves;
//! * tree 1 is tree 0 mirrored (rank r plays n − 1 − r) when n is even, shifted by one (rank r
//!   plays r − 1 mod n) when n is odd, so that a rank that is a leaf in one tree is interior
//!   in the other (up to rank 0, root of tree 0, when n is odd).
//!
//! Tree t carries half t of S (the first half takes the odd byte), cut into `chunks` chunks.
//! Reduce (up): a rank sends chunk c to its parent once it has chunk c from each of its
//! children (a leaf at once) and its opening delay is done. Broadcast (down): the root sends
//! chunk c to its children once it has chunk c from all of them (and its opening delay is
//! done); any other rank forwards chunk c to its children once it has it from its parent. The
//! depth is 2·⌈log2 n⌉ transfers.
//!
//! Steps are tree levels, so that a step's transfers are the ones that can run together (the
//! results' per-step rows and ideal time assume that): with H = ⌈log2 n⌉, a rank's send up is
//! step h, its height (a leaf 0, its parent 1, ...), and its sends down are step H + d, d its
//! depth (the root 0): 2H steps, the same numbers in both trees.

use super::{Job, piece};
use crate::schedule::{NodeId, ScheduleError};

/// No rank.
const NONE: u32 = u32::MAX;

/// The parent of `rank` in NCCL's binary tree over `n` ranks rooted at 0 (`ncclGetBtree`).
fn btree_parent(n: u32, rank: u32) -> Option<u32> {
    if rank == 0 {
        return None;
    }
    let (r, bit) = (u64::from(rank), u64::from(rank & rank.wrapping_neg()));
    let up = (r ^ bit) | (bit << 1);
    let up = if up >= u64::from(n) { r ^ bit } else { up };
    Some(up as u32)
}

/// The parent of `rank` in tree `tree` (0 or 1) of NCCL's double binary tree (`ncclGetDtree`).
fn dtree_parent(n: u32, tree: u32, rank: u32) -> Option<u32> {
    match (tree, n % 2) {
        (0, _) => btree_parent(n, rank),
        (_, 1) => btree_parent(n, (rank + n - 1) % n).map(|u| (u + 1) % n),
        _ => btree_parent(n, n - 1 - rank).map(|u| n - 1 - u),
    }
}

/// One tree, as arrays over ranks.
struct Tree {
    parent: Vec<u32>,
    /// Up to two children, `NONE` where absent.
    children: Vec<[u32; 2]>,
    /// Ranks, deepest first: children before parents.
    bottom_up: Vec<u32>,
    root: u32,
    /// Per rank: its height (the longest way down to a leaf) and its depth (from the root).
    height: Vec<u32>,
    depth: Vec<u32>,
}

impl Tree {
    fn new(n: u32, tree: u32) -> Tree {
        let mut parent = vec![NONE; n as usize];
        let mut children = vec![[NONE; 2]; n as usize];
        let mut root = NONE;
        for r in 0..n {
            match dtree_parent(n, tree, r) {
                None => root = r,
                Some(p) => {
                    parent[r as usize] = p;
                    let slot = &mut children[p as usize];
                    let free = if slot[0] == NONE { 0 } else { 1 };
                    debug_assert_eq!(slot[free], NONE, "rank {p} has a third child");
                    slot[free] = r;
                }
            }
        }
        // A binary tree over n ranks is at most ⌈log2 n⌉ deep, so the walk is short.
        let depth = |mut r: u32| {
            let mut d = 0u32;
            while parent[r as usize] != NONE {
                r = parent[r as usize];
                d += 1;
            }
            d
        };
        let depths: Vec<u32> = (0..n).map(depth).collect();
        let mut bottom_up: Vec<u32> = (0..n).collect();
        bottom_up.sort_by_key(|&r| std::cmp::Reverse(depths[r as usize]));
        let mut height = vec![0u32; n as usize];
        for &r in &bottom_up {
            if parent[r as usize] != NONE {
                let p = parent[r as usize] as usize;
                height[p] = height[p].max(height[r as usize] + 1);
            }
        }
        Tree {
            parent,
            children,
            bottom_up,
            root,
            height,
            depth: depths,
        }
    }

    fn children(&self, r: u32) -> impl Iterator<Item = u32> + '_ {
        self.children[r as usize].into_iter().filter(|&c| c != NONE)
    }
}

pub(super) fn run(job: &mut Job<'_>, size: u64) -> Result<(), ScheduleError> {
    let n = job.ranks;
    // ⌈log2 n⌉: the first step down.
    let levels = u32::BITS - (n - 1).leading_zeros();
    let mut up = vec![0 as NodeId; n as usize];
    let mut down = vec![0 as NodeId; n as usize];
    let mut after: Vec<NodeId> = Vec::with_capacity(2);
    for t in 0..2 {
        let tree = Tree::new(n, t);
        let half = piece(size, 2, u64::from(t));
        for c in 0..job.chunks {
            let bytes = job.chunk(half, c);
            // Reduce: children before parents; up[r] is r's transfer to its parent.
            for &r in &tree.bottom_up {
                if r == tree.root {
                    continue;
                }
                after.clear();
                after.extend(tree.children(r).map(|ch| up[ch as usize]));
                let step = tree.height[r as usize];
                up[r as usize] =
                    job.send((r, tree.parent[r as usize]), bytes, step, &after, true)?;
            }
            // Broadcast: parents before children; down[r] is the transfer to r from its parent.
            for &r in tree.bottom_up.iter().rev() {
                after.clear();
                let own_start = r == tree.root;
                if own_start {
                    after.extend(tree.children(r).map(|ch| up[ch as usize]));
                } else {
                    after.push(down[r as usize]);
                }
                let step = levels + tree.depth[r as usize];
                for ch in tree.children(r) {
                    down[ch as usize] = job.send((r, ch), bytes, step, &after, own_start)?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::Algorithm;
    use super::super::tests::spec;
    use super::*;
    use crate::schedule::Op;

    /// NCCL's child computation (`ncclGetBtree`'s down0 and down1), to check the parents.
    fn btree_children(n: u32, rank: u32) -> Vec<u32> {
        let mut bit = 1u32;
        while bit < n && bit & rank == 0 {
            bit <<= 1;
        }
        if rank == 0 {
            return if n > 1 { vec![bit >> 1] } else { vec![] };
        }
        let mut low = bit >> 1;
        if low == 0 {
            return vec![];
        }
        let mut out = vec![rank - low];
        while low > 0 && rank + low >= n {
            low >>= 1;
        }
        if low > 0 {
            out.push(rank + low);
        }
        out
    }

    #[test]
    fn parents_agree_with_nccls_children() {
        for n in 2..200 {
            for t in 0..2 {
                let tree = Tree::new(n, t);
                for r in 0..n {
                    let mut mine: Vec<u32> = tree.children(r).collect();
                    mine.sort();
                    let shown = |x: u32| match (t, n % 2) {
                        (0, _) => x,
                        (_, 1) => (x + n - 1) % n,
                        _ => n - 1 - x,
                    };
                    let unshown = |x: u32| match (t, n % 2) {
                        (0, _) => x,
                        (_, 1) => (x + 1) % n,
                        _ => n - 1 - x,
                    };
                    let mut nccl: Vec<u32> = btree_children(n, shown(r))
                        .into_iter()
                        .map(unshown)
                        .collect();
                    nccl.sort();
                    assert_eq!(mine, nccl, "n {n} tree {t} rank {r}");
                }
            }
        }
    }

    #[test]
    fn a_leaf_in_one_tree_is_interior_in_the_other() {
        for n in 2..300 {
            let (a, b) = (Tree::new(n, 0), Tree::new(n, 1));
            assert_eq!(a.root, 0);
            assert_eq!(b.root, if n % 2 == 1 { 1 } else { n - 1 });
            for r in 0..n {
                let inner = |t: &Tree| t.children(r).next().is_some();
                let both = inner(&a) && inner(&b);
                assert!(!both || (r == 0 && n % 2 == 1), "n {n}: rank {r}");
            }
        }
    }

    #[test]
    fn four_ranks_by_hand() {
        // Tree 0: 1 → 2 ← 3, 2 → 0. Tree 1 (mirror): 0 → 1 ← 2, 1 → 3. Deepest ranks first,
        // lower ranks first among equals.
        let s = spec(Algorithm::DoubleBinaryTreeAllReduce, 4, 1_001, 1)
            .build()
            .unwrap();
        let t = |src, dst, bytes| Op::Transfer { src, dst, bytes };
        let want: [(Op, u32, &[u32]); 12] = [
            // Tree 0 carries 501 bytes. Up: leaves 1 and 3, then 2.
            // Steps: up at the sender's height, down at 2 + its depth.
            (t(1, 2, 501), 0, &[]),
            (t(3, 2, 501), 0, &[]),
            (t(2, 0, 501), 1, &[0, 1]),
            // Down: root 0 once 2's arrived, then 2 to its children.
            (t(0, 2, 501), 2, &[2]),
            (t(2, 1, 501), 3, &[3]),
            (t(2, 3, 501), 3, &[3]),
            // Tree 1 carries 500 bytes.
            (t(0, 1, 500), 0, &[]),
            (t(2, 1, 500), 0, &[]),
            (t(1, 3, 500), 1, &[6, 7]),
            (t(3, 1, 500), 2, &[8]),
            (t(1, 0, 500), 3, &[9]),
            (t(1, 2, 500), 3, &[9]),
        ];
        assert_eq!(s.len(), want.len());
        for (node, (op, step, deps)) in want.into_iter().enumerate() {
            let node = node as u32;
            assert_eq!(
                (s.op(node), s.label(node).1, s.deps(node)),
                (op, step, deps)
            );
        }
        assert_eq!(s.transfer_depth(), 4);
    }

    #[test]
    fn every_rank_sends_and_receives_s_but_the_roots_once_per_tree() {
        for (n, chunks) in [(2u32, 1u32), (5, 2), (8, 4), (13, 3), (64, 1)] {
            let size = 2_000 * u64::from(chunks);
            let s = spec(Algorithm::DoubleBinaryTreeAllReduce, n, size, chunks)
                .build()
                .unwrap();
            let (a, b) = (Tree::new(n, 0), Tree::new(n, 1));
            let sent = s.bytes_sent_per_rank();
            let received = s.bytes_received_per_rank();
            for r in 0..n {
                // Per tree: one half up unless root, one half down to each child.
                let per_tree = |t: &Tree| {
                    let up = u64::from(r != t.root);
                    let kids = t.children(r).count() as u64;
                    (up + kids, up + kids)
                };
                let ((sa, ra), (sb, rb)) = (per_tree(&a), per_tree(&b));
                assert_eq!(sent[r as usize], (sa + sb) * size / 2, "n {n} rank {r}");
                assert_eq!(received[r as usize], (ra + rb) * size / 2);
            }
            assert_eq!(s.len(), (4 * (n - 1) * chunks) as usize);
            let height = u32::BITS - (n - 1).leading_zeros(); // ⌈log2 n⌉
            assert_eq!(s.transfer_depth(), 2 * height, "n {n}");
        }
    }
}
