//! The network graph and its routing tables.
//!
//! Nodes are hosts or switches; every link is a pair of directed *ports* (one per direction), each
//! owned by the node that transmits on it. Routing is computed once, by breadth-first search, into
//! next-hop sets per (node, destination class), a class being, for hosts with a single link, the
//! switch they hang off: the tables grow with switches, not with nodes × hosts. Forwarding a
//! packet is a few array lookups, plus a per-flow hash when a destination has several equal-cost
//! next hops (ECMP).

use crate::packet::{FlowId, HostId};
use crate::rng::mix64;
use crate::time::Duration;
use crate::units::BitsPerSec;
use std::collections::HashMap;

/// A node (host or switch), by index in [`Topology::nodes`].
pub type NodeId = u32;
/// An output port (one direction of a link), by index in [`Topology::ports`].
pub type PortId = u32;

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A host, with its host index.
    Host(HostId),
    /// A switch, with its switch index.
    Switch(u32),
}

/// One direction of a link: transmitted by `from`, received by `to`.
#[derive(Clone, Debug, PartialEq)]
pub struct PortSpec {
    /// The node that transmits on it.
    pub from: NodeId,
    /// The node at the far end.
    pub to: NodeId,
    /// Link rate.
    pub rate: BitsPerSec,
    /// One-way propagation delay.
    pub propagation: Duration,
    /// Probability that a packet is lost on this direction of the link (Bernoulli).
    pub loss_probability: f64,
    /// The reverse direction of the same link.
    pub reverse: PortId,
}

/// The network graph: nodes and their output ports. Links are pairs of ports.
#[derive(Clone, Debug, Default)]
pub struct Topology {
    /// Every node, by node id.
    pub nodes: Vec<NodeKind>,
    /// Every output port, by port id.
    pub ports: Vec<PortSpec>,
    /// Ports transmitted by each node.
    pub ports_of: Vec<Vec<PortId>>,
    host_nodes: Vec<NodeId>,
    switch_count: u32,
}

/// Routing tables: for every (node, destination host), the set of equal-cost next-hop ports, in
/// the node's port order.
///
/// Kept per destination *class*, not per host. A host with a single link, to a switch S, is
/// reached from every node other than S exactly as S is (hosts never carry transit traffic), and
/// from S over its link: such hosts share S's class, one column of next-hop groups per routing
/// node computed by one search from S, and keep only their attachment (S, port S → host). Hosts
/// with several links, a host neighbour or explicit routes ([`Routes::set_route`]) get a class of
/// their own. *Rows* are the switches and the hosts that need one (several links, or explicit
/// routes at them); a single-linked host needs none, its next hop being its NIC port. Equal port
/// lists are stored once, as one ECMP group.
#[derive(Clone, Debug)]
pub struct Routes {
    /// Per destination host.
    dsts: Vec<Dest>,
    /// Per node: its row, or [`NIC`] | the slot in `ports` of its single port (a host without a
    /// row).
    row_of: Vec<u32>,
    rows: usize,
    /// ECMP group ids, indexed by `class * rows + row`.
    table: Vec<u32>,
    /// `(start, len)` into `ports`, per group. Group 0 is empty.
    groups: Vec<(u32, u32)>,
    ports: Vec<PortId>,
}

/// Where a destination host is reached.
#[derive(Clone, Copy, Debug)]
struct Dest {
    node: NodeId,
    /// The switch the host hangs off while it shares that switch's class ([`NONE`] with a class
    /// of its own): there, the next hop is `ports[attach_slot]`.
    attach_node: NodeId,
    attach_slot: u32,
    class: u32,
}

/// Tag of a [`Routes::row_of`] entry that is a port slot, not a row.
const NIC: u32 = 1 << 31;
const NONE: u32 = u32::MAX;

/// Why routes cannot be computed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TopologyError {
    /// A host cannot be reached from a node.
    Unreachable {
        /// The node without a path.
        from: NodeId,
        /// The host it cannot reach.
        to_host: HostId,
    },
    /// The topology has no host.
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
    /// An empty graph.
    pub fn new() -> Topology {
        Topology::default()
    }

    /// Adds a host; returns its node id and host index.
    pub fn add_host(&mut self) -> (NodeId, HostId) {
        let host = self.host_nodes.len() as HostId;
        let node = self.push_node(NodeKind::Host(host));
        self.host_nodes.push(node);
        (node, host)
    }

    /// Adds a switch; returns its node id.
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

    /// Number of hosts.
    pub fn host_count(&self) -> usize {
        self.host_nodes.len()
    }
    /// Number of switches.
    pub fn switch_count(&self) -> usize {
        self.switch_count as usize
    }
    /// The node of host `h`.
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
        let is_host = |v: NodeId| matches!(self.nodes[v as usize], NodeKind::Host(_));
        let mut groups = vec![(0u32, 0u32)];
        let mut ports = Vec::new();
        // Rows: the switches and every host but those with a single link, to a switch.
        let mut row_of = vec![0u32; n];
        let mut row_nodes = Vec::new();
        for v in 0..n as NodeId {
            match self.ports_of[v as usize][..] {
                [p] if is_host(v) && !is_host(self.ports[p as usize].to) => {
                    row_of[v as usize] = NIC | ports.len() as u32;
                    ports.push(p);
                }
                _ => {
                    row_of[v as usize] = row_nodes.len() as u32;
                    row_nodes.push(v);
                }
            }
        }
        let rows = row_nodes.len();
        // Classes, numbered in the order of their first host: the node each is searched from.
        let mut roots: Vec<NodeId> = Vec::new();
        let mut first_host: Vec<HostId> = Vec::new();
        let mut class_of_switch = vec![NONE; n];
        let mut dsts = Vec::with_capacity(hosts);
        for (h, &node) in self.host_nodes.iter().enumerate() {
            let dest = if row_of[node as usize] & NIC != 0 {
                let link = &self.ports[self.ports_of[node as usize][0] as usize];
                let sw = link.to as usize;
                if class_of_switch[sw] == NONE {
                    class_of_switch[sw] = roots.len() as u32;
                    roots.push(link.to);
                    first_host.push(h as HostId);
                }
                ports.push(link.reverse);
                Dest {
                    node,
                    attach_node: link.to,
                    attach_slot: ports.len() as u32 - 1,
                    class: class_of_switch[sw],
                }
            } else {
                roots.push(node);
                first_host.push(h as HostId);
                Dest {
                    node,
                    attach_node: NONE,
                    attach_slot: NONE,
                    class: roots.len() as u32 - 1,
                }
            };
            dsts.push(dest);
        }
        // Each node's (port, far end) pairs, contiguous, and which nodes are hosts: the searches
        // below read them twice per class (512 classes of 1,280 switches on a k = 32 fat-tree),
        // and the port specs they came from are 48 bytes apiece, scattered.
        let mut adj_start = Vec::with_capacity(n + 1);
        let mut adj: Vec<(PortId, NodeId)> = Vec::with_capacity(self.ports.len());
        for v in 0..n {
            adj_start.push(adj.len());
            adj.extend(
                self.ports_of[v]
                    .iter()
                    .map(|&p| (p, self.ports[p as usize].to)),
            );
        }
        adj_start.push(adj.len());
        let neighbours = |v: NodeId| &adj[adj_start[v as usize]..adj_start[v as usize + 1]];
        let host: Vec<bool> = (0..n as NodeId).map(is_host).collect();
        let mut table = vec![0u32; roots.len() * rows];
        let mut dedup: HashMap<Vec<PortId>, u32> = HashMap::new();
        let mut hops = Vec::new();
        let mut dist = vec![u32::MAX; n];
        let mut queue: Vec<NodeId> = Vec::with_capacity(n);
        for (c, &root) in roots.iter().enumerate() {
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[root as usize] = 0;
            queue.clear();
            queue.push(root);
            let mut next = 0;
            // BFS over reversed edges: a node's distance to the root. Hosts do not forward transit
            // traffic, so only a root host is expanded among hosts. A host behind a switch root
            // is one hop further from every node but that switch, so the next hops are the same.
            while let Some(&v) = queue.get(next) {
                next += 1;
                if v != root && host[v as usize] {
                    continue;
                }
                let d = dist[v as usize] + 1;
                // A port v -> u has its reverse u -> v: u is one hop further from the root.
                for &(_, u) in neighbours(v) {
                    if dist[u as usize] == u32::MAX {
                        dist[u as usize] = d;
                        queue.push(u);
                    }
                }
            }
            if let Some(v) = dist.iter().position(|&d| d == u32::MAX) {
                return Err(TopologyError::Unreachable {
                    from: v as NodeId,
                    to_host: first_host[c],
                });
            }
            let (done, rest) = table.split_at_mut(c * rows);
            let previous = done.get(done.len().wrapping_sub(rows)..);
            let column = &mut rest[..rows];
            for (row, &v) in row_nodes.iter().enumerate() {
                if v == root {
                    continue; // group 0: a destination itself, or a switch's attached hosts
                }
                hops.clear();
                let want = dist[v as usize];
                for &(p, u) in neighbours(v) {
                    let transit_ok = u == root || !host[u as usize];
                    if transit_ok && dist[u as usize] + 1 == want {
                        hops.push(p);
                    }
                }
                // Most rows keep the previous class's group (every destination outside a pod
                // is reached over the same up-ports): equal lists are one group, so that group
                // is the one the map would find.
                if let Some(&g) = previous.and_then(|column| column.get(row))
                    && g != 0
                {
                    let (start, len) = groups[g as usize];
                    if ports[start as usize..(start + len) as usize] == hops[..] {
                        column[row] = g;
                        continue;
                    }
                }
                column[row] = match dedup.get(&hops[..]) {
                    Some(&g) => g,
                    None => {
                        let g = groups.len() as u32;
                        groups.push((ports.len() as u32, hops.len() as u32));
                        ports.extend_from_slice(&hops);
                        dedup.insert(hops.clone(), g);
                        g
                    }
                };
            }
        }
        Ok(Routes {
            dsts,
            row_of,
            rows,
            table,
            groups,
            ports,
        })
    }
}

impl Routes {
    /// `(start, len)` in `ports` of the next hops from `node` towards `dst` (`node` not `dst`'s
    /// own node).
    #[inline(always)]
    fn slots(&self, node: NodeId, dst: HostId) -> (u32, u32) {
        let d = &self.dsts[dst as usize];
        if node == d.attach_node {
            return (d.attach_slot, 1);
        }
        let row = self.row_of[node as usize];
        if row & NIC != 0 {
            return (row & !NIC, 1);
        }
        self.groups[self.table[d.class as usize * self.rows + row as usize] as usize]
    }

    fn push_group(&mut self, start: u32, len: u32) -> u32 {
        self.groups.push((start, len));
        self.groups.len() as u32 - 1
    }

    /// Gives `dst` a class of its own, a copy of the one it shares, so its routes can change alone.
    fn own_class(&mut self, dst: HostId) {
        let d = self.dsts[dst as usize];
        if d.attach_node == NONE {
            return;
        }
        let rows = self.rows;
        let c = self.table.len() / rows;
        let from = d.class as usize * rows;
        self.table.extend_from_within(from..from + rows);
        let g = self.push_group(d.attach_slot, 1);
        self.table[c * rows + self.row_of[d.attach_node as usize] as usize] = g;
        self.dsts[dst as usize] = Dest {
            attach_node: NONE,
            class: c as u32,
            ..d
        };
    }

    /// Gives `node`, a host with a single link and no row yet, a row: its port towards every
    /// other host, none towards itself.
    fn add_row(&mut self, node: NodeId) {
        let host = self.dsts.iter().position(|d| d.node == node).unwrap() as HostId;
        self.own_class(host);
        let nic = self.push_group(self.row_of[node as usize] & !NIC, 1);
        let rows = self.rows;
        let mut table = Vec::with_capacity(self.table.len() / rows * (rows + 1));
        for column in self.table.chunks_exact(rows) {
            table.extend_from_slice(column);
            table.push(nic);
        }
        table[self.dsts[host as usize].class as usize * (rows + 1) + rows] = 0;
        self.table = table;
        self.row_of[node as usize] = rows as u32;
        self.rows = rows + 1;
    }

    /// Replaces the next hops from `node` towards `dst` with the single port `port`.
    pub fn set_route(&mut self, node: NodeId, dst: HostId, port: PortId) {
        self.own_class(dst);
        if self.row_of[node as usize] & NIC != 0 {
            self.add_row(node);
        }
        self.ports.push(port);
        let g = self.push_group(self.ports.len() as u32 - 1, 1);
        let class = self.dsts[dst as usize].class as usize;
        self.table[class * self.rows + self.row_of[node as usize] as usize] = g;
    }

    /// All equal-cost next-hop ports from `node` towards host `dst`.
    pub fn next_hops(&self, node: NodeId, dst: HostId) -> &[PortId] {
        if node == self.dsts[dst as usize].node && self.row_of[node as usize] & NIC != 0 {
            return &[];
        }
        let (s, l) = self.slots(node, dst);
        &self.ports[s as usize..(s + l) as usize]
    }

    /// The class of `dst`. Hosts of one class have the same next hops at every node except the
    /// switch they hang off, which sends each down its own link: routes to one of them loop, or
    /// end at another host, exactly when routes to each of them do.
    pub fn class_of(&self, dst: HostId) -> usize {
        self.dsts[dst as usize].class as usize
    }

    /// The number of destination classes.
    pub fn class_count(&self) -> usize {
        self.table.len() / self.rows
    }

    /// Static routing: the next hop is chosen by destination (index = dst mod count), so every
    /// flow to one host takes the same path.
    #[inline]
    pub fn next_hop_static(&self, node: NodeId, dst: HostId) -> PortId {
        let (s, l) = self.slots(node, dst);
        debug_assert!(l > 0, "no route from node {node} to host {dst}");
        self.ports[(s + dst % l) as usize]
    }

    /// The port a packet of `flow` takes from `node` towards `dst`: per-flow ECMP hashing keeps
    /// every flow on one path (no reordering) while spreading flows over all equal-cost paths.
    #[inline]
    pub fn next_hop(&self, node: NodeId, dst: HostId, flow: FlowId, salt: u64) -> PortId {
        let (s, l) = self.slots(node, dst);
        debug_assert!(l > 0, "no route from node {node} to host {dst}");
        let i = if l == 1 {
            0
        } else {
            (mix64(flow as u64 ^ salt ^ ((node as u64) << 32)) % l as u64) as u32
        };
        self.ports[(s + i) as usize]
    }
}

#[cfg(test)]
mod tests;
