//! One memory file: the document format (render, parse, sections), what a memory hands
//! on, the edits later hooks make to a saved memory, its file name and order, and one
//! memory as listed. Where memories are kept and how they are found is [`crate::store`].

mod carry;
pub mod document;
pub mod edit;
pub mod entry;
pub mod file;
pub mod order;

pub use crate::summary::labels::Section;
pub use document::{FrontMatter, MemoryDoc, Trigger};
pub use edit::MemoryEdit;
pub use entry::MemoryEntry;
pub use file::INDEX_FILE;
