//! What a run shows from outside while it runs or after: probes added from code, a flow's or a
//! port's state at a pause ([`Simulation::run_until`]), and read access for results and tests.

use super::{PacketCounters, Simulation};
use crate::Config;
use crate::engine::diagnostics::Diagnostics;
use incastsim_core::Time;
use incastsim_schemes::{ReceiverScheme, SenderScheme};
use incastsim_tcp::{ReceiverSummary, SenderSummary, TcpReceiver, TcpSender};

/// A flow's state at a pause ([`Simulation::run_until`]), for tests and notebooks.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct FlowState {
    /// Its controller's state (cwnd, ssthresh, CUBIC's curve, DCTCP's α, recovery state).
    pub cc: incastsim_tcp::CcState,
    /// Oldest unacknowledged sequence number (bytes from 0).
    pub snd_una: u64,
    /// Highest sequence number sent so far, plus one (bytes from 0).
    pub snd_max: u64,
    /// Bytes its receiver delivered in order to the application.
    pub delivered_bytes: u64,
    /// Retransmission timeouts so far.
    pub timeouts: u64,
}

impl Simulation {
    // ----- probes -----

    /// Adds a probe ([`crate::probe::Probe`]) to this run: from now on it hears of every hook.
    /// Add probes before running: a probe added later misses what happened before.
    pub fn add_probe(&mut self, probe: Box<dyn crate::probe::Probe>) {
        self.obs.add_probe(probe);
        self.sync_watched();
    }

    /// The network's copy of whether anything watches its packet paths.
    pub(crate) fn sync_watched(&mut self) {
        // Host receive buffers (`pfc.host_receive`) live on the watched arrival path, and,
        // without PFC (whose admission path does it), in-band telemetry's stamp of a packet
        // that starts at once.
        self.network.watched = self.obs.watched
            || self.network.host_rx
            || (self.network.int_on && self.network.pfc.is_none());
        if self.obs.probes.on {
            self.network.name_ports();
        }
    }

    /// Builds one probe per factory for this run (their random streams are `Stream::Probe`
    /// instances in this order, after the config's `probes:`) and adds them.
    pub fn add_probes(&mut self, factories: &[crate::probe::ProbeFactory]) {
        let first = self.obs.probes.list.len();
        for (i, make) in factories.iter().enumerate() {
            let setup = crate::probe::ProbeSetup {
                config: &self.cfg,
                seed: self.seed,
                index: (first + i) as u32,
                flows: self.transport.flows.len(),
                ports: self.network.fabric.ports.len(),
            };
            let probe = make(&setup);
            self.add_probe(probe);
        }
    }

    // ----- read access (tests, results) -----

    /// Flow f's state now (see [`FlowState`]): final once it has finished, initial before it
    /// starts.
    pub fn flow_state(&self, f: usize) -> FlowState {
        let s = self.transport.conns.sender_summary(f);
        FlowState {
            cc: s.cc,
            snd_una: s.snd_una,
            snd_max: s.snd_max,
            delivered_bytes: self
                .transport
                .conns
                .receiver_summary(f)
                .stats
                .delivered_bytes,
            timeouts: s.stats.timeouts,
        }
    }

    /// Output port `port`'s buffer occupancy at `at` (the time [`Simulation::run_until`]
    /// paused at, or any time from [`Simulation::now`] to the next event): bytes and packets
    /// waiting or being serialized. Reading it changes nothing in the run.
    pub fn port_occupancy(&mut self, port: usize, at: Time) -> incastsim_switch::Occupancy {
        self.network.fabric.ports[port].occupancy(at)
    }

    /// Bytes per finished flow that the run keeps of it (its packed summaries), or `None`
    /// before any flow has finished.
    pub fn finished_flow_bytes(&self) -> Option<f64> {
        let conns = &self.transport.conns;
        let n = conns.finished_count();
        (n > 0).then(|| conns.finished_heap_bytes() as f64 / n as f64)
    }

    /// Flow f's TCP profile.
    pub(crate) fn profile_of(&self, f: usize) -> &crate::plan::TcpProfile {
        &self.profiles[self.flow_profile[f] as usize]
    }
    /// The config the run was planned from.
    pub fn config(&self) -> &Config {
        &self.cfg
    }
    /// The current simulated time (the time of the last event processed).
    pub fn now(&self) -> Time {
        self.events.now()
    }
    /// Packet counters so far (sent, forwarded, delivered, dropped by reason).
    pub fn counters(&self) -> PacketCounters {
        self.network.counters
    }
    /// Events processed so far (a run's cost; the manifest's events/s).
    pub fn events_processed(&self) -> u64 {
        self.events_processed
    }
    /// TCP flows in the run (flow ids are `0..flows()`).
    pub fn flows(&self) -> usize {
        self.transport.flows.len()
    }
    /// Flow f's TCP sender while the flow is in progress (`None` before a traffic generator's
    /// flow starts and after it has finished: read [`Simulation::sender_summary`] then).
    pub fn sender(&self, f: usize) -> Option<&TcpSender<SenderScheme>> {
        self.transport.conns.try_get(f).map(|c| &c.sender)
    }
    /// Flow f's TCP receiver while the flow is in progress (as [`Simulation::sender`]).
    pub fn receiver(&self, f: usize) -> Option<&TcpReceiver<ReceiverScheme>> {
        self.transport.conns.try_get(f).map(|c| &c.receiver)
    }
    /// Flow f's sender counters and state, whether in progress, finished or not started.
    pub fn sender_summary(&self, f: usize) -> SenderSummary {
        self.transport.conns.sender_summary(f)
    }
    /// Flow f's receiver counters and state, whether in progress, finished or not started.
    pub fn receiver_summary(&self, f: usize) -> ReceiverSummary {
        self.transport.conns.receiver_summary(f)
    }
    /// Connections held in full now: flows in progress, plus every flow that is kept from the
    /// start to the end (the workload's, sampled ones). A traffic generator's flow is built
    /// when it starts and reduced to its summary once finished.
    pub fn live_connections(&self) -> usize {
        self.transport.conns.live_count()
    }
    /// Flows that have finished and hold only their summary.
    pub fn finished_connections(&self) -> usize {
        self.transport.conns.finished_count()
    }
    /// Every output port (switch ports and host NICs), by port index.
    pub fn ports(&self) -> &[incastsim_switch::OutputPort] {
        &self.network.fabric.ports
    }
    /// Drop runs, loss events and the model inputs counted so far.
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.obs.diag
    }
    /// Packets dropped anywhere (every reason).
    pub fn packets_dropped(&self) -> u64 {
        self.network.packets_dropped()
    }
    /// Packets in port FIFOs (queued or propagating).
    pub fn packets_in_flight(&self) -> u64 {
        self.network.packets_in_flight()
    }
}

impl crate::probe::FinishedRun for Simulation {
    fn now(&self) -> Time {
        Simulation::now(self)
    }
    fn counters(&self) -> PacketCounters {
        Simulation::counters(self)
    }
    fn flows(&self) -> usize {
        Simulation::flows(self)
    }
    fn sender(&self, f: usize) -> Option<&TcpSender<SenderScheme>> {
        Simulation::sender(self, f)
    }
    fn receiver(&self, f: usize) -> Option<&TcpReceiver<ReceiverScheme>> {
        Simulation::receiver(self, f)
    }
    fn sender_summary(&self, f: usize) -> SenderSummary {
        Simulation::sender_summary(self, f)
    }
    fn receiver_summary(&self, f: usize) -> ReceiverSummary {
        Simulation::receiver_summary(self, f)
    }
    fn ports(&self) -> &[incastsim_switch::OutputPort] {
        Simulation::ports(self)
    }
    fn packets_dropped(&self) -> u64 {
        Simulation::packets_dropped(self)
    }
    fn component_values(&self, f: usize) -> Vec<(&'static str, f64)> {
        self.transport.conns.component_values(f)
    }
}
