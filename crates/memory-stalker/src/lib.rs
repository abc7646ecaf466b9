//! memory-stalker: saves a structured memory of a Claude Code session whenever its
//! context is compacted, and finds it again.
//!
//! The crate holds all the logic; the `save-memory`, `list-memories` and
//! `memory-stalker-mcp` binaries only parse their command lines and call into it. The
//! contracts are in `docs/design.md`.
//!
//! - [`transcript`]: reads a session transcript from the end and extracts the last
//!   interaction, task list, plan, files and last action.
//! - [`summary`]: the AI summary and the summarisers that write it.
//! - [`memory`]: the memory file format, the store on disk, and editing a saved memory.
//! - [`pipeline`]: from a transcript to a memory on disk, and the background worker.
//! - [`hook`]: Claude Code's hook protocol, and what each event does.
//! - [`import`]: saving the memories of past sessions still on disk, as the hooks would
//!   have (`list-memories import`).
//! - [`search`]: the full-text index of a memories directory, and ranked search.
//! - [`switch`]: whether memory-stalker works in a project.
//! - [`redact`]: secret redaction for everything sent to a model or written to disk.
//! - [`untrusted`]: the one way untrusted text reaches what a person or the model reads.
//! - [`codex`]: installing into OpenAI's Codex CLI (its rollouts are read by [`transcript`]).
//! - [`config`], [`log`]: environment configuration and the hook's log.

#![warn(missing_docs)]

pub mod agent;
pub mod codex;
pub mod config;
pub mod error;
pub mod front_matter;
pub mod fsutil;
pub mod hook;
pub mod import;
pub mod lang;
pub mod log;
pub mod memory;
pub mod pipeline;
pub mod projects;
pub mod provenance;
pub mod redact;
pub mod search;
pub mod summary;
pub mod switch;
pub mod text;
pub mod transcript;
pub mod untrusted;

pub use agent::Agent;
pub use config::Config;
pub use error::Error;
pub use lang::Lang;
