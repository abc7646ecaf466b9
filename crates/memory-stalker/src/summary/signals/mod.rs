//! What the session meant, read from the structure of its records rather than from
//! the words of its texts (docs/design.md §3.12): the user's answers to Claude's
//! questions, plans approved and refused, calls refused or denied and why, runs of
//! failing commands and what made them pass, tests changed while they failed, commands
//! the user ran in bash mode, what hooks required, and the notes the user saved with `#`.
//!
//! Each signal keeps its [`Source`]: the record it was read from and the tool, so a
//! memory can say where a fact came from. Only the segment's main-chain records are
//! read: earlier segments' signals are carried by the session's earlier memories.

mod abandoned;
mod answers;
mod bash;
mod causes;
mod checks;
mod commits;
mod hooks;
mod issues;
mod notes;
mod plans;
mod refusals;
mod reported;
mod runs;

use serde::{Deserialize, Serialize};

use crate::transcript::Transcript;
use crate::transcript::record::{Entry, KeyMap, Record, ToolCall, ToolResult, UserMsg, is_shell};

pub(crate) use crate::transcript::outcome::{error_line, named_error};
pub use abandoned::Abandoned;
pub use answers::Answer;
pub use bash::BashContext;
pub use causes::Cause;
pub use checks::Check;
pub use commits::Commit;
pub use hooks::HookFeedback;
pub use issues::IssueTitle;
pub use notes::MemoryNote;
pub use plans::PlanOutcome;
pub(crate) use plans::title_of as plan_title;
pub use refusals::{Refusal, RefusedBy};
pub use reported::Reported;
pub(crate) use runs::command_key;
pub use runs::{Diagnosis, FailedRun, TestEdit};

/// Where a signal was read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// The tool or mechanism: `AskUserQuestion`, `ExitPlanMode`, `Bash`, `Stop hook`,
    /// `bash mode`, `#`.
    pub tool: String,
    /// The record's time stamp, as Claude Code wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// The record's uuid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
}

impl Source {
    fn of(tool: &str, record: &Record) -> Source {
        Source {
            tool: tool.to_string(),
            timestamp: record.meta.timestamp().map(str::to_string),
            uuid: record.meta.uuid().map(str::to_string),
        }
    }

    /// The tool, and the record's date and time to the minute when known: `Bash,
    /// 2026-02-12 20:58`.
    pub fn label(&self) -> String {
        let when = self
            .timestamp
            .as_deref()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.format("%Y-%m-%d %H:%M").to_string());
        match when {
            Some(w) => format!("{}, {w}", self.tool),
            None => self.tool.clone(),
        }
    }
}

/// Every structural signal of a segment, each list oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signals {
    /// The user's answers to `AskUserQuestion`.
    pub answers: Vec<Answer>,
    /// The user's replies to a question Claude ended a turn with.
    pub replies: Vec<Answer>,
    /// Plans approved or refused at `ExitPlanMode`.
    pub plans: Vec<PlanOutcome>,
    /// Tool calls the user refused or the permission settings denied.
    pub refusals: Vec<Refusal>,
    /// Commands that failed more than once before a change made them pass.
    pub failed_runs: Vec<FailedRun>,
    /// Commands that failed and whose way Claude then gave up.
    #[serde(default)]
    pub abandoned: Vec<Abandoned>,
    /// Failures the user pasted that name a file Claude had changed.
    #[serde(default)]
    pub reported: Vec<Reported>,
    /// Existing test files edited while their tests were failing.
    pub test_edits: Vec<TestEdit>,
    /// Causes stated while a command failed, before a change made it pass.
    pub diagnoses: Vec<Diagnosis>,
    /// Causes Claude stated right before the change that fixed them.
    #[serde(default)]
    pub causes: Vec<Cause>,
    /// Commands the user ran in bash mode (`!`), with the end of their output.
    pub bash: Vec<BashContext>,
    /// What hooks (a Stop hook, a blocking PreToolUse hook) required.
    pub hooks: Vec<HookFeedback>,
    /// Notes the user saved to memory with `#`.
    pub notes: Vec<MemoryNote>,
    /// Issues looked up in a tracker, with the titles it printed.
    #[serde(default)]
    pub issues: Vec<IssueTitle>,
    /// Tasks a task list left open when Claude replaced it with one without them.
    #[serde(default)]
    pub left_open: Vec<String>,
    /// Commits git reported.
    #[serde(default)]
    pub commits: Vec<Commit>,
    /// Commands run again and again: how the session checks its work.
    #[serde(default)]
    pub checks: Vec<Check>,
}

impl Signals {
    /// Whether no signal was found.
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
            && self.replies.is_empty()
            && self.plans.is_empty()
            && self.refusals.is_empty()
            && self.failed_runs.is_empty()
            && self.abandoned.is_empty()
            && self.reported.is_empty()
            && self.test_edits.is_empty()
            && self.diagnoses.is_empty()
            && self.causes.is_empty()
            && self.bash.is_empty()
            && self.hooks.is_empty()
            && self.notes.is_empty()
            && self.issues.is_empty()
            && self.left_open.is_empty()
            && self.commits.is_empty()
            && self.checks.is_empty()
    }
}

/// The signals of the segment `t` was read for.
pub(crate) fn find(t: &Transcript) -> Signals {
    let view = View::new(t);
    // The commands' runs (the costliest, on a long segment) on a second thread, the
    // rest here (about as much): the machine's other core is otherwise idle once the
    // facts are found.
    let runs = |view: &View| {
        (
            runs::failed_runs(view),
            runs::test_edits(view),
            runs::diagnoses(view),
        )
    };
    let ((failed_runs, test_edits, diagnoses), mut signals) = std::thread::scope(|s| {
        let found = std::thread::Builder::new()
            .name("signals-runs".into())
            .spawn_scoped(s, || runs(&view));
        let signals = Signals {
            answers: answers::find(&view),
            replies: answers::replies(&view),
            plans: plans::find(&view, t.options.plans_dir.as_deref()),
            refusals: refusals::find(&view),
            abandoned: abandoned::find(&view),
            causes: causes::find(&view),
            bash: bash::find(&view),
            hooks: hooks::find(&view),
            notes: notes::find(&view),
            issues: issues::find(&view),
            left_open: crate::transcript::tasks::left_open(&t.records, t.segment_start),
            commits: commits::find(&view),
            checks: checks::find(&view),
            reported: reported::find(&view),
            ..Signals::default()
        };
        let found = match found {
            // A panic there costs those signals only.
            Ok(handle) => handle.join().unwrap_or_default(),
            Err(_) => runs(&view),
        };
        (found, signals)
    });
    signals.failed_runs = failed_runs;
    signals.test_edits = test_edits;
    signals.diagnoses = diagnoses;
    signals
}

/// The segment's main-chain records, with its tool calls and results indexed.
pub(crate) struct View<'a> {
    /// Every record read (the segment and what lies before it), in file order.
    records: &'a [Record],
    /// The index of the segment's first record.
    pub(super) start: usize,
    /// Each tool call id's result, and the index of the record holding it.
    results: KeyMap<(usize, &'a ToolResult, &'a UserMsg)>,
    /// The user's prompts (record index, text), oldest first.
    pub(super) prompts: &'a [(usize, String)],
    /// The session's working directory, which paths are shown relative to.
    cwd: Option<String>,
    /// The agent that wrote the transcript (what its mechanisms are called).
    pub(super) agent: crate::agent::Agent,
    /// Each shell call's [`runs::command_key`], by the call's address: worked out once,
    /// on first use, for the five finders that ask it of every call on two threads.
    keys: std::sync::OnceLock<CommandKeys>,
}

/// The shell calls' command keys of a [`View`]: each call's address with the number of
/// its key, sorted, and each distinct key once. A segment of a hundred thousand runs of
/// a few commands holds 16 bytes a call, not a map entry and a string each (the hook's
/// peak on such a segment, docs/design.md §8).
struct CommandKeys {
    at: Vec<(usize, u32)>,
    names: Vec<String>,
}

/// A main-chain tool call of the segment.
#[derive(Clone, Copy)]
pub(crate) struct Call<'a> {
    /// The index of the record holding it.
    pub at: usize,
    pub record: &'a Record,
    pub call: &'a ToolCall,
    /// Its result and the index of the record holding that, once it arrived.
    pub result: Option<(usize, &'a ToolResult, &'a UserMsg)>,
}

impl<'a> Call<'a> {
    /// Whether the call's result was an error (a refused call included), or a command
    /// piped into `tail` whose last lines say it failed (the pipe's exit status hid it).
    pub fn failed(&self) -> bool {
        self.result
            .is_some_and(|(_, r, u)| r.is_error || u.tool_use_failed)
            || self.hidden_failure().is_some()
    }

    /// The line that says a command piped into `tail` failed, when its exit status
    /// (`tail`'s) said it succeeded: `cargo test 2>&1 | tail -30` ending in
    /// "error: test failed", `./gradlew … | tail -50` ending in "BUILD FAILED in 2m".
    pub fn hidden_failure(&self) -> Option<&'a str> {
        let (_, r, u) = self.result?;
        if r.is_error || u.tool_use_failed || !is_shell(&self.call.name) {
            return None;
        }
        let first_line = crate::text::first_of_one_line(&self.call.summary);
        let last_stage = first_line.rsplit('|').next().unwrap_or("").trim_start();
        if !first_line.contains('|') || !last_stage.starts_with("tail") {
            return None;
        }
        let end = if r.text.tail().is_empty() {
            r.text.head()
        } else {
            r.text.tail()
        };
        let end = crate::transcript::codex::command_output(end);
        end.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .rev()
            .take(3)
            .find(|l| says_it_failed(l))
    }

    /// Whether it succeeded (a result arrived, and was no error).
    pub fn succeeded(&self) -> bool {
        self.result.is_some() && !self.failed()
    }
}

impl<'a> View<'a> {
    fn new(t: &'a Transcript) -> View<'a> {
        let mut results = KeyMap::default();
        for (i, r) in t.records.iter().enumerate().skip(t.segment_start) {
            if r.meta.sidechain {
                continue;
            }
            if let Entry::User(u) = &r.entry {
                for res in &u.tool_results {
                    results.insert(res.tool_use_id, (i, res, &**u));
                }
            }
        }
        View {
            records: &t.records,
            start: t.segment_start,
            results,
            prompts: t.prompts(),
            cwd: t.root(),
            agent: t.agent(),
            keys: std::sync::OnceLock::new(),
        }
    }

    /// What makes shell call `c`'s command "the same" as another's
    /// ([`runs::command_key`]); `None` for a call of another tool, and for a command
    /// that only looks around.
    pub(super) fn command_key(&self, c: &Call) -> Option<&str> {
        let address = |call: &ToolCall| std::ptr::from_ref(call) as usize;
        let keys = self.keys.get_or_init(|| {
            let mut ids: std::collections::HashMap<String, u32> = Default::default();
            let mut names: Vec<String> = Vec::new();
            let mut at: Vec<(usize, u32)> = self
                .calls()
                .filter(|c| is_shell(&c.call.name))
                .filter_map(|c| {
                    let key = runs::command_key(&c.call.summary)?;
                    let id = *ids.entry(key).or_insert_with_key(|k| {
                        names.push(k.clone());
                        u32::try_from(names.len() - 1).unwrap_or(u32::MAX)
                    });
                    Some((address(c.call), id))
                })
                .collect();
            at.sort_unstable();
            CommandKeys { at, names }
        });
        let i = keys
            .at
            .binary_search_by_key(&address(c.call), |&(a, _)| a)
            .ok()?;
        keys.names.get(keys.at[i].1 as usize).map(String::as_str)
    }

    /// What paths are shown relative to: the project, else the session's directory.
    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref()
    }

    /// The segment's main-chain records with their indexes.
    pub fn segment(&self) -> impl Iterator<Item = (usize, &'a Record)> + '_ {
        self.records
            .iter()
            .enumerate()
            .skip(self.start)
            .filter(|(_, r)| !r.meta.sidechain)
    }

    /// The segment's main-chain tool calls, in order.
    pub fn calls(&self) -> impl Iterator<Item = Call<'a>> + '_ {
        self.segment().flat_map(move |(at, record)| {
            let calls: &'a [ToolCall] = match &record.entry {
                Entry::Assistant(a) => &a.tool_calls,
                _ => &[],
            };
            calls.iter().map(move |call| Call {
                at,
                record,
                call,
                result: self.results.get(&call.id).copied(),
            })
        })
    }

    /// The user records of the segment's main chain, with their index.
    pub fn users(&self) -> impl Iterator<Item = (usize, &'a Record, &'a UserMsg)> + '_ {
        self.segment().filter_map(|(i, r)| match &r.entry {
            Entry::User(u) => Some((i, r, &**u)),
            _ => None,
        })
    }

    /// The first prompt the user typed after record `at`, if one came before record
    /// `before`.
    pub fn prompt_after(&self, at: usize, before: usize) -> Option<&'a str> {
        self.prompts
            .iter()
            .find(|(i, _)| *i > at)
            .filter(|(i, _)| *i < before)
            .map(|(_, p)| p.as_str())
    }

    /// The assistant's last text before record `at` (and at or after `from`), in the
    /// segment's main chain: what it said just before a call.
    pub fn narration_before(&self, at: usize, from: usize) -> Option<&'a str> {
        self.records[from.max(self.start)..=at.min(self.records.len().saturating_sub(1))]
            .iter()
            .rev()
            .filter(|r| !r.meta.sidechain)
            .find_map(|r| match &r.entry {
                Entry::Assistant(a) if !a.synthetic => a
                    .texts
                    .iter()
                    .rev()
                    .map(|t| t.trim())
                    .find(|t| !t.is_empty()),
                _ => None,
            })
    }

    /// The records of the whole read, for what may lie before the segment (a plan
    /// written before the boundary).
    pub fn all(&self) -> &'a [Record] {
        self.records
    }

    /// The number of records read.
    pub fn len(&self) -> usize {
        self.records.len()
    }
}

/// Whether a last line of a command's output is a verdict of failure: a build or test
/// runner's (`BUILD FAILED`, `FAILURE:`, `FAILED`, `2 failed`, `Tests: 1 failed`), or an
/// error a runner ends on (`error: …`, `Error: …`, `npm ERR!`). "0 failed" is no failure.
fn says_it_failed(line: &str) -> bool {
    let words: Vec<&str> = line
        .split(|c: char| !c.is_alphanumeric() && c != '!')
        .filter(|w| !w.is_empty())
        .collect();
    let failed_count = words
        .windows(2)
        .any(|w| w[1].eq_ignore_ascii_case("failed") && w[0].parse::<u64>().is_ok_and(|n| n > 0));
    failed_count
        || words.iter().any(|w| *w == "FAILED" || *w == "FAILURE")
        || ["error:", "error[", "Error:", "ERROR:", "npm ERR!", "FATAL"]
            .iter()
            .any(|m| line.starts_with(m))
}

/// The first sentence of a text, at most `max` characters, on one line.
pub(crate) fn first_sentence(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let end = line
        .char_indices()
        .find(|(i, c)| {
            matches!(c, '.' | '!' | '?' | '。')
                && line[i + c.len_utf8()..]
                    .chars()
                    .next()
                    .is_none_or(char::is_whitespace)
        })
        .map_or(line.len(), |(i, c)| i + c.len_utf8());
    crate::text::one_line(&line[..end], max)
}

/// The signals are found here, above the reading of the transcript, and asked of it as
/// `transcript.signals()`.
impl crate::transcript::Transcript {
    /// The structural signals of the segment (docs/design.md §3.12): answers, plans,
    /// refusals, failing runs, test edits, bash-mode commands, hook feedback, `#` notes.
    pub fn signals(&self) -> Signals {
        find(self)
    }
}

#[cfg(test)]
pub(crate) mod tests;
