//! `tcp.transport`: a RoCE queue pair's packet sizes, ACK coalescing and timers in range, and
//! the keys of one recovery mode not given to the other.

use crate::error::{ConfigError, invalid};
use crate::transport::{RoceRecovery, TransportConfig};
use incastsim_core::Duration;

/// The `transport` key of one `tcp` section (`p`: the section's key prefix, `tcp.`).
pub(super) fn check_transport(t: &TransportConfig, p: &str) -> Result<(), ConfigError> {
    let TransportConfig::Roce(r) = t else {
        return Ok(());
    };
    let key = |k: &str| format!("{p}transport.{k}");
    if let Some(mtu) = r.mtu
        && !(64..=9000).contains(&mtu.0)
    {
        return Err(invalid(&key("mtu"), mtu.0, "64 to 9000 bytes"));
    }
    if let Some(h) = r.header
        && !(20..=512).contains(&h.0)
    {
        return Err(invalid(&key("header"), h.0, "20 to 512 bytes"));
    }
    if let Some(n) = r.ack_every
        && !(1..=1024).contains(&n)
    {
        return Err(invalid(&key("ack_every"), n, "1 to 1024 packets"));
    }
    for (k, d) in [
        ("rto", r.rto),
        ("rto_high", r.rto_high),
        ("nack_reissue", r.nack_reissue),
    ] {
        if let Some(d) = d
            && (d.0 == Duration::ZERO || d.0 > Duration::from_secs(10))
        {
            return Err(invalid(&key(k), d.0, "above 0, at most 10s"));
        }
    }
    if let Some(w) = r.window
        && w.0 == 0
    {
        return Err(invalid(
            &key("window"),
            w.0,
            "above 0 bytes (or null: none)",
        ));
    }
    if r.bdp_cap_packets == Some(0) {
        return Err(invalid(
            &key("bdp_cap_packets"),
            0,
            "1 or more (or null: none)",
        ));
    }
    match r.recovery {
        RoceRecovery::GoBackN => {
            for (k, set) in [
                ("rto_high", r.rto_high.is_some()),
                ("rto_low_below", r.rto_low_below.is_some()),
                ("bdp_cap_packets", r.bdp_cap_packets.is_some()),
            ] {
                if set {
                    return Err(invalid(
                        &key(k),
                        "set",
                        "only with recovery: irn (IRN's timers and BDP cap)",
                    ));
                }
            }
        }
        RoceRecovery::Irn => {
            if r.nack_reissue.is_some() {
                return Err(invalid(
                    &key("nack_reissue"),
                    "set",
                    "only with recovery: go_back_n (IRN NACKs every out-of-order packet)",
                ));
            }
            let low = r.rto.map_or(Duration::from_us(100), |d| d.0);
            let high = r.rto_high.map_or(Duration::from_us(320), |d| d.0);
            if high < low {
                return Err(invalid(
                    &key("rto_high"),
                    high,
                    format!("at least RTO_low ({low})"),
                ));
            }
        }
    }
    Ok(())
}
