//! Turns a validated [`Config`] into a topology with host roles.

use crate::config::{Config, ConfigError, CustomTopologyConfig, LossModel, TopologyConfig};
use crate::units::Buffer;
use incastsim_core::{BitsPerSec, Duration, HostId, NodeId, Topology};
use incastsim_switch::BufferLimit;

/// A built topology and which hosts play which role.
pub struct BuiltTopology {
    /// The graph: nodes, ports and links.
    pub topology: Topology,
    /// Per port: a buffer that overrides the topology-wide one (custom links).
    pub port_buffers: Vec<Option<Buffer>>,
    /// Per port: a loss model that overrides `link_loss` (custom links' `loss`).
    pub port_loss: Vec<Option<LossModel>>,
    /// Explicit next hops (node, destination host, port) applied over shortest-path routes.
    pub route_overrides: Vec<(NodeId, HostId, incastsim_core::PortId)>,
    /// Sending servers, one per sender.
    pub servers: Vec<HostId>,
    /// Receiving clients (one for a star).
    pub clients: Vec<HostId>,
}

/// The switch port's admission limit for a configured buffer size.
pub fn buffer_limit(b: Buffer) -> BufferLimit {
    match b {
        Buffer::Bytes(n) => BufferLimit::Bytes(n),
        Buffer::Packets(n) => BufferLimit::Packets(n),
        Buffer::Unlimited => BufferLimit::Unlimited,
    }
}

/// Builds the configured topology (star, dumbbell, fat tree, tree or custom graph) and places
/// the senders and clients on its hosts. A custom graph's names and links are checked as it
/// is built (its routes by [`route`]).
pub fn build_topology(cfg: &Config) -> Result<BuiltTopology, ConfigError> {
    let l = cfg.topology.links();
    let (rate, delay, loss) = (l.link_rate.0, l.link_delay.0, l.link_loss);
    let mut t = Topology::new();
    let mut servers = Vec::with_capacity(cfg.senders as usize);
    let mut clients = Vec::new();
    let mut port_buffers = Vec::new();
    let mut port_loss = Vec::new();
    let mut route_overrides = Vec::new();
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
            for _ in 0..l.extra_hosts {
                let (node, _) = t.add_host();
                t.connect(node, sw, rate, delay, loss);
            }
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
        TopologyConfig::Custom(c) => {
            let custom = build_custom(&mut t, c)?;
            port_buffers = custom.port_buffers;
            port_loss = custom.port_loss;
            route_overrides = custom.routes;
            (servers, clients) = place(
                cfg,
                &custom.hosts,
                c.receiver_host,
                c.sender_hosts.as_deref(),
            );
        }
    }
    port_buffers.resize(t.ports.len(), None);
    port_loss.resize(t.ports.len(), None);
    Ok(BuiltTopology {
        topology: t,
        port_buffers,
        port_loss,
        route_overrides,
        servers,
        clients,
    })
}

/// Shortest-path ECMP routes with the explicit overrides applied.
pub fn routes_for(built: &BuiltTopology) -> Result<incastsim_core::Routes, String> {
    let routes = built.topology.compute_routes().map_err(|e| e.to_string())?;
    with_overrides(built, routes)
}

/// `routes` (the shortest paths) with the explicit overrides applied, checked for loops.
fn with_overrides(
    built: &BuiltTopology,
    mut routes: incastsim_core::Routes,
) -> Result<incastsim_core::Routes, String> {
    for &(node, dst, port) in &built.route_overrides {
        routes.set_route(node, dst, port);
    }
    // Shortest paths alone cannot loop or end at another host: every next hop is one hop
    // nearer the destination, and no host but the destination's own node is entered
    // (`Topology::compute_routes`). Only overrides need the check below, which on a k = 32
    // fat-tree cost more than computing the routes (~1.2 G instructions).
    if built.route_overrides.is_empty() {
        return Ok(routes);
    }
    // Overrides can make loops with the shortest paths around them: follow every next hop. Hosts
    // of one route class loop exactly when the first of them does, so one check per class.
    let t = &built.topology;
    let mut checked = vec![false; routes.class_count()];
    let mut state = vec![0u8; t.nodes.len()]; // 0 new, 1 on the stack, 2 done
    for dst in 0..t.host_count() as HostId {
        if std::mem::replace(&mut checked[routes.class_of(dst)], true) {
            continue;
        }
        let target = t.node_of_host(dst);
        state.fill(0);
        fn visit(
            n: NodeId,
            dst: HostId,
            target: NodeId,
            t: &Topology,
            r: &incastsim_core::Routes,
            st: &mut [u8],
        ) -> bool {
            if n == target || st[n as usize] == 2 {
                return true;
            }
            if st[n as usize] == 1 {
                return false;
            }
            st[n as usize] = 1;
            for &p in r.next_hops(n, dst) {
                let next = t.ports[p as usize].to;
                if matches!(t.nodes[next as usize], incastsim_core::NodeKind::Host(_))
                    && next != target
                {
                    return false; // hosts do not forward
                }
                if !visit(next, dst, target, t, r, st) {
                    return false;
                }
            }
            st[n as usize] = 2;
            true
        }
        for n in 0..t.nodes.len() as NodeId {
            if !visit(n, dst, target, t, &routes, &mut state) {
                return Err(format!(
                    "the routes to host{dst} loop or end at another host"
                ));
            }
        }
    }
    Ok(routes)
}

/// A custom topology's hosts (in index order), per-port buffers and explicit routes.
pub struct CustomBuilt {
    /// The hosts, in host-index order.
    pub hosts: Vec<HostId>,
    /// Per port: the link's own buffer, if it has one (else the topology-wide one).
    pub port_buffers: Vec<Option<Buffer>>,
    /// Per port: the link's own `loss`, if it has one.
    pub port_loss: Vec<Option<LossModel>>,
    /// Explicit routes: (node, destination host, port to leave by).
    pub routes: Vec<(NodeId, HostId, incastsim_core::PortId)>,
}

fn custom_err(key: &str, value: impl std::fmt::Display, allowed: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_string(),
        value: value.to_string(),
        allowed: allowed.into(),
    }
}

/// Builds a custom topology into `t`.
pub fn build_custom(
    t: &mut Topology,
    c: &CustomTopologyConfig,
) -> Result<CustomBuilt, ConfigError> {
    let nodes = CustomNodes::add(t, c);
    let port_buffers = connect_custom_links(t, c, &nodes)?;
    let routes = custom_routes(t, c, &nodes)?;
    Ok(CustomBuilt {
        hosts: nodes.hosts.iter().map(|h| h.1).collect(),
        port_buffers,
        // Each link adds its two ports (a→b, b→a) in order, as for the buffers.
        port_loss: c.links.iter().flat_map(|l| [l.loss, l.loss]).collect(),
        routes,
    })
}

/// The nodes of a custom topology, found by the names links and routes use (`hostI`,
/// `switchI`).
struct CustomNodes {
    hosts: Vec<(NodeId, HostId)>,
    switches: Vec<NodeId>,
    /// The names there are, for errors.
    allowed: String,
}

impl CustomNodes {
    /// Adds the hosts, then the switches, of `c` to `t`.
    fn add(t: &mut Topology, c: &CustomTopologyConfig) -> CustomNodes {
        let hosts: Vec<(NodeId, HostId)> = (0..c.hosts).map(|_| t.add_host()).collect();
        let switches: Vec<NodeId> = (0..c.switches).map(|_| t.add_switch()).collect();
        let allowed = format!(
            "host0..host{} or switch0..switch{}",
            c.hosts.saturating_sub(1),
            c.switches.saturating_sub(1)
        );
        CustomNodes {
            hosts,
            switches,
            allowed,
        }
    }

    /// The node named `name` at config key `key`.
    fn node(&self, key: &str, name: &str) -> Result<NodeId, ConfigError> {
        let parsed = if let Some(i) = name.strip_prefix("host") {
            i.parse::<usize>()
                .ok()
                .and_then(|i| self.hosts.get(i).map(|h| h.0))
        } else if let Some(i) = name.strip_prefix("switch") {
            i.parse::<usize>()
                .ok()
                .and_then(|i| self.switches.get(i).copied())
        } else {
            None
        };
        parsed.ok_or_else(|| custom_err(key, name, self.allowed.clone()))
    }
}

/// Connects the links of a custom topology (each host gets exactly one) and returns the buffer
/// override of each port they create.
fn connect_custom_links(
    t: &mut Topology,
    c: &CustomTopologyConfig,
    nodes: &CustomNodes,
) -> Result<Vec<Option<Buffer>>, ConfigError> {
    let mut port_buffers = Vec::new();
    for (i, l) in c.links.iter().enumerate() {
        let key = format!("topology.links[{i}]");
        let (a, b) = (
            nodes.node(&format!("{key}.a"), &l.a)?,
            nodes.node(&format!("{key}.b"), &l.b)?,
        );
        if a == b {
            return Err(custom_err(
                &format!("{key}.b"),
                &l.b,
                "a node other than `a`",
            ));
        }
        let host_links = |n: NodeId| {
            matches!(t.nodes[n as usize], incastsim_core::NodeKind::Host(_))
                && !t.ports_of[n as usize].is_empty()
        };
        if host_links(a) || host_links(b) {
            return Err(custom_err(
                &key,
                format!("{} - {}", l.a, l.b),
                "at most one link per host",
            ));
        }
        let rate = l.rate.map_or(c.link_rate.0, |r| r.0);
        if rate.0 == 0 {
            return Err(custom_err(
                &format!("{key}.rate"),
                "0bps",
                "a positive rate",
            ));
        }
        let delay = l.delay.map_or(c.link_delay.0, |d| d.0);
        t.connect(a, b, rate, delay, c.link_loss);
        port_buffers.push(l.buffer);
        port_buffers.push(l.buffer);
    }
    for (h, (n, _)) in nodes.hosts.iter().enumerate() {
        if t.ports_of[*n as usize].is_empty() {
            return Err(custom_err(
                "topology.links",
                format!("host{h}"),
                "every host needs exactly one link",
            ));
        }
    }
    Ok(port_buffers)
}

/// The explicit routes of a custom topology: (switch, destination host, port towards `via`).
fn custom_routes(
    t: &Topology,
    c: &CustomTopologyConfig,
    nodes: &CustomNodes,
) -> Result<Vec<(NodeId, HostId, incastsim_core::PortId)>, ConfigError> {
    let mut routes = Vec::new();
    for (i, r) in c.routes.iter().enumerate() {
        let key = format!("topology.routes[{i}]");
        let at = nodes.node(&format!("{key}.at"), &r.at)?;
        let via = nodes.node(&format!("{key}.via"), &r.via)?;
        let to_node = nodes.node(&format!("{key}.to"), &r.to)?;
        let incastsim_core::NodeKind::Host(to) = t.nodes[to_node as usize] else {
            return Err(custom_err(&format!("{key}.to"), &r.to, "a host"));
        };
        if matches!(t.nodes[at as usize], incastsim_core::NodeKind::Host(_)) {
            return Err(custom_err(&format!("{key}.at"), &r.at, "a switch"));
        }
        let port = t.ports_of[at as usize]
            .iter()
            .copied()
            .find(|&p| t.ports[p as usize].to == via)
            .ok_or_else(|| {
                custom_err(
                    &format!("{key}.via"),
                    &r.via,
                    format!("a neighbour of {}", r.at),
                )
            })?;
        routes.push((at, to, port));
    }
    Ok(routes)
}

/// The routes of a built topology: [`routes_for`], its errors under the keys a custom graph
/// names (`topology.links`: a host cut off; `topology.routes`: explicit routes that loop).
/// The plan calls it once; `check_buildable` calls it for custom graphs only (the built-in
/// topologies are connected by construction).
pub fn route(built: &BuiltTopology) -> Result<incastsim_core::Routes, ConfigError> {
    let routes = built
        .topology
        .compute_routes()
        .map_err(|e| custom_err("topology.links", "", e.to_string()))?;
    with_overrides(built, routes).map_err(|e| custom_err("topology.routes", "", e))
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
/// Whether port name `name` matches `pattern`, where `*` matches any run of characters
/// (`lossy_links` port lists).
pub fn port_matches(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let mut parts: Vec<&str> = parts.collect();
    let Some(last) = parts.pop() else {
        return rest.is_empty(); // no `*`: exact
    };
    for p in parts {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// Every port's name, `from->to` ("host3->switch0"), by port index: the names ports.csv and
/// the config's port lists use.
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

    #[test]
    fn port_patterns_match_exact_names_and_stars() {
        assert!(port_matches("switch0->host16", "switch0->host16"));
        assert!(!port_matches("switch0->host1", "switch0->host16"));
        assert!(port_matches("host*->switch0", "host12->switch0"));
        assert!(!port_matches("host*->switch0", "switch0->host12"));
        assert!(port_matches("*->host16", "switch3->host16"));
        assert!(port_matches("switch*", "switch3->host16"));
        assert!(port_matches("*", "anything"));
        assert!(port_matches("s*->*6", "switch0->host16"));
        assert!(!port_matches("s*->*7", "switch0->host16"));
    }

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

    /// The loop check as it was, for every destination host: the first host whose routes loop
    /// or end at another host.
    fn first_looping_host(t: &Topology, r: &Routes) -> Option<HostId> {
        fn ends_at(t: &Topology, r: &Routes, n: NodeId, dst: HostId, st: &mut [u8]) -> bool {
            if n == t.node_of_host(dst) || st[n as usize] == 2 {
                return true;
            }
            if st[n as usize] == 1 {
                return false;
            }
            st[n as usize] = 1;
            for &p in r.next_hops(n, dst) {
                let next = t.ports[p as usize].to;
                if matches!(t.nodes[next as usize], NodeKind::Host(_))
                    && next != t.node_of_host(dst)
                    || !ends_at(t, r, next, dst, st)
                {
                    return false;
                }
            }
            st[n as usize] = 2;
            true
        }
        (0..t.host_count() as HostId).find(|&dst| {
            let mut st = vec![0u8; t.nodes.len()];
            !(0..t.nodes.len() as NodeId).all(|n| ends_at(t, r, n, dst, &mut st))
        })
    }

    #[test]
    fn one_loop_check_per_route_class_finds_the_same_first_host() {
        let mut seed = 0u64;
        let mut next = |n: usize| {
            seed += 1;
            (incastsim_core::rng::mix64(seed) % n as u64) as usize
        };
        let mut found = 0;
        for round in 0..200 {
            let mut topology = Topology::new();
            fat_tree(
                &mut topology,
                4,
                BitsPerSec::gbps(1),
                Duration::from_us(1),
                0.0,
            );
            let switches: Vec<NodeId> = (0..topology.nodes.len() as NodeId)
                .filter(|&n| matches!(topology.nodes[n as usize], NodeKind::Switch(_)))
                .collect();
            let mut route_overrides = Vec::new();
            for _ in 0..round % 5 {
                let at = switches[next(switches.len())];
                let ports = &topology.ports_of[at as usize];
                route_overrides.push((at, next(16) as HostId, ports[next(ports.len())]));
            }
            let n = topology.ports.len();
            let built = BuiltTopology {
                topology,
                port_buffers: vec![None; n],
                port_loss: vec![None; n],
                route_overrides,
                servers: Vec::new(),
                clients: Vec::new(),
            };
            let mut all = built.topology.compute_routes().unwrap();
            for &(node, dst, port) in &built.route_overrides {
                all.set_route(node, dst, port);
            }
            let want = first_looping_host(&built.topology, &all)
                .map(|h| format!("the routes to host{h} loop or end at another host"));
            if want.is_some() {
                found += 1;
            }
            assert_eq!(routes_for(&built).err(), want, "round {round}");
        }
        assert!(found > 20, "{found} of 200 override sets loop");
    }
}
