//! The applications' parameters (synchronized reads, bulk, the traffic workload, UDP sources),
//! per-flow send overheads and what to observe, from config.

use super::{PlannedFlow, TcpProfile};
use crate::config::{BackgroundConfig, Config, ConfigError, HostSelector, WorkloadConfig, invalid};
use crate::plan::topology::{BuiltTopology, port_names};
use incastsim_core::rng::Stream;
use incastsim_core::{Duration, HostId, SerializationRate, SimRng, Time};

/// The workload application and its parameters.
pub enum WorkloadPlan {
    /// Synchronized reads.
    SyncReads(SyncReadsPlan),
    /// Every workload flow always has data from its start (after its jitter) to `duration`.
    Bulk {
        /// How long the flows send.
        duration: Duration,
        /// Each flow starts after U[0, start_jitter].
        start_jitter: Duration,
        /// Per flow: its start jitter's random stream.
        jitter_rngs: Vec<SimRng>,
    },
    /// Only the traffic generators; arrivals end at `duration`, then drain if asked.
    Traffic {
        /// When generator arrivals end.
        duration: Duration,
        /// Keep running until the flows started by then finish.
        drain: bool,
    },
}

/// Synchronized reads: the client asks every server for its part of a block; the next block
/// starts when the last part has arrived.
pub struct SyncReadsPlan {
    /// The host that requests the blocks.
    pub client: HostId,
    /// Bytes flow f sends per block.
    pub per_flow_bytes: Vec<u64>,
    /// Blocks to read.
    pub blocks: u32,
    /// Per server: its start jitter's random stream.
    pub jitter_rngs: Vec<SimRng>,
    /// Each server starts answering after U[0, start_jitter].
    pub start_jitter: Duration,
    /// Payload bytes of a request packet.
    pub request_bytes: u32,
    /// Re-request from silent servers after this long.
    pub request_timeout: Duration,
    /// When the first block is requested.
    pub warmup: Duration,
}

/// A constant-bit-rate UDP source (`background: udp_cbr`).
pub struct UdpPlan {
    /// The sending host.
    pub src: HostId,
    /// The receiving host.
    pub dst: HostId,
    /// Time of the first datagram.
    pub start: Duration,
    /// Time between datagrams (the rate is `wire_bytes` per `interval`).
    pub interval: Duration,
    /// Bytes of each datagram on the wire, headers included.
    pub wire_bytes: u32,
    /// When the source stops (None: at the end of the run).
    pub stop: Option<Time>,
    /// The datagrams' DSCP (traffic class for strict-priority ports).
    pub dscp: u8,
}

/// A flow's send overhead (`tcp.send_overhead`) and its random stream.
pub struct SendOverheadPlan {
    /// The largest extra delay, U[0, max], before each segment leaves.
    pub max: Duration,
    /// The flow's own stream for those delays.
    pub rng: SimRng,
}

/// What to sample into timeseries.csv.
#[derive(Default)]
pub struct ObservePlan {
    /// Take samples every `interval` (None: no time series).
    pub interval: Option<Duration>,
    /// Ports sampled, by port index.
    pub ports: Vec<u32>,
    /// Flows sampled, by flow index.
    pub flows: Vec<u32>,
    /// The port whose every queue change is traced (`time_series.on_change_port`).
    pub traced_port: Option<u32>,
    /// Packet capture points (`pcap:`), if any.
    pub pcap: Option<CapturePlan>,
}

/// Where packets are captured for pcap files (`pcap:`), as flow and port indices.
#[derive(Clone, Debug, Default)]
pub struct CapturePlan {
    /// Flows captured as their sending host sees them (`pcap.flows`).
    pub flows: Vec<u32>,
    /// Ports captured at the far end of their link (`pcap.ports`).
    pub ports: Vec<u32>,
    /// Bytes kept of each frame (`pcap.snaplen`).
    pub snaplen: u32,
}

pub(super) fn workload(
    cfg: &Config,
    seed: u64,
    workload_flows: usize,
    built: &BuiltTopology,
) -> WorkloadPlan {
    let jitter_rngs = || {
        (0..workload_flows as u64)
            .map(|i| SimRng::for_stream(seed, Stream::StartJitter, i))
            .collect()
    };
    match &cfg.workload {
        WorkloadConfig::SynchronizedReads {
            sru,
            block,
            blocks,
            request_size,
            start_jitter,
            request_timeout,
            warmup,
        } => {
            let n = workload_flows as u64;
            let per_flow_bytes: Vec<u64> = match (sru, block) {
                (Some(s), _) => vec![s.0; workload_flows],
                // Stripe the block: the first (block mod N) servers carry one extra byte.
                (None, Some(b)) => (0..n).map(|i| b.0 / n + u64::from(i < b.0 % n)).collect(),
                (None, None) => Vec::new(), // refused by the config checks
            };
            let t = &cfg.tcp;
            let rto_initial = t.rto_initial.map_or(t.rto_min.0, |d| d.0);
            WorkloadPlan::SyncReads(SyncReadsPlan {
                client: built.clients[0],
                per_flow_bytes,
                blocks: *blocks,
                jitter_rngs: jitter_rngs(),
                start_jitter: start_jitter.0,
                request_bytes: request_size.0 as u32,
                request_timeout: request_timeout.map_or(rto_initial, |d| d.0),
                warmup: warmup.0,
            })
        }
        WorkloadConfig::Bulk {
            duration,
            start_jitter,
        } => WorkloadPlan::Bulk {
            duration: duration.0,
            start_jitter: start_jitter.0,
            jitter_rngs: jitter_rngs(),
        },
        WorkloadConfig::Traffic { duration, drain } => WorkloadPlan::Traffic {
            duration: duration.0,
            drain: *drain,
        },
    }
}

pub(super) fn udp(cfg: &Config, built: &BuiltTopology) -> Vec<UdpPlan> {
    let mut udp = Vec::new();
    for b in &cfg.background {
        let BackgroundConfig::UdpCbr {
            from,
            to,
            rate,
            packet_size,
            start,
            stop,
            dscp,
        } = b;
        let hosts = |sel: Option<HostSelector>| match sel {
            Some(HostSelector::Sender(i)) => vec![built.servers[i as usize]],
            Some(HostSelector::Receiver(i)) => vec![built.clients[i as usize]],
            Some(HostSelector::AllSenders) => built.servers.clone(),
            None => Vec::new(), // refused by the config checks
        };
        let Some(&dst) = hosts(HostSelector::parse(to)).first() else {
            continue;
        };
        let interval = SerializationRate::new(rate.0).time_for(packet_size.0);
        for src in hosts(HostSelector::parse(from)) {
            udp.push(UdpPlan {
                src,
                dst,
                start: start.0,
                interval,
                wire_bytes: packet_size.0 as u32,
                stop: stop.map(|d| Time::ZERO + d.0),
                dscp: *dscp,
            });
        }
    }
    udp
}

pub(super) fn send_overhead(
    seed: u64,
    flows: &[PlannedFlow],
    profiles: &[TcpProfile],
) -> Vec<SendOverheadPlan> {
    if profiles.iter().all(|p| p.send_overhead == Duration::ZERO) {
        return Vec::new();
    }
    flows
        .iter()
        .enumerate()
        .map(|(f, flow)| SendOverheadPlan {
            max: profiles[flow.profile as usize].send_overhead,
            rng: SimRng::for_stream(seed, Stream::SendOverhead, f as u64),
        })
        .collect()
}

pub(super) fn observe(cfg: &Config, built: &BuiltTopology) -> Result<ObservePlan, ConfigError> {
    if cfg.time_series.is_none() && cfg.pcap.is_none() {
        return Ok(ObservePlan::default());
    }
    let names = port_names(&built.topology);
    let port = |key: &str, name: &String| {
        names
            .iter()
            .position(|n| n == name)
            .map(|p| p as u32)
            .ok_or_else(|| {
                let examples: Vec<&String> = names.iter().take(4).collect();
                invalid(
                    key,
                    name,
                    format!("an existing port \"from->to\", e.g. {examples:?}"),
                )
            })
    };
    let pcap = match &cfg.pcap {
        None => None,
        Some(p) => Some(CapturePlan {
            flows: p.flows.clone(),
            ports: p
                .ports
                .iter()
                .map(|name| port("pcap.ports", name))
                .collect::<Result<_, _>>()?,
            snaplen: p.snaplen.0 as u32,
        }),
    };
    let Some(ts) = &cfg.time_series else {
        return Ok(ObservePlan {
            pcap,
            ..ObservePlan::default()
        });
    };
    Ok(ObservePlan {
        pcap,
        interval: Some(ts.interval.0),
        ports: ts
            .ports
            .iter()
            .map(|p| port("time_series.ports", p))
            .collect::<Result<_, _>>()?,
        flows: ts.flows.clone(),
        traced_port: ts
            .on_change_port
            .as_ref()
            .map(|p| port("time_series.ports", p))
            .transpose()?,
    })
}
