//! TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the Datacenter", SIGCOMM
//! 2015, §4 Algorithm 1), checked against the HPCC authors' ns-3 fork (`rdma-hw.cc`:
//! `HandleAckTimely`, `UpdateRateTimely`).
//!
//! At each completion event with RTT sample `rtt` (Algorithm 1):
//!
//! - new_rtt_diff = rtt − prev_rtt; prev_rtt ← rtt;
//! - rtt_diff ← (1 − α)·rtt_diff + α·new_rtt_diff; gradient = rtt_diff / minRTT;
//! - rtt < T_low: R += δ;
//! - rtt > T_high: R ← R·(1 − β·(1 − T_high/rtt));
//! - gradient ≤ 0: R += N·δ, N = 5 once the gradient has been negative for 5 completions in a
//!   row (hyperactive increase, HAI), else N = 1;
//! - else: R ← R·(1 − β·gradient).
//!
//! R stays within [min_rate, line rate]. The paper's completion is a segment of 16–64 KB (the
//! NIC's completion of one `send`), not one ACK; [`TimelyUpdate`] picks the event: every ACK,
//! every N bytes acknowledged (the paper), or once per RTT (the fork's `lastUpdateSeq` rule).
//! The first event only records prev_rtt.

use super::{require, to_bps};
use crate::controller::{AckSample, ControllerState, RateControl, RateController};
use incastsim_core::{BitsPerSec, Duration, Time};

/// What makes a completion event (an RTT sample TIMELY acts on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimelyUpdate {
    /// Every ACK (and NACK) with its RTT sample.
    EveryAck,
    /// Each time this many more bytes have been acknowledged: the paper's per-segment
    /// completion (§4: segments of 16–64 KB); the sample is the completing ACK's RTT.
    EveryBytes(u64),
    /// Once per RTT: when the ACK passes the `snd_nxt` recorded at the last event (the fork's
    /// `HandleAckTimely`: `ack_seq > m_lastUpdateSeq`, then `m_lastUpdateSeq = snd_nxt`).
    OncePerRtt,
}

/// TIMELY's parameters. Every field is public so any one can be overridden after a named set.
/// The default is [`paper`](Self::paper).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimelyParams {
    /// α, the EWMA weight of a new RTT difference, in (0, 1].
    pub alpha: f64,
    /// β, the multiplicative-decrease factor, in (0, 1].
    pub beta: f64,
    /// δ, the additive-increase step.
    pub delta: BitsPerSec,
    /// N, the HAI multiple of δ.
    pub hai_factor: u32,
    /// Completions in a row with a non-positive gradient before HAI (≥ 1).
    pub hai_after: u32,
    /// T_low: below it, always increase.
    pub t_low: Duration,
    /// T_high: above it, always decrease.
    pub t_high: Duration,
    /// minRTT, the gradient's normalizer.
    pub min_rtt: Duration,
    /// What makes a completion event.
    pub update: TimelyUpdate,
    /// The rate never goes below this.
    pub min_rate: BitsPerSec,
}

impl Default for TimelyParams {
    fn default() -> Self {
        TimelyParams::paper()
    }
}

impl TimelyParams {
    /// TIMELY with the paper's values (Algorithm 1 and §5). α, β, T_low, T_high and minRTT are
    /// also the fork's `rdma-hw.cc` attribute defaults (`TimelyAlpha` 0.875, `TimelyBeta` 0.8,
    /// `TimelyTLow` 50000 ns, `TimelyTHigh` 500000 ns, `TimelyMinRtt` 20000 ns).
    pub fn paper() -> TimelyParams {
        TimelyParams {
            alpha: 0.875, // rdma-hw.cc `TimelyAlpha` (the value cited from the paper's §5)
            beta: 0.8,    // paper §5 / rdma-hw.cc `TimelyBeta`
            delta: BitsPerSec::mbps(10), // paper §5: δ = 10 Mbps
            hai_factor: 5, // paper Algorithm 1: N = 5 in HAI mode
            hai_after: 5, // paper Algorithm 1: after 5 completions with a negative gradient
            t_low: Duration::from_us(50), // paper §5 / rdma-hw.cc `TimelyTLow` 50 µs
            t_high: Duration::from_us(500), // paper §5 / rdma-hw.cc `TimelyTHigh` 500 µs
            min_rtt: Duration::from_us(20), // paper §5 / rdma-hw.cc `TimelyMinRtt` 20 µs
            update: TimelyUpdate::EveryBytes(16 * 1024), // paper §4: a completion per 16–64 KB segment (the smallest)
            min_rate: BitsPerSec::mbps(100), // no paper value; rdma-hw.cc `MinRate` default 100Mb/s
        }
    }

    /// TIMELY as the fork's `run.py --cc timely` runs it at `line_rate`: δ = `10 * bw / 10`
    /// Mb/s and the HAI step `50 * bw / 10` Mb/s (= 5δ), once per RTT, MIN_RATE 1 Gbps. (The
    /// fork enters HAI after 5 increases in a row of either kind; here after `hai_after`
    /// non-positive gradients, the paper's rule.)
    pub fn hpcc_fork(line_rate: BitsPerSec) -> TimelyParams {
        TimelyParams {
            delta: BitsPerSec((10e6 * line_rate.as_f64() / 10e9).round() as u64), // run.py timely: ai = 10 * bw / 10
            hai_factor: 5, // run.py timely: hai = 50 * bw / 10 = 5 · ai
            update: TimelyUpdate::OncePerRtt, // rdma-hw.cc HandleAckTimely
            min_rate: BitsPerSec::gbps(1), // run.py: MIN_RATE 1000Mb/s
            ..TimelyParams::paper()
        }
    }

    /// The first field outside its allowed range, as `timely.field = value: allowed`.
    pub fn check(&self) -> Result<(), String> {
        let a = self.alpha;
        require(a > 0.0 && a <= 1.0, "timely.alpha", a, "must be in (0, 1]")?;
        let b = self.beta;
        require(b > 0.0 && b <= 1.0, "timely.beta", b, "must be in (0, 1]")?;
        require(
            self.hai_after >= 1,
            "timely.hai_after",
            self.hai_after,
            "must be at least 1",
        )?;
        require(
            self.min_rtt > Duration::ZERO,
            "timely.min_rtt",
            self.min_rtt,
            "must be positive",
        )?;
        require(
            self.t_low <= self.t_high,
            "timely.t_low",
            self.t_low,
            &format!("must not exceed timely.t_high ({})", self.t_high),
        )?;
        if let TimelyUpdate::EveryBytes(n) = self.update {
            require(n > 0, "timely.update.every_bytes", n, "must be positive")?;
        }
        require(
            self.min_rate.0 > 0,
            "timely.min_rate",
            self.min_rate.0,
            "must be positive (bit/s)",
        )?;
        Ok(())
    }
}

/// TIMELY for one QP.
#[derive(Clone, Debug)]
pub struct Timely {
    /// The parameters it runs with.
    pub params: TimelyParams,
    line_rate: f64,
    /// R, bit/s.
    rate: f64,
    /// prev_rtt, ps; `None` before the first completion.
    prev_rtt: Option<u64>,
    /// rtt_diff, ps.
    rtt_diff: f64,
    gradient: f64,
    /// Completions in a row with gradient ≤ 0.
    neg_streak: u32,
    /// Bytes acknowledged toward the next completion ([`TimelyUpdate::EveryBytes`]).
    bytes: u64,
    /// `snd_nxt` at the last completion ([`TimelyUpdate::OncePerRtt`]).
    last_update_seq: u64,
    decreases: u64,
    increases: u64,
}

impl Timely {
    /// TIMELY before its first completion. Check `params` first ([`TimelyParams::check`]).
    pub fn new(params: TimelyParams) -> Timely {
        Timely {
            params,
            line_rate: 0.0,
            rate: 0.0,
            prev_rtt: None,
            rtt_diff: 0.0, // rdma-queue-pair.cc: `tmly.rttDiff = 0`
            gradient: 0.0,
            neg_streak: 0,
            bytes: 0,
            last_update_seq: 0,
            decreases: 0,
            increases: 0,
        }
    }

    /// R, bit/s.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// The last normalized gradient.
    pub fn gradient(&self) -> f64 {
        self.gradient
    }

    /// This ACK completes an event.
    fn is_completion(&mut self, s: &AckSample<'_>) -> bool {
        match self.params.update {
            TimelyUpdate::EveryAck => true,
            TimelyUpdate::EveryBytes(n) => {
                self.bytes += s.acked_bytes;
                if self.bytes >= n {
                    self.bytes %= n;
                    true
                } else {
                    false
                }
            }
            TimelyUpdate::OncePerRtt => {
                if self.prev_rtt.is_none() || s.snd_una > self.last_update_seq {
                    self.last_update_seq = s.snd_nxt;
                    true
                } else {
                    false
                }
            }
        }
    }

    /// Algorithm 1 on one RTT sample.
    fn completion(&mut self, rtt: Duration) {
        let p = self.params;
        let rtt_ps = rtt.as_ps();
        let Some(prev) = self.prev_rtt.replace(rtt_ps) else {
            return; // the first sample only sets prev_rtt
        };
        let new_rtt_diff = rtt_ps as f64 - prev as f64;
        self.rtt_diff = (1.0 - p.alpha) * self.rtt_diff + p.alpha * new_rtt_diff;
        self.gradient = self.rtt_diff / p.min_rtt.as_ps() as f64;
        if self.gradient <= 0.0 {
            self.neg_streak = self.neg_streak.saturating_add(1);
        } else {
            self.neg_streak = 0;
        }
        let delta = p.delta.as_f64();
        let new = if rtt < p.t_low {
            self.rate + delta
        } else if rtt > p.t_high {
            let t_high = p.t_high.as_ps() as f64;
            self.rate * (1.0 - p.beta * (1.0 - t_high / rtt_ps as f64))
        } else if self.gradient <= 0.0 {
            let n = if self.neg_streak >= p.hai_after {
                p.hai_factor
            } else {
                1
            };
            self.rate + f64::from(n) * delta
        } else {
            // The fork clamps the factor at 0 (`if (c < 0) c = 0`); min_rate then holds.
            self.rate * (1.0 - p.beta * self.gradient).max(0.0)
        };
        let new = new.clamp(p.min_rate.as_f64().min(self.line_rate), self.line_rate);
        if new < self.rate {
            self.decreases += 1;
        } else if new > self.rate {
            self.increases += 1;
        }
        self.rate = new;
    }
}

impl RateController for Timely {
    fn on_start(&mut self, _now: Time, line_rate: BitsPerSec, ctl: &mut RateControl) {
        // Fork `AddQueuePair`: `tmly.m_curRate = m_bps` (the NIC's rate).
        self.line_rate = line_rate.as_f64();
        self.rate = ctl.rate.as_f64().min(self.line_rate);
    }

    fn on_ack(&mut self, s: &AckSample<'_>, ctl: &mut RateControl) {
        if self.is_completion(s) {
            self.completion(s.rtt);
            ctl.rate = to_bps(self.rate);
        }
    }

    fn state(&self) -> ControllerState {
        ControllerState {
            rtt_gradient: Some(self.gradient),
            rate_decreases: self.decreases,
            rate_increases: self.increases,
            ..ControllerState::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use incastsim_core::TELEMETRY_WORDS;

    const G: f64 = 1e9;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1.0)
    }

    fn ack(rtt_us: u64, acked: u64, snd_una: u64, snd_nxt: u64) -> AckSample<'static> {
        AckSample {
            now: Time::ZERO,
            nack: false,
            acked_bytes: acked,
            rtt: Duration::from_us(rtt_us),
            ecn_echo: false,
            telemetry: [0; TELEMETRY_WORDS],
            int: &[],
            snd_una,
            snd_nxt,
            bytes_in_flight: 0,
        }
    }

    fn started(p: TimelyParams, rate: BitsPerSec) -> (Timely, RateControl) {
        let mut t = Timely::new(p);
        let mut c = RateControl {
            rate,
            window_bytes: None,
            timer: None,
        };
        t.on_start(Time::ZERO, BitsPerSec::gbps(10), &mut c);
        (t, c)
    }

    /// The paper's values (α = 0.875, β = 0.8, δ = 10 Mbps, minRTT = 20 µs, T_low = 50 µs,
    /// T_high = 500 µs), every ACK a completion, 10 Gbps line, starting at 5 Gbps:
    /// - 60 µs: the first sample only sets prev_rtt.
    /// - 70 µs (rising): new_rtt_diff = 10 µs; rtt_diff = 0.125·0 + 0.875·10 = 8.75 µs;
    ///   gradient = 8.75/20 = 0.4375 > 0: R = 5 · (1 − 0.8·0.4375) = 5 · 0.65 = 3.25 Gbps.
    /// - 65 µs (falling): new_rtt_diff = −5; rtt_diff = 0.125·8.75 − 0.875·5 = −3.28125;
    ///   gradient = −0.1640625 ≤ 0, first in a row: R = 3.25 + 0.01 = 3.26 Gbps.
    /// - 64, 63, 62 µs: rtt_diff stays negative (−1.28515625, −1.0356…, −1.0044…): R = 3.27,
    ///   3.28, 3.29.
    /// - 61 µs: the fifth non-positive gradient in a row: HAI, R = 3.29 + 5·0.01 = 3.34 Gbps.
    #[test]
    fn rising_then_falling_then_hai() {
        let p = TimelyParams {
            update: TimelyUpdate::EveryAck,
            ..TimelyParams::paper()
        };
        let (mut t, mut c) = started(p, BitsPerSec::gbps(5));
        t.on_ack(&ack(60, 1000, 0, 0), &mut c);
        assert_eq!(c.rate, BitsPerSec::gbps(5));
        t.on_ack(&ack(70, 1000, 0, 0), &mut c);
        assert!(close(t.gradient(), 0.4375));
        assert!(close(t.rate(), 3.25 * G));
        assert_eq!(c.rate, BitsPerSec(3_250_000_000));
        t.on_ack(&ack(65, 1000, 0, 0), &mut c);
        assert!(close(t.gradient(), -3.28125 / 20.0));
        assert!(close(t.rate(), 3.26 * G));
        for (rtt, r) in [(64, 3.27), (63, 3.28), (62, 3.29), (61, 3.34)] {
            t.on_ack(&ack(rtt, 1000, 0, 0), &mut c);
            assert!(t.gradient() <= 0.0);
            assert!(close(t.rate(), r * G), "rtt {rtt}: {}", t.rate());
        }
        let st = t.state();
        assert_eq!((st.rate_decreases, st.rate_increases), (1, 5));
        assert_eq!(st.rtt_gradient, Some(t.gradient()));
    }

    /// Above T_high: R ← R·(1 − β(1 − T_high/rtt)); 600 µs from 5 Gbps: 5·(1 − 0.8/6) =
    /// 4.3333 Gbps. Below T_low: R += δ whatever the gradient (40 µs after 600: +10 Mbps).
    #[test]
    fn thresholds() {
        let p = TimelyParams {
            update: TimelyUpdate::EveryAck,
            ..TimelyParams::paper()
        };
        let (mut t, mut c) = started(p, BitsPerSec::gbps(5));
        t.on_ack(&ack(100, 1000, 0, 0), &mut c);
        t.on_ack(&ack(600, 1000, 0, 0), &mut c);
        assert!(close(t.rate(), 5.0 * G * (1.0 - 0.8 / 6.0)));
        let before = t.rate();
        t.on_ack(&ack(40, 1000, 0, 0), &mut c);
        assert!(close(t.rate(), before + 0.01 * G));
    }

    /// Completion events: every 16 KiB acknowledged (the paper's segment), or once per RTT
    /// (the fork): only ACKs passing the snd_nxt of the last event count.
    #[test]
    fn completion_granularity() {
        let (mut t, mut c) = started(TimelyParams::paper(), BitsPerSec::gbps(5));
        t.on_ack(&ack(60, 16 * 1024, 0, 0), &mut c); // event 1: prev_rtt = 60
        t.on_ack(&ack(200, 8 * 1024, 0, 0), &mut c); // half a segment: ignored
        assert_eq!(t.prev_rtt, Some(Duration::from_us(60).as_ps()));
        t.on_ack(&ack(70, 8 * 1024, 0, 0), &mut c); // event 2 with rtt 70: the rising case
        assert!(close(t.rate(), 3.25 * G));

        let p = TimelyParams::hpcc_fork(BitsPerSec::gbps(10));
        assert_eq!(p.delta, BitsPerSec::mbps(10));
        let (mut t, mut c) = started(p, BitsPerSec::gbps(5));
        t.on_ack(&ack(60, 1000, 1, 10), &mut c); // event 1, lastUpdateSeq = 10
        t.on_ack(&ack(200, 1000, 5, 12), &mut c); // 5 ≤ 10: not an event
        t.on_ack(&ack(70, 1000, 11, 20), &mut c); // 11 > 10: event 2
        assert!(close(t.rate(), 3.25 * G));
        assert_eq!(t.last_update_seq, 20);
    }

    #[test]
    fn params_check() {
        assert_eq!(TimelyParams::paper().check(), Ok(()));
        let bad = TimelyParams {
            beta: 0.0,
            ..TimelyParams::paper()
        };
        assert_eq!(
            bad.check(),
            Err("timely.beta = 0: must be in (0, 1]".to_string())
        );
        let bad = TimelyParams {
            t_low: Duration::from_us(600),
            ..TimelyParams::paper()
        };
        assert!(bad.check().unwrap_err().starts_with("timely.t_low = "));
    }
}
