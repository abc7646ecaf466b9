//! The conversation text a summariser reads (docs/design.md §5.5): the segment's prompts,
//! replies, tool calls and trimmed tool outputs, newest kept when it does not all fit.

use super::record::{Entry, Record};
use super::{Transcript, prompt};
use crate::text::head_tail;

/// Tool output longer than this is cut to its head and tail.
const TOOL_OUTPUT_CHARS: usize = 1_200;

pub(super) fn conversation_text(t: &Transcript, max_chars: usize) -> String {
    let segment = t.segment();
    let mut entries: Vec<String> = Vec::new();
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
    let mut newest_first = Vec::new();
    for e in entries.iter().rev() {
        let n = e.chars().count() + 2;
        if n <= budget {
            budget -= n;
            newest_first.push(e.clone());
        } else {
            if newest_first.is_empty() && budget > 200 {
                newest_first.push(fit(e, budget - 2));
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

fn render(r: &Record, out: &mut Vec<String>) {
    if r.meta.sidechain {
        return;
    }
    match &r.entry {
        Entry::User(u) => {
            if let Some(p) = prompt::prompt_text(r) {
                out.push(format!("User:\n{p}"));
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
                out.push(format!("{label}:\n{body}"));
            }
        }
        Entry::Assistant(a) if !a.synthetic => {
            for t in a.texts.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
                out.push(format!("Assistant:\n{t}"));
            }
            for c in &a.tool_calls {
                out.push(format!("Assistant called {}: {}", c.name, c.summary));
            }
        }
        _ => {}
    }
}
