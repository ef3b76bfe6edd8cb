//! The built network as the engine runs it: nodes, output ports, routes and names. Built once by
//! the [`crate::plan`], owned by the engine's network part, read by results (paths, names).

use crate::plan::traffic::Hop;
use incastsim_core::{Duration, HostId, NodeId, NodeKind, Routes, SimRng};
use incastsim_switch::{OutputPort, SharedBuffer};

/// The network as the engine runs it: nodes, ports (with their queues), routes and shared buffers.
pub struct Fabric {
    /// Host or switch, by node id.
    pub nodes: Vec<NodeKind>,
    /// "host3", "switch0", by node id.
    pub node_names: Vec<String>,
    /// Every output port, by port index.
    pub ports: Vec<OutputPort>,
    /// The node each port leaves (a port's `to` is in the port).
    pub port_from: Vec<NodeId>,
    /// Next-hop ports per (node, destination host), with ECMP choices.
    pub routes: Routes,
    /// Per-run salt of the ECMP hash (`Stream::Ecmp`).
    pub ecmp_salt: u64,
    /// How a switch picks among equal-cost ports (`topology.routing`).
    pub routing: crate::config::RoutingConfig,
    /// `topology.routing: packet_spray`: one random stream per node (`Stream::Spray`, instance
    /// = node id) picks each packet's next hop; empty otherwise.
    pub spray: Vec<SimRng>,
    /// The shared buffers (`topology.shared_buffer`), one per shared-buffer switch in node
    /// order; each of their ports holds its buffer's index.
    pub shared_buffers: Vec<SharedBuffer>,
    /// The switch of each shared buffer.
    pub shared_buffer_switch: Vec<NodeId>,
    /// Each host's NIC port.
    pub host_port: Vec<u32>,
}

impl Fabric {
    /// "from->to" of port `p`, as in ports.csv and `time_series.ports`.
    pub fn port_name(&self, p: u32) -> String {
        let p = p as usize;
        format!(
            "{}->{}",
            self.node_names[self.port_from[p] as usize], self.node_names[self.ports[p].to as usize]
        )
    }

    /// The one-way latency of a `bytes`-byte message from host `src` to host `dst` on the
    /// static route with no queueing: at each hop, its serialization plus the hop's latency
    /// (propagation and the next node's processing delay). A flow dependency's control message
    /// ([`crate::plan::traffic::depend::ControlLatency::Path`]); walks the route without
    /// allocating.
    pub fn message_latency(&self, src: HostId, dst: HostId, bytes: u64) -> Duration {
        let mut total = Duration::ZERO;
        let mut port = self.host_port[src as usize];
        loop {
            let p = &self.ports[port as usize];
            total = total + p.serialization().time_for(bytes) + p.latency();
            match self.nodes[p.to as usize] {
                NodeKind::Host(_) => return total,
                NodeKind::Switch(_) => port = self.routes.next_hop_static(p.to, dst),
            }
        }
    }

    /// The hops (output ports) from host `src` to host `dst` on the static route.
    pub fn path(&self, src: HostId, dst: HostId) -> Vec<Hop> {
        let mut hops = Vec::new();
        let mut port = self.host_port[src as usize];
        loop {
            let p = &self.ports[port as usize];
            hops.push(Hop {
                serialization: p.serialization(),
                latency: p.latency(),
            });
            match self.nodes[p.to as usize] {
                NodeKind::Host(_) => return hops,
                NodeKind::Switch(_) => port = self.routes.next_hop_static(p.to, dst),
            }
        }
    }
}
