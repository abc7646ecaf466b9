//! Listing, finding, searching and pruning the memories of a project (docs/design.md §7).
//!
//! Listing reads front matter only. Memories written by the original design (no front
//! matter, Chinese or English headings) are read from their header instead. A file that
//! is neither is reported and skipped, never fatal.

use std::cmp::Reverse;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::document::{FrontMatter, body_start};
use super::entry::{
    MAX_LEGACY_BYTES, MAX_LEGACY_LEN, entry_from, file_name, legacy_from_text, read_opened_entry,
};
pub use super::entry::{MemoryEntry, created_at, read_entry};
use super::labels::Section;
use super::ordered::Ordered;
use super::provenance::{WriterKey, verdict};
use super::store::{
    MAX_MEMORY_BYTES, MemoryStore, NamedFile, is_memory_file_name, lossy, parse_file_name,
    read_head_bytes,
};
use crate::Error;
use crate::fsutil;

/// A file in the memories directory that is not a readable memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The file's name.
    pub file: String,
    /// Why it was skipped.
    pub reason: String,
}

/// The memories of a directory, newest first (by the time of writing, see [`OrderKey`]),
/// and what was skipped.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Listing {
    /// The memories listed.
    pub memories: Vec<MemoryEntry>,
    /// Memories before `limit` or `filter` were applied.
    pub total: usize,
    /// Files that could not be read as memories.
    pub skipped: Vec<Skipped>,
}

impl MemoryStore {
    /// Lists memories, newest first (by the time of writing, [`OrderKey`]). Only front
    /// matter is read, and only for as many files as needed when there is a `limit` and
    /// no `filter`.
    pub fn list(&self, limit: Option<usize>, filter: Option<&str>) -> Result<Listing, Error> {
        let (names, mut skipped) = self.scan()?;
        let filter = filter.map(str::to_lowercase).filter(|f| !f.is_empty());
        let mut listing = Listing::default();
        let mut ordered = Ordered::new(self, names);
        while let Some((name, read)) = ordered.next() {
            match read {
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
                    } else if filter.is_none() {
                        // Unread files still count, as long as their names are memory
                        // names.
                        listing.total += ordered.left();
                        break;
                    }
                }
                Err(reason) => skipped.push(Skipped { file: name, reason }),
            }
        }
        listing.skipped = skipped;
        Ok(listing)
    }

    /// The listing entries of the memories named `names`, in their order.
    pub(crate) fn read_entries(
        &self,
        names: &[impl AsRef<str> + Sync],
    ) -> Vec<Result<MemoryEntry, String>> {
        let key = self.writer_key();
        in_parallel(names, |buf: &mut Vec<u8>, name| {
            let path = self.dir().join(name.as_ref());
            let opened = fsutil::open_regular_with_metadata(&path, false, None);
            read_opened_entry(&path, opened, buf, key.as_ref())
        })
    }

    /// Names of the memory files by the second in their names, newest first, and the
    /// `.md` files that are not memories: one pass over the directory. Paths are made
    /// only for the files read.
    fn scan(&self) -> Result<(Vec<NamedFile>, Vec<Skipped>), Error> {
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

    /// The newest memory that counts as the user's own ([`MemoryEntry::is_own`]): what the
    /// recall at session start may speak of.
    pub fn newest_own(&self) -> Result<Option<MemoryEntry>, Error> {
        let (names, _) = self.scan()?;
        Ok(Ordered::new(self, names)
            .filter_map(|(_, read)| read.ok())
            .find(MemoryEntry::is_own))
    }

    /// Resolves a `find` target (docs/design.md §7.3) to the memories it names, newest
    /// first.
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

    /// The memories among `scanned` ([`MemoryStore::scan`]) that `kind` names, newest
    /// first. `latest` is the newest memory not dated in the future (§4.9); `#N` the N-th
    /// of the listing.
    fn find_target(
        &self,
        (names, skipped): &(Vec<NamedFile>, Vec<Skipped>),
        target: &str,
        kind: Target,
    ) -> Found {
        let mut skipped = skipped.clone();
        let mut matches = Vec::new();
        if let Target::Latest | Target::Index(_) = kind {
            let mut seen = 0;
            for (name, read) in Ordered::new(self, names.clone()) {
                match read {
                    Ok(e) if kind == Target::Latest && e.future => {}
                    Ok(e) => {
                        seen += 1;
                        if kind == Target::Latest || kind == Target::Index(seen) {
                            matches.push(e);
                            break;
                        }
                    }
                    Err(reason) => skipped.push(Skipped { file: name, reason }),
                }
            }
            return Found {
                target: target.to_string(),
                kind,
                matches,
                skipped,
            };
        }
        let candidates: Vec<&str> = names
            .iter()
            .map(|(_, _, n)| n.as_str())
            .filter(|n| match &kind {
                Target::File(name) => {
                    let want = if name.ends_with(".md") {
                        name.clone()
                    } else {
                        format!("{name}.md")
                    };
                    *n == want
                }
                Target::Date(prefix) => {
                    parse_file_name(n).is_some_and(|(ts, _, _)| ts.starts_with(prefix.as_str()))
                }
                Target::Session(prefix) => {
                    // The file name holds the first 8 characters of the id; the front
                    // matter is checked for longer prefixes below.
                    let short: String = prefix.to_lowercase().chars().take(8).collect();
                    parse_file_name(n).is_some_and(|(_, sid, _)| {
                        // A name's sid is ASCII: lower-cased byte by byte, as
                        // `to_lowercase` would, without a copy of each.
                        sid.get(..short.len())
                            .is_some_and(|p| p.eq_ignore_ascii_case(&short))
                    })
                }
                Target::Latest | Target::Index(_) => false,
            })
            .collect();
        for (name, read) in candidates.iter().zip(self.read_entries(&candidates)) {
            match read {
                Ok(e) => matches.push(e),
                Err(reason) => skipped.push(Skipped {
                    file: name.to_string(),
                    reason,
                }),
            }
        }
        matches.sort_by(|a, b| b.order.cmp(&a.order));
        if let Target::Session(prefix) = &kind {
            let prefix = prefix.to_lowercase();
            matches.retain(|e| e.session_id.to_lowercase().starts_with(&prefix));
        }
        Found {
            target: target.to_string(),
            kind,
            matches,
            skipped,
        }
    }

    /// Full-text search of the memories' text, case-insensitive; every word of `query`
    /// must occur. Ranked by number of hits, then newest first (time of writing); the
    /// first `snippets` hits get their snippet (a query common to thousands of memories
    /// is ranked without cutting a snippet from each).
    pub fn search(&self, query: &str, snippets: usize) -> Result<Vec<SearchHit>, Error> {
        let words: Vec<String> = query
            .split_whitespace()
            .map(str::to_lowercase)
            .filter(|w| !w.is_empty())
            .collect();
        if words.is_empty() {
            return Ok(Vec::new());
        }
        let (names, _) = self.scan()?;
        let names: Vec<String> = names.into_iter().map(|(_, _, n)| n).collect();
        let key = self.writer_key();
        let query = Query::new(&words);
        let mut hits: Vec<SearchHit> = in_parallel(&names, |scratch: &mut SearchScratch, name| {
            let path = self.dir().join(name);
            // A memory larger than the tools read is searched in its first
            // `MAX_MEMORY_BYTES` (`read_opened` stops there), and found as too large.
            let opened = fsutil::open_regular_with_metadata(&path, false, None).ok()?;
            Self::search_memory(&path, opened, &query, scratch, key.as_ref())
        })
        .into_iter()
        .flatten()
        .collect();
        hits.sort_by(|a, b| {
            (Reverse(a.hits), Reverse(&a.memory.order))
                .cmp(&(Reverse(b.hits), Reverse(&b.memory.order)))
        });
        for hit in hits.iter_mut().take(snippets) {
            hit.snippet = Self::snippet_of(&hit.memory.path, hit.anchor).unwrap_or_default();
        }
        Ok(hits)
    }

    /// The snippet at `anchor` of the memory at `path`, read again as the search read
    /// it (a memory is replaced by a new file, never rewritten in place).
    fn snippet_of(path: &Path, (pos, len): (usize, usize)) -> Option<String> {
        let (file, meta) = fsutil::open_regular_with_metadata(path, false, None).ok()?;
        let mut bytes = Vec::new();
        read_opened(file, meta.len(), &mut bytes)?;
        let text = lossy(&bytes);
        let body = body_start(&text).map_or(&*text, |start| &text[start..]);
        Some(crate::untrusted::line(
            &snippet(body, pos, len, SNIPPET_CHARS),
            2 * SNIPPET_CHARS,
        ))
    }

    /// Searches one memory: read once, its body lower-cased once, each word counted
    /// with a prepared substring search. Files that cannot be read or listed are passed
    /// over, as they always were.
    fn search_memory(
        path: &Path,
        (file, meta): (std::fs::File, std::fs::Metadata),
        query: &Query,
        scratch: &mut SearchScratch,
        key: Option<&WriterKey>,
    ) -> Option<SearchHit> {
        let bytes = &mut scratch.file;
        read_opened(file, meta.len(), bytes)?;
        let text = lossy(bytes);
        let body = body_start(&text).map_or(&*text, |start| &text[start..]);
        fold_into(body, &mut scratch.lower);
        let lower = scratch.lower.as_bytes();
        // The snippet goes where the words occur together, if they do; otherwise
        // where the rarest word first occurs.
        let mut count = 0;
        let mut rarest: Option<(usize, usize, usize)> = None;
        for word in &query.words {
            let mut found = word.find_iter(lower);
            let first = found.next()?;
            let n = 1 + found.count();
            count += n;
            if rarest.is_none_or(|(_, _, fewest)| n < fewest) {
                rarest = Some((first, word.needle().len(), n));
            }
        }
        let anchor = match query.phrase.find(lower) {
            Some(p) => (p, query.phrase.needle().len()),
            None => rarest.map_or((0, 0), |(p, len, _)| (p, len)),
        };
        // Its listing entry from the same bytes, read as `read_entry` reads the file.
        let head = read_head_bytes(&bytes[..], &mut scratch.head).and_then(|end| {
            FrontMatter::parse_for_listing(&lossy(&scratch.head[..end])).map(|(fm, ns, _)| (fm, ns))
        });
        let (fm, written_ns) = match head {
            Some(head) => head,
            None if meta.len() > MAX_LEGACY_BYTES => return None,
            None => {
                let legacy = &bytes[..bytes.len().min(MAX_LEGACY_LEN)];
                (legacy_from_text(&lossy(legacy)).ok()?, None)
            }
        };
        let provenance = verdict(key, &file_name(path), &lossy(bytes));
        let memory = entry_from(
            path,
            meta.len(),
            meta.modified().ok(),
            fm,
            written_ns,
            provenance,
        )
        .ok()?;
        Some(SearchHit {
            snippet: String::new(),
            hits: count,
            memory,
            anchor,
        })
    }

    /// Deletes the user's own memories beyond their newest `keep`, and any memory created
    /// more than `older_than_days` ago (whichever are given). Only files recognised as
    /// memories are ever touched.
    pub fn prune(
        &self,
        keep: Option<usize>,
        older_than_days: Option<u64>,
        now: chrono::DateTime<chrono::Local>,
        dry_run: bool,
    ) -> Result<Vec<MemoryEntry>, Error> {
        let listing = self.list(None, None)?;
        let cutoff = older_than_days.map(|d| now - chrono::Duration::days(d as i64));
        // `--keep N` keeps the user's own N newest and deletes their older ones; it never
        // counts or deletes a foreign memory (or one dated in the future), which a
        // repository could ship to push the user's own out. `--older-than` names
        // memories by their age, foreign ones too (docs/design.md §7.5).
        let mut own = 0;
        let mut doomed: Vec<MemoryEntry> = Vec::new();
        for e in listing.memories {
            let beyond_keep = e.is_own()
                && keep.is_some_and(|k| {
                    own += 1;
                    own > k
                });
            let too_old = cutoff.is_some_and(|c| created_at(&e).is_some_and(|t| t < c));
            if beyond_keep || too_old {
                doomed.push(e);
            }
        }
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

/// What a `find` target names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Target {
    /// `latest`: the newest memory.
    Latest,
    /// `#N`: the N-th newest.
    Index(usize),
    /// A memory's file name (with or without `.md`).
    File(String),
    /// A prefix of `YYYYMMDD_HHMMSS`.
    Date(String),
    /// A prefix of a session id.
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
    /// The target as given.
    pub target: String,
    /// What it was read as.
    pub kind: Target,
    /// The memories it names, newest first.
    pub matches: Vec<MemoryEntry>,
    /// Files that could not be read as memories.
    pub skipped: Vec<Skipped>,
}

/// What `show` found for a target.
#[derive(Debug, Clone)]
pub enum Shown {
    /// The one memory the target names: its whole text, or the section asked for.
    Memory {
        /// The memory.
        memory: MemoryEntry,
        /// The section asked for, if one was.
        section: Option<Section>,
        /// Its text.
        text: String,
    },
    /// No memory matches.
    NotFound(Found),
    /// More than one memory matches: the target must name one of them.
    Ambiguous(Found),
    /// The memory is larger than the tools read ([`MAX_MEMORY_BYTES`]): it is not one of
    /// ours, or it was written before memories were bounded.
    TooLarge(MemoryEntry),
    /// The memory has no such section (a memory of the original design, say).
    NoSection {
        /// The memory.
        memory: MemoryEntry,
        /// The section it lacks.
        section: Section,
    },
}

impl MemoryStore {
    /// One memory, named as [`MemoryStore::find`] takes it, or one of its sections.
    pub fn show(&self, target: &str, section: Option<Section>) -> Result<Shown, Error> {
        let mut found = self.find(target)?;
        if found.matches.len() != 1 {
            return Ok(if found.matches.is_empty() {
                Shown::NotFound(found)
            } else {
                Shown::Ambiguous(found)
            });
        }
        let memory = found.matches.remove(0);
        if memory.too_large {
            return Ok(Shown::TooLarge(memory));
        }
        let text = MemoryStore::read(&memory.path)?;
        Ok(match section {
            None => Shown::Memory {
                memory,
                section,
                text,
            },
            Some(s) => match super::document::section_text(&text, s) {
                Some(text) => Shown::Memory {
                    memory,
                    section,
                    text,
                },
                None => Shown::NoSection { memory, section: s },
            },
        })
    }
}

/// A search over several projects, merged and ranked as one.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectSearch {
    /// Memories that matched, in every project searched.
    pub total: usize,
    /// The best `limit` of them.
    pub hits: Vec<ProjectHit>,
}

/// A search hit and the project it is in.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectHit {
    /// The hit.
    #[serde(flatten)]
    pub hit: SearchHit,
    /// The project whose memory it is.
    pub project: PathBuf,
}

/// Searches the memories of each `(project, store)`, ranked together by number of
/// hits, then newest first (by the time of writing, as each project lists them).
pub fn search_projects(
    stores: &[(PathBuf, MemoryStore)],
    query: &str,
    limit: usize,
) -> Result<ProjectSearch, Error> {
    let mut hits = Vec::new();
    for (project, store) in stores {
        // Each project's best `limit` hits include the best `limit` of all.
        for hit in store.search(query, limit)? {
            hits.push(ProjectHit {
                hit,
                project: project.clone(),
            });
        }
    }
    hits.sort_by(|a, b| {
        (Reverse(a.hit.hits), Reverse(&a.hit.memory.order))
            .cmp(&(Reverse(b.hit.hits), Reverse(&b.hit.memory.order)))
    });
    let total = hits.len();
    hits.truncate(limit);
    Ok(ProjectSearch { total, hits })
}

/// One memory that matched a search.
#[derive(Debug, Clone, Serialize)]
pub struct SearchHit {
    /// The memory, as a listing shows it.
    #[serde(flatten)]
    pub memory: MemoryEntry,
    /// Occurrences of the query's words.
    pub hits: usize,
    /// One line around the first occurrence; empty for hits ranked below the number of
    /// snippets asked of [`MemoryStore::search`].
    pub snippet: String,
    /// Where that occurrence is in the lower-cased body: byte offset and length.
    #[serde(skip)]
    anchor: (usize, usize),
}

impl SearchHit {
    /// A hit on `memory` with `hits` occurrences and its `snippet` (for searches that
    /// rank memories themselves).
    pub fn new(memory: MemoryEntry, hits: usize, snippet: String) -> SearchHit {
        SearchHit {
            memory,
            hits,
            snippet,
            anchor: (0, 0),
        }
    }
}

const SNIPPET_CHARS: usize = 120;

/// The words of a search, each with its substring search prepared once for every
/// memory, and the words joined as a phrase.
struct Query {
    words: Vec<memchr::memmem::Finder<'static>>,
    phrase: memchr::memmem::Finder<'static>,
}

impl Query {
    /// The query of `words`, already lower-cased.
    fn new(words: &[String]) -> Query {
        let finder = |w: &str| memchr::memmem::Finder::new(w.as_bytes()).into_owned();
        Query {
            words: words.iter().map(|w| finder(w)).collect(),
            phrase: finder(&words.join(" ")),
        }
    }
}

/// Buffers one search thread keeps from one memory to the next.
#[derive(Default)]
struct SearchScratch {
    /// The memory file.
    file: Vec<u8>,
    /// Its body, lower-cased.
    lower: String,
    /// Its head, as [`read_entry`] reads it.
    head: Vec<u8>,
}

/// `f` applied to each of `items` with a scratch value per thread, the results in the
/// order of `items`. Listing and searching thousands of memories is mostly system
/// calls (open, read, close) and parsing, file by file: contiguous shares go to the
/// available cores. Fewer than [`PER_THREAD`] items each would not repay starting a
/// thread; a thread that cannot be started leaves its share to the caller's thread.
fn in_parallel<T: Sync, R: Send, S: Default>(
    items: &[T],
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R> {
    let threads = if items.len() < 2 * PER_THREAD {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .min(MAX_THREADS)
            .min(items.len() / PER_THREAD)
    };
    let run = |share: &[T]| {
        let mut scratch = S::default();
        share.iter().map(|t| f(&mut scratch, t)).collect::<Vec<R>>()
    };
    if threads <= 1 {
        return run(items);
    }
    let share = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let mut shares = items.chunks(share);
        // The first share is this thread's, done while the others run.
        let mine = shares.next().unwrap_or_default();
        let started: Vec<_> = shares
            .map(|part| {
                let handle = std::thread::Builder::new().spawn_scoped(scope, || run(part));
                (part, handle)
            })
            .collect();
        let mut out = run(mine);
        for (part, handle) in started {
            match handle {
                Ok(handle) => match handle.join() {
                    Ok(results) => out.extend(results),
                    // A bug, as it would be on this thread: the caller's panic.
                    Err(panic) => std::panic::resume_unwind(panic),
                },
                Err(_) => out.extend(run(part)),
            }
        }
        out
    })
}

/// Fewest items worth a thread of [`in_parallel`].
const PER_THREAD: usize = 256;
/// Most threads [`in_parallel`] starts: the work is one directory's files.
const MAX_THREADS: usize = 8;

/// `text` lower-cased into `out` (cleared first), character by character as
/// [`char::to_lowercase`] does it; runs of ASCII are lower-cased in place, in bulk.
fn fold_into(text: &str, out: &mut String) {
    out.clear();
    out.reserve(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let ascii = ascii_prefix(rest.as_bytes());
        let from = out.len();
        out.push_str(&rest[..ascii]);
        out[from..].make_ascii_lowercase();
        rest = &rest[ascii..];
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.extend(c.to_lowercase());
            rest = chars.as_str();
        }
    }
}

/// How many bytes `bytes` starts with that are ASCII: checked 16 at a time (which the
/// compiler does in a few vector instructions) up to the block where one is not.
fn ascii_prefix(bytes: &[u8]) -> usize {
    let blocks = bytes
        .chunks_exact(16)
        .take_while(|block| block.is_ascii())
        .count();
    let tail = &bytes[blocks * 16..];
    blocks * 16
        + tail
            .iter()
            .position(|b| !b.is_ascii())
            .unwrap_or(tail.len())
}

/// Reads an opened memory into `bytes` (cleared first), up to `len`, the size the open
/// file had (at most the cap, checked): a memory is replaced by renaming a new file over
/// it, never rewritten in place, so this is all of it, and stopping there spares the
/// read that would only find the end.
fn read_opened(file: std::fs::File, len: u64, bytes: &mut Vec<u8>) -> Option<()> {
    use std::io::Read;
    bytes.clear();
    file.take(len.min(MAX_MEMORY_BYTES))
        .read_to_end(bytes)
        .ok()?;
    Some(())
}

/// The byte offset in `original` of the character whose lower-case form (as
/// [`fold_into`] makes it) covers byte `pos` of the folded text; `None` past its end.
fn original_offset(original: &str, pos: usize) -> Option<usize> {
    if original.is_ascii() {
        // Lower-casing ASCII keeps every offset.
        return (pos < original.len()).then_some(pos);
    }
    let mut folded = 0;
    for (i, c) in original.char_indices() {
        folded += c.to_lowercase().map(char::len_utf8).sum::<usize>();
        if pos < folded {
            return Some(i);
        }
    }
    None
}

/// About `width` characters of `original` around the match at `pos` (`len` bytes) in
/// its lower-cased form, from the line the match is on; never splits a character.
fn snippet(original: &str, pos: usize, len: usize, width: usize) -> String {
    let start = original_offset(original, pos).unwrap_or(0);
    let end = original_offset(original, pos + len)
        .unwrap_or(original.len())
        .max(start);
    let line_start = original[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = original[end..]
        .find('\n')
        .map_or(original.len(), |i| end + i);
    let before: Vec<(usize, char)> = original[line_start..start]
        .char_indices()
        .rev()
        .take(width / 3)
        .collect();
    let from = before.last().map_or(start, |(i, _)| line_start + i);
    let after_chars = width.saturating_sub(original[from..end].chars().count());
    let to = original[end..line_end]
        .char_indices()
        .nth(after_chars)
        .map_or(line_end, |(i, _)| end + i);
    let mut s = original[from..to].trim().to_string();
    if from > line_start {
        s.insert(0, '…');
    }
    if to < line_end {
        s.push('…');
    }
    s
}

/// A text lower-cased for matching; a snippet of it shows the original text.
#[cfg(test)]
struct Folded<'a> {
    original: &'a str,
    lower: String,
}

#[cfg(test)]
impl<'a> Folded<'a> {
    fn new(original: &'a str) -> Folded<'a> {
        let mut lower = String::new();
        fold_into(original, &mut lower);
        Folded { original, lower }
    }

    /// About `width` characters of the original around the match at `pos` in `lower`.
    fn snippet(&self, pos: usize, len: usize, width: usize) -> String {
        snippet(self.original, pos, len, width)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 12: a summary worker rewriting a memory while prune deletes it must not
    /// bring it back.
    #[test]
    fn prune_waits_for_a_rewrite_and_the_memory_stays_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let writer = super::super::provenance::Writer::at(dir.path().join(".key/writer.key"));
        writer.key_or_create().unwrap();
        let store = MemoryStore::new(dir.path()).with_writer(Some(std::sync::Arc::new(writer)));
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

    /// Lower-casing in bulk gives what lower-casing each character gives, and the
    /// offsets mapped back are those a per-byte map of the folded text would give.
    #[test]
    fn folding_and_offsets_match_character_by_character() {
        let texts = [
            String::new(),
            "Plain ASCII, MIXED case\r\n\ttabs".to_string(),
            "İstanbul ẞ Straße ΣΑΣ ǅ Ǆ ﬁ K Å 灰度 😀 e\u{301} \u{0}\u{7f}\u{85}".to_string(),
            "x".repeat(40) + "É" + &"Y".repeat(17) + "İ",
            "İ".repeat(33),
        ];
        for text in &texts {
            let mut lower = String::new();
            let mut back = Vec::new();
            for (i, c) in text.char_indices() {
                for l in c.to_lowercase() {
                    lower.push(l);
                    back.extend(std::iter::repeat_n(i, l.len_utf8()));
                }
            }
            let mut folded = "stale".to_string();
            fold_into(text, &mut folded);
            assert_eq!(folded, lower, "{text:?}");
            for pos in 0..=lower.len() + 1 {
                assert_eq!(
                    original_offset(text, pos),
                    back.get(pos).copied(),
                    "{text:?} at {pos}"
                );
            }
        }
    }

    /// Work spread over threads comes back whole and in order, each thread with its own
    /// scratch value.
    #[test]
    fn in_parallel_keeps_the_order() {
        for n in [0, 1, PER_THREAD, 2 * PER_THREAD + 1, 5_000] {
            let items: Vec<usize> = (0..n).collect();
            let out = in_parallel(&items, |seen: &mut usize, i| {
                *seen += 1;
                (*i, *seen)
            });
            assert_eq!(out.iter().map(|(i, _)| *i).collect::<Vec<_>>(), items);
            assert!(out.iter().all(|(_, seen)| *seen >= 1));
        }
    }

    /// A search hit's entry is made from the bytes searched: it must be the one
    /// listing reads from the file, whatever the file looks like.
    #[test]
    fn search_hits_carry_the_listing_entry() {
        let dir = tempfile::tempdir().unwrap();
        let store = MemoryStore::new(dir.path());
        let fm = |sid: &str, extra: &str| {
            format!(
                "---\nmemory_stalker: 1\nsession_id: \"{sid}\"\ncreated: \"2026-01-29T17:30:00+08:00\"\n{extra}task_count: 3\ntasks_open: 1\nsummary: \"needle \\u001b[2J \\\"q\\\"\"\nlang: \"zh\"\n---\n\nneedle body\n"
            )
        };
        let files: Vec<(&str, Vec<u8>)> = vec![
            ("20260129_173000_aaaa0001.md", fm("aaaa0001-x", "").into_bytes()),
            ("20260129_173000_aaaa0001_2.md", fm("aaaa0001-y", "created_ns: 7\n").into_bytes()),
            ("20260129_173001_crlf0001.md", fm("crlf0001", "").replace('\n', "\r\n").into_bytes()),
            ("20260129_173002_bad00001.md", [&b"---\nsession_id: \"\xff\"\n"[..], &fm("bad00001", "").into_bytes()[4..]].concat()),
            (
                "20260129_173003_old00001.md",
                "# Session memory - 2026-01-27 10:00:00\n\n- Session ID: `old00001`\n- Trigger: auto\n\n## Current task list\n- [ ] a\n\n## AI summary\n\n### Task summary\n- needle\n".into(),
            ),
            ("20260129_173004_big00001.md", format!("{}{}", fm("big00001", &format!("pad: \"{}\"\n", "p".repeat(9_000))), "needle\n".repeat(10)).into_bytes()),
        ];
        for (name, text) in &files {
            fs::write(dir.path().join(name), text).unwrap();
        }
        let hits = store.search("NEEDLE", usize::MAX).unwrap();
        assert_eq!(hits.len(), files.len());
        for hit in &hits {
            assert_eq!(hit.memory, read_entry(&hit.memory.path, None).unwrap());
            assert!(hit.snippet.to_lowercase().contains("needle"), "{hit:?}");
        }
        // Only the best hits get a snippet, and the same one.
        let best = store.search("NEEDLE", 2).unwrap();
        assert_eq!(best.len(), hits.len());
        for (i, (b, h)) in best.iter().zip(&hits).enumerate() {
            assert_eq!(b.memory, h.memory);
            let want = if i < 2 { h.snippet.as_str() } else { "" };
            assert_eq!(b.snippet, want);
        }
    }
}
