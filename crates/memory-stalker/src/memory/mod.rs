//! Memory files: the document format, the edits later hooks make to a saved memory, and
//! the store that names, writes and updates them.

mod carry;
pub mod catalog;
pub mod document;
pub mod edit;
pub mod entry;
pub mod file;
pub mod index;
pub mod order;
mod ordered;
pub mod store;

pub use crate::summary::labels::Section;
pub use catalog::{
    Found, Listing, MemoryEntry, ProjectHit, ProjectSearch, SearchHit, Shown, Skipped, Target,
    search_projects,
};
pub use document::{FrontMatter, MemoryDoc, Trigger};
pub use edit::MemoryEdit;
pub use store::{INDEX_FILE, IndexReport, MEMORIES_DIR, MemoryStore};
