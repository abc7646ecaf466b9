//! Extraction over the corpus of 153 real Claude Code transcripts (1.0.24 to 2.1.114)
//! in `../shared/corpus/transcripts/` beside the repository.
//!
//! Every file must extract without error; for 20 files of different versions the
//! results are checked against what was verified by hand in the files themselves
//! (and cross-checked against an independent whole-file reading of docs/design.md §3).
//!
//! The corpus is not part of the repository. When it is missing the tests say so and
//! pass, except under CI (`CI=true`), where a missing corpus is a failure.

use std::path::Path;

use crate::corpus_support;
use corpus_support::{all_transcripts, corpus_dir};

use memory_stalker::text::one_line;
use memory_stalker::transcript::{Extraction, ReadOptions, TodoSource, Transcript};

fn extract(path: &Path) -> Extraction {
    Transcript::read(path, ReadOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .extraction()
}

#[test]
fn every_corpus_transcript_extracts() {
    let Some(dir) = corpus_dir() else { return };
    let files = all_transcripts(&dir);
    assert_eq!(files.len(), 153, "the corpus README lists 153 transcripts");
    let mut with_prompt = 0;
    let mut with_todos = 0;
    for path in &files {
        let ex = extract(path);
        let size = std::fs::metadata(path).unwrap().len();
        assert_eq!(
            ex.bad_lines,
            0,
            "{}: the corpus has no broken lines",
            path.display()
        );
        assert_eq!(ex.records == 0, size == 0, "{}", path.display());
        if let Some(p) = &ex.last_prompt {
            with_prompt += 1;
            assert!(!p.text.trim().is_empty(), "{}", path.display());
            assert!(
                p.uuid.is_some() && p.timestamp.is_some(),
                "{}",
                path.display()
            );
        }
        if let Some(t) = &ex.todos {
            with_todos += 1;
            assert!(
                t.items
                    .iter()
                    .all(|i| ["pending", "in_progress", "completed"].contains(&i.status.as_str()))
            );
        }
        assert!(ex.files.modified.len() <= 20 && ex.files.read.len() <= 20);
        assert!(ex.files.read.iter().all(|r| !ex.files.modified.contains(r)));
        // The extraction serialises to the JSON of docs/design.md §3.11 and back.
        let json = serde_json::to_value(&ex).unwrap();
        for key in [
            "session_id",
            "cwd",
            "version",
            "git_branch",
            "records",
            "bad_lines",
            "last_prompt",
            "reply",
            "todos",
            "plan",
            "files",
            "last_action",
        ] {
            assert!(json.get(key).is_some(), "{key} missing");
        }
        let back: Extraction = serde_json::from_value(json).unwrap();
        assert_eq!(back, ex);
    }
    // Main sessions have prompts; the 85 sub-agent files and 17 empty files mostly do not.
    assert!(with_prompt >= 45, "{with_prompt} files with a prompt");
    assert!(with_todos >= 15, "{with_todos} files with a task list");
}

/// What was verified by hand in one transcript.
struct Expect {
    file: &'static str,
    version: Option<&'static str>,
    /// Start of the last real prompt, or `None` when there is none.
    prompt: Option<&'static str>,
    /// Tool calls in the reply to that prompt.
    reply_calls: usize,
    /// Task list: source, items, open items.
    todos: Option<(TodoSource, usize, usize)>,
    modified: usize,
    read: usize,
    /// Last tool call and whether it succeeded.
    last_action: Option<(&'static str, Option<bool>)>,
    plan: bool,
}

const LOG_SAMPLE: &str = "iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample";
const ME_NEXT: &str = "iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-danieldemmel-me-next";
const VIEWER: &str = "d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project";
const SPOTTER: &str = "marot__spotter/test/fixtures/transcripts";

fn expectations() -> Vec<Expect> {
    use TodoSource::{Tasks, TodoWrite};
    vec![
        // 1.0.24: ends with a /clear echo after the last turn.
        Expect {
            file: "LOG_SAMPLE/fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl",
            version: Some("1.0.24"),
            prompt: Some("Wait, does it only run on main? I think we should run it on all push?"),
            reply_calls: 19,
            todos: Some((TodoWrite, 2, 0)),
            modified: 2,
            read: 1,
            last_action: Some(("Bash", Some(true))),
            plan: false,
        },
        // 1.0.43: a prompt with an image, then /doctor /status /mcp echoes.
        Expect {
            file: "LOG_SAMPLE/0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl",
            version: Some("1.0.43"),
            prompt: Some("I think the library is setting it, it's an inline style"),
            reply_calls: 2,
            todos: Some((TodoWrite, 2, 0)),
            modified: 1,
            read: 2,
            last_action: Some(("MultiEdit", Some(true))),
            plan: false,
        },
        // 1.0.57: `#` memory input, "(no content)" and /export echoes after the turn.
        Expect {
            file: "kiliman__claude-transcript/test/test2.jsonl",
            version: Some("1.0.57"),
            prompt: Some("Node v24 no longer requires the --experimental-strip-types"),
            reply_calls: 7,
            todos: Some((TodoWrite, 9, 0)),
            modified: 12,
            read: 4,
            last_action: Some(("Bash", Some(true))),
            plan: false,
        },
        // 1.0.64: Chinese prompts and a Chinese cwd.
        Expect {
            file: "zengwenliang416__Claude-Log-View/public/sample-log.jsonl",
            version: Some("1.0.64"),
            prompt: Some("首页和登录页需要加一个灰度区域管理"),
            reply_calls: 23,
            todos: Some((TodoWrite, 2, 0)),
            modified: 20,
            read: 18,
            last_action: Some(("Bash", Some(true))),
            plan: false,
        },
        // 1.0.98: a session that is only /init (command echo + isMeta body): the command is
        // the request.
        Expect {
            file: "VIEWER/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
            version: Some("1.0.98"),
            prompt: Some("/init"),
            reply_calls: 12,
            todos: Some((TodoWrite, 1, 0)),
            modified: 0,
            read: 0,
            last_action: Some(("Write", Some(false))),
            plan: false,
        },
        // 1.0.98: 16 of its 19 TodoWrite calls are in inline sidechains.
        Expect {
            file: "VIEWER/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
            version: Some("1.0.98"),
            prompt: Some("Thanks! Please update CLAUDE.md for current changes"),
            reply_calls: 1,
            todos: Some((TodoWrite, 5, 0)),
            modified: 1,
            read: 0,
            last_action: Some(("Write", Some(true))),
            plan: false,
        },
        // 1.0.108: a custom slash command with arguments is the request; a failed Write.
        Expect {
            file: "VIEWER/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
            version: Some("1.0.108"),
            prompt: Some("/orchestrator @CLAUDE.md を最新の状態にアップデートしてください"),
            reply_calls: 13,
            todos: Some((TodoWrite, 4, 0)),
            modified: 1,
            read: 0,
            last_action: Some(("MultiEdit", Some(true))),
            plan: false,
        },
        // 1.0.128: "[Image #1]" prompt, then a /model echo.
        Expect {
            file: "ME_NEXT/4379d1bf-ccb1-414e-a856-9791b73f3af2.jsonl",
            version: Some("1.0.128"),
            prompt: Some("[Image #1] Can you please add margin-bottom"),
            reply_calls: 2,
            todos: None,
            modified: 1,
            read: 0,
            last_action: Some(("Edit", Some(true))),
            plan: false,
        },
        // 2.0.0: three summary records and a /model echo, nothing else.
        Expect {
            file: "ME_NEXT/3680252d-d4e3-4416-bddd-8f5b5b4fdb7f.jsonl",
            version: Some("2.0.0"),
            prompt: None,
            reply_calls: 0,
            todos: None,
            modified: 0,
            read: 0,
            last_action: None,
            plan: false,
        },
        // 2.0.5: a single prompt with an image block and text.
        Expect {
            file: "iansherr__claude-code-log/dev-docs/messages/user/image.jsonl",
            version: Some("2.0.5"),
            prompt: Some("Do you think we could set up rewrites for the JS and CSS?"),
            reply_calls: 0,
            todos: None,
            modified: 0,
            read: 0,
            last_action: None,
            plan: false,
        },
        // 2.0.74, VS Code: <ide_selection> wrappers and a plan from ExitPlanMode (its
        // file under ~/.claude/plans/ is Claude Code's, not a project file).
        Expect {
            file: "kzahel__yepanywhere/claude-vscode-extension/index.jsonl",
            version: Some("2.0.74"),
            prompt: Some("i think we just never ran the tests on physical hardware."),
            reply_calls: 0,
            todos: Some((TodoWrite, 5, 0)),
            modified: 3,
            read: 3,
            last_action: Some(("Read", Some(true))),
            plan: true,
        },
        // 2.1.14, `claude -p`: stop-hook feedback (isMeta) after the one prompt.
        Expect {
            file: "DRMacIver__claude-reliability/snapshot-tests/tests/python-to-rust-port/transcript.jsonl",
            version: Some("2.1.14"),
            prompt: Some("Port this Python project to Rust."),
            reply_calls: 39,
            todos: Some((TodoWrite, 9, 0)),
            modified: 8,
            read: 0,
            last_action: Some(("Bash", Some(true))),
            plan: false,
        },
        // 2.1.17, `claude -p` with a sub-agent Task call.
        Expect {
            file: "iansherr__claude-code-log/test/test_data/real_projects/-src-experiments-claude_p/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl",
            version: Some("2.1.17"),
            prompt: Some("Use the Explore task in sub-agents with Haiku model"),
            reply_calls: 1,
            todos: None,
            modified: 0,
            read: 0,
            last_action: Some(("Task", Some(true))),
            plan: false,
        },
        // 2.1.29: a compact boundary; the last turn is after it, then /context and /exit.
        Expect {
            file: "randlee__claude-history/docs/examples/claude-history-simple/export/source/session.jsonl",
            version: Some("2.1.29"),
            prompt: Some("I thought we already planned phase 9?"),
            reply_calls: 4,
            todos: None,
            modified: 1,
            read: 0,
            last_action: Some(("Bash", Some(true))),
            plan: false,
        },
        // 2.1.38: tool calls rejected by the user, then an interrupt marker.
        Expect {
            file: "SPOTTER/short.jsonl",
            version: Some("2.1.38"),
            prompt: Some("mix phx.server doesnt seem to start"),
            reply_calls: 2,
            todos: None,
            modified: 0,
            read: 0,
            last_action: Some(("Glob", Some(false))),
            plan: false,
        },
        // 2.1.39: auto compaction in the middle of a turn: the prompt ("continue") is
        // before the boundary; files are the whole turn's, the last action after it.
        Expect {
            file: "SPOTTER/4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
            version: Some("2.1.39"),
            prompt: Some("continue"),
            reply_calls: 128,
            todos: None,
            modified: 11,
            read: 1,
            last_action: Some(("Read", Some(true))),
            plan: false,
        },
        // 2.1.39: background task notifications and a failed last Read.
        Expect {
            file: "SPOTTER/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
            version: Some("2.1.39"),
            prompt: Some("did you push?"),
            reply_calls: 0,
            todos: None,
            modified: 12,
            read: 5,
            last_action: Some(("Read", Some(false))),
            plan: false,
        },
        // 2.1.39: the prompt is 900 lines before the boundary; files are the turn's.
        Expect {
            file: "SPOTTER/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl",
            version: Some("2.1.39"),
            prompt: Some("continue until all are done"),
            reply_calls: 135,
            todos: None,
            modified: 17,
            read: 4,
            last_action: Some(("Bash", Some(true))),
            plan: false,
        },
        // 2.1.42: /exit after the last answer; gitBranch "HEAD".
        Expect {
            file: "iansherr__claude-code-log/test/test_data/real_projects/-experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl",
            version: Some("2.1.42"),
            prompt: Some("Fair enough. Can you write a balanced opinion on this approach?"),
            reply_calls: 0,
            todos: None,
            modified: 0,
            read: 1,
            last_action: Some(("Read", Some(true))),
            plan: false,
        },
        // 2.1.114: TaskCreate ×6 and TaskUpdate ×13, replayed (ids from toolUseResult).
        Expect {
            file: "iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
            version: Some("2.1.114"),
            prompt: Some("Well, the subagents seem to be either stuck or done... can you check?"),
            reply_calls: 13,
            todos: Some((Tasks, 6, 0)),
            modified: 0,
            read: 0,
            last_action: Some(("Bash", Some(true))),
            plan: false,
        },
        // A 0-byte session file.
        Expect {
            file: "ME_NEXT/7864f562-717b-4d70-a1cb-b588f7826a1a.jsonl",
            version: None,
            prompt: None,
            reply_calls: 0,
            todos: None,
            modified: 0,
            read: 0,
            last_action: None,
            plan: false,
        },
    ]
}

#[test]
fn hand_verified_expectations() {
    let Some(dir) = corpus_dir() else { return };
    let cases = expectations();
    assert!(cases.len() >= 15);
    let mut versions: Vec<_> = cases.iter().filter_map(|c| c.version).collect();
    versions.dedup();
    assert!(versions.len() >= 12, "{versions:?}");
    let mut wrong = Vec::new();
    for c in cases {
        let rel = c
            .file
            .replace("LOG_SAMPLE", LOG_SAMPLE)
            .replace("ME_NEXT", ME_NEXT)
            .replace("VIEWER", VIEWER)
            .replace("SPOTTER", SPOTTER);
        let ex = extract(&dir.join(&rel));
        let prompt_ok = match (c.prompt, &ex.last_prompt) {
            (None, None) => true,
            (Some(want), Some(got)) => got.text.starts_with(want),
            _ => false,
        };
        let got = (
            ex.version.as_deref(),
            ex.last_prompt.as_ref().map(|p| one_line(&p.text, 60)),
            ex.reply.as_ref().map_or(0, |r| r.tool_calls.len()),
            ex.todos
                .as_ref()
                .map(|t| (t.source, t.items.len(), t.open_count())),
            (ex.files.modified.len(), ex.files.read.len()),
            ex.last_action.as_ref().map(|a| (a.tool.as_str(), a.ok)),
            ex.plan.is_some(),
        );
        let want = (
            c.version,
            got.1.clone(),
            c.reply_calls,
            c.todos,
            (c.modified, c.read),
            c.last_action,
            c.plan,
        );
        if !prompt_ok || got != want {
            wrong.push(format!(
                "{rel}:\n  want prompt {:?}, {want:?}\n  got  {got:?}",
                c.prompt
            ));
        }
    }
    // Every case is checked before failing, so one run shows all that changed.
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn task_replay_matches_the_task_list_result() {
    // ef958aa1 calls TaskList once; its result lists every task as completed or not.
    let Some(dir) = corpus_dir() else { return };
    let ex = extract(&dir.join(
        "iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
    ));
    let todos = ex.todos.unwrap();
    let subjects: Vec<_> = todos.items.iter().map(|t| t.content.as_str()).collect();
    assert_eq!(
        subjects,
        [
            "Research plan mode (alice)",
            "Research teammates (bob)",
            "Research Beads (carol)",
            "Merge round-1 branches into master",
            "Round 2: comparison sections",
            "Merge round-2 branches into master"
        ]
    );
    assert_eq!(
        todos.items[0].active_form.as_deref(),
        Some("alice researching plan mode")
    );
}

/// A sub-agent's transcript read by hand is a session of its own (docs/design.md
/// §3.2): its id is its file's, and every one that holds a conversation gives its task
/// prompt or a later one. The files without one have no prompt to give: 2.0.x
/// "warm-up" agents open with the assistant's greeting and hold no user text.
#[test]
fn sub_agent_files_are_sessions_of_their_own() {
    let Some(dir) = corpus_dir() else { return };
    let agents: Vec<_> = all_transcripts(&dir)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("agent-"))
                && std::fs::metadata(p).is_ok_and(|m| m.len() > 0)
        })
        .collect();
    assert!(agents.len() >= 60, "{}", agents.len());
    let mut without_prompt = 0;
    for p in &agents {
        let ex = extract(p);
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        assert_eq!(
            ex.session_id.as_deref(),
            Some(stem.as_str()),
            "{}",
            p.display()
        );
        if ex.last_prompt.is_none() {
            without_prompt += 1;
            let text = std::fs::read_to_string(p).unwrap();
            let typed = text.lines().any(|l| {
                serde_json::from_str::<serde_json::Value>(l)
                    .is_ok_and(|v| v["type"] == "user" && v["message"]["content"].is_string())
            });
            assert!(!typed, "a typed prompt was missed in {}", p.display());
        }
    }
    assert!(
        without_prompt < agents.len() / 4,
        "{without_prompt} without a prompt"
    );
}
