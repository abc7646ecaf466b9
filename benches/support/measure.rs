//! Timing whole processes for the benchmarks: wall time and peak resident memory of
//! each run, medians and spreads, and the units the tables print them in. Shared by
//! `benches/table.rs` (the hook and the original design) and `benches/scale.rs` (search
//! over many memories).

// Each benchmark uses part of it.
#![allow(dead_code)]

use std::fs::{self, File};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const MB: u64 = 1024 * 1024;

/// One measured run: wall time and the child's peak resident memory.
#[derive(Clone, Copy)]
pub struct Run {
    pub wall: Duration,
    pub max_rss_kb: i64,
}

/// All the runs of one side of a row.
pub struct Stats {
    pub walls: Vec<Duration>,
    pub peak_rss_kb: i64,
}

impl Stats {
    pub fn new(runs: &[Run]) -> Stats {
        let mut walls: Vec<Duration> = runs.iter().map(|r| r.wall).collect();
        walls.sort();
        Stats {
            walls,
            peak_rss_kb: runs.iter().map(|r| r.max_rss_kb).max().unwrap_or(0),
        }
    }
    pub fn median(&self) -> Duration {
        self.walls[self.walls.len() / 2]
    }
}

/// One side of a row: the command to run again and again and, for the hook, the
/// transcript (each run gets a fresh project directory, checked for a memory after).
pub struct Side {
    pub cmd: Command,
    pub transcript: Option<PathBuf>,
    /// Stdin of a command that is not the PreCompact hook.
    pub stdin: Vec<u8>,
}

impl Side {
    pub fn hook(cmd: Command, transcript: PathBuf) -> Side {
        Side {
            cmd,
            transcript: Some(transcript),
            stdin: Vec::new(),
        }
    }

    pub fn command(cmd: Command) -> Side {
        Side {
            cmd,
            transcript: None,
            stdin: Vec::new(),
        }
    }
}

/// Runs one process to its end: its wall time and peak RSS, or why it failed (exit
/// status, the end of its stderr, or a hook that wrote no memory).
///
/// The process is started and timed by a small spawner (this program again, see
/// [`spawner`]): a child's peak RSS counts the memory of the process it was started
/// from (Linux carries the parent's high-water mark across `exec`), and this process
/// holds megabytes of generated text.
pub fn measure(side: &Side) -> Result<Run, String> {
    // Every figure is taken with the transcript in the page cache. This machine drops
    // idle file pages within seconds, so what it dropped since the last run is read
    // back first, untimed, for both sides alike.
    if let Some(transcript) = &side.transcript {
        warm_page_cache(transcript);
    }
    let project = side
        .transcript
        .as_ref()
        .map(|_| tempfile::tempdir().unwrap());
    let stdin = match (&side.transcript, &project) {
        (Some(transcript), Some(project)) => hook_input(transcript, project.path()),
        _ => side.stdin.clone(),
    };
    let cmd = &side.cmd;
    let mut stderr = tempfile::tempfile().unwrap();
    let mut spawner = Command::new(std::env::current_exe().unwrap());
    spawner
        .arg(SPAWNER)
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .env_clear();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            spawner.env(k, v);
        }
    }
    let mut child = spawner
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr.try_clone().unwrap())
        .spawn()
        .unwrap();
    // Written and closed: the hooks read stdin to its end.
    child.stdin.take().unwrap().write_all(&stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the spawner failed");
    let report = String::from_utf8(out.stdout).unwrap();
    let n: Vec<i64> = report
        .split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect();
    let (status, wall, max_rss_kb) = (n[0], Duration::from_nanos(n[1] as u64), n[2]);
    if status != 0 {
        let mut text = String::new();
        stderr.rewind().unwrap();
        stderr.read_to_string(&mut text).unwrap_or_default();
        let chars: Vec<char> = text.trim().chars().collect();
        let tail: String = chars[chars.len().saturating_sub(300)..].iter().collect();
        return Err(format!("exit status {status}: {tail}"));
    }
    if let Some(project) = project
        && !has_memory(project.path())
    {
        return Err("no memory file written".into());
    }
    Ok(Run { wall, max_rss_kb })
}

/// The first argument that makes this program the spawner.
pub const SPAWNER: &str = "--spawn-and-measure";

/// The spawner: runs `program args…` (stdin and stderr passed on, stdout discarded) and
/// prints its exit status, wall time (ns) and peak RSS (kB). Its own memory is small
/// (about 2.3 MB, the floor of what it can report: `/bin/true` shows that much), so the
/// child's peak RSS is the child's.
// The child is reaped by `wait4` (for its resource usage), which clippy cannot see.
#[allow(clippy::zombie_processes)]
pub fn spawner(program_and_args: &[String]) {
    let started = Instant::now();
    let child = Command::new(&program_and_args[0])
        .args(&program_and_args[1..])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let (status, max_rss_kb) = wait_with_rusage(child.id());
    let wall = started.elapsed();
    println!("{status} {} {max_rss_kb}", wall.as_nanos());
}

/// Waits for a child and returns its exit status (or 128 + signal) and peak RSS (kB).
pub fn wait_with_rusage(pid: u32) -> (i32, i64) {
    let mut status = 0;
    // SAFETY: `rusage` is plain data, zero is a valid value; wait4 fills it in for the
    // child we spawned and have not waited for yet.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(r, pid as libc::pid_t, "wait4 failed");
    let code = if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        libc::WEXITSTATUS(status)
    };
    (code, usage.ru_maxrss)
}

/// Whether `<project>/.claude/memories/` holds a memory (`YYYYMMDD_HHMMSS_*.md`).
pub fn has_memory(project: &Path) -> bool {
    fs::read_dir(project.join(".claude/memories")).is_ok_and(|rd| {
        rd.flatten().any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.ends_with(".md") && name.starts_with(|c: char| c.is_ascii_digit())
        })
    })
}

pub fn hook_input(transcript: &Path, project: &Path) -> Vec<u8> {
    serde_json::json!({
        "session_id": "5e55b0a7-bench-4c1d-9a2e-000000000011",
        "transcript_path": transcript,
        "cwd": project,
        "hook_event_name": "PreCompact",
        "trigger": "auto",
        "custom_instructions": null,
    })
    .to_string()
    .into_bytes()
}

/// Reads a file once, so that every run finds it in the page cache.
pub fn warm_page_cache(path: &Path) {
    let mut f = File::open(path).unwrap();
    let mut buf = vec![0u8; 1 << 20];
    while f.read(&mut buf).unwrap() > 0 {}
}

/// `median (min–max)`, all in the median's unit.
pub fn spread(s: &Stats) -> String {
    let unit = Unit::of(s.median());
    format!(
        "{} ({}–{})",
        unit.show(s.median(), true),
        unit.show(s.walls[0], false),
        unit.show(s.walls[s.walls.len() - 1], false)
    )
}

#[derive(Clone, Copy)]
pub enum Unit {
    FineMs,
    Ms,
    S,
}

impl Unit {
    pub fn of(d: Duration) -> Unit {
        match d.as_secs_f64() {
            x if x < 0.1 => Unit::FineMs,
            x if x < 10.0 => Unit::Ms,
            _ => Unit::S,
        }
    }
    pub fn show(self, d: Duration, with_unit: bool) -> String {
        let ms = d.as_secs_f64() * 1000.0;
        let (n, u) = match self {
            Unit::FineMs => (format!("{ms:.1}"), "ms"),
            Unit::Ms => (thousands(ms.round() as u64), "ms"),
            Unit::S => (format!("{:.1}", ms / 1000.0), "s"),
        };
        if with_unit { format!("{n} {u}") } else { n }
    }
}

pub fn ms(d: Duration) -> String {
    Unit::of(d).show(d, true)
}

pub fn rss(kb: i64) -> String {
    format!("{:.1} MB", kb as f64 / 1024.0)
}

pub fn times(ratio: f64) -> String {
    if ratio >= 10.0 {
        format!("{}×", thousands(ratio.round() as u64))
    } else {
        format!("{ratio:.1}×")
    }
}

pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `100 MB`, `1 GB` (sizes the generator aims at).
pub fn size(bytes: u64) -> String {
    if bytes >= 1024 * MB && bytes.is_multiple_of(1024 * MB) {
        format!("{} GB", bytes / (1024 * MB))
    } else {
        format!("{} MB", bytes / MB)
    }
}

/// `4.2 MB`, `812 KB` (sizes measured).
pub fn size_exact(bytes: u64) -> String {
    if bytes >= MB {
        format!("{:.1} MB", bytes as f64 / MB as f64)
    } else {
        format!("{} KB", bytes.div_ceil(1024))
    }
}
