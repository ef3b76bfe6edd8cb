//! The checks that need only config values: ranges, units, buffers against packet sizes, queue
//! thresholds, host selectors, workload sizes, scheme parameters, placement indices.
//!
//! [`Config::from_tree`](crate::Config::from_tree) runs [`check_config`]. The checks that need
//! the topology built or the traffic drawn (custom graph structure, traffic generators, flow
//! selections, port names) are the scenario crate's `check_buildable`.

mod links;
mod pfc;
mod queue;
mod transport;

use crate::config::Config;
use crate::error::{ConfigError, invalid};
use crate::tcp::TcpConfig;
use crate::topology::{ALPHA_HELP, Alpha, LinkDefaults, SharedBufferConfig, TopologyConfig};
use crate::units::{Buffer, Rate};
use crate::workload::{
    BackgroundConfig, HostSelector, PCAP_MAX_SNAPLEN, PCAP_MIN_SNAPLEN, WorkloadConfig,
};
use incastsim_core::Duration;
use links::check_links;
pub use pfc::largest_packet_bytes;
use queue::check_queue;

/// Most bytes a workload may move in total (2^60: a run's byte counters, sequence numbers and
/// sums must never wrap).
const MAX_TOTAL_BYTES: u64 = 1 << 60;

/// Most senders (and dumbbell receivers) of one scenario.
const MAX_SENDERS: u32 = 1_000_000;

/// `name` becomes the default output folder (`out/<name>`): a plain file name, so a config can
/// never write outside the output folder (no `/`, no `..`, not empty, not hidden).
pub fn check_name(name: &str) -> Result<(), ConfigError> {
    let safe = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+');
    if name.is_empty() || name.len() > 100 || name.starts_with('.') || !name.chars().all(safe) {
        let shown: String = name.chars().take(80).collect();
        return Err(invalid(
            "name",
            format!("{shown:?}"),
            "1 to 100 letters, digits, '-', '_', '.' or '+', not starting with '.' (it names the output folder)",
        ));
    }
    Ok(())
}

/// One section's checks: reads the whole config (a section may depend on others' values) and
/// names its keys in errors.
type SectionCheck = fn(&Config) -> Result<(), ConfigError>;

/// Every section's checks, in the order they run (the first failure is reported). A new key's
/// check goes into its section's function, once; `tcp` runs for every `tcp` section
/// ([`Config::tcp_sections`]).
const SECTION_CHECKS: [(&str, SectionCheck); 13] = [
    ("name", |cfg| check_name(&cfg.name)),
    ("senders", check_senders),
    ("flow_overrides", check_override_flows),
    ("topology", check_topology),
    ("tcp", check_tcp_sections),
    ("background", check_background),
    ("workload", check_workload),
    ("metrics", check_metrics),
    ("time_series", check_time_series),
    ("pcap", check_pcap),
    ("scheme", check_scheme),
    ("run", check_run),
    ("pfc", pfc::check_pfc),
];

/// Checks every single-field and cross-field rule of `cfg` that needs no topology built; the
/// error names the key, the value and what is allowed.
pub fn check_config(cfg: &Config) -> Result<(), ConfigError> {
    SECTION_CHECKS.iter().try_for_each(|(_, check)| check(cfg))
}

fn check_senders(cfg: &Config) -> Result<(), ConfigError> {
    if cfg.senders == 0 || cfg.senders > MAX_SENDERS {
        return Err(invalid(
            "senders",
            cfg.senders,
            format!("between 1 and {MAX_SENDERS}"),
        ));
    }
    Ok(())
}

fn check_metrics(cfg: &Config) -> Result<(), ConfigError> {
    let bins = &cfg.metrics.fct_bins;
    if bins.len() != 2 || bins[0].0 == 0 || bins[1].0 <= bins[0].0 {
        return Err(invalid(
            "metrics.fct_bins",
            format!("{:?}", bins.iter().map(|b| b.0).collect::<Vec<_>>()),
            "two increasing positive sizes (small < first <= mid < second <= large)",
        ));
    }
    Ok(())
}

fn check_time_series(cfg: &Config) -> Result<(), ConfigError> {
    if let Some(ts) = &cfg.time_series
        && ts.interval.0 == Duration::ZERO
    {
        return Err(invalid(
            "time_series.interval",
            ts.interval.0,
            "a positive duration",
        ));
    }
    Ok(())
}

fn check_pcap(cfg: &Config) -> Result<(), ConfigError> {
    if let Some(p) = &cfg.pcap
        && !(PCAP_MIN_SNAPLEN..=PCAP_MAX_SNAPLEN).contains(&p.snaplen.0)
    {
        return Err(invalid(
            "pcap.snaplen",
            format!("{} B", p.snaplen.0),
            format!("a size from {PCAP_MIN_SNAPLEN} B (the headers) to {PCAP_MAX_SNAPLEN} B"),
        ));
    }
    Ok(())
}

fn check_run(cfg: &Config) -> Result<(), ConfigError> {
    if cfg.run.max_sim_time.0 == Duration::ZERO {
        return Err(invalid(
            "run.max_sim_time",
            cfg.run.max_sim_time.0,
            "a positive duration",
        ));
    }
    if cfg.run.max_events == Some(0) {
        return Err(invalid(
            "run.max_events",
            0,
            "a positive number of events, or null for no limit",
        ));
    }
    if let Some(w) = cfg.run.max_wall_time
        && w.0 == Duration::ZERO
    {
        return Err(invalid(
            "run.max_wall_time",
            w.0,
            "a positive duration, or null for no limit",
        ));
    }
    Ok(())
}

/// The checks of one `tcp` section on its own; error keys are `key_prefix` + the key within the
/// section (the section's [`TcpSectionKey`](crate::TcpSectionKey) and a dot).
pub fn check_tcp(t: &TcpConfig, key_prefix: &str) -> Result<(), ConfigError> {
    check_tcp_sizes(t, key_prefix)?;
    check_tcp_congestion(t, key_prefix)?;
    check_tcp_recovery(t, key_prefix)?;
    check_tcp_windows(t, key_prefix)
}

/// Every `tcp` section (the top level, then each group), each on its own and against the rest
/// of the config, under its own key.
fn check_tcp_sections(cfg: &Config) -> Result<(), ConfigError> {
    cfg.tcp_sections()
        .try_for_each(|(key, t)| check_tcp_in_context(cfg, &format!("{key}."), t))
}

/// What depends on one section's packet size: its packets fit the buffers, and a request fits
/// in one packet.
fn check_tcp_in_context(cfg: &Config, p: &str, t: &TcpConfig) -> Result<(), ConfigError> {
    check_tcp(t, p)?;
    transport::check_transport(t, p)?;
    if !t.transport.is_tcp() && !matches!(cfg.scheme, crate::scheme::SchemeConfig::None) {
        return Err(invalid(
            &format!("{p}transport"),
            t.transport.name(),
            format!(
                "tcp with scheme {} (the incast schemes change TCP's behaviour; scheme: none for RoCE flows)",
                cfg.scheme.name()
            ),
        ));
    }
    let l = cfg.topology.links();
    check_buffers_fit(&l, t, p)?;
    if let Some(sb) = &l.shared_buffer {
        check_shared_buffer_fits(sb, t.mss.0 + t.header.0, p)?;
    }
    if let WorkloadConfig::SynchronizedReads { request_size, .. } = &cfg.workload {
        check_request_size(request_size.0, t)?;
    }
    Ok(())
}

/// The scheme's parameters, against every `tcp` section (e.g. DSR's small segments fit each
/// section's MSS).
fn check_scheme(cfg: &Config) -> Result<(), ConfigError> {
    cfg.tcp_sections()
        .try_for_each(|(_, t)| cfg.scheme.validate(t))
}

/// RACK-TLP and D-SACK read SACK blocks: RFC 8985 §5 ("the connection MUST use selective
/// acknowledgment (SACK) options") and RFC 2883 (D-SACK extends SACK); TLP's loss repair runs
/// through RACK (RFC 8985 §7.4).
fn check_tcp_recovery(t: &TcpConfig, p: &str) -> Result<(), ConfigError> {
    let sack = t.loss_recovery == crate::tcp::LossRecovery::Sack;
    for (on, key, what) in [
        (t.rack, "rack", "RFC 8985 §5: RACK needs SACK"),
        (t.dsack, "dsack", "RFC 2883: D-SACK is a SACK extension"),
    ] {
        if on && !sack {
            return Err(invalid(
                &format!("{p}{key}"),
                true,
                format!("false unless {p}loss_recovery = sack ({what})"),
            ));
        }
    }
    if t.tlp && !t.rack {
        return Err(invalid(
            &format!("{p}tlp"),
            true,
            format!(
                "false unless {p}rack = true (RFC 8985 §7.4: the probe's loss is repaired by RACK)"
            ),
        ));
    }
    Ok(())
}

/// Flow-override groups' flow indices: each group names at least one flow, every index is a
/// flow of the workload, and no flow is in two groups. (Their `tcp` sections are checked with
/// the top-level one, by `check_tcp_sections`.)
fn check_override_flows(cfg: &Config) -> Result<(), ConfigError> {
    let mut seen = std::collections::BTreeSet::new();
    for (i, g) in cfg.flow_overrides.iter().enumerate() {
        let key = format!("flow_overrides[{i}].flows");
        if g.flows.is_empty() {
            return Err(invalid(&key, "[]", "at least one flow index"));
        }
        for &f in &g.flows {
            if f >= cfg.senders || !seen.insert(f) {
                return Err(invalid(
                    &key,
                    f,
                    format!(
                        "distinct flow indices below senders = {}, each in one group",
                        cfg.senders
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Segment and header sizes.
fn check_tcp_sizes(t: &TcpConfig, p: &str) -> Result<(), ConfigError> {
    if t.mss.0 == 0 || t.mss.0 > 1_000_000 {
        return Err(invalid(&format!("{p}mss"), t.mss.0, "between 1 B and 1 MB"));
    }
    if t.header.0 > 65_535 {
        return Err(invalid(
            &format!("{p}header"),
            t.header.0,
            "at most 65535 bytes",
        ));
    }
    Ok(())
}

/// Congestion-control parameters, send overhead and DSCP.
fn check_tcp_congestion(t: &TcpConfig, p: &str) -> Result<(), ConfigError> {
    if t.cubic.hystart {
        return Err(invalid(
            &format!("{p}cubic.hystart"),
            true,
            "false: HyStart is not modelled",
        ));
    }
    if !(t.cubic.c > 0.0 && t.cubic.c.is_finite()) {
        return Err(invalid(
            &format!("{p}cubic.c"),
            t.cubic.c,
            "a positive number",
        ));
    }
    if !(t.cubic.beta > 0.0 && t.cubic.beta < 1.0) {
        return Err(invalid(
            &format!("{p}cubic.beta"),
            t.cubic.beta,
            "a number in (0, 1)",
        ));
    }
    if !(t.dctcp.g > 0.0 && t.dctcp.g <= 1.0) {
        return Err(invalid(
            &format!("{p}dctcp.g"),
            t.dctcp.g,
            "a number in (0, 1]",
        ));
    }
    if !(0.0..=1.0).contains(&t.dctcp.initial_alpha) {
        return Err(invalid(
            &format!("{p}dctcp.initial_alpha"),
            t.dctcp.initial_alpha,
            "a number in [0, 1]",
        ));
    }
    if t.send_overhead.0 > Duration::from_ms(100) {
        return Err(invalid(
            &format!("{p}send_overhead"),
            t.send_overhead.0,
            "0 (off) up to 100ms",
        ));
    }
    if t.dscp > 63 {
        return Err(invalid(&format!("{p}dscp"), t.dscp, "0 to 63"));
    }
    Ok(())
}

/// Windows, duplicate-ACK threshold, RTO bounds and delayed ACKs.
fn check_tcp_windows(t: &TcpConfig, p: &str) -> Result<(), ConfigError> {
    if t.initial_cwnd == 0 || t.initial_cwnd > 1_000_000 {
        return Err(invalid(
            &format!("{p}initial_cwnd"),
            t.initial_cwnd,
            "between 1 and 1000000 segments",
        ));
    }
    if t.receive_window_segments == 0
        || t.receive_window_segments as u64 * t.mss.0 > u32::MAX as u64
    {
        return Err(invalid(
            &format!("{p}receive_window_segments"),
            t.receive_window_segments,
            "at least 1, and receive_window_segments * mss below 4 GiB",
        ));
    }
    if t.dupack_threshold == 0 || t.dupack_threshold > 1000 {
        return Err(invalid(
            &format!("{p}dupack_threshold"),
            t.dupack_threshold,
            "between 1 and 1000",
        ));
    }
    if t.rto_min.0 == Duration::ZERO {
        return Err(invalid(
            &format!("{p}rto_min"),
            t.rto_min.0,
            "a positive duration",
        ));
    }
    if t.rto_max.0 < t.rto_min.0 {
        return Err(invalid(
            &format!("{p}rto_max"),
            t.rto_max.0,
            format!("at least tcp.rto_min ({})", t.rto_min.0),
        ));
    }
    if let Some(init) = t.rto_initial
        && init.0 == Duration::ZERO
    {
        return Err(invalid(
            &format!("{p}rto_initial"),
            init.0,
            "a positive duration",
        ));
    }
    if t.delayed_ack.enabled {
        if t.delayed_ack.count == 0 {
            return Err(invalid(
                &format!("{p}delayed_ack.count"),
                0,
                "at least 1 segment",
            ));
        }
        if t.delayed_ack.timeout.0 == Duration::ZERO {
            return Err(invalid(
                &format!("{p}delayed_ack.timeout"),
                t.delayed_ack.timeout.0,
                "a positive duration",
            ));
        }
    }
    Ok(())
}

/// Room for at least one full packet (mss + header of `t`, the section under `p`) in the switch
/// and host buffers.
fn check_buffers_fit(l: &LinkDefaults, t: &TcpConfig, p: &str) -> Result<(), ConfigError> {
    let full = t.mss.0 + t.header.0;
    for (key, buf) in [
        ("topology.switch_buffer", l.switch_buffer),
        ("topology.host_buffer", l.host_buffer),
    ] {
        match buf {
            Buffer::Bytes(b) if b < full => {
                return Err(invalid(
                    key,
                    buf,
                    format!("room for at least one full packet: {p}mss + {p}header = {full} B"),
                ));
            }
            Buffer::Packets(0) => return Err(invalid(key, buf, "at least 1 packet")),
            _ => {}
        }
    }
    Ok(())
}

/// Topology sizes, host placement, link and switch parameters, the queue discipline.
fn check_topology(cfg: &Config) -> Result<(), ConfigError> {
    let l = &cfg.topology.links();
    check_rate("topology.link_rate", l.link_rate)?;
    if !(0.0..1.0).contains(&l.link_loss) || l.link_loss.is_nan() {
        return Err(invalid(
            "topology.link_loss",
            l.link_loss,
            "a probability in [0, 1)",
        ));
    }
    check_links(cfg, l)?;
    match &cfg.topology {
        TopologyConfig::FatTree(f) if f.k < 2 || f.k % 2 == 1 || f.k > 48 => {
            return Err(invalid("topology.k", f.k, "an even number from 2 to 48"));
        }
        TopologyConfig::Tree(t) if t.racks == 0 || t.hosts_per_rack == 0 => {
            return Err(invalid(
                "topology.racks / topology.hosts_per_rack",
                format!("{} x {}", t.racks, t.hosts_per_rack),
                "at least 1 each",
            ));
        }
        TopologyConfig::Tree(t) if t.uplink_rate.is_some_and(|r| r.0.0 == 0) => {
            return Err(invalid("topology.uplink_rate", "0bps", "a positive rate"));
        }
        // The graph itself (links, node names, routes) is checked when it is built.
        TopologyConfig::Custom(c) if c.hosts < 2 => {
            return Err(invalid("topology.hosts", c.hosts, "at least 2"));
        }
        _ => {}
    }
    check_placement(cfg)?;
    if let TopologyConfig::Dumbbell(d) = &cfg.topology {
        if let Some(r) = d.bottleneck_rate {
            check_rate("topology.bottleneck_rate", r)?;
        }
        if d.receivers == 0 || d.receivers > MAX_SENDERS {
            return Err(invalid(
                "topology.receivers",
                d.receivers,
                format!("between 1 and {MAX_SENDERS}"),
            ));
        }
    }
    if !(0.0..=1000.0).contains(&l.clock_tolerance_ppm) {
        return Err(invalid(
            "topology.clock_tolerance_ppm",
            l.clock_tolerance_ppm,
            "0 (exact rates) up to 1000",
        ));
    }
    if l.switch_delay_jitter.0 > Duration::from_ms(100) {
        return Err(invalid(
            "topology.switch_delay_jitter",
            l.switch_delay_jitter.0,
            "0 (constant processing delay) up to 100ms",
        ));
    }
    check_queue(&l.switch_queue)?;
    if let Some(sb) = &l.shared_buffer {
        check_shared_buffer(sb)?;
    }
    if l.priority_classes == 0 || l.priority_classes > 64 {
        return Err(invalid(
            "topology.priority_classes",
            l.priority_classes,
            "1 (FIFO) to 64",
        ));
    }
    if let Some(w) = &l.class_weights
        && (w.len() != l.priority_classes as usize
            || l.priority_classes < 2
            || w.iter().any(|&x| x == 0 || x > 1000))
    {
        return Err(invalid(
            "topology.class_weights",
            format!("{w:?}"),
            format!(
                "one weight from 1 to 1000 per class (topology.priority_classes = {}, at least 2)",
                l.priority_classes
            ),
        ));
    }
    if l.queue_scope == crate::topology::QueueScope::Class && l.priority_classes < 2 {
        return Err(invalid(
            "topology.queue_scope",
            "class",
            "port with one class (class: topology.priority_classes of 2 or more)",
        ));
    }
    Ok(())
}

/// A shared buffer holds one full packet of a `tcp` section: `full_packet` is the MSS plus
/// header of the section under `tcp_key` (`tcp.`, or a flow override group's).
fn check_shared_buffer_fits(
    sb: &SharedBufferConfig,
    full_packet: u64,
    tcp_key: &str,
) -> Result<(), ConfigError> {
    if sb.size.0 < full_packet {
        return Err(invalid(
            "topology.shared_buffer.size",
            Buffer::Bytes(sb.size.0),
            format!(
                "room for at least one full packet: {tcp_key}mss + {tcp_key}header = {full_packet} B (a size in bytes)"
            ),
        ));
    }
    Ok(())
}

/// A shared buffer: α in range, the reservation within the buffer. (That the reservations of
/// all a switch's queues fit, and the switch names, need the topology built: the scenario
/// crate's `check_buildable`; that a packet fits, each `tcp` section: `check_shared_buffer_fits`.)
fn check_shared_buffer(sb: &SharedBufferConfig) -> Result<(), ConfigError> {
    let key = |k: &str| format!("topology.shared_buffer.{k}");
    let ok = match sb.alpha {
        Alpha::Number(a) => a.is_finite() && a > 0.0,
        Alpha::PowerOfTwo(k) => (-7..=6).contains(&k),
    };
    if !ok {
        return Err(invalid(&key("alpha"), sb.alpha, ALPHA_HELP));
    }
    if sb.reserved_per_queue.0 > sb.size.0 {
        return Err(invalid(
            &key("reserved_per_queue"),
            Buffer::Bytes(sb.reserved_per_queue.0),
            format!(
                "at most the buffer (topology.shared_buffer.size = {})",
                Buffer::Bytes(sb.size.0)
            ),
        ));
    }
    if sb.switches.as_ref().is_some_and(|s| s.is_empty()) {
        return Err(invalid(
            &key("switches"),
            "[]",
            "a list of switch names (\"switch0\", ...), or absent for every switch",
        ));
    }
    Ok(())
}

/// Receiver and sender host indices of the topologies with explicit placement.
fn check_placement(cfg: &Config) -> Result<(), ConfigError> {
    let Some((receiver, senders)) = cfg.topology.placement() else {
        return Ok(());
    };
    let hosts = cfg.topology.host_count(cfg.senders);
    if receiver as u64 >= hosts {
        return Err(invalid(
            "topology.receiver_host",
            receiver,
            format!("a host index below {hosts}"),
        ));
    }
    match senders {
        None if cfg.senders as u64 >= hosts => {
            return Err(invalid(
                "senders",
                cfg.senders,
                format!("at most {} (hosts other than the receiver)", hosts - 1),
            ));
        }
        Some(list) => {
            if list.len() != cfg.senders as usize {
                return Err(invalid(
                    "topology.sender_hosts",
                    format!("{} hosts", list.len()),
                    format!("exactly `senders` = {} hosts", cfg.senders),
                ));
            }
            let mut seen = std::collections::BTreeSet::new();
            for &h in list {
                if h as u64 >= hosts || h == receiver || !seen.insert(h) {
                    return Err(invalid(
                        "topology.sender_hosts",
                        h,
                        format!("distinct host indices below {hosts}, other than the receiver"),
                    ));
                }
            }
        }
        None => {}
    }
    Ok(())
}

/// Background sources: host selectors, rate, packet size, DSCP, start and stop.
fn check_background(cfg: &Config) -> Result<(), ConfigError> {
    for (i, b) in cfg.background.iter().enumerate() {
        let BackgroundConfig::UdpCbr {
            from,
            to,
            rate,
            packet_size,
            dscp,
            start,
            stop,
        } = b;
        let key = |k: &str| format!("background[{i}].{k}");
        let receivers = match &cfg.topology {
            TopologyConfig::Dumbbell(d) => d.receivers,
            TopologyConfig::Star(_)
            | TopologyConfig::FatTree(_)
            | TopologyConfig::Tree(_)
            | TopologyConfig::Custom(_) => 1,
        };
        for (k, v) in [("from", from), ("to", to)] {
            match HostSelector::parse(v) {
                None => {
                    return Err(invalid(
                        &key(k),
                        v,
                        "senders, sender:I, receiver or receiver:I",
                    ));
                }
                Some(HostSelector::Sender(s)) if s >= cfg.senders => {
                    return Err(invalid(
                        &key(k),
                        v,
                        format!("a sender index below {}", cfg.senders),
                    ));
                }
                Some(HostSelector::Receiver(r)) if r >= receivers => {
                    return Err(invalid(
                        &key(k),
                        v,
                        format!("a receiver index below {receivers}"),
                    ));
                }
                Some(HostSelector::AllSenders) if k == "to" => {
                    return Err(invalid(
                        &key(k),
                        v,
                        "one host: sender:I, receiver or receiver:I",
                    ));
                }
                _ => {}
            }
        }
        if HostSelector::parse(from) == HostSelector::parse(to) {
            return Err(invalid(&key("to"), to, "a host other than `from`"));
        }
        check_rate(&key("rate"), *rate)?;
        if packet_size.0 == 0 || packet_size.0 > 65_535 {
            return Err(invalid(
                &key("packet_size"),
                packet_size.0,
                "1 to 65535 bytes",
            ));
        }
        if *dscp > 63 {
            return Err(invalid(&key("dscp"), dscp, "0 to 63"));
        }
        if let Some(stop) = stop
            && stop.0 <= start.0
        {
            return Err(invalid(
                &key("stop"),
                stop.0,
                format!("after start ({})", start.0),
            ));
        }
    }
    Ok(())
}

/// Workload sizes and durations.
fn check_workload(cfg: &Config) -> Result<(), ConfigError> {
    match &cfg.workload {
        WorkloadConfig::SynchronizedReads {
            sru, block, blocks, ..
        } => {
            match (sru, block) {
                (Some(_), Some(_)) | (None, None) => {
                    return Err(invalid(
                        "workload.sru / workload.block",
                        "both or neither",
                        "exactly one: sru (bytes per server per block) or block (bytes per block, striped over the senders)",
                    ));
                }
                (Some(s), None) if s.0 == 0 => {
                    return Err(invalid("workload.sru", s.0, "at least 1 byte"));
                }
                (None, Some(b)) if b.0 < cfg.senders as u64 => {
                    return Err(invalid(
                        "workload.block",
                        b.0,
                        format!("at least one byte per sender ({} B)", cfg.senders),
                    ));
                }
                _ => {}
            }
            if *blocks == 0 {
                return Err(invalid("workload.blocks", 0, "at least 1"));
            }
            // Byte counts and sequence numbers are u64: keep every total far from wrapping.
            let per_block = sru.map_or_else(
                || block.map_or(0, |b| b.0),
                |s| s.0.saturating_mul(u64::from(cfg.senders)),
            );
            if per_block.saturating_mul(u64::from(*blocks)) > MAX_TOTAL_BYTES {
                return Err(invalid(
                    if sru.is_some() {
                        "workload.sru"
                    } else {
                        "workload.block"
                    },
                    sru.or(*block).map_or(0, |b| b.0),
                    format!(
                        "a size whose total over senders ({}) and blocks ({blocks}) stays below 2^60 bytes",
                        cfg.senders
                    ),
                ));
            }
            // That a request fits in a packet: per `tcp` section (`check_tcp_in_context`).
        }
        WorkloadConfig::Bulk { duration, .. } | WorkloadConfig::Traffic { duration, .. } => {
            if duration.0 == Duration::ZERO {
                return Err(invalid(
                    "workload.duration",
                    duration.0,
                    "a positive duration",
                ));
            }
        }
    }
    Ok(())
}

/// A request fits in one full packet of `t`.
fn check_request_size(request_size: u64, t: &TcpConfig) -> Result<(), ConfigError> {
    let full = t.mss.0 + t.header.0;
    if request_size == 0 || request_size > full {
        return Err(invalid(
            "workload.request_size",
            request_size,
            format!("between 1 and {full} bytes"),
        ));
    }
    Ok(())
}

fn check_rate(key: &str, r: Rate) -> Result<(), ConfigError> {
    if r.0.0 == 0 {
        return Err(invalid(key, "0bps", "a positive rate"));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
