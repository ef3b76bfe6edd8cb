//! The generic YAML tree: parsing, `--set key.path=value` overrides and merging.

use crate::error::ConfigError;

/// Sets `path` (dot-separated keys) in a YAML tree to `value`, creating sections as needed.
pub fn set_path(
    tree: &mut serde_json::Value,
    path: &str,
    value: serde_json::Value,
) -> Result<(), String> {
    // A sweep axis is named by a key path (`sweep.grid.tcp.rto_min`): what follows
    // `sweep.grid.` or `sweep.zip.` is that one key, not more levels.
    for section in ["grid", "zip"] {
        let prefix = format!("sweep.{section}.");
        if let Some(axis) = path.trim().strip_prefix(&prefix).filter(|a| !a.is_empty()) {
            let sweep = tree
                .as_object_mut()
                .ok_or("the config is not a map")?
                .entry("sweep")
                .or_insert_with(|| serde_json::json!({}));
            let axes = sweep
                .as_object_mut()
                .ok_or("sweep is not a map")?
                .entry(section)
                .or_insert_with(|| serde_json::json!({}));
            axes.as_object_mut()
                .ok_or(format!("sweep.{section} is not a map"))?
                .insert(axis.to_string(), value);
            return Ok(());
        }
    }
    let keys: Vec<&str> = path.trim().split('.').collect();
    if keys.iter().any(|k| k.is_empty()) {
        return Err("empty key in the path".into());
    }
    let mut node = tree;
    for (i, key) in keys.iter().enumerate() {
        // `name[I]` steps into entry I of the list `name` (e.g. traffic[0].load).
        let (key, index) = match key.strip_suffix(']').and_then(|k| k.split_once('[')) {
            Some((name, idx)) => {
                let idx: usize = idx
                    .trim()
                    .parse()
                    .map_err(|_| format!("{key}: the index must be a number"))?;
                (name, Some(idx))
            }
            None => (*key, None),
        };
        if let Some(idx) = index {
            let list = node
                .get_mut(key)
                .and_then(|v| v.as_array_mut())
                .ok_or_else(|| format!("{} is not a list", keys[..=i].join(".")))?;
            let len = list.len();
            let entry = list
                .get_mut(idx)
                .ok_or_else(|| format!("{key}[{idx}]: the list {key} has {len} entries"))?;
            if i + 1 == keys.len() {
                *entry = value;
                return Ok(());
            }
            node = entry;
            continue;
        }
        // A component given by name alone (`scheme: tda`, `tcp.congestion_control: my_reno`)
        // is short for `{name: tda}`: setting one of its parameters spells it out.
        if let serde_json::Value::String(name) = node
            && i > 0
        {
            let name = std::mem::take(name);
            *node = serde_json::json!({ "name": name });
        }
        let map = match node {
            serde_json::Value::Object(m) => m,
            serde_json::Value::Null => {
                *node = serde_json::Value::Object(Default::default());
                node.as_object_mut().expect("just made an object")
            }
            _ => return Err(format!("{} is not a section", keys[..i].join("."))),
        };
        if i + 1 == keys.len() {
            map.insert(key.to_string(), value);
            return Ok(());
        }
        node = map
            .entry(key.to_string())
            .or_insert(serde_json::Value::Null);
    }
    unreachable!("the loop returns at the last key")
}

/// Reads a command-line value as a YAML scalar (`32` is a number, `1ms` a string, `[1, 2]` a list).
pub fn parse_value(raw: &str) -> serde_json::Value {
    let t = raw.trim();
    match serde_saphyr::from_str::<serde_json::Value>(raw) {
        Ok(serde_json::Value::Null) if !t.is_empty() && t != "null" && t != "~" => {
            serde_json::Value::String(raw.to_string())
        }
        Ok(v) => v,
        Err(_) => serde_json::Value::String(raw.to_string()),
    }
}

/// Applies one `--set key.path=value` to a YAML tree.
pub fn apply_override(tree: &mut serde_json::Value, arg: &str) -> Result<(), ConfigError> {
    let err = |message: String| ConfigError::Override {
        arg: arg.to_string(),
        message,
    };
    let (path, raw) = arg
        .split_once('=')
        .ok_or_else(|| err("expected key.path=value".into()))?;
    // A value written as a YAML mapping or list must parse as one: falling back to a string
    // would blame the whole map on its first key (`scheme={name: prob_retx, p: .nan}` read as
    // an unknown scheme named "{name: ...}").
    let t = raw.trim();
    if (t.starts_with('{') || t.starts_with('['))
        && let Err(e) = serde_saphyr::from_str::<serde_json::Value>(raw)
    {
        return Err(err(format!(
            "not valid YAML: {}",
            yaml_reason(&e.to_string())
        )));
    }
    set_path(tree, path, parse_value(raw)).map_err(err)
}

/// The YAML parser's reason in plain words, without its position report and settings' names.
fn yaml_reason(message: &str) -> String {
    let first = message.lines().next().unwrap_or(message);
    let first = first.strip_prefix("error: ").unwrap_or(first);
    // "line 1 column 22: ..." → "...".
    let reason = match first.split_once(": ") {
        Some((at, rest)) if at.starts_with("line ") => rest,
        _ => first,
    };
    if let Some(rest) = reason.strip_prefix("non-finite float ") {
        let value = rest.split_whitespace().next().unwrap_or("");
        return format!("the number {value} is not allowed (NaN and infinity mean nothing here)");
    }
    if let Some(rest) = reason.strip_prefix("duplicate mapping key: ") {
        let key = rest.split(',').next().unwrap_or(rest).trim();
        return format!("the key `{key}` is given twice");
    }
    crate::error::plain_words(reason)
}

/// Parses YAML text into a tree (a mapping at the top).
pub fn parse_tree(text: &str) -> Result<serde_json::Value, ConfigError> {
    let mut tree: serde_json::Value = serde_saphyr::from_str(text)
        .map_err(|e| ConfigError::Syntax(crate::error::plain_words(&e.to_string())))?;
    if tree.is_null() {
        tree = serde_json::Value::Object(Default::default());
    }
    if !tree.is_object() {
        return Err(ConfigError::Syntax(
            "the config must be a mapping of keys to values".into(),
        ));
    }
    Ok(tree)
}

/// Merges `over` into `base`: mappings recursively, anything else replaced.
pub fn deep_merge(base: &mut serde_json::Value, over: &serde_json::Value) {
    match (base, over) {
        (serde_json::Value::Object(b), serde_json::Value::Object(o)) => {
            for (k, v) in o {
                deep_merge(b.entry(k.clone()).or_insert(serde_json::Value::Null), v);
            }
        }
        (b, o) => *b = o.clone(),
    }
}
