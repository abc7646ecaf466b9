//! Claude Code's side of a hook: the JSON it writes on the hook's stdin, the events,
//! and what the hook may print on stdout for each (docs/design.md §2).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::Error;
use crate::config::Config;

/// Largest hook input read from stdin; Claude Code sends well under a kilobyte, but
/// PostCompact carries the compaction summary.
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// The JSON Claude Code writes on a hook's stdin. Unknown fields are ignored and every
/// field is optional, so a newer Claude Code cannot make the hook fail.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct HookInput {
    /// The session's id (control characters removed).
    pub session_id: Option<String>,
    /// The session's transcript (JSONL).
    pub transcript_path: Option<String>,
    /// The directory Claude Code runs in: the project.
    pub cwd: Option<String>,
    /// The id of the prompt in progress (control characters removed).
    pub prompt_id: Option<String>,
    /// `PreCompact`, `SessionStart`, … (see [`HookInput::event`]).
    pub hook_event_name: Option<String>,
    /// PreCompact and PostCompact: `auto` or `manual`.
    pub trigger: Option<crate::memory::Trigger>,
    /// PreCompact: the `/compact` arguments.
    pub custom_instructions: Option<String>,
    /// PostCompact: Claude Code's own summary, raw.
    pub compact_summary: Option<String>,
    /// SessionStart: `startup`, `resume`, `clear` or `compact`.
    pub source: Option<String>,
    /// Codex: the turn under way (every event but SessionStart); Claude Code sends none.
    /// Only its presence is read (docs/design.md §2.11).
    pub turn_id: Option<serde::de::IgnoredAny>,
    /// The session's permission mode: Codex sends it with SessionStart, Claude Code
    /// does not. Only its presence is read.
    pub permission_mode: Option<serde::de::IgnoredAny>,
    /// A sub-agent's id, when the hook fires inside one (docs/design.md §2.11, "Sub-agents"): Codex
    /// then sends the *parent's* `session_id` with the sub-agent's own rollout, and
    /// Claude Code names a sub-agent the same way. Control characters removed.
    pub agent_id: Option<String>,
}

impl HookInput {
    /// Parses the hook's stdin.
    pub fn parse(bytes: &[u8]) -> Result<HookInput, Error> {
        let text = String::from_utf8_lossy(bytes);
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(Error::HookInput(
                "stdin was empty; Claude Code sends the hook's JSON there".into(),
            ));
        }
        let mut input: HookInput = serde_json::from_str(trimmed).map_err(|e| {
            Error::HookInput(format!(
                "stdin is not the JSON object Claude Code sends ({e}); it began with {:?}",
                crate::redact::redact(crate::text::prefix_chars(trimmed, 60))
            ))
        })?;
        // Ids end up in file names, front matter and Markdown: no control characters.
        for id in [
            &mut input.session_id,
            &mut input.prompt_id,
            &mut input.agent_id,
        ] {
            if let Some(v) = id.as_mut() {
                *v = crate::untrusted::clean(v).into_owned();
            }
        }
        Ok(input)
    }

    /// The sub-agent the hook fires inside, if any (an empty id is none).
    pub fn sub_agent(&self) -> Option<&str> {
        self.agent_id.as_deref().filter(|a| !a.trim().is_empty())
    }

    /// The project directory (docs/design.md §2.2): `CLAUDE_PROJECT_DIR` when `cwd` lies
    /// in it, else `cwd`, else `CLAUDE_PROJECT_DIR`, whichever exists. Claude Code's `cwd`
    /// is the session's current directory, which a `cd` in a Bash call moves: a memory
    /// saved in `frontend/.claude/memories/` would be lost to the next session, which
    /// starts in the project. A relative `cwd` is taken from the hook's own working
    /// directory.
    pub fn project(&self, config: &Config) -> Option<PathBuf> {
        let cwd = self.cwd_path();
        let root = config.project_dir.as_ref().filter(|p| p.is_dir());
        let contains = |root: &PathBuf| {
            cwd.as_ref().is_none_or(|c| {
                let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
                c.starts_with(root) || canonical(c).starts_with(canonical(root))
            })
        };
        root.filter(|r| contains(r))
            .cloned()
            .or_else(|| cwd.filter(|c| c.is_dir()))
            .or_else(|| root.cloned())
    }

    /// `cwd` as an absolute path.
    pub(crate) fn cwd_path(&self) -> Option<PathBuf> {
        let cwd = PathBuf::from(self.cwd.as_deref().filter(|c| !c.is_empty())?);
        if cwd.is_absolute() {
            return Some(cwd);
        }
        let joined = std::env::current_dir().ok()?.join(cwd);
        Some(joined.canonicalize().unwrap_or(joined))
    }
}

/// How long a hook event may run before the hook leaves on its own, exiting 0: under
/// the timeout `hooks/hooks.json` gives it (90 s for PreCompact, 30 s for the others),
/// so Claude Code never has to kill it.
pub fn time_budget(event: Option<&str>, config: &Config) -> std::time::Duration {
    use std::time::Duration;
    match event {
        Some("PreCompact") | None => {
            (config.timeout + Duration::from_secs(15)).min(Duration::from_secs(85))
        }
        _ => Duration::from_secs(25),
    }
}

/// The event a hook input is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Before a compaction. An input without an event name is taken as one: the hook
    /// was first registered for PreCompact alone, and saving is the safe reading.
    PreCompact,
    /// After a compaction, with Claude Code's summary.
    PostCompact,
    /// A session starts, or starts again after a compaction.
    SessionStart(Source),
    /// Any other event (the note hooks have a subcommand of their own).
    Other(String),
}

/// Why a session starts (SessionStart's `source`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Right after a compaction.
    Compact,
    /// A new session.
    Startup,
    /// `--resume` or `--continue`.
    Resume,
    /// `/clear`.
    Clear,
    /// A source this version does not know (or none).
    Other(Option<String>),
}

impl HookInput {
    /// The event this input is for.
    pub fn event(&self) -> Event {
        match self.hook_event_name.as_deref() {
            Some("PreCompact") | None => Event::PreCompact,
            Some("PostCompact") => Event::PostCompact,
            Some("SessionStart") => Event::SessionStart(match self.source.as_deref() {
                Some("compact") => Source::Compact,
                Some("startup") => Source::Startup,
                Some("resume") => Source::Resume,
                Some("clear") => Source::Clear,
                other => Source::Other(other.map(String::from)),
            }),
            Some(other) => Event::Other(other.to_string()),
        }
    }
}

impl Event {
    /// The event as the log names it: `SessionStart (startup)`.
    pub fn name(&self) -> String {
        match self {
            Event::PreCompact => "PreCompact".into(),
            Event::PostCompact => "PostCompact".into(),
            Event::SessionStart(source) => format!(
                "SessionStart ({})",
                match source {
                    Source::Compact => "compact",
                    Source::Startup => "startup",
                    Source::Resume => "resume",
                    Source::Clear => "clear",
                    Source::Other(s) => s.as_deref().unwrap_or("no source"),
                }
            ),
            Event::Other(name) => name.clone(),
        }
    }
}

/// What a hook prints on stdout. Claude Code reads it differently per event: PreCompact's
/// text is pasted into the compaction prompt (and shown after `/compact`), while the
/// context of SessionStart, UserPromptSubmit and PostToolUse reaches the model only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// Nothing at all.
    Nothing,
    /// PreCompact: instructions for Claude Code's summariser.
    CompactionInstructions(String),
    /// `hookSpecificOutput.additionalContext` of `event`, for the model.
    Context {
        /// The event's name, which Claude Code checks.
        event: &'static str,
        /// The context.
        text: String,
    },
}

impl Output {
    /// The bytes for stdout.
    pub fn into_stdout(self) -> String {
        /// `hookSpecificOutput`; its keys in the order they were always printed.
        #[derive(Serialize)]
        struct Specific<'a> {
            #[serde(rename = "additionalContext")]
            additional_context: &'a str,
            #[serde(rename = "hookEventName")]
            hook_event_name: &'a str,
        }
        /// The JSON object on stdout.
        #[derive(Serialize)]
        struct Stdout<'a> {
            #[serde(rename = "hookSpecificOutput")]
            hook_specific_output: Specific<'a>,
        }
        match self {
            Output::Nothing => String::new(),
            Output::CompactionInstructions(text) => text,
            Output::Context { event, text } => serde_json::to_string(&Stdout {
                hook_specific_output: Specific {
                    additional_context: &text,
                    hook_event_name: event,
                },
            })
            .unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(project_dir: Option<&Path>) -> Config {
        let dir = project_dir.map(|p| p.to_string_lossy().into_owned());
        Config::from_lookup(move |k| (k == "CLAUDE_PROJECT_DIR").then(|| dir.clone()).flatten())
    }

    fn input(cwd: Option<&Path>) -> HookInput {
        HookInput {
            cwd: cwd.map(|c| c.to_string_lossy().into_owned()),
            ..HookInput::default()
        }
    }

    #[test]
    fn the_project_is_claude_codes_when_the_session_went_into_a_subdirectory() {
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("project");
        let sub = project.join("frontend");
        let elsewhere = root.path().join("elsewhere");
        for d in [&sub, &elsewhere] {
            std::fs::create_dir_all(d).unwrap();
        }
        let with = config(Some(&project));
        assert_eq!(input(Some(&sub)).project(&with), Some(project.clone()));
        assert_eq!(input(Some(&project)).project(&with), Some(project.clone()));
        assert_eq!(input(None).project(&with), Some(project.clone()));
        // A directory outside the project is not taken for part of it; without
        // CLAUDE_PROJECT_DIR (Codex) the session's directory is the project.
        assert_eq!(
            input(Some(&elsewhere)).project(&with),
            Some(elsewhere.clone())
        );
        assert_eq!(input(Some(&sub)).project(&config(None)), Some(sub.clone()));
        // A project directory that is gone gives way to the session's.
        let gone = config(Some(&root.path().join("gone")));
        assert_eq!(input(Some(&sub)).project(&gone), Some(sub));
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_the_project_is_the_project() {
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("project");
        std::fs::create_dir_all(project.join("src")).unwrap();
        let link = root.path().join("link");
        std::os::unix::fs::symlink(&project, &link).unwrap();
        assert_eq!(
            input(Some(&project.join("src"))).project(&config(Some(&link))),
            Some(link)
        );
    }
}
