//! An exclusive advisory lock on a sweep folder, held for the whole sweep (or merge).
//!
//! Two sweeps appending to one folder would interleave or drop each other's rows, so a sweep
//! takes `flock(LOCK_EX | LOCK_NB)` on `sweep.lock` before touching any file and keeps it until
//! its files are final. The lock file says who holds it (pid, host, start time); a second sweep
//! reads that and refuses. The kernel releases the lock when the holder exits, even on SIGKILL,
//! so a crashed sweep never leaves a stale lock behind (the file stays, the lock does not).

use crate::spec::SweepError;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The lock file that keeps two sweeps from writing one folder.
pub const FOLDER_LOCK_FILE: &str = "sweep.lock";

/// Held while a sweep writes its folder; dropping it releases the lock.
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
    /// The lock file.
    pub path: PathBuf,
}

fn host_name() -> String {
    #[cfg(unix)]
    {
        let mut buf = [0u8; 256];
        // SAFETY: the buffer is valid for its length; gethostname NUL-terminates on success.
        let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
        if rc == 0 {
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            return String::from_utf8_lossy(&buf[..end]).into_owned();
        }
    }
    "unknown host".into()
}

/// Whether this process may create files in `dir` (false on a read-only mount). A folder that
/// does not exist yet counts as writable: creating it will say if it is not.
pub fn writable(dir: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
            return true;
        };
        if !dir.exists() {
            return true;
        }
        // SAFETY: a valid NUL-terminated path.
        unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        true
    }
}

/// Tries to lock without waiting: Ok(true) if locked, Ok(false) if someone else holds it.
#[cfg(unix)]
fn try_lock(f: &File) -> std::io::Result<bool> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a file descriptor we own.
    let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(e)
    }
}

#[cfg(not(unix))]
fn try_lock(_f: &File) -> std::io::Result<bool> {
    Ok(true)
}

/// Locks `dir` (created if needed) for one writer, or says who holds it.
pub fn lock_folder(dir: &Path) -> Result<FolderLock, SweepError> {
    let path = dir.join(FOLDER_LOCK_FILE);
    let err = |e: std::io::Error| SweepError::Store(format!("{}: {e}", path.display()));
    std::fs::create_dir_all(dir)
        .map_err(|e| SweepError::Store(format!("{}: {e}", dir.display())))?;
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(err)?;
    if !try_lock(&file).map_err(err)? {
        // The holder writes who it is just after taking the lock: a sweep started at the
        // same moment can read before that, so wait a little for the line.
        let mut holder = String::new();
        for _ in 0..20 {
            holder.clear();
            let _ = file.seek(SeekFrom::Start(0));
            let _ = file.read_to_string(&mut holder);
            if holder.ends_with('\n') {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let holder = holder.trim();
        return Err(SweepError::Store(format!(
            "{} is in use by another sweep or merge ({}); wait for it to finish, or use another --out folder",
            dir.display(),
            if holder.is_empty() {
                "holder unknown".to_string()
            } else {
                holder.to_string()
            }
        )));
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let who = format!(
        "pid {}, host {}, started {}\n",
        std::process::id(),
        host_name(),
        utc_time(now)
    );
    file.set_len(0).map_err(err)?;
    file.seek(SeekFrom::Start(0)).map_err(err)?;
    file.write_all(who.as_bytes()).map_err(err)?;
    file.flush().map_err(err)?;
    Ok(FolderLock { _file: file, path })
}

/// `2024-05-01 12:34:56 UTC` from Unix seconds (civil-from-days, H. Hinnant's algorithm).
fn utc_time(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_one_folder_is_refused_and_names_the_holder() {
        let dir = std::env::temp_dir().join(format!("incastsim-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let held = lock_folder(&dir).unwrap();
        let e = lock_folder(&dir).unwrap_err().to_string();
        assert!(e.contains("in use by another sweep"), "{e}");
        assert!(e.contains(&format!("pid {}", std::process::id())), "{e}");
        assert!(e.contains(" UTC"), "{e}");
        drop(held);
        lock_folder(&dir).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn utc_times() {
        assert_eq!(utc_time(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc_time(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc_time(1_700_000_000), "2023-11-14 22:13:20 UTC");
    }
}
