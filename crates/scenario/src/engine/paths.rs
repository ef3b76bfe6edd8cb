//! Each flow's path, computed once per direction when its first packet leaves the sender's
//! host, then followed by a cursor in the packet ([`incastsim_core::Packet::hop`]): a switch
//! forwards with one load from a line the flow's packets keep warm, instead of the routing
//! table's dependent loads (destination, row, group, ports) and the ECMP hash with its 64-bit
//! modulo at every hop. At k = 32 the table walk was ~4 cache misses per hop.
//!
//! The path is exactly the ports [`Routes::next_hop`] (or [`Routes::next_hop_static`]) picks at
//! each switch: the same hash of (flow, salt, node), walked once. Routes never change during a
//! run, so forwarding by the path and by the table agree packet for packet (checked in debug
//! builds at every hop). Packet spraying draws per packet and keeps the table walk.

use crate::config::RoutingConfig;
use crate::plan::fabric::Fabric;
use incastsim_core::{FlowId, HostId, NO_PATH, NodeId, NodeKind, Routes};

/// Switch hops a cached path holds (a fat-tree's longest path has 5: edge, aggregation, core,
/// aggregation, edge). A longer path is routed by the tables.
pub(crate) const MAX_HOPS: usize = 6;

/// Unused direction.
const NONE: u32 = u32::MAX;

/// One flow's paths: up to two (source, destination) directions (data and ACKs), one cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct FlowPath {
    /// Per direction: the sending host and the destination host (`NONE`: unused).
    src: [u32; 2],
    dst: [u32; 2],
    /// The output port chosen at each switch: direction d's hops are `ports[d * MAX_HOPS..]`,
    /// so a packet's cursor indexes this array directly.
    ports: [u32; 2 * MAX_HOPS],
}

const EMPTY: FlowPath = FlowPath {
    src: [NONE; 2],
    dst: [NONE; 2],
    ports: [NONE; 2 * MAX_HOPS],
};

/// The flows' cached paths, by flow id (grown as flows first send).
#[derive(Debug, Default)]
pub(crate) struct FlowPaths {
    /// Off for packet spraying (every packet draws its own next hops).
    on: bool,
    paths: Vec<FlowPath>,
}

impl FlowPaths {
    /// Paths for `routing`: per-flow ECMP and static routing are deterministic per flow.
    pub(crate) fn new(routing: RoutingConfig) -> FlowPaths {
        FlowPaths {
            on: matches!(routing, RoutingConfig::Ecmp | RoutingConfig::Static),
            paths: Vec::new(),
        }
    }

    /// The cursor of a packet of `flow` that host `src` sends to `dst` (computing the path on
    /// the direction's first packet); [`NO_PATH`] when the flow has no cached path for it.
    #[inline(always)]
    pub(crate) fn start(&mut self, fabric: &Fabric, flow: FlowId, src: HostId, dst: HostId) -> u8 {
        if !self.on {
            return NO_PATH;
        }
        if let Some(e) = self.paths.get(flow as usize) {
            for d in 0..2 {
                if e.dst[d] == dst && e.src[d] == src {
                    return (d * MAX_HOPS) as u8;
                }
            }
        }
        self.add(fabric, flow, src, dst)
    }

    /// Walks and stores the path of a new direction of `flow`.
    #[cold]
    #[inline(never)]
    fn add(&mut self, fabric: &Fabric, flow: FlowId, src: HostId, dst: HostId) -> u8 {
        let f = flow as usize;
        if self.paths.len() <= f {
            self.paths.resize(f + 1, EMPTY);
        }
        let Some(d) = self.paths[f].dst.iter().position(|&x| x == NONE) else {
            return NO_PATH; // a third direction: route by the tables
        };
        let mut hops = [NONE; MAX_HOPS];
        let mut node = fabric.ports[fabric.host_port[src as usize] as usize].to;
        let mut n = 0;
        while let NodeKind::Switch(_) = fabric.nodes[node as usize] {
            if n == MAX_HOPS {
                return NO_PATH;
            }
            let port = table_hop(fabric, node, dst, flow);
            hops[n] = port;
            n += 1;
            node = fabric.ports[port as usize].to;
        }
        let e = &mut self.paths[f];
        e.src[d] = src;
        e.dst[d] = dst;
        e.ports[d * MAX_HOPS..(d + 1) * MAX_HOPS].copy_from_slice(&hops);
        (d * MAX_HOPS) as u8
    }

    /// The next port of a packet of `flow` whose cursor is `hop` (not [`NO_PATH`]).
    #[inline(always)]
    pub(crate) fn try_port(&self, flow: FlowId, hop: u8) -> Option<u32> {
        self.paths
            .get(flow as usize)?
            .ports
            .get(hop as usize)
            .copied()
    }

    /// Cache hint: the entry [`FlowPaths::try_port`] will read.
    #[inline(always)]
    pub(crate) fn prefetch(&self, flow: FlowId, hop: u8) {
        if let Some(p) = self.paths.get(flow as usize)
            && let Some(port) = p.ports.get(hop as usize)
        {
            incastsim_core::prefetch(port);
        }
    }

    #[inline(always)]
    pub(crate) fn port(&self, flow: FlowId, hop: u8) -> u32 {
        self.paths[flow as usize].ports[hop as usize]
    }
}

/// The port the routing table gives at `node` (ECMP or static; not spraying).
pub(crate) fn table_hop(fabric: &Fabric, node: NodeId, dst: HostId, flow: FlowId) -> u32 {
    let routes: &Routes = &fabric.routes;
    match fabric.routing {
        RoutingConfig::Static => routes.next_hop_static(node, dst),
        _ => routes.next_hop(node, dst, flow, fabric.ecmp_salt),
    }
}
