//! `incastsim sweep`, `merge` and `plot`.

use anyhow::{Context, Result};
use incastsim::output::write_json;
use incastsim::plot::{PlotRequest, plot_sweep, plot_sweep_to};
use incastsim::scenario::Extensions;
use incastsim::sweep::{Progress, Shard, Sweep, run_sweep_until};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use std::cell::Cell;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    /// A config with a `sweep:` section.
    config: PathBuf,
    /// Worker threads [default: all cores]. Results do not depend on it.
    #[arg(long)]
    jobs: Option<usize>,
    /// Output directory [default: out/<scenario name>]. Rerunning into it resumes.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run only shard i of n (1 <= i <= n), e.g. --shard 3/8; combine with `incastsim merge`.
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// Override a config key, e.g. --set sweep.seeds=50 (repeatable).
    #[arg(long = "set", value_name = "KEY.PATH=VALUE")]
    overrides: Vec<String>,
    /// Do not draw the plots listed in the config.
    #[arg(long)]
    no_plots: bool,
    /// Refuse runs whose memory estimate times --jobs is above this: a size (8GB) or a share of
    /// the machine's memory (50%).
    #[arg(long, value_name = "SIZE|PERCENT", default_value = "50%")]
    max_memory: String,
    /// Refuse a sweep with warnings (duplicate swept values, values that cannot mean what they
    /// say) instead of printing them and running.
    #[arg(long)]
    strict: bool,
}

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// Output folders of the shards.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Where to write the merged results.
    #[arg(long)]
    out: PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct PlotArgs {
    /// A sweep output folder (with summary.csv).
    dir: PathBuf,
    /// Swept key on the x axis (numeric), e.g. senders.
    #[arg(long)]
    x: String,
    /// Metric on the y axis, e.g. goodput_mbps (an unknown one is answered with the list).
    #[arg(long)]
    y: String,
    /// Swept key whose values become separate lines, e.g. rto_min.
    #[arg(long)]
    series: Option<String>,
    /// Logarithmic x axis (for doubling sweeps: N = 1, 2, 4, ... 64); every x must be > 0.
    #[arg(long)]
    log_x: bool,
    /// Logarithmic y axis; points with mean 0 are left out and listed under the plot.
    #[arg(long)]
    log_y: bool,
    /// File formats to write: png, svg, pdf, comma-separated or repeated [default: png,svg].
    #[arg(long, value_delimiter = ',', value_name = "FORMAT")]
    format: Vec<incastsim::plot::Format>,
    /// File name without extension [default: <y>-vs-<x>[-by-<series>]].
    #[arg(long)]
    name: Option<String>,
    /// Folder for the plot files [default: DIR/plots]; DIR itself is only read (so a sweep on
    /// a read-only mount can be plotted elsewhere).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// A progress bar on a terminal; a plain line every 10 s otherwise (CI logs).
pub(crate) struct CliProgress {
    bar: Option<ProgressBar>,
    started: Instant,
    last_line: Cell<Instant>,
    total: Cell<u64>,
    first_done: Cell<u64>,
    /// Expected cost done (at the start, and now) and in all: the ETA weighs runs by it.
    cost_at_start: Cell<Option<f64>>,
    cost_done: Cell<f64>,
    cost_total: Cell<f64>,
}

impl CliProgress {
    pub(crate) fn new() -> CliProgress {
        CliProgress::with_bar(std::io::stderr().is_terminal().then(|| ProgressBar::new(0)))
    }

    /// With `bar` (a terminal's, or a hidden one in tests), else plain lines.
    fn with_bar(bar: Option<ProgressBar>) -> CliProgress {
        if let Some(b) = &bar {
            b.set_style(
                ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} runs  {per_sec}  {msg}  {elapsed}",
                )
                .expect("valid template"),
            );
        }
        let now = Instant::now();
        CliProgress {
            bar,
            started: now,
            last_line: Cell::new(now),
            total: Cell::new(0),
            first_done: Cell::new(0),
            cost_at_start: Cell::new(None),
            cost_done: Cell::new(0.0),
            cost_total: Cell::new(0.0),
        }
    }

    /// The ETA by expected cost (runs of a sweep's last points often cost many times its
    /// first's): "ETA 42 s", or "ETA ..." before a run of this attempt finished.
    fn eta(&self) -> String {
        let secs = self.started.elapsed().as_secs_f64();
        match incastsim::sweep::cost::eta_secs(
            self.cost_at_start.get().unwrap_or(0.0),
            self.cost_done.get(),
            self.cost_total.get(),
            secs,
        ) {
            Some(eta) => format!("ETA {eta:.0} s"),
            None => "ETA ...".into(),
        }
    }
}

impl Progress for CliProgress {
    fn begin(&self, total: u64, already: u64) {
        self.total.set(total);
        self.first_done.set(already);
        if already > 0 {
            eprintln!("resuming: {already} of {total} runs already done");
        }
        if let Some(b) = &self.bar {
            b.set_length(total);
            b.set_position(already);
            b.reset_eta();
        }
    }
    fn note(&self, message: &str) {
        match &self.bar {
            Some(b) => b.println(message),
            None => eprintln!("{message}"),
        }
    }
    fn advance_cost(&self, done: f64, total: f64) {
        if self.cost_at_start.get().is_none() {
            self.cost_at_start.set(Some(done));
        }
        self.cost_done.set(done);
        self.cost_total.set(total);
        if let Some(b) = &self.bar {
            b.set_message(self.eta());
        }
    }
    fn advance(&self, done: u64) {
        if let Some(b) = &self.bar {
            b.set_position(done);
            return;
        }
        let now = Instant::now();
        if now.duration_since(self.last_line.get()).as_secs() >= 10 || done == self.total.get() {
            self.last_line.set(now);
            let secs = now.duration_since(self.started).as_secs_f64();
            let rate = (done - self.first_done.get()) as f64 / secs.max(1e-9);
            // The share and the ETA by expected cost, not by count (`advance_cost` came first).
            let share = self.cost_done.get() / self.cost_total.get().max(1e-9);
            eprintln!(
                "sweep: {done}/{} runs ({:.1}% of the expected work), {rate:.2} runs/s, {}",
                self.total.get(),
                100.0 * share,
                self.eta()
            );
        }
    }
    fn end(&self) {
        if let Some(b) = &self.bar {
            // A stopped sweep keeps its bar where it stopped, at the runs stored (not a full bar
            // and "ETA 0 s" before "interrupted: 903 of 960 stored").
            let total = b.length().unwrap_or(0);
            if b.position() < total {
                b.abandon_with_message(format!("stopped: {} of {total} runs stored", b.position()));
            } else {
                b.finish();
            }
        }
    }
}

#[derive(Serialize)]
struct SweepManifest {
    incastsim_version: String,
    git_revision: Option<String>,
    config_path: String,
    overrides: Vec<String>,
    swept_keys: Vec<String>,
    points: usize,
    seeds_per_point: u32,
    base_seed: u64,
    shard: Option<String>,
    jobs: usize,
    runs_in_shard: u64,
    runs_already_done: u64,
    runs_computed: u64,
    runs_redone: u64,
    /// Stopped by SIGINT/SIGTERM between runs: resume with the same command.
    interrupted: bool,
    started_unix_s: u64,
    finished_unix_s: u64,
    wall_time_s: f64,
    runs_per_s: f64,
    /// Whether the heap was on transparent huge pages (`incastsim::host`): wall times depend
    /// on it.
    heap_huge_pages: bool,
    /// The sweep's warnings (`key = value: why`), as printed on stderr; omitted when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
    /// The registered components the points use, with their crates; omitted when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    extensions: Vec<incastsim::output::ExtensionRecord>,
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn draw(dir: &Path, plots: &[incastsim::sweep::PlotSpec]) -> Result<()> {
    for p in plots {
        let req = PlotRequest {
            x: p.x.clone(),
            y: p.y.clone(),
            series: p.series.clone(),
            log_x: p.log_x,
            log_y: p.log_y,
            name: p.name.clone(),
            formats: Vec::new(),
        };
        let files = plot_sweep(dir, &req)?;
        println!(
            "  plot {}",
            files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}

pub fn sweep(args: SweepArgs, ext: &Extensions) -> Result<()> {
    let sweep = Sweep::load_with(&args.config, &args.overrides, ext)
        .with_context(|| format!("invalid sweep config {}", args.config.display()))?;
    if sweep
        .points
        .iter()
        .any(|p| incastsim::host::worth_huge_pages(&p.config))
    {
        // As `incastsim run` (`incastsim::host`), before anything is printed.
        incastsim::host::reexec_with_huge_pages();
    }
    let warnings = crate::report_warnings(&sweep.warnings, args.strict)?;
    let name = sweep.points[0].config.name.clone();
    let out = args.out.unwrap_or_else(|| PathBuf::from("out").join(&name));
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if jobs == 0 {
        anyhow::bail!("--jobs 0: at least 1 worker thread is needed");
    }
    // One OS thread per job, each holding a whole run: tens of thousands stall the machine.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let max_jobs = (8 * cores).max(64);
    if jobs > max_jobs {
        anyhow::bail!(
            "--jobs {jobs}: at most {max_jobs} worker threads (8 x the {cores} cores here, at least 64); results do not depend on --jobs"
        );
    }
    let started_unix_s = unix_now();
    let wall = Instant::now();
    let progress = CliProgress::new();
    let report = run_sweep_until(
        &sweep,
        &out,
        jobs,
        args.shard,
        &progress,
        (
            &crate::stop::STOP,
            Some(crate::memory_limit(&args.max_memory)? / jobs as u64),
        ),
    )?;
    let wall_s = wall.elapsed().as_secs_f64();
    let mut extensions = Vec::new();
    for point in &sweep.points {
        for e in crate::extension_records(ext, &point.config) {
            if !extensions.contains(&e) {
                extensions.push(e);
            }
        }
    }
    let manifest = SweepManifest {
        extensions,
        incastsim_version: incastsim::VERSION.into(),
        git_revision: incastsim::GIT_REVISION.map(Into::into),
        config_path: args.config.display().to_string(),
        overrides: args.overrides,
        swept_keys: sweep.keys.clone(),
        points: report.points,
        seeds_per_point: sweep.seeds,
        base_seed: sweep.points[0].config.seed,
        shard: args.shard.map(|s| format!("{}/{}", s.index, s.count)),
        jobs,
        runs_in_shard: report.runs_in_shard,
        runs_already_done: report.runs_already_done,
        runs_computed: report.runs_computed,
        runs_redone: report.runs_redone,
        interrupted: report.interrupted,
        started_unix_s,
        finished_unix_s: unix_now(),
        wall_time_s: wall_s,
        runs_per_s: report.runs_computed as f64 / wall_s,
        heap_huge_pages: incastsim::host::heap_on_huge_pages(),
        warnings,
    };
    // A rerun that computed nothing keeps the manifest of the runs that did (their timing), and
    // so writes nothing into a finished folder, which may be on a read-only mount.
    let manifest_path = out.join("manifest.json");
    if report.runs_computed > 0 || report.runs_redone > 0 || !manifest_path.exists() {
        write_json(&manifest_path, &manifest)?;
    }
    println!(
        "{name}: {} points x {} seeds; {} runs computed, {} already done, in {:.1} s ({:.2} runs/s, {jobs} jobs)",
        report.points,
        sweep.seeds,
        report.runs_computed,
        report.runs_already_done,
        wall_s,
        report.runs_computed as f64 / wall_s
    );
    if report.interrupted {
        println!(
            "  interrupted: {} of {} runs are stored in {}; run the same command again to resume",
            report.runs_already_done + report.runs_computed,
            report.runs_in_shard,
            out.display()
        );
        return Ok(());
    }
    // Every run was stored and the files finalized: a stop signal that came meanwhile stopped
    // nothing (exit 0, not 130 after "results in"); it skips only the plots.
    let stopped_late = crate::stop::came_too_late();
    if stopped_late {
        println!(
            "  a stop signal came after every run was stored: the results are complete (plots skipped: `incastsim plot` draws them)"
        );
    }
    println!(
        "  results in {} (runs.csv, flows.csv, summary.csv)",
        out.display()
    );
    if !args.no_plots && args.shard.is_none() && !stopped_late {
        draw(&out, &sweep.plots)?;
    }
    Ok(())
}

/// manifest.json of a merged folder: what was merged, and whether every run of the sweep is in.
#[derive(serde::Serialize)]
struct MergeManifest {
    incastsim_version: String,
    git_revision: Option<String>,
    merged_from: Vec<String>,
    /// Runs in the merged files.
    runs: u64,
    /// Runs of the whole sweep (its points × seeds), if its sweep.yaml could be read.
    runs_total: Option<u64>,
    /// Every run of the sweep is in (false: some shard is missing or unfinished).
    complete: bool,
    finished_unix_s: u64,
}

pub fn merge(args: MergeArgs, ext: &Extensions) -> Result<()> {
    let runs = incastsim::sweep::merge(&args.dirs, &args.out)?;
    println!(
        "merged {} folders: {runs} runs into {}",
        args.dirs.len(),
        args.out.display()
    );
    let spec = args.out.join("sweep.yaml");
    let sweep = if spec.exists() {
        Some(
            Sweep::load_with(&spec, &[], ext)
                .with_context(|| format!("reading {}", spec.display()))?,
        )
    } else {
        None
    };
    let runs_total = sweep.as_ref().map(Sweep::runs_total);
    let complete = runs_total.is_none_or(|t| runs >= t);
    let manifest = MergeManifest {
        incastsim_version: incastsim::VERSION.into(),
        git_revision: incastsim::GIT_REVISION.map(Into::into),
        merged_from: args.dirs.iter().map(|d| d.display().to_string()).collect(),
        runs,
        runs_total,
        complete,
        finished_unix_s: unix_now(),
    };
    write_json(&args.out.join("manifest.json"), &manifest)?;
    if let Some(sweep) = &sweep {
        draw(&args.out, &sweep.plots)?;
    }
    if let Some(total) = runs_total
        && !complete
    {
        anyhow::bail!(
            "incomplete: {runs} of the sweep's {total} runs are in {} ({} missing: a shard not merged or not finished); manifest.json says complete: false. Merge again with every shard folder",
            args.out.display(),
            total - runs
        );
    }
    Ok(())
}

pub fn plot(args: PlotArgs) -> Result<()> {
    let req = PlotRequest {
        x: args.x,
        y: args.y,
        series: args.series,
        log_x: args.log_x,
        log_y: args.log_y,
        name: args.name,
        formats: args.format,
    };
    let files = match &args.out {
        Some(out) => plot_sweep_to(&args.dir, out, &req)?,
        None => plot_sweep(&args.dir, &req)?,
    };
    for f in files {
        println!("{}", f.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use incastsim::sweep::Progress;
    use indicatif::ProgressDrawTarget;

    fn hidden() -> CliProgress {
        CliProgress::with_bar(Some(ProgressBar::with_draw_target(
            Some(0),
            ProgressDrawTarget::hidden(),
        )))
    }

    /// Issue 39, item 2: a sweep stopped after 903 of 960 runs keeps its bar at 903 and says
    /// they are stored, not "960/960 ... ETA 0 s".
    #[test]
    fn a_stopped_sweep_shows_the_runs_stored() {
        let p = hidden();
        p.begin(960, 0);
        p.advance_cost(0.0, 960.0);
        for done in 1..=903 {
            p.advance_cost(done as f64, 960.0);
            p.advance(done);
        }
        p.end();
        let b = p.bar.as_ref().unwrap();
        assert_eq!((b.position(), b.length()), (903, Some(960)));
        assert_eq!(b.message(), "stopped: 903 of 960 runs stored");
        // A finished one ends full, with its last ETA.
        let p = hidden();
        p.begin(2, 1);
        p.advance_cost(1.0, 2.0);
        p.advance_cost(2.0, 2.0);
        p.advance(2);
        p.end();
        let b = p.bar.as_ref().unwrap();
        assert_eq!(b.position(), 2);
        assert!(b.message().starts_with("ETA 0 s"), "{}", b.message());
    }

    /// The bar's ETA is by expected cost: 30 % of the runs done that are 10 % of the cost
    /// leave 9 times the elapsed time, not 2.3 times.
    #[test]
    fn the_bar_eta_weighs_runs_by_cost() {
        let p = hidden();
        p.begin(10, 0);
        p.advance_cost(0.0, 100.0);
        std::thread::sleep(std::time::Duration::from_millis(200));
        p.advance_cost(10.0, 100.0);
        p.advance(3);
        let secs = p.started.elapsed().as_secs_f64();
        let eta: f64 = p
            .bar
            .as_ref()
            .unwrap()
            .message()
            .strip_prefix("ETA ")
            .and_then(|m| m.strip_suffix(" s"))
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            (eta - 9.0 * secs).abs() <= 0.5 + 0.1 * 9.0 * secs,
            "{eta} vs {secs}"
        );
    }
}
