//! The deterministic summary written when no model is configured or reachable
//! (SPEC §5, `offline`): extractive, built only from what the transcript says.

use super::{CodeChange, Decision, HEADLINE_CHARS, Summary};
use crate::lang::Lang;
use crate::text::one_line;
use crate::transcript::{Extraction, Transcript};

const MAX_REQUESTS: usize = 8;
const MAX_ITEMS: usize = 5;
const MAX_FOLLOW_UPS: usize = 8;
const SENTENCE_CHARS: usize = 240;

/// Words that mark pending work in the assistant's text.
const FOLLOW_UP_CUES: [&str; 14] = [
    "todo",
    "to do",
    "next",
    "pending",
    "follow up",
    "follow-up",
    "remaining",
    "still need",
    "待办",
    "下一步",
    "后续",
    "剩余",
    "还需要",
    "待完成",
];
/// Words that mark a decision in the assistant's text.
const DECISION_CUES: [&str; 8] = [
    "decided",
    "i chose",
    "we chose",
    "opted",
    "went with",
    "决定",
    "选择了",
    "采用了",
];
/// Words that introduce a reason.
const REASON_CUES: [&str; 6] = [" because ", " since ", " as it ", "因为", "由于", "为了"];
/// Words that mark a lasting preference in what the user typed.
const PREFERENCE_CUES: [&str; 14] = [
    "always",
    "never",
    "prefer",
    "don't",
    "do not",
    "please use",
    "make sure",
    "instead of",
    "不要",
    "总是",
    "始终",
    "偏好",
    "请使用",
    "务必",
];

/// Builds the offline summary of the segment `t` was read for.
pub fn summarize(t: &Transcript, ex: &Extraction, lang: Lang) -> Summary {
    let mut requests = t.segment_prompts();
    if requests.is_empty() {
        requests.extend(ex.last_prompt.as_ref().map(|p| p.text.clone()));
    }
    let assistant_texts = t.segment_assistant_texts();

    let headline = requests
        .last()
        .map(|r| one_line(r, HEADLINE_CHARS))
        .or_else(|| {
            assistant_texts
                .last()
                .and_then(|t| sentences(t).into_iter().next())
                .map(|s| one_line(&s, HEADLINE_CHARS))
        })
        .unwrap_or_else(|| match lang {
            Lang::En => "Session without a user request in this segment".into(),
            Lang::Zh => "本段会话没有用户请求".into(),
        });

    let mut task_summary = Vec::new();
    let skipped = requests.len().saturating_sub(MAX_REQUESTS);
    if skipped > 0 {
        task_summary.push(match lang {
            Lang::En => format!("({skipped} earlier requests in this segment not listed)"),
            Lang::Zh => format!("（本段较早的 {skipped} 个请求未列出）"),
        });
    }
    for r in &requests[skipped..] {
        let r = one_line(r, SENTENCE_CHARS);
        task_summary.push(match lang {
            Lang::En => format!("User asked: {r}"),
            Lang::Zh => format!("用户请求：{r}"),
        });
    }
    if let Some(conclusion) = ex.reply.as_ref().and_then(|r| last_paragraph(&r.text)) {
        let c = one_line(&conclusion, 400);
        task_summary.push(match lang {
            Lang::En => format!("Last assistant conclusion: {c}"),
            Lang::Zh => format!("助手最后的结论：{c}"),
        });
    }

    let code_changes = t
        .segment_changes()
        .into_iter()
        .map(|c| {
            let writes = c.tools.iter().filter(|n| *n == "Write").count();
            let edits = c.tools.len() - writes;
            let (action, note) = match lang {
                Lang::En => (
                    if writes > 0 { "written" } else { "edited" },
                    match (writes, edits) {
                        (0, e) => plural(e, "edit"),
                        (w, 0) => plural(w, "write"),
                        (w, e) => format!("{}, {}", plural(w, "write"), plural(e, "edit")),
                    },
                ),
                Lang::Zh => (
                    if writes > 0 { "写入" } else { "修改" },
                    match (writes, edits) {
                        (0, e) => format!("{e} 次编辑"),
                        (w, 0) => format!("{w} 次写入"),
                        (w, e) => format!("{w} 次写入，{e} 次编辑"),
                    },
                ),
            };
            CodeChange {
                file: c.path,
                action: action.into(),
                note,
            }
        })
        .collect();

    let mut key_decisions = Vec::new();
    for s in newest_sentences(&assistant_texts) {
        if key_decisions.len() == MAX_ITEMS {
            break;
        }
        let lower = s.to_lowercase();
        if !DECISION_CUES.iter().any(|c| lower.contains(c)) {
            continue;
        }
        let (decision, reason) = split_reason(&s);
        if !key_decisions
            .iter()
            .any(|d: &Decision| d.decision == decision)
        {
            key_decisions.push(Decision { decision, reason });
        }
    }
    key_decisions.reverse();

    let mut user_preferences = Vec::new();
    for s in requests.iter().flat_map(|r| sentences(r)) {
        let lower = s.to_lowercase();
        if PREFERENCE_CUES.iter().any(|c| lower.contains(c)) && !user_preferences.contains(&s) {
            user_preferences.push(s);
        }
    }
    let start = user_preferences.len().saturating_sub(MAX_ITEMS);
    user_preferences.drain(..start);

    let mut follow_ups: Vec<String> = ex
        .todos
        .iter()
        .flat_map(|t| t.items.iter())
        .filter(|t| t.is_open())
        .map(|t| one_line(&t.content, SENTENCE_CHARS))
        .collect();
    let mut from_text = Vec::new();
    for s in newest_sentences(&assistant_texts) {
        if follow_ups.len() + from_text.len() >= MAX_FOLLOW_UPS {
            break;
        }
        let lower = s.to_lowercase();
        if FOLLOW_UP_CUES.iter().any(|c| contains_word(&lower, c))
            && !from_text.contains(&s)
            && !follow_ups.contains(&s)
        {
            from_text.push(s);
        }
    }
    from_text.reverse();
    follow_ups.extend(from_text);

    Summary {
        headline,
        task_summary,
        code_changes,
        key_decisions,
        user_preferences,
        follow_ups,
    }
}

/// The sentences of `texts`, newest first.
fn newest_sentences<'a>(texts: &'a [&str]) -> impl Iterator<Item = String> + 'a {
    texts
        .iter()
        .rev()
        .flat_map(|t| sentences(t).into_iter().rev())
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Whether `cue` occurs in `text` as a word (CJK cues match anywhere).
fn contains_word(text: &str, cue: &str) -> bool {
    if !cue.is_ascii() {
        return text.contains(cue);
    }
    text.match_indices(cue).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + cue.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

fn split_reason(sentence: &str) -> (String, String) {
    let lower = sentence.to_lowercase();
    for cue in REASON_CUES {
        // Lower-casing keeps byte offsets for ASCII cues; CJK cues have no case.
        if let Some(i) = lower.find(cue)
            && sentence.is_char_boundary(i)
            && sentence.is_char_boundary(i + cue.len())
        {
            let decision = sentence[..i]
                .trim()
                .trim_end_matches([',', '，'])
                .to_string();
            let reason = sentence[i + cue.len()..].trim().to_string();
            if !decision.is_empty() && !reason.is_empty() {
                return (decision, reason);
            }
        }
    }
    (sentence.to_string(), String::new())
}

/// The last paragraph of prose (outside code blocks) of a reply.
fn last_paragraph(text: &str) -> Option<String> {
    let prose = prose(text);
    let last = prose
        .split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .last();
    last.map(str::to_string)
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
        let mut current = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            current.push(c);
            let ends = matches!(c, '。' | '！' | '？')
                || (matches!(c, '.' | '!' | '?') && chars.peek().is_none_or(|n| n.is_whitespace()));
            if ends {
                push_sentence(&mut out, &current);
                current.clear();
            }
        }
        push_sentence(&mut out, &current);
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
        out.push(one_line(s, SENTENCE_CHARS));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn follow_up_cues_match_whole_words() {
        assert!(contains_word("next we ship", "next"));
        assert!(!contains_word("nextjs app", "next"));
        assert!(contains_word("还需要测试", "还需要"));
    }

    #[test]
    fn reasons_are_split_off() {
        assert_eq!(
            split_reason("I decided to use ureq because it is blocking."),
            ("I decided to use ureq".into(), "it is blocking.".into())
        );
        assert_eq!(
            split_reason("决定使用 ureq，因为它是同步的").1,
            "它是同步的"
        );
    }

    #[test]
    fn last_paragraph_ignores_code() {
        assert_eq!(
            last_paragraph("First.\n\nDone: all green.\n\n```\ncode\n```\n").as_deref(),
            Some("Done: all green.")
        );
    }
}
