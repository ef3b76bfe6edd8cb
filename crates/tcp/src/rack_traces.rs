//! RACK-TLP (RFC 8985) and PRR (RFC 6937) traces on a sender and receiver joined by a
//! hand-built path: 1 us serialization per data segment, 50 us each way (RTT ≈ 101 us), losses
//! and extra delays chosen per (segment, transmission). RTO_min is 200 ms, so any RTO shows.

use crate::*;
use incastsim_core::{Duration, Time};
use std::collections::BTreeMap;

const ONE_WAY: Duration = Duration::from_us(50);
const SERIAL: Duration = Duration::from_us(1);

fn sender_cfg(rack: bool, tlp: bool, prr: bool, sack: bool) -> SenderConfig {
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
        ecn: false,
        sack,
        rack,
        tlp,
        prr,
    }
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Data(Segment, u64),
    Ack(AckOut),
}

/// What happened: each segment the sender sent, when, and the sender at the end.
struct Trace {
    sent: Vec<(Time, Segment)>,
    sender: TcpSender,
    done_at: Option<Time>,
}

/// Runs `bytes` through the path. `fate(seq, k)` for the k-th transmission (0-based) of the
/// segment at `seq` returns `None` (lost) or `Some(extra delay)`.
fn run(
    cfg: SenderConfig,
    dsack: bool,
    bytes: u64,
    mut fate: impl FnMut(u64, u32) -> Option<Duration>,
) -> Trace {
    let mut s = TcpSender::new(0, cfg, Cc::NewReno(NewReno::default()), StandardTcp);
    let mut r = TcpReceiver::new(
        ReceiverConfig {
            window_bytes: 1 << 20,
            delayed_ack: None,
            ecn: EcnFeedback::Off,
            sack: cfg.sack,
            dsack,
        },
        StandardTcp,
    );
    let mut events: BTreeMap<(Time, u64), Ev> = BTreeMap::new();
    let mut order = 0u64;
    let mut link_free = Time::ZERO;
    let mut count: BTreeMap<u64, u32> = BTreeMap::new();
    let mut trace = Vec::new();
    let mut out = Vec::new();
    let mut acks = Vec::new();
    let mut now = Time::ZERO;
    s.write(now, bytes, &mut out);
    let mut done_at = None;
    for _ in 0..100_000 {
        for seg in out.drain(..) {
            trace.push((now, seg));
            let k = count.entry(seg.seq).or_default();
            let f = fate(seg.seq, *k);
            *k += 1;
            link_free = link_free.max(now) + SERIAL;
            if let Some(extra) = f {
                order += 1;
                events.insert((link_free + ONE_WAY + extra, order), Ev::Data(seg, now.0));
            }
        }
        if s.all_acked() {
            done_at = Some(now);
            break;
        }
        let next_event = events.keys().next().map(|k| k.0);
        let timer = s.timer_deadline();
        match (next_event, timer) {
            (_, Some(t)) if next_event.is_none_or(|e| t < e) => {
                now = t;
                s.on_timer(now, &mut out);
            }
            (Some(_), _) => {
                let ((t, _), ev) = events.pop_first().unwrap();
                now = t;
                match ev {
                    Ev::Data(seg, ts) => {
                        acks.clear();
                        r.on_segment(now, seg.seq, seg.len, ts, 0, false, &mut acks);
                        for &a in &acks {
                            order += 1;
                            events.insert((now + ONE_WAY, order), Ev::Ack(a));
                        }
                    }
                    Ev::Ack(a) => {
                        let mut info = AckInfo::plain(a.ack, a.window as u64, a.ts_echo_ps);
                        info.sack_blocks = a.sack_blocks;
                        info.sack_count = a.sack_count;
                        s.on_ack(now, &info, &mut out);
                    }
                }
            }
            (None, None) => break,
            _ => unreachable!(),
        }
    }
    Trace {
        sent: trace,
        sender: s,
        done_at,
    }
}

fn transmissions_of(t: &Trace, seq: u64) -> Vec<(Time, SendCause)> {
    t.sent
        .iter()
        .filter(|(_, g)| g.seq == seq)
        .map(|&(at, g)| (at, g.cause))
        .collect()
}

/// RFC 8985 §6: segment 2000 is lost, and so is its fast retransmission. Segments sent after
/// the retransmission are SACKed about one RTT later, so RACK marks it lost again and resends
/// it then; RFC 6675 alone has no rule for it and waits for the 200 ms RTO.
#[test]
fn a_lost_retransmission_is_resent_after_about_one_rtt_not_an_rto() {
    let fate = |seq: u64, k: u32| (!(seq == 2000 && k < 2)).then_some(Duration::ZERO);
    let rack = run(sender_cfg(true, false, false, true), false, 40_000, fate);
    let tx = transmissions_of(&rack, 2000);
    assert_eq!(tx.len(), 3, "original, lost retransmission, repair: {tx:?}");
    let gap = tx[2].0.since(tx[1].0);
    assert!(
        gap >= Duration::from_us(100) && gap <= Duration::from_us(140),
        "resent one RTT (~101 us) after the lost retransmission, not after an RTO: {gap:?}"
    );
    assert_eq!(rack.sender.stats().timeouts, 0);
    assert!(rack.done_at.unwrap() < Time(Duration::from_ms(2).0));

    let plain = run(sender_cfg(false, false, false, true), false, 40_000, fate);
    assert_eq!(
        plain.sender.stats().timeouts,
        1,
        "RFC 6675 alone waits for the RTO"
    );
    assert!(plain.done_at.unwrap() > Time(Duration::from_ms(200).0));
}

/// RFC 8985 §7: the last two segments of a 10-segment flight are lost, so no SACK ever comes.
/// The PTO (2·SRTT) sends the last segment again; its SACK lets RACK mark the other lost, and
/// both are repaired within a few RTTs. Without TLP it takes the RTO.
#[test]
fn a_tail_loss_is_repaired_by_the_probe() {
    let fate = |seq: u64, k: u32| (!(seq >= 8000 && k == 0)).then_some(Duration::ZERO);
    let t = run(sender_cfg(true, true, false, true), false, 10_000, fate);
    assert_eq!(t.sender.stats().loss_probes, 1);
    assert_eq!(t.sender.stats().timeouts, 0);
    let probe = t
        .sent
        .iter()
        .find(|(_, g)| g.cause == SendCause::LossProbe)
        .unwrap();
    assert_eq!(
        probe.1.seq, 9000,
        "no new data: the last segment is the probe"
    );
    // The ACK of segment 7 arrives at ~108 us; PTO = 2 SRTT ≈ 2 × 101..108 us after it.
    let pto_at = probe.0.0 as f64 / 1e6;
    assert!((300.0..340.0).contains(&pto_at), "probe at {pto_at} us");
    let retx: Vec<_> = transmissions_of(&t, 8000);
    assert_eq!(retx.len(), 2);
    assert_eq!(retx[1].1, SendCause::SackRetransmit, "RACK found 8000 lost");
    assert!(t.done_at.unwrap() < Time(Duration::from_us(700).0));

    let no_tlp = run(sender_cfg(true, false, false, true), false, 10_000, fate);
    assert_eq!(no_tlp.sender.stats().timeouts, 1);
}

/// RFC 8985 §6.2: once reordering has been seen, the reordering window (min_RTT/4 ≈ 25 us)
/// absorbs a segment delayed by 10 us although ten segments overtake it: no retransmission.
/// RFC 6675's DupAck threshold retransmits it spuriously.
#[test]
fn mild_reordering_causes_no_spurious_retransmission() {
    // First (segment 1000 overtaken by one segment only: 1.5 us) teaches RACK that the path
    // reorders; later segment 25000 is overtaken by ten segments.
    let fate = |seq: u64, k: u32| {
        Some(match (seq, k) {
            (1000, 0) => Duration::from_ns(1500),
            (25_000, 0) => Duration::from_us(10),
            _ => Duration::ZERO,
        })
    };
    let rack = run(sender_cfg(true, true, false, true), false, 60_000, fate);
    assert!(rack.sender.rack().unwrap().reordering_seen());
    assert_eq!(rack.sender.stats().retransmitted_segments, 0);
    assert_eq!(rack.sender.stats().timeouts, 0);

    let dupthresh = run(sender_cfg(false, false, false, true), false, 60_000, fate);
    assert!(
        dupthresh.sender.stats().retransmitted_segments > 0,
        "three SACKed segments above 25000 make RFC 6675 retransmit it"
    );
}

/// RFC 8985 §6.2 step 4: a D-SACK (the receiver got a segment twice) widens the reordering
/// window: reo_wnd_mult grows.
#[test]
fn a_dsack_widens_the_reordering_window() {
    // Segment 3000 is delayed 400 us: RACK retransmits it (reo_wnd 0 with 3 SACKs and no
    // reordering seen), then the original arrives too and the receiver reports a D-SACK.
    let fate = |seq: u64, k: u32| {
        Some(if (seq, k) == (3000, 0) {
            Duration::from_us(400)
        } else {
            Duration::ZERO
        })
    };
    let t = run(sender_cfg(true, false, false, true), true, 30_000, fate);
    assert_eq!(transmissions_of(&t, 3000).len(), 2);
    assert_eq!(t.sender.rack().unwrap().reo_wnd_mult(), 2);
}

/// A sender with a 20-segment window sent at t = 0 and no limited transmit; `acks` feeds it
/// SACK ACKs for `ack` = 0 that SACK `[1000, end)`, one more segment each. Returns, per ACK,
/// the segments it sent and (cwnd, pipe-relevant) state.
fn twenty_segment_window(prr: bool, lost: &[u64]) -> Vec<Vec<(u64, SendCause)>> {
    let mut s = TcpSender::new(
        0,
        SenderConfig {
            initial_cwnd_segments: 20,
            ..sender_cfg(false, false, prr, true)
        },
        Cc::NewReno(NewReno::default()),
        StandardTcp,
    );
    s.set_peer_window(1 << 20);
    let mut out = Vec::new();
    s.write(Time::ZERO, 40_000, &mut out);
    s.on_ack(
        Time(1),
        &AckInfo::plain(0, 1 << 20, 0),
        &mut Vec::new(), // (no-op: nothing acknowledged)
    );
    let mut c = 0;
    let mut per_ack = Vec::new();
    // The receiver's SACK state: every delivered segment above 0, as one block per run.
    let mut got: Vec<u64> = Vec::new();
    for seg in 1..20u64 {
        if lost.contains(&(seg * 1000)) {
            continue;
        }
        got.push(seg * 1000);
        let mut info = AckInfo::plain(0, 1 << 20, 0);
        // Blocks: the runs of delivered segments, the newest run first (RFC 2018 §4).
        let mut runs: Vec<(u64, u64)> = Vec::new();
        for &g in &got {
            match runs.last_mut() {
                Some(r) if r.1 == g => r.1 = g + 1000,
                _ => runs.push((g, g + 1000)),
            }
        }
        runs.reverse();
        for (i, r) in runs.iter().take(3).enumerate() {
            info.sack_blocks[i] = *r;
        }
        info.sack_count = runs.len().min(3) as u8;
        c += 1;
        out.clear();
        s.on_ack(Time(Duration::from_us(100 + c).0), &info, &mut out);
        per_ack.push(out.iter().map(|g| (g.seq, g.cause)).collect());
    }
    per_ack
}

/// RFC 6937 §5, first example (one loss in a 20-segment window, ssthresh = 10), here without
/// limited transmit. RFC 6675 sends the fast retransmission on the third duplicate ACK, then
/// nothing until pipe falls below ssthresh (ACK 11), then one segment per ACK: half an RTT of
/// silence, then a burst-like catch-up. PRR: prr_delivered counts from the ACK that starts
/// recovery (1 segment at ACK 3), sndcnt = ⌈prr_delivered · 10/20⌉ − prr_out while pipe >
/// ssthresh (the retransmission is forced at ACK 3), so one new segment every other ACK; pipe
/// (17 after R; −1 per ACK, +1 per segment sent) reaches ssthresh at ACK 14 and
/// PRR-SSRB then holds it there, one segment per ACK from ACK 15.
#[test]
fn prr_spreads_the_reduction_over_the_recovery_rfc6937_example_1() {
    let count = |v: &Vec<Vec<(u64, SendCause)>>| v.iter().map(|a| a.len()).collect::<Vec<_>>();
    let rfc6675 = twenty_segment_window(false, &[0]);
    // ACK k (1-based) = index k−1. ACK 3: R. Pipe = 19 − k (+1 for R) < 10 from ACK 11 on.
    assert_eq!(
        count(&rfc6675),
        vec![0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    );
    let prr = twenty_segment_window(true, &[0]);
    assert_eq!(prr[2], vec![(0, SendCause::FastRetransmit)]);
    assert_eq!(
        count(&prr),
        vec![0, 0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1]
    );
    // Both send 10 segments over the recovery (the flight ends at ssthresh = 10), PRR spread
    // over the whole round trip.
    assert_eq!(prr.iter().map(|a| a.len()).sum::<usize>(), 10);
    assert_eq!(rfc6675.iter().map(|a| a.len()).sum::<usize>(), 10);
}

/// RFC 6937 §5, second example (heavy loss): 11 of 20 segments lost, so pipe falls below
/// ssthresh at once; PRR-SSRB then sends at most DeliveredData + 1 SMSS per ACK (slow start)
/// until pipe reaches ssthresh, never a burst of ssthresh − pipe.
#[test]
fn prr_ssrb_rebuilds_the_flight_at_slow_start_pace_rfc6937_example_2() {
    let lost: Vec<u64> = (0..11).map(|i| i * 1000).collect();
    let prr = twenty_segment_window(true, &lost);
    // 9 ACKs. ACK 3 (IsLost(0) from 3 SACKed segments; pipe = 6 < ssthresh 10; prr_delivered
    // = 1 segment): sndcnt = min(10 − 6, max(1 − 0, 1) + 1) = 2. ACK 4: pipe 7,
    // sndcnt = min(3, max(2 − 2, 1) + 1) = 2.
    let counts: Vec<usize> = prr.iter().map(|a| a.len()).collect();
    assert_eq!(counts[..4], [0, 0, 2, 2]);
    // Afterwards each ACK delivers one segment: at most 1 + 1 sent, and pipe stays ≤ ssthresh.
    assert!(counts[3..].iter().all(|&n| n <= 2), "{counts:?}");
    let total: usize = counts.iter().sum();
    assert!((9..=11).contains(&total), "{counts:?}");
}
