//! Saving a memory: read the transcript, summarise, render, redact, write.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant, SystemTime};

use chrono::{DateTime, FixedOffset};

use crate::Error;
use crate::config::Config;
use crate::log::Log;
use crate::memory::{FrontMatter, MemoryDoc, Trigger};
use crate::redact::redact_if;
use crate::store::MemoryStore;
use crate::summary::facts::{SegmentFacts, SessionFacts};
use crate::summary::{self, Breaker, Choice, HEADLINE_CHARS, OFFLINE_SOURCE, Summary, offline};

use super::job::SummaryJob;
use crate::summary::labels::{offline_note, pending_note};
use crate::transcript::{Checkpoints, Extraction, ReadOptions, Transcript};
use crate::untrusted::line;

/// What to save.
#[derive(Debug, Clone)]
pub struct SaveRequest {
    /// The session's transcript.
    pub transcript: PathBuf,
    /// The project the memory belongs to.
    pub project: PathBuf,
    /// The hook's session id; the transcript's when absent.
    pub session_id: Option<String>,
    /// What started the compaction.
    pub trigger: Trigger,
    /// The `/compact` arguments.
    pub custom_instructions: Option<String>,
    /// Claude Code's id of the compaction's prompt.
    pub prompt_id: Option<String>,
}

/// A memory that was written.
#[derive(Debug, Clone)]
pub struct Saved {
    /// Where it was written.
    pub path: PathBuf,
    /// What it was made from.
    pub extraction: Extraction,
}

/// Reads the transcript, writes a new memory file taken at `now` and returns where it
/// went.
///
/// When the project's memories directory cannot be written, the memory goes to
/// `<data dir>/unsaved/` instead (and the log says so), so a compaction never loses it.
pub fn save_memory(
    req: &SaveRequest,
    now: DateTime<FixedOffset>,
    config: &Config,
    log: &Log,
) -> Result<Saved, Error> {
    save_with(req, now, None, config, log)
}

/// A memory of a past moment of a session: the transcript as it was when a compaction
/// came (or at the session's end), for `list-memories import` (docs/design.md §7.11).
#[derive(Debug, Clone, Default)]
pub struct PastCut {
    /// The transcript's size at that moment: only these bytes are read.
    pub end: u64,
    /// That moment, in ns since the epoch (UTC): the memory's time of writing
    /// (`created_ns`), so that it lists among the memories of its time.
    pub written_ns: u64,
    /// The lasting facts of the session's memory before this one (not its newest, which
    /// may be of a later moment).
    pub earlier: SessionFacts,
    /// Whether Claude Code's task files are read: they hold the session's task list as
    /// it is now, which is that of its end and of no earlier compaction.
    pub task_files: bool,
}

/// Writes the memory of `req`'s transcript at the past moment `cut`, taken at `now` (that
/// moment in local time), as the PreCompact hook would have written it then.
///
/// Unlike [`save_memory`], a memory that cannot go into the project's own directory is
/// not written anywhere else: the caller reports the session instead.
pub fn save_past_memory(
    req: &SaveRequest,
    now: DateTime<FixedOffset>,
    cut: &PastCut,
    config: &Config,
    log: &Log,
) -> Result<Saved, Error> {
    save_with(req, now, Some(cut), config, log)
}

/// [`save_memory`], or [`save_past_memory`] with `past`.
fn save_with(
    req: &SaveRequest,
    now: DateTime<FixedOffset>,
    past: Option<&PastCut>,
    config: &Config,
    log: &Log,
) -> Result<Saved, Error> {
    let store = config.store(&req.project);
    let choice = summary::choose(
        config,
        &Breaker::new(&config.data_dir),
        SystemTime::from(now),
    );
    // Only a summary written here and now reads the tool outputs; a background one reads
    // the transcript again.
    let summary_here = matches!(choice, Choice::Model(_)) && !config.async_summary;
    let lookup = match (past, req.session_id.as_deref()) {
        (None, Some(id)) if !id.is_empty() => SessionLookup::start(&store, id, req),
        _ => None,
    };
    let checkpoints = match &lookup {
        Some(l) => l.checkpoints.clone(),
        None => Checkpoints::known(
            store.checkpoints(req.session_id.as_deref().unwrap_or(""), &req.transcript),
        ),
    };
    let (transcript, session_id) =
        read_transcript(req, config, checkpoints, summary_here, past, log)?;
    let note = summary_note(&choice, config, log);
    make_writer_key(config, log);
    let earlier = match (past, lookup) {
        (Some(cut), _) => cut.earlier.clone(),
        (None, Some(l)) => l.facts(&store, &session_id),
        (None, None) => earlier_facts(&store, &session_id),
    };
    let memory = render_memory(
        req,
        config,
        &transcript,
        &session_id,
        &now,
        note.as_deref(),
        &earlier,
    );
    if let Some(why) = memory.facts_left_out {
        let why = match why {
            FactsLeftOut::TookTooLong => {
                format!("took over {} s", config.facts_budget.as_secs_f64())
            }
            FactsLeftOut::Failed => "could not be found (an internal error)".to_string(),
        };
        log.warn(&format!(
            "the facts of this segment's texts (rules, choices, stated decisions) {why}; the memory is saved without them (earlier memories' facts are kept)"
        ));
    }
    let path = match past {
        None => write_memory(req, config, &store, &memory, &now, &session_id, log)?,
        Some(cut) => {
            let content = &*fitting_content(&memory, config, log);
            store.save_new_at(&now, &session_id, content, Some(cut.written_ns))?
        }
    };
    if path.parent() == Some(store.dir()) {
        index_and_register(&store, config, &req.project, log);
    }
    if let Choice::Model(backend) = choice {
        summarise_by_model(backend, req, &path, &session_id, &transcript, config, log);
    }
    // Tens of thousands of records take milliseconds to free, and the hook's process
    // ends right after: they are freed beside it, not before it can exit.
    free_in_background(transcript);
    Ok(Saved {
        path,
        extraction: memory.extraction,
    })
}

/// Reads the transcript of `req` and the session's id (the hook's, else the
/// transcript's), saying in the log what of it could not be read.
fn read_transcript(
    req: &SaveRequest,
    config: &Config,
    checkpoints: Checkpoints,
    summary_here: bool,
    past: Option<&PastCut>,
    log: &Log,
) -> Result<(Transcript, String), Error> {
    let session_hint = req.session_id.as_deref().unwrap_or("");
    let task_files = past.is_none_or(|c| c.task_files);
    let mut transcript = Transcript::read(
        &req.transcript,
        ReadOptions {
            end: past.map(|c| c.end),
            tasks_dir: config.tasks_dir(session_hint).filter(|_| task_files),
            plans_dir: config.plans_dir(),
            checkpoints,
            redact: config.redact,
            output_heads_only: !summary_here,
        },
    )?;
    transcript.in_project(&req.project);
    let from_transcript = transcript.session_id();
    let session_id = req
        .session_id
        .clone()
        .filter(|s| !s.is_empty())
        .or(from_transcript)
        .unwrap_or_default();
    if session_hint.is_empty() && task_files {
        // Run by hand: the session id, and with it the task files, come from the transcript.
        if let Some(dir) = config.tasks_dir(&session_id) {
            transcript.use_task_files(&dir);
        }
    }
    if transcript.read_budget_spent() {
        log.warn(&format!(
            "stopped reading {} after {} from its end; the task list or last prompt may be missing",
            req.transcript.display(),
            crate::transcript::bytes(crate::transcript::MAX_READ_BYTES)
        ));
    }
    if transcript.bad_lines() > 0 {
        log.warn(&format!(
            "{} lines of {} are not valid JSON records and were skipped",
            transcript.bad_lines(),
            req.transcript.display()
        ));
    }
    Ok((transcript, session_id))
}

/// The note above the offline summary: that a model's is on its way, or why there is
/// none (which the log also says).
fn summary_note(choice: &Choice, config: &Config, log: &Log) -> Option<String> {
    let note = match choice {
        Choice::Model(b) if config.async_summary => {
            Some(pending_note(&summary::source_name(*b, config), config.lang))
        }
        Choice::Model(_) => None,
        Choice::Offline(reason) => reason.as_deref().map(|r| offline_note(r, config.lang)),
    };
    if let Choice::Offline(Some(reason)) = choice {
        log.warn(reason);
    }
    note
}

/// Makes the key that signs the memory as this user's (§4.10) on the first save; a
/// memory saved without it still saves, and reads as foreign.
fn make_writer_key(config: &Config, log: &Log) {
    if let Some(writer) = &config.writer
        && let Err(e) = writer.key_or_create()
    {
        log.warn(&format!(
            "cannot make the key that marks memories as yours ({}: {e}); this memory will read as foreign",
            writer.path().display()
        ));
    }
}

/// What to write: the whole memory, or its short form when the whole one is over the
/// size a memory may have.
fn fitting_content<'a>(memory: &'a RenderedMemory, config: &Config, log: &Log) -> Cow<'a, str> {
    if memory.text.len() as u64 > crate::store::files::MAX_WRITTEN_BYTES {
        log.warn(&format!(
            "the memory came to {} bytes, over the {} a memory may have; its short form is saved",
            memory.text.len(),
            crate::store::files::MAX_WRITTEN_BYTES
        ));
        Cow::Owned(memory.brief(config))
    } else {
        Cow::Borrowed(&memory.text)
    }
}

/// Writes `memory` to the project's memories, else to its fallback directory, else its
/// short form to either: a compaction never loses its memory while any of them fits.
fn write_memory(
    req: &SaveRequest,
    config: &Config,
    store: &MemoryStore,
    memory: &RenderedMemory,
    now: &DateTime<FixedOffset>,
    session_id: &str,
    log: &Log,
) -> Result<PathBuf, Error> {
    let content = &*fitting_content(memory, config, log);
    let primary = if req.project.is_dir() {
        store.save_new(now, session_id, content)
    } else {
        Err(Error::store(
            "the project directory does not exist:",
            &req.project,
            std::io::Error::from(std::io::ErrorKind::NotFound),
        ))
    };
    let primary = match primary {
        Ok(p) => return Ok(p),
        Err(e) => e,
    };
    let fallback = config
        .store_at(&unsaved_dir(config, &req.project))
        .without_index();
    let second = match fallback.save_new(now, session_id, content) {
        Ok(p) => {
            log.error(&format!(
                "{primary}; the memory was saved to {} instead",
                p.display()
            ));
            return Ok(p);
        }
        Err(e) => e,
    };
    // Out of space or over a file-size limit: a short memory may still fit, and is
    // better than none.
    let brief = memory.brief(config);
    let short = [store, &fallback]
        .into_iter()
        .find_map(|s| s.save_new(now, session_id, &brief).ok());
    match short {
        Some(p) => {
            log.error(&format!(
                "{primary}, and in the fallback directory ({second}); a shortened memory was saved to {}",
                p.display()
            ));
            Ok(p)
        }
        None => Err(Error::NotSaved(format!(
            "{primary}, nor in the fallback directory ({second}), not even shortened"
        ))),
    }
}

/// After a memory is written to the project's own directory: its index is brought up to
/// date and the project is recorded among the known ones (a failure of either is only
/// logged: the memory is saved).
fn index_and_register(store: &MemoryStore, config: &Config, project: &Path, log: &Log) {
    if let Err(e) = store.write_index() {
        log.warn(&format!("{e}"));
    }
    if let Err(e) = crate::projects::register(&config.data_dir, project) {
        log.warn(&format!(
            "cannot record the project in {}: {e}",
            config.data_dir.display()
        ));
    }
}

/// Has the model's summary of the memory at `path` written: in the background when so
/// configured, else here and now.
fn summarise_by_model(
    backend: crate::config::Backend,
    req: &SaveRequest,
    path: &Path,
    session_id: &str,
    transcript: &Transcript,
    config: &Config,
    log: &Log,
) {
    let (_, size) = transcript.bytes_read();
    let job = SummaryJob {
        memory: path.to_path_buf(),
        transcript: req.transcript.clone(),
        transcript_bytes: size,
        session_id: session_id.to_string(),
        custom_instructions: req.custom_instructions.clone(),
        backend,
    };
    if config.async_summary {
        let spawned = std::env::current_exe().and_then(|exe| job.spawn(&exe));
        match spawned {
            Ok(()) => log.info(&format!(
                "the summary by {} is being written in the background",
                backend.name()
            )),
            Err(e) => log.error(&format!(
                "cannot start the background summary: {e}; the memory keeps the offline summary"
            )),
        }
    } else {
        // The memory is already on disk: if Claude Code's hook timeout stops us
        // here, nothing is lost but the model's summary.
        let _ = job.run(Some(transcript), config, log);
    }
}

/// Drops `value` on a thread of its own (here, if no thread can be started). A process
/// that exits first simply never frees it.
fn free_in_background<T: Send + 'static>(value: T) {
    // A thread that cannot be started drops the closure, and with it the value.
    let _ = std::thread::Builder::new()
        .name("free".into())
        .spawn(move || drop(value));
}

/// The lasting facts of this session's newest memory, carried into the next one (an
/// unreadable memory carries nothing rather than stopping the save).
pub fn earlier_facts(store: &MemoryStore, session_id: &str) -> SessionFacts {
    if session_id.is_empty() {
        return SessionFacts::default();
    }
    newest_facts(
        store
            .session_memories(session_id)
            .next()
            .map(|(p, _)| p)
            .as_deref(),
    )
}

/// The lasting facts of the memory at `newest` (none when there is none or it cannot be
/// read).
fn newest_facts(newest: Option<&Path>) -> SessionFacts {
    newest
        .and_then(|path| MemoryStore::read(path).ok())
        .map(|text| SessionFacts::carried_from(&text))
        .unwrap_or_default()
}

/// The session's earlier memories looked up beside the transcript's read, on a thread of
/// its own: the index is opened (in a new project, created) and searched while the
/// reader is already at work, instead of before it starts. Dropped unused (the read
/// failed), it still waits for the thread: the process must not end while the thread
/// writes the index or the writer key.
struct SessionLookup {
    /// The task lists of the transcript's newest memories, sent as soon as found.
    checkpoints: Checkpoints,
    /// The lasting facts of the session's newest memory (taken once).
    facts: Option<std::thread::JoinHandle<SessionFacts>>,
}

impl Drop for SessionLookup {
    fn drop(&mut self) {
        if let Some(thread) = self.facts.take() {
            let _ = thread.join();
        }
    }
}

impl SessionLookup {
    /// Starts the lookup of session `id`'s memories in `store` for `req`'s transcript;
    /// `None` when no thread can be started (the caller looks them up itself).
    fn start(store: &MemoryStore, id: &str, req: &SaveRequest) -> Option<SessionLookup> {
        let (checkpoints, found) = Checkpoints::coming();
        let (store, id, transcript) = (store.clone(), id.to_string(), req.transcript.clone());
        let facts = std::thread::Builder::new()
            .name("session-lookup".into())
            .spawn(move || {
                let memories: Vec<(PathBuf, FrontMatter)> = store.session_memories(&id).collect();
                let mine = memories.iter().map(|(_, fm)| fm);
                // Sent before the newest memory is read: the reader may be waiting.
                let _ = found.send(crate::store::checkpoints_in(mine, &transcript));
                newest_facts(memories.first().map(|(p, _)| p.as_path()))
            })
            .ok()?;
        Some(SessionLookup {
            checkpoints,
            facts: Some(facts),
        })
    }

    /// The lasting facts it found; looked up again here if the thread failed.
    fn facts(mut self, store: &MemoryStore, session_id: &str) -> SessionFacts {
        self.facts
            .take()
            .and_then(|thread| thread.join().ok())
            .unwrap_or_else(|| earlier_facts(store, session_id))
    }
}

/// Where memories go when a project's own directory cannot be written: one directory per
/// project, named after its path with every other character than `[A-Za-z0-9]` a `-`.
/// A name over [`MAX_SLUG`] bytes (a file system takes 255) keeps the path's end and a
/// hash of the whole path, so that a deep project still gets a directory of its own.
pub fn unsaved_dir(config: &Config, project: &Path) -> PathBuf {
    let path = project.to_string_lossy();
    let slug: String = path
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let slug = if slug.len() <= MAX_SLUG {
        slug
    } else {
        use sha2::Digest;
        let hash = sha2::Sha256::digest(path.as_bytes());
        let hex: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
        // The slug is ASCII: any byte is a character boundary.
        format!("{}-{hex}", &slug[slug.len() - (MAX_SLUG - 17)..])
    };
    config.data_dir.join("unsaved").join(slug)
}

/// Longest name of a fallback directory, in bytes.
const MAX_SLUG: usize = 120;

/// A rendered (and redacted) memory, not yet written.
#[derive(Debug, Clone)]
pub struct RenderedMemory {
    /// The whole file.
    pub text: String,
    /// Its front matter, for [`RenderedMemory::brief`].
    pub front: FrontMatter,
    /// What it was rendered from.
    pub extraction: Extraction,
    /// Why the facts of the segment's texts were left out, when they were.
    pub facts_left_out: Option<FactsLeftOut>,
}

/// Why a memory was saved without the facts of its segment's texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactsLeftOut {
    /// They were not found within the hook's facts budget.
    TookTooLong,
    /// Finding them failed (a thread could not report them).
    Failed,
}

impl RenderedMemory {
    /// A short form (a kilobyte or two: tasks and the last request), written when the
    /// whole memory cannot be (a full disk, a file-size limit); made only then.
    pub fn brief(&self, config: &Config) -> String {
        redact_if(
            config.redact,
            &brief(&self.front, &self.extraction, config.lang),
        )
        .into_owned()
    }
}

/// The short form of a memory: its front matter (without the task list's JSON), the
/// task list, and the start of the last request.
fn brief(front: &FrontMatter, extraction: &Extraction, lang: crate::Lang) -> String {
    use crate::memory::document::display_time;
    use crate::summary::labels::task_list;
    let l = crate::summary::labels::Labels::of(lang);
    let mut front = front.clone();
    front.todos = None;
    // Quoted: the request is the user's text, and no line of it may be taken for ours.
    let prompt = extraction.last_prompt.as_ref().map_or_else(
        || l.no_prompt.to_string(),
        |p| crate::untrusted::quote(&p.text, 600, "> "),
    );
    format!(
        "{}\n# {} — {}\n\n> This is a shortened memory: the whole one could not be written (a full disk or a file-size limit).\n\n## {}\n\n{}\n## {}\n\n{}\n",
        front.render(),
        l.title,
        display_time(&front.created),
        l.tasks,
        task_list(extraction.todos.as_ref(), lang),
        l.user_input,
        prompt
    )
}

/// Renders the memory of `transcript` with the offline summary (and `note` above it),
/// carrying the lasting facts of the session's earlier memory, redacted as configured.
pub fn render_memory(
    req: &SaveRequest,
    config: &Config,
    transcript: &Transcript,
    session_id: &str,
    now: &DateTime<FixedOffset>,
    note: Option<&str>,
    earlier: &SessionFacts,
) -> RenderedMemory {
    // A hook waits for the facts of the segment's texts only so long; by hand, as long
    // as they take.
    let budget = config.in_hook.then_some(config.facts_budget);
    // The segment's signals on a thread of their own, beside the extraction and the
    // facts: they read the same records and are the costliest part after reading.
    let ((extraction, segment_facts, facts_left_out), signals) = std::thread::scope(|s| {
        let signals = std::thread::Builder::new()
            .name("signals".into())
            .spawn_scoped(s, || transcript.signals());
        let found = extract_and_find_facts(transcript, budget);
        let signals = match signals {
            // A panic there costs the signals only, as one in the facts costs those.
            Ok(handle) => handle.join().unwrap_or_default(),
            Err(_) => transcript.signals(),
        };
        (found, signals)
    });
    let summary = offline::summarize_with(
        transcript,
        &extraction,
        &signals,
        earlier.previous_headline.as_deref(),
        config.lang,
    );
    let tasks: Vec<String> = extraction
        .todos
        .iter()
        // As the memory's task list shows them, to compare with those an earlier
        // memory showed.
        .flat_map(|t| {
            t.items
                .iter()
                .map(|i| crate::transcript::task_text(&i.content))
        })
        .collect();
    let facts = segment_facts
        .with(&extraction, &signals, config.lang)
        .after(earlier, &extraction.files.modified, &tasks);
    let mut front = front_matter(
        req,
        config,
        &extraction,
        &summary,
        OFFLINE_SOURCE,
        session_id,
        now,
    );
    front.transcript_bytes = Some(transcript.bytes_read().1);
    let doc_front = front.clone();
    let doc = MemoryDoc {
        front,
        extraction: &extraction,
        facts: &facts,
        summary: &summary,
        summary_note: note,
        custom_instructions: req.custom_instructions.as_deref(),
        compaction_summary: None,
    }
    .render();
    RenderedMemory {
        text: redact_if(config.redact, &doc).into_owned(),
        front: doc_front,
        extraction,
        facts_left_out,
    }
}

/// The extraction of `transcript` and the facts of its segment, found side by side: the
/// extraction here, the facts of the requests and of the assistant's texts (the most
/// costly: every sentence of every text with a cue word) on two threads. With a
/// `budget`, those facts are waited for only until it has passed since the call: a
/// shape of session that makes them slow (thousands of rules compared) must not cost
/// the compaction its memory, so the memory is then saved without them (and says why).
/// The threads own copies of the texts, so one left running ends with the process, and
/// one that panics costs only its facts. Without threads, one after the other.
fn extract_and_find_facts(
    transcript: &Transcript,
    budget: Option<Duration>,
) -> (Extraction, SegmentFacts, Option<FactsLeftOut>) {
    let deadline = budget.map(|b| Instant::now() + b);
    let requests = transcript.segment_prompts();
    let texts: Vec<String> = transcript
        .segment_assistant_texts()
        .into_iter()
        .map(str::to_owned)
        .collect();
    let from_texts = move || {
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        SegmentFacts::from_assistant(&texts)
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let spawn = |part: Part, work: Box<dyn FnOnce() -> SegmentFacts + Send>, tx: Sender| {
        std::thread::Builder::new()
            .name("facts".into())
            .spawn(move || {
                let _ = tx.send((work(), part));
            })
            .map_err(|e| e.to_string())
    };
    let spawned = spawn(
        Part::Requests,
        Box::new(move || SegmentFacts::from_requests(&requests)),
        tx.clone(),
    )
    .and_then(|_| spawn(Part::Assistant, Box::new(from_texts), tx));
    let extraction = transcript.extraction();
    if spawned.is_err() {
        // No thread to wait on: found here.
        let facts =
            SegmentFacts::of_requests(transcript).and(SegmentFacts::of_assistant(transcript));
        return (extraction, facts, None);
    }
    let (mut from_requests, mut from_assistant) = (None, None);
    let mut left_out = None;
    while from_requests.is_none() || from_assistant.is_none() {
        let got = match deadline {
            Some(d) => rx.recv_timeout(d.saturating_duration_since(Instant::now())),
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match got {
            Ok((facts, Part::Requests)) => from_requests = Some(facts),
            Ok((facts, Part::Assistant)) => from_assistant = Some(facts),
            Err(RecvTimeoutError::Timeout) => {
                left_out = Some(FactsLeftOut::TookTooLong);
                break;
            }
            // Both threads are gone and one sent nothing: it panicked.
            Err(RecvTimeoutError::Disconnected) => {
                left_out = Some(FactsLeftOut::Failed);
                break;
            }
        }
    }
    let facts = from_requests
        .unwrap_or_default()
        .and(from_assistant.unwrap_or_default());
    (extraction, facts, left_out)
}

/// Which half of the segment's facts a thread found.
enum Part {
    Requests,
    Assistant,
}

type Sender = std::sync::mpsc::Sender<(SegmentFacts, Part)>;

/// The front matter of a memory of `extraction` summarised by `summary`.
pub(crate) fn front_matter(
    req: &SaveRequest,
    config: &Config,
    extraction: &Extraction,
    summary: &Summary,
    source: &str,
    session_id: &str,
    now: &DateTime<FixedOffset>,
) -> FrontMatter {
    let (task_count, tasks_open) = extraction.task_counts();
    FrontMatter {
        format: crate::memory::document::FORMAT_VERSION,
        session_id: session_id.to_string(),
        created: now.to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
        trigger: req.trigger.clone(),
        agent: extraction.agent,
        project: req.project.to_string_lossy().into_owned(),
        transcript: req.transcript.to_string_lossy().into_owned(),
        task_count,
        tasks_open,
        summary: line(
            &crate::text::clip_words(&summary.headline, HEADLINE_CHARS),
            HEADLINE_CHARS,
        ),
        summary_source: source.to_string(),
        prompt_id: req.prompt_id.clone(),
        lang: config.lang,
        transcript_bytes: None,
        todos: Some(extraction.todos.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 25, defect 12: a deep project's fallback directory was its whole path as one
    /// name, which no file system takes over 255 bytes.
    #[test]
    fn a_fallback_directory_name_stays_short_and_distinct() {
        let config = Config::from_lookup(|k| (k == "CLAUDE_PLUGIN_DATA").then(|| "/d".into()));
        let short = unsaved_dir(&config, Path::new("/home/me/p"));
        assert_eq!(short, Path::new("/d/unsaved/-home-me-p"));
        let deep = |end: &str| {
            let p = format!("/home/me/{}/{end}", "very-long-directory/".repeat(20));
            unsaved_dir(&config, Path::new(&p))
        };
        let (a, b) = (deep("a"), deep("b"));
        let name = a.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.len() <= 120, "{name}");
        let hash = &name[name.len() - 16..];
        assert!(hash.bytes().all(|b| b.is_ascii_hexdigit()), "{name}");
        assert!(name.contains("-a-"), "the path's end is kept: {name}");
        assert_ne!(a, b);
    }
}
