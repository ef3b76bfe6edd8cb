//! `RunOptions`: each option takes effect in `run_with` (and, but for the stop flag, in
//! `Plan::build`), and no options is the plain `run_once`.

use incastsim_scenario::engine::WATCH_EVERY_EVENTS;
use incastsim_scenario::probe::{FinishedRun, Probe, ProbeFactory, ProbeReport, ProbeValue};
use incastsim_scenario::{
    Config, ConfigError, Extensions, Plan, RunError, RunOptions, check_buildable,
    from_yaml_checked, run_once, run_with,
};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Long enough (well over `WATCH_EVERY_EVENTS` events) for the stop flag to be read.
const RUN: &str = "
senders: 16
topology: {kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 64KB}
workload: {kind: synchronized_reads, sru: 64KB, blocks: 3}
";

fn cfg() -> Config {
    from_yaml_checked(RUN, &[]).unwrap()
}

/// Debug text: records hold NaN (no FCT), which `==` never equals.
fn text(r: &incastsim_scenario::RunResult) -> String {
    format!("{r:?}")
}

#[test]
fn no_options_is_the_plain_run() {
    let cfg = cfg();
    let plain = run_once(&cfg, 2).unwrap();
    assert!(plain.run.completed && plain.run.events > WATCH_EVERY_EVENTS);
    assert_eq!(
        text(&run_with(&cfg, 2, &RunOptions::new()).unwrap()),
        text(&plain)
    );
    assert_eq!(
        text(&run_with(&cfg, 2, &RunOptions::default()).unwrap()),
        text(&plain)
    );
}

#[test]
fn max_memory_refuses_a_run_above_it() {
    let cfg = cfg();
    let need = Plan::new(&cfg, 1).unwrap().memory_estimate;
    let refused = |r: Result<_, RunError>| match r {
        Err(RunError::Config(ConfigError::Key { key, .. })) => key == "memory",
        _ => false,
    };
    let below = RunOptions::new().max_memory(need - 1);
    assert!(refused(run_with(&cfg, 1, &below).map(|_| ())));
    assert!(refused(
        Plan::build(&cfg, 1, &below)
            .map(|_| ())
            .map_err(RunError::from)
    ));
    let at = RunOptions::new().max_memory(need);
    assert!(run_with(&cfg, 1, &at).unwrap().run.completed);
    // `None` lifts a limit set before.
    assert!(run_with(&cfg, 1, &below.max_memory(None)).is_ok());
}

/// What a run records as it goes (here a time series every microsecond) is held to what
/// `max_memory` leaves after the estimate: the run ends as `max_memory` within a sample or a
/// watch of the budget, deterministically, and without a limit the same run completes.
#[test]
fn max_memory_bounds_what_the_run_records_as_it_goes() {
    let sampled = from_yaml_checked(
        &format!("{RUN}time_series: {{interval: 1us, ports: [switch0->host16], flows: [0]}}\n"),
        &[],
    )
    .unwrap();
    let need = Plan::new(&sampled, 1).unwrap().memory_estimate;
    let budget = 2_000_000;
    // Half of what the limit leaves after the estimate is the records' budget.
    let limited = RunOptions::new().max_memory(need + 2 * budget);
    let sim = |options: &RunOptions| {
        let mut sim =
            incastsim_scenario::Simulation::from_plan(Plan::build(&sampled, 1, options).unwrap());
        let outcome = sim.run();
        (outcome, sim.recorded_bytes(), sim.now())
    };
    let (outcome, recorded, stopped_at) = sim(&limited);
    assert_eq!(outcome.as_str(), "max_memory");
    // Over the budget by at most one sample's rows (3 port rows and 5 flow rows).
    assert!(recorded > budget && recorded < budget + 2_000, "{recorded}");
    assert_eq!(
        sim(&limited),
        (outcome, recorded, stopped_at),
        "deterministic"
    );
    let result = run_with(&sampled, 1, &limited).unwrap();
    assert!(!result.run.completed && !result.time_series.is_empty());
    assert!(
        run_with(&sampled, 1, &RunOptions::new())
            .unwrap()
            .run
            .completed
    );
}

/// Records every admission (what a per-packet trace probe would keep) and says how much it
/// holds.
struct Recorder(Vec<(u64, u32)>);

impl Probe for Recorder {
    fn on_enqueue(
        &mut self,
        now: incastsim_core::Time,
        _: &incastsim_scenario::probe::PortView,
        packet: &incastsim_core::Packet,
    ) {
        self.0.push((now.as_ps(), packet.flow));
    }
    fn held_bytes(&self) -> u64 {
        (self.0.capacity() * std::mem::size_of::<(u64, u32)>()) as u64
    }
}

/// A probe's records count against `max_memory`'s remainder as the time series' do.
#[test]
fn max_memory_bounds_what_a_probe_says_it_holds() {
    let cfg = cfg();
    let need = Plan::new(&cfg, 1).unwrap().memory_estimate;
    let recorder: ProbeFactory = Arc::new(|_| Box::new(Recorder(Vec::new())));
    let probes = [recorder];
    let unlimited = RunOptions::new().probes(&probes);
    let full = run_with(&cfg, 1, &unlimited).unwrap();
    assert!(full.run.completed);
    // A budget of 64 KiB of records: the run stops once the probe holds more.
    let limited = RunOptions::new()
        .probes(&probes)
        .max_memory(need + 2 * 65_536);
    let mut sim =
        incastsim_scenario::Simulation::from_plan(Plan::build(&cfg, 1, &limited).unwrap());
    assert_eq!(sim.run().as_str(), "max_memory");
    assert!(sim.recorded_bytes() > 65_536);
}

#[test]
fn stop_interrupts_the_run() {
    let cfg = cfg();
    let stop = AtomicBool::new(true);
    let r = run_with(&cfg, 1, &RunOptions::new().stop(&stop));
    assert!(matches!(r, Err(RunError::Interrupted)), "{r:?}");
    let go = AtomicBool::new(false);
    let r = run_with(&cfg, 1, &RunOptions::new().stop(&go)).unwrap();
    assert_eq!(text(&r), text(&run_once(&cfg, 1).unwrap()));
}

/// Writes a run column `name` = the index it was built with.
struct Index(&'static str, u32);

impl Probe for Index {
    fn finish(&mut self, _: &dyn FinishedRun, report: &mut ProbeReport) {
        report.run_column(self.0, u64::from(self.1));
    }
}

/// A probe extension without parameters, chosen from YAML: `probes: [{name: index}]`.
struct IndexExt;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

impl incastsim_scenario::extend::ProbeExtension for IndexExt {
    type Params = NoParams;
    type Probe = Index;
    const DESCRIPTION: &'static str = "its index as a runs.csv column";
    fn new(_: &NoParams, setup: &incastsim_scenario::probe::ProbeSetup) -> Index {
        Index("from_yaml", setup.index)
    }
}

#[test]
fn extensions_are_used_and_probes_hear_the_run_after_the_configs() {
    let ext = Extensions::new().probe::<IndexExt>("index");
    let yaml = format!("{RUN}probes: [{{name: index}}]\n");
    let cfg = Config::from_yaml_with(&yaml, &[], &ext).unwrap();
    check_buildable(&cfg, &ext).unwrap();
    // Without the registry the config's probe is unknown.
    let e = run_with(&cfg, 1, &RunOptions::new())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("probes[0]") && e.contains("none registered"),
        "{e}"
    );

    let from_code: ProbeFactory = Arc::new(|setup| Box::new(Index("from_code", setup.index)));
    let probes = [from_code];
    let options = RunOptions::new().extensions(&ext).probes(&probes);
    let column = |r: &incastsim_scenario::RunResult, name: &str| r.run.probes.get(name).cloned();
    let r = run_with(&cfg, 1, &options).unwrap();
    assert_eq!(column(&r, "from_yaml"), Some(ProbeValue::UInt(0)));
    assert_eq!(column(&r, "from_code"), Some(ProbeValue::UInt(1)));
    // A plan built with the options carries both to the simulation.
    let mut sim =
        incastsim_scenario::Simulation::from_plan(Plan::build(&cfg, 1, &options).unwrap());
    sim.run();
    let again = sim.results();
    assert_eq!(column(&again, "from_code"), Some(ProbeValue::UInt(1)));
    assert_eq!(text(&again), text(&r));
    // Probes observe without changing the run: the rest equals the run without them.
    let mut bare = run_with(&cfg, 1, &RunOptions::new().extensions(&ext)).unwrap();
    let mut probed = r;
    assert_eq!(column(&bare, "from_code"), None);
    bare.run.probes.0.clear();
    probed.run.probes.0.clear();
    assert_eq!(text(&bare), text(&probed));
}
