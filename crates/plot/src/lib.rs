//! incastsim-plot: draws a metric of a sweep's `summary.csv` against a swept key, one line per
//! value of another swept key, with 95 % confidence-interval error bars, as PNG, SVG and PDF.
//!
//! Axes may be logarithmic ([`Axis`]); ticks print integers as integers; titles and axis
//! labels use the columns' human names with units; the legend sits right of the plotting area,
//! so it never covers data. The PNG and PDF text uses an embedded DejaVu Sans, so plots render
//! on machines without system fonts.

#![warn(missing_docs)]

mod pdf;

use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::{Path, PathBuf};
use std::sync::Once;

/// Why a plot could not be drawn.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlotError {
    /// The sweep's summary cannot give the requested plot (missing file, unknown column, a
    /// non-numeric x value).
    #[error("{path}: {message}")]
    Input {
        /// The file read.
        path: String,
        /// What is wrong with it, naming the column or value.
        message: String,
    },
    /// Creating the output folder or rendering the PNG/SVG failed.
    #[error("drawing {path}: {message}")]
    Draw {
        /// The file or folder written.
        path: String,
        /// The drawing backend's or the file system's error.
        message: String,
    },
}

/// A file format of a plot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// A 1040 × 640 bitmap.
    Png,
    /// Vector graphics; text stays text (viewers draw it in their sans-serif font).
    Svg,
    /// Vector graphics, text in the embedded DejaVu Sans (as the PNG's).
    Pdf,
}

impl Format {
    /// Every format, in the order files are written.
    pub const ALL: [Format; 3] = [Format::Png, Format::Svg, Format::Pdf];

    /// The file extension (and the name `--format` takes).
    pub fn extension(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Svg => "svg",
            Format::Pdf => "pdf",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Format, String> {
        Format::ALL
            .into_iter()
            .find(|f| f.extension().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("unknown plot format {s:?} (formats: png, svg, pdf)"))
    }
}

/// What to plot.
#[derive(Clone, Debug, PartialEq)]
pub struct PlotRequest {
    /// A swept key with numeric values (x axis).
    pub x: String,
    /// A metric (a `metric` value in summary.csv), or several separated by commas
    /// ("goodput_mbps,model_full_mbps"): one line per metric, on one axis.
    pub y: String,
    /// A swept key whose values become separate lines, or several separated by commas
    /// ("scheme,topology.switch_delay_jitter"): one line per combination.
    pub series: Option<String>,
    /// A logarithmic x axis (for doubling sweeps, N = 1, 2, 4, ... 64); every x must be > 0.
    pub log_x: bool,
    /// A logarithmic y axis (for counts spanning decades, e.g. `rto_count`). Points whose
    /// mean is not positive have no place on it: they are left out and listed under the plot.
    pub log_y: bool,
    /// Output file name without extension.
    pub name: Option<String>,
    /// The files to write, one per format; empty: PNG and SVG.
    pub formats: Vec<Format>,
}

impl PlotRequest {
    /// `y` against `x`, one line, linear axes, PNG and SVG.
    pub fn new(x: &str, y: &str) -> PlotRequest {
        PlotRequest {
            x: x.into(),
            y: y.into(),
            series: None,
            log_x: false,
            log_y: false,
            name: None,
            formats: Vec::new(),
        }
    }

    /// The output file name without extension: `name`, else `<y>-vs-<x>[-by-<series>]`.
    pub fn file_stem(&self) -> String {
        self.name.clone().unwrap_or_else(|| {
            let base = format!("{}-vs-{}", self.y, self.x);
            match &self.series {
                Some(s) => format!("{base}-by-{s}"),
                None => base,
            }
        })
    }

    /// The formats to write: `formats`, else PNG and SVG; each once, in [`Format::ALL`] order.
    pub fn formats(&self) -> Vec<Format> {
        if self.formats.is_empty() {
            return vec![Format::Png, Format::Svg];
        }
        Format::ALL
            .into_iter()
            .filter(|f| self.formats.contains(f))
            .collect()
    }

    /// The plot's title, in the axes' words: "goodput (Mbps) vs senders (mean, 95% CI)".
    pub fn title(&self) -> String {
        let ys: Vec<String> = self.y.split(',').map(|m| axis_label(m.trim())).collect();
        format!(
            "{} vs {} (mean, 95% CI)",
            ys.join(", "),
            axis_label(&self.x)
        )
    }
}

/// One line: (x, mean, ci_low, ci_high) points sorted by x.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The legend entry: the series key values (`key = value`), preceded by the metric's label
    /// when one plot has several (the metric's label alone without a series key).
    pub label: String,
    /// (x, mean, lower end of the 95 % CI, upper end), in the metric's own unit.
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// Metric and key names as people write them: "rto" → "RTO".
const ACRONYMS: [(&str, &str); 12] = [
    ("rto", "RTO"),
    ("rtt", "RTT"),
    ("fct", "FCT"),
    ("bct", "BCT"),
    ("pfc", "PFC"),
    ("ecn", "ECN"),
    ("sru", "SRU"),
    ("mss", "MSS"),
    ("udp", "UDP"),
    ("sack", "SACK"),
    ("ibtt", "IBTT"),
    ("abtt", "ABTT"),
];

/// The words of a column name: "tcp.rto_min" → "tcp.RTO min" (dots kept, they name the key).
fn words(name: &str) -> String {
    let word = |w: &str| {
        ACRONYMS
            .iter()
            .find(|(a, _)| *a == w)
            .map_or_else(|| w.to_string(), |(_, b)| (*b).to_string())
    };
    name.split('_')
        .map(|part| part.split('.').map(word).collect::<Vec<_>>().join("."))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a metric is a count of a run (its mean over runs is a count per run): RTOs, drops,
/// packets, segments, flows, events, runs of successive losses.
fn per_run_count(column: &str) -> bool {
    const SUFFIXES: [&str; 7] = [
        "_count",
        "_drops",
        "_segments",
        "_events",
        "_retransmits",
        "_indications",
        "_pauses",
    ];
    const PREFIXES: [&str; 4] = ["packets_", "udp_packets_", "flows_", "drops"];
    SUFFIXES.iter().any(|s| column.ends_with(s))
        || PREFIXES.iter().any(|p| column.starts_with(p))
        || column.contains("drop_run_")
        || column.starts_with("rto_run_")
}

/// A column's axis label with its unit: "goodput_mbps" → "goodput (Mbps)", "bct_p99_ms" →
/// "BCT p99 (ms)"; a per-run count says so: "rto_count" → "RTO count (per run)".
pub fn axis_label(column: &str) -> String {
    const UNITS: [(&str, &str); 9] = [
        ("_mbps", "Mbps"),
        ("_gbps", "Gbps"),
        ("_bps", "bit/s"),
        ("_ms", "ms"),
        ("_us", "µs"),
        ("_s", "s"),
        ("_bytes", "bytes"),
        ("_pct", "%"),
        ("_pkts", "packets"),
    ];
    for (suffix, unit) in UNITS {
        if let Some(base) = column.strip_suffix(suffix) {
            return format!("{} ({unit})", words(base));
        }
    }
    if per_run_count(column) {
        return format!("{} (per run)", words(column));
    }
    words(column)
}

/// A tick label: integers without a decimal point ("10", not "10.0"), other values with the
/// digits they need ("0.25", "1.5e-6").
pub fn tick_label(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    if v == v.round() && v.abs() < 1e15 {
        // `+ 0.0` turns -0 into 0.
        return format!("{:.0}", v + 0.0);
    }
    let a = v.abs();
    if !(1e-4..1e15).contains(&a) {
        let s = format!("{v:.3e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = m.trim_end_matches('0').trim_end_matches('.');
        return format!("{m}e{e}");
    }
    // Six significant digits, trailing zeros dropped: ticks are round numbers, and float
    // noise (0.30000000000000004) is not printed.
    let decimals = (5 - a.log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.decimals$}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Finds a column by exact name, or by its last dotted part ("rto_min" finds "tcp.rto_min").
fn find_column(header: &[String], name: &str, path: &Path) -> Result<usize, PlotError> {
    if let Some(i) = header.iter().position(|c| c == name) {
        return Ok(i);
    }
    let matches: Vec<usize> = (0..header.len())
        .filter(|&i| header[i].rsplit('.').next() == Some(name))
        .collect();
    match matches.as_slice() {
        [i] => Ok(*i),
        _ => Err(PlotError::Input {
            path: path.display().to_string(),
            message: format!("no column {name:?} (columns: {})", header.join(", ")),
        }),
    }
}

/// Reads the series to plot from a sweep folder's summary.csv.
pub fn load_series(dir: &Path, req: &PlotRequest) -> Result<Vec<Series>, PlotError> {
    let path = dir.join("summary.csv");
    let input = |message: String| PlotError::Input {
        path: path.display().to_string(),
        message,
    };
    let mut rdr = csv::Reader::from_path(&path).map_err(|e| input(e.to_string()))?;
    let header: Vec<String> = rdr
        .headers()
        .map_err(|e| input(e.to_string()))?
        .iter()
        .map(String::from)
        .collect();
    let metric_col = find_column(&header, "metric", &path)?;
    let x_col = find_column(&header, &req.x, &path)?;
    if x_col >= metric_col {
        return Err(input(format!("{} is not a swept key", req.x)));
    }
    let s_col: Vec<usize> = match req.series.as_deref() {
        Some(s) => s
            .split(',')
            .map(|k| find_column(&header, k.trim(), &path))
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    let col = |name: &str| {
        header
            .iter()
            .position(|c| c == name)
            .ok_or_else(|| input(format!("no {name} column")))
    };
    let (mean, lo, hi) = (col("mean")?, col("ci95_low")?, col("ci95_high")?);
    let mut series: Vec<Series> = Vec::new();
    let metrics: Vec<&str> = req.y.split(',').map(str::trim).collect();
    // Every metric of the summary, in order of first appearance: an unknown one is answered
    // with the list.
    let mut available: Vec<String> = Vec::new();
    let mut x_unit: Option<String> = None;
    for rec in rdr.records() {
        let rec = rec.map_err(|e| input(e.to_string()))?;
        if let Some(m) = rec.get(metric_col)
            && !available.iter().any(|a| a == m)
        {
            available.push(m.to_string());
        }
        let Some(metric) = rec.get(metric_col).filter(|m| metrics.contains(m)) else {
            continue;
        };
        let xs = rec.get(x_col).unwrap_or_default();
        let x = x_value(xs, &mut x_unit, &header[x_col]).map_err(input)?;
        let num = |i: usize| {
            rec.get(i)
                .and_then(|s| s.parse::<f64>().ok())
                .unwrap_or(f64::NAN)
        };
        let label = series_label(&rec, &header, metric, &s_col, metrics.len() > 1);
        let point = (x, num(mean), num(lo), num(hi));
        match series.iter_mut().find(|s| s.label == label) {
            Some(s) => s.points.push(point),
            None => series.push(Series {
                label,
                points: vec![point],
            }),
        }
    }
    let unknown: Vec<&str> = metrics
        .iter()
        .copied()
        .filter(|m| !available.iter().any(|a| a == m))
        .collect();
    if !unknown.is_empty() {
        return Err(input(unknown_metric_message(&unknown, &available)));
    }
    for s in &mut series {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    // Two points of one line at the same x: another swept key varies along it, and the line
    // would zig-zag through its values. Name the keys to draw as series instead.
    if series
        .iter()
        .any(|s| s.points.windows(2).any(|w| w[0].0 == w[1].0))
    {
        let others: Vec<&str> = header[..metric_col]
            .iter()
            .enumerate()
            .filter(|(i, c)| *i != x_col && !s_col.contains(i) && c.as_str() != "point")
            .map(|(_, c)| c.as_str())
            .collect();
        return Err(input(format!(
            "the sweep also varies {}: one line over {} would zig-zag through their values; draw one line per value with --series {}",
            others.join(", "),
            req.x,
            others.join(",")
        )));
    }
    Ok(series)
}

/// "no metric \"goodput\" in the summary (did you mean goodput_mbps?); its metrics: ...".
fn unknown_metric_message(unknown: &[&str], available: &[String]) -> String {
    let names = unknown
        .iter()
        .map(|m| format!("{m:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    let close: Vec<&str> = available
        .iter()
        .map(String::as_str)
        .filter(|a| {
            unknown
                .iter()
                .any(|u| !u.is_empty() && (a.contains(u) || u.contains(a)))
        })
        .collect();
    let hint = if close.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", close.join(" or "))
    };
    if available.is_empty() {
        return format!("no metric {names}: the summary has no rows");
    }
    format!(
        "no metric {names} in the summary{hint}; its metrics: {}",
        available.join(", ")
    )
}

/// The x value of a summary row: the number in `xs` (a value of `column`). Values with one
/// common unit ("20 packets", "60 packets") plot at their numbers: `x_unit` is the unit of the
/// first row, and another unit is an error, as is a value that is not a number.
fn x_value(xs: &str, x_unit: &mut Option<String>, column: &str) -> Result<f64, String> {
    let t = xs.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .unwrap_or(t.len());
    let (numeric, unit) = (t[..split].trim(), t[split..].trim());
    match x_unit {
        None => *x_unit = Some(unit.to_string()),
        Some(u) if u != unit => {
            return Err(format!(
                "{column} mixes units ({u:?} and {unit:?}): plot it as --series instead"
            ));
        }
        Some(_) => {}
    }
    numeric.parse().map_err(|_| {
        format!("{column} has a non-numeric value {xs:?}: plot it as --series instead")
    })
}

/// The line a summary row belongs to: its values of the series columns `s_col` (prefixed with
/// the metric when several metrics share the plot), else its metric.
fn series_label(
    rec: &csv::StringRecord,
    header: &[String],
    metric: &str,
    s_col: &[usize],
    several_metrics: bool,
) -> String {
    if s_col.is_empty() {
        return axis_label(metric);
    }
    let values = s_col
        .iter()
        .map(|&c| format!("{} = {}", header[c], rec.get(c).unwrap_or_default()))
        .collect::<Vec<_>>()
        .join(", ");
    if several_metrics {
        format!("{}, {values}", axis_label(metric))
    } else {
        values
    }
}

static FONT: Once = Once::new();

fn register_font() {
    FONT.call_once(|| {
        // An embedded font: rendering needs no system font packages.
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            dejavu::sans::regular(),
        );
    });
}

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// One axis: linear, or logarithmic with chosen ticks. A plotters coordinate, so one chart
/// type serves every combination of `--log-x` and `--log-y`.
#[derive(Clone, Debug, PartialEq)]
pub enum Axis {
    /// Linear from `lo` to `hi`; plotters chooses round ticks.
    Linear {
        /// The lower end.
        lo: f64,
        /// The upper end.
        hi: f64,
    },
    /// Logarithmic from `lo` to `hi` (both > 0), ticks at `ticks`.
    Log {
        /// The lower end.
        lo: f64,
        /// The upper end.
        hi: f64,
        /// Where the ticks go.
        ticks: Vec<f64>,
    },
}

impl Axis {
    /// The axis over values from `lo` to `hi` (padded), logarithmic or not. `marks` are values
    /// worth a tick of their own on a log axis (the swept x values), used when there are few.
    fn over(lo: f64, hi: f64, log: bool, marks: &[f64]) -> Axis {
        if !log {
            return Axis::Linear { lo, hi };
        }
        let (lo, hi) = if lo < hi {
            (lo, hi)
        } else {
            (lo / 2.0, hi * 2.0)
        };
        // 4 % of the decades spanned on each side, so end points are not on the frame.
        let pad = (hi / lo).powf(0.04);
        let (lo, hi) = (lo / pad, hi * pad);
        Axis::Log {
            lo,
            hi,
            ticks: log_ticks(lo, hi, marks),
        }
    }

    /// Where `v` lands between pixels `limit.0` and `limit.1`.
    pub fn map_f(&self, v: f64, limit: (i32, i32)) -> f64 {
        let share = match self {
            Axis::Linear { lo, hi } => (v - lo) / (hi - lo),
            Axis::Log { lo, hi, .. } => (v.ln() - lo.ln()) / (hi.ln() - lo.ln()),
        };
        f64::from(limit.0) + share * f64::from(limit.1 - limit.0)
    }

    fn lo(&self) -> f64 {
        match self {
            Axis::Linear { lo, .. } | Axis::Log { lo, .. } => *lo,
        }
    }
}

impl Ranged for Axis {
    type FormatOption = plotters::coord::ranged1d::NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let p = self.map_f(*value, limit);
        // Off-scale values (a CI below a log axis's floor) stay near the frame, not at i32::MIN.
        p.clamp(-1e6, 1e6).round() as i32
    }

    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        match self {
            Axis::Linear { lo, hi } => {
                plotters::coord::types::RangedCoordf64::from(*lo..*hi).key_points(hint)
            }
            Axis::Log { ticks, .. } => ticks.clone(),
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        match self {
            Axis::Linear { lo, hi } | Axis::Log { lo, hi, .. } => *lo..*hi,
        }
    }
}

impl ValueFormatter<f64> for Axis {
    fn format(value: &f64) -> String {
        tick_label(*value)
    }
}

/// Ticks of a log axis from `lo` to `hi`: the `marks` inside it when there are at most 12
/// (skipping one too close to the last kept, under 4 % of the axis), else 1-2-5 steps over up
/// to three decades, else powers of ten (thinned to at most 10).
pub fn log_ticks(lo: f64, hi: f64, marks: &[f64]) -> Vec<f64> {
    let span = (hi / lo).ln();
    let inside = |v: &f64| *v >= lo && *v <= hi;
    let mut m: Vec<f64> = marks.iter().copied().filter(inside).collect();
    m.sort_by(f64::total_cmp);
    m.dedup();
    if (2..=12).contains(&m.len()) {
        let mut kept: Vec<f64> = Vec::new();
        for v in m {
            if kept.last().is_none_or(|k| (v / k).ln() >= 0.04 * span) {
                kept.push(v);
            }
        }
        return kept;
    }
    let (d0, d1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let steps: &[f64] = if d1 - d0 <= 3 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let mut ticks: Vec<f64> = (d0..=d1)
        .flat_map(|d| steps.iter().map(move |s| s * 10f64.powi(d)))
        .filter(inside)
        .collect();
    let every = ticks.len().div_ceil(10).max(1);
    if every > 1 {
        ticks = ticks.into_iter().step_by(every).collect();
    }
    ticks
}

/// The x and y axes of the series' points (means and CIs), with the points a log axis cannot
/// show left out of its range.
fn axes(series: &[Series], log_x: bool, log_y: bool) -> (Axis, Axis) {
    let all = || series.iter().flat_map(|s| s.points.iter());
    // A metric whose means are all non-negative (goodput, counts) gets a y axis from zero even
    // when a small-sample confidence interval dips below it.
    let non_negative = all().all(|p| p.1 >= 0.0 || p.1.is_nan());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, m, lo, hi) in all() {
        x0 = x0.min(x);
        x1 = x1.max(x);
        // A point drawn on a log y axis (mean > 0) counts with its CI's positive ends.
        if log_y && (m.is_nan() || m <= 0.0) {
            continue;
        }
        for y in [m, lo, hi] {
            if y.is_finite() && (!log_y || y > 0.0) {
                y0 = y0.min(y);
                y1 = y1.max(y);
            }
        }
    }
    if x0 > x1 {
        (x0, x1) = (1.0, 2.0);
    }
    let xs: Vec<f64> = all().map(|p| p.0).collect();
    let x_axis = if log_x {
        Axis::over(x0, x1, true, &xs)
    } else {
        if x0 == x1 {
            (x0, x1) = (x0 - 1.0, x1 + 1.0);
        }
        let pad = (x1 - x0) * 0.03;
        Axis::over(x0 - pad, x1 + pad, false, &xs)
    };
    if y0 > y1 {
        (y0, y1) = (if log_y { 1.0 } else { 0.0 }, 1.0);
    }
    if non_negative && !log_y {
        y0 = y0.max(0.0);
    }
    let y_axis = if log_y {
        Axis::over(y0, y1, true, &[])
    } else {
        let top = if y1 == y0 {
            y1 + 1.0
        } else {
            y1 + (y1 - y0.min(0.0)) * 0.05
        };
        Axis::over(y0.min(0.0), top, false, &[])
    };
    (x_axis, y_axis)
}

/// The footnote of a log-y plot: the points left out because their mean is not positive,
/// per line ("mean 0, not drawn on the log axis: tcp.rto_min = 1ms at senders 1, 2, 4"), in
/// lines of at most about 110 characters. Empty when none is.
pub fn left_out_note(series: &[Series], req: &PlotRequest) -> Vec<String> {
    if !req.log_y {
        return Vec::new();
    }
    let mut parts = Vec::new();
    let mut all_zero = true;
    for s in series {
        let xs: Vec<String> = s
            .points
            .iter()
            .filter(|p| p.1 <= 0.0)
            .inspect(|p| all_zero &= p.1 == 0.0)
            .map(|p| tick_label(p.0))
            .collect();
        if !xs.is_empty() {
            parts.push(format!("{} at {} {}", s.label, req.x, xs.join(", ")));
        }
    }
    if parts.is_empty() {
        return Vec::new();
    }
    let head = if all_zero {
        "Not drawn (mean 0, no place on a log axis): "
    } else {
        "Not drawn (mean <= 0, no place on a log axis): "
    };
    let mut lines = vec![head.to_string()];
    for (i, part) in parts.iter().enumerate() {
        let sep = if i + 1 < parts.len() { "; " } else { "" };
        let last = lines.last_mut().expect("one line");
        if last.len() + part.len() > 110 && last.len() > head.len() {
            lines.push(format!("{part}{sep}"));
        } else {
            last.push_str(&format!("{part}{sep}"));
        }
    }
    lines
}

/// The runs of consecutive drawable points of a line (a log y axis breaks it where a mean is
/// not positive, rather than bridging the gap).
fn segments(s: &Series, log_y: bool) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for p in &s.points {
        if p.1.is_finite() && (!log_y || p.1 > 0.0) {
            out.last_mut().expect("one segment").push((p.0, p.1));
        } else if !out.last().expect("one segment").is_empty() {
            out.push(Vec::new());
        }
    }
    out.retain(|seg| !seg.is_empty());
    out
}

const WIDTH: u32 = 1040;
const HEIGHT: u32 = 640;

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    series: &[Series],
    req: &PlotRequest,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let (x_axis, y_axis) = axes(series, req.log_x, req.log_y);
    let y_floor = y_axis.lo();
    let root = root.titled(&req.title(), ("sans-serif", 22)).map_err(e)?;
    // A footnote under the plot (points a log axis leaves out), then the legend to the right of
    // the plotting area: it never covers data.
    let notes = left_out_note(series, req);
    let grey = RGBColor(60, 60, 60);
    let note_style = TextStyle::from(("sans-serif", 14).into_font()).color(&grey);
    let note_h = if notes.is_empty() {
        0
    } else {
        20 * notes.len() as u32 + 8
    };
    let (_, h) = root.dim_in_pixel();
    let (main, foot) = root.split_vertically(h - note_h);
    for (i, line) in notes.iter().enumerate() {
        foot.draw_text(line, &note_style, (16, 20 * i as i32))
            .map_err(e)?;
    }
    let label_style = TextStyle::from(("sans-serif", 14).into_font());
    let mut legend_w = 0;
    for s in series {
        legend_w = legend_w.max(
            main.estimate_text_size(&s.label, &label_style)
                .map_err(e)?
                .0,
        );
    }
    let (w, _) = main.dim_in_pixel();
    let legend_w = (legend_w + 56).min(w * 2 / 5);
    let (plot_area, legend) = main.split_horizontally(w - legend_w);

    let y_label = axis_label(req.y.split(',').next().unwrap_or_default().trim());
    let mut chart = ChartBuilder::on(&plot_area)
        .margin(16)
        .margin_right(8)
        .x_label_area_size(48)
        .y_label_area_size(78)
        .build_cartesian_2d(x_axis, y_axis)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(axis_label(&req.x))
        .y_desc(y_label)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .draw()
        .map_err(e)?;
    for (i, s) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let style = ShapeStyle::from(color).stroke_width(2);
        for seg in segments(s, req.log_y) {
            chart
                .draw_series(LineSeries::new(seg.iter().copied(), style))
                .map_err(e)?;
            chart
                .draw_series(seg.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(e)?;
        }
        // A CI reaching below a log axis's floor is drawn down to the floor.
        let bars = s.points.iter().filter(|p| {
            p.1.is_finite() && p.2.is_finite() && p.3.is_finite() && (!req.log_y || p.1 > 0.0)
        });
        chart
            .draw_series(bars.map(|&(x, m, lo, hi)| {
                let lo = if req.log_y { lo.max(y_floor) } else { lo };
                ErrorBar::new_vertical(x, lo, m, hi, color, 8)
            }))
            .map_err(e)?;
    }
    // The legend: a line and marker per series, top-aligned with the plotting area.
    for (i, s) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let style = ShapeStyle::from(color).stroke_width(2);
        let y = 24 + 22 * i as i32;
        legend
            .draw(&PathElement::new(vec![(4, y), (30, y)], style))
            .map_err(e)?;
        legend
            .draw(&Circle::new((17, y), 3, color.filled()))
            .map_err(e)?;
        legend
            .draw_text(
                &s.label,
                &label_style.pos(Pos::new(HPos::Left, VPos::Center)),
                (38, y),
            )
            .map_err(e)?;
    }
    root.present().map_err(e)
}

/// Draws the plot into `DIR/plots/<name>.<format>` for each of the request's formats; returns
/// the paths.
pub fn plot_sweep(dir: &Path, req: &PlotRequest) -> Result<Vec<PathBuf>, PlotError> {
    plot_sweep_to(dir, &dir.join("plots"), req)
}

/// [`plot_sweep`] writing the files into `out` instead of `dir/plots`: `dir` is only read, so
/// a finished sweep on a read-only mount can be plotted.
pub fn plot_sweep_to(dir: &Path, out: &Path, req: &PlotRequest) -> Result<Vec<PathBuf>, PlotError> {
    let series = load_series(dir, req)?;
    if req.log_x
        && let Some(p) = series
            .iter()
            .flat_map(|s| &s.points)
            .find(|p| p.0.is_nan() || p.0 <= 0.0)
    {
        return Err(PlotError::Input {
            path: dir.join("summary.csv").display().to_string(),
            message: format!(
                "--log-x: {} has the value {}, which a log axis cannot show (values must be > 0)",
                req.x,
                tick_label(p.0)
            ),
        });
    }
    let out = out.to_path_buf();
    std::fs::create_dir_all(&out).map_err(|e| PlotError::Draw {
        path: out.display().to_string(),
        message: e.to_string(),
    })?;
    register_font();
    let stem = req.file_stem();
    let mut files = Vec::new();
    for format in req.formats() {
        let path = out.join(format!("{stem}.{}", format.extension()));
        write_format(&path, format, &series, req).map_err(|message| PlotError::Draw {
            path: path.display().to_string(),
            message,
        })?;
        files.push(path);
    }
    Ok(files)
}

fn write_format(
    path: &Path,
    format: Format,
    series: &[Series],
    req: &PlotRequest,
) -> Result<(), String> {
    match format {
        Format::Png => draw(
            BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area(),
            series,
            req,
        ),
        Format::Svg => draw(
            SVGBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area(),
            series,
            req,
        ),
        Format::Pdf => draw(
            pdf::PdfBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area(),
            series,
            req,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_labels_carry_units() {
        assert_eq!(axis_label("goodput_mbps"), "goodput (Mbps)");
        assert_eq!(axis_label("bct_p99_ms"), "BCT p99 (ms)");
        assert_eq!(axis_label("sim_time_s"), "sim time (s)");
        assert_eq!(axis_label("senders"), "senders");
        assert_eq!(axis_label("tcp.rto_min"), "tcp.RTO min");
    }

    /// Issue 39, item 3: per-run counts say so.
    #[test]
    fn count_metrics_are_labelled_per_run() {
        assert_eq!(axis_label("rto_count"), "RTO count (per run)");
        assert_eq!(axis_label("packets_sent"), "packets sent (per run)");
        assert_eq!(
            axis_label("retransmitted_segments"),
            "retransmitted segments (per run)"
        );
        assert_eq!(axis_label("flow_drop_run_3"), "flow drop run 3 (per run)");
        assert_eq!(axis_label("jain_fairness"), "jain fairness");
    }

    #[test]
    fn titles_use_the_axes_labels() {
        let req = PlotRequest::new("senders", "goodput_mbps");
        assert_eq!(req.title(), "goodput (Mbps) vs senders (mean, 95% CI)");
        let two = PlotRequest::new("senders", "goodput_mbps, model_full_mbps");
        assert_eq!(
            two.title(),
            "goodput (Mbps), model full (Mbps) vs senders (mean, 95% CI)"
        );
        let counts = PlotRequest::new("senders", "rto_count");
        assert_eq!(
            counts.title(),
            "RTO count (per run) vs senders (mean, 95% CI)"
        );
        // A line without a series key is named by its metric's label.
        let rec = csv::StringRecord::new();
        assert_eq!(
            series_label(&rec, &[], "goodput_mbps", &[], false),
            "goodput (Mbps)"
        );
    }

    #[test]
    fn integer_ticks_print_as_integers() {
        assert_eq!(tick_label(10.0), "10");
        assert_eq!(tick_label(0.0), "0");
        assert_eq!(tick_label(-0.0), "0");
        assert_eq!(tick_label(-3.0), "-3");
        assert_eq!(tick_label(1e6), "1000000");
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(tick_label(2.5), "2.5");
        assert_eq!(tick_label(0.1 + 0.2), "0.3");
        assert_eq!(tick_label(1234.5678), "1234.57");
        assert_eq!(tick_label(1.5e-6), "1.5e-6");
        assert_eq!(tick_label(2e-5), "2e-5");
    }

    #[test]
    fn log_x_maps_ratios_to_equal_distances() {
        let axis = Axis::Log {
            lo: 1.0,
            hi: 64.0,
            ticks: vec![],
        };
        let px = |v: f64| axis.map_f(v, (0, 600));
        assert_eq!(px(1.0), 0.0);
        assert!((px(64.0) - 600.0).abs() < 1e-9);
        // Each doubling is one sixth of the axis: 1, 2, 4, 8 are not crammed together.
        for v in [1.0, 2.0, 4.0, 8.0, 16.0, 32.0] {
            assert!((px(2.0 * v) - px(v) - 100.0).abs() < 1e-9, "{v}");
        }
        assert_eq!(axis.map(&8.0, (0, 600)), 300);
        // A linear axis puts 1, 2, 4, 8 in the first 11 % of 1..64.
        let lin = Axis::Linear { lo: 1.0, hi: 64.0 };
        assert!(lin.map_f(8.0, (0, 600)) < 70.0);
        // The swept values become the ticks of a log x axis.
        let (x, _) = axes(
            &[Series {
                label: "a".into(),
                points: [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 48.0, 64.0]
                    .iter()
                    .map(|&n| (n, 1.0, 0.5, 1.5))
                    .collect(),
            }],
            true,
            false,
        );
        let Axis::Log { lo, hi, ticks } = &x else {
            panic!("{x:?}")
        };
        assert!(*lo < 1.0 && *hi > 64.0);
        assert_eq!(ticks, &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 48.0, 64.0]);
        let labels: Vec<String> = ticks.iter().map(|&t| tick_label(t)).collect();
        assert_eq!(labels, ["1", "2", "4", "8", "16", "32", "48", "64"]);
    }

    #[test]
    fn log_ticks_without_marks_are_decades() {
        assert_eq!(log_ticks(0.5, 2000.0, &[]), [1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(log_ticks(0.9, 30.0, &[]), [1.0, 2.0, 5.0, 10.0, 20.0]);
        // Values too close on the axis (under 4 % of it) share a tick.
        assert_eq!(
            log_ticks(1.0, 1000.0, &[1.0, 10.0, 11.0, 100.0]),
            [1.0, 10.0, 100.0]
        );
        assert!(log_ticks(1e-9, 1e9, &[]).len() <= 10);
    }

    #[test]
    fn formats_parse_and_default_to_png_and_svg() {
        assert_eq!("SVG".parse::<Format>(), Ok(Format::Svg));
        assert_eq!("pdf".parse::<Format>(), Ok(Format::Pdf));
        assert!(
            "jpg"
                .parse::<Format>()
                .unwrap_err()
                .contains("png, svg, pdf")
        );
        let mut req = PlotRequest::new("senders", "goodput_mbps");
        assert_eq!(req.formats(), [Format::Png, Format::Svg]);
        req.formats = vec![Format::Pdf, Format::Png, Format::Pdf];
        assert_eq!(req.formats(), [Format::Png, Format::Pdf]);
    }

    /// A summary with goodput and a count that is 0 at some points, in a fresh folder.
    fn summary(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("incastsim-plot-test-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut csv = String::from(
            "point,senders,tcp.rto_min,metric,count,mean,std,ci95_low,ci95_high,median,p5,p95,p99,min,max\n",
        );
        for (i, (n, rto, m, rtos)) in [
            (1, "200ms", 900.0, 0.0),
            (8, "200ms", 200.0, 40.0),
            (1, "1ms", 905.0, 0.0),
            (8, "1ms", 800.0, 3.0),
        ]
        .iter()
        .enumerate()
        {
            csv += &format!(
                "{i},{n},{rto},goodput_mbps,3,{m},10,{},{},{m},{m},{m},{m},{m},{m}\n",
                m - 20.0,
                m + 20.0
            );
            csv += &format!(
                "{i},{n},{rto},rto_count,3,{rtos},1,{},{},5,5,5,5,5,5\n",
                rtos - 2.0,
                rtos + 2.0
            );
        }
        std::fs::write(dir.join("summary.csv"), csv).unwrap();
        dir
    }

    #[test]
    fn draws_png_and_svg_from_a_summary() {
        let dir = summary("draw");
        let req = PlotRequest {
            series: Some("rto_min".into()),
            ..PlotRequest::new("senders", "goodput_mbps")
        };
        let series = load_series(&dir, &req).unwrap();
        assert_eq!(series.len(), 2);
        assert_eq!(series[1].label, "tcp.rto_min = 1ms");
        assert_eq!(
            series[1].points,
            vec![(1.0, 905.0, 885.0, 925.0), (8.0, 800.0, 780.0, 820.0)]
        );
        // Issue 38, item 12: without a series the other swept key would make one line zig-zag
        // through its values: refused, naming it.
        let no_series = PlotRequest {
            series: None,
            ..req.clone()
        };
        let e = load_series(&dir, &no_series).unwrap_err().to_string();
        assert!(
            e.contains("the sweep also varies tcp.rto_min") && e.contains("--series tcp.rto_min"),
            "{e}"
        );
        // A key with one common unit plots at its numbers; mixed units are refused.
        let by_rto = PlotRequest {
            x: "tcp.rto_min".into(),
            series: Some("senders".into()),
            ..req.clone()
        };
        let s = load_series(&dir, &by_rto).unwrap();
        assert_eq!(s[0].points[0].0, 1.0);
        assert_eq!(s[0].points[1].0, 200.0);
        let files = plot_sweep(&dir, &req).unwrap();
        assert_eq!(files.len(), 2);
        let svg = std::fs::read_to_string(&files[1]).unwrap();
        assert!(svg.contains("goodput (Mbps)") && svg.contains("tcp.rto_min = 1ms"));
        assert!(svg.contains("goodput (Mbps) vs senders"), "title");
        // Integer ticks: "800", never "800.0".
        assert!(svg.contains("\n800\n") && !svg.contains(".0\n"), "ticks");
    }

    /// Each format writes a file that starts as its format says.
    #[test]
    fn each_format_writes_a_valid_file() {
        let dir = summary("formats");
        let req = PlotRequest {
            series: Some("rto_min".into()),
            log_x: true,
            formats: vec![Format::Png, Format::Svg, Format::Pdf],
            ..PlotRequest::new("senders", "goodput_mbps")
        };
        let files = plot_sweep_to(&dir, &dir.join("out"), &req).unwrap();
        let names: Vec<String> = files
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "goodput_mbps-vs-senders-by-rto_min.png",
                "goodput_mbps-vs-senders-by-rto_min.svg",
                "goodput_mbps-vs-senders-by-rto_min.pdf",
            ]
        );
        let bytes: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
        assert!(bytes[0].starts_with(b"\x89PNG\r\n\x1a\n") && bytes[0].len() > 1000);
        assert!(bytes[1].starts_with(b"<svg") && bytes[1].ends_with(b"</svg>\n"));
        assert!(bytes[2].starts_with(b"%PDF-") && bytes[2].len() > 1000);
        let tail = String::from_utf8_lossy(&bytes[2][bytes[2].len() - 32..]).into_owned();
        assert!(tail.contains("%%EOF"), "{tail:?}");
        // Its text is text, in the embedded DejaVu Sans.
        assert!(
            bytes[2].windows(18).any(|w| w == b"/BaseFont /DejaVuS"),
            "no DejaVu Sans font"
        );
        assert!(
            bytes[2].windows(10).any(|w| w == b"/FontFile2"),
            "font not embedded"
        );
    }

    /// Issue 39, item 3: on a log y axis, points with mean 0 are not drawn on the floor; the
    /// plot says which were left out.
    #[test]
    fn log_y_leaves_out_zeros_and_says_so() {
        let dir = summary("logy");
        let req = PlotRequest {
            series: Some("rto_min".into()),
            log_y: true,
            ..PlotRequest::new("senders", "rto_count")
        };
        let series = load_series(&dir, &req).unwrap();
        assert_eq!(
            left_out_note(&series, &req),
            [
                "Not drawn (mean 0, no place on a log axis): tcp.rto_min = 200ms at senders 1; tcp.rto_min = 1ms at senders 1"
            ]
        );
        assert_eq!(segments(&series[0], true), [vec![(8.0, 40.0)]]);
        assert_eq!(segments(&series[0], false).len(), 1);
        // The y axis covers the drawn points (and their CIs' positive ends) only.
        let (_, y) = axes(&series, false, true);
        let Axis::Log { lo, hi, .. } = y else {
            panic!("{y:?}")
        };
        assert!(lo > 0.5 && lo < 1.0 && hi > 42.0, "{lo}..{hi}");
        let files = plot_sweep(&dir, &req).unwrap();
        let svg = std::fs::read_to_string(&files[1]).unwrap();
        assert!(svg.contains("Not drawn (mean 0"), "footnote");
        assert!(svg.contains("RTO count (per run)"), "y label");
        assert!(
            left_out_note(
                &series,
                &PlotRequest {
                    log_y: false,
                    ..req
                }
            )
            .is_empty()
        );
    }

    /// Issue 39, item 3: the legend is right of the plotting area, so it covers no data.
    #[test]
    fn the_legend_is_outside_the_plotting_area() {
        let dir = summary("legend");
        let req = PlotRequest {
            series: Some("rto_min".into()),
            formats: vec![Format::Svg],
            ..PlotRequest::new("senders", "goodput_mbps")
        };
        let files = plot_sweep(&dir, &req).unwrap();
        let svg = std::fs::read_to_string(&files[0]).unwrap();
        // The legend's text starts right of every data point (circles of radius 3).
        let attr = |tag: &str, name: &str| -> Vec<f64> {
            svg.split(&format!("<{tag} "))
                .skip(1)
                .filter_map(|t| {
                    let v = t.split(&format!("{name}=\"")).nth(1)?;
                    v.split('"').next()?.parse().ok()
                })
                .collect()
        };
        let max_cx = attr("circle", "cx").into_iter().fold(0.0, f64::max);
        let legend_x = svg
            .split("<text ")
            .filter(|t| t.contains("tcp.rto_min = "))
            .filter_map(|t| {
                t.split("x=\"")
                    .nth(1)?
                    .split('"')
                    .next()?
                    .parse::<f64>()
                    .ok()
            })
            .fold(f64::MAX, f64::min);
        assert!(
            legend_x > max_cx,
            "legend at x {legend_x}, a point at {max_cx}"
        );
    }

    #[test]
    fn an_unknown_metric_is_answered_with_the_list() {
        let dir = summary("unknown");
        let req = PlotRequest {
            series: Some("rto_min".into()),
            ..PlotRequest::new("senders", "goodput")
        };
        let e = plot_sweep(&dir, &req).unwrap_err().to_string();
        assert!(
            e.ends_with(
                "no metric \"goodput\" in the summary (did you mean goodput_mbps?); its metrics: goodput_mbps, rto_count"
            ),
            "{e}"
        );
        // One known and one unknown: the unknown is named.
        let two = PlotRequest {
            y: "goodput_mbps,rtos".into(),
            ..req
        };
        let e = load_series(&dir, &two).unwrap_err().to_string();
        assert!(
            e.contains("no metric \"rtos\" in the summary; its metrics:"),
            "{e}"
        );
    }

    #[test]
    fn log_x_refuses_non_positive_values() {
        let dir = summary("logx0");
        let csv = std::fs::read_to_string(dir.join("summary.csv"))
            .unwrap()
            .replace("\n0,1,", "\n0,0,");
        std::fs::write(dir.join("summary.csv"), csv).unwrap();
        let req = PlotRequest {
            series: Some("rto_min".into()),
            log_x: true,
            ..PlotRequest::new("senders", "goodput_mbps")
        };
        let e = plot_sweep(&dir, &req).unwrap_err().to_string();
        assert!(e.contains("--log-x: senders has the value 0"), "{e}");
    }
}
