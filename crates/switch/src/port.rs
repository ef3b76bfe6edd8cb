//! An output port and the link it drives.
//!
//! A port is a FIFO: a packet's departure time is fixed the moment it is admitted
//! (`tx_end = max(now, previous tx_end) + serialization`), and it reaches the far end at
//! `tx_end + propagation`. So the port needs exactly one pending event — the arrival of its head
//! packet at the far end — and the packets behind it wait in this port's own FIFO (a ring,
//! `port/ring.rs`), never in the global event heap. Buffer occupancy at any instant is
//! recovered lazily from the stored departure times: a packet occupies the buffer until its
//! last bit has been transmitted.
//!
//! Strict priority reorders packets after admission, so a priority port decides departures at
//! dequeue instead: waiting packets sit in per-class queues, and one `TxDone` event per
//! departure starts the next packet of the highest non-empty class. Admission (the queue
//! discipline sees the whole shared buffer), occupancy and head-arrival events work as above.
//!
//! A discipline that schedules ([`QueueDiscipline::schedules`]) makes its port decide at dequeue
//! the same way: admitted packets wait in the discipline's own queues ([`QueueDiscipline::hold`]),
//! and at each transmission end (a `TxDone`, scheduled at once if the link is idle) the port
//! asks it for the next packet ([`QueueDiscipline::dequeue`]) and counts what it did at the head
//! (drops, marks, trims: [`DequeueContext`]). The held packets stay in the port's occupancy.
//! Its timer is a lazy timer here, fired by the engine's `PortTimer` event
//! ([`OutputPort::on_timer_event`]).

use crate::qdisc::{
    BufferLimit, DequeueContext, DequeueEffects, DropReason, Held, Occupancy, QueueDisc,
    QueueDiscipline, Verdict,
};
use incastsim_core::{
    Duration, Ecn, LazyTimer, NodeId, Packet, SerializationRate, SimRng, Time, prefetch,
    prefetch_bytes,
};

mod loss;
mod priority;
mod ring;
mod stats;

pub use loss::LinkLoss;
use priority::{PriorityQueues, Waiting};
use ring::Ring;
pub use stats::{PortStats, STAT_CLASSES};

#[derive(Clone, Copy, Debug, Default)]
struct Queued {
    packet: Packet,
    tx_end: Time,
    /// When it reaches the far end: tx_end + latency (+ jitter, never before its predecessor).
    arrive: Time,
}

/// Packets a port's FIFO keeps room for when it is empty. A FIFO grows (by doubling) with a
/// burst and gives the memory back when it empties again, so a run's peak memory follows the
/// packets buffered at once over the whole network, not the sum of every port's largest burst
/// (a web-search run on a k = 16 fat-tree: most of the heap was FIFO capacity of ports that
/// had once filled their 100-packet buffer). Cost: a few reallocations per burst of more than
/// this many packets, none per packet.
const FIFO_KEEP: usize = 16;

/// What happened to a packet offered to a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueued {
    /// Admitted. The caller must schedule the head-arrival event at `schedule_head_at` (the
    /// link was empty) and, on a port that decides at dequeue (strict priority, a scheduling
    /// discipline), a `TxDone` event at `schedule_tx_done_at`.
    Admitted {
        /// When the head packet reaches the far end, if the caller must schedule it.
        schedule_head_at: Option<Time>,
        /// When the transmission ends (or, at a scheduling discipline's idle port, now), on a
        /// port that decides at dequeue (the caller schedules `PortTxDone`).
        schedule_tx_done_at: Option<Time>,
    },
    /// Refused, and why.
    Dropped(DropReason),
}

/// How a port picks the next packet to transmit.
#[derive(Clone, Debug, PartialEq)]
enum Scheduler {
    /// First come, first served: departure fixed at admission.
    Fifo,
    /// Strict priority by class (class = min(DSCP, classes − 1), the highest class first),
    /// classes paused by PFC skipped (`port/priority.rs`).
    Priority(PriorityQueues),
    /// The queue discipline holds the admitted packets and picks departures at dequeue
    /// ([`QueueDiscipline::schedules`]).
    Discipline(Box<DisciplineState>),
}

/// A scheduling discipline's port: what it holds (in the port's accounts) and its events.
#[derive(Clone, Debug, Default, PartialEq)]
struct DisciplineState {
    /// Packets the discipline holds, their wire bytes, and Σ wire bytes × enqueue time (ps):
    /// the waiting packets' share of occupancy, conservation and the mean queue.
    held: usize,
    held_bytes: u64,
    held_byte_enqueue_ps: u128,
    /// A `TxDone` event is queued (at most one at a time).
    tx_done_pending: bool,
    /// The discipline's timer ([`QueueDiscipline::next_timer`]), fired by `PortTimer` events.
    timer: LazyTimer,
    /// What the last dequeue-side call did at the head (its drops are read by the engine).
    effects: DequeueEffects,
}

/// Events a port that decides at dequeue asks for after a transmission end (or its
/// discipline's timer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TxDone {
    /// When the new head packet reaches the far end, if the caller must schedule it.
    pub schedule_head_at: Option<Time>,
    /// When the next transmission ends, if one started.
    pub schedule_tx_done_at: Option<Time>,
    /// When the packet that got the transmitter was admitted (`None`: none did); the packet
    /// is then [`OutputPort::newest_departure`]. For probes.
    pub started_admitted_at: Option<Time>,
    /// A `PortTimer` event to schedule for the discipline's timer: (when, generation).
    pub schedule_timer: Option<(Time, u32)>,
    /// The packet that got the transmitter left the buffer of the node's input `ingress`
    /// (for PFC's ingress accounting; `None`: no packet started, or it came with no ingress).
    pub departed: Option<Departed>,
}

/// A packet that left a strict-priority port's queue for the transmitter, as its node's
/// ingress accounting (PFC) counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Departed {
    /// The port it arrived on (the upstream node's port, as the engine names inputs).
    pub ingress: u32,
    /// Its class at this port.
    pub class: u8,
    /// Its bytes on the wire.
    pub wire_bytes: u32,
}

/// An input that is no port: a host's own packets ([`OutputPort::enqueue`]'s `ingress`).
pub const NO_INGRESS: u32 = u32::MAX;

/// The head packet reached the far end of the link.
#[derive(Clone, Copy, Debug)]
pub struct Arrival {
    /// `None` if the link lost it (already counted as a link-loss drop).
    pub packet: Option<Packet>,
    /// When the next packet in the FIFO arrives, if there is one: schedule it.
    pub next_head_at: Option<Time>,
}

/// One direction of a link: a queue with its discipline, the transmitter and the link's
/// delay and loss. Packets wait in a FIFO (or per-class FIFOs) and are sent back to back at
/// the link rate.
///
/// Laid out for a fabric of tens of thousands of ports, where every port a packet meets is a
/// cache miss: what a packet's arrival reads is in the first cache line (the FIFO, the
/// occupancy, the flags), what its admission adds in the lines after it (rate, latency, the
/// per-packet counters, the discipline, which may reach into the fourth). Random streams, the
/// loss model, the priority scheduler, the trace and the counters of drops, marks and classes
/// live out of line (`PortCold`, behind flags in the first line), so a port is 256 bytes, four
/// cache lines (asserted below; `port/tests.rs` checks which fields sit in which line), and
/// the fabric's ports lie densely (the S5 bench measures it).
/// Counters that follow from others are not kept per packet: bytes departed (admitted minus
/// buffered), packets delivered (admitted minus lost minus in the port) and class 0's
/// admissions (all minus the other classes'); [`OutputPort::stats`] assembles them.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct OutputPort {
    // ----- line 1: every packet, on arrival and on admission -----
    fifo: Ring<Queued>,
    /// Buffered bytes and packets (see [`OutputPort::occupancy`]), as two fields so the flags
    /// fit in this line.
    occ_bytes: u64,
    last_tx_end: Time,
    occ_packets: u32,
    /// The first `on_wire` FIFO entries have been fully transmitted and are propagating.
    on_wire: u32,
    /// The node at the far end of the link.
    pub to: NodeId,
    /// `trace` is on.
    tracing: bool,
    /// `loss` is not [`LinkLoss::None`].
    lossy: bool,
    /// Whether the discipline needs to hear about idle periods (RED's average decay).
    qdisc_tracks_idle: bool,
    /// The port decides departures at dequeue: `scheduler` is strict priority or a scheduling
    /// discipline's.
    scheduled: bool,
    /// When the oldest buffered packet's last bit leaves: the `tx_end` of FIFO entry
    /// `on_wire`, `Time::MAX` if every entry is on the wire. Kept here so that an arrival or
    /// admission that releases nothing (nearly all) reads no FIFO entry to learn it.
    next_tx_end: Time,
    // ----- lines 2 to 4: admission (ordered so that no padding is needed) -----
    residence_byte_ps: u128,
    serialization: SerializationRate,
    /// Propagation delay plus the receiving node's processing delay (constant, so FIFO order holds).
    latency: Duration,
    enqueued_packets: u64,
    enqueued_bytes: u64,
    max_buffered_bytes: u64,
    busy_ps: u64,
    max_buffered_packets: u32,
    /// The shared buffer this port draws from (its switch's), if any: (buffer index, this
    /// port's slot in the buffer).
    shared_buffer: Option<(u32, u32)>,
    qdisc: QueueDisc,
    /// Per-packet extra delay U[0, latency_jitter] at the far end (0: none), its stream, and
    /// the last arrival it gave (a packet never overtakes the one ahead). In the hot lines:
    /// a jittered port draws once per packet.
    latency_jitter: Duration,
    last_arrive: Time,
    jitter_rng: SimRng,
    /// What the per-packet path reads only behind a flag, or on a drop or mark: kept out of
    /// line, so that the ports' hot fields lie densely in memory (inline, a port would take
    /// several times the four lines a packet touches, and the hardware's adjacent-line
    /// prefetch would pull in the rest).
    cold: Box<PortCold>,
}

// A scheduling discipline's marks are counted per class as the port's.
const _: () = assert!(crate::qdisc::MARK_CLASSES == STAT_CLASSES);

// Four hot cache lines per port, so that ports lie densely (`port/tests.rs` checks which
// fields sit in which line).
const _: () =
    assert!(std::mem::size_of::<OutputPort>() == 256 && std::mem::align_of::<OutputPort>() == 64);

// A strict-priority port's scheduler (what its admissions and departures read) in one line.
const _: () = assert!(std::mem::size_of::<Scheduler>() <= 64);

/// The fields of an [`OutputPort`] off the FIFO port's per-packet path. Laid out in order
/// (aligned to a cache line) for the ports that do read it per packet, strict-priority ones
/// with packets of classes above 0 (RoCE over PFC): the scheduler in the first line, the
/// per-class admission counts in the second, the rest after.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
struct PortCold {
    scheduler: Scheduler,
    /// Admissions per class (`PortStats::class_enqueued`; class 0's derived, never counted).
    class_enqueued: [u64; STAT_CLASSES],
    /// Bit c: class c is lossless (PFC): the discipline's drop verdicts do not drop its
    /// packets (the node's ingress accounting bounds them instead).
    lossless: u64,
    /// The discipline judges each packet by its class queue ([`OutputPort::with_class_scope`]).
    class_scope: bool,
    loss: LinkLoss,
    loss_rng: SimRng,
    /// Opt-in: (time, bytes, packets) after every admission and departure, in time order.
    trace: Option<Vec<(Time, u64, u32)>>,
    /// Drops, marks and per-class counts (the admissions' are `class_enqueued`).
    stats: PortStats,
}

/// A built-in discipline judging each packet by its class queue
/// ([`OutputPort::with_class_scope`]): the port hands it that queue's occupancy; it decides as
/// the discipline it wraps.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassScoped(pub QueueDisc);

impl QueueDiscipline for ClassScoped {
    fn on_enqueue(&mut self, packet: &mut Packet, occupancy: Occupancy, now: Time) -> Verdict {
        self.0.on_enqueue(packet, occupancy, now)
    }
    fn limit(&self) -> BufferLimit {
        self.0.limit()
    }
    fn tracks_idle(&self) -> bool {
        self.0.tracks_idle()
    }
    fn note_idle(&mut self, since: Time) {
        self.0.note_idle(since)
    }
    fn value_names(&self) -> &'static [&'static str] {
        self.0.value_names()
    }
    fn values(&self, out: &mut [f64]) {
        self.0.values(out)
    }
}

impl OutputPort {
    /// A port to node `to`: transmits at `serialization`, delivers after `latency`, loses
    /// packets on the link by `loss` (drawing from `loss_rng`) and admits with `qdisc`.
    pub fn new(
        to: NodeId,
        serialization: SerializationRate,
        latency: Duration,
        loss: LinkLoss,
        loss_rng: SimRng,
        qdisc: QueueDisc,
    ) -> OutputPort {
        let qdisc_tracks_idle = qdisc.tracks_idle();
        let scheduled = qdisc.schedules();
        OutputPort {
            fifo: Ring::new(),
            occ_bytes: 0,
            last_tx_end: Time::ZERO,
            occ_packets: 0,
            on_wire: 0,
            next_tx_end: Time::MAX,
            to,
            tracing: false,
            lossy: loss != LinkLoss::None,
            qdisc_tracks_idle,
            scheduled,
            serialization,
            latency,
            enqueued_packets: 0,
            enqueued_bytes: 0,
            max_buffered_bytes: 0,
            max_buffered_packets: 0,
            residence_byte_ps: 0,
            busy_ps: 0,
            shared_buffer: None,
            qdisc,
            latency_jitter: Duration::ZERO,
            last_arrive: Time::ZERO,
            jitter_rng: SimRng::new(0),
            cold: Box::new(PortCold {
                loss,
                loss_rng,
                scheduler: if scheduled {
                    Scheduler::Discipline(Box::default())
                } else {
                    Scheduler::Fifo
                },
                trace: None,
                stats: PortStats::default(),
                class_enqueued: [0; STAT_CLASSES],
                lossless: 0,
                class_scope: false,
            }),
        }
    }

    /// The counters so far. Bytes departed are exact as of the port's last look at its queue
    /// (call [`OutputPort::occupancy`] first for an instant).
    pub fn stats(&self) -> PortStats {
        let mut s = self.cold.stats;
        s.enqueued_packets = self.enqueued_packets;
        s.enqueued_bytes = self.enqueued_bytes;
        s.max_buffered_bytes = self.max_buffered_bytes;
        s.max_buffered_packets = self.max_buffered_packets;
        s.busy_ps = self.busy_ps;
        s.residence_byte_ps = self.residence_byte_ps;
        // Every admitted byte is buffered or has departed; every admitted packet is in the
        // port, lost on the link or delivered.
        // (A scheduling discipline's head drops and trims took admitted bytes out unsent.)
        s.departed_bytes =
            self.enqueued_bytes - self.occ_bytes - s.drops_at_dequeue_bytes - s.trimmed_bytes;
        s.delivered_packets = self.enqueued_packets
            - s.drops_link_loss
            - s.drops_at_dequeue
            - self.packets_in_port() as u64;
        s.class_enqueued = self.cold.class_enqueued;
        s.class_enqueued[0] = self.enqueued_packets - s.class_enqueued[1..].iter().sum::<u64>();
        s
    }

    /// Packets lost on the link so far.
    pub fn drops_link_loss(&self) -> u64 {
        self.cold.stats.drops_link_loss
    }

    /// Packets marked CE so far.
    pub fn ecn_marks(&self) -> u64 {
        self.cold.stats.ecn_marks
    }

    #[inline(always)]
    fn occ(&self) -> Occupancy {
        Occupancy {
            bytes: self.occ_bytes,
            packets: self.occ_packets,
        }
    }

    /// Makes this port queue `slot` of shared buffer `index` (see [`crate::SharedBuffer`]):
    /// the engine asks that buffer before offering the port a packet.
    pub fn set_shared_buffer(&mut self, index: u32, slot: u32) {
        self.shared_buffer = Some((index, slot));
    }

    /// The shared buffer this port draws from and its slot there, if any.
    #[inline(always)]
    pub fn shared_buffer(&self) -> Option<(u32, u32)> {
        self.shared_buffer
    }

    /// Records the occupancy after every admission and departure (see [`OutputPort::take_trace`]).
    pub fn enable_trace(&mut self) {
        self.cold.trace = Some(Vec::new());
        self.tracing = true;
    }

    /// Bytes the recorded queue changes hold so far (0 without a trace).
    pub fn trace_bytes(&self) -> u64 {
        self.cold.trace.as_ref().map_or(0, |t| {
            t.len() as u64 * std::mem::size_of::<(Time, u64, u32)>() as u64
        })
    }

    /// The recorded (time, bytes, packets) changes up to `end`, in time order.
    pub fn take_trace(&mut self, end: Time) -> Vec<(Time, u64, u32)> {
        self.release_transmitted(end);
        self.tracing = false;
        self.cold.trace.take().unwrap_or_default()
    }

    /// [`OutputPort::with_scheduler`], or, with lossless classes (`lossless` ≠ 0, bit c:
    /// class c), [`OutputPort::with_pfc`].
    pub fn with_classes(self, classes: usize, lossless: u64) -> OutputPort {
        if lossless == 0 {
            self.with_scheduler(classes)
        } else {
            self.with_pfc(classes, lossless)
        }
    }

    /// One FIFO for `classes` = 1, strict priority over `classes` classes otherwise.
    pub fn with_scheduler(self, classes: usize) -> OutputPort {
        if classes <= 1 {
            self
        } else {
            self.with_priority_classes(classes)
        }
    }

    /// Makes this a strict-priority port with `classes` classes (≥ 2). Not with a discipline
    /// that schedules (it picks the departures; the plan refuses the combination).
    pub fn with_priority_classes(mut self, classes: usize) -> OutputPort {
        assert!(classes >= 2, "a priority port needs at least two classes");
        assert!(
            !matches!(self.cold.scheduler, Scheduler::Discipline(_)),
            "strict priority over a discipline that schedules"
        );
        self.scheduled = true;
        self.cold.scheduler = Scheduler::Priority(PriorityQueues::new(classes, false));
        self
    }

    /// Makes a FIFO port decide each departure at dequeue (a strict-priority port of one
    /// class: the same departures), so that in-band telemetry is stamped with the queue the
    /// packet leaves behind. A port that already decides at dequeue is unchanged.
    pub fn deciding_at_dequeue(mut self) -> OutputPort {
        if self.scheduled {
            return self;
        }
        assert!(
            !matches!(self.cold.scheduler, Scheduler::Discipline(_)),
            "dequeue decisions over a discipline that schedules"
        );
        self.scheduled = true;
        self.cold.scheduler = Scheduler::Priority(PriorityQueues::new(1, false));
        self
    }

    /// Makes this port's discipline judge each packet by its class queue alone (the bytes and
    /// packets waiting in it) instead of the whole port: per-queue ECN marking and drops, as
    /// the HPCC fork's switches mark (`SwitchMmu::ShouldSendCN` reads the egress queue's own
    /// bytes). A port with classes only; the buffer limit still holds the whole port.
    ///
    /// The discipline moves behind the extension point's indirection (a [`ClassScoped`]
    /// wrapper), so ports without class scope pay nothing for it per packet.
    pub fn with_class_scope(mut self) -> OutputPort {
        if matches!(self.cold.scheduler, Scheduler::Priority(_)) && !self.cold.class_scope {
            self.cold.class_scope = true;
            let inner = std::mem::replace(
                &mut self.qdisc,
                QueueDisc::drop_tail(BufferLimit::Unlimited),
            );
            self.qdisc = QueueDisc::extension(ClassScoped(inner));
        }
        self
    }

    /// The occupancy a class-scoped port shows its discipline for `packet`: its class
    /// queue's, or the port's when the packet does not fit the port's buffer.
    fn judged_occupancy(&self, packet: &Packet) -> Occupancy {
        match &self.cold.scheduler {
            // The port's buffer still bounds the port: a packet that does not fit it is judged
            // by the port's occupancy, which the discipline's limit refuses.
            Scheduler::Priority(q)
                if self.cold.class_scope
                    && self.qdisc.limit().fits(self.occ(), packet.wire_bytes()) =>
            {
                q.class_occupancy(q.class_of(packet))
            }
            _ => self.occ(),
        }
    }

    /// Serves this port's classes by deficit weighted round robin with these quanta (bytes,
    /// one per class) instead of strict priority. A port with classes only.
    pub fn with_dwrr(mut self, quantum: Vec<u64>) -> OutputPort {
        if let Scheduler::Priority(q) = &mut self.cold.scheduler {
            *q = q.clone().with_dwrr(quantum);
        }
        self
    }

    /// Makes this a strict-priority port with `classes` classes (≥ 1) that PFC may pause,
    /// whose classes in `lossless` (bit c: class c) are never dropped by its discipline.
    pub fn with_pfc(mut self, classes: usize, lossless: u64) -> OutputPort {
        assert!(classes >= 1, "a port has at least one class");
        assert!(
            !matches!(self.cold.scheduler, Scheduler::Discipline(_)),
            "PFC over a discipline that schedules"
        );
        self.scheduled = true;
        self.cold.scheduler = Scheduler::Priority(PriorityQueues::new(classes, true));
        self.cold.lossless = lossless;
        self
    }

    /// Traffic classes the port serves (1 for a FIFO or a scheduling discipline's port).
    pub fn classes(&self) -> usize {
        match &self.cold.scheduler {
            Scheduler::Priority(q) => q.classes(),
            _ => 1,
        }
    }

    /// Whether PFC may pause this port.
    pub fn pausable(&self) -> bool {
        matches!(&self.cold.scheduler, Scheduler::Priority(q) if q.pausable())
    }

    /// The class of `packet` at this port (min(DSCP, classes − 1); 0 at a FIFO port).
    pub fn class_of(&self, packet: &Packet) -> usize {
        match &self.cold.scheduler {
            Scheduler::Priority(q) => q.class_of(packet),
            _ => 0,
        }
    }

    /// Whether a packet of `class` handed to this port at `now` would start at once (alone, or
    /// as the winner of this instant's pick): the transmitter is free, the class is not paused,
    /// and no packet waits that the pick would serve before or beside it (in its class or a
    /// higher one; in any class under DWRR). A RoCE NIC takes a queue pair's packet only then
    /// (`engine/nic.rs` in the scenario crate), so none stands ready.
    #[inline]
    pub fn takes_class_now(&self, class: usize, now: Time) -> bool {
        self.last_tx_end <= now
            && match &self.cold.scheduler {
                Scheduler::Priority(q) => !q.paused(class, now) && !q.served_before(class, now),
                Scheduler::Fifo => true,
                Scheduler::Discipline(_) => false,
            }
    }

    /// Whether this port decides each departure at dequeue by classes (strict priority or
    /// DWRR): a host port of a run with RoCE flows must.
    pub fn serves_classes(&self) -> bool {
        matches!(self.cold.scheduler, Scheduler::Priority(_))
    }

    /// The earliest time `class` could take a packet, as known at `now`: the transmitter done
    /// with what it started and the class's pause over (a waiting packet of the class moves it
    /// later still, by the pick).
    #[inline]
    pub fn class_free_at(&self, class: usize, now: Time) -> Time {
        let free = self.last_tx_end.max(now);
        match &self.cold.scheduler {
            Scheduler::Priority(q) => free.max(q.paused_until(class)),
            _ => free,
        }
    }

    /// Asks a port that decides at dequeue for a `TxDone` at `at` (to look at its queues and
    /// at what waits for it then): when to schedule it, or `None` if one is due no later.
    #[inline]
    pub fn request_tx_done(&mut self, at: Time) -> Option<Time> {
        match &mut self.cold.scheduler {
            Scheduler::Priority(q) => q.request_tx_done(at),
            _ => None,
        }
    }

    /// The class of packets with `dscp` (0 at a FIFO port).
    #[inline]
    pub fn class_of_dscp(&self, dscp: u8) -> usize {
        match &self.cold.scheduler {
            Scheduler::Priority(q) => q.class_of_dscp(dscp),
            _ => 0,
        }
    }

    /// Pauses class `class` until `until` (a PAUSE frame's arrival; PFC ports only).
    pub fn pause_class(&mut self, class: usize, until: Time) {
        if let Scheduler::Priority(q) = &mut self.cold.scheduler {
            q.set_pause(class, until);
        }
    }

    /// From now on the port's owner tells it when a pause lapses ([`OutputPort::pause_lapsed`],
    /// with a RESUME's [`OutputPort::resume_class`]): a look that finds only paused classes
    /// waiting then asks for no `TxDone` at the pause's end. Why: a RESUME or a new PAUSE
    /// usually comes first, and a `TxDone` left due at the old end would stay in the event
    /// queue, stale, until then (a PAUSE lasts up to 65,535 quanta), one per pause: a fabric
    /// with PFC piled them up by the thousand (docs/perf-log.md, session 27). A PFC port only.
    pub fn tell_pause_lapses(&mut self) {
        if let Scheduler::Priority(q) = &mut self.cold.scheduler {
            q.tell_lapses();
        }
    }

    /// Whether the port's owner tells it when a pause lapses ([`OutputPort::tell_pause_lapses`]).
    pub fn pause_lapses_told(&self) -> bool {
        matches!(&self.cold.scheduler, Scheduler::Priority(q) if q.lapses_told())
    }

    /// The pause of class `class` lapses at `at` (told by the owner, see
    /// [`OutputPort::tell_pause_lapses`]; `needed`: something else, such as a host's queue
    /// pairs, waits for the class): returns when to schedule a `TxDone` if packets of the
    /// class wait then.
    pub fn pause_lapsed(&mut self, class: usize, at: Time, needed: bool) -> Option<Time> {
        let free_at = self.class_free_at(class, at);
        let Scheduler::Priority(q) = &mut self.cold.scheduler else {
            return None;
        };
        if q.class_waiting(class) == 0 && !needed {
            return None;
        }
        q.request_tx_done(free_at)
    }

    /// Resumes class `class` at `now` (a RESUME, quanta 0): returns when to schedule a
    /// `TxDone` if its packets can go.
    pub fn resume_class(&mut self, now: Time, class: usize) -> Option<Time> {
        let free_at = self.last_tx_end.max(now);
        let Scheduler::Priority(q) = &mut self.cold.scheduler else {
            return None;
        };
        q.set_pause(class, now);
        if q.class_waiting(class) == 0 {
            return None;
        }
        q.request_tx_done(free_at)
    }

    /// Whether class `class` is paused at `now`.
    pub fn class_paused(&self, class: usize, now: Time) -> bool {
        matches!(&self.cold.scheduler, Scheduler::Priority(q) if q.paused(class, now))
    }

    /// Packets of class `class` waiting for the transmitter.
    pub fn class_waiting(&self, class: usize) -> usize {
        match &self.cold.scheduler {
            Scheduler::Priority(q) => q.class_waiting(class),
            _ => 0,
        }
    }

    /// Whether class `class` holds a waiting packet that came in by `ingress` (PFC's
    /// wait-for graph: a scan of that class's queue, for rare checks only; false at a FIFO port).
    pub fn holds_from(&self, class: usize, ingress: u32) -> bool {
        matches!(&self.cold.scheduler, Scheduler::Priority(q) if q.holds_from(class, ingress))
    }

    /// Bytes of class `class` waiting that came in by `ingress` (a scan of that class's
    /// queue, for PFC's rare checks only; 0 at a FIFO port).
    pub fn bytes_from(&self, class: usize, ingress: u32) -> u64 {
        match &self.cold.scheduler {
            Scheduler::Priority(q) => q.bytes_from(class, ingress),
            _ => 0,
        }
    }

    /// The packets of class `class` waiting for the transmitter, oldest first, with when each
    /// was admitted (none at a FIFO port).
    pub fn class_waiting_iter(&self, class: usize) -> impl Iterator<Item = (&Packet, Time)> {
        let q = match &self.cold.scheduler {
            Scheduler::Priority(q) => Some(q),
            _ => None,
        };
        q.into_iter().flat_map(move |q| q.class_iter(class))
    }

    /// Sends a control frame of `wire_bytes` (a PAUSE) at `now`: it goes on the wire as soon
    /// as the packet being sent is done, ahead of every waiting packet, and holds the link for
    /// its serialization. Returns when its last bit reaches the far end. Strict-priority ports
    /// only (their departures are decided at dequeue, so the next packet waits for it).
    pub fn send_control_frame(&mut self, now: Time, wire_bytes: u64) -> Time {
        debug_assert!(
            matches!(self.cold.scheduler, Scheduler::Priority(_)),
            "a control frame on a port that fixes departures at admission"
        );
        let tx_time = self.serialization.time_for(wire_bytes);
        let tx_end = self.last_tx_end.max(now) + tx_time;
        self.last_tx_end = tx_end;
        self.busy_ps += tx_time.as_ps();
        self.cold.stats.control_frames += 1;
        tx_end + self.latency
    }

    /// The link's serialization rate.
    pub fn serialization(&self) -> SerializationRate {
        self.serialization
    }
    /// Adds a random U[0, max] to each packet's latency, drawn from `rng`, without reordering
    /// (a packet never arrives before the one sent ahead of it): random processing time at the
    /// receiving switch, which breaks deterministic phase effects (Floyd & Jacobson, 1992).
    pub fn with_latency_jitter(mut self, max: Duration, rng: SimRng) -> OutputPort {
        self.latency_jitter = max;
        self.jitter_rng = rng;
        self
    }

    /// Propagation delay plus the receiving node's (constant) processing delay.
    pub fn latency(&self) -> Duration {
        self.latency
    }
    /// The queue's admission limit.
    pub fn limit(&self) -> BufferLimit {
        self.qdisc.limit()
    }

    /// The values the port's discipline reports of its own, by name
    /// ([`QueueDiscipline::value_names`]; empty, without allocation, for the built-ins).
    pub fn discipline_values(&self) -> Vec<(&'static str, f64)> {
        let names = self.qdisc.value_names();
        if names.is_empty() {
            return Vec::new();
        }
        let mut values = vec![0.0; names.len()];
        self.qdisc.values(&mut values);
        names.iter().copied().zip(values).collect()
    }

    /// Releases buffer space of every packet fully transmitted by `now`.
    #[inline]
    fn release_transmitted(&mut self, now: Time) {
        debug_assert_eq!(
            self.next_tx_end,
            self.fifo
                .get(self.on_wire as usize)
                .map_or(Time::MAX, |q| q.tx_end),
            "the cached departure is not the FIFO's"
        );
        while self.next_tx_end <= now {
            let tx_end = self.next_tx_end;
            // A departure time is that of an entry (`Time::MAX` otherwise).
            let (q, next) = self.fifo.get_and_next(self.on_wire as usize);
            let wire = q.packet.wire_bytes() as u64;
            self.next_tx_end = next.map_or(Time::MAX, |q| q.tx_end);
            self.occ_bytes -= wire;
            self.occ_packets -= 1;
            self.on_wire += 1;
            if self.tracing {
                self.push_trace(tx_end);
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn push_trace(&mut self, at: Time) {
        let (bytes, packets) = (self.occ_bytes, self.occ_packets);
        if let Some(trace) = &mut self.cold.trace {
            trace.push((at, bytes, packets));
        }
    }

    /// When this port's occupancy next falls by itself (the last bit of its oldest buffered
    /// packet leaves): `Time::MAX` if it holds nothing, `Time::ZERO` ("now, check again") if a
    /// priority port (or a scheduling discipline) holds packets whose departure is not fixed
    /// yet. A shared buffer keeps its
    /// occupancy incrementally with it ([`crate::SharedBuffer`]).
    #[inline]
    pub fn next_release(&self) -> Time {
        if self.next_tx_end == Time::MAX && self.packets_in_port() > self.fifo.len() {
            return Time::ZERO;
        }
        self.next_tx_end
    }

    /// Buffered bytes as of the port's last look at its queue (its last admission, arrival or
    /// [`OutputPort::occupancy`] call): exact then, never too low later.
    #[inline(always)]
    pub fn buffered_bytes_as_last_seen(&self) -> u64 {
        self.occ_bytes
    }

    /// Buffer occupancy at `now` (packets waiting or being serialized).
    pub fn occupancy(&mut self, now: Time) -> Occupancy {
        self.release_transmitted(now);
        self.occ()
    }

    /// Time-averaged buffer occupancy in bytes over [0, end]. Residence after `end` (packets
    /// still buffered then) is taken back out; waiting packets of a priority port are added.
    pub fn mean_queue_bytes(&self, end: Time) -> f64 {
        if end.as_ps() == 0 {
            return 0.0;
        }
        let mut area = self.residence_byte_ps;
        for q in self.fifo.iter().filter(|q| q.tx_end > end) {
            area -= q.packet.wire_bytes() as u128 * (q.tx_end.as_ps() - end.as_ps()) as u128;
        }
        match &self.cold.scheduler {
            Scheduler::Fifo => {}
            Scheduler::Priority(q) => {
                for w in q.iter() {
                    area += w.packet.wire_bytes() as u128
                        * end.as_ps().saturating_sub(w.admitted.as_ps()) as u128;
                }
            }
            // Σ wire × (end − enqueued), from the two sums kept as packets come and go.
            Scheduler::Discipline(d) => {
                area += (d.held_bytes as u128 * end.as_ps() as u128)
                    .saturating_sub(d.held_byte_enqueue_ps);
            }
        }
        area as f64 / end.as_ps() as f64
    }

    /// Packets in the port: in the FIFO (buffered or propagating) and, on a port that decides
    /// at dequeue, waiting for the transmitter (for conservation checks).
    pub fn packets_in_port(&self) -> usize {
        if !self.scheduled {
            return self.fifo.len();
        }
        self.fifo.len() + self.waiting_count()
    }

    /// Packets of a strict-priority port (or held by a scheduling discipline) admitted but not
    /// yet given the transmitter (0 for a FIFO port, which fixes every departure at admission).
    pub fn waiting_packets(&self) -> usize {
        self.packets_in_port() - self.fifo.len()
    }

    /// Packets whose departure is fixed and that are still in the port (buffered behind the
    /// transmitter, on it, or propagating): the FIFO's. An admission adds one exactly when the
    /// packet gets the transmitter at once (one that waits for a `TxDone`, or is dropped, adds
    /// none; nothing leaves the FIFO on admission), read from the first cache line.
    #[inline]
    pub fn fixed_departures(&self) -> usize {
        self.fifo.len()
    }

    /// The packet that got the transmitter last and when its first bit went on the wire (for
    /// probes: right after an admission that did not wait, or a `TxDone` that started one).
    pub fn newest_departure(&self) -> Option<(Packet, Time)> {
        self.fifo.back().map(|q| {
            let wire = q.packet.wire_bytes() as u64;
            (
                q.packet,
                Time(q.tx_end.as_ps() - self.serialization.time_for(wire).as_ps()),
            )
        })
    }

    /// Whether the packet that got the transmitter last carries flag bit(s) `f` (cheap: the
    /// FIFO's newest entry).
    #[inline]
    pub fn newest_has_flag(&self, f: u8) -> bool {
        self.fifo.back().is_some_and(|q| q.packet.has_flag(f))
    }

    /// For in-band telemetry, right after a packet got the transmitter at `now`: that packet,
    /// in place (to stamp), the bytes waiting behind it, and the bytes the port has sent, it
    /// included (the HPCC fork's `qLen` and `txBytes` at dequeue). `None` unless the newest
    /// packet's first bit went on the wire at `now`.
    pub fn started_now_mut(&mut self, now: Time) -> Option<(&mut Packet, u64, u64)> {
        let ser = self.serialization;
        let q = self.fifo.back_mut()?;
        let wire = q.packet.wire_bytes() as u64;
        if q.tx_end.as_ps() - ser.time_for(wire).as_ps() != now.as_ps() {
            return None;
        }
        let waiting = self.occ_bytes.saturating_sub(wire);
        Some((&mut q.packet, waiting, self.enqueued_bytes - waiting))
    }

    /// The packet that reaches the far end of the link next (for probes: a lost packet is gone
    /// after [`OutputPort::pop_arrival`]).
    pub fn head_packet(&self) -> Option<Packet> {
        self.fifo.front().map(|q| q.packet)
    }

    /// Cache hints for this port's coming head arrival: the head packet (the port's first
    /// line must be cached already, or this waits for it). The arrival reads no other entry
    /// unless it releases buffer space, which `next_tx_end` tells without one.
    #[inline(always)]
    pub fn prefetch_arrival(&self) {
        if let Some(q) = self.fifo.front() {
            prefetch_bytes(q, std::mem::size_of::<Queued>());
        }
    }

    /// Cache hints for a coming admission to this port, once its first line is cached: the
    /// slot it writes (it reads no other entry unless it releases buffer space).
    #[inline(always)]
    pub fn prefetch_admission_fifo(&self) {
        // The slot the packet will take: its two lines, not those of the entry before it.
        if let Some(slot) = self.fifo.next_free() {
            prefetch_bytes(slot, std::mem::size_of::<Queued>());
        }
    }

    /// Cache hints for a coming admission to this port: the fields it reads and writes, which
    /// all lie before the random streams.
    #[inline(always)]
    pub fn prefetch_admission(&self) {
        prefetch_bytes(self, std::mem::size_of::<OutputPort>());
    }

    /// Cache hint for a coming arrival at this port: the first line (the FIFO, occupancy and
    /// flags).
    #[inline(always)]
    pub fn prefetch_first_line(&self) {
        prefetch(self);
    }

    /// The packet that reaches the far end of the link next, in place.
    #[inline(always)]
    pub fn head_packet_ref(&self) -> Option<&Packet> {
        self.fifo.front().map(|q| &q.packet)
    }

    /// Offers a packet to the port at `now`. A built-in discipline only reads the packet, so
    /// it is copied once, into the FIFO entry where it waits (passed by value through the
    /// engine's layers and the discipline's `&mut Packet`, it was copied four more times per
    /// hop); an extension's discipline gets its own copy to change.
    #[inline(always)] // one call site on the hot path; keeps the event loop flat
    pub fn enqueue(&mut self, now: Time, packet: &Packet) -> Enqueued {
        self.enqueue_from(now, packet, NO_INGRESS)
    }

    /// [`OutputPort::enqueue`] of a packet that came in on `ingress` (the port it arrived
    /// on): a strict-priority port hands it back with the packet when it gets the
    /// transmitter ([`TxDone::departed`]), for PFC's ingress accounting.
    #[inline(always)]
    pub fn enqueue_from(&mut self, now: Time, packet: &Packet, ingress: u32) -> Enqueued {
        self.release_transmitted(now);
        if self.qdisc_tracks_idle && self.occ_packets == 0 {
            // Empty since the last packet's last bit left (or since the start).
            self.qdisc.note_idle(self.last_tx_end);
        }
        let occupancy = self.occ();
        match self.qdisc.built_in_verdict(packet, occupancy, now) {
            Some(verdict) => self.admit(now, packet, verdict, ingress),
            None => self.enqueue_to_extension(now, *packet, occupancy, ingress),
        }
    }

    /// [`OutputPort::enqueue`] at a port whose discipline is an extension's.
    #[cold]
    #[inline(never)]
    fn enqueue_to_extension(
        &mut self,
        now: Time,
        mut packet: Packet,
        occupancy: Occupancy,
        ingress: u32,
    ) -> Enqueued {
        // A class-scoped discipline (`with_class_scope`) judges by the packet's class queue.
        let occupancy = if self.cold.class_scope {
            self.judged_occupancy(&packet)
        } else {
            occupancy
        };
        let verdict = self.qdisc.on_enqueue(&mut packet, occupancy, now);
        self.admit(now, &packet, verdict, ingress)
    }

    /// Counts the discipline's verdict on `packet` and, if admitted, queues it.
    #[inline(always)]
    fn admit(&mut self, now: Time, packet: &Packet, verdict: Verdict, ingress: u32) -> Enqueued {
        let class = (packet.dscp as usize).min(STAT_CLASSES - 1);
        let marked = match verdict {
            Verdict::Admit => false,
            Verdict::AdmitMarked => {
                self.cold.stats.ecn_marks += 1;
                self.cold.stats.class_marks[class] += 1;
                true
            }
            Verdict::Drop(reason) => {
                if !self.lossless_keeps(packet) {
                    self.count_drop(class, reason);
                    return Enqueued::Dropped(reason);
                }
                // A lossless packet is never dropped; an ECN-capable one the discipline's
                // congestion signal would have dropped (RED above max_th) is marked instead,
                // as DCQCN's switches mark every packet above Kmax (Zhu et al. §3.3, Fig. 5:
                // probability 1 past Kmax).
                self.lossless_marks(packet, class, reason)
            }
        };
        let wire = packet.wire_bytes() as u64;
        self.occ_bytes += wire;
        self.occ_packets += 1;
        // Invariant: a queue never exceeds its limit.
        debug_assert!(
            self.qdisc.limit().holds(self.occ()) || self.cold.lossless != 0,
            "queue over its limit"
        );
        self.enqueued_packets += 1;
        self.enqueued_bytes += wire;
        if self.tracing {
            self.push_trace(now);
        }
        if class != 0 {
            self.cold.class_enqueued[class] += 1;
        }
        self.max_buffered_bytes = self.max_buffered_bytes.max(self.occ_bytes);
        self.max_buffered_packets = self.max_buffered_packets.max(self.occ_packets);
        if self.scheduled && self.waits(now, packet) {
            return self.wait_for_transmitter(now, *packet, marked, ingress);
        }
        let (tx_end, arrive) = self.start_transmission(now, now, wire);
        let was_empty = self.fifo.is_empty();
        self.push(packet, tx_end, arrive);
        if marked {
            self.mark_newest();
        }
        Enqueued::Admitted {
            schedule_head_at: was_empty.then_some(arrive),
            schedule_tx_done_at: None,
        }
    }

    /// Queues a packet whose departure is fixed: if no other packet is buffered, its last bit
    /// is the next to leave.
    #[inline(always)]
    fn push(&mut self, packet: &Packet, tx_end: Time, arrive: Time) {
        if self.on_wire as usize == self.fifo.len() {
            self.next_tx_end = tx_end;
        }
        let slot = self.fifo.push_back_slot();
        slot.packet = *packet;
        slot.tx_end = tx_end;
        slot.arrive = arrive;
    }

    /// The packet just queued was marked CE by the discipline.
    #[cold]
    #[inline(never)]
    fn mark_newest(&mut self) {
        if let Some(q) = self.fifo.back_mut() {
            q.packet.ecn = Ecn::Ce;
        }
    }

    /// Packets of a priority port (or held by a scheduling discipline) waiting for the
    /// transmitter (0 for a FIFO port).
    #[inline]
    fn waiting_count(&self) -> usize {
        match &self.cold.scheduler {
            Scheduler::Fifo => 0,
            Scheduler::Priority(q) => q.waiting_count(),
            Scheduler::Discipline(d) => d.held,
        }
    }

    /// A drop verdict on `packet` that its class's losslessness overrides (PFC: the node's
    /// ingress accounting, with its headroom, bounds what lossless classes hold).
    #[cold]
    #[inline(never)]
    fn lossless_keeps(&self, packet: &Packet) -> bool {
        self.cold.lossless != 0 && self.cold.lossless >> self.class_of(packet).min(63) & 1 != 0
    }

    /// A drop verdict of `reason` that a lossless class overrides: whether the packet is
    /// marked CE instead (an ECN-capable packet refused by the discipline's signal, not by a
    /// full buffer), counted as the discipline's mark.
    #[cold]
    #[inline(never)]
    fn lossless_marks(&mut self, packet: &Packet, class: usize, reason: DropReason) -> bool {
        let mark = reason == DropReason::Aqm
            && matches!(
                packet.ecn,
                incastsim_core::Ecn::Ect0 | incastsim_core::Ecn::Ect1
            );
        if mark {
            self.cold.stats.ecn_marks += 1;
            self.cold.stats.class_marks[class] += 1;
        }
        mark
    }

    /// Whether a packet admitted at `now` to a port that decides at dequeue waits for a
    /// `TxDone`: at a priority port if the transmitter is busy or others wait; at a scheduling
    /// discipline's always (the discipline hands out every packet).
    #[inline]
    fn waits(&self, now: Time, packet: &Packet) -> bool {
        match &self.cold.scheduler {
            Scheduler::Fifo => false,
            Scheduler::Priority(q) => q.must_wait(q.class_of(packet), now, self.last_tx_end),
            Scheduler::Discipline(_) => true,
        }
    }

    /// The transmitter is busy (or a scheduling discipline holds the packets): the admitted
    /// packet (CE if `marked`) waits in its class queue, or in the discipline, for a `TxDone`.
    #[cold]
    #[inline(never)]
    fn wait_for_transmitter(
        &mut self,
        now: Time,
        mut packet: Packet,
        marked: bool,
        ingress: u32,
    ) -> Enqueued {
        if marked {
            packet.ecn = Ecn::Ce;
        }
        let q = match &mut self.cold.scheduler {
            Scheduler::Priority(q) => q,
            Scheduler::Discipline(d) => {
                let wire = packet.wire_bytes() as u64;
                self.qdisc.hold(Held {
                    packet,
                    enqueued_at: now,
                });
                d.held += 1;
                d.held_bytes += wire;
                d.held_byte_enqueue_ps += u128::from(wire) * u128::from(now.as_ps());
                // At an idle link, a `TxDone` now: the discipline picks what leaves first.
                let tx_done = (!d.tx_done_pending).then_some(self.last_tx_end.max(now));
                d.tx_done_pending = true;
                return Enqueued::Admitted {
                    schedule_head_at: None,
                    schedule_tx_done_at: tx_done,
                };
            }
            Scheduler::Fifo => unreachable!("a FIFO port does not wait"),
        };
        let c = q.class_of(&packet);
        q.push(
            c,
            Waiting {
                packet,
                admitted: now,
                ingress,
            },
        );
        // The transmitter is busy until `last_tx_end` (a pending `TxDone` is then due at that
        // time already), or only paused classes waited.
        let tx_done = q.request_tx_done(self.last_tx_end.max(now));
        Enqueued::Admitted {
            schedule_head_at: None,
            schedule_tx_done_at: tx_done,
        }
    }

    #[inline]
    fn count_drop(&mut self, class: usize, reason: DropReason) {
        match reason {
            DropReason::BufferFull => self.cold.stats.drops_buffer += 1,
            DropReason::Aqm => self.cold.stats.drops_aqm += 1,
            DropReason::LinkLoss => self.cold.stats.drops_link_loss += 1,
            DropReason::Threshold => self.cold.stats.drops_threshold += 1,
            DropReason::Headroom => self.cold.stats.drops_headroom += 1,
        }
        self.cold.stats.class_drops[class] += 1;
    }

    /// Counts `packet` as refused for `reason` before it reached the port's discipline (a
    /// shared buffer's admission, [`crate::SharedBuffer::admit`]).
    #[inline]
    pub fn refuse(&mut self, packet: &Packet, reason: DropReason) {
        self.count_drop((packet.dscp as usize).min(STAT_CLASSES - 1), reason);
    }

    /// Puts a packet of `wire` bytes, admitted at `admitted`, on the transmitter at
    /// `max(now, last departure)`: returns when its last bit leaves and when it reaches the far
    /// end (the caller queues it with them).
    #[inline(always)] // on the per-packet path; keep it inlined however many callers it has
    fn start_transmission(&mut self, now: Time, admitted: Time, wire: u64) -> (Time, Time) {
        let tx_time = self.serialization.time_for(wire);
        let tx_start = if self.last_tx_end > now {
            self.last_tx_end
        } else {
            now
        };
        let tx_end = tx_start + tx_time;
        self.last_tx_end = tx_end;
        self.busy_ps += tx_time.as_ps();
        // The packet occupies the buffer from admission until its last bit is sent.
        self.residence_byte_ps += wire as u128 * (tx_end.as_ps() - admitted.as_ps()) as u128;
        let mut arrive = tx_end + self.latency;
        if self.latency_jitter > Duration::ZERO {
            arrive = (arrive + self.jitter_rng.duration_up_to(self.latency_jitter))
                .max(self.last_arrive);
            self.last_arrive = arrive;
        }
        (tx_end, arrive)
    }

    /// A port that decides at dequeue finished a transmission at `now` (or, with a scheduling
    /// discipline, its link was idle when a packet came): start the next packet of the highest
    /// non-empty class, or the one the discipline picks.
    pub fn on_tx_done(&mut self, now: Time) -> TxDone {
        let last_tx_end = self.last_tx_end;
        let q = match &mut self.cold.scheduler {
            Scheduler::Priority(q) => q,
            Scheduler::Discipline(d) => {
                d.tx_done_pending = false;
                return self.serve_discipline(now, false);
            }
            Scheduler::Fifo => return TxDone::default(),
        };
        if !q.take_tx_done(now) {
            return TxDone::default();
        }
        if last_tx_end > now {
            // A PAUSE frame took the link: look again when it is done.
            return TxDone {
                schedule_tx_done_at: q.request_tx_done(last_tx_end),
                ..TxDone::default()
            };
        }
        let w = match q.pick(now) {
            Ok(w) => w,
            // Only paused classes wait: look again when the first pause lapses (unless the
            // owner says when a pause lapses: `OutputPort::tell_pause_lapses`).
            Err(resume_at) => {
                let look = resume_at.filter(|_| !q.lapses_told());
                return TxDone {
                    schedule_tx_done_at: look.and_then(|t| q.request_tx_done(t)),
                    ..TxDone::default()
                };
            }
        };
        let class = q.class_of(&w.packet) as u8;
        let more = q.waiting_count() > 0;
        self.release_transmitted(now);
        let wire = w.packet.wire_bytes();
        let (tx_end, arrive) = self.start_transmission(now, w.admitted, wire as u64);
        let was_empty = self.fifo.is_empty();
        self.push(&w.packet, tx_end, arrive);
        let head = was_empty.then_some(arrive);
        let Scheduler::Priority(q) = &mut self.cold.scheduler else {
            unreachable!()
        };
        TxDone {
            schedule_head_at: head,
            schedule_tx_done_at: if more {
                q.request_tx_done(tx_end)
            } else {
                None
            },
            started_admitted_at: Some(w.admitted),
            schedule_timer: None,
            departed: (w.ingress != NO_INGRESS).then_some(Departed {
                ingress: w.ingress,
                class,
                wire_bytes: wire,
            }),
        }
    }

    /// A `PortTimer` event of this port's discipline popped at `now` carrying `generation`:
    /// fires the discipline's timer if it is due (then serves the link if it is free), or
    /// asks for the event again if the timer moved later; a stale event does nothing.
    pub fn on_timer_event(&mut self, now: Time, generation: u32) -> TxDone {
        let Scheduler::Discipline(d) = &mut self.cold.scheduler else {
            return TxDone::default();
        };
        d.effects.clear();
        match d.timer.on_event(now, generation) {
            incastsim_core::TimerFire::Fire => self.serve_discipline(now, true),
            incastsim_core::TimerFire::Reschedule(at, g) => TxDone {
                schedule_timer: Some((at, g)),
                ..TxDone::default()
            },
            incastsim_core::TimerFire::Stale => TxDone::default(),
        }
    }

    /// The packets the discipline dropped at its head in the last [`OutputPort::on_tx_done`]
    /// or [`OutputPort::on_timer_event`] (already counted here; the engine tells the probes
    /// and the flows' bookkeeping). Empty at other ports.
    pub fn head_drops(&self) -> &[Held] {
        match &self.cold.scheduler {
            Scheduler::Discipline(d) => &d.effects.dropped,
            _ => &[],
        }
    }

    /// A scheduling discipline's turn at `now`: its timer (if `fire_timer`), then, if the link
    /// is free, its pick of the next packet; counts what it did at the head, starts the packet,
    /// and asks for the events that follow (the next `TxDone`, its timer).
    #[cold]
    #[inline(never)]
    fn serve_discipline(&mut self, now: Time, fire_timer: bool) -> TxDone {
        self.release_transmitted(now);
        let link_free = self.last_tx_end <= now;
        let Scheduler::Discipline(d) = &mut self.cold.scheduler else {
            unreachable!("a scheduling discipline's port");
        };
        d.effects.clear();
        let mut ctx = DequeueContext::new(now, &mut d.effects);
        if fire_timer {
            self.qdisc.on_timer(&mut ctx);
        }
        let next = if link_free && d.held > 0 {
            self.qdisc.dequeue(&mut ctx)
        } else {
            None
        };
        if !d.effects.is_empty() {
            self.count_dequeue_effects(now);
        }
        let mut done = TxDone::default();
        if let Some(h) = next {
            let Scheduler::Discipline(d) = &mut self.cold.scheduler else {
                unreachable!()
            };
            let wire = h.packet.wire_bytes() as u64;
            debug_assert!(
                d.held > 0 && d.held_bytes >= wire,
                "the discipline handed out more than it held"
            );
            d.held -= 1;
            d.held_bytes -= wire;
            d.held_byte_enqueue_ps -= u128::from(wire) * u128::from(h.enqueued_at.as_ps());
            let (tx_end, arrive) = self.start_transmission(now, h.enqueued_at, wire);
            let was_empty = self.fifo.is_empty();
            self.push(&h.packet, tx_end, arrive);
            done.schedule_head_at = was_empty.then_some(arrive);
            done.started_admitted_at = Some(h.enqueued_at);
        }
        let Scheduler::Discipline(d) = &mut self.cold.scheduler else {
            unreachable!()
        };
        // The next transmission end serves again while the discipline holds packets.
        if d.held > 0 && !d.tx_done_pending && self.last_tx_end > now {
            d.tx_done_pending = true;
            done.schedule_tx_done_at = Some(self.last_tx_end);
        }
        let want = self.qdisc.next_timer();
        if d.timer.deadline() != want {
            match want {
                Some(at) => done.schedule_timer = d.timer.arm(at.max(now)),
                None => d.timer.cancel(),
            }
        }
        debug_assert!(self.occ_bytes >= d.held_bytes && self.occ_packets as usize >= d.held);
        done
    }

    /// Counts what a scheduling discipline did at its head: drops (AQM, at dequeue), marks,
    /// trims; the buffer releases the dropped packets and the cut bytes now.
    #[cold]
    #[inline(never)]
    fn count_dequeue_effects(&mut self, now: Time) {
        let cold = &mut *self.cold;
        let Scheduler::Discipline(d) = &mut cold.scheduler else {
            unreachable!()
        };
        let stats = &mut cold.stats;
        let e = &d.effects;
        for h in &e.dropped {
            let wire = h.packet.wire_bytes() as u64;
            let class = (h.packet.dscp as usize).min(STAT_CLASSES - 1);
            stats.drops_aqm += 1;
            stats.class_drops[class] += 1;
            stats.drops_at_dequeue += 1;
            stats.drops_at_dequeue_bytes += wire;
            debug_assert!(
                d.held > 0 && d.held_bytes >= wire,
                "the discipline dropped more than it held"
            );
            d.held -= 1;
            d.held_bytes -= wire;
            d.held_byte_enqueue_ps -= u128::from(wire) * u128::from(h.enqueued_at.as_ps());
            self.occ_bytes -= wire;
            self.occ_packets -= 1;
            // It occupied the buffer from admission until now.
            self.residence_byte_ps +=
                u128::from(wire) * u128::from(now.as_ps().saturating_sub(h.enqueued_at.as_ps()));
        }
        for (class, &m) in e.marks.iter().enumerate() {
            stats.ecn_marks += u64::from(m);
            stats.class_marks[class] += u64::from(m);
        }
        if e.trimmed_packets > 0 {
            stats.trimmed_packets += u64::from(e.trimmed_packets);
            stats.trimmed_bytes += e.trimmed_bytes;
            d.held_bytes -= e.trimmed_bytes;
            d.held_byte_enqueue_ps -= e.trimmed_byte_enqueue_ps;
            self.occ_bytes -= e.trimmed_bytes;
            self.residence_byte_ps += e.trimmed_residence_byte_ps;
        }
        if self.tracing && (!e.dropped.is_empty() || e.trimmed_packets > 0) {
            self.push_trace(now);
        }
    }

    /// The port just emptied. Its FIFO starts again at the front of its buffer (`clear` moves
    /// the ring's start there), so the next packets reuse the lines the last ones warmed
    /// instead of walking on through a buffer that has gone cold (a fabric's lightly used
    /// port holds a packet or two at a time); and a FIFO that once held more than
    /// [`FIFO_KEEP`] packets gives the burst's memory back.
    #[inline(always)]
    fn fifo_emptied(&mut self) {
        self.fifo.clear();
        if self.fifo.capacity() > FIFO_KEEP {
            self.release_fifo_memory();
        }
    }

    #[cold]
    #[inline(never)]
    fn release_fifo_memory(&mut self) {
        self.fifo.shrink_empty_to(FIFO_KEEP);
    }

    /// Removes the head packet, which reaches the far end at `now`.
    #[inline(always)] // one call site on the hot path; keeps the event loop flat
    pub fn pop_arrival(&mut self, now: Time) -> Arrival {
        self.release_transmitted(now);
        // The packet alone is read out of its entry, once, before the entry is dropped (a
        // copy of the whole entry, then of its packet into the answer, was ~15 instructions
        // per event, more when the compiler placed them differently).
        let head = self
            .fifo
            .front()
            .expect("head-arrival event for an empty port");
        debug_assert_eq!(head.arrive, now, "head arrival at the wrong time");
        let mut arrival = Arrival {
            packet: Some(head.packet),
            next_head_at: None,
        };
        self.fifo.drop_front();
        debug_assert!(self.on_wire > 0);
        self.on_wire -= 1;
        arrival.next_head_at = self.fifo.front().map(|q| q.arrive);
        if arrival.next_head_at.is_none() {
            self.fifo_emptied();
        }
        if self.lossy && {
            let cold = &mut *self.cold;
            cold.loss.lose(&mut cold.loss_rng)
        } {
            self.cold.stats.drops_link_loss += 1;
            arrival.packet = None;
        }
        arrival
    }
}

#[cfg(test)]
mod tests;
