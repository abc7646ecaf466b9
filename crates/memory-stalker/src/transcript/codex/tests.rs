//! The rollout reader over whole (small, hand-written) rollouts, shaped as Codex 0.169.0
//! writes them: what is extracted, where reading stops, and what is never fatal.

use std::io::Write;

use serde_json::{Value, json};

use super::super::{ReadOptions, Stop, TodoSource, Transcript, conversation_after};
use crate::agent::Agent;

/// Builds rollout lines the way Codex writes them.
struct Rollout {
    lines: Vec<String>,
    n: usize,
}

impl Rollout {
    /// A rollout whose first line is the session's metadata.
    fn new() -> Rollout {
        let mut r = Rollout {
            lines: Vec::new(),
            n: 0,
        };
        r.line(
            "session_meta",
            json!({"id": "0199aaaa-1111-7222-8333-444455556666", "session_id": "0199aaaa-1111-7222-8333-444455556666",
                   "timestamp": "2026-11-25T10:00:00.000Z", "cwd": "/work/app", "originator": "codex_exec",
                   "cli_version": "0.169.0", "source": "exec", "model_provider": "fake",
                   "base_instructions": {"text": "You are a coding agent running in the Codex CLI."},
                   "git": {"branch": "main", "commit_hash": "abc123"}}),
            None,
        );
        r
    }

    fn line(&mut self, kind: &str, payload: Value, metadata: Option<Value>) -> &mut Self {
        self.n += 1;
        // Keys in Codex's order (`json!` would sort them).
        let mut line = format!(
            r#"{{"timestamp":"2026-11-25T10:{:02}:{:02}.000Z","ordinal":{},"type":{},"payload":{}"#,
            self.n / 60,
            self.n % 60,
            self.n,
            json!(kind),
            payload
        );
        if let Some(m) = metadata {
            line.push_str(&format!(r#","metadata":{m}"#));
        }
        line.push('}');
        self.lines.push(line);
        self
    }

    /// The bookkeeping Codex writes around a turn: world state, turn context, settings.
    fn turn_start(&mut self) -> &mut Self {
        self.line(
            "event_msg",
            json!({"type": "task_started", "turn_id": "t"}),
            None,
        )
        .line(
            "world_state",
            json!({"full": true, "state": {"model": "gpt-5.5"}}),
            None,
        )
        .line(
            "turn_context",
            json!({"turn_id": "t", "cwd": "/work/app", "model": "gpt-5.5"}),
            None,
        )
    }

    fn message(&mut self, role: &str, text: &str, provenance: &str) -> &mut Self {
        let kind = if role == "assistant" {
            "output_text"
        } else {
            "input_text"
        };
        let id = format!("msg_{}", self.n + 1);
        self.line(
            "response_item",
            json!({"type": "message", "id": id, "role": role, "content": [{"type": kind, "text": text}],
                   "internal_chat_message_metadata_passthrough": {"turn_id": "t",
                       "content_item_kinds": [if provenance == "user" { "user.text" } else { "harness.x" }],
                       "content_item_metadata": [{"provenance": {"type": provenance}}]}}),
            None,
        )
    }

    /// The user's request, preceded by Codex's own user message (environment context).
    fn prompt(&mut self, text: &str) -> &mut Self {
        self.message("user", "<environment_context>\n  <cwd>/work/app</cwd>\n</environment_context>", "harness")
            .message("user", text, "user")
            .line(
                "event_msg",
                json!({"type": "item_completed", "item": {"type": "UserMessage", "content": [{"type": "text", "text": text}]}}),
                None,
            )
    }

    fn say(&mut self, text: &str) -> &mut Self {
        self.message("assistant", text, "model")
    }

    fn call(&mut self, id: &str, name: &str, args: Value) -> &mut Self {
        self.line(
            "response_item",
            json!({"type": "function_call", "id": format!("fc_{id}"), "name": name, "arguments": args.to_string(), "call_id": id}),
            None,
        )
        .line("token_usage_record", json!({"usage": {"input_tokens": 1000}}), None)
    }

    fn patch(&mut self, id: &str, patch: &str) -> &mut Self {
        self.line(
            "response_item",
            json!({"type": "custom_tool_call", "id": format!("ctc_{id}"), "status": "completed", "call_id": id, "name": "apply_patch", "input": patch}),
            None,
        )
    }

    fn output(&mut self, id: &str, output: &str) -> &mut Self {
        self.line(
            "response_item",
            json!({"type": "function_call_output", "id": format!("fco_{id}"), "call_id": id, "output": output}),
            None,
        )
        .line("event_msg", json!({"type": "token_count", "info": {"total_token_usage": {"input_tokens": 1000}}}), None)
    }

    fn exec_output(&mut self, id: &str, code: i32, out: &str) -> &mut Self {
        let text = format!(
            "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code {code}\nOriginal token count: 3\nOutput:\n{out}"
        );
        self.output(id, &text)
    }

    fn patch_output(&mut self, id: &str) -> &mut Self {
        self.line(
            "response_item",
            json!({"type": "custom_tool_call_output", "call_id": id, "output": "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n"}),
            None,
        )
    }

    fn plan(&mut self, id: &str, steps: &[(&str, &str)]) -> &mut Self {
        let plan: Vec<Value> = steps
            .iter()
            .map(|(s, st)| json!({"step": s, "status": st}))
            .collect();
        self.call(
            id,
            "update_plan",
            json!({"explanation": "plan", "plan": plan}),
        )
        .output(id, "Plan updated")
    }

    /// A compaction as Codex writes it: the summary as the model sampled it, then the
    /// `compacted` record and its bookkeeping.
    fn compaction(&mut self, summary: &str) -> &mut Self {
        let message = format!(
            "Another language model started to solve this problem and produced a summary of its thinking process. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:\n{summary}"
        );
        self.line(
            "response_item",
            json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": summary}]}),
            Some(json!({"compaction_output": true})),
        )
        .line(
            "compacted",
            json!({"message": message, "replacement_history": [
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "RETAINED"}]}],
                "window_number": 1}),
            None,
        )
        .line("world_state", json!({"full": true}), None)
        .line("turn_context", json!({"cwd": "/work/app"}), None)
        .line("event_msg", json!({"type": "item_completed", "item": {"type": "ContextCompaction"}}), None)
    }

    fn raw(&mut self, line: &str) -> &mut Self {
        self.lines.push(line.to_string());
        self
    }

    fn bytes(&self) -> Vec<u8> {
        let mut s = self.lines.join("\n");
        s.push('\n');
        s.into_bytes()
    }

    fn file(&self) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&self.bytes()).unwrap();
        f
    }

    fn read(&self, opts: ReadOptions) -> Transcript {
        let f = self.file();
        Transcript::read(f.path(), opts).unwrap()
    }

    fn extract(&self) -> crate::transcript::Extraction {
        self.read(ReadOptions::default()).extraction()
    }
}

/// A session that plans, patches, reads with the shell and answers.
fn working_session() -> Rollout {
    let mut r = Rollout::new();
    r.turn_start()
        .prompt("Add a retry budget to the uploader; keep the public API unchanged.")
        .plan("c1", &[("Add RetryBudget", "in_progress"), ("Use it in upload()", "pending"), ("Document it", "pending")])
        .call("c2", "exec_command", json!({"cmd": "sed -n '1,80p' src/upload.rs && rg -n retry src/lib.rs", "workdir": "/work/app"}))
        .exec_output("c2", 0, "fn upload() {}\n")
        .patch("c3", "*** Begin Patch\n*** Add File: src/retry.rs\n+pub struct RetryBudget;\n*** Update File: src/upload.rs\n@@\n-fn upload() {}\n+fn upload() { /* retries */ }\n*** End Patch\n")
        .patch_output("c3")
        .plan("c4", &[("Add RetryBudget", "completed"), ("Use it in upload()", "completed"), ("Document it", "in_progress")])
        .call("c5", "exec_command", json!({"cmd": "cargo test --quiet"}))
        .exec_output("c5", 101, "test upload ... FAILED\n")
        .say("The budget is in place; one test still fails: `upload` retries once too often.")
        .line("event_msg", json!({"type": "task_complete", "last_agent_message": "…"}), None);
    r
}

#[test]
fn a_working_session_is_extracted_like_a_claude_code_one() {
    let ex = working_session().extract();
    insta::assert_json_snapshot!(ex);
}

#[test]
fn the_format_is_told_from_the_file() {
    let t = working_session().read(ReadOptions::default());
    assert_eq!(t.agent(), Agent::Codex);
    // Blank lines before the first record change nothing.
    let mut bytes = b"\n\n".to_vec();
    bytes.extend(working_session().bytes());
    let t = Transcript::from_bytes(&bytes, ReadOptions::default()).unwrap();
    assert_eq!(t.agent(), Agent::Codex);
    assert_eq!(
        t.extraction().session_id.as_deref(),
        Some("0199aaaa-1111-7222-8333-444455556666")
    );
    let claude = br#"{"type":"user","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"},"payload":"x"}"#;
    let t = Transcript::from_bytes(claude, ReadOptions::default()).unwrap();
    assert_eq!(t.agent(), Agent::ClaudeCode);
    assert_eq!(t.extraction().last_prompt.unwrap().text, "hi");
}

/// A rollout re-written with spaces after every `:` and `,` (as Python's `json.dumps`
/// writes JSON; the shared samples are such) is read as Codex wrote it.
#[test]
fn a_rollout_with_spaces_between_tokens_is_the_same_rollout() {
    let compact = working_session().bytes();
    // A space after every `:` and `,` outside strings, the keys in their order.
    let mut spaced = Vec::with_capacity(compact.len() * 2);
    let (mut in_string, mut escaped) = (false, false);
    for &b in &compact {
        spaced.push(b);
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            b':' | b',' if !in_string => spaced.push(b' '),
            _ => {}
        }
    }
    assert!(spaced.starts_with(b"{\"timestamp\": "));
    let a = Transcript::from_bytes(&compact, ReadOptions::default()).unwrap();
    let b = Transcript::from_bytes(&spaced, ReadOptions::default()).unwrap();
    assert_eq!(b.agent(), Agent::Codex);
    let (a, b) = (
        serde_json::to_value(a.extraction()).unwrap(),
        serde_json::to_value(b.extraction()).unwrap(),
    );
    assert_eq!(a, b);
}

#[test]
fn the_segment_ends_at_the_last_compaction_and_what_outlives_it_is_found_before() {
    let mut r = working_session();
    // A compaction in the middle of the next turn: its request and the plan are before
    // the boundary.
    r.prompt("Now document the budget in README.md.")
        .plan("d1", &[("Write the README section", "in_progress")])
        .call("d2", "exec_command", json!({"cmd": "cat README.md"}))
        .exec_output("d2", 0, "# App\n")
        .compaction("The user asked for a retry budget and its README section.")
        .call(
            "d3",
            "exec_command",
            json!({"cmd": "echo '## Retries' >> README.md"}),
        )
        .exec_output("d3", 0, "");
    let t = r.read(ReadOptions::default());
    let ex = t.extraction();
    assert_eq!(
        ex.last_prompt.as_ref().unwrap().text,
        "Now document the budget in README.md."
    );
    let todos = ex.todos.as_ref().unwrap();
    assert_eq!(todos.source, TodoSource::UpdatePlan);
    assert_eq!(todos.items.len(), 1);
    // Files from the turn's start (its request is before the boundary): cat, then >>.
    assert_eq!(ex.files.modified, ["README.md"]);
    assert!(ex.files.read.is_empty(), "{:?}", ex.files);
    assert_eq!(
        ex.last_action.as_ref().unwrap().summary,
        "echo '## Retries' >> README.md"
    );
    assert_eq!(t.segment_prompts(), Vec::<String>::new());
    // Codex's summary is neither the reply nor a prompt.
    assert!(
        !t.conversation_text(10_000)
            .contains("The user asked for a retry budget")
    );
}

#[test]
fn a_compaction_with_nothing_after_it_is_the_one_under_way() {
    // PostCompact and SessionStart(compact) read the rollout after Codex wrote
    // `compacted`: the memory describes the segment that compaction closes.
    let mut r = working_session();
    r.compaction("FAKE SUMMARY")
        .line("response_item", json!({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "memory-stalker: restore"}]}), None);
    let ex = r.extract();
    assert_eq!(
        ex.last_prompt.unwrap().text,
        "Add a retry budget to the uploader; keep the public API unchanged."
    );
    assert_eq!(ex.files.modified, ["src/upload.rs", "src/retry.rs"]);
    assert_eq!(ex.last_action.unwrap().tool, "exec_command");
    let reply = ex.reply.unwrap();
    assert!(!reply.text.contains("FAKE SUMMARY"), "{}", reply.text);
}

#[test]
fn reading_stops_at_the_segment() {
    // A long first segment, then a compaction and a short one: only the short one and
    // the lines back to its request are read.
    let mut r = Rollout::new();
    r.turn_start().prompt("first request");
    let filler = "x".repeat(50_000);
    for i in 0..100 {
        let id = format!("f{i}");
        r.call(&id, "exec_command", json!({"cmd": "cat big.txt"}))
            .exec_output(&id, 0, &filler);
    }
    r.compaction("summary");
    let compacted_at = r.bytes().len() as u64;
    r.prompt("second request").say("done");
    // Without a task list anywhere, the lines before the boundary are looked through
    // for one, unparsed: the cost is a search, not a parse.
    let t = r.read(ReadOptions::default());
    let (_, size) = t.bytes_read();
    assert!(size > 5_000_000, "{size}");
    assert!(
        t.json_bytes_decoded() < 20_000,
        "{}",
        t.json_bytes_decoded()
    );
    assert_eq!(t.extraction().last_prompt.unwrap().text, "second request");
    // An earlier memory of the session said there was no task list at the compaction:
    // nothing before it is read.
    let t = r.read(ReadOptions {
        checkpoints: crate::transcript::Checkpoints::known(vec![
            crate::transcript::TaskCheckpoint {
                bytes: compacted_at,
                todos: None,
            },
        ]),
        ..ReadOptions::default()
    });
    let (read, _) = t.bytes_read();
    assert!(read < 20_000, "read {read} of {size}");
    assert_eq!(t.extraction().last_prompt.unwrap().text, "second request");
}

#[test]
fn hostile_lines_are_skipped_not_fatal() {
    let mut r = working_session();
    r.raw("not json at all")
        .raw(r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{broken","call_id":"z"}}"#)
        .raw(r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":"a plain string"}}"#)
        .raw(r#"{"timestamp":"t","type":"a_type_of_2027","payload":{"nested":{"deep":[1,2,3]}}}"#)
        .raw(r#"{"timestamp":"t","type":"response_item","payload":[1,2]}"#)
        .raw("\u{1b}[31m")
        .raw(r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"half a li"#);
    let ex = r.extract();
    assert_eq!(ex.bad_lines, 3, "garbage, an escape and a cut last line");
    assert_eq!(ex.last_prompt.unwrap().text, "a plain string");
    assert_eq!(ex.last_action.unwrap().summary, "");
}

#[test]
fn interrupts_and_refusals_stop_the_turn() {
    let mut r = Rollout::new();
    r.turn_start()
        .prompt("delete the cache")
        .call("a", "exec_command", json!({"cmd": "rm -rf cache"}))
        .output("a", "exec command rejected by user");
    let ex = r.extract();
    assert_eq!(
        ex.stopped,
        Some(Stop::Rejected {
            tool: "exec_command".into(),
            summary: "rm -rf cache".into()
        })
    );
    assert!(ex.last_action.unwrap().rejected);
    let mut r = Rollout::new();
    r.turn_start()
        .prompt("run the long suite")
        .call("a", "exec_command", json!({"cmd": "cargo test"}))
        .line(
            "event_msg",
            json!({"type": "turn_aborted", "reason": "interrupted", "turn_id": "t"}),
            None,
        );
    assert_eq!(r.extract().stopped, Some(Stop::Interrupted));
}

#[test]
fn secrets_are_redacted_as_they_are_read() {
    let mut r = Rollout::new();
    r.turn_start()
        .prompt("deploy with ANTHROPIC_API_KEY=sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA please")
        .call("a", "exec_command", json!({"cmd": "curl -H 'Authorization: Bearer ghp_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' https://x"}))
        .exec_output("a", 0, "ok");
    let ex = r
        .read(ReadOptions {
            redact: true,
            ..ReadOptions::default()
        })
        .extraction();
    let json = serde_json::to_string(&ex).unwrap();
    assert!(!json.contains("sk-ant-api03-AAAA"), "{json}");
    assert!(!json.contains("ghp_AAAA"), "{json}");
    assert!(json.contains("[REDACTED:"), "{json}");
}

#[test]
fn the_compaction_summary_is_read_from_the_last_compacted_record() {
    let mut r = working_session();
    r.compaction("first summary")
        .prompt("more")
        .compaction("## Progress\n- the budget works\n");
    let f = r.file();
    assert_eq!(
        super::last_compaction_summary(f.path()).unwrap().as_deref(),
        Some("## Progress\n- the budget works")
    );
    let f = working_session().file();
    assert_eq!(super::last_compaction_summary(f.path()).unwrap(), None);
}

#[test]
fn the_conversation_goes_on_only_with_a_request_or_the_assistant() {
    let mut r = working_session();
    let before = r.bytes().len() as u64;
    // What Codex writes between PreCompact and PostCompact.
    r.compaction("summary");
    let f = r.file();
    let len = r.bytes().len() as u64;
    let taken = chrono::DateTime::parse_from_rfc3339("2026-11-25T09:00:00+00:00").unwrap();
    assert!(!conversation_after(f.path(), before, len, taken).unwrap());
    r.prompt("next");
    let f = r.file();
    let len = r.bytes().len() as u64;
    assert!(conversation_after(f.path(), before, len, taken).unwrap());
}

#[test]
fn the_conversation_text_shows_codex_calls_and_outputs() {
    let text = working_session()
        .read(ReadOptions::default())
        .conversation_text(50_000);
    insta::assert_snapshot!(text);
}

/// A Codex session whose test run fails until a patch fixes it, whose test file is
/// patched while it fails, which commits, and which gives up a way: the same signals a
/// Claude Code session gives, read from `exec_command` and `apply_patch`.
#[test]
fn shell_calls_and_patches_give_the_signals_claude_codes_tools_give() {
    let mut r = Rollout::new();
    r.turn_start()
        .prompt("Make the uploader's tests pass and commit.")
        .call("c1", "exec_command", json!({"cmd": "cargo test --quiet", "workdir": "/work/app"}))
        .exec_output("c1", 101, "running 3 tests\nerror[E0425]: cannot find value `budget` in this scope\n")
        .say("The budget was never passed to upload(); I'll thread it through.")
        .patch("c2", "*** Begin Patch\n*** Update File: src/upload.rs\n@@\n-fn upload() {}\n+fn upload(budget: u32) {}\n*** End Patch\n")
        .patch_output("c2")
        .call("c3", "exec_command", json!({"cmd": "cargo test --quiet", "workdir": "/work/app"}))
        .exec_output("c3", 101, "test upload_retries ... FAILED\n")
        .patch("c4", "*** Begin Patch\n*** Update File: tests/upload_test.rs\n@@\n-assert_eq!(tries, 3);\n+assert_eq!(tries, 4);\n*** End Patch\n")
        .patch_output("c4")
        .call("c5", "exec_command", json!({"cmd": "cargo test --quiet", "workdir": "/work/app"}))
        .exec_output("c5", 0, "test result: ok. 3 passed\n")
        .call("c6", "exec_command", json!({"cmd": "cargo bench --bench upload"}))
        .exec_output("c6", 101, "error: no bench target named `upload`\n")
        .say("Benchmarking this way won't work here: the crate has no bench target.")
        .call("c7", "exec_command", json!({"cmd": "git add -A && git commit -m 'fix: pass the retry budget to upload'"}))
        .exec_output("c7", 0, "[main 3f2a1c9] fix: pass the retry budget to upload\n 2 files changed\n")
        .say("Committed.");
    let s = r.read(ReadOptions::default()).signals();

    let [run] = s.failed_runs.as_slice() else {
        panic!("{:#?}", s.failed_runs)
    };
    assert_eq!(run.command, "cargo test --quiet");
    assert_eq!(run.failures, 2);
    // The error line is the command's own, not Codex's `Chunk ID: 1` above it.
    assert_eq!(
        run.error.as_deref(),
        Some("error[E0425]: cannot find value `budget` in this scope")
    );
    assert_eq!(
        run.tried,
        ["The budget was never passed to upload(); I'll thread it through. (src/upload.rs)"]
    );
    assert_eq!(run.worked.as_deref(), Some("editing tests/upload_test.rs"));
    assert_eq!(run.source.tool, "exec_command");

    let [edit] = s.test_edits.as_slice() else {
        panic!("{:#?}", s.test_edits)
    };
    assert_eq!(edit.file, "tests/upload_test.rs");
    assert_eq!(edit.source.tool, "apply_patch");

    let [abandoned] = s.abandoned.as_slice() else {
        panic!("{:#?}", s.abandoned)
    };
    assert_eq!(abandoned.command, "cargo bench --bench upload");
    assert_eq!(
        abandoned.error.as_deref(),
        Some("error: no bench target named `upload`")
    );

    let [commit] = s.commits.as_slice() else {
        panic!("{:#?}", s.commits)
    };
    assert_eq!(
        (&*commit.hash, &*commit.subject),
        ("3f2a1c9", "fix: pass the retry budget to upload")
    );
    assert_eq!(commit.source.tool, "exec_command");
}

/// A test file a patch adds is no existing test changed to fit the code.
#[test]
fn a_test_file_a_patch_adds_is_not_a_test_changed() {
    let mut r = Rollout::new();
    r.turn_start()
        .prompt("Add a test for retries.")
        .call("c1", "exec_command", json!({"cmd": "cargo test"}))
        .exec_output("c1", 101, "test upload ... FAILED\n")
        .patch("c2", "*** Begin Patch\n*** Add File: tests/retry_test.rs\n+#[test] fn t() {}\n*** End Patch\n")
        .patch_output("c2")
        .call("c3", "exec_command", json!({"cmd": "cargo test"}))
        .exec_output("c3", 0, "ok\n");
    let s = r.read(ReadOptions::default()).signals();
    assert!(s.test_edits.is_empty(), "{:#?}", s.test_edits);
    assert_eq!(s.failed_runs.len(), 1, "{:#?}", s.failed_runs);
}

/// A command the user ran with `!` in Codex's TUI is bash mode: not a request, the
/// context of the request typed next.
#[test]
fn a_users_shell_command_is_bash_mode_context() {
    let shell = "<user_shell_command>\n<command>\ncargo clippy\n</command>\n<result>\nExit code: 101\nDuration: 2.1000 seconds\nOutput:\nwarning: unused variable: `x`\nerror: could not compile `app` (lib) due to 1 previous error\n\n</result>\n</user_shell_command>";
    let mut r = Rollout::new();
    r.turn_start()
        .prompt("Add a retry budget to the uploader.")
        .say("Done.")
        .message("user", shell, "user")
        .turn_start()
        .prompt("please fix these")
        .say("Fixed the unused variable.");
    let t = r.read(ReadOptions::default());
    let [bash] = t
        .signals()
        .bash
        .try_into()
        .unwrap_or_else(|b| panic!("{b:#?}"));
    assert_eq!(bash.command, "cargo clippy");
    assert_eq!(
        bash.output.as_deref(),
        Some(
            "warning: unused variable: `x` ⏎ error: could not compile `app` (lib) due to 1 previous error"
        )
    );
    assert_eq!(bash.next_request.as_deref(), Some("please fix these"));
    assert_eq!(bash.source.tool, "! command");
    // Not a request of its own: the last request is the one typed after it.
    let ex = t.extraction();
    assert_eq!(ex.last_prompt.unwrap().text, "please fix these");
    assert!(
        !t.prompts().iter().any(|(_, p)| p.contains("cargo clippy")),
        "{:?}",
        t.prompts()
    );
}

/// A command still running when its call returned ("Process running with session ID
/// N") ends in the output of a later `write_stdin` on its session: that is how it
/// ended, for the signals.
#[test]
fn a_long_command_ends_where_write_stdin_says_it_exited() {
    let running = |id: u32, out: &str| {
        format!(
            "Chunk ID: a\nWall time: 10.0 seconds\nProcess running with session ID {id}\nOriginal token count: 3\nOutput:\n{out}"
        )
    };
    let exited = |code: i32, out: &str| {
        format!(
            "Chunk ID: b\nWall time: 4.0 seconds\nProcess exited with code {code}\nOriginal token count: 3\nOutput:\n{out}"
        )
    };
    let mut r = Rollout::new();
    r.turn_start()
        .prompt("Make the tests pass.")
        .call(
            "c1",
            "exec_command",
            json!({"cmd": "cargo test", "yield_time_ms": 10000}),
        )
        .output("c1", &running(7, "   Compiling app v0.1.0\n"))
        .call("c2", "write_stdin", json!({"session_id": 7, "chars": ""}))
        .output("c2", &running(7, ""))
        .call("c3", "write_stdin", json!({"session_id": 7, "chars": ""}))
        .output(
            "c3",
            &exited(
                101,
                "error[E0425]: cannot find value `budget` in this scope\n",
            ),
        )
        .patch(
            "c4",
            "*** Begin Patch\n*** Update File: src/upload.rs\n@@\n-a\n+b\n*** End Patch\n",
        )
        .patch_output("c4")
        .call("c5", "exec_command", json!({"cmd": "cargo test"}))
        .output("c5", &running(7, "   Compiling app v0.1.0\n"))
        .call("c6", "write_stdin", json!({"session_id": 7, "chars": ""}))
        .output("c6", &exited(0, "test result: ok. 3 passed\n"));
    let t = r.read(ReadOptions::default());
    let [run] = t
        .signals()
        .failed_runs
        .try_into()
        .unwrap_or_else(|f| panic!("{f:#?}"));
    assert_eq!(run.command, "cargo test");
    assert_eq!(run.failures, 1);
    assert_eq!(
        run.error.as_deref(),
        Some("error[E0425]: cannot find value `budget` in this scope")
    );
    assert_eq!(run.worked.as_deref(), Some("editing src/upload.rs"));
    // In the reply, the command failed and then passed; each wait names its command.
    let ex = t.extraction();
    let calls: Vec<String> = ex
        .reply
        .unwrap()
        .tool_calls
        .iter()
        .map(|c| {
            format!(
                "{} {}{}",
                c.name,
                c.summary,
                if c.failed { " (failed)" } else { "" }
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            "exec_command cargo test (failed)",
            "write_stdin session 7 (cargo test)",
            "write_stdin session 7 (cargo test) (failed)",
            "apply_patch src/upload.rs",
            "exec_command cargo test",
            "write_stdin session 7 (cargo test)",
        ]
    );
}

/// What a Stop hook made Codex tell the model (`<hook_prompt …>`) is a hook's
/// requirement, never the user's request.
#[test]
fn a_hooks_prompt_is_a_requirement_not_a_request() {
    let hook = "<hook_prompt hook_run_id=\"stop:0:/work/app/.codex/hooks.json\">Cannot stop with unstaged changes &amp; untracked files: commit them first.</hook_prompt>";
    let mut r = Rollout::new();
    r.turn_start()
        .prompt("Add the retry budget.")
        .say("Done.")
        .message("user", hook, "hook")
        .say("Committing now.");
    let t = r.read(ReadOptions::default());
    let [h] = t
        .signals()
        .hooks
        .try_into()
        .unwrap_or_else(|h| panic!("{h:#?}"));
    assert_eq!(h.event, "Stop");
    assert_eq!(
        h.requirement,
        "Cannot stop with unstaged changes & untracked files: commit them first."
    );
    assert_eq!(h.source.tool, "Stop hook");
    assert_eq!(
        t.extraction().last_prompt.unwrap().text,
        "Add the retry budget."
    );
    // Without a recorded provenance (older Codex versions), the same.
    let mut r = Rollout::new();
    r.turn_start()
        .prompt("Add the retry budget.")
        .line(
            "response_item",
            json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": hook}]}),
            None,
        );
    let t = r.read(ReadOptions::default());
    assert_eq!(t.signals().hooks.len(), 1);
    assert_eq!(
        t.extraction().last_prompt.unwrap().text,
        "Add the retry budget."
    );
}

/// Plan mode's questions (`request_user_input`) and the user's answers, keyed by each
/// question's id, are answers as `AskUserQuestion`'s are. The answers are as the real
/// Codex 0.169.0 gives them from its question screen: the option's label, then what the
/// user typed in its notes as `user_note: …`; "None of the above" is the screen's own
/// option, with or without a note.
#[test]
fn plan_mode_questions_and_their_answers_are_the_users_answers() {
    let mut r = Rollout::new();
    let options = |a: &str, b: &str| json!([{"label": a, "description": ""}, {"label": b, "description": ""}]);
    r.turn_start()
        .prompt("Set up a cache.")
        .call(
            "q1",
            "request_user_input",
            json!({"questions": [
                {"id": "db", "header": "Database", "question": "Which database should the cache use?",
                 "options": options("SQLite", "Postgres")},
                {"id": "ttl", "header": "TTL", "question": "How long should entries live?",
                 "options": options("One hour", "One day")},
                {"id": "name", "header": "Name", "question": "What should the cache be called?",
                 "options": options("app_cache", "cache")},
                {"id": "rig", "header": "Rig", "question": "Add a test rig?",
                 "options": options("Yes", "Later")}]}),
        )
        .output(
            "q1",
            r#"{"answers":{"db":{"answers":["Postgres","user_note: with pgbouncer please"]},"ttl":{"answers":["None of the above","user_note: five minutes"]},"name":{"answers":["app_cache"]},"rig":{"answers":["None of the above"]}}}"#,
        )
        .say("Postgres behind pgbouncer, five minutes.");
    let answers = r.read(ReadOptions::default()).signals().answers;
    let got: Vec<(&str, &str, bool, &str)> = answers
        .iter()
        .map(|a| (&*a.question, &*a.answer, a.chosen, &*a.source.tool))
        .collect();
    assert_eq!(
        got,
        [
            (
                "Which database should the cache use?",
                "Postgres (with pgbouncer please)",
                true,
                "request_user_input"
            ),
            (
                "How long should entries live?",
                "five minutes",
                false,
                "request_user_input"
            ),
            (
                "What should the cache be called?",
                "app_cache",
                true,
                "request_user_input"
            ),
            (
                "Add a test rig?",
                "None of the above (not Yes or Later)",
                true,
                "request_user_input"
            ),
        ]
    );
}

/// Answers the hook reads with only the start of each output kept (no summariser):
/// several questions and a long note all come through, and a key typed in a note is
/// redacted before anything cuts or shows it.
#[test]
fn long_plan_mode_answers_survive_the_output_cut_redacted() {
    let mut r = Rollout::new();
    let options =
        json!([{"label": "SQLite", "description": ""}, {"label": "Postgres", "description": ""}]);
    let questions: Vec<Value> = (0..6)
        .map(|i| json!({"id": format!("q{i}"), "header": "Db", "question": format!("Which database for part {i}?"), "options": options}))
        .collect();
    let key = format!("sk-ant-api03-{}AA", "x1Y2z3W4".repeat(12));
    let note = format!("use {key} and {}", "a long explanation ".repeat(20));
    let mut answers = serde_json::Map::new();
    for i in 0..6 {
        answers.insert(
            format!("q{i}"),
            json!({"answers": ["Postgres", format!("user_note: {note}")]}),
        );
    }
    r.turn_start()
        .prompt("Set up a cache.")
        .call("c1", "request_user_input", json!({"questions": questions}))
        .output("c1", &json!({"answers": answers}).to_string())
        .say("Postgres it is.");
    let opts = ReadOptions {
        output_heads_only: true,
        ..ReadOptions::default()
    };
    let got = r.read(opts).signals().answers;
    assert_eq!(got.len(), 6, "{got:?}");
    for a in &got {
        assert!(
            a.answer.starts_with("Postgres (use [REDACTED"),
            "{}",
            a.answer
        );
        assert!(!a.answer.contains("x1Y2z3W4"), "{}", a.answer);
    }
}

/// A question Codex could not put (outside Plan mode) failed and gave no answer.
#[test]
fn a_question_outside_plan_mode_failed() {
    let mut r = Rollout::new();
    r.turn_start()
        .prompt("Set up a cache.")
        .call(
            "q1",
            "request_user_input",
            json!({"questions": [{"id": "db", "header": "Database", "question": "Which database?",
                 "options": [{"label": "SQLite", "description": ""}, {"label": "Postgres", "description": ""}]}]}),
        )
        .output("q1", "request_user_input is unavailable in Default mode")
        .say("I'll pick SQLite.");
    let t = r.read(ReadOptions::default());
    assert!(t.signals().answers.is_empty());
    let reply = t.extraction().reply.unwrap();
    assert!(reply.tool_calls[0].failed, "{:?}", reply.tool_calls);
}
