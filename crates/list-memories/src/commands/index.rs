//! `index`: rewrites INDEX.md.

use std::path::Path;
use std::process::ExitCode;

use super::{Context, JSON_VERSION, emit_sorted};

/// `index --json`; fields in the order they are written (see [`emit_sorted`]).
#[derive(serde::Serialize)]
struct IndexJson<'a> {
    /// The index written.
    index: &'a Path,
    version: u32,
}

/// Rewrites the memories' INDEX.md and says where it is.
pub fn run(ctx: Context<'_>) -> anyhow::Result<ExitCode> {
    ctx.store.write_index()?;
    let path = ctx.store.dir().join("INDEX.md");
    if ctx.json {
        emit_sorted(
            ctx.out,
            &IndexJson {
                index: &path,
                version: JSON_VERSION,
            },
        )?;
    } else {
        writeln!(ctx.out, "wrote {}", crate::render::shown(&path))?;
    }
    Ok(ExitCode::SUCCESS)
}
