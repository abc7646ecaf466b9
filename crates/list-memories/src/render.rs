//! The human-readable output of `list-memories`: aligned tables, plain when stdout is
//! not a terminal or `NO_COLOR` is set. Every value from a memory, a file name or a path
//! is printed through `untrusted::terminal_line` (docs/design.md §8.3): one line, no
//! control character, bidirectional and invisible ones shown.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::Path;

use memory_stalker::memory::MemoryEntry;
use memory_stalker::store::{Found, Listing, ProjectHit, Target};
use memory_stalker::transcript::bytes;
use memory_stalker::untrusted::terminal_line;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Whether to colour, and how wide the terminal is.
pub struct Style {
    color: bool,
    width: usize,
}

impl Style {
    /// Colour only on a terminal without `NO_COLOR`; width from `COLUMNS` (default 100).
    pub fn detect() -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb");
        Style {
            color: std::io::stdout().is_terminal() && !no_color && !dumb,
            width: std::env::var("COLUMNS")
                .ok()
                .and_then(|c| c.parse().ok())
                .filter(|w| *w >= 60)
                .unwrap_or(100),
        }
    }

    /// How wide the terminal is, in columns.
    pub fn width(&self) -> usize {
        self.width
    }

    /// No colour, default width.
    pub fn plain() -> Style {
        Style {
            color: false,
            width: 100,
        }
    }

    fn bold(&self, s: &str) -> String {
        if self.color {
            format!("\x1b[1m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    fn dim(&self, s: &str) -> String {
        if self.color {
            format!("\x1b[2m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
}

/// Fits `s` in `w` terminal columns (wide CJK characters take two), cut with `…` or
/// padded with spaces.
fn pad(s: &str, w: usize) -> String {
    let s = terminal_line(s, usize::MAX);
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let cw = c.width().unwrap_or(0);
        if used + cw > w.saturating_sub(1) && s.width() > w {
            out.push('…');
            used += 1;
            break;
        }
        out.push(c);
        used += cw;
    }
    format!("{out}{}", " ".repeat(w.saturating_sub(used)))
}

/// Fits a headline in `w` columns as [`pad`] does, but cut at a word's end when a word
/// boundary leaves more than half the room used: "Replace them with a single link…",
/// not "…link …" or "…a sin…", which reads as a typo. Text with no boundary (a path,
/// CJK) is cut where it must be.
fn pad_words(s: &str, w: usize) -> String {
    let s = terminal_line(s, usize::MAX);
    if s.width() <= w {
        return pad(&s, w);
    }
    let room = w.saturating_sub(1);
    let mut used = 0;
    let mut end = 0;
    let mut word_end = None;
    for (i, c) in s.char_indices() {
        let cw = c.width().unwrap_or(0);
        if used + cw > room {
            break;
        }
        if c.is_whitespace() && used > w / 2 {
            word_end = Some(i);
        }
        used += cw;
        end = i + c.len_utf8();
    }
    // A word cut where the room ends is kept only when it ends there anyway.
    let whole = s[end..].starts_with(char::is_whitespace);
    let cut = if whole { end } else { word_end.unwrap_or(end) };
    let kept = s[..cut].trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, ',' | ';' | ':' | '-' | '—' | '(' | '⏎')
    });
    pad(&format!("{kept}…"), w)
}

/// Appends `s` fitted in `w` columns, as [`pad`] does, without its allocations when
/// `s` is printable ASCII with no space at either end: then it is its own one-line
/// form, and each byte takes one column.
fn pad_into(out: &mut String, s: &str, w: usize) {
    let plain =
        s.bytes().all(|b| (0x20..0x7f).contains(&b)) && !s.starts_with(' ') && !s.ends_with(' ');
    if !plain {
        out.push_str(&pad(s, w));
        return;
    }
    let used = if s.len() > w {
        let keep = w.saturating_sub(1);
        out.push_str(&s[..keep]);
        out.push('…');
        keep + 1
    } else {
        out.push_str(s);
        s.len()
    };
    out.extend(std::iter::repeat_n(' ', w.saturating_sub(used)));
}

/// `#  date  session  agent  open/total  summary  size`, one row per memory.
pub fn table(entries: &[MemoryEntry], style: &Style) -> String {
    const FIXED: usize = 4 + 18 + 10 + 13 + 12 + 10;
    let summary_w = style.width.saturating_sub(FIXED).max(20);
    // Rows are about 100 bytes: one allocation for a table of thousands.
    let mut out = String::with_capacity((entries.len() + 1) * (FIXED + summary_w + 8));
    let header = format!(
        "{:>3}  {}{}{}{}{}  {}",
        "#",
        pad("date", 18),
        pad("session", 10),
        pad("agent", 13),
        // Says what the numbers count: "3/5" alone reads as three of five done.
        pad("open/total", 12),
        pad("summary", summary_w),
        "size"
    );
    let _ = writeln!(out, "{}", style.bold(header.trim_end()));
    let mut tasks = String::new();
    for (i, e) in entries.iter().enumerate() {
        tasks.clear();
        if e.tasks_total == 0 {
            tasks.push('-');
        } else {
            let _ = write!(tasks, "{}/{}", e.tasks_open, e.tasks_total);
        }
        let summary = if e.summary.is_empty() {
            "(no summary)"
        } else {
            &e.summary
        };
        // Not the user's own (docs/design.md §4.10): said before the headline.
        let marked;
        let summary = match e.mark() {
            Some(mark) => {
                marked = format!("[{mark}] {summary}");
                marked.as_str()
            }
            None => summary,
        };
        let _ = write!(out, "{:>3}  ", i + 1);
        pad_into(&mut out, &e.date, 18);
        pad_into(&mut out, &e.session, 10);
        pad_into(&mut out, e.agent.name(), 13);
        pad_into(&mut out, &tasks, 12);
        out.push_str(&pad_words(summary, summary_w));
        out.push_str("  ");
        out.push_str(&style.dim(&bytes(e.size_bytes)));
        if e.too_large {
            // Listed by its front matter, but `show` will not print it.
            out.push_str(" (too large to show)");
        }
        out.push('\n');
    }
    out
}

/// The default listing.
pub fn listing(l: &Listing, dir: &Path, style: &Style) -> String {
    if l.total == 0 {
        return format!(
            "No memories in {} yet. memory-stalker writes one each time Claude Code or Codex compacts a session.\n",
            shown(dir)
        );
    }
    let mut out = format!(
        "{} in {}{}:\n",
        plural(l.total, "memory", "memories"),
        shown(dir),
        if l.memories.len() < l.total {
            format!(" (showing {})", l.memories.len())
        } else {
            String::new()
        }
    );
    out.push_str(&table(&l.memories, style));
    out
}

/// What `find` says when nothing matched: what was searched, where.
pub fn nothing_found(f: &Found, dir: &Path) -> String {
    let how = match &f.kind {
        Target::Latest => "there are no memories".to_string(),
        Target::Index(n) => format!("there is no memory #{n}"),
        Target::File(name) => format!("no file named {}", terminal_line(name, 200)),
        Target::Date(p) => format!(
            "no memory dated {p}… (and none whose session id starts with {:?})",
            terminal_line(&f.target, 200)
        ),
        Target::Session(p) => format!(
            "no memory whose session id starts with {:?}",
            terminal_line(p, 200)
        ),
    };
    format!(
        "No memory matches {:?}: {how} in {}.",
        terminal_line(&f.target, 200),
        shown(dir)
    )
}

/// How many of the query's words a result holds; a result found through related words
/// alone (a synonym, another form) says so, rather than "0/2 terms".
fn matched(hits: usize, terms: usize) -> String {
    if hits == 0 && terms > 0 {
        "related words only".to_string()
    } else {
        format!("{hits}/{terms} terms")
    }
}

/// Search results, best first: one session a result, its best memory.
pub fn search(
    query: &str,
    hits: &[ProjectHit],
    (total, exact): (usize, bool),
    all_projects: bool,
    style: &Style,
) -> String {
    let mut out = format!(
        "{}{} match {:?}{}:\n",
        if exact { "" } else { "at least " },
        plural(total, "memory", "memories"),
        terminal_line(query, 200),
        if hits.len() < total {
            format!(" (best {})", plural(hits.len(), "session", "sessions"))
        } else {
            String::new()
        }
    );
    let w = style.width.saturating_sub(5);
    for (i, ProjectHit { hit: h, project }) in hits.iter().enumerate() {
        let m = &h.memory;
        let agent = if h.agent == "claude-code" {
            String::new()
        } else {
            format!(" · {}", terminal_line(&h.agent, 20))
        };
        let _ = writeln!(
            out,
            "{:>3}. {}  {}  {}",
            i + 1,
            terminal_line(&m.date, 40),
            style.bold(&terminal_line(&m.file, 200)),
            style.dim(&format!(
                "session {}{agent} · {}",
                terminal_line(&m.session, 8),
                matched(h.hits, h.terms)
            ))
        );
        if all_projects {
            let _ = writeln!(out, "     {}", style.dim(&shown(project)));
        }
        let _ = writeln!(out, "     {}", terminal_line(&m.summary, w));
        if let Some(s) = &h.snippet_parts {
            let label = h.section.unwrap_or("memory");
            let s = s.fit(w.saturating_sub(label.len() + 2).max(20));
            let marked = if style.color {
                s.marked("\x1b[1m", "\x1b[0m")
            } else {
                s.marked("**", "**")
            };
            let _ = writeln!(out, "     {}: {marked}", style.dim(label));
        }
        if let Some(p) = &h.problem {
            let _ = writeln!(out, "     {}", style.dim(&terminal_line(p, w)));
        }
        if !h.more_in_session.is_empty() {
            let _ = writeln!(
                out,
                "     {}",
                style.dim(&format!(
                    "+ {} of this session",
                    plural(h.more_in_session.len(), "more memory", "more memories")
                ))
            );
        }
    }
    out
}

/// What `prune` deleted (or would).
pub fn pruned(doomed: &[MemoryEntry], dry_run: bool, style: &Style) -> String {
    if doomed.is_empty() {
        return "Nothing to prune.\n".into();
    }
    let mut out = format!(
        "{} {}:\n",
        if dry_run { "Would delete" } else { "Deleted" },
        plural(doomed.len(), "memory", "memories")
    );
    out.push_str(&table(doomed, style));
    out
}

/// A path as one line on a terminal: directory names come from outside.
pub fn shown(path: &Path) -> String {
    terminal_line(&path.to_string_lossy(), 1_000)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `status`: whether memory-stalker is on here, why, and what it holds.
/// What `status` says of the last days: the model summaries and the hooks' problems.
pub struct Health<'a> {
    /// The model summaries of the last 7 days.
    pub usage: &'a memory_stalker::summary::ledger::Usage,
    /// The configured summariser (`auto`, `offline`, `claude-cli`, …).
    pub backend: &'a str,
    /// Warnings and errors the hooks logged in the last 7 days.
    pub problems: usize,
    /// The latest of them: when, and what it said.
    pub last_problem: Option<(&'a str, &'a str)>,
    /// What the memories add up to: sessions, saved and imported.
    pub tally: &'a memory_stalker::search::index::Tally,
    /// When `import` last wrote a memory here.
    pub last_import: Option<&'a str>,
}

/// The sessions and saves lines of `status`: sessions with memories, the compactions the
/// hooks saw, the memories they saved and the last of them, and what `import` added.
fn sessions_lines(h: &Health<'_>) -> String {
    let t = h.tally;
    let mut out = format!(
        "Sessions: {} with memories ({} saved by the hooks, at {}; {} imported)\n",
        thousands(t.sessions),
        thousands(t.sessions_saved),
        plural(t.compactions, "compaction", "compactions"),
        thousands(t.sessions_imported),
    );
    let _ = match &t.last_save {
        Some(m) => write!(
            out,
            "Saved by the hooks: {}, the last {} ({})",
            plural(t.saved, "memory", "memories"),
            terminal_line(&m.date, 40),
            terminal_line(&m.file, 200)
        ),
        None => write!(out, "Saved by the hooks: none yet"),
    };
    let _ = match (t.imported, h.last_import) {
        (0, _) => writeln!(
            out,
            "; imported: none (list-memories import saves your past sessions)"
        ),
        (n, Some(at)) => writeln!(
            out,
            "; imported: {} (list-memories import, last {})",
            thousands(n),
            terminal_line(
                &at.replace('T', " ").chars().take(16).collect::<String>(),
                40
            )
        ),
        (n, None) => writeln!(out, "; imported: {} (list-memories import)", thousands(n)),
    };
    out
}

/// The model summaries line of `status`: what the user's summaries cost them.
fn summaries_line(h: &Health<'_>) -> String {
    let u = h.usage;
    if u.written + u.failed == 0 {
        return format!(
            "Model summaries, last 7 days: none (summariser: {}; with `claude` on PATH `auto` makes one small-model call per compaction)",
            terminal_line(h.backend, 40)
        );
    }
    let sources: Vec<String> = u
        .by_source
        .iter()
        .map(|(s, n)| format!("{} {n}", terminal_line(s, 80)))
        .collect();
    let mut line = format!(
        "Model summaries, last 7 days: {} written, {} failed ({}); {} characters sent; median {:.1} s a call",
        u.written,
        u.failed,
        sources.join(", "),
        thousands(u.characters_sent),
        u.median_ms.unwrap_or(0) as f64 / 1000.0
    );
    if let Some(e) = &u.last_error {
        let _ = write!(line, "\n  latest failure: {}", terminal_line(e, 300));
    }
    line
}

/// `1234567` as `1,234,567`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `status`: whether memory-stalker is on here and why, its memories, the recall, what
/// the model summaries of the last days cost and the hooks' problems.
pub fn status(
    project: &Path,
    status: &memory_stalker::switch::Status,
    dir: &Path,
    listing: &Listing,
    config: &memory_stalker::Config,
    health: &Health<'_>,
) -> String {
    let mut out = format!(
        "memory-stalker in {}: {}\n",
        shown(project),
        terminal_line(&status.describe(), 2_000)
    );
    let _ = match listing.memories.first() {
        Some(newest) => writeln!(
            out,
            "Memories: {} in {} (newest {}, {})",
            listing.total,
            shown(dir),
            terminal_line(&newest.date, 40),
            terminal_line(&newest.file, 200)
        ),
        None => writeln!(out, "Memories: none yet in {}", shown(dir)),
    };
    out.push_str(&sessions_lines(health));
    let _ = if !status.enabled {
        writeln!(
            out,
            "Recall at session start: off (memory-stalker is off here)"
        )
    } else if config.recall {
        writeln!(
            out,
            "Recall at session start: on (the latest memory, when it has open tasks or is under {} days old; MEMORY_STALKER_RECALL=0 turns it off)",
            config.recall_days
        )
    } else {
        writeln!(
            out,
            "Recall at session start: off (MEMORY_STALKER_RECALL=0)"
        )
    };
    let _ = writeln!(out, "{}", summaries_line(health));
    let _ = match health.last_problem {
        Some((at, msg)) => writeln!(
            out,
            "Hook problems, last 7 days: {} (latest {}: {})",
            health.problems,
            terminal_line(at, 40),
            terminal_line(msg, 300)
        ),
        None => writeln!(out, "Hook problems, last 7 days: none"),
    };
    let _ = if status.enabled {
        writeln!(out, "Turn it off here: list-memories off")
    } else {
        writeln!(out, "Turn it on here: list-memories on")
    };
    out
}

/// `on` / `off`: the state now, and the file written to get there.
pub fn switched(
    project: &Path,
    status: &memory_stalker::switch::Status,
    written: Option<&Path>,
) -> String {
    match written {
        Some(file) => format!(
            "memory-stalker is now {} in {} (wrote {}).\n",
            if status.enabled { "on" } else { "off" },
            shown(project),
            shown(file)
        ),
        None => format!(
            "Nothing changed in {}: memory-stalker is {}.\n",
            shown(project),
            terminal_line(&status.describe(), 2_000)
        ),
    }
}

pub mod import;

#[cfg(test)]
mod properties;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_headline_is_cut_at_a_words_end() {
        let h = "Replace them with a single link to the combined transcript instead";
        assert_eq!(
            pad_words(h, 33).trim_end(),
            "Replace them with a single link…"
        );
        assert_eq!(pad_words(h, 33).width(), 33);
        // A word that ends where the room does is kept whole.
        assert_eq!(pad_words("abc def ghi", 8).trim_end(), "abc def…");
        // Punctuation before the cut goes: "…tests:" reads as a lead-in.
        assert_eq!(
            pad_words("Fix the tests: all of them now", 17).trim_end(),
            "Fix the tests…"
        );
        // No boundary in the second half of the room: cut where it must be.
        assert_eq!(
            pad_words("a verylongidentifierwithoutspaces", 12).trim_end(),
            "a verylongi…"
        );
        assert_eq!(pad_words("灰度区域管理功能全栈实现", 9).width(), 9);
        assert_eq!(pad_words("short", 10), pad("short", 10));
        for w in [0, 1, 2, 3] {
            assert!(pad_words("two words here", w).width() <= w.max(1), "{w}");
        }
    }

    /// The allocation-free path of the table gives what `pad` gives.
    #[test]
    fn pad_into_fits_like_pad() {
        let texts = [
            "",
            "x",
            "abc",
            " lead",
            "trail ",
            "a\nb",
            "exactly10!",
            "longer than ten columns",
            "灰度 wide",
            "tab\there",
            "ctl\u{7f}",
            "2026-01-29 17:30",
        ];
        for s in texts {
            for w in [0, 1, 2, 5, 9, 10, 11, 12, 18, 46] {
                let mut out = String::from("> ");
                pad_into(&mut out, s, w);
                assert_eq!(out, format!("> {}", pad(s, w)), "{s:?} in {w}");
            }
        }
    }
}
