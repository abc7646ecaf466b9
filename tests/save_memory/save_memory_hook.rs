//! The real `save-memory` binary as Claude Code runs it: hook JSON on stdin, a
//! temporary project. Whatever the input, the hook exits 0, prints nothing on stdout
//! (it would be pasted into the compaction prompt), explains problems on stderr and
//! leaves no partial file behind.

use crate::support;

use std::fs;

use support::{Sandbox, files_in, sample_transcript, text};

const BIN: &str = env!("CARGO_BIN_EXE_save-memory");
const SID: &str = "7c630e3a-5b1d-4c2e-9f47-2d8a61b0c9e5";

fn sandbox() -> Sandbox {
    let mut s = Sandbox::new();
    s.set("MEMORY_STALKER_SUMMARIZER", "offline");
    s.set("MEMORY_STALKER_STEER", "0");
    s
}

/// Exit 0, nothing on stdout, no temporary files left in the memories directory.
fn assert_clean(s: &Sandbox, out: &std::process::Output) {
    let (stdout, stderr) = text(out);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    assert_eq!(stdout, "", "stdout must stay empty; stderr: {stderr}");
    let leftovers: Vec<_> = files_in(&s.memories())
        .into_iter()
        .filter(|n| n.starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "partial files left: {leftovers:?}");
}

fn name_re(sid8: &str) -> regex::Regex {
    regex::Regex::new(&format!(r"^\d{{8}}_\d{{6}}_{sid8}(_\d+)?\.md$")).unwrap()
}

#[test]
fn pre_compact_writes_one_memory() {
    let s = sandbox();
    let transcript = s.install_transcript(&sample_transcript(), SID);
    let input = s.pre_compact_input(&transcript, SID, "manual", Some("keep the API notes"));
    let out = s.run(BIN, &[], input.as_bytes());
    assert_clean(&s, &out);
    let files = s.memory_files();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(name_re("7c630e3a").is_match(&files[0]), "{}", files[0]);
    let memory = fs::read_to_string(s.memories().join(&files[0])).unwrap();
    assert!(memory.starts_with("---\nmemory_stalker: 1\n"));
    assert!(memory.contains(&format!("session_id: \"{SID}\"")));
    assert!(memory.contains("trigger: \"manual\""));
    assert!(memory.contains("- Custom instructions: keep the API notes"));
    assert!(memory.contains("Treat 429 as retryable but honour Retry-After"));
    assert!(memory.contains("- [ ] **in progress**: Add tests for retries and the budget"));
    assert!(memory.contains("summary_source: \"offline\""));
    // The hook logs what it did beside the memories.
    let log = fs::read_to_string(s.memories().join(".log")).unwrap();
    assert!(log.contains("saved "), "{log}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(s.memories().join(&files[0]))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[test]
fn chinese_headings_with_lang_zh() {
    let mut s = sandbox();
    s.set("MEMORY_STALKER_LANG", "zh");
    let transcript = s.install_transcript(&sample_transcript(), SID);
    let out = s.run(
        BIN,
        &[],
        s.pre_compact_input(&transcript, SID, "auto", None)
            .as_bytes(),
    );
    assert_clean(&s, &out);
    let memory = fs::read_to_string(s.memories().join(&s.memory_files()[0])).unwrap();
    for heading in [
        "# 会话记忆",
        "## 最后一轮完整交互",
        "## 当前任务列表",
        "## AI 生成摘要",
    ] {
        assert!(memory.contains(heading), "{heading}");
    }
}

#[test]
fn a_taken_name_gets_a_suffix_and_is_never_overwritten() {
    let s = sandbox();
    let transcript = s.install_transcript(&sample_transcript(), SID);
    fs::create_dir_all(s.memories()).unwrap();
    // Occupy the name for every second the run could take place in.
    let start = chrono::Utc::now();
    for offset in -2..30 {
        let t = start + chrono::Duration::seconds(offset);
        let name = format!("{}_7c630e3a.md", t.format("%Y%m%d_%H%M%S"));
        fs::write(s.memories().join(name), "an older memory").unwrap();
    }
    let out = s.run(
        BIN,
        &[],
        s.pre_compact_input(&transcript, SID, "auto", None)
            .as_bytes(),
    );
    assert_clean(&s, &out);
    let new: Vec<_> = s
        .memory_files()
        .into_iter()
        .filter(|n| n.ends_with("_2.md"))
        .collect();
    assert_eq!(new.len(), 1, "{:?}", s.memory_files());
    for f in s.memory_files().iter().filter(|n| !n.ends_with("_2.md")) {
        assert_eq!(
            fs::read_to_string(s.memories().join(f)).unwrap(),
            "an older memory"
        );
    }
}

#[test]
fn hostile_session_ids_stay_inside_the_memories_directory() {
    for (sid, sid8) in [
        ("../../x", "x"),
        // An empty id in the hook input: the transcript's own id is used.
        ("", "7c630e3a"),
        ("日本語のセッション", "unknown"),
        ("/etc/passwd", "etcpassw"),
        ("..\\..\\win", "win"),
        ("a\nb", "ab"),
    ] {
        let s = sandbox();
        let transcript = s.install_transcript(&sample_transcript(), "t");
        let out = s.run(
            BIN,
            &[],
            s.pre_compact_input(&transcript, sid, "auto", None)
                .as_bytes(),
        );
        assert_clean(&s, &out);
        let files = s.memory_files();
        assert_eq!(files.len(), 1, "{sid:?}: {files:?}");
        assert!(name_re(sid8).is_match(&files[0]), "{sid:?} → {}", files[0]);
        // Nothing was written next to the project or the memories directory.
        assert_eq!(files_in(&s.project()), [".claude"], "{sid:?}");
        assert_eq!(
            files_in(&s.project().join(".claude")),
            ["memories"],
            "{sid:?}"
        );
    }
}

#[test]
fn missing_transcript_is_reported_and_nothing_is_written() {
    let s = sandbox();
    let missing = s.home().join("nope.jsonl");
    let out = s.run(
        BIN,
        &[],
        s.pre_compact_input(&missing, SID, "auto", None).as_bytes(),
    );
    assert_clean(&s, &out);
    let (_, stderr) = text(&out);
    assert!(
        stderr.contains("cannot read transcript") && stderr.contains("nope.jsonl"),
        "{stderr}"
    );
    assert!(s.memory_files().is_empty());
}

#[test]
fn unwritable_memories_directory_falls_back_to_the_data_directory() {
    let s = sandbox();
    let transcript = s.install_transcript(&sample_transcript(), SID);
    // A file where the directory should be: no user, root included, can write there.
    fs::create_dir_all(s.project().join(".claude")).unwrap();
    fs::write(s.project().join(".claude/memories"), "not a directory").unwrap();
    let out = s.run(
        BIN,
        &[],
        s.pre_compact_input(&transcript, SID, "auto", None)
            .as_bytes(),
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout, "");
    assert!(
        stderr.contains("cannot create") && stderr.contains("saved to"),
        "{stderr}"
    );
    let unsaved = s.root.path().join("plugin-data/unsaved");
    let project_dirs = files_in(&unsaved);
    assert_eq!(project_dirs.len(), 1);
    let saved: Vec<_> = files_in(&unsaved.join(&project_dirs[0]))
        .into_iter()
        .filter(|n| n != ".gitignore")
        .collect();
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert!(name_re("7c630e3a").is_match(&saved[0]));
    assert_eq!(
        fs::read_to_string(s.project().join(".claude/memories")).unwrap(),
        "not a directory"
    );
}

#[test]
fn garbage_and_empty_stdin_exit_zero_with_a_clear_message() {
    for (input, expect) in [
        (&b"this is not json"[..], "not the JSON object"),
        (b"", "stdin was empty"),
        (b"[1, 2, 3]", "not the JSON object"),
        (b"\xff\xfe\x00garbage", "not the JSON object"),
        (br#"{"hook_event_name":"PreCompact","session_id":"x"}"#, "no transcript_path"),
        // A vanished project no longer stops the save (hostile.rs: the memory goes
        // to the fallback directory); here the transcript is missing too.
        (br#"{"hook_event_name":"PreCompact","transcript_path":"/t.jsonl","cwd":"/definitely/not/here"}"#, "cannot read transcript /t.jsonl"),
    ] {
        let s = sandbox();
        let out = s.run(BIN, &[], input);
        assert_clean(&s, &out);
        let (_, stderr) = text(&out);
        assert!(stderr.contains(expect), "{input:?}: {stderr}");
        assert!(s.memory_files().is_empty());
    }
}

#[test]
fn corrupt_transcript_still_saves_what_it_can() {
    let s = sandbox();
    let mut data = fs::read(sample_transcript()).unwrap();
    data.extend_from_slice(b"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"te");
    let path = s.home().join("corrupt.jsonl");
    fs::write(&path, data).unwrap();
    let out = s.run(
        BIN,
        &[],
        s.pre_compact_input(&path, SID, "auto", None).as_bytes(),
    );
    assert_clean(&s, &out);
    let (_, stderr) = text(&out);
    assert!(
        stderr.contains("1 lines") && stderr.contains("skipped"),
        "{stderr}"
    );
    assert_eq!(s.memory_files().len(), 1);
}

#[test]
fn unknown_hook_events_do_nothing() {
    let s = sandbox();
    let input =
        serde_json::json!({"hook_event_name": "Stop", "session_id": SID, "cwd": s.project()});
    let out = s.run(BIN, &[], input.to_string().as_bytes());
    assert_clean(&s, &out);
    assert!(s.memory_files().is_empty());
}

#[test]
fn by_hand_prints_the_path_it_wrote() {
    let s = sandbox();
    let project = s.project();
    let out = s.run(
        BIN,
        &[
            "--transcript",
            sample_transcript().to_str().unwrap(),
            "--project",
            project.to_str().unwrap(),
        ],
        b"",
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    let path = std::path::PathBuf::from(stdout.trim());
    assert!(
        path.starts_with(s.memories().canonicalize().unwrap()),
        "{stdout}"
    );
    let memory = fs::read_to_string(&path).unwrap();
    assert!(
        memory.contains(&format!("session_id: \"{SID}\"")),
        "the session comes from the transcript"
    );
}

#[test]
fn by_hand_errors_exit_non_zero() {
    let s = sandbox();
    let out = s.run(BIN, &["--transcript", "/nope.jsonl", "--project", "/"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).1.contains("cannot read transcript /nope.jsonl"));
    let out = s.run(BIN, &["--transcript", "/nope.jsonl"], b"");
    assert_eq!(out.status.code(), Some(2), "clap usage error");
}

#[test]
fn inspect_json_snapshot() {
    let s = sandbox();
    let out = s.run(
        BIN,
        &["inspect", "--json", sample_transcript().to_str().unwrap()],
        b"",
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    insta::assert_snapshot!("inspect_sample_json", stdout);
}

#[test]
fn inspect_uses_task_files_when_claude_code_kept_them() {
    let s = sandbox();
    let tasks = s.home().join(".claude/tasks").join(SID);
    fs::create_dir_all(&tasks).unwrap();
    fs::write(
        tasks.join("1.json"),
        r#"{"id":"1","subject":"From the task file","description":"d","activeForm":"Filing","status":"in_progress","blocks":[],"blockedBy":[]}"#,
    )
    .unwrap();
    fs::write(tasks.join(".lock"), "").unwrap();
    let out = s.run(
        BIN,
        &["inspect", "--json", sample_transcript().to_str().unwrap()],
        b"",
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["todos"]["source"], "tasks");
    assert_eq!(json["todos"]["items"][0]["content"], "From the task file");
    assert_eq!(json["todos"]["items"].as_array().unwrap().len(), 1);
}

/// Runs `git` in `dir`; `None` when git is not installed.
fn git(dir: &std::path::Path, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .ok()?;
    assert!(out.status.success(), "git {args:?}: {}", text(&out).1);
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn the_memories_directory_keeps_itself_out_of_git() {
    let s = sandbox();
    let transcript = s.install_transcript(&sample_transcript(), SID);
    let input = s.pre_compact_input(&transcript, SID, "manual", None);
    let out = s.run(BIN, &[], input.as_bytes());
    assert_clean(&s, &out);
    let ignore = fs::read_to_string(s.memories().join(".gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "*"), "{ignore}");
    assert!(ignore.contains("git add -f"), "says how to share: {ignore}");
    // With git: nothing in the directory, the index and the ignore file included, is
    // offered for a commit.
    if git(&s.project(), &["init", "-q"]).is_none() {
        eprintln!("git is not installed: the git check is skipped");
        return;
    }
    assert!(s.memories().join("INDEX.md").is_file());
    let status = git(
        &s.project(),
        &["status", "--porcelain", "--untracked-files=all"],
    )
    .unwrap();
    assert!(!status.contains(".claude/memories"), "{status}");
}

#[test]
fn a_gitignore_the_user_wrote_is_never_replaced() {
    let s = sandbox();
    let transcript = s.install_transcript(&sample_transcript(), SID);
    // Sharing memories on purpose: the user keeps only the log out.
    fs::create_dir_all(s.memories()).unwrap();
    fs::write(s.memories().join(".gitignore"), ".log\n.locks/\n").unwrap();
    for _ in 0..2 {
        let input = s.pre_compact_input(&transcript, SID, "manual", None);
        let out = s.run(BIN, &[], input.as_bytes());
        assert_clean(&s, &out);
    }
    assert_eq!(s.memory_files().len(), 2);
    assert_eq!(
        fs::read_to_string(s.memories().join(".gitignore")).unwrap(),
        ".log\n.locks/\n"
    );
}

#[test]
fn a_memories_directory_without_a_gitignore_gets_one() {
    let s = sandbox();
    let transcript = s.install_transcript(&sample_transcript(), SID);
    // Made by an older version, or by hand.
    fs::create_dir_all(s.memories()).unwrap();
    let input = s.pre_compact_input(&transcript, SID, "auto", None);
    let out = s.run(BIN, &[], input.as_bytes());
    assert_clean(&s, &out);
    let ignore = fs::read_to_string(s.memories().join(".gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "*"), "{ignore}");
}

/// Hook stdin for SessionStart.
fn session_start(s: &Sandbox, source: &str) -> String {
    serde_json::json!({
        "session_id": "11111111-2222-3333-4444-555555555555",
        "transcript_path": s.home().join(".claude/projects/-sandbox-project/new.jsonl"),
        "cwd": s.project(),
        "hook_event_name": "SessionStart",
        "source": source,
    })
    .to_string()
}

#[test]
fn a_new_session_gets_a_short_recall_of_the_latest_memory() {
    let mut s = sandbox();
    // Nothing to recall: no memory, and no directory made for one.
    for source in ["startup", "resume", "clear"] {
        let out = s.run(BIN, &[], session_start(&s, source).as_bytes());
        assert_clean(&s, &out);
    }
    assert!(!s.project().join(".claude").exists());

    let transcript = s.install_transcript(&sample_transcript(), SID);
    let input = s.pre_compact_input(&transcript, SID, "auto", None);
    assert_clean(&s, &s.run(BIN, &[], input.as_bytes()));
    let file = s.memory_files().remove(0);
    let mut notes = Vec::new();
    let date = regex::Regex::new(r"\d{4}-\d\d-\d\d \d\d:\d\d").unwrap();
    for source in ["startup", "resume", "clear"] {
        let out = s.run(BIN, &[], session_start(&s, source).as_bytes());
        assert_eq!(out.status.code(), Some(0));
        let (stdout, _) = text(&out);
        let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
        let note = v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap();
        let note = note.replace(&file, "<file>");
        let note = date.replace(&note, "<date>");
        notes.push(note.into_owned());
        assert!(
            v.get("systemMessage").is_none(),
            "nothing for the user's screen"
        );
    }
    assert!(notes.iter().all(|n| *n == notes[0]), "{notes:#?}");
    insta::assert_snapshot!("recall", notes[0]);
    s.set("MEMORY_STALKER_RECALL", "0");
    let out = s.run(BIN, &[], session_start(&s, "startup").as_bytes());
    assert_clean(&s, &out);
}

#[test]
fn a_project_switched_off_gets_no_memory_and_no_recall() {
    let mut s = sandbox();
    let transcript = s.install_transcript(&sample_transcript(), SID);
    let input = s.pre_compact_input(&transcript, SID, "auto", None);
    assert_clean(&s, &s.run(BIN, &[], input.as_bytes()));
    assert_eq!(s.memory_files().len(), 1);

    let switch = s.project().join(".claude/memory-stalker.json");
    fs::write(&switch, "{\"enabled\": false}\n").unwrap();
    s.set("MEMORY_STALKER_STEER", "1");
    let out = s.run(BIN, &[], input.as_bytes());
    assert_clean(&s, &out);
    let (_, stderr) = text(&out);
    assert_eq!(
        stderr,
        format!(
            "memory-stalker: memory-stalker is off, set by {} ({{\"enabled\": false}}); nothing saved or recalled (PreCompact)\n",
            switch.display()
        )
    );
    assert_eq!(s.memory_files().len(), 1, "no memory for this compaction");
    for input in [
        session_start(&s, "startup"),
        serde_json::json!({"hook_event_name": "SessionStart", "source": "compact", "session_id": SID,
            "transcript_path": transcript, "cwd": s.project()})
        .to_string(),
        serde_json::json!({"hook_event_name": "PostCompact", "trigger": "auto", "session_id": SID,
            "transcript_path": transcript, "cwd": s.project(), "compact_summary": "<summary>x</summary>"})
        .to_string(),
    ] {
        let out = s.run(BIN, &[], input.as_bytes());
        assert_clean(&s, &out);
    }
    assert_eq!(s.memory_files().len(), 1);
    let log = fs::read_to_string(s.memories().join(".log")).unwrap();
    assert_eq!(
        log.matches("is off").count(),
        2,
        "once per compaction and session start: {log}"
    );

    // On again: the global default is off, the project's own switch turns it on.
    fs::write(&switch, "{\"enabled\": true}").unwrap();
    s.set("MEMORY_STALKER_ENABLED", "0");
    s.set("MEMORY_STALKER_STEER", "0");
    assert_clean(&s, &s.run(BIN, &[], input.as_bytes()));
    assert_eq!(s.memory_files().len(), 2);
}

#[test]
fn no_recall_through_a_memories_directory_that_is_a_link() {
    let s = sandbox();
    // A memory worth recalling, elsewhere, and the project's .claude/memories a link
    // to it (a cloned repository can commit one).
    let elsewhere = s.root.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let transcript = s.install_transcript(&sample_transcript(), SID);
    let out = s.run(
        BIN,
        &[
            "--transcript",
            transcript.to_str().unwrap(),
            "--project",
            s.root.path().join("home").to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
    let saved = s.home().join(".claude/memories");
    for f in files_in(&saved).into_iter().filter(|f| f.ends_with(".md")) {
        fs::copy(saved.join(&f), elsewhere.join(&f)).unwrap();
    }
    fs::create_dir_all(s.project().join(".claude")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, s.memories()).unwrap();
    let before = files_in(&elsewhere);
    let out = s.run(BIN, &[], session_start(&s, "startup").as_bytes());
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out).0, "", "nothing recalled through the link");
    assert_eq!(
        files_in(&elsewhere),
        before,
        "nothing written through the link"
    );
    // The same memories in a real directory are recalled.
    fs::remove_file(s.memories()).unwrap();
    fs::create_dir_all(s.memories()).unwrap();
    for f in &before {
        fs::copy(elsewhere.join(f), s.memories().join(f)).unwrap();
    }
    let out = s.run(BIN, &[], session_start(&s, "startup").as_bytes());
    assert!(text(&out).0.contains("this project's latest memory"));
}

/// What a person reads of a run, for a snapshot: the exit code, stdout and stderr, with
/// the sandbox's directory as `<root>`, the repository as `<repo>`, the time in a
/// memory's name as `<time>` and how long a run took as `<elapsed>`.
fn seen(s: &Sandbox, out: &std::process::Output) -> String {
    let (stdout, stderr) = text(out);
    let mut all = format!(
        "exit: {}\n--- stdout\n{stdout}--- stderr\n{stderr}",
        out.status.code().unwrap_or(-1)
    );
    let root = s.root.path();
    for (path, name) in [
        (root.canonicalize().unwrap(), "<root>"),
        (root.to_path_buf(), "<root>"),
        (support::repo_root(), "<repo>"),
    ] {
        all = all.replace(path.to_str().unwrap(), name);
    }
    let time = regex::Regex::new(r"\d{8}_\d{6}_").unwrap();
    let all = time.replace_all(&all, "<time>_");
    let elapsed = regex::Regex::new(r" in [0-9.]+ (ns|µs|ms|s)\b").unwrap();
    elapsed.replace_all(&all, " in <elapsed>").into_owned()
}

#[test]
fn what_a_person_sees_without_hook_input() {
    // Run by hand with stdin that is not a terminal: nothing, or garbage.
    let s = sandbox();
    insta::assert_snapshot!("no_input", seen(&s, &s.run(BIN, &[], b"")));
    insta::assert_snapshot!(
        "garbage_input",
        seen(&s, &s.run(BIN, &[], b"this is not json"))
    );
}

#[test]
fn what_a_person_sees_by_hand() {
    let s = sandbox();
    let project = s.project();
    let sample = sample_transcript();
    let args = [
        "--transcript",
        sample.to_str().unwrap(),
        "--project",
        project.to_str().unwrap(),
    ];
    insta::assert_snapshot!("by_hand", seen(&s, &s.run(BIN, &args, b"")));
}

#[test]
fn inspect_text_snapshot() {
    let s = sandbox();
    let sample = sample_transcript();
    let out = s.run(BIN, &["inspect", sample.to_str().unwrap()], b"");
    insta::assert_snapshot!("inspect_sample_text", seen(&s, &out));
}
