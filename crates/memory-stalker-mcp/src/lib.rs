//! `memory-stalker-mcp`: an MCP server over stdio that lets the model search and read
//! the memories memory-stalker saved for one project.
//!
//! Tools: `search_memories`, `show_memory`, `list_memories` (see `server`). Stdout
//! carries the protocol only; problems go to stderr.

mod answer;
mod framing;
mod server;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use memory_stalker::{Config, projects};
use rmcp::ServiceExt;

use server::MemoryServer;

/// The command line.
#[derive(Parser)]
#[command(
    name = "memory-stalker-mcp",
    version,
    about = "MCP server (stdio) to search and read the memories memory-stalker saved"
)]
struct Cli {
    /// The project (default: $CLAUDE_PROJECT_DIR, else the nearest ancestor with .claude/, else the current directory).
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
}

/// Runs the MCP server with these arguments (the first is the program's name).
pub fn main_from(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = Cli::parse_from(args);
    let config = Config::from_env();
    for w in &config.warnings {
        eprintln!("memory-stalker-mcp: {w}");
    }
    let project = match cli.project.or_else(|| config.project_dir.clone()) {
        Some(p) => p,
        None => match std::env::current_dir() {
            Ok(cwd) => projects::project_root(&cwd, config.home.as_deref()),
            Err(e) => {
                eprintln!("memory-stalker-mcp: cannot read the current directory: {e}");
                return ExitCode::from(1);
            }
        },
    };
    // The same project under another spelling (a link, `..`) is the same memories.
    let project = project.canonicalize().unwrap_or(project);
    // One client, one conversation: a single thread runs the protocol; file reading
    // goes to the blocking pool (see `MemoryServer::blocking`).
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("memory-stalker-mcp: cannot start: {e}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(serve(MemoryServer::new(config, project))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("memory-stalker-mcp: {e}");
            ExitCode::from(1)
        }
    }
}

/// Serves `server` on stdin/stdout until the client goes away. Every line from the
/// client goes through [`framing`] first, so that one rmcp would drop (too large, not
/// JSON) still gets an answer; rmcp's answers and those share one writer of stdout.
async fn serve(server: MemoryServer) -> Result<(), String> {
    const PIPE: usize = 1 << 20;
    let (to_server, server_in) = tokio::io::duplex(PIPE);
    let (server_out, from_server) = tokio::io::duplex(PIPE);
    let (lines, out) = tokio::sync::mpsc::channel::<String>(64);
    let writer = tokio::spawn(framing::write_lines(tokio::io::stdout(), out));
    let reader = tokio::spawn(framing::server_lines(from_server, lines.clone()));
    let filter = tokio::spawn(framing::filter_requests(
        tokio::io::BufReader::new(tokio::io::stdin()),
        to_server,
        lines,
    ));
    let running = server
        .serve((server_in, server_out))
        .await
        .map_err(|e| format!("initialization failed: {e}"))?;
    let stopped = running
        .waiting()
        .await
        .map_err(|e| format!("server stopped: {e}"));
    // The client went away: what is left to say is said, then the process ends.
    filter.abort();
    let _ = reader.await;
    let _ = writer.await;
    stopped.map(drop)
}
