//! The network part of the engine: packets move between output ports. A packet reaching the far
//! end of a link either arrives at a switch, which forwards it (ECMP per flow, or sprayed per
//! packet) to its next output port, or at a host, which is news handed back to the engine.
//! Admission drops are news too. A port of a shared-buffer switch asks its switch's buffer
//! (`Fabric::shared_buffers`, by the index the port holds) before its own discipline.

use super::capture::Capture;
use super::event::Event;
use crate::config::RoutingConfig;
use crate::diagnostics::{Diagnostics, LOCAL_INPUT};
use crate::fabric::Fabric;
use incastsim_core::{
    EventQueue, HostId, NodeId, NodeKind, Packet, PacketKind, Routes, SimRng, Time,
};
use incastsim_switch::Enqueued;

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

/// Counters for the conservation invariant: sent = delivered + dropped + in flight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacketCounters {
    /// Packets hosts handed to their NIC.
    pub sent: u64,
    /// Packets that reached their destination host.
    pub delivered: u64,
    /// Packets switches handed to an output port.
    pub forwarded: u64,
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
    /// Packets copied for pcap traces (off unless the config has `pcap:`).
    pub capture: Capture,
}

impl Network {
    /// The network of `fabric`, capturing what `capture` asks for.
    pub fn new(fabric: Fabric, capture: Capture) -> Network {
        Network {
            fabric,
            counters: PacketCounters::default(),
            capture,
        }
    }

    /// The head packet of `port` reaches the node at the far end of the link. Always inlined,
    /// as `send_from_host`: with the capture test in them the compiler stopped inlining them
    /// (S3: +3.4 % instructions; forced: +2.0 %).
    #[inline(always)]
    pub fn on_head_arrival(
        &mut self,
        now: Time,
        port: u32,
        events: &mut EventQueue<Event>,
        diag: &mut Diagnostics,
    ) -> Arrival {
        let p = &mut self.fabric.ports[port as usize];
        let to = p.to;
        let arrival = p.pop_arrival(now);
        if let Some(at) = arrival.next_head_at {
            events.schedule(at, Event::PortHead { port });
        }
        let at_switch = matches!(self.fabric.nodes[to as usize], NodeKind::Switch(_));
        if self.capture.on
            && let Some(packet) = &arrival.packet
        {
            self.capture.on_arrival(now, port, packet, !at_switch);
        }
        if at_switch && let Some(packet) = arrival.packet {
            return Arrival {
                at_host: None,
                dropped: self.forward(now, to, packet, port, events, diag),
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
        }
        Arrival {
            at_host: arrival.packet,
            dropped: None,
        }
    }

    /// A strict-priority port finished a transmission and picks the next packet.
    pub fn on_tx_done(&mut self, now: Time, port: u32, events: &mut EventQueue<Event>) {
        let done = self.fabric.ports[port as usize].on_tx_done(now);
        if let Some(at) = done.schedule_head_at {
            events.schedule(at, Event::PortHead { port });
        }
        if let Some(at) = done.schedule_tx_done_at {
            events.schedule(at, Event::PortTxDone { port });
        }
    }

    /// A host hands a packet to its NIC.
    #[inline(always)]
    pub fn send_from_host(
        &mut self,
        now: Time,
        host: HostId,
        packet: Packet,
        events: &mut EventQueue<Event>,
        diag: &mut Diagnostics,
    ) -> Option<AdmissionDrop> {
        self.counters.sent += 1;
        if self.capture.on {
            self.capture.on_host_send(now, host, &packet);
        }
        let port = self.fabric.host_port[host as usize];
        self.enqueue(now, port, packet, LOCAL_INPUT, events, diag)
    }

    /// A switch picks the output port (ECMP per flow) and offers the packet to it; `input` is
    /// the port the packet arrived on.
    #[inline]
    fn forward(
        &mut self,
        now: Time,
        node: NodeId,
        packet: Packet,
        input: u32,
        events: &mut EventQueue<Event>,
        diag: &mut Diagnostics,
    ) -> Option<AdmissionDrop> {
        let f = &mut self.fabric;
        let port = match f.routing {
            RoutingConfig::Ecmp => f
                .routes
                .next_hop(node, packet.dst, packet.flow, f.ecmp_salt),
            RoutingConfig::Static => f.routes.next_hop_static(node, packet.dst),
            RoutingConfig::PacketSpray => {
                spray(&f.routes, &mut f.spray[node as usize], node, packet.dst)
            }
        };
        self.counters.forwarded += 1;
        self.enqueue(now, port, packet, input, events, diag)
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
        packet: Packet,
        input: u32,
        events: &mut EventQueue<Event>,
        diag: &mut Diagnostics,
    ) -> Option<AdmissionDrop> {
        let (flow, kind) = (packet.flow, packet.kind);
        let f = &mut self.fabric;
        let shared = f.ports[port as usize].shared_buffer();
        let wire = packet.wire_bytes() as u64;
        if let Some((pool, slot)) = shared
            && let Err(reason) =
                f.shared_buffers[pool as usize].admit(&mut f.ports, slot, now, wire)
        {
            f.ports[port as usize].refuse(&packet, reason);
            return Some(AdmissionDrop {
                port,
                input,
                flow,
                kind,
            });
        }
        let offered = f.ports[port as usize].enqueue(now, packet);
        if let Some((pool, slot)) = shared {
            let taken = matches!(offered, Enqueued::Admitted { .. });
            f.shared_buffers[pool as usize].after_offer(&mut f.ports, slot, wire, taken);
        }
        if let Enqueued::Admitted {
            schedule_head_at,
            schedule_tx_done_at,
        } = offered
        {
            diag.on_admitted(port, input, flow, kind);
            if let Some(at) = schedule_head_at {
                events.schedule(at, Event::PortHead { port });
            }
            if let Some(at) = schedule_tx_done_at {
                events.schedule(at, Event::PortTxDone { port });
            }
            None
        } else {
            Some(AdmissionDrop {
                port,
                input,
                flow,
                kind,
            })
        }
    }

    /// Packets dropped anywhere (every reason).
    pub fn packets_dropped(&self) -> u64 {
        self.fabric
            .ports
            .iter()
            .map(|p| p.stats.drops_total())
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
