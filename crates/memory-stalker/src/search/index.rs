//! The search index of one memories directory: a SQLite database (FTS5) derived from
//! the memory files, which stay the truth (docs/design.md §7.10).
//!
//! It lives in `<memories>/.index/search.sqlite3`, git-ignored with the memories. Its
//! own files (the WAL and shared-memory files come and go) are in that subdirectory, so
//! that the memories directory's modification time changes only when a file in it
//! does: that time, recorded when the index last matched the directory, is how a stale
//! index is told from a fresh one at the cost of one `stat`.
//!
//! Who changes a memory tells the index (the save, the summary worker's and
//! PostCompact's edits, prune, INDEX.md); a change made behind its back (by hand, by
//! git) moves the directory's time and is reconciled on the next open, by comparing the
//! directory's names and inode numbers with the rows. An edit in place (same inode, the
//! directory untouched) is caught when the memory is shown (its size and time are
//! checked) and by [`Index::verify`]. A missing, corrupt or foreign index is rebuilt
//! from the files; deleting it loses nothing.

use std::collections::HashMap;
use std::os::unix::fs::{DirEntryExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use super::fields::{Field, Fields, fields_of, for_index};
pub use crate::error::IndexError;
use crate::fsutil;
use crate::memory::document::FrontMatter;
use crate::memory::entry::{
    MAX_LEGACY_BYTES, MAX_LEGACY_LEN, MemoryEntry, display_date, entry_from, legacy_from_text,
};
use crate::memory::file::INDEX_FILE;
use crate::memory::file::{MAX_MEMORY_BYTES, is_memory_file_name, lossy};
use crate::memory::order::written_ns as written_instant;
use crate::provenance::{Provenance, WriterKey, verdict};
use crate::text::prefix_chars;

/// The index's directory inside the memories directory.
pub const INDEX_DIR: &str = ".index";
/// The database file inside [`INDEX_DIR`].
pub const INDEX_DB: &str = "search.sqlite3";

/// Version of the schema and of what is indexed (fields, tokenizer, CJK pairs): an index
/// of another version is rebuilt.
const SCHEMA_VERSION: i64 = 10;

/// What the index's owner MAC is over ([`Index::owner`]).
const OWNER_TAG: &str = "memory-stalker search index";

/// Files read and indexed per transaction while (re)building: bounds the memory a
/// rebuild holds and the time the write lock is held.
const CHUNK: usize = 500;

/// Most bytes of memory files a hook indexes when it opens the index: about 400
/// ordinary memories, a fraction of a second.
const HOOK_CATCH_UP_BYTES: u64 = 4 * 1024 * 1024;

/// Most files the MCP server reads into the index before answering, when many arrived
/// behind its back (a backup restored, a shared directory pulled): a slice of a few
/// hundred milliseconds; the rest is read in the background (docs/design.md §7.10).
const SERVER_SLICE: usize = 1_000;
/// Most bytes of files in that slice.
const SERVER_SLICE_BYTES: u64 = 32 * 1024 * 1024;

/// How an index is opened.
#[derive(Debug, Clone, Copy)]
pub struct OpenOptions {
    /// How long to wait for another process's write lock.
    pub busy: Duration,
    /// Most files to (re)index on open, when the directory changed behind the index's
    /// back; more is [`IndexError::Behind`]. `None`: no limit (a person is waiting and
    /// told so; a hook must not wait that long).
    pub max_catch_up: Option<usize>,
    /// Most bytes of files to (re)index on open, the same way: a repository that ships
    /// a few hundred memories near the 8 MiB cap must not cost a hook seconds of
    /// indexing (docs/design.md §7.10). `None`: no limit.
    pub max_catch_up_bytes: Option<u64>,
    /// Whether closing the connection copies what the write-ahead log holds into the
    /// database (a checkpoint: two `fsync`s). A hook leaves that to the next reader
    /// that checkpoints, or to SQLite's automatic checkpoint once the log reaches 1,000
    /// pages (about 4 MB).
    pub checkpoint_on_close: bool,
    /// When more than `max_catch_up` files (or bytes) changed: read the newest that fit
    /// and leave the rest for a later open ([`Index::unread`] counts them), instead of
    /// [`IndexError::Behind`]. For the MCP server: a model waits, and its answer says
    /// it is partial.
    pub partial: bool,
}

impl OpenOptions {
    /// For a hook: short waits, a bounded catch-up.
    pub const HOOK: OpenOptions = OpenOptions {
        busy: Duration::from_millis(300),
        max_catch_up: Some(400),
        max_catch_up_bytes: Some(HOOK_CATCH_UP_BYTES),
        checkpoint_on_close: false,
        partial: false,
    };
    /// For a session's start: nothing written behind the index's back is read (a
    /// repository's files are not the recall's to pay for); the directory is listed
    /// instead.
    pub const SESSION_START: OpenOptions = OpenOptions {
        busy: Duration::from_millis(300),
        max_catch_up: Some(0),
        max_catch_up_bytes: Some(0),
        checkpoint_on_close: false,
        partial: false,
    };
    /// For a command a person runs (who is told when the index is being built).
    pub const INTERACTIVE: OpenOptions = OpenOptions {
        busy: Duration::from_secs(5),
        max_catch_up: None,
        max_catch_up_bytes: None,
        checkpoint_on_close: true,
        partial: false,
    };
    /// For the MCP server: as [`OpenOptions::INTERACTIVE`], but what arrived behind the
    /// index's back is read a slice at a time, newest first.
    pub const SERVER: OpenOptions = OpenOptions {
        max_catch_up: Some(SERVER_SLICE),
        max_catch_up_bytes: Some(SERVER_SLICE_BYTES),
        partial: true,
        ..OpenOptions::INTERACTIVE
    };
}

/// An open, up-to-date index of one memories directory.
pub struct Index {
    pub(super) conn: Connection,
    dir: PathBuf,
    db: PathBuf,
    /// This user's writer key: which memories are theirs (docs/design.md §4.10).
    key: Option<WriterKey>,
    /// What `meta.owner` must say for this index to be trusted ([`owner_of`]).
    owner: String,
    /// The database file's inode when opened: deleting it because it is damaged or not
    /// ours must not delete a new one another process made meanwhile.
    ino: Option<i64>,
    /// Memory files the last catch-up left unread ([`OpenOptions::partial`]).
    unread: usize,
}

/// A memory as the index holds it: its listing entry and what else filters and the
/// order need.
#[derive(Debug, Clone)]
pub struct Row {
    /// The memory as listings show it.
    pub entry: MemoryEntry,
    /// Its place in the order of memories: UTC nanoseconds of its writing.
    pub order_ns: i64,
    /// Which agent's session it is (`claude-code`, `codex`).
    pub agent: String,
    /// The project it was saved for.
    pub project: String,
    /// Why it cannot be read whole (too large), if so.
    pub problem: Option<String>,
    /// The row's id (the FTS rowid).
    pub(super) id: i64,
    /// The file's inode, size and modification time (ns) when it was indexed: an edit in
    /// place that the directory's time does not show differs from them.
    pub(super) stat: (i64, i64, i64),
}

impl Index {
    /// Opens (creating it if needed) the index of the memories directory `dir`, and
    /// brings it up to date with the directory. `dir` must exist.
    ///
    /// Without a writer key there is no index on disk ([`IndexError::Unkeyed`]): what
    /// one holds is trusted only when its owner is this user's MAC over this directory
    /// ([`owner_of`]), so the key must exist before any index does.
    pub fn open(dir: &Path, how: OpenOptions, key: Option<WriterKey>) -> Result<Index, IndexError> {
        let key = key.ok_or_else(|| IndexError::Unkeyed {
            dir: dir.to_path_buf(),
        })?;
        let mut index = Index::open_db(dir, how, true, key.clone())?;
        match index.catch_up_as(&how) {
            Err(e) if is_corrupt(&e) => {
                index = index.replaced(how)?;
                index.catch_up_as(&how)?;
            }
            other => {
                other?;
            }
        }
        Ok(index)
    }

    /// Closes this index and deletes its file (when it is still the one this connection
    /// opened): a damaged database, found so by a search; the next open builds it again.
    pub(crate) fn discard(self) {
        if !self.is_on_disk() {
            return;
        }
        let Index { conn, dir, ino, .. } = self;
        drop(conn);
        replace_db(&dir, ino);
    }

    /// This index's file deleted (when it is still the one this connection opened) and
    /// made anew: for a damaged database, which no statement can repair.
    pub(crate) fn replaced(self, how: OpenOptions) -> Result<Index, IndexError> {
        let Index {
            conn,
            dir,
            key,
            ino,
            ..
        } = self;
        drop(conn);
        replace_db(&dir, ino);
        let key = key.ok_or_else(|| IndexError::Unkeyed { dir: dir.clone() })?;
        Index::open_db(&dir, how, true, key)
    }

    /// An index in memory of `dir`'s files, for when none can be kept on disk (a
    /// read-only directory): the same answers, built anew each time. `max` bounds the
    /// files read as [`OpenOptions::max_catch_up`] does.
    pub fn in_memory(
        dir: &Path,
        max: Option<usize>,
        max_bytes: Option<u64>,
        key: Option<WriterKey>,
    ) -> Result<Index, IndexError> {
        let db = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory()
            .and_then(with_functions)
            .map_err(|source| IndexError::Sqlite {
                path: db.clone(),
                source,
            })?;
        let mut index = Index {
            conn,
            dir: dir.to_path_buf(),
            db,
            key,
            owner: "in memory".into(),
            ino: None,
            unread: 0,
        };
        index.create_schema()?;
        index.catch_up(max, max_bytes)?;
        Ok(index)
    }

    fn open_db(
        dir: &Path,
        how: OpenOptions,
        create: bool,
        key: WriterKey,
    ) -> Result<Index, IndexError> {
        let index_dir = dir.join(INDEX_DIR);
        let made = if create {
            fsutil::ensure_dir_no_follow(dir, Path::new(INDEX_DIR))
        } else {
            fsutil::check_no_follow(dir, Path::new(INDEX_DIR))
        };
        made.map_err(|source| IndexError::Io {
            path: index_dir.clone(),
            source,
        })?;
        let db = index_dir.join(INDEX_DB);
        let owner = owner_of(&key, dir).map_err(|source| IndexError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let connected = |db: &Path| -> Result<Index, IndexError> {
            let conn = connect(db, how, create)?;
            Ok(Index {
                conn,
                dir: dir.to_path_buf(),
                db: db.to_path_buf(),
                key: Some(key.clone()),
                owner: owner.clone(),
                ino: stat(db).map(|s| s.0),
                unread: 0,
            })
        };
        let mut index = connected(&db)?;
        let opened = index.ino;
        match index.prepare() {
            // Not a database, a damaged one, or one not made here (shipped, copied, its
            // schema odd in any way): it is only derived from the files, and nothing in
            // it is trusted, so the file goes rather than being edited in place — a
            // trigger or a view of its own would outlive any statement of ours.
            Err(e) if create && (is_corrupt(&e) || matches!(e, IndexError::Foreign { .. })) => {
                drop(index);
                replace_db(dir, opened);
                index = connected(&db)?;
                index.prepare()?;
            }
            other => other?,
        }
        Ok(index)
    }

    /// WAL (readers never wait for a writer), then the schema: created when absent,
    /// dropped and created again when of another version or owner.
    fn prepare(&mut self) -> Result<(), IndexError> {
        let db = self.db.clone();
        let sqlite = |source| IndexError::Sqlite {
            path: db.clone(),
            source,
        };
        // A file just made holds nothing to lose: switching it to WAL and writing the
        // schema need not wait on the disk (six syncs, most of a project's first save).
        // A crash before the disk has it leaves a file that reads as empty or damaged,
        // and either is made again here. Every later change syncs as usual.
        let fresh = std::fs::metadata(&self.db).is_ok_and(|m| m.len() == 0);
        let synchronous = if fresh { "OFF" } else { "NORMAL" };
        self.conn
            .pragma_update(None, "synchronous", synchronous)
            .map_err(sqlite)?;
        self.conn
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(sqlite)?;
        // Read first without a lock (the usual case: the schema is ours and current);
        // `create_schema` looks again under the write lock.
        match schema_state(&self.conn, &self.owner) {
            Ok(Schema::Current) => Ok(()),
            // Ours, of an older version, or a new file: made (again) in place, under the
            // write lock.
            Ok(Schema::Old | Schema::Empty) => self.create_schema(),
            Err(e) if is_busy_sqlite(&e) || is_corrupt_sqlite(&e) => Err(sqlite(e)),
            Ok(Schema::NotOurs) | Err(_) => Err(IndexError::Foreign {
                path: self.db.clone(),
            }),
        }?;
        if fresh {
            self.conn
                .pragma_update(None, "synchronous", "NORMAL")
                .map_err(sqlite)?;
        }
        Ok(())
    }

    /// Builds the index anew from the files, in place and in one transaction: a reader
    /// meanwhile sees the old index whole, then the new one whole — never a file deleted
    /// under it ("database disk image is malformed") nor an index half built (a search
    /// that found nothing). Writers wait for it as for any writer.
    pub fn rebuild(&mut self) -> Result<usize, IndexError> {
        let io = |source| IndexError::Io {
            path: self.dir.clone(),
            source,
        };
        let before = dir_mtime(&self.dir).map_err(io)?;
        let listed = list_dir(&self.dir).map_err(io)?;
        let mut names: Vec<String> = listed.memories.keys().cloned().collect();
        names.sort_unstable();
        let (dir, db, key) = (self.dir.clone(), self.db.clone(), self.key.clone());
        let sqlite = |e| sqlite_at(&db, e);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(sqlite)?;
        make_schema(&tx, &self.owner).map_err(sqlite)?;
        for (file, reason) in &listed.skipped {
            tx.execute(
                "INSERT OR REPLACE INTO skipped (file, reason) VALUES (?1, ?2)",
                params![file, reason],
            )
            .map_err(sqlite)?;
        }
        // Read a chunk at a time (the memory held stays bounded), written in the one
        // transaction.
        for chunk in names.chunks(CHUNK) {
            for (name, doc) in chunk.iter().zip(read_docs(&dir, chunk, key.as_ref())) {
                put_doc(&tx, name, doc).map_err(sqlite)?;
            }
        }
        tx.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('dir_mtime', ?1)",
            [before],
        )
        .map_err(sqlite)?;
        tx.commit().map_err(sqlite)?;
        if names.len() >= CHUNK {
            // Only tidying: a reader holding the file may keep it from shrinking now.
            let _ = self.compact();
        }
        Ok(names.len())
    }

    /// Whether SQLite finds the database sound (`PRAGMA quick_check`: every page read,
    /// no index compared with its table; a fraction of a second at 100,000 memories). A
    /// damaged page is otherwise found only by the search that reads it.
    pub fn check(&self) -> Result<(), IndexError> {
        let mut st = self
            .conn
            .prepare("PRAGMA quick_check")
            .map_err(|e| self.sqlite(e))?;
        let verdict: Vec<String> = st
            .query_map([], |r| r.get(0))
            .and_then(Iterator::collect)
            .map_err(|e| self.sqlite(e))?;
        if verdict == ["ok"] {
            return Ok(());
        }
        Err(self.sqlite(corrupt_error(&format!(
            "quick_check: {}",
            verdict.join("; ")
        ))))
    }

    /// Creates the schema, dropping an old one, unless it is current by the time the
    /// write lock is held: two processes that both found no index (or one of an old
    /// version) must not both build it, the second dropping what the first indexed
    /// meanwhile. The second waits for the first's lock, then finds its schema and
    /// uses it. `meta.built` counts the builds of this database file.
    fn create_schema(&mut self) -> Result<(), IndexError> {
        let owner = self.owner.clone();
        let db = self.db.clone();
        let sqlite = |source| IndexError::Sqlite {
            path: db.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(sqlite)?;
        if schema_is_current(&tx, &owner).map_err(sqlite)? {
            return tx.commit().map_err(sqlite);
        }
        // An older version (9 had no tables of items by file and error, 8 neither) is
        // made anew: those tables are filled only by reading every memory.
        make_schema(&tx, &owner).map_err(sqlite)?;
        tx.commit().map_err(sqlite)
    }

    pub(super) fn sqlite(&self, source: rusqlite::Error) -> IndexError {
        IndexError::Sqlite {
            path: self.db.clone(),
            source,
        }
    }

    /// The memories directory this indexes.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether this index is the file on disk that other processes read (not one built
    /// in memory for this process alone).
    pub fn is_on_disk(&self) -> bool {
        self.db.as_os_str() != ":memory:"
    }

    /// The directory's modification time the index was last known to match.
    fn synced_mtime(&self) -> Result<Option<i64>, IndexError> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = 'dir_mtime'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.sqlite(e))
    }

    /// Brings the index up to date with the directory when the directory changed since
    /// it last matched: files added, replaced (a new inode) or removed are indexed or
    /// dropped. Returns how many files were (re)indexed.
    /// `max` and `max_bytes` bound the files read ([`OpenOptions::max_catch_up`]).
    pub fn catch_up(
        &mut self,
        max: Option<usize>,
        max_bytes: Option<u64>,
    ) -> Result<usize, IndexError> {
        self.catch_up_bounded(max, max_bytes, false)
    }

    /// [`Index::catch_up`] within the bounds of `how`, a slice at a time when it says
    /// [`OpenOptions::partial`].
    pub fn catch_up_as(&mut self, how: &OpenOptions) -> Result<usize, IndexError> {
        self.catch_up_bounded(how.max_catch_up, how.max_catch_up_bytes, how.partial)
    }

    /// How many memory files the last catch-up left unread (a partial one): what a
    /// search of this index did not see.
    pub fn unread(&self) -> usize {
        self.unread
    }

    fn catch_up_bounded(
        &mut self,
        max: Option<usize>,
        max_bytes: Option<u64>,
        partial: bool,
    ) -> Result<usize, IndexError> {
        let before = dir_mtime(&self.dir).map_err(|source| IndexError::Io {
            path: self.dir.clone(),
            source,
        })?;
        if self.synced_mtime()? == Some(before) {
            self.unread = 0;
            return Ok(0);
        }
        // A caller that may index nothing (a session's start) is told so at once: the
        // listing that would count what changed costs as much as the directory is large
        // (100,000 names), and it lists the directory itself anyway.
        if max == Some(0) {
            return Err(IndexError::Behind {
                dir: self.dir.clone(),
                pending: None,
            });
        }
        // What the index holds is read before the directory is listed: a memory another
        // process writes and indexes in between is then listed but not known (indexed
        // again, harmless), never known but not listed, which would drop its row as
        // removed — and the directory's time, which the file's creation may leave where
        // it was (coarse file-system clocks), would keep the next open from looking again.
        let known = self.known_files()?;
        let listed = list_dir(&self.dir).map_err(|source| IndexError::Io {
            path: self.dir.clone(),
            source,
        })?;
        let mut pending = Vec::new();
        for (name, ino) in &listed.memories {
            if known.get(name).is_none_or(|k| k.ino != *ino as i64) {
                pending.push(name.clone());
            }
        }
        // Oldest first (a name starts with its time): new rows come in the order of
        // memories.
        pending.sort_unstable();
        let gone: Vec<i64> = known
            .iter()
            .filter(|(name, _)| !listed.memories.contains_key(*name))
            .map(|(_, k)| k.id)
            .collect();
        if partial {
            let slice = newest_within(&self.dir, &pending, max, max_bytes);
            if slice.len() < pending.len() {
                // Not recorded as caught up: the next open lists the directory again and
                // reads the next slice (or finds what another process read meanwhile).
                self.index_files(&slice, &gone, Some(&listed.skipped), None)?;
                self.unread = pending.len() - slice.len();
                return Ok(slice.len());
            }
        }
        let behind = IndexError::Behind {
            dir: self.dir.clone(),
            pending: Some(pending.len()),
        };
        if max.is_some_and(|max| pending.len() > max) {
            return Err(behind);
        }
        // The bytes to read, a `stat` a file (at most `max` of them): a few files near
        // the size cap cost as much as thousands of ordinary ones.
        if let Some(budget) = max_bytes {
            let mut bytes = 0u64;
            for name in &pending {
                let size = stat(&self.dir.join(name)).map_or(0, |s| s.1.max(0) as u64);
                bytes = bytes.saturating_add(size.min(MAX_MEMORY_BYTES + 1));
                if bytes > budget {
                    return Err(behind);
                }
            }
        }
        let changed = pending.len();
        // The time taken before listing: a change made while this ran moves the
        // directory's time past it, and the next open looks again.
        self.index_files(&pending, &gone, Some(&listed.skipped), Some(before))?;
        self.unread = 0;
        if changed >= CHUNK {
            self.compact()?;
        }
        Ok(changed)
    }

    /// After many memories were indexed at once (a rebuild): the full-text index's
    /// segments merged into one and the file shrunk to what it holds, so that the index
    /// stays a fraction of the memories' size.
    fn compact(&mut self) -> Result<(), IndexError> {
        self.conn
            .execute_batch(
                "INSERT INTO memory_text(memory_text) VALUES('optimize');
                 VACUUM;
                 PRAGMA wal_checkpoint(TRUNCATE);",
            )
            .map_err(|e| self.sqlite(e))
    }

    /// Checks every indexed file's size and modification time (a `stat` each) and
    /// indexes again those edited in place. Slow on very large directories: for the
    /// MCP server's start and `list-memories index`, not for a hook.
    pub fn verify(&mut self) -> Result<usize, IndexError> {
        let rows: Vec<(String, i64, i64, i64)> = {
            let mut st = self
                .conn
                .prepare("SELECT file, ino, size, mtime_ns FROM memories")
                .map_err(|e| self.sqlite(e))?;
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                .and_then(Iterator::collect)
                .map_err(|e| self.sqlite(e))?
        };
        let stale: Vec<String> = rows
            .into_iter()
            .filter(|(file, ino, size, mtime)| {
                stat(&self.dir.join(file)) != Some((*ino, *size, *mtime))
            })
            .map(|(file, ..)| file)
            .collect();
        if stale.is_empty() {
            return Ok(0);
        }
        let n = stale.len();
        self.index_files(&stale, &[], None, None)?;
        Ok(n)
    }

    /// Whether each of `rows` still matches its file (size, time, inode, as the row was
    /// read: one `stat` a row); indexes again those that do not, and says whether any
    /// did not.
    pub(crate) fn refresh(&mut self, rows: &[Row]) -> Result<bool, IndexError> {
        let stale: Vec<String> = rows
            .iter()
            .filter(|r| stat(&self.dir.join(&r.entry.file)) != Some(r.stat))
            .map(|r| r.entry.file.clone())
            .collect();
        if stale.is_empty() {
            return Ok(false);
        }
        self.index_files(&stale, &[], None, None)?;
        Ok(true)
    }

    fn known_files(&self) -> Result<HashMap<String, Known>, IndexError> {
        let mut st = self
            .conn
            .prepare("SELECT file, id, ino FROM memories")
            .map_err(|e| self.sqlite(e))?;
        st.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                Known {
                    id: r.get(1)?,
                    ino: r.get(2)?,
                },
            ))
        })
        .and_then(Iterator::collect)
        .map_err(|e| self.sqlite(e))
    }

    /// Reads `names` (in chunks, on every core) and replaces their rows; deletes the
    /// rows `gone`; replaces the skipped files' list when given; records `synced` as the
    /// directory's time the index matches, in the last transaction (one commit for a
    /// save's change, not two).
    fn index_files(
        &mut self,
        names: &[String],
        gone: &[i64],
        skipped: Option<&[(String, String)]>,
        synced: Option<i64>,
    ) -> Result<(), IndexError> {
        let dir = self.dir.clone();
        let mut first = true;
        let mut chunks = names.chunks(CHUNK).peekable();
        // At least one transaction, for the deletions and the skipped list.
        while first || chunks.peek().is_some() {
            let chunk = chunks.next().unwrap_or_default();
            let docs = read_docs(&dir, chunk, self.key.as_ref());
            let db = self.db.clone();
            // IMMEDIATE: the write lock is taken (waiting the busy timeout) before the
            // first read. A deferred transaction reads first, and its upgrade to a
            // writer fails at once, without waiting, when another connection wrote in
            // between (WAL mode's snapshot rule): searches racing saves got "database is
            // locked" (6 openers × 4 saves, 8 of 60 runs under load).
            let tx = self
                .conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .map_err(|e| sqlite_at(&db, e))?;
            if first {
                for id in gone {
                    delete_row(&tx, *id).map_err(|e| sqlite_at(&self.db, e))?;
                }
                if let Some(skipped) = skipped {
                    tx.execute("DELETE FROM skipped", [])
                        .map_err(|e| sqlite_at(&self.db, e))?;
                    for (file, reason) in skipped {
                        tx.execute(
                            "INSERT OR REPLACE INTO skipped (file, reason) VALUES (?1, ?2)",
                            params![file, reason],
                        )
                        .map_err(|e| sqlite_at(&self.db, e))?;
                    }
                }
            }
            for (name, doc) in chunk.iter().zip(docs) {
                put_doc(&tx, name, doc).map_err(|e| sqlite_at(&self.db, e))?;
            }
            if let Some(m) = synced.filter(|_| chunks.peek().is_none()) {
                tx.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('dir_mtime', ?1)",
                    [m],
                )
                .map_err(|e| sqlite_at(&self.db, e))?;
            }
            tx.commit().map_err(|e| sqlite_at(&self.db, e))?;
            first = false;
        }
        Ok(())
    }

    /// Rows in the order of memories (newest first) that `filter` keeps, from
    /// `offset`, at most `limit`.
    pub fn rows(
        &self,
        filter: &RowFilter,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Row>, IndexError> {
        let (cond, args) = filter.sql();
        let sql = format!(
            "SELECT {ROW_COLUMNS} FROM memories m WHERE {cond}
             ORDER BY {NEWEST_FIRST} LIMIT ?{} OFFSET ?{}",
            args.len() + 1,
            args.len() + 2
        );
        let mut all: Vec<rusqlite::types::Value> = args;
        all.push((limit.min(i64::MAX as usize) as i64).into());
        all.push((offset.min(i64::MAX as usize) as i64).into());
        let mut st = self.conn.prepare(&sql).map_err(|e| self.sqlite(e))?;
        st.query_map(rusqlite::params_from_iter(all), |r| row_of(&self.dir, r))
            .and_then(Iterator::collect)
            .map_err(|e| self.sqlite(e))
    }

    /// How many memories `filter` keeps.
    pub fn count(&self, filter: &RowFilter) -> Result<usize, IndexError> {
        let (cond, args) = filter.sql();
        // Every row: the count kept in `meta` (a save asks twice; counting 100,000 rows
        // takes milliseconds each time).
        if args.is_empty() && cond == "1" {
            let kept = meta_value(&self.conn, "rows").map_err(|e| self.sqlite(e))?;
            if let Some(rusqlite::types::Value::Integer(n)) = kept {
                return Ok(usize::try_from(n).unwrap_or(0));
            }
        }
        let sql = format!("SELECT count(*) FROM memories m WHERE {cond}");
        self.conn
            .query_row(&sql, rusqlite::params_from_iter(args), |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n as usize)
            .map_err(|e| self.sqlite(e))
    }

    /// The rows with these ids, in no particular order.
    pub(super) fn rows_by_id(&self, ids: &[i64]) -> Result<Vec<Row>, IndexError> {
        let sql = format!(
            "SELECT {ROW_COLUMNS} FROM memories m
             WHERE m.id IN (SELECT value FROM json_each(?1))"
        );
        let json = serde_json::to_string(ids).unwrap_or_else(|_| "[]".into());
        let mut st = self.conn.prepare(&sql).map_err(|e| self.sqlite(e))?;
        st.query_map([json], |r| row_of(&self.dir, r))
            .and_then(Iterator::collect)
            .map_err(|e| self.sqlite(e))
    }

    /// What the memories `filter` keeps add up to, by who saved them (docs/design.md
    /// §7.7): sessions, memories the hooks saved (at compactions, by hand) and those
    /// `import` saved, and the newest of the hooks'.
    pub fn tally(&self, filter: &RowFilter) -> Result<Tally, IndexError> {
        let (cond, args) = filter.sql();
        let sql = format!(
            "SELECT count(DISTINCT m.session_id),
                    count(DISTINCT CASE WHEN m.trigger <> 'import' THEN m.session_id END),
                    count(DISTINCT CASE WHEN m.trigger = 'import' THEN m.session_id END),
                    total(m.trigger IN ('auto', 'manual', 'unknown')),
                    total(m.trigger <> 'import'),
                    total(m.trigger = 'import'),
                    max(CASE WHEN m.trigger = 'import' THEN m.mtime_ns END)
             FROM memories m WHERE {cond}"
        );
        let count = |v: f64| v as usize;
        let mut tally = self
            .conn
            .query_row(&sql, rusqlite::params_from_iter(args.iter()), |r| {
                Ok(Tally {
                    sessions: r.get::<_, i64>(0)? as usize,
                    sessions_saved: r.get::<_, i64>(1)? as usize,
                    sessions_imported: r.get::<_, i64>(2)? as usize,
                    compactions: count(r.get(3)?),
                    saved: count(r.get(4)?),
                    imported: count(r.get(5)?),
                    last_import_ns: r.get(6)?,
                    last_save: None,
                })
            })
            .map_err(|e| self.sqlite(e))?;
        let sql = format!(
            "SELECT {ROW_COLUMNS} FROM memories m WHERE {cond} AND m.trigger <> 'import'
             ORDER BY {NEWEST_FIRST} LIMIT 1"
        );
        let mut st = self.conn.prepare(&sql).map_err(|e| self.sqlite(e))?;
        let mut rows = st
            .query_map(rusqlite::params_from_iter(args), |r| row_of(&self.dir, r))
            .map_err(|e| self.sqlite(e))?;
        tally.last_save = rows
            .next()
            .transpose()
            .map_err(|e| self.sqlite(e))?
            .map(|r| r.entry);
        Ok(tally)
    }

    /// Files in the directory that are not readable memories, with why.
    pub fn skipped(&self) -> Result<Vec<(String, String)>, IndexError> {
        let mut st = self
            .conn
            .prepare("SELECT file, reason FROM skipped ORDER BY file")
            .map_err(|e| self.sqlite(e))?;
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.sqlite(e))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.db
    }

    /// The newest `created_ns` of the memories written from `since_ns` on, at most
    /// `limit` (a memory dated in the future does not count): what a new memory's
    /// `created_ns` must exceed (docs/design.md §4.3).
    pub fn newest_written_between(
        &self,
        since_ns: i64,
        limit: u64,
    ) -> Result<Option<u64>, IndexError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.conn
            .query_row(
                "SELECT max(written_ns) FROM memories WHERE order_ns >= ?1 AND written_ns <= ?2",
                [since_ns, limit],
                |r| r.get::<_, Option<i64>>(0),
            )
            .map(|n| n.and_then(|n| u64::try_from(n).ok()))
            .map_err(|e| self.sqlite(e))
    }

    /// How many memories hold `term` (any of its alternatives): for a word, the exact
    /// number; for a phrase, that of its rarest word (an upper bound). The index holds
    /// stemmed words, so the term's words are stemmed first, by the same tokenizer (a
    /// table of this connection's temporary schema).
    pub(crate) fn document_frequency(&self, term: &super::query::Term) -> Result<i64, IndexError> {
        let sqlite = |e| self.sqlite(e);
        self.conn
            .execute_batch(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_words USING fts5(w,
                     tokenize='porter unicode61 remove_diacritics 2');
                 CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_stems
                     USING fts5vocab(temp, query_words, instance);
                 CREATE VIRTUAL TABLE IF NOT EXISTS temp.index_terms
                     USING fts5vocab(main, memory_text, row);",
            )
            .map_err(sqlite)?;
        let mut total = 0i64;
        for alternative in &term.alternatives {
            let mut rarest: Option<i64> = None;
            for (i, token) in alternative.iter().enumerate() {
                let is_last = i + 1 == alternative.len();
                let df = self.token_frequency(token, term.prefix && is_last)?;
                rarest = Some(rarest.map_or(df, |r| r.min(df)));
            }
            total = total.saturating_add(rarest.unwrap_or(0));
        }
        Ok(total)
    }

    /// How many memories match the FTS5 expression `expr`, counted up to `most`.
    pub(crate) fn matches_up_to(&self, expr: &str, most: i64) -> Result<i64, IndexError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM (SELECT rowid FROM memory_text
                     WHERE memory_text MATCH ?1 LIMIT ?2)",
                rusqlite::params![expr, most],
                |r| r.get(0),
            )
            .map_err(|e| self.sqlite(e))
    }

    /// How many memories hold the word `token` (stemmed as the index stems it), or a
    /// word starting with it.
    fn token_frequency(&self, token: &str, prefix: bool) -> Result<i64, IndexError> {
        let sqlite = |e| self.sqlite(e);
        self.conn
            .execute("DELETE FROM temp.query_words", [])
            .map_err(sqlite)?;
        self.conn
            .execute("INSERT INTO temp.query_words (w) VALUES (?1)", [token])
            .map_err(sqlite)?;
        let stem: Option<String> = self
            .conn
            .query_row("SELECT term FROM temp.query_stems LIMIT 1", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(sqlite)?;
        let Some(stem) = stem else {
            return Ok(0);
        };
        let df = if prefix {
            self.conn.query_row(
                "SELECT coalesce(sum(doc), 0) FROM temp.index_terms
                 WHERE term >= ?1 AND term < ?1 || char(1114111)",
                [&stem],
                |r| r.get(0),
            )
        } else {
            self.conn.query_row(
                "SELECT coalesce(sum(doc), 0) FROM temp.index_terms WHERE term = ?1",
                [&stem],
                |r| r.get(0),
            )
        };
        df.map_err(sqlite)
    }
}

/// Opens the database at `db` (never through a link), private to the user.
fn connect(db: &Path, how: OpenOptions, create: bool) -> Result<Connection, IndexError> {
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let sqlite = |source| IndexError::Sqlite {
        path: db.to_path_buf(),
        source,
    };
    let conn = Connection::open_with_flags(db, flags).map_err(sqlite)?;
    conn.busy_timeout(how.busy).map_err(sqlite)?;
    if !how.checkpoint_on_close {
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )
        .map_err(sqlite)?;
    }
    // Memories are private: so is what is derived from them (the directory is 0700
    // too). The WAL and shared-memory files take the database's mode.
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(db, std::fs::Permissions::from_mode(0o600));
    with_functions(conn).map_err(sqlite)
}

/// The SQL functions the queries use: `fold(text)`, lower case as Rust folds it (SQLite's
/// `lower` folds ASCII only), for the listing's `--filter`.
fn with_functions(conn: Connection) -> rusqlite::Result<Connection> {
    use rusqlite::functions::FunctionFlags;
    conn.create_scalar_function(
        "fold",
        1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            Ok(ctx
                .get::<String>(0)
                .map(|s| s.to_lowercase())
                .unwrap_or_default())
        },
    )?;
    Ok(conn)
}

/// The order of memories, newest first (docs/design.md §4.9): the UTC time of writing;
/// in one second, a memory with `created_ns` before one without (an older version
/// wrote it), then the `_N` suffixes of one session, the file's modification time and
/// the name. The index `memories_newest` holds exactly this order, so that the newest
/// few are read without sorting every memory (`find latest`, the recall, a first page).
const NEWEST_FIRST: &str = "m.order_ns DESC, m.precise DESC, substr(m.file, 1, 15) DESC,
    m.suffix DESC, m.mtime_ns DESC, m.file DESC";

/// The columns [`row_of`] reads, in its order.
const ROW_COLUMNS: &str = "m.id, m.file, m.size, m.mtime_ns, m.order_ns, m.written_ns, m.created,
    m.session_id, m.trigger, m.tasks_total, m.tasks_open, m.summary, m.summary_source, m.lang,
    m.format, m.agent, m.project, m.problem, m.ours, m.written_at, m.ino";

/// The latest instant (ns) a memory may say it was written at and not be in the future.
fn future_limit() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
        + crate::memory::order::FUTURE_SLACK.as_nanos() as i128
}

fn row_of(dir: &Path, r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    let file: String = r.get(1)?;
    // Checked again on every read: a row naming anything but a memory file of this
    // directory (an absolute path, `../`) would have it read and shown. The index is
    // then not ours to trust, and is built again.
    if !is_memory_file_name(&file) {
        return Err(corrupt_error("a row names no memory file"));
    }
    let created: String = r.get(6)?;
    let session_id: String = r.get(7)?;
    let mtime_ns: i64 = r.get(3)?;
    let written_ns: Option<i64> = r.get(5)?;
    let modified = u64::try_from(mtime_ns)
        .ok()
        .map(|ns| UNIX_EPOCH + Duration::from_nanos(ns));
    let written_at: Option<i64> = r.get(19)?;
    let size = r.get::<_, i64>(2)? as u64;
    let agent: String = r.get(15)?;
    let entry = MemoryEntry {
        agent: crate::Agent::parse(&agent).unwrap_or_default(),
        order: crate::memory::order::OrderKey::new(
            &file,
            &created,
            written_ns.and_then(|n| u64::try_from(n).ok()),
            modified,
        ),
        provenance: if r.get::<_, bool>(18)? {
            Provenance::Ours
        } else {
            Provenance::Foreign
        },
        future: written_at.is_some_and(|w| i128::from(w) > future_limit()),
        too_large: size > MAX_MEMORY_BYTES,
        path: dir.join(&file),
        date: display_date(&created),
        session: prefix_chars(&session_id, 8).to_string(),
        file,
        created,
        session_id,
        trigger: r.get(8)?,
        tasks_total: r.get::<_, i64>(9)? as usize,
        tasks_open: r.get::<_, i64>(10)? as usize,
        summary: r.get(11)?,
        summary_source: r.get(12)?,
        size_bytes: size,
        lang: crate::lang::Lang::parse(&r.get::<_, String>(13)?).unwrap_or_default(),
        format: r.get::<_, i64>(14)? as u32,
    };
    Ok(Row {
        id: r.get(0)?,
        stat: (r.get(20)?, size as i64, mtime_ns),
        entry,
        order_ns: r.get(4)?,
        agent,
        project: r.get(16)?,
        problem: r.get(17)?,
    })
}

/// What a directory's memories add up to ([`Index::tally`]).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Tally {
    /// Sessions that have memories.
    pub sessions: usize,
    /// Of them, sessions the hooks (or a person, by hand) saved memories of.
    pub sessions_saved: usize,
    /// Of them, sessions `list-memories import` saved memories of.
    pub sessions_imported: usize,
    /// Memories saved at compactions (trigger `auto`, `manual` or `unknown`).
    pub compactions: usize,
    /// Memories saved by the hooks or by hand (every trigger but `import`).
    pub saved: usize,
    /// Memories `list-memories import` saved.
    pub imported: usize,
    /// When the newest imported memory file was written (ns since the epoch): the last
    /// import that wrote one.
    pub last_import_ns: Option<i64>,
    /// The newest memory the hooks (or a person) saved.
    pub last_save: Option<crate::memory::MemoryEntry>,
}

/// What filters the rows of a listing or a search: each set field must hold.
#[derive(Debug, Clone, Default)]
pub struct RowFilter {
    /// Case-insensitive text in the headline, session, file name, date, trigger or
    /// summary source (`list --filter`).
    pub text: Option<String>,
    /// Session id prefix, case-insensitive.
    pub session: Option<String>,
    /// Written at or after this UTC time (ns).
    pub since_ns: Option<i64>,
    /// Written before this UTC time (ns).
    pub until_ns: Option<i64>,
    /// Only memories with open tasks.
    pub open_tasks: bool,
    /// Only this agent's memories.
    pub agent: Option<crate::Agent>,
    /// Only memories that name this path among their files (its words in order,
    /// case-insensitive: `lib.rs` finds `src/lib.rs`).
    pub path: Option<String>,
    /// Only memories saved for this project (a memories directory shared by several
    /// projects through `MEMORY_STALKER_DIR`).
    pub project: Option<String>,
    /// Only these files.
    pub file: Option<String>,
    /// Only files whose name starts with this (a date `YYYYMMDD[_HH…]`).
    pub name_prefix: Option<String>,
    /// Only the user's own memories: written here (their MAC verifies) and not dated in
    /// the future (docs/design.md §4.10).
    pub own: bool,
    /// No memory dated in the future.
    pub not_future: bool,
}

impl RowFilter {
    /// The SQL condition over `memories m` and its arguments (`?1`, `?2`, …).
    pub(super) fn sql(&self) -> (String, Vec<rusqlite::types::Value>) {
        let mut cond = vec!["1".to_string()];
        let mut args: Vec<rusqlite::types::Value> = Vec::new();
        // `sql` names its argument `?`: numbered here, as it is added.
        let mut add = |sql: &str, v: rusqlite::types::Value| {
            args.push(v);
            cond.push(sql.replace('?', &format!("?{}", args.len())));
        };
        if let Some(t) = self.text.as_ref().filter(|t| !t.is_empty()) {
            add(
                "instr(fold(m.summary || char(31) || m.session_id || char(31) || m.file || char(31)
                    || m.created || char(31) || m.trigger || char(31) || m.summary_source), ?) > 0",
                t.to_lowercase().into(),
            );
        }
        if let Some(s) = self.session.as_ref().filter(|s| !s.is_empty()) {
            // A prefix is a range of the index `memories_session`: a session's few
            // memories are found without reading every row (a save asks twice).
            let prefix = s.to_lowercase();
            add("lower(m.session_id) >= ?", prefix.clone().into());
            if let Some(end) = after_prefix(&prefix) {
                add("lower(m.session_id) < ?", end.into());
            }
            add("instr(lower(m.session_id), ?) = 1", prefix.into());
        }
        if let Some(t) = self.since_ns {
            add("m.order_ns >= ?", t.into());
        }
        if let Some(t) = self.until_ns {
            add("m.order_ns < ?", t.into());
        }
        if let Some(a) = &self.agent {
            add("m.agent = ?", a.key().to_string().into());
        }
        if let Some(p) = self.path.as_ref().filter(|p| !p.is_empty()) {
            // The files field, word for word (`src/lib.rs` is the phrase "src lib rs").
            let words: Vec<String> = p
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect();
            let phrase = format!("\"{}\"", words.join(" ").replace('"', ""));
            add(
                "m.id IN (SELECT rowid FROM memory_text WHERE memory_text MATCH ?)",
                format!("files : {phrase}").into(),
            );
        }
        if let Some(p) = &self.project {
            add("m.project = ?", p.clone().into());
        }
        if let Some(f) = &self.file {
            add("m.file = ?", f.clone().into());
        }
        if let Some(p) = self.name_prefix.as_ref().filter(|p| !p.is_empty()) {
            add("instr(m.file, ?) = 1", p.clone().into());
        }
        if self.own || self.not_future {
            let limit = i64::try_from(future_limit()).unwrap_or(i64::MAX);
            add("(m.written_at IS NULL OR m.written_at <= ?)", limit.into());
        }
        if self.own {
            cond.push("m.ours = 1".into());
        }
        if self.open_tasks {
            cond.push("m.tasks_open > 0".into());
        }
        (cond.join(" AND "), args)
    }
}

/// The least text above every text that starts with `prefix` (in SQLite's binary order,
/// which is that of code points); `None` when there is none.
fn after_prefix(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        if let Some(next) = (u32::from(last) + 1..=u32::from(char::MAX)).find_map(char::from_u32) {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

#[derive(Debug)]
struct Known {
    id: i64,
    ino: i64,
}

/// The directory's names: memory files (name → inode) and the other `.md` files with
/// why they are not read.
struct Listed {
    memories: HashMap<String, u64>,
    skipped: Vec<(String, String)>,
}

fn list_dir(dir: &Path) -> std::io::Result<Listed> {
    let mut listed = Listed {
        memories: HashMap::new(),
        skipped: Vec::new(),
    };
    for e in std::fs::read_dir(dir)?.flatten() {
        let is_file = e.file_type().is_ok_and(|t| t.is_file());
        let name = e
            .file_name()
            .into_string()
            .unwrap_or_else(|n| n.to_string_lossy().into_owned());
        if is_file && is_memory_file_name(&name) {
            listed.memories.insert(name, e.ino());
        } else if name.ends_with(".md") && name != INDEX_FILE {
            let reason = if is_file {
                "not a memory file name (YYYYMMDD_HHMMSS_<session>.md)"
            } else {
                "not a regular file (a symbolic link, FIFO or device); not read"
            };
            listed.skipped.push((name, reason.to_string()));
        }
    }
    Ok(listed)
}

/// A directory's modification time in ns since the epoch.
pub(crate) fn dir_mtime(dir: &Path) -> std::io::Result<i64> {
    let m = std::fs::metadata(dir)?;
    Ok(m.mtime() * 1_000_000_000 + m.mtime_nsec())
}

/// `(inode, size, mtime ns)` of a regular file (not followed through a link).
/// The newest of `pending` (names, oldest first) that fit in `max` files and `max_bytes`
/// (a `stat` each), oldest first: the slice a partial catch-up reads. The newest
/// memories are the likeliest to be asked about.
fn newest_within(
    dir: &Path,
    pending: &[String],
    max: Option<usize>,
    max_bytes: Option<u64>,
) -> Vec<String> {
    let mut bytes = 0u64;
    let mut slice = Vec::new();
    for name in pending.iter().rev() {
        if max.is_some_and(|m| slice.len() >= m) {
            break;
        }
        let size = stat(&dir.join(name)).map_or(0, |s| s.1.max(0) as u64);
        bytes = bytes.saturating_add(size.min(MAX_MEMORY_BYTES + 1));
        if max_bytes.is_some_and(|b| bytes > b) {
            break;
        }
        slice.push(name.clone());
    }
    slice.reverse();
    slice
}

fn stat(path: &Path) -> Option<(i64, i64, i64)> {
    let m = std::fs::symlink_metadata(path).ok()?;
    m.is_file().then(|| {
        (
            m.ino() as i64,
            m.len() as i64,
            m.mtime() * 1_000_000_000 + m.mtime_nsec(),
        )
    })
}

fn sqlite_at(db: &Path, source: rusqlite::Error) -> IndexError {
    IndexError::Sqlite {
        path: db.to_path_buf(),
        source,
    }
}

/// Drops the tables of the index and makes them anew, empty, owned by `owner`, in the
/// transaction `tx` (`meta.built` counts the builds of the file).
fn make_schema(tx: &rusqlite::Transaction<'_>, owner: &str) -> rusqlite::Result<()> {
    let built = meta_value(tx, "built")?
        .and_then(|v| match v {
            rusqlite::types::Value::Integer(n) => Some(n),
            _ => None,
        })
        .unwrap_or(0)
        .saturating_add(1);
    let columns: Vec<&str> = Field::ALL.iter().map(|f| f.column()).collect();
    let sql = format!(
        "DROP TABLE IF EXISTS meta;
         DROP TABLE IF EXISTS memories;
         DROP TABLE IF EXISTS skipped;
         DROP TABLE IF EXISTS memory_text;
         DROP TABLE IF EXISTS action_files;
         DROP TABLE IF EXISTS action_errors;
         {}
         CREATE TABLE meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
         CREATE TABLE memories (
             id INTEGER PRIMARY KEY,
             file TEXT NOT NULL UNIQUE,
             ino INTEGER NOT NULL,
             size INTEGER NOT NULL,
             mtime_ns INTEGER NOT NULL,
             order_ns INTEGER NOT NULL,
             written_ns INTEGER,
             written_at INTEGER,
             precise INTEGER NOT NULL,
             ours INTEGER NOT NULL,
             suffix INTEGER NOT NULL,
             created TEXT NOT NULL,
             session_id TEXT NOT NULL,
             trigger TEXT NOT NULL,
             tasks_total INTEGER NOT NULL,
             tasks_open INTEGER NOT NULL,
             summary TEXT NOT NULL,
             summary_source TEXT NOT NULL,
             lang TEXT NOT NULL,
             format INTEGER NOT NULL,
             agent TEXT NOT NULL,
             project TEXT NOT NULL,
             problem TEXT
         );
         CREATE INDEX memories_order ON memories(order_ns DESC);
         CREATE INDEX memories_newest ON memories(order_ns DESC, precise DESC,
             substr(file, 1, 15) DESC, suffix DESC, mtime_ns DESC, file DESC);
         CREATE INDEX memories_session ON memories(lower(session_id));
         CREATE TABLE skipped (file TEXT PRIMARY KEY, reason TEXT NOT NULL) WITHOUT ROWID;
         CREATE VIRTUAL TABLE memory_text USING fts5({}, content='', contentless_delete=1,
             tokenize='porter unicode61 remove_diacritics 2');
         INSERT INTO meta (key, value) VALUES ('schema', {SCHEMA_VERSION});
         INSERT INTO meta (key, value) VALUES ('built', {built});
         INSERT INTO meta (key, value) VALUES ('rows', 0);",
        super::actions::SCHEMA,
        columns.join(", "),
    );
    tx.execute_batch(&sql)?;
    tx.execute(
        "INSERT INTO meta (key, value) VALUES ('owner', ?1)",
        [owner],
    )?;
    Ok(())
}

/// Whether SQLite found the database damaged, or no database at all: only deleting
/// the file and building it again from the memories helps.
pub(crate) fn is_corrupt(e: &IndexError) -> bool {
    matches!(e, IndexError::Sqlite { source, .. } if is_corrupt_sqlite(source))
}

fn is_corrupt_sqlite(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if matches!(f.code, rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase))
}

/// Whether another connection held a lock past the wait (or SQLite would not wait at
/// all): trying again shortly may succeed.
pub(crate) fn is_busy(e: &IndexError) -> bool {
    matches!(e, IndexError::Sqlite { source, .. } if is_busy_sqlite(source))
}

fn is_busy_sqlite(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if matches!(f.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
}

/// An error SQLite would give for a damaged database, saying `why`.
fn corrupt_error(why: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
        Some(why.to_string()),
    )
}

/// What `meta.owner` says of an index this user made for `dir`: a MAC under their
/// writer key over the directory's device and inode. An index shipped in a repository
/// (no key), copied from another project (another directory) or from another machine
/// (another key) has another owner and is never trusted; a directory moved within its
/// file system keeps its index.
fn owner_of(key: &WriterKey, dir: &Path) -> std::io::Result<String> {
    let m = std::fs::metadata(dir)?;
    Ok(key.mac(OWNER_TAG, &format!("dev {} ino {}", m.dev(), m.ino())))
}

/// What a database holds, as far as whether it may be used.
enum Schema {
    /// This version's, made here.
    Current,
    /// Made here, of another version: made again in place.
    Old,
    /// Nothing yet (a new file).
    Empty,
    /// Anything else: not made here, or with objects of its own.
    NotOurs,
}

/// Reads what the database is (see [`Schema`]) from `meta` and `sqlite_master`.
fn schema_state(conn: &Connection, owner: &str) -> rusqlite::Result<Schema> {
    let (objects, odd): (i64, i64) = conn.query_row(
        "SELECT count(*), count(*) FILTER (WHERE type IN ('trigger', 'view')
             OR (name = 'meta' AND type != 'table'))
         FROM sqlite_master",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    if objects == 0 {
        return Ok(Schema::Empty);
    }
    if odd > 0 || meta_value(conn, "owner")? != Some(owner.to_string().into()) {
        return Ok(Schema::NotOurs);
    }
    Ok(
        if meta_value(conn, "schema")? == Some(SCHEMA_VERSION.into()) {
            Schema::Current
        } else {
            Schema::Old
        },
    )
}

/// A value of the `meta` table; `None` when absent, or when there is no such table (a
/// new database).
fn meta_value(conn: &Connection, key: &str) -> rusqlite::Result<Option<rusqlite::types::Value>> {
    conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .optional()
        .or_else(|e| match e {
            rusqlite::Error::SqliteFailure(_, Some(ref m)) if m.contains("no such table") => {
                Ok(None)
            }
            e => Err(e),
        })
}

/// Whether the database holds this version's schema, made under `owner`. Of another
/// version, or made under another key (which memories are the user's is recorded in
/// it), or not made here at all (an index committed to the repository): it is made
/// anew from the files.
fn schema_is_current(conn: &Connection, owner: &str) -> rusqlite::Result<bool> {
    Ok(meta_value(conn, "schema")? == Some(SCHEMA_VERSION.into())
        && meta_value(conn, "owner")? == Some(owner.to_string().into()))
}

/// Deletes the index's files (the database, its WAL and shared memory), when `.index`
/// is a real directory: through a link, they would be some other directory's files.
pub(crate) fn remove_db(dir: &Path) {
    if fsutil::check_no_follow(dir, Path::new(INDEX_DIR)).is_err() {
        return;
    }
    let d = dir.join(INDEX_DIR);
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(d.join(format!("{INDEX_DB}{suffix}")));
    }
}

/// [`remove_db`], unless the database is no longer the file with inode `opened` (another
/// process replaced it first: theirs is not deleted).
fn replace_db(dir: &Path, opened: Option<i64>) {
    let now = stat(&dir.join(INDEX_DIR).join(INDEX_DB)).map(|s| s.0);
    if now.is_none() || now == opened {
        remove_db(dir);
    }
}

fn delete_row(tx: &rusqlite::Transaction<'_>, id: i64) -> rusqlite::Result<()> {
    tx.execute("DELETE FROM memory_text WHERE rowid = ?1", [id])?;
    super::actions::delete(tx, id)?;
    if tx.execute("DELETE FROM memories WHERE id = ?1", [id])? > 0 {
        tx.execute("UPDATE meta SET value = value - 1 WHERE key = 'rows'", [])?;
    }
    Ok(())
}

/// A memory file as read for the index: its row and fields, or why it is not a memory.
enum Doc {
    Memory(Box<Indexed>),
    Skip(String),
    Gone,
}

struct Indexed {
    stat: (i64, i64, i64),
    entry: MemoryEntry,
    /// `created_ns` as written.
    created_ns: Option<u64>,
    /// When it says it was written (`created_ns`, else `created`), unclamped: a memory
    /// dated after now is in the future (docs/design.md §4.9).
    written_at: Option<i64>,
    agent: String,
    project: String,
    problem: Option<String>,
    fields: Fields,
    /// Its items by file and by error, for the notes at the moment of action.
    facts: super::actions::Facts,
}

fn put_doc(tx: &rusqlite::Transaction<'_>, name: &str, doc: Doc) -> rusqlite::Result<()> {
    let old: Option<i64> = tx
        .query_row("SELECT id FROM memories WHERE file = ?1", [name], |r| {
            r.get(0)
        })
        .optional()?;
    if let Some(id) = old {
        delete_row(tx, id)?;
    }
    tx.execute("DELETE FROM skipped WHERE file = ?1", [name])?;
    let d = match doc {
        Doc::Memory(d) => d,
        Doc::Skip(reason) => {
            tx.execute(
                "INSERT OR REPLACE INTO skipped (file, reason) VALUES (?1, ?2)",
                params![name, reason],
            )?;
            return Ok(());
        }
        Doc::Gone => return Ok(()),
    };
    let e = &d.entry;
    // A memory read again keeps its rowid; a new one comes after every other. Memories
    // are added in the order they are written (a rebuild adds them in the order of
    // their names), so the rowid order is the order of memories, near enough for the
    // search's window of the newest ones; and small, consecutive rowids keep the
    // full-text index's lists small.
    let id: i64 = match old {
        Some(id) => id,
        None => tx.query_row("SELECT coalesce(max(id), 0) + 1 FROM memories", [], |r| {
            r.get(0)
        })?,
    };
    tx.execute(
        "INSERT INTO memories (id, file, ino, size, mtime_ns, order_ns, written_ns, created,
             session_id, trigger, tasks_total, tasks_open, summary, summary_source, lang,
             format, agent, project, problem, suffix, precise, ours, written_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
             ?18, ?19, ?20, ?21, ?22, ?23)",
        params![
            id,
            name,
            d.stat.0,
            d.stat.1,
            d.stat.2,
            i64::try_from(e.order.instant_ns).unwrap_or(0),
            d.created_ns.and_then(|n| i64::try_from(n).ok()),
            e.created,
            e.session_id,
            e.trigger,
            e.tasks_total as i64,
            e.tasks_open as i64,
            e.summary,
            e.summary_source,
            match e.lang {
                crate::lang::Lang::Zh => "zh",
                _ => "en",
            },
            e.format,
            d.agent,
            d.project,
            d.problem,
            e.order.suffix,
            e.order.precise,
            e.provenance == Provenance::Ours,
            d.written_at,
        ],
    )?;
    tx.execute("UPDATE meta SET value = value + 1 WHERE key = 'rows'", [])?;
    let columns: Vec<&str> = Field::ALL.iter().map(|f| f.column()).collect();
    let placeholders: Vec<String> = (2..=Field::ALL.len() + 1)
        .map(|i| format!("?{i}"))
        .collect();
    let sql = format!(
        "INSERT INTO memory_text (rowid, {}) VALUES (?1, {})",
        columns.join(", "),
        placeholders.join(", ")
    );
    let mut values: Vec<rusqlite::types::Value> = vec![id.into()];
    for f in Field::ALL {
        values.push(for_index(d.fields.get(f)).into_owned().into());
    }
    tx.execute(&sql, rusqlite::params_from_iter(values))?;
    let order_ns = i64::try_from(e.order.instant_ns).unwrap_or(0);
    super::actions::put(tx, id, order_ns, &d.facts)?;
    Ok(())
}

/// Reads `names` in `dir` on the available cores, in their order.
fn read_docs(dir: &Path, names: &[String], key: Option<&WriterKey>) -> Vec<Doc> {
    // Sixteen files or fewer (a hook's new memory) are read here, without asking how
    // many cores there are: that reads three files of the cgroup each time.
    let useful = names.len().div_ceil(16);
    let threads = if useful <= 1 {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .clamp(1, 8)
            .min(useful)
    };
    if threads <= 1 {
        return names.iter().map(|n| read_doc(dir, n, key)).collect();
    }
    let share = names.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = names
            .chunks(share)
            .map(|part| {
                (
                    part,
                    std::thread::Builder::new().spawn_scoped(s, move || {
                        part.iter()
                            .map(|n| read_doc(dir, n, key))
                            .collect::<Vec<_>>()
                    }),
                )
            })
            .collect();
        let mut out = Vec::with_capacity(names.len());
        for (part, h) in handles {
            match h.map(|h| h.join()) {
                Ok(Ok(docs)) => out.extend(docs),
                Ok(Err(panic)) => std::panic::resume_unwind(panic),
                Err(_) => out.extend(part.iter().map(|n| read_doc(dir, n, key))),
            }
        }
        out
    })
}

/// Reads one memory file for the index: a regular file only (never through a link),
/// whole when at most [`MAX_MEMORY_BYTES`], else its front matter only, marked too
/// large.
fn read_doc(dir: &Path, name: &str, key: Option<&WriterKey>) -> Doc {
    let path = dir.join(name);
    let (file, meta) = match fsutil::open_regular_with_metadata(&path, false, None) {
        Ok(opened) => opened,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Doc::Gone,
        Err(e) => return Doc::Skip(format!("cannot read: {e}")),
    };
    let stat = (
        meta.ino() as i64,
        meta.len() as i64,
        meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
    );
    let modified = meta.modified().ok();
    let too_large = meta.len() > MAX_MEMORY_BYTES;
    let mut bytes = Vec::new();
    {
        use std::io::Read;
        let cap = if too_large {
            256 * 1024
        } else {
            MAX_MEMORY_BYTES
        };
        if let Err(e) = file.take(cap).read_to_end(&mut bytes) {
            return Doc::Skip(format!("cannot read: {e}"));
        }
    }
    let text = lossy(&bytes);
    // A byte order mark (Windows editors write one) is not the memory's first line.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let head = FrontMatter::parse_with_written_ns(text);
    let (fm, written_ns) = match head {
        Some((fm, ns, _)) => (fm, ns),
        None if too_large || meta.len() > MAX_LEGACY_BYTES => {
            return Doc::Skip("no front matter, and too large to be an old-format memory".into());
        }
        None => match legacy_from_text(&text[..text.len().min(MAX_LEGACY_LEN)]) {
            Ok(fm) => (fm, None),
            Err(reason) => return Doc::Skip(reason),
        },
    };
    // As the front matter reads it (absent or unknown: Claude Code), so that the filter
    // and the listing agree.
    let agent = fm.agent.key().to_string();
    let project = fm.project.clone();
    let (fields, facts) = if too_large {
        (
            Fields::headline_only(&fm.summary),
            super::actions::Facts::default(),
        )
    } else {
        (
            fields_of(text, Some(&fm)),
            super::actions::facts_of(text, &fm.project),
        )
    };
    let written_at = written_instant(&fm.created, written_ns).and_then(|w| i64::try_from(w).ok());
    let provenance = verdict(key, name, text);
    let entry = match entry_from(&path, meta.len(), modified, fm, written_ns, provenance) {
        Ok(e) => e,
        Err(reason) => return Doc::Skip(reason),
    };
    Doc::Memory(Box::new(Indexed {
        stat,
        created_ns: written_ns,
        written_at,
        agent,
        project,
        problem: too_large.then(|| {
            format!(
                "too large to read ({} bytes, over {} MiB); only its front matter is indexed",
                meta.len(),
                MAX_MEMORY_BYTES / (1024 * 1024)
            )
        }),
        fields,
        facts,
        entry,
    }))
}

/// Tells the index of `dir`, if there is one, that a writer changed the directory (see
/// [`Index::note`]). Never creates an index; waits at most the hook's short busy
/// timeout.
pub fn note_change(
    dir: &Path,
    key: Option<WriterKey>,
    before: Option<i64>,
    changed: &[&str],
    removed: &[&str],
) -> Result<(), IndexError> {
    let Some(key) = key else {
        return Ok(());
    };
    if !dir.join(INDEX_DIR).join(INDEX_DB).is_file() {
        return Ok(());
    }
    Index::open_db(dir, OpenOptions::HOOK, false, key)?.note(before, changed, removed)
}

impl Index {
    /// Takes in a change a writer made to the directory: `changed` names files written
    /// or replaced (indexed now), `removed` files deleted. `before` is the directory's
    /// time read just before the change: when the index matched the directory then, it
    /// matches it now, and its recorded time moves on; otherwise it stays stale and the
    /// next open catches up.
    pub fn note(
        &mut self,
        before: Option<i64>,
        changed: &[&str],
        removed: &[&str],
    ) -> Result<(), IndexError> {
        let was_synced = before.is_some() && self.synced_mtime()? == before;
        let gone: Vec<i64> = removed
            .iter()
            .filter_map(|name| {
                self.conn
                    .query_row("SELECT id FROM memories WHERE file = ?1", [name], |r| {
                        r.get(0)
                    })
                    .ok()
            })
            .collect();
        let names: Vec<String> = changed.iter().map(|s| s.to_string()).collect();
        let now = if was_synced {
            Some(dir_mtime(&self.dir).map_err(|source| IndexError::Io {
                path: self.dir.clone(),
                source,
            })?)
        } else {
            None
        };
        self.index_files(&names, &gone, None, now)
    }
}

#[cfg(test)]
mod tests {
    use super::{Index, OpenOptions, after_prefix};

    /// A new index file is made without waiting on the disk (it holds nothing to lose),
    /// but its connection then syncs as any other: a hook's later changes, and every
    /// other process's, keep their durability.
    #[test]
    fn a_fresh_index_syncs_as_usual_once_made() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("memories");
        std::fs::create_dir(&dir).unwrap();
        let key = crate::provenance::Writer::at(root.path().join("key"))
            .key_or_create()
            .unwrap();
        let synchronous = |index: &Index| -> i64 {
            index
                .conn
                .query_row("PRAGMA synchronous", [], |r| r.get(0))
                .unwrap()
        };
        let made = Index::open(&dir, OpenOptions::HOOK, Some(key.clone())).unwrap();
        // 1 is NORMAL; the making was done at 0, OFF.
        assert_eq!(synchronous(&made), 1);
        drop(made);
        let again = Index::open(&dir, OpenOptions::HOOK, Some(key)).unwrap();
        assert_eq!(synchronous(&again), 1);
    }

    #[test]
    fn the_end_of_a_prefix_range() {
        assert_eq!(after_prefix("5e55").as_deref(), Some("5e56"));
        assert_eq!(after_prefix("ab\u{d7ff}").as_deref(), Some("ab\u{e000}"));
        assert_eq!(after_prefix("a\u{10ffff}").as_deref(), Some("b"));
        assert_eq!(after_prefix("\u{10ffff}"), None);
        // Every text with the prefix is in the range, and the end is not.
        for text in ["5e55", "5e55b0a7-x", "5e55\u{10ffff}\u{10ffff}"] {
            assert!(text >= "5e55" && text < after_prefix("5e55").unwrap().as_str());
        }
    }
}
