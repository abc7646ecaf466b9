//! The "AI summary" part of a memory: its shape, and the summarisers that produce it.
//!
//! Every summariser returns the same [`Summary`]; the memory renders it with headings
//! in the configured language, so a model only ever supplies content, never layout.

pub mod offline;

use serde::{Deserialize, Serialize};

/// A session summary (SPEC §4, "AI summary"). This is also the JSON object a model is
/// asked to return.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// One line, at most 120 characters: what the session was about.
    pub headline: String,
    pub task_summary: Vec<String>,
    pub code_changes: Vec<CodeChange>,
    pub key_decisions: Vec<Decision>,
    pub user_preferences: Vec<String>,
    pub follow_ups: Vec<String>,
}

/// One row of the code changes table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeChange {
    pub file: String,
    pub action: String,
    #[serde(default)]
    pub note: String,
}

/// A decision and why it was taken.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub decision: String,
    #[serde(default)]
    pub reason: String,
}

/// Which summariser wrote a summary, as `summary_source` records it.
pub const OFFLINE_SOURCE: &str = "offline";

/// Longest `headline`, in characters.
pub const HEADLINE_CHARS: usize = 120;
