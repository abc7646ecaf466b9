//! Codex's hook trust: Codex runs a hook from a user's configuration only when
//! `config.toml` holds `[hooks.state."<key>"] trusted_hash = "<hash of the hook>"`
//! (checked against Codex 0.169.0, whose `hooks/list` reports the same key and hash).

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

/// One hook handler as Codex hashes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handler {
    /// The event, as `hooks.json` names it (`PreCompact`).
    pub event: &'static str,
    /// The group's matcher, if it has one.
    pub matcher: Option<String>,
    /// The command line (run by a shell).
    pub command: String,
    /// Seconds.
    pub timeout: u64,
}

/// The event's name in a trust key and hash: `pre_compact` for `PreCompact`.
pub fn snake(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The key Codex files the trust of a handler under: the source file, the event, the
/// group's index in the event's list and the handler's index in the group.
pub fn key(source: &Path, event: &str, group: usize, handler: usize) -> String {
    format!("{}:{}:{group}:{handler}", source.display(), snake(event))
}

/// The hash Codex compares with `trusted_hash`: SHA-256 of the compact JSON, keys
/// sorted, of `{event_name, [matcher], hooks: [{type, command, timeout, async}]}`.
pub fn hash(h: &Handler) -> String {
    // Keys sorted whatever serde_json's map keeps: built from sorted maps.
    let mut handler = Map::new();
    for (k, v) in [
        ("async", json!(false)),
        ("command", json!(h.command)),
        ("timeout", json!(h.timeout)),
        ("type", json!("command")),
    ] {
        handler.insert(k.to_string(), v);
    }
    let mut group: Vec<(&str, Value)> = vec![
        ("event_name", json!(snake(h.event))),
        ("hooks", Value::Array(vec![sorted(handler)])),
    ];
    if let Some(m) = &h.matcher {
        group.push(("matcher", json!(m)));
    }
    group.sort_by(|a, b| a.0.cmp(b.0));
    let mut text = String::from("{");
    for (i, (k, v)) in group.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        let _ = write!(text, "{}:{}", json!(k), v);
    }
    text.push('}');
    let digest = Sha256::digest(text.as_bytes());
    let mut out = String::from("sha256:");
    for b in digest {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// An object whose keys serialize in sorted order (serde_json's map may keep insertion
/// order when another crate asks for it).
fn sorted(map: Map<String, Value>) -> Value {
    let mut pairs: Vec<(String, Value)> = map.into_iter().collect();
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    let text = format!(
        "{{{}}}",
        pairs
            .iter()
            .map(|(k, v)| format!("{}:{v}", json!(k)))
            .collect::<Vec<_>>()
            .join(",")
    );
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hashes Codex 0.169.0's `hooks/list` reported for these handlers (the PreToolUse
    /// one, 0.171.0's too).
    #[test]
    fn hashes_are_codexs() {
        let h = |event, matcher: Option<&str>, command: &str, timeout| Handler {
            event,
            matcher: matcher.map(String::from),
            command: command.into(),
            timeout,
        };
        assert_eq!(
            hash(&h(
                "PreCompact",
                None,
                "/home/user/log-hook.sh PreCompact",
                600
            )),
            "sha256:f76ff1b7a12c477b2bdffddf9c1888f2679d541bb8b3d8cd6c5b24f81764e548"
        );
        assert_eq!(
            hash(&h(
                "SessionEnd",
                None,
                "/home/user/log-hook.sh SessionEnd",
                1
            )),
            "sha256:30e8f2e1fc7f78d0d7166fccb67d09f7ba321ad7460f0e92931d6b3bbdd7d468"
        );
        assert_eq!(
            hash(&h(
                "SessionStart",
                Some("compact"),
                "'/x y/plugin/run' save-memory",
                30
            )),
            "sha256:6c4104e9f27112ceb7da6f86aee03e86921f8c2948a94d10f2a1e59a283305ff"
        );
        // A PreToolUse group with a matcher (0.169.0 and 0.171.0 alike).
        assert_eq!(
            hash(&h("PreToolUse", Some("apply_patch"), "/bin/true y", 10)),
            "sha256:7b13924df47090019dc6a7c3ec80dbd9c9e0ffaf5889cde44c1c115cb51910bd"
        );
        assert_eq!(snake("UserPromptSubmit"), "user_prompt_submit");
        assert_eq!(
            key(Path::new("/h/.codex/hooks.json"), "PostToolUse", 2, 0),
            "/h/.codex/hooks.json:post_tool_use:2:0"
        );
    }
}
