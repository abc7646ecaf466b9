//! Commands still running when their call returned (docs/design.md §3.13).
//!
//! Codex's `exec_command` returns after a while (its `yield_time_ms`) whether or not the
//! command has finished: a long test run answers "Process running with session ID N",
//! and the model later waits on it with `write_stdin` on session N, whose output reports
//! "Process exited with code C" once it ends. Read as they are, the command would look
//! like one that succeeded and said nothing, and its failure like a failed wait. So once
//! a rollout is read, each such command takes the outcome and output of the first exit
//! its session reports after it, and each wait names the command it waits on.

use std::collections::HashMap;

use super::super::record::{Entry, KeyMap, Record, ToolCall, ToolDetail, is_shell};
use super::tools::{reports_exit, running_session};
use crate::redact::Clipped;

/// The tool calls of `records`, in order.
fn calls(records: &[Record]) -> impl Iterator<Item = &ToolCall> {
    records
        .iter()
        .filter_map(|r| match &r.entry {
            Entry::Assistant(a) => Some(a.tool_calls.iter()),
            _ => None,
        })
        .flatten()
}

/// Settles the commands of `records` (in file order) that were still running when
/// their call returned.
pub(crate) fn settle(records: &mut [Record]) {
    // The session each wait is on: most rollouts have none, and are left as they are.
    let mut waits: KeyMap<u64> = KeyMap::default();
    for c in calls(records) {
        if let ToolDetail::Poll(session) = c.detail {
            waits.insert(c.id, session);
        }
    }
    if waits.is_empty() {
        return;
    }
    // The command each shell call ran.
    let commands: KeyMap<Box<str>> = calls(records)
        .filter(|c| is_shell(&c.name))
        .map(|c| (c.id, c.summary.clone()))
        .collect();
    // How each session's commands ended, in order: (record index, error, output).
    let mut ends: HashMap<u64, Vec<(usize, bool, Clipped)>> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        if let Entry::User(u) = &r.entry {
            for res in &u.tool_results {
                if let Some(session) = waits.get(&res.tool_use_id)
                    && reports_exit(res.text.head())
                {
                    let end = (i, res.is_error, res.text.clone());
                    ends.entry(*session).or_default().push(end);
                }
            }
        }
    }
    // In order: a command's result says it is running; a wait after it is on it. Each
    // session's ends are walked once, as the records are (a rollout may reuse one
    // session number for thousands of commands).
    let mut running: HashMap<u64, Box<str>> = HashMap::new();
    let mut next_end: HashMap<u64, usize> = HashMap::new();
    for (i, r) in records.iter_mut().enumerate() {
        match &mut r.entry {
            Entry::User(u) => {
                for res in &mut u.tool_results {
                    let Some(command) = commands.get(&res.tool_use_id) else {
                        continue;
                    };
                    let Some(session) = running_session(res.text.head()) else {
                        continue;
                    };
                    running.insert(session, command.clone());
                    let Some(session_ends) = ends.get(&session) else {
                        continue;
                    };
                    let at = next_end.entry(session).or_default();
                    while session_ends.get(*at).is_some_and(|(end, _, _)| *end <= i) {
                        *at += 1;
                    }
                    if let Some((_, error, text)) = session_ends.get(*at) {
                        res.is_error = *error;
                        res.text = text.clone();
                    }
                }
            }
            Entry::Assistant(a) => {
                for c in &mut a.tool_calls {
                    if let ToolDetail::Poll(session) = c.detail
                        && let Some(command) = running.get(&session)
                    {
                        c.summary = format!("{} ({command})", c.summary).into();
                    }
                }
            }
            _ => {}
        }
    }
}
