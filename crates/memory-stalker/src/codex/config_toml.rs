//! memory-stalker's entries in Codex's `config.toml`: the MCP server, and the trust of
//! our hooks, in one block of our own at the end of the file between two marker
//! comments, so that the rest of the file is never rewritten and the block can be found
//! and removed whole (docs/design.md §2.12).
//!
//! Before anything is written the file is parsed, without the block and with it: an
//! entry the user (or Codex, when they trusted our hooks themselves) already has is not
//! written twice, and a file that would no longer parse is not written at all.

use std::fmt::Write as _;
use std::path::Path;

use toml_edit::{DocumentMut, Item};

use super::hooks_json::Added;

/// The first line of our block.
pub const BEGIN: &str = "# >>> memory-stalker >>> (written by memory-stalker's install.sh; `./install.sh --uninstall` removes this block)";
/// The last line of our block.
pub const END: &str = "# <<< memory-stalker <<<";

/// The name of our MCP server in `[mcp_servers]`.
pub const MCP_NAME: &str = "memory-stalker";

/// The start of the comment line in our block that records what the install added to
/// `hooks.json` besides our groups ([`Added`], as JSON), for its uninstall to take away
/// again and nothing more.
pub const RECORD: &str = "# what this install added to hooks.json, for its uninstall: ";

/// `text` without our block (and the blank line written before it); whether it had one.
///
/// Codex edits this file too (it records notices, model choices, trust it was given) and
/// appends new tables at the end, which can be inside our block: only the tables that
/// are ours — the MCP server, and the trust of the hooks whose keys `ours` accepts —
/// go with the block; any other text between the markers stays.
pub fn without_block(text: &str, ours: &dyn Fn(&str) -> bool) -> (String, bool) {
    let Some((begin, end_at)) = find_block(text) else {
        return (text.to_string(), false);
    };
    let mut end = end_at + END.len();
    if text[end..].starts_with("\r\n") {
        end += 2;
    } else if text[end..].starts_with('\n') {
        end += 1;
    }
    let mut start = begin;
    // The blank line this installer puts before the block; or, after a file whose last
    // line had no line end, the one line end it added (the file gets back as it was).
    if text[..start].ends_with("\n\n") || (text[..start].ends_with('\n') && start > 0) {
        start -= 1;
    }
    let inside = &text[begin + BEGIN.len()..end_at];
    let mut kept = String::new();
    let mut keep = true;
    for line in inside.split_inclusive('\n') {
        let t = line.trim();
        if t.starts_with('[') {
            keep = !is_our_table(t, ours);
        }
        if keep && !(kept.is_empty() && t.is_empty()) && !t.starts_with(RECORD.trim_end()) {
            kept.push_str(line);
        }
    }
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..start]);
    if !kept.trim().is_empty() {
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push('\n');
        }
        out.push_str(kept.trim_end());
        out.push('\n');
    }
    out.push_str(&text[end..]);
    (out, true)
}

/// Where our block is: the byte offsets of its first marker and of its last marker. A
/// marker counts only at the start of a line, and only where the text before it is
/// whole TOML (when the file is): marker lines inside a user's multi-line string are
/// the user's text, not our block. The last such block is ours (we append at the end).
fn find_block(text: &str) -> Option<(usize, usize)> {
    let at_line_start = |i: usize| i == 0 || text[..i].ends_with('\n');
    let file_parses = text.parse::<DocumentMut>().is_ok();
    let mut candidates: Vec<usize> = text
        .match_indices(BEGIN)
        .map(|(i, _)| i)
        .filter(|&i| at_line_start(i))
        .collect();
    candidates.reverse();
    candidates.into_iter().find_map(|begin| {
        let after = begin + BEGIN.len();
        let end = text[after..]
            .match_indices(END)
            .map(|(i, _)| after + i)
            .find(|&i| at_line_start(i))?;
        let top_level = !file_parses || text[..begin].parse::<DocumentMut>().is_ok();
        top_level.then_some((begin, end))
    })
}

/// What the install that wrote our block recorded it added to `hooks.json`; `None`
/// when there is no block, or its install recorded nothing (one made before the record
/// was kept).
pub fn record(text: &str) -> Option<Added> {
    let (begin, end) = find_block(text)?;
    text[begin..end]
        .lines()
        .find_map(|l| l.trim().strip_prefix(RECORD.trim_end()))
        .and_then(|json| serde_json::from_str(json.trim()).ok())
}

/// The launcher of the copy whose install wrote our block: as its record says, else the
/// command of the MCP server in it.
pub fn block_launcher(text: &str) -> Option<String> {
    if let Some(l) = record(text).map(|r| r.launcher).filter(|l| !l.is_empty()) {
        return Some(l);
    }
    let (begin, end) = find_block(text)?;
    let doc: DocumentMut = text[begin + BEGIN.len()..end].parse().ok()?;
    doc.get("mcp_servers")?
        .get(MCP_NAME)?
        .get("command")?
        .as_str()
        .map(str::to_string)
}

/// Whether a table header line names one of our tables.
fn is_our_table(header: &str, ours: &dyn Fn(&str) -> bool) -> bool {
    let inner = header
        .trim_start_matches('[')
        .split(']')
        .next()
        .unwrap_or("")
        .trim();
    let server = format!("mcp_servers.{MCP_NAME}");
    if inner == server || inner.starts_with(&format!("{server}.")) {
        return true;
    }
    let Some(key) = inner.strip_prefix("hooks.state.").map(str::trim) else {
        return false;
    };
    let key = if let Some(lit) = key.strip_prefix('\'') {
        lit.strip_suffix('\'').map(str::to_string)
    } else {
        serde_json::from_str::<String>(key).ok()
    };
    key.is_some_and(|k| ours(&k))
}

/// What the block holds, and what was left out because the file has it already.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// The new text of the file (`None`: unchanged).
    pub text: Option<String>,
    /// Whether the MCP server is in our block.
    pub mcp: bool,
    /// Trust entries written in our block.
    pub trusted: usize,
    /// Trust entries the file already had, with the same hash.
    pub already_trusted: usize,
    /// What was left alone, and why.
    pub notes: Vec<String>,
}

/// `text` (the file's content, empty when there is none) with our block for the MCP
/// server run by `launcher` and the trust entries `(key, hash)`, and the `record` of
/// what the install added to `hooks.json`; a block already there is replaced, the trust
/// entries of `earlier` keys (where our hooks were before) with it.
pub fn with_block(
    text: &str,
    launcher: &Path,
    trust: &[(String, String)],
    earlier: &[String],
    record: Option<&Added>,
) -> Result<Block, String> {
    let ours = |k: &str| trust.iter().any(|(t, _)| t == k) || earlier.iter().any(|e| e == k);
    let (base, _) = without_block(text, &ours);
    let doc: DocumentMut = base.parse().map_err(|e: toml_edit::TomlError| {
        format!(
            "config.toml is not valid TOML ({}); nothing was changed",
            one_line(&e.to_string())
        )
    })?;
    let mut block = Block::default();
    let mut body = String::new();
    if let Some(r) = record {
        let json = serde_json::to_string(r).map_err(|e| e.to_string())?;
        let _ = writeln!(body, "{RECORD}{json}");
    }
    if doc
        .get("mcp_servers")
        .and_then(|m| m.get(MCP_NAME))
        .is_some()
    {
        block.notes.push(format!(
            "config.toml already has an MCP server named {MCP_NAME} of its own: left as it is"
        ));
    } else {
        block.mcp = true;
        let _ = writeln!(
            body,
            "[mcp_servers.{MCP_NAME}]\ncommand = {}\nargs = [\"memory-stalker-mcp\"]\n",
            toml_string(&launcher.to_string_lossy())
        );
    }
    let state = doc.get("hooks").and_then(|h| h.get("state"));
    for (key, hash) in trust {
        match state.and_then(|s| s.get(key)) {
            None => {
                block.trusted += 1;
                let _ = writeln!(
                    body,
                    "[hooks.state.{}]\ntrusted_hash = {}\n",
                    toml_string(key),
                    toml_string(hash)
                );
            }
            Some(entry) if trusted_hash(entry) == Some(hash.as_str()) => block.already_trusted += 1,
            Some(_) => block.notes.push(format!(
                "config.toml has Codex's own entry for {key}, which does not trust this hook as it is now: left as it is (review the hook in Codex)"
            )),
        }
    }
    let new = if body.is_empty() || !(block.mcp || block.trusted > 0) {
        base.clone()
    } else {
        let mut new = base.clone();
        // A blank line before the block; after a last line without a line end, only
        // that line end (taken away again with the block, see `without_block`).
        if !new.is_empty() {
            new.push('\n');
        }
        let _ = write!(new, "{BEGIN}\n{}{END}\n", body);
        new
    };
    new.parse::<DocumentMut>().map_err(|e| {
        format!(
            "adding memory-stalker's entries would make config.toml invalid ({}); nothing was changed",
            one_line(&e.to_string())
        )
    })?;
    block.text = (new != text).then_some(new);
    Ok(block)
}

fn trusted_hash(entry: &Item) -> Option<&str> {
    entry.get("trusted_hash")?.as_str()
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn one_line(s: &str) -> String {
    crate::text::one_line(s, 300)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trust() -> Vec<(String, String)> {
        vec![(
            "/h/.codex/hooks.json:pre_compact:0:0".to_string(),
            "sha256:abc".to_string(),
        )]
    }

    #[test]
    fn the_block_is_appended_and_removed_whole() {
        let users = "model = \"gpt-5.5\"\n\n[tui]\nnotifications = true # mine\n";
        let b = with_block(users, Path::new("/opt/ms/plugin/run"), &trust(), &[], None).unwrap();
        let text = b.text.unwrap();
        insta::assert_snapshot!(text, @r#"
        model = "gpt-5.5"

        [tui]
        notifications = true # mine

        # >>> memory-stalker >>> (written by memory-stalker's install.sh; `./install.sh --uninstall` removes this block)
        [mcp_servers.memory-stalker]
        command = "/opt/ms/plugin/run"
        args = ["memory-stalker-mcp"]

        [hooks.state."/h/.codex/hooks.json:pre_compact:0:0"]
        trusted_hash = "sha256:abc"

        # <<< memory-stalker <<<
        "#);
        assert_eq!((b.mcp, b.trusted), (true, 1));
        let ours = |k: &str| k == trust()[0].0;
        assert_eq!(without_block(&text, &ours), (users.to_string(), true));
        // Again: nothing changes.
        let again =
            with_block(&text, Path::new("/opt/ms/plugin/run"), &trust(), &[], None).unwrap();
        assert_eq!(again.text, None);
        // A file without a last line end gets the block on the next line, and is the
        // same file again, byte for byte, without it.
        let b = with_block(
            "model = \"x\"",
            Path::new("/p/plugin/run"),
            &trust(),
            &[],
            None,
        )
        .unwrap();
        let with = b.text.unwrap();
        assert!(
            with.starts_with("model = \"x\"\n# >>> memory-stalker"),
            "{with}"
        );
        assert_eq!(without_block(&with, &ours).0, "model = \"x\"");
        let empty = with_block("", Path::new("/p"), &[], &[], None)
            .unwrap()
            .text
            .unwrap();
        assert_eq!(without_block(&empty, &ours).0, "");
    }

    #[test]
    fn markers_inside_a_users_string_are_the_users() {
        let users = format!("note = \"\"\"\n{BEGIN}\nkeep = 1\n{END}\n\"\"\"\nmodel = \"x\"\n");
        let ours = |k: &str| k == trust()[0].0;
        assert_eq!(without_block(&users, &ours), (users.clone(), false));
        let b = with_block(&users, Path::new("/p/plugin/run"), &trust(), &[], None).unwrap();
        let with = b.text.unwrap();
        assert_eq!(without_block(&with, &ours), (users, true));
    }

    #[test]
    fn tables_codex_appends_inside_the_block_stay() {
        // Codex appends new tables at the end of the file: before our last marker.
        let users = "model = \"gpt-5.5\"\n";
        let mut text = with_block(users, Path::new("/p/plugin/run"), &trust(), &[], None)
            .unwrap()
            .text
            .unwrap();
        text = text.replace(
            END,
            "[notice.model_migrations]\n\"gpt-5.5\" = \"gpt-6-sol\"\n\n[hooks.state.\"/h/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:users\"\n\n# <<< memory-stalker <<<",
        );
        let ours = |k: &str| k == trust()[0].0;
        let (back, had) = without_block(&text, &ours);
        assert!(had);
        assert_eq!(
            back,
            "model = \"gpt-5.5\"\n\n[notice.model_migrations]\n\"gpt-5.5\" = \"gpt-6-sol\"\n\n[hooks.state.\"/h/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:users\"\n"
        );
        // Installing again keeps them too, outside the new block.
        let again = with_block(&text, Path::new("/p/plugin/run"), &trust(), &[], None).unwrap();
        let again = again.text.unwrap();
        assert!(again.contains("[notice.model_migrations]") && again.contains("sha256:users"));
        assert_eq!(again.matches(BEGIN).count(), 1);
        assert!(again.find("[notice.model_migrations]").unwrap() < again.find(BEGIN).unwrap());
    }

    #[test]
    fn what_the_user_has_is_not_written_twice_and_a_broken_file_not_at_all() {
        let users = "[mcp_servers.memory-stalker]\ncommand = \"mine\"\n\n[hooks.state.\"/h/.codex/hooks.json:pre_compact:0:0\"]\ntrusted_hash = \"sha256:abc\"\n";
        let b = with_block(users, Path::new("/p"), &trust(), &[], None).unwrap();
        assert_eq!(b.text, None);
        assert_eq!((b.mcp, b.trusted, b.already_trusted), (false, 0, 1));
        assert_eq!(b.notes.len(), 1);
        let other = users.replace("sha256:abc", "sha256:old");
        let b = with_block(&other, Path::new("/p"), &trust(), &[], None).unwrap();
        assert!(
            b.notes[1].contains("does not trust this hook as it is now"),
            "{:?}",
            b.notes
        );
        assert!(with_block("model = ", Path::new("/p"), &trust(), &[], None).is_err());
        // `hooks` as an inline table cannot take our table: refused, not written.
        let inline = "hooks = { state = {} }\n";
        let e = with_block(inline, Path::new("/p"), &trust(), &[], None).unwrap_err();
        assert!(e.contains("would make config.toml invalid"), "{e}");
        assert_eq!(toml_string("a\"b\\c\u{1}"), "\"a\\\"b\\\\c\\u0001\"");
    }
}
