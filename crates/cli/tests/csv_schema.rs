//! Issue 17, finding 9: every CSV of the golden outputs (every shipped config, runs and sweeps)
//! has a header and reads with pandas' default reader into the documented dtypes: each column
//! is all integers, all numbers, all booleans (`true`/`false`) or text, a missing value is an
//! empty field (never `NaN`, `nan` or `inf` text), and a column has the same dtype in every
//! output that has it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Dtype {
    /// Only empty fields (pandas: float64, all NaN).
    Empty,
    Int,
    Float,
    Bool,
    Text,
}

/// Texts pandas' default reader takes for a missing value besides the empty field
/// (`na_values`): none may appear, so nothing turns into NaN by accident.
const PANDAS_NA: &[&str] = &[
    "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
    "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
];

fn dtype_of(field: &str) -> Dtype {
    if field.is_empty() {
        Dtype::Empty
    } else if field.parse::<i64>().is_ok() || field.parse::<u64>().is_ok() {
        Dtype::Int
    } else if field == "true" || field == "false" {
        Dtype::Bool
    } else if field.parse::<f64>().is_ok_and(f64::is_finite) {
        Dtype::Float
    } else {
        Dtype::Text
    }
}

/// The dtype of a column from its fields' (int and float make float; empty joins any).
fn join(a: Dtype, b: Dtype) -> Result<Dtype, String> {
    use Dtype::*;
    Ok(match (a, b) {
        (x, y) if x == y => x,
        (Empty, x) | (x, Empty) => x,
        (Int, Float) | (Float, Int) => Float,
        (x, y) => return Err(format!("{x:?} and {y:?} in one column")),
    })
}

fn csv_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            csv_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "csv") {
            out.push(p);
        }
    }
}

#[test]
fn every_golden_csv_has_one_dtype_per_column_and_empty_missing_values() {
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden");
    let mut files = Vec::new();
    csv_files(&golden, &mut files);
    files.sort();
    assert!(files.len() > 50, "{} CSV files", files.len());
    // (file name, column) -> dtype over every output.
    let mut across: BTreeMap<(String, String), (Dtype, PathBuf)> = BTreeMap::new();
    for path in &files {
        let mut reader = csv::ReaderBuilder::new()
            .flexible(true)
            .from_path(path)
            .unwrap();
        let header: Vec<String> = reader
            .headers()
            .unwrap_or_else(|e| panic!("{}: no header: {e}", path.display()))
            .iter()
            .map(String::from)
            .collect();
        assert!(
            !header.is_empty() && header.iter().all(|h| !h.is_empty()),
            "{}: header {header:?}",
            path.display()
        );
        let mut dtypes = vec![Dtype::Empty; header.len()];
        for (n, record) in reader.records().enumerate() {
            let record = record.unwrap();
            let fields: Vec<&str> = record.iter().collect();
            assert_eq!(
                fields.len(),
                header.len(),
                "{} row {}: {fields:?}",
                path.display(),
                n + 1
            );
            for (c, f) in fields.iter().enumerate() {
                assert!(
                    !PANDAS_NA.contains(f) && !matches!(*f, "inf" | "-inf" | "Infinity"),
                    "{} column {}: {f:?} (a missing value is an empty field)",
                    path.display(),
                    header[c]
                );
                dtypes[c] = join(dtypes[c], dtype_of(f))
                    .unwrap_or_else(|e| panic!("{} column {}: {e}", path.display(), header[c]));
            }
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for (h, d) in header.iter().zip(dtypes) {
            let entry = across
                .entry((name.clone(), h.clone()))
                .or_insert((d, path.clone()));
            match join(entry.0, d) {
                // Swept values are text in one sweep and numbers in another: those columns
                // are the swept keys (with a '.' or a known config key name); others must agree.
                Ok(j) => entry.0 = j,
                Err(_) if h.contains('.') || is_swept_key(h) => {}
                Err(e) => panic!(
                    "{name} column {h}: {e} (in {} and {})",
                    entry.1.display(),
                    path.display()
                ),
            }
        }
    }
}

/// Top-level config keys a sweep may vary (their columns hold the values as written).
fn is_swept_key(h: &str) -> bool {
    matches!(h, "senders" | "seed" | "scheme" | "name")
}
