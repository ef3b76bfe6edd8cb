//! The config checks that need the topology built or the traffic drawn: a custom topology's
//! graph and routes, the traffic generators (hosts, sizes, loads), that the run has flows, the
//! flows `metrics.fairness.flows` selects, and the flows and ports `time_series` and `pcap` name.
//!
//! `Config::load` / `from_yaml` / `from_tree` run only the config-only checks
//! (`incastsim_config::check`). [`super::Plan::new`] runs these on the topology it builds;
//! [`check_buildable`] runs them alone (for `incastsim check` and sweep expansion, without
//! building the run). [`load_checked`] and [`from_yaml_checked`] load and check in full.
//!
//! With components from other crates ([`crate::extend`]), load with them and check with them:
//! `let cfg = Config::load_with(path, overrides, &extensions)?;` then
//! `check_buildable(&cfg, &extensions)?` (what the plain loaders do with
//! [`Extensions::builtin`]).

use crate::config::{Config, ConfigError, TopologyConfig, invalid};
use crate::extend::Extensions;
use crate::plan::topology::BuiltTopology;
use crate::plan::traffic::GeneratedFlow;
use std::path::Path;

/// The checks of `cfg` that need it built, in order, knowing the components `extensions`
/// registers (also that every extension `cfg` names is registered there and its parameters
/// read; [`Extensions::builtin`] for none); `cfg` must have passed the config-only checks
/// (every `Config` from `Config::from_tree` or `Config::from_tree_with` has).
pub fn check_buildable(cfg: &Config, extensions: &Extensions) -> Result<(), ConfigError> {
    check_extensions(cfg, extensions)?;
    let (built, drawn) = build_and_draw(cfg, cfg.seed, extensions)?;
    if let TopologyConfig::Custom(_) = &cfg.topology {
        crate::plan::topology::route(&built)?;
    }
    check_built(cfg, &built, &drawn.flows)
}

/// Every extension `cfg` names is registered in `extensions` and its parameters read.
fn check_extensions(cfg: &Config, extensions: &Extensions) -> Result<(), ConfigError> {
    use crate::config::CongestionControlName;
    for (key, t) in cfg.tcp_sections() {
        if let CongestionControlName::Extension(choice) = &t.congestion_control {
            extensions.prepare_controller(&key.key("congestion_control"), choice)?;
        }
        // A RoCE section's rate controller: its parameters (a built-in's) or its registration.
        crate::plan::rdma_cc::RdmaControllerFactory::new(
            &t.transport,
            &format!("{key}."),
            extensions,
        )?;
    }
    if let crate::config::QueueConfig::Extension(choice) = cfg.topology.switch_queue() {
        extensions.prepare_queue_discipline("topology.switch_queue", choice)?;
    }
    check_scheduling(cfg, extensions)?;
    crate::plan::schemes::prepare_extension(&cfg.scheme, extensions)?;
    Ok(())
}

/// A queue discipline that schedules picks every departure itself: strict priority classes
/// on the same ports would be a second scheduler, so `topology.priority_classes` must be 1
/// (checked by [`check_buildable`] and again by `Plan::build`, which library callers may reach
/// without it).
pub(super) fn check_scheduling(cfg: &Config, extensions: &Extensions) -> Result<(), ConfigError> {
    let crate::config::QueueConfig::Extension(choice) = cfg.topology.switch_queue() else {
        return Ok(());
    };
    let classes = cfg.topology.links().priority_classes;
    if classes <= 1 && cfg.pfc.is_none() && !cfg.int_telemetry_on() {
        return Ok(());
    }
    use incastsim_switch::QueueDiscipline;
    let queue = extensions.prepare_queue_discipline("topology.switch_queue", choice)?;
    let probe = crate::extend::QueueContext::new(
        cfg.seed,
        0,
        "switch",
        incastsim_core::BitsPerSec::gbps(1),
        incastsim_switch::BufferLimit::Unlimited,
        cfg.tcp.mss.0 as u32,
    );
    if queue.new_discipline(&probe).schedules() && cfg.pfc.is_some() {
        return Err(invalid(
            "topology.switch_queue",
            &choice.name,
            "a discipline that does not schedule its own departures, with pfc (PFC pauses \
             the classes of a strict-priority port)",
        ));
    }
    if queue.new_discipline(&probe).schedules() && cfg.int_telemetry_on() {
        return Err(invalid(
            "topology.switch_queue",
            &choice.name,
            "a discipline that does not schedule its own departures, with in-band telemetry \
             (tcp.transport.int_telemetry, or hpcc: switches stamp a packet when it gets the \
             transmitter)",
        ));
    }
    if queue.new_discipline(&probe).schedules() && classes > 1 {
        return Err(invalid(
            "topology.priority_classes",
            classes,
            format!(
                "1 with topology.switch_queue {}, a discipline that schedules its own \
                 departures",
                choice.name
            ),
        ));
    }
    Ok(())
}

/// Builds the topology (checking a custom graph first) and draws the traffic generators' flows
/// (the registered ones' from `extensions`), which checks their hosts, sizes and loads.
pub(super) fn build_and_draw(
    cfg: &Config,
    seed: u64,
    extensions: &Extensions,
) -> Result<(BuiltTopology, crate::plan::traffic::Drawn), ConfigError> {
    let prepared = extensions.prepare_traffic(cfg)?;
    let built = crate::plan::topology::build_topology(cfg)?;
    let drawn = crate::plan::traffic::generate_for(cfg, seed, &built, &prepared)?;
    Ok((built, drawn))
}

/// The checks that need the built topology and the drawn flows.
pub(super) fn check_built(
    cfg: &Config,
    built: &BuiltTopology,
    generated: &[GeneratedFlow],
) -> Result<(), ConfigError> {
    super::ports::shared_switches(cfg, built)?;
    super::pfc::plan(cfg, &built.topology)?;
    let workload_flows = cfg.workload.flow_count(cfg.senders) as usize;
    let total_flows = workload_flows + generated.len();
    if total_flows == 0 {
        return Err(invalid(
            "traffic",
            "no flows",
            "a `traffic` workload needs generators that start at least one flow",
        ));
    }
    let generators: Vec<u32> = generated.iter().map(|g| g.generator).collect();
    crate::plan::traffic::select_flows(
        &cfg.metrics.fairness.flows,
        workload_flows,
        &generators,
        cfg.traffic.len(),
    )
    .map_err(|allowed| {
        invalid(
            "metrics.fairness.flows",
            &cfg.metrics.fairness.flows,
            allowed,
        )
    })?;
    let lossy = &cfg.topology.links().lossy_links;
    if !lossy.is_empty() {
        let names = crate::plan::topology::port_names(&built.topology);
        for (i, rule) in lossy.iter().enumerate() {
            for (j, pattern) in rule.ports.iter().enumerate() {
                if !names
                    .iter()
                    .any(|n| crate::plan::topology::port_matches(pattern, n))
                {
                    let examples: Vec<&String> = names.iter().take(4).collect();
                    return Err(invalid(
                        &format!("topology.lossy_links[{i}].ports[{j}]"),
                        pattern,
                        format!(
                            "a port name \"from->to\" (`*` matches any characters) that names \
                             at least one port, e.g. {examples:?}"
                        ),
                    ));
                }
            }
        }
    }
    if let Some(ts) = &cfg.time_series {
        if let Some(&f) = ts.flows.iter().find(|&&f| f as usize >= total_flows) {
            return Err(invalid(
                "time_series.flows",
                f,
                format!("flow indices below the number of flows ({total_flows})"),
            ));
        }
        if !ts.ports.is_empty() || ts.on_change_port.is_some() {
            let names = crate::plan::topology::port_names(&built.topology);
            if let Some(p) = ts
                .ports
                .iter()
                .chain(ts.on_change_port.iter())
                .find(|p| !names.contains(p))
            {
                let examples: Vec<&String> = names.iter().take(4).collect();
                return Err(invalid(
                    "time_series.ports",
                    p,
                    format!("an existing port \"from->to\", e.g. {examples:?}"),
                ));
            }
        }
    }
    if let Some(p) = &cfg.pcap {
        check_pcap(p, total_flows, built)?;
    }
    Ok(())
}

/// `pcap.flows` are flows of the run and `pcap.ports` ports of the topology.
fn check_pcap(
    p: &crate::config::PcapConfig,
    total_flows: usize,
    built: &BuiltTopology,
) -> Result<(), ConfigError> {
    if let Some(&f) = p.flows.iter().find(|&&f| f as usize >= total_flows) {
        return Err(invalid(
            "pcap.flows",
            f,
            format!("flow indices below the number of flows ({total_flows})"),
        ));
    }
    if p.ports.is_empty() {
        return Ok(());
    }
    let names = crate::plan::topology::port_names(&built.topology);
    if let Some(name) = p.ports.iter().find(|n| !names.contains(n)) {
        let examples: Vec<&String> = names.iter().take(4).collect();
        return Err(invalid(
            "pcap.ports",
            name,
            format!("an existing port \"from->to\", e.g. {examples:?}"),
        ));
    }
    Ok(())
}

/// `Config::load`, then [`check_buildable`]: a config that is ready to run (built-in
/// components only: see the module's doc for extensions).
pub fn load_checked(path: &Path, overrides: &[String]) -> Result<Config, ConfigError> {
    let cfg = Config::load(path, overrides)?;
    check_buildable(&cfg, &Extensions::builtin())?;
    Ok(cfg)
}

/// `Config::from_yaml`, then [`check_buildable`]: a config that is ready to run (built-in
/// components only: see the module's doc for extensions).
pub fn from_yaml_checked(text: &str, overrides: &[String]) -> Result<Config, ConfigError> {
    let cfg = Config::from_yaml(text, overrides)?;
    check_buildable(&cfg, &Extensions::builtin())?;
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "senders: 4
topology: {kind: star}
workload: {kind: synchronized_reads, sru: 64KB}
";

    #[test]
    fn loading_checks_the_values_and_check_buildable_the_rest() {
        let o = ["time_series={interval: 1ms, ports: [\"switch0->host99\"]}".to_string()];
        // The port name is only known once the topology is built.
        let cfg = Config::from_yaml(BASE, &o).unwrap();
        let e = check_buildable(&cfg, &Extensions::builtin())
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("time_series.ports = switch0->host99"), "{e}");
        assert_eq!(from_yaml_checked(BASE, &o).unwrap_err().to_string(), e);
        from_yaml_checked(BASE, &[]).unwrap();
    }

    #[test]
    fn pcap_points_must_exist() {
        let err = |o: &str| {
            from_yaml_checked(BASE, &[o.to_string()])
                .unwrap_err()
                .to_string()
        };
        let e = err("pcap={flows: [4]}");
        assert!(e.starts_with("pcap.flows = 4"), "{e}");
        let e = err("pcap={ports: [\"switch0->host99\"]}");
        assert!(e.starts_with("pcap.ports = switch0->host99"), "{e}");
        let e = err("pcap={flows: [0], snaplen: 20B}");
        assert!(e.starts_with("pcap.snaplen = 20 B"), "{e}");
        let o = "pcap={flows: [0, 3], ports: [\"switch0->host4\"]}".to_string();
        let cfg = from_yaml_checked(BASE, &[o]).unwrap();
        assert!(cfg.to_yaml().contains("snaplen: 128"), "{}", cfg.to_yaml());
    }
}
