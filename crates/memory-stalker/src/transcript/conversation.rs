//! The conversation text a summariser reads (docs/design.md §5.5): the segment's prompts,
//! replies, tool calls and trimmed tool outputs. When it does not all fit, the newest part
//! is kept whole and, before it, what was said is kept over what tools printed.

use super::record::{Entry, Record};
use super::{Transcript, prompt};
use crate::text::head_tail;

/// Tool output longer than this is cut to its head and tail.
const TOOL_OUTPUT_CHARS: usize = 1_200;
/// When the segment does not fit: outside the newest part (a third of the budget), a
/// tool's output is cut to this, and a prompt's or reply's text to [`OLD_TEXT_CHARS`].
/// What the user and the assistant said carries the session's requests and decisions;
/// an old tool output rarely does, and it took most of the budget of long sessions.
const OLD_OUTPUT_CHARS: usize = 200;
const OLD_TEXT_CHARS: usize = 3_000;

/// One entry of the conversation, and whether it is a tool's output.
struct Item {
    text: String,
    output: bool,
}

pub(super) fn conversation_text(t: &Transcript, max_chars: usize) -> String {
    let segment = t.segment();
    let mut entries: Vec<Item> = Vec::new();
    for r in segment {
        render(r, &mut entries);
    }
    // A turn that began before the last compaction: the request it answers comes first.
    let has_prompt = segment.iter().any(|r| prompt::prompt_text(r).is_some());
    let earlier = (!has_prompt)
        .then(|| {
            t.records[..t.segment_start]
                .iter()
                .rev()
                .find_map(prompt::prompt_text)
        })
        .flatten()
        .map(|p| format!("User (request from before the last compaction):\n{p}"));

    let mut budget = max_chars;
    let mut kept: Vec<String> = Vec::new();
    if let Some(e) = &earlier {
        let e = fit(e, budget / 4);
        budget = budget.saturating_sub(e.chars().count() + 2);
        kept.push(e);
    }
    let fits = entries
        .iter()
        .map(|e| e.text.chars().count() + 2)
        .sum::<usize>()
        <= budget;
    // The newest entries are kept whole until they fill a third of the budget.
    let newest_part = budget / 3;
    let mut used = 0;
    let mut newest_first = Vec::new();
    for e in entries.iter().rev() {
        let text = if fits || used < newest_part {
            e.text.clone()
        } else if e.output {
            fit_entry(&e.text, OLD_OUTPUT_CHARS)
        } else {
            fit_entry(&e.text, OLD_TEXT_CHARS)
        };
        let n = text.chars().count() + 2;
        if n <= budget {
            budget -= n;
            used += n;
            newest_first.push(text);
        } else {
            if newest_first.is_empty() && budget > 200 {
                newest_first.push(fit(&text, budget - 2));
            }
            break;
        }
    }
    let omitted = entries.len() - newest_first.len();
    if omitted > 0 {
        kept.push(format!("[… {omitted} earlier entries omitted …]"));
    }
    kept.extend(newest_first.into_iter().rev());
    kept.join("\n\n")
}

fn fit(text: &str, max: usize) -> String {
    head_tail(text, max.saturating_sub(40))
}

/// An entry cut to about `max` characters of its body, its label line kept.
fn fit_entry(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    match text.split_once('\n') {
        Some((label, body)) => format!("{label}\n{}", head_tail(body, max)),
        None => head_tail(text, max),
    }
}

fn render(r: &Record, out: &mut Vec<Item>) {
    if r.meta.sidechain {
        return;
    }
    match &r.entry {
        Entry::User(u) => {
            if let Some(p) = prompt::prompt_text(r) {
                out.push(Item {
                    text: format!("User:\n{p}"),
                    output: false,
                });
            }
            for res in &u.tool_results {
                let label = if res.is_error {
                    "Tool error"
                } else {
                    "Tool result"
                };
                // Redacted before the cut, so a secret split by it cannot pass in pieces; the
                // whole prompt is redacted again later, which changes nothing more here.
                let body = res.text.render(TOOL_OUTPUT_CHARS, true);
                out.push(Item {
                    text: format!("{label}:\n{body}"),
                    output: true,
                });
            }
        }
        Entry::Assistant(a) if !a.synthetic => {
            for t in a.texts.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
                out.push(Item {
                    text: format!("Assistant:\n{t}"),
                    output: false,
                });
            }
            for c in &a.tool_calls {
                out.push(Item {
                    text: format!("Assistant called {}: {}", c.name, c.summary),
                    output: false,
                });
            }
        }
        _ => {}
    }
}
