//! One past session: the moments the hooks would have saved a memory at (each
//! compaction, and the session's end), which of them the store already has, and saving
//! the others in order, each carrying the lasting facts of the one before it.

use std::path::{Path, PathBuf};

use chrono::{DateTime, FixedOffset, Local, TimeZone};

use crate::Error;
use crate::config::Config;
use crate::log::Log;
use crate::memory::Trigger;
use crate::pipeline::{PastCut, SaveRequest, save_past_memory};
use crate::store::MemoryStore;
use crate::summary::facts::SessionFacts;
use crate::transcript::Outline;

/// A moment of the session a memory is due for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cut {
    /// The transcript's size at that moment.
    pub end: u64,
    /// When it was: the compaction's boundary, or the session's last record.
    pub at: Option<DateTime<FixedOffset>>,
    /// A compaction (else the session's end).
    pub compaction: bool,
}

/// The moments of a session a memory is due for: before each compaction's boundary
/// (where PreCompact read the transcript), and the end of its whole lines when the
/// conversation went on after the last compaction.
pub(crate) fn cuts(outline: &Outline) -> Vec<Cut> {
    let mut out: Vec<Cut> = outline
        .compactions
        .iter()
        // A boundary at the very start closes nothing.
        .filter(|c| c.offset > 0)
        .map(|c| Cut {
            end: c.offset,
            at: c.at,
            compaction: true,
        })
        .collect();
    let last = out.last().map_or(0, |c| c.end);
    if outline.goes_on && outline.complete > last {
        out.push(Cut {
            end: outline.complete,
            at: outline.last_time,
            compaction: false,
        });
    }
    out
}

/// A memory of the session the store has already (this user's own, of this transcript).
#[derive(Debug, Clone)]
pub(crate) struct Had {
    /// The transcript's size when it was taken.
    pub bytes: u64,
    /// Whether `import` wrote it.
    pub imported: bool,
    pub path: PathBuf,
}

/// The memories of `session_id` taken from `transcript` that `store` holds.
pub(crate) fn had(store: &MemoryStore, session_id: &str, transcript: &Path) -> Vec<Had> {
    let resolved = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let transcript = resolved(transcript);
    store
        .session_memories(session_id)
        .filter(|(_, fm)| resolved(Path::new(&fm.transcript)) == transcript)
        .filter_map(|(path, fm)| {
            Some(Had {
                bytes: fm.transcript_bytes?,
                imported: fm.trigger == Trigger::Import,
                path,
            })
        })
        .collect()
}

/// Whether the store has the memory of `cut` (whose previous cut ended at `prev`): for a
/// compaction, one the hook saved in its segment, or one imported at that very place
/// (an import of the session's end, taken before the session went on, is not a
/// compaction's); for the session's end, one taken at its very size.
pub(crate) fn has(had: &[Had], prev: u64, cut: &Cut) -> bool {
    had.iter().any(|h| {
        if cut.compaction {
            h.bytes > prev && h.bytes <= cut.end && (!h.imported || h.bytes == cut.end)
        } else {
            h.bytes == cut.end
        }
    })
}

/// A session to import.
#[derive(Debug, Clone)]
pub(crate) struct Session {
    pub transcript: PathBuf,
    pub agent: crate::agent::Agent,
    pub session_id: String,
    pub project: PathBuf,
    pub cuts: Vec<Cut>,
    /// The file's modification time: the end's time when no record has one.
    pub modified: Option<DateTime<FixedOffset>>,
}

/// How the memories of a session are written: the configuration for an offline summary,
/// and the one for a model's while the budget of calls lasts.
pub(crate) struct Writer<'a> {
    pub offline: &'a Config,
    pub model: Option<&'a Config>,
    /// Model calls left.
    pub calls_left: &'a std::sync::atomic::AtomicUsize,
    pub log: &'a Log,
}

/// What importing one session did.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Done {
    /// Memories written (at compactions, and at the end).
    pub compactions: usize,
    pub ends: usize,
    /// Of them, with a model's summary asked for.
    pub model_calls: usize,
}

/// Writes the memories `session` is missing, oldest first; with `dry_run` only counts
/// them. Stops at the first that cannot be written (the next run starts again there).
pub(crate) fn import(session: &Session, writer: &Writer, dry_run: bool) -> Result<Done, Error> {
    let store = writer.offline.store(&session.project);
    let mut had = had(&store, &session.session_id, &session.transcript);
    let mut done = Done::default();
    let mut prev = 0;
    let mut last_ns = 0;
    for cut in &session.cuts {
        let written_ns = instant_ns(cut.at.or(session.modified)).max(last_ns + 1);
        last_ns = written_ns;
        let due = !has(&had, prev, cut);
        let before = prev;
        prev = cut.end;
        if !due {
            continue;
        }
        if cut.compaction {
            done.compactions += 1;
        } else {
            done.ends += 1;
        }
        if dry_run {
            continue;
        }
        let earlier = earlier_facts(&had, before);
        let config = match writer.model {
            Some(c) if take_call(writer.calls_left) => {
                done.model_calls += 1;
                c
            }
            _ => writer.offline,
        };
        let path = save(session, cut, written_ns, earlier, config, writer.log)?;
        had.push(Had {
            bytes: cut.end,
            imported: true,
            path,
        });
    }
    Ok(done)
}

/// Takes one model call from the budget, if any is left.
fn take_call(left: &std::sync::atomic::AtomicUsize) -> bool {
    use std::sync::atomic::Ordering;
    left.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
}

/// The lasting facts of the session's memory taken last at or before `at` (the end of
/// the previous segment): what the hook's next memory would have carried on from.
fn earlier_facts(had: &[Had], at: u64) -> SessionFacts {
    had.iter()
        .filter(|h| h.bytes <= at)
        .max_by_key(|h| h.bytes)
        .and_then(|h| MemoryStore::read(&h.path).ok())
        .map(|text| SessionFacts::carried_from(&text))
        .unwrap_or_default()
}

/// Writes the memory of `session` at `cut`.
fn save(
    session: &Session,
    cut: &Cut,
    written_ns: u64,
    earlier: SessionFacts,
    config: &Config,
    log: &Log,
) -> Result<PathBuf, Error> {
    let req = SaveRequest {
        transcript: session.transcript.clone(),
        project: session.project.clone(),
        session_id: Some(session.session_id.clone()),
        trigger: Trigger::Import,
        custom_instructions: None,
        prompt_id: None,
    };
    let past = PastCut {
        end: cut.end,
        written_ns,
        earlier,
        // The task files are the session's list as it is now: its end's.
        task_files: !cut.compaction,
    };
    let taken = Local
        .timestamp_nanos(i64::try_from(written_ns).unwrap_or(i64::MAX))
        .fixed_offset();
    Ok(save_past_memory(&req, taken, &past, config, log)?.path)
}

/// `at` in ns since the epoch, never after now (a transcript's clock is not trusted);
/// now when there is no time at all.
fn instant_ns(at: Option<DateTime<FixedOffset>>) -> u64 {
    let now = Local::now().timestamp_nanos_opt().unwrap_or(i64::MAX);
    let t = at
        .and_then(|t| t.timestamp_nanos_opt())
        .map_or(now, |t| t.min(now));
    u64::try_from(t).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(end: u64, compaction: bool) -> Cut {
        Cut {
            end,
            at: None,
            compaction,
        }
    }

    fn h(bytes: u64, imported: bool) -> Had {
        Had {
            bytes,
            imported,
            path: PathBuf::new(),
        }
    }

    #[test]
    fn which_memories_a_session_has() {
        // The hook's memory of a compaction: anywhere in its segment.
        assert!(has(&[h(90, false)], 50, &cut(100, true)));
        assert!(!has(&[h(40, false)], 50, &cut(100, true)));
        // An import's: at the boundary itself.
        assert!(has(&[h(100, true)], 50, &cut(100, true)));
        // The session's end imported before it went on and compacted is not the
        // compaction's memory.
        assert!(!has(&[h(70, true)], 50, &cut(100, true)));
        // The end: a memory of exactly that size.
        assert!(has(&[h(200, true)], 100, &cut(200, false)));
        assert!(!has(&[h(150, true)], 100, &cut(200, false)));
        assert!(!has(&[h(150, false)], 100, &cut(200, false)));
    }

    #[test]
    fn a_call_is_taken_from_the_budget_until_none_is_left() {
        let left = std::sync::atomic::AtomicUsize::new(2);
        assert!(take_call(&left));
        assert!(take_call(&left));
        assert!(!take_call(&left));
        assert!(!take_call(&left));
    }
}
