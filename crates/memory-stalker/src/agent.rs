//! Which coding agent a session belongs to: Claude Code or OpenAI's Codex CLI.
//!
//! One store serves both (docs/design.md §4.3): a memory says which agent it was saved
//! from, a transcript's format says which agent wrote it (docs/design.md §3.13), and
//! what the model reads names the agent it runs in.

use serde::{Deserialize, Serialize};

/// A coding agent whose sessions memory-stalker saves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Agent {
    /// Anthropic's Claude Code: what a memory without an `agent` field was saved from.
    #[default]
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
}

impl Agent {
    /// Both agents, Claude Code first.
    pub const ALL: [Agent; 2] = [Agent::ClaudeCode, Agent::Codex];

    /// The key written in front matter and JSON, and taken by `--agent`:
    /// `claude-code` or `codex`.
    pub fn key(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
        }
    }

    /// The agent's name as people (and models) read it: `Claude Code`, `Codex`.
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex",
        }
    }

    /// What the assistant is called in the memory's sentences ("Claude asked …",
    /// "After Codex changed …").
    pub fn speaker(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude",
            Agent::Codex => "Codex",
        }
    }

    /// Reads a key or a name, in any case (`codex`, `Codex`, `claude-code`,
    /// `claude`, `Claude Code`); `None` for anything else.
    pub fn parse(s: &str) -> Option<Agent> {
        let s = s.trim().to_ascii_lowercase().replace([' ', '_'], "-");
        match s.as_str() {
            "claude-code" | "claude" | "claudecode" => Some(Agent::ClaudeCode),
            "codex" | "codex-cli" | "openai-codex" => Some(Agent::Codex),
            _ => None,
        }
    }

    /// An agent named by a person or the model (a `--agent` value, a tool's `agent`
    /// argument): [`Agent::parse`], or what to tell them when it names neither. The one
    /// reading of such a name, for `list`, `find`, `search` and the MCP tools alike.
    pub fn from_arg(s: &str) -> Result<Agent, String> {
        Agent::parse(s).ok_or_else(|| {
            format!(
                "agent \"{}\" is not one of \"claude-code\" and \"codex\".",
                crate::untrusted::line(s, 40).replace('"', "'")
            )
        })
    }

    /// Whether this is Claude Code (for `skip_serializing_if`: a Claude Code value is
    /// left out where it always was absent).
    pub fn is_claude_code(&self) -> bool {
        *self == Agent::ClaudeCode
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_names_and_parsing_agree() {
        for a in Agent::ALL {
            assert_eq!(Agent::parse(a.key()), Some(a));
            assert_eq!(Agent::parse(a.name()), Some(a));
            assert_eq!(
                serde_json::to_string(&a).unwrap(),
                format!("\"{}\"", a.key())
            );
        }
        assert_eq!(Agent::parse("CLAUDE"), Some(Agent::ClaudeCode));
        assert_eq!(Agent::parse("gemini"), None);
        assert_eq!(Agent::default(), Agent::ClaudeCode);
    }
}
