//! Unit tests of the output port: admission, FIFO order, link loss, the hot/cold layout.

use super::*;
use crate::qdisc::tests::pkt;
use incastsim_core::BitsPerSec;

fn port(limit: BufferLimit) -> OutputPort {
    OutputPort::new(
        1,
        SerializationRate::new(BitsPerSec::gbps(1)),
        Duration::from_us(25),
        LinkLoss::None,
        SimRng::new(1),
        QueueDisc::drop_tail(limit),
    )
}

#[test]
fn per_packet_fields_sit_in_the_first_cache_lines() {
    use std::mem::{offset_of, size_of};
    // An arrival reads line 1 (and the FIFO); an admission lines 1 to 3 (the 40-byte
    // QueueDisc starts in line 3; drop-tail's tag and limit are read there, the larger
    // variants' fields may run into line 4).
    assert!(offset_of!(OutputPort, scheduled) < 64);
    assert!(offset_of!(OutputPort, next_tx_end) + size_of::<Time>() <= 64);
    let start = offset_of!(OutputPort, qdisc);
    assert!(start < 192, "the discipline starts at byte {start}");
    assert!(start + size_of::<QueueDisc>() <= 256);
    assert_eq!(std::mem::align_of::<OutputPort>(), 64);
    // The rest is out of line: a port is its four hot lines, so that ports lie densely.
    assert_eq!(size_of::<OutputPort>(), 256);
}

#[test]
fn latency_jitter_delays_within_bounds_and_keeps_order() {
    // 960 B + 40 B of headers at 1 Gbps = 8 us; jitter up to 20 us (larger than the
    // spacing, so the no-overtaking rule matters).
    let jitter = Duration::from_us(20);
    let mut p = port(BufferLimit::Unlimited).with_latency_jitter(jitter, SimRng::new(7));
    let mut next = match p.enqueue(Time::ZERO, &pkt(960)) {
        Enqueued::Admitted {
            schedule_head_at, ..
        } => schedule_head_at.unwrap(),
        Enqueued::Dropped(_) => unreachable!(),
    };
    for _ in 1..200 {
        p.enqueue(Time::ZERO, &pkt(960));
    }
    let (mut last, mut delayed) = (Time::ZERO, 0);
    for k in 1..=200u64 {
        let nominal = Time::ZERO + Duration::from_us(8 * k + 25);
        assert!(next >= last && next >= nominal && next <= nominal + jitter);
        delayed += u32::from(next > nominal);
        last = next;
        match p.pop_arrival(next).next_head_at {
            Some(t) => next = t,
            None => assert_eq!(k, 200),
        }
    }
    assert!(delayed > 150, "{delayed}");
}

#[test]
fn an_emptied_fifo_gives_back_the_memory_of_its_burst() {
    let mut p = port(BufferLimit::Unlimited);
    let mut next = Time::ZERO;
    for i in 0..100 {
        if let Enqueued::Admitted {
            schedule_head_at: Some(at),
            ..
        } = p.enqueue(Time::ZERO, &pkt(1000))
        {
            assert_eq!(i, 0);
            next = at;
        }
    }
    assert!(p.fifo.capacity() >= 100);
    for k in 0..100 {
        let a = p.pop_arrival(next);
        match a.next_head_at {
            Some(t) => next = t,
            None => assert_eq!(k, 99),
        }
    }
    assert!(p.fifo.capacity() <= FIFO_KEEP, "{}", p.fifo.capacity());
    assert_eq!(p.packets_in_port(), 0);
}

#[test]
fn back_to_back_packets_leave_one_serialization_apart() {
    let mut p = port(BufferLimit::Unlimited);
    let t0 = Time::ZERO;
    let first = p.enqueue(t0, &pkt(1000));
    // 1040 B at 1 Gbps = 8.32 us, plus 25 us propagation.
    assert_eq!(
        first,
        Enqueued::Admitted {
            schedule_head_at: Some(Time(33_320_000)),
            schedule_tx_done_at: None
        }
    );
    assert_eq!(
        p.enqueue(t0, &pkt(1000)),
        Enqueued::Admitted {
            schedule_head_at: None,
            schedule_tx_done_at: None
        }
    );
    let a = p.pop_arrival(Time(33_320_000));
    assert!(a.packet.is_some());
    assert_eq!(a.next_head_at, Some(Time(33_320_000 + 8_320_000)));
}

#[test]
fn buffer_frees_as_packets_finish_transmission() {
    let mut p = port(BufferLimit::Bytes(2 * 1040));
    assert!(matches!(
        p.enqueue(Time::ZERO, &pkt(1000)),
        Enqueued::Admitted { .. }
    ));
    assert!(matches!(
        p.enqueue(Time::ZERO, &pkt(1000)),
        Enqueued::Admitted { .. }
    ));
    assert_eq!(
        p.enqueue(Time::ZERO, &pkt(1000)),
        Enqueued::Dropped(DropReason::BufferFull)
    );
    // After the first frame's last bit leaves (8.32 us), there is room for one more.
    let t = Time(8_320_000);
    assert_eq!(p.occupancy(t).packets, 1);
    assert!(matches!(
        p.enqueue(t, &pkt(1000)),
        Enqueued::Admitted { .. }
    ));
    assert_eq!(p.stats().drops_buffer, 1);
    assert_eq!(p.stats().max_buffered_packets, 2);
}

#[test]
fn strict_priority_serves_the_highest_class_first() {
    let mut p = port(BufferLimit::Unlimited).with_priority_classes(2);
    let t0 = Time::ZERO;
    let mut low = pkt(1000);
    low.seq = 1;
    let mut high = pkt(1000);
    high.dscp = 1;
    high.seq = 2;
    // The first low packet starts at once; the next low one and a later high one wait.
    assert!(matches!(
        p.enqueue(t0, &low),
        Enqueued::Admitted {
            schedule_head_at: Some(_),
            ..
        }
    ));
    let mut low2 = low;
    low2.seq = 3;
    let second = p.enqueue(t0, &low2);
    assert_eq!(
        second,
        Enqueued::Admitted {
            schedule_head_at: None,
            schedule_tx_done_at: Some(Time(8_320_000))
        }
    );
    assert_eq!(
        p.enqueue(Time(1000), &high),
        Enqueued::Admitted {
            schedule_head_at: None,
            schedule_tx_done_at: None
        }
    );
    assert_eq!(p.occupancy(Time(1000)).packets, 3);
    // At the first departure the high-priority packet jumps the queue.
    let done = p.on_tx_done(Time(8_320_000));
    assert_eq!(done.schedule_tx_done_at, Some(Time(16_640_000)));
    let done = p.on_tx_done(Time(16_640_000));
    assert_eq!(done.schedule_tx_done_at, None);
    let order: Vec<u64> = (1..=3)
        .map(|k| {
            p.pop_arrival(Time(k * 8_320_000 + 25_000_000))
                .packet
                .unwrap()
                .seq
        })
        .collect();
    assert_eq!(order, vec![1, 2, 3]);
    assert_eq!(p.stats().class_enqueued[..2], [2, 1]);
    assert_eq!(p.packets_in_port(), 0);
}

#[test]
fn mean_queue_integrates_occupancy_over_time() {
    let mut p = port(BufferLimit::Unlimited);
    // Two 1040 B frames at t = 0: 2080 B for 8.32 us, 1040 B for the next 8.32 us.
    p.enqueue(Time::ZERO, &pkt(1000));
    p.enqueue(Time::ZERO, &pkt(1000));
    let end = Time(4 * 8_320_000);
    let expect = (2080.0 * 8.32 + 1040.0 * 8.32) / (4.0 * 8.32);
    assert!(
        (p.mean_queue_bytes(end) - expect).abs() < 1e-6,
        "{}",
        p.mean_queue_bytes(end)
    );
}

#[test]
fn idle_port_starts_transmitting_at_arrival() {
    let mut p = port(BufferLimit::Unlimited);
    let t = Time(1_000_000_000);
    assert_eq!(
        p.enqueue(t, &pkt(0)),
        Enqueued::Admitted {
            schedule_head_at: Some(Time(1_000_000_000 + 320_000 + 25_000_000)),
            schedule_tx_done_at: None
        }
    );
}

#[test]
fn lossy_link_drops_about_p() {
    let mut p = OutputPort::new(
        1,
        SerializationRate::new(BitsPerSec::gbps(1)),
        Duration::ZERO,
        LinkLoss::bernoulli(0.1),
        SimRng::new(9),
        QueueDisc::drop_tail(BufferLimit::Unlimited),
    );
    let mut lost = 0;
    let mut t = Time::ZERO;
    for _ in 0..20_000 {
        if let Enqueued::Admitted {
            schedule_head_at: Some(at),
            ..
        } = p.enqueue(t, &pkt(0))
        {
            t = at;
            if p.pop_arrival(t).packet.is_none() {
                lost += 1;
            }
        }
    }
    assert!((1800..2200).contains(&lost), "lost {lost}");
    assert_eq!(p.stats().drops_link_loss, lost);
}

#[test]
fn gilbert_elliott_loses_its_mean_in_bursts_of_mean_length_one_over_r() {
    // p = 0.01, r = 0.25: P(Bad) = 0.01/0.26 = 3.85 %, bursts of mean 4 packets.
    let mut loss = LinkLoss::GilbertElliott {
        p_good_to_bad: 0.01,
        p_bad_to_good: 0.25,
        loss_in_good: 0.0,
        loss_in_bad: 1.0,
        bad: false,
    };
    let mean = loss.mean_loss();
    assert!((mean - 0.01 / 0.26).abs() < 1e-12);
    let mut rng = SimRng::new(5);
    let n = 400_000;
    let (mut lost, mut bursts, mut prev) = (0u32, 0u32, false);
    for _ in 0..n {
        let l = loss.lose(&mut rng);
        lost += l as u32;
        bursts += (l && !prev) as u32;
        prev = l;
    }
    let frac = lost as f64 / n as f64;
    // ~15 000 losses in ~3 850 bursts: 5 % covers several standard errors of both.
    assert!((frac - mean).abs() < 0.05 * mean, "lost {frac}");
    let burst = lost as f64 / bursts as f64;
    assert!((burst - 4.0).abs() < 0.2, "mean burst {burst}");
}

#[test]
fn bernoulli_link_loss_draws_as_before() {
    // One draw per packet from the link's stream, as the plain probability did.
    let mut a = SimRng::new(3);
    let mut b = SimRng::new(3);
    let mut loss = LinkLoss::bernoulli(0.2);
    for _ in 0..1000 {
        assert_eq!(loss.lose(&mut a), b.bernoulli(0.2));
    }
    assert_eq!(LinkLoss::bernoulli(0.0), LinkLoss::None);
}

mod scheduled;

/// Per-queue marking (`with_class_scope`, the HPCC fork's per-queue ECN): with K = 2 packets,
/// four class-0 packets waiting behind a transmission make the port mark a class-1 arrival,
/// but the class-1 queue itself is empty, so with class scope it is not marked; a third
/// class-1 packet behind three others of its class is. The buffer still bounds the whole port.
#[test]
fn class_scope_marks_by_the_packets_own_queue() {
    let build = |class_scope: bool| {
        let p = OutputPort::new(
            1,
            SerializationRate::new(BitsPerSec::gbps(1)),
            Duration::from_us(25),
            LinkLoss::None,
            SimRng::new(1),
            QueueDisc::ThresholdMark(crate::qdisc::ThresholdMark {
                k: crate::qdisc::Threshold::Packets(2),
                limit: BufferLimit::Packets(9),
            }),
        )
        .with_priority_classes(2);
        if class_scope { p.with_class_scope() } else { p }
    };
    let mut low = pkt(1000);
    low.ecn = incastsim_core::Ecn::Ect0;
    let mut high = low;
    high.dscp = 1;
    for class_scope in [false, true] {
        let mut p = build(class_scope);
        for _ in 0..5 {
            p.enqueue(Time::ZERO, &low);
        }
        let before = p.ecn_marks();
        p.enqueue(Time::ZERO, &high);
        let marked = p.ecn_marks() - before;
        assert_eq!(marked, if class_scope { 0 } else { 1 }, "{class_scope}");
        p.enqueue(Time::ZERO, &high);
        p.enqueue(Time::ZERO, &high);
        // Class 1 now holds 3 waiting (> K): the next is marked under either scope.
        let before = p.ecn_marks();
        p.enqueue(Time::ZERO, &high);
        assert_eq!(p.ecn_marks(), before + 1, "{class_scope}");
        // Nine packets in the port: the 9-packet buffer refuses the next under either scope.
        assert!(matches!(p.enqueue(Time::ZERO, &high), Enqueued::Dropped(_)));
    }
}

/// A lossless class is never dropped: where RED (gentle off) would drop above max_th, an
/// ECN-capable packet is marked CE instead (DCQCN's switches mark every packet past Kmax), a
/// packet that is not ECN-capable is kept unmarked; on a lossy class RED drops both.
#[test]
fn lossless_classes_turn_red_drops_into_marks() {
    use crate::qdisc::{Red, RedParams, RedProfile, Threshold};
    let red = Red::new(
        RedParams {
            unit: Threshold::Packets(0),
            w_q: 1.0,
            gentle: false,
            ecn: true,
            limit: BufferLimit::Packets(100),
            profiles: vec![RedProfile {
                min_th: 1.0,
                max_th: 2.0,
                max_p: 0.01,
            }],
            profile_of_dscp: [0; 64],
            typical_tx_ps: 8000.0,
        },
        SimRng::new(1),
    );
    // Class 1 lossless, class 0 lossy.
    let mut p = OutputPort::new(
        1,
        SerializationRate::new(BitsPerSec::gbps(1)),
        Duration::from_us(25),
        LinkLoss::None,
        SimRng::new(1),
        QueueDisc::Red(Box::new(red)),
    )
    .with_pfc(2, 0b10);
    let mut ect = pkt(1000);
    ect.dscp = 1;
    ect.ecn = incastsim_core::Ecn::Ect0;
    let mut plain = ect;
    plain.ecn = incastsim_core::Ecn::NotEct;
    for _ in 0..4 {
        assert!(matches!(
            p.enqueue(Time::ZERO, &ect),
            Enqueued::Admitted { .. }
        ));
    }
    // Four in the port (> max_th 2): RED says drop; the lossless ECT packet is marked.
    let marks = p.ecn_marks();
    assert!(matches!(
        p.enqueue(Time::ZERO, &ect),
        Enqueued::Admitted { .. }
    ));
    assert_eq!(p.ecn_marks(), marks + 1);
    assert!(matches!(
        p.enqueue(Time::ZERO, &plain),
        Enqueued::Admitted { .. }
    ));
    assert_eq!(p.ecn_marks(), marks + 1);
    let mut lossy = ect;
    lossy.dscp = 0;
    assert!(matches!(
        p.enqueue(Time::ZERO, &lossy),
        Enqueued::Dropped(_)
    ));
}

/// A paused class with a packet waiting: a port left to itself asks for a `TxDone` at the
/// pause's end; a port whose owner tells it of lapses asks for none, then one when told
/// (and a RESUME asks for one at once either way).
#[test]
fn a_port_told_of_pause_lapses_asks_for_no_look_at_the_pause_end() {
    let until = Time::ZERO + Duration::from_us(300);
    for told in [false, true] {
        let mut p = OutputPort::new(
            1,
            SerializationRate::new(BitsPerSec::gbps(100)),
            Duration::from_us(1),
            LinkLoss::None,
            SimRng::new(1),
            QueueDisc::drop_tail(BufferLimit::Packets(100)),
        )
        .with_pfc(2, 0b10);
        if told {
            p.tell_pause_lapses();
        }
        assert_eq!(p.pause_lapses_told(), told);
        let mut a = pkt(1000);
        a.dscp = 1;
        // The first packet starts at once; the second waits for the transmitter.
        assert!(matches!(
            p.enqueue(Time::ZERO, &a),
            Enqueued::Admitted { .. }
        ));
        let Enqueued::Admitted {
            schedule_tx_done_at: Some(end),
            ..
        } = p.enqueue(Time::ZERO, &a)
        else {
            panic!("the second packet waits for a TxDone");
        };
        p.pause_class(1, until);
        // At the transmission's end only the paused class waits.
        let done = p.on_tx_done(end);
        assert_eq!(done.started_admitted_at, None);
        if told {
            assert_eq!(done.schedule_tx_done_at, None, "no look at the pause's end");
            // The lapse, told: a look at the pause's end, once.
            assert_eq!(p.pause_lapsed(1, until, false), Some(until));
            assert_eq!(p.pause_lapsed(1, until, false), None);
        } else {
            assert_eq!(done.schedule_tx_done_at, Some(until));
            // A RESUME before the end asks for an earlier look (the one at `until` is stale).
            let now = Time::ZERO + Duration::from_us(5);
            assert_eq!(p.resume_class(now, 1), Some(now));
        }
    }
}
