//! `list-memories import` (docs/design.md §7.11) on real temporary trees of both agents —
//! Claude Code's `projects/` and Codex's `sessions/` — run as the real binary: nested
//! project paths, a project deleted since, one switched off, empty, 0-byte and cut-off
//! transcripts, a linked transcript, sub-agents and a summary call of ours; a second run,
//! a session that went on, and a run killed halfway then run again.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{Sandbox, text};

const BIN: &str = env!("CARGO_BIN_EXE_list-memories");

/// A Claude Code transcript being written, record by record, a minute apart.
struct Claude {
    sid: String,
    cwd: PathBuf,
    lines: Vec<String>,
    minute: u32,
}

impl Claude {
    fn new(sid: &str, cwd: &Path) -> Claude {
        Claude {
            sid: sid.into(),
            cwd: cwd.into(),
            lines: Vec::new(),
            minute: 0,
        }
    }

    fn push(&mut self, mut record: Value) -> &mut Self {
        self.minute += 1;
        let base = json!({
            "isSidechain": false, "sessionId": self.sid, "cwd": self.cwd,
            "version": "2.1.14", "gitBranch": "main",
            "uuid": format!("u{}-{}", self.sid, self.lines.len()),
            "timestamp": format!("2026-03-01T{:02}:{:02}:00Z", 8 + self.minute / 60, self.minute % 60),
        });
        for (k, v) in base.as_object().unwrap() {
            record
                .as_object_mut()
                .unwrap()
                .entry(k)
                .or_insert(v.clone());
        }
        self.lines.push(record.to_string());
        self
    }

    fn prompt(&mut self, text: &str) -> &mut Self {
        self.push(json!({"type": "user", "message": {"role": "user", "content": text}}))
    }

    fn reply(&mut self, text: &str) -> &mut Self {
        let id = format!("m{}", self.lines.len());
        self.push(
            json!({"type": "assistant", "message": {"id": id, "role": "assistant",
            "model": "claude-opus-4-5", "content": [{"type": "text", "text": text}]}}),
        )
    }

    fn bash(&mut self, command: &str, output: &str) -> &mut Self {
        let id = format!("toolu_{}", self.lines.len());
        self.push(
            json!({"type": "assistant", "message": {"id": format!("m{id}"),
            "role": "assistant", "model": "claude-opus-4-5",
            "content": [{"type": "tool_use", "id": id, "name": "Bash",
                         "input": {"command": command}}]}}),
        );
        self.push(
            json!({"type": "user", "message": {"role": "user", "content": [
            {"tool_use_id": id, "type": "tool_result", "content": output, "is_error": false}]},
            "toolUseResult": {"stdout": output, "stderr": ""}}),
        )
    }

    fn compact(&mut self) -> &mut Self {
        self.push(json!({"type": "system", "subtype": "compact_boundary",
            "content": "Conversation compacted", "parentUuid": null}));
        self.push(json!({"type": "user", "isCompactSummary": true,
            "isVisibleInTranscriptOnly": true, "message": {"role": "user",
            "content": "This session is being continued from a previous conversation. Summary: work went on."}}))
    }

    fn text(&self) -> String {
        self.lines.iter().map(|l| format!("{l}\n")).collect()
    }
}

/// A Codex rollout: `session_meta`, then a request, a command, a reply, a compaction and
/// more work.
fn codex_rollout(id: &str, cwd: &Path, request: &str) -> String {
    // Codex writes `timestamp` first (which is how a rollout is told from a Claude Code
    // transcript); a `json!` object would sort it after `payload`.
    let line = |second: u32, kind: &str, payload: Value| {
        format!(
            "{{\"timestamp\":\"2026-03-02T09:00:{second:02}Z\",\"type\":\"{kind}\",\"payload\":{payload}}}\n"
        )
    };
    [
        line(
            0,
            "session_meta",
            json!({"id": id, "cwd": cwd, "cli_version": "0.169.0",
            "source": "cli", "thread_source": "user"}),
        ),
        line(1, "turn_context", json!({"cwd": cwd})),
        line(
            2,
            "response_item",
            json!({"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": request}]}),
        ),
        line(
            3,
            "response_item",
            json!({"type": "function_call", "call_id": "c1",
            "name": "exec_command", "arguments": "{\"cmd\":\"cargo test\"}"}),
        ),
        line(
            4,
            "response_item",
            json!({"type": "function_call_output", "call_id": "c1",
            "output": "Process exited with code 0\nOutput:\nok"}),
        ),
        line(
            5,
            "compacted",
            json!({"message": "Codex's summary", "replacement_history": []}),
        ),
        line(
            6,
            "response_item",
            json!({"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "Now document the flaky test quarantine"}]}),
        ),
        line(
            7,
            "response_item",
            json!({"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": "Documented it in TESTING.md."}]}),
        ),
    ]
    .concat()
}

/// The trees of a user with some history: Claude Code's and Codex's, and the projects.
struct History {
    s: Sandbox,
}

impl History {
    fn new() -> History {
        let mut s = Sandbox::new();
        let root = s.root.path().to_path_buf();
        s.set("CLAUDE_CONFIG_DIR", root.join("claude").to_string_lossy());
        s.set("CODEX_HOME", root.join("codex").to_string_lossy());
        History { s }
    }

    fn root(&self) -> &Path {
        self.s.root.path()
    }

    fn work(&self, rel: &str) -> PathBuf {
        self.root().join("work").join(rel)
    }

    /// Where Claude Code keeps the transcript of a session started in `cwd` (named by
    /// the part of its path under the root, so that snapshots do not hold the root).
    fn claude_file(&self, cwd: &Path, sid: &str) -> PathBuf {
        let slug: String = cwd
            .strip_prefix(self.root())
            .unwrap_or(cwd)
            .to_string_lossy()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let dir = self
            .root()
            .join("claude/projects")
            .join(format!("-root-{slug}"));
        fs::create_dir_all(&dir).unwrap();
        dir.join(format!("{sid}.jsonl"))
    }

    fn codex_file(&self, id: &str) -> PathBuf {
        let dir = self.root().join("codex/sessions/2026/03/02");
        fs::create_dir_all(&dir).unwrap();
        dir.join(format!("rollout-2026-03-02T09-00-00-{id}.jsonl"))
    }

    /// Runs `list-memories ARGS`; exit code, stdout and stderr with the root as `<root>`.
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = self.command(args).output().unwrap();
        let (o, e) = text(&out);
        let root = self.root().to_string_lossy().into_owned();
        (
            out.status.code().unwrap_or(-1),
            o.replace(&root, "<root>"),
            e.replace(&root, "<root>"),
        )
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .env_clear()
            .envs(self.s.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .current_dir(self.root());
        c
    }

    /// `import --json`, its time set to 0.
    fn import_json(&self, extra: &[&str]) -> Value {
        let mut args = vec!["import", "--json"];
        args.extend_from_slice(extra);
        let (code, out, err) = self.run(&args);
        assert!(code == 0 || code == 1, "{code}: {out}{err}");
        let mut v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
        v["seconds"] = json!(0);
        v
    }

    /// The memory files of the project at `dir`, sorted.
    fn memories(&self, dir: &Path) -> Vec<String> {
        support::files_in(&dir.join(".claude/memories"))
            .into_iter()
            .filter(|n| n.ends_with(".md") && n != "INDEX.md")
            .collect()
    }

    /// `(trigger, transcript_bytes)` of each memory of the project at `dir`.
    fn front(&self, dir: &Path) -> Vec<(String, u64)> {
        self.memories(dir)
            .iter()
            .map(|n| {
                let text = fs::read_to_string(dir.join(".claude/memories").join(n)).unwrap();
                let field = |k: &str| {
                    text.lines()
                        .find_map(|l| l.strip_prefix(k))
                        .unwrap_or_default()
                        .trim()
                        .to_string()
                };
                (
                    field("trigger: ").trim_matches('"').to_string(),
                    field("transcript_bytes: ").parse().unwrap(),
                )
            })
            .collect()
    }
}

/// Builds the history the import tests share; returns it and the main session's
/// transcript.
fn history() -> (History, PathBuf) {
    let h = History::new();
    let app = h.work("app");
    let sub = h.work("app/packages/sub");
    let off = h.work("off");
    for d in [&app, &sub, &off] {
        fs::create_dir_all(d).unwrap();
    }
    fs::create_dir_all(off.join(".claude")).unwrap();
    fs::write(
        off.join(".claude/memory-stalker.json"),
        "{\"enabled\": false}",
    )
    .unwrap();

    // The main session: two compactions, then more work.
    let mut c = Claude::new("aaaa1111-0000-4000-8000-000000000001", &app);
    c.prompt("Add a retry budget to the uploader")
        .bash("cargo test", "test result: ok")
        .reply("Added RetryBudget in src/retry.rs.")
        .compact()
        .prompt("Treat 429 as retryable and honour Retry-After")
        .reply("Done: 429 is retried after Retry-After.")
        .compact()
        .prompt("Document the retry behaviour in the README")
        .reply("Documented it.");
    let main = h.claude_file(&app, &c.sid);
    fs::write(&main, c.text()).unwrap();

    // A session started in a nested project: its memories go there, not to `app`.
    let mut n = Claude::new("bbbb2222-0000-4000-8000-000000000002", &sub);
    n.prompt("Rename the sub package's exports")
        .reply("Renamed them.");
    fs::write(h.claude_file(&sub, &n.sid), n.text()).unwrap();

    // Its last line cut off (a crash while Claude Code wrote it).
    let mut t = Claude::new("cccc3333-0000-4000-8000-000000000003", &app);
    t.prompt("Profile the thumbnail service")
        .reply("The resize is the hot spot.");
    fs::write(
        h.claude_file(&app, &t.sid),
        t.text() + "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"te",
    )
    .unwrap();

    // A project deleted since, and one switched off.
    let gone = h.work("gone");
    let mut g = Claude::new("dddd4444-0000-4000-8000-000000000004", &gone);
    g.prompt("Migrate the billing webhook").reply("Migrated.");
    fs::write(h.claude_file(&gone, &g.sid), g.text()).unwrap();
    let mut o = Claude::new("eeee5555-0000-4000-8000-000000000005", &off);
    o.prompt("Keep this one out of memory").reply("Sure.");
    fs::write(h.claude_file(&off, &o.sid), o.text()).unwrap();

    // Nothing to remember: 0 bytes; no conversation at all.
    fs::write(
        h.claude_file(&app, "ffff6666-0000-4000-8000-000000000006"),
        "",
    )
    .unwrap();
    fs::write(
        h.claude_file(&app, "ffff7777-0000-4000-8000-000000000007"),
        "{\"type\":\"file-history-snapshot\",\"messageId\":\"x\",\"snapshot\":{}}\n",
    )
    .unwrap();

    // A sub-agent's file beside the sessions (Claude Code 2.0), and one of ours: a
    // summary call whose transcript was kept.
    let mut a = Claude::new("aaaa1111-0000-4000-8000-000000000001", &app);
    a.prompt("Look for callers of upload()")
        .reply("Three callers.");
    fs::write(
        h.claude_file(&app, "agent-a1b2c3d4"),
        a.text()
            .replace("\"isSidechain\":false", "\"isSidechain\":true"),
    )
    .unwrap();
    let mut ours = Claude::new("abab8888-0000-4000-8000-000000000008", &app);
    ours.prompt("You write the summary section of a session memory.\n<session-data-1f2e>\nUser: x\n</session-data-1f2e>\n")
        .reply("{\"headline\": \"x\"}");
    fs::write(h.claude_file(&app, &ours.sid), ours.text()).unwrap();

    // A link named like a transcript: refused.
    std::os::unix::fs::symlink(&main, h.claude_file(&app, "12345678-link")).unwrap();

    // A Codex session in the same project.
    let id = "0199c0de-0000-7000-8000-000000000009";
    fs::write(
        h.codex_file(id),
        codex_rollout(id, &app, "Quarantine the flaky upload test"),
    )
    .unwrap();
    (h, main)
}

#[test]
fn import_of_both_agents_trees() {
    let (h, _) = history();
    let (app, sub) = (h.work("app"), h.work("app/packages/sub"));

    let dry = h.import_json(&["--dry-run"]);
    assert_eq!(dry["memories"], 7, "{dry:#}");
    assert!(h.memories(&app).is_empty(), "a dry run writes nothing");

    let (code, out, err) = h.run(&["import"]);
    // Stderr is a pipe here, not a terminal: no progress bar.
    assert!(!err.contains('\r') && !err.contains('['), "{err}");
    let line = normalised(&out);
    insta::assert_snapshot!("import_summary", format!("[exit {code}]\n{line}{err}"));
    assert_eq!(code, 0);

    // Each session in its own project; the nested one in the nested project.
    assert_eq!(h.memories(&app).len(), 6, "{:?}", h.memories(&app));
    assert_eq!(h.memories(&sub).len(), 1);
    assert!(h.memories(&h.work("off")).is_empty());
    assert!(
        !h.work("gone").exists(),
        "no directory made for a project that is gone"
    );
    let triggers: Vec<String> = h.front(&app).into_iter().map(|(t, _)| t).collect();
    assert!(triggers.iter().all(|t| t == "import"), "{triggers:?}");

    // The session cut off mid-line: its memory is of the whole lines.
    let cut = h.claude_file(&app, "cccc3333-0000-4000-8000-000000000003");
    let whole = fs::read_to_string(&cut).unwrap().rfind('\n').unwrap() as u64 + 1;
    assert!(
        h.front(&app).iter().any(|(_, b)| *b == whole),
        "{:?}",
        h.front(&app)
    );

    // Imported memories are listed and searched like any other.
    let app_s = app.to_string_lossy().into_owned();
    let (code, out, _) = h.run(&[
        "--project",
        &app_s,
        "search",
        "flaky upload test quarantine",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0199c0de"), "{out}");
    let (code, out, _) = h.run(&["--project", &app_s, "search", "Retry-After"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("aaaa1111"), "{out}");

    // A second run adds nothing.
    let again = h.import_json(&[]);
    assert_eq!(again["memories"], 0, "{again:#}");
    assert_eq!(again["up_to_date"], 4, "{again:#}");
    assert_eq!(h.memories(&app).len(), 6);
}

#[test]
fn import_json_and_status_snapshots() {
    let (h, _) = history();
    let v = h.import_json(&[]);
    insta::assert_json_snapshot!("import_json", v);
    // And one memory the hook saved at a compaction, before this import.
    let dir = h.work("app/.claude/memories");
    support::write_memory(
        &dir,
        "20260303_101500_9f9f9f9f.md",
        "9f9f9f9f-0000-4000-8000-00000000000a",
        "2026-03-03T10:15:00+00:00",
        (0, 0),
        "Split the uploader into chunks",
        "en",
        "## AI summary\n\n- chunks\n",
    );
    support::sign_memory(&h.s, &dir.join("20260303_101500_9f9f9f9f.md"));
    let app = h.work("app").to_string_lossy().into_owned();
    let (code, out, err) = h.run(&["--project", &app, "status"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("import_status", normalised(&out));
    let (_, out, _) = h.run(&["--project", &app, "status", "--json"]);
    let mut s: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (
            &s["sessions"],
            &s["imported"],
            &s["saved"],
            &s["compactions"]
        ),
        (&json!(4), &json!(6), &json!(1), &json!(1)),
        "{s:#}"
    );
    assert_eq!(
        s["last_save"]["file"], "20260303_101500_9f9f9f9f.md",
        "{s:#}"
    );
    s["last_import"] = json!("<time>");
    insta::assert_json_snapshot!("import_status_json", s);
}

#[test]
fn import_is_bounded_by_project_agent_and_since() {
    let (h, _) = history();
    let sub = h.work("app/packages/sub").to_string_lossy().into_owned();
    let v = h.import_json(&["--project", &sub]);
    assert_eq!(
        (&v["memories"], &v["other_projects"]),
        (&json!(1), &json!(4)),
        "{v:#}"
    );
    assert!(h.memories(&h.work("app")).is_empty());
    let v = h.import_json(&["--agent", "codex"]);
    assert_eq!(
        (&v["memories"], &v["transcripts"]),
        (&json!(2), &json!(1)),
        "{v:#}"
    );
    assert_eq!(v["imported"], json!({"codex": 1}));
    // Every transcript was written today: none is older than tomorrow would allow.
    let v = h.import_json(&["--since", "today"]);
    assert_eq!(v["older"], 0, "{v:#}");
    let (code, _, err) = h.run(&["import", "--since", "last tuesday"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is not a day"), "{err}");
}

#[test]
fn a_session_that_went_on_adds_only_its_new_memories() {
    let (h, main) = history();
    let app = h.work("app");
    h.import_json(&[]);
    let before = h.front(&app);
    let size = fs::metadata(&main).unwrap().len();
    // The session is resumed: another compaction, and more work.
    let mut more = Claude::new("aaaa1111-0000-4000-8000-000000000001", &app);
    more.minute = 200;
    more.prompt("Add a metric for retries")
        .reply("Added uploader_retries_total.")
        .compact()
        .prompt("Ship it")
        .reply("Released 1.4.0.");
    let mut f = fs::OpenOptions::new().append(true).open(&main).unwrap();
    std::io::Write::write_all(&mut f, more.text().as_bytes()).unwrap();
    drop(f);
    let v = h.import_json(&[]);
    assert_eq!(
        (&v["at_compactions"], &v["at_ends"]),
        (&json!(1), &json!(1)),
        "{v:#}"
    );
    let after = h.front(&app);
    assert_eq!(after.len(), before.len() + 2);
    for m in &before {
        assert!(after.contains(m), "an earlier memory stays: {m:?}");
    }
    // The new compaction's memory is of the transcript at that boundary: past the
    // end the first import saw.
    let new: Vec<u64> = after
        .iter()
        .filter(|m| !before.contains(m))
        .map(|m| m.1)
        .collect();
    assert!(new.iter().all(|b| *b > size), "{new:?} after {size}");
    assert_eq!(h.import_json(&[])["memories"], 0);
}

#[test]
fn an_import_killed_halfway_finishes_on_the_next_run() {
    let h = History::new();
    let app = h.work("big");
    fs::create_dir_all(&app).unwrap();
    let output = "ok\n".repeat(20_000);
    for i in 0..60 {
        let mut c = Claude::new(
            &format!("{i:08x}-0000-4000-8000-00000000000{}", i % 10),
            &app,
        );
        c.prompt(&format!("Task {i}: harden the importer against kill -9"));
        for _ in 0..3 {
            c.bash("cargo test", &output).reply("Passed.").compact();
        }
        c.prompt("Finish").reply("Finished.");
        fs::write(h.claude_file(&app, &c.sid), c.text()).unwrap();
    }
    let expected = h.import_json(&["--dry-run"])["memories"].as_u64().unwrap();
    assert_eq!(expected, 60 * 4);

    let mut child = h
        .command(&["import", "--jobs", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while h.memories(&app).len() < 10 && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(2));
    }
    // SIGKILL: no chance to clean anything up.
    child.kill().unwrap();
    child.wait().unwrap();
    let halfway = h.memories(&app).len() as u64;
    assert!(
        halfway > 0 && halfway < expected,
        "killed at {halfway} of {expected}"
    );

    let v = h.import_json(&[]);
    assert_eq!(v["memories"].as_u64().unwrap(), expected - halfway, "{v:#}");
    let all = h.front(&app);
    assert_eq!(all.len() as u64, expected);
    // Not one memory twice: each (session, place) once.
    let mut keys: Vec<(String, u64)> = h
        .memories(&app)
        .iter()
        .zip(&all)
        .map(|(name, (_, b))| (name[16..24].to_string(), *b))
        .collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len() as u64, expected);
    assert_eq!(h.import_json(&[])["memories"], 0);
}

/// The summary line with its time as `<T>`, and the time of the last import (now) as
/// `<now>`.
fn normalised(out: &str) -> String {
    let took = regex::Regex::new(r" in \d+\.\d s;").unwrap();
    let now = regex::Regex::new(r"last \d{4}-\d\d-\d\d \d\d:\d\d\)").unwrap();
    let out = took.replace_all(out, " in <T> s;");
    now.replace_all(&out, "last <now>)").into_owned()
}

/// `--model-summaries N`: a model writes the summary of N memories, no more; the others
/// get the offline one. Every call is on the ledger, which `status` reads.
#[test]
fn a_model_writes_only_as_many_summaries_as_the_budget_allows() {
    use support::http::{FakeServer, MODEL_SUMMARY, Reply, anthropic_message};
    let server = FakeServer::start(|_, _| Reply::json(200, anthropic_message(MODEL_SUMMARY)));
    let with_model = |h: &mut History| {
        h.s.set("ANTHROPIC_BASE_URL", server.url.clone());
        h.s.set("ANTHROPIC_API_KEY", "sk-test-key");
        h.s.set("MEMORY_STALKER_MODEL", "claude-test-model");
    };
    // Without a budget no model is asked, whatever is configured.
    let (mut h, _) = history();
    with_model(&mut h);
    assert_eq!(h.import_json(&[])["memories"], 7);
    assert_eq!(server.count(), 0);

    let (mut h, _) = history();
    with_model(&mut h);
    let (code, out, err) = h.run(&["import", "--model-summaries", "2", "--jobs", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("asking anthropic:claude-test-model for at most 2 summaries"),
        "the budget is stated first: {err}"
    );
    assert!(out.contains(", 2 summarised by a model"), "{out}");
    assert_eq!(server.count(), 2);
    let app = h.work("app");
    let sources: Vec<String> = h
        .memories(&app)
        .iter()
        .map(|n| fs::read_to_string(app.join(".claude/memories").join(n)).unwrap())
        .map(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("summary_source: "))
                .unwrap()
                .to_string()
        })
        .collect();
    let by_model = sources.iter().filter(|s| s.contains("anthropic")).count();
    assert_eq!(by_model, 2, "{sources:?}");
    assert_eq!(
        sources.len() - by_model,
        4,
        "the others offline: {sources:?}"
    );
    let ledger = fs::read_to_string(h.root().join("plugin-data/summaries.jsonl")).unwrap();
    assert_eq!(ledger.lines().count(), 2, "{ledger}");
}
