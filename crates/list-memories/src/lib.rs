//! `list-memories`: lists, finds, shows, searches and prunes the memories memory-stalker
//! saved for a project. A readable table by default; `--json` (schema version 1, see
//! the README) for the plugin's skills.
//!
//! Exit codes: 0 found, 1 nothing found (or `show` of an ambiguous target), 2 usage.

mod commands;
mod render;

use std::ffi::OsString;
use std::io::{ErrorKind, Write};
use std::process::ExitCode;

use clap::Parser;

/// Runs `list-memories` with these arguments (the first is the program's name).
pub fn main_from(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = commands::Cli::parse_from(args);
    // Stdout is line-buffered: one write per line would dominate a 10,000-row listing.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let result = commands::run(cli, &mut out);
    // Flushed here, not when dropped, so that a failure to write the end of the answer
    // is seen; after the command's own messages on stderr, as before.
    let flushed = out.flush();
    let result = result.and_then(|code| flushed.map(|()| code).map_err(Into::into));
    match result {
        Ok(code) => code,
        // `list-memories | head`: the reader is gone, which is not an error.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        // 2 is clap's code for a usage error; a failure to do the work is 1.
        Err(e) => {
            eprintln!("list-memories: {}", error_text(&e));
            ExitCode::from(1)
        }
    }
}

/// Whether the error is a write to a pipe whose reader has gone, wherever in the chain:
/// `serde_json` keeps the `io::Error` it met to itself, out of the chain.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind)
            .or_else(|| {
                c.downcast_ref::<serde_json::Error>()
                    .and_then(serde_json::Error::io_error_kind)
            })
            == Some(ErrorKind::BrokenPipe)
    })
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
