//! A queue discipline that schedules at dequeue, from outside the crate, through the engine:
//! a pacer that lets a packet leave at most every `gap` (its timer, the `PortTimer` event,
//! wakes the idle link) and drops every `drop_every`-th packet at its head. With no gap and no
//! drops it is a FIFO: the run equals drop-tail's. Every run checks the end-of-run invariants
//! (packets conserved with the ones the pacer holds and drops).

use crate::common;

use common::config_path;
use incastsim_core::{Duration, Packet, Time};
use incastsim_scenario::config::ConfigError;
use incastsim_scenario::config::units::Dur;
use incastsim_scenario::extend::{QueueContext, QueueDisciplineExtension};
use incastsim_scenario::{Config, Extensions, RunOptions, RunResult, check_buildable, run_with};
use incastsim_switch::{BufferLimit, DequeueContext, Held, Occupancy, QueueDiscipline, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PacerParams {
    #[serde(default)]
    gap: Dur,
    #[serde(default)]
    drop_every: u32,
}

#[derive(Clone, Debug)]
struct Pacer {
    gap: Duration,
    drop_every: u32,
    limit: BufferLimit,
    queue: VecDeque<Held>,
    /// No packet leaves before this.
    next_free: Time,
    /// The last dequeue found the gate closed: the timer is wanted at `next_free`.
    gated: bool,
    served: u32,
}

impl QueueDiscipline for Pacer {
    fn on_enqueue(&mut self, _: &mut Packet, _: Occupancy, _: Time) -> Verdict {
        Verdict::Admit
    }
    fn limit(&self) -> BufferLimit {
        self.limit
    }
    fn schedules(&self) -> bool {
        true
    }
    fn hold(&mut self, held: Held) {
        self.queue.push_back(held);
    }
    fn dequeue(&mut self, ctx: &mut DequeueContext) -> Option<Held> {
        if ctx.now() < self.next_free {
            self.gated = !self.queue.is_empty();
            return None;
        }
        while let Some(h) = self.queue.pop_front() {
            self.served += 1;
            if self.drop_every > 0 && self.served.is_multiple_of(self.drop_every) {
                ctx.drop(h);
                continue;
            }
            self.next_free = ctx.now() + self.gap;
            return Some(h);
        }
        None
    }
    fn next_timer(&self) -> Option<Time> {
        self.gated.then_some(self.next_free)
    }
    fn on_timer(&mut self, _: &mut DequeueContext) {
        self.gated = false;
    }
}

impl QueueDisciplineExtension for Pacer {
    type Params = PacerParams;
    type Discipline = Pacer;
    const DESCRIPTION: &'static str = "a pacer that schedules at dequeue (test)";
    fn new(p: &PacerParams, ctx: &QueueContext) -> Pacer {
        Pacer {
            gap: p.gap.0,
            drop_every: p.drop_every,
            limit: ctx.limit,
            queue: VecDeque::new(),
            next_free: Time::ZERO,
            gated: false,
            served: 0,
        }
    }
}

fn extensions() -> Extensions {
    Extensions::new().queue_discipline::<Pacer>("pacer")
}

fn s1(queue: &str) -> Result<Config, ConfigError> {
    let sets = [
        "senders=16".to_string(),
        "workload.blocks=5".to_string(),
        format!("topology.switch_queue={queue}"),
    ];
    let ext = extensions();
    let cfg = Config::load_with(&config_path("incast-classic.yaml"), &sets, &ext)?;
    check_buildable(&cfg, &ext)?;
    Ok(cfg)
}

fn run(queue: &str) -> RunResult {
    let ext = extensions();
    run_with(&s1(queue).unwrap(), 1, &RunOptions::new().extensions(&ext)).unwrap()
}

/// With no gap and no drops the pacer is a FIFO: drop-tail's flows and ports exactly.
#[test]
fn a_pacer_that_never_acts_is_drop_tail() {
    let (a, b) = (run("drop_tail"), run("pacer"));
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    assert_eq!(format!("{:?}", a.ports), format!("{:?}", b.ports));
    assert!(b.run.completed);
}

/// A gap of twice a full packet's transmission time (1040 B at 1 Gbps: 8.32 us) halves the
/// bottleneck: the timer wakes the idle link after each gap, the run completes, slower
/// (without the `PortTimer` events the held packets stall and the run does not complete).
#[test]
fn the_pacer_timer_paces_the_link() {
    let fifo = run("pacer");
    let paced = run("{name: pacer, gap: 16640ns}");
    assert!(paced.run.completed);
    let ratio = paced.run.goodput_mbps / fifo.run.goodput_mbps;
    assert!(
        ratio < 0.75,
        "goodput {} vs {}",
        paced.run.goodput_mbps,
        fifo.run.goodput_mbps
    );
}

/// Head drops are AQM drops at their port, counted once: at each switch port every 50th
/// packet served (all of them, the run having completed) and nothing else; the flows recover.
#[test]
fn head_drops_are_counted_at_the_port() {
    let r = run("{name: pacer, drop_every: 50}");
    assert!(r.run.completed);
    let mut total = 0;
    for p in r.ports.iter().filter(|p| p.from_node.starts_with("switch")) {
        assert_eq!(p.drops_aqm, p.packets_enqueued / 50, "{p:?}");
        // Offered once: admitted, or refused at admission.
        assert_eq!(
            p.packets_offered,
            p.packets_enqueued + p.drops_buffer,
            "{p:?}"
        );
        total += p.drops_aqm;
    }
    assert!(total > 0);
}

/// Strict-priority classes with a discipline that schedules are refused, by `check_buildable`
/// and by a run started without it (an error naming the key, not a panic).
#[test]
fn priority_classes_with_a_scheduling_discipline_are_refused() {
    let e = s1("pacer").and_then(|_| {
        let ext = extensions();
        let sets = [
            "senders=16".to_string(),
            "topology.switch_queue=pacer".to_string(),
            "topology.priority_classes=2".to_string(),
        ];
        let cfg = Config::load_with(&config_path("incast-classic.yaml"), &sets, &ext)?;
        let unchecked = run_with(&cfg, 1, &RunOptions::new().extensions(&ext));
        let Err(refused) = unchecked else {
            panic!("the run started");
        };
        let message = refused.to_string();
        assert!(
            message.contains("topology.priority_classes = 2"),
            "{message}"
        );
        check_buildable(&cfg, &ext)
    });
    assert_eq!(
        e.unwrap_err().to_string(),
        "topology.priority_classes = 2: 1 with topology.switch_queue pacer, a discipline that \
         schedules its own departures"
    );
}
