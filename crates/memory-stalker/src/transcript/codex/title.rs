//! Codex's own title of a session. The interactive Codex asks its model for a short
//! title of each thread (its `thread_title` side request) and appends it, and every
//! rename, to `$CODEX_HOME/session_index.jsonl`:
//! `{"id": "<thread id>", "thread_name": "…", "updated_at": "…"}` (Codex 0.169.0). It is
//! the counterpart of Claude Code's title record, which a rollout does not hold; `codex
//! exec` writes none.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::text::one_line;

/// The index's name in Codex's home.
const INDEX: &str = "session_index.jsonl";
/// Bytes read from the index's end: a line is about 120 bytes, so the newest several
/// thousand threads; an older session's title is not worth a longer read.
const TAIL_BYTES: u64 = 512 * 1024;
/// Longest title kept (the headline cuts it further).
const TITLE_CHARS: usize = 200;

/// The newest title Codex gave the thread whose rollout is `rollout`
/// (`<home>/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`), if its home's index
/// has one. A rollout elsewhere (copied, archived) has none.
pub(crate) fn thread_name(rollout: &Path) -> Option<String> {
    let id = thread_id(rollout)?;
    let sessions = rollout.ancestors().nth(4)?;
    if sessions.file_name()? != "sessions" {
        return None;
    }
    let index = sessions.parent()?.join(INDEX);
    let (mut file, len) = crate::fsutil::open_regular(&index, true, None).ok()?;
    let from = len.saturating_sub(TAIL_BYTES);
    file.seek(SeekFrom::Start(from)).ok()?;
    let mut tail = Vec::new();
    file.take(TAIL_BYTES).read_to_end(&mut tail).ok()?;
    let text = String::from_utf8_lossy(&tail);
    // The newest entry wins (a rename appends); a line cut by the read's start or by a
    // write under way does not parse and is passed over.
    text.lines().rev().find_map(|l| name_in(l, id))
}

/// The thread id a rollout's file name ends with: the last five `-`-parts of its stem
/// (a UUID).
fn thread_id(rollout: &Path) -> Option<&str> {
    let stem = rollout.file_name()?.to_str()?.strip_suffix(".jsonl")?;
    let id_at = stem.len().checked_sub(36)?;
    let id = stem.get(id_at..)?;
    let uuid = id.len() == 36
        && id.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        });
    (stem.starts_with("rollout-") && uuid).then_some(id)
}

/// The `thread_name` of an index line about thread `id`.
fn name_in(line: &str, id: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Entry {
        id: String,
        thread_name: Option<String>,
    }
    // Cheap test first: most lines are other threads'.
    if !line.contains(id) {
        return None;
    }
    let e: Entry = serde_json::from_str(line).ok()?;
    let name = e.thread_name.filter(|_| e.id == id)?;
    // Redacted before the cut: a token the cut split would no longer have the shape
    // the redactor knows, and its first half would reach the memory (docs/design.md §8.1).
    let name = crate::redact::redact(&name);
    let name = one_line(crate::untrusted::clean(name.trim()).trim(), TITLE_CHARS);
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const ID: &str = "01a21d0f-66ba-7991-bfe5-a41e8e53d480";

    fn rollout_in(home: &Path) -> std::path::PathBuf {
        let dir = home.join("sessions/2026/11/27");
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("rollout-2026-11-27T12-51-00-{ID}.jsonl"));
        fs::write(&path, "{}\n").unwrap();
        path
    }

    #[test]
    fn the_newest_title_of_the_thread_is_found() {
        let home = tempfile::tempdir().unwrap();
        let rollout = rollout_in(home.path());
        assert_eq!(thread_name(&rollout), None, "no index");
        let other = "01a21d0f-0000-7991-bfe5-a41e8e53d480";
        fs::write(
            home.path().join(INDEX),
            format!(
                "{{\"id\":\"{ID}\",\"thread_name\":\"Cache setup\",\"updated_at\":\"t\"}}\n\
                 {{\"id\":\"{other}\",\"thread_name\":\"Another thread\",\"updated_at\":\"t\"}}\n\
                 {{\"id\":\"{ID}\",\"thread_name\":\"Uploader cache\\nwith pgbouncer\",\"updated_at\":\"t\"}}\n\
                 {{\"id\":\"{ID}\",\"thread_na"
            ),
        )
        .unwrap();
        assert_eq!(
            thread_name(&rollout).as_deref(),
            Some("Uploader cache ⏎ with pgbouncer")
        );
    }

    #[test]
    fn a_token_the_cut_would_split_is_redacted_first() {
        let token = format!("ghp_{}", "A1b2C3d4E5".repeat(4));
        let name = format!("{} {token}", "x".repeat(TITLE_CHARS - 20));
        let line = serde_json::json!({"id": ID, "thread_name": name}).to_string();
        let got = name_in(&line, ID).unwrap();
        assert!(!got.contains("ghp_A1b2"), "{got}");
    }

    #[test]
    fn only_a_rollout_in_codexs_sessions_tree_has_one() {
        let home = tempfile::tempdir().unwrap();
        fs::write(
            home.path().join(INDEX),
            format!("{{\"id\":\"{ID}\",\"thread_name\":\"Cache setup\"}}\n"),
        )
        .unwrap();
        let loose = home
            .path()
            .join(format!("rollout-2026-11-27T12-51-00-{ID}.jsonl"));
        fs::write(&loose, "{}\n").unwrap();
        assert_eq!(thread_name(&loose), None);
        assert_eq!(thread_id(Path::new("rollout-x.jsonl")), None);
        assert_eq!(thread_id(Path::new(&format!("notes-{ID}.jsonl"))), None);
        assert_eq!(
            thread_name(&rollout_in(home.path())).as_deref(),
            Some("Cache setup")
        );
    }
}
