//! The whole `incastsim` command line (run, sweep, merge, plot, check, reproduce, slurm, ...)
//! with this crate's components registered: `tcp.congestion_control: {name: my_reno, beta: 0.7}`,
//! `scheme: {name: rto_jitter, max_extra: 50us}` and `topology.switch_queue: {name:
//! my_threshold, threshold: 20 packets}` work in every command.

fn main() -> std::process::ExitCode {
    incastsim_cli::main_with(incastsim_extend_template::extensions())
}
