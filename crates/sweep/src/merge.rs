//! `incastsim merge`: combines shard folders into the files one machine would have written.

use crate::spec::SweepError;
use crate::store::{read_lock, write_final, write_lock};
use std::path::{Path, PathBuf};

/// Files copied from the first shard (identical in every shard of one sweep).
const SHARED_FILES: [&str; 2] = ["sweep.yaml", "points.resolved.yaml"];

/// Merges the shard folders `dirs` into `out`: runs.csv, flows.csv and summary.csv as one
/// machine would have written them (a run in two shards is kept once). Returns the number of
/// runs.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<u64, SweepError> {
    let first = dirs
        .first()
        .ok_or_else(|| SweepError::Store("merge needs at least one folder".into()))?;
    let lock = read_lock(first)?.ok_or_else(|| {
        SweepError::Store(format!(
            "{} is not a sweep folder (no sweep.lock.json)",
            first.display()
        ))
    })?;
    for d in dirs {
        match read_lock(d)? {
            Some(l) if l == lock => {}
            Some(_) => {
                return Err(SweepError::Store(format!(
                    "{} comes from a different sweep configuration than {}: refusing to merge",
                    d.display(),
                    first.display()
                )));
            }
            None => {
                return Err(SweepError::Store(format!(
                    "{} is not a sweep folder (no sweep.lock.json)",
                    d.display()
                )));
            }
        }
    }
    // The sources are only read (they may be on a read-only mount); the output is locked.
    let _lock = crate::lock::lock_folder(out)?;
    if let Some(existing) = read_lock(out)?
        && existing != lock
    {
        return Err(SweepError::Store(format!(
            "{} holds results of a different sweep",
            out.display()
        )));
    }
    write_lock(out, &lock)?;
    for f in SHARED_FILES {
        let src = first.join(f);
        if src.exists() && src != out.join(f) {
            std::fs::copy(&src, out.join(f))
                .map_err(|e| SweepError::Store(format!("{}: {e}", src.display())))?;
        }
    }
    write_final(dirs, out, &lock)
}
