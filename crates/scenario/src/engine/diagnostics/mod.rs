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
//! Cost: per admitted packet one or two array reads (more only at a fabric switch whose inputs
//! each feed several outputs: one read per level of a small radix table), one counter increment
//! and two or three compares; the rest happens per drop. No hashing; allocation only on the
//! first packet of an (output, input) pair and on the first drop of a pair, port or flow.
//! Memory grows with the ports and the pairs that carry packets, not with ports² (see
//! [`Diagnostics`]).

mod table;

use incastsim_core::{Duration, NodeId, NodeKind, PacketKind, Time};
use table::{LEVEL_BITS, TableSlot};

/// Bins of the drop-run histograms: runs of length 1..=7, then 8 or more.
pub const DROP_RUN_BINS: usize = 8;

/// The input of a packet a host hands to its own NIC.
pub const LOCAL_INPUT: u32 = u32::MAX;

/// No port yet (never a port index, nor `LOCAL_INPUT`).
const NO_PORT: u32 = u32::MAX - 1;
/// No entry: an unset table slot, a pair or flow without drop state, a port without runs.
pub(crate) const NONE: u32 = u32::MAX;

/// Histogram of run lengths and the longest run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunHistogram {
    /// Runs of length 1..7, then 8 or more (index 7).
    pub bins: [u64; DROP_RUN_BINS],
    /// The longest run.
    pub max: u32,
}

impl RunHistogram {
    fn record(&mut self, len: u32) {
        let bin = (len as usize).clamp(1, DROP_RUN_BINS) - 1;
        self.bins[bin] += 1;
        self.max = self.max.max(len);
    }
    pub(crate) fn add(&mut self, o: &RunHistogram) {
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

/// An output port: where its pairs are found, and its open runs.
#[derive(Clone, Copy, Debug)]
struct OutPort {
    /// The first input this port saw (`NO_PORT`: none yet; `LOCAL_INPUT` on a host's port)
    /// and that pair.
    first_in: u32,
    first_pair: u32,
    /// Runs (per input or per flow) open at this port. Admissions at a port with none open
    /// (nearly all) only count.
    open: u32,
    /// Root block of this port's table of its other inputs, by input slot (`NONE`: none yet).
    table: u32,
    /// The number of links entering this port's node (the key range of its table).
    slots: u32,
    /// Packets offered by the first pair: counted here, in the line the admission reads
    /// anyway, not in `pair_offered` (a second cache miss per hop in a large fabric).
    first_offered: u64,
}

/// An input port: the first output it fed whose pair is not the output's `first_in` pair.
#[derive(Clone, Copy, Debug)]
struct InPort {
    first_out: u32,
    first_pair: u32,
    /// Its slot among the links entering its far-end node (the key of that node's tables).
    slot: u32,
}

/// The drop state of one (output, input) pair that dropped.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PairDrops {
    pub(crate) dropped: u64,
    pub(crate) hist: RunHistogram,
    /// Length of the open run (0: none).
    run: u32,
    /// The output port.
    port: u32,
}

/// One TCP flow's open run of data-segment drops.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlowRun {
    port: u32,
    run: u32,
    /// Its drops and runs in `flow_drops` (`NONE`: no drop yet).
    pub(crate) drops: u32,
}

/// The drops of one TCP flow that dropped.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FlowDrops {
    pub(crate) drops: u64,
    pub(crate) hist: RunHistogram,
}

/// Per-run diagnostic state, owned by the simulation.
///
/// Memory grows with what the run carries: a few words per port, ~20 B per (output, input)
/// pair that was offered a packet, and run histograms only for the pairs, ports and flows
/// that dropped. A pair is found from the packet's output port O and input port I, in order:
/// - O's first input (`OutPort::first_in`): every port of a host, and every port whose
///   traffic comes from one input (a server's downlink in an incast carries the client's ACKs
///   and requests, all entering on the client's link);
/// - I's first other output (`InPort::first_out`): every input feeding one output (a server's
///   uplink in an incast feeds only the client's port);
/// - else O's table, indexed by I's slot among the links entering the node: a radix tree of
///   64-entry blocks (one level up to 64 inputs, two up to 4,096, …), blocks allocated as
///   inputs appear. Only ports whose inputs each feed several outputs (fat-tree switches) use
///   it.
///
/// So an admission is one or two array reads (plus the table's levels in a fabric) and one
/// counter increment: no hashing, no allocation except on a pair's first packet or drop.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    out: Vec<OutPort>,
    inp: Vec<InPort>,
    /// Per port: its run histogram in `port_hists` (`NONE`: no run yet).
    port_hist: Vec<u32>,
    pub(crate) port_hists: Vec<RunHistogram>,
    /// The blocks of the ports' tables: child block offsets, then (last level) pairs.
    table: Vec<TableSlot>,
    /// Per pair: packets offered (a host's own pair: unused, the port counts them; a port's
    /// first pair: in `OutPort::first_offered`; a pair in a table: in its leaf).
    pair_offered: Vec<u64>,
    /// Per pair: its leaf in `table` (`NONE`: not in a table).
    pair_leaf: Vec<u32>,
    /// Per pair: (output port, input port or `LOCAL_INPUT`).
    pub(crate) pair_key: Vec<(u32, u32)>,
    /// Per pair: its drop state in `pair_drops` (`NONE`: no drop yet).
    pub(crate) pair_drop: Vec<u32>,
    pub(crate) pair_drops: Vec<PairDrops>,
    pub(crate) flows: Vec<FlowRun>,
    pub(crate) flow_drops: Vec<FlowDrops>,
    /// Flows 0..model_flows are the model's n synchronized flows.
    pub(crate) model_flows: usize,
    /// Per model flow: RTT of its path with empty queues (a round before any SRTT).
    base_rtt: Vec<Duration>,
    pub(crate) loss_events: u64,
    event_start: Option<Time>,
}

impl Diagnostics {
    /// A flow added while the run goes (a reactive generator's): counted like the others,
    /// never one of the model's flows.
    #[cold]
    pub(crate) fn add_flow(&mut self) {
        self.flows.push(FlowRun {
            port: 0,
            run: 0,
            drops: NONE,
        });
    }

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
        let n = port_from.len();
        let mut entering = vec![0u32; nodes.len()];
        let inp = port_to
            .iter()
            .map(|&to| {
                entering[to as usize] += 1;
                InPort {
                    first_out: NO_PORT,
                    first_pair: NONE,
                    slot: entering[to as usize] - 1,
                }
            })
            .collect();
        let out = port_from
            .iter()
            .map(|&from| OutPort {
                first_in: NO_PORT,
                first_pair: NONE,
                open: 0,
                table: NONE,
                slots: entering[from as usize],
                first_offered: 0,
            })
            .collect();
        let mut d = Diagnostics {
            out,
            inp,
            port_hist: vec![NONE; n],
            flows: vec![
                FlowRun {
                    port: 0,
                    run: 0,
                    drops: NONE,
                };
                tcp_flows
            ],
            model_flows,
            base_rtt,
            ..Diagnostics::default()
        };
        // A host's port has one pair, its own packets: made now, so it is always found first.
        for (p, &from) in port_from.iter().enumerate() {
            if let NodeKind::Host(_) = nodes[from as usize] {
                let i = d.new_pair(p as u32, LOCAL_INPUT);
                d.out[p].first_in = LOCAL_INPUT;
                d.out[p].first_pair = i;
            }
        }
        d
    }

    /// Heap bytes held (capacity of every buffer): grows with ports, pairs carrying packets,
    /// and ports, pairs and flows that dropped.
    pub fn heap_bytes(&self) -> usize {
        fn b<T>(v: &Vec<T>) -> usize {
            v.capacity() * std::mem::size_of::<T>()
        }
        b(&self.out)
            + b(&self.inp)
            + b(&self.port_hist)
            + b(&self.port_hists)
            + b(&self.table)
            + b(&self.pair_offered)
            + b(&self.pair_leaf)
            + b(&self.pair_key)
            + b(&self.pair_drop)
            + b(&self.pair_drops)
            + b(&self.flows)
            + b(&self.flow_drops)
            + b(&self.base_rtt)
    }

    /// (Output, input) pairs that carried a packet, hosts' own pairs included.
    pub fn pairs(&self) -> usize {
        self.pair_key.len()
    }

    /// Cache hint: an admission at `port` of a packet that entered on `input` is coming.
    #[inline(always)]
    pub fn prefetch_port(&self, port: u32, input: u32) {
        if let Some(out) = self.out.get(port as usize) {
            incastsim_core::prefetch(out);
        }
        if let Some(inp) = self.inp.get(input as usize) {
            incastsim_core::prefetch(inp);
        }
    }

    /// Cache hint, a stage after [`Diagnostics::prefetch_port`] (whose lines are cached by
    /// now): the counter the admission will increment, when it is in a one-level table (a
    /// fat-tree switch's port) or is the input's first other pair.
    #[inline(always)]
    pub fn prefetch_pair(&self, port: u32, input: u32) {
        let (Some(out), Some(inp)) = (self.out.get(port as usize), self.inp.get(input as usize))
        else {
            return;
        };
        if out.first_in == input {
            return; // counted in `out`
        }
        if inp.first_out == port {
            if let Some(c) = self.pair_offered.get(inp.first_pair as usize) {
                incastsim_core::prefetch(c);
            }
        } else if out.table != NONE
            && out.slots <= 1 << LEVEL_BITS
            && let Some(leaf) = self.table.get(out.table as usize + inp.slot as usize)
        {
            incastsim_core::prefetch(leaf);
        }
    }

    /// `port` admitted a packet that entered its node on `input` (`LOCAL_INPUT`: a host's own
    /// packet, whose pair's offered count is the port's).
    #[inline(always)]
    pub fn on_admitted(&mut self, port: u32, input: u32, flow: u32, kind: PacketKind) {
        let out = &mut self.out[port as usize];
        let (i, open) = if out.first_in == input {
            out.first_offered += 1;
            (out.first_pair, out.open)
        } else {
            let open = out.open;
            let inp = self.inp[input as usize];
            let i = if inp.first_out == port {
                self.pair_offered[inp.first_pair as usize] += 1;
                inp.first_pair
            } else {
                self.table_pair_counting(port, input, true)
            };
            (i, open)
        };
        if open != 0 {
            self.close_on_admission(port, i, flow, kind);
        }
    }

    /// An admission at a port with open runs: ends the packet's input run (pair `i`) and its
    /// flow's run.
    #[cold]
    #[inline(never)]
    fn close_on_admission(&mut self, port: u32, i: u32, flow: u32, kind: PacketKind) {
        let d = self.pair_drop[i as usize];
        if d != NONE && self.pair_drops[d as usize].run != 0 {
            self.close_pair_run(d as usize);
            self.out[port as usize].open -= 1;
        }
        if kind == PacketKind::Data {
            let fr = self.flows[flow as usize];
            if fr.run != 0 && fr.port == port {
                self.close_flow_run(flow as usize);
                self.out[port as usize].open -= 1;
            }
        }
    }

    /// Ends the open run of the dropping pair `d` (its port's open count is the caller's).
    fn close_pair_run(&mut self, d: usize) {
        let pd = &mut self.pair_drops[d];
        let (run, port) = (pd.run, pd.port as usize);
        pd.hist.record(run);
        pd.run = 0;
        if self.port_hist[port] == NONE {
            self.port_hist[port] = self.port_hists.len() as u32;
            self.port_hists.push(RunHistogram::default());
        }
        self.port_hists[self.port_hist[port] as usize].record(run);
    }

    /// Ends flow `f`'s open run (its port's open count is the caller's).
    fn close_flow_run(&mut self, f: usize) {
        let fr = &mut self.flows[f];
        self.flow_drops[fr.drops as usize].hist.record(fr.run);
        fr.run = 0;
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
        let i = self.pair(port, input) as usize;
        self.count_offered(port, i);
        if self.pair_drop[i] == NONE {
            self.pair_drop[i] = self.pair_drops.len() as u32;
            self.pair_drops.push(PairDrops {
                port,
                ..PairDrops::default()
            });
        }
        let pd = &mut self.pair_drops[self.pair_drop[i] as usize];
        pd.dropped += 1;
        if pd.run == 0 {
            self.out[port as usize].open += 1;
        }
        pd.run += 1;
        if kind != PacketKind::Data {
            return;
        }
        let f = flow as usize;
        let fr = self.flows[f];
        if fr.run != 0 && fr.port != port {
            self.close_flow_run(f);
            self.out[fr.port as usize].open -= 1;
        }
        let fr = &mut self.flows[f];
        if fr.drops == NONE {
            fr.drops = self.flow_drops.len() as u32;
            self.flow_drops.push(FlowDrops::default());
        }
        if fr.run == 0 {
            self.out[port as usize].open += 1;
        }
        fr.port = port;
        fr.run += 1;
        self.flow_drops[fr.drops as usize].drops += 1;
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
        for d in 0..self.pair_drops.len() {
            if self.pair_drops[d].run != 0 {
                self.close_pair_run(d);
            }
        }
        for f in 0..self.flows.len() {
            if self.flows[f].run != 0 {
                self.close_flow_run(f);
            }
        }
        self.out.iter_mut().for_each(|p| p.open = 0);
    }

    /// Cumulative-flow loss events counted so far.
    pub fn loss_events(&self) -> u64 {
        self.loss_events
    }

    /// The drop-run histogram of one output port (over its inputs).
    pub fn port_runs(&self, port: usize) -> RunHistogram {
        match self.port_hist[port] {
            NONE => RunHistogram::default(),
            h => self.port_hists[h as usize],
        }
    }

    /// Counts a packet offered by pair `i` of `port`.
    fn count_offered(&mut self, port: u32, i: usize) {
        let out = &mut self.out[port as usize];
        if out.first_pair as usize == i {
            out.first_offered += 1;
        } else if self.pair_leaf[i] != NONE {
            self.table[self.pair_leaf[i] as usize].offered += 1;
        } else {
            self.pair_offered[i] += 1;
        }
    }

    /// Packets offered by pair `i` (of port `port`).
    pub(crate) fn offered(&self, port: u32, i: usize) -> u64 {
        let out = &self.out[port as usize];
        if out.first_pair as usize == i {
            out.first_offered
        } else if self.pair_leaf[i] != NONE {
            self.table[self.pair_leaf[i] as usize].offered
        } else {
            self.pair_offered[i]
        }
    }
}
