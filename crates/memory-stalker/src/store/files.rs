//! Where memory files live and how they are named, created and updated.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use chrono::{DateTime, FixedOffset};

use crate::Error;
use crate::config::Config;
use crate::fsutil::{self, Lock};
use crate::memory::document::{FrontMatter, set_written_ns};
pub use crate::memory::file::{
    INDEX_FILE, MAX_MEMORY_BYTES, is_memory_file_name, parse_file_name, read_front_matter,
    read_head, sid8,
};
pub(crate) use crate::memory::file::{lossy, read_head_bytes};
pub use crate::memory::order::OrderKey;
use crate::provenance::{Writer, WriterKey};
use crate::search::{Index, IndexError, OpenOptions};
use crate::transcript::TaskCheckpoint;
use std::sync::{Arc, Mutex};

/// The memories directory inside a project.
pub const MEMORIES_DIR: &str = ".claude/memories";
/// Lock files, one per memory, so concurrent updates of one memory serialise.
const LOCKS_DIR: &str = ".locks";
/// The ignore file kept in the memories directory.
pub const GITIGNORE_FILE: &str = ".gitignore";
/// What that file says: memories hold verbatim prompts and replies (and INDEX.md their
/// headlines), so nothing in the directory, this file included, is committed unless
/// the user decides otherwise. Ignoring the file itself keeps `git status` silent.
pub const GITIGNORE: &str = "\
# Written by memory-stalker. Memories hold your prompts and Claude's replies verbatim,
# so everything in this directory (this file included) is kept out of git.
# To share memories on purpose, `git add -f` them, or edit this file: an edited file is
# left alone, a deleted one is written again with the next memory.
*
";

/// Largest memory written: every part of a memory is bounded (a prompt, a request, a
/// reply, a plan, Claude Code's summary, the task list), which keeps one far below this;
/// a memory rendered larger all the same is written in its short form, so that every
/// memory stays readable by the tools ([`MAX_MEMORY_BYTES`]) after later edits too.
pub const MAX_WRITTEN_BYTES: u64 = MAX_MEMORY_BYTES / 2;

/// Temporary files older than this were left by a save that was killed.
const STALE_TEMP: std::time::Duration = std::time::Duration::from_secs(3600);

/// What [`MemoryStore::refresh_index`] did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct IndexReport {
    /// The index's database.
    pub path: PathBuf,
    /// Memories it holds.
    pub memories: usize,
    /// Memories found edited in place and read again.
    pub reread: usize,
}

/// The memories of one project.
#[derive(Debug, Clone)]
pub struct MemoryStore {
    dir: PathBuf,
    /// The project when `dir` is inside it by default (not chosen by the user): then no
    /// symbolic link on the way from the project to `dir` is followed.
    project: Option<PathBuf>,
    /// Where this user's writer key is: memories saved here are signed with it, and
    /// memories listed are checked against it (docs/design.md §4.10).
    writer: Option<Arc<Writer>>,
    /// The project whose memories this store is about, when `dir` may hold other
    /// projects' too (`MEMORY_STALKER_DIR` shared by several): prune and the recall
    /// keep to its own.
    scope: Option<PathBuf>,
    /// How the search index is opened: a hook waits less and catches up less.
    index_options: OpenOptions,
    /// What went wrong with the search index while writing (it catches up on its own;
    /// the caller logs these).
    warnings: Arc<Mutex<Vec<String>>>,
    /// The search index, once opened: one connection a process, however many times a
    /// save or a server uses it.
    index: Arc<Mutex<IndexCache>>,
    /// Whether this store has a search index (the fallback directory of memories that
    /// could not be saved in their project has none: nothing lists or searches it).
    indexed: bool,
}

/// [`MemoryStore`]'s search index, as far as it got.
#[derive(Default)]
enum IndexCache {
    #[default]
    Unopened,
    Open(Box<Index>),
    /// Too many files changed behind its back for this process to catch up (a hook):
    /// not tried again.
    Behind(Option<usize>),
}

impl std::fmt::Debug for IndexCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IndexCache::Unopened => f.write_str("Unopened"),
            IndexCache::Open(i) => write!(f, "Open({})", i.path().display()),
            IndexCache::Behind(n) => write!(f, "Behind({n:?})"),
        }
    }
}

impl MemoryStore {
    /// The store in `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> MemoryStore {
        MemoryStore {
            dir: dir.into(),
            project: None,
            writer: None,
            scope: None,
            index_options: OpenOptions::INTERACTIVE,
            warnings: Arc::default(),
            index: Arc::default(),
            indexed: true,
        }
    }

    /// This store with the writer key at `writer` (see [`crate::Config::writer`]).
    pub fn with_writer(mut self, writer: Option<Arc<Writer>>) -> MemoryStore {
        self.writer = writer;
        self
    }

    /// The writer key, when this user has one (nothing is made here).
    pub fn writer_key(&self) -> Option<WriterKey> {
        self.writer.as_deref().and_then(Writer::key)
    }

    /// The store of a project: `<project>/.claude/memories`, which must be real
    /// directories, not links (the project's files are not trusted).
    pub fn for_project(project: &Path) -> MemoryStore {
        MemoryStore {
            project: Some(project.to_path_buf()),
            ..MemoryStore::new(project.join(MEMORIES_DIR))
        }
    }

    /// This store as the memories of `project` in a directory other projects may share.
    pub fn scoped_to(mut self, project: &Path) -> MemoryStore {
        self.scope = Some(project.to_path_buf());
        self
    }

    /// The project this store keeps to in a shared directory, if any.
    pub fn scope(&self) -> Option<&Path> {
        self.scope.as_deref()
    }

    /// This store without a search index: its memories are kept, not searched (the
    /// fallback directory).
    pub fn without_index(mut self) -> MemoryStore {
        self.indexed = false;
        self
    }

    /// This store as a hook uses it: the search index is waited for briefly and
    /// brought up to date only when little changed behind its back.
    pub fn in_hook(mut self) -> MemoryStore {
        self.index_options = OpenOptions::HOOK;
        self
    }

    /// This store as a session's start uses it: nothing written behind the index's back
    /// is indexed (a repository's files are never the recall's to pay for); the
    /// directory is listed instead.
    pub fn at_session_start(mut self) -> MemoryStore {
        self.index_options = OpenOptions::SESSION_START;
        self
    }

    /// The writer key an index on disk is bound to, made now when there is none: the
    /// key exists before any index does, so that no index is ever trusted without one
    /// (docs/design.md §7.10). `None` without a place for it: the index is then kept in
    /// memory only.
    fn index_key(&self) -> Option<WriterKey> {
        self.writer.as_deref().and_then(|w| w.key_or_create().ok())
    }

    /// For the MCP server: what arrived behind the index's back is read a slice at a
    /// time before an answer ([`OpenOptions::SERVER`]; [`MemoryStore::index_unread`]
    /// says how much is left).
    pub fn for_server(mut self) -> MemoryStore {
        self.index_options = OpenOptions::SERVER;
        self
    }

    /// How many memory files the search index of this process left unread at its last
    /// catch-up (a slice of many that arrived behind its back): what its last search
    /// did not see. 0 when it is up to date, or not opened.
    pub fn index_unread(&self) -> usize {
        match &*self.index.lock().unwrap_or_else(|p| p.into_inner()) {
            IndexCache::Open(index) => index.unread(),
            _ => 0,
        }
    }

    /// How this store opens its search index.
    pub fn index_options(&self) -> OpenOptions {
        self.index_options
    }

    /// The search index's problems met while writing, for the caller to log; cleared.
    pub fn take_warnings(&self) -> Vec<String> {
        self.warnings
            .lock()
            .map(|mut w| std::mem::take(&mut *w))
            .unwrap_or_default()
    }

    /// Tells the search index that this store changed the directory (see
    /// [`note_change`]); a failure is kept as a warning: the index catches up later.
    pub(crate) fn note_change(&self, before: Option<i64>, changed: &[&str], removed: &[&str]) {
        let noted = self.with_index_as_is(|index| {
            index.note(before, changed, removed)?;
            Ok(index.is_on_disk())
        });
        if let Err(e) = &noted
            && let Ok(mut w) = self.warnings.lock()
        {
            w.push(format!("{e}; it will catch up when next read"));
        }
        if self.indexed && !matches!(noted, Ok(Some(true))) {
            self.mark_dir_changed();
        }
    }

    /// Makes sure the next open of the index on disk catches up with a change it did not
    /// take in (docs/design.md §7.10). The directory's time normally says so, but not
    /// always: with a coarse file-system clock, another writer's change in the same tick
    /// leaves the directory at the time that writer then records as matched, and this
    /// change would stay unindexed until the directory changed again. The directory's
    /// time is set to the fine clock's now, which no index has recorded.
    fn mark_dir_changed(&self) {
        let set = fs::File::open(&self.dir)
            .and_then(|d| d.set_times(std::fs::FileTimes::new().set_modified(SystemTime::now())));
        if let Err(e) = set
            && let Ok(mut w) = self.warnings.lock()
        {
            w.push(format!(
                "cannot mark {} as changed for the search index: {e}",
                crate::untrusted::path(&self.dir)
            ));
        }
    }

    /// The directory's modification time now, taken before a change (see
    /// [`note_change`]).
    pub(crate) fn mtime_before_change(&self) -> Option<i64> {
        crate::search::index::dir_mtime(&self.dir).ok()
    }

    /// Creates the directory (privately), refusing links inside the project.
    pub fn ensure_dir(&self) -> Result<(), Error> {
        let made = match &self.project {
            Some(p) => fsutil::ensure_dir_no_follow(p, Path::new(MEMORIES_DIR)),
            None => fsutil::create_private_dir(&self.dir),
        };
        made.map_err(|e| Error::store("cannot create", &self.dir, e))
    }

    /// Whether the directory exists, reached without a link inside the project.
    pub fn exists(&self) -> bool {
        self.check_dir().is_ok() && self.dir.is_dir()
    }

    /// Refuses a directory reached through a link inside the project.
    fn check_dir(&self) -> Result<(), Error> {
        match &self.project {
            Some(p) => fsutil::check_no_follow(p, Path::new(MEMORIES_DIR))
                .map_err(|e| Error::store("will not read", &self.dir, e)),
            None => Ok(()),
        }
    }

    /// Reads a memory file of this store: a regular file (never a link, FIFO or
    /// device) of at most [`MAX_MEMORY_BYTES`].
    pub fn read(path: &Path) -> Result<String, Error> {
        fsutil::read_regular(path, MAX_MEMORY_BYTES)
            .map_err(|e| Error::store("cannot read", path, e))
    }

    /// [`MemoryStore::sweep`], when it may have something to do: in a directory of many
    /// memories, listing it costs more than the save itself, so the sweep runs with
    /// about one save in 64 there (temporary files wait an hour anyway).
    fn sweep_now_and_then(&self) {
        let busy = self
            .with_index(|i| Ok(i.count(&crate::search::RowFilter::default())?))
            .ok()
            .flatten()
            .is_some_and(|n| n > 2_000);
        let roll = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        if !busy || roll.is_multiple_of(64) {
            let before = self.mtime_before_change();
            if self.sweep() {
                self.note_change(before, &[], &[]);
            }
        }
    }

    /// Removes what killed saves left behind: temporary files older than an hour, and
    /// lock files of memories that no longer exist (unless someone holds them).
    /// Returns whether a file of the memories directory itself was removed.
    pub fn sweep(&self) -> bool {
        let now = SystemTime::now();
        let mut removed = false;
        for e in fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            let name = e.file_name();
            let stale = name.to_string_lossy().starts_with(".tmp-")
                && e.file_type().is_ok_and(|t| t.is_file())
                && e.metadata()
                    .and_then(|m| m.modified())
                    .is_ok_and(|m| now.duration_since(m).unwrap_or_default() > STALE_TEMP);
            if stale {
                removed |= fs::remove_file(e.path()).is_ok();
            }
        }
        let locks = self.dir.join(LOCKS_DIR);
        if fs::symlink_metadata(&locks).is_ok_and(|m| m.is_dir()) {
            for e in fs::read_dir(&locks).into_iter().flatten().flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let Some(target) = name.strip_suffix(".lock") else {
                    continue;
                };
                let orphan = is_memory_file_name(target)
                    && fs::symlink_metadata(self.dir.join(target)).is_err()
                    && e.file_type().is_ok_and(|t| t.is_file());
                // Held by a writer that is still running: theirs to keep.
                if orphan && fs::File::open(e.path()).is_ok_and(|f| f.try_lock().is_ok()) {
                    let _ = fs::remove_file(e.path());
                }
            }
        }
        removed
    }

    /// Brings the search index fully up to date — every memory's size and time checked,
    /// those edited in place read again — or, with `rebuild`, builds it anew from the
    /// files. Slow on a large directory (a `stat` a memory, or reading them all): for
    /// `list-memories index` and the MCP server's start, never a hook.
    pub fn refresh_index(&self, rebuild: bool) -> Result<Option<IndexReport>, Error> {
        self.check_dir()?;
        if !self.dir.is_dir() {
            return Ok(None);
        }
        let mut cache = self.index.lock().unwrap_or_else(|p| p.into_inner());
        *cache = IndexCache::Unopened;
        let mut index = self.open_checked()?;
        if rebuild {
            // In place, in one transaction: the readers of the old file are never left
            // with a deleted one (which gave them "database disk image is malformed").
            index.rebuild()?;
        }
        let reread = index.verify()?;
        let report = IndexReport {
            path: index.path().to_path_buf(),
            memories: index.count(&crate::search::RowFilter::default())?,
            reread,
        };
        *cache = IndexCache::Open(Box::new(index));
        Ok(Some(report))
    }

    /// Checks every indexed memory against its file on a connection of its own (the
    /// cached one stays free for searches meanwhile) and reads again those edited in
    /// place, which the directory's time does not reveal. Returns how many were; `None`
    /// when there is no directory or no index. For the MCP server's start, in the
    /// background.
    pub fn verify_index(&self) -> Result<Option<usize>, Error> {
        self.check_dir()?;
        // An index not built yet has nothing stale in it; building it here would race
        // the first search, which builds it anyway.
        let db = self
            .dir
            .join(crate::search::index::INDEX_DIR)
            .join(crate::search::index::INDEX_DB);
        if !self.indexed || !self.dir.is_dir() || !db.is_file() {
            return Ok(None);
        }
        Ok(Some(self.open_checked()?.verify()?))
    }

    /// The index opened for a person waiting (no catch-up bound), its pages checked: a
    /// damaged page that no catching up read (the directory unchanged) would fail every
    /// search while `index` said "up to date", so a damaged index is replaced and read
    /// again from the files.
    fn open_checked(&self) -> Result<Index, Error> {
        let how = OpenOptions::INTERACTIVE;
        let mut index = Index::open(&self.dir, how, self.index_key())?;
        if let Err(e) = index.check() {
            if !crate::search::index::is_corrupt(&e) {
                return Err(e.into());
            }
            index = index.replaced(how)?;
            index.catch_up(None, None)?;
        }
        Ok(index)
    }

    /// Runs `work` on the search index of this store, up to date with its files, opened
    /// once a process as [`MemoryStore::in_hook`] says; `Ok(None)` when the directory
    /// does not exist. When no index can be kept on disk (a read-only directory), one
    /// is built in memory.
    ///
    /// A reader never fails on the index's account: "database is locked" is waited out
    /// (tried again within twice the lock wait, then an index in memory), and a damaged
    /// database is deleted and built again once.
    pub fn with_index<R>(
        &self,
        mut work: impl FnMut(&mut Index) -> Result<R, Error>,
    ) -> Result<Option<R>, Error> {
        self.check_dir()?;
        if !self.indexed || !self.dir.is_dir() {
            return Ok(None);
        }
        let started = std::time::Instant::now();
        let bound = self.index_options.busy * 2;
        let mut pause = std::time::Duration::from_millis(10);
        let mut repaired = false;
        loop {
            match self.with_index_once(&mut work) {
                Err(Error::Index(e)) if crate::search::index::is_busy(&e) => {
                    if started.elapsed() < bound {
                        std::thread::sleep(pause);
                        pause = (pause * 2).min(std::time::Duration::from_millis(200));
                        continue;
                    }
                    // Waited its bound: this process reads the files itself.
                    let mut cache = self.index.lock().unwrap_or_else(|p| p.into_inner());
                    *cache = match self.in_memory_index() {
                        Ok(index) => IndexCache::Open(Box::new(index)),
                        Err(IndexError::Behind { pending, .. }) => IndexCache::Behind(pending),
                        Err(e) => return Err(e.into()),
                    };
                }
                Err(Error::Index(e)) if crate::search::index::is_corrupt(&e) && !repaired => {
                    repaired = true;
                    let mut cache = self.index.lock().unwrap_or_else(|p| p.into_inner());
                    if let IndexCache::Open(index) = std::mem::take(&mut *cache) {
                        (*index).discard();
                    }
                }
                other => return other,
            }
        }
    }

    /// [`MemoryStore::with_index`], tried once.
    fn with_index_once<R>(
        &self,
        work: &mut impl FnMut(&mut Index) -> Result<R, Error>,
    ) -> Result<Option<R>, Error> {
        let mut cache = self.index.lock().unwrap_or_else(|p| p.into_inner());
        if let IndexCache::Open(index) = &mut *cache {
            // Opened earlier in this process: only what changed since (one `stat`).
            if index.catch_up_as(&self.index_options).is_err() {
                *cache = IndexCache::Unopened;
            }
        }
        if let IndexCache::Behind(pending) = *cache {
            return Err(IndexError::Behind {
                dir: self.dir.clone(),
                pending,
            }
            .into());
        }
        if matches!(*cache, IndexCache::Unopened) {
            *cache = match self.open_index() {
                Ok(index) => IndexCache::Open(Box::new(index)),
                Err(IndexError::Behind { pending, .. }) => IndexCache::Behind(pending),
                Err(e) => return Err(e.into()),
            };
        }
        match &mut *cache {
            IndexCache::Open(index) => work(index).map(Some),
            IndexCache::Behind(pending) => Err(IndexError::Behind {
                dir: self.dir.clone(),
                pending: *pending,
            }
            .into()),
            IndexCache::Unopened => Ok(None),
        }
    }

    /// Runs `work` on the search index as this process last left it, without catching it
    /// up first: for a change this process made, which [`Index::note`] takes in. Catching
    /// up would see the directory's time moved (by that very change), list every name
    /// in it and read the changed file twice: seconds per save in a directory of
    /// 100,000 memories. Not opened yet: as [`MemoryStore::with_index`].
    fn with_index_as_is<R>(
        &self,
        mut work: impl FnMut(&mut Index) -> Result<R, Error>,
    ) -> Result<Option<R>, Error> {
        let mut cache = self.index.lock().unwrap_or_else(|p| p.into_inner());
        if let IndexCache::Open(index) = &mut *cache {
            return work(index).map(Some);
        }
        drop(cache);
        self.with_index(work)
    }

    /// Opens the index on disk, else (a read-only directory, a full disk, a lock held too
    /// long) one in memory: the files are the truth, read into an index that lasts this
    /// process.
    fn open_index(&self) -> Result<Index, IndexError> {
        match Index::open(&self.dir, self.index_options, self.index_key()) {
            Err(e @ IndexError::Behind { .. }) => Err(e),
            // No key to bind an index on disk to: one in memory, as for a read-only
            // directory, and nothing to warn of.
            Err(IndexError::Unkeyed { .. }) => self.in_memory_index(),
            Err(e) => {
                if let Ok(mut w) = self.warnings.lock() {
                    w.push(format!("{e}; searched without it"));
                }
                self.in_memory_index()
            }
            ok => ok,
        }
    }

    /// An index of this store's files in memory, for this process alone, read within
    /// the same bounds as a catch-up.
    fn in_memory_index(&self) -> Result<Index, IndexError> {
        Index::in_memory(
            &self.dir,
            self.index_options.max_catch_up,
            self.index_options.max_catch_up_bytes,
            self.writer_key(),
        )
    }

    /// Runs `work` on the search index only when it is up to date without reading a
    /// file (nothing changed behind its back): for what a hook needs before it has
    /// written its memory, which must not wait on indexing someone else's files.
    fn with_index_if_current<R>(
        &self,
        work: impl FnOnce(&mut Index) -> Result<R, Error>,
    ) -> Option<R> {
        if self.check_dir().is_err() || !self.indexed || !self.dir.is_dir() {
            return None;
        }
        let mut cache = self.index.lock().unwrap_or_else(|p| p.into_inner());
        if matches!(*cache, IndexCache::Unopened) {
            let how = OpenOptions {
                max_catch_up: Some(0),
                max_catch_up_bytes: Some(0),
                partial: false,
                ..self.index_options
            };
            // Behind: left unopened, for the bounded catch-up after the write.
            if let Ok(index) = Index::open(&self.dir, how, self.index_key()) {
                *cache = IndexCache::Open(Box::new(index));
            }
        }
        let IndexCache::Open(index) = &mut *cache else {
            return None;
        };
        index.catch_up(Some(0), Some(0)).ok()?;
        work(index).ok()
    }

    /// The directory the memories are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes a new memory named after `created` (its local time) and the session, with
    /// `_2`, `_3`, … when the name is taken. Never replaces an existing memory.
    ///
    /// A `content` with front matter gets `created_ns` ([`crate::memory::document::WRITTEN_NS`]):
    /// the time of writing in nanoseconds (UTC), above that of the memories written just
    /// before (see [`MemoryStore::next_written_ns`]), so memories list in the order they
    /// were written whatever the clock and the time zone did; and, with a writer key,
    /// its MAC (`writer`, made for the name it gets).
    pub fn save_new(
        &self,
        created: &DateTime<FixedOffset>,
        session_id: &str,
        content: &str,
    ) -> Result<PathBuf, Error> {
        self.save_new_at(created, session_id, content, None)
    }

    /// [`MemoryStore::save_new`], with the time of writing given: `written_ns` (ns since
    /// the epoch, UTC) instead of now. `list-memories import` dates the memory of a past
    /// compaction at that compaction (docs/design.md §7.11), so that it lists among the
    /// memories of its time and never becomes the newest; a time after now is taken as
    /// now (a transcript's clock is not trusted).
    pub fn save_new_at(
        &self,
        created: &DateTime<FixedOffset>,
        session_id: &str,
        content: &str,
        written_ns: Option<u64>,
    ) -> Result<PathBuf, Error> {
        self.ensure_dir()?;
        let before = self.mtime_before_change();
        // Before the memory, so it is never in the directory unprotected. A failure
        // here must not cost the memory: the next save tries again.
        let _ = self.ensure_gitignore();
        let second = created.format("%Y%m%d_%H%M%S").to_string();
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        let written = match written_ns {
            Some(ns) if ns < now => ns,
            _ => self.next_written_ns(created),
        };
        let content = set_written_ns(content, written);
        let stem = format!("{second}_{}", sid8(session_id));
        let names = std::iter::once(format!("{stem}.md"))
            .chain((2..10_000).map(move |n| format!("{stem}_{n}.md")));
        // The MAC covers the file name: made for each name tried.
        let key = self.writer_key();
        let with_mac = |name: &str| match &key {
            Some(k) if FrontMatter::parse(&content).is_some() => k.sign(name, &content),
            _ => content.clone(),
        };
        let saved = fsutil::create_new_atomic_with(&self.dir, names, with_mac)
            .map_err(|e| Error::store("cannot write a memory in", &self.dir, e))?;
        if let Some(name) = saved.file_name().and_then(|n| n.to_str()) {
            self.note_change(before, &[name], &[]);
        }
        self.sweep_now_and_then();
        Ok(saved)
    }

    /// Now in nanoseconds since the Unix epoch (UTC), or just above the newest
    /// `created_ns` of the memories named within the last two days if the clock says
    /// otherwise (it stands still between two saves, or was put back a little). A
    /// memory dated more than ten minutes ahead is not "written just before" (a shipped
    /// one could otherwise push every later memory into the future).
    fn next_written_ns(&self, created: &DateTime<FixedOffset>) -> u64 {
        let now_time = SystemTime::now();
        let now = now_time
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        let limit = now.saturating_add(crate::memory::order::FUTURE_SLACK.as_nanos() as u64);
        // The newest `created_ns` of the memories written in the last two days (not one
        // dated in the future): the search index knows them; else the directory.
        let since = *created - chrono::Duration::days(2);
        // Only an index that is current as it is: this runs before the memory is written,
        // and a repository's files waiting to be indexed must never come first.
        let from_index = self.with_index_if_current(|index| {
            let since_ns = since.timestamp_nanos_opt().unwrap_or(i64::MIN);
            Ok(index.newest_written_between(since_ns, limit)?)
        });
        let newest_recent = match from_index {
            Some(newest) => newest,
            None => self.newest_written_by_listing(&since, limit),
        };
        match newest_recent {
            Some(n) if n >= now => n.saturating_add(1),
            _ => now,
        }
    }

    /// The newest `created_ns` at most `limit` of the memories named since `since`, from
    /// the directory itself (when the index cannot say).
    fn newest_written_by_listing(&self, since: &DateTime<FixedOffset>, limit: u64) -> Option<u64> {
        let since = since.format("%Y%m%d_%H%M%S").to_string();
        fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                parse_file_name(&name).is_some_and(|(second, _, _)| second >= since.as_str())
            })
            .filter_map(|e| read_head(&e.path()).and_then(|(_, ns)| ns))
            .filter(|ns| *ns <= limit)
            .max()
    }

    /// Writes the `.gitignore` that keeps the memories out of git, unless the directory
    /// has one already (the user's own is never replaced). Returns whether it wrote one.
    pub fn ensure_gitignore(&self) -> Result<bool, Error> {
        let path = self.dir.join(GITIGNORE_FILE);
        fsutil::create_if_absent(&path, GITIGNORE.as_bytes())
            .map_err(|e| Error::store("cannot write", &path, e))
    }

    /// The lock file that serialises the writers of `name` (a memory or the index).
    pub(super) fn lock_path(&self, name: &str) -> PathBuf {
        self.dir.join(LOCKS_DIR).join(format!("{name}.lock"))
    }

    /// Rewrites a memory under its lock: `edit` gets the current text and returns the
    /// new one (or `None` to leave it). Returns whether the file changed.
    pub fn update(
        &self,
        path: &Path,
        edit: impl FnOnce(&str) -> Option<String>,
    ) -> Result<bool, Error> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let lock_path = self.lock_path(&name);
        let _lock =
            Lock::acquire(&lock_path).map_err(|e| Error::store("cannot lock", &lock_path, e))?;
        let text = MemoryStore::read(path)?;
        let Some(new) = edit(&text) else {
            return Ok(false);
        };
        if new == text {
            return Ok(false);
        }
        // A memory of ours stays ours (an edit can change the headline the MAC covers);
        // a foreign one is never signed by an edit.
        let new = match self.writer_key() {
            Some(k) if k.verifies(&name, &text) => k.sign(&name, &new),
            _ => new,
        };
        let before = self.mtime_before_change();
        fsutil::replace_atomic(path, new.as_bytes())
            .map_err(|e| Error::store("cannot rewrite", path, e))?;
        self.note_change(before, &[&name], &[]);
        Ok(true)
    }

    /// Paths of the memory files, newest first ([`crate::memory::order::OrderKey`]). Only regular
    /// files count: a link or special file named like a memory is not one (a repository
    /// could commit a link to `/dev/zero`, or a FIFO).
    pub fn memory_files(&self) -> Result<Vec<PathBuf>, Error> {
        let listing = self.list(None, None)?;
        Ok(listing.memories.into_iter().map(|m| m.path).collect())
    }

    /// The memory files of the directory by the second in their names, newest first
    /// (`(second as a number, suffix, name)`), from one pass over the directory; `other`
    /// gets each other `.md` file's name but `INDEX.md`'s, and whether it is a regular
    /// file. Nothing is opened: the order of writing is the catalog's to find.
    pub(crate) fn memory_names(
        &self,
        mut other: impl FnMut(String, bool),
    ) -> Result<Vec<NamedFile>, Error> {
        self.check_dir()?;
        let entries = match fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::store("cannot list", &self.dir, e)),
        };
        // The second as the number its 14 digits make, so that sorting compares
        // integers and allocates nothing.
        let mut files: Vec<NamedFile> = Vec::new();
        for e in entries.flatten() {
            let is_file = e.file_type().is_ok_and(|t| t.is_file());
            let name = e
                .file_name()
                .into_string()
                .unwrap_or_else(|n| n.to_string_lossy().into_owned());
            if is_file && let Some((second, _, suffix)) = parse_file_name(&name) {
                let second = second
                    .bytes()
                    .filter(u8::is_ascii_digit)
                    .fold(0, |n, d| n * 10 + u64::from(d - b'0'));
                files.push((second, suffix.unwrap_or(1), name));
            } else if name.ends_with(".md") && name != INDEX_FILE {
                other(name, is_file);
            }
        }
        files.sort_unstable_by(|a, b| b.cmp(a));
        Ok(files)
    }

    /// [`MemoryStore::memory_names`], only of the `k` newest names and of every name
    /// whose memory could be newer than the `k`-th (its name's wall time within two days
    /// of it: a name is local time, UTC−12 to UTC+14), newest first. A session's start
    /// asks for the newest few of a directory that may hold 100,000: each name is judged
    /// by its first 15 bytes, and only those that can count are parsed and sorted.
    pub(crate) fn newest_memory_names(&self, k: usize) -> Result<Vec<NamedFile>, Error> {
        self.check_dir()?;
        let entries = match fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::store("cannot list", &self.dir, e)),
        };
        // The k newest seconds seen so far (a min-heap): a name more than two days
        // older than the smallest of them once there are k can never count.
        let mut top: std::collections::BinaryHeap<std::cmp::Reverse<u64>> = Default::default();
        let mut floor = 0u64;
        let mut kept: Vec<(u64, std::ffi::OsString)> = Vec::new();
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(second) = name_second(name.as_encoded_bytes()) else {
                continue;
            };
            if k == 0 || second < floor {
                continue;
            }
            // Only memory files count towards the k (a link or a bad name is no memory).
            let is_memory = e.file_type().is_ok_and(|t| t.is_file())
                && name.to_str().is_some_and(|n| parse_file_name(n).is_some());
            if !is_memory {
                continue;
            }
            top.push(std::cmp::Reverse(second));
            if top.len() > k {
                top.pop();
            }
            if top.len() == k
                && let Some(std::cmp::Reverse(kth)) = top.peek()
            {
                floor = two_days_before(*kth);
            }
            kept.push((second, name));
        }
        let mut files: Vec<NamedFile> = kept
            .into_iter()
            .filter(|(second, _)| *second >= floor)
            .filter_map(|(second, name)| {
                let name = name.into_string().ok()?;
                let (_, _, suffix) = parse_file_name(&name)?;
                Some((second, suffix.unwrap_or(1), name))
            })
            .collect();
        files.sort_unstable_by(|a, b| b.cmp(a));
        Ok(files)
    }

    /// The memories of `session_id` that this user's memory-stalker wrote, with their
    /// front matter, newest first (by the time of writing). A foreign memory (§4.10)
    /// never lends this session its task list, lasting facts or compaction.
    pub fn session_memories(
        &self,
        session_id: &str,
    ) -> impl Iterator<Item = (PathBuf, FrontMatter)> {
        let sid = sid8(session_id);
        let key = self.writer_key();
        // Newest first: the index's order, or the directory's names sorted by key.
        let names: Vec<String> = match self.with_index(|index| {
            let filter = crate::search::RowFilter {
                session: Some(session_id.to_string()),
                ..Default::default()
            };
            Ok(index.rows(&filter, usize::MAX, 0)?)
        }) {
            Ok(Some(rows)) => rows.into_iter().map(|r| r.entry.file).collect(),
            Ok(None) => Vec::new(),
            // The index is behind (a hook may not wait for it): the directory itself.
            Err(_) => self
                .memory_names(|_, _| {})
                .unwrap_or_default()
                .into_iter()
                .map(|(_, _, n)| n)
                .filter(|n| parse_file_name(n).is_some_and(|(_, s, _)| s == sid))
                .collect(),
        };
        // Only the user's own memories of the session: a foreign one (shipped with the
        // repository) never feeds what later memories carry.
        let mut found: Vec<(OrderKey, PathBuf, FrontMatter)> = names
            .into_iter()
            .filter_map(|name| {
                let path = self.dir.join(&name);
                let (f, meta) = fsutil::open_regular_with_metadata(&path, false, None).ok()?;
                let mut buf = Vec::new();
                let end = read_head_bytes(f, &mut buf)?;
                let head = lossy(&buf[..end]);
                let (fm, ns, _) = FrontMatter::parse_with_written_ns(&head)?;
                let ours = key.as_ref().is_some_and(|k| k.verifies(&name, &head));
                (ours && fm.session_id == session_id).then(|| {
                    let order = OrderKey::new(&name, &fm.created, ns, meta.modified().ok());
                    (order, path, fm)
                })
            })
            .collect();
        found.sort_by(|a, b| b.0.cmp(&a.0));
        found.into_iter().map(|(_, p, fm)| (p, fm))
    }

    /// What earlier memories of this session recorded about the task list, by transcript
    /// size: the reader need not search past them.
    pub fn checkpoints(&self, session_id: &str, transcript: &Path) -> Vec<TaskCheckpoint> {
        if session_id.is_empty() {
            return Vec::new();
        }
        let found: Vec<(PathBuf, FrontMatter)> = self.session_memories(session_id).collect();
        checkpoints_in(found.iter().map(|(_, fm)| fm), transcript)
    }
}

/// The task lists of `memories` (a session's, newest first) that are of `transcript`,
/// as [`MemoryStore::checkpoints`] gives them.
pub fn checkpoints_in<'a>(
    memories: impl IntoIterator<Item = &'a FrontMatter>,
    transcript: &Path,
) -> Vec<TaskCheckpoint> {
    let transcript = transcript.to_string_lossy();
    // The newest memories record the largest sizes: they are the ones that can help.
    memories
        .into_iter()
        .filter(|fm| fm.transcript == transcript)
        .take(3)
        .filter_map(|fm| {
            Some(TaskCheckpoint {
                bytes: fm.transcript_bytes?,
                todos: fm.todos.clone()?,
            })
        })
        .collect()
}

/// The second a memory file's name starts with (`YYYYMMDD_HHMMSS`) as the number its 14
/// digits make, when the name starts so.
fn name_second(name: &[u8]) -> Option<u64> {
    let head = name.get(..15)?;
    if head[8] != b'_' {
        return None;
    }
    head.iter()
        .enumerate()
        .filter(|(i, _)| *i != 8)
        .try_fold(0u64, |n, (_, d)| {
            d.is_ascii_digit().then(|| n * 10 + u64::from(d - b'0'))
        })
}

/// The second two days before `second` (both as [`name_second`] makes them); 0 when it
/// is no date.
fn two_days_before(second: u64) -> u64 {
    let text = format!("{second:014}");
    chrono::NaiveDateTime::parse_from_str(&text, "%Y%m%d%H%M%S")
        .ok()
        .and_then(|t| t.checked_sub_signed(chrono::TimeDelta::days(2)))
        .and_then(|t| t.format("%Y%m%d%H%M%S").to_string().parse().ok())
        .unwrap_or(0)
}

/// A memory file's name with the order its name gives: `(second as a number, suffix,
/// name)` ([`MemoryStore::memory_names`]).
pub(crate) type NamedFile = (u64, u32, String);

/// The stores a configuration names, reached as `config.store(project)`; written here so
/// that `config`, a base module, knows nothing of the store.
impl Config {
    /// The memory store of a project: `MEMORY_STALKER_DIR` if set (the user's choice,
    /// links followed), else `<project>/.claude/memories`, reached without following
    /// links.
    pub fn store(&self, project: &Path) -> MemoryStore {
        let store = match &self.memories_dir {
            Some(_) => MemoryStore::new(self.memories_dir(project)).scoped_to(project),
            None => MemoryStore::for_project(project),
        };
        let store = store.with_writer(self.writer.clone());
        if self.in_hook { store.in_hook() } else { store }
    }

    /// The store of the memories in `dir` (the fallback directory, or the directory of a
    /// memory being edited), with this user's writer key.
    pub fn store_at(&self, dir: &Path) -> MemoryStore {
        MemoryStore::new(dir).with_writer(self.writer.clone())
    }

    /// The memories directory of a project, honouring `MEMORY_STALKER_DIR`.
    pub fn memories_dir(&self, project: &Path) -> PathBuf {
        match &self.memories_dir {
            Some(d) if d.is_absolute() => d.clone(),
            Some(d) => project.join(d),
            None => project.join(MEMORIES_DIR),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_names_are_those_a_full_listing_puts_first() {
        let dir = tempfile::tempdir().unwrap();
        let mut names = Vec::new();
        // A name a day for 300 days, and an older one in another time zone's day.
        for day in 0..300u32 {
            let t = chrono::NaiveDate::from_ymd_opt(2025, 1, 1).unwrap()
                + chrono::TimeDelta::days(i64::from(day));
            names.push(format!("{}_120000_5e551011.md", t.format("%Y%m%d")));
        }
        names.push("20251027_235959_0a0a0a0a_2.md".into());
        for n in &names {
            fs::write(dir.path().join(n), "x").unwrap();
        }
        fs::write(dir.path().join("notes.md"), "x").unwrap();
        fs::write(dir.path().join("20991231_235959_.md"), "x").unwrap();
        std::os::unix::fs::symlink(
            dir.path().join(&names[0]),
            dir.path().join("20991231_235959_11111111.md"),
        )
        .unwrap();
        let store = MemoryStore::new(dir.path());
        let all = store.memory_names(|_, _| {}).unwrap();
        let newest = store.newest_memory_names(5).unwrap();
        // The 5 newest, then every name within two days of the 5th, in the same order.
        assert_eq!(newest[..], all[..newest.len()]);
        assert_eq!(newest.len(), 7, "{newest:?}");
        assert_eq!(newest[0].2, "20251027_235959_0a0a0a0a_2.md");
        assert_eq!(newest[6].2, "20251022_120000_5e551011.md");
        assert!(store.newest_memory_names(0).unwrap().is_empty());
    }

    #[test]
    fn a_name_gives_its_second_and_two_days_before_it() {
        assert_eq!(name_second(b"20260301_000000_abc.md"), Some(20260301000000));
        assert_eq!(name_second(b"2026030100000_abc.md"), None);
        assert_eq!(name_second(b"2026x301_000000_abc.md"), None);
        assert_eq!(name_second(b"short.md"), None);
        assert_eq!(two_days_before(20260301000000), 20260227000000);
        assert_eq!(two_days_before(99), 0);
    }

    /// A store in `dir` whose memories are signed with a key of its own.
    fn signed(dir: &Path) -> MemoryStore {
        let writer = Writer::at(dir.join(".key/writer.key"));
        writer.key_or_create().unwrap();
        MemoryStore::new(dir).with_writer(Some(Arc::new(writer)))
    }

    fn memory(sid: &str) -> String {
        format!("---\nsession_id: \"{sid}\"\ncreated: \"2026-01-29T17:30:00+08:00\"\n---\nbody\n")
    }

    #[test]
    fn save_new_adds_suffixes_signs_and_lists_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        let store = signed(&dir.path().join("m"));
        let t = DateTime::parse_from_rfc3339("2026-01-29T17:30:00+08:00").unwrap();
        let a = store
            .save_new(&t, "sess-abc-123", &memory("sess-abc-123"))
            .unwrap();
        let b = store
            .save_new(&t, "sess-abc-123", &memory("sess-abc-123"))
            .unwrap();
        assert!(a.ends_with("20260129_173000_sess-abc.md"));
        assert!(b.ends_with("20260129_173000_sess-abc_2.md"));
        let files = store.memory_files().unwrap();
        assert_eq!(files, vec![b.clone(), a]);
        // Each is signed for its own name.
        let listing = store.list(None, None).unwrap();
        assert!(
            listing
                .memories
                .iter()
                .all(|m| m.provenance == crate::provenance::Provenance::Ours)
        );
        let text = fs::read_to_string(&b).unwrap();
        let key = store.writer_key().unwrap();
        assert!(key.verifies("20260129_173000_sess-abc_2.md", &text));
        assert!(!key.verifies("20260129_173000_sess-abc.md", &text));
    }

    /// Issue 25, defects 5 and 6: saved in Tokyo, then in Los Angeles (an earlier wall
    /// clock, a later instant), or across the end of summer time: the later one is the
    /// newest. Within a second the order of writing holds even when the clock stands
    /// still; a sibling dated in the future does not drag new memories into it.
    #[test]
    fn memories_list_in_the_order_of_writing_whatever_the_wall_clock() {
        let dir = tempfile::tempdir().unwrap();
        let store = signed(dir.path());
        // Today's times, as a hook would name them: a memory's instant is read within a
        // day of its name, so fixed dates would stop meaning "now" the day after.
        let now = chrono::Utc::now();
        let zone = |hours: i32| FixedOffset::east_opt(hours * 3600).unwrap();
        let tokyo = now.with_timezone(&zone(9));
        let la = (now + chrono::Duration::seconds(5)).with_timezone(&zone(-8));
        let a = store.save_new(&tokyo, "aaaa", &memory("aaaa")).unwrap();
        let b = store.save_new(&la, "bbbb", &memory("bbbb")).unwrap();
        assert_eq!(store.memory_files().unwrap(), vec![b.clone(), a.clone()]);
        // A file dated far in the future is listed first by its own date, and the next
        // memory is still written at now.
        let z = dir.path().join("20260129_173000_zzzz.md");
        let future = u64::MAX - 10;
        let text = memory("zzzz").replace("---\nbody", &format!("created_ns: {future}\n---\nbody"));
        fs::write(&z, text).unwrap();
        let m = store.save_new(&la, "mmmm", &memory("mmmm")).unwrap();
        let n = store.save_new(&la, "nnnn", &memory("nnnn")).unwrap();
        let ns = |p: &Path| read_head(p).unwrap().1.unwrap();
        assert!(ns(&m) < future && ns(&n) > ns(&m));
        let order = store.memory_files().unwrap();
        assert_eq!(&order[..4], &[n, m, b, a]);
        assert!(order.contains(&z));
    }

    /// Issue 25, defect 7: an edit of one of ours (the worker's headline, PostCompact's
    /// trigger) keeps it ours; an edit never makes a foreign memory ours.
    #[test]
    fn edits_sign_again_only_what_was_ours() {
        let dir = tempfile::tempdir().unwrap();
        let store = signed(dir.path());
        let t = DateTime::parse_from_rfc3339("2026-01-29T17:30:00+08:00").unwrap();
        let text = memory("s").replace("---\nbody", "summary: \"old\"\n---\nbody");
        let ours = store.save_new(&t, "s", &text).unwrap();
        store
            .update(&ours, |t| {
                Some(crate::memory::document::set_front_matter_field(
                    t, "summary", "\"new\"",
                ))
            })
            .unwrap();
        let key = store.writer_key().unwrap();
        let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
        let edited = fs::read_to_string(&ours).unwrap();
        assert!(edited.contains("summary: \"new\"") && key.verifies(&name(&ours), &edited));
        let foreign = dir.path().join("20260129_173001_other.md");
        fs::write(&foreign, memory("other")).unwrap();
        store
            .update(&foreign, |t| Some(format!("{t}more\n")))
            .unwrap();
        assert!(!key.verifies(&name(&foreign), &fs::read_to_string(&foreign).unwrap()));
    }

    /// Issue 12, defect 8: temp files of killed saves (21 MB of them) and locks of
    /// pruned memories were never cleaned.
    #[test]
    fn a_save_sweeps_stale_temp_files_and_orphaned_locks() {
        let dir = tempfile::tempdir().unwrap();
        let store = MemoryStore::new(dir.path());
        let t = DateTime::parse_from_rfc3339("2026-01-29T17:30:00+00:00").unwrap();
        let kept = store.save_new(&t, "keep", "kept").unwrap();
        let old = SystemTime::now() - std::time::Duration::from_secs(2 * 3600);
        let stale = dir.path().join(".tmp-1-2-0");
        fs::write(&stale, "half a memory").unwrap();
        fs::File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let fresh = dir.path().join(".tmp-3-4-0");
        fs::write(&fresh, "a save under way").unwrap();
        let locks = dir.path().join(LOCKS_DIR);
        fs::create_dir_all(&locks).unwrap();
        let orphan = locks.join("20250101_000000_gone.md.lock");
        let live = locks.join(format!(
            "{}.lock",
            kept.file_name().unwrap().to_string_lossy()
        ));
        let held_orphan = locks.join("20250101_000001_held.md.lock");
        for l in [&orphan, &live, &held_orphan] {
            fs::write(l, "").unwrap();
        }
        let holder = Lock::acquire(&held_orphan).unwrap();
        store.save_new(&t, "next", "next").unwrap();
        assert!(!stale.exists() && fresh.exists());
        assert!(!orphan.exists() && live.exists() && held_orphan.exists());
        drop(holder);
    }

    #[test]
    fn update_rewrites_under_lock() {
        let dir = tempfile::tempdir().unwrap();
        let store = MemoryStore::new(dir.path());
        let t = DateTime::parse_from_rfc3339("2026-01-29T17:30:00+00:00").unwrap();
        let p = store.save_new(&t, "s", "hello").unwrap();
        assert!(store.update(&p, |t| Some(format!("{t} world"))).unwrap());
        assert!(!store.update(&p, |_| None).unwrap());
        assert_eq!(fs::read_to_string(&p).unwrap(), "hello world");
    }

    #[test]
    fn concurrent_updates_of_one_memory_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = MemoryStore::new(dir.path());
        let t = DateTime::parse_from_rfc3339("2026-01-29T17:30:00+00:00").unwrap();
        let path = store.save_new(&t, "s", "a=0\nb=0\n").unwrap();
        let bump = |key: &'static str| {
            let (store, path) = (store.clone(), path.clone());
            std::thread::spawn(move || {
                for _ in 0..50 {
                    store
                        .update(&path, |text| {
                            Some(
                                text.lines()
                                    .map(|l| match l.split_once('=') {
                                        Some((k, v)) if k == key => {
                                            format!("{k}={}\n", v.parse::<u32>().unwrap() + 1)
                                        }
                                        _ => format!("{l}\n"),
                                    })
                                    .collect(),
                            )
                        })
                        .unwrap();
                }
            })
        };
        let (a, b) = (bump("a"), bump("b"));
        a.join().unwrap();
        b.join().unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "a=50\nb=50\n");
    }
}
