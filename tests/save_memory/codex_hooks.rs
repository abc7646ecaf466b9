//! The hooks of a Codex compaction, with the real binary and Codex's hook input
//! (docs/design.md §2.11): PreCompact saves and prints nothing, PostCompact keeps
//! Codex's own summary from the rollout, SessionStart(compact) restores, a session
//! start recalls, and a session without a rollout (`--ephemeral`) is left alone.

use crate::support;

use std::fs;
use std::path::Path;

use serde_json::{Value, json};
use support::rollout::{CODEX_SID, Rollout};
use support::{Sandbox, sample_transcript, text};

const BIN: &str = env!("CARGO_BIN_EXE_save-memory");

fn sandbox() -> Sandbox {
    let mut s = Sandbox::new();
    s.set("MEMORY_STALKER_SUMMARIZER", "offline");
    s
}

/// Codex's hook input for `event` (its shape as Codex 0.169.0 sends it).
fn input(s: &Sandbox, event: &str, transcript: Option<&Path>, extra: Value) -> Value {
    let mut v = json!({
        "session_id": CODEX_SID,
        "transcript_path": transcript,
        "cwd": s.project(),
        "hook_event_name": event,
        "model": "gpt-5.5",
    });
    if event != "SessionStart" {
        v["turn_id"] = json!("0199c0de-7777-7000-8000-000000000001");
    } else {
        v["permission_mode"] = json!("bypassPermissions");
    }
    for (k, val) in extra.as_object().unwrap() {
        v[k] = val.clone();
    }
    v
}

fn hook(s: &Sandbox, input: &Value) -> (String, String) {
    let out = s.run(BIN, &[], input.to_string().as_bytes());
    assert_eq!(out.status.code(), Some(0));
    text(&out)
}

/// The restore or recall text of a SessionStart output.
fn context(stdout: &str) -> String {
    let v: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout:?}"));
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

/// SessionStart(compact) for the rollout at `path`: the restore, and what went to stderr.
fn restore_of(s: &Sandbox, path: &Path) -> (String, String) {
    let (stdout, stderr) = hook(
        s,
        &input(s, "SessionStart", Some(path), json!({"source": "compact"})),
    );
    (context(&stdout), stderr)
}

/// The one memory of the project after `event` (with `trigger`) ran on the rollout at
/// `path`.
fn only_memory_after(s: &Sandbox, event: &str, path: &Path, trigger: &str) -> String {
    let (_, stderr) = hook(s, &input(s, event, Some(path), json!({"trigger": trigger})));
    let files = s.memory_files();
    assert_eq!(files.len(), 1, "{stderr}");
    fs::read_to_string(s.memories().join(&files[0])).unwrap()
}

/// The memory from its "Last complete interaction" on: what does not depend on when
/// the test ran.
fn body(memory: &str) -> String {
    memory[memory.find("## Last complete interaction").unwrap()..].to_string()
}

#[test]
fn a_codex_compaction_is_saved_restored_and_keeps_codexs_summary() {
    let s = sandbox();
    let codex_home = s.home().join(".codex");
    let mut rollout = Rollout::sample(&s.project());
    let path = rollout.write_in(&codex_home, CODEX_SID);

    // PreCompact: a memory, and nothing on stdout (Codex ignores it).
    let (stdout, stderr) = hook(
        &s,
        &input(&s, "PreCompact", Some(&path), json!({"trigger": "auto"})),
    );
    assert_eq!(stdout, "", "{stderr}");
    assert!(
        !stderr.contains("waited"),
        "no wait for a rollout: {stderr}"
    );
    let files = s.memory_files();
    assert_eq!(files.len(), 1, "{stderr}");
    let memory_path = s.memories().join(&files[0]);
    let memory = fs::read_to_string(&memory_path).unwrap();
    assert!(
        memory.contains("trigger: \"auto\"\nagent: \"codex\"\n"),
        "{memory}"
    );
    assert!(
        memory.contains("- Codex: 0.169.0 · branch `feature/retries`"),
        "{memory}"
    );
    insta::assert_snapshot!("codex_memory", body(&memory));

    // Codex compacts and writes `compacted` before PostCompact runs.
    rollout.compaction("## Progress\nThe user wants a retry budget; RetryBudget exists.\n## Next\nFix the failing test.");
    fs::write(&path, rollout.text()).unwrap();
    let (stdout, stderr) = hook(
        &s,
        &input(&s, "PostCompact", Some(&path), json!({"trigger": "auto"})),
    );
    assert_eq!(stdout, "", "{stderr}");
    assert_eq!(s.memory_files(), files, "no second memory: {stderr}");
    let memory = fs::read_to_string(&memory_path).unwrap();
    let summary = &memory[memory.find("## Codex compaction summary").expect(&memory)..];
    assert_eq!(
        summary,
        "## Codex compaction summary\n\n```markdown\n## Progress\nThe user wants a retry budget; RetryBudget exists.\n## Next\nFix the failing test.\n```\n"
    );
    assert!(!memory.contains("Claude Code compaction summary"));

    // SessionStart(compact) right after: the restore, as facts, naming the memory.
    let (restore, stderr) = restore_of(&s, &path);
    assert!(restore.chars().count() <= 8_000, "{stderr}");
    let restore = restore.replace(&files[0], "<memory>");
    insta::assert_snapshot!("codex_restore", restore);
    assert_eq!(s.memory_files(), files, "SessionStart used the same memory");

    // What Codex's summary left out (the last request) reaches the model with the next
    // tool call, through PostToolUse.
    let tool = input(
        &s,
        "PostToolUse",
        Some(&path),
        json!({"tool_name": "Bash", "tool_input": {"command": "cargo test"}, "tool_response": "ok", "tool_use_id": "c9"}),
    );
    let out = s.run(BIN, &["hand-over-note"], tool.to_string().as_bytes());
    let (note, _) = text(&out);
    let v: Value = serde_json::from_str(&note).unwrap_or_else(|e| panic!("{e}: {note:?}"));
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    let note = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(note.contains("Never change the public API."), "{note}");
}

#[test]
fn post_compact_alone_saves_the_segment_the_compaction_closed() {
    // PreCompact did not run (or failed): Codex has already written `compacted`, and
    // the memory describes what came before it.
    let s = sandbox();
    let mut rollout = Rollout::sample(&s.project());
    rollout.compaction("A summary.");
    let path = rollout.write_in(&s.home().join(".codex"), CODEX_SID);
    let memory = only_memory_after(&s, "PostCompact", &path, "manual");
    assert!(
        memory.contains("trigger: \"manual\"\nagent: \"codex\""),
        "{memory}"
    );
    assert!(memory.contains("Never change the public API."), "{memory}");
    assert!(memory.contains("- `src/retry.rs`"), "{memory}");
    assert!(
        memory.contains("## Codex compaction summary\n\n```markdown\nA summary.\n```"),
        "{memory}"
    );
}

/// What a Codex session did through its shell reaches the memory and the restore as a
/// Claude Code session's Bash calls do: the test run that failed until a change made it
/// pass (the approach tried first), and the commit.
#[test]
fn a_codex_sessions_failed_approach_and_commit_are_kept() {
    let s = sandbox();
    let mut rollout = Rollout::sample(&s.project());
    rollout
        .say("The third attempt is dropped because the counter starts at one; I'll count from zero.")
        .patch("c6", "*** Begin Patch\n*** Update File: src/retry.rs\n@@\n-left: 1\n+left: 0\n*** End Patch\n")
        .shell("c7", "cargo test -q retry", 101, "test retry_budget ... FAILED\nthread 'retry_budget' panicked at src/retry.rs:9:5: attempts: 2\n")
        .say("Counting from zero was not it: the budget is decremented before the first attempt. Moving the decrement after the attempt.")
        .patch("c8", "*** Begin Patch\n*** Update File: src/upload.rs\n@@\n-budget.take();\n+attempt(); budget.take();\n*** End Patch\n")
        .shell("c9", "cargo test -q retry", 0, "test result: ok. 4 passed\n")
        .shell("c10", "git commit -am 'fix: count every attempt against the retry budget'", 0, "[feature/retries 5e6f7a8] fix: count every attempt against the retry budget\n 2 files changed, 2 insertions(+), 2 deletions(-)\n")
        .say("Fixed and committed.");
    let path = rollout.write_in(&s.home().join(".codex"), CODEX_SID);
    let memory = only_memory_after(&s, "PreCompact", &path, "auto");
    let so_far =
        &memory[memory.find("## Session so far").unwrap()..memory.find("## AI summary").unwrap()];
    insta::assert_snapshot!("codex_failed_approach_and_commit", so_far);

    let (restore, _) = restore_of(&s, &path);
    assert!(restore.contains("cargo test -q retry"), "{restore}");
    assert!(
        restore.contains("fix: count every attempt against the retry budget"),
        "{restore}"
    );
}

#[test]
fn a_session_without_a_rollout_logs_one_line_and_nothing_else() {
    let s = sandbox();
    for (event, extra) in [
        ("PreCompact", json!({"trigger": "auto"})),
        ("PostCompact", json!({"trigger": "auto"})),
        ("SessionStart", json!({"source": "compact"})),
    ] {
        let (stdout, stderr) = hook(&s, &input(&s, event, None, extra));
        assert_eq!(stdout, "", "{event}");
        assert_eq!(stderr.lines().count(), 1, "{event}: {stderr}");
        assert!(
            stderr.contains(
                "Codex gave no transcript_path (a session run with --ephemeral keeps no rollout)"
            ),
            "{event}: {stderr}"
        );
    }
    assert!(
        !s.project().join(".claude").exists(),
        "no directory was made"
    );
    assert!(!s.root.path().join("plugin-data").exists());
}

#[test]
fn a_codex_session_start_recalls_the_memory_claude_code_wrote() {
    let s = sandbox();
    let saved = s.run(
        BIN,
        &[
            "--transcript",
            sample_transcript().to_str().unwrap(),
            "--project",
            s.project().to_str().unwrap(),
        ],
        b"",
    );
    assert!(saved.status.success(), "{:?}", text(&saved));
    let file = s.memory_files().pop().unwrap();
    let (stdout, _) = hook(
        &s,
        &input(&s, "SessionStart", None, json!({"source": "startup"})),
    );
    let recall = context(&stdout).replace(&file, "<memory>");
    let recall = regex::Regex::new(r"from \d{4}-\d\d-\d\d \d\d:\d\d \(today\)")
        .unwrap()
        .replace(&recall, "from <date> (today)")
        .into_owned();
    insta::assert_snapshot!(recall, @r#"
    memory-stalker: this project's latest memory is from <date> (today), Claude Code session 7c630e3a: "The uploader gives up after the first network error.".
    Open tasks then (2 of 4):
    - [in progress] Add tests for retries and the budget
    - [ ] Document the retry behaviour in README
    Only this note is loaded. For what was done and decided, call memory-stalker's search_memories tool, or show_memory with target "<memory>" (or read .claude/memories/<memory>).
    "#);
    // And Claude Code, later, recalls a memory Codex wrote as Codex's.
    let codex_home = s.home().join(".codex");
    let path = Rollout::sample(&s.project()).write_in(&codex_home, CODEX_SID);
    hook(
        &s,
        &input(&s, "PreCompact", Some(&path), json!({"trigger": "auto"})),
    );
    let claude_start = json!({"session_id": "7c630e3a-5b1d-4c2e-9f47-2d8a61b0c9e5", "transcript_path": s.home().join("t.jsonl"), "cwd": s.project(), "hook_event_name": "SessionStart", "source": "startup"});
    let (stdout, _) = hook(&s, &claude_start);
    let recall = context(&stdout);
    assert!(
        recall.contains("(today), Codex session 0199c0de: \"Add a retry budget to the uploader"),
        "{recall}"
    );
    assert!(
        recall.contains("- [in progress] Test the budget"),
        "{recall}"
    );
    assert!(
        recall.ends_with("the user can run /memory-stalker:resume."),
        "{recall}"
    );
}

#[test]
fn inspect_tells_a_rollout_from_its_first_line() {
    let s = sandbox();
    let path = Rollout::sample(&s.project()).write_in(&s.home().join(".codex"), CODEX_SID);
    let out = s.run(BIN, &["inspect", "--json", path.to_str().unwrap()], b"");
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["agent"], "codex");
    assert_eq!(v["todos"]["source"], "update_plan");
    assert_eq!(v["version"], "0.169.0");
    let out = s.run(BIN, &["inspect", path.to_str().unwrap()], b"");
    let (stdout, _) = text(&out);
    assert!(
        stdout.contains("· Codex 0.169.0 · branch feature/retries ·"),
        "{stdout}"
    );
    let out = s.run(
        BIN,
        &["inspect", "--json", sample_transcript().to_str().unwrap()],
        b"",
    );
    let v: Value = serde_json::from_str(&text(&out).0).unwrap();
    assert!(
        v.get("agent").is_none(),
        "absent for Claude Code, as it always was"
    );
}

/// A Codex sub-agent (`multi_agent_v1`'s `spawn_agent`) runs hooks with its *parent's*
/// `session_id`, its own rollout and an `agent_id` (as the real Codex 0.169.0 sends
/// them). Its compaction saves no memory, leaves the session's memory as it was, and
/// its tool calls do not take the note that waits for the session's own model.
#[test]
fn a_sub_agents_hooks_leave_the_sessions_memory_and_note_alone() {
    let s = sandbox();
    let codex_home = s.home().join(".codex");
    let mut rollout = Rollout::sample(&s.project());
    let path = rollout.write_in(&codex_home, CODEX_SID);
    let (_, stderr) = hook(
        &s,
        &input(&s, "PreCompact", Some(&path), json!({"trigger": "auto"})),
    );
    rollout.compaction("The session's own summary.");
    fs::write(&path, rollout.text()).unwrap();
    hook(
        &s,
        &input(&s, "PostCompact", Some(&path), json!({"trigger": "auto"})),
    );
    let files = s.memory_files();
    assert_eq!(files.len(), 1, "{stderr}");
    let memory = fs::read_to_string(s.memories().join(&files[0])).unwrap();

    // The sub-agent's own rollout, compacted in turn.
    let child_id = "0199c0de-5e55-7a11-8b22-00000000c41d";
    let mut child = Rollout::new(child_id, &s.project());
    child
        .prompt("CHILD-TASK count the lines of notes.txt")
        .shell("k1", "wc -l notes.txt", 0, "3 notes.txt\n")
        .say("notes.txt has 3 lines");
    let child_path = child.write_in(&codex_home, child_id);
    let sub = json!({"trigger": "auto", "agent_id": child_id, "agent_type": "default"});
    let (stdout, stderr) = hook(&s, &input(&s, "PreCompact", Some(&child_path), sub.clone()));
    assert_eq!(stdout, "");
    assert!(stderr.contains("a sub-agent's compaction"), "{stderr}");
    assert_eq!(
        s.memory_files(),
        files,
        "no memory of the sub-agent: {stderr}"
    );
    child.compaction("The sub-agent's summary.");
    fs::write(&child_path, child.text()).unwrap();
    let (stdout, _) = hook(
        &s,
        &input(&s, "PostCompact", Some(&child_path), sub.clone()),
    );
    assert_eq!(stdout, "");
    assert_eq!(s.memory_files(), files);
    assert_eq!(
        fs::read_to_string(s.memories().join(&files[0])).unwrap(),
        memory,
        "the session's memory is untouched"
    );

    // The sub-agent's tool call leaves the session's note; the session's own takes it.
    let tool = |agent: Option<&str>| {
        let mut v = input(
            &s,
            "PostToolUse",
            Some(&path),
            json!({"tool_name": "Bash", "tool_input": {"command": "wc -l notes.txt"}, "tool_response": "3", "tool_use_id": "k1"}),
        );
        if let Some(a) = agent {
            v["agent_id"] = json!(a);
            v["transcript_path"] = json!(child_path);
        }
        let out = s.run(BIN, &["hand-over-note"], v.to_string().as_bytes());
        text(&out).0
    };
    assert_eq!(tool(Some(child_id)), "", "the sub-agent takes no note");
    let note = tool(None);
    assert!(note.contains("Never change the public API."), "{note}");
}

/// The title the interactive Codex gave the thread (its `session_index.jsonl`, newest
/// entry first) is the memory's headline and heads the restore, as Claude Code's title
/// is.
#[test]
fn codexs_title_of_the_thread_is_the_headline() {
    let s = sandbox();
    let codex_home = s.home().join(".codex");
    let path = Rollout::sample(&s.project()).write_in(&codex_home, CODEX_SID);
    fs::write(
        codex_home.join("session_index.jsonl"),
        format!(
            "{{\"id\":\"{CODEX_SID}\",\"thread_name\":\"Retry uploads\",\"updated_at\":\"2026-11-25T09:00:01Z\"}}\n\
             {{\"id\":\"0199c0de-0000-7a11-8b22-3c4d5e6f7a8b\",\"thread_name\":\"Another session\",\"updated_at\":\"2026-11-25T09:00:02Z\"}}\n\
             {{\"id\":\"{CODEX_SID}\",\"thread_name\":\"Retry budget for the uploader\",\"updated_at\":\"2026-11-25T09:00:03Z\"}}\n"
        ),
    )
    .unwrap();
    let memory = only_memory_after(&s, "PreCompact", &path, "auto");
    assert!(
        memory.contains("summary: \"Retry budget for the uploader\"\n"),
        "{memory}"
    );
    let (restore, _) = restore_of(&s, &path);
    assert!(
        restore.contains("\n- Codex's title of this session: Retry budget for the uploader\n"),
        "{restore}"
    );
}

/// The note before a Codex patch, from the binary (docs/design.md §2.13): Codex's
/// PreToolUse of `apply_patch` (the patch in `tool_input.command`, its paths relative to
/// `cwd`) gets a note for a file an earlier memory names, once a session. A patch is the
/// model's text: one that names the file only inside a hunk, outside the project, behind
/// control characters, or thousands of times over gives nothing, and exits 0.
#[test]
fn a_codex_patch_gets_the_note_once_and_a_hostile_patch_nothing() {
    let mut s = sandbox();
    s.set("MEMORY_STALKER_ACTION_NOTES", "1");
    let name = "20261118_100400_5e551011.md";
    fs::create_dir_all(s.memories()).unwrap();
    let memory = s.memories().join(name);
    fs::write(
        &memory,
        format!(
            "---\nmemory_stalker: 1\nsession_id: \"5e551011-aaaa-bbbb-cccc-000000000000\"\ncreated: \"2026-11-18T10:04:00+00:00\"\ntrigger: \"auto\"\nproject: {}\nsummary: \"earlier work\"\nsummary_source: \"offline\"\nlang: \"en\"\n---\n\n# Session memory\n\n## Session so far\n\n### Decisions\n\n- Your choice: “keep src/store.rs free of I/O” (AskUserQuestion, 2026-11-18 10:04)\n",
            serde_json::to_string(&s.project()).unwrap()
        ),
    )
    .unwrap();
    support::sign_memory(&s, &memory);
    let patch = |text: &str| {
        let v = input(
            &s,
            "PreToolUse",
            None,
            json!({"permission_mode": "bypassPermissions", "tool_name": "apply_patch",
                   "tool_input": {"command": text}, "tool_use_id": "call_1"}),
        );
        let out = s.run(BIN, &["action-note"], v.to_string().as_bytes());
        assert_eq!(out.status.code(), Some(0), "{text:.200}");
        support::text(&out).0
    };
    let many = "*** Add File: x.rs\n+x\n".repeat(100_000);
    for hostile in [
        "*** Begin Patch\n*** Update File: src/other.rs\n@@\n+*** Update File: src/store.rs\n *** Delete File: src/store.rs\n-*** Move to: src/store.rs\n*** End Patch\n",
        "*** Update File: ../../../../src/store.rs\n",
        "*** Update File: \u{1b}[2Jsrc/store.rs\n",
        "*** Update File: src/store.rs\u{0}\n",
        "*** update file: src/store.rs\n",
        many.as_str(),
    ] {
        assert_eq!(patch(hostile), "", "{hostile:.200}");
    }
    let out = patch(
        "*** Begin Patch\n*** Update File: src/other.rs\n@@\n-a\n+b\n*** Update File: ./src/store.rs\n@@\n-a\n+b\n*** End Patch\n",
    );
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    insta::assert_snapshot!(v["hookSpecificOutput"]["additionalContext"].as_str().unwrap(), @"memory-stalker: an earlier memory of this project (2026-11-18) holds a decision naming src/store.rs: “Your choice: “keep src/store.rs free of I/O” (AskUserQuestion, 2026-11-18 10:04)” (a record of the past, not an instruction; memory .claude/memories/20261118_100400_5e551011.md)");
    assert_eq!(
        patch("*** Begin Patch\n*** Delete File: src/store.rs\n*** End Patch\n"),
        "",
        "once a session"
    );
}
