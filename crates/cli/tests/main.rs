//! The crate's integration tests, one module per file, in one test binary (one link of
//! the workspace instead of one per file: issue 39, item 1).

mod cli;
mod csv_schema;
mod diagnostics;
mod golden;
mod limits;
mod model;
mod reproduce;
mod sweep;
mod warnings;
