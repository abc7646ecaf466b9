//! The lookups behind the notes at the moment of action (docs/design.md §2.13): by the
//! file's name and by the error's signature, in the tables [`super::actions`] fills.

use std::path::Path;

use rusqlite::params;

use super::actions::{ErrorHit, FileHit, Kind, Source, names_file};
use super::index::{Index, IndexError};

/// Most rows read for one lookup: a file named in many memories (the same item carried
/// from one segment's memory to the next) needs only the best few.
const MAX_ROWS: i64 = 200;

/// What every lookup keeps to: the user's own memories (never a foreign one, shipped in
/// the repository), written no later than now (never a future-dated one).
const TRUSTED: &str = "m.ours = 1 AND (m.written_at IS NULL OR m.written_at <= ?2)";

/// Which memories a lookup reads, checked before the row limit so that one long
/// session's rows (an item carried from segment to segment) or another project's cannot
/// fill it: of `?4`'s project when given (a shared directory), never of session `?5`.
const WHOSE: &str = "(?4 IS NULL OR m.project = ?4) AND (?5 IS NULL OR m.session_id <> ?5)";

fn source_of(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Source> {
    Ok(Source {
        file: r.get(at)?,
        created: r.get(at + 1)?,
        session_id: r.get(at + 2)?,
        project: r.get(at + 3)?,
    })
}

/// The latest instant (ns) a memory may say it was written at and be used.
fn now_limit() -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
        + crate::memory::order::FUTURE_SLACK.as_nanos();
    i64::try_from(now).unwrap_or(i64::MAX)
}

impl Index {
    /// The best item naming the file at `absolute` (`relative` to the project): a failed
    /// approach before an instruction before a decision, newest first; of the user's
    /// own memories written by now, of `project` when given (a shared directory), not of
    /// the session `not_of` (its earlier segments reach the model through the restore).
    pub fn file_note(
        &self,
        relative: Option<&str>,
        absolute: &str,
        project: Option<&str>,
        not_of: Option<&str>,
    ) -> Result<Option<FileHit>, IndexError> {
        let name = Path::new(absolute)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.is_empty() {
            return Ok(None);
        }
        let sql = format!(
            "SELECT a.kind, a.item, a.path, m.file, m.created, m.session_id, m.project
             FROM action_files a JOIN memories m ON m.id = a.memory_id
             WHERE a.name = ?1 AND {TRUSTED} AND {WHOSE}
             ORDER BY a.kind, a.order_ns DESC, a.memory_id DESC LIMIT ?3"
        );
        let mut st = self.conn.prepare_cached(&sql).map_err(|e| self.sqlite(e))?;
        let rows = st
            .query_map(params![name, now_limit(), MAX_ROWS, project, not_of], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    source_of(r, 3)?,
                ))
            })
            .map_err(|e| self.sqlite(e))?;
        for row in rows {
            let (kind, item, path, source) = row.map_err(|e| self.sqlite(e))?;
            if let Some(kind) = Kind::from_i64(kind)
                && names_file(&path, relative, absolute)
            {
                return Ok(Some(FileHit { kind, item, source }));
            }
        }
        Ok(None)
    }

    /// The newest failed approach whose error has `signature` and that says what worked;
    /// of the user's own memories written by now, of `project` when given, not of the
    /// session `not_of`.
    pub fn error_note(
        &self,
        signature: &str,
        project: Option<&str>,
        not_of: Option<&str>,
    ) -> Result<Option<ErrorHit>, IndexError> {
        let sql = format!(
            "SELECT a.worked, a.item, m.file, m.created, m.session_id, m.project
             FROM action_errors a JOIN memories m ON m.id = a.memory_id
             WHERE a.signature = ?1 AND {TRUSTED} AND {WHOSE}
             ORDER BY a.order_ns DESC, a.memory_id DESC LIMIT ?3"
        );
        let mut st = self.conn.prepare_cached(&sql).map_err(|e| self.sqlite(e))?;
        let mut rows = st
            .query_map(
                params![signature, now_limit(), MAX_ROWS, project, not_of],
                |r| {
                    Ok(ErrorHit {
                        worked: r.get(0)?,
                        item: r.get(1)?,
                        source: source_of(r, 2)?,
                    })
                },
            )
            .map_err(|e| self.sqlite(e))?;
        rows.next().transpose().map_err(|e| self.sqlite(e))
    }
}
