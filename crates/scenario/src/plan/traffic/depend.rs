//! Flows that wait for flows: the dependency primitive every traffic generator (built-in or a
//! downstream crate's) can use, and the collectives and trace importer are built on.
//!
//! A generator declares **gates**. A gate sits at one host and waits for some of the entry's
//! sized flows to complete and for some earlier gates to open; it then opens after its own
//! `delay` (compute time), and every flow gated on it starts (from that host) at that moment.
//! [`TrafficContext::gate`](super::TrafficContext::gate) declares one and
//! [`TrafficContext::gated_flow`](super::TrafficContext::gated_flow) makes a flow that starts
//! when one opens.
//!
//! **News crosses links.** A flow is complete when its receiver has its last byte, so that is
//! the host that knows first. A gate at another host hears of it as a control message: it
//! arrives `control_latency` later ([`ControlLatency`]: by default the path's one-way latency
//! for a 64-byte message, propagation, switching and serialization at each hop, no queueing).
//! A gate opening tells the gates waiting for it the same way (no latency on the same host).
//! Nothing at one node reads another node's state at zero delay, so a run stays partitionable
//! by node.
//!
//! **No cycle, no wait forever.** A gate may wait only for flows and gates declared before it
//! (a flow gated on gate g may be waited for only by gates after g), so the graph has no cycle
//! by construction; and only for sized flows without a stop (a flow that may never complete
//! would hold its gate forever). Both are checked when the entry is drawn, naming the gate.

use incastsim_core::{Duration, HostId};

/// A gate of a run, by its index (generators get them from
/// [`TrafficContext::gate`](super::TrafficContext::gate), numbered per run).
pub type GateId = u32;

/// How long the news of a finished flow (or an opened gate) takes from the host that knows to
/// a gate at another host.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ControlLatency {
    /// The one-way latency of a 64-byte control message on the static route between the two
    /// hosts: each hop's propagation and processing delay plus its serialization, without
    /// queueing (the default).
    #[default]
    Path,
    /// The same fixed latency between any two different hosts.
    Fixed(Duration),
}

/// Bytes of the control message whose serialization [`ControlLatency::Path`] counts (a
/// minimum Ethernet frame).
pub const CONTROL_MESSAGE_BYTES: u64 = 64;

/// One gate as declared: where it is, its delay, and what it waits for (the flows by their
/// position in the entry's list as the generator returns it; the gates by id).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DeclaredGate {
    pub host: HostId,
    pub delay: Duration,
    /// Range into [`EntryGates::flow_refs`].
    pub flows: (u32, u32),
    /// Range into [`EntryGates::gate_refs`].
    pub gates: (u32, u32),
}

/// The gates one entry declared while drawing, before its flows are numbered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct EntryGates {
    /// Id of this entry's first gate.
    pub first: GateId,
    pub gates: Vec<DeclaredGate>,
    pub flow_refs: Vec<u32>,
    pub gate_refs: Vec<GateId>,
    pub latency: ControlLatency,
}

/// A gate as the run holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gate {
    /// The host it sits at (its flows' source).
    pub host: HostId,
    /// What it waits for: flows to complete plus gates to open.
    pub waits_for: u32,
    /// How long after the last of them it opens.
    pub delay: Duration,
    /// The entry of `traffic:` that declared it (its control latency).
    pub generator: u32,
}

/// Every gate of a run and who tells whom: built at plan time, read by the engine
/// (`engine/gates.rs`). Empty (no allocation) when no generator declared a gate. Stored as
/// flat adjacency lists: a million-flow collective has a million edges, not a million `Vec`s.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dependencies {
    /// The gates, by id.
    pub gates: Vec<Gate>,
    /// Per gate: the generated flows (indices into the generated list) gated on it, at
    /// `gate_flows[gate_flow_start[g]..gate_flow_start[g + 1]]`.
    gate_flow_start: Vec<u32>,
    gate_flows: Vec<u32>,
    /// Per gate: the gates that wait for it to open.
    gate_next_start: Vec<u32>,
    gate_next: Vec<GateId>,
    /// Per generated flow drawn at plan time: the gates that wait for it to complete.
    flow_next_start: Vec<u32>,
    flow_next: Vec<GateId>,
    /// Per entry of `traffic:`: its control latency.
    pub latency: Vec<ControlLatency>,
}

impl Dependencies {
    /// Whether the run has no gate (the engine then does nothing on a completion).
    pub fn is_empty(&self) -> bool {
        self.gates.is_empty()
    }

    /// The generated flows that start when gate `g` opens.
    pub fn flows_gated_on(&self, g: GateId) -> &[u32] {
        let g = g as usize;
        &self.gate_flows[self.gate_flow_start[g] as usize..self.gate_flow_start[g + 1] as usize]
    }

    /// The gates that wait for gate `g` to open.
    pub fn gates_after_gate(&self, g: GateId) -> &[GateId] {
        let g = g as usize;
        &self.gate_next[self.gate_next_start[g] as usize..self.gate_next_start[g + 1] as usize]
    }

    /// The gates that wait for generated flow `i` to complete (none for a flow added at run
    /// time by a reactor).
    pub fn gates_after_flow(&self, i: usize) -> &[GateId] {
        match (self.flow_next_start.get(i), self.flow_next_start.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.flow_next[a as usize..b as usize],
            _ => &[],
        }
    }

    /// How long news from host `from` takes to reach gate `g`: 0 on the gate's own host, else
    /// its entry's [`ControlLatency`] on `fabric` (the engine's control messages and the
    /// collectives' ideal both ask here).
    pub fn news_latency(
        &self,
        fabric: &crate::plan::fabric::Fabric,
        from: HostId,
        g: GateId,
    ) -> Duration {
        let gate = self.gates[g as usize];
        if from == gate.host {
            return Duration::ZERO;
        }
        match self.latency[gate.generator as usize] {
            ControlLatency::Path => fabric.message_latency(from, gate.host, CONTROL_MESSAGE_BYTES),
            ControlLatency::Fixed(d) => d,
        }
    }

    /// Edges in all (flow → gate and gate → gate), for the memory estimate and tests.
    pub fn edge_count(&self) -> usize {
        self.flow_next.len() + self.gate_next.len()
    }

    /// Bytes these tables hold (reported as the plan's per-flow cost).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.gates.capacity() * size_of::<Gate>()
            + 4 * (self.gate_flow_start.capacity()
                + self.gate_flows.capacity()
                + self.gate_next_start.capacity()
                + self.gate_next.capacity()
                + self.flow_next_start.capacity()
                + self.flow_next.capacity())
    }

    /// Builds the tables from each entry's declared gates, once every entry is drawn: `flows`
    /// are the run's generated flows (their `gate` fields already global ids), `entries`
    /// the declarations with their flow references already global indices.
    pub(crate) fn build(
        flows: &[super::GeneratedFlow],
        entries: Vec<(usize, EntryGates)>,
        generator_count: usize,
    ) -> Dependencies {
        if entries.iter().all(|(_, e)| e.gates.is_empty()) {
            return Dependencies::default();
        }
        let mut deps = Dependencies {
            latency: vec![ControlLatency::Path; generator_count],
            ..Dependencies::default()
        };
        let mut flow_edges: Vec<(u32, GateId)> = Vec::new();
        let mut gate_edges: Vec<(GateId, GateId)> = Vec::new();
        for (generator, entry) in &entries {
            deps.latency[*generator] = entry.latency;
            for (k, g) in entry.gates.iter().enumerate() {
                let id = entry.first + k as u32;
                let flows = &entry.flow_refs[g.flows.0 as usize..g.flows.1 as usize];
                let gates = &entry.gate_refs[g.gates.0 as usize..g.gates.1 as usize];
                deps.gates.push(Gate {
                    host: g.host,
                    waits_for: (flows.len() + gates.len()) as u32,
                    delay: g.delay,
                    generator: *generator as u32,
                });
                flow_edges.extend(flows.iter().map(|&f| (f, id)));
                gate_edges.extend(gates.iter().map(|&before| (before, id)));
            }
        }
        let gate_count = deps.gates.len();
        let gated = flows
            .iter()
            .enumerate()
            .filter_map(|(i, f)| f.gate.map(|g| (g, i as u32)));
        (deps.gate_flow_start, deps.gate_flows) = adjacency(gate_count, gated);
        (deps.gate_next_start, deps.gate_next) = adjacency(gate_count, gate_edges.into_iter());
        (deps.flow_next_start, deps.flow_next) = adjacency(flows.len(), flow_edges.into_iter());
        deps
    }
}

/// Flat adjacency lists over `n` sources from (source, target) pairs, targets in input order
/// per source (a counting sort: two passes, no per-source allocation).
fn adjacency(n: usize, edges: impl Iterator<Item = (u32, u32)> + Clone) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; n + 1];
    for (s, _) in edges.clone() {
        start[s as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut out = vec![0u32; start[n] as usize];
    for (s, t) in edges {
        out[fill[s as usize] as usize] = t;
        fill[s as usize] += 1;
    }
    (start, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacency_keeps_input_order_per_source() {
        let edges = [(2, 7), (0, 1), (2, 3), (0, 9)];
        let (start, out) = adjacency(3, edges.iter().copied());
        assert_eq!(start, vec![0, 2, 2, 4]);
        assert_eq!(out, vec![1, 9, 7, 3]);
    }
}
