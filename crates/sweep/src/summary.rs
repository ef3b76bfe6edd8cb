//! summary.csv: per point and metric, the statistics over a sweep's runs (streamed over the
//! sorted runs.csv one point at a time, so memory does not grow with the number of runs).

use crate::rows::{for_each_row, store_err};
use crate::spec::{Censored, SweepError};
use crate::stats::summarize;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

/// Columns of runs.csv summarized per point: every metric after `completed`, probe columns
/// included (a column with no number in a point's runs gets `count` 0 and empty statistics).
pub fn metric_columns(run_header: &[String]) -> Vec<usize> {
    let start = run_header
        .iter()
        .position(|c| c == "completed")
        .expect("completed column")
        + 1;
    (start..run_header.len()).collect()
}

/// summary.csv's statistic columns, after the swept keys.
pub const SUMMARY_COLUMNS: [&str; 14] = [
    "metric",
    "runs",
    "censored_fraction",
    "count",
    "mean",
    "std",
    "ci95_low",
    "ci95_high",
    "median",
    "p5",
    "p95",
    "p99",
    "min",
    "max",
];

/// Streams the sorted runs.csv, one point at a time, into summary.csv: per point and metric,
/// the point's runs, the fraction of them censored (`completed = false`), and the statistics
/// over the runs [`Censored`] keeps (by default the completed ones).
pub(crate) fn write_summary(
    path: &Path,
    keys: &[String],
    rh: &[String],
    runs_path: &Path,
    censored: Censored,
) -> Result<(), SweepError> {
    let mut header = vec!["point".to_string()];
    header.extend(keys.iter().cloned());
    header.extend(SUMMARY_COLUMNS.iter().map(|s| s.to_string()));
    let metrics = metric_columns(rh);
    let done_col = rh
        .iter()
        .position(|c| c == "completed")
        .expect("completed column");
    let tmp = path.with_extension("csv.tmp");
    let mut w = csv::Writer::from_writer(BufWriter::new(
        File::create(&tmp).map_err(|e| store_err(&tmp, e))?,
    ));
    w.write_record(&header).map_err(|e| store_err(&tmp, e))?;
    // The current point (id and swept values), its runs and censored runs, and, per metric,
    // its values over the replicates kept.
    let mut current: Option<Vec<String>> = None;
    let (mut runs, mut cut) = (0u64, 0u64);
    let mut values: Vec<Vec<f64>> = vec![Vec::new(); metrics.len()];
    let emit = |point: &[String],
                (runs, cut): (u64, u64),
                values: &mut [Vec<f64>],
                w: &mut csv::Writer<_>|
     -> Result<(), SweepError> {
        let fraction = format!("{}", cut as f64 / runs.max(1) as f64);
        for (&m, v) in metrics.iter().zip(values.iter_mut()) {
            let s = summarize(v);
            let mut row = point.to_vec();
            row.push(rh[m].clone());
            row.push(runs.to_string());
            row.push(fraction.clone());
            row.push(s.count.to_string());
            for x in [
                s.mean,
                s.std,
                s.ci95_low,
                s.ci95_high,
                s.median,
                s.p5,
                s.p95,
                s.p99,
                s.min,
                s.max,
            ] {
                // Missing (NaN: no values, or fewer than two for std and CI): empty.
                row.push(if x.is_nan() {
                    String::new()
                } else {
                    format!("{x}")
                });
            }
            w.write_record(&row).map_err(|e| store_err(&tmp, e))?;
            v.clear();
        }
        Ok(())
    };
    for_each_row(runs_path, rh, |r, _| {
        if current
            .as_ref()
            .is_some_and(|c| Some(c[0].as_str()) != r.get(0))
        {
            emit(
                current.as_deref().expect("checked"),
                (runs, cut),
                &mut values,
                &mut w,
            )?;
            current = None;
            (runs, cut) = (0, 0);
        }
        if current.is_none() {
            let mut id = vec![r.get(0).unwrap_or_default().to_string()];
            id.extend((0..keys.len()).map(|k| r.get(2 + k).unwrap_or_default().to_string()));
            current = Some(id);
        }
        runs += 1;
        let is_censored = r.get(done_col) != Some("true");
        cut += u64::from(is_censored);
        if is_censored && censored == Censored::Exclude {
            return Ok(());
        }
        for (&m, v) in metrics.iter().zip(values.iter_mut()) {
            v.push(r.get(m).and_then(|s| s.parse().ok()).unwrap_or(f64::NAN));
        }
        Ok(())
    })?;
    if let Some(c) = &current {
        emit(c, (runs, cut), &mut values, &mut w)?;
    }
    w.flush().map_err(|e| store_err(&tmp, e))?;
    drop(w);
    std::fs::rename(&tmp, path).map_err(|e| store_err(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Lock, RUNS_FILE, SUMMARY_FILE, run_header};
    use incastsim_scenario::probe::ProbeColumnNames;

    /// A runs.csv with two points: point 0 has goodputs 10 and 20 (completed) and 1 (hit the
    /// cap); point 1 has only censored runs.
    fn summary_of(censored: Censored) -> Vec<Vec<String>> {
        let dir = std::env::temp_dir().join(format!(
            "incastsim-summary-{}-{censored:?}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let keys = vec!["senders".to_string()];
        let rh = run_header(&Lock {
            fingerprint: String::new(),
            keys: keys.clone(),
            censored,
            probe_columns: ProbeColumnNames::default(),
        });
        let col = |n: &str| rh.iter().position(|c| c == n).unwrap();
        let runs = dir.join(RUNS_FILE);
        let mut w = csv::Writer::from_path(&runs).unwrap();
        w.write_record(&rh).unwrap();
        for (point, replicate, done, goodput) in [
            (0, 0, true, 10.0),
            (0, 1, false, 1.0),
            (0, 2, true, 20.0),
            (1, 0, false, 2.0),
            (1, 1, false, 4.0),
        ] {
            let mut row = vec![String::new(); rh.len()];
            row[0] = point.to_string();
            row[1] = replicate.to_string();
            row[2] = (4 * (point + 1)).to_string();
            row[col("completed")] = done.to_string();
            row[col("goodput_mbps")] = goodput.to_string();
            w.write_record(&row).unwrap();
        }
        w.flush().unwrap();
        drop(w);
        let out = dir.join(SUMMARY_FILE);
        write_summary(&out, &keys, &rh, &runs, censored).unwrap();
        let mut rdr = csv::Reader::from_path(&out).unwrap();
        let header: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
        assert_eq!(header[..3], ["point", "senders", "metric"]);
        assert_eq!(header[3..], SUMMARY_COLUMNS[1..]);
        let rows = rdr
            .records()
            .map(Result::unwrap)
            .filter(|r| &r[2] == "goodput_mbps")
            .map(|r| r.iter().map(String::from).collect())
            .collect();
        std::fs::remove_dir_all(&dir).unwrap();
        rows
    }

    #[test]
    fn censored_runs_are_counted_and_left_out_of_the_statistics() {
        let rows = summary_of(Censored::Exclude);
        // point, senders, metric, runs, censored_fraction, count, mean, std, ...
        assert_eq!(
            &rows[0][..7],
            [
                "0",
                "4",
                "goodput_mbps",
                "3",
                "0.3333333333333333",
                "2",
                "15"
            ]
        );
        assert_eq!(rows[0][14..16], ["10", "20"], "min and max");
        // Every run censored: no statistics, and the fraction says why.
        assert_eq!(&rows[1][..6], ["1", "8", "goodput_mbps", "2", "1", "0"]);
        assert!(
            rows[1].iter().skip(6).all(String::is_empty),
            "{:?}",
            rows[1]
        );
    }

    #[test]
    fn include_summarizes_every_run_and_still_reports_the_fraction() {
        let rows = summary_of(Censored::Include);
        assert_eq!(
            &rows[0][3..7],
            ["3", "0.3333333333333333", "3", "10.333333333333334"]
        );
        assert_eq!(&rows[1][3..7], ["2", "1", "2", "3"]);
    }
}
