//! The integration tests of `memory-stalker-mcp`, in one test binary:
//! `cargo test -p memory-stalker-mcp --test mcp_server [FILTER]`.

#[path = "../support/mod.rs"]
mod support;

mod mcp_server;
