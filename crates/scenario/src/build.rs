//! Turns a validated [`Config`] into a topology with host roles.

use crate::config::{Config, TopologyConfig};
use crate::units::Buffer;
use incastsim_core::{HostId, NodeId, Topology};
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
    }
    BuiltTopology {
        topology: t,
        servers,
        clients,
    }
}
