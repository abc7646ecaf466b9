//! The library's error type.

use std::io;
use std::path::PathBuf;

/// What can go wrong in the library; every variant names the file or input involved.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The transcript could not be opened or read.
    #[error("cannot read transcript {path}: {source}")]
    Transcript {
        /// The transcript.
        path: PathBuf,
        /// Why it could not be read.
        #[source]
        source: io::Error,
    },
    /// A file or directory of the memory store could not be read or written.
    #[error("{action} {path}: {source}")]
    Store {
        /// What was being done ("cannot create", "writing"…), said before the path.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: io::Error,
    },
    /// The hook's stdin was not the JSON Claude Code sends.
    #[error("invalid hook input: {0}")]
    HookInput(String),
    /// A memory could be written nowhere: the project, the fallback directory and the
    /// short form all failed (the message says why each did).
    #[error("{0}")]
    NotSaved(String),
    /// The search index could not be opened, read or brought up to date.
    #[error(transparent)]
    Index(#[from] crate::search::IndexError),
    /// A memory file's text is not a memory this version understands.
    #[error("{path}: {reason}")]
    NotAMemory {
        /// The file.
        path: PathBuf,
        /// What it lacks or has wrong.
        reason: String,
    },
}

impl Error {
    /// An I/O error on a memory-store path.
    pub fn store(action: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Error {
        Error::Store {
            action,
            path: path.into(),
            source,
        }
    }
}
