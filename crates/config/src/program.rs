//! The name of the running program, for the messages that tell a user what to type next
//! ("run it with `incastsim sweep`"). A downstream binary built on `incastsim_cli::main_with`
//! is its own program (`my-sim sweep` knows its components, `incastsim sweep` does not), so
//! the command line sets the name once at start-up, from the executable's. Display only: no
//! result depends on it (a sweep folder's `sweep.yaml` names it in its header comment, as the
//! command that reproduces the sweep).

use std::sync::OnceLock;

static NAME: OnceLock<String> = OnceLock::new();

/// The program's name: `incastsim` unless the command line set another.
pub fn name() -> &'static str {
    NAME.get().map_or("incastsim", String::as_str)
}

/// Sets the program's name (the first call wins: it is set once, before anything runs).
pub fn set_name(name: &str) {
    let _ = NAME.set(name.to_string());
}
