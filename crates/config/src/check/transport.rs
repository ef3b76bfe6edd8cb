//! `tcp.transport`: a RoCE queue pair's packet sizes, ACK coalescing and timers in range, and
//! the keys of one recovery mode not given to the other.

use crate::error::{ConfigError, invalid};
use crate::tcp::TcpConfig;
use crate::transport::{RoceRecovery, TransportConfig};
use incastsim_core::Duration;
use incastsim_tcp::BuiltinController;

/// The `transport` key of one `tcp` section (`p`: the section's key prefix, `tcp.`).
pub(super) fn check_transport(section: &TcpConfig, p: &str) -> Result<(), ConfigError> {
    let TransportConfig::Roce(r) = &section.transport else {
        return Ok(());
    };
    let key = |k: &str| format!("{p}transport.{k}");
    // A TCP controller does not run on a queue pair: only the default may stay in place.
    if !section.congestion_control.is(BuiltinController::NewReno) {
        return Err(invalid(
            &format!("{p}congestion_control"),
            section.congestion_control.name(),
            format!(
                "newreno (unused) with tcp.transport: roce: {} is a TCP controller; a queue \
                 pair's rate controller is {p}transport.congestion_control ({})",
                section.congestion_control.name(),
                crate::rdma_cc::RDMA_CC_KINDS.join(", ")
            ),
        ));
    }
    if let Some(rate) = r.initial_rate
        && rate.0.0 == 0
    {
        return Err(invalid(&key("initial_rate"), "0bps", "above 0"));
    }
    if let Some(d) = r.cnp_dscp
        && d > 63
    {
        return Err(invalid(&key("cnp_dscp"), d, "0 to 63 (a DSCP)"));
    }
    if let Some(h) = r.int_header
        && h.0 > 512
    {
        return Err(invalid(&key("int_header"), h.0, "0 to 512 bytes"));
    }
    if r.int_telemetry == Some(false) && r.congestion_control.wants_int() {
        return Err(invalid(
            &key("int_telemetry"),
            false,
            "true (or unset) with hpcc: its window comes from the switches' INT records",
        ));
    }
    if let crate::rdma_cc::RdmaCcConfig::Dcqcn {
        cnp_interval: Some(d),
        ..
    } = &r.congestion_control
        && (d.0 == Duration::ZERO || d.0 > Duration::from_secs(1))
    {
        return Err(invalid(
            &key("congestion_control.cnp_interval"),
            d.0,
            "above 0, at most 1s",
        ));
    }
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
        ("ack_timeout", r.ack_timeout),
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
    // ACK coalescing behind a window needs its timer: an ACK that shrinks the window (HPCC's,
    // a registered controller's) leaves the packets the count holds back with nothing more
    // to send, and they would wait for the retransmission timeout. The timer must fire before
    // that timeout.
    let ack_every = r.ack_every.unwrap_or(1);
    let may_window =
        r.window.is_some() || r.bdp_cap_packets.is_some() || r.congestion_control.may_set_window();
    match (ack_every > 1, r.ack_timeout) {
        (true, None) if may_window => {
            return Err(invalid(
                &key("ack_timeout"),
                "unset",
                format!(
                    "a duration with ack_every > 1 (here {ack_every}) and a window (hpcc, a \
                     registered controller, window or bdp_cap_packets): when an ACK shrinks \
                     the window, the packets the count holds back are acknowledged only by \
                     this timer or the retransmission timeout; or ack_every: 1"
                ),
            ));
        }
        (false, Some(_)) => {
            return Err(invalid(
                &key("ack_timeout"),
                "set",
                "only with ack_every > 1 (the receiver ACKs every packet at once)",
            ));
        }
        (true, Some(t)) => {
            // The configured timeout, or the default (go-back-N's fixed one, IRN's RTO_low).
            let default_rto = match r.recovery {
                RoceRecovery::GoBackN => incastsim_roce::RoceConfig::default().rto,
                RoceRecovery::Irn => incastsim_roce::RoceConfig::irn().rto,
            };
            let rto = r.rto.map(|d| d.0).unwrap_or(match default_rto {
                incastsim_roce::RtoConfig::Fixed(d) => d,
                incastsim_roce::RtoConfig::Irn { low, .. } => low,
            });
            if t.0 >= rto {
                return Err(invalid(
                    &key("ack_timeout"),
                    t.0,
                    format!(
                        "below the retransmission timeout ({rto}{}): at or above it, what \
                         the timer acknowledges is resent first",
                        if r.recovery == RoceRecovery::Irn {
                            ", IRN's RTO_low"
                        } else {
                            ""
                        }
                    ),
                ));
            }
        }
        (_, None) => {}
    }
    Ok(())
}
