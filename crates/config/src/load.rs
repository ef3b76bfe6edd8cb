//! Loading a config: YAML text → tree → `--set` overrides → typed structs (unknown keys refused,
//! errors name the key path) → [`Config::resolved`] → [`crate::check_config`].

use crate::config::Config;
use crate::error::ConfigError;
use crate::extension::{Catalog, NoExtensions, resolve_extensions};
use crate::profiles::expand_profile;
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

/// The tree as a [`Config`], or the path and message of the first error.
fn typed(tree: &serde_json::Value) -> Result<Config, (String, String)> {
    serde_path_to_error::deserialize(tree.clone())
        .map_err(|e| (e.path().to_string(), e.into_inner().to_string()))
}

/// The value at a serde_path_to_error path (`traffic[2].sizes`) in `tree`.
fn at_path<'a>(tree: &'a mut serde_json::Value, path: &str) -> Option<&'a mut serde_json::Value> {
    let mut v = tree;
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (name, index) = match part.split_once('[') {
            Some((n, i)) => (n, i.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        if !name.is_empty() {
            v = v.get_mut(name)?;
        }
        if let Some(i) = index {
            v = v.get_mut(i)?;
        }
    }
    Some(v)
}

/// Narrows an error reported at a section (`workload`, `traffic[2]`: sections chosen by their
/// `kind`, whose inner keys the deserializer does not name) down to the key inside it that
/// causes it: the first key whose removal changes the error. Repeats inside that key.
fn blame(tree: &serde_json::Value, mut key: String, message: String) -> (String, String) {
    for _ in 0..8 {
        let mut probe = tree.clone();
        if key == "." {
            break;
        }
        let Some(section) = at_path(&mut probe, &key) else {
            break;
        };
        let children: Vec<String> = match section {
            serde_json::Value::Object(m) => m.keys().filter(|k| *k != "kind").cloned().collect(),
            serde_json::Value::Array(a) => (0..a.len()).map(|i| format!("[{i}]")).collect(),
            _ => break,
        };
        let culprit = children.into_iter().find(|child| {
            let mut without = tree.clone();
            let Some(section) = at_path(&mut without, &key) else {
                return false;
            };
            match section {
                serde_json::Value::Object(m) => {
                    m.remove(child.as_str());
                }
                serde_json::Value::Array(a) => {
                    let i: usize = child[1..child.len() - 1].parse().unwrap_or(0);
                    a[i] = serde_json::Value::Null;
                }
                _ => {}
            }
            match typed(&without) {
                Ok(_) => true,
                Err((_, m)) if m.starts_with("missing field") => m.contains(&format!("`{child}`")),
                Err((_, m)) => m != message,
            }
        });
        match culprit {
            Some(c) if c.starts_with('[') => key = format!("{key}{c}"),
            Some(c) => key = format!("{key}.{c}"),
            None => break,
        }
    }
    (key, message)
}

impl Config {
    /// Reads, overrides, type-checks and validates a config file ([`Config::validate`]: the
    /// config-only checks; the scenario crate's `check_buildable` does the rest).
    pub fn load(path: &std::path::Path, overrides: &[String]) -> Result<Config, ConfigError> {
        Config::load_with(path, overrides, &NoExtensions)
    }

    /// [`Config::load`] knowing the extensions of `catalog` (components registered by a
    /// downstream crate, chosen by name; [`crate::extension`]).
    pub fn load_with(
        path: &std::path::Path,
        overrides: &[String],
        catalog: &dyn Catalog,
    ) -> Result<Config, ConfigError> {
        let text = read_bounded(path, MAX_CONFIG_BYTES, "a config").map_err(|message| {
            // read_bounded's message starts with the path, which the error names already.
            let shown = path.display().to_string();
            let message = message
                .strip_prefix(&format!("{shown}: "))
                .map_or(message.clone(), str::to_string);
            ConfigError::Io {
                path: shown,
                message,
            }
        })?;
        Config::from_yaml_with(&text, overrides, catalog)
    }

    /// [`Config::load`] on YAML text.
    pub fn from_yaml(text: &str, overrides: &[String]) -> Result<Config, ConfigError> {
        Config::from_yaml_with(text, overrides, &NoExtensions)
    }

    /// [`Config::from_yaml`] knowing the extensions of `catalog`.
    pub fn from_yaml_with(
        text: &str,
        overrides: &[String],
        catalog: &dyn Catalog,
    ) -> Result<Config, ConfigError> {
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
        Config::from_tree_with(tree, catalog)
    }

    /// Type-checks, resolves and validates ([`Config::validate`]) a config tree, with any
    /// overrides already applied.
    pub fn from_tree(tree: serde_json::Value) -> Result<Config, ConfigError> {
        Config::from_tree_with(tree, &NoExtensions)
    }

    /// [`Config::from_tree`] knowing the extensions of `catalog`: each extension's parameters
    /// are checked by it and completed with their defaults before the built-in checks run.
    pub fn from_tree_with(
        mut tree: serde_json::Value,
        catalog: &dyn Catalog,
    ) -> Result<Config, ConfigError> {
        // A named profile fills in the keys its `tcp` section leaves out.
        if let Some(tcp) = tree.get_mut("tcp") {
            expand_profile(tcp);
        }
        // A flow override's `tcp` is partial: complete it from the top-level `tcp` (after its
        // own profile, if it names one: the group's keys, then its profile, then the top level).
        let base_tcp = tree
            .get("tcp")
            .cloned()
            .unwrap_or(serde_json::Value::Object(Default::default()));
        if let Some(serde_json::Value::Array(groups)) = tree.get_mut("flow_overrides") {
            for g in groups.iter_mut() {
                if let Some(mut over) = g.get("tcp").cloned() {
                    expand_profile(&mut over);
                    let mut merged = base_tcp.clone();
                    deep_merge(&mut merged, &over);
                    g["tcp"] = merged;
                }
            }
        }
        let cfg: Config = typed(&tree).map_err(|(key, message)| {
            let (key, message) = blame(&tree, key, message);
            ConfigError::Key {
                key: if key == "." { "config".into() } else { key },
                message: crate::error::plain_words(&message),
            }
        })?;
        // serde reads a struct from a list too (its fields by position: `run: [1s]` sets
        // max_sim_time): refuse a list wherever the typed config has a map.
        if let Ok(typed_tree) = serde_json::to_value(&cfg)
            && let Some(key) = list_for_map(&tree, &typed_tree, String::new())
        {
            return Err(ConfigError::Key {
                key,
                message: "a list where a map of keys is expected: write {key: value, ...}".into(),
            });
        }
        let mut cfg = cfg;
        resolve_extensions(&mut cfg, catalog)?;
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

/// The first key path (`run`, `traffic[0].sizes`) where `given` has a list and the typed
/// config `typed` (serialized back) has a map.
fn list_for_map(
    given: &serde_json::Value,
    typed: &serde_json::Value,
    path: String,
) -> Option<String> {
    use serde_json::Value;
    match (given, typed) {
        (Value::Array(_), Value::Object(_)) => Some(if path.is_empty() {
            "config".into()
        } else {
            path
        }),
        (Value::Object(g), Value::Object(t)) => g.iter().find_map(|(k, v)| {
            let sub = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            t.get(k).and_then(|tv| list_for_map(v, tv, sub))
        }),
        (Value::Array(g), Value::Array(t)) => g
            .iter()
            .zip(t)
            .enumerate()
            .find_map(|(i, (v, tv))| list_for_map(v, tv, format!("{path}[{i}]"))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
name: t
senders: 4
topology: {kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 32KB}
workload: {kind: synchronized_reads, sru: 64KB, blocks: 2}
"#;

    fn error(sets: &[&str]) -> String {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        Config::from_yaml(BASE, &sets).unwrap_err().to_string()
    }

    /// Issue 17, finding 11: errors inside `topology`, `workload` and `traffic[i]` name the
    /// full key path (only the section was named before).
    #[test]
    fn errors_name_the_full_key_path() {
        let e = error(&["workload.sru=1TB"]);
        assert!(e.starts_with("workload.sru: invalid size"), "{e}");
        let e = error(&["topology.link_rate=fast"]);
        assert!(e.starts_with("topology.link_rate:"), "{e}");
        let e = error(&["traffic=[{kind: long_lived, from: 3, to: receiver}]"]);
        assert!(e.starts_with("traffic[0].from:"), "{e}");
        let e = error(&["topology.bogus=1"]);
        assert!(e.contains("bogus"), "{e}");
    }

    /// No parser jargon, and at most ~80 characters of a value echoed back.
    #[test]
    fn errors_speak_plainly_and_briefly() {
        let e = Config::from_yaml("name: a\nname: b\n", &[])
            .unwrap_err()
            .to_string();
        assert!(!e.contains("DuplicateKeyPolicy"), "{e}");
        assert!(e.contains("a key appears twice"), "{e}");
        let long = "x".repeat(100_000);
        let e = error(&[&format!("workload.sru={long}")]);
        assert!(e.len() < 400, "{} characters echoed", e.len());
        assert!(!e.contains(&"x".repeat(81)), "{e}");
    }

    /// Issue 38, item 16: an error inside an extension-style map names what is wrong in it, not
    /// "one of <schemes>" for the whole map.
    #[test]
    fn errors_inside_a_scheme_map_say_what_is_wrong_in_it() {
        let base =
            "senders: 2\ntopology: {kind: star}\nworkload: {kind: synchronized_reads, sru: 64KB}\n";
        let err = |set: &str| {
            Config::from_yaml(base, &[set.to_string()])
                .unwrap_err()
                .to_string()
        };
        for (set, says) in [
            (
                "scheme={name: prob_retx, p: .nan}",
                "not valid YAML: the number `.nan` is not allowed",
            ),
            (
                "scheme={name: tda, name: maa}",
                "not valid YAML: the key `name` is given twice",
            ),
            (
                "scheme={name: [tda]}",
                "`name` is [\"tda\"]: it takes one scheme's name",
            ),
            (
                "tcp.congestion_control={name: [x]}",
                "it takes one congestion controller's name",
            ),
        ] {
            let e = err(set);
            assert!(e.contains(says), "{set}: {e}");
            assert!(!e.contains("one of none, rto_static"), "{set}: {e}");
        }
    }

    /// Issue 38, item 17: the parser's limits and serde's internal type names are put in
    /// words, and a huge value is echoed once, shortened.
    #[test]
    fn parser_internals_are_put_in_words() {
        let base =
            "senders: 2\ntopology: {kind: star}\nworkload: {kind: synchronized_reads, sru: 64KB}\n";
        let deep = format!("{}{}", "[".repeat(70), "]".repeat(70));
        let e = Config::from_yaml(base, &[format!("name={deep}")])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("beyond what a config may hold (depth: at most"),
            "{e}"
        );
        let e = Config::from_yaml(&format!("{base}name: {deep}\n"), &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("beyond what a config may hold"), "{e}");
        assert!(
            !e.contains("budget breached") && !e.contains("Depth {"),
            "{e}"
        );
        let traffic = "senders: 2\ntopology: {kind: star}\nworkload: {kind: traffic, duration: 1ms}\n\
                       traffic:\n  - {kind: long_lived, from: {a: 1}, to: receiver}\n";
        let e = Config::from_yaml(traffic, &[]).unwrap_err().to_string();
        assert!(e.ends_with("expected one value or a list of values"), "{e}");
        let big = "x".repeat(200_000);
        let e = Config::from_yaml(base, &[format!("tcp.rto_min={big}")])
            .unwrap_err()
            .to_string();
        assert!(e.len() < 1000, "{} characters echoed", e.len());
    }
}
