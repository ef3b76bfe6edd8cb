//! The events of the loop and the lazy-timer helpers that schedule them.

use incastsim_core::{EventQueue, LazyTimer, Time, TimerFire};

/// A pending event: small and `Copy`. Timer events carry their timer's generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head packet of an output port reaches the far end of its link.
    PortHead {
        /// Index of the port in the fabric.
        port: u32,
    },
    /// A strict-priority port finished a transmission and picks the next packet.
    PortTxDone {
        /// Index of the port in the fabric.
        port: u32,
    },
    /// A flow's retransmission timer expires (stale unless `generation` is the timer's current
    /// one).
    Rto {
        /// Flow index (into the senders and receivers).
        flow: u32,
        /// The timer's generation when armed: re-arming makes older events no-ops (lazy
        /// cancellation).
        generation: u32,
    },
    /// A receiver's delayed-ACK timer expires (RFC 1122 4.2.3.2; stale unless `generation`
    /// matches).
    DelayedAck {
        /// Flow index (into the senders and receivers).
        flow: u32,
        /// The timer's generation when armed.
        generation: u32,
    },
    /// A server starts answering a request (after its start jitter).
    ServerStart {
        /// Flow index (into the senders and receivers).
        flow: u32,
    },
    /// Re-requests, from every server that has sent nothing yet, the block started at `block`.
    RequestCheck {
        /// Index of the block (0-based).
        block: u32,
    },
    /// A UDP CBR source sends its next datagram.
    UdpSend {
        /// Index of the UDP source (`background:` entries in order).
        source: u32,
    },
    /// A traffic-generator flow starts (and schedules its generator's next flow).
    FlowStart {
        /// Flow index (into the senders and receivers).
        flow: u32,
    },
    /// A fixed-duration flow's application stops writing.
    FlowStop {
        /// Flow index (into the senders and receivers).
        flow: u32,
    },
    /// The next overhead-delayed segment of `flow` leaves its host (`tcp.send_overhead`).
    DeferredSend {
        /// Flow index (into the senders and receivers).
        flow: u32,
    },
    /// Take one time-series sample.
    Sample,
    /// The end of a fixed-duration workload.
    End,
    /// The first block of synchronized reads after `workload.warmup`.
    FirstBlock,
    /// A scheme's periodic per-connection timer (only for schemes that ask for one).
    SchemeTimer {
        /// Flow index (into the senders and receivers).
        flow: u32,
    },
}

/// A lazy timer's event popped: true if the timer fires now. A timer moved later re-queues its
/// event (with the new generation); a cancelled or superseded one is dropped.
#[inline]
pub(crate) fn timer_fires(
    timer: &mut LazyTimer,
    events: &mut EventQueue<Event>,
    now: Time,
    generation: u32,
    event: impl Fn(u32) -> Event,
) -> bool {
    match timer.on_event(now, generation) {
        TimerFire::Fire => true,
        TimerFire::Reschedule(at, g) => {
            events.schedule(at, event(g));
            false
        }
        TimerFire::Stale => false,
    }
}

/// Arms, moves or cancels a lazy timer so its deadline is `want`, scheduling an event if needed.
#[inline]
pub(crate) fn sync_timer(
    timer: &mut LazyTimer,
    want: Option<Time>,
    events: &mut EventQueue<Event>,
    event: impl Fn(u32) -> Event,
) {
    if timer.deadline() == want {
        return;
    }
    match want {
        Some(d) => {
            if let Some((at, generation)) = timer.arm(d) {
                events.schedule(at, event(generation));
            }
        }
        None => timer.cancel(),
    }
}
