//! Codex CLI rollouts written the way Codex 0.169.0 writes them (line shapes observed
//! with the real CLI; the texts are this repository's own), for the hook tests.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The session id of [`Rollout::sample`].
pub const CODEX_SID: &str = "0199c0de-5e55-7a11-8b22-3c4d5e6f7a8b";

/// Rollout lines, built one record at a time.
pub struct Rollout {
    pub lines: Vec<String>,
    n: usize,
    cwd: String,
}

impl Rollout {
    /// A rollout of session `sid` in `cwd`, its first line the session's metadata.
    pub fn new(sid: &str, cwd: &Path) -> Rollout {
        let mut r = Rollout {
            lines: Vec::new(),
            n: 0,
            cwd: cwd.to_string_lossy().into_owned(),
        };
        let meta = json!({"id": sid, "session_id": sid, "timestamp": "2026-11-25T09:00:00.000Z",
            "cwd": r.cwd, "originator": "codex_exec", "cli_version": "0.169.0", "source": "exec",
            "model_provider": "openai", "base_instructions": {"text": "You are a coding agent running in the Codex CLI."},
            "git": {"branch": "feature/retries"}});
        r.line("session_meta", meta, None);
        r
    }

    /// Appends a line `{"timestamp","ordinal","type","payload"[,"metadata"]}`, keys in
    /// Codex's order.
    pub fn line(&mut self, kind: &str, payload: Value, metadata: Option<Value>) -> &mut Self {
        self.n += 1;
        let mut line = format!(
            r#"{{"timestamp":"2026-11-25T09:{:02}:{:02}.000Z","ordinal":{},"type":{},"payload":{}"#,
            (self.n / 60) % 60,
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

    fn message(&mut self, role: &str, text: &str, provenance: &str) -> &mut Self {
        let kind = if role == "assistant" {
            "output_text"
        } else {
            "input_text"
        };
        self.line(
            "response_item",
            json!({"type": "message", "id": format!("msg_{}", self.n + 1), "role": role,
                   "content": [{"type": kind, "text": text}],
                   "internal_chat_message_metadata_passthrough": {"content_item_metadata": [{"provenance": {"type": provenance}}]}}),
            None,
        )
    }

    /// A turn's bookkeeping and the user's request, after Codex's own user message.
    pub fn prompt(&mut self, text: &str) -> &mut Self {
        let cwd = self.cwd.clone();
        self.line("event_msg", json!({"type": "task_started"}), None)
            .line(
                "turn_context",
                json!({"cwd": cwd, "model": "gpt-5.5"}),
                None,
            )
            .message(
                "user",
                &format!("<environment_context>\n  <cwd>{cwd}</cwd>\n</environment_context>"),
                "harness",
            )
            .message("user", text, "user")
    }

    /// The assistant's text.
    pub fn say(&mut self, text: &str) -> &mut Self {
        self.message("assistant", text, "model")
    }

    /// A function call and its output.
    pub fn call(&mut self, id: &str, name: &str, args: Value, output: &str) -> &mut Self {
        self.line(
            "response_item",
            json!({"type": "function_call", "name": name, "arguments": args.to_string(), "call_id": id}),
            None,
        )
        .line(
            "response_item",
            json!({"type": "function_call_output", "call_id": id, "output": output}),
            None,
        )
        .line(
            "event_msg",
            json!({"type": "token_count", "info": {"total_token_usage": {"input_tokens": 1000}}}),
            None,
        )
    }

    /// `exec_command` and Codex's report of it.
    pub fn shell(&mut self, id: &str, cmd: &str, code: i32, out: &str) -> &mut Self {
        let output = format!(
            "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code {code}\nOriginal token count: 4\nOutput:\n{out}"
        );
        self.call(id, "exec_command", json!({"cmd": cmd}), &output)
    }

    /// `update_plan` with `(step, status)`s.
    pub fn plan(&mut self, id: &str, steps: &[(&str, &str)]) -> &mut Self {
        let plan: Vec<Value> = steps
            .iter()
            .map(|(s, st)| json!({"step": s, "status": st}))
            .collect();
        self.call(
            id,
            "update_plan",
            json!({"explanation": "progress", "plan": plan}),
            "Plan updated",
        )
    }

    /// `apply_patch` as a free-form call, and its output.
    pub fn patch(&mut self, id: &str, patch: &str) -> &mut Self {
        self.line(
            "response_item",
            json!({"type": "custom_tool_call", "status": "completed", "call_id": id, "name": "apply_patch", "input": patch}),
            None,
        )
        .line(
            "response_item",
            json!({"type": "custom_tool_call_output", "call_id": id, "output": "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n"}),
            None,
        )
    }

    /// Codex's compaction: the summary as sampled, then `compacted` and its bookkeeping.
    pub fn compaction(&mut self, summary: &str) -> &mut Self {
        let message = format!(
            "Another language model started to solve this problem and produced a summary of its thinking process. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:\n{summary}"
        );
        let cwd = self.cwd.clone();
        self.line(
            "response_item",
            json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": summary}]}),
            Some(json!({"compaction_output": true})),
        )
        .line("compacted", json!({"message": message, "replacement_history": [], "window_number": 1}), None)
        .line("world_state", json!({"full": true}), None)
        .line("turn_context", json!({"cwd": cwd}), None)
        .line("event_msg", json!({"type": "item_completed", "item": {"type": "ContextCompaction"}}), None)
    }

    /// A session in a project: a plan, shell reads, a patch, a failing test run and the
    /// assistant's answer, with the user's standing instruction.
    pub fn sample(cwd: &Path) -> Rollout {
        let mut r = Rollout::new(CODEX_SID, cwd);
        r.prompt("Add a retry budget to the uploader: at most 3 attempts per chunk. Never change the public API.")
            .plan("c1", &[("Read the uploader", "in_progress"), ("Add RetryBudget", "pending"), ("Test the budget", "pending")])
            .shell("c2", "sed -n '1,120p' src/upload.rs && rg -n 'fn retry' src/lib.rs", 0, "pub fn upload() {}\n")
            .say("I chose a RetryBudget type of its own because the tests must inspect it.")
            .patch("c3", "*** Begin Patch\n*** Add File: src/retry.rs\n+pub struct RetryBudget { left: u32 }\n*** Update File: src/upload.rs\n@@\n-pub fn upload() {}\n+pub fn upload() { /* with RetryBudget */ }\n*** End Patch\n")
            .plan("c4", &[("Read the uploader", "completed"), ("Add RetryBudget", "completed"), ("Test the budget", "in_progress")])
            .shell("c5", "cargo test -q retry", 101, "test retry_budget ... FAILED\n")
            .say("The budget is in place; `retry_budget` still fails: the third attempt is not counted. Next: fix the count and run the tests again.");
        r
    }

    /// The rollout's text.
    pub fn text(&self) -> String {
        let mut s = self.lines.join("\n");
        s.push('\n');
        s
    }

    /// Writes the rollout where Codex keeps it under `codex_home`; returns its path.
    pub fn write_in(&self, codex_home: &Path, sid: &str) -> PathBuf {
        let dir = codex_home.join("sessions/2026/11/25");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("rollout-2026-11-25T09-00-00-{sid}.jsonl"));
        std::fs::write(&path, self.text()).unwrap();
        path
    }
}
