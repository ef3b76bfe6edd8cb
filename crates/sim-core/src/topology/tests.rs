//! Routing tests: the per-class tables against the per-host BFS they replace.
use super::*;
use std::collections::VecDeque;

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
    let used: std::collections::BTreeSet<_> = (0..64).map(|f| r.next_hop(s[0], 1, f, 0)).collect();
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

/// The routes as they were computed before destination classes: one breadth-first search per
/// host into a dense (node × host) table. The reference the class tables must match.
#[derive(Debug)]
struct Reference {
    hosts: usize,
    ranges: Vec<(u32, u32)>,
    next_hops: Vec<PortId>,
}

impl Reference {
    fn compute(t: &Topology) -> Result<Reference, TopologyError> {
        let hosts = t.host_nodes.len();
        if hosts == 0 {
            return Err(TopologyError::NoHosts);
        }
        let n = t.nodes.len();
        let mut ranges = vec![(0u32, 0u32); n * hosts];
        let mut next_hops = Vec::new();
        let mut dist = vec![u32::MAX; n];
        let mut queue = VecDeque::new();
        for (dst, &dst_node) in t.host_nodes.iter().enumerate() {
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[dst_node as usize] = 0;
            queue.clear();
            queue.push_back(dst_node);
            while let Some(v) = queue.pop_front() {
                if v != dst_node && matches!(t.nodes[v as usize], NodeKind::Host(_)) {
                    continue;
                }
                for &p in &t.ports_of[v as usize] {
                    let u = t.ports[p as usize].to;
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
                for &p in &t.ports_of[v] {
                    let u = t.ports[p as usize].to as usize;
                    let transit_ok =
                        u as NodeId == dst_node || !matches!(t.nodes[u], NodeKind::Host(_));
                    if transit_ok && dist[u] != u32::MAX && dist[u] + 1 == dist[v] {
                        next_hops.push(p);
                    }
                }
                let len = next_hops.len() as u32 - start;
                ranges[v * hosts + dst] = (start, len);
            }
        }
        Ok(Reference {
            hosts,
            ranges,
            next_hops,
        })
    }

    fn set_route(&mut self, node: NodeId, dst: HostId, port: PortId) {
        let start = self.next_hops.len() as u32;
        self.next_hops.push(port);
        self.ranges[node as usize * self.hosts + dst as usize] = (start, 1);
    }

    fn next_hops(&self, node: NodeId, dst: HostId) -> &[PortId] {
        let (s, l) = self.ranges[node as usize * self.hosts + dst as usize];
        &self.next_hops[s as usize..(s + l) as usize]
    }

    fn next_hop_static(&self, node: NodeId, dst: HostId) -> PortId {
        let hops = self.next_hops(node, dst);
        hops[dst as usize % hops.len()]
    }

    fn next_hop(&self, node: NodeId, dst: HostId, flow: FlowId, salt: u64) -> PortId {
        let hops = self.next_hops(node, dst);
        let l = hops.len() as u64;
        let i = if l == 1 {
            0
        } else {
            mix64(flow as u64 ^ salt ^ ((node as u64) << 32)) % l
        };
        hops[i as usize]
    }
}

/// Routes of `t` with `overrides` applied agree with the reference everywhere: the same
/// next-hop sets in the same order, the same static choice and the same ECMP choice per flow.
/// Returns the routes (or the shared error).
fn same_as_reference(
    t: &Topology,
    overrides: &[(NodeId, HostId, PortId)],
) -> Result<Routes, TopologyError> {
    let (mut want, mut got) = match (Reference::compute(t), t.compute_routes()) {
        (Ok(w), Ok(g)) => (w, g),
        (Err(w), Err(g)) => {
            assert_eq!(g, w);
            return Err(g);
        }
        (w, g) => panic!("reference {w:?}, routes {g:?}"),
    };
    for &(node, dst, port) in overrides {
        want.set_route(node, dst, port);
        got.set_route(node, dst, port);
    }
    for node in 0..t.nodes.len() as NodeId {
        for dst in 0..t.host_count() as HostId {
            let hops = want.next_hops(node, dst);
            assert_eq!(got.next_hops(node, dst), hops, "node {node} to host {dst}");
            if hops.is_empty() {
                continue;
            }
            assert_eq!(
                got.next_hop_static(node, dst),
                want.next_hop_static(node, dst)
            );
            for salt in [0, 0x5DEE_CE66_D1CE_F00D] {
                for flow in 0..48 {
                    assert_eq!(
                        got.next_hop(node, dst, flow, salt),
                        want.next_hop(node, dst, flow, salt),
                        "node {node} to host {dst}, flow {flow}"
                    );
                }
            }
        }
    }
    Ok(got)
}

fn link(t: &mut Topology, a: NodeId, b: NodeId) -> (PortId, PortId) {
    t.connect(a, b, BitsPerSec::gbps(1), Duration::from_us(1), 0.0)
}

fn host_on(t: &mut Topology, sw: NodeId) -> NodeId {
    let (h, _) = t.add_host();
    link(t, h, sw);
    h
}

/// As `build::fat_tree` in the scenario crate.
fn fat_tree(k: u32) -> Topology {
    let mut t = Topology::new();
    let half = k / 2;
    let cores: Vec<NodeId> = (0..half * half).map(|_| t.add_switch()).collect();
    for _pod in 0..k {
        let aggs: Vec<NodeId> = (0..half).map(|_| t.add_switch()).collect();
        for (i, &agg) in aggs.iter().enumerate() {
            for j in 0..half as usize {
                link(&mut t, agg, cores[i * half as usize + j]);
            }
        }
        for _edge in 0..half {
            let edge = t.add_switch();
            for &agg in &aggs {
                link(&mut t, edge, agg);
            }
            for _ in 0..half {
                host_on(&mut t, edge);
            }
        }
    }
    t
}

#[test]
fn star_dumbbell_and_tree_match_the_reference() {
    let (t, _) = star(9);
    let r = same_as_reference(&t, &[]).unwrap();
    assert_eq!(r.class_count(), 1);

    let mut t = Topology::new();
    let (left, right) = (t.add_switch(), t.add_switch());
    for _ in 0..5 {
        host_on(&mut t, left);
    }
    for _ in 0..3 {
        host_on(&mut t, right);
    }
    link(&mut t, left, right);
    assert_eq!(same_as_reference(&t, &[]).unwrap().class_count(), 2);

    let mut t = Topology::new();
    let agg = t.add_switch();
    for _ in 0..4 {
        let tor = t.add_switch();
        link(&mut t, tor, agg);
        for _ in 0..6 {
            host_on(&mut t, tor);
        }
    }
    assert_eq!(same_as_reference(&t, &[]).unwrap().class_count(), 4);
}

#[test]
fn fat_trees_match_the_reference() {
    for k in [4, 8] {
        let t = fat_tree(k);
        let r = same_as_reference(&t, &[]).unwrap();
        assert_eq!(
            r.class_count(),
            (k * k / 2) as usize,
            "one class per edge switch"
        );
        assert_eq!(r.rows, t.switch_count(), "no rows for hosts");
    }
}

#[test]
fn fat_tree_with_overrides_matches_the_reference() {
    let t = fat_tree(4);
    // Switch 0 is a core, 4 and 5 the first pod's aggregation switches, 6 its first edge
    // switch (hosts 0, 1 on nodes 7, 8).
    let (edge, host0) = (6, 7);
    let up = t.ports_of[edge as usize][0];
    let down = t.ports_of[edge as usize][2];
    let other = t.ports_of[0][1];
    let overrides = [
        (edge, 0, up),   // at the attachment switch, away from the host
        (edge, 1, down), // to host 1 over host 0's link
        (0, 5, other),   // at a core
        (host0, 9, t.ports_of[host0 as usize][0]), // at a host
        (0, 5, t.ports_of[0][0]), // twice
    ];
    let r = same_as_reference(&t, &overrides).unwrap();
    assert_eq!(
        r.class_count(),
        8 + 4,
        "hosts 0, 1, 5 and 9 get classes of their own"
    );
}

/// Switches in a ring with a chord; hosts with one link, with two, with parallel links, and a
/// switch with a single port.
fn multi_homed() -> (Topology, Vec<NodeId>, Vec<NodeId>) {
    let mut t = Topology::new();
    let s: Vec<NodeId> = (0..6).map(|_| t.add_switch()).collect();
    for i in 0..6 {
        link(&mut t, s[i], s[(i + 1) % 6]);
    }
    link(&mut t, s[0], s[3]);
    let mut h = Vec::new();
    h.push(host_on(&mut t, s[0]));
    h.push(host_on(&mut t, s[0]));
    let (x, _) = t.add_host();
    link(&mut t, x, s[1]);
    link(&mut t, x, s[4]);
    h.push(x);
    h.push(host_on(&mut t, s[2]));
    let (x, _) = t.add_host();
    link(&mut t, x, s[5]);
    link(&mut t, x, s[5]);
    link(&mut t, x, s[2]);
    h.push(x);
    h.push(host_on(&mut t, s[3]));
    let leaf = t.add_switch();
    link(&mut t, leaf, s[4]);
    h.push(host_on(&mut t, leaf));
    (t, s, h)
}

#[test]
fn multi_homed_graph_with_overrides_matches_the_reference() {
    let (t, s, h) = multi_homed();
    let r = same_as_reference(&t, &[]).unwrap();
    assert_eq!(
        r.class_count(),
        6,
        "s0, s2, s3, leaf, and the two multi-homed hosts"
    );
    let port = |a: NodeId, b: NodeId| {
        *t.ports_of[a as usize]
            .iter()
            .find(|&&p| t.ports[p as usize].to == b)
            .unwrap()
    };
    let overrides = [
        (s[0], 3, port(s[0], s[1])),
        (s[1], 3, port(s[1], s[0])), // a loop s0 <-> s1 towards host 3
        (s[3], 0, port(s[3], s[4])),
        (h[2], 0, port(h[2], s[4])), // at a multi-homed host
        (h[3], 5, port(h[3], s[2])), // at a single-linked host
        (h[3], 3, port(h[3], s[2])), // at a host, towards itself
        (s[5], 4, port(s[5], s[0])), // towards a multi-homed host
        (s[0], 1, port(s[0], h[0])), // to host 1 over host 0's link
    ];
    for n in 0..=overrides.len() {
        same_as_reference(&t, &overrides[..n]).unwrap();
    }
}

#[test]
fn errors_match_the_reference() {
    // A host behind another host: unreachable from everyone else.
    let (mut t, s, _) = multi_homed();
    let (a, _) = t.add_host();
    let (b, _) = t.add_host();
    link(&mut t, a, b);
    link(&mut t, b, s[1]);
    assert!(same_as_reference(&t, &[]).is_err());
    // Two hosts and nothing else.
    let mut t = Topology::new();
    let (a, _) = t.add_host();
    let (b, _) = t.add_host();
    link(&mut t, a, b);
    same_as_reference(&t, &[]).unwrap();
    // Two components; an isolated host; an isolated switch.
    let (mut t, _) = star(3);
    let sw = t.add_switch();
    host_on(&mut t, sw);
    assert!(same_as_reference(&t, &[]).is_err());
    let (mut t, _) = star(3);
    t.add_host();
    assert!(same_as_reference(&t, &[]).is_err());
    let (mut t, _) = star(3);
    t.add_switch();
    assert!(same_as_reference(&t, &[]).is_err());
    assert_eq!(
        Topology::new().compute_routes().unwrap_err(),
        TopologyError::NoHosts
    );
}

#[test]
fn random_graphs_with_overrides_match_the_reference() {
    let mut seed = 0u64;
    let mut next = |n: usize| {
        seed += 1;
        (mix64(seed) % n as u64) as usize
    };
    let (mut ok, mut errors) = (0, 0);
    for _ in 0..300 {
        let mut t = Topology::new();
        let switches: Vec<NodeId> = (0..1 + next(6)).map(|_| t.add_switch()).collect();
        for i in 1..switches.len() {
            if next(8) != 0 {
                let j = next(i);
                link(&mut t, switches[i], switches[j]);
            }
        }
        for _ in 0..next(4) {
            let (a, b) = (next(switches.len()), next(switches.len()));
            if a != b {
                link(&mut t, switches[a], switches[b]);
            }
        }
        let hosts: Vec<NodeId> = (0..2 + next(5)).map(|_| t.add_host().0).collect();
        for (i, &h) in hosts.iter().enumerate() {
            let links = [1, 1, 1, 1, 2, 2, 3, 0][next(8)];
            for _ in 0..links {
                if next(10) == 0 && i > 0 {
                    link(&mut t, h, hosts[next(i)]);
                } else {
                    link(&mut t, h, switches[next(switches.len())]);
                }
            }
        }
        let mut overrides = Vec::new();
        for _ in 0..next(6) {
            let node = next(t.nodes.len());
            if !t.ports_of[node].is_empty() {
                let port = t.ports_of[node][next(t.ports_of[node].len())];
                overrides.push((node as NodeId, next(hosts.len()) as HostId, port));
            }
        }
        match same_as_reference(&t, &overrides) {
            Ok(_) => ok += 1,
            Err(_) => errors += 1,
        }
    }
    assert!(
        ok > 100 && errors > 20,
        "{ok} routed, {errors} disconnected"
    );
}
