//! The pending-event set: a 4-ary heap (with a lazy pop) of small `Copy` events ordered by
//! (time, sequence).
//!
//! Ties between events scheduled for the same picosecond are broken by the order in which they
//! were scheduled (first scheduled, first popped). This rule is part of the model's definition:
//! it makes every run reproducible and is documented in ARCHITECTURE.md.
//!
//! [`TieOrder::Random`] instead breaks ties among events scheduled *ahead* (for a later time) by
//! a seeded random key: see [`EventQueue::with_random_ties`] for why only those.

use crate::rng::SimRng;
use crate::time::Time;

/// How events of the same picosecond are ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TieOrder {
    /// First scheduled, first popped.
    #[default]
    Fifo,
    /// A seeded random order among events scheduled ahead for the same picosecond.
    Random,
}

/// Random-tie keys: bits of the sequence number kept below the random key (2^40 ≈ 1.1e12
/// events per run, far above any run here; only ties need them to be unique).
const SEQ_BITS: u32 = 40;
const SEQ_MASK: u64 = (1 << SEQ_BITS) - 1;
/// Random keys are drawn from [0, 2^23); events scheduled for the current instant get 2^23.
const RANDOM_KEY_BITS: u32 = 23;
const NOW_KEY: u64 = 1 << RANDOM_KEY_BITS;

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
    /// `Some` for [`TieOrder::Random`]: draws the tie keys.
    tie_rng: Option<SimRng>,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue at time 0.
    pub fn new() -> Self {
        EventQueue {
            heap: Vec::with_capacity(1024),
            root_is_hole: false,
            next_seq: 0,
            now: Time::ZERO,
            tie_rng: None,
        }
    }

    /// A queue that orders events of the same picosecond by a random key drawn from `rng`
    /// (bit-reproducible for a given stream), as `(time, random key, sequence)`.
    ///
    /// Why only events scheduled for a *later* time get a random key: an event scheduled during
    /// instant t for t itself (a zero-delay hand-off) must still run after the event that
    /// scheduled it, and after everything that was already due at t, or a random draw could
    /// reorder a cause and its same-instant consequences relative to other events of t (e.g. a
    /// flow's stop scheduled behind its start). So those get the largest key (after every
    /// random key) and keep FIFO among themselves, exactly as with [`TieOrder::Fifo`]. Events
    /// scheduled ahead, which are the ones that collide by coincidence (two packets reaching a
    /// port in the same picosecond), are ordered by an independent uniform key, so no source
    /// systematically wins a tie. Causality holds: no event ever runs before the one that
    /// scheduled it, since a key is only compared among events not yet popped.
    pub fn with_random_ties(rng: SimRng) -> Self {
        EventQueue {
            tie_rng: Some(rng),
            ..Self::new()
        }
    }

    /// An event queue with the given tie order (`rng` is used only by [`TieOrder::Random`]).
    pub fn with_tie_order(order: TieOrder, rng: SimRng) -> Self {
        match order {
            TieOrder::Fifo => Self::new(),
            TieOrder::Random => Self::with_random_ties(rng),
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
        let tie = match &mut self.tie_rng {
            None => self.next_seq,
            Some(rng) => Self::random_tie(rng, time > self.now, self.next_seq),
        };
        let key = ((time.0 as u128) << 64) | tie as u128;
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

    /// The low 64 bits of a random-order key: (random key or `NOW_KEY`, sequence).
    #[cold]
    fn random_tie(rng: &mut SimRng, ahead: bool, seq: u64) -> u64 {
        let key = if ahead {
            rng.next_u64() >> (64 - RANDOM_KEY_BITS)
        } else {
            NOW_KEY
        };
        (key << SEQ_BITS) | (seq & SEQ_MASK)
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

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.root_is_hole)
    }
    /// No event waiting: the run has nothing left to do.
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

    #[test]
    fn random_ties_are_seeded_and_keep_same_instant_events_after_their_cause() {
        let order = |seed| {
            let mut q = EventQueue::with_random_ties(SimRng::new(seed));
            for i in 0..20 {
                q.schedule(Time(10), i);
            }
            let mut out = Vec::new();
            while let Some((t, e)) = q.pop() {
                out.push(e);
                // A zero-delay consequence of the first event popped at t = 10.
                if e < 100 && out.len() == 1 {
                    q.schedule(t, 100 + e);
                }
            }
            out
        };
        let a = order(1);
        assert_eq!(a, order(1), "same seed, same order");
        assert_ne!(a, order(2), "another seed, another order");
        assert_ne!(&a[..20], &(0..20).collect::<Vec<_>>()[..], "not FIFO");
        // The consequence runs after every event that was already due at t = 10.
        assert_eq!(a[20], 100 + a[0]);
        let mut sorted = a[..20].to_vec();
        sorted.sort();
        assert_eq!(sorted, (0..20).collect::<Vec<_>>());
    }

    #[test]
    fn random_ties_never_reorder_different_times() {
        let mut q = EventQueue::with_random_ties(SimRng::new(3));
        for i in 0..200u64 {
            q.schedule(Time(i % 7), i);
        }
        let mut last = Time::ZERO;
        while let Some((t, _)) = q.pop() {
            assert!(t >= last);
            last = t;
        }
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
