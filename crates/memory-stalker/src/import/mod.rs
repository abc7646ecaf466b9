//! Importing past sessions (`list-memories import`, docs/design.md §7.11): every Claude
//! Code transcript and Codex rollout still on disk gets the memories the hooks would have
//! saved, had they been installed — one at each compaction and one at the session's end —
//! in the session's own project, with the offline summary (a model's only within a
//! budget of calls the user gives).
//!
//! The memories on disk are the only state: a memory already there (the hook's, or an
//! earlier import's) is not written again, so a second run adds nothing, a session that
//! went on adds only its new memories, and a run killed halfway starts again where it
//! stopped. Sub-agents' transcripts and our own summary calls are no sessions of the
//! user's; a project that no longer exists, or that is switched off, gets nothing.
//!
//! This module sits above the save pipeline it uses and below the binary that calls it;
//! nothing below imports it.

mod find;
mod session;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicUsize;
use std::sync::mpsc;
use std::time::{Instant, SystemTime};

use serde::Serialize;

use crate::Error;
use crate::agent::Agent;
use crate::config::{Backend, Config};
use crate::log::Log;
use crate::transcript::Outline;

use session::{Done, Session, Writer};

/// The directory name our `codex exec` summary calls run in (`summary/codex_cli.rs`): a
/// rollout that started there is one of ours.
const CODEX_SUMMARY_DIR: &str = "memory-stalker-codex-";

/// What to import.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Only sessions written to on or after this time (their file's modification time).
    pub since: Option<SystemTime>,
    /// Only the sessions of this project.
    pub project: Option<PathBuf>,
    /// Only this agent's sessions.
    pub agent: Option<Agent>,
    /// Count what would be written; write nothing.
    pub dry_run: bool,
    /// At most this many memories get a model's summary (one call each, with the
    /// summariser configured as for the hooks); the others the offline one.
    pub model_calls: usize,
    /// Sessions read at once (at least 1).
    pub workers: usize,
}

/// How far an import has come, for a progress bar.
#[derive(Debug, Clone, Copy, Default)]
pub struct Progress {
    /// Bytes of the transcripts dealt with.
    pub bytes_done: u64,
    /// Bytes of all the transcripts.
    pub bytes_total: u64,
    /// Transcripts dealt with.
    pub files_done: usize,
    /// All the transcripts.
    pub files_total: usize,
    /// Memories written (or, in a dry run, to write) so far.
    pub memories: usize,
}

/// A project and what the import did (or would do) there.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct ProjectCount {
    /// The project (the directory its sessions started in).
    pub project: PathBuf,
    /// Sessions of it.
    pub sessions: usize,
    /// Memories written there.
    pub memories: usize,
}

/// A file that was not imported, and why.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct Problem {
    /// The transcript.
    pub file: PathBuf,
    /// Why it was not imported.
    pub reason: String,
}

/// What an import did (`list-memories import --json`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Nothing was written.
    pub dry_run: bool,
    /// Transcript files found (after `--agent` and `--since`).
    pub transcripts: usize,
    /// Of them, sessions of the user's with something to remember.
    pub sessions: usize,
    /// Sessions that got memories (would get, in a dry run), by agent key.
    pub imported: BTreeMap<String, usize>,
    /// Memories written (or to write).
    pub memories: usize,
    /// Of them, at compactions.
    pub at_compactions: usize,
    /// Of them, at sessions' ends.
    pub at_ends: usize,
    /// Memories whose summary a model was asked for.
    pub model_calls: usize,
    /// Sessions that already had every memory.
    pub up_to_date: usize,
    /// The projects that got memories.
    pub projects: Vec<ProjectCount>,
    /// Projects that no longer exist: their sessions were not imported.
    pub gone: Vec<ProjectCount>,
    /// Projects where memory-stalker is switched off.
    pub off: Vec<ProjectCount>,
    /// Sessions of other projects than `--project`'s.
    pub other_projects: usize,
    /// Files left out before reading: older than `--since`.
    pub older: usize,
    /// Sub-agents' transcripts.
    pub sub_agents: usize,
    /// Our own summary calls.
    pub summary_calls: usize,
    /// Empty transcripts (0 bytes, no whole line, no conversation).
    pub empty: usize,
    /// Sessions that name no directory.
    pub no_project: usize,
    /// Files named like transcripts that are not read (links, FIFOs).
    pub refused: Vec<Problem>,
    /// Transcripts that could not be read, or whose memories could not be written.
    pub failed: Vec<Problem>,
    /// How long it took.
    pub seconds: f64,
}

/// What became of one transcript.
enum Verdict {
    Import(Session, Result<Done, Error>),
    Empty,
    SubAgent,
    SummaryCall,
    NoProject,
    Gone(PathBuf),
    Off(PathBuf),
    OtherProject,
    Failed(String),
}

/// Imports the past sessions `options` names, calling `progress` after each transcript.
pub fn run(config: &Config, options: &Options, progress: &mut dyn FnMut(&Progress)) -> Report {
    let started = Instant::now();
    let agents: Vec<Agent> = Agent::ALL
        .into_iter()
        .filter(|a| options.agent.is_none_or(|o| o == *a))
        .collect();
    let trees = find::find(
        config.claude_dir.as_deref(),
        config.codex_home.as_deref(),
        &agents,
    );
    let mut report = Report {
        dry_run: options.dry_run,
        refused: trees
            .refused
            .into_iter()
            .map(|(file, reason)| Problem { file, reason })
            .collect(),
        ..Report::default()
    };
    let (mut found, older): (Vec<_>, Vec<_>) = trees.found.into_iter().partition(|f| {
        options
            .since
            .is_none_or(|s| f.modified.is_none_or(|m| m >= s))
    });
    // The sessions worked in last first: a run stopped early has saved those, and a
    // model's budget goes to them.
    found.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| a.path.cmp(&b.path))
    });
    report.older = older.len();
    report.transcripts = found.len();
    let mut state = Progress {
        bytes_total: found.iter().map(|f| f.size).sum(),
        files_total: found.len(),
        ..Progress::default()
    };
    progress(&state);
    let configs = Configs::new(config, options);
    let writer = Writer {
        offline: &configs.offline,
        model: configs.model.as_ref(),
        calls_left: &AtomicUsize::new(options.model_calls),
        log: &configs.log,
    };
    let project = options.project.as_deref().map(resolved);
    let mut tally = Tally::default();
    each_transcript(
        &found,
        options.workers,
        |f| judge(f, config, project.as_deref(), &writer, options.dry_run),
        |f, verdict| {
            state.bytes_done += f.size;
            state.files_done += 1;
            tally.take(&f.path, verdict, &mut report);
            state.memories = report.memories;
            progress(&state);
        },
    );
    tally.finish(&mut report);
    report.seconds = started.elapsed().as_secs_f64();
    report
}

/// The configurations memories are written with.
struct Configs {
    /// The offline summary, written here and now.
    offline: Config,
    /// A model's, asked here and now, while the budget lasts.
    model: Option<Config>,
    /// Where the pipeline's warnings go: the data directory's `import.log`, not the
    /// projects' logs, whose problems `status` counts as the hooks'.
    log: Log,
}

impl Configs {
    fn new(config: &Config, options: &Options) -> Configs {
        let mut offline = config.clone();
        offline.summarizer = Backend::Offline;
        offline.async_summary = false;
        offline.in_hook = false;
        let model = (options.model_calls > 0).then(|| {
            let mut c = config.clone();
            c.async_summary = false;
            c.in_hook = false;
            c
        });
        if !options.dry_run {
            let _ = crate::fsutil::create_private_dir(&config.data_dir);
        }
        Configs {
            offline,
            model,
            log: Log::file_only(log_path(config)),
        }
    }
}

/// The import's own log, in the data directory.
pub fn log_path(config: &Config) -> PathBuf {
    config.data_dir.join("import.log")
}

/// Runs `work` on every transcript on `workers` threads, handing each result to `take`
/// on this thread as it comes.
fn each_transcript<'a>(
    found: &'a [find::Found],
    workers: usize,
    work: impl Fn(&'a find::Found) -> Verdict + Sync,
    mut take: impl FnMut(&'a find::Found, Verdict),
) {
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..workers.max(1) {
            let tx = tx.clone();
            let (next, work) = (&next, &work);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some(f) = found.get(i) else { break };
                    if tx.send((f, work(f))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (f, verdict) in rx {
            take(f, verdict);
        }
    });
}

/// The project path as compared: resolved through links when it exists.
fn resolved(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Reads one transcript's outline, decides whether it is a session to import, and
/// imports it.
fn judge(
    f: &find::Found,
    config: &Config,
    only: Option<&Path>,
    writer: &Writer,
    dry_run: bool,
) -> Verdict {
    let outline = match crate::transcript::outline(&f.path) {
        Ok(o) => o,
        Err(e) => return Verdict::Failed(e.to_string()),
    };
    if outline.sub_agent {
        return Verdict::SubAgent;
    }
    if is_summary_call(&outline) {
        return Verdict::SummaryCall;
    }
    let cuts = session::cuts(&outline);
    let Some(session_id) = outline.session_id.clone().filter(|_| !cuts.is_empty()) else {
        return Verdict::Empty;
    };
    let Some(cwd) = outline
        .cwd
        .as_deref()
        .filter(|c| Path::new(c).is_absolute())
    else {
        return Verdict::NoProject;
    };
    let project = PathBuf::from(cwd);
    if !project.is_dir() {
        return Verdict::Gone(project);
    }
    if only.is_some_and(|o| resolved(&project) != o) {
        return Verdict::OtherProject;
    }
    if !crate::switch::status(&project, config).enabled {
        return Verdict::Off(project);
    }
    let session = Session {
        transcript: f.path.clone(),
        agent: outline.agent,
        session_id,
        project,
        cuts,
        modified: f
            .modified
            .map(|m| chrono::DateTime::<chrono::Local>::from(m).fixed_offset()),
    };
    let done = session::import(&session, writer, dry_run);
    Verdict::Import(session, done)
}

/// Whether the session is one of our own summary calls: its first request is our
/// summary prompt, or it ran where our `codex exec` runs.
fn is_summary_call(outline: &Outline) -> bool {
    outline
        .first_request
        .as_deref()
        .is_some_and(crate::summary::prompt::is_summary_prompt)
        || outline.cwd.as_deref().is_some_and(|c| {
            Path::new(c)
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(CODEX_SUMMARY_DIR))
        })
}

/// The counts by project, gathered while the verdicts come in.
#[derive(Default)]
struct Tally {
    projects: BTreeMap<PathBuf, ProjectCount>,
    gone: BTreeMap<PathBuf, usize>,
    off: BTreeMap<PathBuf, usize>,
}

impl Tally {
    fn take(&mut self, file: &Path, verdict: Verdict, report: &mut Report) {
        match verdict {
            Verdict::Import(session, result) => self.imported(file, &session, result, report),
            Verdict::Empty => report.empty += 1,
            Verdict::SubAgent => report.sub_agents += 1,
            Verdict::SummaryCall => report.summary_calls += 1,
            Verdict::NoProject => report.no_project += 1,
            Verdict::OtherProject => report.other_projects += 1,
            Verdict::Gone(p) => *self.gone.entry(p).or_default() += 1,
            Verdict::Off(p) => *self.off.entry(p).or_default() += 1,
            Verdict::Failed(reason) => report.failed.push(Problem {
                file: file.to_path_buf(),
                reason,
            }),
        }
    }

    fn imported(
        &mut self,
        file: &Path,
        session: &Session,
        result: Result<Done, Error>,
        report: &mut Report,
    ) {
        report.sessions += 1;
        let done = match result {
            Ok(d) => d,
            Err(e) => {
                report.failed.push(Problem {
                    file: file.to_path_buf(),
                    reason: e.to_string(),
                });
                return;
            }
        };
        let written = done.compactions + done.ends;
        if written == 0 {
            report.up_to_date += 1;
            return;
        }
        *report
            .imported
            .entry(session.agent.key().to_string())
            .or_default() += 1;
        report.memories += written;
        report.at_compactions += done.compactions;
        report.at_ends += done.ends;
        report.model_calls += done.model_calls;
        let p = self
            .projects
            .entry(session.project.clone())
            .or_insert_with(|| ProjectCount {
                project: session.project.clone(),
                ..ProjectCount::default()
            });
        p.sessions += 1;
        p.memories += written;
    }

    fn finish(self, report: &mut Report) {
        let counts = |m: BTreeMap<PathBuf, usize>| {
            m.into_iter()
                .map(|(project, sessions)| ProjectCount {
                    project,
                    sessions,
                    memories: 0,
                })
                .collect()
        };
        report.projects = self.projects.into_values().collect();
        report.gone = counts(self.gone);
        report.off = counts(self.off);
        report.failed.sort();
        report.sessions += report
            .gone
            .iter()
            .chain(&report.off)
            .map(|p| p.sessions)
            .sum::<usize>()
            + report.no_project
            + report.other_projects;
    }
}
