//! Probes (`incastsim_scenario::probe`): a probe computing each flow's mean queueing delay,
//! checked on a hand-worked case; probes observe without changing the run.

use crate::common;

use incastsim_core::{Packet, PacketKind, Time};
use incastsim_scenario::probe::{
    CcState, DropReason, FinishedRun, PortView, Probe, ProbeFactory, ProbeReport, ProbeValue,
};
use incastsim_scenario::{Config, Plan, RunResult, Simulation, from_yaml_checked};
use std::sync::Arc;

/// Each flow's mean queueing delay (admission to first bit on the wire) over its data
/// packets' hops, in µs.
#[derive(Default)]
struct MeanQueueDelay {
    sum_ps: Vec<u64>,
    hops: Vec<u64>,
}

impl Probe for MeanQueueDelay {
    fn on_dequeue(
        &mut self,
        _now: Time,
        _port: &PortView,
        p: &Packet,
        admitted: Time,
        tx_start: Time,
    ) {
        if p.kind == PacketKind::Data {
            let f = p.flow as usize;
            self.sum_ps[f] += tx_start.since(admitted).as_ps();
            self.hops[f] += 1;
        }
    }
    fn finish(&mut self, _sim: &dyn FinishedRun, report: &mut ProbeReport) {
        let means = self
            .sum_ps
            .iter()
            .zip(&self.hops)
            .map(|(&s, &n)| (n > 0).then(|| s as f64 / n as f64 / 1e6).into())
            .collect();
        report.flow_column("mean_queue_delay_us", means);
        report.run_column("probed_hops", self.hops.iter().sum::<u64>());
    }
}

/// Counts every hook, to check each is called (and a run with it stays the same).
#[derive(Default)]
struct Counter {
    enq: u64,
    marks: u64,
    drops: u64,
    deq: u64,
    delivered: u64,
    acks: u64,
    rtos: u64,
    starts: u64,
    finishes: u64,
}

impl Probe for Counter {
    fn on_enqueue(&mut self, _: Time, _: &PortView, _: &Packet) {
        self.enq += 1;
    }
    fn on_mark(&mut self, _: Time, _: &PortView, _: &Packet) {
        self.marks += 1;
    }
    fn on_drop(&mut self, _: Time, _: &PortView, _: &Packet, _: DropReason) {
        self.drops += 1;
    }
    fn on_dequeue(&mut self, _: Time, _: &PortView, _: &Packet, _: Time, _: Time) {
        self.deq += 1;
    }
    fn on_deliver(&mut self, _: Time, _: u32, _: &Packet) {
        self.delivered += 1;
    }
    fn on_ack(&mut self, _: Time, _: u32, s: &CcState) {
        assert!(s.cwnd_bytes > 0);
        self.acks += 1;
    }
    fn on_rto(&mut self, _: Time, _: u32, _: &CcState) {
        self.rtos += 1;
    }
    fn on_flow_start(&mut self, _: Time, _: u32) {
        self.starts += 1;
    }
    fn on_flow_finish(&mut self, _: Time, _: u32) {
        self.finishes += 1;
    }
    fn finish(&mut self, sim: &dyn FinishedRun, report: &mut ProbeReport) {
        let c = sim.counters();
        // Every packet sent is offered to a port once per hop; each admission is news.
        assert_eq!(self.enq, c.sent + c.forwarded - self.admission_drops(sim));
        assert_eq!(
            self.deq, self.enq,
            "FIFO ports fix each departure at admission"
        );
        assert_eq!(self.delivered, c.delivered);
        assert_eq!(self.drops, sim.packets_dropped());
        let rtos: u64 = (0..sim.flows())
            .map(|f| sim.sender_summary(f).stats.timeouts)
            .sum();
        assert_eq!(self.rtos, rtos);
        for (name, v) in [
            ("marks", self.marks),
            ("acks", self.acks),
            ("starts", self.starts),
            ("finishes", self.finishes),
        ] {
            report.run_column(name, v);
        }
    }
}

impl Counter {
    fn admission_drops(&self, sim: &dyn FinishedRun) -> u64 {
        sim.ports()
            .iter()
            .map(|p| p.stats().drops_total() - p.stats().drops_link_loss)
            .sum()
    }
}

fn run_probed(cfg: &Config, probes: Vec<Box<dyn Probe>>) -> RunResult {
    let mut sim = Simulation::from_plan(Plan::new(cfg, cfg.seed).unwrap());
    for p in probes {
        sim.add_probe(p);
    }
    sim.run();
    sim.check_invariants().unwrap();
    sim.results()
}

/// Two servers answer one block of 2 segments each (1000 B + 40 B headers = 8.32 µs at
/// 1 Gbps), no start jitter.
const TWO_SERVERS: &str = "
name: probe-hand
seed: 1
senders: 2
topology: {kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 100KB}
tcp: {mss: 1000B, header: 40B, initial_cwnd: 2, delayed_ack: {enabled: false}}
workload: {kind: synchronized_reads, sru: 2000B, blocks: 1, request_size: 40B, start_jitter: 0us}
";

#[test]
fn mean_queueing_delay_matches_the_hand_worked_case() {
    // The client's two 40 B requests leave its NIC 0.32 µs apart, so server 1 starts 0.32 µs
    // after server 0. At each server's NIC the second segment waits the first's 8.32 µs. At
    // the switch's port to the client (A = server 0's first segment's arrival there):
    // f0p1 arrives A, sent at once (0); f1p1 arrives A + 0.32, waits to A + 8.32 (8.00);
    // f0p2 arrives A + 8.32, waits to A + 16.64 (8.32); f1p2 arrives A + 8.64, waits to
    // A + 24.96 (16.32). Flow 0: (0 + 8.32 + 0 + 8.32)/4 = 4.16 µs; flow 1: (0 + 8.32 + 8.00
    // + 16.32)/4 = 8.16 µs.
    let cfg = from_yaml_checked(TWO_SERVERS, &[]).unwrap();
    let probe = MeanQueueDelay {
        sum_ps: vec![0; 2],
        hops: vec![0; 2],
    };
    let r = run_probed(&cfg, vec![Box::new(probe)]);
    let mean = |f: usize| match r.flows[f].probes.get("mean_queue_delay_us") {
        Some(ProbeValue::Float(v)) => *v,
        other => panic!("flow {f}: {other:?}"),
    };
    assert!((mean(0) - 4.16).abs() < 1e-9, "{}", mean(0));
    assert!((mean(1) - 8.16).abs() < 1e-9, "{}", mean(1));
    assert_eq!(r.run.probes.get("probed_hops"), Some(&ProbeValue::UInt(8)));
}

#[test]
fn probes_observe_without_changing_the_run() {
    // S1 with drops and timeouts (N = 32, RTO_min 1 ms, a few blocks), and a DCTCP run
    // (marks): the built-in columns are identical with and without probes.
    for (name, overrides) in [
        (
            "incast-classic.yaml",
            &["senders=32", "tcp.rto_min=1ms", "workload.blocks=3"][..],
        ),
        ("incast-dctcp.yaml", &["workload.blocks=2"][..]),
    ] {
        let cfg = common::shipped(name, overrides);
        let plain = common::run(&cfg, 3);
        let mut sim = Simulation::from_plan(Plan::new(&cfg, 3).unwrap());
        sim.add_probe(Box::new(Counter::default()));
        sim.run();
        let mut probed = sim.results();
        let col = |n: &str| match probed.run.probes.get(n) {
            Some(ProbeValue::UInt(v)) => *v,
            other => panic!("{n}: {other:?}"),
        };
        assert!(col("acks") > 0 && col("starts") > 0 && col("finishes") > 0);
        if name == "incast-dctcp.yaml" {
            assert!(col("marks") > 0);
        } else {
            assert!(probed.run.rto_count > 0 && probed.run.drops_total > 0);
        }
        probed.run.probes.0.clear();
        // Debug text: the records hold NaN (no FCT), which `==` never equals.
        assert!(format!("{plain:?}") == format!("{probed:?}"), "{name}");
    }
}

#[test]
fn factories_build_one_probe_per_run_with_its_own_stream() {
    let cfg = from_yaml_checked(TWO_SERVERS, &[]).unwrap();
    struct Draw(u64);
    impl Probe for Draw {
        fn finish(&mut self, _: &dyn FinishedRun, report: &mut ProbeReport) {
            report.run_column("draw", self.0);
        }
    }
    let factory: ProbeFactory = Arc::new(|setup| {
        assert_eq!((setup.flows, setup.index), (2, 0));
        Box::new(Draw(setup.rng().next_u64()))
    });
    let draw = || {
        let mut sim = Simulation::from_plan(Plan::new(&cfg, 9).unwrap());
        sim.add_probes(std::slice::from_ref(&factory));
        sim.run();
        sim.results().run.probes
    };
    assert_eq!(draw(), draw());
}

/// The mean queueing delay probe as an extension chosen by name from YAML, with a parameter.
struct MeanQdelayExt;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct MeanQdelayParams {
    /// The column's name.
    #[serde(default = "default_column")]
    column: String,
}

fn default_column() -> String {
    "mean_queue_delay_us".into()
}

impl incastsim_scenario::extend::ProbeExtension for MeanQdelayExt {
    type Params = MeanQdelayParams;
    type Probe = MeanQueueDelay;
    const DESCRIPTION: &'static str = "each flow's mean queueing delay of data packets, µs";
    fn check(p: &MeanQdelayParams) -> Result<(), incastsim_scenario::ConfigError> {
        if p.column.is_empty() {
            return Err(incastsim_scenario::config::invalid(
                "column",
                "\"\"",
                "a column name",
            ));
        }
        Ok(())
    }
    fn new(_: &MeanQdelayParams, setup: &incastsim_scenario::probe::ProbeSetup) -> MeanQueueDelay {
        MeanQueueDelay {
            sum_ps: vec![0; setup.flows],
            hops: vec![0; setup.flows],
        }
    }
}

#[test]
fn a_probe_chosen_by_name_from_yaml_adds_its_column() {
    use incastsim_scenario::{ConfigError, Extensions, RunOptions, check_buildable};
    let ext = Extensions::new().probe::<MeanQdelayExt>("mean_qdelay");
    let checked = |yaml: &str| -> Result<Config, ConfigError> {
        let cfg = Config::from_yaml_with(yaml, &[], &ext)?;
        check_buildable(&cfg, &ext)?;
        Ok(cfg)
    };
    let yaml = format!("{TWO_SERVERS}probes: [{{name: mean_qdelay}}]\n");
    let cfg = checked(&yaml).unwrap();
    // The resolved config names it with its parameters' defaults.
    assert!(
        cfg.to_yaml().contains("mean_queue_delay_us"),
        "{}",
        cfg.to_yaml()
    );
    let r =
        incastsim_scenario::run_with(&cfg, cfg.seed, &RunOptions::new().extensions(&ext)).unwrap();
    match r.flows[1].probes.get("mean_queue_delay_us") {
        Some(ProbeValue::Float(v)) => assert!((v - 8.16).abs() < 1e-9, "{v}"),
        other => panic!("{other:?}"),
    }
    // A bad parameter: the full key, the value, what is allowed (as a built-in's).
    let bad = format!("{TWO_SERVERS}probes: [{{name: mean_qdelay, column: ''}}]\n");
    let e = checked(&bad).unwrap_err().to_string();
    assert!(e.contains("probes[0].column"), "{e}");
    let typo = format!("{TWO_SERVERS}probes: [{{name: mean_qdelay, colum: x}}]\n");
    let e = checked(&typo).unwrap_err().to_string();
    assert!(e.contains("probes[0]") && e.contains("colum"), "{e}");
    // An unknown name lists what is registered.
    let unknown = format!("{TWO_SERVERS}probes: [{{name: qdelay}}]\n");
    let e = checked(&unknown).unwrap_err().to_string();
    assert!(e.contains("mean_qdelay"), "{e}");
}
