//! The integration tests of `list-memories`, in one test binary:
//! `cargo test -p list-memories --test list_memories [FILTER]`.

#[path = "../support/mod.rs"]
mod support;

mod import;
mod list_memories_cli;
