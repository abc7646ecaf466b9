//! The MCP server: three tools over one project's memories. Every answer comes from
//! the `memory_stalker` library; this module only checks arguments and picks the words.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use memory_stalker::memory::Section;
use memory_stalker::projects;
use memory_stalker::search::SearchRequest;
use memory_stalker::store::{MemoryStore, Shown, search_projects};
use memory_stalker::{Agent, Config};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::answer;

/// What the server tells the client about itself (two sentences, as the model sees it).
pub const INSTRUCTIONS: &str = "This server reads the memories memory-stalker saved at earlier context compactions of this project: each holds a session's last interaction, tasks, plan, files, decisions and summary. Use search_memories when you need an earlier decision, what was done before, a user's standing instruction or the open tasks of an earlier session, then show_memory to read one; list_memories shows the newest.";

/// Default and largest `limit` of `search_memories`.
const SEARCH_LIMIT: (u32, u32) = (5, 20);
/// Default and largest `limit` of `list_memories`.
const LIST_LIMIT: (u32, u32) = (10, 50);

/// The project served and where its memories are.
struct Project {
    config: Config,
    root: PathBuf,
    store: MemoryStore,
    /// Whether a thread is reading into the index what the last answer left unread.
    catching_up: Arc<AtomicBool>,
}

impl Project {
    /// The store of the project `root` as this server reads it: many memories that
    /// arrived behind the index's back are read a slice at a time before an answer
    /// (the answer says what was left), not all of them while the model waits.
    fn store_of(&self, root: &PathBuf) -> MemoryStore {
        if *root == self.root {
            self.store.clone()
        } else {
            self.config.store(root).for_server()
        }
    }

    /// When this project's index was left with memories unread, reads them on a
    /// connection of its own, off the answer's path, one such thread at a time: the
    /// next answers are whole again.
    fn catch_up_later(&self) {
        if self.store.index_unread() == 0 || self.catching_up.swap(true, Ordering::AcqRel) {
            return;
        }
        let store = self.store.clone();
        let flag = Arc::clone(&self.catching_up);
        let spawned = std::thread::Builder::new()
            .name("catch-up-index".into())
            .spawn(move || {
                if let Err(e) = store.verify_index() {
                    eprintln!("memory-stalker-mcp: search index: {e}");
                }
                flag.store(false, Ordering::Release);
            });
        if spawned.is_err() {
            self.catching_up.store(false, Ordering::Release);
        }
    }
}

/// The memory-stalker MCP server of one project.
#[derive(Clone)]
pub struct MemoryServer {
    project: Arc<Project>,
    // Read by the code `#[tool_handler]` generates.
    #[allow(dead_code)]
    tool_router: ToolRouter<Self>,
}

/// Arguments of `search_memories`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// What to look for: a question in plain words, a few keywords, a file name, an error message, a decision. Ranked: memories with more of the words, in their requests, decisions and headlines, come first; not every word has to occur.
    pub query: String,
    /// Search the memories of every project on this machine, not only this one (default false).
    pub all_projects: Option<bool>,
    /// How many sessions to show, best first (default 5, at most 20).
    #[schemars(range(min = 1, max = 20))]
    pub limit: Option<u32>,
    /// Only memories written on or after this day: YYYY-MM-DD, today, yesterday, or Nd (N days ago).
    pub since: Option<String>,
    /// Only memories written on or before this day.
    pub until: Option<String>,
    /// Only this session (a prefix of its id).
    pub session: Option<String>,
    /// Only memories that name this file (a part of its path).
    pub file: Option<String>,
    /// Only memories with open tasks.
    pub open_tasks: Option<bool>,
    /// Only memories of this agent: claude-code or codex.
    pub agent: Option<String>,
}

/// Arguments of `show_memory`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ShowArgs {
    /// Which memory: "latest", "#N" (1 = newest), a date (20260129 or 2026-01-29), a session-id prefix, or a file name.
    pub target: String,
    /// Only this part: metadata, last-interaction, tasks, plan, files, last-action, session, summary or compaction-summary.
    pub section: Option<String>,
}

/// Arguments of `list_memories`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListArgs {
    /// How many memories to show, newest first (default 10, at most 50).
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<u32>,
    /// Only memories whose headline, session, file name, date or trigger contain this text.
    pub filter: Option<String>,
    /// Only memories of one agent's sessions: "claude-code" or "codex" (default both).
    pub agent: Option<String>,
}

/// An `agent` argument: none, or one of the two agents (an error names them).
fn agent(asked: Option<&str>) -> Result<Option<Agent>, String> {
    match asked.map(str::trim).filter(|a| !a.is_empty()) {
        None => Ok(None),
        Some(a) => Agent::from_arg(a).map(Some),
    }
}

/// `limit` checked against its default and maximum: 0 is an error, more than the
/// maximum is the maximum (the answer says how many it shows).
fn limit(asked: Option<u32>, (default, max): (u32, u32)) -> Result<usize, String> {
    match asked {
        None => Ok(default as usize),
        Some(0) => Err(format!(
            "limit must be at least 1 (default {default}, at most {max})."
        )),
        Some(n) => Ok(n.min(max) as usize),
    }
}

impl MemoryServer {
    /// The server of `project`'s memories.
    pub fn new(config: Config, project: PathBuf) -> MemoryServer {
        let store = config.store(&project).for_server();
        let project = Arc::new(Project {
            config,
            root: project,
            store,
            catching_up: Arc::default(),
        });
        // Memories edited in place since the index last looked (by hand, by git) keep
        // their directory's time: one pass over them at start, off the protocol's thread,
        // so the model's searches see the edits. The searches meanwhile use the index as
        // it is.
        let verifying = Arc::clone(&project);
        let _ = std::thread::Builder::new()
            .name("verify-index".into())
            .spawn(move || {
                if let Err(e) = verifying.store.verify_index() {
                    eprintln!("memory-stalker-mcp: search index: {e}");
                }
            });
        MemoryServer {
            project,
            tool_router: Self::tool_router(),
        }
    }

    /// Runs `work` on the blocking pool: reading thousands of files must not stall the
    /// protocol loop, and a panic in it becomes a tool error instead of a dead server.
    async fn blocking(
        &self,
        work: impl FnOnce(&Project) -> Result<String, String> + Send + 'static,
    ) -> Result<String, String> {
        let project = Arc::clone(&self.project);
        tokio::task::spawn_blocking(move || work(&project))
            .await
            .unwrap_or_else(|e| {
                eprintln!("memory-stalker-mcp: a tool failed: {e}");
                Err(format!("Internal error while reading the memories: {e}"))
            })
    }
}

#[tool_router]
impl MemoryServer {
    /// `search_memories`: ranked full-text search.
    #[tool(
        description = "Search the memories memory-stalker saved at earlier context compactions of this project: use it when you need an earlier decision, what was done before, a user's standing instruction, an error met before, or the open tasks of an earlier session. Ask in plain words or keywords; results are ranked (whole words, any form of a word), one per session, with the line that matched. Memories of Claude Code and Codex sessions alike (agent narrows to one). If nothing useful comes back, search again with other words: synonyms, the file or function names, the error text. Read one with show_memory.",
        annotations(
            title = "Search memories",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    async fn search_memories(
        &self,
        Parameters(args): Parameters<SearchArgs>,
    ) -> Result<String, String> {
        let query = args.query.trim().to_string();
        if query.is_empty() {
            return Err("query is empty: give the words to look for.".into());
        }
        let limit = limit(args.limit, SEARCH_LIMIT)?;
        let all = args.all_projects.unwrap_or(false);
        let opts = SearchRequest {
            limit,
            since: args.since,
            until: args.until,
            session: args.session,
            path: args.file,
            open_tasks: args.open_tasks.unwrap_or(false),
            agent: args.agent,
        }
        .options()?;
        self.blocking(move |p| {
            let searched = projects::searched(&p.config, &p.root, all);
            let stores: Vec<(PathBuf, MemoryStore)> = searched
                .iter()
                .map(|r| (r.clone(), p.store_of(r)))
                .collect();
            let found = search_projects(&stores, &query, &opts).map_err(|e| e.to_string())?;
            let unread: usize = stores.iter().map(|(_, s)| s.index_unread()).sum();
            p.catch_up_later();
            if found.total == 0 {
                let where_ = if all {
                    format!(
                        "{} {}",
                        searched.len(),
                        if searched.len() == 1 {
                            "project"
                        } else {
                            "projects"
                        }
                    )
                } else {
                    memory_stalker::untrusted::path(p.store.dir())
                };
                return Ok(answer::with_unread(
                    answer::nothing_matched(&query, &where_),
                    unread,
                ));
            }
            let mut text = answer::search(
                &query,
                &found.hits,
                (found.total, found.exact),
                all,
                &p.root,
            );
            if !found.skipped.is_empty() {
                text = answer::with_skipped(text, found.skipped.len());
            }
            Ok(answer::with_unread(text, unread))
        })
        .await
    }

    /// `show_memory`: one memory, or one section of it.
    #[tool(
        description = "Read one memory memory-stalker saved at an earlier context compaction of this project, whole or one section: use it after search_memories or list_memories, or with target=\"latest\" to see where the previous session left off. A long memory is cut at 8,000 characters; then ask for a section.",
        annotations(
            title = "Show a memory",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    async fn show_memory(&self, Parameters(args): Parameters<ShowArgs>) -> Result<String, String> {
        let target = args.target.trim().to_string();
        if target.is_empty() {
            return Err(
                "target is empty: name a memory (latest, #N, a date, a session-id prefix or a file name)."
                    .into(),
            );
        }
        let section = match args.section.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(name) => Some(Section::parse(name).ok_or_else(|| answer::unknown_section(name))?),
        };
        self.blocking(
            move |p| match p.store.show(&target, section).map_err(|e| e.to_string())? {
                Shown::Memory {
                    memory,
                    section,
                    text,
                } => Ok(answer::memory(&memory, section, &text)),
                Shown::NotFound(found) => Err(answer::not_found(&found, p.store.dir())),
                Shown::Ambiguous(found) => Err(answer::ambiguous(&target, &found)),
                Shown::NoSection { memory, section } => Err(answer::no_section(&memory, section)),
                Shown::TooLarge(memory) => Err(answer::too_large(&memory)),
            },
        )
        .await
    }

    /// `list_memories`: the newest memories, one line each.
    #[tool(
        description = "List the newest memories memory-stalker saved at earlier context compactions of this project, one line each (date, file, open tasks, trigger, agent, headline), and how many there are: use it to see what earlier sessions left, or to pick one for show_memory.",
        annotations(
            title = "List memories",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    async fn list_memories(
        &self,
        Parameters(args): Parameters<ListArgs>,
    ) -> Result<String, String> {
        let limit = limit(args.limit, LIST_LIMIT)?;
        let agent = agent(args.agent.as_deref())?;
        let filter = args
            .filter
            .map(|f| f.trim().to_string())
            .filter(|f| !f.is_empty());
        self.blocking(move |p| {
            let listing = p
                .store
                .list_by(Some(limit), filter.as_deref(), agent)
                .map_err(|e| e.to_string())?;
            let unread = p.store.index_unread();
            p.catch_up_later();
            Ok(answer::with_unread(
                answer::listing(&listing, filter.as_deref(), p.store.dir()),
                unread,
            ))
        })
        .await
    }
}

#[tool_handler]
impl ServerHandler for MemoryServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "memory-stalker-mcp",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(INSTRUCTIONS)
    }
}
