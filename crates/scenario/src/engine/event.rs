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
    /// A port that decides at dequeue (strict priority, a scheduling discipline) finished a
    /// transmission (or its link is idle and a packet came) and picks the next packet.
    PortTxDone {
        /// Index of the port in the fabric.
        port: u32,
    },
    /// A scheduling discipline's timer at a port (stale unless `generation` matches).
    PortTimer {
        /// Index of the port in the fabric (28 bits, as a timer event's flow).
        port: u32,
        /// The timer's generation when armed.
        generation: u32,
    },
    /// A flow's retransmission timer expires (stale unless `generation` is the timer's current
    /// one); for a RoCE flow, its pacing (its retransmission timer is a `RoceTimer`).
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
    /// A PFC event (tag 15): one arm in the loop, handled out of line
    /// (`Simulation::on_pfc_event`), so that runs without PFC pay nothing for its kinds.
    Pfc(PfcEvent),
    /// A flow dependency's event (`engine/gates.rs`; packed under tag 15 beside PFC's, one
    /// out-of-line arm).
    Gate(GateEvent),
    /// A RoCE queue pair's transport timer (its retransmission timer and its rate
    /// controller's; `engine/roce.rs`), apart from its pacing (an `Rto` event): packed under
    /// tag 15 with the low 28 bits of its generation ([`ROCE_GENERATION_BITS`]).
    RoceTimer {
        /// Flow index (28 bits).
        flow: u32,
        /// The low [`ROCE_GENERATION_BITS`] bits of the timer's generation when armed.
        generation: u32,
    },
}

/// The events of flow dependencies ([`crate::plan::traffic::depend`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GateEvent {
    /// The news that one thing `gate` waits for happened (a flow completed or a gate opened
    /// at another host) reaches the gate's host.
    Notify {
        /// The gate.
        gate: u32,
    },
    /// `gate`'s delay after the last of what it waited for is over: it opens.
    Open {
        /// The gate.
        gate: u32,
    },
}

/// The events of Priority Flow Control (`engine/pfc/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PfcEvent {
    /// PFC: a PAUSE (or RESUME, `quanta` 0) frame that `port` sent takes effect at the far
    /// end: the port back, [`crate::plan::pfc::PfcPlan::reverse`], pauses `class`.
    PauseFrame {
        /// The port that sent the frame.
        port: u32,
        /// The paused class (< 64).
        class: u8,
        /// Pause time in quanta of 512 bit times (0: resume).
        quanta: u16,
    },
    /// PFC: the input fed by `port` re-sends its PAUSE for `class` if still paused (stale
    /// unless due now).
    Refresh {
        /// The port that feeds the input (its far end holds the count).
        port: u32,
        /// The class (< 64).
        class: u8,
    },
    /// PFC: the pause of `port`'s `class` lapses at the next picosecond unless refreshed or
    /// resumed (stale otherwise): the flows waiting in it are charged their paused time.
    Lapse {
        /// The paused port.
        port: u32,
        /// The class (< 64).
        class: u8,
    },
    /// PFC: the deadlock detector's re-check (stale unless due now).
    Check,
    /// `pfc.host_receive`: host `host` takes the first packet of its receive buffer.
    HostTake {
        /// The host.
        host: u32,
    },
}

/// The queue of the loop's events, each stored packed.
pub type Events = EventQueue<PackedEvent>;

/// Flows a run may have: a flow index takes 28 bits of a [`PackedEvent`].
pub const MAX_FLOWS: u64 = 1 << FLOW_BITS;

const TAG_SHIFT: u32 = 60;
const FLOW_SHIFT: u32 = 32;
const FLOW_BITS: u32 = 28;
const LOW: u64 = u32::MAX as u64;
const PFC_CLASS_SHIFT: u32 = 48;
const PFC_REFRESH_BIT: u32 = 59;
/// Under tag 15 with bit 59 clear, bits 56-58 name the PFC event: 0 a frame, then these.
const PFC_KIND_SHIFT: u32 = 56;
const PFC_LAPSE: u64 = 1;
const PFC_CHECK: u64 = 2;
const PFC_HOST_TAKE: u64 = 3;
/// Under tag 15, sub-kinds 4 and 5 are the flow dependencies' events (the gate in the low 32
/// bits).
const GATE_NOTIFY: u64 = 4;
const GATE_OPEN: u64 = 5;
/// Under tag 15, sub-kind 6 is a RoCE transport timer: its flow in bits 28-55, the low 28
/// bits of its generation below.
const ROCE_TIMER: u64 = 6;
/// The generation bits a [`Event::RoceTimer`] carries (see
/// [`LazyTimer::live_generation`](incastsim_core::LazyTimer::live_generation)).
pub const ROCE_GENERATION_BITS: u32 = 28;

/// An [`Event`] in 8 bytes, as the queue stores it: the variant in the top 4 bits, then a timer
/// event's flow (28 bits) and its generation (32), or the one field of the other variants (32);
/// under tag 15, sub-kinds (PFC's events, the gates', a RoCE transport timer with 28 bits of
/// its generation).
///
/// Why: the enum takes 12 bytes, so a heap entry (a 64-bit key and the event) took 24, and a
/// sift moved each in two pieces; packed, an entry is 16 bytes and four siblings fill one cache
/// line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedEvent(u64);

// The queue stores events in this one word (ARCHITECTURE.md, "The event loop").
const _: () = assert!(std::mem::size_of::<PackedEvent>() == 8);

impl From<Event> for PackedEvent {
    #[inline(always)]
    fn from(event: Event) -> Self {
        let one = |tag: u64, value: u32| PackedEvent(tag << TAG_SHIFT | u64::from(value));
        let timer = |tag: u64, flow: u32, generation: u32| {
            debug_assert!(u64::from(flow) < MAX_FLOWS, "flow index over 28 bits");
            PackedEvent(tag << TAG_SHIFT | u64::from(flow) << FLOW_SHIFT | u64::from(generation))
        };
        match event {
            Event::PortHead { port } => one(0, port),
            Event::PortTxDone { port } => one(1, port),
            Event::Rto { flow, generation } => timer(2, flow, generation),
            Event::DelayedAck { flow, generation } => timer(3, flow, generation),
            Event::ServerStart { flow } => one(4, flow),
            Event::RequestCheck { block } => one(5, block),
            Event::UdpSend { source } => one(6, source),
            Event::FlowStart { flow } => one(7, flow),
            Event::FlowStop { flow } => one(8, flow),
            Event::DeferredSend { flow } => one(9, flow),
            Event::Sample => one(10, 0),
            Event::End => one(11, 0),
            Event::FirstBlock => one(12, 0),
            Event::SchemeTimer { flow } => one(13, flow),
            Event::PortTimer { port, generation } => timer(14, port, generation),
            Event::Pfc(e) => e.pack(),
            Event::Gate(GateEvent::Notify { gate }) => {
                PackedEvent(15 << TAG_SHIFT | GATE_NOTIFY << PFC_KIND_SHIFT | u64::from(gate))
            }
            Event::Gate(GateEvent::Open { gate }) => {
                PackedEvent(15 << TAG_SHIFT | GATE_OPEN << PFC_KIND_SHIFT | u64::from(gate))
            }
            Event::RoceTimer { flow, generation } => {
                debug_assert!(u64::from(flow) < MAX_FLOWS, "flow index over 28 bits");
                let low = u64::from(generation) & ((1 << ROCE_GENERATION_BITS) - 1);
                PackedEvent(
                    15 << TAG_SHIFT
                        | ROCE_TIMER << PFC_KIND_SHIFT
                        | u64::from(flow) << ROCE_GENERATION_BITS
                        | low,
                )
            }
        }
    }
}

impl PackedEvent {
    /// The event.
    #[inline(always)]
    pub fn unpack(self) -> Event {
        let value = (self.0 & LOW) as u32;
        let flow = || ((self.0 >> FLOW_SHIFT) & ((1 << FLOW_BITS) - 1)) as u32;
        match self.0 >> TAG_SHIFT {
            0 => Event::PortHead { port: value },
            1 => Event::PortTxDone { port: value },
            2 => Event::Rto {
                flow: flow(),
                generation: value,
            },
            3 => Event::DelayedAck {
                flow: flow(),
                generation: value,
            },
            4 => Event::ServerStart { flow: value },
            5 => Event::RequestCheck { block: value },
            6 => Event::UdpSend { source: value },
            7 => Event::FlowStart { flow: value },
            8 => Event::FlowStop { flow: value },
            9 => Event::DeferredSend { flow: value },
            10 => Event::Sample,
            11 => Event::End,
            12 => Event::FirstBlock,
            13 => Event::SchemeTimer { flow: value },
            14 => Event::PortTimer {
                port: flow(),
                generation: value,
            },
            _ => unpack_tag15(self.0),
        }
    }

    /// The port of a head arrival (the look-ahead's question), without unpacking the rest.
    #[inline(always)]
    pub fn port_head(self) -> Option<u32> {
        (self.0 >> TAG_SHIFT == 0).then_some((self.0 & LOW) as u32)
    }
}

/// The event packed under tag 15 (PFC's, a flow dependency's or a RoCE transport timer). Out of line: the loop's
/// unpacking of every other event stays as it was.
#[cold]
#[inline(never)]
fn unpack_tag15(bits: u64) -> Event {
    let gate = (bits & LOW) as u32;
    if bits >> PFC_REFRESH_BIT & 1 == 0 {
        match bits >> PFC_KIND_SHIFT & 7 {
            GATE_NOTIFY => return Event::Gate(GateEvent::Notify { gate }),
            GATE_OPEN => return Event::Gate(GateEvent::Open { gate }),
            ROCE_TIMER => {
                let low = (1u64 << ROCE_GENERATION_BITS) - 1;
                return Event::RoceTimer {
                    flow: (bits >> ROCE_GENERATION_BITS & ((1 << FLOW_BITS) - 1)) as u32,
                    generation: (bits & low) as u32,
                };
            }
            _ => {}
        }
    }
    Event::Pfc(PfcEvent::unpack(bits))
}

impl PfcEvent {
    /// Packed under tag 15: bit 59 marks a refresh, else bits 56-58 the sub-kind (0: a
    /// frame); then the class (6 bits, 48..54), the quanta (16 bits, 32..48) and the port (32
    /// bits).
    #[inline]
    fn pack(self) -> PackedEvent {
        let head = |kind: u64, port: u32, class: u8| {
            15 << TAG_SHIFT
                | kind << PFC_KIND_SHIFT
                | u64::from(class & 63) << PFC_CLASS_SHIFT
                | u64::from(port)
        };
        PackedEvent(match self {
            PfcEvent::PauseFrame {
                port,
                class,
                quanta,
            } => head(0, port, class) | u64::from(quanta) << FLOW_SHIFT,
            PfcEvent::Refresh { port, class } => head(0, port, class) | 1 << PFC_REFRESH_BIT,
            PfcEvent::Lapse { port, class } => head(PFC_LAPSE, port, class),
            PfcEvent::Check => head(PFC_CHECK, 0, 0),
            PfcEvent::HostTake { host } => head(PFC_HOST_TAKE, host, 0),
        })
    }

    /// The PFC event packed in `bits` (tag 15).
    fn unpack(bits: u64) -> PfcEvent {
        let port = (bits & LOW) as u32;
        let class = ((bits >> PFC_CLASS_SHIFT) & 63) as u8;
        if bits >> PFC_REFRESH_BIT & 1 != 0 {
            return PfcEvent::Refresh { port, class };
        }
        match bits >> PFC_KIND_SHIFT & 7 {
            PFC_LAPSE => PfcEvent::Lapse { port, class },
            PFC_CHECK => PfcEvent::Check,
            PFC_HOST_TAKE => PfcEvent::HostTake { host: port },
            _ => PfcEvent::PauseFrame {
                port,
                class,
                quanta: (bits >> FLOW_SHIFT) as u16,
            },
        }
    }
}

/// A lazy timer's event popped: true if the timer fires now. A timer moved later re-queues its
/// event (with the new generation); a cancelled or superseded one is dropped.
#[inline]
pub(crate) fn timer_fires(
    timer: &mut LazyTimer,
    events: &mut Events,
    now: Time,
    generation: u32,
    event: impl Fn(u32) -> Event,
) -> bool {
    match timer.on_event(now, generation) {
        TimerFire::Fire => true,
        TimerFire::Reschedule(at, g) => {
            events.schedule(at, event(g).into());
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
    events: &mut Events,
    event: impl Fn(u32) -> Event,
) {
    if timer.deadline() == want {
        return;
    }
    match want {
        Some(d) => {
            if let Some((at, generation)) = timer.arm(d) {
                events.schedule(at, event(generation).into());
            }
        }
        None => timer.cancel(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_unpacks_to_itself() {
        let max_flow = (MAX_FLOWS - 1) as u32;
        let events = [
            Event::PortHead { port: 0 },
            Event::PortHead { port: u32::MAX },
            Event::PortTxDone { port: 7 },
            Event::Rto {
                flow: max_flow,
                generation: u32::MAX,
            },
            Event::Rto {
                flow: 0,
                generation: 0,
            },
            Event::DelayedAck {
                flow: 12_345,
                generation: 1 << 31,
            },
            Event::ServerStart { flow: u32::MAX },
            Event::RequestCheck { block: 3 },
            Event::UdpSend { source: 9 },
            Event::FlowStart { flow: max_flow },
            Event::FlowStop { flow: 1 },
            Event::DeferredSend { flow: 2 },
            Event::Sample,
            Event::End,
            Event::FirstBlock,
            Event::SchemeTimer { flow: u32::MAX },
            Event::PortTimer {
                port: max_flow,
                generation: 17,
            },
            Event::Pfc(PfcEvent::PauseFrame {
                port: u32::MAX,
                class: 63,
                quanta: u16::MAX,
            }),
            Event::Pfc(PfcEvent::PauseFrame {
                port: 3,
                class: 0,
                quanta: 0,
            }),
            Event::Pfc(PfcEvent::Refresh {
                port: u32::MAX,
                class: 7,
            }),
            Event::Pfc(PfcEvent::Lapse {
                port: u32::MAX,
                class: 63,
            }),
            Event::Pfc(PfcEvent::Lapse { port: 0, class: 0 }),
            Event::Pfc(PfcEvent::Check),
            Event::Pfc(PfcEvent::HostTake { host: u32::MAX }),
            Event::Gate(GateEvent::Notify { gate: 0 }),
            Event::Gate(GateEvent::Notify { gate: u32::MAX }),
            Event::Gate(GateEvent::Open { gate: 7 }),
            Event::Gate(GateEvent::Open { gate: u32::MAX }),
            Event::RoceTimer {
                flow: max_flow,
                generation: (1 << ROCE_GENERATION_BITS) - 1,
            },
            Event::RoceTimer {
                flow: 3,
                generation: 0,
            },
        ];
        for event in events {
            let packed = PackedEvent::from(event);
            assert_eq!(packed.unpack(), event);
            let head = match event {
                Event::PortHead { port } => Some(port),
                _ => None,
            };
            assert_eq!(packed.port_head(), head, "{event:?}");
        }
        assert_eq!(std::mem::size_of::<PackedEvent>(), 8);
    }
}
