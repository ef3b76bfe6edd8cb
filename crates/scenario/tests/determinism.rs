//! Same config + seed ⇒ identical results, on any thread.

use crate::common;
use common::*;

#[test]
fn same_seed_same_results() {
    let cfg = s1(16, "10ms");
    // Debug strings compare every field, NaN ones included (NaN != NaN under ==).
    let a = format!("{:?}", run(&cfg, 42));
    let b = format!("{:?}", run(&cfg, 42));
    assert_eq!(a, b);
}

#[test]
fn results_do_not_depend_on_the_thread() {
    let cfg = s1(16, "1ms");
    let here = run(&cfg, 9);
    let there = std::thread::spawn({
        let cfg = cfg.clone();
        move || run(&cfg, 9)
    })
    .join()
    .unwrap();
    assert_eq!(format!("{here:?}"), format!("{there:?}"));
}

#[test]
fn different_seeds_differ() {
    // Start jitter is random per server and block: seeds must change the outcome.
    let cfg = s1(16, "10ms");
    assert_ne!(run(&cfg, 1).run, run(&cfg, 2).run);
}

#[test]
fn adding_a_sender_does_not_reshuffle_another_servers_jitter() {
    // Each server has its own random stream: server 0's first response starts at the same time
    // whatever N is (a per-component stream keeps runs comparable).
    use incastsim_core::rng::{SimRng, Stream};
    let mut a = SimRng::for_stream(5, Stream::StartJitter, 0);
    let mut b = SimRng::for_stream(5, Stream::StartJitter, 0);
    assert_eq!(a.next_u64(), b.next_u64());
}

/// Where the event queue moves from its heap to its calendar (earlier for large networks, so
/// that the engine can prefetch the coming events' state) changes no result: a web-search
/// fat-tree run with the calendar from 16 pending events, and with the heap throughout.
#[test]
fn calendar_threshold_changes_no_result() {
    use incastsim_scenario::{Plan, Simulation};
    let cfg = shipped(
        "websearch-fattree.yaml",
        &["topology.k=4", "senders=15", "workload.duration=5ms"],
    );
    let run_with = |pending: usize| {
        let mut sim = Simulation::from_plan(Plan::new(&cfg, 3).unwrap());
        sim.set_calendar_from(pending);
        sim.run();
        sim.check_invariants().unwrap();
        format!("{:?}", sim.results())
    };
    assert_eq!(run_with(16), run_with(usize::MAX));
}

/// RoCE queue pairs behind NICs that pull their packets (several per host, PAUSEd at times),
/// under DCQCN, with switch jitter: the same results on another thread and with the event
/// queue's calendar from 16 pending events, and the run's invariants hold.
#[test]
fn roce_results_do_not_depend_on_the_thread_or_the_event_queue() {
    use incastsim_scenario::{Plan, Simulation};
    let cfg = shipped("rdma-fct.yaml", &["workload.duration=0.5ms"]);
    let run_with = move |cfg: &incastsim_scenario::Config, pending: usize| {
        let mut sim = Simulation::from_plan(Plan::new(cfg, 4).unwrap());
        sim.set_calendar_from(pending);
        sim.run();
        sim.check_invariants().unwrap();
        let r = sim.results();
        assert!(r.pfc.iter().any(|p| p.pauses_sent > 0), "the run pauses");
        format!("{r:?}")
    };
    let here = run_with(&cfg, usize::MAX);
    let there = std::thread::spawn({
        let cfg = cfg.clone();
        move || run_with(&cfg, 16)
    })
    .join()
    .unwrap();
    assert_eq!(here, there);
}
