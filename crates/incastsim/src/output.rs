//! Writing results: the only module that writes files.
//!
//! `runs.csv`, `flows.csv`, `senders.csv`, `ports.csv` and `blocks.csv` are tidy (one observation per row) and
//! byte-identical for the same config and seed. Wall-clock facts go to `manifest.json` only.

use incastsim_scenario::{Config, RunResult};
use serde::Serialize;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("cannot write {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Csv { path: String, source: csv::Error },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |source| OutputError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Writes `rows` as a CSV file with a header row. With no rows the file still has its header,
/// so every CSV reads into a table with the documented columns (the header comes from a
/// default row, which is not written).
pub fn write_csv<T: Serialize + Default>(path: &Path, rows: &[T]) -> Result<(), OutputError> {
    let csv_err = |source| OutputError::Csv {
        path: path.display().to_string(),
        source,
    };
    let mut file = BufWriter::new(File::create(path).map_err(io_err(path))?);
    if rows.is_empty() {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.serialize(T::default()).map_err(csv_err)?;
        let text = w.into_inner().map_err(|e| io_err(path)(e.into_error()))?;
        let header_end = text
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |i| i + 1);
        file.write_all(&text[..header_end]).map_err(io_err(path))?;
        return file.flush().map_err(io_err(path));
    }
    let mut w = csv::Writer::from_writer(file);
    for (i, r) in rows.iter().enumerate() {
        let fields = csv_fields(r);
        if i == 0 {
            w.write_record(fields.iter().map(|(k, _)| k))
                .map_err(csv_err)?;
        }
        w.write_record(fields.iter().map(|(_, v)| v))
            .map_err(csv_err)?;
    }
    w.flush().map_err(io_err(path))
}

/// The fields of a row as (column, text), in declaration order. A missing value (NaN, or None)
/// is an empty field, the one convention of every CSV (runs and sweeps alike): pandas reads it
/// as NaN and a column stays numeric.
pub fn csv_fields<T: Serialize>(t: &T) -> Vec<(String, String)> {
    match serde_json::to_value(t).expect("rows serialize") {
        serde_json::Value::Object(m) => m
            .into_iter()
            .map(|(k, v)| {
                let text = match v {
                    serde_json::Value::String(s) => s,
                    // serde_json turns a non-finite f64 into null.
                    serde_json::Value::Null => String::new(),
                    other => other.to_string(),
                };
                (k, text)
            })
            .collect(),
        _ => unreachable!("rows are structs"),
    }
}

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
    pub incastsim_version: String,
    pub git_revision: Option<String>,
    pub config_path: String,
    pub overrides: Vec<String>,
    pub seeds: Vec<u64>,
    /// `completed`, or what stopped the run first: `max_sim_time`, `max_events`,
    /// `max_wall_time`, `interrupted` (SIGINT/SIGTERM), `stalled`.
    pub outcome: String,
    pub started_unix_s: u64,
    pub wall_time_s: f64,
    pub events: u64,
    pub events_per_s: f64,
    pub packets_sent: u64,
    pub packets_per_s: f64,
    /// The config's warnings (`key = value: why`), as printed on stderr; omitted when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Writes the results of one or more runs of `cfg` into `dir`.
pub fn write_run_outputs(
    dir: &Path,
    cfg: &Config,
    results: &[RunResult],
    manifest: &Manifest,
) -> Result<(), OutputError> {
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let runs: Vec<_> = results.iter().map(|r| r.run.clone()).collect();
    write_csv(&dir.join("runs.csv"), &runs)?;
    let flows: Vec<_> = results
        .iter()
        .flat_map(|r| r.flows.iter().cloned())
        .collect();
    write_csv(&dir.join("flows.csv"), &flows)?;
    let senders: Vec<_> = results
        .iter()
        .flat_map(|r| incastsim_scenario::metrics::sender_records(&r.flows))
        .collect();
    write_csv(&dir.join("senders.csv"), &senders)?;
    let ports: Vec<_> = results
        .iter()
        .flat_map(|r| r.ports.iter().cloned())
        .collect();
    write_csv(&dir.join("ports.csv"), &ports)?;
    let classes: Vec<_> = results
        .iter()
        .flat_map(|r| r.port_classes.iter().cloned())
        .collect();
    write_csv(&dir.join("port_classes.csv"), &classes)?;
    let drop_runs: Vec<_> = results
        .iter()
        .flat_map(|r| r.drop_runs.iter().cloned())
        .collect();
    write_csv(&dir.join("drop_runs.csv"), &drop_runs)?;
    let series: Vec<_> = results
        .iter()
        .flat_map(|r| r.time_series.iter().cloned())
        .collect();
    let series_path = dir.join("timeseries.csv");
    if !series.is_empty() {
        write_csv(&series_path, &series)?;
    } else if series_path.exists() {
        // A reused folder must not keep an earlier run's series next to this run's results.
        std::fs::remove_file(&series_path).map_err(io_err(&series_path))?;
    }
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
    write_csv(&dir.join("blocks.csv"), &blocks)?;
    let resolved = dir.join("config.resolved.yaml");
    let header = "# The fully resolved configuration of these results: every default filled in.\n";
    std::fs::write(&resolved, format!("{header}{}", cfg.to_yaml())).map_err(io_err(&resolved))?;
    let mpath = dir.join("manifest.json");
    let mut f = BufWriter::new(File::create(&mpath).map_err(io_err(&mpath))?);
    serde_json::to_writer_pretty(&mut f, manifest).map_err(|e| io_err(&mpath)(e.into()))?;
    writeln!(f).map_err(io_err(&mpath))?;
    f.flush().map_err(io_err(&mpath))
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
    file: &incastsim_scenario::enqueue_experiment::ExperimentFile,
    rows: &[incastsim_scenario::enqueue_experiment::EnqueueRow],
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
