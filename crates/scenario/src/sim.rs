//! The simulation: one value holding the whole network, its connections and its workload, and
//! the event loop that drives them. No global state: many simulations run on many threads.
//!
//! Where things happen:
//! - a packet reaches the far end of a link: [`Simulation::on_port_head_arrival`];
//! - a switch forwards it to an output port: [`Simulation::forward`] → `OutputPort::enqueue`;
//! - a host receives it: [`Simulation::deliver_to_host`];
//! - an RTO fires: the `Event::Rto` arm of [`Simulation::dispatch`] → `TcpSender::on_timeout`.

use crate::build::{BuiltTopology, buffer_limit, build_topology};
use crate::config::{
    BackgroundConfig, Config, CongestionControlName, HostSelector, LossRecovery, QueueConfig,
    RecoveryExitName, RttSamplingName, WorkloadConfig,
};
use crate::diagnostics::{Diagnostics, LOCAL_INPUT, ModelContext};
use crate::metrics::{
    FlowRecord, PortClassRecord, PortRecord, RunRecord, RunResult, jain_fairness, quantile,
};
use crate::traffic::{GeneratedFlow, Hop, IdealTcp, ideal_fct};
use crate::units::Buffer;
use incastsim_core::packet::flags;
use incastsim_core::rng::{Stream, derive_seed};
use incastsim_core::{
    Duration, Ecn, EventQueue, FlowId, HostId, LazyTimer, NodeId, NodeKind, Packet, PacketKind,
    Routes, SackBlock, SimRng, Time, TimerFire,
};
use incastsim_schemes::{ReceiverScheme, SenderScheme};
use incastsim_switch::{
    BufferLimit, Enqueued, OutputPort, QueueDisc, Red, RedParams, RedProfile, Threshold,
    ThresholdAdmit, ThresholdMark,
};
use incastsim_tcp::{
    AckInfo, AckOut, Cc, Cubic, CubicConfig, Dctcp, DelayedAckConfig, EcnFeedback, NewReno,
    ReceiverConfig, RecoveryExit, RtoConfig, RttSampling, SUCCESSIVE_TIMEOUT_BINS, Segment,
    SenderConfig, SenderPolicy, TcpReceiver, TcpSender,
};

/// A pending event: small and `Copy`. Timer events carry their timer's generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head packet of an output port reaches the far end of its link.
    PortHead {
        port: u32,
    },
    /// A strict-priority port finished a transmission and picks the next packet.
    PortTxDone {
        port: u32,
    },
    Rto {
        flow: u32,
        generation: u32,
    },
    DelayedAck {
        flow: u32,
        generation: u32,
    },
    /// A server starts answering a request (after its start jitter).
    ServerStart {
        flow: u32,
    },
    /// Re-requests, from every server that has sent nothing yet, the block started at `block`.
    RequestCheck {
        block: u32,
    },
    /// A UDP CBR source sends its next datagram.
    UdpSend {
        source: u32,
    },
    /// A traffic-generator flow starts (and schedules its generator's next flow).
    FlowStart {
        flow: u32,
    },
    /// A fixed-duration flow's application stops writing.
    FlowStop {
        flow: u32,
    },
    /// The next overhead-delayed segment of `flow` leaves its host (`tcp.send_overhead`).
    DeferredSend {
        flow: u32,
    },
    /// Take one time-series sample.
    Sample,
    /// The end of a fixed-duration workload.
    End,
    /// A scheme's periodic per-connection timer (only for schemes that ask for one).
    SchemeTimer {
        flow: u32,
    },
}

/// ns-2-style random send overhead of one flow.
struct SendOverhead {
    max: Duration,
    rng: SimRng,
    pending: std::collections::VecDeque<(Time, Packet)>,
    last_release: Time,
}

/// A constant-bit-rate UDP background source.
#[derive(Clone, Debug)]
struct UdpSource {
    src: HostId,
    dst: HostId,
    interval: Duration,
    wire_bytes: u32,
    stop: Option<Time>,
    dscp: u8,
    sent: u64,
    delivered: u64,
}

/// Counters for the conservation invariant: sent = delivered + dropped + in flight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacketCounters {
    /// Packets hosts handed to their NIC.
    pub sent: u64,
    /// Packets that reached their destination host.
    pub delivered: u64,
    /// Packets switches handed to an output port.
    pub forwarded: u64,
}

/// State of the synchronized-reads application (client + servers).
struct SyncReads {
    client: HostId,
    /// Bytes flow f sends per block.
    per_flow_bytes: Vec<u64>,
    blocks_total: u32,
    /// Current block, 0-based.
    block: u32,
    block_start: Time,
    flows_pending: u32,
    /// Cumulative bytes flow f must have delivered for the current block to be complete.
    target: Vec<u64>,
    delivered: Vec<u64>,
    done: Vec<bool>,
    /// Next block each server will serve (deduplicates retried requests).
    next_to_serve: Vec<u32>,
    jitter_rngs: Vec<SimRng>,
    start_jitter: Duration,
    request_bytes: u32,
    request_timeout: Duration,
    block_times: Vec<Duration>,
}

struct Bulk {
    duration: Duration,
    start_jitter: Duration,
    jitter_rngs: Vec<SimRng>,
}

enum Workload {
    SyncReads(SyncReads),
    Bulk(Bulk),
    /// Only the traffic generators; arrivals end at `duration`, then drain if asked.
    Traffic {
        duration: Duration,
        drain: bool,
    },
}

/// Run-time state of the traffic generators' flows (flow `workload_flows + i` is entry i).
struct GeneratedFlows {
    spec: Vec<GeneratedFlow>,
    completed_at: Vec<Option<Time>>,
    /// Bytes delivered when a fixed-duration flow stopped.
    delivered_at_stop: Vec<Option<u64>>,
    /// Sized flows not yet complete.
    finite_pending: u64,
    /// The traffic workload's arrival period is over; finish when `finite_pending` reaches 0.
    draining: bool,
}

#[derive(Clone, Copy, Debug)]
struct FlowEnds {
    src: HostId,
    dst: HostId,
}

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The workload finished (all blocks, or the fixed duration).
    Completed,
    /// `run.max_sim_time` was reached first.
    TimeLimit,
    /// Nothing left to do but the workload is not finished (should not happen; reported).
    Stalled,
}

pub struct Simulation {
    cfg: Config,
    seed: u64,
    events: EventQueue<Event>,
    nodes: Vec<NodeKind>,
    node_names: Vec<String>,
    ports: Vec<OutputPort>,
    port_from: Vec<NodeId>,
    routes: Routes,
    ecmp_salt: u64,
    static_routing: bool,
    host_port: Vec<u32>,
    flows: Vec<FlowEnds>,
    senders: Vec<TcpSender<SenderScheme>>,
    receivers: Vec<TcpReceiver<ReceiverScheme>>,
    rto_timers: Vec<LazyTimer>,
    delack_timers: Vec<LazyTimer>,
    workload: Workload,
    /// Flows 0..workload_flows belong to the workload; the rest to the traffic generators.
    workload_flows: usize,
    generated: GeneratedFlows,
    /// Header bytes of requests and background packets (the top-level TCP setting).
    header_bytes: u16,
    /// Per flow: header bytes and DSCP of its packets.
    flow_header: Vec<u16>,
    flow_dscp: Vec<u8>,
    /// `tcp.send_overhead` per flow (empty when every flow has none): the delay bound, its
    /// RNG, the segments waiting to leave (release time, packet), the last release time.
    send_overhead: Vec<SendOverhead>,
    udp: Vec<UdpSource>,
    /// Time series: sampled ports (with departed bytes at the last sample) and flows.
    sampled_ports: Vec<(u32, u64)>,
    sampled_flows: Vec<u32>,
    sample_interval: Duration,
    series: Vec<crate::metrics::TimeSeriesRecord>,
    traced_port: Option<u32>,
    /// Drop runs, loss events and the book's model inputs (`crate::diagnostics`).
    diag: Diagnostics,
    segments: Vec<Segment>,
    acks: Vec<AckOut>,
    counters: PacketCounters,
    events_processed: u64,
    finished_at: Option<Time>,
    outcome: Option<Outcome>,
    /// Scheme support (all idle for `scheme: none`): the per-flow timer period and whether each
    /// flow's timer event is pending; the active-senders oracle (MAA).
    scheme_timer_period: Option<Duration>,
    scheme_timer_pending: Vec<bool>,
    active_oracle: bool,
    flow_active: Vec<bool>,
    active_senders: u32,
}

impl Simulation {
    /// Builds a simulation of `cfg` (already validated) with the config's seed.
    pub fn new(cfg: &Config) -> Simulation {
        Simulation::with_seed(cfg, cfg.seed)
    }

    pub fn with_seed(cfg: &Config, seed: u64) -> Simulation {
        let built = build_topology(cfg);
        let routes = crate::build::routes_for(&built)
            .expect("validated: topologies are connected and loop-free");
        let built_for_traffic = BuiltTopology {
            topology: built.topology.clone(),
            port_buffers: Vec::new(),
            route_overrides: Vec::new(),
            servers: built.servers.clone(),
            clients: built.clients.clone(),
        };
        let BuiltTopology {
            topology,
            servers,
            clients,
            port_buffers,
            ..
        } = built;
        let links = cfg.topology.links();
        // Per-node clock offsets: a node's ports all run at nominal × (1 + offset).
        let ppm = links.clock_tolerance_ppm;
        let clock_rate = |nominal: incastsim_core::BitsPerSec, node: NodeId| {
            if ppm == 0.0 {
                return nominal;
            }
            let u = SimRng::for_stream(seed, Stream::Clock, node as u64).unit_f64();
            let offset = (2.0 * u - 1.0) * ppm * 1e-6;
            incastsim_core::BitsPerSec((nominal.0 as f64 * (1.0 + offset)).round() as u64)
        };
        let ports: Vec<OutputPort> = topology
            .ports
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                let from_host = matches!(topology.nodes[spec.from as usize], NodeKind::Host(_));
                let to_switch = matches!(topology.nodes[spec.to as usize], NodeKind::Switch(_));
                let limit = buffer_limit(if from_host {
                    links.host_buffer
                } else {
                    port_buffers[i].unwrap_or(links.switch_buffer)
                });
                let latency = spec.propagation
                    + if to_switch {
                        links.switch_delay.0
                    } else {
                        Duration::ZERO
                    };
                let serialization =
                    incastsim_core::SerializationRate::new(clock_rate(spec.rate, spec.from));
                let qdisc = if from_host {
                    QueueDisc::drop_tail(limit)
                } else {
                    // RED's idle correction counts idle time in full-size packet transmissions.
                    let typical_tx_ps =
                        serialization.time_for(cfg.full_packet_bytes()).as_ps() as f64;
                    let rng = SimRng::for_stream(seed, Stream::Queue, i as u64);
                    switch_qdisc(&links.switch_queue, limit, typical_tx_ps, rng)
                };
                OutputPort::new(
                    spec.to,
                    serialization,
                    latency,
                    spec.loss_probability,
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
            .collect();
        let port_from = topology.ports.iter().map(|p| p.from).collect();
        let node_names = crate::build::node_names(&topology);
        let host_node: Vec<NodeId> = (0..topology.host_count() as u32)
            .map(|h| topology.node_of_host(h))
            .collect();
        let host_port: Vec<u32> = host_node
            .iter()
            .map(|&n| topology.ports_of[n as usize][0])
            .collect();

        let t = &cfg.tcp;
        let rto_initial = t.rto_initial.map_or(t.rto_min.0, |d| d.0);
        let workload_flows = cfg.workload.flow_count(cfg.senders) as usize;
        let generated = crate::traffic::generate_for(cfg, seed, &built_for_traffic)
            .expect("validated: traffic generators");
        let flows: Vec<FlowEnds> = servers
            .iter()
            .enumerate()
            .take(workload_flows)
            .map(|(i, &src)| FlowEnds {
                src,
                dst: clients[i % clients.len()],
            })
            .chain(generated.iter().map(|g| FlowEnds {
                src: g.src,
                dst: g.dst,
            }))
            .collect();
        let n = flows.len();
        // Each flow runs its own TCP settings (the top-level ones or its override group's).
        let senders = (0..n)
            .map(|f| {
                let ft = cfg.tcp_for_flow(f as u32);
                let scheme = crate::scheme_build::sender_scheme(&cfg.scheme, seed, f as u32);
                let mut s = TcpSender::new(f as FlowId, sender_config(ft), make_cc(ft), scheme);
                s.set_peer_window(receiver_config(ft).window_bytes as u64);
                s.set_packet_cwnd(ft.cwnd_unit == crate::config::CwndUnit::Packets);
                s
            })
            .collect();
        let mut receiver_schemes =
            crate::scheme_build::receiver_factory(&cfg.scheme, links.link_rate.0.as_f64());
        let receivers = (0..n)
            .map(|f| {
                let t = cfg.tcp_for_flow(f as u32);
                let scheme = receiver_schemes.make(flows[f].dst, t.mss.0 as u32);
                TcpReceiver::new(receiver_config(t), scheme)
            })
            .collect();
        let flow_header: Vec<u16> = (0..n)
            .map(|f| {
                let h = cfg.tcp_for_flow(f as u32).header.0;
                cfg.scheme.header_bytes().unwrap_or(h) as u16
            })
            .collect();
        let flow_dscp: Vec<u8> = (0..n).map(|f| cfg.tcp_for_flow(f as u32).dscp).collect();
        let send_overhead: Vec<SendOverhead> =
            if (0..n).any(|f| cfg.tcp_for_flow(f as u32).send_overhead.0 > Duration::ZERO) {
                (0..n)
                    .map(|f| SendOverhead {
                        max: cfg.tcp_for_flow(f as u32).send_overhead.0,
                        rng: SimRng::for_stream(seed, Stream::SendOverhead, f as u64),
                        pending: std::collections::VecDeque::new(),
                        last_release: Time::ZERO,
                    })
                    .collect()
            } else {
                Vec::new()
            };
        let jitter_rngs = |seed| {
            (0..workload_flows as u64)
                .map(|i| SimRng::for_stream(seed, Stream::StartJitter, i))
                .collect()
        };
        let workload = match &cfg.workload {
            WorkloadConfig::SynchronizedReads {
                sru,
                block,
                blocks,
                request_size,
                start_jitter,
                request_timeout,
            } => {
                let nw = workload_flows;
                let per_flow_bytes: Vec<u64> = match (sru, block) {
                    (Some(s), _) => vec![s.0; nw],
                    (None, Some(b)) => {
                        // Stripe the block: the first (block mod N) servers carry one extra byte.
                        let (q, r) = (b.0 / nw as u64, b.0 % nw as u64);
                        (0..nw as u64).map(|i| q + u64::from(i < r)).collect()
                    }
                    (None, None) => unreachable!("validated: sru or block"),
                };
                Workload::SyncReads(SyncReads {
                    client: clients[0],
                    target: vec![0; nw],
                    delivered: vec![0; nw],
                    done: vec![false; nw],
                    per_flow_bytes,
                    blocks_total: *blocks,
                    block: 0,
                    block_start: Time::ZERO,
                    flows_pending: 0,
                    next_to_serve: vec![0; nw],
                    jitter_rngs: jitter_rngs(seed),
                    start_jitter: start_jitter.0,
                    request_bytes: request_size.0 as u32,
                    request_timeout: request_timeout.map_or(rto_initial, |d| d.0),
                    block_times: Vec::with_capacity(*blocks as usize),
                })
            }
            WorkloadConfig::Bulk {
                duration,
                start_jitter,
            } => Workload::Bulk(Bulk {
                duration: duration.0,
                start_jitter: start_jitter.0,
                jitter_rngs: jitter_rngs(seed),
            }),
            WorkloadConfig::Traffic { duration, drain } => Workload::Traffic {
                duration: duration.0,
                drain: *drain,
            },
        };
        let generated = GeneratedFlows {
            finite_pending: generated.iter().filter(|g| g.size.is_some()).count() as u64,
            completed_at: vec![None; generated.len()],
            delivered_at_stop: vec![None; generated.len()],
            spec: generated,
            draining: false,
        };

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
            let host = |sel: HostSelector| match sel {
                HostSelector::Sender(i) => vec![servers[i as usize]],
                HostSelector::Receiver(i) => vec![clients[i as usize]],
                HostSelector::AllSenders => servers.clone(),
            };
            let dst = host(HostSelector::parse(to).expect("validated"))[0];
            let interval = incastsim_core::SerializationRate::new(rate.0).time_for(packet_size.0);
            for src in host(HostSelector::parse(from).expect("validated")) {
                udp.push((
                    start.0,
                    UdpSource {
                        src,
                        dst,
                        interval,
                        wire_bytes: packet_size.0 as u32,
                        stop: stop.map(|d| Time::ZERO + d.0),
                        dscp: *dscp,
                        sent: 0,
                        delivered: 0,
                    },
                ));
            }
        }
        let udp_starts: Vec<Duration> = udp.iter().map(|(s, _)| *s).collect();
        let udp: Vec<UdpSource> = udp.into_iter().map(|(_, u)| u).collect();

        let mut sim = Simulation {
            cfg: cfg.clone(),
            seed,
            events: EventQueue::new(),
            nodes: topology.nodes.clone(),
            node_names,
            ports,
            port_from,
            routes,
            ecmp_salt: derive_seed(seed, Stream::Ecmp, 0),
            static_routing: cfg.topology.routing() == crate::config::RoutingConfig::Static,
            host_port,
            flows,
            senders,
            receivers,
            rto_timers: vec![LazyTimer::default(); n],
            delack_timers: vec![LazyTimer::default(); n],
            workload,
            workload_flows,
            generated,
            header_bytes: t.header.0 as u16,
            flow_header,
            flow_dscp,
            send_overhead,
            udp,
            sampled_ports: Vec::new(),
            sampled_flows: Vec::new(),
            sample_interval: Duration::ZERO,
            series: Vec::new(),
            traced_port: None,
            diag: Diagnostics::default(),
            segments: Vec::with_capacity(64),
            acks: Vec::with_capacity(8),
            counters: PacketCounters::default(),
            events_processed: 0,
            finished_at: None,
            outcome: None,
            scheme_timer_period: None,
            scheme_timer_pending: vec![false; n],
            active_oracle: false,
            flow_active: vec![false; n],
            active_senders: 0,
        };
        if let Some(s) = sim.senders.first() {
            sim.scheme_timer_period = s.policy.timer_period();
            sim.active_oracle = s.policy.wants_active_senders();
        }
        if let Some(ts) = &cfg.time_series {
            let names = crate::build::port_names(&topology);
            sim.sampled_ports = ts
                .ports
                .iter()
                .map(|p| {
                    (
                        names
                            .iter()
                            .position(|n| n == p)
                            .expect("validated port name") as u32,
                        0,
                    )
                })
                .collect();
            sim.sampled_flows = ts.flows.clone();
            if let Some(name) = &ts.on_change_port {
                let port = names
                    .iter()
                    .position(|n| n == name)
                    .expect("validated port name");
                sim.ports[port].enable_trace();
                sim.traced_port = Some(port as u32);
            }
            sim.sample_interval = ts.interval.0;
            sim.events.schedule(Time::ZERO, Event::Sample);
        }
        for (i, start) in udp_starts.into_iter().enumerate() {
            sim.events
                .schedule(Time::ZERO + start, Event::UdpSend { source: i as u32 });
        }
        sim.diag = sim.new_diagnostics();
        sim.start();
        sim
    }

    fn start(&mut self) {
        let now = Time::ZERO;
        // Each generator's flows are consecutive and in start order: schedule the first of
        // each; every start schedules the next.
        let w = self.workload_flows;
        for (i, g) in self.generated.spec.iter().enumerate() {
            if i == 0 || self.generated.spec[i - 1].generator != g.generator {
                self.events.schedule(
                    g.start,
                    Event::FlowStart {
                        flow: (w + i) as u32,
                    },
                );
            }
        }
        match &mut self.workload {
            Workload::SyncReads(_) => self.start_block(now),
            Workload::Traffic { duration, .. } => {
                let end = now + *duration;
                self.events.schedule(end, Event::End);
            }
            Workload::Bulk(b) => {
                for f in 0..w {
                    let at = now + b.jitter_rngs[f].duration_up_to(b.start_jitter);
                    self.events
                        .schedule(at, Event::ServerStart { flow: f as u32 });
                }
                let end = now + b.duration;
                self.events.schedule(end, Event::End);
            }
        }
    }

    /// Runs until the workload finishes or the time limit; returns why it stopped.
    pub fn run(&mut self) -> Outcome {
        let limit = Time::ZERO + self.cfg.run.max_sim_time.0;
        while self.outcome.is_none() {
            let Some(t) = self.events.peek_time() else {
                self.outcome = Some(Outcome::Stalled);
                break;
            };
            if t > limit {
                self.outcome = Some(Outcome::TimeLimit);
                self.finished_at = Some(limit);
                break;
            }
            let (now, ev) = self.events.pop().expect("peeked");
            self.events_processed += 1;
            self.dispatch(now, ev);
        }
        self.outcome.expect("set above")
    }

    #[inline(always)]
    fn dispatch(&mut self, now: Time, ev: Event) {
        match ev {
            Event::PortHead { port } => self.on_port_head_arrival(now, port),
            Event::PortTxDone { port } => {
                let done = self.ports[port as usize].on_tx_done(now);
                if let Some(at) = done.schedule_head_at {
                    self.events.schedule(at, Event::PortHead { port });
                }
                if let Some(at) = done.schedule_tx_done_at {
                    self.events.schedule(at, Event::PortTxDone { port });
                }
            }
            Event::Rto { flow, generation } => {
                let f = flow as usize;
                if timer_fires(
                    &mut self.rto_timers[f],
                    &mut self.events,
                    now,
                    generation,
                    |generation| Event::Rto { flow, generation },
                ) {
                    self.segments.clear();
                    self.senders[f].on_timeout(now, &mut self.segments);
                    self.transmit_segments(now, f);
                    self.sync_rto_timer(f);
                }
            }
            Event::DelayedAck { flow, generation } => {
                let f = flow as usize;
                if timer_fires(
                    &mut self.delack_timers[f],
                    &mut self.events,
                    now,
                    generation,
                    |generation| Event::DelayedAck { flow, generation },
                ) {
                    self.acks.clear();
                    self.receivers[f].on_delack_timeout(now, &mut self.acks);
                    self.transmit_acks(now, f);
                    self.sync_delack_timer(f);
                }
            }
            Event::ServerStart { flow } => self.server_start(now, flow as usize),
            Event::RequestCheck { block } => self.on_request_check(now, block),
            Event::UdpSend { source } => self.udp_send(now, source as usize),
            Event::FlowStart { flow } => self.flow_start(now, flow as usize),
            Event::FlowStop { flow } => {
                let f = flow as usize;
                let i = f - self.workload_flows;
                self.senders[f].stop_writing();
                self.generated.delivered_at_stop[i] =
                    Some(self.receivers[f].stats().delivered_bytes);
            }
            Event::DeferredSend { flow } => {
                let f = flow as usize;
                let o = &mut self.send_overhead[f];
                let (_, mut packet) = o
                    .pending
                    .pop_front()
                    .expect("one event per pending segment");
                if let Some(&(next, _)) = o.pending.front() {
                    self.events.schedule(next, Event::DeferredSend { flow });
                }
                packet.timestamp_ps = now.as_ps();
                self.send_from_host(now, self.flows[f].src, packet);
            }
            Event::Sample => self.sample(now),
            Event::End => {
                if let Workload::Traffic { drain: true, .. } = self.workload
                    && self.generated.finite_pending > 0
                {
                    self.generated.draining = true;
                } else {
                    self.finish(now);
                }
            }
            Event::SchemeTimer { flow } => self.on_scheme_timer(now, flow as usize),
        }
    }

    /// Records one time-series sample and schedules the next.
    fn sample(&mut self, now: Time) {
        let t = now.as_secs_f64();
        let interval_s = self.sample_interval.as_secs_f64();
        for i in 0..self.sampled_ports.len() {
            let (port, last_departed) = self.sampled_ports[i];
            let p = &mut self.ports[port as usize];
            let occ = p.occupancy(now);
            let departed = p.stats.departed_bytes;
            let rate = p.serialization().rate().as_f64();
            let object = format!(
                "port {}->{}",
                self.node_names[self.port_from[port as usize] as usize],
                self.node_names[p.to as usize]
            );
            let utilization = if now == Time::ZERO {
                0.0
            } else {
                (departed - last_departed) as f64 * 8.0 / rate / interval_s
            };
            self.sampled_ports[i].1 = departed;
            for (metric, value) in [
                ("queue_bytes", occ.bytes as f64),
                ("queue_packets", occ.packets as f64),
                ("utilization", utilization),
            ] {
                self.series.push(crate::metrics::TimeSeriesRecord {
                    scenario: self.cfg.name.clone(),
                    seed: self.seed,
                    time_s: t,
                    object: object.clone(),
                    metric,
                    value,
                });
            }
        }
        for &f in &self.sampled_flows {
            let s = &self.senders[f as usize];
            let w = s.window();
            let values = [
                ("cwnd_bytes", w.cwnd as f64),
                ("ssthresh_bytes", w.ssthresh.min(u32::MAX as u64) as f64),
                ("rto_ms", s.rtt().backed_off_rto(0).as_ms_f64()),
                (
                    "srtt_us",
                    s.rtt().srtt().map_or(f64::NAN, |d| d.as_us_f64()),
                ),
            ];
            for (metric, value) in values {
                self.series.push(crate::metrics::TimeSeriesRecord {
                    scenario: self.cfg.name.clone(),
                    seed: self.seed,
                    time_s: t,
                    object: format!("flow {f}"),
                    metric,
                    value,
                });
            }
        }
        self.events
            .schedule(now + self.sample_interval, Event::Sample);
    }

    /// A UDP CBR source emits one datagram and schedules the next.
    fn udp_send(&mut self, now: Time, i: usize) {
        let u = &mut self.udp[i];
        if u.stop.is_some_and(|stop| now >= stop) {
            return;
        }
        let header = (self.header_bytes as u32).min(u.wire_bytes);
        let mut packet = Packet::new(
            PacketKind::Udp,
            i as FlowId,
            u.dst,
            u.wire_bytes - header,
            header as u16,
        );
        packet.seq = u.sent;
        packet.timestamp_ps = now.as_ps();
        packet.dscp = u.dscp;
        u.sent += 1;
        let (src, next) = (u.src, now + u.interval);
        self.events
            .schedule(next, Event::UdpSend { source: i as u32 });
        self.send_from_host(now, src, packet);
    }

    /// The head packet of `port` reaches the node at the far end of the link.
    #[inline]
    fn on_port_head_arrival(&mut self, now: Time, port: u32) {
        let p = &mut self.ports[port as usize];
        let to = p.to;
        let arrival = p.pop_arrival(now);
        if let Some(at) = arrival.next_head_at {
            self.events.schedule(at, Event::PortHead { port });
        }
        let Some(packet) = arrival.packet else { return };
        match self.nodes[to as usize] {
            NodeKind::Switch(_) => self.forward(now, to, packet, port),
            NodeKind::Host(h) => {
                debug_assert_eq!(packet.dst, h, "packet delivered to the wrong host");
                self.counters.delivered += 1;
                self.deliver_to_host(now, packet);
            }
        }
    }

    /// A switch picks the output port (ECMP per flow) and offers the packet to it; `input` is
    /// the port the packet arrived on.
    #[inline]
    fn forward(&mut self, now: Time, node: NodeId, packet: Packet, input: u32) {
        let port = if self.static_routing {
            self.routes.next_hop_static(node, packet.dst)
        } else {
            self.routes
                .next_hop(node, packet.dst, packet.flow, self.ecmp_salt)
        };
        self.counters.forwarded += 1;
        self.enqueue(now, port, packet, input);
    }

    /// Offers `packet`, which entered the port's node on `input` (`LOCAL_INPUT` for a host's
    /// own packets), to `port`.
    #[inline]
    fn enqueue(&mut self, now: Time, port: u32, packet: Packet, input: u32) {
        let (flow, kind) = (packet.flow, packet.kind);
        if let Enqueued::Admitted {
            schedule_head_at,
            schedule_tx_done_at,
        } = self.ports[port as usize].enqueue(now, packet)
        {
            self.diag.on_admitted(port, input, flow, kind);
            if let Some(at) = schedule_head_at {
                self.events.schedule(at, Event::PortHead { port });
            }
            if let Some(at) = schedule_tx_done_at {
                self.events.schedule(at, Event::PortTxDone { port });
            }
        } else {
            self.on_admission_drop(now, port, input, flow, kind);
        }
    }

    /// Drop diagnostics (runs, loss events): out of line, so the admission path stays small.
    #[cold]
    #[inline(never)]
    fn on_admission_drop(&mut self, now: Time, port: u32, input: u32, flow: u32, kind: PacketKind) {
        let srtt = match kind {
            PacketKind::Data => self.senders[flow as usize].rtt().srtt(),
            _ => None,
        };
        self.diag.on_dropped(now, port, input, flow, kind, srtt);
    }

    /// A host hands a packet to its NIC.
    #[inline]
    fn send_from_host(&mut self, now: Time, host: HostId, packet: Packet) {
        self.counters.sent += 1;
        let port = self.host_port[host as usize];
        self.enqueue(now, port, packet, LOCAL_INPUT);
    }

    fn deliver_to_host(&mut self, now: Time, packet: Packet) {
        let f = packet.flow as usize;
        match packet.kind {
            PacketKind::Data => {
                self.acks.clear();
                let delivered = self.receivers[f].on_segment(
                    now,
                    packet.seq,
                    packet.payload_bytes,
                    packet.timestamp_ps,
                    packet.flags,
                    packet.ecn == Ecn::Ce,
                    &mut self.acks,
                );
                self.transmit_acks(now, f);
                self.sync_delack_timer(f);
                if delivered > 0 {
                    self.on_app_delivery(now, f, delivered);
                }
            }
            PacketKind::Ack => {
                let mut info = AckInfo::plain(
                    packet.ack(),
                    packet.window_bytes as u64,
                    packet.timestamp_ps,
                );
                info.ece = packet.has_flag(flags::ECE);
                info.flags = packet.flags & (flags::LABEL | flags::DUMMY);
                info.sack_count = packet.sack_count;
                for (dst, b) in info
                    .sack_blocks
                    .iter_mut()
                    .zip(&packet.sack[..packet.sack_count as usize])
                {
                    let start = packet.ack() + b.start_offset as u64;
                    *dst = (start, start + b.len as u64);
                }
                self.segments.clear();
                self.senders[f].on_ack(now, &info, &mut self.segments);
                self.transmit_segments(now, f);
                self.sync_rto_timer(f);
            }
            PacketKind::Request => self.on_request(now, f, packet.seq as u32),
            PacketKind::Udp => self.udp[f].delivered += 1,
        }
    }

    fn transmit_segments(&mut self, now: Time, f: usize) {
        let FlowEnds { src, dst } = self.flows[f];
        for i in 0..self.segments.len() {
            let s = self.segments[i];
            let mut packet = Packet::new(
                PacketKind::Data,
                f as FlowId,
                dst,
                s.len,
                self.flow_header[f],
            );
            packet.seq = s.seq;
            packet.timestamp_ps = now.as_ps();
            packet.flags = s.flags;
            packet.dscp = self.flow_dscp[f];
            if s.ect {
                packet.ecn = Ecn::Ect0;
            }
            if let Some(o) = self.send_overhead.get_mut(f)
                && o.max > Duration::ZERO
            {
                // ns-2 overhead_: an extra U[0, max], never overtaking the previous segment.
                let release = (now + o.rng.duration_up_to(o.max)).max(o.last_release);
                o.last_release = release;
                o.pending.push_back((release, packet));
                if o.pending.len() == 1 {
                    self.events
                        .schedule(release, Event::DeferredSend { flow: f as u32 });
                }
                continue;
            }
            self.send_from_host(now, src, packet);
        }
    }

    fn transmit_acks(&mut self, now: Time, f: usize) {
        let FlowEnds { src, dst } = self.flows[f];
        for i in 0..self.acks.len() {
            let a = self.acks[i];
            let mut packet = Packet::new(PacketKind::Ack, f as FlowId, src, 0, self.flow_header[f]);
            packet.seq = a.ack; // an ACK's cumulative acknowledgement
            packet.timestamp_ps = a.ts_echo_ps;
            packet.window_bytes = a.window;
            packet.dscp = self.flow_dscp[f];
            packet.flags |= a.flags;
            if a.ece {
                packet.flags |= flags::ECE;
            }
            packet.sack_count = a.sack_count;
            for (dst, &(start, end)) in packet
                .sack
                .iter_mut()
                .zip(&a.sack_blocks[..a.sack_count as usize])
            {
                *dst = SackBlock {
                    start_offset: (start - a.ack) as u32,
                    len: (end - start) as u32,
                };
            }
            self.send_from_host(now, dst, packet);
        }
    }

    /// Mirrors the sender's retransmission deadline into its lazy timer.
    #[inline]
    fn sync_rto_timer(&mut self, f: usize) {
        let want = self.senders[f].rto_deadline();
        sync_timer(
            &mut self.rto_timers[f],
            want,
            &mut self.events,
            |generation| Event::Rto {
                flow: f as u32,
                generation,
            },
        );
        if let Some(period) = self.scheme_timer_period {
            self.arm_scheme_timer(f, period);
        }
    }

    #[inline]
    fn sync_delack_timer(&mut self, f: usize) {
        let want = self.receivers[f].delack_deadline();
        sync_timer(
            &mut self.delack_timers[f],
            want,
            &mut self.events,
            |generation| Event::DelayedAck {
                flow: f as u32,
                generation,
            },
        );
    }

    // ----- the synchronized-reads application -----

    /// The client requests the current block from every server.
    fn start_block(&mut self, now: Time) {
        let Workload::SyncReads(w) = &mut self.workload else {
            return;
        };
        w.block_start = now;
        w.flows_pending = w.per_flow_bytes.len() as u32;
        for f in 0..w.per_flow_bytes.len() {
            w.target[f] += w.per_flow_bytes[f];
            w.done[f] = false;
        }
        for f in 0..self.workload_flows {
            self.send_request(now, f);
        }
        let Workload::SyncReads(w) = &mut self.workload else {
            return;
        };
        // One check per block (not one timer per server) keeps the event heap small.
        self.events.schedule(
            now + w.request_timeout,
            Event::RequestCheck { block: w.block },
        );
    }

    fn send_request(&mut self, now: Time, f: usize) {
        let Workload::SyncReads(w) = &mut self.workload else {
            return;
        };
        let header = (self.header_bytes as u32).min(w.request_bytes);
        let FlowEnds {
            src: server,
            dst: client,
        } = self.flows[f];
        debug_assert_eq!(client, w.client);
        let mut packet = Packet::new(
            PacketKind::Request,
            f as FlowId,
            server,
            w.request_bytes - header,
            header as u16,
        );
        packet.seq = w.block as u64;
        packet.timestamp_ps = now.as_ps();
        self.send_from_host(now, client, packet);
    }

    /// A request is only lost to link loss (or an overfull buffer): re-request from every server
    /// from which no byte of the current block has arrived, and check again later. (Late
    /// duplicates of the previous block do not count as an answer.)
    fn on_request_check(&mut self, now: Time, block: u32) {
        let Workload::SyncReads(w) = &mut self.workload else {
            return;
        };
        if block != w.block || w.block >= w.blocks_total {
            return; // that block is complete
        }
        let silent: Vec<usize> = (0..self.workload_flows)
            .filter(|&f| {
                let block_start = w.target[f] - w.per_flow_bytes[f];
                !w.done[f] && self.receivers[f].highest_received() <= block_start
            })
            .collect();
        for f in silent {
            self.send_request(now, f);
        }
        let Workload::SyncReads(w) = &mut self.workload else {
            return;
        };
        self.events
            .schedule(now + w.request_timeout, Event::RequestCheck { block });
    }

    /// A server receives a request for `block`; it answers after its start jitter.
    fn on_request(&mut self, now: Time, f: usize, block: u32) {
        let Workload::SyncReads(w) = &mut self.workload else {
            return;
        };
        if block != w.next_to_serve[f] {
            return; // a duplicate of a request already being served
        }
        w.next_to_serve[f] += 1;
        let at = now + w.jitter_rngs[f].duration_up_to(w.start_jitter);
        self.events
            .schedule(at, Event::ServerStart { flow: f as u32 });
    }

    /// A server writes its response (or a bulk sender starts).
    fn server_start(&mut self, now: Time, f: usize) {
        self.set_flow_active(f, true);
        let bytes = match &self.workload {
            Workload::SyncReads(w) => w.per_flow_bytes[f],
            // "Always has data": far more than any run can send.
            Workload::Bulk(_) | Workload::Traffic { .. } => ALWAYS_HAS_DATA,
        };
        self.segments.clear();
        self.senders[f].write(now, bytes, &mut self.segments);
        self.transmit_segments(now, f);
        self.sync_rto_timer(f);
    }

    /// A traffic-generator flow starts: its application writes the flow (or endless data).
    fn flow_start(&mut self, now: Time, f: usize) {
        let i = f - self.workload_flows;
        let g = self.generated.spec[i];
        if let Some(next) = self.generated.spec.get(i + 1)
            && next.generator == g.generator
        {
            self.events
                .schedule(next.start, Event::FlowStart { flow: f as u32 + 1 });
        }
        if let Some(stop) = g.stop {
            self.events
                .schedule(stop, Event::FlowStop { flow: f as u32 });
        }
        self.segments.clear();
        self.senders[f].write(now, g.size.unwrap_or(ALWAYS_HAS_DATA), &mut self.segments);
        self.transmit_segments(now, f);
        self.sync_rto_timer(f);
    }

    fn on_app_delivery(&mut self, now: Time, f: usize, bytes: u64) {
        if f >= self.workload_flows {
            let i = f - self.workload_flows;
            let g = &mut self.generated;
            if let Some(size) = g.spec[i].size
                && g.completed_at[i].is_none()
                && self.receivers[f].stats().delivered_bytes >= size
            {
                g.completed_at[i] = Some(now);
                g.finite_pending -= 1;
                if g.finite_pending == 0 && g.draining {
                    self.finish(now);
                }
            }
            return;
        }
        let Workload::SyncReads(w) = &mut self.workload else {
            return;
        };
        w.delivered[f] += bytes;
        if w.done[f] || w.delivered[f] < w.target[f] {
            return;
        }
        debug_assert_eq!(
            w.delivered[f], w.target[f],
            "a server sent more than it was asked for"
        );
        w.done[f] = true;
        w.flows_pending -= 1;
        self.set_flow_active(f, false);
        let Workload::SyncReads(w) = &mut self.workload else {
            return;
        };
        if w.flows_pending > 0 {
            return;
        }
        w.block_times.push(now.since(w.block_start));
        w.block += 1;
        if w.block < w.blocks_total {
            self.start_block(now);
        } else {
            self.finish(now);
        }
    }

    fn finish(&mut self, now: Time) {
        self.finished_at = Some(now);
        self.outcome = Some(Outcome::Completed);
    }

    // ----- results and invariants -----

    pub fn now(&self) -> Time {
        self.events.now()
    }
    pub fn counters(&self) -> PacketCounters {
        self.counters
    }
    pub fn events_processed(&self) -> u64 {
        self.events_processed
    }
    pub fn senders(&self) -> &[TcpSender<SenderScheme>] {
        &self.senders
    }
    pub fn receivers(&self) -> &[TcpReceiver<ReceiverScheme>] {
        &self.receivers
    }
    pub fn ports(&self) -> &[OutputPort] {
        &self.ports
    }

    /// Packets dropped anywhere (every reason).
    pub fn packets_dropped(&self) -> u64 {
        self.ports.iter().map(|p| p.stats.drops_total()).sum()
    }

    /// Packets in port FIFOs (queued or propagating).
    pub fn packets_in_flight(&self) -> u64 {
        self.ports.iter().map(|p| p.packets_in_port() as u64).sum()
    }

    /// Checks the end-of-run invariants; returns a description of the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        let c = self.counters;
        let (dropped, in_flight) = (self.packets_dropped(), self.packets_in_flight());
        if c.sent != c.delivered + dropped + in_flight {
            return Err(format!(
                "packet conservation: sent {} != delivered {} + dropped {} + in flight {}",
                c.sent, c.delivered, dropped, in_flight
            ));
        }
        for (f, (s, r)) in self.senders.iter().zip(&self.receivers).enumerate() {
            // Every byte delivered exactly once and in order: the receiver's in-order point is the
            // count of delivered bytes, and it never passes what the application wrote.
            if r.stats().delivered_bytes != r.rcv_nxt() || r.rcv_nxt() > s.app_limit() {
                return Err(format!(
                    "flow {f}: delivered {} B, rcv_nxt {}, written {}",
                    r.stats().delivered_bytes,
                    r.rcv_nxt(),
                    s.app_limit()
                ));
            }
            if s.snd_una() > r.rcv_nxt() {
                return Err(format!(
                    "flow {f}: sender saw ACK {} beyond receiver {}",
                    s.snd_una(),
                    r.rcv_nxt()
                ));
            }
        }
        if let Workload::SyncReads(w) = &self.workload
            && self.outcome == Some(Outcome::Completed)
        {
            for (f, r) in self.receivers.iter().enumerate().take(self.workload_flows) {
                let expected = w.per_flow_bytes[f] * w.blocks_total as u64;
                if r.stats().delivered_bytes != expected {
                    return Err(format!(
                        "flow {f}: delivered {} of {expected} B",
                        r.stats().delivered_bytes
                    ));
                }
            }
        }
        // A sized flow delivers exactly its size, and completes when it has.
        for (i, g) in self.generated.spec.iter().enumerate() {
            let f = self.workload_flows + i;
            let got = self.receivers[f].stats().delivered_bytes;
            if let Some(size) = g.size
                && (got > size || (got == size) != self.generated.completed_at[i].is_some())
            {
                return Err(format!(
                    "flow {f}: delivered {got} of {size} B, completed {:?}",
                    self.generated.completed_at[i]
                ));
            }
        }
        Ok(())
    }

    /// Collects the run's results. Call after [`Simulation::run`].
    pub fn results(&mut self) -> RunResult {
        for s in &mut self.senders {
            s.close_stats();
        }
        self.diag.close();
        let cfg = &self.cfg;
        let end = self.finished_at.unwrap_or(self.events.now());
        let secs = end.as_secs_f64();
        let delivered: Vec<u64> = self
            .receivers
            .iter()
            .map(|r| r.stats().delivered_bytes)
            .collect();
        let w = self.workload_flows;
        let all_bytes: u64 = delivered.iter().sum();
        let app_bytes: u64 = if w > 0 {
            delivered[..w].iter().sum()
        } else {
            all_bytes
        };
        let mbps = |bytes: u64| {
            if secs > 0.0 {
                bytes as f64 * 8.0 / secs / 1e6
            } else {
                0.0
            }
        };
        // Per flow: (start, FCT if a sized flow completed, goodput over its active time).
        let timing: Vec<(Time, Option<Duration>, f64)> = (0..delivered.len())
            .map(|f| {
                if f < w {
                    return (Time::ZERO, None, mbps(delivered[f]));
                }
                let i = f - w;
                let g = &self.generated.spec[i];
                let rate = |bytes: u64, d: Duration| {
                    if d == Duration::ZERO {
                        0.0
                    } else {
                        bytes as f64 * 8.0 / d.as_secs_f64() / 1e6
                    }
                };
                if let (Some(size), Some(done)) = (g.size, self.generated.completed_at[i]) {
                    let fct = done.since(g.start);
                    return (g.start, Some(fct), rate(size, fct));
                }
                let goodput = match (g.stop, self.generated.delivered_at_stop[i]) {
                    (Some(stop), Some(bytes)) => rate(bytes, stop.since(g.start)),
                    _ if end > g.start => rate(delivered[f], end.since(g.start)),
                    _ => 0.0,
                };
                (g.start, None, goodput)
            })
            .collect();
        let flow_goodputs: Vec<f64> = timing.iter().map(|t| t.2).collect();
        let jain = {
            let generators: Vec<u32> = self.generated.spec.iter().map(|g| g.generator).collect();
            let chosen = crate::traffic::select_flows(
                &cfg.metrics.fairness.flows,
                w,
                &generators,
                cfg.traffic.len(),
            )
            .expect("validated: metrics.fairness.flows");
            match cfg.metrics.fairness.per {
                crate::config::FairnessPer::Flow => {
                    jain_fairness(&chosen.iter().map(|&f| flow_goodputs[f]).collect::<Vec<_>>())
                }
                crate::config::FairnessPer::Sender => {
                    // The TCPRand paper's g_i: the mean goodput of the flows sender i sent.
                    let mut per_host = std::collections::BTreeMap::<HostId, (f64, u32)>::new();
                    for &f in &chosen {
                        let e = per_host.entry(self.flows[f].src).or_default();
                        e.0 += flow_goodputs[f];
                        e.1 += 1;
                    }
                    jain_fairness(
                        &per_host
                            .values()
                            .map(|(sum, n)| sum / *n as f64)
                            .collect::<Vec<_>>(),
                    )
                }
            }
        };
        let ideal: Vec<Option<Duration>> = (0..delivered.len())
            .map(|f| {
                timing[f].1?;
                let size = self.generated.spec[f - w].size?;
                Some(self.ideal_fct(f, size))
            })
            .collect();
        let fct_pairs: Vec<(u64, f64, f64)> = (w..delivered.len())
            .filter_map(|f| {
                let fct = timing[f].1?;
                let ideal = ideal[f]?;
                let size = self.generated.spec[f - w].size?;
                Some((
                    size,
                    fct.as_ms_f64(),
                    fct.as_ps() as f64 / ideal.as_ps() as f64,
                ))
            })
            .collect();
        let group = |lo: u64, hi: u64| {
            crate::metrics::FctStats::of(
                &fct_pairs
                    .iter()
                    .filter(|p| p.0 >= lo && p.0 < hi)
                    .map(|p| (p.1, p.2))
                    .collect::<Vec<_>>(),
            )
        };
        let (e1, e2) = (cfg.metrics.fct_bins[0].0, cfg.metrics.fct_bins[1].0);
        let fct_all = group(0, u64::MAX);
        let fct_groups = [group(0, e1), group(e1, e2), group(e2, u64::MAX)];

        let (block_times_ms, per_flow_mean) = match &self.workload {
            Workload::SyncReads(w) => (
                w.block_times
                    .iter()
                    .map(|d| d.as_ms_f64())
                    .collect::<Vec<_>>(),
                w.per_flow_bytes.iter().sum::<u64>() as f64 / w.per_flow_bytes.len() as f64,
            ),
            Workload::Bulk(_) | Workload::Traffic { .. } => (Vec::new(), 0.0),
        };
        let mut sorted = block_times_ms.clone();
        sorted.sort_by(f64::total_cmp);
        let mean = if sorted.is_empty() {
            f64::NAN
        } else {
            sorted.iter().sum::<f64>() / sorted.len() as f64
        };

        let mut hist = [0u64; SUCCESSIVE_TIMEOUT_BINS];
        let mut rto_count = 0;
        let mut flows_with_rto = 0;
        let mut max_succ = 0;
        let mut wait_ps = 0u64;
        let mut fast = 0;
        let mut retx = 0;
        let mut segs = 0;
        for s in &self.senders {
            let st = s.stats();
            for (h, v) in hist.iter_mut().zip(&st.successive_timeouts) {
                *h += v;
            }
            rto_count += st.timeouts;
            flows_with_rto += u32::from(st.timeouts > 0);
            max_succ = max_succ.max(st.max_successive_timeouts);
            wait_ps += st.timeout_wait_ps;
            fast += st.fast_retransmits;
            retx += st.retransmitted_segments;
            segs += st.segments_sent;
        }
        let links = cfg.topology.links();
        let (blocks, blocks_completed) = match (&cfg.workload, &self.workload) {
            (WorkloadConfig::SynchronizedReads { blocks, .. }, Workload::SyncReads(w)) => {
                (*blocks, w.block_times.len() as u32)
            }
            _ => (0, 0),
        };
        let mut run = RunRecord {
            scenario: cfg.name.clone(),
            seed: self.seed,
            topology: cfg.topology.kind().into(),
            senders: cfg.senders,
            workload: cfg.workload.kind().into(),
            scheme: cfg.scheme.name().into(),
            congestion_control: match cfg.tcp.congestion_control {
                CongestionControlName::Newreno => "newreno",
                CongestionControlName::Cubic => "cubic",
                CongestionControlName::Dctcp => "dctcp",
            }
            .into(),
            link_rate_bps: links.link_rate.0.0,
            switch_buffer: links.switch_buffer.to_string(),
            mss_bytes: cfg.tcp.mss.0,
            header_bytes: cfg.tcp.header.0,
            rto_min_us: cfg.tcp.rto_min.0.as_us_f64(),
            fast_retransmit_bound: crate::scheme_config::fast_retransmit_sender_bound(cfg),
            sru_bytes: per_flow_mean,
            blocks,
            completed: self.outcome == Some(Outcome::Completed),
            sim_time_s: secs,
            app_bytes,
            goodput_mbps: mbps(app_bytes),
            total_goodput_mbps: mbps(all_bytes),
            jain_fairness: jain,
            flows_finite: self
                .generated
                .spec
                .iter()
                .filter(|g| g.size.is_some())
                .count() as u64,
            flows_completed: fct_all.count,
            blocks_completed,
            bct_mean_ms: mean,
            bct_p50_ms: quantile(&sorted, 0.5),
            bct_p99_ms: quantile(&sorted, 0.99),
            bct_max_ms: sorted.last().copied().unwrap_or(f64::NAN),
            rto_count,
            flows_with_rto,
            rto_run_1: 0,
            rto_run_2: 0,
            rto_run_3: 0,
            rto_run_4: 0,
            rto_run_5: 0,
            rto_run_6: 0,
            rto_run_7: 0,
            rto_run_8plus: 0,
            max_successive_rto: max_succ,
            max_first_rto_ms: self
                .senders
                .iter()
                .map(|s| s.stats().first_timeout_rto_ps)
                .filter(|&ps| ps > 0)
                .max()
                .map_or(f64::NAN, |ps| ps as f64 / 1e9),
            timeout_wait_s: wait_ps as f64 / 1e12,
            fast_retransmits: fast,
            sack_retransmits: self
                .senders
                .iter()
                .map(|s| s.stats().sack_retransmits)
                .sum(),
            retransmitted_segments: retx,
            data_segments_sent: segs,
            ecn_reductions: self.senders.iter().map(|s| s.stats().ecn_reductions).sum(),
            drops_total: self.packets_dropped(),
            drops_buffer: self.ports.iter().map(|p| p.stats.drops_buffer).sum(),
            drops_aqm: self.ports.iter().map(|p| p.stats.drops_aqm).sum(),
            drops_link_loss: self.ports.iter().map(|p| p.stats.drops_link_loss).sum(),
            max_port_drops: self
                .ports
                .iter()
                .map(|p| p.stats.drops_total())
                .max()
                .unwrap_or(0),
            ecn_marks: self.ports.iter().map(|p| p.stats.ecn_marks).sum(),
            udp_packets_sent: self.udp.iter().map(|u| u.sent).sum(),
            udp_packets_delivered: self.udp.iter().map(|u| u.delivered).sum(),
            packets_sent: self.counters.sent,
            packets_forwarded: self.counters.forwarded,
            events: self.events_processed,
            ..RunRecord::default()
        };
        run.set_successive(&hist);
        run.set_fct(&fct_all, &fct_groups);

        let mut flows: Vec<FlowRecord> = self
            .senders
            .iter()
            .enumerate()
            .map(|(f, s)| {
                let st = s.stats();
                FlowRecord {
                    scenario: cfg.name.clone(),
                    seed: self.seed,
                    senders: cfg.senders,
                    flow: f as u32,
                    src_host: self.flows[f].src,
                    dst_host: self.flows[f].dst,
                    kind: match f.checked_sub(w) {
                        None => "workload".into(),
                        Some(i) => cfg.traffic[self.generated.spec[i].generator as usize]
                            .kind()
                            .into(),
                    },
                    generator: f.checked_sub(w).map(|i| self.generated.spec[i].generator),
                    start_s: timing[f].0.as_secs_f64(),
                    size_bytes: f.checked_sub(w).and_then(|i| self.generated.spec[i].size),
                    fct_ms: timing[f].1.map(|d| d.as_ms_f64()),
                    ideal_fct_ms: ideal[f].map(|d| d.as_ms_f64()),
                    slowdown: timing[f]
                        .1
                        .zip(ideal[f])
                        .map(|(a, b)| a.as_ps() as f64 / b.as_ps() as f64),
                    congestion_control: s.cc().name().to_string(),
                    bytes_delivered: delivered[f],
                    goodput_mbps: flow_goodputs[f],
                    rto_count: st.timeouts,
                    max_successive_rto: st.max_successive_timeouts,
                    timeout_wait_s: st.timeout_wait_ps as f64 / 1e12,
                    fast_retransmits: st.fast_retransmits,
                    sack_retransmits: st.sack_retransmits,
                    retransmitted_segments: st.retransmitted_segments,
                    segments_sent: st.segments_sent,
                    ecn_reductions: st.ecn_reductions,
                    final_cwnd_bytes: s.window().cwnd,
                    final_ssthresh_bytes: s.window().ssthresh.min(u32::MAX as u64 * 1000),
                    srtt_us: s.rtt().srtt().map_or(f64::NAN, |d| d.as_us_f64()),
                    ..FlowRecord::default()
                }
            })
            .collect();
        let end_ps = end.as_ps().max(1) as f64;
        let mean_queue: Vec<f64> = self
            .ports
            .iter_mut()
            .map(|p| p.mean_queue_bytes(end))
            .collect();
        let mut ports: Vec<PortRecord> = self
            .ports
            .iter()
            .enumerate()
            .map(|(i, p)| PortRecord {
                scenario: cfg.name.clone(),
                seed: self.seed,
                senders: cfg.senders,
                port: i as u32,
                from_node: self.node_names[self.port_from[i] as usize].clone(),
                to_node: self.node_names[p.to as usize].clone(),
                packets_enqueued: p.stats.enqueued_packets,
                drops_buffer: p.stats.drops_buffer,
                drops_aqm: p.stats.drops_aqm,
                drops_link_loss: p.stats.drops_link_loss,
                ecn_marks: p.stats.ecn_marks,
                mean_queue_bytes: mean_queue[i],
                max_queue_bytes: p.stats.max_buffered_bytes,
                max_queue_packets: p.stats.max_buffered_packets,
                utilization: (p.stats.busy_ps as f64 / end_ps).min(1.0),
                ..PortRecord::default()
            })
            .collect();
        let mut port_classes = Vec::new();
        for (i, p) in self.ports.iter().enumerate() {
            let st = &p.stats;
            for c in 0..incastsim_switch::STAT_CLASSES {
                if st.class_enqueued[c] + st.class_drops[c] > 0 {
                    port_classes.push(PortClassRecord {
                        scenario: cfg.name.clone(),
                        seed: self.seed,
                        senders: cfg.senders,
                        port: i as u32,
                        from_node: self.node_names[self.port_from[i] as usize].clone(),
                        to_node: self.node_names[p.to as usize].clone(),
                        class: c as u32,
                        packets_enqueued: st.class_enqueued[c],
                        drops: st.class_drops[c],
                        ecn_marks: st.class_marks[c],
                    });
                }
            }
        }
        let drop_runs = self.fill_diagnostics(&mut run, &mut flows, &mut ports);
        RunResult {
            drop_runs,
            run,
            flows,
            ports,
            port_classes,
            time_series: {
                let mut series = std::mem::take(&mut self.series);
                if let Some(port) = self.traced_port {
                    let object = format!(
                        "port {}->{}",
                        self.node_names[self.port_from[port as usize] as usize],
                        self.node_names[self.ports[port as usize].to as usize]
                    );
                    for (t, bytes, packets) in self.ports[port as usize].take_trace(end) {
                        for (metric, value) in [
                            ("queue_bytes_exact", bytes as f64),
                            ("queue_packets_exact", packets as f64),
                        ] {
                            series.push(crate::metrics::TimeSeriesRecord {
                                scenario: cfg.name.clone(),
                                seed: self.seed,
                                time_s: t.as_secs_f64(),
                                object: object.clone(),
                                metric,
                                value,
                            });
                        }
                    }
                }
                series
            },
            block_times_ms,
        }
    }
}

impl Simulation {
    /// The diagnostics state for this network: per-flow base RTTs of the model flows (the
    /// workload's, or every flow of a `traffic` workload) for loss-event rounds.
    fn new_diagnostics(&self) -> Diagnostics {
        let model_flows = if self.workload_flows > 0 {
            self.workload_flows
        } else {
            self.flows.len()
        };
        let base_rtt = (0..model_flows)
            .map(|f| {
                let FlowEnds { src, dst } = self.flows[f];
                let t = self.cfg.tcp_for_flow(f as u32);
                let one_way = |hops: Vec<Hop>, bytes: u64| {
                    hops.iter().fold(Duration::ZERO, |d, h| {
                        d + h.latency + h.serialization.time_for(bytes)
                    })
                };
                one_way(self.path(src, dst), t.mss.0 + t.header.0)
                    + one_way(self.path(dst, src), t.header.0)
            })
            .collect();
        let port_to: Vec<NodeId> = self.ports.iter().map(|p| p.to).collect();
        Diagnostics::new(
            &self.nodes,
            &self.port_from,
            &port_to,
            self.flows.len(),
            model_flows,
            base_rtt,
        )
    }

    /// Fills the diagnostic columns of runs/flows/ports.csv; returns drop_runs.csv's rows.
    fn fill_diagnostics(
        &self,
        run: &mut RunRecord,
        flows: &mut [FlowRecord],
        ports: &mut [PortRecord],
    ) -> Vec<crate::metrics::DropRunRecord> {
        for (rec, s) in flows.iter_mut().zip(&self.senders) {
            self.diag.fill_flow(rec, s);
        }
        for rec in ports.iter_mut() {
            self.diag.fill_port(rec);
        }
        let model_flows = if self.workload_flows > 0 {
            self.workload_flows
        } else {
            self.flows.len()
        };
        let (blocks_requested, block_bytes) = match &self.workload {
            Workload::SyncReads(w) => (
                w.block_times.len() as u64 + u64::from(w.block < w.blocks_total),
                w.per_flow_bytes.iter().sum(),
            ),
            // No blocks: the whole run is one transfer of what was delivered.
            Workload::Bulk(_) | Workload::Traffic { .. } => (
                1,
                self.receivers[..model_flows]
                    .iter()
                    .map(|r| r.stats().delivered_bytes)
                    .sum(),
            ),
        };
        let t = &self.cfg.tcp;
        let port_offered: Vec<u64> = self
            .ports
            .iter()
            .map(|p| p.stats.enqueued_packets + p.stats.drops_buffer + p.stats.drops_aqm)
            .collect();
        self.diag.fill_run(
            run,
            &ModelContext {
                senders: &self.senders,
                packets_offered: port_offered.iter().sum(),
                blocks_requested,
                block_bytes,
                mss_bytes: t.mss.0,
                rto_min: t.rto_min.0,
                delayed_ack: t.delayed_ack.enabled,
                evaluate: self.cfg.metrics.models,
            },
        );
        self.diag.drop_run_records(
            &self.cfg.name,
            self.seed,
            self.cfg.senders,
            &port_offered,
            |p| {
                let p = p as usize;
                format!(
                    "{}->{}",
                    self.node_names[self.port_from[p] as usize],
                    self.node_names[self.ports[p].to as usize]
                )
            },
        )
    }

    /// The hops (output ports) from host `src` to host `dst` on the static route.
    fn path(&self, src: HostId, dst: HostId) -> Vec<Hop> {
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

    /// Flow `f`'s completion time alone on the idle network (see [`ideal_fct`]).
    fn ideal_fct(&self, f: usize, size: u64) -> Duration {
        let FlowEnds { src, dst } = self.flows[f];
        let t = self.cfg.tcp_for_flow(f as u32);
        ideal_fct(
            &self.path(src, dst),
            &self.path(dst, src),
            size,
            IdealTcp {
                mss: t.mss.0,
                header: t.header.0,
                initial_cwnd_segments: t.initial_cwnd as u64,
                receive_window_segments: t.receive_window_segments as u64,
            },
        )
    }
}

/// Bytes an always-busy application writes: far more than any run can send.
const ALWAYS_HAS_DATA: u64 = u64::MAX / 4;

// ----- scheme support: the per-flow scheme timer and the active-senders oracle -----

impl Simulation {
    /// Schedules flow f's scheme timer if it has data outstanding and no timer event pending.
    #[cold]
    fn arm_scheme_timer(&mut self, f: usize, period: Duration) {
        let s = &self.senders[f];
        if !self.scheme_timer_pending[f] && s.snd_una() < s.snd_max() {
            self.scheme_timer_pending[f] = true;
            let at = self.events.now() + period;
            self.events
                .schedule(at, Event::SchemeTimer { flow: f as u32 });
        }
    }

    #[cold]
    fn on_scheme_timer(&mut self, now: Time, f: usize) {
        self.scheme_timer_pending[f] = false;
        let s = &self.senders[f];
        if s.snd_una() < s.snd_max() {
            self.segments.clear();
            self.senders[f].on_scheme_timer(now, &mut self.segments);
            self.transmit_segments(now, f);
        }
        // Re-arms the timer while data is outstanding.
        self.sync_rto_timer(f);
    }

    /// MAA's oracle: a flow is active from its server's start until its response is delivered.
    #[inline]
    fn set_flow_active(&mut self, f: usize, active: bool) {
        if self.active_oracle && self.flow_active[f] != active {
            self.update_active(f, active);
        }
    }

    #[cold]
    fn update_active(&mut self, f: usize, active: bool) {
        self.flow_active[f] = active;
        if active {
            self.active_senders += 1;
        } else {
            self.active_senders -= 1;
        }
        let n = self.active_senders;
        for s in &mut self.senders {
            s.set_active_senders(n);
        }
    }
}

/// Runs one (config, seed) to completion and checks its invariants.
pub fn run_once(cfg: &Config, seed: u64) -> Result<RunResult, String> {
    let mut sim = Simulation::with_seed(cfg, seed);
    sim.run();
    sim.check_invariants()?;
    Ok(sim.results())
}

/// The sender settings of a TCP configuration.
fn sender_config(t: &crate::config::TcpConfig) -> SenderConfig {
    SenderConfig {
        smss: t.mss.0 as u32,
        initial_cwnd_segments: t.initial_cwnd,
        dupack_threshold: t.dupack_threshold,
        limited_transmit: t.limited_transmit,
        rto: RtoConfig {
            min: t.rto_min.0,
            max: t.rto_max.0,
            initial: t.rto_initial.map_or(t.rto_min.0, |d| d.0),
            granularity: t.clock_granularity.0,
        },
        rtt_sampling: match t.rtt_sampling {
            RttSamplingName::Timestamps => RttSampling::Timestamps,
            RttSamplingName::OncePerRtt => RttSampling::OncePerRtt,
        },
        recovery_exit: match t.recovery_exit_cwnd {
            RecoveryExitName::Ssthresh => RecoveryExit::Ssthresh,
            RecoveryExitName::MinFlight => RecoveryExit::MinFlight,
        },
        slow_start_after_idle: t.slow_start_after_idle,
        ecn: t.ecn,
        sack: t.loss_recovery == LossRecovery::Sack,
    }
}

/// The receiver settings of a TCP configuration.
fn receiver_config(t: &crate::config::TcpConfig) -> ReceiverConfig {
    ReceiverConfig {
        window_bytes: (t.receive_window_segments as u64 * t.mss.0) as u32,
        delayed_ack: t.delayed_ack.enabled.then_some(DelayedAckConfig {
            count: t.delayed_ack.count,
            timeout: t.delayed_ack.timeout.0,
        }),
        ecn: match (t.congestion_control, t.ecn) {
            (CongestionControlName::Dctcp, _) => EcnFeedback::Dctcp,
            (_, true) => EcnFeedback::Classic,
            (_, false) => EcnFeedback::Off,
        },
        sack: t.loss_recovery == LossRecovery::Sack,
    }
}

/// A fresh congestion controller for a TCP configuration.
fn make_cc(t: &crate::config::TcpConfig) -> Cc {
    match t.congestion_control {
        CongestionControlName::Newreno => Cc::NewReno(NewReno::default()),
        CongestionControlName::Cubic => Cc::Cubic(Cubic::new(CubicConfig {
            c: t.cubic.c,
            beta: t.cubic.beta,
            fast_convergence: t.cubic.fast_convergence,
        })),
        CongestionControlName::Dctcp => Cc::Dctcp(Dctcp::new(t.dctcp.g, t.dctcp.initial_alpha)),
    }
}

/// A lazy timer's event popped: true if the timer fires now. A timer moved later re-queues its
/// event (with the new generation); a cancelled or superseded one is dropped.
#[inline]
fn timer_fires(
    timer: &mut LazyTimer,
    events: &mut EventQueue<Event>,
    now: Time,
    generation: u32,
    event: impl Fn(u32) -> Event,
) -> bool {
    match timer.on_event(now, generation) {
        TimerFire::Fire => true,
        TimerFire::Reschedule(at, g) => {
            events.schedule(at, event(g));
            false
        }
        TimerFire::Stale => false,
    }
}

/// Arms, moves or cancels a lazy timer so its deadline is `want`, scheduling an event if needed.
#[inline]
fn sync_timer(
    timer: &mut LazyTimer,
    want: Option<Time>,
    events: &mut EventQueue<Event>,
    event: impl Fn(u32) -> Event,
) {
    if timer.deadline() == want {
        return;
    }
    match want {
        Some(d) => {
            if let Some((at, generation)) = timer.arm(d) {
                events.schedule(at, event(generation));
            }
        }
        None => timer.cancel(),
    }
}

fn threshold(b: Buffer) -> Threshold {
    match b {
        Buffer::Bytes(n) => Threshold::Bytes(n),
        Buffer::Packets(n) => Threshold::Packets(n),
        Buffer::Unlimited => unreachable!("validated: thresholds are sizes"),
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
