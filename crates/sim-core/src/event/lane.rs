//! The store of the queue's main heap: a [`QuadHeap`] with a sorted run beside it, the "lane".
//!
//! Why: a handler's next event is often later than every event pending (a packet's next hop
//! one link ahead of now). While few events are pending, such an entry is appended to the lane
//! in O(1) instead of entering the heap; a pop takes the earlier of the heap's root and the
//! lane's front, so the order is exactly a priority queue's. On one switch (S3: about seven
//! events pending) the lane takes 6 % of the pushes and the run is 5 % faster: the pushes it
//! takes are the ones whose sift through a heap of a handful of entries, with one to four
//! children per node, the processor predicted worst. With many events pending (a k = 8
//! fat-tree: about 170) it took as few and its checks cost 4 %, so it takes entries only while
//! the heap holds fewer than [`LANE_WHILE_HEAP_BELOW`].

use super::heap::{Keyed, QuadHeap};

/// The lane takes entries while the heap holds fewer than this many.
const LANE_WHILE_HEAP_BELOW: usize = 32;

/// Slots of the lane's first allocation.
const LANE_FIRST_CAPACITY: usize = 64;

/// A priority queue of entries with unique keys: a heap, and a ring of entries in increasing
/// key order (each later than every entry in the ring when it was appended).
#[derive(Debug)]
pub(super) struct LaneHeap<T> {
    heap: QuadHeap<T>,
    /// The lane's ring: entry `i` is at `(head + i) & (capacity - 1)`; the capacity is 0 or a
    /// power of two.
    lane: Vec<T>,
    head: usize,
    len: usize,
    /// The last `peek` found the first entry at the lane's front, not at the heap's root (so
    /// `take_first` and `popped` act on the lane).
    first_in_lane: bool,
}

impl<T: Keyed> LaneHeap<T> {
    /// An empty store.
    pub(super) fn new() -> Self {
        LaneHeap {
            heap: QuadHeap::new(),
            lane: Vec::new(),
            head: 0,
            len: 0,
            first_in_lane: false,
        }
    }

    /// A store of entries already sorted by key: all in the lane.
    pub(super) fn from_sorted(sorted: Vec<T>) -> Self {
        debug_assert!(sorted.windows(2).all(|w| w[0].key() < w[1].key()));
        let mut store = Self::new();
        for entry in sorted {
            store.append(entry);
        }
        store
    }

    /// Entries held (the heap's and the lane's).
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.heap.len() + self.len
    }

    /// Adds an entry; returns the number of entries held if the store grew (not if the entry
    /// filled the hole of a pop: see [`QuadHeap::push`]).
    #[inline(always)]
    pub(super) fn push(&mut self, entry: T) -> Option<usize> {
        if self.heap.len() < LANE_WHILE_HEAP_BELOW
            && (self.len == 0 || self.lane[self.slot(self.len - 1)].key() < entry.key())
        {
            self.append(entry);
            Some(self.len())
        } else {
            self.heap.push(entry).map(|_| self.len())
        }
    }

    /// The earliest entry.
    #[inline(always)]
    pub(super) fn peek(&mut self) -> Option<T> {
        let root = self.heap.peek();
        self.first_in_lane = false;
        if self.len == 0 {
            return root;
        }
        let front = self.lane[self.head];
        match root {
            Some(r) if r.key() < front.key() => Some(r),
            _ => {
                self.first_in_lane = true;
                Some(front)
            }
        }
    }

    /// Removes the entry [`LaneHeap::peek`] just returned.
    #[inline(always)]
    pub(super) fn take_first(&mut self) {
        if self.first_in_lane {
            debug_assert!(self.len > 0);
            self.head = self.slot(1);
            self.len -= 1;
        } else {
            self.heap.take_first();
        }
    }

    /// The entry [`LaneHeap::take_first`] just removed (still in its slot).
    #[inline(always)]
    pub(super) fn popped(&self) -> T {
        if self.first_in_lane {
            self.lane[self.head.wrapping_sub(1) & self.mask()]
        } else {
            self.heap.popped()
        }
    }

    /// Calls `f` on every entry, in no particular order.
    pub(super) fn for_each(&mut self, mut f: impl FnMut(&T)) {
        self.heap.entries().iter().for_each(&mut f);
        (0..self.len).for_each(|i| f(&self.lane[self.slot(i)]));
    }

    /// Applies `f` to every key, which must keep their order (the queue's rebase).
    pub(super) fn map_keys(&mut self, f: impl Fn(&mut T)) {
        self.heap.map_keys(&f);
        for i in 0..self.len {
            let slot = self.slot(i);
            f(&mut self.lane[slot]);
        }
    }

    /// Every entry, in no particular order; the store is left empty.
    pub(super) fn drain(&mut self) -> Vec<T> {
        let mut all: Vec<T> = self.heap.drain().collect();
        all.extend((0..self.len).map(|i| self.lane[self.slot(i)]));
        self.head = 0;
        self.len = 0;
        all
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.lane.len().wrapping_sub(1)
    }

    /// The slot of the lane's `i`-th entry.
    #[inline(always)]
    fn slot(&self, i: usize) -> usize {
        (self.head + i) & self.mask()
    }

    /// Appends `entry`, later than every entry in the lane, growing the ring if it is full.
    #[inline(always)]
    fn append(&mut self, entry: T) {
        debug_assert!(self.len == 0 || self.lane[self.slot(self.len - 1)].key() < entry.key());
        if self.len == self.lane.len() {
            self.grow(entry);
        }
        let slot = self.slot(self.len);
        self.lane[slot] = entry;
        self.len += 1;
    }

    /// Doubles the ring (its entries move to the front; `fill` fills the new slots).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, fill: T) {
        let mut lane = vec![fill; (self.lane.len() * 2).max(LANE_FIRST_CAPACITY)];
        for (i, e) in lane.iter_mut().take(self.len).enumerate() {
            *e = self.lane[self.slot(i)];
        }
        self.lane = lane;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    #[derive(Clone, Copy, Debug)]
    struct K(u64);
    impl Keyed for K {
        type Key = u64;
        fn key(&self) -> u64 {
            self.0
        }
    }

    /// Pops the earliest entry as the queue does (peek, take, read the popped slot).
    fn pop(store: &mut LaneHeap<K>) -> Option<u64> {
        let first = store.peek()?;
        store.take_first();
        assert_eq!(store.popped().0, first.0, "popped is what peek named");
        Some(first.0)
    }

    #[test]
    fn increasing_keys_go_to_the_lane_while_the_heap_is_small() {
        let mut store = LaneHeap::new();
        for k in [10, 20, 5, 30, 7, 40] {
            store.push(K(k));
        }
        assert_eq!(store.len, 4, "10, 20, 30, 40 in the lane");
        assert_eq!(store.heap.len(), 2, "5 and 7 in the heap");
        let order: Vec<u64> = std::iter::from_fn(|| pop(&mut store)).collect();
        assert_eq!(order, [5, 7, 10, 20, 30, 40]);
        // Decreasing keys: the first enters the empty lane, the others the heap.
        for k in (0..=LANE_WHILE_HEAP_BELOW as u64).rev() {
            store.push(K(1000 + k));
        }
        assert_eq!((store.len, store.heap.len()), (1, LANE_WHILE_HEAP_BELOW));
        // A heap that large takes even a key later than the lane's last.
        store.push(K(5000));
        assert_eq!(
            (store.len, store.heap.len()),
            (1, LANE_WHILE_HEAP_BELOW + 1)
        );
        let order: Vec<u64> = std::iter::from_fn(|| pop(&mut store)).collect();
        let expected: Vec<u64> = (1000..=1000 + LANE_WHILE_HEAP_BELOW as u64)
            .chain([5000])
            .collect();
        assert_eq!(order, expected);
    }

    proptest! {
        /// Any mix of pushes and pops (with keys that often increase, as the queue's do)
        /// pops in key order; rebases and drains keep every entry.
        #[test]
        fn pops_in_key_order(
            ops in proptest::collection::vec((0u8..6, 0u64..40), 0..600),
        ) {
            let mut store = LaneHeap::new();
            let mut reference = BTreeSet::new();
            let mut next = 1_000u64;
            for (op, delta) in ops {
                match op {
                    0 | 1 => {
                        // Mostly later than everything pushed so far, sometimes earlier.
                        next += delta;
                        let key = if op == 0 { next } else { next.saturating_sub(delta * 20) };
                        if reference.insert(key) {
                            store.push(K(key));
                        }
                    }
                    2 | 3 => prop_assert_eq!(pop(&mut store), reference.pop_first()),
                    4 => {
                        // A rebase: every key drops by the same amount.
                        let drop = reference.first().map_or(0, |&k| k.min(delta));
                        store.map_keys(|e| e.0 -= drop);
                        reference = reference.iter().map(|k| k - drop).collect();
                        next -= drop;
                    }
                    _ => {
                        if delta == 0 {
                            let mut all: Vec<u64> =
                                store.drain().into_iter().map(|e| e.0).collect();
                            all.sort_unstable();
                            let sorted: Vec<u64> = reference.iter().copied().collect();
                            prop_assert_eq!(&all, &sorted);
                            store = LaneHeap::from_sorted(all.into_iter().map(K).collect());
                        }
                    }
                }
                prop_assert_eq!(store.len(), reference.len());
                let mut seen = 0;
                store.for_each(|_| seen += 1);
                prop_assert_eq!(seen, reference.len());
            }
            while let Some(k) = pop(&mut store) {
                prop_assert_eq!(Some(k), reference.pop_first());
            }
            prop_assert!(reference.is_empty());
        }
    }
}
