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
/// When the segment does not fit, the user's messages among the entries left out are
/// kept, shortened, in a fifth of the budget (with what the newest part leaves): they
/// carry the session's requests, rules and choices, which the newest part of a long
/// session no longer shows (a 700-entry session lost every message before its last
/// hour, and with them five of its decisions).
const EARLIER_USER_SHARE: usize = 5;
/// Longest and shortest an earlier message of the user is kept at, label included.
const EARLIER_USER_CHARS: usize = 600;
const EARLIER_USER_MIN_CHARS: usize = 150;

/// One entry of the conversation, and what kind of entry it is.
struct Item {
    text: String,
    kind: Kind,
}

/// Who an entry is from: how it is cut when old, and whether it stands for the entries
/// left out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A prompt the user typed.
    Prompt,
    /// The assistant's text or one of its calls.
    Assistant,
    /// A tool's output.
    Output,
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
    let (mut newest_first, mut left) = newest_entries(&entries, budget, fits);
    let mut reserve = 0;
    if newest_first.len() < entries.len() {
        // Even cut, not all fit: room is kept back for the user's messages among the
        // entries left out.
        reserve = budget / EARLIER_USER_SHARE;
        (newest_first, left) = newest_entries(&entries, budget - reserve, fits);
    }
    let omitted = entries.len() - newest_first.len();
    if omitted > 0 {
        kept.extend(earlier_user_messages(&entries[..omitted], left + reserve));
    }
    kept.extend(newest_first.into_iter().rev());
    kept.join("\n\n")
}

/// The newest entries that fit in `budget` characters, newest first, and the room they
/// leave. Unless all fit whole (`fits`), those before the newest third of the budget
/// are cut: a tool's output short, a text less.
fn newest_entries(entries: &[Item], mut budget: usize, fits: bool) -> (Vec<String>, usize) {
    let newest_part = budget / 3;
    let mut used = 0;
    let mut newest_first = Vec::new();
    for e in entries.iter().rev() {
        let text = if fits || used < newest_part {
            e.text.clone()
        } else if e.kind == Kind::Output {
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
                let cut = fit(&text, budget - 2);
                budget = budget.saturating_sub(cut.chars().count() + 2);
                newest_first.push(cut);
            }
            break;
        }
    }
    (newest_first, budget)
}

/// What stands for the entries left out: a marker counting them, and the user's
/// messages among them, oldest first, shortened to fit `room` characters. When even
/// shortened they do not fit, the oldest and the newest are kept and a marker counts
/// those between.
fn earlier_user_messages(left_out: &[Item], room: usize) -> Vec<String> {
    let users: Vec<&str> = left_out
        .iter()
        .filter(|e| e.kind == Kind::Prompt)
        .map(|e| e.text.as_str())
        .collect();
    let omitted = left_out.len();
    if users.is_empty() {
        return vec![format!("[… {omitted} earlier entries omitted …]")];
    }
    let head = match users.len() {
        1 => format!(
            "[… {omitted} earlier entries omitted; the user's message among them follows, shortened …]"
        ),
        n => format!(
            "[… {omitted} earlier entries omitted; the user's {n} messages among them follow, oldest first, shortened …]"
        ),
    };
    let mut room = room.saturating_sub(head.chars().count() + 2);
    let cap = (room / users.len()).clamp(EARLIER_USER_MIN_CHARS, EARLIER_USER_CHARS);
    // The cut's marker and the label come on top of the body kept.
    let shortened: Vec<String> = users.iter().map(|u| fit_entry(u, cap - 40)).collect();
    let size = |m: &String| m.chars().count() + 2;
    let mut out = vec![head];
    if shortened.iter().map(size).sum::<usize>() <= room {
        out.extend(shortened);
        return out;
    }
    // The oldest in half the room (the session's first requests), the newest in the rest.
    let mut oldest = Vec::new();
    let half = room / 2;
    let mut used = 0;
    for m in &shortened {
        if used + size(m) > half {
            break;
        }
        used += size(m);
        oldest.push(m.clone());
    }
    room -= used;
    let mut newest = Vec::new();
    for m in shortened[oldest.len()..].iter().rev() {
        // Room for the marker between the two, too.
        if size(m) + 60 > room {
            break;
        }
        room -= size(m);
        newest.push(m.clone());
    }
    let between = shortened.len() - oldest.len() - newest.len();
    out.extend(oldest);
    if between > 0 {
        out.push(format!(
            "[… {between} more of the user's messages omitted …]"
        ));
    }
    out.extend(newest.into_iter().rev());
    out
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
                    kind: Kind::Prompt,
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
                    kind: Kind::Output,
                });
            }
        }
        Entry::Assistant(a) if !a.synthetic => {
            for t in a.texts.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
                out.push(Item {
                    text: format!("Assistant:\n{t}"),
                    kind: Kind::Assistant,
                });
            }
            for c in &a.tool_calls {
                out.push(Item {
                    text: format!("Assistant called {}: {}", c.name, c.summary),
                    kind: Kind::Assistant,
                });
            }
        }
        _ => {}
    }
}
