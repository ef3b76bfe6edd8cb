//! The storage behind [`EventQueue`](super::EventQueue): a calendar queue (a timing wheel of
//! fixed-width time buckets) with an overflow heap for far-future events.
//!
//! Why not one heap: at data-center scale tens of thousands of events are pending (one per busy
//! port), a heap of them no longer fits in the caches, and every pop walks a root-to-leaf path
//! of cache misses. Almost every event is a port's next head arrival, a few microseconds ahead;
//! here such an event is appended to its bucket (one store at a bucket's tail) and the bucket is
//! sorted when its time comes, which touches only a few small contiguous arrays. Events beyond
//! the wheel's horizon (RTO and delayed-ACK timers, milliseconds ahead) wait in a binary heap
//! and move into the wheel as it turns.
//!
//! The order is exactly that of a priority queue on the entries' keys (time, then tie key):
//! - `near` holds every pending event earlier than `near_end`, sorted by key, so the earliest
//!   pending event is always `near[head]` (while `near` has one);
//! - the wheel holds the later events of buckets `cur .. cur + WHEEL_BUCKETS`, each in its
//!   ring slot (bucket number modulo the ring size), unsorted;
//! - `far` holds the events of later buckets.
//!
//! Buckets partition time in increasing order, so every event of `near` is earlier than every
//! event of the wheel, and those than every event of `far`. When `near` runs out, the next
//! occupied bucket becomes `near` (sorted by key) and `cur` and `near_end` move past it; `far`
//! then hands the wheel the events that came within its horizon.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Ring slots of the wheel: 2^8 buckets (a 6 KiB array of bucket headers). Each slot's vector
/// keeps the capacity of the largest bucket it held, so the ring's memory is about slots x
/// that: 4,096 slots held 36 MB more on S5 for no speed (the horizon, a few microseconds at
/// k = 32, covers a packet's next hop; timers beyond it wait in `far`).
const WHEEL_BITS: u32 = 8;
const WHEEL_BUCKETS: u64 = 1 << WHEEL_BITS;
const WHEEL_MASK: u64 = WHEEL_BUCKETS - 1;
const BITMAP_WORDS: usize = (WHEEL_BUCKETS / 64) as usize;

/// A bucket spans 2^shift ps. The width adapts to the density of events (as in Brown's calendar
/// queue, CACM 31(10), 1988): every `ADAPT_EVERY` buckets taken, if they held fewer than
/// `FEW_PER_BUCKET` events on average the width doubles, if more than `MANY_PER_BUCKET` it
/// halves, and the pending events are re-bucketed. Too narrow a bucket costs a bucket change per
/// event and spreads a few events over many cache lines (on one switch). A wide bucket costs
/// little since its sort is a counting pass (`sort_near`); narrowing below 1,024 events made
/// S5's wheel horizon (256 buckets) shorter than the 2.2 µs a port's next head is scheduled
/// ahead, and 7.8 % of its events went through the far heap. The width never changes the
/// order of events.
const INITIAL_SHIFT: u32 = 14;
const MIN_SHIFT: u32 = 6;
const MAX_SHIFT: u32 = 40;
const FEW_PER_BUCKET: u32 = 32;
const MANY_PER_BUCKET: u32 = 1024;
#[cfg(not(test))]
const ADAPT_EVERY: u32 = 1024;
/// Small in tests, so that the property tests re-bucket often.
#[cfg(test)]
const ADAPT_EVERY: u32 = 4;

/// Appends the entry `key`, `payload` to `bucket`, each field stored straight into its slot.
///
/// Why not `Vec::push` of an `Entry`: the entry was built on the stack (its key by two 8-byte
/// stores) and copied into the bucket by 16-byte loads, which cannot take their data from
/// narrower stores and wait until those reach the cache, in order, behind the stores of the
/// hop's packet into the next port's FIFO, often to a line still on its way: perf put 5–9 %
/// of S5's event loop on that copy.
#[inline(always)]
fn append<E>(bucket: &mut Vec<Entry<E>>, key: u128, payload: E) {
    if bucket.len() == bucket.capacity() {
        grow_bucket(bucket);
    }
    let len = bucket.len();
    // SAFETY: `len < capacity` (just ensured), so the slot at `len` is allocated and unused;
    // both its fields are written, once, before `set_len` counts it.
    unsafe {
        let slot = bucket.as_mut_ptr().add(len);
        std::ptr::addr_of_mut!((*slot).time).write((key >> 64) as u64);
        std::ptr::addr_of_mut!((*slot).tie).write(key as u64);
        std::ptr::addr_of_mut!((*slot).payload).write(payload);
        bucket.set_len(len + 1);
    }
}

/// Room for more entries in a full bucket (doubling, as `Vec::push` does).
#[cold]
#[inline(never)]
fn grow_bucket<E>(bucket: &mut Vec<Entry<E>>) {
    bucket.reserve(bucket.capacity().max(4));
}

/// One pending event. Its key is `(time << 64) | tie`, so one integer comparison orders by
/// time, then by the tie key (the sequence number, or a random key above it). The key is kept
/// as its two 64-bit halves: a `u128` field would align the entry to 16 bytes, making it 32
/// bytes long instead of 24 with the engine's 8-byte events.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry<E> {
    time: u64,
    tie: u64,
    pub(super) payload: E,
}

// An entry of the engine's 8-byte events is three words: key, tie-break, event.
const _: () = assert!(std::mem::size_of::<Entry<u64>>() == 24);

impl<E> Entry<E> {
    /// The entry of `payload` with key `key`.
    #[inline(always)]
    pub(super) fn new(key: u128, payload: E) -> Self {
        Entry {
            time: (key >> 64) as u64,
            tie: key as u64,
            payload,
        }
    }

    /// The entry's time (ps).
    #[inline(always)]
    pub(super) fn time(&self) -> u64 {
        self.time
    }

    /// The entry's key: (time, tie key).
    #[inline(always)]
    pub(super) fn key(&self) -> u128 {
        (u128::from(self.time) << 64) | u128::from(self.tie)
    }
}

impl<E: Copy> super::heap::Keyed for Entry<E> {
    type Key = u128;
    #[inline(always)]
    fn key(&self) -> u128 {
        Entry::key(self)
    }
}

/// An entry of the overflow heap: `BinaryHeap` is a max-heap, so the order is reversed.
#[derive(Debug)]
struct Far<E>(Entry<E>);

impl<E> PartialEq for Far<E> {
    fn eq(&self, other: &Self) -> bool {
        self.0.key() == other.0.key()
    }
}
impl<E> Eq for Far<E> {}
impl<E> PartialOrd for Far<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Far<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.key().cmp(&self.0.key())
    }
}

/// The pending events (see the module documentation for the invariants).
#[derive(Debug)]
pub(super) struct Calendar<E> {
    /// Every pending event earlier than `near_end`, sorted by key; `near[..head]` were popped.
    near: Vec<Entry<E>>,
    head: usize,
    /// Time (ps) before which every pending event is in `near`; at least `cur << shift`.
    near_end: u64,
    /// The first bucket number held by the wheel.
    cur: u64,
    /// Bucket width: 2^shift ps.
    shift: u32,
    /// Ring slot `b & WHEEL_MASK` holds the events (at or after `near_end`) of bucket `b`, for
    /// `b` in `cur .. cur + WHEEL_BUCKETS`. A slot's vector keeps its capacity when emptied (it
    /// is swapped with `near`'s), so a run in its steady state does not allocate.
    buckets: Vec<Vec<Entry<E>>>,
    /// Bit `s` is set iff ring slot `s` is non-empty.
    occupied: Vec<u64>,
    /// Events in the wheel.
    in_wheel: usize,
    /// Events of buckets from `cur + WHEEL_BUCKETS` on.
    far: BinaryHeap<Far<E>>,
    /// Buckets taken, and the events they held, since the width was last reconsidered.
    taken: u32,
    taken_events: u32,
    /// Scratch of [`Calendar::sort_near`], kept so that a sort does not allocate.
    sorted: Vec<Entry<E>>,
    sub_bucket_bounds: Vec<u32>,
}

impl<E: Copy> Calendar<E> {
    /// An empty calendar for events from `now` (ps) on, with buckets of 2^`shift` ps (`None`:
    /// a default width, then adapted).
    pub(super) fn starting_at(now: u64, shift: Option<u32>) -> Self {
        let shift = shift.unwrap_or(INITIAL_SHIFT);
        let cur = now >> shift;
        Calendar {
            near: Vec::with_capacity(64),
            head: 0,
            near_end: cur << shift,
            cur,
            shift,
            buckets: (0..WHEEL_BUCKETS).map(|_| Vec::new()).collect(),
            occupied: vec![0; BITMAP_WORDS],
            in_wheel: 0,
            far: BinaryHeap::new(),
            taken: 0,
            taken_events: 0,
            sorted: Vec::new(),
            sub_bucket_bounds: Vec::new(),
        }
    }

    /// The current bucket width: 2^shift ps.
    pub(super) fn shift(&self) -> u32 {
        self.shift
    }

    /// Every pending entry, sorted by key; the calendar is left empty.
    pub(super) fn drain_sorted(&mut self) -> Vec<Entry<E>> {
        let mut all = Vec::with_capacity(self.len());
        while let Some(entry) = self.pop() {
            all.push(entry);
        }
        all
    }

    /// Events waiting.
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.near.len() - self.head + self.in_wheel + self.far.len()
    }

    /// Adds an entry. Its time must not be before the last popped one's (the caller checks).
    #[inline(always)]
    pub(super) fn push(&mut self, entry: Entry<E>) {
        self.push_parts(entry.key(), entry.payload);
    }

    /// [`Calendar::push`] of the entry `key`, `payload`, which a wheel bucket takes field by
    /// field (see [`append`]).
    #[inline(always)]
    pub(super) fn push_parts(&mut self, key: u128, payload: E) {
        let time = (key >> 64) as u64;
        if time < self.near_end {
            return self.push_near(Entry::new(key, payload));
        }
        let bucket = time >> self.shift;
        if bucket.wrapping_sub(self.cur) < WHEEL_BUCKETS {
            self.push_wheel(bucket, key, payload);
        } else {
            self.push_far(bucket, Entry::new(key, payload));
        }
    }

    #[inline(always)]
    fn push_wheel(&mut self, bucket: u64, key: u128, payload: E) {
        let slot = (bucket & WHEEL_MASK) as usize;
        append(&mut self.buckets[slot], key, payload);
        self.occupied[slot >> 6] |= 1 << (slot & 63);
        self.in_wheel += 1;
    }

    #[inline(never)]
    fn push_far(&mut self, bucket: u64, entry: Entry<E>) {
        if bucket < self.cur {
            // Only when `near_end` saturated at the last representable bucket.
            self.push_near(entry);
        } else {
            self.far.push(Far(entry));
        }
    }

    /// An event for the buckets already sorted into `near` (e.g. one scheduled for the current
    /// instant): inserted at its place by key, moving the shorter side. The slots before
    /// `head` were popped, so the entries before the place can move one slot towards the
    /// front instead of the ones after it moving back: an event due soon (a transmission
    /// ending within the bucket) moves a few entries, not the bucket's rest. (At k = 8 with
    /// PFC, a quarter of the events land here; `Vec::insert` cost 190 instructions each.)
    #[inline(never)]
    fn push_near(&mut self, entry: Entry<E>) {
        let pos = self.head + self.near[self.head..].partition_point(|e| e.key() < entry.key());
        if self.head > 0 && pos - self.head < self.near.len() - pos {
            self.near.copy_within(self.head..pos, self.head - 1);
            self.head -= 1;
            self.near[pos - 1] = entry;
        } else {
            self.near.insert(pos, entry);
        }
    }

    /// The earliest entry, removed.
    #[inline(always)]
    pub(super) fn pop(&mut self) -> Option<Entry<E>> {
        self.pop_by(u64::MAX).ok()
    }

    /// The earliest entry, removed if its time is at most `limit` (ps); otherwise its key
    /// (`None`: no event is left).
    #[inline(always)]
    pub(super) fn pop_by(&mut self, limit: u64) -> Result<Entry<E>, Option<u128>> {
        if self.head == self.near.len() && !self.refill() {
            return Err(None);
        }
        let entry = self.near[self.head];
        if entry.time() > limit {
            return Err(Some(entry.key()));
        }
        self.head += 1;
        Ok(entry)
    }

    /// The earliest entry's key.
    #[inline(always)]
    pub(super) fn peek_key(&mut self) -> Option<u128> {
        if self.head == self.near.len() && !self.refill() {
            return None;
        }
        Some(self.near[self.head].key())
    }

    /// The `k`-th pending event of the current bucket after its earliest, if there is one.
    #[inline(always)]
    pub(super) fn peek_ahead(&self, k: usize) -> Option<&E> {
        self.near.get(self.head + k).map(|e| &e.payload)
    }

    /// The pending events of the current bucket, earliest first.
    #[inline(always)]
    pub(super) fn coming(&self) -> &[Entry<E>] {
        // `head <= near.len()` always holds.
        self.near.get(self.head..).unwrap_or_default()
    }

    /// `near` is used up: makes the next occupied bucket `near`. False if no event is left.
    #[inline(never)]
    fn refill(&mut self) -> bool {
        self.near.clear();
        self.head = 0;
        if self.in_wheel == 0 && !self.jump_to_far() {
            return false;
        }
        let bucket = self.next_occupied();
        let slot = (bucket & WHEEL_MASK) as usize;
        std::mem::swap(&mut self.near, &mut self.buckets[slot]);
        self.occupied[slot >> 6] &= !(1 << (slot & 63));
        self.in_wheel -= self.near.len();
        self.cur = bucket + 1;
        self.near_end = u64::try_from(u128::from(self.cur) << self.shift).unwrap_or(u64::MAX);
        if let Some(first) = self.far.peek()
            && (first.0.time() >> self.shift) - self.cur < WHEEL_BUCKETS
        {
            self.pull_far();
        }
        if self.near.len() > 1 {
            self.sort_near(bucket << self.shift);
        }
        self.taken += 1;
        self.taken_events += self.near.len() as u32;
        if self.taken == ADAPT_EVERY {
            self.adapt();
        }
        true
    }

    /// Sorts `near`, the events of the bucket that starts at `bucket_start` (ps), by key.
    ///
    /// Why not sort the entries by their 128-bit keys: at k = 32 that sort cost about 150
    /// instructions per event. Instead one counting pass files the entries by the top bits of
    /// their time's offset in the bucket into about as many sub-buckets as there are entries
    /// (a power of two, 16-1,024), in one move each; then each sub-bucket, nearly always of one
    /// or two entries, is sorted by key (insertion sort; a real sort if it is large: events at
    /// one instant). Keys are unique (the tie key ends in the sequence number), so
    /// the result is the one order there is.
    fn sort_near(&mut self, bucket_start: u64) {
        let n = self.near.len();
        let digit_bits = (usize::BITS - n.leading_zeros()).clamp(MIN_DIGIT_BITS, MAX_DIGIT_BITS);
        let digits = 1usize << digit_bits;
        let digit_shift = self.shift.saturating_sub(digit_bits);
        let digit = |e: &Entry<E>| ((e.time() - bucket_start) >> digit_shift) as usize;
        // Counts, then start positions, then (after the scatter) end positions per sub-bucket.
        let bounds = &mut self.sub_bucket_bounds;
        bounds.clear();
        bounds.resize(digits + 1, 0);
        for e in &self.near {
            bounds[digit(e) + 1] += 1;
        }
        // The running sum stays in a register: `bounds[d + 1] += bounds[d]` made each step
        // wait for the store of the step before (visible in a k = 16 profile).
        let mut start = 0;
        for bound in &mut bounds[1..] {
            start += *bound;
            *bound = start;
        }
        self.sorted.clear();
        self.sorted.resize(n, self.near[0]);
        for e in &self.near {
            let slot = &mut bounds[digit(e)];
            self.sorted[*slot as usize] = *e;
            *slot += 1;
        }
        let mut start = 0;
        for &end in &bounds[..digits] {
            let end = end as usize;
            if end - start > 1 {
                sort_by_key(&mut self.sorted[start..end]);
            }
            start = end;
        }
        std::mem::swap(&mut self.near, &mut self.sorted);
    }

    /// The wheel is empty: moves it to the earliest far event. False if there is none.
    #[cold]
    fn jump_to_far(&mut self) -> bool {
        let Some(first) = self.far.peek() else {
            return false;
        };
        self.cur = first.0.time() >> self.shift;
        self.near_end = self.cur << self.shift;
        self.pull_far();
        true
    }

    /// Moves the far events that the wheel (now starting at `cur`) covers into it.
    #[cold]
    fn pull_far(&mut self) {
        while let Some(first) = self.far.peek() {
            let bucket = first.0.time() >> self.shift;
            if bucket - self.cur >= WHEEL_BUCKETS {
                break;
            }
            let Far(entry) = self.far.pop().expect("peeked");
            self.push_wheel(bucket, entry.key(), entry.payload);
        }
    }

    /// Reconsiders the bucket width after `ADAPT_EVERY` buckets (see `FEW_PER_BUCKET`).
    #[cold]
    fn adapt(&mut self) {
        let events = self.taken_events;
        self.taken = 0;
        self.taken_events = 0;
        let shift = if events < FEW_PER_BUCKET * ADAPT_EVERY && self.shift < MAX_SHIFT {
            self.shift + 1
        } else if events > MANY_PER_BUCKET * ADAPT_EVERY && self.shift > MIN_SHIFT {
            self.shift - 1
        } else {
            return;
        };
        self.rebucket(shift);
    }

    /// Changes the bucket width to 2^shift ps and re-files the wheel's and far events.
    fn rebucket(&mut self, shift: u32) {
        let mut moved: Vec<Entry<E>> = Vec::with_capacity(self.in_wheel + self.far.len());
        for (w, word) in self.occupied.iter_mut().enumerate() {
            while *word != 0 {
                let slot = (w << 6) | word.trailing_zeros() as usize;
                *word &= *word - 1;
                moved.append(&mut self.buckets[slot]);
            }
        }
        moved.extend(self.far.drain().map(|Far(e)| e));
        self.in_wheel = 0;
        self.shift = shift;
        // Every moved event is at or after `near_end`, so at or after bucket `cur`.
        self.cur = self.near_end >> shift;
        for entry in moved {
            self.push(entry);
        }
    }

    /// The first occupied bucket at or after `cur` (the wheel must not be empty).
    #[inline(always)]
    fn next_occupied(&self) -> u64 {
        debug_assert!(self.in_wheel > 0);
        let start = (self.cur & WHEEL_MASK) as usize;
        let mut word = start >> 6;
        let mut bits = self.occupied[word] & (!0u64 << (start & 63));
        loop {
            if bits != 0 {
                let slot = ((word << 6) | bits.trailing_zeros() as usize) as u64;
                return self.cur + (slot.wrapping_sub(start as u64) & WHEEL_MASK);
            }
            word = (word + 1) % BITMAP_WORDS;
            bits = self.occupied[word];
        }
    }
}

/// Sub-buckets of [`Calendar::sort_near`]: 2^bits, the bucket's entries rounded up to a power
/// of two within these bounds, so most sub-buckets hold one entry or none.
const MIN_DIGIT_BITS: u32 = 4;
const MAX_DIGIT_BITS: u32 = 10;

/// Sorts a few entries by key: insertion sort, or the library's sort beyond a handful (many
/// events at one instant).
#[inline(always)]
fn sort_by_key<E: Copy>(entries: &mut [Entry<E>]) {
    if entries.len() > 16 {
        entries.sort_unstable_by_key(|e| e.key());
        return;
    }
    for i in 1..entries.len() {
        let entry = entries[i];
        let mut j = i;
        while j > 0 && entries[j - 1].key() > entry.key() {
            entries[j] = entries[j - 1];
            j -= 1;
        }
        entries[j] = entry;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bucket with many events at one instant (the sub-bucket sort's large case), spread
    /// events, and same-time ties pops in key order.
    #[test]
    fn buckets_with_many_same_instant_events_pop_in_key_order() {
        let mut calendar = Calendar::starting_at(0, Some(10));
        let mut keys = Vec::new();
        for i in 0..600u64 {
            // A third at one instant, the rest spread over a few buckets, scheduled in an
            // order unrelated to their times.
            let time = if i % 3 == 0 {
                5_000
            } else {
                (i * 7_919) % 4_096
            };
            // The tie key is the sequence number: here the loop index.
            let key = (u128::from(time) << 64) | u128::from(i);
            calendar.push(Entry::new(key, i));
            keys.push(key);
        }
        keys.sort_unstable();
        let popped: Vec<u128> = std::iter::from_fn(|| calendar.pop().map(|e| e.key())).collect();
        assert_eq!(popped, keys);
    }

    proptest::proptest! {
        /// Events pushed into the bucket being popped (`push_near`, moving whichever side of
        /// their place is shorter) pop in key order among the rest.
        #[test]
        fn pushes_into_the_current_bucket_pop_in_key_order(
            ops in proptest::collection::vec((0u8..3, 0u64..2_048), 1..400),
        ) {
            let mut calendar = Calendar::starting_at(0, Some(10));
            let mut reference = std::collections::BTreeSet::new();
            let (mut seq, mut now) = (0u64, 0u64);
            for (op, delay) in ops {
                if op == 0 {
                    match calendar.pop() {
                        Some(e) => {
                            proptest::prop_assert_eq!(Some(e.key()), reference.pop_first());
                            now = e.time();
                        }
                        None => proptest::prop_assert!(reference.is_empty()),
                    }
                } else {
                    // Due from now to two buckets ahead: many land in the sorted bucket.
                    let key = (u128::from(now + delay) << 64) | u128::from(seq);
                    seq += 1;
                    calendar.push(Entry::new(key, seq));
                    reference.insert(key);
                }
            }
            while let Some(e) = calendar.pop() {
                proptest::prop_assert_eq!(Some(e.key()), reference.pop_first());
            }
            proptest::prop_assert!(reference.is_empty());
        }
    }
}
