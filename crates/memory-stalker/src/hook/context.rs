//! What the hooks tell Claude Code: the compaction instructions printed by PreCompact
//! (appended to Claude Code's own summary prompt), the note PostCompact prints about
//! what that summary dropped, and the restore context of SessionStart(compact).
//!
//! Everything is bounded and written as facts about the session, not as commands, so a
//! transcript cannot turn it into instructions; every value from the transcript, the
//! memory or a path goes through [`crate::untrusted`] (one line, or a quote whose lines
//! all carry the quote mark), so none can start a line of ours.

use std::fmt::Write as _;
use std::path::Path;

use super::lasting;
use crate::summary::facts::SessionFacts;
use crate::text::{mentions, prefix_chars};
use crate::transcript::{Extraction, TaskLine, TodoList};
use crate::untrusted::{self, line};

/// Longest compaction instruction (docs/design.md §2.4).
pub const STEER_MAX: usize = 1_500;
/// Longest restore context (docs/design.md §2.6; Claude Code moves anything over 10,000
/// to a file).
pub const RESTORE_MAX: usize = 8_000;
/// Longest PostCompact note.
pub const NOTE_MAX: usize = 2_000;

/// The task list as lines, cut to fit `budget` characters (a count of the rest says
/// what was left out).
fn task_lines(todos: &TodoList, budget: usize, item_max: usize) -> String {
    let mut out = String::new();
    for (i, t) in todos.items.iter().enumerate() {
        let line = t.line(TaskLine::Restore, item_max);
        let rest = todos.items.len() - i;
        let tail = format!("- … and {rest} more (in the memory file)\n");
        if out.chars().count() + line.chars().count() + 1 + tail.chars().count() > budget {
            out.push_str(&tail);
            break;
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The PreCompact instruction: keep the task list verbatim, the user's last request,
/// and the memory's path. Empty when there is nothing worth keeping.
///
/// Claude Code shows this text to the user after `/compact` as well as appending it to
/// its summary prompt, so it says only what changes the summary, on one line.
pub fn steering(ex: &Extraction, memory: Option<&Path>) -> String {
    let mut keep = Vec::new();
    if let Some(todos) = ex.todos.as_ref().filter(|t| !t.items.is_empty()) {
        keep.push(format!("the task list ({})", inline_tasks(todos, 900, 120)));
    }
    if let Some(p) = &ex.last_prompt {
        keep.push(format!(
            "the user's last request (\"{}\")",
            line(&p.text, 240)
        ));
    }
    if let Some(r) = &ex.request {
        keep.push(format!(
            "the request it carries on (\"{}\")",
            line(&r.text, 240)
        ));
    }
    let mut out = String::from("memory-stalker:");
    if !keep.is_empty() {
        let _ = write!(out, " keep verbatim {}", keep.join(" and "));
    }
    match memory {
        Some(path) if keep.is_empty() => {
            let _ = write!(
                out,
                " mention that this session is saved in {}",
                untrusted::path(path)
            );
        }
        Some(path) => {
            let _ = write!(out, "; the session is saved in {}", untrusted::path(path));
        }
        None if keep.is_empty() => return String::new(),
        None => {}
    }
    out.push_str(".\n");
    fit(out, STEER_MAX)
}

/// The task list on one line (`[x] a; [ ] b (in progress)`), cut to `budget`
/// characters with a count of what was left out.
fn inline_tasks(todos: &TodoList, budget: usize, item_max: usize) -> String {
    let mut out = String::new();
    for (i, t) in todos.items.iter().enumerate() {
        let item = t.line(TaskLine::Inline, item_max);
        let rest = todos.items.len() - i;
        if out.chars().count() + item.chars().count() + 40 > budget {
            let _ = write!(out, "; … {rest} more in the memory file");
            break;
        }
        if i > 0 {
            out.push_str("; ");
        }
        out.push_str(&item);
    }
    out
}

/// Cuts `text` to `max` characters on a line boundary.
fn fit(text: String, max: usize) -> String {
    if text.chars().count() <= max {
        return text;
    }
    let cut = prefix_chars(&text, max.saturating_sub(2));
    let end = cut.rfind('\n').unwrap_or(cut.len());
    format!("{}\n…\n", &cut[..end])
}

/// The PostCompact note: open tasks, the plan and the last request that Claude Code's
/// summary does not mention. Empty when it mentions them all.
pub fn dropped_note(summary: &str, ex: &Extraction, memory: &Path) -> String {
    let lower = summary.to_lowercase();
    let mut lines = Vec::new();
    if let Some(todos) = &ex.todos {
        let missing: Vec<_> = todos
            .items
            .iter()
            .filter(|t| t.is_open() && !mentions(&lower, &t.content))
            .collect();
        if !missing.is_empty() {
            let mut s = String::from("Open tasks it does not mention:\n");
            for t in missing.iter().take(15) {
                s.push_str("  ");
                s.push_str(&t.line(TaskLine::Restore, 140));
                s.push('\n');
            }
            if missing.len() > 15 {
                let _ = writeln!(s, "  - … and {} more", missing.len() - 15);
            }
            lines.push(s);
        }
    }
    if let Some(p) = &ex.last_prompt
        && !mentions(&lower, &p.text)
    {
        lines.push(format!(
            "The user's last request, which it does not mention: \"{}\"\n",
            line(&p.text, 400)
        ));
    }
    if let Some(r) = &ex.request
        && !mentions(&lower, &r.text)
    {
        lines.push(format!(
            "The request that last one carries on, which it does not mention: \"{}\"\n",
            line(&r.text, 400)
        ));
    }
    if let Some(plan) = &ex.plan {
        let title = plan.title();
        if !mentions(&lower, title) && !lower.contains("plan") {
            lines.push(format!(
                "The approved plan (\"{}\"), which it does not mention; it is in the memory's Plan section.\n",
                line(title, 120)
            ));
        }
    }
    if lines.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "memory-stalker: the compaction summary leaves out some of what was saved in {}.\n",
        untrusted::path(memory)
    );
    for l in lines {
        out.push_str("- ");
        out.push_str(&l);
    }
    fit(out, NOTE_MAX)
}

/// The SessionStart(compact) context: facts from the memory of the compaction, and the
/// session's lasting facts that memory carries (`facts`).
///
/// Its parts come in this order because a cut to its size limit takes the end: what
/// was asked and the task list, then the user's own words (rules, answers, bash-mode
/// context, hook requirements), then the long closing words, then what was decided and
/// what failed, then the files, the plan and the last action.
pub fn restore_context(ex: &Extraction, memory: &Path, facts: &SessionFacts) -> String {
    let mut out = heading(ex, memory);
    requests(&mut out, ex, facts);
    tasks(&mut out, ex);
    lasting::bullets(
        &mut out,
        "- Tasks done earlier in this session (no longer on the task list):",
        &facts.earlier_tasks,
    );
    lasting::bullets(
        &mut out,
        "- Tasks an earlier task list left open (the list was replaced before they were done):",
        &facts.left_open,
    );
    lasting::bullets(
        &mut out,
        "- Commits made in this session (done and committed):",
        &facts.commits,
    );
    lasting::bullets(
        &mut out,
        "- Commands the session ran again and again, as last run (how it builds, tests and checks its work):",
        &facts
            .checks
            .iter()
            .map(|c| untrusted::code(c))
            .collect::<Vec<_>>(),
    );
    lasting::users_words(&mut out, facts);
    closing_words(&mut out, ex);
    // What the reply may claim is only as true as its calls: say which did not work.
    let calls = ex.reply.as_ref().map_or(&[][..], |r| &r.tool_calls);
    if let Some(failed) = lasting::failed_calls(calls) {
        out.push_str(&failed);
        out.push('\n');
    }
    lasting::decisions_and_failures(&mut out, facts);
    files(&mut out, ex, facts);
    where_it_stopped(&mut out, ex, facts);
    fit(out, RESTORE_MAX)
}

/// The restore's first lines: what it is, the memory file, the agent's title of the
/// session.
fn heading(ex: &Extraction, memory: &Path) -> String {
    let file = memory.file_name().map_or_else(
        || untrusted::path(memory),
        |f| line(&f.to_string_lossy(), 200),
    );
    // How the model reads the whole memory: Claude Code has the plugin's `list-memories`
    // on its PATH; Codex has memory-stalker's MCP tools, and the file.
    let how = match ex.agent {
        crate::agent::Agent::ClaudeCode => format!("`list-memories show {file}` prints it"),
        crate::agent::Agent::Codex => {
            format!("read it, or call memory-stalker's show_memory tool with target \"{file}\"")
        }
    };
    let mut out = format!(
        "memory-stalker: facts saved from this session just before the compaction (a record of the past; check the code before relying on it).\n- Memory file: {} (the whole last interaction, task list, plan and files; {how}).\n",
        untrusted::path(memory)
    );
    if let Some(title) = &ex.title {
        let _ = writeln!(
            out,
            "- {}'s title of this session: {}",
            ex.agent.name(),
            line(title, 200)
        );
    }
    out
}

/// The session's requests before the last one, then the last one (and the request it
/// carries on), whole.
fn requests(out: &mut String, ex: &Extraction, facts: &SessionFacts) {
    let shown: Vec<&str> = [&ex.last_prompt, &ex.request]
        .into_iter()
        .flatten()
        .map(|p| p.text.as_str())
        .collect();
    let earlier: Vec<String> = facts
        .requests
        .iter()
        .filter(|r| {
            !shown
                .iter()
                .any(|s| line(s, usize::MAX).starts_with(r.trim_end_matches('…')))
        })
        .cloned()
        .collect();
    lasting::bullets(
        out,
        "- The user's earlier requests in this session, oldest first:",
        &earlier,
    );
    if let Some(p) = &ex.last_prompt {
        let _ = writeln!(
            out,
            "- The user's last request:\n{}",
            quote_ends(&p.text, 2_000)
        );
    }
    if let Some(r) = &ex.request {
        let _ = writeln!(
            out,
            "- The request that last one carries on:\n{}",
            quote_ends(&r.text, 2_000)
        );
    }
}

/// The task list at compaction, its items indented under their heading.
fn tasks(out: &mut String, ex: &Extraction) {
    match ex.todos.as_ref() {
        Some(t) if !t.items.is_empty() => {
            let _ = writeln!(
                out,
                "- The task list at compaction ({} of {} open):",
                t.open_count(),
                t.items.len()
            );
            for l in task_lines(t, 2_500, 200).lines() {
                let _ = writeln!(out, "  {l}");
            }
        }
        Some(_) => out.push_str("- The task list was empty (cleared) at compaction.\n"),
        None => {}
    }
}

/// The assistant's closing words (or its last words when it was still at work).
fn closing_words(out: &mut String, ex: &Extraction) {
    let Some(reply) = &ex.reply else {
        return;
    };
    if let Some(closing) = reply.closing() {
        let _ = writeln!(
            out,
            "- The assistant's closing words before compaction:\n{}",
            quote(closing, 2_500)
        );
    } else if let Some(last) = reply.last_words() {
        let _ = writeln!(
            out,
            "- The assistant was still at work; its last words before compaction:\n{}",
            quote(last, 1_500)
        );
    }
}

/// The files changed before the compaction and earlier in the session.
fn files(out: &mut String, ex: &Extraction, facts: &SessionFacts) {
    if ex.files.modified.is_empty() && facts.earlier_files.is_empty() {
        return;
    }
    let files: Vec<String> = ex
        .files
        .modified
        .iter()
        .take(15)
        .map(|f| line(f, 300))
        .collect();
    let earlier: Vec<String> = facts
        .earlier_files
        .iter()
        .rev()
        .take(15)
        .map(|f| line(f, 300))
        .collect();
    out.push_str("- Files changed");
    if !files.is_empty() {
        let _ = write!(out, " before the compaction: {}", files.join(", "));
    }
    if !earlier.is_empty() {
        let sep = if files.is_empty() { "" } else { ";" };
        let _ = write!(out, "{sep} earlier in the session: {}", earlier.join(", "));
    }
    out.push_str(".\n");
}

/// The plan approved, the last action and how the turn stopped.
fn where_it_stopped(out: &mut String, ex: &Extraction, facts: &SessionFacts) {
    if let Some(plan) = &ex.plan {
        let title = Some(plan.title())
            .filter(|t| !t.is_empty())
            .unwrap_or("plan");
        // An approval the decisions above already list is not said again.
        if facts.decisions.iter().any(|d| d.contains(title)) {
            out.push_str("- The approved plan is in the memory file's Plan section.\n");
        } else {
            let _ = writeln!(
                out,
                "- A plan was approved (\"{}\"); it is in the memory file's Plan section.",
                line(title, 120)
            );
        }
    }
    if let Some(a) = &ex.last_action {
        let outcome = match a.ok {
            _ if a.rejected => "refused by the user",
            Some(true) => "succeeded",
            Some(false) => "failed",
            None => "had no result yet",
        };
        let _ = writeln!(
            out,
            "- The last action: {} {} ({outcome}).",
            line(&a.tool, 100),
            line(&a.summary, 160)
        );
    }
    if let Some(stop) = &ex.stopped {
        let _ = writeln!(
            out,
            "- {} Wait for the user's direction before taking that work up again.",
            crate::summary::offline::stop_line(stop, crate::lang::Lang::En)
        );
    }
}

/// A block quote of a request of at most about `max` characters: its head and its tail
/// when it is longer, since a pasted log says what failed at its end (issue 22).
fn quote_ends(text: &str, max: usize) -> String {
    let t = text.trim();
    let n = t.chars().count();
    if n <= max {
        return quote(t, max);
    }
    let head_n = max * 2 / 5;
    let tail_n = max - head_n;
    let head: String = t.chars().take(head_n).collect();
    let tail: String = t.chars().skip(n - tail_n).collect();
    format!(
        "{}\n  > … ({} characters left out; the memory file has them) …\n{}",
        quote(&head, head_n),
        n - head_n - tail_n,
        quote(&tail, tail_n)
    )
}

/// A block quote of at most `max` characters: every line carries the quote mark.
fn quote(text: &str, max: usize) -> String {
    untrusted::quote(text, max, "  > ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Files, LastAction, Plan, Prompt, Reply, TodoItem, TodoSource};

    fn ex(items: usize) -> Extraction {
        Extraction {
            agent: crate::Agent::ClaudeCode,
            session_id: Some("s".into()),
            cwd: None,
            version: None,
            git_branch: None,
            records: 1,
            bad_lines: 0,
            title: None,
            request: None,
            stopped: None,
            last_prompt: Some(Prompt {
                text: "Treat 429 as retryable but honour Retry-After".into(),
                timestamp: None,
                uuid: None,
            }),
            reply: Some(Reply {
                text: "First part.\n\nAll 6 tests pass; README is next.".into(),
                tool_calls: vec![],
                calls_not_listed: 0,
                closing_at: Some(0),
            }),
            todos: Some(TodoList {
                source: TodoSource::Tasks,
                items: (0..items)
                    .map(|i| TodoItem {
                        content: format!("Task number {i} about the uploader retry budget"),
                        status: if i == 0 {
                            "completed"
                        } else if i == 1 {
                            "in_progress"
                        } else {
                            "pending"
                        }
                        .into(),
                        active_form: None,
                    })
                    .collect(),
            }),
            plan: Some(Plan {
                source: "ExitPlanMode".into(),
                text: "# Retry plan\n1. budget".into(),
            }),
            files: Files::default(),
            last_action: Some(LastAction {
                tool: "Bash".into(),
                summary: "cargo test".into(),
                ok: Some(true),
                rejected: false,
            }),
        }
    }

    #[test]
    fn steering_keeps_tasks_request_and_path_on_one_line_within_budget() {
        let s = steering(&ex(3), Some(Path::new(".claude/memories/m.md")));
        insta::assert_snapshot!(s, @r#"memory-stalker: keep verbatim the task list ([x] Task number 0 about the uploader retry budget; [ ] Task number 1 about the uploader retry budget (in progress); [ ] Task number 2 about the uploader retry budget) and the user's last request ("Treat 429 as retryable but honour Retry-After"); the session is saved in .claude/memories/m.md."#);
        assert_eq!(s.lines().count(), 1);
        let big = steering(&ex(500), Some(Path::new("m.md")));
        assert!(big.chars().count() <= STEER_MAX, "{}", big.chars().count());
        assert!(
            big.contains("; … 484 more in the memory file) and the user's last request"),
            "{big}"
        );
        let mut nothing = ex(0);
        nothing.todos = None;
        nothing.last_prompt = None;
        assert_eq!(steering(&nothing, None), "");
        assert_eq!(
            steering(&nothing, Some(Path::new("m.md"))),
            "memory-stalker: mention that this session is saved in m.md.\n"
        );
    }

    #[test]
    fn dropped_note_lists_only_what_is_missing() {
        let e = ex(3);
        let full = "The user asked: Treat 429 as retryable but honour Retry-After. Tasks: task number 1 about the uploader retry budget (in progress), task number 2 about the uploader retry budget. Retry plan approved.";
        assert_eq!(dropped_note(full, &e, Path::new("m.md")), "");
        let partial = "We worked on the uploader. Task number 1 about the uploader retry budget is in progress.";
        let note = dropped_note(partial, &e, Path::new("m.md"));
        assert!(note.contains("Task number 2"), "{note}");
        assert!(!note.contains("Task number 1"), "{note}");
        assert!(
            !note.contains("Task number 0"),
            "completed tasks are not reported"
        );
        assert!(note.contains("last request"));
        assert!(note.contains("Retry plan"));
    }

    #[test]
    fn restore_names_the_thread_the_failures_and_the_users_stop() {
        use crate::transcript::{Stop, ToolCallSummary};
        let mut e = ex(2);
        e.last_prompt.as_mut().unwrap().text = "continue".into();
        e.request = Some(Prompt {
            text: "Add a retry budget to the uploader".into(),
            timestamp: None,
            uuid: None,
        });
        let call = |name: &str, summary: &str, failed: bool| ToolCallSummary {
            name: name.into(),
            summary: summary.into(),
            failed,
            rejected: false,
            error: None,
        };
        e.reply.as_mut().unwrap().tool_calls = vec![
            call("Edit", "src/a.rs", true),
            call("Edit", "src/a.rs", false),
            call("Write", "CLAUDE.md", true),
            call("TodoWrite", "2 items, 1 open", true),
        ];
        e.stopped = Some(Stop::Interrupted);
        let c = restore_context(
            &e,
            Path::new(".claude/memories/20260129_080000_s.md"),
            &SessionFacts::default(),
        );
        assert!(c.contains("`list-memories show 20260129_080000_s.md` prints it"));
        assert!(c.contains("- The request that last one carries on:\n  > Add a retry budget"));
        // Retried with success: said, with what superseded it (issue 22: the resumed
        // model must not redo it); bookkeeping: not worth a line.
        assert!(
            c.contains("did not succeed: Edit src/a.rs (failed; a later call of it succeeded); Write CLAUDE.md (failed)."),
            "{c}"
        );
        assert!(!c.contains("TodoWrite"), "{c}");
        assert!(c.contains("The user interrupted the last turn"));
        let steer = steering(&e, None);
        assert!(
            steer.contains("the request it carries on (\"Add a retry budget to the uploader\")")
        );
    }

    #[test]
    fn a_long_pasted_log_keeps_its_head_and_its_tail() {
        let log = format!(
            "fix this:\n{}E   AssertionError: 3 != 4\nFAILED test_x.py::test_sum",
            "PASSED test_a.py::test_ok\n".repeat(300)
        );
        let q = quote_ends(&log, 2_000);
        assert!(q.starts_with("  > fix this:\n"), "{q}");
        assert!(q.contains("characters left out"), "{q}");
        assert!(q.ends_with("  > FAILED test_x.py::test_sum"), "{q}");
        assert!(q.contains("AssertionError"), "{q}");
        assert!(q.lines().all(|l| l.starts_with("  > ")), "{q}");
        // The quote marks come on top of the text kept.
        assert!(q.chars().count() < 2_000 + 4 * q.lines().count() + 80);
        assert_eq!(quote_ends("short", 2_000), "  > short");
    }

    #[test]
    fn restore_context_is_bounded_facts() {
        let mut e = ex(3);
        let c = restore_context(
            &e,
            Path::new("/p/.claude/memories/m.md"),
            &SessionFacts::default(),
        );
        assert!(c.contains("Memory file: /p/.claude/memories/m.md"));
        assert!(c.contains("(2 of 3 open)"));
        assert!(c.contains("  > All 6 tests pass; README is next."));
        assert!(c.contains("A plan was approved (\"Retry plan\")"));
        assert!(c.contains("The last action: Bash cargo test (succeeded)"));
        e.last_prompt.as_mut().unwrap().text = "x".repeat(50_000);
        e.reply.as_mut().unwrap().text = "y ".repeat(50_000);
        e.todos = Some(ex(2_000).todos.unwrap());
        let c = restore_context(&e, Path::new("m.md"), &SessionFacts::default());
        assert!(c.chars().count() <= RESTORE_MAX, "{}", c.chars().count());
    }

    #[test]
    fn mentions_tolerates_rewording() {
        let s = "we still need to document the retry behaviour in the readme";
        assert!(mentions(s, "Document the retry behaviour in README"));
        assert!(!mentions(
            s,
            "Add tests for the budget exhausted mid-upload"
        ));
        assert!(mentions("继续实现灰度区域管理", "灰度区域管理"));
    }
}
