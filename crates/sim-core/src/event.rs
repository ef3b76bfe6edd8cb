//! The pending-event set: a 4-ary heap (with a lazy pop) of small `Copy` events ordered by
//! (time, sequence).
//!
//! Ties between events scheduled for the same picosecond are broken by the order in which they
//! were scheduled (first scheduled, first popped). This rule is part of the model's definition:
//! it makes every run reproducible and is documented in ARCHITECTURE.md.

use crate::time::Time;

/// Branching factor of the heap: a 4-ary heap is half as deep as a binary one, and the four
/// children of a node sit in one or two cache lines.
const ARITY: usize = 4;

#[derive(Clone, Copy, Debug)]
struct Entry<E> {
    /// (time << 64) | sequence: one integer comparison orders by time, then FIFO.
    key: u128,
    payload: E,
}

/// A deterministic discrete-event queue. `E` is the simulation's own small event type.
///
/// A pop leaves a hole at the root instead of re-heaping at once; the next `schedule` fills the
/// hole with one sift-down. Event handlers nearly always schedule something (a packet's next hop,
/// the next head of a port), so pop + push costs one sift instead of two. The order of events is
/// exactly that of an ordinary priority queue on (time, sequence).
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: Vec<Entry<E>>,
    /// The root slot is logically empty (popped, not yet refilled).
    root_is_hole: bool,
    next_seq: u64,
    now: Time,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: Vec::with_capacity(1024),
            root_is_hole: false,
            next_seq: 0,
            now: Time::ZERO,
        }
    }

    /// The time of the most recently popped event.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedules `payload` at `time`, which must not be in the past.
    #[inline]
    pub fn schedule(&mut self, time: Time, payload: E) {
        debug_assert!(
            time >= self.now,
            "event scheduled in the past: {time} < {}",
            self.now
        );
        let key = ((time.0 as u128) << 64) | self.next_seq as u128;
        self.next_seq += 1;
        let entry = Entry { key, payload };
        if self.root_is_hole {
            self.root_is_hole = false;
            self.sift_down(0, entry);
        } else {
            self.heap.push(entry);
            self.sift_up(self.heap.len() - 1);
        }
    }

    /// Pops the earliest event and advances the clock to it.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.fill_hole();
        let top = *self.heap.first()?;
        self.root_is_hole = true;
        let time = Time((top.key >> 64) as u64);
        // Invariant: simulated time never goes backwards.
        debug_assert!(time >= self.now, "time went backwards");
        self.now = time;
        Some((time, top.payload))
    }

    /// The time of the earliest pending event.
    pub fn peek_time(&mut self) -> Option<Time> {
        self.fill_hole();
        self.heap.first().map(|e| Time((e.key >> 64) as u64))
    }

    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.root_is_hole)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Number of events ever scheduled.
    pub fn scheduled_total(&self) -> u64 {
        self.next_seq
    }

    /// Removes the hole left by a pop: the last entry moves to the root and sifts down.
    #[inline]
    fn fill_hole(&mut self) {
        if !self.root_is_hole {
            return;
        }
        self.root_is_hole = false;
        let last = self.heap.pop().expect("a hole implies a slot");
        if !self.heap.is_empty() {
            self.sift_down(0, last);
        }
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        let entry = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.heap[parent].key <= entry.key {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = entry;
    }

    /// Places `entry` in the hole at `i` or below it (the slot's old content is overwritten).
    #[inline]
    fn sift_down(&mut self, mut i: usize, entry: Entry<E>) {
        let n = self.heap.len();
        loop {
            let first = i * ARITY + 1;
            let (best, best_key) = if first + ARITY <= n {
                // Full set of children: a fixed-size slice lets the compiler drop bounds checks.
                let c: &[Entry<E>; ARITY] = self.heap[first..first + ARITY]
                    .try_into()
                    .expect("ARITY children");
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
                if kb < ka {
                    (first + b, kb)
                } else {
                    (first + a, ka)
                }
            } else if first < n {
                let mut best = first;
                let mut best_key = self.heap[first].key;
                for c in first + 1..n {
                    if self.heap[c].key < best_key {
                        best = c;
                        best_key = self.heap[c].key;
                    }
                }
                (best, best_key)
            } else {
                break;
            };
            if best_key >= entry.key {
                break;
            }
            self.heap[i] = self.heap[best];
            i = best;
        }
        self.heap[i] = entry;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn simultaneous_events_pop_in_scheduling_order() {
        let mut q = EventQueue::new();
        q.schedule(Time(10), 'b');
        q.schedule(Time(5), 'a');
        q.schedule(Time(10), 'c');
        q.schedule(Time(10), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
    }

    proptest! {
        /// Interleaved pushes and pops behave like a sorted list on (time, scheduling order).
        #[test]
        fn interleaved_operations_match_a_reference(ops in proptest::collection::vec((any::<bool>(), 0u64..30), 0..300)) {
            let mut q = EventQueue::new();
            let mut reference: Vec<(u64, usize)> = Vec::new();
            let mut now = 0;
            for (i, (push, dt)) in ops.into_iter().enumerate() {
                if push || reference.is_empty() {
                    q.schedule(Time(now + dt), i);
                    reference.push((now + dt, i));
                    reference.sort();
                } else {
                    let expected = reference.remove(0);
                    let got = q.pop().unwrap();
                    prop_assert_eq!((got.0.0, got.1), expected);
                    now = expected.0;
                }
                prop_assert_eq!(q.len(), reference.len());
            }
        }

        #[test]
        fn pops_are_sorted_by_time_then_fifo(times in proptest::collection::vec(0u64..50, 0..200)) {
            let mut q = EventQueue::new();
            for (i, t) in times.iter().enumerate() {
                q.schedule(Time(*t), i);
            }
            let mut last: Option<(Time, usize)> = None;
            while let Some((t, i)) = q.pop() {
                if let Some((lt, li)) = last {
                    prop_assert!(t > lt || (t == lt && i > li));
                }
                last = Some((t, i));
            }
        }
    }
}
