//! The `incastsim` command-line tool: the library's command line with the built-in components
//! (a downstream binary calls [`incastsim_cli::main_with`] with its own).

fn main() -> std::process::ExitCode {
    incastsim_cli::main_with(incastsim::Extensions::builtin())
}
