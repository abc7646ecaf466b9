//! The user's standing instructions (docs/design.md §4.7): sentences they typed that
//! constrain how to work for the rest of the session — scope, style, tools, process
//! ("keep it the same 3 simple files", "use pnpm", "only phase 4", "make sure to run the
//! e2e tests when you are done") — and not opinions ("I don't like this idea"), remarks
//! ("They don't look that bad"), dismissals ("Never mind!"), questions, stories ("we
//! just never ran the tests") or the request itself.
//!
//! Precision comes first: a wrong instruction handed to the model after a compaction
//! misleads it more than a missing one. A sentence counts only when a rule opens one of
//! its clauses (an imperative of a rule verb, "we should…", "I don't want…", "only…"),
//! and what is kept is that clause, in the user's words.

use crate::text::one_line;

use super::offline::{prose, sentences};

/// Longest instruction kept, in characters.
const CHARS: usize = 200;
/// Longest sentence judged whole: a longer one is a task description, and only a rule
/// clause inside it can count.
const SENTENCE_CHARS: usize = 400;

/// The instructions in the requests the user typed (oldest first, without repeats).
#[cfg(test)]
pub(crate) fn from_prompts(requests: &[String]) -> Vec<String> {
    let sentences: Vec<Vec<String>> = requests.iter().map(|r| typed_sentences(r)).collect();
    from_sentences(&sentences)
}

/// [`from_prompts`] of the requests' sentences ([`typed_sentences`] of each, oldest
/// first): the choices are read from the same sentences, which are cut once.
pub(crate) fn from_sentences(requests: &[Vec<String>]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, sentences) in requests.iter().enumerate() {
        // A first request of one sentence is the task itself ("Use the Explore agent to
        // give me an overview of the code"), not a rule for the rest of the work: a rule
        // taken from it must be a part of it ("…, the frontend has shared components to
        // use"), not all of it, unless it says it lasts ("Always answer in French").
        let the_task =
            (i == 0 && sentences.len() == 1 && !lasts(&sentences[0])).then(|| sentences[0].trim());
        for s in sentences {
            out.extend(instruction(s, false).filter(|rule| Some(rule.trim()) != the_task));
        }
    }
    newest_wins(out)
}

/// Most rules compared and kept, the newest: each is compared with every newer one, so
/// a segment of a thousand prompts or refusals with rules would be a million
/// comparisons (a memory keeps 12 rules).
const COMPARED: usize = 200;

/// Whether a sentence says that what it asks lasts beyond the task at hand.
fn lasts(sentence: &str) -> bool {
    const LASTING: [&str; 10] = [
        "always",
        "never",
        "from now on",
        "every time",
        "whenever",
        "don't",
        "do not",
        "make sure",
        "总是",
        "不要",
    ];
    let lower = sentence.to_lowercase();
    LASTING.iter().any(|w| crate::text::has_words(&lower, w))
}

/// The instructions in words the user gave outside a prompt: the reason typed when
/// refusing a call or a plan, a `#` note. What they typed there is meant for the work,
/// so a rule of any verb counts ("we need to find a cleaner way to reinstall").
pub(crate) fn from_words(text: &str) -> Vec<String> {
    typed_sentences(text)
        .iter()
        .filter_map(|s| instruction(s, true))
        .collect()
}

/// The instructions in order, a later one replacing an earlier one it restates or
/// revises (most of its key words in common), so the newest wording wins; of the
/// newest [`COMPARED`] only.
pub(crate) fn newest_wins(mut items: Vec<String>) -> Vec<String> {
    use crate::text::{Mentioned, Mentioner};
    let older = items.len().saturating_sub(COMPARED);
    let items = items.split_off(older);
    // Each item lower-cased, cut into words and into key words once, not once for
    // every pair it is compared in (up to 200 × 200).
    let bare: Vec<&str> = items.iter().map(|i| without_source(i)).collect();
    let lower: Vec<String> = bare.iter().map(|b| b.to_lowercase()).collect();
    let as_text: Vec<Mentioner> = lower.iter().map(|l| Mentioner::new(l)).collect();
    let as_item: Vec<Mentioned> = bare.iter().map(|b| Mentioned::new(b)).collect();
    let mut out: Vec<usize> = Vec::new();
    for new in 0..items.len() {
        out.retain(|&old| {
            lower[old] != lower[new]
                && !(as_text[new].mentions(&as_item[old]) && as_text[old].mentions(&as_item[new]))
        });
        out.push(new);
    }
    let mut items: Vec<Option<String>> = items.into_iter().map(Some).collect();
    out.into_iter().filter_map(|i| items[i].take()).collect()
}

/// An item without the source a signal's item ends with (`use pnpm (Bash, 2026-…)`).
pub(crate) fn without_source(item: &str) -> &str {
    let t = item.trim_end();
    match t.strip_suffix(')').and_then(|r| r.rfind(" (")) {
        Some(at) if t[at..].contains(", 20") || t[at..].contains("note") => t[..at].trim_end(),
        _ => t,
    }
}

/// Words that open a clause without changing what it says ("so", "please", "I think").
const LEADS: [&str; 22] = [
    "so", "and", "but", "also", "please", "pls", "ok", "okay", "oh", "now", "just", "then", "btw",
    "actually", "instead", "again", "first", "finally", "anyway", "maybe", "well", "yes",
];

/// Sentence openings that tell an opinion, a remark, a story or a dismissal.
const NOT_RULES: [&str; 26] = [
    "never mind",
    "nevermind",
    "no worries",
    "forget it",
    "don't worry",
    "no problem",
    "i like",
    "i love",
    "i hate",
    "i think it",
    "i think this",
    "i think that",
    "i feel",
    "i believe",
    "i guess",
    "i found",
    "i didn't",
    "i did not",
    "i actually don't like",
    "i don't like",
    "i don't think",
    "i do not think",
    "i don't know",
    "i'm not sure",
    "they don't",
    "it doesn't",
];

/// The instruction a sentence gives, if one: the whole sentence when a rule opens it,
/// else the clause a rule opens. `any_verb` also takes "we need to …" and "we should
/// …" with any verb (words given with a refusal are about the work by nature).
pub(crate) fn instruction(sentence: &str, any_verb: bool) -> Option<String> {
    let s = sentence.trim();
    let words: Vec<&str> = s.split_whitespace().collect();
    if words.is_empty() {
        return None;
    }
    if !s.is_ascii() && s.chars().any(is_cjk) {
        return cjk_instruction(s);
    }
    let lower = s.to_lowercase();
    let opening = strip_leads(&lower);
    if NOT_RULES.iter().any(|n| opening.starts_with(n)) && !has_but_clause(&lower) {
        return None;
    }
    // A question asks; "I think we should run it on all push?" only suggests.
    let question = s.ends_with('?') || s.ends_with('？');
    let lows: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    for i in 0..lows.len() {
        if !opens_clause(&lows, i) {
            continue;
        }
        let Some(len) = rule_at(&lows[i..], any_verb) else {
            continue;
        };
        let _ = len;
        // "I think we should…" is the user's rule as much as "We should…".
        let before: Vec<&String> = lows[..i].iter().filter(|w| !is_lead(w)).collect();
        let whole =
            (before.is_empty() || before == ["i", "think"]) && s.chars().count() <= SENTENCE_CHARS;
        // A clause that refers back ("don't count it against the budget") needs the
        // sentence it refers into; "keep it simple" refers to the work itself.
        let refers_back = !matches!(lows[i].as_str(), "keep" | "keeping" | "let's" | "lets")
            && lows[i..].iter().take(6).any(|w| {
                matches!(
                    w.trim_matches(|c: char| !c.is_alphanumeric()),
                    "it" | "them" | "this" | "that"
                )
            });
        let kept = if refers_back && !whole && s.chars().count() <= SENTENCE_CHARS {
            s.to_string()
        } else if whole {
            // A rule and then a request of another kind ("…, but add the features"):
            // the rule alone.
            [", but ", "; "]
                .iter()
                .filter_map(|sep| s.find(sep))
                .min()
                .map_or(s, |at| &s[..at])
                .to_string()
        } else {
            clause_from(&words, i)
        };
        let suggestion = lows[i..].first().is_some_and(|w| w == "we" || w == "you")
            && (opening.starts_with("i think") || i == 0);
        if question && !(suggestion && whole) {
            // A rule inside a question that asks for something else ("Can you review
            // it while keeping it simple?") is still a rule: its clause is kept.
            if whole {
                continue;
            }
        }
        let kept = kept.trim_end_matches([',', ';']).trim().to_string();
        if kept.split_whitespace().count() < 2 || (kept.ends_with('?') && !suggestion) {
            continue;
        }
        return Some(one_line(&kept, CHARS));
    }
    None
}

/// The sentence opening without the lead words that do not change it.
fn strip_leads(lower: &str) -> &str {
    let mut rest = lower.trim_start();
    loop {
        let word_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = rest[..word_end].trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
        if word_end == 0 || !is_lead(word) {
            return rest;
        }
        rest = rest[word_end..].trim_start();
    }
}

fn is_lead(word: &str) -> bool {
    let w = word.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
    LEADS.contains(&w)
}

/// Whether a sentence that opens with an opinion goes on with a rule of its own ("I
/// have both, but I don't want to make it only work for me").
fn has_but_clause(lower: &str) -> bool {
    lower.contains(", but ") || lower.contains(", so ")
}

/// Whether word `i` starts a clause: the sentence's first word, after punctuation, or
/// after a word that joins clauses.
fn opens_clause(words: &[String], i: usize) -> bool {
    if words[..i].iter().all(|w| is_lead(w)) {
        return true;
    }
    let prev = &words[i - 1];
    prev.ends_with([',', ';', ':', '.', '(', '—', '–'])
        || prev == "-"
        || matches!(
            prev.as_str(),
            "and"
                | "but"
                | "so"
                | "then"
                | "while"
                | "also"
                | "please"
                | "instead"
                | "done"
                | "finished"
                | "think"
                | "otherwise"
        )
}

/// Verbs whose imperative states a rule rather than a task.
const RULE_VERBS: [&str; 14] = [
    "keep", "keeping", "use", "avoid", "prefer", "never", "always", "ensure", "follow", "stay",
    "stick", "without", "only", "remember",
];

/// Verbs after "we should" that make a way of working rather than a task.
const PROCESS_VERBS: [&str; 18] = [
    "run", "test", "discuss", "keep", "use", "avoid", "stick", "follow", "check", "commit", "ask",
    "wait", "always", "never", "not", "only", "stay", "review",
];

/// The number of words of the rule that opens `w`, if one does.
fn rule_at(w: &[String], any_verb: bool) -> Option<usize> {
    let word = |i: usize| {
        w.get(i)
            .map(|x| x.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
            .unwrap_or("")
    };
    let (w0, w1, w2, w3) = (word(0), word(1), word(2), word(3));
    match w0 {
        // Continuations ("keep going") and one-off keeps ("keep the change") aside.
        "keep" | "keeping" if !matches!(w1, "going" | "working" | "trying" | "up" | "at") => {
            Some(2)
        }
        "use" | "using" if w0 == "use" && !w1.is_empty() && w1 != "case" => Some(2),
        "avoid" | "prefer" | "never" | "always" | "ensure" | "follow" | "remember" => Some(1),
        "stick" | "stay" if matches!(w1, "to" | "with" | "in" | "on" | "within") => Some(2),
        "only" if !w1.is_empty() => Some(2),
        "without" if w1.ends_with("ing") || matches!(w1, "any" | "a" | "new") => Some(2),
        "no" if w1 == "need" && w2 == "to" => Some(3),
        "don't" | "dont" => dont_rule(w1).then_some(2),
        "do" if w1 == "not" => dont_rule(w2).then_some(3),
        "make" if w1 == "sure" => Some(2),
        "let's" | "lets" => matches!(
            w1,
            "keep" | "use" | "stick" | "avoid" | "not" | "make" | "stay" | "only"
        )
        .then_some(2),
        "from" if w1 == "now" && w2 == "on" => Some(3),
        "we" | "you" => {
            // "we should run it on all push", "you don't need to transpile".
            let modal = match (w1, w2) {
                ("should" | "must", _) | ("shouldn't" | "mustn't", _) => Some(2),
                ("need" | "have", "to") => Some(3),
                ("don't" | "dont", "need") if w3 == "to" => return Some(4),
                ("do", "not") if w3 == "need" => return Some(5),
                ("can", "use" | "test") => return Some(3),
                _ => None,
            }?;
            let verb = word(modal);
            (any_verb || PROCESS_VERBS.contains(&verb)).then_some(modal + 1)
        }
        "i" => {
            // "I don't want to …", "I'd like to keep …", "I'd prefer …".
            match (w1, w2, w3) {
                ("don't" | "dont", "want", _) | ("do", "not", "want") => Some(3),
                ("want" | "need", "to", "keep" | "use") => Some(4),
                ("prefer", _, _) | ("would", "prefer" | "rather", _) => Some(2),
                ("i'd", _, _) => None,
                _ => None,
            }
        }
        "i'd" => match (w1, w2, w3) {
            ("like" | "love", "to", "keep" | "use" | "stick" | "avoid") => Some(4),
            ("prefer" | "rather", _, _) => Some(2),
            _ => None,
        },
        _ if RULE_VERBS.contains(&w0) && any_verb => Some(1),
        _ => None,
    }
}

/// Whether "don't <verb>" states a rule: not "don't know", "don't think", "don't worry".
fn dont_rule(verb: &str) -> bool {
    !verb.is_empty()
        && !matches!(
            verb,
            "know"
                | "think"
                | "see"
                | "understand"
                | "worry"
                | "get"
                | "like"
                | "look"
                | "have"
                | "seem"
                | "mind"
                | "care"
                | "remember"
                | "believe"
                | "need"
                | "want"
        )
}

/// From word `i` to the end of its clause (the next `,` or `;`).
fn clause_from(words: &[&str], i: usize) -> String {
    let mut out = Vec::new();
    for w in &words[i..] {
        out.push(*w);
        if w.ends_with([',', ';']) {
            break;
        }
    }
    out.join(" ")
}

/// A sentence in Chinese (or Japanese) that gives a rule: 不要, 别, 禁止, 务必, 一定要,
/// 总是, 始终, 请使用, 保持, 只用, or an imperative 用 ("use …") opening it. "不需要"
/// (no need for) is left out: it mostly asks for a one-off change.
fn cjk_instruction(s: &str) -> Option<String> {
    const CUES: [&str; 12] = [
        "不要",
        "别",
        "禁止",
        "务必",
        "一定要",
        "总是",
        "始终",
        "请使用",
        "请用",
        "只用",
        "保持",
        "可以使用",
    ];
    let question = s.ends_with('?') || s.ends_with('？') || s.ends_with('吗');
    if question {
        return None;
    }
    // The clause that holds the rule, not the whole sentence around it.
    s.split(['，', ',', '；', ';'])
        .map(|c| c.trim().trim_matches(['"', '“', '”']).trim())
        .find(|c| {
            (c.starts_with('用') && !c.starts_with("用户"))
                || CUES.iter().any(|cue| c.contains(cue))
        })
        .filter(|c| !c.is_empty())
        .map(|c| one_line(c, CHARS))
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xac00..=0xd7af)
}

/// The sentences of a prompt the user typed themselves: fenced blocks, quoted lines
/// and paragraphs that look pasted (logs, stack traces, command output, documentation
/// longer than a message) are left out, and so are the backslashes old versions kept at
/// the ends of a multi-line prompt's lines.
pub(crate) fn typed_sentences(prompt: &str) -> Vec<String> {
    let prompt = if prompt.contains("\\\n") {
        std::borrow::Cow::Owned(prompt.replace("\\\n", "\n"))
    } else {
        std::borrow::Cow::Borrowed(prompt)
    };
    let prose = prose(&prompt);
    let paras: Vec<&str> = prose
        .split("\n\n")
        .filter(|p| !p.trim().is_empty())
        .collect();
    // In a long prompt the user typed the framing (first and last paragraphs) and
    // pasted the middle: documentation, a log, an earlier answer.
    // Counted only as far as the limit: a pasted log is megabytes.
    let typed: Vec<&str> = if prompt.chars().nth(1_500).is_some() && paras.len() > 1 {
        let last = paras[paras.len() - 1];
        let mut framing = vec![paras[0]];
        framing.extend(last.chars().nth(300).is_none().then_some(last));
        framing
    } else {
        paras
    };
    typed
        .into_iter()
        .filter(|p| !looks_pasted(p))
        .flat_map(sentences)
        .collect()
}

/// Whether a paragraph of a prompt looks pasted rather than typed.
fn looks_pasted(para: &str) -> bool {
    // The length first, counted only as far as the limit: a pasted log is megabytes.
    if para.chars().nth(1_500).is_some() {
        return true;
    }
    let lines: Vec<&str> = para.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() > 12 {
        return true;
    }
    lines.iter().any(|l| {
        let t = l.trim_start();
        let lower = t.to_lowercase();
        l.starts_with("    ")
            || l.starts_with('\t')
            || t.starts_with('>')
            || t.starts_with('$')
            || t.starts_with('|')
            || t.starts_with('⏺')
            || t.starts_with('⎿')
            || t.starts_with("at ")
            || t.starts_with("File \"")
            || t.starts_with("Traceback")
            || [
                "fatal:",
                "error:",
                "error[",
                "warning:",
                "warn:",
                "info:",
                "debug:",
                "note:",
                "hint:",
                "npm ",
                "caused by",
            ]
            .iter()
            .any(|p| lower.starts_with(p))
            || t.starts_with(|c: char| c.is_ascii_digit())
                && t.contains(':')
                && t.contains('-')
                && !t.contains(". ")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `newest_wins` as it was, each pair's texts prepared anew: the reference.
    fn newest_wins_pairwise(mut items: Vec<String>) -> Vec<String> {
        let older = items.len().saturating_sub(COMPARED);
        let mut out: Vec<(String, String)> = Vec::new();
        for item in items.split_off(older) {
            let bare = without_source(&item);
            let lower = bare.to_lowercase();
            out.retain(|(old, old_lower)| {
                let old_bare = without_source(old);
                *old_lower != lower
                    && !(crate::text::mentions(&lower, old_bare)
                        && crate::text::mentions(old_lower, bare))
            });
            out.push((item, lower));
        }
        out.into_iter().map(|(item, _)| item).collect()
    }

    mod newest_wins_keeps_what_the_pairwise_comparison_keeps {
        use super::*;
        use proptest::prelude::*;

        fn rule() -> impl Strategy<Value = String> {
            let word = prop::sample::select(vec![
                "use",
                "pnpm",
                "never",
                "touch",
                "the",
                "public",
                "API",
                "tests",
                "tests.",
                "phase",
                "2",
                "3",
                "always",
                "run",
                "cargo",
                "fmt",
                "Always",
                "不要",
                "提交",
                "⏎",
                "\n",
                "(Bash, 2026-02-12 20:58)",
                "(the user's # note)",
                "",
            ]);
            prop::collection::vec(word, 0..9).prop_map(|w| w.join(" "))
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]
            #[test]
            fn on_rules_that_restate_one_another(rules in prop::collection::vec(rule(), 0..14)) {
                prop_assert_eq!(newest_wins(rules.clone()), newest_wins_pairwise(rules));
            }
        }
    }

    fn found(text: &str) -> Vec<String> {
        from_prompts(&[text.to_string()])
    }

    /// The rules of `text` typed after the request that set the task.
    fn found_later(text: &str) -> Vec<String> {
        from_prompts(&["Fix the failing build".to_string(), text.to_string()])
    }

    /// Rules users really typed (corpus sessions), kept in their words.
    #[test]
    fn rules_users_typed_are_found() {
        assert_eq!(
            found(
                "Can you please read @public/tokenizer.css and do a thorough code review with ultrathink and while keeping it simple and dependency free (except for transformers.js) and compilation free, see TODOs and propose a plan how to refactor it? So I'd like to keep it the same 3 simple files, but add the features from the TODOs and make the Javascript a bit neater."
            ),
            vec![
                "keeping it simple and dependency free (except for transformers.js) and compilation free",
                "So I'd like to keep it the same 3 simple files",
            ]
        );
        assert_eq!(
            found(
                "Fair enough. Can you write a balanced opinion on this approach? Keep it same overall length as the pros or cons."
            ),
            vec!["Keep it same overall length as the pros or cons."]
        );
        assert_eq!(
            found(
                "Wait, does it only run on main? I think we should run it on all push? Also, would you mind fixing the type issues? They don't look that bad."
            ),
            vec!["I think we should run it on all push?"]
        );
        assert_eq!(
            found(
                "[engine lifecycle phase 4]: please plan and work on phase 4. only phase 4. previous phases are completed. when you are done make sure to run e2e and instrumented tests on the emulator."
            ),
            vec![
                "only phase 4.",
                "make sure to run e2e and instrumented tests on the emulator."
            ]
        );
        assert_eq!(
            found(
                "ok lets deal with some technical debt. We're currently using CJS. Update the project to use typescript and ESM... we're using the last node v24, so we don't need to transpile to use typescript."
            ),
            vec!["we don't need to transpile to use typescript."]
        );
        assert_eq!(
            found_later("let's make it cross-browser"),
            vec!["let's make it cross-browser"]
        );
        assert_eq!(
            found_later("用mvn clean compile"),
            vec!["用mvn clean compile"]
        );
        assert_eq!(
            found(
                "/speec-workflow \"帮我实现灰度区域管理功能，主要字段包括区域名称，前端有公用的组件可以使用\""
            ),
            vec!["前端有公用的组件可以使用"]
        );
    }

    /// The definition: a standing instruction is not the request itself
    /// restated. A first request of one sentence is the task; a rule inside it stays.
    #[test]
    fn a_one_sentence_first_request_is_the_task_not_a_rule() {
        let task = "Use the Explore task in sub-agents with Haiku model to give me an overview of the code organization";
        assert!(found(task).is_empty(), "{:?}", found(task));
        assert_eq!(found("let's make it cross-browser"), Vec::<String>::new());
        assert_eq!(
            found("Always answer in French."),
            vec!["Always answer in French."]
        );
        assert_eq!(found_later("let's make it cross-browser").len(), 1);
        assert_eq!(
            from_prompts(&[
                "Fix the login page".to_string(),
                "Always use thiserror for the new error variants.".to_string()
            ]),
            vec!["Always use thiserror for the new error variants."]
        );
    }

    /// Sentences that only look like rules (corpus sessions): opinions, remarks,
    /// dismissals, questions, stories, one-off requests.
    #[test]
    fn opinions_remarks_and_dismissals_are_not_rules() {
        for text in [
            "Never mind! But I'd like to ask you to add a `<details>` element with the title \"Implementation details\".",
            "They don't look that bad.",
            "I actually don't like much this idea, and I somewhat struggled with it in the clmail project.",
            "I very much like this idea, and I used it already with some success in the clmail project.",
            "Wait, does it only run on main?",
            "i think we just never ran the tests on physical hardware. probably race condition, physical hardware tends to be a lot faster than the emulator, right?",
            "I don't think we need to loop through all items, the group names should match the filters?",
            "oh, I didn't find those cross-session navigation links helpful",
            "Node v24 no longer requires the --experimental-strip-types (enabled by default)... please update package.json scripts.",
            "区域数据表格不需要操作那一列",
            "keep going",
            "Please fix these lint errors",
        ] {
            assert!(found(text).is_empty(), "{text:?}: {:?}", found(text));
        }
    }

    #[test]
    fn words_given_with_a_refusal_are_rules_of_any_verb() {
        assert_eq!(from_words("use pnpm"), vec!["use pnpm"]);
        assert_eq!(
            from_words(
                "We need to find a cleaner way to reinstall without manually going hunting for cached files. Does this doc page help?\nIt is strongly recommended never to mutate a tool environment manually."
            ),
            vec![
                "We need to find a cleaner way to reinstall without manually going hunting for cached files."
            ]
        );
        assert_eq!(
            from_words(
                "I have both Node and Python, but I don't want to make it only work for me or make assumptions about people's env. Would there be a cross-platform solution?"
            ),
            vec![
                "I have both Node and Python, but I don't want to make it only work for me or make assumptions about people's env."
            ]
        );
    }

    #[test]
    fn only_the_newest_rules_of_a_long_segment_are_compared() {
        let requests: Vec<String> = (0..300)
            .map(|i| format!("Fix parser {i}. Never touch the generated file gen{i}.rs."))
            .collect();
        let rules = from_prompts(&requests);
        assert_eq!(rules.len(), COMPARED);
        assert_eq!(rules[0], "Never touch the generated file gen100.rs.");
        assert_eq!(
            rules.last().map(String::as_str),
            Some("Never touch the generated file gen299.rs.")
        );
    }

    #[test]
    fn the_newest_wording_of_a_rule_wins() {
        assert_eq!(
            newest_wins(vec![
                "用mvn clean compile (Bash, 2025-07-31 16:19)".into(),
                "用mvn clean compile".into()
            ]),
            vec!["用mvn clean compile"]
        );
        assert_eq!(
            newest_wins(vec![
                "Keep it same overall length as the pros or cons.".into(),
                "use pnpm".into(),
                "keep it the same overall length as the pros and cons".into(),
            ]),
            vec![
                "use pnpm",
                "keep it the same overall length as the pros and cons"
            ]
        );
    }
}
