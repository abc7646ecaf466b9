//! `memory-stalker-mcp`: an MCP server over stdio that lets the model search and read
//! the memories memory-stalker saved for one project.
//!
//! Tools: `search_memories`, `show_memory`, `list_memories` (see `server`). Stdout
//! carries the protocol only; problems go to stderr.

mod answer;
mod server;

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

fn main() -> ExitCode {
    let cli = Cli::parse();
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

/// Serves `server` on stdin/stdout until the client goes away.
async fn serve(server: MemoryServer) -> Result<(), String> {
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| format!("initialization failed: {e}"))?;
    running
        .waiting()
        .await
        .map_err(|e| format!("server stopped: {e}"))?;
    Ok(())
}
