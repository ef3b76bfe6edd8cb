//! TCP Vegas (Brakmo & Peterson, "TCP Vegas: End to End Congestion Avoidance on a Global
//! Internet", IEEE JSAC 13(8), 1995), a delay-based controller: it keeps between α and β of
//! its own packets queued in the network, reading every ACK's own RTT sample through
//! [`CongestionControl::on_ack_sample`] (whatever `tcp.ecn` is).
//!
//! Once per round trip (when the ACK of the first segment sent after the last adjustment
//! arrives), with BaseRTT the smallest RTT seen and RTT the smallest sample of the last round
//! trip (Linux's `tcp_vegas.c` takes the minimum to filter delayed ACKs; the paper averages):
//! - Diff = (Expected − Actual) × BaseRTT = cwnd × (RTT − BaseRTT) / RTT packets: the flow's
//!   packets sitting in queues (paper §3.2; Linux divides by BaseRTT instead, which counts a
//!   little more);
//! - congestion avoidance: cwnd += 1 MSS if Diff < α, −= 1 MSS if Diff > β (§3.2);
//! - slow start (§3.3): grow as Reno while Diff ≤ γ, then leave it with cwnd cut to the
//!   Expected rate's window + 1 (Linux's reading of "decreases cwnd by 1/8": min(cwnd,
//!   target + 1)).
//!
//! Losses are Reno's (the trait's defaults: ssthresh = FlightSize/2). Too few samples in a
//! round trip (≤ 2, delayed ACKs) fall back to Reno's growth, as Linux does.

use incastsim::config::invalid;
use incastsim::core::{Duration, Time};
use incastsim::extend::{ControllerContext, ControllerExtension};
use incastsim::scenario::ConfigError;
use incastsim::tcp::{AckSample, CcControl, CcState, CongestionControl, NewReno, Window, cc_hooks};
use serde::{Deserialize, Serialize};

/// `vegas`'s parameters: `tcp.congestion_control: {name: vegas, alpha: 2, beta: 4, gamma: 1}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VegasParams {
    /// Fewest packets to keep queued (paper §3.2: 1; Linux `tcp_vegas.c`: 2).
    pub alpha: f64,
    /// Most packets to keep queued (paper §3.2: 3; Linux: 4).
    pub beta: f64,
    /// Slow start ends when more than this many packets are queued (§3.3; Linux: 1).
    pub gamma: f64,
}

impl Default for VegasParams {
    fn default() -> Self {
        // Linux's defaults (`tcp_vegas.c`: alpha = 2, beta = 4, gamma = 1).
        VegasParams {
            alpha: 2.0,
            beta: 4.0,
            gamma: 1.0,
        }
    }
}

/// One connection's Vegas state.
#[derive(Clone, Debug)]
pub struct Vegas {
    params: VegasParams,
    /// The smallest RTT of the connection (BaseRTT).
    base_rtt: Option<Duration>,
    /// The smallest RTT of this round trip, and how many samples it had.
    round_min_rtt: Option<Duration>,
    round_samples: u32,
    /// The round trip ends when this byte is acknowledged (snd_nxt at its start).
    round_end: u64,
    /// Reno's growth, for rounds with too few samples.
    reno: NewReno,
    /// The last Diff computed, packets (for outputs).
    last_diff: f64,
}

impl Vegas {
    /// BaseRTT in microseconds (0 before the first sample): the controller's own state.
    pub fn base_rtt_us(&self) -> f64 {
        self.base_rtt.map_or(0.0, |d| d.as_secs_f64() * 1e6)
    }

    /// The last Diff (packets queued) computed.
    pub fn diff_packets(&self) -> f64 {
        self.last_diff
    }

    /// The per-round decision (paper §3.2-3.3, `tcp_vegas_cong_avoid`).
    fn end_of_round(&mut self, w: &mut Window, sample: &AckSample, base: Duration) {
        let rtt = self.round_min_rtt.unwrap_or(base);
        let smss = w.smss as f64;
        let cwnd = w.cwnd as f64 / smss;
        let diff = cwnd * (rtt.as_secs_f64() - base.as_secs_f64()) / rtt.as_secs_f64();
        self.last_diff = diff;
        if w.in_slow_start() {
            if diff > self.params.gamma {
                // Leave slow start: the window the Expected rate needs, plus one.
                let target = cwnd * base.as_secs_f64() / rtt.as_secs_f64();
                let segments = cwnd.min(target + 1.0).max(2.0);
                w.cwnd = (segments * smss) as u64;
                w.ssthresh = w
                    .ssthresh
                    .min(w.cwnd.saturating_sub(w.smss).max(2 * w.smss));
            }
        } else if diff > self.params.beta {
            w.cwnd = w.cwnd.saturating_sub(w.smss).max(2 * w.smss);
            w.ssthresh = w
                .ssthresh
                .min(w.cwnd.saturating_sub(w.smss).max(2 * w.smss));
        } else if diff < self.params.alpha {
            w.cwnd += w.smss;
        }
        self.round_end = sample.snd_nxt;
        self.round_min_rtt = None;
        self.round_samples = 0;
    }
}

impl CongestionControl for Vegas {
    fn cc_hooks(&self) -> u8 {
        cc_hooks::ACK_SAMPLE
    }

    /// Nothing here: every ACK goes through [`Vegas::on_ack_sample`].
    fn on_ack(&mut self, _w: &mut Window, _now: Time, _acked: u64, _srtt: Option<Duration>) {}

    fn on_ack_sample(&mut self, w: &mut Window, s: &AckSample, _ctl: &mut CcControl) {
        if let Some(rtt) = s.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
            self.round_min_rtt = Some(self.round_min_rtt.map_or(rtt, |m| m.min(rtt)));
            self.round_samples += 1;
        }
        // Loss recovery sets the window; Vegas adjusts it only outside recovery.
        if s.in_recovery || s.acked_bytes == 0 {
            return;
        }
        let Some(base) = self.base_rtt else { return };
        if s.snd_una < self.round_end {
            // Within a round trip only slow start grows (per ACK, as Reno's).
            if w.in_slow_start() {
                self.reno.on_ack(w, s.now, s.acked_bytes, s.srtt);
            }
            return;
        }
        if self.round_samples <= 2 {
            // Too few samples to tell (delayed ACKs): Reno's growth for this round (Linux).
            self.reno.on_ack(w, s.now, s.acked_bytes, s.srtt);
            self.round_end = s.snd_nxt;
            self.round_min_rtt = None;
            self.round_samples = 0;
            return;
        }
        let slow_start = w.in_slow_start();
        self.end_of_round(w, s, base);
        if slow_start && w.in_slow_start() {
            self.reno.on_ack(w, s.now, s.acked_bytes, s.srtt);
        }
    }

    fn on_timeout(&mut self, w: &mut Window, now: Time, flight_size: u64, first_timeout: bool) {
        if first_timeout {
            w.ssthresh = self.ssthresh_on_loss(w, now, flight_size);
        }
        w.cwnd = w.smss;
        self.round_min_rtt = None;
        self.round_samples = 0;
    }

    fn value_names(&self) -> &'static [&'static str] {
        &["base_rtt_us", "vegas_diff_packets"]
    }

    fn values(&self, out: &mut [f64]) {
        out.copy_from_slice(&[self.base_rtt_us(), self.last_diff]);
    }

    fn state(&self, w: &Window) -> CcState {
        CcState::of_window(w)
    }
}

impl ControllerExtension for Vegas {
    type Params = VegasParams;
    const DESCRIPTION: &'static str = "TCP Vegas (Brakmo & Peterson 1995): keeps alpha to beta packets queued, from every ACK's RTT sample";

    fn check(p: &VegasParams) -> Result<(), ConfigError> {
        if !(p.alpha > 0.0 && p.alpha.is_finite()) {
            return Err(invalid("alpha", p.alpha, "a positive number of packets"));
        }
        if !(p.beta >= p.alpha && p.beta.is_finite()) {
            return Err(invalid("beta", p.beta, "a number of packets ≥ alpha"));
        }
        if !(p.gamma > 0.0 && p.gamma.is_finite()) {
            return Err(invalid("gamma", p.gamma, "a positive number of packets"));
        }
        Ok(())
    }

    fn new(p: &VegasParams, _ctx: &ControllerContext) -> Vegas {
        Vegas {
            params: p.clone(),
            base_rtt: None,
            round_min_rtt: None,
            round_samples: 0,
            round_end: 0,
            reno: NewReno::default(),
            last_diff: 0.0,
        }
    }
}
