//! The commands a session runs again and again — its tests, builds, linters, `git push`:
//! the way this project checks its work. Right after a compaction the model has lost them
//! (on the real compactions of both corpora the agent's own summary kept 26 % of the
//! commands the next segment ran again), and it finds them here, as last run.

use serde::{Deserialize, Serialize};

use super::View;
use super::runs::shown_command;
use crate::transcript::record::is_shell;

/// Most commands kept (the latest run).
const KEPT: usize = 8;

/// A command the segment ran at least twice (the same program and subcommand).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// The latest run, as a failed run shows a command.
    pub command: String,
    /// How many times it ran in the segment.
    pub runs: usize,
    /// Whether the latest run succeeded (`None`: no result yet).
    pub passed: Option<bool>,
}

pub(super) fn find(view: &View) -> Vec<Check> {
    // (key, latest run, runs), in the order of each key's latest run; the command shown
    // is made only for the checks kept.
    let mut seen: Vec<(String, super::Call<'_>, usize)> = Vec::new();
    for c in view.calls() {
        if !is_shell(&c.call.name) {
            continue;
        }
        let Some(key) = view.command_key(&c).map(str::to_owned) else {
            continue;
        };
        if !is_check(&key, &c.call.summary) {
            continue;
        }
        let runs = match seen.iter().position(|(k, _, _)| *k == key) {
            Some(at) => seen.remove(at).2 + 1,
            None => 1,
        };
        seen.push((key, c, runs));
    }
    let mut out: Vec<Check> = seen
        .into_iter()
        .filter(|(_, _, runs)| *runs >= 2)
        .map(|(_, c, runs)| Check {
            command: without_output_filters(&shown_command(&c.call.summary)),
            runs,
            passed: c.result.is_some().then(|| c.succeeded()),
        })
        .collect();
    let start = out.len().saturating_sub(KEPT);
    out.split_off(start)
}

/// Words that make a command a check of the work: it builds, tests, lints, formats or
/// type-checks (`mix credo`, `cargo clippy`, `npm run build`, `mise run lint`).
const CHECK_WORDS: [&str; 30] = [
    "test",
    "tests",
    "build",
    "compile",
    "lint",
    "check",
    "credo",
    "clippy",
    "fmt",
    "format",
    "dialyzer",
    "vet",
    "tsc",
    "pytest",
    "jest",
    "vitest",
    "mypy",
    "ruff",
    "eslint",
    "prettier",
    "typecheck",
    "coverage",
    "llvm-cov",
    "rspec",
    "phpunit",
    "gradle",
    "mvn",
    "ty",
    "pyright",
    "verify",
];

/// Whether a command is one the session checks its work with, or `git push`: not a
/// one-off (`git add a.rs`, `bd close x-1`, `curl …`), whose latest form would mislead.
fn is_check(key: &str, command: &str) -> bool {
    if key == "git push" {
        return true;
    }
    if key.starts_with("git ") || key.starts_with("bd ") || key.starts_with("gh ") {
        return false;
    }
    let main = command.split('|').next().unwrap_or(command);
    key.split_whitespace()
        .chain(main.split_whitespace().take(6))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-'))
        .any(|w| {
            let w = w.rsplit(['/', ':']).next().unwrap_or(w).to_lowercase();
            CHECK_WORDS.contains(&w.as_str())
        })
}

/// A command without what only trims its output for the reader: a trailing `2>&1` and
/// pipes into `head`, `tail` or `grep` (`mix test 2>&1 | tail -5` → `mix test`).
fn without_output_filters(command: &str) -> String {
    let mut parts: Vec<&str> = command.split(" | ").collect();
    while parts.len() > 1
        && parts.last().is_some_and(|p| {
            let p = p.trim_start();
            p.starts_with("head") || p.starts_with("tail") || p.starts_with("grep")
        })
    {
        parts.pop();
    }
    let joined = parts.join(" | ");
    joined
        .trim_end()
        .trim_end_matches("2>&1")
        .trim_end()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_are_builds_tests_and_linters_not_one_offs() {
        for (key, command) in [
            ("mix", "mix credo --strict 2>&1 | tail -5"),
            ("mise run", "mise run lint"),
            ("npm run", "npm run build"),
            ("cargo llvm-cov", "cargo llvm-cov --html"),
            ("git push", "git push 2>&1"),
            ("go test", "go test ./..."),
        ] {
            assert!(is_check(key, command), "{command}");
        }
        for (key, command) in [
            ("git add", "git add lib/a.ex"),
            ("bd close", "bd close spotter-a0y.3 --reason=done"),
            ("curl", "curl -sSL https://api.github.com/repos/x/y"),
            ("claude", "claude --version"),
            ("printf", "printf '%s'"),
            ("gh run", "gh run view 1 --log-failed"),
        ] {
            assert!(!is_check(key, command), "{command}");
        }
    }

    #[test]
    fn output_filters_are_left_out() {
        assert_eq!(
            without_output_filters("mix test 2>&1 | grep -E \"(tests|failures)\""),
            "mix test"
        );
        assert_eq!(
            without_output_filters("go test ./... 2>&1 | tail -15"),
            "go test ./..."
        );
        assert_eq!(
            without_output_filters("cargo test | tee log.txt"),
            "cargo test | tee log.txt"
        );
    }
}
