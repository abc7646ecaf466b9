//! memory-stalker: saves a structured memory of a Claude Code session whenever its
//! context is compacted, and finds it again.
//!
//! The crate holds all the logic; the `save-memory` and `list-memories` binaries only
//! parse their command lines and call into it.
//!
//! - [`transcript`]: reads a session transcript from the end and extracts the last
//!   interaction, task list, plan, files and last action.

pub mod error;
pub mod text;
pub mod transcript;

pub use error::Error;
