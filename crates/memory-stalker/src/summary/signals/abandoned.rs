//! Approaches given up after a failure: a command failed, Claude said right after it
//! that the way would not work ("Redis isn't reachable from the upload service, so a
//! Redis token bucket is out", "so Kafka is not an option", "Let me try a different
//! approach"), and the command never passed later in the segment. Unlike a failed run
//! ([`super::FailedRun`]), nothing made it pass: the approach was dropped, and the model
//! after a compaction must not pick it up again.

use serde::{Deserialize, Serialize};

use super::{Source, View, error_line, first_sentence};
use crate::transcript::record::{Entry, is_shell};

/// Longest reason kept.
const WHY_CHARS: usize = 200;

/// How Claude says, right after a failure, that a way will not work.
const GIVEN_UP: [&str; 24] = [
    "won't work",
    "will not work",
    "wouldn't work",
    "doesn't work",
    "does not work",
    "didn't work",
    "did not work",
    "not an option",
    "is out",
    "isn't reachable",
    "is not reachable",
    "isn't available",
    "is not available",
    "isn't possible",
    "is not possible",
    "a different approach",
    "another approach",
    "give up",
    "can't use",
    "cannot use",
    "不可行",
    "行不通",
    "换一种方法",
    "无法使用",
];

/// A command that failed and whose approach Claude then gave up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Abandoned {
    /// The command, one line.
    pub command: String,
    /// The most telling line of its output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Claude's sentence that gives it up.
    pub why: String,
    /// The failed call's result.
    pub source: Source,
}

pub(super) fn find(view: &View) -> Vec<Abandoned> {
    // The last call of each command that passed: a way that worked later was not given
    // up (a fix came first; the failed run says so).
    let mut passed: std::collections::HashMap<String, usize> = Default::default();
    let mut failed = Vec::new();
    for c in view.calls() {
        if !is_shell(&c.call.name) {
            continue;
        }
        let Some(key) = view.command_key(&c).map(str::to_owned) else {
            continue;
        };
        match c.result {
            Some((at, r, _)) if c.failed() && super::runs::reached_the_command(r) => {
                failed.push((key, at, &*c.call.name, &*c.call.summary, r.text.head()));
            }
            Some((at, _, _)) if c.succeeded() => {
                passed.insert(key, at);
            }
            _ => {}
        }
    }
    let mut out: Vec<Abandoned> = Vec::new();
    for (key, at, tool, command, output) in failed {
        if passed.get(&key).is_some_and(|p| *p > at) {
            continue;
        }
        let Some(why) = said_after(view, at).and_then(given_up) else {
            continue;
        };
        if out.iter().any(|o| o.why == why) {
            continue;
        }
        out.push(Abandoned {
            command: super::runs::shown_command(command),
            error: error_line(output),
            why,
            source: Source::of(tool, &view.all()[at]),
        });
    }
    out
}

/// What Claude wrote right after record `at`, before its next call that does work (a
/// task-list update or Claude Code's loading of a deferred tool, `ToolSearch`, is none)
/// or the next prompt.
fn said_after<'a>(view: &View<'a>, at: usize) -> Option<&'a str> {
    for r in view.all().iter().skip(at + 1) {
        if r.meta.sidechain {
            continue;
        }
        match &r.entry {
            Entry::Assistant(a) if !a.synthetic => {
                if let Some(t) = a.texts.iter().map(|t| t.trim()).find(|t| !t.is_empty()) {
                    return Some(t);
                }
                if a.tool_calls
                    .iter()
                    .any(|c| !crate::transcript::is_bookkeeping(&c.name))
                {
                    return None;
                }
            }
            // A tool result passes; a prompt starts another turn.
            Entry::User(u) if u.tool_results.is_empty() => return None,
            _ => {}
        }
    }
    None
}

/// The sentence of `text` that gives the way up, if one does.
fn given_up(text: &str) -> Option<String> {
    text.lines()
        .flat_map(crate::text::line_sentences)
        .find(|s| {
            let lower = s.to_lowercase();
            !s.trim_end().ends_with('?') && GIVEN_UP.iter().any(|m| has_phrase(&lower, m))
        })
        .map(|s| first_sentence(s, WHY_CHARS))
}

/// Whether `lower` holds `phrase` as whole words; "is out" only where it ends a clause
/// ("… a Redis token bucket is out."), not "is out of range".
fn has_phrase(lower: &str, phrase: &str) -> bool {
    if phrase != "is out" {
        return crate::text::has_words(lower, phrase);
    }
    lower.match_indices(phrase).any(|(at, _)| {
        let after = lower[at + phrase.len()..].chars().next();
        !lower[..at]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
            && !after.is_some_and(|c| c.is_alphanumeric() || c.is_whitespace())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentence_that_gives_the_way_up_is_found_as_whole_words() {
        assert_eq!(
            given_up(
                "Redis isn't reachable from the upload service, so a Redis token bucket is out."
            )
            .as_deref(),
            Some("Redis isn't reachable from the upload service, so a Redis token bucket is out.")
        );
        assert_eq!(
            given_up("We're not authorised on billing-events, so Kafka is not an option. Failed deliveries go to a local queue.")
                .as_deref(),
            Some("We're not authorised on billing-events, so Kafka is not an option.")
        );
        assert_eq!(
            given_up("The dependency is outdated, let me update it."),
            None
        );
        assert_eq!(given_up("Does the mock not work here?"), None);
        assert_eq!(
            given_up("The index is out of range for an empty page."),
            None
        );
        assert_eq!(given_up("Let me look at the handler."), None);
    }
}
