//! The hooks Claude Code runs (docs/design.md §2): the stdin they receive and what each
//! does.
//!
//! Every entry point here returns the text for stdout and never fails: errors are
//! logged (stderr and the memories log) and the compaction goes on.

pub mod action;
pub mod codex;
pub mod context;
mod lasting;
pub mod note;
mod protocol;
pub mod recall;

use std::path::{Path, PathBuf};

use crate::pipeline::{SaveRequest, UNKNOWN_TRIGGER, compaction_memory, save_memory};
pub use protocol::{Event, HookInput, MAX_INPUT_BYTES, Output, Source, time_budget};

use crate::Error;
use crate::agent::Agent;
use crate::config::Config;
use crate::log::Log;
use crate::memory::{MemoryEdit, Trigger};
use crate::redact::redact_if;
use crate::summary::facts::SessionFacts;
use crate::transcript::Extraction;

/// Runs the hook for one stdin payload; returns what to print on stdout.
pub fn run(stdin: &[u8], config: &Config, log: &Log) -> String {
    run_parsed(HookInput::parse(stdin), config, log)
}

/// [`run`] for stdin already parsed (the binary parses it first to set its time budget).
pub fn run_parsed(input: Result<HookInput, Error>, config: &Config, log: &Log) -> String {
    let input = match input {
        Ok(i) => i,
        Err(e) => {
            log.error(&format!("{e}; no memory was saved"));
            return String::new();
        }
    };
    let event = input.event();
    let compaction = matches!(
        event,
        Event::PreCompact | Event::PostCompact | Event::SessionStart(Source::Compact)
    );
    let agent = codex::agent_of(&input);
    if compaction && codex::without_rollout(&input, agent) {
        // Nothing to read, so nothing to save or restore: said once, and no directory
        // is made for it.
        log.info(&codex::without_rollout_line(&event.name()));
        return String::new();
    }
    let project = input.project(config);
    // A project directory that is gone still has its switch in the directories above.
    let switch = project
        .clone()
        .or_else(|| input.cwd_path())
        .map(|p| crate::switch::status(&p, config));
    let enabled = switch.as_ref().is_none_or(|s| s.enabled);
    if let Some(project) = &project {
        let store = config.store(project);
        // Only a compaction creates the memories directory: a session start in a
        // project without memories, or a project switched off, leaves no trace.
        if (compaction && enabled && store.ensure_dir().is_ok()) || store.exists() {
            log.set_file(store.dir().join(".log"));
        }
    }
    for w in &config.warnings {
        log.warn(w);
    }
    if let Some(agent_id) = input.sub_agent() {
        // A sub-agent's hooks carry its parent's session id (Codex) but its own
        // transcript: a memory of it would pass for the session's newest, and its
        // restore would reach the wrong model. The sub-agent's work reaches the session
        // through the agent's result, which the session's own memory reads.
        if matches!(event, Event::PreCompact) {
            log.info(&format!(
                "a sub-agent's compaction (agent {}): no memory is saved for a sub-agent; the session's own compactions are",
                crate::text::prefix_chars(agent_id, 40)
            ));
        }
        return String::new();
    }
    if let Some(off) = switch.filter(|s| !s.enabled) {
        // Said once per compaction (at PreCompact) and once per session start; the
        // other hooks of a compaction stay quiet.
        if matches!(event, Event::PreCompact)
            || matches!(&event, Event::SessionStart(s) if *s != Source::Compact)
        {
            log.info(&format!(
                "memory-stalker is {}; nothing saved or recalled ({})",
                off.describe(),
                event.name()
            ));
        }
        return String::new();
    }
    let output = match &event {
        Event::PreCompact => pre_compact(&input, config, log, agent),
        Event::PostCompact => post_compact(&input, config, log, agent),
        Event::SessionStart(Source::Compact) => session_start_compact(&input, config, log),
        Event::SessionStart(Source::Startup | Source::Resume | Source::Clear) => {
            session_start_recall(project.as_deref(), config, log, agent)
        }
        Event::SessionStart(Source::Other(_)) | Event::Other(_) => {
            log.info(&format!("nothing to do for {}", event.name()));
            Output::Nothing
        }
    };
    output.into_stdout()
}

/// SessionStart (startup, resume, clear): a short note of the project's latest memory
/// when it is worth knowing (see [`recall`]).
fn session_start_recall(
    project: Option<&Path>,
    config: &Config,
    log: &Log,
    agent: Agent,
) -> Output {
    let Some(project) = project.filter(|_| config.recall) else {
        return Output::Nothing;
    };
    // Never a repository's files to index at a session's start: the recall lists the
    // directory when the index is behind.
    let store = config.store(project).at_session_start();
    let only = config.memories_dir.is_some().then_some(project);
    let now = chrono::Local::now();
    let Some(note) = recall::recall_context(&store, only, now, config.recall_days, agent) else {
        return Output::Nothing;
    };
    log.info(&format!(
        "recalled the latest memory at session start ({} characters)",
        note.chars().count()
    ));
    Output::Context {
        event: "SessionStart",
        text: redact_if(config.redact, &note).into_owned(),
    }
}

/// What saving needs from the hook input, or why it cannot be had.
fn save_request(
    input: &HookInput,
    config: &Config,
    trigger: Trigger,
) -> Result<SaveRequest, String> {
    let transcript = input
        .transcript_path
        .as_deref()
        .filter(|t| !t.is_empty())
        .ok_or("the hook input has no transcript_path")?;
    // A project that no longer exists still gets its memory, in the fallback directory
    // (`save_memory` sees that the project's own cannot be written).
    let project = input
        .project(config)
        .or_else(|| input.cwd_path())
        .ok_or("the hook input has no cwd, and CLAUDE_PROJECT_DIR names no directory")?;
    Ok(SaveRequest {
        transcript: PathBuf::from(transcript),
        project,
        session_id: input.session_id.clone(),
        trigger,
        custom_instructions: input.custom_instructions.clone(),
        prompt_id: input.prompt_id.clone(),
    })
}

/// PreCompact: save the memory; print the compaction instruction (unless turned off).
/// How long the transcript must have gone unwritten before PreCompact reads it.
const TRANSCRIPT_QUIET: std::time::Duration = std::time::Duration::from_millis(250);
/// The longest PreCompact waits for that.
const TRANSCRIPT_SETTLE_MAX: std::time::Duration = std::time::Duration::from_millis(1_500);

/// Waits until the transcript has been quiet for [`TRANSCRIPT_QUIET`], when it was
/// written within that time; returns how long it waited.
///
/// Claude Code writes its transcript in batches (about every 100 ms): at an automatic
/// compaction, which starts right after a tool call, the turn's last records (the
/// assistant's last words, a task-list update) may still be on their way when
/// PreCompact starts, and the memory would describe the turn before them. A file last
/// written longer ago than that (a `/compact` typed after the turn, a backfill) costs
/// no wait at all.
fn settle(path: &std::path::Path) -> std::time::Duration {
    use std::time::{Duration, Instant, SystemTime};
    let started = Instant::now();
    // Only a regular file is ever read (a FIFO or a directory is refused at once).
    let stamp = || {
        std::fs::metadata(path)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|m| (m.len(), m.modified().ok()))
    };
    let mut last = stamp();
    let mut unchanged_since = Instant::now();
    let mut waited = false;
    loop {
        let Some((_, Some(modified))) = last else {
            return Duration::ZERO;
        };
        let quiet_for = SystemTime::now()
            .duration_since(modified)
            .unwrap_or(Duration::ZERO)
            .max(unchanged_since.elapsed());
        if quiet_for >= TRANSCRIPT_QUIET || started.elapsed() >= TRANSCRIPT_SETTLE_MAX {
            return if waited {
                started.elapsed()
            } else {
                Duration::ZERO
            };
        }
        waited = true;
        std::thread::sleep(Duration::from_millis(20).min(TRANSCRIPT_QUIET - quiet_for));
        let now = stamp();
        if now != last {
            unchanged_since = Instant::now();
            last = now;
        }
    }
}

fn pre_compact(input: &HookInput, config: &Config, log: &Log, agent: Agent) -> Output {
    let trigger = input.trigger.clone().unwrap_or(Trigger::Auto);
    let request = match save_request(input, config, trigger) {
        Ok(r) => r,
        Err(e) => {
            log.error(&format!("{e}; no memory was saved"));
            return Output::Nothing;
        }
    };
    // Codex writes its rollout out before it runs a hook: nothing is on its way.
    let waited = match agent {
        Agent::ClaudeCode => settle(&request.transcript),
        Agent::Codex => std::time::Duration::ZERO,
    };
    if !waited.is_zero() {
        log.info(&format!(
            "waited {} ms for Claude Code to finish writing the transcript",
            waited.as_millis()
        ));
    }
    match save_memory(&request, chrono::Local::now().fixed_offset(), config, log) {
        Ok(saved) => {
            log.info(&format!("saved {}", saved.path.display()));
            // Codex ignores what PreCompact prints: no instruction for its summariser.
            if config.steer && agent == Agent::ClaudeCode {
                let shown = relative_to(&saved.path, &request.project);
                // Stdout goes into the compaction prompt: redacted like the memory.
                let steering = context::steering(&saved.extraction, Some(&shown));
                return Output::CompactionInstructions(
                    redact_if(config.redact, &steering).into_owned(),
                );
            }
        }
        Err(e) => log.error(&format!("{e}; no memory was saved")),
    }
    Output::Nothing
}

/// This compaction's memory, its extraction and the project, for a hook that runs after
/// PreCompact (`by`).
fn after_compaction(
    input: &HookInput,
    config: &Config,
    log: &Log,
    by: &str,
) -> Option<(PathBuf, Extraction, PathBuf)> {
    // SessionStart does not say what triggered the compaction; PostCompact does, and
    // corrects it.
    let trigger = input.trigger.clone().unwrap_or(UNKNOWN_TRIGGER);
    let request = match save_request(input, config, trigger) {
        Ok(r) => r,
        Err(e) => {
            log.error(&format!("{by}: {e}"));
            return None;
        }
    };
    let now = chrono::Local::now().fixed_offset();
    let (path, ex) = compaction_memory(&request, now, config, log, by)?;
    Some((path, ex, request.project))
}

/// PostCompact: add Claude Code's summary to the memory; leave a note of what that
/// summary left out for the next hook that can hand it to the model (see [`note`]).
fn post_compact(input: &HookInput, config: &Config, log: &Log, agent: Agent) -> Output {
    let Some((path, ex, project)) = after_compaction(input, config, log, "PostCompact") else {
        return Output::Nothing;
    };
    let Some(summary) = codex::compaction_summary(input, agent, log) else {
        return Output::Nothing;
    };
    let summary = summary.as_str();
    let store = config.store_at(path.parent().unwrap_or(Path::new(".")));
    let added = store.update(&path, |text| {
        let mut edit = MemoryEdit::new(text, config.redact);
        edit.set_compaction_summary(summary);
        // A memory SessionStart had to save could not know the trigger; this hook does.
        if let Some(t) = &input.trigger
            && edit
                .front_matter()
                .is_some_and(|fm| fm.trigger == UNKNOWN_TRIGGER)
        {
            edit.set_trigger(t);
        }
        Some(edit.finish())
    });
    match added {
        Ok(_) => log.info(&format!(
            "added {}'s compaction summary to {}",
            agent.name(),
            path.display()
        )),
        Err(e) => log.error(&format!("PostCompact: {e}")),
    }
    let dropped = context::dropped_note(summary, &ex, &relative_to(&path, &project));
    if dropped.is_empty() {
        return Output::Nothing;
    }
    let session = input.session_id.as_deref().unwrap_or("");
    match note::leave(config, session, &crate::redact::redact_if(config.redact, &dropped)) {
        Ok(p) => log.info(&format!(
            "PostCompact: the summary left out saved facts; the note waits in {} for the next prompt or tool call",
            p.display()
        )),
        Err(e) => log.error(&format!("PostCompact: cannot leave the dropped-facts note: {e}")),
    }
    Output::Nothing
}

/// SessionStart(compact): tell the model, right after compaction, what the memory holds.
fn session_start_compact(input: &HookInput, config: &Config, log: &Log) -> Output {
    let Some((path, ex, project)) = after_compaction(input, config, log, "SessionStart") else {
        return Output::Nothing;
    };
    if !config.restore {
        return Output::Nothing;
    }
    // The extraction was read again from the transcript, unredacted: the restore goes
    // straight into the model's context, so it is redacted like the memory it points to.
    // The lasting facts are the memory's own (carried over from earlier ones): the
    // transcript read again holds only this segment's.
    // A model summary on its way (the background worker, started at PreCompact) may
    // land while Claude Code writes its own; what it found is worth a short wait.
    let facts = landed_memory(&path, MODEL_SUMMARY_WAIT)
        .map(|text| SessionFacts::for_restore(&text))
        .unwrap_or_default();
    let context = context::restore_context(&ex, &relative_to(&path, &project), &facts);
    let context = redact_if(config.redact, &context);
    Output::Context {
        event: "SessionStart",
        text: context.into_owned(),
    }
}

/// The longest SessionStart(compact) waits for a model summary still being written:
/// well inside its 25 s budget (docs/design.md §2.6).
pub const MODEL_SUMMARY_WAIT: std::time::Duration = std::time::Duration::from_secs(8);

/// The memory's text once its model summary has landed (or failed), waiting at most
/// `wait` for it when it is still on its way; the text as it is then otherwise.
fn landed_memory(path: &Path, wait: std::time::Duration) -> Result<String, Error> {
    let started = std::time::Instant::now();
    loop {
        let text = crate::store::MemoryStore::read(path)?;
        if !crate::summary::labels::summary_pending(&text) || started.elapsed() >= wait {
            return Ok(text);
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// The `<summary>` part of Claude Code's raw compaction output (its `<analysis>` is the
/// model's scratch work); the whole text when there are no tags.
pub fn summary_part(raw: &str) -> &str {
    if let Some(start) = raw.find("<summary>") {
        let body = &raw[start + "<summary>".len()..];
        return body
            .find("</summary>")
            .map_or(body, |end| &body[..end])
            .trim();
    }
    match raw.find("</analysis>") {
        Some(end) => raw[end + "</analysis>".len()..].trim(),
        None => raw.trim(),
    }
}

/// `path` relative to `base` when inside it (shorter in what the model reads).
fn relative_to(path: &Path, base: &Path) -> PathBuf {
    path.strip_prefix(base)
        .map_or_else(|_| path.to_path_buf(), Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn the_restore_waits_a_little_for_a_model_summary_on_its_way() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.md");
        let pending = crate::summary::labels::pending_note("claude-cli", crate::Lang::En);
        std::fs::write(&path, format!("## AI summary\n\n> {pending}\n")).unwrap();
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(300));
                std::fs::write(&path, "## AI summary\n\n_Summary by `claude-cli`_\n").unwrap();
            })
        };
        let started = Instant::now();
        let text = landed_memory(&path, Duration::from_secs(5)).unwrap();
        writer.join().unwrap();
        assert!(text.contains("Summary by"), "{text}");
        assert!(started.elapsed() < Duration::from_secs(3));
        // Still pending at the bound: the text as it is.
        std::fs::write(&path, format!("## AI summary\n\n> {pending}\n")).unwrap();
        let started = Instant::now();
        let text = landed_memory(&path, Duration::from_millis(400)).unwrap();
        assert!(crate::summary::labels::summary_pending(&text));
        assert!(started.elapsed() >= Duration::from_millis(400));
        assert!(started.elapsed() < Duration::from_secs(2));
    }
}
