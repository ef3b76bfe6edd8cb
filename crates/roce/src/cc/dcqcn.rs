//! DCQCN's reaction point (RP): the sender half of DCQCN (Zhu et al., "Congestion Control for
//! Large-Scale RDMA Deployments", SIGCOMM 2015, §3.1 and Fig. 6), as the paper states it and as
//! the HPCC authors' ns-3 fork models the ConnectX implementation (`rdma-hw.cc`:
//! `cnp_received_mlx`, `UpdateAlphaMlx`, `CheckRateDecreaseMlx`, `RateIncEventTimerMlx`,
//! `FastRecoveryMlx`, `ActiveIncreaseMlx`, `HyperIncreaseMlx`).
//!
//! State: the current rate R_C, the target rate R_T, α (an estimate of how congested the path
//! is), and two increase counters (timer and byte counter) reset at every cut.
//!
//! - A CNP (or, with [`DcqcnParams::ecn_echo_as_cnp`], an ACK's ECN echo) asks for a cut:
//!   R_T ← R_C, R_C ← R_C (1 − α/2) (paper Eq. 1), at once or at the next rate-decrease check
//!   ([`DcqcnParams::rate_decrease_interval`]).
//! - α ← (1 − g) α + g per CNP (paper Eq. 2) and α ← (1 − g) α after K without one (Eq. 3),
//!   or, as the fork, once per K: up if a CNP came in that K, down if not
//!   ([`AlphaUpdate`]). Which comes first at a CNP, the cut or the α update, is
//!   [`DecreaseOrder`] (HPCC issue #52).
//! - The rate rises on increase events: every T of the timer and every B bytes of the byte
//!   counter. The first F are fast recovery, R_C ← (R_T + R_C)/2 (Eq. 4); then additive increase,
//!   R_T += R_AI; then hyper increase, R_T += R_HAI (or i·R_HAI, [`HyperIncrease`]); each also
//!   sets R_C ← (R_T + R_C)/2.
//!
//! The byte counter counts the wire bytes of every data packet the QP transmits
//! ([`RateController::on_send`]), retransmissions included, as the paper says and the DCQCN
//! authors' ns-3 model does (which restarts the count at B after an event; here what passed B
//! carries over, at most a packet's bytes apart); the HPCC fork has no byte counter at all.
//!
//! The fork schedules its timers from the first CNP on and keeps them while the QP lives; here
//! they run while the sender has data outstanding or to send (the sender's rule for
//! [`RateControl::timer`]). A timer found late (the QP was idle) fires once, except α's, which
//! applies every decay step it missed.

use super::{require, to_bps};
use crate::controller::{AckSample, ControllerState, RateControl, RateController};
use incastsim_core::{BitsPerSec, Duration, Time};

/// When α moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlphaUpdate {
    /// The paper (§3.1, Eqs. 2 and 3): every CNP raises α at once; α decays by (1 − g) each
    /// time K passes with no CNP (the K timer restarts at each CNP).
    OnCnp,
    /// The fork (`UpdateAlphaMlx`, `ScheduleUpdateAlphaMlx`): a periodic K timer, from the first
    /// CNP on; at each tick α rises if any CNP came since the last tick, else decays.
    Periodic,
}

/// Which comes first when a CNP both cuts the rate and moves α.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecreaseOrder {
    /// The paper (§3.1: Eq. 1, the cut, before Eq. 2, the α update): the cut uses the α from
    /// before this CNP.
    CutThenAlpha,
    /// The fork: α is updated first and the cut uses the new α (`cnp_received_mlx` schedules the
    /// decrease check 1 ns after the α update, "to make sure rate decrease is after alpha
    /// update"; HPCC issue #52 reports the difference from the paper).
    AlphaThenCut,
}

/// How large a hyper-increase step is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyperIncrease {
    /// The paper (Fig. 6, after QCN's RP): R_T += i·R_HAI, i the number of increase events
    /// past the additive stage (i = min(timer, byte counter) − F).
    Scaled,
    /// The fork (`HyperIncreaseMlx`): R_T += R_HAI on every hyper-increase event.
    Constant,
}

/// DCQCN's RP parameters. Every field is public so any one can be overridden after a named set
/// ([`paper`](Self::paper), [`hpcc_fork`](Self::hpcc_fork)).
///
/// The default is [`hpcc_fork`](Self::hpcc_fork): this crate models a ConnectX NIC as the fork
/// does (go-back-N, pacing, INT), the fork's values are Mellanox's firmware defaults that
/// deployments run (issue #11 of the fork: "according to the value used in production"), and
/// HPCC-era comparisons use them; so its [`DecreaseOrder::AlphaThenCut`] is the default order.
/// [`paper`](Self::paper) reproduces the 2015 description.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DcqcnParams {
    /// g, the gain of α's moving average, in (0, 1].
    pub g: f64,
    /// α before the first CNP's update, in [0, 1].
    pub initial_alpha: f64,
    /// K: α's timer.
    pub alpha_interval: Duration,
    /// When α moves.
    pub alpha_update: AlphaUpdate,
    /// At most one cut per this interval: a CNP marks a cut as pending and a periodic check
    /// (from the first CNP on) performs it. Zero: cut at every CNP at once.
    pub rate_decrease_interval: Duration,
    /// Whether a CNP's cut or its α update comes first.
    pub decrease_order: DecreaseOrder,
    /// On the first CNP, R_C and R_T are set to this fraction of R_C first, in (0, 1].
    pub rate_on_first_cnp: f64,
    /// Set R_T ← R_C at every cut (paper Eq. 1); off: only when an increase event ran since the
    /// last cut (the fork's `m_EcnClampTgtRate` false: `if (m_rpTimeStage == 0) clamp = false`).
    pub clamp_target_rate: bool,
    /// T: the rate-increase timer, restarted at every cut.
    pub increase_interval: Duration,
    /// B: an increase event every this many bytes transmitted (wire bytes of data packets); 0: no
    /// byte counter (the fork), the stages then follow the timer alone.
    pub byte_counter_bytes: u64,
    /// F: the fast-recovery increase events after a cut.
    pub fast_recovery_stages: u32,
    /// R_AI: the target's additive-increase step.
    pub rate_ai: BitsPerSec,
    /// R_HAI: the target's hyper-increase step.
    pub rate_hai: BitsPerSec,
    /// How large a hyper-increase step is.
    pub hyper_increase: HyperIncrease,
    /// A cut never takes R_C below this.
    pub min_rate: BitsPerSec,
    /// Treat an ACK's ECN echo as a CNP (the fork: its receiver sets a CNP flag on the ACK and
    /// `ReceiveAck` calls `cnp_received_mlx`); off: only [`RateController::on_cnp`] counts.
    pub ecn_echo_as_cnp: bool,
}

impl Default for DcqcnParams {
    fn default() -> Self {
        DcqcnParams::hpcc_fork()
    }
}

impl DcqcnParams {
    /// DCQCN as the SIGCOMM 2015 paper describes it (§3.1, Fig. 6, and the parameter values of
    /// §3/§5; where the paper's text gives no value, the DCQCN authors' own ns-3 simulator,
    /// bobzhuyb/ns3-rdma `mix/config.txt`).
    pub fn paper() -> DcqcnParams {
        DcqcnParams {
            g: 1.0 / 256.0,     // paper §3.1/§5: g = 1/256 (ns3-rdma config DCTCP_GAIN 0.00390625)
            initial_alpha: 1.0, // paper §3.1: α starts at 1 (the fork also sets 1 on the first CNP)
            alpha_interval: Duration::from_us(55), // paper §3.1: K = 55 µs (> the NP's 50 µs CNP interval); ns3-rdma ALPHA_RESUME_INTERVAL 55
            alpha_update: AlphaUpdate::OnCnp,      // paper Eqs. 2 and 3
            rate_decrease_interval: Duration::ZERO, // paper: a cut per CNP (the NP already sends at most one per 50 µs)
            decrease_order: DecreaseOrder::CutThenAlpha, // paper §3.1: Eq. 1 then Eq. 2
            rate_on_first_cnp: 1.0,                 // paper: no special first cut
            clamp_target_rate: true, // paper Eq. 1: R_T ← R_C at every cut (ns3-rdma CLAMP_TARGET_RATE 1)
            // T and B as commonly cited from the paper (§3.1: T = 55 µs, B = 10 MB); the
            // authors' own simulator config (bobzhuyb/ns3-rdma `mix/config.txt`) runs
            // RP_TIMER 60 µs and BYTE_COUNTER 300 000 B. Not checked against the paper's text
            // here: both are keys (`increase_interval`, `byte_counter`).
            increase_interval: Duration::from_us(55),
            byte_counter_bytes: 10_000_000,
            fast_recovery_stages: 5, // paper §3.1: F = 5 (ns3-rdma FAST_RECOVERY_TIMES 5)
            rate_ai: BitsPerSec::mbps(40), // paper §3.1: R_AI = 40 Mbps (ns3-rdma RATE_AI 40Mb/s)
            rate_hai: BitsPerSec::mbps(200), // ns3-rdma RATE_HAI 200Mb/s (the paper's text names R_HAI without a value we could verify)
            hyper_increase: HyperIncrease::Scaled, // paper Fig. 6: R_T += i·R_HAI
            min_rate: BitsPerSec::mbps(100), // no paper value; the fork's `MinRate` attribute default (100Mb/s)
            ecn_echo_as_cnp: false,          // paper: the NP sends CNPs
        }
    }

    /// DCQCN as the HPCC fork's `run.py --cc dcqcn` runs it (the mode the HPCC paper used: fork
    /// issue #36), at its base line rate of 25 Gbps (`run.py` scales R_AI and R_HAI as
    /// `5 * bw / 25` and `50 * bw / 25` Mb/s: [`hpcc_fork_at`](Self::hpcc_fork_at)).
    pub fn hpcc_fork() -> DcqcnParams {
        DcqcnParams {
            g: 1.0 / 256.0, // run.py dcqcn: EWMA_GAIN g=0.00390625 (rdma-hw.cc `EwmaGain` default 1/16)
            initial_alpha: 1.0, // rdma-hw.cc cnp_received_mlx: `m_alpha = 1` on the first CNP
            alpha_interval: Duration::from_us(1), // run.py dcqcn: ALPHA_RESUME_INTERVAL t_alpha=1 (µs)
            alpha_update: AlphaUpdate::Periodic, // rdma-hw.cc UpdateAlphaMlx / ScheduleUpdateAlphaMlx
            rate_decrease_interval: Duration::from_us(4), // run.py dcqcn: RATE_DECREASE_INTERVAL t_dec=4 (µs)
            decrease_order: DecreaseOrder::AlphaThenCut, // rdma-hw.cc: decrease scheduled 1 ns after the α update
            rate_on_first_cnp: 1.0, // rdma-hw.cc `RateOnFirstCnp` default 1.0 (fork issue #11: production value)
            clamp_target_rate: false, // run.py: CLAMP_TARGET_RATE 0
            increase_interval: Duration::from_us(300), // run.py dcqcn: RP_TIMER t_inc=300 (µs)
            byte_counter_bytes: 0,  // rdma-hw.cc: no byte counter in the *Mlx functions
            fast_recovery_stages: 1, // run.py: FAST_RECOVERY_TIMES 1
            rate_ai: BitsPerSec::mbps(5), // run.py dcqcn: ai = 5 * bw / 25 Mb/s (rdma-hw.cc `RateAI` default 5Mb/s)
            rate_hai: BitsPerSec::mbps(50), // run.py dcqcn: hai = 50 * bw / 25 Mb/s (rdma-hw.cc `RateHAI` default 50Mb/s)
            hyper_increase: HyperIncrease::Constant, // rdma-hw.cc HyperIncreaseMlx: `m_targetRate += m_rhai`
            min_rate: BitsPerSec::gbps(1),           // run.py: MIN_RATE 1000Mb/s
            ecn_echo_as_cnp: false, // the engine sends CNPs (receiver side); set true for the fork's ACK-flag CNP
        }
    }

    /// [`hpcc_fork`](Self::hpcc_fork) with R_AI and R_HAI scaled to `line_rate` as `run.py`
    /// does (`ai = 5 * bw / 25`, `hai = 50 * bw / 25` Mb/s, bw in Gbps).
    pub fn hpcc_fork_at(line_rate: BitsPerSec) -> DcqcnParams {
        let scale = line_rate.as_f64() / 25e9;
        DcqcnParams {
            rate_ai: BitsPerSec((5e6 * scale).round() as u64),
            rate_hai: BitsPerSec((50e6 * scale).round() as u64),
            ..DcqcnParams::hpcc_fork()
        }
    }

    /// The first field outside its allowed range, as `dcqcn.field = value: allowed`.
    pub fn check(&self) -> Result<(), String> {
        let g = self.g;
        require(g > 0.0 && g <= 1.0, "dcqcn.g", g, "must be in (0, 1]")?;
        let a = self.initial_alpha;
        require(
            (0.0..=1.0).contains(&a),
            "dcqcn.initial_alpha",
            a,
            "must be in [0, 1]",
        )?;
        require(
            self.alpha_interval > Duration::ZERO,
            "dcqcn.alpha_interval",
            self.alpha_interval,
            "must be positive",
        )?;
        require(
            self.increase_interval > Duration::ZERO,
            "dcqcn.increase_interval",
            self.increase_interval,
            "must be positive",
        )?;
        let r = self.rate_on_first_cnp;
        require(
            r > 0.0 && r <= 1.0,
            "dcqcn.rate_on_first_cnp",
            r,
            "must be in (0, 1]",
        )?;
        require(
            self.min_rate.0 > 0,
            "dcqcn.min_rate",
            self.min_rate.0,
            "must be positive (bit/s)",
        )?;
        Ok(())
    }
}

/// The most byte-counter increase events one packet can trigger (a bound on the per-packet
/// loop; a packet is far smaller than any sensible B).
const MAX_BYTE_EVENTS_PER_PACKET: u32 = 8;

/// DCQCN's reaction point for one QP.
#[derive(Clone, Debug)]
pub struct Dcqcn {
    /// The parameters it runs with.
    pub params: DcqcnParams,
    line_rate: f64,
    /// R_C, bit/s.
    rc: f64,
    /// R_T, bit/s.
    rt: f64,
    alpha: f64,
    /// The first CNP has come (the RP is active).
    started: bool,
    /// A CNP since α's last periodic tick ([`AlphaUpdate::Periodic`]).
    cnp_since_alpha_tick: bool,
    /// A cut is pending for the next decrease check.
    cut_pending: bool,
    /// Timer increase events since the last cut.
    timer_stage: u32,
    /// Byte-counter increase events since the last cut.
    byte_stage: u32,
    /// Bytes counted toward the next byte-counter event.
    bytes: u64,
    next_alpha: Option<Time>,
    next_decrease: Option<Time>,
    next_increase: Option<Time>,
    decreases: u64,
    increases: u64,
}

impl Dcqcn {
    /// A reaction point at rest: it moves on the first CNP. Check `params` first
    /// ([`DcqcnParams::check`]).
    pub fn new(params: DcqcnParams) -> Dcqcn {
        Dcqcn {
            params,
            line_rate: 0.0,
            rc: 0.0,
            rt: 0.0,
            alpha: params.initial_alpha,
            started: false,
            cnp_since_alpha_tick: false,
            cut_pending: false,
            timer_stage: 0,
            byte_stage: 0,
            bytes: 0,
            next_alpha: None,
            next_decrease: None,
            next_increase: None,
            decreases: 0,
            increases: 0,
        }
    }

    /// R_C in bit/s.
    pub fn current_rate(&self) -> f64 {
        self.rc
    }

    /// R_T in bit/s.
    pub fn target_rate(&self) -> f64 {
        self.rt
    }

    /// α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Paper Eq. 2 / the fork's `UpdateAlphaMlx` with a CNP.
    fn alpha_up(&mut self) {
        self.alpha = (1.0 - self.params.g) * self.alpha + self.params.g;
    }

    /// Paper Eq. 3 / `UpdateAlphaMlx` without a CNP.
    fn alpha_down(&mut self) {
        self.alpha *= 1.0 - self.params.g;
    }

    /// The cut (paper Eq. 1; the fork's `CheckRateDecreaseMlx` with a CNP pending).
    fn cut(&mut self, now: Time) {
        // Fork: `clamp = m_EcnClampTgtRate || m_rpTimeStage != 0`; the paper always clamps.
        if self.params.clamp_target_rate || self.timer_stage + self.byte_stage > 0 {
            self.rt = self.rc;
        }
        self.rc = (self.rc * (1.0 - self.alpha / 2.0)).max(self.params.min_rate.as_f64());
        // Both: the increase counters restart and so does the timer (fork: `m_rpTimeStage = 0`,
        // `m_rpTimer` rescheduled; paper §3.1: counters reset on a cut).
        self.timer_stage = 0;
        self.byte_stage = 0;
        self.bytes = 0;
        self.cut_pending = false;
        self.next_increase = Some(now + self.params.increase_interval);
        self.decreases += 1;
    }

    /// A CNP's α update, per [`AlphaUpdate`].
    fn cnp_alpha(&mut self, now: Time, first: bool) {
        match self.params.alpha_update {
            AlphaUpdate::OnCnp => {
                // Paper Eq. 2 at the CNP; the no-CNP decay (Eq. 3) restarts its K.
                self.alpha_up();
                self.next_alpha = Some(now + self.params.alpha_interval);
            }
            AlphaUpdate::Periodic => {
                // Fork: the first CNP sets α = 1 and clears `m_alpha_cnp_arrived` (it is not
                // counted again at the first tick), then ticks every K.
                if first {
                    self.next_alpha = Some(now + self.params.alpha_interval);
                } else {
                    self.cnp_since_alpha_tick = true;
                }
            }
        }
    }

    fn cnp(&mut self, now: Time) {
        let first = !self.started;
        if first {
            // Fork `cnp_received_mlx`, first CNP: α = 1, R_T = R_C = RateOnFirstCnp · R_C, and
            // the decrease checks start.
            self.started = true;
            self.alpha = self.params.initial_alpha;
            self.rc *= self.params.rate_on_first_cnp;
            self.rt = self.rc;
            if self.params.rate_decrease_interval > Duration::ZERO {
                self.next_decrease = Some(now + self.params.rate_decrease_interval);
            }
        }
        if self.params.rate_decrease_interval > Duration::ZERO {
            // Fork: `m_decrease_cnp_arrived`; α per its own rule.
            self.cut_pending = true;
            self.cnp_alpha(now, first);
            return;
        }
        match self.params.decrease_order {
            DecreaseOrder::CutThenAlpha => {
                self.cut(now);
                self.cnp_alpha(now, first);
            }
            DecreaseOrder::AlphaThenCut => {
                self.cnp_alpha(now, first);
                self.cut(now);
            }
        }
    }

    /// α's timer is due at `now` (its deadline `due`).
    fn alpha_tick(&mut self, now: Time, due: Time) {
        let k = self.params.alpha_interval;
        // Ticks missed while the timer was not run (the QP idle): the first is this one.
        let extra = (now.since(due).as_ps() / k.as_ps()).min(1 << 20) as i32;
        match self.params.alpha_update {
            AlphaUpdate::OnCnp => self.alpha_down(),
            AlphaUpdate::Periodic => {
                if std::mem::take(&mut self.cnp_since_alpha_tick) {
                    self.alpha_up();
                } else {
                    self.alpha_down();
                }
            }
        }
        self.alpha *= (1.0 - self.params.g).powi(extra);
        self.next_alpha = Some(now + k);
    }

    fn decrease_tick(&mut self, now: Time) {
        // Fork `CheckRateDecreaseMlx`: reschedules itself, cuts if a CNP came since.
        self.next_decrease = Some(now + self.params.rate_decrease_interval);
        if self.cut_pending {
            self.cut(now);
        }
    }

    /// One increase event (the timer's or the byte counter's, its stage already counted).
    fn increase(&mut self) {
        let p = &self.params;
        let f = p.fast_recovery_stages;
        let (t, b) = (self.timer_stage, self.byte_stage);
        // The hyper step count i (0: not hyper; None: fast recovery).
        let step: Option<u32> = if p.byte_counter_bytes > 0 {
            // Paper Fig. 6: fast recovery while both counters are within F; hyper increase once
            // both are past F (i = min − F); additive increase in between.
            if t.max(b) <= f {
                None
            } else if t.min(b) > f {
                Some(t.min(b) - f)
            } else {
                Some(0)
            }
        } else {
            // Fork `RateIncEventMlx` (timer only; its stage counted before the event, here
            // after): stage < F fast recovery, == F additive, > F hyper.
            if t <= f { None } else { Some(t - f - 1) }
        };
        match step {
            // FastRecoveryMlx / Eq. 4: R_C ← (R_T + R_C)/2.
            None => {}
            // ActiveIncreaseMlx: R_T += R_AI, capped at the line rate.
            Some(0) => self.rt = (self.rt + p.rate_ai.as_f64()).min(self.line_rate),
            // HyperIncreaseMlx: R_T += R_HAI (fork) or i·R_HAI (paper), capped at the line rate.
            Some(i) => {
                let k = match p.hyper_increase {
                    HyperIncrease::Scaled => f64::from(i),
                    HyperIncrease::Constant => 1.0,
                };
                self.rt = (self.rt + k * p.rate_hai.as_f64()).min(self.line_rate);
            }
        }
        self.rc = self.rc / 2.0 + self.rt / 2.0;
        self.increases += 1;
    }

    fn arm(&self, ctl: &mut RateControl) {
        ctl.rate = to_bps(self.rc);
        ctl.timer = [self.next_alpha, self.next_decrease, self.next_increase]
            .into_iter()
            .flatten()
            .min();
    }
}

impl RateController for Dcqcn {
    fn on_start(&mut self, _now: Time, line_rate: BitsPerSec, ctl: &mut RateControl) {
        // Fork `AddQueuePair`: m_rate = the NIC's rate, m_targetRate = the same.
        self.line_rate = line_rate.as_f64();
        self.rc = ctl.rate.as_f64();
        self.rt = self.rc;
    }

    fn on_ack(&mut self, s: &AckSample<'_>, ctl: &mut RateControl) {
        if self.params.ecn_echo_as_cnp && s.ecn_echo {
            self.cnp(s.now);
        }
        self.arm(ctl);
    }

    #[inline]
    fn on_send(&mut self, _now: Time, wire_bytes: u64, ctl: &mut RateControl) {
        // The byte counter (paper §3.1): an increase event every B bytes transmitted, counted
        // from the first cut (the authors' ns-3 model, bobzhuyb/ns3-rdma `qbb-net-device.cc`
        // `DequeueAndTransmit`: `m_txBytes -= p->GetSize()` while the RP is active).
        let b = self.params.byte_counter_bytes;
        if b == 0 || self.next_increase.is_none() {
            return;
        }
        self.bytes += wire_bytes;
        if self.bytes < b {
            return;
        }
        let mut n = 0;
        while self.bytes >= b && n < MAX_BYTE_EVENTS_PER_PACKET {
            self.bytes -= b;
            self.byte_stage += 1;
            self.increase();
            n += 1;
        }
        self.bytes = self.bytes.min(b - 1);
        self.arm(ctl);
    }

    fn on_cnp(&mut self, now: Time, ctl: &mut RateControl) {
        self.cnp(now);
        self.arm(ctl);
    }

    fn on_timer(&mut self, now: Time, ctl: &mut RateControl) {
        let due = |t: Option<Time>| t.filter(|&t| t <= now);
        // Two timers due together run in the order of `decrease_order` (the fork's 1 ns).
        let alpha_first = self.params.decrease_order == DecreaseOrder::AlphaThenCut;
        if alpha_first && let Some(d) = due(self.next_alpha) {
            self.alpha_tick(now, d);
        }
        if due(self.next_decrease).is_some() {
            self.decrease_tick(now);
        }
        if !alpha_first && let Some(d) = due(self.next_alpha) {
            self.alpha_tick(now, d);
        }
        if due(self.next_increase).is_some() {
            // Fork `RateIncEventTimerMlx`: reschedule, increase, count the stage (counted first
            // here; see `increase`).
            self.next_increase = Some(now + self.params.increase_interval);
            self.timer_stage += 1;
            self.increase();
        }
        self.arm(ctl);
    }

    fn state(&self) -> ControllerState {
        ControllerState {
            target_rate: Some(to_bps(self.rt)),
            alpha: Some(self.alpha),
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

    fn ctl(rate: BitsPerSec) -> RateControl {
        RateControl {
            rate,
            window_bytes: None,
            timer: None,
        }
    }

    fn started(p: DcqcnParams, line: BitsPerSec, initial: BitsPerSec) -> (Dcqcn, RateControl) {
        let mut d = Dcqcn::new(p);
        let mut c = ctl(initial);
        d.on_start(Time::ZERO, line, &mut c);
        (d, c)
    }

    fn ack(now: Time, acked: u64) -> AckSample<'static> {
        AckSample {
            now,
            nack: false,
            acked_bytes: acked,
            rtt: Duration::from_us(10),
            ecn_echo: false,
            telemetry: [0; TELEMETRY_WORDS],
            int: &[],
            snd_una: 0,
            snd_nxt: 0,
            bytes_in_flight: 0,
        }
    }

    /// One CNP, the paper's reading, g = 1/4 and α₀ = 1/2 for round numbers, 40 Gbps:
    /// cut first (Eq. 1): R_T = 40, R_C = 40 · (1 − 0.5/2) = 30 Gbps; then α (Eq. 2):
    /// α = 0.75 · 0.5 + 0.25 = 0.625.
    /// The fork's order on the same CNP: α = 0.625 first, then R_C = 40 · (1 − 0.625/2) = 27.5.
    #[test]
    fn one_cnp_both_orders() {
        let p = DcqcnParams {
            g: 0.25,
            initial_alpha: 0.5,
            ..DcqcnParams::paper()
        };
        let (mut d, mut c) = started(p, BitsPerSec::gbps(40), BitsPerSec::gbps(40));
        d.on_cnp(Time::ZERO, &mut c);
        assert!(close(d.target_rate(), 40.0 * G));
        assert!(close(d.current_rate(), 30.0 * G));
        assert!(close(d.alpha(), 0.625));
        assert_eq!(c.rate, BitsPerSec::gbps(30));
        let st = d.state();
        assert_eq!((st.rate_decreases, st.rate_increases), (1, 0));
        assert_eq!(st.target_rate, Some(BitsPerSec::gbps(40)));

        let fork_order = DcqcnParams {
            decrease_order: DecreaseOrder::AlphaThenCut,
            ..p
        };
        let (mut d, mut c) = started(fork_order, BitsPerSec::gbps(40), BitsPerSec::gbps(40));
        d.on_cnp(Time::ZERO, &mut c);
        assert!(close(d.alpha(), 0.625));
        assert!(close(d.current_rate(), 27.5 * G));
    }

    /// Continuing the paper case: no CNP for K = 55 µs, so α decays (Eq. 3): 0.625 · 0.75 =
    /// 0.46875. The increase timer (T = 55 µs) fires at the same instant: the first
    /// fast-recovery step (Eq. 4), R_C = (40 + 30)/2 = 35 Gbps, R_T unchanged.
    #[test]
    fn alpha_timer_decays() {
        let p = DcqcnParams {
            g: 0.25,
            initial_alpha: 0.5,
            ..DcqcnParams::paper()
        };
        let (mut d, mut c) = started(p, BitsPerSec::gbps(40), BitsPerSec::gbps(40));
        d.on_cnp(Time::ZERO, &mut c);
        let k = Time::ZERO + Duration::from_us(55);
        assert_eq!(c.timer, Some(k));
        d.on_timer(k, &mut c);
        assert!(close(d.alpha(), 0.46875));
        assert!(close(d.current_rate(), 35.0 * G));
        assert!(close(d.target_rate(), 40.0 * G));
        assert_eq!(c.timer, Some(k + Duration::from_us(55)));
    }

    /// The fork's reading with its timers: the first CNP at 0 sets α = 1 and only marks a cut;
    /// α ticks at 1, 2, 3, 4 µs with no further CNP (α = (255/256)^4 ≈ 0.98444), and the
    /// decrease check at 4 µs runs after that tick: R_C = 100 · (1 − α/2) ≈ 50.778 Gbps. R_T
    /// stays 100 (clamp_target_rate off and no increase since the "last cut").
    #[test]
    fn fork_timers_alpha_then_cut() {
        let (mut d, mut c) = started(
            DcqcnParams::hpcc_fork(),
            BitsPerSec::gbps(100),
            BitsPerSec::gbps(100),
        );
        d.on_cnp(Time::ZERO, &mut c);
        assert_eq!(c.rate, BitsPerSec::gbps(100));
        for us in 1..=4 {
            let t = Time::ZERO + Duration::from_us(us);
            assert_eq!(c.timer, Some(t));
            d.on_timer(t, &mut c);
        }
        let alpha = (255.0_f64 / 256.0).powi(4);
        assert!(close(d.alpha(), alpha));
        assert!(close(d.current_rate(), 100.0 * G * (1.0 - alpha / 2.0)));
        assert!(close(d.target_rate(), 100.0 * G));
        // The increase timer now runs from the cut: 4 µs + 300 µs.
        assert_eq!(d.next_increase, Some(Time::ZERO + Duration::from_us(304)));
    }

    /// The increase stages, timer only (the fork's `RateIncEventMlx`), F = 2, R_AI = 1 Gbps,
    /// R_HAI = 10 Gbps, line 100 Gbps, starting at 40 Gbps. The first CNP cuts at once
    /// (interval 0): α = 1, R_T = 40, R_C = 20. Then each timer expiry:
    /// 1. fast recovery: R_C = (20 + 40)/2 = 30
    /// 2. fast recovery: R_C = (30 + 40)/2 = 35
    /// 3. additive: R_T = 41, R_C = (35 + 41)/2 = 38
    /// 4. hyper: R_T = 51, R_C = (38 + 51)/2 = 44.5
    /// 5. hyper: R_T = 61, R_C = (44.5 + 61)/2 = 52.75 (the paper's i·R_HAI: R_T = 51 + 2·10
    ///    = 71, R_C = (44.5 + 71)/2 = 57.75)
    #[test]
    fn timer_stages_fast_recovery_additive_hyper() {
        for (hyper, last) in [
            (HyperIncrease::Constant, (61.0, 52.75)),
            (HyperIncrease::Scaled, (71.0, 57.75)),
        ] {
            let p = DcqcnParams {
                fast_recovery_stages: 2,
                rate_ai: BitsPerSec::gbps(1),
                rate_hai: BitsPerSec::gbps(10),
                rate_decrease_interval: Duration::ZERO,
                alpha_interval: Duration::from_secs(10),
                hyper_increase: hyper,
                ..DcqcnParams::hpcc_fork()
            };
            let (mut d, mut c) = started(p, BitsPerSec::gbps(100), BitsPerSec::gbps(40));
            d.on_cnp(Time::ZERO, &mut c);
            assert!(close(d.current_rate(), 20.0 * G) && close(d.target_rate(), 40.0 * G));
            let expect = [(40.0, 30.0), (40.0, 35.0), (41.0, 38.0), (51.0, 44.5), last];
            for (k, (rt, rc)) in expect.into_iter().enumerate() {
                let t = c.timer.unwrap();
                assert_eq!(t, Time::ZERO + Duration::from_us(300 * (k as u64 + 1)));
                d.on_timer(t, &mut c);
                assert!(
                    close(d.target_rate(), rt * G),
                    "step {k}: R_T {}",
                    d.target_rate()
                );
                assert!(
                    close(d.current_rate(), rc * G),
                    "step {k}: R_C {}",
                    d.current_rate()
                );
            }
            assert_eq!(d.state().rate_increases, 5);
            // A cut resets the stages: the next increase is fast recovery again.
            d.on_cnp(Time::ZERO + Duration::from_us(1600), &mut c);
            assert_eq!((d.timer_stage, d.byte_stage), (0, 0));
        }
    }

    /// The paper's byte counter (fed the wire bytes sent), F = 5, B = 10 MB, line 40 Gbps,
    /// starting at 20: the CNP gives R_T = 20, R_C = 10. Five byte-counter events are fast
    /// recovery (R_C = 15, 17.5, 18.75, 19.375, 19.6875); the sixth has the byte counter past
    /// F but not the timer, so it is additive: R_T = 20.04, R_C = (19.6875 + 20.04)/2 =
    /// 19.86375 Gbps. Acknowledged bytes do not count.
    #[test]
    fn byte_counter_stages() {
        let (mut d, mut c) = started(
            DcqcnParams::paper(),
            BitsPerSec::gbps(40),
            BitsPerSec::gbps(20),
        );
        // Bytes before the first cut do not count.
        d.on_send(Time(0), 9_999_999, &mut c);
        d.on_cnp(Time::ZERO, &mut c);
        assert!(close(d.current_rate(), 10.0 * G));
        // After it, half a B does not fire; nor do acknowledged bytes.
        d.on_send(Time(1), 5_000_000, &mut c);
        d.on_ack(&ack(Time(1), 50_000_000), &mut c);
        assert!(close(d.current_rate(), 10.0 * G));
        d.on_send(Time(2), 5_000_000, &mut c);
        assert!(close(d.current_rate(), 15.0 * G));
        assert_eq!(c.rate, BitsPerSec::gbps(15));
        let mut before = 15.0;
        for rc in [17.5, 18.75, 19.375, 19.6875] {
            // B in 1000-byte packets: the event comes with the packet that completes B.
            for _ in 0..9_999 {
                d.on_send(Time(3), 1_000, &mut c);
            }
            assert!(close(d.current_rate(), before * G));
            before = rc;
            d.on_send(Time(3), 1_000, &mut c);
            assert!(close(d.current_rate(), rc * G));
        }
        d.on_send(Time(4), 10_000_000, &mut c);
        assert!(close(d.target_rate(), 20.04 * G));
        assert!(close(d.current_rate(), 19.86375 * G));
    }

    /// With `ecn_echo_as_cnp` an ECN-echoing ACK cuts as a CNP does; without it, it does not.
    #[test]
    fn ecn_echo_as_cnp() {
        let mut s = ack(Time::ZERO, 1000);
        s.ecn_echo = true;
        let (mut d, mut c) = started(
            DcqcnParams::paper(),
            BitsPerSec::gbps(40),
            BitsPerSec::gbps(40),
        );
        d.on_ack(&s, &mut c);
        assert_eq!(c.rate, BitsPerSec::gbps(40));
        let p = DcqcnParams {
            ecn_echo_as_cnp: true,
            ..DcqcnParams::paper()
        };
        let (mut d, mut c) = started(p, BitsPerSec::gbps(40), BitsPerSec::gbps(40));
        d.on_ack(&s, &mut c);
        assert_eq!(c.rate, BitsPerSec::gbps(20));
    }

    #[test]
    fn params_check() {
        assert_eq!(DcqcnParams::paper().check(), Ok(()));
        assert_eq!(DcqcnParams::hpcc_fork().check(), Ok(()));
        let bad = DcqcnParams {
            g: 0.0,
            ..DcqcnParams::default()
        };
        assert_eq!(
            bad.check(),
            Err("dcqcn.g = 0: must be in (0, 1]".to_string())
        );
        let bad = DcqcnParams {
            increase_interval: Duration::ZERO,
            ..DcqcnParams::default()
        };
        assert!(
            bad.check()
                .unwrap_err()
                .starts_with("dcqcn.increase_interval = ")
        );
        let scaled = DcqcnParams::hpcc_fork_at(BitsPerSec::gbps(100));
        assert_eq!(
            (scaled.rate_ai, scaled.rate_hai),
            (BitsPerSec::mbps(20), BitsPerSec::mbps(200))
        );
    }
}
