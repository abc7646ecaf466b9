//! `list` (also the command with no subcommand): the memories, newest first.

use std::path::Path;
use std::process::ExitCode;

use clap::Args;
use memory_stalker::Agent;
use memory_stalker::store::Skipped;

use super::{Context, JSON_VERSION, Numbered, emit, numbered, report_skipped};
use crate::render;

/// The options of `list`.
#[derive(Args, Default)]
pub struct ListArgs {
    /// Show at most N memories.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Only memories whose summary, session, file name, date or trigger contain TEXT.
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// Only memories of one agent's sessions: claude-code or codex.
    #[arg(long, value_name = "AGENT", value_parser = super::parse_agent)]
    pub agent: Option<Agent>,
}

/// `list --json`.
#[derive(serde::Serialize)]
struct ListJson<'a> {
    version: u32,
    project: &'a Path,
    dir: &'a Path,
    total: usize,
    memories: Vec<Numbered<'a>>,
    skipped: &'a [Skipped],
}

/// Lists the memories: a table (files skipped on stderr), or JSON.
pub fn run(ctx: Context<'_>, args: ListArgs) -> anyhow::Result<ExitCode> {
    let listing = ctx
        .store
        .list_by(args.limit, args.filter.as_deref(), args.agent)?;
    if ctx.json {
        emit(
            ctx.out,
            &ListJson {
                version: JSON_VERSION,
                project: &ctx.project,
                dir: ctx.store.dir(),
                total: listing.total,
                memories: numbered(&listing.memories),
                skipped: &listing.skipped,
            },
        )?;
    } else {
        report_skipped(&listing.skipped);
        write!(
            ctx.out,
            "{}",
            render::listing(&listing, ctx.store.dir(), &ctx.style)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
