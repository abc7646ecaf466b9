//! The integration tests of the `memory-stalker` library, in one test binary:
//! `cargo test -p memory-stalker --test library [FILTER]`, where a filter can name a
//! module (`corpus`, `corpus_memories`, `memory_render`, `properties`, `renderers`, `search_index`) or one
//! test.

#[path = "../support/corpus.rs"]
mod corpus_support;

mod codex_samples;
mod corpus;
mod corpus_memories;
mod import_as_hooks;
mod memory_render;
mod properties;
mod renderers;
mod search_index;
