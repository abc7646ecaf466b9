//! Where a memory goes among the others: "newest" everywhere (list, `latest`, `#N`,
//! `prune --keep`, `INDEX.md`, the recall, this compaction's memory) is by a time that
//! does not move with the time zone or daylight saving (docs/design.md §4.9).
//!
//! A memory's file name holds the local wall-clock second it was saved at, which goes
//! back an hour when summer time ends and jumps when a laptop changes time zone: it is
//! for people, and the last tie-break. The order is the UTC instant of writing:
//! `created_ns`, else the RFC 3339 `created` (with its offset), else the file's
//! modification time. Every real offset lies between UTC−12:00 and UTC+14:00, so a
//! memory's instant lies within a day of its name's wall time read as UTC; an instant
//! outside that (a hand-made file) is clamped into it, which also lets a listing read
//! only the memories whose names can still hold the newest (`store/ordered.rs`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::file::parse_file_name;

/// How far after its name's wall time (read as UTC) a memory's instant can be: the
/// most negative offset in use, UTC−12:00, and the fraction of the second the name
/// leaves out.
const AFTER_NAME: i128 = (12 * 3600 + 1) * NS - 1;
/// How far before: the most positive offset, UTC+14:00.
const BEFORE_NAME: i128 = 14 * 3600 * NS;
const NS: i128 = 1_000_000_000;

/// A memory dated more than this after now is in the future: not "latest", never
/// recalled (a clock put right again after running ahead moves by less).
pub const FUTURE_SLACK: Duration = Duration::from_secs(10 * 60);

/// Where a memory goes in the order of memories, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OrderKey {
    /// When it was written, in nanoseconds since the Unix epoch (UTC), clamped to within
    /// a day of its name's wall time.
    pub instant_ns: i128,
    /// Whether that came from `created_ns`: of two at one instant, a memory an older
    /// version wrote (second precision, no `created_ns`) is the older.
    pub precise: bool,
    /// `YYYYMMDD_HHMMSS` of the file name (local wall time).
    pub second: String,
    /// `N` of a `_N` suffix; 1 without one.
    pub suffix: u32,
    /// The file's modification time.
    pub modified: Option<SystemTime>,
    /// The file name.
    pub name: String,
}

impl OrderKey {
    /// The key of the memory file `name`, from its front matter's `created` and
    /// `created_ns` (empty and `None` when it has none) and the file's modification time.
    pub fn new(
        name: &str,
        created: &str,
        created_ns: Option<u64>,
        modified: Option<SystemTime>,
    ) -> OrderKey {
        let (second, suffix) = parse_file_name(name).map_or((String::new(), 1), |(s, _, n)| {
            (s.to_string(), n.unwrap_or(1))
        });
        let written = written_ns(created, created_ns)
            .or_else(|| modified.map(ns_of))
            .or_else(|| name_ns(&second))
            .unwrap_or(0);
        let instant_ns = match name_ns(&second) {
            Some(n) => written.clamp(n - BEFORE_NAME, n + AFTER_NAME),
            None => written,
        };
        OrderKey {
            instant_ns,
            precise: created_ns.is_some(),
            second,
            suffix,
            modified,
            name: name.to_string(),
        }
    }

    /// The latest instant a memory named with `second` can have: a listing that has read
    /// every memory named after a second whose bound is below what it has found needs
    /// to read no further.
    pub fn latest_for_name(second: &str) -> Option<i128> {
        name_ns(second).map(|n| n + AFTER_NAME)
    }
}

/// When the memory says it was written: `created_ns`, else `created` (RFC 3339), in ns.
pub fn written_ns(created: &str, created_ns: Option<u64>) -> Option<i128> {
    created_ns.map(i128::from).or_else(|| {
        chrono::DateTime::parse_from_rfc3339(created.trim())
            .ok()
            .and_then(|t| t.timestamp_nanos_opt())
            .map(i128::from)
    })
}

/// Whether the memory says it was written more than [`FUTURE_SLACK`] after `now`.
pub fn is_future(created: &str, created_ns: Option<u64>, now: SystemTime) -> bool {
    let limit = ns_of(now) + FUTURE_SLACK.as_nanos() as i128;
    written_ns(created, created_ns).is_some_and(|w| w > limit)
}

/// A wall time `YYYYMMDD_HHMMSS` read as UTC, in ns.
fn name_ns(second: &str) -> Option<i128> {
    let t = chrono::NaiveDateTime::parse_from_str(second, "%Y%m%d_%H%M%S").ok()?;
    t.and_utc().timestamp_nanos_opt().map(i128::from)
}

fn ns_of(t: SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_instant_orders_whatever_the_time_zone() {
        // Saved in Tokyo at 23:30, then in Los Angeles at 06:31 the same day (later).
        let tokyo = OrderKey::new(
            "20261125_233000_aaaa0001.md",
            "2026-11-25T23:30:00+09:00",
            None,
            None,
        );
        let la = OrderKey::new(
            "20261125_063100_bbbb0002.md",
            "2026-11-25T06:31:00-08:00",
            None,
            None,
        );
        assert!(la > tokyo);
        // Summer time ends: 01:50 +02:00, then 01:10 +01:00 (20 minutes later).
        let summer = OrderKey::new(
            "20261025_015000_s.md",
            "2026-10-25T01:50:00+02:00",
            None,
            None,
        );
        let winter = OrderKey::new(
            "20261025_011000_s.md",
            "2026-10-25T01:10:00+01:00",
            None,
            None,
        );
        assert!(winter > summer);
        // created_ns decides within a second.
        let a = OrderKey::new(
            "20261025_011000_a.md",
            "2026-10-25T01:10:00+01:00",
            Some(1_792_887_000_000_000_002),
            None,
        );
        let b = OrderKey::new(
            "20261025_011000_b.md",
            "2026-10-25T01:10:00+01:00",
            Some(1_792_887_000_000_000_001),
            None,
        );
        assert!(a > b);
    }

    #[test]
    fn an_instant_far_from_the_name_is_clamped_to_within_a_day() {
        let shipped = OrderKey::new(
            "20200101_000000_evil.md",
            "2099-12-31T23:59:59+00:00",
            None,
            None,
        );
        let named = name_ns("20200101_000000").unwrap();
        assert_eq!(shipped.instant_ns, named + AFTER_NAME);
        assert_eq!(
            OrderKey::latest_for_name("20200101_000000"),
            Some(named + AFTER_NAME)
        );
        // No time at all: the modification time, else the name.
        let bare = OrderKey::new("20200101_000000_x.md", "", None, None);
        assert_eq!(bare.instant_ns, named);
    }

    #[test]
    fn the_future_is_more_than_ten_minutes_ahead() {
        let now = SystemTime::now();
        let at = |secs: i64| {
            chrono::DateTime::<chrono::Utc>::from(now)
                .checked_add_signed(chrono::Duration::seconds(secs))
                .unwrap()
                .to_rfc3339()
        };
        assert!(!is_future(&at(300), None, now));
        assert!(is_future(&at(900), None, now));
        assert!(is_future("2099-01-01T00:00:00+00:00", None, now));
        assert!(!is_future("not a date", None, now));
    }
}
