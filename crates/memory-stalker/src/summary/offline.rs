//! The deterministic summary written when no model is configured or reachable
//! (docs/design.md §5.9): extractive, built only from what the transcript says.

use super::{HEADLINE_CHARS, Summary};
use crate::lang::Lang;
use crate::transcript::{Extraction, Stop, Transcript};
use crate::untrusted;

const MAX_FOLLOW_UPS: usize = 8;
const SENTENCE_CHARS: usize = 240;
/// Longest sentence taken as a preference: a longer one is a task description.
const PREFERENCE_CHARS: usize = 200;

/// Words that mark a decision in the assistant's text.
const DECISION_CUES: [&str; 10] = [
    "decided",
    "i chose",
    "we chose",
    "opted",
    "went with",
    "settled on",
    "决定",
    "选择了",
    "采用了",
    "改用",
];
/// Words that say an approach did not work.
const FAILURE_CUES: [&str; 9] = [
    "approach failed",
    "attempt failed",
    " failed:",
    "that failed",
    "this failed",
    "failed because",
    "didn't work",
    "did not work",
    "不可行",
];
/// Words that mark a lasting preference or constraint in what the user typed.
const PREFERENCE_CUES: [&str; 15] = [
    "must",
    "don't",
    "dont",
    "do not",
    "doesn't need",
    "no need to",
    "avoid",
    "prefer",
    "make sure",
    "instead of",
    "must not",
    "should not",
    "shouldn't",
    "from now on",
    "keep the public",
];
/// The same for Chinese (no word boundaries).
const PREFERENCE_CUES_ZH: [&str; 8] = [
    "不要",
    "总是",
    "始终",
    "务必",
    "请使用",
    "禁止",
    "不需要",
    "不用",
];
/// Lines that open a list of what is left to do in a final reply.
const FOLLOW_UP_HEADINGS: [&str; 14] = [
    "next step",
    "next up",
    "remaining",
    "still to do",
    "still needed",
    "not yet done",
    "todo",
    "to do",
    "follow-up",
    "follow up",
    "open items",
    "下一步",
    "后续",
    "待办",
];
/// How an offer or a question to the user starts.
const OFFERS: [&str; 12] = [
    "would you like",
    "shall i",
    "should i",
    "do you want",
    "want me to",
    "let me know if",
    "if you'd like",
    "if you want",
    "i can also",
    "ready to",
    "ready for",
    "需要我",
];
/// How narration of the assistant's own next move starts: never a follow-up.
const NARRATION: [&str; 14] = [
    "let me",
    "now i",
    "now let",
    "i'll",
    "i will",
    "i'm going to",
    "let's",
    "first,",
    "next, i",
    "next i'll",
    "perfect",
    "great",
    "现在",
    "让我",
];

/// Builds the offline summary of the segment `t` was read for.
pub fn summarize(t: &Transcript, ex: &Extraction, lang: Lang) -> Summary {
    let mut requests = t.segment_prompts();
    if requests.is_empty() {
        requests.extend(ex.last_prompt.as_ref().map(|p| p.text.clone()));
    }

    let mut task_summary = Vec::new();
    // The request this thread is about, when the segment holds only its continuations.
    if let Some(r) = &ex.request
        && !requests.contains(&r.text)
    {
        let r = untrusted::line(&r.text, SENTENCE_CHARS);
        task_summary.push(match lang {
            Lang::En => format!("Request being carried on: {r}"),
            Lang::Zh => format!("正在继续的请求：{r}"),
        });
    }
    // The earlier requests are listed once, under Session so far.
    let skipped = requests.len().saturating_sub(1);
    if skipped > 0 {
        task_summary.push(match lang {
            Lang::En if skipped == 1 => {
                "(1 earlier request in this segment: see Session so far)".to_string()
            }
            Lang::En => format!("({skipped} earlier requests in this segment: see Session so far)"),
            Lang::Zh => format!("（本段较早的 {skipped} 个请求见“会话至今”）"),
        });
    }
    for r in &requests[skipped..] {
        let r = untrusted::line(r, SENTENCE_CHARS);
        task_summary.push(match lang {
            Lang::En => format!("User asked: {r}"),
            Lang::Zh => format!("用户请求：{r}"),
        });
    }
    if let Some(conclusion) = ex
        .reply
        .as_ref()
        .and_then(|r| r.closing())
        .and_then(first_paragraph)
    {
        let c = untrusted::line(&conclusion, 400);
        task_summary.push(match lang {
            Lang::En => format!("Last assistant conclusion: {c}"),
            Lang::Zh => format!("助手最后的结论：{c}"),
        });
    }
    if let Some(stop) = &ex.stopped {
        task_summary.push(stop_line(stop, lang));
    }

    Summary {
        headline: headline(ex, &requests, lang),
        task_summary,
        // Listed once each: the files changed under Files, the user's rules and the
        // decisions under Session so far (see `super::facts`), which outlives the
        // compactions that follow.
        code_changes: Vec::new(),
        key_decisions: Vec::new(),
        user_preferences: Vec::new(),
        follow_ups: follow_ups(ex),
    }
}

/// The rules the user typed in `requests` (newest last, without repeats).
pub(crate) fn constraints(requests: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in requests.iter().flat_map(|r| typed_sentences(r)) {
        if is_preference(&s) && !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// Decisions: the plan `ex` found approved, if any, then `stated` (the assistant's, from
/// [`stated_decisions`]), which are found without the extraction. A stated one that
/// repeats the plan's line is left out.
pub(crate) fn with_plan(ex: &Extraction, stated: Vec<String>, lang: Lang) -> Vec<String> {
    let Some(title) = ex
        .plan
        .as_ref()
        .map(|p| p.title())
        .filter(|t| !t.is_empty())
    else {
        return stated;
    };
    let plan = match lang {
        Lang::En => format!("Plan approved: {}", untrusted::line(title, SENTENCE_CHARS)),
        Lang::Zh => format!("已批准的计划：{}", untrusted::line(title, SENTENCE_CHARS)),
    };
    let mut out = Vec::with_capacity(stated.len() + 1);
    out.extend(stated.into_iter().filter(|s| *s != plan));
    out.insert(0, plan);
    out
}

/// The sentences of the assistant that state a choice (with their reasons), oldest
/// first, without repeats.
pub(crate) fn stated_decisions(assistant_texts: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    // A sentence with a cue is in a text with it: most texts need no splitting.
    for text in assistant_texts
        .iter()
        .filter(|t| has_cue(t, &DECISION_CUES))
    {
        for s in sentences(text) {
            let lower = s.to_lowercase();
            if !is_narration(&lower)
                && DECISION_CUES.iter().any(|c| lower.contains(c))
                && !out.contains(&s)
            {
                out.push(s);
            }
        }
    }
    out
}

/// Sentences of the assistant that say an approach failed ("The Redis approach failed:
/// …", "That failed: …"), oldest first.
pub(crate) fn failed_approaches(assistant_texts: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for text in assistant_texts.iter().filter(|t| has_cue(t, &FAILURE_CUES)) {
        for s in sentences(text) {
            let lower = s.to_lowercase();
            // "3 tests failed: …" reports a run, not an approach.
            let counts = lower.starts_with(|c: char| c.is_ascii_digit());
            if !counts
                && !is_narration(&lower)
                && FAILURE_CUES.iter().any(|c| lower.contains(c))
                && !out.contains(&s)
            {
                out.push(s);
            }
        }
    }
    out
}

/// Whether `text`, lower-cased, contains one of `cues` (lower-case ASCII).
fn has_cue(text: &str, cues: &[&str]) -> bool {
    let lower = text.to_ascii_lowercase();
    cues.iter().any(|c| lower.contains(c))
}

/// What the session is about, in one line: Claude Code's own title of it, else the
/// first request of this thread (the segment) that names a task, else the request its
/// continuations carry on; never what the assistant claimed.
pub fn headline(ex: &Extraction, requests: &[String], lang: Lang) -> String {
    let substantive = |r: &&str| !crate::transcript::is_continuation(r);
    // A bare command (`/init`) says less than the first request in words.
    let bare_command = |r: &&str| r.starts_with('/') && !r.trim().contains(char::is_whitespace);
    let first = requests
        .iter()
        .map(String::as_str)
        .filter(substantive)
        .find(|r| !bare_command(r))
        .or_else(|| requests.iter().map(String::as_str).find(substantive))
        .or(ex.request.as_ref().map(|r| r.text.as_str()));
    ex.title
        .as_deref()
        .or(first)
        .or(ex.last_prompt.as_ref().map(|p| p.text.as_str()))
        .map(|h| untrusted::line(without_greeting(h), HEADLINE_CHARS))
        .or_else(|| {
            ex.plan
                .as_ref()
                .map(|p| p.title())
                .filter(|t| !t.is_empty())
                .map(|t| untrusted::line(t, HEADLINE_CHARS))
        })
        .unwrap_or_else(|| match lang {
            Lang::En => "Session without a user request in this segment".into(),
            Lang::Zh => "本段会话没有用户请求".into(),
        })
}

/// A request without the greeting it opens with ("Hey Claude, …"), for a headline.
fn without_greeting(text: &str) -> &str {
    let t = text.trim_start();
    let lower = t.to_lowercase();
    for greeting in [
        "hey claude",
        "hi claude",
        "hello claude",
        "hey",
        "hi",
        "hello",
    ] {
        if lower.starts_with(greeting)
            && let Some(rest) = t.get(greeting.len()..)
            && let Some(rest) = rest.strip_prefix([',', '!', '.', ':'])
            && !rest.trim().is_empty()
        {
            return rest.trim_start();
        }
    }
    t
}

/// How the user stopped the last turn, as a sentence.
pub fn stop_line(stop: &Stop, lang: Lang) -> String {
    match (stop, lang) {
        (Stop::Interrupted, Lang::En) => {
            "The user interrupted the last turn; the work it was doing was stopped, not finished."
                .into()
        }
        (Stop::Interrupted, Lang::Zh) => "用户中断了最后一轮：其中的工作被叫停，并未完成。".into(),
        (Stop::Rejected { tool, summary }, Lang::En) => format!(
            "The user refused the last tool call ({}) and the turn stopped there.",
            untrusted::line(format!("{tool} {summary}").trim(), 160)
        ),
        (Stop::Rejected { tool, summary }, Lang::Zh) => format!(
            "用户拒绝了最后一次工具调用（{}），这一轮就此停止。",
            untrusted::line(format!("{tool} {summary}").trim(), 160)
        ),
    }
}

/// Open tasks, then what the final reply leaves open: its questions and offers to the
/// user, and the items it lists as remaining. Never the assistant's narration.
fn follow_ups(ex: &Extraction) -> Vec<String> {
    let mut out: Vec<String> = ex
        .todos
        .iter()
        .flat_map(|t| t.items.iter())
        .filter(|t| t.is_open())
        .map(|t| untrusted::line(&t.content, SENTENCE_CHARS))
        .collect();
    let tasks = out.len();
    let closing = ex.reply.as_ref().and_then(|r| r.closing()).unwrap_or("");
    let mut under_heading = false;
    for line in prose(closing).lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let item = strip_ordinal(
            trimmed
                .trim_start_matches(['-', '*', '•', '>', '#'])
                .trim_start(),
        );
        let is_item = trimmed.starts_with(['-', '*', '•']) || item.len() < trimmed.len() - 1;
        let lower = item.to_lowercase();
        let lower = lower.trim_start_matches("**");
        let heading = FOLLOW_UP_HEADINGS.iter().any(|h| lower.starts_with(h));
        if heading {
            under_heading = true;
            // "Remaining: the README section" carries its item on the same line.
            if let Some((_, rest)) = item.split_once([':', '：'])
                && rest.trim().trim_matches('*').trim().chars().count() > 3
            {
                push_follow_up(&mut out, item, tasks);
            }
            continue;
        }
        if under_heading && is_item {
            push_follow_up(&mut out, item, tasks);
            continue;
        }
        under_heading = false;
        for s in sentences(item) {
            let l = s.to_lowercase();
            if is_narration(&l) {
                continue;
            }
            // "Would you like me to:" only introduces the options listed after it.
            let question =
                (s.ends_with('?') || s.ends_with('？')) && s.split_whitespace().count() > 3;
            if !s.ends_with(':') && (question || OFFERS.iter().any(|o| l.starts_with(o))) {
                push_follow_up(&mut out, &s, tasks);
            }
        }
    }
    out.truncate(tasks.max(MAX_FOLLOW_UPS));
    out
}

fn push_follow_up(out: &mut Vec<String>, item: &str, tasks: usize) {
    let item = untrusted::line(item.trim_matches('*').trim(), SENTENCE_CHARS);
    let lower = item.to_lowercase();
    if item.chars().count() < 4 || is_narration(&lower) {
        return;
    }
    // An item the task list already holds is not said twice (one that only names a
    // task among other things still says something new).
    let known = out[..tasks]
        .iter()
        .any(|t| crate::text::mentions(&t.to_lowercase(), &item));
    if !known && !out.contains(&item) {
        out.push(item);
    }
}

/// Whether a (lower-cased) sentence narrates the assistant's own next move.
fn is_narration(lower: &str) -> bool {
    let l = lower.trim_start_matches(['*', ' ']);
    NARRATION.iter().any(|n| l.starts_with(n))
}

/// Whether a sentence the user typed states a lasting preference or constraint.
fn is_preference(sentence: &str) -> bool {
    let s = sentence.trim();
    if s.chars().count() > PREFERENCE_CHARS || s.ends_with('?') || s.ends_with('？') {
        return false;
    }
    let lower = s.to_lowercase();
    if ["hi ", "hi,", "hey", "hello", "thanks", "thank you"]
        .iter()
        .any(|g| lower.starts_with(g))
    {
        return false;
    }
    // "Always"/"never" make a rule where they open a clause ("never touch the API",
    // "…, and never hard-code them"); after other words they mostly tell a story ("we
    // just never ran the tests"). "Only" makes one where it opens the sentence.
    let words: Vec<&str> = lower.split_whitespace().collect();
    let lead = lower.starts_with("only ")
        || words.iter().enumerate().any(|(i, w)| {
            matches!(
                w.trim_matches(|c: char| !c.is_alphanumeric()),
                "always" | "never"
            ) && (i == 0
                || words[i - 1].ends_with([',', ':', ';'])
                || matches!(
                    words[i - 1],
                    "and" | "but" | "please" | "so" | "also" | "then"
                ))
        });
    lead || PREFERENCE_CUES.iter().any(|c| contains_word(&lower, c))
        || PREFERENCE_CUES_ZH.iter().any(|c| lower.contains(c))
}

/// Whether `cue` occurs in `text` as a whole word or phrase.
fn contains_word(text: &str, cue: &str) -> bool {
    text.match_indices(cue).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + cue.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The sentences of a prompt the user typed themselves: fenced blocks, quoted lines
/// and paragraphs that look pasted (logs, stack traces, command output, documentation
/// longer than a message) are left out.
fn typed_sentences(prompt: &str) -> Vec<String> {
    let prose = prose(prompt);
    let paras: Vec<&str> = prose
        .split("\n\n")
        .filter(|p| !p.trim().is_empty())
        .collect();
    // In a long prompt the user typed the framing (first and last paragraphs) and
    // pasted the middle: documentation, a log, an earlier answer.
    let typed: Vec<&str> = if prompt.chars().count() > 1_500 && paras.len() > 1 {
        let last = paras[paras.len() - 1];
        let mut framing = vec![paras[0]];
        framing.extend((last.chars().count() <= 300).then_some(last));
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
    let lines: Vec<&str> = para.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() > 12 || para.chars().count() > 1_500 {
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

/// The first paragraph of prose (outside code blocks) of a text, headings left out.
fn first_paragraph(text: &str) -> Option<String> {
    prose(text)
        .split("\n\n")
        .map(|p| {
            p.lines()
                .filter(|l| !l.trim_start().starts_with('#'))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .map(|p| p.trim().to_string())
        .find(|p| !p.is_empty())
}

/// The text with fenced code blocks removed.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if !in_code {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Splits prose into sentences (lines, then sentence punctuation), list markers removed.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(text).lines() {
        let line = line
            .trim()
            .trim_start_matches(['-', '*', '•', '>', '#'])
            .trim_start();
        let line = strip_ordinal(line);
        let mut start = 0;
        let mut chars = line.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let ends = matches!(c, '。' | '！' | '？')
                || (matches!(c, '.' | '!' | '?')
                    && chars.peek().is_none_or(|(_, n)| n.is_whitespace()));
            if ends {
                let end = i + c.len_utf8();
                push_sentence(&mut out, &line[start..end]);
                start = end;
            }
        }
        push_sentence(&mut out, &line[start..]);
    }
    out
}

fn strip_ordinal(line: &str) -> &str {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && line[digits..].starts_with(". ") {
        &line[digits + 2..]
    } else {
        line
    }
}

fn push_sentence(out: &mut Vec<String>, s: &str) {
    let s = s.trim();
    // Wide (CJK) characters carry about two letters' worth of meaning each.
    let weight: usize = s.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum();
    if weight >= 8 {
        out.push(untrusted::line(s, SENTENCE_CHARS));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan's line comes first and is not repeated, as when it was found first.
    #[test]
    fn the_approved_plan_leads_the_decisions_once() {
        let mut ex = Extraction::empty();
        let stated = vec![
            "We chose SQLite because it needs no server.".to_string(),
            "Plan approved: Cache the invoice totals".to_string(),
            "I decided to keep the API.".to_string(),
        ];
        assert_eq!(with_plan(&ex, stated.clone(), Lang::En), stated);
        ex.plan = Some(crate::transcript::Plan {
            source: "input".into(),
            text: "# Cache the invoice totals\n\n1. Add a cache".into(),
        });
        assert_eq!(
            with_plan(&ex, stated, Lang::En),
            vec![
                "Plan approved: Cache the invoice totals",
                "We chose SQLite because it needs no server.",
                "I decided to keep the API.",
            ]
        );
    }

    #[test]
    fn sentences_skip_code_and_list_markers() {
        let s = sentences(
            "Intro line here.\n```\nlet todo = 1;\n```\n- Next we add tests. Then docs!\n2. Remaining: wire CI。下一步：发布。",
        );
        assert_eq!(
            s,
            vec![
                "Intro line here.",
                "Next we add tests.",
                "Then docs!",
                "Remaining: wire CI。",
                "下一步：发布。"
            ]
        );
    }

    #[test]
    fn first_paragraph_ignores_code() {
        assert_eq!(
            first_paragraph("## Summary\n```\ncode\n```\nDone: all green.\n\nThen more.\n")
                .as_deref(),
            Some("Done: all green.")
        );
    }
}
