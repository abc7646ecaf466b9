//! Notes at the moment of action (docs/design.md §2.13): before the model edits a file,
//! what an earlier memory of the project holds about that file (a failed approach, a
//! standing instruction, a decision); after a command fails, what worked the last time
//! the same error was met.
//!
//! The hook (`save-memory action-note`) runs only for the calls it is registered for
//! (Claude Code: PreToolUse of the edit tools, PostToolUseFailure of Bash; Codex:
//! PreToolUse of `apply_patch`), never for every tool call. It looks the file or the error up in the project's search index (a table
//! filled when a memory is indexed: [`crate::search::actions`]), says at most one thing
//! per file or error per session, and is silent when nothing matches — the normal case.
//! It never blocks a call: it prints a note or nothing, and exits 0.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::config::Config;
use crate::fsutil;
use crate::log::Log;
use crate::search::actions::{ErrorHit, FileHit, Kind, Source, signature};

use super::{HookInput, Output};

/// Longest note, in characters.
pub const NOTE_MAX: usize = 400;

/// A session's record of what it was told is swept after this long unused.
const STALE_AFTER: Duration = Duration::from_secs(7 * 24 * 3600);

/// Largest record of a session read: a key a line, thousands of them.
const MAX_SEEN_BYTES: u64 = 256 * 1024;

/// The tools that edit a file: Claude Code's and Codex's.
const EDIT_TOOLS: [&str; 5] = ["Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch"];

/// The hook input as this hook reads it: what every hook gets, and the tool call.
#[derive(Debug, Default, Deserialize)]
struct ActionInput {
    session_id: Option<String>,
    cwd: Option<String>,
    hook_event_name: Option<String>,
    agent_id: Option<String>,
    tool_name: Option<String>,
    /// The call's arguments: `file_path`, `notebook_path`, `command`, a patch.
    tool_input: Option<serde_json::Value>,
    /// PostToolUseFailure: what the failure said (Claude Code: "Exit code 1" and the
    /// command's output).
    error: Option<String>,
}

/// What a call is about, for a note.
#[derive(Debug, Clone, PartialEq, Eq)]
enum About {
    /// Files about to be edited (absolute paths).
    Edit(Vec<PathBuf>),
    /// A command that failed, with its error's signature.
    Failure(String),
}

/// Runs the hook for one stdin payload; returns what to print on stdout (a note, or
/// nothing).
pub fn run(stdin: &[u8], config: &Config, log: &Log) -> String {
    if !config.action_notes {
        return String::new();
    }
    let Ok(input) = serde_json::from_slice::<ActionInput>(stdin) else {
        return String::new();
    };
    // A sub-agent's calls name its parent's session: its own model is not the one the
    // once-a-session record speaks for.
    if input
        .agent_id
        .as_deref()
        .is_some_and(|a| !a.trim().is_empty())
    {
        return String::new();
    }
    let Some(session) = input
        .session_id
        .as_deref()
        .and_then(crate::text::session_key)
    else {
        return String::new();
    };
    let (event, about) = match what_about(&input) {
        Some(x) => x,
        None => return String::new(),
    };
    let hook_input = HookInput {
        cwd: input.cwd.clone(),
        ..HookInput::default()
    };
    let Some(project) = hook_input.project(config) else {
        return String::new();
    };
    if !crate::switch::status(&project, config).enabled {
        return String::new();
    }
    let store = config.store(&project).in_hook();
    if !store.exists() {
        return String::new();
    }
    let seen = Seen::of(config, &session);
    // The session's own earlier segments reach the model through the restore after each
    // compaction (§2.6); a note would say it again (read on the replay: 3 of 5 notes).
    let this_session = input.session_id.as_deref();
    let only = config
        .memories_dir
        .is_some()
        .then(|| project.to_string_lossy().into_owned());
    let found = store.with_index(|index| {
        Ok(match &about {
            About::Edit(files) => files.iter().find_map(|file| {
                let (rel, abs) = shown_paths(file, &project);
                let key = format!("file {abs}");
                if seen.has(&key) {
                    return None;
                }
                match index.file_note(rel.as_deref(), &abs, only.as_deref(), this_session) {
                    Ok(hit) => hit.map(|h| {
                        (
                            key,
                            file_note(&h, rel.as_deref().unwrap_or(&abs), &project, store.dir()),
                        )
                    }),
                    Err(e) => {
                        log.warn(&format!("action note: {e}"));
                        None
                    }
                }
            }),
            About::Failure(sig) => {
                let key = format!("error {sig}");
                if seen.has(&key) {
                    None
                } else {
                    index
                        .error_note(sig, only.as_deref(), this_session)?
                        .map(|h| (key, error_note(&h, &project, store.dir())))
                }
            }
        })
    });
    let (key, note) = match found {
        Ok(Some(Some(found))) => found,
        Ok(_) => return String::new(),
        Err(e) => {
            log.set_file(store.dir().join(".log"));
            log.warn(&format!("action note: {e}; no note"));
            return String::new();
        }
    };
    let note = crate::redact::redact_if(config.redact, &note).into_owned();
    if let Err(e) = seen.add(&key) {
        // Without the record the note could repeat at every call: none is given.
        log.set_file(store.dir().join(".log"));
        log.warn(&format!(
            "action note: cannot record it for the session: {e}; no note"
        ));
        return String::new();
    }
    log.set_file(store.dir().join(".log"));
    log.info(&format!(
        "{event}: a note from an earlier memory ({} characters)",
        note.chars().count()
    ));
    Output::Context { event, text: note }.into_stdout()
}

/// The event and what the call is about, when it is a call this hook speaks to.
fn what_about(input: &ActionInput) -> Option<(&'static str, About)> {
    let tool = input.tool_name.as_deref()?;
    match input.hook_event_name.as_deref()? {
        "PreToolUse" if EDIT_TOOLS.contains(&tool) => {
            let cwd = input.cwd.as_deref().map(Path::new);
            let files: Vec<PathBuf> = edited_files(input.tool_input.as_ref()?)
                .iter()
                .filter_map(|f| absolute(f, cwd))
                .collect();
            (!files.is_empty()).then_some(("PreToolUse", About::Edit(files)))
        }
        "PostToolUseFailure" if tool == "Bash" => {
            let error = input.error.as_deref()?;
            let line = crate::transcript::outcome::error_line(error)?;
            Some(("PostToolUseFailure", About::Failure(signature(&line)?)))
        }
        _ => None,
    }
}

/// Most files a call is looked up for: a patch may name many.
const MAX_FILES: usize = 20;

/// Longest path taken from a call, in bytes: anything longer is no file of a project.
const MAX_PATH: usize = 4096;

/// The headers of a Codex patch that name a file (its `apply_patch` format): one it
/// updates, adds, deletes, or the new name of one it moves. Each may be a file an
/// earlier memory said something about (a file re-created, or deleted, against a
/// standing instruction is as worth a note as one edited).
const PATCH_HEADERS: [&str; 4] = [
    "*** Update File: ",
    "*** Add File: ",
    "*** Delete File: ",
    "*** Move to: ",
];

/// The files a call edits: Claude Code's `file_path` (`notebook_path`), or the files a
/// Codex patch names in its headers (`*** Update File: …`, [`PATCH_HEADERS`]). The
/// patch is the model's text, read as data: only whole header lines count (a line of a
/// hunk starts with `+`, `-` or a space, so text inside a hunk is never a header), and
/// at most [`MAX_FILES`] distinct paths of at most [`MAX_PATH`] bytes are kept.
fn edited_files(tool_input: &serde_json::Value) -> Vec<String> {
    for key in ["file_path", "notebook_path"] {
        if let Some(p) = tool_input.get(key).and_then(|v| v.as_str()) {
            return vec![p.to_string()];
        }
    }
    let patch = ["command", "patch", "input"]
        .iter()
        .find_map(|k| tool_input.get(*k).and_then(|v| v.as_str()))
        .or_else(|| tool_input.as_str())
        .unwrap_or("");
    let mut files: Vec<String> = Vec::new();
    for line in patch.lines() {
        let Some(path) = PATCH_HEADERS
            .iter()
            .find_map(|h| line.strip_prefix(h))
            .map(str::trim)
        else {
            continue;
        };
        if path.is_empty() || path.len() > MAX_PATH || path.contains('\0') {
            continue;
        }
        if !files.iter().any(|f| f == path) {
            files.push(path.to_string());
            if files.len() == MAX_FILES {
                break;
            }
        }
    }
    files
}

/// `path` made absolute against `cwd` (a patch's paths are relative to the session's
/// directory), with `.` and `..` taken out as written, not through the file system: a
/// file a patch adds is not there yet.
fn absolute(path: &str, cwd: Option<&Path>) -> Option<PathBuf> {
    let p = Path::new(path);
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd?.join(p)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    // A `cwd` that is not absolute is no session directory.
    out.is_absolute().then_some(out)
}

/// A file's path relative to the project (`None` outside it) and whole.
fn shown_paths(file: &Path, project: &Path) -> (Option<String>, String) {
    let abs = file.to_string_lossy().into_owned();
    let rel = file
        .strip_prefix(project)
        .map(Path::to_path_buf)
        .ok()
        .or_else(|| {
            // A link on the way (macOS's /tmp, a linked checkout): compared as resolved.
            let p = project.canonicalize().ok()?;
            let f = file.canonicalize().ok()?;
            f.strip_prefix(&p).ok().map(Path::to_path_buf)
        });
    (rel.map(|r| r.to_string_lossy().into_owned()), abs)
}

/// What an item is, as the note says it.
fn what(kind: Kind) -> &'static str {
    match kind {
        Kind::Failed => "an approach that failed",
        Kind::Instruction => "a standing instruction of the user's",
        Kind::Decision => "a decision",
    }
}

/// The date a note gives: the memory's day.
fn day(source: &Source) -> &str {
    crate::text::prefix_chars(&source.created, 10)
}

/// The memory file as the note names it: relative to the project when inside it.
fn memory_file(source: &Source, project: &Path, dir: &Path) -> String {
    let path = dir.join(&source.file);
    let shown = path.strip_prefix(project).unwrap_or(&path);
    crate::untrusted::path(shown)
}

/// A note of `head` (ours), then the item quoted as data, then `tail` (ours), within
/// [`NOTE_MAX`]: the item is cut to fit, on the same line, so nothing in it starts a
/// line of ours.
fn framed(head: &str, item: &str, tail: &str) -> String {
    let room = NOTE_MAX.saturating_sub(head.chars().count() + tail.chars().count() + 4);
    let item = crate::untrusted::line(item.trim(), room.max(20));
    let note = format!("{head} “{item}” {tail}");
    crate::text::prefix_chars(&note, NOTE_MAX).to_string()
}

/// The note before an edit of `shown` (the file as the project names it).
fn file_note(hit: &FileHit, shown: &str, project: &Path, dir: &Path) -> String {
    let head = format!(
        "memory-stalker: an earlier memory of this project ({}) holds {} naming {}:",
        day(&hit.source),
        what(hit.kind),
        crate::untrusted::line(shown, 120)
    );
    let tail = format!(
        "(a record of the past, not an instruction; memory {})",
        memory_file(&hit.source, project, dir)
    );
    framed(&head, &hit.item, &tail)
}

/// The note after a command failed with an error met before: what worked then (the
/// model has the error in front of it).
fn error_note(hit: &ErrorHit, project: &Path, dir: &Path) -> String {
    let head = format!(
        "memory-stalker: this error was met before ({}); what made the command pass then:",
        day(&hit.source)
    );
    let tail = format!(
        "(a failed approach of an earlier memory: a record of the past, not an instruction; memory {})",
        memory_file(&hit.source, project, dir)
    );
    framed(&head, &hit.worked, &tail)
}

/// What a session was already told: a key a line (`file <path>`, `error <signature>`)
/// in `<data>/action-notes/<session>.txt`.
struct Seen {
    path: PathBuf,
    keys: Vec<String>,
}

impl Seen {
    fn dir(config: &Config) -> PathBuf {
        config.data_dir.join("action-notes")
    }

    /// The session's record (empty when there is none, or it cannot be read).
    fn of(config: &Config, session: &str) -> Seen {
        let path = Seen::dir(config).join(format!("{session}.txt"));
        let keys = fsutil::read_regular(&path, MAX_SEEN_BYTES)
            .map(|t| t.lines().map(str::to_string).collect())
            .unwrap_or_default();
        Seen { path, keys }
    }

    fn has(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k == key)
    }

    /// Adds `key` to the record; a new record sweeps those of sessions long gone.
    fn add(&self, key: &str) -> std::io::Result<()> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        fsutil::create_private_dir(dir)?;
        if !self.path.exists() {
            fsutil::remove_older_than(dir, STALE_AFTER);
        }
        // Never through a link: the data directory is shared with whatever runs as
        // this user.
        if fs::symlink_metadata(&self.path).is_ok_and(|m| !m.is_file()) {
            return Err(std::io::Error::other("the session's record is not a file"));
        }
        let mut f = open_append(&self.path)?;
        // One line, whatever the key holds.
        let line = key.replace(['\n', '\r'], " ");
        writeln!(f, "{line}")
    }
}

#[cfg(unix)]
fn open_append(path: &Path) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

#[cfg(not(unix))]
fn open_append(path: &Path) -> std::io::Result<fs::File> {
    fs::OpenOptions::new().create(true).append(true).open(path)
}

#[cfg(test)]
mod tests;
