//! ARCHITECTURE.md stays true: every file path it names exists, and every `Type::function` it
//! names is a type and a function defined in the workspace's sources.

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_sources(dir: &Path, out: &mut String) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            if !p.ends_with("target") {
                rust_sources(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push_str(&std::fs::read_to_string(&p).unwrap());
            out.push('\n');
        }
    }
}

/// The text between backticks, in order.
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

#[test]
fn every_named_file_and_function_exists() {
    let text = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    let mut sources = String::new();
    rust_sources(&repo().join("crates"), &mut sources);
    rust_sources(&repo().join("benches"), &mut sources);
    let mut missing = Vec::new();
    let (mut paths, mut functions) = (0, 0);
    for span in code_spans(&text) {
        let span = span.trim().trim_end_matches("()");
        if span.starts_with("crates/") || span.starts_with("configs/") || span.starts_with("tests/")
        {
            paths += 1;
            if !repo().join(span).exists() {
                missing.push(format!("file {span}"));
            }
            continue;
        }
        let Some((ty, func)) = span.split_once("::") else {
            continue;
        };
        if !is_ident(ty) || !is_ident(func) || !ty.starts_with(|c: char| c.is_ascii_uppercase()) {
            continue;
        }
        functions += 1;
        let has_type = ["struct", "enum", "trait", "type"]
            .iter()
            .any(|k| sources.contains(&format!("{k} {ty}")));
        // A function, or an enum variant (`Event::Rto`).
        let has_item = sources.contains(&format!("fn {func}("))
            || sources.contains(&format!("fn {func}<"))
            || sources.contains(&format!("    {func} {{"))
            || sources.contains(&format!("    {func}("))
            || sources.contains(&format!("    {func},"));
        if !has_type || !has_item {
            missing.push(format!("{ty}::{func}"));
        }
    }
    assert!(
        paths >= 10 && functions >= 10,
        "{paths} paths, {functions} names checked"
    );
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names what no longer exists: {missing:?}"
    );
}
