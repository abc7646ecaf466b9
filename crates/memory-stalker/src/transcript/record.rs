//! One transcript line, parsed into the few things extraction needs.
//!
//! Lines are deserialised into borrowed, mostly-optional structs: fields we do not name
//! are skipped without allocating (a `Write` of a 2 MB file costs a scan, not a copy),
//! and shapes we do not know make a record `Other`, never an error.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::redact::{Clipped, redact_if};
use crate::text::one_line;

/// Longest tool output kept per result (head and tail), for the summariser's text.
pub(crate) const RESULT_KEEP_CHARS: usize = 2_000;

/// Longest prompt or reply text kept: a longer one (a pasted log, a dumped file) keeps
/// its head and tail around a marker, so a memory stays small whatever was pasted.
pub(crate) const TEXT_KEEP_CHARS: usize = 32_000;

/// A prompt's or reply's text as kept: redacted (when asked) before any cut.
fn kept_text(text: String, redact: bool) -> String {
    let text = match crate::text::strip_controls(&text) {
        Cow::Owned(clean) => clean,
        Cow::Borrowed(_) => text,
    };
    if text.len() <= TEXT_KEEP_CHARS || text.chars().count() <= TEXT_KEEP_CHARS {
        return match redact_if(redact, &text) {
            Cow::Owned(r) => r,
            Cow::Borrowed(_) => text,
        };
    }
    Clipped::new(&text, TEXT_KEEP_CHARS).render(TEXT_KEEP_CHARS, redact)
}

/// A parsed transcript record.
#[derive(Debug, Clone, Default)]
pub(crate) struct Record {
    pub meta: Meta,
    pub entry: Entry,
}

/// Fields every record kind may carry.
#[derive(Debug, Clone, Default)]
pub(crate) struct Meta {
    pub uuid: Option<String>,
    pub timestamp: Option<String>,
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub version: Option<String>,
    pub git_branch: Option<String>,
    pub sidechain: bool,
}

/// What a record is, reduced to what extraction uses.
#[derive(Debug, Clone, Default)]
pub(crate) enum Entry {
    User(UserMsg),
    Assistant(AssistantMsg),
    CompactBoundary,
    /// Claude Code's own title of a conversation: a `summary` record (its `leafUuid`
    /// names the last message it covers, which may be in another session's file), or an
    /// `ai-title` / `custom-title` record, which belongs to the file it is in.
    Title {
        text: String,
        leaf: Option<String>,
    },
    /// A prompt the user typed while Claude was working (`queue-operation` enqueue).
    Queued(String),
    #[default]
    Other,
}

/// A `type: "user"` record.
#[derive(Debug, Clone, Default)]
pub(crate) struct UserMsg {
    pub is_meta: bool,
    /// `isCompactSummary` or `isVisibleInTranscriptOnly`.
    pub compact_summary: bool,
    pub has_tool_use_result: bool,
    /// Text blocks joined with `\n` (or the string content).
    pub text: String,
    /// An image or document block is present.
    pub attachment: Option<&'static str>,
    pub tool_results: Vec<ToolResult>,
    /// `toolUseResult.task.id` (TaskCreate).
    pub created_task_id: Option<String>,
    /// `toolUseResult.tasks` (TaskList): the whole task list at that moment.
    pub task_snapshot: Option<Vec<TaskSnapshotItem>>,
    /// `toolUseResult.success == false` (a TaskUpdate that missed).
    pub tool_use_failed: bool,
    /// `toolUseResult.filePath` of an ExitPlanMode whose input had no plan.
    pub plan_file: Option<String>,
}

/// One `tool_result` block.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolResult {
    pub tool_use_id: String,
    pub is_error: bool,
    /// The user refused the call at Claude Code's permission prompt.
    pub rejected: bool,
    /// The output, or as much of its head and tail as a summary can show.
    pub text: Clipped,
}

/// A task as a TaskList result reports it.
#[derive(Debug, Clone, Default)]
pub(crate) struct TaskSnapshotItem {
    pub id: String,
    pub subject: String,
    pub status: String,
}

/// A `type: "assistant"` record.
#[derive(Debug, Clone, Default)]
pub(crate) struct AssistantMsg {
    /// `message.model == "<synthetic>"`: written by Claude Code, not by a model.
    pub synthetic: bool,
    pub texts: Vec<String>,
    pub tool_calls: Vec<ToolCall>,
}

/// One `tool_use` block.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolCall {
    pub id: String,
    pub name: String,
    /// One line: a file path, a command, a pattern.
    pub summary: String,
    pub detail: ToolDetail,
}

/// The parts of a tool's input that extraction acts on.
#[derive(Debug, Clone, Default)]
pub(crate) enum ToolDetail {
    Modifies(String),
    Reads(String),
    TodoWrite(Vec<TodoInput>),
    TaskCreate {
        subject: String,
        active_form: Option<String>,
    },
    TaskUpdate {
        task_id: String,
        status: Option<String>,
        subject: Option<String>,
        active_form: Option<String>,
    },
    Plan(Option<String>),
    #[default]
    None,
}

/// One item of a TodoWrite input.
#[derive(Debug, Clone, Default)]
pub(crate) struct TodoInput {
    pub content: String,
    pub status: String,
    pub active_form: Option<String>,
}

/// Why a line was not turned into a record.
#[derive(Debug)]
pub(crate) struct BadLine;

/// Parses one line. Unknown record types become `Entry::Other`; only text that is not
/// a JSON object at all (or a known type with a broken shape) is a bad line.
pub(crate) fn parse_line(line: &[u8]) -> Result<Record, BadLine> {
    parse(line, false)
}

/// [`parse_line`]; with `redact`, the texts a memory shows (prompts, replies, tool
/// summaries, task items, plans) are redacted as they are read, before any of them is
/// cut to a line or a headline: a cut first could leave a piece of a secret that no
/// longer looks like one. Tool outputs are redacted when shown ([`Clipped::render`]).
pub(crate) fn parse(line: &[u8], redact: bool) -> Result<Record, BadLine> {
    match serde_json::from_slice::<RawLine>(line) {
        Ok(raw) => Ok(raw.into_record(redact)),
        Err(_) => {
            // Salvage a record with a stray invalid byte rather than lose it.
            if let Cow::Owned(fixed) = String::from_utf8_lossy(line)
                && let Ok(raw) = serde_json::from_str::<RawLine>(&fixed)
            {
                return Ok(raw.into_record(redact));
            }
            // A shape we do not understand inside a record type we do not use is not
            // an error: newer Claude Code versions add record types freely.
            match serde_json::from_slice::<TypeOnly>(line) {
                Ok(t) if !matches!(t.kind.as_deref(), Some("user" | "assistant" | "system")) => {
                    Ok(Record::default())
                }
                _ => Err(BadLine),
            }
        }
    }
}

#[derive(Deserialize)]
struct TypeOnly<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct RawLine<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
    #[serde(default)]
    uuid: Option<String>,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(rename = "sessionId", default)]
    session_id: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    version: Option<String>,
    #[serde(rename = "gitBranch", default)]
    git_branch: Option<String>,
    #[serde(rename = "isSidechain", default)]
    is_sidechain: Option<bool>,
    #[serde(rename = "isMeta", default)]
    is_meta: Option<bool>,
    #[serde(rename = "isCompactSummary", default)]
    is_compact_summary: Option<bool>,
    #[serde(rename = "isVisibleInTranscriptOnly", default)]
    is_visible_in_transcript_only: Option<bool>,
    #[serde(rename = "toolUseResult", borrow, default)]
    tool_use_result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
    // Title and queue records. Read raw: a record type of a later version may use the
    // same names for other shapes, and that must not make its line unreadable.
    #[serde(borrow, default)]
    summary: Option<&'a RawValue>,
    #[serde(rename = "leafUuid", borrow, default)]
    leaf_uuid: Option<&'a RawValue>,
    #[serde(rename = "aiTitle", borrow, default)]
    ai_title: Option<&'a RawValue>,
    #[serde(rename = "customTitle", borrow, default)]
    custom_title: Option<&'a RawValue>,
    #[serde(borrow, default)]
    operation: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
struct RawMessage<'a> {
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<RawContent<'a>>,
}

/// `message.content`: a string or a list of blocks.
enum RawContent<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<RawBlock<'a>>),
}

#[derive(Deserialize)]
struct RawBlock<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(default)]
    tool_use_id: Option<String>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(default)]
    is_error: Option<bool>,
}

impl<'de: 'a, 'a> Deserialize<'de> for RawContent<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = RawContent<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a list of content blocks")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(RawContent::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(RawContent::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(RawContent::Text(Cow::Owned(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(RawContent::Blocks(Vec::new()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                // A block that is not an object (never seen, but cheap to tolerate) is
                // dropped instead of failing the whole record.
                while let Some(b) = seq.next_element::<Option<LenientBlock<'a>>>()? {
                    if let Some(LenientBlock(Some(block))) = b {
                        blocks.push(block);
                    }
                }
                Ok(RawContent::Blocks(blocks))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

struct LenientBlock<'a>(Option<RawBlock<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for LenientBlock<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw: &'de RawValue = Deserialize::deserialize(d)?;
        Ok(LenientBlock(serde_json::from_str(raw.get()).ok()))
    }
}

/// Whether a tool's error result is Claude Code's answer to a call the user refused
/// (the wording has been stable since 1.0: "The user doesn't want to proceed with this
/// tool use…", "…doesn't want to take this action right now…").
fn is_rejection(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("The user doesn't want to") || t.starts_with("The user doesn\u{2019}t want to")
}

/// Reads a JSON value as a string if it is one.
fn raw_str(v: Option<&RawValue>) -> Option<String> {
    v.and_then(|v| serde_json::from_str::<String>(v.get()).ok())
}

/// The text of a `tool_result.content`: a string, or a list of blocks.
fn result_text(v: Option<&RawValue>) -> String {
    let Some(v) = v else { return String::new() };
    if let Ok(s) = serde_json::from_str::<Cow<str>>(v.get()) {
        return s.into_owned();
    }
    let Ok(blocks) = serde_json::from_str::<Vec<LenientBlock>>(v.get()) else {
        return String::new();
    };
    let mut parts = Vec::new();
    for LenientBlock(b) in blocks {
        let Some(b) = b else { continue };
        match b.kind.as_deref() {
            Some("text") => {
                if let Some(t) = raw_str(b.text) {
                    parts.push(t);
                }
            }
            Some("image") => parts.push("[image]".into()),
            Some("document") => parts.push("[document]".into()),
            Some("tool_reference") => parts.push("[tool reference]".into()),
            _ => {}
        }
    }
    parts.join("\n")
}

impl<'a> RawLine<'a> {
    fn into_record(self, redact: bool) -> Record {
        let entry = match self.kind.as_deref() {
            Some("user") => user_entry(&self, redact),
            Some("assistant") => assistant_entry(&self, redact),
            Some("system") if self.subtype.as_deref() == Some("compact_boundary") => {
                Entry::CompactBoundary
            }
            Some("summary") | Some("ai-title") | Some("custom-title") => {
                let leaf = raw_str(self.leaf_uuid);
                match [self.custom_title, self.ai_title, self.summary]
                    .into_iter()
                    .filter_map(raw_str)
                    .find(|t| !t.trim().is_empty())
                {
                    Some(t) => Entry::Title {
                        text: crate::text::one_line(&redact_if(redact, &t), 200),
                        leaf,
                    },
                    None => Entry::Other,
                }
            }
            Some("queue-operation") if raw_str(self.operation).as_deref() == Some("enqueue") => {
                match raw_str(self.content) {
                    Some(t) if !t.trim().is_empty() => Entry::Queued(kept_text(t, redact)),
                    _ => Entry::Other,
                }
            }
            _ => Entry::Other,
        };
        let meta = Meta {
            uuid: self.uuid,
            timestamp: self.timestamp,
            session_id: self.session_id,
            cwd: self.cwd,
            version: self.version,
            git_branch: self.git_branch,
            sidechain: self.is_sidechain.unwrap_or(false),
        };
        Record { meta, entry }
    }
}

fn user_entry(line: &RawLine, redact: bool) -> Entry {
    let mut msg = UserMsg {
        is_meta: line.is_meta.unwrap_or(false),
        compact_summary: line.is_compact_summary.unwrap_or(false)
            || line.is_visible_in_transcript_only.unwrap_or(false),
        has_tool_use_result: line.tool_use_result.is_some_and(|v| v.get() != "null"),
        ..UserMsg::default()
    };
    if let Some(raw) = line.message
        && let Ok(m) = serde_json::from_str::<RawMessage>(raw.get())
    {
        match m.content {
            Some(RawContent::Text(t)) => msg.text = t.into_owned(),
            Some(RawContent::Blocks(blocks)) => {
                let mut texts = Vec::new();
                for b in blocks {
                    match b.kind.as_deref() {
                        Some("text") => {
                            if let Some(t) = raw_str(b.text) {
                                texts.push(t);
                            }
                        }
                        Some("image") => msg.attachment = Some("image"),
                        Some("document") => msg.attachment = Some("document"),
                        Some("tool_result") => {
                            let text = result_text(b.content);
                            let is_error = b.is_error.unwrap_or(false);
                            msg.tool_results.push(ToolResult {
                                tool_use_id: b.tool_use_id.unwrap_or_default(),
                                is_error,
                                rejected: is_error && is_rejection(&text),
                                text: Clipped::new(&text, RESULT_KEEP_CHARS),
                            })
                        }
                        _ => {}
                    }
                }
                msg.text = texts.join("\n");
            }
            None => {}
        }
        msg.text = kept_text(std::mem::take(&mut msg.text), redact);
    }
    if let Some(tur) = line.tool_use_result {
        read_tool_use_result(tur, &mut msg);
    }
    Entry::User(msg)
}

#[derive(Deserialize)]
struct RawToolUseResult<'a> {
    #[serde(borrow, default)]
    task: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tasks: Option<&'a RawValue>,
    #[serde(borrow, default)]
    success: Option<&'a RawValue>,
    #[serde(borrow, default)]
    plan: Option<&'a RawValue>,
    #[serde(rename = "filePath", borrow, default)]
    file_path: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct RawTaskRef {
    #[serde(default, deserialize_with = "lenient_id")]
    id: Option<String>,
    #[serde(default)]
    subject: Option<String>,
    #[serde(default)]
    status: Option<String>,
}

/// Task ids are strings in every version seen; accept numbers too.
fn lenient_id<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    Ok(match v {
        serde_json::Value::String(s) => Some(s),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    })
}

fn read_tool_use_result(raw: &RawValue, msg: &mut UserMsg) {
    // `toolUseResult` is a string for some tools (errors): nothing to read then.
    let Ok(tur) = serde_json::from_str::<RawToolUseResult>(raw.get()) else {
        return;
    };
    if let Some(task) = tur
        .task
        .and_then(|t| serde_json::from_str::<RawTaskRef>(t.get()).ok())
    {
        msg.created_task_id = task.id;
    }
    if let Some(tasks) = tur
        .tasks
        .and_then(|t| serde_json::from_str::<Vec<RawTaskRef>>(t.get()).ok())
    {
        msg.task_snapshot = Some(
            tasks
                .into_iter()
                .filter_map(|t| {
                    Some(TaskSnapshotItem {
                        id: t.id?,
                        subject: t.subject.unwrap_or_default(),
                        status: t.status.unwrap_or_else(|| "pending".into()),
                    })
                })
                .collect(),
        );
    }
    msg.tool_use_failed = tur.success.is_some_and(|s| s.get() == "false");
    if tur.plan.is_none_or(|p| p.get() == "null") {
        msg.plan_file = raw_str(tur.file_path);
    }
}

fn assistant_entry(line: &RawLine, redact: bool) -> Entry {
    let mut msg = AssistantMsg::default();
    let Some(raw) = line.message else {
        return Entry::Assistant(msg);
    };
    let Ok(m) = serde_json::from_str::<RawMessage>(raw.get()) else {
        return Entry::Assistant(msg);
    };
    msg.synthetic = m.model.as_deref() == Some("<synthetic>");
    match m.content {
        Some(RawContent::Text(t)) => msg.texts.push(kept_text(t.into_owned(), redact)),
        Some(RawContent::Blocks(blocks)) => {
            for b in blocks {
                match b.kind.as_deref() {
                    Some("text") => {
                        if let Some(t) = raw_str(b.text) {
                            msg.texts.push(kept_text(t, redact));
                        }
                    }
                    Some("tool_use") | Some("server_tool_use") => {
                        let name = b.name.unwrap_or_default();
                        let (summary, detail) = describe_tool(&name, b.input, redact);
                        msg.tool_calls.push(ToolCall {
                            id: b.id.unwrap_or_default(),
                            name,
                            summary,
                            detail,
                        });
                    }
                    _ => {}
                }
            }
        }
        None => {}
    }
    Entry::Assistant(msg)
}

/// Tool input fields extraction reads; each is kept raw so an unexpected type in one
/// field never loses the others.
#[derive(Deserialize, Default)]
struct RawInput<'a> {
    #[serde(borrow, default)]
    file_path: Option<&'a RawValue>,
    #[serde(borrow, default)]
    notebook_path: Option<&'a RawValue>,
    #[serde(borrow, default)]
    path: Option<&'a RawValue>,
    #[serde(borrow, default)]
    command: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pattern: Option<&'a RawValue>,
    #[serde(borrow, default)]
    url: Option<&'a RawValue>,
    #[serde(borrow, default)]
    query: Option<&'a RawValue>,
    #[serde(borrow, default)]
    description: Option<&'a RawValue>,
    #[serde(borrow, default)]
    prompt: Option<&'a RawValue>,
    #[serde(borrow, default)]
    subject: Option<&'a RawValue>,
    #[serde(rename = "activeForm", borrow, default)]
    active_form: Option<&'a RawValue>,
    #[serde(rename = "taskId", borrow, default)]
    task_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    status: Option<&'a RawValue>,
    #[serde(borrow, default)]
    todos: Option<&'a RawValue>,
    #[serde(borrow, default)]
    plan: Option<&'a RawValue>,
    #[serde(borrow, default)]
    skill: Option<&'a RawValue>,
    #[serde(borrow, default)]
    shell_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    bash_id: Option<&'a RawValue>,
    #[serde(rename = "task_id", borrow, default)]
    task_id_snake: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct RawTodo {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(rename = "activeForm", default)]
    active_form: Option<String>,
}

const SUMMARY_CHARS: usize = 160;

fn describe_tool(name: &str, input: Option<&RawValue>, redact: bool) -> (String, ToolDetail) {
    let inp: RawInput = input
        .and_then(|i| serde_json::from_str(i.get()).ok())
        .unwrap_or_default();
    let s = |v: Option<&RawValue>| raw_str(v);
    let id = |v: Option<&RawValue>| {
        v.and_then(|v| serde_json::from_str::<serde_json::Value>(v.get()).ok())
            .and_then(|v| match v {
                serde_json::Value::String(s) => Some(s),
                serde_json::Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
    };
    let file = s(inp.file_path).or_else(|| s(inp.notebook_path));
    let (summary, detail) = match name {
        "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => {
            let f = file.unwrap_or_default();
            (
                f.clone(),
                if f.is_empty() {
                    ToolDetail::None
                } else {
                    ToolDetail::Modifies(f)
                },
            )
        }
        "Read" => {
            let f = file.unwrap_or_default();
            (
                f.clone(),
                if f.is_empty() {
                    ToolDetail::None
                } else {
                    ToolDetail::Reads(f)
                },
            )
        }
        "TodoWrite" => {
            let items: Vec<TodoInput> = inp
                .todos
                .and_then(|t| serde_json::from_str::<Vec<Option<RawTodo>>>(t.get()).ok())
                .unwrap_or_default()
                .into_iter()
                .flatten()
                .map(|t| TodoInput {
                    content: t.content.unwrap_or_default(),
                    status: t.status.unwrap_or_else(|| "pending".into()),
                    active_form: t.active_form,
                })
                .collect();
            let open = items.iter().filter(|t| t.status != "completed").count();
            (
                format!(
                    "{} item{}, {} open",
                    items.len(),
                    if items.len() == 1 { "" } else { "s" },
                    open
                ),
                ToolDetail::TodoWrite(items),
            )
        }
        "TaskCreate" => {
            let subject = s(inp.subject).unwrap_or_default();
            (
                subject.clone(),
                ToolDetail::TaskCreate {
                    subject,
                    active_form: s(inp.active_form),
                },
            )
        }
        "TaskUpdate" => {
            let task_id = id(inp.task_id).unwrap_or_default();
            let status = s(inp.status);
            let summary = match &status {
                Some(st) => format!("#{task_id} → {st}"),
                None => format!("#{task_id}"),
            };
            (
                summary,
                ToolDetail::TaskUpdate {
                    task_id,
                    status,
                    subject: s(inp.subject),
                    active_form: s(inp.active_form),
                },
            )
        }
        "ExitPlanMode" => {
            let plan = s(inp.plan);
            let summary = plan
                .as_deref()
                .and_then(|p| p.lines().find(|l| !l.trim().is_empty()))
                .map(|l| l.trim_start_matches('#').trim().to_string())
                .unwrap_or_default();
            (summary, ToolDetail::Plan(plan))
        }
        _ => {
            let summary = file
                .or_else(|| s(inp.command))
                .or_else(|| s(inp.pattern))
                .or_else(|| s(inp.url))
                .or_else(|| s(inp.query))
                .or_else(|| s(inp.skill))
                .or_else(|| s(inp.description))
                .or_else(|| s(inp.subject))
                .or_else(|| s(inp.path))
                .or_else(|| id(inp.task_id))
                .or_else(|| id(inp.task_id_snake))
                .or_else(|| s(inp.shell_id))
                .or_else(|| s(inp.bash_id))
                .or_else(|| s(inp.prompt))
                .unwrap_or_default();
            (summary, ToolDetail::None)
        }
    };
    let mut detail = detail;
    clean_detail(&mut detail, redact);
    let summary = crate::text::strip_controls(&summary).into_owned();
    (
        one_line(&redact_if(redact, &summary), SUMMARY_CHARS),
        detail,
    )
}

/// Cleans the texts of a tool's input that a memory shows (task items, plans, paths):
/// control characters out, and redacted when asked.
fn clean_detail(detail: &mut ToolDetail, redact: bool) {
    let text = |t: &mut String| {
        if let Cow::Owned(c) = crate::text::strip_controls(t) {
            *t = c;
        }
        if let Cow::Owned(r) = redact_if(redact, t) {
            *t = r;
        }
    };
    match detail {
        ToolDetail::TodoWrite(items) => {
            for item in items {
                text(&mut item.content);
                item.active_form.as_mut().map(text);
            }
        }
        ToolDetail::TaskCreate {
            subject,
            active_form,
        } => {
            text(subject);
            active_form.as_mut().map(text);
        }
        ToolDetail::TaskUpdate {
            subject,
            active_form,
            ..
        } => {
            subject.as_mut().map(text);
            active_form.as_mut().map(text);
        }
        ToolDetail::Plan(plan) => {
            plan.as_mut().map(text);
        }
        ToolDetail::Modifies(path) | ToolDetail::Reads(path) => {
            if let Cow::Owned(c) = crate::text::strip_controls(path) {
                *path = c;
            }
        }
        ToolDetail::None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(line: &str) -> UserMsg {
        match parse_line(line.as_bytes()).unwrap().entry {
            Entry::User(u) => u,
            e => panic!("not a user record: {e:?}"),
        }
    }

    fn assistant(line: &str) -> AssistantMsg {
        match parse_line(line.as_bytes()).unwrap().entry {
            Entry::Assistant(a) => a,
            e => panic!("not an assistant record: {e:?}"),
        }
    }

    #[test]
    fn string_and_list_content_give_the_same_text() {
        let s = user(r#"{"type":"user","message":{"role":"user","content":"fix it"}}"#);
        let l = user(
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"fix"},{"type":"text","text":"it"}]}}"#,
        );
        assert_eq!(s.text, "fix it");
        assert_eq!(l.text, "fix\nit");
    }

    #[test]
    fn tool_result_content_as_string_or_blocks() {
        let u = user(
            r#"{"type":"user","message":{"role":"user","content":[
                {"type":"tool_result","tool_use_id":"a","content":"plain"},
                {"type":"tool_result","tool_use_id":"b","is_error":true,"content":[{"type":"text","text":"one"},{"type":"tool_reference","tool_name":"TaskCreate"}]}
            ]},"toolUseResult":{"stdout":"plain"}}"#,
        );
        assert!(u.has_tool_use_result);
        assert_eq!(u.tool_results.len(), 2);
        assert_eq!(u.tool_results[0].text.head(), "plain");
        assert!(!u.tool_results[0].is_error);
        assert_eq!(u.tool_results[1].text.head(), "one\n[tool reference]");
        assert!(u.tool_results[1].is_error);
    }

    #[test]
    fn task_results_are_read() {
        let u = user(
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"Task #3 created successfully: X"}]},"toolUseResult":{"task":{"id":"3","subject":"X"}}}"#,
        );
        assert_eq!(u.created_task_id.as_deref(), Some("3"));
        let u = user(
            r#"{"type":"user","message":{"content":[]},"toolUseResult":{"success":false,"taskId":"2","error":"Task not found"}}"#,
        );
        assert!(u.tool_use_failed);
        let u = user(
            r#"{"type":"user","message":{"content":[]},"toolUseResult":{"tasks":[{"id":"1","subject":"A","status":"completed"},{"id":2,"subject":"B"}]}}"#,
        );
        let snap = u.task_snapshot.unwrap();
        assert_eq!(snap.len(), 2);
        assert_eq!(snap[1].id, "2");
        assert_eq!(snap[1].status, "pending");
    }

    #[test]
    fn tool_use_result_may_be_a_string() {
        let u = user(
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x","is_error":true,"content":"Error: boom"}]},"toolUseResult":"Error: boom"}"#,
        );
        assert!(u.has_tool_use_result);
        assert!(u.tool_results[0].is_error);
    }

    #[test]
    fn assistant_blocks_and_tools() {
        let a = assistant(
            r#"{"type":"assistant","message":{"id":"m","model":"claude","content":[
              {"type":"thinking","thinking":"hmm","signature":"s"},
              {"type":"text","text":"Running tests."},
              {"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test\n--all","description":"run"}},
              {"type":"tool_use","id":"t2","name":"Write","input":{"file_path":"/p/a.rs","content":"fn main() {}"}},
              {"type":"tool_use","id":"t3","name":"Read","input":{"file_path":"/p/b.rs"}}
            ]}}"#,
        );
        assert!(!a.synthetic);
        assert_eq!(a.texts, vec!["Running tests."]);
        assert_eq!(a.tool_calls[0].summary, "cargo test ⏎ --all");
        assert!(matches!(&a.tool_calls[1].detail, ToolDetail::Modifies(p) if p == "/p/a.rs"));
        assert!(matches!(&a.tool_calls[2].detail, ToolDetail::Reads(p) if p == "/p/b.rs"));
    }

    #[test]
    fn synthetic_assistant_is_flagged() {
        let a = assistant(
            r#"{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"No response requested."}]}}"#,
        );
        assert!(a.synthetic);
    }

    #[test]
    fn todo_write_items_tolerate_old_and_new_shapes() {
        let a = assistant(
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"TodoWrite","input":{"todos":[
              {"id":"1","content":"old style","status":"in_progress","priority":"high"},
              {"content":"new style","status":"pending","activeForm":"Doing new style"},
              null
            ]}}]}}"#,
        );
        let ToolDetail::TodoWrite(items) = &a.tool_calls[0].detail else {
            panic!()
        };
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].active_form, None);
        assert_eq!(items[1].active_form.as_deref(), Some("Doing new style"));
        assert_eq!(a.tool_calls[0].summary, "2 items, 2 open");
    }

    #[test]
    fn unknown_types_and_broken_unknown_shapes_are_not_bad_lines() {
        let r = parse_line(
            br#"{"type":"api-request-blob","message":{"role":"user","content":"hello"}}"#,
        )
        .unwrap();
        assert!(matches!(r.entry, Entry::Other));
        let r = parse_line(br#"{"type":"progress","data":{"x":[1,2,{"y":null}]}}"#).unwrap();
        assert!(matches!(r.entry, Entry::Other));
        assert!(parse_line(b"not json").is_err());
        assert!(parse_line(br#"{"type":"user","message":"#).is_err());
    }

    #[test]
    fn invalid_utf8_is_salvaged() {
        let mut line = br#"{"type":"user","message":{"content":"caf"#.to_vec();
        line.push(0xff);
        line.extend_from_slice(br#" ok"}}"#);
        let r = parse_line(&line).unwrap();
        let Entry::User(u) = r.entry else { panic!() };
        assert_eq!(u.text, "caf\u{fffd} ok");
    }

    #[test]
    fn compact_boundary_and_meta_fields() {
        let r = parse_line(
            br#"{"type":"system","subtype":"compact_boundary","isSidechain":false,"uuid":"u","timestamp":"t","sessionId":"s","cwd":"/p","version":"2.1.197","gitBranch":"main"}"#,
        )
        .unwrap();
        assert!(matches!(r.entry, Entry::CompactBoundary));
        assert_eq!(r.meta.version.as_deref(), Some("2.1.197"));
        assert_eq!(r.meta.git_branch.as_deref(), Some("main"));
    }

    #[test]
    fn exit_plan_mode_without_plan_points_at_the_file() {
        let u = user(
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"p","content":"ok"}]},"toolUseResult":{"plan":null,"isAgent":false,"filePath":"/h/.claude/plans/x.md"}}"#,
        );
        assert_eq!(u.plan_file.as_deref(), Some("/h/.claude/plans/x.md"));
    }
}
