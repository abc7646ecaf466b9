//! The part of the restore (docs/design.md §2.6) that tells what the session meant: the
//! lasting facts of the memory's Session so far, each kind under a line that says
//! whose words they are, those a model's summary found marked as such. Empty kinds are
//! left out: the restore never points at nothing.

use std::fmt::Write as _;

use crate::summary::facts::SessionFacts;
use crate::transcript::ToolCallSummary;
use crate::untrusted::line;

/// Longest item of a list, in characters.
const ITEM_CHARS: usize = 300;

/// The user's own kinds, which come before anything long in the restore so a cut to
/// its size limit spares them: standing instructions, answers, bash-mode commands,
/// hook requirements.
pub(super) fn users_words(out: &mut String, facts: &SessionFacts) {
    bullets(
        out,
        "- The user's standing instructions in this session (their words):",
        &facts.constraints,
    );
    bullets(
        out,
        "- The user's answers to questions in this session:",
        &facts.answers,
    );
    bullets(
        out,
        "- Commands the user ran themselves, and what they printed:",
        &facts.context,
    );
    bullets(
        out,
        "- What hooks required in this session:",
        &facts.requirements,
    );
}

/// Decisions and failed approaches: the session's, then those a model's summary found.
pub(super) fn decisions_and_failures(out: &mut String, facts: &SessionFacts) {
    bullets(out, "- Decisions taken in this session:", &facts.decisions);
    bullets(
        out,
        "- Approaches that failed in this session:",
        &not_restated(&facts.failed, &facts.decisions),
    );
    bullets(
        out,
        "- Standing instructions a model's summary found (not the user's words):",
        &not_restating(&facts.model_preferences, &facts.constraints),
    );
    bullets(
        out,
        "- Decisions a model's summary found:",
        &not_restating(&facts.model_decisions, &facts.decisions),
    );
    bullets(
        out,
        "- Approaches that failed, as a model's summary found them:",
        &not_restating(&facts.model_failed, &facts.failed),
    );
}

/// A model's items that do not say again what the session's own list says: the restore
/// gives each thing once, in the session's words where it has them.
fn not_restating(model: &[String], own: &[String]) -> Vec<String> {
    model
        .iter()
        .filter(|m| !own.iter().any(|o| crate::text::restates(m, o)))
        .cloned()
        .collect()
}

/// The failed approaches that do not restate a decision. A call the user refused with
/// words of their own is both ("You refused Edit x.rs: “…” (Edit, …)" and "Edit x.rs
/// was refused by you: “…” (Edit, …)"): the memory keeps it under both headings, the
/// restore says it once, among the decisions.
fn not_restated(failed: &[String], decisions: &[String]) -> Vec<String> {
    let quoted = |item: &str| item.find('“').map(|at| item[at..].to_string());
    let said: Vec<String> = decisions.iter().filter_map(|d| quoted(d)).collect();
    failed
        .iter()
        .filter(|f| quoted(f).is_none_or(|q| !said.contains(&q)))
        .cloned()
        .collect()
}

/// A titled list of one-line items (nothing when there are none).
pub(super) fn bullets(out: &mut String, title: &str, items: &[String]) {
    if items.is_empty() {
        return;
    }
    let _ = writeln!(out, "{title}");
    for i in items {
        let _ = writeln!(
            out,
            "  - {}",
            line(&crate::text::clip_words(i, ITEM_CHARS), ITEM_CHARS)
        );
    }
}

/// The calls of the reply that did not succeed, each once with how often it failed and
/// why, and whether a later call of the same kind then succeeded (so the model does not
/// redo what was already fixed, nor take a failure for the last word). `None` when all
/// succeeded.
pub(super) fn failed_calls(calls: &[ToolCallSummary]) -> Option<String> {
    let mut seen: Vec<Failed> = Vec::new();
    for (i, c) in calls.iter().enumerate() {
        if !c.failed || crate::transcript::is_bookkeeping(&c.name) {
            continue;
        }
        let superseded = calls[i + 1..]
            .iter()
            .any(|l| !l.failed && l.name == c.name && same_target(&l.summary, &c.summary));
        match seen
            .iter_mut()
            .find(|s| s.call.name == c.name && s.call.summary == c.summary)
        {
            Some(s) => {
                s.times += 1;
                s.superseded = superseded;
                if c.error.is_some() {
                    s.reason = c.error.as_deref();
                }
            }
            None => seen.push(Failed {
                call: c,
                times: 1,
                reason: c.error.as_deref(),
                superseded,
            }),
        }
    }
    if seen.is_empty() {
        return None;
    }
    let shown = seen.len().min(5);
    let items: Vec<String> = seen[seen.len() - shown..]
        .iter()
        .map(Failed::describe)
        .collect();
    let earlier = seen.len() - shown;
    Some(format!(
        "- Tool calls of that reply that did not succeed: {}{}.",
        items.join("; "),
        if earlier > 0 {
            format!(" (and {earlier} earlier)")
        } else {
            String::new()
        }
    ))
}

/// One call that did not succeed, however often it was made.
struct Failed<'a> {
    call: &'a ToolCallSummary,
    times: usize,
    /// Why its last failure with a reason failed.
    reason: Option<&'a str>,
    /// A later call of it succeeded.
    superseded: bool,
}

impl Failed<'_> {
    /// `Bash uv run pyright (failed 3 times: <reason>; a later call of it succeeded)`.
    fn describe(&self) -> String {
        let how = match (self.call.rejected, self.times) {
            (true, _) => "refused".to_string(),
            (false, 1) => "failed".to_string(),
            (false, n) => format!("failed {n} times"),
        };
        let why = self
            .reason
            .map(|r| format!(": {}", line(r, 160)))
            .unwrap_or_default();
        let then = if self.superseded {
            "; a later call of it succeeded"
        } else {
            ""
        };
        format!(
            "{} {} ({how}{why}{then})",
            line(&self.call.name, 60),
            line(&self.call.summary, 100)
        )
    }
}

/// Whether two calls act on the same thing: the same summary, or commands that are the
/// same program and subcommand (`uv run pyright` and `uv run pyright src/`).
fn same_target(a: &str, b: &str) -> bool {
    a == b
        || crate::summary::signals::command_key(a)
            .is_some_and(|k| crate::summary::signals::command_key(b).as_ref() == Some(&k))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, summary: &str, failed: bool, error: Option<&str>) -> ToolCallSummary {
        ToolCallSummary {
            name: name.into(),
            summary: summary.into(),
            failed,
            rejected: false,
            error: error.map(str::to_string),
        }
    }

    #[test]
    fn failed_calls_are_said_once_with_their_reason_and_what_superseded_them() {
        let calls = [
            call(
                "Bash",
                "uv run pyright",
                true,
                Some("error: Type of x is unknown"),
            ),
            call("Edit", "src/a.py", false, None),
            call(
                "Bash",
                "uv run pyright",
                true,
                Some("error: Type of x is unknown"),
            ),
            call(
                "Bash",
                "uv run pyright",
                true,
                Some("error: Type of y is unknown"),
            ),
            call("Bash", "uv run pyright src/", false, None),
            call(
                "Write",
                "CLAUDE.md",
                true,
                Some("Claude requested permissions to write"),
            ),
            call("TodoWrite", "2 items", true, None),
        ];
        assert_eq!(
            failed_calls(&calls).unwrap(),
            "- Tool calls of that reply that did not succeed: Bash uv run pyright (failed 3 times: error: Type of y is unknown; a later call of it succeeded); Write CLAUDE.md (failed: Claude requested permissions to write)."
        );
        assert_eq!(failed_calls(&calls[1..2]), None);
    }

    #[test]
    fn empty_kinds_are_left_out_and_the_models_are_marked() {
        let facts = SessionFacts {
            constraints: vec!["use pnpm (Bash, 2025-11-18 00:03)".into()],
            model_decisions: vec!["Use SQLite".into()],
            ..SessionFacts::default()
        };
        let mut out = String::new();
        users_words(&mut out, &facts);
        decisions_and_failures(&mut out, &facts);
        assert_eq!(
            out,
            "- The user's standing instructions in this session (their words):\n  - use pnpm (Bash, 2025-11-18 00:03)\n- Decisions a model's summary found:\n  - Use SQLite\n"
        );
    }

    #[test]
    fn a_refusal_the_decisions_give_is_not_said_again_among_the_failures() {
        let facts = SessionFacts {
            decisions: vec![
                "You refused Edit src/a.rs: “keep the old name” (Edit, 2025-07-14 23:12)".into(),
            ],
            failed: vec![
                "Edit src/a.rs was refused by you: “keep the old name” (Edit, 2025-07-14 23:12)"
                    .into(),
                "Edit src/b.rs was refused by you: “not this file” (Edit, 2025-07-14 23:20)".into(),
                "`cargo test` failed 2 times (error[E0425]) until: editing src/a.rs".into(),
            ],
            ..SessionFacts::default()
        };
        let mut out = String::new();
        decisions_and_failures(&mut out, &facts);
        assert_eq!(
            out,
            "- Decisions taken in this session:\n  - You refused Edit src/a.rs: “keep the old name” (Edit, 2025-07-14 23:12)\n- Approaches that failed in this session:\n  - Edit src/b.rs was refused by you: “not this file” (Edit, 2025-07-14 23:20)\n  - `cargo test` failed 2 times (error[E0425]) until: editing src/a.rs\n"
        );
        // Every failure a decision restates: no heading left pointing at nothing.
        let only = SessionFacts {
            failed: facts.failed[..1].to_vec(),
            ..facts
        };
        let mut out = String::new();
        decisions_and_failures(&mut out, &only);
        assert!(!out.contains("Approaches that failed"), "{out}");
    }
}
