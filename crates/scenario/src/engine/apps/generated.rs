//! The traffic generators' flows (long-lived, Poisson, staggered, permutation): drawn at plan
//! time, started here one after another (one pending start per generator in the event queue),
//! stopped at their end time if they have one, and complete when their size has been delivered.

use super::ALWAYS_HAS_DATA;
use crate::engine::event::{Event, Events};
use crate::plan::traffic::GeneratedFlow;
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
}

impl GeneratedFlows {
    /// The application for `spec`, whose entry 0 is flow `first_flow`.
    pub fn new(spec: Vec<GeneratedFlow>, first_flow: usize) -> GeneratedFlows {
        GeneratedFlows {
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
        for (i, g) in self.spec.iter().enumerate() {
            if i == 0 || self.spec[i - 1].generator != g.generator {
                let flow = self.first_flow + i as u32;
                events.schedule(g.start, Event::FlowStart { flow }.into());
            }
        }
    }

    /// Entry i starts (as flow `flow`): schedules its generator's next start and its own stop;
    /// returns what its application writes.
    pub fn on_start(&self, i: usize, flow: u32, events: &mut Events) -> u64 {
        let g = self.spec[i];
        if let Some(next) = self.spec.get(i + 1)
            && next.generator == g.generator
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

    /// Entry i has delivered `delivered` bytes in all; true when the run is now finished (the
    /// last sized flow of a draining workload completed).
    pub fn on_delivery(&mut self, now: Time, i: usize, delivered: u64) -> bool {
        if let Some(size) = self.spec[i].size
            && self.completed_at[i].is_none()
            && delivered >= size
        {
            self.completed_at[i] = Some(now);
            self.finite_pending -= 1;
            return self.finite_pending == 0 && self.draining;
        }
        false
    }

    /// The arrival period is over: true if the run should wait for the sized flows to finish.
    pub fn start_draining(&mut self) -> bool {
        self.draining = self.finite_pending > 0;
        self.draining
    }
}
