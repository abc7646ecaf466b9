//! `list-memories import` saves a past session's memories as the PreCompact hook would
//! have saved them (docs/design.md §7.11): for every real session of both corpora that
//! compacted, the memories an import writes are compared with those the save pipeline
//! writes when the transcript is replayed as it grew — cut at each compaction, then
//! whole — each carrying the one before it. Only the time, the trigger and the front
//! matter may differ.
//!
//! The corpora live beside the project (`../shared/`); without them this test passes
//! vacuously, except under `CI=true`, where it fails.

use std::fs;
use std::path::{Path, PathBuf};

use memory_stalker::Config;
use memory_stalker::import::{self, Options};
use memory_stalker::log::Log;
use memory_stalker::memory::Trigger;
use memory_stalker::pipeline::{SaveRequest, save_memory};
use memory_stalker::transcript::{Outline, outline};

use crate::corpus_support::{all_transcripts, corpus_dir, corpus2_dir};

#[test]
fn an_imported_memory_is_the_one_the_hook_would_have_saved() {
    let mut sessions = 0;
    let mut memories = 0;
    for dir in [corpus_dir(), corpus2_dir()].into_iter().flatten() {
        for path in all_transcripts(&dir) {
            let Ok(o) = outline(&path) else { continue };
            if o.sub_agent || o.compactions.is_empty() || o.cwd.is_none() {
                continue;
            }
            memories += compare(&path, &o);
            sessions += 1;
        }
    }
    eprintln!("{memories} memories of {sessions} sessions that compacted: the same");
    if corpus_dir().is_some() {
        assert!(sessions >= 8, "{sessions} sessions compared");
    }
}

/// Replays the session at `path` as the hook saw it and imports it; asserts that the
/// memories are the same. Returns how many were compared.
fn compare(path: &Path, original: &Outline) -> usize {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    let project = root.join("project");
    fs::create_dir_all(&project).unwrap();
    // The session's directory exists nowhere here: the copy names the project instead.
    let bytes = moved(
        &fs::read(path).unwrap(),
        original.cwd.as_deref().unwrap(),
        &project,
    );
    let transcript = match original.agent {
        memory_stalker::Agent::ClaudeCode => root.join("claude/projects/-project/s.jsonl"),
        memory_stalker::Agent::Codex => {
            root.join("codex/sessions/2026/01/01/rollout-2026-01-01T00-00-00-s.jsonl")
        }
    };
    fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    fs::write(&transcript, &bytes).unwrap();
    let config = config(root);
    let o = outline(&transcript).unwrap();

    // As the hook: the transcript as it was at each compaction, then whole.
    let mut cuts: Vec<u64> = o
        .compactions
        .iter()
        .map(|c| c.offset)
        .filter(|c| *c > 0)
        .collect();
    if o.goes_on {
        cuts.push(o.complete);
    }
    let log = Log::file_only(root.join("log"));
    for cut in &cuts {
        fs::write(&transcript, &bytes[..*cut as usize]).unwrap();
        let req = SaveRequest {
            transcript: transcript.clone(),
            project: project.clone(),
            session_id: o.session_id.clone(),
            trigger: Trigger::Auto,
            custom_instructions: None,
            prompt_id: None,
        };
        save_memory(&req, chrono::Local::now().fixed_offset(), &config, &log).unwrap();
    }
    let memories = project.join(".claude/memories");
    let by_hook = read_all(&memories);
    fs::rename(&memories, project.join("hook")).unwrap();

    // The import of the whole transcript.
    fs::write(&transcript, &bytes).unwrap();
    let options = Options {
        workers: 1,
        ..Options::default()
    };
    let report = import::run(&config, &options, &mut |_| {});
    assert!(report.failed.is_empty(), "{path:?}: {:?}", report.failed);
    let imported = read_all(&memories);
    assert_eq!(
        by_hook.len(),
        imported.len(),
        "{}: {:?}",
        path.display(),
        report
    );
    for ((b1, hook), (b2, import)) in by_hook.iter().zip(&imported) {
        assert_eq!(b1, b2, "{}: taken at the same place", path.display());
        assert_eq!(
            body(hook),
            body(import),
            "{} at {b1}: the import's memory differs from the hook's",
            path.display()
        );
    }
    by_hook.len()
}

fn config(root: &Path) -> Config {
    let env = [
        ("HOME", root.join("home")),
        ("CLAUDE_PLUGIN_DATA", root.join("data")),
        ("CLAUDE_CONFIG_DIR", root.join("claude")),
        ("CODEX_HOME", root.join("codex")),
        ("XDG_STATE_HOME", root.join("state")),
    ];
    Config::from_lookup(|k| {
        if k == "MEMORY_STALKER_SUMMARIZER" {
            return Some("offline".into());
        }
        env.iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string_lossy().into_owned())
    })
}

/// `bytes` with every JSON string that is `cwd`, or starts with `cwd/`, naming
/// `project` instead (as `scripts/import-corpora` lays the corpora out).
fn moved(bytes: &[u8], cwd: &str, project: &Path) -> Vec<u8> {
    let quoted = |s: &str| {
        let q = serde_json::to_string(s).unwrap();
        q[1..q.len() - 1].to_string()
    };
    let (from, to) = (quoted(cwd), quoted(&project.to_string_lossy()));
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    let mut rest: &str = &text;
    while let Some(at) = rest.find(&from) {
        let after = &rest[at + from.len()..];
        out.push_str(&rest[..at]);
        if after.starts_with(['"', '/', '\\']) {
            out.push_str(&to);
        } else {
            out.push_str(&from);
        }
        rest = after;
    }
    out.push_str(rest);
    out.into_bytes()
}

/// The memories of `dir` by the transcript size they were taken at.
fn read_all(dir: &Path) -> Vec<(u64, String)> {
    let mut out: Vec<(u64, String)> = fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect::<Vec<PathBuf>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.ends_with(".md") && n != "INDEX.md"
        })
        .map(|p| {
            let text = fs::read_to_string(&p).unwrap();
            let bytes = text
                .lines()
                .find_map(|l| l.strip_prefix("transcript_bytes: "))
                .unwrap()
                .parse()
                .unwrap();
            (bytes, text)
        })
        .collect();
    out.sort_by_key(|(b, _)| *b);
    out
}

/// A memory's body without what an import writes otherwise: its front matter, its
/// title's date, when it was saved and the trigger.
fn body(text: &str) -> String {
    let body = text.splitn(3, "---\n").nth(2).unwrap_or(text);
    body.lines()
        .filter(|l| {
            !l.starts_with("# Session memory — ")
                && !l.starts_with("- Saved at: ")
                && !l.starts_with("- Trigger: ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}
