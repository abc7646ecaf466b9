//! Reading a Claude Code transcript (JSONL) from the end and extracting what a memory
//! needs: the last real prompt and the reply to it, the task list, the plan, the files
//! worked on and the last action (docs/design.md §3).
//!
//! The reader walks backwards to the last `compact_boundary` (the segment the memory
//! describes) and further only while the last real prompt or the task list is still
//! missing, so the cost follows the last segment rather than the file size.
//!
//! A Codex CLI rollout is read the same way into the same records: its format is told
//! from the file's first line, and [`codex`] parses its lines (docs/design.md §3.13).

mod background;
mod checkpoints;
pub(crate) mod codex;
pub(crate) mod commands;
mod conversation;
mod describe;
pub(crate) mod extract;
pub(crate) mod outcome;
mod outline;
pub(crate) mod prompt;
pub(crate) mod record;
mod reverse;
mod settle;
mod skim;
pub(crate) mod tasks;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use aho_corasick::AhoCorasick;

pub use checkpoints::Checkpoints;
pub use codex::last_compaction_summary;
pub use describe::{bytes, describe};
pub use extract::{
    Extraction, Files, LastAction, Plan, Prompt, Reply, Stop, ToolCallSummary, is_bookkeeping,
};
pub use outline::{Compaction, Outline, outline};
pub use prompt::is_continuation;
pub use reverse::ReverseLines;
pub use tasks::{TASK_CHARS, TaskLine, TaskStatus, TodoItem, TodoList, TodoSource, task_text};

use crate::Error;
use crate::agent::Agent;
use record::{Entry, Record, ToolDetail};

/// Where to look besides the transcript, and how much of it to read.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Read only the first `end` bytes: the size the file had when the hook fired, so a
    /// background worker sees what the hook saw even after Claude Code appended more.
    pub end: Option<u64>,
    /// Claude Code's task files for this session (`~/.claude/tasks/<id>/`); when they
    /// exist they are the current task list.
    pub tasks_dir: Option<PathBuf>,
    /// Claude Code's plan files (`~/.claude/plans/`), read when `ExitPlanMode` has no
    /// inline plan but names a file there.
    pub plans_dir: Option<PathBuf>,
    /// Task lists known from earlier memories of this transcript: "when the file was
    /// `bytes` long, the task list was `todos`". Once the reader has passed such a point
    /// without seeing a task-list write, it need not read further back for one. They
    /// may still be being looked up when the read starts: used once known, waited for
    /// only when the segment is read and the task list is still missing.
    pub checkpoints: Checkpoints,
    /// Redact what is read (prompts, replies, tool summaries, task items, plans) as it
    /// is parsed, before anything cuts it; see [`crate::redact`].
    pub redact: bool,
    /// Keep only the start of each tool output: enough for the extraction, not for
    /// [`Transcript::conversation_text`], which then shows those starts. Saves decoding
    /// and holding megabytes of output a memory never shows.
    pub output_heads_only: bool,
}

impl ReadOptions {
    /// How far a line is read under these options, with or without the session fields.
    fn line_options(&self, session_fields: bool, sub_agent: bool) -> record::LineOptions {
        record::LineOptions {
            redact: self.redact,
            outputs: !self.output_heads_only,
            session_fields,
            dated_only: true,
            sidechain_is_main: sub_agent,
        }
    }
}

/// The task list at a known size of the transcript (from an earlier memory).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskCheckpoint {
    /// The transcript's size when the earlier memory was taken.
    pub bytes: u64,
    /// The task list at that size (`None`: there was none).
    pub todos: Option<TodoList>,
}

/// The records read from the end of a transcript, in file order.
#[derive(Debug)]
pub struct Transcript {
    /// Which agent wrote the file.
    agent: Agent,
    pub(crate) records: Vec<Record>,
    /// Index of the first record after the last compact boundary.
    pub(crate) segment_start: usize,
    bad_lines: usize,
    /// Bytes of the file that were read (from the end).
    bytes_read: u64,
    /// Size of the part of the file considered.
    size: u64,
    /// Claude Code's task files, when there are any.
    task_files: Option<tasks::TaskFiles>,
    /// The checkpoint the reader stopped at, if any.
    checkpoint: Option<Checkpoint>,
    pub(crate) options: ReadOptions,
    budget_spent: bool,
    json_bytes: u64,
    /// Records parsed, including those not kept.
    records_read: usize,
    newest: NewestMeta,
    /// [`Transcript::prompts`], worked out on first use.
    prompts: OnceLock<Vec<(usize, String)>>,
    /// The sub-agent's id when this is a sub-agent's transcript ([`sub_agent_id`]).
    sub_agent: Option<String>,
    /// The project the session belongs to, when the caller knows it
    /// ([`Transcript::in_project`]).
    project: Option<PathBuf>,
    /// Codex's title of the session, from its home's index ([`codex::thread_name`]).
    codex_title: Option<String>,
}

/// The id of the sub-agent whose transcript `path` is, from its name: Claude Code
/// writes a sub-agent's conversation to `agent-<id>.jsonl` (beside the session, or in
/// `<session>/subagents/`), every record marked `isSidechain`. Read by hand
/// (`save-memory --transcript`, a search store of old sessions), such a file is a
/// session of its own: its sidechain is its main chain, and its id names it, since its
/// records carry the parent session's id. A hook's transcript is never one.
fn sub_agent_id(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let id = name.strip_suffix(".jsonl")?;
    let rest = id.strip_prefix("agent-")?;
    (!rest.is_empty()
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
    .then(|| id.to_string())
}

/// The session fields of the newest records that have them, over every record read
/// (kept or not): session id, cwd, Claude Code version, git branch.
#[derive(Debug, Default)]
pub(crate) struct NewestMeta {
    /// The newest main-chain record's session id, empty or not.
    session_id: Option<String>,
    /// Per field: the newest non-empty value on the main chain, and on any chain.
    main: [Option<String>; 4],
    any: [Option<String>; 4],
}

impl NewestMeta {
    /// Takes what `meta` has that no newer record had (records come newest first).
    fn observe(&mut self, meta: &record::Meta) {
        let none = record::SessionFields::default();
        let s = meta.session.as_deref().unwrap_or(&none);
        if !meta.sidechain && self.session_id.is_none() {
            self.session_id.clone_from(&s.session_id);
        }
        let fields = [&s.session_id, &s.cwd, &s.version, &s.git_branch];
        for (i, value) in fields.into_iter().enumerate() {
            let Some(v) = value.as_ref().filter(|v| !v.is_empty()) else {
                continue;
            };
            if !meta.sidechain && self.main[i].is_none() {
                self.main[i] = Some(v.clone());
            }
            if self.any[i].is_none() {
                self.any[i] = Some(v.clone());
            }
        }
    }

    /// Whether no older record can change [`NewestMeta::fields`] or the session id.
    fn complete(&self) -> bool {
        self.session_id.is_some()
            && self.main.iter().all(Option::is_some)
            && self.any.iter().all(Option::is_some)
    }

    /// Session id, cwd, version and branch: from the newest main-chain record having
    /// each, else from the newest record of any chain.
    pub(crate) fn fields(&self) -> [Option<String>; 4] {
        std::array::from_fn(|i| self.main[i].clone().or_else(|| self.any[i].clone()))
    }
}

/// Most bytes read from one transcript, back from its end. Past a compaction boundary
/// the reader goes on only to find the last prompt or task list; in a file of many
/// gigabytes it stops here, so a hook never reads for minutes.
pub const MAX_READ_BYTES: u64 = 2 * 1024 * 1024 * 1024;

impl Transcript {
    /// Reads the transcript at `path` from the end (see the module documentation).
    ///
    /// Only a regular file is read: a FIFO, a device or a directory named as the
    /// transcript is an error at once, never a wait or an endless read.
    pub fn read(path: &Path, options: ReadOptions) -> Result<Transcript, Error> {
        let io_err = |source| Error::Transcript {
            path: path.to_path_buf(),
            source,
        };
        let (file, len) = crate::fsutil::open_regular(path, true, None).map_err(io_err)?;
        let size = options.end.map_or(len, |e| e.min(len));
        let dialect = Dialect::of_file(&file, size).map_err(io_err)?;
        let sub_agent = sub_agent_id(path);
        let line_options = options.line_options(true, sub_agent.is_some());
        let file = std::sync::Arc::new(file);
        let agent = dialect.agent;
        let parse = move |line: &[u8]| PreParsed::of(line, &line_options, agent);
        let is_sub = sub_agent.is_some();
        let mut read =
            match ReverseLines::prefetched_parsing(std::sync::Arc::clone(&file), size, parse) {
                Ok(lines) => Transcript::read_lines(path, lines, size, options, dialect, is_sub),
                // No second thread to be had: this one reads and parses it all.
                Err(_) => Transcript::read_lines(
                    path,
                    ReverseLines::new(&*file, size),
                    size,
                    options,
                    dialect,
                    is_sub,
                ),
            }?;
        read.sub_agent = sub_agent;
        if agent == Agent::Codex {
            read.codex_title = codex::thread_name(path);
        }
        Ok(read)
    }

    /// Reads a transcript held in memory, as [`Transcript::read`] reads a file.
    pub fn from_bytes(bytes: &[u8], options: ReadOptions) -> Result<Transcript, Error> {
        let len = bytes.len() as u64;
        let size = options.end.map_or(len, |e| e.min(len));
        let dialect = Dialect::of_start(&bytes[..size as usize]);
        let lines = ReverseLines::new(std::io::Cursor::new(bytes), size);
        Transcript::read_lines(Path::new("<memory>"), lines, size, options, dialect, false)
    }

    /// Reads `lines` back from the end of the file's first `size` bytes: the segment
    /// after the last compaction boundary, then further only for what it lacks.
    fn read_lines<B: reverse::Blocks<Parsed: Into<PreParsed>>>(
        path: &Path,
        mut lines: ReverseLines<B>,
        size: u64,
        options: ReadOptions,
        dialect: Dialect,
        sub_agent: bool,
    ) -> Result<Transcript, Error> {
        let io_err = |source| Error::Transcript {
            path: path.to_path_buf(),
            source,
        };
        // Claude Code's task files say nothing about a Codex session.
        let task_files = options
            .tasks_dir
            .as_deref()
            .filter(|_| dialect.agent == Agent::ClaudeCode)
            .map(|d| tasks::load_task_files(d).redacted(options.redact))
            .filter(|f| !f.items.is_empty());
        let mut read = Gathered::new(task_files.is_some());
        let mut checkpoints: Option<Vec<TaskCheckpoint>> = None;
        while !read.complete() {
            if read.scan.tasks == TaskScan::Open {
                if checkpoints.is_none() {
                    // Past the segment, a checkpoint may spare reading further back.
                    checkpoints = options.checkpoints.get(read.boundary_at.is_some());
                }
                if let Some(c) = &checkpoints
                    && read.pass_checkpoint(c, lines.unread(), size)
                    && read.complete()
                {
                    break;
                }
            }
            if size - lines.unread() > MAX_READ_BYTES {
                read.budget_spent = true;
                break;
            }
            let Some(reverse::Line {
                bytes: line,
                parsed,
                ..
            }) = lines.next_line_parsed().map_err(io_err)?
            else {
                break;
            };
            if read.skips(&dialect, line) {
                continue;
            }
            let line_options = options.line_options(!read.newest.complete(), sub_agent);
            let parsed = match parsed.map(Into::into) {
                Some(PreParsed { record, json_bytes }) => {
                    read.cost.json_bytes += json_bytes;
                    Ok(record)
                }
                None => dialect.parse(line, &line_options, &mut read.cost),
            };
            let Ok(record) = parsed else {
                read.bad_lines += 1;
                continue;
            };
            read.take(record, dialect.agent);
        }
        if let Some(session) = &dialect.session {
            // A rollout names its session, and its version and branch, only on its
            // first line: what no later record said is taken from there.
            read.newest.observe(session);
        }
        let bytes_read = size - lines.unread();
        Ok(read.into_transcript(dialect.agent, bytes_read, size, task_files, options))
    }

    /// Bytes of the file that were decoded as JSON, as opposed to passed over: what a
    /// test of the reader's cost counts (see `docs/performance.md`).
    pub fn json_bytes_decoded(&self) -> u64 {
        self.json_bytes
    }

    /// Whether reading stopped at [`MAX_READ_BYTES`] before finding all it looked for.
    pub fn read_budget_spent(&self) -> bool {
        self.budget_spent
    }

    /// Reads Claude Code's task files from `dir` (for when the session id was only
    /// known after reading).
    pub fn use_task_files(&mut self, dir: &Path) {
        if self.agent != Agent::ClaudeCode {
            return;
        }
        let files = tasks::load_task_files(dir).redacted(self.options.redact);
        if !files.items.is_empty() {
            self.task_files = Some(files);
        }
    }

    /// Which agent wrote the transcript (Claude Code or Codex).
    pub fn agent(&self) -> Agent {
        self.agent
    }

    /// Says which project the session belongs to: paths in it are then shown relative
    /// to it rather than to the session's current directory, which a `cd` moves (after
    /// `cd test`, a file of the project's `src/` was shown by its absolute path and one
    /// of `test/` by its bare name).
    pub fn in_project(&mut self, project: &Path) {
        self.project = Some(project.to_path_buf());
    }

    /// What paths are shown relative to: the project when the session's directory lies
    /// in it, else the session's directory.
    pub(crate) fn root(&self) -> Option<String> {
        let cwd = self.newest.fields()[1].clone();
        match (&self.project, &cwd) {
            (Some(p), Some(c)) if Path::new(c).starts_with(p) => {
                Some(p.to_string_lossy().into_owned())
            }
            _ => cwd,
        }
    }

    /// The session id of the newest main-chain record that has one.
    pub fn session_id(&self) -> Option<String> {
        self.sub_agent
            .clone()
            .or_else(|| self.newest.session_id.clone())
    }

    /// Lines that were not valid JSON records.
    pub fn bad_lines(&self) -> usize {
        self.bad_lines
    }

    /// How many bytes were read from the end of the file, and the file's size.
    pub fn bytes_read(&self) -> (u64, u64) {
        (self.bytes_read, self.size)
    }

    /// The extraction of docs/design.md §3.
    pub fn extraction(&self) -> Extraction {
        extract::extract(self)
    }

    /// The conversation text given to a summariser: the most recent `max_chars`
    /// characters of the segment, cut at record boundaries (docs/design.md §5.5).
    pub fn conversation_text(&self, max_chars: usize) -> String {
        conversation::conversation_text(self, max_chars)
    }

    /// The user's requests in the segment, oldest first. A queued prompt that Claude
    /// Code later sent as a prompt of its own is listed once.
    pub fn segment_prompts(&self) -> Vec<String> {
        let all: Vec<(bool, &str)> = self
            .prompts()
            .iter()
            .filter(|(i, _)| *i >= self.segment_start)
            .map(|(i, p)| {
                (
                    matches!(self.records[*i].entry, Entry::Queued(_)),
                    p.as_str(),
                )
            })
            .collect();
        all.iter()
            .enumerate()
            .filter(|(i, (queued, p))| {
                !*queued || !all[i + 1..].iter().any(|(q, later)| !q && later == p)
            })
            .map(|(_, (_, p))| (*p).to_string())
            .collect()
    }

    /// The records that are prompts the user typed, with their text, oldest first (an
    /// index into the records read). Extraction and both summaries read them, so they
    /// are worked out once.
    pub(crate) fn prompts(&self) -> &[(usize, String)] {
        self.prompts.get_or_init(|| {
            self.records
                .iter()
                .enumerate()
                .filter_map(|(i, r)| prompt::prompt_text(r).map(|p| (i, p)))
                .collect()
        })
    }

    /// Claude Code's summary of the conversation before the segment (the record it
    /// starts with after a compaction), when the segment has one.
    pub fn compaction_summary(&self) -> Option<&str> {
        self.segment()
            .iter()
            .take(20)
            .filter(|r| !r.meta.sidechain)
            .find_map(|r| match &r.entry {
                Entry::User(u) if u.compact_summary || u.text.starts_with(prompt::CONTINUATION) => {
                    Some(u.text.as_str())
                }
                _ => None,
            })
    }

    /// The assistant's text blocks in the segment, oldest first.
    pub fn segment_assistant_texts(&self) -> Vec<&str> {
        self.segment()
            .iter()
            .filter(|r| !r.meta.sidechain)
            .filter_map(|r| match &r.entry {
                Entry::Assistant(a) if !a.synthetic => Some(a.texts.iter().map(String::as_str)),
                _ => None,
            })
            .flatten()
            .collect()
    }

    /// The checkpoint's task list and the index of the first record after it.
    fn checkpoint_state(&self) -> Option<(Option<&TodoList>, usize)> {
        self.checkpoint
            .as_ref()
            .map(|c| (c.todos.as_ref(), c.first_record_after))
    }

    fn segment(&self) -> &[Record] {
        &self.records[self.segment_start..]
    }
}

/// What [`Transcript::read_lines`] has gathered so far, reading back from the end.
struct Gathered {
    /// What is still looked for.
    scan: Scan,
    /// The records kept, newest first.
    reversed: Vec<Record>,
    bad_lines: usize,
    /// How many of `reversed` were read before the last compaction boundary was.
    boundary_at: Option<usize>,
    /// The task list of the checkpoint passed, and how many of `reversed` were read
    /// before it was.
    checkpoint: Option<(Option<TodoList>, usize)>,
    budget_spent: bool,
    cost: skim::Cost,
    newest: NewestMeta,
    /// Records parsed, including those not kept.
    records_read: usize,
}

impl Gathered {
    fn new(task_files: bool) -> Gathered {
        Gathered {
            scan: Scan::new(task_files),
            reversed: Vec::new(),
            bad_lines: 0,
            boundary_at: None,
            checkpoint: None,
            budget_spent: false,
            cost: skim::Cost::default(),
            newest: NewestMeta::default(),
            records_read: 0,
        }
    }

    /// Whether the segment and everything that outlives its compaction were found.
    fn complete(&self) -> bool {
        self.boundary_at.is_some() && !self.scan.needs_more()
    }

    /// Whether the reader, `unread` bytes from the start, has passed a checkpoint (the
    /// latest one of those passed): everything after it has been read, and no task list
    /// was written there, so the checkpoint's list is still current.
    fn pass_checkpoint(&mut self, checkpoints: &[TaskCheckpoint], unread: u64, size: u64) -> bool {
        let Some(c) = checkpoints
            .iter()
            .filter(|c| c.bytes >= unread && c.bytes <= size)
            .max_by_key(|c| c.bytes)
        else {
            return false;
        };
        self.scan.tasks = TaskScan::Done;
        self.checkpoint = Some((c.todos.clone(), self.reversed.len()));
        true
    }

    /// Whether `line` is passed over unparsed: past the segment only the last request
    /// and the task list are looked for.
    fn skips(&self, dialect: &Dialect, line: &[u8]) -> bool {
        self.boundary_at.is_some()
            && self.scan.prompt_found
            && !((self.scan.tasks != TaskScan::Done && dialect.mentions_tasks(line))
                || (!self.scan.request_found && dialect.may_be_request(line)))
    }

    /// Takes in the next record back: notes the compaction boundary, what it tells of
    /// what is still looked for and of the session, and keeps it if extraction reads it.
    fn take(&mut self, mut record: Record, agent: Agent) {
        if self.boundary_at.is_none()
            && matches!(record.entry, Entry::CompactBoundary)
            && !record.meta.sidechain
        {
            if agent == Agent::Codex
                && !self
                    .reversed
                    .iter()
                    .any(|r: &Record| codex::goes_on(r) || is_tool_record(r))
            {
                // Codex writes `compacted` before PostCompact and SessionStart run:
                // with nothing of the conversation after it, it is the compaction
                // under way, and the segment is the one it closes.
                record.entry = Entry::Other;
            } else {
                self.boundary_at = Some(self.reversed.len());
            }
        }
        self.scan.observe(&record);
        self.newest.observe(&record.meta);
        self.records_read += 1;
        // Records of no kind extraction reads (progress, file snapshots, hook and
        // system notes: half of a long session) count, give their session fields,
        // and are not kept.
        if !matches!(record.entry, Entry::Other) {
            // Kept for the extraction: only what it reads of a record (a segment
            // can hold millions of them).
            let dated = record.is_dated();
            record.meta.slim(dated);
            self.reversed.push(record);
        }
    }

    /// The transcript read, its records in file order.
    fn into_transcript(
        mut self,
        agent: Agent,
        bytes_read: u64,
        size: u64,
        task_files: Option<tasks::TaskFiles>,
        options: ReadOptions,
    ) -> Transcript {
        let segment_start = self.boundary_at.map_or(0, |b| self.reversed.len() - b);
        // Records read after the checkpoint was passed lie before it in the file.
        let checkpoint = self.checkpoint.map(|(todos, after)| Checkpoint {
            todos,
            first_record_after: self.reversed.len() - after,
        });
        self.reversed.reverse();
        match agent {
            Agent::Codex => codex::settle_running(&mut self.reversed),
            Agent::ClaudeCode => background::settle(&mut self.reversed),
        }
        Transcript {
            agent,
            records: self.reversed,
            segment_start,
            bad_lines: self.bad_lines,
            bytes_read,
            size,
            task_files,
            checkpoint,
            options,
            budget_spent: self.budget_spent,
            json_bytes: self.cost.json_bytes,
            records_read: self.records_read,
            newest: self.newest,
            prompts: OnceLock::new(),
            sub_agent: None,
            project: None,
            codex_title: None,
        }
    }
}

/// A task list known at a point of the transcript, and where that point is among the
/// records read.
#[derive(Debug)]
struct Checkpoint {
    todos: Option<TodoList>,
    /// Index of the first record after the checkpoint.
    first_record_after: usize,
}

/// Which agent wrote the transcript at `path`, told from its first bytes (docs/design.md
/// §3.13); `None` when it cannot be read as a regular file.
pub fn agent_of(path: &Path) -> Option<Agent> {
    let (file, len) = crate::fsutil::open_regular(path, true, None).ok()?;
    Dialect::agent_of_file(&file, len).ok()
}

/// Whether the conversation went on after a memory was taken: between byte offsets
/// `from` and `to` of the transcript, a model reply, a real user prompt or a compaction
/// boundary stamped at or after `taken` plus one second (memory times have whole
/// seconds).
///
/// The time stamp is what tells: Claude Code writes the transcript behind its agent
/// loop, so records from before the memory (tool results, the next tool call, even the
/// previous compaction's boundary) can land in the file after it was read; they keep
/// their earlier time stamps.
pub fn conversation_after(
    path: &Path,
    from: u64,
    to: u64,
    taken: chrono::DateTime<chrono::FixedOffset>,
) -> Result<bool, Error> {
    let io_err = |source| Error::Transcript {
        path: path.to_path_buf(),
        source,
    };
    let after = taken + chrono::Duration::seconds(1);
    let (file, len) = crate::fsutil::open_regular(path, true, None).map_err(io_err)?;
    let agent = Dialect::agent_of_file(&file, len).map_err(io_err)?;
    let mut lines = ReverseLines::new(file, to.min(len));
    while lines.unread() > from {
        let Some((offset, line)) = lines.next_line().map_err(io_err)? else {
            break;
        };
        if offset < from {
            break;
        }
        let parsed = match agent {
            Agent::ClaudeCode => record::parse_line(line),
            Agent::Codex => codex::parse(
                line,
                &record::LineOptions::default(),
                &mut skim::Cost::default(),
            ),
        };
        let Ok(r) = parsed else {
            continue;
        };
        let goes_on = match (&r.entry, agent) {
            (_, Agent::Codex) => codex::goes_on(&r),
            (Entry::CompactBoundary, _) => true,
            (Entry::Assistant(a), _) => !r.meta.sidechain && !a.synthetic,
            (Entry::User(_) | Entry::Queued(_), _) => prompt::prompt_text(&r).is_some(),
            (Entry::Title { .. } | Entry::Other, _) => false,
        };
        let stamped_after = r
            .meta
            .timestamp()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .is_some_and(|t| t >= after);
        if goes_on && stamped_after {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A line the reader thread parsed: the tool-result records that make most of a long
/// segment's bytes.
pub(crate) struct PreParsed {
    record: Record,
    json_bytes: u64,
}

impl PreParsed {
    /// The record of `line` when it holds a tool result, read as this thread would read
    /// it. The session fields are always read (this thread reads them only until the
    /// newest are known, and later ones change nothing), and a line that turns out to
    /// be of another kind, or broken, is left to this thread, whose options decide how
    /// far such a line is walked.
    fn of(line: &[u8], options: &record::LineOptions, agent: Agent) -> Option<PreParsed> {
        static TOOL_RESULT: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new(br#""tool_use_id""#));
        let mut cost = skim::Cost::default();
        let record = match agent {
            Agent::ClaudeCode => {
                TOOL_RESULT.find(line)?;
                record::parse(line, options, &mut cost).ok()?
            }
            Agent::Codex if codex::holds_output(line) => {
                codex::parse(line, options, &mut cost).ok()?
            }
            Agent::Codex => return None,
        };
        matches!(record.entry, Entry::User(_)).then_some(PreParsed {
            record,
            json_bytes: cost.json_bytes,
        })
    }
}

impl From<std::convert::Infallible> for PreParsed {
    fn from(never: std::convert::Infallible) -> PreParsed {
        match never {}
    }
}

/// How a transcript's lines are read: which agent wrote them, and for a Codex rollout
/// the session fields of its first line.
#[derive(Debug, Clone)]
struct Dialect {
    agent: Agent,
    session: Option<record::Meta>,
}

impl Dialect {
    /// The dialect of the first bytes of a file (see [`codex::agent_of`]).
    fn of_start(start: &[u8]) -> Dialect {
        let agent = codex::agent_of(&start[..start.len().min(codex::PROBE_BYTES)]);
        let session = match agent {
            Agent::Codex => codex::session_meta(&start[..start.len().min(codex::MAX_META_LINE)]),
            Agent::ClaudeCode => None,
        };
        Dialect { agent, session }
    }

    /// The dialect of the first `size` bytes of `file`: a few kilobytes of its start are
    /// read, and a rollout's first line whole (up to [`codex::MAX_META_LINE`]).
    fn of_file(file: &std::fs::File, size: u64) -> std::io::Result<Dialect> {
        let agent = Dialect::agent_of_file(file, size)?;
        if agent == Agent::ClaudeCode {
            return Ok(Dialect {
                agent,
                session: None,
            });
        }
        let start = read_start(file, size, codex::MAX_META_LINE)?;
        Ok(Dialect {
            agent,
            session: codex::session_meta(&start),
        })
    }

    /// Which agent wrote the first `size` bytes of `file`.
    fn agent_of_file(file: &std::fs::File, size: u64) -> std::io::Result<Agent> {
        Ok(codex::agent_of(&read_start(
            file,
            size,
            codex::PROBE_BYTES,
        )?))
    }

    fn parse(
        &self,
        line: &[u8],
        options: &record::LineOptions,
        cost: &mut skim::Cost,
    ) -> Result<Record, record::BadLine> {
        match self.agent {
            Agent::ClaudeCode => record::parse(line, options, cost),
            Agent::Codex => codex::parse(line, options, cost),
        }
    }

    fn may_be_request(&self, line: &[u8]) -> bool {
        match self.agent {
            Agent::ClaudeCode => may_be_request(line),
            Agent::Codex => codex::may_be_request(line),
        }
    }

    fn mentions_tasks(&self, line: &[u8]) -> bool {
        match self.agent {
            Agent::ClaudeCode => mentions_tasks(line),
            Agent::Codex => codex::mentions_tasks(line),
        }
    }
}

/// The first `max` bytes of `file` (fewer when its first `size` bytes are fewer).
fn read_start(file: &std::fs::File, size: u64, max: usize) -> std::io::Result<Vec<u8>> {
    use reverse::ReadAt as _;
    let n = size.min(max as u64) as usize;
    let mut buf = vec![0; n];
    file.read_exact_at(&mut buf, 0)?;
    Ok(buf)
}

/// A tool call or a tool's output: the conversation went on after a boundary.
fn is_tool_record(r: &Record) -> bool {
    match &r.entry {
        Entry::User(u) => !u.tool_results.is_empty(),
        Entry::Assistant(a) => !a.tool_calls.is_empty(),
        _ => false,
    }
}

/// Tracks, while reading backwards, whether everything that outlives a compaction
/// has been found.
struct Scan {
    prompt_found: bool,
    /// A request that is not a mere continuation ("continue", "thanks") was found: the
    /// one the thread is about.
    request_found: bool,
    tasks: TaskScan,
    /// TaskCreate calls whose result said they created task #1: reading further back
    /// than the call itself cannot change the current task list.
    first_task_calls: Vec<record::Key>,
    /// Tool calls whose result was an error (seen before the call, reading backwards):
    /// a rejected TodoWrite is no task list.
    failed_calls: record::KeySet,
}

#[derive(PartialEq)]
enum TaskScan {
    /// No task-list write seen yet.
    Open,
    /// Task events seen; their replay needs a starting point further back.
    Replaying,
    Done,
}

impl Scan {
    fn new(task_files: bool) -> Scan {
        Scan {
            prompt_found: false,
            request_found: false,
            tasks: if task_files {
                TaskScan::Done
            } else {
                TaskScan::Open
            },
            first_task_calls: Vec::new(),
            failed_calls: record::KeySet::default(),
        }
    }

    fn needs_more(&self) -> bool {
        !self.request_found || self.tasks != TaskScan::Done
    }

    fn observe(&mut self, record: &Record) {
        if record.meta.sidechain {
            return;
        }
        if !self.request_found
            && let Some(text) = prompt::prompt_text(record)
        {
            self.prompt_found = true;
            self.request_found = !prompt::is_continuation(&text);
        }
        if self.tasks == TaskScan::Done {
            return;
        }
        match &record.entry {
            Entry::Assistant(a) => {
                for call in a.tool_calls.iter().rev() {
                    match call.detail {
                        ToolDetail::TodoWrite(_)
                            if self.tasks == TaskScan::Open
                                && !self.failed_calls.contains(&call.id) =>
                        {
                            self.tasks = TaskScan::Done;
                        }
                        ToolDetail::TaskCreate(_) => {
                            if self.first_task_calls.contains(&call.id) {
                                self.tasks = TaskScan::Done;
                            } else if self.tasks == TaskScan::Open {
                                self.tasks = TaskScan::Replaying;
                            }
                        }
                        ToolDetail::TaskUpdate(_) if self.tasks == TaskScan::Open => {
                            self.tasks = TaskScan::Replaying;
                        }
                        _ => {}
                    }
                }
            }
            Entry::User(u) => {
                self.failed_calls.extend(
                    u.tool_results
                        .iter()
                        .filter(|r| r.is_error || u.tool_use_failed)
                        .map(|r| r.tool_use_id),
                );
                if u.task_snapshot().is_some() {
                    self.tasks = TaskScan::Done;
                } else if u.created_task_id() == Some("1") {
                    self.first_task_calls
                        .extend(u.tool_results.iter().map(|r| r.tool_use_id));
                    self.tasks = TaskScan::Replaying;
                } else if u.created_task_id().is_some() && self.tasks == TaskScan::Open {
                    self.tasks = TaskScan::Replaying;
                }
            }
            _ => {}
        }
    }
}

/// Whether a raw line can be a request: a user record that carries no tool result, or a
/// queued prompt.
fn may_be_request(line: &[u8]) -> bool {
    static NEEDLES: OnceLock<AhoCorasick> = OnceLock::new();
    let needles = NEEDLES.get_or_init(|| {
        automaton(&[
            r#""type":"user""#,
            r#""type": "user""#,
            r#""enqueue""#,
            r#""tool_use_id""#,
        ])
    });
    let (mut user, mut result) = (false, false);
    for m in needles.find_overlapping_iter(line) {
        match m.pattern().as_usize() {
            0 | 1 => user = true,
            2 => return true,
            _ => result = true,
        }
    }
    user && !result
}

/// Whether a raw line can matter to the task list; past the segment, other lines are
/// skipped without being parsed.
fn mentions_tasks(line: &[u8]) -> bool {
    static NEEDLES: OnceLock<AhoCorasick> = OnceLock::new();
    NEEDLES
        .get_or_init(|| {
            automaton(&[
                "TodoWrite",
                "TaskCreate",
                "TaskUpdate",
                "Task #",
                r#""tasks""#,
                "updatedFields",
                // Error results: a task write they answer did not happen.
                r#""is_error":true"#,
                r#""is_error": true"#,
            ])
        })
        .is_match(line)
}

/// One automaton for all the needles of a test, so a line is searched once.
fn automaton(needles: &[&str]) -> AhoCorasick {
    // The needles are constants of this module and its children, and their tests build
    // every automaton.
    AhoCorasick::new(needles).unwrap_or_else(|e| panic!("line needles: {e}"))
}

#[cfg(test)]
pub(crate) mod tests;
