//! What [`super::Probe::finish`] reads of the finished run: a view the engine implements, so
//! probes (which the engine holds) need not name the engine's own types.

use incastsim_core::Time;
use incastsim_schemes::{ReceiverScheme, SenderScheme};
use incastsim_switch::OutputPort;
use incastsim_tcp::{ReceiverSummary, SenderSummary, TcpReceiver, TcpSender};

/// Counters for the conservation invariant: sent = delivered + dropped + in flight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacketCounters {
    /// Packets hosts handed to their NIC.
    pub sent: u64,
    /// Packets that reached their destination host.
    pub delivered: u64,
    /// Packets switches handed to an output port.
    pub forwarded: u64,
}

/// The finished run as a probe's `finish` sees it (read-only). `Simulation` implements it; its
/// inherent methods of the same names say the same.
pub trait FinishedRun {
    /// The time of the last event processed.
    fn now(&self) -> Time;
    /// Packet counters (sent, forwarded, delivered).
    fn counters(&self) -> PacketCounters;
    /// TCP flows in the run (flow ids are `0..flows()`).
    fn flows(&self) -> usize;
    /// Flow f's TCP sender, if its connection is still held (a traffic generator's flow gives
    /// it up once finished: read [`FinishedRun::sender_summary`]).
    fn sender(&self, f: usize) -> Option<&TcpSender<SenderScheme>>;
    /// Flow f's TCP receiver, if its connection is still held.
    fn receiver(&self, f: usize) -> Option<&TcpReceiver<ReceiverScheme>>;
    /// Flow f's sender counters and final state (every flow).
    fn sender_summary(&self, f: usize) -> SenderSummary;
    /// Flow f's receiver counters and final state (every flow).
    fn receiver_summary(&self, f: usize) -> ReceiverSummary;
    /// Every output port (switch ports and host NICs), by port index.
    fn ports(&self) -> &[OutputPort];
    /// Packets dropped anywhere (every reason).
    fn packets_dropped(&self) -> u64;
    /// The values flow f's controller and scheme report of their own, by name (every flow: a
    /// finished one's final snapshot).
    fn component_values(&self, f: usize) -> Vec<(&'static str, f64)>;
}
