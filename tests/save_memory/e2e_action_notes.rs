//! End to end with the real Claude Code CLI (every version `scripts/test` installed under
//! `target/e2e/`): the notes at the moment of action (docs/design.md §2.13). A project
//! holds an earlier memory of the user's own with a failed approach on a file and the
//! error it met; a session edits that file twice and runs a command that fails with the
//! same error. The model's requests, as the fake Messages API received them, carry the
//! note once per file and once per error.
//!
//! Run alone: `cargo test --test save_memory e2e_action_notes` (after `scripts/test`
//! has installed Claude Code once).

use crate::support;

use std::fs;

use serde_json::json;
use support::anthropic::Turn;
use support::claude::{Hooks, World, installed};

const SAVE_MEMORY: &str = env!("CARGO_BIN_EXE_save-memory");

const FILE_NOTE: &str = "memory-stalker: an earlier memory of this project";
const ERROR_NOTE: &str = "memory-stalker: this error was met before";

/// Writes an earlier memory of this project whose failed approach names `src/store.rs`
/// and an error, and says what worked.
fn earlier_memory(w: &World) {
    support::signed_earlier_memory(
        &w.home(),
        &w.memories(),
        &w.project(),
        "### Approaches that failed\n\n- `make check` failed 2 times (error: the store lock is held by another writer process) until: removing the stale lock file in src/store.rs (Bash, 2026-11-18 10:04)",
    );
}

#[test]
fn a_note_before_an_edit_and_after_a_failure_reaches_the_model_once() {
    for c in installed() {
        let v = c.version.clone();
        eprintln!("-- Claude Code {v}");
        let mut w = World::new(&c, Hooks::All, SAVE_MEMORY);
        // Off by default (docs/design.md §2.13): the user turns them on.
        w.env
            .push(("MEMORY_STALKER_ACTION_NOTES".into(), "1".into()));
        earlier_memory(&w);
        let file = w.project().join("src/store.rs");
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, "fn lock() {}\n").unwrap();
        let edit = |old: &str, new: &str| {
            Turn::tool(
                "Edit",
                json!({"file_path": file, "old_string": old, "new_string": new}),
            )
        };
        w.api.push([
            Turn::tool("Read", json!({"file_path": file})),
            edit("fn lock() {}", "fn lock() { }"),
            edit("fn lock() { }", "fn lock() {  }"),
            Turn::tool(
                "Bash",
                json!({"command": "echo 'error: the store lock is held by another writer process' >&2; exit 1", "description": "check"}),
            ),
            Turn::text("Done."),
        ]);
        w.claude_p(&["--dangerously-skip-permissions", "Tidy the store's lock"])
            .assert_ok();
        let requests = w.api.message_requests();
        let last = requests
            .iter()
            .rev()
            .find(|r| r.body.contains("Tidy the store"))
            .unwrap_or_else(|| panic!("{v}: no request"));
        let log = fs::read_to_string(w.memories().join(".log")).unwrap_or_default();
        // Delivered with the first edit; the second edit of the same file adds none.
        let first = requests
            .iter()
            .find(|r| r.body.contains(FILE_NOTE))
            .unwrap_or_else(|| panic!("{v}: the note never reached the model\n{log}"));
        let once = first.body.matches(FILE_NOTE).count();
        assert_eq!(
            last.body.matches(FILE_NOTE).count(),
            once,
            "{v}: the second edit repeated the note\n{log}"
        );
        assert!(
            last.body
                .contains("holds an approach that failed naming src/store.rs"),
            "{v}"
        );
        assert!(
            last.body.contains(ERROR_NOTE),
            "{v}: the note after the failed command never reached the model\n{log}"
        );
        assert!(
            last.body.contains("removing the stale lock file"),
            "{v}: what worked"
        );
        // The note came with the first edit: the request right after it has it.
        let first_edit = requests
            .iter()
            .position(|r| r.body.contains(FILE_NOTE))
            .unwrap();
        assert!(
            !requests[first_edit].body.contains("fn lock() {  }"),
            "{v}: the note reached the model before the second edit"
        );
    }
}

/// A patch as the model may run it through the shell.
const SHELL_PATCH: &str = "*** Begin Patch\n*** Update File: store.rs\n@@\n-fn lock() { }\n+fn lock() {  }\n*** End Patch\n";

/// Codex (the version under test, `MEMORY_STALKER_E2E_CODEX_VERSION`, 0.169.0 unless
/// set): what its PreToolUse and PostToolUse hooks receive for a patch and for a command
/// that fails, and whether their `additionalContext` reaches the next request. A probe
/// hook of the user's records its input and answers with a marker. What it found is why
/// only the note before an edit is registered for Codex, for `apply_patch`, and the note
/// after a failed command is not (docs/design.md §2.13); printed with `--nocapture`.
#[test]
fn what_codex_hooks_see_of_a_patch_and_a_failed_command() {
    use support::codex::{CodexWorld, installed, version};
    use support::responses::{Turn, developer_texts};
    let Some(codex) = installed() else { return };
    let v = version();
    let w = CodexWorld::bare(tempfile::tempdir().unwrap(), &codex);
    fs::write(w.project().join("store.rs"), "fn lock() {}\n").unwrap();
    let dump = w.root.path().join("hook-inputs");
    fs::create_dir_all(&dump).unwrap();
    let script = w.root.path().join("probe.sh");
    fs::write(
        &script,
        format!(
            "n=$(ls {d} | wc -l)\ncat > {d}/$n.json\nev=$(sed -n 's/.*\"hook_event_name\":\"\\([A-Za-z]*\\)\".*/\\1/p' {d}/$n.json)\nprintf '{{\"hookSpecificOutput\":{{\"hookEventName\":\"%s\",\"additionalContext\":\"PROBE-%s-%s\"}}}}' \"$ev\" \"$ev\" \"$n\"\n",
            d = dump.display()
        ),
    )
    .unwrap();
    let path = w.codex_home().join("hooks.json");
    let group = json!([{"hooks": [{"type": "command", "command": format!("sh {}", script.display()), "timeout": 10}]}]);
    fs::write(
        &path,
        json!({"hooks": {"PreToolUse": group, "PostToolUse": group}}).to_string(),
    )
    .unwrap();
    w.api.push(vec![
        Turn::patch("*** Begin Patch\n*** Update File: store.rs\n@@\n-fn lock() {}\n+fn lock() { }\n*** End Patch\n"),
        Turn::call(
            "exec_command",
            json!({"cmd": "echo 'error: the store lock is held' >&2; exit 3"}),
        ),
        // A success that prints what the model's own output of a failure says, and a
        // failure that prints nothing.
        Turn::call(
            "exec_command",
            json!({"cmd": "echo 'Process exited with code 3'"}),
        ),
        Turn::call("exec_command", json!({"cmd": "exit 1"})),
        // A patch the model runs through the shell.
        Turn::call(
            "exec_command",
            json!({"cmd": format!("apply_patch <<'EOF'\n{SHELL_PATCH}EOF\n")}),
        ),
        Turn::text("Done."),
    ]);
    let run = w.exec(&["--dangerously-bypass-hook-trust", "--json", "Tidy the lock"]);
    assert!(
        run.out.status.success(),
        "{}\n{}",
        run.stdout(),
        run.stderr()
    );
    let mut inputs: Vec<(usize, serde_json::Value)> = fs::read_dir(&dump)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let n = e
                .file_name()
                .to_string_lossy()
                .trim_end_matches(".json")
                .parse()
                .ok()?;
            Some((
                n,
                serde_json::from_str(&fs::read_to_string(e.path()).ok()?).ok()?,
            ))
        })
        .collect();
    inputs.sort_by_key(|(n, _)| *n);
    let developer: Vec<String> = w
        .api
        .turn_requests()
        .iter()
        .flat_map(developer_texts)
        .filter(|t| t.starts_with("PROBE-"))
        .collect();
    eprintln!("Codex {v}: hook inputs:");
    for (n, i) in &inputs {
        eprintln!("  {n}: {i}");
    }
    // What the model itself got back for each command (its `function_call_output`).
    for r in w.api.turn_requests() {
        if let Some(o) = r.body.split("\"function_call_output\"").skip(1).last() {
            eprintln!("  model got: {}", &o[..o.len().min(300)]);
        }
    }
    eprintln!("Codex {v}: markers in the model's requests: {developer:?}");
    // As found on 0.169.0 and 0.171.0: PreToolUse of a patch names its files in
    // `tool_input.command`, and its context reaches the model (the channel the edit
    // note would take); PostToolUse of a command that failed (exit 3) gives its output
    // alone, no exit status (so a failure cannot be told from a success that printed
    // the same); both contexts reach the model.
    let (n, pre) = inputs
        .iter()
        .find(|(_, i)| i["hook_event_name"] == "PreToolUse" && i["tool_name"] == "apply_patch")
        .unwrap_or_else(|| panic!("Codex {v}: no PreToolUse for apply_patch"));
    assert!(
        pre["tool_input"]["command"]
            .as_str()
            .is_some_and(|p| p.contains("*** Update File: store.rs")),
        "Codex {v}: {pre}"
    );
    assert!(
        developer.contains(&format!("PROBE-PreToolUse-{n}")),
        "Codex {v}: PreToolUse context never reached the model: {developer:?}"
    );
    let (m, post) = inputs
        .iter()
        .find(|(_, i)| i["hook_event_name"] == "PostToolUse" && i["tool_name"] == "Bash")
        .unwrap_or_else(|| panic!("Codex {v}: no PostToolUse for the command"));
    assert_eq!(
        post["tool_response"], "error: the store lock is held\n",
        "Codex {v}: the failed command's PostToolUse"
    );
    // No field says how the command ended: a success that printed the line Codex
    // writes for the model about a failure reads the same as that failure would, and a
    // failure that printed nothing is an empty string.
    let posts: Vec<&serde_json::Value> = inputs
        .iter()
        .map(|(_, i)| i)
        .filter(|i| i["hook_event_name"] == "PostToolUse" && i["tool_name"] == "Bash")
        .filter(|i| {
            i["tool_input"]["command"]
                .as_str()
                .is_some_and(|c| !c.contains(SHELL_PATCH))
        })
        .collect();
    assert_eq!(posts.len(), 3, "Codex {v}: {posts:?}");
    assert_eq!(posts[1]["tool_response"], "Process exited with code 3\n");
    assert_eq!(posts[2]["tool_response"], "");
    for p in &posts {
        let keys: Vec<&String> = p.as_object().unwrap().keys().collect();
        assert!(
            keys.iter()
                .all(|k| !k.contains("exit") && !k.contains("status") && *k != "error"),
            "Codex {v}: {keys:?}"
        );
    }
    assert!(
        developer.contains(&format!("PROBE-PostToolUse-{m}")),
        "Codex {v}"
    );
    // A patch run through the shell is a `Bash` call to the hooks, not `apply_patch`:
    // the note before an edit, registered for `apply_patch`, does not see it.
    let shell_patch = inputs
        .iter()
        .map(|(_, i)| i)
        .find(|i| {
            i["hook_event_name"] == "PreToolUse"
                && i["tool_input"]["command"]
                    .as_str()
                    .is_some_and(|c| c.contains(SHELL_PATCH))
        })
        .unwrap_or_else(|| panic!("Codex {v}: no PreToolUse for the patch run through the shell"));
    assert_eq!(shell_patch["tool_name"], "Bash", "Codex {v}: {shell_patch}");
}
