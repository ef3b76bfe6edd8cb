//! Turns a validated [`Config`] into a topology with host roles.

use crate::config::{Config, TopologyConfig};
use crate::units::Buffer;
use incastsim_core::{BitsPerSec, Duration, HostId, NodeId, Topology};
use incastsim_switch::BufferLimit;

/// A built topology and which hosts play which role.
pub struct BuiltTopology {
    pub topology: Topology,
    /// Sending servers, one per sender.
    pub servers: Vec<HostId>,
    /// Receiving clients (one for a star).
    pub clients: Vec<HostId>,
}

pub fn buffer_limit(b: Buffer) -> BufferLimit {
    match b {
        Buffer::Bytes(n) => BufferLimit::Bytes(n),
        Buffer::Packets(n) => BufferLimit::Packets(n),
        Buffer::Unlimited => BufferLimit::Unlimited,
    }
}

pub fn build_topology(cfg: &Config) -> BuiltTopology {
    let l = cfg.topology.links();
    let (rate, delay, loss) = (l.link_rate.0, l.link_delay.0, l.link_loss);
    let mut t = Topology::new();
    let mut servers = Vec::with_capacity(cfg.senders as usize);
    let mut clients = Vec::new();
    let attach = |t: &mut Topology, sw: NodeId, list: &mut Vec<HostId>| {
        let (node, host) = t.add_host();
        t.connect(node, sw, rate, delay, loss);
        list.push(host);
    };
    match &cfg.topology {
        TopologyConfig::Star(_) => {
            let sw = t.add_switch();
            for _ in 0..cfg.senders {
                attach(&mut t, sw, &mut servers);
            }
            attach(&mut t, sw, &mut clients);
        }
        TopologyConfig::Dumbbell(d) => {
            let left = t.add_switch();
            let right = t.add_switch();
            for _ in 0..cfg.senders {
                attach(&mut t, left, &mut servers);
            }
            for _ in 0..d.receivers {
                attach(&mut t, right, &mut clients);
            }
            let b_rate = d.bottleneck_rate.map_or(rate, |r| r.0);
            let b_delay = d.bottleneck_delay.map_or(delay, |x| x.0);
            t.connect(left, right, b_rate, b_delay, loss);
        }
        TopologyConfig::FatTree(f) => {
            let hosts = fat_tree(&mut t, f.k, rate, delay, loss);
            (servers, clients) = place(cfg, &hosts, f.receiver_host, f.sender_hosts.as_deref());
        }
        TopologyConfig::Tree(tc) => {
            let agg = t.add_switch();
            let uplink = tc.uplink_rate.map_or(rate, |r| r.0);
            let mut hosts = Vec::new();
            for _ in 0..tc.racks {
                let tor = t.add_switch();
                t.connect(tor, agg, uplink, delay, loss);
                for _ in 0..tc.hosts_per_rack {
                    let (node, host) = t.add_host();
                    t.connect(node, tor, rate, delay, loss);
                    hosts.push(host);
                }
            }
            (servers, clients) = place(cfg, &hosts, tc.receiver_host, tc.sender_hosts.as_deref());
        }
    }
    BuiltTopology {
        topology: t,
        servers,
        clients,
    }
}

/// The name of every node ("host3", "switch0"), indexed by node id.
pub fn node_names(t: &Topology) -> Vec<String> {
    t.nodes
        .iter()
        .map(|n| match n {
            incastsim_core::NodeKind::Host(h) => format!("host{h}"),
            incastsim_core::NodeKind::Switch(s) => format!("switch{s}"),
        })
        .collect()
}

/// The name of every port ("switch0->host16"), indexed by port id.
pub fn port_names(t: &Topology) -> Vec<String> {
    let nodes = node_names(t);
    t.ports
        .iter()
        .map(|p| format!("{}->{}", nodes[p.from as usize], nodes[p.to as usize]))
        .collect()
}

/// Builds a k-ary fat-tree (Al-Fares et al.): k pods of k/2 edge and k/2 aggregation switches,
/// (k/2)² core switches; edge e of pod p serves k/2 hosts; aggregation switch i of every pod
/// connects to cores i·k/2 .. (i+1)·k/2 − 1. Hosts are numbered pod by pod, edge by edge.
pub fn fat_tree(
    t: &mut Topology,
    k: u32,
    rate: BitsPerSec,
    delay: Duration,
    loss: f64,
) -> Vec<HostId> {
    let half = k / 2;
    let cores: Vec<NodeId> = (0..half * half).map(|_| t.add_switch()).collect();
    let mut hosts = Vec::with_capacity((k * k * k / 4) as usize);
    for _pod in 0..k {
        let aggs: Vec<NodeId> = (0..half).map(|_| t.add_switch()).collect();
        for (i, &agg) in aggs.iter().enumerate() {
            for j in 0..half as usize {
                t.connect(agg, cores[i * half as usize + j], rate, delay, loss);
            }
        }
        for _edge in 0..half {
            let edge = t.add_switch();
            for &agg in &aggs {
                t.connect(edge, agg, rate, delay, loss);
            }
            for _ in 0..half {
                let (node, host) = t.add_host();
                t.connect(node, edge, rate, delay, loss);
                hosts.push(host);
            }
        }
    }
    hosts
}

/// The servers (senders) and the client of an explicitly placed topology.
fn place(
    cfg: &Config,
    hosts: &[HostId],
    receiver: u32,
    senders: Option<&[u32]>,
) -> (Vec<HostId>, Vec<HostId>) {
    let servers = match senders {
        Some(list) => list.iter().map(|&h| hosts[h as usize]).collect(),
        None => hosts
            .iter()
            .copied()
            .filter(|&h| h != hosts[receiver as usize])
            .take(cfg.senders as usize)
            .collect(),
    };
    (servers, vec![hosts[receiver as usize]])
}

#[cfg(test)]
mod tests {
    use super::*;
    use incastsim_core::{NodeKind, PortId, Routes};

    fn build(k: u32) -> (Topology, Vec<HostId>, Routes) {
        let mut t = Topology::new();
        let hosts = fat_tree(&mut t, k, BitsPerSec::gbps(1), Duration::from_us(1), 0.0);
        let r = t.compute_routes().unwrap();
        (t, hosts, r)
    }

    /// The switches a packet of `flow` visits from host `src` to host `dst`.
    fn path(
        t: &Topology,
        r: &Routes,
        src: HostId,
        dst: HostId,
        flow: u32,
        salt: u64,
    ) -> Vec<PortId> {
        let mut node = t.node_of_host(src);
        let mut ports = Vec::new();
        while node != t.node_of_host(dst) {
            let p = r.next_hop(node, dst, flow, salt);
            ports.push(p);
            node = t.ports[p as usize].to;
            assert!(ports.len() < 10, "routing loop");
        }
        ports
    }

    #[test]
    fn fat_tree_sizes() {
        for (k, hosts, switches) in [(4, 16, 20), (8, 128, 80)] {
            let (t, h, _) = build(k);
            assert_eq!(
                (h.len(), t.host_count(), t.switch_count()),
                (hosts, hosts, switches)
            );
            // Every switch has k ports; every host one.
            for (n, kind) in t.nodes.iter().enumerate() {
                let expect = if matches!(kind, NodeKind::Switch(_)) {
                    k as usize
                } else {
                    1
                };
                assert_eq!(t.ports_of[n].len(), expect);
            }
        }
    }

    #[test]
    fn fat_tree_routes_are_shortest() {
        let (t, h, r) = build(4);
        // Same edge: 2 links; same pod: 4; other pods: 6.
        for (dst, hops) in [(1, 2), (2, 4), (3, 4), (4, 6), (15, 6)] {
            for flow in 0..20 {
                assert_eq!(
                    path(&t, &r, h[dst], h[0], flow, 7).len(),
                    hops,
                    "host {dst} -> 0"
                );
            }
        }
    }

    #[test]
    fn ecmp_uses_every_equal_cost_path_and_keeps_each_flow_on_one() {
        let (t, h, r) = build(4);
        let mut cores = std::collections::BTreeSet::new();
        for flow in 0..400 {
            let p = path(&t, &r, h[4], h[0], flow, 11);
            assert_eq!(
                p,
                path(&t, &r, h[4], h[0], flow, 11),
                "a flow keeps its path"
            );
            cores.insert(t.ports[p[2] as usize].to); // the core switch reached on the way up
        }
        assert_eq!(cores.len(), 4, "(k/2)^2 = 4 core switches are all used");
        // The two uplinks of an edge switch carry about half the flows each.
        let up: Vec<PortId> = (0..1000)
            .map(|f| path(&t, &r, h[4], h[0], f, 3)[1])
            .collect();
        let first = up.iter().filter(|&&p| p == up[0]).count();
        assert!(
            (400..600).contains(&first),
            "{first} of 1000 flows on one uplink"
        );
    }
}
