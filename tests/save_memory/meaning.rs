//! What the memories of real sessions say the session meant, against the annotated set
//! (`tests/data/meaning/`, docs in its README).
//!
//! Each annotated session is replayed the way the hooks see it: the transcript grows to
//! just before each compaction boundary, where PreCompact saves a memory, SessionStart
//! gives the restore and PostCompact adds Claude Code's summary (the compaction record
//! after the boundary); then the whole transcript gets a final memory. So Session so far
//! carries from one memory to the next as it does in a real session. The summariser is
//! the offline one, unless the report is asked to measure a model (`MEANING_SUMMARIZER`,
//! [`Summarizer::from_env`]): then each memory's summary is that model's, written inside
//! the hook (`MEMORY_STALKER_ASYNC=0`) as the restore after it would find it once landed.
//!
//! - `meaning_report` (ignored; `scripts/meaning-report`) scores the final memory of each
//!   session per field (precision, recall) and the headlines, for the `dev`, `heldout`
//!   and `fresh` parts (the last annotated after three rounds of tuning, measured only),
//!   with the binary `SAVE_MEMORY` names (this build's by default), so
//!   two builds can be compared. `MEANING_SPLIT=dev` scores one part only (tuning looks
//!   at `dev` alone); `MEANING_VERBOSE=1` prints every line and item.
//! - `meaning_memories` snapshots what a memory says the session meant (headline,
//!   Session so far, AI summary) and the restore, for every annotated session.

use crate::meaning_score::{self as score, Field, Session, Totals};
use crate::support;
use crate::support::corpus::{corpus_dir, corpus2_dir};
use crate::support::replay::{ModelReplay, answers_dir};

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use memory_stalker::lang::Lang;
use memory_stalker::memory::Section;
use memory_stalker::memory::document::{FrontMatter, sections};
use memory_stalker::summary::facts::SessionFacts;
use memory_stalker::summary::labels::Labels;
use support::Sandbox;
use support::http::{FakeServer, Reply, anthropic_message};

/// The replay of one session: its memories in the order written, and each restore.
pub struct Replay {
    pub memories: Vec<String>,
    pub restores: Vec<String>,
}

/// The summariser a replay runs: the offline one, or a model the report measures.
pub struct Summarizer {
    /// `MEMORY_STALKER_SUMMARIZER`'s value.
    pub name: String,
    /// What that backend needs from the caller's environment (keys, base URLs, `PATH`).
    pub env: Vec<(String, String)>,
}

/// What a model backend may need from the environment of the one who runs the report:
/// the replay's own is a sandbox's (its `HOME` a temporary directory).
const MODEL_ENV: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "MEMORY_STALKER_MODEL",
    "MEMORY_STALKER_OPENAI_BASE_URL",
    "MEMORY_STALKER_OPENAI_API_KEY",
    "MEMORY_STALKER_TIMEOUT",
    "MEMORY_STALKER_MAX_CHARS",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "PATH",
];

impl Summarizer {
    /// The offline summariser (the snapshots', and the report's by default).
    pub fn offline() -> Summarizer {
        Summarizer {
            name: "offline".into(),
            env: Vec::new(),
        }
    }

    /// `MEANING_SUMMARIZER` (a `MEMORY_STALKER_SUMMARIZER` value: `anthropic`, `openai`,
    /// `claude-cli`, `codex-cli`) with [`MODEL_ENV`] from this environment; unset or
    /// `offline`: the offline one.
    pub fn from_env() -> Summarizer {
        match std::env::var("MEANING_SUMMARIZER") {
            Ok(name) if !name.trim().is_empty() && name.trim() != "offline" => {
                let mut env: Vec<(String, String)> = MODEL_ENV
                    .iter()
                    .filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v)))
                    .collect();
                // The CLIs' logins are under the caller's home, which the replay's is not.
                if let Ok(home) = std::env::var("HOME") {
                    for (key, dir) in [("CLAUDE_CONFIG_DIR", ".claude"), ("CODEX_HOME", ".codex")] {
                        if !env.iter().any(|(k, _)| k == key) {
                            env.push((key.into(), format!("{home}/{dir}")));
                        }
                    }
                }
                Summarizer {
                    name: name.trim().to_string(),
                    env,
                }
            }
            _ => Summarizer::offline(),
        }
    }

    fn is_model(&self) -> bool {
        self.name != "offline"
    }

    fn apply(&self, sb: &mut Sandbox) {
        sb.set("MEMORY_STALKER_SUMMARIZER", self.name.as_str());
        if self.is_model() {
            // The model's summary lands before the hook returns, so the next hook (the
            // restore, the next compaction's memory) reads it, as it would once landed.
            sb.set("MEMORY_STALKER_ASYNC", "0");
        }
        for (k, v) in &self.env {
            sb.set(k, v.as_str());
        }
    }
}

fn binary() -> String {
    std::env::var("SAVE_MEMORY").unwrap_or_else(|_| env!("CARGO_BIN_EXE_save-memory").into())
}

fn data_dir() -> PathBuf {
    support::repo_root().join("tests/data/meaning")
}

/// The main-chain session id of a transcript's records (a rollout's: its
/// `session_meta`'s).
fn session_id(lines: &[&str]) -> Option<String> {
    lines.iter().find_map(|l| {
        let v: serde_json::Value = serde_json::from_str(l).ok()?;
        if v["type"] == "session_meta" {
            return v["payload"]["id"].as_str().map(str::to_string);
        }
        if v["isSidechain"] == true {
            return None;
        }
        v["sessionId"].as_str().map(str::to_string)
    })
}

/// Whether a transcript is a Codex rollout (`{"timestamp","type","payload"}` lines).
fn is_rollout(lines: &[&str]) -> bool {
    lines
        .iter()
        .find(|l| l.trim_start().starts_with('{'))
        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .is_some_and(|v| v.get("payload").is_some())
}

/// The indexes of a rollout's compactions (its `compacted` records).
fn rollout_compactions(lines: &[&str]) -> Vec<(usize, String)> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains(r#""type":"compacted""#))
        .map(|(i, _)| (i, "auto".to_string()))
        .collect()
}

/// The indexes of the main-chain compaction boundaries, with their triggers.
fn boundaries(lines: &[&str]) -> Vec<(usize, String)> {
    lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            if !l.contains("compact_boundary") {
                return None;
            }
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            (v["type"] == "system"
                && v["subtype"] == "compact_boundary"
                && v["isSidechain"] != true)
                .then(|| {
                    let trigger = v["compactMetadata"]["trigger"].as_str().unwrap_or("auto");
                    (i, trigger.to_string())
                })
        })
        .collect()
}

/// The text of the first compaction summary record after line `from`.
fn compaction_summary(lines: &[&str], from: usize) -> Option<String> {
    lines[from..].iter().take(20).find_map(|l| {
        let v: serde_json::Value = serde_json::from_str(l).ok()?;
        if v["isCompactSummary"] != true {
            return None;
        }
        let content = &v["message"]["content"];
        content.as_str().map(str::to_string).or_else(|| {
            content.as_array().map(|blocks| {
                blocks
                    .iter()
                    .filter_map(|b| b["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        })
    })
}

/// Every string of a transcript's records, joined: where a headline's words are looked
/// up.
pub fn source_text(path: &Path) -> String {
    fn strings(v: &serde_json::Value, out: &mut String) {
        match v {
            serde_json::Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            serde_json::Value::Object(o) => o.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut out = String::new();
    for l in text.lines() {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(l) {
            strings(&v, &mut out);
        }
    }
    out
}

/// Waits, when the clock is still in second `last` (since the epoch), for the next one;
/// returns the second it is now.
fn next_second_after(last: Option<u64>) -> u64 {
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
    };
    let mut t = now();
    if last == Some(t.as_secs()) {
        std::thread::sleep(std::time::Duration::from_nanos(
            1_000_000_000 - u64::from(t.subsec_nanos()) + 1_000_000,
        ));
        t = now();
    }
    t.as_secs()
}

/// Sets a file's modification time 10 s back: PreCompact waits for a transcript written
/// in the last 250 ms to settle, which a replay need not.
fn age(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as libc::time_t;
    let times = [
        libc::timeval {
            tv_sec: now - 10,
            tv_usec: 0,
        },
        libc::timeval {
            tv_sec: now - 10,
            tv_usec: 0,
        },
    ];
    // SAFETY: `c` is a valid NUL-terminated path and `times` two initialised timevals.
    unsafe {
        libc::utimes(c.as_ptr(), times.as_ptr());
    }
}

/// Replays the session of the corpus file `transcript` with `bin` and `summarizer`.
pub fn replay(bin: &str, transcript: &Path, summarizer: &Summarizer) -> Replay {
    replay_in(bin, transcript, summarizer).0
}

/// [`replay`], and the sandbox's directory (what a snapshot leaves out). A Codex
/// rollout is replayed as Codex runs the hooks: PreCompact on the rollout before its
/// `compacted` record, then PostCompact and SessionStart(compact) once it is written.
fn replay_in(bin: &str, transcript: &Path, summarizer: &Summarizer) -> (Replay, PathBuf) {
    let mut sb = Sandbox::new();
    summarizer.apply(&mut sb);
    let text = std::fs::read_to_string(transcript).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let codex = is_rollout(&lines);
    let session = session_id(&lines).unwrap_or_else(|| "meaning-session".into());
    let path = if codex {
        let dir = sb.home().join(".codex/sessions/2026/06/29");
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(format!("rollout-2026-06-29T01-50-08-{session}.jsonl"))
    } else {
        let dir = sb.home().join(".claude/projects/-sandbox-project");
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(format!("{session}.jsonl"))
    };
    let project = sb.project();
    let run = |event: serde_json::Value| -> String {
        let out = sb.run(bin, &[], event.to_string().as_bytes());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let restore = |out: String| -> String {
        serde_json::from_str::<serde_json::Value>(&out)
            .ok()
            .and_then(|v| {
                v["hookSpecificOutput"]["additionalContext"]
                    .as_str()
                    .map(str::to_string)
            })
            .unwrap_or_default()
    };
    let mut base = serde_json::json!({
        "session_id": session,
        "transcript_path": path,
        "cwd": project,
    });
    if codex {
        base["model"] = "gpt-5.5".into();
    }
    let with = |extra: serde_json::Value| {
        let mut v = base.clone();
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        if codex && v["hook_event_name"] != "SessionStart" {
            v["turn_id"] = "0199c0de-7777-7000-8000-000000000001".into();
        }
        v
    };
    let write = |upto: usize| {
        let mut part = lines[..upto].join("\n");
        part.push('\n');
        std::fs::write(&path, part).unwrap();
        age(&path);
    };
    let mut restores = Vec::new();
    let mut cuts: Vec<(usize, String)> = if codex {
        rollout_compactions(&lines)
    } else {
        boundaries(&lines)
    };
    cuts.push((lines.len(), "manual".into()));
    let mut saved_in: Option<u64> = None;
    for (n, (cut, trigger)) in cuts.iter().enumerate() {
        write(*cut);
        // Each memory in a second of its own: two in one second get a `_2` name, whose
        // two more characters can move where the restore's size bound cuts it, and the
        // snapshots would then differ from run to run.
        next_second_after(saved_in);
        run(with(
            serde_json::json!({"hook_event_name": "PreCompact", "trigger": trigger}),
        ));
        // The second the save ended in: its memory's is that one or the one before.
        saved_in = Some(next_second_after(None));
        let last = n + 1 == cuts.len();
        if codex {
            // Codex writes `compacted` before PostCompact and the restore run.
            if !last {
                write(*cut + 1);
                run(with(serde_json::json!({
                    "hook_event_name": "PostCompact", "trigger": trigger,
                })));
            }
            restores.push(restore(run(with(
                serde_json::json!({"hook_event_name": "SessionStart", "source": "compact"}),
            ))));
            continue;
        }
        restores.push(restore(run(with(
            serde_json::json!({"hook_event_name": "SessionStart", "source": "compact"}),
        ))));
        // Claude Code's summary of this compaction, as PostCompact gets it.
        if !last && let Some(summary) = compaction_summary(&lines, *cut) {
            run(with(serde_json::json!({
                "hook_event_name": "PostCompact", "trigger": trigger, "compact_summary": summary,
            })));
        }
    }
    let mut memories: Vec<(u64, String, String)> = sb
        .memory_files()
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(sb.memories().join(&name)).unwrap();
            let ns = FrontMatter::parse_with_written_ns(&text)
                .and_then(|(_, ns, _)| ns)
                .unwrap_or(0);
            (ns, name, text)
        })
        .collect();
    memories.sort();
    let root = sb.root.path().to_path_buf();
    (
        Replay {
            memories: memories.into_iter().map(|(_, _, t)| t).collect(),
            restores,
        },
        root,
    )
}

/// The items of a `###` list of a memory's AI summary, placeholders `(…)` left out;
/// a decision's reason joined to it.
fn summary_list(memory: &str, heading: fn(&Labels) -> &'static str) -> Vec<String> {
    let Some(span) = sections(memory)
        .into_iter()
        .find(|s| s.section == Section::AiSummary)
    else {
        return Vec::new();
    };
    let heads: Vec<&str> = [Lang::En, Lang::Zh]
        .iter()
        .map(|l| heading(Labels::of(*l)))
        .collect();
    let mut out: Vec<String> = Vec::new();
    let mut inside = false;
    for line in memory[span.range].lines() {
        if let Some(h) = line.strip_prefix("### ") {
            inside = heads.contains(&h.trim());
            continue;
        }
        if !inside {
            continue;
        }
        if let Some(reason) = line.strip_prefix("  - ") {
            if let Some(last) = out.last_mut() {
                last.push_str(" — ");
                last.push_str(reason);
            }
        } else if let Some(item) = line.strip_prefix("- ") {
            let item = item.split_once("**: ").map_or(item, |(_, v)| v).trim();
            if !item.starts_with('(') && !item.starts_with('（') && !item.is_empty() {
                out.push(item.to_string());
            }
        }
    }
    out
}

/// The lines a memory gives for a field: its Session so far lists (the model-written
/// ones included) and its AI summary's.
pub fn lines_of(memory: &str, field: Field) -> Vec<String> {
    let f = SessionFacts::from_memory(memory);
    let mut lines: Vec<String> = match field {
        Field::Instructions => [f.constraints, f.model_preferences].concat(),
        Field::Decisions => [f.decisions, f.model_decisions].concat(),
        Field::Failed => [f.failed, f.model_failed].concat(),
        Field::Answers => f.answers,
        Field::Bash => f.context,
        Field::Hooks => f.requirements,
    };
    lines.extend(match field {
        Field::Instructions => summary_list(memory, |l| l.preferences),
        Field::Decisions => summary_list(memory, |l| l.key_decisions),
        Field::Failed => summary_list(memory, |l| l.failed_approaches),
        _ => Vec::new(),
    });
    let mut seen = std::collections::HashSet::new();
    lines.retain(|l| seen.insert(l.trim().to_lowercase()));
    lines
}

/// Who wrote a memory's summary: its front matter's `summary_source` (`offline`, or the
/// backend and model).
fn summary_source(memory: &str) -> String {
    FrontMatter::parse(memory)
        .map(|(fm, _)| fm.summary_source)
        .unwrap_or_else(|| "unreadable".into())
}

/// A memory's headline (the front matter's `summary`).
pub fn headline(memory: &str) -> String {
    FrontMatter::parse(memory)
        .map(|(fm, _)| fm.summary)
        .unwrap_or_default()
}

/// The annotated sessions, each with its transcript's path (in the first corpus or
/// the second, as its `corpus` says); `None` when the first corpus is missing.
fn sessions() -> Option<Vec<(Session, PathBuf)>> {
    let corpus = corpus_dir()?;
    let corpus2 = corpus2_dir();
    Some(
        score::load(&data_dir())
            .into_iter()
            .filter_map(|s| {
                let dir = if s.corpus == "corpus-2" {
                    corpus2.as_ref()?
                } else {
                    &corpus
                };
                let path = dir.join(&s.transcript);
                Some((s, path))
            })
            .collect(),
    )
}

/// A model's summary is measured as the memory gives it: replayed with a model (a real
/// HTTP server on 127.0.0.1 answering as the Messages API), an annotated session's final
/// memory has the model's headline and decision, and the score finds the decision the
/// offline summary misses.
#[test]
fn a_models_summary_is_scored_where_the_memory_gives_it() {
    let Some(all) = sessions() else {
        return;
    };
    let (session, path) = all
        .iter()
        .find(|(s, _)| s.name == "drmaciver-multiply-numbers")
        .expect("the annotated session");
    let summary = serde_json::json!({
        "headline": "multiply_numbers added with a test; generated files kept out of git",
        "task_summary": ["Added multiply_numbers(a, b) and its test"],
        "code_changes": [{"file": "src/main.py", "action": "modified", "note": "multiply_numbers"}],
        "key_decisions": [{
            "decision": "Generated files (.coverage, __pycache__) go in .gitignore",
            "reason": "they are build output, not source",
        }],
        "user_preferences": [],
        "follow_ups": [],
    })
    .to_string();
    let server = FakeServer::start(move |_, _| Reply::json(200, anthropic_message(&summary)));
    let model = Summarizer {
        name: "anthropic".into(),
        env: vec![
            ("ANTHROPIC_API_KEY".into(), "sk-ant-test".into()),
            ("ANTHROPIC_BASE_URL".into(), server.url.clone()),
        ],
    };
    let bin = binary();

    let offline = replay(&bin, path, &Summarizer::offline());
    let with_model = replay(&bin, path, &model);

    // One summary asked for each memory, each written by the model.
    assert_eq!(server.count(), with_model.memories.len());
    let last = with_model.memories.last().expect("a memory");
    assert!(
        summary_source(last).starts_with("anthropic"),
        "{}",
        summary_source(last)
    );
    assert_eq!(
        headline(last),
        "multiply_numbers added with a test; generated files kept out of git"
    );
    let decisions = |memory: &str| {
        score::score(
            session,
            Field::Decisions,
            &lines_of(memory, Field::Decisions),
        )
    };
    let before = decisions(offline.memories.last().expect("a memory"));
    let after = decisions(last);
    assert_eq!((before.found, after.found), (0, 1), "{before:?} {after:?}");
    assert_eq!(after.right, after.extracted, "{after:?}");
}

/// The parts of the annotated set, in the report's order: the first corpus's dev,
/// held-out and fresh parts, then the second corpus's (`dev2`, `heldout2`: sessions of
/// other people and of Codex, annotated blind; `heldout2` is never read while tuning).
const SPLITS: [&str; 5] = ["dev", "heldout", "fresh", "dev2", "heldout2"];

/// One summariser's scores over the annotated sessions' final memories.
#[derive(Default)]
struct Scored {
    totals: Totals,
    /// Per split: (final acceptable, finals, every acceptable, every memory, mid-word cuts).
    heads: std::collections::HashMap<String, [usize; 5]>,
    /// (split, session, final headline, why it is or is not acceptable).
    headlines: Vec<(String, String, String, &'static str)>,
    /// Memories by who wrote their summary ("offline", or the model's `summary_source`).
    sources: std::collections::BTreeMap<String, usize>,
    /// What `MEANING_VERBOSE=1` prints: every line and missed item.
    verbose: String,
}

/// Replays every session of `splits` with `summarizer` and scores its final memory.
fn score_sessions(
    all: &[(Session, PathBuf)],
    splits: &[&str],
    bin: &str,
    summarizer: &Summarizer,
    verbose: bool,
) -> Scored {
    let mut out = Scored::default();
    for (s, path) in all
        .iter()
        .filter(|(s, _)| splits.contains(&s.split.as_str()))
    {
        let r = replay(bin, path, summarizer);
        for m in &r.memories {
            *out.sources.entry(summary_source(m)).or_default() += 1;
        }
        let Some(last) = r.memories.last() else {
            let _ = writeln!(out.verbose, "{}: no memory was written", s.name);
            continue;
        };
        let source = source_text(path);
        let v = &mut out.verbose;
        if verbose {
            let _ = writeln!(v, "\n## {} (reference headline: {})", s.name, s.headline);
            let _ = writeln!(
                v,
                "restore after the final memory:\n{}",
                r.restores.last().map_or("", |x| x)
            );
        }
        let h = out.heads.entry(s.split.clone()).or_default();
        for (n, m) in r.memories.iter().enumerate() {
            let check = score::check_headline(&headline(m), s, &source);
            if verbose {
                let _ = writeln!(
                    v,
                    "headline of memory {} of {}: {} ({})",
                    n + 1,
                    r.memories.len(),
                    headline(m),
                    if check.acceptable() {
                        "acceptable"
                    } else {
                        "not acceptable"
                    }
                );
            }
            h[2] += usize::from(check.acceptable());
            h[3] += 1;
            h[4] += usize::from(check.cut_mid_word);
            if n + 1 == r.memories.len() {
                h[0] += usize::from(check.acceptable());
                h[1] += 1;
                let why = match (check.on_topic, check.cut_mid_word, check.fits) {
                    (_, true, _) => "no: cut mid-word",
                    (false, _, _) => "no: off topic",
                    (_, _, false) => "no: too long",
                    _ => "yes",
                };
                out.headlines
                    .push((s.split.clone(), s.name.clone(), headline(m), why));
            }
        }
        for field in Field::ALL {
            let lines = lines_of(last, field);
            let sc = score::score(s, field, &lines);
            out.totals.add(&s.split, field, sc);
            if verbose && (!lines.is_empty() || sc.items > 0) {
                let _ = writeln!(v, "{} · {} · {:?}", s.name, field.name(), sc);
                for l in &lines {
                    let ok = s.items(field).iter().any(|i| score::matches(l, &i.terms));
                    let also = s
                        .also_acceptable
                        .iter()
                        .any(|i| score::matches(l, &i.terms));
                    let mark = if ok {
                        "+"
                    } else if also {
                        "~"
                    } else {
                        "-"
                    };
                    let _ = writeln!(v, "    {mark} {l}");
                }
                for i in s.items(field) {
                    if !lines.iter().any(|l| score::matches(l, &i.terms)) {
                        let _ = writeln!(v, "    missed: {}", i.text);
                    }
                }
            }
        }
    }
    out
}

/// The two summarisers' tables side by side: per split and field, precision and recall
/// of the final memories; the headlines' acceptance; each session's final headline.
fn side_by_side(splits: &[&str], offline: &Scored, model: &Scored) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| split | field | offline precision | offline recall | model precision | model recall |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for split in splits {
        for field in Field::ALL {
            let (a, b) = (
                offline.totals.get(split, field),
                model.totals.get(split, field),
            );
            let traps = |t: usize| {
                if field == Field::Instructions && t > 0 {
                    format!(" ({t} traps)")
                } else {
                    String::new()
                }
            };
            let _ = writeln!(
                out,
                "| {split} | {} | {}{} | {} | {}{} | {} |",
                field.name(),
                score::rate(a.right, a.extracted),
                traps(a.traps),
                score::rate(a.found, a.items),
                score::rate(b.right, b.extracted),
                traps(b.traps),
                score::rate(b.found, b.items),
            );
        }
    }
    let _ = writeln!(
        out,
        "\n| split | headline acceptable, final memory: offline | model | every memory: offline | model | cut mid-word: offline | model |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for split in splits {
        let a = offline.heads.get(*split).copied().unwrap_or_default();
        let b = model.heads.get(*split).copied().unwrap_or_default();
        let _ = writeln!(
            out,
            "| {split} | {} | {} | {} | {} | {} | {} |",
            score::rate(a[0], a[1]),
            score::rate(b[0], b[1]),
            score::rate(a[2], a[3]),
            score::rate(b[2], b[3]),
            a[4],
            b[4]
        );
    }
    let _ = writeln!(
        out,
        "\n| split | session | offline headline | acceptable | model headline | acceptable |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for (a, b) in offline.headlines.iter().zip(&model.headlines) {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            a.0,
            a.1,
            a.2.replace('|', "\\|"),
            a.3,
            b.2.replace('|', "\\|"),
            b.3
        );
    }
    out
}

/// Who wrote the memories' summaries, counted.
fn sources_line(scored: &Scored) -> String {
    let written: Vec<String> = scored
        .sources
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    written.join(", ")
}

/// The meaning report (`scripts/meaning-report`, and CI): the offline summary and the
/// model's side by side on every annotated session. The model is the recorded answers of
/// `tests/data/model-answers/meaning/`, replayed by a Messages API on 127.0.0.1, unless
/// `MEANING_SUMMARIZER` names a live backend. A prompt with no recorded answer fails the
/// report by its key (the prompt is written under `target/model-prompts/meaning/` to be
/// answered and recorded, docs/testing.md): a replay never falls back to offline unseen.
/// The replayed report is a snapshot, so a change to any figure is read before it lands.
#[test]
fn meaning_report() {
    let Some(all) = sessions() else {
        return;
    };
    let bin = binary();
    let only = std::env::var("MEANING_SPLIT").ok();
    let verbose = std::env::var("MEANING_VERBOSE").is_ok_and(|v| v == "1");
    let splits: Vec<&str> = SPLITS
        .into_iter()
        .filter(|s| only.as_deref().is_none_or(|o| o == *s))
        .collect();
    let live = Summarizer::from_env();
    let replay_server = (!live.is_model()).then(|| replayed_model().0);
    let model = match &replay_server {
        Some(r) => Summarizer {
            name: "anthropic".into(),
            env: r.env(),
        },
        None => live,
    };
    let (offline, with_model) = std::thread::scope(|t| {
        let offline =
            t.spawn(|| score_sessions(&all, &splits, &bin, &Summarizer::offline(), verbose));
        let with_model = score_sessions(&all, &splits, &bin, &model, verbose);
        (offline.join().unwrap(), with_model)
    });
    if verbose {
        println!(
            "# offline\n{}\n# model\n{}",
            offline.verbose, with_model.verbose
        );
    }
    let mut report = String::new();
    let _ = writeln!(
        report,
        "offline: memories by who wrote their summary: {}",
        sources_line(&offline)
    );
    let _ = writeln!(
        report,
        "model ({}): memories by who wrote their summary: {}\n",
        if let Some(r) = &replay_server {
            format!(
                "recorded answers, tests/data/model-answers/meaning/, replayed: {} answered, {} missing",
                r.answered(),
                r.misses().len()
            )
        } else {
            format!("{}, live", model.name)
        },
        sources_line(&with_model)
    );
    report.push_str(&side_by_side(&splits, &offline, &with_model));
    println!("\nmeaning report: {bin}\n{report}");
    if let Some(r) = &replay_server {
        let misses = r.misses();
        assert!(
            misses.is_empty(),
            "{} prompts have no recorded answer: {} — each is in target/model-prompts/meaning/<key>.txt; \
             record an answer for each (docs/testing.md, \"The model path\") into tests/data/model-answers/meaning/",
            misses.len(),
            misses.join(", ")
        );
        if only.is_none() && std::env::var_os("SAVE_MEMORY").is_none() {
            insta::assert_snapshot!("meaning_report", report);
        }
    }
}

/// Run-dependent parts of a memory or restore (memory names with the time of saving,
/// the sandbox's directory) replaced, so a snapshot repeats.
fn stable(text: &str, root: &Path) -> String {
    unnamed(&text.replace(&root.to_string_lossy().into_owned(), "<tmp>"))
}

/// Memory names with the time they were saved set aside (`YYYYMMDD_HHMMSS_<id>.md`).
fn unnamed(text: &str) -> String {
    let name = regex::Regex::new(r"\b\d{8}_\d{6}_([A-Za-z0-9-]{1,8})(_\d+)?\.md").unwrap();
    name.replace_all(text, "YYYYMMDD_HHMMSS_$1.md").into_owned()
}

/// What a memory says the session meant: its headline, Session so far and AI summary
/// sections.
fn meaning_of(memory: &str) -> String {
    let mut out = format!("headline: {}\n\n", headline(memory));
    for span in sections(memory) {
        if matches!(span.section, Section::Session | Section::AiSummary) {
            out.push_str(
                memory[span.range]
                    .trim_end()
                    .trim_end_matches("---")
                    .trim_end(),
            );
            out.push_str("\n\n");
        }
    }
    out
}

/// What every annotated session's memories say it meant, and the restore after its last
/// compaction (its final memory's), read by eye: insta snapshots.
#[test]
fn meaning_memories() {
    let Some(all) = sessions() else {
        return;
    };
    let bin = binary();
    // Every annotated session, dev and held out (the held-out ones were made once
    // tuning on the dev part was over).
    for (s, path) in &all {
        let text = memories_read_by_eye(&bin, s, path, &Summarizer::offline());
        insta::with_settings!({ snapshot_suffix => s.name.clone(), prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!("meaning", text);
        });
    }
}

/// The same for the memories most users get, a model's summary in them: every session of
/// the second corpus (the sessions nobody tuned on), its model replayed from the recorded
/// answers. A prompt with no answer fails here too, by its key.
#[test]
fn meaning_memories_with_model() {
    let Some(all) = sessions() else {
        return;
    };
    let (replay, model) = replayed_model();
    let bin = binary();
    for (s, path) in all.iter().filter(|(s, _)| s.corpus == "corpus-2") {
        let text = memories_read_by_eye(&bin, s, path, &model);
        insta::with_settings!({ snapshot_suffix => s.name.clone(), prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!("meaning-model", text);
        });
    }
    assert!(
        replay.misses().is_empty(),
        "prompts with no recorded answer: {}",
        replay.misses().join(", ")
    );
}

/// A session's memories as a person reads them: each memory's headline, then the final
/// memory's meaning (headline, Session so far, AI summary) and the restore after it.
fn memories_read_by_eye(bin: &str, s: &Session, path: &Path, summarizer: &Summarizer) -> String {
    let (r, root) = replay_in(bin, path, summarizer);
    let mut text = format!(
        "{} ({}), {} memories; reference headline: {}\n\n",
        s.name,
        s.split,
        r.memories.len(),
        s.headline
    );
    for (n, m) in r.memories.iter().enumerate() {
        if n + 1 < r.memories.len() {
            let _ = writeln!(text, "memory {}: {}", n + 1, headline(m));
        }
    }
    if let Some(last) = r.memories.last() {
        let _ = write!(
            text,
            "\n======== the final memory ========\n\n{}",
            meaning_of(last)
        );
    }
    let restore = r.restores.last().map_or("", String::as_str);
    let _ = write!(
        text,
        "======== its restore (SessionStart compact) ========\n\n{restore}\n"
    );
    stable(&text, &root)
}

/// Records the prompts the model path sends for every main session of the second
/// corpus, annotated or not yet (`cargo test … record_corpus2_prompts -- --ignored`): the
/// prompts with no answer land in `target/model-prompts/meaning/` to be answered before
/// the annotations that need them are written.
#[test]
#[ignore = "records prompts for answering; docs/testing.md, \"The model path\""]
fn record_corpus2_prompts() {
    let Some(dir) = corpus2_dir() else {
        return;
    };
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("../manifest.json")).unwrap())
            .unwrap();
    let (r, model) = replayed_model();
    let bin = binary();
    for entry in manifest.as_array().unwrap() {
        if entry["subagent"] == true {
            continue;
        }
        let local = entry["local"].as_str().unwrap();
        let path = dir.join(local.trim_start_matches("transcripts/"));
        let replayed = replay(&bin, &path, &model);
        println!("{local}: {} memories", replayed.memories.len());
    }
    println!(
        "{} answered, {} without an answer: {}",
        r.answered(),
        r.misses().len(),
        r.misses().join(" ")
    );
}

/// The replay keys a prompt as `../shared/model-answers/standin.py` does, so answers
/// recorded either way replay.
#[test]
fn the_replay_sets_the_nonce_aside_as_the_stand_in_does() {
    use crate::support::replay::{key_of, normalized};
    assert_eq!(
        normalized("<session-data-a1B2>x</session-data-a1B2> session-data-"),
        "<session-data-NONCE>x</session-data-NONCE> session-data-"
    );
    assert_eq!(key_of("<session-data-zz>"), key_of("<session-data-q9>"));
    assert_ne!(key_of("a"), key_of("b"));
    // The stand-in's key of the empty prompt: sha256("")[:16].
    assert_eq!(key_of(""), "e3b0c44298fc1c14");
}

/// The agent's own summary of the compaction at line index `cut`: Claude Code's
/// compaction summary record after the boundary, or a rollout's `compacted` message
/// (its replacement history's last user message when the message is empty, as remote
/// compaction leaves it).
fn agents_summary(lines: &[&str], cut: usize, codex: bool) -> String {
    if !codex {
        return compaction_summary(lines, cut).unwrap_or_default();
    }
    let Ok(v) = serde_json::from_str::<serde_json::Value>(lines[cut]) else {
        return String::new();
    };
    let message = v["payload"]["message"].as_str().unwrap_or_default();
    if !message.trim().is_empty() {
        return message.to_string();
    }
    v["payload"]["replacement_history"]
        .as_array()
        .and_then(|h| {
            h.iter()
                .rev()
                .find(|m| m["role"] == "user")
                .and_then(|m| m["content"].as_array())
        })
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// One session's compactions as annotated: the transcript and, per compaction, what the
/// next segment used (from a meaning annotation or `tests/data/continuity/`).
struct Compacted {
    name: String,
    path: PathBuf,
    compactions: Vec<score::CompactionUse>,
}

/// Every annotated real compaction of both corpora.
fn compacted_sessions() -> Option<Vec<Compacted>> {
    let mut out: Vec<Compacted> = sessions()?
        .into_iter()
        .filter(|(s, _)| !s.compactions.is_empty())
        .map(|(s, path)| Compacted {
            name: s.name,
            path,
            compactions: s.compactions,
        })
        .collect();
    #[derive(serde::Deserialize)]
    struct File {
        #[serde(default)]
        corpus: String,
        transcript: String,
        compactions: Vec<score::CompactionUse>,
    }
    let dir = support::repo_root().join("tests/data/continuity");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "json"));
    files.sort();
    for p in files {
        let f: File = serde_json::from_str(&std::fs::read_to_string(&p).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let base = if f.corpus == "corpus-2" {
            corpus2_dir()?
        } else {
            corpus_dir()?
        };
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        if out.iter().any(|c| c.name == name) {
            continue;
        }
        out.push(Compacted {
            name,
            path: base.join(&f.transcript),
            compactions: f.compactions,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Some(out)
}

/// Found / used, per kind of fact: the agent's summary alone, then with our restore.
#[derive(Default, Clone, Copy)]
struct Kept {
    used: usize,
    in_summary: usize,
    with_restore: usize,
}

/// Continuity on real compactions (the product's headline figure; docs/performance.md
/// "Continuity on real compactions"): for every annotated compaction of both corpora,
/// what the segment after it used from before it — files, commands, tasks, decisions,
/// answers — and the share found in the agent's own compaction summary alone, and in
/// that summary plus our restore (as the hook gives it, at its size bound), with the
/// offline summary and with the model's (replayed). A snapshot: a change is read.
#[test]
fn continuity_on_real_compactions() {
    let Some(all) = compacted_sessions() else {
        return;
    };
    let bin = binary();
    let (r, model) = replayed_model();
    const KINDS: [&str; 5] = ["file", "command", "task", "decision", "answer"];
    // Per kind: offline restore, model restore (the summary-alone column is shared).
    let mut offline: std::collections::BTreeMap<&str, Kept> = Default::default();
    let mut with_model: std::collections::BTreeMap<&str, Kept> = Default::default();
    let mut rows = String::new();
    let mut sizes: Vec<usize> = Vec::new();
    for c in &all {
        let text = std::fs::read_to_string(&c.path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let codex = is_rollout(&lines);
        let cuts: Vec<usize> = if codex {
            rollout_compactions(&lines)
        } else {
            boundaries(&lines)
        }
        .into_iter()
        .map(|(i, _)| i)
        .collect();
        let (a, b) = std::thread::scope(|t| {
            let a = t.spawn(|| replay(&bin, &c.path, &Summarizer::offline()));
            (a.join().unwrap(), replay(&bin, &c.path, &model))
        });
        for comp in &c.compactions {
            let Some(n) = cuts.iter().position(|&i| i + 1 == comp.line) else {
                panic!("{}: no compaction at line {}", c.name, comp.line);
            };
            let summary = agents_summary(&lines, cuts[n], codex);
            // Memory names carry the second they were saved in (and `_2` when two share
            // it): set aside, so sizes repeat from run to run.
            let restore_a = unnamed(&a.restores.get(n).cloned().unwrap_or_default());
            let restore_b = unnamed(&b.restores.get(n).cloned().unwrap_or_default());
            sizes.push(restore_a.chars().count());
            let mut found = [0usize; 3];
            for u in &comp.used_after {
                let kind = KINDS
                    .iter()
                    .find(|k| **k == u.kind)
                    .copied()
                    .unwrap_or("decision");
                let s = score::matches(&summary, &u.terms);
                let with_a = s || score::matches(&restore_a, &u.terms);
                let with_b = s || score::matches(&restore_b, &u.terms);
                for (table, with) in [(&mut offline, with_a), (&mut with_model, with_b)] {
                    let k = table.entry(kind).or_default();
                    k.used += 1;
                    k.in_summary += usize::from(s);
                    k.with_restore += usize::from(with);
                }
                found[0] += usize::from(s);
                found[1] += usize::from(with_a);
                found[2] += usize::from(with_b);
            }
            let _ = writeln!(
                rows,
                "| {} | {} | {} | {} | {} | {} | {} |",
                c.name,
                comp.line,
                comp.used_after.len(),
                if summary.trim().is_empty() {
                    "(empty)".to_string()
                } else {
                    found[0].to_string()
                },
                found[1],
                found[2],
                restore_a.chars().count()
            );
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} real compactions in {} sessions; restore sizes {}–{} characters\n",
        sizes.len(),
        all.len(),
        sizes.iter().min().unwrap_or(&0),
        sizes.iter().max().unwrap_or(&0)
    );
    let _ = writeln!(
        out,
        "| kind | used after | in the agent's summary alone | summary + restore (offline) | summary + restore (model) |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|");
    let mut total = (Kept::default(), 0usize);
    for kind in KINDS {
        let a = offline.get(kind).copied().unwrap_or_default();
        let b = with_model.get(kind).copied().unwrap_or_default();
        total.0.used += a.used;
        total.0.in_summary += a.in_summary;
        total.0.with_restore += a.with_restore;
        total.1 += b.with_restore;
        let _ = writeln!(
            out,
            "| {kind} | {} | {} | {} | {} |",
            a.used,
            score::rate(a.in_summary, a.used),
            score::rate(a.with_restore, a.used),
            score::rate(b.with_restore, b.used)
        );
    }
    let _ = writeln!(
        out,
        "| all | {} | {} | {} | {} |",
        total.0.used,
        score::rate(total.0.in_summary, total.0.used),
        score::rate(total.0.with_restore, total.0.used),
        score::rate(total.1, total.0.used)
    );
    let _ = writeln!(
        out,
        "\n| session | compaction at line | facts used after | in summary | + restore (offline) | + restore (model) | restore characters |\n|---|---|---|---|---|---|---|"
    );
    out.push_str(&rows);
    println!("\ncontinuity on real compactions\n{out}");
    assert!(
        r.misses().is_empty(),
        "prompts without a recorded answer: {}",
        r.misses().join(", ")
    );
    if std::env::var_os("SAVE_MEMORY").is_none() {
        insta::assert_snapshot!("continuity_real", out);
    }
}

/// The recorded answers of `tests/data/model-answers/meaning/`, served on 127.0.0.1, and
/// the summariser that asks them (prompts without an answer recorded for re-recording).
fn replayed_model() -> (ModelReplay, Summarizer) {
    let repo = support::repo_root();
    let r = ModelReplay::start(
        vec![answers_dir(&repo, "meaning")],
        repo.join("target/model-prompts/meaning"),
    );
    let model = Summarizer {
        name: "anthropic".into(),
        env: r.env(),
    };
    (r, model)
}
