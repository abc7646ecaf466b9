//! The integration tests of `list-memories`, in one test binary:
//! `cargo test -p list-memories --test list_memories [FILTER]`.

/// The shared helpers (`tests/support/mod.rs`), and the fake HTTP server the import's
/// model summaries talk to.
#[path = "../support"]
mod support {
    #[path = "mod.rs"]
    mod shared;
    pub use shared::*;

    #[allow(dead_code, reason = "the import tests use only a model's answer of it")]
    pub mod http;
}

mod import;
mod list_memories_cli;
