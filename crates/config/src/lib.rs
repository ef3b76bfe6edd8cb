//! incastsim-config: the scenario config of incastsim, and the only place that reads one.
//!
//! - [`config`]: the top-level [`Config`] (load, `--set` overrides, resolved defaults, YAML out).
//! - [`units`]: human units ("25us", "1Gbps", "32KB").
//! - [`tree`]: the generic YAML tree and `--set key.path=value` overrides.
//! - [`topology`], [`tcp`], [`workload`], [`traffic`], [`scheme`]: the sections.
//! - [`extension`]: components registered by a downstream crate, chosen by name.
//! - [`experiment`]: the `incastsim experiment` file.
//! - [`check`]: the checks that need only config values (run by [`Config::from_tree`]); the
//!   checks that need a built topology are the scenario crate's.
//! - [`warnings`]: valid configs that cannot mean what they say (printed, in the manifest;
//!   `--strict` refuses them).

#![warn(missing_docs)]

pub mod check;
mod choice;
pub mod collective;
pub mod config;
mod defaults;
pub mod error;
pub mod experiment;
pub mod extension;
mod load;
pub mod pfc;
pub mod profiles;
pub mod program;
mod queue;
pub mod rdma_cc;
pub mod scheme;
pub mod tcp;
pub mod topology;
pub mod traffic;
pub mod transport;
pub mod tree;
pub mod units;
pub mod warnings;
pub mod workload;

pub use check::{check_config, check_name, check_tcp};
pub use config::{Config, FlowOverride, RunConfig, TcpSectionKey, TieOrderConfig};
pub use error::{ConfigError, invalid};
pub use extension::{Catalog, ExtensionChoice, ExtensionPoint, NoExtensions};
pub use load::{MAX_CONFIG_BYTES, read_bounded};
pub use pfc::{DeadlockAction, DeadlockConfig, DynamicXoff, Headroom, PfcConfig};
pub use rdma_cc::{
    AlphaUpdateConfig, CcPreset, DecreaseOrderConfig, HyperIncreaseConfig, RDMA_CC_KINDS,
    RdmaCcConfig, TimelyUpdateConfig,
};
pub use scheme::SchemeConfig;
pub use tcp::*;
pub use topology::*;
pub use transport::{RoceRecovery, RoceTransportConfig, TransportConfig};
pub use tree::{apply_override, deep_merge, parse_tree, parse_value, set_path};
pub use warnings::{ConfigWarning, config_warnings};
pub use workload::*;
