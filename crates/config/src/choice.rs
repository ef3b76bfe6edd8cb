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
                Some(other) => Err(format!(
                    "`name` is {other}: it takes one {what}'s name, a string (e.g. {{name: <{what}>, ...}})"
                )),
                None => Err(format!(
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

/// Declares an enum of built-ins chosen by a tag key (`kind: red`), each variant once with its
/// name, plus the `Extension` variant for a registered component. From the one declaration
/// come the enum (serde's derive reads and writes the built-ins, as inherent
/// `Self::serialize`/`Self::deserialize` through `remote = "Self"`, so the point's own trait
/// impls can route extensions around it), the list of built-in names (`$names`, for errors and
/// listings) and the name function (`$name_fn`).
macro_rules! tagged_builtins {
    (
        $(#[$meta:meta])*
        pub enum $enum:ident, names $names:ident, name_fn $name_fn:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident = $name:literal $({ $($fields:tt)* })?,
            )+
        }
    ) => {
        $(#[$meta])*
        #[serde(remote = "Self")]
        pub enum $enum {
            $(
                $(#[$vmeta])*
                #[serde(rename = $name)]
                $variant $({ $($fields)* })?,
            )+
            /// A component registered by a downstream crate (checked and completed by the
            /// loader's [`crate::Catalog`]; built by the scenario crate's registry).
            #[serde(skip)]
            Extension($crate::choice::ExtensionChoice),
        }

        /// The built-ins' names, in declaration order (errors and listings show them so).
        pub const $names: &[&str] = &[$($name),+];

        impl $enum {
            /// The name as configs and outputs spell it (an extension's registered name).
            pub fn $name_fn(&self) -> &str {
                match self {
                    $($enum::$variant { .. } => $name,)+
                    $enum::Extension(e) => &e.name,
                }
            }
        }
    };
}
pub(crate) use tagged_builtins;
