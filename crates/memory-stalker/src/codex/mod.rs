//! OpenAI's Codex CLI as a second home for memory-stalker: installing our hooks and MCP
//! server into its configuration (docs/design.md §2.12). Reading its rollouts is the
//! transcript reader's (`transcript/codex/`), answering its hooks the hook layer's.

mod config_toml;
mod hooks_json;
mod install;
mod spans;
pub mod trust;

pub use install::{InstallError, Outcome, codex_home, install, uninstall};
