//! Listing, finding, searching and pruning the memories of a project (docs/design.md §7).
//!
//! Every query goes through the directory's search index (`crate::search`), which
//! holds each memory's listing entry: a listing reads one row a memory, not its file.
//! Memories written by the original design (no front matter, Chinese or English
//! headings) are read from their header. A file that is neither is reported and
//! skipped, never fatal.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::files::{MemoryStore, is_memory_file_name};
use crate::Error;
use crate::agent::Agent;
pub use crate::memory::entry::{MemoryEntry, created_at, read_entry};
use crate::search::{self, Index, RowFilter, SearchOptions, Snippet};
use crate::summary::labels::Section;

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
    /// Lists memories, newest first (docs/design.md §4.9), from the search index:
    /// reading one row a memory, whatever their number.
    pub fn list(&self, limit: Option<usize>, filter: Option<&str>) -> Result<Listing, Error> {
        self.list_by(limit, filter, None)
    }

    /// [`MemoryStore::list`] of the memories of one `agent` only (all with `None`).
    pub fn list_by(
        &self,
        limit: Option<usize>,
        filter: Option<&str>,
        agent: Option<Agent>,
    ) -> Result<Listing, Error> {
        let row_filter = RowFilter {
            text: filter.map(str::to_string),
            agent,
            ..RowFilter::default()
        };
        let listed = self.with_index(|index| {
            let rows = fresh_rows(index, &row_filter, limit.unwrap_or(usize::MAX), 0)?;
            Ok(Listing {
                total: index.count(&row_filter)?,
                memories: rows.into_iter().map(|r| r.entry).collect(),
                skipped: skipped_of(index)?,
            })
        });
        match listed {
            Ok(listing) => Ok(listing.unwrap_or_default()),
            // A hook, with too many files changed behind the index's back to read them
            // all now: the newest by their names, as before there was an index.
            Err(Error::Index(crate::search::IndexError::Behind { .. }))
                if filter.is_none() && agent.is_none() =>
            {
                self.list_by_names(limit.unwrap_or(usize::MAX))
            }
            Err(e) => Err(e),
        }
    }

    /// What the memories of this store's project add up to (`list-memories status`):
    /// sessions, memories saved by the hooks and by `import`, the newest save.
    pub fn tally(&self) -> Result<crate::search::index::Tally, Error> {
        let filter = RowFilter {
            project: self.scope().map(|p| p.to_string_lossy().into_owned()),
            ..RowFilter::default()
        };
        Ok(self
            .with_index(|index| Ok(index.tally(&filter)?))?
            .unwrap_or_default())
    }

    /// The newest memory that counts as the user's own ([`MemoryEntry::is_own`]): what the
    /// recall at session start may speak of. The index says which; the file is checked
    /// again (its MAC under the user's key, its date), so that nothing an index holds
    /// decides what reaches the model unasked.
    ///
    /// In a directory shared by several projects ([`MemoryStore::scope`]), only this
    /// project's: another project's newer memory must not hide it.
    pub fn newest_own(&self) -> Result<Option<MemoryEntry>, Error> {
        let filter = RowFilter {
            own: true,
            project: self.scope().map(|p| p.to_string_lossy().into_owned()),
            ..RowFilter::default()
        };
        let listed = self.with_index(|index| fresh_rows(index, &filter, 3, 0));
        let candidates: Vec<MemoryEntry> = match listed {
            Ok(rows) => rows
                .unwrap_or_default()
                .into_iter()
                .map(|r| r.entry)
                .collect(),
            // Too much changed behind the index's back for a hook to catch up: the
            // directory itself, as before there was an index.
            Err(Error::Index(crate::search::IndexError::Behind { .. })) => {
                return self.newest_own_by_names();
            }
            Err(e) => return Err(e),
        };
        let key = self.writer_key();
        Ok(candidates
            .into_iter()
            .filter_map(|e| read_entry(&e.path, key.as_ref()).ok())
            .find(|e| e.is_own() && self.in_scope(e)))
    }

    /// [`MemoryStore::newest_own`] from the directory itself, newest first, reading the
    /// front matter of at most [`MAX_OWN_CANDIDATES`] memories: a repository that ships
    /// thousands of memories dated after the user's must not cost a session's start
    /// every one of them.
    fn newest_own_by_names(&self) -> Result<Option<MemoryEntry>, Error> {
        let names = self.newest_memory_names(MAX_OWN_CANDIDATES)?;
        let mut ordered = super::ordered::Ordered::new(self, names);
        for _ in 0..MAX_OWN_CANDIDATES {
            let Some((_, read)) = ordered.next() else {
                break;
            };
            if let Ok(e) = read
                && e.is_own()
                && self.in_scope(&e)
            {
                return Ok(Some(e));
            }
        }
        Ok(None)
    }

    /// Whether memory `e` is of the project this store keeps to (always, unscoped).
    fn in_scope(&self, e: &MemoryEntry) -> bool {
        self.scope().is_none_or(|project| {
            super::files::read_front_matter(&e.path)
                .is_some_and(|fm| Path::new(&fm.project) == project)
        })
    }

    /// Resolves a `find` target (docs/design.md §7.3) to the memories it names, newest
    /// first.
    pub fn find(&self, target: &str) -> Result<Found, Error> {
        self.find_by(target, None)
    }

    /// [`MemoryStore::find`] among the memories of one `agent` only (all with `None`):
    /// `latest` is then that agent's newest memory, `#N` its N-th newest.
    pub fn find_by(&self, target: &str, agent: Option<Agent>) -> Result<Found, Error> {
        let target = target.trim();
        let kind = Target::parse(target);
        let found = self.with_index(|index| {
            let mut found = find_in(index, target, kind.clone(), agent)?;
            // A date-looking target that names no date may still be a session prefix.
            if found.matches.is_empty()
                && matches!(found.kind, Target::Date(_))
                && target.chars().all(|c| c.is_ascii_hexdigit())
            {
                let by_session =
                    find_in(index, target, Target::Session(target.to_string()), agent)?;
                if !by_session.matches.is_empty() {
                    found = by_session;
                }
            }
            Ok(found)
        })?;
        Ok(found.unwrap_or_else(|| Found {
            target: target.to_string(),
            kind,
            matches: Vec::new(),
            skipped: Vec::new(),
        }))
    }

    /// Ranked full-text search (docs/design.md §7.4, §7.10).
    pub fn search(&self, query: &str, opts: &SearchOptions) -> Result<Vec<SearchHit>, Error> {
        let Some(results) = self.with_index(|index| Ok(search::search(index, query, opts)?))?
        else {
            return Ok(Vec::new());
        };
        let terms = results.query.terms.len();
        Ok(results
            .hits
            .into_iter()
            .map(|h| SearchHit::new(h, terms, results.total, results.exact))
            .collect())
    }

    /// Deletes memories beyond the newest `keep`, or created more than `older_than_days`
    /// ago (whichever are given). Only files recognised as memories are ever touched; in
    /// a directory shared by several projects, only this store's project's.
    pub fn prune(
        &self,
        keep: Option<usize>,
        older_than_days: Option<u64>,
        now: chrono::DateTime<chrono::Local>,
        dry_run: bool,
    ) -> Result<Vec<MemoryEntry>, Error> {
        let filter = RowFilter {
            project: self.scope().map(|p| p.to_string_lossy().into_owned()),
            ..RowFilter::default()
        };
        let Some(rows) = self.with_index(|index| Ok(index.rows(&filter, usize::MAX, 0)?))? else {
            return Ok(Vec::new());
        };
        let cutoff = older_than_days.map(|d| now - chrono::Duration::days(d as i64));
        // `--keep N` keeps the user's own N newest and deletes their older ones; it never
        // counts or deletes a foreign memory (or one dated in the future), which a
        // repository could ship to push the user's own out. `--older-than` names
        // memories by their age, foreign ones too (docs/design.md §7.5).
        let mut own = 0;
        let mut doomed: Vec<MemoryEntry> = Vec::new();
        for e in rows.into_iter().map(|r| r.entry) {
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
                let before = self.mtime_before_change();
                fs::remove_file(&e.path)
                    .map_err(|err| Error::store("cannot delete", &e.path, err))?;
                self.note_change(before, &[], &[&e.file]);
                let _ = fs::remove_file(&lock_path);
                drop(lock);
            }
        }
        Ok(doomed)
    }
}

impl MemoryStore {
    /// The newest `limit` memories found by listing the directory and reading their
    /// front matter, newest first by name and `created_ns` (docs/design.md §4.9), for
    /// when the index is behind and may not be brought up to date now.
    fn list_by_names(&self, limit: usize) -> Result<Listing, Error> {
        let mut listing = Listing::default();
        let names = self.memory_names(|file, is_file| {
            listing.skipped.push(Skipped {
                file,
                reason: if is_file {
                    "not a memory file name (YYYYMMDD_HHMMSS_<session>.md)".into()
                } else {
                    "not a regular file (a symbolic link, FIFO or device); not read".into()
                },
            });
        })?;
        listing.total = names.len();
        let mut ordered = super::ordered::Ordered::new(self, names);
        while listing.memories.len() < limit
            && let Some((file, read)) = ordered.next()
        {
            match read {
                Ok(e) => listing.memories.push(e),
                Err(reason) => listing.skipped.push(Skipped { file, reason }),
            }
        }
        Ok(listing)
    }

    /// The listing entries of the memories named `names`, in their order (read without
    /// the index, see [`MemoryStore::list_by_names`]).
    pub(crate) fn read_entries(
        &self,
        names: &[impl AsRef<str> + Sync],
    ) -> Vec<Result<MemoryEntry, String>> {
        let key = self.writer_key();
        names
            .iter()
            .map(|name| read_entry(&self.dir().join(name.as_ref()), key.as_ref()))
            .collect()
    }
}

/// The rows `filter` keeps from `offset`, at most `limit`; their files are checked
/// against the index (an edit in place does not move the directory's time: one `stat`
/// a row, a few milliseconds for thousands) and read again if they changed, so that
/// a listing, however long, shows each memory as its file now says.
fn fresh_rows(
    index: &mut Index,
    filter: &RowFilter,
    limit: usize,
    offset: usize,
) -> Result<Vec<crate::search::Row>, Error> {
    let rows = index.rows(filter, limit, offset)?;
    if index.refresh(&rows)? {
        return Ok(index.rows(filter, limit, offset)?);
    }
    Ok(rows)
}

/// Most memories read, newest first, when looking for the user's own newest without the
/// index.
const MAX_OWN_CANDIDATES: usize = 64;

fn skipped_of(index: &Index) -> Result<Vec<Skipped>, Error> {
    Ok(index
        .skipped()?
        .into_iter()
        .map(|(file, reason)| Skipped { file, reason })
        .collect())
}

/// The memories `kind` names among `agent`'s (all with `None`), from the index.
fn find_in(
    index: &mut Index,
    target: &str,
    kind: Target,
    agent: Option<Agent>,
) -> Result<Found, Error> {
    let (mut filter, limit, offset) = match &kind {
        // The newest not dated in the future (docs/design.md §4.9).
        Target::Latest => (
            RowFilter {
                not_future: true,
                ..RowFilter::default()
            },
            1,
            0,
        ),
        Target::Index(n) => (RowFilter::default(), 1, n - 1),
        Target::File(name) => {
            let name = if name.ends_with(".md") {
                name.clone()
            } else {
                format!("{name}.md")
            };
            (
                RowFilter {
                    file: Some(name),
                    ..RowFilter::default()
                },
                usize::MAX,
                0,
            )
        }
        Target::Date(prefix) => (
            RowFilter {
                name_prefix: Some(prefix.clone()),
                ..RowFilter::default()
            },
            usize::MAX,
            0,
        ),
        Target::Session(prefix) => (
            RowFilter {
                session: Some(prefix.clone()),
                ..RowFilter::default()
            },
            usize::MAX,
            0,
        ),
    };
    filter.agent = agent;
    let rows = fresh_rows(index, &filter, limit, offset)?;
    // The unreadable files the target would have named, had they been readable.
    let named = |file: &str| match &kind {
        Target::Latest | Target::Index(_) => false,
        Target::File(_) => filter.file.as_deref() == Some(file),
        Target::Date(prefix) => file.starts_with(prefix.as_str()),
        Target::Session(prefix) => {
            crate::memory::file::parse_file_name(file).is_some_and(|(_, sid, _)| {
                let short: String = prefix.chars().take(8).collect();
                sid.to_lowercase().starts_with(&short.to_lowercase())
            })
        }
    };
    let skipped = skipped_of(index)?
        .into_iter()
        .filter(|s| named(&s.file))
        .collect();
    Ok(Found {
        target: target.to_string(),
        kind,
        matches: rows.into_iter().map(|r| r.entry).collect(),
        skipped,
    })
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
        // Only a memory file of this directory is ever read here, whatever an index said.
        if !is_memory_file_name(&memory.file) || memory.path != self.dir().join(&memory.file) {
            return Ok(Shown::NotFound(Found {
                target: target.to_string(),
                kind: found.kind,
                matches: Vec::new(),
                skipped: found.skipped,
            }));
        }
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
            Some(s) => match crate::memory::document::section_text(&text, s) {
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
    /// Whether `total` is exact; else at least that many matched (a query of words too
    /// common to count everywhere).
    pub exact: bool,
    /// The best `limit` of them (one a session).
    pub hits: Vec<ProjectHit>,
    /// Projects whose memories could not be searched, and why.
    pub skipped: Vec<(PathBuf, String)>,
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

/// Searches the memories of each `(project, store)`, ranked together by score, then
/// newest first. A memories directory shared by several projects is searched once. The
/// first is the project asked about: its memories failing to be read is the search's
/// error; another's is skipped, and said in [`ProjectSearch::skipped`].
pub fn search_projects(
    stores: &[(PathBuf, MemoryStore)],
    query: &str,
    opts: &SearchOptions,
) -> Result<ProjectSearch, Error> {
    let mut hits = Vec::new();
    let mut total = 0;
    let mut skipped = Vec::new();
    let mut exact = true;
    let mut seen = std::collections::HashSet::new();
    for (i, (project, store)) in stores.iter().enumerate() {
        let dir = fs::canonicalize(store.dir()).unwrap_or_else(|_| store.dir().to_path_buf());
        if !seen.insert(dir) {
            continue;
        }
        // Each project's best `limit` hits include the best `limit` of all.
        let found = match store.search(query, opts) {
            Ok(found) => found,
            // Another project whose memories cannot be read (a linked `.claude`, an
            // unreadable directory) does not cost the others theirs (issue 25, defect
            // 8); the first, the one asked about, is an error as a search of it alone
            // (`projects::searched` puts it first).
            Err(e) if i > 0 => {
                skipped.push((project.clone(), e.to_string()));
                continue;
            }
            Err(e) => return Err(e),
        };
        if let Some(first) = found.first() {
            total += first.total;
            exact &= first.total_exact;
        }
        for hit in found {
            let project = if store.scope().is_none() {
                project.clone()
            } else {
                PathBuf::from(&hit.project_of_memory)
            };
            hits.push(ProjectHit { hit, project });
        }
    }
    search::best_first(&mut hits, |h| {
        (h.hit.score, h.hit.order_ns, &h.hit.memory.file)
    });
    hits.truncate(opts.limit);
    Ok(ProjectSearch {
        total,
        exact,
        hits,
        skipped,
    })
}

/// One memory that matched a search: the best of its session.
#[derive(Debug, Clone, Serialize)]
pub struct SearchHit {
    /// The memory, as a listing shows it.
    #[serde(flatten)]
    pub memory: MemoryEntry,
    /// How many of the query's terms it matched.
    pub hits: usize,
    /// How many terms the query had.
    pub terms: usize,
    /// The line where the query's words are, each between `**`; empty when no shown
    /// part of the memory holds them.
    pub snippet: String,
    /// The part of the memory the snippet is from (`requests`, `decisions`, …).
    pub section: Option<&'static str>,
    /// Which agent's session it is.
    pub agent: String,
    /// The session's other memories that matched (file names, best first).
    pub more_in_session: Vec<String>,
    /// Why the memory cannot be read whole, if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Its score; higher is better, comparable within one search only.
    #[serde(skip)]
    pub score: f64,
    /// Its place in the order of memories (UTC ns of its writing).
    #[serde(skip)]
    pub order_ns: i64,
    /// Memories the search matched in its directory (before grouping and the limit).
    #[serde(skip)]
    pub total: usize,
    /// Whether `total` is exact, or a lower bound.
    #[serde(skip)]
    pub total_exact: bool,
    /// The project its front matter names.
    #[serde(skip)]
    pub project_of_memory: String,
    /// The snippet without marks, and where the marks go.
    #[serde(skip)]
    pub snippet_parts: Option<Snippet>,
}

impl SearchHit {
    /// A hit on `memory` whose snippet is `snippet` (cleaned as a search's own, nothing
    /// marked), matching `hits` terms: what a renderer shows, for its tests.
    pub fn with_snippet(memory: MemoryEntry, hits: usize, snippet: &str) -> SearchHit {
        let parts = Snippet::plain(crate::search::Field::Body, snippet);
        SearchHit {
            snippet: parts.marked("**", "**"),
            section: Some(parts.field.label()),
            snippet_parts: Some(parts),
            hits,
            terms: hits,
            agent: "claude-code".into(),
            more_in_session: Vec::new(),
            problem: None,
            score: 1.0,
            order_ns: 0,
            total: 1,
            total_exact: true,
            project_of_memory: String::new(),
            memory,
        }
    }

    fn new(h: crate::search::Hit, terms: usize, total: usize, exact: bool) -> SearchHit {
        SearchHit {
            snippet: h
                .snippet
                .as_ref()
                .map(|s| s.marked("**", "**"))
                .unwrap_or_default(),
            section: h.snippet.as_ref().map(|s| s.field.label()),
            snippet_parts: h.snippet,
            hits: h.matched,
            terms,
            agent: h.row.agent,
            more_in_session: h.more_in_session,
            problem: h.row.problem,
            score: h.score,
            order_ns: h.row.order_ns,
            total,
            total_exact: exact,
            project_of_memory: h.row.project,
            memory: h.row.entry,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 12: a summary worker rewriting a memory while prune deletes it must not
    /// bring it back.
    #[test]
    fn prune_waits_for_a_rewrite_and_the_memory_stays_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let writer = crate::provenance::Writer::at(dir.path().join(".key/writer.key"));
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
}
