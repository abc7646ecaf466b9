//! Benchmark of the PreCompact hook (SPEC §8): wall time and peak memory of the real
//! `save-memory` binary on a 1 GB transcript whose last segment is 5 MB, compared with
//! the original design's reference algorithm (parse every line of the file).
//!
//! `cargo bench -p save-memory --bench hook` prints the figures. The transcripts are
//! generated once into `target/bench-data/` (size: `MEMORY_STALKER_BENCH_MB`, default
//! 1024). Times are with the file in the page cache, as it is right after Claude Code
//! wrote it.

#[path = "../tests/support/http.rs"]
mod http;

use std::fs::{self, File};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_save-memory");
const SEGMENT_BYTES: u64 = 5 * 1024 * 1024;
const RUNS: usize = 15;

fn main() {
    let mb: u64 = std::env::var("MEMORY_STALKER_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-data");
    fs::create_dir_all(&dir).unwrap();
    let (with_tasks, _) = generate(&dir, mb, true);
    let (without_tasks, last_boundary) = generate(&dir, mb, false);

    println!("\nPreCompact hook, offline summary, {RUNS} runs each (median / min / max, peak RSS)");
    println!("{:-<100}", "");
    report(
        "hook: last segment 5 MB, task list in it",
        &measure_hook(&with_tasks, RUNS, None),
    );
    report(
        "hook: no task tool, first compaction (whole file scanned)",
        &measure_hook(&without_tasks, RUNS, None),
    );
    report(
        "hook: no task tool, later compaction (earlier memory)",
        &measure_hook(&without_tasks, RUNS, Some(last_boundary)),
    );
    report(
        "inspect --json: last segment 5 MB",
        &measure(
            &["inspect", "--json", with_tasks.to_str().unwrap()],
            b"",
            RUNS,
        ),
    );

    println!("\nPreCompact hook with a model that answers after 5 s (sample session, 3 runs each)");
    println!("{:-<100}", "");
    let server = http::FakeServer::start(|_, _| {
        http::Reply::json(200, http::anthropic_message(http::MODEL_SUMMARY))
            .after(Duration::from_secs(5))
    });
    for (label, asynchronous) in [
        ("async (default): the model runs in a detached worker", "1"),
        ("sync (MEMORY_STALKER_ASYNC=0)", "0"),
    ] {
        report(label, &measure_model_hook(&server.url, asynchronous, 3));
    }
    println!();

    let started = Instant::now();
    let records = reference_parse(&with_tasks);
    println!(
        "{:<58} {:>9.1} ms  ({records} records, 1 run)",
        "reference: parse every line (design §4)",
        started.elapsed().as_secs_f64() * 1000.0
    );
}

/// One measured run: wall time and the child's peak resident memory.
struct Run {
    wall: Duration,
    max_rss_kb: i64,
}

fn report(label: &str, runs: &[Run]) {
    let mut walls: Vec<Duration> = runs.iter().map(|r| r.wall).collect();
    walls.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let rss = runs.iter().map(|r| r.max_rss_kb).max().unwrap_or(0);
    println!(
        "{label:<58} {:>9.1} ms  min {:.1}  max {:.1}  peak RSS {:.1} MB",
        ms(walls[walls.len() / 2]),
        ms(walls[0]),
        ms(walls[walls.len() - 1]),
        rss as f64 / 1024.0
    );
}

/// Runs the hook `runs` times, each in a fresh project; with `earlier`, the project
/// holds the memory of the previous compaction, taken when the file was that long.
fn measure_hook(transcript: &Path, runs: usize, earlier: Option<u64>) -> Vec<Run> {
    (0..runs)
        .flat_map(|_| {
            let project = tempfile::tempdir().unwrap();
            if let Some(bytes) = earlier {
                let dir = project.path().join(".claude/memories");
                fs::create_dir_all(&dir).unwrap();
                let memory = format!(
                    "---\nmemory_stalker: 1\nsession_id: \"bench-session\"\ntranscript: {}\ntranscript_bytes: {bytes}\ntodos: null\n---\n",
                    serde_json::to_string(transcript).unwrap()
                );
                fs::write(dir.join("20260101_000000_bench-se.md"), memory).unwrap();
            }
            let input = format!(
                r#"{{"session_id":"bench-session","transcript_path":{},"cwd":{},"hook_event_name":"PreCompact","trigger":"auto","custom_instructions":null}}"#,
                serde_json::to_string(transcript).unwrap(),
                serde_json::to_string(project.path()).unwrap()
            );
            measure(&[], input.as_bytes(), 1)
        })
        .collect()
}

fn measure_model_hook(url: &str, asynchronous: &str, runs: usize) -> Vec<Run> {
    let project = tempfile::tempdir().unwrap();
    let sample =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/sample-session.jsonl");
    let input = format!(
        r#"{{"session_id":"7c630e3a-bench","transcript_path":{},"cwd":{},"hook_event_name":"PreCompact","trigger":"manual","custom_instructions":null}}"#,
        serde_json::to_string(&sample).unwrap(),
        serde_json::to_string(project.path()).unwrap()
    );
    let env = [
        ("ANTHROPIC_BASE_URL", url),
        ("ANTHROPIC_API_KEY", "bench-key"),
        ("MEMORY_STALKER_ASYNC", asynchronous),
        ("MEMORY_STALKER_SUMMARIZER", "anthropic"),
    ];
    run_many(&[], input.as_bytes(), &env, runs)
}

// Children are reaped by `wait4` (for their resource usage), which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn measure(args: &[&str], stdin: &[u8], runs: usize) -> Vec<Run> {
    run_many(
        args,
        stdin,
        &[("MEMORY_STALKER_SUMMARIZER", "offline")],
        runs,
    )
}

// Children are reaped by `wait4`, which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn run_many(args: &[&str], stdin: &[u8], env: &[(&str, &str)], runs: usize) -> Vec<Run> {
    let home = tempfile::tempdir().unwrap();
    (0..runs)
        .map(|_| {
            let started = Instant::now();
            let mut child = Command::new(BIN)
                .args(args)
                .env_clear()
                .env("HOME", home.path())
                .env("CLAUDE_PLUGIN_DATA", home.path())
                .env("MEMORY_STALKER_STEER", "0")
                .envs(env.iter().copied())
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            child.stdin.take().unwrap().write_all(stdin).unwrap();
            let (status, max_rss_kb) = wait_with_rusage(child.id());
            let wall = started.elapsed();
            assert_eq!(status, 0, "save-memory failed");
            Run { wall, max_rss_kb }
        })
        .collect()
}

/// Waits for a child and returns its exit status and peak RSS (kB).
fn wait_with_rusage(pid: u32) -> (i32, i64) {
    let mut status = 0;
    // SAFETY: `rusage` is plain data, zero is a valid value; wait4 fills it in for the
    // child we spawned and have not waited for yet.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(r, pid as libc::pid_t, "wait4 failed");
    (libc::WEXITSTATUS(status), usage.ru_maxrss)
}

/// The original design's algorithm: every line parsed into a JSON value.
fn reference_parse(path: &Path) -> usize {
    let mut n = 0;
    let mut reader = BufReader::with_capacity(1 << 20, File::open(path).unwrap());
    let mut line = Vec::new();
    while reader.read_until(b'\n', &mut line).unwrap() > 0 {
        if serde_json::from_slice::<serde_json::Value>(&line).is_ok() {
            n += 1;
        }
        line.clear();
    }
    n
}

/// Writes (once) a transcript of `mb` megabytes: many compacted segments of a long
/// session, then a last segment of 5 MB with a prompt, tool calls and, if `tasks`, a
/// TodoWrite list. Returns its path and the offset of its last compact boundary.
fn generate(dir: &Path, mb: u64, tasks: bool) -> (PathBuf, u64) {
    let name = format!(
        "session-{mb}mb-{}.jsonl",
        if tasks { "tasks" } else { "notasks" }
    );
    let path = dir.join(name);
    let offset_file = path.with_extension("boundary");
    let target = mb * 1024 * 1024;
    if fs::metadata(&path).is_ok_and(|m| m.len() >= target)
        && let Some(offset) = fs::read_to_string(&offset_file)
            .ok()
            .and_then(|s| s.trim().parse().ok())
    {
        return (path, offset);
    }
    eprintln!("generating {} ...", path.display());
    let tmp = path.with_extension("partial");
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&tmp).unwrap());
    let mut g = Gen::default();
    let mut written = 0u64;
    let body_end = target - SEGMENT_BYTES;
    let mut next_boundary = 50 * 1024 * 1024;
    while written < body_end {
        written += g.turn(&mut out, tasks && written < 10 * 1024 * 1024);
        if written >= next_boundary {
            written += g.boundary(&mut out);
            next_boundary += 50 * 1024 * 1024;
        }
    }
    let boundary_offset = written;
    written += g.boundary(&mut out);
    let segment_start = written;
    while written - segment_start < SEGMENT_BYTES {
        written += g.turn(&mut out, tasks);
    }
    out.flush().unwrap();
    drop(out);
    fs::rename(&tmp, &path).unwrap();
    fs::write(&offset_file, boundary_offset.to_string()).unwrap();
    (path, boundary_offset)
}

#[derive(Default)]
struct Gen {
    n: u64,
}

impl Gen {
    fn line(&mut self, out: &mut impl Write, kind: &str, body: &str) -> u64 {
        self.n += 1;
        let line = format!(
            r#"{{"parentUuid":"u{}","isSidechain":false,"userType":"external","cwd":"/home/dev/big","sessionId":"bench-session","version":"2.1.197","gitBranch":"main","type":"{kind}",{body},"uuid":"u{}","timestamp":"2026-11-20T10:00:00.000Z"}}"#,
            self.n - 1,
            self.n
        );
        out.write_all(line.as_bytes()).unwrap();
        out.write_all(b"\n").unwrap();
        line.len() as u64 + 1
    }

    fn turn(&mut self, out: &mut impl Write, todo: bool) -> u64 {
        let n = self.n;
        let mut w = 0;
        w += self.line(out, "user", &format!(r#""message":{{"role":"user","content":"Please refactor module {n} and keep the tests green."}}"#));
        w += self.line(out, "assistant", &format!(r#""message":{{"id":"m{n}","role":"assistant","model":"claude-opus-4-8","content":[{{"type":"text","text":"{}"}}]}}"#, "I will look at the module first. ".repeat(20)));
        w += self.line(out, "assistant", &format!(r#""message":{{"id":"m{n}","role":"assistant","content":[{{"type":"tool_use","id":"r{n}","name":"Read","input":{{"file_path":"/home/dev/big/src/m{n}.rs"}}}}]}}"#));
        w += self.line(out, "user", &format!(r#""message":{{"role":"user","content":[{{"tool_use_id":"r{n}","type":"tool_result","content":"{}"}}]}},"toolUseResult":{{"type":"text"}}"#, "fn body() { let x = compute(); }\\n".repeat(120)));
        w += self.line(out, "assistant", &format!(r#""message":{{"id":"m{n}b","role":"assistant","content":[{{"type":"tool_use","id":"e{n}","name":"Edit","input":{{"file_path":"/home/dev/big/src/m{n}.rs","old_string":"a","new_string":"b"}}}}]}}"#));
        w += self.line(out, "user", &format!(r#""message":{{"role":"user","content":[{{"tool_use_id":"e{n}","type":"tool_result","content":"ok"}}]}},"toolUseResult":{{"filePath":"/home/dev/big/src/m{n}.rs"}}"#));
        w += self.line(out, "assistant", &format!(r#""message":{{"id":"m{n}c","role":"assistant","content":[{{"type":"tool_use","id":"b{n}","name":"Bash","input":{{"command":"cargo test"}}}}]}}"#));
        w += self.line(out, "user", &format!(r#""message":{{"role":"user","content":[{{"tool_use_id":"b{n}","type":"tool_result","content":"{}"}}]}},"toolUseResult":{{"stdout":"ok"}}"#, "test tests::case ... ok\\n".repeat(60)));
        if todo {
            w += self.line(out, "assistant", &format!(r#""message":{{"id":"m{n}d","role":"assistant","content":[{{"type":"tool_use","id":"t{n}","name":"TodoWrite","input":{{"todos":[{{"content":"Refactor module {n}","status":"in_progress","activeForm":"Refactoring"}},{{"content":"Run the suite","status":"pending","activeForm":"Running"}}]}}}}]}}"#));
        }
        w
    }

    fn boundary(&mut self, out: &mut impl Write) -> u64 {
        self.line(out, "system", r#""subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto"}"#)
            + self.line(out, "user", r#""isCompactSummary":true,"isVisibleInTranscriptOnly":true,"message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context."}"#)
    }
}
