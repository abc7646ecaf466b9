//! Codex's tool calls and their outputs, as the records extraction reads (docs/design.md
//! §3.13): a one-line summary and the detail extraction acts on for each call, and each
//! output's text and outcome.

use super::super::record::{
    self, Input, Key, RESULT_HEAD_CHARS, RESULT_KEEP_CHARS, TodoInput, ToolDetail, ToolResult,
};
use super::super::skim::{self, Cost, Cursor};
use super::{patch, shell};
use crate::redact::Clipped;

/// What a call was given, undecoded.
pub(super) enum CallInput<'a> {
    /// `function_call.arguments`: a JSON string holding the arguments' JSON.
    Arguments(&'a [u8]),
    /// `custom_tool_call.input`: a JSON string holding free text (`apply_patch`'s patch).
    Free(&'a [u8]),
    /// `local_shell_call.action`: `{"type": "exec", "command": [...], …}`.
    LocalShell(&'a [u8]),
}

/// The arguments of the Codex tools read here, undecoded, beside those the Claude Code
/// tools take ([`Input`]), for any other tool (an MCP server's).
#[derive(Default)]
struct Args<'a> {
    cmd: Option<&'a [u8]>,
    command: Option<&'a [u8]>,
    workdir: Option<&'a [u8]>,
    plan: Option<&'a [u8]>,
    input: Option<&'a [u8]>,
    path: Option<&'a [u8]>,
    session_id: Option<&'a [u8]>,
    chars: Option<&'a [u8]>,
    message: Option<&'a [u8]>,
    task_name: Option<&'a [u8]>,
    other: Input<'a>,
}

impl<'a> Args<'a> {
    fn read(&mut self, c: &mut Cursor<'a>, key: &[u8]) -> Option<()> {
        let slot = match key {
            b"cmd" => &mut self.cmd,
            b"command" => &mut self.command,
            b"workdir" | b"working_directory" => &mut self.workdir,
            b"plan" => &mut self.plan,
            b"input" => &mut self.input,
            b"path" => &mut self.path,
            b"session_id" => &mut self.session_id,
            b"chars" => &mut self.chars,
            b"message" => &mut self.message,
            b"task_name" => &mut self.task_name,
            _ => return self.other.read(c, key),
        };
        *slot = Some(c.raw()?);
        Some(())
    }
}

/// One step of an `update_plan` call.
#[derive(serde::Deserialize)]
struct Step {
    #[serde(default)]
    step: Option<String>,
    #[serde(default)]
    status: Option<String>,
}

/// The summary (one line, redacted as asked) and the detail of a call of `name`.
pub(super) fn describe(
    name: &str,
    input: CallInput,
    redact: bool,
    cost: &mut Cost,
) -> (String, ToolDetail) {
    let decoded;
    let raw: &[u8] = match input {
        CallInput::Free(raw) => {
            let text = record::string(Some(raw), cost).unwrap_or_default();
            return finish(patch_call(&text), redact);
        }
        CallInput::Arguments(raw) => {
            // A JSON string holding JSON: decoded once, then walked.
            decoded = record::string(Some(raw), cost).unwrap_or_default();
            decoded.as_bytes()
        }
        CallInput::LocalShell(raw) => raw,
    };
    let mut args = Args::default();
    if Cursor::new(raw).object(|c, key| args.read(c, key)) != Some(true) {
        return finish((String::new(), ToolDetail::None), redact);
    }
    let s = |v: Option<&[u8]>, cost: &mut Cost| record::string(v, cost);
    let workdir = s(args.workdir, cost);
    let described = match name {
        shell if record::is_shell(shell) => {
            let script = s(args.cmd, cost)
                .or_else(|| script_of(args.command, cost))
                .unwrap_or_default();
            shell_call(script, workdir.as_deref())
        }
        "apply_patch" => patch_call(&s(args.input, cost).unwrap_or_default()),
        "update_plan" => record::task_list_call(
            args.plan
                .and_then(|p| skim::decode::<Vec<Option<Step>>>(p, cost))
                .unwrap_or_default()
                .into_iter()
                .flatten()
                .map(|s| TodoInput {
                    content: s.step.unwrap_or_default(),
                    status: s.status.unwrap_or_else(|| "pending".into()),
                    active_form: None,
                })
                .collect(),
        ),
        // Input to, or a wait on, a command still running (`exec_command` answered
        // "Process running with session ID N"): its later output is the command's.
        "write_stdin" => {
            let id = args
                .session_id
                .and_then(|raw| std::str::from_utf8(raw).ok())
                .and_then(|n| n.trim_matches('"').parse::<u64>().ok());
            let typed = s(args.chars, cost).filter(|c| !c.is_empty());
            match (id, typed) {
                (Some(id), None) => (format!("session {id}"), ToolDetail::Poll(id)),
                (Some(id), Some(t)) => (format!("session {id}: {t}"), ToolDetail::Poll(id)),
                (None, _) => (String::new(), ToolDetail::None),
            }
        }
        // Plan mode's questions, with the options offered: read as Claude Code's
        // `AskUserQuestion` (the answers come back keyed by each question's id).
        "request_user_input" => record::describe_tool("AskUserQuestion", &args.other, redact, cost),
        // A sub-agent given a task, or more to do (`multi_agent_v1__spawn_agent`,
        // `send_input`; v2's `collaboration__spawn_agent` names the task): what it was
        // asked is what the call did.
        sub if matches!(
            sub.rsplit("__").next(),
            Some("spawn_agent" | "send_input" | "send_message" | "followup_task")
        ) =>
        {
            let message = s(args.message, cost).unwrap_or_default();
            let summary = match s(args.task_name, cost) {
                Some(task) if !message.is_empty() => format!("{task}: {message}"),
                Some(task) => task,
                None => message,
            };
            (summary, ToolDetail::None)
        }
        "view_image" => {
            record::file_call(s(args.path, cost).unwrap_or_default(), ToolDetail::Reads)
        }
        _ => {
            // Another tool (an MCP server's): summarised as Claude Code's are.
            let (summary, detail) = record::describe_tool(name, &args.other, redact, cost);
            let summary = if summary.is_empty() {
                s(args.path, cost)
                    .or_else(|| s(args.cmd, cost))
                    .unwrap_or_default()
            } else {
                summary
            };
            (summary, detail)
        }
    };
    finish(described, redact)
}

fn finish((summary, mut detail): (String, ToolDetail), redact: bool) -> (String, ToolDetail) {
    record::clean_detail(&mut detail, redact);
    (record::tool_summary(&summary, redact), detail)
}

/// A shell command: itself as the summary, and the files it clearly reads or writes
/// (a patch fed to `apply_patch` in a here-document counts as the patch).
fn shell_call(script: String, workdir: Option<&str>) -> (String, ToolDetail) {
    let mut found = shell::files(&script, workdir);
    // Whether a file the shell wrote existed before is not known (`sed -i` edits one,
    // `> f` may create it): each may have been created.
    let mut created = found.modified.clone();
    if patch::is_patch(&script) && script.contains("apply_patch") {
        let in_workdir = |f: String| match workdir {
            Some(w) if !f.starts_with('/') => format!("{}/{f}", w.trim_end_matches('/')),
            _ => f,
        };
        for f in patch::changed_files(&script).into_iter().map(in_workdir) {
            if !found.modified.contains(&f) {
                found.modified.push(f);
            }
        }
        created.extend(patch::added_files(&script).into_iter().map(in_workdir));
    }
    let detail = if found.read.is_empty() && found.modified.is_empty() {
        ToolDetail::None
    } else {
        ToolDetail::Paths {
            modified: found.modified,
            read: found.read,
            created,
        }
    };
    (script, detail)
}

/// `apply_patch`: the files it changes, named in the summary and the detail.
fn patch_call(patch: &str) -> (String, ToolDetail) {
    let files = patch::changed_files(patch);
    let summary = match files.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [first, rest @ ..] => format!("{first} and {} more", rest.len()),
    };
    let detail = if files.is_empty() {
        ToolDetail::None
    } else {
        ToolDetail::Paths {
            modified: files,
            read: Vec::new(),
            created: patch::added_files(patch),
        }
    };
    (summary, detail)
}

/// The script of a `command` argument: a string, or an argv whose shell runs a script
/// (`["bash", "-lc", "…"]`), or another argv joined as a shell would read it.
fn script_of(raw: Option<&[u8]>, cost: &mut Cost) -> Option<String> {
    let raw = raw?;
    if raw.starts_with(b"\"") {
        return record::string(Some(raw), cost);
    }
    let argv: Vec<String> = skim::decode(raw, cost)?;
    let is_shell = |p: &str| {
        matches!(
            p.rsplit('/').next().unwrap_or(p),
            "bash" | "sh" | "zsh" | "dash"
        )
    };
    match argv.as_slice() {
        [sh, flag, script] if is_shell(sh) && flag.starts_with('-') && flag.ends_with('c') => {
            Some(script.clone())
        }
        _ => Some(
            argv.iter()
                .map(|a| {
                    if a.is_empty()
                        || a.contains(|c: char| c.is_whitespace() || "'\"$`\\".contains(c))
                    {
                        format!("'{}'", a.replace('\'', "'\\''"))
                    } else {
                        a.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
        ),
    }
}

/// The output of the call `call_id` (`function_call_output.output`, a string, an
/// object `{content, success}` or a list of content items), as much of it as `outputs`
/// asks (see [`record::LineOptions::outputs`]), with its outcome.
pub(super) fn result(
    call_id: Key,
    output: Option<&[u8]>,
    outputs: bool,
    cost: &mut Cost,
) -> ToolResult {
    let mut success = None;
    let text = match output {
        None => Clipped::default(),
        Some(raw) if raw.starts_with(b"\"") => clip(raw, outputs, cost),
        Some(raw) if raw.starts_with(b"{") => {
            let (mut content, mut ok) = (None, None);
            Cursor::new(raw).object(|c, key| {
                match key {
                    b"content" => content = Some(c.raw()?),
                    b"success" => ok = Some(c.raw()?),
                    _ => {}
                }
                Some(())
            });
            success = ok.map(|v| v == b"true");
            match content {
                Some(c) if c.starts_with(b"\"") => clip(c, outputs, cost),
                Some(c) => items(c, outputs, cost),
                None => Clipped::default(),
            }
        }
        Some(raw) => items(raw, outputs, cost),
    };
    let head = text.head();
    let rejected = REJECTED.iter().any(|r| head.trim_start().starts_with(r));
    let is_error = rejected
        || success == Some(false)
        || exit_code(head).is_some_and(|c| c != 0)
        || FAILED.iter().any(|f| head.trim_start().starts_with(f));
    ToolResult {
        tool_use_id: call_id,
        is_error,
        rejected,
        text,
    }
}

/// How Codex answers a call the user turned down at its approval prompt.
const REJECTED: [&str; 2] = ["exec command rejected by user", "patch rejected by user"];

/// How Codex answers a call that could not run at all.
const FAILED: [&str; 9] = [
    // A hook stopped it (`Command blocked by PreToolUse hook: <reason>. Command: <cmd>`).
    "Command blocked by ",
    // A question put outside Plan mode, or with no options (Codex 0.169.0).
    "request_user_input is unavailable",
    "request_user_input requires",
    "unsupported call",
    "unsupported custom tool call",
    "Fatal error",
    "failed to parse function arguments",
    "apply_patch verification failed",
    "execution error",
];

/// Whether an output's head reports how the command exited.
pub(crate) fn reports_exit(head: &str) -> bool {
    exit_code(head).is_some()
}

/// The exit code Codex reports at the head of a command's output: `Process exited
/// with code N` (before the `Output:` line), or `Exit code: N` (an `apply_patch`'s).
fn exit_code(head: &str) -> Option<i64> {
    let mut after_output = false;
    for line in head.lines() {
        let line = line.trim();
        let code = line
            .strip_prefix("Process exited with code ")
            .filter(|_| !after_output)
            .or_else(|| line.strip_prefix("Exit code: "));
        if let Some(code) = code.and_then(|c| c.trim().parse().ok()) {
            return Some(code);
        }
        if line == "Output:" {
            if after_output {
                return None;
            }
            after_output = true;
        } else if after_output {
            // Past the wrapper: the command's own output.
            return None;
        }
    }
    None
}

/// A command's own output, without the lines Codex puts before it (`Chunk ID: …`,
/// `Wall time: …`, `Process exited with code 1`, `Output:`); any other text as it is.
pub(crate) fn command_output(text: &str) -> &str {
    const WRAPPER: [&str; 6] = [
        "Chunk ID:",
        "Wall time:",
        "Process exited with code",
        "Process running with session ID",
        "Exit code:",
        "Original token count:",
    ];
    let mut rest = text;
    let mut wrapped = false;
    while let Some((line, after)) = rest.split_once('\n') {
        let line = line.trim();
        if line == "Output:" && wrapped {
            return after;
        }
        if !WRAPPER.iter().any(|w| line.starts_with(w)) {
            break;
        }
        wrapped = true;
        rest = after;
    }
    text
}

fn clip(raw: &[u8], outputs: bool, cost: &mut Cost) -> Clipped {
    // `request_user_input`'s answers are JSON the answers signal parses whole: cut at
    // 200 (or 2,000) characters, several questions or a long note lost every answer.
    if raw.starts_with(ANSWERS_OUTPUT) {
        return skim::string_head(raw, ANSWERS_CHARS, cost)
            .map(|h| Clipped::new(&h, 2 * ANSWERS_CHARS))
            .unwrap_or_default();
    }
    if outputs {
        skim::clip_string(raw, RESULT_KEEP_CHARS, cost).unwrap_or_default()
    } else {
        skim::string_head(raw, RESULT_HEAD_CHARS, cost)
            .map(|h| Clipped::new(&h, RESULT_KEEP_CHARS))
            .unwrap_or_default()
    }
}

/// How the output of `request_user_input` starts, as a JSON string in the rollout.
const ANSWERS_OUTPUT: &[u8] = b"\"{\\\"answers\\\":";

/// Most characters of a `request_user_input` output kept: a few questions with the
/// user's notes (each note a few hundred characters at most on Codex's screen).
const ANSWERS_CHARS: usize = 16_000;

/// A list of content items (`input_text`, `input_image`) as one text.
fn items(raw: &[u8], outputs: bool, cost: &mut Cost) -> Clipped {
    let parts: Vec<String> = content_items(raw, cost)
        .into_iter()
        .map(|item| match item {
            Item::Text(t) => t,
            Item::Image => "[image]".into(),
        })
        .collect();
    record::output_parts(&parts, outputs)
}

/// One item of a message's or an output's content list.
pub(super) enum Item {
    /// `input_text`, `output_text` or `text`.
    Text(String),
    /// `input_image` or `image`.
    Image,
}

/// The text and image items of a content list (`[{"type": …, "text": …}, …]`), in
/// order; other kinds are skipped.
pub(super) fn content_items(raw: &[u8], cost: &mut Cost) -> Vec<Item> {
    let mut items = Vec::new();
    Cursor::new(raw).array(|c| {
        let (mut kind, mut text) = (None, None);
        c.object(|c, key| {
            match key {
                b"type" => kind = Some(c.raw()?),
                b"text" => text = Some(c.raw()?),
                _ => {}
            }
            Some(())
        })?;
        match record::string(kind, cost).as_deref() {
            Some("input_text" | "output_text" | "text") => {
                items.extend(record::string(text, cost).map(Item::Text));
            }
            Some("input_image" | "image") => items.push(Item::Image),
            _ => {}
        }
        Some(())
    });
    items
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::commands::running_session;

    fn json_string(s: &str) -> Vec<u8> {
        serde_json::to_string(s).unwrap().into_bytes()
    }

    fn call(name: &str, args: serde_json::Value) -> (String, ToolDetail) {
        let raw = json_string(&args.to_string());
        describe(
            name,
            CallInput::Arguments(&raw),
            false,
            &mut Cost::default(),
        )
    }

    #[test]
    fn exec_command_is_summarised_by_its_command_and_names_clear_files() {
        let (summary, detail) = call(
            "exec_command",
            serde_json::json!({"cmd": "sed -n '1,80p' src/lib.rs && echo done > out.txt", "workdir": "/repo"}),
        );
        assert_eq!(summary, "sed -n '1,80p' src/lib.rs && echo done > out.txt");
        let ToolDetail::Paths { modified, read, .. } = detail else {
            panic!("{detail:?}")
        };
        assert_eq!(read, ["/repo/src/lib.rs"]);
        assert_eq!(modified, ["/repo/out.txt"]);
        let (summary, detail) = call("exec_command", serde_json::json!({"cmd": "cargo test"}));
        assert_eq!(summary, "cargo test");
        assert!(matches!(detail, ToolDetail::None));
    }

    #[test]
    fn a_commands_own_output_is_read_past_codexs_lines() {
        let wrapped = "Chunk ID: a\nWall time: 0.1 seconds\nProcess exited with code 2\nOriginal token count: 1\nOutput:\nerror: nope\n";
        assert_eq!(command_output(wrapped), "error: nope\n");
        let running = "Chunk ID: a\nWall time: 10.0 seconds\nProcess running with session ID 7\nOriginal token count: 1\nOutput:\nCompiling\n";
        assert_eq!(command_output(running), "Compiling\n");
        assert_eq!(running_session(running), Some(7));
        assert!(!reports_exit(running));
        assert_eq!(running_session(wrapped), None);
        assert!(reports_exit(wrapped));
        assert_eq!(
            command_output("Exit code: 1\nWall time: 0 seconds\nOutput:\nFAILED\n"),
            "FAILED\n"
        );
        // Another text, or an `Output:` the command printed itself, is left as it is.
        for text in [
            "Output:\nx\n",
            "error: x\nOutput:\ny\n",
            "Chunk ID: a\nno output",
        ] {
            assert_eq!(command_output(text), text);
        }
    }

    #[test]
    fn patches_name_their_files_however_they_come() {
        let patch = "*** Begin Patch\n*** Add File: a.md\n+x\n*** Update File: b.rs\n@@\n-y\n+z\n*** End Patch\n";
        let free = json_string(patch);
        let (summary, detail) = describe(
            "apply_patch",
            CallInput::Free(&free),
            false,
            &mut Cost::default(),
        );
        assert_eq!(summary, "a.md and 1 more");
        assert!(
            matches!(&detail, ToolDetail::Paths { modified, .. } if modified == &["a.md", "b.rs"])
        );
        let (_, detail) = call("apply_patch", serde_json::json!({"input": patch}));
        assert!(
            matches!(&detail, ToolDetail::Paths { modified, .. } if modified == &["a.md", "b.rs"])
        );
        let heredoc = format!("apply_patch <<'EOF'\n{patch}EOF");
        let (_, detail) = call("exec_command", serde_json::json!({"cmd": heredoc}));
        assert!(
            matches!(&detail, ToolDetail::Paths { modified, read, created } if modified == &["a.md", "b.rs"] && read.is_empty() && created == &["a.md"]),
            "{detail:?}"
        );
    }

    #[test]
    fn update_plan_is_the_task_list() {
        let (summary, detail) = call(
            "update_plan",
            serde_json::json!({"explanation": "x", "plan": [
                {"step": "Write notes", "status": "completed"},
                {"step": "Review notes", "status": "in_progress"},
                null
            ]}),
        );
        assert_eq!(summary, "2 items, 1 open");
        let ToolDetail::TodoWrite(items) = detail else {
            panic!()
        };
        assert_eq!(items[1].content, "Review notes");
        assert_eq!(items[1].status, "in_progress");
    }

    #[test]
    fn an_argv_is_read_as_its_script() {
        let action =
            br#"{"type":"exec","command":["bash","-lc","cat a.txt"],"working_directory":"/w"}"#;
        let (summary, detail) = describe(
            "local_shell",
            CallInput::LocalShell(action),
            false,
            &mut Cost::default(),
        );
        assert_eq!(summary, "cat a.txt");
        assert!(matches!(&detail, ToolDetail::Paths { read, .. } if read == &["/w/a.txt"]));
        let (summary, _) = call(
            "shell",
            serde_json::json!({"command": ["ls", "-la", "my dir"]}),
        );
        assert_eq!(summary, "ls -la 'my dir'");
    }

    #[test]
    fn other_tools_are_summarised_as_claude_codes_are() {
        let (summary, _) = call(
            "mcp__docs__search",
            serde_json::json!({"query": "retry budget", "limit": 3}),
        );
        assert_eq!(summary, "retry budget");
        let (summary, detail) = call("view_image", serde_json::json!({"path": "/w/shot.png"}));
        assert_eq!(summary, "/w/shot.png");
        assert!(matches!(detail, ToolDetail::Reads(p) if p == "/w/shot.png"));
        // Broken arguments name nothing, and are no error.
        let raw = json_string("{not json");
        let (summary, detail) = describe(
            "exec_command",
            CallInput::Arguments(&raw),
            false,
            &mut Cost::default(),
        );
        assert!(summary.is_empty() && matches!(detail, ToolDetail::None));
    }

    fn outcome(output: &str) -> (bool, bool, String) {
        let r = result(
            Key::of("c"),
            Some(output.as_bytes()),
            true,
            &mut Cost::default(),
        );
        (r.is_error, r.rejected, r.text.head().to_string())
    }

    #[test]
    fn outputs_tell_success_failure_and_refusal() {
        let ok = serde_json::to_string("Chunk ID: a\nWall time: 0.1 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nhi\n").unwrap();
        assert!(!outcome(&ok).0);
        let failed = serde_json::to_string(
            "Chunk ID: a\nWall time: 0.1 seconds\nProcess exited with code 2\nOutput:\nnope\n",
        )
        .unwrap();
        assert!(outcome(&failed).0);
        // A command printing such a line itself does not decide.
        let printed = serde_json::to_string(
            "Chunk ID: a\nProcess exited with code 0\nOutput:\nProcess exited with code 1\n",
        )
        .unwrap();
        assert!(!outcome(&printed).0);
        let patched =
            serde_json::to_string("Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n")
                .unwrap();
        assert!(!outcome(&patched).0);
        let nested = serde_json::to_string(
            "Wall time: 0.0 seconds\nOutput:\nExit code: 1\nWall time: 0 seconds\n",
        )
        .unwrap();
        assert!(outcome(&nested).0);
        assert!(outcome("\"unsupported call: shell\"").0);
        assert!(outcome("\"exec command rejected by user\"").1);
        assert_eq!(
            outcome("{\"content\":\"boom\",\"success\":false}"),
            (true, false, "boom".into())
        );
        assert_eq!(
            outcome(
                "[{\"type\":\"input_text\",\"text\":\"a\"},{\"type\":\"input_image\",\"image_url\":\"x\"}]"
            ),
            (false, false, "a\n[image]".into())
        );
        assert!(!outcome("\"Plan updated\"").0);
    }
}
