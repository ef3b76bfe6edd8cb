//! The scenario configuration: the `incastsim-config` crate, re-exported here so the
//! `incastsim_scenario::config::...` paths keep working. The checks that need the topology built
//! or the traffic drawn are [`crate::check_buildable`].

pub use incastsim_config::*;
