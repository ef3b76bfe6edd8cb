//! Per-link settings: where packets are lost (`lossy_links` and custom links' `loss`, Bernoulli
//! and Gilbert-Elliott models) and custom links' own buffers.

use crate::config::Config;
use crate::error::{ConfigError, invalid};
use crate::topology::{LinkDefaults, LossModel, TopologyConfig};
use crate::units::Buffer;

/// `lossy_links` and custom links' `loss`: probabilities in range, port lists not empty (that
/// each port pattern names a port is checked when the topology is built); custom links'
/// buffers hold at least one full packet.
pub(super) fn check_links(cfg: &Config, l: &LinkDefaults) -> Result<(), ConfigError> {
    for (i, rule) in l.lossy_links.iter().enumerate() {
        let key = format!("topology.lossy_links[{i}]");
        if rule.ports.is_empty() {
            return Err(invalid(
                &format!("{key}.ports"),
                "[]",
                "at least one port name (e.g. \"switch0->host16\", \"host*->switch0\")",
            ));
        }
        check_loss_model(&format!("{key}.loss"), &rule.loss)?;
    }
    if let TopologyConfig::Custom(c) = &cfg.topology {
        let full = cfg.tcp.mss.0 + cfg.tcp.header.0;
        for (i, link) in c.links.iter().enumerate() {
            if let Some(m) = &link.loss {
                check_loss_model(&format!("topology.links[{i}].loss"), m)?;
            }
            // A per-link buffer of 0 would drop every packet: refused like the topology's own.
            match link.buffer {
                Some(b @ Buffer::Packets(0)) => {
                    return Err(invalid(
                        &format!("topology.links[{i}].buffer"),
                        b,
                        "at least 1 packet",
                    ));
                }
                Some(b @ Buffer::Bytes(n)) if n < full => {
                    return Err(invalid(
                        &format!("topology.links[{i}].buffer"),
                        b,
                        format!(
                            "room for at least one full packet: tcp.mss + tcp.header = {full} B"
                        ),
                    ));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

fn check_loss_model(key: &str, m: &LossModel) -> Result<(), ConfigError> {
    let prob = |name: &str, v: f64, lo_open: bool, hi_closed: bool| {
        let ok = !v.is_nan()
            && (if lo_open { v > 0.0 } else { v >= 0.0 })
            && (if hi_closed { v <= 1.0 } else { v < 1.0 });
        if ok {
            return Ok(());
        }
        let lo = if lo_open { "(0" } else { "[0" };
        let hi = if hi_closed { "1]" } else { "1)" };
        Err(invalid(
            &format!("{key}.{name}"),
            v,
            format!("a probability in {lo}, {hi}"),
        ))
    };
    match *m {
        LossModel::Bernoulli { p } => prob("p", p, false, false),
        LossModel::GilbertElliott {
            p_good_to_bad,
            p_bad_to_good,
            loss_in_good,
            loss_in_bad,
        } => {
            // A chain that can never leave a state is not Gilbert-Elliott: both moves possible.
            prob("p_good_to_bad", p_good_to_bad, true, true)?;
            prob("p_bad_to_good", p_bad_to_good, true, true)?;
            prob("loss_in_good", loss_in_good, false, false)?;
            prob("loss_in_bad", loss_in_bad, false, true)
        }
    }
}
