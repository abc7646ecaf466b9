//! What hooks told Claude: a Stop hook's feedback ("Cannot exit with unstaged changes
//! … commit"), a blocking PreToolUse hook's error. Their requirements outlive a
//! compaction: the model must still meet them after it.

use serde::{Deserialize, Serialize};

use super::{Source, View};
use crate::text::one_line;

/// Longest requirement kept.
const CHARS: usize = 300;

/// One hook's feedback.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookFeedback {
    /// The hook event (`Stop`, `PreToolUse:Bash`).
    pub event: String,
    /// What it required, its Markdown headings left out, on one line.
    pub requirement: String,
    /// The record of the feedback.
    pub source: Source,
}

pub(super) fn find(view: &View) -> Vec<HookFeedback> {
    let mut out: Vec<HookFeedback> = Vec::new();
    for (_, record, u) in view.users() {
        let found = if u.tool_results.is_empty() {
            feedback(&u.text)
        } else {
            u.tool_results.iter().find_map(|r| blocked(r.text.head()))
        };
        let Some((event, body)) = found else {
            continue;
        };
        let requirement = requirement(body);
        if requirement.is_empty() || out.iter().any(|h| h.requirement == requirement) {
            continue;
        }
        out.push(HookFeedback {
            source: Source::of(&format!("{event} hook"), record),
            event: event.to_string(),
            requirement,
        });
    }
    out
}

/// The hook event and its text, when a user record carries a hook's feedback: `Stop
/// hook feedback:\n[command]: text`, or `PreToolUse:Bash hook blocking error from
/// command: "command": text` (inside a system reminder).
fn feedback(text: &str) -> Option<(&str, &str)> {
    let text = text.trim_start();
    let text = text
        .strip_prefix("<system-reminder>")
        .map_or(text, str::trim_start);
    for marker in [" hook feedback:", " hook blocking error from command:"] {
        if let Some(at) = text.find(marker) {
            let event = text[..at].trim();
            if event.is_empty() || event.contains(char::is_whitespace) {
                return None;
            }
            let body = text[at + marker.len()..].trim_start();
            // `[command]: ` or `"command": ` before the text.
            let body = match body.chars().next() {
                Some('[') => body.split_once("]:").map_or(body, |(_, b)| b),
                Some('"') => body.split_once("\":").map_or(body, |(_, b)| b),
                _ => body,
            };
            let body = body.split("</system-reminder>").next().unwrap_or(body);
            return Some((event, body));
        }
    }
    None
}

/// The hook event and its reason, when a call's result says a hook stopped it, as
/// Codex answers a call its PreToolUse hook blocked: `Command blocked by PreToolUse
/// hook: Use pnpm, not npm.. Command: npm install`.
fn blocked(result: &str) -> Option<(&str, &str)> {
    let rest = result.trim_start().strip_prefix("Command blocked by ")?;
    let (event, reason) = rest.split_once(" hook: ")?;
    if event.is_empty() || !event.chars().all(|c| c.is_ascii_alphanumeric() || c == ':') {
        return None;
    }
    // The reason, its own full stop kept, without the command Codex names after it.
    let reason = reason.rsplit_once(". Command: ").map_or(reason, |(r, _)| r);
    Some((event, reason))
}

/// The feedback without its headings, escapes and blank lines, on one line.
fn requirement(body: &str) -> String {
    let text = body.replace("\\n", "\n");
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !is_bare_path(l))
        .collect();
    one_line(&lines.join("\n"), CHARS)
}

/// Whether a line is only a file name (a list of untracked files): the requirement is
/// the sentence about them.
fn is_bare_path(line: &str) -> bool {
    let l = line.trim_start_matches(['-', '*', ' ']);
    !l.contains(char::is_whitespace)
        && (l.contains('/') || l.contains('.'))
        && !l.ends_with(['.', ':'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_hook_feedback_and_blocking_errors_are_read() {
        let (event, body) = feedback("Stop hook feedback:\n[${CLAUDE_PLUGIN_ROOT}/scripts/hooks/stop.sh]: # Running Quality Checks...\n\n# Uncommitted Changes Detected\n\nCannot exit with unstaged changes.\n\nBefore stopping, please:\n\n1. Run `git status`\n").unwrap();
        assert_eq!(event, "Stop");
        assert_eq!(
            requirement(body),
            "Cannot exit with unstaged changes. ⏎ Before stopping, please: ⏎ 1. Run `git status`"
        );
        let (event, body) = feedback("<system-reminder>\nPreToolUse:Bash hook blocking error from command: \"${CLAUDE_PLUGIN_ROOT}/scripts/pre-commit.sh\": Pre-commit validation failed:\\n\\n[FORMAT] Code is not formatted.\n</system-reminder>").unwrap();
        assert_eq!(event, "PreToolUse:Bash");
        assert_eq!(
            requirement(body),
            "Pre-commit validation failed: ⏎ [FORMAT] Code is not formatted."
        );
        assert_eq!(feedback("I think the hook feedback: is odd"), None);
        // Codex's answer to a call its PreToolUse hook blocked.
        assert_eq!(
            blocked("Command blocked by PreToolUse hook: Use pnpm, not npm.. Command: npm install"),
            Some(("PreToolUse", "Use pnpm, not npm."))
        );
        assert_eq!(blocked("Command blocked by a typo"), None);
    }
}
