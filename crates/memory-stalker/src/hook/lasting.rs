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
    // A plan refused many times: its newest refusals are among the answers, said once
    // there; the older ones the decisions keep for the record are not said again.
    let decisions = crate::summary::facts::newest_refusals(facts.decisions.clone());
    bullets(
        out,
        "- Decisions taken in this session:",
        &not_answered(&decisions, &facts.answers),
    );
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

/// The decisions that are not one of the user's answers said again. An option chosen
/// at a question is both ("“Q” → A (AskUserQuestion, …)" and "User chose “A” when asked
/// “T” (AskUserQuestion, …)"), so is a reply that made a choice ("Claude asked “Q” → user
/// answered “A” (reply, …)" and "User's choice: “A”"), and so are the words a refused
/// plan got (the same item under both): the memory keeps them under both headings, the
/// restore says them once, among the answers, which come first.
fn not_answered(decisions: &[String], answers: &[String]) -> Vec<String> {
    let given: Vec<(&str, &str)> = answers.iter().filter_map(|a| answer_of(a)).collect();
    decisions
        .iter()
        .filter(|d| !answers.contains(d))
        .filter(|d| {
            chosen_of(d).is_none_or(|(chosen, label)| {
                !given.iter().any(|&(answer, at)| {
                    label.is_none_or(|l| l == at) && said_alike(chosen, answer)
                })
            })
        })
        .cloned()
        .collect()
}

/// What a decision says was chosen, with its source label when it has one: "User chose
/// “A” when asked “T” (label)" (or its Chinese form, "用户在被问到 “Q” 时选择了 “A”
/// (label)"), "User's choice: “A”" ("用户的选择：“A”").
fn chosen_of(item: &str) -> Option<(&str, Option<&str>)> {
    if let Some(rest) = item
        .strip_prefix("User's choice: “")
        .or_else(|| item.strip_prefix("用户的选择：“"))
    {
        return Some((rest.strip_suffix('”')?, None));
    }
    let (body, label) = source_label(item)?;
    let chosen = match body.strip_prefix("User chose “") {
        Some(rest) => rest.split_once("” when asked “")?.0,
        None => body
            .strip_prefix("用户在被问到 “")?
            .split_once("” 时选择了 “")?
            .1
            .strip_suffix('”')?,
    };
    Some((chosen, Some(label)))
}

/// The answer and source label of an answer item: "“Q” → A (label)" (an option or
/// words at a question), "… asked “Q” → user answered “A” (label)" (a reply).
fn answer_of(item: &str) -> Option<(&str, &str)> {
    let (body, label) = source_label(item)?;
    let (_, answer) = body.split_once("” → ")?;
    let answer = match answer
        .strip_prefix("user answered “")
        .or_else(|| answer.strip_prefix("用户回答 “"))
    {
        Some(reply) => reply.strip_suffix('”')?,
        // Memories of earlier versions said "in your own words".
        None => answer
            .strip_suffix(" (in the user's own words)")
            .or_else(|| answer.strip_suffix(" (in your own words)"))
            .or_else(|| answer.strip_suffix("（用户自己的话）"))
            .unwrap_or(answer),
    };
    Some((answer, label))
}

/// An item's text and the label of its source, "(AskUserQuestion, 2026-02-12 20:58)".
fn source_label(item: &str) -> Option<(&str, &str)> {
    let body = item.strip_suffix(')')?;
    let at = body.rfind(" (")?;
    Some((&body[..at], &body[at + 2..]))
}

/// Whether two texts are the same words: equal, or one cut short ("…", where an item's
/// text gave way to its source label) and the other going on from the same start. A
/// short answer ("yes") that a longer choice starts with is not the same.
fn said_alike(a: &str, b: &str) -> bool {
    let cut_of = |short: &str, long: &str| {
        short
            .strip_suffix('…')
            .map(str::trim_end)
            .is_some_and(|p| !p.is_empty() && long.starts_with(p))
    };
    !a.is_empty() && (a == b || cut_of(a, b) || cut_of(b, a))
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

    #[test]
    fn a_chosen_option_is_said_once_among_the_answers() {
        let answers = [
            "“Should the skill always build and verify after changes?” → Always build and verify (AskUserQuestion, 2026-02-26 05:51)".to_string(),
            "“Which rig?” → the east one, it has the new cards (in the user's own words) (AskUserQuestion, 2026-02-26 05:52)".to_string(),
            "“A question so long that its answer was cut to make room for the source label of the item, as happens” → Keep the older layout and move the ind… (AskUserQuestion, 2026-02-26 05:53)".to_string(),
            "Plan refused: Phase 2; user said “not yet” (ExitPlanMode, 2026-02-26 06:00)".to_string(),
        ];
        let decisions = [
            "User chose “Always build and verify” when asked “Should the skill always build and verify after changes?” (AskUserQuestion, 2026-02-26 05:51)",
            "User chose “the east one, it has the new cards” when asked “Which rig?” (AskUserQuestion, 2026-02-26 05:52)",
            "User chose “Keep the older layout and move the index to the end” when asked “Layout” (AskUserQuestion, 2026-02-26 05:53)",
            "Plan refused: Phase 2; user said “not yet” (ExitPlanMode, 2026-02-26 06:00)",
            // The same words chosen at another moment, a test edit and a plan: kept.
            "User chose “Always build and verify” when asked “Again?” (AskUserQuestion, 2026-02-27 09:00)",
            "Plan approved: Phase 3 (ExitPlanMode, 2026-02-26 06:10)",
            "User chose “Run test cases” when asked “Evals?” (AskUserQuestion, 2026-02-26 05:51)",
        ]
        .map(String::from);
        assert_eq!(not_answered(&decisions, &answers), decisions[4..].to_vec(),);
        // An answer carried from a memory of an earlier version, which said "your".
        assert_eq!(
            answer_of("“Which rig?” → the east one (in your own words) (AskUserQuestion, 2026-02-26 05:52)")
                .map(|(answer, _)| answer),
            Some("the east one")
        );
        // A reply that made a choice, its words cut in the answer; a short "yes" is not
        // the longer choice it starts.
        let replies = [
            "Claude asked “Want me to implement this?” → user answered “Instead of \"Strategy initialized\" we should do…” (reply, 2026-01-05 19:40)".to_string(),
            "Claude asked “Shall I go on?” → user answered “yes” (reply, 2026-01-05 19:50)".to_string(),
        ];
        let choices = [
            "User's choice: “Instead of \"Strategy initialized\" we should do \"<strategy name> strategy initialized\"”",
            "User's choice: “yes, and use vite instead of webpack”",
        ]
        .map(String::from);
        assert_eq!(not_answered(&choices, &replies), choices[1..].to_vec());
        let zh = [
            "用户在被问到 “用哪个？” 时选择了 “东边的” (AskUserQuestion, 2026-02-26 05:51)"
                .to_string(),
        ];
        let zh_answer = ["“用哪个？” → 东边的 (AskUserQuestion, 2026-02-26 05:51)".to_string()];
        assert!(not_answered(&zh, &zh_answer).is_empty());
        assert_eq!(not_answered(&zh, &answers), zh.to_vec());
    }

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
    fn a_plan_refused_many_times_is_said_once_among_the_answers() {
        let refusal = |n: usize| {
            format!(
                "Plan refused: Phases; user said “not yet {n}” (ExitPlanMode, 2026-02-06 09:{n:02})"
            )
        };
        // The memory's answers keep the newest three refusals; its decisions all five.
        let facts = SessionFacts {
            answers: (12..15).map(refusal).collect(),
            decisions: (10..15)
                .map(refusal)
                .chain(["Plan approved: Phases (ExitPlanMode, 2026-02-06 09:20)".to_string()])
                .collect(),
            ..SessionFacts::default()
        };
        let mut out = String::new();
        users_words(&mut out, &facts);
        decisions_and_failures(&mut out, &facts);
        for n in 10..15 {
            let said = out.matches(&refusal(n)).count();
            assert_eq!(said, usize::from(n >= 12), "refusal {n}:\n{out}");
        }
        assert!(
            out.contains("- Decisions taken in this session:\n  - Plan approved: Phases"),
            "{out}"
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
