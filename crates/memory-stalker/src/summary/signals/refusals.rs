//! Tool calls that did not run because the user refused them at Claude Code's
//! permission prompt, or because the permission settings denied them; with the reason
//! the user gave, or the words they typed right after. `ExitPlanMode` refusals are
//! plans ([`super::plans`]). A call of a tool the session does not have is listed too:
//! what Claude meant to do that way has to be done another way.

use serde::{Deserialize, Serialize};

use super::{Source, View};
use crate::text::one_line;
use crate::transcript::outcome::reason;
use crate::transcript::record::ToolDetail;

/// Longest prompt typed after a refusal kept (it may be a pasted log).
const PASTED_CHARS: usize = 2000;

/// Who stopped a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefusedBy {
    /// The user, at the permission prompt.
    User,
    /// The permission settings (Claude Code asked for a permission it did not have).
    Permissions,
    /// Claude Code: the tool does not exist in this session (`No such tool available`).
    Unavailable,
}

/// One call that was not allowed to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// The tool's name.
    pub tool: String,
    /// What the call would have acted on, one line.
    pub summary: String,
    /// Who stopped it.
    pub by: RefusedBy,
    /// The user's words: the reason given with the refusal, else the prompt they typed
    /// next (for a refusal by the user only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The record of the refusal.
    pub source: Source,
}

pub(super) fn find(view: &View) -> Vec<Refusal> {
    let mut out = Vec::new();
    // Each call with the next one (whose record ends the refusal's answer), lazily: a
    // segment can hold hundreds of thousands of calls.
    let mut calls = view.calls().peekable();
    while let Some(c) = calls.next() {
        if matches!(c.call.detail, ToolDetail::Plan(_)) {
            continue;
        }
        let Some((at, result, _)) = c.result else {
            continue;
        };
        let by = if result.rejected {
            RefusedBy::User
        } else if result.is_error && is_denial(result.text.head()) {
            RefusedBy::Permissions
        } else if result.is_error && result.text.head().contains("No such tool available") {
            RefusedBy::Unavailable
        } else {
            continue;
        };
        // Words typed after a refusal answer it, until Claude's next call.
        let next_call = calls.peek().map_or(view.len(), |c| c.at);
        let reason = reason(result.text.head()).or_else(|| {
            (by == RefusedBy::User)
                .then(|| view.prompt_after(at, next_call))
                .flatten()
                // Pasted output keeps its error line, which may come late.
                .map(|p| one_line(p, PASTED_CHARS))
        });
        // "Chat about this" at a question: the user talks it over, and nothing was
        // refused (the conversation that follows says what they meant).
        if reason.as_deref().is_some_and(talks_over) {
            continue;
        }
        out.push(Refusal {
            tool: c.call.name.to_string(),
            summary: crate::transcript::extract::project_relative(&c.call.summary, view.cwd()),
            by,
            reason,
            source: Source::of(&c.call.name, &view.all()[at]),
        });
    }
    out
}

/// Whether the words given with a refusal are Claude Code's for a question the user
/// chose to talk over ("Chat about this", which answers the call with "The user wants to
/// clarify these questions.").
fn talks_over(words: &str) -> bool {
    words
        .trim_start()
        .starts_with("The user wants to clarify these questions")
}

/// Whether an error result is Claude Code denying a call its permissions do not allow
/// (rather than the call failing).
fn is_denial(result: &str) -> bool {
    let t = result.trim_start();
    t.starts_with("Claude requested permissions to")
        || (t.starts_with("Permission to ") && t.contains("denied"))
        || t.starts_with("Permission denied by")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_and_denials_are_read_in_claude_codes_words() {
        assert_eq!(
            reason("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  use pnpm").as_deref(),
            Some("use pnpm")
        );
        assert_eq!(
            reason(
                "The user doesn't want to proceed with this tool use. STOP what you are doing and wait for the user to tell you how to proceed."
            ),
            None
        );
        assert!(is_denial(
            "Claude requested permissions to use WebSearch, but you haven't granted it yet."
        ));
        assert!(!is_denial(
            "Exit code 1\n(eval):1: permission denied: ./run.sh"
        ));
    }
}
