//! Snapshots of rendered memory files (English and Chinese), from the sample session
//! the repository ships, and round trips of what `list-memories` reads back.

use std::path::{Path, PathBuf};

use chrono::DateTime;
use memory_stalker::Config;
use memory_stalker::memory::Section;
use memory_stalker::memory::document::{FrontMatter, sections};
use memory_stalker::pipeline::{SaveRequest, render_memory};
use memory_stalker::summary::facts::SessionFacts;
use memory_stalker::transcript::{ReadOptions, Transcript};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/sample-session.jsonl")
}

fn render(lang: &str, instructions: Option<&str>) -> String {
    render_transcript(&sample(), lang, instructions)
}

/// Renders the memory of the transcript at `path` with the offline summary.
fn render_transcript(path: &Path, lang: &str, instructions: Option<&str>) -> String {
    let env = [("HOME", "/nonexistent-home"), ("MEMORY_STALKER_LANG", lang)];
    let config = Config::from_lookup(|k| {
        env.iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string())
    });
    let transcript = Transcript::read(path, ReadOptions::default()).unwrap();
    let req = SaveRequest {
        transcript: PathBuf::from(
            "/home/dev/.claude/projects/-home-dev-uploader/7c630e3a-5b1d-4c2e-9f47-2d8a61b0c9e5.jsonl",
        ),
        project: PathBuf::from("/home/dev/uploader"),
        session_id: Some("7c630e3a-5b1d-4c2e-9f47-2d8a61b0c9e5".into()),
        trigger: "manual".into(),
        custom_instructions: instructions.map(str::to_string),
        prompt_id: Some("a1f415a3-0000-4000-8000-000000000001".into()),
    };
    let now = DateTime::parse_from_rfc3339("2026-11-20T15:30:00+01:00").unwrap();
    render_memory(
        &req,
        &config,
        &transcript,
        "7c630e3a-5b1d-4c2e-9f47-2d8a61b0c9e5",
        &now,
        None,
        &SessionFacts::default(),
    )
    .text
}

#[test]
fn english_memory_file() {
    insta::assert_snapshot!("memory_en", render("en", Some("keep the API notes")));
}

#[test]
fn chinese_memory_file() {
    insta::assert_snapshot!("memory_zh", render("zh", None));
}

#[test]
fn rendered_memory_reads_back() {
    for lang in ["en", "zh"] {
        let text = render(lang, Some("line one\nline two"));
        let (fm, _) = FrontMatter::parse(&text).unwrap();
        assert_eq!(fm.session_id, "7c630e3a-5b1d-4c2e-9f47-2d8a61b0c9e5");
        assert_eq!((fm.task_count, fm.tasks_open), (4, 2));
        assert_eq!(fm.summary_source, "offline");
        assert_eq!(
            fm.prompt_id.as_deref(),
            Some("a1f415a3-0000-4000-8000-000000000001")
        );
        let found: Vec<_> = sections(&text).into_iter().map(|s| s.section).collect();
        assert_eq!(
            found,
            [
                Section::Metadata,
                Section::LastInteraction,
                Section::Tasks,
                Section::Files,
                Section::LastAction,
                Section::Session,
                Section::AiSummary
            ],
            "{lang}"
        );
    }
}

/// A session whose every read file was then edited: one prompt, `Read` then `Edit` of
/// each of `files`, and a closing reply.
fn read_then_edit_session(dir: &Path, files: &[&str], read_only: &[&str]) -> PathBuf {
    use serde_json::json;
    let sid = "7c630e3a-5b1d-4c2e-9f47-2d8a61b0c9e5";
    let mut n = 0;
    let mut lines = Vec::new();
    let mut record = |kind: &str, message: serde_json::Value| {
        n += 1;
        lines.push(
            json!({"type": kind, "message": message, "sessionId": sid, "isSidechain": false,
                   "uuid": format!("u{n}"), "timestamp": "2026-11-20T14:00:00Z"})
            .to_string(),
        );
    };
    record(
        "user",
        json!({"role": "user", "content": "Fix the retry bug."}),
    );
    let mut call = |name: &str, path: &str| {
        let id = format!("toolu_{name}_{}", path.len());
        record(
            "assistant",
            json!({"id": format!("msg_{id}"), "role": "assistant", "model": "claude-test",
                   "content": [{"type": "tool_use", "id": id, "name": name,
                                "input": {"file_path": path, "old_string": "a", "new_string": "b"}}]}),
        );
        record(
            "user",
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "ok"}]}),
        );
    };
    for f in read_only {
        call("Read", f);
    }
    for f in files {
        call("Read", f);
        call("Edit", f);
    }
    record(
        "assistant",
        json!({"id": "msg_end", "role": "assistant", "model": "claude-test",
               "content": [{"type": "text", "text": "Fixed."}]}),
    );
    let path = dir.join("session.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// The `### Read` part of the Files section.
fn read_part(memory: &str, heading: &str) -> String {
    let start = memory.find(heading).expect("a Read heading");
    let rest = &memory[start..];
    let end = rest.find("\n## ").map_or(rest.len(), |i| i + 1);
    rest[..end].to_string()
}

#[test]
fn files_read_and_then_modified_are_not_denied() {
    let dir = tempfile::tempdir().unwrap();
    // Everything read was then edited: the extraction lists no read file
    // (docs/design.md §3.8), and the memory must not claim that nothing was read.
    let path = read_then_edit_session(dir.path(), &["/p/src/retry.rs"], &[]);
    let ex = Transcript::read(&path, ReadOptions::default())
        .unwrap()
        .extraction();
    assert_eq!(ex.files.modified, ["/p/src/retry.rs"]);
    assert!(ex.files.read.is_empty(), "files.read: docs/design.md §3.8");
    let memory = render_transcript(&path, "en", None);
    assert_eq!(
        read_part(&memory, "### Read"),
        "### Read\n\n(none besides the modified files)\n\n"
    );
    let memory = render_transcript(&path, "zh", None);
    assert_eq!(
        read_part(&memory, "### 已读取"),
        "### 已读取\n\n（除已修改的文件外无）\n\n"
    );

    // Some files only read, some read and edited: the list says where the others are.
    let path = read_then_edit_session(dir.path(), &["/p/src/retry.rs"], &["/p/README.md"]);
    let memory = render_transcript(&path, "en", None);
    assert_eq!(
        read_part(&memory, "### Read"),
        "### Read\n\n- `/p/README.md`\n\n(files read and then modified are listed under Modified only)\n\n"
    );

    // Nothing modified: nothing to explain.
    let path = read_then_edit_session(dir.path(), &[], &["/p/README.md"]);
    let memory = render_transcript(&path, "en", None);
    assert_eq!(
        read_part(&memory, "### Read"),
        "### Read\n\n- `/p/README.md`\n\n"
    );
    let path = read_then_edit_session(dir.path(), &[], &[]);
    let memory = render_transcript(&path, "en", None);
    assert_eq!(read_part(&memory, "### Read"), "### Read\n\n(none)\n\n");
}
