//! The user guide (docs/, an mdBook) and README.md stay true: the output reference lists exactly
//! the columns the code writes, and every relative link points to a file that exists.
//!
//! The CSV headers come from the writers themselves (`output::csv_tables` of no results writes
//! each file's header from a default record), so no simulation runs here.

use incastsim::output::{csv_bytes, csv_tables};
use incastsim::scenario::results::metrics::{
    PfcDeadlockRecord, PfcFlowRecord, PfcRecord, PfcSummaryRecord, SharedBufferRecord,
};
use incastsim::sweep::store::SUMMARY_COLUMNS;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The page of the guide that documents every CSV column.
const OUTPUT_PAGE: &str = "docs/outputs.md";

fn header_of(bytes: &[u8]) -> Vec<String> {
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(first);
    let record = r.records().next().expect("a header row").unwrap();
    record.iter().map(str::to_string).collect()
}

/// Each CSV file the output reference documents, with the header the code writes.
fn written_headers() -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for (file, bytes) in csv_tables(&[]).unwrap() {
        out.insert(file, header_of(&bytes));
    }
    // A RoCE run under a rate controller adds its state view to flows.csv.
    out.get_mut("flows.csv")
        .expect("flows.csv")
        .extend(incastsim::scenario::engine::roce::RDMA_VALUE_NAMES.map(String::from));
    let shared = csv_bytes::<SharedBufferRecord>(&[]).unwrap();
    out.insert("shared_buffers.csv".to_string(), header_of(&shared));
    let pfc = csv_bytes::<PfcRecord>(&[]).unwrap();
    out.insert("pfc.csv".to_string(), header_of(&pfc));
    let deadlocks = csv_bytes::<PfcDeadlockRecord>(&[]).unwrap();
    out.insert("pfc_deadlocks.csv".to_string(), header_of(&deadlocks));
    let flows = csv_bytes::<PfcFlowRecord>(&[]).unwrap();
    out.insert("pfc_flows.csv".to_string(), header_of(&flows));
    let summary = csv_bytes::<PfcSummaryRecord>(&[]).unwrap();
    out.insert("pfc_summary.csv".to_string(), header_of(&summary));
    // A run with collectives writes their two tables.
    use incastsim::scenario::results::collectives as c;
    out.insert(
        c::COLLECTIVES_FILE.to_string(),
        c::COLLECTIVES_COLUMNS.map(String::from).to_vec(),
    );
    out.insert(
        c::STEPS_FILE.to_string(),
        c::STEP_COLUMNS.map(String::from).to_vec(),
    );
    // A sweep's summary.csv: the point, one column per swept key (none in a sweep of seeds
    // alone), then the statistics.
    let mut summary = vec!["point".to_string()];
    summary.extend(SUMMARY_COLUMNS.iter().map(|c| c.to_string()));
    out.insert("summary.csv".to_string(), summary);
    out
}

/// The code spans of `text` in order, each with whether an ellipsis (`…`) stands between it and
/// the span before it.
fn spans_with_ellipsis(text: &str) -> Vec<(&str, bool)> {
    let parts: Vec<&str> = text.split('`').collect();
    let mut out = Vec::new();
    let mut i = 1;
    while i < parts.len() {
        let between = parts[i - 1];
        out.push((parts[i], !out.is_empty() && between.contains('…')));
        i += 2;
    }
    out
}

/// `a_{b,c}_{d,e}` → `a_b_d`, `a_b_e`, `a_c_d`, `a_c_e`.
fn expand_braces(name: &str) -> Vec<String> {
    let Some(open) = name.find('{') else {
        return vec![name.to_string()];
    };
    let close = open + name[open..].find('}').expect("a closing brace");
    let (head, tail) = (&name[..open], &name[close + 1..]);
    name[open + 1..close]
        .split(',')
        .flat_map(|alt| expand_braces(&format!("{head}{}{tail}", alt.trim())))
        .collect()
}

/// `x_1` … `x_7`: the names from after the first to the last (the first is already listed).
fn expand_range(first: &str, last: &str) -> Vec<String> {
    let split = |s: &str| {
        let digits = s.len() - s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (prefix, n) = s.split_at(s.len() - digits);
        (prefix.to_string(), n.parse::<u32>().ok())
    };
    let (p1, a) = split(first);
    let (p2, b) = split(last);
    match (a, b) {
        (Some(a), Some(b)) if p1 == p2 && a < b => {
            (a + 1..=b).map(|i| format!("{p1}{i}")).collect()
        }
        _ => panic!("{OUTPUT_PAGE}: `{first}` … `{last}` is not a numbered range"),
    }
}

/// The first cell of a table row (a `|` inside a code span does not end it), or `None` for a
/// line that is not a table row.
fn first_cell(line: &str) -> Option<&str> {
    let rest = line.trim().strip_prefix('|')?;
    let mut in_code = false;
    for (i, c) in rest.char_indices() {
        match c {
            '`' => in_code = !in_code,
            '|' if !in_code => return Some(rest[..i].trim()),
            _ => {}
        }
    }
    None
}

/// The columns the page documents, per CSV file: under each `##` heading that names a `*.csv`
/// file in a code span, the code spans in the first cell of every table row.
fn documented_columns(page: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut file: Option<String> = None;
    let mut in_fence = false;
    for line in page.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if line.starts_with('#') {
            file = if line.starts_with("## ") {
                spans_with_ellipsis(line)
                    .into_iter()
                    .map(|(s, _)| s)
                    .find(|s| s.ends_with(".csv"))
                    .map(str::to_string)
            } else {
                None
            };
            continue;
        }
        let (Some(file), Some(cell)) = (&file, first_cell(line)) else {
            continue;
        };
        if cell == "column" || cell.starts_with("---") || cell.is_empty() {
            continue;
        }
        let columns = out.entry(file.clone()).or_default();
        let spans = spans_with_ellipsis(cell);
        assert!(
            !spans.is_empty(),
            "{OUTPUT_PAGE}, {file}: a row names no column in backticks: {line}"
        );
        let mut previous: Option<&str> = None;
        for (span, after_ellipsis) in spans {
            if after_ellipsis {
                columns.extend(expand_range(previous.expect("a first name"), span));
            } else {
                columns.extend(expand_braces(span));
            }
            previous = Some(span);
        }
    }
    out
}

#[test]
fn the_output_reference_lists_every_written_column_and_no_other() {
    let page = std::fs::read_to_string(repo().join(OUTPUT_PAGE)).unwrap();
    let documented = documented_columns(&page);
    let written = written_headers();
    let mut problems = Vec::new();
    for (file, header) in &written {
        let Some(doc) = documented.get(file) else {
            problems.push(format!(
                "{file}: no `## `{file}`` section with a column table"
            ));
            continue;
        };
        let mut seen = BTreeSet::new();
        for c in doc {
            if !seen.insert(c.as_str()) {
                problems.push(format!("{file}: `{c}` is documented twice"));
            }
        }
        let header_set: BTreeSet<&str> = header.iter().map(String::as_str).collect();
        for c in header.iter().filter(|c| !seen.contains(c.as_str())) {
            problems.push(format!(
                "{file}: column `{c}` is written but not documented"
            ));
        }
        for c in seen.iter().filter(|c| !header_set.contains(*c)) {
            problems.push(format!(
                "{file}: column `{c}` is documented but not written"
            ));
        }
    }
    for file in documented.keys().filter(|f| !written.contains_key(*f)) {
        problems.push(format!(
            "{file}: documented in {OUTPUT_PAGE}, but this test does not know its header"
        ));
    }
    assert!(
        problems.is_empty(),
        "{OUTPUT_PAGE}:\n{}",
        problems.join("\n")
    );
}

/// README.md and every Markdown file under docs/.
fn markdown_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut out = vec![repo().join("README.md")];
    walk(&repo().join("docs"), &mut out);
    out.sort();
    out
}

/// The targets of the Markdown links and images of `text` (`](target)`, `](target "title")`,
/// `[label]: target`), outside code blocks and code spans.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        // Code spans are not links: drop them (every other piece is outside one).
        let plain: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = plain.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let end = after.find(')').unwrap_or(after.len());
            let target = after[..end].split_whitespace().next().unwrap_or_default();
            out.push(target.trim_matches(['<', '>']).to_string());
            rest = &after[end..];
        }
        let trimmed = plain.trim_start();
        if trimmed.starts_with('[')
            && let Some(i) = trimmed.find("]: ")
            && let Some(target) = trimmed[i + 3..].split_whitespace().next()
        {
            out.push(target.to_string());
        }
    }
    out
}

fn is_external(target: &str) -> bool {
    target.is_empty()
        || target.starts_with('#')
        || target.contains("://")
        || target.starts_with("mailto:")
}

/// The file a relative link points to (its anchor dropped).
fn resolve(from: &Path, target: &str) -> PathBuf {
    let path = target.split('#').next().unwrap_or_default();
    from.parent().unwrap().join(path)
}

#[test]
fn every_relative_link_in_readme_and_the_guide_points_to_a_file() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        for target in link_targets(&text) {
            if is_external(&target) {
                continue;
            }
            checked += 1;
            if !resolve(&file, &target).exists() {
                let name = file.strip_prefix(repo()).unwrap_or(&file).display();
                broken.push(format!("{name}: ({target})"));
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} relative links found: is the parser broken?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// mdBook renders only the pages in docs/SUMMARY.md and copies only what is under docs/: a link
/// from a page of the book to another .md file must name a page of the book, and no link may
/// leave docs/, or it breaks in the rendered book (mdBook does not check links).
#[test]
fn the_books_links_stay_inside_the_book() {
    let docs = repo().join("docs").canonicalize().unwrap();
    let summary_path = docs.join("SUMMARY.md");
    let summary = std::fs::read_to_string(&summary_path).unwrap();
    let pages: BTreeSet<PathBuf> = link_targets(&summary)
        .iter()
        .map(|t| resolve(&summary_path, t).canonicalize().unwrap())
        .collect();
    let mut problems = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        let name = page.strip_prefix(&docs).unwrap().display().to_string();
        for target in link_targets(&text) {
            if is_external(&target) {
                continue;
            }
            let Ok(to) = resolve(page, &target).canonicalize() else {
                continue; // a missing file: the test above names it
            };
            if !to.starts_with(&docs) {
                problems.push(format!("{name}: ({target}) leaves docs/"));
            } else if to.extension().is_some_and(|x| x == "md") && !pages.contains(&to) {
                problems.push(format!(
                    "{name}: ({target}) is not a page of docs/SUMMARY.md"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_column_patterns_expand_as_the_page_says() {
    assert_eq!(
        expand_braces("a_{b,c}_{d,e}"),
        ["a_b_d", "a_b_e", "a_c_d", "a_c_e"]
    );
    assert_eq!(
        expand_range("rto_run_1", "rto_run_3"),
        ["rto_run_2", "rto_run_3"]
    );
    let page = "## `x.csv`\n\n| column | meaning |\n|---|---|\n\
                | `a`, `r_1` … `r_3`, `f_{p,q}` | `not_a_column` |\n| `b\\|c` | x |\n";
    let cols = &documented_columns(page)["x.csv"];
    assert_eq!(cols, &["a", "r_1", "r_2", "r_3", "f_p", "f_q", "b\\|c"]);
    assert_eq!(
        link_targets("[a](x.md#y) `[b](no.md)` ![c](d.png \"t\")\n```\n[e](f.md)\n```\n[g]: h.md"),
        ["x.md#y", "d.png", "h.md"]
    );
}
