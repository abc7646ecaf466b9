//! The benchmark's Codex CLI rollout: one segment (not compacted yet) of 100 MB, with the
//! line shapes of real Codex 0.169.0 rollouts (`../shared/codex-runtime.md` §6): every
//! line `{"timestamp","ordinal","type","payload"}`; a turn's `task_started`,
//! `turn_context`, `world_state` and settings; the request as a `user` message and its
//! `item_completed` echo; `reasoning` with encrypted content; commentary messages and
//! their echoes; `exec_command` calls whose output is in the `function_call_output` and
//! again in the `item_completed` `CommandExecution` event; `apply_patch` patches and
//! their `FileChange` events; `update_plan` calls; usage records after every model call;
//! a line of 2–8 MB now and then. The texts are the Claude Code generator's, so both
//! transcripts hold the same kind of code, logs and prose.

use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use super::GENERATOR;
use super::measure::{MB, thousands};
use super::text::{COMMANDS, STEP_TEXTS, TASKS, THOUGHTS, js};
use super::transcript::{CWD, HUGE_EVERY, Spec, Transcript, TranscriptWriter};

/// The session of the generated rollout.
const THREAD: &str = "0199b3c0-bench-7a11-8b22-000000000013";

/// The rollout the benchmark's Codex row reads: generated once into `dir`, like the
/// Claude Code transcripts (its figures kept beside it).
pub(super) fn generate(dir: &Path, bytes: u64) -> Transcript {
    let spec = Spec {
        name: "codex-rollout",
        bytes,
        compact_every: None,
        todos: true,
    };
    let path = dir.join(spec.file_name());
    let facts_path = path.with_extension("facts");
    if path.is_file()
        && let Some(n) = fs::read_to_string(&facts_path).ok().map(|s| {
            s.split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect::<Vec<u64>>()
        })
        && n.len() == 5
    {
        return Transcript {
            spec,
            path,
            bytes: n[0],
            records: n[1],
            longest_line: n[2],
            compactions: n[3],
            last_segment: n[4],
        };
    }
    eprintln!("generating {} ...", path.display());
    let started = Instant::now();
    let partial = path.with_extension("partial");
    let mut w = RolloutWriter::new(File::create(&partial).unwrap(), bytes);
    w.session_meta();
    while w.written < bytes {
        w.turn();
    }
    w.out.flush().unwrap();
    let t = Transcript {
        spec,
        path: path.clone(),
        bytes: w.written,
        records: w.records,
        longest_line: w.longest_line,
        compactions: 0,
        last_segment: w.written,
    };
    drop(w);
    fs::rename(&partial, &path).unwrap();
    fs::write(
        &facts_path,
        format!(
            "bytes {}\nrecords {}\nlongest_line {}\ncompactions 0\nlast_segment {}\n",
            t.bytes, t.records, t.longest_line, t.bytes
        ),
    )
    .unwrap();
    eprintln!(
        "  {} bytes, {} lines in {:.1} s ({GENERATOR})",
        thousands(t.bytes),
        thousands(t.records),
        started.elapsed().as_secs_f64()
    );
    t
}

/// Writes one rollout, line by line, with the key order of real lines.
struct RolloutWriter {
    out: BufWriter<File>,
    /// The Claude Code generator, for its texts (code, logs, prose) and its clock.
    text: TranscriptWriter,
    written: u64,
    records: u64,
    longest_line: u64,
    ordinal: u64,
    turn: String,
    calls: u64,
    /// The plan: (step, status).
    plan: Vec<(String, &'static str)>,
    next_huge: u64,
}

impl RolloutWriter {
    fn new(file: File, seed: u64) -> RolloutWriter {
        let sink = File::create("/dev/null").unwrap();
        RolloutWriter {
            out: BufWriter::with_capacity(1 << 20, file),
            text: TranscriptWriter::new(sink, seed ^ 0xc0de, true),
            written: 0,
            records: 0,
            longest_line: 0,
            ordinal: 0,
            turn: String::new(),
            calls: 0,
            plan: Vec::new(),
            next_huge: 3 * MB,
        }
    }

    /// `{"timestamp","ordinal","type","payload"[,"metadata"]}`.
    fn line(&mut self, kind: &str, payload: &str, metadata: Option<&str>) {
        let ts = self.text.timestamp();
        let mut line = format!(
            r#"{{"timestamp":"{ts}","ordinal":{},"type":"{kind}","payload":{payload}"#,
            self.ordinal
        );
        if let Some(m) = metadata {
            write!(line, r#","metadata":{m}"#).unwrap();
        }
        line.push('}');
        self.ordinal += 1;
        self.out.write_all(line.as_bytes()).unwrap();
        self.out.write_all(b"\n").unwrap();
        let n = line.len() as u64 + 1;
        self.written += n;
        self.records += 1;
        self.longest_line = self.longest_line.max(n);
    }

    fn id(&mut self) -> String {
        format!("01b3{}", self.text.rng.hex(28))
    }

    fn session_meta(&mut self) {
        let instructions = self.text.sentences(STEP_TEXTS, 120, 160);
        let payload = format!(
            r#"{{"account_scoped":true,"session_id":"{THREAD}","id":"{THREAD}","timestamp":"2026-11-20T09:00:00.000Z","cwd":"{CWD}","runtime_workspace_roots":["{CWD}"],"originator":"codex_cli_rs","cli_version":"0.169.0","source":"cli","thread_source":"user","model_provider":"openai","base_instructions":{{"text":{}}},"history_mode":"paginated","git":{{"commit_hash":"{}","branch":"main","repository_url":"git@example.com:dev/shop.git"}}}}"#,
            js(&instructions),
            self.text.rng.hex(40)
        );
        self.line("session_meta", &payload, None);
        let env = format!(
            "<environment_context>\n  <cwd>{CWD}</cwd>\n  <shell>bash</shell>\n  <current_date>2026-11-20</current_date>\n</environment_context>"
        );
        self.message("user", &env, "harness", "environments.environment_context");
    }

    fn message(&mut self, role: &str, text: &str, provenance: &str, kind: &str) {
        let content = if role == "assistant" {
            "output_text"
        } else {
            "input_text"
        };
        let id = self.id();
        let payload = format!(
            r#"{{"type":"message","id":"msg_{id}","role":"{role}","content":[{{"type":"{content}","text":{}}}],"internal_chat_message_metadata_passthrough":{{"turn_id":"{}","content_item_kinds":["{kind}"],"content_item_metadata":[{{"provenance":{{"type":"{provenance}"}}}}]}}}}"#,
            js(text),
            self.turn
        );
        self.line(
            "response_item",
            &payload,
            Some(r#"{"history_sequence":1,"sampled_through_sequence":0,"client_authored":false}"#),
        );
    }

    fn usage(&mut self) {
        let (input, output) = (
            self.text.rng.range(20_000, 160_000),
            self.text.rng.range(10, 900),
        );
        let payload = format!(
            r#"{{"thread_id":"{THREAD}","turn_id":"{}","session_id":"{THREAD}","response_id":"resp_{}","usage":{{"input_tokens":{input},"cached_input_tokens":{},"output_tokens":{output},"reasoning_output_tokens":0,"total_tokens":{}}}}}"#,
            self.turn,
            self.text.rng.hex(12),
            input / 2,
            input + output
        );
        self.line("token_usage_record", &payload, None);
    }

    fn token_count(&mut self) {
        let n = self.text.rng.range(20_000, 160_000);
        let payload = format!(
            r#"{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":{n},"cached_input_tokens":0,"output_tokens":100,"reasoning_output_tokens":0,"total_tokens":{}}},"model_context_window":258400}},"rate_limits":{{"limit_id":"codex","primary":null,"secondary":null}}}}"#,
            n + 100
        );
        self.line("event_msg", &payload, None);
    }

    fn item_completed(&mut self, item: &str) {
        let payload = format!(
            r#"{{"type":"item_completed","thread_id":"{THREAD}","turn_id":"{}","item":{item},"started_at_ms":1795165200000,"completed_at_ms":1795165200100}}"#,
            self.turn
        );
        self.line("event_msg", &payload, None);
    }

    /// A turn: its bookkeeping, the request, a few steps of work, the answer.
    fn turn(&mut self) {
        self.turn = self.id();
        let turn = self.turn.clone();
        let payload = format!(
            r#"{{"type":"task_started","turn_id":"{turn}","started_at":1795165200,"model_context_window":258400,"collaboration_mode_kind":"default"}}"#
        );
        self.line("event_msg", &payload, None);
        self.line(
            "world_state",
            r#"{"full":false,"state":{"environments":{"current_date":"2026-11-20"}}}"#,
            None,
        );
        let payload = format!(
            r#"{{"turn_id":"{turn}","cwd":"{CWD}","approval_policy":"on-request","model":"gpt-5.5","summary":"auto","sandbox_policy":{{"type":"workspace-write"}}}}"#
        );
        self.line("turn_context", &payload, None);
        let huge = if self.written >= self.next_huge {
            self.next_huge += HUGE_EVERY;
            Some(self.text.rng.range(2 * MB, 8 * MB) as usize)
        } else {
            None
        };
        let prompt = self.text.prompt_text();
        self.message("user", &prompt, "user", "user.text");
        let made = format!(
            r#"{{"type":"UserMessage","id":"{}","content":[{{"type":"text","text":{},"text_elements":[]}}]}}"#,
            self.id(),
            js(&prompt)
        );
        self.item_completed(&made);
        let steps = self.text.rng.range(2, 10);
        for step in 0..steps {
            if self.text.rng.chance(35) {
                let summary = self.text.sentences(THOUGHTS, 1, 3);
                let secret = self.text.base62_between(1_500, 6_000);
                let payload = format!(
                    r#"{{"type":"reasoning","id":"rs_{}","summary":[{{"type":"summary_text","text":{}}}],"content":null,"encrypted_content":"gAAAAA{secret}"}}"#,
                    self.id(),
                    js(&summary)
                );
                self.line("response_item", &payload, None);
            }
            if self.text.rng.chance(60) {
                let text = self.text.sentences(STEP_TEXTS, 1, 2);
                self.message("assistant", &text, "model", "unknown");
                let made = format!(
                    r#"{{"type":"AgentMessage","id":"{}","content":[{{"type":"Text","text":{}}}]}}"#,
                    self.id(),
                    js(&text)
                );
                self.item_completed(&made);
            }
            let huge_now = if step == 0 { huge } else { None };
            if huge_now.is_none() && step == steps - 1 && self.text.rng.chance(30) {
                self.update_plan();
            } else if huge_now.is_none() && self.text.rng.chance(18) {
                self.apply_patch();
            } else {
                self.exec(huge_now);
            }
        }
        let reply = self.text.final_reply();
        self.message("assistant", &reply, "model", "unknown");
        let made = format!(
            r#"{{"type":"AgentMessage","id":"{}","content":[{{"type":"Text","text":{}}}]}}"#,
            self.id(),
            js(&reply)
        );
        self.item_completed(&made);
        self.usage();
        self.token_count();
        let payload = format!(
            r#"{{"type":"task_complete","turn_id":"{turn}","last_agent_message":{},"duration_ms":{}}}"#,
            js(&reply),
            self.text.rng.range(2_000, 90_000)
        );
        self.line("event_msg", &payload, None);
    }

    fn call_id(&mut self) -> String {
        self.calls += 1;
        format!("call_{}{}", self.text.rng.base62(18), self.calls)
    }

    /// `exec_command`: a read of a file, or a build; its output twice (the event and the
    /// call's output), as Codex writes them.
    fn exec(&mut self, huge: Option<usize>) {
        let id = self.call_id();
        let (cmd, output, code) = match huge {
            Some(bytes) => (
                "cat logs/nightly.log".to_string(),
                self.text.log(bytes / 2),
                0,
            ),
            None if self.text.rng.chance(55) => {
                let file = self.text.file_path();
                let lines = self.text.rng.range(40, 400);
                let source = self.text.code_between(10, lines);
                (format!("sed -n '1,{lines}p' {file}"), source, 0)
            }
            None => {
                let lines = self.text.skewed((1, 20), (20, 150), (150, 800));
                let code = if self.text.rng.chance(12) { 101 } else { 0 };
                (
                    self.text.rng.pick(COMMANDS).to_string(),
                    self.text.bash_output(lines),
                    code,
                )
            }
        };
        let args = format!(r#"{{"cmd":{},"workdir":"{CWD}"}}"#, js(&cmd));
        let payload = format!(
            r#"{{"type":"function_call","status":"completed","id":"fc_{}","name":"exec_command","arguments":{},"call_id":"{id}"}}"#,
            self.text.rng.hex(12),
            js(&args)
        );
        self.line("response_item", &payload, None);
        self.usage();
        let made = format!(
            r#"{{"type":"CommandExecution","id":"{id}","command":["/bin/bash","-lc",{}],"cwd":"file://{CWD}","status":"{}","aggregated_output":{},"exit_code":{code}}}"#,
            js(&cmd),
            if code == 0 { "completed" } else { "failed" },
            js(&output)
        );
        self.item_completed(&made);
        let text = format!(
            "Chunk ID: {}\nWall time: 0.4 seconds\nProcess exited with code {code}\nOriginal token count: {}\nOutput:\n{output}",
            self.text.rng.hex(6),
            output.len() / 4
        );
        let payload = format!(
            r#"{{"type":"function_call_output","id":"fco_{}","call_id":"{id}","output":{}}}"#,
            self.id(),
            js(&text)
        );
        self.line("response_item", &payload, None);
        self.token_count();
    }

    /// `apply_patch`: a patch of a file or two, its `FileChange` event and output.
    fn apply_patch(&mut self) {
        let id = self.call_id();
        let mut patch = String::from("*** Begin Patch\n");
        let mut files = Vec::new();
        for _ in 0..self.text.rng.range(1, 2) {
            let file = self.text.file_path();
            let rel = file
                .trim_start_matches(CWD)
                .trim_start_matches('/')
                .to_string();
            writeln!(patch, "*** Update File: {rel}\n@@").unwrap();
            for l in self.text.code_between(1, 8).lines() {
                writeln!(patch, "-{l}").unwrap();
            }
            for l in self.text.code_between(2, 30).lines() {
                writeln!(patch, "+{l}").unwrap();
            }
            files.push((file, rel));
        }
        patch.push_str("*** End Patch\n");
        let payload = format!(
            r#"{{"type":"custom_tool_call","id":"ctc_{}","status":"completed","call_id":"{id}","name":"apply_patch","input":{}}}"#,
            self.text.rng.hex(12),
            js(&patch)
        );
        self.line("response_item", &payload, None);
        self.usage();
        let changes: Vec<String> = files
            .iter()
            .map(|(file, _)| {
                format!(
                    r#"{}:{{"type":"update","unified_diff":{},"move_path":null}}"#,
                    js(file),
                    js(&patch)
                )
            })
            .collect();
        let names: Vec<String> = files.iter().map(|(_, rel)| format!("M {rel}")).collect();
        let stdout = format!(
            "Success. Updated the following files:\n{}\n",
            names.join("\n")
        );
        let made = format!(
            r#"{{"type":"FileChange","id":"{id}","changes":{{{}}},"status":"completed","stdout":{},"stderr":""}}"#,
            changes.join(","),
            js(&stdout)
        );
        self.item_completed(&made);
        let payload = format!(
            r#"{{"type":"custom_tool_call_output","id":"ctco_{}","call_id":"{id}","output":{}}}"#,
            self.id(),
            js(&format!(
                "Exit code: 0\nWall time: 0 seconds\nOutput:\n{stdout}"
            ))
        );
        self.line("response_item", &payload, None);
        self.token_count();
    }

    /// `update_plan`: the next step moves on; a new plan when all are done.
    fn update_plan(&mut self) {
        if self.plan.iter().all(|s| s.1 == "completed") {
            self.plan = (0..self.text.rng.range(3, 8))
                .map(|_| {
                    let (step, _) = self.text.rng.pick(TASKS);
                    (
                        format!("{step} (part {})", self.text.rng.range(1, 99)),
                        "pending",
                    )
                })
                .collect();
            self.plan[0].1 = "in_progress";
        } else if let Some(i) = self.plan.iter().position(|s| s.1 == "in_progress") {
            self.plan[i].1 = "completed";
            if let Some(next) = self.plan.get_mut(i + 1) {
                next.1 = "in_progress";
            }
        }
        let id = self.call_id();
        let steps: Vec<String> = self
            .plan
            .iter()
            .map(|(s, st)| format!(r#"{{"step":{},"status":"{st}"}}"#, js(s)))
            .collect();
        let args = format!(
            r#"{{"explanation":"progress","plan":[{}]}}"#,
            steps.join(",")
        );
        let payload = format!(
            r#"{{"type":"function_call","status":"completed","id":"fc_{}","name":"update_plan","arguments":{},"call_id":"{id}"}}"#,
            self.text.rng.hex(12),
            js(&args)
        );
        self.line("response_item", &payload, None);
        self.usage();
        let payload = format!(
            r#"{{"type":"function_call_output","id":"fco_{}","call_id":"{id}","output":"Plan updated"}}"#,
            self.id()
        );
        self.line("response_item", &payload, None);
        self.token_count();
    }
}
