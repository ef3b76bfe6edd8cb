//! The engine: one value holding the whole network, its connections and its applications, and
//! the event loop that drives them. No global state: many simulations run on many threads.
//!
//! The parts call downward only and hand news back as return values:
//! - [`network`]: ports and forwarding (a packet reaches a switch port: `Network::on_head_arrival`);
//! - [`transport`]: TCP senders/receivers and their timers (an RTO fires: `Transport::on_rto_event`);
//! - [`apps`]: synchronized reads, bulk, generated flows, UDP;
//! - [`observe`]: every observer under one owner ([`observe::Observers`]: the drop-run
//!   diagnostics, the time-series [`sampler`], the pcap [`capture`], the probes).
//!
//! This file is the loop, the dispatch and the glue between the parts. The order of `schedule`
//! calls is part of the model: events at the same picosecond pop in the order they were
//! scheduled, so reordering two calls here can change results (the golden tests notice).

pub mod apps;
pub mod capture;
pub mod connections;
pub mod diagnostics;
pub mod event;
pub mod finished;
pub mod gates;
mod inspect;
pub mod int;
mod invariants;
pub mod network;
pub mod nic;
pub mod observe;
mod paths;
pub mod pfc;
pub mod roce;
pub mod sampler;
pub mod transport;

pub use event::{Event, Events, PackedEvent};
pub use inspect::FlowState;
pub use network::PacketCounters;

use crate::config::Config;
use crate::plan::{FlowOrigin, Plan};
use apps::Workload;
use apps::generated::GeneratedFlows;
use apps::sync_reads::Delivery;
use apps::udp::UdpSource;
use capture::{Capture, CaptureFlow};
use incastsim_core::{HostId, Packet, PacketKind, SimRng, Stream, TieOrder, Time};
use incastsim_switch::DropReason;
use network::{AdmissionDrop, ComingHop, Network};
use observe::Observers;
use sampler::Sampler;
use transport::Transport;

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The workload finished (all blocks, or the fixed duration).
    Completed,
    /// `run.max_sim_time` was reached first.
    TimeLimit,
    /// `run.max_events` events were processed first.
    EventLimit,
    /// `run.max_wall_time` of wall-clock time passed first (measured outside the engine).
    WallTimeLimit,
    /// Stopped from outside (SIGINT/SIGTERM) before the workload finished.
    Interrupted,
    /// A reactive traffic generator asked for more flows than a run may hold
    /// (`plan::traffic::MAX_GENERATED_FLOWS`).
    FlowLimit,
    /// What the run records as it goes (time series, the traced port's queue, pcap packets)
    /// outgrew the memory limit (`--max-memory`) left after the run's estimate.
    MemoryLimit,
    /// Nothing left to do but the workload is not finished (should not happen; reported).
    Stalled,
    /// PFC: a cycle of paused queues lasted `pfc.deadlock.after` (`pfc.deadlock.action:
    /// stop`; the cycle is in pfc_deadlocks.csv).
    PfcDeadlock,
}

impl Outcome {
    /// The word the manifest and messages use: `completed`, or what stopped the run.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::TimeLimit => "max_sim_time",
            Outcome::EventLimit => "max_events",
            Outcome::WallTimeLimit => "max_wall_time",
            Outcome::Interrupted => "interrupted",
            Outcome::FlowLimit => "max_flows",
            Outcome::MemoryLimit => "max_memory",
            Outcome::Stalled => "stalled",
            Outcome::PfcDeadlock => "pfc_deadlock",
        }
    }
}

/// Where a running simulation is, for a progress line and the wall-clock limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunProgress {
    /// Simulated time reached.
    pub sim_time: Time,
    /// Events processed so far.
    pub events: u64,
    /// The part of the run done, 0 to 1: blocks done for synchronized reads, simulated time over
    /// the workload's duration otherwise, and at least simulated time over `run.max_sim_time`.
    pub fraction_done: f64,
    /// A traffic workload past its arrival period waits for its sized flows to finish: how
    /// many are left (`None` otherwise). The fraction says nothing then (it is 1, by time),
    /// so a progress line shows this instead of a share and an ETA.
    pub draining_flows_left: Option<u64>,
}

/// The engine looks outside (the watcher of [`Simulation::run_watched`]) once per this many
/// events, not per event: the hot loop pays one counter comparison.
pub const WATCH_EVERY_EVENTS: u64 = 4096;

/// Ports from which a network counts as large: its ports and their FIFOs outgrow a core's
/// second-level cache (a k = 12 fat-tree has 2,592 ports, k = 8 has 768).
const LARGE_NETWORK_PORTS: usize = 2048;
/// Pending events from which a large network's events move to the calendar (4,096 otherwise):
/// only the calendar names the coming events, so only with it does the loop prefetch their
/// state (`prefetch_coming`). Web-search at k = 16 has a few thousand events pending and
/// would otherwise stay in the heap, unprefetched.
const LARGE_NETWORK_CALENDAR_FROM: usize = 1024;

/// A run in progress: the network, the TCP endpoints, the applications and the event queue,
/// assembled from a [`Plan`] by [`Simulation::from_plan`]. The engine never reads the
/// wall clock, so what it computes depends only on the plan.
pub struct Simulation {
    pub(crate) cfg: Config,
    pub(crate) seed: u64,
    pub(crate) events: Events,
    pub(crate) network: Network,
    pub(crate) transport: Transport,
    pub(crate) workload: Workload,
    /// Flows 0..workload_flows belong to the workload; the rest to the traffic generators.
    pub(crate) workload_flows: usize,
    pub(crate) generated: GeneratedFlows,
    /// Flows that wait for flows: the gates and what each still waits for.
    pub(crate) gates: gates::Gates,
    /// The collective jobs (their flows and steps, for `results/collectives.rs`).
    pub(crate) collectives: Vec<crate::plan::traffic::collective::CollectiveJob>,
    pub(crate) udp: Vec<UdpSource>,
    /// TCP profiles (the top-level `tcp`, then each override group) and each flow's profile.
    pub(crate) profiles: Vec<crate::plan::TcpProfile>,
    pub(crate) flow_profile: Vec<u32>,
    /// Every observer of the run: diagnostics, time series, pcap capture, probes (`observe.rs`).
    pub(crate) obs: Observers,
    /// Header bytes of requests and UDP packets (the top-level TCP setting).
    header_bytes: u16,
    /// Packets an application wants sent (reused: no allocation per block).
    outbox: Vec<(HostId, Packet)>,
    pub(crate) events_processed: u64,
    pub(crate) finished_at: Option<Time>,
    /// Bytes what the run records as it goes may take (half of `RunOptions::max_memory` minus
    /// the plan's estimate): past it the run ends as `Outcome::MemoryLimit`. `None`: no limit.
    pub(crate) output_budget: Option<u64>,
    pub(crate) outcome: Option<Outcome>,
    /// Whether the workload has started (at the first call that runs events, so probes added
    /// after `from_plan` see everything from the first packet on).
    started: bool,
}

impl Simulation {
    /// Builds the run: cannot fail, the plan has checked everything.
    pub fn from_plan(mut plan: Plan) -> Simulation {
        let transport = Transport::new(&mut plan);
        let probes = std::mem::take(&mut plan.probes);
        let probe_factories = std::mem::take(&mut plan.probe_factories);
        let capture = Simulation::capture_for(&plan);
        let flow_profile = plan.flows.iter().map(|f| f.profile).collect();
        let Plan {
            cfg,
            seed,
            fabric,
            workload,
            workload_flows,
            generated,
            reactive,
            traffic_values,
            dependencies,
            collectives,
            udp,
            observe,
            diagnostics,
            header_bytes,
            profiles,
            output_budget,
            pfc,
            int,
            ..
        } = plan;
        let int = int.map(|(slots, hops)| int::IntStore::new(slots, hops));
        let tie_order = match cfg.run.tie_order {
            crate::config::TieOrderConfig::Fifo => TieOrder::Fifo,
            crate::config::TieOrderConfig::Random => TieOrder::Random,
        };
        let tie_rng = SimRng::for_stream(seed, Stream::TieOrder, 0);
        let mut sim = Simulation {
            obs: Observers::new(
                diagnostics,
                Sampler::new(&observe, &cfg.name, seed),
                capture,
            ),
            cfg,
            seed,
            events: Events::with_tie_order(tie_order, tie_rng),
            network: Network::new(fabric).with_pfc(pfc).with_int(int),
            transport,
            workload: Workload::new(workload),
            workload_flows,
            generated: GeneratedFlows::new(generated, workload_flows, reactive, traffic_values),
            gates: gates::Gates::new(dependencies),
            collectives,
            udp: udp.into_iter().map(UdpSource::new).collect(),
            profiles,
            flow_profile,
            header_bytes,
            outbox: Vec::new(),
            events_processed: 0,
            finished_at: None,
            output_budget,
            outcome: None,
            started: false,
        };
        if sim.transport.any_roce() {
            let ports = &sim.network.fabric.ports;
            // The lines move only at a port's `TxDone` events (`engine/nic.rs`).
            debug_assert!(
                sim.network
                    .fabric
                    .host_port
                    .iter()
                    .all(|&p| ports[p as usize].serves_classes()),
                "a host port of a run with RoCE flows must decide at dequeue"
            );
            sim.network.nic = nic::NicLines::new(
                ports.len(),
                sim.network
                    .fabric
                    .host_port
                    .iter()
                    .map(|&p| (p, ports[p as usize].classes())),
            );
        }
        for (i, p) in probes.iter().enumerate() {
            let setup = crate::probe::ProbeSetup {
                config: &sim.cfg,
                seed: sim.seed,
                index: i as u32,
                flows: sim.transport.flows.len(),
                ports: sim.network.fabric.ports.len(),
            };
            let probe = p.new_probe(&setup);
            sim.obs.add_probe(probe);
        }
        sim.add_probes(&probe_factories);
        sim.sync_watched();
        if let Some(port) = observe.traced_port {
            sim.network.fabric.ports[port as usize].enable_trace();
        }
        if sim.network.fabric.ports.len() >= LARGE_NETWORK_PORTS {
            sim.events.set_calendar_from(LARGE_NETWORK_CALENDAR_FROM);
        }
        if observe.interval.is_some() {
            sim.events.schedule(Time::ZERO, Event::Sample.into());
        }
        for (i, u) in sim.udp.iter().enumerate() {
            sim.events
                .schedule(u.start(), Event::UdpSend { source: i as u32 }.into());
        }
        sim
    }

    /// The pcap capture state of `plan` (off without `pcap:`).
    fn capture_for(plan: &Plan) -> Capture {
        let Some(pcap) = &plan.observe.pcap else {
            return Capture::default();
        };
        let flows = plan
            .flows
            .iter()
            .map(|f| CaptureFlow {
                src: f.src,
                dst: f.dst,
                window_bytes: plan.profiles[f.profile as usize].receiver.window_bytes,
            })
            .collect();
        let udp = plan.udp.iter().map(|u| (u.src, u.dst)).collect();
        let fabric = &plan.fabric;
        Capture::new(
            &pcap.flows,
            &pcap.ports,
            pcap.snaplen,
            flows,
            udp,
            fabric.ports.len(),
            |p| fabric.port_name(p),
        )
    }

    /// Plans and builds the run of `cfg` with `seed` (with options:
    /// `Simulation::from_plan(Plan::build(cfg, seed, &options)?)`, [`Plan::build`]).
    pub fn new(cfg: &Config, seed: u64) -> Result<Simulation, crate::config::ConfigError> {
        Ok(Simulation::from_plan(Plan::new(cfg, seed)?))
    }

    /// Starts the workload (its first requests or starts): once, before the first event.
    fn start(&mut self) {
        if std::mem::replace(&mut self.started, true) {
            return;
        }
        let now = Time::ZERO;
        self.generated.schedule_first_starts(&mut self.events);
        self.schedule_unconditional_gates();
        match &mut self.workload {
            Workload::SyncReads(w) if w.warmup > incastsim_core::Duration::ZERO => {
                let at = now + w.warmup;
                self.events.schedule(at, Event::FirstBlock.into());
            }
            Workload::SyncReads(_) => self.start_block(now),
            Workload::Traffic { duration, .. } => {
                self.events.schedule(now + *duration, Event::End.into());
            }
            Workload::Bulk(b) => b.start(now, &mut self.events),
        }
    }

    /// Runs until the workload finishes or a limit; returns why it stopped.
    pub fn run(&mut self) -> Outcome {
        self.run_watched(&mut |_| None)
    }

    /// [`Simulation::run`], calling `watch` every [`WATCH_EVERY_EVENTS`] events with where the
    /// run is; `watch` returning an outcome stops the run there with it (the wall-clock limit
    /// and SIGINT live in the watcher: the engine never reads the clock). `run.max_events` is
    /// checked at the same points, so it stops within `WATCH_EVERY_EVENTS` events of the limit
    /// (deterministically: at the first check at or above it).
    pub fn run_watched(
        &mut self,
        watch: &mut dyn FnMut(&RunProgress) -> Option<Outcome>,
    ) -> Outcome {
        self.advance(None, watch);
        self.outcome.unwrap_or(Outcome::Stalled)
    }

    /// Runs every event at or before `t`, then pauses (if the run has not ended first: then
    /// its outcome). Read the state ([`Simulation::flow_state`], [`Simulation::port_occupancy`],
    /// [`Simulation::sender`], ...) and continue with `run_until` or [`Simulation::run`]: the
    /// results are those of one uninterrupted run, bit for bit (events are the same and in the
    /// same order; reading never changes the model).
    pub fn run_until(&mut self, t: Time) -> Option<Outcome> {
        self.advance(Some(t), &mut |_| None);
        self.outcome
    }

    /// The loop: runs events until the run ends or (with `pause`) the next event is later
    /// than `pause`. The watcher and `run.max_events` are checked at every multiple of
    /// [`WATCH_EVERY_EVENTS`] events processed (and at `max_events`), wherever the run paused.
    fn advance(
        &mut self,
        pause: Option<Time>,
        watch: &mut dyn FnMut(&RunProgress) -> Option<Outcome>,
    ) {
        self.start();
        let end = Time::ZERO + self.cfg.run.max_sim_time.0;
        // One comparison per event for both: past `limit` the run either ends or pauses.
        let limit = pause.map_or(end, |p| p.min(end));
        let max_events = self.cfg.run.max_events.unwrap_or(u64::MAX);
        let next = |done: u64| {
            (done / WATCH_EVERY_EVENTS + 1)
                .saturating_mul(WATCH_EVERY_EVENTS)
                .min(max_events)
        };
        // Counted in a local (written back at each watch and on leaving): a field is a load
        // and a store per event.
        let mut events = self.events_processed;
        let mut next_watch = next(events);
        let mut coming = ComingHop::NONE;
        // Time is monotone: no event is dispatched before the one dispatched last.
        #[cfg(debug_assertions)]
        let mut previous = Time::ZERO;
        while self.outcome.is_none() {
            let (now, ev) = match self.events.pop_until(limit) {
                Ok(popped) => popped,
                Err(None) => {
                    self.outcome = Some(Outcome::Stalled);
                    break;
                }
                Err(Some(t)) if t <= end => break, // paused
                Err(Some(_)) => {
                    self.outcome = Some(Outcome::TimeLimit);
                    self.finished_at = Some(end);
                    break;
                }
            };
            #[cfg(debug_assertions)]
            {
                debug_assert!(
                    now >= previous,
                    "time went back: {now:?} after {previous:?}"
                );
                previous = now;
            }
            events += 1;
            coming = self.prefetch_coming(coming);
            self.dispatch(now, ev.unpack());
            // The outcome is tested only here: an event that ended the run keeps its outcome.
            if events >= next_watch {
                self.events_processed = events;
                next_watch = next(events);
                if self.outcome.is_some() {
                    break;
                }
                let stop = if events >= max_events {
                    Some(Outcome::EventLimit)
                } else if self.over_output_budget() {
                    Some(Outcome::MemoryLimit)
                } else {
                    watch(&self.progress(now))
                };
                if let Some(why) = stop {
                    self.outcome = Some(why);
                    self.finished_at = Some(now);
                }
            }
        }
        self.events_processed = events;
    }

    /// Cache hints for the next five events, when the queue knows them cheaply (at scale,
    /// where every hop's state is a cache miss; see `incastsim_core::prefetch`): a head
    /// arrival reads its port, then the port's head packet, then the packet's path entry,
    /// then the port (or flow and NIC) that packet goes to, then that port's FIFO, each a load
    /// that waits on the one before. Started one stage per event ahead, the loads overlap with
    /// the work of the events in between. Changes no result.
    ///
    /// The last two stages both need the port the packet goes to: the second-to-last hands
    /// it to the last one loop later (`known`, checked by port), instead of the last one
    /// reading the port, its head packet and the path entry again (measured at k = 16 and on
    /// S5: docs/perf-log.md).
    #[inline(always)]
    fn prefetch_coming(&self, known: ComingHop) -> ComingHop {
        let coming = self.events.coming();
        if coming.is_empty() {
            return ComingHop::NONE; // the heap names no event (few pending: all cached)
        }
        let port_at = |k: usize| coming.get(k).and_then(|e| e.port_head());
        if let Some(port) = port_at(4) {
            self.network.prefetch_port(port);
        }
        if let Some(port) = port_at(3) {
            self.network.prefetch_head(port);
        }
        if let Some(port) = port_at(2) {
            self.network.prefetch_path(port);
        }
        let mut found = ComingHop::NONE;
        if let Some(port) = port_at(1) {
            let (packet, hop) = self.network.prefetch_next_hop(port, &self.obs.diag);
            if let Some(packet) = packet {
                self.transport.prefetch_delivery(packet);
            }
            found = hop;
        }
        if let Some(port) = port_at(0) {
            self.network.prefetch_next_fifo(port, &self.obs.diag, known);
        }
        found
    }

    /// Moves the pending events to the calendar queue from `pending` of them on (by default
    /// 4,096, or fewer for a large network): only speed depends on it, which tests and
    /// benchmarks check by running both ways.
    pub fn set_calendar_from(&mut self, pending: usize) {
        self.events.set_calendar_from(pending);
    }

    /// Where the run is (see [`RunProgress`]).
    pub fn progress(&self, now: Time) -> RunProgress {
        let elapsed = now.since(Time::ZERO).as_secs_f64();
        let by_limit = elapsed / self.cfg.run.max_sim_time.0.as_secs_f64().max(1e-12);
        let by_workload = match &self.workload {
            Workload::SyncReads(w) => w.block_times.len() as f64 / f64::from(w.blocks_total.max(1)),
            Workload::Bulk(b) => elapsed / b.duration.as_secs_f64().max(1e-12),
            Workload::Traffic { duration, .. } => elapsed / duration.as_secs_f64().max(1e-12),
        };
        RunProgress {
            sim_time: now,
            events: self.events_processed,
            fraction_done: by_limit.max(by_workload).min(1.0),
            draining_flows_left: self
                .generated
                .draining()
                .then_some(self.generated.finite_pending),
        }
    }

    #[inline(always)]
    fn dispatch(&mut self, now: Time, ev: Event) {
        match ev {
            Event::PortHead { port } => self.on_port_head(now, port),
            Event::PortTxDone { port } => self.on_port_tx_done(now, port),
            Event::PortTimer { port, generation } => self.on_port_timer(now, port, generation),
            Event::Rto { flow, generation } => self.on_rto(now, flow, generation),
            Event::DelayedAck { flow, generation } => self.on_delayed_ack(now, flow, generation),
            Event::ServerStart { flow } => self.server_start(now, flow as usize),
            Event::RequestCheck { block } => self.on_request_check(now, block),
            Event::UdpSend { source } => self.on_udp_send(now, source as usize),
            Event::FlowStart { flow } => self.flow_start(now, flow as usize),
            Event::FlowStop { flow } => self.on_flow_stop(flow as usize),
            Event::DeferredSend { flow } => self.on_deferred_send(now, flow),
            Event::Sample => {
                self.obs.sampler.sample(
                    now,
                    &mut self.network.fabric,
                    &self.transport,
                    &mut self.events,
                );
                // One sample may add many rows: checked here as well as every few events.
                if self.over_output_budget() {
                    self.outcome = Some(Outcome::MemoryLimit);
                    self.finished_at = Some(now);
                }
            }
            Event::End => self.on_end(now),
            Event::FirstBlock => self.start_block(now),
            Event::SchemeTimer { flow } => self.on_scheme_timer(now, flow as usize),
            Event::Pfc(e) => self.on_pfc_event(now, e),
            Event::Gate(e) => self.on_gate_event(now, e),
            Event::RoceTimer { flow, generation } => {
                self.roce_transport_timer(now, flow as usize, generation)
            }
        }
    }

    /// A PFC event: one arm of the loop for all of them, so that runs without PFC pay
    /// nothing for their kinds.
    #[cold]
    #[inline(never)]
    fn on_pfc_event(&mut self, now: Time, e: event::PfcEvent) {
        use event::PfcEvent;
        match e {
            PfcEvent::PauseFrame {
                port,
                class,
                quanta,
            } => self.on_pause_frame(now, port, class, quanta),
            PfcEvent::Refresh { port, class } => self.on_pfc_refresh(now, port, class),
            PfcEvent::Lapse { port, class } => self.on_pfc_lapse(now, port, class),
            PfcEvent::Check => self.on_pfc_check(now),
            PfcEvent::HostTake { host } => {
                if let Some(packet) = self.network.host_take(now, host, &mut self.events) {
                    self.deliver_to_host(now, &packet);
                }
            }
        }
    }

    /// PFC: a PAUSE or RESUME frame sent by `port` takes effect at its far end.
    #[cold]
    #[inline(never)]
    fn on_pause_frame(&mut self, now: Time, port: u32, class: u8, quanta: u16) {
        self.network
            .on_pause_frame(now, port, class as usize, quanta, &mut self.events);
        if self.obs.capture.on
            && let Some(pfc) = self.network.pfc.as_deref()
        {
            let arrived = Time(now.as_ps() - pfc.plan.response_time.as_ps());
            self.obs
                .capture
                .on_pause_frame(arrived, port, class, quanta);
        }
    }

    /// PFC: the input fed by `port` re-sends its PAUSE if still paused.
    #[cold]
    #[inline(never)]
    fn on_pfc_refresh(&mut self, now: Time, port: u32, class: u8) {
        self.network
            .on_pfc_refresh(now, port, class as usize, &mut self.events);
    }

    /// PFC: a pause of `port` may lapse now; its waiting flows are charged (`engine/pfc/`).
    #[cold]
    #[inline(never)]
    fn on_pfc_lapse(&mut self, now: Time, port: u32, class: u8) {
        self.network
            .on_pfc_lapse(now, port, class as usize, &mut self.events);
    }

    /// PFC: the deadlock detector's re-check; a confirmed deadlock may end the run.
    #[cold]
    #[inline(never)]
    fn on_pfc_check(&mut self, now: Time) {
        if self.network.on_pfc_check(now, &mut self.events) {
            self.outcome = Some(Outcome::PfcDeadlock);
            self.finished_at = Some(now);
        }
    }

    // ----- event handlers: the per-packet ones inlined into the loop, the rare ones not -----

    /// The head packet of a port reaches the far end of its link.
    #[inline(always)]
    fn on_port_head(&mut self, now: Time, port: u32) {
        let arrival = self
            .network
            .on_head_arrival(now, port, &mut self.events, &mut self.obs);
        if let Some(drop) = arrival.dropped {
            self.on_admission_drop(now, drop);
        }
        if let Some(packet) = &arrival.at_host {
            self.deliver_to_host(now, packet);
        }
    }

    #[inline(always)]
    fn on_rto(&mut self, now: Time, flow: u32, generation: u32) {
        if self.obs.probes.on {
            return self.on_rto_probed(now, flow, generation);
        }
        self.fire_timer(now, flow, generation);
    }

    /// The sender's timer slot (RTO, RACK reordering timer, loss probe) popped.
    #[inline(always)]
    fn fire_timer(&mut self, now: Time, flow: u32, generation: u32) {
        if self.transport.is_roce(flow as usize) {
            return self.roce_timer(now, flow, generation);
        }
        if self
            .transport
            .on_rto_event(now, flow, generation, &mut self.events)
        {
            self.transmit_segments(now, flow as usize);
            self.transport
                .sync_rto_timer(flow as usize, &mut self.events);
        }
    }

    /// [`Simulation::on_rto`] with probes: an expiry that was an RTO is news to them.
    #[cold]
    #[inline(never)]
    fn on_rto_probed(&mut self, now: Time, flow: u32, generation: u32) {
        let f = flow as usize;
        // A finished flow's stale timer event fires nothing (a RoCE flow's timer: nothing for
        // the probes, which hear of TCP's RTOs).
        let Some(c) = self.transport.conns.try_get(f) else {
            return self.fire_timer(now, flow, generation);
        };
        let before = c.sender.stats().timeouts;
        self.fire_timer(now, flow, generation);
        let s = &self.transport.conns.get(f).sender;
        if s.stats().timeouts > before {
            let state = s.cc_state();
            self.obs.probes.each(|p| p.on_rto(now, flow, &state));
        }
    }

    /// Probes hear of an ACK flow f's sender processed.
    #[cold]
    #[inline(never)]
    fn probe_ack(&mut self, now: Time, f: usize) {
        let state = self.transport.conns.get(f).sender.cc_state();
        self.obs.probes.each(|p| p.on_ack(now, f as u32, &state));
    }

    /// Probes hear of a transfer of flow f starting (`start`) or delivered in full.
    #[cold]
    #[inline(never)]
    fn probe_transfer(&mut self, now: Time, f: usize, start: bool) {
        let flow = f as u32;
        self.obs.probes.each(|p| {
            if start {
                p.on_flow_start(now, flow)
            } else {
                p.on_flow_finish(now, flow)
            }
        });
    }

    #[inline(always)]
    fn on_delayed_ack(&mut self, now: Time, flow: u32, generation: u32) {
        if self.transport.is_roce(flow as usize) {
            return self.roce_ack_timer(now, flow as usize, generation);
        }
        if self
            .transport
            .on_delack_event(now, flow, generation, &mut self.events)
        {
            self.transmit_acks(now, flow as usize);
            self.transport
                .sync_delack_timer(flow as usize, &mut self.events);
        }
    }

    #[inline]
    fn on_udp_send(&mut self, now: Time, i: usize) {
        if let Some((src, mut packet)) =
            self.udp[i].send(now, i, self.header_bytes, &mut self.events)
        {
            self.send_from_host(now, src, &mut packet);
        }
    }

    /// A fixed-duration flow's application stops writing.
    #[inline]
    fn on_flow_stop(&mut self, f: usize) {
        if let FlowOrigin::Generated { index, .. } = self.transport.origin[f] {
            if self.transport.is_roce(f) {
                // Its message was posted whole: what has not gone is withdrawn.
                let roce = &mut self.transport.conns.roce;
                roce.get_mut(f).sender.withdraw_unsent();
                roce.sync_timer(f, &mut self.events);
            } else {
                self.transport.conns.get_mut(f).sender.stop_writing();
            }
            let delivered = self.transport.delivered_bytes(f);
            self.generated.on_stop(index as usize, delivered);
            self.transport.conns.app_done(f);
        }
    }

    #[inline]
    fn on_deferred_send(&mut self, now: Time, flow: u32) {
        if let Some(mut packet) = self.transport.release_deferred(now, flow, &mut self.events) {
            let src = self.transport.flows[flow as usize].src;
            self.send_from_host(now, src, &mut packet);
        }
    }

    /// The end of a fixed-duration workload (or of a traffic workload's arrivals).
    #[inline]
    fn on_end(&mut self, now: Time) {
        let drain = matches!(self.workload, Workload::Traffic { drain: true, .. });
        if !(drain && self.generated.start_draining()) {
            self.finish(now);
        }
    }

    #[inline]
    fn on_scheme_timer(&mut self, now: Time, f: usize) {
        if self.transport.on_scheme_timer(now, f) {
            self.transmit_segments(now, f);
        }
        // Re-arms the timer while data is outstanding (a finished flow has none).
        if self.transport.conns.try_get(f).is_some() {
            self.transport.sync_rto_timer(f, &mut self.events);
        }
    }

    /// A host hands a packet to its NIC (inlined: see `on_app_delivery`).
    #[inline(always)]
    fn send_from_host(&mut self, now: Time, host: HostId, packet: &mut Packet) {
        if let Some(drop) =
            self.network
                .send_from_host(now, host, packet, &mut self.events, &mut self.obs)
        {
            self.on_admission_drop(now, drop);
        }
    }

    /// Sends what an application put in the outbox, in order.
    fn send_outbox(&mut self, now: Time) {
        let mut outbox = std::mem::take(&mut self.outbox);
        for (host, mut packet) in outbox.drain(..) {
            self.send_from_host(now, host, &mut packet);
        }
        self.outbox = outbox;
    }

    /// A scheduling discipline at `port` may have dropped packets at its head (counted at the
    /// port as AQM drops): the probes hear of each, and each leaves its flow's packets in the
    /// network. The drop-run diagnostics count admission drops only (a head drop was counted
    /// there as an admission already).
    /// Whether what the run records as it goes has outgrown the memory left to it
    /// (`Simulation::output_budget`; never without a limit).
    fn over_output_budget(&self) -> bool {
        self.output_budget
            .is_some_and(|budget| self.recorded_bytes() > budget)
    }

    /// Bytes held by what the run records as it goes: time-series rows, the traced port's
    /// queue changes, captured packets (each counted with its heap strings or at its size)
    /// and what the probes say they hold (`Probe::held_bytes`).
    pub fn recorded_bytes(&self) -> u64 {
        let series = self.obs.sampler.series_bytes();
        let trace = self
            .obs
            .sampler
            .traced_port
            .map_or(0, |p| self.network.fabric.ports[p as usize].trace_bytes());
        let capture = self.obs.capture.result.packets.len() as u64
            * std::mem::size_of::<capture::CapturedPacket>() as u64;
        let probes: u64 = self.obs.probes.list.iter().map(|p| p.held_bytes()).sum();
        series + trace + capture + probes
    }

    /// A port that decides at dequeue (strict priority, a scheduling discipline) finished a
    /// transmission. Out of line: FIFO ports (nearly all) never get here, and the event loop's
    /// one big function stays as it was for them.
    #[inline(never)]
    fn on_port_tx_done(&mut self, now: Time, port: u32) {
        // A host NIC's queue pairs hand over their packets before the port picks, so that they
        // compete with what waits there by strict priority (`engine/nic.rs`).
        let lines = self.network.nic.waiting_at(port);
        if lines {
            self.wake_roce_nic(now, port);
        }
        self.network
            .on_tx_done(now, port, &mut self.events, &mut self.obs);
        self.after_head_drops(now, port);
        if lines {
            self.keep_nic_awake(now, port);
        }
    }

    /// A scheduling discipline's timer at `port` (stale unless `generation` is current).
    #[cold]
    #[inline(never)]
    fn on_port_timer(&mut self, now: Time, port: u32, generation: u32) {
        self.network
            .on_port_timer(now, port, generation, &mut self.events, &mut self.obs);
        self.after_head_drops(now, port);
    }

    #[inline]
    fn after_head_drops(&mut self, now: Time, port: u32) {
        if self.network.fabric.ports[port as usize]
            .head_drops()
            .is_empty()
        {
            return;
        }
        self.on_head_drops(now, port);
    }

    #[cold]
    #[inline(never)]
    fn on_head_drops(&mut self, now: Time, port: u32) {
        let dropped: Vec<Packet> = self.network.fabric.ports[port as usize]
            .head_drops()
            .iter()
            .map(|h| h.packet)
            .collect();
        for packet in &dropped {
            if self.obs.probes.on {
                let view = self.network.port_view(now, port);
                self.obs
                    .on_admission_drop(now, &view, packet, DropReason::Aqm);
            }
            if let PacketKind::Data | PacketKind::Ack = packet.kind {
                self.transport.conns.gone(packet.flow as usize);
            }
        }
    }

    /// Drop diagnostics (runs, loss events): out of line, so the admission path stays small.
    #[cold]
    #[inline(never)]
    fn on_admission_drop(&mut self, now: Time, d: AdmissionDrop) {
        let srtt = match d.kind {
            PacketKind::Data if self.transport.is_roce(d.flow as usize) => None,
            PacketKind::Data => self
                .transport
                .conns
                .get(d.flow as usize)
                .sender
                .rtt()
                .srtt(),
            _ => None,
        };
        self.obs
            .diag
            .on_dropped(now, d.port, d.input, d.flow, d.kind, srtt);
        if let PacketKind::Data | PacketKind::Ack = d.kind {
            self.transport.conns.gone(d.flow as usize);
        }
    }

    /// A packet reached its host (inlined: see `on_app_delivery`).
    #[inline(always)]
    fn deliver_to_host(&mut self, now: Time, packet: &Packet) {
        let f = packet.flow as usize;
        if matches!(packet.kind, PacketKind::Data | PacketKind::Ack) && self.transport.is_roce(f) {
            return self.deliver_roce(now, packet);
        }
        match packet.kind {
            PacketKind::Data => {
                let delivered = self.transport.on_data(now, f, packet);
                self.transmit_acks(now, f);
                self.transport.sync_delack_timer(f, &mut self.events);
                if delivered > 0 {
                    self.on_app_delivery(now, f, delivered);
                }
                self.transport.conns.gone(f);
            }
            PacketKind::Ack => {
                self.transport.on_ack(now, f, packet);
                if self.obs.probes.on {
                    self.probe_ack(now, f);
                }
                self.transmit_segments(now, f);
                self.transport.sync_rto_timer(f, &mut self.events);
                self.transport.conns.gone(f);
            }
            PacketKind::Request => {
                if let Workload::SyncReads(w) = &mut self.workload {
                    w.on_request(now, f, packet.seq as u32, &mut self.events);
                }
            }
            PacketKind::Udp => self.udp[f].delivered += 1,
            // PFC frames are control frames of their own, never delivered.
            PacketKind::Pause => debug_assert!(false, "a PFC frame delivered to a host"),
        }
    }

    // ----- RoCE flows (`tcp.transport: roce`; `engine/roce.rs`) -----

    /// Flow f (RoCE) posts a message of `bytes`.
    #[cold]
    #[inline(never)]
    fn roce_write(&mut self, now: Time, f: usize, bytes: u64) {
        let busy = self.roce_nic_busy(now, f);
        self.transport.conns.roce.write(now, f, bytes, busy);
        self.transmit_roce(now, f, busy);
    }

    /// Flow f's host port and the class of its packets there.
    #[inline]
    fn roce_nic_class(&self, f: usize) -> (u32, usize) {
        let host = self.transport.flows[f].src;
        let port = self.network.fabric.host_port[host as usize];
        let class =
            self.network.fabric.ports[port as usize].class_of_dscp(self.transport.flow_dscp(f));
        (port, class)
    }

    /// Whether flow f's (RoCE) host NIC cannot take a packet of its class at `now`: the port
    /// would not start it at once ([`incastsim_switch::OutputPort::takes_class_now`]), or other
    /// queue pairs wait for the class before it. Its queue pair then holds its next packet
    /// (`engine/nic.rs`).
    #[inline]
    fn roce_nic_busy(&self, now: Time, f: usize) -> bool {
        let (port, class) = self.roce_nic_class(f);
        self.nic_busy(now, port, class)
    }

    /// [`Simulation::roce_nic_busy`] for a host port and class.
    #[inline]
    fn nic_busy(&self, now: Time, port: u32, class: usize) -> bool {
        !self.network.fabric.ports[port as usize].takes_class_now(class, now)
            || !self.network.nic.line_is_empty(port, class)
    }

    /// Flow f's queue pair joins its NIC's line if the NIC cannot take a packet of its class
    /// now and its own next packet is due by the time it can (the transmitter free, the
    /// class's pause over): then the NIC, not a pacing timer, sends it, round robin with the
    /// others in line. Only looked at after a call that found the NIC busy or sent (`look`).
    #[inline]
    fn roce_join_nic_line(&mut self, now: Time, f: usize, look: bool) {
        if !look {
            return;
        }
        let (port, class) = self.roce_nic_class(f);
        if !self.nic_busy(now, port, class) {
            return;
        }
        let free_at = self.network.fabric.ports[port as usize].class_free_at(class, now);
        if let Some(due) = self.transport.conns.roce.joins_nic_line(free_at, now, f) {
            self.network.nic.wait(port, class, f as u32, due);
            self.wake_nic_at(now, port, class);
        }
    }

    /// Keeps a `TxDone` due at host port `port` when `class` can next take a packet, for the
    /// queue pairs in its line (one already due no later serves).
    #[inline]
    fn wake_nic_at(&mut self, now: Time, port: u32, class: usize) {
        let p = &mut self.network.fabric.ports[port as usize];
        if p.pause_lapses_told() && p.class_paused(class, now) {
            // Its RESUME or its pause's lapse wakes the line (`Network::on_pfc_lapse`).
            return;
        }
        let at = p.class_free_at(class, now);
        if let Some(at) = p.request_tx_done(at) {
            self.events.schedule(at, Event::PortTxDone { port }.into());
        }
    }

    /// A transmission ended at host port `port` (or its NIC was asked to look): the first in
    /// line of each class the port can take a packet of now hands one over, highest class
    /// first; a queue pair that has nothing due leaves the line for its pacing timer
    /// (`engine/nic.rs`).
    #[inline(never)]
    fn wake_roce_nic(&mut self, now: Time, port: u32) {
        for class in (0..self.network.nic.classes(port)).rev() {
            while self.network.fabric.ports[port as usize].takes_class_now(class, now) {
                let Some(f) = self.network.nic.next(port, class) else {
                    break;
                };
                let f = f as usize;
                if self.transport.conns.roce.has(f) {
                    self.transport.conns.roce.on_nic_ready(now, f);
                    self.transmit_roce(now, f, false);
                    // One that had nothing left to send may be done now.
                    self.transport.conns.settle(f);
                }
            }
        }
    }

    /// After the port picked: a `TxDone` stays due for every class with queue pairs in line,
    /// when the class can next take a packet.
    #[inline(never)]
    fn keep_nic_awake(&mut self, now: Time, port: u32) {
        for class in 0..self.network.nic.classes(port) {
            if self.network.nic.line_is_empty(port, class) {
                continue;
            }
            self.wake_nic_at(now, port, class);
        }
    }

    /// A RoCE flow's data packet or ACK reached its host.
    #[inline(never)]
    fn deliver_roce(&mut self, now: Time, packet: &Packet) {
        let f = packet.flow as usize;
        if packet.kind == PacketKind::Data {
            let delivered = self.transport.conns.roce.on_data(now, f, packet);
            self.send_roce_ack(now, f);
            if let Some(mut cnp) = self.transport.roce_cnp_packet(f) {
                let dst = self.transport.flows[f].dst;
                self.transport.conns.sent(f, 1);
                self.send_from_host(now, dst, &mut cnp);
            }
            self.transport
                .conns
                .roce
                .sync_ack_timer(f, &mut self.events);
            if delivered > 0 {
                self.on_app_delivery(now, f, delivered);
            }
        } else if roce::is_cnp(packet) {
            let busy = self.roce_nic_busy(now, f);
            self.transport.conns.roce.on_cnp(now, f, busy);
            self.transmit_roce(now, f, busy);
        } else {
            let busy = self.roce_nic_busy(now, f);
            let all_acked =
                self.transport
                    .conns
                    .roce
                    .on_ack(now, f, packet, &self.network.int, busy);
            if all_acked && roce::echoed_int(packet).is_some() {
                self.network.int.release(packet.flow);
            }
            self.transmit_roce(now, f, busy);
        }
        self.transport.conns.gone(f);
    }

    /// Flow f's RoCE receiver's ACK coalescing timer: the ACK of what it held back goes to
    /// the sender.
    #[cold]
    #[inline(never)]
    fn roce_ack_timer(&mut self, now: Time, f: usize, generation: u32) {
        let roce = &mut self.transport.conns.roce;
        if !roce.on_ack_timer_event(now, f, generation, &mut self.events) {
            return;
        }
        self.send_roce_ack(now, f);
        self.transport
            .conns
            .roce
            .sync_ack_timer(f, &mut self.events);
        // As after the sender's timer: a timer that ran out may leave the queue pair done.
        self.transport.conns.settle(f);
    }

    /// Sends the ACK or NAK flow f's receiver just answered, if any, from its host.
    #[inline(always)]
    fn send_roce_ack(&mut self, now: Time, f: usize) {
        if let Some(mut ack) = self.transport.roce_ack_packet(f) {
            let dst = self.transport.flows[f].dst;
            self.transport.conns.sent(f, 1);
            self.send_from_host(now, dst, &mut ack);
        }
    }

    /// Flow f's (RoCE) transport timer: a retransmission timeout or its controller's timer
    /// (the event carries the low bits of the timer's generation).
    #[cold]
    #[inline(never)]
    fn roce_transport_timer(&mut self, now: Time, f: usize, low_generation: u32) {
        if !self.transport.is_roce(f) {
            return;
        }
        let busy = self.roce_nic_busy(now, f);
        if self.transport.conns.roce.on_transport_timer_event(
            now,
            f,
            low_generation,
            &mut self.events,
            busy,
        ) {
            self.transmit_roce(now, f, busy);
        }
        // A timer that ran out with nothing in the network may leave the queue pair done.
        self.transport.conns.settle(f);
    }

    /// Flow f's (RoCE) pacing event: its next paced packet.
    #[inline(never)]
    fn roce_timer(&mut self, now: Time, flow: u32, generation: u32) {
        let f = flow as usize;
        let busy = self.roce_nic_busy(now, f);
        if self
            .transport
            .conns
            .roce
            .on_timer_event(now, f, generation, &mut self.events, busy)
        {
            self.transmit_roce(now, f, busy);
        }
        // A timer that ran out with nothing in the network may leave the queue pair done.
        self.transport.conns.settle(f);
    }

    /// Sends what flow f's queue pair just emitted, and moves its timer. A queue pair called
    /// while its NIC was busy (`nic_busy`) and due joins the NIC's line.
    fn transmit_roce(&mut self, now: Time, f: usize, nic_busy: bool) {
        let src = self.transport.flows[f].src;
        let n = self.transport.conns.roce.out.len();
        self.transport.conns.sent(f, n);
        for i in 0..n {
            let mut packet = self.transport.roce_data_packet(f, i);
            self.send_from_host(now, src, &mut packet);
        }
        self.roce_join_nic_line(now, f, nic_busy || n > 0);
        self.transport.conns.roce.sync_timer(f, &mut self.events);
    }

    /// Sends what flow f's sender just emitted.
    fn transmit_segments(&mut self, now: Time, f: usize) {
        let src = self.transport.flows[f].src;
        let deferred = self.transport.has_send_overhead(f);
        self.transport.conns.sent(f, self.transport.segments.len());
        for i in 0..self.transport.segments.len() {
            let mut packet = self.transport.data_packet(now, f, i);
            if deferred {
                self.transport.defer(now, f, packet, &mut self.events);
            } else {
                self.send_from_host(now, src, &mut packet);
            }
        }
    }

    /// Sends what flow f's receiver just emitted.
    fn transmit_acks(&mut self, now: Time, f: usize) {
        let dst = self.transport.flows[f].dst;
        self.transport.conns.sent(f, self.transport.acks.len());
        for i in 0..self.transport.acks.len() {
            let mut packet = self.transport.ack_packet(f, i);
            self.send_from_host(now, dst, &mut packet);
        }
    }

    /// Flow f's application writes `bytes` and the sender sends what it may.
    fn write(&mut self, now: Time, f: usize, bytes: u64) {
        if self.transport.is_roce(f) {
            return self.roce_write(now, f, bytes);
        }
        self.transport.write(now, f, bytes);
        self.transmit_segments(now, f);
        self.transport.sync_rto_timer(f, &mut self.events);
    }

    /// A server writes its response (or a bulk sender starts).
    fn server_start(&mut self, now: Time, f: usize) {
        self.transport.set_flow_active(f, true);
        if self.obs.probes.on {
            self.probe_transfer(now, f, true);
        }
        let bytes = self.workload.bytes_to_write(f);
        self.write(now, f, bytes);
    }

    /// A traffic-generator flow starts (its connection is built now): its application writes
    /// the flow (or endless data).
    fn flow_start(&mut self, now: Time, f: usize) {
        if let FlowOrigin::Generated { index, .. } = self.transport.origin[f] {
            self.transport.conns.start(f);
            if self.obs.probes.on {
                self.probe_transfer(now, f, true);
            }
            let bytes = self
                .generated
                .on_start(index as usize, f as u32, &mut self.events);
            self.write(now, f, bytes);
            if self.generated.writes_once(index as usize) {
                self.transport.conns.app_done(f);
            }
        }
    }

    /// The client requests the current block from every server.
    fn start_block(&mut self, now: Time) {
        let Workload::SyncReads(w) = &mut self.workload else {
            return;
        };
        let (at, check) = w.start_block(
            now,
            &self.transport.flows,
            self.header_bytes,
            &mut self.outbox,
        );
        self.send_outbox(now);
        self.events.schedule(at, check.into());
    }

    fn on_request_check(&mut self, now: Time, block: u32) {
        let Workload::SyncReads(w) = &mut self.workload else {
            return;
        };
        let conns = &self.transport.conns;
        let next = w.on_request_check(
            now,
            block,
            |f| {
                if conns.roce.has(f) {
                    conns.roce.delivered_bytes(f)
                } else {
                    conns.get(f).receiver.highest_received()
                }
            },
            &self.transport.flows,
            self.header_bytes,
            &mut self.outbox,
        );
        self.send_outbox(now);
        if let Some((at, check)) = next {
            self.events.schedule(at, check.into());
        }
    }

    /// Bytes reached flow f's application. Inlined, like `deliver_to_host` and
    /// `send_from_host`: once the gates and reactive generators had grown them, the compiler
    /// stopped inlining these per-packet steps into the loop, which cost S3 3 % more
    /// instructions (docs/perf-log.md, session 24); a completed generated flow's news is out
    /// of line.
    #[inline(always)]
    fn on_app_delivery(&mut self, now: Time, f: usize, bytes: u64) {
        if let FlowOrigin::Generated { index, .. } = self.transport.origin[f] {
            let i = index as usize;
            let delivered = self.transport.delivered_bytes(f);
            if self.generated.on_delivery(now, i, delivered) {
                self.on_generated_flow_done(now, f, i);
            }
            return;
        }
        let Workload::SyncReads(w) = &mut self.workload else {
            return;
        };
        let news = w.on_delivery(now, f, bytes);
        if news != Delivery::Partial {
            self.transport.set_flow_active(f, false);
            if self.obs.probes.on {
                self.probe_transfer(now, f, false);
            }
        }
        match news {
            Delivery::Partial | Delivery::FlowDone => {}
            Delivery::BlockDone => self.start_block(now),
            Delivery::AllBlocksDone => self.finish(now),
        }
    }

    /// Generated flow f (entry i) is complete at its receiver: gates and a reactive generator
    /// hear of it, and a drained run ends.
    #[inline(never)]
    fn on_generated_flow_done(&mut self, now: Time, f: usize, i: usize) {
        if !self.gates.is_empty() {
            self.after_gated_flow_done(now, i);
        }
        // The generator's reaction first: flows it adds keep a draining run going.
        if self.generated.is_reactive(self.generated.spec[i].generator) {
            self.react(now, f, i);
        }
        if self.generated.drained() {
            self.finish(now);
        }
        if self.obs.probes.on {
            self.probe_transfer(now, f, false);
        }
    }

    /// Generated flow f (entry i) of a reactive generator completed: its reactor may add
    /// flows, which get the next flow ids and start events (`plan::traffic::reactive`). A
    /// flow refused for the run's flow cap ends the run (`Outcome::FlowLimit`).
    #[cold]
    #[inline(never)]
    fn react(&mut self, now: Time, f: usize, i: usize) {
        if self.outcome.is_some() {
            return;
        }
        let g = self.generated.spec[i];
        let done = crate::plan::traffic::FinishedFlow {
            flow: f as u32,
            src: g.src,
            dst: g.dst,
            size: g.size.unwrap_or(0),
            start: g.start,
            finish: now,
        };
        let host_count = self.network.fabric.host_port.len() as u32;
        let time_limit = Time::ZERO + self.cfg.run.max_sim_time.0;
        let next_flow = self.transport.flows.len() as u32;
        let room = self.generated.room();
        let mut added = std::mem::take(&mut self.generated.added);
        added.clear();
        let Some(Some(entry)) = self.generated.reactive.get_mut(g.generator as usize) else {
            return;
        };
        let mut ctx = crate::plan::traffic::ReactionContext::new(
            g.generator,
            now,
            host_count,
            time_limit,
            next_flow,
            room,
            &mut entry.rng,
            &mut added,
        );
        entry.reactor.on_flow_finish(&done, &mut ctx);
        let limit_hit = ctx.limit_hit();
        for new in added.drain(..) {
            self.add_generated_flow(new);
        }
        self.generated.added = added;
        if limit_hit {
            self.outcome = Some(Outcome::FlowLimit);
            self.finished_at = Some(now);
        }
    }

    /// Adds generated flow `g` (checked by `ReactionContext`) as the next flow id: its
    /// endpoints, TCP profile (by flow index, as `flow_overrides` selects), connection (built
    /// when it starts), observers' per-flow state, and its start event.
    #[cold]
    fn add_generated_flow(&mut self, g: crate::plan::traffic::GeneratedFlow) {
        let f = self.transport.flows.len();
        let index = self.generated.spec.len() as u32;
        let origin = FlowOrigin::Generated {
            index,
            generator: g.generator,
        };
        let profile = crate::plan::profile_of(&self.cfg, f);
        let p = &self.profiles[profile as usize];
        let ends = transport::FlowEnds {
            src: g.src,
            dst: g.dst,
        };
        self.transport.add_flow(self.seed, ends, origin, profile, p);
        self.flow_profile.push(profile);
        self.obs.diag.add_flow();
        self.obs.capture.add_flow(capture::CaptureFlow {
            src: g.src,
            dst: g.dst,
            window_bytes: p.receiver.window_bytes,
        });
        self.generated.add(g, f as u32, &mut self.events);
    }

    fn finish(&mut self, now: Time) {
        self.finished_at = Some(now);
        self.outcome = Some(Outcome::Completed);
    }
}
