//! The hook's log: every line goes to stderr and, when possible, to a bounded file
//! (`<memories>/.log`). Nothing is ever written to stdout, which Claude Code reads.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Size after which the log file is rotated to `.log.1`.
pub const MAX_LOG_BYTES: u64 = 256 * 1024;
/// Longest log line, in characters.
const MAX_LINE_CHARS: usize = 4_000;

/// A sink for diagnostic lines.
#[derive(Debug, Default)]
pub struct Log {
    file: Mutex<Option<PathBuf>>,
    /// Whether lines are also printed on stderr.
    quiet: bool,
}

impl Log {
    /// Logs to stderr only, until [`Log::set_file`] is called.
    pub fn stderr() -> Log {
        Log::default()
    }

    /// Logs to the file only (for the detached worker, whose stderr is closed).
    pub fn file_only(path: PathBuf) -> Log {
        Log {
            file: Mutex::new(Some(path)),
            quiet: true,
        }
    }

    /// Also appends lines to `path` from now on.
    pub fn set_file(&self, path: PathBuf) {
        if let Ok(mut f) = self.file.lock() {
            *f = Some(path);
        }
    }

    /// An informational line.
    pub fn info(&self, msg: &str) {
        self.line("info", msg);
    }

    /// Something went wrong but the hook carries on.
    pub fn warn(&self, msg: &str) {
        self.line("warn", msg);
    }

    /// Something the user should act on.
    pub fn error(&self, msg: &str) {
        self.line("error", msg);
    }

    fn line(&self, level: &str, msg: &str) {
        // Lines quote model errors, paths and transcript text: whatever they carry, no
        // secret reaches the terminal or the log file (redaction is not optional here).
        let msg = crate::redact::redact(msg);
        // One line, nothing a terminal acts on: paths and ids in messages came from
        // outside (docs/design.md §8.3).
        let msg = crate::untrusted::terminal_line(&msg, MAX_LINE_CHARS);
        if !self.quiet {
            eprintln!("memory-stalker: {msg}");
        }
        let path = self.file.lock().ok().and_then(|f| f.clone());
        if let Some(path) = path {
            let now = chrono::Local::now().format("%Y-%m-%dT%H:%M:%S%.3f%:z");
            let _ = append(
                &path,
                &format!("{now} {} {level} {msg}\n", std::process::id()),
            );
        }
    }
}

/// The warnings and errors a log file holds from `since` on: how many, and the latest
/// one's time and text (`list-memories status`). Reads the rotated file too.
pub fn problems_since(
    path: &Path,
    since: chrono::DateTime<chrono::FixedOffset>,
) -> (usize, Option<(String, String)>) {
    let mut rotated = path.as_os_str().to_owned();
    rotated.push(".1");
    let mut count = 0;
    let mut last = None;
    for file in [PathBuf::from(rotated), path.to_path_buf()] {
        let Ok(text) = crate::fsutil::read_regular(&file, 2 * MAX_LOG_BYTES) else {
            continue;
        };
        for line in text.lines() {
            // `<time> <pid> <level> <message>`, as `Log::line` writes it.
            let mut parts = line.splitn(4, ' ');
            let (Some(time), Some(_), Some(level), Some(msg)) =
                (parts.next(), parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let Ok(at) = chrono::DateTime::parse_from_rfc3339(time) else {
                continue;
            };
            if at >= since && (level == "warn" || level == "error") {
                count += 1;
                last = Some((time.to_string(), msg.to_string()));
            }
        }
    }
    (count, last)
}

/// Appends `line` to `path`, rotating it to `<path>.1` past [`MAX_LOG_BYTES`]; never
/// through a link.
pub(crate) fn append(path: &Path, line: &str) -> std::io::Result<()> {
    if fs::symlink_metadata(path).is_ok_and(|m| m.len() > MAX_LOG_BYTES) {
        let mut rotated = path.as_os_str().to_owned();
        rotated.push(".1");
        fs::rename(path, rotated)?;
    }
    let mut opts = OpenOptions::new();
    opts.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(crate::fsutil::FILE_MODE);
        // A `.log` committed as a link (to ~/.bashrc, say) must not be appended to.
        opts.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    opts.open(path)?.write_all(line.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_of_the_last_days_are_counted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".log");
        append(&path, "2026-11-01T10:00:00.000+00:00 7 error old\n").unwrap();
        append(&path, "2026-11-27T10:00:00.000+00:00 7 info saved\n").unwrap();
        append(
            &path,
            "2026-11-27T11:00:00.000+00:00 7 warn summary by claude-cli failed: timeout\n",
        )
        .unwrap();
        append(&path, "garbage\n").unwrap();
        let since = chrono::DateTime::parse_from_rfc3339("2026-11-21T00:00:00+00:00").unwrap();
        let (n, last) = problems_since(&path, since);
        assert_eq!(n, 1);
        assert_eq!(
            last,
            Some((
                "2026-11-27T11:00:00.000+00:00".to_string(),
                "summary by claude-cli failed: timeout".to_string()
            ))
        );
    }

    #[test]
    fn log_file_is_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".log");
        let log = Log::file_only(path.clone());
        let msg = "x".repeat(1000);
        for _ in 0..600 {
            log.info(&msg);
        }
        let size = fs::metadata(&path).unwrap().len();
        let rotated = fs::metadata(dir.path().join(".log.1")).unwrap().len();
        assert!(size <= MAX_LOG_BYTES + 2_000, "{size}");
        assert!(rotated <= MAX_LOG_BYTES + 2_000, "{rotated}");
        assert!(fs::read_to_string(&path).unwrap().contains(" info x"));
    }
}
