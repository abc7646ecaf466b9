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
    pub mod codex;
    pub mod corpus;
    pub mod http;
    pub mod mcp;
    pub mod replay;
    pub mod responses;
    pub mod rollout;

    /// The path of one of the workspace's binaries: the one built beside this test
    /// (`cargo test --workspace` builds them all), or the one in
    /// `MEMORY_STALKER_TEST_BINARIES` when it names a directory — so the hostile, defect,
    /// time-zone and shipped-memory tables can be run against another build, e.g. the
    /// release binaries of a commit before a fix.
    pub fn binary(name: &str) -> String {
        let dir = match std::env::var_os("MEMORY_STALKER_TEST_BINARIES") {
            Some(dir) => std::path::PathBuf::from(dir),
            None => std::path::Path::new(env!("CARGO_BIN_EXE_save-memory"))
                .parent()
                .map(std::path::Path::to_path_buf)
                .unwrap_or_default(),
        };
        let path = dir.join(name);
        assert!(
            path.exists(),
            "{} is not built: run `cargo build --workspace`",
            path.display()
        );
        path.to_string_lossy().into_owned()
    }
}

mod codex_hooks;
mod compaction_hooks;
mod continuity;
mod e2e_action_notes;
mod e2e_claude_code;
mod e2e_codex;
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
