//! What a memory hands on, read back from its text: the facts of its "Session so far"
//! (for the next memory of the session and the restore), its task list and headline
//! from the front matter, and what a model's summary of it found. The shapes are the
//! summary's ([`SessionFacts`]); reading them out of a memory file is the document's
//! business, so it lives here.

use super::document::{FrontMatter, sections};
use crate::lang::Lang;
use crate::summary::facts::merge;
use crate::summary::labels::{Labels, Section};
use crate::summary::session::{Kind, SessionFacts, uncode};

impl SessionFacts {
    /// The facts a memory file holds (its "Session so far" section).
    pub fn from_memory(text: &str) -> SessionFacts {
        Self::read(text, false)
    }

    /// What a memory hands on to the session's next one: its facts, with the files it
    /// lists as modified added to the earlier files, its tasks to those done earlier or
    /// left open, its headline, and what a model's summary of it found (decisions,
    /// preferences, failed approaches), marked as the model's.
    pub fn carried_from(text: &str) -> SessionFacts {
        let mut facts = Self::read(text, true);
        let front = FrontMatter::parse(text).map(|(fm, _)| fm);
        // The memory's own task list, as its front matter records it: the next memory's
        // "done earlier" and "left open" once the tasks leave the list. Newer than those
        // it carried, so after them.
        for t in front
            .iter()
            .filter_map(|f| f.todos.as_ref()?.as_ref())
            .flat_map(|l| &l.items)
        {
            let task = crate::transcript::task_text(&t.content);
            if t.is_open() {
                facts.left_open.push(task);
            } else {
                facts.earlier_tasks.push(task);
            }
        }
        // Its headline, which the next memory keeps unless the work changed.
        facts.previous_headline = front.map(|fm| fm.summary).filter(|s| !s.trim().is_empty());
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
        if let Some(model) = model_facts(text) {
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
                Section::Session => facts.read_lists(body),
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
}

/// What a model's summary of a memory found, when the memory has one.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct ModelFacts {
    pub preferences: Vec<String>,
    pub decisions: Vec<String>,
    pub failed: Vec<String>,
}

/// The standing instructions, decisions and failed approaches of the AI summary of a
/// memory whose summary a model wrote (`summary_source` not `offline`); `None` for an
/// offline summary, whose lists are Session so far's own.
pub(crate) fn model_facts(text: &str) -> Option<ModelFacts> {
    let (fm, _) = FrontMatter::parse(text)?;
    if fm.summary_source.is_empty() || fm.summary_source == crate::summary::OFFLINE_SOURCE {
        return None;
    }
    let span = sections(text)
        .into_iter()
        .find(|s| s.section == Section::AiSummary)?;
    let body = &text[span.range];
    let heading_is = |h: &str, f: fn(&Labels) -> &'static str| {
        [Lang::En, Lang::Zh].iter().any(|l| f(Labels::of(*l)) == h)
    };
    let mut facts = ModelFacts::default();
    let mut list: Option<&mut Vec<String>> = None;
    for line in body.lines() {
        if let Some(h) = line.strip_prefix("### ") {
            let h = h.trim();
            list = if heading_is(h, |l| l.key_decisions) {
                Some(&mut facts.decisions)
            } else if heading_is(h, |l| l.preferences) {
                Some(&mut facts.preferences)
            } else if heading_is(h, |l| l.failed_approaches) {
                Some(&mut facts.failed)
            } else {
                None
            };
            continue;
        }
        let Some(list) = list.as_deref_mut() else {
            continue;
        };
        // `- **Decision**: x` then `  - **Reason**: y`; `- x` elsewhere.
        if let Some(reason) = line.strip_prefix("  - ") {
            if let (Some(last), Some((_, r))) = (list.last_mut(), reason.split_once("**: ")) {
                last.push_str(" — ");
                last.push_str(r.trim());
            }
        } else if let Some(item) = line.strip_prefix("- ") {
            let item = item.split_once("**: ").map_or(item, |(_, v)| v).trim();
            if !item.is_empty() && !item.starts_with('(') && !item.starts_with('（') {
                list.push(item.to_string());
            }
        }
    }
    Some(facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_compacted_many_times_keeps_its_twelve_newest_model_decisions() {
        let memory = |from: usize| {
            let decisions: String = (from..from + 5)
                .map(|i| format!("- **Decision**: Choice number {i}\n  - **Reason**: r{i}\n"))
                .collect();
            format!(
                "---\nmemory_stalker: 1\nsummary: \"x\"\nsummary_source: \"claude-cli\"\n---\n# M\n\n## AI summary\n\n### Key decisions\n\n{decisions}"
            )
        };
        let mut facts = SessionFacts::default();
        for from in [0, 5, 10] {
            facts.add_model(&memory(from));
        }
        let kept: Vec<String> = (3..15)
            .map(|i| format!("Choice number {i} — r{i}"))
            .collect();
        assert_eq!(facts.model_decisions, kept);
    }

    #[test]
    fn a_model_summary_gives_its_lists_and_an_offline_one_none() {
        let memory = |source: &str| {
            format!(
                "---\nmemory_stalker: 1\nsummary: \"x\"\nsummary_source: \"{source}\"\n---\n# M\n\n## AI summary\n\n### Key decisions\n\n- **Decision**: Use SQLite\n  - **Reason**: no server\n\n### User preferences\n\n- Keep the API stable\n\n### Follow-ups\n\n- [ ] later\n"
            )
        };
        assert_eq!(model_facts(&memory("offline")), None);
        assert_eq!(
            model_facts(&memory("claude-cli")),
            Some(ModelFacts {
                preferences: vec!["Keep the API stable".into()],
                decisions: vec!["Use SQLite — no server".into()],
                failed: vec![],
            })
        );
    }
}
