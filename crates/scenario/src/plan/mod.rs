//! Plan: a config and a seed turned into every object a run needs. [`Plan::new`] (or
//! [`Plan::build`], with [`crate::RunOptions`]) is the only fallible step between a [`Config`]
//! and a run: it builds the topology and its routes, the ports, one TCP profile per override
//! group, every flow with its origin, the schemes, the applications' parameters and what to
//! observe, and refuses what cannot run. The engine
//! ([`crate::engine::Simulation::from_plan`]) then only assembles and cannot fail.

mod apps;
pub mod cdf;
mod checks;
mod connections;
pub mod fabric;
mod int;
pub mod memory;
pub mod pfc;
mod ports;
pub mod rdma_cc;
pub mod schemes;
mod tcp;
pub mod topology;
pub mod traffic;

pub use apps::{CapturePlan, ObservePlan, SendOverheadPlan, SyncReadsPlan, UdpPlan, WorkloadPlan};
pub use checks::{check_buildable, from_yaml_checked, load_checked};
pub use connections::{ConnectionFactory, value_columns};
pub use tcp::{ControllerFactory, TcpProfile};

use crate::config::{Config, ConfigError, QueueConfig, RoutingConfig};
use crate::engine::diagnostics::Diagnostics;
use crate::extend::{Extensions, PreparedQueueDiscipline};
use crate::plan::fabric::Fabric;
use crate::plan::topology::BuiltTopology;
use crate::plan::traffic::GeneratedFlow;
use incastsim_core::rng::{Stream, derive_seed};
use incastsim_core::{Duration, HostId, NodeId, SimRng};
use incastsim_tcp::SenderPolicy;

/// Where a TCP flow comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowOrigin {
    /// One of the workload's flows (synchronized reads: a server's responses; bulk: a sender).
    Workload,
    /// Entry `index` of the generated flows, drawn by traffic generator `generator`.
    Generated {
        /// Index into [`Plan::generated`].
        index: u32,
        /// Index of the generator in `traffic:`.
        generator: u32,
    },
}

/// One TCP connection of the run.
#[derive(Clone, Copy, Debug)]
pub struct PlannedFlow {
    /// The data sender.
    pub src: HostId,
    /// The data receiver.
    pub dst: HostId,
    /// Workload or traffic generator.
    pub origin: FlowOrigin,
    /// Index into [`Plan::profiles`].
    pub profile: u32,
}

/// Everything a run is made of, built and checked.
pub struct Plan {
    /// The checked config the plan was built from.
    pub cfg: Config,
    /// The run's seed: every random stream derives from it and a component id.
    pub seed: u64,
    /// Nodes, ports, routes and shared buffers.
    pub fabric: Fabric,
    /// Priority Flow Control (`pfc:`), if on.
    pub pfc: Option<pfc::PfcPlan>,
    /// In-band telemetry's store (PSN slots per flow, records per packet), if some queue
    /// pair's packets carry an INT header.
    pub int: Option<(u64, usize)>,
    /// Workload flows first, then the generated flows in generator and start order.
    pub flows: Vec<PlannedFlow>,
    /// Profile 0 is the top-level `tcp`; profile i + 1 is `flow_overrides[i]`.
    pub profiles: Vec<TcpProfile>,
    /// Builds each flow's TCP sender and receiver (the engine builds a traffic generator's when
    /// its flow starts, every other flow's up front).
    pub connections: ConnectionFactory,
    /// Per flow, when any flow has a send overhead (else empty: the hot path skips it).
    pub send_overhead: Vec<SendOverheadPlan>,
    /// The workload application's parameters.
    pub workload: WorkloadPlan,
    /// Number of workload flows (flows 0..workload_flows).
    pub workload_flows: usize,
    /// The traffic generators' flows (flows `workload_flows..`).
    pub generated: Vec<GeneratedFlow>,
    /// Per entry of `traffic:`, its reactive part (empty when no generator is reactive): the
    /// engine asks it for more flows when one of the entry's flows finishes.
    pub reactive: Vec<Option<crate::plan::traffic::ReactiveEntry>>,
    /// The entries whose generators declare values of their own, with the names.
    pub traffic_values: Vec<(u32, &'static [&'static str])>,
    /// Flows that wait for flows: the generators' gates (empty without).
    pub dependencies: crate::plan::traffic::depend::Dependencies,
    /// The collective jobs (`collective` and `goal` entries of `traffic:`).
    pub collectives: Vec<crate::plan::traffic::collective::CollectiveJob>,
    /// Background UDP sources.
    pub udp: Vec<UdpPlan>,
    /// What to sample and trace (time series, pcap).
    pub observe: ObservePlan,
    /// Timeout classification and drop-run counters (docs/diagnostics.md).
    pub diagnostics: Diagnostics,
    /// Header bytes of requests and UDP packets (the top-level `tcp.header`).
    pub header_bytes: u16,
    /// The scheme's per-connection timer period, if it has one.
    pub scheme_timer_period: Option<Duration>,
    /// The scheme reads the number of active senders (MAA).
    pub active_senders_oracle: bool,
    /// The run's [`memory::estimate`] in bytes (the fuzz test holds runs to it).
    pub memory_estimate: u64,
    /// What the run may record as it goes (time series, a traced port, pcap packets: outputs
    /// that grow with simulated time, outside the estimate): half of `RunOptions::max_memory`
    /// minus the estimate. Past it the run ends as `Outcome::MemoryLimit`. `None` without a
    /// limit.
    pub output_budget: Option<u64>,
    /// The probes `probes:` names (built for the run by `Simulation::from_plan`).
    pub probes: Vec<std::sync::Arc<dyn crate::extend::PreparedProbe>>,
    /// The probes added from code ([`crate::RunOptions::probes`]), built for the run by
    /// `Simulation::from_plan` after those of `probes:`.
    pub probe_factories: Vec<crate::probe::ProbeFactory>,
}

impl Plan {
    /// Builds the run of `cfg` with `seed`, or says which key makes it impossible.
    pub fn new(cfg: &Config, seed: u64) -> Result<Plan, ConfigError> {
        Plan::build(cfg, seed, &crate::RunOptions::default())
    }

    /// [`Plan::new`] with `options`: the components `options.extensions` registers (the
    /// config names them by name; [`crate::extend`]), refusing (before building any per-flow
    /// state) a run whose [`memory::estimate`] exceeds `options.max_memory` bytes, and with
    /// `options.probes` built for the run after the config's. `options.stop` is not read here:
    /// it is the running's ([`crate::drive`]).
    pub fn build(
        cfg: &Config,
        seed: u64,
        options: &crate::RunOptions,
    ) -> Result<Plan, ConfigError> {
        let builtin;
        let extensions = match options.extensions {
            Some(extensions) => extensions,
            None => {
                builtin = Extensions::builtin();
                &builtin
            }
        };
        let max_memory = options.max_memory;
        let (built, drawn) = checks::build_and_draw(cfg, seed, extensions)?;
        let crate::plan::traffic::Drawn {
            flows: generated,
            reactive,
            value_names: traffic_values,
            dependencies,
            collectives,
        } = drawn;
        checks::check_built(cfg, &built, &generated)?;
        checks::check_scheduling(cfg, extensions)?;
        let flows = u64::from(cfg.workload.flow_count(cfg.senders)) + generated.len() as u64;
        if flows > crate::engine::event::MAX_FLOWS {
            return Err(ConfigError::Key {
                key: "workload".into(),
                message: format!(
                    "this run has {flows} flows, more than the {} one run can hold: make it smaller",
                    crate::engine::event::MAX_FLOWS
                ),
            });
        }
        let (gated, live_gated) =
            crate::plan::traffic::collective::gated_flows(&generated, &collectives);
        let need = memory::estimate(cfg, &built, flows, gated, live_gated);
        if let Some(limit) = max_memory
            && need.bytes > limit
        {
            return Err(ConfigError::Key {
                key: "memory".into(),
                message: format!(
                    "this run needs {need}, more than the limit of {} (--max-memory): raise --max-memory if the machine has it, or make the run smaller",
                    memory::human_bytes(limit)
                ),
            });
        }

        let routes = topology::route(&built)?;
        let shared = ports::shared_switches(cfg, &built)?;
        let queue_extension = match cfg.topology.switch_queue() {
            QueueConfig::Extension(choice) => {
                Some(extensions.prepare_queue_discipline("topology.switch_queue", choice)?)
            }
            _ => None,
        };
        let fabric = fabric(
            cfg,
            seed,
            &built,
            routes,
            shared,
            queue_extension.as_deref(),
        );
        let pfc = pfc::plan(cfg, &built.topology)?;
        let workload_flows = cfg.workload.flow_count(cfg.senders) as usize;
        let flows = plan_flows(cfg, &built, workload_flows, &generated);

        let (profiles, connections) = connections::factory(cfg, seed, extensions)?;
        let connections = connections.with_host_link_rates(
            fabric
                .host_port
                .iter()
                .map(|&p| fabric.ports[p as usize].serialization().rate())
                .collect(),
        );
        let needs_rtts = connections.needs_base_rtts()
            || profiles
                .iter()
                .any(|p| p.roce.is_some_and(|r| r.int_telemetry));
        let rtts: Vec<Duration> = if needs_rtts {
            flows
                .iter()
                .map(|f| base_rtt(&fabric, f, &profiles[f.profile as usize].ideal))
                .collect()
        } else {
            Vec::new()
        };
        let int = int::int_store_size(&fabric, &flows, &profiles, &rtts);
        let connections = if connections.needs_base_rtts() {
            connections.with_base_rtts(rtts)
        } else {
            connections
        };
        let send_overhead = apps::send_overhead(seed, &flows, &profiles);
        let workload = apps::workload(cfg, seed, workload_flows, &built);
        let udp = apps::udp(cfg, &built);
        let observe = apps::observe(cfg, &built)?;
        let diagnostics = diagnostics(&fabric, &flows, &profiles, workload_flows);
        // Every flow has the same scheme: its first flow's sender says what it needs.
        let (scheme_timer_period, active_senders_oracle) =
            flows.first().map_or((None, false), |f| {
                let s = connections.sender(0, f.src, f.dst, f.profile);
                (s.policy.timer_period(), s.policy.wants_active_senders())
            });
        let probes = cfg
            .probes
            .iter()
            .enumerate()
            .map(|(i, choice)| extensions.prepare_probe(&format!("probes[{i}]"), choice))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Plan {
            pfc,
            int,
            probes,
            probe_factories: options.probes.to_vec(),
            cfg: cfg.clone(),
            seed,
            fabric,
            flows,
            profiles,
            connections,
            send_overhead,
            workload,
            workload_flows,
            generated,
            reactive,
            traffic_values,
            dependencies,
            collectives,
            udp,
            observe,
            diagnostics,
            header_bytes: cfg.tcp.header.0 as u16,
            scheme_timer_period,
            active_senders_oracle,
            memory_estimate: need.bytes,
            // Half of what the limit leaves: the rest is for writing the records out (rows
            // become CSV text) and for what the estimate does not see of the program.
            output_budget: max_memory.map(|limit| limit.saturating_sub(need.bytes) / 2),
        })
    }
}

/// The ports, routes and names of the built topology.
fn fabric(
    cfg: &Config,
    seed: u64,
    built: &BuiltTopology,
    routes: incastsim_core::Routes,
    shared: Vec<(NodeId, Vec<u32>)>,
    queue_extension: Option<&dyn PreparedQueueDiscipline>,
) -> Fabric {
    let topology = &built.topology;
    let shared_buffer_switch: Vec<NodeId> = shared.iter().map(|(n, _)| *n).collect();
    let mut ports = ports::build_ports(cfg, seed, built, &shared_buffer_switch, queue_extension);
    let shared_buffers = ports::build_shared_buffers(cfg, shared, &mut ports);
    let spray = if cfg.topology.routing() == RoutingConfig::PacketSpray {
        (0..topology.nodes.len() as u64)
            .map(|n| SimRng::for_stream(seed, Stream::Spray, n))
            .collect()
    } else {
        Vec::new()
    };
    let host_port = (0..topology.host_count() as u32)
        .map(|h| topology.ports_of[topology.node_of_host(h) as usize][0])
        .collect();
    Fabric {
        nodes: topology.nodes.clone(),
        node_names: crate::plan::topology::node_names(topology),
        ports,
        port_from: topology
            .ports
            .iter()
            .map(|p| p.from)
            .collect::<Vec<NodeId>>(),
        routes,
        ecmp_salt: derive_seed(seed, Stream::Ecmp, 0),
        routing: cfg.topology.routing(),
        spray,
        shared_buffers,
        shared_buffer_switch,
        host_port,
    }
}

/// The TCP profile of flow `f`: that of the first `flow_overrides` group listing it, else the
/// top-level `tcp` (0). Also asked for a flow a reactive generator adds while the run goes.
pub(crate) fn profile_of(cfg: &Config, f: usize) -> u32 {
    cfg.flow_overrides
        .iter()
        .position(|g| g.flows.contains(&(f as u32)))
        .map_or(0, |i| i as u32 + 1)
}

/// The workload's flows (server i → its client) and then the generated ones, each with the
/// profile of its override group (looked up by flow index, as `flow_overrides[i].flows` says).
fn plan_flows(
    cfg: &Config,
    built: &BuiltTopology,
    workload_flows: usize,
    generated: &[GeneratedFlow],
) -> Vec<PlannedFlow> {
    let profile_of = |f: usize| profile_of(cfg, f);
    let clients = &built.clients;
    let workload = built
        .servers
        .iter()
        .take(workload_flows)
        .enumerate()
        .map(|(i, &src)| (src, clients[i % clients.len()], FlowOrigin::Workload));
    let traffic = generated.iter().enumerate().map(|(i, g)| {
        let origin = FlowOrigin::Generated {
            index: i as u32,
            generator: g.generator,
        };
        (g.src, g.dst, origin)
    });
    workload
        .chain(traffic)
        .enumerate()
        .map(|(f, (src, dst, origin))| PlannedFlow {
            src,
            dst,
            origin,
            profile: profile_of(f),
        })
        .collect()
}

/// Flow `f`'s RTT on an idle network: a full data packet out, a header-only ACK back (each
/// hop's latency and serialization).
fn base_rtt(fabric: &Fabric, f: &PlannedFlow, t: &crate::results::ideal_fct::IdealTcp) -> Duration {
    let one_way = |hops: Vec<crate::plan::traffic::Hop>, bytes: u64| {
        hops.iter().fold(Duration::ZERO, |d, h| {
            d + h.latency + h.serialization.time_for(bytes)
        })
    };
    one_way(fabric.path(f.src, f.dst), t.mss + t.header)
        + one_way(fabric.path(f.dst, f.src), t.header)
}

/// Diagnostics state: per-flow base RTTs of the model flows (the workload's, or every flow of a
/// `traffic` workload) for loss-event rounds.
fn diagnostics(
    fabric: &Fabric,
    flows: &[PlannedFlow],
    profiles: &[TcpProfile],
    workload_flows: usize,
) -> Diagnostics {
    let model_flows = if workload_flows > 0 {
        workload_flows
    } else {
        flows.len()
    };
    let base_rtt = flows[..model_flows]
        .iter()
        .map(|f| base_rtt(fabric, f, &profiles[f.profile as usize].ideal))
        .collect();
    let port_to: Vec<NodeId> = fabric.ports.iter().map(|p| p.to).collect();
    Diagnostics::new(
        &fabric.nodes,
        &fabric.port_from,
        &port_to,
        flows.len(),
        model_flows,
        base_rtt,
    )
}
