//! The notes at the moment of action, replayed on real sessions (issue 38, part 2;
//! scripts/action-replay).
//!
//! For each Claude Code main session of `../shared/corpus` and `../shared/corpus-2`: a
//! store of the memories of the same project's other sessions (the same directory in
//! the same corpus repository), each put in the store once its segment ended before the
//! call, plus this session's earlier segments (one memory per compaction segment, saved
//! by the release `save-memory` as the hook would), then every tool call
//! of the session in order, through the hook itself (`hook::action::run`): each edit as
//! its PreToolUse, each failing Bash call as its PostToolUseFailure. Every note that
//! fires is written to `target/action-replay/fired.jsonl`, a sample of edits that had
//! history (a memory in the store names a file of that name in a decision, failed
//! approach or instruction) but stayed silent to `silent-sample.jsonl`, and the counts
//! to `summary.md`. Precision is for a person to judge, reading those files.
//!
//! Codex rollouts are left out: the hook does not yet tell a failed Codex command (its
//! PostToolUse gives no exit status), and their edits (`apply_patch`) are few.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use memory_stalker::Config;

#[path = "support/corpus_store.rs"]
mod corpus_store;
use corpus_store::collect;
use memory_stalker::log::Log;
use serde_json::{Value, json};

/// One tool call of a session, in order.
struct Call {
    /// Which compaction segment it is in (0: before the first compaction).
    segment: usize,
    /// Its record's time stamp (RFC 3339, UTC, as Claude Code writes it).
    time: String,
    name: String,
    input: Value,
    /// The result's text and whether it was an error.
    result: Option<(String, bool)>,
}

/// A main session of a corpus.
struct Session {
    corpus: String,
    repo: String,
    rel: String,
    id: String,
    cwd: String,
    bytes: Vec<u8>,
    /// Byte offsets of its compactions.
    cuts: Vec<usize>,
    /// The time stamp of the last record before each compaction, then of the last one.
    ends: Vec<String>,
    calls: Vec<Call>,
}

const EDIT_TOOLS: [&str; 4] = ["Edit", "Write", "MultiEdit", "NotebookEdit"];
/// Most silent calls with history written for a person to read.
const SILENT_SAMPLE: usize = 40;

fn main() {
    let root = repo_root();
    let out = root.join("target/action-replay");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("output dir");
    let save_memory = root.join("target/release/save-memory");
    assert!(
        save_memory.is_file(),
        "build the release binaries first (scripts/action-replay does)"
    );
    let mut sessions = Vec::new();
    for corpus in ["corpus", "corpus-2"] {
        let dir = root.join("../shared").join(corpus).join("transcripts");
        let mut files = Vec::new();
        collect(&dir, &mut files);
        files.sort();
        for f in files {
            if let Some(s) = read_session(corpus, &dir, &f) {
                sessions.push(s);
            }
        }
    }
    eprintln!("{} main sessions with tool calls", sessions.len());
    let work = out.join("work");
    let state = work.join("state");
    // Every memory of every session, by segment, saved once.
    let memories: Vec<Vec<(String, String)>> = sessions
        .iter()
        .enumerate()
        .map(|(i, s)| save_segments(&save_memory, &work, &state, i, s))
        .collect();
    let key = memory_stalker::provenance::Writer::at(
        state
            .join("memory-stalker")
            .join(memory_stalker::provenance::KEY_FILE),
    )
    .key_or_create()
    .expect("writer key");

    let mut tally = Tally::default();
    for i in 0..sessions.len() {
        replay(&sessions, &memories, i, &work, &state, &key, &mut tally);
    }
    let Tally {
        fired,
        silent,
        totals,
    } = tally;
    write_lines(&out.join("fired.jsonl"), &fired);
    let with_history = silent.len();
    let step = (with_history / SILENT_SAMPLE).max(1);
    let sample: Vec<Value> = silent
        .into_iter()
        .step_by(step)
        .take(SILENT_SAMPLE)
        .collect();
    write_lines(&out.join("silent-sample.jsonl"), &sample);
    let calls = totals.get("tool calls").copied().unwrap_or(0);
    let notes = fired.len();
    let mut summary = format!(
        "# Notes at the moment of action, replayed\n\n{} main Claude Code sessions of ../shared/corpus and ../shared/corpus-2 (scripts/action-replay).\n\n| | count |\n|---|---:|\n",
        sessions.len()
    );
    for (k, v) in &totals {
        summary.push_str(&format!("| {k} | {v} |\n"));
    }
    summary.push_str(&format!(
        "| edits that had history but stayed silent | {with_history} |\n\nFire rate: {:.2} notes per 100 tool calls ({notes} notes, {calls} calls).\n",
        if calls == 0 { 0.0 } else { 100.0 * notes as f64 / calls as f64 }
    ));
    std::fs::write(out.join("summary.md"), &summary).expect("summary");
    print!("{summary}");
    println!(
        "\nfired notes: {}\nsilent sample: {}",
        out.join("fired.jsonl").display(),
        out.join("silent-sample.jsonl").display()
    );
}

/// What the replay found.
#[derive(Default)]
struct Tally {
    fired: Vec<Value>,
    silent: Vec<Value>,
    totals: BTreeMap<&'static str, usize>,
}

/// Replays session `i`'s tool calls through the hook, its store filled as it goes.
fn replay(
    sessions: &[Session],
    memories: &[Vec<(String, String)>],
    i: usize,
    work: &Path,
    state: &Path,
    key: &memory_stalker::provenance::WriterKey,
    tally: &mut Tally,
) {
    let s = &sessions[i];
    let project = work.join("replay").join(i.to_string()).join("project");
    let dir = project.join(".claude/memories");
    std::fs::create_dir_all(&dir).expect("replay store");
    let put = |j: usize, file: &str| {
        let from = work.join("saved").join(j.to_string()).join(file);
        let Ok(text) = std::fs::read_to_string(&from) else {
            return;
        };
        // The memory's paths as the replayed session sees its project.
        let saved_project = work.join("saved").join(j.to_string()).join("project");
        let mut text = text.replace(
            &*saved_project.to_string_lossy(),
            &project.to_string_lossy(),
        );
        let cwd = &sessions[j].cwd;
        if cwd.len() > 1 {
            text = text.replace(&format!("{cwd}/"), &format!("{}/", project.display()));
        }
        let name = Path::new(file)
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let _ = std::fs::write(dir.join(&name), key.sign(&name, &text));
    };
    // The other sessions of the same project (the same directory of the same corpus
    // repository: one repository's test data can hold several real projects), each
    // memory put in the store only once its segment has ended before the call (a later
    // session's memory did not exist yet).
    let mut others: Vec<(&str, usize, &str)> = Vec::new();
    for (j, other) in sessions.iter().enumerate() {
        if j != i && other.corpus == s.corpus && other.repo == s.repo && other.cwd == s.cwd {
            for (name, end) in &memories[j] {
                others.push((end.as_str(), j, name.as_str()));
            }
        }
    }
    others.sort();
    let mut others = others.into_iter().peekable();
    let mut config = Config::from_lookup(|k| {
        (k == "XDG_STATE_HOME").then(|| state.to_string_lossy().into_owned())
    });
    // The notes are off by default; the replay measures them.
    config.action_notes = true;
    config.data_dir = work.join("replay").join(i.to_string()).join("data");
    config.in_hook = true;
    let log = Log::file_only(work.join("replay").join(i.to_string()).join("log"));
    let mut added = 0;
    for (n, call) in s.calls.iter().enumerate() {
        // This session's memories of the segments before this call's.
        while added < call.segment.min(memories[i].len()) {
            put(i, &memories[i][added].0);
            added += 1;
        }
        while let Some((end, j, name)) = others.peek().copied() {
            if end.is_empty() || call.time.is_empty() || end >= call.time.as_str() {
                break;
            }
            put(j, name);
            others.next();
        }
        *tally.totals.entry("tool calls").or_default() += 1;
        let Some((input, target)) = hook_input(s, call, &project) else {
            continue;
        };
        let event = input["hook_event_name"].as_str().unwrap_or("").to_string();
        let edit = event == "PreToolUse";
        *tally
            .totals
            .entry(if edit { "edits" } else { "failed Bash calls" })
            .or_default() += 1;
        let stdout = memory_stalker::hook::action::run(input.to_string().as_bytes(), &config, &log);
        let mut record = json!({
            "corpus": s.corpus, "session": s.rel, "call": n, "segment": call.segment,
            "event": event, "tool": call.name, "target": target,
        });
        if stdout.is_empty() {
            if edit && let Some(h) = history(&dir, &target) {
                record["history"] = json!(h);
                tally.silent.push(record);
            }
            continue;
        }
        let note: Value = serde_json::from_str(&stdout).unwrap_or(Value::Null);
        record["note"] = note["hookSpecificOutput"]["additionalContext"].clone();
        *tally
            .totals
            .entry(if edit {
                "notes before an edit"
            } else {
                "notes after a failure"
            })
            .or_default() += 1;
        tally.fired.push(record);
    }
}

/// The hook input for a call the hook is registered for, and what it is about (the
/// file, or the command); `None` for any other call.
fn hook_input(s: &Session, call: &Call, project: &Path) -> Option<(Value, String)> {
    let base = |event: &str| {
        json!({"session_id": s.id, "transcript_path": "/replay.jsonl", "cwd": project,
               "hook_event_name": event, "tool_name": call.name})
    };
    if EDIT_TOOLS.contains(&call.name.as_str()) {
        let file = ["file_path", "notebook_path"]
            .iter()
            .find_map(|k| call.input.get(*k).and_then(Value::as_str))?;
        let mapped = match file.strip_prefix(&format!("{}/", s.cwd)) {
            Some(rest) if s.cwd.len() > 1 => project.join(rest).to_string_lossy().into_owned(),
            _ => file.to_string(),
        };
        let mut input = base("PreToolUse");
        input["tool_input"] = json!({"file_path": mapped});
        return Some((input, mapped));
    }
    if call.name == "Bash"
        && let Some((text, true)) = &call.result
    {
        let mut input = base("PostToolUseFailure");
        input["tool_input"] = call.input.clone();
        input["error"] = json!(text);
        let command = call
            .input
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or("");
        return Some((input, command.chars().take(200).collect()));
    }
    None
}

/// The items of the store that name a file of `target`'s name (any path): the history
/// a silent edit had.
fn history(dir: &Path, target: &str) -> Option<Vec<String>> {
    let name = Path::new(target)
        .file_name()?
        .to_string_lossy()
        .into_owned();
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        let facts = memory_stalker::search::actions::facts_of(&text, "");
        for m in facts.mentions.iter().filter(|m| m.name == name) {
            let line = format!(
                "{} [{:?} naming {}] {}",
                e.file_name().to_string_lossy(),
                m.kind,
                m.path,
                m.item
            );
            if !out.contains(&line) && out.len() < 5 {
                out.push(line);
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Saves a memory of each compaction segment of `s` and one of the whole session;
/// returns their file names (under `<work>/saved/<i>/`) with the time the segment ended,
/// in segment order.
fn save_segments(
    save_memory: &Path,
    work: &Path,
    state: &Path,
    i: usize,
    s: &Session,
) -> Vec<(String, String)> {
    let base = work.join("saved").join(i.to_string());
    let project = base.join("project");
    std::fs::create_dir_all(&project).expect("project");
    let mut cuts = s.cuts.clone();
    cuts.push(s.bytes.len());
    let mut names = Vec::new();
    for (k, cut) in cuts.iter().enumerate() {
        let copy = base
            .join(format!("segment-{k}"))
            .join(Path::new(&s.rel).file_name().unwrap_or_default());
        std::fs::create_dir_all(copy.parent().unwrap_or(&base)).expect("segment dir");
        std::fs::write(&copy, &s.bytes[..*cut]).expect("segment copy");
        let dir = project.join(".claude/memories");
        let before: Vec<String> = list(&dir);
        let status = Command::new(save_memory)
            .arg("--transcript")
            .arg(&copy)
            .arg("--project")
            .arg(&project)
            .env("MEMORY_STALKER_SUMMARIZER", "offline")
            .env("MEMORY_STALKER_ASYNC", "0")
            .env("MEMORY_STALKER_STEER", "0")
            .env("CLAUDE_PLUGIN_DATA", work.join("save-data"))
            .env("XDG_STATE_HOME", state)
            .env("HOME", work.join("home"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .expect("run save-memory");
        if !status.success() {
            continue;
        }
        if let Some(new) = list(&dir).into_iter().find(|n| !before.contains(n)) {
            // Kept apart, so that a later segment's save does not replace it.
            let kept = base.join(&new);
            let _ = std::fs::copy(dir.join(&new), &kept);
            names.push((new, s.ends.get(k).cloned().unwrap_or_default()));
        }
    }
    names
}

fn list(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md") && n != "INDEX.md")
        .collect()
}

/// A Claude Code main session with tool calls, read from `file`.
fn read_session(corpus: &str, dir: &Path, file: &Path) -> Option<Session> {
    let rel = file.strip_prefix(dir).ok()?.to_string_lossy().into_owned();
    let name = file.file_name()?.to_string_lossy().into_owned();
    if name.starts_with("agent-") || rel.contains("/subagents/") || name.starts_with("rollout-") {
        return None;
    }
    let bytes = std::fs::read(file).ok()?;
    let repo = rel.split('/').next()?.to_string();
    let mut calls: Vec<Call> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    let mut cuts = Vec::new();
    let mut id = None;
    let mut cwd = None;
    let mut offset = 0;
    let mut main = 0usize;
    let mut last_time = String::new();
    let mut ends = Vec::new();
    for line in bytes.split(|b| *b == b'\n') {
        let start = offset;
        offset += line.len() + 1;
        let Ok(r) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        if r.get("type").and_then(Value::as_str) == Some("session_meta") {
            return None; // a Codex rollout
        }
        if r.get("isSidechain").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        main += 1;
        if id.is_none() {
            id = r.get("sessionId").and_then(Value::as_str).map(String::from);
        }
        if cwd.is_none() {
            cwd = r.get("cwd").and_then(Value::as_str).map(String::from);
        }
        if r.get("type").and_then(Value::as_str) == Some("system")
            && r.get("subtype").and_then(Value::as_str) == Some("compact_boundary")
        {
            cuts.push(start);
            ends.push(last_time.clone());
            continue;
        }
        if let Some(t) = r.get("timestamp").and_then(Value::as_str) {
            last_time = t.to_string();
        }
        let Some(content) = r.pointer("/message/content").and_then(Value::as_array) else {
            continue;
        };
        for c in content {
            match c.get("type").and_then(Value::as_str) {
                Some("tool_use") => {
                    let tool_id = c
                        .get("id")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string();
                    at.insert(tool_id, calls.len());
                    calls.push(Call {
                        segment: cuts.len(),
                        time: last_time.clone(),
                        name: c
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                        input: c.get("input").cloned().unwrap_or(Value::Null),
                        result: None,
                    });
                }
                Some("tool_result") => {
                    let tool_id = c.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                    if let Some(&k) = at.get(tool_id) {
                        let text = match c.get("content") {
                            Some(Value::String(s)) => s.clone(),
                            Some(Value::Array(parts)) => parts
                                .iter()
                                .filter_map(|p| p.get("text").and_then(Value::as_str))
                                .collect::<Vec<_>>()
                                .join("\n"),
                            _ => String::new(),
                        };
                        let error = c.get("is_error").and_then(Value::as_bool) == Some(true);
                        calls[k].result = Some((text, error));
                    }
                }
                _ => {}
            }
        }
    }
    if main == 0 || calls.is_empty() {
        return None;
    }
    ends.push(last_time);
    Some(Session {
        corpus: corpus.to_string(),
        repo,
        rel,
        id: id.unwrap_or_else(|| name.trim_end_matches(".jsonl").to_string()),
        cwd: cwd.unwrap_or_default(),
        bytes,
        cuts,
        ends,
        calls,
    })
}

fn write_lines(path: &Path, rows: &[Value]) {
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(path, text).expect("write");
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}
