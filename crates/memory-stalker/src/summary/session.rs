//! The shape of a memory's "Session so far" section (docs/design.md §4.7): one `###`
//! list of one-line items per kind of lasting fact, under stable headings in either
//! language. The memory's writer renders it and the readers (the next memory, the
//! restore, the search index by its headings) read it back here; what goes into it is
//! found in `summary::facts`, which depends on this shape only.

use std::fmt::Write as _;

use crate::lang::Lang;
use crate::summary::labels::Labels;
use crate::untrusted::{code, line};

/// Longest item, in characters (a failed run says what worked, the error and what was
/// tried, then where it was read: 420 for the text, and room for its source).
pub(crate) const ITEM_CHARS: usize = 450;

/// Headings earlier versions wrote, which named Claude and its bash mode in memories
/// that may be Codex's: read as their kinds, never written.
const FORMER_HEADINGS: [(&str, Kind); 4] = [
    ("Your answers to Claude's questions", Kind::Answers),
    ("用户对 Claude 提问的回答", Kind::Answers),
    ("Commands you ran in bash mode", Kind::Context),
    ("用户在 bash 模式运行的命令", Kind::Context),
];

/// One kind of lasting fact: a `###` list of Session so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// What the user asked for (continuations left out).
    Requests,
    /// Rules the user gave for how to work ("keep it to the same 3 files", "use pnpm").
    Constraints,
    /// The user's answers to the assistant's questions.
    Answers,
    /// Commands the user ran themselves (bash mode, Codex's `!`), and the end of their output.
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
    /// Commits git reported, with their hashes.
    Commits,
    /// Commands the session ran again and again, as last run.
    Checks,
    /// Files changed before this memory's segment (its own are under Files).
    EarlierFiles,
    /// Tasks completed before this memory's segment (its own are its task list).
    EarlierTasks,
    /// Tasks an earlier task list left open that the current list no longer holds.
    LeftOpen,
}

impl Kind {
    /// Every kind, in the order Session so far lists them.
    pub const ALL: [Kind; 15] = [
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
        Kind::Commits,
        Kind::Checks,
        Kind::EarlierFiles,
        Kind::EarlierTasks,
        Kind::LeftOpen,
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
            Kind::Commits => l.commits,
            Kind::Checks => l.checks,
            Kind::EarlierFiles => l.earlier_files,
            Kind::EarlierTasks => l.earlier_tasks,
            Kind::LeftOpen => l.left_open,
        }
    }

    /// The kind a `###` heading (in either language, or as an earlier version wrote
    /// it) names.
    pub fn from_heading(heading: &str) -> Option<Kind> {
        let h = heading.trim();
        Kind::ALL
            .into_iter()
            .find(|k| {
                [Lang::En, Lang::Zh]
                    .iter()
                    .any(|l| k.label(Labels::of(*l)) == h)
            })
            .or_else(|| {
                FORMER_HEADINGS
                    .iter()
                    .find(|(former, _)| *former == h)
                    .map(|(_, k)| *k)
            })
    }

    /// Most items kept (the newest, once carried over many compactions).
    pub(crate) fn max(self) -> usize {
        match self {
            Kind::Requests | Kind::Decisions => 10,
            Kind::Constraints | Kind::Answers => 12,
            Kind::Context | Kind::Requirements => 6,
            Kind::Failed | Kind::ModelPreferences | Kind::ModelFailed => 8,
            // A model's decisions are the most precise list a memory carries
            // (docs/performance.md): a session compacted many times kept too few of them.
            Kind::ModelDecisions => 12,
            Kind::Checks => 8,
            Kind::Commits | Kind::EarlierFiles | Kind::EarlierTasks | Kind::LeftOpen => 20,
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
    /// Commits git reported in the session: hash and subject.
    pub commits: Vec<String>,
    /// Commands the session ran again and again (tests, builds, linters), as last run.
    pub checks: Vec<String>,
    /// Files changed before this memory's segment (its own are under Files).
    pub earlier_files: Vec<String>,
    /// Tasks completed before this memory's segment.
    pub earlier_tasks: Vec<String>,
    /// Tasks an earlier task list left open that the current list no longer holds.
    pub left_open: Vec<String>,
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
            Kind::Commits => &self.commits,
            Kind::Checks => &self.checks,
            Kind::EarlierFiles => &self.earlier_files,
            Kind::EarlierTasks => &self.earlier_tasks,
            Kind::LeftOpen => &self.left_open,
        }
    }

    /// The list of one kind, to change.
    pub(crate) fn list_mut(&mut self, kind: Kind) -> &mut Vec<String> {
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
            Kind::Commits => &mut self.commits,
            Kind::Checks => &mut self.checks,
            Kind::EarlierFiles => &mut self.earlier_files,
            Kind::EarlierTasks => &mut self.earlier_tasks,
            Kind::LeftOpen => &mut self.left_open,
        }
    }

    /// Whether there is nothing to say.
    pub fn is_empty(&self) -> bool {
        Kind::ALL.iter().all(|k| self.list(*k).is_empty())
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
                let shown = if matches!(kind, Kind::EarlierFiles | Kind::Checks) {
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

    /// Which of the lists an offline summary leaves to Session so far are there, so
    /// that it points at them only when they are (issue 22: a pointer to an empty
    /// section misleads).
    pub fn listed(&self) -> Listed {
        Listed {
            decisions: !self.decisions.is_empty() || !self.model_decisions.is_empty(),
            instructions: !self.constraints.is_empty() || !self.model_preferences.is_empty(),
            failed: !self.failed.is_empty() || !self.model_failed.is_empty(),
        }
    }

    /// Adds the `###` lists of a Session so far section's text (its heading line
    /// first) to these facts; lines under a heading that names no kind are skipped.
    pub(crate) fn read_lists(&mut self, section: &str) {
        let mut kind: Option<Kind> = None;
        for l in section.lines().skip(1) {
            if let Some(h) = l.strip_prefix("### ") {
                kind = Kind::from_heading(h);
            } else if let (Some(k), Some(item)) = (kind, l.strip_prefix("- ")) {
                self.list_mut(k).push(uncode(item));
            }
        }
    }
}

/// A list item without the backticks [`code`] put around it.
pub(crate) fn uncode(item: &str) -> String {
    let t = item.trim();
    let ticks = t.chars().take_while(|c| *c == '`').count();
    if ticks > 0 && t.len() > 2 * ticks && t.ends_with(&"`".repeat(ticks)) {
        t[ticks..t.len() - ticks].trim().to_string()
    } else {
        t.to_string()
    }
}

/// Whether Session so far lists decisions and standing instructions (its own or a
/// model's): what an offline summary's Key decisions and User preferences point at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Listed {
    /// Decisions are listed.
    pub decisions: bool,
    /// Standing instructions are listed.
    pub instructions: bool,
    /// Failed approaches are listed.
    pub failed: bool,
}
