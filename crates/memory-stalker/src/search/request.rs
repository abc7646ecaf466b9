//! A search as `list-memories search` and the MCP tool `search_memories` take it: the
//! same words and filters, checked in one place, so both answer alike.

use chrono::{Local, NaiveDate, TimeZone};

use super::index::RowFilter;
use super::rank::SearchOptions;
use crate::Agent;

/// What was asked, as typed.
#[derive(Debug, Clone, Default)]
pub struct SearchRequest {
    /// Most sessions answered.
    pub limit: usize,
    /// Only memories written on or after this day (`YYYY-MM-DD`, `YYYYMMDD`, or `N`d
    /// for N days ago), local time.
    pub since: Option<String>,
    /// Only memories written on or before this day.
    pub until: Option<String>,
    /// Only this session (a prefix of its id).
    pub session: Option<String>,
    /// Only memories that name this file (a part of its path).
    pub path: Option<String>,
    /// Only memories with open tasks.
    pub open_tasks: bool,
    /// Only this agent's memories: `claude-code` or `codex` (as [`Agent::parse`] reads).
    pub agent: Option<String>,
}

impl SearchRequest {
    /// The search options, or what is wrong with the request (said to a person or the
    /// model as is).
    pub fn options(&self) -> Result<SearchOptions, String> {
        let since_ns = self
            .since
            .as_deref()
            .map(|d| day_start_after(d, 0))
            .transpose()?;
        let until_ns = self
            .until
            .as_deref()
            .map(|d| day_start_after(d, 1))
            .transpose()?;
        if let (Some(s), Some(u)) = (since_ns, until_ns)
            && s >= u
        {
            return Err("since must be a day before until (or the same day).".into());
        }
        Ok(SearchOptions {
            filter: RowFilter {
                since_ns,
                until_ns,
                session: self.session.clone().filter(|s| !s.trim().is_empty()),
                path: self.path.clone().filter(|p| !p.trim().is_empty()),
                open_tasks: self.open_tasks,
                agent: self
                    .agent
                    .as_deref()
                    .filter(|a| !a.trim().is_empty())
                    .map(Agent::from_arg)
                    .transpose()?,
                ..RowFilter::default()
            },
            limit: self.limit,
            ..SearchOptions::default()
        })
    }
}

/// The start of the day named (in local time), in ns since the epoch (UTC):
/// `YYYY-MM-DD`, `YYYYMMDD`, `today`, `yesterday`, or `N`d (N days ago). The error says
/// what a day is.
pub fn day_start(text: &str) -> Result<i64, String> {
    day_start_after(text, 0)
}

/// The start of a day, `days_after` days after the one named, in UTC ns (the day in
/// local time): `YYYY-MM-DD`, `YYYYMMDD`, `today`, `yesterday`, or `N`d (N days ago).
fn day_start_after(text: &str, days_after: i64) -> Result<i64, String> {
    let t = text.trim();
    let today = Local::now().date_naive();
    let day = if t.eq_ignore_ascii_case("today") {
        Some(today)
    } else if t.eq_ignore_ascii_case("yesterday") {
        today.pred_opt()
    } else if let Some(n) = t.strip_suffix('d').and_then(|n| n.parse::<i64>().ok()) {
        today.checked_sub_days(chrono::Days::new(n.max(0) as u64))
    } else {
        NaiveDate::parse_from_str(t, "%Y-%m-%d")
            .or_else(|_| NaiveDate::parse_from_str(t, "%Y%m%d"))
            .ok()
    };
    // The answer quotes what was asked, cut: a million characters of `since` must not
    // come back whole (an MCP answer stays under its bound, docs/design.md §7.9).
    let shown = crate::untrusted::line(t, 40);
    let day = day
        .and_then(|d| d.checked_add_days(chrono::Days::new(days_after as u64)))
        .ok_or_else(|| {
            format!("{shown:?} is not a day: give YYYY-MM-DD, YYYYMMDD, today, yesterday or Nd.")
        })?;
    let midnight = day.and_hms_opt(0, 0, 0).ok_or("no midnight")?;
    Local
        .from_local_datetime(&midnight)
        .earliest()
        .and_then(|t| t.timestamp_nanos_opt())
        .ok_or_else(|| format!("{shown:?} is out of range."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_and_agents() {
        let r = SearchRequest {
            limit: 5,
            since: Some("2026-01-29".into()),
            until: Some("20260129".into()),
            agent: Some("Codex".into()),
            ..SearchRequest::default()
        };
        let o = r.options().unwrap();
        let (s, u) = (o.filter.since_ns.unwrap(), o.filter.until_ns.unwrap());
        assert_eq!(u - s, 86_400_000_000_000, "the whole day");
        assert_eq!(o.filter.agent, Some(Agent::Codex));
        assert!(day_start_after("7d", 0).is_ok());
        let bad = SearchRequest {
            since: Some("last tuesday".into()),
            ..SearchRequest::default()
        };
        assert!(bad.options().unwrap_err().contains("not a day"));
        // A huge value is quoted cut, not whole.
        let huge = SearchRequest {
            since: Some("x".repeat(1_000_000)),
            ..SearchRequest::default()
        };
        assert!(huge.options().unwrap_err().chars().count() < 200);
        let gpt = SearchRequest {
            agent: Some("gpt".into()),
            ..SearchRequest::default()
        };
        assert!(gpt.options().unwrap_err().contains("is not one of"));
        let reversed = SearchRequest {
            since: Some("2026-02-01".into()),
            until: Some("2026-01-01".into()),
            ..SearchRequest::default()
        };
        assert!(reversed.options().is_err());
    }
}
