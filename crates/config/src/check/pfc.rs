//! `pfc:`: one XOFF form, priorities that exist and carry traffic, thresholds that fit the
//! buffer, a headroom of at least one packet, a XON point above zero.

use crate::config::Config;
use crate::error::{ConfigError, invalid};
use crate::pfc::{Headroom, PfcConfig};
use crate::topology::ALPHA_HELP;
use crate::units::{Buffer, format_bytes};
use crate::workload::BackgroundConfig;
use incastsim_core::Duration;

/// The largest packet on the wire of any traffic of `cfg` (TCP or RoCE sections, UDP sources).
pub fn largest_packet_bytes(cfg: &Config) -> u64 {
    let tcp = cfg
        .tcp_sections()
        .map(|(_, t)| t.transport.largest_packet_bytes(t.mss.0, t.header.0));
    let udp = cfg.background.iter().map(|b| {
        let BackgroundConfig::UdpCbr { packet_size, .. } = b;
        packet_size.0
    });
    tcp.chain(udp).max().unwrap_or(0)
}

/// The traffic classes some traffic of `cfg` is sent in (class = min(DSCP, classes − 1)).
fn classes_in_use(cfg: &Config) -> Vec<u32> {
    let top = cfg.topology.links().priority_classes.saturating_sub(1);
    let tcp = cfg.tcp_sections().map(|(_, t)| t.dscp);
    let udp = cfg.background.iter().map(|b| {
        let BackgroundConfig::UdpCbr { dscp, .. } = b;
        *dscp
    });
    tcp.chain(udp).map(|d| u32::from(d).min(top)).collect()
}

/// The `pfc` section's values.
pub(super) fn check_pfc(cfg: &Config) -> Result<(), ConfigError> {
    let Some(p) = &cfg.pfc else {
        return Ok(());
    };
    check_priorities(cfg, p)?;
    let one_of = || ConfigError::Key {
        key: "pfc".into(),
        message:
            "one of `xoff` (static bytes) or `dynamic` ({alpha, pool}) sets the XOFF threshold"
                .into(),
    };
    let largest = largest_packet_bytes(cfg);
    if let Headroom::Bytes(h) = p.headroom
        && h < largest
    {
        return Err(invalid(
            "pfc.headroom",
            format_bytes(h),
            format!("at least one largest packet ({})", format_bytes(largest)),
        ));
    }
    match (&p.xoff, &p.dynamic) {
        (Some(xoff), None) => {
            let headroom = match p.headroom {
                Headroom::Bytes(h) => h,
                Headroom::Auto => 0,
            };
            let buffer = cfg.topology.links().switch_buffer;
            let fits = match buffer {
                Buffer::Bytes(b) => xoff.0 + headroom <= b,
                Buffer::Packets(n) => xoff.0 + headroom <= u64::from(n) * largest,
                Buffer::Unlimited => true,
            };
            if xoff.0 == 0 || !fits {
                return Err(invalid(
                    "pfc.xoff",
                    format_bytes(xoff.0),
                    format!(
                        "above 0 and, with the headroom, within the switch buffer (topology.switch_buffer = {buffer})"
                    ),
                ));
            }
            if p.xon_offset.0 >= xoff.0 {
                return Err(invalid(
                    "pfc.xon_offset",
                    format_bytes(p.xon_offset.0),
                    format!(
                        "below pfc.xoff ({}): the XON point must be above 0",
                        format_bytes(xoff.0)
                    ),
                ));
            }
        }
        (None, Some(d)) => {
            let alpha = d.alpha.value();
            let power_ok = match d.alpha {
                crate::topology::Alpha::PowerOfTwo(k) => (-7..=6).contains(&k),
                crate::topology::Alpha::Number(_) => true,
            };
            if !(alpha.is_finite() && alpha > 0.0 && power_ok) {
                return Err(invalid("pfc.dynamic.alpha", d.alpha, ALPHA_HELP));
            }
            if d.pool.0 < 2 * largest {
                return Err(invalid(
                    "pfc.dynamic.pool",
                    format_bytes(d.pool.0),
                    format!(
                        "at least two largest packets ({})",
                        format_bytes(2 * largest)
                    ),
                ));
            }
        }
        _ => return Err(one_of()),
    }
    if !(p.refresh > 0.0 && p.refresh < 1.0) {
        return Err(invalid(
            "pfc.refresh",
            p.refresh,
            "a fraction of the pause time above 0 and below 1",
        ));
    }
    if let Some(h) = &p.host_receive {
        if h.rate.0.0 == 0 {
            return Err(invalid(
                "pfc.host_receive.rate",
                "0bps",
                "above 0 (how fast the NIC hands packets to the host)",
            ));
        }
        if h.xoff.0 < largest || p.xon_offset.0 >= h.xoff.0 {
            return Err(invalid(
                "pfc.host_receive.xoff",
                format_bytes(h.xoff.0),
                format!(
                    "at least one largest packet ({}) and above pfc.xon_offset ({})",
                    format_bytes(largest),
                    format_bytes(p.xon_offset.0)
                ),
            ));
        }
    }
    if p.pause_quanta == 0 {
        return Err(invalid(
            "pfc.pause_quanta",
            p.pause_quanta,
            "1 to 65535 (0 is a RESUME)",
        ));
    }
    if p.response_time.0 > Duration::from_ms(1) {
        return Err(invalid(
            "pfc.response_time",
            p.response_time.0,
            "0 (at once) up to 1ms",
        ));
    }
    let after = p.deadlock.after.0;
    if after == Duration::ZERO || after > Duration::from_secs(10) {
        return Err(invalid(
            "pfc.deadlock.after",
            after,
            "above 0 and at most 10s: how long a cycle of paused queues must last to be a deadlock",
        ));
    }
    Ok(())
}

/// Priorities: some, each once, each a class the ports have, each carrying some traffic.
fn check_priorities(cfg: &Config, p: &PfcConfig) -> Result<(), ConfigError> {
    if p.priorities.is_empty() {
        return Err(invalid("pfc.priorities", "[]", "one or more priorities"));
    }
    let classes = cfg.topology.links().priority_classes;
    let used = classes_in_use(cfg);
    for (i, &prio) in p.priorities.iter().enumerate() {
        if u32::from(prio) >= classes || prio >= 8 {
            return Err(invalid(
                "pfc.priorities",
                prio,
                format!(
                    "below topology.priority_classes ({classes}) and 8 (802.1Qbb's priorities)"
                ),
            ));
        }
        if p.priorities[..i].contains(&prio) {
            return Err(invalid("pfc.priorities", prio, "listed twice"));
        }
        if !used.contains(&u32::from(prio)) {
            return Err(invalid(
                "pfc.priorities",
                prio,
                format!(
                    "a class some traffic uses (the tcp sections' and background sources' dscp give classes {used:?})"
                ),
            ));
        }
    }
    Ok(())
}
