//! What the model summaries cost the user: one line per call in the data directory
//! (`summaries.jsonl`, bounded like the log), read back by `list-memories status`.
//!
//! A user with `claude` on `PATH` pays one small-model call per compaction; this is
//! where they can see how many, with which backend, how much text went out and how long
//! each took (docs/guide.md, "What a model summary costs").

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// The ledger's file in the data directory.
const FILE: &str = "summaries.jsonl";
/// Longest error kept, in characters.
const ERROR_CHARS: usize = 200;

/// One model call for a memory's summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// When it ended, Unix seconds.
    pub at: u64,
    /// The backend asked (`claude-cli`, `anthropic`, …).
    pub backend: String,
    /// `summary_source` of the answer (`anthropic:claude-haiku-4-5`), or the backend's.
    pub source: String,
    /// The memories directory the summary was for.
    pub memories: String,
    /// Characters of the prompt sent.
    pub sent: usize,
    /// Characters of the answer received (0 when it failed).
    pub received: usize,
    /// How long the call took, milliseconds.
    pub ms: u64,
    /// Why it failed, one line; `None` for a summary written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The ledger file under `data_dir`.
pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE)
}

/// Appends `call` to the ledger of `data_dir`; the error is redacted and cut to one line.
pub fn record(data_dir: &Path, mut call: Call) -> std::io::Result<()> {
    call.error = call
        .error
        .map(|e| crate::text::one_line(&crate::redact::redact(&e), ERROR_CHARS));
    let mut line = serde_json::to_string(&call).map_err(std::io::Error::other)?;
    line.push('\n');
    std::fs::create_dir_all(data_dir)?;
    crate::log::append(&path(data_dir), &line)
}

/// The calls recorded for `memories` in the `days` before `now`, oldest first (from the
/// rotated file too). Lines that do not parse are skipped: the file is ours, but a
/// crash can cut its last line.
pub fn recent(data_dir: &Path, memories: &Path, days: u64, now: SystemTime) -> Vec<Call> {
    let since = now
        .checked_sub(Duration::from_secs(days * 86_400))
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    let want = memories.to_string_lossy();
    let current = path(data_dir);
    let mut rotated = current.as_os_str().to_owned();
    rotated.push(".1");
    [PathBuf::from(rotated), current]
        .iter()
        .filter_map(|p| crate::fsutil::read_regular(p, 2 * crate::log::MAX_LOG_BYTES).ok())
        .flat_map(|text| {
            text.lines()
                .filter_map(|l| serde_json::from_str::<Call>(l).ok())
                .collect::<Vec<_>>()
        })
        .filter(|c| c.at >= since && c.memories == want)
        .collect()
}

/// What a set of calls cost, as `list-memories status` shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Summaries written.
    pub written: usize,
    /// Calls that failed (the memory kept its offline summary).
    pub failed: usize,
    /// Calls by `summary_source`.
    pub by_source: std::collections::BTreeMap<String, usize>,
    /// Characters sent, all calls.
    pub characters_sent: usize,
    /// The median call's time, milliseconds.
    pub median_ms: Option<u64>,
    /// The latest failure's reason.
    pub last_error: Option<String>,
}

/// The [`Usage`] of `calls`.
pub fn usage(calls: &[Call]) -> Usage {
    let mut u = Usage::default();
    let mut times: Vec<u64> = calls.iter().map(|c| c.ms).collect();
    times.sort_unstable();
    u.median_ms = times.get(times.len() / 2).copied();
    for c in calls {
        *u.by_source.entry(c.source.clone()).or_default() += 1;
        u.characters_sent += c.sent;
        match &c.error {
            None => u.written += 1,
            Some(e) => {
                u.failed += 1;
                u.last_error = Some(e.clone());
            }
        }
    }
    u
}

/// The seconds since the epoch of `t`.
pub fn unix(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(at: u64, memories: &str, error: Option<&str>) -> Call {
        Call {
            at,
            backend: "claude-cli".into(),
            source: "claude-cli".into(),
            memories: memories.into(),
            sent: 1_000,
            received: if error.is_some() { 0 } else { 400 },
            ms: 8_000,
            error: error.map(str::to_string),
        }
    }

    #[test]
    fn calls_of_the_last_days_of_one_project_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let now = UNIX_EPOCH + Duration::from_secs(100 * 86_400);
        let today = unix(now) - 60;
        record(
            dir.path(),
            call(today - 8 * 86_400, "/p/.claude/memories", None),
        )
        .unwrap();
        record(dir.path(), call(today, "/p/.claude/memories", None)).unwrap();
        record(dir.path(), call(today, "/q/.claude/memories", None)).unwrap();
        record(
            dir.path(),
            call(
                today,
                "/p/.claude/memories",
                Some("HTTP 401: sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD\nmore"),
            ),
        )
        .unwrap();
        // A line cut by a crash is skipped, not fatal.
        crate::log::append(&path(dir.path()), "{\"at\":1").unwrap();
        let got = recent(dir.path(), Path::new("/p/.claude/memories"), 7, now);
        assert_eq!(got.len(), 2, "{got:?}");
        let error = got[1].error.as_deref().unwrap();
        assert!(!error.contains("abcdefghijklmnop"), "{error}");
        assert!(!error.contains('\n'), "{error}");
        let u = usage(&got);
        assert_eq!((u.written, u.failed, u.characters_sent), (1, 1, 2_000));
        assert_eq!(u.by_source.get("claude-cli"), Some(&2));
        assert_eq!(u.median_ms, Some(8_000));
        assert_eq!(u.last_error.as_deref(), Some(error));
    }
}
