//! Turning memory-stalker off (and on again) for one project.
//!
//! The switch is a small JSON file, `.claude/memory-stalker.json`, holding
//! `{"enabled": false}` (or `true`). The nearest such file from the project up to the
//! file-system root decides, so a switch at a repository's root covers every directory
//! Claude Code is started in below it, and one in `~/.claude/` covers every project
//! under the home directory that has none of its own. Without any file,
//! `MEMORY_STALKER_ENABLED` is the default (on when unset).
//!
//! A switch file that cannot be read as that JSON turns memory-stalker **off**: someone
//! who wrote it meant to switch something, and capturing a session they meant to keep
//! out of memory would be the worse mistake. `list-memories status` says which file
//! decided and why.
//!
//! A switch file (or the `.claude` directory it is in) owned by another user than this
//! one or root is ignored, and `status` says so: in a shared directory (`/tmp`, mode
//! 1777) anyone could otherwise turn memory-stalker on or off for every project below
//! it. A switch file is read as a regular file only (no link followed, no FIFO, at most
//! 64 KiB); `on` and `off` write it only into a real `.claude` directory of the project.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::Error;
use crate::config::Config;
use crate::fsutil;

/// The switch file, relative to a project (or any directory above it).
pub const SWITCH_FILE: &str = ".claude/memory-stalker.json";

/// Largest switch file read; it holds one key.
const MAX_SWITCH_BYTES: u64 = 64 * 1024;

/// Whether memory-stalker works in a project, and what decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Status {
    /// Whether the hooks work in the project.
    pub enabled: bool,
    /// What decided it.
    #[serde(flatten)]
    pub why: Why,
    /// Switch files on the way that were not used, and why (another user's).
    pub ignored: Vec<Ignored>,
}

/// A switch file that was passed over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ignored {
    /// The file.
    pub file: PathBuf,
    /// Why it was not used.
    pub reason: String,
}

/// What decided [`Status::enabled`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "decided_by", rename_all = "snake_case")]
pub enum Why {
    /// A switch file: the project's own or one in a directory above it.
    File {
        /// The switch file that decided.
        file: PathBuf,
    },
    /// A switch file that is not `{"enabled": true|false}`: off until it is fixed.
    BadFile {
        /// The switch file.
        file: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// No switch file; `MEMORY_STALKER_ENABLED` is set.
    Environment,
    /// No switch file and no `MEMORY_STALKER_ENABLED`: on.
    Default,
}

impl Status {
    /// One line for people: "on", "off", and why.
    pub fn describe(&self) -> String {
        let mut out = self.decided();
        for i in &self.ignored {
            out.push_str(&format!(
                "; ignored {} ({})",
                crate::untrusted::path(&i.file),
                i.reason
            ));
        }
        out
    }

    /// What decided, in words.
    fn decided(&self) -> String {
        let state = if self.enabled { "on" } else { "off" };
        match &self.why {
            Why::File { file } => format!(
                "{state}, set by {} ({{\"enabled\": {}}})",
                crate::untrusted::path(file),
                self.enabled
            ),
            Why::BadFile { file, problem } => format!(
                "{state}, because {} cannot be read as {{\"enabled\": true}} or {{\"enabled\": false}} ({problem})",
                crate::untrusted::path(file)
            ),
            Why::Environment => {
                format!("{state}, set by MEMORY_STALKER_ENABLED (no switch file applies)")
            }
            Why::Default => {
                format!("{state} (the default: no switch file, no MEMORY_STALKER_ENABLED)")
            }
        }
    }
}

/// Whether memory-stalker works in `project`.
pub fn status(project: &Path, config: &Config) -> Status {
    let mut ignored = Vec::new();
    for dir in project.ancestors() {
        let file = dir.join(SWITCH_FILE);
        if let Some(reason) = foreign_owner(&file) {
            ignored.push(Ignored { file, reason });
            continue;
        }
        match read_switch(&file) {
            Read::Absent => continue,
            Read::Set(enabled) => {
                return Status {
                    enabled,
                    why: Why::File { file },
                    ignored,
                };
            }
            Read::Bad(problem) => {
                return Status {
                    enabled: false,
                    why: Why::BadFile { file, problem },
                    ignored,
                };
            }
        }
    }
    let (enabled, why) = match config.enabled {
        Some(enabled) => (enabled, Why::Environment),
        None => (true, Why::Default),
    };
    Status {
        enabled,
        why,
        ignored,
    }
}

/// Why the switch file `file` is not this user's to decide with: it, or the `.claude`
/// directory it is in, is owned by another user than this one or root. `None` when it
/// is (or there is no such file).
fn foreign_owner(file: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        let meta = fs::symlink_metadata(file).ok()?;
        let owners = [
            Some(meta.uid()),
            file.parent()
                .and_then(|d| fs::symlink_metadata(d).ok())
                .map(|m| m.uid()),
        ];
        for uid in owners.into_iter().flatten() {
            if uid != me && uid != 0 {
                return Some(format!("owned by uid {uid}, not by you or root"));
            }
        }
    }
    #[cfg(not(unix))]
    let _ = file;
    None
}

/// What a switch file says.
enum Read {
    Absent,
    Set(bool),
    Bad(String),
}

fn read_switch(file: &Path) -> Read {
    use std::io::Read as _;
    let (opened, _) = match fsutil::open_regular(file, false, Some(MAX_SWITCH_BYTES)) {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Read::Absent,
        Err(e) => return Read::Bad(e.to_string()),
    };
    let mut text = String::new();
    if let Err(e) = opened.take(MAX_SWITCH_BYTES).read_to_string(&mut text) {
        return Read::Bad(e.to_string());
    }
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v) => match v.get("enabled") {
            Some(serde_json::Value::Bool(b)) => Read::Set(*b),
            Some(other) => Read::Bad(format!("\"enabled\" is {other}, not true or false")),
            None => Read::Bad("it has no \"enabled\" key".into()),
        },
        Err(e) => Read::Bad(format!("not JSON: {e}")),
    }
}

/// Sets the switch in `project`'s own file (other keys in it are kept); returns it.
///
/// The project's `.claude` must be a real directory (a link could send the file
/// anywhere); it is made when missing. The file there is read as a regular file of at
/// most 64 KiB: anything else (a FIFO, a link, a huge file) is replaced.
pub fn set(project: &Path, enabled: bool) -> Result<PathBuf, Error> {
    let dir = project.join(".claude");
    fsutil::ensure_dir_no_follow(project, Path::new(".claude"))
        .map_err(|e| Error::store("will not write in", &dir, e))?;
    let file = project.join(SWITCH_FILE);
    let mut value = match fsutil::read_regular(&file, MAX_SWITCH_BYTES) {
        Ok(text) => serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .filter(serde_json::Value::is_object)
            .unwrap_or_else(|| serde_json::json!({})),
        Err(_) => serde_json::json!({}),
    };
    value["enabled"] = serde_json::Value::Bool(enabled);
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    fsutil::replace_atomic(&file, text.as_bytes())
        .map_err(|e| Error::store("writing", &file, e))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(enabled: Option<&str>) -> Config {
        Config::from_lookup(|k| match k {
            "MEMORY_STALKER_ENABLED" => enabled.map(String::from),
            _ => None,
        })
    }

    fn write(dir: &Path, text: &str) -> PathBuf {
        let file = dir.join(SWITCH_FILE);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, text).unwrap();
        file
    }

    #[test]
    fn on_by_default_and_the_environment_sets_the_default() {
        let t = tempfile::tempdir().unwrap();
        let s = status(t.path(), &config(None));
        assert_eq!((s.enabled, &s.why), (true, &Why::Default));
        let s = status(t.path(), &config(Some("0")));
        assert_eq!((s.enabled, &s.why), (false, &Why::Environment));
    }

    #[test]
    fn the_nearest_switch_file_decides_over_the_environment() {
        let t = tempfile::tempdir().unwrap();
        let repo = t.path().join("repo");
        let sub = repo.join("service/api");
        fs::create_dir_all(&sub).unwrap();
        let top = write(&repo, r#"{"enabled": false}"#);
        let s = status(&sub, &config(Some("1")));
        assert_eq!((s.enabled, s.why), (false, Why::File { file: top }));
        let near = write(&sub, "{\"enabled\": true, \"note\": \"kept\"}\n");
        let s = status(&sub, &config(Some("0")));
        assert_eq!((s.enabled, s.why), (true, Why::File { file: near }));
    }

    #[test]
    fn a_broken_switch_file_means_off_and_says_why() {
        let t = tempfile::tempdir().unwrap();
        for (text, problem) in [
            ("{\"enabled\": fals", "not JSON"),
            (
                "{\"enabled\": \"no\"}",
                "\"enabled\" is \"no\", not true or false",
            ),
            ("{}", "no \"enabled\" key"),
            ("[false]", "no \"enabled\" key"),
        ] {
            let file = write(t.path(), text);
            let s = status(t.path(), &config(Some("1")));
            assert!(!s.enabled, "{text}");
            match &s.why {
                Why::BadFile {
                    file: f,
                    problem: p,
                } => {
                    assert_eq!(f, &file);
                    assert!(p.contains(problem), "{text}: {p}");
                }
                other => panic!("{text}: {other:?}"),
            }
            assert!(
                s.describe().starts_with("off, because "),
                "{}",
                s.describe()
            );
        }
        // A directory where the file should be is a broken switch too: off.
        let t = tempfile::tempdir().unwrap();
        fs::create_dir_all(t.path().join(SWITCH_FILE)).unwrap();
        assert!(!status(t.path(), &config(None)).enabled);
    }

    #[test]
    fn set_writes_the_projects_own_file_and_keeps_other_keys() {
        let t = tempfile::tempdir().unwrap();
        let file = set(t.path(), false).unwrap();
        assert_eq!(file, t.path().join(SWITCH_FILE));
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            "{\n  \"enabled\": false\n}\n"
        );
        write(t.path(), r#"{"note": "client project", "enabled": false}"#);
        set(t.path(), true).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"note": "client project", "enabled": true})
        );
        // A broken file is mended.
        write(t.path(), "not json");
        set(t.path(), false).unwrap();
        assert!(!status(t.path(), &config(Some("1"))).enabled);
        assert!(matches!(
            status(t.path(), &config(None)).why,
            Why::File { .. }
        ));
    }
}
