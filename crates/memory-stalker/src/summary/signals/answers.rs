//! The user's answers to `AskUserQuestion`: each question, and the option chosen or the
//! words the user typed instead. An answer is a decision the user made, and one the
//! model must not undo after a compaction ("No rig", "Credo + Dialyxir + mix_audit").

use serde::{Deserialize, Serialize};

use super::{Source, View};
use crate::text::one_line;
use crate::transcript::record::{Entry, Question, ToolDetail};

/// Longest question or reply kept from a conversation's text.
const TEXT_CHARS: usize = 300;

/// One question put to the user, and their answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// The question as Claude asked it.
    pub question: String,
    /// The short label Claude Code showed over it, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// The option chosen, or what the user typed instead.
    pub answer: String,
    /// Whether the answer is one of the options offered (else the user's own words).
    pub chosen: bool,
    /// The record of the answer.
    pub source: Source,
}

pub(super) fn find(view: &View) -> Vec<Answer> {
    let mut out = Vec::new();
    for c in view.calls() {
        let ToolDetail::Ask(questions) = &c.call.detail else {
            continue;
        };
        let Some((at, result, user)) = c.result else {
            continue;
        };
        if result.is_error {
            continue;
        }
        // Each question, its answer, and whether that is an option offered (Codex's
        // answers say it themselves).
        let offered = |(question, answer): (String, String)| {
            let chosen = questions
                .iter()
                .find(|q| q.question == question)
                .is_some_and(|q| is_option(q, &answer));
            (question, answer, chosen)
        };
        let pairs: Vec<(String, String, bool)> = if !user.answers().is_empty() {
            user.answers().iter().cloned().map(offered).collect()
        } else if result.text.head().trim_start().starts_with('{') {
            codex_answers(result.text.head(), questions)
        } else if let Some(numbered) = numbered_answers(result.text.head(), questions) {
            numbered
        } else {
            parse_answer_text(result.text.head())
                .into_iter()
                .map(offered)
                .collect()
        };
        let record = &view.all()[at];
        for (question, answer, chosen) in pairs {
            let asked = questions.iter().find(|q| q.question == question);
            out.push(Answer {
                header: asked.and_then(|q| q.header.clone()),
                chosen,
                question,
                answer,
                source: Source::of(&c.call.name, record),
            });
        }
    }
    out
}

/// The user's replies to a question Claude ended its turn with ("Which dev server would
/// you prefer? Or shall I just go with Vite?" → "ok, fine, let's do vite"): the
/// question, and the prompt typed next. A reply of one or two words ("yes") says
/// nothing on its own and is left out, and so is one that asks a question back ("what
/// is left of phase 7?"): it starts a new exchange.
pub(super) fn replies(view: &View) -> Vec<Answer> {
    let mut out = Vec::new();
    let mut after = view.start;
    for (at, prompt) in view.prompts.iter().filter(|(i, _)| *i >= view.start) {
        let from = after;
        after = at + 1;
        // A prompt that asks something back is a new question, not an answer.
        let asks = super::first_sentence(prompt, TEXT_CHARS).ends_with(['?', '？']);
        if prompt.starts_with('/') || prompt.split_whitespace().count() < 3 || asks {
            continue;
        }
        let Some(question) = closing_question(view, from, *at) else {
            continue;
        };
        out.push(Answer {
            question,
            header: None,
            answer: one_line(prompt, TEXT_CHARS),
            chosen: false,
            source: Source::of("reply", &view.all()[*at]),
        });
    }
    out
}

/// The question the assistant's last text before record `before` (and after `from`)
/// ends with: the last sentence of its last paragraph, when it asks something.
fn closing_question(view: &View, from: usize, before: usize) -> Option<String> {
    let mut text = None;
    for r in view.all()[from..before]
        .iter()
        .rev()
        .filter(|r| !r.meta.sidechain)
    {
        let Entry::Assistant(a) = &r.entry else {
            continue;
        };
        if a.synthetic {
            continue;
        }
        if let Some(t) = a
            .texts
            .iter()
            .rev()
            .map(|t| t.trim())
            .find(|t| !t.is_empty())
        {
            text = Some(t);
            break;
        }
        // A tool call after the last text: the turn did not end on a question.
        if !a.tool_calls.is_empty() {
            return None;
        }
    }
    let last = text?
        .rsplit("\n\n")
        .map(str::trim)
        .find(|p| !p.is_empty() && !p.starts_with("```"))?;
    let last = last.lines().last()?.trim();
    let last = asked_in(last)?;
    // The last of several numbered questions: the reply answers the list, not its last
    // item ("8. For #386 …?" ← "i mean specific to content not policy").
    if let Some(series) = numbered_series(text?, last) {
        return Some(one_line(&series, TEXT_CHARS));
    }
    let question = last.trim_start_matches(['*', '-', '#', ' ']);
    // A long line: its last sentence is the question.
    let question = if question.chars().count() <= TEXT_CHARS {
        question
    } else {
        let body = &question[..question.len() - 1];
        body.rfind(['.', '!', '?', ':'])
            .map_or(question, |i| question[i + 1..].trim())
    };
    Some(one_line(question, TEXT_CHARS))
}

/// When `last` (the line a text ends its question with) is item N ≥ 2 of a numbered
/// list ("8. For #386 …?"), the list's items 1 to N, each by its first line, one after
/// the other (" ⏎ " between): the nearest line above numbered N − 1, then N − 2, … 1.
/// `None` when `last` is not numbered so, or an item is missing.
fn numbered_series(text: &str, last: &str) -> Option<String> {
    let number = |line: &str| -> Option<usize> {
        let line = line.trim_start().trim_start_matches(['*', '#', ' ']);
        let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let after = line[digits..].strip_prefix(['.', ')'])?;
        if !after.starts_with(' ') {
            return None;
        }
        line[..digits].parse().ok()
    };
    let n = number(last).filter(|n| (2..=20).contains(n))?;
    let mut items = vec![last.trim()];
    let mut want = n - 1;
    for line in text.lines().rev() {
        if want == 0 {
            break;
        }
        if number(line) == Some(want) {
            items.push(line.trim());
            want -= 1;
        }
    }
    (want == 0).then(|| {
        items
            .iter()
            .rev()
            .map(|l| l.trim_start_matches(['*', '#', ' ']))
            .collect::<Vec<_>>()
            .join(" ⏎ ")
    })
}

/// The line up to the question it ends with: its last character, or a question
/// followed by one short sentence that asks nothing ("Should I create a detailed plan
/// for Phase A first? This is the foundation everything else depends on.").
fn asked_in(line: &str) -> Option<&str> {
    if line.ends_with(['?', '？']) {
        return Some(line);
    }
    // The last question mark that ends a sentence (not `?page=2` in a URL).
    let (at, mark) = line.char_indices().rfind(|(i, c)| {
        matches!(c, '?' | '？')
            && line[i + c.len_utf8()..]
                .chars()
                .next()
                .is_some_and(char::is_whitespace)
    })?;
    let end = at + mark.len_utf8();
    let after = line[end..].trim();
    let one_sentence = !after
        .trim_end_matches(['.', '!', '。', '！'])
        .contains(['.', '!', '?', '。', '！', '？']);
    (one_sentence && after.chars().count() <= 120).then(|| &line[..end])
}

/// Whether every part of `answer` (several choices are joined by ", ") is an option
/// of `q`.
fn is_option(q: &Question, answer: &str) -> bool {
    let same = |a: &str| q.options.iter().any(|o| o.eq_ignore_ascii_case(a.trim()));
    same(answer) || answer.split(", ").all(same)
}

/// The pairs of Claude Code's answer text when the record has no `answers` object:
/// `User has answered your questions: "Q"="A", "Q2"="A2". You can now continue…`.
fn parse_answer_text(text: &str) -> Vec<(String, String)> {
    let Some(rest) = text
        .trim_start()
        .strip_prefix("User has answered your questions:")
    else {
        return Vec::new();
    };
    let rest = rest
        .split(". You can now continue")
        .next()
        .unwrap_or(rest)
        .trim();
    let mut out = Vec::new();
    // `"Q"="A"` pairs separated by `, `: a question or answer holding `"="` or `", "`
    // is cut there, which loses words, never invents them.
    for pair in rest.split("\", \"") {
        let pair = pair.trim().trim_start_matches('"').trim_end_matches('"');
        if let Some((q, a)) = pair.split_once("\"=\"")
            && !q.trim().is_empty()
            && !a.trim().is_empty()
        {
            out.push((q.trim().to_string(), a.trim().to_string()));
        }
    }
    out
}

/// The answers of Conductor's question tool, one numbered line for each question in
/// the order asked: `User responses:\n1. Just for chkit\n2. Run test cases`. None when
/// the text is not that.
fn numbered_answers(text: &str, questions: &[Question]) -> Option<Vec<(String, String, bool)>> {
    let rest = text.trim_start().strip_prefix("User responses:")?;
    let mut out = Vec::new();
    for line in rest.lines() {
        let Some((n, answer)) = line.trim().split_once(". ") else {
            continue;
        };
        let asked = n.parse::<usize>().ok().and_then(|n| n.checked_sub(1));
        let Some(q) = asked.and_then(|i| questions.get(i)) else {
            continue;
        };
        let answer = answer.trim();
        if !answer.is_empty() && !out.iter().any(|(asked, _, _)| asked == &q.question) {
            out.push((
                q.question.clone(),
                one_line(answer, TEXT_CHARS),
                is_option(q, answer),
            ));
        }
    }
    Some(out)
}

/// The label Codex's question screen adds under the options offered.
const NONE_OF_THE_ABOVE: &str = "None of the above";
/// How Codex marks what the user typed in an answer's notes (Tab on its question screen).
const USER_NOTE: &str = "user_note:";

/// The answers Codex's `request_user_input` returned, `{"answers": {"<question id>":
/// {"answers": ["<label>", "user_note: <what the user typed>"]}}}` (as the real Codex
/// 0.169.0 answers it), paired with the questions asked: the option chosen with the
/// user's note after it ("Postgres (with pgbouncer please)"), the note alone when the
/// user chose "None of the above" and said what instead (their own words), else the
/// options turned down ("None of the above (not SQLite or Postgres)"). Whether the
/// answer is an option offered comes third.
fn codex_answers(text: &str, questions: &[Question]) -> Vec<(String, String, bool)> {
    #[derive(serde::Deserialize)]
    struct Response {
        answers: std::collections::BTreeMap<String, Answers>,
    }
    #[derive(serde::Deserialize)]
    struct Answers {
        #[serde(default)]
        answers: Vec<String>,
    }
    let Ok(response) = serde_json::from_str::<Response>(text.trim()) else {
        return Vec::new();
    };
    questions
        .iter()
        .filter_map(|q| {
            let given = response.answers.get(q.id.as_deref()?)?;
            let parts: Vec<String> = given
                .answers
                .iter()
                // Redacted here, before any cut: the output was kept unredacted for
                // reading, and what the user typed may hold a key.
                .map(|a| crate::untrusted::clean(&crate::redact::redact(a.trim())).into_owned())
                .filter(|a| !a.is_empty())
                .collect();
            let (notes, labels): (Vec<&String>, Vec<&String>) =
                parts.iter().partition(|a| a.starts_with(USER_NOTE));
            let note = notes
                .iter()
                .map(|n| n[USER_NOTE.len()..].trim())
                .filter(|n| !n.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            let none = |l: &&String| l.eq_ignore_ascii_case(NONE_OF_THE_ABOVE);
            let chose: Vec<&str> = labels
                .iter()
                .filter(|l| !none(l))
                .map(|l| l.as_str())
                .collect();
            let offered = chose.iter().all(|c| is_option(q, c));
            let (answer, chosen) = match (chose.is_empty(), note.is_empty()) {
                (false, true) => (chose.join(", "), offered),
                (false, false) => (format!("{} ({note})", chose.join(", ")), offered),
                (true, false) => (note, false),
                (true, true) if labels.iter().any(none) && !q.options.is_empty() => (
                    format!("{NONE_OF_THE_ABOVE} (not {})", q.options.join(" or ")),
                    true,
                ),
                (true, true) => return None,
            };
            Some((q.question.clone(), one_line(&answer, TEXT_CHARS), chosen))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_text_is_read_when_the_record_has_no_answers() {
        let pairs = parse_answer_text(
            r#"User has answered your questions: "Which rig? (single-app project — should I use 'spotter'?)"="No rig", "Which tools should we set up?"="Credo + Dialyxir + mix_audit". You can now continue with the user's answers in mind."#,
        );
        assert_eq!(
            pairs,
            vec![
                (
                    "Which rig? (single-app project — should I use 'spotter'?)".to_string(),
                    "No rig".to_string()
                ),
                (
                    "Which tools should we set up?".to_string(),
                    "Credo + Dialyxir + mix_audit".to_string()
                ),
            ]
        );
        assert!(parse_answer_text("Error: no such tool").is_empty());
    }

    #[test]
    fn a_question_may_be_followed_by_one_short_sentence() {
        assert_eq!(asked_in("Shall I go on?"), Some("Shall I go on?"));
        assert_eq!(
            asked_in(
                "Should I create a detailed plan for Phase A first? This is the foundation everything else depends on."
            ),
            Some("Should I create a detailed plan for Phase A first?")
        );
        assert_eq!(asked_in("All tests pass."), None);
        assert_eq!(
            asked_in("Want me to continue? I fixed the parser. Then the lexer."),
            None,
            "more than one sentence after it: the turn went on"
        );
        assert_eq!(asked_in("See /search?q=rust for more."), None);
    }
}
