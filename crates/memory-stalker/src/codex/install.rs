//! Installing memory-stalker into Codex CLI, and uninstalling it (docs/design.md §2.12):
//! our hooks in `$CODEX_HOME/hooks.json`, their trust and the MCP server in
//! `$CODEX_HOME/config.toml`. Both files are edited in place and only where we wrote;
//! both edits are worked out and checked before either file is written.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::{config_toml, hooks_json, trust};

/// Why the installer did nothing.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InstallError(pub String);

/// What an install or uninstall did, one line each, for the person who ran it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// What was done (or found already done), in order.
    pub lines: Vec<String>,
    /// What was left alone that the person should know of (another copy's hooks), for
    /// stderr.
    pub left: Vec<String>,
    /// Whether a file was written or removed.
    pub changed: bool,
}

/// Codex's home: `CODEX_HOME`, else `~/.codex`.
pub fn codex_home(codex_home: Option<&str>, home: Option<&Path>) -> Option<PathBuf> {
    codex_home
        .filter(|c| !c.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.map(|h| h.join(".codex")))
}

/// The hooks file and the trust keys as Codex names them: under its home with links
/// resolved (Codex resolves them too).
fn hooks_path(home: &Path) -> PathBuf {
    fs::canonicalize(home)
        .unwrap_or_else(|_| home.to_path_buf())
        .join("hooks.json")
}

/// Installs our hooks, their trust and the MCP server, all run through `launcher`
/// (`<repository>/plugin/run`, absolute), into Codex's home `home` (made if missing).
/// Another copy's hooks are replaced only when its launcher is gone; while it is there,
/// nothing is changed and the error says how to remove it first.
pub fn install(home: &Path, launcher: &Path) -> Result<Outcome, InstallError> {
    if !launcher.is_absolute() {
        return Err(InstallError(format!(
            "the launcher {} must be an absolute path",
            launcher.display()
        )));
    }
    fs::create_dir_all(home)
        .map_err(|e| InstallError(format!("cannot create {}: {e}", home.display())))?;
    let hooks_file = hooks_path(home);
    let config_file = hooks_file.with_file_name("config.toml");
    let hooks_text = read(&hooks_file)?;
    let config_text = read(&config_file)?;

    let works = |l: &str| Path::new(l).is_file();
    let edit = hooks_json::with_ours(hooks_text.as_deref(), launcher, &works)
        .map_err(|e| InstallError(format!("{}: {e}", hooks_file.display())))?;
    let places = &edit.places;
    let trusted: Vec<(String, String)> = places
        .iter()
        .filter_map(|(event, group)| {
            let hook = hooks_json::Hook::of(event)?;
            let handler = trust::Handler {
                event,
                matcher: hook.matcher.map(String::from),
                command: hooks_json::command(launcher, hook.args),
                timeout: hook.timeout,
            };
            Some((
                trust::key(&hooks_file, event, *group, 0),
                trust::hash(&handler),
            ))
        })
        .collect();
    // Where any copy's hooks were: only ours, or a gone copy's, are left by now.
    let earlier = our_keys(&hooks_file, hooks_text.as_deref(), None);
    let record = install_record(hooks_text.as_deref(), config_text.as_deref(), &edit);
    let block = config_toml::with_block(
        config_text.as_deref().unwrap_or(""),
        launcher,
        &trusted,
        &earlier,
        record.as_ref(),
    )
    .map_err(|e| InstallError(format!("{}: {e}", config_file.display())))?;
    let new_hooks = edit.text.clone();
    let mut out = Outcome::default();
    let events: Vec<&str> = places.iter().map(|(e, _)| *e).collect();
    if let Some(text) = &new_hooks {
        write(&hooks_file, text)?;
        out.changed = true;
        out.lines.push(format!(
            "{}: memory-stalker's hooks for {} (they run {})",
            hooks_file.display(),
            events.join(", "),
            hooks_json::command(launcher, "save-memory")
        ));
    } else {
        out.lines.push(format!(
            "{}: memory-stalker's hooks are there already",
            hooks_file.display()
        ));
    }
    if let Some(text) = &block.text {
        write(&config_file, text)?;
        out.changed = true;
    }
    if block.text.is_none() {
        out.lines.push(format!(
            "{}: the hooks are trusted already{}",
            config_file.display(),
            if block.mcp {
                format!(", and the MCP server {} is there", config_toml::MCP_NAME)
            } else {
                String::new()
            }
        ));
    } else {
        let mut said = Vec::new();
        if block.trusted > 0 {
            said.push(format!("trusted those {} hooks", block.trusted));
        }
        if block.already_trusted > 0 {
            said.push(format!("{} trusted already", block.already_trusted));
        }
        if block.mcp {
            said.push(format!(
                "the MCP server {} ({} memory-stalker-mcp)",
                config_toml::MCP_NAME,
                launcher.display()
            ));
        }
        out.lines
            .push(format!("{}: {}", config_file.display(), said.join("; ")));
    }
    out.lines.extend(block.notes);
    for gone in &edit.replaced {
        out.lines.push(format!(
            "{}: replaced the hooks of a copy of memory-stalker that is gone ({gone})",
            hooks_file.display()
        ));
    }
    Ok(out)
}

/// What the install that is being made has added to `hooks.json`, all told: this run's
/// additions, and an earlier install's record when ours (or a gone copy's) are there
/// already. An earlier install that kept no record stays without one (what it added is
/// not known; its uninstall goes by what is left).
fn install_record(
    hooks: Option<&str>,
    config: Option<&str>,
    edit: &hooks_json::WithOurs,
) -> Option<hooks_json::Added> {
    let installed_before = hooks.is_some_and(|t| !hooks_json::ours(t, None).is_empty());
    if !installed_before {
        return Some(edit.added.clone());
    }
    config
        .and_then(config_toml::record)
        .map(|r| r.and(&edit.added))
}

/// Removes what [`install`] added from Codex's home `home`, and nothing else: the hooks
/// of the copy at `launcher` (every copy's when `None`), our block when that copy wrote
/// it, and what its install recorded it added to `hooks.json`. Another copy's hooks
/// stay, and [`Outcome::left`] names them.
pub fn uninstall(home: &Path, launcher: Option<&Path>) -> Result<Outcome, InstallError> {
    let hooks_file = hooks_path(home);
    let config_file = hooks_file.with_file_name("config.toml");
    let hooks_text = read(&hooks_file)?;
    let config_text = read(&config_file)?;
    let this = launcher.map(|l| l.to_string_lossy().into_owned());
    let this = this.as_deref();
    let mut out = Outcome::default();
    // The block is this copy's when its install wrote it (or, asked for every copy, any).
    let block_ours = config_text.as_deref().is_some_and(|t| {
        this.is_none_or(|l| config_toml::block_launcher(t).is_none_or(|b| b == l))
    });
    let record = config_text
        .as_deref()
        .filter(|_| block_ours)
        .and_then(config_toml::record);
    // Worked out first, both, so that a file we cannot read leaves the other as it was.
    let hooks = match &hooks_text {
        Some(t) if !hooks_json::ours(t, this).is_empty() => Some(
            hooks_json::without_ours(t, this, record.as_ref())
                .map_err(|e| InstallError(format!("{}: {e}", hooks_file.display())))?,
        ),
        _ => None,
    };
    let keys = our_keys(&hooks_file, hooks_text.as_deref(), this);
    let ours = |k: &str| keys.iter().any(|o| o == k);
    let config = config_text
        .as_deref()
        .filter(|_| block_ours)
        .map(|t| config_toml::without_block(t, &ours))
        .filter(|(_, had)| *had);
    if let Some(removal) = hooks {
        match &removal.text {
            Some(t) => write(&hooks_file, t)?,
            None => remove(&hooks_file)?,
        }
        out.changed = true;
        out.lines.push(format!(
            "{}: {}{}",
            hooks_file.display(),
            removal.done.join(", "),
            if removal.text.is_none() {
                " (the file held nothing else: removed)"
            } else {
                ""
            }
        ));
    }
    if let Some((text, _)) = config {
        if text.trim().is_empty() {
            remove(&config_file)?;
        } else {
            write(&config_file, &text)?;
        }
        out.changed = true;
        out.lines.push(format!(
            "{}: removed memory-stalker's block (the MCP server and the hooks' trust)",
            config_file.display()
        ));
    }
    if let (Some(l), Some(t)) = (this, &hooks_text) {
        out.left = left_alone(&hooks_file, t, l);
    }
    Ok(out)
}

/// The hooks of other copies of memory-stalker that an uninstall of the copy at
/// `launcher` leaves, one line each, with how to remove them.
fn left_alone(hooks_file: &Path, text: &str, launcher: &str) -> Vec<String> {
    hooks_json::other_copies(text, launcher)
        .into_iter()
        .map(|(other, events)| {
            let state = if Path::new(&other).is_file() {
                "still there"
            } else {
                "gone"
            };
            format!(
                "{}: left the hooks of another copy of memory-stalker, {} ({}; that copy is {state}): \
                 save-memory codex uninstall --launcher {} removes them",
                hooks_file.display(),
                hooks_json::command(Path::new(&other), "save-memory"),
                events.join(", "),
                hooks_json::command(Path::new(&other), "").trim_end(),
            )
        })
        .collect()
}

/// The trust keys of our hooks (the copy at `launcher`'s, any copy's when `None`)
/// where `hooks.json` (its text) has them now.
fn our_keys(hooks_file: &Path, text: Option<&str>, launcher: Option<&str>) -> Vec<String> {
    text.map(|t| hooks_json::ours(t, launcher))
        .unwrap_or_default()
        .into_iter()
        .map(|(event, group)| trust::key(hooks_file, event, group, 0))
        .collect()
}

/// A file's text, `None` when it does not exist.
fn read(path: &Path) -> Result<Option<String>, InstallError> {
    match fs::read(path) {
        Ok(b) => String::from_utf8(b).map(Some).map_err(|_| {
            InstallError(format!(
                "{} is not UTF-8 text; nothing was changed",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(InstallError(format!("cannot read {}: {e}", path.display()))),
    }
}

/// Replaces a file atomically, keeping its permissions (a new one is 0600); a file that
/// is a link (a dotfiles repository) is written where it points, the link kept.
fn write(path: &Path, text: &str) -> Result<(), InstallError> {
    let err = |e: std::io::Error| InstallError(format!("cannot write {}: {e}", path.display()));
    let target = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let dir = target.parent().unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.memory-stalker-{}", std::process::id()));
    let written = (|| {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        let mode = fs::metadata(&target).map(|m| m.permissions());
        match mode {
            Ok(p) => fs::set_permissions(&tmp, p)?,
            #[cfg(unix)]
            Err(_) => {
                use std::os::unix::fs::PermissionsExt;
                fs::set_permissions(&tmp, fs::Permissions::from_mode(0o600))?;
            }
            #[cfg(not(unix))]
            Err(_) => {}
        }
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        fs::rename(&tmp, &target)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written.map_err(err)
}

fn remove(path: &Path) -> Result<(), InstallError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(InstallError(format!(
            "cannot remove {}: {e}",
            path.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_twice_then_uninstall_leaves_the_users_files_as_they_were() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("codex-home");
        fs::create_dir_all(&home).unwrap();
        let users_config = "model = \"gpt-5.5\"\n\n[projects.\"/w\"]\ntrust_level = \"trusted\"\n";
        let users_hooks = "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/u/stop.sh\"}]}]}}\n";
        fs::write(home.join("config.toml"), users_config).unwrap();
        fs::write(home.join("hooks.json"), users_hooks).unwrap();
        let launcher = Path::new("/repo/plugin/run");
        let first = install(&home, launcher).unwrap();
        assert!(first.changed, "{first:?}");
        let config = fs::read_to_string(home.join("config.toml")).unwrap();
        assert!(config.starts_with(users_config));
        assert_eq!(config.matches("trusted_hash").count(), 6, "{config}");
        let second = install(&home, launcher).unwrap();
        assert!(!second.changed, "{second:?}");
        assert!(second.lines[0].ends_with("memory-stalker's hooks are there already"));
        let gone = uninstall(&home, None).unwrap();
        assert!(gone.changed);
        assert_eq!(
            fs::read_to_string(home.join("config.toml")).unwrap(),
            users_config
        );
        assert_eq!(
            fs::read_to_string(home.join("hooks.json")).unwrap(),
            users_hooks
        );
        assert!(
            !uninstall(&home, None).unwrap().changed,
            "nothing left to remove"
        );
    }

    #[test]
    fn files_made_for_us_are_removed_with_us() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("new-home");
        install(&home, Path::new("/repo/plugin/run")).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(home.join("config.toml"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        uninstall(&home, None).unwrap();
        assert!(!home.join("hooks.json").exists());
        assert!(!home.join("config.toml").exists());
        assert!(install(&home, Path::new("relative/run")).is_err());
    }

    #[test]
    fn a_broken_config_stops_everything() {
        let t = tempfile::tempdir().unwrap();
        fs::write(t.path().join("config.toml"), "model = ").unwrap();
        let e = install(t.path(), Path::new("/repo/plugin/run")).unwrap_err();
        assert!(e.0.contains("not valid TOML"), "{e}");
        assert!(!t.path().join("hooks.json").exists(), "nothing was written");
    }

    #[test]
    fn another_clones_working_hooks_stay_through_this_ones_install_and_uninstall() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("codex-home");
        let clone = |name: &str| {
            let launcher = t.path().join(name).join("plugin/run");
            fs::create_dir_all(launcher.parent().unwrap()).unwrap();
            fs::write(&launcher, "#!/bin/sh\n").unwrap();
            launcher
        };
        let (a, b) = (clone("a"), clone("b"));
        install(&home, &a).unwrap();
        let before = |f: &str| fs::read_to_string(home.join(f)).unwrap();
        let (hooks, config) = (before("hooks.json"), before("config.toml"));
        let e = install(&home, &b).unwrap_err();
        assert!(
            e.0.contains("which is still there: nothing was changed"),
            "{e}"
        );
        let gone = uninstall(&home, Some(&b)).unwrap();
        assert!(!gone.changed, "{gone:?}");
        assert_eq!(
            (before("hooks.json"), before("config.toml")),
            (hooks, config)
        );
        assert_eq!(gone.left.len(), 1, "{gone:?}");
        assert!(
            gone.left[0].contains(&format!("'{}' save-memory", a.display())),
            "{gone:?}"
        );
        assert!(
            gone.left[0].contains("that copy is still there"),
            "{gone:?}"
        );
        // Its own uninstall removes it; then the other copy installs.
        assert!(uninstall(&home, Some(&a)).unwrap().changed);
        assert!(!home.join("hooks.json").exists());
        assert!(install(&home, &b).unwrap().changed);
        // A copy that is gone is replaced, and said so.
        fs::remove_dir_all(t.path().join("b")).unwrap();
        let over = install(&home, &a).unwrap();
        assert!(
            over.lines
                .iter()
                .any(|l| l.contains("replaced the hooks of a copy of memory-stalker that is gone")),
            "{over:?}"
        );
        assert!(uninstall(&home, Some(&a)).unwrap().changed);
        assert!(!home.join("hooks.json").exists() && !home.join("config.toml").exists());
    }

    #[test]
    fn the_users_empty_event_list_stays_through_install_and_uninstall() {
        let t = tempfile::tempdir().unwrap();
        let users = "{\"hooks\": {\"SessionStart\": []}}\n";
        fs::write(t.path().join("hooks.json"), users).unwrap();
        let launcher = Path::new("/repo/plugin/run");
        install(t.path(), launcher).unwrap();
        let config = fs::read_to_string(t.path().join("config.toml")).unwrap();
        assert!(
            config.contains(&format!("{}{{\"launcher\":\"/repo/plugin/run\",\"file\":false,\"hooks\":false,\"events\":[\"PreCompact\",\"PostCompact\",\"UserPromptSubmit\",\"PostToolUse\",\"PreToolUse\"]}}", config_toml::RECORD)),
            "{config}"
        );
        // Installed again: the record stays as it was.
        assert!(!install(t.path(), launcher).unwrap().changed);
        uninstall(t.path(), Some(launcher)).unwrap();
        assert_eq!(
            fs::read_to_string(t.path().join("hooks.json")).unwrap(),
            users
        );
        assert!(!t.path().join("config.toml").exists());
    }

    #[test]
    fn an_install_from_before_the_note_gains_its_group_and_trust_and_uninstalls_clean() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("codex-home");
        fs::create_dir_all(&home).unwrap();
        let users_config = "model = \"gpt-5.5\"\n";
        let users_hooks = "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/u/stop.sh\"}]}]}}\n";
        fs::write(home.join("config.toml"), users_config).unwrap();
        fs::write(home.join("hooks.json"), users_hooks).unwrap();
        let launcher = Path::new("/repo/plugin/run");
        install(&home, launcher).unwrap();
        // Made into what an install before the note wrote: no PreToolUse group, no
        // trust for it, none in the record.
        let read = |f: &str| fs::read_to_string(home.join(f)).unwrap();
        let hooks = read("hooks.json");
        let group = hooks
            .find(", \"PreToolUse\"")
            .map(|i| (i, hooks[i..].find("]}]").unwrap() + i + 3))
            .unwrap();
        let old_hooks = format!("{}{}", &hooks[..group.0], &hooks[group.1..]);
        let config = read("config.toml");
        let key = format!(
            "[hooks.state.\"{}:pre_tool_use:0:0\"]\n",
            hooks_path(&home).display()
        );
        let at = config.find(&key).unwrap();
        let end = at + key.len() + config[at + key.len()..].find('\n').unwrap() + 1;
        let old_config =
            format!("{}{}", &config[..at], &config[end..]).replace(",\"PreToolUse\"]", "]");
        assert_eq!(
            old_config.matches("trusted_hash").count(),
            5,
            "{old_config}"
        );
        fs::write(home.join("hooks.json"), &old_hooks).unwrap();
        fs::write(home.join("config.toml"), &old_config).unwrap();
        assert_eq!(hooks_json::ours(&old_hooks, None).len(), 5);
        // Installed again: the group, its trust and the record come.
        let again = install(&home, launcher).unwrap();
        assert!(again.changed, "{again:?}");
        assert_eq!(read("hooks.json"), hooks);
        assert_eq!(read("config.toml").matches("trusted_hash").count(), 6);
        assert!(read("config.toml").contains(&key));
        assert!(read("config.toml").contains(",\"PreToolUse\"]"));
        uninstall(&home, Some(launcher)).unwrap();
        assert_eq!(read("hooks.json"), users_hooks);
        assert_eq!(read("config.toml"), users_config);
    }
}
