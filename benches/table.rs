//! The comparison table of issue 11: our binaries against a faithful Python
//! implementation of the original design (`benches/original/`, written from section 4
//! of the design document), on the same inputs, in one run.
//!
//! `scripts/bench` builds everything and runs it (`cargo bench -p save-memory --bench
//! table`). Each row runs the WHOLE PROCESS, ours and the original interleaved run by
//! run (ours, original, ours, original, …), `MEMORY_STALKER_BENCH_RUNS` times each
//! (default 9), and reports the median, min and max wall time and the peak RSS of the
//! child (`wait4`). The transcript is read into the page cache before each row, as it is
//! right after Claude Code wrote it. No model is contacted, except the fake one of the
//! last row (a local server answering after 5 s).
//!
//! Rows: the PreCompact hook on a 100 MB transcript that was never compacted (a task
//! list in it), on a 100 MB Codex CLI rollout likewise (`table/rollout.rs`), on 100 MB and
//! 1 GB transcripts compacted every 5 MB, and on 100 MB with no task tool anywhere; `list-memories` list / `find latest` / `search` over 10,000
//! memories; and the hook with a model that answers after 5 s.
//!
//! The inputs are generated once into `target/bench-data/` (the generator's version is
//! in the names; a newer generator writes new files). The transcripts have the record
//! shapes of real Claude Code 2.1 transcripts (`../shared/corpus/`): one assistant record
//! per content block sharing `message.id`; tool results in user records with a
//! `toolUseResult` duplicating the output; Read/Bash/Edit outputs of tens of KB of
//! JSON-escaped code and logs; a few lines of 2–8 MB; `progress`, `system` and
//! `file-history-snapshot` records; TodoWrite calls; compact boundaries with their
//! summary. `MEMORY_STALKER_BENCH_QUICK=1` divides every size by 10 (a quick check).
//!
//! The original is run with `python3`; without it, its columns show "—".
//!
//! The pieces, each on its own: the rows (`table/cases.rs`, one method a case), the
//! Claude Code transcripts (`table/transcript.rs`, with their tool calls in
//! `table/tools.rs` and their texts in `table/text.rs`), the Codex rollout
//! (`table/rollout.rs`) and the memories (`table/memories.rs`); this file runs the rows
//! and prints the table.

#[path = "table/cases.rs"]
mod cases;
#[path = "../tests/support/http.rs"]
#[allow(dead_code, reason = "the bench uses part of it")]
mod http;
#[path = "support/measure.rs"]
mod measure;
#[path = "table/memories.rs"]
mod memories;
#[path = "table/rollout.rs"]
mod rollout;
#[path = "table/text.rs"]
mod text;
#[path = "table/tools.rs"]
mod tools;
#[path = "table/transcript.rs"]
mod transcript;

use std::fmt::Write as _;

use measure::*;
use memories::generate_memories;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use transcript::{Spec, Transcript};

const SAVE_MEMORY: &str = env!("CARGO_BIN_EXE_save-memory");
/// Bump when the generated data changes: the files are named after it.
const GENERATOR: &str = "table-v1";
/// An original run longer than this: only [`SLOW_RUNS`] runs of it.
const SLOW_RUN: Duration = Duration::from_secs(60);
const SLOW_RUNS: usize = 3;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some(SPAWNER) {
        spawner(&args[2..]);
        return;
    }
    let bench = Bench::new();
    let quick = std::env::var("MEMORY_STALKER_BENCH_QUICK").is_ok_and(|v| v == "1");
    let scale = if quick { 10 } else { 1 };
    let memories = 10_000 / scale as usize;

    let specs = [
        Spec {
            name: "segment",
            bytes: 100 * MB / scale,
            compact_every: None,
            todos: true,
        },
        Spec {
            name: "compacted",
            bytes: 100 * MB / scale,
            compact_every: Some(5 * MB),
            todos: true,
        },
        Spec {
            name: "compacted",
            bytes: 1024 * MB / scale,
            compact_every: Some(5 * MB),
            todos: true,
        },
        Spec {
            name: "notasks",
            bytes: 100 * MB / scale,
            compact_every: None,
            todos: false,
        },
    ];
    let mut transcripts: Vec<Transcript> = specs.iter().map(|s| s.generate(&bench.data)).collect();
    let codex = rollout::generate(&bench.data, 100 * MB / scale);
    let project = generate_memories(&bench.data, memories);
    if std::env::var_os("MEMORY_STALKER_BENCH_INPUTS_ONLY").is_some() {
        // The inputs alone, to time one change against another outside the table.
        for t in transcripts.iter().chain([&codex]) {
            println!("{}", t.path.display());
        }
        println!("{}", project.display());
        return;
    }

    let mut rows = Vec::new();
    for t in &transcripts {
        let case = match (t.spec.compact_every, t.spec.todos) {
            (None, true) => format!(
                "hook: {}, one segment (not compacted yet), task list",
                size(t.spec.bytes)
            ),
            (Some(every), _) => format!(
                "hook: {}, compacted every {}",
                size(t.spec.bytes),
                size(every)
            ),
            (None, false) => format!(
                "hook: {}, no task tool anywhere, first compaction",
                size(t.spec.bytes)
            ),
        };
        rows.push(bench.hook_row(case, t));
        if t.spec.name == "segment" {
            // Beside the Claude Code transcript of the same size and shape.
            let case = format!(
                "hook: {} Codex rollout, one segment (not compacted yet), plan",
                size(codex.spec.bytes)
            );
            rows.push(bench.codex_hook_row(case, &codex));
        }
    }
    transcripts.insert(1, codex);
    rows.extend(bench.list_rows(&project, memories));
    rows.push(bench.recall_row(&project, memories));
    rows.push(bench.mcp_search_row(&project, memories));
    rows.push(bench.model_row());

    print_table(&bench, &rows, &transcripts, memories);
}

// ---------------------------------------------------------------------------------------
// Running and measuring
// ---------------------------------------------------------------------------------------

struct Bench {
    runs: usize,
    /// `python3`, or why the original cannot run.
    python: Result<PathBuf, String>,
    python_version: String,
    original: PathBuf,
    list_memories: PathBuf,
    data: PathBuf,
    root: PathBuf,
    /// `HOME` of every child.
    home: tempfile::TempDir,
}

struct Row {
    case: String,
    ours: Stats,
    /// The original's runs, or why there are none (shown as "—").
    original: Result<Stats, String>,
    /// The transcript, for the throughput table.
    transcript: Option<PathBuf>,
}

impl Bench {
    fn new() -> Bench {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let root = root.canonicalize().unwrap();
        let data = root.join("target/bench-data");
        fs::create_dir_all(&data).unwrap();
        let list_memories = Path::new(SAVE_MEMORY).with_file_name("list-memories");
        if !list_memories.is_file() {
            eprintln!(
                "error: {} is missing: build it first with `cargo build --release --workspace` (scripts/bench does)",
                list_memories.display()
            );
            std::process::exit(1);
        }
        let runs = std::env::var("MEMORY_STALKER_BENCH_RUNS")
            .ok()
            .map(|v| v.parse().expect("MEMORY_STALKER_BENCH_RUNS: a number"))
            .unwrap_or(9);
        assert!(runs > 0, "MEMORY_STALKER_BENCH_RUNS must be at least 1");
        let (python, python_version) = match find_python() {
            Ok((path, version)) => (Ok(path), version),
            Err(e) => (Err(e), String::new()),
        };
        Bench {
            runs,
            python,
            python_version,
            original: root.join("benches/original"),
            list_memories,
            data,
            root,
            home: tempfile::tempdir().unwrap(),
        }
    }

    /// Ours: the environment hook.rs gives the hook (no model, no steering).
    fn ours(&self, program: &Path) -> Command {
        let mut c = Command::new(program);
        c.env_clear()
            .env("HOME", self.home.path())
            .env("LANG", "C.UTF-8")
            .env("NO_COLOR", "1")
            .env("CLAUDE_PLUGIN_DATA", self.home.path())
            .env("MEMORY_STALKER_STEER", "0")
            .env("MEMORY_STALKER_SUMMARIZER", "offline");
        c
    }

    /// The original: `python3 benches/original/<script>`; no model unless the row sets
    /// one. Its bytecode is cached under target/, not in the source tree.
    fn original(&self, script: &str) -> Option<Command> {
        let python = self.python.as_ref().ok()?;
        let mut c = Command::new(python);
        c.arg(self.original.join(script))
            .env_clear()
            .env("HOME", self.home.path())
            .env("LANG", "C.UTF-8")
            .env("PYTHONPYCACHEPREFIX", self.data.join("pycache"));
        Some(c)
    }

    /// Runs ours and the original interleaved, `self.runs` times each (fewer for an
    /// original slower than [`SLOW_RUN`]).
    fn compare(&self, case: String, ours: &Side, original: Option<&Side>) -> Row {
        let mut ours_runs = Vec::new();
        let mut original_runs = Vec::new();
        let mut original_failed = None;
        let mut original_limit = self.runs;
        for i in 0..self.runs {
            let run = measure(ours).unwrap_or_else(|e| panic!("{case}: ours failed: {e}"));
            ours_runs.push(run);
            let mut line = format!("  [{}/{}] ours {}", i + 1, self.runs, ms(run.wall));
            if let Some(original) = original
                && original_failed.is_none()
                && i < original_limit
            {
                match measure(original) {
                    Ok(run) => {
                        if run.wall > SLOW_RUN {
                            original_limit = SLOW_RUNS.min(self.runs);
                        }
                        original_runs.push(run);
                        write!(line, " · original {}", ms(run.wall)).unwrap();
                    }
                    Err(e) => {
                        write!(line, " · original FAILED: {e}").unwrap();
                        original_failed = Some(e);
                    }
                }
            }
            eprintln!("{line}");
        }
        let original = match (original, original_failed) {
            (None, _) => Err(self.python.clone().err().unwrap_or_default()),
            (Some(_), Some(e)) => Err(format!("failed: {e}")),
            (Some(_), None) => Ok(Stats::new(&original_runs)),
        };
        Row {
            case,
            ours: Stats::new(&ours_runs),
            original,
            transcript: None,
        }
    }
}

/// The interpreter `python3` on PATH runs (not a wrapper such as a pyenv shim, whose
/// own start-up would be counted) and its version.
fn find_python() -> Result<(PathBuf, String), String> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys; print(sys.executable); print(sys.version.split()[0])",
        ])
        .output()
        .map_err(|e| format!("python3 cannot be run: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    match (out.status.success(), lines.next(), lines.next()) {
        (true, Some(path), Some(version)) if !path.is_empty() => {
            Ok((PathBuf::from(path), format!("Python {version}, {path}")))
        }
        _ => Err("python3 did not run".into()),
    }
}

// ---------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------

fn print_table(bench: &Bench, rows: &[Row], transcripts: &[Transcript], memories: usize) {
    let runs = bench.runs;
    println!(
        "\n## memory-stalker vs. the original design (Python), whole process, {runs} runs each\n"
    );
    println!(
        "| case | ours median (min–max) | ours peak RSS | original median (min–max) | original peak RSS | ratio (original ÷ ours) |"
    );
    println!("|---|---|---|---|---|---|");
    let mut notes = Vec::new();
    for row in rows {
        let (original, original_rss, ratio) = match &row.original {
            Ok(s) => {
                let mut cell = spread(s);
                if s.walls.len() < runs {
                    write!(cell, " [{} runs]", s.walls.len()).unwrap();
                    notes.push(format!(
                        "{}: the original took over {} s a run, so it ran {} times, not {runs}.",
                        row.case,
                        SLOW_RUN.as_secs(),
                        s.walls.len()
                    ));
                }
                let ratio = s.median().as_secs_f64() / row.ours.median().as_secs_f64();
                (cell, rss(s.peak_rss_kb), times(ratio))
            }
            Err(why) => {
                if bench.python.is_ok() {
                    notes.push(format!("{}: no original figure: {why}.", row.case));
                }
                ("—".to_string(), "—".to_string(), "—".to_string())
            }
        };
        println!(
            "| {} | {} | {} | {original} | {original_rss} | {ratio} |",
            row.case,
            spread(&row.ours),
            rss(row.ours.peak_rss_kb)
        );
    }

    println!(
        "\n| transcript | size | records | longest line | compactions | last segment | ours: file ÷ median | ours: last segment ÷ median |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for t in transcripts {
        let ours = rows
            .iter()
            .find(|r| r.transcript.as_deref() == Some(t.path.as_path()))
            .map(|r| r.ours.median())
            .unwrap();
        println!(
            "| `{}` | {} bytes | {} | {} | {} | {} | {:.0} MB/s | {:.0} MB/s |",
            t.path.file_name().unwrap().to_string_lossy(),
            thousands(t.bytes),
            thousands(t.records),
            size_exact(t.longest_line),
            thousands(t.compactions),
            size_exact(t.last_segment),
            t.bytes as f64 / MB as f64 / ours.as_secs_f64(),
            t.last_segment as f64 / MB as f64 / ours.as_secs_f64()
        );
    }

    println!();
    for note in notes {
        println!("- {note}");
    }
    println!(
        "- Medians of {runs} runs (`MEMORY_STALKER_BENCH_RUNS`), ours and the original interleaved; peak RSS is the largest of the runs. MB = 2^20 bytes."
    );
    if let Err(why) = &bench.python {
        println!("- No original figures (—): {why}.");
    }
    println!(
        "- The original: `benches/original/*.py` ({}), a reimplementation of the design's section 4 (every record `json.loads`ed). Without an API key it writes its memory with no summary; ours writes its offline summary.",
        if bench.python_version.is_empty() {
            "python3 not found"
        } else {
            bench.python_version.as_str()
        }
    );
    println!(
        "- `list-memories` rows: {} memories as the hook writes them (signed, §4.10), in `{}`; the original lists and finds with its `list_memories.py`.",
        thousands(memories as u64),
        bench
            .data
            .join(format!("{GENERATOR}-memories-signed-{memories}"))
            .display()
    );
    println!(
        "- Model row: the sample session (tests/fixtures) and a local server answering after 5 s; the original waits for it (the design calls the model in the hook)."
    );
    println!(
        "- Machine: {} CPUs; other work may run at the same time, so the spread (min–max) matters.",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
}
