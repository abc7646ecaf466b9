//! A memory as listings show it ([`MemoryEntry`]), read from its front matter, or from
//! the header of a memory written by the original design (docs/design.md §4.6).

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::document::{FrontMatter, sections};
use super::file::{MAX_MEMORY_BYTES, lossy, parse_file_name, read_head_bytes};
use super::order::OrderKey;
use crate::agent::Agent;
use crate::fsutil;
use crate::lang::Lang;
use crate::provenance::{Provenance, WriterKey, verdict};
use crate::summary::labels::Section;
use crate::text::{one_line, prefix_chars};

/// A memory as `list-memories` shows it (`--json` schema, version 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryEntry {
    /// File name, e.g. `20260129_173000_ff246da3.md`.
    pub file: String,
    /// Its path.
    pub path: PathBuf,
    /// RFC 3339 with offset (memories of the original design: local time, no offset).
    pub created: String,
    /// `YYYY-MM-DD HH:MM`, for people.
    pub date: String,
    /// The session's id.
    pub session_id: String,
    /// The first 8 characters of the session id.
    pub session: String,
    /// What started the compaction: `auto`, `manual`, or `unknown`.
    pub trigger: String,
    /// Which agent the session ran in: `claude-code` or `codex`.
    pub agent: Agent,
    /// Tasks in its task list.
    pub tasks_total: usize,
    /// Of those, not completed.
    pub tasks_open: usize,
    /// Its headline.
    pub summary: String,
    /// Who wrote its summary: `offline`, or `backend:model`.
    pub summary_source: String,
    /// The file's size.
    pub size_bytes: u64,
    /// Larger than the tools read (`MAX_MEMORY_BYTES`): listed and found by its front
    /// matter, searched in its first 8 MiB, but `show` says so instead of printing it.
    pub too_large: bool,
    /// Format version: 1, or 0 for the original design's files.
    pub format: u32,
    /// The language of its headings.
    pub lang: Lang,
    /// Whether this machine's memory-stalker wrote it (docs/design.md §4.10): a foreign
    /// memory is listed and found, never recalled or counted by `prune --keep`.
    pub provenance: Provenance,
    /// Dated more than ten minutes after now: never `latest`, never recalled (§4.9).
    pub future: bool,
    /// Where it goes among the memories (the time of writing); not in the JSON.
    #[serde(skip)]
    pub order: OrderKey,
}

impl MemoryEntry {
    /// Whether it counts as the user's own: written here and not dated in the future.
    pub fn is_own(&self) -> bool {
        self.provenance == Provenance::Ours && !self.future
    }

    /// What listings mark it with when it is not the user's own: `foreign` (not written
    /// by memory-stalker on this machine), `future` (dated more than ten minutes ahead),
    /// or both.
    pub fn mark(&self) -> Option<&'static str> {
        match (self.provenance, self.future) {
            (Provenance::Ours, false) => None,
            (Provenance::Ours, true) => Some("future"),
            (Provenance::Foreign, false) => Some("foreign"),
            (Provenance::Foreign, true) => Some("foreign, future"),
        }
    }
}

/// Largest legacy memory read in full to find its header.
pub(crate) const MAX_LEGACY_LEN: usize = 1024 * 1024;
/// [`MAX_LEGACY_LEN`] as a file size.
pub(crate) const MAX_LEGACY_BYTES: u64 = MAX_LEGACY_LEN as u64;

/// When a memory was created, as local time.
pub fn created_at(e: &MemoryEntry) -> Option<chrono::DateTime<chrono::Local>> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(&e.created) {
        return Some(t.with_timezone(&chrono::Local));
    }
    let naive = chrono::NaiveDateTime::parse_from_str(&e.created, "%Y-%m-%dT%H:%M:%S")
        .or_else(|_| chrono::NaiveDateTime::parse_from_str(&e.created, "%Y-%m-%d %H:%M:%S"))
        .ok()?;
    naive.and_local_timezone(chrono::Local).earliest()
}

pub(crate) fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Reads a memory's listing entry: its front matter, or the header of an old memory;
/// its provenance under `key`.
pub fn read_entry(path: &Path, key: Option<&WriterKey>) -> Result<MemoryEntry, String> {
    let opened = fsutil::open_regular_with_metadata(path, false, None);
    read_opened_entry(path, opened, &mut Vec::new(), key)
}

/// [`read_entry`] of the file at `path`, already `opened` (as [`fsutil::open_regular`]
/// opens it, links refused), with a read buffer kept from one memory to the next.
pub(crate) fn read_opened_entry(
    path: &Path,
    opened: std::io::Result<(std::fs::File, std::fs::Metadata)>,
    buf: &mut Vec<u8>,
    key: Option<&WriterKey>,
) -> Result<MemoryEntry, String> {
    // One open gives both the metadata and the front matter. A file that cannot be
    // opened as a regular file goes the way it always went, for the same error: its
    // metadata by path, then the reader of old memories.
    let (meta, head, provenance) = match opened {
        Ok((file, meta)) => {
            let mut provenance = Provenance::Foreign;
            let head = read_head_bytes(file, buf).and_then(|end| {
                let text = lossy(&buf[..end]);
                provenance = verdict(key, &file_name(path), &text);
                FrontMatter::parse_for_listing(&text).map(|(fm, ns, _)| (fm, ns))
            });
            (meta, head, provenance)
        }
        Err(_) => (
            fs::symlink_metadata(path).map_err(|e| format!("cannot read: {e}"))?,
            None,
            Provenance::Foreign,
        ),
    };
    let (fm, written_ns) = match head {
        Some(head) => head,
        None => (legacy_front_matter(path, meta.len())?, None),
    };
    entry_from(
        path,
        meta.len(),
        meta.modified().ok(),
        fm,
        written_ns,
        provenance,
    )
}

/// The listing entry of the memory at `path` from what was read of it.
pub(crate) fn entry_from(
    path: &Path,
    size: u64,
    modified: Option<std::time::SystemTime>,
    fm: FrontMatter,
    written_ns: Option<u64>,
    provenance: Provenance,
) -> Result<MemoryEntry, String> {
    let name = file_name(path);
    if fm.session_id.is_empty() && fm.created.is_empty() {
        return Err("front matter without session_id or created".into());
    }
    let order = OrderKey::new(&name, &fm.created, written_ns, modified);
    let future = super::order::is_future(&fm.created, written_ns, std::time::SystemTime::now());
    let created = if fm.created.is_empty() {
        created_from_name(&name).unwrap_or_default()
    } else {
        fm.created
    };
    let session_id = if fm.session_id.is_empty() {
        parse_file_name(&name)
            .map(|(_, s, _)| s.to_string())
            .unwrap_or_default()
    } else {
        fm.session_id
    };
    // What a file says is printed on terminals and written to INDEX.md: no escape
    // sequence in a memory (an old one, or one edited by hand) reaches either.
    let session_id = clean(session_id);
    Ok(MemoryEntry {
        date: clean(display_date(&created)),
        session: prefix_chars(&session_id, 8).to_string(),
        session_id,
        created: clean(created),
        file: clean(name),
        path: path.to_path_buf(),
        trigger: clean(fm.trigger.into()),
        agent: fm.agent,
        tasks_total: fm.task_count,
        // A hand-edited count cannot say "9 of 7 open".
        tasks_open: fm.tasks_open.min(fm.task_count),
        summary: clean(fm.summary),
        summary_source: clean(fm.summary_source),
        size_bytes: size,
        too_large: size > MAX_MEMORY_BYTES,
        format: fm.format,
        lang: fm.lang,
        provenance,
        future,
        order,
    })
}

/// `s` as [`crate::untrusted::clean`] leaves it (no control, bidirectional or invisible
/// character), kept as it is (no copy) when it has none.
fn clean(s: String) -> String {
    match crate::untrusted::clean(&s) {
        std::borrow::Cow::Owned(stripped) => Some(stripped),
        std::borrow::Cow::Borrowed(_) => None,
    }
    .unwrap_or(s)
}

/// `YYYY-MM-DD HH:MM` of an RFC 3339 or naive timestamp.
pub(crate) fn display_date(created: &str) -> String {
    prefix_chars(created, 16).replace('T', " ")
}

pub(crate) fn created_from_name(name: &str) -> Option<String> {
    let (ts, _, _) = parse_file_name(name)?;
    let t = chrono::NaiveDateTime::parse_from_str(ts, "%Y%m%d_%H%M%S").ok()?;
    Some(t.format("%Y-%m-%dT%H:%M:%S").to_string())
}

/// Reads a memory written by the original design: a `# 会话记忆 - <date>` (or English)
/// title, `- Session ID: …` metadata, a task list, and a task summary.
fn legacy_front_matter(path: &Path, size: u64) -> Result<FrontMatter, String> {
    if size > MAX_LEGACY_BYTES {
        return Err("no front matter, and too large to be an old-format memory".into());
    }
    let text = crate::fsutil::read_regular(path, MAX_LEGACY_BYTES)
        .map_err(|e| format!("cannot read: {e}"))?;
    legacy_from_text(&text)
}

/// [`legacy_front_matter`] of a text already read (at most [`MAX_LEGACY_BYTES`]).
pub(crate) fn legacy_from_text(text: &str) -> Result<FrontMatter, String> {
    if text.starts_with("---") {
        return Err("its front matter is not closed by a `---` line".into());
    }
    let title = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("# "))
        .ok_or("no front matter and no memory title".to_string())?;
    let lang = if title.contains("会话记忆") {
        Lang::Zh
    } else {
        Lang::En
    };
    let field = |names: &[&str]| {
        text.lines().find_map(|l| {
            let l = l.trim_start_matches(['-', '*', ' ']);
            names.iter().find_map(|n| {
                l.strip_prefix(n)
                    .and_then(|rest| rest.trim_start().strip_prefix([':', '：']))
                    .map(|v| v.trim().trim_matches('`').to_string())
            })
        })
    };
    let session_id = field(&["Session ID", "Session", "会话 ID"])
        .ok_or("no front matter and no Session ID line".to_string())?;
    let created = field(&["生成时间", "Time", "Saved at", "Created"])
        .or_else(|| title.rsplit(" - ").next().map(str::to_string))
        .map(|t| t.replace(' ', "T"))
        .unwrap_or_default();
    let created = if chrono::NaiveDateTime::parse_from_str(&created, "%Y-%m-%dT%H:%M:%S").is_ok() {
        created
    } else {
        String::new()
    };
    let (mut total, mut open) = (0, 0);
    let mut summary = String::new();
    for span in sections(text) {
        let body = &text[span.range.clone()];
        match span.section {
            Section::Tasks => {
                for l in body.lines().map(str::trim_start) {
                    if l.starts_with("- [x]") || l.starts_with("- [X]") {
                        total += 1;
                    } else if l.starts_with("- [ ]") {
                        total += 1;
                        open += 1;
                    }
                }
            }
            Section::AiSummary if summary.is_empty() => {
                summary = body
                    .lines()
                    .skip_while(|l| {
                        !(l.starts_with("### 任务摘要")
                            || l.starts_with("### Task summary")
                            || l.starts_with("### Task Summary"))
                    })
                    .skip(1)
                    .find_map(|l| l.trim().strip_prefix("- "))
                    .map(|s| one_line(s, super::super::summary::HEADLINE_CHARS))
                    .unwrap_or_default();
            }
            _ => {}
        }
    }
    Ok(FrontMatter {
        format: 0,
        session_id,
        created,
        trigger: field(&["触发方式", "Trigger"]).unwrap_or_default().into(),
        project: field(&["项目路径", "Project"]).unwrap_or_default(),
        task_count: total,
        tasks_open: open,
        summary,
        summary_source: String::new(),
        lang,
        ..FrontMatter::default()
    })
}
