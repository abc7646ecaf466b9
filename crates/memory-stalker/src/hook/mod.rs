//! The hooks Claude Code runs (docs/design.md §2): the stdin they receive and what each
//! does.
//!
//! Every entry point here returns the text for stdout and never fails: errors are
//! logged (stderr and the memories log) and the compaction goes on.

pub mod context;
mod job;
pub mod note;
pub mod recall;
mod save;

use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use job::{JOB_SUBCOMMAND, SummaryJob, apply_model_summary, run_detached};
pub use save::{RenderedMemory, SaveRequest, Saved, checkpoints, render_memory, save_memory};

use crate::Error;
use crate::config::Config;
use crate::log::Log;
use crate::memory::document::{render_compaction_summary, replace_section, set_front_matter_field};
use crate::memory::{MemoryStore, Section, Trigger};
use crate::redact::redact_if;
use crate::summary::facts::SessionFacts;
use crate::transcript::Extraction;

/// Largest hook input read from stdin; Claude Code sends well under a kilobyte, but
/// PostCompact carries the compaction summary.
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// The JSON Claude Code writes on a hook's stdin. Unknown fields are ignored and every
/// field is optional, so a newer Claude Code cannot make the hook fail.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct HookInput {
    pub session_id: Option<String>,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    pub prompt_id: Option<String>,
    pub hook_event_name: Option<String>,
    /// PreCompact and PostCompact: `auto` or `manual`.
    pub trigger: Option<Trigger>,
    /// PreCompact: the `/compact` arguments.
    pub custom_instructions: Option<String>,
    /// PostCompact: Claude Code's own summary, raw.
    pub compact_summary: Option<String>,
    /// SessionStart: `startup`, `resume`, `clear` or `compact`.
    pub source: Option<String>,
}

impl HookInput {
    /// Parses the hook's stdin.
    pub fn parse(bytes: &[u8]) -> Result<HookInput, Error> {
        let text = String::from_utf8_lossy(bytes);
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(Error::HookInput(
                "stdin was empty; Claude Code sends the hook's JSON there".into(),
            ));
        }
        let mut input: HookInput = serde_json::from_str(trimmed).map_err(|e| {
            Error::HookInput(format!(
                "stdin is not the JSON object Claude Code sends ({e}); it began with {:?}",
                crate::redact::redact(crate::text::prefix_chars(trimmed, 60))
            ))
        })?;
        // Ids end up in file names, front matter and Markdown: no control characters.
        for id in [&mut input.session_id, &mut input.prompt_id] {
            if let Some(v) = id.as_mut() {
                *v = crate::text::strip_controls(v).into_owned();
            }
        }
        Ok(input)
    }

    /// The project directory: `cwd`, else `CLAUDE_PROJECT_DIR`, whichever exists. A
    /// relative `cwd` is taken from the hook's own working directory.
    pub fn project(&self, config: &Config) -> Option<PathBuf> {
        self.cwd_path()
            .into_iter()
            .chain(config.project_dir.clone())
            .find(|p| p.is_dir())
    }

    /// `cwd` as an absolute path.
    fn cwd_path(&self) -> Option<PathBuf> {
        let cwd = PathBuf::from(self.cwd.as_deref().filter(|c| !c.is_empty())?);
        if cwd.is_absolute() {
            return Some(cwd);
        }
        let joined = std::env::current_dir().ok()?.join(cwd);
        Some(joined.canonicalize().unwrap_or(joined))
    }
}

/// How long a hook event may run before the hook leaves on its own, exiting 0: under
/// the timeout `hooks/hooks.json` gives it (90 s for PreCompact, 30 s for the others),
/// so Claude Code never has to kill it.
pub fn time_budget(event: Option<&str>, config: &Config) -> std::time::Duration {
    use std::time::Duration;
    match event {
        Some("PreCompact") | None => {
            (config.timeout + Duration::from_secs(15)).min(Duration::from_secs(85))
        }
        _ => Duration::from_secs(25),
    }
}

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
    let event = input.hook_event_name.as_deref();
    let source = input.source.as_deref();
    let compaction = matches!(event, Some("PreCompact" | "PostCompact") | None)
        || (event == Some("SessionStart") && source == Some("compact"));
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
    if let Some(off) = switch.filter(|s| !s.enabled) {
        // Said once per compaction (at PreCompact) and once per session start; the
        // other hooks of a compaction stay quiet.
        if matches!(event, Some("PreCompact" | "SessionStart") | None)
            && !(event == Some("SessionStart") && source == Some("compact"))
        {
            log.info(&format!(
                "memory-stalker is {}; nothing saved or recalled ({})",
                off.describe(),
                event_name(event, source)
            ));
        }
        return String::new();
    }
    match event {
        Some("PreCompact") | None => pre_compact(&input, config, log),
        Some("PostCompact") => post_compact(&input, config, log),
        Some("SessionStart") if source == Some("compact") => {
            session_start_compact(&input, config, log)
        }
        Some("SessionStart") if matches!(source, Some("startup" | "resume" | "clear")) => {
            session_start_recall(project.as_deref(), config, log)
        }
        Some(_) => {
            log.info(&format!("nothing to do for {}", event_name(event, source)));
            String::new()
        }
    }
}

/// `SessionStart (startup)`, for the log.
fn event_name(event: Option<&str>, source: Option<&str>) -> String {
    let mut name = event.unwrap_or("PreCompact").to_string();
    if let Some(s) = source {
        let _ = std::fmt::Write::write_fmt(&mut name, format_args!(" ({s})"));
    }
    name
}

/// SessionStart (startup, resume, clear): a short note of the project's latest memory
/// when it is worth knowing (see [`recall`]).
fn session_start_recall(project: Option<&Path>, config: &Config, log: &Log) -> String {
    let Some(project) = project.filter(|_| config.recall) else {
        return String::new();
    };
    let store = config.store(project);
    let only = config.memories_dir.is_some().then_some(project);
    let Some(note) = recall::recall_context(&store, only, chrono::Local::now(), config.recall_days)
    else {
        return String::new();
    };
    log.info(&format!(
        "recalled the latest memory at session start ({} characters)",
        note.chars().count()
    ));
    serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": redact_if(config.redact, &note),
        }
    })
    .to_string()
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

fn pre_compact(input: &HookInput, config: &Config, log: &Log) -> String {
    let trigger = input.trigger.clone().unwrap_or(Trigger::Auto);
    let request = match save_request(input, config, trigger) {
        Ok(r) => r,
        Err(e) => {
            log.error(&format!("{e}; no memory was saved"));
            return String::new();
        }
    };
    let waited = settle(&request.transcript);
    if !waited.is_zero() {
        log.info(&format!(
            "waited {} ms for Claude Code to finish writing the transcript",
            waited.as_millis()
        ));
    }
    match save_memory(&request, config, log) {
        Ok(saved) => {
            log.info(&format!("saved {}", saved.path.display()));
            if config.steer {
                let shown = relative_to(&saved.path, &request.project);
                // Stdout goes into the compaction prompt: redacted like the memory.
                let steering = context::steering(&saved.extraction, Some(&shown));
                return redact_if(config.redact, &steering).into_owned();
            }
        }
        Err(e) => log.error(&format!("{e}; no memory was saved")),
    }
    String::new()
}

/// The memory of the compaction under way: the one PreCompact saved, or (when
/// PreCompact did not fire, a known Claude Code bug) one saved now from the transcript,
/// which is still complete while these hooks run.
fn compaction_memory(
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
    let store = config.store(&request.project);
    let session = input.session_id.as_deref().unwrap_or("");
    let claims = Claims::new(config, session, by);
    if let Some(path) = saved_for_this_compaction(&store, session, &request.transcript, &claims) {
        claims.claim(&path, log);
        let ex = read_extraction(&request, config, &path);
        return Some((path, ex, request.project));
    }
    log.warn(&format!(
        "{by}: no memory was saved for this compaction (PreCompact did not run); saving one now"
    ));
    match save_memory(&request, config, log) {
        Ok(saved) => {
            log.info(&format!("saved {} (by {by})", saved.path.display()));
            claims.claim(&saved.path, log);
            Some((saved.path, saved.extraction, request.project))
        }
        Err(e) => {
            log.error(&format!("{by}: {e}; no memory was saved"));
            None
        }
    }
}

/// The newest memory of the session, unless this hook event already used it for an
/// earlier compaction or the conversation went on after it: then PreCompact did not
/// run for this compaction.
///
/// Records written to the transcript after the memory do not decide it by themselves:
/// Claude Code writes the transcript behind its agent loop, so records of the same turn
/// (tool results, the model's next tool call, even the previous compaction's boundary)
/// can land after PreCompact has read the file. Which memories each event has already
/// used, and the time stamps of what was written, do not depend on that timing.
fn saved_for_this_compaction(
    store: &MemoryStore,
    session: &str,
    transcript: &Path,
    claims: &Claims,
) -> Option<PathBuf> {
    if session.is_empty() {
        return None;
    }
    let (path, fm) = store.session_memories(session).next()?;
    if fm.transcript != transcript.to_string_lossy() || claims.is_claimed(&path) {
        return None;
    }
    // PreCompact can fire without a compaction following (Claude Code bails out); if
    // the conversation went on after that memory, it is not this compaction's.
    let size = std::fs::metadata(transcript).ok()?.len();
    let bytes = fm.transcript_bytes.filter(|b| *b <= size)?;
    let taken = chrono::DateTime::parse_from_rfc3339(&fm.created).ok()?;
    match crate::transcript::conversation_after(transcript, bytes, size, taken) {
        Ok(false) => Some(path),
        _ => None,
    }
}

/// Which memory a compaction hook event (SessionStart, PostCompact) last used, per
/// session, in the plugin's data directory.
struct Claims {
    file: Option<PathBuf>,
}

impl Claims {
    fn new(config: &Config, session: &str, event: &str) -> Claims {
        let file = note::session_key(session).map(|key| {
            config
                .data_dir
                .join("claims")
                .join(format!("{key}.{event}"))
        });
        Claims { file }
    }

    fn name(path: &Path) -> String {
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    fn is_claimed(&self, memory: &Path) -> bool {
        self.file
            .as_deref()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .is_some_and(|used| used.trim() == Self::name(memory))
    }

    fn claim(&self, memory: &Path, log: &Log) {
        let Some(file) = &self.file else {
            return;
        };
        let written = file
            .parent()
            .map_or(Ok(()), crate::fsutil::create_private_dir)
            .and_then(|()| crate::fsutil::replace_atomic(file, Self::name(memory).as_bytes()));
        if let Err(e) = written {
            log.warn(&format!(
                "cannot record that {} was used for this compaction ({e}); the next compaction may reuse it",
                memory.display()
            ));
        }
    }
}

/// The extraction a memory was made from (read again, up to the size it was taken at).
fn read_extraction(req: &SaveRequest, config: &Config, memory: &Path) -> Extraction {
    let fm = crate::memory::store::read_front_matter(memory);
    let end = fm.as_ref().and_then(|f| f.transcript_bytes);
    let recorded = fm.and_then(|f| f.todos);
    // The task list the memory recorded is the list: a checkpoint at its end spares
    // searching the transcript for one.
    let checkpoints = end
        .zip(recorded.clone())
        .map(|(bytes, todos)| crate::transcript::TaskCheckpoint { bytes, todos })
        .into_iter()
        .collect();
    let opts = crate::transcript::ReadOptions {
        end,
        tasks_dir: config.tasks_dir(req.session_id.as_deref().unwrap_or("")),
        plans_dir: config.plans_dir(),
        checkpoints,
        redact: config.redact,
        output_heads_only: true,
    };
    let mut ex = crate::transcript::Transcript::read(&req.transcript, opts)
        .map(|t| t.extraction())
        .unwrap_or_else(|_| Extraction::empty());
    if let Some(todos) = recorded {
        ex.todos = todos;
    }
    ex
}

/// The trigger recorded by a memory saved when the trigger was not known.
const UNKNOWN_TRIGGER: Trigger = Trigger::Unknown;

/// PostCompact: add Claude Code's summary to the memory; leave a note of what that
/// summary left out for the next hook that can hand it to the model (see [`note`]).
fn post_compact(input: &HookInput, config: &Config, log: &Log) -> String {
    let Some((path, ex, project)) = compaction_memory(input, config, log, "PostCompact") else {
        return String::new();
    };
    let raw = input.compact_summary.as_deref().unwrap_or("");
    let summary = summary_part(raw);
    if summary.trim().is_empty() {
        log.warn("PostCompact: the hook input has no compact_summary to add");
        return String::new();
    }
    let store = MemoryStore::new(path.parent().unwrap_or(Path::new(".")));
    let added = store.update(&path, |text| {
        let fm = crate::memory::FrontMatter::parse(text).map(|(fm, _)| fm);
        let lang = fm.as_ref().map_or(crate::Lang::En, |f| f.lang);
        let section = render_compaction_summary(summary, lang);
        let text = replace_section(
            text,
            Section::CompactionSummary,
            &redact_if(config.redact, &section),
        );
        // A memory SessionStart had to save could not know the trigger; this hook does,
        // in the front matter and in the body's metadata line alike.
        Some(match (&input.trigger, fm) {
            (Some(t), Some(fm)) if fm.trigger == UNKNOWN_TRIGGER => {
                let trigger = crate::memory::labels::Labels::of(lang).trigger;
                set_front_matter_field(
                    &text,
                    "trigger",
                    &serde_json::to_string(t).unwrap_or_default(),
                )
                .replacen(
                    &format!("\n- {trigger}: {UNKNOWN_TRIGGER}\n"),
                    &format!("\n- {trigger}: {}\n", crate::text::one_line(t.as_str(), 20)),
                    1,
                )
            }
            _ => text,
        })
    });
    match added {
        Ok(_) => log.info(&format!(
            "added Claude Code's compaction summary to {}",
            path.display()
        )),
        Err(e) => log.error(&format!("PostCompact: {e}")),
    }
    let dropped = context::dropped_note(summary, &ex, &relative_to(&path, &project));
    if dropped.is_empty() {
        return String::new();
    }
    let session = input.session_id.as_deref().unwrap_or("");
    match note::leave(config, session, &crate::redact::redact_if(config.redact, &dropped)) {
        Ok(p) => log.info(&format!(
            "PostCompact: the summary left out saved facts; the note waits in {} for the next prompt or tool call",
            p.display()
        )),
        Err(e) => log.error(&format!("PostCompact: cannot leave the dropped-facts note: {e}")),
    }
    String::new()
}

/// SessionStart(compact): tell the model, right after compaction, what the memory holds.
fn session_start_compact(input: &HookInput, config: &Config, log: &Log) -> String {
    let Some((path, ex, project)) = compaction_memory(input, config, log, "SessionStart") else {
        return String::new();
    };
    if !config.restore {
        return String::new();
    }
    // The extraction was read again from the transcript, unredacted: the restore goes
    // straight into the model's context, so it is redacted like the memory it points to.
    // The lasting facts are the memory's own (carried over from earlier ones): the
    // transcript read again holds only this segment's.
    let facts = crate::memory::MemoryStore::read(&path)
        .map(|text| SessionFacts::from_memory(&text))
        .unwrap_or_default();
    let context = context::restore_context(&ex, &relative_to(&path, &project), &facts);
    let context = redact_if(config.redact, &context);
    serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": context,
        }
    })
    .to_string()
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
