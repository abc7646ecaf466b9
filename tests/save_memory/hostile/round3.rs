//! Issue 37's findings, one row each, run against the real binaries: what a shipped or
//! copied search index, a repository's large memory files, a damaged database or
//! processes racing a rebuild can do to what the model reads, to a hook's memory and
//! to a reader.
//!
//! Each row sets up its own sandbox, runs the binaries and returns what went wrong
//! (nothing, when the finding is fixed). `HOSTILE_ROWS=1,3` runs only those findings'
//! rows (numbered as in the issue; the Low items from 8 on); `MEMORY_STALKER_TEST_BINARIES`
//! runs them against another build.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use super::defects::{Ran, context, hook, list, pre_compact, run, sandbox, session_start};
use super::{SID, list_bin};
use crate::support::mcp::Mcp;
use crate::support::{Sandbox, sample_transcript};

/// One row: the finding it covers, what it does, and the check.
struct Case {
    finding: u8,
    name: &'static str,
    run: fn() -> Vec<String>,
}

/// What the shipped index's forged row points at: a file the user can read.
const SECRET: &str = "ANTHROPIC_API_KEY=sk-ant-api03-forged-row-secret";

fn transcript(s: &Sandbox) -> PathBuf {
    let dir = s.home().join(".claude/projects/-p");
    fs::create_dir_all(&dir).unwrap();
    let t = dir.join("t.jsonl");
    fs::copy(sample_transcript(), &t).unwrap();
    t
}

fn index_db(memories: &Path) -> PathBuf {
    memories.join(".index/search.sqlite3")
}

/// An index as memory-stalker builds one for `s`'s project (one memory saved by the
/// hook, then searched, which checkpoints the log into the file).
fn built_index(s: &Sandbox) -> PathBuf {
    let t = transcript(s);
    let saved = hook(s, &pre_compact(s, &t, SID, "auto"));
    assert_eq!(saved.code, Some(0), "{saved:?}");
    let searched = list(s, &["search", "retry"]);
    assert_eq!(searched.code, Some(0), "{searched:?}");
    index_db(&s.memories())
}

/// Makes the index at `db` name `secret` as its first memory, with a trigger that keeps
/// the row however the reader tries to delete it.
fn forge(db: &Path, owner: Option<&str>, secret: &Path) {
    let conn = rusqlite::Connection::open(db).unwrap();
    if let Some(owner) = owner {
        conn.execute("UPDATE meta SET value = ?1 WHERE key = 'owner'", [owner])
            .unwrap();
    }
    conn.execute(
        "UPDATE memories SET file = ?1, order_ns = 9000000000000000000",
        [secret.to_string_lossy()],
    )
    .unwrap();
    conn.execute_batch(
        "CREATE TRIGGER IF NOT EXISTS keep_forged BEFORE DELETE ON memories BEGIN SELECT RAISE(IGNORE); END;
         PRAGMA wal_checkpoint(TRUNCATE);",
    )
    .unwrap();
}

/// Copies the index files of `from` into the memories directory `to`.
fn ship_index(from: &Path, to: &Path) {
    fs::create_dir_all(to.join(".index")).unwrap();
    for e in fs::read_dir(from.parent().unwrap()).unwrap() {
        let e = e.unwrap();
        fs::copy(e.path(), to.join(".index").join(e.file_name())).unwrap();
    }
}

fn leaks(what: &str, ran: &Ran) -> Vec<String> {
    if ran.stdout.contains("forged-row-secret") || ran.stderr.contains("forged-row-secret") {
        vec![format!(
            "{what} printed the file a forged row names: {ran:?}"
        )]
    } else {
        Vec::new()
    }
}

/// 1: a repository ships an index made without a writer key (owner "none"), whose row
/// names an absolute path and is kept by a trigger: `show '#1'` printed that file.
fn a_shipped_index_reads_any_file() -> Vec<String> {
    let maker = sandbox();
    let db = built_index(&maker);
    let secret = maker.root.path().join("environ");
    fs::write(&secret, SECRET).unwrap();
    forge(&db, Some("none"), &secret);
    // A fresh machine: no writer key yet, the repository's index in the project.
    let s = sandbox();
    fs::create_dir_all(s.memories()).unwrap();
    let victim_secret = s.root.path().join("environ");
    fs::write(&victim_secret, SECRET).unwrap();
    ship_index(&db, &s.memories());
    forge(&index_db(&s.memories()), None, &victim_secret);
    let mut found = leaks("show '#1'", &list(&s, &["show", "#1"]));
    found.extend(leaks("show latest", &list(&s, &["show", "latest"])));
    found
}

/// 4: the owner value was one constant per user: an index copied from another of the
/// user's projects, with a forged row, was trusted.
fn an_index_copied_from_another_project_is_trusted() -> Vec<String> {
    let s = sandbox();
    let db = built_index(&s);
    let secret = s.root.path().join("environ");
    fs::write(&secret, SECRET).unwrap();
    // The same user's second project, with the first one's index and a forged row.
    let other = s.root.path().join("other");
    let memories = other.join(".claude/memories");
    fs::create_dir_all(&memories).unwrap();
    ship_index(&db, &memories);
    forge(&index_db(&memories), None, &secret);
    let other_arg = other.to_string_lossy().into_owned();
    let ran = run(
        &s.env,
        &other,
        &list_bin(),
        &["--project", &other_arg, "show", "#1"],
        b"",
        Duration::from_secs(20),
    );
    leaks("show '#1' in the other project", &ran)
}

/// Writes `n` memory files of about `bytes` each, full of distinct words, named before
/// any memory of the hook (a repository's old memories).
fn ship_large_memories(dir: &Path, n: usize, bytes: usize) {
    fs::create_dir_all(dir).unwrap();
    for i in 0..n {
        let mut text = format!(
            "---\nmemory_stalker: 1\nsession_id: \"shipped-{i}\"\ncreated: \"2020-01-01T00:00:{:02}Z\"\ntrigger: \"auto\"\nproject: \"/p\"\ntranscript: \"/t.jsonl\"\ntask_count: 0\ntasks_open: 0\nsummary: \"shipped\"\nsummary_source: \"offline\"\nlang: \"en\"\n---\n\n# Session memory\n\n## AI summary\n\n",
            i % 60
        );
        let mut w = 0u64;
        while text.len() < bytes {
            w = w
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(i as u64 + 1);
            text.push_str(&format!("w{:x} ", w >> 20));
            if text.len() % 120 < 8 {
                text.push('\n');
            }
        }
        fs::write(
            dir.join(format!("20200101_0000{:02}_ship{i:04}.md", i % 60)),
            text,
        )
        .unwrap();
    }
}

/// 2: many large memory files shipped made PreCompact index them before writing its
/// memory; the watchdog fired and no memory was saved.
fn large_shipped_memories_cost_the_memory() -> Vec<String> {
    let s = sandbox();
    ship_large_memories(&s.memories(), 12, 7 << 20);
    let t = transcript(&s);
    let started = Instant::now();
    let ran = hook(&s, &pre_compact(&s, &t, SID, "auto"));
    let took = started.elapsed();
    let mut found = Vec::new();
    let ours = s
        .memory_files()
        .into_iter()
        .filter(|n| !n.contains("_ship"))
        .count();
    if ran.code != Some(0) || ours != 1 {
        found.push(format!("no memory saved ({ours}): {ran:?}"));
    }
    if took > Duration::from_secs(5) {
        found.push(format!(
            "the hook took {took:?} beside 84 MB of shipped memories"
        ));
    }
    found
}

/// 7: the same shipped memories stalled every session start (never indexed, never
/// committed), with no recall.
fn large_shipped_memories_stall_the_recall() -> Vec<String> {
    let s = sandbox();
    let t = transcript(&s);
    let saved = hook(&s, &pre_compact(&s, &t, SID, "auto"));
    assert_eq!(saved.code, Some(0), "{saved:?}");
    ship_large_memories(&s.memories(), 12, 7 << 20);
    let mut found = Vec::new();
    for round in 0..2 {
        let started = Instant::now();
        let ran = hook(&s, &session_start(&s, &t, "new-session", "startup"));
        let took = started.elapsed();
        if !context(&ran.stdout).contains("latest memory") {
            found.push(format!("round {round}: no recall: {ran:?}"));
        }
        if took > Duration::from_secs(2) {
            found.push(format!("round {round}: the session start took {took:?}"));
        }
    }
    found
}

/// Overwrites one page of the full-text table's b-tree (its root: every search reads it)
/// in the database at `db` with garbage: a damaged disk, the header, the schema and the
/// `meta` and `memories` tables intact, so that opening the index and reading what it
/// holds of the directory succeed and only a search meets the damage.
fn damage(db: &Path) {
    let (page, size): (i64, i64) = {
        let conn = rusqlite::Connection::open(db).unwrap();
        // Everything in the file itself, none of it in the log.
        conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
            .unwrap();
        let root = conn
            .query_row(
                "SELECT rootpage FROM sqlite_master WHERE name = 'memory_text_data'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let size = conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .unwrap();
        (root, size)
    };
    let mut bytes = fs::read(db).unwrap();
    let (page, size) = (page as usize, size as usize);
    let at = (page - 1) * size;
    assert!(
        page > 1 && bytes.len() >= at + size,
        "page {page} of {}",
        bytes.len()
    );
    for b in &mut bytes[at..at + size] {
        *b = 0x5a;
    }
    fs::write(db, bytes).unwrap();
}

/// 3: a damaged page (header intact) failed every search with "database disk image is
/// malformed", and `index` said all was up to date.
fn a_damaged_index_fails_every_search() -> Vec<String> {
    let s = sandbox();
    let db = built_index(&s);
    let mut found = Vec::new();
    damage(&db);
    let searched = list(&s, &["search", "retry"]);
    if searched.code != Some(0) || !searched.stdout.contains("retry") {
        found.push(format!("search over a damaged index: {searched:?}"));
    }
    list(&s, &["search", "retry"]);
    damage(&db);
    let indexed = list(&s, &["index"]);
    let after = list(&s, &["search", "retry"]);
    if indexed.code != Some(0) || after.code != Some(0) || !after.stdout.contains("retry") {
        found.push(format!(
            "index over a damaged index, then search: {indexed:?} {after:?}"
        ));
    }
    found
}

/// 8 (Low): readers racing `index --rebuild` failed with "database is locked", "disk I/O
/// error" or "database disk image is malformed", or found nothing (a half-built index),
/// and so did a rebuild beside another: the rebuild deleted the index's files under
/// the processes that had them open. Two searches and two rebuilds run in loops for a
/// few seconds over a small index (a fast rebuild races the most often; the release
/// before failed in every run of this, mostly the rebuilds, a few times a second).
fn readers_fail_beside_a_rebuild() -> Vec<String> {
    let s = sandbox();
    built_index(&s);
    let until = Instant::now() + Duration::from_secs(4);
    let looping = |args: &'static [&'static str]| {
        let (env, project) = (s.env.clone(), s.project());
        std::thread::spawn(move || {
            let p = project.to_string_lossy().into_owned();
            let mut ran = Vec::new();
            while Instant::now() < until {
                let mut all = vec!["--project", p.as_str()];
                all.extend_from_slice(args);
                ran.push(run(
                    &env,
                    &project,
                    &list_bin(),
                    &all,
                    b"",
                    Duration::from_secs(30),
                ));
            }
            ran
        })
    };
    let searches: Vec<_> = (0..2).map(|_| looping(&["search", "retry"])).collect();
    let rebuilds: Vec<_> = (0..2).map(|_| looping(&["index", "--rebuild"])).collect();
    let mut found = Vec::new();
    for r in searches.into_iter().flat_map(|t| t.join().unwrap()) {
        if r.code != Some(0) || !r.stdout.contains("retry") {
            found.push(format!("a search beside the rebuilds: {r:?}"));
        }
    }
    for r in rebuilds.into_iter().flat_map(|t| t.join().unwrap()) {
        if r.code != Some(0) {
            found.push(format!("index --rebuild beside another: {r:?}"));
        }
    }
    found
}

/// 9 (Low): an index whose `meta` is a view was never rebuilt, and `index` exited 1.
fn an_index_with_a_view_for_meta_is_never_rebuilt() -> Vec<String> {
    let s = sandbox();
    let db = built_index(&s);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "DROP TABLE meta; CREATE VIEW meta AS SELECT 'schema' AS key, 9 AS value;
         PRAGMA wal_checkpoint(TRUNCATE);",
    )
    .unwrap();
    drop(conn);
    let indexed = list(&s, &["index"]);
    let searched = list(&s, &["search", "retry"]);
    if indexed.code != Some(0) || searched.code != Some(0) || !searched.stdout.contains("retry") {
        vec![format!("index, then search: {indexed:?} {searched:?}")]
    } else {
        Vec::new()
    }
}

/// 10 (Low): the user's own first memory was marked foreign in INDEX.md on a fresh
/// machine (the index was read before the key existed).
fn the_first_memory_is_foreign() -> Vec<String> {
    let s = sandbox();
    let t = transcript(&s);
    let ran = hook(&s, &pre_compact(&s, &t, SID, "auto"));
    let index = fs::read_to_string(s.memories().join("INDEX.md")).unwrap_or_default();
    if ran.code != Some(0) || index.is_empty() || index.contains("foreign") {
        vec![format!("INDEX.md after the first save: {index}\n{ran:?}")]
    } else {
        Vec::new()
    }
}

/// 11 (Low): `index --rebuild` deleted the index's file names inside the directory that
/// a linked `.index` points to, outside the project.
fn a_rebuild_deletes_through_a_linked_index_dir() -> Vec<String> {
    let s = sandbox();
    let t = transcript(&s);
    hook(&s, &pre_compact(&s, &t, SID, "auto"));
    let index_dir = s.memories().join(".index");
    let _ = fs::remove_dir_all(&index_dir);
    let elsewhere = s.root.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    fs::write(elsewhere.join("search.sqlite3"), "the user's own file\n").unwrap();
    symlink(&elsewhere, &index_dir).unwrap();
    list(&s, &["index", "--rebuild"]);
    if fs::read_to_string(elsewhere.join("search.sqlite3"))
        .ok()
        .as_deref()
        != Some("the user's own file\n")
    {
        vec!["a file behind the linked .index was deleted or changed".into()]
    } else {
        Vec::new()
    }
}

/// 12 (Low): in a memories directory shared by several projects, a newer memory of
/// another project suppressed this project's recall.
fn another_projects_memory_suppresses_the_recall() -> Vec<String> {
    let mut s = sandbox();
    let shared = s.root.path().join("shared");
    s.set("MEMORY_STALKER_DIR", shared.to_string_lossy());
    let t = transcript(&s);
    let ours = hook(&s, &pre_compact(&s, &t, SID, "auto"));
    assert_eq!(ours.code, Some(0), "{ours:?}");
    let other = s.root.path().join("other");
    fs::create_dir_all(&other).unwrap();
    let theirs = json!({"session_id": "0ther000-1111-4222-8333-444455556666", "transcript_path": t, "cwd": other, "hook_event_name": "PreCompact", "trigger": "auto"});
    std::thread::sleep(Duration::from_millis(1100));
    let ran = run(
        &s.env,
        &other,
        &super::hook_bin(),
        &[],
        theirs.to_string().as_bytes(),
        Duration::from_secs(60),
    );
    assert_eq!(ran.code, Some(0), "{ran:?}");
    let start = hook(&s, &session_start(&s, &t, "new-session", "startup"));
    if context(&start.stdout).contains("latest memory") {
        Vec::new()
    } else {
        vec![format!("no recall of this project's memory: {start:?}")]
    }
}

/// Runs `save-memory codex …` with Codex's home `home`.
fn codex(s: &Sandbox, home: &Path, args: &[&str]) -> Ran {
    let home = home.to_string_lossy().into_owned();
    let mut all = vec!["codex"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--codex-home", &home]);
    run(
        &s.env,
        &s.project(),
        &super::hook_bin(),
        &all,
        b"",
        Duration::from_secs(20),
    )
}

/// A copy of memory-stalker at `root/name`: its launcher, an executable file.
fn a_copy(root: &Path, name: &str) -> PathBuf {
    let launcher = root.join(name).join("plugin/run");
    fs::create_dir_all(launcher.parent().unwrap()).unwrap();
    fs::write(&launcher, "#!/bin/sh\nexit 0\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&launcher, fs::Permissions::from_mode(0o755)).unwrap();
    launcher
}

/// 13 (Low): Codex install then uninstall dropped the user's own empty event lists
/// (`"SessionStart": []`), and the spaces of an empty `[ ]`.
fn codex_uninstall_drops_the_users_empty_lists() -> Vec<String> {
    let s = sandbox();
    let home = s.root.path().join("codex-home");
    fs::create_dir_all(&home).unwrap();
    let users = "{\n  \"hooks\": {\n    \"SessionStart\": [],\n    \"Stop\": [ ]\n  }\n}\n";
    fs::write(home.join("hooks.json"), users).unwrap();
    let launcher = a_copy(s.root.path(), "repo");
    let installed = codex(
        &s,
        &home,
        &["install", "--launcher", &launcher.to_string_lossy()],
    );
    let removed = codex(&s, &home, &["uninstall"]);
    let after = fs::read_to_string(home.join("hooks.json")).unwrap_or_default();
    if installed.code != Some(0) || removed.code != Some(0) || after != users {
        vec![format!(
            "hooks.json after install and uninstall:\n{after}\n{installed:?}\n{removed:?}"
        )]
    } else {
        Vec::new()
    }
}

/// 14 (Low): a hooks.json with the key "hooks" twice was edited (one of the two), though
/// Codex reads neither: it refuses the whole file ("duplicate field `hooks`", Codex
/// 0.169.0 and 0.171.0), so our hooks would never run, silently.
fn codex_install_edits_a_duplicated_hooks_key() -> Vec<String> {
    let s = sandbox();
    let home = s.root.path().join("codex-home");
    fs::create_dir_all(&home).unwrap();
    let users = "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/u/a.sh\"}]}]},\n \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/u/b.sh\"}]}]}}\n";
    fs::write(home.join("hooks.json"), users).unwrap();
    let launcher = a_copy(s.root.path(), "repo");
    let ran = codex(
        &s,
        &home,
        &["install", "--launcher", &launcher.to_string_lossy()],
    );
    let after = fs::read_to_string(home.join("hooks.json")).unwrap_or_default();
    let mut found = Vec::new();
    if after != users || home.join("config.toml").exists() {
        found.push(format!("the install changed the files:\n{after}\n{ran:?}"));
    }
    if ran.code == Some(0) || !ran.stderr.contains("\"hooks\" twice") {
        found.push(format!("the install did not say why it stopped: {ran:?}"));
    }
    found
}

/// 15 (Low): installing from one clone and uninstalling from it removed another clone's
/// working hooks (the install replaced them, taking them for an earlier install).
fn codex_install_removes_another_clones_hooks() -> Vec<String> {
    let s = sandbox();
    let home = s.root.path().join("codex-home");
    let (a, b) = (a_copy(s.root.path(), "a"), a_copy(s.root.path(), "b"));
    let (a_arg, b_arg) = (a.to_string_lossy(), b.to_string_lossy());
    let first = codex(&s, &home, &["install", "--launcher", &a_arg]);
    assert_eq!(first.code, Some(0), "{first:?}");
    let installed = codex(&s, &home, &["install", "--launcher", &b_arg]);
    let removed = codex(&s, &home, &["uninstall", "--launcher", &b_arg]);
    let hooks = fs::read_to_string(home.join("hooks.json")).unwrap_or_default();
    let config = fs::read_to_string(home.join("config.toml")).unwrap_or_default();
    let a_command = format!("'{a_arg}' save-memory");
    let mut found = Vec::new();
    // Each of the first clone's six groups (the note before a patch's among them).
    if hooks.matches(&a_command).count() != 6 || !config.contains(&*a_arg) {
        found.push(format!(
            "the first clone's hooks are gone:\n{hooks}\n{config}\n{installed:?}\n{removed:?}"
        ));
    }
    if !removed.stderr.contains(&a_command) {
        found.push(format!(
            "the uninstall did not say what it left: {removed:?}"
        ));
    }
    found
}

/// 16 (Low): a task list too big for the front matter (over 64 KiB of JSON: 300 long
/// tasks) is left out of it, and the recall at session start, which read only the front
/// matter, counted the open tasks and named none.
fn a_recall_of_a_big_task_list_names_no_task() -> Vec<String> {
    let s = sandbox();
    let t = transcript(&s);
    // The session's task files, the list Claude Code keeps (authoritative).
    let tasks = s.home().join(".claude/tasks").join(SID);
    fs::create_dir_all(&tasks).unwrap();
    for i in 0..300 {
        let status = match i {
            0..150 => "completed",
            150 => "in_progress",
            _ => "pending",
        };
        let task = json!({"id": i.to_string(), "subject": format!("Migrate table {i} of the billing schema: {}", "keep the old columns readable until the reports move; ".repeat(5)), "status": status});
        fs::write(tasks.join(format!("{i}.json")), task.to_string()).unwrap();
    }
    let saved = hook(&s, &pre_compact(&s, &t, SID, "auto"));
    assert_eq!(saved.code, Some(0), "{saved:?}");
    let memory = fs::read_to_string(s.memories().join(&s.memory_files()[0])).unwrap();
    assert!(
        memory.contains("tasks_open: 150") && !memory.contains("\ntodos: "),
        "the front matter holds the list: the row tests nothing"
    );
    let start = hook(&s, &session_start(&s, &t, "new-session", "startup"));
    let note = context(&start.stdout);
    if note.contains("[in progress] Migrate table 150 ") && note.contains("[ ] Migrate table 151 ")
    {
        Vec::new()
    } else {
        vec![format!("the recall names no open task:\n{note}\n{start:?}")]
    }
}

/// 17 (info): a headline edited in place (same inode, the directory's time unchanged)
/// kept its old text in `list --json` once the listing was longer than a page of 200:
/// only a short page's files were checked against the index.
fn an_edited_headline_keeps_its_stale_label() -> Vec<String> {
    let s = sandbox();
    built_index(&s);
    let text = fs::read_to_string(s.memories().join(&s.memory_files()[0])).unwrap();
    for i in 0..250 {
        let name = format!("20250101_00{:02}{:02}_e{i:07}.md", i / 60, i % 60);
        fs::write(s.memories().join(name), &text).unwrap();
    }
    let indexed = list(&s, &["index"]);
    assert_eq!(indexed.code, Some(0), "{indexed:?}");
    // The oldest, last of the listing, edited in place as an editor that writes through
    // the file does.
    let oldest = s.memories().join("20250101_000000_e0000000.md");
    let edited = text.replacen(
        "summary: \"",
        "summary: \"Edited by hand: the retry budget moved to config. ",
        1,
    );
    fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&oldest)
        .and_then(|mut f| std::io::Write::write_all(&mut f, edited.as_bytes()))
        .unwrap();
    let listed = list(&s, &["list", "--json"]);
    let last = serde_json::from_str::<serde_json::Value>(&listed.stdout)
        .ok()
        .and_then(|v| {
            v["memories"].as_array()?.last()?["summary"]
                .as_str()
                .map(str::to_string)
        })
        .unwrap_or_default();
    if listed.code == Some(0) && last.starts_with("Edited by hand") {
        Vec::new()
    } else {
        vec![format!(
            "the listing's last headline: {last:?}; {}",
            listed.stderr
        )]
    }
}

/// The text of a `search_memories` answer of the running server `mcp` (id `id`).
fn mcp_search(mcp: &mut Mcp, id: u64, query: &str) -> String {
    mcp.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "search_memories", "arguments": {"query": query}}}).to_string());
    loop {
        let Some(v) = mcp.recv(Duration::from_secs(120)) else {
            return "no answer within 120 s".into();
        };
        if v["id"] == id {
            return v["result"]["content"][0]["text"]
                .as_str()
                .map_or_else(|| v.to_string(), String::from);
        }
    }
}

/// 18 (also found): the first MCP search after 10,000 memories arrived behind the
/// index's back read all of them while the model waited (1.5 s on a fast machine, a
/// release build). Now it reads the newest slice, says its answer is partial, and the
/// rest is read in the background.
fn the_first_search_after_10000_memories_reads_them_all() -> Vec<String> {
    let s = sandbox();
    built_index(&s);
    let mut mcp = Mcp::start(&s);
    let warm = mcp_search(&mut mcp, 10, "retry");
    assert!(warm.contains("retry"), "{warm}");
    let text = fs::read_to_string(s.memories().join(&s.memory_files()[0])).unwrap();
    for i in 0..10_000 {
        let name = format!(
            "2025{:02}{:02}_{:02}{:02}00_b{i:07}.md",
            1 + i / 2400,
            1 + i / 96 % 25,
            i / 4 % 24,
            i % 4 * 15
        );
        let newest = if i == 9_999 { "wombat " } else { "" };
        fs::write(
            s.memories().join(name),
            text.replacen(
                "## AI summary\n",
                &format!("## AI summary\n\n{newest}backup {i}\n"),
                1,
            ),
        )
        .unwrap();
    }
    let mut found = Vec::new();
    let started = Instant::now();
    let first = mcp_search(&mut mcp, 11, "wombat");
    let took = started.elapsed();
    eprintln!("the first search after 10,000 arrived: {took:?}");
    if !first.contains("Partial: 9000 memories") || !first.contains("b0009999") {
        found.push(format!(
            "the first search ({took:?}) read everything or said nothing of what it left: {}",
            &first[..first.len().min(600)]
        ));
    }
    // The rest is read in the background: a later answer is whole.
    let until = Instant::now() + Duration::from_secs(120);
    let mut id = 12;
    loop {
        let later = mcp_search(&mut mcp, id, "backup 17");
        if !later.contains("Partial:") && later.contains("b0000017") {
            eprintln!("whole again after {:?}", started.elapsed());
            break;
        }
        if Instant::now() > until {
            found.push(format!(
                "still partial after 120 s: {}",
                &later[..later.len().min(400)]
            ));
            break;
        }
        id += 1;
        std::thread::sleep(Duration::from_millis(500));
    }
    found
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            finding: 1,
            name: "a shipped index (owner none) reads any file",
            run: a_shipped_index_reads_any_file,
        },
        Case {
            finding: 2,
            name: "large shipped memories cost the memory",
            run: large_shipped_memories_cost_the_memory,
        },
        Case {
            finding: 3,
            name: "a damaged page fails every search",
            run: a_damaged_index_fails_every_search,
        },
        Case {
            finding: 4,
            name: "an index copied from another project",
            run: an_index_copied_from_another_project_is_trusted,
        },
        Case {
            finding: 7,
            name: "large shipped memories stall the recall",
            run: large_shipped_memories_stall_the_recall,
        },
        Case {
            finding: 8,
            name: "readers beside index --rebuild",
            run: readers_fail_beside_a_rebuild,
        },
        Case {
            finding: 9,
            name: "meta is a view",
            run: an_index_with_a_view_for_meta_is_never_rebuilt,
        },
        Case {
            finding: 10,
            name: "the first memory marked foreign",
            run: the_first_memory_is_foreign,
        },
        Case {
            finding: 11,
            name: "index --rebuild through a linked .index",
            run: a_rebuild_deletes_through_a_linked_index_dir,
        },
        Case {
            finding: 12,
            name: "a shared directory: another project's newer memory",
            run: another_projects_memory_suppresses_the_recall,
        },
        Case {
            finding: 13,
            name: "Codex uninstall drops the user's empty lists",
            run: codex_uninstall_drops_the_users_empty_lists,
        },
        Case {
            finding: 14,
            name: "Codex install edits a duplicated \"hooks\"",
            run: codex_install_edits_a_duplicated_hooks_key,
        },
        Case {
            finding: 15,
            name: "Codex install + uninstall: another clone's hooks",
            run: codex_install_removes_another_clones_hooks,
        },
        Case {
            finding: 16,
            name: "a recall of a task list too big for front matter",
            run: a_recall_of_a_big_task_list_names_no_task,
        },
        Case {
            finding: 17,
            name: "a headline edited in place, a long listing",
            run: an_edited_headline_keeps_its_stale_label,
        },
        Case {
            finding: 18,
            name: "the first MCP search after 10,000 arrived",
            run: the_first_search_after_10000_memories_reads_them_all,
        },
    ]
}

/// Issue 37: every finding's row, against the real binaries.
#[test]
fn issue_37_findings_are_fixed() {
    let only = std::env::var("HOSTILE_ROWS").ok();
    let mut report =
        String::from("finding  row                                                secs  result\n");
    let mut failures = Vec::new();
    for case in cases() {
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|d| d == case.finding.to_string()))
        {
            continue;
        }
        let started = Instant::now();
        let found = (case.run)();
        let secs = started.elapsed().as_secs_f64();
        report.push_str(&format!(
            "{:>7}  {:<50} {:>5.1}  {}\n",
            case.finding,
            case.name,
            secs,
            if found.is_empty() { "ok" } else { "FAIL" }
        ));
        for f in found {
            failures.push(format!("finding {} ({}): {f}", case.finding, case.name));
        }
    }
    println!("{report}");
    assert!(failures.is_empty(), "{}\n\n{report}", failures.join("\n"));
}
