//! `memory-stalker`: the one binary the plugin ships. The plugin's `bin/` holds it and
//! three links to it, `save-memory`, `list-memories` and `memory-stalker-mcp`, and it
//! runs the tool whose name it is called by. One binary, not three, because the three
//! share most of their code (the library, SQLite, the HTTPS client): the plugin's copy
//! in Claude Code's cache is about half the size (docs/performance.md).
//!
//! `memory-stalker TOOL [ARGS…]` runs a tool by name too (for a copy without the links).

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::ExitCode;

/// The tools the binary holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    SaveMemory,
    ListMemories,
    Mcp,
}

impl Tool {
    const ALL: [Tool; 3] = [Tool::SaveMemory, Tool::ListMemories, Tool::Mcp];

    /// The name the tool is called by (its link in `bin/`).
    fn name(self) -> &'static str {
        match self {
            Tool::SaveMemory => "save-memory",
            Tool::ListMemories => "list-memories",
            Tool::Mcp => "memory-stalker-mcp",
        }
    }

    fn named(name: &OsStr) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| OsStr::new(t.name()) == name)
    }
}

/// The tool to run and its arguments, its own name first: by the file name the binary
/// was called by, else by the first argument.
fn choose(mut args: Vec<OsString>) -> Option<(Tool, Vec<OsString>)> {
    let called = args.first().map(Path::new).and_then(Path::file_name);
    let tool = match called.and_then(Tool::named) {
        Some(tool) => tool,
        None => {
            let tool = args.get(1).and_then(|a| Tool::named(a))?;
            args.remove(0);
            tool
        }
    };
    if let Some(first) = args.first_mut() {
        *first = tool.name().into();
    }
    Some((tool, args))
}

fn main() -> ExitCode {
    match choose(std::env::args_os().collect()) {
        Some((Tool::SaveMemory, args)) => save_memory::main_from(args),
        Some((Tool::ListMemories, args)) => list_memories::main_from(args),
        Some((Tool::Mcp, args)) => memory_stalker_mcp::main_from(args),
        None => {
            let names: Vec<&str> = Tool::ALL.iter().map(|t| t.name()).collect();
            eprintln!(
                "memory-stalker: name a tool: memory-stalker {{{}}} [ARGS…], or call it by a link of that name",
                names.join("|")
            );
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_link_it_is_called_by_names_the_tool() {
        assert_eq!(
            choose(args(&["/p/bin/list-memories", "search", "x"])),
            Some((Tool::ListMemories, args(&["list-memories", "search", "x"])))
        );
        assert_eq!(
            choose(args(&["save-memory"])),
            Some((Tool::SaveMemory, args(&["save-memory"])))
        );
        // The link's name wins over an argument that names another tool.
        assert_eq!(
            choose(args(&["bin/memory-stalker-mcp", "save-memory"])),
            Some((Tool::Mcp, args(&["memory-stalker-mcp", "save-memory"])))
        );
    }

    #[test]
    fn otherwise_the_first_argument_does() {
        assert_eq!(
            choose(args(&["/x/memory-stalker", "save-memory", "inspect", "f"])),
            Some((Tool::SaveMemory, args(&["save-memory", "inspect", "f"])))
        );
        assert_eq!(choose(args(&["/x/memory-stalker"])), None);
        assert_eq!(choose(args(&["/x/memory-stalker", "rm", "-rf"])), None);
        assert_eq!(choose(args(&["/x/save-memory-old", "--help"])), None);
        assert_eq!(choose(Vec::new()), None);
    }
}
