//! Hand-worked traces of a sender and a receiver on the test bench (`harness.rs`), and a
//! property test over random losses.
//!
//! Common setting unless a test says otherwise: 100 Gbps NIC, MTU 1000 B, 62 B of headers, so a
//! full packet is 1062 B on the wire and the pacing gap at line rate is 1062 × 80 ps =
//! 84,960 ps; one-way delay 1 µs both ways; one message of 10,000 B = PSNs 0..=9.

use crate::harness::{Bench, telemetry_of};
use crate::{
    AckKind, AckSample, Arrival, Controller, CustomController, RateControl, RateController,
    Recovery, RoceConfig, RoceReceiver, RoceSender, RtoConfig,
};
use incastsim_core::{BitsPerSec, Duration, SerializationRate, Time};
use proptest::prelude::*;

const GAP: u64 = 84_960; // ps: 1062 B at 100 Gbps
const US: u64 = 1_000_000; // ps

fn bench(cfg: RoceConfig, bytes: &[u64]) -> Bench {
    let mut s = RoceSender::new(cfg, BitsPerSec::gbps(100), Controller::default());
    for &b in bytes {
        s.post_message(b);
    }
    Bench::new(s, RoceReceiver::new(&cfg), Duration::from_us(1))
}

fn total_delivered(b: &Bench) -> u64 {
    b.deliveries.iter().map(|d| d.1).sum()
}

/// The pacing gap is exact in picoseconds: 1062 B at 100 Gbps is 84,960 ps (84.96 ns), and at
/// a rate set to 25 Gbps four times that, 339,840 ps.
#[test]
fn pacing_at_line_rate_and_at_a_set_rate() {
    assert_eq!(
        SerializationRate::new(BitsPerSec::gbps(100)).time_for(1062),
        Duration(GAP)
    );
    let mut b = bench(RoceConfig::default(), &[10_000]);
    assert!(b.run(1000));
    let times = b.send_times();
    let expected: Vec<u64> = (0..10).map(|k| k * GAP).collect();
    assert_eq!(times, expected, "back to back at line rate");

    let mut s = RoceSender::new(
        RoceConfig::default(),
        BitsPerSec::gbps(100),
        Controller::default(),
    );
    s.post_message(3_500);
    s.set_rate(BitsPerSec::gbps(25));
    let mut out = Vec::new();
    assert_eq!(s.next_send_time(Time::ZERO), Some(Time::ZERO));
    assert_eq!(s.emit(Time::ZERO, &mut out), 1, "one packet per instant");
    let t1 = s.next_send_time(Time::ZERO).unwrap();
    assert_eq!(t1, Time(4 * GAP));
    assert_eq!(s.emit(Time(t1.0 - 1), &mut out), 0, "not before its time");
    s.emit(t1, &mut out);
    let t2 = s.next_send_time(t1).unwrap();
    assert_eq!(t2, Time(8 * GAP));
    s.emit(t2, &mut out);
    // The last packet carries 500 B: 562 B at 25 Gbps = 562 × 320 ps; nothing is left after.
    s.emit(s.next_send_time(t2).unwrap(), &mut out);
    assert_eq!(
        out.iter()
            .map(|p| (p.psn, p.payload, p.ack_req))
            .collect::<Vec<_>>(),
        [
            (0, 1000, false),
            (1, 1000, false),
            (2, 1000, false),
            (3, 500, true)
        ]
    );
    assert_eq!(s.next_send_time(t2), None, "all sent");
}

/// Go-back-N, PSN 3 lost once. Sends at k × 84.96 ns (PSN 9 at 764.64 ns). The receiver ACKs
/// 0, 1, 2 (ACK epsn 1, 2, 3); PSN 4 arrives at 1 µs + 4 × 84.96 ns = 1,339,840 ps: discarded,
/// NAK(3); 5..=9 discarded silently (one NAK per gap). The NAK reaches the sender at
/// 2,339,840 ps, when everything is sent: it rewinds to 3 and resends 3..=9 from then on,
/// 84,960 ps apart. 10 + 7 = 17 transmissions; every byte delivered once, in order.
#[test]
fn go_back_n_resends_from_the_nak() {
    let mut b = bench(RoceConfig::default(), &[10_000]).lose_first(&[3]);
    assert!(b.run(1000));
    let psns = b.sent_psns();
    assert_eq!(psns, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 3, 4, 5, 6, 7, 8, 9]);
    let resend_start = 2 * US + 4 * GAP;
    assert_eq!(b.sent[10].0, Time(resend_start));
    assert_eq!(b.sent[16].0, Time(resend_start + 6 * GAP));
    assert!(b.sent[10..].iter().all(|s| s.1.retransmit));

    let nacks: Vec<_> = b
        .replies
        .iter()
        .filter(|r| r.1.kind == AckKind::Nack)
        .collect();
    assert_eq!(nacks.len(), 1);
    assert_eq!((nacks[0].0, nacks[0].1.epsn), (Time(US + 4 * GAP), 3));
    assert_eq!(nacks[0].1.sack_psn, None);
    let rs = b.receiver.stats();
    assert_eq!((rs.discarded, rs.nacks_sent, rs.duplicates), (6, 1, 0));
    assert_eq!(total_delivered(&b), 10_000);
    assert_eq!(b.receiver.expected_psn(), 10);

    let ss = *b.sender.stats();
    assert_eq!((ss.packets_sent, ss.retransmitted_packets), (17, 7));
    assert_eq!(
        (ss.nacks_received, ss.timeouts, ss.bytes_acked),
        (1, 0, 10_000)
    );
    assert!(b.sender.all_acked());
    // The last resend (PSN 9 at 2,849,600 ps) is acknowledged one RTT later.
    assert_eq!(b.now, Time(resend_start + 6 * GAP + 2 * US));
}

/// Selective repeat (IRN), PSN 3 lost once. 4..=9 arrive out of order: buffered, each NACKed
/// with (cumulative 3, its own PSN). The first NACK (sack 4) reaches the sender at
/// 2,339,840 ps: PSN 3 is below the highest selectively acknowledged and missing, so it alone
/// is resent; the later NACKs (sack 5..=9) add no loss. PSN 3 arrives at 3,339,840 ps and
/// delivers 3..=9 (7,000 B) at once with an immediate ACK(10). 11 transmissions.
#[test]
fn selective_repeat_resends_only_the_hole() {
    let mut b = bench(RoceConfig::irn(), &[10_000]).lose_first(&[3]);
    assert!(b.run(1000));
    assert_eq!(b.sent_psns(), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 3]);
    assert_eq!(b.sent[10].0, Time(2 * US + 4 * GAP));
    let nacks: Vec<_> = b
        .replies
        .iter()
        .filter(|r| r.1.kind == AckKind::Nack)
        .map(|r| (r.1.epsn, r.1.sack_psn))
        .collect();
    assert_eq!(nacks, (4..10).map(|p| (3, Some(p))).collect::<Vec<_>>());
    let rs = b.receiver.stats();
    assert_eq!((rs.buffered, rs.discarded, rs.duplicates), (6, 0, 0));
    assert_eq!(
        b.deliveries.last(),
        Some(&(Time(3 * US + 4 * GAP), 7_000)),
        "the hole's repair delivers the buffered run"
    );
    assert_eq!(total_delivered(&b), 10_000);
    let ss = *b.sender.stats();
    assert_eq!((ss.packets_sent, ss.retransmitted_packets), (11, 1));
    assert!(b.sender.all_acked() && !b.sender.in_recovery());
    assert_eq!(b.now, Time(4 * US + 4 * GAP));
}

/// The last packet (PSN 9) is lost: no later packet can trigger a NACK. ACK(9) for PSN 8
/// reaches the sender at 8 × 84.96 ns + 2 µs = 2,679,680 ps and restarts the timer (100 µs):
/// it fires at 102,679,680 ps, PSN 9 goes again at once and is acknowledged 2 µs later. Go-back-N
/// with a fixed 100 µs and IRN (one packet in flight < N = 3: RTO_low = 100 µs) agree.
#[test]
fn tail_loss_is_recovered_by_the_timeout() {
    for cfg in [
        RoceConfig {
            rto: RtoConfig::Fixed(Duration::from_us(100)),
            ..RoceConfig::default()
        },
        RoceConfig::irn(),
    ] {
        let mut b = bench(cfg, &[10_000]).lose_first(&[9]);
        assert!(b.run(1000));
        let fire = 8 * GAP + 2 * US + 100 * US;
        assert_eq!(b.timeouts_at, [Time(fire)], "{:?}", cfg.recovery);
        assert_eq!(b.sent_psns(), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9]);
        assert_eq!(b.sent[10].0, Time(fire));
        assert!(b.replies.iter().all(|r| r.1.kind == AckKind::Ack));
        assert_eq!(total_delivered(&b), 10_000);
        assert!(b.sender.all_acked());
        assert_eq!(
            b.sender.rto_deadline(),
            None,
            "nothing outstanding: timer stopped"
        );
        assert_eq!(b.now, Time(fire + 2 * US));
    }
}

/// IRN's RTO_high: PSNs 7, 8, 9 lost, so ACK(7) (for PSN 6, at 6 × 84.96 ns + 2 µs =
/// 2,509,760 ps) leaves 3 packets in flight (not below N = 3): the timer is RTO_high = 320 µs.
/// The timeout resends 7, 8, 9 (nothing was selectively acknowledged).
#[test]
fn irn_uses_rto_high_with_many_packets_in_flight() {
    let mut b = bench(RoceConfig::irn(), &[10_000]).lose_first(&[7, 8, 9]);
    assert!(b.run(1000));
    let fire = 6 * GAP + 2 * US + 320 * US;
    assert_eq!(b.timeouts_at, [Time(fire)]);
    assert_eq!(b.sent_psns()[10..], [7, 8, 9]);
    assert_eq!(b.send_times()[10..], [fire, fire + GAP, fire + 2 * GAP]);
    assert_eq!(total_delivered(&b), 10_000);
}

/// ACK coalescing, `ack_every` = 4, 10 packets, no loss. The rule: ACK when 4 in-order packets
/// arrived since the last ACK, or the packet carries AckReq (the last of its message, IBTA
/// vol. 1 §9.2). So ACKs after PSN 3 (epsn 4), PSN 7 (epsn 8) and PSN 9 (the last, epsn 10):
/// 3 ACKs. With two messages of 3 and 7 packets the AckReq of PSN 2 restarts the count:
/// ACKs after PSN 2, 6 and 9, again 3.
#[test]
fn ack_every_four_and_the_last_packet() {
    let cfg = RoceConfig {
        ack_every: 4,
        ..RoceConfig::default()
    };
    let mut b = bench(cfg, &[10_000]);
    assert!(b.run(1000));
    let epsns: Vec<u64> = b.replies.iter().map(|r| r.1.epsn).collect();
    assert_eq!(epsns, [4, 8, 10]);
    // Each ACK echoes the send time and telemetry of the packet that triggered it.
    assert_eq!(b.replies[0].1.echo_sent_at, Time(3 * GAP));
    assert_eq!(b.replies[0].1.telemetry, telemetry_of(3));
    assert!(b.sender.all_acked());

    let mut b = bench(cfg, &[3_000, 7_000]);
    assert!(b.run(1000));
    let epsns: Vec<u64> = b.replies.iter().map(|r| r.1.epsn).collect();
    assert_eq!(epsns, [3, 7, 10]);
    assert_eq!(b.sender.stats().messages_completed, 2);
}

/// ACK coalescing behind a window: `ack_every` = 4, a window of 3 packets (3,000 B), 10
/// packets, 1 µs each way, no loss. PSN 2 fills the window with PSNs 3-9 still to send, so it
/// carries AckReq and is acknowledged at once (epsn 3); each ACK opens the window by what it
/// covers, so every third packet asks again: ACKs at epsn 3, 6, 9 and 10 (the last packet), no
/// timeout. Without the AckReq the responder would wait for a fourth packet the window holds
/// back, and the QP would sit until its timer fired.
#[test]
fn a_full_window_asks_for_an_ack_at_once() {
    let cfg = RoceConfig {
        ack_every: 4,
        window_bytes: Some(3_000),
        ..RoceConfig::default()
    };
    let mut b = bench(cfg, &[10_000]);
    assert!(b.run(1000));
    let epsns: Vec<u64> = b.replies.iter().map(|r| r.1.epsn).collect();
    assert_eq!(epsns, [3, 6, 9, 10]);
    let asked: Vec<u64> = b
        .sent
        .iter()
        .filter(|s| s.1.ack_req)
        .map(|s| s.1.psn)
        .collect();
    assert_eq!(asked, [2, 5, 8, 9]);
    assert!(b.timeouts_at.is_empty());
    assert!(b.sender.all_acked());
    // Without a window only the last packet asks.
    let mut b = bench(
        RoceConfig {
            window_bytes: None,
            ..cfg
        },
        &[10_000],
    );
    assert!(b.run(1000));
    assert_eq!(b.sent.iter().filter(|s| s.1.ack_req).count(), 1);
}

/// The ACK coalescing timer after a window shrinks: `ack_every` = 4, one message of 40
/// packets at line rate, and a controller that sets a 2,000-byte window at the first ACK. That
/// ACK (of PSN 3, at 3 × GAP + 2 µs = 2,254,880 ps) finds PSNs 4-26 in flight (PSN 26 left at
/// 26 × GAP = 2,208,960 ps): the window is closed, and no packet asked for an ACK. The receiver
/// acknowledges PSNs 7, 11, ..., 23 by count; 24, 25 and 26 are three, one short. Without a
/// timer only the retransmission timeout moves the QP on. With `ack_timeout` = 5 µs the timer
/// starts when PSN 24 arrives (24 × GAP + 1 µs = 3,039,040 ps) and acknowledges through PSN 26
/// at 8,039,040 ps, echoing PSN 26's send time and telemetry; the rest goes two packets at a
/// time, each pair's second asking for its ACK.
#[test]
fn the_ack_timer_acknowledges_what_a_shrunk_window_left_behind() {
    #[derive(Clone, Debug, Default)]
    struct ShrinkOnce;
    impl RateController for ShrinkOnce {
        fn on_ack(&mut self, _: &AckSample<'_>, ctl: &mut RateControl) {
            ctl.window_bytes = Some(2_000);
        }
    }
    let run = |ack_timeout: Option<Duration>| {
        let cfg = RoceConfig {
            ack_every: 4,
            ack_timeout,
            ..RoceConfig::default()
        };
        let mut s = RoceSender::new(
            cfg,
            BitsPerSec::gbps(100),
            Controller::Custom(CustomController::new("shrink", ShrinkOnce)),
        );
        s.post_message(40_000);
        let mut b = Bench::new(s, RoceReceiver::new(&cfg), Duration::from_us(1));
        assert!(b.run(100_000));
        assert!(b.sender.all_acked());
        b
    };
    let stalled = run(None);
    assert!(!stalled.timeouts_at.is_empty(), "only the RTO moved it on");
    let b = run(Some(Duration::from_us(5)));
    assert!(b.timeouts_at.is_empty());
    let by_timer = b
        .replies
        .iter()
        .find(|r| r.1.epsn == 27)
        .expect("an ACK through PSN 26");
    assert_eq!(by_timer.0, Time(24 * GAP + US + 5 * US));
    assert_eq!(by_timer.1.echo_sent_at, Time(26 * GAP));
    assert_eq!(by_timer.1.telemetry, telemetry_of(26));
    let epsns: Vec<u64> = b.replies.iter().map(|r| r.1.epsn).collect();
    assert_eq!(
        epsns,
        [4, 8, 12, 16, 20, 24, 27, 29, 31, 33, 35, 37, 39, 40]
    );
}

/// A controller that halves the rate on the first ACK. Until the first ACK (at 2 µs, for PSN 0)
/// packets leave 84,960 ps apart: PSN 23 at 23 × 84,960 = 1,954,080 ps. From then on the rate is
/// 50 Gbps and the gap 169,920 ps, the packet pending at the change included (PSN 24 at
/// 1,954,080 + 169,920 = 2,124,000 ps, as the HPCC fork's `ChangeRate` moves `m_nextAvail`).
#[test]
fn a_custom_controller_halving_the_rate_doubles_the_spacing() {
    #[derive(Clone, Debug, Default)]
    struct HalveOnce {
        done: bool,
        samples: Vec<(Time, Duration, u64, [u64; 3])>,
    }
    impl RateController for HalveOnce {
        fn on_ack(&mut self, s: &AckSample<'_>, ctl: &mut RateControl) {
            self.samples
                .push((s.now, s.rtt, s.acked_bytes, s.telemetry));
            if !self.done {
                self.done = true;
                ctl.rate = BitsPerSec(ctl.rate.0 / 2);
            }
        }
    }
    let cfg = RoceConfig::default();
    let mut s = RoceSender::new(
        cfg,
        BitsPerSec::gbps(100),
        Controller::Custom(CustomController::new("halve", HalveOnce::default())),
    );
    s.post_message(40_000);
    s.set_rate_window(Time(US));
    let mut b = Bench::new(s, RoceReceiver::new(&cfg), Duration::from_us(1));
    assert!(b.run(10_000));
    let t = b.send_times();
    let gaps: Vec<u64> = t.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps[..23].iter().all(|&g| g == GAP), "{gaps:?}");
    assert_eq!(t[24], 2_124_000);
    assert!(gaps[23..].iter().all(|&g| g == 2 * GAP), "{gaps:?}");
    assert_eq!(b.sender.rate(), BitsPerSec::gbps(50));
    let Controller::Custom(c) = b.sender.controller() else {
        unreachable!()
    };
    let h = c.controller.as_any().downcast_ref::<HalveOnce>().unwrap();
    let first = h.samples[0];
    assert_eq!(
        (first.0, first.1, first.2),
        (Time(2 * US), Duration(2 * US), 1000)
    );
    assert_eq!(first.3, telemetry_of(0));
    // The mean rate: 100 Gbps from the first send (0) to the first ACK (2 µs), then 50 Gbps:
    // over 4 µs, (100 × 2 + 50 × 2) / 4 = 75 Gbps.
    assert_eq!(b.sender.mean_rate(Time(4 * US)), Some(BitsPerSec::gbps(75)));
    assert_eq!(b.sender.mean_rate(Time::ZERO), None);
    // From 1 µs: (100 × 1 + 50 × 2) / 3 Gbps.
    assert_eq!(
        b.sender.window_rate(Time(4 * US)),
        Some(BitsPerSec(66_666_666_666))
    );
    assert_eq!(b.sender.window_rate(Time(US)), None);
    assert_eq!(h.samples.len(), 40);
}

/// HPCC's window (bytes from snd_una to snd_nxt) holds new packets until ACKs open it: with a
/// 3,000 B window and a 2 µs RTT, three packets go, then one per ACK.
#[test]
fn the_window_limits_packets_in_flight() {
    let cfg = RoceConfig {
        window_bytes: Some(3_000),
        ..RoceConfig::default()
    };
    let mut b = bench(cfg, &[10_000]);
    assert!(b.run(1000));
    let t = b.send_times();
    assert_eq!(t[..3], [0, GAP, 2 * GAP]);
    // PSN 3 waits for ACK(1), which arrives at 2 µs.
    assert_eq!(t[3], 2 * US);
    assert_eq!(t[4], 2 * US + GAP);
    assert!(b.sender.all_acked());
}

/// IRN's BDP cap (packets from snd_una to snd_nxt) holds new packets but not retransmissions.
#[test]
fn the_bdp_cap_holds_new_packets_only() {
    let cfg = RoceConfig {
        bdp_cap_packets: Some(4),
        ..RoceConfig::irn()
    };
    let mut b = bench(cfg, &[10_000]).lose_first(&[1]);
    assert!(b.run(1000));
    // 0..=3 go; ACK(1) for PSN 0 opens one slot (PSN 4 at 2 µs); PSN 1 lost keeps snd_una at 1,
    // so nothing new goes until the NACKs of 2, 3 lead to the resend of 1, which is not held.
    let psns = b.sent_psns();
    assert_eq!(psns[..5], [0, 1, 2, 3, 4]);
    assert_eq!(psns[5], 1);
    assert!(b.sent[5].1.retransmit);
    assert_eq!(total_delivered(&b), 10_000);
    assert_eq!(b.sender.stats().retransmitted_packets, 1);
}

/// Go-back-N's NAK is sent once per gap: a second gap (after the first is repaired) gets its
/// own NAK; with `nack_reissue` (the HPCC fork's 500 µs) a gap still open that long after its
/// NAK is NAKed again.
#[test]
fn one_nak_per_gap_unless_reissued() {
    let cfg = RoceConfig::default();
    let mut r = RoceReceiver::new(&cfg);
    let p = |psn| crate::DataPacket {
        psn,
        payload: 1000,
        ack_req: false,
        retransmit: false,
        sent_at: Time::ZERO,
    };
    let z = [0; 3];
    assert_eq!(
        r.on_data(Time(0), &p(0), false, z).arrival,
        Arrival::InOrder
    );
    let n = r.on_data(Time(1), &p(2), false, z);
    assert_eq!(
        (n.arrival, n.ack.unwrap().kind, n.ack.unwrap().epsn),
        (Arrival::Discarded, AckKind::Nack, 1)
    );
    assert_eq!(r.on_data(Time(2), &p(3), false, z).ack, None);
    // The gap is repaired: an immediate ACK, and the next gap gets a NAK again.
    let a = r.on_data(Time(3), &p(1), false, z).ack.unwrap();
    assert_eq!((a.kind, a.epsn), (AckKind::Ack, 2));
    assert_eq!(
        r.on_data(Time(4), &p(5), false, z).ack.unwrap().kind,
        AckKind::Nack
    );
    assert_eq!(r.on_data(Time(5), &p(6), false, z).ack, None);
    // A duplicate is acknowledged at once.
    let d = r.on_data(Time(6), &p(0), false, z);
    assert_eq!(
        (d.arrival, d.ack.unwrap().kind, d.ack.unwrap().epsn),
        (Arrival::Duplicate, AckKind::Ack, 2)
    );

    let cfg = RoceConfig {
        nack_reissue: Some(crate::HPCC_FORK_NACK_INTERVAL),
        ..RoceConfig::default()
    };
    let mut r = RoceReceiver::new(&cfg);
    assert!(r.on_data(Time(0), &p(1), false, z).ack.is_some());
    assert!(r.on_data(Time(499 * US), &p(2), false, z).ack.is_none());
    let again = r.on_data(Time(500 * US), &p(3), false, z).ack.unwrap();
    assert_eq!((again.kind, again.epsn), (AckKind::Nack, 0));
}

/// CE marks: reported per arrival for DCQCN's notification point, counted, and echoed on the
/// ACK that covers the marked packet (with `ack_every` = 2 the mark of PSN 0 rides on the ACK
/// after PSN 1).
#[test]
fn ce_marks_are_reported_and_echoed() {
    let cfg = RoceConfig {
        ack_every: 2,
        ..RoceConfig::default()
    };
    let mut b = bench(cfg, &[4_000]);
    b.mark_ce = Box::new(|p| p.psn == 0);
    assert!(b.run(1000));
    let echoes: Vec<(u64, bool)> = b.replies.iter().map(|r| (r.1.epsn, r.1.ecn_echo)).collect();
    assert_eq!(echoes, [(2, true), (4, false)]);
    assert_eq!(b.receiver.stats().ce_marked, 1);
}

/// A CNP reaches the controller; the stats count it.
#[test]
fn cnps_reach_the_controller() {
    #[derive(Clone, Debug)]
    struct CutOnCnp;
    impl RateController for CutOnCnp {
        fn on_ack(&mut self, _: &AckSample, _: &mut RateControl) {}
        fn on_cnp(&mut self, now: Time, ctl: &mut RateControl) {
            ctl.rate = BitsPerSec::gbps(10);
            ctl.timer = Some(now + Duration::from_us(55));
        }
        fn on_timer(&mut self, _: Time, ctl: &mut RateControl) {
            ctl.rate = BitsPerSec::gbps(20);
        }
    }
    let mut s = RoceSender::new(
        RoceConfig::default(),
        BitsPerSec::gbps(100),
        Controller::Custom(CustomController::new("cut", CutOnCnp)),
    );
    s.post_message(100_000);
    let mut out = Vec::new();
    s.emit(Time::ZERO, &mut out);
    s.on_cnp(Time(10), &mut out);
    assert_eq!(
        (s.rate(), s.stats().cnps_received),
        (BitsPerSec::gbps(10), 1)
    );
    // The controller's timer is the earlier deadline (the RTO is 67 ms away).
    assert_eq!(s.timer_deadline(), Some(Time(10 + 55 * US)));
    s.on_timer(Time(10 + 55 * US), &mut out);
    assert_eq!(s.rate(), BitsPerSec::gbps(20));
}

/// A lost final ACK: the sender's timeout resends the last packet, the receiver acknowledges
/// the duplicate, the flow completes.
#[test]
fn a_lost_last_ack_is_repaired_by_a_duplicate_ack() {
    for base in [RoceConfig::default(), RoceConfig::irn()] {
        let cfg = RoceConfig {
            rto: RtoConfig::Fixed(Duration::from_us(50)),
            ..base
        };
        let mut b = bench(cfg, &[10_000]);
        let mut dropped = false;
        b.drop_ack = Box::new(move |a, _| {
            let first = a.epsn == 10 && !dropped;
            dropped |= first;
            first
        });
        assert!(b.run(1000));
        assert!(b.sender.all_acked());
        assert_eq!(b.receiver.stats().duplicates, 1);
        assert_eq!(total_delivered(&b), 10_000);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random losses of data packets and ACKs (among the first 64 of each), random ACK
    /// coalescing (with and without its timer), messages, MTU, window and BDP cap, both
    /// recovery modes: every byte is
    /// delivered exactly once and in order, the sender finishes, and packets sent = first
    /// transmissions + retransmissions.
    #[test]
    fn random_losses_deliver_everything_once(
        data_loss in any::<u64>(),
        ack_loss in any::<u64>(),
        ack_every in 1u32..=8,
        selective in any::<bool>(),
        messages in prop::collection::vec(1u64..=20_000, 1..=3),
        mtu in prop::sample::select(vec![256u32, 1000, 1500, 4096]),
        window in prop::option::of(1_000u64..=20_000),
        bdp in prop::option::of(1u32..=16),
        reissue in any::<bool>(),
        ack_timer in any::<bool>(),
    ) {
        let base = if selective { RoceConfig::irn() } else { RoceConfig::default() };
        let cfg = RoceConfig {
            mtu,
            ack_every,
            window_bytes: window,
            bdp_cap_packets: bdp,
            nack_reissue: reissue.then_some(Duration::from_us(20)),
            ack_timeout: ack_timer.then_some(Duration::from_us(3)),
            rto: if selective { base.rto } else { RtoConfig::Fixed(Duration::from_us(150)) },
            ..base
        };
        let mut b = bench(cfg, &messages);
        b.drop_data = Box::new(move |_, _, i| i < 64 && data_loss >> i & 1 == 1);
        b.drop_ack = Box::new(move |_, i| i < 64 && ack_loss >> i & 1 == 1);
        prop_assert!(b.run(1_000_000), "did not finish");
        let total: u64 = messages.iter().sum();
        prop_assert!(b.sender.all_acked());
        prop_assert_eq!(total_delivered(&b), total);
        prop_assert_eq!(b.receiver.bytes_delivered(), total);
        prop_assert_eq!(b.receiver.expected_psn(), b.sender.end_psn());
        let s = *b.sender.stats();
        prop_assert_eq!(s.packets_sent, b.sender.end_psn() + s.retransmitted_packets);
        prop_assert_eq!(s.packets_sent as usize, b.sent.len());
        prop_assert_eq!(s.bytes_acked, total);
        prop_assert_eq!(s.messages_completed, messages.len() as u64);
        // In order and once: the receiver's packet count delivered equals the PSNs, and no
        // go-back-N receiver ever buffers.
        prop_assert_eq!(b.receiver.stats().packets_delivered, b.sender.end_psn());
        if !selective {
            prop_assert_eq!(b.receiver.stats().buffered, 0);
        }
        prop_assert_eq!(b.sender.timer_deadline(), None);
        prop_assert_eq!(b.receiver.ack_deadline(), None);
        prop_assert_eq!(b.receiver.buffered_packets(), 0);
    }
}

/// The go-back-N sender ignores a NACK's selective PSN, and a selective-repeat sender given a
/// NACK without one still resends the cumulative PSN (robust to a mode mismatch).
#[test]
fn nack_forms_are_handled_in_both_modes() {
    for recovery in [Recovery::GoBackN, Recovery::SelectiveRepeat] {
        let cfg = RoceConfig {
            recovery,
            ..RoceConfig::default()
        };
        let mut s = RoceSender::new(cfg, BitsPerSec::gbps(100), Controller::default());
        s.post_message(5_000);
        let mut out = Vec::new();
        let mut t = Time::ZERO;
        while let Some(n) = s.next_send_time(t) {
            t = n;
            s.emit(t, &mut out);
        }
        assert_eq!(out.len(), 5);
        out.clear();
        let nack = crate::AckPacket {
            kind: AckKind::Nack,
            epsn: 2,
            sack_psn: None,
            echo_sent_at: Time::ZERO,
            trigger_psn: 0,
            ecn_echo: false,
            telemetry: [0; 3],
        };
        let o = s.on_ack(Time(US), &nack, &[], &mut out);
        assert_eq!((o.acked_bytes, o.all_acked), (2_000, false));
        assert_eq!(
            out.iter().map(|p| p.psn).collect::<Vec<_>>(),
            [2],
            "{recovery:?}"
        );
    }
}

/// DCQCN's notification point sends at most one CNP per queue pair per N = 50 µs: CE arrivals
/// at 0, 10, 49.999 µs, 50 µs and 120 µs get CNPs at 0, 50 and 120 µs; unmarked arrivals none;
/// without `cnp_interval`, none at all.
#[test]
fn one_cnp_per_interval() {
    let cfg = RoceConfig {
        cnp_interval: Some(crate::DCQCN_CNP_INTERVAL),
        ..RoceConfig::default()
    };
    let mut r = RoceReceiver::new(&cfg);
    let p = |psn| crate::DataPacket {
        psn,
        payload: 1000,
        ack_req: false,
        retransmit: false,
        sent_at: Time::ZERO,
    };
    let z = [0; 3];
    let cnps: Vec<bool> = [
        (0, true),
        (10_000, true),
        (49_999, true),
        (49_999, false),
        (50_000, true),
        (60_000, false),
        (120_000, true),
    ]
    .iter()
    .enumerate()
    .map(|(i, &(ns, ce))| r.on_data(Time(ns * 1000), &p(i as u64), ce, z).cnp)
    .collect();
    assert_eq!(cnps, [true, false, false, false, true, false, true]);
    assert_eq!(r.stats().cnps_sent, 3);
    let mut quiet = RoceReceiver::new(&RoceConfig::default());
    assert!(!quiet.on_data(Time(0), &p(0), true, z).cnp);
}
