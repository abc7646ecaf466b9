//! `prune`: deletes old memories.

use std::path::Path;
use std::process::ExitCode;

use clap::Args;
use memory_stalker::memory::MemoryEntry;

use super::{Context, JSON_VERSION, emit_sorted};
use crate::render;

/// The options of `prune`.
#[derive(Args)]
pub struct PruneArgs {
    /// Keep the newest N.
    #[arg(long, value_name = "N", required_unless_present = "older_than")]
    keep: Option<usize>,
    /// Delete those created more than DAYS days ago.
    #[arg(long, value_name = "DAYS")]
    older_than: Option<u64>,
    /// Say what would be deleted, delete nothing.
    #[arg(long)]
    dry_run: bool,
}

/// `prune --json`; fields in the order they are written (see [`emit_sorted`]).
#[derive(serde::Serialize)]
struct PruneJson<'a> {
    /// The memories deleted, or that would be on a dry run.
    deleted: &'a [MemoryEntry],
    dir: &'a Path,
    dry_run: bool,
    version: u32,
}

/// Deletes the memories beyond `--keep` or older than `--older-than`, and rewrites the
/// index when any went.
pub fn run(ctx: Context<'_>, args: PruneArgs) -> anyhow::Result<ExitCode> {
    let doomed = ctx.store.prune(
        args.keep,
        args.older_than,
        chrono::Local::now(),
        args.dry_run,
    )?;
    if !args.dry_run && !doomed.is_empty() {
        ctx.store.write_index()?;
    }
    if ctx.json {
        emit_sorted(
            ctx.out,
            &PruneJson {
                deleted: &doomed,
                dir: ctx.store.dir(),
                dry_run: args.dry_run,
                version: JSON_VERSION,
            },
        )?;
    } else {
        write!(
            ctx.out,
            "{}",
            render::pruned(&doomed, args.dry_run, &ctx.style)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
