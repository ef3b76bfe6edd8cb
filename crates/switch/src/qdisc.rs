//! Queue disciplines: the one place a port decides to admit, mark or drop a packet, and,
//! for a discipline that schedules ([`QueueDiscipline::schedules`]), which packet leaves next.

use incastsim_core::{Packet, Time};

/// How much a port's buffer holds when a packet arrives (the packet itself not included).
/// The packet being serialized still occupies the buffer until its last bit leaves: this is a
/// store-and-forward switch's shared buffer, as in htsim and real hardware.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Occupancy {
    /// Bytes queued (headers included).
    pub bytes: u64,
    /// Packets queued.
    pub packets: u32,
}

/// A buffer limit, in bytes or in packets, or none (a host NIC by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferLimit {
    /// At most this many bytes queued.
    Bytes(u64),
    /// At most this many packets queued.
    Packets(u32),
    /// No limit.
    Unlimited,
}

impl BufferLimit {
    /// Whether a packet of `wire_bytes` fits on top of `occ`.
    #[inline]
    pub fn fits(&self, occ: Occupancy, wire_bytes: u32) -> bool {
        match *self {
            BufferLimit::Bytes(b) => occ.bytes + wire_bytes as u64 <= b,
            BufferLimit::Packets(p) => occ.packets < p,
            BufferLimit::Unlimited => true,
        }
    }
    /// Invariant check: the buffer is within its limit.
    pub fn holds(&self, occ: Occupancy) -> bool {
        match *self {
            BufferLimit::Bytes(b) => occ.bytes <= b,
            BufferLimit::Packets(p) => occ.packets <= p,
            BufferLimit::Unlimited => true,
        }
    }
}

/// Why a packet was dropped. Every drop is counted with exactly one reason, at exactly one place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// The output buffer had no room.
    BufferFull,
    /// An active queue management discipline chose to drop.
    Aqm,
    /// A shared buffer's Dynamic Threshold: the queue was at or above α·(free space).
    Threshold,
    /// Random loss on the link (Bernoulli, per direction).
    LinkLoss,
    /// PFC: a lossless packet arrived above XOFF with its (input port, priority)'s headroom
    /// full (the headroom was set too small, or a sender ignored a PAUSE).
    Headroom,
}

/// A queue discipline's decision about an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Admitted as it is.
    Admit,
    /// Admitted, with the ECN codepoint set to CE by the discipline.
    AdmitMarked,
    /// Refused, and why.
    Drop(DropReason),
}

/// A packet held in a scheduling discipline's own queues, with when the port admitted it
/// (CoDel's sojourn time is `now − enqueued_at`, RFC 8289 §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held {
    /// The packet (as admitted: CE if the admission marked it).
    pub packet: Packet,
    /// When the port admitted it.
    pub enqueued_at: Time,
}

/// Traffic classes whose marks at dequeue are counted apart: the port's `STAT_CLASSES` (the
/// port asserts they agree; this module does not import the port's).
pub(crate) const MARK_CLASSES: usize = 8;

/// What a scheduling discipline did at the head of its queues during one
/// [`QueueDiscipline::dequeue`] or [`QueueDiscipline::on_timer`] call, for the port to count:
/// kept by the port and reused (no allocation per packet once the drop list has grown).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DequeueEffects {
    /// Packets dropped at the head, in order (the engine reads them after the call: probes,
    /// the flows' bookkeeping).
    pub(crate) dropped: Vec<Held>,
    /// CE marks made, per traffic class (DSCP capped at [`crate::STAT_CLASSES`] − 1, as the port's counters).
    pub(crate) marks: [u32; MARK_CLASSES],
    /// Packets trimmed and the wire bytes the trimming took away.
    pub(crate) trimmed_packets: u32,
    pub(crate) trimmed_bytes: u64,
    /// Σ over trimmed bytes of their enqueue time (ps), and of their time buffered until the
    /// trim (byte·ps): the port's residence and waiting-bytes accounts.
    pub(crate) trimmed_byte_enqueue_ps: u128,
    pub(crate) trimmed_residence_byte_ps: u128,
}

impl DequeueEffects {
    /// Whether the last call did anything beyond handing out a packet.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.dropped.is_empty() && self.trimmed_packets == 0 && self.marks == [0; MARK_CLASSES]
    }
    /// Forgets the last call's effects (keeps the drop list's memory).
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.dropped.clear();
        self.marks = [0; MARK_CLASSES];
        self.trimmed_packets = 0;
        self.trimmed_bytes = 0;
        self.trimmed_byte_enqueue_ps = 0;
        self.trimmed_residence_byte_ps = 0;
    }
}

/// What a scheduling discipline may do to the packets at its head, at `now`: drop, mark CE,
/// trim. (Stamping in-band telemetry is not offered: a [`Packet`] fills its 64 bytes, no field
/// is free for it; a discipline may still set the packet's flag bits.) The port counts every effect exactly once (a drop as
/// [`DropReason::Aqm`], also in [`crate::PortStats::drops_at_dequeue`]; a mark in
/// `ecn_marks`; a trim in `trimmed_packets`) and keeps its buffer's occupancy exact.
pub struct DequeueContext<'a> {
    now: Time,
    effects: &'a mut DequeueEffects,
}

impl<'a> DequeueContext<'a> {
    /// A context at `now` recording into `effects` (the port makes one per call; a test of a
    /// discipline may make its own and read [`DequeueContext::dropped`]).
    pub fn new(now: Time, effects: &'a mut DequeueEffects) -> DequeueContext<'a> {
        DequeueContext { now, effects }
    }
    /// The time of the call.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }
    /// Drops `held`, taken out of the discipline's queues (an AQM drop at the head).
    #[inline]
    pub fn drop(&mut self, held: Held) {
        self.effects.dropped.push(held);
    }
    /// Sets CE on `packet` if it is ECN-capable (RFC 3168 §5: a router marks only ECT or CE
    /// packets) and returns whether it did; the port counts the mark.
    #[inline]
    pub fn mark(&mut self, packet: &mut Packet) -> bool {
        if !ecn_capable(packet) {
            return false;
        }
        packet.ecn = incastsim_core::Ecn::Ce;
        self.effects.marks[(packet.dscp as usize).min(MARK_CLASSES - 1)] += 1;
        true
    }
    /// Cuts `held`'s payload to `payload_bytes` (packet trimming: the header goes on, NDP's
    /// switches, Handley et al., SIGCOMM 2017, §3.1) and sets [`incastsim_core::packet::flags::TRIMMED`];
    /// nothing if the payload is not larger. The port's buffer releases the cut bytes now.
    #[inline]
    pub fn trim(&mut self, held: &mut Held, payload_bytes: u32) {
        let cut = held.packet.payload_bytes.saturating_sub(payload_bytes);
        if cut == 0 {
            return;
        }
        held.packet.payload_bytes = payload_bytes;
        held.packet.flags |= incastsim_core::packet::flags::TRIMMED;
        let e = &mut *self.effects;
        e.trimmed_packets += 1;
        e.trimmed_bytes += u64::from(cut);
        e.trimmed_byte_enqueue_ps += u128::from(cut) * u128::from(held.enqueued_at.as_ps());
        e.trimmed_residence_byte_ps +=
            u128::from(cut) * u128::from(self.now.as_ps().saturating_sub(held.enqueued_at.as_ps()));
    }
    /// The packets dropped so far in this call.
    pub fn dropped(&self) -> &[Held] {
        &self.effects.dropped
    }
}

/// A queue discipline decides at enqueue time; one that schedules also decides at dequeue.
/// A built-in one is a variant of [`QueueDisc`], so the per-packet path stays an enum match
/// (no dynamic dispatch); one from another crate (an extension) goes in
/// [`QueueDisc::Extension`] through [`QueueDisc::extension`] and costs one indirect call per
/// packet at its ports.
///
/// What a discipline may do at enqueue: decide (admit, mark, drop with a reason) and set the
/// packet's ECN or flag bits (or cut its payload before it is counted, as NDP trims). The port
/// counts the verdict, keeps the buffer and never lets it exceed [`QueueDiscipline::limit`]
/// (checked in debug builds). A discipline that draws random numbers holds its own stream (the
/// plan gives each port one), so it changes nothing else in the run.
///
/// **The dequeue side** (optional): a discipline whose [`QueueDiscipline::schedules`] is true
/// (read once, when the port is built) keeps the admitted packets in queues of its own
/// ([`QueueDiscipline::hold`]) and picks the next packet to transmit whenever the link is free
/// ([`QueueDiscipline::dequeue`]): among its queues as it likes (FIFO, priorities, DRR),
/// dropping or marking at the head with each packet's enqueue time known, trimming
/// ([`DequeueContext`]). Its port decides departures at dequeue, as a strict-priority
/// port does: one transmission-end event per departure, and the packets it holds still count
/// in the port's buffer (occupancy, limit, `max_queue`, mean queue, packets in the network).
/// It may keep a timer ([`QueueDiscipline::next_timer`], [`QueueDiscipline::on_timer`]): the
/// port re-reads it after every dequeue-side call and every admission that finds the link idle,
/// and the engine fires it as a `PortTimer` event. Ports of other disciplines keep the
/// fast path: departure fixed at admission.
pub trait QueueDiscipline {
    /// Decides the fate of `packet` arriving at `now` when the buffer holds `occupancy`.
    fn on_enqueue(&mut self, packet: &mut Packet, occupancy: Occupancy, now: Time) -> Verdict;
    /// The hard limit of the buffer (checked as an invariant).
    fn limit(&self) -> BufferLimit;
    /// Whether the port should call [`QueueDiscipline::note_idle`] (RED's average decays over
    /// idle time); false by default, which spares the port the test.
    fn tracks_idle(&self) -> bool {
        false
    }
    /// The port's buffer has been empty since `since` (called before an arrival finds it
    /// empty, only if [`QueueDiscipline::tracks_idle`]).
    fn note_idle(&mut self, since: Time) {
        let _ = since;
    }
    /// Whether this discipline holds the admitted packets and picks departures at dequeue
    /// (false by default: the port queues them FIFO and fixes each departure at admission).
    /// Read once, when the port is built; a discipline that says true must implement
    /// [`QueueDiscipline::hold`] and [`QueueDiscipline::dequeue`].
    fn schedules(&self) -> bool {
        false
    }
    /// Takes a packet the verdict admitted into the discipline's own queues (only called if
    /// [`QueueDiscipline::schedules`]). The port has counted it in its buffer already; the
    /// discipline must give it back through [`QueueDiscipline::dequeue`] or drop it through a
    /// [`DequeueContext`], exactly once. The default refuses to lose it: it panics, naming the
    /// missing method (a discipline that schedules without implementing it is a programming
    /// error, not bad input).
    fn hold(&mut self, held: Held) {
        let _ = held;
        unimplemented!("a queue discipline whose `schedules()` is true implements `hold`");
    }
    /// The link is free at `ctx.now()`: the next packet to transmit, if any (only called if
    /// [`QueueDiscipline::schedules`]). On the way it may drop packets at its head
    /// ([`DequeueContext::drop`]), mark or trim the packet it returns. `None` while it
    /// holds packets leaves the link idle until its timer or the next arrival.
    fn dequeue(&mut self, ctx: &mut DequeueContext) -> Option<Held> {
        let _ = ctx;
        None
    }
    /// When the discipline wants [`QueueDiscipline::on_timer`] called (`None`: no timer).
    /// Read after each dequeue-side call and each admission that finds the link idle (an
    /// admission while a packet is being sent is seen when that transmission ends). A time
    /// not after the call's fires at once, so a discipline asks for a time in the past only
    /// once (asking again after every call would fire it again and again at the same instant).
    fn next_timer(&self) -> Option<Time> {
        None
    }
    /// Its timer fired at `ctx.now()`; it may drop held packets through `ctx`. If the link is
    /// free the port then calls [`QueueDiscipline::dequeue`].
    fn on_timer(&mut self, ctx: &mut DequeueContext) {
        let _ = ctx;
    }
    /// Names of values of its own the discipline reports per port (`codel_drops`): fixed for
    /// its type, they become columns of ports.csv and metrics of the sampled ports' time
    /// series. Default: none.
    fn value_names(&self) -> &'static [&'static str] {
        &[]
    }
    /// Its values now, one per name of [`QueueDiscipline::value_names`], in that order (`out`
    /// has that length). Read when the time series samples the port and at the end of the
    /// run, never per packet.
    fn values(&self, out: &mut [f64]) {
        let _ = out;
    }
}

/// A queue discipline from another crate, boxed: what [`QueueDisc::Extension`] holds. Any
/// `QueueDiscipline + Clone + Debug + Send` is one (ports are cloned when a plan is copied).
pub trait ExtensionQueueDisc: QueueDiscipline + Send + std::fmt::Debug {
    /// A boxed copy (ports are `Clone`).
    fn clone_box(&self) -> Box<dyn ExtensionQueueDisc>;
}

impl<T: QueueDiscipline + Clone + Send + std::fmt::Debug + 'static> ExtensionQueueDisc for T {
    fn clone_box(&self) -> Box<dyn ExtensionQueueDisc> {
        Box::new(self.clone())
    }
}

/// The boxed extension discipline of [`QueueDisc::Extension`].
#[derive(Debug)]
pub struct BoxedQueueDisc(pub Box<dyn ExtensionQueueDisc>);

impl Clone for BoxedQueueDisc {
    fn clone(&self) -> Self {
        BoxedQueueDisc(self.0.clone_box())
    }
}

impl PartialEq for BoxedQueueDisc {
    /// Equal when their state reads the same (`Debug`): an extension need not be `PartialEq`.
    fn eq(&self, other: &Self) -> bool {
        format!("{:?}", self.0) == format!("{:?}", other.0)
    }
}

/// Drop-tail: admit while the packet fits the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DropTail {
    /// The buffer.
    pub limit: BufferLimit,
}

impl DropTail {
    /// The verdict on `packet` (read only: a built-in discipline never changes it).
    #[inline]
    pub fn decide(&mut self, packet: &Packet, occ: Occupancy, _now: Time) -> Verdict {
        if self.limit.fits(occ, packet.wire_bytes()) {
            Verdict::Admit
        } else {
            Verdict::Drop(DropReason::BufferFull)
        }
    }
}

impl QueueDiscipline for DropTail {
    #[inline]
    fn on_enqueue(&mut self, packet: &mut Packet, occ: Occupancy, now: Time) -> Verdict {
        self.decide(packet, occ, now)
    }
    fn limit(&self) -> BufferLimit {
        self.limit
    }
}

/// A threshold in the unit RED/marking compares against: bytes or packets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Threshold {
    /// A byte threshold.
    Bytes(u64),
    /// A packet threshold.
    Packets(u32),
}

impl Threshold {
    /// The queue measured in this threshold's unit.
    #[inline]
    pub fn measure(&self, occ: Occupancy) -> f64 {
        match self {
            Threshold::Bytes(_) => occ.bytes as f64,
            Threshold::Packets(_) => occ.packets as f64,
        }
    }
    /// The threshold as a number in its unit.
    #[inline]
    pub fn value(&self) -> f64 {
        match *self {
            Threshold::Bytes(b) => b as f64,
            Threshold::Packets(p) => p as f64,
        }
    }
}

fn ecn_capable(p: &Packet) -> bool {
    matches!(
        p.ecn,
        incastsim_core::Ecn::Ect0 | incastsim_core::Ecn::Ect1 | incastsim_core::Ecn::Ce
    )
}

/// DCTCP-style marking (RFC 8257 §3.1): an ECN-capable packet arriving when the instantaneous
/// queue exceeds K is marked CE; others are only dropped when the buffer is full.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThresholdMark {
    /// The marking threshold K.
    pub k: Threshold,
    /// The buffer.
    pub limit: BufferLimit,
}

impl ThresholdMark {
    /// The verdict on `packet` (read only: a built-in discipline never changes it).
    #[inline]
    pub fn decide(&mut self, packet: &Packet, occ: Occupancy, _now: Time) -> Verdict {
        if !self.limit.fits(occ, packet.wire_bytes()) {
            return Verdict::Drop(DropReason::BufferFull);
        }
        if ecn_capable(packet) && self.k.measure(occ) > self.k.value() {
            Verdict::AdmitMarked
        } else {
            Verdict::Admit
        }
    }
}

impl QueueDiscipline for ThresholdMark {
    #[inline]
    fn on_enqueue(&mut self, packet: &mut Packet, occ: Occupancy, now: Time) -> Verdict {
        self.decide(packet, occ, now)
    }
    fn limit(&self) -> BufferLimit {
        self.limit
    }
}

/// PLATO's switch (Shukla et al.): at or above Th_P on the instantaneous queue only labelled
/// packets are admitted — WRED with min = max = Th_P for unlabelled packets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThresholdAdmit {
    /// From this queue length on, only labelled packets are admitted.
    pub threshold: Threshold,
    /// The buffer.
    pub limit: BufferLimit,
}

impl ThresholdAdmit {
    /// The verdict on `packet` (read only: a built-in discipline never changes it).
    #[inline]
    pub fn decide(&mut self, packet: &Packet, occ: Occupancy, _now: Time) -> Verdict {
        if !self.limit.fits(occ, packet.wire_bytes()) {
            return Verdict::Drop(DropReason::BufferFull);
        }
        let labelled = packet.has_flag(incastsim_core::packet::flags::LABEL);
        if !labelled && self.threshold.measure(occ) >= self.threshold.value() {
            Verdict::Drop(DropReason::Aqm)
        } else {
            Verdict::Admit
        }
    }
}

impl QueueDiscipline for ThresholdAdmit {
    #[inline]
    fn on_enqueue(&mut self, packet: &mut Packet, occ: Occupancy, now: Time) -> Verdict {
        self.decide(packet, occ, now)
    }
    fn limit(&self) -> BufferLimit {
        self.limit
    }
}

/// One RED drop/mark profile (Floyd & Jacobson 1993).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedProfile {
    /// No drops while the average queue is below this (in the unit of [`RedParams::unit`]).
    pub min_th: f64,
    /// Every arrival dropped (or marked) above this (gentle: ramps to 2 × max_th).
    pub max_th: f64,
    /// Drop probability as the average reaches max_th.
    pub max_p: f64,
}

impl RedProfile {
    /// The base marking probability p_b at average queue `avg`, or `None` above the region
    /// where marking is probabilistic (a forced drop). With `gentle`, p_b rises linearly from
    /// max_p at max_th to 1 at 2·max_th (Floyd 2000).
    pub fn base_probability(&self, avg: f64, gentle: bool) -> Option<f64> {
        if avg < self.min_th {
            Some(0.0)
        } else if avg < self.max_th {
            Some(self.max_p * (avg - self.min_th) / (self.max_th - self.min_th))
        } else if gentle && avg < 2.0 * self.max_th {
            Some(self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th)
        } else {
            None
        }
    }
}

/// RED / WRED parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    /// The unit thresholds are in (bytes or packets); also how the queue is measured.
    pub unit: Threshold,
    /// Weight of the average queue's EWMA (Floyd & Jacobson: 0.002).
    pub w_q: f64,
    /// Gentle RED: between max_th and 2 × max_th the probability rises from max_p to 1.
    pub gentle: bool,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// The buffer (a full buffer drops whatever RED says).
    pub limit: BufferLimit,
    /// The profiles (RED: one; WRED: one per class group).
    pub profiles: Vec<RedProfile>,
    /// Profile index of each DSCP value (WRED); all zero for RED.
    pub profile_of_dscp: [u8; 64],
    /// Transmission time of a typical packet, for the idle-time correction: an idle period of
    /// length t decays avg as if t / typical_tx_ps packets had arrived to an empty queue.
    pub typical_tx_ps: f64,
}

/// RED / WRED: an EWMA of the queue (weight w_q, idle-time correction), a profile per traffic
/// class (WRED; plain RED has one), count-based spacing of marks, optional gentle mode, and
/// ECN marking of ECN-capable packets instead of dropping them.
#[derive(Clone, Debug, PartialEq)]
#[repr(C)]
pub struct Red {
    /// What every arrival reads and writes, first and in one cache line: a port's RED state
    /// is cold between its packets, and spread over the struct, the parameters' profiles and
    /// the counts it missed the first-level cache about 1.3 times a packet (HPCC's k = 8 web
    /// search, session 25).
    hot: RedHot,
    /// `params.limit`, which every arrival checks: next after `hot`.
    limit: BufferLimit,
    /// Its parameters (read only: `hot` and `limit` copy what every arrival needs).
    params: RedParams,
    /// Per profile: packets since the last mark (-1 outside the marking region); profile 0's
    /// is `hot.count0`.
    count: Vec<i64>,
    rng: incastsim_core::SimRng,
}

/// [`Red`]'s per-arrival state and the parameters every arrival reads (64 bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(64))]
struct RedHot {
    /// The average queue (EWMA), in the unit of the thresholds.
    avg: f64,
    /// `params.w_q`.
    w_q: f64,
    /// Since when the queue has been empty (ps; [`NOT_IDLE`]: it is not).
    idle_since_ps: u64,
    /// `params.profiles[0]` (plain RED's only profile).
    profile0: RedProfile,
    /// Profile 0's count of packets since the last mark.
    count0: i64,
    /// The thresholds count packets, not bytes (`params.unit`).
    in_packets: bool,
    /// `params.gentle`.
    gentle: bool,
    /// One profile (plain RED): no per-DSCP lookup.
    single: bool,
}

/// [`RedHot::idle_since_ps`] of a queue that is not idle.
const NOT_IDLE: u64 = u64::MAX;

impl Red {
    /// RED with `params`, drawing from the port's queue stream `rng`.
    pub fn new(params: RedParams, rng: incastsim_core::SimRng) -> Red {
        let n = params.profiles.len();
        assert!(n > 0, "RED needs at least one profile");
        Red {
            limit: params.limit,
            hot: RedHot {
                avg: 0.0,
                w_q: params.w_q,
                idle_since_ps: 0,
                profile0: params.profiles[0],
                count0: -1,
                in_packets: matches!(params.unit, Threshold::Packets(_)),
                gentle: params.gentle,
                single: n == 1,
            },
            params,
            count: vec![-1; n],
            rng,
        }
    }

    /// Its parameters.
    pub fn params(&self) -> &RedParams {
        &self.params
    }

    /// The average queue (EWMA), in the unit of the thresholds.
    pub fn average(&self) -> f64 {
        self.hot.avg
    }

    /// Updates the average for an arrival seeing queue `q` at `now`.
    #[inline]
    fn update_average(&mut self, q: f64, now: Time) {
        let h = &mut self.hot;
        if h.idle_since_ps != NOT_IDLE && q == 0.0 {
            // Idle-time correction: decay as if m small packets had arrived to an empty queue.
            let since = Time(h.idle_since_ps);
            let m = now.since(since).as_ps() as f64 / self.params.typical_tx_ps.max(1.0);
            h.avg *= if h.w_q == 1.0 {
                // The instantaneous queue (DCQCN's and the HPCC fork's marking): 0^m
                // without `powf`, which cost about 60 instructions an idle arrival.
                if m > 0.0 { 0.0 } else { 1.0 }
            } else {
                (1.0 - h.w_q).powf(m)
            };
            h.idle_since_ps = NOT_IDLE;
        } else {
            h.avg = (1.0 - h.w_q) * h.avg + h.w_q * q;
        }
    }

    /// The queue has become empty at `now` (starts the idle period).
    pub fn note_idle(&mut self, now: Time) {
        self.hot.idle_since_ps = now.as_ps();
    }
}

impl Red {
    /// The verdict on `packet` (read only: a built-in discipline never changes it).
    pub fn decide(&mut self, packet: &Packet, occ: Occupancy, now: Time) -> Verdict {
        let q = if self.hot.in_packets {
            occ.packets as f64
        } else {
            occ.bytes as f64
        };
        if q > 0.0 {
            self.hot.idle_since_ps = NOT_IDLE;
        }
        self.update_average(q, now);
        if !self.limit.fits(occ, packet.wire_bytes()) {
            return Verdict::Drop(DropReason::BufferFull);
        }
        let (profile, count) = if self.hot.single {
            (self.hot.profile0, &mut self.hot.count0)
        } else {
            let pi = self.params.profile_of_dscp[(packet.dscp & 63) as usize] as usize;
            let c = if pi == 0 {
                &mut self.hot.count0
            } else {
                &mut self.count[pi]
            };
            (self.params.profiles[pi], c)
        };
        let congested = match profile.base_probability(self.hot.avg, self.hot.gentle) {
            Some(p_b) if p_b <= 0.0 => {
                *count = -1;
                false
            }
            Some(p_b) => {
                // Count-based spacing: p_a = p_b / (1 - count * p_b), count = packets since the
                // last mark, so the gap between marks is uniform on {1, ..., 1/p_b}.
                *count += 1;
                let c = (*count - 1).max(0) as f64;
                let denom = 1.0 - c * p_b;
                let p_a = if denom <= p_b {
                    1.0
                } else {
                    (p_b / denom).min(1.0)
                };
                let hit = self.rng.unit_f64() < p_a;
                if hit {
                    *count = 0;
                }
                hit
            }
            None => {
                // Above max_th (2·max_th in gentle mode): every packet is dropped.
                *count = 0;
                return Verdict::Drop(DropReason::Aqm);
            }
        };
        if !congested {
            Verdict::Admit
        } else if self.params.ecn && ecn_capable(packet) {
            Verdict::AdmitMarked
        } else {
            Verdict::Drop(DropReason::Aqm)
        }
    }
}

impl QueueDiscipline for Red {
    fn on_enqueue(&mut self, packet: &mut Packet, occ: Occupancy, now: Time) -> Verdict {
        self.decide(packet, occ, now)
    }
    fn limit(&self) -> BufferLimit {
        self.params.limit
    }
}

/// The queue disciplines a port can run, dispatched by `match`.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueDisc {
    /// Tail drop at the buffer limit.
    DropTail(DropTail),
    /// RED or WRED (boxed: its state is larger than the others').
    Red(Box<Red>),
    /// ECN marking above an instantaneous threshold (DCTCP).
    ThresholdMark(ThresholdMark),
    /// Admission of labelled packets only above a threshold (PLATO).
    ThresholdAdmit(ThresholdAdmit),
    /// A discipline from another crate (selected by name from the config): one indirect call
    /// per packet, at the ports that run it only.
    Extension(BoxedQueueDisc),
}

impl QueueDisc {
    /// Tail drop at `limit`.
    pub fn drop_tail(limit: BufferLimit) -> QueueDisc {
        QueueDisc::DropTail(DropTail { limit })
    }

    /// An extension's discipline as a port's.
    pub fn extension(q: impl ExtensionQueueDisc + 'static) -> QueueDisc {
        QueueDisc::Extension(BoxedQueueDisc(Box::new(q)))
    }

    /// The port's buffer has been empty since `since` (RED's idle-time correction uses it).
    #[inline]
    pub fn note_idle(&mut self, since: Time) {
        match self {
            QueueDisc::Red(r) => r.note_idle(since),
            QueueDisc::Extension(e) => e.0.note_idle(since),
            _ => {}
        }
    }
}

impl QueueDisc {
    /// The verdict of a built-in discipline, which only reads the packet (so the port copies
    /// it once, into its FIFO); `None` for an extension's, which may change the packet
    /// ([`QueueDiscipline::on_enqueue`]).
    #[inline(always)] // once per packet per hop
    pub fn built_in_verdict(
        &mut self,
        packet: &Packet,
        occ: Occupancy,
        now: Time,
    ) -> Option<Verdict> {
        Some(match self {
            QueueDisc::DropTail(d) => d.decide(packet, occ, now),
            QueueDisc::Red(r) => r.decide(packet, occ, now),
            QueueDisc::ThresholdMark(t) => t.decide(packet, occ, now),
            QueueDisc::ThresholdAdmit(t) => t.decide(packet, occ, now),
            QueueDisc::Extension(_) => return None,
        })
    }
}

impl QueueDiscipline for QueueDisc {
    #[inline(always)] // once per packet per hop: keep the enum match in the admission path
    fn on_enqueue(&mut self, packet: &mut Packet, occ: Occupancy, now: Time) -> Verdict {
        match self {
            QueueDisc::DropTail(d) => d.on_enqueue(packet, occ, now),
            QueueDisc::Red(r) => r.on_enqueue(packet, occ, now),
            QueueDisc::ThresholdMark(t) => t.on_enqueue(packet, occ, now),
            QueueDisc::ThresholdAdmit(t) => t.on_enqueue(packet, occ, now),
            QueueDisc::Extension(e) => e.0.on_enqueue(packet, occ, now),
        }
    }
    fn limit(&self) -> BufferLimit {
        match self {
            QueueDisc::DropTail(d) => d.limit(),
            QueueDisc::Red(r) => r.limit(),
            QueueDisc::ThresholdMark(t) => t.limit(),
            QueueDisc::ThresholdAdmit(t) => t.limit(),
            QueueDisc::Extension(e) => e.0.limit(),
        }
    }
    fn tracks_idle(&self) -> bool {
        match self {
            QueueDisc::Red(_) => true,
            QueueDisc::Extension(e) => e.0.tracks_idle(),
            _ => false,
        }
    }
    // The built-ins decide at enqueue only: the dequeue side is an extension's.
    fn schedules(&self) -> bool {
        match self {
            QueueDisc::Extension(e) => e.0.schedules(),
            _ => false,
        }
    }
    fn hold(&mut self, held: Held) {
        match self {
            QueueDisc::Extension(e) => e.0.hold(held),
            _ => unreachable!("a built-in discipline does not schedule"),
        }
    }
    fn dequeue(&mut self, ctx: &mut DequeueContext) -> Option<Held> {
        match self {
            QueueDisc::Extension(e) => e.0.dequeue(ctx),
            _ => None,
        }
    }
    fn next_timer(&self) -> Option<Time> {
        match self {
            QueueDisc::Extension(e) => e.0.next_timer(),
            _ => None,
        }
    }
    fn on_timer(&mut self, ctx: &mut DequeueContext) {
        if let QueueDisc::Extension(e) = self {
            e.0.on_timer(ctx)
        }
    }
    // The built-ins' state is in the port's counters: values of their own are extensions'.
    fn value_names(&self) -> &'static [&'static str] {
        match self {
            QueueDisc::Extension(e) => e.0.value_names(),
            _ => &[],
        }
    }
    fn values(&self, out: &mut [f64]) {
        if let QueueDisc::Extension(e) = self {
            e.0.values(out)
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use incastsim_core::PacketKind;

    pub(crate) fn pkt(payload: u32) -> Packet {
        Packet::new(PacketKind::Data, 0, 1, payload, 40)
    }

    /// RED's per-arrival state is one cache line at the start of its struct, the buffer limit
    /// right after it.
    #[test]
    fn red_hot_state_is_the_first_cache_line() {
        assert_eq!(std::mem::size_of::<RedHot>(), 64);
        assert_eq!(std::mem::align_of::<Red>(), 64);
        assert_eq!(std::mem::offset_of!(Red, hot), 0);
        assert_eq!(std::mem::offset_of!(Red, limit), 64);
    }

    #[test]
    fn drop_tail_in_bytes_counts_headers() {
        let mut q = DropTail {
            limit: BufferLimit::Bytes(32_000),
        };
        let mut p = pkt(1000);
        // 30 full frames (31,200 B) fit; a 31st (32,240 B) does not.
        let occ = Occupancy {
            bytes: 29 * 1040,
            packets: 29,
        };
        assert_eq!(q.on_enqueue(&mut p, occ, Time::ZERO), Verdict::Admit);
        let occ = Occupancy {
            bytes: 30 * 1040,
            packets: 30,
        };
        assert_eq!(
            q.on_enqueue(&mut p, occ, Time::ZERO),
            Verdict::Drop(DropReason::BufferFull)
        );
        // A 40-byte ACK still fits in the remaining 800 bytes.
        let mut ack = pkt(0);
        assert_eq!(q.on_enqueue(&mut ack, occ, Time::ZERO), Verdict::Admit);
    }

    fn red(profile: RedProfile, gentle: bool, ecn: bool) -> Red {
        let params = RedParams {
            unit: Threshold::Packets(0),
            w_q: 1.0,
            gentle,
            ecn,
            limit: BufferLimit::Packets(1000),
            profiles: vec![profile],
            profile_of_dscp: [0; 64],
            typical_tx_ps: 8000.0,
        };
        Red::new(params, incastsim_core::SimRng::new(3))
    }

    /// Marks over `n` arrivals that all see queue `q` (with w_q = 1 the average is held at q).
    fn mark_rate(r: &mut Red, q: u32, n: usize, ect: bool) -> (f64, f64) {
        let (mut marked, mut dropped) = (0, 0);
        for _ in 0..n {
            let mut p = pkt(1000);
            if ect {
                p.ecn = incastsim_core::Ecn::Ect0;
            }
            match r.on_enqueue(
                &mut p,
                Occupancy {
                    bytes: 0,
                    packets: q,
                },
                Time(1),
            ) {
                Verdict::AdmitMarked => marked += 1,
                Verdict::Drop(_) => dropped += 1,
                Verdict::Admit => {}
            }
        }
        (marked as f64 / n as f64, dropped as f64 / n as f64)
    }

    #[test]
    fn red_mark_probability_matches_the_formula() {
        let profile = RedProfile {
            min_th: 20.0,
            max_th: 60.0,
            max_p: 0.1,
        };
        // avg = 40: p_b = 0.1 * 20/40 = 0.05. Count-based spacing makes the gap between marks
        // uniform on {1..20}, so the long-run rate is 2 p_b / (1 + p_b) = 0.0952.
        let mut r = red(profile, false, true);
        let (marks, drops) = mark_rate(&mut r, 40, 400_000, true);
        assert_eq!(drops, 0.0);
        assert!(
            (marks - 2.0 * 0.05 / 1.05).abs() < 0.002,
            "mark rate {marks}"
        );
        // Not ECN-capable: the same packets are dropped instead.
        let (marks, drops) = mark_rate(&mut r, 40, 400_000, false);
        assert_eq!(marks, 0.0);
        assert!(
            (drops - 2.0 * 0.05 / 1.05).abs() < 0.002,
            "drop rate {drops}"
        );
        // Below min_th nothing happens; above max_th everything is dropped (non-gentle).
        assert_eq!(mark_rate(&mut r, 10, 10_000, true), (0.0, 0.0));
        assert_eq!(mark_rate(&mut r, 70, 10_000, true), (0.0, 1.0));
        // Gentle: at avg = 90, p_b = 0.1 + 0.9 * 30/60 = 0.55. The k-th packet after a mark is
        // marked with p_b / (1 - (k-1) p_b): gap 1 with probability 0.55, else 2 -> rate 1/1.45.
        let mut g = red(profile, true, false);
        let (_, drops) = mark_rate(&mut g, 90, 200_000, false);
        assert!(
            (drops - 1.0 / 1.45).abs() < 0.005,
            "gentle drop rate {drops}"
        );
    }

    #[test]
    fn red_average_follows_the_ewma_and_decays_when_idle() {
        let params = RedParams {
            unit: Threshold::Packets(0),
            w_q: 0.5,
            gentle: false,
            ecn: false,
            limit: BufferLimit::Packets(1000),
            profiles: vec![RedProfile {
                min_th: 1000.0,
                max_th: 2000.0,
                max_p: 0.1,
            }],
            profile_of_dscp: [0; 64],
            typical_tx_ps: 1000.0,
        };
        let mut r = Red::new(params, incastsim_core::SimRng::new(1));
        let mut p = pkt(100);
        r.on_enqueue(
            &mut p,
            Occupancy {
                bytes: 0,
                packets: 10,
            },
            Time(0),
        );
        assert_eq!(r.average(), 5.0);
        r.on_enqueue(
            &mut p,
            Occupancy {
                bytes: 0,
                packets: 10,
            },
            Time(0),
        );
        assert_eq!(r.average(), 7.5);
        // An arrival to an empty queue after 2 typical transmission times: avg *= (1 - w_q)^2.
        r.note_idle(Time(1000));
        r.on_enqueue(
            &mut p,
            Occupancy {
                bytes: 0,
                packets: 0,
            },
            Time(3000),
        );
        assert!((r.average() - 7.5 * 0.25).abs() < 1e-12);
    }

    /// With w_q = 1 (the instantaneous queue) an idle arrival's decay is 0^m without `powf`:
    /// the same average as `powf` gives, after an idle period and at its very start (m = 0).
    #[test]
    fn red_idle_decay_on_the_instantaneous_queue_is_powf_exactly() {
        let mut r = red(
            RedProfile {
                min_th: 5.0,
                max_th: 15.0,
                max_p: 0.1,
            },
            false,
            true,
        );
        let (busy, idle) = (
            Occupancy {
                bytes: 0,
                packets: 4,
            },
            Occupancy {
                bytes: 0,
                packets: 0,
            },
        );
        let mut p = pkt(100);
        for (idle_from, arrival) in [(1000, 1000), (1000, 9000)] {
            r.on_enqueue(&mut p, busy, Time(0));
            assert_eq!(r.average(), 4.0);
            r.note_idle(Time(idle_from));
            r.on_enqueue(&mut p, idle, Time(arrival));
            let m = (arrival - idle_from) as f64 / 8000.0;
            assert_eq!(r.average(), 4.0 * 0.0f64.powf(m), "m = {m}");
        }
    }

    #[test]
    fn threshold_mark_marks_only_ect_above_k() {
        let mut q = ThresholdMark {
            k: Threshold::Packets(65),
            limit: BufferLimit::Packets(100),
        };
        let mut ect = pkt(1000);
        ect.ecn = incastsim_core::Ecn::Ect0;
        let mut plain = pkt(1000);
        let at = |n| Occupancy {
            bytes: 0,
            packets: n,
        };
        assert_eq!(q.on_enqueue(&mut ect, at(65), Time::ZERO), Verdict::Admit);
        assert_eq!(
            q.on_enqueue(&mut ect, at(66), Time::ZERO),
            Verdict::AdmitMarked
        );
        assert_eq!(q.on_enqueue(&mut plain, at(66), Time::ZERO), Verdict::Admit);
        assert_eq!(
            q.on_enqueue(&mut ect, at(100), Time::ZERO),
            Verdict::Drop(DropReason::BufferFull)
        );
    }

    #[test]
    fn threshold_admit_keeps_room_for_labelled_packets() {
        let mut q = ThresholdAdmit {
            threshold: Threshold::Packets(20),
            limit: BufferLimit::Packets(60),
        };
        let mut plain = pkt(1000);
        let mut labelled = pkt(1000);
        labelled.flags |= incastsim_core::packet::flags::LABEL;
        let at = |n| Occupancy {
            bytes: 0,
            packets: n,
        };
        assert_eq!(q.on_enqueue(&mut plain, at(19), Time::ZERO), Verdict::Admit);
        assert_eq!(
            q.on_enqueue(&mut plain, at(20), Time::ZERO),
            Verdict::Drop(DropReason::Aqm)
        );
        assert_eq!(
            q.on_enqueue(&mut labelled, at(59), Time::ZERO),
            Verdict::Admit
        );
        assert_eq!(
            q.on_enqueue(&mut labelled, at(60), Time::ZERO),
            Verdict::Drop(DropReason::BufferFull)
        );
    }

    #[test]
    fn drop_tail_in_packets() {
        let mut q = DropTail {
            limit: BufferLimit::Packets(100),
        };
        let mut p = pkt(1460);
        let occ = Occupancy {
            bytes: 0,
            packets: 99,
        };
        assert_eq!(q.on_enqueue(&mut p, occ, Time::ZERO), Verdict::Admit);
        let occ = Occupancy {
            bytes: 0,
            packets: 100,
        };
        assert_eq!(
            q.on_enqueue(&mut p, occ, Time::ZERO),
            Verdict::Drop(DropReason::BufferFull)
        );
    }
}
