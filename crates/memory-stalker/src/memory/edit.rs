//! Editing a saved memory: the few changes later hooks make to a memory already on disk
//! (the model's summary, Claude Code's compaction summary, the trigger), each in the
//! memory's own language, redacted as configured, front matter values quoted.
//!
//! Meant to run inside [`crate::store::MemoryStore::update`], which holds the memory's
//! lock and rewrites the file atomically.

use super::document::Trigger;
use super::document::{
    FrontMatter, render_ai_summary, render_compaction_summary, replace_section, sections,
    set_front_matter_field, trigger_text,
};
use crate::lang::Lang;
use crate::redact::redact_if;
use crate::summary::Summary;
use crate::summary::labels::{Labels, Section};

/// A memory's text under edit, its front matter parsed once.
#[derive(Debug, Clone)]
pub struct MemoryEdit {
    text: String,
    /// `None` for a text without front matter: its fields are then left alone.
    front: Option<FrontMatter>,
    /// The memory's language (English without front matter): new text is in it.
    lang: Lang,
    /// Whether what an edit inserts is redacted (the text already there was, when saved).
    redact: bool,
}

impl MemoryEdit {
    /// Starts editing `text`; `redact` redacts what the edits insert.
    pub fn new(text: &str, redact: bool) -> MemoryEdit {
        let front = FrontMatter::parse(text).map(|(fm, _)| fm);
        MemoryEdit {
            text: text.to_string(),
            lang: front.as_ref().map_or(Lang::En, |fm| fm.lang),
            front,
            redact,
        }
    }

    /// The memory's language.
    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// The front matter as parsed (with the fields set by this edit), if there is one.
    pub fn front_matter(&self) -> Option<&FrontMatter> {
        self.front.as_ref()
    }

    /// Replaces the AI summary section with `summary` by `source` (and `note` above
    /// it), leaving the front matter's headline: for a summary that is not the one the
    /// listing should show.
    pub fn set_summary_section(&mut self, summary: &Summary, source: &str, note: Option<&str>) {
        // What the memory's Session so far lists, which an offline summary points at.
        let mut lasting = crate::summary::session::SessionFacts::default();
        for span in sections(&self.text) {
            if span.section == Section::Session {
                lasting.read_lists(&self.text[span.range.clone()]);
            }
        }
        let listed = lasting.listed();
        let summary = not_said_before(summary, &lasting);
        let section = render_ai_summary(&summary, source, note, listed, self.lang);
        self.replace_section(Section::AiSummary, &section);
    }

    /// Replaces the AI summary section with `summary` by `source`, and the front
    /// matter's `summary` (its headline) and `summary_source` with theirs.
    pub fn set_ai_summary(&mut self, summary: &Summary, source: &str) {
        self.set_summary_section(summary, source, None);
        // Kept whole, not cut to a listing line: JSON quoting keeps it on one line.
        let headline = redact_if(self.redact, &summary.headline).into_owned();
        // A source is a backend and model name this tool made up, not session text.
        self.set_field("summary", &headline);
        self.set_field("summary_source", source);
        if let Some(fm) = &mut self.front {
            fm.summary = headline;
            fm.summary_source = source.to_string();
        }
    }

    /// Adds the agent's compaction summary `summary` (Claude Code's, or Codex's for a
    /// Codex memory), replacing any there was.
    pub fn set_compaction_summary(&mut self, summary: &str) {
        let agent = self.front.as_ref().map(|fm| fm.agent).unwrap_or_default();
        let section = render_compaction_summary(summary, self.lang, agent);
        self.replace_section(Section::CompactionSummary, &section);
    }

    /// Sets the trigger, in the front matter and in the trigger line of the Metadata
    /// section (found by structure, see [`sections`]). Nothing without front matter. Not
    /// redacted: a trigger is Claude Code's word for what started the compaction.
    pub fn set_trigger(&mut self, trigger: &Trigger) {
        let Some(fm) = &mut self.front else {
            return;
        };
        fm.trigger = trigger.clone();
        self.set_field("trigger", trigger.as_str());
        let label = Labels::of(self.lang).trigger;
        let prefix = format!("\n- {label}: ");
        let Some(span) = sections(&self.text)
            .into_iter()
            .find(|s| s.section == Section::Metadata)
        else {
            return;
        };
        if let Some(at) = self.text[span.range.clone()].find(&prefix) {
            let start = span.range.start + at + 1;
            let end = self.text[start..]
                .find('\n')
                .map_or(self.text.len(), |i| start + i);
            let new = format!("- {label}: {}", trigger_text(trigger));
            self.text.replace_range(start..end, &new);
        }
    }

    /// The edited text.
    pub fn finish(self) -> String {
        self.text
    }

    /// Replaces (or appends) `section` with `rendered`, redacted once here.
    fn replace_section(&mut self, section: Section, rendered: &str) {
        self.text = replace_section(&self.text, section, &redact_if(self.redact, rendered));
    }

    /// Sets a front matter string field to `value`, quoted as a JSON string (which is
    /// valid YAML, see [`FrontMatter::render`]).
    fn set_field(&mut self, key: &str, value: &str) {
        self.text = set_front_matter_field(&self.text, key, &crate::untrusted::json(value));
    }
}

/// `summary` without the decisions, standing instructions and failed approaches that
/// restate an item Session so far already lists (the offline lists, and those carried
/// from earlier model summaries): the memory, the restore and the next memory say each
/// thing once.
fn not_said_before(summary: &Summary, lasting: &crate::summary::session::SessionFacts) -> Summary {
    let new = |item: &str, before: &[&Vec<String>]| {
        !before
            .iter()
            .flat_map(|l| l.iter())
            .any(|b| crate::text::restates(item, b))
    };
    let mut out = summary.clone();
    out.key_decisions
        .retain(|d| new(&d.decision, &[&lasting.decisions, &lasting.model_decisions]));
    out.user_preferences
        .retain(|p| new(p, &[&lasting.constraints, &lasting.model_preferences]));
    out.failed_approaches
        .retain(|f| new(f, &[&lasting.failed, &lasting.model_failed]));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::{CodeChange, OFFLINE_SOURCE};

    /// A memory as the hook writes one, trimmed to what the edits touch.
    fn memory(lang: &str, trigger: &str) -> String {
        let l = Labels::of(Lang::parse(lang).unwrap());
        format!(
            "---\nmemory_stalker: 1\nsession_id: \"s\"\ntrigger: \"{trigger}\"\nsummary: \"offline headline\"\nsummary_source: \"offline\"\nlang: \"{lang}\"\n---\n\n# {title}\n\n## {metadata}\n\n- {label}: {trigger}\n- x: y\n\n## {ai}\n\nold summary\n",
            title = l.title,
            metadata = l.metadata,
            label = l.trigger,
            ai = l.ai_summary,
        )
    }

    fn summary(headline: &str) -> Summary {
        Summary {
            headline: headline.into(),
            task_summary: vec!["did a thing".into()],
            code_changes: vec![CodeChange {
                file: "src/a.rs".into(),
                action: "modified".into(),
                note: String::new(),
            }],
            ..Summary::default()
        }
    }

    #[test]
    fn ai_summary_replaces_the_section_headline_and_source() {
        let mut edit = MemoryEdit::new(&memory("en", "auto"), false);
        edit.set_ai_summary(&summary("New \"headline\"\nline two"), "anthropic:m");
        assert_eq!(edit.front_matter().unwrap().summary_source, "anthropic:m");
        let text = edit.finish();
        assert!(
            text.contains("\nsummary: \"New \\\"headline\\\"\\nline two\"\n"),
            "{text}"
        );
        assert!(
            text.contains("\nsummary_source: \"anthropic:m\"\n"),
            "{text}"
        );
        assert!(!text.contains("old summary"), "{text}");
        assert!(text.ends_with(&render_ai_summary(
            &summary("x"),
            "anthropic:m",
            None,
            crate::summary::session::Listed::default(),
            Lang::En
        )));
        // The front matter still reads back, with the new values.
        let (fm, _) = FrontMatter::parse(&text).unwrap();
        assert_eq!(fm.summary, "New \"headline\"\nline two");
        assert_eq!(fm.trigger, Trigger::Auto);
    }

    /// A model's item that restates one Session so far lists is not said twice; one that
    /// is new stays.
    #[test]
    fn a_models_item_already_in_session_so_far_is_said_once() {
        let text = "---\nmemory_stalker: 1\nsummary_source: \"offline\"\n---\n\n## Session so far\n\n### Decisions\n\n- Keep the retry budget in a separate RetryBudget type so the tests can inspect it\n\n### Approaches that failed (from a model's summary)\n\n- A Redis token bucket failed: no Redis in CI\n\n## AI summary\n\nold\n";
        let summary = Summary {
            headline: "h".into(),
            task_summary: vec!["t".into()],
            key_decisions: vec![
                crate::summary::Decision {
                    decision:
                        "A separate RetryBudget type keeps the retry budget inspectable by tests"
                            .into(),
                    reason: String::new(),
                },
                crate::summary::Decision {
                    decision: "Treat HTTP 429 as retryable and honour Retry-After".into(),
                    reason: String::new(),
                },
            ],
            failed_approaches: vec!["Redis token bucket: no Redis available in CI".into()],
            ..Summary::default()
        };
        let mut edit = MemoryEdit::new(text, false);
        edit.set_ai_summary(&summary, "anthropic:m");
        let out = edit.finish();
        let ai = &out[out.find("## AI summary").unwrap()..];
        assert!(!ai.contains("RetryBudget"), "{ai}");
        assert!(ai.contains("Retry-After"), "{ai}");
        assert!(!ai.contains("Redis"), "{ai}");
    }

    /// Every key the prompt asks the model for reaches the memory a person and the
    /// model read: a key the prompt gains and the memory drops fails here (the model's
    /// failed approaches were once asked for and never written).
    #[test]
    fn every_key_the_prompt_asks_for_reaches_the_memory() {
        let template = crate::summary::prompt::DEFAULT_TEMPLATE;
        let skeleton = &template[template.find("\n{\n").unwrap()..];
        let skeleton = &skeleton[..skeleton.find("\n}\n").unwrap() + 3];
        let asked: serde_json::Value = serde_json::from_str(skeleton).unwrap();
        let asked = asked.as_object().unwrap();
        assert!(asked.len() >= 7, "{skeleton}");
        for key in asked.keys() {
            // One answer with a marker in `key` only, read as the hook reads an answer.
            let mut answer = serde_json::json!({
                "headline": "h", "task_summary": ["t"], "code_changes": [],
                "key_decisions": [], "user_preferences": [], "follow_ups": [],
                "failed_approaches": [],
            });
            let marker = format!("marker-of-{key}");
            answer[key.as_str()] = match &asked[key] {
                serde_json::Value::String(_) => marker.clone().into(),
                serde_json::Value::Array(a) if a.first().is_some_and(|v| v.is_object()) => {
                    let mut item = a[0].clone();
                    for v in item.as_object_mut().unwrap().values_mut() {
                        *v = marker.clone().into();
                    }
                    serde_json::json!([item])
                }
                _ => serde_json::json!([marker]),
            };
            let summary = crate::summary::answer::parse(&answer.to_string()).unwrap();
            let mut edit = MemoryEdit::new(&memory("en", "auto"), false);
            edit.set_ai_summary(&summary, "anthropic:m");
            let text = edit.finish();
            let body = &text[super::super::document::body_start(&text).unwrap()..];
            let shown = body.contains(&marker)
                || (key == "headline" && FrontMatter::parse(&text).unwrap().0.summary == marker);
            assert!(shown, "the model's {key} is not in the memory:\n{text}");
        }
    }

    #[test]
    fn summary_section_keeps_the_front_matter() {
        let original = memory("en", "auto");
        let mut edit = MemoryEdit::new(&original, false);
        edit.set_summary_section(&summary("ignored"), OFFLINE_SOURCE, Some("it failed"));
        let text = edit.finish();
        let body = FrontMatter::parse(&original).unwrap().1;
        assert_eq!(text[..body], original[..body]);
        assert!(text.contains("> it failed\n"), "{text}");
        assert!(!text.contains("old summary"), "{text}");
    }

    #[test]
    fn compaction_summary_is_appended_then_replaced() {
        let mut edit = MemoryEdit::new(&memory("en", "auto"), false);
        edit.set_compaction_summary("first\n## not a heading");
        edit.set_compaction_summary("second");
        let text = edit.finish();
        assert_eq!(text.matches("## Claude Code compaction summary").count(), 1);
        assert!(
            text.ends_with(
                "old summary\n\n## Claude Code compaction summary\n\n```markdown\nsecond\n```\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn trigger_goes_into_the_front_matter_and_the_metadata_line() {
        let mut edit = MemoryEdit::new(&memory("en", "unknown"), false);
        edit.set_trigger(&Trigger::Manual);
        assert_eq!(edit.front_matter().unwrap().trigger, Trigger::Manual);
        let text = edit.finish();
        assert!(text.contains("\ntrigger: \"manual\"\n"), "{text}");
        assert!(text.contains("\n- Trigger: manual\n"), "{text}");
        assert!(!text.contains("unknown"), "{text}");
    }

    #[test]
    fn chinese_memories_get_chinese_sections_and_labels() {
        let mut edit = MemoryEdit::new(&memory("zh", "unknown"), false);
        assert_eq!(edit.lang(), Lang::Zh);
        edit.set_trigger(&Trigger::Auto);
        edit.set_compaction_summary("摘要");
        edit.set_ai_summary(&summary("标题"), "openai:m");
        let text = edit.finish();
        assert!(text.contains("\n- 触发方式: auto\n"), "{text}");
        assert!(
            text.contains("\n## Claude Code 压缩摘要\n\n```markdown\n摘要\n```\n"),
            "{text}"
        );
        assert!(text.contains("\n## AI 生成摘要\n"), "{text}");
        assert!(!text.contains("## AI summary"), "{text}");
        assert!(text.contains("\nsummary: \"标题\"\n"), "{text}");
    }

    #[test]
    fn inserted_text_is_redacted_when_asked() {
        let secret = "AKIAIOSFODNN7EXAMPLE";
        let with_secret = summary(&format!("key {secret}"));
        for redact in [true, false] {
            let mut edit = MemoryEdit::new(&memory("en", "auto"), redact);
            edit.set_ai_summary(&with_secret, "anthropic:m");
            edit.set_compaction_summary(&format!("the key is {secret}"));
            let text = edit.finish();
            // In the headline, the section's task list... and the compaction summary.
            assert_eq!(text.contains(secret), !redact, "{text}");
            if redact {
                assert_eq!(
                    text.matches("[REDACTED:aws-access-key]").count(),
                    2,
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn a_memory_without_front_matter_gets_sections_only() {
        let original = "# Memory\n\n## Metadata\n\n- Trigger: unknown\n\n## AI summary\n\nold\n";
        let mut edit = MemoryEdit::new(original, false);
        assert_eq!(edit.lang(), Lang::En);
        assert!(edit.front_matter().is_none());
        edit.set_trigger(&Trigger::Manual);
        edit.set_ai_summary(&summary("h"), "anthropic:m");
        edit.set_compaction_summary("c");
        let text = edit.finish();
        assert!(
            text.starts_with("# Memory\n\n## Metadata\n\n- Trigger: unknown\n\n## AI summary\n")
        );
        assert!(!text.contains("summary_source"), "{text}");
        assert!(text.ends_with("## Claude Code compaction summary\n\n```markdown\nc\n```\n"));
    }

    /// Issue 22, point 7: an offline summary points at Session so far for decisions and
    /// preferences only when it lists them; otherwise it says none were found.
    #[test]
    fn an_offline_summary_never_points_at_an_empty_list() {
        use crate::summary::session::Listed;
        let empty = render_ai_summary(
            &Summary::default(),
            crate::summary::OFFLINE_SOURCE,
            None,
            Listed::default(),
            Lang::En,
        );
        assert!(!empty.contains("Session so far"), "{empty}");
        assert_eq!(empty.matches("(none found)").count(), 3, "{empty}");
        let decisions = render_ai_summary(
            &Summary::default(),
            crate::summary::OFFLINE_SOURCE,
            None,
            Listed {
                decisions: true,
                instructions: false,
                failed: false,
            },
            Lang::En,
        );
        assert_eq!(
            decisions.matches("Session so far").count(),
            1,
            "{decisions}"
        );
        assert_eq!(decisions.matches("(none found)").count(), 2, "{decisions}");
        // Read from the memory being edited: a model summary that failed leaves the
        // offline one, pointing at the decisions Session so far lists.
        let text = "## Session so far\n\n### Decisions\n\n- use SQLite\n\n## AI summary\n\nold\n";
        let mut edit = MemoryEdit::new(text, false);
        edit.set_summary_section(&Summary::default(), crate::summary::OFFLINE_SOURCE, None);
        let text = edit.finish();
        assert!(
            text.contains("### Key decisions\n\n(listed under"),
            "{text}"
        );
        assert!(
            text.contains("### User preferences\n\n(none found)"),
            "{text}"
        );
    }
}
