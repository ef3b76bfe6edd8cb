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

/// The conventional exit status after a stop by signal (128 + its number), if one came.
pub fn exit_status() -> Option<u8> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => u8::try_from(128 + s).ok(),
    }
}
