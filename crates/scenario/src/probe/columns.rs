//! The values probes add to the records: columns of runs.csv/flows.csv and tables of their
//! own. Plain data, apart from the hooks (`super`), so the records (`crate::results::metrics`) can hold
//! them without depending on the engine.

use serde::ser::{Serialize, SerializeMap, Serializer};

/// One value of a probe's column. `Missing` is an empty field (a flow the probe has nothing on).
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub enum ProbeValue {
    /// An empty field.
    #[default]
    Missing,
    /// An integer (written without a decimal point).
    Int(i64),
    /// A non-negative integer (counts, bytes).
    UInt(u64),
    /// A real number (written as serde writes an `f64` in the built-in columns; NaN and the
    /// infinities are empty fields).
    Float(f64),
    /// Text (quoted by the CSV writer if it needs to be).
    Text(String),
}

impl From<f64> for ProbeValue {
    fn from(v: f64) -> ProbeValue {
        ProbeValue::Float(v)
    }
}
impl From<u64> for ProbeValue {
    fn from(v: u64) -> ProbeValue {
        ProbeValue::UInt(v)
    }
}
impl From<i64> for ProbeValue {
    fn from(v: i64) -> ProbeValue {
        ProbeValue::Int(v)
    }
}
impl From<u32> for ProbeValue {
    fn from(v: u32) -> ProbeValue {
        ProbeValue::UInt(v.into())
    }
}
impl From<&str> for ProbeValue {
    fn from(v: &str) -> ProbeValue {
        ProbeValue::Text(v.to_string())
    }
}
impl From<String> for ProbeValue {
    fn from(v: String) -> ProbeValue {
        ProbeValue::Text(v)
    }
}
impl<T: Into<ProbeValue>> From<Option<T>> for ProbeValue {
    fn from(v: Option<T>) -> ProbeValue {
        v.map_or(ProbeValue::Missing, Into::into)
    }
}

impl Serialize for ProbeValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ProbeValue::Missing => s.serialize_none(),
            ProbeValue::Int(v) => s.serialize_i64(*v),
            ProbeValue::UInt(v) => s.serialize_u64(*v),
            ProbeValue::Float(v) => s.serialize_f64(*v),
            ProbeValue::Text(v) => s.serialize_str(v),
        }
    }
}

/// Probe columns of one row of `runs.csv` or `flows.csv`, after the built-in columns, in the
/// order the probes added them. Empty without probes, so the files are as before.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProbeColumns(pub Vec<(String, ProbeValue)>);

impl ProbeColumns {
    /// Whether no probe added a column.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The value of column `name`, if a probe added it.
    pub fn get(&self, name: &str) -> Option<&ProbeValue> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
}

impl Serialize for ProbeColumns {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// A CSV file of a probe's own, written next to `runs.csv` by the output layer (one file for all
/// the seeds of `incastsim run`, the rows of each run one after the other).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProbeTable {
    /// The file name: a plain name ending in `.csv` (checked when it is written).
    pub file: String,
    /// Column names, in order.
    pub header: Vec<String>,
    /// One entry per row, one value per column of `header`.
    pub rows: Vec<Vec<ProbeValue>>,
}

/// The columns a probe adds to `runs.csv` and `flows.csv`, known from its parameters before
/// any run ([`crate::extend::ProbeExtension::columns`]). A sweep writes its files' headers
/// before its first run, so it takes its probe columns from here.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProbeColumnNames {
    /// Columns of `runs.csv`, in the order the probe adds them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub run: Vec<String>,
    /// Columns of `flows.csv`, in the order the probe adds them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flow: Vec<String>,
}

impl ProbeColumnNames {
    /// Whether no column is named.
    pub fn is_empty(&self) -> bool {
        self.run.is_empty() && self.flow.is_empty()
    }
    /// Adds `other`'s columns not already named, after these (several probes, or the points of
    /// a sweep: each name once, in the order first met).
    pub fn extend(&mut self, other: &ProbeColumnNames) {
        for (mine, theirs) in [(&mut self.run, &other.run), (&mut self.flow, &other.flow)] {
            for c in theirs {
                if !mine.contains(c) {
                    mine.push(c.clone());
                }
            }
        }
    }
}
