//! `incastsim slurm`: writes the batch scripts that run a sweep on a Slurm cluster as a job array
//! of shards (`sweep --shard i/n`), then merge them in a job that starts only when every shard
//! succeeded (`--dependency=afterok`). docs/cluster.md walks through it.

use anyhow::{Context, Result, bail};
use incastsim::sweep::Sweep;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct SlurmArgs {
    /// A config with a `sweep:` section.
    config: PathBuf,
    /// Number of shards: array tasks 1..=N, each running a fixed, disjoint part of the runs.
    #[arg(long)]
    shards: u32,
    /// CPUs per array task (its worker threads: `sweep --jobs`).
    #[arg(long, default_value_t = 1)]
    cpus_per_task: u32,
    /// Results folder (shared by every node) [default: out/<scenario name>]: the merged results
    /// go here, the shards into <out>/shards/, the scripts and job logs into <out>/slurm/.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Slurm partition (`#SBATCH --partition`).
    #[arg(long)]
    partition: Option<String>,
    /// Time limit of each array task (`#SBATCH --time`, e.g. 02:00:00).
    #[arg(long)]
    time: Option<String>,
    /// The incastsim binary the jobs run [default: this one].
    #[arg(long)]
    incastsim: Option<PathBuf>,
    /// Override a config key (repeatable); the scripts run the sweep as overridden.
    #[arg(long = "set", value_name = "KEY.PATH=VALUE")]
    overrides: Vec<String>,
}

/// Single-quotes `s` for bash.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn absolute(p: &Path) -> Result<PathBuf> {
    Ok(if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()?.join(p)
    })
}

/// Most CPUs one array task may ask for (no node has more).
const MAX_CPUS_PER_TASK: u32 = 4096;

/// `--partition`: one or more partition names separated by commas (Slurm's `-p p1,p2`), each
/// letters, digits, `_`, `-` or `.`; nothing a shell or `#SBATCH` line would read otherwise.
fn check_partition(p: &str) -> Result<()> {
    let word = |w: &str| {
        !w.is_empty()
            && w.len() <= 64
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    };
    if !p.split(',').all(word) {
        bail!(
            "--partition {p:?}: partition names (letters, digits, '_', '-', '.'), separated by commas"
        );
    }
    Ok(())
}

/// `--time`: one of Slurm's time formats (`minutes`, `minutes:seconds`,
/// `hours:minutes:seconds`, `days-hours`, `days-hours:minutes`, `days-hours:minutes:seconds`)
/// or `UNLIMITED`.
fn check_time_limit(t: &str) -> Result<()> {
    let digits = |s: &str| !s.is_empty() && s.len() <= 9 && s.chars().all(|c| c.is_ascii_digit());
    let ok = t.eq_ignore_ascii_case("unlimited")
        || t.eq_ignore_ascii_case("infinite")
        || match t.split_once('-') {
            Some((days, rest)) => {
                digits(days) && rest.split(':').count() <= 3 && rest.split(':').all(digits)
            }
            None => t.split(':').count() <= 3 && t.split(':').all(digits),
        };
    if !ok {
        bail!(
            "--time {t:?}: a Slurm time limit: minutes, minutes:seconds, hours:minutes:seconds, days-hours[:minutes[:seconds]] or UNLIMITED (e.g. 02:00:00)"
        );
    }
    Ok(())
}

/// Refuses, before any job is written, a results folder (or a shard folder in it) that holds
/// another sweep's results: the shards would run to the end and the merge job fail on it
/// (the same check `sweep` makes when it opens its folder).
fn check_folders(out: &Path, sweep: &Sweep) -> Result<()> {
    use incastsim::sweep::store::{Lock, read_lock};
    let lock = Lock::of(sweep);
    let mut folders = vec![out.to_path_buf()];
    if let Ok(shards) = std::fs::read_dir(out.join("shards")) {
        let mut found: Vec<PathBuf> = shards.filter_map(|e| Some(e.ok()?.path())).collect();
        found.sort();
        folders.extend(found);
    }
    for folder in folders {
        if let Some(existing) = read_lock(&folder)?
            && existing != lock
        {
            bail!(
                "{} holds results of a different sweep configuration: the shards would run and \
                 the merge job fail on it. Use another --out folder, or delete that one",
                folder.display()
            );
        }
    }
    Ok(())
}

pub fn slurm(args: SlurmArgs, ext: &incastsim::scenario::Extensions) -> Result<()> {
    if args.shards == 0 {
        bail!("--shards 0: at least 1 shard is needed");
    }
    if args.cpus_per_task == 0 {
        bail!("--cpus-per-task 0: at least 1 CPU is needed");
    }
    if args.cpus_per_task > MAX_CPUS_PER_TASK {
        bail!(
            "--cpus-per-task {}: at most {MAX_CPUS_PER_TASK} (the CPUs of one node)",
            args.cpus_per_task
        );
    }
    // Both go verbatim into `#SBATCH` lines of a shell script: plain Slurm words only.
    if let Some(p) = &args.partition {
        check_partition(p)?;
    }
    if let Some(t) = &args.time {
        check_time_limit(t)?;
    }
    let sweep = Sweep::load_with(&args.config, &args.overrides, ext)
        .with_context(|| format!("invalid sweep config {}", args.config.display()))?;
    let runs = sweep.runs_total();
    if u64::from(args.shards) > runs {
        bail!(
            "--shards {}: more shards than the sweep's {runs} runs (a shard would have nothing to run); at most {runs}",
            args.shards
        );
    }
    let name = sweep.points[0].config.name.clone();
    let out = absolute(&args.out.unwrap_or_else(|| PathBuf::from("out").join(&name)))?;
    check_folders(&out, &sweep)?;
    let dir = out.join("slurm");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let exe = match args.incastsim {
        Some(p) => absolute(&p)?,
        None => std::env::current_exe().context("locating the incastsim binary")?,
    };
    let workdir = std::env::current_dir()?;
    // The sweep as overridden, so the jobs run exactly this even if the config file changes.
    let spec = dir.join("sweep.yaml");
    std::fs::write(
        &spec,
        format!(
            "# The sweep the Slurm jobs run (written by {} slurm from {}).\n{}",
            incastsim::config::program::name(),
            args.config.display(),
            sweep.input_yaml()
        ),
    )
    .with_context(|| format!("writing {}", spec.display()))?;

    let (n, q) = (args.shards, |p: &Path| quote(&p.display().to_string()));
    let mut head = String::from("#!/usr/bin/env bash\n");
    if let Some(p) = &args.partition {
        writeln!(head, "#SBATCH --partition={p}")?;
    }
    let mut shards = head.clone();
    writeln!(shards, "#SBATCH --job-name=incastsim-{name}")?;
    writeln!(shards, "#SBATCH --array=1-{n}")?;
    writeln!(shards, "#SBATCH --cpus-per-task={}", args.cpus_per_task)?;
    writeln!(shards, "#SBATCH --output={}/shard-%a.log", dir.display())?;
    if let Some(t) = &args.time {
        writeln!(shards, "#SBATCH --time={t}")?;
    }
    writeln!(
        shards,
        "# Array task i runs shard i/{n} of the sweep into {}/shards/shard-i;\n\
         # rerunning a task resumes its shard.\nset -euo pipefail\ncd {}\nexec {} sweep {} \\\n  \
         --jobs \"${{SLURM_CPUS_PER_TASK:-1}}\" --shard \"${{SLURM_ARRAY_TASK_ID}}/{n}\" \\\n  \
         --out {}/shards/shard-\"${{SLURM_ARRAY_TASK_ID}}\" --no-plots",
        out.display(),
        q(&workdir),
        q(&exe),
        q(&spec),
        q(&out)
    )?;
    let mut merge = head;
    writeln!(merge, "#SBATCH --job-name=incastsim-{name}-merge")?;
    writeln!(merge, "#SBATCH --cpus-per-task=1")?;
    writeln!(merge, "#SBATCH --output={}/merge.log", dir.display())?;
    writeln!(
        merge,
        "# Runs after every array task succeeded (submit.sh: --dependency=afterok).\n\
         set -euo pipefail\ncd {}\nexec {} merge {}/shards/shard-* --out {}",
        q(&workdir),
        q(&exe),
        q(&out),
        q(&out)
    )?;
    let submit = format!(
        "#!/usr/bin/env bash\n\
         # Submits the shards as one job array, then the merge as a job that waits for all of\n\
         # them to succeed. Prints the two job ids.\n\
         set -euo pipefail\n\
         array=$(sbatch --parsable {shards})\n\
         array=${{array%%;*}}\n\
         merge=$(sbatch --parsable --dependency=afterok:\"$array\" {merge})\n\
         echo \"shards: job array $array ({n} tasks); merge: job ${{merge%%;*}}\"\n",
        shards = q(&dir.join("shards.sbatch")),
        merge = q(&dir.join("merge.sbatch")),
    );
    for (file, text) in [
        ("shards.sbatch", shards),
        ("merge.sbatch", merge),
        ("submit.sh", submit),
    ] {
        let path = dir.join(file);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
        }
    }
    println!(
        "{name}: {} points x {} seeds = {} runs in {n} shards of {} CPUs",
        sweep.points.len(),
        sweep.seeds,
        sweep.runs_total(),
        args.cpus_per_task
    );
    println!(
        "  scripts in {} (shards.sbatch, merge.sbatch)",
        dir.display()
    );
    println!("  submit with: bash {}", dir.join("submit.sh").display());
    println!("  merged results will be in {}", out.display());
    Ok(())
}
