//! Memory files: the document format, and the store that names, writes and updates them.

pub mod document;
pub mod labels;
pub mod store;

pub use document::{FrontMatter, MemoryDoc};
pub use labels::Section;
pub use store::{INDEX_FILE, MEMORIES_DIR, MemoryStore};
