//! Hand-worked traces of the sender, driven at explicit times (smoltcp-style).
//! SMSS = 1000 B throughout; sequence numbers are byte offsets.

use crate::*;
use incastsim_core::{Duration, Time};

fn config(initial_cwnd: u32, limited_transmit: bool) -> SenderConfig {
    SenderConfig {
        smss: 1000,
        initial_cwnd_segments: initial_cwnd,
        dupack_threshold: 3,
        limited_transmit,
        rto: RtoConfig {
            min: Duration::from_ms(200),
            max: Duration::from_secs(60),
            initial: Duration::from_ms(200),
            granularity: Duration::from_us(1),
        },
        rtt_sampling: RttSampling::Timestamps,
        recovery_exit: RecoveryExit::Ssthresh,
        slow_start_after_idle: false,
        ecn: false,
        sack: false,
        rack: false,
        tlp: false,
        prr: false,
    }
}

fn sender(initial_cwnd: u32, limited_transmit: bool) -> TcpSender {
    TcpSender::new(
        0,
        config(initial_cwnd, limited_transmit),
        Cc::NewReno(NewReno::default()),
        StandardTcp,
    )
}

fn us(t: u64) -> Time {
    Time(t * 1_000_000)
}

/// Delivers a cumulative ACK at `t` microseconds (echoing a segment sent 100 us earlier);
/// returns the (seq, cause) of the segments sent in response.
fn ack(s: &mut TcpSender, t: u64, ackno: u64) -> Vec<(u64, SendCause)> {
    let mut out = Vec::new();
    let echo = us(t.saturating_sub(100)).0;
    let info = AckInfo::plain(ackno, 1_000_000, echo);
    s.on_ack(us(t), &info, &mut out);
    out.iter().map(|g| (g.seq, g.cause)).collect()
}

fn write(s: &mut TcpSender, t: u64, bytes: u64) -> Vec<u64> {
    let mut out = Vec::new();
    s.write(us(t), bytes, &mut out);
    out.iter().map(|g| g.seq).collect()
}

#[test]
fn initial_window_is_sent_at_once() {
    let mut s = sender(2, true);
    assert_eq!(write(&mut s, 0, 10_000), vec![0, 1000]);
    // Slow start: each ACK of one SMSS grows cwnd by one SMSS and releases two segments.
    assert_eq!(ack(&mut s, 100, 1000).len(), 2);
    assert_eq!(s.window().cwnd, 3000);
}

#[test]
fn one_loss_in_a_window_of_ten_gives_one_fast_retransmit_and_halves_cwnd() {
    let mut s = sender(10, false);
    assert_eq!(write(&mut s, 0, 20_000).len(), 10);
    // Segment 0 is lost; segments 1..9 each produce a duplicate ACK for 0.
    assert!(ack(&mut s, 100, 0).is_empty());
    assert!(ack(&mut s, 101, 0).is_empty());
    let sent = ack(&mut s, 102, 0);
    assert_eq!(sent, vec![(0, SendCause::FastRetransmit)]);
    // RFC 5681 eq. (4): ssthresh = max(FlightSize/2, 2*SMSS) = 5000; cwnd = ssthresh + 3*SMSS.
    assert_eq!(s.window().ssthresh, 5000);
    assert_eq!(s.window().cwnd, 8000);
    assert!(s.in_recovery());
    // Dupacks 4..9 inflate cwnd by one SMSS each; new data goes out once cwnd exceeds flight.
    let mut new = Vec::new();
    for t in 103..109 {
        new.extend(ack(&mut s, t, 0));
    }
    assert_eq!(s.window().cwnd, 14_000);
    assert_eq!(
        new.iter().map(|x| x.0).collect::<Vec<_>>(),
        vec![10_000, 11_000, 12_000, 13_000]
    );
    // The retransmission fills the hole: a full ACK (>= recover = 10000) ends recovery with
    // cwnd = ssthresh.
    let after = ack(&mut s, 200, 10_000);
    assert!(!s.in_recovery());
    assert_eq!(s.window().cwnd, 5000);
    assert_eq!(
        after,
        vec![(14_000, SendCause::New)],
        "flight 4000 < cwnd 5000: one more"
    );
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.stats().timeouts, 0);
    assert_eq!(s.stats().retransmitted_segments, 1);
}

#[test]
fn partial_ack_retransmits_the_next_hole_and_full_ack_exits() {
    let mut s = sender(10, false);
    write(&mut s, 0, 20_000);
    // Segments 0 and 5 are lost: eight duplicate ACKs for 0.
    let mut sent = Vec::new();
    for t in 100..108 {
        sent.extend(ack(&mut s, t, 0));
    }
    assert_eq!(sent[0], (0, SendCause::FastRetransmit));
    assert_eq!(s.window().cwnd, 13_000); // 5000 + 3000 + 5 * 1000
    assert_eq!(s.snd_nxt(), 13_000);
    // The retransmission of 0 arrives: ACK 5000 is partial (recover = 10000).
    let sent = ack(&mut s, 200, 5000);
    assert_eq!(
        sent[0],
        (5000, SendCause::PartialAck),
        "retransmit the next hole at once"
    );
    assert!(s.in_recovery());
    // Deflate by 5000 acknowledged, add back one SMSS: 13000 - 5000 + 1000.
    assert_eq!(s.window().cwnd, 9000);
    assert_eq!(&sent[1..], &[(13_000, SendCause::New)]);
    // The second retransmission arrives: everything up to 14000 is acknowledged: full ACK.
    ack(&mut s, 300, 14_000);
    assert!(!s.in_recovery());
    assert_eq!(s.window().cwnd, s.window().ssthresh);
    assert_eq!(
        s.stats().fast_retransmits,
        1,
        "one recovery episode, not two"
    );
    assert_eq!(s.stats().partial_ack_retransmits, 1);
    assert_eq!(s.stats().timeouts, 0);
}

#[test]
fn limited_transmit_sends_new_data_on_the_first_two_dupacks() {
    let mut s = sender(4, true);
    write(&mut s, 0, 20_000);
    assert_eq!(
        ack(&mut s, 100, 0),
        vec![(4000, SendCause::LimitedTransmit)]
    );
    assert_eq!(
        ack(&mut s, 101, 0),
        vec![(5000, SendCause::LimitedTransmit)]
    );
    assert_eq!(
        s.window().cwnd,
        4000,
        "limited transmit does not change cwnd"
    );
    // Third dupack: fast retransmit, with FlightSize = 6000 (including the two new segments).
    assert_eq!(ack(&mut s, 102, 0)[0], (0, SendCause::FastRetransmit));
    assert_eq!(s.window().ssthresh, 3000);
    // Without limited transmit, the first two dupacks send nothing.
    let mut s = sender(4, false);
    write(&mut s, 0, 20_000);
    assert!(ack(&mut s, 100, 0).is_empty());
    assert!(ack(&mut s, 101, 0).is_empty());
}

#[test]
fn rto_fires_at_rto_min_doubles_and_resets_on_new_ack() {
    let mut s = sender(2, true);
    write(&mut s, 0, 10_000);
    // No RTT sample yet: the timer runs for the initial RTO = RTO_min = 200 ms.
    assert_eq!(s.rto_deadline(), Some(us(200_000)));
    let mut out = Vec::new();
    s.on_timeout(us(200_000), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].seq, out[0].cause), (0, SendCause::Timeout));
    assert_eq!(s.window().cwnd, 1000, "cwnd = one segment after a timeout");
    assert_eq!(s.window().ssthresh, 2000, "max(FlightSize/2, 2*SMSS)");
    assert_eq!(s.rto_deadline(), Some(us(600_000)), "backed off to 400 ms");
    out.clear();
    s.on_timeout(us(600_000), &mut out);
    assert_eq!(
        s.rto_deadline(),
        Some(us(1_400_000)),
        "backed off to 800 ms"
    );
    assert_eq!(s.successive_timeouts(), 2);
    // A new ACK ends the backoff: the next timer uses the un-backed-off RTO again.
    ack(&mut s, 1_400_100, 1000);
    assert_eq!(s.armed_rto(), Duration::from_ms(200));
    assert_eq!(
        s.stats().successive_timeouts[1],
        1,
        "one episode of two timeouts in a row"
    );
    assert_eq!(s.stats().timeouts, 2);
}

#[test]
fn timeout_goes_back_n_and_slow_starts() {
    let mut s = sender(4, false);
    write(&mut s, 0, 10_000);
    let mut out = Vec::new();
    s.on_timeout(us(200_000), &mut out);
    assert_eq!(s.snd_nxt(), 1000);
    // ACK of the retransmission: slow start from one segment resends 1000 and 2000.
    let sent = ack(&mut s, 200_100, 1000);
    assert_eq!(
        sent,
        vec![(1000, SendCause::GoBackN), (2000, SendCause::GoBackN)]
    );
    // Duplicate ACKs below `recover` do not trigger a fast retransmit after a timeout.
    for t in 0..3 {
        assert!(
            ack(&mut s, 200_200 + t, 1000)
                .iter()
                .all(|x| x.1 != SendCause::FastRetransmit)
        );
    }
}

#[test]
fn timer_stops_when_everything_is_acked() {
    let mut s = sender(2, true);
    write(&mut s, 0, 2000);
    ack(&mut s, 100, 2000);
    assert_eq!(s.rto_deadline(), None);
    assert!(s.all_acked());
}

#[test]
fn rtt_samples_feed_the_estimator() {
    let mut s = TcpSender::new(
        0,
        SenderConfig {
            rto: RtoConfig {
                min: Duration::from_us(1),
                ..config(2, true).rto
            },
            ..config(2, true)
        },
        Cc::NewReno(NewReno::default()),
        StandardTcp,
    );
    write(&mut s, 0, 10_000);
    let mut out = Vec::new();
    s.on_ack(us(100), &AckInfo::plain(1000, 1 << 20, 0), &mut out);
    assert_eq!(s.rtt().srtt(), Some(Duration::from_us(100)));
    assert_eq!(s.armed_rto(), Duration::from_us(300));
}

/// Runs a sender and a receiver in lock-step round trips: every segment sent in a round reaches
/// the receiver (except first transmissions listed in `lost`), and every ACK comes back before
/// the next round. Returns snd_una after each round and the sender's statistics.
fn round_trips(sack: bool, lost: &[u64], rounds: usize) -> (Vec<u64>, SenderStats) {
    let cfg = SenderConfig {
        sack,
        ..config(10, false)
    };
    let mut s = TcpSender::new(0, cfg, Cc::NewReno(NewReno::default()), StandardTcp);
    let rcfg = ReceiverConfig {
        window_bytes: 1 << 20,
        delayed_ack: None,
        ecn: EcnFeedback::Off,
        sack,
        dsack: false,
    };
    let mut r = TcpReceiver::new(rcfg, StandardTcp);
    let mut segs = Vec::new();
    s.write(us(0), 20_000, &mut segs);
    let mut dropped = std::collections::HashSet::new();
    let mut una = Vec::new();
    for round in 1..=rounds as u64 {
        let t = us(100 * round);
        let mut acks = Vec::new();
        for g in &segs {
            if lost.contains(&g.seq) && dropped.insert(g.seq) {
                continue;
            }
            r.on_segment(t, g.seq, g.len, t.0, g.flags, false, &mut acks);
        }
        let mut next = Vec::new();
        for a in &acks {
            let info = AckInfo {
                ack: a.ack,
                window: a.window as u64,
                ts_echo_ps: a.ts_echo_ps,
                ece: a.ece,
                sack_blocks: a.sack_blocks,
                sack_count: a.sack_count,
                flags: a.flags,
            };
            s.on_ack(t, &info, &mut next);
        }
        una.push(s.snd_una());
        segs = next;
    }
    (una, *s.stats())
}

#[test]
fn sack_repairs_two_holes_in_one_recovery_round() {
    // Segments 2000 and 6000 of the first window of ten are lost.
    let (una, st) = round_trips(true, &[2000, 6000], 4);
    assert_eq!(st.fast_retransmits, 1, "one recovery episode");
    assert_eq!(
        st.sack_retransmits, 1,
        "the second hole is retransmitted in the same round"
    );
    assert!(
        una[1] >= 10_000,
        "both holes repaired one round after detection: {una:?}"
    );
    assert_eq!(st.timeouts, 0);
}

#[test]
fn newreno_needs_one_round_trip_per_hole() {
    let (una, st) = round_trips(false, &[2000, 6000], 4);
    assert_eq!(st.fast_retransmits, 1);
    assert_eq!(st.partial_ack_retransmits, 1);
    assert_eq!(
        una[1], 6000,
        "the partial ACK exposes the second hole only now: {una:?}"
    );
    assert!(una[2] >= 10_000, "repaired one round later: {una:?}");
}

#[test]
fn sack_retransmissions_skip_sacked_data_after_a_timeout() {
    let cfg = SenderConfig {
        sack: true,
        ..config(4, false)
    };
    let mut s = TcpSender::new(0, cfg, Cc::NewReno(NewReno::default()), StandardTcp);
    write(&mut s, 0, 10_000);
    // The receiver holds 1000..3000; only 0..1000 is missing when the timer fires.
    let mut info = AckInfo::plain(0, 1 << 20, 0);
    info.sack_blocks[0] = (1000, 3000);
    info.sack_count = 1;
    let mut out = Vec::new();
    s.on_ack(us(50), &info, &mut out);
    out.clear();
    s.on_timeout(us(200_000), &mut out);
    assert_eq!((out[0].seq, out[0].len), (0, 1000));
    out.clear();
    s.on_ack(
        us(200_100),
        &AckInfo::plain(1000, 1 << 20, us(200_000).0),
        &mut out,
    );
    // Go-back-N resumes at 3000: 1000..3000 is SACKed and not sent again.
    assert_eq!(out.first().map(|g| g.seq), Some(3000), "{out:?}");
}

#[test]
fn ecn_echo_halves_once_per_window_and_sets_cwr() {
    let cfg = SenderConfig {
        ecn: true,
        ..config(10, false)
    };
    let mut s = TcpSender::new(0, cfg, Cc::NewReno(NewReno::default()), StandardTcp);
    let mut out = Vec::new();
    s.write(us(0), 100_000, &mut out);
    assert!(out.iter().all(|g| g.ect), "new data is ECN-capable");
    let mut ece = AckInfo::plain(1000, 1 << 20, 0);
    ece.ece = true;
    out.clear();
    s.on_ack(us(100), &ece, &mut out);
    assert_eq!(s.stats().ecn_reductions, 1);
    // RFC 3168 §6.1.2: the ACK carrying ECE does not grow cwnd (slow start would have made it
    // 11 segments), and the reduction comes before sending: FlightSize is 10000 − 1000 = 9000,
    // ssthresh = cwnd = 4500, and nothing is released (9000 in flight > 4500).
    assert_eq!(s.window().cwnd, 4500, "max(FlightSize/2, 2 SMSS)");
    assert!(out.is_empty(), "{out:?}");
    // A second ECE in the same window is ignored.
    ece.ack = 2000;
    s.on_ack(us(101), &ece, &mut out);
    assert_eq!(s.stats().ecn_reductions, 1);
    // The first new segment sent after the reduction carries CWR (once).
    out.clear();
    s.on_ack(us(102), &AckInfo::plain(7000, 1 << 20, 0), &mut out);
    let cwr = incastsim_core::packet::flags::CWR;
    assert!(!out.is_empty());
    assert!(out[0].flags & cwr != 0, "{out:?}");
    assert!(out[1..].iter().all(|g| g.flags & cwr == 0));
}

#[test]
fn cc_state_exposes_dctcp_alpha_and_it_moves_after_an_ece_round() {
    let cfg = SenderConfig {
        ecn: true,
        ..config(10, false)
    };
    let dctcp = Cc::Dctcp(Dctcp::new(1.0 / 16.0, 0.0));
    let mut s = TcpSender::new(0, cfg, dctcp, StandardTcp);
    let mut out = Vec::new();
    s.write(us(0), 100_000, &mut out);
    let st = s.cc_state();
    assert_eq!((st.dctcp_alpha, st.cubic), (Some(0.0), None));
    // A round of ACKs, every one ECN-echoed. The first closes DCTCP's first observation window
    // (all of it marked: F = 1, α = g); the rest fill the next, which ends at snd_nxt = 10000.
    for i in 1..=10 {
        let mut a = AckInfo::plain(i * 1000, 1 << 20, 0);
        a.ece = true;
        s.on_ack(us(100 + i), &a, &mut out);
    }
    let st = s.cc_state();
    assert_eq!(st.dctcp_alpha, Some(1.0 / 16.0));
    assert_eq!(s.view(us(200)).cc, st, "hooks see the same state");
    let w = s.window();
    assert_eq!((st.cwnd_bytes, st.ssthresh_bytes), (w.cwnd, w.ssthresh));
}
