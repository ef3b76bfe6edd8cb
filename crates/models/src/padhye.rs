//! Padhye, Firoiu, Towsley & Kurose, "Modeling TCP Throughput: A Simple Model and its Empirical
//! Validation" (SIGCOMM 1998): the steady-state send rate of one bulk TCP Reno flow that sees
//! independent loss indications with probability p per packet.

use crate::{ModelError, positive, probability};

/// The approximate full model, Eq. (32), packets per second:
///
/// B(p) ≈ min( W_max / RTT,
///             1 / ( RTT √(2bp/3) + T0 · min(1, 3 √(3bp/8)) · p (1 + 32 p²) ) )
///
/// `rtt_s` the mean round-trip time, `t0_s` the (first) retransmission timeout, `b` the packets
/// acknowledged per ACK (1 without delayed ACKs, 2 with), `w_max` the receive-window limit in
/// packets (`f64::INFINITY` for none). Multiply by the payload per packet for goodput.
pub fn send_rate_pps(p: f64, rtt_s: f64, t0_s: f64, b: f64, w_max: f64) -> Result<f64, ModelError> {
    let p = probability("p", p)?;
    let rtt = positive("rtt_s", rtt_s)?;
    let t0 = positive("t0_s", t0_s)?;
    let b = positive("b", b)?;
    if w_max.is_nan() || w_max <= 0.0 {
        return Err(ModelError::OutOfRange {
            name: "w_max",
            value: w_max,
            allowed: "a number of packets > 0 (infinity for no limit)",
        });
    }
    let td = rtt * (2.0 * b * p / 3.0).sqrt();
    let to = t0 * (3.0 * (3.0 * b * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p);
    Ok((w_max / rtt).min(1.0 / (td + to)))
}

/// The triple-duplicate-ACK-only model (§2.1, the square-root law of Eq. 20 for small p),
/// packets per second: B = 1 / (RTT √(2bp/3)). For a sender whose losses are (almost) all
/// repaired by fast retransmit, e.g. NewReno with limited transmit, where Eq. 32's timeout term
/// (Reno's Q̂ = min(1, 3/w) of loss indications end in a timeout) does not apply.
pub fn td_only_send_rate_pps(p: f64, rtt_s: f64, b: f64) -> Result<f64, ModelError> {
    let p = probability("p", p)?;
    let rtt = positive("rtt_s", rtt_s)?;
    let b = positive("b", b)?;
    Ok(1.0 / (rtt * (2.0 * b * p / 3.0).sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_p_approaches_the_square_root_law() {
        // With no timeouts term, B = 1/(RTT √(2p/3)) (Mathis et al.'s √(3/2)/(RTT √p)).
        let b = send_rate_pps(1e-6, 0.1, 1e-9, 1.0, f64::INFINITY).unwrap();
        let mathis = (1.5f64).sqrt() / (0.1 * 1e-3);
        assert!((b / mathis - 1.0).abs() < 1e-3, "{b} vs {mathis}");
    }

    #[test]
    fn a_worked_value_and_the_window_limit() {
        // p = 0.01, RTT = 10 ms, T0 = 200 ms, b = 1:
        // RTT √(0.02/3) = 0.000816497; 3 √(0.03/8) = 0.183712;
        // T0 · 0.183712 · 0.01 · 1.0032 = 0.000368596; B = 1/0.001185093 = 843.8 packets/s.
        let b = send_rate_pps(0.01, 0.01, 0.2, 1.0, f64::INFINITY).unwrap();
        assert!((b - 843.8).abs() < 0.1, "{b}");
        assert_eq!(send_rate_pps(0.01, 0.01, 0.2, 1.0, 5.0).unwrap(), 500.0);
        assert!(send_rate_pps(0.0, 0.01, 0.2, 1.0, 5.0).is_err());
    }
}
