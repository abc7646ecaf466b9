//! End to end with the real Codex CLI (the version `scripts/test` installs), offline,
//! against the fake Responses API on 127.0.0.1, with `HOME` and `CODEX_HOME` in a
//! temporary directory and memory-stalker installed as `./install.sh` installs it (its
//! hooks trusted: no `--dangerously-bypass-hook-trust`):
//!
//! - an automatic compaction in the middle of a `codex exec` turn: one memory, and the
//!   next model request carries the restore naming it;
//! - a session's failed check and its commit, as the real CLI records them, in the
//!   memory; a check still running when its call returned, failing and then passing
//!   where `write_stdin` waited on it; what a Stop hook and a PreToolUse hook of the
//!   user's required (`--dangerously-bypass-hook-trust`);
//! - a sub-agent the model spawned (`multi_agent_v1`) that compacts while its parent
//!   waits: its hooks save no memory under the session's id;
//! - a compaction before the turn of `codex exec resume`;
//! - `/compact` typed in the interactive Codex under tmux, `--no-daemon`, after a
//!   command run with `!` and the request it is the context of;
//! - a question the model asked in Plan mode (`request_user_input`), answered on the
//!   interactive Codex's screen with an option and a note;
//! - the recall in Codex of a memory Claude Code wrote, read further with the MCP tool,
//!   and in Claude Code of a memory Codex wrote;
//! - the installer into a scratch `CODEX_HOME`, twice, and its uninstall;
//! - the note before a patch (switched on) of a file an earlier memory names: once, in
//!   the next request the model gets; the `apply_patch` matcher of its group, which
//!   keeps the hook from the commands around a patch.
//!
//! What the model received (restores, recalls, tool answers) is printed with
//! `--nocapture`.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::claude::Tmux;
use support::codex::{CodexWorld, installed, version};
use support::http::Recorded;
use support::responses::{FAKE_SUMMARY, Kind, SESSION, Turn, developer_texts, kind};

const SAVE_MEMORY: &str = env!("CARGO_BIN_EXE_save-memory");

/// The start of the restore context (docs/design.md §2.6).
const RESTORE: &str = "memory-stalker: facts saved from this session just before the compaction";
/// The start of the recall (docs/design.md §2.9).
const RECALL: &str = "memory-stalker: this project's latest memory is from";

/// The work of a session: a plan, a patch, then a read that reports usage over the
/// limit, so that Codex compacts before it answers.
fn working_turns() -> Vec<Turn> {
    vec![
        Turn::call(
            "update_plan",
            json!({"explanation": "two steps", "plan": [
                {"step": "Write API notes", "status": "in_progress"},
                {"step": "Review the notes", "status": "pending"}]}),
        ),
        Turn::patch(
            "*** Begin Patch\n*** Add File: API_NOTES.md\n+# API notes\n+GET /health\n*** End Patch\n",
        ),
        Turn::call("exec_command", json!({"cmd": "cat API_NOTES.md"})).tokens(200_000),
        Turn::text("API notes written; the review is next."),
    ]
}

/// The developer text of `req` that starts with `prefix`.
fn context(req: &Recorded, prefix: &str) -> Option<String> {
    developer_texts(req)
        .into_iter()
        .find(|t| t.starts_with(prefix))
}

/// The first conversation request after the first compaction request.
fn after_compaction(w: &CodexWorld) -> Recorded {
    let all = w.api.requests();
    let at = all
        .iter()
        .position(|r| kind(r) == Kind::Compaction)
        .expect("no compaction request");
    all[at + 1..]
        .iter()
        .find(|r| kind(r) == Kind::Turn)
        .cloned()
        .expect("no request after the compaction")
}

fn only_memory(w: &CodexWorld) -> (PathBuf, String) {
    let files = w.memory_files();
    assert_eq!(files.len(), 1, "exactly one memory: {files:?}");
    let text = fs::read_to_string(&files[0]).unwrap();
    (files[0].clone(), text)
}

/// Runs `codex exec --json <prompt>` to its end (the script compacts once): the one
/// memory it left.
fn memory_of_exec(w: &CodexWorld, prompt: &str) -> String {
    let run = w.exec(&["--json", prompt]);
    assert!(
        run.out.status.success(),
        "{}\n{}",
        run.stdout(),
        run.stderr()
    );
    let (_, memory) = only_memory(w);
    eprintln!("the memory Codex's session left:\n{memory}");
    memory
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn an_automatic_compaction_mid_turn_is_saved_once_and_restored() {
    let Some(codex) = installed() else { return };
    let w = CodexWorld::new(&codex, SAVE_MEMORY);
    w.api.push(working_turns());
    let run = w.exec(&[
        "--json",
        "Write the API notes for the uploader; keep them short.",
    ]);
    assert!(
        run.out.status.success(),
        "{}\n{}",
        run.stdout(),
        run.stderr()
    );
    assert_eq!(w.api.compaction_requests().len(), 1);

    let (path, memory) = only_memory(&w);
    assert!(
        memory.contains("trigger: \"auto\"\nagent: \"codex\"\n"),
        "{memory}"
    );
    // The version of the Codex that ran (`MEMORY_STALKER_E2E_CODEX_VERSION` may name
    // another than the one the tests are written for).
    assert!(
        memory.contains(&format!("- Codex: {}\n", version())),
        "{memory}"
    );
    assert!(
        memory.contains("```text\nWrite the API notes for the uploader; keep them short.\n```")
    );
    assert!(memory.contains("- [ ] **in progress**: Write API notes\n- [ ] Review the notes"));
    assert!(
        memory.contains("### Modified\n\n- `API_NOTES.md`"),
        "{memory}"
    );
    assert!(
        memory.contains("- exec_command `cat API_NOTES.md` — succeeded"),
        "{memory}"
    );
    assert!(
        memory.contains(&format!(
            "## Codex compaction summary\n\n```markdown\n{FAKE_SUMMARY}\n```"
        )),
        "{memory}"
    );
    let next = after_compaction(&w);
    let restore = context(&next, RESTORE).expect("the restore reached the model");
    eprintln!("the restore as the fake server received it:\n{restore}");
    assert!(restore.chars().count() <= 8_000);
    assert!(restore.contains(&format!("Memory file: .claude/memories/{}", name(&path))));
    assert!(restore.contains("> Write the API notes for the uploader; keep them short."));
    assert!(restore.contains("- [ ] (in progress) Write API notes"));
    // The memory of the compaction was found by both later hooks: no backfill.
    let log = fs::read_to_string(w.memories().join(".log")).unwrap();
    assert!(!log.contains("saving one now"), "{log}");
    assert_eq!(log.matches(" info saved ").count(), 1, "{log}");

    // The rollout Codex wrote, read by hand: the segment after the compaction (the
    // final answer), what outlived it (the request, the plan), nothing left unread.
    let rollouts = w.rollouts();
    assert_eq!(rollouts.len(), 1);
    let inspect = w.run(
        Path::new(SAVE_MEMORY),
        &["inspect", "--json", rollouts[0].to_str().unwrap()],
        &w.project(),
    );
    assert!(inspect.out.status.success(), "{}", inspect.stderr());
    let mut ex: Value = serde_json::from_str(&inspect.stdout()).unwrap();
    for volatile in ["session_id", "cwd"] {
        ex[volatile] = json!("<volatile>");
    }
    ex["last_prompt"]["timestamp"] = json!("<time>");
    ex["last_prompt"]["uuid"] = json!("<id>");
    // The version Codex wrote is the one under test, whichever of those scripts/test runs.
    assert_eq!(ex["version"], json!(version()));
    ex["version"] = json!("<codex version>");
    insta::assert_json_snapshot!("codex_rollout_after_compaction", ex);
}

/// What the real Codex CLI records of a session's shell work reaches the memory as it
/// does for Claude Code: a check that failed until a patch made it pass (a failed
/// approach) and the commit git reported, each from `exec_command`.
#[test]
fn a_codex_sessions_failed_check_and_commit_reach_the_memory() {
    let Some(codex) = installed() else { return };
    let w = CodexWorld::new(&codex, SAVE_MEMORY);
    w.api.push(vec![
        Turn::patch(
            "*** Begin Patch\n*** Add File: check.sh\n+if [ -f READY ]; then echo ready; else echo 'error: READY is missing' >&2; exit 1; fi\n*** End Patch\n",
        ),
        Turn::call("exec_command", json!({"cmd": "sh check.sh"})),
        Turn::patch("*** Begin Patch\n*** Add File: READY\n+yes\n*** End Patch\n"),
        Turn::call("exec_command", json!({"cmd": "sh check.sh"})),
        Turn::call(
            "exec_command",
            json!({"cmd": "git init -q && git add -A && git -c user.name=Dev -c user.email=dev@example.com commit -m 'feat: add the readiness check'"}),
        )
        .tokens(200_000),
        Turn::text("The check passes and is committed."),
    ]);
    let memory = memory_of_exec(&w, "Add a readiness check and commit it.");
    assert!(
        memory.contains(
            "### Approaches that failed\n\n- `sh check.sh` failed once (error: READY is missing) until: editing READY (exec_command, "
        ),
        "{memory}"
    );
    let commits = &memory[memory
        .find("### Commits made in this session\n\n- `")
        .unwrap_or_else(|| panic!("{memory}"))..];
    assert!(
        commits
            .lines()
            .nth(2)
            .is_some_and(|l| l.ends_with(")")
                && l.contains("` feat: add the readiness check (exec_command, ")),
        "{commits}"
    );
}

/// A command still running when `exec_command` returned ("Process running with session
/// ID N", as the real CLI writes it) ends where the `write_stdin` that waited on it says:
/// its failure, then its success after a patch, make the failed approach.
#[test]
fn a_long_check_that_failed_while_codex_waited_is_a_failed_approach() {
    let Some(codex) = installed() else { return };
    let w = CodexWorld::new(&codex, SAVE_MEMORY);
    let slow = json!({"cmd": "sh slow.sh", "yield_time_ms": 250});
    let wait = json!({"session_id": SESSION, "chars": "", "yield_time_ms": 10000});
    w.api.push(vec![
        Turn::patch(
            "*** Begin Patch\n*** Add File: slow.sh\n+sleep 2\n+if [ -f READY ]; then echo ready; else echo 'error: READY is missing' >&2; exit 1; fi\n*** End Patch\n",
        ),
        Turn::call("exec_command", slow.clone()),
        Turn::call("write_stdin", wait.clone()),
        Turn::patch("*** Begin Patch\n*** Add File: READY\n+yes\n*** End Patch\n"),
        Turn::call("exec_command", slow),
        Turn::call("write_stdin", wait).tokens(200_000),
        Turn::text("The slow check passes."),
    ]);
    let memory = memory_of_exec(&w, "Add a slow readiness check.");
    assert!(
        memory.contains(
            "- `sh slow.sh` failed once (error: READY is missing) until: editing READY (exec_command, "
        ),
        "{memory}"
    );
    assert!(
        memory.contains("- exec_command `sh slow.sh` — failed\n"),
        "{memory}"
    );
    assert!(memory.contains("- write_stdin `session "), "{memory}");
    // The wait that saw it fail, in the reply; the last one saw it pass.
    assert!(memory.contains(" (sh slow.sh)` — failed\n"), "{memory}");
    assert!(
        memory.contains("## Last action\n\n- write_stdin `session ")
            && memory.contains(" (sh slow.sh)` — succeeded\n"),
        "{memory}"
    );
}

/// What a Stop hook that blocked made the real Codex tell the model is kept as what
/// hooks required, not taken for a request: the rollout it wrote, saved by hand.
#[test]
fn a_stop_hooks_requirement_in_codex_is_kept() {
    let Some(codex) = installed() else { return };
    let w = CodexWorld::new(&codex, SAVE_MEMORY);
    // A Stop hook that blocks once, with its reason.
    let flag = w.root.path().join("stop-hook-ran");
    let script = w.root.path().join("stop.sh");
    fs::write(
        &script,
        format!(
            "if [ -e '{flag}' ]; then exit 0; fi\ntouch '{flag}'\necho '{{\"decision\": \"block\", \"reason\": \"Cannot stop with unstaged changes: commit them first.\"}}'\n",
            flag = flag.display()
        ),
    )
    .unwrap();
    add_hook(&w, "Stop", None, &script);
    w.api.push(vec![
        Turn::text("The notes are written."),
        Turn::text("Committed the notes."),
    ]);
    let memory = memory_saved_by_hand(&w, "Write the API notes.");
    assert!(flag.exists(), "the Stop hook did not run");
    assert!(
        memory.contains("### What hooks required\n\n- Cannot stop with unstaged changes: commit them first. (Stop hook, "),
        "{memory}"
    );
    let requests = &memory[memory
        .find("### Your requests")
        .unwrap_or_else(|| panic!("{memory}"))..];
    let requests = &requests[..requests.find("\n###").map_or(requests.len(), |e| e + 1)];
    assert!(!requests.contains("Cannot stop"), "{requests}");
}

/// A call the user's PreToolUse hook blocked in the real Codex ("Command blocked by
/// PreToolUse hook: <reason>. Command: …"): the call failed, and the hook's reason is
/// what hooks required.
#[test]
fn a_pre_tool_use_hooks_block_in_codex_is_kept() {
    let Some(codex) = installed() else { return };
    let w = CodexWorld::new(&codex, SAVE_MEMORY);
    let script = w.root.path().join("guard.sh");
    fs::write(
        &script,
        "cat >/dev/null\necho 'Use pnpm, not npm.' >&2\nexit 2\n",
    )
    .unwrap();
    add_hook(&w, "PreToolUse", Some("Bash"), &script);
    w.api.push(vec![
        Turn::call("exec_command", json!({"cmd": "npm install"})),
        Turn::text("The hook wants pnpm; I will use it."),
    ]);
    let memory = memory_saved_by_hand(&w, "Install the dependencies.");
    assert!(
        memory.contains("### What hooks required\n\n- Use pnpm, not npm. (PreToolUse hook, "),
        "{memory}"
    );
    assert!(
        memory.contains("- exec_command `npm install` — failed"),
        "{memory}"
    );
}

/// Adds a hook of the user's for `event` to the world's `hooks.json`, running `script`.
fn add_hook(w: &CodexWorld, event: &str, matcher: Option<&str>, script: &Path) {
    let path = w.codex_home().join("hooks.json");
    let mut hooks: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let mut group = json!({"hooks": [{"type": "command", "command": format!("sh {}", script.display()), "timeout": 10}]});
    if let Some(m) = matcher {
        group["matcher"] = json!(m);
    }
    hooks["hooks"][event] = json!([group]);
    fs::write(&path, hooks.to_string()).unwrap();
}

/// Runs `codex exec` (every hook run, trusted or not) to its end, then saves a memory of
/// its rollout by hand: the memory.
fn memory_saved_by_hand(w: &CodexWorld, prompt: &str) -> String {
    let run = w.exec(&["--dangerously-bypass-hook-trust", "--json", prompt]);
    assert!(
        run.out.status.success(),
        "{}\n{}",
        run.stdout(),
        run.stderr()
    );
    let rollouts = w.rollouts();
    let saved = w.run(
        Path::new(SAVE_MEMORY),
        &[
            "--transcript",
            rollouts[0].to_str().unwrap(),
            "--project",
            w.project().to_str().unwrap(),
        ],
        &w.project(),
    );
    assert!(saved.out.status.success(), "{}", saved.stderr());
    let (_, memory) = only_memory(w);
    eprintln!("the memory, saved by hand:\n{memory}");
    memory
}

/// The namespace of Codex's sub-agent tools; Codex 0.169.0 offers it only through
/// `tool_search`.
const MULTI_AGENT: &str = "multi_agent_v1";

/// The fake model of a session that hands a task to a sub-agent. The two threads ask at
/// once, in no fixed order, so each request is answered from what its `input` holds; the
/// sub-agent's carry `"thread_source":"subagent"` in `x-codex-turn-metadata`. The parent
/// finds the tools (`tool_search`), spawns the sub-agent, waits for it, closes it and
/// answers; the sub-agent runs a command whose usage is over the limit, so it compacts,
/// then answers.
fn parent_and_sub_agent(req: &Recorded) -> Turn {
    let meta: Value = req
        .header("x-codex-turn-metadata")
        .and_then(|m| serde_json::from_str(m).ok())
        .unwrap_or_default();
    let input = req.json()["input"].as_array().cloned().unwrap_or_default();
    let calls: Vec<&Value> = input
        .iter()
        .filter(|i| i["type"] == "function_call")
        .collect();
    let called = |name: &str| calls.iter().any(|c| c["name"] == name);
    if meta["thread_source"] == "subagent" {
        let compacted = input
            .iter()
            .filter_map(|i| i["content"].as_array())
            .flatten()
            .any(|c| c["text"].as_str().is_some_and(|t| t.contains(FAKE_SUMMARY)));
        return if compacted || called("exec_command") {
            Turn::text("notes.txt has 3 lines")
        } else {
            Turn::call("exec_command", json!({"cmd": "wc -l notes.txt"})).tokens(200_000)
        };
    }
    if !input.iter().any(|i| i["type"] == "tool_search_output") {
        return Turn::raw(json!({
            "type": "tool_search_call", "id": "ts_1", "call_id": "search-1",
            "execution": "client", "status": "completed",
            "arguments": {"query": "spawn sub-agent", "limit": 8}}));
    }
    let Some(spawn) = calls.iter().find(|c| c["name"] == "spawn_agent") else {
        return Turn::call_in(
            MULTI_AGENT,
            "spawn_agent",
            json!({"message": "CHILD-TASK count the lines of notes.txt"}),
        );
    };
    // The spawn's output: {"agent_id": …, "nickname": …}.
    let agent = input
        .iter()
        .find(|i| i["type"] == "function_call_output" && i["call_id"] == spawn["call_id"])
        .and_then(|o| serde_json::from_str::<Value>(o["output"].as_str()?).ok())
        .map(|o| o["agent_id"].clone())
        .unwrap_or_default();
    if !called("wait_agent") {
        Turn::call_in(
            MULTI_AGENT,
            "wait_agent",
            json!({"targets": [agent], "timeout_ms": 20000}),
        )
    } else if !called("close_agent") {
        Turn::call_in(MULTI_AGENT, "close_agent", json!({"target": agent}))
    } else {
        Turn::text("The sub-agent says notes.txt has 3 lines.")
    }
}

/// A sub-agent's hooks in the real Codex carry the session's id with the sub-agent's
/// own rollout (docs/design.md §2.11): its compaction saves no memory, which would pass
/// for the session's newest; its PreCompact says so in the project's log.
#[test]
fn a_sub_agents_compaction_in_codex_saves_no_memory() {
    let Some(codex) = installed() else { return };
    let w = CodexWorld::new(&codex, SAVE_MEMORY);
    fs::write(w.project().join("notes.txt"), "alpha\nbeta\ngamma\n").unwrap();
    w.api.answer_with(parent_and_sub_agent);
    let run = w.exec(&["--json", "Ask a sub-agent how many lines notes.txt has."]);
    assert!(
        run.out.status.success(),
        "{}\n{}",
        run.stdout(),
        run.stderr()
    );

    // The sub-agent ran in a rollout of its own and compacted there; the session did not.
    let sub_agents = |r: &Recorded| {
        r.header("x-codex-turn-metadata")
            .is_some_and(|m| m.contains("\"thread_source\":\"subagent\""))
    };
    let compactions = w.api.compaction_requests();
    assert_eq!(compactions.len(), 1, "{}", run.stderr());
    assert!(sub_agents(&compactions[0]), "the session compacted itself");
    let rollouts = w.rollouts();
    assert_eq!(rollouts.len(), 2, "{rollouts:?}");
    let (children, _): (Vec<_>, Vec<_>) = rollouts.iter().partition(|p| {
        fs::read_to_string(p)
            .unwrap()
            .lines()
            .next()
            .is_some_and(|meta| meta.contains("\"thread_source\":\"subagent\""))
    });
    assert_eq!(children.len(), 1, "{rollouts:?}");
    let child = children[0];
    let rollout = fs::read_to_string(child).unwrap();
    assert!(rollout.contains("\"type\":\"compacted\""), "{rollout}");
    let meta: Value = serde_json::from_str(rollout.lines().next().unwrap()).unwrap();
    let agent = meta["payload"]["id"].as_str().unwrap();
    // Its answer reached the session through the wait.
    let last = w.api.turn_requests().into_iter().rfind(|r| !sub_agents(r));
    assert!(
        last.is_some_and(|r| r.body.contains("notes.txt has 3 lines")),
        "the session did not get the sub-agent's answer"
    );

    // Its PreCompact ran, and saved nothing.
    let log = fs::read_to_string(w.memories().join(".log")).unwrap_or_default();
    eprintln!("the project's log:\n{log}");
    assert!(
        log.contains(&format!("a sub-agent's compaction (agent {agent})")),
        "{log}"
    );
    assert!(!log.contains(" info saved "), "{log}");
    let memories: Vec<String> = w
        .memory_files()
        .iter()
        .map(|m| {
            let text = fs::read_to_string(m).unwrap();
            let transcript = text.lines().find(|l| l.starts_with("transcript: "));
            format!("{} ({})", name(m), transcript.unwrap_or("no transcript"))
        })
        .collect();
    assert!(
        memories.is_empty(),
        "memories saved, the sub-agent's rollout being {}: {memories:?}",
        child.display()
    );
}

#[test]
fn a_compaction_before_the_turn_of_exec_resume() {
    let Some(codex) = installed() else { return };
    let w = CodexWorld::new(&codex, SAVE_MEMORY);
    w.api.push([
        Turn::call(
            "update_plan",
            json!({"plan": [{"step": "Add the retry budget", "status": "in_progress"}]}),
        ),
        // Over the limit at the end of the turn: the next turn compacts first.
        Turn::text("Started on the retry budget.").tokens(200_000),
    ]);
    let first = w.exec(&["Start the retry budget for the uploader."]);
    assert!(first.out.status.success(), "{}", first.stderr());
    assert!(w.memory_files().is_empty(), "no compaction yet");
    w.api.push([Turn::text("Continuing with the tests.")]);
    let resumed = w.exec(&["resume", "--last", "Now write the tests."]);
    assert!(
        resumed.out.status.success(),
        "{}\n{}",
        resumed.stdout(),
        resumed.stderr()
    );
    let compactions = w.api.compaction_requests();
    assert_eq!(compactions.len(), 1);
    let meta = compactions[0].header("x-codex-turn-metadata").unwrap_or("");
    assert!(meta.contains("\"phase\":\"pre_turn\""), "{meta}");
    let (path, memory) = only_memory(&w);
    assert!(
        memory.contains("trigger: \"auto\"\nagent: \"codex\"\n"),
        "{memory}"
    );
    assert!(
        memory.contains("Start the retry budget for the uploader."),
        "{memory}"
    );
    let next = after_compaction(&w);
    let restore = context(&next, RESTORE).expect("the restore reached the model");
    assert!(restore.contains(&name(&path)), "{restore}");
    // SessionStart(resume) fired too, before SessionStart(compact): its recall names
    // the memory just saved.
    let recall = context(&next, RECALL).expect("the recall reached the model");
    eprintln!("resume: the recall and the restore as received:\n{recall}\n---\n{restore}");
    assert!(recall.contains(&name(&path)), "{recall}");
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

/// Types a line into the TUI and sends it (Enter sent apart: a burst of keys ending in
/// Enter reads as a paste).
fn say(tui: &Tmux, text: &str) {
    tui.type_text(text);
    std::thread::sleep(Duration::from_millis(600));
    tui.keys(&["Enter"]);
}

/// Processes whose command line names `dir` (a daemon Codex left behind would).
fn processes_in(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().into_owned();
    fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&needle))
        .collect()
}

#[test]
fn compact_typed_in_the_interactive_codex() {
    let Some(codex) = installed() else { return };
    if !support::claude::tmux_available() {
        return;
    }
    let w = CodexWorld::new(&codex, SAVE_MEMORY);
    w.api.push([
        Turn::call(
            "update_plan",
            json!({"plan": [{"step": "Write API notes", "status": "in_progress"}, {"step": "Review the notes", "status": "pending"}]}),
        ),
        Turn::text("Notes planned."),
        Turn::text("Fixed both lint problems."),
        Turn::text("Going on after compaction."),
    ]);
    let screens = {
        let tui = started_tui(&w);
        say(&tui, "Plan the API notes for the uploader");
        let (ok, screen) = tui.wait_for(Duration::from_secs(30), |s| s.contains("Notes planned."));
        assert!(ok, "no answer:\n{screen}");
        // A command the user runs with `!`, then the request it is the context of.
        say(&tui, "!echo 'notes.md:3: error: line too long'");
        let (ok, screen) = tui.wait_for(Duration::from_secs(20), |s| {
            s.contains("3: error: line too long")
        });
        assert!(ok, "the shell command did not run:\n{screen}");
        say(&tui, "please fix these");
        let (ok, screen) = tui.wait_for(Duration::from_secs(30), |s| {
            s.contains("Fixed both lint problems.")
        });
        assert!(ok, "no answer:\n{screen}");
        let compacted = compact_in_tui(&w, &tui);
        // SessionStart(compact) waits for the next prompt.
        say(&tui, "go on");
        let (ok, screen) = tui.wait_for(Duration::from_secs(30), |s| {
            s.contains("Going on after compaction.")
        });
        assert!(ok, "{screen}");
        say(&tui, "/quit");
        let _ = tui.wait_for(Duration::from_secs(10), |s| s.trim().is_empty());
        format!("{compacted}\n---\n{screen}")
    };
    let out = support::repo_root().join("target/e2e/codex-tui-compact.txt");
    let _ = fs::write(&out, &screens);
    let (path, memory) = only_memory(&w);
    assert!(
        memory.contains("trigger: \"manual\"\nagent: \"codex\"\n"),
        "{memory}"
    );
    // The title the TUI asked its model for (the fake API's "Retry budget"), which Codex
    // keeps in its home's session_index.jsonl, is the headline.
    assert!(memory.contains("\nsummary: \"Retry budget\"\n"), "{memory}");
    // The `!` command is the context of the request after it, not a request.
    assert!(
        memory.contains(
            "### Commands you ran yourself\n\n- `echo 'notes.md:3: error: line too long'`"
        ),
        "{memory}"
    );
    assert!(
        memory.contains("then user asked “please fix these” (! command, "),
        "{memory}"
    );
    let next = after_compaction(&w);
    let restore = context(&next, RESTORE).expect("the restore reached the model");
    assert!(restore.contains(&name(&path)), "{restore}");
    // What Codex's summary left out came with the prompt, through UserPromptSubmit.
    let note = context(&next, "memory-stalker: the compaction summary leaves out")
        .expect("the note reached the model");
    eprintln!("TUI /compact: the restore and the note as received:\n{restore}\n---\n{note}");
    // --no-daemon: no background daemon was installed or is left running.
    assert!(!w.codex_home().join("packages").exists());
    assert!(
        eventually(Duration::from_secs(10), || processes_in(w.root.path())
            .is_empty()),
        "left running: {:?}",
        processes_in(w.root.path())
    );
}

/// The interactive Codex (`--no-daemon`, under tmux), ready for a prompt.
fn started_tui(w: &CodexWorld) -> Tmux {
    let tui = w.tui(&[], 120, 40);
    let ready =
        |s: &str| s.contains("Ask Codex to do anything") || s.contains("Use existing model");
    let (ok, screen) = tui.wait_for(Duration::from_secs(30), ready);
    assert!(ok, "the TUI did not start:\n{screen}");
    if screen.contains("Use existing model") {
        // A notice about a newer model (the configuration says it was seen): keep the
        // configured one.
        tui.keys(&["2"]);
        std::thread::sleep(Duration::from_millis(300));
        tui.keys(&["Enter"]);
        let (ok, screen) = tui.wait_for(Duration::from_secs(15), |s| {
            s.contains("Ask Codex to do anything")
        });
        assert!(ok, "{screen}");
    }
    tui
}

/// `/compact` typed in the TUI: the screen once Codex says it compacted, after
/// PostCompact added Codex's summary to the memory.
fn compact_in_tui(w: &CodexWorld, tui: &Tmux) -> String {
    say(tui, "/compact");
    let (ok, compacted) =
        tui.wait_for(Duration::from_secs(30), |s| s.contains("Context compacted"));
    assert!(ok, "no compaction:\n{compacted}");
    assert!(
        eventually(Duration::from_secs(10), || w
            .memory_files()
            .first()
            .and_then(|p| fs::read_to_string(p).ok())
            .is_some_and(|m| m.contains("## Codex compaction summary"))),
        "PostCompact did not add Codex's summary"
    );
    compacted
}

/// The question the fake model asks with `request_user_input` (Plan mode's tool; every
/// field is required).
fn database_question() -> Value {
    json!({"questions": [{
        "id": "db",
        "header": "Database",
        "question": "Which database should the cache use?",
        "options": [
            {"label": "SQLite", "description": "one file"},
            {"label": "Postgres", "description": "a server"}]}]})
}

/// A question the model asked in Plan mode (`request_user_input`), answered on the
/// interactive Codex's screen with an option and a note typed after Tab: the memory
/// keeps the answer, with the note, and the choice as a decision.
#[test]
fn a_question_answered_in_codexs_plan_mode_is_kept() {
    let Some(codex) = installed() else { return };
    if !support::claude::tmux_available() {
        return;
    }
    let w = CodexWorld::new(&codex, SAVE_MEMORY);
    w.api.push([
        Turn::call("request_user_input", database_question()),
        Turn::text("Postgres behind pgbouncer it is."),
    ]);
    let screens = {
        let tui = started_tui(&w);
        // The prompt, sent in Plan mode (shift+tab; the tool is only offered there).
        // Codex draws its prompt before the session is configured, and a shift+tab sent
        // before that is lost, or undone when it is: sent once the screen is still, and
        // again until Plan mode shows and lasts.
        tui.settle(Duration::from_secs(1), Duration::from_secs(10));
        tui.type_text("Set up a cache for the uploader");
        let in_plan = |s: &str| s.contains("Plan mode (shift+tab to cycle)");
        let mut attempts = 0;
        loop {
            attempts += 1;
            tui.keys(&["BTab"]);
            let (shown, _) = tui.wait_for(Duration::from_secs(5), in_plan);
            let screen = tui.settle(Duration::from_secs(1), Duration::from_secs(5));
            if shown && in_plan(&screen) {
                break;
            }
            assert!(attempts < 3, "no Plan mode:\n{screen}");
        }
        tui.keys(&["Enter"]);
        let (ok, asked) = tui.wait_for(Duration::from_secs(30), |s| {
            s.contains("Question 1/1") && s.contains("3. None of the above")
        });
        assert!(ok, "no question:\n{asked}");
        // The second option, then a note (Tab opens the notes), then submit.
        tui.keys(&["Down"]);
        let (ok, screen) = tui.wait_for(Duration::from_secs(10), |s| s.contains("› 2. Postgres"));
        assert!(ok, "Postgres not selected:\n{screen}");
        tui.keys(&["Tab"]);
        let (ok, screen) = tui.wait_for(Duration::from_secs(10), |s| {
            s.contains("tab or esc to clear notes")
        });
        assert!(ok, "no notes:\n{screen}");
        tui.type_text("with pgbouncer please");
        let (ok, noted) = tui.wait_for(Duration::from_secs(10), |s| {
            s.contains("› with pgbouncer please")
        });
        assert!(ok, "the note was not typed:\n{noted}");
        std::thread::sleep(Duration::from_millis(600));
        tui.keys(&["Enter"]);
        let (ok, answered) = tui.wait_for(Duration::from_secs(30), |s| {
            s.contains("Postgres behind pgbouncer it is.")
        });
        assert!(ok, "no answer:\n{answered}");
        let compacted = compact_in_tui(&w, &tui);
        say(&tui, "/quit");
        let _ = tui.wait_for(Duration::from_secs(10), |s| s.trim().is_empty());
        format!("{asked}\n---\n{noted}\n---\n{answered}\n---\n{compacted}")
    };
    let out = support::repo_root().join("target/e2e/codex-tui-question.txt");
    let _ = fs::write(&out, &screens);

    // What Codex sent the model: the option picked, and the note.
    let sent = w
        .api
        .turn_requests()
        .iter()
        .flat_map(|r| r.json()["input"].as_array().cloned().unwrap_or_default())
        .find(|i| i["type"] == "function_call_output")
        .and_then(|o| serde_json::from_str::<Value>(o["output"].as_str()?).ok())
        .expect("the answer reached the model");
    eprintln!("Plan mode: the answer as received: {sent}");
    assert_eq!(
        sent,
        json!({"answers": {"db": {"answers": ["Postgres", "user_note: with pgbouncer please"]}}})
    );

    let (_, memory) = only_memory(&w);
    eprintln!("the memory:\n{memory}");
    assert!(
        memory.contains("trigger: \"manual\"\nagent: \"codex\"\n"),
        "{memory}"
    );
    let answers = section(&memory, "### Your answers to the assistant's questions");
    assert!(
        answers.contains(
            "\n- “Which database should the cache use?” → Postgres (with pgbouncer please) (request_user_input, "
        ),
        "{memory}"
    );
    assert!(
        section(&memory, "### Decisions").contains(
            "\n- User chose “Postgres (with pgbouncer please)” when asked “Which database should the cache use?” (request_user_input, "
        ),
        "{memory}"
    );
}

/// The section of `memory` under `heading`, to the next heading.
fn section<'a>(memory: &'a str, heading: &str) -> &'a str {
    let Some(at) = memory.find(&format!("\n{heading}\n")) else {
        panic!("no {heading:?} in:\n{memory}");
    };
    let rest = &memory[at + 1..];
    let body = heading.len() + 1;
    &rest[..rest[body..]
        .find("\n#")
        .map_or(rest.len(), |e| body + e + 1)]
}

#[test]
fn codex_recalls_claude_codes_memory_and_reads_it_with_the_mcp_tool() {
    let Some(codex) = installed() else { return };
    let w = CodexWorld::new(&codex, SAVE_MEMORY);
    // A memory Claude Code's session left (the sample session, saved by hand).
    let saved = w.run(
        Path::new(SAVE_MEMORY),
        &[
            "--transcript",
            support::sample_transcript().to_str().unwrap(),
            "--project",
            w.project().to_str().unwrap(),
        ],
        &w.project(),
    );
    assert!(saved.out.status.success(), "{}", saved.stderr());
    let (path, _) = only_memory(&w);
    w.api.push([
        Turn::call_in(
            "mcp__memory_stalker",
            "show_memory",
            json!({"target": "latest", "section": "tasks"}),
        ),
        Turn::text("You were adding tests for retries."),
    ]);
    let run = w.exec(&["What was I doing in this project?"]);
    assert!(run.out.status.success(), "{}", run.stderr());
    let turns = w.api.turn_requests();
    let recall = context(&turns[0], RECALL).expect("the recall reached the model");
    eprintln!("Codex: the recall of Claude Code's memory as received:\n{recall}");
    assert!(recall.contains("Claude Code session 7c630e3a"), "{recall}");
    assert!(recall.contains(&name(&path)));
    assert!(recall.contains("show_memory"), "{recall}");
    // The MCP server Codex started (from config.toml) served the project's memory.
    let answer: Value = serde_json::from_str(&turns[1].body).unwrap();
    let output = answer["input"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "function_call_output")
        .map(|i| i["output"].to_string())
        .expect("the tool's answer reached the model");
    eprintln!("Codex: show_memory's answer as received: {output}");
    assert!(output.contains("Claude Code session 7c630e3a"), "{output}");
    assert!(
        output.contains("Add tests for retries and the budget"),
        "{output}"
    );
}

#[test]
fn claude_code_recalls_the_memory_codex_wrote() {
    let Some(codex) = installed() else { return };
    let Some(claude) = support::claude::installed().into_iter().next() else {
        return;
    };
    // A real rollout: Codex plans and patches, then compacts (the memory is saved by
    // the hook, in a project Claude Code then opens).
    let w = CodexWorld::new(&codex, SAVE_MEMORY);
    w.api.push(working_turns());
    let run = w.exec(&["Write the API notes for the uploader; keep them short."]);
    assert!(run.out.status.success(), "{}", run.stderr());
    let (codex_memory, _) = only_memory(&w);

    let mut cw = support::claude::World::new(&claude, support::claude::Hooks::All, SAVE_MEMORY);
    cw.set("MEMORY_STALKER_SUMMARIZER", "offline");
    // The same project for both agents: Codex's memory copied into Claude Code's. And
    // the same user: each world has a HOME of its own, so Codex's world's writer key
    // goes with the memory (one person's key signs both agents' memories, and only
    // their own memories are recalled, docs/design.md §4.10).
    let dir = cw.memories();
    fs::create_dir_all(&dir).unwrap();
    fs::copy(&codex_memory, dir.join(name(&codex_memory))).unwrap();
    let key = Path::new(".local/state/memory-stalker/writer.key");
    fs::create_dir_all(cw.home().join(key).parent().unwrap()).unwrap();
    fs::copy(w.home().join(key), cw.home().join(key)).expect("Codex's world's writer key");
    cw.api.push([support::anthropic::Turn::text("Hello.")]);
    cw.claude_p(&["Where did we leave off?"]).assert_ok();
    let first = cw
        .api
        .message_requests()
        .into_iter()
        .find(|r| r.body.contains("Where did we leave off?"))
        .expect("no request of the conversation");
    let body: Value = serde_json::from_str(&first.body).unwrap();
    let recall = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|b| b["text"].as_str().map(String::from))
        .find_map(|t| {
            // The recall's paragraph, out of the block Claude Code wraps it in.
            let from = t.find(RECALL)?;
            let rest = &t[from..];
            Some(rest[..rest.find("\n\n").unwrap_or(rest.len())].to_string())
        })
        .expect("the recall reached Claude Code's model");
    eprintln!(
        "Claude Code {}: the recall of Codex's memory as received:\n{recall}",
        claude.version
    );
    assert!(
        recall.contains(&format!("Codex session {}", &name(&codex_memory)[16..24])),
        "{recall}"
    );
    assert!(
        recall.contains("- [in progress] Write API notes"),
        "{recall}"
    );
    assert!(
        recall.contains("the user can run /memory-stalker:resume."),
        "{recall}"
    );
}

#[test]
fn the_installer_into_a_scratch_codex_home_then_uninstall() {
    let Some(codex) = installed() else { return };
    let root = tempfile::tempdir().unwrap();
    let mut w = CodexWorld::bare(root, &codex);
    // A checkout: the bundle with its binaries, the installer, the sample session.
    let repo = w.root.path().join("checkout");
    support::claude::copy_bundle(&repo, SAVE_MEMORY);
    let fixtures = repo.join("tests/fixtures");
    fs::create_dir_all(&fixtures).unwrap();
    fs::copy(
        support::sample_transcript(),
        fixtures.join("sample-session.jsonl"),
    )
    .unwrap();
    // The user's own hook and configuration, which must come through untouched.
    let users_hooks = "{\n  \"hooks\": {\n    \"Stop\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"/usr/bin/true\"}]}\n    ]\n  }\n}\n";
    fs::write(w.codex_home().join("hooks.json"), users_hooks).unwrap();
    let users_config = fs::read_to_string(w.codex_home().join("config.toml")).unwrap();
    w.set("CODEX", codex.to_str().unwrap());
    w.set("CLAUDE", "/nonexistent/claude");
    let install = |w: &CodexWorld| {
        let run = w.run(&repo.join("install.sh"), &["--no-build"], &repo);
        assert!(
            run.out.status.success(),
            "{}\n{}",
            run.stdout(),
            run.stderr()
        );
        run.stdout()
    };
    let first = install(&w);
    eprintln!("./install.sh:\n{first}");
    assert!(
        first.contains("==> installing memory-stalker into Codex"),
        "{first}"
    );
    assert!(first.contains("trusted those 6 hooks"), "{first}");
    let second = install(&w);
    eprintln!("./install.sh, again:\n{second}");
    assert!(
        second.contains("memory-stalker's hooks are there already"),
        "{second}"
    );
    assert!(
        second
            .contains("the hooks are trusted already, and the MCP server memory-stalker is there"),
        "{second}"
    );

    // Codex's own view (app-server `hooks/list`): every hook of ours trusted.
    let listed = hooks_list(&w);
    let ours: Vec<&Value> = listed
        .iter()
        .filter(|h| {
            h["command"]
                .as_str()
                .is_some_and(|c| c.contains("/plugin/run' save-memory"))
        })
        .collect();
    assert_eq!(ours.len(), 6, "{listed:?}");
    for h in &ours {
        assert_eq!(h["trustStatus"], "trusted", "{h}");
    }
    // The note before an edit, for Codex's patch tool alone: its group's matcher is in
    // the trust hash Codex computes (and ours matched it).
    let note = ours
        .iter()
        .find(|h| {
            h["command"]
                .as_str()
                .is_some_and(|c| c.ends_with(" save-memory action-note"))
        })
        .unwrap_or_else(|| panic!("no action note in {ours:?}"));
    eprintln!("Codex's view of the note before an edit: {note}");
    assert_eq!(note["matcher"], "apply_patch", "{note}");
    // And they run without --dangerously-bypass-hook-trust.
    w.api.push(working_turns());
    let run = w.exec(&["Write the API notes for the uploader; keep them short."]);
    assert!(run.out.status.success(), "{}", run.stderr());
    assert_eq!(w.memory_files().len(), 1, "{}", run.stderr());

    let removed = w.run(&repo.join("install.sh"), &["--uninstall"], &repo);
    assert!(
        removed.out.status.success(),
        "{}\n{}",
        removed.stdout(),
        removed.stderr()
    );
    eprintln!("./install.sh --uninstall:\n{}", removed.stdout());
    assert_eq!(
        fs::read_to_string(w.codex_home().join("hooks.json")).unwrap(),
        users_hooks
    );
    let config = fs::read_to_string(w.codex_home().join("config.toml")).unwrap();
    assert!(!config.contains("memory-stalker"), "{config}");
    // What Codex itself added while running stays; the user's lines are all there.
    for line in users_config.lines() {
        assert!(config.contains(line), "{line:?} is gone:\n{config}");
    }
    let again = w.run(&repo.join("install.sh"), &["--uninstall"], &repo);
    assert!(
        again
            .stdout()
            .contains("memory-stalker is not installed in Codex"),
        "{}",
        again.stdout()
    );

    // Without codex on PATH, the installer says so and changes nothing.
    w.set("CODEX", "/nonexistent/codex");
    let run = w.run(&repo.join("install.sh"), &["--no-build"], &repo);
    assert!(run.out.status.success(), "{}", run.stderr());
    assert!(
        run.stdout()
            .contains("Codex ('/nonexistent/codex') is not on PATH"),
        "{}",
        run.stdout()
    );
    assert_eq!(
        fs::read_to_string(w.codex_home().join("hooks.json")).unwrap(),
        users_hooks
    );
}

/// Codex's `hooks/list` for the project, over `codex app-server`'s JSON-RPC on stdio.
fn hooks_list(w: &CodexWorld) -> Vec<Value> {
    use std::io::{BufRead, Write};
    let mut child = std::process::Command::new(&w.codex)
        .arg("app-server")
        .current_dir(w.project())
        .env_clear()
        .envs(w.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let project = w.project().to_string_lossy().into_owned();
    for msg in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "e2e", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [project]}}),
    ] {
        writeln!(stdin, "{msg}").unwrap();
    }
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut found = Vec::new();
    for line in stdout.lines() {
        let Ok(line) = line else { break };
        let v: Value = serde_json::from_str(&line).unwrap_or_default();
        if v["id"] == 2 {
            found = v["result"]["data"][0]["hooks"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            break;
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    found
}

/// The codex-cli backend (docs/design.md §5.2): the memory's AI summary written by a
/// nested `codex exec` (here against the same fake API), with no hooks, no shell and no
/// session of its own.
#[test]
fn the_codex_cli_backend_writes_the_summary() {
    let Some(codex) = installed() else { return };
    let mut w = CodexWorld::new(&codex, SAVE_MEMORY);
    w.set("MEMORY_STALKER_SUMMARIZER", "codex-cli");
    // In the hook: the summary is in the memory when the hook returns.
    w.set("MEMORY_STALKER_ASYNC", "0");
    let path = std::env::var("PATH").unwrap_or_default();
    w.set(
        "PATH",
        &format!("{}:{path}", codex.parent().unwrap().display()),
    );
    w.api.push(working_turns());
    let run = w.exec(&["Write the API notes for the uploader; keep them short."]);
    assert!(run.out.status.success(), "{}", run.stderr());
    let (_, memory) = only_memory(&w);
    assert!(memory.contains("summary_source: \"codex-cli\""), "{memory}");
    assert!(
        memory.contains("Retry budget and 429 handling for the uploader (model summary)"),
        "{memory}"
    );
    let asked = w.api.memory_summary_requests();
    assert_eq!(asked.len(), 1);
    let body: Value = serde_json::from_str(&asked[0].body).unwrap();
    // No hook of ours ran in the nested session (no recall, no second memory), it had
    // no shell, and it kept no rollout.
    assert!(
        developer_texts(&asked[0])
            .iter()
            .all(|t| !t.starts_with("memory-stalker:")),
        "{body}"
    );
    let tools = body["tools"].to_string();
    assert!(
        !tools.contains("exec_command") && !tools.contains("\"shell\""),
        "{tools}"
    );
    assert_eq!(w.rollouts().len(), 1, "the nested run kept no session");
    let log = fs::read_to_string(w.memories().join(".log")).unwrap();
    assert!(log.contains("summary by codex-cli written into"), "{log}");
}

const FILE_NOTE: &str = "memory-stalker: an earlier memory of this project";

/// Writes an earlier memory of this project whose decision names `src/store.rs`.
fn earlier_memory(w: &CodexWorld) {
    support::signed_earlier_memory(
        &w.home(),
        &w.memories(),
        &w.project(),
        "### Decisions\n\n- Your choice: “keep src/store.rs free of I/O; the lock file is the caller's” (AskUserQuestion, 2026-11-18 10:04)",
    );
}

/// The note before an edit (docs/design.md §2.13), switched on, in Codex as installed
/// (its PreToolUse group for `apply_patch`): a patch of a file an earlier memory's
/// decision names gets one note, which the next request the model gets carries; a
/// second patch of the same file, and a patch of a file no memory names, add nothing.
#[test]
fn a_note_before_a_patch_reaches_codexs_model_once() {
    let Some(codex) = installed() else { return };
    let v = version();
    let mut w = CodexWorld::new(&codex, SAVE_MEMORY);
    // Off by default: the user turns them on.
    w.set("MEMORY_STALKER_ACTION_NOTES", "1");
    earlier_memory(&w);
    fs::create_dir_all(w.project().join("src")).unwrap();
    fs::write(w.project().join("src/store.rs"), "fn lock() {}\n").unwrap();
    fs::write(w.project().join("src/other.rs"), "fn other() {}\n").unwrap();
    let patch = |file: &str, old: &str, new: &str| {
        Turn::patch(&format!(
            "*** Begin Patch\n*** Update File: {file}\n@@\n-{old}\n+{new}\n*** End Patch\n"
        ))
    };
    w.api.push(vec![
        patch("src/store.rs", "fn lock() {}", "fn lock() { }"),
        patch("src/store.rs", "fn lock() { }", "fn lock() {  }"),
        patch("src/other.rs", "fn other() {}", "fn other() { }"),
        Turn::text("Done."),
    ]);
    let run = w.exec(&["--json", "Tidy the store's lock"]);
    assert!(
        run.out.status.success(),
        "{}\n{}",
        run.stdout(),
        run.stderr()
    );
    // The hook never stands in a patch's way.
    assert_eq!(
        fs::read_to_string(w.project().join("src/store.rs")).unwrap(),
        "fn lock() {  }\n"
    );
    assert_eq!(
        fs::read_to_string(w.project().join("src/other.rs")).unwrap(),
        "fn other() { }\n"
    );
    let log = fs::read_to_string(w.memories().join(".log")).unwrap_or_default();
    let requests = w.api.turn_requests();
    let notes = |r: &Recorded| -> Vec<String> {
        developer_texts(r)
            .into_iter()
            .filter(|t| t.starts_with(FILE_NOTE))
            .collect()
    };
    // The first request that carries it is the one right after the first patch.
    let at = requests
        .iter()
        .position(|r| !notes(r).is_empty())
        .unwrap_or_else(|| panic!("Codex {v}: the note never reached the model\n{log}"));
    assert!(
        requests[at].body.contains("fn lock() { }")
            && !requests[at].body.contains("fn lock() {  }"),
        "Codex {v}: the note came with another call than the first patch"
    );
    let note = notes(&requests[at]);
    eprintln!("Codex {v}: the note as the model got it: {note:?}");
    assert_eq!(note.len(), 1, "Codex {v}: {note:?}");
    insta::assert_snapshot!(
        "codex_note_before_a_patch",
        note[0].replace(&w.project().display().to_string(), "<project>")
    );
    // The second patch of the file and the patch of another add nothing.
    let last = requests.last().unwrap();
    assert!(
        last.body.contains("fn other() { }"),
        "Codex {v}: the last request"
    );
    assert_eq!(notes(last), note, "Codex {v}: a second note\n{log}");
    assert_eq!(
        log.matches("PreToolUse: a note from an earlier memory")
            .count(),
        1,
        "Codex {v}\n{log}"
    );
}

/// The matcher our installer gives the note's group (`apply_patch`) keeps Codex from
/// starting the hook before its other tool calls: a PreToolUse group of the user's with
/// that matcher runs for the patch alone, not for the commands around it.
#[test]
fn codexs_pre_tool_use_matcher_apply_patch_runs_for_the_patch_alone() {
    let Some(codex) = installed() else { return };
    let v = version();
    let w = CodexWorld::bare(tempfile::tempdir().unwrap(), &codex);
    let seen = w.root.path().join("seen.txt");
    let script = w.root.path().join("seen.sh");
    fs::write(
        &script,
        format!(
            "sed -n 's/.*\"tool_name\":\"\\([A-Za-z_]*\\)\".*/\\1/p' >> {0}\necho >> {0}\n",
            seen.display()
        ),
    )
    .unwrap();
    let group = json!([{"matcher": "apply_patch", "hooks": [{"type": "command", "command": format!("sh {}", script.display()), "timeout": 10}]}]);
    fs::write(
        w.codex_home().join("hooks.json"),
        json!({"hooks": {"PreToolUse": group}}).to_string(),
    )
    .unwrap();
    w.api.push(vec![
        Turn::call("exec_command", json!({"cmd": "echo before"})),
        Turn::patch("*** Begin Patch\n*** Add File: notes.md\n+x\n*** End Patch\n"),
        Turn::call("exec_command", json!({"cmd": "echo after"})),
        Turn::text("Done."),
    ]);
    let run = w.exec(&["--dangerously-bypass-hook-trust", "--json", "Take notes"]);
    assert!(
        run.out.status.success(),
        "{}\n{}",
        run.stdout(),
        run.stderr()
    );
    assert!(w.project().join("notes.md").exists(), "Codex {v}: no patch");
    assert_eq!(
        fs::read_to_string(&seen).unwrap_or_default(),
        "apply_patch\n",
        "Codex {v}"
    );
}
