//! The snippet of a search answer: the line of the memory where most of the query's
//! words are, from the part of the memory they matched in (never a heading, a label or
//! metadata), with those words marked.

use std::ops::Range;
use std::path::Path;

use super::fields::{Field, FieldLine, is_cjk, lines};
use super::index::Row;
use super::query::Query;
use crate::memory::document::FrontMatter;
use crate::memory::file::{MAX_MEMORY_BYTES, lossy};

/// About how many characters a snippet shows.
pub const SNIPPET_CHARS: usize = 160;

/// A snippet: a piece of one line of the memory, the field it is from, and where the
/// query's words are in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    /// The part of the memory it is from.
    pub field: Field,
    /// The text, one line, without control characters.
    pub text: String,
    /// Byte ranges of `text` that matched the query.
    pub marks: Vec<Range<usize>>,
}

impl Snippet {
    /// A snippet of `text` as it is, nothing marked, cleaned as every snippet is.
    pub fn plain(field: Field, text: &str) -> Snippet {
        Snippet {
            field,
            text: crate::untrusted::line(text, SNIPPET_CHARS * 2),
            marks: Vec::new(),
        }
    }

    /// This snippet cut to at most `max` characters around its first mark, the marks
    /// that remain kept.
    pub fn fit(&self, max: usize) -> Snippet {
        if self.text.chars().count() <= max {
            return self.clone();
        }
        let text = self.text.trim_start_matches('…').trim_end_matches('…');
        let shift = self.text.len() - self.text.trim_start_matches('…').len();
        let marks: Vec<Range<usize>> = self
            .marks
            .iter()
            .filter(|m| m.start >= shift && m.end - shift <= text.len())
            .map(|m| m.start - shift..m.end - shift)
            .collect();
        let mut cut = window_of(text, marks, self.field, max.saturating_sub(2).max(10));
        if self.text.starts_with('…') && !cut.text.starts_with('…') {
            cut.text.insert(0, '…');
            let n = '…'.len_utf8();
            for m in &mut cut.marks {
                *m = m.start + n..m.end + n;
            }
        }
        cut
    }

    /// The text with each match between `open` and `close` (`**` for Markdown).
    pub fn marked(&self, open: &str, close: &str) -> String {
        let mut out = String::with_capacity(self.text.len() + self.marks.len() * 4);
        let mut at = 0;
        for m in &self.marks {
            out.push_str(&self.text[at..m.start]);
            // A word the text itself already marks so (`**Coverage**` in a memory) is
            // not marked twice: `****Coverage****` is no Markdown.
            let marked_already =
                self.text[..m.start].ends_with(open) && self.text[m.end..].starts_with(close);
            if marked_already {
                out.push_str(&self.text[m.clone()]);
            } else {
                out.push_str(open);
                out.push_str(&self.text[m.clone()]);
                out.push_str(close);
            }
            at = m.end;
        }
        out.push_str(&self.text[at..]);
        out
    }
}

/// The snippet of `row`'s memory for `query`, read from its file; `None` when the file
/// cannot be read or no line holds a query word (a match in a part not shown).
pub fn snippet_of(dir: &Path, row: &Row, query: &Query) -> Option<Snippet> {
    let path = dir.join(&row.entry.file);
    let (file, meta) = crate::fsutil::open_regular_with_metadata(&path, false, None).ok()?;
    let mut bytes = Vec::new();
    {
        use std::io::Read;
        let cap = if meta.len() > MAX_MEMORY_BYTES {
            256 * 1024
        } else {
            MAX_MEMORY_BYTES
        };
        file.take(cap).read_to_end(&mut bytes).ok()?;
    }
    let text = lossy(&bytes);
    // The headline is shown beside every answer: the snippet comes from the rest of
    // the memory when the words are there too.
    best_snippet(&lines(&text), query).or_else(|| {
        let headline = FrontMatter::parse(&text).map(|(fm, _)| fm.summary)?;
        best_snippet(
            &[FieldLine {
                field: Field::Headline,
                text: &headline,
            }],
            query,
        )
    })
}

/// The best line of `lines` for `query`: the most distinct terms, then the heavier
/// field, then the earlier line.
pub fn best_snippet(lines: &[FieldLine<'_>], query: &Query) -> Option<Snippet> {
    // Synonyms too: a memory found through them shows the line that says it.
    let marks: Vec<Vec<String>> = query
        .terms
        .iter()
        .chain(&query.related)
        .map(|t| t.marks())
        .collect();
    let mut best: Option<(usize, f64, Snippet)> = None;
    for line in lines {
        let clean = crate::untrusted::line(line.text, usize::MAX);
        let found = find_marks(&clean, &marks);
        if found.is_empty() {
            continue;
        }
        let distinct = {
            let mut terms: Vec<usize> = found.iter().map(|(t, _)| *t).collect();
            terms.sort_unstable();
            terms.dedup();
            terms.len()
        };
        let weight = line.field.weight();
        let better = best
            .as_ref()
            .is_none_or(|(d, w, _)| distinct > *d || (distinct == *d && weight > *w));
        if better {
            let ranges: Vec<Range<usize>> = found.into_iter().map(|(_, r)| r).collect();
            best = Some((
                distinct,
                weight,
                window_of(&clean, ranges, line.field, SNIPPET_CHARS),
            ));
        }
    }
    best.map(|(_, _, s)| s)
}

/// About `width` characters of `line` around its first marks, never splitting a
/// character, with `…` where it was cut.
fn window_of(line: &str, marks: Vec<Range<usize>>, field: Field, width: usize) -> Snippet {
    let first = marks.first().map_or(0, |m| m.start);
    let chars_before = width / 4;
    let mut start = first;
    for _ in 0..chars_before {
        match line[..start].char_indices().next_back() {
            Some((i, _)) => start = i,
            None => break,
        }
    }
    // Start at a word.
    if start > 0
        && let Some(space) = line[start..first].find(' ')
    {
        start += space + 1;
    }
    let mut end = start;
    for (n, (i, c)) in line[start..].char_indices().enumerate() {
        if n >= width {
            break;
        }
        end = start + i + c.len_utf8();
    }
    if end < line.len()
        && let Some(space) = line[start..end].rfind(' ')
        && space > (end - start) / 2
    {
        end = start + space;
    }
    let mut text = String::new();
    let lead = if start > 0 { "…" } else { "" };
    text.push_str(lead);
    text.push_str(&line[start..end]);
    let shift = lead.len();
    if end < line.len() {
        text.push('…');
    }
    let marks = marks
        .into_iter()
        .filter(|m| m.start >= start && m.end <= end)
        .map(|m| m.start - start + shift..m.end - start + shift)
        .collect();
    Snippet { field, text, marks }
}

/// Where `line` holds the marks of each term (its index), in order, not overlapping:
/// a CJK mark anywhere, another at word boundaries, a single word also by its stem
/// (a word and a query word that share their start: "decided" for "deciding").
fn find_marks(line: &str, marks: &[Vec<String>]) -> Vec<(usize, Range<usize>)> {
    let lower = line.to_lowercase();
    // Lower-casing can change lengths (rare outside ASCII): then only exact offsets
    // are trusted, and a line whose length changed is matched on its original.
    let hay: &str = if lower.len() == line.len() {
        &lower
    } else {
        line
    };
    let words = word_spans(hay);
    let mut found: Vec<(usize, Range<usize>)> = Vec::new();
    for (term, forms) in marks.iter().enumerate() {
        for form in forms {
            let form = form.trim();
            if form.is_empty() {
                continue;
            }
            if form.chars().any(is_cjk)
                || form.contains(' ')
                || !form.chars().all(char::is_alphanumeric)
            {
                let mut from = 0;
                while let Some(i) = hay[from..].find(form) {
                    let r = from + i..from + i + form.len();
                    let bounded = form.chars().any(is_cjk)
                        || (!hay[..r.start].ends_with(char::is_alphanumeric)
                            && !hay[r.end..].starts_with(char::is_alphanumeric));
                    if bounded {
                        found.push((term, r.clone()));
                    }
                    from = r.end;
                }
            } else {
                for w in &words {
                    if stem_match(&hay[w.clone()], form) {
                        found.push((term, w.clone()));
                    }
                }
            }
        }
    }
    found.sort_by_key(|(_, r)| (r.start, std::cmp::Reverse(r.end)));
    let mut out: Vec<(usize, Range<usize>)> = Vec::new();
    for (t, r) in found {
        match out.last_mut() {
            // Overlapping marks (a CJK word's pairs) make one.
            Some((_, last)) if r.start < last.end => last.end = last.end.max(r.end),
            _ => out.push((t, r)),
        }
    }
    out
}

/// Byte ranges of the words of `text`: runs of letters and digits.
fn word_spans(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_alphanumeric() && !is_cjk(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..text.len());
    }
    out
}

/// Whether `word` is `query` or a form of the same word, for marking: the same stem,
/// as the index stems them ("decided" and "deciding", "branches" and "branch"; not
/// "works" and "workflow", which only start alike).
fn stem_match(word: &str, query: &str) -> bool {
    static ENGLISH: std::sync::LazyLock<rust_stemmers::Stemmer> = std::sync::LazyLock::new(|| {
        rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English)
    });
    if word == query {
        return true;
    }
    // A stem is its word's start (but for a last `y`, "retry" → "retri"): words whose
    // first three letters differ have different stems, and are not stemmed (a snippet
    // compares every word of the lines it reads with every form of the query).
    let mut a = word.chars();
    let mut b = query.chars();
    for _ in 0..3 {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => {}
            _ => return false,
        }
    }
    ENGLISH.stem(word) == ENGLISH.stem(query)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snip(lines: &[(Field, &str)], q: &str) -> Option<String> {
        let lines: Vec<FieldLine<'_>> = lines
            .iter()
            .map(|(field, text)| FieldLine {
                field: *field,
                text,
            })
            .collect();
        best_snippet(&lines, &Query::parse(q)).map(|s| s.marked("[", "]"))
    }

    #[test]
    fn a_word_already_bold_is_not_marked_twice() {
        let s = Snippet {
            field: Field::Body,
            text: "**Coverage** is at 80 %, coverage of main".into(),
            marks: vec![2..10, 25..33],
        };
        assert_eq!(
            s.marked("**", "**"),
            "**Coverage** is at 80 %, **coverage** of main"
        );
    }

    #[test]
    fn the_line_with_most_terms_is_shown_marked() {
        let lines = [
            (Field::Body, "We ran the workflow on main only"),
            (
                Field::Decisions,
                "Run the CI workflow on every branch push, because PRs come from forks",
            ),
        ];
        assert_eq!(
            snip(
                &lines,
                "what did we decide about running CI on all branches"
            )
            .unwrap(),
            "[Run] the [CI] [workflow] on every [branch] push, because PRs come from forks"
        );
    }

    #[test]
    fn stems_and_whole_words() {
        assert!(stem_match("decided", "deciding"));
        assert!(stem_match("branches", "branch"));
        assert!(stem_match("retries", "retry"));
        // Words that only start alike are not one word.
        assert!(!stem_match("works", "workflow"));
        assert!(!stem_match("test", "testament"));
        assert!(!stem_match("trigger", "rig"));
        assert!(!stem_match("interaction", "action"));
        assert_eq!(snip(&[(Field::Body, "the trigger fired")], "rig"), None);
        assert_eq!(snip(&[(Field::Body, "it works great")], "workflow"), None);
        assert_eq!(
            snip(&[(Field::Files, "src/lib.rs and lib.rsx")], "lib.rs").unwrap(),
            "src/[lib.rs] and lib.rsx"
        );
    }

    #[test]
    fn a_snippet_fits_a_width_and_keeps_its_marks() {
        let line = format!(
            "{} the retry budget {}",
            "lead ".repeat(20),
            "tail ".repeat(20)
        );
        let lines = [FieldLine {
            field: Field::Body,
            text: &line,
        }];
        let s = best_snippet(&lines, &Query::parse("retry budget")).unwrap();
        let fit = s.fit(40);
        assert!(fit.text.chars().count() <= 40, "{}", fit.text);
        assert!(
            fit.marked("[", "]").contains("[retry] [budget]"),
            "{}",
            fit.marked("[", "]")
        );
    }

    #[test]
    fn cjk_and_long_lines() {
        assert_eq!(
            snip(&[(Field::Requests, "请修复会话记忆的保存")], "会话记忆").unwrap(),
            "请修复[会话记忆]的保存"
        );
        let long = format!("{} needle {}", "word ".repeat(100), "tail ".repeat(100));
        let s = snip(&[(Field::Body, &long)], "needle").unwrap();
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert!(s.contains("[needle]"));
        assert!(
            s.chars().count() <= SNIPPET_CHARS + 4,
            "{}",
            s.chars().count()
        );
    }
}
