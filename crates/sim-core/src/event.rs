//! The pending-event set of small `Copy` events ordered by (time, sequence): a 4-ary heap while
//! few are pending, a calendar queue when many are.
//!
//! Ties between events scheduled for the same picosecond are broken by the order in which they
//! were scheduled (first scheduled, first popped). This rule is part of the model's definition:
//! it makes every run reproducible and is documented in ARCHITECTURE.md.
//!
//! [`TieOrder::Random`] instead breaks ties among events scheduled *ahead* (for a later time) by
//! a seeded random key: see [`EventQueue::with_random_ties`] for why only those.

mod calendar;
mod heap;
mod lane;

use crate::rng::SimRng;
use crate::time::Time;
use calendar::{Calendar, Entry};
use heap::{Keyed, QuadHeap};
use lane::LaneHeap;

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

/// Events scheduled more than this far ahead (ps) wait in the queue's second heap (`later`).
/// 1 ms is beyond a packet's time on any link here (serialization plus propagation) and below
/// the usual RTO and delayed-ACK deadlines. Only speed depends on it, never the order.
const LATER_AHEAD: u64 = 1_000_000_000;

/// The main heap's 64-bit keys: the time's offset from `time_base` (ps) in the high
/// `OFFSET_BITS`, the sequence number's offset from `seq_base` in the low ones. Its entries are
/// due within `LATER_AHEAD` (< 2^30 ps) of the time they were scheduled at, so both offsets fit
/// while the bases move up (`EventQueue::rebase`: when a pop moves the clock
/// `REBASE_TIME_SPAN` past `time_base`, or a schedule takes a sequence number
/// `REBASE_SEQ_SPAN` past `seq_base`). Comparing one 64-bit key, and moving 16-byte entries
/// (with the engine's 8-byte events) instead of 32-byte ones on a 128-bit key, is the point:
/// the heap is the loop's largest single cost on one switch.
const OFFSET_BITS: u32 = 32;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;
/// The key of `later`'s first entry moved to the main heap's front to be popped
/// (`EventQueue::promote_later`): below every other key, whose sequence field counts from 1.
const PROMOTED_KEY: u64 = 0;
/// Rebase once the clock is this far past `time_base` (ps; 2^31, 2.1 ms: time offsets then
/// stay below 2^31 + `LATER_AHEAD` < 2^32). Small in tests, so that they rebase often.
#[cfg(not(test))]
const REBASE_TIME_SPAN: u64 = 1 << 31;
#[cfg(test)]
const REBASE_TIME_SPAN: u64 = 1 << 20;
/// At a rebase, main-heap entries scheduled more than this many events ago move to `later`
/// (exact: see [`EventQueue::later`]). Only a run with 2^31 events within 1 ms of simulated
/// time has any. Small in tests, so that they do.
#[cfg(not(test))]
const SEQ_KEEP: u64 = 1 << 31;
#[cfg(test)]
const SEQ_KEEP: u64 = 16;
/// Rebase before a sequence offset would reach this (2^31 + 2^30 < 2^32).
const REBASE_SEQ_SPAN: u64 = SEQ_KEEP + SEQ_KEEP / 2;

/// Pending events above which the queue moves from the heap to the calendar by default; below
/// a quarter of it, it moves back (hysteresis, so that a run near the bound does not switch
/// back and forth).
#[cfg(not(test))]
const TO_CALENDAR: usize = 4096;
/// Small in tests, so that the property tests switch often.
#[cfg(test)]
const TO_CALENDAR: usize = 24;

/// An entry of the main heap (see `OFFSET_BITS` for its key).
#[derive(Clone, Copy, Debug)]
struct Near<E> {
    key: u64,
    payload: E,
}

impl<E: Copy> Keyed for Near<E> {
    type Key = u64;
    #[inline(always)]
    fn key(&self) -> u64 {
        self.key
    }
}

/// The calendar's and `later`'s key: (time, tie key) in one 128-bit integer.
#[inline(always)]
fn full_key(time: u64, tie: u64) -> u128 {
    ((time as u128) << 64) | tie as u128
}

/// A deterministic discrete-event queue. `E` is the simulation's own small event type.
///
/// Two stores, one order: while few events are pending (one switch: tens) they sit in a 4-ary
/// heap, which then fits in the first-level cache; when many are (a k = 32 fat-tree: tens of
/// thousands, one per busy port) they move to a calendar queue (module `calendar`), whose cost
/// per event does not grow with their number. Either pops in exactly the order of a priority
/// queue on (time, tie key), so the switch between them never changes a run.
#[derive(Debug)]
pub struct EventQueue<E> {
    /// Events due within [`LATER_AHEAD`] of the time they were scheduled at (a packet's next
    /// hop, a port's next head): the ones nearly every pop and push touch, on 64-bit keys
    /// (`OFFSET_BITS`).
    heap: LaneHeap<Near<E>>,
    /// Events scheduled further ahead (RTO and delayed-ACK timers, re-armed lazily, so most
    /// pop stale much later), on full (time, sequence) keys: kept apart so that they do not
    /// deepen the heap every packet event is sifted through. A pop takes the earlier of the two
    /// heaps' first entries, `later`'s on equal times. That is the FIFO order, because of two
    /// events due at the same picosecond, one in `later` was scheduled before one in `heap`:
    /// the first more than `LATER_AHEAD` before that time, the second within it (and the
    /// entries a rebase or the move from the calendar puts here are older than every entry
    /// left in `heap`). With random ties every event waits here.
    later: QuadHeap<Entry<E>>,
    /// The time of `later`'s first entry (`u64::MAX`: none); not kept with random ties.
    later_time: u64,
    /// The time of the entry at `PROMOTED_KEY`, while it waits to be popped.
    promoted_time: u64,
    /// The time (ps) and sequence number the main heap's keys count from.
    time_base: u64,
    seq_base: u64,
    /// `time_base + REBASE_TIME_SPAN` and `seq_base + REBASE_SEQ_SPAN`: a pop or schedule
    /// at or past them rebases.
    rebase_from_time: u64,
    rebase_from_seq: u64,
    /// `Some` while the calendar holds the events (the heaps are then empty).
    calendar: Option<Box<Calendar<E>>>,
    /// The calendar's bucket width when last used (it is adapted to the run's density).
    calendar_shift: Option<u32>,
    next_seq: u64,
    now: Time,
    /// `Some` for [`TieOrder::Random`]: draws the tie keys.
    tie_rng: Option<SimRng>,
    /// Pending events above which the calendar takes over (`TO_CALENDAR` unless set by
    /// [`EventQueue::set_calendar_from`]); below a quarter of it the heap takes over again.
    to_calendar: usize,
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
            heap: LaneHeap::new(),
            later: QuadHeap::new(),
            later_time: u64::MAX,
            promoted_time: 0,
            time_base: 0,
            seq_base: 0,
            rebase_from_time: REBASE_TIME_SPAN,
            rebase_from_seq: REBASE_SEQ_SPAN,
            calendar: None,
            calendar_shift: None,
            next_seq: 0,
            now: Time::ZERO,
            tie_rng: None,
            to_calendar: TO_CALENDAR,
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
    ///
    /// While few events are pending, all of them wait in the heap of far events (`later`, on
    /// 128-bit keys): the main heap's keys have no room for a random key.
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

    /// Moves the events to the calendar from `pending` pending events on (back to the heap
    /// below a quarter of that), instead of the default 4,096. For large networks: only the
    /// calendar names the coming events ([`EventQueue::peek_ahead`]), so only with it can the
    /// engine prefetch their state, which pays once that state is not cached. Never changes
    /// the order.
    pub fn set_calendar_from(&mut self, pending: usize) {
        self.to_calendar = pending.max(4);
        let len = self.len();
        match self.calendar {
            None if len > self.to_calendar => self.move_to_calendar(),
            Some(_) if len < self.to_calendar / 4 => self.move_to_heap(),
            _ => {}
        }
    }

    /// The time of the most recently popped event.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedules `payload` at `time`, which must not be in the past. Always inlined (see
    /// `push_to_calendar`).
    #[inline(always)]
    pub fn schedule(&mut self, time: Time, payload: E) {
        debug_assert!(
            time >= self.now,
            "event scheduled in the past: {time} < {}",
            self.now
        );
        // Counted after the match: a rebase there bases on the sequence number of this event.
        let seq = self.next_seq;
        match &mut self.calendar {
            None => {
                if time.0 > self.now.0.saturating_add(LATER_AHEAD) || self.tie_rng.is_some() {
                    self.schedule_far(time, seq, payload);
                } else {
                    if seq >= self.rebase_from_seq {
                        self.rebase();
                    }
                    let key = self.near_key(time.0, seq);
                    if let Some(len) = self.heap.push(Near { key, payload })
                        && len + self.later.len() > self.to_calendar
                    {
                        self.move_to_calendar();
                    }
                }
            }
            Some(calendar) => {
                let tie = match &mut self.tie_rng {
                    None => seq,
                    Some(rng) => Self::random_tie(rng, time > self.now, seq),
                };
                push_to_calendar(calendar, full_key(time.0, tie), payload);
            }
        }
        self.next_seq += 1;
    }

    /// The main-heap key of an event due at `time` (ps) with sequence number `seq`.
    #[inline(always)]
    fn near_key(&self, time: u64, seq: u64) -> u64 {
        let (dt, ds) = (time - self.time_base, seq - self.seq_base);
        // The bounds the rebase keeps (tighter than the key's fields, so that tests check it).
        debug_assert!(
            dt < REBASE_TIME_SPAN + LATER_AHEAD && ds < REBASE_SEQ_SPAN,
            "main-heap key out of range"
        );
        (dt << OFFSET_BITS) | (ds + 1)
    }

    /// The time (ps) of a main-heap key.
    #[inline(always)]
    fn near_time(&self, key: u64) -> u64 {
        self.time_base + (key >> OFFSET_BITS)
    }

    /// The sequence number of a main-heap key.
    #[inline(always)]
    fn near_seq(&self, key: u64) -> u64 {
        debug_assert!(key != PROMOTED_KEY);
        self.seq_base + (key & OFFSET_MASK) - 1
    }

    /// A main-heap entry with its full (time, sequence) key.
    fn full_entry(&self, near: Near<E>) -> Entry<E> {
        Entry::new(
            full_key(self.near_time(near.key), self.near_seq(near.key)),
            near.payload,
        )
    }

    /// Many events pending: moves them from the heaps to the calendar.
    #[cold]
    #[inline(never)]
    fn move_to_calendar(&mut self) {
        let mut calendar = Box::new(Calendar::starting_at(self.now.0, self.calendar_shift));
        let near: Vec<Near<E>> = self.heap.drain();
        for entry in near.into_iter().map(|n| self.full_entry(n)) {
            calendar.push(entry);
        }
        for entry in self.later.drain() {
            calendar.push(entry);
        }
        self.later_time = u64::MAX;
        self.calendar = Some(calendar);
    }

    /// Few events pending: moves them from the calendar back to the heaps.
    #[cold]
    #[inline(never)]
    fn move_to_heap(&mut self) {
        let mut calendar = self.calendar.take().expect("in the calendar");
        debug_assert!(self.heap.len() == 0 && self.later.len() == 0);
        self.calendar_shift = Some(calendar.shift());
        self.fill_heaps(calendar.drain_sorted());
    }

    /// Files `entries` (sorted by key; the main heap is empty) with bases at the current
    /// instant: to `later` those due more than `LATER_AHEAD` ahead or scheduled more than
    /// `SEQ_KEEP` events ago (so older than every entry left in the main heap), the rest to
    /// the main heap (with random ties, all to `later`).
    fn fill_heaps(&mut self, entries: Vec<Entry<E>>) {
        debug_assert!(self.heap.len() == 0);
        let keep_from = self.next_seq.saturating_sub(SEQ_KEEP);
        let horizon = self.now.0.saturating_add(LATER_AHEAD);
        let random = self.tie_rng.is_some();
        let (near, far): (Vec<Entry<E>>, Vec<Entry<E>>) = entries
            .into_iter()
            .partition(|e| !random && e.time() <= horizon && e.key() as u64 >= keep_from);
        for entry in far {
            self.later.push(entry);
        }
        self.later_time = self.later.peek().map_or(u64::MAX, |e| e.time());
        self.set_bases(
            near.iter()
                .map(|e| e.key() as u64)
                .min()
                .unwrap_or(self.next_seq),
        );
        let near = near
            .into_iter()
            .map(|e| Near {
                key: self.near_key(e.time(), e.key() as u64),
                payload: e.payload,
            })
            .collect();
        self.heap = LaneHeap::from_sorted(near);
    }

    /// The main heap's keys count from now and sequence number `seq`.
    fn set_bases(&mut self, seq: u64) {
        self.time_base = self.now.0;
        self.seq_base = seq;
        self.rebase_from_time = self.time_base + REBASE_TIME_SPAN;
        self.rebase_from_seq = seq + REBASE_SEQ_SPAN;
    }

    /// Moves the main heap's bases up to the current instant and its oldest entry, so that
    /// its keys keep fitting (see `OFFSET_BITS`): every key drops by the same amount, which
    /// keeps their order and the heap's shape. O(pending), about every 2 ms of simulated time
    /// (or 2^31 events).
    #[cold]
    #[inline(never)]
    fn rebase(&mut self) {
        let seq_base = self.seq_base;
        let mut oldest: Option<u64> = None;
        self.heap.for_each(|e| {
            let seq = seq_base + (e.key & OFFSET_MASK) - 1;
            oldest = Some(oldest.map_or(seq, |o| o.min(seq)));
        });
        match oldest {
            None => {
                self.set_bases(self.next_seq);
            }
            Some(oldest) if oldest < self.next_seq.saturating_sub(SEQ_KEEP) => {
                // Entries pending for 2^31 events: all back through `fill_heaps`, which moves
                // those to `later`.
                let near: Vec<Near<E>> = self.heap.drain();
                let mut all: Vec<Entry<E>> = near.into_iter().map(|n| self.full_entry(n)).collect();
                all.sort_unstable_by_key(|e| e.key());
                self.fill_heaps(all);
            }
            Some(oldest) => {
                // Every pending entry is due at or after now, so the time offset is below 2^32.
                let drop =
                    ((self.now.0 - self.time_base) << OFFSET_BITS) + (oldest - self.seq_base);
                self.heap.map_keys(|e| e.key -= drop);
                self.set_bases(oldest);
            }
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

    /// Adds an event scheduled far ahead, or any with random ties, to `later` (out of line:
    /// timers are re-armed lazily, so this is rare without random ties).
    #[inline(never)]
    fn schedule_far(&mut self, time: Time, seq: u64, payload: E) {
        let tie = match &mut self.tie_rng {
            None => seq,
            Some(rng) => Self::random_tie(rng, time > self.now, seq),
        };
        let entry = Entry::new(full_key(time.0, tie), payload);
        self.later_time = self.later_time.min(time.0);
        if let Some(len) = self.later.push(entry)
            && len + self.heap.len() > self.to_calendar
        {
            self.move_to_calendar();
        }
    }

    /// Pops the earliest event and advances the clock to it.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_until(Time::MAX).ok()
    }

    /// Pops the earliest event if it is due at or before `limit`, and advances the clock to
    /// it; otherwise leaves it and returns its time (`Err(None)`: no event is pending). The
    /// loop's [`EventQueue::peek_time`] and [`EventQueue::pop`] in one look at the queue.
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Result<(Time, E), Option<Time>> {
        let (time, payload) = match &mut self.calendar {
            None if self.tie_rng.is_some() => {
                // Random ties: every event waits in `later`.
                let time = self.pop_random(limit.0)?;
                (time, self.later.popped().payload)
            }
            None => {
                let time = self.pop_heaps(limit.0)?;
                let payload = self.heap.popped().payload;
                if time >= self.rebase_from_time {
                    self.now = Time(time);
                    self.rebase();
                }
                (time, payload)
            }
            Some(calendar) => {
                let top = calendar
                    .pop_by(limit.0)
                    .map_err(|key| key.map(|k| Time((k >> 64) as u64)))?;
                if calendar.len() < self.to_calendar / 4 {
                    self.now = Time(top.time());
                    self.move_to_heap();
                }
                (top.time(), top.payload)
            }
        };
        // Invariant: simulated time never goes backwards.
        debug_assert!(time >= self.now.0, "time went backwards");
        self.now = Time(time);
        Ok((self.now, payload))
    }

    /// [`EventQueue::pop_until`] from the heaps: removes the earlier first entry of the two,
    /// `later`'s on equal times (see [`EventQueue::later`]), and returns its time; the entry is
    /// then [`QuadHeap::popped`]. The event always leaves from the main heap: `later`'s, when
    /// it is first, is moved there first (`promote_later`).
    ///
    /// Why not return the payload with the time: the answer then went through a stack slot,
    /// the payload stored as 4 + 8 bytes and loaded as 8 + 4, a load that cannot take its data
    /// from those stores (a profile of S3 showed it; docs/perf-log.md).
    #[inline(always)]
    fn pop_heaps(&mut self, limit: u64) -> Result<u64, Option<Time>> {
        let mut main = self.heap.peek();
        let later_first = match main {
            Some(e) => self.later_time <= self.near_time(e.key) && self.later.len() != 0,
            None => self.later.len() != 0,
        };
        if later_first {
            if !self.promote_later(limit) {
                return Err(Some(Time(self.later_time)));
            }
            main = self.heap.peek();
        }
        let Some(top) = main else {
            return Err(None);
        };
        let time = if top.key == PROMOTED_KEY {
            self.promoted_time
        } else {
            self.near_time(top.key)
        };
        if time > limit {
            return Err(Some(Time(time)));
        }
        self.heap.take_first();
        Ok(time)
    }

    /// `later`'s first entry, the earliest pending, moves to the main heap's front (key
    /// `PROMOTED_KEY`), to be popped at once, if it is due by `limit` (false: it is not).
    /// Out of line: timers pop rarely.
    #[inline(never)]
    fn promote_later(&mut self, limit: u64) -> bool {
        let first = self.later.peek().expect("later is not empty");
        self.later_time = first.time();
        if first.time() > limit {
            return false;
        }
        self.later.take_first();
        self.later_time = self.later.peek().map_or(u64::MAX, |e| e.time());
        self.promoted_time = first.time();
        self.heap.push(Near {
            key: PROMOTED_KEY,
            payload: first.payload,
        });
        true
    }

    /// With random ties (every event in `later`): removes `later`'s first entry if it is due
    /// by `limit`, and returns its time; the entry is then `later`'s [`QuadHeap::popped`]
    /// (see [`EventQueue::pop_heaps`] for why). It leaves the hole for the next push to fill,
    /// one sift per event, as the main heap does. Out of line: inlined, it made the common
    /// FIFO-tie runs slower for a smaller gain with random ties.
    #[inline(never)]
    fn pop_random(&mut self, limit: u64) -> Result<u64, Option<Time>> {
        let first = self.later.peek().ok_or(None)?;
        if first.time() > limit {
            return Err(Some(Time(first.time())));
        }
        self.later.take_first();
        Ok(first.time())
    }

    /// The time of the earliest pending event.
    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        let time = match &mut self.calendar {
            None => {
                let main = self.heap.peek().map(|e| self.near_time(e.key));
                let later = self.later.peek().map(|e| e.time());
                match (main, later) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                }
            }
            Some(calendar) => calendar.peek_key().map(|k| (k >> 64) as u64),
        };
        time.map(Time)
    }

    /// The `k`-th event after the earliest (0: the one [`EventQueue::pop`] returns next), if the
    /// queue knows it without work: only at scale (the calendar's current bucket, which is
    /// sorted). A hint for prefetching the state the coming events touch, never for ordering:
    /// an event scheduled later may still come first.
    #[inline(always)]
    pub fn peek_ahead(&self, k: usize) -> Option<&E> {
        match &self.calendar {
            None => None,
            Some(calendar) => calendar.peek_ahead(k),
        }
    }

    /// The coming events [`EventQueue::peek_ahead`] names, as one view: one look-up of the
    /// queue for all of them.
    #[inline(always)]
    pub fn coming(&self) -> Coming<'_, E> {
        match &self.calendar {
            None => Coming(&[]),
            Some(calendar) => Coming(calendar.coming()),
        }
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        match &self.calendar {
            None => self.heap.len() + self.later.len(),
            Some(calendar) => calendar.len(),
        }
    }
    /// No event waiting: the run has nothing left to do.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Number of events ever scheduled.
    pub fn scheduled_total(&self) -> u64 {
        self.next_seq
    }
}

/// Inlined, as `schedule` is: out of line, the entry went to it through the stack, built there
/// by small stores and read back by 16-byte loads that cannot be forwarded from them (a large
/// fat-tree stalled on that hand-off in `schedule` and here). Inlined, most of that copy goes.
/// The key and payload go on as two values, which the wheel writes into its bucket field by
/// field (`calendar::append`: the rest of that copy). Measurements: docs/perf-log.md.
#[inline(always)]
fn push_to_calendar<E: Copy>(calendar: &mut Calendar<E>, key: u128, payload: E) {
    calendar.push_parts(key, payload);
}

#[cfg(test)]
mod tests;

/// The events that pop next, earliest first, as far as the queue knows them cheaply (see
/// [`EventQueue::peek_ahead`]): hints, never an order.
#[derive(Clone, Copy, Debug)]
pub struct Coming<'a, E>(&'a [calendar::Entry<E>]);

impl<'a, E> Coming<'a, E> {
    /// No coming event is known (the heap holds the events, or the calendar's bucket is
    /// used up).
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The `k`-th coming event (0: the earliest), if known.
    #[inline(always)]
    pub fn get(&self, k: usize) -> Option<&'a E> {
        self.0.get(k).map(|e| &e.payload)
    }
}
