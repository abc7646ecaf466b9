//! The integration tests of the `save-memory` hook, in one test binary:
//! `cargo test -p save-memory --test save_memory [FILTER]`, where a filter can name a
//! module (`e2e_claude_code`, `summaries`, …) or one test. The end-to-end modules need
//! Claude Code, which `scripts/test` installs: `scripts/test --test save_memory e2e_`.

/// The shared helpers (`tests/support/mod.rs`), and those that drive the real Claude
/// Code and fake HTTP APIs, which only this binary uses.
#[path = "../support"]
mod support {
    #[path = "mod.rs"]
    mod shared;
    pub use shared::*;

    pub mod anthropic;
    pub mod claude;
    pub mod corpus;
    pub mod http;
    pub mod mcp;
}

mod compaction_hooks;
mod continuity;
mod e2e_claude_code;
mod e2e_tui;
mod hostile;
mod meaning;
mod meaning_score;
mod plugin_bundle;
mod save_memory_hook;
mod secrets;
mod shipped;
mod summaries;
mod time_zones;
