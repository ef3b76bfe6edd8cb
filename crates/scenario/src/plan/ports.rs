//! Output ports from the topology and the `topology` link settings: buffers, latencies,
//! per-node clock offsets, queue disciplines, schedulers and each port's random streams.

use crate::build::{BuiltTopology, buffer_limit};
use crate::config::{Config, LossModel, QueueConfig};
use crate::units::Buffer;
use incastsim_core::rng::Stream;
use incastsim_core::{BitsPerSec, Duration, NodeId, NodeKind, SerializationRate, SimRng};
use incastsim_switch::{
    BufferLimit, LinkLoss, OutputPort, QueueDisc, Red, RedParams, RedProfile, Threshold,
    ThresholdAdmit, ThresholdMark,
};

/// The NIC queue of a host that sends UDP when `topology.host_buffer` is unlimited: Linux's
/// default transmit queue (txqueuelen 1000 packets). A CBR source above its link rate would
/// otherwise grow the queue without bound; with it, the excess is dropped and counted there.
pub const UDP_HOST_QUEUE_PACKETS: u32 = 1000;

/// Every output port of `built`, indexed like `built.topology.ports`.
pub fn build_ports(cfg: &Config, seed: u64, built: &BuiltTopology) -> Vec<OutputPort> {
    let topology = &built.topology;
    let udp_nodes: Vec<NodeId> = super::apps::udp(cfg, built)
        .iter()
        .map(|u| topology.node_of_host(u.src))
        .collect();
    let links = cfg.topology.links();
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
    let names = if links.lossy_links.is_empty() {
        Vec::new()
    } else {
        crate::build::port_names(topology)
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
                .any(|p| crate::build::port_matches(p, &names[i]))
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
            } else {
                // RED's idle correction counts idle time in full-size packet transmissions.
                let typical_tx_ps = serialization.time_for(cfg.full_packet_bytes()).as_ps() as f64;
                let rng = SimRng::for_stream(seed, Stream::Queue, i as u64);
                switch_qdisc(&links.switch_queue, limit, typical_tx_ps, rng)
            };
            OutputPort::new(
                spec.to,
                serialization,
                latency,
                loss_of(i, spec.loss_probability),
                // The link direction's own stream, whatever its model: a Bernoulli link draws
                // exactly as before `lossy_links` existed.
                SimRng::for_stream(seed, Stream::LinkLoss, i as u64),
                qdisc,
            )
            .with_scheduler(if from_host {
                1
            } else {
                links.priority_classes as usize
            })
            .with_latency_jitter(
                if to_switch {
                    links.switch_delay_jitter.0
                } else {
                    Duration::ZERO
                },
                SimRng::for_stream(seed, Stream::SwitchJitter, i as u64),
            )
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
    }
}
