//! The memories the `list-memories`, recall and MCP rows read.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use super::GENERATOR;
use super::text::{PROMPTS, Rng, STEP_TEXTS, TASKS, js};
use super::transcript::CWD;

/// `count` memories as the hook writes them (front matter, then the Markdown body), one
/// every ~13 minutes from 2026-01-01, 40 per session, with the directory's other files
/// (INDEX.md, .gitignore, .log). About one in ten mentions a "retry budget". Each is
/// signed with the writer key of [`state_home`], as this machine's memory-stalker signs
/// its own: the recall speaks only of those (docs/design.md §4.10). Returns the project
/// directory.
pub(crate) fn generate_memories(data: &Path, count: usize) -> PathBuf {
    let project = data.join(format!("{GENERATOR}-memories-signed-{count}"));
    if project.join(".claude/memories").is_dir() {
        return project;
    }
    eprintln!("generating {count} memories in {} ...", project.display());
    let partial = data.join(format!("{GENERATOR}-memories-signed-{count}.partial"));
    let key = memory_stalker::provenance::WriterKey::load_or_create(
        &state_home(data).join("memory-stalker/writer.key"),
    )
    .expect("a writer key");
    let _ = fs::remove_dir_all(&partial);
    let dir = partial.join(".claude/memories");
    fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(0x5eed_0011);
    let start = chrono::DateTime::from_timestamp(1_767_225_600, 0).unwrap(); // 2026-01-01
    for i in 0..count {
        let t = start + chrono::Duration::seconds(i as i64 * 780 + rng.range(0, 120) as i64);
        let session = format!(
            "{:08x}-{}-4{}-a{}-{}",
            0x1000_0000 + (i / 40) * 7919,
            rng.hex(4),
            rng.hex(3),
            rng.hex(3),
            rng.hex(12)
        );
        let name = format!("{}_{}.md", t.format("%Y%m%d_%H%M%S"), &session[..8]);
        let retry = rng.chance(10);
        let prompt = if retry {
            PROMPTS[0].to_string()
        } else {
            PROMPTS[rng.range(3, PROMPTS.len() as u64 - 1) as usize].to_string()
        };
        let tasks: Vec<(&str, bool)> = (0..rng.range(0, 7))
            .map(|_| (rng.pick(TASKS).0, rng.chance(50)))
            .collect();
        let open = tasks.iter().filter(|t| !t.1).count();
        let created = t.format("%Y-%m-%dT%H:%M:%S+00:00");
        let when = t.format("%Y-%m-%d %H:%M:%S +00:00");
        let headline: String = prompt.chars().take(120).collect();
        let mut text = format!(
            "---\nmemory_stalker: 1\nsession_id: \"{session}\"\ncreated: \"{created}\"\ncreated_ns: {}\ntrigger: \"auto\"\nproject: \"{CWD}\"\ntranscript: \"/home/dev/.claude/projects/-home-dev-shop/{session}.jsonl\"\ntask_count: {}\ntasks_open: {open}\nsummary: {}\nsummary_source: \"offline\"\nlang: \"en\"\ntranscript_bytes: {}\n---\n\n# Session memory — {when}\n\n## Metadata\n\n- Session ID: `{session}`\n- Project: `{CWD}`\n- Saved at: {when}\n- Trigger: auto\n- Claude Code: 2.1.39 · branch `main`\n\n## Last complete interaction\n\n### User input\n\n```text\n{prompt}\n```\n\n### Assistant reply\n\n```markdown\n",
            t.timestamp() as u128 * 1_000_000_000,
            tasks.len(),
            js(&headline),
            rng.range(1_000_000, 900_000_000)
        );
        for _ in 0..rng.range(3, 12) {
            text += *rng.pick(STEP_TEXTS);
            text += if rng.chance(30) { "\n\n" } else { " " };
        }
        text += "\n```\n\n**Tool calls** (3):\n\n- Edit `src/upload/chunk.rs`\n- Edit `src/upload/error.rs`\n- Bash `cargo test --workspace`\n\n## Current task list\n\n";
        if tasks.is_empty() {
            text += "(no task list)\n";
        }
        for (task, done) in &tasks {
            writeln!(text, "- [{}] {task}", if *done { "x" } else { " " }).unwrap();
        }
        text += "\n## Files\n\n### Modified\n\n- `src/upload/chunk.rs`\n- `src/upload/error.rs`\n\n## Session so far\n\n### Your requests\n\n";
        for _ in 0..rng.range(1, 6) {
            writeln!(text, "- {}", rng.pick(PROMPTS)).unwrap();
        }
        text += "\n### Decisions\n\n";
        for _ in 0..rng.range(0, 4) {
            writeln!(text, "- {}", rng.pick(STEP_TEXTS)).unwrap();
        }
        write!(
            text,
            "\n---\n\n## AI summary\n\n_Summary by: `offline`_\n\n### Task summary\n\n- User asked: {prompt}\n- Last assistant conclusion: {}\n\n### Follow-ups\n\n",
            rng.pick(STEP_TEXTS)
        )
        .unwrap();
        for (task, done) in &tasks {
            if !done {
                writeln!(text, "- [ ] {task}").unwrap();
            }
        }
        let text = key.sign(&name, &text);
        fs::write(dir.join(name), text).unwrap();
    }
    fs::write(dir.join(".gitignore"), "*\n").unwrap();
    fs::write(dir.join(".log"), "").unwrap();
    fs::write(dir.join("INDEX.md"), "# Memory index\n").unwrap();
    fs::rename(&partial, &project).unwrap();
    project
}

/// `XDG_STATE_HOME` of the runs that read the generated memories: where the key that
/// signed them is, kept beside them.
pub(crate) fn state_home(data: &Path) -> PathBuf {
    data.join(format!("{GENERATOR}-state"))
}
