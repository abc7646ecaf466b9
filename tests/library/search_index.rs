//! The search index against the files it is derived from (docs/design.md §7.10): built
//! when missing, caught up when memories are added, replaced or removed behind its back
//! (by hand, by git), rebuilt when corrupt or foreign, read again when edited in place,
//! and shared by processes writing and searching at once. Real directories, a real
//! SQLite file.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use memory_stalker::search::SearchOptions;
use memory_stalker::store::MemoryStore;

const SESSION: &str = "5e551011-aaaa-4bbb-8ccc-000000000001";

/// A memory as memory-stalker writes one, about `words`.
fn memory_text(session: &str, created: &str, headline: &str, words: &str) -> String {
    format!(
        "---\nmemory_stalker: 1\nsession_id: \"{session}\"\ncreated: \"{created}\"\ntrigger: \"auto\"\n\
         project: \"/p\"\ntranscript: \"/t.jsonl\"\ntask_count: 0\ntasks_open: 0\n\
         summary: \"{headline}\"\nsummary_source: \"offline\"\nlang: \"en\"\n---\n\n\
         # Session memory\n\n## AI summary\n\n{words}\n"
    )
}

/// The store of the memories directory `dir`, with a writer key of its own: an index on
/// disk is bound to one (docs/design.md §7.10).
fn keyed(dir: impl AsRef<Path>) -> MemoryStore {
    let dir = dir.as_ref();
    // Outside the project (`<root>/project/.claude/memories`), which git is asked about.
    let key = dir.ancestors().nth(3).unwrap_or(dir).join("writer-key");
    MemoryStore::new(dir).with_writer(Some(std::sync::Arc::new(
        memory_stalker::provenance::Writer::at(key),
    )))
}

fn memories(root: &Path) -> PathBuf {
    root.join("project/.claude/memories")
}

/// The files a search of `query` answers with, best first, as a new process sees them
/// (a store opened afresh: nothing cached from an earlier search).
fn found(dir: &Path, query: &str) -> Vec<String> {
    let store = keyed(dir);
    let opts = SearchOptions {
        group_sessions: false,
        ..SearchOptions::default()
    };
    store
        .search(query, &opts)
        .unwrap()
        .into_iter()
        .map(|h| h.memory.file)
        .collect()
}

fn db(dir: &Path) -> PathBuf {
    dir.join(".index/search.sqlite3")
}

/// Writes `text` to `path` as git and most editors do: a new file renamed over the old.
fn replace(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, text).unwrap();
    fs::rename(&tmp, path).unwrap();
}

#[test]
fn deleting_the_index_loses_nothing_and_git_ignores_it() {
    let root = tempfile::tempdir().unwrap();
    let dir = memories(root.path());
    let store = keyed(&dir);
    let at = chrono::DateTime::parse_from_rfc3339("2026-11-20T10:00:00+01:00").unwrap();
    store
        .save_new(
            &at,
            SESSION,
            &memory_text(
                SESSION,
                "2026-11-20T10:00:00+01:00",
                "Uploader",
                "the uploader retries",
            ),
        )
        .unwrap();
    assert_eq!(found(&dir, "uploader").len(), 1);
    assert!(db(&dir).is_file(), "the first search built the index");

    fs::remove_dir_all(dir.join(".index")).unwrap();
    assert_eq!(
        found(&dir, "uploader").len(),
        1,
        "built again from the files"
    );
    assert!(db(&dir).is_file());

    // The index is kept out of git with the memories, whatever git is asked.
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root.path().join("project"))
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_SYSTEM", "/dev/null")
            .output()
    };
    let Ok(init) = git(&["init", "-q"]) else {
        eprintln!("git is not installed: the git check is skipped");
        return;
    };
    assert!(init.status.success());
    let status = git(&["status", "--porcelain", "--untracked-files=all"]).unwrap();
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(!status.contains(".claude"), "{status}");
    let ignored = git(&[
        "check-ignore",
        "-q",
        ".claude/memories/.index/search.sqlite3",
    ])
    .unwrap();
    assert!(ignored.status.success());
}

#[test]
fn memories_added_replaced_and_removed_behind_its_back() {
    let root = tempfile::tempdir().unwrap();
    let dir = memories(root.path());
    fs::create_dir_all(&dir).unwrap();
    let a = dir.join("20261120_100000_5e551011.md");
    fs::write(
        &a,
        memory_text(
            SESSION,
            "2026-11-20T10:00:00+01:00",
            "Parser",
            "the tokenizer rewrite",
        ),
    )
    .unwrap();
    assert_eq!(found(&dir, "tokenizer"), ["20261120_100000_5e551011.md"]);

    // Added by hand (or by `git pull`): found by the next search.
    let b = dir.join("20261121_090000_0b0b0b0b.md");
    fs::write(
        &b,
        memory_text(
            "0b0b0b0b-aaaa-4bbb-8ccc-000000000002",
            "2026-11-21T09:00:00+01:00",
            "Deploy",
            "the canary deployment of the tokenizer",
        ),
    )
    .unwrap();
    assert_eq!(found(&dir, "canary"), ["20261121_090000_0b0b0b0b.md"]);
    assert_eq!(found(&dir, "tokenizer").len(), 2);

    // Replaced (git checkout, an editor's save): the new words are found, the old not.
    replace(
        &a,
        &memory_text(
            SESSION,
            "2026-11-20T10:00:00+01:00",
            "Parser",
            "the lexer rewrite",
        ),
    );
    assert_eq!(found(&dir, "lexer"), ["20261120_100000_5e551011.md"]);
    assert_eq!(found(&dir, "tokenizer"), ["20261121_090000_0b0b0b0b.md"]);

    // Removed: gone from every answer.
    fs::remove_file(&b).unwrap();
    assert!(found(&dir, "canary").is_empty());
    let listed = keyed(&dir).list(None, None).unwrap();
    assert_eq!(listed.total, 1);
}

#[test]
fn a_memory_edited_in_place_is_read_again() {
    let root = tempfile::tempdir().unwrap();
    let dir = memories(root.path());
    fs::create_dir_all(&dir).unwrap();
    let a = dir.join("20261120_100000_5e551011.md");
    fs::write(
        &a,
        memory_text(
            SESSION,
            "2026-11-20T10:00:00+01:00",
            "Cache",
            "the memcached layer",
        ),
    )
    .unwrap();
    assert_eq!(found(&dir, "memcached").len(), 1);
    // Edited in place (same inode): the directory's time does not move.
    let before = fs::metadata(&dir).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    fs::write(
        &a,
        memory_text(
            SESSION,
            "2026-11-20T10:00:00+01:00",
            "Cache",
            "the redis layer",
        ),
    )
    .unwrap();
    assert_eq!(fs::metadata(&dir).unwrap().modified().unwrap(), before);

    // A search that would show it checks it first: the old words no longer find it.
    assert!(found(&dir, "memcached").is_empty());
    assert_eq!(found(&dir, "redis").len(), 1);

    // Another edit in place, then the MCP server's start (a pass over every memory).
    fs::write(
        &a,
        memory_text(
            SESSION,
            "2026-11-20T10:00:00+01:00",
            "Cache",
            "the valkey layer",
        ),
    )
    .unwrap();
    assert_eq!(keyed(&dir).verify_index().unwrap(), Some(1));
    assert_eq!(found(&dir, "valkey").len(), 1);
    assert!(found(&dir, "redis").is_empty());
}

#[test]
fn a_headline_edited_in_place_is_listed_as_edited_however_long_the_listing() {
    let root = tempfile::tempdir().unwrap();
    let dir = memories(root.path());
    fs::create_dir_all(&dir).unwrap();
    // More memories than a page of 200: a whole listing once trusted the index for them.
    for i in 0..260 {
        let name = format!("20261120_{:02}{:02}00_5e551011.md", i / 60, i % 60);
        let headline = format!("Memory {i}");
        fs::write(
            dir.join(name),
            memory_text(
                SESSION,
                &format!("2026-11-20T{:02}:{:02}:00+01:00", i / 60, i % 60),
                &headline,
                "words",
            ),
        )
        .unwrap();
    }
    let listed = |store: &MemoryStore| -> Vec<String> {
        store
            .list(None, None)
            .unwrap()
            .memories
            .into_iter()
            .map(|m| m.summary)
            .collect()
    };
    assert_eq!(listed(&keyed(&dir)).len(), 260);
    // The oldest, last in the listing, edited in place (same inode, the directory's
    // time unchanged).
    let oldest = dir.join("20261120_000000_5e551011.md");
    std::thread::sleep(std::time::Duration::from_millis(20));
    fs::write(
        &oldest,
        memory_text(
            SESSION,
            "2026-11-20T00:00:00+01:00",
            "Edited by hand",
            "words",
        ),
    )
    .unwrap();
    let after = listed(&keyed(&dir));
    assert_eq!(
        after.last().map(String::as_str),
        Some("Edited by hand"),
        "{after:?}"
    );
    assert!(!after.iter().any(|h| h == "Memory 0"));
}

#[test]
fn many_memories_behind_its_back_are_read_a_slice_at_a_time_newest_first() {
    use memory_stalker::search::{Index, OpenOptions, RowFilter};
    let root = tempfile::tempdir().unwrap();
    let dir = memories(root.path());
    fs::create_dir_all(&dir).unwrap();
    let write = |i: usize| {
        let name = format!("20261120_{:02}{:02}00_5e551011.md", i / 60, i % 60);
        let created = format!("2026-11-20T{:02}:{:02}:00+01:00", i / 60, i % 60);
        fs::write(
            dir.join(name),
            memory_text(SESSION, &created, &format!("Memory {i}"), "words"),
        )
        .unwrap();
    };
    write(0);
    let store = keyed(&dir);
    assert_eq!(store.list(None, None).unwrap().total, 1);
    for i in 1..=25 {
        write(i);
    }
    // The MCP server's way, with slices of 10: the newest ten read, fifteen left.
    let how = OpenOptions {
        max_catch_up: Some(10),
        ..OpenOptions::SERVER
    };
    let mut index = Index::open(&dir, how, store.writer_key()).unwrap();
    assert_eq!(index.unread(), 15);
    let files = |index: &Index| -> Vec<String> {
        index
            .rows(&RowFilter::default(), 100, 0)
            .unwrap()
            .into_iter()
            .map(|r| r.entry.summary)
            .collect()
    };
    let first = files(&index);
    assert_eq!(first.len(), 11);
    assert_eq!(first[..2], ["Memory 25", "Memory 24"]);
    assert_eq!(first.last().map(String::as_str), Some("Memory 0"));
    // Each later catch-up reads the next slice, until none is left.
    assert_eq!(index.catch_up_as(&how).unwrap(), 10);
    assert_eq!(index.unread(), 5);
    assert_eq!(index.catch_up_as(&how).unwrap(), 5);
    assert_eq!(index.unread(), 0);
    assert_eq!(files(&index).len(), 26);
    // Caught up and recorded so: nothing more to read.
    assert_eq!(index.catch_up(Some(0), Some(0)).unwrap(), 0);
    // Without slices, too many is refused as before.
    for i in 26..=40 {
        write(i);
    }
    let whole = OpenOptions {
        partial: false,
        ..how
    };
    assert!(Index::open(&dir, whole, store.writer_key()).is_err());
}

#[test]
fn a_corrupt_or_foreign_index_is_rebuilt() {
    let root = tempfile::tempdir().unwrap();
    let dir = memories(root.path());
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("20261120_100000_5e551011.md"),
        memory_text(
            SESSION,
            "2026-11-20T10:00:00+01:00",
            "Queue",
            "the rabbitmq consumer",
        ),
    )
    .unwrap();
    assert_eq!(found(&dir, "rabbitmq").len(), 1);

    // Garbage over the database (a disk error, a bad copy).
    for f in fs::read_dir(dir.join(".index")).unwrap() {
        let f = f.unwrap().path();
        if f.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("search.sqlite3-")
        {
            fs::remove_file(f).unwrap();
        }
    }
    fs::write(db(&dir), vec![0x5a; 64 * 1024]).unwrap();
    assert_eq!(found(&dir, "rabbitmq").len(), 1);

    // An index that says it lists a memory that is not there (shipped in a repository,
    // made by another user): not trusted, rebuilt from the files.
    let conn = rusqlite::Connection::open(db(&dir)).unwrap();
    conn.execute(
        "UPDATE meta SET value = 'someone else' WHERE key = 'owner'",
        [],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO memory_text(rowid, headline) VALUES (999, 'forged payload')",
        [],
    )
    .unwrap();
    drop(conn);
    assert!(found(&dir, "forged").is_empty());
    assert_eq!(found(&dir, "rabbitmq").len(), 1);
}

#[test]
fn saves_and_searches_at_once_lose_nothing() {
    let root = tempfile::tempdir().unwrap();
    let dir = memories(root.path());
    fs::create_dir_all(&dir).unwrap();
    const WRITERS: usize = 4;
    const EACH: usize = 15;
    std::thread::scope(|s| {
        for w in 0..WRITERS {
            let dir = dir.clone();
            s.spawn(move || {
                // A store a writer: as separate hook processes are.
                for i in 0..EACH {
                    let store = keyed(&dir);
                    let sid = format!("{w:04x}{i:04x}-aaaa-4bbb-8ccc-000000000000");
                    let at = chrono::Local::now().fixed_offset();
                    let text = memory_text(
                        &sid,
                        &at.to_rfc3339(),
                        "Concurrent",
                        &format!("zebrafish writer{w} item{i}"),
                    );
                    store.save_new(&at, &sid, &text).unwrap();
                }
            });
        }
        for _ in 0..2 {
            let dir = dir.clone();
            s.spawn(move || {
                for _ in 0..20 {
                    let store = keyed(&dir);
                    let opts = SearchOptions {
                        group_sessions: false,
                        limit: 100,
                        ..SearchOptions::default()
                    };
                    // Never an error, whatever the writers are doing.
                    store.search("zebrafish", &opts).unwrap();
                }
            });
        }
    });
    let opts = SearchOptions {
        group_sessions: false,
        limit: 1000,
        ..SearchOptions::default()
    };
    let hits = keyed(&dir).search("zebrafish", &opts).unwrap();
    assert_eq!(hits.len(), WRITERS * EACH);
    for w in 0..WRITERS {
        for i in 0..EACH {
            let term = format!("writer{w} item{i}");
            assert_eq!(found(&dir, &format!("\"{term}\"")).len(), 1, "{term}");
        }
    }
}

/// How many times the schema of the index of `dir` was built (`meta.built`).
fn builds(dir: &Path) -> i64 {
    let conn = rusqlite::Connection::open(db(dir)).unwrap();
    conn.query_row("SELECT value FROM meta WHERE key = 'built'", [], |r| {
        r.get(0)
    })
    .unwrap()
}

/// `OPENERS` stores (as separate processes are) open the index of `dir` at the same
/// moment, each then saving memories and searching between the saves; none may fail
/// or lose an entry. Returns the memories saved.
fn open_at_once(dir: &Path, round: usize) -> Vec<String> {
    const OPENERS: usize = 6;
    const EACH: usize = 4;
    let start = std::sync::Barrier::new(OPENERS);
    std::thread::scope(|s| {
        for w in 0..OPENERS {
            let start = &start;
            s.spawn(move || {
                let opts = SearchOptions {
                    group_sessions: false,
                    limit: 1000,
                    ..SearchOptions::default()
                };
                start.wait();
                let store = keyed(dir);
                // The first thing each does opens the index: half search, half save.
                if w % 2 == 0 {
                    store.search("okapi", &opts).unwrap();
                }
                for i in 0..EACH {
                    let sid = format!("{round:02x}{w:02x}{i:04x}-aaaa-4bbb-8ccc-000000000000");
                    let at = chrono::Local::now().fixed_offset();
                    let text = memory_text(
                        &sid,
                        &at.to_rfc3339(),
                        "Racing",
                        &format!("okapi round{round} opener{w} save{i}"),
                    );
                    store.save_new(&at, &sid, &text).unwrap();
                    store.search("okapi", &opts).unwrap();
                }
            });
        }
    });
    (0..OPENERS)
        .flat_map(|w| (0..EACH).map(move |i| format!("round{round} opener{w} save{i}")))
        .collect()
}

#[test]
fn processes_opening_a_missing_or_old_index_at_once_build_it_once() {
    let root = tempfile::tempdir().unwrap();
    let dir = memories(root.path());
    fs::create_dir_all(&dir).unwrap();
    for i in 0..40 {
        let sid = format!("0ld{i:05x}-aaaa-4bbb-8ccc-000000000000");
        fs::write(
            dir.join(format!(
                "20261120_10{:02}{:02}_{}.md",
                i / 60,
                i % 60,
                &sid[..8]
            )),
            memory_text(
                &sid,
                &format!("2026-11-20T10:{:02}:{:02}+01:00", i / 60, i % 60),
                "Before",
                &format!("okapi written{i} before"),
            ),
        )
        .unwrap();
    }
    let every = |saved: &[String]| {
        let opts = SearchOptions {
            group_sessions: false,
            limit: 1000,
            ..SearchOptions::default()
        };
        let hits = keyed(&dir).search("okapi", &opts).unwrap();
        assert_eq!(hits.len(), 40 + saved.len());
        for term in (0..40)
            .map(|i| format!("written{i} before"))
            .chain(saved.iter().cloned())
        {
            assert_eq!(found(&dir, &format!("\"{term}\"")).len(), 1, "{term}");
        }
    };

    // No index yet: one of them builds it, the others wait for it and use it.
    let mut saved = open_at_once(&dir, 1);
    every(&saved);
    assert_eq!(builds(&dir), 1, "the schema was built more than once");

    // An index of an older schema: rebuilt once, not by each opener in turn.
    let conn = rusqlite::Connection::open(db(&dir)).unwrap();
    conn.execute("UPDATE meta SET value = 7 WHERE key = 'schema'", [])
        .unwrap();
    drop(conn);
    saved.extend(open_at_once(&dir, 2));
    every(&saved);
    assert_eq!(builds(&dir), 2, "the old schema was rebuilt more than once");
    // The count of rows `meta` keeps (what listings show as the total) is the count.
    let conn = rusqlite::Connection::open(db(&dir)).unwrap();
    let kept: i64 = conn
        .query_row("SELECT value FROM meta WHERE key = 'rows'", [], |r| {
            r.get(0)
        })
        .unwrap();
    let counted: i64 = conn
        .query_row("SELECT count(*) FROM memories", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        (kept, counted),
        (40 + saved.len() as i64, 40 + saved.len() as i64)
    );
}

/// The directory's modification time in nanoseconds, as the index records it.
fn dir_mtime_ns(dir: &Path) -> i64 {
    use std::os::unix::fs::MetadataExt;
    let m = fs::metadata(dir).unwrap();
    m.mtime() * 1_000_000_000 + m.mtime_nsec()
}

#[test]
fn a_save_the_index_could_not_take_in_is_found_though_another_writer_recorded_its_time() {
    // Two writers within one tick of a coarse file-system clock: the second's memory
    // leaves the directory's time where the first then records it as matched, and the
    // second cannot tell the index (the first holds the write lock past the hook's
    // short wait). Here the lock holder records the directory's time as it is once the
    // second memory exists: the same state, made on purpose.
    let root = tempfile::tempdir().unwrap();
    let dir = memories(root.path());
    let store = keyed(&dir);
    let at = chrono::DateTime::parse_from_rfc3339("2026-11-20T10:00:00+01:00").unwrap();
    let text = memory_text(SESSION, "2026-11-20T10:00:00+01:00", "First", "walrus");
    store.save_new(&at, SESSION, &text).unwrap();
    assert_eq!(
        found(&dir, "walrus").len(),
        1,
        "the index is built and matches"
    );

    let second = "5e551011-bbbb-4bbb-8ccc-000000000002";
    let later = chrono::DateTime::parse_from_rfc3339("2026-11-20T11:00:00+01:00").unwrap();
    let held = std::sync::Barrier::new(2);
    std::thread::scope(|s| {
        let holder = s.spawn(|| {
            let mut conn = rusqlite::Connection::open(db(&dir)).unwrap();
            let tx = conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .unwrap();
            held.wait();
            // The second memory is in the directory; its note now waits for the lock.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
            while !fs::read_dir(&dir).unwrap().flatten().any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .ends_with(&format!("{}.md", &second[..8]))
            }) {
                assert!(std::time::Instant::now() < deadline, "the second save ran");
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            tx.execute(
                "UPDATE meta SET value = ?1 WHERE key = 'dir_mtime'",
                [dir_mtime_ns(&dir)],
            )
            .unwrap();
            // Held past the hook's wait (300 ms), so the second note fails.
            std::thread::sleep(std::time::Duration::from_millis(1500));
            tx.commit().unwrap();
        });
        held.wait();
        let hook = keyed(&dir).in_hook();
        let text = memory_text(second, "2026-11-20T11:00:00+01:00", "Second", "narwhal");
        hook.save_new(&later, second, &text).unwrap();
        assert!(
            !hook.take_warnings().is_empty(),
            "the second save could not tell the index"
        );
        holder.join().unwrap();
    });
    assert_eq!(
        found(&dir, "narwhal").len(),
        1,
        "the second memory is found by the next search"
    );
}

/// The sessions a grouped search of `query` answers with, best first, and the count it
/// gives.
fn sessions_found(dir: &Path, query: &str) -> (Vec<String>, usize) {
    let hits = keyed(dir).search(query, &SearchOptions::default()).unwrap();
    let total = hits.first().map_or(0, |h| h.total);
    (
        hits.into_iter().map(|h| h.memory.session_id).collect(),
        total,
    )
}

/// One session's thousands of memories (a restored backup, a session open for months)
/// do not crowd out the other sessions that match: grouping happened after a bounded
/// set of candidates was taken, all from that session (issue 37), both when the word is
/// rare enough to rank every match and when it is too common to (only the newest
/// memories are ranked); and a phrase of common words (`wombat-1`) finds the one memory
/// that holds it, as its words do.
#[test]
fn one_sessions_many_memories_leave_room_for_the_others() {
    let root = tempfile::tempdir().unwrap();
    let dir = memories(root.path());
    fs::create_dir_all(&dir).unwrap();
    let older = [
        (
            "0be00000-0000-4000-8000-00000000000b",
            "20250101_000000",
            "The wombat-1 burrow was mapped in the garden, beside the kestrel nest.",
        ),
        (
            "0ce00000-0000-4000-8000-00000000000c",
            "20250102_000000",
            "A wombat crossed the road near the kestrel depot.",
        ),
    ];
    for (session, stamp, words) in older {
        let created = format!(
            "{}-{}-{}T00:00:00Z",
            &stamp[..4],
            &stamp[4..6],
            &stamp[6..8]
        );
        fs::write(
            dir.join(format!("{stamp}_{}.md", &session[..8])),
            memory_text(session, &created, "older", words),
        )
        .unwrap();
    }
    // Over the ranking's budget of postings (5,000) for "wombat", under it for
    // "kestrel" (one memory in ten).
    for i in 0..6_000 {
        let (h, m, s) = (i / 3600, i / 60 % 60, i % 60);
        let kestrel = if i % 10 == 0 { " kestrel" } else { "" };
        fs::write(
            dir.join(format!("20260101_{h:02}{m:02}{s:02}_{}.md", &SESSION[..8])),
            memory_text(
                SESSION,
                &format!("2026-01-01T{h:02}:{m:02}:{s:02}Z"),
                "crowd",
                &format!(
                    "Step {i}: the wombat tracker moved again, round 1{kestrel}, entry wombat-{}.",
                    i + 2
                ),
            ),
        )
        .unwrap();
    }
    let (common, total) = sessions_found(&dir, "wombat");
    assert_eq!(common.len(), 3, "{common:?}");
    assert_eq!(common[0], SESSION);
    assert_eq!(total, 6_002);
    let (rare, total) = sessions_found(&dir, "kestrel");
    assert_eq!(rare.len(), 3, "{rare:?}");
    assert_eq!(total, 602);
    let (phrase, _) = sessions_found(&dir, "wombat-1");
    assert_eq!(phrase, ["0be00000-0000-4000-8000-00000000000b"]);
}
