//! Shared helpers for the integration tests: isolated homes and projects, running the
//! real binaries with a controlled environment.
//!
//! Every test binary includes this file; the save-memory binary also includes the
//! helpers beside it that drive Claude Code and fake HTTP APIs (`anthropic`, `claude`,
//! `http`: see `tests/save_memory/main.rs`). A helper that only some binaries use says
//! so in its `allow(dead_code)`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The sample session the repository ships.
#[allow(dead_code, reason = "only the save-memory tests use it")]
pub fn sample_transcript() -> PathBuf {
    repo_root().join("tests/fixtures/sample-session.jsonl")
}

/// The repository root.
#[allow(dead_code, reason = "only the save-memory tests use it")]
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Writes a memory of an earlier session (2026-11-18) of `project` into `memories`,
/// signed with the writer key under `home` as this machine's hooks sign theirs; its
/// Session so far holds `section` (a `### …` heading and its items).
#[allow(dead_code, reason = "only the notes' end-to-end tests use it")]
pub fn signed_earlier_memory(home: &Path, memories: &Path, project: &Path, section: &str) {
    let key = memory_stalker::provenance::Writer::at(
        home.join(".local/state/memory-stalker")
            .join(memory_stalker::provenance::KEY_FILE),
    )
    .key_or_create()
    .unwrap();
    let name = "20261118_100400_5e551011.md";
    let text = format!(
        "---\nmemory_stalker: 1\nsession_id: \"5e551011-aaaa-bbbb-cccc-000000000000\"\ncreated: \"2026-11-18T10:04:00+00:00\"\ntrigger: \"auto\"\nproject: {}\nsummary: \"earlier work on the store\"\nsummary_source: \"offline\"\nlang: \"en\"\n---\n\n# Session memory\n\n## Session so far\n\n{section}\n",
        serde_json::to_string(project).unwrap()
    );
    std::fs::create_dir_all(memories).unwrap();
    std::fs::write(memories.join(name), key.sign(name, &text)).unwrap();
}

/// A temporary home directory and project, and the environment the hook sees.
pub struct Sandbox {
    pub root: tempfile::TempDir,
    pub env: Vec<(String, String)>,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("home")).unwrap();
        std::fs::create_dir_all(root.path().join("project")).unwrap();
        let home = root.path().join("home").to_string_lossy().into_owned();
        let env = vec![
            ("HOME".into(), home),
            ("PATH".into(), "/usr/bin:/bin".into()),
            ("TZ".into(), "UTC".into()),
            (
                "CLAUDE_PLUGIN_DATA".into(),
                root.path()
                    .join("plugin-data")
                    .to_string_lossy()
                    .into_owned(),
            ),
        ];
        Sandbox { root, env }
    }

    #[allow(dead_code, reason = "the MCP server tests do not use it")]
    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    pub fn project(&self) -> PathBuf {
        self.root.path().join("project")
    }

    pub fn memories(&self) -> PathBuf {
        self.project().join(".claude/memories")
    }

    pub fn set(&mut self, key: &str, value: impl Into<String>) -> &mut Self {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.into(), value.into()));
        self
    }

    /// Copies a transcript into the sandbox's Claude Code projects directory.
    #[allow(dead_code, reason = "only the save-memory tests use it")]
    pub fn install_transcript(&self, from: &Path, session_id: &str) -> PathBuf {
        let dir = self.home().join(".claude/projects/-sandbox-project");
        std::fs::create_dir_all(&dir).unwrap();
        let to = dir.join(format!("{session_id}.jsonl"));
        std::fs::copy(from, &to).unwrap();
        to
    }

    /// Hook stdin for PreCompact.
    #[allow(dead_code, reason = "only the save-memory tests use it")]
    pub fn pre_compact_input(
        &self,
        transcript: &Path,
        session_id: &str,
        trigger: &str,
        instructions: Option<&str>,
    ) -> String {
        serde_json::json!({
            "session_id": session_id,
            "transcript_path": transcript,
            "cwd": self.project(),
            "prompt_id": "prompt-1",
            "hook_event_name": "PreCompact",
            "trigger": trigger,
            "custom_instructions": instructions,
        })
        .to_string()
    }

    /// Runs `bin` with `args`, `stdin`, and only the sandbox environment.
    #[allow(dead_code, reason = "only the save-memory tests use it")]
    pub fn run(&self, bin: &str, args: &[&str], stdin: &[u8]) -> Output {
        let mut child = Command::new(bin)
            .args(args)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .current_dir(self.project())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut pipe = child.stdin.take().unwrap();
        // A hook may exit before reading everything (garbage input): ignore EPIPE.
        let _ = pipe.write_all(stdin);
        drop(pipe);
        child.wait_with_output().unwrap()
    }

    /// The memory files in the project's memories directory, sorted by name.
    #[allow(dead_code, reason = "the MCP server tests do not use it")]
    pub fn memory_files(&self) -> Vec<String> {
        files_in(&self.memories())
            .into_iter()
            .filter(|n| n.ends_with(".md") && n != "INDEX.md")
            .collect()
    }
}

/// Names of the entries of a directory, sorted (empty if it does not exist).
#[allow(dead_code, reason = "the MCP server tests do not use it")]
pub fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// stdout and stderr as text, for assertion messages.
#[allow(dead_code, reason = "the MCP server tests do not use it")]
pub fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Writes a memory in the current format into `dir`: front matter (the fields
/// `list-memories` reads) and `body`.
#[allow(dead_code, reason = "the save-memory tests do not use it")]
#[allow(clippy::too_many_arguments)]
pub fn write_memory(
    dir: &Path,
    name: &str,
    session: &str,
    created: &str,
    tasks: (usize, usize),
    summary: &str,
    lang: &str,
    body: &str,
) {
    let text = format!(
        "---\nmemory_stalker: 1\nsession_id: {}\ncreated: {}\ntrigger: \"auto\"\nproject: \"/p\"\ntranscript: \"/t.jsonl\"\ntask_count: {}\ntasks_open: {}\nsummary: {}\nsummary_source: \"offline\"\nlang: \"{lang}\"\n---\n\n{body}",
        serde_json::to_string(session).unwrap(),
        serde_json::to_string(created).unwrap(),
        tasks.0,
        tasks.1,
        serde_json::to_string(summary).unwrap(),
    );
    std::fs::write(dir.join(name), text).unwrap();
}

/// The sandbox user's writer key (made when there is none), as memory-stalker finds it
/// under `$HOME/.local/state/memory-stalker/` (docs/design.md §4.10).
#[allow(dead_code, reason = "not every test binary writes memories by hand")]
pub fn writer(s: &Sandbox) -> std::sync::Arc<memory_stalker::provenance::Writer> {
    let w = memory_stalker::provenance::Writer::at(
        s.home().join(".local/state/memory-stalker/writer.key"),
    );
    w.key_or_create().unwrap();
    std::sync::Arc::new(w)
}

/// Signs the memory file at `path` with the sandbox user's writer key, as memory-stalker
/// marks the memories it writes: a memory a test wrote by hand is then the user's own,
/// listed without a mark, recalled and counted by `prune --keep`.
#[allow(dead_code, reason = "not every test binary writes memories by hand")]
pub fn sign_memory(s: &Sandbox, path: &Path) {
    let key = writer(s).key().unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(path).unwrap();
    std::fs::write(path, key.sign(&name, &text)).unwrap();
}

/// Signs every memory file in `dir` ([`sign_memory`]).
#[allow(dead_code, reason = "not every test binary writes memories by hand")]
pub fn sign_memories(s: &Sandbox, dir: &Path) {
    for name in files_in(dir) {
        if memory_stalker::store::files::is_memory_file_name(&name) {
            sign_memory(s, &dir.join(name));
        }
    }
}
