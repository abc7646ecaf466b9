//! The hostile-input, fault and concurrency tables, run against the real binaries.
//!
//! Each hostile row checks what a user relies on: the hook exits 0, prints nothing on
//! stdout unless steering applies, says what went wrong in a short stderr, stays within
//! a time and memory bound, and leaves no partial file behind. The fault rows break the
//! disk, the file-size limit and the process; the concurrency rows race hooks and prune.

use crate::support;

mod defects;
mod round3;

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::rollout::{CODEX_SID, Rollout};
use support::{Sandbox, files_in, sample_transcript};

/// The hook under test (`MEMORY_STALKER_TEST_BINARIES` chooses another build).
fn hook_bin() -> String {
    support::binary("save-memory")
}
const SID: &str = "7c630e3a-5b1d-4c2e-9f47-2d8a61b0c9e5";

/// `list-memories`, built beside the hook by `cargo test --workspace`.
fn list_bin() -> String {
    support::binary("list-memories")
}

/// What a run of a binary did, measured by the kernel.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
    /// CPU time, user and system, of the binary (all its threads).
    cpu: Duration,
    /// Peak resident memory, MiB.
    rss_mib: u64,
}

/// Runs `bin` in the sandbox with `stdin`, under an optional `sh` prefix (for `ulimit`),
/// and measures it with GNU time: its peak memory is the binary's own (a child's peak
/// read with `wait4` here would include this test process, which it was forked from).
fn measure(s: &Sandbox, bin: &str, args: &[&str], stdin: Vec<u8>, shell: Option<&str>) -> Run {
    let rss_file = tempfile::NamedTempFile::new().unwrap();
    let mut cmd = Command::new("/usr/bin/time");
    cmd.arg("-f").arg("%U %S %M").arg("-o").arg(rss_file.path());
    match shell {
        Some(prefix) => {
            cmd.arg("/bin/sh")
                .arg("-c")
                .arg(format!("{prefix}; exec \"$0\" \"$@\""))
                .arg(bin)
                .args(args);
        }
        None => {
            cmd.arg(bin).args(args);
        }
    }
    let started = Instant::now();
    let mut child = cmd
        .env_clear()
        .envs(s.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .current_dir(s.project())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("GNU time (/usr/bin/time) measures the binaries; .ci/run installs it");
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&stdin);
    });
    let read = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = read(Box::new(child.stdout.take().unwrap()));
    let err = read(Box::new(child.stderr.take().unwrap()));
    let status = child.wait().unwrap();
    let took = started.elapsed();
    let _ = writer.join();
    let report = fs::read_to_string(rss_file.path()).unwrap_or_default();
    // GNU time says "Command terminated by signal N" before the figure when one ended it.
    let signalled = report.contains("signal");
    let figures: Vec<&str> = report
        .lines()
        .last()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    let (cpu, rss_kib) = match figures[..] {
        [user, system, rss] => (
            user.parse::<f64>().unwrap_or(f64::MAX) + system.parse::<f64>().unwrap_or(f64::MAX),
            rss.parse().unwrap_or(u64::MAX),
        ),
        _ => (f64::MAX, u64::MAX),
    };
    Run {
        code: if signalled { None } else { status.code() },
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
        took,
        cpu: Duration::try_from_secs_f64(cpu).unwrap_or(Duration::MAX),
        rss_mib: rss_kib / 1024,
    }
}

fn sandbox() -> Sandbox {
    let mut s = Sandbox::new();
    s.set("MEMORY_STALKER_SUMMARIZER", "offline");
    s
}

/// Codex's PreCompact input (docs/design.md §2.11); `None`: `codex exec --ephemeral`.
fn codex_pre_compact(transcript: Option<&Path>, cwd: &Path) -> Vec<u8> {
    json!({"session_id": CODEX_SID, "turn_id": "0199c0de-7777-7000-8000-000000000001", "transcript_path": transcript, "cwd": cwd, "hook_event_name": "PreCompact", "model": "gpt-5.5", "trigger": "auto"})
        .to_string()
        .into_bytes()
}

/// Where a rollout of the sandbox's Codex session goes.
fn rollout_at(s: &Sandbox) -> PathBuf {
    let dir = s.home().join(".codex/sessions/2026/11/25");
    fs::create_dir_all(&dir).unwrap();
    dir.join(format!("rollout-2026-11-25T09-00-00-{CODEX_SID}.jsonl"))
}

fn pre_compact(transcript: &Path, cwd: &Path) -> Vec<u8> {
    json!({"session_id": SID, "transcript_path": transcript, "cwd": cwd, "hook_event_name": "PreCompact", "trigger": "auto"})
        .to_string()
        .into_bytes()
}

/// Files under `dir` whose names say a write was cut short.
fn partial_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(rd) = fs::read_dir(dir) else {
        return found;
    };
    for e in rd.flatten() {
        let p = e.path();
        let is_dir = fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir());
        if is_dir {
            found.extend(partial_files(&p));
        } else if e.file_name().to_string_lossy().starts_with(".tmp-") {
            found.push(p);
        }
    }
    found
}

/// How many times a row's CPU limit its wall time may take (see the check).
const WALL_SLACK: u64 = 3;

/// One hostile row: the input is set up by `setup`, which returns the hook's stdin.
struct Row {
    name: &'static str,
    setup: fn(&Sandbox) -> Vec<u8>,
    /// Whether a memory must come out of it, and where: the project or the fallback.
    memory: Expect,
    /// A word the one stderr line must hold (what went wrong, said plainly).
    says: &'static str,
    /// CPU seconds the hook may use (its wall time may take [`WALL_SLACK`] times more).
    max_secs: u64,
    max_rss_mib: u64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    None,
    Project,
    Fallback,
}

fn transcript_at(s: &Sandbox, name: &str) -> PathBuf {
    let dir = s.home().join(".claude/projects/-p");
    fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn sample(s: &Sandbox) -> PathBuf {
    let t = transcript_at(s, "t.jsonl");
    fs::copy(sample_transcript(), &t).unwrap();
    t
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

fn rows() -> Vec<Row> {
    let mut rows = claude_code_rows();
    rows.extend(rollout_rows());
    rows
}

/// The same hostile inputs, as Codex would give them: a rollout (docs/design.md §3.13).
fn rollout_rows() -> Vec<Row> {
    vec![
        Row {
            name: "rollout with garbage lines",
            setup: |s| {
                let t = rollout_at(s);
                let mut lines = Rollout::sample(&s.project()).lines;
                for (i, junk) in [
                    "not json at all",
                    "\u{1b}[31m{\"timestamp\":",
                    r#"{"timestamp":"t","type":"response_item","payload":[1,2]}"#,
                    r#"{"timestamp":"t","type":"a_type_of_2030","payload":{"x":{"y":[]}}}"#,
                    r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{broken","call_id":"z"}}"#,
                ]
                .into_iter()
                .enumerate()
                {
                    lines.insert(2 + 3 * i, junk.to_string());
                }
                lines.push(
                    r#"{"timestamp":"t","type":"response_item","payload":{"type":"mess"#.into(),
                );
                fs::write(&t, lines.join("\n")).unwrap();
                codex_pre_compact(Some(&t), &s.project())
            },
            memory: Expect::Project,
            says: "saved",
            max_secs: 5,
            max_rss_mib: 30,
        },
        Row {
            name: "rollout of 1 GiB, compacted near its end",
            setup: |s| {
                // The session's first line, a gigabyte the reader must never touch, then a
                // compaction and the segment after it.
                let t = rollout_at(s);
                let mut r = Rollout::sample(&s.project());
                let head = format!("{}\n", r.lines[0]);
                fs::write(&t, &head).unwrap();
                let f = fs::OpenOptions::new().append(true).open(&t).unwrap();
                f.set_len(1 << 30).unwrap();
                r.lines.clear();
                r.compaction("summary")
                    .prompt("Now document the retry budget in README.md.")
                    .plan("d1", &[("Document the budget", "in_progress")])
                    .shell("d2", "cat README.md", 0, "# Uploader\n");
                let mut tail = String::from("\n");
                tail.push_str(&r.text());
                fs::OpenOptions::new()
                    .append(true)
                    .open(&t)
                    .unwrap()
                    .write_all(tail.as_bytes())
                    .unwrap();
                codex_pre_compact(Some(&t), &s.project())
            },
            memory: Expect::Project,
            says: "saved",
            max_secs: 5,
            max_rss_mib: 40,
        },
        Row {
            name: "rollout of 30,000 long commands on one session, each waited on",
            setup: |s| {
                // Every command still running when its call returned, all on session 1,
                // each ended by a wait: settling them is one walk, not one per command.
                let t = rollout_at(s);
                let mut r = Rollout::sample(&s.project());
                for i in 0..30_000 {
                    let (call, wait) = (format!("x{i}"), format!("w{i}"));
                    r.call(
                        &call,
                        "exec_command",
                        json!({"cmd": "cargo test", "yield_time_ms": 250}),
                        "Chunk ID: a\nWall time: 0.2500 seconds\nProcess running with session ID 1\nOriginal token count: 1\nOutput:\n",
                    )
                    .call(
                        &wait,
                        "write_stdin",
                        json!({"session_id": 1, "chars": ""}),
                        "Chunk ID: b\nWall time: 1.0000 seconds\nProcess exited with code 1\nOriginal token count: 1\nOutput:\nerror: still failing\n",
                    );
                }
                fs::write(&t, r.text()).unwrap();
                codex_pre_compact(Some(&t), &s.project())
            },
            memory: Expect::Project,
            says: "saved",
            max_secs: 10,
            max_rss_mib: 120,
        },
        Row {
            name: "rollout is a FIFO",
            setup: |s| {
                let t = rollout_at(s);
                mkfifo(&t);
                codex_pre_compact(Some(&t), &s.project())
            },
            memory: Expect::None,
            says: "not a regular file",
            max_secs: 5,
            max_rss_mib: 20,
        },
        Row {
            name: "rollout missing",
            setup: |s| codex_pre_compact(Some(&rollout_at(s)), &s.project()),
            memory: Expect::None,
            says: "cannot read transcript",
            max_secs: 5,
            max_rss_mib: 20,
        },
        Row {
            name: "null transcript_path (codex exec --ephemeral)",
            setup: |s| codex_pre_compact(None, &s.project()),
            memory: Expect::None,
            says: "--ephemeral keeps no rollout",
            max_secs: 5,
            max_rss_mib: 20,
        },
    ]
}

/// The hostile inputs of a Claude Code session.
fn claude_code_rows() -> Vec<Row> {
    vec![
        Row {
            name: "empty stdin",
            setup: |_| Vec::new(),
            memory: Expect::None,
            says: "stdin was empty",
            max_secs: 5,
            max_rss_mib: 20,
        },
        Row {
            name: "garbage stdin",
            setup: |_| b"\x00\xff not json {{{".to_vec(),
            memory: Expect::None,
            says: "not the JSON",
            max_secs: 5,
            max_rss_mib: 20,
        },
        Row {
            name: "deep nesting",
            setup: |_| "[".repeat(200_000).into_bytes(),
            memory: Expect::None,
            says: "not the JSON",
            max_secs: 5,
            max_rss_mib: 30,
        },
        Row {
            name: "PostCompact input over 16 MiB",
            setup: |s| {
                let t = sample(s);
                json!({"session_id": SID, "transcript_path": t, "cwd": s.project(), "hook_event_name": "PostCompact", "compact_summary": "x".repeat(17 << 20)})
                    .to_string()
                    .into_bytes()
            },
            memory: Expect::None,
            says: "over 16 MiB",
            max_secs: 3,
            max_rss_mib: 60,
        },
        Row {
            name: "transcript missing",
            setup: |s| pre_compact(&s.root.path().join("nope.jsonl"), &s.project()),
            memory: Expect::None,
            says: "cannot read transcript",
            max_secs: 5,
            max_rss_mib: 20,
        },
        Row {
            name: "transcript is a directory",
            setup: |s| pre_compact(s.root.path(), &s.project()),
            memory: Expect::None,
            says: "is a directory",
            max_secs: 5,
            max_rss_mib: 20,
        },
        Row {
            name: "transcript is a FIFO",
            setup: |s| {
                let t = transcript_at(s, "fifo.jsonl");
                mkfifo(&t);
                pre_compact(&t, &s.project())
            },
            memory: Expect::None,
            says: "not a regular file",
            max_secs: 5,
            max_rss_mib: 20,
        },
        Row {
            name: "transcript of 1 GiB without a line break",
            setup: |s| {
                let t = transcript_at(s, "huge.jsonl");
                fs::File::create(&t).unwrap().set_len(1 << 30).unwrap();
                pre_compact(&t, &s.project())
            },
            memory: Expect::Project,
            says: "not valid JSON",
            max_secs: 10,
            max_rss_mib: 160,
        },
        Row {
            name: "transcript of random bytes",
            setup: |s| {
                let t = transcript_at(s, "random.jsonl");
                let bytes: Vec<u8> = (0..2_000_000u32)
                    .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
                    .collect();
                fs::write(&t, bytes).unwrap();
                pre_compact(&t, &s.project())
            },
            memory: Expect::Project,
            says: "not valid JSON",
            max_secs: 5,
            max_rss_mib: 60,
        },
        Row {
            name: "a 50 MB prompt",
            setup: |s| {
                let t = transcript_at(s, "big-prompt.jsonl");
                let prompt =
                    "fix this log: ".to_string() + &"line of a pasted log\n".repeat(2_500_000);
                let line = json!({"type":"user","sessionId":SID,"cwd":"/p","timestamp":"2026-11-20T14:00:00Z","message":{"role":"user","content":prompt}});
                fs::write(&t, format!("{line}\n")).unwrap();
                pre_compact(&t, &s.project())
            },
            memory: Expect::Project,
            says: "saved",
            max_secs: 10,
            max_rss_mib: 400,
        },
        Row {
            name: "hostile session id",
            setup: |s| {
                let t = sample(s);
                json!({"session_id": "../../etc/\u{0}pass\u{1b}[31mwd", "transcript_path": t, "cwd": s.project(), "hook_event_name": "PreCompact", "trigger": "auto"})
                    .to_string()
                    .into_bytes()
            },
            memory: Expect::Project,
            says: "saved",
            max_secs: 5,
            max_rss_mib: 30,
        },
        Row {
            name: "relative cwd",
            setup: |s| pre_compact(&sample(s), Path::new(".")),
            memory: Expect::Project,
            says: "saved",
            max_secs: 5,
            max_rss_mib: 30,
        },
        Row {
            name: "cwd that does not exist",
            setup: |s| pre_compact(&sample(s), &s.root.path().join("deleted-project")),
            memory: Expect::Fallback,
            says: "does not exist",
            max_secs: 5,
            max_rss_mib: 30,
        },
        Row {
            name: ".claude/memories is a link",
            setup: |s| {
                let elsewhere = s.root.path().join("elsewhere");
                fs::create_dir_all(&elsewhere).unwrap();
                fs::create_dir_all(s.project().join(".claude")).unwrap();
                symlink(&elsewhere, s.memories()).unwrap();
                pre_compact(&sample(s), &s.project())
            },
            memory: Expect::Fallback,
            says: "symbolic link",
            max_secs: 5,
            max_rss_mib: 30,
        },
        Row {
            name: ".claude is a link",
            setup: |s| {
                let elsewhere = s.root.path().join("elsewhere");
                fs::create_dir_all(&elsewhere).unwrap();
                symlink(&elsewhere, s.project().join(".claude")).unwrap();
                pre_compact(&sample(s), &s.project())
            },
            memory: Expect::Fallback,
            says: "symbolic link",
            max_secs: 5,
            max_rss_mib: 30,
        },
        Row {
            name: ".log, .locks and INDEX.md are links",
            setup: |s| {
                let elsewhere = s.root.path().join("elsewhere");
                fs::create_dir_all(&elsewhere).unwrap();
                fs::write(elsewhere.join("victim"), "keep me\n").unwrap();
                fs::create_dir_all(s.memories()).unwrap();
                symlink(elsewhere.join("victim"), s.memories().join(".log")).unwrap();
                symlink(&elsewhere, s.memories().join(".locks")).unwrap();
                symlink(elsewhere.join("victim"), s.memories().join("INDEX.md")).unwrap();
                pre_compact(&sample(s), &s.project())
            },
            memory: Expect::Project,
            says: "symbolic link",
            max_secs: 5,
            max_rss_mib: 30,
        },
        Row {
            name: "memories named *.md that are /dev/zero and a FIFO",
            setup: |s| {
                fs::create_dir_all(s.memories()).unwrap();
                symlink("/dev/zero", s.memories().join("20990101_000000_zero.md")).unwrap();
                mkfifo(&s.memories().join("20990101_000001_fifo.md"));
                pre_compact(&sample(s), &s.project())
            },
            memory: Expect::Project,
            says: "saved",
            max_secs: 5,
            max_rss_mib: 30,
        },
        Row {
            name: "escape sequences in the transcript",
            setup: |s| {
                let t = transcript_at(s, "esc.jsonl");
                let lines = [
                    json!({"type":"user","sessionId":SID,"cwd":"/p","timestamp":"2026-11-20T14:00:00Z","message":{"role":"user","content":"make \u{1b}]0;pwned\u{7}the title \u{1b}[2Jred"}}),
                    json!({"type":"assistant","sessionId":SID,"timestamp":"2026-11-20T14:00:01Z","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"w","name":"Write","input":{"file_path":"/p/src/\u{1b}[31mevil.rs","content":"x"}},{"type":"text","text":"done \u{1b}[0m"}]}}),
                ];
                let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
                fs::write(&t, text).unwrap();
                pre_compact(&t, &s.project())
            },
            memory: Expect::Project,
            says: "saved",
            max_secs: 5,
            max_rss_mib: 30,
        },
    ]
}

/// Every memory file (regular `*.md` other than INDEX.md) under `dir`, recursively.
fn memories_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(rd) = fs::read_dir(dir) else {
        return found;
    };
    for e in rd.flatten() {
        let p = e.path();
        let Ok(meta) = fs::symlink_metadata(&p) else {
            continue;
        };
        let name = e.file_name().to_string_lossy().into_owned();
        if meta.is_dir() {
            found.extend(memories_under(&p));
        } else if meta.is_file() && name.ends_with(".md") && name != "INDEX.md" {
            found.push(p);
        }
    }
    found
}

#[test]
fn hostile_inputs_never_break_a_compaction() {
    let mut report = String::from(
        "row                                                 exit  secs   cpu  MiB  memory\n",
    );
    let mut failures = Vec::new();
    for row in rows() {
        let s = sandbox();
        let stdin = (row.setup)(&s);
        let run = measure(&s, &hook_bin(), &[], stdin, None);
        let fallback = s.root.path().join("plugin-data/unsaved");
        let in_project = memories_under(&s.memories());
        let in_fallback = memories_under(&fallback);
        let got = match (in_project.len(), in_fallback.len()) {
            (0, 0) => Expect::None,
            (1, 0) => Expect::Project,
            (0, 1) => Expect::Fallback,
            _ => {
                failures.push(format!(
                    "{}: memories {in_project:?} {in_fallback:?}",
                    row.name
                ));
                Expect::None
            }
        };
        report.push_str(&format!(
            "{:<50} {:>5} {:>5.2} {:>5.2} {:>4}  {got:?}\n",
            row.name,
            run.code.map_or("sig".into(), |c| c.to_string()),
            run.took.as_secs_f64(),
            run.cpu.as_secs_f64(),
            run.rss_mib
        ));
        let mut fail = |what: String| failures.push(format!("{}: {what}\n{run:#?}", row.name));
        if run.code != Some(0) {
            fail("did not exit 0".into());
        }
        let steering =
            run.stdout.starts_with("memory-stalker: ") && run.stdout.lines().count() == 1;
        let stdout_ok = run.stdout.is_empty() || (steering && got != Expect::None);
        if !stdout_ok {
            fail("printed on stdout without steering".into());
        }
        if !run.stderr.contains(row.says) {
            fail(format!("stderr does not say {:?}", row.says));
        }
        // No memory: one line says why. A memory: its path, and what went wrong on the
        // way (a warning, a fallback), at most three lines.
        let lines = run.stderr.lines().count();
        if (row.memory == Expect::None && lines != 1) || lines > 3 {
            fail(format!("{lines} stderr lines"));
        }
        // What the hook costs is its CPU time, which other work on the machine does not
        // change; a hook that waits (on a FIFO, a lock) shows in its wall time, bounded
        // loosely so that a loaded machine (a debug build on 2 busy cores ran the 50 MB
        // prompt in 4.4 s of CPU and 15 s of wall time) does not fail a fast hook.
        if run.cpu > Duration::from_secs(row.max_secs) {
            fail(format!("used over {} s of CPU", row.max_secs));
        }
        if run.took > Duration::from_secs(row.max_secs * WALL_SLACK) {
            fail(format!("took over {} s", row.max_secs * WALL_SLACK));
        }
        if run.rss_mib > row.max_rss_mib {
            fail(format!("used over {} MiB", row.max_rss_mib));
        }
        if got != row.memory {
            fail(format!("memory {got:?}, expected {:?}", row.memory));
        }
        let partial = partial_files(s.root.path());
        if !partial.is_empty() {
            fail(format!("partial files left: {partial:?}"));
        }
        for m in in_project.iter().chain(&in_fallback) {
            let text = fs::read_to_string(m).unwrap();
            if text.contains('\u{1b}') || text.contains('\0') || text.contains('\u{7}') {
                fail(format!("control characters in {}", m.display()));
            }
            if text.len() > 256 * 1024 {
                fail(format!("{} is {} bytes", m.display(), text.len()));
            }
        }
        // What links pointed at is untouched, and nothing was written through them.
        let elsewhere = s.root.path().join("elsewhere");
        if elsewhere.exists() {
            let names = files_in(&elsewhere);
            if names.iter().any(|n| n != "victim") {
                fail(format!("files written through a link: {names:?}"));
            }
            if let Ok(v) = fs::read_to_string(elsewhere.join("victim"))
                && v != "keep me\n"
            {
                fail(format!("a linked file was changed: {v:?}"));
            }
        }
        if row.name == "rollout of 1 GiB, compacted near its end" {
            // The segment after the compaction, read without reading the gigabyte.
            let text = fs::read_to_string(&in_project[0]).unwrap();
            if !text.contains("Now document the retry budget in README.md.")
                || !text.contains("- [ ] **in progress**: Document the budget")
                || !text.contains("agent: \"codex\"")
            {
                fail(format!("the memory is not the last segment's:\n{text}"));
            }
        }
        if row.name == "a 50 MB prompt" {
            // Kept, head and tail around a marker, not dropped and not whole.
            let text = fs::read_to_string(&in_project[0]).unwrap();
            if !text.contains("fix this log: line of a pasted log")
                || !text.contains("characters omitted")
            {
                fail("the long prompt is not kept head and tail".into());
            }
        }
        if row.name == "relative cwd" {
            let text = fs::read_to_string(&in_project[0]).unwrap();
            let project = s.project().to_string_lossy().into_owned();
            if !text.contains(&format!("project: {:?}", project)) {
                fail("the project is not recorded as an absolute path".into());
            }
        }
        // list-memories over what the row left: prompt, bounded, no escapes.
        for args in [
            &["--json"][..],
            &[],
            &["search", "retry"],
            &["index"],
            &["show", "latest"],
        ] {
            let mut a = vec![
                "--project".to_string(),
                s.project().to_string_lossy().into_owned(),
            ];
            a.extend(args.iter().map(|x| x.to_string()));
            let refs: Vec<&str> = a.iter().map(String::as_str).collect();
            let l = measure(&s, &list_bin(), &refs, Vec::new(), None);
            if l.took > Duration::from_secs(2) || l.rss_mib > 40 {
                failures.push(format!(
                    "{}: list-memories {args:?} took {:?}, {} MiB",
                    row.name, l.took, l.rss_mib
                ));
            }
            if l.stdout.contains('\u{1b}') || l.code.is_none() {
                failures.push(format!("{}: list-memories {args:?}: {l:#?}", row.name));
            }
        }
    }
    println!("{report}");
    assert!(failures.is_empty(), "{}\n{report}", failures.join("\n"));
}

/// A row of the fault table: the disk fills, or the file-size limit bites, while a
/// memory is written.
fn assert_memory_survives_a_write_fault(s: &Sandbox, shell: Option<&str>, what: &str) {
    let t = sample(s);
    let run = measure(s, &hook_bin(), &[], pre_compact(&t, &s.project()), shell);
    assert_eq!(run.code, Some(0), "{what}: {run:#?}");
    assert!(
        run.stderr.contains("shortened memory") || run.stderr.contains("instead"),
        "{what}: {run:#?}"
    );
    let all = memories_under(s.root.path());
    assert_eq!(all.len(), 1, "{what}: {all:?}\n{run:#?}");
    let text = fs::read_to_string(&all[0]).unwrap();
    assert!(text.contains("Add tests for retries"), "{what}: {text}");
    assert!(
        partial_files(s.root.path()).is_empty(),
        "{what}: partial file left"
    );
}

#[test]
fn a_file_size_limit_costs_at_most_the_long_form_of_the_memory() {
    let s = sandbox();
    // 4 blocks of 512 bytes: the full memory (about 6 KB) does not fit, a short one
    // (about 1.2 KB, with its MAC) does.
    assert_memory_survives_a_write_fault(&s, Some("ulimit -f 4"), "ulimit -f");
}

#[test]
fn a_full_disk_sends_the_memory_to_the_fallback_directory() {
    let mut s = sandbox();
    let mount = s.root.path().join("small-disk");
    fs::create_dir_all(&mount).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k"])
        .arg("tmpfs")
        .arg(&mount)
        .status()
        .is_ok_and(|st| st.success());
    if !mounted {
        // Without the right to mount, the file-size-limit row injects the write error.
        eprintln!("cannot mount a tmpfs here; the file-size-limit test covers the write error");
        return;
    }
    let project = mount.join("project");
    fs::create_dir_all(&project).unwrap();
    // Fill the disk but for one page.
    let mut filler = fs::File::create(mount.join("filler")).unwrap();
    let _ = filler.write_all(&vec![b'x'; 60 * 1024]);
    drop(filler);
    let t = sample(&s);
    s.set("CLAUDE_PROJECT_DIR", project.to_string_lossy());
    let run = measure(&s, &hook_bin(), &[], pre_compact(&t, &project), None);
    let on_disk = memories_under(&mount);
    let fallback = memories_under(&s.root.path().join("plugin-data/unsaved"));
    let partial = partial_files(&mount);
    let _ = Command::new("umount").arg(&mount).status();
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(run.stderr.contains("No space left"), "{run:#?}");
    assert!(on_disk.is_empty(), "{on_disk:?}");
    assert_eq!(fallback.len(), 1, "{run:#?}");
    assert!(partial.is_empty(), "{partial:?}");
    let text = fs::read_to_string(&fallback[0]).unwrap();
    assert!(text.contains("Add tests for retries"), "{text}");
}

#[test]
fn kill_9_during_saves_leaves_no_torn_memory() {
    let s = sandbox();
    let t = sample(&s);
    let input = pre_compact(&t, &s.project());
    for i in 0..40u64 {
        let mut child = spawn_hook(&s, &input);
        std::thread::sleep(Duration::from_micros(200 * (i % 25)));
        let _ = child.kill();
        let _ = child.wait();
    }
    for m in memories_under(&s.memories()) {
        let text = fs::read_to_string(&m).unwrap();
        assert!(text.starts_with("---\n"), "{}", m.display());
        assert!(
            text.contains("## ") && text.ends_with('\n'),
            "torn memory {}",
            m.display()
        );
    }
    // The next save sweeps what the killed ones left, once it is stale: age them.
    let old = std::time::SystemTime::now() - Duration::from_secs(7200);
    for p in partial_files(s.root.path()) {
        fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    let run = measure(&s, &hook_bin(), &[], input, None);
    assert_eq!(run.code, Some(0));
    assert!(partial_files(&s.memories()).is_empty());
}

#[test]
fn fifty_hooks_at_once_give_fifty_memories() {
    let s = sandbox();
    let t = sample(&s);
    let children: Vec<_> = (0..50)
        .map(|i| {
            let input = json!({"session_id": format!("{i:08}-race"), "transcript_path": t, "cwd": s.project(), "hook_event_name": "PreCompact", "trigger": "auto"}).to_string();
            spawn_hook(&s, input.as_bytes())
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let memories = memories_under(&s.memories());
    assert_eq!(memories.len(), 50);
    // The index holds the newest that fit its budget, each naming a file that exists.
    let index = fs::read_to_string(s.memories().join("INDEX.md")).unwrap();
    let named: Vec<&str> = index
        .lines()
        .filter(|l| l.starts_with("- "))
        .filter_map(|l| l.split(" · ").nth(1))
        .collect();
    assert!(named.len() >= 5, "{index}");
    for file in named {
        assert!(s.memories().join(file).is_file(), "{file} in {index}");
    }
}

#[test]
fn post_compact_racing_prune_loses_no_memory_it_keeps() {
    let s = sandbox();
    let t = sample(&s);
    // Ten memories of ten sessions, then PostCompact for each while prune keeps 5.
    for i in 0..10 {
        let input = json!({"session_id": format!("s{i:07}-x"), "transcript_path": t, "cwd": s.project(), "hook_event_name": "PreCompact", "trigger": "auto"});
        assert_eq!(
            measure(&s, &hook_bin(), &[], input.to_string().into_bytes(), None).code,
            Some(0)
        );
    }
    let project = s.project().to_string_lossy().into_owned();
    let posts: Vec<_> = (0..10)
        .map(|i| {
            let input: Value = json!({"session_id": format!("s{i:07}-x"), "transcript_path": t, "cwd": s.project(), "hook_event_name": "PostCompact", "trigger": "auto", "compact_summary": "<summary>done</summary>"});
            spawn_hook(&s, input.to_string().as_bytes())
        })
        .collect();
    let prune = measure(
        &s,
        &list_bin(),
        &["--project", &project, "prune", "--keep", "5"],
        Vec::new(),
        None,
    );
    for mut c in posts {
        assert!(c.wait().unwrap().success());
    }
    assert_eq!(prune.code, Some(0), "{prune:#?}");
    let left = memories_under(&s.memories());
    // Prune kept the 5 newest; a PostCompact whose memory was pruned may back-fill one.
    assert!(left.len() >= 5, "{left:?}");
    for m in &left {
        let text = fs::read_to_string(m).unwrap();
        assert!(
            text.starts_with("---\n") && text.ends_with('\n'),
            "torn {}",
            m.display()
        );
    }
    assert!(partial_files(s.root.path()).is_empty());
}

/// Starts the hook in the background with `input` on its stdin (then closed).
fn spawn_hook(s: &Sandbox, input: &[u8]) -> std::process::Child {
    let mut child = Command::new(hook_bin())
        .env_clear()
        .envs(s.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    // A hook may be gone before it read everything (it was killed): ignore EPIPE.
    let _ = pipe.write_all(input);
    child
}
