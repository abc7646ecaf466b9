//! Ranking a search (docs/design.md §7.10): BM25 over the weighted fields finds the
//! candidates; a memory that matches more of the query's terms, or its words side by
//! side, moves up; ties go to the newer memory; one session's memories are grouped so
//! that one long session does not fill the page.

use std::collections::{HashMap, HashSet};

use super::fields::Field;
use super::index::{Index, IndexError, Row, RowFilter};
use super::query::Query;
use super::snippet::{Snippet, snippet_of};

/// Candidates ranked by BM25 before the finer ranking: enough that the memory with most
/// of the terms is among them however common one of the terms is.
const CANDIDATES: usize = 300;

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
    // A memory edited in place since it was indexed is indexed again, and the search
    // run again, once: what is shown matches what is on disk.
    let mut ranked = rank(index, &query, &opts.filter)?;
    let shown = page(&ranked.rows, opts);
    if index.refresh(&shown)? {
        ranked = rank(index, &query, &opts.filter)?;
    }
    let total = ranked.total;
    let mut hits = group(ranked.rows, ranked.scores, opts);
    if opts.snippets {
        for h in &mut hits {
            h.snippet = snippet_of(index.dir(), &h.row, &query);
        }
    }
    Ok(Results { query, hits, total })
}

struct Ranked {
    /// Best first.
    rows: Vec<Row>,
    /// Per row id: (score, terms matched).
    scores: HashMap<i64, (f64, usize)>,
    total: usize,
}

fn rank(index: &Index, query: &Query, filter: &RowFilter) -> Result<Ranked, IndexError> {
    let (cond, mut args) = filter.sql();
    let weights: Vec<String> = Field::ALL
        .iter()
        .map(|f| format!("{:.1}", f.weight()))
        .collect();
    args.push(query.any().into());
    let match_arg = args.len();
    let sql = format!(
        "SELECT t.rowid, bm25(memory_text, {}) AS s FROM memory_text t
         JOIN memories m ON m.id = t.rowid
         WHERE memory_text MATCH ?{match_arg} AND {cond}
         ORDER BY s LIMIT {CANDIDATES}",
        weights.join(", ")
    );
    let conn = &index.conn;
    let sqlite = |e| sqlite_error(index, e);
    let candidates: Vec<(i64, f64)> = {
        let mut st = conn.prepare(&sql).map_err(sqlite)?;
        st.query_map(rusqlite::params_from_iter(args.iter()), |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .and_then(Iterator::collect)
        .map_err(sqlite)?
    };
    let total: usize = if candidates.len() < CANDIDATES {
        candidates.len()
    } else {
        let sql = format!(
            "SELECT count(*) FROM memory_text t JOIN memories m ON m.id = t.rowid
             WHERE memory_text MATCH ?{match_arg} AND {cond}"
        );
        conn.query_row(&sql, rusqlite::params_from_iter(args.iter()), |r| {
            r.get::<_, i64>(0)
        })
        .map_err(sqlite)? as usize
    };
    if candidates.is_empty() {
        return Ok(Ranked {
            rows: Vec::new(),
            scores: HashMap::new(),
            total,
        });
    }
    let ids: Vec<i64> = candidates.iter().map(|(id, _)| *id).collect();
    let ids_json = serde_json::to_string(&ids).unwrap_or_else(|_| "[]".into());
    let among = |expr: &str| -> Result<HashSet<i64>, IndexError> {
        let mut st = conn
            .prepare(
                "SELECT rowid FROM memory_text WHERE memory_text MATCH ?1
                 AND rowid IN (SELECT value FROM json_each(?2))",
            )
            .map_err(sqlite)?;
        st.query_map(rusqlite::params![expr, ids_json], |r| r.get(0))
            .and_then(Iterator::collect)
            .map_err(sqlite)
    };
    let mut matched: HashMap<i64, usize> = HashMap::new();
    if query.terms.len() > 1 {
        for term in &query.terms {
            for id in among(&term.fts())? {
                *matched.entry(id).or_default() += 1;
            }
        }
    }
    let side_by_side = match query.phrase_fts() {
        Some(p) => among(&p)?,
        None => HashSet::new(),
    };
    let n = query.terms.len();
    let mut scores = HashMap::new();
    for (id, bm25) in &candidates {
        let m = if n > 1 {
            matched.get(id).copied().unwrap_or(1)
        } else {
            1
        };
        let coverage = m as f64 / n as f64;
        // BM25 is negative, better when lower.
        let mut score = -bm25 * (1.0 + 2.0 * coverage * coverage);
        if n > 1 && m == n {
            score *= 1.5;
        }
        if side_by_side.contains(id) {
            score *= 1.5;
        }
        scores.insert(*id, (score, m));
    }
    let mut rows = index.rows_by_id(&ids)?;
    rows.sort_by(|a, b| {
        let (sa, sb) = (scores[&a.id].0, scores[&b.id].0);
        sb.total_cmp(&sa)
            .then(b.order_ns.cmp(&a.order_ns))
            .then_with(|| b.entry.file.cmp(&a.entry.file))
    });
    Ok(Ranked {
        rows,
        scores,
        total,
    })
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
