//! Words developers use for the same thing: a question asked a week later rarely uses
//! the session's own words ("tint" for "colour", "boot" for "start", "chart" for
//! "graph"). A small general thesaurus of programming and everyday-English synonyms;
//! each word of a group finds the others, as an alternative of the same query term
//! (docs/design.md §7.10). Kept to words whose senses in a coding session are the same:
//! a group that would join unrelated senses ("run" a test, "run" of characters) is left
//! out, since a wrong synonym ranks wrong memories first.

/// Groups of words that stand for one another. Lower case, one word or a phrase each;
/// the index stems them (Porter), so one form of a word is enough.
const GROUPS: &[&[&str]] = &[
    // Changing code.
    &["remove", "delete", "drop", "strip", "get rid of"],
    &["fix", "repair", "resolve", "patch"],
    &["rename", "renaming"],
    &["refactor", "restructure", "reorganize", "reorganise"],
    &["rewrite", "redo", "reimplement"],
    &["migrate", "migration", "port", "convert"],
    &["upgrade", "update", "bump"],
    &["split", "break up", "divide", "extract"],
    &["merge", "combine", "join"],
    &["revert", "undo", "roll back", "rollback"],
    // What went wrong.
    &["bug", "defect", "regression"],
    &["error", "exception", "traceback", "stack trace"],
    &["crash", "panic", "segfault"],
    &["fail", "failing", "broken", "red"],
    &["slow", "sluggish", "laggy"],
    &["hang", "freeze", "stuck"],
    &["warning", "warn"],
    &["deprecated", "outdated", "obsolete", "legacy"],
    // Checking code.
    &["test", "spec", "unit test"],
    &["lint", "linter", "linting", "style check"],
    &["format", "formatter", "formatting", "prettier"],
    &["typecheck", "type check", "type checker", "mypy", "pyright"],
    &["benchmark", "bench", "perf test"],
    &["coverage", "covered"],
    // Building and shipping.
    &["ci", "pipeline", "github actions", "workflow"],
    &["deploy", "deployment", "ship", "release", "rollout"],
    &["build", "compile", "compilation"],
    &["dependency", "package", "library", "crate"],
    &["install", "setup", "set up"],
    &["container", "docker"],
    &["environment variable", "env var"],
    // Running things.
    &["start", "launch", "boot", "startup", "spin up"],
    &["stop", "halt", "kill", "terminate"],
    &["cancel", "abort", "interrupt"],
    &["retry", "retries", "backoff"],
    &["timeout", "time out", "deadline"],
    &["schedule", "cron", "scheduled"],
    &["concurrent", "parallel", "concurrency"],
    // Where things live.
    &["config", "settings", "preferences", "options"],
    &["folder", "directory"],
    &["repo", "repository", "codebase"],
    &["submodule", "subproject", "sub project"],
    &["database", "sqlite", "postgres", "mysql", "sql"],
    &["cache", "cached", "caching", "memoize"],
    &["log", "logs", "logging", "logger"],
    &["docs", "documentation", "readme", "guide"],
    &["screenshot", "screen capture", "image"],
    &["secret", "credential", "api key", "token"],
    &["login", "log in", "sign in", "authentication"],
    &[
        "permission",
        "permissions",
        "denied",
        "not allowed",
        "refused",
    ],
    // The web and user interfaces.
    &["page", "webpage", "web page", "website", "site", "html"],
    &["browser", "chrome", "chromium", "firefox", "safari"],
    &["ui", "interface", "frontend", "front end"],
    &["backend", "back end", "server side"],
    &["button", "link"],
    &["dialog", "modal", "popup", "pop up"],
    &["tooltip", "hover"],
    &["dropdown", "select", "menu"],
    &[
        "chart",
        "graph",
        "plot",
        "diagram",
        "visualization",
        "visualisation",
    ],
    &["timeline", "chronological"],
    &["color", "colour", "tint", "hue", "shade"],
    &["spacing", "space", "margin", "padding", "gap"],
    &["hide", "hidden", "collapse", "collapsed", "conceal"],
    &["show", "display", "render", "visible"],
    &["truncate", "truncation", "clip", "cut off", "shorten"],
    &["font", "typeface"],
    &["dark mode", "dark theme"],
    &["terminal", "console", "shell", "tui"],
    // Data.
    &["json", "jsonl"],
    &["timestamp", "time field", "date", "datetime"],
    &["id", "identifier", "uuid"],
    &["archive", "zip", "tarball", "bundle"],
    &["parse", "parser", "parsing"],
    &["scrape", "scraper", "crawl", "crawler"],
    &["search", "find", "lookup", "look up", "query"],
    &["sort", "order", "ordering"],
    &["filter", "filtering"],
    &["summary", "summarize", "summarise", "digest", "overview"],
    &["comment", "annotation", "annotate", "remark", "note"],
    &["trace", "tracing", "telemetry", "opentelemetry", "otel"],
    &["metric", "metrics", "stats", "statistics"],
    &["audio", "sound", "voice", "microphone", "recording"],
    &["video", "movie", "clip"],
    // Agents and models.
    &["model", "llm", "claude", "gpt"],
    &["agent", "subagent", "sub agent"],
    &["prompt", "instruction"],
    &["hook", "callback", "handler"],
];

/// The other words of `word`'s groups (not `word` itself), in the table's order. A
/// plural or a verb's `-ed` / `-ing` form finds the groups of its plain form.
pub fn synonyms(word: &str) -> impl Iterator<Item = &'static str> + '_ {
    let plain = base_form(word);
    GROUPS
        .iter()
        .filter(move |g| g.contains(&plain))
        .flat_map(|g| g.iter().copied())
        .filter(move |w| *w != word && *w != plain)
}

/// `word`, or the form of it the groups hold: `fails` → `fail`, `crashed` → `crash`;
/// `retries` stays (a group holds it).
fn base_form(word: &str) -> &str {
    let known = |w: &str| GROUPS.iter().any(|g| g.contains(&w));
    if known(word) {
        return word;
    }
    ["s", "es", "ed", "d", "ing"]
        .iter()
        .filter_map(|suffix| word.strip_suffix(suffix))
        .find(|w| w.len() >= 3 && known(w))
        .unwrap_or(word)
}

/// When `words` starts with a phrase of a group (two or more words): how many words it
/// takes, and the phrase.
pub fn phrase_at(words: &[String]) -> Option<(usize, &'static str)> {
    GROUPS
        .iter()
        .flat_map(|g| g.iter())
        .find_map(|phrase| phrase_len_at(words, phrase).map(|n| (n, *phrase)))
}

/// How many of `words` the phrase of two or more words `phrase` takes when `words`
/// starts with it (punctuation around a typed word ignored).
pub(super) fn phrase_len_at(words: &[String], phrase: &str) -> Option<usize> {
    let parts: Vec<&str> = phrase.split(' ').collect();
    (parts.len() > 1
        && words.len() >= parts.len()
        && parts
            .iter()
            .zip(words)
            .all(|(p, w)| w.trim_matches(|c: char| !c.is_alphanumeric()) == *p))
    .then_some(parts.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_finds_its_group() {
        let s: Vec<&str> = synonyms("tint").collect();
        assert!(s.contains(&"color") && s.contains(&"colour"), "{s:?}");
        assert!(!s.contains(&"tint"));
        assert_eq!(synonyms("xylophone").count(), 0);
        let s: Vec<&str> = synonyms("crashed").collect();
        assert!(s.contains(&"panic") && !s.contains(&"crash"), "{s:?}");
    }

    #[test]
    fn a_phrase_is_found_at_the_start() {
        let words: Vec<String> = ["get", "rid", "of", "it"].map(String::from).to_vec();
        assert_eq!(phrase_at(&words), Some((3, "get rid of")));
        assert_eq!(phrase_at(&words[1..]), None);
    }

    #[test]
    fn the_groups_are_lower_case_and_trimmed() {
        for g in GROUPS {
            assert!(g.len() >= 2, "{g:?}");
            for w in *g {
                assert_eq!(*w, w.trim().to_lowercase(), "{w:?}");
            }
        }
    }
}
