//! Incast diagnostics: consecutive-drop runs per input port and per flow, drop ratios, the
//! cumulative flow's loss events, and the inputs (and, on request, predictions) of the book's
//! incast models measured from the run.
//!
//! # Drop runs (TCPRand, Lee et al. §4: "single isolated" drops vs runs, port blackout)
//! Only drops at admission (buffer full or AQM) form runs; link-loss drops happen on the wire
//! and are not part of any run.
//! - **Per input port**: for an output port O and an input port I (the link a packet entered
//!   O's node on; a host's NIC port has one input, the host itself), a run is a maximal
//!   sequence of consecutive packets offered to O from I that were all dropped. It ends at the
//!   next packet from I that O admits (or at the end of the run). Packets from other inputs in
//!   between do not end it: that is what makes a port blackout visible.
//! - **Per flow**: a run is a maximal sequence of data segments of one TCP flow dropped at one
//!   output port, with no data segment of that flow admitted at that port in between. A flow's
//!   run is tracked at one port at a time: a drop of the same flow at another port ends it.
//! - Run lengths are binned 1, 2, …, 7, 8+ (`DROP_RUN_BINS`), with the longest run.
//!
//! Cost: per admitted packet two array reads, one counter increment and two compares; the rest
//! happens per drop. No allocation and no hashing after construction.
//!
//! # The book's model inputs (Kulkarni & Agrawal §3.2)
//! Measured over the "model flows" (the workload's flows; every TCP flow for a `traffic`
//! workload), exactly as §3.2 describes its trace analysis:
//! - **loss indication** (of one flow): a triple-duplicate-ACK indication (a fast retransmit,
//!   i.e. entering fast recovery) or a timeout indication (the first expiry of a run of
//!   successive timeouts; the backed-off expiries that follow belong to the same indication,
//!   as in Padhye et al.'s TO sequences). `loss_indications` = fast retransmits + first timeouts.
//! - **p_r** = loss indications of the flows / packets they sent (all data segments including
//!   retransmissions: the book's B counts packets "regardless of their eventual fate"). Pooled
//!   over the flows, which equals the per-flow ratio for flows sending equal amounts.
//! - **loss event of the cumulative flow**: a round of the cumulative flow in which at least one
//!   model flow loses a packet ("it is only counted as a loss event when one or more composite
//!   flows experiences a loss in a round", §3.1.1.2). Measured on the drop trace: a data segment
//!   of a model flow dropped more than one round after the first drop of the current event
//!   opens a new event; a round is the dropping flow's SRTT (its base RTT before it has one).
//! - **p_c** = loss events / packets sent by all model flows. So p_r/p_c = loss indications per
//!   loss event ≈ the book's j, the mean number of flows losing in a loss round.
//! - **δ** = ABTTs (see `incastsim_tcp::timeout_class`) / blocks the workload requested.
//! - **RTT** = the mean of every RTT sample the model flows took (echoed timestamps, or Karn's
//!   timed segments).
//! - **T0** = the mean RTO value of first timeouts (the book's "single" timeout, before
//!   doubling); RTO_min when the run had no timeout.
//! - **L** = the block in packets: Σ SRU / MSS (book Eq. 3.37 needs packets; see
//!   `incastsim_models::book`).

use crate::metrics::{DropRunRecord, FlowRecord, PortRecord, RunRecord};
use incastsim_core::{Duration, NodeId, NodeKind, PacketKind, Time};
use incastsim_models::book::{BookParams, DEFAULT_N_STAR, pps_to_mbps};
use incastsim_tcp::{TcpSender, TimeoutClassStats};

/// Bins of the drop-run histograms: runs of length 1..=7, then 8 or more.
pub const DROP_RUN_BINS: usize = 8;

/// The input of a packet a host hands to its own NIC.
pub const LOCAL_INPUT: u32 = u32::MAX;

/// Histogram of run lengths and the longest run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunHistogram {
    pub bins: [u64; DROP_RUN_BINS],
    pub max: u32,
}

impl RunHistogram {
    fn record(&mut self, len: u32) {
        let bin = (len as usize).clamp(1, DROP_RUN_BINS) - 1;
        self.bins[bin] += 1;
        self.max = self.max.max(len);
    }
    fn add(&mut self, o: &RunHistogram) {
        for (a, b) in self.bins.iter_mut().zip(&o.bins) {
            *a += b;
        }
        self.max = self.max.max(o.max);
    }
    /// Number of runs.
    pub fn runs(&self) -> u64 {
        self.bins.iter().sum()
    }
}

/// One (output port, input port) pair.
#[derive(Clone, Copy, Debug, Default)]
struct Pair {
    offered: u64,
    dropped: u64,
    /// Length of the open run (0: none).
    run: u32,
}

/// One TCP flow's open run of data-segment drops.
#[derive(Clone, Copy, Debug, Default)]
struct FlowRun {
    port: u32,
    run: u32,
    drops: u64,
    hist: RunHistogram,
}

/// Per port (as an output port: `pair_base`, `open`; as an input port: `in_slot`).
#[derive(Clone, Copy, Debug, Default)]
struct PortDiag {
    /// Index of this output port's first (output, input) pair; its inputs follow.
    pair_base: u32,
    /// This port's index among the links entering its far-end node.
    in_slot: u32,
    /// Runs (per input or per flow) open at this output port. Admissions at a port with none
    /// open (nearly all) only count.
    open: u32,
}

/// Per-run diagnostic state, owned by the simulation.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    /// Per port: where its pairs start, its slot as an input, its open runs (one cache line
    /// holds four ports, so an admission touches one entry per role).
    port: Vec<PortDiag>,
    /// Per pair: the input port (or `LOCAL_INPUT`).
    pair_input: Vec<u32>,
    pairs: Vec<Pair>,
    pair_hist: Vec<RunHistogram>,
    flows: Vec<FlowRun>,
    /// Flows 0..model_flows are the model's n synchronized flows.
    model_flows: usize,
    /// Per model flow: RTT of its path with empty queues (a round before any SRTT).
    base_rtt: Vec<Duration>,
    loss_events: u64,
    event_start: Option<Time>,
}

impl Diagnostics {
    /// `port_from[p]`/`port_to[p]`: the nodes port p leaves and enters; `tcp_flows` flows, of
    /// which the first `model_flows` are the model's; `base_rtt` per model flow.
    pub fn new(
        nodes: &[NodeKind],
        port_from: &[NodeId],
        port_to: &[NodeId],
        tcp_flows: usize,
        model_flows: usize,
        base_rtt: Vec<Duration>,
    ) -> Diagnostics {
        let mut entering: Vec<Vec<u32>> = vec![Vec::new(); nodes.len()];
        let mut in_slot = vec![0u32; port_to.len()];
        for (p, &to) in port_to.iter().enumerate() {
            in_slot[p] = entering[to as usize].len() as u32;
            entering[to as usize].push(p as u32);
        }
        let mut pair_base = Vec::with_capacity(port_from.len());
        let mut pair_input = Vec::new();
        for &from in port_from {
            pair_base.push(pair_input.len() as u32);
            match nodes[from as usize] {
                NodeKind::Host(_) => pair_input.push(LOCAL_INPUT),
                NodeKind::Switch(_) => pair_input.extend(&entering[from as usize]),
            }
        }
        let n_pairs = pair_input.len();
        Diagnostics {
            port: pair_base
                .iter()
                .zip(&in_slot)
                .map(|(&pair_base, &in_slot)| PortDiag {
                    pair_base,
                    in_slot,
                    open: 0,
                })
                .collect(),
            pair_input,
            pairs: vec![Pair::default(); n_pairs],
            pair_hist: vec![RunHistogram::default(); n_pairs],
            flows: vec![FlowRun::default(); tcp_flows],
            model_flows,
            base_rtt,
            loss_events: 0,
            event_start: None,
        }
    }

    #[inline]
    fn pair(&self, port: u32, input: u32) -> usize {
        let slot = if input == LOCAL_INPUT {
            0
        } else {
            self.port[input as usize].in_slot
        };
        (self.port[port as usize].pair_base + slot) as usize
    }

    /// `port` admitted a packet that entered its node on `input`. Packets a host offers its own
    /// NIC (`LOCAL_INPUT`) are not counted here: that pair's offered count is the port's.
    #[inline(always)]
    pub fn on_admitted(&mut self, port: u32, input: u32, flow: u32, kind: PacketKind) {
        let out = self.port[port as usize];
        if input != LOCAL_INPUT {
            let i = (out.pair_base + self.port[input as usize].in_slot) as usize;
            self.pairs[i].offered += 1;
        }
        if out.open != 0 {
            self.close_on_admission(port, input, flow, kind);
        }
    }

    /// An admission at a port with open runs: ends the packet's input run and its flow's run.
    #[cold]
    #[inline(never)]
    fn close_on_admission(&mut self, port: u32, input: u32, flow: u32, kind: PacketKind) {
        let i = self.pair(port, input);
        let pair = &mut self.pairs[i];
        if pair.run != 0 {
            self.pair_hist[i].record(pair.run);
            pair.run = 0;
            self.port[port as usize].open -= 1;
        }
        if kind == PacketKind::Data {
            let fr = &mut self.flows[flow as usize];
            if fr.run != 0 && fr.port == port {
                fr.hist.record(fr.run);
                fr.run = 0;
                self.port[port as usize].open -= 1;
            }
        }
    }

    /// `port` dropped (at admission) a packet that entered on `input`. `srtt`: the flow's SRTT
    /// if it is a data segment of a flow that has one.
    #[cold]
    #[inline(never)]
    pub fn on_dropped(
        &mut self,
        now: Time,
        port: u32,
        input: u32,
        flow: u32,
        kind: PacketKind,
        srtt: Option<Duration>,
    ) {
        let i = self.pair(port, input);
        let pair = &mut self.pairs[i];
        if input != LOCAL_INPUT {
            pair.offered += 1;
        }
        pair.dropped += 1;
        if pair.run == 0 {
            self.port[port as usize].open += 1;
        }
        pair.run += 1;
        if kind != PacketKind::Data {
            return;
        }
        let f = flow as usize;
        let fr = &mut self.flows[f];
        if fr.run != 0 && fr.port != port {
            fr.hist.record(fr.run);
            fr.run = 0;
            self.port[fr.port as usize].open -= 1;
        }
        if fr.run == 0 {
            self.port[port as usize].open += 1;
        }
        fr.port = port;
        fr.run += 1;
        fr.drops += 1;
        if f < self.model_flows {
            // A new loss event of the cumulative flow: more than one round after the first drop
            // of the current one (book §3.1.1.2: one loss event per round with losses).
            let round = srtt.unwrap_or(self.base_rtt[f]);
            if self.event_start.is_none_or(|s| now.since(s) > round) {
                self.loss_events += 1;
                self.event_start = Some(now);
            }
        }
    }

    /// Closes every open run (end of the simulation).
    pub fn close(&mut self) {
        for (pair, hist) in self.pairs.iter_mut().zip(&mut self.pair_hist) {
            if pair.run != 0 {
                hist.record(pair.run);
                pair.run = 0;
            }
        }
        for fr in &mut self.flows {
            if fr.run != 0 {
                fr.hist.record(fr.run);
                fr.run = 0;
            }
        }
        self.port.iter_mut().for_each(|p| p.open = 0);
    }

    /// Cumulative-flow loss events counted so far.
    pub fn loss_events(&self) -> u64 {
        self.loss_events
    }

    /// The pairs of output port `port`.
    fn pair_range(&self, port: usize) -> (usize, usize) {
        let lo = self.port[port].pair_base as usize;
        let hi = self
            .port
            .get(port + 1)
            .map_or(self.pairs.len(), |p| p.pair_base as usize);
        (lo, hi)
    }

    /// Packets offered at pair `i` of `port`; a host's own pair takes the port's count.
    fn offered(&self, i: usize, port_offered: u64) -> u64 {
        if self.pair_input[i] == LOCAL_INPUT {
            port_offered
        } else {
            self.pairs[i].offered
        }
    }

    /// The drop-run histogram of one output port (over its inputs).
    pub fn port_runs(&self, port: usize) -> RunHistogram {
        let (lo, hi) = self.pair_range(port);
        let mut hist = RunHistogram::default();
        for i in lo..hi {
            hist.add(&self.pair_hist[i]);
        }
        hist
    }

    /// drop_runs.csv rows: every (output port, input port) pair that was offered a packet.
    /// `port_name(p)` names port p ("switch0->host16"); `port_offered[p]`: packets offered to p
    /// (admitted + dropped at admission, from the port's own counters).
    pub fn drop_run_records(
        &self,
        scenario: &str,
        seed: u64,
        senders: u32,
        port_offered: &[u64],
        port_name: impl Fn(u32) -> String,
    ) -> Vec<DropRunRecord> {
        let mut out = Vec::new();
        for (port, &port_offered) in port_offered.iter().enumerate() {
            let (lo, hi) = self.pair_range(port);
            for i in lo..hi {
                let (p, h) = (&self.pairs[i], &self.pair_hist[i]);
                let offered = self.offered(i, port_offered);
                if offered == 0 {
                    continue;
                }
                let input = self.pair_input[i];
                let mut r = DropRunRecord {
                    scenario: scenario.to_string(),
                    seed,
                    senders,
                    port: port as u32,
                    port_name: port_name(port as u32),
                    input_port: (input != LOCAL_INPUT).then_some(input),
                    input_name: if input == LOCAL_INPUT {
                        "local".into()
                    } else {
                        port_name(input)
                    },
                    packets_offered: offered,
                    drops: p.dropped,
                    drop_ratio: p.dropped as f64 / offered as f64,
                    max_drop_run: h.max,
                    ..DropRunRecord::default()
                };
                r.set_runs(&h.bins);
                out.push(r);
            }
        }
        out
    }

    /// Fills the per-flow columns of flows.csv.
    pub fn fill_flow(
        &self,
        rec: &mut FlowRecord,
        sender: &TcpSender<impl incastsim_tcp::SenderPolicy>,
    ) {
        let c = sender.timeout_classes();
        rec.rto_abtt = c.abtt;
        rec.rto_ibtt_whole_window = c.ibtt_whole_window;
        rec.rto_ibtt_partial_window = c.ibtt_partial_window;
        rec.rto_ibtt_tail = c.ibtt_tail;
        rec.rto_ibtt_retransmission = c.ibtt_retransmission;
        rec.loss_indications = sender.stats().fast_retransmits + c.first_timeouts;
        let fr = &self.flows[rec.flow as usize];
        rec.drops = fr.drops;
        rec.max_drop_run = fr.hist.max;
        rec.set_drop_runs(&fr.hist.bins);
    }

    /// Fills the per-port columns of ports.csv (`packets_enqueued` and the drop counts set).
    pub fn fill_port(&self, rec: &mut PortRecord) {
        let hist = self.port_runs(rec.port as usize);
        let dropped = rec.drops_buffer + rec.drops_aqm;
        let offered = rec.packets_enqueued + dropped;
        rec.packets_offered = offered;
        rec.drop_ratio = if offered == 0 {
            0.0
        } else {
            dropped as f64 / offered as f64
        };
        rec.max_drop_run = hist.max;
        rec.set_drop_runs(&hist.bins);
    }

    /// Fills the run-level diagnostic and model columns of runs.csv.
    pub fn fill_run<P: incastsim_tcp::SenderPolicy>(
        &self,
        run: &mut RunRecord,
        m: &ModelContext<'_, P>,
    ) {
        fill_timeout_classes(run, m.senders);
        self.fill_drop_runs(run, m.packets_offered);

        // The book's §3.2 measurements over the model flows.
        let model = &m.senders[..self.model_flows.min(m.senders.len())];
        let t0 = self.fill_model_inputs(run, model, m);
        fill_model_predictions(run, model.len(), t0, m);
    }

    /// The drop ratio over `offered` packets and the drop-run histograms of runs.csv: runs per
    /// input port summed over the ports, and per flow summed over the flows.
    fn fill_drop_runs(&self, run: &mut RunRecord, offered: u64) {
        let mut inputs = RunHistogram::default();
        for port in 0..self.port.len() {
            inputs.add(&self.port_runs(port));
        }
        run.packets_offered = offered;
        run.drop_ratio = if offered == 0 {
            0.0
        } else {
            (run.drops_buffer + run.drops_aqm) as f64 / offered as f64
        };
        run.max_input_drop_run = inputs.max;
        run.set_input_drop_runs(&inputs.bins);
        let mut flows = RunHistogram::default();
        for fr in &self.flows {
            flows.add(&fr.hist);
        }
        run.max_flow_drop_run = flows.max;
        run.set_flow_drop_runs(&flows.bins);
    }

    /// The book's model inputs measured over the model flows `model` (§3.2: p_r, p_c, δ, RTT,
    /// L); returns T0, which the models take in seconds and runs.csv shows in ms.
    fn fill_model_inputs<P: incastsim_tcp::SenderPolicy>(
        &self,
        run: &mut RunRecord,
        model: &[TcpSender<P>],
        m: &ModelContext<'_, P>,
    ) -> Duration {
        let mut mc = TimeoutClassStats::default();
        let (mut packets, mut fast, mut rtt_sum, mut rtt_n) = (0u64, 0u64, 0u128, 0u64);
        for s in model {
            mc.add(s.timeout_classes());
            packets += s.stats().segments_sent;
            fast += s.stats().fast_retransmits;
            rtt_sum += s.rtt().sample_sum_ps();
            rtt_n += s.rtt().samples();
        }
        let indications = fast + mc.first_timeouts;
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
        run.model_flows = model.len() as u32;
        run.model_packets_sent = packets;
        run.loss_indications = indications;
        run.loss_events = self.loss_events;
        run.p_c = ratio(self.loss_events as f64, packets as f64);
        run.p_r = ratio(indications as f64, packets as f64);
        run.delta_abtt_per_block = ratio(mc.abtt as f64, m.blocks_requested as f64);
        run.rtt_mean_us = ratio(rtt_sum as f64, rtt_n as f64) / 1e6;
        let t0 = mc
            .first_timeout_wait_ps
            .checked_div(mc.first_timeouts)
            .map_or(m.rto_min, Duration);
        run.t0_ms = t0.as_ms_f64();
        run.block_packets = m.block_bytes as f64 / m.mss_bytes as f64;
        run.delayed_ack = m.delayed_ack;
        t0
    }
}

/// The timeout classes of runs.csv (ABTT and the IBTT kinds), summed over every sender.
fn fill_timeout_classes<P: incastsim_tcp::SenderPolicy>(
    run: &mut RunRecord,
    senders: &[TcpSender<P>],
) {
    let mut classes = TimeoutClassStats::default();
    for s in senders {
        classes.add(s.timeout_classes());
    }
    run.rto_abtt = classes.abtt;
    run.rto_ibtt_whole_window = classes.ibtt_whole_window;
    run.rto_ibtt_partial_window = classes.ibtt_partial_window;
    run.rto_ibtt_tail = classes.ibtt_tail;
    run.rto_ibtt_retransmission = classes.ibtt_retransmission;
}

/// The book models' predictions from the inputs already in `run` (`n_senders` model flows,
/// first-timeout RTO `t0`) when `metrics.models` asks for them; NaN otherwise.
fn fill_model_predictions<P: incastsim_tcp::SenderPolicy>(
    run: &mut RunRecord,
    n_senders: usize,
    t0: Duration,
    m: &ModelContext<'_, P>,
) {
    run.model_td_only_mbps = f64::NAN;
    run.model_full_mbps = f64::NAN;
    run.model_split_mbps = f64::NAN;
    run.model_j = f64::NAN;
    run.model_q_full = f64::NAN;
    run.model_q_split = f64::NAN;
    if m.evaluate {
        let params = BookParams {
            n_senders: n_senders as u64,
            p_c: run.p_c,
            p_r: run.p_r,
            delta_abtts_per_block: run.delta_abtt_per_block,
            rtt_s: run.rtt_mean_us / 1e6,
            t0_s: t0.as_secs_f64(),
            block_packets: run.block_packets,
            n_star: DEFAULT_N_STAR,
        };
        // Out-of-range inputs (no loss at all: p_c = 0; no block: L = 0) leave NaN: the
        // models are undefined there, which is not an error of the run.
        if let Ok(b) = params.evaluate() {
            let seg = m.mss_bytes as f64;
            run.model_td_only_mbps = pps_to_mbps(b.td_only_pps, seg);
            run.model_full_mbps = pps_to_mbps(b.full_pps, seg);
            run.model_split_mbps = pps_to_mbps(b.split_pps, seg);
            run.model_j = b.j;
            run.model_q_full = b.q_full;
            run.model_q_split = b.q_split;
        } else if let Ok(td) = params.td_only_pps() {
            run.model_td_only_mbps = pps_to_mbps(td, m.mss_bytes as f64);
        }
    }
}

/// What [`Diagnostics::fill_run`] needs to know about the workload.
pub struct ModelContext<'a, P: incastsim_tcp::SenderPolicy> {
    pub senders: &'a [TcpSender<P>],
    /// Packets offered to every port (admitted + dropped at admission).
    pub packets_offered: u64,
    /// Blocks the client requested (including one still in progress); 1 for a bulk workload.
    pub blocks_requested: u64,
    /// Σ over model flows of the bytes each sends per block (the block, L in bytes).
    pub block_bytes: u64,
    pub mss_bytes: u64,
    pub rto_min: Duration,
    /// The model assumes one ACK per packet: reported so a reader can discount the row.
    pub delayed_ack: bool,
    /// `metrics.models`: evaluate the models.
    pub evaluate: bool,
}
