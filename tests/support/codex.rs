//! Driving the real Codex CLI offline: the version `scripts/test` installed, an isolated
//! `HOME` and `CODEX_HOME`, a project, the plugin under test installed with
//! `save-memory codex install`, and the fake Responses API.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::claude::{ClaudeRun, Tmux, copy_bundle, run_isolated};
use super::repo_root;
use super::responses::FakeResponses;

/// The Codex version the tests are written for, which `scripts/test` installs.
pub const VERSION: &str = "0.169.0";

/// The Codex version under test: `MEMORY_STALKER_E2E_CODEX_VERSION` (as for
/// `scripts/test`, which installs it), else [`VERSION`].
pub fn version() -> String {
    std::env::var("MEMORY_STALKER_E2E_CODEX_VERSION")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| VERSION.to_string())
}

/// The installed Codex CLI, if `scripts/test` installed it (`None`: the end-to-end
/// tests are skipped, except under CI, where that is a failure).
pub fn installed() -> Option<PathBuf> {
    let version = version();
    let dir = repo_root().join(format!("target/e2e/codex-{version}/node_modules"));
    // The native binary npm put beside the JavaScript launcher, for this platform.
    let native = fs::read_dir(dir.join("@openai"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("codex-"))
        .flat_map(|e| {
            fs::read_dir(e.path().join("vendor"))
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|target| target.path().join("bin/codex"))
        .find(|p| p.is_file());
    let found = native.or_else(|| Some(dir.join(".bin/codex")).filter(|p| p.exists()));
    if found.is_none() {
        let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        assert!(
            !in_ci,
            "no Codex under {}: scripts/test installs it with npm; CI must not skip the end-to-end tests",
            dir.display()
        );
        eprintln!(
            "Codex {version} is not installed under {} (scripts/test does it): skipping",
            dir.display()
        );
    }
    found
}

/// An isolated home, project and Codex configuration, with the plugin and the fake API.
pub struct CodexWorld {
    pub root: tempfile::TempDir,
    pub codex: PathBuf,
    pub api: FakeResponses,
    pub env: Vec<(String, String)>,
}

impl CodexWorld {
    /// A world whose plugin runs `save_memory`; the hooks are installed as
    /// `./install.sh` installs them (trusted, no bypass flag needed).
    pub fn new(codex: &Path, save_memory: &str) -> CodexWorld {
        let root = tempfile::tempdir().unwrap();
        let w = CodexWorld::bare(root, codex);
        copy_bundle(&w.plugin(), save_memory);
        let out = w.run(
            Path::new(save_memory),
            &[
                "codex",
                "install",
                "--launcher",
                w.plugin().join("plugin/run").to_str().unwrap(),
            ],
            &w.project(),
        );
        assert!(out.out.status.success(), "{}", out.stderr());
        w
    }

    /// The world without the plugin installed.
    pub fn bare(root: tempfile::TempDir, codex: &Path) -> CodexWorld {
        for d in ["home/.codex", "project"] {
            fs::create_dir_all(root.path().join(d)).unwrap();
        }
        let api = FakeResponses::start();
        let home = root.path().join("home");
        let env = vec![
            ("HOME".into(), home.to_string_lossy().into_owned()),
            (
                "CODEX_HOME".into(),
                home.join(".codex").to_string_lossy().into_owned(),
            ),
            (
                "PATH".into(),
                std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()),
            ),
            ("FAKE_OPENAI_KEY".into(), "sk-fake-e2e".into()),
            ("TZ".into(), "UTC".into()),
            // Summaries by the offline summariser unless a test asks for a model.
            ("MEMORY_STALKER_SUMMARIZER".into(), "offline".into()),
        ];
        let w = CodexWorld {
            root,
            codex: codex.to_path_buf(),
            api,
            env,
        };
        w.write_config();
        w
    }

    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    pub fn codex_home(&self) -> PathBuf {
        self.home().join(".codex")
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

    /// Codex's configuration: the fake provider, no approvals, auto-compaction from
    /// 50,000 reported tokens, the plan tool, the project trusted.
    fn write_config(&self) {
        let config = format!(
            r#"model = "gpt-5.5"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
model_auto_compact_token_limit = 50000

[model_providers.fake]
name = "fake"
base_url = "{}"
wire_api = "responses"
env_key = "FAKE_OPENAI_KEY"
request_max_retries = 0
stream_max_retries = 0

[tools.update_plan]
enabled = true

[projects."{}"]
trust_level = "trusted"

[tui]
screen_reader_detection_done = true

[tui.model_availability_nux]
"gpt-6.1-sol" = 3

[notice.model_migrations]
"gpt-5.5" = "gpt-6-sol"
"#,
            self.api.base_url(),
            self.project().display()
        );
        fs::write(self.codex_home().join("config.toml"), config).unwrap();
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

    /// The rollouts Codex wrote, sorted by name.
    pub fn rollouts(&self) -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for e in fs::read_dir(dir).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "jsonl") {
                    out.push(p);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.codex_home().join("sessions"), &mut out);
        out.sort();
        out
    }

    /// `codex exec <args…>` in the project.
    pub fn exec(&self, args: &[&str]) -> ClaudeRun {
        let mut full = vec!["exec", "--skip-git-repo-check"];
        full.extend_from_slice(args);
        self.run(&self.codex, &full, &self.project())
    }

    /// Runs a program with the world's environment only, killed after two minutes.
    pub fn run(&self, program: &Path, args: &[&str], cwd: &Path) -> ClaudeRun {
        run_isolated(&self.env, program, args, cwd)
    }

    /// The interactive Codex (`--no-daemon`: no background daemon is started or left)
    /// in a detached tmux session of `cols`×`rows` on a private tmux server, killed
    /// when the returned value is dropped.
    pub fn tui(&self, args: &[&str], cols: u16, rows: u16) -> Tmux {
        let tmux = Tmux {
            socket: self.root.path().join("tmux.sock"),
            target: "codex".into(),
        };
        let mut cmd = Command::new("tmux");
        cmd.env_clear()
            .env(
                "PATH",
                std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()),
            )
            .env("TERM", "xterm-256color")
            .args(["-f", "/dev/null", "-S"])
            .arg(&tmux.socket)
            .args(["new-session", "-d", "-s", &tmux.target])
            .args(["-x", &cols.to_string(), "-y", &rows.to_string()])
            .arg("-c")
            .arg(self.project())
            .args(["env", "-i", "TERM=xterm-256color", "COLORTERM=truecolor"])
            .args(self.env.iter().map(|(k, v)| format!("{k}={v}")))
            .arg(&self.codex)
            .arg("--no-daemon")
            .args(args);
        let out = cmd.output().expect("cannot run tmux");
        assert!(
            out.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        tmux
    }
}
