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

/// Writes an earlier memory of this project, signed with the world's writer key, whose
/// failed approach names `src/store.rs` and an error, and says what worked.
fn earlier_memory(w: &World) {
    let key = memory_stalker::memory::provenance::Writer::at(
        w.home()
            .join(".local/state/memory-stalker")
            .join(memory_stalker::memory::provenance::KEY_FILE),
    )
    .key_or_create()
    .unwrap();
    let name = "20261118_100400_5e551011.md";
    let text = format!(
        "---\nmemory_stalker: 1\nsession_id: \"5e551011-aaaa-bbbb-cccc-000000000000\"\ncreated: \"2026-11-18T10:04:00+00:00\"\ntrigger: \"auto\"\nproject: {}\nsummary: \"earlier work on the store\"\nsummary_source: \"offline\"\nlang: \"en\"\n---\n\n# Session memory\n\n## Session so far\n\n### Approaches that failed\n\n- `make check` failed 2 times (error: the store lock is held by another writer process) until: removing the stale lock file in src/store.rs (Bash, 2026-11-18 10:04)\n",
        serde_json::to_string(&w.project()).unwrap()
    );
    fs::create_dir_all(w.memories()).unwrap();
    fs::write(w.memories().join(name), key.sign(name, &text)).unwrap();
}

#[test]
fn a_note_before_an_edit_and_after_a_failure_reaches_the_model_once() {
    for c in installed() {
        let v = c.version.clone();
        eprintln!("-- Claude Code {v}");
        let w = World::new(&c, Hooks::All, SAVE_MEMORY);
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
