//! Why results could not be written: shared by the CSV writers (`output`) and the pcap writer
//! (`pcap`), so neither imports the other for it.

use std::path::Path;

/// Why results could not be written: the file and the underlying error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// Creating, writing or flushing a file failed.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file being written.
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The folder holds the results of another command (a sweep, a merge, an experiment):
    /// writing a run's files into it would mix the two and break the other's resume.
    #[error(
        "{dir} holds the results of `{} {command}` ({marker}): a run would mix its files into them; choose another --out folder",
        crate::scenario::config::program::name()
    )]
    ForeignFolder {
        /// The folder.
        dir: String,
        /// The file that shows whose folder it is.
        marker: String,
        /// The command that wrote it (`sweep`, `experiment`).
        command: String,
    },
    /// Serializing a record into CSV failed.
    #[error("cannot write {path}: {source}")]
    Csv {
        /// The file (or, in memory, the table's file name) being written.
        path: String,
        /// The CSV writer's error.
        source: csv::Error,
    },
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |source| OutputError::Io {
        path: path.display().to_string(),
        source,
    }
}
