//! Where a project's memories are and how they are found: the files (named, written,
//! updated, pruned), the listings and searches over them through the search index
//! ([`crate::search`], which knows nothing of this room), and `INDEX.md`.

pub mod catalog;
pub mod files;
pub mod index_md;
mod ordered;

pub use catalog::{
    Found, Listing, ProjectHit, ProjectSearch, SearchHit, Shown, Skipped, Target, search_projects,
};
pub use files::{IndexReport, MEMORIES_DIR, MemoryStore, checkpoints_in};
