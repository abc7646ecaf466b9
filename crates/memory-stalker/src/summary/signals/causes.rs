//! Causes Claude found and fixed at once: a sentence of its reply that states what was
//! wrong ("I see the issue - Python can't import a module with hyphens in the
//! filename.", "The issue is on line 42. `sqlite3.verbose()` is being called
//! incorrectly."), said right before it changed a file. The change that follows is what
//! makes the sentence a finding rather than a guess: a cause stated before more looking
//! around ("Let me check how …") is still a hypothesis and is left out, as is a hedged
//! one ("might be", "seems") and one whose fix the next command run refutes (it fails).

use serde::{Deserialize, Serialize};

use super::{Call, Source, View};
use crate::text::one_line;
use crate::transcript::extract::is_scratch;
use crate::transcript::record::is_shell;

/// Longest cause kept.
const CHARS: usize = 220;

/// Words that say a cause was found.
const CUES: [&str; 16] = [
    "root cause",
    "the issue is",
    "the issue was",
    "the problem is",
    "the problem was",
    "the bug is",
    "the bug was",
    "is caused by",
    "was caused by",
    "see the issue",
    "see the problem",
    "found the issue",
    "found the problem",
    "found the bug",
    "the issue.",
    "the bug!",
];

/// Words that make a stated cause a guess.
const HEDGES: [&str; 10] = [
    "might", "may be", "maybe", "probably", "likely", "seems", "seem to", "could be", "perhaps",
    "i think",
];

/// A cause stated right before the change that fixed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cause {
    /// The sentence that states the cause, in Claude's words.
    pub cause: String,
    /// The file changed next.
    pub file: String,
    /// The record of the change.
    pub source: Source,
}

pub(super) fn find(view: &View) -> Vec<Cause> {
    let mut out: Vec<Cause> = Vec::new();
    // Causes whose fix no command has checked yet.
    let mut pending: Vec<Cause> = Vec::new();
    // The record after the last call that looked around or ran something: a text before
    // it was followed by more investigation, not by the fix.
    let mut from = view.start;
    for c in view.calls() {
        if crate::transcript::is_bookkeeping(&c.call.name) {
            continue;
        }
        // A fix the next command run refutes was a guess ("the logger is exported as a
        // function", and the same error again).
        if let Some(path) = c.call.detail.modified().iter().find(|p| !is_scratch(p))
            && c.succeeded()
            && let Some(cause) = stated(view, from, c.at)
            && !out.iter().chain(&pending).any(|o| o.cause == cause)
        {
            pending.push(Cause {
                cause,
                file: crate::transcript::extract::project_relative(path, view.cwd()),
                source: Source::of(&c.call.name, c.record),
            });
        } else if is_run(&c) {
            // A server that ran until the time limit did not fail.
            let timed_out = c.result.is_some_and(|(_, r, _)| {
                r.text.head().trim_start().starts_with("Command timed out")
            });
            if !c.failed() || timed_out {
                out.append(&mut pending);
            }
            pending.clear();
        }
        from = after(&c);
    }
    out.append(&mut pending);
    out
}

/// Whether a call runs a command that checks the work (not one that only looks around).
fn is_run(c: &Call) -> bool {
    is_shell(&c.call.name)
        && c.result.is_some()
        && super::command_key(&c.call.summary).is_some()
        && c.result.is_some_and(|(_, r, _)| {
            !r.rejected && !r.text.head().trim_start().starts_with("<tool_use_error>")
        })
}

/// The index of the record after a call's result (or after the call, without one).
fn after(c: &Call) -> usize {
    c.result.map_or(c.at, |(at, _, _)| at).max(c.at) + 1
}

/// The cause stated in the assistant's last text between records `from` and `to`.
fn stated(view: &View, from: usize, to: usize) -> Option<String> {
    // Two calls of one record share its index: nothing lies between them.
    if from >= to {
        return None;
    }
    cause_in(view.narration_before(to - 1, from)?)
}

/// The sentence of `text` that states a cause, with the one after it when the cue
/// stands alone ("There's the bug! We're looking for `message` but it should be
/// `content`.").
pub(crate) fn cause_in(text: &str) -> Option<String> {
    // Most texts hold no cue: found in one pass whatever its case before the text is cut
    // into sentences (a session edits thousands of times, each after a text).
    static ANY_CUE: std::sync::OnceLock<Option<aho_corasick::AhoCorasick>> =
        std::sync::OnceLock::new();
    let any_cue = ANY_CUE.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(CUES)
            .ok()
    });
    if any_cue.as_ref().is_some_and(|ac| !ac.is_match(text)) {
        return None;
    }
    // Only the paragraph the cue is in: a list after it is the plan, not the cause.
    let sentences = crate::summary::sentences_of(text);
    let at = sentences.iter().position(|s| {
        let l = s.to_lowercase();
        CUES.iter().any(|c| l.contains(c))
    })?;
    let first = &sentences[at];
    let bare = first.split_whitespace().count() <= 6 && !first.contains(':');
    let cause = if bare {
        let next = sentences.get(at + 1)?;
        // "Now I can see the issues. Let me fix the controller:" names no cause.
        if is_narration(next) {
            return None;
        }
        format!("{} {}", first.trim(), next.trim())
    } else {
        first.trim().to_string()
    };
    let lower = cause.to_lowercase();
    let hedged = HEDGES.iter().any(|h| {
        lower
            .match_indices(h)
            .any(|(i, _)| !lower[..i].ends_with(|c: char| c.is_alphanumeric()))
    });
    let asks = cause.contains('?');
    // "Let me fix this:" narrates; a cause that only announces a list says nothing.
    (!hedged && !asks && !is_narration(&cause) && cause.chars().count() >= 30)
        .then(|| one_line(cause.trim_end_matches(':'), CHARS))
}

/// Whether a sentence narrates Claude's next move ("Let me fix this:").
fn is_narration(sentence: &str) -> bool {
    let l = sentence
        .to_lowercase()
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_string();
    ["let me", "now let", "i'll", "i will", "let's"]
        .iter()
        .any(|p| l.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_found_cause_is_the_sentence_with_the_cue() {
        assert_eq!(
            cause_in("I see the issue - Python can't import a module with hyphens in the filename. We need to tell Hatchling to rename the file during packaging. Let me update the configuration:").as_deref(),
            Some("I see the issue - Python can't import a module with hyphens in the filename.")
        );
        assert_eq!(
            cause_in("There's the bug! We're looking for `message` attribute but it should be `content`. Let me fix this:").as_deref(),
            Some("There's the bug! We're looking for `message` attribute but it should be `content`.")
        );
        assert_eq!(
            cause_in("Aha! That's the issue. When there are no session messages, it takes the early return path and calls `generate_html([], title)` without the link.").as_deref(),
            Some(
                "That's the issue. When there are no session messages, it takes the early return path and calls `generate_html([], title)` without the link."
            )
        );
    }

    #[test]
    fn a_guess_a_question_or_narration_is_no_cause() {
        for text in [
            "The issue might be with the sqlite3 library not being compatible with ESM.",
            "It seems the issue is in the template.",
            "Is the issue that the cache is stale?",
            "Let me check what the issue is:",
            "Perfect! The tests pass now.",
            "Now I can see the issues. Let me fix the controller to use the correct method signatures:",
        ] {
            assert_eq!(cause_in(text), None, "{text}");
        }
    }
}
