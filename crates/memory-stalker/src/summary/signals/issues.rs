//! The titles of the issues the session looked up in an issue tracker: a request that
//! names an issue only by its id ("Work on bead spotter-a0y", "fix #123") says nothing
//! a week later, and the tracker's own output, read in the session, says what it is.
//!
//! Only what a command printed about the issue it was asked about counts: a line of
//! `bd show spotter-dov` that starts with `spotter-dov` and gives its title after a
//! separator (`○ spotter-dov [EPIC] · Unified transcript view   [● P1 · OPEN]`, the
//! `id: title` and `id · title` lines of such tools), or the `title:` line of
//! `gh issue view 123` / `gh pr view 123` (then the id is `#123`).

use serde::{Deserialize, Serialize};

use super::View;
use crate::text::one_line;
use crate::transcript::record::is_shell;

/// Longest title kept.
const TITLE_CHARS: usize = 120;
/// Lines of a command's output looked at for the title.
const LINES: usize = 40;

/// An issue the session looked up, and its title.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssueTitle {
    /// The issue's id as a request would name it: `spotter-dov`, `PROJ-42`, `#123`.
    pub id: String,
    /// Its title, as the tracker printed it.
    pub title: String,
}

pub(super) fn find(view: &View) -> Vec<IssueTitle> {
    let mut out: Vec<IssueTitle> = Vec::new();
    for c in view.calls() {
        if !is_shell(&c.call.name) {
            continue;
        }
        let Some((_, result, _)) = c.result.filter(|(_, r, _)| !r.is_error && !r.rejected) else {
            continue;
        };
        let output = result.text.head();
        for found in titles(&c.call.summary, output) {
            if !out.iter().any(|o| o.id == found.id) {
                out.push(found);
            }
        }
    }
    out
}

/// The titles `output` gives of the issues `command` names.
fn titles(command: &str, output: &str) -> Vec<IssueTitle> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let mut out = Vec::new();
    // `gh issue view 123`, `gh pr view 123`: the first `title:` line.
    if let Some(n) = words
        .windows(4)
        .find(|w| w[0] == "gh" && matches!(w[1], "issue" | "pr") && w[2] == "view")
        .map(|w| w[3].trim_start_matches('#'))
        .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        && let Some(title) = output
            .lines()
            .take(LINES)
            .find_map(|l| l.strip_prefix("title:"))
            .map(clean)
            .filter(|t| says_something(t))
    {
        out.push(IssueTitle {
            id: format!("#{n}"),
            title,
        });
    }
    for id in words
        .iter()
        .map(|w| w.trim_matches(['"', '\'', ',']))
        .filter(|w| is_id(w))
    {
        if let Some(title) = output.lines().take(LINES).find_map(|l| title_after(l, id)) {
            out.push(IssueTitle {
                id: id.to_string(),
                title,
            });
        }
    }
    out
}

/// Whether a word looks like a tracker's id: letters, then `-` and letters or digits,
/// then perhaps `.1`, `.2` for a sub-issue (`spotter-dov`, `spotter-dov.2`, `PROJ-42`).
fn is_id(word: &str) -> bool {
    let Some((prefix, rest)) = word.split_once('-') else {
        return false;
    };
    let (key, sub) = rest.split_once('.').unwrap_or((rest, ""));
    word.len() <= 40
        && prefix.starts_with(|c: char| c.is_ascii_alphabetic())
        && prefix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric())
        && sub
            .split('.')
            .all(|p| p.chars().all(|c| c.is_ascii_digit()))
}

/// The title a line gives of issue `id`: the line starts with the id (after a status
/// mark such as `○` or `✓`), then perhaps `[TAGS]`, then `·`, `:` or `-`, then the
/// title, up to the tracker's own bracketed status.
fn title_after(line: &str, id: &str) -> Option<String> {
    let start = line.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '#');
    let mut rest = start.strip_prefix(id)?;
    if rest.starts_with(|c: char| c.is_alphanumeric() || c == '.' || c == '-') {
        return None;
    }
    loop {
        rest = rest.trim_start();
        match rest.strip_prefix('[').and_then(|r| r.split_once(']')) {
            Some((_, after)) => rest = after,
            None => break,
        }
    }
    let rest = ["·", ":", "-", "—"]
        .iter()
        .find_map(|sep| rest.strip_prefix(sep))?;
    // The tracker's own status after the title: `   [● P1 · OPEN]`, ` ● P1`.
    let title = rest.split("   [").next().unwrap_or(rest);
    let title = title.split(" ●").next().unwrap_or(title);
    Some(clean(title)).filter(|t| says_something(t))
}

fn clean(title: &str) -> String {
    one_line(title.trim(), TITLE_CHARS)
}

/// Whether a title says something (not a status word or a date).
fn says_something(title: &str) -> bool {
    title.split_whitespace().count() >= 2 && title.chars().any(char::is_alphabetic)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trackers_line_about_the_issue_gives_its_title() {
        let bd = "○ spotter-dov [EPIC] · Unified transcript visualization and debug parity for session + subagent   [● P1 · OPEN]\nOwner: Marco Rotili · Type: epic\n";
        assert_eq!(
            titles("bd show spotter-dov 2>&1 | head -30", bd),
            vec![IssueTitle {
                id: "spotter-dov".into(),
                title: "Unified transcript visualization and debug parity for session + subagent"
                    .into()
            }]
        );
        let child = "  ↳ ✓ spotter-dov.1: Extract shared transcript presentation ● P1\n";
        assert_eq!(
            titles("bd show spotter-dov.1", child)[0].title,
            "Extract shared transcript presentation"
        );
        let gh = "title:\tRetry failed uploads\nstate:\tOPEN\nauthor:\tsomeone\n";
        assert_eq!(
            titles("gh issue view 123 --repo o/r", gh),
            vec![IssueTitle {
                id: "#123".into(),
                title: "Retry failed uploads".into()
            }]
        );
    }

    #[test]
    fn other_lines_and_other_words_give_none() {
        // A hyphenated word is no issue unless a line about it gives a title.
        assert!(titles("npm run cross-browser", "cross-browser tests passed\n").is_empty());
        // Another issue's line, or the id inside a longer one, is not its title.
        assert!(
            titles(
                "bd show spotter-dov",
                "○ spotter-dov.2 · Upgrade the renderer\n"
            )
            .is_empty()
        );
        assert!(
            titles(
                "bd show spotter-dov",
                "see spotter-dov: blocked by spotter-x\n"
            )
            .is_empty()
        );
        // A bare status is no title.
        assert!(titles("bd show spotter-dov", "spotter-dov: OPEN\n").is_empty());
        assert!(!is_id("--verbose"));
        assert!(!is_id("2>&1"));
        assert!(is_id("PROJ-42"));
        assert!(is_id("spotter-a0y.2"));
    }
}
