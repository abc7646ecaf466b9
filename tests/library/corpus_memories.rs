//! What a person and the model read, for real sessions: the memory file and the restore
//! context of 15 corpus sessions of different kinds (snapshots, each read by eye), and
//! corpus-wide checks of the headline, the follow-ups and the files.
//!
//! The corpus lives beside the project (`../shared/corpus/`); without it these tests
//! pass vacuously, except under `CI=true`, where they fail.

use std::path::{Path, PathBuf};

use crate::corpus_support;
use corpus_support::{all_transcripts, corpus_dir};

use chrono::DateTime;
use memory_stalker::Config;
use memory_stalker::hook::context::restore_context;
use memory_stalker::lang::Lang;
use memory_stalker::pipeline::{SaveRequest, render_memory};
use memory_stalker::summary::facts::SessionFacts;
use memory_stalker::summary::offline;
use memory_stalker::transcript::{ReadOptions, Transcript, is_continuation};

fn config() -> Config {
    let env = [("HOME", "/nonexistent-home"), ("MEMORY_STALKER_LANG", "en")];
    Config::from_lookup(|k| {
        env.iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string())
    })
}

fn read(path: &Path) -> Transcript {
    let options = ReadOptions {
        redact: true,
        ..ReadOptions::default()
    };
    Transcript::read(path, options).unwrap()
}

/// The memory file and the restore context of one corpus session, as one text.
fn memory_and_restore(dir: &Path, rel: &str) -> String {
    let transcript = read(&dir.join(rel));
    let ex = transcript.extraction();
    let session = ex.session_id.clone().unwrap_or_else(|| "unknown".into());
    let req = SaveRequest {
        transcript: PathBuf::from(format!("/home/dev/.claude/projects/corpus/{session}.jsonl")),
        project: PathBuf::from(ex.cwd.clone().unwrap_or_else(|| "/project".into())),
        session_id: Some(session.clone()),
        trigger: "auto".into(),
        custom_instructions: None,
        prompt_id: None,
    };
    let now = DateTime::parse_from_rfc3339("2026-11-20T15:30:00+01:00").unwrap();
    let earlier = SessionFacts::default();
    let memory = render_memory(&req, &config(), &transcript, &session, &now, None, &earlier).text;
    let file = format!(
        ".claude/memories/20261120_153000_{}.md",
        session.chars().take(8).collect::<String>()
    );
    // The restore reads the lasting facts back from the memory, as the hook does.
    let restore = restore_context(&ex, Path::new(&file), &SessionFacts::from_memory(&memory));
    format!("{memory}\n======== restore context (SessionStart compact) ========\n{restore}")
}

macro_rules! corpus_snapshot {
    ($name:ident, $rel:expr) => {
        #[test]
        fn $name() {
            let Some(dir) = corpus_dir() else { return };
            insta::assert_snapshot!(stringify!($name), memory_and_restore(&dir, $rel));
        }
    };
}

const SPOTTER: &str = "marot__spotter/test/fixtures/transcripts";
const LOG: &str = "iansherr__claude-code-log/test/test_data/real_projects";
const VIEWER: &str = "d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project";

// Chinese prompts, a Chinese cwd, TodoWrite (1.0.64).
corpus_snapshot!(
    chinese_todowrite,
    "zengwenliang416__Claude-Log-View/public/sample-log.jsonl"
);
// A long autonomous run: "continue until all are done", 900 lines before the boundary.
corpus_snapshot!(
    long_autonomous_run,
    &format!("{SPOTTER}/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl")
);
// An automatic compaction in the middle of a turn ("continue").
corpus_snapshot!(
    mid_turn_compaction,
    &format!("{SPOTTER}/4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
);
// Prompts queued while Claude worked, a refused call, then "did you push?".
corpus_snapshot!(
    queued_prompts,
    &format!("{SPOTTER}/258c7280-ae70-4798-800f-63464d01a85d.jsonl")
);
// Claude Code's own title (a summary record of this session), a compaction.
corpus_snapshot!(
    session_title,
    "randlee__claude-history/docs/examples/claude-history-simple/export/source/session.jsonl"
);
// VS Code: IDE selection wrappers, a plan file under ~/.claude/plans/.
corpus_snapshot!(
    ide_and_plan,
    "kzahel__yepanywhere/claude-vscode-extension/index.jsonl"
);
// A custom slash command with Japanese arguments.
corpus_snapshot!(
    slash_command_args,
    &format!("{VIEWER}/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl")
);
// /init whose Write was refused: no claim of a file that was never written.
corpus_snapshot!(
    init_refused_write,
    &format!("{VIEWER}/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")
);
// The newer Task tools (2.1.114).
corpus_snapshot!(
    task_tools,
    &format!("{LOG}/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl")
);
// TodoWrite in 1.0.57, `#` memory input.
corpus_snapshot!(todowrite_old, "kiliman__claude-transcript/test/test2.jsonl");
// The last prompt is thanks: the headline is the request before it.
corpus_snapshot!(
    thanks_after_plan,
    &format!("{LOG}/-src-deep-manifest/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl")
);
// A final reply that ends on an offer ("Ready to push and deploy!").
corpus_snapshot!(
    closing_offer,
    &format!(
        "{LOG}/-Users-dain-workspace-danieldemmel-me-next/9e953218-585f-4692-89df-9e0747a31c68.jsonl"
    )
);
// The user interrupted the turn.
corpus_snapshot!(interrupted, &format!("{SPOTTER}/tool_heavy.jsonl"));
// The user refused the last tool call.
corpus_snapshot!(refused_call, &format!("{SPOTTER}/short.jsonl"));
// No task tool at all, an image prompt (1.0.128).
corpus_snapshot!(
    no_task_tool,
    &format!(
        "{LOG}/-Users-dain-workspace-danieldemmel-me-next/4379d1bf-ccb1-414e-a856-9791b73f3af2.jsonl"
    )
);

/// How narration of the assistant's own next move starts (written here apart from the
/// summariser's own list, so the check does not grade itself).
const NARRATION: [&str; 8] = [
    "let me ", "now i ", "now let", "i'll ", "i will ", "next, i", "first, i", "let's ",
];

/// Every string of a transcript's records: where a headline's last word is looked up.
fn source_text(path: &Path) -> String {
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
    let mut out = String::new();
    for l in std::fs::read_to_string(path).unwrap_or_default().lines() {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(l) {
            strings(&v, &mut out);
        }
    }
    out
}

/// Whether a headline ending in `…` lost the end of a word: in the source the text
/// before the `…` goes on with a letter or digit wherever it is found.
fn cut_mid_word(headline: &str, source: &str) -> bool {
    let Some(stem) = headline.strip_suffix('…') else {
        return false;
    };
    if !stem.chars().next_back().is_some_and(char::is_alphanumeric) {
        return false;
    }
    let chars: Vec<char> = stem.chars().collect();
    let tail: String = chars[chars.len().saturating_sub(16)..].iter().collect();
    !source.match_indices(&tail).any(|(at, _)| {
        !source[at + tail.len()..]
            .chars()
            .next()
            .is_some_and(char::is_alphanumeric)
    })
}

/// Words of four letters or more (or any CJK character), lower-cased.
fn key_words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4 || !w.is_ascii())
        .map(str::to_string)
        .collect()
}

/// The corpus-wide properties of what a person and the model read first (issue 22):
/// a headline of at most 100 characters, never cut inside a word nor a lead-in ending
/// in ":", made of what the
/// user asked, a plan or task list, Claude Code's title or summary, never of the
/// assistant's reply; a conclusion that is never a lead-in ending in ":"; follow-ups
/// that are never narration; files relative and never Claude Code's own.
#[test]
fn headlines_conclusions_follow_ups_and_files_across_the_corpus() {
    let Some(dir) = corpus_dir() else { return };
    let mut wrong = Vec::new();
    let mut checked = 0;
    for path in all_transcripts(&dir) {
        let t = read(&path);
        let ex = t.extraction();
        let summary = offline::summarize(&t, &ex, Lang::En);
        let name = path.strip_prefix(&dir).unwrap().display().to_string();
        let requests = t.segment_prompts();
        let substantive = requests
            .iter()
            .chain(ex.last_prompt.iter().map(|p| &p.text))
            .chain(ex.request.iter().map(|p| &p.text))
            .any(|r| !is_continuation(r));
        let h = &summary.headline;
        if ex.title.is_none() && substantive && is_continuation(h) {
            wrong.push(format!("{name}: headline is a continuation: {h:?}"));
        }
        if h.chars().count() > 100 {
            wrong.push(format!("{name}: headline over 100 characters: {h:?}"));
        }
        if h.trim_end().ends_with([':', '：']) {
            wrong.push(format!("{name}: headline is a lead-in: {h:?}"));
        }
        let source = source_text(&path);
        if cut_mid_word(h, &source) {
            wrong.push(format!("{name}: headline cut inside a word: {h:?}"));
        }
        // Never an assistant claim: most of the headline's words are the user's, a
        // plan's, a task list's or Claude Code's own.
        let mut theirs: Vec<String> = requests.clone();
        theirs.extend(ex.last_prompt.iter().map(|p| p.text.clone()));
        theirs.extend(ex.request.iter().map(|p| p.text.clone()));
        theirs.extend(ex.title.clone());
        theirs.extend(ex.plan.iter().map(|p| p.text.clone()));
        theirs.extend(
            ex.todos
                .iter()
                .flat_map(|l| l.items.iter().map(|i| i.content.clone())),
        );
        let signals = t.signals();
        theirs.extend(signals.plans.iter().map(|p| format!("{p:?}")));
        theirs.extend(
            signals
                .bash
                .iter()
                .map(|b| format!("{} {:?}", b.command, b.file)),
        );
        theirs.extend(t.compaction_summary().map(str::to_string));
        // A slash command alone says what came of it (docs/design.md §5.9): the file it
        // changed, or the change refused, in our words.
        theirs.extend(
            signals
                .refusals
                .iter()
                .map(|r| format!("{} {}", r.tool, r.summary)),
        );
        theirs.extend(ex.files.modified.iter().cloned());
        theirs.push("changed; was refused; was denied by the permission settings".into());
        let pool = key_words(&theirs.join("\n"));
        let words = key_words(h.trim_end_matches('…'));
        let own = words.iter().filter(|w| pool.contains(w)).count();
        if ex.last_prompt.is_some() && !words.is_empty() && own * 10 < words.len() * 7 {
            wrong.push(format!(
                "{name}: headline not from the user, a plan or tasks: {h:?}"
            ));
        }
        // The memory as the hook writes it: an offline summary's pointer to Session so
        // far names a list that is there; the restore has no title without items.
        let session = ex.session_id.clone().unwrap_or_else(|| "unknown".into());
        let req = SaveRequest {
            transcript: path.clone(),
            project: PathBuf::from("/project"),
            session_id: Some(session.clone()),
            trigger: "auto".into(),
            custom_instructions: None,
            prompt_id: None,
        };
        let now = DateTime::parse_from_rfc3339("2026-11-20T15:30:00+01:00").unwrap();
        let memory = render_memory(
            &req,
            &config(),
            &t,
            &session,
            &now,
            None,
            &SessionFacts::default(),
        )
        .text;
        let facts = SessionFacts::from_memory(&memory);
        for (pointer_under, listed) in [
            (
                "### Key decisions\n\n(listed under",
                !facts.decisions.is_empty(),
            ),
            (
                "### User preferences\n\n(listed under",
                !facts.constraints.is_empty(),
            ),
        ] {
            if memory.contains(pointer_under) && !listed {
                wrong.push(format!(
                    "{name}: points at an empty list: {pointer_under:?}"
                ));
            }
        }
        let restore = restore_context(&ex, Path::new("m.md"), &facts);
        let lines: Vec<&str> = restore.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let titles_a_list = l.starts_with("- ") && l.ends_with(':');
            let next_is_item = lines
                .get(i + 1)
                .is_some_and(|n| n.starts_with("  - ") || n.starts_with("  > "));
            if titles_a_list && !next_is_item {
                wrong.push(format!("{name}: the restore titles an empty list: {l:?}"));
            }
        }
        for line in &summary.task_summary {
            if line.starts_with("Last assistant conclusion:") && line.trim_end().ends_with(':') {
                wrong.push(format!("{name}: the conclusion is a lead-in: {line:?}"));
            }
        }
        for f in &summary.follow_ups {
            let lower = f.to_lowercase();
            if NARRATION.iter().any(|n| lower.starts_with(n)) {
                wrong.push(format!("{name}: narration as a follow-up: {f:?}"));
            }
        }
        for f in ex.files.modified.iter().chain(&ex.files.read) {
            if f.contains("/.claude/") || f.ends_with(".output") && f.contains("/tasks/") {
                wrong.push(format!("{name}: Claude Code's scratch file listed: {f}"));
            }
            if let Some(cwd) = &ex.cwd
                && f.starts_with(&format!("{cwd}/"))
            {
                wrong.push(format!("{name}: a project file not made relative: {f}"));
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 153);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
