//! The queue's order against reference heaps, in both tie modes and across its stores.

use super::*;
use proptest::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[test]
fn peek_ahead_names_the_events_that_pop_next() {
    let mut q = EventQueue::new();
    q.schedule(Time(1), 0u64);
    assert_eq!(q.peek_ahead(0), None, "the heap gives no hints");
    assert!(q.coming().is_empty());
    // Enough pending events for the calendar, at times that collide and interleave.
    for i in 1..300u64 {
        q.schedule(Time(1_000 + (i * 7919) % 613), i);
    }
    let mut hints = Vec::new();
    let mut popped = Vec::new();
    while let Some((_, e)) = q.pop() {
        popped.push(e);
        hints.push((0..4).map(|k| q.peek_ahead(k).copied()).collect::<Vec<_>>());
        // The one-look-up view names the same events.
        let coming = q.coming();
        assert!((0..6).all(|k| coming.get(k) == q.peek_ahead(k)));
        assert_eq!(coming.is_empty(), q.peek_ahead(0).is_none());
    }
    let mut hinted = 0;
    for (step, coming) in hints.iter().enumerate() {
        for (k, hint) in coming.iter().enumerate() {
            if let Some(e) = hint {
                assert_eq!(
                    Some(e),
                    popped.get(step + 1 + k),
                    "hint {k} after pop {step}"
                );
                hinted += 1;
            }
        }
    }
    assert!(hinted > 300, "the calendar gave hints ({hinted})");
}

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

/// Far events (over `LATER_AHEAD` ahead: the second heap) scheduled in decreasing,
/// increasing and tied order, among near ones, pop in (time, FIFO) order.
#[test]
fn far_events_keep_the_order() {
    let mut q = EventQueue::new();
    let far = LATER_AHEAD + 1;
    let mut expected = Vec::new();
    for (i, t) in [5 * far, 3 * far, 3 * far, 7 * far, 2 * far, 10, 3 * far, 20]
        .into_iter()
        .enumerate()
    {
        q.schedule(Time(t), i);
        expected.push((t, i));
    }
    expected.sort();
    let mut got = Vec::new();
    while let Some((t, e)) = q.pop() {
        got.push((t.0, e));
        // A near event scheduled while far ones wait, popping before them.
        if e == 5 {
            q.schedule(Time(t.0 + 1), 100);
            expected.insert(1, (t.0 + 1, 100));
        }
    }
    assert_eq!(got, expected);
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

/// The reference order: a binary heap on (time, tie key), with the tie keys drawn exactly as
/// the queue draws them (sequence number, or the random-tie key from a clone of its stream).
struct Reference {
    heap: BinaryHeap<Reverse<(u64, u64, usize)>>,
    rng: Option<SimRng>,
    seq: u64,
    now: u64,
}

impl Reference {
    fn schedule(&mut self, time: u64, payload: usize) {
        let tie = match &mut self.rng {
            None => self.seq,
            Some(rng) => {
                let key = if time > self.now {
                    rng.next_u64() >> (64 - RANDOM_KEY_BITS)
                } else {
                    NOW_KEY
                };
                (key << SEQ_BITS) | self.seq
            }
        };
        self.seq += 1;
        self.heap.push(Reverse((time, tie, payload)));
    }

    fn pop(&mut self) -> Option<(u64, usize)> {
        let Reverse((time, _, payload)) = self.heap.pop()?;
        self.now = time;
        Some((time, payload))
    }
}

/// A delay drawn from several scales: the same instant, ties a few ps apart, within one
/// bucket, within the wheel's horizon, and beyond it (the overflow heap, and jumps of an
/// empty wheel).
fn delay() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        0u64..8,
        0u64..10_000,
        0u64..200_000_000,
        0u64..5_000_000_000,
    ]
}

proptest! {
    /// Random schedules (same-time ties, schedule-at-now, events near and far) pop in exactly
    /// the order of a binary heap on (time, tie key), in both tie modes, by `pop` and by
    /// `pop_until` (which leaves an event due after its limit).
    #[test]
    fn pops_match_a_binary_heap(
        random in any::<bool>(),
        calendar_from in 4usize..64,
        seed in any::<u64>(),
        ops in proptest::collection::vec((0u8..4, delay(), 1usize..4), 0..400),
    ) {
        let rng = SimRng::new(seed);
        let mut q = EventQueue::with_tie_order(
            if random { TieOrder::Random } else { TieOrder::Fifo },
            rng.clone(),
        );
        q.set_calendar_from(calendar_from);
        let mut reference = Reference {
            heap: BinaryHeap::new(),
            rng: random.then_some(rng),
            seq: 0,
            now: 0,
        };
        let mut id = 0;
        for (op, dt, count) in ops {
            if op == 3 {
                // The bound moves mid-run (the queue may switch stores at once).
                q.set_calendar_from(4 + (dt % 60) as usize);
            } else if op == 0 && count == 3 {
                // The loop's pop: only an event due by the limit (`dt` ahead) leaves.
                let limit = q.now().0 + dt;
                let got = q.pop_until(Time(limit)).map(|(t, e)| (t.0, e));
                let expected = match reference.heap.peek() {
                    None => Err(None),
                    Some(Reverse((t, _, _))) if *t > limit => Err(Some(Time(*t))),
                    Some(_) => Ok(reference.pop().expect("peeked")),
                };
                prop_assert_eq!(got, expected);
            } else if op == 0 {
                for _ in 0..count {
                    let got = q.pop().map(|(t, e)| (t.0, e));
                    prop_assert_eq!(got, reference.pop());
                }
            } else {
                // A burst of events at one time (ties), scheduled from the current instant.
                let at = q.now().0 + dt;
                for _ in 0..count {
                    q.schedule(Time(at), id);
                    reference.schedule(at, id);
                    id += 1;
                }
            }
            prop_assert_eq!(q.len(), reference.heap.len());
            prop_assert_eq!(q.peek_time().map(|t| t.0), reference.heap.peek().map(|r| r.0.0));
        }
        while let Some(expected) = reference.pop() {
            prop_assert_eq!(q.pop().map(|(t, e)| (t.0, e)), Some(expected));
        }
        prop_assert!(q.pop().is_none());
    }

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
