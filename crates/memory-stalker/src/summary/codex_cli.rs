//! A nested `codex exec` for people who have Codex and no API key: Codex's own
//! authentication and provider, with hooks off (ours would run inside it and save a
//! memory of the summary), no session kept, no shell, and a read-only sandbox
//! (docs/design.md §5.2).

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use super::SummaryError;
use super::claude_cli::find_in_path;
use crate::config::Config;

/// The arguments of the nested call before the model; the prompt goes on stdin (`-`),
/// never through a shell.
pub const ARGS: [&str; 16] = [
    "exec",
    // No rollout is written: the summary is no session of the user's.
    "--ephemeral",
    // No hooks at all: ours would otherwise run in the nested session.
    "--disable",
    "hooks",
    // No shell for the model: it only writes an answer.
    "--disable",
    "shell_tool",
    "--disable",
    "unified_exec",
    "--sandbox",
    "read-only",
    "--skip-git-repo-check",
    "--json",
    "-c",
    "approval_policy=\"never\"",
    "-c",
    "model_reasoning_effort=\"low\"",
];

/// The `codex` executable on `PATH`, if any.
pub fn find(config: &Config) -> Option<PathBuf> {
    find_in_path("codex", config.path_var.as_deref()?)
}

/// Whether `codex` is on `PATH`.
pub fn configured(config: &Config) -> bool {
    find(config).is_some()
}

/// Runs `codex exec` with the prompt on stdin, in an empty directory of its own (no
/// project instructions are read into it), and returns the assistant's last message.
pub fn complete(config: &Config, prompt: &str, deadline: Instant) -> Result<String, SummaryError> {
    let exe =
        find(config).ok_or_else(|| SummaryError::NotConfigured("no `codex` on PATH".into()))?;
    let dir = std::env::temp_dir().join(format!("memory-stalker-codex-{}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| SummaryError::CodexCli(format!("cannot make {}: {e}", dir.display())))?;
    let mut cmd = Command::new(&exe);
    cmd.args(ARGS);
    // Codex's configured model unless one is asked for: Codex has no alias of a small
    // model that would not go stale, and a wrong name would fail every summary.
    if let Some(m) = &config.model {
        cmd.args(["--model", m]);
    }
    cmd.arg("-").current_dir(&dir);
    // Belt and braces against recursion, should hooks run after all.
    cmd.env("MEMORY_STALKER_SUMMARIZER", "offline");
    let ran = super::process::run(cmd, prompt, deadline, "codex", SummaryError::CodexCli);
    let _ = std::fs::remove_dir_all(&dir);
    let ran = ran?;
    parse_output(&ran.stdout, ran.code, &ran.stderr)
}

/// The source a memory records for this backend.
pub fn source(config: &Config) -> String {
    match &config.model {
        Some(m) => format!("codex-cli:{m}"),
        None => "codex-cli".into(),
    }
}

/// Reads `codex exec --json`: one event a line; the answer is the text of the last
/// `item.completed` whose item is an `agent_message`; `error` and `turn.failed` events
/// say why there is none.
fn parse_output(out: &[u8], code: Option<i32>, stderr: &str) -> Result<String, SummaryError> {
    let mut answer = None;
    let mut failure = None;
    for line in String::from_utf8_lossy(out).lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        match v["type"].as_str() {
            Some("item.completed") if v["item"]["type"] == "agent_message" => {
                answer = v["item"]["text"].as_str().map(String::from);
            }
            Some("error") => failure = v["message"].as_str().map(String::from),
            Some("turn.failed") => {
                failure = v["error"]["message"].as_str().map(String::from).or(failure);
            }
            _ => {}
        }
    }
    match (answer, code) {
        (Some(a), Some(0)) => Ok(a),
        _ => Err(SummaryError::CodexCli(crate::text::one_line(
            &format!(
                "exited {}: {}",
                code.map_or("by a signal".into(), |c| c.to_string()),
                failure
                    .or_else(|| (!stderr.trim().is_empty()).then(|| stderr.to_string()))
                    .unwrap_or_else(|| "no answer".into())
            ),
            300,
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_agent_message_is_the_answer() {
        let out = br#"{"type":"thread.started","thread_id":"t"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"first"}}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"{\"headline\":\"x\"}"}}
{"type":"turn.completed","usage":{"input_tokens":10}}
"#;
        assert_eq!(
            parse_output(out, Some(0), "").unwrap(),
            "{\"headline\":\"x\"}"
        );
        let failed = br#"{"type":"error","message":"stream disconnected"}
{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized"}}
"#;
        let e = parse_output(failed, Some(1), "").unwrap_err().to_string();
        assert!(
            e.contains("codex exec failed: exited 1: unexpected status 401"),
            "{e}"
        );
        let e = parse_output(b"", Some(2), "error: unexpected argument").unwrap_err();
        assert!(e.to_string().contains("unexpected argument"), "{e}");
    }

    #[test]
    fn the_nested_run_has_no_hooks_shell_or_session() {
        for needed in ["--ephemeral", "hooks", "shell_tool", "read-only", "--json"] {
            assert!(ARGS.contains(&needed), "{needed}");
        }
    }
}
