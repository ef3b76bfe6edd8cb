//! The files of a sweep, written so that a crash loses nothing already computed.
//!
//! While the sweep runs, each finished run appends its flow rows to `flows.csv` and then its row
//! to `runs.csv` (flushed each time), so a run counts as done exactly when its `runs.csv` row is
//! complete. Restarting cuts a half-written last line, discards flow rows of runs without a run
//! row, and runs only what is missing. At the end both files are rewritten in a deterministic
//! order (point, replicate[, flow]) and `summary.csv` is computed from them, so a resumed, a
//! sharded-and-merged and an uninterrupted sweep end with the same files.
//!
//! Sorting holds only a 32-byte reference per row (key, file, byte offset) and copies rows by
//! seeking; the summary streams over the sorted runs one point at a time. So memory does not grow
//! with the number of runs beyond those references.
//!
//! `sweep.lock.json` records the config fingerprint; a different config in the same folder is
//! refused instead of mixing results.
//!
//! A probe's own tables (`ProbeReport::table`, declared with its columns in
//! `ProbeExtension::columns`) are one file each in the folder, in long format: `point`,
//! `replicate`, then the table's columns. A run appends its table rows first (before its flow
//! rows), so a run whose run row is complete has all its table rows; on resume the rows of
//! runs not complete are dropped, and at the end each table is sorted by (point, replicate)
//! keeping each run's rows in the order the probe gave them. The index does not checksum
//! table rows: an edited table file is not noticed.
//!
//! `runs.index.csv` holds, per finished run, how many flow rows it wrote and a checksum of its
//! run row and of its flow rows. A run counts as done only when its index row, its run row and
//! all its flow rows are present and agree, so a deleted, emptied or edited `flows.csv` or
//! `runs.csv` is noticed on resume (those runs are re-run, and the sweep says so) and on merge
//! (refused, naming the runs).

pub use crate::rows::for_each_row;
use crate::rows::store_err;
use crate::spec::{Censored, Point, SweepError};
use crate::summary::write_summary;
pub use crate::summary::{SUMMARY_COLUMNS, metric_columns};
use csv::StringRecord;
use incastsim_scenario::probe::{ProbeColumnNames, ProbeTableColumns};
use incastsim_scenario::{FlowRecord, RunRecord, RunResult};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// The sweep's fingerprint and keys, checked before resuming or merging into a folder.
pub const LOCK_FILE: &str = "sweep.lock.json";
/// One row per run.
pub const RUNS_FILE: &str = "runs.csv";
/// One row per flow of every run.
pub const FLOWS_FILE: &str = "flows.csv";
/// One row per point and metric.
pub const SUMMARY_FILE: &str = "summary.csv";
/// Checksums of each run's rows, to notice lost or edited rows.
pub const INDEX_FILE: &str = "runs.index.csv";

/// Columns of `runs.index.csv`.
/// A checksum as written in runs.index.csv: `0x` and 16 hex digits, so that every CSV reader
/// (pandas included) reads the column as text, never as a number.
fn parse_hash(s: &str) -> Option<u64> {
    u64::from_str_radix(s.strip_prefix("0x")?, 16).ok()
}

const INDEX_HEADER: [&str; 5] = ["point", "replicate", "flow_rows", "run_hash", "flows_hash"];

fn index_header() -> Vec<String> {
    INDEX_HEADER.iter().map(|s| s.to_string()).collect()
}

/// FNV-1a 64 over a row's fields (with a separator byte, so field boundaries count).
fn row_hash<'a>(fields: impl IntoIterator<Item = &'a str>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in fields {
        for &b in f.as_bytes().iter().chain(std::iter::once(&0x1f)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// What a folder's files hold of one run: flow rows and their checksum (a sum of row hashes,
/// so independent of row order), and its run row's hash.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
struct RunContent {
    flow_rows: u64,
    flows_hash: u64,
    run_hash: Option<u64>,
}

/// (point, replicate) of a run.
type RunId = (u32, u32);
/// A row's sort key from its fields and the index of the file it is in.
type RowKey = Box<dyn FnMut(&StringRecord, usize) -> Option<(u32, u32, u64)>>;

/// Reads a folder's runs.csv, flows.csv and runs.index.csv and returns the runs whose files
/// agree with their index row, and a description of each run that does not.
fn verify_folder(dir: &Path, lock: &Lock) -> Result<(HashSet<RunId>, Vec<String>), SweepError> {
    let (rh, fh) = (run_header(lock), flow_header(lock));
    let mut content: std::collections::HashMap<(u32, u32), RunContent> = Default::default();
    let runs_path = dir.join(RUNS_FILE);
    for_each_row(&runs_path, &rh, |r, _| {
        let id = parse_id(r, &runs_path)?;
        content.entry(id).or_default().run_hash = Some(row_hash(r.iter()));
        Ok(())
    })?;
    let flows_path = dir.join(FLOWS_FILE);
    for_each_row(&flows_path, &fh, |r, _| {
        let c = content.entry(parse_id(r, &flows_path)?).or_default();
        c.flow_rows += 1;
        c.flows_hash = c.flows_hash.wrapping_add(row_hash(r.iter()));
        Ok(())
    })?;
    let index_path = dir.join(INDEX_FILE);
    let mut complete = HashSet::new();
    let mut problems = Vec::new();
    let mut indexed = HashSet::new();
    for_each_row(&index_path, &index_header(), |r, _| {
        let id = parse_id(r, &index_path)?;
        let expected = (
            r.get(2).and_then(|s| s.parse::<u64>().ok()),
            r.get(3).and_then(parse_hash),
            r.get(4).and_then(parse_hash),
        );
        indexed.insert(id);
        let found = content.get(&id).copied().unwrap_or_default();
        let what = if found.run_hash.is_none() {
            Some("its row in runs.csv is missing".to_string())
        } else if expected.1 != found.run_hash {
            Some("its row in runs.csv was changed".to_string())
        } else if expected.0 != Some(found.flow_rows) {
            Some(format!(
                "flows.csv has {} of its {} rows",
                found.flow_rows,
                expected.0.map_or("?".into(), |n| n.to_string())
            ))
        } else if expected.2 != Some(found.flows_hash) {
            Some("its rows in flows.csv were changed".to_string())
        } else {
            None
        };
        match what {
            None => {
                complete.insert(id);
            }
            Some(w) => problems.push(format!("point {} replicate {}: {w}", id.0, id.1)),
        }
        Ok(())
    })?;
    let mut unindexed: Vec<_> = content
        .iter()
        .filter(|(id, c)| c.run_hash.is_some() && !indexed.contains(id))
        .map(|(id, _)| *id)
        .collect();
    unindexed.sort_unstable();
    for id in unindexed {
        problems.push(format!(
            "point {} replicate {}: not in {INDEX_FILE} (an interrupted write, or an older incastsim)",
            id.0, id.1
        ));
    }
    Ok((complete, problems))
}

/// What a results folder belongs to (sweep.lock.json): a folder is only resumed or merged
/// by the same sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lock {
    /// The sweep's config (seeds and plots left out) and the incastsim version: another sweep,
    /// or another version, is refused.
    pub fingerprint: String,
    /// The swept keys, in column order.
    pub keys: Vec<String>,
    /// The sweep's rule for censored runs (`sweep.censored`), so that `incastsim merge`
    /// summarizes shards as the sweep would. Absent in a lock means the default.
    #[serde(default, skip_serializing_if = "Censored::is_default")]
    pub censored: Censored,
    /// The columns probes add after the built-in ones ([`crate::Sweep::probe_columns`]): part
    /// of the files' headers, so a folder written with other probe columns is not resumed or
    /// merged. Absent in a lock means none.
    #[serde(default, skip_serializing_if = "ProbeColumnNames::is_empty")]
    pub probe_columns: ProbeColumnNames,
}

impl Lock {
    /// What `sweep`'s output folder's `sweep.lock.json` holds: a folder is resumed, or merged
    /// with another, only if this agrees.
    pub fn of(sweep: &crate::spec::Sweep) -> Lock {
        Lock {
            fingerprint: sweep.fingerprint.clone(),
            keys: sweep.keys.clone(),
            censored: sweep.censored,
            probe_columns: sweep.probe_columns.clone(),
        }
    }
}

pub use crate::fields::{CsvRow, csv_fields};

/// A record's fields without those a swept key already provides (no duplicate column names).
fn own_fields<T: Serialize>(t: &T, keys: &[String]) -> Vec<(Cow<'static, str>, String)> {
    csv_fields(t)
        .into_iter()
        .filter(|(k, _)| !keys.iter().any(|key| key == k))
        .collect()
}

fn header_of<T: Serialize + Default>(keys: &[String], probe: &[String]) -> Vec<String> {
    let mut h = vec!["point".to_string(), "replicate".to_string()];
    h.extend(keys.iter().cloned());
    h.extend(
        own_fields(&T::default(), keys)
            .into_iter()
            .map(|(k, _)| k.into_owned()),
    );
    h.extend(probe.iter().cloned());
    h
}

/// runs.csv's header: `point`, `replicate`, the swept keys, the run record's columns, then
/// the probes' run columns.
pub fn run_header(lock: &Lock) -> Vec<String> {
    header_of::<RunRecord>(&lock.keys, &lock.probe_columns.run)
}
/// flows.csv's header: `point`, `replicate`, the swept keys, the flow record's columns, then
/// the probes' flow columns.
pub fn flow_header(lock: &Lock) -> Vec<String> {
    header_of::<FlowRecord>(&lock.keys, &lock.probe_columns.flow)
}

/// A record's fields in a sweep file's order: its built-in fields (the first `width` of
/// `fields`), then the probe columns `probe` names (empty where the run's probes did not add
/// one). A probe column not in `probe` has no place in the file: refused.
fn with_probe_columns(
    mut fields: Vec<(Cow<'static, str>, String)>,
    width: usize,
    probe: &[String],
    file: &str,
) -> Result<Vec<String>, SweepError> {
    let added = fields.split_off(width.min(fields.len()));
    if let Some((name, _)) = added.iter().find(|(k, _)| !probe.iter().any(|c| c == k)) {
        return Err(SweepError::Store(format!(
            "a probe added column `{name}` to {file}, which its ProbeExtension::columns does not declare \
             (declared: {probe:?}); a sweep fixes its files' columns before the first run"
        )));
    }
    let mut row: Vec<String> = fields.into_iter().map(|(_, v)| v).collect();
    row.extend(probe.iter().map(|c| {
        added
            .iter()
            .find(|(k, _)| k == c)
            .map_or_else(String::new, |(_, v)| v.clone())
    }));
    Ok(row)
}

fn parse_id(rec: &StringRecord, path: &Path) -> Result<(u32, u32), SweepError> {
    let p = rec.get(0).and_then(|s| s.parse().ok());
    let r = rec.get(1).and_then(|s| s.parse().ok());
    p.zip(r)
        .ok_or_else(|| store_err(path, format!("malformed row {rec:?}")))
}

fn run_key(r: &StringRecord) -> Option<(u32, u32, u64)> {
    Some((r.get(0)?.parse().ok()?, r.get(1)?.parse().ok()?, 0))
}

fn flow_key(r: &StringRecord, flow_col: usize) -> Option<(u32, u32, u64)> {
    Some((
        r.get(0)?.parse().ok()?,
        r.get(1)?.parse().ok()?,
        r.get(flow_col)?.parse().ok()?,
    ))
}

fn flow_column(fh: &[String]) -> usize {
    fh.iter()
        .position(|c| c == "flow")
        .expect("flows have a flow column")
}

/// The header of a probe table's file: `point`, `replicate`, then its columns.
fn table_header(t: &ProbeTableColumns) -> Vec<String> {
    let mut h = vec!["point".to_string(), "replicate".to_string()];
    h.extend(t.columns.iter().cloned());
    h
}

/// The sort key of a probe table's rows: (point, replicate, the row's position among that
/// run's rows in its file), so sorting keeps each run's rows in the probe's order and a run
/// found in two files (merged shards) is kept once.
fn table_key() -> RowKey {
    let mut seen: std::collections::HashMap<(u32, u32, usize), u64> = Default::default();
    Box::new(move |r, source| {
        let (p, rep) = (r.get(0)?.parse().ok()?, r.get(1)?.parse().ok()?);
        let n = seen.entry((p, rep, source)).or_default();
        *n += 1;
        Some((p, rep, *n - 1))
    })
}

/// Cuts a half-written last line (a crash mid-write) off a results file.
fn repair(path: &Path) -> Result<(), SweepError> {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = OpenOptions::new().read(true).write(true).open(path) else {
        return Ok(());
    };
    let len = f.metadata().map_err(|e| store_err(path, e))?.len();
    let mut end = len;
    let mut buf = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let n = (end - start) as usize;
        f.seek(SeekFrom::Start(start))
            .map_err(|e| store_err(path, e))?;
        f.read_exact(&mut buf[..n])
            .map_err(|e| store_err(path, e))?;
        if let Some(i) = buf[..n].iter().rposition(|&b| b == b'\n') {
            let keep = start + i as u64 + 1;
            if keep != len {
                f.set_len(keep).map_err(|e| store_err(path, e))?;
            }
            return Ok(());
        }
        end = start;
    }
    f.set_len(0).map_err(|e| store_err(path, e))
}

fn write_header(path: &Path, header: &[String]) -> Result<(), SweepError> {
    let mut w = csv::Writer::from_path(path).map_err(|e| store_err(path, e))?;
    w.write_record(header).map_err(|e| store_err(path, e))?;
    w.flush().map_err(|e| store_err(path, e))
}

/// Sort key of a row, and where the row is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct RowRef {
    key: (u32, u32, u64),
    source: u32,
    offset: u64,
}

/// Writes the rows of `sources` that `keep` accepts to `dest`, sorted by `key`, keeping one row
/// per key. `dest` may be one of the sources: it is replaced atomically at the end.
fn sort_rows(
    sources: &[PathBuf],
    dest: &Path,
    header: &[String],
    mut key: impl FnMut(&StringRecord, usize) -> Option<(u32, u32, u64)>,
    keep: impl Fn(&(u32, u32, u64)) -> bool,
) -> Result<u64, SweepError> {
    let mut refs = Vec::new();
    for (i, src) in sources.iter().enumerate() {
        for_each_row(src, header, |rec, offset| {
            let k = key(rec, i).ok_or_else(|| store_err(src, format!("malformed row {rec:?}")))?;
            if keep(&k) {
                refs.push(RowRef {
                    key: k,
                    source: i as u32,
                    offset,
                });
            }
            Ok(())
        })?;
    }
    refs.sort_unstable();
    refs.dedup_by_key(|r| r.key);
    let tmp = dest.with_extension("csv.tmp");
    let mut w = csv::Writer::from_writer(BufWriter::new(
        File::create(&tmp).map_err(|e| store_err(&tmp, e))?,
    ));
    w.write_record(header).map_err(|e| store_err(&tmp, e))?;
    let mut readers = Vec::new();
    for src in sources {
        // A missing source has no rows, so no reference points into it.
        readers.push(if src.exists() {
            let f = File::open(src).map_err(|e| store_err(src, e))?;
            Some(csv::ReaderBuilder::new().has_headers(false).from_reader(f))
        } else {
            None
        });
    }
    let mut rec = StringRecord::new();
    for r in &refs {
        let src = &sources[r.source as usize];
        let Some(rdr) = readers[r.source as usize].as_mut() else {
            return Err(store_err(src, "vanished while being read"));
        };
        let mut pos = csv::Position::new();
        pos.set_byte(r.offset);
        rdr.seek(pos).map_err(|e| store_err(src, e))?;
        rdr.read_record(&mut rec).map_err(|e| store_err(src, e))?;
        w.write_record(&rec).map_err(|e| store_err(&tmp, e))?;
    }
    w.flush().map_err(|e| store_err(&tmp, e))?;
    drop((w, readers));
    // Rename over the destination: a crash leaves either the old or the new file.
    std::fs::rename(&tmp, dest).map_err(|e| store_err(dest, e))?;
    Ok(refs.len() as u64)
}

/// Reads sweep.lock.json from `dir` (None if absent).
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

/// Writes sweep.lock.json into `dir`.
pub fn write_lock(dir: &Path, lock: &Lock) -> Result<(), SweepError> {
    let path = dir.join(LOCK_FILE);
    std::fs::write(
        &path,
        serde_json::to_string_pretty(lock).expect("lock serializes") + "\n",
    )
    .map_err(|e| store_err(&path, e))
}

/// The complete runs of the sweep with `fingerprint` in `dir`, reading only (for read-only
/// folders). A folder of another sweep is refused as [`Store::open`] would.
pub fn finished_runs(dir: &Path, lock: &Lock) -> Result<HashSet<RunId>, SweepError> {
    match read_lock(dir)? {
        Some(l)
            if l.fingerprint == lock.fingerprint
                && l.keys == lock.keys
                && l.probe_columns == lock.probe_columns => {}
        Some(_) => {
            return Err(SweepError::Store(format!(
                "{} holds results of a different sweep configuration",
                dir.display()
            )));
        }
        None => return Ok(HashSet::new()),
    }
    Ok(verify_folder(dir, lock)?.0)
}

/// Appends results of one sweep to its folder.
pub struct Store {
    dir: PathBuf,
    keys: Vec<String>,
    probe_columns: ProbeColumnNames,
    runs: csv::Writer<File>,
    flows: csv::Writer<File>,
    index: csv::Writer<File>,
    /// Per declared probe table: its columns and its file, appended to.
    tables: Vec<(ProbeTableColumns, csv::Writer<File>)>,
    completed: HashSet<(u32, u32)>,
    /// Runs found incomplete or altered on opening, to be re-run (one line each).
    pub rerun: Vec<String>,
}

impl Store {
    /// Opens (or creates) the output folder of the sweep whose lock is `lock`
    /// ([`Lock::of`] the sweep) with `seeds` replicates per point.
    pub fn open(dir: &Path, lock: &Lock, seeds: u32) -> Result<Store, SweepError> {
        std::fs::create_dir_all(dir).map_err(|e| store_err(dir, e))?;
        match read_lock(dir)? {
            Some(existing) if existing != *lock => {
                return Err(SweepError::Store(format!(
                    "{} holds results of a different sweep configuration; refusing to mix them. \
                     Use another --out folder, or delete that one to start over",
                    dir.display()
                )));
            }
            Some(_) => {}
            None => write_lock(dir, lock)?,
        }
        let (rh, fh) = (run_header(lock), flow_header(lock));
        let runs_path = dir.join(RUNS_FILE);
        let flows_path = dir.join(FLOWS_FILE);
        let index_path = dir.join(INDEX_FILE);
        for p in [&runs_path, &flows_path, &index_path] {
            repair(p)?;
        }
        let (completed, rerun) = verify_folder(dir, lock)?;
        if let Some(&(_, r)) = completed.iter().find(|&&(_, r)| r >= seeds) {
            return Err(SweepError::Store(format!(
                "{} holds results for more seeds than this sweep asks for ({seeds}, found replicate {r}): raise sweep.seeds or use another --out folder",
                dir.display()
            )));
        }
        // Keep rows only of complete runs (a crash or an edit may have left some of others).
        let fc = flow_column(&fh);
        let table_paths: Vec<PathBuf> = lock
            .probe_columns
            .tables
            .iter()
            .map(|t| dir.join(&t.file))
            .collect();
        let mut files: Vec<(&Path, Vec<String>, RowKey)> = vec![
            (&runs_path, rh.clone(), Box::new(|r, _| run_key(r))),
            (
                &flows_path,
                fh.clone(),
                Box::new(move |r, _| flow_key(r, fc)),
            ),
            (&index_path, index_header(), Box::new(|r, _| run_key(r))),
        ];
        for (t, path) in lock.probe_columns.tables.iter().zip(&table_paths) {
            repair(path)?;
            files.push((path, table_header(t), table_key()));
        }
        for (path, header, key) in files {
            if path.exists() {
                sort_rows(&[path.to_path_buf()], path, &header, key, |k| {
                    completed.contains(&(k.0, k.1))
                })?;
            } else {
                write_header(path, &header)?;
            }
        }
        let append = |p: &Path| -> Result<csv::Writer<File>, SweepError> {
            let f = OpenOptions::new()
                .append(true)
                .open(p)
                .map_err(|e| store_err(p, e))?;
            Ok(csv::WriterBuilder::new().has_headers(false).from_writer(f))
        };
        let mut tables = Vec::new();
        for (t, path) in lock.probe_columns.tables.iter().zip(&table_paths) {
            tables.push((t.clone(), append(path)?));
        }
        Ok(Store {
            runs: append(&runs_path)?,
            flows: append(&flows_path)?,
            index: append(&index_path)?,
            tables,
            completed,
            rerun,
            dir: dir.to_path_buf(),
            keys: lock.keys.clone(),
            probe_columns: lock.probe_columns.clone(),
        })
    }

    /// Whether run (point, replicate) is stored.
    pub fn is_done(&self, point: u32, replicate: u32) -> bool {
        self.completed.contains(&(point, replicate))
    }
    /// Runs stored.
    pub fn completed(&self) -> usize {
        self.completed.len()
    }

    /// Records a finished run: flow rows first, then its run row, then its index row (flow row
    /// count and checksums) that marks it complete.
    pub fn append(
        &mut self,
        point: &Point,
        replicate: u32,
        result: &RunResult,
    ) -> Result<(), SweepError> {
        let prefix = |row: &mut Vec<String>| {
            row.push(point.index.to_string());
            row.push(replicate.to_string());
            row.extend(point.cells.iter().cloned());
        };
        // The built-in columns, then the probe columns the header names (fixed before any run).
        let flow_width = own_fields(&FlowRecord::default(), &self.keys).len();
        let run_width = own_fields(&RunRecord::default(), &self.keys).len();
        self.append_tables(point, replicate, result)?;
        let flows_path = self.dir.join(FLOWS_FILE);
        let mut flows_hash = 0u64;
        for f in &result.flows {
            let mut row = Vec::new();
            prefix(&mut row);
            row.extend(with_probe_columns(
                own_fields(f, &self.keys),
                flow_width,
                &self.probe_columns.flow,
                FLOWS_FILE,
            )?);
            flows_hash = flows_hash.wrapping_add(row_hash(row.iter().map(String::as_str)));
            self.flows
                .write_record(&row)
                .map_err(|e| store_err(&flows_path, e))?;
        }
        self.flows.flush().map_err(|e| store_err(&flows_path, e))?;
        let runs_path = self.dir.join(RUNS_FILE);
        let mut row = Vec::new();
        prefix(&mut row);
        row.extend(with_probe_columns(
            own_fields(&result.run, &self.keys),
            run_width,
            &self.probe_columns.run,
            RUNS_FILE,
        )?);
        self.runs
            .write_record(&row)
            .map_err(|e| store_err(&runs_path, e))?;
        self.runs.flush().map_err(|e| store_err(&runs_path, e))?;
        let index_path = self.dir.join(INDEX_FILE);
        self.index
            .write_record([
                point.index.to_string(),
                replicate.to_string(),
                result.flows.len().to_string(),
                format!("0x{:016x}", row_hash(row.iter().map(String::as_str))),
                format!("0x{flows_hash:016x}"),
            ])
            .map_err(|e| store_err(&index_path, e))?;
        self.index.flush().map_err(|e| store_err(&index_path, e))?;
        self.completed.insert((point.index, replicate));
        Ok(())
    }

    /// Appends the run's probe tables to their files (each row after `point` and `replicate`),
    /// refusing a table the probes did not declare or whose columns differ from the
    /// declaration (the file's header is fixed before the first run).
    fn append_tables(
        &mut self,
        point: &Point,
        replicate: u32,
        result: &RunResult,
    ) -> Result<(), SweepError> {
        for t in &result.probe_tables {
            let Some((declared, w)) = self.tables.iter_mut().find(|(d, _)| d.file == t.file) else {
                let declared: Vec<&str> =
                    self.tables.iter().map(|(d, _)| d.file.as_str()).collect();
                return Err(SweepError::Store(format!(
                    "a probe wrote table {}, which its ProbeExtension::columns does not declare \
                     (declared: {declared:?}); a sweep fixes its files before the first run",
                    t.file
                )));
            };
            if declared.columns != t.header {
                return Err(SweepError::Store(format!(
                    "a probe wrote table {} with columns {:?}, but declared {:?} in its \
                     ProbeExtension::columns",
                    t.file, t.header, declared.columns
                )));
            }
            let path = self.dir.join(&t.file);
            for row in &t.rows {
                let mut fields = vec![point.index.to_string(), replicate.to_string()];
                fields.extend(row.iter().map(crate::fields::probe_field));
                w.write_record(&fields).map_err(|e| store_err(&path, e))?;
            }
        }
        for (t, w) in &mut self.tables {
            w.flush()
                .map_err(|e| store_err(&self.dir.join(&t.file), e))?;
        }
        Ok(())
    }
}

/// Rewrites runs.csv and flows.csv of `dir` in (point, replicate[, flow]) order and writes
/// summary.csv (censored runs treated by the lock's rule). Returns the number of runs.
pub fn finalize(dir: &Path, lock: &Lock) -> Result<u64, SweepError> {
    for f in [RUNS_FILE, FLOWS_FILE, INDEX_FILE] {
        repair(&dir.join(f))?;
    }
    for t in &lock.probe_columns.tables {
        repair(&dir.join(&t.file))?;
    }
    write_final(&[dir.to_path_buf()], dir, lock)
}

/// Writes `out`'s sorted runs.csv, flows.csv and runs.index.csv from the rows of the `sources`
/// folders (a run present in two sources is kept once) and computes summary.csv. Every run of
/// every source must be complete (its files agree with its index row): otherwise refused,
/// naming the runs, before anything is written. The sources are only read.
pub fn write_final(sources: &[PathBuf], out: &Path, lock: &Lock) -> Result<u64, SweepError> {
    let (rh, fh) = (run_header(lock), flow_header(lock));
    let mut complete = HashSet::new();
    for src in sources {
        let (ok, problems) = verify_folder(src, lock)?;
        if !problems.is_empty() {
            let shown: Vec<&str> = problems.iter().take(5).map(String::as_str).collect();
            return Err(SweepError::Store(format!(
                "{} has {} incomplete or altered run(s): {}{}. Run `{} sweep` on it again (same config and --shard) to redo them",
                src.display(),
                problems.len(),
                shown.join("; "),
                if problems.len() > shown.len() {
                    "; ..."
                } else {
                    ""
                },
                incastsim_scenario::config::program::name()
            )));
        }
        complete.extend(ok);
    }
    let runs_out = out.join(RUNS_FILE);
    let run_files: Vec<PathBuf> = sources.iter().map(|d| d.join(RUNS_FILE)).collect();
    let n = sort_rows(
        &run_files,
        &runs_out,
        &rh,
        |r, _| run_key(r),
        |k| complete.contains(&(k.0, k.1)),
    )?;
    let index_files: Vec<PathBuf> = sources.iter().map(|d| d.join(INDEX_FILE)).collect();
    sort_rows(
        &index_files,
        &out.join(INDEX_FILE),
        &index_header(),
        |r, _| run_key(r),
        |k| complete.contains(&(k.0, k.1)),
    )?;
    let flow_files: Vec<PathBuf> = sources.iter().map(|d| d.join(FLOWS_FILE)).collect();
    let fc = flow_column(&fh);
    sort_rows(
        &flow_files,
        &out.join(FLOWS_FILE),
        &fh,
        |r, _| flow_key(r, fc),
        |k| complete.contains(&(k.0, k.1)),
    )?;
    for t in &lock.probe_columns.tables {
        let files: Vec<PathBuf> = sources.iter().map(|d| d.join(&t.file)).collect();
        sort_rows(
            &files,
            &out.join(&t.file),
            &table_header(t),
            table_key(),
            |k| complete.contains(&(k.0, k.1)),
        )?;
    }
    write_summary(
        &out.join(SUMMARY_FILE),
        &lock.keys,
        &rh,
        &runs_out,
        lock.censored,
    )?;
    Ok(n)
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
    let header = format!(
        "# The sweep as run (after --set overrides). `{} sweep` on this file reproduces it.\n",
        incastsim_scenario::config::program::name()
    );
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
