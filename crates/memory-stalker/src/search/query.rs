//! A search as typed — a natural question, a few keywords, a path, a quoted phrase, in
//! any language — made into FTS5 expressions (docs/design.md §7.10).
//!
//! Words are whole words, stemmed by the index's tokenizer; stop words are dropped; the
//! rest are OR-ed, so a memory that has most of them ranks high without needing all.
//! A word joined by punctuation (`lib.rs`, `sync_session`, `src/main.rs`) is a phrase of
//! its parts. Chinese and Japanese runs become phrases of character pairs, as the index
//! stores them. Common abbreviations match their long forms and back ("CI" and
//! "continuous integration"). Nothing typed reaches FTS5 as syntax: every term is
//! quoted.

use super::fields::is_cjk;
use super::synonyms;

/// Most characters of a query read; the rest is ignored.
pub const MAX_QUERY_CHARS: usize = 2_000;
/// Most distinct terms of a query used; the rest are ignored (defect 16 of issue 25: a
/// query of 20,000 words cost seconds).
pub const MAX_TERMS: usize = 24;

/// One thing the query looks for: a word, a phrase, or an abbreviation with its long
/// forms; a memory matches it when it matches any alternative.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// Each alternative is a phrase: a sequence of index tokens (one for a word).
    pub alternatives: Vec<Vec<String>>,
    /// The last token of each alternative is a prefix (a single CJK character).
    pub prefix: bool,
    /// What the user typed for it, lower-cased (to find and mark it in a snippet).
    pub typed: String,
}

impl Term {
    /// The FTS5 expression matching this term.
    pub fn fts(&self) -> String {
        let alts: Vec<String> = self
            .alternatives
            .iter()
            .map(|tokens| {
                let mut s = quote(&tokens.join(" "));
                if self.prefix {
                    s.push('*');
                }
                s
            })
            .collect();
        if alts.len() == 1 {
            alts.into_iter().next().unwrap_or_default()
        } else {
            format!("({})", alts.join(" OR "))
        }
    }

    /// The words a snippet marks for this term: what was typed, and the long forms.
    pub fn marks(&self) -> Vec<String> {
        let mut out = vec![self.typed.clone()];
        for alt in &self.alternatives {
            let joined = if alt.iter().all(|t| t.chars().all(is_cjk)) {
                cjk_from_pairs(alt)
            } else {
                alt.join(" ")
            };
            if !out.contains(&joined) {
                out.push(joined);
            }
        }
        out
    }
}

/// A parsed query.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Query {
    /// The distinct terms, in the order typed, at most [`MAX_TERMS`].
    pub terms: Vec<Term>,
    /// The content words in order, as one phrase, when there are two or more: a
    /// memory with them side by side ranks higher.
    pub phrase: Option<Vec<String>>,
    /// Words that stand for the typed ones ([`super::synonyms`]), at most
    /// [`MAX_RELATED`]: they find a memory that says the same in other words, and rank
    /// it, but a memory is not "holding every term" through them.
    pub related: Vec<Term>,
}

/// Most synonyms a query adds.
pub const MAX_RELATED: usize = 16;

impl Query {
    /// Parses what was typed.
    pub fn parse(typed: &str) -> Query {
        let mut typed: String = typed.chars().take(MAX_QUERY_CHARS + 1).collect();
        if typed.chars().count() > MAX_QUERY_CHARS {
            // Cut at the last space before the bound: never half a word.
            let cut: String = typed.chars().take(MAX_QUERY_CHARS).collect();
            typed = match cut.rfind(char::is_whitespace) {
                Some(i) => cut[..i].to_string(),
                None => cut,
            };
        }
        let mut terms: Vec<Term> = Vec::new();
        let push = |terms: &mut Vec<Term>, t: Term| {
            if terms.len() < MAX_TERMS && !terms.iter().any(|x| x.alternatives == t.alternatives) {
                terms.push(t);
            }
        };
        let mut phrase_tokens: Vec<String> = Vec::new();
        // Quoted phrases first, kept whole.
        let mut rest = String::new();
        let mut parts = typed.split('"');
        if let Some(first) = parts.next() {
            rest.push_str(first);
        }
        for (i, part) in parts.enumerate() {
            if i % 2 == 0 {
                let tokens = tokens_of(part);
                if !tokens.is_empty() {
                    push(
                        &mut terms,
                        Term {
                            typed: part.trim().to_lowercase(),
                            alternatives: vec![tokens],
                            prefix: false,
                        },
                    );
                }
            } else {
                rest.push(' ');
                rest.push_str(part);
            }
        }
        let words: Vec<String> = rest.split_whitespace().map(|w| w.to_lowercase()).collect();
        let mut related: Vec<&'static str> = Vec::new();
        let mut i = 0;
        while i < words.len() {
            if let Some((_, phrase)) = synonyms::phrase_at(&words[i..]) {
                related.extend(synonyms::synonyms(phrase));
            }
            // A long form typed out ("continuous integration") is its abbreviation too.
            if let Some((n, abbr)) = long_form_at(&words[i..]) {
                let typed = words[i..i + n].join(" ");
                let mut alts = vec![tokens_of(&typed)];
                alts.push(vec![abbr.to_string()]);
                phrase_tokens.extend(tokens_of(&typed));
                push(
                    &mut terms,
                    Term {
                        typed,
                        alternatives: alts,
                        prefix: false,
                    },
                );
                i += n;
                continue;
            }
            for t in terms_of_word(&words[i]) {
                if !t.prefix {
                    phrase_tokens.extend(t.alternatives[0].iter().cloned());
                }
                if let [one] = t.alternatives[0].as_slice() {
                    related.extend(synonyms::synonyms(one));
                }
                push(&mut terms, t);
            }
            i += 1;
        }
        let phrase = (phrase_tokens.len() >= 2 && terms.len() >= 2).then_some(phrase_tokens);
        let mut extra: Vec<Term> = Vec::new();
        for word in related {
            let tokens = tokens_of(word);
            let known = |t: &Term| t.alternatives.contains(&tokens);
            if extra.len() < MAX_RELATED && !terms.iter().any(known) && !extra.iter().any(known) {
                extra.push(Term {
                    typed: word.to_string(),
                    alternatives: vec![tokens],
                    prefix: false,
                });
            }
        }
        Query {
            terms,
            phrase,
            related: extra,
        }
    }

    /// Whether nothing searchable was typed (only stop words, punctuation, nothing).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The FTS5 expression matching any term.
    pub fn any(&self) -> String {
        self.terms
            .iter()
            .map(Term::fts)
            .collect::<Vec<_>>()
            .join(" OR ")
    }

    /// The FTS5 expression of the whole query as one phrase, if it has one.
    pub fn phrase_fts(&self) -> Option<String> {
        self.phrase.as_ref().map(|p| quote(&p.join(" ")))
    }
}

/// The terms one whitespace-separated word gives: none for a stop word; one word; a
/// phrase of its parts when punctuation joins them (`lib.rs`); CJK runs as phrases of
/// pairs, with the stop pairs of questions left out.
fn terms_of_word(word: &str) -> Vec<Term> {
    let mut out = Vec::new();
    // Split into runs: CJK characters, and the rest.
    let mut latin = String::new();
    let mut cjk = String::new();
    let flush_latin = |latin: &mut String, out: &mut Vec<Term>| {
        let mut tokens: Vec<String> = tokens_of(latin);
        // A stop word alone is dropped; inside a name (`sync_session_by_id`) it is part
        // of it.
        if tokens.len() == 1 && is_stop_word(&tokens[0]) {
            tokens.clear();
        }
        let typed = latin
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_string();
        latin.clear();
        if tokens.is_empty() {
            return;
        }
        if tokens.len() == 1
            && tokens[0].chars().count() == 1
            && !tokens[0].chars().all(|c| c.is_ascii_digit())
        {
            // A lone letter matches everything and means nothing.
            return;
        }
        let mut alternatives = vec![tokens.clone()];
        if tokens.len() == 1 {
            for long in long_forms(&tokens[0]) {
                alternatives.push(tokens_of(long));
            }
        }
        out.push(Term {
            typed,
            alternatives,
            prefix: false,
        });
    };
    let flush_cjk = |cjk: &mut String, out: &mut Vec<Term>| {
        let chars: Vec<char> = cjk.chars().collect();
        cjk.clear();
        match chars.len() {
            0 => {}
            1 => {
                if !CJK_STOP_CHARS.contains(&chars[0]) {
                    out.push(Term {
                        typed: chars[0].to_string(),
                        alternatives: vec![vec![chars[0].to_string()]],
                        prefix: true,
                    });
                }
            }
            _ => {
                // Each pair is a term of its own (a question's wording around the words
                // that matter does not occur in the memory), stop pairs left out.
                for pair in chars.windows(2) {
                    let p: String = pair.iter().collect();
                    if CJK_STOP_PAIRS.contains(&p.as_str())
                        || pair.iter().all(|c| CJK_STOP_CHARS.contains(c))
                        || pair.iter().any(|c| CJK_PARTICLES.contains(c))
                    {
                        continue;
                    }
                    out.push(Term {
                        typed: p.clone(),
                        alternatives: vec![vec![p]],
                        prefix: false,
                    });
                }
            }
        }
    };
    for c in word.chars() {
        if is_cjk(c) {
            flush_latin(&mut latin, &mut out);
            cjk.push(c);
        } else {
            flush_cjk(&mut cjk, &mut out);
            latin.push(c);
        }
    }
    flush_latin(&mut latin, &mut out);
    flush_cjk(&mut cjk, &mut out);
    out
}

/// The index tokens of a text without CJK: its runs of letters and digits, lower-cased,
/// as the FTS tokenizer (unicode61) splits them; CJK runs as their pairs. A word with
/// parts (`writer0`, `parseHTTPHeader` as typed) is followed by them, as the index
/// stores it ([`super::fields::with_word_parts`]): a phrase holding it still matches.
fn tokens_of(text: &str) -> Vec<String> {
    let text = super::fields::with_word_parts(text);
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let flush_cjk = |cjk: &mut Vec<char>, out: &mut Vec<String>| {
        match cjk.len() {
            0 => {}
            1 => out.push(cjk[0].to_string()),
            _ => out.extend(cjk.windows(2).map(|p| p.iter().collect::<String>())),
        }
        cjk.clear();
    };
    for c in text.chars() {
        if is_cjk(c) {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            cjk.push(c);
        } else if c.is_alphanumeric() {
            flush_cjk(&mut cjk, &mut out);
            cur.extend(c.to_lowercase());
        } else {
            flush_cjk(&mut cjk, &mut out);
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        }
    }
    flush_cjk(&mut cjk, &mut out);
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The CJK word a run of pairs spells ("会话", "话记", "记忆" → "会话记忆").
fn cjk_from_pairs(pairs: &[String]) -> String {
    let mut out = String::new();
    for (i, p) in pairs.iter().enumerate() {
        if i == 0 {
            out.push_str(p);
        } else if let Some(last) = p.chars().last() {
            out.push(last);
        }
    }
    out
}

/// A string as an FTS5 string: in double quotes, inner quotes doubled, so nothing in it
/// is syntax.
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// Words that carry no subject in a question or a search ("what did we decide about
/// the …"): dropped.
fn is_stop_word(w: &str) -> bool {
    STOP_WORDS.binary_search(&w).is_ok()
}

// Sorted (binary search). English function words and the words of questions about past
// work; not words a memory is about ("test", "error", "file" stay).
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "ago",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "anything",
    "are",
    "around",
    "as",
    "at",
    "back",
    "be",
    "because",
    "been",
    "before",
    "being",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "done",
    "during",
    "each",
    "earlier",
    "either",
    "else",
    "ever",
    "every",
    "for",
    "from",
    "get",
    "got",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "him",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "last",
    "me",
    "might",
    "more",
    "most",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "one",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "out",
    "over",
    "own",
    "please",
    "previous",
    "previously",
    "recall",
    "remember",
    "same",
    "she",
    "should",
    "so",
    "some",
    "something",
    "such",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "thing",
    "things",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "us",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "yes",
    "you",
    "your",
    "yours",
];

/// Characters and pairs of Chinese and Japanese questions that carry no subject.
const CJK_STOP_CHARS: &[char] = &[
    '的', '了', '吗', '呢', '吧', '是', '在', '和', '我', '你', '们', '这', '那', '个', '么', '有',
    '把', '被', '给', '也', '就', '都', '之', '与', '及', 'の', 'は', 'が', 'を', 'に', 'で', 'と',
    'も', 'か', 'た', 'て', 'し', 'な', 'ね', 'よ',
];
/// Grammatical particles: a pair with one is two words' edges, not a word.
const CJK_PARTICLES: &[char] = &[
    '的', '了', '吗', '呢', '吧', '们', '么', 'の', 'は', 'が', 'を', 'に', 'で', 'と', 'も', 'か',
    'ね', 'よ',
];
const CJK_STOP_PAIRS: &[&str] = &[
    "什么",
    "怎么",
    "如何",
    "哪些",
    "哪个",
    "为什",
    "我们",
    "你们",
    "他们",
    "这个",
    "那个",
    "一个",
    "时候",
    "之前",
    "以前",
    "上次",
    "是否",
    "有没",
    "没有",
    "关于",
    "当时",
    "后来",
    "最后",
    "可以",
    "还是",
    "ですか",
    "ました",
    "でした",
    "について",
    "どうし",
    "うして",
    "ましたか",
];

/// Abbreviations developers type for a longer name, and that name: either form finds
/// the other.
const ABBREVIATIONS: &[(&str, &[&str])] = &[
    ("api", &["application programming interface"]),
    ("auth", &["authentication", "authorization"]),
    ("ci", &["continuous integration"]),
    ("cli", &["command line"]),
    ("config", &["configuration"]),
    ("db", &["database"]),
    ("deps", &["dependencies", "dependency"]),
    ("dir", &["directory"]),
    ("docs", &["documentation"]),
    ("e2e", &["end to end"]),
    ("env", &["environment"]),
    ("gh", &["github"]),
    ("impl", &["implementation"]),
    ("js", &["javascript"]),
    ("k8s", &["kubernetes"]),
    ("llm", &["language model"]),
    ("perf", &["performance"]),
    ("pr", &["pull request"]),
    ("py", &["python"]),
    ("regex", &["regular expression"]),
    ("repo", &["repository"]),
    ("ts", &["typescript"]),
    ("ui", &["user interface"]),
];

/// The long forms of an abbreviation.
fn long_forms(word: &str) -> &'static [&'static str] {
    ABBREVIATIONS
        .iter()
        .find(|(a, _)| *a == word)
        .map_or(&[], |(_, l)| l)
}

/// When `words` starts with a long form of an abbreviation: how many words it takes,
/// and the abbreviation.
fn long_form_at(words: &[String]) -> Option<(usize, &'static str)> {
    ABBREVIATIONS.iter().find_map(|(abbr, longs)| {
        longs
            .iter()
            .find_map(|long| synonyms::phrase_len_at(words, long).map(|n| (n, *abbr)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alts(q: &Query) -> Vec<Vec<Vec<String>>> {
        q.terms.iter().map(|t| t.alternatives.clone()).collect()
    }

    #[test]
    fn stop_words_go_and_the_rest_is_ored() {
        let q = Query::parse("What did we decide about running CI on all branches?");
        let typed: Vec<&str> = q.terms.iter().map(|t| t.typed.as_str()).collect();
        assert_eq!(typed, ["decide", "running", "ci", "branches"]);
        assert_eq!(
            q.any(),
            "\"decide\" OR \"running\" OR (\"ci\" OR \"continuous integration\") OR \"branches\""
        );
        assert_eq!(
            q.phrase_fts().as_deref(),
            Some("\"decide running ci branches\"")
        );
    }

    #[test]
    fn synonyms_are_related_terms_not_typed_ones() {
        let q = Query::parse("fix the tint of the row titles");
        let typed: Vec<&str> = q.terms.iter().map(|t| t.typed.as_str()).collect();
        assert_eq!(typed, ["fix", "tint", "row", "titles"]);
        let related: Vec<&str> = q.related.iter().map(|t| t.typed.as_str()).collect();
        assert!(related.contains(&"repair"), "{related:?}");
        assert!(related.contains(&"colour"), "{related:?}");
        // A phrase of a group brings its synonyms; nothing typed comes back as one.
        let q = Query::parse("style check failures");
        let related: Vec<&str> = q.related.iter().map(|t| t.typed.as_str()).collect();
        assert!(related.contains(&"lint"), "{related:?}");
        let q = Query::parse("lint linter");
        assert!(
            q.related
                .iter()
                .all(|t| t.typed != "lint" && t.typed != "linter")
        );
        assert!(Query::parse("xylophone").related.is_empty());
    }

    #[test]
    fn long_forms_find_the_abbreviation() {
        let q = Query::parse("continuous integration branches");
        assert_eq!(
            alts(&q)[0],
            vec![
                vec!["continuous".to_string(), "integration".to_string()],
                vec!["ci".to_string()]
            ]
        );
    }

    #[test]
    fn punctuation_joins_a_phrase_and_quotes_are_not_syntax() {
        let q = Query::parse("src/lib.rs sync_session_by_id");
        assert_eq!(q.terms[0].fts(), "\"src lib rs\"");
        assert_eq!(q.terms[1].fts(), "\"sync session by id\"");
        let q = Query::parse("\"retry budget\" NEAR( AND * ^col:");
        assert_eq!(q.terms[0].fts(), "\"retry budget\"");
        assert!(q.any().contains("\"near\""), "{}", q.any());
        assert!(!q.any().contains("NEAR("));
        let q = Query::parse("a\"b");
        assert!(q.any().chars().filter(|c| *c == '"').count() % 2 == 0);
    }

    #[test]
    fn cjk_becomes_pairs_without_question_words() {
        let q = Query::parse("我们怎么决定CI分支");
        let typed: Vec<&str> = q.terms.iter().map(|t| t.typed.as_str()).collect();
        assert_eq!(typed, ["决定", "ci", "分支"]);
        let q = Query::parse("忆");
        assert_eq!(q.terms[0].fts(), "\"忆\"*");
        let q = Query::parse("テストの実行");
        assert!(q.terms.iter().any(|t| t.typed == "テス"));
        assert!(q.terms.iter().any(|t| t.typed == "実行"));
    }

    #[test]
    fn queries_are_bounded() {
        let many: String = (0..20_000).map(|i| format!("w{i} ")).collect();
        let q = Query::parse(&many);
        assert_eq!(q.terms.len(), MAX_TERMS);
        let same = "retry ".repeat(10_000);
        assert_eq!(Query::parse(&same).terms.len(), 1);
        let long = "x".repeat(5_000);
        assert!(Query::parse(&long).terms[0].typed.len() <= MAX_QUERY_CHARS);
        assert!(Query::parse("the of and what").is_empty());
        assert!(Query::parse("").is_empty());
    }

    #[test]
    fn the_stop_words_are_sorted() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }
}
