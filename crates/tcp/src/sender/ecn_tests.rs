//! Hand-worked traces of the ECN reaction (RFC 3168 §6.1.2) and DCTCP (RFC 8257 §3.3), and of
//! the recovery state in the controller-independent state view. SMSS = 1000 B; one ACK per
//! segment; times in microseconds.

use super::*;
use crate::cc::{Dctcp, NewReno};
use crate::rtt::RtoConfig;
use crate::segment::SendCause;

fn config(ecn: bool) -> SenderConfig {
    SenderConfig {
        smss: 1000,
        initial_cwnd_segments: 10,
        dupack_threshold: 3,
        limited_transmit: false,
        rto: RtoConfig {
            min: Duration::from_ms(200),
            max: Duration::from_secs(60),
            initial: Duration::from_ms(200),
            granularity: Duration::from_us(1),
        },
        rtt_sampling: RttSampling::Timestamps,
        recovery_exit: RecoveryExit::Ssthresh,
        slow_start_after_idle: false,
        ecn,
        sack: false,
        rack: false,
        tlp: false,
        prr: false,
    }
}

fn us(t: u64) -> Time {
    Time(t * 1_000_000)
}

/// An ACK of `ackno` at `t` us, with or without ECE; returns the (seq, CWR set) sent in response.
fn ack(s: &mut TcpSender, t: u64, ackno: u64, ece: bool) -> Vec<(u64, bool)> {
    let mut out = Vec::new();
    let mut info = AckInfo::plain(ackno, 1 << 20, us(t.saturating_sub(100)).0);
    info.ece = ece;
    s.on_ack(us(t), &info, &mut out);
    let cwr = incastsim_core::packet::flags::CWR;
    out.iter().map(|g| (g.seq, g.flags & cwr != 0)).collect()
}

fn dctcp_alpha(s: &TcpSender) -> (f64, f64) {
    let st = s.cc_state();
    (st.dctcp_alpha.unwrap(), st.dctcp_alpha_mean.unwrap())
}

#[test]
fn dctcp_trace_no_growth_on_ece_one_reduction_per_window_alpha_once_per_window() {
    // g = 1/16, α starts at 1 (RFC 8257 §3.3: "DCTCP.Alpha ... initialized to 1").
    let mut s = TcpSender::new(
        0,
        config(true),
        Cc::Dctcp(Dctcp::new(1.0 / 16.0, 1.0)),
        StandardTcp,
    );
    let mut out = Vec::new();
    s.write(us(0), 100_000, &mut out);
    assert_eq!(out.len(), 10, "IW = 10 segments, 0..10000");

    // ACK 1000 with ECE. Estimator first (steps 1-7): the ACK passes WindowEnd = 0, so the
    // first observation window closes with M = 1000/1000: α = 15/16 · 1 + 1/16 · 1 = 1, and
    // WindowEnd = SND.NXT = 10000. Then the reaction (step 8): cwnd = 10000 (1 − 1/2) = 5000
    // (no slow-start growth first: RFC 3168 §6.1.2). 9000 in flight > 5000: nothing is sent.
    assert!(ack(&mut s, 100, 1000, true).is_empty());
    assert_eq!((s.w.cwnd, s.w.ssthresh), (5000, 5000));
    assert_eq!(dctcp_alpha(&s), (1.0, 1.0));
    assert_eq!(s.stats.ecn_reductions, 1);

    // Unmarked ACKs 2000..5000: congestion avoidance counts bytes (4000 < cwnd), no growth;
    // flight drops to 5000 = cwnd: still nothing to send.
    for a in 2..=5 {
        assert!(ack(&mut s, 100 + a, a * 1000, false).is_empty());
    }
    assert_eq!(s.w.cwnd, 5000);
    // ACK 6000: 5000 bytes acknowledged = cwnd: cwnd grows to 6000; una 6000 + 6000 releases
    // 10000 and 11000, the first with CWR.
    assert_eq!(
        ack(&mut s, 106, 6000, false),
        vec![(10_000, true), (11_000, false)]
    );
    assert_eq!(s.w.cwnd, 6000);

    // ACK 7000 with ECE: still inside the window outstanding at the reduction (una 7000 <
    // 10000): no second reduction, and no growth either; it releases one segment (12000).
    assert_eq!(ack(&mut s, 107, 7000, true), vec![(12_000, false)]);
    assert_eq!((s.w.cwnd, s.w.ssthresh), (6000, 5000));
    assert_eq!(s.stats.ecn_reductions, 1);
    assert_eq!(dctcp_alpha(&s).0, 1.0, "α moves once per window only");

    // ACKs 8000..10000 each release one segment (13000..15000). ACK 10000 = WindowEnd does
    // not end the window (step 3: SEG.ACK ≤ WindowEnd stops processing).
    for a in 8..=10 {
        assert_eq!(ack(&mut s, 100 + a, a * 1000, false).len(), 1);
    }
    assert_eq!(dctcp_alpha(&s).0, 1.0);
    // ACK 11000 ends it: 10 ACKs of 1000 B since the last update, one marked: M = 0.1,
    // α = 15/16 + 0.1/16 = 0.94375; WindowEnd = SND.NXT = 16000 (before this ACK sends 16000).
    assert_eq!(ack(&mut s, 111, 11_000, false), vec![(16_000, false)]);
    let (alpha, mean) = dctcp_alpha(&s);
    assert!((alpha - 0.94375).abs() < 1e-12, "{alpha}");
    assert!(
        (mean - (1.0 + 0.94375) / 2.0).abs() < 1e-12,
        "mean over two updates: {mean}"
    );

    // ECE on ACK 12000: the window of the last reduction (up to 10000) is acknowledged, so
    // DCTCP reduces again with the new α: cwnd = 6000 (1 − 0.94375/2) = 3168.75 → 3168 bytes;
    // 17000 − 12000 in flight: nothing sent. (12000 ≤ WindowEnd: α does not move.)
    let cwnd_before = s.w.cwnd;
    assert_eq!(
        cwnd_before, 6000,
        "ACKs 7000..11000 were 4000 unmarked bytes < cwnd"
    );
    assert!(ack(&mut s, 112, 12_000, true).is_empty());
    assert_eq!((s.w.cwnd, s.w.ssthresh), (3168, 3168));
    assert_eq!(s.stats.ecn_reductions, 2);
    assert!((dctcp_alpha(&s).0 - 0.94375).abs() < 1e-12);
}

#[test]
fn an_ece_ack_in_slow_start_neither_grows_nor_sends_before_the_reduction() {
    // NewReno with ECN, slow start. Before the fix the ACK first grew cwnd to 11 segments,
    // sent two segments, and then halved from FlightSize 11000.
    let mut s = TcpSender::new(
        0,
        config(true),
        Cc::NewReno(NewReno::default()),
        StandardTcp,
    );
    s.write(us(0), 100_000, &mut Vec::new());
    // Unmarked ACK: slow start, +1 SMSS, two segments out.
    assert_eq!(ack(&mut s, 100, 1000, false).len(), 2);
    assert_eq!(s.w.cwnd, 11_000);
    // Marked ACK: FlightSize 12000 − 2000 = 10000 → ssthresh = cwnd = 5000, nothing sent.
    assert!(ack(&mut s, 101, 2000, true).is_empty());
    assert_eq!((s.w.cwnd, s.w.ssthresh), (5000, 5000));
}

#[test]
fn a_loss_in_the_window_an_ecn_reduction_answered_does_not_reduce_again() {
    // RFC 3168 §6.1.2: one reduction per window for dropped and CE packets together.
    let mut s = TcpSender::new(
        0,
        config(true),
        Cc::NewReno(NewReno::default()),
        StandardTcp,
    );
    s.write(us(0), 100_000, &mut Vec::new());
    // ECE on ACK 1000: FlightSize 9000 → ssthresh = cwnd = 4500; ecn_recover = 10000.
    ack(&mut s, 100, 1000, true);
    assert_eq!((s.w.cwnd, s.w.ssthresh), (4500, 4500));
    ack(&mut s, 101, 2000, false);
    // 2000 is lost: three duplicate ACKs. Without the rule ssthresh would be FlightSize/2 =
    // 8000/2 = 4000; within the same window it stays 4500, cwnd = 4500 + 3 SMSS.
    ack(&mut s, 102, 2000, false);
    ack(&mut s, 103, 2000, false);
    let mut out = Vec::new();
    s.on_ack(us(104), &AckInfo::plain(2000, 1 << 20, 0), &mut out);
    assert_eq!(out[0].seq, 2000);
    assert_eq!(out[0].cause, SendCause::FastRetransmit);
    assert_eq!((s.w.ssthresh, s.w.cwnd), (4500, 7500));
    assert_eq!(s.recovery_state(), RecoveryState::FastRecovery);
}

#[test]
fn a_loss_after_the_ecn_window_reduces_as_usual() {
    let mut s = TcpSender::new(
        0,
        config(true),
        Cc::NewReno(NewReno::default()),
        StandardTcp,
    );
    s.write(us(0), 100_000, &mut Vec::new());
    ack(&mut s, 100, 1000, true); // cwnd 4500, ecn_recover 10000
    for a in 2..=11 {
        ack(&mut s, 100 + a, a * 1000, false);
    }
    assert!(s.snd_una >= s.ecn_recover);
    let flight = s.snd_nxt - s.snd_una;
    for t in 0..3 {
        ack(&mut s, 120 + t, 11_000, false);
    }
    assert_eq!(s.w.ssthresh, (flight / 2).max(2000));
}

#[test]
fn the_state_view_reports_the_recovery_state() {
    let mut s = TcpSender::new(
        0,
        config(false),
        Cc::NewReno(NewReno::default()),
        StandardTcp,
    );
    s.write(us(0), 20_000, &mut Vec::new());
    assert_eq!(s.cc_state().recovery, RecoveryState::Open);
    // 0 lost: three duplicate ACKs → fast recovery; the full ACK (10000) ends it.
    for t in 0..3 {
        ack(&mut s, 100 + t, 0, false);
    }
    assert_eq!(s.cc_state().recovery, RecoveryState::FastRecovery);
    ack(&mut s, 200, 10_000, false);
    assert_eq!(s.cc_state().recovery, RecoveryState::Open);
    // Everything outstanding is lost: the timer fires; RTO recovery until all of it that was
    // outstanding at the timeout (snd_max then) is acknowledged.
    let deadline = s.rto_deadline().unwrap();
    let high = s.snd_max;
    s.on_timeout(deadline, &mut Vec::new());
    assert_eq!(s.cc_state().recovery, RecoveryState::RtoRecovery);
    let t = deadline.0 / 1_000_000 + 100;
    ack(&mut s, t, high - 1000, false);
    assert_eq!(s.cc_state().recovery, RecoveryState::RtoRecovery);
    ack(&mut s, t + 1, high, false);
    assert_eq!(s.cc_state().recovery, RecoveryState::Open);
    // The same field whatever the controller: a scheme's view sees it too.
    assert_eq!(s.view(us(t + 2)).cc.recovery, RecoveryState::Open);
}
