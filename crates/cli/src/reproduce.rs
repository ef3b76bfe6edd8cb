//! `incastsim reproduce <paper>`: runs a paper's sweeps and writes its reproduction report.
//!
//! What a paper claims, and the paper's numbers, live in a small data file
//! (`configs/papers/claims/<paper>.yaml`); everything else in the report is computed from the
//! sweeps' `runs.csv`: per claim, the statistic without and with randomness (each sweep has the
//! randomness key as one of its axes), its 95 % confidence interval, and a verdict. A claim
//! counts as reproduced only if it holds with randomness.
//!
//! Statistics: a mean with Student's t interval; a quantile (`stat: p95`) with the
//! distribution-free order-statistic interval; a ratio of two means with Fieller's interval
//! (independent samples, t at min(n) − 1 degrees of freedom). Runs stopped by
//! `run.max_sim_time` before their workload finished are censored: left out of the statistics
//! (their fraction is reported), unless a claim says `censored: include` (workloads that run to
//! the time limit by design).

use anyhow::{Context, Result, bail};
use incastsim::plot::{PlotRequest, plot_sweep};
use incastsim::sweep::spec::cell_value;
use incastsim::sweep::stats::{fieller_ratio_ci95, quantile_with_ci95, summarize};
use incastsim::sweep::{Sweep, run_sweep};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
mod verdict;

use verdict::{arm_verdict, estimate_text, expect_text, verdict};

#[derive(clap::Args, Debug)]
pub struct ReproduceArgs {
    /// A paper (the name of a file in configs/papers/claims/, e.g. kulkarni) or a claims file.
    paper: String,
    /// The quick variant: each sweep's `quick` overrides on top of its `set` (few seeds, short
    /// runs), for CI.
    #[arg(long)]
    quick: bool,
    /// Where the sweeps go [default: out/reproduce/<paper>, or <paper>-quick].
    #[arg(long)]
    out: Option<PathBuf>,
    /// The report [default: docs/reproductions/<paper>.md]; its plots go to a folder named
    /// after it (docs/reproductions/<paper>/).
    #[arg(long)]
    report: Option<PathBuf>,
    /// Worker threads [default: all cores]. Results do not depend on it.
    #[arg(long)]
    jobs: Option<usize>,
}

/// A paper's claims file.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Claims {
    /// The paper, as cited.
    paper: String,
    /// Its file in the seeds folder (absent: the paper is not there, and the report says so).
    #[serde(default)]
    source: Option<String>,
    /// Markdown after the title: the setting, what is not stated.
    #[serde(default)]
    about: String,
    randomness: Randomness,
    sweeps: Vec<SweepEntry>,
    claims: Vec<Claim>,
    /// Markdown sections after the claims (investigations); numbers belong in claims.
    #[serde(default)]
    findings: Vec<Finding>,
}

/// The swept key that turns randomness on, and its two values.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Randomness {
    key: String,
    without: Value,
    with: Value,
    /// What the randomness is, for the report.
    what: String,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct SweepEntry {
    id: String,
    /// A config with a `sweep:` section, relative to the working directory.
    config: PathBuf,
    /// Overrides of the full report.
    #[serde(default)]
    set: Vec<String>,
    /// Overrides added for `--quick`.
    #[serde(default)]
    quick: Vec<String>,
    #[serde(default)]
    plots: Vec<PlotEntry>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct PlotEntry {
    name: String,
    x: String,
    y: String,
    #[serde(default)]
    series: Option<String>,
    #[serde(default)]
    log_y: bool,
    /// Swept keys held at one value for this plot.
    #[serde(default)]
    fix: serde_json::Map<String, Value>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Claim {
    id: String,
    /// The claim in words.
    claim: String,
    /// Where in the paper.
    #[serde(rename = "where")]
    location: String,
    sweep: String,
    metric: String,
    #[serde(default)]
    stat: Stat,
    /// The point measured (swept key → value); with `b`, the numerator of a ratio.
    a: serde_json::Map<String, Value>,
    /// The denominator of a ratio claim.
    #[serde(default)]
    b: Option<serde_json::Map<String, Value>>,
    /// The sweep of the denominator, if not `sweep`.
    #[serde(default)]
    b_sweep: Option<String>,
    /// The paper's number, as the paper gives it.
    paper: String,
    /// The paper's number as a value, for the magnitude check.
    #[serde(default)]
    paper_value: Option<f64>,
    /// The magnitude counts as matched if the paper's value is within this relative distance
    /// of the interval (default: no magnitude check).
    #[serde(default)]
    tolerance: Option<f64>,
    /// What must hold; none: a measurement for the findings, not a claim of the paper (no
    /// verdict).
    #[serde(default)]
    expect: Option<Expect>,
    #[serde(default)]
    censored: Censored,
    /// Markdown under the claim's row (a reading, a cause).
    #[serde(default)]
    note: String,
    /// This claim is claim `variant_of` under another reading of what the paper leaves unstated
    /// (e.g. the initial window): the report's readings table says whether the verdict depends
    /// on it.
    #[serde(default)]
    variant_of: Option<String>,
    /// The reading this variant takes, in words (e.g. "IW 10"); with `variant_of`.
    #[serde(default)]
    reading: String,
}

#[derive(Deserialize, Debug, Default, Clone, Copy, PartialEq)]
#[serde(rename_all = "snake_case")]
enum Stat {
    #[default]
    Mean,
    /// The 95th percentile.
    P95,
    /// The 5th percentile (of a goodput: the 95th percentile of the completion time).
    P5,
}

#[derive(Deserialize, Debug, Default, Clone, Copy, PartialEq)]
#[serde(rename_all = "snake_case")]
enum Censored {
    #[default]
    Exclude,
    Include,
}

/// What must hold: the statistic (or ratio) above, below or between values.
#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum Expect {
    Above(f64),
    Below(f64),
    Between([f64; 2]),
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Finding {
    title: String,
    text: String,
}

/// One arm's estimate: the statistic, its 95 % interval (None = unbounded), the runs used and
/// the runs censored.
#[derive(Clone, Copy, Debug)]
struct Estimate {
    value: f64,
    ci: Option<(f64, f64)>,
    runs: usize,
    censored: usize,
    /// A ratio's denominator: its runs and censored runs.
    denominator: Option<(usize, usize)>,
}

impl Estimate {
    /// The fraction of runs censored (numerator and denominator together).
    fn censored_fraction(&self) -> f64 {
        let (r, c) = self.denominator.unwrap_or((0, 0));
        let (runs, cens) = (self.runs + r, self.censored + c);
        if runs + cens == 0 {
            0.0
        } else {
            cens as f64 / (runs + cens) as f64
        }
    }
}

/// The rows of one sweep's runs.csv: header, then rows.
struct Runs {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Runs {
    fn read(path: &Path) -> Result<Runs> {
        let mut rdr =
            csv::Reader::from_path(path).with_context(|| format!("reading {}", path.display()))?;
        let header = rdr.headers()?.iter().map(String::from).collect();
        let mut rows = Vec::new();
        for r in rdr.records() {
            rows.push(r?.iter().map(String::from).collect());
        }
        Ok(Runs { header, rows })
    }

    fn col(&self, name: &str) -> Result<usize> {
        self.header
            .iter()
            .position(|c| c == name)
            .with_context(|| format!("runs.csv has no column {name}"))
    }

    /// The metric's values over the runs of the one point matching `at`: (completed, censored).
    fn select(
        &self,
        keys: &[String],
        at: &serde_json::Map<String, Value>,
        metric: &str,
    ) -> Result<(Vec<f64>, Vec<f64>)> {
        let mut want = Vec::new();
        for (k, v) in at {
            if !keys.contains(k) {
                bail!(
                    "{k} is not a swept key of this sweep (swept: {})",
                    keys.join(", ")
                );
            }
            want.push((self.col(k)?, cell_value(v)));
        }
        let (m, done, point) = (
            self.col(metric)?,
            self.col("completed")?,
            self.col("point")?,
        );
        let mut points = std::collections::BTreeSet::new();
        let (mut ok, mut censored) = (Vec::new(), Vec::new());
        for r in &self.rows {
            if want.iter().all(|(c, v)| &r[*c] == v) {
                points.insert(r[point].clone());
                let x: f64 = r[m].parse().unwrap_or(f64::NAN);
                if r[done] == "true" {
                    ok.push(x);
                } else {
                    censored.push(x);
                }
            }
        }
        if points.len() != 1 {
            let values: Vec<String> = keys
                .iter()
                .map(|k| {
                    let c = self.col(k).unwrap_or(0);
                    let mut vs: Vec<&str> = self.rows.iter().map(|r| r[c].as_str()).collect();
                    vs.sort();
                    vs.dedup();
                    format!("{k}: {}", vs.join(" | "))
                })
                .collect();
            bail!(
                "{} points match {at:?} (give one value for every swept key; values: {})",
                points.len(),
                values.join("; ")
            );
        }
        Ok((ok, censored))
    }
}

fn estimate(
    runs: &Runs,
    keys: &[String],
    claim: &Claim,
    side: &serde_json::Map<String, Value>,
) -> Result<(Vec<f64>, Estimate)> {
    let (ok, censored) = runs.select(keys, side, &claim.metric)?;
    let values = match claim.censored {
        Censored::Exclude => ok.clone(),
        Censored::Include => ok.iter().chain(&censored).copied().collect(),
    };
    let n_censored = match claim.censored {
        Censored::Exclude => censored.len(),
        Censored::Include => 0,
    };
    let est = match claim.stat {
        Stat::Mean => {
            let s = summarize(&values);
            Estimate {
                value: s.mean,
                ci: (s.count >= 2).then_some((s.ci95_low, s.ci95_high)),
                runs: s.count,
                censored: n_censored,
                denominator: None,
            }
        }
        Stat::P95 | Stat::P5 => {
            match quantile_with_ci95(&values, if claim.stat == Stat::P95 { 0.95 } else { 0.05 }) {
                Some((q, lo, hi)) => Estimate {
                    value: q,
                    ci: Some((lo, hi)),
                    runs: values.len(),
                    censored: n_censored,
                    denominator: None,
                },
                None => Estimate {
                    value: f64::NAN,
                    ci: None,
                    runs: 0,
                    censored: n_censored,
                    denominator: None,
                },
            }
        }
    };
    Ok((values, est))
}

/// The claim's estimate in one arm (the randomness key at `arm`); `b` is the denominator's
/// sweep.
fn arm_estimate(
    (runs, keys): (&Runs, &[String]),
    b_sweep: (&Runs, &[String]),
    claim: &Claim,
    rand: &Randomness,
    arm: &Value,
) -> Result<Estimate> {
    let with_arm = |m: &serde_json::Map<String, Value>| {
        let mut m = m.clone();
        m.insert(rand.key.clone(), arm.clone());
        m
    };
    let (a_vals, a) = estimate(runs, keys, claim, &with_arm(&claim.a))?;
    let Some(b_side) = &claim.b else {
        return Ok(a);
    };
    if claim.stat != Stat::Mean {
        bail!("claim {}: a ratio is of means (stat: mean)", claim.id);
    }
    let (b_vals, b) = estimate(b_sweep.0, b_sweep.1, claim, &with_arm(b_side))?;
    Ok(Estimate {
        value: a.value / b.value,
        ci: fieller_ratio_ci95(&a_vals, &b_vals),
        denominator: Some((b.runs, b.censored)),
        ..a
    })
}

/// A claim's verdicts, for the readings table.
struct Verdicts {
    without: String,
    with: String,
    /// The estimate with randomness, as the claims table writes it.
    estimate: String,
}

/// The readings table: each claim evaluated under another reading of something the paper does
/// not state (`variant_of`), next to the claim under the default reading, and whether the
/// verdict with randomness depends on the reading.
fn readings_table(
    md: &mut String,
    claims: &[Claim],
    verdicts: &BTreeMap<&str, Verdicts>,
) -> Result<()> {
    let variants: Vec<&Claim> = claims.iter().filter(|c| c.variant_of.is_some()).collect();
    if variants.is_empty() {
        return Ok(());
    }
    let _ = writeln!(
        md,
        "## Readings the verdicts may depend on\n\nEach row is a claim evaluated under another reading of what the paper does not state, next to the same claim under the default reading: verdicts without / with randomness, and the estimate with randomness.\n\n| claim | default reading | other reading | depends on it (with randomness) |\n|---|---|---|---|"
    );
    for v in variants {
        let base = v.variant_of.as_deref().expect("filtered");
        if !claims.iter().any(|c| c.id == base) {
            bail!(
                "claim {}: variant_of {base} is not a claim of this file",
                v.id
            );
        }
        let (Some(b), Some(o)) = (verdicts.get(base), verdicts.get(v.id.as_str())) else {
            // The quick variant may skip either point.
            let _ = writeln!(
                md,
                "| {base} | | {} ([{}](#{})) | not in the quick variant |",
                v.reading, v.id, v.id
            );
            continue;
        };
        let depends = if b.with == o.with {
            "no: same verdict".to_string()
        } else {
            format!("**yes**: {} → {}", b.with, o.with)
        };
        let _ = writeln!(
            md,
            "| [{base}](#{base}) | {} / {}; {} | {}: [{}](#{}) {} / {}; {} | {depends} |",
            b.without, b.with, b.estimate, v.reading, v.id, v.id, o.without, o.with, o.estimate
        );
    }
    let _ = writeln!(md);
    Ok(())
}

fn paper_name(arg: &str) -> (String, PathBuf) {
    let p = PathBuf::from(arg);
    if p.extension().is_some_and(|e| e == "yaml") {
        let stem = p
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        (stem, p)
    } else {
        (
            arg.to_string(),
            PathBuf::from("configs/papers/claims").join(format!("{arg}.yaml")),
        )
    }
}

/// Writes the summary rows of one arm (and the plot's fixed keys) to `dir/summary.csv`.
fn filtered_summary(src: &Path, dir: &Path, fixed: &[(String, String)]) -> Result<()> {
    let mut rdr =
        csv::Reader::from_path(src).with_context(|| format!("reading {}", src.display()))?;
    let header: Vec<String> = rdr.headers()?.iter().map(String::from).collect();
    let cols: Vec<(usize, &str)> = fixed
        .iter()
        .map(|(k, v)| {
            header
                .iter()
                .position(|c| c == k)
                .map(|c| (c, v.as_str()))
                .with_context(|| format!("plot: {k} is not a swept key"))
        })
        .collect::<Result<_>>()?;
    std::fs::create_dir_all(dir)?;
    let mut w = csv::Writer::from_path(dir.join("summary.csv"))?;
    w.write_record(&header)?;
    for r in rdr.records() {
        let r = r?;
        if cols.iter().all(|(c, v)| r.get(*c) == Some(v)) {
            w.write_record(&r)?;
        }
    }
    w.flush()?;
    Ok(())
}

pub fn reproduce(args: ReproduceArgs, ext: &incastsim::scenario::Extensions) -> Result<()> {
    let (name, claims_path) = paper_name(&args.paper);
    if !claims_path.exists() {
        let dir = claims_path.parent().unwrap_or(Path::new("."));
        let mut papers: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(|e| {
                let p = e.ok()?.path();
                if p.extension()? != "yaml" {
                    return None;
                }
                Some(p.file_stem()?.to_string_lossy().into_owned())
            })
            .collect();
        papers.sort();
        anyhow::bail!(
            "no paper {:?} ({} does not exist): one of {}, or a claims file's path",
            args.paper,
            claims_path.display(),
            if papers.is_empty() {
                "none found (run from the repository root)".to_string()
            } else {
                papers.join(", ")
            }
        );
    }
    let text = std::fs::read_to_string(&claims_path)
        .with_context(|| format!("reading {}", claims_path.display()))?;
    let claims: Claims = serde_saphyr::from_str(&text)
        .with_context(|| format!("invalid claims file {}", claims_path.display()))?;
    let suffix = if args.quick { "-quick" } else { "" };
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("out/reproduce").join(format!("{name}{suffix}")));
    let report = args
        .report
        .unwrap_or_else(|| PathBuf::from("docs/reproductions").join(format!("{name}.md")));
    let plot_dir = report.with_extension("");
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let rand_values = [&claims.randomness.without, &claims.randomness.with];

    // Run every sweep (resumable: a rerun reuses finished runs).
    let mut sweeps: BTreeMap<String, (Sweep, Runs, Vec<String>)> = BTreeMap::new();
    for s in &claims.sweeps {
        let mut overrides = s.set.clone();
        if args.quick {
            overrides.extend(s.quick.iter().cloned());
        }
        let sweep = Sweep::load_with(&s.config, &overrides, ext)
            .with_context(|| format!("sweep {} ({})", s.id, s.config.display()))?;
        if !sweep.keys.contains(&claims.randomness.key) {
            bail!(
                "sweep {}: the randomness key {} is not swept (add it to the grid)",
                s.id,
                claims.randomness.key
            );
        }
        let dir = out.join(&s.id);
        eprintln!(
            "{name}: sweep {} ({} points x {} seeds) into {}",
            s.id,
            sweep.points.len(),
            sweep.seeds,
            dir.display()
        );
        let progress = crate::sweep_cmd::CliProgress::new();
        run_sweep(&sweep, &dir, jobs, None, &progress)?;
        let runs = Runs::read(&dir.join("runs.csv"))?;
        sweeps.insert(s.id.clone(), (sweep, runs, overrides));
    }

    // Plots: one per arm.
    std::fs::create_dir_all(&plot_dir)?;
    let mut plots_md: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for s in &claims.sweeps {
        for p in &s.plots {
            for (arm, v) in ["without", "with"].iter().zip(rand_values) {
                let mut fixed = vec![(claims.randomness.key.clone(), cell_value(v))];
                fixed.extend(p.fix.iter().map(|(k, v)| (k.clone(), cell_value(v))));
                let tmp = out.join(&s.id).join(format!("plot-{}-{arm}", p.name));
                filtered_summary(&out.join(&s.id).join("summary.csv"), &tmp, &fixed)?;
                let req = PlotRequest {
                    x: p.x.clone(),
                    y: p.y.clone(),
                    series: p.series.clone(),
                    log_x: false,
                    log_y: p.log_y,
                    name: Some(format!("{}-{arm}-randomness", p.name)),
                    formats: Vec::new(),
                };
                let files = plot_sweep(&tmp, &req)
                    .with_context(|| format!("plot {} of sweep {}", p.name, s.id))?;
                for f in files
                    .iter()
                    .filter(|f| f.extension().is_some_and(|e| e == "png"))
                {
                    let file = f.file_name().unwrap_or_default();
                    std::fs::copy(f, plot_dir.join(file))?;
                    let rel = format!(
                        "{}/{}",
                        plot_dir.file_name().unwrap_or_default().to_string_lossy(),
                        file.to_string_lossy()
                    );
                    plots_md
                        .entry(s.id.clone())
                        .or_default()
                        .push(format!("![{} ({arm} randomness)]({rel})", p.name));
                }
            }
        }
    }

    // The report.
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Reproduction: {}\n\n<!-- Generated by `incastsim reproduce {name}{}` from {}; do not edit: edit the claims file and rerun. -->\n",
        claims.paper,
        if args.quick { " --quick" } else { "" },
        claims_path.display()
    );
    let _ = match &claims.source {
        Some(source) => writeln!(md, "Source: `../shared/seeds/{source}`.\n"),
        None => writeln!(
            md,
            "Source: not in the seeds folder; the claims paraphrase the published papers.\n"
        ),
    };
    if args.quick {
        let _ = writeln!(
            md,
            "**Quick variant** (few seeds, short runs): the numbers only show that the pipeline works.\n"
        );
    }
    if !claims.about.is_empty() {
        let _ = writeln!(md, "{}\n", claims.about.trim_end());
    }
    let _ = writeln!(
        md,
        "**Randomness.** Each sweep runs every point without and with randomness ({}: {} vs {}): {}. A claim counts as reproduced only if it holds with randomness.\n",
        claims.randomness.key,
        cell_value(&claims.randomness.without),
        cell_value(&claims.randomness.with),
        claims.randomness.what.trim()
    );
    let _ = writeln!(
        md,
        "**Statistics.** Mean ± 95 % CI (Student's t); a 95th percentile with its distribution-free order-statistic interval; a ratio of means (×) with Fieller's interval (independent samples, t at min(n) − 1 d.o.f.; \"unbounded\" when the denominator is not distinguishable from zero). Runs stopped by `run.max_sim_time` before their workload finished are censored: left out, and counted, unless the claim's workload runs to the time limit by design. Verdict: *reproduced* if the expectation holds over the whole interval with randomness; *partly* if only the estimate holds, or the size differs from the paper's beyond the claim's tolerance; *not reproduced* otherwise. The verdict without randomness applies the same rules to the runs without it; the claim's verdict is the one with randomness.\n"
    );
    let _ = writeln!(md, "## Claims\n");
    let _ = writeln!(
        md,
        "| claim | paper | expectation | without randomness | with randomness | verdict without randomness | verdict |\n|---|---|---|---|---|---|---|"
    );
    let mut details = String::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut counts_without: BTreeMap<String, usize> = BTreeMap::new();
    // Per claim id: its verdicts without and with randomness and its estimate with randomness
    // (for the readings table).
    let mut verdicts: BTreeMap<&str, Verdicts> = BTreeMap::new();
    for c in &claims.claims {
        let find = |id: &str| {
            sweeps
                .get(id)
                .map(|(s, r, _)| (r, s.keys.as_slice()))
                .with_context(|| format!("claim {}: no sweep {id}", c.id))
        };
        let a_sweep = find(&c.sweep)?;
        let b_sweep = find(c.b_sweep.as_deref().unwrap_or(&c.sweep))?;
        let arms = rand_values
            .map(|v| arm_estimate(a_sweep, b_sweep, c, &claims.randomness, v))
            .into_iter()
            .collect::<Result<Vec<_>>>();
        let (e0, e1) = match arms {
            Ok(e) => (e[0], e[1]),
            // The quick variant runs fewer points: a claim on a point it skips is listed, not
            // evaluated.
            Err(e) if args.quick && format!("{e:#}").contains("0 points match") => {
                let _ = writeln!(
                    md,
                    "| {} {} ({}) | {} | | not in the quick variant | | | |",
                    c.id,
                    c.claim.replace('|', "\\|"),
                    c.location,
                    c.paper.replace('|', "\\|")
                );
                continue;
            }
            Err(e) => return Err(e.context(format!("claim {}", c.id))),
        };
        let (v, why) = verdict(c, &e0, &e1);
        let v0 = arm_verdict(c, &e0);
        *counts.entry(v.clone()).or_default() += 1;
        *counts_without.entry(v0.clone()).or_default() += 1;
        verdicts.insert(
            &c.id,
            Verdicts {
                without: v0.clone(),
                with: v.clone(),
                estimate: estimate_text(&e1, c.b.is_some()),
            },
        );
        let ratio = c.b.is_some();
        let what = match (ratio, c.stat) {
            (true, _) => format!("{} ratio", c.metric),
            (false, Stat::P95) => format!("{} p95", c.metric),
            (false, Stat::P5) => format!("{} p5", c.metric),
            (false, Stat::Mean) => c.metric.clone(),
        };
        let _ = writeln!(
            md,
            "| [{}](#{}) {} ({}) | {} | {what} {} | {} | {} | {v0} | **{v}** |",
            c.id,
            c.id,
            c.claim.replace('|', "\\|"),
            c.location,
            c.paper.replace('|', "\\|"),
            c.expect.map(expect_text).unwrap_or_default(),
            estimate_text(&e0, ratio),
            estimate_text(&e1, ratio),
        );
        let side = |m: &serde_json::Map<String, Value>| {
            m.iter()
                .map(|(k, v)| format!("{k}={}", cell_value(v)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(details, "### {}\n", c.id);
        let _ = writeln!(
            details,
            "{} ({}). Paper: {}.\n",
            c.claim, c.location, c.paper
        );
        let _ = match &c.b {
            Some(b) => writeln!(
                details,
                "Measured: `{}` at ({}), sweep `{}`, divided by the same at ({}), sweep `{}`.\n",
                c.metric,
                side(&c.a),
                c.sweep,
                side(b),
                c.b_sweep.as_deref().unwrap_or(&c.sweep)
            ),
            None => writeln!(
                details,
                "Measured: `{}` ({}) at ({}), sweep `{}`.\n",
                c.metric,
                match c.stat {
                    Stat::Mean => "mean",
                    Stat::P95 => "95th percentile",
                    Stat::P5 => "5th percentile",
                },
                side(&c.a),
                c.sweep
            ),
        };
        let _ = writeln!(details, "**{v}.** {why}\n");
        if !c.note.is_empty() {
            let _ = writeln!(details, "{}\n", c.note.trim_end());
        }
    }
    let tally = |counts: &BTreeMap<String, usize>| {
        counts
            .iter()
            .map(|(v, n)| format!("{n} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        md,
        "\nSummary with randomness (the verdict): {}. Without randomness: {}.\n",
        tally(&counts),
        tally(&counts_without)
    );
    readings_table(&mut md, &claims.claims, &verdicts)?;
    let _ = writeln!(md, "## Claim details\n\n{details}");
    for f in &claims.findings {
        let _ = writeln!(md, "## {}\n\n{}\n", f.title, f.text.trim_end());
    }
    let _ = writeln!(md, "## Sweeps and plots\n");
    for s in &claims.sweeps {
        let (sweep, _, overrides) = &sweeps[&s.id];
        let _ = writeln!(
            md,
            "### {}\n\n`incastsim sweep {}{}`: {} points × {} seeds; swept: {}.\n",
            s.id,
            s.config.display(),
            overrides
                .iter()
                .map(|o| format!(" --set '{o}'"))
                .collect::<String>(),
            sweep.points.len(),
            sweep.seeds,
            sweep.keys.join(", ")
        );
        for p in plots_md.get(&s.id).into_iter().flatten() {
            let _ = writeln!(md, "{p}\n");
        }
    }
    if let Some(parent) = report.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&report, md).with_context(|| format!("writing {}", report.display()))?;
    println!(
        "{name}: {} claims ({}); report {}",
        claims.claims.len(),
        counts
            .iter()
            .map(|(v, n)| format!("{n} {v}"))
            .collect::<Vec<_>>()
            .join(", "),
        report.display()
    );
    Ok(())
}
