//! incastsim-switch: output-queued ports and their queue disciplines.
//!
//! "A packet reaches a switch port" is [`OutputPort::enqueue`]: the discipline ([`QueueDisc`])
//! admits, marks or drops it, and the port fixes its departure time (or, if the discipline
//! schedules, the discipline picks departures at dequeue). On a shared-buffer switch
//! ([`SharedBuffer`]) the buffer's Dynamic Threshold admits first.

#![warn(missing_docs)]

pub mod pfc;
pub mod port;
pub mod qdisc;
pub mod shared;

pub use port::{
    Arrival, Departed, Enqueued, LinkLoss, NO_INGRESS, OutputPort, PortStats, STAT_CLASSES, TxDone,
};
pub use qdisc::{
    BoxedQueueDisc, BufferLimit, DequeueContext, DequeueEffects, DropReason, DropTail,
    ExtensionQueueDisc, Held, Occupancy, QueueDisc, QueueDiscipline, Red, RedParams, RedProfile,
    Threshold, ThresholdAdmit, ThresholdMark, Verdict,
};
pub use shared::{SharedBuffer, SharedBufferParams, SharedBufferStats};
