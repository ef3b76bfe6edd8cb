//! Probes: measurement code of one's own, called by the engine at fixed points of a run.
//!
//! A [`Probe`] is a trait with a no-op default for every hook: a packet enqueued at a port,
//! ECN-marked, dropped (with its [`DropReason`]), dequeued (its departure fixed), delivered to
//! its host; an ACK processed (with the sender's [`CcState`]); an RTO fired; a flow's transfer
//! started and finished. At the end of the run [`Probe::finish`] reads the finished
//! [`Simulation`](crate::Simulation) and adds columns to `runs.csv` and `flows.csv` or a CSV file of its own
//! ([`ProbeReport`]); the output layer writes them with the built-in columns.
//!
//! **Probes observe; they do not change the run.** Every hook gets shared references only, so a
//! run with probes produces the same built-in columns, bit for bit, as the run without. A probe
//! that wants randomness draws from its own stream ([`ProbeSetup::rng`], `Stream::Probe`,
//! instance = the probe's index), never from the run's.
//!
//! **Cost.** Probes are the one place the engine calls `dyn` code per packet, and only when a
//! probe is registered: every hook site is one test of a flag that is false for the whole run
//! without probes (a predictable branch), with the probed path out of line.

use crate::config::Config;
use incastsim_core::units::BitsPerSec;
use incastsim_core::{HostId, Packet, SimRng, Stream, Time};
pub use incastsim_switch::{DropReason, Occupancy};
pub use incastsim_tcp::CcState;

pub mod columns;
pub mod view;

pub use columns::{
    ProbeColumnNames, ProbeColumns, ProbeTable, ProbeTableColumns, ProbeValue, RESERVED_FILES,
};
pub use view::FinishedRun;

/// What probes add to a run's results, filled by [`Probe::finish`].
#[derive(Debug, Default)]
pub struct ProbeReport {
    flows: usize,
    pub(crate) run: Vec<(String, ProbeValue)>,
    /// Column names and one value per flow.
    pub(crate) flow: Vec<(String, Vec<ProbeValue>)>,
    pub(crate) tables: Vec<ProbeTable>,
}

impl ProbeReport {
    pub(crate) fn new(flows: usize) -> ProbeReport {
        ProbeReport {
            flows,
            ..ProbeReport::default()
        }
    }

    /// Adds column `name` to the run's row of `runs.csv`.
    pub fn run_column(&mut self, name: impl Into<String>, value: impl Into<ProbeValue>) {
        self.run.push((name.into(), value.into()));
    }

    /// Adds column `name` to every row of `flows.csv`: `values[f]` for flow f (flows past the
    /// end of `values` get an empty field).
    pub fn flow_column(&mut self, name: impl Into<String>, mut values: Vec<ProbeValue>) {
        values.resize(self.flows, ProbeValue::Missing);
        self.flow.push((name.into(), values));
    }

    /// Adds a CSV file of the probe's own (`file`: a plain name ending in `.csv`).
    pub fn table(
        &mut self,
        file: impl Into<String>,
        header: Vec<String>,
        rows: Vec<Vec<ProbeValue>>,
    ) {
        self.tables.push(ProbeTable {
            file: file.into(),
            header,
            rows,
        });
    }
}

/// What a probe's factory knows about the run it builds a probe for.
#[derive(Clone, Copy, Debug)]
pub struct ProbeSetup<'a> {
    /// The run's resolved config.
    pub config: &'a Config,
    /// The run's seed.
    pub seed: u64,
    /// The probe's position among the run's probes (its random stream's instance).
    pub index: u32,
    /// Flows of the run when it starts (ids 0..flows); a reactive traffic generator may add
    /// more while it runs (ids from `flows` on).
    pub flows: usize,
    /// Output ports of the run (ids 0..ports).
    pub ports: usize,
}

impl ProbeSetup<'_> {
    /// The probe's own random stream: seeded from the run's seed, `Stream::Probe` and the
    /// probe's index, so drawing from it changes nothing else in the run.
    pub fn rng(&self) -> SimRng {
        SimRng::for_stream(self.seed, Stream::Probe, self.index.into())
    }
}

/// The output port a packet hook is about, as ports.csv names it, with its state at the hook:
/// what a per-port measurement (a queue-length histogram, utilization by name) needs without
/// reading the run. Built only when a probe is registered (a run without probes never builds
/// one), on the probed path, from names computed once per run.
#[derive(Clone, Copy, Debug)]
pub struct PortView<'a> {
    /// The port's id (`Simulation::ports()[index]`, the row order of ports.csv).
    pub index: u32,
    /// Its name, `"from->to"` (`switch0->host16`), the `port` column of ports.csv.
    pub name: &'a str,
    /// Its link's rate.
    pub rate: BitsPerSec,
    /// Its buffer's occupancy now (packets waiting or being serialized, headers included):
    /// after an admission it includes the admitted packet; at a refusal it is what refused
    /// it (the refused packet is not in it).
    pub occupancy: Occupancy,
}

/// Measurement hooks. Every hook has a no-op default: implement only those the measurement
/// needs. A packet hook gets the port it happens at as a [`PortView`] (id, name, rate,
/// occupancy) and the packet, whose `flow` is its flow's id (the `flow` column of flows.csv;
/// a UDP source's index for `PacketKind::Udp`); `flow` in the other hooks is a flow's id.
///
/// Flow ids can pass [`ProbeSetup::flows`]: a reactive traffic generator adds flows while the
/// run goes (`crate::plan::traffic::reactive`), so a probe that keeps per-flow state grows it
/// on demand.
///
/// A probe is built per run (by a [`ProbeFactory`]), so sweeps running on many threads give
/// each run its own; `Send` because a run may move between threads.
pub trait Probe: Send {
    /// `packet` was admitted into output port `port` at `now` (after any ECN mark).
    fn on_enqueue(&mut self, now: Time, port: &PortView, packet: &Packet) {
        let _ = (now, port, packet);
    }
    /// `packet` was admitted into `port` with the ECN CE mark set by the port's discipline
    /// (called before [`Probe::on_enqueue`]).
    fn on_mark(&mut self, now: Time, port: &PortView, packet: &Packet) {
        let _ = (now, port, packet);
    }
    /// `packet` was dropped at `port`: refused at admission (buffer, AQM, a shared buffer's
    /// threshold) or lost on the port's link (`DropReason::LinkLoss`, at the far end).
    fn on_drop(&mut self, now: Time, port: &PortView, packet: &Packet, reason: DropReason) {
        let _ = (now, port, packet, reason);
    }
    /// `port` fixed `packet`'s departure: it was admitted at `admitted` and its first bit goes
    /// on the wire at `tx_start` (so `tx_start - admitted` is its queueing delay). A FIFO port
    /// fixes the departure at admission (`now == admitted`, `tx_start ≥ now`); a strict-priority
    /// port when the packet gets the transmitter (`now == tx_start`).
    fn on_dequeue(
        &mut self,
        now: Time,
        port: &PortView,
        packet: &Packet,
        admitted: Time,
        tx_start: Time,
    ) {
        let _ = (now, port, packet, admitted, tx_start);
    }
    /// `packet` reached its destination host `host`.
    fn on_deliver(&mut self, now: Time, host: HostId, packet: &Packet) {
        let _ = (now, host, packet);
    }
    /// Flow `flow`'s sender processed an ACK; `state` is its controller's state afterwards.
    fn on_ack(&mut self, now: Time, flow: u32, state: &CcState) {
        let _ = (now, flow, state);
    }
    /// Flow `flow`'s retransmission timer fired (an RTO; not RACK's reordering timer or a tail
    /// loss probe); `state` is after the sender's reaction.
    fn on_rto(&mut self, now: Time, flow: u32, state: &CcState) {
        let _ = (now, flow, state);
    }
    /// Flow `flow`'s application starts a transfer: a synchronized-reads server its response
    /// (once per block), a bulk sender, a traffic generator's flow.
    fn on_flow_start(&mut self, now: Time, flow: u32) {
        let _ = (now, flow);
    }
    /// Flow `flow`'s transfer was delivered in full (a response of a block, a sized generated
    /// flow). Endless flows never finish.
    fn on_flow_finish(&mut self, now: Time, flow: u32) {
        let _ = (now, flow);
    }
    /// Bytes the probe holds that grow with the run (per-event records, the rows of a table it
    /// will write): counted with the time series and pcap packets against `--max-memory`'s
    /// remainder (`Simulation::recorded_bytes`; past it the run ends as `max_memory`). Read
    /// every few thousand events, never per packet. Default 0: a probe whose state is bounded
    /// by the network (per port, per flow) need not say.
    fn held_bytes(&self) -> u64 {
        0
    }
    /// The run is over: read what the probe wants from `sim` (read-only: counters, senders,
    /// receivers, ports) and add columns or a table to `report`.
    fn finish(&mut self, sim: &dyn FinishedRun, report: &mut ProbeReport) {
        let _ = (sim, report);
    }
}

/// Builds a run's probe (one per run: sweeps run many at once).
pub type ProbeFactory = std::sync::Arc<dyn Fn(&ProbeSetup) -> Box<dyn Probe> + Send + Sync>;

/// The probes of a run, as the engine holds them: `on` is false without probes, and every hook
/// site tests it before anything else.
#[derive(Default)]
pub(crate) struct ProbeSet {
    pub on: bool,
    pub list: Vec<Box<dyn Probe>>,
}

impl ProbeSet {
    pub fn push(&mut self, probe: Box<dyn Probe>) {
        self.list.push(probe);
        self.on = true;
    }

    #[cold]
    #[inline(never)]
    pub fn each(&mut self, mut f: impl FnMut(&mut dyn Probe)) {
        for p in &mut self.list {
            f(p.as_mut());
        }
    }
}
