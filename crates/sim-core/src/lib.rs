//! incastsim-core: the parts of the simulator that know nothing of TCP or queue disciplines.
//!
//! - [`time`]: integer picosecond time; [`units`]: link rates and exact serialization times.
//! - [`event`]: the deterministic event queue; [`timer`]: lazily cancelled timers.
//! - [`rng`]: seeded, portable per-component random streams.
//! - [`packet`]: the `Copy` packet; [`topology`]: nodes, ports, links and ECMP routing.
//!
//! Architecture invariant: nothing here reads the wall clock or global state.

#![warn(missing_docs)]

pub mod event;
pub mod int;
pub mod packet;
pub mod prefetch;
pub mod rng;
pub mod time;
pub mod timer;
pub mod topology;
pub mod units;

pub use event::{EventQueue, TieOrder};
pub use int::{IntHop, MAX_INT_HOPS};
pub use packet::{Ecn, FlowId, HostId, NO_PATH, Packet, PacketKind, SackBlock, TELEMETRY_WORDS};
pub use prefetch::{prefetch, prefetch_bytes};
pub use rng::{SimRng, Stream};
pub use time::{Duration, Time};
pub use timer::{LazyTimer, TimerFire};
pub use topology::{NodeId, NodeKind, PortId, Routes, Topology};
pub use units::{BitsPerSec, SerializationRate};
