//! Running a sweep: every (point, replicate) of a shard, in parallel, into a resumable store.

use crate::spec::{Sweep, SweepError, run_seed, stable_hash};
use crate::store::{Store, finalize};
use incastsim_core::rng::mix64;
use incastsim_scenario::{RunError, RunOptions, run_with};
use rayon::prelude::*;
use std::path::Path;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

/// `--shard i/n`: this machine runs the i-th of n disjoint parts (1 ≤ i ≤ n).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// i, 1-based.
    pub index: u32,
    /// n, the number of shards.
    pub count: u32,
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("invalid shard {s:?}: expected i/n with 1 <= i <= n, e.g. 2/8");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// Whether a run belongs to this shard: a stable hash of (point, replicate), so adding
    /// seeds or points never moves an existing run to another shard.
    pub fn contains(&self, label: &str, replicate: u32) -> bool {
        mix64(stable_hash(label) ^ replicate as u64) % self.count as u64 == (self.index - 1) as u64
    }
}

/// Receives progress as runs finish (called from one thread).
pub trait Progress {
    /// The sweep starts: `runs_in_shard` runs, `already_done` of them stored by an earlier attempt.
    fn begin(&self, _runs_in_shard: u64, _already_done: u64) {}
    /// Something the user should know (runs found incomplete and re-run).
    fn note(&self, _message: &str) {}
    /// `done` runs of the shard are now stored (earlier ones included).
    fn advance(&self, _done: u64) {}
    /// The same in expected cost ([`crate::cost::expected_cost`]): `done` of the shard's
    /// `total` (earlier attempts' runs included). Called at the start and before each
    /// [`Progress::advance`]; an ETA weighs runs by it.
    fn advance_cost(&self, _done: f64, _total: f64) {}
    /// The sweep finished or stopped.
    fn end(&self) {}
    /// Polled after each stored run and about every 100 ms while runs are in progress: true
    /// stops the sweep. No new run
    /// starts, the runs in progress finish and are stored, and `run_sweep` returns
    /// [`SweepError::Interrupted`] (running the same sweep again resumes).
    fn should_stop(&self) -> bool {
        false
    }
}

/// No progress output.
pub struct Silent;
impl Progress for Silent {}

/// What a sweep did.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SweepReport {
    /// Grid points.
    pub points: usize,
    /// Runs (points × seeds) this shard is responsible for.
    pub runs_in_shard: u64,
    /// Of those, runs found stored and skipped (resume).
    pub runs_already_done: u64,
    /// Runs computed by this call.
    pub runs_computed: u64,
    /// Runs found incomplete or altered in the folder and computed again.
    pub runs_redone: u64,
    /// Stopped by the stop flag: the runs not yet computed are left for a resume, and the
    /// files are not finalized (no summary.csv).
    pub interrupted: bool,
}

/// Runs the sweep into `dir` with `jobs` threads. Results are identical for any `jobs`.
pub fn run_sweep(
    sweep: &Sweep,
    dir: &Path,
    jobs: usize,
    shard: Option<Shard>,
    progress: &dyn Progress,
) -> Result<SweepReport, SweepError> {
    let stop = AtomicBool::new(false);
    let report = run_sweep_until(sweep, dir, jobs, shard, progress, (&stop, None))?;
    if report.interrupted {
        // Stopped by `Progress::should_stop` (a library caller, e.g. Ctrl-C in Python): an
        // error, so a caller cannot mistake the partial folder for a finished sweep.
        return Err(SweepError::Interrupted {
            done: report.runs_already_done + report.runs_computed,
            total: report.runs_in_shard,
        });
    }
    Ok(report)
}

/// [`run_sweep`] that stops between runs once `stop` is set (SIGINT/SIGTERM): runs in progress
/// are abandoned (they are computed again on resume), stored runs stay, the sweep resumes later.
/// Each run is refused if its memory estimate exceeds `max_run_memory` bytes.
pub fn run_sweep_until(
    sweep: &Sweep,
    dir: &Path,
    jobs: usize,
    shard: Option<Shard>,
    progress: &dyn Progress,
    (stop, max_run_memory): (&AtomicBool, Option<u64>),
) -> Result<SweepReport, SweepError> {
    if !crate::lock::writable(dir) {
        return finished_read_only(sweep, dir, shard);
    }
    // Held until the files are final: a second sweep into `dir` is refused, not interleaved.
    let _lock = crate::lock::lock_folder(dir)?;
    let lock = crate::store::Lock::of(sweep);
    let mut store = Store::open(dir, &lock, sweep.seeds)?;
    crate::store::write_descriptions(dir, sweep)?;
    if !store.rerun.is_empty() {
        let shown: Vec<&str> = store.rerun.iter().take(10).map(String::as_str).collect();
        progress.note(&format!(
            "{} run(s) in {} were incomplete or altered and will be run again: {}{}",
            store.rerun.len(),
            dir.display(),
            shown.join("; "),
            if store.rerun.len() > shown.len() {
                "; ..."
            } else {
                ""
            }
        ));
    }
    let runs_redone = store.rerun.len() as u64;
    let mine = shard_runs(sweep, shard);
    let pending: Vec<(u32, u32)> = mine
        .iter()
        .copied()
        .filter(|&(p, r)| !store.is_done(p, r))
        .collect();
    let already = (mine.len() - pending.len()) as u64;
    progress.begin(mine.len() as u64, already);
    let point_cost: Vec<f64> = sweep
        .points
        .iter()
        .map(|p| crate::cost::expected_cost(&p.config))
        .collect();
    let total_cost: f64 = mine.iter().map(|&(p, _)| point_cost[p as usize]).sum();
    let pending_cost: f64 = pending.iter().map(|&(p, _)| point_cost[p as usize]).sum();
    progress.advance_cost(total_cost - pending_cost, total_cost);

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| SweepError::Store(format!("cannot start {jobs} worker threads: {e}")))?;
    let (computed, failure) = run_pending(
        sweep,
        &mut store,
        pool,
        &pending,
        (already, stop, max_run_memory),
        (&point_cost, total_cost - pending_cost, total_cost),
        progress,
    );
    progress.end();
    if let Some(e) = failure {
        return Err(e);
    }
    drop(store);
    let interrupted = stop.load(Ordering::Relaxed) && already + computed < mine.len() as u64;
    if !interrupted {
        finalize(dir, &lock)?;
    }
    Ok(SweepReport {
        interrupted,
        points: sweep.points.len(),
        runs_in_shard: mine.len() as u64,
        runs_already_done: already,
        runs_computed: computed,
        runs_redone,
    })
}

/// A sweep into a folder it may not write (a read-only mount): fine if the folder already
/// holds every run of this sweep (then nothing is written and nothing locked), refused otherwise.
fn finished_read_only(
    sweep: &Sweep,
    dir: &Path,
    shard: Option<Shard>,
) -> Result<SweepReport, SweepError> {
    let mine = shard_runs(sweep, shard);
    let done = crate::store::finished_runs(dir, &crate::store::Lock::of(sweep))?;
    let missing = mine.iter().filter(|id| !done.contains(id)).count();
    if missing > 0 || !dir.join(crate::store::SUMMARY_FILE).exists() {
        return Err(SweepError::Store(format!(
            "{} is read-only and its sweep is not finished ({missing} of {} runs missing): use another --out folder",
            dir.display(),
            mine.len()
        )));
    }
    Ok(SweepReport {
        points: sweep.points.len(),
        runs_in_shard: mine.len() as u64,
        runs_already_done: mine.len() as u64,
        runs_computed: 0,
        runs_redone: 0,
        interrupted: false,
    })
}

/// The (point, replicate) runs of `shard` (every run without one), points in order.
fn shard_runs(sweep: &Sweep, shard: Option<Shard>) -> Vec<(u32, u32)> {
    sweep
        .points
        .iter()
        .flat_map(|p| (0..sweep.seeds).map(move |r| (p.index, r)))
        .filter(|&(p, r)| shard.is_none_or(|s| s.contains(&sweep.points[p as usize].label, r)))
        .collect()
}

/// Runs `pending` on `pool` and appends each result to the store from this thread as it
/// arrives. After the first failure no new run starts; returns the runs stored and that
/// failure.
fn run_pending(
    sweep: &Sweep,
    store: &mut Store,
    pool: rayon::ThreadPool,
    pending: &[(u32, u32)],
    (already, interrupt, max_memory): (u64, &AtomicBool, Option<u64>),
    (point_cost, mut done_cost, total_cost): (&[f64], f64, f64),
    progress: &dyn Progress,
) -> (u64, Option<SweepError>) {
    let stop = AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::channel();
    let mut failure: Option<SweepError> = None;
    let mut computed = 0u64;
    std::thread::scope(|scope| {
        let stop = &stop;
        scope.spawn(move || {
            pool.install(|| {
                pending.par_iter().for_each_with(tx, |tx, &(p, r)| {
                    if stop.load(Ordering::Relaxed) || interrupt.load(Ordering::Relaxed) {
                        return;
                    }
                    let point = &sweep.points[p as usize];
                    let seed = run_seed(point.config.seed, &point.label, r);
                    let options = RunOptions::new()
                        .extensions(&sweep.extensions)
                        .max_memory(max_memory)
                        .stop(interrupt);
                    let outcome = run_with(&point.config, seed, &options);
                    let _ = tx.send((p, r, seed, outcome));
                })
            })
        });
        loop {
            let (p, r, seed, outcome) = match rx.recv_timeout(std::time::Duration::from_millis(100))
            {
                Ok(message) => message,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if progress.should_stop() {
                        // As SIGINT: runs in progress are abandoned and computed on resume.
                        interrupt.store(true, Ordering::Relaxed);
                    }
                    continue;
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            };
            let point = &sweep.points[p as usize];
            let written = match outcome {
                // Finished after the stop: not stored either (the stop takes effect at once,
                // whatever the channel still holds), so a resume computes it again.
                Ok(_) if interrupt.load(Ordering::Relaxed) => continue,
                Ok(result) => store.append(point, r, &result),
                // Abandoned by the stop flag: not stored, so a resume computes it.
                Err(RunError::Interrupted) => continue,
                Err(message) => Err(SweepError::Run {
                    label: point.label.clone(),
                    replicate: r,
                    seed,
                    message: message.to_string(),
                }),
            };
            match written {
                Ok(()) => {
                    computed += 1;
                    done_cost += point_cost[p as usize];
                    progress.advance_cost(done_cost, total_cost);
                    progress.advance(already + computed);
                    if progress.should_stop() {
                        // As SIGINT: runs in progress are abandoned and computed on resume.
                        interrupt.store(true, Ordering::Relaxed);
                    }
                }
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    failure.get_or_insert(e);
                }
            }
        }
    });
    (computed, failure)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_specs() {
        assert_eq!("2/8".parse::<Shard>(), Ok(Shard { index: 2, count: 8 }));
        assert!("3/2".parse::<Shard>().unwrap_err().contains("1 <= i <= n"));
        assert!("0/2".parse::<Shard>().is_err());
        assert!("1/0".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }

    /// Stops after the first stored run.
    struct StopAfterFirst(std::cell::Cell<u64>);
    impl Progress for StopAfterFirst {
        fn advance(&self, done: u64) {
            self.0.set(done);
        }
        fn should_stop(&self) -> bool {
            self.0.get() >= 1
        }
    }

    #[test]
    fn a_stopped_sweep_keeps_its_runs_and_resumes() {
        let yaml = "senders: 2\ntopology: {kind: star}\n\
                    workload: {kind: synchronized_reads, sru: 20KB, blocks: 2}\n\
                    sweep: {seeds: 6, grid: {senders: [2, 3]}}\n";
        let sweep = Sweep::from_yaml(yaml, &[]).unwrap();
        let dir = std::env::temp_dir().join(format!("incastsim-stop-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let stop = StopAfterFirst(std::cell::Cell::new(0));
        match run_sweep(&sweep, &dir, 1, None, &stop) {
            Err(SweepError::Interrupted { done, total }) => assert!(done >= 1 && done < total),
            other => panic!("expected an interruption, got {other:?}"),
        }
        let report = run_sweep(&sweep, &dir, 2, None, &Silent).unwrap();
        assert!(report.runs_already_done >= 1);
        assert_eq!(report.runs_already_done + report.runs_computed, 12);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn shards_partition_the_runs() {
        let shards: Vec<Shard> = (1..=3).map(|i| Shard { index: i, count: 3 }).collect();
        for p in 0..20 {
            let label = format!("senders={p}");
            for r in 0..10 {
                assert_eq!(shards.iter().filter(|s| s.contains(&label, r)).count(), 1);
            }
        }
    }
}
