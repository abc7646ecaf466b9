//! OpenAI Codex CLI rollouts (`$CODEX_HOME/sessions/…/rollout-….jsonl`), read into the
//! same records as a Claude Code transcript, so that one extraction serves both
//! (docs/design.md §3.13).
//!
//! A rollout line is `{"timestamp", "type", "payload"}`: the first is `session_meta`,
//! `response_item`s are the conversation (messages, tool calls and their outputs),
//! `compacted` closes a segment (with Codex's own summary), and `turn_context`,
//! `event_msg`, `world_state`, `token_usage_record` and types of newer versions are
//! bookkeeping, read only for what they say about the session or skipped.
//!
//! The reader is the same as for Claude Code (from the end, to the last boundary, on
//! the same two threads); only the line parser and a few literal pre-filters differ.

mod line;
mod patch;
mod running;
mod shell;
mod title;
mod tools;

use std::path::Path;

pub(crate) use line::parse;
pub(crate) use running::settle as settle_running;
pub(crate) use title::thread_name;
pub(crate) use tools::command_output;

use super::record::{Entry, LineOptions, Meta, Record};
use super::reverse::ReverseLines;
use super::skim::Cost;
use crate::Error;
use crate::agent::Agent;

/// Bytes of a file's start read to tell its format.
pub(crate) const PROBE_BYTES: usize = 4_096;
/// Longest first line read for the session's metadata (the `session_meta` line holds
/// Codex's base instructions, some tens of kilobytes).
pub(crate) const MAX_META_LINE: usize = 1024 * 1024;

/// Which agent wrote a transcript, from the first bytes of the file: a Codex rollout's
/// lines start `{"timestamp":…` and carry their record in `"payload"`; no Claude Code
/// record does either. Whitespace between the tokens is allowed (Codex writes none, but
/// a rollout re-written by another JSON tool, as `json.dumps` writes it, is the same
/// rollout).
pub(crate) fn agent_of(start: &[u8]) -> Agent {
    let start = start.strip_prefix("\u{feff}".as_bytes()).unwrap_or(start);
    let first = start.trim_ascii_start();
    let first = &first[..memchr::memchr(b'\n', first).unwrap_or(first.len())];
    let opens_with_timestamp = first
        .strip_prefix(b"{")
        .is_some_and(|rest| key_then_colon(rest.trim_ascii_start(), b"\"timestamp\""));
    if opens_with_timestamp && has_key(first, b"\"type\"") && has_key(first, b"\"payload\"") {
        Agent::Codex
    } else {
        Agent::ClaudeCode
    }
}

/// Whether `at` starts with the quoted `key` and then, after any whitespace, a colon.
fn key_then_colon(at: &[u8], key: &[u8]) -> bool {
    at.strip_prefix(key)
        .is_some_and(|rest| rest.trim_ascii_start().starts_with(b":"))
}

/// Whether the quoted `key` occurs in `line` as an object key (followed by a colon).
fn has_key(line: &[u8], key: &[u8]) -> bool {
    memchr::memmem::find_iter(line, key).any(|at| key_then_colon(&line[at..], key))
}

/// The session's fields from a rollout's first line (`session_meta`): its id, working
/// directory, Codex version and git branch. `None` when the line is not one.
pub(crate) fn session_meta(start: &[u8]) -> Option<Meta> {
    let start = start.trim_ascii_start();
    let end = memchr::memchr(b'\n', start)?;
    let record = parse(&start[..end], &LineOptions::default(), &mut Cost::default()).ok()?;
    record
        .meta
        .session
        .as_ref()
        .is_some_and(|s| s.session_id.is_some())
        .then_some(record.meta)
}

/// Whether a raw line can be a request: a `user` message (or an interrupt, which the
/// request search must see as it does for Claude Code).
pub(crate) fn may_be_request(line: &[u8]) -> bool {
    memchr::memmem::find(line, br#""role":"user""#).is_some()
        || memchr::memmem::find(line, br#""role": "user""#).is_some()
}

/// Whether a raw line can change the task list: a call of the plan tool.
pub(crate) fn mentions_tasks(line: &[u8]) -> bool {
    memchr::memmem::find(line, b"update_plan").is_some()
}

/// Whether a raw line holds a tool's output (most of a long segment's bytes): parsed
/// on the reader thread, as Claude Code's tool results are.
pub(crate) fn holds_output(line: &[u8]) -> bool {
    memchr::memmem::find(line, b"_call_output\"").is_some()
}

/// Whether a record shows the conversation going on: a request, the assistant's text
/// or a tool call (Codex's compaction summary is none of these, and neither is the
/// `compacted` record, which Codex writes before PostCompact runs).
pub(crate) fn goes_on(r: &Record) -> bool {
    match &r.entry {
        Entry::Assistant(a) => !a.synthetic,
        Entry::User(_) => super::prompt::prompt_text(r).is_some(),
        _ => false,
    }
}

/// Codex's own summary of the last compaction of the rollout at `path`: the `message`
/// of its last `compacted` record, without the sentence Codex puts before the summary
/// for the model. `None` when the rollout has no compaction.
///
/// Read from the end: at PostCompact the `compacted` record is a few lines from it.
pub fn last_compaction_summary(path: &Path) -> Result<Option<String>, Error> {
    let io_err = |source| Error::Transcript {
        path: path.to_path_buf(),
        source,
    };
    let (file, len) = crate::fsutil::open_regular(path, true, None).map_err(io_err)?;
    let mut lines = ReverseLines::new(file, len);
    let mut read = 0u64;
    while let Some((_, line)) = lines.next_line().map_err(io_err)? {
        read += line.len() as u64;
        if read > super::MAX_READ_BYTES {
            break;
        }
        // Only a prefilter: the line is parsed below, whatever its spacing.
        if memchr::memmem::find(line, br#""compacted""#).is_none() {
            continue;
        }
        if let Some(message) = compacted_message(line) {
            return Ok(Some(message));
        }
    }
    Ok(None)
}

/// The summary in a `compacted` line's `message`, its lead-in removed.
fn compacted_message(line: &[u8]) -> Option<String> {
    use super::skim::Cursor;
    let mut kind = None;
    let mut message = None;
    Cursor::new(line).object(|c, key| {
        match key {
            b"type" => kind = Some(c.raw()?),
            b"payload" => {
                c.object(|c, key| {
                    if key == b"message" {
                        message = Some(c.raw()?);
                    }
                    Some(())
                })?;
            }
            _ => {}
        }
        Some(())
    })?;
    if kind != Some(br#""compacted""#.as_slice()) {
        return None;
    }
    let text = super::record::string(message, &mut Cost::default())?;
    // Bounded as a prompt is (its head and tail kept), control characters out; it is
    // redacted where it is written.
    Some(super::record::kept_text(
        summary_of(&text).to_string(),
        false,
    ))
}

/// The summary in the text Codex gives the model after a compaction: what follows the
/// lead-in ("Another language model started to solve this problem … Here is the
/// summary …:"), or the whole text when it has none.
fn summary_of(message: &str) -> &str {
    let t = message.trim();
    if t.starts_with(line::SUMMARY_PREFIX)
        && let Some(at) = t.find(":\n")
    {
        return t[at + 2..].trim();
    }
    t
}

#[cfg(test)]
mod tests;
