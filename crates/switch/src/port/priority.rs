//! A port that serves traffic classes by strict priority (or deficit weighted round robin),
//! deciding each departure at dequeue, and that may be paused per class by Priority Flow
//! Control (IEEE 802.1Qbb).
//!
//! Waiting packets sit in one FIFO per class. Each transmission end (a `TxDone` event) starts
//! the next packet of the highest class that has one and is not paused (with DWRR: of the
//! class whose turn it is, [`Dwrr`]). A paused class keeps
//! its packets until its pause lapses or a RESUME comes (802.1Qbb §36.1.3.2: the MAC control
//! sublayer stops transmission of the priority, but a frame already being sent finishes). PAUSE
//! frames this port sends jump every class queue: they go on the wire as soon as the packet
//! being sent is done.

use incastsim_core::{Packet, Time};
use std::collections::VecDeque;

/// A packet waiting for the transmitter, with when it was admitted and the port it came in on
/// (its node's ingress accounting hears when it leaves; `u32::MAX`: none).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Waiting {
    pub packet: Packet,
    pub admitted: Time,
    pub ingress: u32,
}

/// One class of a strict-priority port: its queue, the wire bytes in it (what a per-class
/// discipline judges) and its pause. Kept together, so that a packet's admission and its
/// departure read one block per port, not one per per-class array.
#[derive(Clone, Debug, PartialEq)]
struct ClassQueue {
    queue: VecDeque<Waiting>,
    bytes: u64,
    /// Paused until this time (a time not after now: not paused; never set on a port that
    /// is not pausable).
    paused_until: Time,
}

/// The per-class queues of a strict-priority port and its pause state.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct PriorityQueues {
    classes: Vec<ClassQueue>,
    waiting_count: usize,
    /// Bit c: class c has a packet waiting (strict priority picks the highest set bit that
    /// is not paused; at most 64 classes, as the config allows).
    nonempty: u64,
    /// When the pending `TxDone` event is due (`Time::MAX`: none is). An event at another
    /// time is stale: a RESUME moved the port's next look earlier.
    tx_done_at: Time,
    /// PFC may pause these classes.
    pausable: bool,
    /// The port's owner tells it when a pause lapses ([`PriorityQueues::pause_lapsed`]), so a
    /// look that finds only paused classes waiting asks for no `TxDone` at the pause's end.
    lapses_told: bool,
    /// Round robin between the classes instead of strict priority (`None`).
    /// Boxed: the rest of the queues' state fits one cache line.
    dwrr: Option<Box<Dwrr>>,
}

/// Deficit weighted round robin (Shreedhar & Varghese, "Efficient fair queueing using deficit
/// round robin", SIGCOMM 1995, Fig. 2): the classes take turns; on its turn a class adds its
/// quantum to its deficit and sends head packets while they fit in it; a class found empty
/// loses its deficit. A paused class is passed over without a quantum, its deficit kept.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Dwrr {
    /// Per class: bytes added per turn.
    quantum: Vec<u64>,
    /// Per class: bytes it may still send.
    deficit: Vec<u64>,
    /// The class whose turn it is.
    turn: usize,
    /// The class on its turn has had its quantum.
    credited: bool,
}

impl Dwrr {
    /// Quanta per class, bytes (each ≥ 1).
    pub fn new(quantum: Vec<u64>) -> Dwrr {
        let n = quantum.len();
        Dwrr {
            quantum,
            deficit: vec![0; n],
            turn: 0,
            credited: false,
        }
    }

    fn next_turn(&mut self) {
        self.turn = (self.turn + 1) % self.quantum.len();
        self.credited = false;
    }
}

impl PriorityQueues {
    /// `classes` queues (≥ 1); `pausable`: PFC may pause them.
    pub fn new(classes: usize, pausable: bool) -> PriorityQueues {
        assert!((1..=64).contains(&classes), "1 to 64 classes");
        PriorityQueues {
            classes: vec![
                ClassQueue {
                    queue: VecDeque::new(),
                    bytes: 0,
                    paused_until: Time::ZERO,
                };
                classes
            ],
            waiting_count: 0,
            nonempty: 0,
            tx_done_at: Time::MAX,
            pausable,
            lapses_told: false,
            dwrr: None,
        }
    }

    /// Serves the classes by DWRR with these quanta (bytes per class) instead of strict
    /// priority.
    pub fn with_dwrr(mut self, quantum: Vec<u64>) -> PriorityQueues {
        assert_eq!(quantum.len(), self.classes.len(), "one quantum per class");
        assert!(quantum.iter().all(|&q| q > 0), "quanta above 0");
        self.dwrr = Some(Box::new(Dwrr::new(quantum)));
        self
    }

    /// Number of classes.
    pub fn classes(&self) -> usize {
        self.classes.len()
    }

    /// Whether PFC may pause these queues.
    pub fn pausable(&self) -> bool {
        self.pausable
    }

    /// The class of `packet`: min(DSCP, classes − 1).
    #[inline]
    pub fn class_of(&self, packet: &Packet) -> usize {
        self.class_of_dscp(packet.dscp)
    }

    /// The class of packets with `dscp`.
    #[inline]
    pub fn class_of_dscp(&self, dscp: u8) -> usize {
        (dscp as usize).min(self.classes.len() - 1)
    }

    /// Packets waiting in all classes.
    #[inline]
    pub fn waiting_count(&self) -> usize {
        self.waiting_count
    }

    /// Every waiting packet (for the mean queue).
    pub fn iter(&self) -> impl Iterator<Item = &Waiting> {
        self.classes.iter().flat_map(|q| q.queue.iter())
    }

    /// Whether class `c` is paused at `now`.
    #[inline]
    pub fn paused(&self, c: usize, now: Time) -> bool {
        self.classes.get(c).is_some_and(|q| q.paused_until > now)
    }

    /// Until when class `c` is paused (in the past if it is not).
    pub fn paused_until(&self, c: usize) -> Time {
        self.classes.get(c).map_or(Time::ZERO, |q| q.paused_until)
    }

    /// Whether a packet waits, in a class that is not paused, that this instant's pick would
    /// serve before or beside one of class `c`: in `c` or a higher class by strict priority;
    /// in any class under DWRR (whose pick follows its deficits).
    pub fn served_before(&self, c: usize, now: Time) -> bool {
        let mut left = if self.dwrr.is_some() || c >= 64 {
            self.nonempty
        } else {
            self.nonempty >> c << c
        };
        while left != 0 {
            let k = left.trailing_zeros() as usize;
            left &= left - 1;
            if self.classes[k].paused_until <= now {
                return true;
            }
        }
        false
    }

    /// Whether a packet of class `c` admitted at `now` must wait: the link is busy (until
    /// `link_free_at`), others wait, or its class is paused.
    #[inline]
    pub fn must_wait(&self, c: usize, now: Time, link_free_at: Time) -> bool {
        link_free_at > now || self.waiting_count > 0 || self.paused(c, now)
    }

    /// Queues `w` in class `c`.
    pub fn push(&mut self, c: usize, w: Waiting) {
        let q = &mut self.classes[c];
        q.bytes += u64::from(w.packet.wire_bytes());
        q.queue.push_back(w);
        self.waiting_count += 1;
        self.nonempty |= 1 << c;
    }

    /// Class `c`'s queue: the bytes and packets waiting in it.
    pub fn class_occupancy(&self, c: usize) -> crate::Occupancy {
        crate::Occupancy {
            bytes: self.classes[c].bytes,
            packets: self.classes[c].queue.len() as u32,
        }
    }

    /// Takes the head of class `c` (which has one).
    #[inline]
    fn pop(&mut self, c: usize) -> Waiting {
        let q = &mut self.classes[c];
        let w = q.queue.pop_front().expect("non-empty");
        q.bytes -= u64::from(w.packet.wire_bytes());
        match q.queue.front() {
            // The next packet of the class leaves at the next pick at the earliest, a
            // transmission from now: a long queue's front was written long ago and left the
            // cache since (a hint: no result depends on it).
            Some(next) => incastsim_core::prefetch::prefetch_bytes(next, size_of::<Waiting>()),
            None => self.nonempty &= !(1 << c),
        }
        self.waiting_count -= 1;
        w
    }

    /// Whether the owner tells the port when a pause lapses (see `lapses_told`).
    pub fn lapses_told(&self) -> bool {
        self.lapses_told
    }

    /// From now on the owner tells the port when a pause lapses.
    pub fn tell_lapses(&mut self) {
        self.lapses_told = true;
    }

    /// Asks for a `TxDone` at `at`: returns the time to schedule one, unless one is pending
    /// no later.
    pub fn request_tx_done(&mut self, at: Time) -> Option<Time> {
        (at < self.tx_done_at).then(|| {
            self.tx_done_at = at;
            at
        })
    }

    /// A `TxDone` event popped at `now`: false if it is stale (another is due at its own
    /// time), else the port looks now and no event is pending any more.
    pub fn take_tx_done(&mut self, now: Time) -> bool {
        if self.tx_done_at != now {
            return false;
        }
        self.tx_done_at = Time::MAX;
        true
    }

    /// The next packet to start at `now`: the head of the highest class that has one and is
    /// not paused; `Err(Some(t))`: every class with packets is paused, the first until `t`.
    pub fn pick(&mut self, now: Time) -> Result<Waiting, Option<Time>> {
        if self.dwrr.is_some() {
            return self.pick_dwrr(now);
        }
        let mut resume_at = None::<Time>;
        // The classes with packets, highest first.
        let mut left = self.nonempty;
        while left != 0 {
            let c = 63 - left.leading_zeros() as usize;
            left &= !(1 << c);
            let until = self.classes[c].paused_until;
            if until > now {
                resume_at = Some(resume_at.map_or(until, |t| t.min(until)));
                continue;
            }
            return Ok(self.pop(c));
        }
        Err(resume_at)
    }

    /// [`PriorityQueues::pick`] by DWRR: every class with packets and not paused gets turns
    /// until one's deficit covers its head packet (a quantum may be smaller than a packet, so
    /// this may take several rounds: at most the largest packet over the smallest quantum).
    fn pick_dwrr(&mut self, now: Time) -> Result<Waiting, Option<Time>> {
        let mut resume_at = None::<Time>;
        let eligible = (0..self.classes.len())
            .filter(|&c| !self.classes[c].queue.is_empty())
            .filter(|&c| {
                let paused = self.paused(c, now);
                if paused {
                    let until = self.classes[c].paused_until;
                    resume_at = Some(resume_at.map_or(until, |t| t.min(until)));
                }
                !paused
            })
            .count();
        if eligible == 0 {
            return Err(resume_at);
        }
        let d = self.dwrr.as_mut().expect("DWRR");
        loop {
            let c = d.turn;
            let Some(head) = self.classes[c].queue.front() else {
                // An empty class loses its deficit (DRR: "if queue empty, deficit = 0").
                d.deficit[c] = 0;
                d.next_turn();
                continue;
            };
            let paused = self.classes[c].paused_until > now;
            if paused {
                d.next_turn();
                continue;
            }
            if !d.credited {
                d.deficit[c] += d.quantum[c];
                d.credited = true;
            }
            let size = u64::from(head.packet.wire_bytes());
            if size <= d.deficit[c] {
                d.deficit[c] -= size;
                let q = &mut self.classes[c];
                let w = q.queue.pop_front().expect("non-empty");
                q.bytes -= size;
                self.waiting_count -= 1;
                if q.queue.is_empty() {
                    self.nonempty &= !(1 << c);
                    d.deficit[c] = 0;
                    d.next_turn();
                }
                return Ok(w);
            }
            d.next_turn();
        }
    }

    /// Pauses class `c` until `until` (a later PAUSE replaces an earlier one's time, as
    /// 802.1Qbb's per-priority timer is reloaded; `until` ≤ now resumes it).
    pub fn set_pause(&mut self, c: usize, until: Time) {
        if self.pausable
            && let Some(q) = self.classes.get_mut(c)
        {
            q.paused_until = until;
        }
    }

    /// Packets waiting in class `c`.
    pub fn class_waiting(&self, c: usize) -> usize {
        self.classes.get(c).map_or(0, |q| q.queue.len())
    }

    /// Whether class `c` holds a packet that came in by `ingress` (a scan of the class's
    /// queue that stops at the first: read only on PFC's rare checks, never per packet).
    pub fn holds_from(&self, c: usize, ingress: u32) -> bool {
        self.classes
            .get(c)
            .is_some_and(|q| q.queue.iter().any(|w| w.ingress == ingress))
    }

    /// Bytes (on the wire) of the packets waiting in class `c` that came in by `ingress` (a
    /// scan of the class's queue, for PFC's rare checks only).
    pub fn bytes_from(&self, c: usize, ingress: u32) -> u64 {
        self.classes.get(c).map_or(0, |q| {
            q.queue
                .iter()
                .filter(|w| w.ingress == ingress)
                .map(|w| w.packet.wire_bytes() as u64)
                .sum()
        })
    }

    /// The packets waiting in class `c`, oldest first, with when each was admitted.
    pub fn class_iter(&self, c: usize) -> impl Iterator<Item = (&Packet, Time)> {
        self.classes
            .get(c)
            .into_iter()
            .flat_map(|q| q.queue.iter())
            .map(|w| (&w.packet, w.admitted))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use incastsim_core::PacketKind;

    fn packet(class: u8, bytes: u32) -> Waiting {
        let mut packet = Packet::new(PacketKind::Udp, 0, 0, bytes, 0);
        packet.dscp = class;
        Waiting {
            packet,
            admitted: Time::ZERO,
            ingress: u32::MAX,
        }
    }

    fn order(q: &mut PriorityQueues, now: Time, n: usize) -> Vec<u8> {
        (0..n)
            .map(|_| q.pick(now).expect("a packet").packet.dscp)
            .collect()
    }

    /// DWRR by hand: quanta 3000 and 1000 B, 1000 B packets, both classes backlogged: class 0
    /// sends three, class 1 one, and so on; a 1500 B packet of class 1 waits a turn for its
    /// deficit to reach it (1000, then 2000, leaving 500 for the next 1000 B packet, which
    /// waits another turn).
    #[test]
    fn dwrr_serves_by_weight_by_hand() {
        let mut q = PriorityQueues::new(2, true).with_dwrr(vec![3000, 1000]);
        for _ in 0..8 {
            q.push(0, packet(0, 1000));
        }
        q.push(1, packet(1, 1000));
        q.push(1, packet(1, 1500));
        q.push(1, packet(1, 1000));
        let now = Time::ZERO;
        assert_eq!(order(&mut q, now, 4), [0, 0, 0, 1]);
        // Class 1's head is 1500 B: 1000 B of deficit is not enough, its turn passes.
        assert_eq!(order(&mut q, now, 4), [0, 0, 0, 0]);
        // Class 0's last packet on its deficit (2000 left), then class 1's 1500 B at 2000.
        assert_eq!(order(&mut q, now, 2), [0, 1]);
        // Class 0 is empty: class 1 gets every turn (500 + 1000 covers its last 1000 B).
        assert_eq!(order(&mut q, now, 1), [1]);
        assert!(q.pick(now).is_err());
    }

    /// A paused class is passed over (its deficit kept); strict priority skips it too, and
    /// when only paused classes wait, the earliest resume time is the answer.
    #[test]
    fn paused_classes_are_passed_over() {
        for dwrr in [false, true] {
            let mut q = PriorityQueues::new(2, true);
            if dwrr {
                q = q.with_dwrr(vec![1000, 1000]);
            }
            q.push(0, packet(0, 1000));
            q.push(1, packet(1, 1000));
            q.set_pause(1, Time(50));
            let now = Time(10);
            assert_eq!(order(&mut q, now, 1), [0], "dwrr {dwrr}");
            assert_eq!(q.pick(now).unwrap_err(), Some(Time(50)));
            assert_eq!(order(&mut q, Time(50), 1), [1]);
        }
    }
}
