//! The annotated set of real sessions (`tests/data/meaning/`, see its README) and its
//! matching rule: what each session really contains, and how a memory's lines are
//! scored against it (precision and recall per field, headline acceptance).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The fields scored, in the report's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Field {
    Instructions,
    Decisions,
    Failed,
    Answers,
    Bash,
    Hooks,
}

impl Field {
    pub const ALL: [Field; 6] = [
        Field::Instructions,
        Field::Decisions,
        Field::Failed,
        Field::Answers,
        Field::Bash,
        Field::Hooks,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Field::Instructions => "standing instructions",
            Field::Decisions => "decisions",
            Field::Failed => "failed approaches",
            Field::Answers => "user answers",
            Field::Bash => "bash context",
            Field::Hooks => "hook feedback",
        }
    }
}

/// Groups of terms: a line matches when every group has a term in it.
pub type Match = Vec<Vec<String>>;

/// One annotated item of a field.
#[derive(Debug, Clone, Deserialize)]
pub struct Item {
    #[serde(default, alias = "tried", alias = "question", alias = "command")]
    pub text: String,
    #[serde(rename = "match")]
    pub terms: Match,
}

/// One annotated session.
#[derive(Debug, Clone, Deserialize)]
pub struct Session {
    #[serde(skip)]
    pub name: String,
    /// Which shared corpus holds the transcript: `corpus` (the default) or `corpus-2`.
    #[serde(default)]
    pub corpus: String,
    pub transcript: String,
    pub split: String,
    pub headline: String,
    pub headline_terms: Match,
    pub standing_instructions: Vec<Item>,
    pub decisions: Vec<Item>,
    pub failed_approaches: Vec<Item>,
    pub user_answers: Vec<Item>,
    pub bash_context: Vec<Item>,
    pub hook_feedback: Vec<Item>,
    pub not_instructions: Vec<String>,
    pub also_acceptable: Vec<Item>,
    /// What the segment after each compaction used from before it (continuity).
    #[serde(default)]
    pub compactions: Vec<CompactionUse>,
}

/// One compaction of an annotated session and what the next segment relied on.
#[derive(Debug, Clone, Deserialize)]
pub struct CompactionUse {
    /// The line (1-based) of the boundary or `compacted` record.
    pub line: usize,
    pub used_after: Vec<UsedFact>,
}

/// A fact from before a compaction that the segment after it used.
#[derive(Debug, Clone, Deserialize)]
pub struct UsedFact {
    /// `file`, `command`, `task`, `decision` or `answer`.
    pub kind: String,
    #[allow(dead_code, reason = "for the person reading the annotation")]
    pub text: String,
    #[serde(rename = "match")]
    pub terms: Match,
}

impl Session {
    pub fn items(&self, field: Field) -> &[Item] {
        match field {
            Field::Instructions => &self.standing_instructions,
            Field::Decisions => &self.decisions,
            Field::Failed => &self.failed_approaches,
            Field::Answers => &self.user_answers,
            Field::Bash => &self.bash_context,
            Field::Hooks => &self.hook_feedback,
        }
    }
}

/// The annotated sessions of `dir`, sorted by file name.
pub fn load(dir: &Path) -> Vec<Session> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            let mut s: Session =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            s.name = p.file_stem().unwrap().to_string_lossy().into_owned();
            s
        })
        .collect()
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xac00..=0xd7af | 0xff00..=0xffef)
}

/// Whether `term` occurs in `line` by the set's rule: case-insensitive; a term with a CJK
/// character, or one that starts with something other than a letter or digit, as a
/// plain substring; any other where it starts a word (no ASCII letter, digit or `_`
/// before).
pub fn term_matches(line: &str, term: &str) -> bool {
    let line = line.to_lowercase();
    let term = term.to_lowercase();
    if term.is_empty() {
        return false;
    }
    let plain = term.chars().any(is_cjk) || !term.chars().next().is_some_and(char::is_alphanumeric);
    if plain {
        return line.contains(&term);
    }
    // The set's own check reads "letter or digit" as ASCII ones: `mvn` starts a word in
    // "用mvn clean compile".
    line.match_indices(&term).any(|(at, _)| {
        !line[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Whether every group has a term in `line`.
pub fn matches(line: &str, terms: &Match) -> bool {
    !terms.is_empty()
        && terms
            .iter()
            .all(|group| group.iter().any(|t| term_matches(line, t)))
}

/// Lowercase with white space collapsed, to compare sentences.
fn norm(s: &str) -> String {
    s.to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a standing-instruction line is a trap: it holds a `not_instructions`
/// sentence, or one holds it.
pub fn is_trap(line: &str, session: &Session) -> bool {
    let l = norm(line);
    session.not_instructions.iter().any(|n| {
        let n = norm(n);
        !n.is_empty() && (l.contains(&n) || n.contains(&l))
    })
}

/// The score of one field of one session (or of a sum of them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Score {
    /// Lines extracted.
    pub extracted: usize,
    /// Of those, right (they match an item of the field or an `also_acceptable` one).
    pub right: usize,
    /// Standing-instruction lines that are traps (counted as wrong too).
    pub traps: usize,
    /// Items annotated.
    pub items: usize,
    /// Items matched, one line to one item at most.
    pub found: usize,
}

impl std::ops::AddAssign for Score {
    fn add_assign(&mut self, o: Score) {
        self.extracted += o.extracted;
        self.right += o.right;
        self.traps += o.traps;
        self.items += o.items;
        self.found += o.found;
    }
}

/// Scores the lines `lines` extracted for `field` against the session.
pub fn score(session: &Session, field: Field, lines: &[String]) -> Score {
    let items = session.items(field);
    let right = lines
        .iter()
        .filter(|l| {
            (field != Field::Instructions || !is_trap(l, session))
                && (items.iter().any(|i| matches(l, &i.terms))
                    || session.also_acceptable.iter().any(|i| matches(l, &i.terms)))
        })
        .count();
    let traps = if field == Field::Instructions {
        lines.iter().filter(|l| is_trap(l, session)).count()
    } else {
        0
    };
    // Which lines can stand for which item.
    let edges: Vec<Vec<usize>> = items
        .iter()
        .map(|i| {
            lines
                .iter()
                .enumerate()
                .filter(|(_, l)| matches(l, &i.terms))
                .map(|(n, _)| n)
                .collect()
        })
        .collect();
    Score {
        extracted: lines.len(),
        right,
        traps,
        items: items.len(),
        found: max_matching(&edges, lines.len()),
    }
}

/// The size of a maximum matching of items to lines (Kuhn's augmenting paths).
fn max_matching(edges: &[Vec<usize>], lines: usize) -> usize {
    fn augment(
        item: usize,
        edges: &[Vec<usize>],
        seen: &mut [bool],
        owner: &mut [Option<usize>],
    ) -> bool {
        for &line in &edges[item] {
            if seen[line] {
                continue;
            }
            seen[line] = true;
            if owner[line].is_none_or(|other| augment(other, edges, seen, owner)) {
                owner[line] = Some(item);
                return true;
            }
        }
        false
    }
    let mut owner = vec![None; lines];
    (0..edges.len())
        .filter(|&item| augment(item, edges, &mut vec![false; lines], &mut owner))
        .count()
}

/// How a headline fares against the session's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadlineCheck {
    /// At most 100 characters.
    pub fits: bool,
    /// Cut inside a word.
    pub cut_mid_word: bool,
    /// Every group of `headline_terms` has a term in it.
    pub on_topic: bool,
}

impl HeadlineCheck {
    pub fn acceptable(&self) -> bool {
        self.fits && !self.cut_mid_word && self.on_topic
    }
}

/// Checks a headline; `source` is the session's text (every string of its records),
/// where a cut headline's stem is looked for to see what followed it.
pub fn check_headline(headline: &str, session: &Session, source: &str) -> HeadlineCheck {
    HeadlineCheck {
        fits: headline.chars().count() <= 100,
        cut_mid_word: cut_mid_word(headline, source),
        on_topic: matches(headline, &session.headline_terms),
    }
}

/// Whether a headline ending in `…` was cut inside a word: the character before the
/// `…` is a letter or digit, and in the source the same text goes on with one (or the
/// stem is not found there, which cannot be told apart).
pub fn cut_mid_word(headline: &str, source: &str) -> bool {
    let Some(stem) = headline.trim_end().strip_suffix('…') else {
        return false;
    };
    if !stem.chars().next_back().is_some_and(char::is_alphanumeric) {
        return false;
    }
    // The stem's last words, as they appear in the source.
    let tail: String = {
        let chars: Vec<char> = stem.chars().collect();
        let from = chars.len().saturating_sub(24);
        chars[from..].iter().collect()
    };
    let mut found = false;
    for (at, _) in source.match_indices(&tail) {
        found = true;
        let next = source[at + tail.len()..].chars().next();
        if !next.is_some_and(char::is_alphanumeric) {
            return false;
        }
    }
    // Found only going on inside a word, or not found at all.
    let _ = found;
    true
}

/// Sums of scores per field and split.
#[derive(Debug, Default)]
pub struct Totals {
    pub by: HashMap<(String, Field), Score>,
}

impl Totals {
    pub fn add(&mut self, split: &str, field: Field, s: Score) {
        *self.by.entry((split.to_string(), field)).or_default() += s;
    }

    pub fn get(&self, split: &str, field: Field) -> Score {
        self.by
            .get(&(split.to_string(), field))
            .copied()
            .unwrap_or_default()
    }
}

/// `n/d = p %`, or `–` when there is nothing to divide by.
pub fn rate(n: usize, d: usize) -> String {
    if d == 0 {
        "–".into()
    } else {
        format!("{n}/{d} = {:.0} %", 100.0 * n as f64 / d as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(json: &str) -> Session {
        serde_json::from_str(json).unwrap()
    }

    const SESSION: &str = r#"{
        "transcript": "t.jsonl", "split": "dev", "headline": "Fixed ty diagnostics",
        "headline_terms": [["ty", "type check"], ["test_cache", "cache"]],
        "standing_instructions": [{"text": "use pnpm", "match": [["pnpm"]]}],
        "decisions": [
            {"text": "a", "match": [["cast"]]},
            {"text": "b", "match": [["cast", "ignore"]]}
        ],
        "failed_approaches": [], "user_answers": [], "bash_context": [], "hook_feedback": [],
        "not_instructions": ["They don't look that bad."],
        "also_acceptable": [{"text": "stop hooks", "match": [["Stop"]]}]
    }"#;

    #[test]
    fn terms_match_at_word_starts_and_cjk_and_symbols_anywhere() {
        assert!(term_matches("use cast() here", "cast"));
        assert!(term_matches("casting it", "cast"));
        assert!(!term_matches("broadcast it", "cast"));
        assert!(!term_matches("my_cast", "cast"));
        assert!(term_matches("renaming the file", "renam"));
        assert!(term_matches("x~/.claude/plans", "~/.claude"));
        assert!(term_matches("see foo.ts", ".ts"));
        assert!(term_matches("用mvn clean compile", "mvn"));
        assert!(term_matches("区域刷新接口", "区域刷新"));
        assert!(term_matches("Use PNPM", "pnpm"));
        assert!(matches(
            "ty check on the cache",
            &vec![vec!["ty".into()], vec!["cache".into()]]
        ));
        assert!(!matches(
            "ty check",
            &vec![vec!["ty".into()], vec!["cache".into()]]
        ));
    }

    #[test]
    fn precision_counts_also_acceptable_and_recall_assigns_one_line_per_item() {
        let s = session(SESSION);
        // One line could stand for both items; it counts once.
        let one = score(&s, Field::Decisions, &["used cast()".into()]);
        assert_eq!((one.right, one.found, one.items), (1, 1, 2));
        let two = score(
            &s,
            Field::Decisions,
            &[
                "used cast()".into(),
                "a type: ignore comment".into(),
                "the Stop hook ran".into(),
                "noise".into(),
            ],
        );
        assert_eq!((two.extracted, two.right, two.found), (4, 3, 2));
    }

    #[test]
    fn traps_are_wrong_and_counted() {
        let s = session(SESSION);
        let sc = score(
            &s,
            Field::Instructions,
            &["They don't look that bad.".into(), "use pnpm (Bash)".into()],
        );
        assert_eq!((sc.extracted, sc.right, sc.traps, sc.found), (2, 1, 1, 1));
    }

    #[test]
    fn headlines_are_on_topic_short_and_cut_at_word_ends() {
        let s = session(SESSION);
        let source = "please fix the ty diagnostics in test_cache.py now";
        assert!(check_headline("Fix the ty diagnostics in test_cache.py", &s, source).acceptable());
        let cut = check_headline("Fix the ty diagnostics in test_ca…", &s, source);
        assert!(cut.cut_mid_word && !cut.acceptable());
        assert!(!cut_mid_word("please fix the ty diagnostics…", source));
        assert!(!cut_mid_word("Fix it (…", source));
        assert!(!check_headline("Fix the README", &s, source).on_topic);
        assert!(!check_headline(&"ty cache ".repeat(20), &s, source).fits);
    }
}
