//! The library's error types: [`Error`], and the search index's [`IndexError`] it
//! carries (defined here so that every layer can name it without reaching up).

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
    Index(#[from] IndexError),
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

/// Why the index could not be used.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// SQLite failed (locked past the busy timeout, disk full, …).
    #[error("search index {path}: {source}")]
    Sqlite {
        /// The database.
        path: PathBuf,
        /// What SQLite said.
        #[source]
        source: rusqlite::Error,
    },
    /// The memories directory or the index's own could not be read or made.
    #[error("search index {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// No writer key: an index on disk is bound to one (its owner), so none is kept.
    #[error("search index of {dir}: no writer key to bind it to")]
    Unkeyed {
        /// The memories directory.
        dir: PathBuf,
    },
    /// The database on disk was not made by this user for this directory (shipped in a
    /// repository, copied from another project) and could not be replaced.
    #[error("search index {path}: not made here for this directory")]
    Foreign {
        /// The database.
        path: PathBuf,
    },
    /// More files changed behind the index's back than the caller may index now.
    #[error("search index of {dir}: {} to index first", pending_text(*.pending))]
    Behind {
        /// The memories directory.
        dir: PathBuf,
        /// How many files wait to be indexed, when they were counted (a session's start
        /// does not list the directory to count them).
        pending: Option<usize>,
    },
}

/// "N memories", or "memories" when they were not counted.
fn pending_text(pending: Option<usize>) -> String {
    pending.map_or_else(|| "memories".to_string(), |n| format!("{n} memories"))
}
