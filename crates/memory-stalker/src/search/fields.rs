//! What of a memory is indexed, and in which field: the text a search matches and
//! weighs (docs/design.md §7.10).
//!
//! A memory is split by its own sections into fields of different weight: the headline,
//! the user's requests, decisions, standing instructions, failed approaches, tasks,
//! files, the plan, the summaries, and the rest (the verbatim reply, tool calls, the
//! last action). Our own headings, labels, notes and metadata lines are not indexed: a
//! query for "trigger" must not match every memory through "- Trigger: auto".

use crate::lang::Lang;
use crate::memory::document::{FrontMatter, body_start, sections};
use crate::summary::labels::{Labels, Section};
use crate::summary::session::Kind;

/// The indexed fields, in the order of the FTS table's columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// The headline (front matter `summary`) and Claude Code's title.
    Headline,
    /// What the user asked: the prompts of the segment and of the session.
    Requests,
    /// Decisions, the user's answers, an approved or refused plan's line.
    Decisions,
    /// The user's standing instructions and preferences.
    Instructions,
    /// Approaches that failed.
    Failures,
    /// The task list and follow-ups.
    Tasks,
    /// Files modified, read and changed earlier.
    Files,
    /// The plan, verbatim.
    Plan,
    /// The AI summary's task summary and Claude Code's (or Codex's) compaction summary.
    Summary,
    /// Everything else: the assistant's reply, tool calls, the last action.
    Body,
}

impl Field {
    /// Every field, in column order.
    pub const ALL: [Field; 10] = [
        Field::Headline,
        Field::Requests,
        Field::Decisions,
        Field::Instructions,
        Field::Failures,
        Field::Tasks,
        Field::Files,
        Field::Plan,
        Field::Summary,
        Field::Body,
    ];

    /// The FTS column's name.
    pub fn column(self) -> &'static str {
        match self {
            Field::Headline => "headline",
            Field::Requests => "requests",
            Field::Decisions => "decisions",
            Field::Instructions => "instructions",
            Field::Failures => "failures",
            Field::Tasks => "tasks",
            Field::Files => "files",
            Field::Plan => "plan",
            Field::Summary => "summary",
            Field::Body => "body",
        }
    }

    /// The column's weight in the ranking (BM25): what a memory is *about* (its
    /// headline, requests, decisions, files) counts more than words that only occur in
    /// its verbatim reply and tool calls. Mildly: on the retrieval benchmark's
    /// questions, which ask about what sessions did, the reply's words find the session
    /// often, and strong weights on the other fields ranked worse; the body at 0.6
    /// (against 1.0) ranked one more dev question first and none worse
    /// (docs/design.md §7.10, docs/performance.md).
    pub fn weight(self) -> f64 {
        match self {
            Field::Headline => 1.5,
            Field::Requests
            | Field::Decisions
            | Field::Instructions
            | Field::Failures
            | Field::Files => 1.2,
            Field::Tasks => 1.1,
            Field::Plan | Field::Summary => 1.0,
            Field::Body => 0.6,
        }
    }

    /// How a snippet names the part of the memory it comes from.
    pub fn label(self) -> &'static str {
        match self {
            Field::Headline => "headline",
            Field::Requests => "requests",
            Field::Decisions => "decisions",
            Field::Instructions => "instructions",
            Field::Failures => "failed approaches",
            Field::Tasks => "tasks",
            Field::Files => "files",
            Field::Plan => "plan",
            Field::Summary => "summary",
            Field::Body => "reply",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// A memory's text by field, as indexed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fields {
    text: [String; 10],
}

impl Fields {
    /// The text of `field`.
    pub fn get(&self, field: Field) -> &str {
        &self.text[field.index()]
    }

    /// The fields of a memory of which only the headline is known (one too large to
    /// read whole).
    pub fn headline_only(headline: &str) -> Fields {
        let mut f = Fields::default();
        f.push(Field::Headline, headline);
        f
    }

    fn push(&mut self, field: Field, line: &str) {
        let t = &mut self.text[field.index()];
        if !t.is_empty() {
            t.push('\n');
        }
        t.push_str(line);
    }
}

/// One line of a memory with the field it belongs to, as [`lines`] walks a memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldLine<'a> {
    /// Its field.
    pub field: Field,
    /// The line, without list markers, backticks around a path or table pipes.
    pub text: &'a str,
}

/// The fields of a memory: its front matter's headline, then every content line of its
/// body in the field its section says.
pub fn fields_of(text: &str, fm: Option<&FrontMatter>) -> Fields {
    let mut out = Fields::default();
    if let Some(fm) = fm {
        out.push(Field::Headline, &fm.summary);
    }
    for line in lines(text) {
        out.push(line.field, line.text);
    }
    out
}

/// The content lines of a memory's body with their fields, in document order. Headings,
/// our labels and notes, fence lines and metadata are left out.
pub fn lines(text: &str) -> Vec<FieldLine<'_>> {
    let start = body_start(text).unwrap_or(0);
    let mut out = Vec::new();
    for span in sections(text) {
        if span.range.start < start {
            continue;
        }
        // A `## ` line that is not one of our headings in their order (a user's own
        // notes, text that looks like a heading) is text of the section it is in.
        let section = span.section;
        let base = match section {
            // Session, project, time, trigger, version, transcript: ours, not content.
            Section::Metadata => continue,
            Section::LastInteraction => Field::Body,
            Section::Tasks => Field::Tasks,
            Section::Plan => Field::Plan,
            Section::Files => Field::Files,
            Section::LastAction => Field::Body,
            Section::Session => Field::Requests,
            Section::AiSummary => Field::Summary,
            Section::CompactionSummary => Field::Summary,
        };
        collect(
            &text[span.range.clone()],
            |sub| sub.map_or(base, |h| subsection_field(section, h).unwrap_or(base)),
            &mut out,
        );
    }
    out
}

/// Walks one `##` section: tracks its `###` subsection and fences, and keeps the lines
/// that are content, in the field `field_of(subheading)` names.
fn collect<'a>(
    section: &'a str,
    field_of: impl Fn(Option<&str>) -> Field,
    out: &mut Vec<FieldLine<'a>>,
) {
    let mut fence: Option<(char, usize)> = None;
    let mut field = field_of(None);
    for line in section.lines().skip(1) {
        let trimmed = line.trim();
        if let Some(f) = fence_marker(line) {
            match fence {
                None => fence = Some(f),
                Some((c, n)) if f.0 == c && f.1 >= n && trimmed.len() == f.1 => fence = None,
                _ => {}
            }
            continue;
        }
        if fence.is_none() {
            if let Some(h) = trimmed.strip_prefix("### ") {
                field = field_of(Some(h.trim()));
                continue;
            }
            if is_our_note(trimmed) {
                continue;
            }
        }
        let content = if fence.is_some() {
            trimmed
        } else {
            strip_markup(trimmed)
        };
        if !content.is_empty() {
            out.push(FieldLine {
                field,
                text: content,
            });
        }
    }
}

/// The field of a `###` subsection of `section`, by its heading in either language;
/// `None` keeps the section's own field.
fn subsection_field(section: Section, heading: &str) -> Option<Field> {
    let is = |pick: fn(&Labels) -> &'static str| {
        [Lang::En, Lang::Zh]
            .iter()
            .any(|l| pick(Labels::of(*l)) == heading)
    };
    match section {
        Section::LastInteraction => {
            if is(|l| l.user_input) || is(|l| l.continues) {
                Some(Field::Requests)
            } else {
                Some(Field::Body)
            }
        }
        Section::Session | Section::AiSummary => {
            // The user's bash-mode commands are the context of a request; hooks'
            // requirements are rules; answers are the user's decisions; the lists a
            // model's summary found weigh as the session's own.
            let former = Kind::from_heading(heading);
            if is(|l| l.your_requests) || is(|l| l.bash_context) || former == Some(Kind::Context) {
                Some(Field::Requests)
            } else if is(|l| l.standing)
                || is(|l| l.preferences)
                || is(|l| l.hook_requirements)
                || is(|l| l.model_preferences)
            {
                Some(Field::Instructions)
            } else if is(|l| l.decisions_taken)
                || is(|l| l.key_decisions)
                || is(|l| l.your_answers)
                || former == Some(Kind::Answers)
                || is(|l| l.model_decisions)
            {
                Some(Field::Decisions)
            } else if is(|l| l.failed_approaches) || is(|l| l.model_failed) {
                Some(Field::Failures)
            } else if is(|l| l.earlier_files) || is(|l| l.code_changes) {
                Some(Field::Files)
            } else if is(|l| l.follow_ups)
                || is(|l| l.earlier_tasks)
                || is(|l| l.left_open)
                || is(|l| l.commits)
                || is(|l| l.checks)
            {
                Some(Field::Tasks)
            } else if is(|l| l.task_summary) {
                Some(Field::Summary)
            } else {
                Some(by_keyword(heading, section))
            }
        }
        _ => None,
    }
}

/// The field of a subsection whose heading is not one this version writes (a newer
/// version's, or a hand-written one), by the words in it.
fn by_keyword(heading: &str, section: Section) -> Field {
    let h = heading.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| h.contains(w));
    if has(&["answer", "decision", "decided", "回答", "决定", "决策"]) {
        Field::Decisions
    } else if has(&[
        "instruction",
        "preference",
        "requirement",
        "rule",
        "指示",
        "偏好",
        "要求",
    ]) {
        Field::Instructions
    } else if has(&["fail", "失败"]) {
        Field::Failures
    } else if has(&["request", "请求"]) {
        Field::Requests
    } else if has(&["file", "文件"]) {
        Field::Files
    } else if has(&["task", "follow", "任务"]) {
        Field::Tasks
    } else if section == Section::AiSummary {
        Field::Summary
    } else {
        Field::Body
    }
}

/// Lines memory-stalker writes as notes, not content: `(none)`, `(listed under …)`,
/// `_Summary by: …_`, a table's header and rule, a horizontal rule.
fn is_our_note(line: &str) -> bool {
    (line.starts_with('(') && line.ends_with(')'))
        || (line.starts_with('_') && line.ends_with('_') && line.len() > 1)
        || line == "---"
        || line
            .trim_start_matches('|')
            .trim_start()
            .starts_with("file | action")
        || line
            .trim_start_matches('|')
            .trim_start()
            .starts_with("文件 |")
        || (line.starts_with('|') && line.chars().all(|c| matches!(c, '|' | '-' | ' ' | ':')))
}

/// A line without its list marker, checkbox, emphasis and the pipes of a table row.
fn strip_markup(line: &str) -> &str {
    let mut l = line;
    for marker in ["- [x] ", "- [ ] ", "- ", "* "] {
        if let Some(rest) = l.strip_prefix(marker) {
            l = rest;
            break;
        }
    }
    l.trim_matches(|c| c == '|' || c == ' ')
}

/// `(char, length)` of a fence line (up to 3 spaces of indent), as the memory's own
/// section reader sees it.
fn fence_marker(line: &str) -> Option<(char, usize)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let l = &line[indent..];
    let c = l.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = l.chars().take_while(|x| *x == c).count();
    (n >= 3).then_some((c, n))
}

/// Whether `c` is written without spaces between words (Chinese, Japanese, Korean), so
/// that words are found as overlapping pairs of characters instead.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF     // Hiragana, Katakana
        | 0x3400..=0x4DBF   // CJK Extension A
        | 0x4E00..=0x9FFF   // CJK Unified Ideographs
        | 0xAC00..=0xD7AF   // Hangul syllables
        | 0xF900..=0xFAFF   // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F // CJK Extensions B–F, supplement
        | 0x31F0..=0x31FF   // Katakana phonetic extensions
        | 0xFF66..=0xFF9D   // Half-width Katakana
    )
}

/// `text` as the index stores it: [`with_word_parts`], then every run of CJK
/// characters becomes its overlapping pairs, separated by spaces, followed by its last
/// character alone ("会话记忆" → "会话 话记 记忆 忆"), so a word of two or more characters
/// is a phrase of pairs and a single character is a prefix of a pair or the lone last
/// one. Other text is left to the FTS tokenizer, which splits and stems it.
pub fn for_index(text: &str) -> std::borrow::Cow<'_, str> {
    match with_word_parts(text) {
        std::borrow::Cow::Borrowed(t) => with_cjk_pairs(t),
        std::borrow::Cow::Owned(t) => std::borrow::Cow::Owned(with_cjk_pairs(&t).into_owned()),
    }
}

/// `text` with each word written in camel case (`JSSoundRecorder`, `parseHTTPHeader`)
/// followed by its parts (`JS Sound Recorder`), so that a search for "sound recorder"
/// finds the identifier; the word itself stays, for a search of it whole.
pub fn with_word_parts(text: &str) -> std::borrow::Cow<'_, str> {
    let mut out = String::new();
    let mut last = 0;
    let mut changed = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
            i += 1;
        }
        let word = &text[start..i];
        let parts = camel_parts(word);
        if parts.len() > 1 {
            if !changed {
                out.reserve(text.len() + 32);
                changed = true;
            }
            out.push_str(&text[last..i]);
            out.push(' ');
            out.push_str(&parts.join(" "));
            last = i;
        }
    }
    if !changed {
        return std::borrow::Cow::Borrowed(text);
    }
    out.push_str(&text[last..]);
    std::borrow::Cow::Owned(out)
}

/// The parts of a camel-case ASCII word: a new part at a lower-to-upper change, before
/// the last capital of a run of capitals followed by a lower-case letter, and between
/// letters and digits.
fn camel_parts(word: &str) -> Vec<&str> {
    let b = word.as_bytes();
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..b.len() {
        let (p, c) = (b[i - 1], b[i]);
        let next_lower = b.get(i + 1).is_some_and(u8::is_ascii_lowercase);
        let split = (p.is_ascii_lowercase() && c.is_ascii_uppercase())
            || (p.is_ascii_uppercase() && c.is_ascii_uppercase() && next_lower)
            || (p.is_ascii_alphabetic() && c.is_ascii_digit())
            || (p.is_ascii_digit() && c.is_ascii_alphabetic());
        if split {
            parts.push(&word[start..i]);
            start = i;
        }
    }
    parts.push(&word[start..]);
    parts
}

/// [`for_index`]'s second step: CJK runs as pairs.
pub fn with_cjk_pairs(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_cjk) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() * 2);
    let mut run: Vec<char> = Vec::new();
    let flush = |run: &mut Vec<char>, out: &mut String| {
        if run.is_empty() {
            return;
        }
        out.push(' ');
        for pair in run.windows(2) {
            out.push(pair[0]);
            out.push(pair[1]);
            out.push(' ');
        }
        if let Some(last) = run.last() {
            out.push(*last);
        }
        out.push(' ');
        run.clear();
    };
    for c in text.chars() {
        if is_cjk(c) {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMORY: &str = "---\nmemory_stalker: 1\nsession_id: \"abc\"\ncreated: \"2026-11-20T15:30:00+01:00\"\ntrigger: \"auto\"\nsummary: \"Retry budget for the uploader\"\n---\n\n# Session memory — 2026-11-20 15:30:00 +01:00\n\n## Metadata\n\n- Session ID: `abc`\n- Trigger: auto\n\n## Last complete interaction\n\n### User input\n\n```text\nadd retries to the uploader\n```\n\n### Assistant reply\n\n```markdown\nDone: the uploader retries 429s.\n## Not a heading\n```\n\n- Edit `src/upload.rs`\n\n## Current task list\n\n- [ ] **in progress**: Write the tests\n\n## Files\n\n### Modified\n\n- `src/upload.rs`\n\n### Read\n\n(none)\n\n## Session so far\n\n### Your standing instructions\n\n- never add a dependency\n\n### Decisions\n\n- exponential backoff, because the API says so\n\n---\n\n## AI summary\n\n_Summary by: `offline`_\n\n### Task summary\n\n- Added retries\n\n### Code changes\n\n| file | action | note |\n|---|---|---|\n| src/upload.rs | modified | retries |\n";

    #[test]
    fn sections_go_to_their_fields_and_our_words_are_left_out() {
        let (fm, _) = FrontMatter::parse(MEMORY).unwrap();
        let f = fields_of(MEMORY, Some(&fm));
        assert_eq!(f.get(Field::Headline), "Retry budget for the uploader");
        assert_eq!(f.get(Field::Requests), "add retries to the uploader");
        assert!(
            f.get(Field::Body)
                .contains("Done: the uploader retries 429s.")
        );
        assert!(f.get(Field::Body).contains("## Not a heading"));
        assert!(f.get(Field::Body).contains("Edit `src/upload.rs`"));
        assert_eq!(f.get(Field::Tasks), "**in progress**: Write the tests");
        assert!(f.get(Field::Files).contains("`src/upload.rs`"));
        assert!(
            f.get(Field::Files)
                .contains("src/upload.rs | modified | retries")
        );
        assert_eq!(f.get(Field::Instructions), "never add a dependency");
        assert_eq!(
            f.get(Field::Decisions),
            "exponential backoff, because the API says so"
        );
        assert_eq!(f.get(Field::Summary), "Added retries");
        let all: String = Field::ALL.iter().map(|x| f.get(*x)).collect();
        for ours in [
            "Trigger",
            "Session ID",
            "(none)",
            "Summary by",
            "file | action",
        ] {
            assert!(!all.contains(ours), "{ours} indexed: {all}");
        }
    }

    #[test]
    fn unknown_subsections_are_placed_by_their_words() {
        assert_eq!(
            by_keyword("Your answers to questions", Section::Session),
            Field::Decisions
        );
        assert_eq!(
            by_keyword("Requirements from hooks", Section::Session),
            Field::Instructions
        );
        assert_eq!(by_keyword("Shell context", Section::Session), Field::Body);
    }

    #[test]
    fn session_so_far_kinds_of_issue_22_have_their_fields() {
        for lang in [Lang::En, Lang::Zh] {
            let l = Labels::of(lang);
            for (heading, field) in [
                (l.your_answers, Field::Decisions),
                (l.bash_context, Field::Requests),
                (l.hook_requirements, Field::Instructions),
                (l.model_preferences, Field::Instructions),
                (l.model_decisions, Field::Decisions),
                (l.model_failed, Field::Failures),
                (l.failed_approaches, Field::Failures),
                (l.checks, Field::Tasks),
            ] {
                assert_eq!(
                    subsection_field(Section::Session, heading),
                    Some(field),
                    "{heading}"
                );
            }
        }
        // Through a whole memory: the answer and the bash command are indexed in
        // their fields, the empty kind's note nowhere.
        let memory = MEMORY.replace(
            "### Decisions\n",
            "### Your answers to Claude's questions\n\n- “Which tools?” → Credo + Dialyxir (AskUserQuestion)\n\n### Commands you ran in bash mode\n\n- `uv run ty check` → Found 2 diagnostics\n\n### What hooks required\n\n(none found)\n\n### Decisions\n",
        );
        let f = fields_of(&memory, None);
        assert!(
            f.get(Field::Decisions).contains("Credo + Dialyxir"),
            "{f:?}"
        );
        assert!(f.get(Field::Requests).contains("uv run ty check"), "{f:?}");
        assert!(!f.get(Field::Instructions).contains("none found"), "{f:?}");
    }

    #[test]
    fn camel_case_words_are_followed_by_their_parts() {
        assert_eq!(with_word_parts("plain words"), "plain words");
        assert_eq!(
            with_word_parts("fix JSSoundRecorder now"),
            "fix JSSoundRecorder JS Sound Recorder now"
        );
        assert_eq!(
            with_word_parts("parseHTTPHeader(x)"),
            "parseHTTPHeader parse HTTP Header(x)"
        );
        assert_eq!(with_word_parts("utf8Decode"), "utf8Decode utf 8 Decode");
        assert_eq!(
            with_word_parts("AudioWorklet 会话"),
            "AudioWorklet Audio Worklet 会话"
        );
    }

    #[test]
    fn cjk_runs_become_pairs() {
        assert_eq!(with_cjk_pairs("fix the bug"), "fix the bug");
        assert_eq!(with_cjk_pairs("会话记忆"), " 会话 话记 记忆 忆 ");
        assert_eq!(with_cjk_pairs("Rustのテスト"), "Rust のテ テス スト ト ");
        assert_eq!(with_cjk_pairs("中"), " 中 ");
    }
}
