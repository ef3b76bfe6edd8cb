//! Configs and sweeps from code: [`ConfigBuilder`] (a base and keys set with typed values, checked
//! in full as a YAML file is) and [`ProgressFn`] (a sweep's progress as a closure).

use incastsim_scenario::{Config, ConfigError};
use serde::Serialize;
use std::path::Path;
use std::sync::Mutex;

/// A config built in code: start from the defaults, YAML text, a file or a tree, set keys by
/// their dotted path (the keys of the YAML and of `--set`: `"tcp.rto_min"`, `"traffic[0].load"`)
/// to any serializable value (numbers, booleans, strings in human units such as `"25us"`,
/// lists, maps), then [`ConfigBuilder::build`] checks it exactly as a config file is checked
/// (unknown keys, values, and what needs the topology built), with the same errors.
///
/// ```
/// use incastsim::ConfigBuilder;
/// let cfg = ConfigBuilder::new()
///     .set("senders", 4)
///     .set("topology", serde_json::json!({"kind": "star", "link_rate": "1Gbps"}))
///     .set("workload.kind", "synchronized_reads")
///     .set("workload.sru", "64KB")
///     .set("workload.blocks", 2)
///     .build()
///     .unwrap();
/// assert_eq!(cfg.senders, 4);
/// // A bad value gets the error a YAML file gets: the key, the value, what is allowed.
/// let err = ConfigBuilder::new().set("tcp.rto_min", "fast").build().unwrap_err();
/// assert!(err.to_string().contains("tcp.rto_min"), "{err}");
/// ```
#[derive(Clone, Debug)]
pub struct ConfigBuilder {
    tree: serde_json::Value,
    /// The first `set` that failed (reported by `build`, so calls chain).
    error: Option<ConfigError>,
}

impl Default for ConfigBuilder {
    fn default() -> Self {
        ConfigBuilder::new()
    }
}

impl ConfigBuilder {
    /// Every key at its default (an empty config).
    pub fn new() -> ConfigBuilder {
        ConfigBuilder::from_tree(serde_json::Value::Object(Default::default()))
    }

    /// A config tree (the YAML as a `serde_json::Value`, e.g. from `serde_json::json!`).
    pub fn from_tree(tree: serde_json::Value) -> ConfigBuilder {
        ConfigBuilder { tree, error: None }
    }

    /// YAML text (a config without a `sweep:` section).
    pub fn from_yaml(text: &str) -> Result<ConfigBuilder, ConfigError> {
        Ok(ConfigBuilder::from_tree(
            incastsim_config::tree::parse_tree(text)?,
        ))
    }

    /// A config file.
    pub fn from_file(path: &Path) -> Result<ConfigBuilder, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        ConfigBuilder::from_yaml(&text)
    }

    /// Sets the key at dotted path `key` to `value`, creating sections as needed.
    pub fn set(mut self, key: &str, value: impl Serialize) -> ConfigBuilder {
        if self.error.is_some() {
            return self;
        }
        let result = serde_json::to_value(value)
            .map_err(|e| e.to_string())
            .and_then(|v| incastsim_config::tree::set_path(&mut self.tree, key, v));
        if let Err(message) = result {
            self.error = Some(ConfigError::Key {
                key: key.to_string(),
                message,
            });
        }
        self
    }

    /// Applies `--set`-style overrides (`"senders=32"`).
    pub fn overrides(mut self, overrides: &[&str]) -> ConfigBuilder {
        for o in overrides {
            if self.error.is_some() {
                break;
            }
            if let Err(e) = incastsim_config::tree::apply_override(&mut self.tree, o) {
                self.error = Some(e);
            }
        }
        self
    }

    /// The tree as it stands (what `build` checks).
    pub fn tree(&self) -> &serde_json::Value {
        &self.tree
    }

    /// Type-checks, resolves and checks the config in full (as `incastsim check` does).
    pub fn build(self) -> Result<Config, ConfigError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let cfg = Config::from_tree(self.tree)?;
        incastsim_scenario::check_buildable(&cfg, &incastsim_scenario::Extensions::builtin())?;
        Ok(cfg)
    }

    /// [`ConfigBuilder::build`] knowing a downstream crate's components: names registered in
    /// `extensions` are accepted where a built-in's name is, and their parameters are checked
    /// and completed with their defaults exactly as when a file is loaded with them.
    pub fn build_with(
        self,
        extensions: &incastsim_scenario::Extensions,
    ) -> Result<Config, ConfigError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let cfg = Config::from_tree_with(self.tree, extensions)?;
        incastsim_scenario::check_buildable(&cfg, extensions)?;
        Ok(cfg)
    }
}

/// A sweep's progress as a closure: `f(done, total)` after each finished run (runs already in
/// the folder count as done), called from one thread.
///
/// ```no_run
/// use incastsim::{ProgressFn, sweep::{Sweep, run_sweep}};
/// let text = std::fs::read_to_string("configs/incast-sweep.yaml").unwrap();
/// let sweep = Sweep::from_yaml(&text, &[]).unwrap();
/// let progress = ProgressFn::new(|done, total| eprintln!("{done}/{total} runs"));
/// run_sweep(&sweep, "out/sweep".as_ref(), 2, None, &progress).unwrap();
/// ```
pub struct ProgressFn<F: Fn(u64, u64) + Send> {
    f: F,
    total: Mutex<u64>,
}

impl<F: Fn(u64, u64) + Send> ProgressFn<F> {
    /// A progress callback `f(runs_done, runs_total)`, called as runs finish.
    pub fn new(f: F) -> ProgressFn<F> {
        ProgressFn {
            f,
            total: Mutex::new(0),
        }
    }
}

impl<F: Fn(u64, u64) + Send> incastsim_sweep::Progress for ProgressFn<F> {
    fn begin(&self, runs_in_shard: u64, already_done: u64) {
        *self.total.lock().unwrap_or_else(|e| e.into_inner()) = runs_in_shard;
        (self.f)(already_done, runs_in_shard);
    }
    fn advance(&self, done: u64) {
        let total = *self.total.lock().unwrap_or_else(|e| e.into_inner());
        (self.f)(done, total);
    }
}
