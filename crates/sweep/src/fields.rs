//! A record's fields as CSV text, without building a JSON value per row.
//!
//! Every CSV row goes through [`csv_fields`]. Going through `serde_json::Value` cost an ordered
//! map (hashing and two allocations per field) per row: on a k = 32 fat-tree (49,152 ports,
//! ~46,000 drop-run rows) writing the run's files took about 4.5 G instructions, more than
//! planning the run. Rows are flat structs of scalars, so a serializer that turns each field
//! straight into its text does the same job; each scalar is printed exactly as the JSON value
//! printed it (`serde_json::Value`'s `Display`, so floats keep serde_json's shortest
//! round-trip form), and a row that is not flat (a nested value, a map) takes the JSON path as
//! before. The test below compares both paths on every kind of field.

use serde::Serialize;
use serde::ser::{self, Impossible, Serializer};
use std::borrow::Cow;
use std::fmt::{self, Write as _};

/// The fields of a row as (column, text), in declaration order. A missing value (NaN, or None)
/// is an empty field, the one convention of every CSV (runs and sweeps alike): pandas reads it
/// as NaN and a column stays numeric. The run files (`incastsim::output`) write rows with it too.
pub fn csv_fields<T: Serialize>(t: &T) -> Vec<(Cow<'static, str>, String)> {
    let mut row = CsvRow::default();
    row.fill(t);
    let Row {
        mut fields, len, ..
    } = row.0;
    fields.truncate(len);
    fields
}

/// A probe's table value as a CSV field: the text a single run's table gets
/// (`incastsim::output::write_probe_tables`), so a sweep's table and a run's agree.
pub fn probe_field(v: &incastsim_scenario::probe::ProbeValue) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(serde_json::Value::Null) | Err(_) => String::new(),
        Ok(other) => other.to_string(),
    }
}

/// A row's fields as [`csv_fields`] gives them, in a buffer that keeps its strings from row to
/// row: a writer of many rows fills one instead of allocating a string per field (a k = 32
/// fat-tree's ports.csv and drop_runs.csv are ~100,000 rows of ~30 fields).
#[derive(Default)]
pub struct CsvRow(Row);

impl CsvRow {
    /// Replaces the fields with those of `t`.
    pub fn fill<T: Serialize>(&mut self, t: &T) {
        let row = &mut self.0;
        row.len = 0;
        if t.serialize(&mut *row).is_err() {
            row.fields = json_fields(t);
            row.len = row.fields.len();
            row.names_unchecked = true;
        }
    }

    /// The column names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.names()
    }

    /// The fields' texts, in order.
    pub fn values(&self) -> impl Iterator<Item = &str> {
        self.0.values()
    }
}

/// Collects a struct's fields, reusing the strings of the row before.
#[derive(Default)]
struct Row {
    /// Every field filled so far; the first `len` are the current row's.
    fields: Vec<(Cow<'static, str>, String)>,
    len: usize,
    /// A map's column names changed since a row last passed the check for repeated names
    /// (`SerializeMap::end`): rows of one table repeat their names, so the check (a sort)
    /// runs once per table, not per row.
    names_unchecked: bool,
    /// A map key's text, written before it is compared with the column's name of the row
    /// before.
    key: String,
}

impl Row {
    fn names(&self) -> impl Iterator<Item = &str> {
        self.fields[..self.len].iter().map(|(k, _)| k.as_ref())
    }

    fn values(&self) -> impl Iterator<Item = &str> {
        self.fields[..self.len].iter().map(|(_, v)| v.as_str())
    }

    /// The next field, named `key`, emptied for its text.
    fn next_field(&mut self, key: Cow<'static, str>) -> &mut String {
        if self.len == self.fields.len() {
            self.fields.push((key, String::new()));
        } else {
            let slot = &mut self.fields[self.len];
            slot.0 = key;
            slot.1.clear();
        }
        self.len += 1;
        &mut self.fields[self.len - 1].1
    }
}

/// The general path: through a JSON object (any serializable struct).
fn json_fields<T: Serialize>(t: &T) -> Vec<(Cow<'static, str>, String)> {
    match serde_json::to_value(t).expect("rows serialize") {
        serde_json::Value::Object(m) => m
            .into_iter()
            .map(|(k, v)| (Cow::Owned(k), json_text(v)))
            .collect(),
        _ => unreachable!("rows are structs"),
    }
}

/// A JSON value's CSV text: strings bare, null (serde_json's non-finite f64) empty.
fn json_text(v: serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s,
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The fast path met something that is not a flat struct of scalars.
#[derive(Debug)]
struct NotFlat;

impl fmt::Display for NotFlat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a flat row")
    }
}

impl std::error::Error for NotFlat {}

impl ser::Error for NotFlat {
    fn custom<T: fmt::Display>(_: T) -> Self {
        NotFlat
    }
}

/// Writes one scalar field's text, as `json_text(serde_json::to_value(field))` gives it.
struct Scalar<'a>(&'a mut String);

macro_rules! not_flat {
    ($($name:ident($($arg:ty),*) -> $ret:ty;)*) => {
        $(fn $name(self, $(_: $arg),*) -> Result<$ret, NotFlat> {
            Err(NotFlat)
        })*
    };
}

/// The compound values (sequences, tuples, maps, structs) a scalar serializer refuses.
macro_rules! not_flat_compound {
    () => {
        not_flat! {
            serialize_seq(Option<usize>) -> Self::SerializeSeq;
            serialize_tuple(usize) -> Self::SerializeTuple;
            serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
            serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
            serialize_map(Option<usize>) -> Self::SerializeMap;
            serialize_struct(&'static str, usize) -> Self::SerializeStruct;
            serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
        }
    };
}

/// An enum variant wrapping a value, which no fast-path serializer takes: the JSON path.
macro_rules! not_flat_newtype_variant {
    ($ret:ty) => {
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<$ret, NotFlat> {
            Err(NotFlat)
        }
    };
}

/// The generic methods (a wrapped value) of a serializer that takes none: the JSON path.
macro_rules! not_flat_wrapped {
    ($ret:ty) => {
        fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<$ret, NotFlat> {
            Err(NotFlat)
        }
        fn serialize_newtype_struct<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: &T,
        ) -> Result<$ret, NotFlat> {
            Err(NotFlat)
        }
        not_flat_newtype_variant!($ret);
    };
}

macro_rules! display {
    ($($name:ident: $t:ty;)*) => {
        $(fn $name(self, v: $t) -> Result<(), NotFlat> {
            write!(self.0, "{v}").map_err(|_| NotFlat)
        })*
    };
}

impl Serializer for Scalar<'_> {
    type Ok = ();
    type Error = NotFlat;
    type SerializeSeq = Impossible<(), NotFlat>;
    type SerializeTuple = Impossible<(), NotFlat>;
    type SerializeTupleStruct = Impossible<(), NotFlat>;
    type SerializeTupleVariant = Impossible<(), NotFlat>;
    type SerializeMap = Impossible<(), NotFlat>;
    type SerializeStruct = Impossible<(), NotFlat>;
    type SerializeStructVariant = Impossible<(), NotFlat>;

    // Integers, bools and chars print as JSON prints them (itoa's digits are Display's).
    display! {
        serialize_bool: bool;
        serialize_i8: i8;
        serialize_i16: i16;
        serialize_i32: i32;
        serialize_i64: i64;
        serialize_u8: u8;
        serialize_u16: u16;
        serialize_u32: u32;
        serialize_u64: u64;
        serialize_char: char;
    }

    fn serialize_f32(self, v: f32) -> Result<(), NotFlat> {
        json_number(self.0, serde_json::Value::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), NotFlat> {
        json_number(self.0, serde_json::Value::from(v))
    }
    fn serialize_str(self, v: &str) -> Result<(), NotFlat> {
        self.0.push_str(v);
        Ok(())
    }
    fn serialize_none(self) -> Result<(), NotFlat> {
        Ok(())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<(), NotFlat> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), NotFlat> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), NotFlat> {
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), NotFlat> {
        self.0.push_str(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), NotFlat> {
        v.serialize(self)
    }
    not_flat_newtype_variant!(());

    // 128-bit integers (JSON's range checks) and compound values: the JSON path.
    not_flat_compound!();
    not_flat! {
        serialize_i128(i128) -> ();
        serialize_u128(u128) -> ();
        serialize_bytes(&[u8]) -> ();
    }
}

/// Whether a map key is the string given (a key that is not a string answers `Err`): the
/// cheap test of a row's key against the column's name of the row before.
struct KeyIs<'a>(&'a str);

impl Serializer for KeyIs<'_> {
    type Ok = bool;
    type Error = NotFlat;
    type SerializeSeq = Impossible<bool, NotFlat>;
    type SerializeTuple = Impossible<bool, NotFlat>;
    type SerializeTupleStruct = Impossible<bool, NotFlat>;
    type SerializeTupleVariant = Impossible<bool, NotFlat>;
    type SerializeMap = Impossible<bool, NotFlat>;
    type SerializeStruct = Impossible<bool, NotFlat>;
    type SerializeStructVariant = Impossible<bool, NotFlat>;

    fn serialize_str(self, v: &str) -> Result<bool, NotFlat> {
        Ok(v == self.0)
    }
    not_flat_wrapped!(bool);
    not_flat_compound!();

    not_flat! {
        serialize_bool(bool) -> bool;
        serialize_i8(i8) -> bool;
        serialize_i16(i16) -> bool;
        serialize_i32(i32) -> bool;
        serialize_i64(i64) -> bool;
        serialize_i128(i128) -> bool;
        serialize_u8(u8) -> bool;
        serialize_u16(u16) -> bool;
        serialize_u32(u32) -> bool;
        serialize_u64(u64) -> bool;
        serialize_u128(u128) -> bool;
        serialize_f32(f32) -> bool;
        serialize_f64(f64) -> bool;
        serialize_char(char) -> bool;
        serialize_bytes(&[u8]) -> bool;
        serialize_none() -> bool;
        serialize_unit() -> bool;
        serialize_unit_struct(&'static str) -> bool;
        serialize_unit_variant(&'static str, u32, &'static str) -> bool;
    }
}

/// A number's JSON text (none for JSON's null: a non-finite float), as [`json_text`] gives it.
fn json_number(out: &mut String, v: serde_json::Value) -> Result<(), NotFlat> {
    if v.is_null() {
        return Ok(());
    }
    write!(out, "{v}").map_err(|_| NotFlat)
}

impl Serializer for &mut Row {
    type Ok = ();
    type Error = NotFlat;
    type SerializeSeq = Impossible<(), NotFlat>;
    type SerializeTuple = Impossible<(), NotFlat>;
    type SerializeTupleStruct = Impossible<(), NotFlat>;
    type SerializeTupleVariant = Impossible<(), NotFlat>;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), NotFlat>;

    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Self, NotFlat> {
        self.fields.reserve(len.saturating_sub(self.fields.len()));
        Ok(self)
    }

    // A struct with a `#[serde(flatten)]` field (the probes' columns of runs.csv and flows.csv)
    // serializes as a map of its fields: still flat when every value is a scalar.
    fn serialize_map(self, len: Option<usize>) -> Result<Self, NotFlat> {
        self.fields
            .reserve(len.unwrap_or(64).saturating_sub(self.fields.len()));
        Ok(self)
    }

    // A row is a struct; anything else takes the JSON path.
    not_flat! {
        serialize_bool(bool) -> ();
        serialize_i8(i8) -> ();
        serialize_i16(i16) -> ();
        serialize_i32(i32) -> ();
        serialize_i64(i64) -> ();
        serialize_i128(i128) -> ();
        serialize_u8(u8) -> ();
        serialize_u16(u16) -> ();
        serialize_u32(u32) -> ();
        serialize_u64(u64) -> ();
        serialize_u128(u128) -> ();
        serialize_f32(f32) -> ();
        serialize_f64(f64) -> ();
        serialize_char(char) -> ();
        serialize_str(&str) -> ();
        serialize_bytes(&[u8]) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
    not_flat_wrapped!(());
}

impl ser::SerializeStruct for &mut Row {
    type Ok = ();
    type Error = NotFlat;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), NotFlat> {
        // Derived rows have one field per column name (a JSON object would keep one entry).
        debug_assert!(!self.names().any(|k| k == key), "duplicate column {key}");
        value.serialize(Scalar(self.next_field(Cow::Borrowed(key))))
    }

    fn end(self) -> Result<(), NotFlat> {
        Ok(())
    }
}

impl ser::SerializeMap for &mut Row {
    type Ok = ();
    type Error = NotFlat;

    /// Keeps the column's name of the row before when the key repeats it (no allocation).
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), NotFlat> {
        if let Some((name, value)) = self.fields.get_mut(self.len)
            && matches!(key.serialize(KeyIs(name)), Ok(true))
        {
            value.clear();
            self.len += 1;
            return Ok(());
        }
        let mut text = std::mem::take(&mut self.key);
        text.clear();
        if let Err(e) = key.serialize(Scalar(&mut text)) {
            self.key = text;
            return Err(e);
        }
        match self.fields.get_mut(self.len) {
            Some((name, value)) if *name == text.as_str() => {
                value.clear();
                self.len += 1;
            }
            _ => {
                self.names_unchecked = true;
                self.next_field(Cow::Owned(text.clone()));
            }
        }
        self.key = text;
        Ok(())
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), NotFlat> {
        let text = &mut self.fields[..self.len].last_mut().ok_or(NotFlat)?.1;
        value.serialize(Scalar(text))
    }

    /// A map may repeat a column (a probe naming one as a built-in does): the JSON path keeps
    /// one entry per name, so such a row takes it.
    fn end(self) -> Result<(), NotFlat> {
        if !self.names_unchecked {
            // The names of a row that passed, or a prefix of them.
            return Ok(());
        }
        let mut names: Vec<&str> = self.names().collect();
        names.sort_unstable();
        if names.windows(2).any(|w| w[0] == w[1]) {
            return Err(NotFlat);
        }
        self.names_unchecked = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Default)]
    #[serde(rename_all = "snake_case")]
    enum Kind {
        #[default]
        FirstKind,
    }

    #[derive(Serialize, Default)]
    struct Flat {
        name: String,
        b: bool,
        i: i64,
        u: u64,
        small: u8,
        f: f64,
        whole: f64,
        tiny: f64,
        huge: f64,
        nan: f64,
        inf: f64,
        f32v: f32,
        none: Option<f64>,
        some: Option<u32>,
        kind: Kind,
        c: char,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<u32>,
        #[serde(rename = "renamed col")]
        renamed: i32,
    }

    #[derive(Serialize)]
    struct Nested {
        a: u32,
        inner: Vec<u32>,
    }

    fn owned(v: Vec<(Cow<'static, str>, String)>) -> Vec<(String, String)> {
        v.into_iter().map(|(k, t)| (k.into_owned(), t)).collect()
    }

    #[test]
    fn flat_rows_print_as_their_json_values_did() {
        let row = Flat {
            name: "a, \"b\"".into(),
            b: true,
            i: -42,
            u: u64::MAX,
            small: 7,
            f: 0.1 + 0.2,
            whole: 3.0,
            tiny: 1e-300,
            huge: 1.5e300,
            nan: f64::NAN,
            inf: f64::INFINITY,
            f32v: 0.3,
            none: None,
            some: Some(5),
            kind: Kind::FirstKind,
            c: 'x',
            skipped: None,
            renamed: -1,
        };
        let fast = owned(csv_fields(&row));
        assert_eq!(fast, owned(json_fields(&row)));
        assert_eq!(fast[0], ("name".to_string(), "a, \"b\"".to_string()));
        assert_eq!(fast[6].1, "3.0");
        assert_eq!(fast[9].1, "", "NaN is an empty field");
        assert!(!fast.iter().any(|(k, _)| k == "skipped"));
        assert_eq!(
            owned(csv_fields(&Flat::default())),
            owned(json_fields(&Flat::default()))
        );
    }

    #[test]
    fn other_rows_take_the_json_path() {
        let row = Nested {
            a: 1,
            inner: vec![2, 3],
        };
        assert_eq!(
            owned(csv_fields(&row)),
            vec![("a".into(), "1".into()), ("inner".into(), "[2,3]".into())]
        );
    }

    /// A row with a flattened map of extra columns, as runs.csv and flows.csv carry probes'.
    #[derive(Serialize)]
    struct WithExtra {
        a: u32,
        x: f64,
        #[serde(flatten)]
        extra: std::collections::BTreeMap<String, f64>,
    }

    #[test]
    fn flattened_columns_stay_on_the_fast_path_and_match_json() {
        let row = WithExtra {
            a: 1,
            x: f64::NAN,
            extra: [("p".to_string(), 0.5), ("q".to_string(), f64::NAN)].into(),
        };
        let mut fast = Row::default();
        assert!(
            row.serialize(&mut fast).is_ok(),
            "a flat map is not sent to JSON"
        );
        fast.fields.truncate(fast.len);
        assert_eq!(owned(fast.fields), owned(json_fields(&row)));
        // A repeated column goes the JSON way (one entry per name).
        let dup = WithExtra {
            a: 1,
            x: 2.0,
            extra: [("a".to_string(), 3.0)].into(),
        };
        let mut fast = Row::default();
        assert!(dup.serialize(&mut fast).is_err());
        assert_eq!(owned(csv_fields(&dup)), owned(json_fields(&dup)));
    }

    #[test]
    fn a_reused_row_gives_each_row_its_own_fields() {
        let rows = [
            WithExtra {
                a: 1,
                x: 0.5,
                extra: [("p".to_string(), 1.5), ("q".to_string(), 2.5)].into(),
            },
            WithExtra {
                a: 22,
                x: f64::NAN,
                extra: Default::default(),
            },
            WithExtra {
                a: 3,
                x: 1e300,
                extra: [("a".to_string(), 3.0)].into(), // a repeated column: the JSON path
            },
            WithExtra {
                a: 4,
                x: 4.0,
                extra: [("r".to_string(), f64::NAN)].into(),
            },
            // The names of a row that passed, then a repeat among them: checked again.
            WithExtra {
                a: 5,
                x: 5.0,
                extra: [("r".to_string(), 1.0)].into(),
            },
            WithExtra {
                a: 6,
                x: 6.0,
                extra: [("r".to_string(), 1.0), ("x".to_string(), 2.0)].into(),
            },
        ];
        let mut row = CsvRow::default();
        for r in &rows {
            row.fill(r);
            let filled: Vec<(String, String)> = row
                .names()
                .zip(row.values())
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            assert_eq!(filled, owned(csv_fields(r)));
            assert_eq!(filled, owned(json_fields(r)));
        }
    }
}
