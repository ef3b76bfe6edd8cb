//! ARCHITECTURE.md stays true: every file path it names exists, every `Type::function` it
//! names is a type and a function defined in the workspace's sources, every chain of its
//! "Where things happen" table is a real call path (each caller's body calls the next name),
//! and no crate's modules import each other around a circle.

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

/// Every crate under `crates/` (and the benches), by its source folder.
fn crate_sources() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(repo().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    out.push(repo().join("benches"));
    out.sort();
    out
}

/// A module and its own child module may refer to each other (`mod.rs` re-exports what a child
/// defines; the child uses the parent's shared helpers through `super::`): these pairs, and
/// only these, may form a loop. Listed by hand so a new one is a decision.
const PARENT_CHILD_LOOPS: &[(&str, &str)] = &[
    // None today: a parent names its children by relative `mod`/`use` paths (not counted), and
    // children reach the parent through `super::`. Add ("crate/src/a/mod.rs", "crate/src/a/b.rs").
];

fn loop_allowed(a: &Path, b: &Path) -> bool {
    let crates = repo().join("crates");
    let rel = |p: &Path| {
        p.strip_prefix(&crates)
            .map(|r| r.display().to_string())
            .unwrap_or_default()
    };
    let (a, b) = (rel(a), rel(b));
    PARENT_CHILD_LOOPS
        .iter()
        .any(|&(p, c)| (a == p && b == c) || (a == c && b == p))
}

/// No two source files of a crate import each other, directly or around a circle (every
/// crate; parent ↔ child pairs only where `PARENT_CHILD_LOOPS` allows them).
#[test]
fn no_module_circles() {
    let sources = crate_sources();
    assert!(sources.len() >= 13, "{} crates found", sources.len());
    for src in sources {
        let krate = src.display().to_string();
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
                    && !loop_allowed(&files[i], &files[j])
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
                panic!("{krate}: modules import each other: {names:?}");
            }
        }
    }
}

/// The text with every parenthesized part removed (nesting counted), so a chain's names are
/// the ones outside remarks such as "(`crates/...`; an extension's: `X::y`)".
fn outside_parentheses(text: &str) -> String {
    let mut depth = 0usize;
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// The `Type::name` spans of `text`, in order.
fn type_paths(text: &str) -> Vec<(String, String)> {
    code_spans(text)
        .into_iter()
        .filter_map(|span| {
            let (ty, name) = span.trim().trim_end_matches("()").split_once("::")?;
            (is_ident(ty) && is_ident(name) && ty.starts_with(|c: char| c.is_ascii_uppercase()))
                .then(|| (ty.to_string(), name.to_string()))
        })
        .collect()
}

/// The pairs (caller, callee) of every chain in the "Where things happen" table: in each
/// answer, the last name before a `→` and the first name after it.
fn chains(architecture: &str) -> Vec<((String, String), (String, String))> {
    let start = architecture.find("## Where things happen").unwrap();
    let section = &architecture[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |e| e + 3);
    let mut pairs = Vec::new();
    for line in section[..end].lines().filter(|l| l.starts_with("| ")) {
        let answer = line.splitn(3, '|').nth(2).unwrap_or("");
        let segments: Vec<Vec<(String, String)>> = outside_parentheses(answer)
            .split('→')
            .map(type_paths)
            .collect();
        for w in segments.windows(2) {
            if let (Some(from), Some(to)) = (w[0].last(), w[1].first()) {
                pairs.push((from.clone(), to.clone()));
            }
        }
    }
    pairs
}

/// The body of every `fn name` in an `impl` block of `ty` (or `impl Trait for ty`), or in the
/// trait `ty`, across `sources` (one string per file).
fn bodies_of(sources: &[String], ty: &str, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for text in sources {
        let mut at = 0;
        while let Some(i) = text[at..].find("impl") {
            let i = at + i;
            at = i + 4;
            let header_end = match text[i..].find('{') {
                Some(e) => i + e,
                None => break,
            };
            let header = &text[i..header_end];
            let is_block = text[..i].ends_with('\n') || text[..i].ends_with(' ');
            let words: Vec<&str> = header
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            let names_type = match words.iter().position(|w| *w == "for") {
                Some(f) => words.get(f + 1) == Some(&ty),
                None => words.iter().skip(1).any(|w| *w == ty) && !header.contains("fn "),
            };
            let trait_block = header.trim_start().starts_with("trait");
            if !is_block || !(names_type || trait_block) {
                continue;
            }
            let block = &text[header_end..header_end + matching_brace(&text[header_end..])];
            for pat in [format!("fn {name}("), format!("fn {name}<")] {
                let mut from = 0;
                while let Some(k) = block[from..].find(&pat) {
                    let k = from + k;
                    from = k + pat.len();
                    if let Some(open) = block[k..].find('{') {
                        let b = &block[k + open..];
                        out.push(b[..matching_brace(b)].to_string());
                    }
                }
            }
        }
    }
    out
}

/// The length of the braced block `text` starts with (up to and including its closing brace).
fn matching_brace(text: &str) -> usize {
    let mut depth = 0i64;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    text.len()
}

/// `body` calls `name`: `name(`, `.name(` or `name::<` not preceded by an identifier character.
fn calls(body: &str, name: &str) -> bool {
    body.match_indices(name).any(|(i, _)| {
        let before = body[..i].chars().next_back();
        let after = &body[i + name.len()..];
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            && (after.starts_with('(') || after.starts_with("::<"))
    })
}

fn rust_files(dir: &Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            if !p.ends_with("target") {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(std::fs::read_to_string(&p).unwrap());
        }
    }
}

/// Each chain `A::f` → `B::g` of "Where things happen" is a call: f's body calls g.
/// `Event::X` → `T::h`: a line dispatching `Event::X` calls h. A name that is not on the real
/// path (e.g. `Network::enqueue` between `Network::forward` and `OutputPort::enqueue`, which
/// only the probed path takes) fails.
#[test]
fn every_chain_in_where_things_happen_is_a_real_call() {
    let text = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    let mut sources = Vec::new();
    rust_files(&repo().join("crates"), &mut sources);
    let pairs = chains(&text);
    assert!(pairs.len() >= 15, "only {} chain links found", pairs.len());
    let mut broken = Vec::new();
    for ((from_ty, from), (_, to)) in &pairs {
        let ok = if from_ty == "Event" {
            sources
                .iter()
                .any(|s| event_arms(s, from).iter().any(|arm| calls(arm, to)))
        } else {
            bodies_of(&sources, from_ty, from)
                .iter()
                .any(|b| calls(b, to))
        };
        if !ok {
            broken.push(format!("{from_ty}::{from} does not call {to}"));
        }
    }
    assert!(
        broken.is_empty(),
        "ARCHITECTURE.md names a call path that is not the code's: {broken:#?}"
    );
}

/// The match arms of `Event::{kind}` in `text`: from the pattern to the next `Event::`.
fn event_arms<'a>(text: &'a str, kind: &str) -> Vec<&'a str> {
    let pattern = format!("Event::{kind}");
    let n = pattern.len();
    text.match_indices(&pattern)
        .map(|(i, _)| &text[i + n..])
        .filter(|rest| {
            let rest = rest.trim_start();
            rest.starts_with("=>") || rest.starts_with('{') || rest.starts_with('(')
        })
        .map(|arm| &arm[..arm.find("Event::").unwrap_or(arm.len())])
        .collect()
}

/// The chain check itself: the packet row with `Network::enqueue` put back (as it read before
/// issue 36) is refused, and the real row is accepted.
#[test]
fn the_chain_check_refuses_a_name_off_the_path() {
    let mut sources = Vec::new();
    rust_files(&repo().join("crates"), &mut sources);
    let check = |row: &str| {
        chains(&format!(
            "## Where things happen\n\n| q | a |\n|---|---|\n{row}\n"
        ))
        .iter()
        .all(|((ty, f), (_, g))| bodies_of(&sources, ty, f).iter().any(|b| calls(b, g)))
    };
    assert!(!check(
        "| packet | `Network::on_head_arrival` → `Network::forward` → `Network::enqueue` (`crates/scenario/src/engine/network.rs`) → `OutputPort::enqueue` |"
    ));
    assert!(check(
        "| packet | `Network::arrive` → `Network::forward` → `Network::offer` → `Network::offer_to` → `OutputPort::enqueue` |"
    ));
}
