//! The extraction of docs/design.md §3, computed from the records read.

use std::collections::HashSet;
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::record::{Entry, KeyMap, KeySet, Record, ToolDetail};
use super::{TodoList, Transcript, prompt, tasks};
use crate::agent::Agent;

/// Most files listed in each of `files.modified` and `files.read`.
pub const MAX_FILES: usize = 20;
/// Largest plan file read from `~/.claude/plans/`.
const MAX_PLAN_FILE: u64 = 512 * 1024;

/// Everything extracted from a transcript without a model; this is also the JSON of
/// `save-memory inspect --json`, whose field names are fixed by docs/design.md §3.11.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Extraction {
    /// Which agent wrote the transcript; left out of the JSON for Claude Code, whose
    /// extraction had no such field.
    #[serde(default, skip_serializing_if = "Agent::is_claude_code")]
    pub agent: Agent,
    /// The session id of the newest main-chain record that has one.
    pub session_id: Option<String>,
    /// The working directory Claude Code recorded (the project).
    pub cwd: Option<String>,
    /// The Claude Code version that wrote the newest records.
    pub version: Option<String>,
    /// The git branch Claude Code recorded, if the project is a repository.
    pub git_branch: Option<String>,
    /// Records parsed.
    pub records: usize,
    /// Lines that were not JSON records.
    pub bad_lines: usize,
    /// The agent's own title of the session: Claude Code's title record, or the title
    /// the interactive Codex gave the thread (`session_index.jsonl`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The last prompt the user really typed (docs/design.md §3.3).
    pub last_prompt: Option<Prompt>,
    /// When the last prompt only continues ("continue", "thanks", "did you push?"): the
    /// request it continues, the latest one that names a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<Prompt>,
    /// Everything the assistant said and did after the last prompt.
    pub reply: Option<Reply>,
    /// The user stopped the last turn (interrupted it, or refused a tool call) and
    /// nothing happened after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stop>,
    /// The current task list (`None`: the session never had one).
    pub todos: Option<TodoList>,
    /// The plan of the last accepted `ExitPlanMode`.
    pub plan: Option<Plan>,
    /// Files modified and read in the segment (from the turn's prompt when it began before
    /// the segment).
    pub files: Files,
    /// The last tool call and its outcome.
    pub last_action: Option<LastAction>,
}

/// The last prompt the user really typed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prompt {
    /// The prompt's text, redacted, its head and tail kept when very long.
    pub text: String,
    /// When it was sent (RFC 3339, as Claude Code wrote it).
    pub timestamp: Option<String>,
    /// The record's uuid in the transcript.
    pub uuid: Option<String>,
}

/// Everything the assistant said and did after the last prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// The assistant's texts, in order, joined by blank lines.
    pub text: String,
    /// The tool calls it made, in order: the last [`MAX_REPLY_CALLS`], and the earlier
    /// ones that failed or were refused (up to as many again).
    pub tool_calls: Vec<ToolCallSummary>,
    /// Earlier calls left out of `tool_calls` (a turn of millions of calls).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub calls_not_listed: usize,
    /// Byte offset in `text` where the closing block starts: the text written after the
    /// reply's last tool call that did work (a task-list update does not count). `None`
    /// when the reply ended on such a call: the assistant was still working.
    #[serde(default)]
    pub closing_at: Option<usize>,
}

/// Most tool calls of a reply kept one by one; a memory lists the last 40 and counts
/// the rest, the restore names the failed ones.
pub const MAX_REPLY_CALLS: usize = 1_000;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Reply {
    /// Every call the reply made, listed or not.
    pub fn calls_total(&self) -> usize {
        self.tool_calls.len() + self.calls_not_listed
    }

    /// The reply's closing block: what the assistant said once its work was done.
    pub fn closing(&self) -> Option<&str> {
        self.closing_at
            .and_then(|at| self.text.get(at..))
            .map(str::trim)
            .filter(|c| !c.is_empty())
    }

    /// The last paragraph the assistant wrote (outside code blocks it is the last
    /// thing it said, whether or not it had finished).
    pub fn last_words(&self) -> Option<&str> {
        self.text
            .rsplit("\n\n")
            .map(str::trim)
            .find(|p| !p.is_empty() && !p.starts_with("```"))
    }
}

/// How the user stopped a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// `[Request interrupted by user]`: Esc while Claude was working.
    Interrupted,
    /// A tool call refused at the permission prompt (`tool` `summary`).
    Rejected {
        /// The tool's name.
        tool: String,
        /// What the call would have acted on.
        summary: String,
    },
}

/// A tool call, named, with one line saying what it acted on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallSummary {
    /// The tool's name (`Bash`, `Edit`, `mcp__…`).
    pub name: String,
    /// One line: the command, the file, the pattern…
    pub summary: String,
    /// The call's result was an error (or the user refused it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub failed: bool,
    /// The user refused the call at the permission prompt.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rejected: bool,
    /// The telling line of a failed call's result (the error, or the user's reason for
    /// refusing it), so a restore can say why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The plan of the last `ExitPlanMode` call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Where the plan text came from: the call's input, or a plan file.
    pub source: String,
    /// The plan, Markdown.
    pub text: String,
}

impl Plan {
    /// The plan's first line, without Markdown heading marks (`""` for an empty plan).
    pub fn title(&self) -> &str {
        self.text
            .lines()
            .map(|l| l.trim_start_matches('#').trim())
            .find(|l| !l.is_empty())
            .unwrap_or("")
    }
}

/// Files changed and read in the segment, most recent first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Files {
    /// Files written or edited, relative to the project where inside it.
    pub modified: Vec<String>,
    /// Files read and not modified.
    pub read: Vec<String>,
}

/// The last tool call and whether it succeeded (`None`: no result yet).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LastAction {
    /// The tool's name.
    pub tool: String,
    /// What the call acted on, one line.
    pub summary: String,
    /// Whether it succeeded; `None` while it has no result.
    pub ok: Option<bool>,
    /// The user refused the call (then `ok` is `Some(false)`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rejected: bool,
}

impl Extraction {
    /// An extraction of nothing (a transcript that could not be read).
    pub fn empty() -> Extraction {
        Extraction {
            agent: Agent::ClaudeCode,
            session_id: None,
            cwd: None,
            version: None,
            git_branch: None,
            records: 0,
            bad_lines: 0,
            title: None,
            last_prompt: None,
            request: None,
            reply: None,
            stopped: None,
            todos: None,
            plan: None,
            files: Files::default(),
            last_action: None,
        }
    }

    /// Number of tasks and of open ones.
    pub fn task_counts(&self) -> (usize, usize) {
        self.todos
            .as_ref()
            .map_or((0, 0), |t| (t.items.len(), t.open_count()))
    }
}

pub(super) fn extract(t: &Transcript) -> Extraction {
    let records = &t.records;
    let results = result_status(records);
    let rejected = rejected_calls(records);
    let prompts = t.prompts();
    let last = last_of_thread(records, prompts);
    // At a compaction in the middle of a long turn, the turn's files and its last action
    // began before the boundary: count them from the turn's prompt (the interaction the
    // memory shows is that whole turn).
    let turn_start = last.map_or(t.segment_start, |(i, _)| t.segment_start.min(*i + 1));
    let turn = &records[turn_start..];

    let mut ex = Extraction {
        agent: t.agent,
        session_id: None,
        cwd: None,
        version: None,
        git_branch: None,
        records: t.records_read,
        bad_lines: t.bad_lines,
        // A rollout holds no title: Codex keeps its own in its home's index.
        title: title(records).or_else(|| t.codex_title.clone()),
        last_prompt: None,
        request: None,
        reply: None,
        stopped: None,
        todos: tasks::current(records, t.task_files.as_ref(), t.checkpoint_state()),
        plan: None,
        files: Files::default(),
        last_action: last_action(turn, &results, &rejected),
    };
    [ex.session_id, ex.cwd, ex.version, ex.git_branch] = t.newest.fields();
    if t.sub_agent.is_some() {
        ex.session_id.clone_from(&t.sub_agent);
    }
    let root = t.root();
    ex.files = files(turn, &results, root.as_deref());
    if let Some(a) = &mut ex.last_action {
        a.summary = project_relative(&a.summary, root.as_deref());
    }

    let prompt_at = |(idx, text): &(usize, String)| Prompt {
        text: text.clone(),
        timestamp: records[*idx].meta.timestamp().map(String::from),
        uuid: records[*idx].meta.uuid().map(String::from),
    };
    if let Some(last) = last {
        ex.last_prompt = Some(prompt_at(last));
        ex.reply = reply(&records[last.0 + 1..], &results, &rejected);
        if let Some(r) = &mut ex.reply {
            for c in &mut r.tool_calls {
                c.summary = project_relative(&c.summary, root.as_deref());
            }
        }
        ex.stopped = stopped(&records[last.0 + 1..]);
        if prompt::is_continuation(&last.1) {
            ex.request = prompts
                .iter()
                .rev()
                .find(|(_, p)| !prompt::is_continuation(p))
                .map(prompt_at);
        }
    }
    ex.plan = plan(
        records,
        t.options.plans_dir.as_deref(),
        &results,
        t.options.redact,
    );
    ex
}

/// The newest of `prompts` on the thread the session ended on: the last in the file,
/// unless that one lies on a side branch of the conversation. A prompt queued while
/// Claude worked, delivered when the user interrupted, can be written after the turn it
/// interrupted and still end nowhere: the turn's closing reply follows the earlier
/// prompt's own records (`parentUuid`), not it. The thread is followed back from the
/// last reply, parents coming before their children in the file; when it breaks (a
/// record of a kind not kept, a compaction, a transcript with no parents) the last
/// prompt in the file stands.
fn last_of_thread<'a>(
    records: &[Record],
    prompts: &'a [(usize, String)],
) -> Option<&'a (usize, String)> {
    let last = prompts.last()?;
    let reply = records.iter().rposition(|r| {
        !r.meta.sidechain && r.meta.uuid_key != 0 && matches!(r.entry, Entry::Assistant(_))
    });
    // A prompt after the last reply is the thread's end (nothing has answered it yet).
    let Some(reply) = reply.filter(|at| *at > last.0) else {
        return Some(last);
    };
    let mut wanted = records[reply].meta.parent_key;
    for at in (0..reply).rev() {
        if wanted == 0 {
            break;
        }
        if records[at].meta.uuid_key != wanted {
            continue;
        }
        if let Ok(i) = prompts.binary_search_by_key(&at, |(p, _)| *p) {
            return prompts.get(i);
        }
        wanted = records[at].meta.parent_key;
    }
    Some(last)
}

/// Claude Code's title of this session: the newest title record that belongs to it (a
/// `summary` record only when its `leafUuid` is a message of this file: others are the
/// titles of earlier sessions that Claude Code copies to the top of a resumed file).
/// Messages are among the records kept (progress and snapshot records are not).
fn title(records: &[Record]) -> Option<String> {
    let mut uuids: Option<HashSet<u64>> = None;
    records.iter().rev().find_map(|r| match &r.entry {
        Entry::Title(t) => {
            let ours = t.leaf.is_none_or(|leaf| {
                uuids
                    .get_or_insert_with(|| {
                        records
                            .iter()
                            .map(|r| r.meta.uuid_key)
                            .filter(|k| *k != 0)
                            .collect()
                    })
                    .contains(&leaf.bits())
            });
            ours.then(|| t.text.clone())
        }
        _ => None,
    })
}

/// Ids of the tool calls the user refused.
fn rejected_calls(records: &[Record]) -> KeySet {
    records
        .iter()
        .filter_map(|r| match &r.entry {
            Entry::User(u) => Some(u.tool_results.iter().filter(|t| t.rejected)),
            _ => None,
        })
        .flatten()
        .map(|t| t.tool_use_id)
        .collect()
}

/// Whether the turn after a prompt ended with the user stopping it: an interrupt marker
/// or a refused tool call with no work of the assistant after it.
fn stopped(after: &[Record]) -> Option<Stop> {
    let mut stop = None;
    for r in after.iter().filter(|r| !r.meta.sidechain) {
        match &r.entry {
            Entry::Assistant(a)
                if !a.synthetic
                    && (!a.texts.iter().all(|t| t.trim().is_empty())
                        || !a.tool_calls.is_empty()) =>
            {
                stop = None;
            }
            Entry::User(u) => {
                if let Some(refused) = u.tool_results.iter().find(|t| t.rejected) {
                    let call = after.iter().find_map(|r| match &r.entry {
                        Entry::Assistant(a) => {
                            a.tool_calls.iter().find(|c| c.id == refused.tool_use_id)
                        }
                        _ => None,
                    });
                    stop = Some(Stop::Rejected {
                        tool: call.map_or_else(String::new, |c| c.name.to_string()),
                        summary: call.map_or_else(String::new, |c| c.summary.to_string()),
                    });
                } else if u.text.trim_start().starts_with(prompt::INTERRUPT_MARKER)
                    && !matches!(stop, Some(Stop::Rejected { .. }))
                {
                    stop = Some(Stop::Interrupted);
                }
            }
            _ => {}
        }
    }
    stop
}

/// For each tool_use id with a result: whether that result was an error.
fn result_status(records: &[Record]) -> KeyMap<bool> {
    let mut map = KeyMap::default();
    for r in records {
        if let Entry::User(u) = &r.entry {
            for res in &u.tool_results {
                map.insert(res.tool_use_id, res.is_error || u.tool_use_failed);
            }
        }
    }
    map
}

fn reply(after: &[Record], results: &KeyMap<bool>, rejected: &KeySet) -> Option<Reply> {
    let mut texts = Vec::new();
    let mut tool_calls = Vec::new();
    // Index in `texts` of the first text after the last call that did work.
    let mut closing_from = None;
    // The calls kept: the last `MAX_REPLY_CALLS`, and earlier failed or refused ones.
    let total: usize = after
        .iter()
        .filter(|r| !r.meta.sidechain)
        .filter_map(|r| match &r.entry {
            Entry::Assistant(a) if !a.synthetic => Some(a.tool_calls.len()),
            _ => None,
        })
        .sum();
    let recent_from = total.saturating_sub(MAX_REPLY_CALLS);
    let (mut seen, mut earlier_kept) = (0usize, 0usize);
    // Why each failed call failed: the telling line of its error result.
    // A command's output says why only where a line names the error; a tool's own
    // error (`File has not been read yet`) says it in its first line.
    let commands: KeySet = after
        .iter()
        .filter_map(|r| match &r.entry {
            Entry::Assistant(a) => Some(
                a.tool_calls
                    .iter()
                    .filter(|c| super::record::is_shell(&c.name)),
            ),
            _ => None,
        })
        .flatten()
        .map(|c| c.id)
        .collect();
    let mut errors: KeyMap<String> = KeyMap::default();
    for r in after {
        if let Entry::User(u) = &r.entry {
            for res in u.tool_results.iter().filter(|res| res.is_error) {
                let why = if res.rejected {
                    super::outcome::reason(res.text.head())
                } else if commands.contains(&res.tool_use_id) {
                    super::outcome::named_error(res.text.head())
                } else {
                    super::outcome::error_line(res.text.head())
                };
                if let Some(why) = why {
                    errors.insert(res.tool_use_id, why);
                }
            }
        }
    }
    for r in after {
        let Entry::Assistant(a) = &r.entry else {
            continue;
        };
        if r.meta.sidechain || a.synthetic {
            continue;
        }
        texts.extend(
            a.texts
                .iter()
                .map(|t| t.trim())
                .filter(|t| !t.is_empty())
                .map(str::to_string),
        );
        for c in &a.tool_calls {
            if !is_bookkeeping(&c.name) {
                closing_from = Some(texts.len());
            }
            let failed = results.get(&c.id) == Some(&true);
            let refused = rejected.contains(&c.id);
            let keep = seen >= recent_from
                || ((failed || refused) && earlier_kept < MAX_REPLY_CALLS && {
                    earlier_kept += 1;
                    true
                });
            seen += 1;
            if keep {
                tool_calls.push(ToolCallSummary {
                    name: c.name.to_string(),
                    summary: c.summary.to_string(),
                    failed,
                    rejected: refused,
                    error: if failed || refused {
                        errors.get(&c.id).cloned()
                    } else {
                        None
                    },
                });
            }
        }
    }
    let calls_not_listed = total - tool_calls.len();

    let text = texts.join("\n\n");
    // Texts written after the last call that did work; the texts before it narrate.
    let closing_at = match closing_from {
        // No call did work: the whole reply is the answer.
        None => Some(0),
        Some(i) if i < texts.len() => Some(texts[..i].iter().map(|t| t.len() + 2).sum()),
        Some(_) => None,
    };
    let (text, closing_at) = within_budget(text, closing_at);
    (!texts.is_empty() || !tool_calls.is_empty()).then_some(Reply {
        text,
        tool_calls,
        calls_not_listed,
        closing_at,
    })
}

/// Longest reply kept, all its texts together (each was already cut to
/// [`super::record::TEXT_KEEP_CHARS`]): one long autonomous turn of hundreds of texts
/// keeps its head and its tail, where the assistant's last words are.
pub(crate) const REPLY_KEEP_CHARS: usize = 32_000;

/// `text` cut to its first and last [`REPLY_KEEP_CHARS`]` / 2` characters around a line
/// that says how much was left out, and `closing_at` moved with it: into the kept tail
/// when the closing block began in what was left out. The texts were redacted when they
/// were read, so the cut leaves no piece of a secret.
fn within_budget(text: String, closing_at: Option<usize>) -> (String, Option<usize>) {
    let total = text.chars().count();
    if total <= REPLY_KEEP_CHARS {
        return (text, closing_at);
    }
    let half = REPLY_KEEP_CHARS / 2;
    let head_end = text.char_indices().nth(half).map_or(text.len(), |(i, _)| i);
    let tail_start = text
        .char_indices()
        .nth(total - half)
        .map_or(text.len(), |(i, _)| i);
    let marker = format!(
        "\n\n[… {} characters of this reply omitted: it was {total} characters long …]\n\n",
        total - 2 * half
    );
    let cut = format!("{}{marker}{}", &text[..head_end], &text[tail_start..]);
    let closing_at = closing_at.map(|at| {
        if at <= head_end {
            at
        } else if at >= tail_start {
            at - tail_start + head_end + marker.len()
        } else {
            head_end + marker.len()
        }
    });
    (cut, closing_at)
}

/// Whether a tool keeps the task list rather than doing the work: it ends no reply's
/// work, and a failed one changes no code.
pub fn is_bookkeeping(tool: &str) -> bool {
    // ToolSearch only loads a deferred tool (TodoWrite on 2.1.3xx) for the next call;
    // closing a Codex sub-agent that has answered (`multi_agent_v1__close_agent`) ends
    // nothing under way.
    matches!(
        tool,
        "TodoWrite"
            | "TaskCreate"
            | "TaskUpdate"
            | "TaskList"
            | "TaskGet"
            | "ToolSearch"
            | "update_plan"
    ) || tool.ends_with("__close_agent")
}

fn main_calls(segment: &[Record]) -> impl DoubleEndedIterator<Item = &super::record::ToolCall> {
    segment
        .iter()
        .filter(|r| !r.meta.sidechain)
        .filter_map(|r| match &r.entry {
            Entry::Assistant(a) => Some(a.tool_calls.iter()),
            _ => None,
        })
        .flatten()
}

fn files(turn: &[Record], results: &KeyMap<bool>, cwd: Option<&str>) -> Files {
    let mut modified = Vec::new();
    let mut read = Vec::new();
    let mut seen_modified = HashSet::new();
    let mut seen_read = HashSet::new();
    for call in main_calls(turn).rev() {
        if results.get(&call.id) == Some(&true) {
            continue;
        }
        let add = |path: &str, list: &mut Vec<String>, seen: &mut HashSet<String>| {
            if is_scratch(path) {
                return;
            }
            let shown = project_relative(path, cwd);
            if seen.insert(shown.clone()) {
                list.push(shown);
            }
        };
        match &call.detail {
            ToolDetail::Modifies(p) => add(p, &mut modified, &mut seen_modified),
            ToolDetail::Reads(p) => add(p, &mut read, &mut seen_read),
            // Named in the order the command names them: the last named is the newest.
            ToolDetail::Paths {
                modified: m,
                read: r,
                ..
            } => {
                for p in m.iter().rev() {
                    add(p, &mut modified, &mut seen_modified);
                }
                for p in r.iter().rev() {
                    add(p, &mut read, &mut seen_read);
                }
            }
            _ => {}
        }
    }
    read.retain(|p| !seen_modified.contains(p));
    modified.truncate(MAX_FILES);
    read.truncate(MAX_FILES);
    Files { modified, read }
}

/// Whether a path is one of Claude Code's own working files rather than the project's:
/// plan-mode plans (`~/.claude/plans/`), anything else under `~/.claude/`, and the
/// output files of background tasks (`<tmp>/claude-<uid>/…/tasks/<id>.output`).
pub(crate) fn is_scratch(path: &str) -> bool {
    // Most paths are the project's own, with none of the names below: no copy is made.
    if !path.contains(".claude") && !path.contains(".codex") && !path.ends_with(".output") {
        return false;
    }
    let p = path.replace('\\', "/");
    p.contains("/.claude/plans/")
        || p.contains("/.codex/sessions/")
        || p.contains("/.codex/shell_snapshots/")
        || p.contains("/.claude/projects/")
        || p.contains("/.claude/todos/")
        || p.contains("/.claude/tasks/")
        || p.contains("/.claude/shell-snapshots/")
        || (p.ends_with(".output")
            && p.contains("/tasks/")
            && p.split('/').any(|c| c.starts_with("claude-")))
}

/// A path as a person reads it in this project: relative to `cwd` when inside it.
pub(crate) fn project_relative(path: &str, cwd: Option<&str>) -> String {
    let Some(cwd) = cwd
        .map(|c| c.trim_end_matches('/'))
        .filter(|c| !c.is_empty())
    else {
        return path.to_string();
    };
    match path
        .strip_prefix(cwd)
        .and_then(|rest| rest.strip_prefix('/'))
    {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => path.to_string(),
    }
}

fn last_action(
    segment: &[Record],
    results: &KeyMap<bool>,
    rejected: &KeySet,
) -> Option<LastAction> {
    // The last call that did work: a task-list update after it is bookkeeping, not
    // the action the turn ended on.
    let last = main_calls(segment)
        .rev()
        .find(|c| !is_bookkeeping(&c.name))
        .or_else(|| main_calls(segment).next_back());
    last.map(|c| LastAction {
        tool: c.name.to_string(),
        summary: c.summary.to_string(),
        ok: results.get(&c.id).map(|err| !err),
        rejected: rejected.contains(&c.id),
    })
}

/// The plan of the last `ExitPlanMode` call the user did not turn down (a refused plan
/// is a draft, and the memory calls its plan approved).
fn plan(
    records: &[Record],
    plans_dir: Option<&Path>,
    results: &KeyMap<bool>,
    redact: bool,
) -> Option<Plan> {
    let (idx, call_id, inline) = records
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, r)| !r.meta.sidechain)
        .find_map(|(i, r)| match &r.entry {
            Entry::Assistant(a) => a.tool_calls.iter().rev().find_map(|c| match &c.detail {
                ToolDetail::Plan(p) if results.get(&c.id) != Some(&true) => {
                    Some((i, c.id, p.clone()))
                }
                _ => None,
            }),
            _ => None,
        })?;
    let text = match inline.filter(|p| !p.trim().is_empty()) {
        Some(p) => p,
        None => {
            let file = records[idx..].iter().find_map(|r| match &r.entry {
                Entry::User(u) if u.tool_results.iter().any(|t| t.tool_use_id == call_id) => {
                    u.plan_file().map(String::from)
                }
                _ => None,
            })?;
            read_plan_file(Path::new(&file), plans_dir)
                .unwrap_or_else(|| format!("(plan kept by Claude Code in {file})"))
        }
    };
    // An inline plan was redacted as it was read; a plan file is redacted with the
    // memory. Either way the cut comes after redaction.
    let text = if text.chars().count() > PLAN_KEEP_CHARS {
        crate::redact::Clipped::new(&text, PLAN_KEEP_CHARS).render(PLAN_KEEP_CHARS, redact)
    } else {
        text
    };
    Some(Plan {
        source: "ExitPlanMode".into(),
        text,
    })
}

/// Longest plan kept: a longer one keeps its head and tail around a marker.
const PLAN_KEEP_CHARS: usize = 32_000;

/// Reads a plan file, but only inside Claude Code's plans directory: the path comes
/// from the transcript, which is not trusted to name arbitrary files.
pub(crate) fn read_plan_file(file: &Path, plans_dir: Option<&Path>) -> Option<String> {
    let dir = fs::canonicalize(plans_dir?).ok()?;
    let file = fs::canonicalize(file).ok()?;
    if !file.starts_with(&dir) {
        return None;
    }
    // A regular file only (a FIFO would never end), no larger than the cap.
    crate::fsutil::read_regular(&file, MAX_PLAN_FILE).ok()
}
