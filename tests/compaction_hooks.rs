//! The three hooks of one compaction, as Claude Code runs them (PreCompact, then
//! SessionStart with source "compact", then PostCompact), with the real binary: the
//! steering text, the restore context, Claude Code's summary added to the memory, the
//! note about what it dropped, and backfill when PreCompact did not fire.

mod support;

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
    assert!(
        stdout.starts_with("memory-stalker saved a structured memory of this session"),
        "{stdout}"
    );
    assert!(stdout.contains("- [x] Add RetryBudget type"));
    assert!(stdout.contains("- [ ] (in progress) Add tests for retries and the budget"));
    assert!(stdout.contains("- [ ] Document the retry behaviour in README"));
    assert!(stdout.contains("\"Good. Treat 429 as retryable but honour Retry-After"));
    assert!(
        stdout.contains(&format!(".claude/memories/{memory}")),
        "{stdout}"
    );
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
    assert!(context.contains("The assistant's last words before compaction"));
    assert!(context.contains("Remaining: the README section on retries"));
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
    // The summary mentions the in-progress task but drops the pending one and the request.
    assert!(
        stdout.starts_with("memory-stalker: the compaction summary leaves out"),
        "{stdout}"
    );
    assert!(stdout.contains("Document the retry behaviour in README"));
    assert!(!stdout.contains("Add tests for retries"), "{stdout}");
    assert!(stdout.contains("last request"));
    // Running PostCompact again replaces the section, it does not add a second one.
    post_compact(&s, &transcript, "<summary>Second version</summary>");
    let memory = fs::read_to_string(&memory_path).unwrap();
    assert_eq!(
        memory.matches("## Claude Code compaction summary").count(),
        1
    );
    assert!(memory.contains("Second version"));
    // list-memories reads the section.
    assert!(memory.contains("## AI summary"));
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
    more.push_str(&json!({"type":"user","sessionId":SID,"message":{"role":"user","content":"Now add a --dry-run flag"},"uuid":"later-1","timestamp":"2026-11-20T15:00:00Z"}).to_string());
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
