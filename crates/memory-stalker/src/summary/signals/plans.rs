//! Plans put to the user with `ExitPlanMode`: approved (a decision, and the best name
//! for what the session does), or refused (an approach the user declined, with the
//! words they gave for it, in the refusal or in the prompt that followed).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Source, View};
use crate::text::one_line;
use crate::transcript::record::ToolDetail;

/// Longest title or reason kept.
const CHARS: usize = 200;

/// What became of one plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum PlanOutcome {
    /// The user approved it.
    Approved {
        /// The plan's title: the first line of its text.
        title: String,
        /// Its first steps, when its text is known: what the plan does.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gist: Option<String>,
        /// The record of the approval.
        source: Source,
    },
    /// The user refused it.
    Refused {
        /// The refused plan's title, when it had a text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// The user's words: the reason given with the refusal, else their next prompt.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        words: Option<String>,
        /// The record of the refusal.
        source: Source,
    },
}

pub(super) fn find(view: &View, plans_dir: Option<&Path>) -> Vec<PlanOutcome> {
    let calls: Vec<_> = view
        .calls()
        .filter(|c| matches!(c.call.detail, ToolDetail::Plan(_)))
        .collect();
    let mut out = Vec::new();
    for (n, c) in calls.iter().enumerate() {
        let ToolDetail::Plan(inline) = &c.call.detail else {
            continue;
        };
        let Some((at, result, user)) = c.result else {
            continue;
        };
        let record = &view.all()[at];
        let from_text = inline.as_deref().and_then(title_of);
        let plan_text = inline.clone().or_else(|| {
            user.plan_file()
                .and_then(|f| crate::transcript::extract::read_plan_file(Path::new(f), plans_dir))
        });
        if result.rejected {
            // The user's words: given with the refusal, or typed next (before the plan
            // is put to them again).
            let next_plan = calls.get(n + 1).map_or(view.len(), |c| c.at);
            let words = crate::transcript::outcome::reason(result.text.head())
                .or_else(|| view.prompt_after(at, next_plan).map(|p| one_line(p, CHARS)))
                .filter(|w| !w.is_empty());
            out.push(PlanOutcome::Refused {
                title: from_text,
                words,
                source: Source::of("ExitPlanMode", record),
            });
            continue;
        }
        if result.is_error || user.tool_use_failed {
            continue;
        }
        let title = from_text
            .or_else(|| {
                user.plan_file()
                    .and_then(|f| {
                        crate::transcript::extract::read_plan_file(Path::new(f), plans_dir)
                    })
                    .as_deref()
                    .and_then(title_of)
            })
            .or_else(|| approved_text_title(result.text.head()))
            .or_else(|| written_title(view, c.at, user.plan_file()));
        if let Some(title) = title {
            out.push(PlanOutcome::Approved {
                title,
                gist: plan_text.as_deref().and_then(gist_of),
                source: Source::of("ExitPlanMode", record),
            });
        }
    }
    out
}

/// A plan's title: its first non-empty line, heading marks and a leading "Plan:" left
/// out.
pub(crate) fn title_of(plan: &str) -> Option<String> {
    let line = plan
        .lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())?;
    let line = line.trim_matches('*').trim();
    let line = ["Plan:", "Plan -", "Plan —", "Implementation Plan:"]
        .iter()
        .find_map(|p| line.strip_prefix(p))
        .map_or(line, str::trim);
    (!line.is_empty()).then(|| one_line(line, CHARS))
}

/// What a plan does, in a line: its first three steps (list items, or headings when it
/// has no list), markup left out.
fn gist_of(plan: &str) -> Option<String> {
    let lines: Vec<&str> = plan
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    fn item(l: &str) -> Option<&str> {
        let t = l.trim_start_matches(['-', '*', '+']).trim_start();
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        (l.starts_with(['-', '*', '+']) || (digits > 0 && t[digits..].starts_with(". ")))
            .then(|| t[digits..].trim_start_matches(". ").trim())
    }
    let mut steps: Vec<String> = lines
        .iter()
        .skip(1)
        .filter_map(|l| item(l))
        .map(clean)
        .collect();
    if steps.is_empty() {
        steps = lines
            .iter()
            .skip(1)
            .filter(|l| l.starts_with('#'))
            .map(|l| clean(l.trim_start_matches('#')))
            .collect();
    }
    steps.retain(|s| !s.is_empty());
    steps.truncate(3);
    (!steps.is_empty()).then(|| one_line(&steps.join("; "), CHARS))
}

/// A step without Markdown emphasis and code marks.
fn clean(step: &str) -> String {
    step.replace("**", "")
        .replace('`', "")
        .trim()
        .trim_end_matches(':')
        .to_string()
}

/// The title of the approved plan Claude Code repeats in its answer ("## Approved
/// Plan:" and the plan after it).
fn approved_text_title(result: &str) -> Option<String> {
    let (_, plan) = result.split_once("## Approved Plan:")?;
    title_of(plan)
}

/// The title of the plan file a `Write` before the call (at record `before`) filled:
/// the one named in the result, else the latest plan-like file written.
fn written_title(view: &View, before: usize, plan_file: Option<&str>) -> Option<String> {
    let written: Vec<(&str, &str)> = view.all()[..before]
        .iter()
        .rev()
        .filter(|r| !r.meta.sidechain)
        .filter_map(|r| match &r.entry {
            crate::transcript::record::Entry::Assistant(a) => Some(a.tool_calls.iter().rev()),
            _ => None,
        })
        .flatten()
        .filter_map(|c| match (&c.detail, &c.title) {
            (ToolDetail::Modifies(path), Some(title)) => Some((path.as_str(), title.as_str())),
            _ => None,
        })
        .collect();
    written
        .iter()
        .find(|(path, _)| Some(*path) == plan_file)
        .or_else(|| written.first())
        .and_then(|(_, title)| title_of(title))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gist_is_the_first_steps() {
        assert_eq!(
            gist_of("## Plan: Make it installable\n\n### Changes\n1. **Switch to Hatchling** build backend\n2. Fix `py-modules`\n   - detail\n3. Install with uv tool install .\n4. More").as_deref(),
            Some("Switch to Hatchling build backend; Fix py-modules; detail")
        );
        assert_eq!(
            gist_of("# Title\n\n## Overview\ntext\n## Steps\n").as_deref(),
            Some("Overview; Steps")
        );
        assert_eq!(gist_of("# Only a title"), None);
    }

    #[test]
    fn a_title_is_the_first_line_without_marks_or_a_plan_prefix() {
        assert_eq!(
            title_of("\n# Plan: Add Tar Archive Support\n\n## Overview").as_deref(),
            Some("Add Tar Archive Support")
        );
        assert_eq!(
            title_of("## Refactoring Plan\n\n### Phase 1").as_deref(),
            Some("Refactoring Plan")
        );
        assert_eq!(title_of("  \n\n"), None);
        assert_eq!(
            approved_text_title(
                "User has approved your plan.\n\n## Approved Plan:\n# Plan: Enrich X\n\n## Context"
            )
            .as_deref(),
            Some("Enrich X")
        );
    }
}
