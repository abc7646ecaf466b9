//! What the user sees in the interactive Claude Code TUI when they type `/compact` with
//! memory-stalker loaded: the real `claude` (not `-p`, every version `scripts/test`
//! installed) runs in a detached tmux session against the fake Messages API on
//! 127.0.0.1, with the plugin loaded by `--plugin-dir`. After one short turn that
//! leaves a task list, `/compact` is typed; once it is done the screen is captured,
//! written to `target/e2e/tui-compact-<version>.txt` for a person to read, and checked:
//! memory-stalker's own lines on it must be few and short.
//!
//! Run alone: `scripts/test --test save_memory e2e_tui`. Needs tmux (skipped without it, except
//! under CI=true).

use crate::support;

use std::fs;
use std::time::{Duration, Instant};

use support::claude::{Claude, Hooks, Tmux, World, installed, task_turns, tmux_available};

const SAVE_MEMORY: &str = env!("CARGO_BIN_EXE_save-memory");

/// Runs `test` for every installed version, then fails with every version's problems
/// (so each version's screen is captured even when an earlier one fails).
fn for_each_version(test: impl Fn(&Claude) -> Vec<String>) {
    if !tmux_available() {
        return;
    }
    let mut problems = Vec::new();
    for c in installed() {
        eprintln!("-- Claude Code {}", c.version);
        problems.extend(test(&c));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// The prompt of the turn. Claude Code's (fake) compaction summary says "The user asked
/// for API notes" and lists "Review the notes" as pending, so it mentions the last
/// request and every open task: PostCompact has nothing to report as dropped.
const PROMPT: &str = "API notes";

/// The closing text of [`task_turns`].
const DONE: &str = "API notes written to API_NOTES.md; the review is still to do.";

/// Long lines of PreCompact's compaction instructions (`hook::context::steering`), which
/// are for the summariser, not for the user's screen.
const STEERING_LINES: [&str; 5] = [
    "structured memory of this session before this compaction",
    "In your summary:",
    "Reproduce the current task list verbatim",
    "Quote the user's last request word for word",
    "State that the full record",
];

/// Text of PostCompact's note about what Claude Code's summary dropped.
const DROPPED_NOTE: [&str; 3] = ["leaves out", "does not mention", "which it does not"];

/// What marks a line of the screen as coming from our hooks.
const OURS: [&str; 4] = [
    "memory-stalker",
    "PreCompact [",
    "PostCompact [",
    "SessionStart",
];

/// The screen rows memory-stalker's hooks put there: each row that mentions a hook or
/// memory-stalker, and the rows it wraps onto (the same indentation, until a blank row,
/// a new `⎿` block, or another such row).
fn our_rows(screen: &str) -> Vec<&str> {
    let indent = |l: &str| l.chars().take_while(|c| *c == ' ').count();
    let mut rows = Vec::new();
    let mut block: Option<usize> = None;
    for line in screen.lines() {
        if OURS.iter().any(|m| line.contains(m)) {
            block = Some(indent(line));
            rows.push(line);
        } else if block.is_some_and(|i| {
            !line.trim().is_empty() && indent(line) == i && !line.trim_start().starts_with('⎿')
        }) {
            rows.push(line);
        } else {
            block = None;
        }
    }
    rows
}

/// The screen as one line, to find text the TUI wrapped over several rows.
fn flat(screen: &str) -> String {
    screen
        .lines()
        .map(|l| l.trim().trim_start_matches(['⎿', '│', '●']).trim())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether the input line holds `text` (the TUI puts a no-break space after `❯`).
fn input_is(screen: &str, text: &str) -> bool {
    screen.lines().any(|l| {
        l.trim()
            .strip_prefix('❯')
            .is_some_and(|rest| rest.trim() == text)
    })
}

fn wait_or_fail(
    t: &Tmux,
    version: &str,
    what: &str,
    limit: Duration,
    done: impl FnMut(&str) -> bool,
) {
    let (ok, screen) = t.wait_for(limit, done);
    assert!(
        ok,
        "{version}: no {what} within {limit:?}; the screen:\n{screen}"
    );
}

#[test]
fn compact_in_the_tui_shows_only_a_short_note_from_memory_stalker() {
    for_each_version(|c| {
        let started = Instant::now();
        let v = c.version.as_str();
        let mut w = World::new(c, Hooks::All, SAVE_MEMORY);
        // No background summary request: the screen does not depend on it.
        w.set("MEMORY_STALKER_SUMMARIZER", "offline");
        let turns = task_turns(&mut w);
        w.api.push(turns);
        w.accept_first_run_dialogs();
        // Killed on drop, so also when an assertion fails.
        let t = w.claude_tui(&["--dangerously-skip-permissions"], 160, 50);

        // The input prompt, and no first-run dialog in front of it.
        wait_or_fail(&t, v, "input prompt", Duration::from_secs(60), |s| {
            s.contains("bypass permissions on") && s.lines().any(|l| l.trim() == "❯")
        });
        t.settle(Duration::from_millis(800), Duration::from_secs(10));

        t.type_text(PROMPT);
        wait_or_fail(&t, v, "typed prompt", Duration::from_secs(10), |s| {
            input_is(s, PROMPT)
        });
        t.keys(&["Enter"]);
        wait_or_fail(&t, v, "end of the turn", Duration::from_secs(90), |s| {
            s.contains(DONE) && w.api.message_requests().len() >= 5
        });
        t.settle(Duration::from_millis(1500), Duration::from_secs(20));

        t.type_text("/compact");
        // The command menu opens with /compact first; Enter runs it.
        wait_or_fail(
            &t,
            v,
            "/compact in the input",
            Duration::from_secs(10),
            |s| input_is(s, "/compact") && s.contains("Free up context"),
        );
        t.settle(Duration::from_millis(500), Duration::from_secs(5));
        t.keys(&["Enter"]);
        // Claude Code prints "Compacted" with the hooks' results once PreCompact, the
        // summary request, SessionStart(compact) and PostCompact are all done.
        wait_or_fail(&t, v, "end of /compact", Duration::from_secs(180), |s| {
            s.contains("Compacted (ctrl+o")
        });
        let screen = t.settle(Duration::from_secs(2), Duration::from_secs(30));
        drop(t);

        let out = support::repo_root().join("target/e2e");
        fs::create_dir_all(&out).unwrap();
        let file = out.join(format!("tui-compact-{v}.txt"));
        fs::write(&file, &screen).unwrap();
        eprintln!(
            "{v}: the screen after /compact is in {} ({:.0?})",
            file.display(),
            started.elapsed()
        );

        // It did compact, and the memory was saved.
        assert_eq!(w.api.compaction_requests().len(), 1, "{v}:\n{screen}");
        assert_eq!(w.memory_files().len(), 1, "{v}: one memory");

        let mut problems = Vec::new();
        let flat = flat(&screen);
        for long in STEERING_LINES {
            if flat.contains(long) {
                problems.push(format!(
                    "{v}: the compaction instructions ({long:?}) are on the user's screen"
                ));
            }
        }
        for note in DROPPED_NOTE {
            if flat.contains(note) {
                problems.push(format!(
                    "{v}: the summary kept everything, yet PostCompact's note ({note:?}) is on the screen"
                ));
            }
        }
        // Claude Code lists every PreCompact and PostCompact hook that ran, output or
        // not: PostCompact's row must be that bare line, and PreCompact's instruction
        // (which reaches the summariser only through this same output) at most 2 rows.
        let rows = our_rows(&screen);
        let (post, pre): (Vec<&str>, Vec<&str>) =
            rows.iter().partition(|r| r.contains("PostCompact ["));
        if pre.len() > 2
            || post.len() > 1
            || post
                .iter()
                .any(|r| !r.trim_end().ends_with("completed successfully"))
        {
            problems.push(format!(
                "{v}: {} rows of the screen come from memory-stalker's hooks (PreCompact at most 2, PostCompact only its bare status line):\n{}",
                rows.len(),
                rows.join("\n")
            ));
        }
        if !problems.is_empty() {
            problems.push(format!("{v}: the screen after /compact:\n{screen}"));
        }
        problems
    });
}

#[test]
fn our_rows_counts_wrapped_hook_output() {
    let screen = "❯ /compact\n  ⎿  Compacted (ctrl+o to see full summary)\n     PreCompact [x] completed successfully: memory-stalker: keep\n     the task list\n     PostCompact [x] completed successfully\n  ⎿  Read API_NOTES.md (4 lines)\n\n  2 tasks (1 done, 1 open)\n";
    assert_eq!(
        our_rows(screen),
        [
            "     PreCompact [x] completed successfully: memory-stalker: keep",
            "     the task list",
            "     PostCompact [x] completed successfully",
        ]
    );
    assert_eq!(flat("  ⎿  a\n     b c\n\n● d"), "a b c d",);
}

/// Issue 13: a session started in a project with a memory worth recalling shows the
/// user nothing of the recall (it is for the model), and no failed MCP server; the
/// first request carries the recall. The screen is written to
/// `target/e2e/tui-startup-<version>.txt`.
#[test]
fn the_recall_at_startup_is_for_the_model_not_the_screen() {
    for_each_version(|c| {
        let v = c.version.as_str();
        let mut w = World::new(c, Hooks::All, SAVE_MEMORY);
        w.set("MEMORY_STALKER_SUMMARIZER", "offline");
        w.seed_memory(SAVE_MEMORY);
        w.api.push([support::anthropic::Turn::text("Hello again.")]);
        w.accept_first_run_dialogs();
        let t = w.claude_tui(&["--dangerously-skip-permissions"], 160, 50);
        wait_or_fail(&t, v, "input prompt", Duration::from_secs(60), |s| {
            s.contains("bypass permissions on") && s.lines().any(|l| l.trim() == "❯")
        });
        t.settle(Duration::from_millis(1500), Duration::from_secs(10));
        t.type_text("hi");
        wait_or_fail(&t, v, "typed prompt", Duration::from_secs(10), |s| {
            input_is(s, "hi")
        });
        t.keys(&["Enter"]);
        wait_or_fail(&t, v, "the answer", Duration::from_secs(60), |s| {
            s.contains("Hello again.")
        });
        let screen = t.settle(Duration::from_secs(1), Duration::from_secs(10));
        drop(t);
        let out = support::repo_root().join("target/e2e");
        fs::create_dir_all(&out).unwrap();
        fs::write(out.join(format!("tui-startup-{v}.txt")), &screen).unwrap();

        let mut problems = Vec::new();
        let rows = our_rows(&screen);
        if !rows.is_empty() {
            problems.push(format!(
                "{v}: memory-stalker is on the screen at startup:\n{}",
                rows.join("\n")
            ));
        }
        let flat = flat(&screen);
        for text in ["latest memory", "Open tasks then", "MCP server", "failed"] {
            if flat.contains(text) {
                problems.push(format!("{v}: {text:?} is on the screen"));
            }
        }
        let recalled = w
            .api
            .message_requests()
            .iter()
            .any(|r| r.body.contains("hi") && r.body.contains("this project's latest memory"));
        if !recalled {
            problems.push(format!("{v}: the recall did not reach the model"));
        }
        if !problems.is_empty() {
            problems.push(format!("{v}: the screen:\n{screen}"));
        }
        problems
    });
}
