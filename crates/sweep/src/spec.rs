//! The `sweep:` section of a config: which keys vary, over which values, with how many seeds.
//!
//! ```yaml
//! sweep:
//!   seeds: 20                     # replicates per point
//!   grid:                         # cartesian product, first key outermost
//!     senders: [1, 2, 4, 8]
//!     tcp.rto_min: [200ms, 1ms]
//!   zip:                          # keys that vary together: one more dimension
//!     topology.switch_buffer: [32KB, 64KB]
//!     workload.sru: [256KB, 128KB]
//!   censored: exclude             # summary.csv over completed runs only (default)
//!   plots:                        # drawn when the sweep finishes
//!     - {x: senders, y: goodput_mbps, series: tcp.rto_min}
//! ```

use incastsim_core::rng::mix64;
use incastsim_scenario::Extensions;
use incastsim_scenario::config::{
    Config, ConfigError, ConfigWarning, apply_override, config_warnings, parse_tree, set_path,
};
use incastsim_scenario::probe::ProbeColumnNames;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Why a sweep cannot be loaded, run or merged.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SweepError {
    /// The base config is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The `sweep:` section is invalid.
    #[error("{key}: {message}")]
    Spec {
        /// The full key path (`sweep.grid`, `sweep.seeds`).
        key: String,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// One grid point gives an invalid config.
    #[error("sweep point {label}: {source}")]
    Point {
        /// The point (`key=value,...`).
        label: String,
        /// Why its config is invalid.
        source: ConfigError,
    },
    /// Reading or writing the results folder failed (the message names the file).
    #[error("{0}")]
    Store(String),
    /// A run failed.
    #[error("run of point {label}, replicate {replicate} (seed {seed}): {message}")]
    Run {
        /// Its point.
        label: String,
        /// Its replicate.
        replicate: u32,
        /// Its seed.
        seed: u64,
        /// What went wrong.
        message: String,
    },
    /// [`crate::Progress::should_stop`] asked to stop (e.g. Ctrl-C in Python): the runs that
    /// finished are stored, and running the sweep again resumes.
    #[error("sweep interrupted after {done} of {total} runs; run it again to resume")]
    Interrupted {
        /// Runs stored.
        done: u64,
        /// Runs of the shard.
        total: u64,
    },
}

fn spec_err(key: impl Into<String>, message: impl Into<String>) -> SweepError {
    SweepError::Spec {
        key: key.into(),
        message: message.into(),
    }
}

/// A plot to draw from summary.csv when the sweep finishes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlotSpec {
    /// A swept key (numeric), e.g. `senders`.
    pub x: String,
    /// A metric column of runs.csv, e.g. `goodput_mbps`.
    pub y: String,
    /// A swept key whose values become separate lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<String>,
    /// A logarithmic x axis (for doubling sweeps: N = 1, 2, 4, ... 64; every x must be > 0).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub log_x: bool,
    /// A logarithmic y axis.
    #[serde(default)]
    pub log_y: bool,
    /// File name without extension (default: `<y>-vs-<x>[-by-<series>]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
struct SweepSection {
    seeds: u64,
    grid: serde_json::Map<String, Value>,
    zip: serde_json::Map<String, Value>,
    plots: Vec<PlotSpec>,
    censored: Censored,
}

impl Default for SweepSection {
    fn default() -> Self {
        SweepSection {
            // One replicate per point.
            seeds: 1,
            // No swept keys: the base config alone.
            grid: Default::default(),
            zip: Default::default(),
            plots: Vec::new(),
            // Statistics over completed runs only.
            censored: Censored::default(),
        }
    }
}

/// One grid point: a value for every swept key, and the config that results.
#[derive(Clone, Debug)]
pub struct Point {
    /// Position in the grid (0-based; rows are sorted by it).
    pub index: u32,
    /// Canonical "key=value,key=value" form; it names the point in seeds and messages.
    pub label: String,
    /// The value of each swept key (in `Sweep::keys` order), as the label writes it (the
    /// seeds derive from it: a map is JSON there).
    pub values: Vec<String>,
    /// The value of each swept key as the CSV files show it ([`cell_value`]): as `values`, but a
    /// map or list in YAML's flow form and a component chosen by name alone as its name, as a
    /// single run writes it.
    pub cells: Vec<String>,
    /// The point's full config (base config with the point's values set).
    pub config: Config,
}

/// A validated sweep: every point's config has been checked before anything runs.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// Replicates per point (each with its own derived seed).
    pub seeds: u32,
    /// Swept keys, in column order.
    pub keys: Vec<String>,
    /// Every grid point, in grid order.
    pub points: Vec<Point>,
    /// The plots `incastsim sweep` draws when it finishes.
    pub plots: Vec<PlotSpec>,
    /// What summary.csv does with runs that hit a limit before their workload finished
    /// (`sweep.censored`; [`Censored`]).
    pub censored: Censored,
    /// The config (after `--set`) as given, sweep section included: rerunning it reproduces the sweep.
    pub input: Value,
    /// What must match for results in an output folder to be reused: the input with the seed
    /// count and plots removed (adding seeds keeps earlier results), plus the version.
    pub fingerprint: String,
    /// Suspect values (issue 17 finding 7): duplicate swept values, and each point's config
    /// warnings (one per key and value, however many points share it).
    pub warnings: Vec<ConfigWarning>,
    /// The components registered by the binary that loaded it ([`Sweep::load_with`]): its
    /// points were checked with them and its runs are built with them.
    pub extensions: Extensions,
    /// The columns the points' probes (`probes:`) add to runs.csv and flows.csv, after the
    /// built-in columns: each name once, in the order the points first name it (a point
    /// whose probes do not add a column leaves it empty).
    pub probe_columns: ProbeColumnNames,
}

/// Writes a YAML value the way outputs show it ("1ms", "32", "true").
pub fn display_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => other.to_string(),
    }
}

/// A swept value as a CSV cell shows it: scalars as [`display_value`]; a map holding only
/// `name` (a component with its defaults) as that name, as `incastsim run` writes `scheme`;
/// other maps and lists in YAML's flow form (`{name: tda, delta: 2ms}`), not JSON; `null` (a
/// section swept off, `pfc: null`) as `none`, since CSV readers take "null" for a missing value.
pub fn cell_value(v: &Value) -> String {
    match v {
        Value::Null => "none".into(),
        Value::Object(m) if m.len() == 1 && m.get("name").is_some_and(Value::is_string) => {
            display_value(&m["name"])
        }
        other => flow_value(other),
    }
}

/// A value in YAML's flow form: maps as `{k: v}`, lists as `[a, b]`, strings bare unless
/// YAML would read them otherwise.
fn flow_value(v: &Value) -> String {
    match v {
        Value::String(s) => flow_scalar(s),
        Value::Object(m) => {
            let entries: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", flow_scalar(k), flow_value(v)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(flow_value).collect();
            format!("[{}]", items.join(", "))
        }
        scalar => display_value(scalar),
    }
}

/// A string in a flow collection: bare unless YAML would read it otherwise.
fn flow_scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && !s.contains([',', ':', '{', '}', '[', ']', '#', '"', '\''])
        && !s.starts_with([' ', '-', '&', '*', '!', '|', '>', '%', '@', '`'])
        && !s.ends_with(' ');
    if plain {
        s.to_string()
    } else {
        serde_json::Value::String(s.to_string()).to_string()
    }
}

/// FNV-1a: a stable hash of a point label (independent of the Rust version and platform).
pub fn stable_hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The seed of replicate `replicate` of the point labelled `label`, from the config's base seed.
/// It depends on nothing else, so adding points or seeds never changes an existing run.
pub fn run_seed(base_seed: u64, label: &str, replicate: u32) -> u64 {
    mix64(mix64(mix64(base_seed) ^ stable_hash(label)) ^ replicate as u64)
}

impl Sweep {
    /// Reads a sweep config, applies `--set` overrides, expands the grid and checks every point.
    pub fn load(path: &std::path::Path, overrides: &[String]) -> Result<Sweep, SweepError> {
        Sweep::load_with(path, overrides, &Extensions::builtin())
    }

    /// [`Sweep::load`] knowing the components `extensions` registers (a swept key may be one
    /// of an extension's parameters: `tcp.congestion_control.beta`).
    pub fn load_with(
        path: &std::path::Path,
        overrides: &[String],
        extensions: &Extensions,
    ) -> Result<Sweep, SweepError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Sweep::from_yaml_with(&text, overrides, extensions)
    }

    /// [`Sweep::load`] from a string.
    pub fn from_yaml(text: &str, overrides: &[String]) -> Result<Sweep, SweepError> {
        Sweep::from_yaml_with(text, overrides, &Extensions::builtin())
    }

    /// [`Sweep::from_yaml`] knowing the components `extensions` registers.
    pub fn from_yaml_with(
        text: &str,
        overrides: &[String],
        extensions: &Extensions,
    ) -> Result<Sweep, SweepError> {
        let mut tree = parse_tree(text)?;
        for o in overrides {
            apply_override(&mut tree, o)?;
        }
        let input = tree.clone();
        let section = take_section(&mut tree)?;
        let dims = Dimensions::of(&section)?;
        let points = dims.expand(&tree, extensions)?;
        check_plots(&section.plots, &dims.keys)?;
        let fingerprint = fingerprint(&input);
        let mut warnings = sweep_warnings(&section, &points);
        // A --set of a swept key is overwritten at every point: say so, and how to narrow.
        for o in overrides {
            let Some((key, value)) = o.split_once('=') else {
                continue;
            };
            if dims.keys.iter().any(|k| k == key.trim()) {
                warnings.push(ConfigWarning::new(
                    key.trim(),
                    value,
                    format!(
                        "the sweep varies this key, so --set changes nothing at its points; to run one value, --set 'sweep.grid.{}=[{}]'",
                        key.trim(),
                        value
                    ),
                ));
            }
        }
        let mut probe_columns = ProbeColumnNames::default();
        for p in &points {
            probe_columns
                .merge(&extensions.probe_columns(&p.config)?)
                .map_err(|message| SweepError::Spec {
                    key: "probes".into(),
                    message: format!("{message} (between sweep points)"),
                })?;
        }
        Ok(Sweep {
            probe_columns,
            seeds: section.seeds as u32,
            keys: dims.keys,
            points,
            plots: section.plots,
            censored: section.censored,
            input,
            fingerprint,
            warnings,
            extensions: extensions.clone(),
        })
    }

    /// Points × seeds.
    pub fn runs_total(&self) -> u64 {
        self.points.len() as u64 * self.seeds as u64
    }

    /// The config as given (sweep section included), as YAML.
    pub fn input_yaml(&self) -> String {
        serde_saphyr::to_string(&self.input).unwrap_or_default()
    }
}

/// Removes the `sweep:` section from the config tree and reads it (unknown fields and a seed
/// count out of range are errors).
fn take_section(tree: &mut Value) -> Result<SweepSection, SweepError> {
    let section = tree
        .as_object_mut()
        .and_then(|m| m.shift_remove("sweep"))
        .ok_or_else(|| {
            spec_err(
                "sweep",
                format!(
                    "this config has no `sweep:` section (use `{} run`, or add `sweep: {{seeds: K}}`)",
                    incastsim_scenario::config::program::name()
                ),
            )
        })?;
    let section: SweepSection = serde_path_to_error::deserialize(section).map_err(|e| {
        let p = e.path().to_string();
        spec_err(
            if p == "." {
                "sweep".into()
            } else {
                format!("sweep.{p}")
            },
            e.into_inner().to_string(),
        )
    })?;
    if section.seeds == 0 || section.seeds > 10_000_000 {
        return Err(spec_err(
            "sweep.seeds",
            format!("{} is not allowed: between 1 and 10000000", section.seeds),
        ));
    }
    Ok(section)
}

/// A value listed twice for one grid key (or one zip step repeated) runs the same points twice,
/// with seeds drawn from different labels: replicates that look like separate points. Then each
/// point's config warnings, each key and value once.
fn sweep_warnings(section: &SweepSection, points: &[Point]) -> Vec<ConfigWarning> {
    let mut w = Vec::new();
    let duplicate = |values: &[Value]| {
        values
            .iter()
            .enumerate()
            .find(|(i, v)| values[..*i].contains(v))
            .map(|(_, v)| display_value(v))
    };
    for (key, v) in &section.grid {
        if let Value::Array(a) = v
            && let Some(d) = duplicate(a)
        {
            w.push(ConfigWarning::new(
                format!("sweep.grid.{key}"),
                d,
                "listed more than once: the same points run twice",
            ));
        }
    }
    let columns: Vec<&Vec<Value>> = section
        .zip
        .values()
        .filter_map(|v| match v {
            Value::Array(a) => Some(a),
            _ => None,
        })
        .collect();
    if let Some(first) = columns.first() {
        let steps: Vec<Value> = (0..first.len())
            .map(|i| Value::Array(columns.iter().map(|c| c[i].clone()).collect()))
            .collect();
        if let Some(d) = duplicate(&steps) {
            w.push(ConfigWarning::new(
                "sweep.zip",
                d,
                "this step is listed more than once: the same points run twice",
            ));
        }
    }
    for p in points {
        for x in config_warnings(&p.config) {
            if !w.iter().any(|y| y.key == x.key && y.value == x.value) {
                w.push(x);
            }
        }
    }
    w
}

/// The values a sweep's list gives a key (`sweep.<section>.<key>`): a non-empty list.
fn value_list(section: &str, key: &str, v: &Value) -> Result<Vec<Value>, SweepError> {
    let path = format!("sweep.{section}.{key}");
    match v {
        Value::Array(a) if a.is_empty() => {
            Err(spec_err(path, "empty list of values: give at least one"))
        }
        Value::Array(a) => Ok(a.clone()),
        other => Err(spec_err(
            path,
            format!("{other} is not a list: write [{other}] for a single value"),
        )),
    }
}

/// The dimensions of a sweep: each grid key is one; all zip keys together are one.
struct Dimensions {
    /// Swept keys, in column order.
    keys: Vec<String>,
    /// dim -> step -> value per key of the dim.
    dims: Vec<Vec<Vec<Value>>>,
    /// dim -> indices in `keys` of the keys it sets.
    dim_keys: Vec<Vec<usize>>,
    /// Number of points: the product of the dimensions' lengths.
    total: u64,
}

impl Dimensions {
    /// Reads the grid and zip lists of a section and checks the keys (each swept once, none
    /// that cannot be swept) and the number of points.
    fn of(section: &SweepSection) -> Result<Dimensions, SweepError> {
        let mut keys = Vec::new();
        let mut dims: Vec<Vec<Vec<Value>>> = Vec::new();
        let mut dim_keys: Vec<Vec<usize>> = Vec::new();
        for (key, v) in &section.grid {
            let values = value_list("grid", key, v)?;
            dim_keys.push(vec![keys.len()]);
            keys.push(key.clone());
            dims.push(values.into_iter().map(|x| vec![x]).collect());
        }
        if !section.zip.is_empty() {
            let mut columns = Vec::new();
            for (key, v) in &section.zip {
                columns.push(value_list("zip", key, v)?);
            }
            let len = columns[0].len();
            if let Some((k, c)) = section
                .zip
                .keys()
                .zip(&columns)
                .find(|(_, c)| c.len() != len)
            {
                return Err(spec_err(
                    format!("sweep.zip.{k}"),
                    format!(
                        "{} values, but the first zipped key has {len}: zipped lists must have equal length",
                        c.len()
                    ),
                ));
            }
            let first = keys.len();
            keys.extend(section.zip.keys().cloned());
            dim_keys.push((first..keys.len()).collect());
            dims.push(
                (0..len)
                    .map(|i| columns.iter().map(|c| c[i].clone()).collect())
                    .collect(),
            );
        }
        for (i, k) in keys.iter().enumerate() {
            if keys[..i].contains(k) {
                return Err(spec_err(
                    format!("sweep.zip.{k}"),
                    "swept twice (in grid and zip)",
                ));
            }
            if k == "seed" || k.starts_with("sweep") {
                return Err(spec_err(
                    format!("sweep.grid.{k}"),
                    "cannot be swept: use sweep.seeds for replicates",
                ));
            }
        }
        let total: u64 = dims.iter().map(|d| d.len() as u64).product();
        if total > 1_000_000 {
            return Err(spec_err(
                "sweep",
                format!("{total} points: at most 1000000"),
            ));
        }
        Ok(Dimensions {
            keys,
            dims,
            dim_keys,
            total,
        })
    }

    /// Expands the grid (odometer, last dimension fastest) over the config tree (the sweep
    /// section removed) and checks every point's config.
    fn expand(&self, tree: &Value, extensions: &Extensions) -> Result<Vec<Point>, SweepError> {
        let (keys, dims, dim_keys) = (&self.keys, &self.dims, &self.dim_keys);
        let mut points = Vec::with_capacity(self.total as usize);
        let mut step = vec![0usize; dims.len()];
        for index in 0..self.total as u32 {
            let mut point_tree = tree.clone();
            let mut values = vec![String::new(); keys.len()];
            let mut cells = vec![String::new(); keys.len()];
            for (d, s) in step.iter().enumerate() {
                for (j, &k) in dim_keys[d].iter().enumerate() {
                    let v = &dims[d][*s][j];
                    values[k] = display_value(v);
                    cells[k] = cell_value(v);
                    set_path(&mut point_tree, &keys[k], v.clone())
                        .map_err(|m| spec_err(format!("sweep key {}", keys[k]), m))?;
                }
            }
            let label = keys
                .iter()
                .zip(&values)
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",");
            let config = Config::from_tree_with(point_tree, extensions)
                .and_then(|c| incastsim_scenario::check_buildable(&c, extensions).map(|()| c))
                .map_err(|source| SweepError::Point {
                    label: if label.is_empty() {
                        "(the base config)".into()
                    } else {
                        label.clone()
                    },
                    source,
                })?;
            points.push(Point {
                index,
                label,
                values,
                cells,
                config,
            });
            for d in (0..dims.len()).rev() {
                step[d] += 1;
                if step[d] < dims[d].len() {
                    break;
                }
                step[d] = 0;
            }
        }
        Ok(points)
    }
}

/// Every plot's `x` and `series` name a swept key.
fn check_plots(plots: &[PlotSpec], keys: &[String]) -> Result<(), SweepError> {
    for p in plots {
        // A key by its full path or, when unambiguous, its last part ("rto_min").
        let known = |k: &str| {
            keys.iter().any(|x| x == k)
                || keys
                    .iter()
                    .filter(|x| x.rsplit('.').next() == Some(k))
                    .count()
                    == 1
        };
        if !known(&p.x) {
            return Err(spec_err(
                "sweep.plots.x",
                format!("{} is not a swept key (swept: {})", p.x, keys.join(", ")),
            ));
        }
        if let Some(series) = &p.series {
            for s in series.split(',').map(str::trim) {
                if !known(s) {
                    return Err(spec_err(
                        "sweep.plots.series",
                        format!("{s} is not a swept key (swept: {})", keys.join(", ")),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// [`Sweep::fingerprint`]: the input without the seed count and plots, with the version.
fn fingerprint(input: &Value) -> String {
    let mut fp = input.clone();
    if let Some(s) = fp.get_mut("sweep").and_then(Value::as_object_mut) {
        s.shift_remove("seeds");
        s.shift_remove("plots");
    }
    serde_json::json!({ "version": env!("CARGO_PKG_VERSION"), "config": fp }).to_string()
}

/// What summary.csv does with the runs that hit a limit (`run.max_sim_time`, `run.max_events`,
/// `run.max_wall_time`) before their workload finished (`completed = false` in runs.csv).
///
/// A censored run's metrics are measured over a cut-short window (an incast stuck in a
/// lock-out reports the goodput of the blocks it managed before the cap), so averaging it with
/// complete runs biases the mean towards whatever finished. By default (`exclude`) the
/// statistics of a point are over its completed runs only, and `censored_fraction` says how
/// many were left out; a point whose runs were all censored has empty statistics. `include`
/// is for workloads that run to the time limit by design (e.g. a fixed simulated time of
/// back-to-back blocks): every run is summarized, and `censored_fraction` still says how many
/// hit the limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Censored {
    /// Statistics over completed runs only (the default).
    #[default]
    Exclude,
    /// Statistics over every run, censored or not.
    Include,
}

impl Censored {
    pub(crate) fn is_default(&self) -> bool {
        *self == Censored::Exclude
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
senders: 4
topology: {kind: star}
workload: {kind: synchronized_reads, sru: 64KB, blocks: 2}
"#;

    fn sweep(section: &str) -> Result<Sweep, SweepError> {
        Sweep::from_yaml(&format!("{BASE}\nsweep: {section}\n"), &[])
    }

    /// Issue 39, item 5: `--set sweep.grid.<key.path>=[...]` replaces one axis (the key path
    /// is one key there), and a `--set` of a swept key warns that the grid overrides it.
    #[test]
    fn one_grid_axis_can_be_overridden_and_a_shadowed_set_warns() {
        let text = format!(
            "{BASE}\nsweep: {{seeds: 1, grid: {{senders: [1, 2], tcp.rto_min: [200ms, 1ms]}}}}\n"
        );
        let s = Sweep::from_yaml(&text, &["sweep.grid.tcp.rto_min=[5ms]".into()]).unwrap();
        let labels: Vec<&str> = s.points.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(
            labels,
            ["senders=1,tcp.rto_min=5ms", "senders=2,tcp.rto_min=5ms"]
        );
        let s = Sweep::from_yaml(&text, &["senders=16".into()]).unwrap();
        assert_eq!(s.points.len(), 4);
        let w = s
            .warnings
            .iter()
            .find(|w| w.key == "senders")
            .expect("a warning");
        assert!(
            w.why.contains("--set 'sweep.grid.senders=[16]'"),
            "{}",
            w.why
        );
    }

    /// A swept component is shown as `run` shows it (its name) or in YAML's flow form, never
    /// as JSON; the label (and so the seeds) keeps its JSON form.
    #[test]
    fn swept_maps_are_cells_of_yaml_not_json() {
        let s = sweep(
            "{seeds: 1, grid: {scheme: [none, {name: dsr}, {name: tda, delta: 2ms}], tcp.rto_min: [1ms]}}",
        )
        .unwrap();
        let cells: Vec<&str> = s.points.iter().map(|p| p.cells[0].as_str()).collect();
        assert_eq!(cells, ["none", "dsr", "{name: tda, delta: 2ms}"]);
        assert_eq!(s.points[2].values[0], r#"{"name":"tda","delta":"2ms"}"#);
        assert!(s.points[2].label.starts_with(r#"scheme={"name":"tda""#));
        let nested = serde_json::json!({"a": [1, "x:y"], "b": {"name": "n"}});
        assert_eq!(cell_value(&nested), r#"{a: [1, "x:y"], b: {name: n}}"#);
        assert_eq!(cell_value(&Value::Null), "none");
    }

    #[test]
    fn grid_is_a_cartesian_product_with_the_first_key_outermost() {
        let s = sweep("{seeds: 3, grid: {senders: [1, 2], tcp.rto_min: [200ms, 1ms]}}").unwrap();
        let labels: Vec<&str> = s.points.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "senders=1,tcp.rto_min=200ms",
                "senders=1,tcp.rto_min=1ms",
                "senders=2,tcp.rto_min=200ms",
                "senders=2,tcp.rto_min=1ms"
            ]
        );
        assert_eq!(s.points[3].config.senders, 2);
        assert_eq!(
            s.points[3].config.tcp.rto_min.0,
            incastsim_core::Duration::from_ms(1)
        );
        // Dependent defaults follow the swept value.
        assert_eq!(
            s.points[3].config.tcp.rto_initial.unwrap().0,
            incastsim_core::Duration::from_ms(1)
        );
        assert_eq!(s.runs_total(), 12);
    }

    #[test]
    fn scheme_parameters_are_sweep_keys() {
        use incastsim_scenario::config::SchemeConfig;
        let s = sweep("{grid: {scheme: [none, maa]}}").unwrap();
        assert_eq!(
            s.points[1].config.scheme,
            SchemeConfig::defaults("maa").unwrap()
        );
        let s = Sweep::from_yaml(
            &format!(
                "{BASE}\nscheme: {{name: tda}}\nsweep: {{grid: {{scheme.delta: [1ms, 4ms]}}}}\n"
            ),
            &[],
        )
        .unwrap();
        assert_eq!(s.points[1].label, "scheme.delta=4ms");
        assert!(s.points[1].config.to_yaml().contains("delta: 4ms"));
        let err = Sweep::from_yaml(
            &format!("{BASE}\nscheme: {{name: tda}}\nsweep: {{grid: {{scheme.omega: [0.5]}}}}\n"),
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("scheme.omega"), "{err}");
    }

    #[test]
    fn zip_varies_keys_together() {
        let s = sweep("{grid: {senders: [1, 2]}, zip: {topology.switch_buffer: [32KB, 64KB], workload.sru: [64KB, 128KB]}}").unwrap();
        assert_eq!(s.points.len(), 4);
        assert_eq!(
            s.keys,
            ["senders", "topology.switch_buffer", "workload.sru"]
        );
        assert_eq!(s.points[1].values, ["1", "64KB", "128KB"]);
    }

    #[test]
    fn seeds_depend_only_on_base_point_and_replicate() {
        assert_eq!(run_seed(1, "senders=4", 0), run_seed(1, "senders=4", 0));
        assert_ne!(run_seed(1, "senders=4", 0), run_seed(1, "senders=4", 1));
        assert_ne!(run_seed(1, "senders=4", 0), run_seed(1, "senders=8", 0));
        assert_ne!(run_seed(1, "senders=4", 0), run_seed(2, "senders=4", 0));
    }

    #[test]
    fn bad_sweeps_are_refused_with_the_key() {
        let msg = |s: &str| sweep(s).unwrap_err().to_string();
        assert!(msg("{grid: {tcp.rto_mni: [1ms]}}").contains("rto_mni"));
        assert!(msg("{grid: {senders: []}}").contains("sweep.grid.senders: empty list"));
        assert!(msg("{seeds: 0}").contains("sweep.seeds"));
        assert!(msg("{grid: {senders: 4}}").contains("not a list"));
        assert!(msg("{grid: {senders: [1, 0]}}").contains("senders=0"));
        assert!(msg("{zip: {senders: [1, 2], workload.sru: [1KB]}}").contains("equal length"));
        assert!(msg("{grid: {seed: [1, 2]}}").contains("sweep.seeds"));
        assert!(msg("{seeds: 2, bogus: 1}").contains("bogus"));
        let bad = msg("{seeds: 2, censored: drop}");
        assert!(
            bad.contains("sweep.censored") && bad.contains("exclude") && bad.contains("include"),
            "{bad}"
        );
        assert_eq!(
            sweep("{seeds: 2, censored: include}").unwrap().censored,
            Censored::Include
        );
        assert_eq!(sweep("{seeds: 2}").unwrap().censored, Censored::Exclude);
        assert!(
            msg("{grid: {senders: [1]}, plots: [{x: rto, y: goodput_mbps}]}")
                .contains("not a swept key")
        );
        assert!(
            Sweep::from_yaml(BASE, &[])
                .unwrap_err()
                .to_string()
                .contains("no `sweep:` section")
        );
    }

    #[test]
    fn fingerprint_ignores_seeds_and_plots_only() {
        let a = sweep("{seeds: 2, grid: {senders: [1, 2]}}").unwrap();
        let b =
            sweep("{seeds: 5, grid: {senders: [1, 2]}, plots: [{x: senders, y: goodput_mbps}]}")
                .unwrap();
        let c = sweep("{seeds: 2, grid: {senders: [1, 3]}}").unwrap();
        assert_eq!(a.fingerprint, b.fingerprint);
        assert_ne!(a.fingerprint, c.fingerprint);
    }

    /// A sweep's plot may ask for a log x axis (issue 39, item 3), as `incastsim plot --log-x`.
    #[test]
    fn a_plot_may_ask_for_log_axes() {
        let s = sweep("{seeds: 1, grid: {senders: [1, 2, 4]}, plots: [{x: senders, y: goodput_mbps, log_x: true, log_y: true}]}")
            .unwrap();
        assert!(s.plots[0].log_x && s.plots[0].log_y);
        let s =
            sweep("{seeds: 1, grid: {senders: [1, 2]}, plots: [{x: senders, y: goodput_mbps}]}")
                .unwrap();
        assert!(!s.plots[0].log_x);
    }
}
