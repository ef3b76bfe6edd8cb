//! The network part of the engine: packets move between output ports. A packet reaching the far
//! end of a link either arrives at a switch, which forwards it (ECMP per flow, or sprayed per
//! packet) to its next output port, or at a host, which is news handed back to the engine.
//! Admission drops are news too. A port of a shared-buffer switch asks its switch's buffer
//! (`Fabric::shared_buffers`, by the index the port holds) before its own discipline.

use super::event::{Event, Events, PfcEvent};
use super::observe::Observers;
use super::paths::FlowPaths;
use crate::config::RoutingConfig;
use crate::engine::diagnostics::{Diagnostics, LOCAL_INPUT};
use crate::plan::fabric::Fabric;
use crate::probe::PortView;
pub use crate::probe::view::PacketCounters;
use incastsim_core::{
    Ecn, HostId, NO_PATH, NodeId, NodeKind, Packet, PacketKind, Routes, SimRng, Time,
};
use incastsim_switch::pfc::{PAUSE_FRAME_BYTES, QUANTUM_BYTES};
use incastsim_switch::{Departed, DropReason, Enqueued, NO_INGRESS};

/// Random packet spraying (Dixit et al., "On the impact of packet spraying in data center
/// networks", INFOCOM 2013): each packet picks one of the equal-cost next hops uniformly at
/// random, from the switch's own stream, whatever its flow.
#[cold]
fn spray(routes: &Routes, rng: &mut SimRng, node: NodeId, dst: HostId) -> u32 {
    let hops = routes.next_hops(node, dst);
    debug_assert!(!hops.is_empty(), "no route from node {node} to host {dst}");
    if hops.len() == 1 {
        hops[0]
    } else {
        hops[rng.below(hops.len() as u64) as usize]
    }
}

/// A packet an output port refused (buffer or AQM), for the drop diagnostics.
#[derive(Clone, Copy, Debug)]
pub struct AdmissionDrop {
    /// The port that refused the packet.
    pub port: u32,
    /// The port the packet entered the node on (`LOCAL_INPUT` for a host's own packet).
    pub input: u32,
    /// The packet's flow.
    pub flow: u32,
    /// Data, ACK, request or UDP.
    pub kind: PacketKind,
    /// Why the packet was refused (buffer full, shared-buffer threshold, AQM).
    pub reason: DropReason,
}

/// What became of the head packet of a port that reached the far end of its link: delivered to
/// its destination host, or forwarded by a switch into its next port, which may have refused it
/// (both `None` if the link lost it or the next port took it).
pub struct Arrival {
    /// Arrived at its destination host.
    pub at_host: Option<Packet>,
    /// Forwarded by a switch, but its next port refused it.
    pub dropped: Option<AdmissionDrop>,
}

/// The network: ports, links and routing, with its packet counters.
pub struct Network {
    /// Nodes, ports and routes.
    pub fabric: Fabric,
    /// Packets sent, forwarded, delivered and dropped, by reason.
    pub counters: PacketCounters,
    /// A copy of [`Observers::watched`] (set by `Simulation::sync_watched`), read by every
    /// arrival and host send: kept here, beside the fabric the same paths read.
    pub(crate) watched: bool,
    /// Each flow's path per direction, followed by the packets' cursors (`paths.rs`).
    paths: FlowPaths,
    /// Bit per node: a switch (1.2 KB at k = 32, where `fabric.nodes` is 76 KB: an arrival
    /// tests one bit that stays cached).
    switch_bits: Vec<u64>,
    /// Each port's name as ports.csv has it, for the probes' [`PortView`]s: computed once
    /// when the first probe is added (empty without probes).
    pub(crate) port_names: Vec<String>,
    /// `pfc` is `Some`: an admission takes the PFC path (one flag beside `watched`).
    pfc_on: bool,
    /// `pfc.host_receive`: a lossless packet that reaches its host waits in the host's
    /// receive buffer ([`Network::host_receive`]); it turns the watched path on
    /// (`Simulation::sync_watched`), so runs without it test nothing more per arrival.
    pub(crate) host_rx: bool,
    /// Priority Flow Control's counts, pauses and frames (`pfc:`; `None` without it).
    pub pfc: Option<Box<super::pfc::PfcState>>,
    /// Some flow's data packets carry HPCC's INT header: a switch egress stamps them when they
    /// get the transmitter ([`Network::stamp_int`]). It turns the watched path on
    /// (`Simulation::sync_watched`), so runs without INT test nothing more per admission.
    pub(crate) int_on: bool,
    /// The INT records (`engine/int.rs`; empty without INT).
    pub int: super::int::IntStore,
    /// The RoCE queue pairs waiting for their host's NIC (`engine/nic.rs`; empty without RoCE
    /// flows).
    pub nic: super::nic::NicLines,
}

impl Network {
    /// The network of `fabric`.
    pub fn new(fabric: Fabric) -> Network {
        let mut switch_bits = vec![0u64; fabric.nodes.len().div_ceil(64)];
        for (n, kind) in fabric.nodes.iter().enumerate() {
            if let NodeKind::Switch(_) = kind {
                switch_bits[n / 64] |= 1 << (n % 64);
            }
        }
        Network {
            paths: FlowPaths::new(fabric.routing),
            switch_bits,
            fabric,
            counters: PacketCounters::default(),
            watched: false,
            port_names: Vec::new(),
            pfc_on: false,
            host_rx: false,
            pfc: None,
            int_on: false,
            int: super::int::IntStore::new(0, 0),
            nic: super::nic::NicLines::default(),
        }
    }

    /// Turns in-band telemetry on, with its store.
    pub fn with_int(mut self, store: Option<super::int::IntStore>) -> Network {
        if let Some(store) = store {
            self.int = store;
            self.int_on = true;
        }
        self
    }

    /// A packet got `port`'s transmitter at `now`: if it carries an INT header and `port` is a
    /// switch's, the port appends its record (HPCC, Li et al. SIGCOMM 2019 §3.2: "each switch
    /// ... pushes its ... telemetry"; the fork stamps at dequeue, `SwitchNotifyDequeue`).
    #[cold]
    #[inline(never)]
    fn stamp_int(&mut self, now: Time, port: u32) {
        // The port's first lines are cached (it just started the packet): test the packet's
        // flag before the node's kind.
        if !self.fabric.ports[port as usize].newest_has_flag(incastsim_core::packet::flags::INT) {
            return;
        }
        let node = self.fabric.port_from[port as usize];
        if !self.switch_bits_has(node) {
            return;
        }
        let p = &mut self.fabric.ports[port as usize];
        let rate = p.serialization().rate();
        let Some((packet, qlen_bytes, tx_bytes)) = p.started_now_mut(now) else {
            return;
        };
        if packet.kind != incastsim_core::PacketKind::Data {
            return;
        }
        let hop = packet.sack_count as usize;
        if hop >= self.int.stride() {
            return;
        }
        packet.sack_count += 1;
        let record = incastsim_core::IntHop {
            ts: now,
            tx_bytes,
            qlen_bytes,
            rate,
        };
        self.int.stamp(packet.flow, packet.seq, hop, record);
    }

    /// Turns PFC on with its plan.
    pub fn with_pfc(mut self, plan: Option<crate::plan::pfc::PfcPlan>) -> Network {
        if let Some(plan) = plan {
            self.pfc = Some(Box::new(super::pfc::PfcState::new(plan, &self.fabric)));
            self.pfc_on = true;
            // Every PAUSE schedules its lapse (`on_pause_frame`), which tells the port.
            for port in self.fabric.ports.iter_mut().filter(|p| p.pausable()) {
                port.tell_pause_lapses();
            }
            self.host_rx = self.pfc.as_ref().is_some_and(|p| p.host_rx.is_some());
        }
        self
    }

    /// Names the ports for probes (once; nothing without probes).
    #[cold]
    pub(crate) fn name_ports(&mut self) {
        if self.port_names.is_empty() {
            self.port_names = (0..self.fabric.ports.len() as u32)
                .map(|p| self.fabric.port_name(p))
                .collect();
        }
    }

    /// What a probe sees of `port` at `now` (its occupancy brought up to date: the port's lazy
    /// bookkeeping of departures by `now`, which any later admission would do the same way,
    /// so the run is unchanged).
    #[cold]
    pub(crate) fn port_view(&mut self, now: Time, port: u32) -> PortView<'_> {
        let p = &mut self.fabric.ports[port as usize];
        let occupancy = p.occupancy(now);
        PortView {
            index: port,
            name: self
                .port_names
                .get(port as usize)
                .map_or("", String::as_str),
            rate: p.serialization().rate(),
            occupancy,
        }
    }

    /// The head packet of `port` reaches the node at the far end of the link. Always inlined,
    /// as `send_from_host`: with the capture test in them the compiler stopped inlining them,
    /// which cost S3 instructions (docs/perf-log.md).
    #[inline(always)]
    pub fn on_head_arrival(
        &mut self,
        now: Time,
        port: u32,
        events: &mut Events,
        obs: &mut Observers,
    ) -> Arrival {
        if self.watched {
            return self.on_head_arrival_probed(now, port, events, obs);
        }
        self.arrive::<false>(now, port, events, obs)
    }

    /// [`Network::on_head_arrival`] with probes: a packet the link lost, or one delivered to
    /// its host, is news to them (admission at the next port is `enqueue`'s).
    #[cold]
    #[inline(never)]
    fn on_head_arrival_probed(
        &mut self,
        now: Time,
        port: u32,
        events: &mut Events,
        obs: &mut Observers,
    ) -> Arrival {
        let p = &self.fabric.ports[port as usize];
        let (head, lost_before) = (p.head_packet(), p.drops_link_loss());
        let arrival = self.arrive::<true>(now, port, events, obs);
        let lost = self.fabric.ports[port as usize].drops_link_loss() > lost_before;
        if lost && let Some(packet) = head {
            obs.on_link_loss(now, &self.port_view(now, port), &packet);
        }
        if let Some(packet) = &arrival.at_host {
            obs.on_deliver(now, packet);
        }
        arrival
    }

    /// The arrival itself; `WATCHED`: with the pcap capture and probes (compiled out of the
    /// unwatched copy, so a run without them tests one flag per arrival, as before probes).
    #[inline(always)]
    fn arrive<const WATCHED: bool>(
        &mut self,
        now: Time,
        port: u32,
        events: &mut Events,
        obs: &mut Observers,
    ) -> Arrival {
        let p = &mut self.fabric.ports[port as usize];
        let to = p.to;
        let mut arrival = p.pop_arrival(now);
        if let Some(at) = arrival.next_head_at {
            events.schedule(at, Event::PortHead { port }.into());
        }
        let at_switch = self.switch_bits[to as usize / 64] >> (to % 64) & 1 != 0;
        if WATCHED && let Some(packet) = &arrival.packet {
            obs.on_arrival(now, port, packet, !at_switch);
        }
        if at_switch && let Some(packet) = &mut arrival.packet {
            return Arrival {
                at_host: None,
                dropped: self.forward::<WATCHED>(now, to, packet, port, events, obs),
            };
        }
        // At a host: handed back as it came off the link (moving it into other news costs a
        // copy of the packet per delivery).
        if let Some(packet) = &arrival.packet {
            debug_assert!(
                self.fabric.nodes[to as usize] == NodeKind::Host(packet.dst),
                "packet delivered to the wrong host"
            );
            self.counters.delivered += 1;
            // A host with a receive buffer (`pfc.host_receive`, which turns the watched path
            // on: the unwatched copy never tests it) may hold it for later.
            if WATCHED && self.host_rx && self.host_receive(now, port, *packet, events) {
                return Arrival {
                    at_host: None,
                    dropped: None,
                };
            }
        }
        Arrival {
            at_host: arrival.packet,
            dropped: None,
        }
    }

    /// Cache hint, several events ahead of a head arrival at `port`: the port's first line.
    #[inline(always)]
    pub fn prefetch_port(&self, port: u32) {
        if let Some(p) = self.fabric.ports.get(port as usize) {
            p.prefetch_first_line();
        }
    }

    /// Cache hint, a stage later: the packets the arrival reads (the port's first line is
    /// cached by now).
    #[inline(always)]
    pub fn prefetch_head(&self, port: u32) {
        if let Some(p) = self.fabric.ports.get(port as usize) {
            p.prefetch_arrival();
        }
    }

    /// Cache hint, a stage after [`Network::prefetch_head`]: the path entry that names the
    /// next port of the port's head packet (the packet is cached by now).
    #[inline(always)]
    pub fn prefetch_path(&self, port: u32) {
        if let Some(p) = self.fabric.ports.get(port as usize)
            && let Some(packet) = p.head_packet_ref()
            && packet.hop != NO_PATH
        {
            self.paths.prefetch(packet.flow, packet.hop);
        }
    }

    /// The port a head arrival at `port` forwards its packet to (`Ok`: by its cached path,
    /// which the flow's packets keep warm), or the packet if it reaches a host (`Err`), or
    /// neither if unknown without the routing tables.
    #[inline(always)]
    fn coming_hop(&self, port: u32) -> Option<Result<u32, &Packet>> {
        let p = self.fabric.ports.get(port as usize)?;
        let packet = p.head_packet_ref()?;
        let to = p.to;
        if self.switch_bits[to as usize / 64] >> (to % 64) & 1 == 0 {
            return Some(Err(packet));
        }
        if packet.hop == NO_PATH {
            return None;
        }
        self.paths.try_port(packet.flow, packet.hop).map(Ok)
    }

    /// Where the head packet of `port` goes ([`Network::coming_hop`] with the answering host's
    /// NIC for a packet that reaches its host), and that packet if it does.
    #[inline(always)]
    fn resolve_coming(&self, port: u32) -> (Option<&Packet>, ComingHop) {
        match self.coming_hop(port) {
            None => (None, ComingHop::NONE),
            Some(Ok(next)) => {
                let hop = ComingHop {
                    from: port,
                    next,
                    at_host: false,
                };
                (None, hop)
            }
            Some(Err(packet)) => {
                let nic = self.fabric.host_port.get(packet.dst as usize).copied();
                let hop = ComingHop {
                    from: port,
                    next: nic.unwrap_or(u32::MAX),
                    at_host: true,
                };
                (Some(packet), hop)
            }
        }
    }

    /// Cache hint, a stage later: what the admission at the next port reads (its fields, the
    /// diagnostics' entries). Returns the packet if it reaches a host instead, for the
    /// transport's hint, and where the packet goes, for the next stage
    /// ([`Network::prefetch_next_fifo`]) to reuse.
    #[inline(always)]
    pub fn prefetch_next_hop(&self, port: u32, diag: &Diagnostics) -> (Option<&Packet>, ComingHop) {
        let (packet, hop) = self.resolve_coming(port);
        if let Some(np) = self.fabric.ports.get(hop.next as usize) {
            np.prefetch_admission();
            // A host answers (an ACK, or data an ACK lets out) through its NIC: that port's
            // admission and its diagnostics entry are as cold as a switch port's.
            if hop.at_host {
                diag.prefetch_port(hop.next, LOCAL_INPUT);
            } else {
                diag.prefetch_port(hop.next, port);
            }
        }
        (packet, hop)
    }

    /// Cache hint, the last stage: the FIFO entries of the next port the admission reads and
    /// writes, and the diagnostics' counter it increments (the lines that locate them are
    /// cached by now). `known`: what the stage before found for this event one loop earlier
    /// (used if it names `port`: the same head packet, so the same next port).
    #[inline(always)]
    pub fn prefetch_next_fifo(&self, port: u32, diag: &Diagnostics, known: ComingHop) {
        let hop = if known.from == port {
            known
        } else {
            self.resolve_coming(port).1
        };
        if let Some(np) = self.fabric.ports.get(hop.next as usize) {
            np.prefetch_admission_fifo();
            if !hop.at_host {
                diag.prefetch_pair(hop.next, port);
            }
        }
    }

    /// A port that decides at dequeue finished a transmission and picks the next packet
    /// (strict priority, or its scheduling discipline; the discipline's head drops are then in
    /// [`incastsim_switch::OutputPort::head_drops`]).
    pub fn on_tx_done(&mut self, now: Time, port: u32, events: &mut Events, obs: &mut Observers) {
        let done = self.fabric.ports[port as usize].on_tx_done(now);
        self.after_dequeue(now, port, done, events, obs);
    }

    /// A scheduling discipline's timer event at `port` (see [`Network::on_tx_done`]).
    #[cold]
    #[inline(never)]
    pub fn on_port_timer(
        &mut self,
        now: Time,
        port: u32,
        generation: u32,
        events: &mut Events,
        obs: &mut Observers,
    ) {
        let done = self.fabric.ports[port as usize].on_timer_event(now, generation);
        self.after_dequeue(now, port, done, events, obs);
    }

    /// Schedules what a port asks for after a dequeue-side call and tells the probes of the
    /// packet it started.
    #[inline]
    fn after_dequeue(
        &mut self,
        now: Time,
        port: u32,
        done: incastsim_switch::TxDone,
        events: &mut Events,
        obs: &mut Observers,
    ) {
        if let Some(at) = done.schedule_head_at {
            events.schedule(at, Event::PortHead { port }.into());
        }
        if let Some(at) = done.schedule_tx_done_at {
            events.schedule(at, Event::PortTxDone { port }.into());
        }
        if let Some(d) = done.departed {
            self.on_departed(now, d, events);
        }
        if self.int_on && done.started_admitted_at.is_some() {
            self.stamp_int(now, port);
        }
        if let Some((at, generation)) = done.schedule_timer {
            debug_assert!(
                u64::from(port) < super::event::MAX_FLOWS,
                "port index over 28 bits"
            );
            events.schedule(at, Event::PortTimer { port, generation }.into());
        }
        if obs.probes.on
            && let Some(admitted) = done.started_admitted_at
            && let Some((packet, tx_start)) = self.fabric.ports[port as usize].newest_departure()
        {
            obs.on_dequeue(now, &self.port_view(now, port), &packet, admitted, tx_start);
        }
    }

    /// A host hands a packet to its NIC.
    #[inline(always)]
    pub fn send_from_host(
        &mut self,
        now: Time,
        host: HostId,
        packet: &mut Packet,
        events: &mut Events,
        obs: &mut Observers,
    ) -> Option<AdmissionDrop> {
        self.counters.sent += 1;
        let port = self.fabric.host_port[host as usize];
        packet.hop = self
            .paths
            .start(&self.fabric, packet.flow, host, packet.dst);
        if self.watched {
            return self.send_watched(now, host, port, *packet, events, obs);
        }
        self.offer(now, port, packet, LOCAL_INPUT, events, obs)
    }

    /// [`Network::send_from_host`] with the pcap capture or probes on.
    #[cold]
    #[inline(never)]
    fn send_watched(
        &mut self,
        now: Time,
        host: HostId,
        port: u32,
        packet: Packet,
        events: &mut Events,
        obs: &mut Observers,
    ) -> Option<AdmissionDrop> {
        obs.on_host_send(now, host, &packet);
        self.enqueue(now, port, &packet, LOCAL_INPUT, events, obs)
    }

    /// A switch picks the output port (ECMP per flow) and offers the packet to it; `input` is
    /// the port the packet arrived on. Always inlined: with the probed copy of the arrival
    /// path calling it too, the compiler stopped inlining it (S3 paid for the call).
    #[inline(always)]
    fn forward<const WATCHED: bool>(
        &mut self,
        now: Time,
        node: NodeId,
        packet: &mut Packet,
        input: u32,
        events: &mut Events,
        obs: &mut Observers,
    ) -> Option<AdmissionDrop> {
        let f = &mut self.fabric;
        let port = if packet.hop != NO_PATH {
            let port = self.paths.port(packet.flow, packet.hop);
            debug_assert_eq!(
                port,
                super::paths::table_hop(f, node, packet.dst, packet.flow),
                "a cached path left the routes"
            );
            packet.hop += 1;
            port
        } else {
            match f.routing {
                RoutingConfig::Ecmp => {
                    f.routes
                        .next_hop(node, packet.dst, packet.flow, f.ecmp_salt)
                }
                RoutingConfig::Static => f.routes.next_hop_static(node, packet.dst),
                RoutingConfig::PacketSpray => {
                    spray(&f.routes, &mut f.spray[node as usize], node, packet.dst)
                }
            }
        };
        self.counters.forwarded += 1;
        if WATCHED {
            self.enqueue(now, port, packet, input, events, obs)
        } else {
            self.offer(now, port, packet, input, events, obs)
        }
    }

    /// Offers `packet`, which entered the port's node on `input`, to `port`. On a port of a
    /// shared-buffer switch the buffer's Dynamic Threshold decides first (a refusal is counted
    /// at the port and in the buffer, by cause), then the port itself; the buffer hears what
    /// the port took. One inlined copy of the port's admission serves both kinds of port.
    #[inline(always)]
    fn enqueue(
        &mut self,
        now: Time,
        port: u32,
        packet: &Packet,
        input: u32,
        events: &mut Events,
        obs: &mut Observers,
    ) -> Option<AdmissionDrop> {
        if obs.probes.on {
            return self.enqueue_probed(now, port, packet, input, events, obs);
        }
        // In-band telemetry turns this watched path on (without PFC, whose admission stamps).
        let waiting = (self.int_on && self.pfc.is_none())
            .then(|| self.fabric.ports[port as usize].waiting_packets());
        let dropped = self.offer(now, port, packet, input, events, obs);
        if let Some(waiting) = waiting {
            self.stamp_if_started(now, port, packet, waiting, dropped.is_none());
        }
        dropped
    }

    /// In-band telemetry at an admission: `packet`, admitted to `port` (`admitted`), is
    /// stamped if it got the transmitter at once, that is if the port's waiting packets did
    /// not grow past `waiting_before` (one that waits is stamped when it gets it:
    /// `Network::after_dequeue`; the newest departure may then be an earlier packet, already
    /// stamped).
    #[cold]
    #[inline(never)]
    fn stamp_if_started(
        &mut self,
        now: Time,
        port: u32,
        packet: &Packet,
        waiting_before: usize,
        admitted: bool,
    ) {
        if admitted
            && packet.has_flag(incastsim_core::packet::flags::INT)
            && self.fabric.ports[port as usize].waiting_packets() <= waiting_before
        {
            self.stamp_int(now, port);
        }
    }

    /// [`Network::stamp_if_started`] on PFC's admission path, which knows whether the packet
    /// got the transmitter by the port's fixed departures: `fixed` before the offer, one more
    /// if it started (an admission never removes one, and a packet that waits, or is dropped,
    /// adds none).
    #[inline]
    fn stamp_if_started_at(&mut self, now: Time, port: u32, packet: &Packet, fixed: usize) {
        if packet.has_flag(incastsim_core::packet::flags::INT)
            && self.fabric.ports[port as usize].fixed_departures() > fixed
        {
            self.stamp_int(now, port);
        }
    }

    /// [`Network::enqueue`] with probes: they hear of the drop, or of the admission (and the
    /// mark), and of the departure if the port fixed it now (a strict-priority port fixes a
    /// waiting packet's in `on_tx_done`).
    #[cold]
    #[inline(never)]
    fn enqueue_probed(
        &mut self,
        now: Time,
        port: u32,
        packet: &Packet,
        input: u32,
        events: &mut Events,
        obs: &mut Observers,
    ) -> Option<AdmissionDrop> {
        let p = &self.fabric.ports[port as usize];
        let (marks, waiting) = (p.ecn_marks(), p.waiting_packets());
        let dropped = self.offer(now, port, packet, input, events, obs);
        if self.int_on && self.pfc.is_none() {
            self.stamp_if_started(now, port, packet, waiting, dropped.is_none());
        }
        let p = &self.fabric.ports[port as usize];
        if let Some(d) = &dropped {
            obs.on_admission_drop(now, &self.port_view(now, port), packet, d.reason);
            return dropped;
        }
        let started = (p.waiting_packets() == waiting)
            .then(|| p.newest_departure())
            .flatten();
        let admitted = match started {
            Some((stored, _)) => stored,
            None if p.ecn_marks() > marks => Packet {
                ecn: Ecn::Ce,
                ..*packet
            },
            None => *packet,
        };
        let marked = p.ecn_marks() > marks;
        let tx_start = started.map(|(_, t)| t);
        obs.on_admitted(now, &self.port_view(now, port), &admitted, marked, tx_start);
        dropped
    }

    /// Offers `packet` to `port` (the admission itself, probes or not). On a port of a
    /// shared-buffer switch the buffer's Dynamic Threshold decides first (a refusal is counted
    /// at the port and in the buffer, by cause), then the port itself; the buffer hears what
    /// the port took. One inlined copy of the port's admission serves both kinds of port.
    #[inline(always)]
    fn offer(
        &mut self,
        now: Time,
        port: u32,
        packet: &Packet,
        input: u32,
        events: &mut Events,
        obs: &mut Observers,
    ) -> Option<AdmissionDrop> {
        if self.pfc_on {
            return self.offer_pfc(now, port, packet, input, events, obs);
        }
        self.offer_to::<false>(now, port, packet, input, NO_INGRESS, events, obs)
    }

    /// [`Network::offer`]'s admission; `LOSSLESS`: a lossless packet, which no shared
    /// buffer's threshold refuses (its input's PFC count bounds it) and which the port hands
    /// back with `ingress` when it gets the transmitter.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn offer_to<const LOSSLESS: bool>(
        &mut self,
        now: Time,
        port: u32,
        packet: &Packet,
        input: u32,
        ingress: u32,
        events: &mut Events,
        obs: &mut Observers,
    ) -> Option<AdmissionDrop> {
        let (flow, kind) = (packet.flow, packet.kind);
        let f = &mut self.fabric;
        let shared = f.ports[port as usize].shared_buffer();
        let wire = packet.wire_bytes() as u64;
        let enqueue = |p: &mut incastsim_switch::OutputPort| {
            if LOSSLESS {
                p.enqueue_from(now, packet, ingress)
            } else {
                p.enqueue(now, packet)
            }
        };
        let offered = match shared {
            None => enqueue(&mut f.ports[port as usize]),
            Some((pool, slot)) => {
                if !LOSSLESS
                    && let Err(reason) =
                        f.shared_buffers[pool as usize].admit(&mut f.ports, slot, now, wire)
                {
                    f.ports[port as usize].refuse(packet, reason);
                    return Some(AdmissionDrop {
                        port,
                        input,
                        flow,
                        kind,
                        reason,
                    });
                }
                let offered = enqueue(&mut f.ports[port as usize]);
                let taken = matches!(offered, Enqueued::Admitted { .. });
                f.shared_buffers[pool as usize].after_offer(&mut f.ports, slot, wire, taken);
                offered
            }
        };
        match offered {
            Enqueued::Admitted {
                schedule_head_at,
                schedule_tx_done_at,
            } => {
                obs.diag.on_admitted(port, input, flow, kind);
                if let Some(at) = schedule_head_at {
                    events.schedule(at, Event::PortHead { port }.into());
                }
                if let Some(at) = schedule_tx_done_at {
                    events.schedule(at, Event::PortTxDone { port }.into());
                }
                None
            }
            Enqueued::Dropped(reason) => Some(AdmissionDrop {
                port,
                input,
                flow,
                kind,
                reason,
            }),
        }
    }

    /// [`Network::offer`] with PFC on. A lossless packet coming into a switch is counted at
    /// its input (`input`, the port it came by): refused if XOFF and the headroom are full;
    /// if it waits in the buffer, counted, and the input PAUSEs on crossing XOFF. Lossy
    /// packets, and a host's own, are offered as without PFC (a host's NIC never drops a
    /// lossless packet: its port's lossless classes override drop verdicts).
    #[cold]
    #[inline(never)]
    fn offer_pfc(
        &mut self,
        now: Time,
        port: u32,
        packet: &Packet,
        input: u32,
        events: &mut Events,
        obs: &mut Observers,
    ) -> Option<AdmissionDrop> {
        let pfc = self.pfc.as_deref_mut().expect("PFC on");
        let class = self.fabric.ports[port as usize].class_of(packet);
        let slot = pfc.slot(input, class);
        let Some(slot) = slot.filter(|_| input != LOCAL_INPUT) else {
            let lossless = pfc.slot(0, class).is_some();
            let fixed = self.fabric.ports[port as usize].fixed_departures();
            let dropped = if lossless {
                self.offer_to::<true>(now, port, packet, input, NO_INGRESS, events, obs)
            } else {
                self.offer_to::<false>(now, port, packet, input, NO_INGRESS, events, obs)
            };
            if self.int_on {
                self.stamp_if_started_at(now, port, packet, fixed);
            }
            return dropped;
        };
        let wire = packet.wire_bytes() as u64;
        let xoff = pfc.xoff_at(slot);
        let headroom = pfc.plan.headroom[input as usize];
        if !pfc.counts[slot].fits(wire, xoff, headroom) {
            pfc.counts[slot].overflow_drops += 1;
            debug_assert!(
                !pfc.plan.headroom_auto || !pfc.plan.hosts_honour,
                "a lossless packet overflowed a computed headroom (input {input}, class {class})"
            );
            self.fabric.ports[port as usize].refuse(packet, DropReason::Headroom);
            return Some(AdmissionDrop {
                port,
                input,
                flow: packet.flow,
                kind: packet.kind,
                reason: DropReason::Headroom,
            });
        }
        let fixed = self.fabric.ports[port as usize].fixed_departures();
        let dropped = self.offer_to::<true>(now, port, packet, input, input, events, obs);
        debug_assert!(dropped.is_none(), "a lossless packet dropped at admission");
        if self.int_on {
            // INT with PFC: a packet that got the transmitter at once is stamped on this
            // admission path (without PFC, on the watched path INT turns on: `Network::enqueue`).
            self.stamp_if_started_at(now, port, packet, fixed);
        }
        if self.fabric.ports[port as usize].fixed_departures() == fixed {
            // It waits in the buffer: its input counts it until it gets the transmitter.
            let pfc = self.pfc.as_deref_mut().expect("PFC on");
            let (below, pause) = pfc.counts[slot].admit(wire, xoff);
            pfc.pool_change_at(slot, below, 0);
            if pause {
                pfc.on_xoff(now, &self.fabric.ports, input, class);
                let quanta = pfc.plan.quanta;
                self.send_pause(now, input, class, quanta, events);
            }
        }
        dropped
    }

    /// The input fed by `input` sends a PFC frame for `class` (`quanta` 0: RESUME) by the
    /// port back to `input`'s node; a PAUSE schedules its refresh.
    #[cold]
    fn send_pause(
        &mut self,
        now: Time,
        input: u32,
        class: usize,
        quanta: u16,
        events: &mut Events,
    ) {
        let pfc = self.pfc.as_deref_mut().expect("PFC on");
        let back = pfc.plan.reverse[input as usize];
        let arrive = self.fabric.ports[back as usize].send_control_frame(now, PAUSE_FRAME_BYTES);
        let at = arrive + pfc.plan.response_time;
        events.schedule(
            at,
            Event::Pfc(PfcEvent::PauseFrame {
                port: back,
                class: class as u8,
                quanta,
            })
            .into(),
        );
        let back_slot = pfc.slot(back, class).expect("lossless");
        let sent = &mut pfc.pause[back_slot];
        if quanta == 0 {
            sent.resumes_sent += 1;
            return;
        }
        sent.pauses_sent += 1;
        // Re-sent after `refresh` of the pause time (at the paused port's rate).
        let pause = self.fabric.ports[input as usize]
            .serialization()
            .time_for(u64::from(quanta) * QUANTUM_BYTES);
        let refresh = incastsim_core::Duration((pause.as_ps() as f64 * pfc.plan.refresh) as u64);
        let slot = pfc.slot(input, class).expect("lossless");
        pfc.refresh_at[slot] = now + refresh;
        events.schedule(
            now + refresh,
            Event::Pfc(PfcEvent::Refresh {
                port: input,
                class: class as u8,
            })
            .into(),
        );
    }

    /// `packet` came off port `port` into its host, which has a receive buffer for the
    /// lossless priorities (`pfc.host_receive`): a lossless packet waits there (true),
    /// counted at the host's input, which PAUSEs its switch on crossing the buffer's XOFF; a
    /// lossy one is the host's at once (false: its own receive buffer is not modelled).
    #[cold]
    #[inline(never)]
    fn host_receive(&mut self, now: Time, port: u32, packet: Packet, events: &mut Events) -> bool {
        let class = self.fabric.ports[port as usize].class_of(&packet);
        let pfc = self.pfc.as_deref_mut().expect("PFC on");
        let Some(slot) = pfc.slot(port, class) else {
            return false;
        };
        let rx = pfc.host_rx.as_mut().expect("host receive buffers");
        let xoff = rx.xoff;
        if let Some(at) = rx.arrive(now, packet.dst, port, packet) {
            let take = Event::Pfc(PfcEvent::HostTake { host: packet.dst });
            events.schedule(at, take.into());
        }
        let (_, pause) = pfc.counts[slot].admit(u64::from(packet.wire_bytes()), xoff);
        if pause {
            let quanta = pfc.plan.quanta;
            self.send_pause(now, port, class, quanta, events);
        }
        true
    }

    /// Host `host` takes the first packet of its receive buffer at `now` (returned, for the
    /// transport): its input's count falls, and a paused input resumes below the XON point.
    #[cold]
    #[inline(never)]
    pub fn host_take(&mut self, now: Time, host: u32, events: &mut Events) -> Option<Packet> {
        let pfc = self.pfc.as_deref_mut()?;
        let rx = pfc.host_rx.as_mut()?;
        let xoff = rx.xoff;
        let (packet, input, next) = rx.take(now, host)?;
        if let Some(at) = next {
            events.schedule(at, Event::Pfc(PfcEvent::HostTake { host }).into());
        }
        let class = self.fabric.ports[input as usize].class_of(&packet);
        if let Some(slot) = pfc.slot(input, class) {
            pfc.counts[slot].remove(u64::from(packet.wire_bytes()));
            if pfc.counts[slot].try_resume(xoff, pfc.plan.xon_offset) {
                pfc.refresh_at[slot] = Time::MAX;
                if pfc.plan.resume {
                    self.send_pause(now, input, class, 0, events);
                }
            }
        }
        Some(packet)
    }

    /// A lossless packet that came in by `d.ingress` got the transmitter: its input's count
    /// falls, and a paused input resumes below the XON point.
    #[cold]
    #[inline(never)]
    fn on_departed(&mut self, now: Time, d: Departed, events: &mut Events) {
        let Some(pfc) = self.pfc.as_deref_mut() else {
            return;
        };
        let class = d.class as usize;
        let Some(slot) = pfc.slot(d.ingress, class) else {
            return;
        };
        let below = pfc.counts[slot].remove(u64::from(d.wire_bytes));
        pfc.pool_change_at(slot, 0, below);
        // Only a paused input may resume: the threshold is read for those alone.
        if pfc.counts[slot].paused && {
            let (xoff, xon_offset) = (pfc.xoff_at(slot), pfc.plan.xon_offset);
            pfc.counts[slot].try_resume(xoff, xon_offset)
        } {
            pfc.refresh_at[slot] = Time::MAX;
            if pfc.plan.resume {
                self.send_pause(now, d.ingress, class, 0, events);
            }
        }
    }

    /// A PFC frame that port `sender` sent reaches the far end: the port back pauses
    /// `class` for `quanta` (or resumes it), unless it is a host's NIC that ignores pauses.
    pub fn on_pause_frame(
        &mut self,
        now: Time,
        sender: u32,
        class: usize,
        quanta: u16,
        events: &mut Events,
    ) {
        let Some(target) = self.pfc.as_deref().map(|p| p.plan.reverse[sender as usize]) else {
            return;
        };
        let from_host = !self.switch_bits_has(self.fabric.port_from[target as usize]);
        let pfc = self.pfc.as_deref_mut().expect("PFC on");
        let Some(slot) = pfc.slot(target, class) else {
            return;
        };
        if from_host && !pfc.plan.hosts_honour {
            pfc.pause[slot].pauses_received += u64::from(quanta > 0);
            pfc.pause[slot].resumes_received += u64::from(quanta == 0);
            return;
        }
        let port = &mut self.fabric.ports[target as usize];
        if quanta == 0 {
            let pause = pfc.pause[slot];
            if pause.until > now {
                // The stretch ends: what waits in the class waited through it.
                let line = self.nic.line(target, class);
                pfc.flows.charge(port, class, pause.from, now, line);
            }
            pfc.pause[slot].on_resume(now);
            if let Some(at) = port.resume_class(now, class) {
                events.schedule(at, Event::PortTxDone { port: target }.into());
            }
            // Queue pairs wait for this class at a host's NIC: the NIC looks again when its
            // transmitter is free (`engine/nic.rs`).
            if !self.nic.line_is_empty(target, class)
                && let Some(at) = port.request_tx_done(port.class_free_at(class, now))
            {
                events.schedule(at, Event::PortTxDone { port: target }.into());
            }
        } else {
            let until = now
                + port
                    .serialization()
                    .time_for(u64::from(quanta) * QUANTUM_BYTES);
            let new_stretch = pfc.pause[slot].until <= now;
            pfc.pause[slot].on_pause(now, until);
            port.pause_class(class, until);
            // Its last picosecond: if neither refreshed nor resumed by then, it lapses.
            let last = Time(until.as_ps() - 1);
            let lapse = Event::Pfc(PfcEvent::Lapse {
                port: target,
                class: class as u8,
            });
            events.schedule(last, lapse.into());
            if new_stretch
                && let Some(at) = pfc.on_new_pause(now, &self.fabric.ports, target, class)
            {
                events.schedule(at, Event::Pfc(PfcEvent::Check).into());
            }
        }
    }

    /// The pause of `port`'s `class` may lapse at the next picosecond: if it still ends
    /// then, the flows waiting in the class are charged their paused time (stale otherwise).
    #[cold]
    pub fn on_pfc_lapse(&mut self, now: Time, port: u32, class: usize, events: &mut Events) {
        let Some(pfc) = self.pfc.as_deref_mut() else {
            return;
        };
        let Some(slot) = pfc.slot(port, class) else {
            return;
        };
        let pause = pfc.pause[slot];
        if pause.until.as_ps() != now.as_ps() + 1 {
            return;
        }
        pfc.flows.charge(
            &self.fabric.ports[port as usize],
            class,
            pause.from,
            pause.until,
            self.nic.line(port, class),
        );
        // The port looks again when the pause is over (it asked for no `TxDone` then:
        // `OutputPort::tell_pause_lapses`), for its waiting packets or a host's queue pairs.
        let line = !self.nic.line_is_empty(port, class);
        let p = &mut self.fabric.ports[port as usize];
        if let Some(at) = p.pause_lapsed(class, pause.until, line) {
            events.schedule(at, Event::PortTxDone { port }.into());
        }
    }

    /// The deadlock detector's re-check: returns whether a deadlock stops the run.
    #[cold]
    pub fn on_pfc_check(&mut self, now: Time, events: &mut Events) -> bool {
        let Some(pfc) = self.pfc.as_deref_mut() else {
            return false;
        };
        let (stop, next) = pfc.check_deadlocks(now, &self.fabric.ports);
        if let Some(at) = next {
            events.schedule(at, Event::Pfc(PfcEvent::Check).into());
        }
        stop
    }

    /// A PAUSE refresh of the input fed by `input` for `class` came due: re-sent if the input
    /// is still paused (a stale event, after a RESUME or a newer PAUSE, does nothing).
    pub fn on_pfc_refresh(&mut self, now: Time, input: u32, class: usize, events: &mut Events) {
        let Some(pfc) = self.pfc.as_deref_mut() else {
            return;
        };
        let Some(slot) = pfc.slot(input, class) else {
            return;
        };
        if pfc.refresh_at[slot] != now || !pfc.counts[slot].paused {
            return;
        }
        let quanta = pfc.plan.quanta;
        self.send_pause(now, input, class, quanta, events);
    }

    /// Whether `node` is a switch.
    #[inline]
    fn switch_bits_has(&self, node: NodeId) -> bool {
        self.switch_bits[node as usize / 64] >> (node % 64) & 1 != 0
    }

    /// Packets dropped anywhere (every reason).
    pub fn packets_dropped(&self) -> u64 {
        self.fabric
            .ports
            .iter()
            .map(|p| p.stats().drops_total())
            .sum()
    }

    /// Packets in port FIFOs (queued or propagating).
    pub fn packets_in_flight(&self) -> u64 {
        self.fabric
            .ports
            .iter()
            .map(|p| p.packets_in_port() as u64)
            .sum()
    }
}

/// Where the head packet of port `from` goes when it arrives: the port it is offered to (a
/// switch's, or the NIC of the host that answers it, `at_host`). Found by one stage of the
/// event loop's look-ahead and reused by the next (see `Simulation::prefetch_coming`).
#[derive(Clone, Copy, Debug)]
pub struct ComingHop {
    from: u32,
    next: u32,
    at_host: bool,
}

impl ComingHop {
    /// Nothing known.
    pub const NONE: ComingHop = ComingHop {
        from: u32::MAX,
        next: u32::MAX,
        at_host: false,
    };
}
