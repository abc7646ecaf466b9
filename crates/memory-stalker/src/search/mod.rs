//! Finding a memory by what it was about: a ranked full-text index (SQLite FTS5) of each
//! memories directory, derived from the memory files (docs/design.md §7.10).
//!
//! - [`index`]: the database, kept up to date with the files, and the listing queries
//!   (newest first, filters) that `list`, `find` and the recall use.
//! - [`fields`]: what of a memory is indexed, in which weighted field.
//! - [`query`]: what was typed, made into FTS5 expressions.
//! - [`rank`]: BM25, then coverage, phrase and recency; one answer per session.
//! - [`snippet`]: the line that matched, with the words marked.
//! - [`actions`]: the items by file and by error behind the notes at the moment of
//!   action.
//! - [`lookup`]: those items looked up by a file's name and by an error's signature.
//! - [`request`]: the filters `list-memories search` and the MCP tool share.

pub mod actions;
pub mod fields;
pub mod index;
pub mod lookup;
pub mod query;
pub mod rank;
pub mod request;
pub mod snippet;
pub mod synonyms;

pub use fields::Field;
pub use index::{Index, IndexError, OpenOptions, Row, RowFilter, note_change};
pub use query::Query;
pub use rank::{Hit, Results, SearchOptions, best_first, search};
pub use request::{SearchRequest, day_start};
pub use snippet::Snippet;
