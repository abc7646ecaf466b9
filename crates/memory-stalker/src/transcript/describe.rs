//! A human-readable report of an extraction (`save-memory inspect` without `--json`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use super::Extraction;
use crate::untrusted::terminal_line;

/// Describes what was extracted, how much was read and how long it took.
pub fn describe(ex: &Extraction, read: u64, size: u64, elapsed: Duration) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "read:        {} records, {} bad lines, {} of {} in {:.1} ms",
        ex.records,
        ex.bad_lines,
        bytes(read),
        bytes(size),
        elapsed.as_secs_f64() * 1000.0
    );
    let _ = writeln!(
        out,
        "session:     {} · {} {} · branch {} · {}",
        terminal_line(ex.session_id.as_deref().unwrap_or("?"), 80),
        ex.agent.name(),
        terminal_line(ex.version.as_deref().unwrap_or("?"), 40),
        terminal_line(ex.git_branch.as_deref().unwrap_or("?"), 80),
        terminal_line(ex.cwd.as_deref().unwrap_or("?"), 200)
    );
    match &ex.last_prompt {
        Some(p) => {
            let _ = writeln!(
                out,
                "last prompt: {} ({})",
                terminal_line(&p.text, 100),
                terminal_line(p.timestamp.as_deref().unwrap_or("no time"), 40)
            );
        }
        None => out.push_str("last prompt: none\n"),
    }
    match &ex.reply {
        Some(r) => {
            let mut by_tool: BTreeMap<String, usize> = BTreeMap::new();
            for c in &r.tool_calls {
                *by_tool.entry(terminal_line(&c.name, 60)).or_default() += 1;
            }
            let tools: Vec<String> = by_tool.iter().map(|(n, c)| format!("{n} ×{c}")).collect();
            let _ = writeln!(
                out,
                "reply:       {} characters, {} tool calls{}",
                r.text.chars().count(),
                r.calls_total(),
                if tools.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", tools.join(", "))
                }
            );
        }
        None => out.push_str("reply:       none\n"),
    }
    match &ex.todos {
        Some(t) => {
            let _ = writeln!(
                out,
                "tasks:       {} items, {} open (from {})",
                t.items.len(),
                t.open_count(),
                match t.source {
                    super::TodoSource::TodoWrite => "TodoWrite",
                    super::TodoSource::Tasks => "the Task tools",
                    super::TodoSource::UpdatePlan => "update_plan",
                }
            );
            for i in &t.items {
                let _ = writeln!(out, "             {}", i.line(super::TaskLine::Inspect, 90));
            }
        }
        None => out.push_str("tasks:       none\n"),
    }
    let _ = writeln!(
        out,
        "plan:        {}",
        ex.plan
            .as_ref()
            .map_or("none".to_string(), |p| terminal_line(&p.text, 90))
    );
    let _ = writeln!(
        out,
        "files:       {} modified, {} read",
        ex.files.modified.len(),
        ex.files.read.len()
    );
    for f in ex.files.modified.iter().take(5) {
        let _ = writeln!(out, "             M {}", terminal_line(f, 200));
    }
    match &ex.last_action {
        Some(a) => {
            let _ = writeln!(
                out,
                "last action: {} {} ({})",
                terminal_line(&a.tool, 60),
                terminal_line(&a.summary, 80),
                match a.ok {
                    Some(true) => "ok",
                    Some(false) => "error",
                    None => "no result yet",
                }
            );
        }
        None => out.push_str("last action: none\n"),
    }
    out
}

/// A byte count with a binary unit.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}
