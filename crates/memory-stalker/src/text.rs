//! Small text helpers shared by extraction, rendering and the summariser.

/// Collapses a text to one line (newlines shown as `⏎`) of at most `max` characters.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    // A lone `\r` ends a line too (CommonMark says so): kept, it could open a forged
    // heading in a Markdown viewer.
    for (i, line) in text
        .trim()
        .split(['\n', '\r'])
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        if i > 0 {
            out.push_str(" ⏎ ");
            count += 3;
        }
        // The line whole when it fits, else up to the limit, then cut.
        let room = max.saturating_sub(count);
        match line.char_indices().nth(room) {
            None => {
                out.push_str(line);
                count += line.chars().count();
            }
            Some((end, _)) => {
                out.push_str(&line[..end]);
                truncate_with_ellipsis(&mut out, max);
                return out;
            }
        }
    }
    if count > max {
        truncate_with_ellipsis(&mut out, max);
    }
    out
}

/// The first line of a text [`one_line`] collapsed: what comes before its first ` ⏎ `,
/// else the whole text (as `text.split(" ⏎ ").next()`).
pub fn first_of_one_line(text: &str) -> &str {
    // One searcher for every call: `split(" ⏎ ")` builds a two-way searcher each time,
    // and the signals ask this of every command of a segment, several times over.
    static MARK: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(" ⏎ "));
    MARK.find(text.as_bytes()).map_or(text, |at| &text[..at])
}

fn truncate_with_ellipsis(s: &mut String, max: usize) {
    let keep = max.saturating_sub(1);
    if let Some((idx, _)) = s.char_indices().nth(keep) {
        s.truncate(idx);
    }
    s.push('…');
}

/// `text` on one line, at most `max` characters, cut at the end of a word (with `…`).
pub fn clip_words(text: &str, max: usize) -> String {
    // Only the first `max` characters of the line are ever kept: one more tells whether
    // it is longer, and a long text (a whole answer, an output) is not collapsed whole.
    let line = one_line(text, max.saturating_add(1));
    if line.chars().count() <= max {
        return line;
    }
    let room: String = line.chars().take(max.saturating_sub(1)).collect();
    // The last word boundary that leaves most of the room used.
    let end = room
        .char_indices()
        .filter(|(_, c)| c.is_whitespace())
        .map(|(i, _)| i)
        .next_back()
        .filter(|i| room[..*i].chars().count() > max / 2)
        .unwrap_or(room.len());
    let kept = room[..end].trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, ',' | ';' | ':' | '-' | '—' | '(' | '⏎')
    });
    // A word with no boundary at all (a path, CJK text) is cut where it must be.
    format!("{kept}…")
}

/// Keeps the first and last `max / 2` characters of a long text, noting what was cut.
pub fn head_tail(text: &str, max: usize) -> String {
    let total = text.chars().count();
    if total <= max {
        return text.to_string();
    }
    let half = max / 2;
    let head_end = text.char_indices().nth(half).map_or(text.len(), |(i, _)| i);
    let tail_start = text
        .char_indices()
        .nth(total - half)
        .map_or(text.len(), |(i, _)| i);
    format!(
        "{}\n[… {} characters omitted …]\n{}",
        &text[..head_end],
        total - 2 * half,
        &text[tail_start..]
    )
}

/// `text` without terminal colour sequences (`ESC[1;31m`), including those whose
/// escape character was already removed (cleaning leaves `[1;31m`): only a
/// bracket of digits and semicolons closed by a letter is taken for one.
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('[') {
        let (before, from) = rest.split_at(at);
        let escaped = before.ends_with('\u{1b}');
        out.push_str(before.strip_suffix('\u{1b}').unwrap_or(before));
        let params = from[1..]
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .map(|n| n + 1);
        match params {
            // Without its escape character, `[` and a letter is only text ("[invalid").
            Some(end)
                if (escaped || end > 1)
                    && from[end..].starts_with(|c: char| c.is_ascii_alphabetic()) =>
            {
                rest = &from[end + 1..];
            }
            _ => {
                out.push('[');
                rest = &from[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The sentences of one line, cut after sentence punctuation (`.`, `!`, `?` before a
/// space or the end; `。！？` anywhere), trimmed, empty ones left out.
pub fn line_sentences(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let ends = matches!(c, '。' | '！' | '？')
            || (matches!(c, '.' | '!' | '?')
                && chars.peek().is_none_or(|(_, n)| n.is_whitespace()));
        if ends {
            let end = i + c.len_utf8();
            out.push(line[start..end].trim());
            start = end;
        }
    }
    out.push(line[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

/// `text` lower-cased, the same as [`str::to_lowercase`], faster on text that is mostly
/// ASCII with some other characters (a `⏎`, a dash, a check mark): the standard one
/// leaves its fast path at the first of them, this one lower-cases each ASCII run
/// whole. Long segments lower-case thousands of such requests, items and outputs.
pub fn lower(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let ascii = rest
            .bytes()
            .position(|b| !b.is_ascii())
            .unwrap_or(rest.len());
        let start = out.len();
        out.push_str(&rest[..ascii]);
        out[start..].make_ascii_lowercase();
        let mut chars = rest[ascii..].chars();
        if let Some(c) = chars.next() {
            // A capital sigma's lower case depends on the letters around it: the
            // standard function's rule.
            if c == 'Σ' {
                return text.to_lowercase();
            }
            out.extend(c.to_lowercase());
        }
        rest = chars.as_str();
    }
    out
}

/// The longest prefix of `text` with at most `max` characters.
pub fn prefix_chars(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

/// The words "mentioned" is judged on, lower-cased: those of four letters or more, and
/// any with a digit (task numbers matter).
fn key_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| {
            w.chars().count() >= 4 || w.chars().any(|c| c.is_ascii_digit()) || !w.is_ascii()
        })
        .map(str::to_lowercase)
        .collect()
}

/// Whether `text` holds `phrase` as whole words: not inside a longer word ("is out" is
/// not in "is outdated", "never" not in "nevertheless"). A phrase with no ASCII letters
/// (Chinese, which has no spaces) is found as a substring.
pub fn has_words(text: &str, phrase: &str) -> bool {
    if !phrase.is_ascii() {
        return text.contains(phrase);
    }
    has_words_between(text, phrase, char::is_alphanumeric)
}

/// Whether `text` holds `phrase` with no character of a word (`in_word`) just before or
/// after it: [`has_words`] with the characters a word is made of chosen by the caller
/// (a name's `_` and `-` too, say).
pub fn has_words_between(text: &str, phrase: &str, in_word: impl Fn(char) -> bool) -> bool {
    text.match_indices(phrase).any(|(at, _)| {
        !text[..at].chars().next_back().is_some_and(&in_word)
            && !text[at + phrase.len()..]
                .chars()
                .next()
                .is_some_and(&in_word)
    })
}

/// Whether `summary_lower` mentions `item`: it contains it, or at least 70 % of its
/// key words and all its numbers (as whole words; CJK, which has no spaces, as
/// substrings).
pub fn mentions(summary_lower: &str, item: &str) -> bool {
    let item_lower = one_line(item, usize::MAX).to_lowercase();
    if item_lower.is_empty() || summary_lower.contains(&item_lower) {
        return true;
    }
    has_most_of(summary_lower, &key_words(&item_lower))
}

/// A text asked many times whether it [`mentions`] an item: its words are split out
/// once, when first needed, not once for every item.
pub struct Mentioner<'a> {
    lower: &'a str,
    words: std::cell::OnceCell<std::collections::HashSet<&'a str>>,
}

impl<'a> Mentioner<'a> {
    /// The text, lower-cased (as [`mentions`] takes it).
    pub fn new(summary_lower: &'a str) -> Self {
        Mentioner {
            lower: summary_lower,
            words: std::cell::OnceCell::new(),
        }
    }

    /// [`mentions`] of `item`.
    pub fn mentions(&self, item: &Mentioned) -> bool {
        let (item_lower, words) = item.get();
        if item_lower.is_empty() || self.lower.contains(item_lower) {
            return true;
        }
        !words.is_empty()
            && has_most_of_in(
                self.lower,
                self.words.get_or_init(|| word_set(self.lower)),
                words,
            )
    }
}

/// An item looked for in many texts ([`Mentioner::mentions`]): collapsed, lower-cased and
/// cut into its key words once, when first needed.
pub struct Mentioned<'a> {
    item: &'a str,
    prepared: std::cell::OnceCell<(String, Vec<String>)>,
}

impl<'a> Mentioned<'a> {
    /// The item as [`mentions`] takes it.
    pub fn new(item: &'a str) -> Self {
        Mentioned {
            item,
            prepared: std::cell::OnceCell::new(),
        }
    }

    fn get(&self) -> &(String, Vec<String>) {
        self.prepared.get_or_init(|| {
            let lower = one_line(self.item, usize::MAX).to_lowercase();
            let words = key_words(&lower);
            (lower, words)
        })
    }
}

/// The words of a lower-cased text, as [`has_most_of`] looks them up.
fn word_set(summary_lower: &str) -> std::collections::HashSet<&str> {
    summary_lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether `summary_lower` holds at least 70 % of `words` and every number among them.
fn has_most_of(summary_lower: &str, words: &[String]) -> bool {
    if words.is_empty() {
        return false;
    }
    has_most_of_in(summary_lower, &word_set(summary_lower), words)
}

/// [`has_most_of`], the text's words already split out.
fn has_most_of_in(
    summary_lower: &str,
    summary_words: &std::collections::HashSet<&str>,
    words: &[String],
) -> bool {
    let has = |w: &str| {
        if !w.is_ascii() {
            return summary_lower.contains(w);
        }
        summary_words.contains(w)
            || summary_words.contains(format!("{w}s").as_str())
            || w.strip_suffix('s')
                .is_some_and(|stem| summary_words.contains(stem))
    };
    // Numbers tell similar items apart ("phase 2" vs "phase 3"): all must be there.
    let numbers_ok = words
        .iter()
        .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
        .all(|w| has(w));
    let found = words.iter().filter(|w| has(w)).count();
    numbers_ok && found * 10 >= words.len() * 7
}

/// Whether two items of a list say the same thing in other words: the shorter one, of
/// at least three key words, is [`mentions`]ed by the longer (a model's "Use `bun run`
/// for scripts rather than a path" and the carried "Use `bun run` in code-grader
/// commands instead of specifying a script path"). Items with different numbers never
/// restate each other.
pub fn restates(a: &str, b: &str) -> bool {
    let (short, long) = if a.chars().count() <= b.chars().count() {
        (a, b)
    } else {
        (b, a)
    };
    // Words that say how, not what, would make any two sentences alike.
    const GLUE: [&str; 24] = [
        "than", "that", "this", "which", "with", "from", "into", "rather", "instead", "there",
        "their", "then", "when", "where", "what", "will", "would", "should", "could", "have",
        "been", "also", "only", "anything",
    ];
    let words: Vec<String> = key_words(&one_line(short, usize::MAX).to_lowercase())
        .into_iter()
        .filter(|w| !GLUE.contains(&w.as_str()))
        .collect();
    words.len() >= 3 && has_most_of(&one_line(long, usize::MAX).to_lowercase(), &words)
}

/// A session id as a file name: only `[A-Za-z0-9-]` kept, so no id leaves its directory.
pub fn session_key(session: &str) -> Option<String> {
    let clean: String = session
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .take(64)
        .collect();
    (!clean.is_empty()).then_some(clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `clip_words` as it was, collapsing the whole text first: the reference.
    fn clip_words_whole(text: &str, max: usize) -> String {
        let line = one_line(text, usize::MAX);
        if line.chars().count() <= max {
            return line;
        }
        let room: String = line.chars().take(max.saturating_sub(1)).collect();
        let end = room
            .char_indices()
            .filter(|(_, c)| c.is_whitespace())
            .map(|(i, _)| i)
            .next_back()
            .filter(|i| room[..*i].chars().count() > max / 2)
            .unwrap_or(room.len());
        let kept = room[..end].trim_end_matches(|c: char| {
            c.is_whitespace() || matches!(c, ',' | ';' | ':' | '-' | '—' | '(' | '⏎')
        });
        format!("{kept}…")
    }

    mod clip_words_is_the_same_without_collapsing_the_whole_text {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(3000))]
            #[test]
            fn on_texts_of_words_and_lines(
                text in "([a-z]{0,7}[ ,;:\\-—(⏎\n\r]{0,2}){0,30}",
                max in 0usize..40,
            ) {
                prop_assert_eq!(clip_words(&text, max), clip_words_whole(&text, max));
            }
        }
    }

    mod lower_is_to_lowercase {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(3000))]
            #[test]
            fn on_mixed_text(text in "([A-Za-z0-9 .]{0,6}[ΣσÀÉİẞǅ⏎✓—ΑΒ]?){0,8}") {
                prop_assert_eq!(lower(&text), text.to_lowercase());
            }
        }

        #[test]
        fn on_the_characters_whose_lower_case_is_longer_or_contextual() {
            for text in [
                "",
                "ABC",
                "İstanbul",
                "ΟΔΟΣ ΟΔΟΣ.",
                "Σ",
                "aΣ b",
                "ẞ ⏎ ǅ",
                "✓ DONE ⏎ Next",
            ] {
                assert_eq!(lower(text), text.to_lowercase(), "{text}");
            }
        }
    }

    #[test]
    fn the_first_line_of_a_collapsed_text_is_what_comes_before_its_mark() {
        for text in ["", "a", "a ⏎ b ⏎ c", " ⏎ b", "a ⏎", "a⏎b ⏎ c", "é ⏎ ü"] {
            assert_eq!(
                first_of_one_line(text),
                text.split(" ⏎ ").next().unwrap_or(text),
                "{text:?}"
            );
        }
    }

    #[test]
    fn an_item_in_other_words_restates_another() {
        assert!(restates(
            "Use `bun run` for scripts rather than specifying a path, which can be anything.",
            "Use `bun run` in code-grader commands instead of specifying a script path (\"i thought the pattern was to use bun run\")."
        ));
        // Sharing a subject is not saying the same thing.
        assert!(!restates(
            "New result bundles write run_manifest.jsonl instead of index.jsonl",
            "Name it run_manifest.jsonl, not a generic manifest.jsonl: AgentV has several manifests"
        ));
        assert!(!restates(
            "Phase 2 uses SQLite",
            "Phase 3 uses SQLite storage here"
        ));
        // Too short to judge.
        assert!(!restates(
            "use pnpm",
            "use pnpm for everything in this repository"
        ));
    }

    #[test]
    fn whole_words_only() {
        assert!(has_words("a redis token bucket is out.", "is out"));
        assert!(!has_words("the dependency is outdated", "is out"));
        assert!(!has_words("nevertheless it runs", "never"));
        assert!(has_words("never touch it", "never"));
        assert!(has_words("不要修改接口", "不要"));
    }

    /// `one_line` as it was written first, a character at a time: the reference the
    /// faster one must match.
    fn one_line_by_chars(text: &str, max: usize) -> String {
        let mut out = String::new();
        let mut count = 0;
        for (i, line) in text
            .trim()
            .split(['\n', '\r'])
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .enumerate()
        {
            if i > 0 {
                out.push_str(" ⏎ ");
                count += 3;
            }
            for c in line.chars() {
                if count >= max {
                    truncate_with_ellipsis(&mut out, max);
                    return out;
                }
                out.push(c);
                count += 1;
            }
        }
        if count > max {
            truncate_with_ellipsis(&mut out, max);
        }
        out
    }

    mod one_line_matches_a_walk_by_characters {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(3000))]
            #[test]
            fn same_line(text in "[a-zé漢 \n\r\t]{0,40}", max in 0usize..30) {
                prop_assert_eq!(one_line(&text, max), one_line_by_chars(&text, max));
            }
        }
    }

    #[test]
    fn one_line_joins_and_truncates() {
        assert_eq!(one_line("  a\n\n b \n", 80), "a ⏎ b");
        assert_eq!(one_line("abcdef", 4), "abc…");
        assert_eq!(one_line("abcd", 4), "abcd");
        assert_eq!(one_line("日本語のテキスト", 4), "日本語…");
    }

    #[test]
    fn head_tail_keeps_both_ends_on_char_boundaries() {
        let t = "é".repeat(10);
        let out = head_tail(&t, 4);
        assert!(out.starts_with("éé\n[… 6 characters omitted …]\néé"));
        assert_eq!(head_tail("short", 10), "short");
    }

    #[test]
    fn colour_sequences_are_removed_and_brackets_kept() {
        assert_eq!(
            strip_ansi("\u{1b}[1mbold\u{1b}[22m and [31mred[0m [FORMAT] [1] a[b"),
            "bold and red [FORMAT] [1] a[b"
        );
    }

    #[test]
    fn prefix_respects_multibyte() {
        assert_eq!(prefix_chars("añb", 2), "añ");
        assert_eq!(prefix_chars("ab", 5), "ab");
    }
}
