//! A test bench for the traces: one sender and one receiver joined by two FIFO links of a fixed
//! one-way delay, driven the way the engine will drive them (pacing wake-ups, the timer, ACKs),
//! with rules that drop data packets or ACKs and mark CE. Everything is recorded for the
//! assertions.

use crate::{AckPacket, DataPacket, RoceReceiver, RoceSender};
use incastsim_core::{Duration, TELEMETRY_WORDS, Time};
use std::collections::{HashMap, VecDeque};

/// Decides whether a data packet is dropped: the packet, how many times its PSN was sent
/// before, and the index of this transmission among all data transmissions.
pub(crate) type DataRule = Box<dyn FnMut(&DataPacket, u32, u64) -> bool>;
/// Decides whether an ACK/NACK is dropped, by its index among all sent.
pub(crate) type AckRule = Box<dyn FnMut(&AckPacket, u64) -> bool>;

pub(crate) struct Bench {
    pub sender: RoceSender,
    pub receiver: RoceReceiver,
    pub delay: Duration,
    pub now: Time,
    data: VecDeque<(Time, DataPacket)>,
    acks: VecDeque<(Time, AckPacket)>,
    /// Every data transmission: (time, packet, dropped).
    pub sent: Vec<(Time, DataPacket, bool)>,
    /// Every ACK/NACK the receiver sent: (time, packet, dropped).
    pub replies: Vec<(Time, AckPacket, bool)>,
    /// Every in-order delivery: (time, bytes).
    pub deliveries: Vec<(Time, u64)>,
    /// Timeouts seen through `on_timer` calls: the times the RTO fired.
    pub timeouts_at: Vec<Time>,
    attempts: HashMap<u64, u32>,
    pub drop_data: DataRule,
    pub drop_ack: AckRule,
    pub mark_ce: Box<dyn FnMut(&DataPacket) -> bool>,
    buf: Vec<DataPacket>,
}

impl Bench {
    pub(crate) fn new(sender: RoceSender, receiver: RoceReceiver, delay: Duration) -> Bench {
        Bench {
            sender,
            receiver,
            delay,
            now: Time::ZERO,
            data: VecDeque::new(),
            acks: VecDeque::new(),
            sent: Vec::new(),
            replies: Vec::new(),
            deliveries: Vec::new(),
            timeouts_at: Vec::new(),
            attempts: HashMap::new(),
            drop_data: Box::new(|_, _, _| false),
            drop_ack: Box::new(|_, _| false),
            mark_ce: Box::new(|_| false),
            buf: Vec::new(),
        }
    }

    /// Drops the first transmission of each PSN in `psns`.
    pub(crate) fn lose_first(mut self, psns: &'static [u64]) -> Bench {
        self.drop_data = Box::new(move |p, attempt, _| attempt == 0 && psns.contains(&p.psn));
        self
    }

    fn transmit(&mut self) {
        for p in self.buf.drain(..) {
            let a = self.attempts.entry(p.psn).or_insert(0);
            let attempt = *a;
            *a += 1;
            let index = self.sent.len() as u64;
            let dropped = (self.drop_data)(&p, attempt, index);
            self.sent.push((self.now, p, dropped));
            if !dropped {
                self.data.push_back((self.now + self.delay, p));
            }
        }
    }

    /// Runs until nothing is left to happen (or `max_steps` instants pass: returns false then).
    pub(crate) fn run(&mut self, max_steps: u32) -> bool {
        for _ in 0..max_steps {
            let next = [
                self.data.front().map(|d| d.0),
                self.acks.front().map(|a| a.0),
                self.sender.next_send_time(self.now),
                self.sender.timer_deadline(),
                self.receiver.ack_deadline(),
            ]
            .into_iter()
            .flatten()
            .min();
            let Some(t) = next else {
                return true;
            };
            assert!(t >= self.now, "time went back: {t:?} < {:?}", self.now);
            self.now = t;
            while self.data.front().is_some_and(|d| d.0 <= t) {
                let (_, p) = self.data.pop_front().unwrap();
                let ce = (self.mark_ce)(&p);
                let r = self.receiver.on_data(t, &p, ce, telemetry_of(p.psn));
                if r.delivered_bytes > 0 {
                    self.deliveries.push((t, r.delivered_bytes));
                }
                if let Some(a) = r.ack {
                    let dropped = (self.drop_ack)(&a, self.replies.len() as u64);
                    self.replies.push((t, a, dropped));
                    if !dropped {
                        self.acks.push_back((t + self.delay, a));
                    }
                }
            }
            if let Some(a) = self.receiver.on_ack_timer(t) {
                let dropped = (self.drop_ack)(&a, self.replies.len() as u64);
                self.replies.push((t, a, dropped));
                if !dropped {
                    self.acks.push_back((t + self.delay, a));
                }
            }
            while self.acks.front().is_some_and(|a| a.0 <= t) {
                let (_, a) = self.acks.pop_front().unwrap();
                self.sender.on_ack(t, &a, &[], &mut self.buf);
                self.transmit();
            }
            if self.sender.timer_deadline().is_some_and(|d| d <= t) {
                let before = self.sender.stats().timeouts;
                self.sender.on_timer(t, &mut self.buf);
                if self.sender.stats().timeouts > before {
                    self.timeouts_at.push(t);
                }
                self.transmit();
            }
            if self.sender.next_send_time(t) == Some(t) {
                self.sender.emit(t, &mut self.buf);
                self.transmit();
            }
        }
        false
    }

    /// PSNs in transmission order.
    pub(crate) fn sent_psns(&self) -> Vec<u64> {
        self.sent.iter().map(|s| s.1.psn).collect()
    }

    /// Times of the transmissions.
    pub(crate) fn send_times(&self) -> Vec<u64> {
        self.sent.iter().map(|s| s.0.as_ps()).collect()
    }
}

/// Telemetry the bench stamps on packets: the PSN and two constants (checked to be echoed).
pub(crate) fn telemetry_of(psn: u64) -> [u64; TELEMETRY_WORDS] {
    [psn, 7, 9]
}
