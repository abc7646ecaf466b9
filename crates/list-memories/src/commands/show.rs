//! `show`: one memory, or one of its sections.

use std::process::ExitCode;

use clap::Args;
use memory_stalker::memory::{MemoryEntry, Section};
use memory_stalker::store::Shown;

use super::{Context, JSON_VERSION, emit_sorted};
use crate::render::{self, Style};

/// The arguments of `show`.
#[derive(Args)]
pub struct ShowArgs {
    target: String,
    /// A section: metadata, last-interaction, tasks, plan, files, last-action, summary, compaction-summary (or its heading).
    #[arg(long, value_name = "NAME")]
    section: Option<String>,
}

/// `show --json`; fields in the order they are written (see [`emit_sorted`]).
#[derive(serde::Serialize)]
struct ShowJson<'a> {
    memory: &'a MemoryEntry,
    /// The section's key, or null for the whole memory.
    section: Option<&'static str>,
    text: &'a str,
    version: u32,
}

/// Prints the memory `target` names, whole or one section; exit 1 when it names none,
/// several, or one without that section, and 2 for an unknown section.
pub fn run(ctx: Context<'_>, args: ShowArgs) -> anyhow::Result<ExitCode> {
    let wanted = match args.section.as_deref() {
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
    let target = &args.target;
    let (memory, shown) = match ctx.store.show(target, wanted)? {
        Shown::Memory { memory, text, .. } => (memory, text),
        Shown::NotFound(found) => {
            eprintln!("{}", render::nothing_found(&found, ctx.store.dir()));
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
        Shown::TooLarge(memory) => {
            eprintln!(
                "{} is {}, over the 8 MiB list-memories reads; it is not shown (open {} in an editor)",
                memory_stalker::untrusted::terminal_line(&memory.file, 200),
                memory_stalker::transcript::bytes(memory.size_bytes),
                crate::render::shown(&memory.path)
            );
            return Ok(ExitCode::from(1));
        }
        Shown::NoSection { memory, section } => {
            eprintln!(
                "{} has no {} section",
                memory_stalker::untrusted::terminal_line(&memory.file, 200),
                section.key()
            );
            return Ok(ExitCode::from(1));
        }
    };
    if ctx.json {
        emit_sorted(
            ctx.out,
            &ShowJson {
                memory: &memory,
                section: wanted.map(Section::key),
                text: &shown,
                version: JSON_VERSION,
            },
        )?;
    } else {
        // Printed on a terminal: no escape sequence from the file gets through.
        ctx.out
            .write_all(memory_stalker::untrusted::terminal(&shown).as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}
