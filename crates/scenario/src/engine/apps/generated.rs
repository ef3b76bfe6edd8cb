//! The traffic generators' flows (long-lived, Poisson, staggered, permutation): drawn at plan
//! time, started here one after another (one pending start per generator in the event queue),
//! stopped at their end time if they have one, and complete when their size has been delivered.
//! A reactive generator's flows added while the run goes ([`crate::plan::traffic::reactive`])
//! join the list at its end, each with its own pending start.

use super::ALWAYS_HAS_DATA;
use crate::engine::event::{Event, Events};
use crate::plan::traffic::{GeneratedFlow, ReactiveEntry};
use incastsim_core::Time;

/// The traffic generators' flows: their start and stop events and completion times.
pub struct GeneratedFlows {
    /// The drawn flows, in generator and start order.
    pub spec: Vec<GeneratedFlow>,
    /// Flow id of entry 0 (generated flows follow the workload's).
    first_flow: u32,
    /// Per entry: when its last byte was delivered in order (None until then; FCT = this - start).
    pub completed_at: Vec<Option<Time>>,
    /// Bytes delivered when a fixed-duration flow stopped.
    pub delivered_at_stop: Vec<Option<u64>>,
    /// Sized flows not yet complete.
    pub finite_pending: u64,
    /// The traffic workload's arrival period is over; finish when `finite_pending` reaches 0.
    draining: bool,
    /// Entries drawn at plan time (`spec[..planned]`, chained per generator); the rest were
    /// added while the run goes, each with its own start event.
    planned: usize,
    /// Per entry of `traffic:`, its reactive part; empty when no generator is reactive.
    pub(crate) reactive: Vec<Option<ReactiveEntry>>,
    /// The entries whose generators declare values of their own, with the names.
    value_names: Vec<(u32, &'static [&'static str])>,
    /// The flows a reaction adds (reused: no allocation per completion once grown).
    pub(crate) added: Vec<GeneratedFlow>,
    /// Most generated flows the run may hold (plan-time and added).
    pub(crate) max_flows: u64,
}

impl GeneratedFlows {
    /// The application for `spec`, whose entry 0 is flow `first_flow`.
    pub fn new(
        spec: Vec<GeneratedFlow>,
        first_flow: usize,
        reactive: Vec<Option<ReactiveEntry>>,
        value_names: Vec<(u32, &'static [&'static str])>,
    ) -> GeneratedFlows {
        let max_flows = crate::plan::traffic::MAX_GENERATED_FLOWS
            .min(crate::engine::event::MAX_FLOWS - first_flow as u64);
        GeneratedFlows {
            planned: spec.len(),
            reactive,
            value_names,
            added: Vec::new(),
            max_flows,
            finite_pending: spec.iter().filter(|g| g.size.is_some()).count() as u64,
            completed_at: vec![None; spec.len()],
            delivered_at_stop: vec![None; spec.len()],
            spec,
            first_flow: first_flow as u32,
            draining: false,
        }
    }

    /// Each generator's flows are consecutive and in start order: schedules the first of each;
    /// every start schedules the next.
    pub fn schedule_first_starts(&self, events: &mut Events) {
        for (i, g) in self.spec[..self.planned].iter().enumerate() {
            if g.gate.is_none() && (i == 0 || self.spec[i - 1].generator != g.generator) {
                let flow = self.first_flow + i as u32;
                events.schedule(g.start, Event::FlowStart { flow }.into());
            }
        }
    }

    /// Entry i starts (as flow `flow`): schedules its generator's next start and its own stop;
    /// returns what its application writes.
    pub fn on_start(&self, i: usize, flow: u32, events: &mut Events) -> u64 {
        let g = self.spec[i];
        // A gated flow is started by its gate, never by the one before it.
        if let Some(next) = self.spec[..self.planned].get(i + 1)
            && next.generator == g.generator
            && next.gate.is_none()
        {
            events.schedule(next.start, Event::FlowStart { flow: flow + 1 }.into());
        }
        if let Some(stop) = g.stop {
            events.schedule(stop, Event::FlowStop { flow }.into());
        }
        g.size.unwrap_or(ALWAYS_HAS_DATA)
    }

    /// Whether entry i's application writes once, at its start (a sized flow without an end
    /// time): it is then done writing as soon as it has started.
    pub fn writes_once(&self, i: usize) -> bool {
        let g = &self.spec[i];
        g.size.is_some() && g.stop.is_none()
    }

    /// Entry i's application stopped writing with `delivered` bytes delivered.
    pub fn on_stop(&mut self, i: usize, delivered: u64) {
        self.delivered_at_stop[i] = Some(delivered);
    }

    /// Entry i has delivered `delivered` bytes in all; true when it completed just now.
    pub fn on_delivery(&mut self, now: Time, i: usize, delivered: u64) -> bool {
        if let Some(size) = self.spec[i].size
            && self.completed_at[i].is_none()
            && delivered >= size
        {
            self.completed_at[i] = Some(now);
            self.finite_pending -= 1;
            return true;
        }
        false
    }

    /// Whether the traffic workload's arrival period is over (it waits for its flows).
    pub fn draining(&self) -> bool {
        self.draining
    }

    /// Whether the run is finished: the workload is draining and no sized flow is left.
    pub fn drained(&self) -> bool {
        self.draining && self.finite_pending == 0
    }

    /// The generators' own values as runs.csv columns `traffic[I].<name>` (empty where an entry
    /// has no reactor).
    pub fn value_columns(&self) -> Vec<(String, crate::probe::ProbeValue)> {
        let mut columns = Vec::new();
        for &(entry, names) in &self.value_names {
            let mut values = vec![0.0; names.len()];
            let reactor = self.reactive.get(entry as usize).and_then(Option::as_ref);
            if let Some(r) = reactor {
                r.reactor.values(&mut values);
            }
            for (name, v) in names.iter().zip(values) {
                let value = reactor.map(|_| v).into();
                columns.push((format!("traffic[{entry}].{name}"), value));
            }
        }
        columns
    }

    /// Whether generator `generator` adds flows when its flows finish.
    #[inline]
    pub fn is_reactive(&self, generator: u32) -> bool {
        matches!(self.reactive.get(generator as usize), Some(Some(_)))
    }

    /// Room for more generated flows under `GeneratedFlows::max_flows`.
    pub fn room(&self) -> u64 {
        self.max_flows.saturating_sub(self.spec.len() as u64)
    }

    /// Appends `g`, added while the run goes as flow `flow`, and schedules its start (and
    /// nothing else: its start does not chain to another flow).
    #[cold]
    pub fn add(&mut self, g: GeneratedFlow, flow: u32, events: &mut Events) {
        self.spec.push(g);
        self.completed_at.push(None);
        self.delivered_at_stop.push(None);
        if g.size.is_some() {
            self.finite_pending += 1;
        }
        events.schedule(g.start, Event::FlowStart { flow }.into());
    }

    /// The arrival period is over: true if the run should wait for the sized flows to finish.
    pub fn start_draining(&mut self) -> bool {
        self.draining = self.finite_pending > 0;
        self.draining
    }
}

#[cfg(test)]
mod tests {
    use crate::config::ConfigError;
    use crate::engine::{Outcome, Simulation};
    use crate::extend::{
        FinishedFlow, GeneratedFlow, ReactionContext, RefusedFlow, TrafficContext,
        TrafficGeneratorExtension, TrafficReactor,
    };
    use crate::{Config, Extensions, Plan, RunOptions};
    use incastsim_core::{Duration, Time};
    use std::sync::Mutex;

    #[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
    struct NoParams {}

    /// Every finished flow asks for two more: a runaway generator.
    struct Doubling;
    static REFUSED: Mutex<Vec<RefusedFlow>> = Mutex::new(Vec::new());

    impl TrafficReactor for Doubling {
        fn on_flow_finish(&mut self, done: &FinishedFlow, ctx: &mut ReactionContext) {
            for _ in 0..2 {
                if let Err(e) = ctx.sized_flow(done.src, done.dst, 1000, Duration::from_us(1)) {
                    REFUSED.lock().unwrap().push(e);
                }
            }
        }
    }

    impl TrafficGeneratorExtension for Doubling {
        type Params = NoParams;
        const DESCRIPTION: &'static str = "two flows for each that finishes";
        fn generate(
            _: &Self::Params,
            ctx: &mut TrafficContext,
        ) -> Result<Vec<GeneratedFlow>, ConfigError> {
            let (src, dst) = (ctx.senders()[0], ctx.receivers()[0]);
            Ok(vec![ctx.sized_flow(src, dst, Time::ZERO, 1000)])
        }
        fn reactor(
            _: &Self::Params,
            _: &mut TrafficContext,
        ) -> Result<Option<Box<dyn TrafficReactor>>, ConfigError> {
            Ok(Some(Box::new(Doubling)))
        }
    }

    /// Over the run's cap on generated flows, the flow is refused and the run ends as
    /// `max_flows`, holding exactly the cap.
    #[test]
    fn a_runaway_generator_ends_the_run_at_the_flow_cap() {
        let ext = Extensions::new().traffic_generator::<Doubling>("doubling");
        let yaml = "
senders: 1
topology: {kind: star, link_rate: 1Gbps, link_delay: 5us}
workload: {kind: traffic, duration: 1ms}
traffic: [{kind: doubling}]
";
        let cfg = Config::from_yaml_with(yaml, &[], &ext).unwrap();
        let plan = Plan::build(&cfg, 1, &RunOptions::new().extensions(&ext)).unwrap();
        let mut sim = Simulation::from_plan(plan);
        sim.generated.max_flows = 20;
        assert_eq!(sim.run(), Outcome::FlowLimit);
        assert_eq!(Outcome::FlowLimit.as_str(), "max_flows");
        assert_eq!(sim.generated.spec.len(), 20);
        assert_eq!(sim.transport.flows.len(), 20);
        assert!(REFUSED.lock().unwrap().contains(&RefusedFlow::FlowLimit));
        let r = sim.results();
        assert_eq!(r.flows.len(), 20);
        assert!(!r.run.completed);
    }
}
