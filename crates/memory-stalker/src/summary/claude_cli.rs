//! A nested `claude -p` for subscription users without an API key: Claude Code's own
//! authentication, with `--safe-mode` so our hooks do not run inside it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use super::SummaryError;
use crate::config::Config;

/// The arguments of the nested call (the prompt goes on stdin, never through a shell).
pub const ARGS: [&str; 7] = [
    "-p",
    "--safe-mode",
    "--no-session-persistence",
    "--tools",
    "",
    "--output-format",
    "json",
];

/// The model of the nested call when `MEMORY_STALKER_MODEL` (or the plugin's `model`
/// option) names none. Without `--model`, `claude -p` would use the subscriber's
/// default model (often Opus), spending the dearest quota on a background summary; a
/// small fast model writes it as well. `haiku` is an alias the CLI resolves to its
/// current Haiku (listed in 2.1.197 and 2.1.330 alike), so it never goes stale.
pub const DEFAULT_MODEL: &str = "haiku";

/// The model the nested `claude` is asked to use.
pub fn model(config: &Config) -> &str {
    config.model.as_deref().unwrap_or(DEFAULT_MODEL)
}

/// The `claude` executable on `PATH`, if any.
pub fn find(config: &Config) -> Option<PathBuf> {
    find_in_path("claude", config.path_var.as_deref()?)
}

/// Whether `claude` is on `PATH`.
pub fn configured(config: &Config) -> bool {
    find(config).is_some()
}

/// An executable file called `name` in one of the `PATH` directories.
pub fn find_in_path(name: &str, path_var: &str) -> Option<PathBuf> {
    std::env::split_paths(path_var)
        .filter(|d| d.is_absolute())
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// Runs `claude -p` with the prompt on stdin and returns its `result`.
pub fn complete(config: &Config, prompt: &str, deadline: Instant) -> Result<String, SummaryError> {
    let exe =
        find(config).ok_or_else(|| SummaryError::NotConfigured("no `claude` on PATH".into()))?;
    let mut cmd = Command::new(&exe);
    cmd.args(ARGS).args(["--model", model(config)]);
    // Belt and braces against recursion, should hooks run after all.
    cmd.env("MEMORY_STALKER_SUMMARIZER", "offline");
    let ran = super::process::run(cmd, prompt, deadline, "claude", SummaryError::Cli)?;
    parse_output(&ran.stdout, ran.code, &ran.stderr)
}

/// Reads `claude -p --output-format json`: `{"type":"result","is_error":false,"result":…}`.
fn parse_output(out: &[u8], code: Option<i32>, stderr: &str) -> Result<String, SummaryError> {
    let v: serde_json::Value = serde_json::from_slice(out).map_err(|_| {
        SummaryError::Cli(format!(
            "exit {}: {}",
            code.map_or("signal".into(), |c| c.to_string()),
            crate::text::one_line(
                if stderr.trim().is_empty() {
                    "no JSON on stdout"
                } else {
                    stderr
                },
                300
            )
        ))
    })?;
    let result = v.get("result").and_then(|r| r.as_str()).unwrap_or_default();
    if v.get("is_error").and_then(|e| e.as_bool()) == Some(true)
        || v.get("subtype")
            .and_then(|s| s.as_str())
            .is_some_and(|s| s != "success")
    {
        return Err(SummaryError::Cli(crate::text::one_line(
            if result.is_empty() {
                "claude reported an error"
            } else {
                result
            },
            300,
        )));
    }
    Ok(result.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_model_unless_one_is_configured() {
        let config = |model: Option<&str>| {
            Config::from_lookup(|k| {
                (k == "MEMORY_STALKER_MODEL")
                    .then(|| model.map(String::from))
                    .flatten()
            })
        };
        assert_eq!(model(&config(None)), "haiku");
        assert_eq!(model(&config(Some("sonnet"))), "sonnet");
    }

    #[test]
    fn output_is_read() {
        assert_eq!(
            parse_output(
                br#"{"type":"result","subtype":"success","is_error":false,"result":"{}"}"#,
                Some(0),
                ""
            )
            .unwrap(),
            "{}"
        );
        let e = parse_output(
            br#"{"type":"result","subtype":"success","is_error":true,"result":"Invalid API key"}"#,
            Some(1),
            "",
        )
        .unwrap_err();
        assert!(e.to_string().contains("Invalid API key"));
        let e = parse_output(b"", Some(127), "claude: not logged in").unwrap_err();
        assert!(e.to_string().contains("exit 127: claude: not logged in"));
    }
}
