//! What must outlive every compaction of a session (docs/design.md §4.7): the user's
//! requests and standing instructions, their answers to Claude's questions, the commands
//! they ran in bash mode, what hooks required, the decisions taken, the approaches that
//! failed, what a model's summary found of the same, and the files changed earlier.
//!
//! Each memory holds them in its "Session so far" section, one `###` list of one-line
//! items per kind: those of its own segment, found without a model, after those carried
//! from the session's previous memory. So an instruction typed before the first
//! compaction is still in the memory (and the restore) of the third, and a model summary
//! replacing the AI summary never drops it. The section's shape (its kinds, headings
//! and rendering) is `memory::session`'s; this module finds what goes into it.

use crate::lang::Lang;
use crate::summary::signals::Signals;
use crate::text::one_line;
use crate::transcript::{Extraction, Transcript};

use super::{choices, instructions, meaning, offline};

pub use crate::summary::session::{Kind, SessionFacts};

/// Longest request kept, in characters (the memory keeps the last one whole).
const REQUEST_CHARS: usize = 200;

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
        SegmentFacts::from_requests(&t.segment_prompts())
    }

    /// What the segment's requests (`Transcript::segment_prompts`) give.
    pub fn from_requests(requests: &[String]) -> SegmentFacts {
        // Each request cut into the sentences the user typed once, for the rules and
        // the choices both.
        let sentences: Vec<Vec<String>> = requests
            .iter()
            .map(|r| instructions::typed_sentences(r))
            .collect();
        SegmentFacts {
            requests: requests
                .iter()
                .filter(|r| !crate::transcript::is_continuation(r))
                .map(|r| one_line(r, REQUEST_CHARS))
                .collect(),
            constraints: instructions::from_sentences(&sentences),
            choices: choices::from_sentences(&sentences),
            ..SegmentFacts::default()
        }
    }

    /// What the assistant's texts in the segment give: decisions and failed approaches.
    pub fn of_assistant(t: &Transcript) -> SegmentFacts {
        SegmentFacts::from_assistant(&t.segment_assistant_texts())
    }

    /// What the segment's assistant texts (`Transcript::segment_assistant_texts`) give.
    pub fn from_assistant(assistant: &[&str]) -> SegmentFacts {
        let (stated_decisions, failed) = offline::stated_decisions_and_failures(assistant);
        SegmentFacts {
            stated_decisions,
            failed,
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
        let found = meaning::from_signals(signals, lang, ex.agent);
        let mut constraints = found.constraints;
        constraints.extend(self.constraints);
        let mut decisions = found.decisions;
        // A sentence of the user's that is a standing instruction is said there once,
        // not again as a choice.
        let choices = self
            .choices
            .iter()
            .filter(|c| !said_as_rule(c, &constraints));
        decisions.extend(choices.map(|c| match lang {
            Lang::En => format!("User's choice: “{c}”"),
            Lang::Zh => format!("用户的选择：“{c}”"),
        }));
        decisions.extend(offline::with_plan(
            ex,
            self.stated_decisions,
            &signals.plans,
            lang,
        ));
        let mut failed = found.failed;
        // A sentence that a structural item already quotes (a way given up: "The pragma
        // comment didn't work.") is said there, with its command.
        let unquoted: Vec<String> = self
            .failed
            .into_iter()
            .filter(|f| !failed.iter().any(|s| s.contains(f.as_str())))
            .collect();
        failed.extend(unquoted);
        SessionFacts {
            requests: self.requests,
            constraints: instructions::newest_wins(constraints),
            answers: found.answers,
            context: found.context,
            requirements: found.requirements,
            decisions: dedup(decisions),
            failed: dedup(failed),
            left_open: found.left_open,
            commits: found.commits,
            checks: found.checks,
            ..SessionFacts::default()
        }
    }
}

impl SessionFacts {
    /// These facts after `earlier` (from the session's previous memory), without
    /// repeats; `modified` (this memory's own files) is left out of the earlier files,
    /// and `tasks` (this memory's task list) out of the tasks done earlier.
    pub fn after(
        self,
        earlier: &SessionFacts,
        modified: &[String],
        tasks: &[String],
    ) -> SessionFacts {
        let mut out = SessionFacts::default();
        for kind in Kind::ALL {
            let new = self.list(kind).to_vec();
            let merged = match kind {
                Kind::EarlierFiles => {
                    let mut files = merge(&earlier.earlier_files, new, usize::MAX);
                    files.retain(|f| !modified.contains(f));
                    newest(files, kind.max())
                }
                // A plan refused again and again must not push the user's other answers
                // out: of one plan's refusals, the newest few are kept among them. The
                // decisions keep theirs (a refusal's words often decide something); the
                // restore says the older ones there no more (`hook::lasting`).
                Kind::Answers => newest(
                    newest_refusals(merge(&earlier.answers, new, usize::MAX)),
                    kind.max(),
                ),
                // A task still on the list is said there, done or not.
                Kind::EarlierTasks => off_the_list(&earlier.earlier_tasks, new, &[tasks], kind),
                // Left open on a list Claude replaced: not on the current list, and not
                // shown done since (the done ones come first in `Kind::ALL`).
                Kind::LeftOpen => {
                    off_the_list(&earlier.left_open, new, &[tasks, &out.earlier_tasks], kind)
                }
                // A newer rule replaces the older one it restates or revises.
                Kind::Constraints => {
                    let all = earlier.constraints.iter().cloned().chain(new).collect();
                    newest(instructions::newest_wins(all), kind.max())
                }
                _ => merge(earlier.list(kind), new, kind.max()),
            };
            *out.list_mut(kind) = merged;
        }
        out
    }
}

/// Whether a choice the user typed holds one of the standing instructions whole ("Instead
/// stage the latest changes and use conventional commit convention for the commit
/// message." and "use conventional commit convention for the commit message."): a
/// short rule ("use pnpm") may be a part of a different choice, so only one of at least
/// 15 characters counts.
fn said_as_rule(choice: &str, rules: &[String]) -> bool {
    let choice = choice.to_lowercase();
    rules.iter().any(|r| {
        let rule = instructions::without_source(r)
            .trim_end_matches(['.', '!'])
            .to_lowercase();
        rule.chars().count() >= 15 && choice.contains(&rule)
    })
}

/// `earlier` then `new`, without repeats and without the tasks on any of `lists`, the
/// newest of `kind`'s maximum kept.
fn off_the_list(
    earlier: &[String],
    new: Vec<String>,
    lists: &[&[String]],
    kind: Kind,
) -> Vec<String> {
    let mut kept = merge(earlier, new, usize::MAX);
    kept.retain(|t| !lists.iter().any(|l| l.iter().any(|c| c.trim() == t.trim())));
    newest(kept, kind.max())
}

/// Refusals of one plan kept among the answers, the newest: a plan refused seven times
/// over a long design discussion (each time with the user's words) would otherwise fill
/// the twelve places of the user's answers, and the answers to the questions asked
/// along the way, the decisions of that discussion, would be gone.
const REFUSALS_PER_PLAN: usize = 3;

/// `items` (answers or decisions) without the older refusals of a plan refused more
/// than [`REFUSALS_PER_PLAN`] times (in order; the other items all kept).
pub(crate) fn newest_refusals(items: Vec<String>) -> Vec<String> {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    // Counted from the newest: a refusal is kept while its plan has fewer newer ones
    // kept than the limit.
    let mut keep = vec![true; items.len()];
    for (i, item) in items.iter().enumerate().rev() {
        if let Some(title) = meaning::refused_plan_title(item) {
            let n = seen.entry(title).or_insert(0);
            keep[i] = *n < REFUSALS_PER_PLAN;
            *n += 1;
        }
    }
    items
        .into_iter()
        .zip(keep)
        .filter_map(|(item, k)| k.then_some(item))
        .collect()
}

/// `earlier` then the new items not already there, the newest `max` kept.
pub(crate) fn merge(earlier: &[String], new: Vec<String>, max: usize) -> Vec<String> {
    newest(dedup(earlier.iter().cloned().chain(new).collect()), max)
}

/// The last `max` of `items` (the newest: lists run oldest first).
fn newest(mut items: Vec<String>, max: usize) -> Vec<String> {
    let start = items.len().saturating_sub(max);
    items.split_off(start)
}

/// The items in order, each once (compared case-insensitively; an item that begins
/// another, "Plan approved: X" and "Plan approved: X (its steps) (ExitPlanMode, …)", is
/// the same item when both have 20 characters or more, and the first kept). In
/// O(n log n): a long session can give thousands of items.
fn dedup(items: Vec<String>) -> Vec<String> {
    use std::collections::{BTreeSet, HashSet};
    use std::ops::Bound::{Excluded, Included, Unbounded};
    let mut kept: Vec<String> = Vec::new();
    let mut keys: HashSet<String> = HashSet::new();
    // The kept keys of 20 characters or more. None begins another (the later would not
    // have been kept), so a key that begins a new one is the greatest key not above it,
    // and a key the new one begins is the least key not below it.
    let mut long: BTreeSet<String> = BTreeSet::new();
    for item in items {
        let key = crate::text::lower(item.trim());
        if key.is_empty() || keys.contains(&key) {
            continue;
        }
        if key.chars().count() >= PREFIX_CHARS {
            let begins_new = long
                .range::<str, _>((Unbounded, Excluded(key.as_str())))
                .next_back()
                .is_some_and(|k| key.starts_with(k.as_str()));
            let new_begins = long
                .range::<str, _>((Included(key.as_str()), Unbounded))
                .next()
                .is_some_and(|k| k.starts_with(&key));
            if begins_new || new_begins {
                continue;
            }
            long.insert(key.clone());
        }
        keys.insert(key);
        kept.push(item);
    }
    kept
}

/// Shortest items compared by their beginning.
const PREFIX_CHARS: usize = 20;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::labels::Labels;

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
            earlier_tasks: vec!["Reproduce the one-cent discrepancy".into()],
            left_open: vec!["Return 429 with a Retry-After header".into()],
            commits: vec![
                "`3f2a1c9` fix: round invoice totals once (Bash, 2026-02-12 20:58)".into(),
            ],
            checks: vec!["cargo test -p billing".into()],
            previous_headline: None,
        }
    }

    /// The pairwise comparison `dedup` replaced (quadratic), as the reference.
    fn dedup_pairwise(items: Vec<String>) -> Vec<String> {
        let mut kept: Vec<String> = Vec::new();
        let mut keys: Vec<String> = Vec::new();
        for item in items {
            let key = item.trim().to_lowercase();
            let same = |k: &String| {
                *k == key
                    || (k.chars().count().min(key.chars().count()) >= PREFIX_CHARS
                        && (k.starts_with(&key) || key.starts_with(k.as_str())))
            };
            if !key.is_empty() && !keys.iter().any(same) {
                keys.push(key);
                kept.push(item);
            }
        }
        kept
    }

    mod dedup_keeps_what_the_pairwise_comparison_keeps {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(500))]
            #[test]
            fn on_items_that_begin_one_another(
                items in proptest::collection::vec("[aAb ]{0,3}(plan approved: x{15,20}[yz ]{0,4})?", 0..30),
            ) {
                prop_assert_eq!(dedup(items.clone()), dedup_pairwise(items));
            }
        }
    }

    #[test]
    fn a_plan_refused_again_and_again_leaves_room_for_the_other_answers() {
        let refusal = |n: usize| {
            format!(
                "Plan refused: Session phases; user said “not yet, {n}” (ExitPlanMode, 2026-02-06 09:{n:02})"
            )
        };
        let answer = |n: usize| {
            format!("“Which store?” → SQLite {n} (AskUserQuestion, 2026-02-06 08:{n:02})")
        };
        let earlier = SessionFacts {
            answers: (0..6).map(answer).collect(),
            ..SessionFacts::default()
        };
        let mut new: Vec<String> = (10..17).map(refusal).collect();
        new.push("Plan refused: Another plan (ExitPlanMode, 2026-02-06 10:00)".into());
        new.push("被拒绝的计划：会话阶段；用户说 “还不行” (ExitPlanMode, 2026-02-06 10:01)".into());
        let segment = SessionFacts {
            answers: new,
            ..SessionFacts::default()
        };
        let kept = segment.after(&earlier, &[], &[]).answers;
        // Every answer, the newest three refusals of the plan refused seven times, the
        // plans refused once.
        let mut want: Vec<String> = (0..6).map(answer).collect();
        want.extend((14..17).map(refusal));
        want.push("Plan refused: Another plan (ExitPlanMode, 2026-02-06 10:00)".into());
        want.push(
            "被拒绝的计划：会话阶段；用户说 “还不行” (ExitPlanMode, 2026-02-06 10:01)".into(),
        );
        assert_eq!(kept, want);
    }

    #[test]
    fn a_sentence_that_a_way_given_up_quotes_is_not_said_again() {
        use crate::summary::signals::{Abandoned, Signals, Source};
        use crate::transcript::Extraction;
        let signals = Signals {
            abandoned: vec![Abandoned {
                command: "git commit -m \"feat: trace ids\"".into(),
                error: Some("Pre-commit validation failed: [DIALYZER]".into()),
                why: "The pragma comment didn't work.".into(),
                source: Source {
                    tool: "Bash".into(),
                    timestamp: Some("2026-02-12T14:32:00.000Z".into()),
                    uuid: None,
                },
            }],
            ..Signals::default()
        };
        let alone = SegmentFacts::from_assistant(&["The pragma comment didn't work."]);
        assert_eq!(alone.failed, ["The pragma comment didn't work."]);
        let f = alone.with(&Extraction::empty(), &signals, Lang::En);
        assert_eq!(
            f.failed,
            [
                "`git commit -m \"feat: trace ids\"` failed (Pre-commit validation failed: [DIALYZER]) and was given up: “The pragma comment didn't work.” (Bash, 2026-02-12 14:32)"
            ]
        );
    }

    #[test]
    fn a_choice_that_holds_a_standing_instruction_is_said_as_the_instruction() {
        let rules = vec![
            "use conventional commit convention for the commit message.".to_string(),
            "use pnpm (Bash, 2025-11-18 00:03)".to_string(),
        ];
        assert!(said_as_rule(
            "Instead stage the latest changes and use conventional commit convention for the commit message.",
            &rules
        ));
        assert!(
            !said_as_rule("Let's use pnpm workspaces instead of one package.", &rules),
            "a short rule is no reason to drop a different choice"
        );
        assert!(!said_as_rule(
            "Replace them with a single link instead.",
            &rules
        ));
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
        // A memory written before the headings stopped naming Claude is read the same.
        let doc = "## Session so far\n\n### Your answers to Claude's questions\n\n- yes\n\n### Commands you ran in bash mode\n\n- `ls`\n";
        let read = SessionFacts::from_memory(doc);
        assert_eq!(read.list(Kind::Answers), ["yes"]);
        assert_eq!(read.list(Kind::Context), ["ls"]);
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
        let merged = now.after(&earlier, &["src/billing/clock.rs".into()], &[]);
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

    #[test]
    fn tasks_done_in_a_memory_are_done_earlier_once_they_leave_the_list() {
        // As a memory holds its task list: in the front matter, and shown in the body.
        let doc = concat!(
            "---\nmemory_stalker: 1\nsession_id: \"s\"\nsummary: \"Fix rounding\"\n",
            r#"todos: {"source":"TodoWrite","items":[{"content":"Reproduce the one-cent discrepancy","status":"completed","active_form":null},{"content":"Add a regression test","status":"in_progress","active_form":null},{"content":"Load limits from config","status":"completed","active_form":null}]}"#,
            "\n---\n\n## Current task list\n\n- [x] Reproduce the one-cent discrepancy\n- [ ] **in progress**: Add a regression test\n- [x] Load limits from config\n\n## Files\n\n(none)\n"
        );
        let carried = SessionFacts::carried_from(doc);
        assert_eq!(
            carried.earlier_tasks,
            [
                "Reproduce the one-cent discrepancy",
                "Load limits from config"
            ]
        );
        assert!(SessionFacts::from_memory(doc).earlier_tasks.is_empty());
        // Still on the next memory's list: said there, not among those done earlier.
        let next = SessionFacts::default().after(
            &carried,
            &[],
            &[
                "Load limits from config".to_string(),
                "Return 429".to_string(),
            ],
        );
        assert_eq!(next.earlier_tasks, ["Reproduce the one-cent discrepancy"]);
        // The task the list left in progress is not on the next one: left open.
        assert_eq!(carried.left_open, ["Add a regression test"]);
        assert_eq!(next.left_open, ["Add a regression test"]);
        // Once a later list shows it done, it is done, not open.
        let later =
            SessionFacts::default().after(&next, &[], &["Add a regression test".to_string()]);
        assert!(later.left_open.is_empty(), "{later:?}");
        let rendered = next.render(Lang::En);
        assert!(
            rendered.contains(
                "### Tasks done earlier in this session\n\n- Reproduce the one-cent discrepancy\n\n### Tasks left open on an earlier task list\n\n- Add a regression test\n"
            ),
            "{rendered}"
        );
        // And read back from the memory that lists them.
        assert_eq!(
            SessionFacts::from_memory(&rendered).earlier_tasks,
            ["Reproduce the one-cent discrepancy"]
        );
        assert_eq!(
            SessionFacts::from_memory(&rendered).left_open,
            ["Add a regression test"]
        );
    }
}
