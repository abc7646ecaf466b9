//! What must outlive every compaction of a session: the user's standing instructions,
//! the decisions taken, the approaches that failed and the files changed earlier.
//!
//! Each memory holds them in its "Session so far" section: those of its own segment,
//! found without a model, after those carried from the session's previous memory. So
//! an instruction typed before the first compaction is still in the memory (and the
//! restore) of the third, and a model summary replacing the AI summary never drops it.

use std::fmt::Write as _;

use crate::lang::Lang;
use crate::memory::Section;
use crate::memory::document::sections;
use crate::memory::labels::Labels;
use crate::text::one_line;
use crate::transcript::{Extraction, Transcript};
use crate::untrusted::{code, line};

use super::offline;

/// Most items kept of each kind (the newest, once carried over many compactions).
const MAX_REQUESTS: usize = 10;
const MAX_CONSTRAINTS: usize = 12;
const MAX_DECISIONS: usize = 10;
const MAX_FAILED: usize = 8;
const MAX_EARLIER_FILES: usize = 20;
/// Longest item, in characters.
const ITEM_CHARS: usize = 300;
/// Longest request kept, in characters (the memory keeps the last one whole).
const REQUEST_CHARS: usize = 200;

/// The lasting facts of a session, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionFacts {
    /// What the user asked for, one line each (continuations left out).
    pub requests: Vec<String>,
    /// Rules the user typed ("never touch the public API", "don't add dependencies").
    pub constraints: Vec<String>,
    /// Decisions and their reasons, as the transcript states them.
    pub decisions: Vec<String>,
    /// Approaches that were tried and failed, in the assistant's words.
    pub failed: Vec<String>,
    /// Files changed before this memory's segment (its own are under Files).
    pub earlier_files: Vec<String>,
}

/// The facts of a segment that are found without its extraction: the costly part (every
/// request and every text of the assistant is read), so it can be found while the
/// extraction is made.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SegmentFacts {
    requests: Vec<String>,
    constraints: Vec<String>,
    stated_decisions: Vec<String>,
    failed: Vec<String>,
}

impl SegmentFacts {
    /// What the user's requests in the segment give: the requests and the rules typed.
    pub fn of_requests(t: &Transcript) -> SegmentFacts {
        let requests = t.segment_prompts();
        SegmentFacts {
            requests: requests
                .iter()
                .filter(|r| !crate::transcript::is_continuation(r))
                .map(|r| one_line(r, REQUEST_CHARS))
                .collect(),
            constraints: offline::constraints(&requests),
            ..SegmentFacts::default()
        }
    }

    /// What the assistant's texts in the segment give: decisions and failed approaches.
    pub fn of_assistant(t: &Transcript) -> SegmentFacts {
        let assistant = t.segment_assistant_texts();
        SegmentFacts {
            stated_decisions: offline::stated_decisions(&assistant),
            failed: offline::failed_approaches(&assistant),
            ..SegmentFacts::default()
        }
    }

    /// The facts of [`SegmentFacts::of_requests`] with those of
    /// [`SegmentFacts::of_assistant`].
    pub fn and(self, assistant: SegmentFacts) -> SegmentFacts {
        SegmentFacts {
            stated_decisions: assistant.stated_decisions,
            failed: assistant.failed,
            ..self
        }
    }

    /// The segment's facts, with the plan the extraction `ex` found approved.
    pub fn with(self, ex: &Extraction, lang: Lang) -> SessionFacts {
        SessionFacts {
            requests: self.requests,
            constraints: self.constraints,
            decisions: offline::with_plan(ex, self.stated_decisions, lang),
            failed: self.failed,
            earlier_files: Vec::new(),
        }
    }
}

impl SessionFacts {
    /// These facts after `earlier` (from the session's previous memory), without
    /// repeats; `modified` (this memory's own files) is left out of the earlier files.
    pub fn after(self, earlier: &SessionFacts, modified: &[String]) -> SessionFacts {
        SessionFacts {
            requests: merge(&earlier.requests, self.requests, MAX_REQUESTS),
            constraints: merge(&earlier.constraints, self.constraints, MAX_CONSTRAINTS),
            decisions: merge(&earlier.decisions, self.decisions, MAX_DECISIONS),
            failed: merge(&earlier.failed, self.failed, MAX_FAILED),
            earlier_files: {
                let mut files = merge(&earlier.earlier_files, Vec::new(), usize::MAX);
                files.retain(|f| !modified.contains(f));
                let start = files.len().saturating_sub(MAX_EARLIER_FILES);
                files.split_off(start)
            },
        }
    }

    /// Whether there is nothing to say.
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty()
            && self.constraints.is_empty()
            && self.decisions.is_empty()
            && self.failed.is_empty()
            && self.earlier_files.is_empty()
    }

    /// The facts a memory file holds (its "Session so far" section).
    pub fn from_memory(text: &str) -> SessionFacts {
        Self::read(text, false)
    }

    /// What a memory hands on to the session's next one: its facts, with the files it
    /// lists as modified added to the earlier files.
    pub fn carried_from(text: &str) -> SessionFacts {
        Self::read(text, true)
    }

    fn read(text: &str, with_modified: bool) -> SessionFacts {
        let mut facts = SessionFacts::default();
        let mut modified = Vec::new();
        for span in sections(text) {
            let body = &text[span.range.clone()];
            match span.section {
                Section::Session => {
                    let mut list: Option<&mut Vec<String>> = None;
                    for line in body.lines().skip(1) {
                        if let Some(h) = line.strip_prefix("### ") {
                            let h = h.trim();
                            let is = |f: fn(&Labels) -> &'static str| {
                                [Lang::En, Lang::Zh].iter().any(|l| f(Labels::of(*l)) == h)
                            };
                            list = if is(|l| l.your_requests) {
                                Some(&mut facts.requests)
                            } else if is(|l| l.standing) {
                                Some(&mut facts.constraints)
                            } else if is(|l| l.decisions_taken) {
                                Some(&mut facts.decisions)
                            } else if is(|l| l.failed_approaches) {
                                Some(&mut facts.failed)
                            } else if is(|l| l.earlier_files) {
                                Some(&mut facts.earlier_files)
                            } else {
                                None
                            };
                        } else if let (Some(list), Some(item)) =
                            (list.as_deref_mut(), line.strip_prefix("- "))
                        {
                            list.push(uncode(item));
                        }
                    }
                }
                Section::Files if with_modified => {
                    // Only the Modified list: the first sub-list of the section.
                    modified.extend(
                        body.lines()
                            .skip_while(|l| !l.starts_with("### "))
                            .skip(1)
                            .take_while(|l| !l.starts_with("### "))
                            .filter_map(|l| l.strip_prefix("- "))
                            .map(uncode),
                    );
                }
                _ => {}
            }
        }
        // The memory's own files are newer than those it carried.
        facts.earlier_files.extend(modified);
        facts
    }

    /// The "Session so far" section.
    pub fn render(&self, lang: Lang) -> String {
        let l = Labels::of(lang);
        let mut out = format!("## {}\n\n", l.session);
        if self.is_empty() {
            let _ = writeln!(out, "{}\n", l.nothing_lasting);
            return out;
        }
        let mut list = |title: &str, items: &[String], as_code: bool| {
            if items.is_empty() {
                return;
            }
            let _ = writeln!(out, "### {title}\n");
            for i in items {
                let item = line(i, ITEM_CHARS);
                let _ = writeln!(out, "- {}", if as_code { code(&item) } else { item });
            }
            out.push('\n');
        };
        list(l.your_requests, &self.requests, false);
        list(l.standing, &self.constraints, false);
        list(l.decisions_taken, &self.decisions, false);
        list(l.failed_approaches, &self.failed, false);
        list(l.earlier_files, &self.earlier_files, true);
        out
    }
}

/// `earlier` then the new items not already there, the newest `max` kept.
fn merge(earlier: &[String], new: Vec<String>, max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for item in earlier.iter().cloned().chain(new) {
        let key = item.trim().to_lowercase();
        if !key.is_empty() && seen.insert(key) {
            out.push(item);
        }
    }
    let start = out.len().saturating_sub(max);
    out.split_off(start)
}

/// A list item without the backticks [`code`] put around it.
fn uncode(item: &str) -> String {
    let t = item.trim();
    let ticks = t.chars().take_while(|c| *c == '`').count();
    if ticks > 0 && t.len() > 2 * ticks && t.ends_with(&"`".repeat(ticks)) {
        t[ticks..t.len() - ticks].trim().to_string()
    } else {
        t.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> SessionFacts {
        SessionFacts {
            requests: vec!["Fix the invoice rounding".into()],
            constraints: vec!["Never touch the public API in src/api.rs.".into()],
            decisions: vec!["I chose round-half-even because the tax office does.".into()],
            failed: vec!["The Redis token bucket approach failed: no Redis.".into()],
            earlier_files: vec!["src/billing/clock.rs".into(), "a `tick`.rs".into()],
        }
    }

    #[test]
    fn the_section_reads_back_in_both_languages() {
        for lang in [Lang::En, Lang::Zh] {
            let text = format!("# Memory\n\n## {}\n\n{}", Labels::of(lang).files, "");
            let doc = format!("{text}{}", facts().render(lang));
            assert_eq!(SessionFacts::from_memory(&doc), facts(), "{lang:?}");
        }
        let empty = SessionFacts::default().render(Lang::En);
        assert_eq!(SessionFacts::from_memory(&empty), SessionFacts::default());
    }

    #[test]
    fn carried_facts_come_first_once_and_the_newest_are_kept() {
        let earlier = facts();
        let mut now = SessionFacts {
            constraints: vec![
                "never touch the public API in src/api.rs.".into(),
                "Don't change the database schema.".into(),
            ],
            ..SessionFacts::default()
        };
        now.decisions = (0..12).map(|i| format!("decided {i}")).collect();
        let merged = now.after(&earlier, &["src/billing/clock.rs".into()]);
        assert_eq!(
            merged.constraints,
            [
                "Never touch the public API in src/api.rs.",
                "Don't change the database schema."
            ]
        );
        assert_eq!(merged.decisions.len(), MAX_DECISIONS);
        assert_eq!(merged.decisions.last().unwrap(), "decided 11");
        assert_eq!(merged.earlier_files, ["a `tick`.rs"]);
    }

    #[test]
    fn modified_files_of_a_memory_become_earlier_files() {
        let doc =
            "## Files\n\n### Modified\n\n- `src/a.rs`\n- `src/b.rs`\n\n### Read\n\n- `src/c.rs`\n";
        assert_eq!(
            SessionFacts::carried_from(doc).earlier_files,
            ["src/a.rs", "src/b.rs"]
        );
        assert!(SessionFacts::from_memory(doc).earlier_files.is_empty());
    }
}
