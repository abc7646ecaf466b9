//! Listing, finding, searching and pruning the memories of a project (SPEC §6).
//!
//! Listing reads front matter only. Memories written by the original design (no front
//! matter, Chinese or English headings) are read from their header instead. A file that
//! is neither is reported and skipped, never fatal.

use std::cmp::Reverse;
use std::fs;

use crate::text::strip_controls;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::document::{FrontMatter, sections};
use super::labels::Section;
use super::store::{
    MemoryStore, OrderKey, is_memory_file_name, lossy, parse_file_name, read_head_bytes,
};
use crate::Error;
use crate::fsutil;
use crate::lang::Lang;
use crate::text::one_line;

/// A memory as `list-memories` shows it (`--json` schema, version 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryEntry {
    /// File name, e.g. `20260129_173000_ff246da3.md`.
    pub file: String,
    pub path: PathBuf,
    /// RFC 3339 with offset (memories of the original design: local time, no offset).
    pub created: String,
    /// `YYYY-MM-DD HH:MM`, for people.
    pub date: String,
    pub session_id: String,
    /// The first 8 characters of the session id.
    pub session: String,
    pub trigger: String,
    pub tasks_total: usize,
    pub tasks_open: usize,
    pub summary: String,
    pub summary_source: String,
    pub size_bytes: u64,
    /// Format version: 1, or 0 for the original design's files.
    pub format: u32,
    pub lang: Lang,
    /// Where it goes among the memories (the time of writing); not in the JSON.
    #[serde(skip)]
    pub order: OrderKey,
}

/// A file in the memories directory that is not a readable memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub file: String,
    pub reason: String,
}

/// The memories of a directory, newest first (by the time of writing, see [`OrderKey`]),
/// and what was skipped.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Listing {
    pub memories: Vec<MemoryEntry>,
    /// Memories before `limit` or `filter` were applied.
    pub total: usize,
    pub skipped: Vec<Skipped>,
}

/// Largest legacy memory read in full to find its header.
const MAX_LEGACY_BYTES: u64 = 1024 * 1024;

impl MemoryStore {
    /// Lists memories, newest first. Only front matter is read, and only for as many
    /// files as needed when there is a `limit` and no `filter`.
    pub fn list(&self, limit: Option<usize>, filter: Option<&str>) -> Result<Listing, Error> {
        let (names, mut skipped) = self.scan()?;
        let filter = filter.map(str::to_lowercase).filter(|f| !f.is_empty());
        let mut listing = Listing::default();
        let mut buf = Vec::new();
        for name in names {
            if filter.is_none() && limit.is_some_and(|l| listing.memories.len() >= l) {
                // Unread files still count, as long as their names are memory names.
                listing.total += 1;
                continue;
            }
            match read_entry_with(&self.dir().join(&name), &mut buf) {
                Ok(entry) => {
                    if filter
                        .as_deref()
                        .is_some_and(|f| !matches_filter(&entry, f))
                    {
                        continue;
                    }
                    listing.total += 1;
                    if limit.is_none_or(|l| listing.memories.len() < l) {
                        listing.memories.push(entry);
                    }
                }
                Err(reason) => skipped.push(Skipped { file: name, reason }),
            }
        }
        listing.skipped = skipped;
        Ok(listing)
    }

    /// Names of the memory files, newest first, and the `.md` files that are not
    /// memories: one pass over the directory. Paths are made only for the files read.
    fn scan(&self) -> Result<(Vec<String>, Vec<Skipped>), Error> {
        let mut skipped = Vec::new();
        let names = self.memory_names(|name, is_file| {
            let reason = if is_file {
                "not a memory file name (YYYYMMDD_HHMMSS_<session>.md)"
            } else {
                "not a regular file (a symbolic link, FIFO or device); not read"
            };
            skipped.push(Skipped {
                file: name,
                reason: reason.into(),
            });
        })?;
        skipped.sort_by(|a, b| a.file.cmp(&b.file));
        Ok((names, skipped))
    }

    /// Resolves a `find` target (SPEC §6) to the memories it names, newest first.
    pub fn find(&self, target: &str) -> Result<Found, Error> {
        let target = target.trim();
        let kind = Target::parse(target);
        let scanned = self.scan()?;
        let mut found = self.find_target(&scanned, target, kind);
        // A date-looking target that names no date may still be a session prefix.
        if found.matches.is_empty()
            && matches!(found.kind, Target::Date(_))
            && target.chars().all(|c| c.is_ascii_hexdigit())
        {
            let by_session =
                self.find_target(&scanned, target, Target::Session(target.to_string()));
            if !by_session.matches.is_empty() {
                found = by_session;
            }
        }
        Ok(found)
    }

    /// The memories among `scanned` ([`MemoryStore::scan`]) that `kind` names.
    fn find_target(
        &self,
        (names, skipped): &(Vec<String>, Vec<Skipped>),
        target: &str,
        kind: Target,
    ) -> Found {
        let mut skipped = skipped.clone();
        let candidates: Vec<&String> = match &kind {
            Target::Latest | Target::Index(_) => names.iter().collect(),
            Target::File(name) => {
                let want = if name.ends_with(".md") {
                    name.clone()
                } else {
                    format!("{name}.md")
                };
                names.iter().filter(|n| **n == want).collect()
            }
            Target::Date(prefix) => names
                .iter()
                .filter(|n| {
                    parse_file_name(n).is_some_and(|(ts, _, _)| ts.starts_with(prefix.as_str()))
                })
                .collect(),
            Target::Session(prefix) => {
                // The file name holds the first 8 characters of the id; the front
                // matter is checked for longer prefixes below.
                let short: String = prefix.to_lowercase().chars().take(8).collect();
                names
                    .iter()
                    .filter(|n| {
                        parse_file_name(n).is_some_and(|(_, sid, _)| {
                            // A name's sid is ASCII: lower-cased byte by byte, as
                            // `to_lowercase` would, without a copy of each.
                            sid.get(..short.len())
                                .is_some_and(|p| p.eq_ignore_ascii_case(&short))
                        })
                    })
                    .collect()
            }
        };
        // Latest and #N stop reading as soon as they have what they need.
        let wanted = match kind {
            Target::Latest => Some(1),
            Target::Index(n) => Some(n),
            _ => None,
        };
        let mut matches = Vec::new();
        let mut buf = Vec::new();
        for name in candidates {
            if wanted.is_some_and(|w| matches.len() >= w) {
                break;
            }
            match read_entry_with(&self.dir().join(name), &mut buf) {
                Ok(e) => matches.push(e),
                Err(reason) => skipped.push(Skipped {
                    file: name.clone(),
                    reason,
                }),
            }
        }
        match &kind {
            Target::Index(n) => matches = matches.into_iter().skip(n - 1).collect(),
            Target::Session(prefix) => {
                let prefix = prefix.to_lowercase();
                matches.retain(|e| e.session_id.to_lowercase().starts_with(&prefix));
            }
            _ => {}
        }
        Found {
            target: target.to_string(),
            kind,
            matches,
            skipped,
        }
    }

    /// Full-text search of the memories' text, case-insensitive; every word of `query`
    /// must occur. Ranked by number of hits, then newest first (time of writing).
    pub fn search(&self, query: &str) -> Result<Vec<SearchHit>, Error> {
        let words: Vec<String> = query
            .split_whitespace()
            .map(str::to_lowercase)
            .filter(|w| !w.is_empty())
            .collect();
        if words.is_empty() {
            return Ok(Vec::new());
        }
        let (names, _) = self.scan()?;
        let mut hits = Vec::new();
        for name in names {
            let path = self.dir().join(name);
            let Ok(text) = MemoryStore::read(&path) else {
                continue;
            };
            let body = FrontMatter::parse(&text).map_or(text.as_str(), |(_, start)| &text[start..]);
            let folded = Folded::new(body);
            let mut count = 0;
            // The snippet goes where the words occur together, if they do; otherwise
            // where the rarest word first occurs.
            let phrase = words.join(" ");
            let mut anchor = folded.lower.find(&phrase).map(|p| (p, phrase.len(), 0));
            for w in &words {
                let positions: Vec<usize> = folded
                    .lower
                    .match_indices(w.as_str())
                    .map(|(i, _)| i)
                    .collect();
                if positions.is_empty() {
                    count = 0;
                    break;
                }
                count += positions.len();
                if anchor.is_none_or(|(_, _, n)| n > 0 && positions.len() < n) {
                    anchor = Some((positions[0], w.len(), positions.len()));
                }
            }
            if count == 0 {
                continue;
            }
            let Ok(entry) = read_entry(&path) else {
                continue;
            };
            let (pos, len, _) = anchor.unwrap_or((0, 0, 0));
            hits.push(SearchHit {
                snippet: strip_controls(&folded.snippet(pos, len, SNIPPET_CHARS)).into_owned(),
                hits: count,
                memory: entry,
            });
        }
        hits.sort_by(|a, b| {
            (Reverse(a.hits), Reverse(&a.memory.order))
                .cmp(&(Reverse(b.hits), Reverse(&b.memory.order)))
        });
        Ok(hits)
    }

    /// Deletes memories beyond the newest `keep`, or created more than `older_than_days`
    /// ago (whichever are given). Only files recognised as memories are ever touched.
    pub fn prune(
        &self,
        keep: Option<usize>,
        older_than_days: Option<u64>,
        now: chrono::DateTime<chrono::Local>,
        dry_run: bool,
    ) -> Result<Vec<MemoryEntry>, Error> {
        let listing = self.list(None, None)?;
        let cutoff = older_than_days.map(|d| now - chrono::Duration::days(d as i64));
        let doomed: Vec<MemoryEntry> = listing
            .memories
            .into_iter()
            .enumerate()
            .filter(|(i, e)| {
                keep.is_some_and(|k| *i >= k)
                    || cutoff.is_some_and(|c| created_at(e).is_some_and(|t| t < c))
            })
            .map(|(_, e)| e)
            .collect();
        if !dry_run {
            for e in &doomed {
                // Under the memory's lock: a summary worker in the middle of rewriting
                // it would otherwise put it back after it was deleted.
                let lock_path = self.lock_path(&e.file);
                let lock = crate::fsutil::Lock::acquire(&lock_path)
                    .map_err(|err| Error::store("cannot lock", &lock_path, err))?;
                fs::remove_file(&e.path)
                    .map_err(|err| Error::store("cannot delete", &e.path, err))?;
                let _ = fs::remove_file(&lock_path);
                drop(lock);
            }
        }
        Ok(doomed)
    }
}

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

/// What a `find` target names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Target {
    Latest,
    /// `#N`: the N-th newest.
    Index(usize),
    File(String),
    /// A prefix of `YYYYMMDD_HHMMSS`.
    Date(String),
    Session(String),
}

impl Target {
    /// Classifies a target: `latest`, `#N`, a file name, a date (`20260129`,
    /// `2026-01-29`, `2026-01-29 17:30`), else a session-id prefix.
    pub fn parse(t: &str) -> Target {
        let lower = t.to_ascii_lowercase();
        if matches!(lower.as_str(), "latest" | "last" | "newest") {
            return Target::Latest;
        }
        if let Some(n) = t
            .strip_prefix('#')
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n > 0)
        {
            return Target::Index(n);
        }
        if t.ends_with(".md") || is_memory_file_name(&format!("{t}.md")) {
            return Target::File(t.rsplit('/').next().unwrap_or(t).to_string());
        }
        if let Some(prefix) = date_prefix(t) {
            return Target::Date(prefix);
        }
        Target::Session(t.to_string())
    }
}

/// `2026-01-29`, `20260129`, `2026-01-29 17:30`, `202601` → a prefix of `YYYYMMDD_HHMMSS`.
fn date_prefix(t: &str) -> Option<String> {
    let (date, time) = match t.split_once([' ', 'T', '_']) {
        Some((d, t)) => (d, Some(t)),
        None => (t, None),
    };
    let digits: String = date.chars().filter(|c| *c != '-').collect();
    let dashed_ok = !date.contains('-') || date.len() == digits.len() + date.matches('-').count();
    if !dashed_ok
        || digits.len() < 6
        || digits.len() > 8
        || !digits.chars().all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let year: u32 = digits[..4].parse().ok()?;
    let month: u32 = digits[4..6].parse().ok()?;
    if !(2000..=2099).contains(&year) || !(1..=12).contains(&month) {
        return None;
    }
    if digits.len() == 8 {
        let day: u32 = digits[6..8].parse().ok()?;
        if !(1..=31).contains(&day) {
            return None;
        }
    } else if digits.len() != 6 {
        return None;
    }
    let mut prefix = digits;
    if let Some(time) = time {
        let tdigits: String = time.chars().filter(|c| *c != ':').collect();
        if tdigits.is_empty()
            || tdigits.len() > 6
            || !tdigits.chars().all(|c| c.is_ascii_digit())
            || prefix.len() != 8
        {
            return None;
        }
        prefix.push('_');
        prefix.push_str(&tdigits);
    }
    Some(prefix)
}

/// What `find` found.
#[derive(Debug, Clone, Serialize)]
pub struct Found {
    pub target: String,
    pub kind: Target,
    pub matches: Vec<MemoryEntry>,
    pub skipped: Vec<Skipped>,
}

/// One memory that matched a search.
#[derive(Debug, Clone, Serialize)]
pub struct SearchHit {
    #[serde(flatten)]
    pub memory: MemoryEntry,
    /// Occurrences of the query's words.
    pub hits: usize,
    /// One line around the first occurrence.
    pub snippet: String,
}

const SNIPPET_CHARS: usize = 120;

/// A text lower-cased for matching, with a map back to the original's byte offsets so a
/// snippet shows the original text and never splits a character.
struct Folded<'a> {
    original: &'a str,
    lower: String,
    /// For each byte of `lower`, the byte offset of its character in `original`.
    back: Vec<usize>,
}

impl<'a> Folded<'a> {
    fn new(original: &'a str) -> Folded<'a> {
        let mut lower = String::with_capacity(original.len());
        let mut back = Vec::with_capacity(original.len());
        for (i, c) in original.char_indices() {
            for l in c.to_lowercase() {
                let before = lower.len();
                lower.push(l);
                back.extend(std::iter::repeat_n(i, lower.len() - before));
            }
        }
        Folded {
            original,
            lower,
            back,
        }
    }

    /// About `width` characters of the original around the match at `pos` in `lower`,
    /// from the line the match is on.
    fn snippet(&self, pos: usize, len: usize, width: usize) -> String {
        let start = self.back.get(pos).copied().unwrap_or(0);
        let end = self
            .back
            .get(pos + len)
            .copied()
            .unwrap_or(self.original.len())
            .max(start);
        let line_start = self.original[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = self.original[end..]
            .find('\n')
            .map_or(self.original.len(), |i| end + i);
        let before: Vec<(usize, char)> = self.original[line_start..start]
            .char_indices()
            .rev()
            .take(width / 3)
            .collect();
        let from = before.last().map_or(start, |(i, _)| line_start + i);
        let after_chars = width.saturating_sub(self.original[from..end].chars().count());
        let to = self.original[end..line_end]
            .char_indices()
            .nth(after_chars)
            .map_or(line_end, |(i, _)| end + i);
        let mut s = self.original[from..to].trim().to_string();
        if from > line_start {
            s.insert(0, '…');
        }
        if to < line_end {
            s.push('…');
        }
        s
    }
}

fn matches_filter(e: &MemoryEntry, f: &str) -> bool {
    [
        &e.summary,
        &e.session_id,
        &e.file,
        &e.date,
        &e.trigger,
        &e.summary_source,
    ]
    .iter()
    .any(|v| v.to_lowercase().contains(f))
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Reads a memory's listing entry: its front matter, or the header of an old memory.
pub fn read_entry(path: &Path) -> Result<MemoryEntry, String> {
    read_entry_with(path, &mut Vec::new())
}

/// [`read_entry`] with a read buffer kept from one memory to the next.
fn read_entry_with(path: &Path, buf: &mut Vec<u8>) -> Result<MemoryEntry, String> {
    // One open gives both the metadata and the front matter. A file that cannot be
    // opened as a regular file goes the way it always went, for the same error: its
    // metadata by path, then the reader of old memories.
    let (meta, head) = match fsutil::open_regular_with_metadata(path, false, None) {
        Ok((file, meta)) => {
            let head = read_head_bytes(file, buf).and_then(|end| {
                FrontMatter::parse_for_listing(&lossy(&buf[..end])).map(|(fm, ns, _)| (fm, ns))
            });
            (meta, head)
        }
        Err(_) => (
            fs::symlink_metadata(path).map_err(|e| format!("cannot read: {e}"))?,
            None,
        ),
    };
    let (fm, written_ns) = match head {
        Some(head) => head,
        None => (legacy_front_matter(path, meta.len())?, None),
    };
    entry_from(path, meta.len(), meta.modified().ok(), fm, written_ns)
}

/// The listing entry of the memory at `path` from what was read of it.
fn entry_from(
    path: &Path,
    size: u64,
    modified: Option<std::time::SystemTime>,
    fm: FrontMatter,
    written_ns: Option<u64>,
) -> Result<MemoryEntry, String> {
    let name = file_name(path);
    if fm.session_id.is_empty() && fm.created.is_empty() {
        return Err("front matter without session_id or created".into());
    }
    let order = OrderKey::new(&name, written_ns, modified);
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
        session: session_id.chars().take(8).collect(),
        session_id,
        created: clean(created),
        file: clean(name),
        path: path.to_path_buf(),
        trigger: clean(fm.trigger),
        tasks_total: fm.task_count,
        tasks_open: fm.tasks_open,
        summary: clean(fm.summary),
        summary_source: clean(fm.summary_source),
        size_bytes: size,
        format: fm.format,
        lang: fm.lang,
        order,
    })
}

/// `s` without control characters but newlines and tabs ([`strip_controls`]), kept
/// as it is (no copy) when it has none.
fn clean(s: String) -> String {
    match strip_controls(&s) {
        std::borrow::Cow::Owned(stripped) => Some(stripped),
        std::borrow::Cow::Borrowed(_) => None,
    }
    .unwrap_or(s)
}

/// `YYYY-MM-DD HH:MM` of an RFC 3339 or naive timestamp.
fn display_date(created: &str) -> String {
    created
        .chars()
        .take(16)
        .map(|c| if c == 'T' { ' ' } else { c })
        .collect()
}

fn created_from_name(name: &str) -> Option<String> {
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
    for span in sections(&text) {
        let body = &text[span.range.clone()];
        match span.section {
            Some(Section::Tasks) => {
                for l in body.lines().map(str::trim_start) {
                    if l.starts_with("- [x]") || l.starts_with("- [X]") {
                        total += 1;
                    } else if l.starts_with("- [ ]") {
                        total += 1;
                        open += 1;
                    }
                }
            }
            Some(Section::AiSummary) if summary.is_empty() => {
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
        trigger: field(&["触发方式", "Trigger"]).unwrap_or_default(),
        project: field(&["项目路径", "Project"]).unwrap_or_default(),
        task_count: total,
        tasks_open: open,
        summary,
        summary_source: String::new(),
        lang,
        ..FrontMatter::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 12: a summary worker rewriting a memory while prune deletes it must not
    /// bring it back.
    #[test]
    fn prune_waits_for_a_rewrite_and_the_memory_stays_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let store = MemoryStore::new(dir.path());
        let t = chrono::DateTime::parse_from_rfc3339("2026-01-29T17:30:00+00:00").unwrap();
        let fm = "---\nsession_id: \"s\"\ncreated: \"2026-01-29T17:30:00+00:00\"\n---\nbody\n";
        let path = store.save_new(&t, "s", fm).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let worker = {
            let (store, path) = (store.clone(), path.clone());
            std::thread::spawn(move || {
                store.update(&path, |text| {
                    tx.send(()).unwrap();
                    std::thread::sleep(std::time::Duration::from_millis(300));
                    Some(format!("{text}summary\n"))
                })
            })
        };
        rx.recv().unwrap();
        let pruned = store
            .prune(Some(0), None, chrono::Local::now(), false)
            .unwrap();
        assert_eq!(pruned.len(), 1);
        assert!(worker.join().unwrap().is_ok());
        assert!(!path.exists(), "the pruned memory came back");
    }

    #[test]
    fn targets_are_classified() {
        assert_eq!(Target::parse("latest"), Target::Latest);
        assert_eq!(Target::parse("LAST"), Target::Latest);
        assert_eq!(Target::parse("#3"), Target::Index(3));
        assert_eq!(Target::parse("20260129"), Target::Date("20260129".into()));
        assert_eq!(Target::parse("2026-01-29"), Target::Date("20260129".into()));
        assert_eq!(Target::parse("2026-01"), Target::Date("202601".into()));
        assert_eq!(
            Target::parse("2026-01-29 17:30"),
            Target::Date("20260129_1730".into())
        );
        assert_eq!(
            Target::parse("ff246da3"),
            Target::Session("ff246da3".into())
        );
        assert_eq!(
            Target::parse("20261399"),
            Target::Session("20261399".into()),
            "not a date"
        );
        assert_eq!(
            Target::parse("20260129_173000_ff246da3.md"),
            Target::File("20260129_173000_ff246da3.md".into())
        );
        assert_eq!(
            Target::parse("20260129_173000_ff246da3"),
            Target::File("20260129_173000_ff246da3".into())
        );
        assert_eq!(
            Target::parse("/x/y/20260129_173000_ff246da3_2.md"),
            Target::File("20260129_173000_ff246da3_2.md".into())
        );
    }

    #[test]
    fn snippets_never_split_characters() {
        let text = "第一行\n".to_string()
            + &"前文".repeat(100)
            + "关键词 İstanbul café"
            + &"后文".repeat(100)
            + "\n最后";
        let f = Folded::new(&text);
        let pos = f.lower.find("café").unwrap();
        let s = f.snippet(pos, "café".len(), 40);
        assert!(s.contains("café") && s.contains("İstanbul"), "{s}");
        assert!(s.starts_with('…') && s.ends_with('…'));
        assert!(s.chars().count() <= 60, "{}", s.chars().count());
        // Lower-casing that changes byte lengths (İ → i̇) keeps offsets right.
        let pos = f.lower.find("i̇stanbul").unwrap();
        assert!(f.snippet(pos, "i̇stanbul".len(), 20).contains("İstanbul"));
    }
}
