//! A transcript's outline, read forwards in one pass: whose session it is (its id, the
//! directory it started in, whether a sub-agent's), its first request, and where each
//! compaction came. What `list-memories import` needs to save a past session as the
//! hooks would have saved it (docs/design.md §7.11); the memories themselves are read
//! by [`super::Transcript::read`], up to each of these places.
//!
//! Only the lines that can say something are parsed: those of the file's head (until
//! the session's fields and first request are known), a line that names a compaction,
//! and the lines after each compaction until the conversation goes on. Every other line
//! is passed over after a search for the compaction's literal, so a gigabyte of
//! history costs one read of its bytes.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use chrono::{DateTime, FixedOffset};

use super::record::{Entry, LineOptions, Record};
use super::skim::Cost;
use super::{Dialect, codex, prompt};
use crate::Error;
use crate::agent::Agent;

/// Lines of a file's start parsed for the session's fields and its first request.
const HEAD_LINES: usize = 5_000;
/// Bytes of a file's start parsed for them.
const HEAD_BYTES: u64 = 32 * 1024 * 1024;
/// Lines read back from the end for the session's last time stamp.
const TAIL_LINES: usize = 200;

/// What [`outline`] found in a transcript.
#[derive(Debug, Clone, Default)]
pub struct Outline {
    /// Which agent wrote it.
    pub agent: Agent,
    /// The session's id (of its first main-chain record that has one).
    pub session_id: Option<String>,
    /// The directory the session started in: the first main-chain `cwd` (Claude Code),
    /// or the rollout's `session_meta` (Codex).
    pub cwd: Option<String>,
    /// Whether it is a sub-agent's transcript (`agent-*.jsonl`, a file whose records are
    /// all sidechain, a Codex thread a sub-agent spawn started).
    pub sub_agent: bool,
    /// The session's first request (docs/design.md §3.3), when one was found in its head.
    pub first_request: Option<String>,
    /// The compactions, in file order.
    pub compactions: Vec<Compaction>,
    /// Bytes of whole lines: a last line without its line feed (a session still being
    /// written, or cut by a crash) is not part of the session yet.
    pub complete: u64,
    /// The time stamp of the last record that has one.
    pub last_time: Option<DateTime<FixedOffset>>,
    /// Whether the conversation goes on after the last compaction (with none: whether
    /// there is any conversation at all): a request, a reply or a tool call.
    pub goes_on: bool,
}

/// Where a compaction came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compaction {
    /// Byte offset of its boundary record (Claude Code's `compact_boundary`, Codex's
    /// `compacted`): the transcript as it was when the compaction came ends there.
    pub offset: u64,
    /// The boundary's time stamp.
    pub at: Option<DateTime<FixedOffset>>,
}

/// Reads the outline of the transcript at `path`, a regular file (a link is refused:
/// it is not a session Claude Code or Codex wrote there).
pub fn outline(path: &Path) -> Result<Outline, Error> {
    let io_err = |source| Error::Transcript {
        path: path.to_path_buf(),
        source,
    };
    let (file, len) = crate::fsutil::open_regular(path, false, None).map_err(io_err)?;
    let dialect = Dialect::of_file(&file, len).map_err(io_err)?;
    let mut out = Outline {
        agent: dialect.agent,
        sub_agent: super::sub_agent_id(path).is_some(),
        ..Outline::default()
    };
    if let Some(session) = dialect.session.as_ref().and_then(|m| m.session.as_ref()) {
        out.session_id.clone_from(&session.session_id);
        out.cwd.clone_from(&session.cwd);
    }
    if dialect.agent == Agent::Codex {
        let start = super::read_start(&file, len, codex::MAX_META_LINE).map_err(io_err)?;
        out.sub_agent |= codex_sub_agent(&start);
    }
    let mut scan = Scan::new(dialect);
    let mut reader = BufReader::with_capacity(1 << 20, (&file).take(len));
    let mut line = Vec::new();
    let mut offset = 0u64;
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(io_err)?;
        if n == 0 || line.last() != Some(&b'\n') {
            break;
        }
        scan.line(&line[..n - 1], offset, &mut out);
        offset += n as u64;
    }
    out.complete = offset;
    out.last_time = last_time(&file, offset, &scan.dialect);
    Ok(out)
}

/// The state of one forward pass.
struct Scan {
    dialect: Dialect,
    boundary: memchr::memmem::Finder<'static>,
    lines: usize,
    head_done: bool,
    /// The first main-chain record's chain is known (Claude Code).
    chain_known: bool,
}

impl Scan {
    fn new(dialect: Dialect) -> Scan {
        let literal: &'static [u8] = match dialect.agent {
            Agent::ClaudeCode => b"compact_boundary",
            Agent::Codex => b"\"compacted\"",
        };
        Scan {
            dialect,
            boundary: memchr::memmem::Finder::new(literal),
            lines: 0,
            head_done: false,
            chain_known: false,
        }
    }

    fn parse(&self, line: &[u8]) -> Option<Record> {
        self.dialect
            .parse(line, &LineOptions::default(), &mut Cost::default())
            .ok()
    }

    /// Takes in the line at `offset` (without its line feed).
    fn line(&mut self, line: &[u8], offset: u64, out: &mut Outline) {
        self.lines += 1;
        if !self.head_done && (self.lines > HEAD_LINES || offset > HEAD_BYTES) {
            self.head_done = true;
        }
        let names_boundary = self.boundary.find(line).is_some();
        if self.head_done && out.goes_on && !names_boundary {
            return;
        }
        let Some(record) = self.parse(line) else {
            return;
        };
        if !self.head_done {
            self.head(&record, out);
        }
        if matches!(record.entry, Entry::CompactBoundary) && !record.meta.sidechain {
            out.compactions.push(Compaction {
                offset,
                at: stamp(&record),
            });
            out.goes_on = false;
        } else if !out.goes_on {
            out.goes_on = goes_on(&record, self.dialect.agent);
        }
    }

    /// What the head of the file says: the session's fields, whether it is a
    /// sub-agent's, its first request.
    fn head(&mut self, record: &Record, out: &mut Outline) {
        if let Some(s) = &record.meta.session {
            if !self.chain_known && self.dialect.agent == Agent::ClaudeCode {
                // A sub-agent's own file: every record is sidechain, the first too.
                self.chain_known = true;
                out.sub_agent |= record.meta.sidechain;
            }
            if !record.meta.sidechain {
                if out.session_id.is_none() {
                    out.session_id.clone_from(&s.session_id);
                }
                if out.cwd.is_none() {
                    out.cwd.clone_from(&s.cwd);
                }
            }
        }
        if out.first_request.is_none() {
            out.first_request = prompt::prompt_text(record);
        }
        self.head_done =
            out.first_request.is_some() && out.session_id.is_some() && out.cwd.is_some();
    }
}

/// Whether a record shows the conversation going on: a request, a reply or a tool call
/// (a compaction's own summary, Claude Code's synthetic records and bookkeeping do not).
fn goes_on(record: &Record, agent: Agent) -> bool {
    if record.meta.sidechain {
        return false;
    }
    match (&record.entry, agent) {
        (_, Agent::Codex) => codex::goes_on(record) || super::is_tool_record(record),
        (Entry::Assistant(a), _) => !a.synthetic,
        (Entry::User(_) | Entry::Queued(_), _) => {
            prompt::prompt_text(record).is_some() || super::is_tool_record(record)
        }
        _ => false,
    }
}

/// A record's time stamp, when it has a readable one.
fn stamp(record: &Record) -> Option<DateTime<FixedOffset>> {
    record
        .meta
        .timestamp()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
}

/// The time stamp of the last record before `end` that has one (the last
/// [`TAIL_LINES`] lines are looked at).
fn last_time(file: &std::fs::File, end: u64, dialect: &Dialect) -> Option<DateTime<FixedOffset>> {
    let mut lines = super::ReverseLines::new(file, end);
    for _ in 0..TAIL_LINES {
        let (_, line) = lines.next_line().ok()??;
        let parsed = dialect.parse(line, &LineOptions::default(), &mut Cost::default());
        if let Some(t) = parsed.ok().as_ref().and_then(stamp) {
            return Some(t);
        }
    }
    None
}

/// Whether a rollout's `session_meta` says a sub-agent started the thread: Codex records
/// a spawned thread's `source` as `{"subagent": …}` (and names it in `thread_source`).
fn codex_sub_agent(start: &[u8]) -> bool {
    let first = start.trim_ascii_start();
    let first = &first[..memchr::memchr(b'\n', first).unwrap_or(first.len())];
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(first) else {
        return false;
    };
    let payload = &v["payload"];
    let names_sub_agent = |s: &str| {
        let s = s.to_ascii_lowercase().replace(['_', '-'], "");
        s.contains("subagent")
    };
    let source = match &payload["source"] {
        serde_json::Value::String(s) => names_sub_agent(s),
        serde_json::Value::Object(o) => o.keys().any(|k| names_sub_agent(k)),
        _ => false,
    };
    let thread = payload["thread_source"]
        .as_str()
        .is_some_and(names_sub_agent);
    source || thread
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    const USER: &str = r#"{"type":"user","sessionId":"s1","cwd":"/p","isSidechain":false,"timestamp":"2026-01-01T10:00:00Z","message":{"role":"user","content":"Add retries"}}"#;
    const REPLY: &str = r#"{"type":"assistant","sessionId":"s1","cwd":"/p/sub","isSidechain":false,"timestamp":"2026-01-01T10:01:00Z","message":{"id":"m1","role":"assistant","model":"x","content":[{"type":"text","text":"Done."}]}}"#;
    const BOUNDARY: &str = r#"{"type":"system","subtype":"compact_boundary","sessionId":"s1","isSidechain":false,"timestamp":"2026-01-01T11:00:00Z","content":"Conversation compacted"}"#;

    #[test]
    fn compactions_the_start_and_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let text = format!("{USER}\n{REPLY}\n{BOUNDARY}\n{REPLY}\n{{\"type\":\"user\",\"half");
        let p = write(dir.path(), "s1.jsonl", &text);
        let o = outline(&p).unwrap();
        assert_eq!(o.agent, Agent::ClaudeCode);
        assert_eq!(o.session_id.as_deref(), Some("s1"));
        assert_eq!(
            o.cwd.as_deref(),
            Some("/p"),
            "where it started, not where it went"
        );
        assert_eq!(o.first_request.as_deref(), Some("Add retries"));
        assert!(!o.sub_agent);
        let at = (USER.len() + REPLY.len() + 2) as u64;
        assert_eq!(o.compactions.len(), 1);
        assert_eq!(o.compactions[0].offset, at);
        assert_eq!(
            o.compactions[0].at.unwrap().to_rfc3339(),
            "2026-01-01T11:00:00+00:00"
        );
        assert!(o.goes_on);
        assert_eq!(o.complete, (text.rfind('\n').unwrap() + 1) as u64);
        assert_eq!(
            o.last_time.unwrap().to_rfc3339(),
            "2026-01-01T10:01:00+00:00"
        );
        // Nothing after the compaction: the conversation does not go on.
        let p = write(dir.path(), "s2.jsonl", &format!("{USER}\n{BOUNDARY}\n"));
        assert!(!outline(&p).unwrap().goes_on);
    }

    #[test]
    fn sub_agents_are_told() {
        let dir = tempfile::tempdir().unwrap();
        let side = USER.replace("\"isSidechain\":false", "\"isSidechain\":true");
        let p = write(dir.path(), "x.jsonl", &format!("{side}\n"));
        assert!(outline(&p).unwrap().sub_agent);
        let p = write(dir.path(), "agent-a1b2.jsonl", &format!("{USER}\n"));
        assert!(outline(&p).unwrap().sub_agent);
        let meta = |source: &str| {
            format!(
                r#"{{"timestamp":"2026-01-01T10:00:00Z","type":"session_meta","payload":{{"id":"c1","cwd":"/p","cli_version":"0.169.0","source":{source}}}}}"#
            )
        };
        let p = write(
            dir.path(),
            "rollout-a.jsonl",
            &format!("{}\n", meta("\"cli\"")),
        );
        let o = outline(&p).unwrap();
        assert_eq!((o.agent, o.sub_agent), (Agent::Codex, false));
        assert_eq!(o.session_id.as_deref(), Some("c1"));
        let spawned = meta(r#"{"subagent":{"thread_spawn":{"parent_thread_id":"c0"}}}"#);
        let p = write(dir.path(), "rollout-b.jsonl", &format!("{spawned}\n"));
        assert!(outline(&p).unwrap().sub_agent);
    }

    #[test]
    fn a_link_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "s1.jsonl", &format!("{USER}\n"));
        let link = dir.path().join("s2.jsonl");
        std::os::unix::fs::symlink(&p, &link).unwrap();
        assert!(outline(&link).is_err());
        assert!(outline(&p).is_ok());
    }
}
