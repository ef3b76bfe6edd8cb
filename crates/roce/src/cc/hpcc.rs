//! HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019, §3.3 Algorithm 1),
//! checked against the HPCC authors' ns-3 fork (`rdma-hw.cc`: `HandleAckHp`, `UpdateRateHp`
//! with `m_multipleRate` off as `run.py` sets it, `FastReactHp`).
//!
//! Every ACK echoes the INT records of the switch egresses its data packet crossed
//! ([`AckSample::int`]). With the previous ACK's records `L`, per hop:
//!
//! - txRate = Δtx_bytes / Δts, and u′ = min(qlen, L.qlen)/(B·T) + txRate/B;
//! - the most loaded hop (largest u′) gives u and τ = its Δts, τ ← min(τ, T);
//! - U ← (1 − τ/T)·U + (τ/T)·u (`MeasureInflight`).
//!
//! Then the window (`ComputeWind`): W = W_c/(U/η) + W_AI when U ≥ η or incStage ≥ maxStage
//! (multiplicative, incStage ← 0), else W = W_c + W_AI (additive, incStage += 1). The reference
//! window W_c and incStage change only once per RTT: when the ACK passes `lastUpdateSeq` (then
//! `lastUpdateSeq ← snd_nxt`); the ACKs in between react from W_c without moving it ("fast
//! react"). The rate is W/T; W is clamped to [min_rate·T, B_nic·T] as the fork clamps its rate
//! to [`MinRate`, the NIC's rate].
//!
//! The fork runs the same algorithm on the rate (R = W/T throughout, fork issue #44): this
//! keeps the window and sets both.

use super::{require, to_bps};
use crate::controller::{AckSample, ControllerState, RateControl, RateController};
use incastsim_core::{BitsPerSec, Duration, IntHop, MAX_INT_HOPS, Time};

/// HPCC's parameters. Every field is public so any one can be overridden after a named set.
///
/// `max_stage` has two readings: the paper prints maxStage = 5 (§5.1), and the authors later
/// wrote that this was a typo and their simulations used 0 (the fork's README, "Settings":
/// "HPCC's maxStage=0, which is actually the same as the simulation setting in our paper. The
/// maxStage=5 in the HPCC paper is due to a typo for the simulation"; `run.py --mi` defaults to
/// 0; fork issue #24: "In theory maxStage=0 is best"). The default is 0
/// ([`hpcc_fork`](Self::hpcc_fork)), what the authors say they ran; [`paper`](Self::paper) has 5.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HpccParams {
    /// η, the target utilization, in (0, 1].
    pub eta: f64,
    /// maxStage: additive-increase rounds before a multiplicative one even below η.
    pub max_stage: u32,
    /// T, the base RTT (the fork's per-flow `m_baseRtt`, the path's unloaded RTT). Also the
    /// window ↔ rate conversion (R = W/T) and W_init = B_nic·T.
    pub base_rtt: Duration,
    /// W_AI in bytes: added to the window at every update.
    pub w_ai_bytes: f64,
    /// The rate never goes below this (the window below `min_rate`·T).
    pub min_rate: BitsPerSec,
    /// React on every ACK between the once-per-RTT updates (the fork's `FastReact`; the paper's
    /// Algorithm 1 always does); off: those ACKs are ignored.
    pub fast_react: bool,
}

impl HpccParams {
    /// HPCC as the fork's `run.py --cc hp` runs it, for a NIC of `line_rate` and base RTT
    /// `base_rtt`.
    pub fn hpcc_fork(line_rate: BitsPerSec, base_rtt: Duration) -> HpccParams {
        // run.py hp: `ai = 10 * bw / 25` Mb/s (RATE_AI), added to the rate per update; as a
        // window, W_AI = R_AI · T.
        let rate_ai = 10e6 * line_rate.as_f64() / 25e9;
        HpccParams {
            eta: 0.95,    // run.py `--utgt` default 95 (U_TARGET); paper §5.1 η = 95%
            max_stage: 0, // run.py `--mi` default 0 (MI_THRESH); README: maxStage=5 was a typo
            base_rtt,
            w_ai_bytes: rate_ai * base_rtt.as_secs_f64() / 8.0,
            min_rate: BitsPerSec::gbps(1), // run.py: MIN_RATE 1000Mb/s
            fast_react: true, // run.py hp: FAST_REACT 1 (rdma-hw.cc `FastReact` default true)
        }
    }

    /// HPCC as the paper prints its parameters (§5.1): the fork's set with maxStage = 5.
    pub fn paper(line_rate: BitsPerSec, base_rtt: Duration) -> HpccParams {
        HpccParams {
            max_stage: 5, // paper §5.1 as printed (the authors: a typo; see the type's doc)
            ..HpccParams::hpcc_fork(line_rate, base_rtt)
        }
    }

    /// The first field outside its allowed range, as `hpcc.field = value: allowed`.
    pub fn check(&self) -> Result<(), String> {
        let eta = self.eta;
        require(
            eta > 0.0 && eta <= 1.0,
            "hpcc.eta",
            eta,
            "must be in (0, 1]",
        )?;
        require(
            self.base_rtt > Duration::ZERO,
            "hpcc.base_rtt",
            self.base_rtt,
            "must be positive",
        )?;
        let ai = self.w_ai_bytes;
        require(
            ai.is_finite() && ai >= 0.0,
            "hpcc.w_ai_bytes",
            ai,
            "must be a finite number ≥ 0",
        )?;
        require(
            self.min_rate.0 > 0,
            "hpcc.min_rate",
            self.min_rate.0,
            "must be positive (bit/s)",
        )?;
        Ok(())
    }
}

const NO_HOP: IntHop = IntHop {
    ts: Time::ZERO,
    tx_bytes: 0,
    qlen_bytes: 0,
    rate: BitsPerSec(0),
};

/// HPCC for one QP.
#[derive(Clone, Debug)]
pub struct Hpcc {
    /// The parameters it runs with.
    pub params: HpccParams,
    /// `L`: the previous ACK's INT records (the first `nhop`).
    prev: [IntHop; MAX_INT_HOPS],
    nhop: usize,
    /// U.
    u: f64,
    /// W_c, bytes.
    wc: f64,
    /// W, bytes (the one last applied).
    w: f64,
    inc_stage: u32,
    /// `lastUpdateSeq`; `None` before the first ACK with INT.
    last_update_seq: Option<u64>,
    w_min: f64,
    w_max: f64,
    decreases: u64,
    increases: u64,
}

impl Hpcc {
    /// HPCC before its first ACK. Check `params` first ([`HpccParams::check`]).
    pub fn new(params: HpccParams) -> Hpcc {
        Hpcc {
            params,
            prev: [NO_HOP; MAX_INT_HOPS],
            nhop: 0,
            u: 1.0, // rdma-queue-pair.cc: `hp.u = 1`
            wc: 0.0,
            w: 0.0,
            inc_stage: 0,
            last_update_seq: None,
            w_min: 0.0,
            w_max: 0.0,
            decreases: 0,
            increases: 0,
        }
    }

    /// U, the normalized inflight estimate.
    pub fn utilization(&self) -> f64 {
        self.u
    }

    /// W, bytes.
    pub fn window(&self) -> f64 {
        self.w
    }

    /// W_c, bytes.
    pub fn reference_window(&self) -> f64 {
        self.wc
    }

    /// Bytes a window of `rate` for T holds.
    fn bytes_at(&self, rate: f64) -> f64 {
        rate * self.params.base_rtt.as_secs_f64() / 8.0
    }

    fn store(&mut self, hops: &[IntHop]) {
        self.prev[..hops.len()].copy_from_slice(hops);
        self.nhop = hops.len();
    }

    /// `MeasureInflight`: folds this ACK's records into U; `false` if no hop had a time
    /// interval to measure over (U unchanged).
    fn measure(&mut self, hops: &[IntHop]) -> bool {
        let t = self.params.base_rtt.as_secs_f64();
        let (mut u, mut tau_ps, mut any) = (0.0_f64, 0_u64, false);
        for (h, l) in hops.iter().zip(&self.prev) {
            let dt = h.ts.since(l.ts);
            let b = h.rate.as_f64();
            if dt == Duration::ZERO || b <= 0.0 {
                continue; // no interval (a repeated record) or no rate: nothing to measure
            }
            any = true;
            let tx_rate = h.tx_bytes.saturating_sub(l.tx_bytes) as f64 * 8.0 / dt.as_secs_f64();
            let qlen = h.qlen_bytes.min(l.qlen_bytes) as f64 * 8.0;
            let u_hop = qlen / (b * t) + tx_rate / b;
            // Algorithm 1: the hop with the largest u′ gives u and τ.
            if u_hop > u {
                u = u_hop;
                tau_ps = dt.as_ps();
            }
        }
        if any {
            // τ ← min(τ, T); U ← (1 − τ/T)U + (τ/T)u.
            let frac = tau_ps.min(self.params.base_rtt.as_ps()) as f64
                / self.params.base_rtt.as_ps() as f64;
            self.u = (1.0 - frac) * self.u + frac * u;
        }
        any
    }

    /// `ComputeWind(U, updateWc)`: the new W; W_c and incStage move only if `update`.
    fn compute_window(&mut self, update: bool) -> f64 {
        let p = &self.params;
        let (w, stage) = if self.u >= p.eta || self.inc_stage >= p.max_stage {
            // Multiplicative: W_c/(U/η) + W_AI (U = 0, an idle path, gives the maximum).
            let w = if self.u > 0.0 {
                self.wc * p.eta / self.u + p.w_ai_bytes
            } else {
                self.w_max
            };
            (w, 0)
        } else {
            (self.wc + p.w_ai_bytes, self.inc_stage + 1)
        };
        // The fork clamps its new rate to [MinRate, the NIC's rate] before storing it.
        let w = w.clamp(self.w_min, self.w_max);
        if update {
            self.wc = w;
            self.inc_stage = stage;
        }
        w
    }

    fn apply(&mut self, w: f64, ctl: &mut RateControl) {
        if w < self.w {
            self.decreases += 1;
        } else if w > self.w {
            self.increases += 1;
        }
        self.w = w;
        self.set(ctl);
    }

    fn set(&self, ctl: &mut RateControl) {
        ctl.window_bytes = Some((self.w.round() as u64).max(1));
        ctl.rate = to_bps(self.w * 8.0 / self.params.base_rtt.as_secs_f64());
    }
}

impl RateController for Hpcc {
    fn on_start(&mut self, _now: Time, line_rate: BitsPerSec, ctl: &mut RateControl) {
        // W_init = B_nic · T (the fork starts at the NIC's rate, `hp.m_curRate = m_bps`).
        self.w_max = self.bytes_at(line_rate.as_f64());
        self.w_min = self.bytes_at(self.params.min_rate.as_f64()).min(self.w_max);
        self.wc = self
            .bytes_at(ctl.rate.as_f64())
            .clamp(self.w_min, self.w_max);
        self.w = self.wc;
        self.set(ctl);
    }

    fn on_ack(&mut self, s: &AckSample<'_>, ctl: &mut RateControl) {
        let hops = &s.int[..s.int.len().min(MAX_INT_HOPS)];
        if hops.is_empty() {
            return; // no telemetry: nothing to measure
        }
        let Some(last) = self.last_update_seq else {
            // The first ACK with INT: keep its records as L (fork `UpdateRateHp`, first RTT).
            self.last_update_seq = Some(s.snd_nxt);
            self.store(hops);
            return;
        };
        if hops.len() != self.nhop {
            self.store(hops); // the path changed: the old L does not compare
            return;
        }
        // `HandleAckHp`: a full update once the ACK passes lastUpdateSeq, else fast react.
        let full = s.snd_una > last;
        if !full && !self.params.fast_react {
            return;
        }
        if self.measure(hops) {
            let w = self.compute_window(full);
            self.apply(w, ctl);
        }
        if full {
            self.last_update_seq = Some(s.snd_nxt.max(last));
        }
        self.store(hops);
    }

    fn state(&self) -> ControllerState {
        ControllerState {
            utilization: Some(self.u),
            rate_decreases: self.decreases,
            rate_increases: self.increases,
            ..ControllerState::default()
        }
    }
}
