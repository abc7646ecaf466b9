//! The deterministic summary written when no model is configured or reachable
//! (docs/design.md §5.9): extractive, built only from what the transcript says.

use super::Summary;
use super::markdown::{item_text, strip_ordinal, without_marker};
use crate::lang::Lang;
use crate::summary::signals::{PlanOutcome, Signals};
use crate::transcript::{Extraction, Stop, Transcript};
use crate::untrusted;

const MAX_FOLLOW_UPS: usize = 8;
const SENTENCE_CHARS: usize = 240;

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
    summarize_with(t, ex, &t.signals(), None, lang)
}

/// [`summarize`], with the segment's `signals` and the headline of the session's
/// previous memory, which the headline keeps unless the work changed.
pub fn summarize_with(
    t: &Transcript,
    ex: &Extraction,
    signals: &Signals,
    previous: Option<&str>,
    lang: Lang,
) -> Summary {
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
        .and_then(conclusion)
    {
        // Cut at a word's end, as the headline is: "constructing th…" reads as a typo.
        let c = untrusted::line(&crate::text::clip_words(&conclusion, 400), 400);
        task_summary.push(match lang {
            Lang::En => format!("Last assistant conclusion: {c}"),
            Lang::Zh => format!("助手最后的结论：{c}"),
        });
    }
    if let Some(stop) = &ex.stopped {
        task_summary.push(stop_line(stop, lang));
    }

    let mut sources = super::headline::Sources::of(ex, &requests);
    sources.previous = previous;
    sources.plans = &signals.plans;
    sources.bash = &signals.bash;
    sources.refusals = &signals.refusals;
    sources.issues = &signals.issues;
    sources.first_tasks = ex.todos.as_ref();
    sources.compaction_summary = t.compaction_summary();
    Summary {
        headline: super::headline::headline(&sources, lang),
        task_summary,
        // Listed once each: the files changed under Files, the user's rules and the
        // decisions under Session so far (see `super::facts`), which outlives the
        // compactions that follow.
        code_changes: Vec::new(),
        key_decisions: Vec::new(),
        user_preferences: Vec::new(),
        follow_ups: follow_ups(ex),
        // Session so far lists them.
        failed_approaches: Vec::new(),
    }
}

/// Decisions: the plan `ex` found approved, when the segment's signals have no
/// approval of it (a plan approved before the segment), then `stated` (the assistant's,
/// from [`stated_decisions`]), which are found without the extraction. A stated one that
/// repeats the plan's line is left out, and a plan without a title (its file unread) is
/// none.
pub(crate) fn with_plan(
    ex: &Extraction,
    stated: Vec<String>,
    signalled: &[PlanOutcome],
    lang: Lang,
) -> Vec<String> {
    let title = ex
        .plan
        .as_ref()
        .and_then(|p| crate::summary::signals::plan_title(&p.text))
        .filter(|t| !t.is_empty() && !t.starts_with("(plan kept by Claude Code"));
    let title = title.as_deref();
    let known = |t: &str| {
        signalled.iter().any(|p| match p {
            PlanOutcome::Approved { title, .. } => title == t || t.ends_with(title.as_str()),
            PlanOutcome::Refused { .. } => false,
        })
    };
    let Some(title) = title.filter(|t| !known(t)) else {
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

/// The sentences of the assistant that state a choice (with their reasons), and those
/// that say an approach failed ("The Redis approach failed: …", "That failed: …"), each
/// oldest first, without repeats. A text is lower-cased once for both kinds' cues, and
/// split into sentences once when either kind's cue is in it.
pub(crate) fn stated_decisions_and_failures(
    assistant_texts: &[&str],
) -> (Vec<String>, Vec<String>) {
    let (mut decisions, mut failures) = (Vec::new(), Vec::new());
    // Each cue's searcher made once, not once for every text (most texts have no cue).
    static DECIDES: std::sync::LazyLock<Vec<memchr::memmem::Finder<'static>>> =
        std::sync::LazyLock::new(|| finders(DECISION_CUES.iter().chain(&REASONS)));
    static FAILS: std::sync::LazyLock<Vec<memchr::memmem::Finder<'static>>> =
        std::sync::LazyLock::new(|| finders(FAILURE_CUES.iter()));
    let has = |cues: &[memchr::memmem::Finder], lower: &str| {
        cues.iter().any(|c| c.find(lower.as_bytes()).is_some())
    };
    let mut raw_lower = String::new();
    for text in assistant_texts {
        let lower = text.to_ascii_lowercase();
        // A sentence with a cue is in a text with it: most texts need no splitting.
        let decides = has(&DECIDES, &lower);
        let fails = has(&FAILS, &lower);
        if !decides && !fails {
            continue;
        }
        each_sentence(text, |raw| {
            // Most sentences of a text with a cue have none. A sentence of printable
            // ASCII is made a line by cutting it, which adds no cue: without one as it
            // stands, it is neither, and is not made a line at all.
            if raw.bytes().all(|b| (0x20..0x7f).contains(&b)) {
                raw_lower.clear();
                raw_lower.push_str(raw);
                raw_lower.make_ascii_lowercase();
                if !has(&DECIDES, &raw_lower) && !has(&FAILS, &raw_lower) {
                    return;
                }
            }
            let s = untrusted::line(raw, SENTENCE_CHARS);
            let lower = crate::text::lower(&s);
            let narration = is_narration(&lower);
            if decides {
                let cued = !narration && DECISION_CUES.iter().any(|c| lower.contains(c));
                if (cued || reasoned_choice(&lower)) && !decisions.contains(&s) {
                    decisions.push(s.clone());
                }
            }
            // "3 tests failed: …" reports a run, not an approach.
            let counts = lower.starts_with(|c: char| c.is_ascii_digit());
            if fails
                && !counts
                && !narration
                && FAILURE_CUES.iter().any(|c| lower.contains(c))
                && !failures.contains(&s)
            {
                failures.push(s);
            }
        });
    }
    (decisions, failures)
}

/// A searcher for each of `cues`.
fn finders(
    cues: impl Iterator<Item = &'static &'static str>,
) -> Vec<memchr::memmem::Finder<'static>> {
    cues.map(|c| memchr::memmem::Finder::new(c.as_bytes()))
        .collect()
}

/// Words that give the reason of a choice.
const REASONS: [&str; 2] = [" because ", " since "];

/// Whether a (lower-cased) sentence announces what the assistant will do and why ("I'll
/// sign the webhooks with HMAC-SHA256, since the receivers already verify…"): a choice
/// with its reason, not narration of a next step.
fn reasoned_choice(lower: &str) -> bool {
    let l = lower.trim_start_matches(['*', ' ']);
    let l = l
        .strip_prefix("so, ")
        .or_else(|| l.strip_prefix("so "))
        .unwrap_or(l);
    let rest = [
        "i'll ",
        "i will ",
        "we'll ",
        "we will ",
        "i'm going to ",
        "i am going to ",
    ]
    .iter()
    .find_map(|p| l.strip_prefix(p));
    rest.is_some_and(|rest| !is_own_process(rest))
        && REASONS.iter().any(|r| l.contains(r))
        && !l.contains('?')
}

/// Whether what the assistant says it will do is its own way of working (entering plan
/// mode, keeping a task list, looking around first, waiting for what it started), not a
/// choice about the work.
fn is_own_process(rest: &str) -> bool {
    let rest = rest.trim_start_matches("now ").trim_start_matches("first ");
    [
        "enter plan mode",
        "use plan mode",
        "create a plan",
        "make a plan",
        "create a todo",
        "create a task list",
        "use the todo",
        "track ",
        "start by ",
        "begin by ",
        "check ",
        "look ",
        "read ",
        "explore ",
        "investigate ",
        "examine ",
        "wait ",
    ]
    .iter()
    .any(|p| rest.starts_with(p))
}

/// What the session is about, in one line, from what the extraction alone gives (see
/// [`super::headline`], which [`summarize_with`] gives the session's signals and
/// previous headline too).
pub fn headline(ex: &Extraction, requests: &[String], lang: Lang) -> String {
    super::headline::headline(&super::headline::Sources::of(ex, requests), lang)
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
        let unmarked = without_marker(trimmed);
        let item = strip_ordinal(unmarked);
        let is_item = (unmarked.len() < trimmed.len() && !trimmed.starts_with(['#', '>']))
            || item.len() < unmarked.len();
        let lower = item.to_lowercase();
        let lower = lower.trim_start_matches("**");
        let heading = is_follow_up_heading(lower);
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

/// Whether a (lower-cased) line opens a list of what is left: a heading word as a whole
/// word, plural or not ("Next steps:", "TODO"), never the start of another word (the
/// tool list's "**TodoWrite** - Manage task lists" is no heading, and the tools after
/// it no follow-ups). Chinese headings have no word boundary to look for.
fn is_follow_up_heading(lower: &str) -> bool {
    FOLLOW_UP_HEADINGS.iter().any(|h| {
        lower.strip_prefix(h).is_some_and(|rest| {
            let rest = rest.strip_prefix('s').unwrap_or(rest);
            !h.is_ascii() || !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')
        })
    })
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

/// The conclusion of a closing block: its first paragraph of prose (outside code
/// blocks, headings left out) that is not narration ("Let me…"), or, when that
/// paragraph is a lead-in ending in ":" ("Both type checking issues have been
/// resolved:"), what it introduces, its list items joined — never the lead-in alone.
fn conclusion(text: &str) -> Option<String> {
    let paragraphs: Vec<String> = prose(text)
        .split("\n\n")
        .map(|p| {
            p.lines()
                .filter(|l| !l.trim_start().starts_with('#'))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect();
    let lead_in = |p: &str| p.lines().next().is_some_and(ends_in_colon) || ends_in_colon(p);
    let at = paragraphs
        .iter()
        .position(|p| lead_in(p) || !is_narration(&p.to_lowercase()))?;
    let first = &paragraphs[at];
    if !lead_in(first) {
        return Some(list_items(first));
    }
    // What the lead-in introduces: the lines after it, else the next paragraph; what
    // the paragraph says before its lead-in stays.
    let (before, rest) = match first.split_once('\n') {
        Some((l, rest)) if ends_in_colon(l) && !rest.trim().is_empty() => {
            (String::new(), rest.to_string())
        }
        _ => {
            let said: Vec<String> = sentences(first)
                .into_iter()
                .filter(|s| !ends_in_colon(s) && !is_narration(&s.to_lowercase()))
                .collect();
            // A list whose items are apart ("1. …\n\n2. …") is several paragraphs; a
            // list in groups has a heading line over each ("**Completed tasks:**").
            let run: Vec<&str> = paragraphs[at + 1..]
                .iter()
                .enumerate()
                .take_while(|(i, p)| {
                    is_list(p)
                        || (is_heading(p) && paragraphs.get(at + 2 + i).is_some_and(|n| is_list(n)))
                })
                .map(|(_, p)| p.as_str())
                .collect();
            let rest = if run.is_empty() {
                paragraphs.get(at + 1).cloned().unwrap_or_default()
            } else {
                run.join("\n")
            };
            (said.join(" "), rest)
        }
    };
    let items = list_items(&rest);
    let text = [before, items]
        .into_iter()
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    (!text.is_empty() && !ends_in_colon(&text)).then_some(text)
}

/// Whether a line ends in a colon, bold or not ("Done:", "**Completed tasks:**"): a
/// lead-in.
fn ends_in_colon(line: &str) -> bool {
    line.trim_end()
        .trim_end_matches(['*', '_'])
        .ends_with([':', '：'])
}

/// Whether a line is an item of a list (`- a`, `* a`, `1. a`).
fn is_item(line: &str) -> bool {
    let t = line.trim_start();
    // A marker and a space: `**bold**` opens no item.
    ["- ", "* ", "• "].iter().any(|m| t.starts_with(m)) || strip_ordinal(t).len() < t.len()
}

/// Whether a paragraph is a list: it starts with an item or a table row, or with a
/// heading line over items.
fn is_list(paragraph: &str) -> bool {
    let mut lines = paragraph.lines();
    match lines.next() {
        Some(l) if is_item(l) || is_table_row(l) => true,
        Some(l) if ends_in_colon(l) => lines.next().is_some_and(|n| is_item(n) || is_table_row(n)),
        _ => false,
    }
}

/// A paragraph on one line: a list's items joined by "; ", its markers left out.
fn list_items(paragraph: &str) -> String {
    let lines: Vec<&str> = paragraph
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let mut out = String::new();
    let mut prev: Option<Piece> = None;
    for (i, line) in lines.iter().enumerate() {
        let next = lines.get(i + 1).copied();
        let (text, piece) = if is_table_row(line) {
            // A table's rule, and its header row over it, name no finding.
            if is_table_rule(line) || next.is_some_and(is_table_rule) {
                continue;
            }
            (table_cells(line), Piece::Item)
        } else if is_item(line) {
            (item_text(line).to_string(), Piece::Item)
        } else if is_heading(line) && next.is_some_and(|n| is_item(n) || is_table_row(n)) {
            (
                line.trim_matches(['*', '_']).trim().to_string(),
                Piece::Heading,
            )
        } else {
            (without_marker(line).to_string(), Piece::Prose)
        };
        if text.is_empty() {
            continue;
        }
        if let Some(p) = prev {
            // Items apart by "; ", but an item that ends in a colon leads into the next.
            let apart = p == Piece::Item && piece != Piece::Prose && !out.ends_with([':', '：']);
            out.push_str(if apart { "; " } else { " " });
        }
        out.push_str(&text);
        prev = Some(piece);
    }
    out
}

/// What a line of a closing block is to [`list_items`].
#[derive(Clone, Copy, PartialEq)]
enum Piece {
    Item,
    Heading,
    Prose,
}

/// Whether a one-line paragraph or line is a heading over what follows it ("Done:",
/// "**Completed tasks:**"), not an item itself.
fn is_heading(p: &str) -> bool {
    !p.contains('\n') && !is_item(p) && ends_in_colon(p)
}

/// Whether a line is a row of a Markdown table (`| a | b |`).
fn is_table_row(line: &str) -> bool {
    let t = line.trim();
    t.len() > 1 && t.starts_with('|') && t.ends_with('|')
}

/// Whether a line is a table's rule (`|---|:--:|`).
fn is_table_rule(line: &str) -> bool {
    is_table_row(line) && line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// A table row's cells, on one line: `3bb8701 · spotter-fum.1 · Enriched …`.
fn table_cells(row: &str) -> String {
    row.trim()
        .trim_matches('|')
        .split('|')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The text with fenced code blocks removed.
pub(crate) fn prose(text: &str) -> String {
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
pub(crate) fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_sentence(text, |s| out.push(untrusted::line(s, SENTENCE_CHARS)));
    out
}

/// Calls `f` with each sentence [`sentences`] keeps, as it stands in the text (trimmed,
/// before it is made one safe line): a caller that keeps few of them need not make the
/// rest.
fn each_sentence(text: &str, mut f: impl FnMut(&str)) {
    for line in prose(text).lines() {
        let line = without_marker(line.trim());
        for sentence in crate::text::line_sentences(strip_ordinal(line)) {
            let s = sentence.trim();
            // Wide (CJK) characters carry about two letters' worth of meaning each.
            let weight: usize = s.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum();
            if weight >= 8 {
                f(s);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `stated_decisions_and_failures` as it was, every sentence of a text with a cue
    /// made a line before it is looked at: the reference for the one that skips those
    /// without a cue.
    fn stated_every_sentence(texts: &[&str]) -> (Vec<String>, Vec<String>) {
        let (mut decisions, mut failures) = (Vec::new(), Vec::new());
        for text in texts {
            let text_lower = text.to_ascii_lowercase();
            let decides = DECISION_CUES
                .iter()
                .chain(&REASONS)
                .any(|c| text_lower.contains(c));
            let fails = FAILURE_CUES.iter().any(|c| text_lower.contains(c));
            for s in sentences(text) {
                let lower = s.to_lowercase();
                let narration = is_narration(&lower);
                let cued = !narration && DECISION_CUES.iter().any(|c| lower.contains(c));
                if decides && (cued || reasoned_choice(&lower)) && !decisions.contains(&s) {
                    decisions.push(s.clone());
                }
                let counts = lower.starts_with(|c: char| c.is_ascii_digit());
                if fails
                    && !counts
                    && !narration
                    && FAILURE_CUES.iter().any(|c| lower.contains(c))
                    && !failures.contains(&s)
                {
                    failures.push(s);
                }
            }
        }
        (decisions, failures)
    }

    mod stated_facts_skip_only_sentences_without_a_cue {
        use super::*;

        #[test]
        fn a_cue_made_whole_by_the_line_is_found() {
            // The text has a cue; each later sentence has one only once made a line: a
            // tab becomes a space, a zero-width space goes.
            let texts = [
                "We decided to keep the API. We went\twith SQLite for the cache. I'll use Redis\tbecause it is there. We went with\u{200b} Postgres in the end.",
            ];
            let (decisions, _) = stated_decisions_and_failures(&texts);
            assert_eq!(decisions, stated_every_sentence(&texts).0);
            assert_eq!(decisions.len(), 4, "{decisions:?}");
        }
        use proptest::prelude::*;

        /// Words and marks that make and unmake cues: a cue split by a tab, a zero-width
        /// space or a line break, cut at the sentence's limit, in CJK.
        fn piece() -> impl Strategy<Value = &'static str> {
            prop::sample::select(vec![
                " ",
                " ",
                " ",
                " ",
                "We",
                "decided",
                "to",
                "keep",
                "it",
                "went",
                "with",
                "I'll",
                "use",
                "SQLite",
                "because",
                "since",
                "the",
                "approach",
                "failed",
                "didn't",
                "work",
                "3",
                "tests",
                " failed:",
                "Let me",
                "so",
                "决定",
                "不可行",
                "\t",
                "\u{200b}",
                "\n",
                "\r",
                ". ",
                "! ",
                "- ",
                "1. ",
                "```",
                "é",
                "⏎",
                "[ ]",
                "a-very-long-word-to-reach-the-cut-of-two-hundred-and-forty-characters-xxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            ])
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(3000))]
            #[test]
            fn on_texts_of_cue_words(
                texts in prop::collection::vec(prop::collection::vec(piece(), 0..60), 1..4),
            ) {
                let texts: Vec<String> = texts.iter().map(|t| t.concat()).collect();
                let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
                prop_assert_eq!(
                    stated_decisions_and_failures(&texts),
                    stated_every_sentence(&texts)
                );
            }
        }
    }

    /// The plan's line comes first and is not repeated, as when it was found first.
    #[test]
    fn the_approved_plan_leads_the_decisions_once() {
        let mut ex = Extraction::empty();
        let stated = vec![
            "We chose SQLite because it needs no server.".to_string(),
            "Plan approved: Cache the invoice totals".to_string(),
            "I decided to keep the API.".to_string(),
        ];
        assert_eq!(with_plan(&ex, stated.clone(), &[], Lang::En), stated);
        ex.plan = Some(crate::transcript::Plan {
            source: "input".into(),
            text: "# Cache the invoice totals\n\n1. Add a cache".into(),
        });
        assert_eq!(
            with_plan(&ex, stated.clone(), &[], Lang::En),
            vec![
                "Plan approved: Cache the invoice totals",
                "We chose SQLite because it needs no server.",
                "I decided to keep the API.",
            ]
        );
        // Approved in the segment, the plan is a signal's decision: not said twice.
        let signalled = [PlanOutcome::Approved {
            title: "Cache the invoice totals".into(),
            gist: None,
            source: Default::default(),
        }];
        assert_eq!(with_plan(&ex, stated, &signalled, Lang::En).len(), 3);
    }

    #[test]
    fn a_choice_announced_with_its_reason_is_a_decision_and_narration_is_not() {
        let texts = [
            "I'll sign the webhooks with HMAC-SHA256, since the receivers already verify Stripe-style signatures.",
            "I'll run the tests now. Let me check the config since it changed.",
            "So I'll enter plan mode because this is a substantial change.",
            "I'll start by reading the config since it changed.",
            "I'll wait for their completion notifications — the content will come back in the result field since they're instructed to return text only.",
        ];
        // How the assistant works (plan mode, reading first, waiting for the agents it
        // started) is no choice about the work.
        assert_eq!(
            stated_decisions_and_failures(&texts).0,
            vec![
                "I'll sign the webhooks with HMAC-SHA256, since the receivers already verify Stripe-style signatures.",
            ]
        );
    }

    #[test]
    fn a_list_of_tools_is_no_list_of_follow_ups() {
        let mut ex = Extraction::empty();
        let text = "Here are all the tools available to me:\n\n## Planning\n- **TodoWrite** - Manage task lists\n- **EnterPlanMode** - Transition to planning mode\n- **Skill** - Invoke skills\n\n## Next steps\n- Wire the CI job\n\nTODO: document the flag";
        ex.reply = Some(crate::transcript::Reply {
            text: text.into(),
            tool_calls: Vec::new(),
            calls_not_listed: 0,
            closing_at: Some(0),
        });
        assert_eq!(
            follow_ups(&ex),
            vec!["Wire the CI job", "TODO: document the flag"]
        );
        assert!(is_follow_up_heading("下一步计划："));
        assert!(!is_follow_up_heading("todowrite** - manage task lists"));
        assert!(!is_follow_up_heading("remainingly"));
    }

    #[test]
    fn bold_text_keeps_both_its_marks_and_list_markers_go() {
        assert_eq!(
            conclusion("**Yes, WebSearch is available** in print mode.\n").as_deref(),
            Some("**Yes, WebSearch is available** in print mode.")
        );
        assert_eq!(
            conclusion("Done:\n- **One** thing\n* two\n").as_deref(),
            Some("**One** thing; two")
        );
        assert_eq!(without_marker("### Heading"), "Heading");
        assert_eq!(without_marker("#hashtag"), "#hashtag");
        assert_eq!(
            sentences("> A quoted sentence here. **Bold** words at the end."),
            vec!["A quoted sentence here.", "**Bold** words at the end."]
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
    fn the_conclusion_is_what_a_lead_in_introduces_never_the_lead_in() {
        assert_eq!(
            conclusion("## Summary\n```\ncode\n```\nDone: all green.\n\nThen more.\n").as_deref(),
            Some("Done: all green.")
        );
        assert_eq!(
            conclusion("Perfect! Both type checking issues have been resolved:\n\n1. **Fixed** the unbound attribute\n\n2. **Fixed** the call to skip\n\nAll green.").as_deref(),
            Some("**Fixed** the unbound attribute; **Fixed** the call to skip")
        );
        assert_eq!(
            conclusion("Let me summarise.\n\nThe changes:\n- a\n- b").as_deref(),
            Some("a; b")
        );
        assert_eq!(conclusion("Here is the summary:"), None);
        assert_eq!(
            conclusion("I've added tests for the cache. The new test suite includes:\n\n- version checks\n- upgrades").as_deref(),
            Some("I've added tests for the cache. version checks; upgrades")
        );
        // A list in groups: each heading stays over its items, without its bold marks.
        assert_eq!(
            conclusion("All done. The epic is complete. Here's a summary:\n\n**Completed tasks:**\n1. **a.1** - deps\n2. **a.2** - headers\n\n**Key fix:** the span helper.").as_deref(),
            Some("All done. The epic is complete. Completed tasks: **a.1** - deps; **a.2** - headers")
        );
        assert_eq!(
            conclusion("All done. Here's a summary:\n\n**Completed tasks:**\n\n1. **a.1** - deps\n2. **a.2** - headers\n\n**Key fix:** the span helper.").as_deref(),
            Some("All done. Completed tasks: **a.1** - deps; **a.2** - headers")
        );
        assert_eq!(
            conclusion("Updated:\n\n**Stack:**\n- Next.js 15\n- React 19\n\n**Commands:**\n- `npm start` added\n\nThat's all.").as_deref(),
            Some("Stack: Next.js 15; React 19; Commands: `npm start` added")
        );
        // A table's rows, without its header and rule.
        assert_eq!(
            conclusion("All done. Here is what was committed:\n\n| Commit | Task |\n|---|:--|\n| `3bb8701` | spotter-fum.1 |\n| `b9288c2` | spotter-fum.2 |\n").as_deref(),
            Some("All done. `3bb8701` · spotter-fum.1; `b9288c2` · spotter-fum.2")
        );
        // An item that leads into the next ones is not cut off from them by a ";".
        assert_eq!(
            conclusion("Done:\n- Rewrites serve the page\n- Rewrites intercept these requests:\n- `/a.css` → `/t/a.css`").as_deref(),
            Some("Rewrites serve the page; Rewrites intercept these requests: `/a.css` → `/t/a.css`")
        );
        // Bold text opens no list item.
        assert_eq!(
            conclusion("Done:\n**Fixed** the cache. All green.").as_deref(),
            Some("**Fixed** the cache. All green.")
        );
    }
}
