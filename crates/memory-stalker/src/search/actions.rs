//! The lookup behind the notes at the moment of action (docs/design.md §2.13): which
//! earlier memories hold a decision, a failed approach or a standing instruction naming
//! a file, and which hold a failed approach with a given error and what worked.
//!
//! Both are tables of the search index, filled when a memory is indexed from the same
//! lines the full-text fields come from ([`super::fields::lines`]), so they are derived
//! from the files and rebuilt with the index. A hook reads them by an indexed column
//! (the file's name, the error's signature): a lookup, never a scan of the memories.

use rusqlite::params;

use super::fields::{Field, lines};
use crate::text::prefix_chars;

/// What an item is, in the order a note prefers them: a failed approach says most about
/// what not to do again, then what the user asked for always, then what was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// An approach that failed.
    Failed = 0,
    /// A standing instruction of the user's.
    Instruction = 1,
    /// A decision.
    Decision = 2,
}

impl Kind {
    fn of(field: Field) -> Option<Kind> {
        match field {
            Field::Failures => Some(Kind::Failed),
            Field::Instructions => Some(Kind::Instruction),
            Field::Decisions => Some(Kind::Decision),
            _ => None,
        }
    }

    pub(crate) fn from_i64(n: i64) -> Option<Kind> {
        [Kind::Failed, Kind::Instruction, Kind::Decision]
            .into_iter()
            .find(|k| *k as i64 == n)
    }
}

/// Longest item kept in the tables (a note shows less).
const ITEM_CHARS: usize = 600;
/// Most file mentions kept from one memory: a memory's lists are short; a hand-made one
/// with thousands of paths must not grow the index without bound.
const MAX_MENTIONS: usize = 200;
/// Most error facts kept from one memory.
const MAX_ERRORS: usize = 50;
/// Tokens of an error line that make its signature: enough to tell errors apart, few
/// enough that the memory's copy (cut at 140 characters) still holds them.
const SIGNATURE_TOKENS: usize = 8;

/// A file named by an item of a memory, as indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// The file's name (last component): the column looked up.
    pub name: String,
    /// The path as the item names it; relative to the memory's project when it was an
    /// absolute path inside it.
    pub path: String,
    /// What the item is.
    pub kind: Kind,
    /// The item, one line.
    pub item: String,
}

/// A failed approach that names an error and what worked, as indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorFact {
    /// The error's signature ([`signature`]).
    pub signature: String,
    /// What made the command pass.
    pub worked: String,
    /// The item, one line.
    pub item: String,
}

/// What a memory gives the two tables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// Files named by its decisions, failed approaches and standing instructions.
    pub mentions: Vec<Mention>,
    /// Its failed approaches with an error and what worked.
    pub errors: Vec<ErrorFact>,
}

/// The facts of a memory's text; `project` is its front matter's project.
pub fn facts_of(text: &str, project: &str) -> Facts {
    let mut out = Facts::default();
    for line in lines(text) {
        let Some(kind) = Kind::of(line.field) else {
            continue;
        };
        let item = crate::text::one_line(line.text, ITEM_CHARS);
        let paths = if says_something_of_its_files(kind, line.text) {
            paths_in(line.text)
        } else {
            Vec::new()
        };
        for path in paths {
            if out.mentions.len() >= MAX_MENTIONS {
                break;
            }
            let path = relative_to_project(&path, project);
            let Some(name) = path.rsplit('/').next().filter(|n| !n.is_empty()) else {
                continue;
            };
            let m = Mention {
                name: name.to_string(),
                path,
                kind,
                item: item.clone(),
            };
            if !out.mentions.contains(&m) {
                out.mentions.push(m);
            }
        }
        if kind == Kind::Failed && out.errors.len() < MAX_ERRORS {
            for e in error_facts(line.text) {
                if !out.errors.contains(&e) {
                    out.errors.push(e);
                }
            }
        }
    }
    out
}

/// Whether an item says something of the files it names, worth a note before one of
/// them is edited. Read on the replay of both corpora (tests/data/action-notes/), these
/// name a file only by the way: a call refused or denied (a permission never granted, a
/// user turning down one edit, a refused `Glob`), a question and its answer, and a run
/// that kept failing with no stated fix — never passing, or passing "until: editing
/// <file>", which credits whatever edit came before the next pass.
fn says_something_of_its_files(kind: Kind, item: &str) -> bool {
    // "by you" and "You chose": the words of memories written before 2026-11-29.
    const REFUSED: [&str; 6] = [
        " was refused by user",
        " was refused by you",
        " was denied by the permission settings",
        " 被用户拒绝",
        " 被权限设置拒绝",
        "用户拒绝了 ",
    ];
    const ASKED: [&str; 6] = [
        "Claude asked “",
        "Codex asked “",
        "User chose “",
        "You chose “",
        "Claude 问 “",
        "Codex 问 “",
    ];
    let item = item.trim_start();
    if REFUSED.iter().any(|r| item.contains(r)) || ASKED.iter().any(|a| item.starts_with(a)) {
        return false;
    }
    if kind == Kind::Failed && is_failed_run(item) {
        return stated_fix(item).is_some();
    }
    true
}

/// Whether an item is a run that kept failing, as the memory writes it: `` `cmd` failed
/// N times (…) `` (or `` `cmd` 失败 ``).
fn is_failed_run(item: &str) -> bool {
    item.starts_with('`') && (item.contains("` failed ") || item.contains("` 失败"))
}

/// What an item says made a failing run pass, when it says what was done: the text
/// after "until:", unless it only names the files edited in between.
fn stated_fix(item: &str) -> Option<&str> {
    let (_, fix) = item
        .split_once(" until: ")
        .or_else(|| item.split_once("，直到："))?;
    let fix = fix.trim();
    (!fix.is_empty() && !fix.starts_with("editing ")).then_some(fix)
}

/// `path` relative to `project` when it is an absolute path inside it.
fn relative_to_project(path: &str, project: &str) -> String {
    let project = project.trim_end_matches('/');
    if !project.is_empty()
        && let Some(rest) = path.strip_prefix(project).and_then(|r| r.strip_prefix('/'))
        && !rest.is_empty()
    {
        return rest.to_string();
    }
    path.strip_prefix("./").unwrap_or(path).to_string()
}

/// The paths an item names: words with a file name (a name, a dot, an extension that
/// starts with a letter), with or without directories; a URL, a version number or an
/// abbreviation ("e.g.") is none. A `:line` suffix is dropped.
pub fn paths_in(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let seps = |c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '`' | '('
                    | ')'
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | ','
                    | ';'
                    | '"'
                    | '\''
                    | '“'
                    | '”'
                    | '‘'
                    | '’'
                    | '<'
                    | '>'
                    | '|'
                    | '='
            )
    };
    for word in text.split(seps) {
        if word.contains("://") || word.starts_with('@') {
            continue;
        }
        let word = word.trim_end_matches(['.', ':', '…', '!', '?']);
        // `src/a.rs:42` or `src/a.rs:42:7`.
        let word = match word.split_once(':') {
            Some((p, rest))
                if rest
                    .split(':')
                    .all(|n| n.chars().all(|c| c.is_ascii_digit())) =>
            {
                p
            }
            Some(_) => continue,
            None => word,
        };
        if is_path(word) && !out.iter().any(|p| p == word) {
            out.push(word.to_string());
        }
    }
    out
}

/// Whether a word is a file path: its last component a file name with an extension.
fn is_path(word: &str) -> bool {
    if word.len() < 3 || word.len() > 400 || word.contains('\\') || word.contains("..") {
        return false;
    }
    let name = word.rsplit('/').next().unwrap_or(word);
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    let stem_ok = stem
        .trim_start_matches('.')
        .chars()
        .any(|c| c.is_alphanumeric())
        && stem
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '+' | '@'));
    let ext_ok = (1..=10).contains(&ext.len())
        && ext.starts_with(|c: char| c.is_ascii_alphabetic())
        && ext.chars().all(|c| c.is_ascii_alphanumeric());
    // "e.g", "i.e": a one-letter stem and extension without directories is a word.
    let abbreviation = !word.contains('/') && stem.len() == 1 && ext.len() == 1;
    stem_ok && ext_ok && !abbreviation
}

/// Whether an item's `mention` (as indexed) names the file being edited: `relative` is
/// its path relative to the project (`None` outside it), `absolute` its whole path.
///
/// The rule, for precision: an absolute mention must be the file itself; a relative one
/// must be its project-relative path, or end it when it has at least three components
/// (`src/memory/store.rs` for `crates/x/src/memory/store.rs`: a session that worked in
/// a subdirectory); a bare name (`lib.rs`) names only a file at the project's root —
/// `src/lib.rs` is not every `lib.rs` an item ever named.
pub fn names_file(mention: &str, relative: Option<&str>, absolute: &str) -> bool {
    if mention.starts_with('/') {
        return mention == absolute;
    }
    let Some(rel) = relative else {
        return false;
    };
    if mention == rel {
        return true;
    }
    let components = mention.split('/').filter(|c| !c.is_empty()).count();
    components >= 3 && rel.ends_with(&format!("/{mention}"))
}

/// The failed-approach facts of an item written as the memory writes a run that kept
/// failing: `` `cmd` failed N times (ERROR; last: ERROR) until: WHAT (Tool, date) ``
/// (or its Chinese form). Only an item that names an error and what worked gives one.
pub fn error_facts(item: &str) -> Vec<ErrorFact> {
    let (head, worked) = if let Some((h, w)) = item.split_once(" until: ") {
        (h, w)
    } else if let Some((h, w)) = item.split_once("，直到：") {
        (h, w)
    } else {
        return Vec::new();
    };
    // The error is in the parentheses after "failed N times" / "失败 N 次".
    let Some(open) = head.find(" (") else {
        return Vec::new();
    };
    let Some(close) = head.rfind(')').filter(|c| *c > open) else {
        return Vec::new();
    };
    let errors = &head[open + 2..close];
    let worked = without_source(
        worked
            .split("; tried before: ")
            .next()
            .unwrap_or(worked)
            .split("；之前尝试过：")
            .next()
            .unwrap_or(worked),
    );
    // "editing <file>" only names what was edited before the next pass: no fix to tell.
    if worked.trim().is_empty() || worked.trim_start().starts_with("editing ") {
        return Vec::new();
    }
    let mut out = Vec::new();
    for e in errors.split("; last: ").flat_map(|e| e.split("；最后：")) {
        if let Some(signature) = signature(e) {
            let fact = ErrorFact {
                signature,
                worked: crate::text::one_line(worked.trim(), ITEM_CHARS),
                item: crate::text::one_line(item, ITEM_CHARS),
            };
            if !out.contains(&fact) {
                out.push(fact);
            }
        }
    }
    out
}

/// `text` without the ` (Tool, 2026-02-12 20:58)` the memory puts after an item.
fn without_source(text: &str) -> &str {
    let t = text.trim_end();
    if t.ends_with(')')
        && let Some(open) = t.rfind(" (")
    {
        let inner = &t[open + 2..t.len() - 1];
        let dated = inner
            .split(", ")
            .last()
            .is_some_and(|d| d.len() >= 10 && d.as_bytes()[4] == b'-' && d.as_bytes()[7] == b'-');
        if dated {
            return &t[..open];
        }
    }
    t
}

/// The signature of an error line: its first [`SIGNATURE_TOKENS`] words, lower-cased,
/// with what differs from one run to the next set aside — paths and file names become
/// `<path>`, hashes and ids `<id>`, every run of digits `#` (counts, line numbers,
/// times, ports). `None` when what is left says too little to tell one error from
/// another (fewer than three words, two of them with letters).
pub fn signature(error: &str) -> Option<String> {
    // The memory cuts an error line with `…`: the word it cut is not the error's.
    let cut = error.trim_end().ends_with('…');
    let mut words: Vec<String> = error
        .split_whitespace()
        .map(normalise_word)
        .filter(|w| !w.is_empty())
        .collect();
    if cut {
        words.pop();
    }
    // "Exit code 1" before the output says only that it failed.
    if words.len() >= 3 && words[0] == "exit" && words[1] == "code" && words[2] == "#" {
        words.drain(..3);
    }
    words.truncate(SIGNATURE_TOKENS);
    let lettered = words
        .iter()
        .filter(|w| !w.starts_with('<') && w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        .count();
    // A line that only says something failed ("[lint] ERROR task failed", "Pre-commit
    // validation failed: [DIALYZER]", "FAIL … [build failed]") matches every failure of
    // that tool: it needs two words of its own.
    let telling = words
        .iter()
        .filter(|w| {
            let bare: String = w.chars().filter(|c| c.is_alphabetic()).collect();
            bare.chars().count() >= 3 && !w.starts_with('<') && !GENERIC.contains(&bare.as_str())
        })
        .count();
    (words.len() >= 3 && lettered >= 2 && telling >= 2).then(|| words.join(" "))
}

/// Words that every failure of a tool says: not enough to tell one error from another.
const GENERIC: [&str; 22] = [
    "error",
    "errors",
    "failed",
    "fail",
    "failure",
    "failures",
    "failing",
    "task",
    "exit",
    "code",
    "build",
    "lint",
    "test",
    "tests",
    "validation",
    "precommit",
    "warning",
    "warnings",
    "fatal",
    "the",
    "and",
    "with",
];

/// One word of an error line as its signature holds it.
fn normalise_word(word: &str) -> String {
    let w = word.trim_matches(|c: char| {
        matches!(
            c,
            '`' | '\'' | '"' | '“' | '”' | '‘' | '’' | '(' | ')' | ',' | ';' | '…' | '.'
        )
    });
    let bare = w.trim_end_matches(':');
    if bare.contains('/') || bare.contains('\\') || is_path(bare.split(':').next().unwrap_or(bare))
    {
        return "<path>".into();
    }
    if is_id(bare) {
        return "<id>".into();
    }
    let mut out = String::with_capacity(w.len());
    let mut in_digits = false;
    for c in w.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            in_digits = false;
            out.push(c);
        }
    }
    out
}

/// Whether a word is a hash or an id: long hexadecimal with digits in it, or a UUID.
fn is_id(word: &str) -> bool {
    let hex: String = word.chars().filter(|c| *c != '-').collect();
    hex.len() >= 7
        && hex.chars().all(|c| c.is_ascii_hexdigit())
        && hex.chars().any(|c| c.is_ascii_digit())
        && hex.chars().any(|c| c.is_ascii_alphabetic())
}

/// The tables, made with the index's schema.
pub(crate) const SCHEMA: &str = "
    CREATE TABLE action_files (
        memory_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        path TEXT NOT NULL,
        kind INTEGER NOT NULL,
        item TEXT NOT NULL,
        order_ns INTEGER NOT NULL
    );
    CREATE INDEX action_files_name ON action_files(name, kind, order_ns DESC, memory_id DESC);
    CREATE INDEX action_files_memory ON action_files(memory_id);
    CREATE TABLE action_errors (
        memory_id INTEGER NOT NULL,
        signature TEXT NOT NULL,
        worked TEXT NOT NULL,
        item TEXT NOT NULL,
        order_ns INTEGER NOT NULL
    );
    CREATE INDEX action_errors_signature ON action_errors(signature, order_ns DESC, memory_id DESC);
    CREATE INDEX action_errors_memory ON action_errors(memory_id);";

/// The tables' names, dropped with the index's.
pub(crate) const TABLES: [&str; 2] = ["action_files", "action_errors"];

/// Puts a memory's facts in the tables, with its place in the order of memories
/// (`order_ns`): kept beside each row so that a lookup reads its rows newest first
/// straight from the index, and stops at the first that fits, without sorting every
/// row of a file many memories name.
pub(crate) fn put(
    tx: &rusqlite::Transaction<'_>,
    memory_id: i64,
    order_ns: i64,
    facts: &Facts,
) -> rusqlite::Result<()> {
    for m in &facts.mentions {
        tx.execute(
            "INSERT INTO action_files (memory_id, name, path, kind, item, order_ns)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![memory_id, m.name, m.path, m.kind as i64, m.item, order_ns],
        )?;
    }
    for e in &facts.errors {
        tx.execute(
            "INSERT INTO action_errors (memory_id, signature, worked, item, order_ns)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![memory_id, e.signature, e.worked, e.item, order_ns],
        )?;
    }
    Ok(())
}

/// Deletes a memory's facts.
pub(crate) fn delete(tx: &rusqlite::Transaction<'_>, memory_id: i64) -> rusqlite::Result<()> {
    for table in TABLES {
        tx.execute(
            &format!("DELETE FROM {table} WHERE memory_id = ?1"),
            [memory_id],
        )?;
    }
    Ok(())
}

/// The memory an item comes from, as a note names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The memory file's name.
    pub file: String,
    /// Its `created` (the date shown).
    pub created: String,
    /// Its session.
    pub session_id: String,
    /// The project it was saved for.
    pub project: String,
}

/// An item that names the file being edited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHit {
    /// What the item is.
    pub kind: Kind,
    /// The item.
    pub item: String,
    /// Where it comes from.
    pub source: Source,
}

/// An earlier failed approach with the same error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorHit {
    /// What made the command pass then.
    pub worked: String,
    /// The item.
    pub item: String,
    /// Where it comes from.
    pub source: Source,
}

/// The first characters of an item for a log line.
pub fn brief(item: &str) -> &str {
    prefix_chars(item, 80)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_words_with_a_file_name() {
        assert_eq!(
            paths_in(
                "You refused Edit src/a.rs: “keep the old name” (Edit, 2025-07-14 23:12); see `lib.rs:42`, e.g. README.md."
            ),
            ["src/a.rs", "lib.rs", "README.md"]
        );
        // Versions, URLs, abbreviations, sentences' dots and parent paths are none.
        assert!(
            paths_in("bumped to 2.1.332 per https://x.io/a.html, i.e. done. ../x.rs").is_empty()
        );
        assert_eq!(
            paths_in("/home/u/p/.github/ci.yml:3:9"),
            ["/home/u/p/.github/ci.yml"]
        );
        assert_eq!(paths_in(".env and Cargo.toml"), ["Cargo.toml"]);
    }

    #[test]
    fn a_file_is_named_by_its_path_not_by_every_file_of_its_name() {
        let abs = "/w/p/src/lib.rs";
        let rel = Some("src/lib.rs");
        assert!(names_file("src/lib.rs", rel, abs));
        assert!(names_file("/w/p/src/lib.rs", rel, abs));
        // Another crate's lib.rs, a bare name for a file not at the root, another
        // checkout's absolute path: none.
        assert!(!names_file("crates/b/src/lib.rs", rel, abs));
        assert!(!names_file("lib.rs", rel, abs));
        assert!(!names_file("/elsewhere/src/lib.rs", rel, abs));
        // Two components end many paths (`src/lib.rs` of every crate): only exactly.
        let deep = Some("crates/a/src/lib.rs");
        assert!(!names_file("src/lib.rs", deep, "/w/p/crates/a/src/lib.rs"));
        // Three components: a session that worked in a subdirectory.
        assert!(names_file("a/src/lib.rs", deep, "/w/p/crates/a/src/lib.rs"));
        // A bare name names a file at the root.
        assert!(names_file(
            "Cargo.toml",
            Some("Cargo.toml"),
            "/w/p/Cargo.toml"
        ));
        // Outside the project only the absolute path.
        assert!(!names_file("x.rs", None, "/tmp/x.rs"));
        assert!(names_file("/tmp/x.rs", None, "/tmp/x.rs"));
    }

    #[test]
    fn an_absolute_path_in_the_project_is_indexed_relative_to_it() {
        let text = "---\nmemory_stalker: 1\nsession_id: \"s\"\ncreated: \"2026-11-20T15:30:00+01:00\"\ntrigger: \"auto\"\nproject: \"/w/p\"\nsummary: \"x\"\n---\n\n# Session memory\n\n## Session so far\n\n### Your standing instructions\n\n- never touch /w/p/src/gen.rs by hand\n\n### Decisions\n\n- keep `src/a.rs` small\n\n### Approaches that failed\n\n- `cargo test` failed 2 times (error[E0425]: cannot find value `x` in this scope; last: thread 'main' panicked at src/b.rs:3:5) until: declared `x` before its use in src/a.rs (Bash, 2026-02-12 20:58)\n";
        let f = facts_of(text, "/w/p");
        let got: Vec<(&str, &str, Kind)> = f
            .mentions
            .iter()
            .map(|m| (m.name.as_str(), m.path.as_str(), m.kind))
            .collect();
        assert_eq!(
            got,
            [
                ("gen.rs", "src/gen.rs", Kind::Instruction),
                ("a.rs", "src/a.rs", Kind::Decision),
                ("b.rs", "src/b.rs", Kind::Failed),
                ("a.rs", "src/a.rs", Kind::Failed),
            ]
        );
        assert_eq!(f.errors.len(), 2, "{f:?}");
        assert_eq!(
            f.errors[0].worked,
            "declared `x` before its use in src/a.rs"
        );
        assert_eq!(
            f.errors[0].signature,
            "error[e#]: cannot find value x in this scope"
        );
        assert_eq!(f.errors[1].signature, "thread main panicked at <path>");
    }

    #[test]
    fn refusals_answers_and_runs_without_a_stated_fix_name_no_file() {
        // Each as the memory writes it; read on the replay of both corpora, every one of
        // these named the file only by the way (tests/data/action-notes/verdicts.md).
        for item in [
            "Write CLAUDE.md was denied by the permission settings (Write, 2025-09-03 00:47)",
            "Edit src/renderer.py was refused by you: “Do we even need it?” (Edit, 2026-02-12 20:58)",
            "Glob mix.exs was refused by you (Glob, 2026-02-10 21:12)",
            "Claude asked “Should I edit README.md?” → you answered “yes” (reply, 2026-02-12 20:58)",
            // Today's words for the same.
            "Edit src/renderer.py was refused by user: “Do we even need it?” (Edit, 2026-02-12 20:58)",
            "User chose “keep README.md” when asked “Which file?” (AskUserQuestion, 2026-02-12 20:58)",
            "`mix test test/a_test.exs` failed 6 times (Assertion with != failed) until: editing test/b_test.exs (Bash, 2026-02-12 20:58)",
            "`go build ./...` failed once (cmd/x/main.go:3:1: undefined: y) (Bash, 2026-02-12 20:58)",
        ] {
            // A run that kept failing is only ever listed among the failed approaches.
            let decision = if item.starts_with('`') {
                String::new()
            } else {
                format!("\n### Decisions\n\n- {item}\n")
            };
            let text = format!(
                "---\nmemory_stalker: 1\nsession_id: \"s\"\ncreated: \"2026-11-20T15:30:00+01:00\"\ntrigger: \"auto\"\nproject: \"/w/p\"\nsummary: \"x\"\n---\n\n# Session memory\n\n## Session so far\n\n### Approaches that failed\n\n- {item}\n{decision}"
            );
            let f = facts_of(&text, "/w/p");
            assert!(f.mentions.is_empty(), "{item}: {:?}", f.mentions);
            assert!(f.errors.is_empty(), "{item}: {:?}", f.errors);
        }
        // A run with what was done to make it pass names its files.
        assert!(says_something_of_its_files(
            Kind::Failed,
            "`uv run ty check` failed 2 times (error[call-non-callable]: Object of type `X` is not callable) until: a `# type: ignore` on the `pytest.skip` call in test/test_cache.py (Bash, 2026-01-23 17:14)"
        ));
    }

    #[test]
    fn signatures_set_aside_what_differs_between_runs() {
        let a = signature("error[E0308]: mismatched types at /home/a/p/src/x.rs:12:5").unwrap();
        let b = signature("error[E0308]: mismatched types at src/y.rs:99:1").unwrap();
        assert_eq!(a, b);
        assert_eq!(a, "error[e#]: mismatched types at <path>");
        assert_eq!(
            signature("fatal: reference is not a tree: 3f2a9c1d7e").unwrap(),
            "fatal: reference is not a tree: <id>"
        );
        assert_eq!(
            signature("Error: connect ECONNREFUSED 127.0.0.1:5432 at 2026-11-20T15:30:00Z")
                .unwrap(),
            "error: connect econnrefused #.#.#.#:# at #-#-#t#:#:#z"
        );
        // Any test's failed assertion between numbers: the test's name is set aside as a
        // path, and what is left would match every such failure.
        assert_eq!(
            signature("FAILED tests/test_a.py::test_x - AssertionError: 3 != 4"),
            None
        );
        // A word the memory cut is not compared.
        assert_eq!(
            signature("error: could not compile `memory-stalker` (lib) due to 3 previous err…"),
            signature("error: could not compile `memory-stalker` (lib) due to 1 previous error")
        );
        // Too little to tell errors apart: only that a tool failed.
        assert_eq!(signature("[lint] ERROR task failed"), None);
        assert_eq!(signature("Pre-commit validation failed: [DIALYZER]"), None);
        assert_eq!(signature("FAIL src/a.test.ts [build failed]"), None);
        assert!(
            signature("Pre-commit validation failed: [FORMAT] Code is not formatted.").is_some()
        );
        assert_eq!(signature("Exit code 1"), None);
        assert_eq!(signature("error"), None);
        assert_eq!(signature("/a/b.rs /c/d.rs 12"), None);
    }

    #[test]
    fn only_a_failed_run_that_says_what_worked_gives_an_error_fact() {
        assert!(
            error_facts("`cargo test` failed 2 times (error[E0425]: cannot find value)").is_empty()
        );
        assert!(
            error_facts(
                "Edit src/b.rs was refused by you: “not this file” (Edit, 2025-07-14 23:20)"
            )
            .is_empty()
        );
        let f = error_facts(
            "`npm test` failed once (Error: Cannot find module 'left-pad') until: `npm install`; tried before: editing a.js (Bash, 2026-02-12 20:58)",
        );
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].worked, "`npm install`");
        let f = error_facts(
            "`npm test` failed once (Error: Cannot find module 'left-pad') until: `npm install` (Bash, 2026-02-12 20:58)",
        );
        assert_eq!(f[0].worked, "`npm install`");
        assert_eq!(f[0].signature, "error: cannot find module left-pad");
        let zh =
            error_facts("`cargo test` 失败 2 次 (error: linker `cc` not found)，直到：安装 gcc");
        assert_eq!(zh[0].worked, "安装 gcc");
    }
}
