//! What every test of the template crate needs: the repository's configs, a scratch folder,
//! this crate's binary (`main_with`), and the shape of a config error.

// Each test file uses its own subset of these helpers.
#![allow(dead_code)]

use incastsim::config::Config;
use incastsim_extend_template::extensions;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (the template lives in `examples/extend`).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A shipped config by file name.
pub fn config(name: &str) -> PathBuf {
    repo().join("configs").join(name)
}

/// A fresh scratch folder for test `name` of the test file `file`.
pub fn scratch(file: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "incastsim-extend-{file}-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// This crate's binary with `args`, whatever its exit status.
pub fn try_cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_incastsim-extend-template"))
        .args(args)
        .output()
        .unwrap()
}

/// This crate's binary with `args`, which must succeed.
pub fn cli(args: &[&str]) -> Output {
    let out = try_cli(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The error of loading S1 (`incast-classic.yaml`) with `sets`, knowing this crate's
/// components.
pub fn error(sets: &[&str]) -> String {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let base = std::fs::read_to_string(config("incast-classic.yaml")).unwrap();
    Config::from_yaml_with(&base, &sets, &extensions())
        .unwrap_err()
        .to_string()
}

/// `key = value: what is allowed`, the key being the full path.
pub fn shape(e: &str) -> (&str, &str, &str) {
    let (key, rest) = e.split_once(" = ").unwrap_or_else(|| panic!("{e}"));
    let (value, allowed) = rest.split_once(": ").unwrap_or_else(|| panic!("{e}"));
    (key, value, allowed)
}

/// `incastsim run <config> --set ...` into `out`.
pub fn run(config_name: &str, sets: &[&str], out: &Path) {
    let cfg = config(config_name);
    let mut args = vec!["run", cfg.to_str().unwrap(), "--out", out.to_str().unwrap()];
    for s in sets {
        args.extend(["--set", s]);
    }
    cli(&args);
}

/// `file` (a CSV) as rows of (column, value).
pub fn table(file: &Path) -> Vec<Vec<(String, String)>> {
    let mut r = csv::Reader::from_path(file).unwrap();
    let headers = r.headers().unwrap().clone();
    r.records()
        .map(|row| {
            headers
                .iter()
                .zip(row.unwrap().iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// Column `name` of `rows`, as text.
pub fn column(rows: &[Vec<(String, String)>], name: &str) -> Vec<String> {
    rows.iter()
        .map(|row| row.iter().find(|(h, _)| h == name).unwrap().1.clone())
        .collect()
}

/// Column `name` of `rows`, as whole numbers.
pub fn numbers(rows: &[Vec<(String, String)>], name: &str) -> Vec<u64> {
    column(rows, name)
        .iter()
        .map(|v| v.parse().unwrap())
        .collect()
}

/// `rows` without `columns`.
pub fn without(rows: &[Vec<(String, String)>], columns: &[&str]) -> Vec<Vec<(String, String)>> {
    rows.iter()
        .map(|row| {
            row.iter()
                .filter(|(h, _)| !columns.contains(&h.as_str()))
                .cloned()
                .collect()
        })
        .collect()
}
