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
use crate::support::corpus::corpus_dir;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use memory_stalker::lang::Lang;
use memory_stalker::memory::Section;
use memory_stalker::memory::document::{FrontMatter, sections};
use memory_stalker::memory::labels::Labels;
use memory_stalker::summary::facts::SessionFacts;
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

/// The main-chain session id of a transcript's records.
fn session_id(lines: &[&str]) -> Option<String> {
    lines.iter().find_map(|l| {
        let v: serde_json::Value = serde_json::from_str(l).ok()?;
        if v["isSidechain"] == true {
            return None;
        }
        v["sessionId"].as_str().map(str::to_string)
    })
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

/// [`replay`], and the sandbox's directory (what a snapshot leaves out).
fn replay_in(bin: &str, transcript: &Path, summarizer: &Summarizer) -> (Replay, PathBuf) {
    let mut sb = Sandbox::new();
    summarizer.apply(&mut sb);
    let text = std::fs::read_to_string(transcript).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let session = session_id(&lines).unwrap_or_else(|| "meaning-session".into());
    let dir = sb.home().join(".claude/projects/-sandbox-project");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{session}.jsonl"));
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
    let base = serde_json::json!({
        "session_id": session,
        "transcript_path": path,
        "cwd": project,
    });
    let with = |extra: serde_json::Value| {
        let mut v = base.clone();
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    };
    let mut restores = Vec::new();
    let mut cuts: Vec<(usize, String)> = boundaries(&lines);
    cuts.push((lines.len(), "manual".into()));
    for (n, (cut, trigger)) in cuts.iter().enumerate() {
        let mut part = lines[..*cut].join("\n");
        part.push('\n');
        std::fs::write(&path, part).unwrap();
        age(&path);
        run(with(
            serde_json::json!({"hook_event_name": "PreCompact", "trigger": trigger}),
        ));
        restores.push(restore(run(with(
            serde_json::json!({"hook_event_name": "SessionStart", "source": "compact"}),
        ))));
        // Claude Code's summary of this compaction, as PostCompact gets it.
        if n + 1 < cuts.len()
            && let Some(summary) = compaction_summary(&lines, *cut)
        {
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

fn sessions() -> Option<(PathBuf, Vec<Session>)> {
    let corpus = corpus_dir()?;
    Some((corpus, score::load(&data_dir())))
}

/// A model's summary is measured as the memory gives it: replayed with a model (a real
/// HTTP server on 127.0.0.1 answering as the Messages API), an annotated session's final
/// memory has the model's headline and decision, and the score finds the decision the
/// offline summary misses.
#[test]
fn a_models_summary_is_scored_where_the_memory_gives_it() {
    let Some((corpus, all)) = sessions() else {
        return;
    };
    let session = all
        .iter()
        .find(|s| s.name == "drmaciver-multiply-numbers")
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
    let path = corpus.join(&session.transcript);
    let bin = binary();

    let offline = replay(&bin, &path, &Summarizer::offline());
    let with_model = replay(&bin, &path, &model);

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

/// The report of docs: per field and split, precision and recall of the final memories;
/// the headlines' acceptance, final and over every memory.
#[test]
#[ignore = "a report, run by scripts/meaning-report"]
fn meaning_report() {
    let Some((corpus, all)) = sessions() else {
        return;
    };
    let bin = binary();
    let summarizer = Summarizer::from_env();
    // Memories by who wrote their summary ("offline", or the model's `summary_source`).
    let mut sources: std::collections::BTreeMap<String, usize> = Default::default();
    let only = std::env::var("MEANING_SPLIT").ok();
    let verbose = std::env::var("MEANING_VERBOSE").is_ok_and(|v| v == "1");
    let splits: Vec<&str> = ["dev", "heldout", "fresh"]
        .into_iter()
        .filter(|s| only.as_deref().is_none_or(|o| o == *s))
        .collect();
    let mut totals = Totals::default();
    // Per split: (final acceptable, finals, every acceptable, every memory, mid-word cuts).
    let mut heads: std::collections::HashMap<&str, [usize; 5]> = Default::default();
    let mut headlines = Vec::new();
    for s in all.iter().filter(|s| splits.contains(&s.split.as_str())) {
        let path = corpus.join(&s.transcript);
        let r = replay(&bin, &path, &summarizer);
        for m in &r.memories {
            *sources.entry(summary_source(m)).or_default() += 1;
        }
        let Some(last) = r.memories.last() else {
            println!("{}: no memory was written", s.name);
            continue;
        };
        let source = source_text(&path);
        if verbose {
            println!("\n## {} (reference headline: {})", s.name, s.headline);
            println!(
                "restore after the final memory:\n{}",
                r.restores.last().map_or("", |x| x)
            );
        }
        let h = heads.entry(s.split.as_str()).or_default();
        for (n, m) in r.memories.iter().enumerate() {
            let check = score::check_headline(&headline(m), s, &source);
            if verbose {
                println!(
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
                headlines.push((s.split.clone(), s.name.clone(), headline(m), check));
            }
        }
        for field in Field::ALL {
            let lines = lines_of(last, field);
            let sc = score::score(s, field, &lines);
            totals.add(&s.split, field, sc);
            if verbose && (!lines.is_empty() || sc.items > 0) {
                println!("{} · {} · {:?}", s.name, field.name(), sc);
                for l in &lines {
                    let ok = s.items(field).iter().any(|i| score::matches(l, &i.terms));
                    let also = s
                        .also_acceptable
                        .iter()
                        .any(|i| score::matches(l, &i.terms));
                    println!(
                        "    {} {l}",
                        if ok {
                            "+"
                        } else if also {
                            "~"
                        } else {
                            "-"
                        }
                    );
                }
                for i in s.items(field) {
                    if !lines.iter().any(|l| score::matches(l, &i.terms)) {
                        println!("    missed: {}", i.text);
                    }
                }
            }
        }
    }
    let mut out = String::new();
    let _ = writeln!(out, "\nmeaning report: {bin}");
    let written: Vec<String> = sources.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let _ = writeln!(
        out,
        "summariser: {}; memories by who wrote their summary: {}",
        summarizer.name,
        written.join(", ")
    );
    if summarizer.is_model() && sources.contains_key("offline") {
        let _ = writeln!(
            out,
            "(memories whose summary is `offline` fell back: the model failed or is not \
             configured; their reasons are in the memory's AI summary note)"
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "| split | field | precision (right/extracted) | recall (found/items) | traps |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|");
    for split in &splits {
        for field in Field::ALL {
            let t = totals.get(split, field);
            let _ = writeln!(
                out,
                "| {split} | {} | {} | {} | {} |",
                field.name(),
                score::rate(t.right, t.extracted),
                score::rate(t.found, t.items),
                if field == Field::Instructions {
                    t.traps.to_string()
                } else {
                    "".into()
                }
            );
        }
    }
    let _ = writeln!(
        out,
        "\n| split | headline acceptable (final memory) | headline acceptable (every memory) | cut mid-word (every memory) |"
    );
    let _ = writeln!(out, "|---|---|---|---|");
    for split in &splits {
        let h = heads.get(split).copied().unwrap_or_default();
        let _ = writeln!(
            out,
            "| {split} | {} | {} | {} |",
            score::rate(h[0], h[1]),
            score::rate(h[2], h[3]),
            h[4]
        );
    }
    let _ = writeln!(out, "\n| split | session | final headline | acceptable |");
    let _ = writeln!(out, "|---|---|---|---|");
    for (split, name, h, check) in &headlines {
        let why = match (check.on_topic, check.cut_mid_word, check.fits) {
            (_, true, _) => "no: cut mid-word",
            (false, _, _) => "no: off topic",
            (_, _, false) => "no: too long",
            _ => "yes",
        };
        let _ = writeln!(
            out,
            "| {split} | {name} | {} | {why} |",
            h.replace('|', "\\|")
        );
    }
    println!("{out}");
}

/// Run-dependent parts of a memory or restore (memory names with the time of saving,
/// the sandbox's directory) replaced, so a snapshot repeats.
fn stable(text: &str, root: &Path) -> String {
    let text = text.replace(&root.to_string_lossy().into_owned(), "<tmp>");
    let name = regex::Regex::new(r"\b\d{8}_\d{6}_([A-Za-z0-9-]{1,8})(_\d+)?\.md").unwrap();
    name.replace_all(&text, "YYYYMMDD_HHMMSS_$1.md")
        .into_owned()
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
    let Some((corpus, all)) = sessions() else {
        return;
    };
    let bin = binary();
    // Every annotated session, dev and held out (the held-out ones were made once
    // tuning on the dev part was over).
    for s in &all {
        let path = corpus.join(&s.transcript);
        let (r, root) = replay_in(&bin, &path, &Summarizer::offline());
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
        let text = stable(&text, &root);
        insta::with_settings!({ snapshot_suffix => s.name.clone(), prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!("meaning", text);
        });
    }
}
