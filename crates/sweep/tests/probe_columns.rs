//! Probe columns in sweeps: a sweep whose points name a probe (`probes:`) writes the columns the
//! probe declares in runs.csv and flows.csv (after the built-in ones), summarizes its numeric run
//! column in summary.csv, resumes, and merges shards into the files of one machine.

use incastsim_core::{Packet, PacketKind, Time};
use incastsim_scenario::Extensions;
use incastsim_scenario::extend::ProbeExtension;
use incastsim_scenario::probe::{
    FinishedRun, PortView, Probe, ProbeColumnNames, ProbeReport, ProbeSetup,
};
use incastsim_sweep::{Shard, Silent, Sweep, merge, run_sweep};
use std::path::{Path, PathBuf};

/// Counts each flow's data packets leaving ports (a flow column) and their sum (a run column),
/// and, per port (by its name), the data packets it admitted and the most packets it held (a
/// table of its own, from the hooks' `PortView`s).
struct Hops {
    per_flow: Vec<u64>,
    /// Per port id: its name, rate, data packets admitted and largest occupancy (packets).
    per_port: Vec<Option<(String, u64, u64, u32)>>,
    /// Adds a column it does not declare (to check the sweep refuses it).
    undeclared: bool,
    /// Writes a table it does not declare.
    undeclared_table: bool,
}

/// The probe's table and its columns.
const TABLE: &str = "port_hops.csv";
const TABLE_COLUMNS: [&str; 4] = ["port", "rate_bps", "data_packets", "max_queue_packets"];

impl Probe for Hops {
    fn on_enqueue(&mut self, _: Time, port: &PortView, p: &Packet) {
        if p.kind != PacketKind::Data {
            return;
        }
        let i = port.index as usize;
        if self.per_port.len() <= i {
            self.per_port.resize(i + 1, None);
        }
        let e = self.per_port[i]
            .get_or_insert_with(|| (port.name.to_string(), port.rate.as_f64() as u64, 0, 0));
        e.2 += 1;
        // After an admission the occupancy includes the packet.
        assert!(port.occupancy.packets >= 1 && port.occupancy.bytes >= p.wire_bytes() as u64);
        e.3 = e.3.max(port.occupancy.packets);
    }
    fn on_dequeue(&mut self, _: Time, _: &PortView, p: &Packet, _: Time, _: Time) {
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
        let rows = self
            .per_port
            .iter()
            .flatten()
            .map(|(name, rate, n, max)| {
                vec![
                    name.as_str().into(),
                    (*rate).into(),
                    (*n).into(),
                    (*max).into(),
                ]
            })
            .collect();
        let file = if self.undeclared_table {
            "surprise.csv"
        } else {
            TABLE
        };
        report.table(file, TABLE_COLUMNS.map(String::from).to_vec(), rows);
    }
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct HopsParams {
    #[serde(default)]
    undeclared: bool,
    #[serde(default)]
    undeclared_table: bool,
}

struct HopsExt;

impl ProbeExtension for HopsExt {
    type Params = HopsParams;
    type Probe = Hops;
    const DESCRIPTION: &'static str = "data packets per flow leaving ports";
    fn new(p: &HopsParams, setup: &ProbeSetup) -> Hops {
        Hops {
            per_flow: vec![0; setup.flows],
            per_port: Vec::new(),
            undeclared: p.undeclared,
            undeclared_table: p.undeclared_table,
        }
    }
    fn columns(_: &HopsParams) -> ProbeColumnNames {
        ProbeColumnNames {
            run: vec!["data_hops_total".into()],
            flow: vec!["data_hops".into()],
            ..ProbeColumnNames::default()
        }
        .table(TABLE, TABLE_COLUMNS)
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
    // The probe's own table: long format, point and replicate first, every run's rows, sorted
    // by run; its ports are named as ports.csv names them.
    let table = read(&whole, TABLE);
    assert_eq!(
        table.lines().next().unwrap(),
        "point,replicate,port,rate_bps,data_packets,max_queue_packets"
    );
    let runs_in_table: Vec<(String, String)> = column(&table, "point")
        .into_iter()
        .zip(column(&table, "replicate"))
        .collect();
    let mut sorted = runs_in_table.clone();
    sorted.sort();
    assert_eq!(runs_in_table, sorted);
    sorted.dedup();
    assert_eq!(sorted.len(), 4, "every run has rows");
    let ports = column(&table, "port");
    assert!(ports.iter().any(|p| p == "switch0->host2"), "{ports:?}");
    assert!(ports.iter().any(|p| p == "host0->switch0"), "{ports:?}");
    assert!(column(&table, "rate_bps").iter().all(|r| r == "1000000000"));

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
    assert_eq!(
        read(&whole, TABLE),
        table,
        "the re-run's table rows replace its old ones"
    );

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
    for f in [
        "runs.csv",
        "flows.csv",
        "summary.csv",
        "runs.index.csv",
        TABLE,
    ] {
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

#[test]
fn a_table_the_probe_does_not_declare_is_refused() {
    let ext = extensions();
    let yaml = SWEEP.replace("{name: hops}", "{name: hops, undeclared_table: true}");
    let sweep = Sweep::from_yaml_with(&yaml, &[], &ext).unwrap();
    let dir = scratch("undeclared-table");
    let e = run_sweep(&sweep, &dir, 1, None, &Silent)
        .unwrap_err()
        .to_string();
    assert!(e.contains("surprise.csv") && e.contains("declare"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
