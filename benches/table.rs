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
//! list in it), on a 100 MB Codex CLI rollout likewise (`rollout.rs`), on 100 MB and
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

#[path = "../tests/support/http.rs"]
#[allow(dead_code, reason = "the bench uses part of it")]
mod http;
#[path = "support/measure.rs"]
mod measure;
mod rollout;

use std::fmt::Write as _;

use measure::*;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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

    fn hook_row(&self, case: String, t: &Transcript) -> Row {
        eprintln!("\n{case}");
        warm_page_cache(&t.path);
        let ours = Side::hook(self.ours(Path::new(SAVE_MEMORY)), t.path.clone());
        let original = self
            .original("save_memory.py")
            .map(|cmd| Side::hook(cmd, t.path.clone()));
        let mut row = self.compare(case, &ours, original.as_ref());
        row.transcript = Some(t.path.clone());
        row
    }

    /// The hook on a Codex rollout (the design has no Codex: no original figure).
    fn codex_hook_row(&self, case: String, t: &Transcript) -> Row {
        eprintln!("\n{case}");
        warm_page_cache(&t.path);
        let ours = Side::hook(self.ours(Path::new(SAVE_MEMORY)), t.path.clone());
        let mut row = self.compare(case, &ours, None);
        if self.python.is_ok() {
            row.original = Err("the design has no Codex CLI".into());
        }
        row.transcript = Some(t.path.clone());
        row
    }

    fn list_rows(&self, project: &Path, memories: usize) -> Vec<Row> {
        let p = project.to_str().unwrap();
        let n = thousands(memories as u64);
        // The case, its arguments, and whether the design has it (same arguments).
        let cases = [
            (
                format!("list-memories: list all {n} (table)"),
                vec!["--project", p],
                true,
            ),
            (
                format!("list-memories: find latest --json ({n})"),
                vec!["--project", p, "find", "latest", "--json"],
                true,
            ),
            (
                format!("list-memories: search retry budget ({n}, full text)"),
                vec!["--project", p, "search", "retry", "budget"],
                false,
            ),
        ];
        cases
            .into_iter()
            .map(|(case, args, in_design)| {
                eprintln!("\n{case}");
                let mut cmd = self.ours(&self.list_memories);
                cmd.args(&args);
                let ours = Side::command(cmd);
                let original = in_design
                    .then(|| self.original("list_memories.py"))
                    .flatten()
                    .map(|mut cmd| {
                        cmd.args(&args);
                        Side::command(cmd)
                    });
                let mut row = self.compare(case, &ours, original.as_ref());
                if !in_design && self.python.is_ok() {
                    row.original = Err("the design has no full-text search".into());
                }
                row
            })
            .collect()
    }

    /// SessionStart(startup) in a project of `memories` memories: the recall of the
    /// latest one (the design has none).
    fn recall_row(&self, project: &Path, memories: usize) -> Row {
        let case = format!(
            "hook: recall at session start ({} memories)",
            thousands(memories as u64)
        );
        eprintln!("\n{case}");
        let stdin = serde_json::json!({
            "session_id": "5e55b0a7-bench-4c1d-9a2e-000000000012",
            "cwd": project,
            "hook_event_name": "SessionStart",
            "source": "startup",
        })
        .to_string()
        .into_bytes();
        // The generated memories are months old and the newest may have no open task:
        // every memory counts as recent, so each run has a recall to write.
        let recalling = || {
            let mut cmd = self.ours(Path::new(SAVE_MEMORY));
            cmd.env("MEMORY_STALKER_RECALL_DAYS", "3650");
            cmd
        };
        // Once, to check that it recalls something: a row timing a hook that says
        // nothing would measure the wrong thing.
        let out = recalling()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .and_then(|mut child| {
                child.stdin.take().unwrap().write_all(&stdin)?;
                child.wait_with_output()
            })
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            said.contains("additionalContext"),
            "{case}: the hook recalled nothing: {said}"
        );
        let mut ours = Side::command(recalling());
        ours.stdin = stdin;
        let mut row = self.compare(case, &ours, None);
        if self.python.is_ok() {
            row.original = Err("the design has no recall at session start".into());
        }
        row
    }

    /// `search_memories` answered by the MCP server over `memories` memories: the time
    /// from writing the request to reading the answer, the server already started and
    /// warmed by one call, as a session uses it. Peak RSS is the server's.
    fn mcp_search_row(&self, project: &Path, memories: usize) -> Row {
        use std::io::BufRead;
        let case = format!(
            "MCP: search_memories retry budget, inside the server ({} memories, warm)",
            thousands(memories as u64)
        );
        eprintln!("\n{case}");
        let server = Path::new(SAVE_MEMORY).with_file_name("memory-stalker-mcp");
        let mut child = self
            .ours(&server)
            .arg("--project")
            .arg(project)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", server.display()));
        let mut to = child.stdin.take().unwrap();
        let mut from = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut call = |id: usize, method: &str, params: serde_json::Value| {
            let mut line =
                serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
                    .to_string();
            line.push('\n');
            let started = Instant::now();
            to.write_all(line.as_bytes()).unwrap();
            to.flush().unwrap();
            let mut answer = String::new();
            from.read_line(&mut answer).unwrap();
            let wall = started.elapsed();
            let v: serde_json::Value = serde_json::from_str(&answer)
                .unwrap_or_else(|e| panic!("{case}: not JSON-RPC ({e}): {answer}"));
            assert!(
                v.get("result").is_some() && v["result"]["isError"] != true,
                "{case}: {answer}"
            );
            if id == 0 {
                to.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
                    .unwrap();
            }
            (wall, v)
        };
        call(
            0,
            "initialize",
            serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"}}),
        );
        let search =
            serde_json::json!({"name": "search_memories", "arguments": {"query": "retry budget"}});
        let (_, first) = call(1, "tools/call", search.clone());
        let text = first["result"]["content"][0]["text"].as_str().unwrap_or("");
        assert!(text.contains("memories match"), "{case}: {text}");
        let mut runs = Vec::new();
        for i in 0..self.runs {
            let (wall, _) = call(2 + i, "tools/call", search.clone());
            eprintln!("  [{}/{}] ours {}", i + 1, self.runs, ms(wall));
            runs.push(wall);
        }
        let peak_rss_kb = fs::read_to_string(format!("/proc/{}/status", child.id()))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmHWM:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            })
            .unwrap_or(0);
        drop(to);
        let _ = child.wait();
        let runs: Vec<Run> = runs
            .into_iter()
            .map(|wall| Run {
                wall,
                max_rss_kb: peak_rss_kb,
            })
            .collect();
        Row {
            case,
            ours: Stats::new(&runs),
            original: Err("the design has no MCP server".into()),
            transcript: None,
        }
    }

    /// The hook on the small sample session with a model that answers after 5 s: ours
    /// hands the model call to a detached worker (the default); the original waits for
    /// the answer, as the design does.
    fn model_row(&self) -> Row {
        let case = "hook: model answering after 5 s (ours: async, the default)".to_string();
        eprintln!("\n{case}");
        let server = http::FakeServer::start(|_, _| {
            http::Reply::json(200, http::anthropic_message(http::MODEL_SUMMARY))
                .after(Duration::from_secs(5))
        });
        let sample = self.root.join("tests/fixtures/sample-session.jsonl");
        let mut ours = self.ours(Path::new(SAVE_MEMORY));
        ours.env("ANTHROPIC_BASE_URL", &server.url)
            .env("ANTHROPIC_API_KEY", "bench-key")
            .env("MEMORY_STALKER_SUMMARIZER", "anthropic");
        let ours = Side::hook(ours, sample.clone());
        let original = self.original("save_memory.py").map(|mut cmd| {
            cmd.env("ANTHROPIC_BASE_URL", &server.url)
                .env("ANTHROPIC_API_KEY", "bench-key");
            Side::hook(cmd, sample)
        });
        let row = self.compare(case, &ours, original.as_ref());
        // Let our last detached workers get their answer before the server goes.
        std::thread::sleep(Duration::from_secs(6));
        row
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
        "- `list-memories` rows: {} memories as the hook writes them, in `{}`; the original lists and finds with its `list_memories.py`.",
        thousands(memories as u64),
        bench
            .data
            .join(format!("{GENERATOR}-memories-{memories}"))
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

// ---------------------------------------------------------------------------------------
// Transcripts
// ---------------------------------------------------------------------------------------

/// What to generate.
#[derive(Clone, Copy)]
struct Spec {
    name: &'static str,
    bytes: u64,
    /// Compact (boundary + summary) whenever the segment reaches this size; the file then
    /// ends where the next compaction is due, which is when PreCompact runs.
    compact_every: Option<u64>,
    /// TodoWrite calls (a task list) or no task tool at all.
    todos: bool,
}

/// A generated transcript and what it holds.
struct Transcript {
    spec: Spec,
    path: PathBuf,
    bytes: u64,
    records: u64,
    longest_line: u64,
    compactions: u64,
    last_segment: u64,
}

impl Spec {
    fn file_name(&self) -> String {
        let size = size(self.bytes).replace(' ', "").to_lowercase();
        match self.compact_every {
            Some(every) => format!(
                "{GENERATOR}-{}-{size}-every{}mb.jsonl",
                self.name,
                every / MB
            ),
            None => format!("{GENERATOR}-{}-{size}.jsonl", self.name),
        }
    }

    /// Writes the transcript unless it is there already (the figures about it are kept
    /// beside it, in `<name>.facts`).
    fn generate(&self, dir: &Path) -> Transcript {
        let path = dir.join(self.file_name());
        let facts_path = path.with_extension("facts");
        if path.is_file()
            && let Some(facts) = fs::read_to_string(&facts_path).ok().and_then(|s| {
                let n: Vec<u64> = s
                    .split_whitespace()
                    .filter_map(|w| w.parse().ok())
                    .collect();
                (n.len() == 5).then_some(n)
            })
        {
            return Transcript {
                spec: *self,
                path,
                bytes: facts[0],
                records: facts[1],
                longest_line: facts[2],
                compactions: facts[3],
                last_segment: facts[4],
            };
        }
        eprintln!("generating {} ...", path.display());
        let started = Instant::now();
        let partial = path.with_extension("partial");
        let seed = self.bytes ^ self.compact_every.unwrap_or(7) ^ u64::from(self.todos);
        let mut w = TranscriptWriter::new(File::create(&partial).unwrap(), seed, self.todos);
        loop {
            w.turn();
            let segment = w.written - w.segment_start;
            if let Some(every) = self.compact_every
                && segment >= every
            {
                if w.written >= self.bytes {
                    break;
                }
                w.compaction();
            } else if self.compact_every.is_none() && w.written >= self.bytes {
                break;
            }
        }
        w.out.flush().unwrap();
        let t = Transcript {
            spec: *self,
            path: path.clone(),
            bytes: w.written,
            records: w.records,
            longest_line: w.longest_line,
            compactions: w.compactions,
            last_segment: w.written - w.segment_start,
        };
        drop(w);
        fs::rename(&partial, &path).unwrap();
        fs::write(
            &facts_path,
            format!(
                "bytes {}\nrecords {}\nlongest_line {}\ncompactions {}\nlast_segment {}\n",
                t.bytes, t.records, t.longest_line, t.compactions, t.last_segment
            ),
        )
        .unwrap();
        eprintln!(
            "  {} bytes, {} records in {:.1} s",
            thousands(t.bytes),
            thousands(t.records),
            started.elapsed().as_secs_f64()
        );
        t
    }
}

/// A fixed-seed PRNG (splitmix64): the same files on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A number in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() % items.len() as u64) as usize]
    }
    fn chars(&mut self, alphabet: &[u8], n: usize) -> String {
        (0..n).map(|_| *self.pick(alphabet) as char).collect()
    }
    fn hex(&mut self, n: usize) -> String {
        self.chars(b"0123456789abcdef", n)
    }
    fn uuid(&mut self) -> String {
        format!(
            "{}-{}-4{}-{}{}-{}",
            self.hex(8),
            self.hex(4),
            self.hex(3),
            self.pick(&['8', '9', 'a', 'b']),
            self.hex(3),
            self.hex(12)
        )
    }
    fn base62(&mut self, n: usize) -> String {
        self.chars(
            b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
            n,
        )
    }
}

/// A JSON string literal.
fn js(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

const SESSION: &str = "5e55b0a7-bench-4c1d-9a2e-000000000011";
const CWD: &str = "/home/dev/shop";
/// A line of 2–8 MB about every this many bytes.
const HUGE_EVERY: u64 = 35 * MB;

/// Writes one transcript, record by record, with the key order of real records.
struct TranscriptWriter {
    out: BufWriter<File>,
    rng: Rng,
    todos: bool,
    written: u64,
    segment_start: u64,
    records: u64,
    longest_line: u64,
    compactions: u64,
    /// The previous record (`parentUuid` of the next).
    parent: Option<String>,
    /// Milliseconds since the epoch of the next record.
    clock: i64,
    /// The current TodoWrite list: (content, active form, status).
    todo_list: Vec<(String, String, &'static str)>,
    next_huge: u64,
    turns: u64,
}

impl TranscriptWriter {
    fn new(file: File, seed: u64, todos: bool) -> Self {
        TranscriptWriter {
            out: BufWriter::with_capacity(1 << 20, file),
            rng: Rng(seed),
            todos,
            written: 0,
            segment_start: 0,
            records: 0,
            longest_line: 0,
            compactions: 0,
            parent: None,
            clock: 1_795_165_200_000, // 2026-11-20T09:00:00Z
            todo_list: Vec::new(),
            next_huge: 3 * MB,
            turns: 0,
        }
    }

    fn emit(&mut self, line: &str) {
        self.out.write_all(line.as_bytes()).unwrap();
        self.out.write_all(b"\n").unwrap();
        let n = line.len() as u64 + 1;
        self.written += n;
        self.records += 1;
        self.longest_line = self.longest_line.max(n);
    }

    fn timestamp(&mut self) -> String {
        self.clock += self.rng.range(30, 4000) as i64;
        chrono::DateTime::from_timestamp_millis(self.clock)
            .unwrap()
            .format("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string()
    }

    /// A record with the common fields: `middle` holds its own fields (the `type` among
    /// them), `tail` what real records put after `uuid`/`timestamp`. Returns its uuid.
    fn record(&mut self, middle: &str, tail: &str) -> String {
        let uuid = self.rng.uuid();
        let parent = self.parent.as_deref().map_or("null".to_string(), js);
        let slug = if self.compactions > 0 {
            r#""slug":"linked-soaring-matsumoto","#
        } else {
            ""
        };
        let ts = self.timestamp();
        let line = format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"userType":"external","cwd":"{CWD}","sessionId":"{SESSION}","version":"2.1.39","gitBranch":"main",{slug}{middle},"uuid":"{uuid}","timestamp":"{ts}"{tail}}}"#
        );
        self.emit(&line);
        self.parent = Some(uuid.clone());
        uuid
    }

    fn prompt(&mut self, text: &str) {
        let middle = format!(
            r#""type":"user","message":{{"role":"user","content":{}}}"#,
            js(text)
        );
        self.record(
            &middle,
            r#","thinkingMetadata":{"maxThinkingTokens":31999},"todos":[],"permissionMode":"bypassPermissions""#,
        );
    }

    /// One assistant record: one content block of message `id`.
    fn assistant(&mut self, id: &str, request: &str, block: &str) -> String {
        let (input, cached) = (self.rng.range(1, 9), self.rng.range(20_000, 160_000));
        let middle = format!(
            r#""message":{{"model":"claude-opus-4-6","id":"{id}","type":"message","role":"assistant","content":[{block}],"stop_reason":null,"stop_sequence":null,"usage":{{"input_tokens":{input},"cache_creation_input_tokens":{},"cache_read_input_tokens":{cached},"cache_creation":{{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0}},"output_tokens":{},"service_tier":"standard","inference_geo":"global"}}}},"requestId":"{request}","type":"assistant""#,
            self.rng.range(100, 9000),
            self.rng.range(1, 900)
        );
        self.record(&middle, "")
    }

    /// The user record carrying a tool's result, with `toolUseResult`.
    fn tool_result(
        &mut self,
        tool_id: &str,
        content: &str,
        is_error: bool,
        result: &str,
        source: &str,
    ) {
        let error = if is_error { r#","is_error":true"# } else { "" };
        let middle = format!(
            r#""type":"user","message":{{"role":"user","content":[{{"tool_use_id":"{tool_id}","type":"tool_result","content":{}{error}}}]}}"#,
            js(content)
        );
        self.record(
            &middle,
            &format!(r#","toolUseResult":{result},"sourceToolAssistantUUID":"{source}""#),
        );
    }

    fn progress(&mut self, tool_id: &str, data: &str) {
        let middle = format!(
            r#""type":"progress","data":{data},"toolUseID":"{tool_id}","parentToolUseID":"{tool_id}""#
        );
        self.record(&middle, "");
    }

    fn file_history_snapshot(&mut self) {
        let id = self.rng.uuid();
        let ts = self.timestamp();
        let mut backups = String::new();
        for i in 0..self.rng.range(0, 4) {
            let file = self.file_path();
            let comma = if i > 0 { "," } else { "" };
            write!(
                backups,
                r#"{comma}{}:{{"backupFileName":"{}@v{}","version":{},"backupTime":"{ts}"}}"#,
                js(&file),
                self.rng.hex(16),
                i + 1,
                i + 1
            )
            .unwrap();
        }
        self.emit(&format!(
            r#"{{"type":"file-history-snapshot","messageId":"{id}","snapshot":{{"messageId":"{id}","trackedFileBackups":{{{backups}}},"timestamp":"{ts}"}},"isSnapshotUpdate":false}}"#
        ));
    }

    /// A turn: a prompt, a few assistant messages with tool calls and their results,
    /// and the final reply.
    fn turn(&mut self) {
        self.turns += 1;
        if self.rng.chance(60) {
            self.file_history_snapshot();
        }
        // Now and then one line of 2–8 MB: a pasted log, or a huge Read or Bash output.
        let huge = if self.written >= self.next_huge {
            self.next_huge += HUGE_EVERY;
            Some((
                self.rng.range(0, 2),
                self.rng.range(2 * MB, 8 * MB) as usize,
            ))
        } else {
            None
        };
        let prompt = match huge {
            Some((0, bytes)) => format!(
                "This is the log of the failing nightly run, can you find why the upload stalls?\n\n{}",
                self.log(bytes)
            ),
            _ => self.prompt_text(),
        };
        self.prompt(&prompt);

        let steps = self.rng.range(2, 10);
        for step in 0..steps {
            let id = format!("msg_01{}", self.rng.base62(22));
            let request = format!("req_011C{}", self.rng.base62(18));
            if self.rng.chance(35) {
                let block = format!(
                    r#"{{"type":"thinking","thinking":{},"signature":"{}"}}"#,
                    js(&self.sentences(THOUGHTS, 2, 6)),
                    self.base62_between(300, 1200)
                );
                self.assistant(&id, &request, &block);
            }
            if self.rng.chance(60) {
                let text = self.sentences(STEP_TEXTS, 1, 2);
                self.assistant(
                    &id,
                    &request,
                    &format!(r#"{{"type":"text","text":{}}}"#, js(&text)),
                );
            }
            let huge_now = if step == 0 {
                huge.filter(|(kind, _)| *kind > 0)
            } else {
                None
            };
            let todo_now = self.todos && step == steps - 1 && self.rng.chance(30);
            let calls = if huge_now.is_some() || todo_now || !self.rng.chance(20) {
                1
            } else {
                2
            };
            let mut pending = Vec::new();
            for _ in 0..calls {
                let tool_id = format!("toolu_01{}", self.rng.base62(22));
                let call = match (huge_now, todo_now) {
                    (Some((1, bytes)), _) => self.read_call(Some(bytes)),
                    (Some((_, bytes)), _) => self.bash_call(Some(bytes)),
                    (None, true) => self.todo_call(),
                    (None, false) => match self.rng.range(0, 19) {
                        0..=6 => self.read_call(None),
                        7..=12 => self.bash_call(None),
                        13..=16 => self.edit_call(),
                        17..=18 => self.grep_call(),
                        _ => self.write_call(),
                    },
                };
                let block = format!(
                    r#"{{"type":"tool_use","id":"{tool_id}","name":"{}","input":{},"caller":{{"type":"direct"}}}}"#,
                    call.name, call.input
                );
                let source = self.assistant(&id, &request, &block);
                pending.push((tool_id, source, call));
            }
            for (tool_id, source, call) in pending {
                let data = format!(
                    r#"{{"type":"hook_progress","hookEvent":"PreToolUse","hookName":"PreToolUse:{}","command":"/home/dev/.claude/hooks/guard.sh"}}"#,
                    call.name
                );
                self.progress(&tool_id, &data);
                if call.name == "Bash" {
                    for _ in 0..self.rng.range(1, 5) {
                        let output = self.bash_output_between(3, 12);
                        let data = format!(
                            r#"{{"type":"bash_progress","output":{},"fullOutput":{},"elapsedTimeSeconds":{},"totalLines":{}}}"#,
                            js(&output),
                            js(&output),
                            self.rng.range(2, 90),
                            self.rng.range(3, 400)
                        );
                        self.progress(&tool_id, &data);
                    }
                } else if call.name == "Edit" || call.name == "Write" {
                    let data = format!(
                        r#"{{"type":"hook_progress","hookEvent":"PostToolUse","hookName":"PostToolUse:{}","command":"${{CLAUDE_PLUGIN_ROOT}}/hooks/format.sh"}}"#,
                        call.name
                    );
                    self.progress(&tool_id, &data);
                }
                self.tool_result(
                    &tool_id,
                    &call.content,
                    call.is_error,
                    &call.result,
                    &source,
                );
            }
        }
        let id = format!("msg_01{}", self.rng.base62(22));
        let request = format!("req_011C{}", self.rng.base62(18));
        let reply = self.final_reply();
        self.assistant(
            &id,
            &request,
            &format!(r#"{{"type":"text","text":{}}}"#, js(&reply)),
        );
        if self.rng.chance(50) {
            self.record(
                r#""type":"system","subtype":"stop_hook_summary","hookCount":1,"hookInfos":[{"command":"${CLAUDE_PLUGIN_ROOT}/hooks/stop.sh"}],"hookErrors":[],"preventedContinuation":false,"stopReason":"","hasOutput":false,"level":"suggestion""#,
                "",
            );
        }
        let middle = format!(
            r#""type":"system","subtype":"turn_duration","durationMs":{}"#,
            self.rng.range(4_000, 900_000)
        );
        self.record(&middle, r#","isMeta":false"#);
    }

    /// A compaction as Claude Code writes it: the boundary (no parent) and the summary.
    fn compaction(&mut self) {
        let uuid = self.rng.uuid();
        let logical = self.parent.clone().unwrap_or_default();
        let ts = self.timestamp();
        self.compactions += 1;
        let line = format!(
            r#"{{"parentUuid":null,"logicalParentUuid":"{logical}","isSidechain":false,"userType":"external","cwd":"{CWD}","sessionId":"{SESSION}","version":"2.1.39","gitBranch":"main","slug":"linked-soaring-matsumoto","type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"timestamp":"{ts}","uuid":"{uuid}","level":"info","compactMetadata":{{"trigger":"auto","preTokens":{}}}}}"#,
            self.rng.range(150_000, 170_000)
        );
        self.emit(&line);
        self.parent = Some(uuid);
        let mut summary = String::from(
            "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nAnalysis:\n",
        );
        summary += &self.sentences(STEP_TEXTS, 8, 16);
        summary += "\n\nSummary:\n1. Primary Request and Intent:\n   ";
        summary += &self.prompt_text();
        summary += "\n\n2. Key Technical Concepts:\n";
        for _ in 0..self.rng.range(4, 9) {
            let file = self.file_path();
            writeln!(
                summary,
                "   - `{file}`: {}",
                self.sentences(STEP_TEXTS, 1, 2)
            )
            .unwrap();
        }
        summary += "\n3. Files and Code Sections:\n";
        summary += &self.code_between(20, 80);
        summary += "\n\n9. Optional Next Step:\n   ";
        summary += &self.sentences(STEP_TEXTS, 1, 3);
        summary += "\n\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: /home/dev/.claude/projects/-home-dev-shop/5e55b0a7-bench-4c1d-9a2e-000000000011.jsonl\nContinue the conversation from where it left off without asking the user any further questions.";
        let middle = format!(
            r#""type":"user","message":{{"role":"user","content":{}}}"#,
            js(&summary)
        );
        self.record(
            &middle,
            r#","isVisibleInTranscriptOnly":true,"isCompactSummary":true"#,
        );
        self.segment_start = self.written;
    }

    // --- tool calls ----------------------------------------------------------------

    fn read_call(&mut self, bytes: Option<usize>) -> ToolCall {
        let file = self.file_path();
        let source = match bytes {
            // The result carries the file twice (content and toolUseResult).
            Some(bytes) => self.code_bytes(bytes / 2),
            None => self.code_skewed((10, 150), (150, 600), (600, 2000)),
        };
        let lines = source.lines().count();
        let numbered: String = source
            .lines()
            .enumerate()
            .map(|(i, l)| format!("{:>6}→{l}\n", i + 1))
            .collect();
        let result = format!(
            r#"{{"type":"text","file":{{"filePath":{},"content":{},"numLines":{lines},"startLine":1,"totalLines":{lines}}}}}"#,
            js(&file),
            js(&source)
        );
        ToolCall {
            name: "Read",
            input: format!(r#"{{"file_path":{}}}"#, js(&file)),
            content: numbered,
            is_error: false,
            result,
        }
    }

    fn bash_call(&mut self, bytes: Option<usize>) -> ToolCall {
        let command = self.rng.pick(COMMANDS).to_string();
        let stdout = match bytes {
            Some(bytes) => self.log(bytes / 2),
            None => {
                let lines = self.skewed((1, 20), (20, 150), (150, 800));
                self.bash_output(lines)
            }
        };
        let failed = bytes.is_none() && self.rng.chance(12);
        let input = format!(
            r#"{{"command":{},"description":"Run {}"}}"#,
            js(&command),
            command.split(' ').next().unwrap()
        );
        if failed {
            let content = format!("Exit code 101\n{stdout}");
            let result = js(&format!("Error: {content}"));
            return ToolCall {
                name: "Bash",
                input,
                content,
                is_error: true,
                result,
            };
        }
        let result = format!(
            r#"{{"stdout":{},"stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}}"#,
            js(&stdout)
        );
        ToolCall {
            name: "Bash",
            input,
            content: stdout,
            is_error: false,
            result,
        }
    }

    fn edit_call(&mut self) -> ToolCall {
        let file = self.file_path();
        let original = self.code_skewed((30, 200), (200, 600), (600, 1500));
        let old = self.code_between(1, 6);
        let new = self.code_between(2, 12);
        let start = self.rng.range(1, 90);
        let lines: Vec<String> = old
            .lines()
            .map(|l| format!("-{l}"))
            .chain(new.lines().map(|l| format!("+{l}")))
            .collect();
        let snippet: String = new
            .lines()
            .enumerate()
            .map(|(i, l)| format!("{:>6}→{l}\n", start as usize + i))
            .collect();
        let result = format!(
            r#"{{"filePath":{},"oldString":{},"newString":{},"originalFile":{},"structuredPatch":[{{"oldStart":{start},"oldLines":{},"newStart":{start},"newLines":{},"lines":{}}}],"userModified":false,"replaceAll":false}}"#,
            js(&file),
            js(&old),
            js(&new),
            js(&original),
            old.lines().count(),
            new.lines().count(),
            serde_json::to_string(&lines).unwrap()
        );
        ToolCall {
            name: "Edit",
            input: format!(
                r#"{{"replace_all":false,"file_path":{},"old_string":{},"new_string":{}}}"#,
                js(&file),
                js(&old),
                js(&new)
            ),
            content: format!(
                "The file {file} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n{snippet}"
            ),
            is_error: false,
            result,
        }
    }

    fn write_call(&mut self) -> ToolCall {
        let file = self.file_path();
        let content = self.code_skewed((20, 150), (150, 400), (400, 900));
        ToolCall {
            name: "Write",
            input: format!(
                r#"{{"file_path":{},"content":{}}}"#,
                js(&file),
                js(&content)
            ),
            content: format!("File created successfully at: {file}"),
            is_error: false,
            result: format!(
                r#"{{"type":"create","filePath":{},"content":{},"structuredPatch":[],"originalFile":null,"userModified":false}}"#,
                js(&file),
                js(&content)
            ),
        }
    }

    fn grep_call(&mut self) -> ToolCall {
        let pattern = self
            .rng
            .pick(&["retry_budget", "fn upload", "TODO", "Retry-After", "状态"])
            .to_string();
        let hits: Vec<String> = (0..self.rng.range(1, 30))
            .map(|_| {
                format!(
                    "{}:{}: {}",
                    self.file_path(),
                    self.rng.range(1, 900),
                    self.code(1).trim_end()
                )
            })
            .collect();
        let content = hits.join("\n");
        ToolCall {
            name: "Grep",
            input: format!(
                r#"{{"pattern":{},"path":"{CWD}","output_mode":"content","-n":true}}"#,
                js(&pattern)
            ),
            result: format!(
                r#"{{"mode":"content","numFiles":0,"filenames":[],"content":{},"numLines":{}}}"#,
                js(&content),
                hits.len()
            ),
            content,
            is_error: false,
        }
    }

    /// A TodoWrite call: the next task moves on; a new list when all are done.
    fn todo_call(&mut self) -> ToolCall {
        let old = self.todos_json();
        if self.todo_list.iter().all(|t| t.2 == "completed") {
            self.todo_list = (0..self.rng.range(3, 8))
                .map(|_| {
                    let (content, active) = self.rng.pick(TASKS);
                    let n = self.rng.range(1, 99);
                    (
                        format!("{content} (part {n})"),
                        format!("{active} (part {n})"),
                        "pending",
                    )
                })
                .collect();
            self.todo_list[0].2 = "in_progress";
        } else if let Some(i) = self.todo_list.iter().position(|t| t.2 == "in_progress") {
            self.todo_list[i].2 = "completed";
            if let Some(next) = self.todo_list.get_mut(i + 1) {
                next.2 = "in_progress";
            }
        }
        let new = self.todos_json();
        ToolCall {
            name: "TodoWrite",
            input: format!(r#"{{"todos":{new}}}"#),
            content: "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable".into(),
            is_error: false,
            result: format!(r#"{{"oldTodos":{old},"newTodos":{new}}}"#),
        }
    }

    fn todos_json(&self) -> String {
        let items: Vec<String> = self
            .todo_list
            .iter()
            .map(|(c, a, s)| {
                format!(
                    r#"{{"content":{},"status":"{s}","activeForm":{}}}"#,
                    js(c),
                    js(a)
                )
            })
            .collect();
        format!("[{}]", items.join(","))
    }

    // --- text ----------------------------------------------------------------------

    fn file_path(&mut self) -> String {
        let dir = self.rng.pick(DIRS);
        let stem = self.rng.pick(STEMS);
        let ext = self.rng.pick(&["rs", "ts", "py", "ex", "go"]);
        format!("{CWD}/{dir}/{stem}_{}.{ext}", self.rng.range(1, 60))
    }

    /// `lines` lines of source code: quotes, backslashes, tabs, escapes, non-ASCII.
    fn code(&mut self, lines: usize) -> String {
        let mut out = String::new();
        for _ in 0..lines {
            let line = self.rng.pick(CODE);
            let n = self.rng.range(0, 999).to_string();
            out.push_str(&line.replace("{n}", &n));
            out.push('\n');
        }
        out
    }

    fn code_between(&mut self, lo: u64, hi: u64) -> String {
        let lines = self.rng.range(lo, hi) as usize;
        self.code(lines)
    }

    /// Mostly small, sometimes larger, rarely large (70 / 25 / 5 %).
    fn skewed(&mut self, small: (u64, u64), medium: (u64, u64), large: (u64, u64)) -> usize {
        let (lo, hi) = match self.rng.range(0, 99) {
            0..=69 => small,
            70..=94 => medium,
            _ => large,
        };
        self.rng.range(lo, hi) as usize
    }

    fn code_skewed(&mut self, small: (u64, u64), medium: (u64, u64), large: (u64, u64)) -> String {
        let lines = self.skewed(small, medium, large);
        self.code(lines)
    }

    fn code_bytes(&mut self, bytes: usize) -> String {
        let mut out = String::new();
        while out.len() < bytes {
            out.push_str(&self.code(64));
        }
        out
    }

    /// Build and test output, with ANSI colours (JSON: `\u001b`).
    fn bash_output(&mut self, lines: usize) -> String {
        let mut out = String::new();
        for _ in 0..lines {
            let line = self.rng.pick(BUILD_OUTPUT);
            let n = self.rng.range(0, 9999).to_string();
            out.push_str(&line.replace("{n}", &n));
            out.push('\n');
        }
        out
    }

    fn bash_output_between(&mut self, lo: u64, hi: u64) -> String {
        let lines = self.rng.range(lo, hi) as usize;
        self.bash_output(lines)
    }

    fn base62_between(&mut self, lo: u64, hi: u64) -> String {
        let n = self.rng.range(lo, hi) as usize;
        self.rng.base62(n)
    }

    fn log(&mut self, bytes: usize) -> String {
        let mut out = String::new();
        while out.len() < bytes {
            let t = self.timestamp();
            let line = self
                .rng
                .pick(LOG_LINES)
                .replace("{n}", &self.rng.range(0, 99_999).to_string());
            writeln!(out, "{t} {line}").unwrap();
        }
        out
    }

    fn sentences(&mut self, pool: &[&str], lo: u64, hi: u64) -> String {
        let n = self.rng.range(lo, hi);
        (0..n)
            .map(|_| *self.rng.pick(pool))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn prompt_text(&mut self) -> String {
        let mut text = self.rng.pick(PROMPTS).to_string();
        if self.rng.chance(15) {
            text += "\n\nHere is the code I mean:\n\n```\n";
            text += &self.code_between(10, 80);
            text += "```";
        }
        text
    }

    fn final_reply(&mut self) -> String {
        let mut reply = self.sentences(STEP_TEXTS, 1, 3);
        reply += "\n\nChanges:\n";
        for _ in 0..self.rng.range(1, 5) {
            let file = self.file_path();
            writeln!(reply, "- `{file}`: {}", self.sentences(STEP_TEXTS, 1, 1)).unwrap();
        }
        write!(
            reply,
            "\nAll {} tests pass. {}",
            self.rng.range(12, 480),
            self.sentences(FOLLOW_UPS, 1, 1)
        )
        .unwrap();
        reply
    }
}

struct ToolCall {
    name: &'static str,
    /// `tool_use.input`, JSON.
    input: String,
    /// `tool_result.content`, text.
    content: String,
    is_error: bool,
    /// `toolUseResult`, JSON.
    result: String,
}

const DIRS: &[&str] = &[
    "src/upload",
    "src/api",
    "lib/shop_web/live",
    "web/src/components",
    "tests/integration",
];
const STEMS: &[&str] = &[
    "chunk", "retry", "budget", "session", "cart", "checkout", "invoice", "router", "store",
];

const CODE: &[&str] = &[
    "pub fn upload_chunk(client: &Client, chunk: &Chunk) -> Result<(), UploadError> {",
    "    let path = format!(\"{}/chunk-{n}.bin\", dir.display());",
    "    println!(\"uploaded {} bytes\\n\", total);",
    "    const ARROW = \"\\u2192\"; // → shown in the progress line",
    "        raise ValueError(f\"bad chunk {n}: {chunk!r}\")",
    "  def handle_info({:tick, {n}}, state), do: {:noreply, state}",
    "    assert_eq!(split(\"a\\tb\"), vec![\"a\", \"b\"]);",
    "// Größe des Puffers: {n} KiB — nicht ändern",
    "    return JSON.stringify({ id: {n}, label: \"caf\\u00e9\", tags: [\"a\", \"b\"] });",
    "\tre := regexp.MustCompile(`^\\d+\\.\\d+$`)",
    "      <div class=\"badge badge-{n}\">{{ t(\"状态\") }}</div>",
    "",
    "    }",
    "}",
    "    if attempt >= self.budget.max_retries { return Err(UploadError::BudgetExhausted { attempts: {n} }); }",
    "        let delay = Duration::from_millis(200 * 2u64.pow(attempt)); // exponential backoff",
    "    #[error(\"rate limited; retry after {retry_after:?}\")]",
    "import { useEffect, useState } from \"react\";",
    "        self.assertEqual(resp.status_code, 429, msg=\"expected \\\"Too Many Requests\\\"\")",
    "    /// Returns the number of retries left in the budget ({n} by default).",
    "    match serde_json::from_str::<Value>(&line) {",
    "        Ok(v) => records.push(v),",
    "        Err(e) => eprintln!(\"skipping line {n}: {e}\"),",
    "    logger.info(\"上传完成：%d 个分块\", len(chunks))",
    "    path = os.path.join(root, \"data\", \"chunk_{n}.bin\")",
    "    await expect(page.getByRole(\"button\", { name: \"Retry\" })).toBeVisible();",
    "defmodule Shop.Checkout.Cart{n} do",
    "    windows_path = r\"C:\\Users\\dev\\shop\\chunk_{n}.bin\"",
    "        for (const [key, value] of Object.entries(headers)) { req.setHeader(key, value); }",
    "    let re = Regex::new(r\"^(\\d{8})_(\\d{6})_([0-9a-f]{8})\\.md$\").unwrap();",
];

const BUILD_OUTPUT: &[&str] = &[
    "   Compiling shop-core v0.{n}.0 (/home/dev/shop/core)",
    "test upload::tests::retry_budget_{n} ... \u{1b}[32mok\u{1b}[0m",
    "test upload::tests::honours_retry_after_{n} ... \u{1b}[32mok\u{1b}[0m",
    "\u{1b}[33mwarning\u{1b}[0m: unused variable: `attempt_{n}`",
    "  --> src/upload/chunk.rs:{n}:17",
    "   |",
    "{n} |     let attempt = 0;",
    "   |         ^^^^^^^ help: if this is intentional, prefix it with an underscore: `_attempt`",
    "  ● Uploader › retries a failed chunk ({n} ms)",
    "    Expected: \"done\"\n    Received: \"stalled\"",
    "npm WARN deprecated glob@7.2.{n}: Glob versions prior to v9 are no longer supported",
    "PASS  web/src/components/Cart.test.tsx ({n} ms)",
    "test result: ok. {n} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.42s",
    "✓ 上传重试 ({n} ms)",
];

const LOG_LINES: &[&str] = &[
    "INFO  upload: chunk {n} sent (262144 bytes)",
    "WARN  upload: chunk {n} failed: connection reset by peer (os error 104), retrying",
    "DEBUG http: POST /v1/uploads/{n}/chunks -> 503 Service Unavailable {\"error\":\"overloaded\"}",
    "ERROR worker: task {n} panicked at 'called `Result::unwrap()` on an `Err` value: Timeout', src/upload/chunk.rs:212:41",
    "INFO  scheduler: 状态 = \"等待\" queue={n}",
    "TRACE tls: handshake with api.example.com:443 took {n} µs",
];

const PROMPTS: &[&str] = &[
    "The uploader gives up after the first network error. Add retries with a retry budget: at most 3 attempts per chunk, exponential backoff starting at 200 ms.",
    "Keep the public API unchanged and add tests for the new behaviour.",
    "Treat 429 as retryable but honour Retry-After, and don't count it against the budget.",
    "The checkout page flickers when the cart updates. Can you find out why and fix it?",
    "Run the whole test suite and fix whatever fails.",
    "Please refactor the session store so that it no longer holds the lock while it writes to disk.",
    "Why does `cargo clippy` complain about the new module? Fix the warnings, don't silence them.",
    "Add a `--dry-run` flag to the prune command and document it in the README.",
    "请把上传模块的重试逻辑整理一下，保持测试通过，并用中文写注释。",
    "Write an integration test for a budget exhausted in the middle of an upload.",
    "The invoice PDF has the wrong currency symbol for CHF. Fix it and add a regression test.",
    "ok, commit this with a clear message and move on to the next task",
    "アップロードのタイムアウトを30秒に延ばしてください。",
    "Continue.",
];

const STEP_TEXTS: &[&str] = &[
    "Let me look at the upload module first.",
    "I'll check how the chunk loop handles errors today.",
    "The retry loop spends the budget on 429 responses, which is the bug.",
    "Now I'll run the tests to see where we stand.",
    "The failure comes from a race between the cart update and the re-render.",
    "I decided to keep the budget in a separate `RetryBudget` type because the loop and the tests both inspect it.",
    "That test now passes; two more to go.",
    "The lock is held across the `fs::write`, so every reader waits for the disk.",
    "I'll move the write out of the critical section and keep an in-memory copy.",
    "Clippy flags a needless borrow and a manual `is_some_and`; both are real.",
];

const THOUGHTS: &[&str] = &[
    "The user wants retries but the budget must not count 429s.",
    "I should check whether the tests mock the clock or sleep for real.",
    "If I change the signature the public API changes, which the user ruled out.",
    "The flicker could be the key prop on the list items being the index.",
    "Let me think about where the lock is taken and released.",
];

const FOLLOW_UPS: &[&str] = &[
    "Next I'd document the retry behaviour in the README.",
    "Shall I also add the edge-case test for a budget exhausted mid-upload?",
    "Remaining: the migration for the old session files.",
    "Want me to commit this?",
];

const TASKS: &[(&str, &str)] = &[
    ("Add RetryBudget type", "Adding RetryBudget type"),
    (
        "Retry failed chunks with exponential backoff",
        "Retrying failed chunks",
    ),
    ("Add tests for retries and the budget", "Adding retry tests"),
    (
        "Document the retry behaviour in README",
        "Documenting retries",
    ),
    ("Fix the cart flicker", "Fixing the cart flicker"),
    (
        "Move the disk write out of the lock",
        "Moving the disk write",
    ),
    (
        "Fix clippy warnings in the session module",
        "Fixing clippy warnings",
    ),
];

const COMMANDS: &[&str] = &[
    "cargo test --workspace",
    "cargo clippy --all-targets -- -D warnings",
    "npm test -- --runInBand",
    "mix test test/shop_web/live/cart_live_test.exs",
    "git status && git diff --stat",
    "pytest -x tests/integration",
];

// ---------------------------------------------------------------------------------------
// Memories
// ---------------------------------------------------------------------------------------

/// `count` memories as the hook writes them (front matter, then the Markdown body), one
/// every ~13 minutes from 2026-01-01, 40 per session, with the directory's other files
/// (INDEX.md, .gitignore, .log). About one in ten mentions a "retry budget". Returns the
/// project directory.
fn generate_memories(data: &Path, count: usize) -> PathBuf {
    let project = data.join(format!("{GENERATOR}-memories-{count}"));
    if project.join(".claude/memories").is_dir() {
        return project;
    }
    eprintln!("generating {count} memories in {} ...", project.display());
    let partial = data.join(format!("{GENERATOR}-memories-{count}.partial"));
    let _ = fs::remove_dir_all(&partial);
    let dir = partial.join(".claude/memories");
    fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(0x5eed_0011);
    let start = chrono::DateTime::from_timestamp(1_767_225_600, 0).unwrap(); // 2026-01-01
    for i in 0..count {
        let t = start + chrono::Duration::seconds(i as i64 * 780 + rng.range(0, 120) as i64);
        let session = format!(
            "{:08x}-{}-4{}-a{}-{}",
            0x1000_0000 + (i / 40) * 7919,
            rng.hex(4),
            rng.hex(3),
            rng.hex(3),
            rng.hex(12)
        );
        let name = format!("{}_{}.md", t.format("%Y%m%d_%H%M%S"), &session[..8]);
        let retry = rng.chance(10);
        let prompt = if retry {
            PROMPTS[0].to_string()
        } else {
            PROMPTS[rng.range(3, PROMPTS.len() as u64 - 1) as usize].to_string()
        };
        let tasks: Vec<(&str, bool)> = (0..rng.range(0, 7))
            .map(|_| (rng.pick(TASKS).0, rng.chance(50)))
            .collect();
        let open = tasks.iter().filter(|t| !t.1).count();
        let created = t.format("%Y-%m-%dT%H:%M:%S+00:00");
        let when = t.format("%Y-%m-%d %H:%M:%S +00:00");
        let headline: String = prompt.chars().take(120).collect();
        let mut text = format!(
            "---\nmemory_stalker: 1\nsession_id: \"{session}\"\ncreated: \"{created}\"\ncreated_ns: {}\ntrigger: \"auto\"\nproject: \"{CWD}\"\ntranscript: \"/home/dev/.claude/projects/-home-dev-shop/{session}.jsonl\"\ntask_count: {}\ntasks_open: {open}\nsummary: {}\nsummary_source: \"offline\"\nlang: \"en\"\ntranscript_bytes: {}\n---\n\n# Session memory — {when}\n\n## Metadata\n\n- Session ID: `{session}`\n- Project: `{CWD}`\n- Saved at: {when}\n- Trigger: auto\n- Claude Code: 2.1.39 · branch `main`\n\n## Last complete interaction\n\n### User input\n\n```text\n{prompt}\n```\n\n### Assistant reply\n\n```markdown\n",
            t.timestamp() as u128 * 1_000_000_000,
            tasks.len(),
            js(&headline),
            rng.range(1_000_000, 900_000_000)
        );
        for _ in 0..rng.range(3, 12) {
            text += *rng.pick(STEP_TEXTS);
            text += if rng.chance(30) { "\n\n" } else { " " };
        }
        text += "\n```\n\n**Tool calls** (3):\n\n- Edit `src/upload/chunk.rs`\n- Edit `src/upload/error.rs`\n- Bash `cargo test --workspace`\n\n## Current task list\n\n";
        if tasks.is_empty() {
            text += "(no task list)\n";
        }
        for (task, done) in &tasks {
            writeln!(text, "- [{}] {task}", if *done { "x" } else { " " }).unwrap();
        }
        text += "\n## Files\n\n### Modified\n\n- `src/upload/chunk.rs`\n- `src/upload/error.rs`\n\n## Session so far\n\n### Your requests\n\n";
        for _ in 0..rng.range(1, 6) {
            writeln!(text, "- {}", rng.pick(PROMPTS)).unwrap();
        }
        text += "\n### Decisions\n\n";
        for _ in 0..rng.range(0, 4) {
            writeln!(text, "- {}", rng.pick(STEP_TEXTS)).unwrap();
        }
        write!(
            text,
            "\n---\n\n## AI summary\n\n_Summary by: `offline`_\n\n### Task summary\n\n- User asked: {prompt}\n- Last assistant conclusion: {}\n\n### Follow-ups\n\n",
            rng.pick(STEP_TEXTS)
        )
        .unwrap();
        for (task, done) in &tasks {
            if !done {
                writeln!(text, "- [ ] {task}").unwrap();
            }
        }
        fs::write(dir.join(name), text).unwrap();
    }
    fs::write(dir.join(".gitignore"), "*\n").unwrap();
    fs::write(dir.join(".log"), "").unwrap();
    fs::write(dir.join("INDEX.md"), "# Memory index\n").unwrap();
    fs::rename(&partial, &project).unwrap();
    project
}
