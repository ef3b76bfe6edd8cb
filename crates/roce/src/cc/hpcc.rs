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

#[cfg(test)]
mod tests {
    use super::*;
    use incastsim_core::TELEMETRY_WORDS;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    fn hop(ts_us: u64, tx_bytes: u64, qlen_bytes: u64) -> IntHop {
        IntHop {
            ts: Time::ZERO + Duration::from_us(ts_us),
            tx_bytes,
            qlen_bytes,
            rate: BitsPerSec::gbps(100),
        }
    }

    fn ack<'a>(int: &'a [IntHop], snd_una: u64, snd_nxt: u64) -> AckSample<'a> {
        AckSample {
            now: Time::ZERO,
            nack: false,
            acked_bytes: 1000,
            rtt: Duration::from_us(10),
            ecn_echo: false,
            telemetry: [0; TELEMETRY_WORDS],
            int,
            snd_una,
            snd_nxt,
            bytes_in_flight: 0,
        }
    }

    /// 100 Gbps NIC, T = 10 µs: W_init = 100e9 · 10e-6 / 8 = 125 000 B. W_AI = 100 B, η = 0.95.
    fn params(max_stage: u32) -> HpccParams {
        HpccParams {
            w_ai_bytes: 100.0,
            max_stage,
            ..HpccParams::hpcc_fork(BitsPerSec::gbps(100), Duration::from_us(10))
        }
    }

    fn started(p: HpccParams) -> (Hpcc, RateControl) {
        let mut h = Hpcc::new(p);
        let mut c = RateControl {
            rate: BitsPerSec::gbps(100),
            window_bytes: None,
            timer: None,
        };
        h.on_start(Time::ZERO, BitsPerSec::gbps(100), &mut c);
        (h, c)
    }

    /// Two hops. The first ACK only stores L (hop 1: ts 0, tx 0, qlen 300 000; hop 2: ts 0,
    /// tx 0, qlen 0) and lastUpdateSeq = snd_nxt = 10.
    ///
    /// The second ACK (snd_una 11 > 10: a full update), 5 µs later:
    /// - hop 1: tx 62 500 B more: txRate = 62 500·8 / 5 µs = 100 Gbps → 1.0;
    ///   min(qlen 225 000, 300 000)·8 / (100 Gbps · 10 µs) = 1.8e6 / 1e6 = 1.8; u′ = 2.8.
    /// - hop 2: tx 31 250 B: 50 Gbps → 0.5; qlen 0; u′ = 0.5. Hop 1 is the most loaded.
    /// - τ = 5 µs ≤ T; U = (1 − 0.5)·1 + 0.5·2.8 = 1.9 (U starts at 1, the fork's `hp.u = 1`).
    /// - U ≥ η: W = W_c/(U/η) + W_AI = 125 000/2 + 100 = 62 600 B = W_c, incStage 0.
    /// - rate = 62 600·8 / 10 µs = 50.08 Gbps.
    #[test]
    fn window_after_two_acks() {
        let (mut h, mut c) = started(params(0));
        assert_eq!(c.window_bytes, Some(125_000));
        let l = [hop(0, 0, 300_000), hop(0, 0, 0)];
        h.on_ack(&ack(&l, 1, 10), &mut c);
        assert_eq!(
            (c.window_bytes, c.rate),
            (Some(125_000), BitsPerSec::gbps(100))
        );
        assert!(close(h.utilization(), 1.0));

        let now = [hop(5, 62_500, 225_000), hop(5, 31_250, 0)];
        h.on_ack(&ack(&now, 11, 20), &mut c);
        assert!(close(h.utilization(), 1.9));
        assert!(close(h.window(), 62_600.0));
        assert!(close(h.reference_window(), 62_600.0));
        assert_eq!(c.window_bytes, Some(62_600));
        assert_eq!(c.rate, BitsPerSec(50_080_000_000));
        assert_eq!(h.last_update_seq, Some(20));
        let st = h.state();
        assert_eq!(
            (st.rate_decreases, st.utilization),
            (1, Some(h.utilization()))
        );
    }

    /// Fast react: an ACK that does not pass lastUpdateSeq computes W from W_c but leaves W_c.
    /// After the full update above (W_c = 62 600, U = 1.9), one more ACK 5 µs later with hop
    /// 1 at 100 Gbps and its queue gone: u′ = 1.0 + 0 = 1.0; U = 0.5·1.9 + 0.5·1.0 = 1.45;
    /// W = 62 600 · 0.95/1.45 + 100 = 41 113.79… B; W_c stays 62 600.
    #[test]
    fn fast_react_leaves_reference_window() {
        let (mut h, mut c) = started(params(0));
        h.on_ack(&ack(&[hop(0, 0, 300_000)], 1, 10), &mut c);
        h.on_ack(&ack(&[hop(5, 62_500, 225_000)], 11, 20), &mut c);
        assert!(close(h.window(), 62_600.0));
        h.on_ack(&ack(&[hop(10, 125_000, 0)], 15, 30), &mut c);
        assert!(close(h.utilization(), 1.45));
        assert!(close(h.window(), 62_600.0 * 0.95 / 1.45 + 100.0));
        assert!(close(h.reference_window(), 62_600.0));
        assert_eq!(h.last_update_seq, Some(20));
    }

    /// maxStage: below η, maxStage = 5 adds W_AI for five full updates (incStage 1..5) and the
    /// sixth is multiplicative; maxStage = 0 is multiplicative at once. A lightly loaded hop:
    /// 5 µs apart, 31 250 B (50 Gbps → 0.5), no queue; U: 1 → 0.75 → 0.625 → … (halving its
    /// distance to 0.5 each time, all below η).
    /// - maxStage 5, starting from W_c = 125 000 = W_max: each additive step is clamped to
    ///   W_max, so start from a W_c of half: the QP starts at 50 Gbps (62 500 B); updates
    ///   1–5 give 62 600, 62 700, …, 63 000; update 6 (incStage = 5) gives
    ///   63 000 · 0.95/U₆ + 100 with U₆ = 0.5 + 0.5^7 = 0.5078125.
    /// - maxStage 0: update 1 gives 62 500 · 0.95/0.75 + 100 = 79 266.67 B.
    #[test]
    fn max_stage() {
        let run = |max_stage: u32, updates: u64| {
            let mut h = Hpcc::new(params(max_stage));
            let mut c = RateControl {
                rate: BitsPerSec::gbps(50),
                window_bytes: None,
                timer: None,
            };
            h.on_start(Time::ZERO, BitsPerSec::gbps(100), &mut c);
            h.on_ack(&ack(&[hop(0, 0, 0)], 1, 1), &mut c);
            let mut ws = Vec::new();
            for k in 1..=updates {
                h.on_ack(&ack(&[hop(5 * k, 31_250 * k, 0)], 1 + k, 1 + k), &mut c);
                ws.push(h.window());
            }
            (h, ws)
        };
        let (h, ws) = run(5, 6);
        for (k, w) in ws[..5].iter().enumerate() {
            assert!(
                close(*w, 62_500.0 + 100.0 * (k as f64 + 1.0)),
                "update {}: {w}",
                k + 1
            );
        }
        let u6 = 0.5 + 0.5_f64.powi(7);
        assert!(close(h.utilization(), u6));
        assert!(close(ws[5], 63_000.0 * 0.95 / u6 + 100.0));
        assert_eq!(h.inc_stage, 0);

        let (_, ws) = run(0, 1);
        assert!(close(ws[0], 62_500.0 * 0.95 / 0.75 + 100.0));
        assert_eq!(
            HpccParams::paper(BitsPerSec::gbps(100), Duration::from_us(10)).max_stage,
            5
        );
    }

    /// An ACK without INT changes nothing; a change in hop count only replaces L.
    #[test]
    fn empty_int_and_hop_count_change() {
        let (mut h, mut c) = started(params(0));
        h.on_ack(&ack(&[], 1, 10), &mut c);
        assert_eq!(h.last_update_seq, None);
        h.on_ack(&ack(&[hop(0, 0, 0)], 1, 10), &mut c);
        h.on_ack(&ack(&[hop(5, 62_500, 0), hop(5, 0, 0)], 11, 20), &mut c);
        assert_eq!(h.nhop, 2);
        assert!(close(h.window(), 125_000.0));
        assert!(close(h.utilization(), 1.0));
        h.on_ack(&ack(&[], 21, 30), &mut c);
        assert_eq!(h.nhop, 2);
    }

    #[test]
    fn params_check() {
        let p = params(0);
        assert_eq!(p.check(), Ok(()));
        // run.py hp at 100 Gbps: R_AI = 40 Mb/s; over T = 10 µs that is 50 B.
        let f = HpccParams::hpcc_fork(BitsPerSec::gbps(100), Duration::from_us(10));
        assert!(close(f.w_ai_bytes, 50.0));
        let bad = HpccParams { eta: 1.5, ..p };
        assert_eq!(
            bad.check(),
            Err("hpcc.eta = 1.5: must be in (0, 1]".to_string())
        );
        let bad = HpccParams {
            base_rtt: Duration::ZERO,
            ..p
        };
        assert!(bad.check().unwrap_err().starts_with("hpcc.base_rtt = "));
    }
}
