//! What `list-memories import` prints: the progress bar (on a terminal's stderr only),
//! the projects and files it did not import, and one summary line at the end.

use std::fmt::Write as _;
use std::io::Write as _;
use std::time::{Duration, Instant};

use memory_stalker::import::{Progress, ProjectCount, Report};
use memory_stalker::transcript::bytes;

use super::{plural, shown, thousands};

/// Redraws a one-line progress bar on stderr, at most every [`Bar::EVERY`].
pub struct Bar {
    last: Option<Instant>,
    width: usize,
}

impl Bar {
    const EVERY: Duration = Duration::from_millis(100);

    /// A bar as wide as `columns` allows.
    pub fn new(columns: usize) -> Bar {
        Bar {
            last: None,
            width: columns.clamp(40, 200),
        }
    }

    /// Shows `p` (now, if it is the last step; otherwise when the last draw is old enough).
    pub fn show(&mut self, p: &Progress) {
        let last_step = p.files_done == p.files_total;
        if !last_step && self.last.is_some_and(|t| t.elapsed() < Self::EVERY) {
            return;
        }
        self.last = Some(Instant::now());
        let line = bar_line(p, self.width);
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{line}");
        let _ = err.flush();
    }

    /// Takes the bar off the screen.
    pub fn clear(&mut self) {
        if self.last.is_some() {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}

/// `[#######.........]  41%  412.0 MiB of 1.0 GiB · 82 of 200 transcripts · 310 memories`,
/// cut to `width` columns.
fn bar_line(p: &Progress, width: usize) -> String {
    let fraction = if p.bytes_total == 0 {
        1.0
    } else {
        p.bytes_done as f64 / p.bytes_total as f64
    };
    let text = format!(
        " {:>3}%  {} of {} · {} of {} transcripts · {}",
        (fraction * 100.0).floor() as u32,
        bytes(p.bytes_done),
        bytes(p.bytes_total),
        p.files_done,
        p.files_total,
        plural(p.memories, "memory", "memories")
    );
    // A bar of one width all along (the text after it grows as the figures do).
    let cells = if width >= 100 { 30 } else { 12 };
    let full = ((fraction * cells as f64).round() as usize).min(cells);
    let line = format!("[{}{}]{text}", "#".repeat(full), ".".repeat(cells - full));
    line.chars().take(width - 1).collect()
}

/// The text answer: the projects and files not imported (each once), then the summary
/// line.
pub fn report(r: &Report) -> String {
    let mut out = String::new();
    list_projects(
        &mut out,
        "Projects that no longer exist (their sessions were not imported):",
        &r.gone,
    );
    list_projects(
        &mut out,
        "Projects where memory-stalker is off (list-memories on --project DIR turns it on):",
        &r.off,
    );
    for (title, problems) in [
        ("Not read:", &r.refused),
        ("Not imported (the next run tries again):", &r.failed),
    ] {
        if problems.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{title}");
        for p in problems {
            let _ = writeln!(
                out,
                "  {}: {}",
                shown(&p.file),
                memory_stalker::untrusted::terminal_line(&p.reason, 300)
            );
        }
    }
    out.push_str(&summary_line(r));
    out.push('\n');
    out
}

fn list_projects(out: &mut String, title: &str, projects: &[ProjectCount]) {
    if projects.is_empty() {
        return;
    }
    let _ = writeln!(out, "{title}");
    for p in projects {
        let _ = writeln!(
            out,
            "  {} ({})",
            shown(&p.project),
            plural(p.sessions, "session", "sessions")
        );
    }
}

/// The one line that says what the import did: "Imported 212 memories (150 at
/// compactions, 62 at sessions' ends) of 57 sessions (41 Claude Code, 16 Codex) into 9
/// projects in 14.2 s; 130 sessions were up to date; not imported: …".
pub fn summary_line(r: &Report) -> String {
    let sessions: usize = r.imported.values().sum();
    let by_agent: Vec<String> = r
        .imported
        .iter()
        .map(|(key, n)| {
            let name = memory_stalker::Agent::parse(key).map_or_else(
                || memory_stalker::untrusted::terminal_line(key, 40),
                |a| a.name().to_string(),
            );
            format!("{n} {name}")
        })
        .collect();
    let mut line = if r.memories == 0 {
        String::from(if r.dry_run {
            "Nothing to import"
        } else {
            "Nothing imported"
        })
    } else {
        format!(
            "{} {} ({} at compactions, {} at sessions' ends) of {} ({}) into {}",
            if r.dry_run {
                "Would import"
            } else {
                "Imported"
            },
            plural(r.memories, "memory", "memories"),
            thousands(r.at_compactions),
            thousands(r.at_ends),
            plural(sessions, "session", "sessions"),
            by_agent.join(", "),
            plural(r.projects.len(), "project", "projects"),
        )
    };
    if r.model_calls > 0 {
        let _ = write!(line, ", {} summarised by a model", r.model_calls);
    }
    let _ = write!(
        line,
        " in {:.1} s; {} of {} read",
        r.seconds,
        plural(r.sessions, "session", "sessions"),
        plural(r.transcripts, "transcript", "transcripts")
    );
    if r.up_to_date > 0 {
        let _ = write!(line, ", {} up to date", thousands(r.up_to_date));
    }
    let left_out = left_out(r);
    if !left_out.is_empty() {
        let _ = write!(line, "; not imported: {}", left_out.join(", "));
    }
    if r.dry_run {
        line.push_str(" (dry run: nothing written)");
    }
    line.push('.');
    line
}

/// What was not imported, each kind in a few words.
fn left_out(r: &Report) -> Vec<String> {
    let sessions_of = |ps: &[ProjectCount], one: &str, many: &str| {
        let n: usize = ps.iter().map(|p| p.sessions).sum();
        (n > 0).then(|| {
            let projects = match ps.len() {
                1 => format!("a project {one}"),
                m => format!("{m} projects {many}"),
            };
            format!("{} of {projects}", plural(n, "session", "sessions"))
        })
    };
    let mut out: Vec<String> = [
        sessions_of(&r.gone, "that no longer exists", "that no longer exist"),
        sessions_of(&r.off, "switched off", "switched off"),
    ]
    .into_iter()
    .flatten()
    .collect();
    for (n, what) in [
        (r.other_projects, "of other projects"),
        (r.older, "older than --since"),
        (r.no_project, "naming no directory"),
    ] {
        if n > 0 {
            out.push(format!("{} {what}", plural(n, "session", "sessions")));
        }
    }
    for (n, one, many) in [
        (r.sub_agents, "sub-agent", "sub-agents"),
        (
            r.summary_calls,
            "summary call of ours",
            "summary calls of ours",
        ),
        (r.empty, "empty transcript", "empty transcripts"),
        (
            r.refused.len(),
            "link or special file refused",
            "links or special files refused",
        ),
        (r.failed.len(), "failed", "failed"),
    ] {
        if n > 0 {
            out.push(plural(n, one, many));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_fills_with_the_bytes_and_fits_the_terminal() {
        let p = |done: u64| Progress {
            bytes_done: done,
            bytes_total: 1 << 30,
            files_done: 57,
            files_total: 200,
            memories: 212,
        };
        assert_eq!(
            bar_line(&p(0), 120),
            "[..............................]   0%  0 B of 1.0 GiB · 57 of 200 transcripts · 212 memories"
        );
        assert_eq!(
            bar_line(&p(1 << 29), 120),
            "[###############...............]  50%  512.0 MiB of 1.0 GiB · 57 of 200 transcripts · 212 memories"
        );
        let narrow = bar_line(&p(1 << 30), 60);
        assert!(narrow.starts_with("[############] 100%"), "{narrow}");
        assert_eq!(narrow.chars().count(), 59, "one column left for the cursor");
        let empty = Progress::default();
        assert!(
            bar_line(&empty, 100).contains("100%"),
            "nothing to read is done"
        );
    }
}
