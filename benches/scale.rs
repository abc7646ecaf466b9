//! The search index at scale (issue 23): what users wait for, with 10,000 and 100,000
//! memories in one project. `scripts/bench` runs it after the hook table.
//!
//! The memories are real ones: the corpus sessions' memories (`support/corpus_store.rs`),
//! copied again and again under new names, times and session ids (three memories a
//! session, one every seven minutes back from today), so the text searched is what
//! users' memories hold. Each row times the whole process (or, for the MCP server, one
//! call inside a running server), median and spread of several runs, with peak RSS.
//! Then: the time to rebuild the index of all of them from scratch, what the index adds
//! to a save (the library's update of the index for one new memory, in this process),
//! and the index's size beside the memories'.
//!
//! `MEMORY_STALKER_BENCH_RUNS` (default 9) sets the runs a row;
//! `MEMORY_STALKER_BENCH_QUICK=1` takes 1,000 and 10,000 memories instead.

#[path = "support/corpus_store.rs"]
mod corpus_store;
#[path = "support/measure.rs"]
mod measure;

use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use measure::*;

/// Bump when the generated stores change: they are named after it.
const GENERATOR: &str = "scale-v2";

/// A specific question, and a broad one whose words are in many memories.
const QUESTIONS: [&str; 2] = [
    "what did we decide about the cache version compatibility check",
    "fix the failing tests",
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some(SPAWNER) {
        spawner(&args[2..]);
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository");
    let bin = root.join("target/release");
    let corpus = std::env::var_os("MEMORY_STALKER_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus/transcripts"));
    let data = root.join("target/bench-data");
    let runs: usize = std::env::var("MEMORY_STALKER_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(9);
    let quick = std::env::var("MEMORY_STALKER_BENCH_QUICK").is_ok_and(|v| v == "1");
    let sizes: &[usize] = if quick {
        &[1_000, 10_000]
    } else {
        &[10_000, 100_000]
    };
    // The user's home, kept with the generated memories: they are signed with its writer
    // key, as this machine's memory-stalker signs its own (the recall speaks only of
    // those).
    let home = data.join(format!("{GENERATOR}-home"));
    let key = memory_stalker::provenance::WriterKey::load_or_create(
        &home.join(".local/state/memory-stalker/writer.key"),
    )
    .expect("a writer key");
    let base = corpus_store::build_store(
        &corpus,
        &data.join(format!("{GENERATOR}-base")),
        &bin.join("save-memory"),
    );
    let originals: Vec<PathBuf> = base.memories.keys().map(|f| base.dir.join(f)).collect();
    eprintln!("{} real memories to copy", originals.len());

    let mut table = String::new();
    let mut notes = String::new();
    writeln!(
        table,
        "| case | memories | median (min–max) | peak RSS |\n|---|---|---|---|"
    )
    .unwrap();
    for &n in sizes {
        let project = generate(&data, &originals, n, &key);
        let memories_dir = project.join(".claude/memories");
        let commands = Commands {
            bin: &bin,
            home: &home,
            project: &project,
        };
        notes += &rebuild_note(&commands, n);
        let rows = command_rows(&commands, n, runs);
        let mcp = mcp_search(&bin.join("memory-stalker-mcp"), &project, &home, runs);
        for (case, stats) in rows {
            writeln!(
                table,
                "| {case} | {} | {} | {} |",
                thousands(n as u64),
                spread(&stats),
                rss(stats.peak_rss_kb)
            )
            .unwrap();
        }
        writeln!(
            table,
            "| MCP: search_memories \"{}\", inside the server (warm) | {} | {} | {} |",
            QUESTIONS[0],
            thousands(n as u64),
            spread(&mcp),
            rss(mcp.peak_rss_kb)
        )
        .unwrap();
        let added = index_update_cost(&memories_dir, &originals[0], runs, &key);
        writeln!(
            table,
            "| a save: updating the index for the new memory (in process) | {} | {} | — |",
            thousands(n as u64),
            spread(&added)
        )
        .unwrap();
    }
    println!("{table}\n{notes}");
}

/// Our binaries, run in one project with the user's home and a clean environment.
struct Commands<'a> {
    bin: &'a Path,
    home: &'a Path,
    project: &'a Path,
}

impl Commands<'_> {
    /// The environment every measured command runs in (no model).
    fn env(&self, cmd: &mut Command) {
        cmd.env_clear()
            .env("HOME", self.home)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("CLAUDE_PLUGIN_DATA", self.home.join("data"))
            .env("MEMORY_STALKER_SUMMARIZER", "offline");
    }

    /// `list-memories --project <project> <args>`.
    fn list_memories(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(self.bin.join("list-memories"));
        self.env(&mut cmd);
        cmd.arg("--project").arg(self.project).args(args);
        cmd
    }
}

/// The index of the project's `n` memories rebuilt from scratch (no index at all), timed
/// once: the note saying how long it took and what it weighs beside the memories.
fn rebuild_note(commands: &Commands, n: usize) -> String {
    let memories_dir = commands.project.join(".claude/memories");
    let started = Instant::now();
    let status = commands
        .list_memories(&["index", "--rebuild"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("list-memories index");
    assert!(status.success(), "the rebuild failed");
    let rebuild = started.elapsed();
    format!(
        "- {}: the index of {} memories rebuilt from scratch (`list-memories index --rebuild`) in {:.1} s; on disk {} beside {} of memories ({:.0} %).\n",
        thousands(n as u64),
        thousands(n as u64),
        rebuild.as_secs_f64(),
        size_exact(dir_size(&memories_dir.join(".index"))),
        size_exact(memories_size(&memories_dir)),
        100.0 * dir_size(&memories_dir.join(".index")) as f64 / memories_size(&memories_dir) as f64
    )
}

/// The rows timed as whole processes, `runs` times each: the searches, find latest, the
/// first page and the recall at session start.
fn command_rows(commands: &Commands, n: usize, runs: usize) -> Vec<(String, Stats)> {
    let mut rows: Vec<(String, Stats)> = Vec::new();
    let mut row = |case: String, cmd: Command, stdin: Vec<u8>| {
        eprintln!("\n{case} ({n})");
        let mut side = Side::command(cmd);
        side.stdin = stdin;
        let runs: Vec<Run> = (0..runs)
            .map(|i| {
                let run = measure(&side).unwrap_or_else(|e| panic!("{case}: {e}"));
                eprintln!("  [{}/{runs}] {}", i + 1, ms(run.wall));
                run
            })
            .collect();
        rows.push((case, Stats::new(&runs)));
    };
    for q in QUESTIONS {
        row(
            format!("list-memories search \"{q}\""),
            commands.list_memories(&["search", q]),
            Vec::new(),
        );
    }
    row(
        "list-memories find latest --json".into(),
        commands.list_memories(&["find", "latest", "--json"]),
        Vec::new(),
    );
    row(
        "list-memories list --limit 20 (first page)".into(),
        commands.list_memories(&["list", "--limit", "20"]),
        Vec::new(),
    );
    let mut recall = Command::new(commands.bin.join("save-memory"));
    commands.env(&mut recall);
    recall.env("MEMORY_STALKER_RECALL_DAYS", "3650");
    let start = serde_json::json!({
        "session_id": "5e55b0a7-scale-4c1d-9a2e-000000000012",
        "cwd": commands.project, "hook_event_name": "SessionStart", "source": "startup",
    });
    check_recall(&recall, &start);
    row(
        "hook: recall at session start".into(),
        recall,
        start.to_string().into_bytes(),
    );
    rows
}

/// A project of `n` memories copied from `originals` (made once, then reused).
fn generate(
    data: &Path,
    originals: &[PathBuf],
    n: usize,
    key: &memory_stalker::provenance::WriterKey,
) -> PathBuf {
    let project = data.join(format!("{GENERATOR}-{n}"));
    if project.join(".claude/memories").is_dir() {
        return project;
    }
    eprintln!("copying {n} memories into {} …", project.display());
    let partial = data.join(format!("{GENERATOR}-{n}.partial"));
    let _ = fs::remove_dir_all(&partial);
    let dir = partial.join(".claude/memories");
    fs::create_dir_all(&dir).expect("memories dir");
    let texts: Vec<String> = originals
        .iter()
        .map(|p| fs::read_to_string(p).expect("a memory"))
        .collect();
    let now = chrono::Utc::now().timestamp();
    for i in 0..n {
        let t = chrono::DateTime::from_timestamp(now - (n - i) as i64 * 420, 0).expect("time");
        let session = format!("{:08x}-5ca1-4e00-a000-{:012x}", 0x5ca1_0000 + i / 3, i / 3);
        let text = &texts[i % texts.len()];
        let text = rewrite(text, &session, &t);
        let name = format!("{}_{}.md", t.format("%Y%m%d_%H%M%S"), &session[..8]);
        let text = key.sign(&name, &text);
        fs::write(dir.join(name), text).expect("write a memory");
    }
    fs::write(dir.join(".gitignore"), "*\n").expect("gitignore");
    fs::rename(&partial, &project).expect("rename");
    project
}

/// A memory's text under another session id and time (front matter only).
fn rewrite(text: &str, session: &str, t: &chrono::DateTime<chrono::Utc>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_head = false;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i == 0 && line.trim_end() == "---" {
            in_head = true;
        } else if in_head && line.trim_end() == "---" {
            in_head = false;
        } else if in_head {
            let key = line.split(':').next().unwrap_or("");
            let replaced = match key {
                "session_id" => Some(format!("session_id: \"{session}\"\n")),
                "created" => Some(format!(
                    "created: \"{}\"\n",
                    t.format("%Y-%m-%dT%H:%M:%S+00:00")
                )),
                "created_ns" => Some(format!(
                    "created_ns: {}\n",
                    t.timestamp() as u128 * 1_000_000_000
                )),
                _ => None,
            };
            if let Some(r) = replaced {
                out.push_str(&r);
                continue;
            }
        }
        out.push_str(line);
    }
    out
}

/// Checks that the recall recalls something: a row timing a hook that says nothing
/// would measure the wrong thing.
fn check_recall(cmd: &Command, stdin: &serde_json::Value) {
    let mut c = Command::new(cmd.get_program());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("save-memory");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.to_string().as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("additionalContext"),
        "the recall said nothing: {said}"
    );
}

/// `search_memories` answered by a running MCP server: the time from writing the
/// request to reading the answer, after one call to warm it. Peak RSS is the server's.
// The server is reaped by `wait4` (for its resource usage), which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn mcp_search(server: &Path, project: &Path, home: &Path, runs: usize) -> Stats {
    eprintln!("\nMCP search_memories");
    let mut child = Command::new(server)
        .arg("--project")
        .arg(project)
        .env("HOME", home)
        .env("CLAUDE_PLUGIN_DATA", home.join("data"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("memory-stalker-mcp");
    let pid = child.id();
    let mut to = child.stdin.take().expect("stdin");
    let mut from = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut call = |id: usize, method: &str, params: serde_json::Value| -> Duration {
        let line =
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let started = Instant::now();
        writeln!(to, "{line}").expect("write");
        to.flush().expect("flush");
        let mut answer = String::new();
        from.read_line(&mut answer).expect("read");
        let wall = started.elapsed();
        assert!(answer.contains("\"result\""), "{answer}");
        if id == 0 {
            writeln!(
                to,
                "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}"
            )
            .expect("write");
        }
        wall
    };
    call(
        0,
        "initialize",
        serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"}}),
    );
    let search =
        serde_json::json!({"name": "search_memories", "arguments": {"query": QUESTIONS[0]}});
    call(1, "tools/call", search.clone());
    let mut measured = Vec::new();
    for i in 0..runs {
        let wall = call(2 + i, "tools/call", search.clone());
        eprintln!("  [{}/{runs}] {}", i + 1, ms(wall));
        measured.push(Run {
            wall,
            max_rss_kb: 0,
        });
    }
    drop(to);
    let (_, max_rss_kb) = wait_with_rusage(pid);
    for r in &mut measured {
        r.max_rss_kb = max_rss_kb;
    }
    Stats::new(&measured)
}

/// What the index adds to a save: the library's update of the index for one new memory
/// written into the directory, timed in this process, `runs` times (each a new file).
fn index_update_cost(
    dir: &Path,
    original: &Path,
    runs: usize,
    key: &memory_stalker::provenance::WriterKey,
) -> Stats {
    let text = fs::read_to_string(original).expect("a memory");
    let mut measured = Vec::new();
    for i in 0..runs {
        let t = chrono::Utc::now() + chrono::Duration::days(1 + i as i64);
        let session = format!("5a4e0000-0000-4000-8000-{i:012x}");
        let name = format!("{}_{}.md", t.format("%Y%m%d_%H%M%S"), &session[..8]);
        let before = dir_mtime_ns(dir);
        fs::write(
            dir.join(&name),
            key.sign(&name, &rewrite(&text, &session, &t)),
        )
        .expect("write");
        let started = Instant::now();
        memory_stalker::search::note_change(dir, Some(key.clone()), Some(before), &[&name], &[])
            .expect("index update");
        let wall = started.elapsed();
        // Out again, so each run adds to the same directory.
        let before = dir_mtime_ns(dir);
        fs::remove_file(dir.join(&name)).expect("remove");
        memory_stalker::search::note_change(dir, Some(key.clone()), Some(before), &[], &[&name])
            .expect("index update");
        measured.push(Run {
            wall,
            max_rss_kb: 0,
        });
    }
    Stats::new(&measured)
}

fn dir_mtime_ns(dir: &Path) -> i64 {
    use std::os::unix::fs::MetadataExt;
    let m = fs::metadata(dir).expect("dir");
    m.mtime() * 1_000_000_000 + m.mtime_nsec()
}

fn dir_size(dir: &Path) -> u64 {
    fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

/// The memory files' sizes together (not INDEX.md, the log or the index).
fn memories_size(dir: &Path) -> u64 {
    fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.ends_with(".md") && n.starts_with(|c: char| c.is_ascii_digit())
        })
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum()
}
