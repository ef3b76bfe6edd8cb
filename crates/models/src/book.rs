//! The incast throughput models of Kulkarni & Agrawal, "Analysis of TCP Performance in Data
//! Center Networks" (SpringerBrief), Chapter 3 (seed 003): the TD-only model (Eq. 3.21), the
//! "Full Model" (Eq. 3.39) and the "Split Model" (Eq. 3.40).
//!
//! The model extends Padhye et al.'s TCP throughput equation to `n` synchronized flows sharing
//! one bottleneck. Its inputs are the quantities the book's §3.2 measures from traces, so a
//! simulated run can feed them in directly; they are the fields of [`BookParams`]:
//!
//! | field | book | meaning (as §3.1–3.2 define and measure it) |
//! |---|---|---|
//! | `n_senders` | n | parallel synchronized flows |
//! | `p_c` | p_c | loss-event probability of the cumulative flow: loss indications of the cumulative flow / packets sent by all flows |
//! | `p_r` | p_r | per-flow loss probability: loss indications of a composite flow / packets sent by that flow |
//! | `delta_abtts_per_block` | δ | mean number of ABTTs (timeouts at the start of a block transfer) per block |
//! | `rtt_s` | RTT = E\[r\] | mean round-trip time, s |
//! | `t0_s` | T0 = E\[Z^TO\] | mean duration of a single timeout, s |
//! | `block_packets` | L | the block all n senders transfer together, **in packets** (see below) |
//! | `n_star` | n* | Split Model: up to this many senders, IBTTs are whole-window losses |
//!
//! Throughputs are in packets/s (the book's B, Eq. 3.1: packets sent per unit time at the shared
//! link); [`pps_to_mbps`] converts with a segment size. The models have no link-capacity term, so
//! nothing caps them at the line rate: with made-up inputs (e.g. the same p_c for every n) the
//! TD-only value easily exceeds what the link can carry.
//!
//! # Interpretation choices
//! - **`C(k, m)` for m = k.** Eq. 3.33 prints `C(g, m) = (1 − p_r)^n` for `m = g` (and Eq. 3.39
//!   repeats it as `C(k, m) = … (1 − p_r)^n`). We use `(1 − p_r)^g`: C(g, ·) is defined as the
//!   distribution of the number m of packets ACKed in sequence in a round of g packets, and only
//!   `(1 − p_r)^g` (all g packets get through) makes `Σ_{m=0}^{g} C(g, m) = 1`; n (the number of
//!   senders) plays no part in one flow's round. It is a leftover of Padhye et al.'s notation,
//!   where the round size is called n. The choice does not change any model value: Q̂ only
//!   evaluates `C(k, m)` for `m ≤ 2 < 3 ≤ k`, always the `m < k` branch.
//! - **Real-valued window.** Q_ibtt ≈ Q̂_ibtt(E\[W_f\]) (Eq. 3.36), but E\[W_f\] is a real number
//!   and Q̂(w) is defined for a window of w packets (its sums run to w). We round E\[W_f\] to the
//!   nearest integer (halves up) and use that integer w everywhere in Q̂: in the `w ≤ 3` test, in
//!   the normalization `1 − (1 − p_r)^w` of A(w, k) and as the upper limit of the sums. Rounding
//!   (not flooring) keeps the evaluated window unbiased. The rounded w is reported as
//!   [`BookModel::w_packets`].
//! - **Upper limit of the sums.** The sums `Σ_{k=3}^{w}` are taken as printed (k up to and
//!   including w) although k counts packets ACKed before the first loss in a round of w, so k = w
//!   cannot happen; the extra term is `A(w, w)·(1 − (1 − p_r)^3)`, small next to the rest.
//! - **Block size L in packets.** Eq. 3.37 divides L by E\[Y\] (packets per TD period), so L must be
//!   in packets, and the text calls it "the size of the block that all n senders are trying to
//!   transmit". Table 3.1 labels the per-server SRU "(L)"; we follow the equation: L = n × SRU /
//!   segment size ([`block_packets_from_sru`]); with Table 3.1, 256 KB / 1 KB → L = 256·n.
//! - **n\*.** "the number of senders after which IBTTs are entirely caused by insufficient
//!   duplicate ACKs"; the book's traces show whole-window losses only for n ≤ 3, hence
//!   [`DEFAULT_N_STAR`] = 3.
//! - **Case order in Eq. 3.40.** The cases are tried top to bottom: `w ≤ 3` gives 1 whatever n is.
//!
//! `j = min(n, p_r/p_c)` (text after Eq. 3.21) can be below 1; the formulas accept that.
//!
//! ```
//! use incastsim_models::book::{BookParams, DEFAULT_N_STAR, pps_to_mbps};
//! let measured = BookParams {
//!     n_senders: 8,
//!     p_c: 0.01,
//!     p_r: 0.05,
//!     delta_abtts_per_block: 0.5,
//!     rtt_s: 100e-6,
//!     t0_s: 0.2,
//!     block_packets: 8.0 * 256.0, // 8 senders x 256 KB SRU / 1 KB segments
//!     n_star: DEFAULT_N_STAR,
//! };
//! let m = measured.evaluate().unwrap();
//! assert!(m.split_pps > m.full_pps);
//! println!("Split Model: {:.1} Mbps", pps_to_mbps(m.split_pps, 1000.0));
//! ```

use crate::{ModelError, at_least_one, non_negative, positive, probability};

/// The book's n*: up to this many senders IBTTs are whole-window losses (§3.2, after Fig. 3.11).
pub const DEFAULT_N_STAR: u64 = 3;

/// Above this window the IBTT sums are evaluated by their (exact) geometric closed form instead
/// of term by term.
const LITERAL_SUM_MAX_W: u64 = 1 << 16;

/// Measured inputs of the book's models (see the module docs for each field's definition).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BookParams {
    /// n, the number of senders (≥ 1).
    pub n_senders: u64,
    /// p_c, loss-event probability of the cumulative flow, in (0, 1].
    pub p_c: f64,
    /// p_r, loss probability of a composite flow, in (0, 1].
    pub p_r: f64,
    /// δ, mean number of ABTTs at the start of a block transfer (≥ 0).
    pub delta_abtts_per_block: f64,
    /// RTT, mean round-trip time in seconds (> 0).
    pub rtt_s: f64,
    /// T0, mean duration of a single timeout in seconds (≥ 0).
    pub t0_s: f64,
    /// L, the whole block (all n senders' SRUs together) in packets (> 0).
    pub block_packets: f64,
    /// n* of the Split Model; [`DEFAULT_N_STAR`] unless you have a reason.
    pub n_star: u64,
}

/// Every intermediate of the three models, and their throughputs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BookModel {
    /// j = min(n, p_r/p_c): mean number of flows losing packets in a loss round.
    pub j: f64,
    /// E\[X\], mean rounds per TD period (Eq. 3.19).
    pub e_x_rounds: f64,
    /// E\[Y\] = 1/p_c, mean packets per TD period (Eq. 3.10).
    pub e_y_packets: f64,
    /// E\[W_f\] = (2n/j)·E\[X\], mean congestion window of a flow (Eq. 3.7, 3.12).
    pub e_w_f_packets: f64,
    /// E\[W_f\] rounded to the nearest integer: the w at which Q̂ is evaluated.
    pub w_packets: u64,
    /// ρ = L/E\[Y\], TD periods per block (Eq. 3.37).
    pub rho_tdps_per_block: f64,
    /// Q_abtt = δ/ρ (Eq. 3.38).
    pub q_abtt: f64,
    /// Q_ibtt ≈ Q̂_ibtt(w) (Eq. 3.34, 3.36), the Full Model's IBTT probability.
    pub q_ibtt_full: f64,
    /// Q_ibt(w) of the Split Model (Eq. 3.40).
    pub q_ibt_split: f64,
    /// Q = min(1, Q_ibtt + Q_abtt) (Eq. 3.31) with the Full Model's Q_ibtt.
    pub q_full: f64,
    /// Q = min(1, Q_ibt + Q_abtt) with the Split Model's Q_ibt.
    pub q_split: f64,
    /// TD-only throughput (Eq. 3.21), packets/s.
    pub td_only_pps: f64,
    /// Full Model throughput (Eq. 3.39), packets/s.
    pub full_pps: f64,
    /// Split Model throughput (Eq. 3.39 with Eq. 3.40), packets/s.
    pub split_pps: f64,
}

impl BookParams {
    fn check_td(&self) -> Result<(), ModelError> {
        at_least_one("n_senders", self.n_senders)?;
        probability("p_c", self.p_c)?;
        probability("p_r", self.p_r)?;
        positive("rtt_s", self.rtt_s)?;
        Ok(())
    }

    fn check_all(&self) -> Result<(), ModelError> {
        self.check_td()?;
        non_negative("delta_abtts_per_block", self.delta_abtts_per_block)?;
        non_negative("t0_s", self.t0_s)?;
        positive("block_packets", self.block_packets)?;
        Ok(())
    }

    /// The TD-only throughput, Eq. 3.21, in packets/s (needs only n, p_c, p_r and RTT).
    pub fn td_only_pps(&self) -> Result<f64, ModelError> {
        self.check_td()?;
        let n = self.n_senders as f64;
        let j = j_flows(self.n_senders, self.p_c, self.p_r)?;
        let d = bracket(n, self.p_c, j);
        Ok(6.0 * n * n / (self.rtt_s * d))
    }

    /// Evaluates all three models and their intermediates.
    pub fn evaluate(&self) -> Result<BookModel, ModelError> {
        self.check_all()?;
        let n = self.n_senders as f64;
        let j = j_flows(self.n_senders, self.p_c, self.p_r)?;
        let d = bracket(n, self.p_c, j);
        let e_x_rounds = d / (6.0 * n * n * self.p_c);
        let e_y_packets = 1.0 / self.p_c;
        let e_w_f_packets = 2.0 * n / j * e_x_rounds;
        let w_packets = window_for_q(e_w_f_packets);
        let rho_tdps_per_block = self.block_packets / e_y_packets;
        let q_abtt = self.delta_abtts_per_block / rho_tdps_per_block;
        let q_ibtt_full = q_ibtt_hat(self.p_r, w_packets)?;
        let q_ibt_split = q_ibt_split(self.p_r, w_packets, self.n_senders, self.n_star)?;
        let q_full = (q_ibtt_full + q_abtt).min(1.0);
        let q_split = (q_ibt_split + q_abtt).min(1.0);
        let td_only_pps = 6.0 * n * n / (self.rtt_s * d);
        // Eq. 3.39: B = E[Y] / (RTT·E[X] + Q·E[Z^TO]), E[Z^TO] = T0.
        let throughput = |q: f64| e_y_packets / (self.rtt_s * e_x_rounds + q * self.t0_s);
        Ok(BookModel {
            j,
            e_x_rounds,
            e_y_packets,
            e_w_f_packets,
            w_packets,
            rho_tdps_per_block,
            q_abtt,
            q_ibtt_full,
            q_ibt_split,
            q_full,
            q_split,
            td_only_pps,
            full_pps: throughput(q_full),
            split_pps: throughput(q_split),
        })
    }

    /// The Full Model throughput, Eq. 3.39, in packets/s.
    pub fn full_pps(&self) -> Result<f64, ModelError> {
        Ok(self.evaluate()?.full_pps)
    }

    /// The Split Model throughput (Eq. 3.39 with Q_ibt from Eq. 3.40), in packets/s.
    pub fn split_pps(&self) -> Result<f64, ModelError> {
        Ok(self.evaluate()?.split_pps)
    }
}

/// j = min(n, p_r/p_c), the mean number of flows losing packets in a loss round (text after
/// Eq. 3.21).
pub fn j_flows(n_senders: u64, p_c: f64, p_r: f64) -> Result<f64, ModelError> {
    at_least_one("n_senders", n_senders)?;
    probability("p_c", p_c)?;
    probability("p_r", p_r)?;
    Ok((p_r / p_c).min(n_senders as f64))
}

/// The bracket shared by Eq. 3.19–3.21 and 3.39:
/// `D = 2j²p_c − n·p_c·j + √(n²p_c²j² − 4n·p_c²·j³ + 4j⁴p_c² + 24n²·p_c·j)`.
///
/// With `a = p_c·j·(2j − n)` the radicand is `a² + c`, `c = 24n²·p_c·j`, so `D = a + √(a² + c)`,
/// which is > 0 for p_c, j > 0. For a < 0 it is computed as `c/(√(a² + c) − a)` (the same value)
/// to avoid cancellation.
fn bracket(n: f64, p_c: f64, j: f64) -> f64 {
    let a = p_c * j * (2.0 * j - n);
    let c = 24.0 * n * n * p_c * j;
    let root = (a * a + c).sqrt();
    if a >= 0.0 { a + root } else { c / (root - a) }
}

/// E\[X\], the mean number of rounds in a TD period, Eq. 3.19:
/// `E[X] = D/(6n²p_c)` with D the bracket above.
pub fn expected_rounds(n_senders: u64, p_c: f64, p_r: f64) -> Result<f64, ModelError> {
    let j = j_flows(n_senders, p_c, p_r)?;
    let n = n_senders as f64;
    Ok(bracket(n, p_c, j) / (6.0 * n * n * p_c))
}

/// The w at which Q̂ is evaluated for a mean window `e_w_f_packets`: rounded to the nearest
/// integer, halves up (see the module docs). Saturates at `u64::MAX`; negative or NaN gives 0.
pub fn window_for_q(e_w_f_packets: f64) -> u64 {
    // `as` saturates and maps NaN to 0.
    (e_w_f_packets + 0.5).floor() as u64
}

/// (1 − p)^k for p in (0, 1], exact at p = 1 and accurate for small p.
fn q_pow(p: f64, k: f64) -> f64 {
    if k == 0.0 {
        1.0
    } else if p >= 1.0 {
        0.0
    } else {
        (k * (-p).ln_1p()).exp()
    }
}

/// 1 − (1 − p)^k for p in (0, 1], without cancellation for small p.
fn one_minus_q_pow(p: f64, k: f64) -> f64 {
    if k == 0.0 {
        0.0
    } else if p >= 1.0 {
        1.0
    } else {
        -(k * (-p).ln_1p()).exp_m1()
    }
}

/// A(w, k), Eq. 3.32: the probability that the first k packets of a round of w are ACKed, given
/// one or more losses in the round, `A(w, k) = (1 − p_r)^k·p_r / (1 − (1 − p_r)^w)`.
/// Needs w ≥ 1.
pub fn a_wk(p_r: f64, w: u64, k: u64) -> Result<f64, ModelError> {
    probability("p_r", p_r)?;
    at_least_one("w", w)?;
    Ok(q_pow(p_r, k as f64) * p_r / one_minus_q_pow(p_r, w as f64))
}

/// C(g, m), Eq. 3.33: the probability that m packets of a round of g are ACKed in sequence and the
/// rest (if any) lost: `(1 − p_r)^m·p_r` for m < g, and `(1 − p_r)^g` for m = g (the book prints
/// `^n`; see the module docs for why this is `^g`). Zero for m > g.
pub fn c_km(p_r: f64, g: u64, m: u64) -> Result<f64, ModelError> {
    probability("p_r", p_r)?;
    Ok(match m.cmp(&g) {
        std::cmp::Ordering::Less => q_pow(p_r, m as f64) * p_r,
        std::cmp::Ordering::Equal => q_pow(p_r, g as f64),
        std::cmp::Ordering::Greater => 0.0,
    })
}

/// `Σ_{k=lo}^{hi} A(w, k)·Σ_{m=0}^{2} C(k, m)` (lo ≥ 3), term by term for small w and by the
/// geometric closed form for large w. For k ≥ 3, `Σ_{m=0}^{2} C(k, m) = 1 − (1 − p_r)^3`.
fn sum_k_from_3(p_r: f64, w: u64) -> Result<f64, ModelError> {
    if w < 3 {
        return Ok(0.0);
    }
    if w <= LITERAL_SUM_MAX_W {
        let mut total = 0.0;
        for k in 3..=w {
            let c: f64 = (0..=2).map(|m| c_km(p_r, k, m)).sum::<Result<f64, _>>()?;
            total += a_wk(p_r, w, k)? * c;
        }
        Ok(total)
    } else {
        // Σ_{k=3}^{w} (1−p)^k·p = (1−p)^3·(1 − (1−p)^{w−2}).
        let wf = w as f64;
        let s = q_pow(p_r, 3.0) * one_minus_q_pow(p_r, wf - 2.0) / one_minus_q_pow(p_r, wf);
        Ok(s * one_minus_q_pow(p_r, 3.0))
    }
}

/// Q̂_ibtt(w), Eq. 3.34 (the Full Model): the probability that a loss in a window of w packets is
/// an IBTT: 1 if w ≤ 3, else `Σ_{k=0}^{2} A(w, k) + Σ_{k=3}^{w} A(w, k)·Σ_{m=0}^{2} C(k, m)`.
pub fn q_ibtt_hat(p_r: f64, w: u64) -> Result<f64, ModelError> {
    probability("p_r", p_r)?;
    if w <= 3 {
        return Ok(1.0);
    }
    let head: f64 = (0..=2).map(|k| a_wk(p_r, w, k)).sum::<Result<f64, _>>()?;
    Ok(head + sum_k_from_3(p_r, w)?)
}

/// Q_ibt(w), Eq. 3.40 (the Split Model): 1 if w ≤ 3; A(w, 0) (whole-window loss) if
/// n ≤ n*; otherwise `Σ_{k=3}^{w} A(w, k)·Σ_{m=0}^{2} C(k, m)` (too few duplicate ACKs).
pub fn q_ibt_split(p_r: f64, w: u64, n_senders: u64, n_star: u64) -> Result<f64, ModelError> {
    probability("p_r", p_r)?;
    if w <= 3 {
        Ok(1.0)
    } else if n_senders <= n_star {
        a_wk(p_r, w, 0)
    } else {
        sum_k_from_3(p_r, w)
    }
}

/// L for [`BookParams::block_packets`] from a per-server SRU: `n × SRU / segment` packets.
pub fn block_packets_from_sru(
    n_senders: u64,
    sru_bytes: f64,
    segment_bytes: f64,
) -> Result<f64, ModelError> {
    at_least_one("n_senders", n_senders)?;
    positive("sru_bytes", sru_bytes)?;
    positive("segment_bytes", segment_bytes)?;
    Ok(n_senders as f64 * sru_bytes / segment_bytes)
}

/// Packets/s → Mbit/s, counting `segment_bytes` per packet (the book's segment size S, i.e. the
/// payload, which makes this an application-level rate).
pub fn pps_to_mbps(pps: f64, segment_bytes: f64) -> f64 {
    pps * segment_bytes * 8.0 / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    fn params(n: u64, p_c: f64, p_r: f64, delta: f64, rtt_s: f64, t0_s: f64, l: f64) -> BookParams {
        BookParams {
            n_senders: n,
            p_c,
            p_r,
            delta_abtts_per_block: delta,
            rtt_s,
            t0_s,
            block_packets: l,
            n_star: DEFAULT_N_STAR,
        }
    }

    // Eq. 3.21 by hand: n = 8, p_c = 0.01, p_r = 0.05, RTT = 100 µs.
    //   j = min(8, 0.05/0.01) = 5
    //   2j²p_c = 0.5;  n·p_c·j = 0.4
    //   radicand = n²p_c²j² − 4n·p_c²·j³ + 4j⁴p_c² + 24n²p_c·j
    //            = 64·1e-4·25 − 32·1e-4·125 + 4·625·1e-4 + 24·64·0.01·5
    //            = 0.16 − 0.4 + 0.25 + 76.8 = 76.81;  √76.81 = 8.764131445842194
    //   D = 0.5 − 0.4 + 8.764131445842194 = 8.864131445842194
    //   B = (1/1e-4) · 6·64 / D = 10,000 · 384 / 8.864131445842194 = 433,206.57 packets/s
    #[test]
    fn td_only_hand_value() {
        let p = params(8, 0.01, 0.05, 0.5, 100e-6, 0.2, 2048.0);
        let b = p.td_only_pps().unwrap();
        assert!(close(b, 1e4 * 384.0 / (0.1 + 76.81f64.sqrt()), 1e-12));
        assert!(close(b, 433_206.5722921098, 1e-9));
        assert!(close(
            expected_rounds(8, 0.01, 0.05).unwrap(),
            8.864131445842194 / (6.0 * 64.0 * 0.01),
            1e-12
        ));
    }

    // The Full and Split models for four parameter sets, against an independent python3
    // transcription of the printed formulas (same interpretation: w = round(E[W_f]), sums to w,
    // C(k,k) = (1-p_r)^k): `python3 crates/models/tests/reference_values.py`.
    //
    // Set 1 worked by hand for the pieces: n = 8, p_c = 0.01, p_r = 0.05, δ = 0.5, RTT = 100 µs,
    // T0 = 200 ms, L = 8·256 = 2048 packets.
    //   E[X] = D/(6n²p_c) = 8.864131445842194/3.84 = 2.308367564021405
    //   E[W_f] = (2·8/5)·E[X] = 7.386776… → w = 7
    //   Q̂(7): q = 0.95, 1 − q⁷ = 0.301662704…, Σ_{k=0}^{2} A = (1 − q³)/(1 − q⁷) = 0.142625/0.3016627 = 0.472796…
    //         Σ_{k=3}^{7} A·(1 − q³) = 0.142625 · (q³ − q⁸)/(1 − q⁷) = 0.142625·0.1939546…/0.3016627 = 0.091701…
    //         Q̂ = 0.564497…
    //   ρ = L·p_c = 20.48, Q_abtt = 0.5/20.48 = 0.0244140625
    //   Full:  Q = 0.588911…, B = 100/(1e-4·2.3083676 + 0.588911·0.2) = 847.36 packets/s
    //   Split (n = 8 > n* = 3): Q_ibt = 0.091701…, Q = 0.116115…, B = 4263.69 packets/s
    #[test]
    fn full_and_split_reference_values() {
        struct Case {
            p: BookParams,
            w: u64,
            q_ibtt_full: f64,
            q_ibt_split: f64,
            q_abtt: f64,
            td: f64,
            full: f64,
            split: f64,
        }
        let cases = [
            Case {
                p: params(8, 0.01, 0.05, 0.5, 100e-6, 0.2, 2048.0),
                w: 7,
                q_ibtt_full: 0.5644972618667468,
                q_ibt_split: 0.09170099586123978,
                q_abtt: 0.0244140625,
                td: 433206.5722921098,
                full: 847.3635436998773,
                split: 4263.692600564639,
            },
            // n = 2 ≤ n*: the Split Model uses A(w, 0); j = p_r/p_c = 1.5 < n.
            Case {
                p: params(2, 0.02, 0.03, 0.1, 100e-6, 0.2, 512.0),
                w: 10,
                q_ibtt_full: 0.39821963917334285,
                q_ibt_split: 0.11425269064227866,
                q_abtt: 0.009765625,
                td: 138943.45159815636,
                full: 610.076674523878,
                split: 1987.003269333498,
            },
            // j = p_r/p_c = 16 < n = 32, RTT 150 µs, E[W_f] = 5.77 → w = 6.
            Case {
                p: params(32, 0.005, 0.08, 2.0, 150e-6, 0.2, 8192.0),
                w: 6,
                q_ibtt_full: 0.6863718644099024,
                q_ibt_split: 0.12415971702936103,
                q_abtt: 0.048828125,
                td: 923760.4307034012,
                full: 1358.1743030083417,
                split: 5744.802968254387,
            },
            // δ = 0 (no ABTTs), T0 = 10 ms, E[W_f] = 36.27 → w = 36.
            Case {
                p: params(16, 0.001, 0.002, 0.0, 100e-6, 10e-3, 4096.0),
                w: 36,
                q_ibtt_full: 0.09174615862590067,
                q_ibt_split: 0.0056326104650260425,
                q_abtt: 0.0,
                td: 4411883.156817397,
                full: 874032.5365097062,
                split: 3533735.155788237,
            },
        ];
        for (i, c) in cases.iter().enumerate() {
            let m = c.p.evaluate().unwrap();
            assert_eq!(m.w_packets, c.w, "case {i}");
            assert!(close(m.q_ibtt_full, c.q_ibtt_full, 1e-9), "case {i}: {m:?}");
            assert!(close(m.q_ibt_split, c.q_ibt_split, 1e-9), "case {i}: {m:?}");
            assert!((m.q_abtt - c.q_abtt).abs() < 1e-15, "case {i}");
            assert!(close(m.td_only_pps, c.td, 1e-9), "case {i}");
            assert!(close(m.full_pps, c.full, 1e-9), "case {i}: {m:?}");
            assert!(close(m.split_pps, c.split, 1e-9), "case {i}: {m:?}");
            assert_eq!(m.td_only_pps, c.p.td_only_pps().unwrap());
            assert!(m.full_pps <= m.td_only_pps && m.split_pps <= m.td_only_pps);
        }
    }

    #[test]
    fn hand_values_of_the_parts() {
        // A(4, 0) with p_r = 0.5: 0.5 / (1 − 0.5⁴) = 0.5/0.9375 = 0.5333…
        assert!(close(a_wk(0.5, 4, 0).unwrap(), 0.5 / 0.9375, 1e-15));
        // A(4, 2) = 0.25·0.5/0.9375 = 0.1333…
        assert!(close(a_wk(0.5, 4, 2).unwrap(), 0.125 / 0.9375, 1e-15));
        // Over k = 0..w−1, A(w, ·) is a distribution.
        let s: f64 = (0..7).map(|k| a_wk(0.05, 7, k).unwrap()).sum();
        assert!(close(s, 1.0, 1e-12));
        // C(g, ·) over m = 0..g is a distribution with the ^g reading.
        for g in [1, 3, 10] {
            let s: f64 = (0..=g).map(|m| c_km(0.2, g, m).unwrap()).sum();
            assert!(close(s, 1.0, 1e-12), "g = {g}");
        }
        assert!(close(c_km(0.2, 3, 3).unwrap(), 0.512, 1e-12));
        assert_eq!(c_km(0.2, 3, 4).unwrap(), 0.0);
        // Q̂(4) with p_r = 0.5: Σ_{k=0}^{2} A = (0.5+0.25+0.125)/0.9375 = 0.9333…,
        // k = 3..4: A(4,3) = 0.0625/0.9375, A(4,4) = 0.03125/0.9375, each × (1 − 0.125) = 0.875
        //   → (0.09375·0.875)/0.9375 = 0.0875;  Q̂ = 0.9333… + 0.0875 = 1.020833…
        // (> 1 because of the printed k = w term; Q = min(1, ·) caps it.)
        assert!(close(
            q_ibtt_hat(0.5, 4).unwrap(),
            0.875 / 0.9375 + 0.0875,
            1e-12
        ));
        assert_eq!(q_ibtt_hat(0.5, 3).unwrap(), 1.0);
        assert_eq!(q_ibtt_hat(0.01, 0).unwrap(), 1.0);
        assert_eq!(q_ibt_split(0.5, 4, 3, 3).unwrap(), a_wk(0.5, 4, 0).unwrap());
        assert!(close(q_ibt_split(0.5, 4, 4, 3).unwrap(), 0.0875, 1e-12));
        assert_eq!(q_ibt_split(0.5, 2, 10, 3).unwrap(), 1.0);
        // p_r = 1: every window loses its first packet.
        assert_eq!(a_wk(1.0, 5, 0).unwrap(), 1.0);
        assert_eq!(a_wk(1.0, 5, 1).unwrap(), 0.0);
        assert_eq!(q_ibtt_hat(1.0, 5).unwrap(), 1.0);
    }

    #[test]
    fn window_rounding() {
        assert_eq!(window_for_q(7.386), 7);
        assert_eq!(window_for_q(5.5), 6);
        assert_eq!(window_for_q(5.49), 5);
        assert_eq!(window_for_q(0.2), 0);
        assert_eq!(window_for_q(f64::NAN), 0);
        assert_eq!(window_for_q(1e30), u64::MAX);
    }

    #[test]
    fn closed_form_matches_term_by_term_sum() {
        for p_r in [1e-6, 1e-3, 0.05, 0.5, 1.0] {
            for w in [4, 50, 1000, LITERAL_SUM_MAX_W] {
                let literal = sum_k_from_3(p_r, w).unwrap();
                let wf = w as f64;
                let closed = q_pow(p_r, 3.0) * one_minus_q_pow(p_r, wf - 2.0)
                    / one_minus_q_pow(p_r, wf)
                    * one_minus_q_pow(p_r, 3.0);
                assert!(
                    (literal - closed).abs() <= 1e-9 * closed.max(1e-300),
                    "p_r = {p_r}, w = {w}: {literal} vs {closed}"
                );
            }
        }
        // Huge windows (tiny p_c) stay finite and fast.
        let p = params(4, 1e-15, 1e-14, 0.0, 100e-6, 0.2, 1024.0);
        let m = p.evaluate().unwrap();
        assert!(m.w_packets > LITERAL_SUM_MAX_W);
        assert!(m.full_pps.is_finite() && m.full_pps > 0.0 && m.q_full <= 1.0);
    }

    #[test]
    fn td_only_is_full_without_timeouts() {
        let mut p = params(8, 0.01, 0.05, 0.0, 100e-6, 0.0, 2048.0);
        let m = p.evaluate().unwrap();
        assert!(close(m.full_pps, m.td_only_pps, 1e-12));
        assert!(close(
            m.e_y_packets / m.e_x_rounds / p.rtt_s,
            m.td_only_pps,
            1e-12
        ));
        // E[X] solves Eq. 3.18: 1/p_c = 3n²E[X]²/(2j) + nE[X]/2 − jE[X].
        let (n, j, x) = (8.0, m.j, m.e_x_rounds);
        assert!(close(
            3.0 * n * n * x * x / (2.0 * j) + n * x / 2.0 - j * x,
            100.0,
            1e-12
        ));
        // Eq. 3.18 also holds where j < n/2, where the cancellation-free branch is used.
        p.p_r = 0.02;
        let m = p.evaluate().unwrap();
        let (j, x) = (m.j, m.e_x_rounds);
        assert!(j < n / 2.0);
        assert!(close(
            3.0 * n * n * x * x / (2.0 * j) + n * x / 2.0 - j * x,
            100.0,
            1e-12
        ));
        // Q saturates at 1.
        p.delta_abtts_per_block = 1e6;
        p.t0_s = 0.2;
        let m = p.evaluate().unwrap();
        assert_eq!(m.q_full, 1.0);
        assert_eq!(m.q_split, 1.0);
        assert!(close(
            m.full_pps,
            m.e_y_packets / (p.rtt_s * m.e_x_rounds + 0.2),
            1e-12
        ));
    }

    #[test]
    fn j_is_capped_at_n() {
        assert_eq!(j_flows(4, 0.01, 0.2).unwrap(), 4.0);
        assert!(close(j_flows(4, 0.01, 0.02).unwrap(), 2.0, 1e-12));
    }

    #[test]
    fn units_helpers() {
        // Table 3.1: SRU 256 KB, segment 1 KB, 8 senders → 2048 packets.
        assert_eq!(
            block_packets_from_sru(8, 256_000.0, 1_000.0).unwrap(),
            2048.0
        );
        // 100,000 packets/s of 1,000 B = 800 Mbps.
        assert!(close(pps_to_mbps(100_000.0, 1_000.0), 800.0, 1e-15));
    }

    #[test]
    fn degenerate_inputs_are_errors_not_nan() {
        let ok = params(8, 0.01, 0.05, 0.5, 100e-6, 0.2, 2048.0);
        let bad = |f: &dyn Fn(&mut BookParams)| {
            let mut p = ok;
            f(&mut p);
            p.evaluate().unwrap_err()
        };
        assert_eq!(
            bad(&|p| p.n_senders = 0),
            ModelError::Zero { name: "n_senders" }
        );
        for (f, name) in [
            (
                &(|p: &mut BookParams| p.p_c = 0.0) as &dyn Fn(&mut BookParams),
                "p_c",
            ),
            (&|p: &mut BookParams| p.p_r = 0.0, "p_r"),
            (&|p: &mut BookParams| p.p_c = 1.5, "p_c"),
            (&|p: &mut BookParams| p.p_r = f64::NAN, "p_r"),
            (&|p: &mut BookParams| p.rtt_s = 0.0, "rtt_s"),
            (&|p: &mut BookParams| p.t0_s = -1.0, "t0_s"),
            (&|p: &mut BookParams| p.block_packets = 0.0, "block_packets"),
            (
                &|p: &mut BookParams| p.delta_abtts_per_block = f64::INFINITY,
                "delta_abtts_per_block",
            ),
        ] {
            match bad(f) {
                ModelError::OutOfRange { name: n, .. } => assert_eq!(n, name),
                e => panic!("{name}: {e:?}"),
            }
        }
        let mut p = ok;
        p.p_c = 0.0;
        assert!(p.td_only_pps().is_err());
        // TD-only does not need δ, T0, L.
        let mut p = ok;
        p.block_packets = 0.0;
        assert!(p.td_only_pps().is_ok());
        assert!(a_wk(0.0, 4, 0).is_err());
        assert!(a_wk(0.1, 0, 0).is_err());
        let msg = bad(&|p| p.p_c = 0.0).to_string();
        assert!(msg.contains("p_c") && msg.contains("(0, 1]"), "{msg}");
    }

    #[test]
    fn finite_over_a_grid() {
        for n in [1, 2, 3, 4, 8, 64, 1024] {
            for p_c in [1e-9, 1e-4, 0.01, 0.3, 1.0] {
                for p_r in [1e-9, 1e-3, 0.05, 0.5, 1.0] {
                    let m = params(n, p_c, p_r, 1.0, 100e-6, 0.2, 256.0 * n as f64)
                        .evaluate()
                        .unwrap();
                    for x in [m.td_only_pps, m.full_pps, m.split_pps, m.q_full, m.q_split] {
                        assert!(
                            x.is_finite() && x >= 0.0,
                            "n={n} p_c={p_c} p_r={p_r}: {m:?}"
                        );
                    }
                    assert!(m.full_pps > 0.0 && m.split_pps > 0.0);
                }
            }
        }
    }
}
