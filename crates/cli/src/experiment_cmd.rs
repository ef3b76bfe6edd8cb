//! `incastsim experiment`: micro-experiments that run a switch port directly (no network).

use anyhow::{Context, Result};
use incastsim::experiment::{Experiment, ExperimentFile, run_enqueue_probability_until};
use incastsim::output::write_enqueue_probability;
use incastsim::plot::{PlotRequest, plot_sweep};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct ExperimentArgs {
    /// The experiment config (YAML with an `experiment:` section, e.g.
    /// configs/papers/tcprand-fig5.yaml).
    config: PathBuf,
    /// Override a key, e.g. --set experiment.buffer="20 packets" (repeatable).
    #[arg(long = "set", value_name = "KEY.PATH=VALUE")]
    overrides: Vec<String>,
    /// Output directory [default: out/<name>].
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn experiment(args: ExperimentArgs) -> Result<()> {
    let file = ExperimentFile::load(&args.config, &args.overrides)
        .with_context(|| format!("invalid config {}", args.config.display()))?;
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("out").join(&file.name));
    let Experiment::EnqueueProbability(e) = &file.experiment;
    // Ctrl-C stops between trials; the rMin values finished by then are written.
    crate::stop::install();
    let started = std::time::Instant::now();
    let mut last_line = started;
    let rows = run_enqueue_probability_until(
        e,
        file.seed,
        Some(&crate::stop::STOP),
        &mut |done, total| {
            if last_line.elapsed() >= std::time::Duration::from_secs(2) || done == total {
                eprintln!(
                    "experiment: {done}/{total} rMin values in {:.1} s",
                    started.elapsed().as_secs_f64()
                );
                last_line = std::time::Instant::now();
            }
        },
    );
    let interrupted = crate::stop::STOP.load(std::sync::atomic::Ordering::Relaxed);
    if rows.is_empty() {
        anyhow::bail!("interrupted before any rMin value finished: nothing to write");
    }
    write_enqueue_probability(&out, &file, &rows)?;
    if interrupted {
        eprintln!(
            "interrupted: {} of {} rMin values finished and written to {}",
            rows.len(),
            e.r_min_values().len(),
            out.display()
        );
    }
    let req = PlotRequest {
        x: "r_min".into(),
        y: "probability".into(),
        series: Some("event".into()),
        log_x: false,
        log_y: false,
        name: Some("enqueue-probability".into()),
        formats: Vec::new(),
    };
    let plots = plot_sweep(&out, &req)?;
    println!(
        "{}: TCPRand Fig. 5 enqueue probability, {} rMin values x {} trials (buffer {})",
        file.name,
        rows.len(),
        e.trials,
        e.buffer
    );
    for r in rows.iter().filter(|r| [1, 1448].contains(&r.r_min)) {
        println!(
            "  rMin {:>4} B: P(X2) {:.3}  P(Y2) {:.3}  both {:.3}  neither {:.3}  ({} redrawn)",
            r.r_min, r.p_x2, r.p_y2, r.p_both, r.p_neither, r.rejected
        );
    }
    println!(
        "  results in {}, plot {}",
        out.display(),
        plots[0].display()
    );
    Ok(())
}
