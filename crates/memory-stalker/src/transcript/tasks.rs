//! The current task list: the last TodoWrite, or the Task tools replayed, or Claude
//! Code's task files, whichever is newest (docs/design.md §3.6).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::record::{Entry, Record, ToolDetail, UserMsg};
use crate::untrusted::line;

/// Which mechanism the task list came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TodoSource {
    /// The `todos` input of the last `TodoWrite` call.
    TodoWrite,
    /// `TaskCreate`/`TaskUpdate` replayed, or `~/.claude/tasks/<session>/*.json`.
    #[serde(rename = "tasks")]
    Tasks,
    /// The `plan` of Codex's last `update_plan` call.
    #[serde(rename = "update_plan")]
    UpdatePlan,
}

/// The session's task list at the time of reading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodoList {
    /// Which mechanism it came from.
    pub source: TodoSource,
    /// The tasks, in the list's order.
    pub items: Vec<TodoItem>,
}

/// One task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodoItem {
    /// What the task is.
    pub content: String,
    /// Where it stands.
    pub status: TaskStatus,
    /// The "-ing" form Claude Code shows while the task is in progress.
    pub active_form: Option<String>,
}

/// A task's status. Written (front matter `todos:`, `inspect --json`) as the snake_case
/// names Claude Code uses: `pending`, `in_progress`, `completed`.
// Read and written as its text rather than with `rename_all`: `Other` is written as
// the text it was read from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum TaskStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
    /// Any other text, which only a memory's `todos:` can hold (extraction normalises
    /// a transcript's spellings to the three above): kept as written, so the memory
    /// saved from it writes it back unchanged, and counted as open, as it always was.
    Other(String),
}

impl TaskStatus {
    /// The name written in JSON.
    pub fn as_str(&self) -> &str {
        match self {
            TaskStatus::Pending => "pending",
            TaskStatus::InProgress => "in_progress",
            TaskStatus::Completed => "completed",
            TaskStatus::Other(s) => s,
        }
    }
}

/// Exact names only (what serde reads back): the lenient reading of a transcript's
/// spellings is [`status`]'s.
impl From<&str> for TaskStatus {
    fn from(s: &str) -> TaskStatus {
        match s {
            "pending" => TaskStatus::Pending,
            "in_progress" => TaskStatus::InProgress,
            "completed" => TaskStatus::Completed,
            other => TaskStatus::Other(other.to_string()),
        }
    }
}

impl From<String> for TaskStatus {
    fn from(s: String) -> TaskStatus {
        match TaskStatus::from(s.as_str()) {
            TaskStatus::Other(_) => TaskStatus::Other(s),
            known => known,
        }
    }
}

impl From<TaskStatus> for String {
    fn from(t: TaskStatus) -> String {
        match t {
            TaskStatus::Other(s) => s,
            known => known.as_str().to_string(),
        }
    }
}

impl std::fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a task line looks where it is shown: each reader of the list keeps its own look,
/// and only the marks differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskLine {
    /// The memory file and the summary prompt: `- [ ] **in progress**: task`, with the
    /// label in the memory's language.
    Memory {
        /// The "in progress" label in the memory's language.
        in_progress: &'static str,
    },
    /// The restore context and the PostCompact note: `- [ ] (in progress) task`.
    Restore,
    /// The PreCompact instruction, the tasks on one line: `[ ] task (in progress)`.
    Inline,
    /// `save-memory inspect`: `[~] task`.
    Inspect,
    /// The startup recall, which lists open tasks: `- [in progress] task`.
    Recall,
}

impl TodoItem {
    /// Whether the task is still to be done.
    pub fn is_open(&self) -> bool {
        self.status != TaskStatus::Completed
    }

    /// The task as a line in `style` (no line end), its content made one line of at
    /// most `max` characters.
    pub fn line(&self, style: TaskLine, max: usize) -> String {
        let content = line(&self.content, max);
        let bullet = match style {
            TaskLine::Inline | TaskLine::Inspect => "",
            TaskLine::Memory { .. } | TaskLine::Restore | TaskLine::Recall => "- ",
        };
        match (&self.status, style) {
            (TaskStatus::Completed, _) => format!("{bullet}[x] {content}"),
            (TaskStatus::InProgress, TaskLine::Memory { in_progress }) => {
                format!("{bullet}[ ] **{in_progress}**: {content}")
            }
            (TaskStatus::InProgress, TaskLine::Restore) => {
                format!("{bullet}[ ] (in progress) {content}")
            }
            (TaskStatus::InProgress, TaskLine::Inline) => {
                format!("{bullet}[ ] {content} (in progress)")
            }
            (TaskStatus::InProgress, TaskLine::Inspect) => format!("{bullet}[~] {content}"),
            (TaskStatus::InProgress, TaskLine::Recall) => {
                format!("{bullet}[in progress] {content}")
            }
            (TaskStatus::Pending | TaskStatus::Other(_), _) => format!("{bullet}[ ] {content}"),
        }
    }
}

impl TodoList {
    /// Tasks not completed.
    pub fn open_count(&self) -> usize {
        self.items.iter().filter(|t| t.is_open()).count()
    }
}

/// Normalises the status spellings seen across versions.
fn status(s: &str) -> TaskStatus {
    match s.trim().to_ascii_lowercase().replace('-', "_").as_str() {
        "completed" | "done" | "complete" => TaskStatus::Completed,
        "in_progress" | "inprogress" | "active" => TaskStatus::InProgress,
        _ => TaskStatus::Pending,
    }
}

/// Task ids are decimal strings; order them numerically, others after, by text.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum TaskKey {
    Num(u64),
    Text(String),
}

impl TaskKey {
    fn new(id: &str) -> TaskKey {
        id.trim()
            .trim_start_matches('#')
            .parse()
            .map_or_else(|_| TaskKey::Text(id.to_string()), TaskKey::Num)
    }
}

#[derive(Debug, Clone)]
struct Task {
    subject: String,
    status: TaskStatus,
    active_form: Option<String>,
}

enum PendingOp<'a> {
    Create {
        subject: &'a str,
        active_form: Option<&'a str>,
    },
    Update {
        task_id: &'a str,
        status: Option<&'a str>,
        subject: Option<&'a str>,
        active_form: Option<&'a str>,
    },
}

/// Replays the main-chain task events of `records` (file order) and returns the list
/// written last, with the index of the record that wrote it.
pub(crate) fn replay(records: &[Record]) -> Option<(TodoList, usize)> {
    let mut todo_write: Option<(Vec<TodoItem>, usize, TodoSource)> = None;
    let mut tasks: BTreeMap<TaskKey, Task> = BTreeMap::new();
    let mut tasks_written: Option<usize> = None;
    let mut pending: Vec<(super::record::Key, PendingOp)> = Vec::new();
    let failed = failed_calls(records);

    for (idx, record) in records.iter().enumerate() {
        if record.meta.sidechain {
            continue;
        }
        match &record.entry {
            Entry::Assistant(a) => {
                for call in &a.tool_calls {
                    match &call.detail {
                        ToolDetail::TodoWrite(items) if !failed.contains(&call.id) => {
                            todo_write = Some((written_items(items), idx, written_by(call)));
                        }
                        ToolDetail::TaskCreate(create) => pending.push((
                            call.id,
                            PendingOp::Create {
                                subject: &create.subject,
                                active_form: create.active_form.as_deref(),
                            },
                        )),
                        ToolDetail::TaskUpdate(update) => pending.push((
                            call.id,
                            PendingOp::Update {
                                task_id: &update.task_id,
                                status: update.status.as_deref(),
                                subject: update.subject.as_deref(),
                                active_form: update.active_form.as_deref(),
                            },
                        )),
                        _ => {}
                    }
                }
            }
            Entry::User(u) => {
                if let Some(snapshot) = u.task_snapshot() {
                    tasks = from_snapshot(snapshot, &tasks);
                    tasks_written = Some(idx);
                }
                for result in &u.tool_results {
                    let Some(pos) = pending.iter().position(|(id, _)| *id == result.tool_use_id)
                    else {
                        continue;
                    };
                    let (_, op) = pending.remove(pos);
                    if result.is_error || u.tool_use_failed {
                        continue;
                    }
                    let created = created_id(u, result.text.head());
                    apply(&mut tasks, op, created);
                    tasks_written = Some(idx);
                }
            }
            _ => {}
        }
    }
    // Calls whose results are not in the transcript yet (the hook ran mid-turn) are
    // taken as done: that is what the model believes.
    for (_, op) in pending {
        apply(&mut tasks, op, None);
        tasks_written = Some(records.len().saturating_sub(1));
    }

    let tasks_list = tasks_written.map(|idx| (tasks_list(tasks), idx));
    let todo_list = todo_write.map(|(items, idx, source)| (TodoList { source, items }, idx));
    match (todo_list, tasks_list) {
        (Some(a), Some(b)) => Some(if a.1 > b.1 { a } else { b }),
        (a, b) => a.or(b),
    }
}

/// The tasks a whole list written from record `start` on left open when a later whole
/// list replaced it without them (and no list after holds them again): work Claude set
/// aside, or forgot, when it wrote a list for something else. Oldest first, each once.
/// Lists kept task by task (`TaskCreate` / `TaskUpdate`) drop nothing this way.
pub(crate) fn left_open(records: &[Record], start: usize) -> Vec<String> {
    let failed = failed_calls(&records[start.min(records.len())..]);
    let lists: Vec<&[super::record::TodoInput]> = records
        .iter()
        .skip(start)
        .filter(|r| !r.meta.sidechain)
        .filter_map(|r| match &r.entry {
            Entry::Assistant(a) => Some(&a.tool_calls),
            _ => None,
        })
        .flatten()
        .filter_map(|c| match &c.detail {
            ToolDetail::TodoWrite(items) if !failed.contains(&c.id) => Some(&items[..]),
            _ => None,
        })
        .collect();
    // The last list each task is on: one pass, however many lists a long session
    // wrote.
    let mut last_on: std::collections::HashMap<&str, usize> = Default::default();
    for (i, list) in lists.iter().enumerate() {
        for t in list.iter() {
            last_on.insert(&t.content, i);
        }
    }
    let mut out: Vec<String> = Vec::new();
    // The last list is the memory's task list, which says itself what is open.
    for (i, list) in lists.iter().enumerate().take(lists.len().saturating_sub(1)) {
        for t in list
            .iter()
            .filter(|t| status(&t.status) != TaskStatus::Completed)
        {
            // Each task once: taken from the map when its last list is this one.
            if last_on.get(t.content.as_str()) == Some(&i) {
                last_on.remove(t.content.as_str());
                out.push(task_text(&t.content));
            }
        }
    }
    // A memory shows the newest 20; an autonomous run that rewrote its list thousands of
    // times keeps its inspect output and its merge small.
    let start = out.len().saturating_sub(LEFT_OPEN_KEPT);
    out.split_off(start)
}

/// Most tasks left open kept (the newest).
const LEFT_OPEN_KEPT: usize = 100;

/// The calls answered with an error (the tool disabled, bad input): a TodoWrite among
/// them changed nothing.
fn failed_calls(records: &[Record]) -> super::record::KeySet {
    records
        .iter()
        .filter(|r| !r.meta.sidechain)
        .filter_map(|r| match &r.entry {
            Entry::User(u) => Some(
                u.tool_results
                    .iter()
                    .filter(move |t| t.is_error || u.tool_use_failed),
            ),
            _ => None,
        })
        .flatten()
        .map(|t| t.tool_use_id)
        .collect()
}

/// The whole list a TodoWrite (or `update_plan`) call writes.
fn written_items(items: &[super::record::TodoInput]) -> Vec<TodoItem> {
    items
        .iter()
        .map(|t| TodoItem {
            content: t.content.clone(),
            status: status(&t.status),
            active_form: t.active_form.clone(),
        })
        .collect()
}

/// Which tool wrote a whole list: Codex's plan tool writes it as TodoWrite does.
fn written_by(call: &super::record::ToolCall) -> TodoSource {
    if call.name == "update_plan" {
        TodoSource::UpdatePlan
    } else {
        TodoSource::TodoWrite
    }
}

/// The tasks a snapshot holds, keeping the active forms the `previous` tasks had (a
/// snapshot has none).
fn from_snapshot(
    snapshot: &[super::record::TaskSnapshotItem],
    previous: &BTreeMap<TaskKey, Task>,
) -> BTreeMap<TaskKey, Task> {
    let mut tasks = BTreeMap::new();
    for item in snapshot {
        let key = TaskKey::new(&item.id);
        let active_form = previous.get(&key).and_then(|t| t.active_form.clone());
        tasks.insert(
            key,
            Task {
                subject: item.subject.clone(),
                status: status(&item.status),
                active_form,
            },
        );
    }
    tasks
}

/// The Task tools' tasks as a list, in id order.
fn tasks_list(tasks: BTreeMap<TaskKey, Task>) -> TodoList {
    let items = tasks
        .into_values()
        .map(|t| TodoItem {
            content: t.subject,
            status: t.status,
            active_form: t.active_form,
        })
        .collect();
    TodoList {
        source: TodoSource::Tasks,
        items,
    }
}

/// The id a TaskCreate result reports: `toolUseResult.task.id`, else `Task #N created`.
fn created_id(u: &UserMsg, text: &str) -> Option<String> {
    if u.tool_results.len() == 1
        && let Some(id) = u.created_task_id()
    {
        return Some(id.to_string());
    }
    let rest = &text[text.find("Task #")? + "Task #".len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    (!digits.is_empty() && rest[digits.len()..].trim_start().starts_with("created"))
        .then_some(digits)
}

fn apply(tasks: &mut BTreeMap<TaskKey, Task>, op: PendingOp, created: Option<String>) {
    match op {
        PendingOp::Create {
            subject,
            active_form,
        } => {
            let key = match created {
                Some(id) => TaskKey::new(&id),
                None => {
                    let next = tasks
                        .keys()
                        .filter_map(|k| match k {
                            TaskKey::Num(n) => Some(*n),
                            TaskKey::Text(_) => None,
                        })
                        .max()
                        .unwrap_or(0)
                        + 1;
                    TaskKey::Num(next)
                }
            };
            tasks.insert(
                key,
                Task {
                    subject: subject.to_string(),
                    status: TaskStatus::Pending,
                    active_form: active_form.map(str::to_string),
                },
            );
        }
        PendingOp::Update {
            task_id,
            status: new_status,
            subject,
            active_form,
        } => {
            let key = TaskKey::new(task_id);
            if new_status.is_some_and(|s| s.eq_ignore_ascii_case("deleted")) {
                tasks.remove(&key);
                return;
            }
            // An update of a task created before the part of the transcript we read
            // still tells us it exists.
            let task = tasks.entry(key).or_insert_with(|| Task {
                subject: subject.unwrap_or("").to_string(),
                status: TaskStatus::Pending,
                active_form: None,
            });
            if let Some(s) = new_status {
                task.status = status(s);
            }
            if let Some(s) = subject {
                task.subject = s.to_string();
            }
            if let Some(a) = active_form {
                task.active_form = Some(a.to_string());
            }
        }
    }
}

/// Claude Code's task files for one list, and when they last changed.
#[derive(Debug, Clone, Default)]
pub(crate) struct TaskFiles {
    pub items: Vec<TodoItem>,
    pub modified: Option<SystemTime>,
}

impl TaskFiles {
    /// Redacts the items' texts (see [`super::ReadOptions::redact`]).
    pub fn redacted(mut self, redact: bool) -> TaskFiles {
        if redact {
            for item in &mut self.items {
                item.content = crate::redact::redact(&item.content).into_owned();
                if let Some(a) = &mut item.active_form {
                    *a = crate::redact::redact(a).into_owned();
                }
            }
        }
        self
    }
}

#[derive(Deserialize)]
struct TaskFile {
    #[serde(default, deserialize_with = "id_string")]
    id: Option<String>,
    #[serde(default)]
    subject: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(rename = "activeForm", default)]
    active_form: Option<String>,
}

fn id_string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match serde_json::Value::deserialize(d)? {
        serde_json::Value::String(s) => Some(s),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    })
}

/// Largest task file read; task files are a few hundred bytes.
const MAX_TASK_FILE: u64 = 1024 * 1024;

/// Reads `<dir>/*.json`; unreadable or foreign files are skipped.
pub(crate) fn load_task_files(dir: &Path) -> TaskFiles {
    let mut out = TaskFiles::default();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    let mut found: Vec<(TaskKey, TodoItem)> = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if !meta.is_file() || meta.len() > MAX_TASK_FILE {
            continue;
        }
        let Ok(text) = crate::fsutil::read_regular(&path, MAX_TASK_FILE) else {
            continue;
        };
        let Ok(task) = serde_json::from_str::<TaskFile>(&text) else {
            continue;
        };
        let id = task.id.unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
        let st = task.status.as_deref().unwrap_or("pending");
        if st.eq_ignore_ascii_case("deleted") {
            continue;
        }
        if let Ok(m) = meta.modified() {
            out.modified = Some(out.modified.map_or(m, |o: SystemTime| o.max(m)));
        }
        found.push((
            TaskKey::new(&id),
            TodoItem {
                content: task.subject.unwrap_or_default(),
                status: status(st),
                active_form: task.active_form,
            },
        ));
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    out.items = found.into_iter().map(|(_, t)| t).collect();
    out
}

/// Picks between the transcript's list and the task files: the files are
/// authoritative unless a TodoWrite in the transcript is newer than them. A checkpoint
/// (the list as an earlier memory recorded it) replaces whatever the records before it
/// say.
pub(crate) fn current(
    records: &[Record],
    files: Option<&TaskFiles>,
    checkpoint: Option<(Option<&TodoList>, usize)>,
) -> Option<TodoList> {
    // The index of the record that wrote the list, `None` for a checkpoint's list.
    let mut from_transcript = replay(records).map(|(l, idx)| (l, Some(idx)));
    if let Some((todos, first_after)) = checkpoint
        && from_transcript
            .as_ref()
            .is_none_or(|(_, idx)| idx.is_some_and(|i| i < first_after))
    {
        from_transcript = todos.cloned().map(|l| (l, None));
    }
    let Some(files) = files else {
        return from_transcript.map(|(l, _)| l);
    };
    if let Some((list, Some(idx))) = &from_transcript
        && list.source == TodoSource::TodoWrite
    {
        let written = records[*idx]
            .meta
            .timestamp()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .map(SystemTime::from);
        if let (Some(w), Some(m)) = (written, files.modified)
            && w > m
        {
            return from_transcript.map(|(l, _)| l);
        }
    }
    Some(TodoList {
        source: TodoSource::Tasks,
        items: files.items.clone(),
    })
}

/// Longest task a memory's task list shows.
pub const TASK_CHARS: usize = 1_000;

/// A task as a memory's task list shows it (one line): how tasks of two memories are
/// compared.
pub fn task_text(content: &str) -> String {
    crate::untrusted::line(content, TASK_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::record::parse_line;

    #[test]
    fn a_status_reads_back_as_written_and_any_other_is_open() {
        let json = r#"[{"content":"a","status":"in_progress","active_form":null},{"content":"b","status":"Done","active_form":null}]"#;
        let items: Vec<TodoItem> = serde_json::from_str(json).unwrap();
        assert_eq!(items[0].status, TaskStatus::InProgress);
        assert_eq!(items[1].status, TaskStatus::Other("Done".into()));
        assert!(items[1].is_open());
        assert_eq!(serde_json::to_string(&items).unwrap(), json);
    }

    #[test]
    fn each_style_marks_a_task_its_own_way() {
        let task = |status: TaskStatus| TodoItem {
            content: "Ship\nit".into(),
            status,
            active_form: None,
        };
        let lines = |style| {
            [
                TaskStatus::Completed,
                TaskStatus::InProgress,
                TaskStatus::Pending,
            ]
            .map(|s| task(s).line(style, 100))
        };
        let memory = TaskLine::Memory {
            in_progress: "进行中",
        };
        assert_eq!(
            lines(memory),
            [
                "- [x] Ship ⏎ it",
                "- [ ] **进行中**: Ship ⏎ it",
                "- [ ] Ship ⏎ it"
            ]
        );
        assert_eq!(
            lines(TaskLine::Restore),
            [
                "- [x] Ship ⏎ it",
                "- [ ] (in progress) Ship ⏎ it",
                "- [ ] Ship ⏎ it"
            ]
        );
        assert_eq!(
            lines(TaskLine::Inline),
            [
                "[x] Ship ⏎ it",
                "[ ] Ship ⏎ it (in progress)",
                "[ ] Ship ⏎ it"
            ]
        );
        assert_eq!(
            lines(TaskLine::Inspect),
            ["[x] Ship ⏎ it", "[~] Ship ⏎ it", "[ ] Ship ⏎ it"]
        );
        assert_eq!(
            lines(TaskLine::Recall)[1..],
            ["- [in progress] Ship ⏎ it", "- [ ] Ship ⏎ it"]
        );
        assert_eq!(
            task(TaskStatus::Other("Done".into())).line(TaskLine::Inspect, 100),
            "[ ] Ship ⏎ it"
        );
    }

    fn records(lines: &[&str]) -> Vec<Record> {
        lines
            .iter()
            .map(|l| parse_line(l.as_bytes()).unwrap())
            .collect()
    }

    fn call(id: &str, name: &str, input: &str) -> String {
        format!(
            r#"{{"type":"assistant","message":{{"content":[{{"type":"tool_use","id":"{id}","name":"{name}","input":{input}}}]}}}}"#
        )
    }

    fn result(id: &str, text: &str, tur: &str) -> String {
        format!(
            r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"{id}","content":"{text}"}}]}},"toolUseResult":{tur}}}"#
        )
    }

    fn items(list: &TodoList) -> Vec<(String, String)> {
        list.items
            .iter()
            .map(|t| (t.content.clone(), t.status.to_string()))
            .collect()
    }

    #[test]
    fn task_tools_replay_with_update_and_delete() {
        let lines = [
            call(
                "a",
                "TaskCreate",
                r#"{"subject":"One","activeForm":"Doing one"}"#,
            ),
            result(
                "a",
                "Task #1 created successfully: One",
                r#"{"task":{"id":"1","subject":"One"}}"#,
            ),
            call("b", "TaskCreate", r#"{"subject":"Two"}"#),
            result(
                "b",
                "Task #2 created successfully: Two",
                r#"{"task":{"id":"2","subject":"Two"}}"#,
            ),
            call("c", "TaskCreate", r#"{"subject":"Three"}"#),
            result("c", "Task #3 created successfully: Three", r#"{}"#),
            call("d", "TaskUpdate", r#"{"taskId":"1","status":"completed"}"#),
            result("d", "Updated", r#"{"success":true,"taskId":"1"}"#),
            call("e", "TaskUpdate", r#"{"taskId":"2","status":"deleted"}"#),
            result("e", "Updated", r#"{"success":true,"taskId":"2"}"#),
            call(
                "f",
                "TaskUpdate",
                r#"{"taskId":"3","status":"in_progress"}"#,
            ),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let (list, _) = replay(&records(&refs)).unwrap();
        assert_eq!(list.source, TodoSource::Tasks);
        assert_eq!(
            items(&list),
            vec![
                ("One".into(), "completed".into()),
                ("Three".into(), "in_progress".into())
            ]
        );
        assert_eq!(list.items[0].active_form.as_deref(), Some("Doing one"));
    }

    #[test]
    fn failed_updates_are_ignored() {
        let lines = [
            call("a", "TaskCreate", r#"{"subject":"One"}"#),
            result(
                "a",
                "Task #1 created successfully: One",
                r#"{"task":{"id":"1"}}"#,
            ),
            call("b", "TaskUpdate", r#"{"taskId":"9","status":"completed"}"#),
            result(
                "b",
                "Task not found",
                r#"{"success":false,"taskId":"9","error":"Task not found"}"#,
            ),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let (list, _) = replay(&records(&refs)).unwrap();
        assert_eq!(items(&list), vec![("One".into(), "pending".into())]);
    }

    #[test]
    fn last_writer_wins_between_todowrite_and_tasks() {
        let lines = [
            call("a", "TaskCreate", r#"{"subject":"Task tool"}"#),
            result(
                "a",
                "Task #1 created successfully",
                r#"{"task":{"id":"1"}}"#,
            ),
            call(
                "t",
                "TodoWrite",
                r#"{"todos":[{"content":"Todo","status":"in_progress","activeForm":"Todoing"}]}"#,
            ),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let (list, _) = replay(&records(&refs)).unwrap();
        assert_eq!(list.source, TodoSource::TodoWrite);
        assert_eq!(items(&list), vec![("Todo".into(), "in_progress".into())]);
    }

    #[test]
    fn cleared_todowrite_is_an_empty_list() {
        let lines = [
            call(
                "t",
                "TodoWrite",
                r#"{"todos":[{"content":"A","status":"pending"}]}"#,
            ),
            call("u", "TodoWrite", r#"{"todos":[]}"#),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let (list, _) = replay(&records(&refs)).unwrap();
        assert_eq!(list.source, TodoSource::TodoWrite);
        assert!(list.items.is_empty());
    }

    #[test]
    fn sidechain_todowrite_is_ignored() {
        let side = r#"{"type":"assistant","isSidechain":true,"message":{"content":[{"type":"tool_use","id":"s","name":"TodoWrite","input":{"todos":[{"content":"sub","status":"pending"}]}}]}}"#;
        assert!(replay(&records(&[side])).is_none());
    }

    #[test]
    fn snapshot_from_task_list_is_a_base() {
        let lines = [
            result(
                "l",
                "listing",
                r#"{"tasks":[{"id":"4","subject":"Four","status":"in_progress"},{"id":"5","subject":"Five","status":"pending"}]}"#,
            ),
            call("u", "TaskUpdate", r#"{"taskId":"4","status":"completed"}"#),
            result("u", "ok", r#"{"success":true}"#),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let (list, _) = replay(&records(&refs)).unwrap();
        assert_eq!(
            items(&list),
            vec![
                ("Four".into(), "completed".into()),
                ("Five".into(), "pending".into())
            ]
        );
    }

    #[test]
    fn background_shell_tools_are_not_tasks() {
        let lines = [
            call("o", "TaskOutput", r#"{"task_id":"bg1"}"#),
            call("k", "KillShell", r#"{"shell_id":"bg1"}"#),
            call("s", "TaskStop", r#"{"task_id":"bg1"}"#),
            call("b", "BashOutput", r#"{"bash_id":"bg1"}"#),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        assert!(replay(&records(&refs)).is_none());
    }

    #[test]
    fn task_files_are_read_in_id_order() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, body: &str| fs::write(dir.path().join(name), body).unwrap();
        write(
            "10.json",
            r#"{"id":"10","subject":"Ten","status":"pending"}"#,
        );
        write(
            "2.json",
            r#"{"id":"2","subject":"Two","status":"in_progress","activeForm":"Doing two"}"#,
        );
        write(
            "3.json",
            r#"{"id":"3","subject":"Gone","status":"deleted"}"#,
        );
        write(".lock", "");
        write("bad.json", "{not json");
        let files = load_task_files(dir.path());
        assert_eq!(
            files
                .items
                .iter()
                .map(|t| t.content.as_str())
                .collect::<Vec<_>>(),
            vec!["Two", "Ten"]
        );
        assert!(files.modified.is_some());
        assert!(
            load_task_files(&dir.path().join("missing"))
                .items
                .is_empty()
        );
    }

    #[test]
    fn tasks_a_replaced_list_left_open_are_found_once() {
        let todo = |id: &str, list: &str| call(id, "TodoWrite", &format!(r#"{{"todos":{list}}}"#));
        let rs = records(&[
            &todo(
                "t1",
                r#"[{"content":"Vite dev server","status":"completed"},{"content":"Remove vendor prefixes","status":"pending"},{"content":"Fix getUserMedia","status":"in_progress"}]"#,
            ),
            &result("t1", "ok", "{}"),
            // The new list drops the vendor prefixes while open; getUserMedia goes on.
            &todo(
                "t2",
                r#"[{"content":"Fix getUserMedia","status":"completed"},{"content":"Migrate to AudioWorklet","status":"in_progress"},{"content":"Write the worklet","status":"pending"}]"#,
            ),
            &result("t2", "ok", "{}"),
            // A list that failed to write replaced nothing.
            &todo("t3", r#"[{"content":"Something else","status":"pending"}]"#),
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t3","content":"InputValidationError","is_error":true}]}}"#,
            // Dropped, then written again: not left open.
            &todo(
                "t4",
                r#"[{"content":"Migrate to AudioWorklet","status":"in_progress"}]"#,
            ),
            &result("t4", "ok", "{}"),
            &todo(
                "t5",
                r#"[{"content":"Migrate to AudioWorklet","status":"completed"},{"content":"Write the worklet","status":"completed"}]"#,
            ),
            &result("t5", "ok", "{}"),
        ]);
        assert_eq!(left_open(&rs, 0), ["Remove vendor prefixes"]);
        // On a list, off the next, back open on a later one and dropped again: found
        // where it was dropped for good, once.
        let again = records(&[
            &todo(
                "a1",
                r#"[{"content":"Docs","status":"pending"},{"content":"A","status":"pending"}]"#,
            ),
            &todo("a2", r#"[{"content":"A","status":"completed"}]"#),
            &todo(
                "a3",
                r#"[{"content":"Docs","status":"pending"},{"content":"B","status":"pending"}]"#,
            ),
            &todo("a4", r#"[{"content":"B","status":"in_progress"}]"#),
        ]);
        assert_eq!(left_open(&again, 0), ["Docs"]);
        // From the second list on, nothing was dropped.
        assert!(left_open(&rs, 2).is_empty());
    }
}
