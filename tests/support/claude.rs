//! Driving the real Claude Code CLI offline: installed versions, an isolated home, the
//! plugin bundle with the binaries under test, and the fake Anthropic API.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use super::anthropic::{FakeAnthropic, Turn};
use super::repo_root;

/// One installed Claude Code.
#[derive(Debug, Clone)]
pub struct Claude {
    pub version: String,
    pub exe: PathBuf,
}

/// The versions `scripts/test` installed under `target/e2e/` (newest first). None: the
/// end-to-end tests are skipped, except under CI, where that is a failure.
pub fn installed() -> Vec<Claude> {
    let dir = repo_root().join("target/e2e");
    let mut found: Vec<Claude> = fs::read_dir(&dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let version = name.strip_prefix("claude-code-")?.to_string();
                    let exe = e.path().join("node_modules/.bin/claude");
                    exe.exists().then_some(Claude { version, exe })
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort_by_key(|c| std::cmp::Reverse(version_key(&c.version)));
    if found.is_empty() {
        let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        assert!(
            !in_ci,
            "no Claude Code under {}: scripts/test installs it with npm; CI must not skip the end-to-end tests",
            dir.display()
        );
        eprintln!(
            "Claude Code is not installed under {} (scripts/test does it): skipping",
            dir.display()
        );
    }
    found
}

fn version_key(v: &str) -> Vec<u32> {
    v.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

impl Claude {
    /// Whether this is at least `major.minor.patch`.
    pub fn at_least(&self, v: &str) -> bool {
        version_key(&self.version) >= version_key(v)
    }
}

/// Which hooks the plugin under test registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hooks {
    All,
    /// Without PreCompact: as when Claude Code fails to fire it.
    NoPreCompact,
}

/// An isolated home and project, the plugin, and the fake API, for one Claude Code.
pub struct World {
    pub root: tempfile::TempDir,
    pub claude: Claude,
    pub api: FakeAnthropic,
    pub env: Vec<(String, String)>,
}

/// The plugin's files in the repository (the bundle, without build output).
pub const BUNDLE: [&str; 6] = [
    ".claude-plugin",
    "hooks",
    "skills",
    "prompts",
    "plugin",
    "install.sh",
];

impl World {
    /// A world whose plugin runs `save_memory` (a test's `CARGO_BIN_EXE_save-memory`).
    pub fn new(claude: &Claude, hooks: Hooks, save_memory: &str) -> World {
        let root = tempfile::tempdir().unwrap();
        for d in ["home", "project"] {
            fs::create_dir_all(root.path().join(d)).unwrap();
        }
        let plugin = root.path().join("plugin");
        copy_bundle(&plugin, save_memory);
        if hooks == Hooks::NoPreCompact {
            let path = plugin.join("hooks/hooks.json");
            let mut v: serde_json::Value =
                serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
            v["hooks"].as_object_mut().unwrap().remove("PreCompact");
            fs::write(&path, v.to_string()).unwrap();
        }
        let api = FakeAnthropic::start();
        let env = vec![
            (
                "HOME".into(),
                root.path().join("home").to_string_lossy().into_owned(),
            ),
            (
                "PATH".into(),
                std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()),
            ),
            ("ANTHROPIC_BASE_URL".into(), api.server.url.clone()),
            ("ANTHROPIC_API_KEY".into(), "sk-ant-e2e-dummy".into()),
            ("DISABLE_TELEMETRY".into(), "1".into()),
            ("DISABLE_ERROR_REPORTING".into(), "1".into()),
            (
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
                "1".into(),
            ),
            ("DISABLE_AUTOUPDATER".into(), "1".into()),
            // Root may only skip permissions in a sandbox, which this is.
            ("IS_SANDBOX".into(), "1".into()),
            ("TZ".into(), "UTC".into()),
        ];
        World {
            root,
            claude: claude.clone(),
            api,
            env,
        }
    }

    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    pub fn project(&self) -> PathBuf {
        self.root.path().join("project")
    }

    pub fn plugin(&self) -> PathBuf {
        self.root.path().join("plugin")
    }

    pub fn memories(&self) -> PathBuf {
        self.project().join(".claude/memories")
    }

    pub fn set(&mut self, k: &str, v: &str) {
        self.env.retain(|(key, _)| key != k);
        self.env.push((k.into(), v.into()));
    }

    /// Puts this Claude Code's `claude` first on `PATH` (for the installer, and for hooks
    /// that run `claude -p`).
    pub fn put_claude_on_path(&mut self) {
        let dir = self
            .claude
            .exe
            .parent()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let path = self
            .env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        self.set("PATH", &format!("{dir}:{path}"));
    }

    /// Saves a memory of the sample session (a task list with open tasks) into the
    /// project with `save_memory`, by hand; returns its file name.
    pub fn seed_memory(&self, save_memory: &str) -> String {
        let saved = self.run(
            Path::new(save_memory),
            &[
                "--transcript",
                super::sample_transcript().to_str().unwrap(),
                "--project",
                self.project().to_str().unwrap(),
            ],
            &self.project(),
        );
        assert!(saved.out.status.success(), "{}", saved.stderr());
        let files = self.memory_files();
        assert_eq!(files.len(), 1, "{files:?}");
        files[0].file_name().unwrap().to_string_lossy().into_owned()
    }

    /// The memory files, sorted by name.
    pub fn memory_files(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = fs::read_dir(self.memories())
            .map(|rd| rd.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        v.retain(|p| {
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            n.ends_with(".md") && n != "INDEX.md"
        });
        v.sort();
        v
    }

    /// `claude -p <args…>` with the plugin loaded by `--plugin-dir`.
    pub fn claude_p(&self, args: &[&str]) -> ClaudeRun {
        let plugin = self.plugin();
        let mut full = vec!["--plugin-dir", plugin.to_str().unwrap()];
        full.extend_from_slice(args);
        self.claude_raw(&full)
    }

    /// `claude -p --output-format json <args…>` without loading the plugin explicitly.
    pub fn claude_raw(&self, args: &[&str]) -> ClaudeRun {
        let mut full = vec!["-p", "--output-format", "json"];
        full.extend_from_slice(args);
        self.run(&self.claude.exe, &full, &self.project())
    }

    /// Runs a program with the world's environment, killed after two minutes.
    pub fn run(&self, program: &Path, args: &[&str], cwd: &Path) -> ClaudeRun {
        run_isolated(&self.env, program, args, cwd)
    }
}

/// Runs `program` in `cwd` with the environment `env` only (nothing inherited), its
/// output collected; killed, failing the test, after two minutes.
pub fn run_isolated(
    env: &[(String, String)],
    program: &Path,
    args: &[&str],
    cwd: &Path,
) -> ClaudeRun {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!(
                "{} {args:?} ran for more than two minutes",
                program.display()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    ClaudeRun {
        out: Output {
            status,
            stdout: stdout.join().unwrap(),
            stderr: stderr.join().unwrap(),
        },
    }
}

/// Copies the plugin bundle from the repository to `to`, with `bin/` laid out as
/// `install.sh` makes it: the `memory-stalker` binary built beside `save_memory`, and
/// `save-memory`, `list-memories` and `memory-stalker-mcp` as links to it.
pub fn copy_bundle(to: &Path, save_memory: &str) {
    let repo = repo_root();
    for item in BUNDLE {
        copy_tree(&repo.join(item), &to.join(item));
    }
    let bin = to.join("bin");
    fs::create_dir_all(&bin).unwrap();
    let one = PathBuf::from(save_memory).with_file_name("memory-stalker");
    assert!(
        one.exists(),
        "{} is not built: run `cargo build --workspace` (scripts/test does)",
        one.display()
    );
    fs::copy(&one, bin.join("memory-stalker")).unwrap();
    for name in ["save-memory", "list-memories", "memory-stalker-mcp"] {
        std::os::unix::fs::symlink("memory-stalker", bin.join(name)).unwrap();
    }
}

fn copy_tree(from: &Path, to: &Path) {
    if from.is_dir() {
        fs::create_dir_all(to).unwrap();
        for e in fs::read_dir(from).unwrap().flatten() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        }
    } else {
        fs::copy(from, to).unwrap();
    }
}

/// The outcome of one `claude` run.
pub struct ClaudeRun {
    pub out: Output,
}

impl ClaudeRun {
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.out.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.out.stderr).into_owned()
    }

    /// The `--output-format json` result object.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(self.stdout().trim()).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout(),
                self.stderr()
            )
        })
    }

    /// The session id of the run.
    pub fn session_id(&self) -> String {
        self.json()["session_id"].as_str().unwrap().to_string()
    }

    pub fn assert_ok(&self) -> &ClaudeRun {
        assert!(
            self.out.status.success(),
            "claude failed: {:?}\nstdout:\n{}\nstderr:\n{}",
            self.out.status,
            self.stdout(),
            self.stderr()
        );
        self
    }
}

/// Whether tmux can be run (for the interactive TUI tests). Missing: those tests are
/// skipped, except under CI, where that is a failure.
pub fn tmux_available() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        assert!(
            !in_ci,
            "tmux is not installed: the interactive Claude Code tests need it; CI must not skip them"
        );
        eprintln!("tmux is not installed: skipping the interactive Claude Code tests");
    }
    ok
}

impl World {
    /// Pre-answers the interactive CLI's first-run dialogs in the isolated home, as a
    /// user who went through them once would have: onboarding and theme, the API key
    /// in the environment, trusting the project folder, and the bypass-permissions
    /// warning.
    pub fn accept_first_run_dialogs(&self) {
        let key = self
            .env
            .iter()
            .find(|(k, _)| k == "ANTHROPIC_API_KEY")
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_default();
        // Claude Code remembers an approved key by its last 20 characters.
        let tail: String = {
            let chars: Vec<char> = key.chars().collect();
            chars[chars.len().saturating_sub(20)..].iter().collect()
        };
        let project = self.project().canonicalize().unwrap();
        let mut projects = serde_json::Map::new();
        for p in [self.project(), project] {
            projects.insert(
                p.to_string_lossy().into_owned(),
                serde_json::json!({
                    "hasTrustDialogAccepted": true,
                    "hasCompletedProjectOnboarding": true,
                    "projectOnboardingSeenCount": 1,
                    "allowedTools": [],
                }),
            );
        }
        let config = serde_json::json!({
            "numStartups": 1,
            "hasCompletedOnboarding": true,
            "lastOnboardingVersion": self.claude.version,
            "lastReleaseNotesSeen": self.claude.version,
            "theme": "dark",
            "bypassPermissionsModeAccepted": true,
            "hasSeenTasksHint": true,
            "customApiKeyResponses": {"approved": [tail], "rejected": []},
            "projects": projects,
        });
        fs::write(self.home().join(".claude.json"), config.to_string()).unwrap();
        let settings = self.home().join(".claude/settings.json");
        fs::create_dir_all(settings.parent().unwrap()).unwrap();
        let mut v: serde_json::Value = fs::read_to_string(&settings)
            .ok()
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or_else(|| serde_json::json!({}));
        v["skipDangerousModePermissionPrompt"] = serde_json::json!(true);
        fs::write(&settings, v.to_string()).unwrap();
    }

    /// The interactive `claude <args…>` with the plugin loaded by `--plugin-dir`, in a
    /// detached tmux session of `cols`×`rows` on a private tmux server (killed when the
    /// returned value is dropped, so also when a test fails; drop it before the world).
    pub fn claude_tui(&self, args: &[&str], cols: u16, rows: u16) -> Tmux {
        // The socket lives in the world's directory: nothing is left behind.
        let socket = self.root.path().join("tmux.sock");
        let tmux = Tmux {
            socket,
            target: "e2e".into(),
        };
        let plugin = self.plugin();
        let mut cmd = tmux.command();
        cmd.args(["new-session", "-d", "-s", &tmux.target])
            .args(["-x", &cols.to_string(), "-y", &rows.to_string()])
            .arg("-c")
            .arg(self.project())
            // Only the world's environment reaches claude, with a terminal type.
            .args(["env", "-i", "TERM=xterm-256color", "COLORTERM=truecolor"])
            .args(self.env.iter().map(|(k, v)| format!("{k}={v}")))
            .arg(&self.claude.exe)
            .args(["--plugin-dir", plugin.to_str().unwrap()])
            .args(args);
        let out = cmd.output().expect("cannot run tmux");
        assert!(
            out.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Keep the pane after claude exits, so a crash can still be read.
        let _ = tmux
            .command()
            .args(["set-option", "-t", &tmux.target, "remain-on-exit", "on"])
            .output();
        tmux
    }
}

/// A detached tmux session on its own server socket; the server is killed on drop.
pub struct Tmux {
    pub socket: PathBuf,
    pub target: String,
}

impl Tmux {
    /// `tmux -S <socket>`, with a minimal environment (the server inherits it).
    fn command(&self) -> Command {
        let mut c = Command::new("tmux");
        c.env_clear()
            .env(
                "PATH",
                std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()),
            )
            .env("TERM", "xterm-256color")
            .args(["-f", "/dev/null", "-S"])
            .arg(&self.socket);
        c
    }

    /// Types `text` literally (no key names).
    pub fn type_text(&self, text: &str) {
        self.keys(&["-l", text]);
    }

    /// Sends tmux key names (`Enter`, `Escape`, `C-c`…).
    pub fn keys(&self, keys: &[&str]) {
        let out = self
            .command()
            .args(["send-keys", "-t", &self.target])
            .args(keys)
            .output()
            .expect("cannot run tmux");
        assert!(
            out.status.success(),
            "tmux send-keys {keys:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The visible screen, as text.
    pub fn screen(&self) -> String {
        self.capture(&[])
    }

    /// The scrollback and the visible screen, as text (for debugging a test).
    #[allow(dead_code, reason = "no test reads the scrollback today")]
    pub fn history(&self) -> String {
        self.capture(&["-S", "-"])
    }

    fn capture(&self, extra: &[&str]) -> String {
        let out = self
            .command()
            .args(["capture-pane", "-p", "-t", &self.target])
            .args(extra)
            .output()
            .expect("cannot run tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Polls the screen until `done` holds for it, for at most `limit`; the last screen
    /// either way.
    pub fn wait_for(&self, limit: Duration, mut done: impl FnMut(&str) -> bool) -> (bool, String) {
        let end = Instant::now() + limit;
        loop {
            let screen = self.screen();
            if done(&screen) {
                return (true, screen);
            }
            if Instant::now() > end {
                return (false, screen);
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// Waits until the screen has not changed for `quiet` (at most `limit`).
    pub fn settle(&self, quiet: Duration, limit: Duration) -> String {
        let end = Instant::now() + limit;
        let mut last = self.screen();
        let mut since = Instant::now();
        while Instant::now() < end {
            std::thread::sleep(Duration::from_millis(200));
            let now = self.screen();
            if now != last {
                last = now;
                since = Instant::now();
            } else if since.elapsed() >= quiet {
                break;
            }
        }
        last
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self
            .command()
            .arg("kill-server")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = fs::remove_file(&self.socket);
    }
}

/// A task list as the version's task tools write it: the Task tools on 2.1.197, TodoWrite
/// (loaded through ToolSearch) on newer versions, whose default model has no task tool.
pub fn task_turns(w: &mut World) -> Vec<Turn> {
    let notes = w.project().join("API_NOTES.md");
    let write = Turn::tool(
        "Write",
        json!({"file_path": notes, "content": "# API notes\n\nGET /health\nPOST /upload\n"}),
    );
    if w.claude.at_least("2.1.300") {
        w.set("CLAUDE_CODE_ENABLE_TODO_TOOLS", "1");
        w.set("CLAUDE_CODE_ENABLE_TASKS", "0");
        let todos = |first: &str| {
            json!({"todos": [
                {"content": "Write API notes", "status": first, "activeForm": "Writing API notes"},
                {"content": "Review the notes", "status": "pending", "activeForm": "Reviewing the notes"}
            ]})
        };
        vec![
            Turn::tool(
                "ToolSearch",
                json!({"query": "select:TodoWrite", "max_results": 1}),
            ),
            Turn::tool("TodoWrite", todos("in_progress")),
            write,
            Turn::tool("TodoWrite", todos("completed")),
            Turn::text("API notes written to API_NOTES.md; the review is still to do."),
        ]
    } else {
        vec![
            Turn::tool(
                "TaskCreate",
                json!({"subject": "Write API notes", "description": "Write API_NOTES.md", "activeForm": "Writing API notes"}),
            ),
            Turn::tool(
                "TaskCreate",
                json!({"subject": "Review the notes", "description": "Read them again", "activeForm": "Reviewing the notes"}),
            ),
            Turn::tool(
                "TaskUpdate",
                json!({"taskId": "1", "status": "in_progress"}),
            ),
            write,
            Turn::tool("TaskUpdate", json!({"taskId": "1", "status": "completed"})),
            Turn::text("API notes written to API_NOTES.md; the review is still to do."),
        ]
    }
}
