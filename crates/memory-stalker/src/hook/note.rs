//! The PostCompact note's way to the model.
//!
//! What PostCompact prints reaches the model only after a manual `/compact` (Claude Code
//! pastes it into the `/compact` output, on the user's screen too); after an automatic
//! compaction it is dropped. So PostCompact leaves its note in the plugin's data
//! directory, and the next `UserPromptSubmit` or `PostToolUse` hook of the same session
//! hands it over as `additionalContext`, which reaches the model after either kind of
//! compaction without being printed on the user's screen.
//!
//! Those two hooks run often (every prompt, every tool call), so the hand-over must cost
//! next to nothing when no note waits: one directory read, no JSON parsing.

use std::fs;
use std::io;
use std::path::PathBuf;
use std::time::Duration;

use crate::config::Config;
use crate::fsutil;

use super::HookInput;

/// A note nobody picked up (the session ended) is swept after this long.
const STALE_AFTER: Duration = Duration::from_secs(7 * 24 * 3600);

/// Largest note file read: a note is at most [`super::context::NOTE_MAX`] characters.
const MAX_NOTE_BYTES: u64 = 4 * super::context::NOTE_MAX as u64;

/// The events whose `additionalContext` carries a waiting note to the model.
const HAND_OVER_EVENTS: [&str; 2] = ["UserPromptSubmit", "PostToolUse"];

fn notes_dir(config: &Config) -> PathBuf {
    config.data_dir.join("notes")
}

/// The note file of a session.
fn note_path(config: &Config, session: &str) -> Option<PathBuf> {
    crate::text::session_key(session).map(|key| notes_dir(config).join(format!("{key}.txt")))
}

/// Leaves `note` for the session's next prompt or tool call (replacing an older one).
pub(crate) fn leave(config: &Config, session: &str, note: &str) -> io::Result<PathBuf> {
    let path = note_path(config, session)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no session id"))?;
    let dir = notes_dir(config);
    fsutil::create_private_dir(&dir)?;
    fsutil::remove_older_than(&dir, STALE_AFTER);
    fsutil::replace_atomic(&path, note.as_bytes())?;
    Ok(path)
}

/// Whether any note waits at all: the cheap test made before the hook input is parsed.
pub fn any_waiting(config: &Config) -> bool {
    fs::read_dir(notes_dir(config)).is_ok_and(|mut d| d.next().is_some())
}

/// The hook output that hands the session's waiting note to the model, or nothing.
///
/// The note is claimed by renaming it first, so two hooks running at once (parallel
/// tool calls) never deliver it twice.
pub fn hand_over(stdin: &[u8], config: &Config) -> String {
    let Ok(input) = HookInput::parse(stdin) else {
        return String::new();
    };
    let Some(event) = HAND_OVER_EVENTS
        .into_iter()
        .find(|e| input.hook_event_name.as_deref() == Some(*e))
    else {
        return String::new();
    };
    // A sub-agent's hook names its parent's session: the note is the session's own model's.
    if input.sub_agent().is_some() {
        return String::new();
    }
    let Some(path) = input
        .session_id
        .as_deref()
        .and_then(|s| note_path(config, s))
    else {
        return String::new();
    };
    let claimed = path.with_extension(format!("claimed-{}", std::process::id()));
    if fs::rename(&path, &claimed).is_err() {
        return String::new();
    }
    // The note is PostCompact's, but the data directory is shared with whatever else runs
    // as this user: only a regular file (no link, so no `~/.ssh/id_rsa`; no FIFO, which
    // would hang the hook), of a note's size, goes to the model, cleaned and redacted.
    let note = fsutil::read_regular(&claimed, MAX_NOTE_BYTES).unwrap_or_default();
    let _ = fs::remove_file(&claimed);
    let note = crate::redact::redact(&crate::untrusted::clean(&note)).into_owned();
    let note = crate::text::prefix_chars(note.trim(), super::context::NOTE_MAX);
    if note.is_empty() {
        return String::new();
    }
    super::Output::Context {
        event,
        text: note.to_string(),
    }
    .into_stdout()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn config(dir: &Path) -> Config {
        let mut c = Config::from_lookup(|_| None);
        c.data_dir = dir.to_path_buf();
        c
    }

    fn input(event: &str, session: &str) -> Vec<u8> {
        serde_json::json!({"hook_event_name": event, "session_id": session, "tool_response": {"stdout": "x"}})
            .to_string()
            .into_bytes()
    }

    #[test]
    fn a_note_is_handed_over_once_to_its_own_session() {
        let dir = tempfile::tempdir().unwrap();
        let c = config(dir.path());
        assert!(!any_waiting(&c));
        assert_eq!(hand_over(&input("PostToolUse", "s-1"), &c), "");
        leave(&c, "s-1", "Open tasks it does not mention: …").unwrap();
        assert!(any_waiting(&c));
        assert_eq!(hand_over(&input("PostToolUse", "other"), &c), "");
        assert_eq!(hand_over(&input("SessionStart", "s-1"), &c), "");
        let out = hand_over(&input("PostToolUse", "s-1"), &c);
        insta::assert_snapshot!(out, @r#"{"hookSpecificOutput":{"additionalContext":"Open tasks it does not mention: …","hookEventName":"PostToolUse"}}"#);
        assert_eq!(hand_over(&input("UserPromptSubmit", "s-1"), &c), "");
        assert!(!any_waiting(&c));

        leave(&c, "s-1", "newer").unwrap();
        let out = hand_over(&input("UserPromptSubmit", "s-1"), &c);
        assert!(
            out.contains(r#""hookEventName":"UserPromptSubmit""#),
            "{out}"
        );
    }

    #[test]
    fn hostile_session_ids_stay_inside_the_notes_directory() {
        let dir = tempfile::tempdir().unwrap();
        let c = config(&dir.path().join("data"));
        let p = leave(&c, "../../etc/passwd", "n").unwrap();
        assert_eq!(p, dir.path().join("data/notes/etcpasswd.txt"));
        assert!(leave(&c, "/..", "n").is_err());
    }

    /// Issue 25, defect 11: the data directory is shared with whatever else runs as this
    /// user; a note that is a link, a FIFO or huge is never handed over as it is.
    #[cfg(unix)]
    #[test]
    fn only_a_regular_note_of_a_notes_size_is_handed_over() {
        let dir = tempfile::tempdir().unwrap();
        let c = config(dir.path());
        let notes = dir.path().join("notes");
        std::fs::create_dir_all(&notes).unwrap();
        let secret = dir.path().join("id_rsa");
        std::fs::write(&secret, "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n").unwrap();
        std::os::unix::fs::symlink(&secret, notes.join("s-1.txt")).unwrap();
        assert_eq!(hand_over(&input("PostToolUse", "s-1"), &c), "");
        let fifo = std::ffi::CString::new(notes.join("s-1.txt").to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert_eq!(hand_over(&input("PostToolUse", "s-1"), &c), "");
        std::fs::write(notes.join("s-1.txt"), "x".repeat(1 << 20)).unwrap();
        assert_eq!(hand_over(&input("PostToolUse", "s-1"), &c), "");
        assert_eq!(
            std::fs::read_dir(&notes).unwrap().count(),
            0,
            "nothing is left"
        );
        // A note with escapes and a secret in it is cleaned and redacted.
        leave(&c, "s-1", "Open tasks \u{1b}[2J AKIAIOSFODNN7EXAMPLE").unwrap();
        let out = hand_over(&input("PostToolUse", "s-1"), &c);
        assert!(
            !out.contains("AKIAIOSFODNN7EXAMPLE") && !out.contains("\\u001b"),
            "{out}"
        );
    }
}
