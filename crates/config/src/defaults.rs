//! Serde defaults shared by several sections (a leaf module: every schema file may use it).
//!
//! Sections whose keys all have defaults take them from their `Default` impl
//! (`#[serde(default)]` on the struct). What is left here serves the keys serde cannot default
//! that way: those of structs and enum variants that also have required keys.

pub(crate) fn default_one() -> u32 {
    1
}
pub(crate) fn default_true() -> bool {
    true
}
/// A base seed of 1 (`seed:` of a scenario and of an experiment file).
pub(crate) fn default_seed() -> u64 {
    1
}
