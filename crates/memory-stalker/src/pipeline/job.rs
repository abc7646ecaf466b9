//! Writing a model's summary into a memory that already exists: inline (synchronous
//! mode) or in a detached background worker (asynchronous mode, the default), so that
//! compaction never waits for a model.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Instant, SystemTime};

use crate::config::{Backend, Config};
use crate::log::Log;
use crate::memory::MemoryEdit;
use crate::store::MemoryStore;
use crate::summary::labels::failed_note;
use crate::summary::{self, Breaker, SummaryError, SummaryInput, offline};
use crate::transcript::{ReadOptions, Transcript};

/// The subcommand of `save-memory` that runs a job in the background.
pub const JOB_SUBCOMMAND: &str = "summarize-job";

/// A model summary to write into an existing memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryJob {
    /// The memory the summary goes into.
    pub memory: PathBuf,
    /// The transcript it was taken from.
    pub transcript: PathBuf,
    /// The transcript's size when the memory was taken: the worker reads only that
    /// much, although Claude Code appends the compaction right after the hook.
    pub transcript_bytes: u64,
    /// The session's id (for its task files and the memory's checkpoints).
    pub session_id: String,
    /// The `/compact` arguments, which the summary prompt passes on.
    pub custom_instructions: Option<String>,
    /// Who writes the summary.
    pub backend: Backend,
}

impl SummaryJob {
    /// The job as `save-memory summarize-job` arguments.
    pub fn to_args(&self) -> Vec<OsString> {
        let mut args: Vec<OsString> = vec![
            JOB_SUBCOMMAND.into(),
            "--memory".into(),
            self.memory.clone().into(),
            "--transcript".into(),
            self.transcript.clone().into(),
            "--bytes".into(),
            self.transcript_bytes.to_string().into(),
            "--session".into(),
            self.session_id.clone().into(),
            "--backend".into(),
            self.backend.name().into(),
        ];
        if let Some(ci) = &self.custom_instructions {
            args.push("--instructions".into());
            args.push(ci.into());
        }
        args
    }

    /// Starts `exe summarize-job …` in its own session with no stdio, and returns at
    /// once. The worker outlives the hook and Claude Code (`claude -p` exits right
    /// after compaction and kills the hook's process group).
    pub fn spawn(&self, exe: &Path) -> std::io::Result<()> {
        let mut cmd = Command::new(exe);
        cmd.args(self.to_args())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // `exe` is the running binary's real path: the plugin's `memory-stalker`,
            // which runs the tool it is called by, when save-memory is a link to it.
            cmd.arg0("save-memory");
            // SAFETY: setsid is async-signal-safe and touches no memory of the parent.
            unsafe {
                cmd.pre_exec(|| {
                    if libc::setsid() == -1 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        cmd.spawn().map(drop)
    }

    /// Asks the model and writes its summary into the memory (or, when it fails, says
    /// so there and keeps the offline summary). `transcript` is reused when the caller
    /// has it already; otherwise the transcript is read up to `transcript_bytes`.
    pub fn run(
        &self,
        transcript: Option<&Transcript>,
        config: &Config,
        log: &Log,
    ) -> Result<String, SummaryError> {
        let store = config.store_at(self.memory.parent().unwrap_or(Path::new(".")));
        let mut owned;
        let transcript = match transcript {
            Some(t) => t,
            None => {
                owned = Transcript::read(
                    &self.transcript,
                    ReadOptions {
                        end: Some(self.transcript_bytes),
                        tasks_dir: config.tasks_dir(&self.session_id),
                        plans_dir: config.plans_dir(),
                        checkpoints: crate::transcript::Checkpoints::known(
                            store.checkpoints(&self.session_id, &self.transcript),
                        ),
                        redact: config.redact,
                        output_heads_only: false,
                    },
                )
                .map_err(|e| {
                    log.error(&format!("background summary: {e}"));
                    SummaryError::Input(e.to_string())
                })?;
                // Paths as the memory shows them: relative to its project (§3.8).
                if let Some(fm) = crate::store::files::read_front_matter(&self.memory)
                    && !fm.project.is_empty()
                {
                    owned.in_project(Path::new(&fm.project));
                }
                &owned
            }
        };
        let extraction = transcript.extraction();
        let input = SummaryInput {
            extraction: &extraction,
            conversation: transcript.conversation_text(config.max_chars),
            custom_instructions: self.custom_instructions.as_deref(),
            lang: config.lang,
        };
        let started = Instant::now();
        let memories = self.memory.parent().unwrap_or(Path::new("."));
        let result = summary::run_model(
            self.backend,
            &input,
            config,
            memories,
            started + config.timeout,
            log,
        );
        let breaker = Breaker::new(&config.data_dir);
        let error = result.as_ref().err().map(ToString::to_string);
        match breaker.record(self.backend.name(), error.as_deref(), SystemTime::now()) {
            Ok(Some(until)) => log.warn(&format!(
                "{} failed {} times in a row; it is skipped until {}",
                self.backend.name(),
                summary::breaker::THRESHOLD,
                chrono::DateTime::<chrono::Local>::from(until).format("%H:%M")
            )),
            Ok(None) => {}
            Err(e) => log.warn(&format!("cannot update the circuit breaker: {e}")),
        }
        let source = summary::source_name(self.backend, config);
        let written = match &result {
            Ok(model) => store.update(&self.memory, |text| {
                let mut edit = MemoryEdit::new(text, config.redact);
                edit.set_ai_summary(&model.summary, &model.source);
                Some(edit.finish())
            }),
            Err(e) => {
                let offline = offline::summarize(transcript, &extraction, config.lang);
                store.update(&self.memory, |text| {
                    let mut edit = MemoryEdit::new(text, config.redact);
                    let note = failed_note(&source, &e.to_string(), edit.lang());
                    // The front matter keeps the offline headline the memory was saved with.
                    edit.set_summary_section(&offline, summary::OFFLINE_SOURCE, Some(&note));
                    Some(edit.finish())
                })
            }
        };
        match written {
            Err(e) => log.error(&format!(
                "cannot write the summary into {}: {e}",
                self.memory.display()
            )),
            // The model's headline replaced the offline one in the front matter, and
            // INDEX.md shows headlines: without this it would keep the offline one.
            Ok(true) if result.is_ok() => refresh_index(&store, log),
            Ok(_) => {}
        }
        match result {
            Ok(model) => {
                log.info(&format!(
                    "summary by {} written into {} in {:.1}s",
                    model.source,
                    self.memory.display(),
                    started.elapsed().as_secs_f64()
                ));
                Ok(model.source)
            }
            Err(e) => {
                log.warn(&format!(
                    "summary by {source} failed: {e}; the memory keeps the offline summary"
                ));
                Err(e)
            }
        }
    }
}

/// Rewrites the `INDEX.md` beside a memory whose headline changed. Only where an index
/// exists: the hook writes one in a project's memories directory, never in the
/// fallback directory for unsaved memories.
fn refresh_index(store: &MemoryStore, log: &Log) {
    if !store.dir().join(crate::memory::INDEX_FILE).is_file() {
        return;
    }
    if let Err(e) = store.write_index() {
        log.warn(&format!("{e}"));
    }
}

/// Runs a job given on the command line (`save-memory summarize-job …`): logs go to
/// the memories' `.log` only, since the worker has no stderr.
pub fn run_detached(job: &SummaryJob, config: &Config) {
    let log = Log::file_only(job.memory.parent().unwrap_or(Path::new(".")).join(".log"));
    // The outcome is in the memory and the log; there is nobody else to tell.
    let _ = job.run(None, config, &log);
}
