//! What the hooks do differently when Codex runs them (docs/design.md §2.11): which agent
//! a hook input comes from, a session Codex keeps no rollout of, and Codex's own
//! compaction summary, which its PostCompact input does not carry.

use std::path::Path;

use super::HookInput;
use crate::agent::Agent;
use crate::log::Log;

/// Which agent ran the hook: the transcript's format when there is a transcript to read
/// (docs/design.md §3.12); otherwise the input's shape: Codex names the turn (`turn_id`)
/// on every event but SessionStart, and sends `permission_mode` with SessionStart, which
/// Claude Code does not; a Codex rollout's path says so too.
pub fn agent_of(input: &HookInput) -> Agent {
    let path = input
        .transcript_path
        .as_deref()
        .filter(|p| !p.is_empty())
        .map(Path::new);
    if let Some(agent) = path.and_then(crate::transcript::agent_of) {
        return agent;
    }
    let session_start = input.hook_event_name.as_deref() == Some("SessionStart");
    let rollout_name = path
        .and_then(Path::file_name)
        .is_some_and(|n| n.to_string_lossy().starts_with("rollout-"));
    if input.turn_id.is_some()
        || (session_start && input.permission_mode.is_some() && input.prompt_id.is_none())
        || rollout_name
    {
        Agent::Codex
    } else {
        Agent::ClaudeCode
    }
}

/// Whether Codex ran the hook for a session it keeps no rollout of (`codex exec
/// --ephemeral`: `transcript_path` is null for every hook).
pub fn without_rollout(input: &HookInput, agent: Agent) -> bool {
    agent == Agent::Codex && input.transcript_path.as_deref().is_none_or(str::is_empty)
}

/// The one line logged for such a session at each compaction hook.
pub fn without_rollout_line(event: &str) -> String {
    format!(
        "{event}: Codex gave no transcript_path (a session run with --ephemeral keeps no rollout); nothing was saved"
    )
}

/// The agent's own summary of the compaction that just ran, for PostCompact: Claude
/// Code hands it to the hook (its `<summary>` part is kept); Codex has written it into
/// the rollout (its last `compacted` record) before PostCompact runs. `None`, and a
/// warning saying where it was looked for, when there is none.
pub fn compaction_summary(input: &HookInput, agent: Agent, log: &Log) -> Option<String> {
    let summary = match agent {
        Agent::ClaudeCode => {
            super::summary_part(input.compact_summary.as_deref().unwrap_or("")).to_string()
        }
        Agent::Codex => {
            let rollout = Path::new(input.transcript_path.as_deref().unwrap_or(""));
            match crate::transcript::last_compaction_summary(rollout) {
                Ok(s) => s.unwrap_or_default(),
                Err(e) => {
                    log.warn(&format!("PostCompact: {e}"));
                    String::new()
                }
            }
        }
    };
    if summary.trim().is_empty() {
        log.warn(match agent {
            Agent::ClaudeCode => "PostCompact: the hook input has no compact_summary to add",
            Agent::Codex => "PostCompact: the rollout holds no compaction summary to add",
        });
        return None;
    }
    Some(summary.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(json: &str) -> HookInput {
        HookInput::parse(json.as_bytes()).unwrap()
    }

    #[test]
    fn the_input_shape_tells_the_agent_without_a_transcript() {
        let codex_pre = input(
            r#"{"session_id":"s","turn_id":"t","transcript_path":null,"cwd":"/w","hook_event_name":"PreCompact","model":"gpt-5.5","trigger":"auto"}"#,
        );
        assert_eq!(agent_of(&codex_pre), Agent::Codex);
        assert!(without_rollout(&codex_pre, Agent::Codex));
        let codex_start = input(
            r#"{"session_id":"s","transcript_path":null,"cwd":"/w","hook_event_name":"SessionStart","model":"m","permission_mode":"bypassPermissions","source":"startup"}"#,
        );
        assert_eq!(agent_of(&codex_start), Agent::Codex);
        let claude = input(
            r#"{"session_id":"s","transcript_path":"/h/.claude/projects/p/s.jsonl","cwd":"/w","prompt_id":"p","hook_event_name":"PreCompact","trigger":"auto","custom_instructions":null}"#,
        );
        assert_eq!(agent_of(&claude), Agent::ClaudeCode);
        assert!(!without_rollout(&claude, Agent::ClaudeCode));
        let claude_start = input(
            r#"{"session_id":"s","transcript_path":"/x.jsonl","cwd":"/w","hook_event_name":"SessionStart","source":"compact","model":"claude"}"#,
        );
        assert_eq!(agent_of(&claude_start), Agent::ClaudeCode);
        let named = input(
            r#"{"session_id":"s","transcript_path":"/h/.codex/sessions/2026/11/25/rollout-2026-11-25T13-30-46-s.jsonl","hook_event_name":"SessionStart","source":"startup"}"#,
        );
        assert_eq!(agent_of(&named), Agent::Codex);
        // A turn id of any type is read as present, and never fails the input.
        let odd = input(r#"{"turn_id":42,"hook_event_name":"PostCompact"}"#);
        assert_eq!(agent_of(&odd), Agent::Codex);
    }

    #[test]
    fn the_transcript_decides_when_there_is_one() {
        let dir = tempfile::tempdir().unwrap();
        let rollout = dir.path().join("session.jsonl");
        std::fs::write(
            &rollout,
            "{\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"s\"}}\n",
        )
        .unwrap();
        let i = input(&format!(
            r#"{{"session_id":"s","transcript_path":{},"prompt_id":"p","hook_event_name":"PreCompact"}}"#,
            serde_json::to_string(&rollout).unwrap()
        ));
        assert_eq!(agent_of(&i), Agent::Codex);
    }
}
