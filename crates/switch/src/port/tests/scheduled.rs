//! A port whose discipline schedules: the discipline picks departures, drops, marks and trims
//! at the head, and keeps a timer; the port keeps its accounts exact.

use super::*;
use crate::qdisc::{DequeueContext, Held};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A test discipline: last in, first out; at dequeue it drops every packet that waited longer
/// than `max_wait`, marks what it sends (if ECN-capable), cuts payloads to `trim_to`; with
/// `gate`, it sends nothing before that time and asks for a timer at it.
#[derive(Clone, Debug, Default)]
struct Lifo {
    held: Vec<Held>,
    max_wait: Option<Duration>,
    trim_to: Option<u32>,
    gate: Option<Time>,
    timer_fired: u32,
}

impl QueueDiscipline for Lifo {
    fn on_enqueue(&mut self, _: &mut Packet, _: Occupancy, _: Time) -> Verdict {
        Verdict::Admit
    }
    fn limit(&self) -> BufferLimit {
        BufferLimit::Packets(10)
    }
    fn schedules(&self) -> bool {
        true
    }
    fn hold(&mut self, held: Held) {
        self.held.push(held);
    }
    fn dequeue(&mut self, ctx: &mut DequeueContext) -> Option<Held> {
        if self.gate.is_some_and(|g| ctx.now() < g) {
            return None;
        }
        while let Some(mut h) = self.held.pop() {
            if self
                .max_wait
                .is_some_and(|m| ctx.now().since(h.enqueued_at) > m)
            {
                ctx.drop(h);
                continue;
            }
            if let Some(t) = self.trim_to {
                ctx.trim(&mut h, t);
            }
            ctx.mark(&mut h.packet);
            // In-band telemetry: the packet's wait here (ps) and the packets still held.
            h.packet
                .set_telemetry(0, ctx.now().since(h.enqueued_at).as_ps());
            h.packet.set_telemetry(1, self.held.len() as u64);
            return Some(h);
        }
        None
    }
    fn next_timer(&self) -> Option<Time> {
        self.gate.filter(|_| !self.held.is_empty())
    }
    fn on_timer(&mut self, _ctx: &mut DequeueContext) {
        self.timer_fired += 1;
        self.gate = None;
    }
}

fn lifo_port(d: Lifo) -> OutputPort {
    OutputPort::new(
        1,
        SerializationRate::new(BitsPerSec::gbps(1)),
        Duration::from_us(25),
        LinkLoss::None,
        SimRng::new(1),
        QueueDisc::extension(d),
    )
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Head,
    TxDone,
    Timer(u32),
}

/// Offers `arrivals` (time, seq) and runs the port's own events; returns the packets that
/// reached the far end, in order, with their arrival times.
fn drive(p: &mut OutputPort, arrivals: &[(Time, u64)]) -> Vec<(Time, Packet)> {
    let mut events: BinaryHeap<Reverse<(Time, u64, Ev)>> = BinaryHeap::new();
    let mut n = 0u64;
    let mut push = |ev: &mut BinaryHeap<_>, at: Time, e: Ev| {
        n += 1;
        ev.push(Reverse((at, n, e)));
    };
    let mut arrivals = arrivals.iter().peekable();
    let mut out = Vec::new();
    let schedule =
        |ev: &mut BinaryHeap<_>, d: TxDone, push: &mut dyn FnMut(&mut BinaryHeap<_>, Time, Ev)| {
            if let Some(at) = d.schedule_head_at {
                push(ev, at, Ev::Head);
            }
            if let Some(at) = d.schedule_tx_done_at {
                push(ev, at, Ev::TxDone);
            }
            if let Some((at, g)) = d.schedule_timer {
                push(ev, at, Ev::Timer(g));
            }
        };
    loop {
        let next_event = events.peek().map(|Reverse((t, _, _))| *t);
        match (arrivals.peek(), next_event) {
            (Some(&&(t, seq)), e) if e.is_none_or(|e| t <= e) => {
                arrivals.next();
                let mut pk = pkt(1000);
                pk.seq = seq;
                pk.ecn = Ecn::Ect0;
                if let Enqueued::Admitted {
                    schedule_head_at,
                    schedule_tx_done_at,
                } = p.enqueue(t, &pk)
                {
                    let d = TxDone {
                        schedule_head_at,
                        schedule_tx_done_at,
                        ..TxDone::default()
                    };
                    schedule(&mut events, d, &mut push);
                }
            }
            (_, Some(_)) => {
                let Reverse((t, _, e)) = events.pop().unwrap();
                match e {
                    Ev::Head => {
                        let a = p.pop_arrival(t);
                        out.push((t, a.packet.unwrap()));
                        if let Some(at) = a.next_head_at {
                            push(&mut events, at, Ev::Head);
                        }
                    }
                    Ev::TxDone => {
                        let d = p.on_tx_done(t);
                        schedule(&mut events, d, &mut push);
                    }
                    Ev::Timer(g) => {
                        let d = p.on_timer_event(t, g);
                        schedule(&mut events, d, &mut push);
                    }
                }
            }
            (None, None) => return out,
            _ => unreachable!(),
        }
    }
}

const TX: u64 = 8_320_000; // 1040 B at 1 Gbps
const PROP: u64 = 25_000_000;

#[test]
fn the_discipline_picks_the_departures() {
    let mut p = lifo_port(Lifo::default());
    assert!(p.scheduled);
    // Four packets at t = 0: the first one alone is held when the link is served (at t = 0,
    // after all four came: the TxDone event queued at admission runs after them).
    let at0: Vec<(Time, u64)> = (1..=4).map(|s| (Time::ZERO, s)).collect();
    let out = drive(&mut p, &at0);
    let seqs: Vec<u64> = out.iter().map(|(_, p)| p.seq).collect();
    assert_eq!(seqs, [4, 3, 2, 1], "last in, first out");
    let times: Vec<u64> = out.iter().map(|(t, _)| t.as_ps()).collect();
    assert_eq!(times, [1, 2, 3, 4].map(|k| k * TX + PROP), "back to back");
    assert!(out.iter().all(|(_, p)| p.ecn == Ecn::Ce));
    // The telemetry the discipline stamped at dequeue travels with each packet: its wait (the
    // transmissions before it) and the packets left behind it.
    let stamped: Vec<[u64; 2]> = out
        .iter()
        .map(|(_, p)| {
            let t = p.telemetry().unwrap();
            [t[0], t[1]]
        })
        .collect();
    assert_eq!(stamped, [[0, 3], [TX, 2], [2 * TX, 1], [3 * TX, 0]]);
    let s = p.stats();
    assert_eq!((s.enqueued_packets, s.delivered_packets), (4, 4));
    assert_eq!((s.ecn_marks, s.class_marks[0]), (4, 4));
    assert_eq!(s.departed_bytes, 4 * 1040);
    assert_eq!(s.max_buffered_packets, 4);
    assert_eq!(p.packets_in_port(), 0);
    // All four wait from 0: 4160 B for one TX, then 3120, 2080, 1040.
    let end = Time(4 * TX);
    let expect = 1040.0 * (4.0 + 3.0 + 2.0 + 1.0) / 4.0;
    assert!(
        (p.mean_queue_bytes(end) - expect).abs() < 1e-6,
        "{}",
        p.mean_queue_bytes(end)
    );
}

#[test]
fn head_drops_and_trims_are_counted_once_and_free_the_buffer() {
    // Packets older than 1.5 TX are dropped at dequeue; payloads are cut to 100 B.
    let mut p = lifo_port(Lifo {
        max_wait: Some(Duration::from_ps(TX * 3 / 2)),
        trim_to: Some(100),
        ..Lifo::default()
    });
    // Three at t = 0: 3 leaves first (trimmed to 140 B: 1.12 us); then 2 and 1 have waited
    // 1.12 us (kept). Then 5 arrive at 1 ps.
    let mut arrivals: Vec<(Time, u64)> = (1..=3).map(|s| (Time::ZERO, s)).collect();
    arrivals.push((Time(1), 4));
    let out = drive(&mut p, &arrivals);
    let seqs: Vec<u64> = out.iter().map(|(_, p)| p.seq).collect();
    // t = 0: 3 goes (1.12 us). t = 1.12 us: 4 goes. 2.24 us: 2; 3.36 us: 1 (waited 3.36 us <
    // 12.48 us): nothing dropped yet.
    assert_eq!(seqs, [3, 4, 2, 1]);
    assert!(
        out.iter()
            .all(|(_, p)| p.payload_bytes == 100
                && p.has_flag(incastsim_core::packet::flags::TRIMMED))
    );
    let s = p.stats();
    assert_eq!((s.trimmed_packets, s.trimmed_bytes), (4, 4 * 900));
    assert_eq!(s.departed_bytes, 4 * 140);
    assert_eq!(s.delivered_packets, 4);

    // Full-size packets, no trim: 6 arrive at once; 6 goes, then 5 (waited 1 TX), then 4 and
    // below have waited 2 TX > 1.5 TX: dropped at the head.
    let mut p = lifo_port(Lifo {
        max_wait: Some(Duration::from_ps(TX * 3 / 2)),
        ..Lifo::default()
    });
    let arrivals: Vec<(Time, u64)> = (1..=6).map(|s| (Time::ZERO, s)).collect();
    let out = drive(&mut p, &arrivals);
    let seqs: Vec<u64> = out.iter().map(|(_, p)| p.seq).collect();
    assert_eq!(seqs, [6, 5]);
    let s = p.stats();
    assert_eq!(
        (s.drops_aqm, s.drops_at_dequeue, s.class_drops[0]),
        (4, 4, 4)
    );
    assert_eq!(s.drops_at_dequeue_bytes, 4 * 1040);
    assert_eq!((s.enqueued_packets, s.delivered_packets), (6, 2));
    assert_eq!(s.departed_bytes, 2 * 1040);
    assert_eq!(s.drops_total(), 4);
    assert_eq!(p.packets_in_port(), 0);
    assert_eq!(p.occupancy(Time(10 * TX)), Occupancy::default());
    // The dropped packets were read by the engine after the call that dropped them.
    assert!(p.head_drops().len() == 4 || p.head_drops().is_empty());
}

#[test]
fn the_discipline_timer_releases_held_packets() {
    // Nothing leaves before 100 us: the port arms the discipline's timer, which opens the gate.
    let gate = Time(100_000_000);
    let mut p = lifo_port(Lifo {
        gate: Some(gate),
        ..Lifo::default()
    });
    let arrivals = [(Time::ZERO, 1), (Time(5), 2)];
    // Before the gate: the packets are held, in the port's occupancy and its packet count.
    let out = drive(&mut p, &arrivals);
    let seqs: Vec<u64> = out.iter().map(|(_, p)| p.seq).collect();
    assert_eq!(seqs, [2, 1]);
    assert_eq!(
        out[0].0,
        Time(gate.as_ps() + TX + PROP),
        "the first leaves at the gate"
    );
    assert_eq!(p.stats().delivered_packets, 2);
    // Its residence counts the wait: 2 × 1040 B for 100 us, then the two transmissions.
    let end = Time(gate.as_ps() + 2 * TX);
    let area = 2.0 * 1040.0 * 100e6 - 1040.0 * 5.0 + 1040.0 * (2 * TX) as f64 + 1040.0 * TX as f64;
    assert!((p.mean_queue_bytes(end) - area / end.as_ps() as f64).abs() < 1e-6);
    let QueueDisc::Extension(e) = &p.qdisc else {
        unreachable!()
    };
    assert!(format!("{:?}", e.0).contains("timer_fired: 1"), "{e:?}");
}
