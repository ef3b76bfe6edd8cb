//! Each flow's TCP connection, held in full only while it is in progress.
//!
//! A connection (sender, receiver, their lazy timers: about 1.5 KB plus buffers) lives in a
//! dense slab; a flow maps to its slab entry through `slot`. A traffic generator's flow gets
//! its connection when it starts ([`Connections::start`], built by the plan's
//! [`ConnectionFactory`]) and gives it up once it has finished: the application wrote its last
//! byte, everything written is acknowledged, no timer is armed and no packet of the flow is left
//! in the network (counted per flow: [`Connections::sent`] / [`Connections::gone`]). What the
//! results read is then kept packed ([`super::finished::FinishedFlows`], about a hundred bytes),
//! and the slab entry is
//! reused. No event can reach a finished connection, so nothing it would have done is lost:
//! results are bit-identical to keeping every connection to the end.
//!
//! A RoCE flow's queue pair (in [`Connections::roce`]) follows the same rule: built when a
//! generated flow starts, given up once everything is acknowledged and no timer of its sender
//! or receiver is armed ([`super::roce::RoceFlows::is_done`]).
//!
//! Every other flow (the workload's, a flow a time series samples, every flow when the scheme
//! reads the number of active senders) is built up front, in flow order, and kept to the end.
//! A packet a link loses is never counted gone, so its flow keeps its connection (exact, only
//! not freed).

use crate::plan::{ConnectionFactory, FlowOrigin};
use incastsim_core::{HostId, LazyTimer, PacketKind, prefetch, prefetch_bytes};
use incastsim_schemes::{ReceiverScheme, SenderScheme};
use incastsim_tcp::{ReceiverSummary, SenderSummary, TcpReceiver, TcpSender};

/// A flow's connection while it is in progress.
pub struct Connection {
    /// The data sender.
    pub sender: TcpSender<SenderScheme>,
    /// The data receiver.
    pub receiver: TcpReceiver<ReceiverScheme>,
    /// The sender's timer slot (RTO, RACK, TLP).
    pub rto_timer: LazyTimer,
    /// The receiver's delayed-ACK timer.
    pub delack_timer: LazyTimer,
    /// The flow it belongs to.
    flow: u32,
}

/// `slot` of a flow that has not started (a lazily built one).
const NOT_STARTED: u32 = u32::MAX;
/// `slot` of a RoCE flow: its ends are in [`Connections::roce`] (tested before `FINISHED`,
/// whose bit it has).
const ROCE: u32 = u32::MAX - 1;
/// `slot` bit of a finished flow: the rest is its index in `finished`.
const FINISHED: u32 = 1 << 31;
/// `in_flight` bits: the flow gives up its connection when finished; its application has
/// written its last byte. The low 30 bits count its packets in the network.
const FREEABLE: u32 = 1 << 30;
const CLOSING: u32 = 1 << 31;

/// Every flow's connection or summary (see the module doc).
pub struct Connections {
    /// The connections in progress, in no particular order.
    live: Vec<Connection>,
    /// Per flow: its index in `live`, `NOT_STARTED`, or `FINISHED` | its index in `finished`.
    slot: Vec<u32>,
    finished: super::finished::FinishedFlows,
    /// Per flow: packets in the network (data, ACKs and those waiting a send overhead), with
    /// the `FREEABLE` and `CLOSING` bits.
    in_flight: Vec<u32>,
    factory: ConnectionFactory,
    /// Per flow: its sending and receiving hosts and TCP profile (to build it).
    src: Vec<HostId>,
    dst: Vec<HostId>,
    profile: Vec<u32>,
    /// The flows whose transport is RoCE (`tcp.transport: roce`): their queue pairs, built and
    /// given up as TCP's connections are. The same interface (this store, and `Transport`'s methods that ask
    /// [`super::roce::RoceFlows::has`] first) holds every transport's endpoints.
    pub roce: super::roce::RoceFlows,
}

impl Connections {
    /// The connections of `origin.len()` flows to hosts `dst` with `profile`s; `lazy(f)`: flow
    /// f's connection is built when it starts and freed when it has finished.
    pub fn new(
        factory: ConnectionFactory,
        origin: &[FlowOrigin],
        src: Vec<HostId>,
        dst: Vec<HostId>,
        profile: Vec<u32>,
        lazy: impl Fn(usize) -> bool,
    ) -> Connections {
        let n = origin.len();
        let mut c = Connections {
            live: Vec::new(),
            slot: vec![NOT_STARTED; n],
            finished: Default::default(),
            in_flight: vec![0; n],
            factory,
            src,
            dst,
            profile,
            roce: super::roce::RoceFlows::default(),
        };
        for f in 0..n {
            if lazy(f) {
                // Built when it starts (a queue pair too), given up when finished.
                c.in_flight[f] = FREEABLE;
            } else if !c.add_roce(f) {
                c.build(f);
            }
        }
        c
    }

    /// Adds a flow from host `src` to host `dst` with `profile` (a flow a reactive generator
    /// adds while the run goes); `lazy` as in [`Connections::new`].
    pub fn add(&mut self, src: HostId, dst: HostId, profile: u32, lazy: bool) {
        let f = self.slot.len();
        self.slot.push(NOT_STARTED);
        self.in_flight.push(if lazy { FREEABLE } else { 0 });
        self.src.push(src);
        self.dst.push(dst);
        self.profile.push(profile);
        if !lazy && !self.add_roce(f) {
            self.build(f);
        }
    }

    /// Builds flow f's queue pair if its profile's transport is RoCE (true then).
    fn add_roce(&mut self, f: usize) -> bool {
        let Some(cfg) = self.factory.roce(self.profile[f]) else {
            return false;
        };
        let rate = self.factory.host_link_rate(self.src[f]);
        let (controller, cnp_dscp) = self
            .factory
            .roce_controller(f as u32, self.profile[f], rate);
        self.roce.add(f, cfg, rate, controller, cnp_dscp);
        if let Some(from) = self.factory.rate_from {
            self.roce.get_mut(f).sender.set_rate_window(from);
        }
        self.slot[f] = ROCE;
        true
    }

    fn build(&mut self, f: usize) {
        debug_assert_eq!(self.slot[f], NOT_STARTED, "flow {f} built twice");
        debug_assert!(
            self.live.len() < FINISHED as usize,
            "live index reaches the flag bit"
        );
        let (src, dst, profile) = (self.src[f], self.dst[f], self.profile[f]);
        let flow = f as u32;
        self.slot[f] = self.live.len() as u32;
        self.live.push(Connection {
            sender: self.factory.sender(flow, src, dst, profile),
            receiver: self.factory.receiver(flow, dst, profile),
            rto_timer: LazyTimer::default(),
            delack_timer: LazyTimer::default(),
            flow,
        });
    }

    /// Flow f starts: builds its connection (or queue pair) if it was left for now.
    #[inline]
    pub fn start(&mut self, f: usize) {
        if self.slot[f] == NOT_STARTED && !self.add_roce(f) {
            self.build(f);
        }
    }

    /// A not-started RoCE flow's summaries and values, from a queue pair made for the question
    /// (`None` for a TCP flow).
    fn unstarted_roce(&self, f: usize) -> Option<super::roce::RoceEnds> {
        let cfg = self.factory.roce(self.profile[f])?;
        let rate = self.factory.host_link_rate(self.src[f]);
        let (controller, cnp_dscp) = self
            .factory
            .roce_controller(f as u32, self.profile[f], rate);
        Some(super::roce::RoceFlows::new_ends(
            f, cfg, rate, controller, cnp_dscp,
        ))
    }

    /// Cache hint: a packet of `kind` reaches flow f's connection soon. The whole receiver
    /// (data: 5 lines) or sender and its timer (ACK: 18 lines), and the flow's count of
    /// packets in the network. Whole, because the compiler orders their fields, so the ones an
    /// ACK touches are spread over the struct (the first 256 bytes alone made S5 slower).
    #[inline(always)]
    pub fn prefetch(&self, f: usize, kind: PacketKind) {
        let Some(&i) = self.slot.get(f) else {
            return;
        };
        if let Some(n) = self.in_flight.get(f) {
            prefetch(n);
        }
        let Some(c) = self.live.get(i as usize) else {
            return;
        };
        match kind {
            PacketKind::Data => prefetch_bytes(&c.receiver, std::mem::size_of_val(&c.receiver)),
            PacketKind::Ack => {
                prefetch_bytes(&c.sender, std::mem::size_of_val(&c.sender));
                prefetch(&c.rto_timer);
            }
            _ => {}
        }
    }

    /// Flow f's connection (the flow must be in progress).
    #[inline(always)]
    pub fn get(&self, f: usize) -> &Connection {
        &self.live[self.slot[f] as usize]
    }

    /// Flow f's connection, to change (the flow must be in progress).
    #[inline(always)]
    pub fn get_mut(&mut self, f: usize) -> &mut Connection {
        let i = self.slot[f] as usize;
        &mut self.live[i]
    }

    /// Flow f's connection, if it is in progress (built and not finished).
    #[inline]
    pub fn try_get(&self, f: usize) -> Option<&Connection> {
        self.live.get(self.slot[f] as usize)
    }

    /// Flow f's connection, to change, if it is in progress.
    #[inline]
    pub fn try_get_mut(&mut self, f: usize) -> Option<&mut Connection> {
        let i = self.slot[f] as usize;
        self.live.get_mut(i)
    }

    /// The connections in progress.
    pub fn live_mut(&mut self) -> impl Iterator<Item = &mut Connection> {
        self.live.iter_mut()
    }

    /// How many connections are in progress (built and not finished), TCP's and RoCE queue
    /// pairs.
    pub fn live_count(&self) -> usize {
        self.live.len() + self.roce.live_count()
    }

    /// Bytes the finished flows' packed summaries hold, in all.
    pub fn finished_heap_bytes(&self) -> usize {
        self.finished.heap_bytes()
    }

    /// How many flows have finished and given up their connection.
    pub fn finished_count(&self) -> usize {
        self.finished.len()
    }

    /// Flow f's sender counters and state: now if in progress, final if finished, initial if
    /// not started.
    pub fn sender_summary(&self, f: usize) -> SenderSummary {
        match self.slot[f] {
            NOT_STARTED if let Some(e) = self.unstarted_roce(f) => {
                super::roce::RoceFlows::summary_of(&e).0
            }
            NOT_STARTED => self
                .factory
                .sender(f as u32, self.src[f], self.dst[f], self.profile[f])
                .summary(),
            ROCE => self.roce.summary(f).0,
            s if s & FINISHED != 0 => self.finished.sender(s & !FINISHED),
            s => self.live[s as usize].sender.summary(),
        }
    }

    /// The names of the values the flows' controllers and schemes report of their own
    /// (`ConnectionFactory::value_names`).
    pub fn value_names(&self) -> Vec<&'static str> {
        self.factory.value_names()
    }

    /// The values flow f's controller and scheme report of their own (see
    /// `TcpSender::component_values`): now if in progress, final if finished, initial if not
    /// started.
    pub fn component_values(&self, f: usize) -> Vec<(&'static str, f64)> {
        match self.slot[f] {
            NOT_STARTED if let Some(e) = self.unstarted_roce(f) => {
                if self.factory.has_rdma_values() {
                    super::roce::RoceFlows::values_of(&e)
                } else {
                    Vec::new()
                }
            }
            NOT_STARTED => self
                .factory
                .sender(f as u32, self.src[f], self.dst[f], self.profile[f])
                .component_values(),
            ROCE if self.factory.has_rdma_values() => self.roce.values(f),
            ROCE => Vec::new(),
            s if s & FINISHED != 0 => self.finished.values(s & !FINISHED).to_vec(),
            s => self.live[s as usize].sender.component_values(),
        }
    }

    /// Flow f's receiver counters and state (as [`Connections::sender_summary`]).
    pub fn receiver_summary(&self, f: usize) -> ReceiverSummary {
        match self.slot[f] {
            NOT_STARTED if let Some(e) = self.unstarted_roce(f) => {
                super::roce::RoceFlows::summary_of(&e).1
            }
            NOT_STARTED => ReceiverSummary::default(),
            ROCE => self.roce.summary(f).1,
            s if s & FINISHED != 0 => self.finished.receiver(s & !FINISHED),
            s => self.live[s as usize].receiver.summary(),
        }
    }

    /// Flow f put `n` more packets on their way.
    #[inline(always)]
    pub fn sent(&mut self, f: usize, n: usize) {
        // The count lives in the low 30 bits: it must never reach the flag bits.
        debug_assert!(
            (self.in_flight[f] & !(FREEABLE | CLOSING)) as usize + n < FREEABLE as usize,
            "flow {f}: packets in the network overflow their 30 bits"
        );
        self.in_flight[f] += n as u32;
    }

    /// A packet of flow f left the network (delivered and processed, or dropped).
    #[inline(always)]
    pub fn gone(&mut self, f: usize) {
        let v = &mut self.in_flight[f];
        // Paired with `sent`: a packet leaves the network at most once.
        debug_assert!(
            *v & !(FREEABLE | CLOSING) > 0,
            "flow {f}: a packet left the network that was not in it"
        );
        *v -= 1;
        if *v == FREEABLE | CLOSING {
            self.try_finish(f);
        }
    }

    /// Flow f's timer ran (and may be disarmed now): if it has nothing in the network and its
    /// application is done, it may finish.
    #[inline]
    pub fn settle(&mut self, f: usize) {
        if self.in_flight[f] == FREEABLE | CLOSING {
            self.try_finish(f);
        }
    }

    /// Flow f's application has written its last byte.
    pub fn app_done(&mut self, f: usize) {
        let v = &mut self.in_flight[f];
        if *v & FREEABLE != 0 {
            *v |= CLOSING;
            if *v == FREEABLE | CLOSING {
                self.try_finish(f);
            }
        }
    }

    /// Flow f has no packet in the network and its application is done: if everything written
    /// is acknowledged and no timer is armed, nothing can happen to it any more, so it keeps
    /// only its summary.
    #[cold]
    #[inline(never)]
    fn try_finish(&mut self, f: usize) {
        if self.slot[f] == ROCE {
            return self.try_finish_roce(f);
        }
        let i = self.slot[f] as usize;
        let c = &self.live[i];
        let (s, r) = (&c.sender, &c.receiver);
        if s.snd_una() != s.app_limit()
            || s.timer_deadline().is_some()
            || r.delack_deadline().is_some()
            || c.rto_timer.is_armed()
            || c.delack_timer.is_armed()
        {
            return;
        }
        debug_assert_eq!(
            c.flow as usize, f,
            "flow {f}'s slot names another connection"
        );
        let mut c = self.live.swap_remove(i);
        if let Some(moved) = self.live.get(i) {
            self.slot[moved.flow as usize] = i as u32;
        }
        // Give memory back once most of the peak's connections have finished (S5 starts all
        // its flows at once, then they finish).
        if self.live.capacity() > 64 && self.live.len() * 4 < self.live.capacity() {
            self.live.shrink_to(self.live.len() * 2);
        }
        // Closed now as the results would close it at the end: nothing changes it in between.
        c.sender.close_stats();
        let index = self.finished.push(
            &c.sender.summary(),
            &c.receiver.summary(),
            c.sender.component_values(),
        );
        self.slot[f] = FINISHED | index;
    }

    /// [`Connections::try_finish`] for a RoCE flow: its queue pair is given up once
    /// [`super::roce::RoceFlows::is_done`], keeping its summaries and values packed.
    #[cold]
    #[inline(never)]
    fn try_finish_roce(&mut self, f: usize) {
        if !self.roce.is_done(f) {
            return;
        }
        let e = self.roce.remove(f);
        let (sender, receiver) = super::roce::RoceFlows::summary_of(&e);
        let values = if self.factory.has_rdma_values() {
            super::roce::RoceFlows::values_of(&e)
        } else {
            Vec::new()
        };
        let index = self.finished.push(&sender, &receiver, values);
        self.slot[f] = FINISHED | index;
    }
}
