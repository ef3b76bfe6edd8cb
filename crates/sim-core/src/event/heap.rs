//! A 4-ary min-heap of entries with a lazy pop: the store of [`EventQueue`](super::EventQueue)
//! while few events are pending (then it fits in the first-level cache and beats the calendar).

/// An entry of a [`QuadHeap`]: ordered by its key alone (keys are unique).
pub(super) trait Keyed: Copy {
    /// The ordering key: 64 bits in the queue's main heap, 128 in its heap of far events.
    type Key: Copy + Ord;
    /// The entry's key.
    fn key(&self) -> Self::Key;
}

/// Branching factor of the heap: a 4-ary heap is half as deep as a binary one, and the four
/// children of a node sit in one or two cache lines.
const ARITY: usize = 4;

/// A pop leaves a hole at the root instead of re-heaping at once; the next push fills the hole
/// with one sift-down. Event handlers nearly always schedule something (a packet's next hop,
/// the next head of a port), so pop + push costs one sift instead of two.
#[derive(Debug)]
pub(super) struct QuadHeap<T> {
    heap: Vec<T>,
    /// The root slot is logically empty (popped, not yet refilled).
    root_is_hole: bool,
}

impl<T: Keyed> QuadHeap<T> {
    /// An empty heap.
    pub(super) fn new() -> Self {
        QuadHeap {
            heap: Vec::with_capacity(1024),
            root_is_hole: false,
        }
    }

    /// Entries waiting.
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.heap.len() - usize::from(self.root_is_hole)
    }

    /// Adds an entry; returns the number of entries if the heap grew (not if it filled the
    /// hole of a pop), so that the caller tests its size only then.
    #[inline(always)]
    pub(super) fn push(&mut self, entry: T) -> Option<usize> {
        if self.root_is_hole {
            self.root_is_hole = false;
            self.sift_down(0, entry);
            None
        } else {
            self.heap.push(entry);
            self.sift_up(self.heap.len() - 1);
            Some(self.heap.len())
        }
    }

    /// The earliest entry.
    #[inline(always)]
    pub(super) fn peek(&mut self) -> Option<T> {
        self.fill_hole();
        self.heap.first().copied()
    }

    /// Removes the earliest entry, just read by [`QuadHeap::peek`] (lazily: its slot becomes
    /// the hole).
    #[inline(always)]
    pub(super) fn take_first(&mut self) {
        debug_assert!(!self.root_is_hole && !self.heap.is_empty());
        self.root_is_hole = true;
    }

    /// The entry [`QuadHeap::take_first`] just removed (still in the hole).
    #[inline(always)]
    pub(super) fn popped(&self) -> T {
        debug_assert!(self.root_is_hole);
        self.heap[0]
    }

    /// Every entry, in no particular order.
    pub(super) fn entries(&mut self) -> &[T] {
        self.fill_hole();
        &self.heap
    }

    /// Applies `f` to every key, which must keep their order (the queue's rebase).
    pub(super) fn map_keys(&mut self, f: impl Fn(&mut T)) {
        self.fill_hole();
        self.heap.iter_mut().for_each(f);
    }

    /// Every entry, in no particular order; the heap is left empty.
    pub(super) fn drain(&mut self) -> impl Iterator<Item = T> + '_ {
        self.fill_hole();
        self.heap.drain(..)
    }

    /// Removes the hole left by a pop: the last entry moves to the root and sifts down.
    #[inline(always)]
    fn fill_hole(&mut self) {
        if !self.root_is_hole {
            return;
        }
        self.root_is_hole = false;
        let last = self.heap.pop().expect("a hole implies a slot");
        if !self.heap.is_empty() {
            self.sift_down_out_of_line(last);
        }
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        let entry = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.heap[parent].key() <= entry.key() {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = entry;
    }

    /// [`QuadHeap::sift_down`] from the root, not inlined: a hole is filled by its own last
    /// entry only when a pop is not followed by a push.
    #[inline(never)]
    fn sift_down_out_of_line(&mut self, entry: T) {
        self.sift_down(0, entry);
    }

    /// Places `entry` in the hole at `i` or below it (the slot's old content is overwritten).
    /// Inlined into `push` (and so into `EventQueue::schedule`, itself always inlined): no call
    /// per event.
    #[inline(always)]
    fn sift_down(&mut self, mut i: usize, entry: T) {
        let heap = self.heap.as_mut_slice();
        let key = entry.key();
        loop {
            let first = i * ARITY + 1;
            let Some(children) = heap.get(first..first + ARITY) else {
                // Fewer than ARITY children: leaves (the last, partly filled level). The
                // entry goes to the earliest of them if that one is earlier still.
                // (A plain index and key: the `Option` of both this loop kept cost a dozen
                // conditional moves per child.)
                let (mut best, mut best_key) = (i, key);
                for (j, c) in heap.iter().enumerate().skip(first) {
                    if c.key() < best_key {
                        (best, best_key) = (j, c.key());
                    }
                }
                if best != i {
                    heap[i] = heap[best];
                    i = best;
                }
                break;
            };
            // Full set of children: a fixed-size array lets the compiler drop bounds checks.
            let c: &[T; ARITY] = children.try_into().expect("ARITY children");
            let (a, ka) = if c[1].key() < c[0].key() {
                (1, c[1].key())
            } else {
                (0, c[0].key())
            };
            let (b, kb) = if c[3].key() < c[2].key() {
                (3, c[3].key())
            } else {
                (2, c[2].key())
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
