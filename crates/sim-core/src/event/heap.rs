//! A 4-ary min-heap of entries with a lazy pop: the store of [`EventQueue`](super::EventQueue)
//! while few events are pending (then it fits in the first-level cache and beats the calendar).

use super::calendar::Entry;

/// Branching factor of the heap: a 4-ary heap is half as deep as a binary one, and the four
/// children of a node sit in one or two cache lines.
const ARITY: usize = 4;

/// Sentinel entries kept after the last one: the children of any entry with a child all exist
/// (up to 3 past the end), so every level of a sift-down picks the least of 4 without branches
/// (a partly filled last level took a loop of its own: ~1 % of S1's instructions).
const PAD: usize = ARITY - 1;

/// The key of the sentinels: later than any event's (a key's time would have to be `u64::MAX`
/// ps and its tie key `u64::MAX` too).
const PAD_KEY: u128 = u128::MAX;

/// A pop leaves a hole at the root instead of re-heaping at once; the next push fills the hole
/// with one sift-down. Event handlers nearly always schedule something (a packet's next hop,
/// the next head of a port), so pop + push costs one sift instead of two.
#[derive(Debug)]
pub(super) struct QuadHeap<E> {
    /// The `len` entries in heap order, then at least [`PAD`] sentinels (key [`PAD_KEY`]; none
    /// before the first push, which has no payload to copy into them).
    slots: Vec<Entry<E>>,
    /// Entries in heap order (the hole included).
    len: usize,
    /// The root slot is logically empty (popped, not yet refilled).
    root_is_hole: bool,
}

impl<E: Copy> QuadHeap<E> {
    /// An empty heap.
    pub(super) fn new() -> Self {
        QuadHeap {
            slots: Vec::with_capacity(1024),
            len: 0,
            root_is_hole: false,
        }
    }

    /// A heap of entries already sorted by key (a sorted array is a heap).
    pub(super) fn from_sorted(mut slots: Vec<Entry<E>>) -> Self {
        debug_assert!(slots.windows(2).all(|w| w[0].key < w[1].key));
        let len = slots.len();
        if let Some(&first) = slots.first() {
            slots.resize(len + PAD, Entry { key: PAD_KEY, ..first });
        }
        QuadHeap {
            slots,
            len,
            root_is_hole: false,
        }
    }

    /// Entries waiting.
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.len - usize::from(self.root_is_hole)
    }

    /// Adds an entry; returns the number of entries if the heap grew (not if it filled the
    /// hole of a pop), so that the caller tests its size only then.
    #[inline(always)]
    pub(super) fn push(&mut self, entry: Entry<E>) -> Option<usize> {
        if self.root_is_hole {
            self.root_is_hole = false;
            self.sift_down(0, entry);
            None
        } else {
            if self.len + PAD >= self.slots.len() {
                self.add_sentinel(entry);
            }
            self.slots[self.len] = entry;
            self.len += 1;
            self.sift_up(self.len - 1);
            Some(self.len)
        }
    }

    /// One more sentinel (a copy of `entry` with the sentinel key), so that `len + 1` entries
    /// keep [`PAD`] after them.
    #[cold]
    #[inline(never)]
    fn add_sentinel(&mut self, entry: Entry<E>) {
        while self.slots.len() <= self.len + PAD {
            self.slots.push(Entry {
                key: PAD_KEY,
                ..entry
            });
        }
    }

    /// The earliest entry, removed (lazily: its slot becomes the hole).
    #[inline(always)]
    pub(super) fn pop(&mut self) -> Option<Entry<E>> {
        self.fill_hole();
        if self.len == 0 {
            return None;
        }
        let top = self.slots[0];
        self.root_is_hole = true;
        Some(top)
    }

    /// The earliest entry's key.
    #[inline(always)]
    pub(super) fn peek_key(&mut self) -> Option<u128> {
        self.fill_hole();
        (self.len > 0).then(|| self.slots[0].key)
    }

    /// Every entry, in no particular order; the heap is left empty.
    pub(super) fn drain(&mut self) -> impl Iterator<Item = Entry<E>> + '_ {
        self.fill_hole();
        let len = std::mem::take(&mut self.len);
        self.slots.truncate(len);
        self.slots.drain(..)
    }

    /// Removes the hole left by a pop: the last entry moves to the root and sifts down.
    #[inline(always)]
    fn fill_hole(&mut self) {
        if !self.root_is_hole {
            return;
        }
        self.root_is_hole = false;
        self.len -= 1;
        let last = self.slots[self.len];
        self.slots[self.len].key = PAD_KEY;
        if self.len > 0 {
            self.sift_down_out_of_line(last);
        }
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        let entry = self.slots[i];
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.slots[parent].key <= entry.key {
                break;
            }
            self.slots[i] = self.slots[parent];
            i = parent;
        }
        self.slots[i] = entry;
    }

    /// [`QuadHeap::sift_down`] from the root, not inlined: a hole is filled by its own last
    /// entry only when a pop is not followed by a push.
    #[inline(never)]
    fn sift_down_out_of_line(&mut self, entry: Entry<E>) {
        self.sift_down(0, entry);
    }

    /// Places `entry` in the hole at `i` or below it (the slot's old content is overwritten).
    /// Inlined into `push` (in the queue's one out-of-line `schedule`): no call per event.
    #[inline(always)]
    fn sift_down(&mut self, mut i: usize, entry: Entry<E>) {
        let n = self.len;
        let heap = self.slots.as_mut_slice();
        let key = entry.key;
        loop {
            let first = i * ARITY + 1;
            if first >= n {
                break;
            }
            // A full set of children, sentinels past the last entry: a fixed-size array lets
            // the compiler drop bounds checks.
            let Some(children) = heap.get(first..first + ARITY) else {
                unreachable!("sentinels follow the last entry");
            };
            let c: &[Entry<E>; ARITY] = children.try_into().expect("ARITY children");
            let (a, ka) = if c[1].key < c[0].key {
                (1, c[1].key)
            } else {
                (0, c[0].key)
            };
            let (b, kb) = if c[3].key < c[2].key {
                (3, c[3].key)
            } else {
                (2, c[2].key)
            };
            let (j, best_key) = if kb < ka { (b, kb) } else { (a, ka) };
            if best_key >= key {
                break;
            }
            let child = c[j];
            heap[i] = child;
            i = first + j;
        }
        heap[i] = entry;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pushes and pops (with and without a following push) keep the sentinels after the last
    /// entry and pop in key order.
    #[test]
    fn sentinels_stay_after_the_last_entry() {
        let mut h = QuadHeap::new();
        let mut x: u64 = 12345;
        let mut reference = std::collections::BinaryHeap::new();
        for step in 0..5_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x % 3 == 0 && reference.len() > 0 {
                let top = h.pop().map(|e| e.key);
                let std::cmp::Reverse(want) = reference.pop().unwrap();
                assert_eq!(top, Some(want));
            } else {
                let key = u128::from(x % 1000) << 64 | u128::from(step);
                h.push(Entry { key, payload: step });
                reference.push(std::cmp::Reverse(key));
            }
            assert_eq!(h.len(), reference.len());
            h.fill_hole();
            assert!(h.slots[h.len..].iter().all(|e| e.key == PAD_KEY));
            assert!(h.len == 0 || h.slots.len() >= h.len + PAD);
        }
    }
}
