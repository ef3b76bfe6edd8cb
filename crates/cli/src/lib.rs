//! The parts of the `incastsim` command-line tool that other front ends reuse (the Python
//! package calls `incastsim model` through [`model_cmd::model_from_args`]).

pub mod model_cmd;
