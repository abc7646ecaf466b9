//! Claude Code's background commands (docs/design.md §3.5): a `Bash` call with
//! `run_in_background` answers "Command running in background with ID: b67dc5c", and
//! how the command ended comes later, in the result of a `TaskOutput` (or, before
//! 2.1, `BashOutput`) on that id: `<status>completed</status>`, `<exit_code>1</exit_code>`
//! and its output. Read as they are, the command looks like one that succeeded and said
//! nothing. So once a transcript is read, each such command takes the output of the
//! first report of its exit after it, and fails when that exit code is not 0
//! ([`super::settle`], as `codex/running.rs` settles Codex's).

use super::record::Record;
use super::settle::{Later, settle as settle_later};
use crate::redact::Clipped;

/// How Claude Code answers a command sent to the background.
const BACKGROUND: &str = "Command running in background with ID: ";

/// The tools that report a background command's state, their summary its id.
fn waits(name: &str) -> bool {
    matches!(name, "TaskOutput" | "BashOutput")
}

/// The id a background command got, from its call's result.
fn background_id(head: &str) -> Option<&str> {
    let rest = head.trim_start().strip_prefix(BACKGROUND)?;
    let id = rest
        .split(|c: char| c.is_whitespace() || c == '.')
        .next()
        .filter(|id| !id.is_empty())?;
    Some(id)
}

/// The exit code a report gives (`<exit_code>1</exit_code>`), once the command ended.
fn exit_code(text: &str) -> Option<i64> {
    let start = text.find("<exit_code>")? + "<exit_code>".len();
    let end = text[start..].find("</exit_code>")? + start;
    text[start..end].trim().parse().ok()
}

/// What the command printed, from a report: the report's own tags before it
/// (`<retrieval_status>`, `<status>`, `<exit_code>`) left out.
fn output_of(report: &Clipped) -> Clipped {
    let head = report.head();
    let start = ["<output>", "<stdout>", "<stderr>"]
        .iter()
        .filter_map(|tag| head.find(tag).map(|at| at + tag.len()))
        .min()
        .unwrap_or(0);
    let kept = head[start..].trim_start_matches('\n');
    let lost = head[..head.len() - kept.len()].chars().count();
    Clipped::from_parts(
        kept.to_string(),
        report.tail().to_string(),
        report.total_chars().saturating_sub(lost),
    )
}

/// Settles the background commands of `records` (in file order).
pub(crate) fn settle(records: &mut [Record]) {
    settle_later(
        records,
        &Later {
            waited_on: &|c| waits(&c.name).then(|| c.summary.clone()),
            may_start: &|_| true,
            started: &|head| background_id(head).map(Box::from),
            ended: &|r| exit_code(r.text.head()).map(|code| (code != 0, output_of(&r.text))),
            name_waits: false,
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_exit_codes_are_read_as_claude_code_writes_them() {
        assert_eq!(
            background_id(
                "Command running in background with ID: b67dc5c. Output is being written to: /tmp/x"
            ),
            Some("b67dc5c")
        );
        assert_eq!(
            background_id("Command running in background with ID: bash_1"),
            Some("bash_1")
        );
        assert_eq!(background_id("ok"), None);
        assert_eq!(
            exit_code(
                "<retrieval_status>success</retrieval_status>\n\n<task_id>b67dc5c</task_id>\n\n<status>completed</status>\n\n<exit_code>1</exit_code>\n\n<output>x"
            ),
            Some(1)
        );
        assert_eq!(exit_code("<status>running</status>"), None);
    }
}
