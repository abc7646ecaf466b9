//! End to end with the real Claude Code CLI (every version `scripts/test` installed under
//! `target/e2e/`, newest and 2.1.197), offline against a fake Messages API on 127.0.0.1
//! (`tests/support/anthropic.rs`): the plugin is loaded with `--plugin-dir`, or once
//! through the installer's marketplace path, and every assertion is on what reached the
//! disk or the requests the fake API received.
//!
//! Run alone: `scripts/test --test save_memory e2e_claude_code` (or
//! `cargo test --test save_memory e2e_claude_code` after `scripts/test` has installed
//! Claude Code once).

use crate::support;

use std::fs;
use std::time::{Duration, Instant};

use serde_json::json;
use support::anthropic::Turn;
use support::claude::{Claude, Hooks, World, copy_bundle, installed, task_turns};

const SAVE_MEMORY: &str = env!("CARGO_BIN_EXE_save-memory");

/// Two exchanges (2.1.197 refuses to compact fewer): a task list, a file, a command.
fn work(w: &mut World) -> String {
    let turns = task_turns(w);
    w.api.push(turns);
    let sid = w
        .claude_p(&[
            "--dangerously-skip-permissions",
            "Write API notes for the service",
        ])
        .assert_ok()
        .session_id();
    w.api.push([
        Turn::say_and_call(
            "Listing the endpoints.",
            "Bash",
            json!({"command": "ls", "description": "list files"}),
        ),
        Turn::text("The endpoints are GET /health and POST /upload."),
    ]);
    w.claude_p(&[
        "--dangerously-skip-permissions",
        "--resume",
        &sid,
        "Also list the endpoints",
    ])
    .assert_ok();
    sid
}

/// A checkout of the repository in the world: the bundle, the installer, the sample
/// session.
fn checkout(w: &World) -> std::path::PathBuf {
    let repo = w.root.path().join("checkout");
    copy_bundle(&repo, SAVE_MEMORY);
    let fixtures = repo.join("tests/fixtures");
    fs::create_dir_all(&fixtures).unwrap();
    fs::copy(
        support::sample_transcript(),
        fixtures.join("sample-session.jsonl"),
    )
    .unwrap();
    repo
}

/// Polls until `f` holds, for at most `limit`.
fn eventually(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    f()
}

fn for_each_version(test: impl Fn(&Claude)) {
    for c in installed() {
        eprintln!("-- Claude Code {}", c.version);
        test(&c);
    }
}

#[test]
fn manual_compaction_saves_restores_and_adds_claude_codes_summary() {
    for_each_version(|c| {
        let mut w = World::new(c, Hooks::All, SAVE_MEMORY);
        let sid = work(&mut w);
        w.claude_p(&[
            "--dangerously-skip-permissions",
            "--resume",
            &sid,
            "/compact keep the API notes",
        ])
        .assert_ok();
        let files = w.memory_files();
        assert_eq!(files.len(), 1, "{}: {files:?}", c.version);
        let memory = fs::read_to_string(&files[0]).unwrap();
        let v = &c.version;
        assert!(memory.contains("trigger: \"manual\""), "{v}");
        assert!(memory.contains(&format!("session_id: \"{sid}\"")), "{v}");
        assert!(
            memory.contains("- Custom instructions: keep the API notes"),
            "{v}"
        );
        assert!(
            memory.contains("```text\nAlso list the endpoints\n```"),
            "{v}: last prompt\n{memory}"
        );
        assert!(
            memory.contains("The endpoints are GET /health and POST /upload."),
            "{v}: reply"
        );
        assert!(
            memory.contains("- [x] Write API notes"),
            "{v}: tasks\n{memory}"
        );
        assert!(memory.contains("- [ ] Review the notes"), "{v}: tasks");
        assert!(memory.contains("API_NOTES.md`"), "{v}: files");
        // PostCompact added Claude Code's own summary, without its analysis.
        assert!(memory.contains("## Claude Code compaction summary"), "{v}");
        assert!(memory.contains("The user asked for API notes."), "{v}");
        assert!(!memory.contains("Checking the conversation."), "{v}");
        // PreCompact's steering reached the compaction prompt.
        let compaction = w.api.compaction_requests();
        assert_eq!(compaction.len(), 1, "{v}");
        let body = &compaction[0].body;
        assert!(
            body.contains("memory-stalker: keep verbatim the task list"),
            "{v}"
        );
        assert!(body.contains("[ ] Review the notes"), "{v}");
        assert!(body.contains("keep the API notes"), "{v}");

        // The next request after compaction carries the restore context and the note
        // about what Claude Code's summary left out (the last request).
        w.api
            .push([Turn::text("Next: review the notes.").when("What is left?")]);
        w.claude_p(&[
            "--dangerously-skip-permissions",
            "--resume",
            &sid,
            "What is left?",
        ])
        .assert_ok();
        let next = w
            .api
            .message_requests()
            .into_iter()
            .rfind(|r| r.body.contains("What is left?"))
            .expect("the request after compaction");
        assert!(
            next.body.contains(
                "memory-stalker: facts saved from this session just before the compaction"
            ),
            "{v}"
        );
        assert!(next.body.contains("Review the notes"), "{v}");
        assert!(
            next.body.contains("the compaction summary leaves out"),
            "{v}: PostCompact note"
        );

        // The hook saw ANTHROPIC_BASE_URL and the key, so a background worker asked "the
        // API" for the AI summary and wrote it in.
        let arrived = eventually(Duration::from_secs(30), || {
            fs::read_to_string(&files[0]).is_ok_and(|m| m.contains("summary_source: \"anthropic:"))
        });
        assert!(arrived, "{v}: {}", fs::read_to_string(&files[0]).unwrap());
        let summary_request = &w.api.memory_summary_requests()[0];
        assert!(
            summary_request.body.contains("Also list the endpoints"),
            "{v}"
        );
        assert!(
            !summary_request.body.contains("sk-ant-e2e-dummy"),
            "{v}: no key in the prompt"
        );
    });
}

#[test]
fn automatic_compaction_is_recorded_as_auto() {
    for_each_version(|c| {
        let mut w = World::new(c, Hooks::All, SAVE_MEMORY);
        w.set("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "100000");
        w.set("MEMORY_STALKER_SUMMARIZER", "offline");
        // The second answer reports a context far over the window: Claude Code compacts
        // before asking again.
        w.api.push([
            Turn::tool("Bash", json!({"command": "echo one", "description": "one"})).tokens(5_000),
            Turn::tool("Bash", json!({"command": "echo two", "description": "two"}))
                .tokens(990_000),
            Turn::text("All done.").tokens(5_000),
        ]);
        w.claude_p(&["--dangerously-skip-permissions", "Run the two commands"]);
        let v = &c.version;
        let files = w.memory_files();
        assert!(!files.is_empty(), "{v}: no memory");
        for f in &files {
            let memory = fs::read_to_string(f).unwrap();
            assert!(memory.contains("trigger: \"auto\""), "{v}: {memory}");
            assert!(memory.contains("Run the two commands"), "{v}");
        }
        assert!(!w.api.compaction_requests().is_empty(), "{v}");
        assert!(
            w.api.compaction_requests()[0]
                .body
                .contains("memory-stalker: keep verbatim"),
            "{v}"
        );
    });
}

/// The memory file name a hook text names (`…/.claude/memories/<name>.md`).
fn named_memory(text: &str) -> Option<String> {
    let at = text.find(".claude/memories/")? + ".claude/memories/".len();
    let rest = &text[at..];
    let end = rest.find(".md")? + 3;
    Some(rest[..end].to_string())
}

#[test]
fn automatic_compactions_give_one_memory_each_and_the_note_reaches_the_model() {
    for_each_version(|c| {
        let mut w = World::new(c, Hooks::All, SAVE_MEMORY);
        w.set("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "100000");
        w.set("MEMORY_STALKER_SUMMARIZER", "offline");
        // Two answers report a context far over the window: Claude Code compacts twice
        // inside one agent loop, between tool calls.
        w.api.push([
            Turn::tool("Bash", json!({"command": "echo one", "description": "one"})).tokens(5_000),
            Turn::tool("Bash", json!({"command": "echo two", "description": "two"}))
                .tokens(990_000),
            Turn::tool(
                "Bash",
                json!({"command": "echo three", "description": "three"}),
            )
            .tokens(990_000),
            Turn::tool(
                "Bash",
                json!({"command": "echo four", "description": "four"}),
            )
            .tokens(5_000),
            Turn::text("All done.").tokens(5_000),
        ]);
        w.claude_p(&["--dangerously-skip-permissions", "Run the four commands"])
            .assert_ok();
        let v = &c.version;
        let compactions = w.api.compaction_requests();
        assert_eq!(compactions.len(), 2, "{v}: two automatic compactions");
        let files = w.memory_files();
        assert_eq!(
            files.len(),
            compactions.len(),
            "{v}: one memory per compaction: {files:?}\n{}",
            fs::read_to_string(w.memories().join(".log")).unwrap_or_default()
        );
        let requests = w.api.message_requests();
        for (i, compaction) in compactions.iter().enumerate() {
            // The steering of this compaction names a memory; the restore in the first
            // request after it names the same one.
            let steered = named_memory(&compaction.body)
                .unwrap_or_else(|| panic!("{v}: compaction {i} names no memory"));
            let at = requests
                .iter()
                .position(|r| r.body == compaction.body)
                .unwrap();
            let after = requests[at + 1..]
                .iter()
                .find(|r| !r.body.contains("memory-stalker: keep verbatim"))
                .unwrap_or_else(|| panic!("{v}: no request after compaction {i}"));
            let restore_at = after
                .body
                .find("memory-stalker: facts saved from this session")
                .unwrap_or_else(|| panic!("{v}: no restore after compaction {i}"));
            assert_eq!(
                named_memory(&after.body[restore_at..]).as_deref(),
                Some(steered.as_str()),
                "{v}: compaction {i}"
            );
            assert!(
                files.iter().any(|f| f.ends_with(&steered)),
                "{v}: {steered} not in {files:?}"
            );
        }
        // Claude Code's (fake) summary leaves out the user's request: PostCompact's
        // note says so, and a later request carries it to the model.
        let first = requests
            .iter()
            .position(|r| r.body == compactions[0].body)
            .unwrap();
        assert!(
            requests[first + 1..]
                .iter()
                .any(|r| r.body.contains("the compaction summary leaves out")
                    && r.body.contains("Run the four commands")),
            "{v}: the PostCompact note never reached the model"
        );
    });
}

#[test]
fn the_resume_skill_loads_a_memory_without_permission_prompts() {
    for_each_version(|c| {
        let w = World::new(c, Hooks::All, SAVE_MEMORY);
        // A memory to resume from.
        let save = w.plugin().join("bin/save-memory");
        let sample = support::sample_transcript();
        let out = w.run(
            &save,
            &[
                "--transcript",
                sample.to_str().unwrap(),
                "--project",
                w.project().to_str().unwrap(),
            ],
            &w.project(),
        );
        assert!(out.out.status.success(), "{}", out.stderr());
        let file = w.memory_files()[0]
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        w.api.push([
            Turn::tool(
                "Bash",
                json!({"command": "list-memories show latest", "description": "load the memory"}),
            )
            .when("The user asked to resume from"),
            Turn::text("Resumed: the retry tests are in progress."),
        ]);
        // Default permissions: the skill's allowed-tools must be enough.
        let run = w.claude_p(&[
            "--permission-mode",
            "default",
            "/memory-stalker:resume latest",
        ]);
        run.assert_ok();
        let v = &c.version;
        let result = run.json();
        assert_eq!(result["permission_denials"], json!([]), "{v}: {result}");
        let reqs = w.api.message_requests();
        let first = reqs
            .iter()
            .find(|r| r.body.contains("The user asked to resume from"))
            .expect("skill body");
        assert!(
            first
                .body
                .contains("The user asked to resume from: \\\"latest\\\""),
            "{v}"
        );
        // The dynamic context ran list-memories from the plugin's bin/.
        assert!(first.body.contains(&file), "{v}: dynamic context");
        assert!(first.body.contains("\\\"version\\\": 1"), "{v}");
        // And the model's own call of it was allowed and answered.
        let second = reqs
            .iter()
            .find(|r| r.body.contains("tool_result") && r.body.contains("## Current task list"))
            .expect("tool result");
        assert!(
            second.body.contains("Add tests for retries and the budget"),
            "{v}"
        );
    });
}

#[test]
fn post_compact_backfills_when_pre_compact_does_not_fire() {
    for_each_version(|c| {
        let mut w = World::new(c, Hooks::NoPreCompact, SAVE_MEMORY);
        w.set("MEMORY_STALKER_SUMMARIZER", "offline");
        let sid = work(&mut w);
        w.claude_p(&[
            "--dangerously-skip-permissions",
            "--resume",
            &sid,
            "/compact",
        ])
        .assert_ok();
        let v = &c.version;
        let files = w.memory_files();
        assert_eq!(files.len(), 1, "{v}: {files:?}");
        let memory = fs::read_to_string(&files[0]).unwrap();
        assert!(
            memory.contains("```text\nAlso list the endpoints\n```"),
            "{v}"
        );
        assert!(memory.contains("- [ ] Review the notes"), "{v}");
        assert!(
            memory.contains("The user asked for API notes."),
            "{v}: PostCompact's summary"
        );
        let compaction = w.api.compaction_requests();
        assert!(
            !compaction[0].body.contains("is saved in .claude/memories"),
            "{v}: no PreCompact, no steering"
        );
    });
}

#[test]
fn installed_through_the_local_marketplace_by_the_installer() {
    for_each_version(|c| {
        let mut w = World::new(c, Hooks::All, SAVE_MEMORY);
        w.set("MEMORY_STALKER_SUMMARIZER", "offline");
        // A checkout of the repository: the bundle, the installer, the sample session.
        let repo = checkout(&w);
        w.put_claude_on_path();
        let install = w.run(&repo.join("install.sh"), &["--no-build"], &repo);
        let v = &c.version;
        assert!(
            install.out.status.success(),
            "{v}: {}\n{}",
            install.stdout(),
            install.stderr()
        );
        assert!(
            install
                .stdout()
                .contains("installed memory-stalker@memory-stalker"),
            "{v}: {}",
            install.stdout()
        );
        // Idempotent.
        let again = w.run(&repo.join("install.sh"), &["--no-build"], &repo);
        assert!(again.out.status.success(), "{v}: {}", again.stderr());
        let list = w.run(&c.exe, &["plugin", "list"], &repo);
        assert!(
            list.stdout().contains("memory-stalker@memory-stalker"),
            "{v}: {}",
            list.stdout()
        );

        // No --plugin-dir: Claude Code loads the installed plugin.
        let turns = task_turns(&mut w);
        w.api.push(turns);
        let sid = w
            .claude_raw(&[
                "--dangerously-skip-permissions",
                "Write API notes for the service",
            ])
            .assert_ok()
            .session_id();
        w.api.push([Turn::text("Done.")]);
        w.claude_raw(&["--dangerously-skip-permissions", "--resume", &sid, "Thanks"])
            .assert_ok();
        w.claude_raw(&[
            "--dangerously-skip-permissions",
            "--resume",
            &sid,
            "/compact",
        ])
        .assert_ok();
        let files = w.memory_files();
        assert_eq!(files.len(), 1, "{v}: {files:?}");
        assert!(
            fs::read_to_string(&files[0])
                .unwrap()
                .contains("- [ ] Review the notes"),
            "{v}"
        );

        let removed = w.run(&repo.join("install.sh"), &["--uninstall"], &repo);
        assert!(removed.out.status.success(), "{v}: {}", removed.stderr());
        let list = w.run(&c.exe, &["plugin", "list"], &repo);
        assert!(
            !list.stdout().contains("memory-stalker@memory-stalker"),
            "{v}: {}",
            list.stdout()
        );
    });
}

#[test]
fn the_bundle_passes_strict_validation() {
    for_each_version(|c| {
        let w = World::new(c, Hooks::All, SAVE_MEMORY);
        let run = w.run(
            &c.exe,
            &[
                "plugin",
                "validate",
                "--strict",
                w.plugin().to_str().unwrap(),
            ],
            &w.project(),
        );
        assert!(
            run.out.status.success(),
            "{}: {}\n{}",
            c.version,
            run.stdout(),
            run.stderr()
        );
        // The repository root is the marketplace: validate it too (with a bin/).
        let repo = w.root.path().join("checkout");
        copy_bundle(&repo, SAVE_MEMORY);
        let run = w.run(
            &c.exe,
            &["plugin", "validate", "--strict", repo.to_str().unwrap()],
            &w.project(),
        );
        assert!(
            run.out.status.success(),
            "{}: {}\n{}",
            c.version,
            run.stdout(),
            run.stderr()
        );
        assert!(run.stdout().contains("marketplace"), "{}", run.stdout());
    });
}

#[test]
fn the_claude_cli_backend_asks_a_nested_claude() {
    for_each_version(|c| {
        let mut w = World::new(c, Hooks::All, SAVE_MEMORY);
        // Subscription users have no API key for memory-stalker: it runs `claude -p`.
        w.set("MEMORY_STALKER_SUMMARIZER", "claude-cli");
        w.put_claude_on_path();
        let sid = work(&mut w);
        w.claude_p(&[
            "--dangerously-skip-permissions",
            "--resume",
            &sid,
            "/compact",
        ])
        .assert_ok();
        let v = &c.version;
        let memory = w.memory_files().pop().expect("a memory");
        let arrived = eventually(Duration::from_secs(60), || {
            fs::read_to_string(&memory).is_ok_and(|m| m.contains("summary_source: \"claude-cli\""))
        });
        assert!(arrived, "{v}: {}", fs::read_to_string(&memory).unwrap());
        let text = fs::read_to_string(&memory).unwrap();
        assert!(
            text.contains("| src/retry.rs | created | RetryBudget and backoff |"),
            "{v}"
        );
        // The nested claude ran our prompt, without our plugin (no hook recursion: one
        // memory only, and no second compaction).
        assert_eq!(w.api.memory_summary_requests().len(), 1, "{v}");
        assert_eq!(w.memory_files().len(), 1, "{v}");
    });
}

#[test]
fn plugin_options_set_in_claude_code_reach_the_hooks() {
    for_each_version(|c| {
        let w = World::new(c, Hooks::All, SAVE_MEMORY);
        // What `/plugin configure` or `claude plugin install --config lang=zh` stores.
        let settings = w.home().join(".claude/settings.json");
        fs::create_dir_all(settings.parent().unwrap()).unwrap();
        fs::write(
            &settings,
            json!({"pluginConfigs": {"memory-stalker@inline": {"options": {"lang": "zh", "summarizer": "offline"}}}}).to_string(),
        )
        .unwrap();
        let mut w = w;
        let sid = work(&mut w);
        w.claude_p(&[
            "--dangerously-skip-permissions",
            "--resume",
            &sid,
            "/compact",
        ])
        .assert_ok();
        let v = &c.version;
        let memory = fs::read_to_string(w.memory_files().pop().expect("a memory")).unwrap();
        assert!(
            memory.contains("## 当前任务列表"),
            "{v}: CLAUDE_PLUGIN_OPTION_LANG=zh\n{memory}"
        );
        assert!(
            memory.contains("summary_source: \"offline\""),
            "{v}: CLAUDE_PLUGIN_OPTION_SUMMARIZER"
        );
    });
}

#[test]
fn a_rejected_task_write_is_no_task_list() {
    for_each_version(|c| {
        let mut w = World::new(c, Hooks::All, SAVE_MEMORY);
        w.set("MEMORY_STALKER_SUMMARIZER", "offline");
        // Neither version offers TodoWrite by default (2.1.197 has the Task tools, newer
        // versions no task tool): the call is answered "No such tool available".
        let todos = json!({"todos": [{"content": "Ghost task from a refused write", "status": "pending", "activeForm": "Haunting"}]});
        w.api.push([
            Turn::tool("TodoWrite", todos),
            Turn::text("I could not record the plan; carrying on without a list."),
        ]);
        let sid = w
            .claude_p(&["--dangerously-skip-permissions", "Plan the migration"])
            .assert_ok()
            .session_id();
        w.api.push([Turn::text("Nothing else to do.")]);
        w.claude_p(&[
            "--dangerously-skip-permissions",
            "--resume",
            &sid,
            "Anything else?",
        ])
        .assert_ok();
        w.claude_p(&[
            "--dangerously-skip-permissions",
            "--resume",
            &sid,
            "/compact",
        ])
        .assert_ok();
        let v = &c.version;
        let files = w.memory_files();
        assert_eq!(files.len(), 1, "{v}: {files:?}");
        let memory = fs::read_to_string(&files[0]).unwrap();
        let transcript = memory
            .lines()
            .find_map(|l| l.strip_prefix("transcript: "))
            .and_then(|t| serde_json::from_str::<String>(t).ok())
            .unwrap();
        assert!(
            fs::read_to_string(transcript)
                .unwrap()
                .contains("No such tool available"),
            "{v}: the call was refused"
        );
        let ghost = "Ghost task from a refused write";
        assert!(
            !memory.contains(&format!("] {ghost}")),
            "{v}: task list\n{memory}"
        );
        assert!(
            memory.contains("task_count: 0") || !memory.contains("task_count"),
            "{v}\n{memory}"
        );
        let compaction = &w.api.compaction_requests()[0].body;
        assert!(!compaction.contains(&format!("] {ghost}")), "{v}: steering");
        w.api
            .push([Turn::text("Nothing is left.").when("What is left?")]);
        w.claude_p(&[
            "--dangerously-skip-permissions",
            "--resume",
            &sid,
            "What is left?",
        ])
        .assert_ok();
        let next = w
            .api
            .message_requests()
            .into_iter()
            .rfind(|r| r.body.contains("What is left?"))
            .unwrap();
        assert!(
            next.body.contains("memory-stalker: facts saved"),
            "{v}: restore"
        );
        assert!(
            !next.body.contains(&format!("] {ghost}")),
            "{v}: restore or note"
        );
    });
}

/// Claude Code copies a directory plugin's whole folder into its cache (`.gitignore` or
/// not): the marketplace serves `dist/`, so the repository's `target/` stays out of it.
/// Its install notes say nothing needs configuring, in this version's words, and a second
/// uninstall says there is nothing to do.
#[test]
fn the_installer_keeps_build_output_out_of_claude_codes_copy_and_uninstalls_twice() {
    for_each_version(|c| {
        let mut w = World::new(c, Hooks::All, SAVE_MEMORY);
        w.set("MEMORY_STALKER_SUMMARIZER", "offline");
        let repo = checkout(&w);
        // Build output as a developer's checkout has it.
        fs::create_dir_all(repo.join("target/release")).unwrap();
        fs::write(repo.join("target/release/big"), vec![7u8; 8 << 20]).unwrap();
        w.put_claude_on_path();
        let v = &c.version;
        let install = w.run(&repo.join("install.sh"), &["--no-build"], &repo);
        let out = install.stdout();
        assert!(
            install.out.status.success(),
            "{v}: {out}\n{}",
            install.stderr()
        );
        let cache = w.home().join(".claude/plugins/cache/memory-stalker");
        let files = walk(&cache);
        assert!(
            files.iter().any(|f| f.ends_with("hooks/hooks.json")),
            "{v}: {files:?}"
        );
        assert!(
            !files
                .iter()
                .any(|f| f.to_string_lossy().contains("/target/")),
            "{v}: build output copied"
        );
        // The copy holds one binary: the three tools stay links to it (docs/design.md
        // §2.1), which this version of Claude Code copies as links.
        let bytes: u64 = files
            .iter()
            .map(|f| fs::symlink_metadata(f).map(|m| m.len()).unwrap_or(0))
            .sum();
        let binary = fs::metadata(repo.join("bin/memory-stalker")).unwrap().len();
        assert!(
            bytes < binary + (1 << 20),
            "{v}: {bytes} bytes in the cache"
        );
        for tool in ["save-memory", "list-memories", "memory-stalker-mcp"] {
            let copied: Vec<_> = files
                .iter()
                .filter(|f| f.ends_with(format!("bin/{tool}")))
                .collect();
            assert_eq!(copied.len(), 1, "{v}: {files:?}");
            assert_eq!(
                fs::read_link(copied[0]).ok(),
                Some(std::path::PathBuf::from("memory-stalker")),
                "{v}: {tool}"
            );
        }
        // The plugin runs from dist/ (no --plugin-dir): the startup check found its bin/.
        w.api.push([Turn::text("Hello.")]);
        let run = w.claude_raw(&["--dangerously-skip-permissions", "Hello"]);
        run.assert_ok();
        assert!(!run.stdout().contains("not built"), "{v}: {}", run.stdout());
        // Nothing to configure, said in this version's terms.
        assert!(!out.contains("not yet set"), "{v}: {out}");
        assert!(out.contains("nothing to configure"), "{v}: {out}");
        assert!(
            out.contains("claude plugin install memory-stalker@memory-stalker --config"),
            "{v}: {out}"
        );
        let help = w.run(&c.exe, &["plugin", "--help"], &repo).stdout();
        let has_configure = help
            .lines()
            .any(|l| l.trim_start().starts_with("configure "));
        assert_eq!(
            out.contains("/plugin configure"),
            has_configure,
            "{v}: {out}"
        );

        let first = w.run(&repo.join("install.sh"), &["--uninstall"], &repo);
        assert!(first.out.status.success(), "{v}: {}", first.stderr());
        assert!(first.stdout().contains("is uninstalled"), "{v}");
        assert!(!cache.exists(), "{v}: the cache copy stays");
        let second = w.run(&repo.join("install.sh"), &["--uninstall"], &repo);
        let text = format!("{}{}", second.stdout(), second.stderr());
        assert!(second.out.status.success(), "{v}: {text}");
        assert!(
            !text.contains("Failed") && !text.contains('✘'),
            "{v}: {text}"
        );
        assert!(text.contains("nothing to uninstall"), "{v}: {text}");
        assert!(!text.contains("is uninstalled"), "{v}: {text}");
    });
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() && !p.is_symlink() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// Without its binaries, `/compact` still compacts, and what Claude Code shows the user
/// right after says that no memory was saved.
#[test]
fn a_plugin_without_its_binaries_says_at_compact_that_no_memory_was_saved() {
    for_each_version(|c| {
        let mut w = World::new(c, Hooks::All, SAVE_MEMORY);
        fs::remove_dir_all(w.plugin().join("bin")).unwrap();
        let sid = work(&mut w);
        let run = w.claude_p(&[
            "--dangerously-skip-permissions",
            "--resume",
            &sid,
            "/compact",
        ]);
        run.assert_ok();
        let v = &c.version;
        assert_eq!(w.api.compaction_requests().len(), 1, "{v}: not blocked");
        assert!(
            !run.stdout().contains("Compaction blocked"),
            "{v}: {}",
            run.stdout()
        );
        // What /compact printed is recorded in the transcript.
        let transcript = walk(&w.home().join(".claude/projects"))
            .into_iter()
            .find(|p| p.to_string_lossy().ends_with(&format!("{sid}.jsonl")))
            .expect("transcript");
        let text = fs::read_to_string(transcript).unwrap();
        assert!(
            text.contains(
                "PreCompact [${CLAUDE_PLUGIN_ROOT}/plugin/run save-memory] failed: memory-stalker: no memory was saved"
            ),
            "{v}"
        );
        assert!(w.memory_files().is_empty(), "{v}");
    });
}

/// The plugin's MCP tools as the model sees them.
const MCP_PREFIX: &str = "mcp__plugin_memory-stalker_memory-stalker__";

/// The request of the main conversation whose body holds `text` (not a title or a
/// summary request).
fn request_with(w: &World, text: &str) -> Option<serde_json::Value> {
    w.api
        .message_requests()
        .into_iter()
        .filter(|r| r.body.contains(text))
        .map(|r| serde_json::from_str::<serde_json::Value>(&r.body).unwrap())
        .find(|v| v["tools"].as_array().is_some_and(|t| !t.is_empty()))
}

/// The names of the tools a request offers the model.
fn tool_names(request: &serde_json::Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str().map(String::from))
        .collect()
}

/// Issue 13: the plugin's MCP server is started, its three tools are offered to the
/// model from the first request, a call to search_memories gets the memory back, and
/// the session started with the recall of the latest memory.
#[test]
fn the_model_recalls_and_searches_memories_by_itself() {
    for_each_version(|c| {
        let v = &c.version;
        let w = World::new(c, Hooks::All, SAVE_MEMORY);
        let file = w.seed_memory(SAVE_MEMORY);
        let search = format!("{MCP_PREFIX}search_memories");
        w.api.push([
            Turn::tool(&search, json!({"query": "retry budget"})),
            Turn::text("We settled on at most 10 retries per upload."),
        ]);
        // Only this tool is allowed: the permission a user would give it.
        let run = w.claude_p(&[
            "What did we settle about the retry budget?",
            "--allowedTools",
            &search,
        ]);
        run.assert_ok();
        let first = request_with(&w, "What did we settle about the retry budget?")
            .unwrap_or_else(|| panic!("{v}: no request of the conversation"));
        let names = tool_names(&first);
        eprintln!("{v}: the tools of the first request: {}", names.join(", "));
        for tool in ["search_memories", "show_memory", "list_memories"] {
            assert!(
                names.contains(&format!("{MCP_PREFIX}{tool}")),
                "{v}: {tool} is not offered: {names:?}"
            );
        }
        let described = first["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == search)
            .unwrap();
        eprintln!(
            "{v}: the search tool as the model received it:\n{}",
            serde_json::to_string_pretty(described).unwrap()
        );
        // The recall came with the first request.
        let body = first.to_string();
        if let Some(m) = first["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m.to_string().contains("this project's latest memory"))
        {
            eprintln!(
                "{v}: the recall as the model received it:\n{}",
                serde_json::to_string_pretty(m).unwrap()
            );
        }
        assert!(
            body.contains("memory-stalker: this project's latest memory is from")
                && body.contains("Add tests for retries and the budget")
                && body.contains(&file),
            "{v}: no recall in the first request"
        );
        // The tool's answer went back to the model.
        let answered = request_with(&w, "toolu_fake_")
            .into_iter()
            .chain(
                w.api
                    .message_requests()
                    .into_iter()
                    .map(|r| serde_json::from_str::<serde_json::Value>(&r.body).unwrap()),
            )
            .find_map(|req| {
                req["messages"].as_array()?.iter().find_map(|m| {
                    m["content"]
                        .as_array()?
                        .iter()
                        .find_map(|b| (b["type"] == "tool_result").then(|| b.clone()))
                })
            })
            .unwrap_or_else(|| panic!("{v}: no tool result reached the model"));
        let text = answered["content"].to_string();
        eprintln!(
            "{v}: the search_memories answer as the model received it:\n{}",
            serde_json::to_string_pretty(&answered).unwrap()
        );
        assert!(answered["is_error"] != true, "{v}: {answered}");
        assert!(
            text.contains(&file) && text.to_lowercase().contains("retry budget"),
            "{v}: the hit is not in the answer: {text}"
        );
        assert_eq!(
            run.json()["result"],
            "We settled on at most 10 retries per upload.",
            "{v}"
        );
    });
}

/// Issue 13: a project switched off gets no memory at /compact and no recall at the
/// start of a session.
#[test]
fn a_project_switched_off_gets_no_memory_and_no_recall() {
    for_each_version(|c| {
        let v = &c.version;
        let mut w = World::new(c, Hooks::All, SAVE_MEMORY);
        w.seed_memory(SAVE_MEMORY);
        let list = std::path::Path::new(SAVE_MEMORY).with_file_name("list-memories");
        let off = w.run(&list, &["off"], &w.project());
        assert!(off.out.status.success(), "{}", off.stderr());
        let sid = work(&mut w);
        w.claude_p(&[
            "--dangerously-skip-permissions",
            "--resume",
            &sid,
            "/compact",
        ])
        .assert_ok();
        assert_eq!(
            w.memory_files().len(),
            1,
            "{v}: only the memory from before"
        );
        assert_eq!(w.api.compaction_requests().len(), 1, "{v}: it did compact");
        let requests = w.api.message_requests();
        assert!(
            requests.iter().all(|r| !r
                .body
                .contains("memory-stalker: this project's latest memory")),
            "{v}: a recall reached the model"
        );
        assert!(
            requests
                .iter()
                .all(|r| !r.body.contains("memory-stalker: keep verbatim")),
            "{v}: PreCompact steered the compaction"
        );
        let log = fs::read_to_string(w.memories().join(".log")).unwrap_or_default();
        assert!(log.contains("memory-stalker is off, set by"), "{v}: {log}");
        // On again: the next compaction saves its memory.
        let on = w.run(&list, &["on"], &w.project());
        assert!(on.out.status.success(), "{}", on.stderr());
        w.claude_p(&[
            "--dangerously-skip-permissions",
            "--resume",
            &sid,
            "/compact",
        ])
        .assert_ok();
        assert_eq!(w.memory_files().len(), 2, "{v}");
    });
}

/// Every memory file under `dir`, at any depth (a memories directory in a subdirectory
/// of the project is a memory lost to the project).
fn memories_below(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    walk(dir)
        .into_iter()
        .filter(|p| {
            p.parent().is_some_and(|d| d.ends_with(".claude/memories"))
                && p.extension().is_some_and(|e| e == "md")
                && !p.ends_with("INDEX.md")
        })
        .collect()
}

#[test]
fn a_compaction_after_claude_went_into_a_subdirectory_saves_in_the_project() {
    for_each_version(|c| {
        let mut w = World::new(c, Hooks::All, SAVE_MEMORY);
        w.set("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "100000");
        w.set("MEMORY_STALKER_SUMMARIZER", "offline");
        fs::create_dir_all(w.project().join("frontend")).unwrap();
        let project = w.project();
        w.api.push([
            Turn::tool(
                "Bash",
                json!({"command": "cd frontend && pwd", "description": "go to the frontend"}),
            )
            .tokens(5_000),
            Turn::tool(
                "Write",
                json!({"file_path": project.join("frontend/app.js"), "content": "go()\n"}),
            )
            .tokens(5_000),
            Turn::tool(
                "Write",
                json!({"file_path": project.join("NOTES.md"), "content": "notes\n"}),
            )
            .tokens(5_000),
            Turn::tool("Bash", json!({"command": "pwd", "description": "where"})).tokens(990_000),
            Turn::text("All done.").tokens(5_000),
        ]);
        w.claude_p(&["--dangerously-skip-permissions", "Run the frontend checks"])
            .assert_ok();
        let v = &c.version;
        assert!(
            !w.api.compaction_requests().is_empty(),
            "{v}: no compaction"
        );
        let mut all = memories_below(&w.project());
        all.sort();
        assert!(!all.is_empty(), "{v}: no memory at all");
        assert_eq!(
            w.memory_files(),
            all,
            "{v}: every memory in the project's own directory"
        );
        assert!(
            !w.project().join("frontend/.claude").exists(),
            "{v}: nothing of ours in the subdirectory"
        );
        // The files by their place in the project, not in the session's directory.
        let memory = fs::read_to_string(&all[0]).unwrap();
        let modified = memory
            .split("### Modified")
            .nth(1)
            .and_then(|m| m.split("\n#").next())
            .unwrap_or_default();
        assert!(modified.contains("- `frontend/app.js`"), "{v}: {modified}");
        assert!(modified.contains("- `NOTES.md`"), "{v}: {modified}");
        assert!(
            !modified.contains(&*project.to_string_lossy()),
            "{v}: {modified}"
        );
    });
}
