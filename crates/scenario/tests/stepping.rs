//! Stepping a run (`Simulation::run_until`): pausing, reading state and continuing gives the
//! results of one uninterrupted run.

use crate::common;

use incastsim_core::{Duration, Time};
use incastsim_scenario::{Outcome, Simulation};

#[test]
fn a_run_paused_and_read_equals_one_uninterrupted_run() {
    // S1 with drops and RTOs, and S3 (bulk): pause often (also between events of the same
    // instant's neighbours), read every flow and port, continue.
    for (name, overrides) in [
        (
            "incast-classic.yaml",
            &["senders=32", "tcp.rto_min=1ms", "workload.blocks=3"][..],
        ),
        ("bulk-dumbbell.yaml", &["workload.duration=20ms"][..]),
    ] {
        let cfg = common::shipped(name, overrides);
        let whole = common::run(&cfg, 5);
        let mut sim = Simulation::new(&cfg, 5).unwrap();
        let mut t = Time::ZERO;
        let mut pauses = 0;
        let mut cwnd_seen = 0;
        while sim.run_until(t).is_none() {
            pauses += 1;
            for f in 0..sim.flows() {
                let s = sim.flow_state(f);
                assert!(s.snd_una <= s.snd_max);
                cwnd_seen = cwnd_seen.max(s.cc.cwnd_bytes);
            }
            for p in 0..sim.ports().len() {
                let occ = sim.port_occupancy(p, t);
                assert!(sim.ports()[p].limit().holds(occ));
            }
            // 137 µs: not a multiple of any period of the model.
            t += Duration::from_us(137);
        }
        assert!(pauses > 50 && cwnd_seen > 0, "{name}: {pauses} pauses");
        assert_eq!(sim.run(), Outcome::Completed);
        sim.check_invariants().unwrap();
        // Debug text: the records hold NaN (no FCT), which `==` never equals.
        let stepped = sim.results();
        assert!(format!("{stepped:?}") == format!("{whole:?}"), "{name}");
    }
}

#[test]
fn run_until_stops_at_the_time_and_reports_the_end() {
    let cfg = common::shipped("incast-classic.yaml", &["senders=4", "workload.blocks=2"]);
    let mut sim = Simulation::new(&cfg, 1).unwrap();
    let t = Time::ZERO + Duration::from_us(300);
    assert_eq!(sim.run_until(t), None);
    assert!(sim.now() <= t && sim.events_processed() > 0);
    let far = Time::ZERO + Duration::from_secs(100);
    assert_eq!(sim.run_until(far), Some(Outcome::Completed));
}
