//! Where past sessions are: Claude Code's transcripts under
//! `$CLAUDE_CONFIG_DIR/projects/<project>/<session>.jsonl` (default `~/.claude`) and
//! Codex's rollouts under `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-….jsonl` (default
//! `~/.codex`).
//!
//! Directories are followed through links (a home kept in a dotfiles repository links
//! `~/.claude`), each once; a transcript that is itself a link is refused: the agent
//! never writes one, and reading it would import whatever file it names. Sub-agents'
//! transcripts (`<session>/subagents/agent-*.jsonl`) lie one level down and are not
//! looked at.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::agent::Agent;

/// Deepest directory looked into under Codex's `sessions/` (`YYYY/MM/DD` is 3).
const MAX_CODEX_DEPTH: usize = 6;

/// A transcript file found.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub path: PathBuf,
    pub size: u64,
    pub modified: Option<SystemTime>,
}

/// What the trees hold: the transcripts, and the files named like one that are not
/// read, with why.
#[derive(Debug, Default)]
pub(crate) struct Trees {
    pub found: Vec<Found>,
    pub refused: Vec<(PathBuf, String)>,
}

/// The transcripts of `agents` under Claude Code's directory and Codex's home.
pub(crate) fn find(
    claude_dir: Option<&Path>,
    codex_home: Option<&Path>,
    agents: &[Agent],
) -> Trees {
    let mut trees = Trees::default();
    let mut seen = HashSet::new();
    if agents.contains(&Agent::ClaudeCode)
        && let Some(dir) = claude_dir
    {
        // `projects/<project>/<session>.jsonl`: one level of project directories.
        for project in subdirs(&dir.join("projects"), &mut seen) {
            files(&project, &mut trees, |name| name.ends_with(".jsonl"));
        }
    }
    if agents.contains(&Agent::Codex)
        && let Some(home) = codex_home
    {
        let mut dirs = vec![(home.join("sessions"), 0)];
        while let Some((dir, depth)) = dirs.pop() {
            files(&dir, &mut trees, |name| {
                name.starts_with("rollout-") && name.ends_with(".jsonl")
            });
            if depth < MAX_CODEX_DEPTH {
                dirs.extend(subdirs(&dir, &mut seen).into_iter().map(|d| (d, depth + 1)));
            }
        }
    }
    trees.found.sort_by(|a, b| a.path.cmp(&b.path));
    trees.refused.sort();
    trees
}

/// The directories in `dir` (through links, each real directory once), sorted.
fn subdirs(dir: &Path, seen: &mut HashSet<PathBuf>) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .filter(|p| seen.insert(fs::canonicalize(p).unwrap_or_else(|_| p.clone())))
        .collect();
    out.sort();
    out
}

/// The files of `dir` whose names `wanted` takes: regular ones are found, links and
/// anything else are refused.
fn files(dir: &Path, trees: &mut Trees, wanted: impl Fn(&str) -> bool) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        if !wanted(&name.to_string_lossy()) {
            continue;
        }
        let path = e.path();
        // The entry itself, not what a link names.
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        let kind = meta.file_type();
        if kind.is_symlink() {
            trees.refused.push((
                path,
                "a symbolic link: a transcript is read only where the agent wrote it".into(),
            ));
        } else if kind.is_dir() {
            // A directory named like a transcript: nothing to read.
        } else if !kind.is_file() {
            trees
                .refused
                .push((path, "not a regular file (a FIFO, socket or device)".into()));
        } else {
            trees.found.push(Found {
                path,
                size: meta.len(),
                modified: meta.modified().ok(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_trees_links_refused_sub_agents_not_looked_at() {
        let t = tempfile::tempdir().unwrap();
        let claude = t.path().join("claude");
        let codex = t.path().join("codex");
        let p = claude.join("projects/-work-a");
        fs::create_dir_all(p.join("s1/subagents")).unwrap();
        fs::write(p.join("s1.jsonl"), "{}\n").unwrap();
        fs::write(p.join("s1/subagents/agent-x.jsonl"), "{}\n").unwrap();
        fs::write(p.join("notes.txt"), "").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", p.join("s2.jsonl")).unwrap();
        let day = codex.join("sessions/2026/01/02");
        fs::create_dir_all(&day).unwrap();
        fs::write(day.join("rollout-2026-01-02T10-00-00-abc.jsonl"), "{}\n").unwrap();
        fs::write(day.join("other.jsonl"), "{}\n").unwrap();
        // A linked project directory is followed, once.
        std::os::unix::fs::symlink(&p, claude.join("projects/-work-b")).unwrap();
        let trees = find(Some(&claude), Some(&codex), &Agent::ALL);
        let names: Vec<String> = trees
            .found
            .iter()
            .map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            ["s1.jsonl", "rollout-2026-01-02T10-00-00-abc.jsonl"],
            "{trees:?}"
        );
        assert_eq!(trees.refused.len(), 1, "{trees:?}");
        assert!(trees.refused[0].0.ends_with("s2.jsonl"));
        let only_codex = find(Some(&claude), Some(&codex), &[Agent::Codex]);
        assert_eq!(only_codex.found.len(), 1);
        assert!(
            only_codex.found[0]
                .path
                .ends_with("rollout-2026-01-02T10-00-00-abc.jsonl")
        );
    }
}
