//! [`Drr2`]: two internal queues served by deficit round robin (Shreedhar & Varghese,
//! "Efficient fair queueing using deficit round robin", SIGCOMM 1995), through the dequeue
//! side of the public queue-discipline trait:
//! `topology.switch_queue: {name: drr2, quantum: 1500B, classify: flow}`.
//!
//! A packet goes to queue `flow mod 2` (`classify: flow`) or to queue 1 if its DSCP is
//! non-zero, else 0 (`classify: dscp`). Each round a non-empty queue's deficit grows by the
//! quantum and the queue sends while its head fits in the deficit; an emptied queue's deficit
//! returns to 0 (§3 of the paper, Figure 1's `DRR` procedure). Admission is the port buffer's
//! (tail drop; the paper's "drop from the longest queue" is not done).

use incastsim::config::invalid;
use incastsim::config::units::Bytes;
use incastsim::core::{Packet, Time};
use incastsim::extend::{QueueContext, QueueDisciplineExtension};
use incastsim::scenario::ConfigError;
use incastsim::switch::{BufferLimit, DequeueContext, Held, Occupancy, QueueDiscipline, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Which of the two queues a packet joins.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Classify {
    /// Queue `flow mod 2`.
    #[default]
    Flow,
    /// Queue 1 for a non-zero DSCP, 0 otherwise.
    Dscp,
}

/// `drr2`'s parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Drr2Params {
    /// Bytes added to a queue's deficit per round (the paper's Quantum; at least the largest
    /// packet keeps the work per packet O(1), §3: 1500 B, the Ethernet MTU).
    #[serde(default = "ethernet_mtu")]
    pub quantum: Bytes,
    /// `flow` or `dscp`.
    #[serde(default)]
    pub classify: Classify,
}

fn ethernet_mtu() -> Bytes {
    Bytes(1500)
}

/// DRR over two queues at one switch port.
#[derive(Clone, Debug)]
pub struct Drr2 {
    quantum: u64,
    classify: Classify,
    limit: BufferLimit,
    queues: [VecDeque<Held>; 2],
    deficit: [u64; 2],
    /// The ActiveList: the non-empty queues, in round-robin order.
    active: VecDeque<u8>,
    /// The queue at the front of `active` already got its quantum this round.
    credited: bool,
}

impl Drr2 {
    /// DRR with `p` inside the port buffer `limit`.
    pub fn new(p: &Drr2Params, limit: BufferLimit) -> Drr2 {
        Drr2 {
            quantum: p.quantum.0,
            classify: p.classify,
            limit,
            queues: [VecDeque::new(), VecDeque::new()],
            deficit: [0; 2],
            active: VecDeque::with_capacity(2),
            credited: false,
        }
    }

    fn queue_of(&self, p: &Packet) -> usize {
        match self.classify {
            Classify::Flow => (p.flow % 2) as usize,
            Classify::Dscp => usize::from(p.dscp != 0),
        }
    }
}

impl QueueDiscipline for Drr2 {
    fn on_enqueue(&mut self, _packet: &mut Packet, _occ: Occupancy, _now: Time) -> Verdict {
        Verdict::Admit
    }

    fn limit(&self) -> BufferLimit {
        self.limit
    }

    fn schedules(&self) -> bool {
        true
    }

    fn hold(&mut self, held: Held) {
        let i = self.queue_of(&held.packet);
        if self.queues[i].is_empty() {
            // A queue joins the ActiveList at its tail when it becomes non-empty.
            self.active.push_back(i as u8);
        }
        self.queues[i].push_back(held);
    }

    fn dequeue(&mut self, _ctx: &mut DequeueContext) -> Option<Held> {
        loop {
            let i = *self.active.front()? as usize;
            if !self.credited {
                self.deficit[i] += self.quantum;
                self.credited = true;
            }
            let size = u64::from(self.queues[i].front()?.packet.wire_bytes());
            if size <= self.deficit[i] {
                self.deficit[i] -= size;
                let h = self.queues[i].pop_front();
                if self.queues[i].is_empty() {
                    // An emptied queue leaves the list and keeps no deficit.
                    self.deficit[i] = 0;
                    self.active.pop_front();
                    self.credited = false;
                }
                return h;
            }
            // The head does not fit: the queue's turn ends, it goes to the tail.
            self.active.rotate_left(1);
            self.credited = false;
        }
    }
}

impl QueueDisciplineExtension for Drr2 {
    type Params = Drr2Params;
    type Discipline = Drr2;
    const DESCRIPTION: &'static str =
        "two queues (by flow or DSCP) served by deficit round robin (Shreedhar & Varghese 1995)";

    fn check(p: &Drr2Params) -> Result<(), ConfigError> {
        if p.quantum.0 == 0 {
            return Err(invalid("quantum", p.quantum.0, "a positive size in bytes"));
        }
        Ok(())
    }

    fn new(p: &Drr2Params, ctx: &QueueContext) -> Drr2 {
        Drr2::new(p, ctx.limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use incastsim::core::PacketKind;
    use incastsim::switch::DequeueEffects;

    /// By hand, quantum 1500 B: queue 0 holds a1..a4 (1040 B), queue 1 b1..b6 (540 B).
    /// Round 1: q0 gets 1500, sends a1 (460 left, a2 does not fit); q1 gets 1500, sends b1, b2
    /// (420 left). Round 2: q0 1960, sends a2 (920); q1 1920, sends b3, b4, b5 (300). Round 3:
    /// q0 2420, sends a3, a4 (empty: deficit 0); q1 1800, sends b6.
    #[test]
    fn deficit_round_robin_by_hand() {
        let mut d = Drr2::new(
            &Drr2Params {
                quantum: Bytes(1500),
                classify: Classify::Flow,
            },
            BufferLimit::Unlimited,
        );
        let packet = |flow: u32, payload: u32, seq: u64| {
            let mut packet = Packet::new(PacketKind::Data, flow, 1, payload, 40);
            packet.seq = seq;
            Held {
                packet,
                enqueued_at: Time::ZERO,
            }
        };
        for k in 1..=4 {
            d.hold(packet(0, 1000, 100 + k));
        }
        for k in 1..=6 {
            d.hold(packet(1, 500, 200 + k));
        }
        let mut effects = DequeueEffects::default();
        let mut ctx = DequeueContext::new(Time::ZERO, &mut effects);
        let order: Vec<u64> = std::iter::from_fn(|| d.dequeue(&mut ctx))
            .map(|h| h.packet.seq)
            .collect();
        assert_eq!(
            order,
            [101, 201, 202, 102, 203, 204, 205, 103, 104, 206],
            "a1 b1 b2 a2 b3 b4 b5 a3 a4 b6"
        );
        assert!(ctx.dropped().is_empty());
        assert_eq!(d.deficit, [0, 0]);
        assert!(d.active.is_empty());
    }

    #[test]
    fn a_zero_quantum_is_refused() {
        let e = Drr2::check(&Drr2Params {
            quantum: Bytes(0),
            classify: Classify::Flow,
        })
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("quantum = 0"), "{e}");
    }
}
