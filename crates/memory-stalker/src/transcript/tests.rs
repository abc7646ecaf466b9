//! Extraction over whole (small, hand-written) transcripts: the window read from the
//! end, and every docs/design.md §3 rule that needs more than one record.

use std::io::Write;

use serde_json::json;

use super::*;

/// Builds transcript lines the way Claude Code writes them.
#[derive(Default)]
pub(crate) struct T {
    lines: Vec<String>,
    n: usize,
}

impl T {
    pub(crate) fn push(&mut self, mut v: serde_json::Value) -> &mut Self {
        self.n += 1;
        let obj = v.as_object_mut().unwrap();
        obj.entry("uuid").or_insert(json!(format!("u{}", self.n)));
        obj.entry("timestamp")
            .or_insert(json!(format!("2026-01-29T08:{:02}:00.000Z", self.n % 60)));
        obj.entry("sessionId").or_insert(json!("sess-1"));
        obj.entry("cwd").or_insert(json!("/proj"));
        obj.entry("version").or_insert(json!("2.1.197"));
        obj.entry("gitBranch").or_insert(json!("main"));
        obj.entry("isSidechain").or_insert(json!(false));
        self.lines.push(v.to_string());
        self
    }
    pub(crate) fn prompt(&mut self, text: &str) -> &mut Self {
        self.push(json!({"type":"user","message":{"role":"user","content":text}}))
    }
    pub(crate) fn say(&mut self, text: &str) -> &mut Self {
        self.push(json!({"type":"assistant","message":{"id":format!("m{}", self.n),"model":"claude-opus-4-8","role":"assistant","content":[{"type":"text","text":text}]}}))
    }
    pub(crate) fn call(&mut self, id: &str, name: &str, input: serde_json::Value) -> &mut Self {
        self.push(json!({"type":"assistant","message":{"id":format!("m{}", self.n),"role":"assistant","content":[{"type":"tool_use","id":id,"name":name,"input":input}]}}))
    }
    pub(crate) fn result(&mut self, id: &str, text: &str, is_error: bool) -> &mut Self {
        self.push(json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":id,"content":text,"is_error":is_error}]},"toolUseResult":{"stdout":text}}))
    }
    pub(crate) fn boundary(&mut self) -> &mut Self {
        self.push(json!({"type":"system","subtype":"compact_boundary","content":"Conversation compacted","parentUuid":null,"compactMetadata":{"trigger":"auto"}}))
            .push(json!({"type":"user","isCompactSummary":true,"isVisibleInTranscriptOnly":true,"message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context. Summary: …"}}))
    }
    pub(crate) fn prompt_raw_interrupt(&mut self) -> &mut Self {
        self.push(json!({"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}))
    }
    pub(crate) fn raw(&mut self, line: &str) -> &mut Self {
        self.lines.push(line.to_string());
        self
    }
    pub(crate) fn bytes(&self) -> Vec<u8> {
        let mut s = self.lines.join("\n");
        s.push('\n');
        s.into_bytes()
    }
    pub(crate) fn extract(&self) -> Extraction {
        self.read(ReadOptions::default()).extraction()
    }
    pub(crate) fn read(&self, opts: ReadOptions) -> Transcript {
        read_bytes(&self.bytes(), opts)
    }
}

fn read_bytes(bytes: &[u8], opts: ReadOptions) -> Transcript {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(bytes).unwrap();
    Transcript::read(f.path(), opts).unwrap()
}

#[test]
fn empty_file_extracts_nothing() {
    let ex = read_bytes(b"", ReadOptions::default()).extraction();
    assert_eq!(ex.records, 0);
    assert_eq!(ex.bad_lines, 0);
    assert!(ex.last_prompt.is_none() && ex.reply.is_none() && ex.todos.is_none());
    assert!(ex.plan.is_none() && ex.last_action.is_none());
    assert!(ex.files.modified.is_empty() && ex.files.read.is_empty());
}

#[test]
fn missing_file_is_an_error_not_a_panic() {
    let err =
        Transcript::read(Path::new("/nonexistent/x.jsonl"), ReadOptions::default()).unwrap_err();
    assert!(err.to_string().contains("/nonexistent/x.jsonl"));
}

#[test]
fn last_interaction_and_session_meta() {
    let mut t = T::default();
    t.prompt("first request").say("done first");
    t.prompt("add retries to the uploader")
        .say("Looking at the uploader.")
        .call("t1", "Read", json!({"file_path":"/proj/src/upload.rs"}))
        .result("t1", "fn upload() {}", false)
        .call(
            "t2",
            "Edit",
            json!({"file_path":"/proj/src/upload.rs","old_string":"a","new_string":"b"}),
        )
        .result("t2", "ok", false)
        .say("   ")
        .say("Retries added with a budget of 3.");
    let ex = t.extract();
    assert_eq!(ex.session_id.as_deref(), Some("sess-1"));
    assert_eq!(ex.cwd.as_deref(), Some("/proj"));
    assert_eq!(ex.version.as_deref(), Some("2.1.197"));
    assert_eq!(ex.git_branch.as_deref(), Some("main"));
    let p = ex.last_prompt.unwrap();
    assert_eq!(p.text, "add retries to the uploader");
    assert_eq!(p.uuid.as_deref(), Some("u3"));
    let reply = ex.reply.unwrap();
    assert_eq!(
        reply.text,
        "Looking at the uploader.\n\nRetries added with a budget of 3."
    );
    let names: Vec<_> = reply.tool_calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Read", "Edit"]);
    assert_eq!(ex.files.modified, ["src/upload.rs"]);
    assert!(ex.files.read.is_empty(), "read minus modified");
    let last = ex.last_action.unwrap();
    assert_eq!((last.tool.as_str(), last.ok), ("Edit", Some(true)));
}

#[test]
fn split_assistant_records_are_joined_in_file_order() {
    let mut t = T::default();
    t.prompt("go");
    for (i, block) in [
        json!({"type":"thinking","thinking":"…","signature":"x"}),
        json!({"type":"text","text":"Part one."}),
        json!({"type":"tool_use","id":"b1","name":"Bash","input":{"command":"ls"}}),
        json!({"type":"text","text":"Part two."}),
    ]
    .into_iter()
    .enumerate()
    {
        t.push(json!({"type":"assistant","uuid":format!("s{i}"),"requestId":"req_1","message":{"id":"msg_same","role":"assistant","content":[block]}}));
    }
    let reply = t.extract().reply.unwrap();
    assert_eq!(reply.text, "Part one.\n\nPart two.");
    assert_eq!(reply.tool_calls[0].summary, "ls");
}

#[test]
fn interrupts_synthetic_and_sidechain_records_are_skipped() {
    let mut t = T::default();
    t.prompt("real one").say("working");
    t.push(json!({"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}));
    t.push(json!({"type":"user","isSidechain":true,"message":{"role":"user","content":"subagent prompt"}}));
    t.push(json!({"type":"assistant","isSidechain":true,"message":{"role":"assistant","content":[{"type":"text","text":"subagent text"}]}}));
    t.push(json!({"type":"assistant","isApiErrorMessage":false,"message":{"model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"No response requested."}]}}));
    t.push(json!({"type":"user","isMeta":true,"message":{"role":"user","content":"Continue from where you left off."}}));
    let ex = t.extract();
    assert_eq!(ex.last_prompt.unwrap().text, "real one");
    assert_eq!(ex.reply.unwrap().text, "working");
}

#[test]
fn api_request_blob_and_unknown_types_are_ignored() {
    let mut t = T::default();
    t.prompt("the real prompt").say("ok");
    t.push(json!({"type":"api-request-blob","message":{"role":"user","content":"not a prompt"}}));
    t.push(json!({"type":"api-request-shape","system":"x".repeat(100)}));
    t.push(json!({"type":"progress","data":{"type":"hook_progress"}}));
    t.push(json!({"type":"last-prompt","lastPrompt":"the real prompt"}));
    let ex = t.extract();
    assert_eq!(ex.last_prompt.unwrap().text, "the real prompt");
    assert_eq!(ex.bad_lines, 0);
    assert_eq!(ex.records, 6);
}

#[test]
fn segment_scopes_files_and_last_action() {
    let mut t = T::default();
    t.prompt("old work")
        .call(
            "o1",
            "Write",
            json!({"file_path":"/proj/old.rs","content":"x"}),
        )
        .result("o1", "ok", false);
    t.boundary();
    t.prompt("new work")
        .call("n1", "Read", json!({"file_path":"/proj/new.rs"}))
        .result("n1", "text", false);
    let ex = t.extract();
    assert!(ex.files.modified.is_empty());
    assert_eq!(ex.files.read, ["new.rs"]);
    assert_eq!(ex.last_prompt.unwrap().text, "new work");
}

#[test]
fn a_compaction_mid_turn_keeps_the_turns_last_action() {
    // Codex compacts between a tool call and the reply (../shared/codex-samples): the
    // segment after the boundary holds only the reply, and the turn's work is before it.
    let mut t = T::default();
    t.prompt("run a shell command")
        .call("c1", "Bash", json!({"command":"echo PROBE"}))
        .result("c1", "PROBE", false);
    t.boundary();
    t.say("Done.");
    let ex = t.extract();
    assert_eq!(ex.last_prompt.unwrap().text, "run a shell command");
    let last = ex.last_action.unwrap();
    assert_eq!((last.tool.as_str(), last.ok), ("Bash", Some(true)));
}

#[test]
fn prompt_and_tasks_are_found_before_the_boundary() {
    let mut t = T::default();
    t.prompt("a very old prompt");
    t.boundary();
    t.prompt("implement phase 2")
        .call(
            "tw",
            "TodoWrite",
            json!({"todos":[
            {"content":"Design","status":"completed","activeForm":"Designing"},
            {"content":"Build","status":"in_progress","activeForm":"Building"}]}),
        )
        .result("tw", "ok", false)
        .say("Building now.");
    t.boundary();
    // An automatic compaction in the middle of the turn: no prompt, no task write.
    t.say("Still building.")
        .call("b", "Bash", json!({"command":"cargo build"}))
        .result("b", "error[E0425]", true);
    let tr = t.read(ReadOptions::default());
    let ex = tr.extraction();
    assert_eq!(ex.last_prompt.as_ref().unwrap().text, "implement phase 2");
    assert_eq!(
        ex.reply.as_ref().unwrap().text,
        "Building now.\n\nStill building."
    );
    let todos = ex.todos.unwrap();
    assert_eq!(todos.source, TodoSource::TodoWrite);
    assert_eq!(todos.items.len(), 2);
    assert_eq!(todos.items[1].active_form.as_deref(), Some("Building"));
    assert!(ex.files.modified.is_empty());
    let last = ex.last_action.unwrap();
    assert_eq!((last.tool.as_str(), last.ok), ("Bash", Some(false)));
    // The earliest prompt was never needed, so it was never read.
    assert!(
        tr.records
            .iter()
            .all(|r| prompt::prompt_text(r).as_deref() != Some("a very old prompt"))
    );
}

#[test]
fn task_replay_reads_back_to_the_first_task() {
    let mut t = T::default();
    t.prompt("before the tasks")
        .call("w", "Write", json!({"file_path":"/proj/x","content":"x"}));
    t.prompt("plan the work")
        .call("c1", "TaskCreate", json!({"subject":"One","activeForm":"Doing one"}))
        .push(json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"Task #1 created successfully: One"}]},"toolUseResult":{"task":{"id":"1","subject":"One"}}}))
        .call("c2", "TaskCreate", json!({"subject":"Two"}))
        .push(json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c2","content":"Task #2 created successfully: Two"}]},"toolUseResult":{"task":{"id":"2","subject":"Two"}}}));
    t.boundary();
    t.prompt("continue")
        .call("u1", "TaskUpdate", json!({"taskId":"1","status":"completed"}))
        .push(json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"u1","content":"Updated task #1 status"}]},"toolUseResult":{"success":true,"taskId":"1","updatedFields":["status"]}}));
    let tr = t.read(ReadOptions::default());
    let todos = tr.extraction().todos.unwrap();
    assert_eq!(todos.source, TodoSource::Tasks);
    let got: Vec<_> = todos
        .items
        .iter()
        .map(|i| (i.content.as_str(), i.status.as_str()))
        .collect();
    assert_eq!(got, [("One", "completed"), ("Two", "pending")]);
    // Reading stopped at TaskCreate #1: the Write before it was not parsed.
    assert!(!tr.records.iter().any(|r| matches!(&r.entry, Entry::Assistant(a) if a.tool_calls.iter().any(|c| &*c.name == "Write"))));
}

#[test]
fn reading_stops_at_the_boundary_when_nothing_is_missing() {
    let mut t = T::default();
    let filler = "y".repeat(10_000);
    for i in 0..200 {
        t.prompt(&format!("old {i}")).say(&filler);
    }
    t.boundary();
    t.prompt("now")
        .call(
            "tw",
            "TodoWrite",
            json!({"todos":[{"content":"A","status":"pending","activeForm":"A-ing"}]}),
        )
        .say("ok");
    let tr = t.read(ReadOptions::default());
    let (read, size) = tr.bytes_read();
    assert!(read * 50 < size, "read {read} of {size}");
    assert_eq!(tr.extraction().records, 5);
}

#[test]
fn task_search_past_the_boundary_parses_only_task_lines() {
    let mut t = T::default();
    t.prompt("p0").call(
        "tw",
        "TodoWrite",
        json!({"todos":[{"content":"Keep me","status":"in_progress"}]}),
    );
    for i in 0..50 {
        t.say(&format!("chatter {i}"));
    }
    t.boundary();
    t.prompt("p1").say("no task tools here");
    let tr = t.read(ReadOptions::default());
    let ex = tr.extraction();
    assert_eq!(ex.todos.unwrap().items[0].content, "Keep me");
    // Segment (boundary, summary, prompt, reply) + the TodoWrite line only.
    assert_eq!(ex.records, 5);
}

#[test]
fn huge_line_truncated_last_line_and_invalid_utf8() {
    let mut t = T::default();
    let big = "z".repeat(3 * 1024 * 1024 + 123);
    t.prompt("write the big file")
        .call("w", "Write", json!({"file_path":"/proj/big.txt","content":big}))
        .push(json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"w","content":"File created"}]},"toolUseResult":{"type":"create","filePath":"/proj/big.txt","content":big}}))
        .say("Wrote it.");
    let mut bytes = t.bytes();
    // A line with an invalid UTF-8 byte inside a string.
    let mut bad_utf8 = br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"caf"#.to_vec();
    bad_utf8.push(0xE9);
    bad_utf8.extend_from_slice(b" done\"}]}}\n");
    bytes.extend_from_slice(&bad_utf8);
    // The record Claude Code was writing when the hook read the file.
    bytes.extend_from_slice(br#"{"type":"assistant","message":{"role":"assis"#);
    let ex = read_bytes(&bytes, ReadOptions::default()).extraction();
    assert_eq!(ex.bad_lines, 1);
    assert_eq!(ex.files.modified, ["big.txt"]);
    assert_eq!(ex.reply.unwrap().text, "Wrote it.\n\ncaf\u{fffd} done");
}

#[test]
fn garbage_lines_are_counted_not_fatal() {
    let mut t = T::default();
    t.raw("not json at all")
        .raw("[1,2,3]")
        .raw("{\"type\":\"user\",\"message\":");
    t.prompt("after garbage").say("fine");
    let ex = t.extract();
    assert_eq!(ex.bad_lines, 3);
    assert_eq!(ex.last_prompt.unwrap().text, "after garbage");
}

#[test]
fn end_offset_limits_what_is_read() {
    let mut t = T::default();
    t.prompt("first").say("one");
    let cut = t.bytes().len() as u64;
    t.prompt("second").say("two");
    let ex = t
        .read(ReadOptions {
            end: Some(cut),
            ..Default::default()
        })
        .extraction();
    assert_eq!(ex.last_prompt.unwrap().text, "first");
}

#[test]
fn failed_edits_do_not_count_and_files_are_capped() {
    let mut t = T::default();
    t.prompt("many files");
    for i in 0..25 {
        let id = format!("e{i}");
        t.call(&id, "Edit", json!({"file_path":format!("/proj/f{i}.rs")}))
            .result(&id, "ok", false);
    }
    t.call("bad", "Edit", json!({"file_path":"/proj/failed.rs"}))
        .result(
            "bad",
            "<tool_use_error>String not found</tool_use_error>",
            true,
        );
    t.call("r1", "Read", json!({"file_path":"/proj/f24.rs"}))
        .result("r1", "x", false)
        .call("r2", "Read", json!({"file_path":"/proj/readme.md"}))
        .result("r2", "x", false)
        .call("r3", "Read", json!({"file_path":"/proj/readme.md"}))
        .result("r3", "x", false)
        .call(
            "nb",
            "NotebookEdit",
            json!({"notebook_path":"/proj/a.ipynb"}),
        )
        .result("nb", "ok", false);
    let files = t.extract().files;
    assert_eq!(files.modified.len(), 20);
    assert_eq!(files.modified[0], "a.ipynb");
    assert_eq!(files.modified[1], "f24.rs");
    assert!(!files.modified.contains(&"failed.rs".to_string()));
    assert_eq!(files.read, ["readme.md"]);
}

#[test]
fn last_action_without_result_has_unknown_outcome() {
    let mut t = T::default();
    t.prompt("run it")
        .call("g", "Grep", json!({"pattern":"TODO","path":"/proj"}));
    let last = t.extract().last_action.unwrap();
    assert_eq!(last.tool, "Grep");
    assert_eq!(last.summary, "TODO");
    assert_eq!(last.ok, None);
}

#[test]
fn plan_inline_and_from_plan_file() {
    let mut t = T::default();
    t.prompt("plan it")
        .call(
            "p",
            "ExitPlanMode",
            json!({"plan":"# Plan\n1. do a\n2. do b"}),
        )
        .result("p", "User has approved your plan.", false);
    let plan = t.extract().plan.unwrap();
    assert_eq!(plan.source, "ExitPlanMode");
    assert_eq!(plan.text, "# Plan\n1. do a\n2. do b");

    let home = tempfile::tempdir().unwrap();
    let plans = home.path().join("plans");
    std::fs::create_dir(&plans).unwrap();
    std::fs::write(plans.join("calm-fox.md"), "# From file\n- step").unwrap();
    let mut t = T::default();
    t.prompt("plan it").call("p", "ExitPlanMode", json!({}));
    t.push(json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"p","content":"approved"}]},"toolUseResult":{"plan":null,"isAgent":false,"filePath":plans.join("calm-fox.md")}}));
    let opts = ReadOptions {
        plans_dir: Some(plans.clone()),
        ..Default::default()
    };
    assert_eq!(
        t.read(opts).extraction().plan.unwrap().text,
        "# From file\n- step"
    );
    // Outside the plans directory the file is named, not read.
    let outside = t.read(ReadOptions::default()).extraction().plan.unwrap();
    assert!(outside.text.contains("calm-fox.md") && !outside.text.contains("From file"));
}

#[test]
fn task_files_are_authoritative_unless_a_newer_todowrite_exists() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("1.json"),
        r#"{"id":"1","subject":"From file","status":"in_progress","activeForm":"Filing"}"#,
    )
    .unwrap();
    let mut t = T::default();
    t.prompt("x")
        .call("c", "TaskCreate", json!({"subject":"From transcript"}))
        .result("c", "Task #1 created successfully: From transcript", false);
    let opts = ReadOptions {
        tasks_dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    let todos = t.read(opts.clone()).extraction().todos.unwrap();
    assert_eq!(todos.source, TodoSource::Tasks);
    assert_eq!(todos.items[0].content, "From file");

    // A TodoWrite written after the files changed (timestamp in the future) wins.
    let mut t = T::default();
    t.prompt("x");
    t.push(json!({"type":"assistant","timestamp":"2999-01-01T00:00:00Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"tw","name":"TodoWrite","input":{"todos":[{"content":"Newer","status":"pending"}]}}]}}));
    let todos = t.read(opts).extraction().todos.unwrap();
    assert_eq!(todos.source, TodoSource::TodoWrite);
}

#[test]
fn no_task_tool_at_all_gives_null_todos() {
    let mut t = T::default();
    t.prompt("2.1.3xx style").say("no tasks here");
    assert!(t.extract().todos.is_none());
}

#[test]
fn conversation_text_keeps_the_newest_entries() {
    let mut t = T::default();
    t.prompt("first ask").say(&"a".repeat(5_000));
    t.prompt("second ask")
        .call("b", "Bash", json!({"command":"make"}))
        .result("b", &"o".repeat(10_000), false)
        .say("final answer");
    let tr = t.read(ReadOptions::default());
    let text = tr.conversation_text(3_000);
    assert!(text.chars().count() <= 3_000, "{}", text.chars().count());
    assert!(text.contains("User:\nsecond ask"));
    assert!(text.contains("Assistant called Bash: make"));
    assert!(text.contains("characters omitted"));
    assert!(text.ends_with("Assistant:\nfinal answer"));
    // The entries left out are counted, and the user's message among them kept.
    assert!(
        text.starts_with(
            "[… 2 earlier entries omitted; the user's message among them follows, shortened …]\n\nUser:\nfirst ask\n\n"
        ),
        "{text}"
    );
    let all = tr.conversation_text(50_000);
    assert!(all.starts_with("User:\nfirst ask"));
}

/// A session too long even with its old entries cut: the user's messages among those
/// left out are kept, shortened, oldest first; when even those do not fit, the oldest
/// and the newest, with the number between.
#[test]
fn conversation_text_keeps_the_users_earlier_messages() {
    let mut t = T::default();
    for i in 0..40 {
        t.prompt(&format!("request {i}: {}", "why ".repeat(250)))
            .say(&format!("{}END{i}", "reply ".repeat(1_000)));
    }
    let text = t.read(ReadOptions::default()).conversation_text(60_000);
    assert!(text.chars().count() <= 60_000, "{}", text.chars().count());
    assert!(
        text.starts_with("[… ") && text.contains("earlier entries omitted; the user's"),
        "{text}"
    );
    // The first request, shortened (its head and tail), and the newest whole.
    assert!(text.contains("User:\nrequest 0: why why"), "{text}");
    assert!(text.contains("characters omitted"), "{text}");
    assert!(text.ends_with("END39"), "{text}");
    // Every request is there, in order, none twice.
    let at: Vec<usize> = (0..40)
        .filter_map(|i| text.find(&format!("User:\nrequest {i}: ")))
        .collect();
    assert_eq!(at.len(), 40, "{text}");
    assert!(at.windows(2).all(|w| w[0] < w[1]));
    // A tighter budget keeps the oldest and the newest, and counts those between.
    let tight = t.read(ReadOptions::default()).conversation_text(6_000);
    assert!(tight.chars().count() <= 6_000, "{}", tight.chars().count());
    assert!(tight.contains("User:\nrequest 0: "), "{tight}");
    assert!(
        tight.contains("more of the user's messages omitted …]"),
        "{tight}"
    );
    assert!(tight.ends_with("END39"), "{tight}");
}

/// A long segment: before its newest third, what was said is kept and old tool output
/// is cut short, so the early requests and decisions still reach the summariser.
#[test]
fn conversation_text_keeps_what_was_said_over_old_tool_output() {
    let mut t = T::default();
    for i in 0..12 {
        t.prompt(&format!("request {i}: use approach {i}"))
            .call(
                &format!("b{i}"),
                "Bash",
                json!({"command": format!("make step{i}")}),
            )
            .result(
                &format!("b{i}"),
                &format!("{}END{i}", "o".repeat(5_000)),
                false,
            )
            .say(&format!("Decided: approach {i} instead of the old one."));
    }
    let text = t.read(ReadOptions::default()).conversation_text(8_000);
    assert!(text.chars().count() <= 8_000, "{}", text.chars().count());
    // Every request and decision is there, the oldest too.
    for i in 0..12 {
        assert!(
            text.contains(&format!("User:\nrequest {i}: use approach {i}")),
            "{i}"
        );
        assert!(
            text.contains(&format!("Decided: approach {i} instead")),
            "{i}"
        );
        assert!(
            text.contains(&format!("Assistant called Bash: make step{i}")),
            "{i}"
        );
    }
    assert!(!text.contains("earlier entries omitted"), "{text}");
    // The newest output is whole (its 1,200-character cut), the oldest cut short.
    let outputs: Vec<usize> = text
        .split("\n\n")
        .filter(|e| e.starts_with("Tool result:"))
        .map(|e| e.chars().count())
        .collect();
    assert_eq!(outputs.len(), 12);
    assert!(outputs[0] < 300, "{outputs:?}");
    assert!(outputs[11] > 1_000, "{outputs:?}");
    // A segment that fits is given whole, as before.
    let all = t.read(ReadOptions::default()).conversation_text(100_000);
    assert_eq!(
        all.matches("characters omitted").count(),
        12,
        "the 1,200 cut only"
    );
}

#[test]
fn conversation_text_names_the_request_from_before_the_boundary() {
    let mut t = T::default();
    t.prompt("the original request").say("working");
    t.boundary();
    t.say("still working");
    let text = t.read(ReadOptions::default()).conversation_text(10_000);
    assert!(
        text.starts_with("User (request from before the last compaction):\nthe original request")
    );
    assert!(text.ends_with("Assistant:\nstill working"));
    assert!(!text.contains("Assistant:\nworking"));
}

fn checkpoint(bytes: u64, items: &[&str]) -> TaskCheckpoint {
    TaskCheckpoint {
        bytes,
        todos: (!items.is_empty()).then(|| TodoList {
            source: TodoSource::TodoWrite,
            items: items
                .iter()
                .map(|c| TodoItem {
                    content: c.to_string(),
                    status: "pending".into(),
                    active_form: None,
                })
                .collect(),
        }),
    }
}

#[test]
fn a_checkpoint_ends_the_search_for_a_task_list() {
    let mut t = T::default();
    for i in 0..100 {
        t.prompt(&format!("old {i}")).say(&"z".repeat(2_000));
    }
    let at_compaction = t.bytes().len() as u64;
    t.boundary();
    t.prompt("new").say("no task tool in this version");
    // Without a checkpoint the whole file is searched for a task list.
    let full = t.read(ReadOptions::default());
    assert!(full.extraction().todos.is_none());
    assert_eq!(full.bytes_read().0, full.bytes_read().1);
    // With one, reading stops there and its list is the current one.
    let opts = ReadOptions {
        checkpoints: Checkpoints::known(vec![
            checkpoint(at_compaction, &["from the last memory"]),
            checkpoint(10, &["older"]),
        ]),
        ..Default::default()
    };
    let tr = t.read(opts);
    let (read, size) = tr.bytes_read();
    assert!(read < size / 20, "read {read} of {size}");
    let todos = tr.extraction().todos.unwrap();
    assert_eq!(todos.items[0].content, "from the last memory");
    // A checkpoint that recorded "no task list" stops the search as well.
    let tr = t.read(ReadOptions {
        checkpoints: Checkpoints::known(vec![checkpoint(at_compaction, &[])]),
        ..Default::default()
    });
    assert!(tr.bytes_read().0 < size / 20);
    assert!(tr.extraction().todos.is_none());
    // Still being looked up when the read starts: waited for once the segment is read.
    let (coming, tx) = Checkpoints::coming();
    let lookup = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        tx.send(vec![checkpoint(at_compaction, &["looked up beside"])])
    });
    let tr = t.read(ReadOptions {
        checkpoints: coming,
        ..Default::default()
    });
    assert!(lookup.join().unwrap().is_ok());
    assert!(tr.bytes_read().0 < size / 20);
    let todos = tr.extraction().todos.unwrap();
    assert_eq!(todos.items[0].content, "looked up beside");
    // A lookup that failed (its sender gone) is no checkpoint: the file is searched.
    let (coming, tx) = Checkpoints::coming();
    drop(tx);
    let tr = t.read(ReadOptions {
        checkpoints: coming,
        ..Default::default()
    });
    assert_eq!(tr.bytes_read().0, tr.bytes_read().1);
    assert!(tr.extraction().todos.is_none());
}

#[test]
fn a_task_write_after_the_checkpoint_wins() {
    let mut t = T::default();
    t.prompt("old").say("x");
    let at = t.bytes().len() as u64;
    t.boundary();
    t.prompt("new").call(
        "tw",
        "TodoWrite",
        json!({"todos":[{"content":"fresh","status":"pending"}]}),
    );
    let todos = t
        .read(ReadOptions {
            checkpoints: Checkpoints::known(vec![checkpoint(at, &["stale"])]),
            ..Default::default()
        })
        .extraction()
        .todos
        .unwrap();
    assert_eq!(todos.items[0].content, "fresh");
}

#[test]
fn checkpoints_beyond_the_end_are_ignored() {
    let mut t = T::default();
    t.prompt("p").call(
        "tw",
        "TodoWrite",
        json!({"todos":[{"content":"real","status":"pending"}]}),
    );
    let size = t.bytes().len() as u64;
    let todos = t
        .read(ReadOptions {
            checkpoints: Checkpoints::known(vec![checkpoint(size + 100, &["from a longer file"])]),
            ..Default::default()
        })
        .extraction()
        .todos
        .unwrap();
    assert_eq!(todos.items[0].content, "real");
}

#[test]
fn a_rejected_todowrite_changes_nothing() {
    let todos = |items: &[&str]| json!({"todos": items.iter().map(|c| json!({"content":c,"status":"pending","activeForm":c})).collect::<Vec<_>>()});
    let mut t = T::default();
    t.prompt("plan the work")
        .call("w1", "TodoWrite", todos(&["real task"]))
        .result("w1", "Todos have been modified successfully", false)
        .call("w2", "TodoWrite", todos(&["rejected task"]))
        .result(
            "w2",
            "<tool_use_error>Error: No such tool available: TodoWrite. TodoWrite is disabled for this session, in subagents as well as here.</tool_use_error>",
            true,
        );
    let ex = t.extract();
    let items: Vec<_> = ex
        .todos
        .unwrap()
        .items
        .into_iter()
        .map(|i| i.content)
        .collect();
    assert_eq!(items, ["real task"]);

    // Only a rejected write: no task list at all.
    let mut t = T::default();
    t.prompt("plan the work")
        .call("w2", "TodoWrite", todos(&["rejected task"]))
        .result(
            "w2",
            "<tool_use_error>Error: No such tool available: TodoWrite.</tool_use_error>",
            true,
        );
    assert!(t.extract().todos.is_none());

    // Past a boundary too: the search for a task list goes on behind a rejected write,
    // even when the error text does not name the tool.
    let mut t = T::default();
    t.call("w1", "TodoWrite", todos(&["real task"]))
        .result("w1", "Todos have been modified successfully", false)
        .call("w2", "TodoWrite", todos(&["rejected task"]))
        .result("w2", "InputValidationError: bad input", true)
        .prompt("go on")
        .boundary()
        .say("Continuing.");
    let items: Vec<_> = t
        .extract()
        .todos
        .unwrap()
        .items
        .into_iter()
        .map(|i| i.content)
        .collect();
    assert_eq!(items, ["real task"]);
}

/// Issue 12, defect 3: a private key in a long tool output, its BEGIN line far from the
/// part of the tail that is shown, reached the model in pieces; the marker counted the
/// characters of an already-cut text.
#[test]
fn a_key_split_by_the_cut_of_a_long_output_reaches_the_summary_redacted() {
    let line = |i: usize| format!("{:064}", i).replace('0', "Q");
    let key_lines: Vec<String> = (1..=31).map(line).collect();
    let key = format!(
        "-----BEGIN RSA {pk}-----\n{}\n-----END RSA {pk}-----",
        key_lines.join("\n"),
        pk = "PRIVATE KEY"
    );
    let output = format!("{}\n{key}\n{}", "x".repeat(283_000), "y".repeat(100));
    let total = output.chars().count();
    let mut t = T::default();
    t.prompt("show the deploy key")
        .call("c", "Bash", json!({"command":"cat deploy.pem"}))
        .result("c", &output, false)
        .say("done");
    let text = t.read(ReadOptions::default()).conversation_text(20_000);
    for l in &key_lines {
        assert!(!text.contains(l.as_str()), "key line leaked: {text}");
    }
    assert!(!text.contains("-----END RSA"), "{text}");
    assert!(text.contains("[REDACTED:private-key]"), "{text}");
    // The marker counts what the whole output lost, not what a first cut left.
    let omitted: usize = text
        .split("[… ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(
        omitted > total - 1_300 && omitted < total,
        "{omitted} of {total}"
    );
}

#[test]
fn the_title_is_claude_codes_own_for_this_session_only() {
    let mut t = T::default();
    // A resumed file starts with the titles of earlier sessions: not this one's.
    t.raw(r#"{"type":"summary","summary":"An earlier session","leafUuid":"elsewhere"}"#)
        .prompt("add retries to the uploader")
        .say("Done.");
    assert_eq!(t.extract().title, None);
    t.raw(r#"{"type":"summary","summary":"Uploader retry budget","leafUuid":"u2"}"#);
    assert_eq!(t.extract().title.as_deref(), Some("Uploader retry budget"));
    // Newer versions write titles without a leaf: they belong to their file.
    t.raw(r#"{"type":"ai-title","aiTitle":"Retry budget for uploads","sessionId":"sess-1"}"#);
    assert_eq!(
        t.extract().title.as_deref(),
        Some("Retry budget for uploads")
    );
    t.raw(r#"{"type":"custom-title","customTitle":"retries","sessionId":"sess-1"}"#);
    assert_eq!(t.extract().title.as_deref(), Some("retries"));
}

#[test]
fn a_continuation_carries_the_request_it_continues_even_past_the_boundary() {
    let mut t = T::default();
    t.prompt("Implement the retry budget in src/upload.rs")
        .say("Working on it.")
        .prompt("thanks")
        .say("You're welcome.")
        .boundary()
        .prompt("continue")
        .say("Carrying on.");
    let ex = t.extract();
    assert_eq!(ex.last_prompt.unwrap().text, "continue");
    assert_eq!(
        ex.request.unwrap().text,
        "Implement the retry budget in src/upload.rs"
    );
    // A request that names a task needs no other.
    let mut t = T::default();
    t.prompt("continue")
        .say("…")
        .prompt("now add tests for the budget");
    assert!(t.extract().request.is_none());
}

#[test]
fn a_prompt_queued_during_work_is_the_latest_request() {
    let mut t = T::default();
    t.prompt("Implement spotter-gqc")
        .call("b1", "Bash", json!({"command":"mix test"}))
        .raw(r#"{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-29T09:00:00Z","sessionId":"sess-1","content":"new beads were added. tackle them"}"#)
        .raw(r#"{"type":"queue-operation","operation":"remove","timestamp":"2026-01-29T09:00:01Z","sessionId":"sess-1"}"#)
        .result("b1", "ok", false)
        .say("Tackling the new beads.");
    let ex = t.extract();
    assert_eq!(
        ex.last_prompt.unwrap().text,
        "new beads were added. tackle them"
    );
    assert_eq!(ex.reply.unwrap().text, "Tackling the new beads.");
}

#[test]
fn interrupts_and_refusals_are_recorded_as_the_users_stop() {
    let mut t = T::default();
    t.prompt("fix the server start")
        .call("g1", "Glob", json!({"pattern":"mix.exs"}))
        .result(
            "g1",
            "The user doesn't want to proceed with this tool use. The tool use was rejected.",
            true,
        )
        .prompt_raw_interrupt();
    let ex = t.extract();
    let action = ex.last_action.unwrap();
    assert!(action.rejected && action.ok == Some(false));
    assert_eq!(
        ex.stopped,
        Some(Stop::Rejected {
            tool: "Glob".into(),
            summary: "mix.exs".into()
        })
    );
    assert!(ex.reply.unwrap().tool_calls[0].rejected);

    let mut t = T::default();
    t.prompt("search the docs")
        .call("w1", "WebSearch", json!({"query":"xterm scroll"}))
        .result("w1", "results", false)
        .prompt_raw_interrupt();
    assert_eq!(t.extract().stopped, Some(Stop::Interrupted));
    // Work after the interrupt means the turn went on.
    t.say("Resuming as asked.");
    assert_eq!(t.extract().stopped, None);
}

#[test]
fn files_cover_the_whole_turn_are_relative_and_leave_out_claude_codes_own() {
    let mut t = T::default();
    t.prompt("refactor the uploader")
        .call("e1", "Edit", json!({"file_path":"/proj/src/before.rs"}))
        .result("e1", "ok", false)
        .boundary()
        .call("e2", "Edit", json!({"file_path":"/proj/src/after.rs"}))
        .result("e2", "ok", false)
        .call(
            "p1",
            "Write",
            json!({"file_path":"/home/u/.claude/plans/shiny-plan.md","content":"x"}),
        )
        .result("p1", "ok", false)
        .call(
            "o1",
            "Read",
            json!({"file_path":"/tmp/claude-1000/-proj/tasks/b0be39e.output"}),
        )
        .result("o1", "ok", false)
        .call("x1", "Read", json!({"file_path":"/elsewhere/notes.md"}))
        .result("x1", "ok", false);
    let ex = t.extract();
    assert_eq!(ex.files.modified, ["src/after.rs", "src/before.rs"]);
    assert_eq!(ex.files.read, ["/elsewhere/notes.md"]);
    // The last action is still the segment's, as read.
    assert_eq!(ex.last_action.unwrap().summary, "/elsewhere/notes.md");
}

#[test]
fn the_closing_block_is_what_follows_the_last_call_that_did_work() {
    let mut t = T::default();
    t.prompt("add the cache")
        .say("Let me look at the code first.")
        .call("e1", "Edit", json!({"file_path":"/proj/src/cache.rs"}))
        .result("e1", "ok", false)
        .say("The cache is in place.")
        .call("t1", "TodoWrite", json!({"todos":[]}))
        .result("t1", "ok", false)
        .say("Want me to add eviction next?");
    let reply = t.extract().reply.unwrap();
    assert_eq!(
        reply.closing(),
        Some("The cache is in place.\n\nWant me to add eviction next?")
    );
    // A reply that ended on a call was still at work: no closing block.
    t.call("b1", "Bash", json!({"command":"cargo test"}));
    let reply = t.extract().reply.unwrap();
    assert_eq!(reply.closing(), None);
    assert_eq!(reply.last_words(), Some("Want me to add eviction next?"));
}

/// Closing a sub-agent that has answered is bookkeeping: the last action is the wait
/// that brought its answer.
#[test]
fn closing_a_sub_agent_is_not_the_last_action() {
    let mut t = T::default();
    t.prompt("count the lines with a sub-agent")
        .call(
            "s1",
            "multi_agent_v1__spawn_agent",
            json!({"message":"count the lines"}),
        )
        .result("s1", "{\"agent_id\":\"c1\"}", false)
        .call(
            "w1",
            "multi_agent_v1__wait_agent",
            json!({"targets":["c1"]}),
        )
        .result(
            "w1",
            "{\"status\":{\"c1\":{\"completed\":\"3 lines\"}}}",
            false,
        )
        .call("x1", "multi_agent_v1__close_agent", json!({"target":"c1"}))
        .result("x1", "{}", false)
        .say("notes.txt has 3 lines.");
    let ex = t.extract();
    assert_eq!(ex.last_action.unwrap().tool, "multi_agent_v1__wait_agent");
    assert_eq!(ex.reply.unwrap().closing(), Some("notes.txt has 3 lines."));
}

#[test]
fn a_refused_plan_is_not_the_plan() {
    let mut t = T::default();
    t.prompt("plan the migration")
        .call("p1", "ExitPlanMode", json!({"plan":"# Plan A\nmove fast"}))
        .result(
            "p1",
            "The user doesn't want to proceed with this tool use.",
            true,
        )
        .call(
            "p2",
            "ExitPlanMode",
            json!({"plan":"# Plan B\nmove carefully"}),
        )
        .result("p2", "User has approved your plan.", false)
        .call("p3", "ExitPlanMode", json!({"plan":"# Plan C\nrefused"}))
        .result(
            "p3",
            "The user doesn't want to proceed with this tool use.",
            true,
        );
    assert_eq!(t.extract().plan.unwrap().title(), "Plan B");
}

/// Issue 11's guard: the reader decodes what a memory uses, not the bulk of a segment.
/// A 60 MB segment of large tool outputs (Read results and their `toolUseResult` copies,
/// a written file, progress records, one 4 MB line) must cost a small fraction of its
/// size in JSON decoding. A full parse of every record (as the reader once did) decodes
/// it all and fails here; so does any change that makes a skipped value decoded.
#[test]
fn a_large_segment_is_skimmed_not_parsed() {
    // JSON-encoded code: escapes, quotes and non-ASCII text, as tool outputs are.
    let code: String = (0..1_500)
        .map(|i| format!("    let x{i} = \"value {i}\"; // 注释 \\ tab\there\n"))
        .collect();
    let mut t = T::default();
    t.prompt("Refactor the parser and keep the tests green.");
    for i in 0..200 {
        let id = format!("r{i}");
        t.call(
            &id,
            "Read",
            json!({"file_path": format!("/proj/src/m{i}.rs")}),
        );
        t.push(json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":id,"content":code}]},
            "toolUseResult":{"type":"text","file":{"filePath":format!("/proj/src/m{i}.rs"),"content":code,"numLines":1500}}}));
        t.push(json!({"type":"progress","data":{"type":"bash_progress","output":code,"elapsedTimeSeconds":3}}));
        if i % 50 == 0 {
            t.call(
                &format!("w{i}"),
                "Write",
                json!({"file_path":"/proj/src/big.rs","content":code.repeat(8)}),
            );
            t.result(&format!("w{i}"), "File written", false);
        }
    }
    t.call("b1", "Bash", json!({"command":"cargo test"}));
    t.result("b1", &"test result: ok\n".repeat(250_000), false);
    t.call("t1", "TodoWrite", json!({"todos":[{"content":"Refactor the parser","status":"in_progress","activeForm":"Refactoring"}]}));
    t.say("The parser is refactored; the tests pass.");
    let bytes = t.bytes();
    assert!(bytes.len() > 50_000_000, "{} bytes", bytes.len());
    for heads_only in [true, false] {
        let tr = Transcript::from_bytes(
            &bytes,
            ReadOptions {
                redact: true,
                output_heads_only: heads_only,
                ..ReadOptions::default()
            },
        )
        .unwrap();
        let ex = tr.extraction();
        assert_eq!(tr.bytes_read().0, bytes.len() as u64);
        assert_eq!(ex.todos.as_ref().map(|t| t.items.len()), Some(1));
        assert_eq!(ex.files.modified, vec!["src/big.rs".to_string()]);
        assert!(ex.files.read.contains(&"src/m199.rs".to_string()));
        let decoded = tr.json_bytes_decoded();
        // With whole outputs, the head and tail a summary can show of each (10 KB of
        // each 75 KB output here) are decoded too.
        let limit = bytes.len() as u64 / if heads_only { 100 } else { 10 };
        assert!(
            decoded < limit,
            "decoded {decoded} of {} bytes as JSON (limit {limit}, heads only: {heads_only})",
            bytes.len()
        );
    }
}

#[test]
fn the_last_action_is_the_last_call_that_did_work_not_a_task_update() {
    let mut t = T::default();
    t.prompt("Run the tests");
    t.call("b", "Bash", json!({"command":"cargo test"}));
    t.result("b", "test result: ok", false);
    t.call(
        "td",
        "TodoWrite",
        json!({"todos":[{"content":"Run the tests","status":"completed","activeForm":"Running"}]}),
    );
    t.result("td", "Todos have been modified successfully.", false);
    let a = t.extract().last_action.unwrap();
    assert_eq!(
        (a.tool.as_str(), a.summary.as_str(), a.ok),
        ("Bash", "cargo test", Some(true))
    );
    // With only bookkeeping, that is the last action.
    let mut t = T::default();
    t.prompt("Plan the work");
    t.call("td", "TodoWrite", json!({"todos":[]}));
    assert_eq!(t.extract().last_action.unwrap().tool, "TodoWrite");
}

/// Issue 25, defect 4: the cap was per text block, so one long autonomous turn of
/// hundreds of texts made a memory larger than the tools read. The reply as a whole
/// keeps its head and tail, says what it left out, and its closing words survive.
#[test]
fn a_long_reply_is_cut_as_a_whole_and_keeps_its_closing_words() {
    let mut t = T::default();
    t.prompt("Refactor every module");
    for i in 0..300 {
        t.say(&format!(
            "Block {i}: {}",
            "more and more refactoring. ".repeat(1_000)
        ));
        t.call(&format!("c{i}"), "Edit", json!({"file_path": "/proj/a.rs"}));
        t.result(&format!("c{i}"), "ok", false);
    }
    t.say("All modules refactored; the tests pass.");
    let reply = t.extract().reply.unwrap();
    let chars = reply.text.chars().count();
    assert!(chars <= 32_200, "{chars} characters");
    assert!(reply.text.starts_with("Block 0: "), "{}", &reply.text[..40]);
    assert!(reply.text.contains("characters of this reply omitted"));
    assert_eq!(
        reply.closing(),
        Some("All modules refactored; the tests pass.")
    );
    assert_eq!(reply.tool_calls.len(), 300);
    // A closing block that began in what was left out starts where the tail does.
    let mut t = T::default();
    t.prompt("Write the report");
    t.call("c", "Edit", json!({"file_path": "/proj/a.rs"}));
    t.result("c", "ok", false);
    for i in 0..100 {
        t.say(&format!("Part {i}: {}", "the report goes on. ".repeat(100)));
    }
    let reply = t.extract().reply.unwrap();
    let closing = reply.closing().unwrap();
    assert!(
        closing.starts_with("the report goes on") || closing.starts_with("Part "),
        "{}",
        &closing[..40]
    );
    assert!(reply.text.ends_with(closing));
}

/// A plan of megabytes keeps its head and tail, like a prompt.
#[test]
fn a_huge_plan_is_kept_head_and_tail() {
    let mut t = T::default();
    t.prompt("plan it");
    let plan = format!("# Big plan\n{}", "step\n".repeat(200_000));
    t.call("p", "ExitPlanMode", json!({"plan": plan}));
    t.result("p", "ok", false);
    let ex = t.extract();
    let text = ex.plan.unwrap().text;
    assert!(text.chars().count() < 33_000, "{}", text.chars().count());
    assert!(text.starts_with("# Big plan") && text.contains("characters omitted"));
}

/// Issue 25, defect 17: a turn of hundreds of thousands of calls keeps the last
/// `MAX_REPLY_CALLS` and the failed ones, and counts the rest.
#[test]
fn a_reply_keeps_its_last_calls_and_its_failures_and_counts_the_rest() {
    let mut t = T::default();
    t.prompt("check everything");
    for i in 0..3_000 {
        let id = format!("c{i}");
        t.call(&id, "Bash", json!({"command": format!("check {i}")}));
        t.result(&id, "ok", i == 7);
    }
    let reply = t.extract().reply.unwrap();
    assert_eq!(reply.calls_total(), 3_000);
    assert_eq!(reply.tool_calls.len(), extract::MAX_REPLY_CALLS + 1);
    assert_eq!(reply.tool_calls[0].summary, "check 7");
    assert!(reply.tool_calls[0].failed);
    assert_eq!(reply.tool_calls.last().unwrap().summary, "check 2999");
}

/// A sub-agent's own transcript (`agent-<id>.jsonl`), read by hand, is a session of its
/// own: its sidechain records are its main chain and its id names it. Any other file
/// keeps sidechain records out of the extraction.
#[test]
fn a_sub_agent_transcript_read_by_hand_is_a_session_of_its_own() {
    let mut t = T::default();
    t.push(json!({"type":"user","isSidechain":true,"agentId":"a881341","message":{"role":"user","content":"Find the hook output contract"}}));
    t.push(json!({"type":"assistant","isSidechain":true,"message":{"id":"m9","role":"assistant","content":[{"type":"text","text":"It is additionalContext."}]}}));
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("agent-a881341.jsonl");
    std::fs::write(&agent, t.bytes()).unwrap();
    let read = Transcript::read(&agent, ReadOptions::default()).unwrap();
    assert_eq!(read.session_id().as_deref(), Some("agent-a881341"));
    let ex = read.extraction();
    assert_eq!(
        ex.last_prompt.unwrap().text,
        "Find the hook output contract"
    );
    assert_eq!(ex.reply.unwrap().text, "It is additionalContext.");

    let session = dir.path().join("sess-1.jsonl");
    std::fs::write(&session, t.bytes()).unwrap();
    let read = Transcript::read(&session, ReadOptions::default()).unwrap();
    assert_eq!(
        read.session_id(),
        None,
        "no main-chain record names a session"
    );
    assert!(read.extraction().last_prompt.is_none());
    for not_agent in ["agent-.jsonl", "agent-a b.jsonl", "agent-x.json"] {
        assert_eq!(sub_agent_id(Path::new(not_agent)), None, "{not_agent}");
    }
}

#[test]
fn paths_are_shown_relative_to_the_project_when_the_session_went_into_a_subdirectory() {
    let mut t = T::default();
    t.prompt("Fix the frontend tests and the README");
    let in_frontend = |t: &mut T, v: serde_json::Value| {
        let mut v = v;
        v["cwd"] = json!("/proj/frontend");
        t.push(v);
    };
    in_frontend(
        &mut t,
        json!({"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"e1","name":"Edit","input":{"file_path":"/proj/frontend/app.test.js","old_string":"a","new_string":"b"}}]}}),
    );
    in_frontend(
        &mut t,
        json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"e1","content":"ok"}]}}),
    );
    in_frontend(
        &mut t,
        json!({"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"e2","name":"Edit","input":{"file_path":"/proj/README.md","old_string":"a","new_string":"b"}}]}}),
    );
    in_frontend(
        &mut t,
        json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"e2","content":"ok"}]}}),
    );
    // Relative to the session's directory, a file of the project's root is absolute
    // and one of the subdirectory looks like the root's.
    let alone = t.extract();
    assert_eq!(alone.files.modified, vec!["/proj/README.md", "app.test.js"]);
    let mut tr = t.read(ReadOptions::default());
    tr.in_project(Path::new("/proj"));
    let ex = tr.extraction();
    assert_eq!(ex.files.modified, vec!["README.md", "frontend/app.test.js"]);
    assert_eq!(
        ex.cwd.as_deref(),
        Some("/proj/frontend"),
        "the cwd is still said"
    );
    // A project the session's directory is not in changes nothing.
    let mut other = t.read(ReadOptions::default());
    other.in_project(Path::new("/elsewhere"));
    assert_eq!(other.extraction().files.modified, alone.files.modified);
}

#[test]
fn claude_codes_and_codexs_own_files_are_scratch_in_either_slash() {
    for path in [
        "/home/dev/.claude/plans/cozy-plan.md",
        "C:\\Users\\dev\\.claude\\plans\\cozy-plan.md",
        "/home/dev/.codex/sessions/2026/11/rollout-1.jsonl",
        "/tmp/claude-1000/-p/tasks/b1.output",
    ] {
        assert!(extract::is_scratch(path), "{path}");
    }
    for path in [
        "/home/dev/shop/src/main.rs",
        "/home/dev/shop/.claudeignore",
        "/home/dev/shop/build/tasks/run.output",
        "C:\\shop\\src\\lib.rs",
    ] {
        assert!(!extract::is_scratch(path), "{path}");
    }
}

/// Lines of a turn whose closing reply follows the first prompt's own records, with a
/// queued prompt delivered on a side branch and interrupted in between (as Claude Code
/// 2.1.15 wrote one); `reply_parent` is the `parentUuid` of that closing reply.
fn side_branch_lines(reply_parent: &str) -> Vec<u8> {
    let line = |v: serde_json::Value| format!("{v}\n");
    [
        line(json!({"type":"user","uuid":"p1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"why won't you run it?"}})),
        line(json!({"type":"assistant","uuid":"a1","parentUuid":"p1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"You're right, let me run it."}]}})),
        line(json!({"type":"queue-operation","operation":"enqueue","sessionId":"s","content":"are they still being written?"})),
        line(json!({"type":"user","uuid":"q1","parentUuid":"old","sessionId":"s","message":{"role":"user","content":"are they still being written?"}})),
        line(json!({"type":"user","uuid":"q2","parentUuid":"q1","sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}})),
        line(json!({"type":"assistant","uuid":"a2","parentUuid":reply_parent,"sessionId":"s","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Done! Published."}]}})),
    ]
    .concat()
    .into_bytes()
}

#[test]
fn a_prompt_on_a_side_branch_is_not_the_last_request() {
    let ex = read_bytes(&side_branch_lines("a1"), ReadOptions::default()).extraction();
    assert_eq!(ex.last_prompt.unwrap().text, "why won't you run it?");
    let reply = ex.reply.unwrap();
    assert!(reply.text.ends_with("Done! Published."), "{}", reply.text);
    // When the thread cannot be followed back to a prompt (a parent not among the
    // records kept), the last prompt in the file stands.
    let ex = read_bytes(&side_branch_lines("gone"), ReadOptions::default()).extraction();
    assert_eq!(
        ex.last_prompt.unwrap().text,
        "are they still being written?"
    );
}
