//! `find`: the memories a target names.

use std::path::Path;
use std::process::ExitCode;

use clap::Args;
use memory_stalker::Agent;
use memory_stalker::store::{Skipped, Target};

use super::{Context, JSON_VERSION, Numbered, emit, numbered, report_skipped};
use crate::render;

/// The arguments of `find`.
#[derive(Args)]
pub struct FindArgs {
    target: String,
    /// Only memories of one agent's sessions: claude-code or codex (`latest` is then
    /// that agent's newest).
    #[arg(long, value_name = "AGENT", value_parser = super::parse_agent)]
    agent: Option<Agent>,
}

/// `find --json`.
#[derive(serde::Serialize)]
struct FindJson<'a> {
    version: u32,
    project: &'a Path,
    dir: &'a Path,
    target: &'a str,
    kind: &'a Target,
    matches: Vec<Numbered<'a>>,
    skipped: &'a [Skipped],
}

/// Finds the memories `target` names; exit 1 when there are none (the JSON answer,
/// with no matches, is still given).
pub fn run(ctx: Context<'_>, args: FindArgs) -> anyhow::Result<ExitCode> {
    let found = ctx.store.find_by(&args.target, args.agent)?;
    if ctx.json {
        emit(
            ctx.out,
            &FindJson {
                version: JSON_VERSION,
                project: &ctx.project,
                dir: ctx.store.dir(),
                target: &found.target,
                kind: &found.kind,
                matches: numbered(&found.matches),
                skipped: &found.skipped,
            },
        )?;
    } else {
        report_skipped(&found.skipped);
        if !found.matches.is_empty() {
            write!(ctx.out, "{}", render::table(&found.matches, &ctx.style))?;
        }
    }
    if found.matches.is_empty() {
        eprintln!("{}", render::nothing_found(&found, ctx.store.dir()));
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
