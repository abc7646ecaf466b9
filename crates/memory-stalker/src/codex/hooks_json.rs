//! memory-stalker's hooks in Codex's `hooks.json`, added and removed in place: the
//! user's own hooks, key order and formatting are never rewritten, only our groups are
//! spliced in or out (docs/design.md §2.12).
//!
//! Ours are found again by their command, which only this installer writes:
//! `'<repository>/plugin/run' save-memory` (or `… save-memory hand-over-note`,
//! `… save-memory action-note`). The repository's path tells one copy of memory-stalker
//! from another: an install or an uninstall touches only the groups of its own copy (and
//! an install replaces those of a copy that is gone), never a working copy's.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::spans::{self, Kind, Node};

/// One of our hooks: a group of one handler in an event's list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hook {
    /// The event, as `hooks.json` names it.
    pub event: &'static str,
    /// The group's matcher (`None`: every source, every tool).
    pub matcher: Option<&'static str>,
    /// The launcher's arguments.
    pub args: &'static str,
    /// Seconds (as in Claude Code's `hooks/hooks.json`).
    pub timeout: u64,
}

/// Our hooks, one group an event. SessionStart has no matcher: `save-memory` answers
/// every source. The note before an edit (docs/design.md §2.13) runs only for Codex's
/// patch tool (its PreToolUse `tool_name` is `apply_patch`, seen with 0.169.0 and
/// 0.171.0), not before every tool call; the note after a failed command has no Codex
/// hook (its PostToolUse does not say whether a command failed).
pub const HOOKS: [Hook; 6] = [
    Hook::new("PreCompact", None, "save-memory", 90),
    Hook::new("PostCompact", None, "save-memory", 30),
    Hook::new("SessionStart", None, "save-memory", 30),
    Hook::new("UserPromptSubmit", None, "save-memory hand-over-note", 10),
    Hook::new("PostToolUse", None, "save-memory hand-over-note", 10),
    Hook::new(
        "PreToolUse",
        Some("apply_patch"),
        "save-memory action-note",
        10,
    ),
];

impl Hook {
    const fn new(
        event: &'static str,
        matcher: Option<&'static str>,
        args: &'static str,
        timeout: u64,
    ) -> Hook {
        Hook {
            event,
            matcher,
            args,
            timeout,
        }
    }

    /// Ours for `event`.
    pub fn of(event: &str) -> Option<&'static Hook> {
        HOOKS.iter().find(|h| h.event == event)
    }
}

/// The command line of a hook: the launcher's absolute path, quoted for the shell Codex
/// runs it with, and the arguments.
pub fn command(launcher: &Path, args: &str) -> String {
    let path = launcher.to_string_lossy();
    format!("'{}' {args}", path.replace('\'', "'\\''"))
}

/// The launcher a command of ours runs (unquoted), or `None` when the command is not one
/// this installer writes (whichever repository it points at).
pub fn launcher_of(command: &str) -> Option<String> {
    let rest = command.strip_prefix('\'')?;
    // The quoted path ends at the last `' ` before the arguments.
    let end = rest.rfind("' ")?;
    let (path, args) = (&rest[..end], &rest[end + 2..]);
    (path.ends_with("/plugin/run")
        && HOOKS.iter().any(|h| h.args == args)
        && !path.replace("'\\''", "").contains('\''))
    .then(|| path.replace("'\\''", "'"))
}

/// The text of one of our groups, run from `launcher`.
fn group(hook: &Hook, launcher: &Path) -> String {
    let matcher = hook
        .matcher
        .map(|m| {
            format!(
                "\"matcher\": {}, ",
                serde_json::Value::String(m.to_string())
            )
        })
        .unwrap_or_default();
    format!(
        "{{{matcher}\"hooks\": [{{\"type\": \"command\", \"command\": {}, \"timeout\": {}}}]}}",
        serde_json::Value::String(command(launcher, hook.args)),
        hook.timeout
    )
}

/// The launcher of a group (an element of an event's list) that holds only our
/// handlers, all of one copy; `None` for any other group.
fn group_launcher(g: &Node) -> Option<String> {
    let handlers = g.member("hooks").map(|h| h.value.elements()).unwrap_or(&[]);
    let mut launchers = handlers.iter().map(|h| {
        h.member("command")
            .and_then(|c| c.value.as_str())
            .and_then(launcher_of)
    });
    let first = launchers.next()??;
    launchers
        .all(|l| l.as_deref() == Some(first.as_str()))
        .then_some(first)
}

/// Whether a group is ours: of the copy at `launcher`, or of any copy when `None`.
fn is_our_group(g: &Node, launcher: Option<&str>) -> bool {
    group_launcher(g).is_some_and(|l| launcher.is_none_or(|want| l == want))
}

/// Each of our events, and the index of our group in its list.
pub type Places = Vec<(&'static str, usize)>;

/// What an install added to `hooks.json` besides our groups — the file, its `hooks`
/// member, an event's list —, which its uninstall takes away again; what the user had
/// (an empty list of their own, `"SessionStart": []`) stays. Kept in our block of
/// `config.toml` (`config_toml::RECORD`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Added {
    /// The copy the install was made from: its launcher.
    #[serde(default)]
    pub launcher: String,
    /// The file itself.
    #[serde(default)]
    pub file: bool,
    /// The `hooks` member.
    #[serde(default)]
    pub hooks: bool,
    /// The events whose lists the install made.
    #[serde(default)]
    pub events: Vec<String>,
}

impl Added {
    /// What an install added, and then another (run again, or over a copy that is gone).
    pub fn and(mut self, later: &Added) -> Added {
        self.launcher.clone_from(&later.launcher);
        self.file |= later.file;
        self.hooks |= later.hooks;
        for e in &later.events {
            if !self.events.contains(e) {
                self.events.push(e.clone());
            }
        }
        self
    }
}

/// `hooks.json` with our hooks in it.
#[derive(Debug, Default)]
pub struct WithOurs {
    /// The new text (`None` when it already has them exactly).
    pub text: Option<String>,
    /// The index of our group in each event's list (for the trust keys).
    pub places: Places,
    /// What this edit added besides our groups.
    pub added: Added,
    /// The launchers of copies that are gone, whose groups ours replaced.
    pub replaced: Vec<String>,
}

/// `hooks.json` (`text`, `None` when there is none) with the hooks of the copy at
/// `launcher` in it. Another copy's groups are replaced where they are when its launcher
/// is gone (`works` says it is not), so that no group after them moves; while it works,
/// nothing is changed and the error says how to remove it first: two copies would each
/// save every compaction.
pub fn with_ours(
    text: Option<&str>,
    launcher: &Path,
    works: &dyn Fn(&str) -> bool,
) -> Result<WithOurs, String> {
    let this = launcher.to_string_lossy().into_owned();
    let original = text.filter(|t| !t.trim().is_empty());
    let mut out = WithOurs {
        added: Added {
            launcher: this.clone(),
            ..Added::default()
        },
        ..WithOurs::default()
    };
    let mut text = match original {
        Some(t) => {
            check(t)?;
            t.to_string()
        }
        None => {
            out.added.file = true;
            out.added.hooks = true;
            out.added.events = HOOKS.iter().map(|h| h.event.to_string()).collect();
            skeleton(launcher)
        }
    };
    let others = other_copies(&text, &this);
    let (working, gone): (Vec<_>, Vec<_>) = others.into_iter().partition(|(l, _)| works(l));
    if let Some((other, events)) = working.first() {
        return Err(another_copy_works(other, events));
    }
    out.replaced = gone.into_iter().map(|(l, _)| l).collect();
    for hook in &HOOKS {
        let (event, wanted) = (hook.event, group(hook, launcher));
        let root = spans::parse(&text).ok_or("hooks.json could not be read")?;
        let Some(hooks) = root.member("hooks") else {
            let member = format!("\"hooks\": {{\"{event}\": [{wanted}]}}");
            text = insert(&text, &root, &member);
            out.added.hooks = true;
            out.added.events.push(event.to_string());
            continue;
        };
        if !matches!(hooks.value.kind, Kind::Object(_)) {
            return Err("hooks.json's \"hooks\" is not an object; nothing was changed".into());
        }
        let Some(list) = hooks.value.member(event) else {
            text = insert(&text, &hooks.value, &format!("\"{event}\": [{wanted}]"));
            out.added.events.push(event.to_string());
            continue;
        };
        if !matches!(list.value.kind, Kind::Array(_)) {
            return Err(format!(
                "hooks.json's \"{event}\" is not a list; nothing was changed"
            ));
        }
        let groups = list.value.elements();
        // Ours; else the group of a copy that is gone (no working one is left here).
        let found = groups
            .iter()
            .find(|g| is_our_group(g, Some(&this)))
            .or_else(|| groups.iter().find(|g| is_our_group(g, None)));
        match found {
            Some(g) if same(&text[g.span.clone()], &wanted) => {}
            // An earlier install (another timeout, a copy that is gone): replaced where
            // it is, so no group after it moves.
            Some(g) => text.replace_range(g.span.clone(), &wanted),
            None => text = insert(&text, &list.value, &wanted),
        }
    }
    out.places = ours(&text, Some(&this));
    out.text = original.is_none_or(|o| o != text).then_some(text);
    Ok(out)
}

/// Why an install stops beside another working copy, and how to remove that one.
fn another_copy_works(other: &str, events: &[String]) -> String {
    let root = other.strip_suffix("/plugin/run").unwrap_or(other);
    format!(
        "hooks.json runs memory-stalker from another copy, {} ({}), which is still there: \
         nothing was changed (two copies would each save every compaction). To use this \
         copy instead, remove that one's hooks first: {}/install.sh --uninstall, or \
         save-memory codex uninstall --launcher {}",
        command(Path::new(other), "save-memory"),
        events.join(", "),
        command(Path::new(root), "").trim_end(),
        command(Path::new(other), "").trim_end(),
    )
}

/// The groups of copies of memory-stalker other than the one at `launcher`: each
/// copy's launcher (in their order) and the events it has a group in.
pub fn other_copies(text: &str, launcher: &str) -> Vec<(String, Vec<String>)> {
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let Some(hooks) = spans::parse(text).and_then(|r| r.member("hooks").cloned()) else {
        return Vec::new();
    };
    for event in hooks.value.members() {
        for g in event.value.elements() {
            if let Some(l) = group_launcher(g).filter(|l| l != launcher) {
                let events = found.entry(l).or_default();
                if !events.contains(&event.key) {
                    events.push(event.key.clone());
                }
            }
        }
    }
    found.into_iter().collect()
}

/// `hooks.json` without our hooks.
#[derive(Debug, Default)]
pub struct WithoutOurs {
    /// The new text; `None` for a file that held nothing else, to be deleted.
    pub text: Option<String>,
    /// What was done, for the report.
    pub done: Vec<String>,
}

/// `text` without the groups of the copy at `launcher` (every copy's when `None`), and
/// without what its install added (`added`; `None` for an install that did not record
/// it: then an event's list and the file are removed when nothing else is left in them).
pub fn without_ours(
    text: &str,
    launcher: Option<&str>,
    added: Option<&Added>,
) -> Result<WithoutOurs, String> {
    check(text)?;
    let mut text = text.to_string();
    let mut done = Vec::new();
    let made = |event: &str| added.is_none_or(|a| a.events.iter().any(|e| e == event));
    // One change at a time, the text read again after each.
    loop {
        let root = spans::parse(&text).ok_or("hooks.json could not be read")?;
        let Some(hooks) = root.member("hooks") else {
            break;
        };
        let mut changed = false;
        for (mi, event) in hooks.value.members().iter().enumerate() {
            let groups = event.value.elements();
            let Some(i) = groups.iter().position(|g| is_our_group(g, launcher)) else {
                continue;
            };
            if groups[i + 1..].iter().any(|g| !is_our_group(g, launcher)) {
                // Groups after ours keep their places, and with them the trust Codex
                // gave them (its key counts groups): ours becomes an empty group.
                text.replace_range(groups[i].span.clone(), "{\"hooks\": []}");
                done.push(format!(
                    "emptied {} (the hooks after it keep their place, and Codex's trust)",
                    event.key
                ));
            } else if groups.iter().all(|g| is_our_group(g, launcher)) && made(&event.key) {
                text = remove(&text, &hooks.value, mi);
                done.push(format!("removed {}", event.key));
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
    let left = without_empty_hooks(&text, added);
    Ok(WithoutOurs { text: left, done })
}

/// `text` once our groups are out: the `hooks` member removed when the install added it
/// and it is empty now, and `None` (the file to be deleted) when the install made the
/// file and nothing is left in it. Without a record of the install, a file holding
/// nothing but an empty `hooks` is deleted.
fn without_empty_hooks(text: &str, added: Option<&Added>) -> Option<String> {
    let Some(root) = spans::parse(text) else {
        return Some(text.to_string());
    };
    let empty_hooks = |root: &Node| {
        root.member("hooks")
            .is_some_and(|h| matches!(&h.value.kind, Kind::Object(m) if m.is_empty()))
    };
    let Some(added) = added else {
        let nothing =
            root.members().is_empty() || (root.members().len() == 1 && empty_hooks(&root));
        return (!nothing).then(|| text.to_string());
    };
    let mut text = text.to_string();
    if let Some(i) = root.members().iter().position(|m| m.key == "hooks")
        && added.hooks
        && empty_hooks(&root)
    {
        text = remove(&text, &root, i);
    }
    let nothing = spans::parse(&text).is_some_and(|r| r.members().is_empty());
    (!(added.file && nothing)).then_some(text)
}

/// Where our groups are — those of the copy at `launcher`, or of any copy when `None` —:
/// each event's index of the first group that is ours.
pub fn ours(text: &str, launcher: Option<&str>) -> Places {
    let Some(root) = spans::parse(text) else {
        return Vec::new();
    };
    let Some(hooks) = root.member("hooks") else {
        return Vec::new();
    };
    HOOKS
        .iter()
        .filter_map(|Hook { event, .. }| {
            let list = hooks.value.member(event)?;
            let i = list
                .value
                .elements()
                .iter()
                .position(|g| is_our_group(g, launcher))?;
            Some((*event, i))
        })
        .collect()
}

/// The file this installer writes when there is none.
fn skeleton(launcher: &Path) -> String {
    let mut out = String::from("{\n  \"hooks\": {\n");
    for (i, hook) in HOOKS.iter().enumerate() {
        out.push_str(&format!(
            "    \"{}\": [{}]{}\n",
            hook.event,
            group(hook, launcher),
            if i + 1 < HOOKS.len() { "," } else { "" }
        ));
    }
    out.push_str("  }\n}\n");
    out
}

/// `text` must be a JSON object, and one Codex reads, to be edited. Codex parses the
/// file into typed structures (`codex-rs/config`'s `HooksFile`), which refuse a key
/// given twice in one object ("duplicate field `hooks`"): it then runs none of the
/// file's hooks, so no copy of a duplicated key is the one it reads (seen with Codex
/// 0.169.0 and 0.171.0, app-server `hooks/list`).
fn check(text: &str) -> Result<(), String> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(_)) => {}
        Ok(_) => return Err("hooks.json is not a JSON object; nothing was changed".into()),
        Err(e) => {
            return Err(format!(
                "hooks.json is not valid JSON ({e}); nothing was changed"
            ));
        }
    }
    let root = spans::parse(text).ok_or("hooks.json could not be read; nothing was changed")?;
    match duplicate_key(&root, "") {
        Some(at) => Err(format!(
            "hooks.json has the key {at} twice: Codex reads none of the hooks of such a file \
             (it warns \"duplicate field\" and skips it), so there is no copy of it to edit; \
             nothing was changed. Keep one of the two, then run this again"
        )),
        None => Ok(()),
    }
}

/// The first key given twice in one object, anywhere in `node`, as a path
/// (`"hooks"`, `"hooks" › "PreCompact"`).
fn duplicate_key(node: &Node, at: &str) -> Option<String> {
    let path = |key: &str| {
        let quoted = serde_json::Value::String(key.to_string()).to_string();
        if at.is_empty() {
            quoted
        } else {
            format!("{at} › {quoted}")
        }
    };
    match &node.kind {
        Kind::Object(members) => {
            for (i, m) in members.iter().enumerate() {
                if members[..i].iter().any(|o| o.key == m.key) {
                    return Some(path(&m.key));
                }
            }
            members
                .iter()
                .find_map(|m| duplicate_key(&m.value, &path(&m.key)))
        }
        Kind::Array(elements) => elements.iter().find_map(|e| duplicate_key(e, at)),
        _ => None,
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
/// with it: the inverse of [`insert`], so that what was there before (an empty `[ ]`
/// with its spaces) comes back byte for byte.
fn remove(text: &str, container: &Node, i: usize) -> String {
    let spans: Vec<std::ops::Range<usize>> = match &container.kind {
        Kind::Object(m) => m.iter().map(|m| m.span.clone()).collect(),
        Kind::Array(e) => e.iter().map(|e| e.span.clone()).collect(),
        _ => return text.to_string(),
    };
    let cut = if spans.len() == 1 {
        // The only one: what was between the brackets before it came stays.
        spans[0].clone()
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

    fn is_ours(command: &str) -> bool {
        launcher_of(command).is_some()
    }

    /// No launcher is there: every other copy is one that is gone.
    fn gone(_: &str) -> bool {
        false
    }

    fn with(text: Option<&str>, launcher: &Path) -> Result<(Option<String>, Places), String> {
        with_ours(text, launcher, &gone).map(|w| (w.text, w.places))
    }

    fn without(text: &str) -> (Option<String>, Vec<String>) {
        let w = without_ours(text, None, None).unwrap();
        (w.text, w.done)
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
        assert!(is_ours(&command(launcher(), "save-memory action-note")));
        assert!(!is_ours(&command(launcher(), "save-memory action-note x")));
        assert!(!is_ours("/home/u/log-hook.sh PreCompact"));
        assert!(!is_ours("'/x/plugin/run' save-memory; rm -rf /"));
        assert!(!is_ours("'/x/other/run' save-memory"));
    }

    #[test]
    fn a_new_file_holds_our_hooks_and_removing_them_deletes_it() {
        let (text, places) = with(None, launcher()).unwrap();
        let text = text.unwrap();
        insta::assert_snapshot!(text, @r#"
        {
          "hooks": {
            "PreCompact": [{"hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory", "timeout": 90}]}],
            "PostCompact": [{"hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory", "timeout": 30}]}],
            "SessionStart": [{"hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory", "timeout": 30}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory hand-over-note", "timeout": 10}]}],
            "PostToolUse": [{"hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory hand-over-note", "timeout": 10}]}],
            "PreToolUse": [{"matcher": "apply_patch", "hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory action-note", "timeout": 10}]}]
          }
        }
        "#);
        assert!(places.iter().all(|(_, i)| *i == 0));
        assert_eq!(with(Some(&text), launcher()).unwrap().0, None, "idempotent");
        assert_eq!(without(&text).0, None);
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
            with(Some(USERS), launcher()).is_err(),
            "invalid JSON is left alone"
        );
        let (text, places) = with(Some(USER_HOOKS), launcher()).unwrap();
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
                "PostToolUse": [{"hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory hand-over-note", "timeout": 10}]}],
                "PreToolUse": [{"matcher": "apply_patch", "hooks": [{"type": "command", "command": "'/opt/memory stalker/plugin/run' save-memory action-note", "timeout": 10}]}]
            },
            "x-my-note": "kept"
        }
        "#);
        assert_eq!(places[0], ("PreCompact", 1));
        let (back, done) = without(&text);
        assert_eq!(back.as_deref(), Some(USER_HOOKS));
        assert_eq!(done.len(), 6);
        // Installed again from another place: replaced where it was.
        let (moved, _) = with(Some(&text), Path::new("/new/plugin/run")).unwrap();
        let moved = moved.unwrap();
        assert_eq!(ours(&moved, None), ours(&text, None));
        assert!(
            !moved.contains("/opt/memory stalker")
                && moved.contains("'/new/plugin/run' save-memory")
        );
    }

    #[test]
    fn groups_after_ours_keep_their_place() {
        let (text, _) = with(Some(USER_HOOKS), launcher()).unwrap();
        let text = text.unwrap();
        // The user adds a group after ours, and Codex trusts it at index 2.
        let text = text.replace(
            "\"timeout\": 90}]}\n",
            "\"timeout\": 90}]},\n            {\"hooks\": [{\"type\": \"command\", \"command\": \"/home/u/late.sh\"}]}\n",
        );
        let (back, done) = without(&text);
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
        assert!(ours(&back, None).is_empty());
    }

    #[test]
    fn odd_shapes_are_refused_not_rewritten() {
        assert!(with(Some("[]"), launcher()).is_err());
        assert!(with(Some(r#"{"hooks": []}"#), launcher()).is_err());
        assert!(with(Some(r#"{"hooks": {"PreCompact": {}}}"#), launcher()).is_err());
        // An empty object gets a `hooks` member.
        let (text, _) = with(Some("{}"), launcher()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text.unwrap()).unwrap();
        assert_eq!(v["hooks"].as_object().unwrap().len(), 6);
    }

    /// Installs from `launcher` into `text` and uninstalls again as `install.rs` does:
    /// with the install's record.
    fn round_trip(text: &str, launcher: &Path) -> (String, Option<String>) {
        let w = with_ours(Some(text), launcher, &gone).unwrap();
        let installed = w.text.unwrap_or_else(|| text.to_string());
        let this = launcher.to_string_lossy();
        let back = without_ours(&installed, Some(&this), Some(&w.added)).unwrap();
        (installed, back.text)
    }

    #[test]
    fn the_users_empty_lists_and_objects_come_back_byte_for_byte() {
        for users in [
            "{\"hooks\": {\"SessionStart\": [], \"Stop\": [ ]}}\n",
            "{\n  \"hooks\": {\n    \"PreCompact\": [\n    ],\n    \"SessionStart\": []\n  }\n}",
            "{\"hooks\": {}}",
            "{\"hooks\": { }}\n",
            "{}",
            "{ }\n",
            // The user's own PreToolUse group, with a matcher: ours comes after it.
            "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"/u/guard.sh\"}]}]}}\n",
        ] {
            let (installed, back) = round_trip(users, launcher());
            assert_eq!(ours(&installed, Some(LAUNCHER)).len(), 6, "{installed}");
            assert_eq!(back.as_deref(), Some(users), "installed as:\n{installed}");
        }
        // A file the install made goes with it.
        let w = with_ours(None, launcher(), &gone).unwrap();
        let back = without_ours(&w.text.unwrap(), Some(LAUNCHER), Some(&w.added)).unwrap();
        assert_eq!(back.text, None);
        // Without a record (an install before it was kept), as before: a list that
        // holds nothing but ours goes, and a file that holds nothing else.
        let (installed, _) = round_trip("{\"hooks\": {\"SessionStart\": []}}", launcher());
        assert_eq!(without(&installed).0, None);
    }

    #[test]
    fn a_duplicated_key_is_refused_because_codex_reads_neither() {
        // What Codex parses hooks.json into (codex-rs/config's HooksFile): a derived
        // struct, which refuses a key given twice.
        #[derive(serde::Deserialize)]
        struct CodexHooksFile {
            #[serde(default)]
            #[allow(dead_code, reason = "only its parse matters")]
            hooks: serde_json::Value,
        }
        let twice = "{\"hooks\": {\"Stop\": []},\n \"hooks\": {\"PreCompact\": []}}";
        let e = serde_json::from_str::<CodexHooksFile>(twice).err().unwrap();
        assert!(e.to_string().contains("duplicate field `hooks`"), "{e}");
        let e = with(Some(twice), launcher()).unwrap_err();
        assert!(
            e.starts_with("hooks.json has the key \"hooks\" twice"),
            "{e}"
        );
        let deeper = "{\"hooks\": {\"PreCompact\": [], \"PreCompact\": []}}";
        let e = with(Some(deeper), launcher()).unwrap_err();
        assert!(
            e.contains("the key \"hooks\" › \"PreCompact\" twice"),
            "{e}"
        );
        let in_a_group = "{\"hooks\": {\"Stop\": [{\"hooks\": [], \"hooks\": []}]}}";
        assert!(with(Some(in_a_group), launcher()).is_err());
        assert!(without_ours(twice, None, None).is_err());
        // The same key in two objects is no duplicate.
        assert!(
            with(
                Some("{\"hooks\": {\"Stop\": [{\"hooks\": []}, {\"hooks\": []}]}}"),
                launcher()
            )
            .is_ok()
        );
    }

    #[test]
    fn another_working_copy_is_never_replaced_nor_removed() {
        let a = Path::new("/a/plugin/run");
        let (installed, _) = with(Some("{}"), a).unwrap();
        let installed = installed.unwrap();
        // From another copy while the first one works: nothing changes.
        let works = |l: &str| l == "/a/plugin/run";
        let e = with_ours(Some(&installed), Path::new("/b/plugin/run"), &works).unwrap_err();
        assert!(
            e.starts_with("hooks.json runs memory-stalker from another copy, '/a/plugin/run' save-memory (PreCompact, PostCompact, SessionStart, UserPromptSubmit, PostToolUse, PreToolUse), which is still there"),
            "{e}"
        );
        assert!(e.contains("'/a'/install.sh --uninstall"), "{e}");
        // Uninstalling the other copy leaves the first one's hooks, and names them.
        assert!(ours(&installed, Some("/b/plugin/run")).is_empty());
        assert_eq!(
            other_copies(&installed, "/b/plugin/run"),
            vec![(
                "/a/plugin/run".to_string(),
                HOOKS.iter().map(|h| h.event.to_string()).collect()
            )]
        );
        let back = without_ours(&installed, Some("/b/plugin/run"), None).unwrap();
        assert_eq!(back.text.as_deref(), Some(installed.as_str()));
        assert!(back.done.is_empty());
        // Once that copy is gone, an install takes its groups' places.
        let w = with_ours(Some(&installed), Path::new("/b/plugin/run"), &gone).unwrap();
        assert_eq!(w.replaced, vec!["/a/plugin/run".to_string()]);
        assert_eq!(ours(&w.text.unwrap(), Some("/b/plugin/run")).len(), 6);
    }

    #[test]
    fn an_install_made_before_the_action_note_gains_it_and_loses_it_again() {
        // What an install wrote before the note before an edit was registered: the
        // five groups without a matcher.
        let users = "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": []}]}}";
        let old_groups: Vec<String> = HOOKS
            .iter()
            .filter(|h| h.matcher.is_none())
            .map(|h| format!("\"{}\": [{}]", h.event, group(h, launcher())))
            .collect();
        let before = format!(
            "{{\"hooks\": {{\"PreToolUse\": [{{\"matcher\": \"Bash\", \"hooks\": []}}], {}}}}}",
            old_groups.join(", ")
        );
        assert_eq!(ours(&before, Some(LAUNCHER)).len(), 5);
        let w = with_ours(Some(&before), launcher(), &gone).unwrap();
        let after = w.text.unwrap();
        assert_eq!(w.places.len(), 6);
        assert!(w.places.contains(&("PreToolUse", 1)), "{:?}", w.places);
        assert!(w.added.events.is_empty(), "the list was the user's");
        let v: serde_json::Value = serde_json::from_str(&after).unwrap();
        assert_eq!(v["hooks"]["PreToolUse"][1]["matcher"], "apply_patch");
        // The record of the first install (it made none of the lists the user had).
        let first = Added {
            launcher: LAUNCHER.into(),
            events: HOOKS
                .iter()
                .filter(|h| h.event != "PreToolUse")
                .map(|h| h.event.to_string())
                .collect(),
            ..Added::default()
        };
        let back = without_ours(&after, Some(LAUNCHER), Some(&first.and(&w.added))).unwrap();
        assert_eq!(back.text.as_deref(), Some(users));
    }
}
