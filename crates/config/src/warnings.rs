//! Warnings: configs that are valid but cannot mean what they say (issue 17 finding 7), such as
//! an offered load above 1, an ECN threshold above the buffer it marks, or a delay longer than
//! the run. `run`, `sweep` and `check` print them on stderr and list them in the manifest;
//! `--strict` turns them into errors. Configs that can never run are refused by
//! [`crate::check`] instead.

use crate::config::Config;
use crate::topology::{QueueConfig, TopologyConfig};
use crate::traffic::TrafficConfig;
use crate::units::Buffer;
use crate::workload::{BackgroundConfig, WorkloadConfig};
use incastsim_core::Duration;
use serde::Serialize;
use std::fmt;

/// One warning: the key path, its value (at most ~80 characters) and why it is suspect.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConfigWarning {
    /// The full key path.
    pub key: String,
    /// Its value (at most ~80 characters).
    pub value: String,
    /// Why it is suspect, and what to do about it.
    pub why: String,
}

impl ConfigWarning {
    /// A warning; a long value is cut to ~80 characters.
    pub fn new(key: impl Into<String>, value: impl fmt::Display, why: impl Into<String>) -> Self {
        let value = value.to_string();
        let value = if value.chars().count() > 80 {
            format!("{}...", value.chars().take(77).collect::<String>())
        } else {
            value
        };
        ConfigWarning {
            key: key.into(),
            value,
            why: why.into(),
        }
    }
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {}: {}", self.key, self.value, self.why)
    }
}

/// Durations at or above this (2^62 ps, about 53 days) leave too little room in the u64
/// picosecond clock: sums of such times saturate (the clock ends at 2^64 ps, about 213 days).
const NEAR_CLOCK_LIMIT: Duration = Duration(1 << 62);

/// Every warning of `cfg`, in a fixed order; `cfg` has passed the config-only checks.
pub fn config_warnings(cfg: &Config) -> Vec<ConfigWarning> {
    let mut w = Vec::new();
    let limit = cfg.run.max_sim_time.0;
    // What the run is meant to last: the workload's duration if it has one, else the limit.
    let (run_len, run_len_key) = match &cfg.workload {
        WorkloadConfig::Bulk { duration, .. }
        | WorkloadConfig::Traffic {
            duration,
            drain: false,
        } => (duration.0.min(limit), "workload.duration"),
        // Reads, and traffic that drains, run until done or until the limit.
        WorkloadConfig::SynchronizedReads { .. } | WorkloadConfig::Traffic { drain: true, .. } => {
            (limit, "run.max_sim_time")
        }
    };
    let longer = |w: &mut Vec<ConfigWarning>, key: &str, d: Duration| {
        if d > run_len {
            w.push(ConfigWarning::new(
                key,
                d,
                format!(
                    "longer than the run ({run_len_key}: {run_len}): nothing after it is simulated"
                ),
            ));
        }
    };
    let l = cfg.topology.links();
    longer(&mut w, "topology.link_delay", l.link_delay.0);
    longer(&mut w, "topology.switch_delay", l.switch_delay.0);
    if let TopologyConfig::Dumbbell(d) = &cfg.topology
        && let Some(b) = d.bottleneck_delay
    {
        longer(&mut w, "topology.bottleneck_delay", b.0);
    }
    if let TopologyConfig::Custom(c) = &cfg.topology {
        for (i, link) in c.links.iter().enumerate() {
            if let Some(d) = link.delay {
                longer(&mut w, &format!("topology.links[{i}].delay"), d.0);
            }
        }
    }
    match &cfg.workload {
        WorkloadConfig::SynchronizedReads { start_jitter, .. }
        | WorkloadConfig::Bulk { start_jitter, .. } => {
            longer(&mut w, "workload.start_jitter", start_jitter.0);
        }
        WorkloadConfig::Traffic { .. } => {}
    }
    for (i, b) in cfg.background.iter().enumerate() {
        let BackgroundConfig::UdpCbr { start, .. } = b;
        longer(&mut w, &format!("background[{i}].start"), start.0);
    }
    for (i, t) in cfg.traffic.iter().enumerate() {
        let key = |k: &str| format!("traffic[{i}].{k}");
        match t {
            TrafficConfig::Poisson { load, start, .. } => {
                if *load > 1.0 {
                    w.push(ConfigWarning::new(
                        key("load"),
                        load,
                        "an offered load above 1 exceeds the reference links' capacity: queues grow for the whole run and the drain never ends before run.max_sim_time",
                    ));
                }
                longer(&mut w, &key("start"), start.0);
            }
            TrafficConfig::LongLived { start, .. }
            | TrafficConfig::Staggered { start, .. }
            | TrafficConfig::Collective { start, .. }
            | TrafficConfig::Goal { start, .. } => longer(&mut w, &key("start"), start.0),
            TrafficConfig::Permutation {
                start,
                start_jitter,
                ..
            }
            | TrafficConfig::Incast {
                start,
                start_jitter,
                ..
            } => {
                longer(&mut w, &key("start"), start.0);
                longer(&mut w, &key("start_jitter"), start_jitter.0);
            }
            TrafficConfig::Extension(_) => {}
        }
    }
    queue_warnings(cfg, &mut w);
    // An observation section that names nothing records nothing (issue 38, item 20).
    if let Some(ts) = &cfg.time_series
        && ts.ports.is_empty()
        && ts.flows.is_empty()
        && ts.on_change_port.is_none()
    {
        w.push(ConfigWarning::new(
            "time_series",
            "{ports: [], flows: []}",
            "samples nothing: list ports (\"switch0->host16\"), flows or an on_change_port",
        ));
    }
    if let Some(p) = &cfg.pcap
        && p.ports.is_empty()
        && p.flows.is_empty()
    {
        w.push(ConfigWarning::new(
            "pcap",
            "{ports: [], flows: []}",
            "traces nothing: list flows or ports (\"switch0->host16\")",
        ));
    }
    for (key, d) in [
        ("run.max_sim_time", limit),
        ("topology.link_delay", l.link_delay.0),
    ] {
        if d >= NEAR_CLOCK_LIMIT {
            w.push(ConfigWarning::new(
                key,
                d,
                "2^62 ps (53 days) or more: simulated times near the u64 picosecond clock's end saturate",
            ));
        }
    }
    w
}

/// Bytes of a buffer size (packets counted as full packets of `full` bytes); None if unlimited.
fn bytes_of(b: &Buffer, full: u64) -> Option<u64> {
    match *b {
        Buffer::Bytes(n) => Some(n),
        Buffer::Packets(n) => Some(u64::from(n).saturating_mul(full)),
        Buffer::Unlimited => None,
    }
}

/// Marking and admission thresholds the queue can never reach: above the switch buffer.
fn queue_warnings(cfg: &Config, w: &mut Vec<ConfigWarning>) {
    let l = cfg.topology.links();
    let full = cfg.tcp.mss.0 + cfg.tcp.header.0;
    let Some(buffer) = bytes_of(&l.switch_buffer, full) else {
        return;
    };
    let mut above = |k: &str, th: &Buffer, what: &str| {
        if bytes_of(th, full).is_some_and(|t| t > buffer) {
            w.push(ConfigWarning::new(
                format!("topology.switch_queue.{k}"),
                th,
                format!(
                    "above topology.switch_buffer ({}): the queue never reaches it, so it never {what}",
                    l.switch_buffer
                ),
            ));
        }
    };
    match &l.switch_queue {
        QueueConfig::EcnThreshold { k } => above("k", k, "marks"),
        QueueConfig::ThresholdAdmit { threshold } => above("threshold", threshold, "refuses"),
        QueueConfig::Red { min_th, .. } => above("min_th", min_th, "marks or drops early"),
        QueueConfig::Wred { profiles, .. } => {
            for (i, p) in profiles.iter().enumerate() {
                above(
                    &format!("profiles[{i}].min_th"),
                    &p.min_th,
                    "marks or drops early",
                );
            }
        }
        QueueConfig::DropTail | QueueConfig::Extension(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "senders: 4
topology: {kind: star, switch_buffer: 64KB}
workload: {kind: bulk, duration: 10ms}
";

    fn warnings(overrides: &[&str]) -> Vec<ConfigWarning> {
        let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        config_warnings(&Config::from_yaml(BASE, &o).unwrap())
    }

    fn keys(overrides: &[&str]) -> Vec<String> {
        warnings(overrides).into_iter().map(|w| w.key).collect()
    }

    #[test]
    fn a_plain_config_has_no_warnings() {
        assert_eq!(keys(&[]), Vec::<String>::new());
    }

    #[test]
    fn offered_load_above_one() {
        let t = "traffic=[{kind: poisson, load: 1.5, sizes: {kind: fixed, size: 10KB}}]";
        let w = warnings(&[t]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].key, "traffic[0].load");
        assert_eq!(w[0].value, "1.5");
        assert!(w[0].why.contains("above 1"), "{}", w[0]);
        let ok = "traffic=[{kind: poisson, load: 1.0, sizes: {kind: fixed, size: 10KB}}]";
        assert!(keys(&[ok]).is_empty());
    }

    #[test]
    fn marking_threshold_above_the_buffer() {
        let w = warnings(&["topology.switch_queue={kind: ecn_threshold, k: 100KB}"]);
        assert_eq!(w[0].key, "topology.switch_queue.k");
        assert!(w[0].why.contains("never marks"), "{}", w[0]);
        // Packets are counted as full packets (1040 B): 70 packets = 72.8 KB > 64 KB.
        assert_eq!(
            keys(&["topology.switch_queue={kind: ecn_threshold, k: 70 packets}"]),
            ["topology.switch_queue.k"]
        );
        assert!(keys(&["topology.switch_queue={kind: ecn_threshold, k: 20 packets}"]).is_empty());
        assert_eq!(
            keys(&["topology.switch_queue={kind: threshold_admit, threshold: 1MB}"]),
            ["topology.switch_queue.threshold"]
        );
    }

    #[test]
    fn delays_longer_than_the_run() {
        assert_eq!(
            keys(&["workload.start_jitter=20ms"]),
            ["workload.start_jitter"]
        );
        assert_eq!(keys(&["topology.link_delay=11ms"]), ["topology.link_delay"]);
        // A synchronized read is bounded by run.max_sim_time.
        let reads = [
            "workload={kind: synchronized_reads, sru: 64KB, start_jitter: 2s}",
            "run.max_sim_time=1s",
        ];
        assert_eq!(keys(&reads), ["workload.start_jitter"]);
        let w = warnings(&reads);
        assert!(w[0].why.contains("run.max_sim_time: 1s"), "{}", w[0]);
    }

    #[test]
    fn times_near_the_clock_limit() {
        let w = warnings(&["run.max_sim_time=5000000s"]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].key, "run.max_sim_time");
        assert!(w[0].why.contains("saturate"), "{}", w[0]);
        // 2^64 ps itself no longer saturates silently: it is refused.
        let e = Config::from_yaml(BASE, &["run.max_sim_time=18446744073709551616ps".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("run.max_sim_time"), "{e}");
    }

    #[test]
    fn a_per_link_buffer_of_zero_is_refused() {
        let custom = "topology={kind: custom, hosts: 2, switches: 1, links: [{a: host0, b: switch0, buffer: 0 packets}, {a: host1, b: switch0}]}";
        let e = Config::from_yaml(BASE, &[custom.into()])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("topology.links[0].buffer = 0 packets"), "{e}");
        let bytes = custom.replace("0 packets", "0B");
        let e = Config::from_yaml(BASE, &[bytes]).unwrap_err().to_string();
        assert!(e.starts_with("topology.links[0].buffer"), "{e}");
    }

    #[test]
    fn a_list_where_a_map_is_expected_is_an_error() {
        for o in [
            "tcp=[1, 2]",
            "topology=[star]",
            "run=[]",
            "run=[1s]",
            "workload=[bulk, 1s]",
            "tcp.delayed_ack=[true]",
        ] {
            let e = Config::from_yaml(BASE, &[o.into()])
                .unwrap_err()
                .to_string();
            let key = o.split('=').next().unwrap();
            assert!(e.contains(key), "{o}: {e}");
        }
    }

    /// Issue 38, item 20: a `time_series` or `pcap` section that names nothing is warned about.
    #[test]
    fn an_observation_that_names_nothing_is_warned_about() {
        let base =
            "senders: 2\ntopology: {kind: star}\nworkload: {kind: synchronized_reads, sru: 64KB}\n";
        let warned = |set: &str| {
            let cfg = crate::Config::from_yaml(base, &[set.to_string()]).unwrap();
            config_warnings(&cfg)
                .iter()
                .map(|w| w.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert!(warned("time_series={interval: 1ms}").contains("samples nothing"));
        assert!(warned("pcap={snaplen: 128B}").contains("traces nothing"));
        assert!(!warned("time_series={interval: 1ms, flows: [0]}").contains("samples nothing"));
        assert!(!warned("pcap={flows: [0]}").contains("traces nothing"));
    }
}
