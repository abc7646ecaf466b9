//! The subcommands of `list-memories`, one file each, and what they share: the command
//! line, the context every command runs in, and the `--json` helpers.

mod find;
mod import;
mod index;
mod list;
mod prune;
mod search;
mod show;
mod switch;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use memory_stalker::memory::MemoryEntry;
use memory_stalker::store::{MemoryStore, Skipped};
use memory_stalker::{Config, projects};

use crate::render::Style;

/// Version of the `--json` output.
const JSON_VERSION: u32 = 1;

/// The command line.
#[derive(Parser)]
#[command(
    name = "list-memories",
    version,
    about = "List, find, show, search and prune the memories memory-stalker saved"
)]
pub struct Cli {
    /// The project (default: the nearest ancestor with .claude/, else the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    project: Option<PathBuf>,
    /// Print JSON (schema version 1) instead of text.
    #[arg(long, global = true)]
    json: bool,
    /// The subcommand (default: `list`).
    #[command(subcommand)]
    command: Option<Command>,
    // `list`'s options also work with no subcommand, since listing is the default.
    #[command(flatten)]
    list: list::ListArgs,
}

/// The subcommands.
#[derive(Subcommand)]
enum Command {
    /// List memories, newest first (the default).
    List(list::ListArgs),
    /// Find memories: `latest`, `#N`, a date (20260129, 2026-01-29), a session-id prefix, or a file name.
    Find(find::FindArgs),
    /// Print one memory, or one of its sections.
    Show(show::ShowArgs),
    /// Ranked full-text search: a question, keywords, a file name; one result a session.
    Search(search::SearchArgs),
    /// Delete old memories (only files recognised as memories).
    Prune(prune::PruneArgs),
    /// Bring the search index up to date (or rebuild it) and rewrite INDEX.md.
    Index(index::IndexArgs),
    /// Save memories of past Claude Code and Codex sessions still on disk, as the hooks
    /// would have (every project's, or --project's only).
    Import(import::ImportArgs),
    /// Whether memory-stalker is on in this project and why; its sessions, memories and
    /// the hooks' problems of the last 7 days.
    Status,
    /// Turn memory-stalker off in this project (writes .claude/memory-stalker.json).
    Off,
    /// Turn memory-stalker on again in this project.
    On,
}

/// What every command works with.
pub struct Context<'a> {
    /// The configuration, from the environment.
    pub config: Config,
    /// The project, canonical when it exists.
    pub project: PathBuf,
    /// The project's memories.
    pub store: MemoryStore,
    /// How to render text.
    pub style: Style,
    /// Standard output, buffered; `main` flushes it.
    pub out: &'a mut dyn Write,
    /// Whether to answer in JSON.
    pub json: bool,
}

/// Runs the command line, writing its answer to `out`; the exit code of an answer
/// that was given (errors are the caller's to report).
pub fn run(cli: Cli, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let config = Config::from_env();
    let cwd = std::env::current_dir().context("reading the current directory")?;
    let project_given = cli.project.is_some();
    let project = match &cli.project {
        Some(p) => p.clone(),
        None => projects::project_root(&cwd, config.home.as_deref()),
    };
    let project = project.canonicalize().unwrap_or(project);
    let store = config.store(&project);
    let ctx = Context {
        config,
        project,
        store,
        style: Style::detect(),
        out,
        json: cli.json,
    };

    let command = match cli.command {
        None => Command::List(cli.list),
        Some(Command::List(args))
            if cli.list.limit.is_none()
                && cli.list.filter.is_none()
                && cli.list.agent.is_none() =>
        {
            Command::List(args)
        }
        Some(_)
            if cli.list.limit.is_some()
                || cli.list.filter.is_some()
                || cli.list.agent.is_some() =>
        {
            eprintln!(
                "list-memories: --limit, --filter and --agent go after the subcommand (`list`, or none)"
            );
            return Ok(ExitCode::from(2));
        }
        Some(c) => c,
    };
    match command {
        Command::List(args) => list::run(ctx, args),
        Command::Find(args) => find::run(ctx, args),
        Command::Show(args) => show::run(ctx, args),
        Command::Search(args) => search::run(ctx, args),
        Command::Prune(args) => prune::run(ctx, args),
        Command::Index(args) => index::run(ctx, args),
        Command::Import(args) => import::run(ctx, args, project_given),
        Command::Status => switch::status(ctx),
        Command::Off => switch::set(ctx, false),
        Command::On => switch::set(ctx, true),
    }
}

/// `--agent NAME`: `claude-code` (or `claude`) or `codex`.
fn parse_agent(s: &str) -> Result<memory_stalker::Agent, String> {
    memory_stalker::Agent::from_arg(s)
}

/// Writes `v` as pretty JSON and a newline.
fn emit(out: &mut dyn Write, v: &impl serde::Serialize) -> anyhow::Result<()> {
    // Paths and values from memories, with what a terminal would act on or hide
    // escaped (docs/design.md §8.3): the same JSON value.
    let text = serde_json::to_string_pretty(v).map_err(json_error)?;
    writeln!(out, "{}", memory_stalker::untrusted::escape_json(&text))?;
    Ok(())
}

/// Writes `v` as [`emit`] does, every object's keys (nested ones too) sorted: the
/// answers that were first built as `serde_json::Value`s came out so, and schema
/// version 1 keeps them that way.
fn emit_sorted(out: &mut dyn Write, v: &impl serde::Serialize) -> anyhow::Result<()> {
    emit(out, &serde_json::to_value(v)?)
}

/// A failure to write JSON as the `io::Error` it is, when it is one: the chain of a
/// `serde_json::Error` does not include its `io::Error`, and `main` looks for a closed
/// pipe there.
fn json_error(e: serde_json::Error) -> anyhow::Error {
    if e.io_error_kind().is_some() {
        std::io::Error::from(e).into()
    } else {
        e.into()
    }
}

/// A memory with its 1-based position, as the table numbers it.
#[derive(serde::Serialize)]
struct Numbered<'a> {
    index: usize,
    #[serde(flatten)]
    memory: &'a MemoryEntry,
}

/// Entries with their positions.
fn numbered(entries: &[MemoryEntry]) -> Vec<Numbered<'_>> {
    entries
        .iter()
        .enumerate()
        .map(|(i, memory)| Numbered {
            index: i + 1,
            memory,
        })
        .collect()
}

/// Says on stderr which files were not read as memories, so that the table on stdout
/// stays a table.
fn report_skipped(skipped: &[Skipped]) {
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    for s in skipped {
        let _ = writeln!(
            err,
            "list-memories: skipped {}: {}",
            memory_stalker::untrusted::terminal_line(&s.file, 300),
            s.reason
        );
    }
}
