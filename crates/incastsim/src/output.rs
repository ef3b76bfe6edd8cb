//! Writing results: the only module that writes files.
//!
//! `runs.csv`, `flows.csv`, `senders.csv`, `ports.csv` and `blocks.csv` are tidy (one observation per row) and
//! byte-identical for the same config and seed. Wall-clock facts go to `manifest.json` only.

use incastsim_scenario::{Config, RunResult};
use serde::Serialize;
use std::borrow::Cow;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

pub use crate::output_error::OutputError;
use crate::output_error::io_err;

/// Writes `rows` as a CSV file with a header row. With no rows the file still has its header,
/// so every CSV reads into a table with the documented columns (the header comes from a
/// default row, which is not written).
pub fn write_csv<T: Serialize + Default>(path: &Path, rows: &[T]) -> Result<(), OutputError> {
    let file = BufWriter::new(File::create(path).map_err(io_err(path))?);
    write_csv_to(file, rows).map_err(|e| match e {
        CsvOrIo::Csv(source) => OutputError::Csv {
            path: path.display().to_string(),
            source,
        },
        CsvOrIo::Io(source) => io_err(path)(source),
    })
}

/// [`write_csv`] into memory: the same bytes as the file.
pub fn csv_bytes<T: Serialize + Default>(rows: &[T]) -> Result<Vec<u8>, csv::Error> {
    let mut out = Vec::new();
    write_csv_to(&mut out, rows).map_err(|e| match e {
        CsvOrIo::Csv(e) => e,
        CsvOrIo::Io(e) => e.into(),
    })?;
    Ok(out)
}

enum CsvOrIo {
    Csv(csv::Error),
    Io(std::io::Error),
}

fn write_csv_to<W: Write, T: Serialize + Default>(out: W, rows: &[T]) -> Result<(), CsvOrIo> {
    let mut w = csv::Writer::from_writer(out);
    if rows.is_empty() {
        // The header of a default row (through `csv_fields`, as the rows: the csv crate's own
        // serializer refuses the probe columns' map).
        w.write_record(csv_fields(&T::default()).iter().map(|(k, _)| k.as_bytes()))
            .map_err(CsvOrIo::Csv)?;
        return w.flush().map_err(CsvOrIo::Io);
    }
    let mut row = CsvRow::default();
    for (i, r) in rows.iter().enumerate() {
        row.fill(r);
        if i == 0 {
            w.write_record(row.names()).map_err(CsvOrIo::Csv)?;
        }
        w.write_record(row.values()).map_err(CsvOrIo::Csv)?;
    }
    w.flush().map_err(CsvOrIo::Io)
}

/// Receives the CSV tables of a run's results, one call per file ([`emit_tables`]).
pub trait TableSink {
    /// Receives one table: `file` is its CSV file name (`runs.csv`, ...), `rows` its records in
    /// output order. The first error stops [`emit_tables`].
    fn table<T: Serialize + Default>(&mut self, file: &str, rows: &[T]) -> Result<(), OutputError>;
}

/// The rows of one table over `results`: borrowed for a single run (a k = 32 fat-tree's ports
/// and drop runs are ~100,000 rows; a copy of them was the run's peak memory), gathered for
/// several.
fn rows_of<T: Clone>(results: &[RunResult], table: impl Fn(&RunResult) -> &Vec<T>) -> Cow<'_, [T]> {
    match results {
        [one] => Cow::Borrowed(&table(one)[..]),
        _ => Cow::Owned(
            results
                .iter()
                .flat_map(|r| table(r).iter().cloned())
                .collect(),
        ),
    }
}

/// Each CSV file of `results` (runs, flows, senders, ports, port classes, drop runs, time
/// series, blocks) as rows, in the order `incastsim run` writes them. The files and the Python
/// package's tables both come from here.
pub fn emit_tables(results: &[RunResult], sink: &mut impl TableSink) -> Result<(), OutputError> {
    let runs: Vec<_> = results.iter().map(|r| r.run.clone()).collect();
    sink.table("runs.csv", &runs)?;
    let flows = rows_of(results, |r| &r.flows);
    sink.table("flows.csv", &flows)?;
    let senders: Vec<_> = results
        .iter()
        .flat_map(|r| incastsim_scenario::results::metrics::sender_records(&r.flows))
        .collect();
    sink.table("senders.csv", &senders)?;
    let ports = rows_of(results, |r| &r.ports);
    sink.table("ports.csv", &ports)?;
    let classes = rows_of(results, |r| &r.port_classes);
    sink.table("port_classes.csv", &classes)?;
    let drop_runs = rows_of(results, |r| &r.drop_runs);
    sink.table("drop_runs.csv", &drop_runs)?;
    let series = rows_of(results, |r| &r.time_series);
    sink.table("timeseries.csv", &series)?;
    let blocks: Vec<BlockRow> = results
        .iter()
        .flat_map(|r| {
            r.block_times_ms.iter().enumerate().map(|(i, ms)| BlockRow {
                scenario: r.run.scenario.clone(),
                seed: r.run.seed,
                senders: r.run.senders,
                block: i,
                completion_ms: *ms,
            })
        })
        .collect();
    sink.table("blocks.csv", &blocks)
}

/// The CSV files of `results` in memory, by file name (`timeseries.csv` always, with only its
/// header when the config has no `time_series`): the bytes `incastsim run` writes.
pub fn csv_tables(results: &[RunResult]) -> Result<Vec<(String, Vec<u8>)>, OutputError> {
    struct Memory(Vec<(String, Vec<u8>)>);
    impl TableSink for Memory {
        fn table<T: Serialize + Default>(
            &mut self,
            file: &str,
            rows: &[T],
        ) -> Result<(), OutputError> {
            let bytes = csv_bytes(rows).map_err(|source| OutputError::Csv {
                path: file.to_string(),
                source,
            })?;
            self.0.push((file.to_string(), bytes));
            Ok(())
        }
    }
    let mut memory = Memory(Vec::new());
    emit_tables(results, &mut memory)?;
    Ok(memory.0)
}

use incastsim_sweep::store::CsvRow;
/// The fields of a row as (column, text); a missing value is an empty field (one function for
/// the run files and the sweep store).
pub use incastsim_sweep::store::csv_fields;

#[derive(Default, Serialize)]
struct BlockRow {
    scenario: String,
    seed: u64,
    senders: u32,
    block: usize,
    completion_ms: f64,
}

/// Facts about how a run was produced, for the manifest.
#[derive(Clone, Debug, Serialize)]
pub struct Manifest {
    /// The incastsim version that produced the run ([`crate::VERSION`]).
    pub incastsim_version: String,
    /// The git revision of the build, if it could see one ([`crate::GIT_REVISION`]).
    pub git_revision: Option<String>,
    /// The config file as given on the command line.
    pub config_path: String,
    /// The `--set key=value` overrides, in the order given (later ones win).
    pub overrides: Vec<String>,
    /// The seed of every run written to the folder.
    pub seeds: Vec<u64>,
    /// `completed`, or what stopped the run first: `max_sim_time`, `max_events`,
    /// `max_wall_time`, `interrupted` (SIGINT/SIGTERM), `max_flows`, `max_memory`,
    /// `pfc_deadlock` (`pfc.deadlock.action: stop`), `stalled`.
    pub outcome: String,
    /// When the run started, in seconds since the Unix epoch (wall clock; never in the CSVs).
    pub started_unix_s: u64,
    /// Wall-clock seconds the runs took (varies between machines, unlike the results).
    pub wall_time_s: f64,
    /// Events the engine processed, summed over the runs.
    pub events: u64,
    /// Engine speed: `events / wall_time_s`.
    pub events_per_s: f64,
    /// Packets hosts sent (data, ACKs, requests, UDP), summed over the runs.
    pub packets_sent: u64,
    /// Packets per wall-clock second: `packets_sent / wall_time_s`.
    pub packets_per_s: f64,
    /// Whether the heap was on 2 MiB transparent huge pages ([`crate::host`]): at scale the
    /// wall time depends on it (docs/perf-log.md), the results never.
    pub heap_huge_pages: bool,
    /// The config's warnings (`key = value: why`), as printed on stderr; omitted when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The registered components the config uses, with the crate that provides them; omitted
    /// when none (so the manifests of built-in runs keep their keys).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<ExtensionRecord>,
}

/// A component from outside incastsim that a run used, as its manifest records it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct ExtensionRecord {
    /// Where it plugs in (`congestion_control`, `scheme`, ...).
    pub point: String,
    /// The name the config chose it by.
    pub name: String,
    /// The crate that provides it.
    pub crate_name: String,
    /// That crate's version.
    pub crate_version: String,
}

/// Files that mark a folder as another command's: a sweep's (or a merge's) lock, index and
/// resolved points, an experiment's resolved config.
const FOREIGN_MARKERS: [(&str, &str); 5] = [
    ("sweep.lock", "sweep"),
    ("sweep.lock.json", "sweep"),
    ("runs.index.csv", "sweep"),
    ("points.resolved.yaml", "sweep"),
    ("experiment.resolved.yaml", "experiment"),
];

/// Refuses `dir` if it holds another command's results (a sweep's, live or finished, or an
/// experiment's), naming the command and the file that shows it. A missing folder, or one
/// holding an earlier run's files, is fine.
pub fn check_run_folder(dir: &Path) -> Result<(), OutputError> {
    for (marker, command) in FOREIGN_MARKERS {
        if dir.join(marker).exists() {
            return Err(OutputError::ForeignFolder {
                dir: dir.display().to_string(),
                marker: marker.into(),
                command: command.into(),
            });
        }
    }
    Ok(())
}

/// Writes the results of one or more runs of `cfg` into `dir` (refused if `dir` holds another
/// command's results: [`check_run_folder`]). A reused run folder keeps nothing of the earlier
/// run that this one does not write again (its pcap traces, time series, shared-buffer rows).
pub fn write_run_outputs(
    dir: &Path,
    cfg: &Config,
    results: &[RunResult],
    manifest: &Manifest,
) -> Result<(), OutputError> {
    check_run_folder(dir)?;
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let pcap_root = dir.join("pcap");
    if pcap_root.is_dir() {
        // An earlier run's traces must not sit beside this run's results.
        std::fs::remove_dir_all(&pcap_root).map_err(io_err(&pcap_root))?;
    }
    /// Files in `dir`; no timeseries.csv without series (and none left from an earlier run).
    struct Files<'a>(&'a Path);
    impl TableSink for Files<'_> {
        fn table<T: Serialize + Default>(
            &mut self,
            file: &str,
            rows: &[T],
        ) -> Result<(), OutputError> {
            let path = self.0.join(file);
            if file == "timeseries.csv" && rows.is_empty() {
                if path.exists() {
                    // A reused folder must not keep an earlier run's series next to this run's
                    // results.
                    std::fs::remove_file(&path).map_err(io_err(&path))?;
                }
                return Ok(());
            }
            write_csv(&path, rows)
        }
    }
    emit_tables(results, &mut Files(dir))?;
    for r in results.iter().filter(|r| r.capture.is_some()) {
        // One run: pcap/; several (seeds): pcap/seed-<seed>/.
        let pcap_dir = if results.len() == 1 {
            dir.join("pcap")
        } else {
            dir.join("pcap").join(format!("seed-{}", r.run.seed))
        };
        crate::pcap::write_pcaps(&pcap_dir, r)?;
    }
    // Single runs only (sweeps do not write it): one row per queue of each shared buffer.
    let shared: Vec<_> = results
        .iter()
        .flat_map(|r| r.shared_buffers.iter().cloned())
        .collect();
    let shared_path = dir.join("shared_buffers.csv");
    if !shared.is_empty() {
        write_csv(&shared_path, &shared)?;
    } else if shared_path.exists() {
        std::fs::remove_file(&shared_path).map_err(io_err(&shared_path))?;
    }
    // Single runs only, as shared_buffers.csv: one row per port and lossless priority.
    let pfc: Vec<_> = results.iter().flat_map(|r| r.pfc.iter().cloned()).collect();
    let pfc_path = dir.join("pfc.csv");
    if !pfc.is_empty() {
        write_csv(&pfc_path, &pfc)?;
    } else if pfc_path.exists() {
        std::fs::remove_file(&pfc_path).map_err(io_err(&pfc_path))?;
    }
    // With `pfc:`, its diagnostics too (pfc_deadlocks.csv with its header only when none).
    let with_pfc = results.iter().any(|r| !r.pfc_summary.is_empty());
    write_or_remove(
        &dir.join("pfc_deadlocks.csv"),
        with_pfc,
        &rows_of(results, |r| &r.pfc_deadlocks),
    )?;
    write_or_remove(
        &dir.join("pfc_flows.csv"),
        with_pfc,
        &rows_of(results, |r| &r.pfc_flows),
    )?;
    write_or_remove(
        &dir.join("pfc_summary.csv"),
        with_pfc,
        &rows_of(results, |r| &r.pfc_summary),
    )?;
    write_probe_tables(dir, results)?;
    let resolved = dir.join("config.resolved.yaml");
    let mut header =
        "# The fully resolved configuration of these results: every default filled in.\n"
            .to_string();
    // The crates that provide the extensions it names (comments: the file re-loads as it is,
    // with a binary that registers them).
    for e in &manifest.extensions {
        header.push_str(&format!(
            "# extension: {} {} from {} {}\n",
            e.point, e.name, e.crate_name, e.crate_version
        ));
    }
    std::fs::write(&resolved, format!("{header}{}", cfg.to_yaml())).map_err(io_err(&resolved))?;
    let mpath = dir.join("manifest.json");
    let mut f = BufWriter::new(File::create(&mpath).map_err(io_err(&mpath))?);
    serde_json::to_writer_pretty(&mut f, manifest).map_err(|e| io_err(&mpath)(e.into()))?;
    writeln!(f).map_err(io_err(&mpath))?;
    f.flush().map_err(io_err(&mpath))
}

/// Writes `rows` to `path` if `write`, else removes an earlier run's file there.
fn write_or_remove<T: Serialize + Default>(
    path: &Path,
    write: bool,
    rows: &[T],
) -> Result<(), OutputError> {
    if write {
        write_csv(path, rows)
    } else if path.exists() {
        std::fs::remove_file(path).map_err(io_err(path))
    } else {
        Ok(())
    }
}

/// Writes the probes' own CSV files (`incastsim_scenario::probe::ProbeReport::table`): one file
/// per name, the rows of every run (seed) one after the other, under the first run's header.
/// A name that is not a plain `*.csv` file name is refused (a probe writes only into the
/// output folder).
pub fn write_probe_tables(dir: &Path, results: &[RunResult]) -> Result<(), OutputError> {
    use incastsim_scenario::probe::ProbeTable;
    let mut files: Vec<(&str, &[String], Vec<&ProbeTable>)> = Vec::new();
    for t in results.iter().flat_map(|r| &r.probe_tables) {
        match files.iter_mut().find(|(f, _, _)| *f == t.file) {
            Some((_, _, tables)) => tables.push(t),
            None => files.push((&t.file, &t.header, vec![t])),
        }
    }
    for (file, header, tables) in files {
        let plain = !file.contains(['/', '\\']) && file.ends_with(".csv") && file != ".csv";
        let path = dir.join(file);
        if !plain {
            return Err(io_err(&path)(std::io::Error::other(
                "a probe's table needs a plain file name ending in .csv",
            )));
        }
        // Not one of the run's own files (written before: a table would replace it).
        if incastsim_scenario::probe::RESERVED_FILES.contains(&file) {
            return Err(io_err(&path)(std::io::Error::other(format!(
                "a probe's table may not take the name of one of the run's files ({})",
                incastsim_scenario::probe::RESERVED_FILES.join(", ")
            ))));
        }
        let csv_err = |source| OutputError::Csv {
            path: path.display().to_string(),
            source,
        };
        let mut w = csv::Writer::from_path(&path).map_err(csv_err)?;
        w.write_record(header).map_err(csv_err)?;
        for row in tables.iter().flat_map(|t| &t.rows) {
            w.write_record(row.iter().map(probe_field))
                .map_err(csv_err)?;
        }
        w.flush().map_err(io_err(&path))?;
    }
    Ok(())
}

/// A probe's value as a CSV field: the text a built-in column of the same type gets.
fn probe_field(v: &incastsim_scenario::probe::ProbeValue) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(serde_json::Value::Null) | Err(_) => String::new(),
        Ok(other) => other.to_string(),
    }
}

/// Writes any serializable value as pretty JSON (manifests).
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), OutputError> {
    let mut f = BufWriter::new(File::create(path).map_err(io_err(path))?);
    serde_json::to_writer_pretty(&mut f, value).map_err(|e| io_err(path)(e.into()))?;
    writeln!(f).map_err(io_err(path))?;
    f.flush().map_err(io_err(path))
}

/// Writes the enqueue-probability experiment: `enqueue_probability.csv` (one row per rMin),
/// `summary.csv` (one row per rMin and event, in the sweep summary's layout so
/// `incastsim plot DIR --x r_min --y probability --series event` draws it; the CI is the normal
/// approximation p ± 1.96·√(p(1−p)/n)) and `experiment.resolved.yaml`.
pub fn write_enqueue_probability(
    dir: &Path,
    file: &incastsim_experiment::ExperimentFile,
    rows: &[incastsim_experiment::EnqueueRow],
) -> Result<(), OutputError> {
    #[derive(Default, Serialize)]
    struct SummaryRow {
        point: usize,
        r_min: u64,
        event: &'static str,
        metric: &'static str,
        count: u32,
        mean: f64,
        std: f64,
        ci95_low: f64,
        ci95_high: f64,
    }
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    write_csv(&dir.join("enqueue_probability.csv"), rows)?;
    let mut summary = Vec::new();
    for (point, r) in rows.iter().enumerate() {
        for (event, p) in [
            ("X2 enqueued", r.p_x2),
            ("Y2 enqueued", r.p_y2),
            ("both enqueued", r.p_both),
            ("neither enqueued", r.p_neither),
        ] {
            let std = (p * (1.0 - p)).sqrt();
            let half = 1.96 * std / (r.trials.max(1) as f64).sqrt();
            summary.push(SummaryRow {
                point,
                r_min: r.r_min,
                event,
                metric: "probability",
                count: r.trials,
                mean: p,
                std,
                ci95_low: (p - half).max(0.0),
                ci95_high: (p + half).min(1.0),
            });
        }
    }
    write_csv(&dir.join("summary.csv"), &summary)?;
    let resolved = dir.join("experiment.resolved.yaml");
    std::fs::write(&resolved, file.to_yaml()).map_err(io_err(&resolved))
}
