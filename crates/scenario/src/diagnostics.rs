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
mod model;

use incastsim_tcp::{SenderSummary, TimeoutClassStats};
pub use model::ModelContext;
use model::{fill_model_predictions, fill_timeout_classes};

/// Bins of the drop-run histograms: runs of length 1..=7, then 8 or more.
pub const DROP_RUN_BINS: usize = 8;

/// The input of a packet a host hands to its own NIC.
pub const LOCAL_INPUT: u32 = u32::MAX;

/// No port yet (never a port index, nor `LOCAL_INPUT`).
const NO_PORT: u32 = u32::MAX - 1;
/// No entry: an unset table slot, a pair or flow without drop state, a port without runs.
const NONE: u32 = u32::MAX;
/// Bits of an input slot resolved per level of a port's table (64 entries per block).
const LEVEL_BITS: u32 = 6;
const LEVEL_MASK: u32 = (1 << LEVEL_BITS) - 1;

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

/// A slot of a port's table: in an inner block, the offset of a child block (`link`); in a
/// leaf, a pair (`link`, `NONE` for none) and the packets it offered, kept together so that
/// finding a fat-tree switch's pair and counting its packet touch one cache line.
#[derive(Clone, Copy, Debug)]
struct TableSlot {
    link: u32,
    offered: u64,
}

const EMPTY_SLOT: TableSlot = TableSlot {
    link: NONE,
    offered: 0,
};

/// The drop state of one (output, input) pair that dropped.
#[derive(Clone, Copy, Debug, Default)]
struct PairDrops {
    dropped: u64,
    hist: RunHistogram,
    /// Length of the open run (0: none).
    run: u32,
    /// The output port.
    port: u32,
}

/// One TCP flow's open run of data-segment drops.
#[derive(Clone, Copy, Debug)]
struct FlowRun {
    port: u32,
    run: u32,
    /// Its drops and runs in `flow_drops` (`NONE`: no drop yet).
    drops: u32,
}

/// The drops of one TCP flow that dropped.
#[derive(Clone, Copy, Debug, Default)]
struct FlowDrops {
    drops: u64,
    hist: RunHistogram,
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
    port_hists: Vec<RunHistogram>,
    /// The blocks of the ports' tables: child block offsets, then (last level) pairs.
    table: Vec<TableSlot>,
    /// Per pair: packets offered (a host's own pair: unused, the port counts them; a port's
    /// first pair: in `OutPort::first_offered`; a pair in a table: in its leaf).
    pair_offered: Vec<u64>,
    /// Per pair: its leaf in `table` (`NONE`: not in a table).
    pair_leaf: Vec<u32>,
    /// Per pair: (output port, input port or `LOCAL_INPUT`).
    pair_key: Vec<(u32, u32)>,
    /// Per pair: its drop state in `pair_drops` (`NONE`: no drop yet).
    pair_drop: Vec<u32>,
    pair_drops: Vec<PairDrops>,
    flows: Vec<FlowRun>,
    flow_drops: Vec<FlowDrops>,
    /// Flows 0..model_flows are the model's n synchronized flows.
    model_flows: usize,
    /// Per model flow: RTT of its path with empty queues (a round before any SRTT).
    base_rtt: Vec<Duration>,
    loss_events: u64,
    event_start: Option<Time>,
}

/// Shift of the root level of a table over `slots` keys.
fn root_shift(slots: u32) -> u32 {
    let mut shift = 0;
    while slots.saturating_sub(1) >> shift > LEVEL_MASK {
        shift += LEVEL_BITS;
    }
    shift
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

    fn new_pair(&mut self, port: u32, input: u32) -> u32 {
        let i = self.pair_key.len();
        assert!(i < NONE as usize, "too many (output, input) pairs");
        self.pair_offered.push(0);
        self.pair_leaf.push(NONE);
        self.pair_key.push((port, input));
        self.pair_drop.push(NONE);
        i as u32
    }

    /// The pair of `port` and `input` (made on its first packet).
    #[inline(always)]
    fn pair(&mut self, port: u32, input: u32) -> u32 {
        let out = self.out[port as usize];
        if out.first_in == input {
            return out.first_pair;
        }
        self.other_pair(port, input)
    }

    /// The pair of `port` and `input`, not `port`'s first.
    #[inline(always)]
    fn other_pair(&mut self, port: u32, input: u32) -> u32 {
        let inp = self.inp[input as usize];
        if inp.first_out == port {
            return inp.first_pair;
        }
        self.table_pair(port, input)
    }

    /// The pair of `port` and `input` from `port`'s table, or a new pair.
    #[inline(never)]
    fn table_pair(&mut self, port: u32, input: u32) -> u32 {
        self.table_pair_counting(port, input, false)
    }

    /// [`Diagnostics::table_pair`], counting a packet offered by the pair (`count`) where the
    /// pair is found: in its leaf, so that a switch's admission reads one line for both.
    #[inline(never)]
    fn table_pair_counting(&mut self, port: u32, input: u32, count: bool) -> u32 {
        let slot = self.inp[input as usize].slot;
        let shift = root_shift(self.out[port as usize].slots);
        let leaf = self.find(self.out[port as usize].table, shift, slot);
        if leaf != NONE && self.table[leaf as usize].link != NONE {
            let found = &mut self.table[leaf as usize];
            found.offered += u64::from(count);
            return found.link;
        }
        let i = self.new_pair(port, input);
        let (out, inp) = (&mut self.out[port as usize], &mut self.inp[input as usize]);
        if out.first_in == NO_PORT {
            (out.first_in, out.first_pair) = (input, i);
        } else if inp.first_out == NO_PORT {
            (inp.first_out, inp.first_pair) = (port, i);
        } else {
            self.insert(port, shift, slot, i);
        }
        if count {
            self.count_offered(port, i as usize);
        }
        i
    }

    /// The leaf for `slot` of the table rooted at `root` (`NONE`: no leaf block yet).
    fn find(&self, root: u32, mut shift: u32, slot: u32) -> u32 {
        if root == NONE {
            return NONE;
        }
        let mut at = root as usize + (slot >> shift) as usize;
        while shift > 0 {
            let child = self.table[at].link;
            if child == NONE {
                return NONE;
            }
            shift -= LEVEL_BITS;
            at = child as usize + ((slot >> shift) & LEVEL_MASK) as usize;
        }
        at as u32
    }

    /// Puts `pair` at `slot` of `port`'s table, allocating the blocks on its path.
    fn insert(&mut self, port: u32, mut shift: u32, slot: u32, pair: u32) {
        fn block(table: &mut Vec<TableSlot>, len: usize) -> u32 {
            let at = table.len();
            assert!(at + len < NONE as usize, "diagnostics table full");
            table.resize(at + len, EMPTY_SLOT);
            at as u32
        }
        let mut root = self.out[port as usize].table;
        if root == NONE {
            let len = (self.out[port as usize].slots.saturating_sub(1) >> shift) as usize + 1;
            root = block(&mut self.table, len);
            self.out[port as usize].table = root;
        }
        let mut at = root as usize + (slot >> shift) as usize;
        while shift > 0 {
            if self.table[at].link == NONE {
                self.table[at].link = block(&mut self.table, 1 << LEVEL_BITS);
            }
            shift -= LEVEL_BITS;
            at = self.table[at].link as usize + ((slot >> shift) & LEVEL_MASK) as usize;
        }
        self.table[at].link = pair;
        self.pair_leaf[pair as usize] = at as u32;
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
    fn offered(&self, port: u32, i: usize) -> u64 {
        let out = &self.out[port as usize];
        if out.first_pair as usize == i {
            out.first_offered
        } else if self.pair_leaf[i] != NONE {
            self.table[self.pair_leaf[i] as usize].offered
        } else {
            self.pair_offered[i]
        }
    }

    /// drop_runs.csv rows: every (output port, input port) pair that was offered a packet, by
    /// output port, then input port. `port_name(p)` names port p ("switch0->host16");
    /// `port_offered[p]`: packets offered to p (admitted + dropped at admission, from the
    /// port's own counters).
    pub fn drop_run_records(
        &self,
        scenario: &str,
        seed: u64,
        senders: u32,
        port_offered: &[u64],
        port_name: impl Fn(u32) -> String,
    ) -> Vec<DropRunRecord> {
        let mut order: Vec<u32> = (0..self.pair_key.len() as u32).collect();
        order.sort_unstable_by_key(|&i| self.pair_key[i as usize]);
        // At most one row per pair (k = 32: ~46,000 rows of ~200 bytes, grown by doubling
        // they were copied and faulted in about twice over).
        let mut out = Vec::with_capacity(order.len());
        for i in order.into_iter().map(|i| i as usize) {
            let (port, input) = self.pair_key[i];
            let Some(&port_offered) = port_offered.get(port as usize) else {
                continue;
            };
            let offered = if input == LOCAL_INPUT {
                port_offered
            } else {
                self.offered(port, i)
            };
            if offered == 0 {
                continue;
            }
            let (dropped, h) = match self.pair_drop[i] {
                NONE => (0, RunHistogram::default()),
                d => (
                    self.pair_drops[d as usize].dropped,
                    self.pair_drops[d as usize].hist,
                ),
            };
            let mut r = DropRunRecord {
                scenario: scenario.to_string(),
                seed,
                senders,
                port,
                port_name: port_name(port),
                input_port: (input != LOCAL_INPUT).then_some(input),
                input_name: if input == LOCAL_INPUT {
                    "local".into()
                } else {
                    port_name(input)
                },
                packets_offered: offered,
                drops: dropped,
                drop_ratio: dropped as f64 / offered as f64,
                max_drop_run: h.max,
                ..DropRunRecord::default()
            };
            r.set_runs(&h.bins);
            out.push(r);
        }
        out
    }

    /// Fills the per-flow columns of flows.csv.
    pub fn fill_flow(&self, rec: &mut FlowRecord, sender: &SenderSummary) {
        let c = &sender.timeout_classes;
        rec.rto_abtt = c.abtt;
        rec.rto_ibtt_whole_window = c.ibtt_whole_window;
        rec.rto_ibtt_partial_window = c.ibtt_partial_window;
        rec.rto_ibtt_tail = c.ibtt_tail;
        rec.rto_ibtt_retransmission = c.ibtt_retransmission;
        rec.loss_indications = sender.stats.fast_retransmits + c.first_timeouts;
        let fd = match self.flows[rec.flow as usize].drops {
            NONE => FlowDrops::default(),
            d => self.flow_drops[d as usize],
        };
        rec.drops = fd.drops;
        rec.max_drop_run = fd.hist.max;
        rec.set_drop_runs(&fd.hist.bins);
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
    pub fn fill_run(&self, run: &mut RunRecord, m: &ModelContext<'_>) {
        fill_timeout_classes(run, m);
        self.fill_drop_runs(run, m.packets_offered);

        // The book's §3.2 measurements over the model flows.
        let model = self.model_flows.min(m.flows);
        let t0 = self.fill_model_inputs(run, model, m);
        fill_model_predictions(run, model, t0, m);
    }

    /// The drop ratio over `offered` packets and the drop-run histograms of runs.csv: runs per
    /// input port summed over the ports, and per flow summed over the flows.
    fn fill_drop_runs(&self, run: &mut RunRecord, offered: u64) {
        let mut inputs = RunHistogram::default();
        for h in &self.port_hists {
            inputs.add(h);
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
        for fd in &self.flow_drops {
            flows.add(&fd.hist);
        }
        run.max_flow_drop_run = flows.max;
        run.set_flow_drop_runs(&flows.bins);
    }

    /// The book's model inputs measured over the model flows `model` (§3.2: p_r, p_c, δ, RTT,
    /// L); returns T0, which the models take in seconds and runs.csv shows in ms.
    fn fill_model_inputs(
        &self,
        run: &mut RunRecord,
        model: usize,
        m: &ModelContext<'_>,
    ) -> Duration {
        let mut mc = TimeoutClassStats::default();
        let (mut packets, mut fast, mut rtt_sum, mut rtt_n) = (0u64, 0u64, 0u128, 0u64);
        for f in 0..model {
            let s = (m.sender)(f);
            mc.add(&s.timeout_classes);
            packets += s.stats.segments_sent;
            fast += s.stats.fast_retransmits;
            rtt_sum += s.rtt_sample_sum_ps;
            rtt_n += s.rtt_samples;
        }
        let indications = fast + mc.first_timeouts;
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
        run.model_flows = model as u32;
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
