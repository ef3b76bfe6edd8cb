//! Congestion control: how the window grows on ACKs and shrinks on congestion.
//!
//! Loss *detection and recovery* (dupacks, fast retransmit, NewReno partial ACKs, RTO) live in the
//! sender; a controller only answers "how big is the window". Controllers implement
//! [`CongestionControl`]; the sender holds a [`Cc`] enum so the per-ACK path is a `match`.
//! NewReno, CUBIC and DCTCP are its variants; a downstream crate's controller is `Cc::Extension`.

use crate::cc_state::{CcState, CubicState, Window};
use serde::{Deserialize, Serialize};

mod builtin;
mod sample;
pub use builtin::{BuiltinController, Cc, ControllerParams};
use incastsim_core::{Duration, Time};
pub(crate) use sample::DeliveryRate;
pub use sample::{AckSample, CcControl, cc_hooks};

/// Hooks a congestion controller implements. Defaults follow RFC 5681.
///
/// The window hooks (`on_ack`, the reductions) are what a loss- or ECN-based controller
/// needs. A delay- or rate-based one (Vegas, BBR, Swift, TIMELY, DCQCN, HPCC) also asks, by
/// [`cc_hooks`](Self::cc_hooks), for [`on_ack_sample`](Self::on_ack_sample): every ACK with its
/// RTT sample, flight size and delivery rate, during recovery too; from it and from its own
/// timer ([`on_cc_timer`](Self::on_cc_timer)) it may set the window and, through
/// [`CcControl`], a pacing rate and the timer's next deadline.
pub trait CongestionControl {
    /// `acked` new bytes were cumulatively acknowledged outside loss recovery, and the ACK
    /// carried no ECN-Echo (with `tcp.ecn` on). `srtt` is the smoothed RTT (RFC 6298 SRTT)
    /// after this ACK's sample, not the sample itself: a controller that needs each sample
    /// asks for [`on_ack_sample`](Self::on_ack_sample).
    fn on_ack(&mut self, w: &mut Window, now: Time, acked: u64, srtt: Option<Duration>);

    /// Which optional hooks this controller wants ([`cc_hooks`] bits), read once when the
    /// sender is built: the sender neither builds a sample nor keeps send records for a
    /// controller that does not ask. Default: none.
    fn cc_hooks(&self) -> u8 {
        0
    }

    /// Every ACK (with [`cc_hooks::ACK_SAMPLE`]), after TCP has processed it, whatever
    /// `tcp.ecn` is and during loss recovery too. The controller may change the window
    /// (`w.cwnd`, `w.ssthresh`) and `ctl` (pacing rate, timer); the sender then sends what
    /// the new window allows. Called after [`on_ack`](Self::on_ack) and the reductions, so a
    /// controller that does everything here leaves those as no-ops.
    fn on_ack_sample(&mut self, w: &mut Window, sample: &AckSample, ctl: &mut CcControl) {
        let _ = (w, sample, ctl);
    }

    /// The connection is about to send its first segment (only for a controller with a
    /// [`cc_hooks`](Self::cc_hooks) bit set): a rate-based controller sets its initial pacing
    /// rate or timer here (DCQCN and HPCC start at line rate).
    fn on_cc_start(&mut self, w: &mut Window, now: Time, ctl: &mut CcControl) {
        let _ = (w, now, ctl);
    }

    /// The controller's own timer ([`CcControl::timer`]) is due at `now` (it is cleared
    /// before the call: set it again for a periodic timer). The sender sends afterwards.
    fn on_cc_timer(&mut self, w: &mut Window, now: Time, ctl: &mut CcControl) {
        let _ = (w, now, ctl);
    }

    /// ssthresh after a loss detected by duplicate ACKs.
    /// RFC 5681 §3.2 eq. (4): ssthresh = max(FlightSize / 2, 2*SMSS).
    fn ssthresh_on_loss(&mut self, w: &Window, _now: Time, flight_size: u64) -> u64 {
        (flight_size / 2).max(2 * w.smss)
    }

    /// The retransmission timer expired. RFC 5681 §3.1: ssthresh per eq. (4) — held constant if
    /// the segment had already been retransmitted by the timer — and cwnd = LW = 1 SMSS.
    fn on_timeout(&mut self, w: &mut Window, now: Time, flight_size: u64, first_timeout: bool) {
        if first_timeout {
            w.ssthresh = self.ssthresh_on_loss(w, now, flight_size);
        }
        w.cwnd = w.smss;
    }

    /// Fast recovery ended (full ACK).
    fn on_recovery_exit(&mut self, _w: &mut Window, _now: Time) {}

    /// Every ACK with its ECN-Echo bit, called only when `tcp.ecn` is on (DCTCP's marking
    /// estimator; [`on_ack_sample`](Self::on_ack_sample) sees every ACK whatever `tcp.ecn`
    /// is). `acked` is the bytes newly acknowledged (0 for a duplicate), `ack` the new
    /// cumulative ACK and `snd_nxt` the next sequence to send.
    fn on_ack_ecn(&mut self, _acked: u64, _ece: bool, _ack: u64, _snd_nxt: u64) {}

    /// ssthresh when reacting to ECN-Echo (at most once per window); cwnd is set to it.
    /// RFC 3168 §6.1.2: the same reduction as for a loss.
    fn ssthresh_on_ecn(&mut self, w: &Window, now: Time, flight_size: u64) -> u64 {
        self.ssthresh_on_loss(w, now, flight_size)
    }

    /// Names of values of its own this controller reports (`base_rtt_us`): fixed for the
    /// controller's type, they become columns of flows.csv (declared before a run, so sweeps
    /// keep them) and metrics of the flows' time series. Default: none.
    fn value_names(&self) -> &'static [&'static str] {
        &[]
    }

    /// Its values now, one per name of [`value_names`](Self::value_names), in that order
    /// (`out` has that length). Read when the time series samples the flow and when the flow
    /// finishes (its final snapshot), never per ACK.
    fn values(&self, out: &mut [f64]) {
        let _ = out;
    }

    /// The controller's state: `w` (the window the sender holds for it) and what only this
    /// controller has (CUBIC's curve, DCTCP's α). For schemes (TCPRand reads W_max) and outputs;
    /// built when asked, not per ACK.
    fn state(&self, w: &Window) -> CcState;
}

/// NewReno's window growth (RFC 5681 §3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NewReno {
    /// Bytes acknowledged since cwnd last grew in congestion avoidance.
    bytes_acked: u64,
}

impl CongestionControl for NewReno {
    fn on_ack(&mut self, w: &mut Window, _now: Time, acked: u64, _rtt: Option<Duration>) {
        if w.in_slow_start() {
            // §3.1 eq. (2): cwnd += min(N, SMSS).
            w.cwnd += acked.min(w.smss);
            self.bytes_acked = 0;
        } else {
            // §3.1 congestion avoidance, byte counting: grow by SMSS once a full cwnd of bytes
            // has been acknowledged (about one SMSS per RTT).
            self.bytes_acked += acked;
            if self.bytes_acked >= w.cwnd {
                self.bytes_acked -= w.cwnd;
                w.cwnd += w.smss;
            }
        }
    }

    fn on_timeout(&mut self, w: &mut Window, now: Time, flight_size: u64, first_timeout: bool) {
        if first_timeout {
            w.ssthresh = self.ssthresh_on_loss(w, now, flight_size);
        }
        w.cwnd = w.smss;
        self.bytes_acked = 0;
    }

    fn on_recovery_exit(&mut self, _w: &mut Window, _now: Time) {
        self.bytes_acked = 0;
    }

    fn state(&self, w: &Window) -> CcState {
        CcState::of_window(w)
    }
}

/// CUBIC's parameters (`tcp.cubic`, RFC 9438 §5), read from the config as they are written
/// there: this type is both the config section and what [`Cubic::new`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CubicConfig {
    /// C, segments / s³: how fast the window grows back (RFC 9438 §5: 0.4).
    pub c: f64,
    /// β_cubic: the window after a loss is β × W_max (RFC 9438 §5: 0.7).
    pub beta: f64,
    /// Fast convergence (RFC 9438 §4.7): after a loss below the last W_max, remember a lower
    /// W_max so a flow that is losing share releases bandwidth sooner.
    pub fast_convergence: bool,
    /// HyStart is not modelled: slow start runs until loss or ssthresh (only `false` is valid;
    /// the config's checks refuse `true`).
    pub hystart: bool,
    /// α_cubic of the Reno-friendly estimate W_est (RFC 9438 §4.3): `rfc9438` or `linux`.
    pub reno_friendly_alpha: RenoFriendlyAlpha,
}

/// How the Reno-friendly estimate W_est grows (RFC 9438 §4.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RenoFriendlyAlpha {
    /// α_cubic = 3(1 − β)/(1 + β) (0.53 with β = 0.7) until W_est reaches W_max, then 1, as
    /// RFC 9438 §4.3 says (so that CUBIC is Reno-friendly beyond the old W_max).
    #[default]
    Rfc9438,
    /// α_cubic = 3(1 − β)/(1 + β) throughout, as Linux (`tcp_cubic.c`, "beta_scale") and
    /// ns-3's `TcpCubic` compute it.
    Linux,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            c: 0.4,    // RFC 9438 §5
            beta: 0.7, // RFC 9438 §5
            fast_convergence: true,
            hystart: false,
            reno_friendly_alpha: RenoFriendlyAlpha::Rfc9438,
        }
    }
}

/// DCTCP's parameters (`tcp.dctcp`, RFC 8257), the config section and what
/// [`Dctcp::from_config`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DctcpConfig {
    /// The gain of α's moving average (RFC 8257 §3.3: 1/16).
    pub g: f64,
    /// α before its first update (1: the first reduction halves the window, as Linux).
    pub initial_alpha: f64,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig {
            g: 1.0 / 16.0,      // RFC 8257 §3.3 (and §4.2: 1/16 works well)
            initial_alpha: 1.0, // Linux `dctcp_alpha_on_init` (DCTCP_MAX_ALPHA)
        }
    }
}

/// CUBIC (RFC 9438), HyStart off: W_cubic(t) = C (t − K)³ + W_max.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cubic {
    /// The parameters the flow was built with.
    pub cfg: CubicConfig,
    state: CubicState,
    /// Fractional bytes of cwnd growth not yet applied.
    carry: f64,
}

impl Cubic {
    /// A controller in slow start, with no congestion event yet.
    pub fn new(cfg: CubicConfig) -> Cubic {
        Cubic {
            cfg,
            state: CubicState {
                w_max_segments: 0.0,
                cwnd_epoch_segments: 0.0,
                k_s: 0.0,
                epoch_start: None,
                w_est_segments: 0.0,
            },
            carry: 0.0,
        }
    }
    /// RFC 9438 Eq. 1: the window t seconds into the epoch.
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.cfg.c * (t - self.state.k_s).powi(3) + self.state.w_max_segments
    }
    /// α_cubic of the Reno-friendly estimate (§4.3): 3(1−β)/(1+β), and (RFC 9438, not Linux)
    /// 1 once W_est ≥ W_max.
    fn alpha(&self) -> f64 {
        if self.cfg.reno_friendly_alpha == RenoFriendlyAlpha::Rfc9438
            && self.state.w_est_segments >= self.state.w_max_segments
        {
            1.0
        } else {
            3.0 * (1.0 - self.cfg.beta) / (1.0 + self.cfg.beta)
        }
    }
    /// §4.6/4.7: remember W_max (with fast convergence) and return the reduced window.
    fn reduce(&mut self, w: &Window) -> u64 {
        let cwnd = w.cwnd as f64 / w.smss as f64;
        self.state.w_max_segments = if self.cfg.fast_convergence && cwnd < self.state.w_max_segments
        {
            cwnd * (1.0 + self.cfg.beta) / 2.0
        } else {
            cwnd
        };
        self.state.epoch_start = None;
        self.carry = 0.0;
        // ssthresh = cwnd · β_cubic, at least 2 segments.
        ((cwnd * self.cfg.beta * w.smss as f64) as u64).max(2 * w.smss)
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, w: &mut Window, now: Time, acked: u64, srtt: Option<Duration>) {
        let smss = w.smss as f64;
        if w.in_slow_start() {
            w.cwnd += acked.min(w.smss);
            return;
        }
        let cwnd = w.cwnd as f64 / smss;
        let st = &mut self.state;
        let c = self.cfg.c;
        let start = *st.epoch_start.get_or_insert_with(|| {
            // §4.2: a new epoch starts with the first ACK in congestion avoidance.
            st.cwnd_epoch_segments = cwnd;
            st.w_est_segments = cwnd;
            if st.w_max_segments <= cwnd {
                st.w_max_segments = cwnd;
            }
            // Eq. 2: K = ∛((W_max − cwnd_epoch) / C), fixed for the epoch.
            st.k_s = ((st.w_max_segments - st.cwnd_epoch_segments).max(0.0) / c).cbrt();
            now
        });
        let t = now.since(start).as_secs_f64();
        let rtt = srtt.map_or(0.0, |d| d.as_secs_f64());
        // §4.3: the Reno-friendly estimate grows α_cubic segments per window.
        let segments = acked as f64 / smss;
        let alpha = self.alpha();
        self.state.w_est_segments += alpha * segments / cwnd;
        let new_cwnd = if self.w_cubic(t) < self.state.w_est_segments {
            // Reno-friendly region.
            self.state.w_est_segments
        } else {
            // §4.4/4.5: grow toward W_cubic(t + RTT), clamped to [cwnd, 1.5 cwnd].
            let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / cwnd * segments
        };
        if new_cwnd > cwnd {
            self.carry += (new_cwnd - cwnd) * smss;
            let whole = self.carry.floor();
            w.cwnd += whole as u64;
            self.carry -= whole;
        }
    }

    fn ssthresh_on_loss(&mut self, w: &Window, _now: Time, _flight_size: u64) -> u64 {
        self.reduce(w)
    }

    fn state(&self, w: &Window) -> CcState {
        CcState {
            cubic: Some(self.state),
            ..CcState::of_window(w)
        }
    }

    fn on_timeout(&mut self, w: &mut Window, _now: Time, _flight_size: u64, first_timeout: bool) {
        // §4.8: a timeout is a congestion event; then cwnd = 1 segment, slow start to ssthresh.
        if first_timeout {
            w.ssthresh = self.reduce(w);
        }
        self.state.epoch_start = None;
        w.cwnd = w.smss;
    }
}

/// DCTCP (RFC 8257): α, an EWMA of the fraction of marked bytes per window, scales the cwnd
/// reduction on ECN-Echo; loss is handled as Reno does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dctcp {
    /// g, the EWMA gain (RFC 8257 suggests 1/16).
    pub g: f64,
    /// α, the estimated fraction of marked bytes (0 to 1); a reduction on ECN-Echo cuts cwnd
    /// by α/2.
    pub alpha: f64,
    bytes_acked: u64,
    bytes_marked: u64,
    window_end: u64,
    /// Sum of α after each update and the number of updates (for the mean α in outputs).
    alpha_sum: f64,
    alpha_updates: u64,
    reno: NewReno,
}

impl Dctcp {
    /// A controller with EWMA gain `g` and α starting at `initial_alpha` (Linux starts at 1).
    pub fn new(g: f64, initial_alpha: f64) -> Dctcp {
        Dctcp {
            g,
            alpha: initial_alpha,
            bytes_acked: 0,
            bytes_marked: 0,
            window_end: 0,
            alpha_sum: 0.0,
            alpha_updates: 0,
            reno: NewReno::default(),
        }
    }

    /// The controller `cfg` describes.
    pub fn from_config(cfg: DctcpConfig) -> Dctcp {
        Dctcp::new(cfg.g, cfg.initial_alpha)
    }

    /// α averaged over its per-window updates; the initial α before the first.
    pub fn alpha_mean(&self) -> f64 {
        if self.alpha_updates == 0 {
            self.alpha
        } else {
            self.alpha_sum / self.alpha_updates as f64
        }
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, w: &mut Window, now: Time, acked: u64, srtt: Option<Duration>) {
        self.reno.on_ack(w, now, acked, srtt);
    }
    fn on_timeout(&mut self, w: &mut Window, now: Time, flight_size: u64, first_timeout: bool) {
        self.reno.on_timeout(w, now, flight_size, first_timeout);
    }
    fn on_recovery_exit(&mut self, w: &mut Window, now: Time) {
        self.reno.on_recovery_exit(w, now);
    }
    fn on_ack_ecn(&mut self, acked: u64, ece: bool, ack: u64, snd_nxt: u64) {
        // RFC 8257 §3.3: count acknowledged and marked bytes; at the end of each window of
        // data, α ← (1 − g) α + g F with F the marked fraction.
        self.bytes_acked += acked;
        if ece {
            self.bytes_marked += acked;
        }
        if ack > self.window_end {
            if self.bytes_acked > 0 {
                let f = self.bytes_marked as f64 / self.bytes_acked as f64;
                self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
                self.alpha_sum += self.alpha;
                self.alpha_updates += 1;
            }
            self.window_end = snd_nxt;
            self.bytes_acked = 0;
            self.bytes_marked = 0;
        }
    }
    fn ssthresh_on_ecn(&mut self, w: &Window, _now: Time, _flight_size: u64) -> u64 {
        // RFC 8257 §3.3: cwnd ← cwnd × (1 − α/2).
        ((w.cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64).max(2 * w.smss)
    }
    fn state(&self, w: &Window) -> CcState {
        CcState {
            dctcp_alpha: Some(self.alpha),
            dctcp_alpha_mean: Some(self.alpha_mean()),
            ..CcState::of_window(w)
        }
    }
}

/// A congestion controller behind a pointer: any [`CongestionControl`] that can be cloned
/// (each connection gets its own) and printed. Implemented for every such type.
pub trait DynController: CongestionControl + std::fmt::Debug {
    /// A boxed copy (so that [`Cc`] stays `Clone`).
    fn box_clone(&self) -> Box<dyn DynController>;
    /// The controller as `Any`, so that its own crate can read its state back
    /// (`downcast_ref::<MyController>()`), in tests and results.
    fn as_any(&self) -> &dyn std::any::Any;
}

impl<T: CongestionControl + Clone + std::fmt::Debug + 'static> DynController for T {
    fn box_clone(&self) -> Box<dyn DynController> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// An outside controller with the name it was registered under.
#[derive(Debug)]
pub struct ExtensionCc {
    /// The registered name (the `congestion_control` column).
    pub name: &'static str,
    /// The controller.
    pub controller: Box<dyn DynController>,
}

impl ExtensionCc {
    /// `controller`, named `name` in outputs.
    pub fn new(name: &'static str, controller: impl DynController + 'static) -> ExtensionCc {
        ExtensionCc {
            name,
            controller: Box::new(controller),
        }
    }
}

impl Clone for ExtensionCc {
    fn clone(&self) -> Self {
        ExtensionCc {
            name: self.name,
            controller: self.controller.box_clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_grows_one_smss_per_ack() {
        let mut w = Window {
            cwnd: 2000,
            ssthresh: u64::MAX,
            smss: 1000,
        };
        let mut c = NewReno::default();
        c.on_ack(&mut w, Time::ZERO, 1000, None);
        c.on_ack(&mut w, Time::ZERO, 3000, None); // a stretch ACK still adds only SMSS
        assert_eq!(w.cwnd, 4000);
    }

    #[test]
    fn congestion_avoidance_adds_one_smss_per_window() {
        let mut w = Window {
            cwnd: 10_000,
            ssthresh: 5000,
            smss: 1000,
        };
        let mut c = NewReno::default();
        for _ in 0..9 {
            c.on_ack(&mut w, Time::ZERO, 1000, None);
        }
        assert_eq!(w.cwnd, 10_000);
        c.on_ack(&mut w, Time::ZERO, 1000, None);
        assert_eq!(w.cwnd, 11_000);
    }

    #[test]
    fn loss_halves_flight_with_floor() {
        let w = Window {
            cwnd: 10_000,
            ssthresh: u64::MAX,
            smss: 1000,
        };
        let mut c = NewReno::default();
        assert_eq!(c.ssthresh_on_loss(&w, Time::ZERO, 10_000), 5000);
        assert_eq!(c.ssthresh_on_loss(&w, Time::ZERO, 3000), 2000);
    }

    /// Drives a controller in congestion avoidance with an idealized ACK clock: one ACK per
    /// segment, a window's worth of ACKs per RTT, no losses. Returns cwnd (segments) at each RTT.
    fn ack_clock(cc: &mut Cc, w: &mut Window, rtt: Duration, rounds: usize) -> Vec<(f64, f64)> {
        let mut now = Time(0);
        let mut out = Vec::new();
        for _ in 0..rounds {
            let segs = w.cwnd / w.smss;
            let step = Duration(rtt.0 / segs.max(1));
            for _ in 0..segs {
                now += step;
                cc.on_ack(w, now, w.smss, Some(rtt));
            }
            out.push((now.as_secs_f64(), w.cwnd as f64 / w.smss as f64));
        }
        out
    }

    #[test]
    fn cubic_follows_the_cubic_curve_after_a_loss() {
        // W_max = 1000 segments, 100 ms RTT: a large BDP, where W_cubic stays above the
        // Reno-friendly estimate (which grows 0.53 segments per RTT).
        let smss = 1000;
        let mut w = Window {
            cwnd: 1000 * smss,
            ssthresh: u64::MAX / 2,
            smss,
        };
        let mut cc = Cc::Cubic(Cubic::new(CubicConfig::default()));
        w.ssthresh = cc.ssthresh_on_loss(&w, Time::ZERO, w.cwnd);
        w.cwnd = w.ssthresh;
        assert_eq!(w.cwnd, 700 * smss, "β = 0.7");
        let k = (1000.0f64 * 0.3 / 0.4).cbrt(); // K = ∛(W_max (1 − β) / C) = 9.086 s
        let rtt = Duration::from_ms(100);
        let trace = ack_clock(&mut cc, &mut w, rtt, 150);
        let cubic = cc.state(&w).cubic.expect("CUBIC reports its curve");
        assert!((cubic.k_s - k).abs() < 1e-9);
        assert!((cubic.w_max_segments - 1000.0).abs() < 1e-9);
        for &(t, cwnd) in trace.iter().step_by(10) {
            // cwnd tracks W_cubic(t + RTT) to within the one-RTT lag of per-ACK growth.
            let expect = 0.4 * (t - k).powi(3) + 1000.0;
            let expect_next = 0.4 * (t + 0.1 - k).powi(3) + 1000.0;
            assert!(
                cwnd >= expect.min(expect_next) * 0.99 - 1.0
                    && cwnd <= expect.max(expect_next) * 1.01 + 1.0,
                "t = {t:.2} s: cwnd {cwnd:.1}, W_cubic {expect:.1}"
            );
        }
        // Near t = K the window plateaus at W_max.
        let at_k = trace
            .iter()
            .min_by(|a, b| (a.0 - k).abs().total_cmp(&(b.0 - k).abs()))
            .unwrap();
        assert!((at_k.1 - 1000.0).abs() < 5.0, "cwnd at K: {}", at_k.1);
    }

    #[test]
    fn cubic_is_reno_friendly_at_small_bdp() {
        // W_max = 20 segments, 100 us RTT: W_cubic barely moves in milliseconds, while the
        // Reno-friendly estimate grows 3(1 − β)/(1 + β) = 0.529 segments per RTT.
        let smss = 1000;
        let mut w = Window {
            cwnd: 20 * smss,
            ssthresh: u64::MAX / 2,
            smss,
        };
        let mut cc = Cc::Cubic(Cubic::new(CubicConfig::default()));
        w.ssthresh = cc.ssthresh_on_loss(&w, Time::ZERO, w.cwnd);
        w.cwnd = w.ssthresh; // 14 segments
        let trace = ack_clock(&mut cc, &mut w, Duration::from_us(100), 10);
        let growth = trace[9].1 - trace[0].1;
        let alpha = 3.0 * 0.3 / 1.7;
        assert!(
            (growth - 9.0 * alpha).abs() < 0.6,
            "grew {growth:.2} segments in 9 RTTs"
        );
        let st = cc.state(&w).cubic.unwrap();
        assert!(
            st.w_est_segments > 0.4 * (trace[9].0 - st.k_s).powi(3) + st.w_max_segments,
            "W_est governs"
        );
    }

    #[test]
    fn cubic_fast_convergence_lowers_w_max() {
        let smss = 1000;
        let mut cc = Cubic::new(CubicConfig::default());
        let w = Window {
            cwnd: 100 * smss,
            ssthresh: 0,
            smss,
        };
        cc.ssthresh_on_loss(&w, Time::ZERO, 0);
        assert_eq!(cc.state(&w).cubic.unwrap().w_max_segments, 100.0);
        let w = Window {
            cwnd: 80 * smss,
            ssthresh: 0,
            smss,
        };
        cc.ssthresh_on_loss(&w, Time::ZERO, 0);
        assert!(
            (cc.state(&w).cubic.unwrap().w_max_segments - 80.0 * 0.85).abs() < 1e-9,
            "fast convergence: 80 (1 + β)/2"
        );
    }

    #[test]
    fn dctcp_alpha_converges_to_the_marked_fraction() {
        let mut d = Dctcp::new(1.0 / 16.0, 1.0);
        // Each "window" is 10 ACKs of 1000 B, 3 of them ECN-echoed: F = 0.3.
        let mut ack = 0u64;
        for _ in 0..400 {
            let window_end = ack + 10_000;
            for i in 0..10 {
                ack += 1000;
                d.on_ack_ecn(1000, i < 3, ack, window_end + 10_000);
            }
        }
        assert!((d.alpha - 0.3).abs() < 1e-3, "alpha {}", d.alpha);
        let w = Window {
            cwnd: 100_000,
            ssthresh: 0,
            smss: 1000,
        };
        let reduced = d.ssthresh_on_ecn(&w, Time::ZERO, 0);
        assert!(reduced.abs_diff(85_000) < 100, "cwnd (1 − α/2) = {reduced}");
    }

    #[test]
    fn every_controller_reports_its_window_in_the_state() {
        let w = Window {
            cwnd: 12_000,
            ssthresh: 6000,
            smss: 1000,
        };
        let controllers = [
            Cc::NewReno(NewReno::default()),
            Cc::Cubic(Cubic::new(CubicConfig::default())),
            Cc::Dctcp(Dctcp::new(1.0 / 16.0, 1.0)),
        ];
        for cc in controllers {
            let st = cc.state(&w);
            assert_eq!((st.cwnd_bytes, st.ssthresh_bytes), (12_000, 6000));
            let b = cc.builtin();
            assert_eq!(
                st.cubic.is_some(),
                b == Some(BuiltinController::Cubic),
                "{b:?}"
            );
            assert_eq!(
                st.dctcp_alpha.is_some(),
                b == Some(BuiltinController::Dctcp),
                "{b:?}"
            );
        }
    }

    #[test]
    fn cubic_state_reports_w_max_and_k_of_the_epoch() {
        let smss = 1000;
        let mut w = Window {
            cwnd: 100 * smss,
            ssthresh: u64::MAX / 2,
            smss,
        };
        let mut cc = Cc::Cubic(Cubic::new(CubicConfig::default()));
        w.ssthresh = cc.ssthresh_on_loss(&w, Time::ZERO, w.cwnd);
        w.cwnd = w.ssthresh;
        let st = cc.state(&w).cubic.unwrap();
        assert_eq!(st.w_max_segments, 100.0);
        assert_eq!(st.epoch_start, None, "the epoch starts with the next ACK");
        // The first ACK in congestion avoidance starts the epoch: K = ∛(W_max (1 − β) / C).
        cc.on_ack(&mut w, Time(5), smss, None);
        let st = cc.state(&w).cubic.unwrap();
        assert_eq!(st.epoch_start, Some(Time(5)));
        assert_eq!(st.cwnd_epoch_segments, 70.0);
        assert!((st.k_s - (100.0f64 * 0.3 / 0.4).cbrt()).abs() < 1e-12);
    }

    /// RFC 9438 §4.3: W_est grows by α_cubic = 3(1 − β)/(1 + β) segments per window while below
    /// W_max and by 1 once it reaches W_max; Linux and ns-3 keep 0.53 throughout.
    #[test]
    fn reno_friendly_alpha_rises_to_one_only_under_rfc9438() {
        let smss = 1000;
        let grow = |alpha: RenoFriendlyAlpha| {
            let mut cc = Cubic::new(CubicConfig {
                reno_friendly_alpha: alpha,
                ..CubicConfig::default()
            });
            let mut w = Window {
                cwnd: 10 * smss,
                ssthresh: 5 * smss,
                smss,
            };
            // W_max = 10 (no earlier loss: the epoch's cwnd), so W_est = 10 = W_max at once.
            cc.on_ack(&mut w, Time::ZERO, smss, None);
            let before = cc.state.w_est_segments;
            // One window of ACKs (10 segments of 1000 B at cwnd ≈ 10).
            for _ in 0..10 {
                cc.on_ack(&mut w, Time::ZERO, smss, None);
            }
            cc.state.w_est_segments - before
        };
        let a = 3.0 * 0.3 / 1.7;
        let rfc = grow(RenoFriendlyAlpha::Rfc9438);
        let linux = grow(RenoFriendlyAlpha::Linux);
        assert!(
            (rfc - 1.0).abs() < 0.06,
            "RFC 9438: ≈ 1 segment per window, got {rfc}"
        );
        assert!(
            (linux - a).abs() < 0.03,
            "Linux: ≈ {a:.3} per window, got {linux}"
        );
    }

    #[test]
    fn dctcp_state_reports_alpha_and_it_moves_after_an_ece_round() {
        let w = Window {
            cwnd: 10_000,
            ssthresh: u64::MAX / 2,
            smss: 1000,
        };
        let mut cc = Cc::Dctcp(Dctcp::new(1.0 / 16.0, 0.0));
        assert_eq!(cc.state(&w).dctcp_alpha, Some(0.0));
        // The first ACK, unmarked, closes the first observation window: F = 0, α stays 0.
        cc.on_ack_ecn(1000, false, 1000, 10_000);
        assert_eq!(cc.state(&w).dctcp_alpha, Some(0.0));
        // The next ten ACKs are ECN-echoed; the one that passes the window's end closes it with
        // F = 1: α = (1 − g) · 0 + g · 1.
        for i in 2..=11 {
            cc.on_ack_ecn(1000, true, i * 1000, 20_000);
        }
        let alpha = cc.state(&w).dctcp_alpha.unwrap();
        assert!(alpha > 0.0, "α moved: {alpha}");
        assert_eq!(alpha, 1.0 / 16.0);
    }

    #[test]
    fn timeout_collapses_to_one_segment_and_holds_ssthresh_on_repeat() {
        let mut w = Window {
            cwnd: 10_000,
            ssthresh: u64::MAX,
            smss: 1000,
        };
        let mut c = NewReno::default();
        c.on_timeout(&mut w, Time::ZERO, 10_000, true);
        assert_eq!((w.cwnd, w.ssthresh), (1000, 5000));
        c.on_timeout(&mut w, Time::ZERO, 1000, false);
        assert_eq!((w.cwnd, w.ssthresh), (1000, 5000));
    }
}
