//! The rows of the table, one method a case: the hook on a transcript or a rollout,
//! `list-memories`, the recall at session start, the MCP server's search and the hook
//! with a slow model.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use super::measure::*;
use super::transcript::Transcript;
use super::{Bench, Row, SAVE_MEMORY, http};

impl Bench {
    pub(crate) fn hook_row(&self, case: String, t: &Transcript) -> Row {
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
    pub(crate) fn codex_hook_row(&self, case: String, t: &Transcript) -> Row {
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

    pub(crate) fn list_rows(&self, project: &Path, memories: usize) -> Vec<Row> {
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
    pub(crate) fn recall_row(&self, project: &Path, memories: usize) -> Row {
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
        // Signed with the key the memories were (they are the user's own).
        let recalling = || {
            let mut cmd = self.ours(Path::new(SAVE_MEMORY));
            cmd.env("MEMORY_STALKER_RECALL_DAYS", "3650")
                .env("XDG_STATE_HOME", super::memories::state_home(&self.data));
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
    pub(crate) fn mcp_search_row(&self, project: &Path, memories: usize) -> Row {
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
    pub(crate) fn model_row(&self) -> Row {
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
}
