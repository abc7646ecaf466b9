//! Claude Code's background commands (docs/design.md §3.5): a `Bash` call with
//! `run_in_background` answers "Command running in background with ID: b67dc5c", and
//! how the command ended comes later, in the result of a `TaskOutput` (or, before
//! 2.1, `BashOutput`) on that id: `<status>completed</status>`, `<exit_code>1</exit_code>`
//! and its output. Read as they are, the command looks like one that succeeded and said
//! nothing. So once a transcript is read, each such command takes the output of the
//! first report of its exit after it, and fails when that exit code is not 0 — as
//! `codex/running.rs` settles Codex's commands still running.

use std::collections::HashMap;

use super::record::{Entry, KeyMap, Record};
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
    // The id each report is on: most transcripts have none, and are left as they are.
    let mut reports: KeyMap<Box<str>> = KeyMap::default();
    for r in records.iter() {
        if let Entry::Assistant(a) = &r.entry {
            for c in a.tool_calls.iter().filter(|c| waits(&c.name)) {
                reports.insert(c.id, c.summary.clone());
            }
        }
    }
    if reports.is_empty() {
        return;
    }
    // How each background command ended, in order: (record index, exit code, output).
    let mut ends: HashMap<Box<str>, Vec<(usize, i64, Clipped)>> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        if let Entry::User(u) = &r.entry {
            for res in &u.tool_results {
                if let Some(id) = reports.get(&res.tool_use_id)
                    && let Some(code) = exit_code(res.text.head())
                {
                    let end = (i, code, res.text.clone());
                    ends.entry(id.clone()).or_default().push(end);
                }
            }
        }
    }
    let mut next_end: HashMap<Box<str>, usize> = HashMap::new();
    for (i, r) in records.iter_mut().enumerate() {
        let Entry::User(u) = &mut r.entry else {
            continue;
        };
        for res in &mut u.tool_results {
            let Some(id) = background_id(res.text.head()) else {
                continue;
            };
            let Some(id_ends) = ends.get(id) else {
                continue;
            };
            let at = next_end.entry(id.into()).or_default();
            while id_ends.get(*at).is_some_and(|(end, _, _)| *end <= i) {
                *at += 1;
            }
            if let Some((_, code, text)) = id_ends.get(*at) {
                res.is_error = *code != 0;
                res.text = output_of(text);
            }
        }
    }
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
