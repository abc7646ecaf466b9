//! Memory files: the document format, the edits later hooks make to a saved memory, and
//! the store that names, writes and updates them.

pub mod catalog;
pub mod document;
pub mod edit;
pub mod entry;
pub mod file;
pub mod index;
pub mod labels;
pub mod order;
mod ordered;
pub mod session;
pub mod store;

pub use catalog::{
    Found, Listing, MemoryEntry, ProjectHit, ProjectSearch, SearchHit, Shown, Skipped, Target,
    search_projects,
};
pub use document::{FrontMatter, MemoryDoc, Trigger};
pub use edit::MemoryEdit;
pub use labels::Section;
pub use store::{INDEX_FILE, IndexReport, MEMORIES_DIR, MemoryStore};
