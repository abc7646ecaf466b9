//! The text of the tools' answers, shaped for a model: the gist first, details on
//! request, and never more than [`MAX_CHARS`] characters. Every value from a memory, a
//! file name, a path or the model's own arguments is one line through
//! `memory_stalker::untrusted` (docs/design.md §8.3), so none can add a line of ours.

use std::fmt::Write as _;
use std::path::Path;

use memory_stalker::memory::document::sections;
use memory_stalker::memory::{MemoryEntry, Section};
use memory_stalker::store::{Found, Listing, ProjectHit, Target};
use memory_stalker::text::prefix_chars;
use memory_stalker::untrusted;

/// Most characters in any answer: a tool result lands in the model's context whole.
pub const MAX_CHARS: usize = 8_000;
/// Most characters of a headline in a list or search answer.
const HEADLINE_CHARS: usize = 160;
/// Most characters of a target, query or filter echoed back.
const ECHO_CHARS: usize = 100;
/// Most memories named in an "ambiguous target" error.
const MAX_NAMED: usize = 20;

/// A value from outside (a file, or the model's own arguments) as one clean line.
fn clean(text: &str, max: usize) -> String {
    untrusted::line(text, max)
}

/// A path (a project's directory name comes from outside) as one clean line.
fn path(p: &Path) -> String {
    untrusted::path(p)
}

/// The model's own words, quoted, at most [`ECHO_CHARS`] of them.
fn quoted(text: &str) -> String {
    format!("\"{}\"", clean(text, ECHO_CHARS).replace('"', "'"))
}

/// Every section key, for error messages and hints.
pub fn section_keys() -> String {
    Section::ALL.map(Section::key).join(", ")
}

/// "1 of 2 tasks open", or "no tasks".
fn tasks(e: &MemoryEntry) -> String {
    if e.tasks_total == 0 {
        "no tasks".into()
    } else {
        format!("{} of {} tasks open", e.tasks_open, e.tasks_total)
    }
}

/// The memory's headline, or a placeholder when it has none; a memory that is not the
/// user's own says so first (docs/design.md §4.10).
fn headline(e: &MemoryEntry) -> String {
    let h = clean(&e.summary, HEADLINE_CHARS);
    let h = if h.is_empty() {
        "(no summary)".into()
    } else {
        h
    };
    match e.mark() {
        Some(_) => format!("{} {h}", provenance_note(e)),
        None => h,
    }
}

/// Why a memory is not the user's own, for a model to weigh it.
fn provenance_note(e: &MemoryEntry) -> &'static str {
    match e.mark() {
        Some("future") => "[dated in the future: unverified]",
        Some(_) => {
            "[foreign: not written by memory-stalker on this machine (a repository's or another machine's, or edited); unverified]"
        }
        None => "",
    }
}

/// `head`, as many `entries` as fit, and `tail`, within [`MAX_CHARS`]; the entries
/// that do not fit are replaced by `more(n)`. Cut between entries, never inside one.
fn fit(head: &str, entries: &[String], tail: &str, more: impl Fn(usize) -> String) -> String {
    let mut out = String::from(head);
    let mut used = head.chars().count();
    // The longest `more` note is the one for all entries; reserved up front so the
    // note always fits.
    let reserve = tail.chars().count() + more(entries.len()).chars().count();
    for (i, e) in entries.iter().enumerate() {
        let n = e.chars().count();
        if used + n + reserve > MAX_CHARS {
            out.push_str(&more(entries.len() - i));
            break;
        }
        out.push_str(e);
        used += n;
    }
    out.push_str(tail);
    bounded(out)
}

/// A last guard: any text over [`MAX_CHARS`] is cut, with a note saying so.
pub fn bounded(text: String) -> String {
    if text.chars().count() <= MAX_CHARS {
        return text;
    }
    const NOTE: &str = "\n[… cut: answers are limited to 8,000 characters]";
    let keep = MAX_CHARS - NOTE.chars().count();
    format!("{}{NOTE}", prefix_chars(&text, keep))
}

/// The answer of `search_memories` when something matched.
pub fn search(
    query: &str,
    hits: &[ProjectHit],
    (total, exact): (usize, bool),
    all_projects: bool,
    this_project: &Path,
) -> String {
    let head = format!(
        "{}{total} {} {} {} (best {} {}):\n",
        if exact { "" } else { "at least " },
        if total == 1 { "memory" } else { "memories" },
        if total == 1 { "matches" } else { "match" },
        quoted(query),
        hits.len(),
        if hits.len() == 1 {
            "session"
        } else {
            "sessions"
        }
    );
    let mut others = false;
    let entries: Vec<String> = hits
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let m = &h.hit.memory;
            let mut e = format!(
                "\n{}. {} ({}, {} session {}, {})\n   {}\n",
                i + 1,
                clean(&m.file, 200),
                clean(&m.date, 40),
                m.agent.name(),
                clean(&m.session, 20),
                tasks(m),
                headline(m)
            );
            if let Some(s) = &h.hit.snippet_parts {
                let s = s.fit(200);
                let _ = writeln!(
                    e,
                    "   matched in {}: {}",
                    h.hit.section.unwrap_or("memory"),
                    clean(&s.marked("**", "**"), 240)
                );
            }
            if h.hit.hits == 0 && h.hit.terms > 0 {
                // Found through a synonym or another form alone: weaker evidence.
                let _ = writeln!(
                    e,
                    "   (only words related to the query matched, none of its own)"
                );
            }
            if !h.hit.more_in_session.is_empty() {
                // Named, as `--json` names them: the model can read an earlier
                // compaction of the same session without searching again.
                let more = &h.hit.more_in_session;
                let named: Vec<String> = more.iter().take(3).map(|f| clean(f, 200)).collect();
                let rest = more.len() - named.len();
                let _ = writeln!(
                    e,
                    "   other memories of this session that matched: {}{}",
                    named.join(", "),
                    if rest > 0 {
                        format!(" (and {rest} more)")
                    } else {
                        String::new()
                    }
                );
            }
            if all_projects {
                if h.project == this_project {
                    let _ = writeln!(e, "   project: {} (this one)", path(&h.project));
                } else {
                    others = true;
                    let _ = writeln!(e, "   project: {}", path(&h.project));
                    let _ = writeln!(e, "   file: {}", path(&m.path));
                }
            }
            e
        })
        .collect();
    // A real file name in the hint: a model copies an example more reliably than it
    // fills in a placeholder. Only one of this project's: show_memory reads no other.
    let example = hits
        .iter()
        .find(|h| h.project == this_project)
        .map_or("<file>".to_string(), |h| clean(&h.hit.memory.file, 200));
    let mut tail = format!(
        "\nRead one whole: show_memory(target=\"{example}\"); only one part of it: add section=\"<key>\", one of {}.\n",
        section_keys()
    );
    if others {
        tail.push_str(
            "show_memory reads this project's memories; read another project's memory from the file path shown.\n",
        );
    }
    fit(&head, &entries, &tail, |n| {
        format!(
            "\n({n} more not shown, to stay within 8,000 characters: ask again with a smaller limit or more words.)\n"
        )
    })
}

/// A search answer, and how many projects could not be read (their paths are the
/// user's to see, on the terminal; the model needs only to know the answer is partial).
pub fn with_skipped(answer: String, projects: usize) -> String {
    bounded(format!(
        "{answer}\n({projects} other {} could not be read and {} not searched.)\n",
        if projects == 1 { "project" } else { "projects" },
        if projects == 1 { "was" } else { "were" }
    ))
}

/// `answer` with what it did not see: `unread` memory files that arrived behind the
/// search index's back and were left for later (the index reads many a slice at a time,
/// newest first, and the rest in the background). Unchanged when there are none.
pub fn with_unread(answer: String, unread: usize) -> String {
    if unread == 0 {
        return answer;
    }
    let note = format!(
        "\n(Partial: {unread} {} that arrived since the search index last looked {} not read yet (the newest were), so {} not searched or listed; the index is reading {} now: ask again in a moment for a whole answer.)\n",
        if unread == 1 { "memory" } else { "memories" },
        if unread == 1 { "was" } else { "were" },
        if unread == 1 { "it was" } else { "they were" },
        if unread == 1 { "it" } else { "them" },
    );
    // The note is kept whole: a long answer gives way to it.
    let room = MAX_CHARS - note.chars().count();
    let answer = if answer.chars().count() <= room {
        answer
    } else {
        prefix_chars(&answer, room).to_string()
    };
    format!("{answer}{note}")
}

/// The answer of `search_memories` when nothing matched: not an error.
pub fn nothing_matched(query: &str, searched: &str) -> String {
    bounded(format!(
        "No memory matches {} (searched {}). Search again with other words: synonyms, the names of files, functions or tools, the text of an error; or list_memories for the newest.\n",
        quoted(query),
        clean(searched, 1_000)
    ))
}

/// The answer of `list_memories`.
pub fn listing(l: &Listing, filter: Option<&str>, dir: &Path) -> String {
    if l.total == 0 {
        return bounded(match filter {
            Some(f) => format!(
                "No memory matches filter {} in {}; list_memories without a filter shows them all.\n",
                quoted(f),
                path(dir)
            ),
            None => format!(
                "No memories yet in {}. memory-stalker saves one each time Claude Code or Codex compacts a session of this project.\n",
                path(dir)
            ),
        });
    }
    let shown = l.memories.len();
    let mut head = match filter {
        Some(f) => format!(
            "{} {} filter {} (newest {shown}):\n",
            l.total,
            if l.total == 1 {
                "memory matches"
            } else {
                "memories match"
            },
            quoted(f)
        ),
        None => format!(
            "{} {} in all (newest {shown}):\n",
            l.total,
            if l.total == 1 { "memory" } else { "memories" }
        ),
    };
    head.push('\n');
    let entries: Vec<String> = l
        .memories
        .iter()
        .map(|m| {
            format!(
                "- {}  {}  {}  {}  {}  {}\n",
                clean(&m.date, 40),
                clean(&m.file, 200),
                tasks(m),
                clean(&m.trigger, 20),
                m.agent.name(),
                headline(m)
            )
        })
        .collect();
    let mut tail = String::new();
    match l.skipped.len() {
        0 => {}
        1 => tail
            .push_str("\n(1 other .md file in the directory could not be read as a memory and was skipped.)\n"),
        n => {
            let _ = writeln!(
                tail,
                "\n({n} other .md files in the directory could not be read as memories and were skipped.)"
            );
        }
    }
    let example = l
        .memories
        .first()
        .map_or("<file>".to_string(), |m| clean(&m.file, 200));
    let _ = writeln!(
        tail,
        "\nRead one: show_memory(target=\"{example}\"), or target=\"latest\"; search them: search_memories(query=\"...\")."
    );
    fit(&head, &entries, &tail, |n| {
        format!(
            "({n} more not shown, to stay within 8,000 characters: ask with a smaller limit.)\n"
        )
    })
}

/// The answer of `show_memory`: a line naming the memory, then its text (or the
/// section's), cut with a note when it would not fit.
pub fn memory(m: &MemoryEntry, section: Option<Section>, text: &str) -> String {
    let file = clean(&m.file, 200);
    let head = format!(
        "Memory {file} ({}, {} session {}, {}){}{}:\n\n",
        clean(&m.date, 40),
        m.agent.name(),
        clean(&m.session, 20),
        tasks(m),
        section.map_or(String::new(), |s| format!(", section {}", s.key())),
        match m.mark() {
            Some(_) => format!(" {}", provenance_note(m)),
            None => String::new(),
        }
    );
    let text = untrusted::clean(text);
    let total = head.chars().count() + text.chars().count();
    if total <= MAX_CHARS {
        return format!("{head}{text}");
    }
    let note = match section {
        None => {
            let present = sections_in(&text);
            let keys = if present.is_empty() {
                section_keys()
            } else {
                present.join(", ")
            };
            format!(
                "\n\n[Cut at 8,000 characters: this memory has {} characters. Ask for one section instead: show_memory(target=\"{file}\", section=\"<key>\"), its sections: {keys}. The whole file: {}]\n",
                text.chars().count(),
                path(&m.path)
            )
        }
        Some(s) => format!(
            "\n\n[Cut at 8,000 characters: the {} section has {} characters. The rest is in the file: {}]\n",
            s.key(),
            text.chars().count(),
            path(&m.path)
        ),
    };
    let keep = MAX_CHARS.saturating_sub(head.chars().count() + note.chars().count());
    bounded(format!("{head}{}{note}", prefix_chars(&text, keep)))
}

/// The keys of the sections `text` has, in order, once each (headings inside fenced
/// blocks are not sections: the library's own reading of a memory).
fn sections_in(text: &str) -> Vec<&'static str> {
    let mut keys: Vec<&'static str> = Vec::new();
    for s in sections(text).into_iter().map(|span| span.section) {
        if !keys.contains(&s.key()) {
            keys.push(s.key());
        }
    }
    keys
}

/// The error of `show_memory` when the target names several memories.
pub fn ambiguous(target: &str, found: &Found) -> String {
    let head = format!(
        "{} memories match {}; name one of them by its file name:\n",
        found.matches.len(),
        quoted(target)
    );
    let entries: Vec<String> = found
        .matches
        .iter()
        .take(MAX_NAMED)
        .map(|m| {
            format!(
                "- {}  ({}, {})\n",
                clean(&m.file, 200),
                clean(&m.date, 40),
                headline(m)
            )
        })
        .collect();
    let left = found.matches.len() - entries.len();
    let tail = if left > 0 {
        format!("(and {left} more: use a longer date or session-id prefix.)\n")
    } else {
        String::new()
    };
    fit(&head, &entries, &tail, |n| {
        format!("(and {n} more not shown.)\n")
    })
}

/// The error of `show_memory` when the target names no memory.
pub fn not_found(found: &Found, dir: &Path) -> String {
    let how = match &found.kind {
        Target::Latest => "there are no memories yet".to_string(),
        Target::Index(n) => format!("there is no memory #{n}"),
        Target::File(name) => format!("no file named {}", quoted(name)),
        Target::Date(p) => format!(
            "no memory dated {p}… and none whose session id starts with {}",
            quoted(&found.target)
        ),
        Target::Session(p) => format!("no memory whose session id starts with {}", quoted(p)),
    };
    bounded(format!(
        "No memory matches {}: {how} in {}. A target is latest, #N (1 = newest), a date (20260129 or 2026-01-29), a session-id prefix, or a file name; list_memories shows what there is.",
        quoted(&found.target),
        path(dir)
    ))
}

/// The error of `show_memory` when the memory lacks the section asked for.
pub fn no_section(m: &MemoryEntry, section: Section) -> String {
    bounded(format!(
        "Memory {} has no {} section; show_memory without section shows all it has.",
        clean(&m.file, 200),
        section.key()
    ))
}

/// The error of `show_memory` when the memory is larger than the tools read.
pub fn too_large(m: &MemoryEntry) -> String {
    bounded(format!(
        "Memory {} is {} bytes, over the 8 MiB the tools read (it was not written by this version of memory-stalker); it is not shown. It is at {}.",
        clean(&m.file, 200),
        m.size_bytes,
        path(&m.path)
    ))
}

/// The error for a section name that is none of ours.
pub fn unknown_section(name: &str) -> String {
    bounded(format!(
        "Unknown section {}; the sections are: {}.",
        quoted(name),
        section_keys()
    ))
}

#[cfg(test)]
mod properties;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_answer_says_what_it_did_not_see_within_the_bound() {
        assert_eq!(with_unread("whole\n".into(), 0), "whole\n");
        insta::assert_snapshot!(with_unread("1 memory matches \"wombat\" (best 1 session):\n".into(), 9_000), @r#"
        1 memory matches "wombat" (best 1 session):

        (Partial: 9000 memories that arrived since the search index last looked were not read yet (the newest were), so they were not searched or listed; the index is reading them now: ask again in a moment for a whole answer.)
        "#);
        let long = with_unread("x".repeat(MAX_CHARS), 1);
        assert_eq!(long.chars().count(), MAX_CHARS);
        assert!(long.ends_with("(the newest were), so it was not searched or listed; the index is reading it now: ask again in a moment for a whole answer.)\n"), "{long}");
    }
}
