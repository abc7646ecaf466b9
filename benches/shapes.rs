//! The PreCompact hook on sessions whose shape, not size, costs time: a segment of
//! many prompts that each type a rule and a choice, and a long run that rewrites its
//! whole task list thousands of times with pasted build logs between. A few megabytes
//! each, but every rule is compared with the others and every task list with the next,
//! so a comparison that is quadratic shows here long before it shows in the 100 MB rows
//! of `benches/table.rs` (a segment of 5,000 such prompts took three minutes, past the
//! hook's 90 s timeout, until the comparison was bounded).
//!
//! `cargo bench -p save-memory --bench shapes` (after `cargo build --release -p
//! save-memory`; `scripts/bench` runs it). Each row runs the whole process
//! `MEMORY_STALKER_BENCH_RUNS` times (default 9) and prints the median, min–max wall
//! time and the peak RSS. Set `SAVE_MEMORY=/path/to/other/save-memory` to time another
//! build on the same inputs. The inputs are generated once into `target/bench-data/`.

#[path = "support/measure.rs"]
mod measure;

use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use measure::*;

/// Bump when the generated data changes: the files are named after it.
const GENERATOR: &str = "shapes-v1";

/// A generated session.
struct Shape {
    case: String,
    path: PathBuf,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some(SPAWNER) {
        spawner(&args[2..]);
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let data = root.join("target/bench-data");
    fs::create_dir_all(&data).unwrap();
    let save_memory = std::env::var_os("SAVE_MEMORY")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_save-memory")));
    let runs: usize = std::env::var("MEMORY_STALKER_BENCH_RUNS")
        .ok()
        .map(|v| v.parse().expect("MEMORY_STALKER_BENCH_RUNS: a number"))
        .unwrap_or(9);
    let home = tempfile::tempdir().unwrap();

    let shapes = [
        prompts(&data, 1_000),
        prompts(&data, 5_000),
        refusals(&data, 5_000),
        task_lists(&data, 3_000),
    ];
    let mut out = String::new();
    let _ = writeln!(out, "save-memory: {}\n", save_memory.display());
    let _ = writeln!(
        out,
        "| case | transcript | hook, median (min–max) | peak RSS |"
    );
    let _ = writeln!(out, "|---|---|---|---|");
    for shape in &shapes {
        // As `benches/table.rs` runs it: no model, no steering note.
        let mut cmd = Command::new(&save_memory);
        cmd.env_clear()
            .env("HOME", home.path())
            .env("LANG", "C.UTF-8")
            .env("NO_COLOR", "1")
            .env("CLAUDE_PLUGIN_DATA", home.path())
            .env("MEMORY_STALKER_STEER", "0")
            .env("MEMORY_STALKER_SUMMARIZER", "offline");
        let side = Side::hook(cmd, shape.path.clone());
        let measured: Result<Vec<Run>, String> = (0..runs).map(|_| measure(&side)).collect();
        let bytes = fs::metadata(&shape.path).map_or(0, |m| m.len());
        let (time, peak) = match measured {
            Ok(r) => {
                let s = Stats::new(&r);
                (spread(&s), rss(s.peak_rss_kb))
            }
            Err(e) => (format!("failed: {e}"), "—".into()),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {time} | {peak} |",
            shape.case,
            size_exact(bytes)
        );
        eprintln!("{}: {time}", shape.case);
    }
    print!("{out}");
}

/// Writes a transcript once: `make` gets the writer; the file is renamed into place
/// when whole.
fn generated(data: &Path, name: &str, make: impl FnOnce(&mut Writer)) -> PathBuf {
    let path = data.join(format!("{GENERATOR}-{name}.jsonl"));
    if path.is_file() {
        return path;
    }
    let partial = path.with_extension("partial");
    let mut w = Writer {
        out: BufWriter::new(File::create(&partial).unwrap()),
        n: 0,
    };
    make(&mut w);
    w.out.flush().unwrap();
    fs::rename(&partial, &path).unwrap();
    path
}

/// `n` prompts in one segment, each with a rule and a choice in it, each answered.
fn prompts(data: &Path, n: usize) -> Shape {
    let path = generated(data, &format!("prompts-{n}"), |w| {
        for k in 0..n {
            w.prompt(&format!(
                "Please rename module{k} to widget{k} instead of keeping the old name. \
                 Never touch the generated file gen{k}.rs in this repo. Always run cargo \
                 test number {k} before you commit."
            ));
            w.say(&format!(
                "Renamed module{k}. Should I continue with the next module?"
            ));
        }
    });
    Shape {
        case: format!(
            "{} prompts typed in one segment, each with a rule and a choice",
            thousands(n as u64)
        ),
        path,
    }
}

/// `n` edits refused, each with the user's reason, a rule ("never edit …, use … instead").
fn refusals(data: &Path, n: usize) -> Shape {
    let path = generated(data, &format!("refusals-{n}"), |w| {
        w.prompt("Work through the backlog.");
        for k in 0..n {
            w.call_failing(
                "Edit",
                serde_json::json!({
                    "file_path": format!("/proj/src/m{k}.rs"),
                    "old_string": "a",
                    "new_string": "b",
                }),
                &format!(
                    "The user doesn't want to proceed with this tool use. The tool use was \
                     rejected (eg. if it was a file edit, the new_string was NOT written to the \
                     file). The user provided the following reason for the rejection:  never \
                     edit m{k}, use the {k}-th helper instead"
                ),
            );
        }
        w.say("Done.");
    });
    Shape {
        case: format!(
            "{} edits refused, each with a rule as its reason",
            thousands(n as u64)
        ),
        path,
    }
}

/// `n` whole task lists of ten new tasks each (every open task of a list is dropped by
/// the next), an edit after each, and a pasted build log naming an edited file every
/// 60 lists.
fn task_lists(data: &Path, n: usize) -> Shape {
    let path = generated(data, &format!("lists-{n}"), |w| {
        w.prompt("Build the dashboard, step by step.");
        for k in 0..n {
            let todos: Vec<serde_json::Value> = (0..10)
                .map(|j| {
                    serde_json::json!({
                        "content": format!("Step {k}.{j}: wire the widget"),
                        "status": if j == 0 { "in_progress" } else { "pending" },
                        "activeForm": "Wiring the widget",
                    })
                })
                .collect();
            w.call(
                "TodoWrite",
                serde_json::json!({ "todos": todos }),
                "Todos updated",
            );
            w.call(
                "Edit",
                serde_json::json!({
                    "file_path": format!("/proj/src/widget_{k}.ts"),
                    "old_string": "a",
                    "new_string": "b",
                }),
                "The file has been updated.",
            );
            if k % 60 == 0 {
                let mut log = String::from("> npm run build\n");
                for i in 0..2_000 {
                    let _ = writeln!(log, "src/other_{i}.ts:1:1 - warning TS6133: unused");
                }
                let _ = writeln!(log, "src/widget_{k}.ts:86:67 - error TS2305: no member");
                w.prompt(&log);
                w.say("Fixing the import.");
            }
        }
        w.say("The dashboard is wired.");
    });
    Shape {
        case: format!(
            "{} task lists rewritten whole, pasted build logs",
            thousands(n as u64)
        ),
        path,
    }
}

/// Writes Claude Code 2.1 records, one after the other.
struct Writer {
    out: BufWriter<File>,
    n: usize,
}

impl Writer {
    fn record(&mut self, mut v: serde_json::Value) {
        self.n += 1;
        let uuid = format!("00000000-0000-4000-8000-{:012}", self.n);
        let parent = (self.n > 1).then(|| format!("00000000-0000-4000-8000-{:012}", self.n - 1));
        let fields = serde_json::json!({
            "uuid": uuid,
            "parentUuid": parent,
            "sessionId": "5e55b0a7-bench-4c1d-9a2e-000000000011",
            "cwd": "/proj",
            "version": "2.1.30",
            "timestamp": "2026-11-20T10:00:00.000Z",
            "isSidechain": false,
            "userType": "external",
        });
        if let (Some(v), Some(f)) = (v.as_object_mut(), fields.as_object()) {
            v.extend(f.clone());
        }
        serde_json::to_writer(&mut self.out, &v).unwrap();
        self.out.write_all(b"\n").unwrap();
    }

    fn prompt(&mut self, text: &str) {
        self.record(serde_json::json!({
            "type": "user",
            "message": { "role": "user", "content": text },
        }));
    }

    fn say(&mut self, text: &str) {
        let id = format!("msg_{}", self.n);
        self.record(serde_json::json!({
            "type": "assistant",
            "message": { "id": id, "role": "assistant", "content": [{ "type": "text", "text": text }] },
        }));
    }

    fn call(&mut self, tool: &str, input: serde_json::Value, result: &str) {
        self.call_with(tool, input, result, false);
    }

    fn call_failing(&mut self, tool: &str, input: serde_json::Value, result: &str) {
        self.call_with(tool, input, result, true);
    }

    fn call_with(&mut self, tool: &str, input: serde_json::Value, result: &str, is_error: bool) {
        let id = format!("toolu_{}", self.n);
        self.record(serde_json::json!({
            "type": "assistant",
            "message": { "id": format!("msg_{}", self.n), "role": "assistant",
                         "content": [{ "type": "tool_use", "id": id, "name": tool, "input": input }] },
        }));
        self.record(serde_json::json!({
            "type": "user",
            "message": { "role": "user",
                         "content": [{ "type": "tool_result", "tool_use_id": id, "content": result,
                                       "is_error": is_error }] },
        }));
    }
}
