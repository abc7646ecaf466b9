//! The real `memory-stalker-mcp` binary driven by rmcp's own client over stdio, on
//! temporary projects: initialization, the tool list, each tool's answers and errors,
//! a search across projects, a missing project, and 10,000 memories.

use crate::support;

use std::fs;
use std::path::Path;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};
use support::Sandbox;

const BIN: &str = env!("CARGO_BIN_EXE_memory-stalker-mcp");
/// The bound every answer keeps to.
const MAX_CHARS: usize = 8_000;

type Client = RunningService<RoleClient, ()>;

/// Writes an English memory in the current format.
fn memory(
    dir: &Path,
    name: &str,
    session: &str,
    created: &str,
    tasks: (usize, usize),
    summary: &str,
    body: &str,
) {
    support::write_memory(dir, name, session, created, tasks, summary, "en", body);
}

const EN_BODY: &str = "# Session memory — 2026-01-29 17:30:00 +08:00\n\n## Metadata\n\n- Session ID: `x`\n\n## Last complete interaction\n\n### User input\n\n```text\nAdd a retry budget to the uploader.\n```\n\n## Current task list\n\n- [x] Add RetryBudget type\n- [ ] **in progress**: Add retry tests\n\n## Files\n\n### Modified\n\n(none)\n\n## Last action\n\n(none)\n\n---\n\n## AI summary\n\n### Task summary\n\n- Added the retry budget; the budget caps retries at 10 per upload.\n";

/// A project with four memories (two from one session, dated the same day).
fn project() -> Sandbox {
    let s = Sandbox::new();
    let dir = s.memories();
    fs::create_dir_all(&dir).unwrap();
    memory(
        &dir,
        "20260129_173000_ff246da3.md",
        "ff246da3-e969-4e32-aedc-3d096a93020a",
        "2026-01-29T17:30:00+08:00",
        (2, 1),
        "Retry budget for the uploader",
        EN_BODY,
    );
    memory(
        &dir,
        "20260129_180000_ff246da3.md",
        "ff246da3-e969-4e32-aedc-3d096a93020a",
        "2026-01-29T18:00:00+08:00",
        (2, 0),
        "Retry tests written",
        "## AI summary\n\n- The retry tests pass; the user wants tests before every merge.\n",
    );
    memory(
        &dir,
        "20260130_091500_9b7282f9.md",
        "9b7282f9-1111-4222-8333-444455556666",
        "2026-01-30T09:15:00+08:00",
        (0, 0),
        "Login page cleanup",
        "## AI summary\n\n- Decided to drop the legacy login form.\n",
    );
    memory(
        &dir,
        "20260201_080000_c0ffee00.md",
        "c0ffee00-aaaa-bbbb-cccc-000000000000",
        "2026-02-01T08:00:00+08:00",
        (5, 3),
        "Newest: \u{1b}[31mcafé\u{1b}[0m menu",
        "## Current task list\n\n- [ ] menu\n\n## AI summary\n\n- café café retry\n",
    );
    // The user's own memories, as the hook signs them (docs/design.md §4.10).
    support::sign_memories(&s, &dir);
    s
}

/// Starts the server for `project` with only the sandbox's environment.
async fn start(s: &Sandbox, project: &Path) -> Client {
    let transport = TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|cmd| {
        cmd.arg("--project")
            .arg(project)
            .env_clear()
            .envs(s.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .current_dir(s.root.path());
    }))
    .unwrap();
    ().serve(transport).await.unwrap()
}

/// Calls `tool` with `args`: the result's text (paths of the sandbox replaced by
/// `<root>`) and whether it is a tool error.
async fn call(s: &Sandbox, client: &Client, tool: &'static str, args: Value) -> (String, bool) {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    let result: CallToolResult = client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    let text: String = result
        .content
        .iter()
        .map(|c| c.as_text().expect("text content").text.clone())
        .collect();
    assert!(
        text.chars().count() <= MAX_CHARS,
        "{tool}: {} characters",
        text.chars().count()
    );
    (unroot(s, &text), result.is_error == Some(true))
}

/// `text` with the sandbox's paths, and the MACs made with its random key, made stable
/// for snapshots.
fn unroot(s: &Sandbox, text: &str) -> String {
    let root = s.root.path();
    let canonical = root.canonicalize().unwrap();
    let text = text
        .replace(&*canonical.to_string_lossy(), "<root>")
        .replace(&*root.to_string_lossy(), "<root>");
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("writer: \"") {
        let (before, after) = rest.split_at(at + "writer: \"".len());
        out.push_str(before);
        let hex = after.bytes().take_while(u8::is_ascii_hexdigit).count();
        out.push_str(if hex == 64 { "<mac>" } else { &after[..hex] });
        rest = &after[hex..];
    }
    out.push_str(rest);
    out
}

/// A successful answer's text.
async fn ok(s: &Sandbox, client: &Client, tool: &'static str, args: Value) -> String {
    let (text, is_error) = call(s, client, tool, args).await;
    assert!(!is_error, "{tool} failed: {text}");
    text
}

/// A tool error's text.
async fn err(s: &Sandbox, client: &Client, tool: &'static str, args: Value) -> String {
    let (text, is_error) = call(s, client, tool, args).await;
    assert!(is_error, "{tool} should have failed: {text}");
    text
}

#[tokio::test]
async fn initialize_gives_name_version_and_instructions() {
    let s = project();
    let client = start(&s, &s.project()).await;
    let info = client.peer_info().expect("server info");
    let implementation = info.server_info.as_ref().expect("server_info");
    assert_eq!(implementation.name, "memory-stalker-mcp");
    assert_eq!(implementation.version, env!("CARGO_PKG_VERSION"));
    assert!(info.capabilities.tools.is_some());
    insta::assert_snapshot!("instructions", info.instructions.clone().unwrap());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn tools_list() {
    let s = project();
    let client = start(&s, &s.project()).await;
    let tools = client.list_all_tools().await.unwrap();
    let listed: Vec<Value> = tools
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "description": t.description,
                "annotations": t.annotations,
                "input_schema": *t.input_schema,
            })
        })
        .collect();
    insta::assert_json_snapshot!("tools_list", listed);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn search_answers() {
    let s = project();
    let client = start(&s, &s.project()).await;
    insta::assert_snapshot!(
        "search_retry",
        ok(
            &s,
            &client,
            "search_memories",
            json!({"query": "retry budget"})
        )
        .await
    );
    insta::assert_snapshot!(
        "search_retry_limit_1",
        ok(
            &s,
            &client,
            "search_memories",
            json!({"query": "RETRY", "limit": 1})
        )
        .await
    );
    // Found through a related word alone ("legacy" for "obsolete"): the answer says so.
    insta::assert_snapshot!(
        "search_related_only",
        ok(&s, &client, "search_memories", json!({"query": "obsolete"})).await
    );
    insta::assert_snapshot!(
        "search_nothing",
        ok(
            &s,
            &client,
            "search_memories",
            json!({"query": "kubernetes"})
        )
        .await
    );
    // Past the maximum is the maximum, not an error.
    let many = ok(
        &s,
        &client,
        "search_memories",
        json!({"query": "retry", "limit": 1000}),
    )
    .await;
    assert!(
        many.starts_with("3 memories match \"retry\" (best 2 sessions):"),
        "{many}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn show_answers() {
    let s = project();
    let client = start(&s, &s.project()).await;
    insta::assert_snapshot!(
        "show_whole",
        ok(
            &s,
            &client,
            "show_memory",
            json!({"target": "20260129_173000_ff246da3.md"})
        )
        .await
    );
    insta::assert_snapshot!(
        "show_section",
        ok(
            &s,
            &client,
            "show_memory",
            json!({"target": "20260129_173000_ff246da3", "section": "tasks"})
        )
        .await
    );
    let latest = ok(&s, &client, "show_memory", json!({"target": "latest"})).await;
    assert!(
        latest.starts_with("Memory 20260201_080000_c0ffee00.md (2026-02-01 08:00"),
        "{latest}"
    );
    assert!(
        !latest.contains('\u{1b}'),
        "control characters are stripped"
    );
    let second = ok(
        &s,
        &client,
        "show_memory",
        json!({"target": "#2", "section": "AI summary"}),
    )
    .await;
    assert!(
        second.contains("Decided to drop the legacy login form."),
        "{second}"
    );
    let by_session = ok(&s, &client, "show_memory", json!({"target": "9b7282f9"})).await;
    assert!(
        by_session.starts_with("Memory 20260130_091500_9b7282f9.md"),
        "{by_session}"
    );
    let by_date = ok(&s, &client, "show_memory", json!({"target": "2026-02-01"})).await;
    assert!(
        by_date.starts_with("Memory 20260201_080000_c0ffee00.md"),
        "{by_date}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn list_answers() {
    let s = project();
    fs::write(s.memories().join("notes.md"), "# my notes\n").unwrap();
    // Named like a memory, but its front matter never ends: skipped, not fatal.
    fs::write(
        s.memories().join("20260131_000000_badbad00.md"),
        "---\nmemory_stalker: 1\nsession_id: \"bad\"\n",
    )
    .unwrap();
    let client = start(&s, &s.project()).await;
    insta::assert_snapshot!(
        "list_all",
        ok(&s, &client, "list_memories", json!({})).await
    );
    insta::assert_snapshot!(
        "list_filtered",
        ok(
            &s,
            &client,
            "list_memories",
            json!({"limit": 1, "filter": "retry"})
        )
        .await
    );
    insta::assert_snapshot!(
        "list_filter_nothing",
        ok(
            &s,
            &client,
            "list_memories",
            json!({"filter": "kubernetes"})
        )
        .await
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn bad_arguments_are_tool_errors_and_the_server_stays_up() {
    let s = project();
    let client = start(&s, &s.project()).await;
    let mut errors = Vec::new();
    for (tool, args) in [
        ("search_memories", json!({"query": "   "})),
        ("search_memories", json!({"query": "retry", "limit": 0})),
        ("search_memories", json!({})),
        ("search_memories", json!({"query": 42})),
        ("search_memories", json!({"query": "retry", "limit": -1})),
        (
            "search_memories",
            json!({"query": "retry", "all_projects": "yes"}),
        ),
        ("show_memory", json!({"target": ""})),
        (
            "show_memory",
            json!({"target": "latest", "section": "chapter-9"}),
        ),
        ("show_memory", json!({"target": "deadbeef"})),
        ("show_memory", json!({"target": "#99"})),
        ("show_memory", json!({"target": "2026-01-29"})),
        (
            "show_memory",
            json!({"target": "20260130_091500_9b7282f9.md", "section": "plan"}),
        ),
        ("show_memory", json!({})),
        ("list_memories", json!({"limit": 0})),
        ("list_memories", json!({"limit": "ten"})),
    ] {
        let text = err(&s, &client, tool, args.clone()).await;
        errors.push(format!("{tool} {args}\n{text}\n"));
    }
    insta::assert_snapshot!("errors", errors.join("\n"));
    // Still answering.
    let list = ok(&s, &client, "list_memories", json!({"limit": 1})).await;
    assert!(list.starts_with("4 memories in all (newest 1):"), "{list}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_missing_project_has_no_memories_yet() {
    let s = Sandbox::new();
    let gone = s.root.path().join("no-such-project");
    let client = start(&s, &gone).await;
    insta::assert_snapshot!(
        "missing_list",
        ok(&s, &client, "list_memories", json!({})).await
    );
    insta::assert_snapshot!(
        "missing_search",
        ok(&s, &client, "search_memories", json!({"query": "retry"})).await
    );
    insta::assert_snapshot!(
        "missing_show",
        err(&s, &client, "show_memory", json!({"target": "latest"})).await
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn search_all_projects() {
    let s = project();
    // Another project, known from the registry the hook keeps in the plugin's data
    // directory; a third in the registry has no memories and is not searched.
    let other = s.root.path().join("other");
    let other_dir = other.join(".claude/memories");
    fs::create_dir_all(&other_dir).unwrap();
    memory(
        &other_dir,
        "20260301_100000_11112222.md",
        "11112222-0000-0000-0000-000000000000",
        "2026-03-01T10:00:00+00:00",
        (1, 1),
        "Other project's uploader",
        "## AI summary\n\n- uploader retry budget elsewhere, retry budget again\n",
    );
    support::sign_memories(&s, &other_dir);
    let data = s.root.path().join("plugin-data");
    fs::create_dir_all(&data).unwrap();
    fs::write(
        data.join("projects.txt"),
        format!(
            "{}\n{}\n",
            other.display(),
            s.root.path().join("empty").display()
        ),
    )
    .unwrap();
    let client = start(&s, &s.project()).await;
    insta::assert_snapshot!(
        "search_all_projects",
        ok(
            &s,
            &client,
            "search_memories",
            json!({"query": "retry budget", "all_projects": true})
        )
        .await
    );
    let here = ok(
        &s,
        &client,
        "search_memories",
        json!({"query": "elsewhere"}),
    )
    .await;
    assert!(
        here.starts_with("No memory matches \"elsewhere\""),
        "{here}"
    );
    let everywhere = ok(
        &s,
        &client,
        "search_memories",
        json!({"query": "elsewhere", "all_projects": true}),
    )
    .await;
    assert!(
        everywhere.starts_with("1 memory matches \"elsewhere\" (best 1 session):"),
        "{everywhere}"
    );
    let nowhere = ok(
        &s,
        &client,
        "search_memories",
        json!({"query": "kubernetes", "all_projects": true}),
    )
    .await;
    assert!(nowhere.contains("(searched 2 projects)"), "{nowhere}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn ten_thousand_memories_stay_within_the_bound() {
    let s = Sandbox::new();
    let dir = s.memories();
    fs::create_dir_all(&dir).unwrap();
    let long_summary = "A long headline about the retry budget ".repeat(20);
    let long_body = format!(
        "## Last complete interaction\n\n{}\n\n## Current task list\n\n{}\n\n## AI summary\n\n- retry budget\n",
        "The user asked about the retry budget again. ".repeat(400),
        "- [ ] a task about retries\n".repeat(600),
    );
    for i in 0..10_000u32 {
        let name = format!(
            "2025{:02}{:02}_{:02}{:02}{:02}_{:08x}.md",
            1 + i / 800 % 12,
            1 + i / 30 % 28,
            i % 24,
            i % 60,
            i / 60 % 60,
            i
        );
        let session = format!("{i:08x}-0000-0000-0000-000000000000");
        let body = if i % 1000 == 0 {
            long_body.as_str()
        } else {
            "## AI summary\n\n- retry budget, round two\n"
        };
        memory(
            &dir,
            &name,
            &session,
            "2025-06-01T00:00:00+00:00",
            (3, 1),
            &long_summary,
            body,
        );
    }
    let client = start(&s, &s.project()).await;
    let search_all = || {
        ok(
            &s,
            &client,
            "search_memories",
            json!({"query": "retry budget", "limit": 20}),
        )
    };
    // No index yet: the first answer reads the newest 1,000 and says what it left; a
    // thread of the server reads the rest, and a later answer is whole.
    let mut search = search_all().await;
    assert!(
        search.starts_with("1000 memories match") && search.contains("(Partial: 9000 memories"),
        "{search}"
    );
    let until = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while search.contains("(Partial: ") {
        assert!(std::time::Instant::now() < until, "{search}");
        std::thread::sleep(std::time::Duration::from_millis(300));
        search = search_all().await;
    }
    assert!(
        search.starts_with("at least 10000 memories match \"retry budget\" (best"),
        "{search}"
    );
    // Twenty hits with long headlines and snippets: all of them, or a note for the rest.
    assert!(
        search.contains("\n20. ") || search.contains("more not shown"),
        "{search}"
    );
    let list = ok(&s, &client, "list_memories", json!({"limit": 50})).await;
    assert!(
        list.starts_with("10000 memories in all (newest 50):"),
        "{list}"
    );
    assert!(list.contains("more not shown"), "{list}");
    let filtered = ok(
        &s,
        &client,
        "list_memories",
        json!({"limit": 50, "filter": "0000"}),
    )
    .await;
    assert!(filtered.contains("memories match filter"), "{filtered}");
    // The memories with the long body: whole, and one section.
    let whole = ok(&s, &client, "show_memory", json!({"target": "00000000"})).await;
    assert!(whole.contains("[Cut at 8,000 characters"), "{whole}");
    assert!(
        whole.contains("its sections: last-interaction, tasks, summary."),
        "{whole}"
    );
    let tasks = ok(
        &s,
        &client,
        "show_memory",
        json!({"target": "00000000", "section": "tasks"}),
    )
    .await;
    assert!(tasks.contains("the tasks section has"), "{tasks}");
    let ambiguous = err(&s, &client, "show_memory", json!({"target": "202501"})).await;
    assert!(
        ambiguous.starts_with("1200 memories match \"202501\""),
        "{ambiguous}"
    );
    assert!(ambiguous.contains("(and 1180 more"), "{ambiguous}");
    let everywhere = ok(
        &s,
        &client,
        "search_memories",
        json!({"query": "retry", "all_projects": true}),
    )
    .await;
    assert!(
        everywhere.starts_with("10000 memories match"),
        "{everywhere}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_project_comes_from_claude_project_dir_else_the_current_directory() {
    let mut s = project();
    let start_in = |s: &Sandbox, cwd: &Path| {
        let env = s.env.clone();
        let cwd = cwd.to_path_buf();
        TokioChildProcess::new(tokio::process::Command::new(BIN).configure(move |cmd| {
            cmd.env_clear()
                .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                .current_dir(&cwd);
        }))
        .unwrap()
    };
    // From a subdirectory of the project: its nearest ancestor with .claude/memories.
    let deep = s.project().join("src/a");
    fs::create_dir_all(&deep).unwrap();
    let client = ().serve(start_in(&s, &deep)).await.unwrap();
    let list = ok(&s, &client, "list_memories", json!({"limit": 1})).await;
    assert!(list.starts_with("4 memories in all"), "{list}");
    client.cancel().await.unwrap();
    // CLAUDE_PROJECT_DIR wins over the current directory; empty, it is not set.
    let elsewhere = s.root.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    s.set("CLAUDE_PROJECT_DIR", s.project().to_string_lossy());
    let client = ().serve(start_in(&s, &elsewhere)).await.unwrap();
    let list = ok(&s, &client, "list_memories", json!({"limit": 1})).await;
    assert!(list.starts_with("4 memories in all"), "{list}");
    client.cancel().await.unwrap();
    s.set("CLAUDE_PROJECT_DIR", "");
    let client = ().serve(start_in(&s, &elsewhere)).await.unwrap();
    let list = ok(&s, &client, "list_memories", json!({})).await;
    assert_eq!(
        list,
        "No memories yet in <root>/elsewhere/.claude/memories. memory-stalker saves one each time Claude Code or Codex compacts a session of this project.\n"
    );
    client.cancel().await.unwrap();
}

#[cfg(unix)]
#[tokio::test]
async fn a_memories_directory_behind_a_link_is_refused_with_a_tool_error() {
    let s = Sandbox::new();
    let real = s.root.path().join("real");
    fs::create_dir_all(real.join("memories")).unwrap();
    fs::create_dir_all(s.project()).unwrap();
    std::os::unix::fs::symlink(&real, s.project().join(".claude")).unwrap();
    let client = start(&s, &s.project()).await;
    let list = err(&s, &client, "list_memories", json!({})).await;
    let search = err(&s, &client, "search_memories", json!({"query": "x"})).await;
    let show = err(&s, &client, "show_memory", json!({"target": "latest"})).await;
    insta::assert_snapshot!("behind_a_link", format!("{list}\n{search}\n{show}"));
    client.cancel().await.unwrap();
}

/// Memories of both agents: every answer says which agent's session a memory is of, and
/// `agent` keeps one of them.
#[tokio::test]
async fn memories_of_both_agents_are_named_and_filtered() {
    let s = project();
    let codex = "---\nmemory_stalker: 1\nsession_id: \"0c0de000-0000-7000-8000-000000000000\"\ncreated: \"2026-02-02T10:00:00+08:00\"\ntrigger: \"auto\"\nagent: \"codex\"\nproject: \"/p\"\ntranscript: \"/r.jsonl\"\ntask_count: 1\ntasks_open: 1\nsummary: \"Retry docs written in Codex\"\nsummary_source: \"offline\"\nlang: \"en\"\n---\n\n## AI summary\n\n- retry docs in the README\n";
    fs::write(s.memories().join("20260202_100000_0c0de000.md"), codex).unwrap();
    // Ours (signed as save-memory signs), so the answers are about agents alone.
    support::sign_memory(&s, &s.memories().join("20260202_100000_0c0de000.md"));
    let client = start(&s, &s.project()).await;
    let listed = ok(&s, &client, "list_memories", json!({"agent": "codex"})).await;
    assert!(listed.starts_with("1 memory in all"), "{listed}");
    assert!(listed.contains("20260202_100000_0c0de000.md  1 of 1 tasks open  auto  Codex  Retry docs written in Codex"), "{listed}");
    let found = ok(
        &s,
        &client,
        "search_memories",
        json!({"query": "retry", "agent": "codex"}),
    )
    .await;
    assert!(found.contains("Codex session 0c0de000"), "{found}");
    assert!(!found.contains("ff246da3"), "{found}");
    let all = ok(&s, &client, "search_memories", json!({"query": "retry"})).await;
    assert!(
        all.contains("Codex session 0c0de000") && all.contains("Claude Code session ff246da3"),
        "{all}"
    );
    let shown = ok(&s, &client, "show_memory", json!({"target": "0c0de000"})).await;
    assert!(
        shown.starts_with(
            "Memory 20260202_100000_0c0de000.md (2026-02-02 10:00, Codex session 0c0de000"
        ),
        "{shown}"
    );
    let e = err(&s, &client, "list_memories", json!({"agent": "gemini"})).await;
    assert_eq!(
        e,
        "agent \"gemini\" is not one of \"claude-code\" and \"codex\"."
    );
    client.cancel().await.unwrap();
}
