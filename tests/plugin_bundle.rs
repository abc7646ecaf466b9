//! The plugin bundle itself: the hook registrations, the launcher's behaviour with and
//! without the binaries, and the skills' front matter.

mod support;

use std::fs;
use std::process::{Command, Stdio};

use serde_json::Value;
use support::claude::copy_bundle;
use support::repo_root;

#[test]
fn hooks_are_registered_in_exec_form_with_timeouts() {
    let hooks: Value =
        serde_json::from_str(&fs::read_to_string(repo_root().join("hooks/hooks.json")).unwrap())
            .unwrap();
    let mut seen = Vec::new();
    for (event, groups) in hooks["hooks"].as_object().unwrap() {
        for g in groups.as_array().unwrap() {
            let matcher = g["matcher"].as_str().unwrap_or("*").to_string();
            for h in g["hooks"].as_array().unwrap() {
                assert_eq!(h["type"], "command");
                assert_eq!(h["command"], "${CLAUDE_PLUGIN_ROOT}/plugin/run", "{event}");
                // `args` is what makes Claude Code spawn without a shell.
                assert!(h["args"].is_array(), "{event}: exec form needs args");
                assert!(
                    h["timeout"].as_u64().is_some_and(|t| t > 0),
                    "{event}: explicit timeout"
                );
                seen.push(format!("{event}:{matcher}"));
            }
        }
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            "PostCompact:*",
            "PreCompact:auto",
            "PreCompact:manual",
            "SessionStart:compact",
            "SessionStart:startup"
        ]
    );
}

fn launcher(root: &std::path::Path, args: &[&str], stdin: &str) -> (i32, String, String) {
    use std::io::Write;
    let mut child = Command::new(root.join("plugin/run"))
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_launcher_without_binaries_exits_zero_and_says_how_to_build() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("plugin \"quoted\" dir");
    copy_bundle(&root, env!("CARGO_BIN_EXE_save-memory"));
    fs::remove_dir_all(root.join("bin")).unwrap();
    let (code, out, err) = launcher(
        &root,
        &["save-memory"],
        r#"{"hook_event_name":"PreCompact"}"#,
    );
    assert_eq!(
        (code, out.as_str()),
        (0, ""),
        "stdout must stay empty in PreCompact"
    );
    assert!(err.contains("install.sh"), "{err}");
    let (code, out, _) = launcher(&root, &["--check"], "");
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let msg = v["systemMessage"].as_str().unwrap();
    assert!(
        msg.contains("not built") && msg.contains("plugin \"quoted\" dir/install.sh"),
        "{msg}"
    );
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    let (code, _, err) = launcher(&root, &["rm"], "");
    assert_eq!(code, 0);
    assert!(err.contains("unknown command"));
}

#[test]
fn the_launcher_with_binaries_runs_them_and_checks_quietly() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("plugin");
    copy_bundle(&root, env!("CARGO_BIN_EXE_save-memory"));
    let (code, out, _) = launcher(&root, &["--check"], "");
    assert_eq!((code, out.as_str()), (0, ""));
    let (code, out, err) = launcher(&root, &["save-memory"], "not json");
    assert_eq!((code, out.as_str()), (0, ""));
    assert!(
        err.contains("not the JSON object"),
        "the real binary ran: {err}"
    );
}

#[test]
fn skills_have_the_front_matter_claude_code_needs() {
    for name in ["resume", "memories"] {
        let text = fs::read_to_string(repo_root().join(format!("skills/{name}/SKILL.md"))).unwrap();
        let front = text
            .strip_prefix("---\n")
            .unwrap()
            .split("\n---\n")
            .next()
            .unwrap();
        assert!(
            front.contains(&format!("name: {name}\n")),
            "{name}: name equals the directory"
        );
        assert!(front.contains("description: "), "{name}");
        assert!(front.contains("argument-hint: "), "{name}");
        assert!(
            front.contains("allowed-tools: Bash(list-memories:*)"),
            "{name}"
        );
        // Arguments are never pasted into a shell command (Claude Code does not quote them).
        for line in text.lines().filter(|l| l.contains("!`")) {
            assert!(!line.contains("$ARGUMENTS"), "{name}: {line}");
            assert!(
                line.contains("list-memories") && line.contains("--json"),
                "{name}: {line}"
            );
        }
    }
}
