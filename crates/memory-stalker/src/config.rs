//! Configuration from the environment (docs/design.md §6).
//!
//! Values are read through a lookup function rather than `std::env`, so tests can
//! pass any environment. An invalid value never fails: it is reported in
//! [`Config::warnings`] (which the hook logs) and the default is used.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::lang::Lang;

/// Which summariser to use (`MEMORY_STALKER_SUMMARIZER`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// The first configured of anthropic, openai, claude-cli, codex-cli; offline
    /// otherwise.
    #[default]
    Auto,
    /// The Anthropic Messages API (`ANTHROPIC_API_KEY` or `ANTHROPIC_AUTH_TOKEN`).
    Anthropic,
    /// An OpenAI-compatible server (`MEMORY_STALKER_OPENAI_BASE_URL`).
    OpenAi,
    /// `claude -p`, the Claude Code CLI on `PATH`.
    ClaudeCli,
    /// `codex exec`, the Codex CLI on `PATH`.
    CodexCli,
    /// No model: the deterministic offline summary.
    Offline,
}

impl Backend {
    /// Parses the names documented in the README.
    pub fn parse(s: &str) -> Option<Backend> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" | "" => Some(Backend::Auto),
            "anthropic" => Some(Backend::Anthropic),
            "openai" | "openai-compatible" => Some(Backend::OpenAi),
            "claude-cli" | "claude" | "cli" => Some(Backend::ClaudeCli),
            "codex-cli" | "codex" => Some(Backend::CodexCli),
            "offline" | "none" | "off" => Some(Backend::Offline),
            _ => None,
        }
    }

    /// The name used in `summary_source`, logs and the circuit breaker.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Anthropic => "anthropic",
            Backend::OpenAi => "openai",
            Backend::ClaudeCli => "claude-cli",
            Backend::CodexCli => "codex-cli",
            Backend::Offline => "offline",
        }
    }
}

/// Everything configurable, resolved.
#[derive(Debug, Clone)]
pub struct Config {
    /// `MEMORY_STALKER_SUMMARIZER` (or the plugin's `summarizer` option).
    pub summarizer: Backend,
    /// `MEMORY_STALKER_MODEL` (or the plugin's `model` option): the model for anthropic,
    /// openai and claude-cli, each of which has its own default when it is unset.
    pub model: Option<String>,
    /// `ANTHROPIC_API_KEY` (or the plugin's `api_key` option), sent as `x-api-key`.
    pub anthropic_api_key: Option<String>,
    /// `ANTHROPIC_AUTH_TOKEN`: a bearer token instead of a key (proxies, gateways).
    pub anthropic_auth_token: Option<String>,
    /// `ANTHROPIC_BASE_URL`: where the Messages API is.
    pub anthropic_base_url: String,
    /// `ANTHROPIC_DEFAULT_SONNET_MODEL`: the model when `model` is unset.
    pub anthropic_default_model: Option<String>,
    /// `MEMORY_STALKER_OPENAI_BASE_URL` (or the plugin's option): an OpenAI-compatible
    /// server.
    pub openai_base_url: Option<String>,
    /// `MEMORY_STALKER_OPENAI_API_KEY`, if that server wants one.
    pub openai_api_key: Option<String>,
    /// Total time a summary may take, retries included.
    pub timeout: Duration,
    /// Most conversation characters sent to a model.
    pub max_chars: usize,
    /// `MEMORY_STALKER_LANG`: the language of headings and summaries.
    pub lang: Lang,
    /// Write the memory at once and let a background worker add the model's summary.
    pub async_summary: bool,
    /// Print compaction instructions from the PreCompact hook.
    pub steer: bool,
    /// Print restore context from the SessionStart(compact) hook.
    pub restore: bool,
    /// `MEMORY_STALKER_ENABLED`: whether memory-stalker works in projects without a
    /// switch file of their own (see [`crate::switch`]); `None` when unset (on).
    pub enabled: Option<bool>,
    /// `MEMORY_STALKER_RECALL`: a short note of the latest memory at session start.
    pub recall: bool,
    /// `MEMORY_STALKER_RECALL_DAYS`: how recent a memory without open tasks must be to
    /// be recalled.
    pub recall_days: u32,
    /// `MEMORY_STALKER_ACTION_NOTES` (or the plugin's `action_notes` option): a note
    /// from an earlier memory before an edit of a file it names, and after a command
    /// fails with an error it met (docs/design.md §2.13); off by default.
    pub action_notes: bool,
    /// `MEMORY_STALKER_REDACT`: redact memories and what goes to a model (the log is
    /// always redacted).
    pub redact: bool,
    /// `MEMORY_STALKER_PROMPT_FILE`: a prompt template of the user's own.
    pub prompt_file: Option<PathBuf>,
    /// `MEMORY_STALKER_DIR`: where memories go instead of `<project>/.claude/memories`.
    pub memories_dir: Option<PathBuf>,
    /// State that survives plugin updates: circuit breaker, project registry.
    pub data_dir: PathBuf,
    /// `HOME`: where Claude Code's task and plan files are.
    pub home: Option<PathBuf>,
    /// `CLAUDE_CODE_TASK_LIST_ID`: the task list to read instead of the session's.
    pub task_list_id: Option<String>,
    /// Claude Code's own directory, where its transcripts are (`projects/`):
    /// `CLAUDE_CONFIG_DIR`, else `~/.claude`. Read only by `list-memories import`.
    pub claude_dir: Option<PathBuf>,
    /// Codex's home, where its rollouts are (`sessions/`): `CODEX_HOME`, else
    /// `~/.codex`. Read only by `list-memories import`.
    pub codex_home: Option<PathBuf>,
    /// `CLAUDE_PROJECT_DIR`: the project when the hook input has no `cwd`.
    pub project_dir: Option<PathBuf>,
    /// `PATH`, where the `claude` executable is looked for.
    pub path_var: Option<String>,
    /// The key this user's memories are signed with (docs/design.md §4.10), kept outside
    /// every project: `$XDG_STATE_HOME/memory-stalker/writer.key`, else
    /// `~/.local/state/memory-stalker/writer.key`; `None` without either variable.
    pub writer: Option<std::sync::Arc<crate::provenance::Writer>>,
    /// Problems found while reading the configuration.
    pub warnings: Vec<String>,
    /// Whether this process is a hook: its stores open the search index as a hook must
    /// (a short wait for a lock, a bounded catch-up, no checkpoint on close; §7.10).
    pub in_hook: bool,
    /// `MEMORY_STALKER_FACTS_BUDGET`: how long a hook waits for the facts of the
    /// segment's texts (rules, choices, stated decisions) before it saves the memory
    /// without them (docs/design.md §4.7).
    pub facts_budget: Duration,
}

/// A number of seconds over 0 and at most `max`, a fraction and a trailing `s` allowed.
fn seconds(value: &str, max: f64) -> Option<Duration> {
    let s = value.trim_end_matches('s').parse::<f64>().ok()?;
    (s > 0.0 && s <= max).then(|| Duration::from_secs_f64(s))
}

/// Public Anthropic API.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
/// Model used when neither `MEMORY_STALKER_MODEL` nor `ANTHROPIC_DEFAULT_SONNET_MODEL` is set.
pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-6";
const DEFAULT_TIMEOUT_SECS: u64 = 60;
const DEFAULT_FACTS_BUDGET_SECS: u64 = 10;
const DEFAULT_MAX_CHARS: usize = 50_000;
const DEFAULT_RECALL_DAYS: u32 = 7;

impl Config {
    /// Reads the process environment.
    pub fn from_env() -> Config {
        Config::from_lookup(|k| std::env::var(k).ok())
    }

    /// Reads the configuration through `get` (an environment lookup).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Config {
        let mut env = Env {
            get,
            warnings: Vec::new(),
        };
        let summarizer = env.checked(
            "MEMORY_STALKER_SUMMARIZER",
            env.setting("MEMORY_STALKER_SUMMARIZER", "SUMMARIZER"),
            "one of auto, anthropic, openai, claude-cli, codex-cli, offline",
            (Backend::Auto, "auto"),
            Backend::parse,
        );
        let lang = env.checked(
            "MEMORY_STALKER_LANG",
            env.setting("MEMORY_STALKER_LANG", "LANG"),
            "en or zh",
            (Lang::En, "en"),
            Lang::parse,
        );
        let async_summary = env.flag("MEMORY_STALKER_ASYNC", Some(true)).unwrap_or(true);
        let steer = env.flag("MEMORY_STALKER_STEER", Some(true)).unwrap_or(true);
        let restore = env
            .flag("MEMORY_STALKER_RESTORE", Some(true))
            .unwrap_or(true);
        let redact = env
            .flag("MEMORY_STALKER_REDACT", Some(true))
            .unwrap_or(true);
        let recall = env
            .flag("MEMORY_STALKER_RECALL", Some(true))
            .unwrap_or(true);
        let enabled = env.flag("MEMORY_STALKER_ENABLED", None);
        // Off unless asked for: read on the real sessions of both corpora, 3 of the 28 notes
        // that fired were right (docs/performance.md, "Notes at the moment of action").
        let action_notes = env.flag_setting("MEMORY_STALKER_ACTION_NOTES", "ACTION_NOTES", false);
        let recall_days = env.checked(
            "MEMORY_STALKER_RECALL_DAYS",
            env.var("MEMORY_STALKER_RECALL_DAYS"),
            "a number of days (0 to 3650)",
            (DEFAULT_RECALL_DAYS, DEFAULT_RECALL_DAYS),
            |v| v.parse::<u32>().ok().filter(|n| *n <= 3650),
        );

        let timeout = env.checked(
            "MEMORY_STALKER_TIMEOUT",
            env.var("MEMORY_STALKER_TIMEOUT"),
            "a number of seconds (0 to 3600)",
            (
                Duration::from_secs(DEFAULT_TIMEOUT_SECS),
                DEFAULT_TIMEOUT_SECS,
            ),
            |v| seconds(v, 3600.0),
        );
        let facts_budget = env.checked(
            "MEMORY_STALKER_FACTS_BUDGET",
            env.var("MEMORY_STALKER_FACTS_BUDGET"),
            "a number of seconds (0 to 60)",
            (
                Duration::from_secs(DEFAULT_FACTS_BUDGET_SECS),
                DEFAULT_FACTS_BUDGET_SECS,
            ),
            |v| seconds(v, 60.0),
        );
        let max_chars = env.checked(
            "MEMORY_STALKER_MAX_CHARS",
            env.var("MEMORY_STALKER_MAX_CHARS"),
            "a number of at least 1000",
            (DEFAULT_MAX_CHARS, DEFAULT_MAX_CHARS),
            |v| {
                v.replace('_', "")
                    .parse::<usize>()
                    .ok()
                    .filter(|n| *n >= 1_000)
            },
        );

        let home = env.var("HOME").map(PathBuf::from);
        let writer = env.writer(home.as_deref());
        let data_dir = env.data_dir(home.as_deref());
        let (claude_dir, codex_home) = env.agent_dirs(home.as_deref());

        Config {
            summarizer,
            model: env.setting("MEMORY_STALKER_MODEL", "MODEL"),
            anthropic_api_key: env
                .var("ANTHROPIC_API_KEY")
                .or_else(|| env.var("CLAUDE_PLUGIN_OPTION_API_KEY")),
            anthropic_auth_token: env.var("ANTHROPIC_AUTH_TOKEN"),
            anthropic_base_url: env
                .var("ANTHROPIC_BASE_URL")
                .unwrap_or_else(|| ANTHROPIC_BASE_URL.into()),
            anthropic_default_model: env.var("ANTHROPIC_DEFAULT_SONNET_MODEL"),
            openai_base_url: env.setting("MEMORY_STALKER_OPENAI_BASE_URL", "OPENAI_BASE_URL"),
            openai_api_key: env.var("MEMORY_STALKER_OPENAI_API_KEY"),
            timeout,
            max_chars,
            lang,
            async_summary,
            steer,
            restore,
            enabled,
            recall,
            recall_days,
            action_notes,
            redact,
            prompt_file: env.var("MEMORY_STALKER_PROMPT_FILE").map(PathBuf::from),
            memories_dir: env.var("MEMORY_STALKER_DIR").map(PathBuf::from),
            data_dir,
            home,
            task_list_id: env.var("CLAUDE_CODE_TASK_LIST_ID"),
            claude_dir,
            codex_home,
            project_dir: env.var("CLAUDE_PROJECT_DIR").map(PathBuf::from),
            path_var: env.var("PATH"),
            writer,
            warnings: env.warnings,
            in_hook: false,
            facts_budget,
        }
    }

    /// Claude Code's task files for a session (`~/.claude/tasks/<list>/`).
    pub fn tasks_dir(&self, session_id: &str) -> Option<PathBuf> {
        let list = self.task_list_id.as_deref().unwrap_or(session_id);
        let safe = !list.is_empty() && !list.contains(['/', '\\']) && list != "." && list != "..";
        safe.then(|| {
            self.home
                .as_ref()
                .map(|h| h.join(".claude/tasks").join(list))
        })
        .flatten()
    }

    /// Claude Code's plan files (`~/.claude/plans/`).
    pub fn plans_dir(&self) -> Option<PathBuf> {
        self.home.as_ref().map(|h| h.join(".claude/plans"))
    }
}

/// The environment being read (through a lookup), and the problems found in it.
struct Env<F> {
    get: F,
    warnings: Vec<String>,
}

impl<F: Fn(&str) -> Option<String>> Env<F> {
    /// A variable, trimmed; `None` when unset or blank.
    fn var(&self, name: &str) -> Option<String> {
        (self.get)(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    }

    /// A setting made in the plugin's configuration dialog, when the variable is unset.
    fn setting(&self, name: &str, option: &str) -> Option<String> {
        self.var(name)
            .or_else(|| self.var(&format!("CLAUDE_PLUGIN_OPTION_{option}")))
    }

    /// The key this user's memories are signed with, under `$XDG_STATE_HOME` (when
    /// absolute) or `~/.local/state`.
    fn writer(&self, home: Option<&Path>) -> Option<std::sync::Arc<crate::provenance::Writer>> {
        // Not the plugin's data directory, which differs between Claude Code and other
        // agents: one key for every memory this user's tools write.
        let state_dir = self
            .var("XDG_STATE_HOME")
            .map(PathBuf::from)
            .filter(|d| d.is_absolute())
            .or_else(|| home.map(|h| h.join(".local/state")));
        state_dir.map(|d| {
            std::sync::Arc::new(crate::provenance::Writer::at(
                d.join("memory-stalker").join(crate::provenance::KEY_FILE),
            ))
        })
    }

    /// Where the agents keep their sessions: Claude Code's directory
    /// (`CLAUDE_CONFIG_DIR`, else `~/.claude`) and Codex's home (`CODEX_HOME`, else
    /// `~/.codex`).
    fn agent_dirs(&self, home: Option<&Path>) -> (Option<PathBuf>, Option<PathBuf>) {
        let dir = |var: &str, default: &str| {
            self.var(var)
                .map(PathBuf::from)
                .or_else(|| home.map(|h| h.join(default)))
        };
        (
            dir("CLAUDE_CONFIG_DIR", ".claude"),
            dir("CODEX_HOME", ".codex"),
        )
    }

    /// The plugin's data directory: `CLAUDE_PLUGIN_DATA`, else a `memory-stalker` cache
    /// directory, else one in the temporary directory.
    fn data_dir(&self, home: Option<&Path>) -> PathBuf {
        self.var("CLAUDE_PLUGIN_DATA")
            .map(PathBuf::from)
            .or_else(|| {
                self.var("XDG_CACHE_HOME")
                    .map(|c| Path::new(&c).join("memory-stalker"))
            })
            .or_else(|| home.map(|h| h.join(".cache/memory-stalker")))
            .unwrap_or_else(|| std::env::temp_dir().join("memory-stalker"))
    }

    /// A flag set by its variable, else by the plugin's option, else `default`.
    fn flag_setting(&mut self, name: &str, option: &str, default: bool) -> bool {
        self.flag(name, None)
            .or_else(|| self.flag(&format!("CLAUDE_PLUGIN_OPTION_{option}"), None))
            .unwrap_or(default)
    }

    /// A switch (1/true/yes/on or 0/false/no/off); `default` when unset or invalid.
    fn flag(&mut self, name: &str, default: Option<bool>) -> Option<bool> {
        match self.var(name) {
            None => default,
            Some(v) => match v.to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => Some(true),
                "0" | "false" | "no" | "off" => Some(false),
                _ => {
                    self.warnings.push(format!(
                        "{name}={v:?} is not 1 or 0; using {}",
                        default.map_or("the default", |d| if d { "1" } else { "0" })
                    ));
                    default
                }
            },
        }
    }

    /// `value` (of `name`) when `parse` takes it; otherwise, unless unset, the default,
    /// with a warning naming the values it takes (`what`) and the default as `shown`.
    fn checked<T>(
        &mut self,
        name: &str,
        value: Option<String>,
        what: &str,
        (default, shown): (T, impl std::fmt::Display),
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> T {
        let Some(v) = value else {
            return default;
        };
        parse(&v).unwrap_or_else(|| {
            self.warnings
                .push(format!("{name}={v:?} is not {what}; using {shown}"));
            default
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(pairs: &[(&str, &str)]) -> Config {
        let env: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|k| env.get(k).cloned())
    }

    #[test]
    fn defaults() {
        let c = config(&[("HOME", "/h")]);
        assert_eq!(c.summarizer, Backend::Auto);
        assert_eq!(c.timeout, Duration::from_secs(60));
        assert_eq!(c.max_chars, 50_000);
        assert_eq!(c.lang, Lang::En);
        assert!(c.async_summary && c.steer && c.restore && c.redact);
        assert_eq!(c.anthropic_base_url, ANTHROPIC_BASE_URL);
        assert_eq!(c.data_dir, PathBuf::from("/h/.cache/memory-stalker"));
        assert!(c.warnings.is_empty());
    }

    #[test]
    fn invalid_values_warn_and_fall_back() {
        let c = config(&[
            ("MEMORY_STALKER_SUMMARIZER", "gpt"),
            ("MEMORY_STALKER_TIMEOUT", "soon"),
            ("MEMORY_STALKER_MAX_CHARS", "-5"),
            ("MEMORY_STALKER_LANG", "fr"),
            ("MEMORY_STALKER_ASYNC", "maybe"),
            ("MEMORY_STALKER_FACTS_BUDGET", "600"),
        ]);
        assert_eq!(c.summarizer, Backend::Auto);
        assert_eq!(c.timeout, Duration::from_secs(60));
        assert_eq!(c.facts_budget, Duration::from_secs(10));
        assert_eq!(c.max_chars, 50_000);
        assert_eq!(c.lang, Lang::En);
        assert!(c.async_summary);
        assert_eq!(c.warnings.len(), 6, "{:?}", c.warnings);
    }

    #[test]
    fn values_are_read() {
        let c = config(&[
            ("MEMORY_STALKER_SUMMARIZER", "offline"),
            ("MEMORY_STALKER_TIMEOUT", "2.5"),
            ("MEMORY_STALKER_MAX_CHARS", "20_000"),
            ("MEMORY_STALKER_LANG", "zh"),
            ("MEMORY_STALKER_ASYNC", "0"),
            ("MEMORY_STALKER_STEER", "off"),
            ("CLAUDE_PLUGIN_DATA", "/data"),
            ("MEMORY_STALKER_DIR", "notes"),
        ]);
        assert_eq!(c.summarizer, Backend::Offline);
        assert_eq!(c.timeout, Duration::from_millis(2500));
        assert_eq!(c.max_chars, 20_000);
        assert_eq!(c.lang, Lang::Zh);
        assert!(!c.async_summary && !c.steer);
        assert_eq!(c.data_dir, PathBuf::from("/data"));
        assert_eq!(c.memories_dir(Path::new("/p")), PathBuf::from("/p/notes"));
    }

    #[test]
    fn plugin_options_fill_unset_variables() {
        let c = config(&[
            ("CLAUDE_PLUGIN_OPTION_SUMMARIZER", "claude-cli"),
            ("CLAUDE_PLUGIN_OPTION_LANG", "zh"),
            ("CLAUDE_PLUGIN_OPTION_API_KEY", "k"),
            ("CLAUDE_PLUGIN_OPTION_MODEL", "sonnet"),
            ("MEMORY_STALKER_LANG", "en"),
        ]);
        assert_eq!(c.model.as_deref(), Some("sonnet"));
        assert_eq!(c.summarizer, Backend::ClaudeCli);
        assert_eq!(c.lang, Lang::En, "the environment variable wins");
        assert_eq!(c.anthropic_api_key.as_deref(), Some("k"));
    }

    #[test]
    fn task_dirs_never_leave_the_tasks_directory() {
        let c = config(&[("HOME", "/h")]);
        assert_eq!(
            c.tasks_dir("abc"),
            Some(PathBuf::from("/h/.claude/tasks/abc"))
        );
        assert_eq!(c.tasks_dir("../x"), None);
        assert_eq!(c.tasks_dir(".."), None);
    }
}
