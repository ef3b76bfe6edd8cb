//! [`CoDel`]: RFC 8289's Controlled Delay AQM as written, through the dequeue side of the
//! public queue-discipline trait: `topology.switch_queue: {name: codel, target: 5ms,
//! interval: 100ms}`.
//!
//! Arrivals are admitted and time-stamped (a full port buffer still tail-drops them, as a
//! CoDel queue's finite buffer does, RFC 8289 §5); CoDel decides at dequeue,
//! from each packet's sojourn time (§3.1), whether to drop at the head. The state machine is
//! the pseudocode of RFC 8289 §5 (`dodequeue` and `dequeue`), including the Linux re-entry
//! rule for `count` (§5.5 and the comment in `dequeue`).

use incastsim::config::invalid;
use incastsim::config::units::{Bytes, Dur};
use incastsim::core::{Duration, Packet, Time};
use incastsim::extend::{QueueContext, QueueDisciplineExtension};
use incastsim::scenario::ConfigError;
use incastsim::switch::{BufferLimit, DequeueContext, Held, Occupancy, QueueDiscipline, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `codel`'s parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoDelParams {
    /// TARGET, the acceptable standing queue delay (RFC 8289 §4.4: 5 ms).
    #[serde(default = "five_ms")]
    pub target: Dur,
    /// INTERVAL, the sliding window of the minimum's measurement and the control law's base
    /// (RFC 8289 §4.3: 100 ms, a worst-case RTT).
    #[serde(default = "hundred_ms")]
    pub interval: Dur,
    /// maxpacket: a queue of at most this many bytes after a dequeue is never "above" (the
    /// backlog test of `dodequeue`; RFC 8289 §5: "SHOULD use interface MTU"; 1500 B, the
    /// Ethernet MTU).
    #[serde(default = "ethernet_mtu")]
    pub maxpacket: Bytes,
}

fn five_ms() -> Dur {
    Dur(Duration::from_ms(5))
}
fn hundred_ms() -> Dur {
    Dur(Duration::from_ms(100))
}
fn ethernet_mtu() -> Bytes {
    Bytes(1500)
}

/// CoDel at one switch port: a FIFO of time-stamped packets and the RFC 8289 §5 state.
#[derive(Clone, Debug)]
pub struct CoDel {
    target: Duration,
    interval: Duration,
    maxpacket: u64,
    limit: BufferLimit,
    queue: VecDeque<Held>,
    /// Wire bytes in `queue` (`bytes()` of the pseudocode).
    bytes: u64,
    /// `first_above_time_` (0 in the pseudocode is `None` here).
    first_above_time: Option<Time>,
    /// `drop_next_`: when the next drop is due in the dropping state.
    drop_next: Time,
    /// `count_`: packets dropped since entering the dropping state.
    count: u32,
    /// `lastcount_`: `count_` when the dropping state was last entered.
    lastcount: u32,
    /// `dropping_`.
    dropping: bool,
    /// Packets dropped at the head so far (the `codel_drops` value in ports.csv).
    drops: u64,
}

impl CoDel {
    /// CoDel with RFC 8289's parameters in `p`, inside the port buffer `limit`.
    pub fn new(p: &CoDelParams, limit: BufferLimit) -> CoDel {
        CoDel {
            target: p.target.0,
            interval: p.interval.0,
            maxpacket: p.maxpacket.0,
            limit,
            queue: VecDeque::new(),
            bytes: 0,
            first_above_time: None,
            drop_next: Time::ZERO,
            count: 0,
            lastcount: 0,
            dropping: false,
            drops: 0,
        }
    }

    /// `control_law(t, count)` = t + INTERVAL / sqrt(count) (RFC 8289 §5, "control_law").
    fn control_law(&self, t: Time, count: u32) -> Time {
        let step = self.interval.as_ps() as f64 / f64::from(count.max(1)).sqrt();
        Time(t.as_ps() + step as u64)
    }

    /// `dodequeue(now)`: the head packet and whether the sojourn time has been above TARGET
    /// for at least INTERVAL (`ok_to_drop`).
    fn dodequeue(&mut self, now: Time) -> (Option<Held>, bool) {
        let Some(h) = self.queue.pop_front() else {
            // The queue is empty: we can't be above TARGET.
            self.first_above_time = None;
            return (None, false);
        };
        self.bytes -= u64::from(h.packet.wire_bytes());
        let sojourn = now.since(h.enqueued_at);
        let mut ok_to_drop = false;
        if sojourn < self.target || self.bytes <= self.maxpacket {
            // Went below: stay below for at least INTERVAL.
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                // Just went above from below: if still above at first_above_time, drop.
                None => self.first_above_time = Some(now + self.interval),
                Some(t) if now >= t => ok_to_drop = true,
                Some(_) => {}
            }
        }
        (Some(h), ok_to_drop)
    }

    /// Whether it is in the dropping state, and `count_` (for tests and traces).
    pub fn state(&self) -> (bool, u32, Time) {
        (self.dropping, self.count, self.drop_next)
    }
}

impl QueueDiscipline for CoDel {
    fn on_enqueue(&mut self, _packet: &mut Packet, _occ: Occupancy, _now: Time) -> Verdict {
        // Admission is the port buffer's (tail drop when full); CoDel acts at dequeue.
        Verdict::Admit
    }

    fn limit(&self) -> BufferLimit {
        self.limit
    }

    fn schedules(&self) -> bool {
        true
    }

    fn hold(&mut self, held: Held) {
        self.bytes += u64::from(held.packet.wire_bytes());
        self.queue.push_back(held);
    }

    /// RFC 8289 §5, `dequeue()`.
    fn dequeue(&mut self, ctx: &mut DequeueContext) -> Option<Held> {
        let now = ctx.now();
        let (mut p, mut ok_to_drop) = self.dodequeue(now);
        if self.dropping {
            if !ok_to_drop {
                // Sojourn time below TARGET: leave the dropping state.
                self.dropping = false;
            }
            // Time for the next drop(s): a large backlog may call for several now.
            while now >= self.drop_next && self.dropping {
                if let Some(h) = p.take() {
                    ctx.drop(h);
                    self.drops += 1;
                }
                self.count += 1;
                (p, ok_to_drop) = self.dodequeue(now);
                if !ok_to_drop {
                    self.dropping = false;
                } else {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                }
            }
        } else if ok_to_drop {
            // Above TARGET for INTERVAL: enter the dropping state.
            if let Some(h) = p.take() {
                ctx.drop(h);
                self.drops += 1;
            }
            (p, _) = self.dodequeue(now);
            self.dropping = true;
            // Re-entry (the Linux rule RFC 8289 §5 adopts): if the last dropping state ended
            // recently, resume near the drop rate that controlled the queue then.
            let delta = self.count.wrapping_sub(self.lastcount);
            self.count = 1;
            let since_drop_next = now.as_ps() as i128 - self.drop_next.as_ps() as i128;
            if delta > 1 && since_drop_next < 16 * self.interval.as_ps() as i128 {
                self.count = delta;
            }
            self.drop_next = self.control_law(now, self.count);
            self.lastcount = self.count;
        }
        p
    }

    fn value_names(&self) -> &'static [&'static str] {
        &["codel_drops", "codel_dropping", "codel_count"]
    }

    fn values(&self, out: &mut [f64]) {
        out.copy_from_slice(&[
            self.drops as f64,
            f64::from(u8::from(self.dropping)),
            f64::from(self.count),
        ]);
    }
}

impl QueueDisciplineExtension for CoDel {
    type Params = CoDelParams;
    type Discipline = CoDel;
    const DESCRIPTION: &'static str =
        "CoDel (RFC 8289): head drops at dequeue when the sojourn time stays above target";

    fn check(p: &CoDelParams) -> Result<(), ConfigError> {
        if p.target.0 == Duration::ZERO {
            return Err(invalid("target", p.target.0, "a positive duration"));
        }
        if p.interval.0 <= p.target.0 {
            return Err(invalid(
                "interval",
                p.interval.0,
                "a duration longer than target",
            ));
        }
        Ok(())
    }

    fn new(p: &CoDelParams, ctx: &QueueContext) -> CoDel {
        CoDel::new(p, ctx.limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use incastsim::core::PacketKind;
    use incastsim::switch::DequeueEffects;

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000_000)
    }

    /// A packet of 1000 B on the wire, numbered `seq`.
    fn held(seq: u64, at: Time) -> Held {
        let mut packet = Packet::new(PacketKind::Data, 0, 1, 960, 40);
        packet.seq = seq;
        Held {
            packet,
            enqueued_at: at,
        }
    }

    /// One dequeue at `now`: (the packet sent, the packets dropped), by number.
    fn dequeue(c: &mut CoDel, now: Time) -> (Option<u64>, Vec<u64>) {
        let mut effects = DequeueEffects::default();
        let mut ctx = DequeueContext::new(now, &mut effects);
        let sent = c.dequeue(&mut ctx).map(|h| h.packet.seq);
        (sent, ctx.dropped().iter().map(|h| h.packet.seq).collect())
    }

    /// The hand trace (target 5 ms, interval 100 ms, maxpacket 1500 B, 1000-byte packets):
    ///
    /// | t (ms) | queue before   | RFC 8289 §5 step                                  | sent | dropped |
    /// |--------|----------------|---------------------------------------------------|------|---------|
    /// | 0      | enqueue 1..=10 |                                                   |      |         |
    /// | 10     | 1..10          | sojourn 10 ≥ 5, 9000 B left: first_above = 110    | 1    |         |
    /// | 50     | 2..10          | above, 50 < first_above                           | 2    |         |
    /// | 110    | 3..10          | 110 ≥ first_above: ok_to_drop, enter dropping;     | 4    | 3       |
    /// |        |                | count = 1, drop_next = 110 + 100/√1 = 210          |      |         |
    /// | 150    | 5..10          | dropping, 150 < drop_next                          | 5    |         |
    /// | 210    | 6..10          | drop 6, count = 2, next = 210 + 100/√2 = 280.71    | 7    | 6       |
    /// | 300    | 8..10          | drop 8, count = 3; 9 leaves 1000 B ≤ maxpacket:    | 9    | 8       |
    /// |        |                | below, leave dropping                              |      |         |
    /// | 300    | enqueue 11..=14|                                                   |      |         |
    /// | 310    | 10..14         | sojourn 310, 4000 B left: first_above = 410        | 10   |         |
    /// | 320    | 11..14         | above, 320 < 410                                  | 11   |         |
    /// | 410    | 12..14         | ok_to_drop: drop 12, enter dropping; 13 leaves     | 13   | 12      |
    /// |        |                | 1000 B (below). Re-entry: delta = 3 − 1 = 2 > 1,   |      |         |
    /// |        |                | 410 − 280.71 < 16 × 100: count = 2,                |      |         |
    /// |        |                | drop_next = 410 + 100/√2                           |      |         |
    /// | 420    | 14             | not ok (queue empties): leave dropping             | 14   |         |
    /// | 430    | (empty)        | nothing                                           | —    |         |
    #[test]
    fn rfc8289_state_machine_by_hand() {
        let params = CoDelParams {
            target: five_ms(),
            interval: hundred_ms(),
            maxpacket: ethernet_mtu(),
        };
        let mut c = CoDel::new(&params, BufferLimit::Unlimited);
        for seq in 1..=10 {
            c.hold(held(seq, ms(0)));
        }
        let step = |c: &mut CoDel, t: u64| dequeue(c, ms(t));
        assert_eq!(step(&mut c, 10), (Some(1), vec![]));
        assert_eq!(c.first_above_time, Some(ms(110)));
        assert_eq!(step(&mut c, 50), (Some(2), vec![]));
        assert_eq!(step(&mut c, 110), (Some(4), vec![3]));
        assert_eq!(c.state(), (true, 1, ms(210)));
        assert_eq!(step(&mut c, 150), (Some(5), vec![]));
        assert_eq!(step(&mut c, 210), (Some(7), vec![6]));
        // 100 ms / √2 = 70 710 678 118.65 ps, truncated.
        let after_two = Time(ms(210).as_ps() + 70_710_678_118);
        assert_eq!(c.state(), (true, 2, after_two));
        assert_eq!(step(&mut c, 300), (Some(9), vec![8]));
        assert_eq!(c.state(), (false, 3, after_two));
        for seq in 11..=14 {
            c.hold(held(seq, ms(300)));
        }
        assert_eq!(step(&mut c, 310), (Some(10), vec![]));
        assert_eq!(step(&mut c, 320), (Some(11), vec![]));
        assert_eq!(step(&mut c, 410), (Some(13), vec![12]));
        assert_eq!(
            c.state(),
            (true, 2, Time(ms(410).as_ps() + 70_710_678_118)),
            "re-entry resumes at count = delta"
        );
        assert_eq!(step(&mut c, 420), (Some(14), vec![]));
        assert!(!c.state().0);
        assert_eq!(step(&mut c, 430), (None, vec![]));
        assert_eq!((c.queue.len(), c.bytes), (0, 0));
    }

    /// Re-entry long after the last dropping state (16 intervals or more) starts again at
    /// count = 1 (RFC 8289 §5).
    #[test]
    fn late_reentry_starts_again_at_one() {
        let params = CoDelParams {
            target: five_ms(),
            interval: hundred_ms(),
            maxpacket: Bytes(0),
        };
        let mut c = CoDel::new(&params, BufferLimit::Unlimited);
        c.count = 5;
        c.lastcount = 1;
        c.drop_next = ms(100);
        for seq in 1..=3 {
            c.hold(held(seq, ms(1000)));
        }
        // Sojourn 10 ms, 2000 B left: first_above = 1110 ms.
        assert_eq!(dequeue(&mut c, ms(1010)), (Some(1), vec![]));
        // The last dropping state's drop_next was at 0: at 1700 ms, 1700 − 0 ≥ 16 × 100 ms,
        // so the state is entered with count = 1 despite delta = 5 − 1 = 4.
        c.drop_next = Time::ZERO;
        assert_eq!(dequeue(&mut c, ms(1700)), (Some(3), vec![2]));
        assert_eq!(c.state(), (true, 1, ms(1800)));
    }

    #[test]
    fn bad_parameters_are_refused() {
        let p = |target: u64, interval: u64| CoDelParams {
            target: Dur(Duration::from_ms(target)),
            interval: Dur(Duration::from_ms(interval)),
            maxpacket: ethernet_mtu(),
        };
        assert!(CoDel::check(&p(5, 100)).is_ok());
        assert!(CoDel::check(&p(0, 100)).is_err());
        let e = CoDel::check(&p(5, 5)).unwrap_err().to_string();
        assert!(e.starts_with("interval = 5ms"), "{e}");
    }
}
