//! Reading a sweep's CSV files row by row, and the store's error with the file's path (shared
//! by the store and the summary).

use crate::spec::SweepError;
use csv::StringRecord;
use std::fs::File;
use std::path::Path;

pub(crate) fn store_err(path: &Path, e: impl std::fmt::Display) -> SweepError {
    SweepError::Store(format!("{}: {e}", path.display()))
}

/// A results file that does not parse: the error names the file and the way out (deleting it
/// loses only the runs it held, which a resume then runs again; its index says which).
fn damaged(path: &Path, e: impl std::fmt::Display) -> SweepError {
    SweepError::Store(format!(
        "{}: {e}. The file is damaged: delete it and run the same sweep again (the runs it held are run again, the others kept), or use another --out folder",
        path.display()
    ))
}

/// Streams the rows of a results file with each row's byte offset, checking its header.
pub fn for_each_row(
    path: &Path,
    expected: &[String],
    mut f: impl FnMut(&StringRecord, u64) -> Result<(), SweepError>,
) -> Result<(), SweepError> {
    if !path.exists()
        || std::fs::metadata(path)
            .map_err(|e| store_err(path, e))?
            .len()
            == 0
    {
        return Ok(());
    }
    let file = File::open(path).map_err(|e| store_err(path, e))?;
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(std::io::BufReader::new(file));
    let header: Vec<String> = rdr
        .headers()
        .map_err(|e| store_err(path, e))?
        .iter()
        .map(String::from)
        .collect();
    if header != expected {
        return Err(store_err(
            path,
            "its columns differ from what this sweep writes (another incastsim version or config?): use another --out folder",
        ));
    }
    let mut rec = StringRecord::new();
    loop {
        let pos = rdr.position().byte();
        match rdr.read_record(&mut rec) {
            Ok(false) => return Ok(()),
            Ok(true) if rec.len() == header.len() => f(&rec, pos)?,
            Ok(true) => {
                return Err(damaged(
                    path,
                    format!(
                        "a row at byte {pos} has {} fields, the header {}",
                        rec.len(),
                        header.len()
                    ),
                ));
            }
            Err(e) => return Err(damaged(path, e)),
        }
    }
}
