//! Loading a config: YAML text → tree → `--set` overrides → typed structs (unknown keys refused,
//! errors name the key path) → [`Config::resolved`] → [`crate::check_config`].

use crate::config::Config;
use crate::error::ConfigError;
use crate::tree::{apply_override, deep_merge, parse_tree};

/// Most bytes read from a config file (far above any real config).
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// Reads a text file of at most `limit` bytes: a larger file (or an endless one such as
/// /dev/zero) is refused after `limit` bytes instead of read forever.
pub fn read_bounded(path: &std::path::Path, limit: u64, what: &str) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "{}: larger than {} bytes, too large for {what}",
            path.display(),
            limit
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", path.display()))
}

impl Config {
    /// Reads, overrides, type-checks and validates a config file ([`Config::validate`]: the
    /// config-only checks; the scenario crate's `check_buildable` does the rest).
    pub fn load(path: &std::path::Path, overrides: &[String]) -> Result<Config, ConfigError> {
        let text = read_bounded(path, MAX_CONFIG_BYTES, "a config").map_err(|message| {
            ConfigError::Io {
                path: path.display().to_string(),
                message,
            }
        })?;
        Config::from_yaml(&text, overrides)
    }

    /// [`Config::load`] on YAML text.
    pub fn from_yaml(text: &str, overrides: &[String]) -> Result<Config, ConfigError> {
        let mut tree = parse_tree(text)?;
        for o in overrides {
            apply_override(&mut tree, o)?;
        }
        // `--set sweep=null` runs a sweep config's base point as one scenario.
        if let Some(m) = tree.as_object_mut()
            && m.get("sweep").is_some_and(|v| v.is_null())
        {
            m.remove("sweep");
        }
        if tree.get("sweep").is_some() {
            return Err(ConfigError::HasSweep);
        }
        Config::from_tree(tree)
    }

    /// Type-checks, resolves and validates ([`Config::validate`]) a config tree, with any
    /// overrides already applied.
    pub fn from_tree(mut tree: serde_json::Value) -> Result<Config, ConfigError> {
        // A flow override's `tcp` is partial: complete it from the top-level `tcp`.
        let base_tcp = tree
            .get("tcp")
            .cloned()
            .unwrap_or(serde_json::Value::Object(Default::default()));
        if let Some(serde_json::Value::Array(groups)) = tree.get_mut("flow_overrides") {
            for g in groups.iter_mut() {
                if let Some(over) = g.get("tcp").cloned() {
                    let mut merged = base_tcp.clone();
                    deep_merge(&mut merged, &over);
                    g["tcp"] = merged;
                }
            }
        }
        let cfg: Config = serde_path_to_error::deserialize(tree).map_err(|e| {
            let key = e.path().to_string();
            ConfigError::Key {
                key: if key == "." { "config".into() } else { key },
                message: e.into_inner().to_string(),
            }
        })?;
        let cfg = cfg.resolved();
        cfg.validate()?;
        Ok(cfg)
    }

    /// The checks that need only config values: ranges, units, buffers against packet sizes,
    /// queue thresholds, host selectors, scheme parameters. Refuses scenarios that cannot run,
    /// naming the key and what is allowed. [`Config::from_tree`] runs it.
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::check::check_config(self)
    }
}
