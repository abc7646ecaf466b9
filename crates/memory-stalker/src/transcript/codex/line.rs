//! One rollout line, parsed into the record model the rest of the extraction reads
//! (docs/design.md §3.13): a user's request or a tool output as a `user` record, the
//! assistant's text or a tool call as an `assistant` record, `compacted` as a segment
//! boundary, an interrupted turn as Claude Code's interrupt marker. Everything else is
//! `Other`: counted, never kept.
//!
//! As for Claude Code's lines, a line is walked without decoding it ([`skim`]): only the
//! values named here are decoded.

use super::super::prompt::INTERRUPT_MARKER;
use super::super::record::{
    self, AssistantMsg, BadLine, Dated, Entry, Key, LineOptions, Meta, Record, SessionFields,
    ToolCall, UserMsg, kept_text,
};
use super::super::skim::{self, Cost, Cursor};
use super::tools::{self, CallInput, Item};

/// Line types read; a line of any other (`world_state`, `token_usage_record`, a type
/// of a newer Codex) is counted and dropped without its payload being walked.
fn is_read_kind(kind: &[u8]) -> bool {
    matches!(
        kind,
        br#""session_meta""#
            | br#""turn_context""#
            | br#""compacted""#
            | br#""response_item""#
            | br#""event_msg""#
    )
}

/// Texts Codex puts in `user` messages of its own, when a message carries no record of
/// where its text came from (older versions): not requests (docs/design.md §3.13).
const HARNESS_PREFIXES: [&str; 11] = [
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions for",
    "<INSTRUCTIONS>",
    "<skill>",
    "<subagent_notification>",
    "<user_shell_command>",
    "<image_resize_notice>",
    "<turn_aborted>",
    "<hook_prompt",
    SUMMARY_PREFIX,
];

/// How Codex starts the user message that carries its compaction summary.
pub(crate) const SUMMARY_PREFIX: &str = "Another language model started to solve this problem";

/// Parses one rollout line. A line that is not a JSON object is a bad line; one of an
/// unknown type or shape is `Other`.
pub(crate) fn parse(line: &[u8], opts: &LineOptions, cost: &mut Cost) -> Result<Record, BadLine> {
    let mut top = Top::default();
    let mut cur = Cursor::new(line);
    let walked = cur.object(|c, key| top.read(c, key));
    if record::line_read(line, top.stopped, walked, cur.at_end())? {
        return Ok(Record::default());
    }
    Ok(top.into_record(opts, cost))
}

/// The top-level values of a rollout line that extraction reads, undecoded.
#[derive(Default)]
struct Top<'a> {
    stopped: bool,
    timestamp: Option<&'a [u8]>,
    kind: Option<&'a [u8]>,
    payload: Payload<'a>,
    /// `metadata.compaction_output`: the assistant message is Codex's compaction
    /// summary as the model wrote it, not a reply.
    compaction_output: bool,
}

/// The payload's values read, whatever the line's type.
#[derive(Default)]
struct Payload<'a> {
    kind: Option<&'a [u8]>,
    role: Option<&'a [u8]>,
    id: Option<&'a [u8]>,
    session_id: Option<&'a [u8]>,
    content: Option<&'a [u8]>,
    name: Option<&'a [u8]>,
    /// The namespace of a namespaced tool (an MCP server's: `mcp__memory_stalker`).
    namespace: Option<&'a [u8]>,
    arguments: Option<&'a [u8]>,
    input: Option<&'a [u8]>,
    action: Option<&'a [u8]>,
    call_id: Option<&'a [u8]>,
    output: Option<&'a [u8]>,
    reason: Option<&'a [u8]>,
    cwd: Option<&'a [u8]>,
    cli_version: Option<&'a [u8]>,
    git: Option<&'a [u8]>,
    /// `internal_chat_message_metadata_passthrough`: where a message's text came from.
    origin: Option<&'a [u8]>,
}

impl<'a> Top<'a> {
    fn read(&mut self, c: &mut Cursor<'a>, key: &[u8]) -> Option<()> {
        match key {
            b"timestamp" => self.timestamp = Some(c.raw()?),
            b"type" => {
                let kind = c.raw()?;
                if !is_read_kind(kind) {
                    self.stopped = true;
                    return None;
                }
                self.kind = Some(kind);
            }
            b"payload" => {
                // An event other than an interrupt is bookkeeping: once its `type` (its
                // first key) is read, the rest is not walked. `item_completed` repeats
                // every command's whole output, two fifths of a long rollout's bytes.
                let event = self.kind == Some(br#""event_msg""#.as_slice());
                let p = &mut self.payload;
                let mut skipped = false;
                let walked = c.object(|c, key| {
                    p.read(c, key)?;
                    if event && key == b"type" && p.kind != Some(br#""turn_aborted""#.as_slice()) {
                        skipped = true;
                        return None;
                    }
                    Some(())
                });
                if skipped {
                    self.stopped = true;
                    return None;
                }
                walked?;
            }
            b"metadata" => {
                let mut flag = None;
                c.object(|c, key| {
                    if key == b"compaction_output" {
                        flag = Some(c.raw()?);
                    }
                    Some(())
                })?;
                self.compaction_output = skim::is_true(flag);
            }
            _ => {}
        }
        Some(())
    }

    fn into_record(self, opts: &LineOptions, cost: &mut Cost) -> Record {
        let p = self.payload;
        let s = |v: Option<&[u8]>, cost: &mut Cost| record::string(v, cost);
        let mut meta = Meta::default();
        let kind = record::str_of(self.kind, cost);
        let entry = match kind.as_deref() {
            Some("session_meta") => {
                if opts.session_fields {
                    meta.session = Some(Box::new(SessionFields {
                        session_id: s(p.id, cost).or_else(|| s(p.session_id, cost)),
                        cwd: s(p.cwd, cost),
                        version: s(p.cli_version, cost),
                        git_branch: p.git.and_then(|g| branch(g, cost)),
                    }));
                }
                Entry::Other
            }
            Some("turn_context") => {
                if opts.session_fields {
                    meta.session = Some(Box::new(SessionFields {
                        cwd: s(p.cwd, cost),
                        ..SessionFields::default()
                    }));
                }
                Entry::Other
            }
            Some("compacted") => Entry::CompactBoundary,
            Some("response_item") => response_item(&p, self.compaction_output, opts, cost),
            Some("event_msg") => match record::str_of(p.kind, cost).as_deref() {
                // Esc in the TUI (or an interrupt over the app server): the turn stopped.
                Some("turn_aborted")
                    if record::str_of(p.reason, cost).as_deref() == Some("interrupted") =>
                {
                    interrupted()
                }
                _ => Entry::Other,
            },
            _ => Entry::Other,
        };
        let mut record = Record { meta, entry };
        // As for Claude Code's records: the item's id and the line's time stamp only of
        // the records extraction dates, once a segment is read for a hook.
        let uuid = (kind.as_deref() == Some("response_item"))
            .then_some(p.id)
            .flatten();
        record.meta.uuid_key = record::str_of(uuid, cost).map_or(0, |u| Key::of(&u).bits());
        if !opts.dated_only || record.is_dated() {
            let dated = Dated {
                uuid: s(uuid, cost).map(String::into_boxed_str),
                timestamp: s(self.timestamp, cost).map(String::into_boxed_str),
            };
            if dated.uuid.is_some() || dated.timestamp.is_some() {
                record.meta.dated = Some(Box::new(dated));
            }
        }
        record
    }
}

impl<'a> Payload<'a> {
    fn read(&mut self, c: &mut Cursor<'a>, key: &[u8]) -> Option<()> {
        let slot = match key {
            b"type" => &mut self.kind,
            b"role" => &mut self.role,
            b"id" => &mut self.id,
            b"session_id" => &mut self.session_id,
            b"content" => &mut self.content,
            b"name" => &mut self.name,
            b"namespace" => &mut self.namespace,
            b"arguments" => &mut self.arguments,
            b"input" => &mut self.input,
            b"action" => &mut self.action,
            b"call_id" => &mut self.call_id,
            b"output" => &mut self.output,
            b"reason" => &mut self.reason,
            b"cwd" => &mut self.cwd,
            b"cli_version" => &mut self.cli_version,
            b"git" => &mut self.git,
            b"internal_chat_message_metadata_passthrough" => &mut self.origin,
            _ => return Some(()),
        };
        *slot = Some(c.raw()?);
        Some(())
    }
}

/// `git.branch` of a session's metadata.
fn branch(git: &[u8], cost: &mut Cost) -> Option<String> {
    let mut b = None;
    Cursor::new(git).object(|c, key| {
        if key == b"branch" {
            b = Some(c.raw()?);
        }
        Some(())
    });
    record::string(b, cost).filter(|b| !b.is_empty())
}

/// The record Claude Code writes when the user interrupts a turn, which extraction
/// reads the same way (docs/design.md §3.5).
fn interrupted() -> Entry {
    Entry::User(Box::new(UserMsg {
        text: format!("{INTERRUPT_MARKER}]"),
        ..UserMsg::default()
    }))
}

fn response_item(
    p: &Payload,
    compaction_output: bool,
    opts: &LineOptions,
    cost: &mut Cost,
) -> Entry {
    let s = |v: Option<&[u8]>, cost: &mut Cost| record::string(v, cost);
    match s(p.kind, cost).as_deref() {
        Some("message") => message(p, compaction_output, opts.redact, cost),
        Some(kind @ ("function_call" | "custom_tool_call" | "local_shell_call")) => {
            let name = match (kind, s(p.namespace, cost)) {
                ("local_shell_call", _) => "local_shell".to_string(),
                // As Codex names a namespaced tool: `mcp__memory_stalker__show_memory`.
                (_, Some(ns)) if !ns.is_empty() => {
                    format!("{ns}__{}", s(p.name, cost).unwrap_or_default())
                }
                _ => s(p.name, cost).unwrap_or_default(),
            };
            let input = match kind {
                "function_call" => p.arguments.map(CallInput::Arguments),
                "custom_tool_call" => p.input.map(CallInput::Free),
                _ => p.action.map(CallInput::LocalShell),
            };
            let (summary, detail) = match input {
                Some(input) => tools::describe(&name, input, opts.redact, cost),
                None => (String::new(), record::ToolDetail::None),
            };
            Entry::Assistant(Box::new(AssistantMsg {
                synthetic: false,
                texts: Vec::new(),
                tool_calls: vec![ToolCall {
                    id: Key::of(&record::str_of(p.call_id, cost).unwrap_or_default()),
                    name: name.into(),
                    summary: summary.into_boxed_str(),
                    detail,
                    // Codex's plan tool names no plan file.
                    title: None,
                }],
            }))
        }
        Some("function_call_output" | "custom_tool_call_output") => {
            let call_id = Key::of(&record::str_of(p.call_id, cost).unwrap_or_default());
            Entry::User(Box::new(UserMsg {
                has_tool_use_result: true,
                tool_results: vec![tools::result(call_id, p.output, opts.outputs, cost)],
                ..UserMsg::default()
            }))
        }
        _ => Entry::Other,
    }
}

/// A `message`: the user's request (or one of Codex's own user messages, which are
/// not kept), the assistant's text, or a developer or system message (not kept).
fn message(p: &Payload, compaction_output: bool, redact: bool, cost: &mut Cost) -> Entry {
    let role = record::string(p.role, cost);
    if !matches!(role.as_deref(), Some("user" | "assistant")) {
        return Entry::Other;
    }
    let mut texts: Vec<String> = Vec::new();
    let mut attachment = None;
    if let Some(content) = p.content {
        if content.starts_with(b"\"") {
            texts.extend(record::string(Some(content), cost));
        } else {
            for item in tools::content_items(content, cost) {
                match item {
                    Item::Text(t) => texts.push(t),
                    Item::Image => attachment = Some("image"),
                }
            }
        }
    }
    if role.as_deref() == Some("assistant") {
        return Entry::Assistant(Box::new(AssistantMsg {
            synthetic: compaction_output,
            texts: texts.into_iter().map(|t| kept_text(t, redact)).collect(),
            tool_calls: Vec::new(),
        }));
    }
    let text = texts.join("\n");
    if text.trim_start().starts_with("<turn_aborted>") {
        return interrupted();
    }
    if let Some(bash) = user_shell_command(&text) {
        return Entry::User(Box::new(UserMsg {
            text: kept_text(bash, redact),
            ..UserMsg::default()
        }));
    }
    if let Some(feedback) = hook_prompt(&text) {
        // Not the user's words: meta, as Claude Code marks its hooks' feedback.
        return Entry::User(Box::new(UserMsg {
            is_meta: true,
            text: kept_text(feedback, redact),
            ..UserMsg::default()
        }));
    }
    if !is_request(p.origin, &text, cost) {
        return Entry::Other;
    }
    Entry::User(Box::new(UserMsg {
        text: kept_text(text, redact),
        attachment,
        ..UserMsg::default()
    }))
}

/// A command the user ran themselves (`!cmd` in Codex's TUI), which Codex records as a
/// user message, `<user_shell_command>\n<command>\nCMD\n</command>\n<result>\nExit
/// code: N\nDuration: … seconds\nOutput:\n…\n</result>\n</user_shell_command>`: read as
/// Claude Code writes its bash mode (`<bash-input>`, `<bash-stdout>`), so it is the
/// context of the next request as there (docs/design.md §3.13).
fn user_shell_command(text: &str) -> Option<String> {
    let body = text.trim_start().strip_prefix("<user_shell_command>")?;
    let command = super::super::prompt::tag(body, "command")?.trim();
    if command.is_empty() {
        return None;
    }
    let result = super::super::prompt::tag(body, "result").unwrap_or("");
    // What the command printed: after the `Output:` line of Codex's header.
    let output = result
        .split_once("\nOutput:\n")
        .map_or(result, |(_, printed)| printed)
        .trim_end();
    Some(format!(
        "<bash-input>{command}</bash-input><bash-stdout>{output}</bash-stdout><bash-stderr></bash-stderr>"
    ))
}

/// What a hook made Codex tell the model (a Stop hook that blocked, with its reason),
/// which Codex records as a user message `<hook_prompt hook_run_id="stop:0:/p/hooks.json">
/// TEXT</hook_prompt>` (the text XML-escaped): read as Claude Code writes a Stop hook's
/// feedback (`Stop hook feedback:\n[/p/hooks.json]: TEXT`), so what it required is
/// kept as there (docs/design.md §3.13).
fn hook_prompt(text: &str) -> Option<String> {
    let rest = text.trim_start().strip_prefix("<hook_prompt")?;
    let (attributes, body) = rest.split_once('>')?;
    let body = body.split("</hook_prompt>").next().unwrap_or(body).trim();
    let run = attributes
        .split_once("hook_run_id=\"")
        .and_then(|(_, v)| v.split_once('"'))
        .map(|(v, _)| unescape_xml(v))?;
    // `stop:0:/p/hooks.json`: the event (snake case), then where the hook is from.
    let mut parts = run.splitn(3, ':');
    let event: String = parts
        .next()
        .filter(|e| e.chars().all(|c| c.is_ascii_alphabetic() || c == '_'))?
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect();
    let from = parts.nth(1).unwrap_or("hook");
    (!event.is_empty() && !body.is_empty())
        .then(|| format!("{event} hook feedback:\n[{from}]: {}", unescape_xml(body)))
}

/// `&amp;`, `&lt;`, `&gt;`, `&quot;` and `&apos;` as the characters they stand for.
fn unescape_xml(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// Whether a `user` message is a request the user made: its recorded provenance says
/// so (`user`), or its kinds do (`user.*`); without either (older versions), its text
/// does not start as Codex's own user messages do.
fn is_request(origin: Option<&[u8]>, text: &str, cost: &mut Cost) -> bool {
    let mut provenances: Vec<String> = Vec::new();
    let mut kinds: Vec<String> = Vec::new();
    if let Some(origin) = origin {
        Cursor::new(origin).object(|c, key| {
            match key {
                b"content_item_kinds" => {
                    c.array(|c| {
                        kinds.extend(record::string(c.raw(), cost));
                        Some(())
                    })?;
                }
                b"content_item_metadata" => {
                    c.array(|c| {
                        c.object(|c, key| {
                            if key == b"provenance" {
                                c.object(|c, key| {
                                    if key == b"type" {
                                        provenances.extend(record::string(c.raw(), cost));
                                    }
                                    Some(())
                                })?;
                            }
                            Some(())
                        })?;
                        Some(())
                    })?;
                }
                _ => {}
            }
            Some(())
        });
    }
    if !provenances.is_empty() {
        return provenances.iter().any(|p| p == "user");
    }
    if !kinds.is_empty() {
        return kinds.iter().any(|k| k.starts_with("user."));
    }
    let t = text.trim_start();
    !HARNESS_PREFIXES.iter().any(|p| t.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_line(line: &str) -> Record {
        parse(
            line.as_bytes(),
            &LineOptions::default(),
            &mut Cost::default(),
        )
        .unwrap()
    }

    fn user_text(line: &str) -> Option<String> {
        match parse_line(line).entry {
            Entry::User(u) => Some(u.text),
            _ => None,
        }
    }

    #[test]
    fn session_meta_gives_the_session_fields() {
        let r = parse_line(
            r#"{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"s-1","cwd":"/w","cli_version":"0.169.0","git":{"branch":"main","commit_hash":"abc"},"base_instructions":{"text":"You are Codex"}}}"#,
        );
        assert!(matches!(r.entry, Entry::Other));
        let s = r.meta.session.expect("the session fields");
        assert_eq!(s.session_id.as_deref(), Some("s-1"));
        assert_eq!(s.cwd.as_deref(), Some("/w"));
        assert_eq!(s.version.as_deref(), Some("0.169.0"));
        assert_eq!(s.git_branch.as_deref(), Some("main"));
    }

    #[test]
    fn only_the_users_own_messages_are_requests() {
        let user = |text: &str, provenance: &str| {
            format!(
                r#"{{"timestamp":"t","type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":{}}}],"internal_chat_message_metadata_passthrough":{{"content_item_kinds":["x"],"content_item_metadata":[{{"provenance":{{"type":"{provenance}"}}}}]}}}}}}"#,
                serde_json::to_string(text).unwrap()
            )
        };
        assert_eq!(
            user_text(&user("fix the bug", "user")).as_deref(),
            Some("fix the bug")
        );
        assert_eq!(user_text(&user("<environment_context>…", "harness")), None);
        assert_eq!(user_text(&user("looks like a request", "harness")), None);
        // Without provenance, the text decides.
        let bare = |text: &str| {
            format!(
                r#"{{"timestamp":"t","type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":{}}}]}}}}"#,
                serde_json::to_string(text).unwrap()
            )
        };
        assert_eq!(user_text(&bare("add tests")).as_deref(), Some("add tests"));
        for harness in [
            "<environment_context>\n<cwd>/w</cwd>",
            "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>…",
            "<user_instructions>be brief</user_instructions>",
            "Another language model started to solve this problem and produced a summary…",
        ] {
            assert_eq!(user_text(&bare(harness)), None, "{harness}");
        }
        // An interrupted turn reads as Claude Code's interrupt marker.
        assert_eq!(
            user_text(&bare(
                "<turn_aborted>\nThe user interrupted.\n</turn_aborted>"
            ))
            .as_deref(),
            Some("[Request interrupted by user]")
        );
        let developer = r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"hook context"}]}}"#;
        assert!(matches!(parse_line(developer).entry, Entry::Other));
    }

    #[test]
    fn compaction_output_is_no_reply() {
        let line = r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"SUMMARY"}]},"metadata":{"compaction_output":true}}"#;
        let Entry::Assistant(a) = parse_line(line).entry else {
            panic!()
        };
        assert!(a.synthetic);
        assert_eq!(a.texts, ["SUMMARY"]);
    }

    #[test]
    fn uninteresting_lines_are_other_and_broken_ones_bad() {
        for line in [
            r#"{"timestamp":"t","type":"world_state","payload":{"full":true}}"#,
            r#"{"timestamp":"t","type":"token_usage_record","payload":{}}"#,
            r#"{"timestamp":"t","type":"a_future_type","payload":{"x":[1,{"y":2}]}}"#,
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{}}}"#,
            // An event's payload is not walked past its type.
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"item_completed","item":{"aggregated_output":"…" ]]}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","summary":[]}}"#,
        ] {
            assert!(matches!(parse_line(line).entry, Entry::Other), "{line}");
        }
        let opts = LineOptions::default();
        assert!(parse(b"garbage", &opts, &mut Cost::default()).is_err());
        assert!(
            parse(
                br#"{"timestamp":"t","type":"response_item","payload":{"#,
                &opts,
                &mut Cost::default()
            )
            .is_err()
        );
        assert!(
            parse(
                br#"{"timestamp":"t","type":"world_state","payload":{"#,
                &opts,
                &mut Cost::default()
            )
            .is_err()
        );
    }

    #[test]
    fn a_namespaced_call_is_named_with_its_namespace() {
        let r = parse_line(
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"search_memories","namespace":"mcp__memory_stalker","arguments":"{\"query\":\"retry budget\"}","call_id":"c"}}"#,
        );
        let Entry::Assistant(a) = r.entry else {
            panic!()
        };
        assert_eq!(a.tool_calls[0].name, "mcp__memory_stalker__search_memories");
        assert_eq!(&*a.tool_calls[0].summary, "retry budget");
    }

    /// A sub-agent's calls, as Codex 0.169.0 records them: what it was asked is the
    /// summary (a wait or a close has nothing to say).
    #[test]
    fn a_sub_agents_task_is_its_calls_summary() {
        let call = |name: &str, args: &str| {
            let line = serde_json::json!({"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":name,"namespace":"multi_agent_v1","arguments":args,"call_id":"c"}});
            let Entry::Assistant(a) = parse_line(&line.to_string()).entry else {
                panic!()
            };
            (
                a.tool_calls[0].name.to_string(),
                a.tool_calls[0].summary.to_string(),
            )
        };
        assert_eq!(
            call(
                "spawn_agent",
                r#"{"message": "count the lines of notes.txt"}"#
            ),
            (
                "multi_agent_v1__spawn_agent".into(),
                "count the lines of notes.txt".into()
            )
        );
        assert_eq!(
            call(
                "send_input",
                r#"{"target": "0199", "message": "also say hi"}"#
            )
            .1,
            "also say hi"
        );
        assert_eq!(call("wait_agent", r#"{"targets": ["0199"]}"#).1, "");
        let line = serde_json::json!({"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"spawn_agent","namespace":"collaboration","arguments":r#"{"task_name": "lint", "message": "run the linter"}"#,"call_id":"c"}});
        let Entry::Assistant(a) = parse_line(&line.to_string()).entry else {
            panic!()
        };
        assert_eq!(&*a.tool_calls[0].summary, "lint: run the linter");
    }

    #[test]
    fn turn_aborted_events_interrupt() {
        let r = parse_line(
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted","turn_id":"x"}}"#,
        );
        assert!(matches!(r.entry, Entry::User(u) if u.text.starts_with(INTERRUPT_MARKER)));
    }

    /// The texts Codex wraps a user's `!` command and a hook's prompt in are read from
    /// any text without a panic, and what they give never starts a line of ours: a
    /// hook's feedback starts with its event, a bash-mode text with `<bash-input>`.
    mod wrapped_user_messages {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(500))]
            #[test]
            fn read_any_text(
                inner in "(?s).{0,80}",
                attrs in "[ a-z_=\":/0-9]{0,30}",
                wrap in 0usize..4,
            ) {
                let text = match wrap {
                    0 => format!("<hook_prompt{attrs}>{inner}</hook_prompt>"),
                    1 => format!("<user_shell_command>\n<command>\n{inner}\n</command>\n<result>\n{attrs}\nOutput:\n{inner}\n</result>\n</user_shell_command>"),
                    2 => format!("<hook_prompt hook_run_id=\"{attrs}\">{inner}"),
                    _ => format!("<user_shell_command>{inner}"),
                };
                if let Some(f) = hook_prompt(&text) {
                    prop_assert!(f.contains(" hook feedback:\n["), "{}", f);
                    prop_assert!(f.chars().next().is_some_and(char::is_uppercase), "{}", f);
                }
                if let Some(b) = user_shell_command(&text) {
                    prop_assert!(b.starts_with("<bash-input>"), "{}", b);
                }
                let _ = super::super::tools::command_output(&text);
                let _ = crate::transcript::commands::running_session(&text);
            }
        }
    }
}
