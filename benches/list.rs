//! Benchmark of `list-memories` over 10,000 memories (SPEC §8: listing ≤ 200 ms,
//! `find latest` ≤ 20 ms), with the real binary.
//!
//! `cargo bench -p list-memories --bench list` generates the memories once into
//! `target/bench-data/memories-10k/` and prints median / min / max over 15 runs.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_list-memories");
const MEMORIES: usize = 10_000;
const RUNS: usize = 15;

fn main() {
    let project =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-data/memories-10k");
    generate(&project);
    let p = project.to_str().unwrap();
    println!("\nlist-memories over {MEMORIES} memories, {RUNS} runs each (median / min / max)");
    println!("{:-<90}", "");
    for (label, args) in [
        ("list (table, all 10,000)", vec!["--project", p]),
        ("list --json (all 10,000)", vec!["--project", p, "--json"]),
        ("list --limit 20", vec!["--project", p, "--limit", "20"]),
        (
            "find latest --json",
            vec!["--project", p, "find", "latest", "--json"],
        ),
        (
            "find <session prefix> --json",
            vec!["--project", p, "find", "5e55", "--json"],
        ),
        (
            "find <date> --json",
            vec!["--project", p, "find", "2026-03-05", "--json"],
        ),
        (
            "search retry budget --json (full text of every memory)",
            vec!["--project", p, "search", "retry", "budget", "--json"],
        ),
    ] {
        let mut walls: Vec<Duration> = (0..RUNS).map(|_| time(&args)).collect();
        walls.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "{label:<58} {:>8.1} ms  min {:.1}  max {:.1}",
            ms(walls[RUNS / 2]),
            ms(walls[0]),
            ms(walls[RUNS - 1])
        );
    }
}

fn time(args: &[&str]) -> Duration {
    let started = Instant::now();
    let status = Command::new(BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let took = started.elapsed();
    assert!(
        status.code().is_some_and(|c| c <= 1),
        "list-memories failed"
    );
    took
}

/// 10,000 memories of about 4 KB, one every 15 minutes from 2026-01-01.
fn generate(project: &Path) {
    let dir = project.join(".claude/memories");
    if fs::read_dir(&dir).map(|rd| rd.count()).unwrap_or(0) >= MEMORIES {
        return;
    }
    eprintln!("generating {MEMORIES} memories in {} ...", dir.display());
    fs::create_dir_all(&dir).unwrap();
    let start = chrono::NaiveDate::from_ymd_opt(2026, 1, 1)
        .unwrap()
        .and_hms_opt(0, 0, 0)
        .unwrap();
    let body =
        "## Last complete interaction\n\n```text\nPlease continue with the uploader work.\n```\n\n"
            .to_string()
            + &"Assistant reply line about retries and the budget.\n".repeat(60);
    for i in 0..MEMORIES {
        let t = start + chrono::Duration::minutes(15 * i as i64);
        let sid = format!(
            "{:04x}{:04x}-1111-4222-8333-444455556666",
            i % 0xffff,
            (i * 7) % 0xffff
        );
        let name = format!("{}_{}.md", t.format("%Y%m%d_%H%M%S"), &sid[..8]);
        let text = format!(
            "---\nmemory_stalker: 1\nsession_id: \"{sid}\"\ncreated: \"{}\"\ntrigger: \"auto\"\nproject: \"/p\"\ntranscript: \"/t.jsonl\"\ntask_count: 5\ntasks_open: 2\nsummary: \"Memory {i}: retry budget work\"\nsummary_source: \"offline\"\nlang: \"en\"\n---\n\n{body}",
            t.format("%Y-%m-%dT%H:%M:%S+00:00")
        );
        fs::write(dir.join(name), text).unwrap();
    }
}
