//! Ranking a search (docs/design.md §7.10): BM25 over the weighted fields finds the
//! candidates; a memory that matches more of the query's terms, or its words side by
//! side, moves up; ties go to the newer memory; one session's memories are grouped so
//! that one long session does not fill the page.

use std::collections::{HashMap, HashSet};

use rusqlite::OptionalExtension;

use super::fields::Field;
use super::index::{Index, IndexError, Row, RowFilter};
use super::query::Query;
use super::snippet::{Snippet, snippet_of};

/// Candidates ranked by BM25 before the finer ranking: enough that the memory with most
/// of the terms is among them however common one of the terms is.
const CANDIDATES: usize = 300;

/// Most candidates one session gives: a session with thousands of memories that all
/// match (a restored backup, a session kept open for months) must leave room for the
/// other sessions that match; the page shows one hit per session anyway.
const PER_SESSION: usize = 30;

/// Most rows read below the window, looking for sessions it did not reach, when every
/// word of a query is common (a bounded walk down the rowids, not a scan of the index).
const BELOW_WINDOW: usize = 50_000;

/// The SQL of a memory's session key, as [`session_key`] makes it.
const SESSION_KEY: &str =
    "CASE WHEN m.session_id = '' THEN 'file:' || m.file ELSE lower(m.session_id) END";

/// What to search for and how many answers.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// Which memories may match.
    pub filter: RowFilter,
    /// Most sessions answered.
    pub limit: usize,
    /// Group one session's memories under its best one.
    pub group_sessions: bool,
    /// Cut a snippet for each answer (from its file).
    pub snippets: bool,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            filter: RowFilter::default(),
            limit: 20,
            group_sessions: true,
            snippets: true,
        }
    }
}

/// One answer: the best memory of a session (or one memory, ungrouped).
#[derive(Debug, Clone)]
pub struct Hit {
    /// The memory.
    pub row: Row,
    /// Its score (higher is better); only comparable within one search.
    pub score: f64,
    /// How many of the query's terms it matches.
    pub matched: usize,
    /// Where the query's words are in it, marked.
    pub snippet: Option<Snippet>,
    /// The session's other memories that matched, best first (file names).
    pub more_in_session: Vec<String>,
}

/// The answers of a search.
#[derive(Debug, Clone, Default)]
pub struct Results {
    /// The parsed query.
    pub query: Query,
    /// The best answers, best first.
    pub hits: Vec<Hit>,
    /// How many memories matched at all (before grouping and the limit).
    pub total: usize,
    /// Whether `total` is exact: a query with words too common to count them all
    /// everywhere gives a lower bound.
    pub exact: bool,
}

/// Searches the index.
pub fn search(index: &mut Index, typed: &str, opts: &SearchOptions) -> Result<Results, IndexError> {
    let query = Query::parse(typed);
    if query.is_empty() || opts.limit == 0 {
        return Ok(Results {
            query,
            ..Results::default()
        });
    }
    let wanted = if opts.group_sessions { opts.limit } else { 0 };
    // A memory edited in place since it was indexed is indexed again, and the search
    // run again, once: what is shown matches what is on disk.
    let mut ranked = rank(index, &query, &opts.filter, wanted)?;
    let shown = page(&ranked.rows, opts);
    if index.refresh(&shown)? {
        ranked = rank(index, &query, &opts.filter, wanted)?;
    }
    let (total, exact) = (ranked.total, ranked.exact);
    let mut hits = group(ranked.rows, ranked.scores, opts);
    if opts.snippets {
        for h in &mut hits {
            h.snippet = snippet_of(index.dir(), &h.row, &query);
        }
    }
    Ok(Results {
        query,
        hits,
        total,
        exact,
    })
}

struct Ranked {
    /// Best first.
    rows: Vec<Row>,
    /// Per row id: (score, terms matched).
    scores: HashMap<i64, (f64, usize)>,
    total: usize,
    /// Whether `total` is exact (else a lower bound).
    exact: bool,
}

/// Most documents BM25 scores for one search (the sum of the chosen terms' document
/// frequencies). Scoring every memory that holds a common word costs time in
/// proportion to their number; the rarer words of a query are what tells memories
/// apart, so they are chosen first, up to this budget, and the common ones beyond it
/// only count within the newest [`WINDOW`] memories.
const POSTINGS: i64 = 5_000;
/// The newest memories a query of only common words is ranked among.
const WINDOW: i64 = 2_000;

/// A term of the query with its document frequency (an upper bound for a phrase).
struct Weighed<'q> {
    term: &'q super::query::Term,
    df: i64,
}

/// The query's terms and related terms that some memory holds, with their document
/// frequencies.
fn weighed<'q>(
    index: &Index,
    query: &'q Query,
) -> Result<(Vec<Weighed<'q>>, Vec<Weighed<'q>>), IndexError> {
    let weigh = |t| {
        Ok(Weighed {
            term: t,
            df: index.document_frequency(t)?,
        })
    };
    let mut terms: Vec<Weighed<'_>> = query
        .terms
        .iter()
        .map(weigh)
        .collect::<Result<_, IndexError>>()?;
    // A phrase's frequency above is its rarest word's, an upper bound: a phrase of
    // common words (`wombat-1`) that few memories hold would be ranked among the newest
    // only and lose a match its words find. Counted exactly, up to the budget.
    for t in &mut terms {
        if t.df > POSTINGS && t.term.alternatives.iter().any(|a| a.len() > 1) {
            t.df = t.df.min(index.matches_up_to(&t.term.fts(), POSTINGS + 1)?);
        }
    }
    terms.retain(|t| t.df > 0);
    let mut related: Vec<Weighed<'_>> = query
        .related
        .iter()
        .map(weigh)
        .collect::<Result<_, IndexError>>()?;
    related.retain(|t| t.df > 0);
    Ok((terms, related))
}

fn rank(
    index: &Index,
    query: &Query,
    filter: &RowFilter,
    sessions_wanted: usize,
) -> Result<Ranked, IndexError> {
    let (mut terms, mut related) = weighed(index, query)?;
    if terms.is_empty() && related.is_empty() {
        return Ok(Ranked {
            rows: Vec::new(),
            scores: HashMap::new(),
            total: 0,
            exact: true,
        });
    }
    terms.sort_by_key(|t| t.df);
    related.sort_by_key(|t| t.df);
    // The typed words first, rarest first; synonyms with what the budget leaves.
    let mut spent = 0;
    let mut within = |t: &&Weighed<'_>| {
        spent += t.df;
        spent <= POSTINGS
    };
    let chosen: Vec<&Weighed<'_>> = terms.iter().take_while(&mut within).collect();
    let synonyms: Vec<&Weighed<'_>> = if chosen.len() == terms.len() {
        related.iter().filter(&mut within).collect()
    } else {
        Vec::new()
    };
    let ranker = Ranker {
        index,
        filter,
        cut: std::cell::Cell::new(false),
        sessions_wanted,
        keys: Default::default(),
    };
    let fts = |ts: &[&Weighed<'_>]| {
        ts.iter()
            .map(|t| t.term.fts())
            .collect::<Vec<_>>()
            .join(" OR ")
    };
    let (mut candidates, counted) = if chosen.is_empty() && synonyms.is_empty() {
        // Only synonyms were found, all of them common: they stand for the words.
        let words = if terms.is_empty() { &related } else { &terms };
        (ranker.among_the_newest(words)?, Vec::new())
    } else if chosen.is_empty() {
        (Vec::new(), chosen)
    } else {
        (ranker.bm25(&fts(&chosen), None)?, chosen)
    };
    if !synonyms.is_empty() {
        // Scored apart and counted for less than the words typed: a synonym is a
        // guess at what was meant.
        let mut at: HashMap<i64, usize> = candidates
            .iter()
            .enumerate()
            .map(|(i, (id, _))| (*id, i))
            .collect();
        for (id, s) in ranker.bm25(&fts(&synonyms), None)? {
            match at.get(&id) {
                Some(&i) => candidates[i].1 += SYNONYM * s,
                None => {
                    at.insert(id, candidates.len());
                    candidates.push((id, SYNONYM * s));
                }
            }
        }
    }
    // Which of the chosen terms each candidate holds: their whole doclists are within
    // the budget.
    let mut matched: HashMap<i64, usize> = HashMap::new();
    let mut union: HashSet<i64> = HashSet::new();
    for t in &counted {
        for id in ranker.doclist(&t.term.fts())? {
            *matched.entry(id).or_default() += 1;
            union.insert(id);
        }
    }
    // Words side by side, when they are all among the chosen (a phrase of common
    // words would cost what the budget spares).
    let side_by_side = match query.phrase_fts() {
        Some(p) if !counted.is_empty() && counted.len() == terms.len() => ranker.doclist(&p)?,
        _ => HashSet::new(),
    };
    let n = counted.len();
    let mut scores = HashMap::new();
    for (id, bm25) in &candidates {
        let m = matched.get(id).copied().unwrap_or(0);
        // BM25 is negative, better when lower.
        let mut score = -bm25;
        if n > 1 && m == n {
            score *= ALL_TERMS;
        }
        if side_by_side.contains(id) {
            score *= SIDE_BY_SIDE;
        }
        scores.insert(*id, (score, m + terms.len() - n));
    }
    let (total, exact) = count(
        &terms,
        counted.len(),
        &candidates,
        ranker.cut.get(),
        &union,
        filter,
    );
    let ids: Vec<i64> = candidates.iter().map(|(id, _)| *id).collect();
    let mut rows = index.rows_by_id(&ids)?;
    best_first(&mut rows, |r| (scores[&r.id].0, r.order_ns, &r.entry.file));
    Ok(Ranked {
        rows,
        scores,
        total,
        exact,
    })
}

/// How many memories matched: exactly when few do, or from the doclists read (the
/// chosen terms'); else at least as many as hold the commonest term.
fn count(
    terms: &[Weighed<'_>],
    counted: usize,
    candidates: &[(i64, f64)],
    cut: bool,
    union: &HashSet<i64>,
    filter: &RowFilter,
) -> (usize, bool) {
    let commonest = terms.iter().map(|t| t.df).max().unwrap_or(0) as usize;
    if !cut {
        (candidates.len(), true)
    } else if counted == terms.len() && filter_is_empty(filter) {
        (union.len(), true)
    } else {
        let at_least = union.len().max(candidates.len());
        if filter_is_empty(filter) {
            (at_least.max(commonest), terms.len() == 1)
        } else {
            (at_least, false)
        }
    }
}

/// The queries one ranking runs against the index.
struct Ranker<'a> {
    index: &'a Index,
    filter: &'a RowFilter,
    /// Whether some memories that match were left out of the candidates (beyond
    /// [`CANDIDATES`], [`PER_SESSION`] or the window): their count is then not theirs.
    cut: std::cell::Cell<bool>,
    /// How many sessions the answer should be able to show (0: memories, not sessions).
    sessions_wanted: usize,
    /// Each candidate's session key ([`SESSION_KEY`]).
    keys: std::cell::RefCell<HashMap<i64, String>>,
}

impl Ranker<'_> {
    /// The best [`CANDIDATES`] memories for the FTS5 expression `expr` by weighted BM25
    /// (negative: lower is better), among the filter's, and only rows from `since` on.
    fn bm25(&self, expr: &str, since: Option<i64>) -> Result<Vec<(i64, f64)>, IndexError> {
        let weights: Vec<String> = Field::ALL
            .iter()
            .map(|f| format!("{:.2}", f.weight()))
            .collect();
        let (cond, mut args) = self.filter.sql();
        args.push(expr.to_string().into());
        let match_arg = args.len();
        let window = match since {
            Some(cutoff) => {
                args.push(cutoff.into());
                format!("AND t.rowid >= ?{}", args.len())
            }
            None => String::new(),
        };
        let sqlite = |e| sqlite_error(self.index, e);
        let matches = format!(
            "SELECT t.rowid AS id, bm25(memory_text, {}) AS s, {SESSION_KEY} AS k
             FROM memory_text t JOIN memories m ON m.id = t.rowid
             WHERE memory_text MATCH ?{match_arg} {window} AND {cond}",
            weights.join(", ")
        );
        let run = |sql: &str| -> Result<Vec<(i64, f64, String)>, IndexError> {
            let mut st = self.index.conn.prepare(sql).map_err(sqlite)?;
            st.query_map(rusqlite::params_from_iter(args.iter()), |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .and_then(Iterator::collect)
            .map_err(sqlite)
        };
        let mut rows = run(&format!("{matches} ORDER BY s LIMIT {CANDIDATES}"))?;
        if rows.len() >= CANDIDATES {
            self.cut.set(true);
            let sessions: HashSet<&str> = rows.iter().map(|r| r.2.as_str()).collect();
            if sessions.len() < self.sessions_wanted {
                // A few sessions fill the candidates (one with thousands of memories
                // that all match): the best [`PER_SESSION`] of each, then the best of
                // those, so that the others that match are ranked too.
                rows = run(&format!(
                    "SELECT id, s, k FROM (
                         SELECT id, s, k,
                             row_number() OVER (PARTITION BY k ORDER BY s, id DESC) AS n
                         FROM ({matches}))
                     WHERE n <= {PER_SESSION} ORDER BY s LIMIT {CANDIDATES}"
                ))?;
            }
        }
        let mut keys = self.keys.borrow_mut();
        Ok(rows
            .into_iter()
            .map(|(id, s, k)| {
                keys.insert(id, k);
                (id, s)
            })
            .collect())
    }

    /// Every memory matching `expr`.
    fn doclist(&self, expr: &str) -> Result<HashSet<i64>, IndexError> {
        let sqlite = |e| sqlite_error(self.index, e);
        let mut st = self
            .index
            .conn
            .prepare("SELECT rowid FROM memory_text WHERE memory_text MATCH ?1")
            .map_err(sqlite)?;
        st.query_map([expr], |r| r.get(0))
            .and_then(Iterator::collect)
            .map_err(sqlite)
    }

    /// When every word is common: the candidates among the newest [`WINDOW`] memories,
    /// those with all the words first.
    fn among_the_newest(&self, terms: &[Weighed<'_>]) -> Result<Vec<(i64, f64)>, IndexError> {
        // Only the window is ranked: the other matches are not candidates.
        self.cut.set(true);
        let cutoff: i64 = self
            .index
            .conn
            .query_row(
                "SELECT id FROM memories ORDER BY id DESC LIMIT 1 OFFSET ?1",
                [WINDOW - 1],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| sqlite_error(self.index, e))?
            .unwrap_or(i64::MIN);
        let all: Vec<String> = terms.iter().map(|t| t.term.fts()).collect();
        let mut found = self.bm25(&all.join(" AND "), Some(cutoff))?;
        if found.len() < CANDIDATES {
            let seen: HashSet<i64> = found.iter().map(|(id, _)| *id).collect();
            // Below every row that has them all.
            let floor = found.iter().map(|(_, s)| *s).fold(0.0, f64::max);
            found.extend(
                self.bm25(&all.join(" OR "), Some(cutoff))?
                    .into_iter()
                    .filter(|(id, _)| !seen.contains(id))
                    .map(|(id, s)| (id, s.max(floor) + f64::EPSILON)),
            );
        }
        // Sessions the window did not reach (one session's memories can fill it): the
        // newest match of each, below everything found in the window.
        let seen: HashSet<String> = {
            let keys = self.keys.borrow();
            found
                .iter()
                .filter_map(|(id, _)| keys.get(id).cloned())
                .collect()
        };
        if seen.len() >= self.sessions_wanted {
            return Ok(found);
        }
        let floor = found.iter().map(|(_, s)| *s).fold(0.0, f64::max);
        let older = self.sessions_below(&all.join(" OR "), cutoff, seen)?;
        found.extend(
            older
                .into_iter()
                .enumerate()
                .map(|(i, id)| (id, floor + 1e-9 * (i + 1) as f64)),
        );
        Ok(found)
    }

    /// The newest match of `expr`, below rowid `cutoff`, of each session not `seen`: at
    /// most [`CANDIDATES`] sessions, reading at most [`BELOW_WINDOW`] rows.
    fn sessions_below(
        &self,
        expr: &str,
        cutoff: i64,
        mut seen: HashSet<String>,
    ) -> Result<Vec<i64>, IndexError> {
        if cutoff == i64::MIN {
            return Ok(Vec::new());
        }
        let sqlite = |e| sqlite_error(self.index, e);
        let (cond, mut args) = self.filter.sql();
        args.push(expr.to_string().into());
        let match_arg = args.len();
        args.push(cutoff.into());
        let cutoff_arg = args.len();
        // Each older row's session in turn; the walk runs in SQLite, down the rowids.
        let sql = format!(
            "SELECT t.rowid, {SESSION_KEY} FROM memory_text t JOIN memories m ON m.id = t.rowid
             WHERE memory_text MATCH ?{match_arg} AND t.rowid < ?{cutoff_arg} AND {cond}
             ORDER BY t.rowid DESC LIMIT {BELOW_WINDOW}"
        );
        let mut st = self.index.conn.prepare(&sql).map_err(sqlite)?;
        let mut rows = st
            .query(rusqlite::params_from_iter(args.iter()))
            .map_err(sqlite)?;
        let mut older = Vec::new();
        while let Some(r) = rows.next().map_err(sqlite)? {
            let key: String = r.get(1).map_err(sqlite)?;
            if seen.insert(key) {
                older.push(r.get(0).map_err(sqlite)?);
                if older.len() >= CANDIDATES {
                    break;
                }
            }
        }
        Ok(older)
    }
}

/// Sorts `items` best first by `key` (score, order, name): scores within the same
/// step of [`TIE`] of the best one are a tie (two memories that say the same thing in a
/// few more words: BM25 divides by the length of the whole memory), which the newer
/// memory wins.
pub fn best_first<T>(items: &mut [T], key: impl Fn(&T) -> (f64, i64, &str)) {
    let top = items
        .iter()
        .map(|i| key(i).0)
        .fold(0.0, f64::max)
        .max(1e-12);
    let tier = |score: f64| ((top - score) / (TIE * top)).floor() as i64;
    items.sort_by(|a, b| {
        let (sa, oa, na) = key(a);
        let (sb, ob, nb) = key(b);
        tier(sa)
            .cmp(&tier(sb))
            .then(ob.cmp(&oa))
            .then_with(|| nb.cmp(na))
    });
}

/// The step, as a share of the best score, within which two scores are a tie that the
/// newer memory wins. A tenth made a newer session that matched a little worse win over
/// the one asked about (two dev questions of the retrieval benchmark, and more held-out
/// ones); 0.02 still ties a memory saved again with a few more words.
const TIE: f64 = 0.02;

/// What a synonym's BM25 counts for, beside a typed word's. On the retrieval
/// benchmark's dev questions 0.3 ranked best (0.15 and 0.5 lower); counted as much as a
/// typed word (1.0), synonyms ranked worse than none.
const SYNONYM: f64 = 0.3;

/// A memory with every chosen term ranks this much higher.
const ALL_TERMS: f64 = 1.1;
/// A memory with the query's words side by side ranks this much higher.
const SIDE_BY_SIDE: f64 = 1.2;

fn filter_is_empty(f: &RowFilter) -> bool {
    f.sql().1.is_empty() && !f.open_tasks
}

fn sqlite_error(index: &Index, source: rusqlite::Error) -> IndexError {
    IndexError::Sqlite {
        path: index.path().to_path_buf(),
        source,
    }
}

/// The rows the first page shows, as [`group`] would pick them.
fn page(rows: &[Row], opts: &SearchOptions) -> Vec<Row> {
    let mut seen = HashSet::new();
    rows.iter()
        .filter(|r| !opts.group_sessions || seen.insert(session_key(r)))
        .take(opts.limit)
        .cloned()
        .collect()
}

/// One hit per session (the best of its memories, the others named), best first, at
/// most `limit`.
fn group(rows: Vec<Row>, scores: HashMap<i64, (f64, usize)>, opts: &SearchOptions) -> Vec<Hit> {
    let mut hits: Vec<Hit> = Vec::new();
    let mut by_session: HashMap<String, usize> = HashMap::new();
    for row in rows {
        let (score, matched) = scores.get(&row.id).copied().unwrap_or((0.0, 0));
        if opts.group_sessions {
            let key = session_key(&row);
            if let Some(&i) = by_session.get(&key) {
                hits[i].more_in_session.push(row.entry.file.clone());
                continue;
            }
            by_session.insert(key, hits.len());
        }
        hits.push(Hit {
            row,
            score,
            matched,
            snippet: None,
            more_in_session: Vec::new(),
        });
    }
    hits.truncate(opts.limit);
    hits
}

/// What groups memories as one session: its id, or the file for a memory without one.
fn session_key(row: &Row) -> String {
    if row.entry.session_id.is_empty() {
        format!("file:{}", row.entry.file)
    } else {
        row.entry.session_id.to_lowercase()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(items: &[(f64, i64, &'static str)]) -> Vec<&'static str> {
        let mut v = items.to_vec();
        best_first(&mut v, |i| (i.0, i.1, i.2));
        v.into_iter().map(|i| i.2).collect()
    }

    #[test]
    fn a_near_tie_goes_to_the_newer_memory() {
        // 1 % apart: the same thing said in a few more words; the newer goes first.
        assert_eq!(order(&[(10.0, 1, "old"), (9.9, 2, "new")]), ["new", "old"]);
    }

    #[test]
    fn a_clearly_better_older_memory_stays_first() {
        // 5 % apart is a better match, not a tie (a tenth was, and ranked the session
        // asked about below a newer one that matched less).
        assert_eq!(order(&[(10.0, 1, "old"), (9.5, 2, "new")]), ["old", "new"]);
        assert_eq!(
            order(&[(3.0, 5, "c"), (10.0, 1, "a"), (7.0, 9, "b")]),
            ["a", "b", "c"]
        );
    }

    #[test]
    fn the_reply_counts_less_than_what_the_memory_is_about() {
        assert!(Field::Body.weight() < Field::Summary.weight());
        assert!(Field::Body.weight() < Field::Requests.weight());
        assert!(Field::ALL.iter().all(|f| f.weight() > 0.0));
    }
}
