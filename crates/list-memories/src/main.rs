//! `list-memories`: lists, finds, shows, searches and prunes the memories memory-stalker
//! saved for a project. A readable table by default; `--json` (schema version 1, see
//! the README) for the plugin's skills.
//!
//! Exit codes: 0 found, 1 nothing found (or `show` of an ambiguous target), 2 usage.

mod render;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use memory_stalker::memory::{Section, Shown, search_projects};
use memory_stalker::{Config, projects, switch};
use serde_json::json;

use render::Style;

/// Version of the `--json` output.
const JSON_VERSION: u32 = 1;

#[derive(Parser)]
#[command(
    name = "list-memories",
    version,
    about = "List, find, show, search and prune the memories memory-stalker saved"
)]
struct Cli {
    /// The project (default: the nearest ancestor with .claude/, else the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    project: Option<PathBuf>,
    /// Print JSON (schema version 1) instead of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    list: ListArgs,
}

#[derive(Args, Default)]
struct ListArgs {
    /// Show at most N memories.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Only memories whose summary, session, file name, date or trigger contain TEXT.
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// List memories, newest first (the default).
    List(ListArgs),
    /// Find memories: `latest`, `#N`, a date (20260129, 2026-01-29), a session-id prefix, or a file name.
    Find { target: String },
    /// Print one memory, or one of its sections.
    Show {
        target: String,
        /// A section: metadata, last-interaction, tasks, plan, files, last-action, summary, compaction-summary (or its heading).
        #[arg(long, value_name = "NAME")]
        section: Option<String>,
    },
    /// Full-text search, case-insensitive; every word must occur.
    Search {
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
        /// Search every project that has memories.
        #[arg(long)]
        all_projects: bool,
        /// Show at most N results.
        #[arg(long, value_name = "N", default_value_t = 20)]
        limit: usize,
    },
    /// Delete old memories (only files recognised as memories).
    Prune {
        /// Keep the newest N.
        #[arg(long, value_name = "N", required_unless_present = "older_than")]
        keep: Option<usize>,
        /// Delete those created more than DAYS days ago.
        #[arg(long, value_name = "DAYS")]
        older_than: Option<u64>,
        /// Say what would be deleted, delete nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Rewrite INDEX.md.
    Index,
    /// Whether memory-stalker is on in this project, and why.
    Status,
    /// Turn memory-stalker off in this project (writes .claude/memory-stalker.json).
    Off,
    /// Turn memory-stalker on again in this project.
    On,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        // `list-memories | head`: the reader is gone, which is not an error.
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        // 2 is clap's code for a usage error; a failure to do the work is 1.
        Err(e) => {
            eprintln!("list-memories: {}", error_text(&e));
            ExitCode::from(1)
        }
    }
}

/// The error and its causes, each said once: the library's errors already name their
/// cause, which the chain would repeat.
fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if !text.contains(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
    }
    text
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let config = Config::from_env();
    let cwd = std::env::current_dir().context("reading the current directory")?;
    let project = match &cli.project {
        Some(p) => p.clone(),
        None => projects::project_root(&cwd, config.home.as_deref()),
    };
    let project = project.canonicalize().unwrap_or(project);
    let store = config.store(&project);
    let style = Style::detect();
    // Stdout is line-buffered: one write per line would dominate a 10,000-row listing.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let json = cli.json;
    let dir_json = json!(store.dir());

    let command = match cli.command {
        None => Command::List(cli.list),
        Some(Command::List(args)) if cli.list.limit.is_none() && cli.list.filter.is_none() => {
            Command::List(args)
        }
        Some(_) if cli.list.limit.is_some() || cli.list.filter.is_some() => {
            eprintln!(
                "list-memories: --limit and --filter go after `list` (or with no subcommand)"
            );
            return Ok(ExitCode::from(2));
        }
        Some(c) => c,
    };
    match command {
        Command::List(args) => {
            let listing = store.list(args.limit, args.filter.as_deref())?;
            if json {
                emit(
                    &mut out,
                    &ListJson {
                        version: JSON_VERSION,
                        project: &project,
                        dir: store.dir(),
                        total: listing.total,
                        memories: numbered(&listing.memories),
                        skipped: &listing.skipped,
                    },
                )?;
            } else {
                report_skipped(&listing.skipped);
                write!(out, "{}", render::listing(&listing, store.dir(), &style))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Find { target } => {
            let found = store.find(&target)?;
            if json {
                emit(
                    &mut out,
                    &FindJson {
                        version: JSON_VERSION,
                        project: &project,
                        dir: store.dir(),
                        target: &found.target,
                        kind: &found.kind,
                        matches: numbered(&found.matches),
                        skipped: &found.skipped,
                    },
                )?;
            } else {
                report_skipped(&found.skipped);
                if !found.matches.is_empty() {
                    write!(out, "{}", render::table(&found.matches, &style))?;
                }
            }
            if found.matches.is_empty() {
                eprintln!("{}", render::nothing_found(&found, store.dir()));
                return Ok(ExitCode::from(1));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Show { target, section } => {
            let wanted = match section.as_deref() {
                None => None,
                Some(name) => match Section::parse(name) {
                    Some(s) => Some(s),
                    // A usage error, like clap's: exit 2.
                    None => {
                        eprintln!(
                            "list-memories: unknown section {name:?}; sections: {}",
                            Section::ALL.map(Section::key).join(", ")
                        );
                        return Ok(ExitCode::from(2));
                    }
                },
            };
            let (memory, shown) = match store.show(&target, wanted)? {
                Shown::Memory { memory, text, .. } => (memory, text),
                Shown::NotFound(found) => {
                    eprintln!("{}", render::nothing_found(&found, store.dir()));
                    return Ok(ExitCode::from(1));
                }
                Shown::Ambiguous(found) => {
                    eprintln!(
                        "{} memories match {target:?}; name one of them:\n{}",
                        found.matches.len(),
                        render::table(&found.matches, &Style::plain())
                    );
                    return Ok(ExitCode::from(1));
                }
                Shown::NoSection { memory, section } => {
                    eprintln!("{} has no {} section", memory.file, section.key());
                    return Ok(ExitCode::from(1));
                }
            };
            if json {
                emit(
                    &mut out,
                    &json!({
                        "version": JSON_VERSION,
                        "memory": memory,
                        "section": wanted.map(Section::key),
                        "text": shown,
                    }),
                )?;
            } else {
                // Printed on a terminal: no escape sequence from the file gets through.
                out.write_all(memory_stalker::text::strip_controls(&shown).as_bytes())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Search {
            query,
            all_projects,
            limit,
        } => {
            let query = query.join(" ");
            let searched: Vec<PathBuf> = if all_projects {
                projects::known_projects(&config)
            } else {
                vec![project.clone()]
            };
            let stores: Vec<_> = searched
                .iter()
                .map(|p| (p.clone(), config.store(p)))
                .collect();
            let found = search_projects(&stores, &query, limit)?;
            let total = found.total;
            if json {
                emit(
                    &mut out,
                    &json!({
                        "version": JSON_VERSION,
                        "query": query,
                        "projects": searched,
                        "total": total,
                        "hits": found.hits,
                    }),
                )?;
            } else if total > 0 {
                write!(
                    out,
                    "{}",
                    render::search(&query, &found.hits, total, all_projects, &style)
                )?;
            }
            if total == 0 {
                eprintln!(
                    "No memory contains {query:?} (searched {}).",
                    if all_projects {
                        format!("{} projects with memories", searched.len())
                    } else {
                        store.dir().display().to_string()
                    }
                );
                return Ok(ExitCode::from(1));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Prune {
            keep,
            older_than,
            dry_run,
        } => {
            let doomed = store.prune(keep, older_than, chrono::Local::now(), dry_run)?;
            if !dry_run && !doomed.is_empty() {
                store.write_index()?;
            }
            if json {
                emit(
                    &mut out,
                    &json!({
                        "version": JSON_VERSION,
                        "dir": dir_json,
                        "dry_run": dry_run,
                        "deleted": doomed,
                    }),
                )?;
            } else {
                write!(out, "{}", render::pruned(&doomed, dry_run, &style))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Index => {
            store.write_index()?;
            let path = store.dir().join("INDEX.md");
            if json {
                emit(&mut out, &json!({"version": JSON_VERSION, "index": path}))?;
            } else {
                writeln!(out, "wrote {}", path.display())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Status => {
            let status = switch::status(&project, &config);
            let listing = store.list(Some(1), None)?;
            if json {
                emit(
                    &mut out,
                    &StatusJson {
                        version: JSON_VERSION,
                        project: &project,
                        status: &status,
                        dir: store.dir(),
                        memories: listing.total,
                        newest: listing.memories.first().map(|m| m.file.as_str()),
                        recall: config.recall,
                        recall_days: config.recall_days,
                    },
                )?;
            } else {
                write!(
                    out,
                    "{}",
                    render::status(&project, &status, store.dir(), &listing, &config)
                )?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Off | Command::On => {
            let wanted = matches!(command, Command::On);
            let before = switch::status(&project, &config);
            // A file is written only to change the state (or to mend a broken one).
            let holds =
                before.enabled == wanted && !matches!(before.why, switch::Why::BadFile { .. });
            let written = if holds {
                None
            } else {
                Some(switch::set(&project, wanted)?)
            };
            let after = switch::status(&project, &config);
            if json {
                emit(
                    &mut out,
                    &SwitchJson {
                        version: JSON_VERSION,
                        project: &project,
                        status: &after,
                        written: written.as_deref(),
                    },
                )?;
            } else {
                write!(
                    out,
                    "{}",
                    render::switched(&project, &after, written.as_deref())
                )?;
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `status --json`.
#[derive(serde::Serialize)]
struct StatusJson<'a> {
    version: u32,
    project: &'a std::path::Path,
    #[serde(flatten)]
    status: &'a switch::Status,
    dir: &'a std::path::Path,
    memories: usize,
    newest: Option<&'a str>,
    recall: bool,
    recall_days: u32,
}

/// `on --json`, `off --json`.
#[derive(serde::Serialize)]
struct SwitchJson<'a> {
    version: u32,
    project: &'a std::path::Path,
    #[serde(flatten)]
    status: &'a switch::Status,
    /// The switch file written, if one had to be.
    written: Option<&'a std::path::Path>,
}

/// A memory with its 1-based position, as the table numbers it.
#[derive(serde::Serialize)]
struct Numbered<'a> {
    index: usize,
    #[serde(flatten)]
    memory: &'a memory_stalker::memory::MemoryEntry,
}

/// Entries with their positions.
fn numbered(entries: &[memory_stalker::memory::MemoryEntry]) -> Vec<Numbered<'_>> {
    entries
        .iter()
        .enumerate()
        .map(|(i, memory)| Numbered {
            index: i + 1,
            memory,
        })
        .collect()
}

/// `list --json`.
#[derive(serde::Serialize)]
struct ListJson<'a> {
    version: u32,
    project: &'a std::path::Path,
    dir: &'a std::path::Path,
    total: usize,
    memories: Vec<Numbered<'a>>,
    skipped: &'a [memory_stalker::memory::Skipped],
}

/// `find --json`.
#[derive(serde::Serialize)]
struct FindJson<'a> {
    version: u32,
    project: &'a std::path::Path,
    dir: &'a std::path::Path,
    target: &'a str,
    kind: &'a memory_stalker::memory::Target,
    matches: Vec<Numbered<'a>>,
    skipped: &'a [memory_stalker::memory::Skipped],
}

fn emit(out: &mut impl Write, v: &impl serde::Serialize) -> anyhow::Result<()> {
    serde_json::to_writer_pretty(&mut *out, v)?;
    writeln!(out)?;
    Ok(())
}

fn report_skipped(skipped: &[memory_stalker::memory::Skipped]) {
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    for s in skipped {
        let _ = writeln!(err, "list-memories: skipped {}: {}", s.file, s.reason);
    }
}
