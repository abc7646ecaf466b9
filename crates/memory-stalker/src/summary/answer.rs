//! Reading a model's answer: one JSON object with every section (docs/design.md §5.1,
//! §5.6).
//! An answer that is empty, not JSON, or missing a section is refused, so a broken
//! model never replaces the offline summary with something worse.

use serde::Deserialize;

use super::{CodeChange, Decision, HEADLINE_CHARS, Summary, SummaryError};
use crate::text::one_line;

/// Most items kept per list.
const MAX_ITEMS: usize = 20;
/// Longest item kept, in characters.
const MAX_ITEM_CHARS: usize = 1_000;

#[derive(Deserialize)]
struct Answer {
    headline: String,
    task_summary: Vec<String>,
    code_changes: Vec<ChangeItem>,
    key_decisions: Vec<DecisionItem>,
    user_preferences: Vec<String>,
    follow_ups: Vec<String>,
    /// Asked for since the key was added; an answer without it is still a summary.
    #[serde(default)]
    failed_approaches: Vec<String>,
}

/// A code change as an object, or (tolerated) a bare path.
#[derive(Deserialize)]
#[serde(untagged)]
enum ChangeItem {
    Full(CodeChange),
    Path(String),
}

/// A decision as an object, or (tolerated) a bare sentence.
#[derive(Deserialize)]
#[serde(untagged)]
enum DecisionItem {
    Full(Decision),
    Text(String),
}

/// Parses and validates a model's answer text.
pub fn parse(text: &str) -> Result<Summary, SummaryError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(SummaryError::BadAnswer("the answer was empty".into()));
    }
    let (Some(start), Some(end)) = (text.find('{'), text.rfind('}')) else {
        return Err(SummaryError::BadAnswer(format!(
            "no JSON object in the answer (it began {:?})",
            crate::text::prefix_chars(text, 60)
        )));
    };
    if end < start {
        return Err(SummaryError::BadAnswer(
            "no JSON object in the answer".into(),
        ));
    }
    let answer: Answer = serde_json::from_str(&text[start..=end])
        .map_err(|e| SummaryError::BadAnswer(format!("the JSON answer is not a summary: {e}")))?;
    let headline = crate::text::clip_words(&answer.headline, HEADLINE_CHARS);
    if headline.is_empty() {
        return Err(SummaryError::BadAnswer("the headline is empty".into()));
    }
    let clean = |items: Vec<String>| -> Vec<String> {
        items
            .into_iter()
            .map(|s| one_line(&s, MAX_ITEM_CHARS))
            .filter(|s| !s.is_empty())
            .take(MAX_ITEMS)
            .collect()
    };
    let task_summary = clean(answer.task_summary);
    if task_summary.is_empty() {
        return Err(SummaryError::BadAnswer("the task summary is empty".into()));
    }
    let code_changes = answer
        .code_changes
        .into_iter()
        .map(|c| match c {
            ChangeItem::Full(c) => c,
            ChangeItem::Path(file) => CodeChange {
                file,
                action: "modified".into(),
                note: String::new(),
            },
        })
        .filter(|c| !c.file.trim().is_empty())
        .take(MAX_ITEMS)
        .collect();
    let key_decisions = answer
        .key_decisions
        .into_iter()
        .map(|d| match d {
            DecisionItem::Full(d) => d,
            DecisionItem::Text(decision) => Decision {
                decision,
                reason: String::new(),
            },
        })
        .filter(|d| !d.decision.trim().is_empty())
        .take(MAX_ITEMS)
        .collect();
    Ok(Summary {
        headline,
        task_summary,
        code_changes,
        key_decisions,
        user_preferences: clean(answer.user_preferences),
        follow_ups: clean(answer.follow_ups),
        failed_approaches: clean(answer.failed_approaches),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"headline":"Retry budget for uploads","task_summary":["Added retries"],"code_changes":[{"file":"src/retry.rs","action":"created","note":"budget"},"src/upload.rs"],"key_decisions":[{"decision":"Separate type","reason":"testable"},"Keep API"],"user_preferences":["thiserror", " "],"follow_ups":["README"]}"#;

    #[test]
    fn a_good_answer_parses_even_inside_a_fence() {
        let s = parse(&format!("```json\n{GOOD}\n```")).unwrap();
        assert_eq!(s.headline, "Retry budget for uploads");
        assert_eq!(s.code_changes.len(), 2);
        assert_eq!(s.code_changes[1].action, "modified");
        assert_eq!(s.key_decisions[1].decision, "Keep API");
        assert_eq!(s.user_preferences, ["thiserror"]);
        assert!(
            s.failed_approaches.is_empty(),
            "the seventh key is optional"
        );
        let with = GOOD.replace(
            "\"follow_ups\"",
            "\"failed_approaches\":[\"A Redis token bucket: no Redis\"],\"follow_ups\"",
        );
        assert_eq!(
            parse(&with).unwrap().failed_approaches,
            ["A Redis token bucket: no Redis"]
        );
        let long = GOOD.replace("Retry budget for uploads", &"retry budget ".repeat(20));
        let h = parse(&long).unwrap().headline;
        let stem = h.strip_suffix('…').unwrap();
        assert!(h.chars().count() <= HEADLINE_CHARS, "{h}");
        assert!(
            "retry budget ".repeat(20).starts_with(&format!("{stem} ")),
            "{h}"
        );
    }

    #[test]
    fn bad_answers_are_refused() {
        for (text, why) in [
            ("", "empty"),
            ("   \n", "empty"),
            ("Sure! Here is the summary.", "no JSON object"),
            ("} {", "no JSON object"),
            (r#"{"headline":"x","task_summary":["a"]}"#, "missing field"),
            (
                r#"{"headline":"","task_summary":["a"],"code_changes":[],"key_decisions":[],"user_preferences":[],"follow_ups":[]}"#,
                "headline is empty",
            ),
            (
                r#"{"headline":"x","task_summary":[],"code_changes":[],"key_decisions":[],"user_preferences":[],"follow_ups":[]}"#,
                "task summary is empty",
            ),
            (
                r#"{"headline":"x","task_summary":"not a list","code_changes":[],"key_decisions":[],"user_preferences":[],"follow_ups":[]}"#,
                "not a summary",
            ),
        ] {
            let err = parse(text).unwrap_err().to_string();
            assert!(err.contains(why), "{text:?}: {err}");
        }
    }
}
