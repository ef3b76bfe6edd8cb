//! Reactive traffic: a generator that adds flows while the run goes, when one of its own flows
//! finishes (barrier-synchronized incast waves; the building block for collectives, where a
//! flow starts when others finish).
//!
//! A registered generator that wants this returns a [`TrafficReactor`] at plan time beside its
//! first flows (`TrafficGeneratorExtension::reactor`). The engine calls
//! [`TrafficReactor::on_flow_finish`] each time one of that entry's sized flows delivers its
//! last byte, with a [`FinishedFlow`] and a [`ReactionContext`], and the reactor adds flows
//! through the context. Those flows are generated flows like the plan-time ones: the next flow
//! ids, a connection built when they start, flows.csv rows with FCT, ideal FCT and slowdown.
//!
//! **Checked when made, not at plan time.** A flow added at run time cannot be refused by the
//! plan, so the context's constructors check it and return [`RefusedFlow`] to the reactor
//! instead of adding it: two different hosts of the topology, a positive size or duration.
//! The start is `now + after` (`after` is a [`Duration`], so never in the past). A bad flow
//! never reaches the engine, so there is nothing to drop or warn about later.
//!
//! **Bounds.** A flow that would start after `run.max_sim_time` is refused
//! ([`RefusedFlow::AfterTimeLimit`]: it could never start, and a reactor that keeps adding
//! flows stops growing the run there). The generated flows of a run, plan-time and run-time
//! together, are capped at [`super::MAX_GENERATED_FLOWS`] (and the event encoding's flow limit):
//! a flow over the cap is refused ([`RefusedFlow::FlowLimit`]) and the run ends with the
//! outcome `max_flows` (not `completed`) once the reaction returns, so a runaway generator is
//! visible in runs.csv and the manifest instead of filling memory.
//!
//! **Determinism.** The hook runs inside the event loop, in event order, on the run's thread;
//! its randomness is [`ReactionContext::rng`], the entry's own stream (`Stream::Workload`,
//! instance = the entry's index) continued from where the plan-time draw left it. So the same
//! config and seed give the same flows, whatever the thread count.
//!
//! **Cost.** Nothing for a run without a reactor: the engine tests one flag when a sized
//! generated flow completes (never per packet).

use super::GeneratedFlow;
use incastsim_core::{Duration, HostId, SimRng, Time};

/// One of the entry's sized flows that has just delivered its last byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FinishedFlow {
    /// Its flow id (the `flow` column of flows.csv).
    pub flow: u32,
    /// The sending host.
    pub src: HostId,
    /// The receiving host.
    pub dst: HostId,
    /// Its size, bytes.
    pub size: u64,
    /// When it started.
    pub start: Time,
    /// When its last byte was delivered (now).
    pub finish: Time,
}

impl FinishedFlow {
    /// Its flow completion time (`finish - start`, the `fct_ms` of flows.csv).
    pub fn fct(&self) -> Duration {
        self.finish.since(self.start)
    }
}

/// Why [`ReactionContext`] did not add a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefusedFlow {
    /// Source and destination are the same host.
    SameHost,
    /// A host id not in the topology (`0..host_count`).
    UnknownHost,
    /// A sized flow of 0 bytes, or a backlogged flow of zero duration.
    Empty,
    /// It would start after `run.max_sim_time`: it could never start.
    AfterTimeLimit,
    /// The run holds as many generated flows as it may
    /// ([`super::MAX_GENERATED_FLOWS`]): the run ends with the outcome `max_flows`.
    FlowLimit,
}

impl std::fmt::Display for RefusedFlow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RefusedFlow::SameHost => "source and destination are the same host",
            RefusedFlow::UnknownHost => "a host that is not in the topology",
            RefusedFlow::Empty => "a flow of 0 bytes or of zero duration",
            RefusedFlow::AfterTimeLimit => "it would start after run.max_sim_time",
            RefusedFlow::FlowLimit => "the run holds as many generated flows as it may",
        })
    }
}

impl std::error::Error for RefusedFlow {}

/// The run-time part of a reactive traffic generator (one per entry and run, built at plan
/// time by `TrafficGeneratorExtension::reactor`). It holds its own state (which wave it is
/// in, which flows it waits for) and sees nothing of the network but its flows' completions.
pub trait TrafficReactor: Send {
    /// One of the entry's sized flows (plan-time or added here) delivered its last byte.
    /// Add flows with `ctx`'s constructors; they start at `ctx.now()` plus their `after`.
    fn on_flow_finish(&mut self, done: &FinishedFlow, ctx: &mut ReactionContext);
    /// Its values at the end of the run, one per name its generator declares
    /// (`TrafficGeneratorExtension::VALUE_NAMES`), in that order (`out` has that length):
    /// runs.csv columns `traffic[I].<name>`. Default: leaves them 0.
    fn values(&self, out: &mut [f64]) {
        let _ = out;
    }
}

/// What a [`TrafficReactor`] adds flows through, during one call.
pub struct ReactionContext<'a> {
    index: u32,
    now: Time,
    host_count: u32,
    time_limit: Time,
    next_flow: u32,
    room: u64,
    rng: &'a mut SimRng,
    added: &'a mut Vec<GeneratedFlow>,
    limit_hit: bool,
}

impl<'a> ReactionContext<'a> {
    /// The context of entry `index` at `now`: flows go to `added` (their ids follow
    /// `next_flow`), at most `room` more, none starting after `time_limit`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        index: u32,
        now: Time,
        host_count: u32,
        time_limit: Time,
        next_flow: u32,
        room: u64,
        rng: &'a mut SimRng,
        added: &'a mut Vec<GeneratedFlow>,
    ) -> ReactionContext<'a> {
        ReactionContext {
            index,
            now,
            host_count,
            time_limit,
            next_flow,
            room,
            rng,
            added,
            limit_hit: false,
        }
    }

    /// The entry's index in `traffic:`.
    pub fn index(&self) -> usize {
        self.index as usize
    }

    /// The current simulated time (the finished flow's completion).
    pub fn now(&self) -> Time {
        self.now
    }

    /// Hosts in the topology (host ids are `0..host_count`).
    pub fn host_count(&self) -> u32 {
        self.host_count
    }

    /// The entry's own random stream, continued from the plan-time draw.
    pub fn rng(&mut self) -> &mut SimRng {
        self.rng
    }

    /// Adds a flow of `bytes` bytes from `src` to `dst` starting at `now() + after`; returns
    /// its flow id (the `flow` column of flows.csv), or why it was not added.
    pub fn sized_flow(
        &mut self,
        src: HostId,
        dst: HostId,
        bytes: u64,
        after: Duration,
    ) -> Result<u32, RefusedFlow> {
        if bytes == 0 {
            return Err(RefusedFlow::Empty);
        }
        self.add(src, dst, after, Some(bytes), None)
    }

    /// Adds a flow that always has data, from `now() + after` for `duration` (or to the end
    /// of the run); returns its flow id, or why it was not added.
    pub fn backlogged_flow(
        &mut self,
        src: HostId,
        dst: HostId,
        after: Duration,
        duration: Option<Duration>,
    ) -> Result<u32, RefusedFlow> {
        if duration == Some(Duration::ZERO) {
            return Err(RefusedFlow::Empty);
        }
        self.add(src, dst, after, None, duration)
    }

    fn add(
        &mut self,
        src: HostId,
        dst: HostId,
        after: Duration,
        size: Option<u64>,
        duration: Option<Duration>,
    ) -> Result<u32, RefusedFlow> {
        if src >= self.host_count || dst >= self.host_count {
            return Err(RefusedFlow::UnknownHost);
        }
        if src == dst {
            return Err(RefusedFlow::SameHost);
        }
        let start = self.now + after;
        if start > self.time_limit {
            return Err(RefusedFlow::AfterTimeLimit);
        }
        if self.added.len() as u64 >= self.room {
            self.limit_hit = true;
            return Err(RefusedFlow::FlowLimit);
        }
        self.added.push(GeneratedFlow {
            generator: self.index,
            src,
            dst,
            start,
            size,
            stop: duration.map(|d| start + d),
            gate: None,
        });
        Ok(self.next_flow + self.added.len() as u32 - 1)
    }

    /// Whether a flow was refused for [`RefusedFlow::FlowLimit`] (the run then ends).
    pub(crate) fn limit_hit(&self) -> bool {
        self.limit_hit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_refuse_bad_flows() {
        let mut rng = SimRng::new(1);
        let mut added = Vec::new();
        let now = Time::ZERO + Duration::from_us(10);
        let limit = Time::ZERO + Duration::from_ms(1);
        let mut ctx = ReactionContext::new(2, now, 4, limit, 7, 2, &mut rng, &mut added);
        let us = Duration::from_us(1);
        assert_eq!(ctx.sized_flow(1, 1, 10, us), Err(RefusedFlow::SameHost));
        assert_eq!(ctx.sized_flow(1, 4, 10, us), Err(RefusedFlow::UnknownHost));
        assert_eq!(ctx.sized_flow(1, 2, 0, us), Err(RefusedFlow::Empty));
        assert_eq!(
            ctx.backlogged_flow(1, 2, us, Some(Duration::ZERO)),
            Err(RefusedFlow::Empty)
        );
        let late = Duration::from_ms(2);
        assert_eq!(
            ctx.sized_flow(1, 2, 10, late),
            Err(RefusedFlow::AfterTimeLimit)
        );
        assert_eq!(ctx.sized_flow(1, 2, 10, us), Ok(7));
        assert_eq!(ctx.backlogged_flow(2, 3, us, Some(us)), Ok(8));
        assert!(!ctx.limit_hit());
        assert_eq!(ctx.sized_flow(1, 2, 10, us), Err(RefusedFlow::FlowLimit));
        assert!(ctx.limit_hit());
        assert_eq!(added.len(), 2);
        assert_eq!(added[0].generator, 2);
        assert_eq!(added[0].start, now + us);
        assert_eq!(added[1].stop, Some(now + us + us));
    }
}
