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

/// The columns a probe adds to `runs.csv` and `flows.csv`, and the tables of its own it writes,
/// known from its parameters before any run ([`crate::extend::ProbeExtension::columns`]). A
/// sweep writes its files' headers before its first run, so it takes its probe columns and
/// tables from here.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProbeColumnNames {
    /// Columns of `runs.csv`, in the order the probe adds them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub run: Vec<String>,
    /// Columns of `flows.csv`, in the order the probe adds them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flow: Vec<String>,
    /// The probe's own tables ([`crate::probe::ProbeReport::table`]): a sweep writes each to
    /// one file of its folder, the rows of every run after `point` and `replicate`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<ProbeTableColumns>,
}

/// One table a probe writes: its file name and columns, as [`crate::probe::ProbeReport::table`]
/// will give them.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProbeTableColumns {
    /// The file name: a plain name ending in `.csv`.
    pub file: String,
    /// Its columns, in order.
    pub columns: Vec<String>,
}

/// File names a probe's table may not take: the files of a run's or a sweep's folder.
pub const RESERVED_FILES: &[&str] = &[
    "runs.csv",
    "flows.csv",
    "ports.csv",
    "port_classes.csv",
    "summary.csv",
    "runs.index.csv",
    "timeseries.csv",
    "drop_runs.csv",
    "shared_buffers.csv",
    "blocks.csv",
    "senders.csv",
];

impl ProbeColumnNames {
    /// Whether no column or table is named.
    pub fn is_empty(&self) -> bool {
        self.run.is_empty() && self.flow.is_empty() && self.tables.is_empty()
    }
    /// Declares table `file` with `columns` (builder style:
    /// `ProbeColumnNames::default().table("queue_hist.csv", [...])`).
    pub fn table<S: Into<String>>(
        mut self,
        file: impl Into<String>,
        columns: impl IntoIterator<Item = S>,
    ) -> ProbeColumnNames {
        self.tables.push(ProbeTableColumns {
            file: file.into(),
            columns: columns.into_iter().map(Into::into).collect(),
        });
        self
    }
    /// Adds `other`'s columns not already named, after these (several probes, or the points of
    /// a sweep: each name once, in the order first met), and its tables not already declared
    /// (a table of the same file keeps the first declaration; [`ProbeColumnNames::merge`]
    /// refuses a different one).
    pub fn extend(&mut self, other: &ProbeColumnNames) {
        for (mine, theirs) in [(&mut self.run, &other.run), (&mut self.flow, &other.flow)] {
            for c in theirs {
                if !mine.contains(c) {
                    mine.push(c.clone());
                }
            }
        }
        for t in &other.tables {
            if !self.tables.iter().any(|m| m.file == t.file) {
                self.tables.push(t.clone());
            }
        }
    }
    /// [`ProbeColumnNames::extend`], refusing a table whose file is already declared with
    /// other columns (one file has one header). Err: what is wrong.
    pub fn merge(&mut self, other: &ProbeColumnNames) -> Result<(), String> {
        for t in &other.tables {
            if let Some(m) = self.tables.iter().find(|m| m.file == t.file)
                && m.columns != t.columns
            {
                return Err(format!(
                    "probe table {} declared with columns {:?} and with {:?}: one file has one header",
                    t.file, m.columns, t.columns
                ));
            }
        }
        self.extend(other);
        Ok(())
    }
    /// Checks the tables' file names: plain names ending in `.csv`, none of a run's or a
    /// sweep's own files ([`RESERVED_FILES`]), and columns other than `point` and
    /// `replicate` (a sweep puts those first). Err: what is wrong.
    pub fn check_tables(&self) -> Result<(), String> {
        for t in &self.tables {
            let f = &t.file;
            let plain = !f.contains(['/', '\\']) && f.ends_with(".csv") && f != ".csv";
            if !plain || RESERVED_FILES.contains(&f.as_str()) {
                return Err(format!(
                    "probe table file {f:?}: a plain file name ending in .csv, other than {}",
                    RESERVED_FILES.join(", ")
                ));
            }
            if let Some(c) = t
                .columns
                .iter()
                .find(|c| *c == "point" || *c == "replicate")
            {
                return Err(format!(
                    "probe table {f}: column {c:?} is taken (a sweep writes point and replicate first)"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_need_plain_free_names_and_one_header() {
        let ok = ProbeColumnNames::default().table("hist.csv", ["port", "n"]);
        assert_eq!(ok.check_tables(), Ok(()));
        for bad in ["../x.csv", "x.txt", "runs.csv", ".csv"] {
            let t = ProbeColumnNames::default().table(bad, ["n"]);
            assert!(
                t.check_tables().unwrap_err().contains("plain file name"),
                "{bad}"
            );
        }
        let taken = ProbeColumnNames::default().table("h.csv", ["point", "n"]);
        assert!(taken.check_tables().unwrap_err().contains("\"point\""));
        let mut all = ok.clone();
        assert_eq!(all.merge(&ok), Ok(()));
        assert_eq!(all.tables.len(), 1, "declared once");
        let other = ProbeColumnNames::default().table("hist.csv", ["port"]);
        assert!(all.merge(&other).unwrap_err().contains("one header"));
    }
}
