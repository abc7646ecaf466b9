//! One transcript line, parsed into the few things extraction needs.
//!
//! A line is walked without decoding it ([`skim`]): only the values named here are
//! decoded, so a `Write` of a 2 MB file or a 5 MB tool output costs a pass of `memchr`,
//! not a parse. Shapes we do not know make a record `Other`, never an error.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer};

use super::skim::{self, Cost, Cursor};
use crate::redact::{Clipped, redact_if};
use crate::text::one_line;

/// Longest tool output kept per result (head and tail), for the summariser's text.
pub(crate) const RESULT_KEEP_CHARS: usize = 2_000;

/// What is kept of a tool output when no summariser will read it: enough of its start
/// to tell a refused call and a created task ("Task #3 created successfully").
pub(crate) const RESULT_HEAD_CHARS: usize = 200;

/// Longest prompt or reply text kept: a longer one (a pasted log, a dumped file) keeps
/// its head and tail around a marker, so a memory stays small whatever was pasted.
pub(crate) const TEXT_KEEP_CHARS: usize = 32_000;

/// A prompt's or reply's text as kept: redacted (when asked) before any cut.
pub(crate) fn kept_text(text: String, redact: bool) -> String {
    let text = match crate::untrusted::clean(&text) {
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

/// How Claude Code's result of an approved `ExitPlanMode` starts.
const PLAN_APPROVED: &str = "User has approved your plan";

/// A parsed transcript record.
#[derive(Debug, Clone, Default)]
pub(crate) struct Record {
    pub meta: Meta,
    pub entry: Entry,
}

impl Record {
    /// Whether extraction reads this record's uuid or time stamp: a user record that may
    /// be a prompt (no tool result in it), a queued prompt, or a task-list write (whose
    /// time is compared with the task files'); and the records a structural signal names
    /// as its source (docs/design.md §3.12): a failed or refused call's result, the
    /// user's answers, a plan's approval, a change to a file. Few in any session next
    /// to the reads, searches and commands that worked, whose records stay undated.
    pub(crate) fn is_dated(&self) -> bool {
        match &self.entry {
            Entry::User(u) => {
                u.tool_results.is_empty()
                    || u.tool_use_failed
                    || u.tool_results.iter().any(|r| {
                        let head = r.text.head().trim_start();
                        r.is_error
                            || r.rejected
                            || head.starts_with(PLAN_APPROVED)
                            // A Codex command still running: its end, read later, may
                            // be a failure (`codex/running.rs`).
                            || (head.starts_with("Chunk ID:")
                                && super::commands::running_session(head).is_some())
                            // So is a Claude Code command sent to the background
                            // (`background.rs`).
                            || head.starts_with("Command running in background with ID: ")
                            // The user's answers to questions, as an old Claude Code
                            // and Codex's `request_user_input` return them.
                            || head.starts_with("User has answered your questions:")
                            || head.starts_with("{\"answers\":")
                    })
                    || !u.answers().is_empty()
                    || u.plan_file().is_some()
            }
            Entry::Queued(_) => true,
            Entry::Assistant(a) => a.tool_calls.iter().any(|c| match &c.detail {
                ToolDetail::TodoWrite(_) => true,
                // A change to a file may be the fix a stated cause names (§3.12), and a
                // test file's the test changed to fit the code.
                detail if !detail.modified().is_empty() => true,
                // A commit is dated where it is listed.
                _ => is_shell(&c.name) && super::commands::runs_git_commit(&c.summary),
            }),
            _ => false,
        }
    }
}

/// Fields every record kind may carry.
///
/// A segment can hold millions of records (issue 25, defect 17), so a record kept after
/// reading holds only what extraction reads of it: the uuid and time stamp of a prompt
/// or a task-list write (others are dropped once read, [`Meta::slim`]), a hash of every
/// uuid (a session title names the message it ends at), and the session fields only
/// until the newest of them are known.
#[derive(Debug, Clone, Default)]
pub(crate) struct Meta {
    /// The uuid and time stamp, when kept.
    pub dated: Option<Box<Dated>>,
    /// The uuid's hash ([`Key::of`]); 0 without one.
    pub uuid_key: u64,
    /// `parentUuid`'s hash: the record this one follows in its thread; 0 without one.
    pub parent_key: u64,
    /// `sessionId`, `cwd`, `version`, `gitBranch`, when decoded.
    pub session: Option<Box<SessionFields>>,
    pub sidechain: bool,
}

/// A record's uuid and time stamp, as written.
#[derive(Debug, Clone, Default)]
pub(crate) struct Dated {
    pub uuid: Option<Box<str>>,
    pub timestamp: Option<Box<str>>,
}

/// The session fields of a record (see [`super::NewestMeta`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct SessionFields {
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub version: Option<String>,
    pub git_branch: Option<String>,
}

impl Meta {
    /// Drops what no reader needs of a record kept for extraction: the session fields
    /// (already taken), and the uuid and time stamp unless `dated` (a prompt, a
    /// task-list write).
    pub(crate) fn slim(&mut self, dated: bool) {
        self.session = None;
        if !dated {
            self.dated = None;
        }
    }

    /// The record's uuid, when kept.
    pub(crate) fn uuid(&self) -> Option<&str> {
        self.dated.as_ref().and_then(|d| d.uuid.as_deref())
    }

    /// The record's time stamp, when kept.
    pub(crate) fn timestamp(&self) -> Option<&str> {
        self.dated.as_ref().and_then(|d| d.timestamp.as_deref())
    }
}

/// A 64-bit hash standing for an id that is only ever compared (a tool call's id, a
/// message's uuid): eight bytes in each of millions of records instead of a string.
/// Ids are a transcript's own (Claude Code's random ids): no one chooses them to
/// collide, and a collision would only mix up two calls' outcomes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) struct Key(u64);

impl Key {
    /// The key of `id` (FNV-1a, then mixed: ids are short).
    pub(crate) fn of(id: &str) -> Key {
        Key::of_bytes(id.as_bytes())
    }

    /// The key of an id's bytes, as [`Key::of`] gives it for the same text.
    fn of_bytes(id: &[u8]) -> Key {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in id {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        // A final mix, so that the low bits a hash table uses depend on every byte.
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        Key(h.max(1))
    }

    /// Its 64 bits (never 0).
    pub(crate) fn bits(self) -> u64 {
        self.0
    }
}

/// Hashes a [`Key`] as itself: it is a hash already.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is ever called for a `Key`; anything else is folded in.
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Maps and sets keyed by [`Key`].
pub(crate) type KeyMap<V> =
    std::collections::HashMap<Key, V, std::hash::BuildHasherDefault<KeyHasher>>;
/// See [`KeyMap`].
pub(crate) type KeySet = std::collections::HashSet<Key, std::hash::BuildHasherDefault<KeyHasher>>;

/// What a record is, reduced to what extraction uses.
#[derive(Debug, Clone, Default)]
pub(crate) enum Entry {
    // Boxed: a segment holds tens of thousands of records, most of them small.
    User(Box<UserMsg>),
    Assistant(Box<AssistantMsg>),
    CompactBoundary,
    /// Claude Code's own title of a conversation: a `summary` record (its `leafUuid`
    /// names the last message it covers, which may be in another session's file), or an
    /// `ai-title` / `custom-title` record, which belongs to the file it is in.
    Title(Box<Title>),
    /// A prompt the user typed while Claude was working (`queue-operation` enqueue).
    Queued(String),
    #[default]
    Other,
}

/// Claude Code's title of a conversation.
#[derive(Debug, Clone, Default)]
pub(crate) struct Title {
    pub text: String,
    /// A `summary` record's `leafUuid`, hashed ([`Key`]).
    pub leaf: Option<Key>,
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
    /// `toolUseResult.success == false` (a TaskUpdate that missed).
    pub tool_use_failed: bool,
    /// What a task or plan tool's result says; boxed, since millions of other results
    /// in a long segment say none of it.
    pub outcome: Option<Box<ResultOutcome>>,
}

/// What a tool's result says of the task list or the plan.
#[derive(Debug, Clone, Default)]
pub(crate) struct ResultOutcome {
    /// `toolUseResult.task.id` (TaskCreate).
    pub created_task_id: Option<String>,
    /// `toolUseResult.tasks` (TaskList): the whole task list at that moment.
    pub task_snapshot: Option<Vec<TaskSnapshotItem>>,
    /// `toolUseResult.filePath` of an ExitPlanMode whose input had no plan.
    pub plan_file: Option<String>,
    /// `toolUseResult.answers` of an AskUserQuestion: each question asked, and what the
    /// user chose or typed (several choices joined by ", ").
    pub answers: Vec<(String, String)>,
}

impl UserMsg {
    /// `toolUseResult.task.id`, of a TaskCreate.
    pub(crate) fn created_task_id(&self) -> Option<&str> {
        self.outcome.as_ref()?.created_task_id.as_deref()
    }

    /// `toolUseResult.tasks`, of a TaskList.
    pub(crate) fn task_snapshot(&self) -> Option<&[TaskSnapshotItem]> {
        self.outcome.as_ref()?.task_snapshot.as_deref()
    }

    /// `toolUseResult.filePath` of an ExitPlanMode without a plan.
    pub(crate) fn plan_file(&self) -> Option<&str> {
        self.outcome.as_ref()?.plan_file.as_deref()
    }

    /// `toolUseResult.answers`, of an AskUserQuestion.
    pub(crate) fn answers(&self) -> &[(String, String)] {
        self.outcome.as_ref().map_or(&[], |o| o.answers.as_slice())
    }
}

/// One `tool_result` block.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolResult {
    pub tool_use_id: Key,
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
    pub id: Key,
    /// Claude Code's own tools' names are not allocated for each call ([`tool_name`]).
    pub name: Cow<'static, str>,
    /// One line: a file path, a command, a pattern.
    pub summary: Box<str>,
    pub detail: ToolDetail,
    /// The first line of what a `Write` put in a plan file (`.claude/plans/…`, or a
    /// Markdown file named for a plan): the plan's title when `ExitPlanMode` names only
    /// the file.
    pub title: Option<String>,
}

/// The parts of a tool's input that extraction acts on.
#[derive(Debug, Clone, Default)]
pub(crate) enum ToolDetail {
    Modifies(String),
    Reads(String),
    /// Several files at once: a Codex `apply_patch`, or a shell command that clearly
    /// reads or writes files (docs/design.md §3.13).
    Paths {
        modified: Vec<String>,
        read: Vec<String>,
        /// Of `modified`, those the call may have created (a patch's added files, a
        /// shell command's output files): an existing file it edited is not among them.
        created: Vec<String>,
    },
    TodoWrite(Vec<TodoInput>),
    // Boxed: the other kinds of call, millions in a long segment, need no room for them.
    TaskCreate(Box<TaskCreateInput>),
    TaskUpdate(Box<TaskUpdateInput>),
    Plan(Option<String>),
    /// Codex's `write_stdin`: input to, or a wait on, the running command of session N.
    Poll(u64),
    /// `AskUserQuestion`: the questions put to the user, with the options offered.
    Ask(Vec<Question>),
    #[default]
    None,
}

impl ToolDetail {
    /// The files the call changes: an edit's one, or every file a Codex patch or a shell
    /// command clearly writes.
    pub(crate) fn modified(&self) -> &[String] {
        match self {
            ToolDetail::Modifies(path) => std::slice::from_ref(path),
            ToolDetail::Paths { modified, .. } => modified,
            _ => &[],
        }
    }
}

/// Whether a tool runs shell commands, its summary being the command: Claude Code's
/// `Bash`, Codex's `exec_command` and the names earlier Codex versions gave it.
pub(crate) fn is_shell(name: &str) -> bool {
    matches!(
        name,
        "Bash" | "exec_command" | "shell" | "container.exec" | "local_shell" | "shell_command"
    )
}

/// One question of an `AskUserQuestion` call (or of Codex's `request_user_input`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Question {
    /// Its id, which Codex's answers are keyed by.
    pub id: Option<String>,
    pub question: String,
    /// The short label Claude Code shows over the question.
    pub header: Option<String>,
    /// The labels of the options offered.
    pub options: Vec<String>,
}

/// A TaskCreate input.
#[derive(Debug, Clone, Default)]
pub(crate) struct TaskCreateInput {
    pub subject: String,
    pub active_form: Option<String>,
}

/// A TaskUpdate input.
#[derive(Debug, Clone, Default)]
pub(crate) struct TaskUpdateInput {
    pub task_id: String,
    pub status: Option<String>,
    pub subject: Option<String>,
    pub active_form: Option<String>,
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
/// a JSON object at all (or one cut short) is a bad line.
pub(crate) fn parse_line(line: &[u8]) -> Result<Record, BadLine> {
    parse(line, &LineOptions::default(), &mut Cost::default())
}

/// How much of a line to read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LineOptions {
    /// Redact texts as they are read.
    pub redact: bool,
    /// Keep what a summary shows of each tool output, not just its start.
    pub outputs: bool,
    /// The session fields (id, cwd, version, branch) are still wanted. Once they are
    /// not, they are not decoded, and the line of a record of no kind extraction reads
    /// is read only up to its `type`.
    pub session_fields: bool,
    /// Keep the uuid and time stamp only of the records extraction dates
    /// ([`Record::is_dated`]): the others are kept by the million in a long segment.
    pub dated_only: bool,
    /// The file is a sub-agent's own transcript: its sidechain records are its main
    /// chain.
    pub sidechain_is_main: bool,
}

impl Default for LineOptions {
    fn default() -> LineOptions {
        LineOptions {
            redact: false,
            outputs: true,
            session_fields: true,
            dated_only: false,
            sidechain_is_main: false,
        }
    }
}

/// Record types extraction reads; a record of any other is counted and dropped.
fn is_read_kind(kind: &[u8]) -> bool {
    matches!(
        kind,
        br#""user""#
            | br#""assistant""#
            | br#""system""#
            | br#""summary""#
            | br#""ai-title""#
            | br#""custom-title""#
            | br#""queue-operation""#
    )
}

/// [`parse_line`]; with `redact`, the texts a memory shows (prompts, replies, tool
/// summaries, task items, plans) are redacted as they are read, before any of them is
/// cut to a line or a headline: a cut first could leave a piece of a secret that no
/// longer looks like one. Tool outputs are redacted when shown ([`Clipped::render`]).
///
/// Only the values extraction uses are decoded; the rest of the line is passed over
/// (see [`skim`]), and what was decoded is added to `cost`. Without `outputs`, only the
/// start of each tool output is kept ([`RESULT_HEAD_CHARS`]): what extraction reads of
/// it, while a summariser's conversation text needs its head and tail.
pub(crate) fn parse(line: &[u8], opts: &LineOptions, cost: &mut Cost) -> Result<Record, BadLine> {
    let mut top = Top {
        stop_at_other: !opts.session_fields,
        ..Top::default()
    };
    let mut cur = Cursor::new(line);
    let walked = cur.object(|c, key| top.read(c, key));
    if line_read(line, top.stopped, walked, cur.at_end())? {
        return Ok(Record::default());
    }
    Ok(top.into_record(opts, cost))
}

/// Whether a line whose top level was read (`walked`, the cursor `at_end` after it) is a
/// whole record: `Ok(true)` when reading stopped early at a `type` of no interest (the
/// rest is not walked, only checked to end like a whole record: a line cut short still
/// counts as a bad one), `Ok(false)` when it was read whole. Claude Code's and Codex's
/// lines alike.
pub(crate) fn line_read(
    line: &[u8],
    stopped: bool,
    walked: Option<bool>,
    at_end: bool,
) -> Result<bool, BadLine> {
    if stopped {
        return if line.trim_ascii_end().ends_with(b"}") {
            Ok(true)
        } else {
            Err(BadLine)
        };
    }
    if walked != Some(true) || !at_end {
        return Err(BadLine);
    }
    Ok(false)
}

/// The top-level values of a record that extraction reads, undecoded.
#[derive(Default)]
struct Top<'a> {
    /// Stop at a `type` extraction does not read (see [`LineOptions::session_fields`]).
    stop_at_other: bool,
    /// Stopped there: the record is of no use.
    stopped: bool,
    kind: Option<&'a [u8]>,
    subtype: Option<&'a [u8]>,
    uuid: Option<&'a [u8]>,
    parent_uuid: Option<&'a [u8]>,
    timestamp: Option<&'a [u8]>,
    session_id: Option<&'a [u8]>,
    cwd: Option<&'a [u8]>,
    version: Option<&'a [u8]>,
    git_branch: Option<&'a [u8]>,
    is_sidechain: Option<&'a [u8]>,
    is_meta: Option<&'a [u8]>,
    is_compact_summary: Option<&'a [u8]>,
    is_visible_in_transcript_only: Option<&'a [u8]>,
    /// `toolUseResult`: present and not `null`.
    has_tool_use_result: bool,
    tool_use_result: ToolUseResult<'a>,
    message: Option<Message<'a>>,
    // Title and queue records.
    summary: Option<&'a [u8]>,
    leaf_uuid: Option<&'a [u8]>,
    ai_title: Option<&'a [u8]>,
    custom_title: Option<&'a [u8]>,
    operation: Option<&'a [u8]>,
    content: Option<&'a [u8]>,
}

/// `message`: the same fields are read whatever the record type (which may come later
/// in the line).
#[derive(Default)]
struct Message<'a> {
    model: Option<&'a [u8]>,
    /// `content` when it is a string.
    text: Option<&'a [u8]>,
    /// `content` when it is a list of blocks.
    blocks: Vec<Block<'a>>,
}

/// The fields of `toolUseResult` that extraction reads.
#[derive(Default)]
struct ToolUseResult<'a> {
    task: Option<&'a [u8]>,
    tasks: Option<&'a [u8]>,
    success: Option<&'a [u8]>,
    plan: Option<&'a [u8]>,
    file_path: Option<&'a [u8]>,
    answers: Option<&'a [u8]>,
}

impl<'a> Top<'a> {
    /// Reads the value of `key` (or leaves it to be passed over).
    fn read(&mut self, c: &mut Cursor<'a>, key: &[u8]) -> Option<()> {
        let slot = match key {
            b"type" => {
                let kind = c.raw()?;
                if self.stop_at_other && !is_read_kind(kind) {
                    self.stopped = true;
                    return None;
                }
                self.kind = Some(kind);
                return Some(());
            }
            b"subtype" => &mut self.subtype,
            b"uuid" => &mut self.uuid,
            b"parentUuid" => &mut self.parent_uuid,
            b"timestamp" => &mut self.timestamp,
            b"sessionId" => &mut self.session_id,
            b"cwd" => &mut self.cwd,
            b"version" => &mut self.version,
            b"gitBranch" => &mut self.git_branch,
            b"isSidechain" => &mut self.is_sidechain,
            b"isMeta" => &mut self.is_meta,
            b"isCompactSummary" => &mut self.is_compact_summary,
            b"isVisibleInTranscriptOnly" => &mut self.is_visible_in_transcript_only,
            b"summary" => &mut self.summary,
            b"leafUuid" => &mut self.leaf_uuid,
            b"aiTitle" => &mut self.ai_title,
            b"customTitle" => &mut self.custom_title,
            b"operation" => &mut self.operation,
            b"content" => &mut self.content,
            b"message" => {
                let mut m = Message::default();
                c.object(|c, key| m.read(c, key))?;
                self.message = Some(m);
                return Some(());
            }
            b"toolUseResult" => {
                // A string for some tools (errors): nothing to read then.
                if c.peek() != Some(b'{') {
                    self.has_tool_use_result = c.raw()? != b"null";
                    return Some(());
                }
                self.has_tool_use_result = true;
                let t = &mut self.tool_use_result;
                c.object(|c, key| {
                    let slot = match key {
                        b"task" => &mut t.task,
                        b"tasks" => &mut t.tasks,
                        b"success" => &mut t.success,
                        b"plan" => &mut t.plan,
                        b"filePath" => &mut t.file_path,
                        b"answers" => &mut t.answers,
                        _ => return Some(()),
                    };
                    *slot = Some(c.raw()?);
                    Some(())
                })?;
                return Some(());
            }
            _ => return Some(()),
        };
        *slot = Some(c.raw()?);
        Some(())
    }

    fn into_record(self, opts: &LineOptions, cost: &mut Cost) -> Record {
        let (redact, outputs) = (opts.redact, opts.outputs);
        // Read only while no newer record has given them (they are the same on every
        // line of a session, and only the newest are used).
        let mut session = |v: Option<&[u8]>| {
            if opts.session_fields {
                string(v, cost)
            } else {
                None
            }
        };
        let (session_id, cwd, version, git_branch) = (
            session(self.session_id),
            session(self.cwd),
            session(self.version),
            session(self.git_branch),
        );
        let session =
            (session_id.is_some() || cwd.is_some() || version.is_some() || git_branch.is_some())
                .then(|| {
                    Box::new(SessionFields {
                        session_id,
                        cwd,
                        version,
                        git_branch,
                    })
                });
        let (uuid, timestamp) = (self.uuid, self.timestamp);
        let uuid_key = key_of_raw(uuid, cost);
        let parent_key = key_of_raw(self.parent_uuid, cost);
        let sidechain = skim::is_true(self.is_sidechain) && !opts.sidechain_is_main;
        let kind = str_of(self.kind, cost);
        let entry = match kind.as_deref() {
            Some("user") => self.user_entry(redact, outputs, cost),
            Some("assistant") => self.assistant_entry(redact, cost),
            Some("system") if str_of(self.subtype, cost).as_deref() == Some("compact_boundary") => {
                Entry::CompactBoundary
            }
            Some("summary") | Some("ai-title") | Some("custom-title") => {
                let leaf = string(self.leaf_uuid, cost);
                match [self.custom_title, self.ai_title, self.summary]
                    .into_iter()
                    .filter_map(|v| string(v, cost))
                    .find(|t| !t.trim().is_empty())
                {
                    Some(t) => Entry::Title(Box::new(Title {
                        text: crate::text::one_line(&redact_if(redact, &t), 200),
                        leaf: leaf.as_deref().map(Key::of),
                    })),
                    None => Entry::Other,
                }
            }
            Some("queue-operation")
                if str_of(self.operation, cost).as_deref() == Some("enqueue") =>
            {
                match string(self.content, cost) {
                    Some(t) if !t.trim().is_empty() => Entry::Queued(kept_text(t, redact)),
                    _ => Entry::Other,
                }
            }
            _ => Entry::Other,
        };
        let mut record = Record {
            meta: Meta {
                uuid_key,
                parent_key,
                session,
                sidechain,
                ..Meta::default()
            },
            entry,
        };
        if !opts.dated_only || record.is_dated() {
            let dated = Dated {
                uuid: string(uuid, cost).map(String::into_boxed_str),
                timestamp: string(timestamp, cost).map(String::into_boxed_str),
            };
            if dated.uuid.is_some() || dated.timestamp.is_some() {
                record.meta.dated = Some(Box::new(dated));
            }
        }
        record
    }

    fn user_entry(self, redact: bool, outputs: bool, cost: &mut Cost) -> Entry {
        let mut msg = UserMsg {
            is_meta: skim::is_true(self.is_meta),
            compact_summary: skim::is_true(self.is_compact_summary)
                || skim::is_true(self.is_visible_in_transcript_only),
            has_tool_use_result: self.has_tool_use_result,
            ..UserMsg::default()
        };
        if let Some(m) = self.message {
            if let Some(text) = string(m.text, cost) {
                msg.text = text;
            } else {
                let mut texts = Vec::new();
                for b in m.blocks {
                    match str_of(b.kind, cost).as_deref() {
                        Some("text") => texts.extend(string(b.text, cost)),
                        Some("image") => msg.attachment = Some("image"),
                        Some("document") => msg.attachment = Some("document"),
                        Some("tool_result") => {
                            let is_error = skim::is_true(b.is_error);
                            // An error is kept at both ends whatever the reading: what
                            // failed, and the user's reason for refusing a call, are
                            // read from it.
                            let text = result_text(b.content, outputs || is_error, cost);
                            msg.tool_results.push(ToolResult {
                                tool_use_id: Key::of(
                                    &str_of(b.tool_use_id, cost).unwrap_or_default(),
                                ),
                                is_error,
                                rejected: is_error && is_rejection(text.head()),
                                text,
                            })
                        }
                        _ => {}
                    }
                }
                msg.text = texts.join("\n");
            }
            // Held for every record of the segment: no spare capacity.
            msg.tool_results.shrink_to_fit();
            msg.text = kept_text(std::mem::take(&mut msg.text), redact);
        }
        read_tool_use_result(&self.tool_use_result, &mut msg, redact, cost);
        Entry::User(Box::new(msg))
    }

    fn assistant_entry(self, redact: bool, cost: &mut Cost) -> Entry {
        let mut msg = AssistantMsg::default();
        let Some(m) = self.message else {
            return Entry::Assistant(Box::new(msg));
        };
        msg.synthetic = str_of(m.model, cost).as_deref() == Some("<synthetic>");
        if let Some(text) = string(m.text, cost) {
            msg.texts.push(kept_text(text, redact));
            return Entry::Assistant(Box::new(msg));
        }
        // Held for every record of the segment: made at their size, not grown and then
        // shrunk (a long segment holds millions).
        let kinds: Vec<Option<Cow<'_, str>>> =
            m.blocks.iter().map(|b| str_of(b.kind, cost)).collect();
        let count = |k: &[&str]| {
            kinds
                .iter()
                .filter(|x| x.as_deref().is_some_and(|x| k.contains(&x)))
                .count()
        };
        msg.texts = Vec::with_capacity(count(&["text"]));
        msg.tool_calls = Vec::with_capacity(count(&["tool_use", "server_tool_use"]));
        for (b, kind) in m.blocks.into_iter().zip(kinds) {
            match kind.as_deref() {
                Some("text") => {
                    if let Some(t) = string(b.text, cost) {
                        msg.texts.push(kept_text(t, redact));
                    }
                }
                Some("tool_use") | Some("server_tool_use") => {
                    let name = tool_name(string(b.name, cost).unwrap_or_default());
                    let (summary, detail) = describe_tool(&name, &b.input, redact, cost);
                    let title = plan_file_title(&detail, &b.input, redact, cost);
                    msg.tool_calls.push(ToolCall {
                        id: Key::of(&str_of(b.id, cost).unwrap_or_default()),
                        name,
                        summary: summary.into_boxed_str(),
                        detail,
                        title,
                    });
                }
                _ => {}
            }
        }
        // Held for every record of the segment: no spare capacity.
        msg.texts.shrink_to_fit();
        msg.tool_calls.shrink_to_fit();
        Entry::Assistant(Box::new(msg))
    }
}

impl<'a> Message<'a> {
    fn read(&mut self, c: &mut Cursor<'a>, key: &[u8]) -> Option<()> {
        match key {
            b"model" => self.model = Some(c.raw()?),
            b"content" => {
                if c.peek() != Some(b'[') {
                    let raw = c.raw()?;
                    if raw.starts_with(b"\"") {
                        self.text = Some(raw);
                    }
                    return Some(());
                }
                let blocks = &mut self.blocks;
                // Most messages hold one block or two.
                blocks.reserve_exact(2);
                c.array(|c| {
                    let mut b = Block::default();
                    // A block that is not an object (never seen) is passed over.
                    if c.object(|c, key| b.read(c, key))? {
                        blocks.push(b);
                    }
                    Some(())
                })?;
            }
            _ => {}
        }
        Some(())
    }
}

/// Claude Code's tools, whose names a segment repeats millions of times.
const KNOWN_TOOLS: [&str; 32] = [
    "Bash",
    "Read",
    "Edit",
    "Write",
    "MultiEdit",
    "Glob",
    "Grep",
    "LS",
    "TodoWrite",
    "TodoRead",
    "Task",
    "TaskCreate",
    "TaskUpdate",
    "TaskList",
    "TaskGet",
    "TaskOutput",
    "TaskStop",
    "WebFetch",
    "WebSearch",
    "ExitPlanMode",
    "EnterPlanMode",
    "NotebookEdit",
    "NotebookRead",
    "BashOutput",
    "KillShell",
    "KillBash",
    "SlashCommand",
    "Skill",
    "AskUserQuestion",
    "ListMcpResourcesTool",
    "ReadMcpResourceTool",
    "Agent",
];

/// A tool's name: borrowed from [`KNOWN_TOOLS`] when it is one of them.
/// An MCP server's question tool is read as the built-in one: Conductor (an app that
/// runs Claude Code) puts `mcp__conductor__AskUserQuestion` in its place, with the same
/// input, and the user's answers are as much their decisions.
fn tool_name(name: String) -> Cow<'static, str> {
    match KNOWN_TOOLS.iter().find(|k| **k == name) {
        Some(k) => Cow::Borrowed(k),
        None if name.starts_with("mcp__") && name.ends_with("__AskUserQuestion") => {
            Cow::Borrowed("AskUserQuestion")
        }
        None => Cow::Owned(name),
    }
}

/// A JSON string value, decoded and owned.
pub(crate) fn string(raw: Option<&[u8]>, cost: &mut Cost) -> Option<String> {
    str_of(raw, cost).map(Cow::into_owned)
}

/// The bits of the [`Key`] of a raw JSON string (quotes included), 0 for anything else:
/// an id without escapes (every uuid) is hashed as it lies, neither decoded nor checked,
/// for the uuid and the parent's of every record.
fn key_of_raw(raw: Option<&[u8]>, cost: &mut Cost) -> u64 {
    let Some(raw) = raw else {
        return 0;
    };
    match skim::unescaped(raw) {
        Some(inner) => Key::of_bytes(inner).bits(),
        None => str_of(Some(raw), cost).map_or(0, |u| Key::of(&u).bits()),
    }
}

/// A JSON string value, borrowed when it has nothing to unescape: what a type or an id
/// is only compared or hashed as, with no allocation for each of millions of records.
pub(crate) fn str_of<'a>(raw: Option<&'a [u8]>, cost: &mut Cost) -> Option<Cow<'a, str>> {
    raw.and_then(|r| skim::str_value(r, cost))
}

/// The fields of a content block that extraction reads, undecoded.
#[derive(Default)]
struct Block<'a> {
    kind: Option<&'a [u8]>,
    text: Option<&'a [u8]>,
    id: Option<&'a [u8]>,
    name: Option<&'a [u8]>,
    input: Input<'a>,
    tool_use_id: Option<&'a [u8]>,
    content: Option<&'a [u8]>,
    is_error: Option<&'a [u8]>,
}

impl<'a> Block<'a> {
    fn read(&mut self, c: &mut Cursor<'a>, key: &[u8]) -> Option<()> {
        let slot = match key {
            b"type" => &mut self.kind,
            b"text" => &mut self.text,
            b"id" => &mut self.id,
            b"name" => &mut self.name,
            b"tool_use_id" => &mut self.tool_use_id,
            b"content" => &mut self.content,
            b"is_error" => &mut self.is_error,
            b"input" => {
                let input = &mut self.input;
                c.object(|c, key| input.read(c, key))?;
                return Some(());
            }
            _ => return Some(()),
        };
        *slot = Some(c.raw()?);
        Some(())
    }
}

/// Whether a tool's error result is Claude Code's answer to a call the user refused
/// (the wording has been stable since 1.0: "The user doesn't want to proceed with this
/// tool use…", "…doesn't want to take this action right now…").
fn is_rejection(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("The user doesn't want to") || t.starts_with("The user doesn\u{2019}t want to")
}

/// What a summary can show of a `tool_result.content`: a string (decoded at its ends
/// only when long), or a list of blocks.
fn result_text(raw: Option<&[u8]>, outputs: bool, cost: &mut Cost) -> Clipped {
    let Some(raw) = raw else {
        return Clipped::default();
    };
    if !outputs {
        if let Some(head) = skim::string_head(raw, RESULT_HEAD_CHARS, cost) {
            return Clipped::new(&head, RESULT_KEEP_CHARS);
        }
    } else if let Some(clip) = skim::clip_string(raw, RESULT_KEEP_CHARS, cost) {
        return clip;
    }
    let mut parts = Vec::new();
    Cursor::new(raw).array(|c| {
        let mut b = Block::default();
        c.object(|c, key| b.read(c, key))?;
        match str_of(b.kind, cost).as_deref() {
            Some("text") => parts.extend(string(b.text, cost)),
            Some("image") => parts.push("[image]".into()),
            Some("document") => parts.push("[document]".into()),
            Some("tool_reference") => parts.push("[tool reference]".into()),
            _ => {}
        }
        Some(())
    });
    output_parts(&parts, outputs)
}

/// A tool output's parts (texts, `[image]`…) as one text: kept whole when outputs are
/// (its head and tail), else its head only.
pub(crate) fn output_parts(parts: &[String], outputs: bool) -> Clipped {
    let text = parts.join("\n");
    if outputs {
        Clipped::new(&text, RESULT_KEEP_CHARS)
    } else {
        Clipped::new(
            crate::text::prefix_chars(&text, RESULT_HEAD_CHARS),
            RESULT_KEEP_CHARS,
        )
    }
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

/// A string or a number, as text (task ids).
fn id_value(raw: Option<&[u8]>, cost: &mut Cost) -> Option<String> {
    let raw = raw?;
    if raw.starts_with(b"\"") {
        return string(Some(raw), cost);
    }
    match skim::decode::<serde_json::Value>(raw, cost)? {
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn read_tool_use_result(t: &ToolUseResult, msg: &mut UserMsg, redact: bool, cost: &mut Cost) {
    let ToolUseResult {
        task,
        tasks,
        success,
        plan,
        file_path,
        answers,
    } = *t;
    let mut outcome = ResultOutcome::default();
    if let Some(raw) = answers {
        outcome.answers = read_answers(raw, redact, cost);
    }
    if let Some(task) = task.and_then(|t| skim::decode::<RawTaskRef>(t, cost)) {
        outcome.created_task_id = task.id;
    }
    if let Some(tasks) = tasks.and_then(|t| skim::decode::<Vec<RawTaskRef>>(t, cost)) {
        outcome.task_snapshot = Some(
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
    msg.tool_use_failed = success == Some(b"false");
    if plan.is_none_or(|p| p == b"null") {
        outcome.plan_file = string(file_path, cost);
    }
    if outcome.created_task_id.is_some()
        || outcome.task_snapshot.is_some()
        || outcome.plan_file.is_some()
        || !outcome.answers.is_empty()
    {
        msg.outcome = Some(Box::new(outcome));
    }
}

/// `toolUseResult.answers` of an AskUserQuestion, in the order written: `{question:
/// answer}`, an answer being the option's label or the user's own text (a list of them
/// when several could be chosen).
fn read_answers(raw: &[u8], redact: bool, cost: &mut Cost) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let clean = |t: &str| {
        let t = crate::untrusted::clean(t);
        one_line(&redact_if(redact, &t), ANSWER_CHARS)
    };
    Cursor::new(raw).object(|c, key| {
        let value = c.raw()?;
        let answer = match skim::decode::<serde_json::Value>(value, cost) {
            Some(serde_json::Value::String(s)) => s,
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .filter_map(serde_json::Value::as_str)
                .collect::<Vec<_>>()
                .join(", "),
            _ => return Some(()),
        };
        let question = String::from_utf8_lossy(key);
        if !answer.trim().is_empty() {
            out.push((clean(&question), clean(&answer)));
        }
        Some(())
    });
    out
}

/// Longest question or answer kept.
const ANSWER_CHARS: usize = 500;

/// Tool input fields extraction reads, undecoded; each is decoded on its own, so an
/// unexpected type in one field never loses the others.
#[derive(Default)]
pub(crate) struct Input<'a> {
    file_path: Option<&'a [u8]>,
    notebook_path: Option<&'a [u8]>,
    path: Option<&'a [u8]>,
    command: Option<&'a [u8]>,
    pattern: Option<&'a [u8]>,
    url: Option<&'a [u8]>,
    query: Option<&'a [u8]>,
    description: Option<&'a [u8]>,
    prompt: Option<&'a [u8]>,
    subject: Option<&'a [u8]>,
    active_form: Option<&'a [u8]>,
    task_id: Option<&'a [u8]>,
    status: Option<&'a [u8]>,
    todos: Option<&'a [u8]>,
    plan: Option<&'a [u8]>,
    skill: Option<&'a [u8]>,
    shell_id: Option<&'a [u8]>,
    bash_id: Option<&'a [u8]>,
    task_id_snake: Option<&'a [u8]>,
    questions: Option<&'a [u8]>,
    question: Option<&'a [u8]>,
    content: Option<&'a [u8]>,
}

impl<'a> Input<'a> {
    /// Keeps the value of `key` if it is one extraction reads.
    pub(crate) fn read(&mut self, c: &mut Cursor<'a>, key: &[u8]) -> Option<()> {
        let slot = match key {
            b"file_path" => &mut self.file_path,
            b"notebook_path" => &mut self.notebook_path,
            b"path" => &mut self.path,
            b"command" => &mut self.command,
            b"pattern" => &mut self.pattern,
            b"url" => &mut self.url,
            b"query" => &mut self.query,
            b"description" => &mut self.description,
            b"prompt" => &mut self.prompt,
            b"subject" => &mut self.subject,
            b"activeForm" => &mut self.active_form,
            b"taskId" => &mut self.task_id,
            b"status" => &mut self.status,
            b"todos" => &mut self.todos,
            b"plan" => &mut self.plan,
            b"skill" => &mut self.skill,
            b"shell_id" => &mut self.shell_id,
            b"bash_id" => &mut self.bash_id,
            b"task_id" => &mut self.task_id_snake,
            b"questions" => &mut self.questions,
            b"question" => &mut self.question,
            b"content" => &mut self.content,
            _ => return Some(()),
        };
        *slot = Some(c.raw()?);
        Some(())
    }
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

#[derive(Deserialize)]
struct RawQuestion {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    question: Option<String>,
    #[serde(default)]
    header: Option<String>,
    #[serde(default)]
    options: Vec<RawOption>,
}

/// An option is `{label, description}`; a bare string is taken as its label.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawOption {
    Labelled {
        #[serde(default)]
        label: Option<String>,
    },
    Bare(String),
    Other(serde::de::IgnoredAny),
}

/// The questions of an `AskUserQuestion` input: `questions: [{question, header,
/// options}]`, or the single `question` string of early versions.
fn ask_questions(inp: &Input, redact: bool, cost: &mut Cost) -> Vec<Question> {
    let clean = |t: &str| {
        let t = crate::untrusted::clean(t);
        one_line(&redact_if(redact, &t), ANSWER_CHARS)
    };
    if let Some(list) = inp
        .questions
        .and_then(|q| skim::decode::<Vec<Option<RawQuestion>>>(q, cost))
    {
        return list
            .into_iter()
            .flatten()
            .filter_map(|q| {
                Some(Question {
                    id: q.id,
                    question: clean(q.question.as_deref().filter(|t| !t.trim().is_empty())?),
                    header: q.header.as_deref().map(clean),
                    options: q
                        .options
                        .into_iter()
                        .filter_map(|o| match o {
                            RawOption::Labelled { label } => label,
                            RawOption::Bare(l) => Some(l),
                            RawOption::Other(_) => None,
                        })
                        .map(|l| clean(&l))
                        .collect(),
                })
            })
            .collect();
    }
    string(inp.question, cost)
        .filter(|q| !q.trim().is_empty())
        .map(|q| Question {
            id: None,
            question: clean(&q),
            header: None,
            options: Vec::new(),
        })
        .into_iter()
        .collect()
}

/// Whether a path names a plan: Claude Code's plan files, or a Markdown file whose name
/// says it is one (`plan.md`, `PLAN-cache.md`).
pub(crate) fn is_plan_path(path: &str) -> bool {
    let p = path.replace('\\', "/");
    let name = p.rsplit('/').next().unwrap_or("").to_lowercase();
    p.contains("/.claude/plans/") || (name.ends_with(".md") && name.contains("plan"))
}

/// The title of the plan a `Write` puts in a plan file: its first non-empty line, `#`
/// marks removed. Only the start of the content is decoded.
fn plan_file_title(
    detail: &ToolDetail,
    inp: &Input,
    redact: bool,
    cost: &mut Cost,
) -> Option<String> {
    let ToolDetail::Modifies(path) = detail else {
        return None;
    };
    if !is_plan_path(path) {
        return None;
    }
    let head = skim::string_head(inp.content?, 400, cost)?;
    let line = head
        .lines()
        .map(|l| l.trim_start_matches('#').trim())
        .find(|l| !l.is_empty())?;
    let line = crate::untrusted::clean(line);
    Some(one_line(&redact_if(redact, &line), SUMMARY_CHARS))
}

/// A call on one file: the path as its summary, and `detail` of it (none without a path).
pub(crate) fn file_call(path: String, detail: fn(String) -> ToolDetail) -> (String, ToolDetail) {
    if path.is_empty() {
        (path, ToolDetail::None)
    } else {
        (path.clone(), detail(path))
    }
}

/// A task-list write (Claude Code's `TodoWrite`, Codex's `update_plan`): "N items, M
/// open" as its summary, and the items.
pub(crate) fn task_list_call(items: Vec<TodoInput>) -> (String, ToolDetail) {
    let open = items.iter().filter(|t| t.status != "completed").count();
    (
        format!(
            "{} item{}, {open} open",
            items.len(),
            if items.len() == 1 { "" } else { "s" }
        ),
        ToolDetail::TodoWrite(items),
    )
}

/// A tool call's one-line summary and what extraction acts on, from its input.
pub(crate) fn describe_tool(
    name: &str,
    inp: &Input,
    redact: bool,
    cost: &mut Cost,
) -> (String, ToolDetail) {
    let mut s = |v: Option<&[u8]>| string(v, cost);
    let file = s(inp.file_path).or_else(|| s(inp.notebook_path));
    let (summary, detail) = match name {
        "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => {
            file_call(file.unwrap_or_default(), ToolDetail::Modifies)
        }
        "Read" => file_call(file.unwrap_or_default(), ToolDetail::Reads),
        "TodoWrite" => task_list_call(
            inp.todos
                .and_then(|t| skim::decode::<Vec<Option<RawTodo>>>(t, cost))
                .unwrap_or_default()
                .into_iter()
                .flatten()
                .map(|t| TodoInput {
                    content: t.content.unwrap_or_default(),
                    status: t.status.unwrap_or_else(|| "pending".into()),
                    active_form: t.active_form,
                })
                .collect(),
        ),
        "TaskCreate" => {
            let subject = s(inp.subject).unwrap_or_default();
            (
                subject.clone(),
                ToolDetail::TaskCreate(Box::new(TaskCreateInput {
                    subject,
                    active_form: s(inp.active_form),
                })),
            )
        }
        "TaskUpdate" => {
            let task_id = id_value(inp.task_id, cost).unwrap_or_default();
            let status = string(inp.status, cost);
            let summary = match &status {
                Some(st) => format!("#{task_id} → {st}"),
                None => format!("#{task_id}"),
            };
            (
                summary,
                ToolDetail::TaskUpdate(Box::new(TaskUpdateInput {
                    task_id,
                    status,
                    subject: string(inp.subject, cost),
                    active_form: string(inp.active_form, cost),
                })),
            )
        }
        "AskUserQuestion" => {
            let questions = ask_questions(inp, redact, cost);
            let summary = questions
                .iter()
                .map(|q| q.question.as_str())
                .collect::<Vec<_>>()
                .join(" / ");
            (summary, ToolDetail::Ask(questions))
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
                .or_else(|| id_value(inp.task_id, cost))
                .or_else(|| id_value(inp.task_id_snake, cost))
                .or_else(|| string(inp.shell_id, cost))
                .or_else(|| string(inp.bash_id, cost))
                .or_else(|| string(inp.prompt, cost))
                .unwrap_or_default();
            (summary, ToolDetail::None)
        }
    };
    let mut detail = detail;
    clean_detail(&mut detail, redact);
    (tool_summary(&summary, redact), detail)
}

/// A tool call's summary as a memory shows it: cleaned as untrusted text, redacted when
/// asked (before the cut), one line of at most [`SUMMARY_CHARS`].
pub(crate) fn tool_summary(summary: &str, redact: bool) -> String {
    let summary = crate::untrusted::clean(summary);
    one_line(&redact_if(redact, &summary), SUMMARY_CHARS)
}

/// Cleans the texts of a tool's input that a memory shows (task items, plans, paths):
/// control characters out, and redacted when asked.
pub(crate) fn clean_detail(detail: &mut ToolDetail, redact: bool) {
    let text = |t: &mut String| {
        if let Cow::Owned(c) = crate::untrusted::clean(t) {
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
        ToolDetail::TaskCreate(create) => {
            text(&mut create.subject);
            create.active_form.as_mut().map(text);
        }
        ToolDetail::TaskUpdate(update) => {
            update.subject.as_mut().map(text);
            update.active_form.as_mut().map(text);
        }
        ToolDetail::Plan(plan) => {
            plan.as_mut().map(text);
        }
        // Cleaned as they were read.
        ToolDetail::Ask(_) => {}
        ToolDetail::Modifies(path) | ToolDetail::Reads(path) => {
            if let Cow::Owned(c) = crate::untrusted::clean(path) {
                *path = c;
            }
        }
        ToolDetail::Paths {
            modified,
            read,
            created,
        } => {
            for path in modified.iter_mut().chain(read.iter_mut()).chain(created) {
                if let Cow::Owned(c) = crate::untrusted::clean(path) {
                    *path = c;
                }
            }
        }
        ToolDetail::Poll(_) | ToolDetail::None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(line: &str) -> UserMsg {
        match parse_line(line.as_bytes()).unwrap().entry {
            Entry::User(u) => *u,
            e => panic!("not a user record: {e:?}"),
        }
    }

    fn assistant(line: &str) -> AssistantMsg {
        match parse_line(line.as_bytes()).unwrap().entry {
            Entry::Assistant(a) => *a,
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
        assert_eq!(u.created_task_id(), Some("3"));
        let u = user(
            r#"{"type":"user","message":{"content":[]},"toolUseResult":{"success":false,"taskId":"2","error":"Task not found"}}"#,
        );
        assert!(u.tool_use_failed);
        let u = user(
            r#"{"type":"user","message":{"content":[]},"toolUseResult":{"tasks":[{"id":"1","subject":"A","status":"completed"},{"id":2,"subject":"B"}]}}"#,
        );
        let snap = u.task_snapshot().unwrap();
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
        assert_eq!(&*a.tool_calls[0].summary, "cargo test ⏎ --all");
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
        assert_eq!(&*a.tool_calls[0].summary, "2 items, 2 open");
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
        let session = r.meta.session.as_deref().unwrap();
        assert_eq!(session.version.as_deref(), Some("2.1.197"));
        assert_eq!(session.git_branch.as_deref(), Some("main"));
    }

    #[test]
    fn exit_plan_mode_without_plan_points_at_the_file() {
        let u = user(
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"p","content":"ok"}]},"toolUseResult":{"plan":null,"isAgent":false,"filePath":"/h/.claude/plans/x.md"}}"#,
        );
        assert_eq!(u.plan_file(), Some("/h/.claude/plans/x.md"));
    }
}
