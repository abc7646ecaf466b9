//! memory-stalker: saves a structured memory of a Claude Code session whenever its
//! context is compacted, and finds it again.
//!
//! The crate holds all the logic; the `save-memory`, `list-memories` and
//! `memory-stalker-mcp` binaries only parse their command lines and call into it. The
//! contracts are in `docs/design.md`.
//!
//! The modules form layers, each using only those below it (`scripts/import-cycles`
//! fails CI on an import that runs up, or on a circle), read from the bottom up:
//!
//! - base: [`text`], [`lang`], [`fsutil`], [`untrusted`] (the one way untrusted text
//!   reaches what a person or the model reads), [`redact`] (secret redaction for
//!   everything sent to a model or written to disk), [`error`], [`log`], [`agent`],
//!   [`front_matter`], [`provenance`] (the writer key), [`config`], [`switch`] (whether
//!   memory-stalker works in a project), [`projects`].
//! - [`transcript`]: reads a Claude Code transcript or a Codex rollout into records, from
//!   the end, and extracts the last interaction, task list, plan, files and last action.
//! - [`summary`]: what the session meant (its signals, the offline judgement, Session so
//!   far's shape) and the summarisers that write the AI summary.
//! - [`memory`]: the memory file format, what a memory hands on, editing a saved memory.
//! - [`search`]: the full-text index of a memories directory, and ranked search.
//! - [`store`]: where a project's memories are and how they are found (the files,
//!   listings, searches, `INDEX.md`).
//! - [`pipeline`]: from a transcript to a memory on disk, and the background worker;
//!   [`hook`]: the hook protocol and what each event does; [`import`]: the memories of
//!   past sessions still on disk (`list-memories import`); [`codex`]: installing into
//!   OpenAI's Codex CLI.

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
pub mod store;
pub mod summary;
pub mod switch;
pub mod text;
pub mod transcript;
pub mod untrusted;

pub use agent::Agent;
pub use config::Config;
pub use error::Error;
pub use lang::Lang;
