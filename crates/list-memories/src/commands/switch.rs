//! `status`, `off` and `on`: the switch that turns memory-stalker off in a project.

use std::path::Path;
use std::process::ExitCode;

use memory_stalker::summary::ledger::{self, Usage};
use memory_stalker::switch::{self, Status, Why};

use super::{Context, JSON_VERSION, emit};
use crate::render;

/// `status --json`.
#[derive(serde::Serialize)]
struct StatusJson<'a> {
    version: u32,
    project: &'a Path,
    #[serde(flatten)]
    status: &'a Status,
    dir: &'a Path,
    memories: usize,
    newest: Option<&'a str>,
    recall: bool,
    recall_days: u32,
    /// The model summaries of the last 7 days: written, failed, by backend, characters sent.
    summaries_7d: &'a Usage,
    /// Warnings and errors the hooks logged in the last 7 days.
    problems_7d: usize,
    /// The latest of them: when, and what it said.
    last_problem: Option<Problem<'a>>,
    /// Sessions that have memories here.
    sessions: usize,
    /// Of them, sessions the hooks (or a person, by hand) saved memories of.
    sessions_saved: usize,
    /// Of them, sessions `import` saved memories of.
    sessions_imported: usize,
    /// Memories saved at compactions.
    compactions: usize,
    /// Memories the hooks (or a person) saved.
    saved: usize,
    /// Memories `import` saved.
    imported: usize,
    /// The newest memory the hooks (or a person) saved: its file and date.
    last_save: Option<Saved<'a>>,
    /// When `import` last wrote a memory here (RFC 3339, local time).
    last_import: Option<String>,
}

/// A memory, as `status` names it.
#[derive(serde::Serialize)]
struct Saved<'a> {
    file: &'a str,
    date: &'a str,
}

/// A line of the hooks' log.
#[derive(serde::Serialize)]
struct Problem<'a> {
    at: &'a str,
    message: &'a str,
}

/// The days `status` looks back over.
const DAYS: u64 = 7;
/// The hooks' log in a memories directory (memory-stalker's `Log`).
const LOG_FILE: &str = ".log";

/// `on --json`, `off --json`.
#[derive(serde::Serialize)]
struct SwitchJson<'a> {
    version: u32,
    project: &'a Path,
    #[serde(flatten)]
    status: &'a Status,
    /// The switch file written, if one had to be.
    written: Option<&'a Path>,
}

/// Says whether memory-stalker is on in the project and why, with its memories and
/// the recall settings.
pub fn status(ctx: Context<'_>) -> anyhow::Result<ExitCode> {
    let status = switch::status(&ctx.project, &ctx.config);
    let listing = ctx.store.list(Some(1), None)?;
    let tally = ctx.store.tally()?;
    let last_import = tally.last_import_ns.map(|ns| {
        chrono::DateTime::from_timestamp_nanos(ns)
            .with_timezone(&chrono::Local)
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
    });
    let now = std::time::SystemTime::now();
    let calls = ledger::recent(&ctx.config.data_dir, ctx.store.dir(), DAYS, now);
    let usage = ledger::usage(&calls);
    let since = chrono::Local::now().fixed_offset() - chrono::Duration::days(DAYS as i64);
    let (problems, last) =
        memory_stalker::log::problems_since(&ctx.store.dir().join(LOG_FILE), since);
    let health = render::Health {
        usage: &usage,
        backend: ctx.config.summarizer.name(),
        problems,
        last_problem: last.as_ref().map(|(t, m)| (t.as_str(), m.as_str())),
        tally: &tally,
        last_import: last_import.as_deref(),
    };
    if ctx.json {
        emit(
            ctx.out,
            &StatusJson {
                version: JSON_VERSION,
                project: &ctx.project,
                status: &status,
                dir: ctx.store.dir(),
                memories: listing.total,
                newest: listing.memories.first().map(|m| m.file.as_str()),
                recall: ctx.config.recall,
                recall_days: ctx.config.recall_days,
                summaries_7d: &usage,
                problems_7d: problems,
                last_problem: last.as_ref().map(|(at, message)| Problem { at, message }),
                sessions: tally.sessions,
                sessions_saved: tally.sessions_saved,
                sessions_imported: tally.sessions_imported,
                compactions: tally.compactions,
                saved: tally.saved,
                imported: tally.imported,
                last_save: tally.last_save.as_ref().map(|m| Saved {
                    file: &m.file,
                    date: &m.date,
                }),
                last_import: last_import.clone(),
            },
        )?;
    } else {
        write!(
            ctx.out,
            "{}",
            render::status(
                &ctx.project,
                &status,
                ctx.store.dir(),
                &listing,
                &ctx.config,
                &health
            )
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Turns memory-stalker on (`wanted`) or off in the project, and says how it stands.
pub fn set(ctx: Context<'_>, wanted: bool) -> anyhow::Result<ExitCode> {
    let before = switch::status(&ctx.project, &ctx.config);
    // A file is written only to change the state (or to mend a broken one).
    let holds = before.enabled == wanted && !matches!(before.why, Why::BadFile { .. });
    let written = if holds {
        None
    } else {
        Some(switch::set(&ctx.project, wanted)?)
    };
    let after = switch::status(&ctx.project, &ctx.config);
    if ctx.json {
        emit(
            ctx.out,
            &SwitchJson {
                version: JSON_VERSION,
                project: &ctx.project,
                status: &after,
                written: written.as_deref(),
            },
        )?;
    } else {
        write!(
            ctx.out,
            "{}",
            render::switched(&ctx.project, &after, written.as_deref())
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
