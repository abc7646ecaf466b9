//! The Claude Code transcripts: what to generate ([`Spec`]), what a generated one holds
//! ([`Transcript`]), and the writer of their records, turns and compactions.

use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::GENERATOR;
use super::measure::{MB, size, thousands};
use super::text::{Rng, STEP_TEXTS, THOUGHTS, js};
use super::tools::ToolCall;

/// What to generate.
#[derive(Clone, Copy)]
pub(crate) struct Spec {
    pub(crate) name: &'static str,
    pub(crate) bytes: u64,
    /// Compact (boundary + summary) whenever the segment reaches this size; the file then
    /// ends where the next compaction is due, which is when PreCompact runs.
    pub(crate) compact_every: Option<u64>,
    /// TodoWrite calls (a task list) or no task tool at all.
    pub(crate) todos: bool,
}

/// A generated transcript and what it holds.
pub(crate) struct Transcript {
    pub(crate) spec: Spec,
    pub(crate) path: PathBuf,
    pub(crate) bytes: u64,
    pub(crate) records: u64,
    pub(crate) longest_line: u64,
    pub(crate) compactions: u64,
    pub(crate) last_segment: u64,
}

impl Spec {
    pub(crate) fn file_name(&self) -> String {
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
    pub(crate) fn generate(&self, dir: &Path) -> Transcript {
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

const SESSION: &str = "5e55b0a7-bench-4c1d-9a2e-000000000011";
pub(crate) const CWD: &str = "/home/dev/shop";
/// A line of 2–8 MB about every this many bytes.
pub(crate) const HUGE_EVERY: u64 = 35 * MB;

/// Writes one transcript, record by record, with the key order of real records.
pub(crate) struct TranscriptWriter {
    out: BufWriter<File>,
    pub(crate) rng: Rng,
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
    pub(crate) todo_list: Vec<(String, String, &'static str)>,
    next_huge: u64,
    turns: u64,
}

impl TranscriptWriter {
    pub(crate) fn new(file: File, seed: u64, todos: bool) -> Self {
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

    pub(crate) fn timestamp(&mut self) -> String {
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
        let huge = self.huge_line();
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
            // The huge Read or Bash output, if any, is the turn's first tool call.
            let huge_now = if step == 0 {
                huge.filter(|(kind, _)| *kind > 0)
            } else {
                None
            };
            self.step(huge_now, step == steps - 1);
        }
        self.turn_end();
    }

    /// Now and then one line of 2–8 MB in a turn: its kind (0 a pasted log, 1 a huge
    /// Read, 2 a huge Bash output) and its size.
    fn huge_line(&mut self) -> Option<(u64, usize)> {
        if self.written >= self.next_huge {
            self.next_huge += HUGE_EVERY;
            Some((
                self.rng.range(0, 2),
                self.rng.range(2 * MB, 8 * MB) as usize,
            ))
        } else {
            None
        }
    }

    /// One assistant message of a turn: maybe thinking, maybe text, then one or two tool
    /// calls (the `huge` one, or now and then a TodoWrite on the `last` step) and what
    /// follows each.
    fn step(&mut self, huge: Option<(u64, usize)>, last: bool) {
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
        let todo_now = self.todos && last && self.rng.chance(30);
        let calls = if huge.is_some() || todo_now || !self.rng.chance(20) {
            1
        } else {
            2
        };
        let mut pending = Vec::new();
        for _ in 0..calls {
            let tool_id = format!("toolu_01{}", self.rng.base62(22));
            let call = match (huge, todo_now) {
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
            self.tool_records(&tool_id, &source, &call);
        }
    }

    /// What a tool call leaves: its hooks' and Bash's progress records, then the user
    /// record with its result (`source`: the assistant record that called it).
    fn tool_records(&mut self, tool_id: &str, source: &str, call: &ToolCall) {
        let data = format!(
            r#"{{"type":"hook_progress","hookEvent":"PreToolUse","hookName":"PreToolUse:{}","command":"/home/dev/.claude/hooks/guard.sh"}}"#,
            call.name
        );
        self.progress(tool_id, &data);
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
                self.progress(tool_id, &data);
            }
        } else if call.name == "Edit" || call.name == "Write" {
            let data = format!(
                r#"{{"type":"hook_progress","hookEvent":"PostToolUse","hookName":"PostToolUse:{}","command":"${{CLAUDE_PLUGIN_ROOT}}/hooks/format.sh"}}"#,
                call.name
            );
            self.progress(tool_id, &data);
        }
        self.tool_result(tool_id, &call.content, call.is_error, &call.result, source);
    }

    /// The end of a turn: the final reply, sometimes the Stop hook's summary, and the
    /// turn's duration.
    fn turn_end(&mut self) {
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
}
