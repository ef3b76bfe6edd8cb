//! Probe columns in sweeps: a sweep whose points name a probe (`probes:`) writes the columns the
//! probe declares in runs.csv and flows.csv (after the built-in ones), summarizes its numeric run
//! column in summary.csv, resumes, and merges shards into the files of one machine.

use incastsim_core::{Packet, PacketKind, Time};
use incastsim_scenario::Extensions;
use incastsim_scenario::extend::ProbeExtension;
use incastsim_scenario::probe::{FinishedRun, Probe, ProbeColumnNames, ProbeReport, ProbeSetup};
use incastsim_sweep::{Shard, Silent, Sweep, merge, run_sweep};
use std::path::{Path, PathBuf};

/// Counts each flow's data packets leaving ports (a flow column) and their sum (a run column).
struct Hops {
    per_flow: Vec<u64>,
    /// Adds a column it does not declare (to check the sweep refuses it).
    undeclared: bool,
}

impl Probe for Hops {
    fn on_dequeue(&mut self, _: Time, _: u32, p: &Packet, _: Time, _: Time) {
        if p.kind == PacketKind::Data {
            self.per_flow[p.flow as usize] += 1;
        }
    }
    fn finish(&mut self, _: &dyn FinishedRun, report: &mut ProbeReport) {
        report.flow_column(
            "data_hops",
            self.per_flow.iter().map(|&n| n.into()).collect(),
        );
        report.run_column("data_hops_total", self.per_flow.iter().sum::<u64>());
        if self.undeclared {
            report.run_column("surprise", 1u64);
        }
    }
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct HopsParams {
    #[serde(default)]
    undeclared: bool,
}

struct HopsExt;

impl ProbeExtension for HopsExt {
    type Params = HopsParams;
    type Probe = Hops;
    const DESCRIPTION: &'static str = "data packets per flow leaving ports";
    fn new(p: &HopsParams, setup: &ProbeSetup) -> Hops {
        Hops {
            per_flow: vec![0; setup.flows],
            undeclared: p.undeclared,
        }
    }
    fn columns(_: &HopsParams) -> ProbeColumnNames {
        ProbeColumnNames {
            run: vec!["data_hops_total".into()],
            flow: vec!["data_hops".into()],
        }
    }
}

const SWEEP: &str = "
name: probe-sweep
seed: 1
senders: 2
topology: {kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 100KB}
tcp: {mss: 1000B, header: 40B, delayed_ack: {enabled: false}}
workload: {kind: synchronized_reads, sru: 4000B, blocks: 2, request_size: 40B}
probes: [{name: hops}]
sweep:
  seeds: 2
  grid: {senders: [2, 3]}
";

fn extensions() -> Extensions {
    Extensions::new().probe::<HopsExt>("hops")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "incastsim-probe-sweep-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap()
}

fn column(csv: &str, name: &str) -> Vec<String> {
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let i = r
        .headers()
        .unwrap()
        .iter()
        .position(|c| c == name)
        .unwrap_or_else(|| panic!("no column {name}"));
    r.records().map(|rec| rec.unwrap()[i].to_string()).collect()
}

#[test]
fn a_sweep_writes_its_probes_columns_resumes_and_merges() {
    let ext = extensions();
    let sweep = Sweep::from_yaml_with(SWEEP, &[], &ext).unwrap();
    assert_eq!(sweep.probe_columns.flow, ["data_hops"]);
    let whole = scratch("whole");
    let report = run_sweep(&sweep, &whole, 2, None, &Silent).unwrap();
    assert_eq!(report.runs_computed, 4);

    let runs = read(&whole, "runs.csv");
    let flows = read(&whole, "flows.csv");
    assert!(runs.lines().next().unwrap().ends_with(",data_hops_total"));
    assert!(flows.lines().next().unwrap().ends_with(",data_hops"));
    // Every data segment crosses two ports (the server's NIC, the switch's port to the
    // client): 2 blocks of 4 segments, so at least 16 per flow (more with retransmissions).
    let hops = column(&flows, "data_hops");
    assert_eq!(hops.len(), 2 * 2 + 2 * 3, "flows of 4 runs");
    assert!(
        hops.iter().all(|h| h.parse::<u64>().unwrap() >= 16),
        "{hops:?}"
    );
    let totals = column(&runs, "data_hops_total");
    assert!(totals.iter().all(|t| t.parse::<u64>().unwrap() >= 32));
    // summary.csv summarizes the probe's run column as any metric.
    let summary = read(&whole, "summary.csv");
    let metrics = column(&summary, "metric");
    let counts = column(&summary, "count");
    let rows: Vec<_> = metrics
        .iter()
        .zip(&counts)
        .filter(|(m, _)| *m == "data_hops_total")
        .collect();
    assert_eq!(rows.len(), 2, "one row per point");
    assert!(rows.iter().all(|(_, c)| *c == "2"), "{rows:?}");
    // The lock names the probe columns.
    assert!(read(&whole, "sweep.lock.json").contains("data_hops_total"));

    // Resume: everything is found stored; a run with its rows removed is run again.
    let again = run_sweep(&sweep, &whole, 1, None, &Silent).unwrap();
    assert_eq!((again.runs_already_done, again.runs_computed), (4, 0));
    let mut lines: Vec<&str> = runs.lines().collect();
    lines.pop();
    std::fs::write(whole.join("runs.csv"), lines.join("\n") + "\n").unwrap();
    let redo = run_sweep(&sweep, &whole, 1, None, &Silent).unwrap();
    assert_eq!(redo.runs_computed, 1);
    assert_eq!(read(&whole, "runs.csv"), runs);
    assert_eq!(read(&whole, "flows.csv"), flows);

    // Two shards merged give the files of one machine.
    let shards: Vec<PathBuf> = (1..=2)
        .map(|i| {
            let d = scratch(&format!("shard{i}"));
            let shard = Shard { index: i, count: 2 };
            run_sweep(&sweep, &d, 1, Some(shard), &Silent).unwrap();
            d
        })
        .collect();
    let merged = scratch("merged");
    assert_eq!(merge(&shards, &merged).unwrap(), 4);
    for f in ["runs.csv", "flows.csv", "summary.csv", "runs.index.csv"] {
        assert_eq!(read(&merged, f), read(&whole, f), "{f}");
    }

    // The same sweep with other probe columns is another sweep: its folder is not reused.
    let other = Sweep::from_yaml_with(
        &SWEEP.replace("probes: [{name: hops}]", "probes: []"),
        &[],
        &ext,
    )
    .unwrap();
    assert!(run_sweep(&other, &whole, 1, None, &Silent).is_err());

    for d in shards.iter().chain([&whole, &merged]) {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn a_column_the_probe_does_not_declare_is_refused() {
    let ext = extensions();
    let yaml = SWEEP.replace("{name: hops}", "{name: hops, undeclared: true}");
    let sweep = Sweep::from_yaml_with(&yaml, &[], &ext).unwrap();
    let dir = scratch("undeclared");
    let e = run_sweep(&sweep, &dir, 1, None, &Silent)
        .unwrap_err()
        .to_string();
    assert!(e.contains("surprise") && e.contains("columns"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
