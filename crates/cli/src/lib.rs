//! The `incastsim` command-line tool as a library call, and the parts other front ends reuse
//! (the Python package calls `incastsim model` through [`model_cmd::model_from_args`]).
//!
//! [`main_with`] is the whole command line with a registry of extensions: a downstream crate's
//! binary is
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     incastsim_cli::main_with(incastsim::Extensions::builtin() /* .congestion_control::<MyReno>("my_reno") */)
//! }
//! ```
//! and gets run, sweep, merge, plot, check, reproduce, slurm and the rest, with its components
//! usable (by name, from YAML) in every one of them.

mod experiment_cmd;
pub mod model_cmd;
mod progress;
mod reproduce;
mod slurm_cmd;
mod stop;
mod sweep_cmd;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use incastsim::config::program;
use incastsim::extend::{ComponentInfo, ExtensionPoint};
use incastsim::output::{Manifest, write_run_outputs};
use incastsim::scenario::results::metrics::RunRecord;
use incastsim::scenario::{Config, ConfigError, Extensions, Outcome, Simulation};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// A fast, deterministic packet-level simulator for data-center incast.
#[derive(Parser, Debug)]
#[command(name = "incastsim", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run one scenario and write runs.csv, flows.csv, ports.csv, blocks.csv, the resolved config
    /// and a manifest.
    Run(RunArgs),
    /// Run every point of a config's `sweep:` section with every seed, in parallel; resumable.
    Sweep(sweep_cmd::SweepArgs),
    /// Combine the output folders of sweep shards into the files one machine would have written.
    Merge(sweep_cmd::MergeArgs),
    /// Plot a metric of a sweep's summary against a swept key (PNG, SVG or PDF; mean, 95% CI).
    Plot(sweep_cmd::PlotArgs),
    /// Check a config (with overrides) and print it fully resolved, without running it.
    Check(CheckArgs),
    /// List the incast mitigation schemes, their parameters and defaults (the `scheme:` section).
    Schemes,
    /// List the components registered by the binary (congestion controllers, schemes, ...),
    /// with their providing crate, parameters and defaults.
    Components,
    /// Evaluate the papers' analytic incast models from parameters (CSV on stdout).
    Model(model_cmd::ModelArgs),
    /// Run a micro-experiment on a switch port (TCPRand's enqueue probability, its Fig. 5).
    Experiment(experiment_cmd::ExperimentArgs),
    /// Run a paper's sweeps without and with randomness and write its reproduction report
    /// (docs/reproductions/<paper>.md) from configs/papers/claims/<paper>.yaml.
    Reproduce(reproduce::ReproduceArgs),
    /// Write the Slurm batch scripts of a sweep: a job array of shards and a merge job that
    /// waits for them (docs/cluster.md).
    Slurm(slurm_cmd::SlurmArgs),
}

#[derive(clap::Args, Debug)]
struct RunArgs {
    /// The scenario config (YAML).
    config: PathBuf,
    /// Seed of the run (overrides the config's `seed`).
    #[arg(long)]
    seed: Option<u64>,
    /// Override a config key, e.g. --set senders=32 --set tcp.rto_min=1ms (repeatable).
    #[arg(long = "set", value_name = "KEY.PATH=VALUE")]
    overrides: Vec<String>,
    /// Output directory [default: out/<scenario name>].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Evaluate the book's incast models next to the goodput (= --set metrics.models=true).
    #[arg(long)]
    models: bool,
    /// Refuse the run if its memory estimate is above this: a size (8GB) or a share of the
    /// machine's memory (50%).
    #[arg(long, value_name = "SIZE|PERCENT", default_value = "50%")]
    max_memory: String,
    /// Refuse a config with warnings (values that cannot mean what they say) instead of
    /// printing them and running.
    #[arg(long)]
    strict: bool,
}

#[derive(clap::Args, Debug)]
struct CheckArgs {
    /// The scenario config (YAML).
    config: PathBuf,
    /// Override a config key (repeatable).
    #[arg(long = "set", value_name = "KEY.PATH=VALUE")]
    overrides: Vec<String>,
    /// Refuse a config with warnings (exit status 2) instead of only printing them.
    #[arg(long)]
    strict: bool,
}

/// Prints `warnings` on stderr (`warning: key = value: why`) and returns them for the manifest;
/// with `strict` (`--strict`) they are an error with the same lines instead.
pub(crate) fn report_warnings(
    warnings: &[incastsim::config::ConfigWarning],
    strict: bool,
) -> Result<Vec<String>> {
    let lines: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    if strict && !lines.is_empty() {
        bail!(
            "--strict refuses {} warning(s):\n  {}",
            lines.len(),
            lines.join("\n  ")
        );
    }
    for l in &lines {
        eprintln!("warning: {l}");
    }
    Ok(lines)
}

/// A closed stdout (`incastsim schemes | head -1`) ends the process quietly with the
/// conventional status (killed by SIGPIPE), as every Unix tool does, instead of a panic in
/// `println!`: Rust ignores SIGPIPE by default, so restore the default action.
fn exit_quietly_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called first in main, before any other thread exists; SIG_DFL is always valid.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// A write to standard output that fails (a full disk, `> /dev/full`, a closed terminal: the
/// closed pipe ends the process by SIGPIPE before this) ends the command with the error and
/// exit status 2, as every other error does, instead of a panic (`println!` panics on it). A
/// run's or sweep's files are written before its summary is printed, so nothing computed is
/// lost. Every other panic keeps the default report (it is a bug).
fn report_failed_stdout_writes() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(why) = message.strip_prefix("failed printing to stdout: ") {
            eprintln!("error: cannot write to standard output: {why}");
            std::process::exit(2);
        }
        default(info);
    }));
}

/// Runs the command line (`std::env::args`) with the components `extensions` registers: every
/// command loads configs through it, so they may name those components. Returns the process's
/// exit status (0 success, 2 error, or the signal status after SIGINT/SIGTERM).
pub fn main_with(extensions: Extensions) -> ExitCode {
    exit_quietly_on_closed_pipe();
    report_failed_stdout_writes();
    let cli = parse_as_this_program(&extensions);
    let ext = &extensions;
    if matches!(cli.command, Command::Run(_) | Command::Sweep(_)) {
        stop::install();
    }
    let result = match cli.command {
        Command::Run(args) => run(args, ext),
        Command::Sweep(args) => sweep_cmd::sweep(args, ext),
        Command::Merge(args) => sweep_cmd::merge(args, ext),
        Command::Plot(args) => sweep_cmd::plot(args),
        Command::Check(args) => check(args, ext),
        Command::Schemes => {
            schemes(ext);
            Ok(())
        }
        Command::Components => {
            components(ext);
            Ok(())
        }
        Command::Model(args) => model_cmd::model(args),
        Command::Experiment(args) => experiment_cmd::experiment(args),
        Command::Reproduce(args) => reproduce::reproduce(args, ext),
        Command::Slurm(args) => slurm_cmd::slurm(args, ext),
    };
    match result {
        Ok(()) => stop::exit_status().map_or(ExitCode::SUCCESS, ExitCode::from),
        Err(e) => {
            eprintln!("error: {}", error_text(&e));
            ExitCode::from(2)
        }
    }
}

/// Parses the command line as the program it is: a downstream binary (`main_with` with its own
/// components) is named by its executable in `--help`, usage lines, `--version` and the
/// messages that say what to type next (`incastsim_config::program`), since `incastsim` itself
/// would not know its components.
fn parse_as_this_program(extensions: &Extensions) -> Cli {
    use clap::{CommandFactory, FromArgMatches};
    let name = std::env::args_os()
        .next()
        .and_then(|arg0| {
            std::path::Path::new(&arg0)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "incastsim".into());
    let mut command = Cli::command();
    if name != "incastsim" {
        program::set_name(&name);
        // Set once per process, and clap keeps its names for the process's life.
        let name: &'static str = Box::leak(name.into_boxed_str());
        let provider = extensions.provider();
        let incastsim = format!("incastsim {}", env!("CARGO_PKG_VERSION"));
        let version = if provider.version.is_empty() {
            format!("({incastsim})")
        } else {
            format!("{} ({incastsim})", provider.version)
        };
        command = command
            .name(name)
            .bin_name(name)
            .version(Box::leak(version.into_boxed_str()) as &'static str)
            .about(
                Box::leak(
                    format!(
                        "incastsim, a packet-level simulator for data-center incast, with the components of {}",
                        provider.crate_name
                    )
                    .into_boxed_str(),
                ) as &'static str,
            );
    }
    Cli::from_arg_matches(&command.get_matches()).unwrap_or_else(|e| e.exit())
}

/// An error with its causes, each once: a cause whose text the message already holds (an
/// error that prints its source, as `cannot write X: <os error>`) is not repeated.
fn error_text(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !text.contains(&c) {
            text.push_str(": ");
            text.push_str(&c);
        }
    }
    text
}

fn load(config: &std::path::Path, overrides: &[String], ext: &Extensions) -> Result<Config> {
    load_checked(config, overrides, ext)
        .with_context(|| format!("invalid config {}", config.display()))
}

/// The config at `config` with `overrides`, loaded and checked in full knowing `ext`.
fn load_checked(
    config: &std::path::Path,
    overrides: &[String],
    ext: &Extensions,
) -> Result<Config, ConfigError> {
    let cfg = Config::load_with(config, overrides, ext)?;
    incastsim::scenario::check_buildable(&cfg, ext)?;
    Ok(cfg)
}

/// Whether the YAML file at `path` has a top-level `experiment:` section (`incastsim
/// experiment` configs). Unreadable or invalid files are not: the scenario loader reports them.
fn is_experiment_config(path: &std::path::Path) -> bool {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| incastsim::config::parse_tree(&text).ok())
        .is_some_and(|tree| tree.get("experiment").is_some())
}

fn check(args: CheckArgs, ext: &Extensions) -> Result<()> {
    if is_experiment_config(&args.config) {
        use incastsim::config::experiment::ExperimentFile;
        let file = ExperimentFile::load(&args.config, &args.overrides)
            .with_context(|| format!("invalid config {}", args.config.display()))?;
        print!("{}", file.to_yaml());
        println!(
            "# an experiment config: run it with `{} experiment`",
            program::name()
        );
        return Ok(());
    }
    match load_checked(&args.config, &args.overrides, ext) {
        Err(ConfigError::HasSweep) => {
            let sweep = incastsim::sweep::Sweep::load_with(&args.config, &args.overrides, ext)
                .with_context(|| format!("invalid config {}", args.config.display()))?;
            report_warnings(&sweep.warnings, args.strict)?;
            print!("{}", sweep.input_yaml());
            if let Some(point) = sweep.points.first() {
                print_unprinted_defaults(&point.config);
            }
            println!(
                "# {} points x {} seeds = {} runs; swept keys: {}",
                sweep.points.len(),
                sweep.seeds,
                sweep.runs_total(),
                sweep.keys.join(", ")
            );
            Ok(())
        }
        other => {
            let cfg = other.with_context(|| format!("invalid config {}", args.config.display()))?;
            report_warnings(&incastsim::config::config_warnings(&cfg), args.strict)?;
            print!("{}", cfg.to_yaml());
            print_unprinted_defaults(&cfg);
            Ok(())
        }
    }
}

/// The defaults the resolved YAML leaves out, as comments (so every knob shows in `check`).
fn print_unprinted_defaults(cfg: &Config) {
    for line in cfg.unprinted_defaults() {
        println!("# default, not printed above: {line}");
    }
}

/// Prints every scheme with its parameters at their defaults, as they go in a config (the
/// registered ones after the built-ins).
fn schemes(ext: &Extensions) {
    use incastsim::config::scheme::{SCHEMES, SchemeConfig};
    println!("Schemes (config: `scheme: <name>` or `scheme: {{name: <name>, <param>: <value>}}`):");
    for (name, about) in SCHEMES {
        println!("\n{name}\n  {about}");
        let defaults = SchemeConfig::defaults(name).expect("every listed scheme has defaults");
        let yaml = serde_saphyr::to_string(&defaults).unwrap_or_default();
        let parameters = SchemeConfig::parameters(name);
        for line in yaml.lines().filter(|l| !l.starts_with("name:")) {
            println!("  default {line}");
            // Each parameter's meaning and what its value is written as (issue 39, item 6).
            let key = line.split(':').next().unwrap_or_default().trim();
            if let Some(p) = parameters.iter().find(|p| p.name == key) {
                println!("      {} ({})", p.meaning, p.unit());
            }
        }
    }
    for c in ext
        .components()
        .filter(|c| c.point == ExtensionPoint::Scheme)
    {
        print_component(ext, c);
    }
}

/// Prints the registered components, point by point, with their provider and defaults.
fn components(ext: &Extensions) {
    println!(
        "Registered components (config: `{{name: <name>, <param>: <value>}}` where the point is chosen; a traffic generator: `{{kind: <name>, <param>: <value>}}` as an entry of `traffic:`):"
    );
    for point in ExtensionPoint::ALL {
        let builtins = incastsim::config::extension::builtin_names(point);
        let registered: Vec<_> = ext.components().filter(|c| c.point == point).collect();
        println!("\n{}:", point.name());
        if !builtins.is_empty() {
            println!("  built in: {}", builtins.join(", "));
        }
        if registered.is_empty() {
            println!("  none registered");
        }
        for c in registered {
            print_component(ext, c);
        }
    }
}

/// One registered component: name, provider, description and default parameters.
fn print_component(ext: &Extensions, c: &ComponentInfo) {
    println!("\n{} (from {})\n  {}", c.name, c.provider, c.description);
    match ext.defaults(c.point, c.name) {
        Some(defaults) => {
            let yaml = serde_saphyr::to_string(&defaults).unwrap_or_default();
            for line in yaml.lines().filter(|l| *l != "{}") {
                println!("  default {line}");
            }
        }
        None => println!("  (some parameters have no default)"),
    }
}

fn run(mut args: RunArgs, ext: &Extensions) -> Result<()> {
    if args.models {
        args.overrides.push("metrics.models=true".into());
    }
    // A large run's heap on 2 MiB pages (`incastsim::host`; measured in docs/perf-log.md), before
    // anything is printed; the results are the same. Decided from the parsed config, before
    // the checks that build the topology and draw the traffic, which the new process runs (a
    // k = 32 fat-tree's took 30 ms); a config that does not parse is reported below, here.
    if let Ok(cfg) = Config::load_with(&args.config, &args.overrides, ext)
        && incastsim::host::worth_huge_pages(&cfg)
    {
        incastsim::host::reexec_with_huge_pages();
    }
    let mut cfg = load(&args.config, &args.overrides, ext)?;
    if let Some(seed) = args.seed {
        cfg.seed = seed;
    }
    let warnings = report_warnings(&incastsim::config::config_warnings(&cfg), args.strict)?;
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("out").join(&cfg.name));
    // Before the run: a sweep's or an experiment's folder is refused now, not after minutes of
    // simulation (and `write_run_outputs` checks again before writing).
    incastsim::output::check_run_folder(&out)?;
    let started_unix_s = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let wall = Instant::now();
    let max_memory = memory_limit(&args.max_memory)?;
    let options = incastsim::scenario::RunOptions::new()
        .extensions(ext)
        .max_memory(max_memory);
    let plan = incastsim::scenario::Plan::build(&cfg, cfg.seed, &options)
        .with_context(|| format!("invalid config {}", args.config.display()))?;
    let mut sim = Simulation::from_plan(plan);
    let mut line = progress::RunLine::new();
    let outcome = incastsim::scenario::drive(
        &mut sim,
        Some(&stop::STOP),
        Some(&mut |p, elapsed| line.update(p, elapsed)),
    );
    line.finish();
    if let Err(violation) = sim.check_invariants() {
        bail!("invariant violated (please report this with the config): {violation}");
    }
    let result = sim.results();
    let wall_s = wall.elapsed().as_secs_f64();
    let r = &result.run;
    let manifest = Manifest {
        incastsim_version: incastsim::VERSION.into(),
        git_revision: incastsim::GIT_REVISION.map(Into::into),
        config_path: args.config.display().to_string(),
        overrides: args.overrides.clone(),
        seeds: vec![cfg.seed],
        outcome: outcome.as_str().into(),
        started_unix_s,
        wall_time_s: wall_s,
        events: r.events,
        events_per_s: r.events as f64 / wall_s,
        packets_sent: r.packets_sent,
        packets_per_s: r.packets_sent as f64 / wall_s,
        heap_huge_pages: incastsim::host::heap_on_huge_pages(),
        warnings,
        extensions: extension_records(ext, &cfg),
    };
    write_run_outputs(&out, &cfg, std::slice::from_ref(&result), &manifest)?;
    let mut extra: Vec<String> = collective_summary(&result);
    if !result.pfc.is_empty() {
        extra.push(pfc_summary(&result));
    }
    // A traffic workload's flows go between any hosts: name the hosts, not `senders` (issue 39,
    // item 4: "127 senders" at k = 16).
    let hosts = matches!(
        cfg.workload,
        incastsim::config::WorkloadConfig::Traffic { .. }
    )
    .then(|| cfg.topology.host_count(cfg.senders));
    print_run_summary(r, outcome, wall_s, cfg.metrics.models, hosts, &extra, &out);
    Ok(())
}

/// A collective job's headline (issue 39, item 4; issue 42), a line per job from
/// collectives.csv: iterations completed, mean completion against the ideal, and busBW.
fn collective_summary(result: &incastsim::scenario::RunResult) -> Vec<String> {
    use incastsim::scenario::probe::ProbeValue;
    let Some(table) = result
        .probe_tables
        .iter()
        .find(|t| t.file == incastsim::scenario::results::collectives::COLLECTIVES_FILE)
    else {
        return Vec::new();
    };
    let col = |name: &str| table.header.iter().position(|h| h == name);
    let (Some(job), Some(algorithm), Some(ranks), Some(done), Some(ideal), Some(bus)) = (
        col("job"),
        col("algorithm"),
        col("ranks"),
        col("completion_ms"),
        col("ideal_ms"),
        col("bus_bw_gbps"),
    ) else {
        return Vec::new();
    };
    let num = |v: &ProbeValue| match v {
        ProbeValue::Float(x) => Some(*x),
        ProbeValue::UInt(x) => Some(*x as f64),
        _ => None,
    };
    let mut jobs: Vec<(String, Vec<&Vec<ProbeValue>>)> = Vec::new();
    for row in &table.rows {
        let key = format!("{:?}", row[job]);
        match jobs.iter_mut().find(|(k, _)| *k == key) {
            Some((_, rows)) => rows.push(row),
            None => jobs.push((key, vec![row])),
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    jobs.into_iter()
        .map(|(_, rows)| {
            let first = rows[0];
            let name = match &first[algorithm] {
                ProbeValue::Text(t) => t.clone(),
                _ => String::new(),
            };
            let times: Vec<f64> = rows.iter().filter_map(|r| num(&r[done])).collect();
            let ideals: Vec<f64> = rows.iter().filter_map(|r| num(&r[ideal])).collect();
            let buses: Vec<f64> = rows.iter().filter_map(|r| num(&r[bus])).collect();
            let mut line = format!(
                "  collective job {} ({name}, {} ranks): {}/{} iterations completed",
                num(&first[job]).unwrap_or(0.0),
                num(&first[ranks]).unwrap_or(0.0),
                times.len(),
                rows.len()
            );
            if !times.is_empty() {
                line.push_str(&format!(
                    "; completion mean {:.3} ms (ideal {:.3} ms)",
                    mean(&times),
                    mean(&ideals)
                ));
            }
            if !buses.is_empty() {
                line.push_str(&format!("; busBW {:.3} Gbit/s", mean(&buses)));
            }
            line
        })
        .collect()
}

/// A lossless run's headline (issue 39, item 4): PAUSEs and RESUMEs sent, the time the most
/// paused port spent paused and its longest pause, the deepest pause, victims and deadlocks.
fn pfc_summary(result: &incastsim::scenario::RunResult) -> String {
    let pauses: u64 = result.pfc.iter().map(|p| p.pauses_sent).sum();
    let resumes: u64 = result.pfc.iter().map(|p| p.resumes_sent).sum();
    let most = result
        .pfc
        .iter()
        .max_by(|a, b| a.paused_us.total_cmp(&b.paused_us));
    let overflow: u64 = result.pfc.iter().map(|p| p.overflow_drops).sum();
    let mut line = format!("  PFC: {pauses} PAUSEs, {resumes} RESUMEs");
    if let Some(p) = most.filter(|p| p.paused_us > 0.0) {
        line.push_str(&format!(
            "; most paused {}->{} {:.1} us (longest {:.1} us)",
            p.from_node, p.to_node, p.paused_us, p.longest_pause_us
        ));
    }
    if let Some(s) = result.pfc_summary.first() {
        line.push_str(&format!(
            "; deepest pause {} hops; {} of {} paused flows victims; {} deadlocks",
            s.max_pause_depth, s.victim_flows, s.paused_flows, s.deadlocks
        ));
    }
    if overflow > 0 {
        line.push_str(&format!("; {overflow} headroom overflow drops"));
    }
    line
}

/// The extensions `cfg` uses, for its manifest: point, name, providing crate and version.
pub(crate) fn extension_records(
    ext: &Extensions,
    cfg: &Config,
) -> Vec<incastsim::output::ExtensionRecord> {
    ext.used_by(cfg)
        .into_iter()
        .map(|c| incastsim::output::ExtensionRecord {
            point: c.point.name().into(),
            name: c.name.into(),
            crate_name: c.provider.crate_name.into(),
            crate_version: c.provider.version.into(),
        })
        .collect()
}

/// The machine's memory in bytes (Linux: MemTotal of /proc/meminfo), if known.
fn machine_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `--max-memory`: "8GB" (bytes) or "50%" (of the machine's memory; 4 GB if unknown).
pub fn memory_limit(arg: &str) -> Result<u64> {
    let bad = || {
        anyhow::anyhow!(
            "--max-memory {arg:?}: a size such as 8GB or a share of the machine's memory such as 50%"
        )
    };
    if let Some(p) = arg.trim().strip_suffix('%') {
        let share: f64 = p.trim().parse().map_err(|_| bad())?;
        if !(share > 0.0 && share <= 100.0) {
            return Err(bad());
        }
        let total = machine_memory().unwrap_or(8 << 30);
        return Ok((total as f64 * share / 100.0) as u64);
    }
    let bytes = incastsim::config::units::parse_bytes(arg).map_err(|_| bad())?;
    if bytes == 0 {
        return Err(bad());
    }
    Ok(bytes)
}

/// Prints what a run did (goodput, RTOs, drops, blocks or fairness, speed, and the book's models
/// when asked for) and where its results are.
fn print_run_summary(
    r: &RunRecord,
    outcome: Outcome,
    wall_s: f64,
    models: bool,
    hosts: Option<u64>,
    extra: &[String],
    out: &std::path::Path,
) {
    let who = match hosts {
        Some(h) => format!("{h} hosts"),
        None => format!("{} senders", r.senders),
    };
    println!(
        "{}: {} topology, {who}, {}, seed {}",
        r.scenario, r.topology, r.workload, r.seed
    );
    match outcome {
        Outcome::Completed => {}
        Outcome::TimeLimit => {
            println!("  stopped at run.max_sim_time before the workload finished")
        }
        Outcome::EventLimit => {
            println!("  stopped at run.max_events before the workload finished")
        }
        Outcome::WallTimeLimit => {
            println!("  stopped at run.max_wall_time before the workload finished")
        }
        Outcome::Interrupted => println!(
            "  interrupted: what was computed is written, marked incomplete (completed = false)"
        ),
        Outcome::Stalled => println!("  stalled: no events left before the workload finished"),
        Outcome::PfcDeadlock => println!(
            "  stopped: a PFC deadlock (a cycle of paused queues lasted pfc.deadlock.after; its ports are in pfc_deadlocks.csv)"
        ),
        Outcome::FlowLimit => println!(
            "  stopped: a reactive traffic generator asked for more flows than a run may hold"
        ),
        Outcome::MemoryLimit => println!(
            "  stopped: what the run records as it goes (time series, the traced port, pcap packets) outgrew --max-memory; sample less often or fewer objects, or raise --max-memory"
        ),
    }
    println!(
        "  goodput {:.1} Mbps over {:.4} s simulated; {} RTOs ({} flows); {} drops",
        r.goodput_mbps, r.sim_time_s, r.rto_count, r.flows_with_rto, r.drops_total
    );
    if r.blocks > 0 && r.blocks_completed == 0 {
        println!("  blocks 0/{}: no block completed", r.blocks);
    } else if r.blocks > 0 {
        println!(
            "  blocks {}/{}; completion time mean {:.3} ms, p99 {:.3} ms",
            r.blocks_completed, r.blocks, r.bct_mean_ms, r.bct_p99_ms
        );
    } else if r.flows_finite > 0 {
        // A traffic workload exists for its flows' completion times (issue 39, item 4).
        println!(
            "  flows {}/{} completed; FCT mean {:.3} ms, p50 {:.3} ms, p99 {:.3} ms; slowdown mean {:.2}, p99 {:.2}; Jain fairness {:.4}",
            r.flows_completed,
            r.flows_finite,
            r.fct_mean_ms,
            r.fct_p50_ms,
            r.fct_p99_ms,
            r.slowdown_mean,
            r.slowdown_p99,
            r.jain_fairness
        );
    } else {
        println!("  Jain fairness {:.4}", r.jain_fairness);
    }
    println!(
        "  {} events, {} packets in {:.3} s wall ({:.1} M events/s, {:.1} M packets/s)",
        r.events,
        r.packets_sent,
        wall_s,
        r.events as f64 / wall_s / 1e6,
        r.packets_sent as f64 / wall_s / 1e6
    );
    if models {
        println!(
            "  book models (p_c {:.4}, p_r {:.4}, δ {:.2}, RTT {:.0} us, T0 {:.0} ms): TD-only {:.1}, Full {:.1}, Split {:.1} Mbps{}",
            r.p_c,
            r.p_r,
            r.delta_abtt_per_block,
            r.rtt_mean_us,
            r.t0_ms,
            r.model_td_only_mbps,
            r.model_full_mbps,
            r.model_split_mbps,
            if r.delayed_ack {
                " (delayed ACK is on: the models assume one ACK per packet)"
            } else {
                ""
            }
        );
    }
    for line in extra {
        println!("{line}");
    }
    println!("  results in {}", out.display());
}
