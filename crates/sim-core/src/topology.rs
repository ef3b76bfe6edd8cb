//! The network graph and its routing tables.
//!
//! Nodes are hosts or switches; every link is a pair of directed *ports* (one per direction), each
//! owned by the node that transmits on it. Routing is computed once, by breadth-first search from
//! every destination host, into per-node next-hop sets: forwarding a packet is then two array
//! lookups, plus a per-flow hash when a destination has several equal-cost next hops (ECMP).

use crate::packet::{FlowId, HostId};
use crate::rng::mix64;
use crate::time::Duration;
use crate::units::BitsPerSec;
use std::collections::VecDeque;

pub type NodeId = u32;
pub type PortId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host(HostId),
    Switch(u32),
}

/// One direction of a link: transmitted by `from`, received by `to`.
#[derive(Clone, Debug, PartialEq)]
pub struct PortSpec {
    pub from: NodeId,
    pub to: NodeId,
    pub rate: BitsPerSec,
    pub propagation: Duration,
    /// Probability that a packet is lost on this direction of the link (Bernoulli).
    pub loss_probability: f64,
    /// The reverse direction of the same link.
    pub reverse: PortId,
}

#[derive(Clone, Debug, Default)]
pub struct Topology {
    pub nodes: Vec<NodeKind>,
    pub ports: Vec<PortSpec>,
    /// Ports transmitted by each node.
    pub ports_of: Vec<Vec<PortId>>,
    host_nodes: Vec<NodeId>,
    switch_count: u32,
}

/// Routing tables: for every (node, destination host), the set of equal-cost next-hop ports.
#[derive(Clone, Debug)]
pub struct Routes {
    hosts: usize,
    /// `(start, len)` into `next_hops`, indexed by `node * hosts + dst`.
    ranges: Vec<(u32, u32)>,
    next_hops: Vec<PortId>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TopologyError {
    Unreachable { from: NodeId, to_host: HostId },
    NoHosts,
}

impl std::error::Error for TopologyError {}

impl std::fmt::Display for TopologyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TopologyError::Unreachable { from, to_host } => {
                write!(
                    f,
                    "node {from} cannot reach host {to_host}: the topology is disconnected"
                )
            }
            TopologyError::NoHosts => write!(f, "the topology has no hosts"),
        }
    }
}

impl Topology {
    pub fn new() -> Topology {
        Topology::default()
    }

    pub fn add_host(&mut self) -> (NodeId, HostId) {
        let host = self.host_nodes.len() as HostId;
        let node = self.push_node(NodeKind::Host(host));
        self.host_nodes.push(node);
        (node, host)
    }

    pub fn add_switch(&mut self) -> NodeId {
        let s = self.switch_count;
        self.switch_count += 1;
        self.push_node(NodeKind::Switch(s))
    }

    fn push_node(&mut self, kind: NodeKind) -> NodeId {
        self.nodes.push(kind);
        self.ports_of.push(Vec::new());
        (self.nodes.len() - 1) as NodeId
    }

    /// Adds a full-duplex link; returns the port ids (a→b, b→a).
    pub fn connect(
        &mut self,
        a: NodeId,
        b: NodeId,
        rate: BitsPerSec,
        propagation: Duration,
        loss_probability: f64,
    ) -> (PortId, PortId) {
        let ab = self.ports.len() as PortId;
        let ba = ab + 1;
        self.ports.push(PortSpec {
            from: a,
            to: b,
            rate,
            propagation,
            loss_probability,
            reverse: ba,
        });
        self.ports.push(PortSpec {
            from: b,
            to: a,
            rate,
            propagation,
            loss_probability,
            reverse: ab,
        });
        self.ports_of[a as usize].push(ab);
        self.ports_of[b as usize].push(ba);
        (ab, ba)
    }

    pub fn host_count(&self) -> usize {
        self.host_nodes.len()
    }
    pub fn switch_count(&self) -> usize {
        self.switch_count as usize
    }
    pub fn node_of_host(&self, h: HostId) -> NodeId {
        self.host_nodes[h as usize]
    }

    /// Shortest-path (hop count) routes with all equal-cost next hops kept, in port order.
    pub fn compute_routes(&self) -> Result<Routes, TopologyError> {
        let hosts = self.host_nodes.len();
        if hosts == 0 {
            return Err(TopologyError::NoHosts);
        }
        let n = self.nodes.len();
        let mut ranges = vec![(0u32, 0u32); n * hosts];
        let mut next_hops = Vec::new();
        let mut dist = vec![u32::MAX; n];
        let mut queue = VecDeque::new();
        for (dst, &dst_node) in self.host_nodes.iter().enumerate() {
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[dst_node as usize] = 0;
            queue.clear();
            queue.push_back(dst_node);
            // BFS over reversed edges: a node's distance to dst. Hosts do not forward transit
            // traffic, so only the destination host itself is expanded among hosts.
            while let Some(v) = queue.pop_front() {
                if v != dst_node && matches!(self.nodes[v as usize], NodeKind::Host(_)) {
                    continue;
                }
                for &p in &self.ports_of[v as usize] {
                    // Port p goes v -> u, so its reverse goes u -> v.
                    let u = self.ports[p as usize].to;
                    if dist[u as usize] == u32::MAX {
                        dist[u as usize] = dist[v as usize] + 1;
                        queue.push_back(u);
                    }
                }
            }
            for v in 0..n {
                if v as NodeId == dst_node {
                    continue;
                }
                if dist[v] == u32::MAX {
                    return Err(TopologyError::Unreachable {
                        from: v as NodeId,
                        to_host: dst as HostId,
                    });
                }
                let start = next_hops.len() as u32;
                for &p in &self.ports_of[v] {
                    let u = self.ports[p as usize].to as usize;
                    let transit_ok =
                        u as NodeId == dst_node || !matches!(self.nodes[u], NodeKind::Host(_));
                    if transit_ok && dist[u] != u32::MAX && dist[u] + 1 == dist[v] {
                        next_hops.push(p);
                    }
                }
                let len = next_hops.len() as u32 - start;
                ranges[v * hosts + dst] = (start, len);
            }
        }
        Ok(Routes {
            hosts,
            ranges,
            next_hops,
        })
    }
}

impl Routes {
    /// Replaces the next hops from `node` towards `dst` with the single port `port`.
    pub fn set_route(&mut self, node: NodeId, dst: HostId, port: PortId) {
        let start = self.next_hops.len() as u32;
        self.next_hops.push(port);
        self.ranges[node as usize * self.hosts + dst as usize] = (start, 1);
    }

    /// All equal-cost next-hop ports from `node` towards host `dst`.
    pub fn next_hops(&self, node: NodeId, dst: HostId) -> &[PortId] {
        let (s, l) = self.ranges[node as usize * self.hosts + dst as usize];
        &self.next_hops[s as usize..(s + l) as usize]
    }

    /// Static routing: the next hop is chosen by destination (index = dst mod count), so every
    /// flow to one host takes the same path.
    #[inline]
    pub fn next_hop_static(&self, node: NodeId, dst: HostId) -> PortId {
        let (s, l) = self.ranges[node as usize * self.hosts + dst as usize];
        debug_assert!(l > 0, "no route from node {node} to host {dst}");
        self.next_hops[(s + dst % l) as usize]
    }

    /// The port a packet of `flow` takes from `node` towards `dst`: per-flow ECMP hashing keeps
    /// every flow on one path (no reordering) while spreading flows over all equal-cost paths.
    #[inline]
    pub fn next_hop(&self, node: NodeId, dst: HostId, flow: FlowId, salt: u64) -> PortId {
        let (s, l) = self.ranges[node as usize * self.hosts + dst as usize];
        debug_assert!(l > 0, "no route from node {node} to host {dst}");
        let i = if l == 1 {
            0
        } else {
            (mix64(flow as u64 ^ salt ^ ((node as u64) << 32)) % l as u64) as u32
        };
        self.next_hops[(s + i) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn star(n: usize) -> (Topology, NodeId) {
        let mut t = Topology::new();
        let sw = t.add_switch();
        for _ in 0..n {
            let (h, _) = t.add_host();
            t.connect(h, sw, BitsPerSec::gbps(1), Duration::from_us(25), 0.0);
        }
        (t, sw)
    }

    #[test]
    fn star_routes_go_through_the_switch() {
        let (t, sw) = star(4);
        let r = t.compute_routes().unwrap();
        for h in 0..4u32 {
            let hn = t.node_of_host(h);
            for d in 0..4u32 {
                if d == h {
                    continue;
                }
                let p = r.next_hop(hn, d, 0, 0);
                assert_eq!(t.ports[p as usize].to, sw);
                let q = r.next_hop(sw, d, 0, 0);
                assert_eq!(t.ports[q as usize].to, t.node_of_host(d));
            }
        }
    }

    #[test]
    fn equal_cost_paths_are_all_kept() {
        // h0 - s0 = {s1, s2} = s3 - h1 : two equal-cost paths.
        let mut t = Topology::new();
        let (h0, _) = t.add_host();
        let (h1, _) = t.add_host();
        let s: Vec<NodeId> = (0..4).map(|_| t.add_switch()).collect();
        let r1 = BitsPerSec::gbps(1);
        let d = Duration::from_us(1);
        t.connect(h0, s[0], r1, d, 0.0);
        t.connect(s[0], s[1], r1, d, 0.0);
        t.connect(s[0], s[2], r1, d, 0.0);
        t.connect(s[1], s[3], r1, d, 0.0);
        t.connect(s[2], s[3], r1, d, 0.0);
        t.connect(s[3], h1, r1, d, 0.0);
        let r = t.compute_routes().unwrap();
        assert_eq!(r.next_hops(s[0], 1).len(), 2);
        let used: std::collections::BTreeSet<_> =
            (0..64).map(|f| r.next_hop(s[0], 1, f, 0)).collect();
        assert_eq!(used.len(), 2, "ECMP uses both paths");
        assert_eq!(
            r.next_hop(s[0], 1, 5, 0),
            r.next_hop(s[0], 1, 5, 0),
            "one path per flow"
        );
    }

    #[test]
    fn disconnected_is_an_error() {
        let mut t = Topology::new();
        t.add_host();
        t.add_host();
        assert!(matches!(
            t.compute_routes(),
            Err(TopologyError::Unreachable { .. })
        ));
    }
}
