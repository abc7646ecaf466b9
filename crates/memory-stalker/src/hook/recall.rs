//! Recall at session start (`startup`, `resume`, `clear`): a few lines telling the model
//! that this project has a memory worth knowing, and how to load more of it.
//!
//! A memory is worth knowing when it still has open tasks, or when it is recent (within
//! `MEMORY_STALKER_RECALL_DAYS`, 7 by default). Only the project's newest memory is
//! considered: an older one's open tasks were either done or carried into a newer one.
//! The note stays under [`MAX_RECALL_CHARS`]; the memory itself is a tool call or
//! `/memory-stalker:resume` away.

use std::fmt::Write as _;
use std::path::Path;

use chrono::{DateTime, Local};

use crate::agent::Agent;
use crate::memory::document::section_text;
use crate::store::MemoryStore;
use crate::store::catalog::created_at;
use crate::store::files::read_front_matter;
use crate::summary::labels::{Section, tasks_shown};
use crate::transcript::{TaskLine, TaskStatus, TodoItem};
use crate::untrusted::line;

/// The longest recall, in characters.
pub const MAX_RECALL_CHARS: usize = 1_000;
/// Open tasks named one by one; the rest are counted.
const TASKS_SHOWN: usize = 3;

/// The recall for a session starting in the project of `store`, or `None` when its
/// newest memory is neither recent nor has open tasks (or there is none). With
/// `only_project`, a memory recorded for another project is not recalled (one directory
/// can hold every project's memories: `MEMORY_STALKER_DIR`).
///
/// `reader` is the agent whose session starts: a memory another agent wrote is named as
/// such, and the last line names the ways of loading more that `reader` has.
pub fn recall_context(
    store: &MemoryStore,
    only_project: Option<&Path>,
    now: DateTime<Local>,
    days: u32,
    reader: Agent,
) -> Option<String> {
    if !store.exists() {
        return None;
    }
    // Only the user's own: a memory a repository ships, or one dated in the future, is
    // never handed to the model unasked (docs/design.md §4.10).
    let memory = &store.newest_own().ok()??;
    let created = created_at(memory);
    let age_days = created.map(|c| (now.date_naive() - c.date_naive()).num_days());
    let recent = age_days.is_some_and(|d| d <= i64::from(days));
    if !recent && memory.tasks_open == 0 {
        return None;
    }
    let front = read_front_matter(&memory.path);
    if let Some(project) = only_project
        && front
            .as_ref()
            .is_none_or(|fm| Path::new(&fm.project) != project)
    {
        return None;
    }
    let listed = front
        .and_then(|fm| fm.todos.flatten())
        .map(|list| list.items);
    let items = match listed {
        Some(items) => items,
        // A task list too long for the front matter is left out of it: the memory's
        // own task list section still shows it (its first 200 tasks).
        None if memory.tasks_open > 0 => tasks_in_body(&memory.path),
        None => Vec::new(),
    };
    let mut open: Vec<TodoItem> = items.into_iter().filter(TodoItem::is_open).collect();
    // What was under way first, then what was waiting, each in list order.
    open.sort_by_key(|t| t.status != TaskStatus::InProgress);

    let mut out = String::new();
    let when = match age_days {
        Some(0) => "today".to_string(),
        Some(1) => "yesterday".to_string(),
        Some(d) if d > 1 => format!("{d} days ago"),
        _ => "date unknown".to_string(),
    };
    // Saying whose session it was only when it was the other agent's keeps the note
    // short in the usual case.
    let whose = if memory.agent == reader {
        String::new()
    } else {
        format!("{} ", memory.agent.name())
    };
    let _ = write!(
        out,
        "memory-stalker: this project's latest memory is from {} ({when}), {whose}session {}",
        line(&memory.date, 40),
        line(&memory.session, 20)
    );
    let headline = line(&memory.summary, 140);
    if headline.is_empty() {
        out.push_str(".\n");
    } else {
        let _ = writeln!(out, ": \"{headline}\".");
    }
    if memory.tasks_open > 0 {
        let _ = writeln!(
            out,
            "Open tasks then ({} of {}):",
            memory.tasks_open, memory.tasks_total
        );
        for task in open.iter().take(TASKS_SHOWN) {
            let _ = writeln!(out, "{}", task.line(TaskLine::Recall, 100));
        }
        let named = open.len().min(TASKS_SHOWN);
        if memory.tasks_open > named {
            let _ = writeln!(out, "- … {} more", memory.tasks_open - named);
        }
    }
    let file = line(&memory.file, 200);
    let _ = match reader {
        Agent::ClaudeCode => write!(
            out,
            "Only this note is loaded. For what was done and decided, call the search_memories tool, or show_memory with target \"{file}\"; the user can run /memory-stalker:resume."
        ),
        // Codex has no plugin commands: memory-stalker's tools, or the file itself (named
        // from the project when it is in the usual place, so the line stays short).
        Agent::Codex => write!(
            out,
            "Only this note is loaded. For what was done and decided, call memory-stalker's search_memories tool, or show_memory with target \"{file}\"{}.",
            if store.dir().ends_with(crate::store::MEMORIES_DIR) {
                format!(" (or read {}/{file})", crate::store::MEMORIES_DIR)
            } else {
                String::new()
            }
        ),
    };
    Some(clip(&out))
}

/// The tasks the task list section of the memory at `path` shows (the file read as
/// every memory is, at most 8 MiB; none when it cannot be).
fn tasks_in_body(path: &Path) -> Vec<TodoItem> {
    MemoryStore::read(path)
        .ok()
        .and_then(|text| section_text(&text, Section::Tasks))
        .map(|section| tasks_shown(&section))
        .unwrap_or_default()
}

/// `text` cut to [`MAX_RECALL_CHARS`] at a line's end where possible.
fn clip(text: &str) -> String {
    if text.chars().count() <= MAX_RECALL_CHARS {
        return text.to_string();
    }
    let cut: String = text.chars().take(MAX_RECALL_CHARS - 1).collect();
    let at = cut.rfind('\n').filter(|&i| i > MAX_RECALL_CHARS / 2);
    let mut kept = at.map_or(cut.as_str(), |i| &cut[..i]).to_string();
    kept.push('…');
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    /// The writer key of the memories written in `dir`.
    fn writer(dir: &Path) -> std::sync::Arc<crate::provenance::Writer> {
        let w = crate::provenance::Writer::at(dir.join(".key/writer.key"));
        w.key_or_create().unwrap();
        std::sync::Arc::new(w)
    }

    /// The store of `dir`, with the key its memories are signed with.
    fn store(dir: &Path) -> MemoryStore {
        MemoryStore::new(dir).with_writer(Some(writer(dir)))
    }

    /// Writes a memory created at `created` with `tasks` as (content, status), signed as
    /// this machine's.
    fn memory(dir: &Path, name: &str, created: &str, summary: &str, tasks: &[(&str, &str)]) {
        let items: Vec<_> = tasks
            .iter()
            .map(|(c, s)| serde_json::json!({"content": c, "status": s, "active_form": null}))
            .collect();
        let open = tasks.iter().filter(|(_, s)| *s != "completed").count();
        let todos = serde_json::json!({"source": "tasks", "items": items});
        let text = format!(
            "---\nmemory_stalker: 1\nsession_id: \"5e551011-aaaa-bbbb-cccc-000000000000\"\ncreated: \"{created}\"\ntrigger: \"auto\"\nproject: \"/work/uploader\"\ntranscript: \"/t.jsonl\"\ntask_count: {}\ntasks_open: {open}\nsummary: {}\nsummary_source: \"offline\"\nlang: \"en\"\ntodos: {todos}\n---\n\n# Session memory\n",
            tasks.len(),
            serde_json::to_string(summary).unwrap(),
        );
        std::fs::create_dir_all(dir).unwrap();
        let key = writer(dir).key().unwrap();
        std::fs::write(dir.join(name), key.sign(name, &text)).unwrap();
    }

    fn at(y: i32, m: u32, d: u32) -> DateTime<Local> {
        Local.with_ymd_and_hms(y, m, d, 12, 0, 0).unwrap()
    }

    // Noon UTC: the same local date in every time zone from UTC-11 to UTC+11.
    const CREATED: &str = "2026-11-20T12:00:00+00:00";
    const FILE: &str = "20261120_093000_5e551011.md";

    #[test]
    fn a_memory_with_open_tasks_is_recalled_in_a_few_lines() {
        let t = tempfile::tempdir().unwrap();
        let store = store(t.path());
        memory(
            t.path(),
            FILE,
            CREATED,
            "Retry budget for the uploader: 3 attempts per chunk, 10 per upload",
            &[
                ("Add RetryBudget type", "completed"),
                ("Document the retry behaviour", "pending"),
                ("Add tests for retries and the budget", "in_progress"),
                ("Release 0.4", "pending"),
                ("Tell the mobile team", "pending"),
            ],
        );
        let note = recall_context(&store, None, at(2026, 11, 23), 7, Agent::ClaudeCode).unwrap();
        let note = note.replace(&created_date(t.path()), "<date>");
        insta::assert_snapshot!(note, @r#"
        memory-stalker: this project's latest memory is from <date> (3 days ago), session 5e551011: "Retry budget for the uploader: 3 attempts per chunk, 10 per upload".
        Open tasks then (4 of 5):
        - [in progress] Add tests for retries and the budget
        - [ ] Document the retry behaviour
        - [ ] Release 0.4
        - … 1 more
        Only this note is loaded. For what was done and decided, call the search_memories tool, or show_memory with target "20261120_093000_5e551011.md"; the user can run /memory-stalker:resume.
        "#);
        // Open tasks keep it worth saying long after.
        let later = recall_context(&store, None, at(2027, 3, 1), 7, Agent::ClaudeCode).unwrap();
        assert!(later.contains("days ago)") && later.contains("Open tasks then (4 of 5)"));
    }

    #[test]
    fn a_task_list_too_long_for_the_front_matter_is_read_from_the_body() {
        let t = tempfile::tempdir().unwrap();
        let store = store(t.path());
        // What the writer does with a list over 64 KiB of JSON: `todos:` left out of the
        // front matter, the list shown in the body (its first 200 tasks).
        let todos = crate::transcript::TodoList {
            source: crate::transcript::TodoSource::TodoWrite,
            items: (0..300)
                .map(|i| TodoItem {
                    content: format!(
                        "Migrate table {i} of the billing schema {}",
                        "x".repeat(300)
                    ),
                    status: match i {
                        0..=149 => TaskStatus::Completed,
                        150 => TaskStatus::InProgress,
                        _ => TaskStatus::Pending,
                    },
                    active_form: None,
                })
                .collect(),
        };
        let body = crate::summary::labels::task_list(Some(&todos), crate::lang::Lang::En);
        let text = format!(
            "---\nmemory_stalker: 1\nsession_id: \"5e551011-aaaa-bbbb-cccc-000000000000\"\ncreated: \"{CREATED}\"\ntrigger: \"auto\"\nproject: \"/work/uploader\"\ntranscript: \"/t.jsonl\"\ntask_count: 300\ntasks_open: 150\nsummary: \"Billing schema migration\"\nsummary_source: \"offline\"\nlang: \"en\"\n---\n\n# Session memory\n\n## Current task list\n\n{body}\n## Files\n\n(none)\n"
        );
        let key = writer(t.path()).key().unwrap();
        std::fs::write(t.path().join(FILE), key.sign(FILE, &text)).unwrap();
        let note = recall_context(&store, None, at(2026, 11, 23), 7, Agent::ClaudeCode).unwrap();
        let note = note.replace(&created_date(t.path()), "<date>");
        insta::assert_snapshot!(note, @r#"
        memory-stalker: this project's latest memory is from <date> (3 days ago), session 5e551011: "Billing schema migration".
        Open tasks then (150 of 300):
        - [in progress] Migrate table 150 of the billing schema xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…
        - [ ] Migrate table 151 of the billing schema xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…
        - [ ] Migrate table 152 of the billing schema xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…
        - … 147 more
        Only this note is loaded. For what was done and decided, call the search_memories tool, or show_memory with target "20261120_093000_5e551011.md"; the user can run /memory-stalker:resume.
        "#);
        assert!(note.chars().count() <= MAX_RECALL_CHARS);
    }

    /// The listing's date of the memory, as the note shows it (local time).
    fn created_date(dir: &Path) -> String {
        store(dir).list(Some(1), None).unwrap().memories[0]
            .date
            .clone()
    }

    #[test]
    fn a_finished_memory_is_recalled_only_while_recent() {
        let t = tempfile::tempdir().unwrap();
        let store = store(t.path());
        memory(
            t.path(),
            FILE,
            CREATED,
            "Shipped the retry budget",
            &[("Ship", "completed")],
        );
        let recent = recall_context(&store, None, at(2026, 11, 27), 7, Agent::ClaudeCode).unwrap();
        assert!(recent.contains("(7 days ago)"), "{recent}");
        assert!(!recent.contains("Open tasks"), "{recent}");
        assert_eq!(
            recall_context(&store, None, at(2026, 11, 28), 7, Agent::ClaudeCode),
            None
        );
        assert_eq!(
            recall_context(&store, None, at(2026, 11, 20), 0, Agent::ClaudeCode).map(|_| ()),
            Some(())
        );
    }

    #[test]
    fn only_the_newest_memory_counts() {
        let t = tempfile::tempdir().unwrap();
        let store = store(t.path());
        memory(
            t.path(),
            "20261001_093000_5e551011.md",
            "2026-10-01T09:30:00+00:00",
            "Old",
            &[("Old task", "pending")],
        );
        memory(
            t.path(),
            FILE,
            CREATED,
            "New and done",
            &[("Ship", "completed")],
        );
        // The old memory's open task was carried into the newer one or done.
        assert_eq!(
            recall_context(&store, None, at(2026, 12, 31), 7, Agent::ClaudeCode),
            None
        );
    }

    #[test]
    fn nothing_without_memories_and_no_directory_is_made() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join(".claude/memories");
        let keyed = MemoryStore::new(&dir).with_writer(Some(writer(t.path())));
        let recall =
            |s: &MemoryStore| recall_context(s, None, at(2026, 11, 23), 7, Agent::ClaudeCode);
        assert_eq!(recall(&keyed), None);
        assert!(!dir.exists());
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("INDEX.md"), "# Memory index\n").unwrap();
        assert_eq!(recall(&keyed), None);
    }

    #[test]
    fn a_shared_directory_recalls_only_this_projects_memory() {
        let t = tempfile::tempdir().unwrap();
        let store = store(t.path());
        memory(t.path(), FILE, CREATED, "Uploader", &[("Open", "pending")]);
        let now = at(2026, 11, 21);
        assert!(
            recall_context(
                &store,
                Some(Path::new("/work/uploader")),
                now,
                7,
                Agent::ClaudeCode
            )
            .is_some()
        );
        assert_eq!(
            recall_context(
                &store,
                Some(Path::new("/work/other")),
                now,
                7,
                Agent::ClaudeCode
            ),
            None
        );
    }

    #[test]
    fn the_other_agents_memory_is_named_as_such() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join(crate::store::MEMORIES_DIR);
        let store = store(&dir);
        memory(
            &dir,
            FILE,
            CREATED,
            "Uploader retries",
            &[("Open", "pending")],
        );
        let now = at(2026, 11, 21);
        let in_codex = recall_context(&store, None, now, 7, Agent::Codex).unwrap();
        let in_codex = in_codex.replace(&created_date(&dir), "<date>");
        insta::assert_snapshot!(in_codex, @r#"
        memory-stalker: this project's latest memory is from <date> (yesterday), Claude Code session 5e551011: "Uploader retries".
        Open tasks then (1 of 1):
        - [ ] Open
        Only this note is loaded. For what was done and decided, call memory-stalker's search_memories tool, or show_memory with target "20261120_093000_5e551011.md" (or read .claude/memories/20261120_093000_5e551011.md).
        "#);
        // A Codex memory recalled in Claude Code says it was Codex's (the agent is not
        // one of the fields the writer's MAC covers: the memory stays ours).
        let text = std::fs::read_to_string(dir.join(FILE)).unwrap();
        std::fs::write(
            dir.join(FILE),
            text.replace(
                "trigger: \"auto\"\n",
                "trigger: \"auto\"\nagent: \"codex\"\n",
            ),
        )
        .unwrap();
        let in_claude = recall_context(&store, None, now, 7, Agent::ClaudeCode).unwrap();
        assert!(
            in_claude.contains("(yesterday), Codex session 5e551011"),
            "{in_claude}"
        );
        assert!(
            in_claude.ends_with("the user can run /memory-stalker:resume."),
            "{in_claude}"
        );
        let same = recall_context(&store, None, now, 7, Agent::Codex).unwrap();
        assert!(same.contains("(yesterday), session 5e551011"), "{same}");
    }

    #[test]
    fn the_note_stays_short_whatever_the_memory_holds() {
        let t = tempfile::tempdir().unwrap();
        let store = store(t.path());
        let long = "word ".repeat(400);
        let tasks: Vec<(&str, &str)> = (0..50).map(|_| (long.as_str(), "in_progress")).collect();
        memory(t.path(), FILE, CREATED, &long, &tasks);
        let note = recall_context(&store, None, at(2026, 11, 21), 7, Agent::ClaudeCode).unwrap();
        assert!(
            note.chars().count() <= MAX_RECALL_CHARS,
            "{}",
            note.chars().count()
        );
        assert!(
            note.contains("show_memory with target"),
            "the pointer is kept: {note}"
        );
        assert!(note.contains("- … 47 more"), "{note}");
    }
}
