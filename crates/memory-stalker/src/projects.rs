//! Which project a command is about, and every project that has memories.

use std::collections::BTreeSet;
use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::fsutil::{self, Lock};

/// The registry of projects the hook saved memories for, in the data directory.
pub const REGISTRY_FILE: &str = "projects.txt";
/// Most projects kept in the registry.
const MAX_REGISTERED: usize = 2_000;
/// Largest registry read: 2,000 paths of a few hundred bytes. A larger file is not one
/// the hook wrote, and is read as empty (and replaced by the next registration).
const MAX_REGISTRY_BYTES: u64 = 4 * 1024 * 1024;

/// The registry at `file`, read as a regular file (no link, FIFO or device) of at most
/// [`MAX_REGISTRY_BYTES`]: it is in a data directory other processes of this user share.
fn read_registry(file: &Path) -> String {
    fsutil::read_regular(file, MAX_REGISTRY_BYTES).unwrap_or_default()
}

/// The project of `start`: the nearest ancestor with `.claude/memories/`, else the
/// nearest with `.claude/` (not the home directory, whose `.claude/` is Claude Code's
/// own), else `start` itself.
pub fn project_root(start: &Path, home: Option<&Path>) -> PathBuf {
    let with = |sub: &str| {
        start
            .ancestors()
            .find(|a| a.join(sub).is_dir() && (Some(*a) != home || *a == start))
            .map(Path::to_path_buf)
    };
    with(".claude/memories")
        .or_else(|| with(".claude"))
        .unwrap_or_else(|| start.to_path_buf())
}

/// Adds `project` to the registry (once).
pub fn register(data_dir: &Path, project: &Path) -> std::io::Result<()> {
    fsutil::create_private_dir(data_dir)?;
    let file = data_dir.join(REGISTRY_FILE);
    let _lock = Lock::acquire(&data_dir.join("projects.lock"))?;
    let line = project.to_string_lossy().into_owned();
    let existing = read_registry(&file);
    if existing.lines().any(|l| l == line) {
        return Ok(());
    }
    let mut lines: Vec<&str> = existing.lines().filter(|l| !l.is_empty()).collect();
    lines.push(&line);
    let start = lines.len().saturating_sub(MAX_REGISTERED);
    let mut text = lines[start..].join("\n");
    text.push('\n');
    fsutil::replace_derived(&file, text.as_bytes())
}

/// The projects a search from `this` project reads, `this` first: the one asked about,
/// whose memories failing to read is the search's error, where another project's only
/// skips that project (issue 25, defect 8). With `all`, then every other known project
/// (compared resolved, so a project the registry names under another spelling, through
/// a link, is searched once).
pub fn searched(config: &Config, this: &Path, all: bool) -> Vec<PathBuf> {
    let mut out = vec![this.to_path_buf()];
    if all {
        let resolved = |p: &Path| fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let this = resolved(this);
        out.extend(
            known_projects(config)
                .into_iter()
                .filter(|k| resolved(k) != this),
        );
    }
    out
}

/// Every project that has a memories directory: from the registries (ours, and those of
/// the plugin's data directories) and from the `cwd` of the transcripts under
/// `~/.claude/projects/`.
pub fn known_projects(config: &Config) -> Vec<PathBuf> {
    let mut found = BTreeSet::new();
    let mut registries = vec![config.data_dir.join(REGISTRY_FILE)];
    if let Some(home) = &config.home {
        registries.push(home.join(".cache/memory-stalker").join(REGISTRY_FILE));
        if let Ok(rd) = fs::read_dir(home.join(".claude/plugins/data")) {
            registries.extend(
                rd.flatten()
                    .filter(|e| {
                        e.file_name()
                            .to_string_lossy()
                            .starts_with("memory-stalker")
                    })
                    .map(|e| e.path().join(REGISTRY_FILE)),
            );
        }
        if let Ok(rd) = fs::read_dir(home.join(".claude/projects")) {
            for dir in rd.flatten().map(|e| e.path()).filter(|p| p.is_dir()) {
                if let Some(cwd) = transcript_cwd(&dir) {
                    found.insert(cwd);
                }
            }
        }
    }
    for r in registries {
        found.extend(
            read_registry(&r)
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(PathBuf::from),
        );
    }
    found
        .into_iter()
        .filter(|p| config.memories_dir(p).is_dir())
        .collect()
}

/// The `cwd` recorded in the newest transcript of a `~/.claude/projects/<dir>/`.
fn transcript_cwd(dir: &Path) -> Option<PathBuf> {
    let newest = fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max()?
        .1;
    // The first records carry it; 256 KiB is plenty and bounds the work. A regular file
    // only: a FIFO named like a transcript would never end.
    let (file, _) = fsutil::open_regular(&newest, false, None).ok()?;
    let reader = BufReader::new(file.take(256 * 1024));
    for line in reader.split(b'\n').map_while(Result::ok) {
        #[derive(serde::Deserialize)]
        struct Cwd {
            cwd: Option<String>,
        }
        if let Ok(Cwd { cwd: Some(c) }) = serde_json::from_slice(&line)
            && !c.is_empty()
        {
            return Some(PathBuf::from(c));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_root_prefers_memories_then_claude_but_not_home() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let proj = home.join("proj");
        let deep = proj.join("src/a");
        fs::create_dir_all(&deep).unwrap();
        fs::create_dir_all(home.join(".claude")).unwrap();
        assert_eq!(
            project_root(&deep, Some(&home)),
            deep,
            "home's .claude is not a project"
        );
        fs::create_dir_all(proj.join(".claude")).unwrap();
        assert_eq!(project_root(&deep, Some(&home)), proj);
        fs::create_dir_all(proj.join("src/.claude")).unwrap();
        fs::create_dir_all(proj.join(".claude/memories")).unwrap();
        assert_eq!(
            project_root(&deep, Some(&home)),
            proj,
            "memories win over a nearer .claude"
        );
    }

    #[test]
    fn register_is_idempotent() {
        let t = tempfile::tempdir().unwrap();
        register(t.path(), Path::new("/a")).unwrap();
        register(t.path(), Path::new("/b")).unwrap();
        register(t.path(), Path::new("/a")).unwrap();
        assert_eq!(
            fs::read_to_string(t.path().join(REGISTRY_FILE)).unwrap(),
            "/a\n/b\n"
        );
    }
}
