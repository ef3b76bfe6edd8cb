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

/// The module path of a source file under `src/` ("engine::apps::udp"; "" for lib.rs).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// The file that defines the longest existing prefix of `path` (a module path).
fn file_of(src: &Path, path: &[String]) -> Option<PathBuf> {
    for n in (1..=path.len()).rev() {
        let base = path[..n].join("/");
        for candidate in [
            src.join(format!("{base}.rs")),
            src.join(&base).join("mod.rs"),
        ] {
            if candidate.exists() {
                return Some(candidate);
            }
        }
    }
    None
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files_under(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Module paths a file refers to through `crate::` or `super::` (not `mod` declarations).
fn references(text: &str, own: &[String], is_mod_file: bool) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (prefix, base) in [
        ("crate::", Vec::new()),
        ("super::", {
            // `super` of a.rs is its parent module; of a/mod.rs, the parent of `a`.
            let mut b = own.to_vec();
            if !is_mod_file || !b.is_empty() {
                b.pop();
            }
            b
        }),
    ] {
        for (i, _) in text.match_indices(prefix) {
            if text[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &text[i + prefix.len()..];
            let mut path = base.clone();
            for seg in rest.split("::") {
                let seg: String = seg
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if seg.is_empty() || seg.starts_with(|c: char| c.is_ascii_uppercase()) {
                    break;
                }
                path.push(seg);
            }
            out.push(path);
        }
    }
    out
}

/// No two source files of a crate import each other, directly or around a circle.
#[test]
fn no_module_circles() {
    for krate in [
        "sim-core", "switch", "tcp", "schemes", "config", "scenario", "sweep",
    ] {
        let src = repo().join("crates").join(krate).join("src");
        let mut files = Vec::new();
        files_under(&src, &mut files);
        files.sort();
        let index = |p: &Path| files.iter().position(|f| f == p);
        let mut edges = vec![Vec::new(); files.len()];
        for (i, f) in files.iter().enumerate() {
            let text = std::fs::read_to_string(f).unwrap();
            // Tests may reach anywhere: only the code before `#[cfg(test)]` counts.
            let code: String = text
                .split("#[cfg(test)]")
                .next()
                .unwrap()
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            let own = module_of(&src, f);
            let is_mod = f
                .file_name()
                .is_some_and(|n| n == "mod.rs" || n == "lib.rs");
            for r in references(&code, &own, is_mod) {
                if let Some(j) = file_of(&src, &r).and_then(|p| index(&p))
                    && j != i
                    && !edges[i].contains(&j)
                {
                    edges[i].push(j);
                }
            }
        }
        // Depth-first search for a back edge.
        fn visit(n: usize, e: &[Vec<usize>], st: &mut [u8], stack: &mut Vec<usize>) -> bool {
            if st[n] == 2 {
                return false;
            }
            if st[n] == 1 {
                stack.push(n);
                return true;
            }
            st[n] = 1;
            stack.push(n);
            for &m in &e[n] {
                if visit(m, e, st, stack) {
                    return true;
                }
            }
            stack.pop();
            st[n] = 2;
            false
        }
        let mut st = vec![0u8; files.len()];
        for n in 0..files.len() {
            let mut stack = Vec::new();
            if visit(n, &edges, &mut st, &mut stack) {
                let names: Vec<String> = stack
                    .iter()
                    .map(|&k| files[k].strip_prefix(&src).unwrap().display().to_string())
                    .collect();
                panic!("crates/{krate}: modules import each other: {names:?}");
            }
        }
    }
}
