//! `search`: full-text search of one project's memories, or of every project's.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use memory_stalker::projects;
use memory_stalker::search::SearchRequest;
use memory_stalker::store::{ProjectHit, search_projects};

use super::{Context, JSON_VERSION, emit_sorted};
use crate::render;

/// The arguments of `search`.
#[derive(Args)]
pub struct SearchArgs {
    #[arg(required = true, num_args = 1..)]
    query: Vec<String>,
    /// Search every project that has memories.
    #[arg(long)]
    all_projects: bool,
    /// Show at most N results (sessions).
    #[arg(long, value_name = "N", default_value_t = 20)]
    limit: usize,
    /// Only memories written on or after this day (YYYY-MM-DD, YYYYMMDD, today,
    /// yesterday, or Nd for N days ago).
    #[arg(long, value_name = "DAY")]
    since: Option<String>,
    /// Only memories written on or before this day.
    #[arg(long, value_name = "DAY")]
    until: Option<String>,
    /// Only this session (a prefix of its id).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Only memories that name this file (a part of its path).
    #[arg(long = "file", value_name = "PATH")]
    path: Option<String>,
    /// Only memories with open tasks.
    #[arg(long = "open")]
    open_tasks: bool,
    /// Only this agent's memories: claude-code or codex.
    #[arg(long, value_name = "AGENT")]
    agent: Option<String>,
}

/// `search --json`; fields in the order they are written (see [`emit_sorted`]).
#[derive(serde::Serialize)]
struct SearchJson<'a> {
    hits: &'a [ProjectHit],
    /// The projects searched.
    projects: &'a [PathBuf],
    query: &'a str,
    /// Memories that matched, before the limit.
    total: usize,
    /// Whether `total` is exact, or a lower bound.
    total_exact: bool,
    version: u32,
}

/// Searches for the query; exit 1 when nothing matches, 2 for a bad filter.
pub fn run(ctx: Context<'_>, args: SearchArgs) -> anyhow::Result<ExitCode> {
    let query = args.query.join(" ");
    let request = SearchRequest {
        limit: args.limit,
        since: args.since,
        until: args.until,
        session: args.session,
        path: args.path,
        open_tasks: args.open_tasks,
        agent: args.agent,
    };
    let opts = match request.options() {
        Ok(opts) => opts,
        Err(problem) => {
            eprintln!("list-memories search: {problem}");
            return Ok(ExitCode::from(2));
        }
    };
    let searched = projects::searched(&ctx.config, &ctx.project, args.all_projects);
    let stores: Vec<_> = searched
        .iter()
        .map(|p| (p.clone(), ctx.config.store(p)))
        .collect();
    let found = search_projects(&stores, &query, &opts)?;
    for (project, why) in &found.skipped {
        eprintln!(
            "list-memories: not searched: {}: {}",
            memory_stalker::text::one_line(&project.display().to_string(), 300),
            memory_stalker::text::one_line(why, 300)
        );
    }
    let total = found.total;
    if ctx.json {
        emit_sorted(
            ctx.out,
            &SearchJson {
                hits: &found.hits,
                projects: &searched,
                query: &query,
                total,
                total_exact: found.exact,
                version: JSON_VERSION,
            },
        )?;
    } else if total > 0 {
        write!(
            ctx.out,
            "{}",
            render::search(
                &query,
                &found.hits,
                (total, found.exact),
                args.all_projects,
                &ctx.style
            )
        )?;
    }
    if total == 0 {
        eprintln!(
            "No memory matches {query:?} (searched {}). Try other words, or fewer filters.",
            if args.all_projects {
                format!("{} projects with memories", searched.len())
            } else {
                crate::render::shown(ctx.store.dir())
            }
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
