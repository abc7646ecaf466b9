//! The Codex rollout reader on the rollout the real Codex CLI 0.169.0 wrote in
//! `../shared/codex-samples/` (read from there, never copied): the format is told from
//! the file, and the extraction is what a person reading the rollout finds.

use std::path::PathBuf;

use memory_stalker::transcript::{ReadOptions, Transcript};

fn sample(name: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("MEMORY_STALKER_CODEX_SAMPLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/codex-samples")
        });
    let path = dir.join(name);
    if path.is_file() {
        return Some(path);
    }
    eprintln!("{} is missing; skipping", path.display());
    None
}

#[test]
fn the_shared_exec_rollout_reads_as_codex() {
    let Some(path) = sample("rollout-exec-autocompact.trimmed.jsonl") else {
        return;
    };
    let transcript = Transcript::read(
        &path,
        ReadOptions {
            redact: true,
            ..ReadOptions::default()
        },
    )
    .unwrap();
    let extraction = transcript.extraction();
    let v = serde_json::to_value(&extraction).unwrap();
    // What its session_meta line says.
    assert_eq!(v["agent"], "codex");
    assert_eq!(v["session_id"], "01a212e6-d1ca-7972-b9f4-e7426f2026e0");
    assert_eq!(v["version"], "0.169.0");
    assert_eq!(v["bad_lines"], 0);
    insta::assert_json_snapshot!("codex_exec_rollout", v);
}
