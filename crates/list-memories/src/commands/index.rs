//! `index`: brings the search index up to date (or rebuilds it) and rewrites INDEX.md.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use memory_stalker::store::IndexReport;

use super::{Context, JSON_VERSION, emit_sorted};

/// The arguments of `index`.
#[derive(Args)]
pub struct IndexArgs {
    /// Build the search index anew from the memory files (it is derived from them:
    /// nothing is lost).
    #[arg(long)]
    rebuild: bool,
}

/// `index --json`; fields in the order they are written (see [`emit_sorted`]).
#[derive(serde::Serialize)]
struct IndexJson<'a> {
    /// The INDEX.md written.
    index: &'a Path,
    /// The search index: its database, how many memories it holds, how many were read
    /// again; null when there are no memories.
    search_index: Option<&'a IndexReport>,
    version: u32,
}

/// Checks every memory against the search index (or rebuilds it), rewrites INDEX.md,
/// and says what it did.
pub fn run(ctx: Context<'_>, args: IndexArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    if !ctx.json && args.rebuild {
        eprintln!(
            "list-memories: rebuilding the search index of {} …",
            ctx.store.dir().display()
        );
    }
    let report = ctx.store.refresh_index(args.rebuild)?;
    let took = started.elapsed();
    ctx.store.write_index()?;
    let path = ctx.store.dir().join("INDEX.md");
    if ctx.json {
        emit_sorted(
            ctx.out,
            &IndexJson {
                index: &path,
                search_index: report.as_ref(),
                version: JSON_VERSION,
            },
        )?;
    } else {
        if let Some(r) = &report {
            writeln!(
                ctx.out,
                "search index: {} memories{} ({:.1} s) in {}",
                r.memories,
                match (args.rebuild, r.reread) {
                    (true, _) => ", rebuilt".to_string(),
                    (false, 0) => ", all up to date".to_string(),
                    (false, n) => format!(", {n} edited in place read again"),
                },
                took.as_secs_f64(),
                crate::render::shown(&r.path)
            )?;
        }
        writeln!(ctx.out, "wrote {}", crate::render::shown(&path))?;
    }
    Ok(ExitCode::SUCCESS)
}
