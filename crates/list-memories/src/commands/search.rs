//! `search`: full-text search of one project's memories, or of every project's.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use memory_stalker::memory::{ProjectHit, search_projects};
use memory_stalker::projects;

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
    /// Show at most N results.
    #[arg(long, value_name = "N", default_value_t = 20)]
    limit: usize,
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
    version: u32,
}

/// Searches for the words of the query; exit 1 when no memory has them all.
pub fn run(ctx: Context<'_>, args: SearchArgs) -> anyhow::Result<ExitCode> {
    let query = args.query.join(" ");
    let searched: Vec<PathBuf> = if args.all_projects {
        projects::known_projects(&ctx.config)
    } else {
        vec![ctx.project.clone()]
    };
    let stores: Vec<_> = searched
        .iter()
        .map(|p| (p.clone(), ctx.config.store(p)))
        .collect();
    let found = search_projects(&stores, &query, args.limit)?;
    let total = found.total;
    if ctx.json {
        emit_sorted(
            ctx.out,
            &SearchJson {
                hits: &found.hits,
                projects: &searched,
                query: &query,
                total,
                version: JSON_VERSION,
            },
        )?;
    } else if total > 0 {
        write!(
            ctx.out,
            "{}",
            render::search(&query, &found.hits, total, args.all_projects, &ctx.style)
        )?;
    }
    if total == 0 {
        eprintln!(
            "No memory contains {query:?} (searched {}).",
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
