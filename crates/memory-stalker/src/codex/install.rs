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

    let (new_hooks, places) = hooks_json::with_ours(hooks_text.as_deref(), launcher)
        .map_err(|e| InstallError(format!("{}: {e}", hooks_file.display())))?;
    let trusted: Vec<(String, String)> = places
        .iter()
        .filter_map(|(event, group)| {
            let (_, args, timeout) = hooks_json::HOOKS.iter().find(|(e, _, _)| e == event)?;
            let handler = trust::Handler {
                event,
                matcher: None,
                command: hooks_json::command(launcher, args),
                timeout: *timeout,
            };
            Some((
                trust::key(&hooks_file, event, *group, 0),
                trust::hash(&handler),
            ))
        })
        .collect();
    let earlier = our_keys(&hooks_file, hooks_text.as_deref());
    let block = config_toml::with_block(
        config_text.as_deref().unwrap_or(""),
        launcher,
        &trusted,
        &earlier,
    )
    .map_err(|e| InstallError(format!("{}: {e}", config_file.display())))?;

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
    Ok(out)
}

/// Removes what [`install`] added from Codex's home `home`, and nothing else.
pub fn uninstall(home: &Path) -> Result<Outcome, InstallError> {
    let hooks_file = hooks_path(home);
    let config_file = hooks_file.with_file_name("config.toml");
    let hooks_text = read(&hooks_file)?;
    let config_text = read(&config_file)?;
    let mut out = Outcome::default();
    // Worked out first, both, so that a file we cannot read leaves the other as it was.
    let hooks = match &hooks_text {
        Some(t) if !hooks_json::ours(t).is_empty() => Some(
            hooks_json::without_ours(t)
                .map_err(|e| InstallError(format!("{}: {e}", hooks_file.display())))?,
        ),
        _ => None,
    };
    let keys = our_keys(&hooks_file, hooks_text.as_deref());
    let ours = |k: &str| keys.iter().any(|o| o == k);
    let config = config_text
        .as_deref()
        .map(|t| config_toml::without_block(t, &ours))
        .filter(|(_, had)| *had);
    if let Some((text, done)) = hooks {
        match text {
            Some(t) => write(&hooks_file, &t)?,
            None => remove(&hooks_file)?,
        }
        out.changed = true;
        out.lines.push(format!(
            "{}: {}{}",
            hooks_file.display(),
            done.join(", "),
            if hooks_text.is_some() && !hooks_file.exists() {
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
    Ok(out)
}

/// The trust keys of our hooks where `hooks.json` (its text) has them now.
fn our_keys(hooks_file: &Path, text: Option<&str>) -> Vec<String> {
    text.map(hooks_json::ours)
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
        assert_eq!(config.matches("trusted_hash").count(), 5, "{config}");
        let second = install(&home, launcher).unwrap();
        assert!(!second.changed, "{second:?}");
        assert!(second.lines[0].ends_with("memory-stalker's hooks are there already"));
        let gone = uninstall(&home).unwrap();
        assert!(gone.changed);
        assert_eq!(
            fs::read_to_string(home.join("config.toml")).unwrap(),
            users_config
        );
        assert_eq!(
            fs::read_to_string(home.join("hooks.json")).unwrap(),
            users_hooks
        );
        assert!(!uninstall(&home).unwrap().changed, "nothing left to remove");
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
        uninstall(&home).unwrap();
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
}
