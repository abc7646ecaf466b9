//! The circuit breaker (docs/design.md §5.8): after 3 consecutive failures a backend is
//! skipped for 30 minutes, so a dead endpoint does not cost every compaction a full
//! timeout. State lives in one small JSON file under the data directory, updated under a
//! lock.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::fsutil::{self, Lock};

/// Consecutive failures that open the circuit.
pub const THRESHOLD: u32 = 3;
/// How long an open circuit skips its backend.
pub const COOLDOWN: Duration = Duration::from_secs(30 * 60);

/// The breaker's state file.
#[derive(Debug, Clone)]
pub struct Breaker {
    file: PathBuf,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    #[serde(default)]
    backends: BTreeMap<String, Entry>,
}

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct Entry {
    consecutive_failures: u32,
    /// Unix seconds until which the backend is skipped.
    open_until: Option<u64>,
    last_error: Option<String>,
}

fn secs(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl Breaker {
    /// The breaker whose state is kept in `data_dir`.
    pub fn new(data_dir: &Path) -> Breaker {
        Breaker {
            file: data_dir.join("circuit-breaker.json"),
        }
    }

    /// When the backend's circuit is open at `now`, the time it closes.
    pub fn open_until(&self, backend: &str, now: SystemTime) -> Option<SystemTime> {
        let until = self.read().backends.get(backend)?.open_until?;
        (until > secs(now)).then(|| UNIX_EPOCH + Duration::from_secs(until))
    }

    /// Records the outcome of a call (`error`: `None` for a success); returns the
    /// closing time if this failure opened the circuit. A success closes it and resets
    /// the count.
    pub fn record(
        &self,
        backend: &str,
        error: Option<&str>,
        now: SystemTime,
    ) -> std::io::Result<Option<SystemTime>> {
        let _lock = Lock::acquire(&self.file.with_extension("lock"))?;
        let mut state = self.read();
        let entry = state.backends.entry(backend.to_string()).or_default();
        let opened = match error {
            None => {
                *entry = Entry::default();
                None
            }
            Some(error) => {
                entry.consecutive_failures += 1;
                entry.last_error = Some(crate::text::one_line(&crate::redact::redact(error), 300));
                (entry.consecutive_failures >= THRESHOLD).then(|| {
                    let until = secs(now) + COOLDOWN.as_secs();
                    entry.open_until = Some(until);
                    UNIX_EPOCH + Duration::from_secs(until)
                })
            }
        };
        let json = serde_json::to_vec_pretty(&state).map_err(std::io::Error::other)?;
        if let Some(dir) = self.file.parent() {
            fsutil::create_private_dir(dir)?;
        }
        fsutil::replace_atomic(&self.file, &json)?;
        Ok(opened)
    }

    fn read(&self) -> State {
        // A missing or damaged state file means "nothing known": every circuit closed.
        // A regular file of a few KiB only: the data directory is shared with whatever
        // else runs as this user.
        fsutil::read_regular(&self.file, MAX_STATE_BYTES)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }
}

/// Largest state file read: a few backends' counters and errors.
const MAX_STATE_BYTES: u64 = 64 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_after_three_failures_and_closes_after_the_cooldown() {
        let dir = tempfile::tempdir().unwrap();
        let b = Breaker::new(&dir.path().join("data"));
        let t0 = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        assert_eq!(b.record("anthropic", Some("HTTP 500"), t0).unwrap(), None);
        assert_eq!(b.record("anthropic", Some("HTTP 500"), t0).unwrap(), None);
        assert!(
            b.open_until("anthropic", t0).is_none(),
            "two failures keep it closed"
        );
        let until = b
            .record("anthropic", Some("HTTP 500"), t0)
            .unwrap()
            .unwrap();
        assert_eq!(until, t0 + COOLDOWN);
        assert_eq!(
            b.open_until("anthropic", t0 + Duration::from_secs(60)),
            Some(until)
        );
        assert!(b.open_until("openai", t0).is_none(), "per backend");
        // After the cooldown one attempt is allowed; a failure opens it again at once.
        let later = t0 + COOLDOWN + Duration::from_secs(1);
        assert!(b.open_until("anthropic", later).is_none());
        assert!(
            b.record("anthropic", Some("HTTP 500"), later)
                .unwrap()
                .is_some()
        );
        // A success closes it and resets the count.
        b.record("anthropic", None, later).unwrap();
        assert!(b.open_until("anthropic", later).is_none());
        assert_eq!(b.record("anthropic", Some("x"), later).unwrap(), None);
    }

    #[test]
    fn a_damaged_state_file_means_closed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("circuit-breaker.json"), "{broken").unwrap();
        let b = Breaker::new(dir.path());
        assert!(b.open_until("anthropic", SystemTime::now()).is_none());
        b.record("anthropic", Some("x"), SystemTime::now()).unwrap();
    }
}
