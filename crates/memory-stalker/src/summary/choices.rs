//! Choices the user made in what they typed: "replace them with a single link …
//! instead", "we're not doing these complex path selections, just picking the latest
//! one", "let's rename /data-capture to /src", "in favor of generating static PNG
//! files". A decision by the user, kept in their words, so the model after a compaction
//! does not go back on it.
//!
//! Only a sentence with a marker of choice counts (an alternative set aside, or "let's"
//! with a verb of change): a request without one is a request, listed as such.

use crate::text::one_line;

#[cfg(test)]
use super::instructions::typed_sentences;

/// Longest choice kept, in characters.
const CHARS: usize = 220;

/// Markers of a choice between alternatives.
const MARKERS: [&str; 10] = [
    " instead",
    "instead of",
    "rather than",
    "in favor of",
    "in favour of",
    "we're not doing",
    "we are not doing",
    "no longer need",
    "switch to",
    "go with",
];

/// Verbs after "let's" that make a choice of what to change.
const LETS: [&str; 14] = [
    "rename", "use", "do", "switch", "move", "migrate", "keep", "replace", "remove", "drop", "go",
    "also", "stick", "change",
];

/// The choices in the requests the user typed, oldest first, without repeats.
#[cfg(test)]
pub(crate) fn from_prompts(requests: &[String]) -> Vec<String> {
    let sentences: Vec<Vec<String>> = requests.iter().map(|r| typed_sentences(r)).collect();
    from_sentences(&sentences)
}

/// [`from_prompts`] of the requests' sentences ([`typed_sentences`] of each).
pub(crate) fn from_sentences(requests: &[Vec<String>]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for sentences in requests {
        for s in sentences {
            if let Some(c) = choice(s)
                && !out.contains(&c)
            {
                out.push(c);
            }
        }
    }
    out
}

/// The sentence, when it states a choice.
fn choice(sentence: &str) -> Option<String> {
    let s = sentence.trim();
    if s.chars().count() < 12 {
        return None;
    }
    if s.chars().any(is_cjk) {
        const CJK: [&str; 6] = ["不需要", "改成", "换成", "而不是", "改为", "不用"];
        let question = s.ends_with('?') || s.ends_with('？') || s.ends_with('吗');
        return (!question && CJK.iter().any(|m| s.contains(m))).then(|| one_line(s, CHARS));
    }
    // A marker inside code (`// TODO: hide vis-group instead`) is not the user's.
    let lower = format!(" {}", without_code(s).to_lowercase());
    // "I don't think …?" asks; "why not X instead?" too.
    let question = s.ends_with('?')
        && !lower.contains(" can you")
        && !lower.contains(" could you")
        && !lower.contains(" would you")
        && !lower.contains(" please");
    if question {
        return None;
    }
    let marked = MARKERS.iter().any(|m| lower.contains(m));
    let lets = lower
        .match_indices(" let's ")
        .chain(lower.match_indices(" lets "))
        .any(|(at, m)| {
            let next = lower[at + m.len()..]
                .split(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap_or("");
            LETS.contains(&next)
        });
    (marked || lets).then(|| one_line(s, CHARS))
}

/// The text without its `inline code` spans.
fn without_code(s: &str) -> String {
    s.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .map(|(_, part)| part)
        .collect::<Vec<_>>()
        .join(" ")
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<String> {
        from_prompts(&[text.to_string()])
    }

    #[test]
    fn choices_users_made_are_found() {
        assert_eq!(
            found(
                "oh, I didn't find those cross-session navigation links helpful, can you please replace them with a single link to the combined transcript instead?"
            ),
            vec![
                "oh, I didn't find those cross-session navigation links helpful, can you please replace them with a single link to the combined transcript instead?"
            ]
        );
        assert_eq!(
            found(
                "Can you please update these tests? We're not doing these complex path selections, just picking the latest one from the list we got from messages"
            ),
            vec![
                "We're not doing these complex path selections, just picking the latest one from the list we got from messages"
            ]
        );
        assert_eq!(
            found("Let's rename `/data-capture` to `/src`. Move `metrics.db` to `/data`"),
            vec!["Let's rename `/data-capture` to `/src`."]
        );
        assert_eq!(
            found("ok, fine, let's do vite"),
            vec!["ok, fine, let's do vite"]
        );
        assert_eq!(
            found("区域数据表格不需要操作那一列"),
            vec!["区域数据表格不需要操作那一列"]
        );
    }

    #[test]
    fn requests_and_questions_without_a_choice_are_not() {
        for text in [
            "Please fix these lint errors",
            "Wait, does it only run on main?",
            "Why not use a worker instead?",
            "let's see what happens",
            "Update the project to use typescript and ESM.",
            "Find `// TODO: hide vis-group instead` in @timeline.html",
        ] {
            assert!(found(text).is_empty(), "{text}: {:?}", found(text));
        }
    }
}
