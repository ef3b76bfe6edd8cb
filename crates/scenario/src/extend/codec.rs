//! Reading an extension's parameters: the type-erased codec each registration keeps, which
//! checks a YAML map against the extension's `Params` and fills in the defaults.

use super::*;

/// Reads, checks and completes an extension's parameters (type-erased `Params`).
pub(super) trait ParamsCodec: Send + Sync {
    /// `params` checked, with every field (defaults filled in), or the error under `key`.
    fn resolve(
        &self,
        key: &str,
        params: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<serde_json::Map<String, serde_json::Value>, ConfigError>;
    /// Every parameter at its default (`None` if some parameter has none).
    fn defaults(&self) -> Option<serde_json::Map<String, serde_json::Value>>;
}

pub(super) struct Codec<P> {
    pub(super) check: fn(&P) -> Result<(), ConfigError>,
    pub(super) _params: PhantomData<fn() -> P>,
}

/// `params` read as `P`, errors under `key` (`tcp.congestion_control.beta: ...`).
pub(super) fn read_params<P: ExtensionParams>(
    key: &str,
    params: &serde_json::Map<String, serde_json::Value>,
) -> Result<P, ConfigError> {
    serde_path_to_error::deserialize(serde_json::Value::Object(params.clone())).map_err(|e| {
        let path = e.path().to_string();
        ConfigError::Key {
            key: if path == "." {
                key.to_string()
            } else {
                format!("{key}.{path}")
            },
            message: plain_words(&e.into_inner().to_string()),
        }
    })
}

/// `e` with its key moved under `key` (an extension names its keys relative to itself).
pub(crate) fn under(key: &str, e: ConfigError) -> ConfigError {
    let full = |k: String| {
        if k.is_empty() {
            key.to_string()
        } else {
            format!("{key}.{k}")
        }
    };
    match e {
        ConfigError::Invalid {
            key: k,
            value,
            allowed,
        } => ConfigError::Invalid {
            key: full(k),
            value,
            allowed,
        },
        ConfigError::Key { key: k, message } => ConfigError::Key {
            key: full(k),
            message,
        },
        other => other,
    }
}

impl<P: ExtensionParams> ParamsCodec for Codec<P> {
    fn resolve(
        &self,
        key: &str,
        params: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<serde_json::Map<String, serde_json::Value>, ConfigError> {
        let typed: P = read_params(key, params)?;
        (self.check)(&typed).map_err(|e| under(key, e))?;
        match serde_json::to_value(&typed) {
            Ok(serde_json::Value::Object(m)) => Ok(m),
            Ok(serde_json::Value::Null) => Ok(Default::default()),
            Ok(other) => Err(ConfigError::Key {
                key: key.to_string(),
                message: format!(
                    "the extension's parameters must be a mapping of keys to values (it wrote {other})"
                ),
            }),
            Err(e) => Err(ConfigError::Key {
                key: key.to_string(),
                message: format!("the extension's parameters cannot be written back: {e}"),
            }),
        }
    }
    fn defaults(&self) -> Option<serde_json::Map<String, serde_json::Value>> {
        let p: P = serde_json::from_value(serde_json::json!({})).ok()?;
        match serde_json::to_value(p).ok()? {
            serde_json::Value::Object(m) => Some(m),
            serde_json::Value::Null => Some(Default::default()),
            _ => None,
        }
    }
}
