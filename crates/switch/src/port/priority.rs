//! A port that serves traffic classes by strict priority, deciding each departure at dequeue,
//! and that may be paused per class by Priority Flow Control (IEEE 802.1Qbb).
//!
//! Waiting packets sit in one FIFO per class. Each transmission end (a `TxDone` event) starts
//! the next packet of the highest class that has one and is not paused. A paused class keeps
//! its packets until its pause lapses or a RESUME comes (802.1Qbb §36.1.3.2: the MAC control
//! sublayer stops transmission of the priority, but a frame already being sent finishes). PAUSE
//! frames this port sends jump every class queue: they go on the wire as soon as the packet
//! being sent is done.

use incastsim_core::{Packet, Time};
use std::collections::VecDeque;

/// A packet waiting for the transmitter, with when it was admitted and the port it came in on
/// (its node's ingress accounting hears when it leaves; `u32::MAX`: none).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Waiting {
    pub packet: Packet,
    pub admitted: Time,
    pub ingress: u32,
}

/// The per-class queues of a strict-priority port and its pause state.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct PriorityQueues {
    waiting: Vec<VecDeque<Waiting>>,
    waiting_count: usize,
    /// When the pending `TxDone` event is due (`Time::MAX`: none is). An event at another
    /// time is stale: a RESUME moved the port's next look earlier.
    tx_done_at: Time,
    /// Per class: paused until this time (a time not after now: not paused). Empty: this
    /// port is never paused (no PFC), and every check of it is skipped.
    paused_until: Vec<Time>,
}

impl PriorityQueues {
    /// `classes` queues (≥ 1); `pausable`: PFC may pause them.
    pub fn new(classes: usize, pausable: bool) -> PriorityQueues {
        PriorityQueues {
            waiting: vec![VecDeque::new(); classes],
            waiting_count: 0,
            tx_done_at: Time::MAX,
            paused_until: if pausable {
                vec![Time::ZERO; classes]
            } else {
                Vec::new()
            },
        }
    }

    /// Number of classes.
    pub fn classes(&self) -> usize {
        self.waiting.len()
    }

    /// Whether PFC may pause these queues.
    pub fn pausable(&self) -> bool {
        !self.paused_until.is_empty()
    }

    /// The class of `packet`: min(DSCP, classes − 1).
    #[inline]
    pub fn class_of(&self, packet: &Packet) -> usize {
        (packet.dscp as usize).min(self.waiting.len() - 1)
    }

    /// Packets waiting in all classes.
    #[inline]
    pub fn waiting_count(&self) -> usize {
        self.waiting_count
    }

    /// Every waiting packet (for the mean queue).
    pub fn iter(&self) -> impl Iterator<Item = &Waiting> {
        self.waiting.iter().flatten()
    }

    /// Whether class `c` is paused at `now`.
    #[inline]
    pub fn paused(&self, c: usize, now: Time) -> bool {
        self.paused_until.get(c).is_some_and(|&t| t > now)
    }

    /// Whether a packet of class `c` admitted at `now` must wait: the link is busy (until
    /// `link_free_at`), others wait, or its class is paused.
    #[inline]
    pub fn must_wait(&self, c: usize, now: Time, link_free_at: Time) -> bool {
        link_free_at > now || self.waiting_count > 0 || self.paused(c, now)
    }

    /// Queues `w` in class `c`.
    pub fn push(&mut self, c: usize, w: Waiting) {
        self.waiting[c].push_back(w);
        self.waiting_count += 1;
    }

    /// Asks for a `TxDone` at `at`: returns the time to schedule one, unless one is pending
    /// no later.
    pub fn request_tx_done(&mut self, at: Time) -> Option<Time> {
        (at < self.tx_done_at).then(|| {
            self.tx_done_at = at;
            at
        })
    }

    /// A `TxDone` event popped at `now`: false if it is stale (another is due at its own
    /// time), else the port looks now and no event is pending any more.
    pub fn take_tx_done(&mut self, now: Time) -> bool {
        if self.tx_done_at != now {
            return false;
        }
        self.tx_done_at = Time::MAX;
        true
    }

    /// The next packet to start at `now`: the head of the highest class that has one and is
    /// not paused; `Err(Some(t))`: every class with packets is paused, the first until `t`.
    pub fn pick(&mut self, now: Time) -> Result<Waiting, Option<Time>> {
        let mut resume_at = None::<Time>;
        for c in (0..self.waiting.len()).rev() {
            if self.waiting[c].is_empty() {
                continue;
            }
            if self.paused(c, now) {
                let until = self.paused_until[c];
                resume_at = Some(resume_at.map_or(until, |t| t.min(until)));
                continue;
            }
            let w = self.waiting[c].pop_front().expect("non-empty");
            self.waiting_count -= 1;
            return Ok(w);
        }
        Err(resume_at)
    }

    /// Pauses class `c` until `until` (a later PAUSE replaces an earlier one's time, as
    /// 802.1Qbb's per-priority timer is reloaded; `until` ≤ now resumes it).
    pub fn set_pause(&mut self, c: usize, until: Time) {
        if let Some(t) = self.paused_until.get_mut(c) {
            *t = until;
        }
    }

    /// Packets waiting in class `c`.
    pub fn class_waiting(&self, c: usize) -> usize {
        self.waiting.get(c).map_or(0, VecDeque::len)
    }
}
