//! PFC's plan (`pfc:`): which classes are lossless, each input's headroom (computed from its
//! link unless set), the XOFF rule and each switch's lossless pool, and each port's reverse
//! direction (a PAUSE for what came in on a port leaves by the port back to its sender).

use crate::config::{Config, ConfigError, Headroom, PfcConfig, invalid};
use crate::units::Buffer;
use incastsim_core::topology::PortSpec;
use incastsim_core::{NodeKind, SerializationRate, Topology};
use incastsim_switch::pfc::{LosslessPool, PAUSE_FRAME_BYTES, XoffRule};

/// No lossless class (in [`PfcPlan::lossless_index`]).
pub const NOT_LOSSLESS: u8 = u8::MAX;

/// PFC as the engine runs it.
#[derive(Clone, Debug)]
pub struct PfcPlan {
    /// The lossless classes, in `pfc.priorities` order (index k of a class is its position).
    pub lossless: Vec<u8>,
    /// Class → its index in `lossless`, or [`NOT_LOSSLESS`] (64 classes at most).
    pub lossless_index: [u8; 64],
    /// XOFF: static or dynamic.
    pub rule: XoffRule,
    /// The hysteresis below XOFF.
    pub xon_offset: u64,
    /// Per port P: the headroom of P's far-end node's input from P, per lossless class.
    pub headroom: Vec<u64>,
    /// Whether the headroom was computed (then no lossless packet may ever be dropped).
    pub headroom_auto: bool,
    /// Pause time of a PAUSE frame, quanta.
    pub quanta: u16,
    /// Re-send a PAUSE after this fraction of its pause time.
    pub refresh: f64,
    /// Send RESUME frames.
    pub resume: bool,
    /// Delay from a PAUSE's arrival to its effect.
    pub response_time: incastsim_core::Duration,
    /// Host NICs honour PAUSEs.
    pub hosts_honour: bool,
    /// Per port: the port in the other direction of its link.
    pub reverse: Vec<u32>,
    /// Per port P: the pool of P's far-end switch (`u32::MAX` if it is a host).
    pub pool_of_input: Vec<u32>,
    /// One lossless pool per switch (dynamic XOFF; unused by a static one).
    pub pools: Vec<LosslessPool>,
    /// A cycle of paused queues that lasts this long is a deadlock (`pfc.deadlock.after`).
    pub deadlock_after: incastsim_core::Duration,
    /// A deadlock ends the run (`pfc.deadlock.action: stop`).
    pub deadlock_stop: bool,
    /// `pfc.host_receive`: the hosts' NIC-to-host rate and their receive buffer's XOFF.
    pub host_receive: Option<(incastsim_core::BitsPerSec, u64)>,
}

/// The bitmask of lossless classes for [`incastsim_switch::OutputPort::with_pfc`].
pub fn lossless_mask(p: &PfcConfig) -> u64 {
    p.priorities.iter().fold(0, |m, &c| m | 1 << c)
}

/// Builds PFC's plan for the built topology (`None` without `pfc:`); refuses a headroom that
/// does not fit with XOFF in a switch's buffer, and a pool smaller than its headroom (so
/// `check` refuses them too: `plan::checks::check_built` calls it).
pub fn plan(cfg: &Config, topology: &Topology) -> Result<Option<PfcPlan>, ConfigError> {
    let Some(p) = &cfg.pfc else {
        return Ok(None);
    };
    let links = cfg.topology.links();
    let largest = crate::config::check::largest_packet_bytes(cfg);
    let reverse: Vec<u32> = topology.ports.iter().map(|s| s.reverse).collect();
    let ports = &topology.ports;
    let headroom: Vec<u64> = (0..ports.len())
        .map(|i| match p.headroom {
            Headroom::Bytes(h) => h,
            Headroom::Auto => auto_headroom(topology, i, p, largest, &links),
        })
        .collect();
    let nodes = &topology.nodes;
    let mut lossless_index = [NOT_LOSSLESS; 64];
    for (k, &c) in p.priorities.iter().enumerate() {
        lossless_index[c as usize] = k as u8;
    }
    let is_switch = |n: u32| matches!(nodes[n as usize], NodeKind::Switch(_));
    let switches: Vec<u32> = (0..nodes.len() as u32).filter(|&n| is_switch(n)).collect();
    let mut pool_of_node = vec![u32::MAX; nodes.len()];
    for (i, &n) in switches.iter().enumerate() {
        pool_of_node[n as usize] = i as u32;
    }
    let pool_of_input: Vec<u32> = ports.iter().map(|s| pool_of_node[s.to as usize]).collect();
    let rule = match (&p.xoff, &p.dynamic) {
        (Some(x), _) => XoffRule::Static(x.0),
        (None, Some(d)) => XoffRule::dynamic(d.alpha.value(), d.pool.0),
        (None, None) => unreachable!("checked: one of xoff and dynamic"),
    };
    let classes = p.priorities.len() as u64;
    let mut pools = vec![LosslessPool::default(); switches.len()];
    for (i, &n) in switches.iter().enumerate() {
        let reserved: u64 = (0..ports.len())
            .filter(|&q| ports[q].to == n)
            .map(|q| headroom[q] * classes)
            .sum();
        if let XoffRule::Dynamic { pool, .. } = rule {
            if reserved >= pool {
                return Err(invalid(
                    "pfc.dynamic.pool",
                    crate::units::format_bytes(pool),
                    format!(
                        "above the headroom {} reserves ({} bytes for its inputs' lossless priorities)",
                        crate::plan::topology::node_names(topology)[n as usize],
                        reserved
                    ),
                ));
            }
            pools[i].sharable = pool - reserved;
        }
    }
    if let (XoffRule::Static(xoff), Buffer::Bytes(buffer)) = (rule, links.switch_buffer)
        && let Some(q) = (0..ports.len())
            .filter(|&q| is_switch(ports[q].to))
            .max_by_key(|&q| (headroom[q], std::cmp::Reverse(q)))
        && xoff + headroom[q] > buffer
    {
        return Err(invalid(
            "pfc.xoff",
            crate::units::format_bytes(xoff),
            format!(
                "at most the switch buffer ({}) less the headroom of the input from {} ({} bytes{})",
                crate::units::format_bytes(buffer),
                crate::plan::topology::port_names(topology)[q],
                headroom[q],
                if p.headroom == Headroom::Auto {
                    ", computed: link rate × (both directions' latency + response time + a largest packet and a PAUSE frame) + 3 largest packets"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(Some(PfcPlan {
        lossless: p.priorities.clone(),
        lossless_index,
        rule,
        xon_offset: p.xon_offset.0,
        headroom,
        headroom_auto: p.headroom == Headroom::Auto,
        quanta: p.pause_quanta,
        refresh: p.refresh,
        resume: p.resume,
        response_time: p.response_time.0,
        hosts_honour: p.hosts_honour,
        reverse,
        pool_of_input,
        pools,
        deadlock_after: p.deadlock.after.0,
        deadlock_stop: p.deadlock.action == crate::config::DeadlockAction::Stop,
        host_receive: p.host_receive.as_ref().map(|h| (h.rate.0, h.xoff.0)),
    }))
}

/// The headroom of the input that port `input` feeds: everything that may still arrive after
/// the input crosses XOFF. The PAUSE waits for the packet the reverse port is sending (one
/// largest packet at its rate), takes its own 64 B, crosses the reverse link (latency and
/// jitter), waits `response_time`; meanwhile the sender keeps sending at its rate, and the
/// bytes already on the forward link (its latency and jitter) still arrive: the link rate
/// times all that. On top, three largest packets, because the count moves by whole packets:
/// the packet whose arrival crossed XOFF (it may land in the headroom), the one whose last
/// bits were on the forward link when the interval began (counted whole when it arrives), and
/// the one on the sender's wire when the PAUSE takes effect (it finishes).
/// Rates are the nominal ones raised by `clock_tolerance_ppm` (a port's clock may run that
/// much fast).
fn auto_headroom(
    topology: &Topology,
    input: usize,
    p: &PfcConfig,
    largest: u64,
    links: &crate::config::LinkDefaults,
) -> u64 {
    let fwd = &topology.ports[input];
    let back = &topology.ports[fwd.reverse as usize];
    let fast = |rate: incastsim_core::BitsPerSec| {
        incastsim_core::BitsPerSec(
            (rate.0 as f64 * (1.0 + links.clock_tolerance_ppm * 1e-6)).ceil() as u64,
        )
    };
    // A port's latency and jitter as `plan::ports` builds them: propagation, plus the
    // receiving switch's processing delay and its jitter.
    let latency = |spec: &PortSpec| {
        if matches!(topology.nodes[spec.to as usize], NodeKind::Switch(_)) {
            spec.propagation + links.switch_delay.0 + links.switch_delay_jitter.0
        } else {
            spec.propagation
        }
    };
    let wait = SerializationRate::new(back.rate).time_for(largest + PAUSE_FRAME_BYTES)
        + latency(back)
        + p.response_time.0
        + latency(fwd);
    let rate = u128::from(fast(fwd.rate).0);
    let in_flight = (rate * u128::from(wait.as_ps())).div_ceil(8 * 1_000_000_000_000) as u64;
    in_flight + 3 * largest
}
