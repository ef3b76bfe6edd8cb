//! incastsim-sweep: parameter sweeps. A `sweep:` section turns one config into a grid of points
//! × seeds; [`run_sweep`] runs them in parallel (rayon) into a resumable folder; [`merge()`]
//! combines shards; [`stats`] computes per-point summaries with t-based confidence intervals.
//!
//! Each run's seed is derived from the base seed, the point's label and the replicate number
//! ([`spec::run_seed`]), so results never depend on thread count, shard or run order.

#![warn(missing_docs)]

pub mod cost;
pub mod exec;
mod fields;
pub mod lock;
pub mod merge;
mod rows;
pub mod spec;
pub mod stats;
pub mod store;
pub mod summary;

pub use exec::{Progress, Shard, Silent, SweepReport, run_sweep, run_sweep_until};
pub use merge::merge;
pub use spec::{PlotSpec, Point, Sweep, SweepError, run_seed};
pub use store::write_descriptions;
