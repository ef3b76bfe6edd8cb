//! A traffic generator's flow holds its full TCP state (sender, receiver, timers) only while in
//! progress: built when it starts, folded into a summary once finished. Results are exactly
//! those of a run that keeps every connection to the end.

use crate::common;
use common::*;
use incastsim_core::{Duration, Time};
use incastsim_scenario::config::units::Dur;
use incastsim_scenario::config::workload::TimeSeriesConfig;
use incastsim_scenario::engine::connections::Connection;
use incastsim_scenario::{Config, Outcome, Plan, Simulation};

/// Web-search on a k = 4 fat-tree (16 hosts) at 10 Gbps: about a hundred short flows, most of
/// them done long before the run ends.
fn websearch() -> Config {
    shipped(
        "websearch-fattree.yaml",
        &[
            "topology.k=4",
            "senders=15",
            "topology.link_rate=10Gbps",
            "workload.duration=20ms",
        ],
    )
}

#[test]
fn finished_flows_give_up_their_connections() {
    let cfg = websearch();
    let mut sim = Simulation::new(&cfg, 1).unwrap();
    let flows = sim.flows();
    assert!(flows > 50, "{flows} flows");
    // Nothing is built before a flow starts.
    assert_eq!(sim.live_connections(), 0);
    let (mut peak, mut t) = (0, Time::ZERO);
    while sim.run_until(t).is_none() {
        peak = peak.max(sim.live_connections());
        t += Duration::from_us(200);
    }
    assert_eq!(sim.run(), Outcome::Completed);
    sim.check_invariants().unwrap();
    // Every flow completed (the workload drains) and gave its state back, but those whose
    // last ACKs were still on their way when the last byte arrived (the run ends there).
    let live = sim.live_connections();
    assert_eq!(sim.finished_connections() + live, flows);
    assert!(live <= 2, "{live} connections left");
    for f in 0..flows {
        let s = sim.sender_summary(f);
        assert_eq!(sim.receiver_summary(f).stats.delivered_bytes, s.app_limit);
        match sim.sender(f) {
            Some(live) => assert!(live.snd_una() < live.app_limit()),
            None => assert!(sim.receiver(f).is_none() && s.snd_una == s.app_limit),
        }
    }
    assert!(
        peak < flows / 2,
        "peak {peak} of {flows} connections held at once"
    );
    // What a finished flow keeps (its packed summaries) is a small fraction of a connection.
    let conn = std::mem::size_of::<Connection>() as f64;
    let kept = sim.finished_flow_bytes().expect("flows finished");
    assert!(
        10.0 * kept < conn,
        "kept {kept} B per finished flow, connection {conn} B"
    );
}

#[test]
fn results_equal_those_of_keeping_every_connection() {
    let lazy_cfg = websearch();
    // A time series over every flow keeps every connection from the start to the end (one
    // sample at 0: the run ends long before the next).
    let flows = Plan::new(&lazy_cfg, 1).unwrap().flows.len() as u32;
    let mut kept_cfg = lazy_cfg.clone();
    kept_cfg.time_series = Some(TimeSeriesConfig {
        interval: Dur(Duration::from_secs(5)),
        ports: Vec::new(),
        flows: (0..flows).collect(),
        on_change_port: None,
    });
    let (lazy, kept) = (run(&lazy_cfg, 1), run(&kept_cfg, 1));
    let mut kept_sim = Simulation::new(&kept_cfg, 1).unwrap();
    assert_eq!(kept_sim.run(), Outcome::Completed);
    assert_eq!(kept_sim.live_connections(), flows as usize);
    // Debug text: the records hold NaN (no FCT), which `==` never equals.
    assert_eq!(format!("{:?}", lazy.flows), format!("{:?}", kept.flows));
    let (a, b) = (&lazy.run, &kept.run);
    assert_eq!(
        (a.rto_count, a.drops_total, a.packets_sent, a.fct_mean_ms),
        (b.rto_count, b.drops_total, b.packets_sent, b.fct_mean_ms)
    );
}

/// NewReno that also asks for every ACK's sample and counts them: a controller's own value.
#[derive(Clone, Debug, Default)]
struct CountingReno {
    reno: incastsim_tcp::NewReno,
    samples: u64,
}

impl incastsim_tcp::CongestionControl for CountingReno {
    fn on_ack(
        &mut self,
        w: &mut incastsim_tcp::Window,
        now: Time,
        acked: u64,
        srtt: Option<Duration>,
    ) {
        self.reno.on_ack(w, now, acked, srtt);
    }
    fn on_timeout(&mut self, w: &mut incastsim_tcp::Window, now: Time, flight: u64, first: bool) {
        self.reno.on_timeout(w, now, flight, first);
    }
    fn on_recovery_exit(&mut self, w: &mut incastsim_tcp::Window, now: Time) {
        self.reno.on_recovery_exit(w, now);
    }
    fn cc_hooks(&self) -> u8 {
        incastsim_tcp::cc_hooks::ACK_SAMPLE | incastsim_tcp::cc_hooks::DELIVERY_RATE
    }
    fn on_ack_sample(
        &mut self,
        _: &mut incastsim_tcp::Window,
        _: &incastsim_tcp::AckSample,
        _: &mut incastsim_tcp::CcControl,
    ) {
        self.samples += 1;
    }
    fn value_names(&self) -> &'static [&'static str] {
        &["ack_samples"]
    }
    fn values(&self, out: &mut [f64]) {
        out[0] = self.samples as f64;
    }
    fn state(&self, w: &incastsim_tcp::Window) -> incastsim_tcp::CcState {
        incastsim_tcp::CcState::of_window(w)
    }
}

/// `counting_reno` has no parameters.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

impl incastsim_scenario::extend::ControllerExtension for CountingReno {
    type Params = NoParams;
    const DESCRIPTION: &'static str = "NewReno counting its ACK samples";
    fn new(_: &NoParams, _: &incastsim_scenario::extend::ControllerContext) -> CountingReno {
        CountingReno::default()
    }
}

/// A controller asking for every ACK's sample and the delivery rate, acting as NewReno, gives
/// NewReno's results, and its own value is in every flow's row, finished (and freed) flows'
/// final snapshots included.
#[test]
fn a_controller_s_own_values_survive_its_flows_end() {
    let ext = incastsim_scenario::Extensions::builtin()
        .congestion_control::<CountingReno>("counting_reno");
    let text = std::fs::read_to_string(config_path("websearch-fattree.yaml")).unwrap();
    let sets = |cc: &str| -> Vec<String> {
        [
            "topology.k=4",
            "senders=15",
            "topology.link_rate=10Gbps",
            "workload.duration=20ms",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([format!("tcp.congestion_control={cc}")])
        .collect()
    };
    let options = incastsim_scenario::RunOptions::new().extensions(&ext);
    let counting = Config::from_yaml_with(&text, &sets("counting_reno"), &ext).unwrap();
    let newreno = Config::from_yaml_with(&text, &sets("newreno"), &ext).unwrap();
    let a = incastsim_scenario::run_with(&counting, 1, &options).unwrap();
    let b = incastsim_scenario::run_with(&newreno, 1, &options).unwrap();
    assert_eq!(a.flows.len(), b.flows.len());
    for (x, y) in a.flows.iter().zip(&b.flows) {
        let samples = x.probes.get("ack_samples").expect("the column");
        let incastsim_scenario::probe::ProbeValue::Float(n) = samples else {
            panic!("{samples:?}")
        };
        assert!(*n >= 1.0, "flow {}: {n} samples", x.flow);
        assert_eq!((x.fct_ms, x.segments_sent), (y.fct_ms, y.segments_sent));
        assert!(y.probes.is_empty());
    }
    assert_eq!(
        a.run.drops_total, b.run.drops_total,
        "the same run as NewReno"
    );
}

/// Past the arrival period a traffic run waits for its flows: its progress counts them (the
/// share by time is 100 % and says nothing then), and before it says nothing of draining.
#[test]
fn a_draining_run_reports_the_flows_it_waits_for() {
    let cfg = websearch();
    let mut sim = Simulation::new(&cfg, 1).unwrap();
    assert_eq!(sim.run_until(Time::ZERO + Duration::from_ms(10)), None);
    assert_eq!(sim.progress(sim.now()).draining_flows_left, None);
    let mut seen = Vec::new();
    let mut t = Time::ZERO + Duration::from_ms(20);
    while sim.run_until(t).is_none() {
        if let Some(left) = sim.progress(sim.now()).draining_flows_left {
            seen.push(left);
        }
        t += Duration::from_us(20);
    }
    assert!(!seen.is_empty(), "the run drained after its arrivals");
    assert!(seen.windows(2).all(|w| w[1] <= w[0]), "{seen:?}");
    assert!(seen[0] > 0);
}

/// RoCE queue pairs follow the flows in flight too: built when a generated flow starts, given
/// up when everything is acknowledged and no timer is armed, with results equal to keeping
/// them (the rdma-fct golden is unchanged).
#[test]
fn finished_roce_flows_give_up_their_queue_pairs() {
    let cfg = shipped("rdma-fct.yaml", &["workload.duration=0.2ms"]);
    let mut sim = Simulation::new(&cfg, 1).unwrap();
    let flows = sim.flows();
    assert!(flows > 50, "{flows} flows");
    assert_eq!(sim.live_connections(), 0);
    let (mut peak, mut t) = (0, Time::ZERO);
    while sim.run_until(t).is_none() {
        peak = peak.max(sim.live_connections());
        t += Duration::from_us(20);
    }
    sim.check_invariants().unwrap();
    assert!(
        sim.finished_connections() > flows / 2,
        "{} of {flows} freed",
        sim.finished_connections()
    );
    assert!(peak < flows, "peak {peak} of {flows} queue pairs at once");
    let r = sim.results();
    let roce = r
        .flows
        .iter()
        .filter(|f| f.congestion_control == "dcqcn")
        .count();
    assert_eq!(
        roce,
        r.flows.len(),
        "every flow reports its queue pair's controller"
    );
}
