//! The FIFO of an output port: a ring buffer whose capacity is a power of two, so that a slot
//! is `(head + i) & mask`.
//!
//! Why not `VecDeque`: its index wraps with a comparison and a subtraction, and its `push_back`,
//! `pop_front`, `front` and `get` each carry their own emptiness and capacity checks; a packet
//! meets five of them per hop, about 48 instructions per event on S1. Here the port does its
//! own checks once (it knows the length) and a slot costs an add and an and.

/// A ring of `Copy` entries, grown by doubling (from 4), emptied to its front.
#[derive(Clone, Debug)]
pub(super) struct Ring<T> {
    /// Every slot holds a value (stale ones are copies), so no slot is ever uninitialized.
    buf: Box<[T]>,
    /// The front's slot: always below the capacity (0 while there is none).
    head: u32,
    len: u32,
}

/// Slots of the first allocation (as `VecDeque`'s for entries of this size).
const FIRST_CAPACITY: usize = 4;

impl<T: Copy + Default> Ring<T> {
    /// An empty ring; allocates at the first push.
    pub(super) fn new() -> Self {
        Ring {
            buf: Box::new([]),
            head: 0,
            len: 0,
        }
    }

    #[inline(always)]
    fn slot(&self, i: u32) -> usize {
        // The capacity is 0 or a power of two: with 0, `len` is 0 and no caller asks.
        (self.head.wrapping_add(i) as usize) & (self.buf.len().wrapping_sub(1))
    }

    /// The entry in slot `slot` of a ring that holds at least one entry (or has just grown
    /// to take one), without a bounds check: `slot` comes from [`Ring::slot`], masked by the
    /// capacity, which is then a power of two, so it is in bounds. (The checks were two
    /// instructions per access, five or more accesses per hop.)
    #[inline(always)]
    fn at(&self, slot: usize) -> &T {
        debug_assert!(slot < self.buf.len());
        // SAFETY: callers hold `len > 0` (so the capacity is at least `len`, a power of two)
        // or have just grown the ring; `slot()` masks by `capacity - 1`, so `slot < capacity`.
        unsafe { self.buf.get_unchecked(slot) }
    }

    /// [`Ring::at`], to write the slot.
    #[inline(always)]
    fn at_mut(&mut self, slot: usize) -> &mut T {
        debug_assert!(slot < self.buf.len());
        // SAFETY: as in `at`.
        unsafe { self.buf.get_unchecked_mut(slot) }
    }

    /// Entries held.
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.len as usize
    }

    /// No entry held.
    #[inline(always)]
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Slots allocated.
    #[inline(always)]
    pub(super) fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The `i`-th entry from the front.
    #[inline(always)]
    pub(super) fn get(&self, i: usize) -> Option<&T> {
        if i < self.len as usize {
            Some(self.at(self.slot(i as u32)))
        } else {
            None
        }
    }

    /// The `i`-th entry from the front and the one after it, if any: one slot computation for
    /// both. The caller guarantees that entry `i` exists (checked in debug builds), as `at`'s
    /// callers do: a checked `assert!` on this per-packet path cost measurable instructions.
    #[inline(always)]
    pub(super) fn get_and_next(&self, i: usize) -> (&T, Option<&T>) {
        debug_assert!(i < self.len as usize, "entry {i} of a ring of {}", self.len);
        let slot = self.slot(i as u32);
        let next = (i + 1 < self.len as usize).then(|| self.at((slot + 1) & (self.buf.len() - 1)));
        (self.at(slot), next)
    }

    /// The oldest entry.
    #[inline(always)]
    pub(super) fn front(&self) -> Option<&T> {
        // `head` is a slot already (always below the capacity): no masking.
        debug_assert!(self.len == 0 || (self.head as usize) < self.buf.len());
        if self.len > 0 {
            Some(self.at(self.head as usize))
        } else {
            None
        }
    }

    /// The newest entry.
    #[inline(always)]
    pub(super) fn back(&self) -> Option<&T> {
        match self.len {
            0 => None,
            n => Some(self.at(self.slot(n - 1))),
        }
    }

    /// The newest entry, to change it.
    #[inline(always)]
    pub(super) fn back_mut(&mut self) -> Option<&mut T> {
        match self.len {
            0 => None,
            n => {
                let slot = self.slot(n - 1);
                Some(&mut self.buf[slot])
            }
        }
    }

    /// Appends `entry`, growing the ring if it is full.
    #[inline(always)]
    #[cfg(test)]
    pub(super) fn push_back(&mut self, entry: T) {
        *self.push_back_slot() = entry;
    }

    /// Appends an entry and returns its slot, for the caller to write in place (growing the
    /// ring first if it is full). Writing a port's packet field by field from where it lies
    /// saves the copy of a whole entry built beside it first (and growth that took the entry
    /// as its filler made the compiler build every entry in memory).
    #[inline(always)]
    pub(super) fn push_back_slot(&mut self) -> &mut T {
        if self.len as usize == self.buf.len() {
            self.grow();
        }
        let slot = self.slot(self.len);
        self.len += 1;
        self.at_mut(slot)
    }

    /// Removes the oldest entry (the ring must not be empty; read it with `front` first).
    #[inline(always)]
    pub(super) fn drop_front(&mut self) {
        debug_assert!(self.len > 0, "drop_front on an empty ring");
        self.head = self.slot(1) as u32;
        self.len -= 1;
    }

    /// Empties the ring and moves its start back to the first slot.
    #[inline(always)]
    pub(super) fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
    }

    /// An empty ring gives back all but `slots` (a power of two) of its memory.
    pub(super) fn shrink_empty_to(&mut self, slots: usize) {
        debug_assert!(self.len == 0 && slots.is_power_of_two());
        if self.buf.len() > slots {
            // Stale slots are overwritten before they are read: any value fills them.
            self.buf = vec![self.buf[0]; slots].into_boxed_slice();
            self.head = 0;
        }
    }

    /// The entries, oldest first.
    pub(super) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len).map(move |i| &self.buf[self.slot(i)])
    }

    /// The slot the next [`Ring::push_back`] writes, unless the ring is full (then it grows).
    #[inline(always)]
    pub(super) fn next_free(&self) -> Option<&T> {
        if (self.len as usize) < self.buf.len() {
            Some(self.at(self.slot(self.len)))
        } else {
            None
        }
    }

    /// Where the first slot lies (the next entry of an emptied ring goes there).
    #[cfg(test)]
    pub(super) fn first_slot(&self) -> Option<&T> {
        self.buf.first()
    }

    /// Full: twice the slots (4 at first), the entries moved to the front in order; the new
    /// slots hold `T::default()` until written.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let slots = (self.buf.len() * 2).max(FIRST_CAPACITY);
        let mut buf = Vec::with_capacity(slots);
        buf.extend(self.iter().copied());
        buf.resize(slots, T::default());
        self.buf = buf.into_boxed_slice();
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    proptest! {
        /// Any sequence of pushes, pops, clears and shrinks leaves the same entries as a
        /// `VecDeque`.
        #[test]
        fn matches_a_vec_deque(ops in proptest::collection::vec(0u8..10, 0..400)) {
            let mut ring = Ring::new();
            let mut reference = VecDeque::new();
            for (i, op) in ops.into_iter().enumerate() {
                match op {
                    0..=5 => {
                        // The admission's cache hint names the slot the push writes.
                        let hinted = ring.next_free().map(|slot| slot as *const usize);
                        ring.push_back(i);
                        reference.push_back(i);
                        if let Some(slot) = hinted {
                            prop_assert!(std::ptr::eq(slot, ring.back().unwrap()));
                        }
                    }
                    6..=8 => {
                        prop_assert_eq!(ring.front(), reference.front());
                        if !reference.is_empty() {
                            ring.drop_front();
                            reference.pop_front();
                        }
                    }
                    _ => {
                        ring.clear();
                        reference.clear();
                        ring.shrink_empty_to(16);
                    }
                }
                prop_assert_eq!(ring.len(), reference.len());
                prop_assert!(ring.capacity().is_power_of_two() || ring.capacity() == 0);
                prop_assert_eq!(ring.back(), reference.back());
                prop_assert_eq!(ring.get(1), reference.get(1));
                prop_assert!(ring.iter().eq(reference.iter()));
            }
        }
    }

    #[test]
    fn an_emptied_ring_starts_again_at_its_first_slot() {
        let mut ring = Ring::new();
        for i in 0..6 {
            ring.push_back(i);
        }
        ring.drop_front();
        ring.clear();
        ring.push_back(9);
        assert!(std::ptr::eq(
            ring.front().unwrap(),
            ring.first_slot().unwrap()
        ));
        *ring.back_mut().unwrap() = 10;
        assert_eq!(ring.front(), Some(&10));
    }
}
