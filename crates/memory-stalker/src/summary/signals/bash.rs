//! Commands the user ran themselves in bash mode (`!cmd`), and the end of their output:
//! the context of the request that follows ("please fix these" means the errors that
//! command printed).

use serde::{Deserialize, Serialize};

use super::{Source, View};
use crate::text::one_line;
use crate::transcript::prompt::tag;

/// Longest command kept.
const COMMAND_CHARS: usize = 200;
/// Longest output tail kept.
const OUTPUT_CHARS: usize = 300;
/// Lines of output kept from its end.
const TAIL_LINES: usize = 3;

/// One command the user ran in bash mode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BashContext {
    /// The command.
    pub command: String,
    /// The last lines of what it printed (stdout, then stderr), on one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The first file its output names (`test/test_cache.py`): what its errors are in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The request the user typed next, which this output is the context of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_request: Option<String>,
    /// The record of the command.
    pub source: Source,
}

pub(super) fn find(view: &View) -> Vec<BashContext> {
    let users: Vec<_> = view.users().collect();
    let mut out = Vec::new();
    for (n, (at, record, u)) in users.iter().enumerate() {
        let text = u.text.trim_start();
        if !text.starts_with("<bash-input>") {
            continue;
        }
        let Some(command) = tag(text, "bash-input")
            .map(str::trim)
            .filter(|c| !c.is_empty())
        else {
            continue;
        };
        // The output is the next user record (or this one, in versions that wrote both
        // together).
        let printed = std::iter::once(text)
            .chain(users.get(n + 1).map(|(_, _, u)| u.text.trim_start()))
            .find(|t| t.contains("<bash-stdout>") || t.contains("<bash-stderr>"))
            .map(|t| {
                let stdout = tag(t, "bash-stdout").unwrap_or("");
                let stderr = tag(t, "bash-stderr").unwrap_or("");
                format!("{stdout}\n{stderr}")
            })
            .unwrap_or_default();
        let output = tail(&printed);
        let file = first_file(&printed);
        let next_input = users[n + 1..]
            .iter()
            .find(|(_, _, u)| u.text.trim_start().starts_with("<bash-input>"))
            .map_or(view.len(), |(i, _, _)| *i);
        out.push(BashContext {
            command: one_line(command, COMMAND_CHARS),
            output,
            file,
            next_request: view
                .prompt_after(*at, next_input)
                .map(|p| one_line(p, COMMAND_CHARS)),
            source: Source::of(
                match view.agent {
                    crate::agent::Agent::ClaudeCode => "bash mode",
                    crate::agent::Agent::Codex => "! command",
                },
                record,
            ),
        });
    }
    out
}

/// The end of an output, on one line: its first error line and its last lines (a
/// tool's notice, `WARN …`, left out).
fn tail(output: &str) -> Option<String> {
    let output = crate::text::strip_ansi(output);
    let lines: Vec<&str> = output
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with("WARN "))
        .collect();
    let start = lines.len().saturating_sub(TAIL_LINES);
    let mut kept: Vec<&str> = Vec::new();
    let first_error =
        crate::transcript::outcome::error_line(&lines[..start].join("\n")).filter(|e| {
            lines[..start]
                .iter()
                .any(|l| l.trim() == e && l.contains("rror"))
        });
    if let Some(e) = &first_error {
        kept.push(e);
    }
    kept.extend(&lines[start..]);
    let text = kept.join("\n");
    (!text.is_empty()).then(|| {
        // The end is what matters: keep it when the lines are long.
        let chars = text.chars().count();
        let from = chars.saturating_sub(OUTPUT_CHARS);
        let kept: String = text.chars().skip(from).collect();
        one_line(&kept, OUTPUT_CHARS + 1)
    })
}

/// The first file path an output names (`test/test_cache.py`, from `--> test/test_cache.py:203:20`).
pub(crate) fn first_file(output: &str) -> Option<String> {
    output
        .split(|c: char| c.is_whitespace() || matches!(c, '`' | '"' | '\'' | '(' | ')' | ','))
        .map(|w| w.split(':').next().unwrap_or(w).trim_end_matches('.'))
        .find(|w| {
            w.contains('/')
                && !w.contains("://")
                && w.rsplit('/').next().is_some_and(|n| {
                    n.contains('.') && n.chars().next().is_some_and(char::is_alphanumeric)
                })
        })
        .map(|w| one_line(w, COMMAND_CHARS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_file_is_the_one_the_errors_are_in() {
        assert_eq!(
            first_file("warning[x]: y\n   --> test/test_cache.py:203:20\n see https://a.b/c.html")
                .as_deref(),
            Some("test/test_cache.py")
        );
        assert_eq!(first_file("Found 2 diagnostics"), None);
    }

    #[test]
    fn the_tail_is_the_last_lines() {
        assert_eq!(
            tail("a\n\nb\nc\nFound 5 diagnostics\n").as_deref(),
            Some("b ⏎ c ⏎ Found 5 diagnostics")
        );
        assert_eq!(
            tail(
                "error[x]: bad\n  --> a.py:1\nb\nc\nFound 5 diagnostics\nWARN ty is pre-release\n"
            )
            .as_deref(),
            Some("error[x]: bad ⏎ b ⏎ c ⏎ Found 5 diagnostics")
        );
        assert_eq!(tail("\n \n"), None);
    }
}
