//! The one error type of config loading and checking.

use std::fmt;

/// A configuration error: which key, what value, what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {message}")]
    Io { path: String, message: String },
    #[error("YAML syntax error: {0}")]
    Syntax(String),
    #[error("{key}: {message}")]
    Key { key: String, message: String },
    #[error("{key} = {value}: {allowed}")]
    Invalid {
        key: String,
        value: String,
        allowed: String,
    },
    #[error("--set {arg:?}: {message}")]
    Override { arg: String, message: String },
    #[error(
        "this config has a `sweep:` section: run it with `incastsim sweep`, or run its base point with --set sweep=null"
    )]
    HasSweep,
}

/// A [`ConfigError::Invalid`]: `key = value: allowed`.
pub fn invalid(key: &str, value: impl fmt::Display, allowed: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_string(),
        value: value.to_string(),
        allowed: allowed.into(),
    }
}
