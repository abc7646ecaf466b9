//! The memory file (docs/design.md §4): YAML front matter for listing, then a Markdown
//! body.
//!
//! Every value from outside (prompts, replies, plans, Claude Code's summary, but also
//! ids, time stamps, tool names, versions, paths, the trigger) is written through
//! [`crate::untrusted`]: inside a fenced block, or as one line after a label of ours, so
//! nothing in a transcript or a hook's input can forge a heading or end a section early.
//! Sections are found by our headings outside fenced blocks, the last of each kind
//! ([`sections`]).

use std::borrow::Cow;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::agent::Agent;
use crate::lang::Lang;
use crate::summary::Summary;
use crate::summary::labels::{Labels, Section, task_list};
use crate::summary::session::Listed;
use crate::transcript::{Extraction, Files, Reply, TodoList};
use crate::untrusted::{self, block, code, line};

pub use crate::front_matter::set_front_matter_field;
pub(crate) use crate::front_matter::{body_start, front_matter_lines};

/// Version of the file format written in `memory_stalker:`.
pub const FORMAT_VERSION: u32 = 1;

/// Most tool calls listed under the reply; the rest are counted.
const MAX_LISTED_CALLS: usize = 40;
/// Longest `todos` line written in a front matter, in bytes: the front matter is read
/// whole (up to 256 KiB) to list a memory.
const MAX_TODOS_JSON: usize = 64 * 1024;
/// Longest `/compact` instructions kept, in characters.
const CUSTOM_INSTRUCTIONS_CHARS: usize = 4_000;
/// Longest Claude Code compaction summary kept, in characters.
pub const COMPACTION_SUMMARY_CHARS: usize = 64_000;

/// The front matter: everything `list-memories` needs without reading the body.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrontMatter {
    /// `memory_stalker:` format version (0 for files without front matter).
    pub format: u32,
    /// The session's id.
    pub session_id: String,
    /// RFC 3339 local time with offset.
    pub created: String,
    /// What started the compaction.
    pub trigger: Trigger,
    /// Which agent the session ran in: `agent:` in the file, written only for Codex
    /// (absent, as in every memory before Codex was supported, means Claude Code).
    pub agent: Agent,
    /// The project directory.
    pub project: String,
    /// The transcript the memory was taken from.
    pub transcript: String,
    /// Tasks in the task list.
    pub task_count: usize,
    /// Of those, not completed.
    pub tasks_open: usize,
    /// One line, at most 120 characters.
    pub summary: String,
    /// Who wrote the summary: `offline`, or `backend:model`.
    pub summary_source: String,
    /// Claude Code's `prompt_id` of the compaction, to match the PostCompact hook.
    pub prompt_id: Option<String>,
    /// The language of the headings.
    pub lang: Lang,
    /// Size of the transcript when this memory was taken from it.
    pub transcript_bytes: Option<u64>,
    /// The task list at that size (`Some(None)`: none), so a later reading of the same
    /// transcript can stop there instead of searching the whole file for one.
    pub todos: Option<Option<TodoList>>,
}

/// What started the compaction a memory was saved at, as `trigger:` records it.
// Read and written as a string, whatever its text, like the `String` it replaces.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Trigger {
    /// Claude Code compacted on its own, the context being full.
    Auto,
    /// `/compact`, or `save-memory --transcript` by hand.
    Manual,
    /// Written by SessionStart or PostCompact when they saved the memory PreCompact
    /// did not, without knowing the trigger; PostCompact corrects it when it does.
    Unknown,
    /// Written by `list-memories import` for a past session: one memory per
    /// compaction segment and one for the session's end (docs/design.md §7.11).
    Import,
    /// Any other text (from a newer Claude Code, or empty in a memory without the
    /// field): kept, written and shown as it was.
    Other(String),
}

impl Trigger {
    /// The text written in `trigger:` and shown in the body and listings.
    pub fn as_str(&self) -> &str {
        match self {
            Trigger::Auto => "auto",
            Trigger::Manual => "manual",
            Trigger::Unknown => "unknown",
            Trigger::Import => "import",
            Trigger::Other(s) => s,
        }
    }
}

/// Empty, as a memory without the field reads.
impl Default for Trigger {
    fn default() -> Trigger {
        Trigger::Other(String::new())
    }
}

impl From<&str> for Trigger {
    fn from(s: &str) -> Trigger {
        match s {
            "auto" => Trigger::Auto,
            "manual" => Trigger::Manual,
            "unknown" => Trigger::Unknown,
            "import" => Trigger::Import,
            other => Trigger::Other(other.to_string()),
        }
    }
}

impl From<String> for Trigger {
    fn from(s: String) -> Trigger {
        match Trigger::from(s.as_str()) {
            Trigger::Other(_) => Trigger::Other(s),
            known => known,
        }
    }
}

impl From<Trigger> for String {
    fn from(t: Trigger) -> String {
        match t {
            Trigger::Other(s) => s,
            known => known.as_str().to_string(),
        }
    }
}

impl std::fmt::Display for Trigger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FrontMatter {
    /// Renders the `---`-delimited block. String values are JSON strings, which are
    /// valid YAML and need no YAML library to read back.
    pub fn render(&self) -> String {
        let q = untrusted::json;
        let mut out = String::from("---\n");
        let _ = writeln!(out, "memory_stalker: {}", self.format.max(FORMAT_VERSION));
        let _ = writeln!(out, "session_id: {}", q(&self.session_id));
        let _ = writeln!(out, "created: {}", q(&self.created));
        let _ = writeln!(out, "trigger: {}", q(self.trigger.as_str()));
        if self.agent != Agent::ClaudeCode {
            let _ = writeln!(out, "agent: {}", q(self.agent.key()));
        }
        let _ = writeln!(out, "project: {}", q(&self.project));
        let _ = writeln!(out, "transcript: {}", q(&self.transcript));
        let _ = writeln!(out, "task_count: {}", self.task_count);
        let _ = writeln!(out, "tasks_open: {}", self.tasks_open);
        let _ = writeln!(out, "summary: {}", q(&self.summary));
        let _ = writeln!(out, "summary_source: {}", q(&self.summary_source));
        if let Some(p) = &self.prompt_id {
            let _ = writeln!(out, "prompt_id: {}", q(p));
        }
        let _ = writeln!(
            out,
            "lang: {}",
            q(if self.lang == Lang::Zh { "zh" } else { "en" })
        );
        if let Some(b) = self.transcript_bytes {
            let _ = writeln!(out, "transcript_bytes: {b}");
        }
        if let Some(t) = &self.todos {
            // JSON is valid YAML flow syntax, and keeps the list on one line. A list too
            // long for a front matter that listing reads whole is left out: later reads
            // find it in the transcript instead of at this checkpoint.
            let json = untrusted::json_of(t).unwrap_or_else(|| "null".into());
            if json.len() <= MAX_TODOS_JSON {
                let _ = writeln!(out, "todos: {json}");
            }
        }
        out.push_str("---\n");
        out
    }

    /// Parses the front matter at the start of `text`; returns it and where the body
    /// starts. `None` when the text has no front matter block.
    pub fn parse(text: &str) -> Option<(FrontMatter, usize)> {
        FrontMatter::parse_with_written_ns(text).map(|(fm, _, body)| (fm, body))
    }

    /// [`FrontMatter::parse`], with the [`WRITTEN_NS`] field too (`None` when absent
    /// or not a number: a memory saved before the field existed).
    pub fn parse_with_written_ns(text: &str) -> Option<(FrontMatter, Option<u64>, usize)> {
        FrontMatter::parse_fields(text, true)
    }

    /// [`FrontMatter::parse_with_written_ns`] with only what a listing shows: the task
    /// list (`todos`, the one field that costs a JSON parse of a whole list),
    /// `project`, `transcript`, `prompt_id` and `transcript_bytes` are left at their
    /// defaults.
    pub(crate) fn parse_for_listing(text: &str) -> Option<(FrontMatter, Option<u64>, usize)> {
        FrontMatter::parse_fields(text, false)
    }

    /// The front matter, with every field when `all`, else the listing's.
    fn parse_fields(text: &str, all: bool) -> Option<(FrontMatter, Option<u64>, usize)> {
        let mut written_ns = None;
        let mut fm = FrontMatter::default();
        let body = front_matter_lines(text, |line| {
            // `:` is ASCII: its byte never occurs inside another character. Keys are a
            // few bytes long: a plain scan finds it sooner than a vectorised search.
            let Some(colon) = line.bytes().position(|b| b == b':') else {
                return;
            };
            let (key, value) = (line[..colon].trim(), &line[colon + 1..]);
            match key {
                "todos" if all => fm.todos = serde_json::from_str(value.trim()).ok(),
                "memory_stalker" => fm.format = scalar(value).parse().unwrap_or(1),
                "session_id" => fm.session_id = scalar(value).into_owned(),
                "created" => fm.created = scalar(value).into_owned(),
                "trigger" => fm.trigger = Trigger::from(scalar(value).as_ref()),
                "agent" => fm.agent = Agent::parse(&scalar(value)).unwrap_or_default(),
                "project" if all => fm.project = scalar(value).into_owned(),
                "transcript" if all => fm.transcript = scalar(value).into_owned(),
                "task_count" => fm.task_count = scalar(value).parse().unwrap_or(0),
                "tasks_open" => fm.tasks_open = scalar(value).parse().unwrap_or(0),
                "summary" => fm.summary = scalar(value).into_owned(),
                "summary_source" => fm.summary_source = scalar(value).into_owned(),
                "prompt_id" if all => {
                    fm.prompt_id = Some(scalar(value).into_owned()).filter(|v| !v.is_empty());
                }
                "lang" => fm.lang = Lang::parse(&scalar(value)).unwrap_or_default(),
                "transcript_bytes" if all => fm.transcript_bytes = scalar(value).parse().ok(),
                WRITTEN_NS => written_ns = scalar(value).parse().ok(),
                _ => {}
            }
        })?;
        Some((fm, written_ns, body))
    }
}

/// The front matter field that orders memories saved in the same second: when the file
/// was written, in nanoseconds since the Unix epoch, strictly greater than that of any
/// memory already in the directory with the same second in its name. Written by
/// [`crate::store::MemoryStore::save_new`], after `created`, which it does not replace
/// (`created` keeps its documented second precision). Not a [`FrontMatter`] field, so
/// that code building a front matter need not know about it.
pub const WRITTEN_NS: &str = "created_ns";

/// `text` with its front matter's [`WRITTEN_NS`] set to `ns`: the line replaced if
/// there is one, else inserted after `created:` (or before the closing `---`). A text
/// without front matter is returned as it is.
pub fn set_written_ns(text: &str, ns: u64) -> String {
    let Some((_, body_start)) = FrontMatter::parse(text) else {
        return text.to_string();
    };
    let head = &text[..body_start];
    if !head.lines().any(|l| l.starts_with("created:")) {
        return set_front_matter_field(text, WRITTEN_NS, &ns.to_string());
    }
    let prefix = format!("{WRITTEN_NS}:");
    let mut out = String::with_capacity(text.len() + 32);
    for line in head.split_inclusive('\n') {
        if line.starts_with(&prefix) {
            continue;
        }
        out.push_str(line);
        if line.starts_with("created:") {
            let _ = writeln!(out, "{WRITTEN_NS}: {ns}");
        }
    }
    out.push_str(&text[body_start..]);
    out
}

/// A YAML scalar as we write it (a JSON string or a bare word), comments removed;
/// borrowed from `raw` unless a JSON escape had to be undone.
fn scalar(raw: &str) -> Cow<'_, str> {
    let v = raw.trim();
    // A JSON string with nothing to unescape (no `\`, no control character, no quote
    // but the closing one) is its inside: what the JSON parser would return, without
    // setting one up for each field of each memory listed.
    if let Some(inner) = v.strip_prefix('"').and_then(|r| r.strip_suffix('"'))
        && !inner.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20)
    {
        return Cow::Borrowed(inner);
    }
    if v.starts_with('"') {
        let mut de = serde_json::Deserializer::from_str(v).into_iter::<String>();
        if let Some(Ok(s)) = de.next() {
            return Cow::Owned(s);
        }
    }
    if let Some(inner) = v.strip_prefix('\'').and_then(|s| s.split_once('\'')) {
        return Cow::Borrowed(inner.0);
    }
    // What comes before ` #`, found bytewise (`split(" #")` sets up a substring
    // searcher for each value).
    let comment = v.as_bytes().windows(2).position(|w| w == b" #");
    Cow::Borrowed(comment.map_or(v, |at| &v[..at]).trim())
}

/// Everything a memory file is rendered from.
pub struct MemoryDoc<'a> {
    /// The front matter.
    pub front: FrontMatter,
    /// What was extracted from the transcript.
    pub extraction: &'a Extraction,
    /// The session's lasting facts, carried over from its earlier memories.
    pub facts: &'a crate::summary::session::SessionFacts,
    /// The summary for the AI summary section.
    pub summary: &'a Summary,
    /// Shown under the AI summary heading (e.g. that a model summary is on its way).
    pub summary_note: Option<&'a str>,
    /// The `/compact` arguments.
    pub custom_instructions: Option<&'a str>,
    /// Claude Code's own summary, once PostCompact has it.
    pub compaction_summary: Option<&'a str>,
}

impl MemoryDoc<'_> {
    /// Renders the whole file.
    pub fn render(&self) -> String {
        let lang = self.front.lang;
        let l = Labels::of(lang);
        let ex = self.extraction;
        let mut out = self.front.render();
        out.push('\n');
        let _ = writeln!(
            out,
            "# {} — {}\n",
            l.title,
            display_time(&self.front.created)
        );
        self.render_metadata(&mut out, l);
        render_last_interaction(&mut out, ex, l);

        let _ = writeln!(out, "## {}\n", l.tasks);
        out.push_str(&task_list(ex.todos.as_ref(), lang));
        out.push('\n');

        if let Some(plan) = &ex.plan {
            let _ = writeln!(out, "## {}\n", l.plan);
            out.push_str(&block("markdown", &plan.text));
            out.push('\n');
        }

        render_files(&mut out, &ex.files, l);
        render_last_action(&mut out, ex, l, lang);
        out.push_str(&self.facts.render(lang));
        out.push_str("---\n\n");

        out.push_str(&render_ai_summary(
            self.summary,
            &self.front.summary_source,
            self.summary_note,
            self.facts.listed(),
            lang,
        ));
        if let Some(cs) = self.compaction_summary {
            out.push('\n');
            out.push_str(&render_compaction_summary(cs, lang, self.front.agent));
        }
        out
    }

    /// The metadata section: who, where, when, why the compaction, and with which agent.
    fn render_metadata(&self, out: &mut String, l: &Labels) {
        let ex = self.extraction;
        let _ = writeln!(out, "## {}\n", l.metadata);
        let _ = writeln!(out, "- {}: {}", l.session_id, code(&self.front.session_id));
        let _ = writeln!(out, "- {}: {}", l.project, code(&self.front.project));
        let _ = writeln!(out, "- {}: {}", l.time, display_time(&self.front.created));
        let _ = writeln!(
            out,
            "- {}: {}",
            l.trigger,
            trigger_text(&self.front.trigger)
        );
        if let Some(ci) = self.custom_instructions.filter(|c| !c.trim().is_empty()) {
            let ci = clip(ci.trim(), CUSTOM_INSTRUCTIONS_CHARS);
            let ci = ci.as_ref();
            if untrusted::clean(ci).contains('\n') {
                let _ = writeln!(out, "- {}:\n\n{}", l.custom_instructions, block("text", ci));
            } else {
                let _ = writeln!(out, "- {}: {}", l.custom_instructions, line(ci, 2_000));
            }
        }
        // The version line names the agent whose version it is.
        let agent_label = match self.front.agent {
            Agent::ClaudeCode => l.claude_code,
            other => other.name(),
        };
        if let Some(v) = &ex.version {
            let v = line(v, 40);
            let _ = match &ex.git_branch {
                Some(b) => writeln!(out, "- {}: {v} · {} {}", agent_label, l.branch, code(b)),
                None => writeln!(out, "- {}: {v}", agent_label),
            };
        }
        if !self.front.transcript.is_empty() {
            let _ = writeln!(out, "- {}: {}", l.transcript, code(&self.front.transcript));
        }
        out.push('\n');
    }
}

/// The last interaction section: the user's last prompt, the request it continues, and
/// the assistant's reply to it.
fn render_last_interaction(out: &mut String, ex: &Extraction, l: &Labels) {
    let _ = writeln!(out, "## {}\n", l.last_interaction);
    let _ = writeln!(out, "### {}\n", l.user_input);
    match &ex.last_prompt {
        Some(p) => {
            out.push_str(&block("text", &p.text));
            if let Some(ts) = &p.timestamp {
                let _ = writeln!(out, "\n_{}_", line(ts, 40));
            }
        }
        None => {
            let _ = writeln!(out, "{}", l.no_prompt);
        }
    }
    if let Some(r) = &ex.request {
        let _ = writeln!(out, "\n### {}\n", l.continues);
        out.push_str(&block("text", &r.text));
        if let Some(ts) = &r.timestamp {
            let _ = writeln!(out, "\n_{}_", line(ts, 40));
        }
    }
    let _ = writeln!(out, "\n### {}\n", l.assistant_reply);
    match &ex.reply {
        Some(r) => {
            if !r.text.is_empty() {
                out.push_str(&block("markdown", &r.text));
            }
            if !r.tool_calls.is_empty() {
                render_tool_calls(out, r, l);
            }
        }
        None => {
            let _ = writeln!(out, "{}", l.no_reply);
        }
    }
    out.push('\n');
}

/// The reply's tool calls, the last [`MAX_LISTED_CALLS`] listed with how each ended and
/// the earlier ones counted.
fn render_tool_calls(out: &mut String, r: &Reply, l: &Labels) {
    let _ = writeln!(
        out,
        "{}**{}** ({}):\n",
        if r.text.is_empty() { "" } else { "\n" },
        l.tool_calls,
        r.calls_total()
    );
    let skip = r.tool_calls.len().saturating_sub(MAX_LISTED_CALLS);
    let unlisted = skip + r.calls_not_listed;
    if unlisted > 0 {
        let _ = writeln!(out, "- … {unlisted} {}", l.earlier_calls);
    }
    for c in &r.tool_calls[skip..] {
        let outcome = if c.rejected {
            format!(" — {}", l.rejected)
        } else if c.failed {
            format!(" — {}", l.failed)
        } else {
            String::new()
        };
        let name = tool_name(&c.name);
        if c.summary.is_empty() {
            let _ = writeln!(out, "- {name}{outcome}");
        } else {
            let _ = writeln!(out, "- {name} {}{outcome}", code(&c.summary));
        }
    }
}

/// The files section: the files modified, then those only read.
fn render_files(out: &mut String, files: &Files, l: &Labels) {
    let _ = writeln!(out, "## {}\n", l.files);
    let (modified, read) = (&files.modified, &files.read);
    let paths = |out: &mut String, label: &str, list: &[String], none: &str| {
        let _ = writeln!(out, "### {label}\n");
        if list.is_empty() {
            let _ = writeln!(out, "{none}");
        }
        for f in list {
            let _ = writeln!(out, "- {}", code(f));
        }
    };
    paths(out, l.modified, modified, l.none);
    out.push('\n');
    // Read files exclude modified ones (docs/design.md §3.8): with modified files, a
    // bare "none" would deny reading what was read and then edited.
    let read_none = if modified.is_empty() {
        l.none
    } else {
        l.read_only_modified
    };
    paths(out, l.read, read, read_none);
    if !read.is_empty() && !modified.is_empty() {
        let _ = writeln!(out, "\n{}", l.read_and_modified);
    }
    out.push('\n');
}

/// The last action section: the last tool call and how it ended, and that the user
/// stopped the last turn when they did.
fn render_last_action(out: &mut String, ex: &Extraction, l: &Labels, lang: Lang) {
    let _ = writeln!(out, "## {}\n", l.last_action);
    match &ex.last_action {
        Some(a) => {
            let outcome = match a.ok {
                _ if a.rejected => l.rejected,
                Some(true) => l.ok,
                Some(false) => l.failed,
                None => l.no_result,
            };
            let tool = tool_name(&a.tool);
            if a.summary.is_empty() {
                let _ = writeln!(out, "- {tool} — {outcome}");
            } else {
                let _ = writeln!(out, "- {tool} {} — {outcome}", code(&a.summary));
            }
        }
        None => {
            let _ = writeln!(out, "{}", l.none);
        }
    }
    if let Some(stop) = &ex.stopped {
        let _ = writeln!(out, "- {}", crate::summary::offline::stop_line(stop, lang));
    }
    out.push('\n');
}

/// The `## AI summary` section; `listed` says what the memory's Session so far lists,
/// which an offline summary points at (and says "(none found)" where it lists nothing).
pub fn render_ai_summary(
    s: &Summary,
    source: &str,
    note: Option<&str>,
    listed: Listed,
    lang: Lang,
) -> String {
    let l = Labels::of(lang);
    let item = |t: &str| line(t, 1_000);
    let mut out = format!("## {}\n\n", l.ai_summary);
    let _ = writeln!(out, "_{}: {}_\n", l.summary_by, code(source));
    if let Some(n) = note {
        let _ = writeln!(out, "> {}\n", line(n, 500));
    }
    let _ = writeln!(out, "### {}\n", l.task_summary);
    list(&mut out, &s.task_summary, l.none, |t| {
        format!("- {}", item(t))
    });
    let _ = writeln!(out, "### {}\n", l.code_changes);
    if s.code_changes.is_empty() && source == crate::summary::OFFLINE_SOURCE {
        let _ = writeln!(out, "{}\n", l.changes_in_files);
    } else if s.code_changes.is_empty() {
        let _ = writeln!(out, "{}\n", l.none);
    } else {
        let _ = writeln!(out, "{}\n|---|---|---|", l.table_header);
        for c in &s.code_changes {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                cell(&c.file),
                cell(&c.action),
                cell(&c.note)
            );
        }
        out.push('\n');
    }
    // An offline summary leaves the user's rules and the decisions to Session so far,
    // and points there only when it lists them.
    let offline = source == crate::summary::OFFLINE_SOURCE;
    let lasting_none = |there: bool| match (offline, there) {
        (true, true) => l.in_session_so_far,
        (true, false) => l.none_found,
        (false, _) => l.none,
    };
    let _ = writeln!(out, "### {}\n", l.key_decisions);
    list(
        &mut out,
        &s.key_decisions,
        lasting_none(listed.decisions),
        |d| {
            if d.reason.trim().is_empty() {
                format!("- **{}**: {}", l.decision, item(&d.decision))
            } else {
                format!(
                    "- **{}**: {}\n  - **{}**: {}",
                    l.decision,
                    item(&d.decision),
                    l.reason,
                    item(&d.reason)
                )
            }
        },
    );
    let _ = writeln!(out, "### {}\n", l.preferences);
    list(
        &mut out,
        &s.user_preferences,
        lasting_none(listed.instructions),
        |t| format!("- {}", item(t)),
    );
    let _ = writeln!(out, "### {}\n", l.follow_ups);
    list(&mut out, &s.follow_ups, l.none, |t| {
        format!("- [ ] {}", item(t))
    });
    // What the model says was tried and did not work: read back by `model_facts`, so it
    // reaches the next memory's Session so far, the restore and the index.
    let _ = writeln!(out, "### {}\n", l.failed_approaches);
    list(
        &mut out,
        &s.failed_approaches,
        lasting_none(listed.failed),
        |t| format!("- {}", item(t)),
    );
    out
}

fn list<T>(out: &mut String, items: &[T], none: &str, f: impl Fn(&T) -> String) {
    if items.is_empty() {
        let _ = writeln!(out, "{none}");
    }
    for i in items {
        let _ = writeln!(out, "{}", f(i));
    }
    out.push('\n');
}

/// The `## Claude Code compaction summary` section (`## Codex compaction summary` for a
/// Codex session).
pub fn render_compaction_summary(text: &str, lang: Lang, agent: Agent) -> String {
    let text = clip(text.trim(), COMPACTION_SUMMARY_CHARS);
    format!(
        "## {}\n\n{}",
        Labels::of(lang).compaction_heading(agent),
        block("markdown", &text)
    )
}

/// `text` cut to its head and tail around a marker when over `max` characters. Text from
/// a hook's input is redacted only with the memory, after this cut: a cut text is
/// redacted before it is cut, so no piece of a secret is left on either side of it.
fn clip(text: &str, max: usize) -> Cow<'_, str> {
    if text.chars().count() <= max {
        return Cow::Borrowed(text);
    }
    Cow::Owned(crate::redact::Clipped::new(text, max).render(max, true))
}

/// A tool's name as a memory shows it: one line (a transcript can name a tool anything).
fn tool_name(name: &str) -> String {
    line(name, 100)
}

/// The trigger as the metadata line shows it (the hook's input names it).
pub(crate) fn trigger_text(trigger: &Trigger) -> String {
    line(trigger.as_str(), 40)
}

/// A table cell: one line, pipes escaped.
fn cell(text: &str) -> String {
    untrusted::cell(text, 500)
}

/// `2026-01-29T17:30:00+08:00` shown as `2026-01-29 17:30:00 +08:00` (any other text as
/// one line).
pub fn display_time(rfc3339: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(rfc3339)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S %:z").to_string())
        .unwrap_or_else(|_| line(rfc3339, 40))
}

/// One `## ` section of a memory body, located by byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionSpan {
    /// Which of our sections this is.
    pub section: Section,
    /// The heading's text, without `## `.
    pub heading: String,
    /// From the heading line to just before the next section's heading.
    pub range: std::ops::Range<usize>,
}

/// The sections of a memory, by structure (docs/design.md §4.5).
///
/// A section starts at one of our `## ` headings (in either language) outside fenced
/// blocks and after the front matter. Our writer writes them once each, in the order of
/// [`Section::ALL`], and no value from outside can start a line in what it writes. A
/// memory written before that rule held can hold headings a transcript forged (a time
/// stamp or a tool name with line breaks), inside an earlier section than the real one
/// of their kind, and often out of order. So the sections are the chain of headings, in
/// the order of `Section::ALL`, that ends at the memory's last heading and is as long as
/// can be, taking the later heading wherever two would do: the real sections, which the
/// writer put after what it had written before. Every other `## ` line is text of the
/// section it is in. Edits (`replace_section`), `show --section`, the MCP `show_memory`
/// and the session's lasting facts all read sections here.
pub fn sections(text: &str) -> Vec<SectionSpan> {
    let body_from = body_start(text).unwrap_or(0);
    let mut headings: Vec<(Section, usize, &str)> = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    let mut pos = body_from;
    for line in text[body_from..].split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let trimmed = line.trim_end_matches(['\n', '\r']);
        if let Some(f) = fence_marker(trimmed) {
            match fence {
                None => fence = Some(f),
                Some((c, n)) if f.0 == c && f.1 >= n && trimmed.trim().len() == f.1 => fence = None,
                _ => {}
            }
            continue;
        }
        if fence.is_some() {
            continue;
        }
        if let Some(h) = trimmed.strip_prefix("## ")
            && let Some(section) = Section::from_heading(h)
        {
            headings.push((section, start, h.trim()));
        }
    }
    let chain = ordered_chain(&headings.iter().map(|h| h.0.order()).collect::<Vec<_>>());
    let mut found: Vec<SectionSpan> = chain
        .into_iter()
        .map(|i| {
            let (section, start, heading) = headings[i];
            SectionSpan {
                section,
                heading: heading.to_string(),
                range: start..text.len(),
            }
        })
        .collect();
    // Each section runs to the next one's heading.
    for i in 1..found.len() {
        found[i - 1].range.end = found[i].range.start;
    }
    found
}

/// The indices of the longest chain of strictly increasing `ranks` that ends at the
/// last one, preferring later indices between chains of one length: for each index,
/// the longest chain ending there (its length and where it came from) is found from the
/// best chain ending at a lower rank so far, in one pass (there are few ranks).
fn ordered_chain(ranks: &[usize]) -> Vec<usize> {
    let Some(last) = ranks.len().checked_sub(1) else {
        return Vec::new();
    };
    let top = ranks.iter().max().map_or(0, |r| r + 1);
    // For each rank: the longest chain ending at that rank so far, and its last index
    // (the later one between two of one length).
    let mut best: Vec<Option<(usize, usize)>> = vec![None; top];
    let mut from: Vec<Option<usize>> = vec![None; ranks.len()];
    for (i, &rank) in ranks.iter().enumerate() {
        let prev = best[..rank].iter().flatten().max().copied();
        from[i] = prev.map(|(_, at)| at);
        let len = prev.map_or(1, |(len, _)| len + 1);
        if best[rank].is_none_or(|(l, _)| len >= l) {
            best[rank] = Some((len, i));
        }
    }
    let mut chain = vec![last];
    while let Some(prev) = from[chain[chain.len() - 1]] {
        chain.push(prev);
    }
    chain.reverse();
    chain
}

/// One section of a memory as `list-memories show --section` prints it: from its heading
/// to the next one, without the rule that ends the body before the AI summary.
pub fn section_text(text: &str, section: Section) -> Option<String> {
    let span = sections(text).into_iter().find(|s| s.section == section)?;
    let body = text[span.range].trim_end();
    Some(
        body.strip_suffix("---")
            .unwrap_or(body)
            .trim_end()
            .to_string()
            + "\n",
    )
}

/// `(char, length)` of a fence opening or closing line (up to 3 spaces of indent).
fn fence_marker(line: &str) -> Option<(char, usize)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let l = &line[indent..];
    let c = l.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = l.chars().take_while(|x| *x == c).count();
    (n >= 3).then_some((c, n))
}

/// Replaces (or appends) a section; `new` must start with its `## ` heading.
pub fn replace_section(text: &str, section: Section, new: &str) -> String {
    let spans = sections(text);
    let mut out = String::with_capacity(text.len() + new.len());
    match spans.iter().find(|s| s.section == section) {
        Some(span) => {
            out.push_str(&text[..span.range.start]);
            out.push_str(new);
            let rest = &text[span.range.end..];
            if !rest.is_empty() && !new.ends_with("\n\n") {
                out.push('\n');
            }
            out.push_str(rest);
        }
        None => {
            out.push_str(text.trim_end_matches('\n'));
            out.push_str("\n\n");
            out.push_str(new);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trigger_reads_back_as_written() {
        for text in ["auto", "manual", "unknown", "import", "", "Backfill"] {
            let fm = FrontMatter {
                trigger: text.into(),
                ..FrontMatter::default()
            };
            let (back, _) = FrontMatter::parse(&fm.render()).unwrap();
            assert_eq!(back.trigger.to_string(), text);
            assert_eq!(back.trigger, fm.trigger);
        }
        assert_eq!(Trigger::from("unknown"), Trigger::Unknown);
        assert_eq!(Trigger::from("import"), Trigger::Import);
        assert_eq!(FrontMatter::default().trigger.as_str(), "");
    }

    #[test]
    fn front_matter_round_trips_hostile_strings() {
        let fm = FrontMatter {
            format: 1,
            session_id: "abc".into(),
            created: "2026-01-29T17:30:00+08:00".into(),
            trigger: "manual".into(),
            agent: Agent::Codex,
            project: "/data/proj \"quoted\"\n---".into(),
            transcript: "/t.jsonl".into(),
            task_count: 5,
            tasks_open: 2,
            summary: "fix: a: b # not a comment".into(),
            summary_source: "offline".into(),
            prompt_id: Some("p-1".into()),
            lang: Lang::Zh,
            transcript_bytes: Some(12345),
            todos: Some(Some(TodoList {
                source: crate::transcript::TodoSource::Tasks,
                items: vec![crate::transcript::TodoItem {
                    content: "a: \"b\"\n---".into(),
                    status: "pending".into(),
                    active_form: None,
                }],
            })),
        };
        let text = fm.render() + "body";
        let (back, body) = FrontMatter::parse(&text).unwrap();
        assert_eq!(back, fm);
        assert_eq!(&text[body..], "body");
    }

    #[test]
    fn the_agent_is_written_only_for_codex() {
        let claude = FrontMatter::default().render();
        assert!(!claude.contains("agent:"), "{claude}");
        let codex = FrontMatter {
            agent: Agent::Codex,
            trigger: Trigger::Auto,
            ..FrontMatter::default()
        }
        .render();
        assert!(
            codex.contains("trigger: \"auto\"\nagent: \"codex\"\n"),
            "{codex}"
        );
        assert_eq!(FrontMatter::parse(&codex).unwrap().0.agent, Agent::Codex);
        assert_eq!(
            FrontMatter::parse(&claude).unwrap().0.agent,
            Agent::ClaudeCode
        );
    }

    #[test]
    fn front_matter_accepts_bare_yaml_scalars() {
        let (fm, _) = FrontMatter::parse(
            "---\nmemory_stalker: 1\nsession_id: abc-123  # comment\nsummary: 'single'\ntask_count: x\n---\n",
        )
        .unwrap();
        assert_eq!(fm.session_id, "abc-123");
        assert_eq!(fm.summary, "single");
        assert_eq!(fm.task_count, 0);
        assert!(FrontMatter::parse("# no front matter").is_none());
        assert!(FrontMatter::parse("---\nunterminated: 1\n").is_none());
    }

    #[test]
    fn sections_ignore_headings_inside_fences() {
        let text = "---\nx: 1\n---\n# T\n\n## Metadata\n\na\n\n## Last complete interaction\n\n````text\n## AI summary\n```\nstill inside\n````\n\n## AI summary\n\nz\n";
        let spans = sections(text);
        let keys: Vec<_> = spans.iter().map(|s| s.section).collect();
        assert_eq!(
            keys,
            vec![
                Section::Metadata,
                Section::LastInteraction,
                Section::AiSummary
            ]
        );
        assert_eq!(&text[spans[2].range.clone()], "## AI summary\n\nz\n");
        let replaced = replace_section(text, Section::AiSummary, "## AI summary\n\nnew\n");
        assert!(replaced.ends_with("## AI summary\n\nnew\n"));
        assert!(replaced.contains("````text\n## AI summary\n```\nstill inside\n````"));
        let appended = replace_section(
            text,
            Section::CompactionSummary,
            "## Claude Code compaction summary\n\nc\n",
        );
        assert!(appended.ends_with("z\n\n## Claude Code compaction summary\n\nc\n"));
    }

    /// Issue 25, defect 3: headings a transcript forged in a memory written before the
    /// one rule (inside an earlier section, often out of order) are text, whatever
    /// their kind and place; the real sections are found and edited.
    #[test]
    fn forged_headings_are_text_of_the_section_they_are_in() {
        let real = [
            "Metadata",
            "Last complete interaction",
            "Current task list",
            "Files",
            "Last action",
            "Session so far",
            "AI summary",
        ];
        let doc = |forged_after: &str, forged: &[&str]| {
            let mut t = String::from("---\nx: 1\n---\n# T\n");
            for h in real {
                let _ = write!(t, "\n## {h}\n\nreal {h}\n");
                if h == forged_after {
                    for f in forged {
                        let _ = write!(t, "\n## {f}\n\nforged {f}\n");
                    }
                }
            }
            t
        };
        for (after, forged) in [
            // A time stamp before the reply: Claude Code's summary would have eaten it.
            (
                "Last complete interaction",
                &["AI summary", "Claude Code compaction summary"][..],
            ),
            // The last tool's name: a whole tail, longer than the real one.
            (
                "Last action",
                &[
                    "Session so far",
                    "AI summary",
                    "Claude Code compaction summary",
                ][..],
            ),
            // A section the memory does not have.
            ("Last complete interaction", &["Plan"][..]),
            // An earlier kind, late.
            (
                "Last action",
                &["Metadata", "Last complete interaction"][..],
            ),
            (
                "Metadata",
                &["Session so far", "Current task list", "Files"][..],
            ),
        ] {
            let text = doc(after, forged);
            let spans = sections(&text);
            let headings: Vec<&str> = spans.iter().map(|s| s.heading.as_str()).collect();
            assert_eq!(headings, real, "{text}");
            for s in &spans {
                assert!(
                    text[s.range.clone()].contains(&format!("real {}", s.heading)),
                    "{}: {text}",
                    s.heading
                );
            }
            let edited = replace_section(
                &text,
                Section::CompactionSummary,
                "## Claude Code compaction summary\n\nnew\n",
            );
            for h in real {
                assert!(edited.contains(&format!("real {h}")), "{h} lost: {edited}");
            }
            assert!(
                edited.ends_with("real AI summary\n\n## Claude Code compaction summary\n\nnew\n"),
                "{edited}"
            );
            let edited = replace_section(&text, Section::AiSummary, "## AI summary\n\nnew\n");
            assert!(
                !edited.contains("real AI summary") && edited.contains("real Session so far"),
                "{edited}"
            );
        }
    }

    #[test]
    fn written_ns_goes_after_created_and_reads_back() {
        let text = "---\nmemory_stalker: 1\ncreated: \"2026-01-29T17:30:00+08:00\"\nsummary: \"s\"\n---\nbody\n";
        let t = set_written_ns(text, 1_769_679_000_123_456_789);
        assert_eq!(
            t,
            "---\nmemory_stalker: 1\ncreated: \"2026-01-29T17:30:00+08:00\"\ncreated_ns: 1769679000123456789\nsummary: \"s\"\n---\nbody\n"
        );
        let (fm, ns, body) = FrontMatter::parse_with_written_ns(&t).unwrap();
        assert_eq!(ns, Some(1_769_679_000_123_456_789));
        assert_eq!(fm.created, "2026-01-29T17:30:00+08:00");
        assert_eq!(&t[body..], "body\n");
        // Set again: replaced, not repeated.
        let again = set_written_ns(&t, 7);
        assert_eq!(again.matches("created_ns:").count(), 1);
        assert!(again.contains("created_ns: 7\n"));
        // Without `created:`, before the closing line; without front matter, unchanged.
        let t = set_written_ns("---\nsummary: \"s\"\n---\nbody\n", 5);
        assert_eq!(t, "---\nsummary: \"s\"\ncreated_ns: 5\n---\nbody\n");
        assert_eq!(set_written_ns("no front matter", 5), "no front matter");
        // Older memories have no such field.
        let (_, ns, _) = FrontMatter::parse_with_written_ns(text).unwrap();
        assert_eq!(ns, None);
    }

    #[test]
    fn set_field_replaces_or_inserts() {
        let text = "---\nmemory_stalker: 1\nsummary: \"old\"\n---\nbody\n";
        let t = set_front_matter_field(text, "summary", "\"new\"");
        assert_eq!(t, "---\nmemory_stalker: 1\nsummary: \"new\"\n---\nbody\n");
        let t = set_front_matter_field(text, "summary_source", "\"anthropic:x\"");
        assert!(t.contains("summary: \"old\"\nsummary_source: \"anthropic:x\"\n---\nbody"));
    }
}
