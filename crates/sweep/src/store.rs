//! The files of a sweep, written so that a crash loses nothing already computed.
//!
//! While the sweep runs, each finished run appends its flow rows to `flows.csv` and then its row
//! to `runs.csv` (flushed each time), so a run counts as done exactly when its `runs.csv` row is
//! complete. Restarting reads `runs.csv`, drops a half-written last line, discards flow rows of
//! runs without a run row, and runs only what is missing. At the end both files are rewritten in
//! a deterministic order (point, replicate[, flow]) and `summary.csv` is computed from them, so a
//! resumed, a sharded-and-merged and an uninterrupted sweep end with the same files.
//!
//! `sweep.lock.json` records the config fingerprint; a different config in the same folder is
//! refused instead of mixing results.

use crate::spec::{Point, SweepError};
use crate::stats::summarize;
use csv::StringRecord;
use incastsim_scenario::{FlowRecord, RunRecord, RunResult};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

pub const LOCK_FILE: &str = "sweep.lock.json";
pub const RUNS_FILE: &str = "runs.csv";
pub const FLOWS_FILE: &str = "flows.csv";
pub const SUMMARY_FILE: &str = "summary.csv";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lock {
    pub fingerprint: String,
    pub keys: Vec<String>,
}

fn store_err(path: &Path, e: impl std::fmt::Display) -> SweepError {
    SweepError::Store(format!("{}: {e}", path.display()))
}

/// The fields of a record as (column, text), in declaration order. NaN is written "NaN".
fn record_fields<T: Serialize>(t: &T) -> Vec<(String, String)> {
    match serde_json::to_value(t).expect("records serialize") {
        serde_json::Value::Object(m) => m
            .into_iter()
            .map(|(k, v)| {
                let text = match v {
                    serde_json::Value::String(s) => s,
                    serde_json::Value::Null => "NaN".into(),
                    other => other.to_string(),
                };
                (k, text)
            })
            .collect(),
        _ => unreachable!("records are structs"),
    }
}

/// A record's fields without those a swept key already provides (no duplicate column names).
fn own_fields<T: Serialize>(t: &T, keys: &[String]) -> Vec<(String, String)> {
    record_fields(t)
        .into_iter()
        .filter(|(k, _)| !keys.contains(k))
        .collect()
}

fn header_of<T: Serialize + Default>(keys: &[String]) -> Vec<String> {
    let mut h = vec!["point".to_string(), "replicate".to_string()];
    h.extend(keys.iter().cloned());
    h.extend(own_fields(&T::default(), keys).into_iter().map(|(k, _)| k));
    h
}

pub fn run_header(keys: &[String]) -> Vec<String> {
    header_of::<RunRecord>(keys)
}
pub fn flow_header(keys: &[String]) -> Vec<String> {
    header_of::<FlowRecord>(keys)
}

fn parse_id(rec: &StringRecord, path: &Path) -> Result<(u32, u32), SweepError> {
    let p = rec.get(0).and_then(|s| s.parse().ok());
    let r = rec.get(1).and_then(|s| s.parse().ok());
    p.zip(r)
        .ok_or_else(|| store_err(path, format!("malformed row {:?}", rec)))
}

/// Reads a results CSV. A last line without its newline (a crash mid-write) is ignored, and cut
/// off the file when `repair` is set. A header different from `expected` is refused.
pub fn read_rows(
    path: &Path,
    expected: Option<&[String]>,
    repair: bool,
) -> Result<(Vec<String>, Vec<StringRecord>), SweepError> {
    if !path.exists() {
        return Ok((
            expected.map(<[String]>::to_vec).unwrap_or_default(),
            Vec::new(),
        ));
    }
    let mut bytes = std::fs::read(path).map_err(|e| store_err(path, e))?;
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        bytes.truncate(keep);
        if repair {
            let f = OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| store_err(path, e))?;
            f.set_len(keep as u64).map_err(|e| store_err(path, e))?;
        }
    }
    if bytes.is_empty() {
        return Ok((
            expected.map(<[String]>::to_vec).unwrap_or_default(),
            Vec::new(),
        ));
    }
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(bytes.as_slice());
    let header: Vec<String> = rdr
        .headers()
        .map_err(|e| store_err(path, e))?
        .iter()
        .map(String::from)
        .collect();
    if let Some(exp) = expected
        && header != exp
    {
        return Err(store_err(
            path,
            "its columns differ from what this sweep writes (another incastsim version or config?): use another --out folder",
        ));
    }
    let mut rows = Vec::new();
    for r in rdr.records() {
        let r = r.map_err(|e| store_err(path, e))?;
        if r.len() != header.len() {
            return Err(store_err(
                path,
                format!("a row has {} fields, the header {}", r.len(), header.len()),
            ));
        }
        rows.push(r);
    }
    Ok((header, rows))
}

fn write_rows(path: &Path, header: &[String], rows: &[StringRecord]) -> Result<(), SweepError> {
    // Write a temporary file and rename it: a crash leaves either the old or the new file.
    let tmp = path.with_extension("csv.tmp");
    let file = File::create(&tmp).map_err(|e| store_err(&tmp, e))?;
    let mut w = csv::Writer::from_writer(BufWriter::new(file));
    w.write_record(header).map_err(|e| store_err(&tmp, e))?;
    for r in rows {
        w.write_record(r).map_err(|e| store_err(&tmp, e))?;
    }
    w.flush().map_err(|e| store_err(&tmp, e))?;
    drop(w);
    std::fs::rename(&tmp, path).map_err(|e| store_err(path, e))
}

pub fn read_lock(dir: &Path) -> Result<Option<Lock>, SweepError> {
    let path = dir.join(LOCK_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path).map_err(|e| store_err(&path, e))?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| store_err(&path, e))
}

pub fn write_lock(dir: &Path, lock: &Lock) -> Result<(), SweepError> {
    let path = dir.join(LOCK_FILE);
    std::fs::write(
        &path,
        serde_json::to_string_pretty(lock).expect("lock serializes") + "\n",
    )
    .map_err(|e| store_err(&path, e))
}

/// Appends results of one sweep to its folder.
pub struct Store {
    dir: PathBuf,
    keys: Vec<String>,
    runs: csv::Writer<File>,
    flows: csv::Writer<File>,
    completed: HashSet<(u32, u32)>,
}

impl Store {
    /// Opens (or creates) the output folder of a sweep with `keys`, whose fingerprint is `fingerprint`.
    pub fn open(
        dir: &Path,
        fingerprint: &str,
        keys: &[String],
        seeds: u32,
    ) -> Result<Store, SweepError> {
        std::fs::create_dir_all(dir).map_err(|e| store_err(dir, e))?;
        let lock = Lock {
            fingerprint: fingerprint.to_string(),
            keys: keys.to_vec(),
        };
        match read_lock(dir)? {
            Some(existing) if existing != lock => {
                return Err(SweepError::Store(format!(
                    "{} holds results of a different sweep configuration; refusing to mix them. \
                     Use another --out folder, or delete that one to start over",
                    dir.display()
                )));
            }
            Some(_) => {}
            None => write_lock(dir, &lock)?,
        }
        let (rh, fh) = (run_header(keys), flow_header(keys));
        let runs_path = dir.join(RUNS_FILE);
        let flows_path = dir.join(FLOWS_FILE);
        let (_, run_rows) = read_rows(&runs_path, Some(&rh), true)?;
        let mut completed = HashSet::new();
        for r in &run_rows {
            let id = parse_id(r, &runs_path)?;
            if id.1 >= seeds {
                return Err(SweepError::Store(format!(
                    "{} holds results for more seeds than this sweep asks for ({seeds}): raise sweep.seeds or use another --out folder",
                    dir.display()
                )));
            }
            completed.insert(id);
        }
        // Keep flow rows only of complete runs (a crash may have left some of an unfinished one).
        let (_, flow_rows) = read_rows(&flows_path, Some(&fh), true)?;
        let mut seen = HashSet::new();
        let flow_col = fh
            .iter()
            .position(|c| c == "flow")
            .expect("flows have a flow column");
        let mut kept = Vec::with_capacity(flow_rows.len());
        for r in flow_rows {
            let id = parse_id(&r, &flows_path)?;
            let flow = r.get(flow_col).unwrap_or_default().to_string();
            if completed.contains(&id) && seen.insert((id, flow)) {
                kept.push(r);
            }
        }
        write_rows(&flows_path, &fh, &kept)?;
        if run_rows.is_empty() {
            write_rows(&runs_path, &rh, &[])?;
        }
        let append = |p: &Path| -> Result<csv::Writer<File>, SweepError> {
            let f = OpenOptions::new()
                .append(true)
                .open(p)
                .map_err(|e| store_err(p, e))?;
            Ok(csv::WriterBuilder::new().has_headers(false).from_writer(f))
        };
        Ok(Store {
            runs: append(&runs_path)?,
            flows: append(&flows_path)?,
            completed,
            dir: dir.to_path_buf(),
            keys: keys.to_vec(),
        })
    }

    pub fn is_done(&self, point: u32, replicate: u32) -> bool {
        self.completed.contains(&(point, replicate))
    }
    pub fn completed(&self) -> usize {
        self.completed.len()
    }

    /// Records a finished run: flow rows first, then the run row that marks it complete.
    pub fn append(
        &mut self,
        point: &Point,
        replicate: u32,
        result: &RunResult,
    ) -> Result<(), SweepError> {
        let prefix = |row: &mut Vec<String>| {
            row.push(point.index.to_string());
            row.push(replicate.to_string());
            row.extend(point.values.iter().cloned());
        };
        for f in &result.flows {
            let mut row = Vec::new();
            prefix(&mut row);
            row.extend(own_fields(f, &self.keys).into_iter().map(|(_, v)| v));
            self.flows
                .write_record(&row)
                .map_err(|e| store_err(&self.dir.join(FLOWS_FILE), e))?;
        }
        self.flows
            .flush()
            .map_err(|e| store_err(&self.dir.join(FLOWS_FILE), e))?;
        let mut row = Vec::new();
        prefix(&mut row);
        row.extend(
            own_fields(&result.run, &self.keys)
                .into_iter()
                .map(|(_, v)| v),
        );
        self.runs
            .write_record(&row)
            .map_err(|e| store_err(&self.dir.join(RUNS_FILE), e))?;
        self.runs
            .flush()
            .map_err(|e| store_err(&self.dir.join(RUNS_FILE), e))?;
        self.completed.insert((point.index, replicate));
        Ok(())
    }
}

/// Rewrites runs.csv and flows.csv of `dir` in (point, replicate[, flow]) order and writes
/// summary.csv. Returns the number of runs.
pub fn finalize(dir: &Path, keys: &[String]) -> Result<usize, SweepError> {
    let (rh, fh) = (run_header(keys), flow_header(keys));
    let (_, runs) = read_rows(&dir.join(RUNS_FILE), Some(&rh), true)?;
    let (_, flows) = read_rows(&dir.join(FLOWS_FILE), Some(&fh), true)?;
    write_final(dir, keys, runs, flows)
}

/// Writes the final, sorted files and the summary from rows.
pub fn write_final(
    dir: &Path,
    keys: &[String],
    runs: Vec<StringRecord>,
    flows: Vec<StringRecord>,
) -> Result<usize, SweepError> {
    let (rh, fh) = (run_header(keys), flow_header(keys));
    let runs_path = dir.join(RUNS_FILE);
    let mut by_id: BTreeMap<(u32, u32), StringRecord> = BTreeMap::new();
    for r in runs {
        let id = parse_id(&r, &runs_path)?;
        if let Some(prev) = by_id.get(&id)
            && prev != &r
        {
            return Err(store_err(
                &runs_path,
                format!(
                    "point {} replicate {} has two different results",
                    id.0, id.1
                ),
            ));
        }
        by_id.insert(id, r);
    }
    let flow_col = fh.iter().position(|c| c == "flow").expect("flow column");
    let mut flow_by_id: BTreeMap<(u32, u32, u64), StringRecord> = BTreeMap::new();
    for r in flows {
        let (p, rep) = parse_id(&r, &dir.join(FLOWS_FILE))?;
        let f: u64 = r.get(flow_col).and_then(|s| s.parse().ok()).unwrap_or(0);
        if by_id.contains_key(&(p, rep)) {
            flow_by_id.insert((p, rep, f), r);
        }
    }
    let runs: Vec<StringRecord> = by_id.into_values().collect();
    write_rows(&runs_path, &rh, &runs)?;
    let flows: Vec<StringRecord> = flow_by_id.into_values().collect();
    write_rows(&dir.join(FLOWS_FILE), &fh, &flows)?;
    write_summary(&dir.join(SUMMARY_FILE), keys, &rh, &runs)?;
    Ok(runs.len())
}

/// Columns of runs.csv summarized per point: every numeric metric after `completed`.
pub fn metric_columns(run_header: &[String]) -> Vec<usize> {
    let start = run_header
        .iter()
        .position(|c| c == "completed")
        .expect("completed column")
        + 1;
    (start..run_header.len()).collect()
}

pub const SUMMARY_COLUMNS: [&str; 12] = [
    "metric",
    "count",
    "mean",
    "std",
    "ci95_low",
    "ci95_high",
    "median",
    "p5",
    "p95",
    "p99",
    "min",
    "max",
];

fn write_summary(
    path: &Path,
    keys: &[String],
    rh: &[String],
    runs: &[StringRecord],
) -> Result<(), SweepError> {
    let mut header = vec!["point".to_string()];
    header.extend(keys.iter().cloned());
    header.extend(SUMMARY_COLUMNS.iter().map(|s| s.to_string()));
    let metrics = metric_columns(rh);
    let mut rows = Vec::new();
    let mut i = 0;
    while i < runs.len() {
        let point = runs[i].get(0).unwrap_or_default().to_string();
        let mut j = i;
        while j < runs.len() && runs[j].get(0) == Some(point.as_str()) {
            j += 1;
        }
        let group = &runs[i..j];
        for &m in &metrics {
            let values: Vec<f64> = group
                .iter()
                .map(|r| r.get(m).and_then(|s| s.parse().ok()).unwrap_or(f64::NAN))
                .collect();
            let s = summarize(&values);
            let mut row = vec![point.clone()];
            row.extend(
                (0..keys.len()).map(|k| group[0].get(2 + k).unwrap_or_default().to_string()),
            );
            row.push(rh[m].clone());
            row.push(s.count.to_string());
            for v in [
                s.mean,
                s.std,
                s.ci95_low,
                s.ci95_high,
                s.median,
                s.p5,
                s.p95,
                s.p99,
                s.min,
                s.max,
            ] {
                row.push(format!("{v}"));
            }
            rows.push(StringRecord::from(row));
        }
        i = j;
    }
    write_rows(path, &header, &rows)
}

#[derive(Serialize)]
struct PointDescription<'a> {
    point: u32,
    label: &'a str,
    config: &'a incastsim_scenario::Config,
}

/// Writes `sweep.yaml` (the config as given, sweep section included: rerun it to reproduce the
/// sweep) and `points.resolved.yaml` (every point's fully resolved config).
pub fn write_descriptions(dir: &Path, sweep: &crate::spec::Sweep) -> Result<(), SweepError> {
    let header = "# The sweep as run (after --set overrides). `incastsim sweep` on this file reproduces it.\n";
    let path = dir.join("sweep.yaml");
    std::fs::write(&path, format!("{header}{}", sweep.input_yaml()))
        .map_err(|e| store_err(&path, e))?;
    let points: Vec<PointDescription> = sweep
        .points
        .iter()
        .map(|p| PointDescription {
            point: p.index,
            label: &p.label,
            config: &p.config,
        })
        .collect();
    let path = dir.join("points.resolved.yaml");
    let text = serde_saphyr::to_string(&points).map_err(|e| store_err(&path, e))?;
    let header = "# Every point of the sweep with all defaults filled in.\n";
    std::fs::write(&path, format!("{header}{text}")).map_err(|e| store_err(&path, e))
}
