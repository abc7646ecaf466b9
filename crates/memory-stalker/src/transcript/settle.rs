//! Commands that outlive their call (docs/design.md §3.5, §3.13): the call answers that
//! the command still runs ("Process running with session ID 7", "Command running in
//! background with ID: b67dc5c"), and how it ended comes later, in the result of a
//! call that waits on it (Codex's `write_stdin`, Claude Code's `TaskOutput`). Read as
//! they are, the command looks like one that succeeded and said nothing. So once a
//! transcript is read, each such command takes the outcome and output of the first
//! report of its end after it. Each agent says how it reports them ([`Later`]).

use std::collections::HashMap;
use std::hash::Hash;

use super::record::{Entry, KeyMap, Record, ToolCall, ToolResult};
use crate::redact::Clipped;

/// How an agent reports a command that outlives its call; `K` names the command.
pub(crate) struct Later<'a, K> {
    /// The command a call waits on.
    pub waited_on: &'a dyn Fn(&ToolCall) -> Option<K>,
    /// Whether a call's result may say that its command still runs.
    pub may_start: &'a dyn Fn(&ToolCall) -> bool,
    /// The command a result's head says still runs.
    pub started: &'a dyn Fn(&str) -> Option<K>,
    /// How a wait's result says the command ended: whether it failed, and its output.
    pub ended: &'a dyn Fn(&ToolResult) -> Option<(bool, Clipped)>,
    /// Whether each wait is summarised with the command it waits on.
    pub name_waits: bool,
}

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

/// Settles the commands of `records` (in file order) that outlived their call.
pub(crate) fn settle<K: Eq + Hash + Clone>(records: &mut [Record], later: &Later<'_, K>) {
    // What each wait is on: most transcripts have none, and are left as they are.
    let mut waits: KeyMap<K> = KeyMap::default();
    for c in calls(records) {
        if let Some(k) = (later.waited_on)(c) {
            waits.insert(c.id, k);
        }
    }
    if waits.is_empty() {
        return;
    }
    // The calls whose result may say their command still runs, and that command.
    let starters: KeyMap<Box<str>> = calls(records)
        .filter(|c| (later.may_start)(c))
        .map(|c| (c.id, c.summary.clone()))
        .collect();
    // How each command ended, in order: (record index, failed, output).
    let mut ends: HashMap<K, Vec<(usize, bool, Clipped)>> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        if let Entry::User(u) = &r.entry {
            for res in &u.tool_results {
                if let Some(k) = waits.get(&res.tool_use_id)
                    && let Some((failed, output)) = (later.ended)(res)
                {
                    ends.entry(k.clone()).or_default().push((i, failed, output));
                }
            }
        }
    }
    // In order: a command's result says it runs; a wait after it is on it. Each
    // command's ends are walked once, as the records are (a rollout may reuse one
    // session number for thousands of commands).
    let mut running: HashMap<K, Box<str>> = HashMap::new();
    let mut next_end: HashMap<K, usize> = HashMap::new();
    for (i, r) in records.iter_mut().enumerate() {
        match &mut r.entry {
            Entry::User(u) => {
                for res in &mut u.tool_results {
                    let Some(command) = starters.get(&res.tool_use_id) else {
                        continue;
                    };
                    let Some(k) = (later.started)(res.text.head()) else {
                        continue;
                    };
                    if later.name_waits {
                        running.insert(k.clone(), command.clone());
                    }
                    let Some(k_ends) = ends.get(&k) else {
                        continue;
                    };
                    let at = next_end.entry(k).or_default();
                    while k_ends.get(*at).is_some_and(|(end, _, _)| *end <= i) {
                        *at += 1;
                    }
                    if let Some((_, failed, output)) = k_ends.get(*at) {
                        res.is_error = *failed;
                        res.text = output.clone();
                    }
                }
            }
            Entry::Assistant(a) if later.name_waits => {
                for c in &mut a.tool_calls {
                    if let Some(k) = (later.waited_on)(c)
                        && let Some(command) = running.get(&k)
                    {
                        c.summary = format!("{} ({command})", c.summary).into();
                    }
                }
            }
            _ => {}
        }
    }
}
