//! The plugin bundle itself: the hook registrations, the launcher's behaviour with and
//! without the binaries, and the skills' front matter.

use crate::support;

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
            "PostToolUse:*",
            "PostToolUseFailure:Bash",
            "PreCompact:auto",
            "PreCompact:manual",
            "PreToolUse:Edit|Write|MultiEdit|NotebookEdit",
            "SessionStart:clear",
            "SessionStart:compact",
            "SessionStart:resume",
            "SessionStart:startup",
            "SessionStart:startup",
            "UserPromptSubmit:*"
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
fn the_launcher_without_binaries_says_no_memory_was_saved_and_never_blocks() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("plugin \"quoted\" dir");
    copy_bundle(&root, env!("CARGO_BIN_EXE_save-memory"));
    fs::remove_dir_all(root.join("bin")).unwrap();
    // At /compact the user sees "PreCompact [...] failed: <stderr>" (exit 1, which never
    // blocks compaction; exit 2 would). Stdout would go into the summary prompt.
    for event in ["PreCompact", "PostCompact"] {
        let (code, out, err) = launcher(
            &root,
            &["save-memory"],
            &format!(r#"{{"session_id":"s","hook_event_name": "{event}","trigger":"manual"}}"#),
        );
        assert_eq!((code, out.as_str()), (1, ""), "{event}: {err}");
        assert!(
            err.starts_with("memory-stalker: no memory was saved")
                && err.contains("install.sh")
                && err.trim_end().lines().count() == 1,
            "{event}: {err}"
        );
    }
    // The other hooks stay quiet: no error at every prompt or tool call.
    let (code, out, _) = launcher(
        &root,
        &["save-memory"],
        r#"{"hook_event_name":"SessionStart","source":"compact"}"#,
    );
    assert_eq!((code, out.as_str()), (0, ""));
    let (code, out, err) = launcher(
        &root,
        &["save-memory", "hand-over-note"],
        r#"{"hook_event_name":"PostToolUse"}"#,
    );
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    let (code, out, _) = launcher(&root, &["--check"], "");
    assert_eq!(code, 0);
    // What a new session shows the user (and tells the model) when bin/ is missing.
    insta::assert_snapshot!(
        "startup_check_without_binaries",
        out.replace(&root.to_string_lossy().replace('"', "\\\""), "<plugin>")
    );
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

/// A checkout of the repository as the installer sees it, with build output beside it.
fn checkout(dir: &std::path::Path) -> std::path::PathBuf {
    let repo = dir.join("checkout");
    copy_bundle(&repo, env!("CARGO_BIN_EXE_save-memory"));
    let fixtures = repo.join("tests/fixtures");
    fs::create_dir_all(&fixtures).unwrap();
    fs::copy(
        support::sample_transcript(),
        fixtures.join("sample-session.jsonl"),
    )
    .unwrap();
    fs::create_dir_all(repo.join("target/release")).unwrap();
    fs::write(repo.join("target/release/big"), vec![0u8; 1 << 20]).unwrap();
    fs::write(repo.join("Cargo.toml"), "[workspace]\n").unwrap();
    repo
}

/// Runs the installer with an isolated home and no `claude` anywhere.
fn installer(
    repo: &std::path::Path,
    home: &std::path::Path,
    args: &[&str],
) -> (i32, String, String) {
    let out = Command::new(repo.join("install.sh"))
        .args(args)
        .current_dir(repo)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home)
        .env("CLAUDE", "claude-not-installed")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_marketplace_serves_dist_which_holds_the_plugin_without_build_output() {
    let market: Value = serde_json::from_str(
        &fs::read_to_string(repo_root().join(".claude-plugin/marketplace.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(market["plugins"][0]["source"], "./dist");
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let repo = checkout(t.path());
    let (code, out, err) = installer(&repo, &home, &["--no-build"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let dist = repo.join("dist");
    for f in [
        ".claude-plugin/plugin.json",
        "hooks/hooks.json",
        "plugin/run",
        "skills/resume/SKILL.md",
        "skills/memories/SKILL.md",
        "prompts/memory_prompt.txt",
        "bin/save-memory",
        "bin/list-memories",
        "bin/memory-stalker-mcp",
    ] {
        assert!(dist.join(f).is_file(), "dist/{f}");
    }
    // One binary; each tool is a link to it, by the name it runs as.
    assert!(dist.join("bin/memory-stalker").is_file());
    for tool in ["save-memory", "list-memories", "memory-stalker-mcp"] {
        assert_eq!(
            fs::read_link(dist.join("bin").join(tool)).unwrap(),
            std::path::Path::new("memory-stalker")
        );
    }
    assert_eq!(
        fs::read_to_string(dist.join("hooks/hooks.json")).unwrap(),
        fs::read_to_string(repo.join("hooks/hooks.json")).unwrap()
    );
    // bin/ is the repository's (a rebuild is used at once); nothing else of the build.
    assert_eq!(
        fs::read_link(dist.join("bin")).unwrap(),
        std::path::Path::new("../bin")
    );
    let mut names: Vec<String> = fs::read_dir(&dist)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ".claude-plugin",
            ".gitignore",
            "bin",
            "hooks",
            "plugin",
            "prompts",
            "skills"
        ]
    );
    assert!(!dist.join(".claude-plugin/marketplace.json").exists());
    // dist/ ignores itself in git.
    let ignore = fs::read_to_string(dist.join(".gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "*"), "{ignore}");
    // Run again: made afresh, no leftovers.
    let (code, _, err) = installer(&repo, &home, &["--no-build"]);
    assert_eq!(code, 0, "{err}");
    let leftovers: Vec<_> = fs::read_dir(&repo)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("dist."))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn the_install_demo_stays_out_of_the_project_registry() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let repo = checkout(t.path());
    let demo = repo.join("target/demo-project");
    // A registry as an earlier installer left it: the demo next to a real project.
    let real = t.path().join("real-project");
    fs::create_dir_all(real.join(".claude/memories")).unwrap();
    let registry = home.join(".cache/memory-stalker/projects.txt");
    fs::create_dir_all(registry.parent().unwrap()).unwrap();
    fs::write(
        &registry,
        format!("{}\n{}\n", demo.display(), real.display()),
    )
    .unwrap();
    let (code, out, err) = installer(&repo, &home, &["--no-build"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("wrote "), "{out}");
    assert!(demo.join(".claude/memories/INDEX.md").is_file(), "{out}");
    assert_eq!(
        fs::read_to_string(&registry).unwrap(),
        format!("{}\n", real.display())
    );
    for dir in [home.join(".cache"), home.join(".claude")] {
        for e in walk(&dir) {
            if e.ends_with("projects.txt") {
                let text = fs::read_to_string(&e).unwrap();
                assert!(!text.contains("demo-project"), "{}: {text}", e.display());
            }
        }
    }
    // The sample memory is about retries: a search of every project must not find it.
    let search = Command::new(repo.join("bin/list-memories"))
        .args(["search", "retry", "--all-projects"])
        .current_dir(t.path())
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", &home)
        .output()
        .unwrap();
    let found = String::from_utf8_lossy(&search.stdout);
    assert!(!found.contains("demo-project"), "{found}");
    assert_eq!(search.status.code(), Some(1), "{found}");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn uninstall_without_claude_says_what_it_could_not_do() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let repo = checkout(t.path());
    // Nothing installed, a stale copy in Claude Code's cache: removed, exit 0.
    let cache = home.join(".claude/plugins/cache/memory-stalker/memory-stalker/0.1.0");
    fs::create_dir_all(cache.join("target")).unwrap();
    let (code, out, err) = installer(&repo, &home, &["--uninstall"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("not installed"), "{out}");
    assert!(!out.contains("is uninstalled"), "{out}");
    assert!(!err.contains("command not found"), "{err}");
    assert!(!home.join(".claude/plugins/cache/memory-stalker").exists());
    // Installed, but no claude to remove it with: say so, exit 1, touch nothing.
    let settings = home.join(".claude/settings.json");
    fs::write(
        &settings,
        r#"{"enabledPlugins":{"memory-stalker@memory-stalker":true}}"#,
    )
    .unwrap();
    fs::create_dir_all(&cache).unwrap();
    let (code, out, err) = installer(&repo, &home, &["--uninstall"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(err.contains("could not be removed"), "{err}");
    assert!(err.contains(&settings.display().to_string()), "{err}");
    assert!(!err.contains("command not found"), "{err}");
    assert!(!out.contains("uninstalled"), "{out}");
    assert!(cache.exists());
}

/// Issue 12, defect 7: a hook that runs past its timeout is killed by Claude Code; ours
/// leaves on its own first. Every budget is under the timeout hooks.json gives the
/// event, with time to spare for writing what was read.
#[test]
fn each_hook_leaves_before_claude_code_would_kill_it() {
    let hooks: Value =
        serde_json::from_str(&fs::read_to_string(repo_root().join("hooks/hooks.json")).unwrap())
            .unwrap();
    let config = memory_stalker::Config::from_env();
    for (event, groups) in hooks["hooks"].as_object().unwrap() {
        for group in groups.as_array().unwrap() {
            for hook in group["hooks"].as_array().unwrap() {
                if hook["args"][0] != "save-memory" || hook["args"].get(1).is_some() {
                    continue;
                }
                let timeout = hook["timeout"].as_u64().unwrap();
                let budget = memory_stalker::hook::time_budget(Some(event), &config);
                assert!(
                    budget.as_secs() + 5 <= timeout,
                    "{event}: budget {budget:?}, timeout {timeout} s"
                );
            }
        }
    }
}
