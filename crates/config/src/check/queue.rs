//! The switch queue's disciplines (`topology.switch_queue`): RED, WRED, ECN and admission
//! thresholds in one unit, ordered, with valid weights.

use crate::error::{ConfigError, invalid};
use crate::topology::{QueueConfig, WredProfile};
use crate::units::Buffer;

/// The config key of the switch queue; its thresholds are `QUEUE_KEY.<name>`.
const QUEUE_KEY: &str = "topology.switch_queue";

/// RED, WRED, ECN and admission thresholds: sizes in one unit, ordered, with valid weights.
pub(super) fn check_queue(q: &QueueConfig) -> Result<(), ConfigError> {
    match q {
        QueueConfig::DropTail => {}
        QueueConfig::Red {
            min_th,
            max_th,
            max_p,
            w_q,
            ..
        } => {
            check_red_thresholds(min_th, max_th, *max_p, "")?;
            check_w_q(*w_q)?;
        }
        QueueConfig::Wred { profiles, w_q, .. } => {
            check_wred_profiles(profiles)?;
            check_w_q(*w_q)?;
        }
        QueueConfig::EcnThreshold { k } => {
            queue_threshold("k", k)?;
        }
        QueueConfig::ThresholdAdmit { threshold: t } => {
            queue_threshold("threshold", t)?;
        }
        // Checked by the loader's catalog (the extension's own `check`).
        QueueConfig::Extension(_) => {}
    }
    Ok(())
}

/// A threshold of the switch queue (key `<k>`) as a number of its unit: a size in bytes or
/// packets, not `unlimited`.
fn queue_threshold(k: &str, b: &Buffer) -> Result<f64, ConfigError> {
    match *b {
        Buffer::Bytes(n) => Ok(n as f64),
        Buffer::Packets(n) => Ok(n as f64),
        Buffer::Unlimited => Err(invalid(
            &format!("{QUEUE_KEY}.{k}"),
            b,
            "a size in bytes or packets",
        )),
    }
}

/// Both sizes are in bytes, or both in packets.
fn same_unit(a: &Buffer, b: &Buffer) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// One RED curve (keys `<prefix>min_th`, `<prefix>max_th`, `<prefix>max_p`): thresholds in one
/// unit with min_th < max_th, and max_p a probability.
fn check_red_thresholds(
    min: &Buffer,
    max: &Buffer,
    max_p: f64,
    prefix: &str,
) -> Result<(), ConfigError> {
    let (lo, hi) = (
        queue_threshold(&format!("{prefix}min_th"), min)?,
        queue_threshold(&format!("{prefix}max_th"), max)?,
    );
    if !same_unit(min, max) {
        return Err(invalid(
            &format!("{QUEUE_KEY}.{prefix}max_th"),
            max,
            "the same unit as min_th (bytes or packets)",
        ));
    }
    if lo >= hi {
        return Err(invalid(
            &format!("{QUEUE_KEY}.{prefix}max_th"),
            max,
            format!("more than min_th ({min})"),
        ));
    }
    if !(max_p > 0.0 && max_p <= 1.0) {
        return Err(invalid(
            &format!("{QUEUE_KEY}.{prefix}max_p"),
            max_p,
            "a probability in (0, 1]",
        ));
    }
    Ok(())
}

/// The averaging weight of RED and WRED.
fn check_w_q(w: f64) -> Result<(), ConfigError> {
    if w > 0.0 && w <= 1.0 {
        Ok(())
    } else {
        Err(invalid(
            &format!("{QUEUE_KEY}.w_q"),
            w,
            "a weight in (0, 1]",
        ))
    }
}

/// WRED: at least one profile, each a valid RED curve in the first profile's unit, and each
/// DSCP value (0-63) in at most one profile.
fn check_wred_profiles(profiles: &[WredProfile]) -> Result<(), ConfigError> {
    if profiles.is_empty() {
        return Err(invalid(
            &format!("{QUEUE_KEY}.profiles"),
            "[]",
            "at least one profile",
        ));
    }
    let mut seen = [false; 64];
    for (i, p) in profiles.iter().enumerate() {
        check_red_thresholds(&p.min_th, &p.max_th, p.max_p, &format!("profiles[{i}]."))?;
        if !same_unit(&p.min_th, &profiles[0].min_th) {
            return Err(invalid(
                &format!("{QUEUE_KEY}.profiles[{i}].min_th"),
                p.min_th,
                "the unit of the first profile",
            ));
        }
        for &d in &p.dscp {
            if d > 63 || seen[d as usize] {
                return Err(invalid(
                    &format!("{QUEUE_KEY}.profiles[{i}].dscp"),
                    d,
                    "DSCP values 0-63, each in one profile",
                ));
            }
            seen[d as usize] = true;
        }
    }
    Ok(())
}
