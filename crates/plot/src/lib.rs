//! incastsim-plot: draws a metric of a sweep's `summary.csv` against a swept key, one line per
//! value of another swept key, with 95 % confidence-interval error bars, as PNG and SVG.
//!
//! The PNG text uses an embedded DejaVu Sans, so plots render on machines without system fonts.

#![warn(missing_docs)]

use plotters::coord::Shift;
use plotters::prelude::*;
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
    /// A logarithmic y axis (for counts spanning decades, e.g. `rto_count`); non-positive
    /// means are left out.
    pub log_y: bool,
    /// Output file name without extension.
    pub name: Option<String>,
}

impl PlotRequest {
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
}

/// One line: (x, mean, ci_low, ci_high) points sorted by x.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The legend entry: the series key values (`key = value`), preceded by the metric when one
    /// plot has several (the metric alone without a series key).
    pub label: String,
    /// (x, mean, lower end of the 95 % CI, upper end), in the metric's own unit.
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// "goodput_mbps" → "goodput (Mbps)"; other suffixes name their unit likewise.
pub fn axis_label(column: &str) -> String {
    const UNITS: [(&str, &str); 8] = [
        ("_mbps", "Mbps"),
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
            return format!("{} ({unit})", base.replace('_', " "));
        }
    }
    column.replace('_', " ")
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
    let mut found_metric = false;
    let mut x_unit: Option<String> = None;
    for rec in rdr.records() {
        let rec = rec.map_err(|e| input(e.to_string()))?;
        let Some(metric) = rec.get(metric_col).filter(|m| metrics.contains(m)) else {
            continue;
        };
        found_metric = true;
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
    if !found_metric {
        return Err(input(format!("no metric {:?} in the summary", req.y)));
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
        return metric.to_string();
    }
    let values = s_col
        .iter()
        .map(|&c| format!("{} = {}", header[c], rec.get(c).unwrap_or_default()))
        .collect::<Vec<_>>()
        .join(", ");
    if several_metrics {
        format!("{metric}, {values}")
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

fn ranges(series: &[Series], log_y: bool) -> (std::ops::Range<f64>, std::ops::Range<f64>) {
    let all = series.iter().flat_map(|s| s.points.iter());
    // A metric whose means are all non-negative (goodput, counts) gets a y axis from zero even
    // when a small-sample confidence interval dips below it.
    let non_negative = series
        .iter()
        .flat_map(|s| s.points.iter())
        .all(|p| p.1 >= 0.0 || p.1.is_nan());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, m, lo, hi) in all {
        x0 = x0.min(x);
        x1 = x1.max(x);
        for y in [m, lo, hi] {
            if y.is_finite() && (!log_y || y > 0.0) {
                y0 = y0.min(y);
                y1 = y1.max(y);
            }
        }
    }
    if x0 > x1 {
        (x0, x1) = (0.0, 1.0);
    }
    if x0 == x1 {
        (x0, x1) = (x0 - 1.0, x1 + 1.0);
    }
    if y0 > y1 {
        (y0, y1) = (if log_y { 1.0 } else { 0.0 }, 1.0);
    }
    if non_negative && !log_y {
        y0 = y0.max(0.0);
    }
    let pad = (x1 - x0) * 0.03;
    let yr = if log_y {
        (y0 / 1.5)..(y1 * 1.5)
    } else {
        let top = if y1 == y0 {
            y1 + 1.0
        } else {
            y1 + (y1 - y0.min(0.0)) * 0.05
        };
        y0.min(0.0)..top
    };
    ((x0 - pad)..(x1 + pad), yr)
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    series: &[Series],
    req: &PlotRequest,
) -> Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let (xr, yr) = ranges(series, req.log_y);
    let y_label = axis_label(req.y.split(',').next().unwrap_or_default().trim());
    let caption = format!("{} vs {} (mean, 95% CI)", req.y.replace(',', ", "), req.x);
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(caption, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(70);
    macro_rules! body {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(axis_label(&req.x))
                .y_desc(y_label.clone())
                .label_style(("sans-serif", 14))
                .axis_desc_style(("sans-serif", 16))
                .draw()
                .map_err(|e| e.to_string())?;
            for (i, s) in series.iter().enumerate() {
                let color = COLORS[i % COLORS.len()];
                let style = ShapeStyle::from(color).stroke_width(2);
                let pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .filter(|p| p.1.is_finite())
                    .map(|p| (p.0, p.1))
                    .collect();
                chart
                    .draw_series(LineSeries::new(pts.clone(), style))
                    .map_err(|e| e.to_string())?
                    .label(s.label.clone())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                    .map_err(|e| e.to_string())?;
                let bars = s
                    .points
                    .iter()
                    .filter(|p| p.2.is_finite() && p.3.is_finite() && (!req.log_y || p.2 > 0.0));
                chart
                    .draw_series(
                        bars.map(|&(x, m, lo, hi)| ErrorBar::new_vertical(x, lo, m, hi, color, 8)),
                    )
                    .map_err(|e| e.to_string())?;
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK)
                .label_font(("sans-serif", 14))
                .position(SeriesLabelPosition::UpperRight)
                .draw()
                .map_err(|e| e.to_string())?;
        }};
    }
    if req.log_y {
        body!(
            builder
                .build_cartesian_2d(xr, yr.log_scale())
                .map_err(|e| e.to_string())?
        );
    } else {
        body!(
            builder
                .build_cartesian_2d(xr, yr)
                .map_err(|e| e.to_string())?
        );
    }
    root.present().map_err(|e| e.to_string())
}

/// Draws the plot into `DIR/plots/<name>.png` and `.svg`; returns both paths.
pub fn plot_sweep(dir: &Path, req: &PlotRequest) -> Result<Vec<PathBuf>, PlotError> {
    plot_sweep_to(dir, &dir.join("plots"), req)
}

/// [`plot_sweep`] writing the files into `out` instead of `dir/plots`: `dir` is only read, so
/// a finished sweep on a read-only mount can be plotted.
pub fn plot_sweep_to(dir: &Path, out: &Path, req: &PlotRequest) -> Result<Vec<PathBuf>, PlotError> {
    let series = load_series(dir, req)?;
    let out = out.to_path_buf();
    std::fs::create_dir_all(&out).map_err(|e| PlotError::Draw {
        path: out.display().to_string(),
        message: e.to_string(),
    })?;
    register_font();
    let stem = req.file_stem();
    let png = out.join(format!("{stem}.png"));
    let svg = out.join(format!("{stem}.svg"));
    let draw_err = |p: &Path, message: String| PlotError::Draw {
        path: p.display().to_string(),
        message,
    };
    draw(
        BitMapBackend::new(&png, (960, 640)).into_drawing_area(),
        &series,
        req,
    )
    .map_err(|m| draw_err(&png, m))?;
    draw(
        SVGBackend::new(&svg, (960, 640)).into_drawing_area(),
        &series,
        req,
    )
    .map_err(|m| draw_err(&svg, m))?;
    Ok(vec![png, svg])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_labels_carry_units() {
        assert_eq!(axis_label("goodput_mbps"), "goodput (Mbps)");
        assert_eq!(axis_label("bct_p99_ms"), "bct p99 (ms)");
        assert_eq!(axis_label("sim_time_s"), "sim time (s)");
        assert_eq!(axis_label("senders"), "senders");
    }

    #[test]
    fn draws_png_and_svg_from_a_summary() {
        let dir = std::env::temp_dir().join(format!("incastsim-plot-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut csv = String::from(
            "point,senders,tcp.rto_min,metric,count,mean,std,ci95_low,ci95_high,median,p5,p95,p99,min,max\n",
        );
        for (i, (n, rto, m)) in [
            (1, "200ms", 900.0),
            (8, "200ms", 200.0),
            (1, "1ms", 905.0),
            (8, "1ms", 800.0),
        ]
        .iter()
        .enumerate()
        {
            csv += &format!(
                "{i},{n},{rto},goodput_mbps,3,{m},10,{},{},{m},{m},{m},{m},{m},{m}\n",
                m - 20.0,
                m + 20.0
            );
            csv += &format!("{i},{n},{rto},rto_count,3,5,1,4,6,5,5,5,5,5,5\n");
        }
        std::fs::write(dir.join("summary.csv"), csv).unwrap();
        let req = PlotRequest {
            x: "senders".into(),
            y: "goodput_mbps".into(),
            series: Some("rto_min".into()),
            log_y: false,
            name: None,
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
        for f in &files {
            assert!(
                std::fs::metadata(f).unwrap().len() > 1000,
                "{} is empty",
                f.display()
            );
        }
        let svg = std::fs::read_to_string(&files[1]).unwrap();
        assert!(svg.contains("goodput (Mbps)") && svg.contains("tcp.rto_min = 1ms"));
        let log = PlotRequest {
            log_y: true,
            name: Some("log".into()),
            ..req.clone()
        };
        plot_sweep(&dir, &log).unwrap();
        let bad = PlotRequest {
            y: "nope".into(),
            ..req
        };
        assert!(
            plot_sweep(&dir, &bad)
                .unwrap_err()
                .to_string()
                .contains("no metric")
        );
    }
}
