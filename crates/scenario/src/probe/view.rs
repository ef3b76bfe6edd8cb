//! What [`super::Probe::finish`] reads of the finished run: a view the engine implements, so
//! probes (which the engine holds) need not name the engine's own types.

use incastsim_core::Time;
use incastsim_schemes::{ReceiverScheme, SenderScheme};
use incastsim_switch::OutputPort;
use incastsim_tcp::{TcpReceiver, TcpSender};

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
    /// Every flow's TCP sender, by flow index (read its state with `cc_state`).
    fn senders(&self) -> &[TcpSender<SenderScheme>];
    /// Every flow's TCP receiver, by flow index.
    fn receivers(&self) -> &[TcpReceiver<ReceiverScheme>];
    /// Every output port (switch ports and host NICs), by port index.
    fn ports(&self) -> &[OutputPort];
    /// Packets dropped anywhere (every reason).
    fn packets_dropped(&self) -> u64;
}
