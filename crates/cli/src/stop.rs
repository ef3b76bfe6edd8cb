//! SIGINT/SIGTERM as a request to stop cleanly: the first sets a flag that `run` and `sweep`
//! poll (a run stops within a few thousand events and writes what it computed, marked
//! incomplete; a sweep stops between runs and resumes later); a second one kills as usual.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// Set by the first SIGINT/SIGTERM.
pub static STOP: AtomicBool = AtomicBool::new(false);
static SIGNAL: AtomicI32 = AtomicI32::new(0);

#[cfg(unix)]
extern "C" fn on_signal(sig: libc::c_int) {
    SIGNAL.store(sig, Ordering::SeqCst);
    STOP.store(true, Ordering::SeqCst);
    // SAFETY: signal() is async-signal-safe; the next such signal kills the process.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
    }
}

/// Installs the handlers (for commands that can stop cleanly).
pub fn install() {
    #[cfg(unix)]
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only stores to atomics and calls signal().
        unsafe {
            libc::signal(sig, on_signal as *const () as libc::sighandler_t);
        }
    }
}

/// The command's results are complete (a sweep stored every run and wrote its sorted files and
/// summary): a stop signal that came meanwhile stopped nothing, so the command exits as if none
/// had come. Returns whether one had (the caller says so).
pub fn came_too_late() -> bool {
    SIGNAL.swap(0, Ordering::SeqCst) != 0
}

/// The conventional exit status after a stop by signal (128 + its number), if one came.
pub fn exit_status() -> Option<u8> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => u8::try_from(128 + s).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A signal that came after the results were complete leaves the exit status clean; one
    /// that came before (and stopped something) gives 128 + its number.
    #[test]
    fn a_signal_after_the_results_is_forgotten() {
        SIGNAL.store(2, Ordering::SeqCst);
        assert_eq!(exit_status(), Some(130));
        assert!(came_too_late());
        assert_eq!(exit_status(), None);
        assert!(!came_too_late());
    }
}
