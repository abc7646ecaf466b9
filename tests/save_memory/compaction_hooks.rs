//! The three hooks of one compaction, as Claude Code runs them (PreCompact, then
//! SessionStart with source "compact", then PostCompact), with the real binary: the
//! steering text, the restore context, Claude Code's summary added to the memory, the
//! note about what it dropped, and backfill when PreCompact did not fire.

use crate::support;

use std::fs;
use std::path::Path;

use serde_json::{Value, json};
use support::{Sandbox, sample_transcript, text};

const BIN: &str = env!("CARGO_BIN_EXE_save-memory");
const SID: &str = "7c630e3a-5b1d-4c2e-9f47-2d8a61b0c9e5";

fn sandbox() -> Sandbox {
    let mut s = Sandbox::new();
    s.set("MEMORY_STALKER_SUMMARIZER", "offline");
    s
}

fn hook(s: &Sandbox, input: Value) -> (String, String) {
    let out = s.run(BIN, &[], input.to_string().as_bytes());
    assert_eq!(out.status.code(), Some(0));
    text(&out)
}

fn session_start(s: &Sandbox, transcript: &Path) -> (String, String) {
    hook(
        s,
        json!({"session_id": SID, "transcript_path": transcript, "cwd": s.project(), "prompt_id": "prompt-1", "hook_event_name": "SessionStart", "source": "compact", "model": "claude-opus-4-8"}),
    )
}

fn post_compact(s: &Sandbox, transcript: &Path, summary: &str) -> (String, String) {
    hook(
        s,
        json!({"session_id": SID, "transcript_path": transcript, "cwd": s.project(), "prompt_id": "prompt-1", "hook_event_name": "PostCompact", "trigger": "manual", "compact_summary": summary}),
    )
}

/// The UserPromptSubmit / PostToolUse hook: hands over a note PostCompact left.
fn hand_over(s: &Sandbox, event: &str) -> String {
    let input = json!({"session_id": SID, "cwd": s.project(), "hook_event_name": event, "prompt": "go on", "tool_name": "Bash", "tool_response": {"stdout": "x".repeat(100_000)}});
    let out = s.run(BIN, &["hand-over-note"], input.to_string().as_bytes());
    assert_eq!(out.status.code(), Some(0));
    let (stdout, stderr) = text(&out);
    assert_eq!(stderr, "");
    stdout
}

/// What Claude Code's summariser writes: analysis, then the summary.
const CLAUDE_SUMMARY: &str = "<analysis>\nThe user wants retries. SECRET-ANALYSIS\n</analysis>\n\n<summary>\n1. Primary Request and Intent:\n   The user asked for a retry budget in the uploader.\n2. Pending Tasks:\n   - Add tests for retries and the budget (in progress)\n</summary>";

#[test]
fn pre_compact_steers_claude_codes_summary() {
    let s = sandbox();
    let transcript = s.install_transcript(&sample_transcript(), SID);
    let out = s.run(
        BIN,
        &[],
        s.pre_compact_input(&transcript, SID, "manual", None)
            .as_bytes(),
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let memory = s.memory_files().pop().unwrap();
    assert!(stdout.chars().count() <= 1_500);
    // Claude Code shows this on the user's screen too: one line, only what changes the
    // summary.
    insta::assert_snapshot!(stdout.replace(&memory, "<memory>"), @r#"memory-stalker: keep verbatim the task list ([x] Add RetryBudget type; [x] Retry failed chunks with exponential backoff; [ ] Add tests for retries and the budget (in progress); [ ] Document the retry behaviour in README) and the user's last request ("Good. Treat 429 as retryable but honour Retry-After, and don't count it against the budget. Always use `thiserror` for the new error variants."); the session is saved in .claude/memories/<memory>."#);
    // JSON would be pasted verbatim into the summary prompt: this is plain text.
    assert!(!stdout.trim_start().starts_with('{'));
}

#[test]
fn steering_can_be_switched_off() {
    let mut s = sandbox();
    s.set("MEMORY_STALKER_STEER", "0");
    let transcript = s.install_transcript(&sample_transcript(), SID);
    let out = s.run(
        BIN,
        &[],
        s.pre_compact_input(&transcript, SID, "auto", None)
            .as_bytes(),
    );
    assert_eq!(text(&out).0, "");
    assert_eq!(s.memory_files().len(), 1);
}

#[test]
fn one_compaction_pre_then_session_start_then_post() {
    let s = sandbox();
    let transcript = s.install_transcript(&sample_transcript(), SID);
    s.run(
        BIN,
        &[],
        s.pre_compact_input(&transcript, SID, "manual", Some("keep the API notes"))
            .as_bytes(),
    );
    let memory_name = s.memory_files().pop().unwrap();
    let memory_path = s.memories().join(&memory_name);

    let (stdout, _) = session_start(&s, &transcript);
    let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    let context = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(context.chars().count() <= 8_000);
    assert!(
        context.contains(&format!("Memory file: .claude/memories/{memory_name}")),
        "{context}"
    );
    assert!(context.contains("Treat 429 as retryable"));
    assert!(context.contains("(2 of 4 open)"));
    assert!(context.contains("- [ ] (in progress) Add tests for retries and the budget"));
    assert!(context.contains(&format!("`list-memories show {memory_name}`")));
    assert!(context.contains("The assistant's closing words before compaction"));
    assert!(context.contains("Remaining: the README section on retries"));
    // The whole restore as the model reads it (the memory's name changes each run).
    insta::assert_snapshot!(
        "restore_context_sample",
        context.replace(memory_name.as_str(), "<memory>.md")
    );
    assert_eq!(
        s.memory_files().len(),
        1,
        "no backfill: PreCompact saved this compaction's memory"
    );

    let (stdout, stderr) = post_compact(&s, &transcript, CLAUDE_SUMMARY);
    assert_eq!(s.memory_files().len(), 1, "{stderr}");
    let memory = fs::read_to_string(&memory_path).unwrap();
    assert!(memory.contains("## Claude Code compaction summary"));
    assert!(memory.contains("The user asked for a retry budget in the uploader."));
    assert!(
        !memory.contains("SECRET-ANALYSIS"),
        "the <analysis> part is not kept"
    );
    assert!(!memory.contains("<summary>"));
    // Nothing on stdout (the /compact screen stays quiet); the note of what the summary
    // dropped waits for the next prompt or tool call, which hands it to the model once.
    assert_eq!(stdout, "");
    let note = hand_over(&s, "UserPromptSubmit");
    let v: Value = serde_json::from_str(&note).unwrap_or_else(|e| panic!("{e}: {note}"));
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
    let note = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    // The summary mentions the in-progress task but drops the pending one and the request.
    assert!(
        note.starts_with("memory-stalker: the compaction summary leaves out"),
        "{note}"
    );
    assert!(note.contains("Document the retry behaviour in README"));
    assert!(!note.contains("Add tests for retries"), "{note}");
    assert!(note.contains("last request"));
    // The whole note as the model reads it.
    insta::assert_snapshot!(
        "dropped_facts_note_sample",
        note.replace(memory_name.as_str(), "<memory>.md")
    );
    assert_eq!(hand_over(&s, "PostToolUse"), "", "handed over once");
    assert_eq!(
        memory.matches("## Claude Code compaction summary").count(),
        1
    );
    assert!(memory.contains("## AI summary"));
    // A second compaction whose PreCompact did not fire: its hooks do not reuse the
    // memory the first compaction's hooks used; they save one of their own.
    let (_, stderr) = session_start(&s, &transcript);
    assert!(stderr.contains("PreCompact did not run"), "{stderr}");
    post_compact(&s, &transcript, "<summary>Second version</summary>");
    assert_eq!(s.memory_files().len(), 2);
    assert!(
        !fs::read_to_string(&memory_path)
            .unwrap()
            .contains("Second version")
    );
}

#[test]
fn a_summary_that_keeps_everything_gets_no_note() {
    let s = sandbox();
    let transcript = s.install_transcript(&sample_transcript(), SID);
    s.run(
        BIN,
        &[],
        s.pre_compact_input(&transcript, SID, "manual", None)
            .as_bytes(),
    );
    let complete = "<summary>The user said: Good. Treat 429 as retryable but honour Retry-After, and don't count it against the budget. Always use `thiserror` for the new error variants.\nTasks: Add tests for retries and the budget (in progress); Document the retry behaviour in README (pending).</summary>";
    let (stdout, _) = post_compact(&s, &transcript, complete);
    assert_eq!(stdout, "");
    assert_eq!(hand_over(&s, "UserPromptSubmit"), "");
}

#[test]
fn records_written_after_pre_compact_do_not_cause_a_second_memory() {
    let s = sandbox();
    let transcript = s.install_transcript(&sample_transcript(), SID);
    s.run(
        BIN,
        &[],
        s.pre_compact_input(&transcript, SID, "auto", None)
            .as_bytes(),
    );
    assert_eq!(s.memory_files().len(), 1);
    // Claude Code completes the segment after PreCompact returned: a background Bash
    // result, an attachment and a system record (seen in real automatic compactions).
    let mut more = fs::read_to_string(&transcript).unwrap();
    // Claude Code writes the transcript behind its agent loop: even the model's next
    // tool call can land after PreCompact read the file, stamped before it.
    let before = (chrono::Utc::now() - chrono::Duration::seconds(3)).to_rfc3339();
    for record in [
        json!({"type":"assistant","sessionId":SID,"timestamp":before,"message":{"id":"m-late","role":"assistant","model":"claude-opus-4-8","content":[{"type":"tool_use","id":"toolu_late","name":"Bash","input":{"command":"echo two"}}]},"uuid":"late-0"}),
        json!({"type":"user","sessionId":SID,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_bg","content":"succeeded"}]},"toolUseResult":{"stdout":"succeeded"},"uuid":"late-1"}),
        json!({"type":"attachment","sessionId":SID,"attachment":{"type":"hook_success","content":""},"uuid":"late-2"}),
        json!({"type":"system","subtype":"turn_duration","sessionId":SID,"durationMs":5,"uuid":"late-3"}),
    ] {
        more.push_str(&record.to_string());
        more.push('\n');
    }
    fs::write(&transcript, more).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let (stdout, stderr) = session_start(&s, &transcript);
    assert!(!stderr.contains("PreCompact did not run"), "{stderr}");
    let (_, stderr) = hook(
        &s,
        json!({"session_id": SID, "transcript_path": transcript, "cwd": s.project(), "hook_event_name": "PostCompact", "trigger": "auto", "compact_summary": CLAUDE_SUMMARY}),
    );
    assert!(!stderr.contains("PreCompact did not run"), "{stderr}");
    let files = s.memory_files();
    assert_eq!(files.len(), 1, "one compaction, one memory: {files:?}");
    assert!(
        stdout.contains(&format!(".claude/memories/{}", files[0])),
        "{stdout}"
    );
}

#[test]
fn post_compact_backfills_when_pre_compact_did_not_fire() {
    let s = sandbox();
    let transcript = s.install_transcript(&sample_transcript(), SID);
    let (_, stderr) = post_compact(&s, &transcript, CLAUDE_SUMMARY);
    assert!(stderr.contains("PreCompact did not run"), "{stderr}");
    let files = s.memory_files();
    assert_eq!(files.len(), 1);
    let memory = fs::read_to_string(s.memories().join(&files[0])).unwrap();
    assert!(memory.contains("- [ ] **in progress**: Add tests for retries and the budget"));
    assert!(memory.contains("The user asked for a retry budget in the uploader."));
}

#[test]
fn session_start_backfills_too_and_post_compact_then_finds_it() {
    let s = sandbox();
    let transcript = s.install_transcript(&sample_transcript(), SID);
    let (stdout, _) = session_start(&s, &transcript);
    assert!(stdout.contains("additionalContext"));
    assert_eq!(s.memory_files().len(), 1);
    post_compact(&s, &transcript, CLAUDE_SUMMARY);
    assert_eq!(
        s.memory_files().len(),
        1,
        "the backfilled memory is this compaction's"
    );
    // SessionStart could not know the trigger; PostCompact's goes everywhere it is said.
    let memory = fs::read_to_string(s.memories().join(&s.memory_files()[0])).unwrap();
    assert!(memory.contains("trigger: \"manual\""), "{memory}");
    assert!(memory.contains("- Trigger: manual\n"), "{memory}");
    assert!(!memory.contains("unknown"), "{memory}");
}

#[test]
fn a_memory_of_an_earlier_compaction_is_not_reused() {
    let s = sandbox();
    let transcript = s.install_transcript(&sample_transcript(), SID);
    s.run(
        BIN,
        &[],
        s.pre_compact_input(&transcript, SID, "auto", None)
            .as_bytes(),
    );
    // The conversation went on after that compaction, then compacted again without a
    // PreCompact hook.
    let mut more = fs::read_to_string(&transcript).unwrap();
    let typed = (chrono::Utc::now() + chrono::Duration::seconds(2)).to_rfc3339();
    more.push_str(&json!({"type":"user","sessionId":SID,"message":{"role":"user","content":"Now add a --dry-run flag"},"uuid":"later-1","timestamp":typed}).to_string());
    more.push('\n');
    fs::write(&transcript, more).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let (stdout, _) = session_start(&s, &transcript);
    assert_eq!(
        s.memory_files().len(),
        2,
        "a new memory for the new compaction"
    );
    assert!(stdout.contains("Now add a --dry-run flag"), "{stdout}");
}

#[test]
fn restore_can_be_switched_off_and_other_sources_do_nothing() {
    let mut s = sandbox();
    let transcript = s.install_transcript(&sample_transcript(), SID);
    for source in ["startup", "resume", "clear"] {
        let (stdout, _) = hook(
            &s,
            json!({"session_id": SID, "transcript_path": transcript, "cwd": s.project(), "hook_event_name": "SessionStart", "source": source}),
        );
        assert_eq!(stdout, "", "{source}");
    }
    assert!(s.memory_files().is_empty());
    s.set("MEMORY_STALKER_RESTORE", "0");
    let (stdout, _) = session_start(&s, &transcript);
    assert_eq!(stdout, "");
}

/// What the user asked for early must survive every later compaction: the second
/// memory carries the first one's standing instructions, decisions, failed approaches
/// and files, and the restore after the second compaction names them.
#[test]
fn lasting_facts_are_carried_from_one_compaction_to_the_next() {
    let s = sandbox();
    let project = s.project();
    let mut n = 0;
    let mut line = |v: Value| {
        n += 1;
        let mut v = v;
        let o = v.as_object_mut().unwrap();
        o.insert("uuid".into(), json!(format!("u{n}")));
        o.insert("sessionId".into(), json!(SID));
        o.insert("cwd".into(), json!(project));
        o.insert(
            "timestamp".into(),
            json!(format!("2026-01-29T08:{:02}:00.000Z", n)),
        );
        format!("{v}\n")
    };
    let user = |t: &str| json!({"type":"user","message":{"role":"user","content":t}});
    let say = |t: &str| json!({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":t}]}});
    let edit = |id: &str, path: &str| json!({"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":id,"name":"Edit","input":{"file_path":path}}]}});
    let ok = |id: &str| json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":id,"content":"ok"}]},"toolUseResult":{"ok":true}});
    let mut first = String::new();
    for v in [
        user("Fix the invoice rounding, and never touch the public API in src/api.rs."),
        say("I chose round-half-even rounding because the tax office reconciles VAT that way."),
        edit(
            "e1",
            &format!("{}/src/billing/rounding.rs", project.display()),
        ),
        ok("e1"),
        say("The libfaketime approach failed: it cannot preload into static binaries."),
    ] {
        first.push_str(&line(v));
    }
    let src = s.project().join("first.jsonl");
    fs::write(&src, &first).unwrap();
    let transcript = s.install_transcript(&src, SID);
    s.run(
        BIN,
        &[],
        s.pre_compact_input(&transcript, SID, "auto", None)
            .as_bytes(),
    );

    let mut second = first.clone();
    for v in [
        json!({"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}),
        user("Next, add rate limiting to the upload endpoint."),
        edit("e2", &format!("{}/src/upload/limit.rs", project.display())),
        ok("e2"),
        say("Rate limiting is in place."),
    ] {
        second.push_str(&line(v));
    }
    fs::write(&transcript, &second).unwrap();
    s.run(
        BIN,
        &[],
        s.pre_compact_input(&transcript, SID, "auto", None)
            .as_bytes(),
    );
    let mut files = s.memory_files();
    // Newest last: a later second sorts later, and in the same second `_2` follows.
    files.sort_by_key(|f| (f[..15].to_string(), f.len()));
    assert_eq!(files.len(), 2, "{files:?}");
    let newest = fs::read_to_string(s.memories().join(&files[1])).unwrap();
    let lasting = &newest[newest.find("## Session so far").expect("section")..];
    assert!(
        lasting.contains("never touch the public API in src/api.rs"),
        "{lasting}"
    );
    assert!(lasting.contains("round-half-even rounding because the tax office"));
    assert!(lasting.contains("The libfaketime approach failed"));
    assert!(lasting.contains("- `src/billing/rounding.rs`"));

    let (stdout, _) = session_start(&s, &transcript);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let context = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.contains("never touch the public API in src/api.rs"),
        "{context}"
    );
    assert!(context.contains("Files changed before the compaction: src/upload/limit.rs; earlier in the session: src/billing/rounding.rs."), "{context}");
}

/// Claude Code writes its transcript in batches: at an automatic compaction the turn's
/// last records can land after PreCompact started. A transcript written moments ago is
/// read only once it has been quiet for a while, so the memory has them.
#[test]
fn pre_compact_waits_for_a_transcript_still_being_written() {
    let s = sandbox();
    let transcript = s.install_transcript(&sample_transcript(), SID);
    let late = json!({"type":"user","uuid":"late-1","sessionId":SID,"cwd":s.project(),"timestamp":"2026-11-20T14:30:00.000Z","message":{"role":"user","content":"Also document the retry budget in docs/retries.md."}});
    // Written just now: the hook sees a file in the middle of being written.
    fs::write(&transcript, fs::read(sample_transcript()).unwrap()).unwrap();
    let out = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(100));
            let mut f = fs::OpenOptions::new()
                .append(true)
                .open(&transcript)
                .unwrap();
            std::io::Write::write_all(&mut f, format!("{late}\n").as_bytes()).unwrap();
        });
        s.run(
            BIN,
            &[],
            s.pre_compact_input(&transcript, SID, "auto", None)
                .as_bytes(),
        )
    });
    assert_eq!(out.status.code(), Some(0));
    let memory = fs::read_to_string(s.memories().join(&s.memory_files()[0])).unwrap();
    let interaction = &memory[memory.find("### User input").unwrap()..];
    assert!(
        interaction.contains("Also document the retry budget in docs/retries.md."),
        "{}",
        &interaction[..300]
    );
}

/// A segment whose texts take long to read for rules (here 5,000 prompts, each typing
/// two): past `MEMORY_STALKER_FACTS_BUDGET` the memory is saved without them, and the
/// log says so, rather than the hook giving up at its timeout with no memory at all.
#[test]
fn facts_found_too_late_are_left_out_and_the_memory_is_saved() {
    let lines: Vec<String> = (0..5_000)
        .flat_map(|k| {
            let prompt = format!(
                "Please rename module{k} to widget{k} instead of keeping the old name. Never touch the generated file gen{k}.rs in this repo."
            );
            [
                json!({"type": "user", "uuid": format!("u{k}"), "sessionId": SID, "cwd": "/p", "timestamp": "2026-11-20T10:00:00.000Z", "message": {"role": "user", "content": prompt}}),
                json!({"type": "assistant", "uuid": format!("a{k}"), "sessionId": SID, "cwd": "/p", "timestamp": "2026-11-20T10:00:01.000Z", "message": {"id": format!("m{k}"), "role": "assistant", "content": [{"type": "text", "text": format!("Renamed module{k}.")}]}}),
            ]
        })
        .map(|v| v.to_string())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.jsonl");
    fs::write(&file, lines.join("\n") + "\n").unwrap();

    for (budget, rules_kept) in [("0.001", false), ("30", true)] {
        let mut s = sandbox();
        s.set("MEMORY_STALKER_FACTS_BUDGET", budget);
        let transcript = s.install_transcript(&file, SID);
        let out = s.run(
            BIN,
            &[],
            s.pre_compact_input(&transcript, SID, "auto", None)
                .as_bytes(),
        );
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        let name = s.memory_files().pop().expect("a memory");
        let memory = fs::read_to_string(s.memories().join(name)).unwrap();
        assert!(
            memory.contains("Renamed module4999."),
            "the extraction is whole"
        );
        let late = stderr.contains("the memory is saved without them");
        assert_eq!(late, !rules_kept, "budget {budget}: {stderr}");
        // The last prompt is in the memory either way; the rule typed before it only
        // among the standing instructions.
        assert_eq!(
            memory.contains("Never touch the generated file gen4998.rs"),
            rules_kept,
            "budget {budget}"
        );
    }
}
