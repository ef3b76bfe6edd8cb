//! The sparse table that finds an (output, input) pair of a fabric switch's port: a radix
//! tree of 64-entry blocks per output port, indexed by the input's slot among the links
//! entering the node, allocated as inputs appear (see [`Diagnostics`]).

use super::{Diagnostics, NO_PORT, NONE};

/// Bits of an input slot resolved per level of a port's table (64 entries per block).
pub(super) const LEVEL_BITS: u32 = 6;
pub(super) const LEVEL_MASK: u32 = (1 << LEVEL_BITS) - 1;

/// A slot of a port's table: in an inner block, the offset of a child block (`link`); in a
/// leaf, a pair (`link`, `NONE` for none) and the packets it offered, kept together so that
/// finding a fat-tree switch's pair and counting its packet touch one cache line.
#[derive(Clone, Copy, Debug)]
pub(super) struct TableSlot {
    pub(super) link: u32,
    pub(super) offered: u64,
}

const EMPTY_SLOT: TableSlot = TableSlot {
    link: NONE,
    offered: 0,
};

/// Shift of the root level of a table over `slots` keys.
pub(super) fn root_shift(slots: u32) -> u32 {
    let mut shift = 0;
    while slots.saturating_sub(1) >> shift > LEVEL_MASK {
        shift += LEVEL_BITS;
    }
    shift
}

impl Diagnostics {
    pub(super) fn new_pair(&mut self, port: u32, input: u32) -> u32 {
        let i = self.pair_key.len();
        assert!(i < NONE as usize, "too many (output, input) pairs");
        self.pair_offered.push(0);
        self.pair_leaf.push(NONE);
        self.pair_key.push((port, input));
        self.pair_drop.push(NONE);
        i as u32
    }

    /// The pair of `port` and `input` (made on its first packet).
    #[inline(always)]
    pub(super) fn pair(&mut self, port: u32, input: u32) -> u32 {
        let out = self.out[port as usize];
        if out.first_in == input {
            return out.first_pair;
        }
        self.other_pair(port, input)
    }

    /// The pair of `port` and `input`, not `port`'s first.
    #[inline(always)]
    pub(super) fn other_pair(&mut self, port: u32, input: u32) -> u32 {
        let inp = self.inp[input as usize];
        if inp.first_out == port {
            return inp.first_pair;
        }
        self.table_pair(port, input)
    }

    /// The pair of `port` and `input` from `port`'s table, or a new pair.
    #[inline(never)]
    pub(super) fn table_pair(&mut self, port: u32, input: u32) -> u32 {
        self.table_pair_counting(port, input, false)
    }

    /// [`Diagnostics::table_pair`], counting a packet offered by the pair (`count`) where the
    /// pair is found: in its leaf, so that a switch's admission reads one line for both.
    #[inline(never)]
    pub(super) fn table_pair_counting(&mut self, port: u32, input: u32, count: bool) -> u32 {
        let slot = self.inp[input as usize].slot;
        let shift = root_shift(self.out[port as usize].slots);
        let leaf = self.find(self.out[port as usize].table, shift, slot);
        if leaf != NONE && self.table[leaf as usize].link != NONE {
            let found = &mut self.table[leaf as usize];
            found.offered += u64::from(count);
            return found.link;
        }
        let i = self.new_pair(port, input);
        let (out, inp) = (&mut self.out[port as usize], &mut self.inp[input as usize]);
        if out.first_in == NO_PORT {
            (out.first_in, out.first_pair) = (input, i);
        } else if inp.first_out == NO_PORT {
            (inp.first_out, inp.first_pair) = (port, i);
        } else {
            self.insert(port, shift, slot, i);
        }
        if count {
            self.count_offered(port, i as usize);
        }
        i
    }

    /// The leaf for `slot` of the table rooted at `root` (`NONE`: no leaf block yet).
    pub(super) fn find(&self, root: u32, mut shift: u32, slot: u32) -> u32 {
        if root == NONE {
            return NONE;
        }
        let mut at = root as usize + (slot >> shift) as usize;
        while shift > 0 {
            let child = self.table[at].link;
            if child == NONE {
                return NONE;
            }
            shift -= LEVEL_BITS;
            at = child as usize + ((slot >> shift) & LEVEL_MASK) as usize;
        }
        at as u32
    }

    /// Puts `pair` at `slot` of `port`'s table, allocating the blocks on its path.
    pub(super) fn insert(&mut self, port: u32, mut shift: u32, slot: u32, pair: u32) {
        fn block(table: &mut Vec<TableSlot>, len: usize) -> u32 {
            let at = table.len();
            assert!(at + len < NONE as usize, "diagnostics table full");
            table.resize(at + len, EMPTY_SLOT);
            at as u32
        }
        let mut root = self.out[port as usize].table;
        if root == NONE {
            let len = (self.out[port as usize].slots.saturating_sub(1) >> shift) as usize + 1;
            root = block(&mut self.table, len);
            self.out[port as usize].table = root;
        }
        let mut at = root as usize + (slot >> shift) as usize;
        while shift > 0 {
            if self.table[at].link == NONE {
                self.table[at].link = block(&mut self.table, 1 << LEVEL_BITS);
            }
            shift -= LEVEL_BITS;
            at = self.table[at].link as usize + ((slot >> shift) & LEVEL_MASK) as usize;
        }
        self.table[at].link = pair;
        self.pair_leaf[pair as usize] = at as u32;
    }
}
