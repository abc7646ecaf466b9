//! Commits made in the segment: a shell call that ran `git commit` and succeeded, read
//! from what git printed (`[main 3f2a1c9] fix: round invoice totals once`), so the
//! message counts however it was passed (`-m`, a heredoc, `-F`, `--amend`). What is
//! committed is done: the model after a compaction must not make it again, and a user
//! back a week later finds the session by it.

use serde::{Deserialize, Serialize};

use super::{Source, View};
use crate::text::one_line;
use crate::transcript::commands::runs_git_commit;
use crate::transcript::record::is_shell;

/// Longest subject kept.
const CHARS: usize = 200;
/// Most commits kept (the newest).
const KEPT: usize = 50;

/// One commit git reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commit {
    /// The short hash git printed.
    pub hash: String,
    /// The message's first line.
    pub subject: String,
    /// The call's result.
    pub source: Source,
}

pub(super) fn find(view: &View) -> Vec<Commit> {
    let mut out: Vec<Commit> = Vec::new();
    for c in view.calls() {
        if !is_shell(&c.call.name) || !c.succeeded() || !runs_git_commit(&c.call.summary) {
            continue;
        }
        let Some((_, result, _)) = c.result else {
            continue;
        };
        // Git reports the commit after what a pre-commit hook printed, which may be long.
        let text = &result.text;
        for line in text.head().lines().chain(text.tail().lines()) {
            let Some((hash, subject)) = reported(line) else {
                continue;
            };
            let subject = one_line(subject, CHARS);
            // An amended commit (the same message again) replaces the one before it.
            out.retain(|o| o.hash != hash && o.subject != subject);
            out.push(Commit {
                hash: hash.to_string(),
                subject,
                // The call's record keeps its time (a result that succeeded does not).
                source: Source::of(&c.call.name, c.record),
            });
        }
    }
    let start = out.len().saturating_sub(KEPT);
    out.split_off(start)
}

/// The hash and subject of git's report of a commit: `[main 3f2a1c9] subject`,
/// `[feature/x (root-commit) 3f2a1c9] subject`, `[detached HEAD 3f2a1c9] subject`.
fn reported(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim().strip_prefix('[')?;
    let (inside, subject) = rest.split_once("] ")?;
    let hash = inside.rsplit(' ').next()?;
    let is_hash = (7..=40).contains(&hash.len()) && hash.chars().all(|c| c.is_ascii_hexdigit());
    let subject = subject.trim();
    (is_hash && inside.contains(' ') && !subject.is_empty()).then_some((hash, subject))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gits_report_gives_the_hash_and_the_subject() {
        assert_eq!(
            reported("[main 3f2a1c9] fix: round invoice totals once"),
            Some(("3f2a1c9", "fix: round invoice totals once"))
        );
        assert_eq!(
            reported("[master (root-commit) 0c1d2e3] Initial commit"),
            Some(("0c1d2e3", "Initial commit"))
        );
        assert_eq!(
            reported("[detached HEAD abcdef0] wip"),
            Some(("abcdef0", "wip"))
        );
        assert_eq!(reported("[INFO] Building 3 modules"), None);
        assert_eq!(reported("[main xyz] not a hash"), None);
        assert_eq!(reported(" 2 files changed, 10 insertions(+)"), None);
    }
}
