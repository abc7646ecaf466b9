//! The extraction of SPEC §3, computed from the records read.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::record::{Entry, Record, ToolDetail};
use super::{TodoList, Transcript, prompt, tasks};

/// Most files listed in each of `files.modified` and `files.read`.
pub const MAX_FILES: usize = 20;
/// Largest plan file read from `~/.claude/plans/`.
const MAX_PLAN_FILE: u64 = 512 * 1024;

/// Everything extracted from a transcript without a model; this is also the JSON of
/// `save-memory inspect --json`, whose field names are fixed by SPEC §3.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Extraction {
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub version: Option<String>,
    pub git_branch: Option<String>,
    /// Records parsed.
    pub records: usize,
    /// Lines that were not JSON records.
    pub bad_lines: usize,
    pub last_prompt: Option<Prompt>,
    pub reply: Option<Reply>,
    pub todos: Option<TodoList>,
    pub plan: Option<Plan>,
    pub files: Files,
    pub last_action: Option<LastAction>,
}

/// The last prompt the user really typed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prompt {
    pub text: String,
    pub timestamp: Option<String>,
    pub uuid: Option<String>,
}

/// Everything the assistant said and did after the last prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    pub text: String,
    pub tool_calls: Vec<ToolCallSummary>,
}

/// A tool call, named, with one line saying what it acted on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallSummary {
    pub name: String,
    pub summary: String,
}

/// The plan of the last `ExitPlanMode` call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub source: String,
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
    pub modified: Vec<String>,
    pub read: Vec<String>,
}

/// The last tool call and whether it succeeded (`None`: no result yet).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LastAction {
    pub tool: String,
    pub summary: String,
    pub ok: Option<bool>,
}

impl Extraction {
    /// An extraction of nothing (a transcript that could not be read).
    pub fn empty() -> Extraction {
        Extraction {
            session_id: None,
            cwd: None,
            version: None,
            git_branch: None,
            records: 0,
            bad_lines: 0,
            last_prompt: None,
            reply: None,
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
    let segment = &records[t.segment_start..];
    let results = result_status(records);

    let mut ex = Extraction {
        session_id: None,
        cwd: None,
        version: None,
        git_branch: None,
        records: records.len(),
        bad_lines: t.bad_lines,
        last_prompt: None,
        reply: None,
        todos: tasks::current(records, t.task_files.as_ref(), t.checkpoint_state()),
        plan: None,
        files: files(segment, &results),
        last_action: last_action(segment, &results),
    };
    session_meta(records, &mut ex);

    if let Some((idx, text)) = records
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, r)| prompt::prompt_text(r).map(|p| (i, p)))
    {
        ex.last_prompt = Some(Prompt {
            text,
            timestamp: records[idx].meta.timestamp.clone(),
            uuid: records[idx].meta.uuid.clone(),
        });
        ex.reply = reply(&records[idx + 1..]);
    }
    ex.plan = plan(records, t.options.plans_dir.as_deref());
    ex
}

/// Session id, cwd, version and branch from the newest main-chain record having each.
fn session_meta(records: &[Record], ex: &mut Extraction) {
    let newest = |f: fn(&Record) -> Option<&String>| {
        records
            .iter()
            .rev()
            .filter(|r| !r.meta.sidechain)
            .chain(records.iter().rev())
            .find_map(|r| f(r).filter(|v| !v.is_empty()).cloned())
    };
    ex.session_id = newest(|r| r.meta.session_id.as_ref());
    ex.cwd = newest(|r| r.meta.cwd.as_ref());
    ex.version = newest(|r| r.meta.version.as_ref());
    ex.git_branch = newest(|r| r.meta.git_branch.as_ref());
}

/// For each tool_use id with a result: whether that result was an error.
fn result_status(records: &[Record]) -> HashMap<&str, bool> {
    let mut map = HashMap::new();
    for r in records {
        if let Entry::User(u) = &r.entry {
            for res in &u.tool_results {
                map.insert(res.tool_use_id.as_str(), res.is_error || u.tool_use_failed);
            }
        }
    }
    map
}

fn reply(after: &[Record]) -> Option<Reply> {
    let mut texts = Vec::new();
    let mut tool_calls = Vec::new();
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
        tool_calls.extend(a.tool_calls.iter().map(|c| ToolCallSummary {
            name: c.name.clone(),
            summary: c.summary.clone(),
        }));
    }
    (!texts.is_empty() || !tool_calls.is_empty()).then(|| Reply {
        text: texts.join("\n\n"),
        tool_calls,
    })
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

fn files(segment: &[Record], results: &HashMap<&str, bool>) -> Files {
    let mut modified = Vec::new();
    let mut read = Vec::new();
    let mut seen_modified = HashSet::new();
    let mut seen_read = HashSet::new();
    for call in main_calls(segment).rev() {
        if results.get(call.id.as_str()) == Some(&true) {
            continue;
        }
        match &call.detail {
            ToolDetail::Modifies(p) if seen_modified.insert(p.as_str()) => modified.push(p.clone()),
            ToolDetail::Reads(p) if seen_read.insert(p.as_str()) => read.push(p.clone()),
            _ => {}
        }
    }
    read.retain(|p| !seen_modified.contains(p.as_str()));
    modified.truncate(MAX_FILES);
    read.truncate(MAX_FILES);
    Files { modified, read }
}

fn last_action(segment: &[Record], results: &HashMap<&str, bool>) -> Option<LastAction> {
    main_calls(segment).next_back().map(|c| LastAction {
        tool: c.name.clone(),
        summary: c.summary.clone(),
        ok: results.get(c.id.as_str()).map(|err| !err),
    })
}

fn plan(records: &[Record], plans_dir: Option<&Path>) -> Option<Plan> {
    let (idx, call_id, inline) = records
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, r)| !r.meta.sidechain)
        .find_map(|(i, r)| match &r.entry {
            Entry::Assistant(a) => a.tool_calls.iter().rev().find_map(|c| match &c.detail {
                ToolDetail::Plan(p) => Some((i, c.id.as_str(), p.clone())),
                _ => None,
            }),
            _ => None,
        })?;
    let text = match inline.filter(|p| !p.trim().is_empty()) {
        Some(p) => p,
        None => {
            let file = records[idx..].iter().find_map(|r| match &r.entry {
                Entry::User(u) if u.tool_results.iter().any(|t| t.tool_use_id == call_id) => {
                    u.plan_file.clone()
                }
                _ => None,
            })?;
            read_plan_file(Path::new(&file), plans_dir)
                .unwrap_or_else(|| format!("(plan kept by Claude Code in {file})"))
        }
    };
    Some(Plan {
        source: "ExitPlanMode".into(),
        text,
    })
}

/// Reads a plan file, but only inside Claude Code's plans directory: the path comes
/// from the transcript, which is not trusted to name arbitrary files.
fn read_plan_file(file: &Path, plans_dir: Option<&Path>) -> Option<String> {
    let dir = fs::canonicalize(plans_dir?).ok()?;
    let file = fs::canonicalize(file).ok()?;
    if !file.starts_with(&dir) || fs::metadata(&file).ok()?.len() > MAX_PLAN_FILE {
        return None;
    }
    fs::read_to_string(file).ok()
}
