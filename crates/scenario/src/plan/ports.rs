//! Output ports from the topology and the `topology` link settings: buffers, latencies,
//! per-node clock offsets, queue disciplines, schedulers and each port's random streams.

use crate::config::{Config, ConfigError, LossModel, QueueConfig, invalid};
use crate::extend::{PreparedQueueDiscipline, QueueContext};
use crate::plan::topology::{BuiltTopology, buffer_limit};
use crate::units::Buffer;
use incastsim_core::rng::Stream;
use incastsim_core::{BitsPerSec, Duration, NodeId, NodeKind, SerializationRate, SimRng};
use incastsim_switch::{
    BufferLimit, LinkLoss, OutputPort, QueueDisc, Red, RedParams, RedProfile, SharedBuffer,
    SharedBufferParams, Threshold, ThresholdAdmit, ThresholdMark,
};

/// The NIC queue of a host that sends UDP when `topology.host_buffer` is unlimited: Linux's
/// default transmit queue (txqueuelen 1000 packets). A CBR source above its link rate would
/// otherwise grow the queue without bound; with it, the excess is dropped and counted there.
pub const UDP_HOST_QUEUE_PACKETS: u32 = 1000;

/// The switches whose output queues share one buffer (`topology.shared_buffer`), with each
/// one's output ports, in node order; refuses unknown switch names and reservations that do not
/// fit a switch's buffer.
pub fn shared_switches(
    cfg: &Config,
    built: &BuiltTopology,
) -> Result<Vec<(NodeId, Vec<u32>)>, ConfigError> {
    let Some(sb) = cfg.topology.links().shared_buffer else {
        return Ok(Vec::new());
    };
    let topology = &built.topology;
    let names = crate::plan::topology::node_names(topology);
    let is_switch = |n: usize| matches!(topology.nodes[n], NodeKind::Switch(_));
    let chosen: Vec<NodeId> = match &sb.switches {
        None => (0..topology.nodes.len())
            .filter(|&n| is_switch(n))
            .map(|n| n as NodeId)
            .collect(),
        Some(list) => {
            let mut chosen = Vec::new();
            for name in list {
                match names.iter().position(|n| n == name) {
                    Some(n) if is_switch(n) && !chosen.contains(&(n as NodeId)) => {
                        chosen.push(n as NodeId)
                    }
                    _ => {
                        let switches: Vec<&String> = names
                            .iter()
                            .enumerate()
                            .filter(|(n, _)| is_switch(*n))
                            .map(|(_, s)| s)
                            .take(4)
                            .collect();
                        return Err(invalid(
                            "topology.shared_buffer.switches",
                            name,
                            format!("distinct switch names of this topology, e.g. {switches:?}"),
                        ));
                    }
                }
            }
            chosen.sort_unstable();
            chosen
        }
    };
    chosen
        .into_iter()
        .map(|node| {
            let ports: Vec<u32> = topology.ports_of[node as usize].clone();
            let reserved = sb.reserved_per_queue.0 * ports.len() as u64;
            if reserved > sb.size.0 {
                return Err(invalid(
                    "topology.shared_buffer.reserved_per_queue",
                    Buffer::Bytes(sb.reserved_per_queue.0),
                    format!(
                        "at most topology.shared_buffer.size / output ports = {} / {} on {}",
                        Buffer::Bytes(sb.size.0),
                        ports.len(),
                        names[node as usize]
                    ),
                ));
            }
            Ok((node, ports))
        })
        .collect()
}

/// The shared buffers of `switches` (from [`shared_switches`]); marks each of their ports with
/// its buffer's index and lifts the ports' own limit (the shared buffer is the limit).
pub fn build_shared_buffers(
    cfg: &Config,
    switches: Vec<(NodeId, Vec<u32>)>,
    ports: &mut [OutputPort],
) -> Vec<SharedBuffer> {
    let Some(sb) = cfg.topology.links().shared_buffer else {
        return Vec::new();
    };
    let params = SharedBufferParams {
        size_bytes: sb.size.0,
        alpha: sb.alpha.value(),
        reserved_per_queue_bytes: sb.reserved_per_queue.0,
    };
    switches
        .into_iter()
        .enumerate()
        .map(|(i, (_, switch_ports))| {
            for (slot, &p) in switch_ports.iter().enumerate() {
                ports[p as usize].set_shared_buffer(i as u32, slot as u32);
            }
            SharedBuffer::new(params, switch_ports)
        })
        .collect()
}

/// Every output port of `built`, indexed like `built.topology.ports`. The ports of the
/// `shared` switches have no limit of their own: their switch's shared buffer admits. A
/// registered discipline (`queue`, prepared from `topology.switch_queue` when it names one)
/// runs at every switch port, each built with its port's [`QueueContext`].
pub fn build_ports(
    cfg: &Config,
    seed: u64,
    built: &BuiltTopology,
    shared: &[NodeId],
    queue: Option<&dyn PreparedQueueDiscipline>,
) -> Vec<OutputPort> {
    let topology = &built.topology;
    let udp_nodes: Vec<NodeId> = super::apps::udp(cfg, built)
        .iter()
        .map(|u| topology.node_of_host(u.src))
        .collect();
    let links = cfg.topology.links();
    // PFC: every port (host NICs too) serves the classes by strict priority and may be paused.
    let pfc_mask = cfg.pfc.as_ref().map_or(0, crate::plan::pfc::lossless_mask);
    let largest = crate::config::check::largest_packet_bytes(cfg);
    let int_on = cfg.int_telemetry_on();
    let roce_on = cfg.roce_on();
    let dwrr_quanta: Option<Vec<u64>> = links
        .class_weights
        .as_ref()
        .map(|w| w.iter().map(|&x| u64::from(x) * largest).collect());
    // Per-node clock offsets: a node's ports all run at nominal × (1 + offset).
    let ppm = links.clock_tolerance_ppm;
    let clock_rate = |nominal: BitsPerSec, node: NodeId| {
        if ppm == 0.0 {
            return nominal;
        }
        let u = SimRng::for_stream(seed, Stream::Clock, node as u64).unit_f64();
        let offset = (2.0 * u - 1.0) * ppm * 1e-6;
        BitsPerSec((nominal.0 as f64 * (1.0 + offset)).round() as u64)
    };
    let names = if links.lossy_links.is_empty() && queue.is_none() {
        Vec::new()
    } else {
        crate::plan::topology::port_names(topology)
    };
    // Each port's loss: `link_loss` (the topology's PortSpec), then a custom link's own `loss`,
    // then every `lossy_links` entry naming the port, in order (the last one wins).
    let loss_of = |i: usize, base: f64| {
        let mut model = built.port_loss[i]
            .map(link_loss)
            .unwrap_or(LinkLoss::bernoulli(base));
        for rule in &links.lossy_links {
            if rule
                .ports
                .iter()
                .any(|p| crate::plan::topology::port_matches(p, &names[i]))
            {
                model = link_loss(rule.loss);
            }
        }
        model
    };
    topology
        .ports
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let from_host = matches!(topology.nodes[spec.from as usize], NodeKind::Host(_));
            let to_switch = matches!(topology.nodes[spec.to as usize], NodeKind::Switch(_));
            let limit = match buffer_limit(if from_host {
                links.host_buffer
            } else if shared.contains(&spec.from) {
                Buffer::Unlimited
            } else {
                built.port_buffers[i].unwrap_or(links.switch_buffer)
            }) {
                BufferLimit::Unlimited if from_host && udp_nodes.contains(&spec.from) => {
                    BufferLimit::Packets(UDP_HOST_QUEUE_PACKETS)
                }
                limit => limit,
            };
            let latency = spec.propagation
                + if to_switch {
                    links.switch_delay.0
                } else {
                    Duration::ZERO
                };
            let serialization = SerializationRate::new(clock_rate(spec.rate, spec.from));
            let qdisc = if from_host {
                QueueDisc::drop_tail(limit)
            } else if let Some(queue) = queue {
                let rate = serialization.rate();
                let mss = cfg.tcp.mss.0 as u32;
                queue.new_discipline(&QueueContext::new(
                    seed,
                    i as u32,
                    names[i].as_str(),
                    rate,
                    limit,
                    mss,
                ))
            } else {
                // RED's idle correction counts idle time in full-size packet transmissions.
                let typical_tx_ps = serialization.time_for(cfg.full_packet_bytes()).as_ps() as f64;
                let rng = SimRng::for_stream(seed, Stream::Queue, i as u64);
                switch_qdisc(&links.switch_queue, limit, typical_tx_ps, rng)
            };
            let port = OutputPort::new(
                spec.to,
                serialization,
                latency,
                loss_of(i, spec.loss_probability),
                // The link direction's own stream, whatever its model: a Bernoulli link draws
                // exactly as before `lossy_links` existed.
                SimRng::for_stream(seed, Stream::LinkLoss, i as u64),
                qdisc,
            )
            .with_classes(
                if from_host && pfc_mask == 0 {
                    1
                } else {
                    links.priority_classes as usize
                },
                pfc_mask,
            )
            .with_latency_jitter(
                if to_switch {
                    links.switch_delay_jitter.0
                } else {
                    Duration::ZERO
                },
                SimRng::for_stream(seed, Stream::SwitchJitter, i as u64),
            );
            // In-band telemetry is stamped when a packet gets the transmitter; a RoCE NIC
            // hands its queue pairs the transmitter one packet at a time (`engine/nic.rs`).
            let port = if int_on || (from_host && roce_on) {
                port.deciding_at_dequeue()
            } else {
                port
            };
            // DWRR between the classes: weight × the largest packet per turn.
            match &dwrr_quanta {
                Some(q) if port.classes() == q.len() => port.with_dwrr(q.clone()),
                _ => port,
            }
        })
        .collect()
}

/// The switch crate's loss model for a configured one.
fn link_loss(m: LossModel) -> LinkLoss {
    match m {
        LossModel::Bernoulli { p } => LinkLoss::bernoulli(p),
        LossModel::GilbertElliott {
            p_good_to_bad,
            p_bad_to_good,
            loss_in_good,
            loss_in_bad,
        } => LinkLoss::GilbertElliott {
            p_good_to_bad,
            p_bad_to_good,
            loss_in_good,
            loss_in_bad,
            bad: false,
        },
    }
}

fn threshold(b: Buffer) -> Threshold {
    match b {
        Buffer::Bytes(n) => Threshold::Bytes(n),
        Buffer::Packets(n) => Threshold::Packets(n),
        Buffer::Unlimited => Threshold::Packets(u32::MAX),
    }
}

fn threshold_value(b: Buffer) -> f64 {
    match b {
        Buffer::Bytes(n) => n as f64,
        Buffer::Packets(n) => n as f64,
        Buffer::Unlimited => f64::INFINITY,
    }
}

/// The queue discipline of a switch port, from the config.
fn switch_qdisc(q: &QueueConfig, limit: BufferLimit, typical_tx_ps: f64, rng: SimRng) -> QueueDisc {
    match q {
        QueueConfig::DropTail => QueueDisc::drop_tail(limit),
        QueueConfig::Red {
            min_th,
            max_th,
            max_p,
            w_q,
            gentle,
            ecn,
        } => {
            let profile = RedProfile {
                min_th: threshold_value(*min_th),
                max_th: threshold_value(*max_th),
                max_p: *max_p,
            };
            QueueDisc::Red(Box::new(Red::new(
                RedParams {
                    unit: threshold(*min_th),
                    w_q: *w_q,
                    gentle: *gentle,
                    ecn: *ecn,
                    limit,
                    profiles: vec![profile],
                    profile_of_dscp: [0; 64],
                    typical_tx_ps,
                },
                rng,
            )))
        }
        QueueConfig::Wred {
            profiles,
            w_q,
            gentle,
            ecn,
        } => {
            let mut map = [0u8; 64];
            for (i, p) in profiles.iter().enumerate() {
                for &d in &p.dscp {
                    map[d as usize] = i as u8;
                }
            }
            let red_profiles = profiles
                .iter()
                .map(|p| RedProfile {
                    min_th: threshold_value(p.min_th),
                    max_th: threshold_value(p.max_th),
                    max_p: p.max_p,
                })
                .collect();
            QueueDisc::Red(Box::new(Red::new(
                RedParams {
                    unit: threshold(profiles[0].min_th),
                    w_q: *w_q,
                    gentle: *gentle,
                    ecn: *ecn,
                    limit,
                    profiles: red_profiles,
                    profile_of_dscp: map,
                    typical_tx_ps,
                },
                rng,
            )))
        }
        QueueConfig::EcnThreshold { k } => QueueDisc::ThresholdMark(ThresholdMark {
            k: threshold(*k),
            limit,
        }),
        QueueConfig::ThresholdAdmit { threshold: t } => QueueDisc::ThresholdAdmit(ThresholdAdmit {
            threshold: threshold(*t),
            limit,
        }),
        QueueConfig::Extension(e) => {
            unreachable!("the plan builds extension discipline {} itself", e.name)
        }
    }
}
