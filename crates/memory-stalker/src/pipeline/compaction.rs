//! This compaction's memory, for the hooks that run after PreCompact (SessionStart and
//! PostCompact): the one PreCompact saved, or one saved now when PreCompact did not run
//! (docs/design.md §2.5).

use std::path::{Path, PathBuf};

use chrono::{DateTime, FixedOffset};

use crate::config::Config;
use crate::log::Log;
use crate::memory::Trigger;
use crate::store::MemoryStore;
use crate::transcript::Extraction;

use super::{SaveRequest, save_memory};

/// The memory of the compaction under way: the one PreCompact saved, or (when
/// PreCompact did not fire, a known Claude Code bug) one saved now from the transcript,
/// which is still complete while these hooks run.
pub fn compaction_memory(
    request: &SaveRequest,
    now: DateTime<FixedOffset>,
    config: &Config,
    log: &Log,
    by: &str,
) -> Option<(PathBuf, Extraction)> {
    let store = config.store(&request.project);
    let session = request.session_id.as_deref().unwrap_or("");
    let claims = Claims::new(config, session, by);
    if let Some(path) = saved_for_this_compaction(&store, session, &request.transcript, &claims) {
        claims.claim(&path, log);
        let ex = read_extraction(request, config, &path);
        return Some((path, ex));
    }
    log.warn(&format!(
        "{by}: no memory was saved for this compaction (PreCompact did not run); saving one now"
    ));
    match save_memory(request, now, config, log) {
        Ok(saved) => {
            log.info(&format!("saved {} (by {by})", saved.path.display()));
            claims.claim(&saved.path, log);
            Some((saved.path, saved.extraction))
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
        let file = crate::text::session_key(session).map(|key| {
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
        // A regular file of one name: a FIFO or a link put there (the data directory is
        // shared with whatever else runs as this user) must not stall the hook.
        self.file
            .as_deref()
            .and_then(|f| crate::fsutil::read_regular(f, 4_096).ok())
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
    let fm = crate::store::files::read_front_matter(memory);
    let end = fm.as_ref().and_then(|f| f.transcript_bytes);
    let recorded = fm.and_then(|f| f.todos);
    // The task list the memory recorded is the list: a checkpoint at its end spares
    // searching the transcript for one.
    let checkpoints = crate::transcript::Checkpoints::known(
        end.zip(recorded.clone())
            .map(|(bytes, todos)| crate::transcript::TaskCheckpoint { bytes, todos })
            .into_iter()
            .collect(),
    );
    let opts = crate::transcript::ReadOptions {
        end,
        tasks_dir: config.tasks_dir(req.session_id.as_deref().unwrap_or("")),
        plans_dir: config.plans_dir(),
        checkpoints,
        redact: config.redact,
        output_heads_only: true,
    };
    let mut ex = crate::transcript::Transcript::read(&req.transcript, opts)
        .map(|mut t| {
            t.in_project(&req.project);
            t.extraction()
        })
        .unwrap_or_else(|_| Extraction::empty());
    if let Some(todos) = recorded {
        ex.todos = todos;
    }
    ex
}

/// The trigger recorded by a memory saved when the trigger was not known.
pub const UNKNOWN_TRIGGER: Trigger = Trigger::Unknown;
