//! memory-stalker's hooks in Codex's `hooks.json`, added and removed in place: the
//! user's own hooks, key order and formatting are never rewritten, only our groups are
//! spliced in or out (docs/design.md §2.12).
//!
//! Ours are found again by their command, which only this installer writes:
//! `'<repository>/plugin/run' save-memory` (or `… save-memory hand-over-note`).

use std::path::Path;

use super::spans::{self, Kind, Node};

/// Our hooks: event, arguments of the launcher, timeout in seconds (as in Claude Code's
/// `hooks/hooks.json`). SessionStart has no matcher: `save-memory` answers every source.
pub const HOOKS: [(&str, &str, u64); 5] = [
    ("PreCompact", "save-memory", 90),
    ("PostCompact", "save-memory", 30),
    ("SessionStart", "save-memory", 30),
    ("UserPromptSubmit", "save-memory hand-over-note", 10),
    ("PostToolUse", "save-memory hand-over-note", 10),
];

/// The command line of a hook: the launcher's absolute path, quoted for the shell Codex
/// runs it with, and the arguments.
pub fn command(launcher: &Path, args: &str) -> String {
    let path = launcher.to_string_lossy();
    format!("'{}' {args}", path.replace('\'', "'\\''"))
}

/// Whether `command` is one this installer writes (whichever repository it points at).
pub fn is_ours(command: &str) -> bool {
    let Some(rest) = command.strip_prefix('\'') else {
        return false;
    };
    // The quoted path ends at the last `' ` before the arguments.
    let Some(end) = rest.rfind("' ") else {
        return false;
    };
    let (path, args) = (&rest[..end], &rest[end + 2..]);
    path.ends_with("/plugin/run")
        && matches!(args, "save-memory" | "save-memory hand-over-note")
        && !path.replace("'\\''", "").contains('\'')
}

/// The text of one of our groups.
fn group(command: &str, timeout: u64) -> String {
    format!(
        "{{\"hooks\": [{{\"type\": \"command\", \"command\": {}, \"timeout\": {timeout}}}]}}",
        serde_json::Value::String(command.to_string())
    )
}

/// Whether a group (an element of an event's list) holds only our handlers.
fn is_our_group(g: &Node) -> bool {
    let handlers = g.member("hooks").map(|h| h.value.elements()).unwrap_or(&[]);
    !handlers.is_empty()
        && handlers.iter().all(|h| {
            h.member("command")
                .and_then(|c| c.value.as_str())
                .is_some_and(is_ours)
        })
}

/// Each of our events, and the index of our group in its list.
pub type Places = Vec<(&'static str, usize)>;

/// `hooks.json` with our hooks in it: the new text (`None` when it already has them
/// exactly), and the index of our group in each event's list (for the trust keys).
pub fn with_ours(text: Option<&str>, launcher: &Path) -> Result<(Option<String>, Places), String> {
    let original = text.filter(|t| !t.trim().is_empty());
    let mut text = match original {
        Some(t) => {
            check(t)?;
            t.to_string()
        }
        None => skeleton(launcher),
    };
    for (event, args, timeout) in HOOKS {
        let wanted = group(&command(launcher, args), timeout);
        let root = spans::parse(&text).ok_or("hooks.json could not be read")?;
        let Some(hooks) = root.member("hooks") else {
            let member = format!("\"hooks\": {{\"{event}\": [{wanted}]}}");
            text = insert(&text, &root, &member);
            continue;
        };
        if !matches!(hooks.value.kind, Kind::Object(_)) {
            return Err("hooks.json's \"hooks\" is not an object; nothing was changed".into());
        }
        let Some(list) = hooks.value.member(event) else {
            text = insert(&text, &hooks.value, &format!("\"{event}\": [{wanted}]"));
            continue;
        };
        if !matches!(list.value.kind, Kind::Array(_)) {
            return Err(format!(
                "hooks.json's \"{event}\" is not a list; nothing was changed"
            ));
        }
        match list.value.elements().iter().find(|g| is_our_group(g)) {
            Some(g) if same(&text[g.span.clone()], &wanted) => {}
            // An earlier install (another path, another timeout): replaced where it is,
            // so no group after it moves.
            Some(g) => text.replace_range(g.span.clone(), &wanted),
            None => text = insert(&text, &list.value, &wanted),
        }
    }
    let places = ours(&text);
    let changed = original.is_none_or(|o| o != text);
    Ok((changed.then_some(text), places))
}

/// `hooks.json` without our hooks: the new text (`None` for a file that held nothing
/// else, to be deleted), and what was done, for the report.
pub fn without_ours(text: &str) -> Result<(Option<String>, Vec<String>), String> {
    check(text)?;
    let mut text = text.to_string();
    let mut done = Vec::new();
    // One change at a time, the text read again after each.
    loop {
        let root = spans::parse(&text).ok_or("hooks.json could not be read")?;
        let Some(hooks) = root.member("hooks") else {
            break;
        };
        let mut changed = false;
        for (mi, event) in hooks.value.members().iter().enumerate() {
            let groups = event.value.elements();
            let Some(i) = groups.iter().position(is_our_group) else {
                continue;
            };
            if groups.iter().all(is_our_group) {
                text = remove(&text, &hooks.value, mi);
                done.push(format!("removed {}", event.key));
            } else if groups[i + 1..].iter().any(|g| !is_our_group(g)) {
                // Groups after ours keep their places, and with them the trust Codex
                // gave them (its key counts groups): ours becomes an empty group.
                text.replace_range(groups[i].span.clone(), "{\"hooks\": []}");
                done.push(format!(
                    "emptied {} (the hooks after it keep their place, and Codex's trust)",
                    event.key
                ));
            } else {
                text = remove(&text, &event.value, i);
                done.push(format!("removed {}", event.key));
            }
            changed = true;
            break;
        }
        if !changed {
            break;
        }
    }
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let empty = value.as_object().is_some_and(|o| {
        o.is_empty()
            || (o.len() == 1
                && o.get("hooks")
                    .is_some_and(|h| h.as_object().is_some_and(|h| h.is_empty())))
    });
    Ok(((!empty).then_some(text), done))
}

/// Where our groups are: each event's index of the first group that is ours.
pub fn ours(text: &str) -> Places {
    let Some(root) = spans::parse(text) else {
        return Vec::new();
    };
    let Some(hooks) = root.member("hooks") else {
        return Vec::new();
    };
    HOOKS
        .iter()
        .filter_map(|(event, _, _)| {
            let list = hooks.value.member(event)?;
            let i = list.value.elements().iter().position(is_our_group)?;
            Some((*event, i))
        })
        .collect()
}

/// The file this installer writes when there is none.
fn skeleton(launcher: &Path) -> String {
    let mut out = String::from("{\n  \"hooks\": {\n");
    for (i, (event, args, timeout)) in HOOKS.iter().enumerate() {
        out.push_str(&format!(
            "    \"{event}\": [{}]{}\n",
            group(&command(launcher, args), *timeout),
            if i + 1 < HOOKS.len() { "," } else { "" }
        ));
    }
    out.push_str("  }\n}\n");
    out
}

/// `text` must be a JSON object to be edited.
fn check(text: &str) -> Result<(), String> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(_)) => Ok(()),
        Ok(_) => Err("hooks.json is not a JSON object; nothing was changed".into()),
        Err(e) => Err(format!(
            "hooks.json is not valid JSON ({e}); nothing was changed"
        )),
    }
}

/// Whether two JSON texts hold the same value.
fn same(a: &str, b: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(a).ok() == serde_json::from_str(b).ok()
}

/// `text` with `item` added as the last member or element of `container`, on a line of
/// its own indented like the one before it when the container is laid out so.
fn insert(text: &str, container: &Node, item: &str) -> String {
    let last_end = match &container.kind {
        Kind::Object(m) => m.last().map(|m| (m.span.start, m.span.end)),
        Kind::Array(e) => e.last().map(|e| (e.span.start, e.span.end)),
        _ => None,
    };
    let mut out = text.to_string();
    match last_end {
        None => out.insert_str(container.span.start + 1, item),
        Some((start, end)) => {
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            let indent = &text[line_start..start];
            let sep = if indent.chars().all(|c| c == ' ' || c == '\t')
                && line_start > container.span.start
            {
                format!(",\n{indent}")
            } else {
                ", ".to_string()
            };
            out.insert_str(end, &format!("{sep}{item}"));
        }
    }
    out
}

/// `text` without member or element `i` of `container`, and the separator that went
/// with it.
fn remove(text: &str, container: &Node, i: usize) -> String {
    let spans: Vec<std::ops::Range<usize>> = match &container.kind {
        Kind::Object(m) => m.iter().map(|m| m.span.clone()).collect(),
        Kind::Array(e) => e.iter().map(|e| e.span.clone()).collect(),
        _ => return text.to_string(),
    };
    let cut = if spans.len() == 1 {
        // The only one: the container keeps its brackets and nothing between them.
        container.span.start + 1..container.span.end - 1
    } else if i > 0 {
        spans[i - 1].end..spans[i].end
    } else {
        spans[0].start..spans[1].start
    };
    let mut out = text.to_string();
    out.replace_range(cut, "");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAUNCHER: &str = "/opt/memory stalker/plugin/run";

    fn launcher() -> &'static Path {
        Path::new(LAUNCHER)
    }

    #[test]
    fn our_commands_are_recognised_and_no_others() {
        let c = command(launcher(), "save-memory");
        assert_eq!(c, "'/opt/memory stalker/plugin/run' save-memory");
        assert!(is_ours(&c));
        assert!(is_ours(&command(
            Path::new("/it's/plugin/run"),
            "save-memory hand-over-note"
        )));
        assert!(!is_ours("/home/u/log-hook.sh PreCompact"));
        assert!(!is_ours("'/x/plugin/run' save-memory; rm -rf /"));
        assert!(!is_ours("'/x/other/run' save-memory"));
    }

    #[test]
    fn a_new_file_holds_our_hooks_and_removing_them_deletes_it() {
        let (text, places) = with_ours(None, launcher()).unwrap();
        let text = text.unwrap();
        insta::assert_snapshot!(text, @r#"
        {
          "hooks": {
            "PreCompact": [{"hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory", "timeout": 90}]}],
            "PostCompact": [{"hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory", "timeout": 30}]}],
            "SessionStart": [{"hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory", "timeout": 30}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory hand-over-note", "timeout": 10}]}],
            "PostToolUse": [{"hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory hand-over-note", "timeout": 10}]}]
          }
        }
        "#);
        assert!(places.iter().all(|(_, i)| *i == 0));
        assert_eq!(
            with_ours(Some(&text), launcher()).unwrap().0,
            None,
            "idempotent"
        );
        assert_eq!(without_ours(&text).unwrap().0, None);
    }

    /// A file of the user's own: their bytes stay theirs.
    const USERS: &str = "{\n  // not JSON: never reached\n}";
    const USER_HOOKS: &str = r#"{
    "hooks": {
        "PreCompact": [
            {"hooks": [{"type": "command", "command": "/home/u/notify.sh"}]}
        ],
        "Stop": [{"matcher": "", "hooks": []}]
    },
    "x-my-note": "kept"
}
"#;

    #[test]
    fn the_users_file_is_added_to_and_restored_byte_for_byte() {
        assert!(
            with_ours(Some(USERS), launcher()).is_err(),
            "invalid JSON is left alone"
        );
        let (text, places) = with_ours(Some(USER_HOOKS), launcher()).unwrap();
        let text = text.unwrap();
        insta::assert_snapshot!(text, @r#"
        {
            "hooks": {
                "PreCompact": [
                    {"hooks": [{"type": "command", "command": "/home/u/notify.sh"}]},
                    {"hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory", "timeout": 90}]}
                ],
                "Stop": [{"matcher": "", "hooks": []}],
                "PostCompact": [{"hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory", "timeout": 30}]}],
                "SessionStart": [{"hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory", "timeout": 30}]}],
                "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory hand-over-note", "timeout": 10}]}],
                "PostToolUse": [{"hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory hand-over-note", "timeout": 10}]}]
            },
            "x-my-note": "kept"
        }
        "#);
        assert_eq!(places[0], ("PreCompact", 1));
        let (back, done) = without_ours(&text).unwrap();
        assert_eq!(back.as_deref(), Some(USER_HOOKS));
        assert_eq!(done.len(), 5);
        // Installed again from another place: replaced where it was.
        let (moved, _) = with_ours(Some(&text), Path::new("/new/plugin/run")).unwrap();
        let moved = moved.unwrap();
        assert_eq!(ours(&moved), ours(&text));
        assert!(
            !moved.contains("/opt/memory stalker")
                && moved.contains("'/new/plugin/run' save-memory")
        );
    }

    #[test]
    fn groups_after_ours_keep_their_place() {
        let (text, _) = with_ours(Some(USER_HOOKS), launcher()).unwrap();
        let text = text.unwrap();
        // The user adds a group after ours, and Codex trusts it at index 2.
        let text = text.replace(
            "\"timeout\": 90}]}\n",
            "\"timeout\": 90}]},\n            {\"hooks\": [{\"type\": \"command\", \"command\": \"/home/u/late.sh\"}]}\n",
        );
        let (back, done) = without_ours(&text).unwrap();
        let back = back.unwrap();
        assert!(done[0].starts_with("emptied PreCompact"), "{done:?}");
        let v: serde_json::Value = serde_json::from_str(&back).unwrap();
        assert_eq!(
            v["hooks"]["PreCompact"][2]["hooks"][0]["command"],
            "/home/u/late.sh"
        );
        assert_eq!(
            v["hooks"]["PreCompact"][1],
            serde_json::json!({"hooks": []})
        );
        assert!(ours(&back).is_empty());
    }

    #[test]
    fn odd_shapes_are_refused_not_rewritten() {
        assert!(with_ours(Some("[]"), launcher()).is_err());
        assert!(with_ours(Some(r#"{"hooks": []}"#), launcher()).is_err());
        assert!(with_ours(Some(r#"{"hooks": {"PreCompact": {}}}"#), launcher()).is_err());
        // An empty object gets a `hooks` member.
        let (text, _) = with_ours(Some("{}"), launcher()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text.unwrap()).unwrap();
        assert_eq!(v["hooks"].as_object().unwrap().len(), 5);
    }
}
