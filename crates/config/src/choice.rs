//! [`ExtensionChoice`]: a component chosen by name with its raw parameters (a leaf module: the
//! sections that may name an extension import it; [`crate::extension`] re-exports it).

use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

/// An extension chosen by name, with its parameters (everything beside `name` in the mapping).
/// In YAML `{name: my_reno, beta: 0.8}`, or just `my_reno` for all defaults. After loading
/// with a [`Catalog`](crate::extension::Catalog), `params` hold every parameter, defaults filled in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExtensionChoice {
    /// The name it was registered under.
    pub name: String,
    /// Its parameters as a YAML mapping (without `name`).
    pub params: serde_json::Map<String, serde_json::Value>,
}

impl ExtensionChoice {
    /// The choice written as `value` (a name, or a mapping with `name`); `what` names the
    /// point in the error ("scheme", "congestion controller").
    pub fn from_value(value: serde_json::Value, what: &str) -> Result<ExtensionChoice, String> {
        match value {
            serde_json::Value::String(name) => Ok(ExtensionChoice {
                name,
                params: Default::default(),
            }),
            serde_json::Value::Object(mut params) => match params.remove("name") {
                Some(serde_json::Value::String(name)) => Ok(ExtensionChoice { name, params }),
                _ => Err(format!(
                    "missing `name`: write {{name: <{what}>, <parameter>: <value>, ...}}"
                )),
            },
            other => Err(format!(
                "invalid {what} {other}: expected a name or {{name: <{what}>, ...}}"
            )),
        }
    }

    /// `{name: ..., params...}` as one mapping, `name` first.
    pub fn to_map(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut map = serde_json::Map::new();
        map.insert("name".into(), self.name.clone().into());
        map.extend(self.params.clone());
        map
    }
}

impl Serialize for ExtensionChoice {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_map().serialize(s)
    }
}

impl<'de> Deserialize<'de> for ExtensionChoice {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        ExtensionChoice::from_value(serde_json::Value::deserialize(d)?, "component")
            .map_err(de::Error::custom)
    }
}
