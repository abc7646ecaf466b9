//! What must outlive every compaction of a session (docs/design.md §4.7): the user's
//! requests and standing instructions, their answers to Claude's questions, the commands
//! they ran in bash mode, what hooks required, the decisions taken, the approaches that
//! failed, what a model's summary found of the same, and the files changed earlier.
//!
//! Each memory holds them in its "Session so far" section, one `###` list of one-line
//! items per kind: those of its own segment, found without a model, after those carried
//! from the session's previous memory. So an instruction typed before the first
//! compaction is still in the memory (and the restore) of the third, and a model summary
//! replacing the AI summary never drops it.

use std::fmt::Write as _;

use crate::lang::Lang;
use crate::memory::Section;
use crate::memory::document::{FrontMatter, sections};
use crate::memory::labels::Labels;
use crate::text::one_line;
use crate::transcript::signals::Signals;
use crate::transcript::{Extraction, Transcript};
use crate::untrusted::{code, line};

use super::{choices, instructions, meaning, offline};

/// Longest item, in characters (a failed run says what worked, the error and what was
/// tried).
const ITEM_CHARS: usize = 420;
/// Longest request kept, in characters (the memory keeps the last one whole).
const REQUEST_CHARS: usize = 200;

/// One kind of lasting fact: a `###` list of Session so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// What the user asked for (continuations left out).
    Requests,
    /// Rules the user gave for how to work ("keep it to the same 3 files", "use pnpm").
    Constraints,
    /// The user's answers to Claude's questions.
    Answers,
    /// Commands the user ran in bash mode, and the end of their output.
    Context,
    /// What hooks required.
    Requirements,
    /// Decisions and their reasons: the user's answers and refusals, plans approved and
    /// refused, tests changed to fit the code, choices the transcript states.
    Decisions,
    /// Approaches that failed: runs of a failing command, refused and denied calls.
    Failed,
    /// The standing instructions a model's summary found.
    ModelPreferences,
    /// The decisions a model's summary found.
    ModelDecisions,
    /// The failed approaches a model's summary found.
    ModelFailed,
    /// Files changed before this memory's segment (its own are under Files).
    EarlierFiles,
}

impl Kind {
    /// Every kind, in the order Session so far lists them.
    pub const ALL: [Kind; 11] = [
        Kind::Requests,
        Kind::Constraints,
        Kind::Answers,
        Kind::Context,
        Kind::Requirements,
        Kind::Decisions,
        Kind::Failed,
        Kind::ModelPreferences,
        Kind::ModelDecisions,
        Kind::ModelFailed,
        Kind::EarlierFiles,
    ];

    /// The `###` heading of the kind's list.
    pub fn label(self, l: &Labels) -> &'static str {
        match self {
            Kind::Requests => l.your_requests,
            Kind::Constraints => l.standing,
            Kind::Answers => l.your_answers,
            Kind::Context => l.bash_context,
            Kind::Requirements => l.hook_requirements,
            Kind::Decisions => l.decisions_taken,
            Kind::Failed => l.failed_approaches,
            Kind::ModelPreferences => l.model_preferences,
            Kind::ModelDecisions => l.model_decisions,
            Kind::ModelFailed => l.model_failed,
            Kind::EarlierFiles => l.earlier_files,
        }
    }

    /// The kind a `###` heading (in either language) names.
    pub fn from_heading(heading: &str) -> Option<Kind> {
        let h = heading.trim();
        Kind::ALL.into_iter().find(|k| {
            [Lang::En, Lang::Zh]
                .iter()
                .any(|l| k.label(Labels::of(*l)) == h)
        })
    }

    /// Most items kept (the newest, once carried over many compactions).
    fn max(self) -> usize {
        match self {
            Kind::Requests | Kind::Decisions => 10,
            Kind::Constraints | Kind::Answers => 12,
            Kind::Context | Kind::Requirements => 6,
            Kind::Failed | Kind::ModelPreferences | Kind::ModelDecisions | Kind::ModelFailed => 8,
            Kind::EarlierFiles => 20,
        }
    }
}

/// The lasting facts of a session, oldest first in each list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionFacts {
    /// What the user asked for, one line each (continuations left out).
    pub requests: Vec<String>,
    /// Rules the user gave ("never touch the public API", "use pnpm").
    pub constraints: Vec<String>,
    /// The user's answers to Claude's questions, with the question.
    pub answers: Vec<String>,
    /// Commands the user ran in bash mode, and the end of what they printed.
    pub context: Vec<String>,
    /// What hooks required.
    pub requirements: Vec<String>,
    /// Decisions and their reasons, as the transcript shows them.
    pub decisions: Vec<String>,
    /// Approaches that were tried and failed.
    pub failed: Vec<String>,
    /// Standing instructions a model's summary found (marked as such in the memory).
    pub model_preferences: Vec<String>,
    /// Decisions a model's summary found.
    pub model_decisions: Vec<String>,
    /// Failed approaches a model's summary found.
    pub model_failed: Vec<String>,
    /// Files changed before this memory's segment (its own are under Files).
    pub earlier_files: Vec<String>,
    /// The headline of the memory these facts were carried from (not part of Session
    /// so far: its front matter's), which the next memory keeps unless the work changed.
    pub previous_headline: Option<String>,
}

impl SessionFacts {
    /// The list of one kind.
    pub fn list(&self, kind: Kind) -> &[String] {
        match kind {
            Kind::Requests => &self.requests,
            Kind::Constraints => &self.constraints,
            Kind::Answers => &self.answers,
            Kind::Context => &self.context,
            Kind::Requirements => &self.requirements,
            Kind::Decisions => &self.decisions,
            Kind::Failed => &self.failed,
            Kind::ModelPreferences => &self.model_preferences,
            Kind::ModelDecisions => &self.model_decisions,
            Kind::ModelFailed => &self.model_failed,
            Kind::EarlierFiles => &self.earlier_files,
        }
    }

    fn list_mut(&mut self, kind: Kind) -> &mut Vec<String> {
        match kind {
            Kind::Requests => &mut self.requests,
            Kind::Constraints => &mut self.constraints,
            Kind::Answers => &mut self.answers,
            Kind::Context => &mut self.context,
            Kind::Requirements => &mut self.requirements,
            Kind::Decisions => &mut self.decisions,
            Kind::Failed => &mut self.failed,
            Kind::ModelPreferences => &mut self.model_preferences,
            Kind::ModelDecisions => &mut self.model_decisions,
            Kind::ModelFailed => &mut self.model_failed,
            Kind::EarlierFiles => &mut self.earlier_files,
        }
    }
}

/// The facts of a segment that are found without its extraction: the costly part (every
/// request and every text of the assistant is read), so it can be found while the
/// extraction is made.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SegmentFacts {
    requests: Vec<String>,
    constraints: Vec<String>,
    choices: Vec<String>,
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
            constraints: instructions::from_prompts(&requests),
            choices: choices::from_prompts(&requests),
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

    /// The segment's facts, with what the extraction `ex` and the structural `signals`
    /// give: structural facts first (they are sure), then those found in words.
    pub fn with(self, ex: &Extraction, signals: &Signals, lang: Lang) -> SessionFacts {
        let found = meaning::from_signals(signals, lang);
        let mut constraints = found.constraints;
        constraints.extend(self.constraints);
        let mut decisions = found.decisions;
        decisions.extend(self.choices.iter().map(|c| match lang {
            Lang::En => format!("Your choice: “{c}”"),
            Lang::Zh => format!("用户的选择：“{c}”"),
        }));
        decisions.extend(offline::with_plan(
            ex,
            self.stated_decisions,
            &signals.plans,
            lang,
        ));
        let mut failed = found.failed;
        failed.extend(self.failed);
        SessionFacts {
            requests: self.requests,
            constraints: instructions::newest_wins(constraints),
            answers: found.answers,
            context: found.context,
            requirements: found.requirements,
            decisions: dedup(decisions),
            failed: dedup(failed),
            ..SessionFacts::default()
        }
    }
}

impl SessionFacts {
    /// These facts after `earlier` (from the session's previous memory), without
    /// repeats; `modified` (this memory's own files) is left out of the earlier files.
    pub fn after(self, earlier: &SessionFacts, modified: &[String]) -> SessionFacts {
        let mut out = SessionFacts::default();
        for kind in Kind::ALL {
            let new = self.list(kind).to_vec();
            let merged = match kind {
                Kind::EarlierFiles => {
                    let mut files = merge(&earlier.earlier_files, new, usize::MAX);
                    files.retain(|f| !modified.contains(f));
                    let start = files.len().saturating_sub(kind.max());
                    files.split_off(start)
                }
                // A newer rule replaces the older one it restates or revises.
                Kind::Constraints => {
                    let all = earlier.constraints.iter().cloned().chain(new).collect();
                    let kept = instructions::newest_wins(all);
                    let start = kept.len().saturating_sub(kind.max());
                    kept[start..].to_vec()
                }
                _ => merge(earlier.list(kind), new, kind.max()),
            };
            *out.list_mut(kind) = merged;
        }
        out
    }

    /// Whether there is nothing to say.
    pub fn is_empty(&self) -> bool {
        Kind::ALL.iter().all(|k| self.list(*k).is_empty())
    }

    /// The facts a memory file holds (its "Session so far" section).
    pub fn from_memory(text: &str) -> SessionFacts {
        Self::read(text, false)
    }

    /// What a memory hands on to the session's next one: its facts, with the files it
    /// lists as modified added to the earlier files, and what a model's summary of it
    /// found (decisions, preferences, failed approaches), marked as the model's.
    pub fn carried_from(text: &str) -> SessionFacts {
        let mut facts = Self::read(text, true);
        facts.previous_headline = previous_headline(text);
        facts.add_model(text);
        facts
    }

    /// What the restore right after a compaction tells of a memory: its facts, and what
    /// its own model summary found when one has landed, marked as the model's.
    pub fn for_restore(text: &str) -> SessionFacts {
        let mut facts = Self::read(text, false);
        facts.add_model(text);
        facts
    }

    /// Adds what the model summary of the memory `text` found (none for an offline one).
    fn add_model(&mut self, text: &str) {
        if let Some(model) = meaning::model_facts(text) {
            for (kind, items) in [
                (Kind::ModelPreferences, model.preferences),
                (Kind::ModelDecisions, model.decisions),
                (Kind::ModelFailed, model.failed),
            ] {
                let list = self.list_mut(kind);
                *list = merge(list, items, kind.max());
            }
        }
    }

    fn read(text: &str, with_modified: bool) -> SessionFacts {
        let mut facts = SessionFacts::default();
        let mut modified = Vec::new();
        for span in sections(text) {
            let body = &text[span.range.clone()];
            match span.section {
                Section::Session => {
                    let mut kind: Option<Kind> = None;
                    for line in body.lines().skip(1) {
                        if let Some(h) = line.strip_prefix("### ") {
                            kind = Kind::from_heading(h);
                        } else if let (Some(k), Some(item)) = (kind, line.strip_prefix("- ")) {
                            facts.list_mut(k).push(uncode(item));
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
        for kind in Kind::ALL {
            let items = self.list(kind);
            if items.is_empty() {
                continue;
            }
            let _ = writeln!(out, "### {}\n", kind.label(l));
            for i in items {
                let item = line(i, ITEM_CHARS);
                let shown = if kind == Kind::EarlierFiles {
                    code(&item)
                } else {
                    item
                };
                let _ = writeln!(out, "- {shown}");
            }
            out.push('\n');
        }
        out
    }
}

/// The headline of a memory, when it has one: what the session's next memory keeps
/// unless the work changed.
fn previous_headline(text: &str) -> Option<String> {
    FrontMatter::parse(text)
        .map(|(fm, _)| fm.summary)
        .filter(|s| !s.trim().is_empty())
}

/// `earlier` then the new items not already there, the newest `max` kept.
fn merge(earlier: &[String], new: Vec<String>, max: usize) -> Vec<String> {
    let mut out = dedup(earlier.iter().cloned().chain(new).collect());
    let start = out.len().saturating_sub(max);
    out.split_off(start)
}

/// The items in order, each once (compared case-insensitively; an item that begins
/// another, "Plan approved: X" and "Plan approved: X (its steps) (ExitPlanMode, …)", is
/// the same item, and the first kept).
fn dedup(items: Vec<String>) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    for item in items {
        let key = item.trim().to_lowercase();
        let same = |k: &String| {
            *k == key
                || (k.chars().count().min(key.chars().count()) >= 20
                    && (k.starts_with(&key) || key.starts_with(k.as_str())))
        };
        if !key.is_empty() && !keys.iter().any(same) {
            keys.push(key);
            kept.push(item);
        }
    }
    kept
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
            answers: vec!["“Which rig?” → No rig (AskUserQuestion)".into()],
            context: vec!["`uv run ty check` → Found 5 diagnostics (bash mode)".into()],
            requirements: vec!["Stop hook: Cannot exit with unstaged changes.".into()],
            decisions: vec!["I chose round-half-even because the tax office does.".into()],
            failed: vec!["The Redis token bucket approach failed: no Redis.".into()],
            model_preferences: vec!["Keep the public API stable".into()],
            model_decisions: vec!["Round half to even".into()],
            model_failed: vec!["A Redis token bucket".into()],
            earlier_files: vec!["src/billing/clock.rs".into(), "a `tick`.rs".into()],
            previous_headline: None,
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
    fn every_kind_has_its_own_heading_in_each_language() {
        for lang in [Lang::En, Lang::Zh] {
            let l = Labels::of(lang);
            let labels: std::collections::HashSet<_> =
                Kind::ALL.iter().map(|k| k.label(l)).collect();
            assert_eq!(labels.len(), Kind::ALL.len(), "{lang:?}");
            for k in Kind::ALL {
                assert_eq!(Kind::from_heading(k.label(l)), Some(k));
            }
        }
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
                "never touch the public API in src/api.rs.",
                "Don't change the database schema."
            ],
            "the newer wording of the same rule wins"
        );
        assert_eq!(merged.decisions.len(), Kind::Decisions.max());
        assert_eq!(merged.decisions.last().unwrap(), "decided 11");
        assert_eq!(merged.earlier_files, ["a `tick`.rs"]);
        assert_eq!(merged.answers, earlier.answers);
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
