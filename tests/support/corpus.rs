//! Where the transcript corpus lives (beside the project, `../shared/corpus/`), shared
//! by the test binaries that read it.

use std::path::{Path, PathBuf};

/// The corpus's transcripts directory (`MEMORY_STALKER_CORPUS` overrides it); `None`
/// when it is missing, which fails the test under CI rather than skipping it.
pub fn corpus_dir() -> Option<PathBuf> {
    shared_dir("MEMORY_STALKER_CORPUS", "corpus", "the transcript corpus")
}

/// The second corpus's transcripts directory (`../shared/corpus-2/transcripts/`, or
/// `MEMORY_STALKER_CORPUS2`): newer sessions of other people, Claude Code and Codex.
/// `None` when missing, which fails under CI as [`corpus_dir`] does.
#[allow(dead_code, reason = "only the meaning tests read the second corpus")]
pub fn corpus2_dir() -> Option<PathBuf> {
    shared_dir("MEMORY_STALKER_CORPUS2", "corpus-2", "the second corpus")
}

/// `../shared/<name>/transcripts` beside the repository (or `$var`), if it is there.
fn shared_dir(var: &str, name: &str, what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared")
            .join(name)
            .join("transcripts")
    });
    if dir.is_dir() {
        return Some(dir);
    }
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(
        !in_ci,
        "{what} is missing at {} (set {var}); CI must not skip it",
        dir.display()
    );
    eprintln!("{what} not found at {}; skipping", dir.display());
    None
}

/// Every `.jsonl` file under `dir`, sorted.
#[allow(
    dead_code,
    reason = "the save-memory tests read annotated sessions only"
)]
pub fn all_transcripts(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
