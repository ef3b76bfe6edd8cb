//! Flow dependencies at run time ([`crate::plan::traffic::depend`]): each gate counts down
//! what it still waits for; news crosses between hosts as [`GateEvent::Notify`] after the
//! entry's control latency; a gate opens [`GateEvent::Open`] its delay after the last news,
//! starting its flows and telling the gates that wait for it.
//!
//! Cost: a run without gates holds empty tables, and the engine tests one length when a sized
//! generated flow completes (never per packet).

use super::Simulation;
use super::event::{Event, GateEvent};
use crate::plan::traffic::depend::{Dependencies, GateId};
use incastsim_core::{Duration, HostId, Time};

/// The gates of a run and what each still waits for.
#[derive(Debug, Default)]
pub struct Gates {
    deps: Dependencies,
    /// Per gate: flows and gates it still waits for (0 once its last news arrived).
    remaining: Vec<u32>,
    /// Per gate: when it opened (`None` until then).
    opened_at: Vec<Option<Time>>,
    /// Gates ready to open now (a worklist, so a chain of zero-delay gates on one host opens
    /// without recursion).
    ready: Vec<GateId>,
    /// After [`Gates::release`]: how many were still closed.
    released_closed: usize,
}

impl Gates {
    /// The run's gates, none heard of yet.
    pub fn new(deps: Dependencies) -> Gates {
        Gates {
            remaining: deps.gates.iter().map(|g| g.waits_for).collect(),
            opened_at: vec![None; deps.gates.len()],
            deps,
            ready: Vec::new(),
            released_closed: 0,
        }
    }

    /// Whether the run has no gate.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.deps.is_empty()
    }

    /// The dependency tables.
    pub fn dependencies(&self) -> &Dependencies {
        &self.deps
    }

    /// When gate `g` opened, if it has.
    pub fn opened_at(&self, g: GateId) -> Option<Time> {
        self.opened_at.get(g as usize).copied().flatten()
    }

    /// Frees the tables once the results no longer read them (the open/closed counts stay).
    pub fn release(&mut self) {
        let closed = self.closed();
        *self = Gates::default();
        self.released_closed = closed;
    }

    /// Gates that have not opened (a run that ended with some is incomplete).
    pub fn closed(&self) -> usize {
        self.released_closed + self.opened_at.iter().filter(|t| t.is_none()).count()
    }
}

impl Simulation {
    /// At the start of the run: the gates that wait for nothing open after their delay (as
    /// events, like every start).
    pub(super) fn schedule_unconditional_gates(&mut self) {
        for (g, gate) in self.gates.deps.gates.iter().enumerate() {
            if gate.waits_for == 0 {
                let event = Event::Gate(GateEvent::Open { gate: g as GateId });
                self.events.schedule(Time::ZERO + gate.delay, event.into());
            }
        }
    }

    /// Generated flow `i` completed (its receiver has the last byte): the gates waiting for it
    /// hear of it from the receiver's host.
    #[cold]
    #[inline(never)]
    pub(super) fn after_gated_flow_done(&mut self, now: Time, i: usize) {
        let from = self.generated.spec[i].dst;
        let n = self.gates.deps.gates_after_flow(i).len();
        for k in 0..n {
            let g = self.gates.deps.gates_after_flow(i)[k];
            self.send_news(now, from, g);
        }
        self.open_ready_gates(now);
    }

    /// A flow dependency's event.
    #[cold]
    #[inline(never)]
    pub(super) fn on_gate_event(&mut self, now: Time, e: GateEvent) {
        match e {
            GateEvent::Notify { gate } => self.gate_heard(now, gate),
            GateEvent::Open { gate } => self.gates.ready.push(gate),
        }
        self.open_ready_gates(now);
    }

    /// The news that something gate `g` waits for happened at host `from`, now: heard at once
    /// on the gate's own host, else as a control message after the entry's latency.
    fn send_news(&mut self, now: Time, from: HostId, g: GateId) {
        if from == self.gates.deps.gates[g as usize].host {
            self.gate_heard(now, g);
            return;
        }
        let latency = self.gates.deps.news_latency(&self.network.fabric, from, g);
        let event = Event::Gate(GateEvent::Notify { gate: g });
        self.events.schedule(now + latency, event.into());
    }

    /// Gate `g` heard of one more thing it waits for.
    fn gate_heard(&mut self, now: Time, g: GateId) {
        let left = &mut self.gates.remaining[g as usize];
        debug_assert!(*left > 0, "gate {g} heard more news than it waits for");
        *left = left.saturating_sub(1);
        if *left == 0 {
            self.gate_ready(now, g);
        }
    }

    /// Gate `g` has heard everything: it opens after its delay.
    fn gate_ready(&mut self, now: Time, g: GateId) {
        let delay = self.gates.deps.gates[g as usize].delay;
        if delay == Duration::ZERO {
            self.gates.ready.push(g);
        } else {
            let event = Event::Gate(GateEvent::Open { gate: g });
            self.events.schedule(now + delay, event.into());
        }
    }

    /// Opens every gate ready now: its flows start (their start time is now) and the gates
    /// waiting for it hear of it.
    fn open_ready_gates(&mut self, now: Time) {
        while let Some(g) = self.gates.ready.pop() {
            if self.outcome.is_some() {
                self.gates.ready.clear();
                return;
            }
            debug_assert!(self.gates.opened_at[g as usize].is_none(), "gate {g} twice");
            self.gates.opened_at[g as usize] = Some(now);
            let host = self.gates.deps.gates[g as usize].host;
            let flows = self.gates.deps.flows_gated_on(g).len();
            for k in 0..flows {
                let i = self.gates.deps.flows_gated_on(g)[k] as usize;
                self.generated.spec[i].start = now;
                self.flow_start(now, self.workload_flows + i);
            }
            let next = self.gates.deps.gates_after_gate(g).len();
            for k in 0..next {
                let after = self.gates.deps.gates_after_gate(g)[k];
                self.send_news(now, host, after);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::ConfigError;
    use crate::engine::{Outcome, Simulation};
    use crate::extend::{GeneratedFlow, TrafficContext, TrafficGeneratorExtension};
    use crate::{Config, Extensions, Plan, RunOptions};
    use incastsim_core::{Duration, Time};

    #[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
    struct Params {
        /// Which bad declaration to make (0: none).
        #[serde(default)]
        bad: u32,
    }

    /// Flow 0 (host1 → host0) at time 0; gate 0 at host2 after flow 0 + 5 µs starts flow 1
    /// (host2 → host0); gate 1 at host0 after flow 0 + 3 µs and gate 0 starts flow 2 (host0 →
    /// host1).
    struct Chain;

    impl TrafficGeneratorExtension for Chain {
        type Params = Params;
        const DESCRIPTION: &'static str = "a chain of dependent flows";
        fn generate(
            p: &Params,
            ctx: &mut TrafficContext,
        ) -> Result<Vec<GeneratedFlow>, ConfigError> {
            let us = Duration::from_us;
            let mut flows = vec![ctx.sized_flow(1, 0, Time::ZERO, 10_000)];
            let g0 = ctx.gate(2, us(5), &[0], &[])?;
            flows.push(ctx.gated_flow(2, 0, g0, 20_000));
            match p.bad {
                1 => {
                    ctx.gate(0, us(3), &[0], &[g0 + 1])?;
                }
                2 => flows.push(ctx.gated_flow(1, 0, g0, 1000)),
                3 => {
                    flows.push(ctx.backlogged_flow(3, 0, Time::ZERO, None));
                    ctx.gate(0, us(3), &[2], &[])?;
                }
                _ => {
                    let g1 = ctx.gate(0, us(3), &[0], &[g0])?;
                    flows.push(ctx.gated_flow(0, 1, g1, 5_000));
                }
            }
            Ok(flows)
        }
    }

    const YAML: &str = "
senders: 3
topology: {kind: star, link_rate: 1Gbps, link_delay: 5us}
workload: {kind: traffic, duration: 1us, drain: true}
traffic: [{kind: chain}]
";

    fn plan(bad: u32) -> Result<Plan, ConfigError> {
        let ext = Extensions::new().traffic_generator::<Chain>("chain");
        let set = [format!("traffic[0].bad={bad}")];
        let cfg = Config::from_yaml_with(YAML, &set, &ext).unwrap();
        Plan::build(&cfg, 1, &RunOptions::new().extensions(&ext))
    }

    #[test]
    fn a_gated_flow_starts_after_the_news_and_the_delay() {
        let mut sim = Simulation::from_plan(plan(0).unwrap());
        assert_eq!(sim.run(), Outcome::Completed);
        let g = &sim.generated;
        let done = |i: usize| g.completed_at[i].unwrap();
        // News from host0 (flow 0's receiver) to host2: 64 B at 1 Gbit/s (512 ns) and 5 µs on
        // each of the two links.
        let news = Duration::from_ns(2 * (512 + 5_000));
        assert_eq!(g.spec[1].start, done(0) + news + Duration::from_us(5));
        // Gate 1 is at host0: flow 0 is heard at once, gate 0's opening after the news from
        // host2; it opens 3 µs after the later of the two.
        let heard = (done(0)).max(g.spec[1].start + news);
        assert_eq!(g.spec[2].start, heard + Duration::from_us(3));
        assert!(done(2) > g.spec[2].start);
        assert_eq!(sim.gates.closed(), 0);
        let flows = sim.results().flows;
        assert_eq!(flows.len(), 3);
        assert!(flows.iter().all(|f| f.fct_ms.is_some()));
    }

    #[test]
    fn bad_gates_are_refused_naming_the_gate() {
        let e = |bad| plan(bad).err().map(|e| e.to_string()).expect("refused");
        assert!(e(1).contains("gate 1 waits for gate 1"), "{}", e(1));
        assert!(e(2).contains("on gate 0 at host2"), "{}", e(2));
        assert!(e(3).contains("gate 1 waits for its flow 2"), "{}", e(3));
    }
}
