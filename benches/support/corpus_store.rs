//! A store of real memories for the benchmarks: the corpus sessions
//! (`../shared/corpus/transcripts/`), saved by the release `save-memory` as the hook
//! would, one memory per compaction segment (a copy of the transcript cut at each
//! `compact_boundary`, then the whole file), sub-agent transcripts as sessions of their
//! own. Claude Code's own machinery is left out: the compaction agent
//! (`agent-acompact-*`) and the prompt-suggestion agent (`agent-aprompt_suggestion-*`)
//! are no session anyone worked in.

// Each benchmark reads part of the store.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where each memory came from: its file name → the corpus transcript (relative path),
/// and its session id.
pub struct Store {
    pub dir: PathBuf,
    pub project: PathBuf,
    pub memories: HashMap<String, (String, String)>,
    pub sessions: usize,
    /// Memories by who wrote their summary (`summary_source`: `offline`, or a model's).
    pub summaries: std::collections::BTreeMap<String, usize>,
}

/// Saves the memories of every session of the corpus into a new store under `work`, with
/// the offline summary.
pub fn build_store(corpus: &Path, work: &Path, save_memory: &Path) -> Store {
    build_store_with(corpus, work, save_memory, "offline")
}

/// [`build_store`] with the summariser `summarizer` (a `MEMORY_STALKER_SUMMARIZER`
/// value). A model's summary is written before `save-memory` returns, from the backend's
/// variables in this process's environment (`HOME` is the store's own).
pub fn build_store_with(corpus: &Path, work: &Path, save_memory: &Path, summarizer: &str) -> Store {
    build_store_env(corpus, work, save_memory, summarizer, &[])
}

/// [`build_store_with`], each `save-memory` run with `env` added (a replayed model's
/// base URL and key).
pub fn build_store_env(
    corpus: &Path,
    work: &Path,
    save_memory: &Path,
    summarizer: &str,
    env: &[(String, String)],
) -> Store {
    let reuse = std::env::var_os("RETRIEVAL_REUSE_STORE").is_some();
    if !reuse {
        let _ = std::fs::remove_dir_all(work);
    }
    let project = work.join("project");
    let copies = work.join("segments");
    std::fs::create_dir_all(&project).expect("work dir");
    let mut transcripts = Vec::new();
    collect(corpus, &mut transcripts);
    transcripts.sort();
    let mut by_copy: HashMap<PathBuf, String> = HashMap::new();
    let mut n = 0;
    for t in &transcripts {
        let rel = t
            .strip_prefix(corpus)
            .unwrap_or(t)
            .to_string_lossy()
            .into_owned();
        let name = t
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if name.starts_with("agent-acompact") || name.starts_with("agent-aprompt_suggestion") {
            continue;
        }
        let bytes = std::fs::read(t).expect("read transcript");
        if bytes.is_empty() {
            continue;
        }
        // A memory at each compaction (the transcript as it was when it came), then one
        // of the whole file.
        let mut cuts = boundaries(&bytes);
        cuts.push(bytes.len());
        for cut in cuts {
            n += 1;
            let dir = copies.join(n.to_string());
            let copy = dir.join(&name);
            by_copy.insert(copy.clone(), rel.clone());
            if reuse {
                continue;
            }
            std::fs::create_dir_all(&dir).expect("segment dir");
            std::fs::write(&copy, &bytes[..cut]).expect("segment copy");
            let mut save = Command::new(save_memory);
            // A model's CLI finds its login under the caller's home, which the store's is
            // not.
            if summarizer != "offline"
                && let Some(home) = std::env::var_os("HOME")
            {
                let home = PathBuf::from(home);
                for (key, dir) in [("CLAUDE_CONFIG_DIR", ".claude"), ("CODEX_HOME", ".codex")] {
                    if std::env::var_os(key).is_none() {
                        save.env(key, home.join(dir));
                    }
                }
            }
            save.envs(env.iter().map(|(k, v)| (k, v)));
            let status = save
                .arg("--transcript")
                .arg(&copy)
                .arg("--project")
                .arg(&project)
                .env("MEMORY_STALKER_SUMMARIZER", summarizer)
                .env("MEMORY_STALKER_ASYNC", "0")
                .env("MEMORY_STALKER_STEER", "0")
                // A replay refuses a prompt it has no answer for, and three refusals in a
                // row would open the circuit breaker for the rest of the store, hiding
                // the prompts after them: each save of a replayed store has its own.
                .env(
                    "CLAUDE_PLUGIN_DATA",
                    if env.is_empty() {
                        work.join("data")
                    } else {
                        work.join("data").join(n.to_string())
                    },
                )
                .env("HOME", work.join("home"))
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .expect("run save-memory");
            assert!(status.success(), "save-memory failed on {rel}");
        }
    }
    read_store(work, project, &by_copy)
}

/// The store's memories, each named by the transcript (relative to the corpus) it was
/// saved from.
fn read_store(work: &Path, project: PathBuf, by_copy: &HashMap<PathBuf, String>) -> Store {
    let dir = project.join(".claude/memories");
    let mut memories = HashMap::new();
    let mut sessions = std::collections::HashSet::new();
    let mut summaries = std::collections::BTreeMap::new();
    for e in std::fs::read_dir(&dir).expect("memories").flatten() {
        let file = e.file_name().to_string_lossy().into_owned();
        if !file.ends_with(".md") || file == "INDEX.md" {
            continue;
        }
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        let field = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| serde_json::from_str::<String>(v.trim()).ok())
                .unwrap_or_default()
        };
        let transcript = PathBuf::from(field("transcript: "));
        let Some(rel) = by_copy.get(&transcript) else {
            continue;
        };
        let session = field("session_id: ");
        sessions.insert(session.clone());
        *summaries.entry(field("summary_source: ")).or_default() += 1;
        memories.insert(file, (rel.clone(), session));
    }
    write_map(work, &memories);
    Store {
        dir,
        project,
        memories,
        sessions: sessions.len(),
        summaries,
    }
}

/// Which transcript each memory came from (`<work>/memories.json`), for scoring searches
/// made outside this benchmark (the agentic measurement, scripts/agentic-score).
fn write_map(work: &Path, memories: &HashMap<String, (String, String)>) {
    let map: std::collections::BTreeMap<&String, &String> =
        memories.iter().map(|(f, (t, _))| (f, t)).collect();
    let _ = std::fs::write(
        work.join("memories.json"),
        serde_json::to_string_pretty(&map).unwrap_or_default(),
    );
}

/// Every `.jsonl` file under `dir`, depth first.
pub fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

/// Byte offsets of the main-chain `compact_boundary` records: where the transcript was
/// when each compaction came.
fn boundaries(bytes: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(line)
            && v["type"] == "system"
            && v["subtype"] == "compact_boundary"
            && v["isSidechain"] != true
            && at > 0
        {
            out.push(at);
        }
        at += line.len();
    }
    out
}
