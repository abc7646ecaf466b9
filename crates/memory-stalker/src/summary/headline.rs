//! The headline of a memory (docs/design.md §5.9): what the session did, in one line of
//! at most 100 characters cut at a word's end.
//!
//! The best source that has something to say wins: Claude Code's own title of the
//! session; the headline of the session's previous memory (its model's, when a model
//! wrote it), kept so the headline stays put across compactions unless the work changed
//! (a new plan approved); the approved plan's title (not a generic one, "Refactoring
//! Plan"); the first request of the segment that names a task, without its politeness
//! preamble, escapes and the pasted text after it, where "fix these" takes its object
//! from the bash-mode command or pasted log it points at; the first task list's first
//! task; Claude Code's compaction summary's account of the request. Never a claim of
//! the assistant's.

use crate::lang::Lang;
use crate::summary::signals::{BashContext, IssueTitle, PlanOutcome, Refusal, RefusedBy};
use crate::text::{clip_words, one_line};
use crate::transcript::{Extraction, TodoList, is_continuation};

/// Longest headline, in characters.
pub const MAX: usize = 100;

/// Where a headline may come from.
#[derive(Debug, Default)]
pub struct Sources<'a> {
    /// Claude Code's title of the session.
    pub title: Option<&'a str>,
    /// The headline of the session's previous memory.
    pub previous: Option<&'a str>,
    /// The plans of the segment, approved or refused.
    pub plans: &'a [PlanOutcome],
    /// The title of the plan the extraction found (it may predate the segment).
    pub plan_title: Option<String>,
    /// The segment's requests, oldest first.
    pub requests: &'a [String],
    /// The request a continuation carries on.
    pub request: Option<&'a str>,
    /// The last prompt.
    pub last_prompt: Option<&'a str>,
    /// The bash-mode commands of the segment (what "fix these" points at).
    pub bash: &'a [BashContext],
    /// The segment's first task list.
    pub first_tasks: Option<&'a TodoList>,
    /// Claude Code's compaction summary at the start of the segment.
    pub compaction_summary: Option<&'a str>,
    /// Calls refused or denied in the segment (what came of a bare `/init`).
    pub refusals: &'a [Refusal],
    /// The files the segment changed.
    pub modified: &'a [String],
    /// Issues the segment looked up in a tracker, with their titles.
    pub issues: &'a [IssueTitle],
}

impl<'a> Sources<'a> {
    /// The sources an extraction gives (no previous memory, no signals).
    pub fn of(ex: &'a Extraction, requests: &'a [String]) -> Sources<'a> {
        Sources {
            title: ex.title.as_deref(),
            plan_title: ex.plan.as_ref().and_then(|p| plan_title_of(&p.text)),
            requests,
            request: ex.request.as_ref().map(|r| r.text.as_str()),
            last_prompt: ex.last_prompt.as_ref().map(|p| p.text.as_str()),
            modified: &ex.files.modified,
            ..Sources::default()
        }
    }
}

/// The headline from the best source there is.
pub fn headline(s: &Sources, lang: Lang) -> String {
    let approved: Vec<&str> = s
        .plans
        .iter()
        .filter_map(|p| match p {
            PlanOutcome::Approved { title, .. } => Some(title.as_str()),
            PlanOutcome::Refused { .. } => None,
        })
        .collect();
    // The first plan approved is the work; later ones are its follow-ups. A generic
    // title ("Refactoring Plan") says less than the request.
    let first_plan = approved.first().copied().filter(|t| !is_generic_plan(t));
    let last_plan = approved.last().copied().filter(|t| !is_generic_plan(t));
    let chosen = s
        .title
        .map(str::to_string)
        // The work changed when a new plan was approved; otherwise the headline the
        // session already has stays.
        .or_else(|| {
            last_plan
                .map(str::to_string)
                .filter(|_| s.previous.is_some())
        })
        .or_else(|| s.previous.map(str::to_string))
        .or_else(|| first_plan.map(str::to_string))
        .or_else(|| {
            s.plan_title
                .clone()
                .filter(|t| approved.is_empty() && !t.is_empty())
                .filter(|t| !t.starts_with("(plan kept") && !is_generic_plan(t))
        })
        .or_else(|| {
            first_request(s).map(|r| match bare_command(r) {
                Some(cmd) => what_came_of(cmd, s),
                None => with_issue_title(from_request(r, s.bash), s.issues),
            })
        })
        .or_else(|| {
            s.first_tasks
                .and_then(|t| t.items.first())
                .map(|t| t.content.clone())
        })
        .or_else(|| s.compaction_summary.and_then(summary_request))
        .or_else(|| s.last_prompt.map(|p| from_request(p, s.bash)))
        .filter(|h| !h.trim().is_empty());
    match chosen {
        Some(h) => clip_words(&without_bold(&h), MAX),
        None => match lang {
            Lang::En => "Session without a user request in this segment".into(),
            Lang::Zh => "本段会话没有用户请求".into(),
        },
    }
}

/// A plan's title as the signals give it ("Plan:" and heading marks left out).
fn plan_title_of(text: &str) -> Option<String> {
    crate::summary::signals::plan_title(text)
}

/// The first request of the segment that names a task (a bare command like `/init`
/// only when nothing else does), else the request carried on.
fn first_request<'a>(s: &Sources<'a>) -> Option<&'a str> {
    let substantive = |r: &&str| !is_continuation(r);
    let bare_command = |r: &&str| r.starts_with('/') && !r.trim().contains(char::is_whitespace);
    let tasks: Vec<&str> = s
        .requests
        .iter()
        .map(String::as_str)
        .filter(substantive)
        .filter(|r| !bare_command(r))
        .collect();
    // A first request that only asks to look or explain, followed soon by one that asks
    // for a change: the change is what the session did.
    let first = match tasks.first() {
        Some(first) if is_exploration(first) => tasks
            .iter()
            .take(3)
            .find(|r| !is_exploration(r))
            .or(Some(first))
            .copied(),
        other => other.copied(),
    };
    first
        .or(s.request)
        .or_else(|| s.requests.iter().map(String::as_str).find(substantive))
}

/// A short request that names an issue by its id alone ("Work on bead spotter-a0y.")
/// with the title the tracker gave it in the session: "Work on bead spotter-a0y: Live
/// session status with tail workers".
fn with_issue_title(headline: String, issues: &[IssueTitle]) -> String {
    let words: Vec<&str> = headline.split_whitespace().collect();
    let named = issues.iter().find(|i| {
        words
            .iter()
            .any(|w| w.trim_end_matches(['.', ',', '!', ':', ';']) == i.id)
    });
    match named {
        Some(issue) if words.len() <= 8 && !headline.contains(&issue.title) => fit(&format!(
            "{}: {}",
            headline.trim_end_matches(['.', '!', ':']),
            issue.title
        )),
        _ => headline,
    }
}

/// The command of a request that is a slash command alone (`/init`).
fn bare_command(request: &str) -> Option<&str> {
    let r = request.trim();
    (r.starts_with('/') && !r.contains(char::is_whitespace)).then_some(r)
}

/// A bare command with what came of it: the file it changed first, or the change that
/// was not allowed (`/init: Write CLAUDE.md was denied by the permission settings`).
fn what_came_of(cmd: &str, s: &Sources) -> String {
    let stopped = s
        .refusals
        .iter()
        .find(|r| matches!(&*r.tool, "Write" | "Edit" | "MultiEdit" | "NotebookEdit"));
    match (stopped, s.modified.first()) {
        (Some(r), None) => {
            let by = match r.by {
                RefusedBy::User => "was refused",
                RefusedBy::Permissions => "was denied by the permission settings",
                RefusedBy::Unavailable => "could not run",
            };
            let file = r.summary.rsplit('/').next().unwrap_or(&r.summary);
            format!("{cmd}: {} {file} {by}", r.tool)
        }
        (_, Some(file)) => format!("{cmd}: changed {file}"),
        (None, None) => cmd.to_string(),
    }
}

/// Whether a request only asks to look, read or explain, and for no change.
fn is_exploration(request: &str) -> bool {
    const LOOK: [&str; 14] = [
        "explain",
        "describe",
        "tell me",
        "show me",
        "what",
        "how",
        "why",
        "where",
        "have a look",
        "look at",
        "take a look",
        "read",
        "investigate",
        "analyze",
    ];
    const CHANGE: [&str; 22] = [
        "fix",
        "add",
        "implement",
        "replace",
        "update",
        "change",
        "create",
        "remove",
        "refactor",
        "write",
        "make",
        "rename",
        "migrate",
        "convert",
        "build",
        "set up",
        "setup",
        "port",
        "delete",
        "move",
        "improve",
        "upgrade",
    ];
    let lower = strip_preamble(request).to_lowercase();
    LOOK.iter().any(|w| lower.starts_with(w))
        && !CHANGE.iter().any(|w| crate::text::has_words(&lower, w))
}

/// Whether a plan's title says nothing of its own ("Refactoring Plan", "Implementation
/// Plan", "Phase 2").
fn is_generic_plan(title: &str) -> bool {
    const GENERIC: [&str; 28] = [
        "plan",
        "plans",
        "refactoring",
        "refactor",
        "implementation",
        "implement",
        "proposed",
        "proposal",
        "phase",
        "overview",
        "approach",
        "changes",
        "change",
        "update",
        "updates",
        "fix",
        "fixes",
        "the",
        "a",
        "an",
        "to",
        "for",
        "of",
        "and",
        "summary",
        "analysis",
        "steps",
        "work",
    ];
    title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .all(|w| GENERIC.contains(&w.to_lowercase().as_str()))
}

/// Openings that ask politely or set the scene, before what is asked.
const PREAMBLES: [&str; 39] = [
    "hey claude",
    "hi claude",
    "hello claude",
    "hey",
    "hi",
    "hello",
    "ok so",
    "okay so",
    "ok",
    "okay",
    "so",
    "alright",
    "fair enough",
    "now",
    "yes",
    "also",
    "and",
    "but",
    "i'd like to ask you to",
    "i would like to ask you to",
    "i'd like to",
    "can you please",
    "could you please",
    "would you please",
    "can you",
    "could you",
    "would you mind",
    "would you",
    "will you",
    "please",
    "i'd like you to",
    "i would like you to",
    "i want you to",
    "i need you to",
    "i'd like your help with",
    "i would like your help with",
    "help me",
    "let's",
    "lets",
];

/// A request as a headline: its slash command's arguments, its first sentence that
/// asks for something, without preamble and escapes; a deictic request with its object.
fn from_request(request: &str, bash: &[BashContext]) -> String {
    let text = request.replace("\\\n", "\n").replace("\\\r\n", "\n");
    let text = without_markers(&text);
    let text = command_args(&text).unwrap_or(&text);
    // The typed part: what comes before a pasted block.
    let typed = text.split("\n\n").next().unwrap_or(text);
    let sentences: Vec<String> = split_sentences(typed)
        .iter()
        .map(|s| strip_preamble(s))
        .collect();
    let at = sentences.iter().position(|s| !is_scene_setting(s));
    // "read CLAUDE.md and the plan. There is one CI test that keeps failing. …": what
    // follows the reading says what the request is about.
    let at = match at {
        Some(i) if is_exploration(&sentences[i]) => sentences
            .iter()
            .enumerate()
            .skip(i + 1)
            .take(3)
            .find(|(_, s)| {
                !is_scene_setting(s) && !is_exploration(s) && s.split_whitespace().count() >= 4
            })
            .map_or(Some(i), |(j, _)| Some(j)),
        other => other,
    };
    let mut chosen = at.map_or_else(|| strip_preamble(typed), |i| sentences[i].clone());
    chosen = chosen.trim_end_matches(['?', '？']).trim().to_string();
    // A short request that points at something ("Can you please update these tests?")
    // is said more fully by the sentence after it.
    let vague = {
        let words = words_of(&chosen);
        words.len() <= 3 || (words.len() <= 6 && words.iter().any(|w| is_deictic(w)))
    };
    let next = at
        .and_then(|i| sentences.get(i + 1))
        .filter(|n| vague && !is_scene_setting(n));
    // What the user typed keeps its case ("mix phx.server …"); what follows a removed
    // preamble starts a sentence.
    let typed_start = at
        .and_then(|i| split_sentences(typed).get(i).cloned())
        .is_some_and(|orig| orig.trim_start().starts_with(chosen.as_str()));
    let chosen = if typed_start {
        chosen
    } else {
        capitalize(&chosen)
    };
    // A vague sentence before a lead-in ("Very thorough exploration. I need to
    // understand:"): the lead-in and its first item say more.
    let (chosen, next) = match next {
        Some(n) if n.trim_end().ends_with(':') => (n.trim().to_string(), None),
        other => (chosen, other),
    };
    if let Some(next) = next {
        return fit(&format!(
            "{}: {}",
            chosen.trim_end_matches(['.', '!', ':']),
            next.trim_end_matches(['.', '?'])
        ));
    }
    // A lead-in ("I need to understand:", "Investigate two issues in x.py:") says what
    // it is about with the first item it introduces; a long one says it alone.
    if let Some(lead) = chosen.trim_end().strip_suffix(':') {
        let item = (lead.split_whitespace().count() <= LEAD_IN_WORDS)
            .then(|| first_item_after(text, lead))
            .flatten();
        return fit(&match item {
            Some(item) => format!("{}: {}", lead.trim_end(), item),
            None => lead.trim_end().to_string(),
        });
    }
    match deictic_object(request, &chosen, bash) {
        Some(object) => fit(&format!("{chosen} ({object})")),
        None => fit(&chosen),
    }
}

/// `text` without Markdown's bold marks (`**alice**` → `alice`), when they pair up: a
/// headline is plain text in a table, a front matter and a quote.
fn without_bold(text: &str) -> String {
    if text.matches("**").count().is_multiple_of(2) {
        text.replace("**", "")
    } else {
        text.to_string()
    }
}

/// Most words of a lead-in that is completed by the first item it introduces.
const LEAD_IN_WORDS: usize = 8;

/// The first line after `lead` in `text` that says something, without its list marker
/// ([`super::markdown::item_text`]) and bold marks: the first item a lead-in introduces.
fn first_item_after(text: &str, lead: &str) -> Option<String> {
    let at = text.find(lead)? + lead.len();
    let rest = text[at..].trim_start_matches(':');
    rest.lines().map(str::trim).find_map(|line| {
        let line = super::markdown::item_text(line).replace("**", "");
        let line = line.trim().trim_end_matches(':').trim();
        (words_of(line).len() >= 2).then(|| line.to_string())
    })
}

/// A headline over the limit without its parenthetical asides (file references first),
/// which say least per character, and with a list of files of one name given once
/// (`a/x.css, a/x.js` → `a/x.css, .js`).
fn fit(text: &str) -> String {
    let mut t = text.to_string();
    if t.chars().count() > MAX {
        t = shared_stems(&t);
    }
    for files_only in [true, false] {
        if t.chars().count() <= MAX {
            break;
        }
        while let Some((open, close)) = aside(&t, files_only) {
            t = format!("{}{}", t[..open].trim_end(), &t[close + 1..]);
            if t.chars().count() <= MAX {
                break;
            }
        }
    }
    t
}

/// `a/x.css, a/x.js` as `a/x.css, .js`: a file named again with another extension.
fn shared_stems(text: &str) -> String {
    let parts: Vec<&str> = text.split(", ").collect();
    let mut out: Vec<String> = Vec::with_capacity(parts.len());
    let stem = |p: &str| p.rsplit_once('.').map(|(s, _)| s.to_string());
    for (i, part) in parts.iter().enumerate() {
        let word = part.split_whitespace().next().unwrap_or("");
        let prev = i
            .checked_sub(1)
            .and_then(|j| parts[j].split_whitespace().last())
            .and_then(stem);
        match (stem(word), prev, word.rsplit_once('.')) {
            (Some(s), Some(p), Some((_, ext))) if s == p && s.contains('/') => {
                out.push(format!(".{ext}{}", &part[word.len()..]));
            }
            _ => out.push((*part).to_string()),
        }
    }
    out.join(", ")
}

/// The byte range of the first `( … )` aside (one naming a file or path when
/// `files_only`).
fn aside(text: &str, files_only: bool) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(open) = text[from..].find('(').map(|i| i + from) {
        let close = text[open..].find(')').map(|i| i + open)?;
        let inside = &text[open..close];
        if !files_only || inside.contains('/') || inside.contains('@') || inside.contains('.') {
            return Some((open, close));
        }
        from = close;
    }
    None
}

/// A request without Claude Code's attachment markers (`[Image #1]`, `[Pasted text #2
/// +40 lines]`), which say nothing of what is asked.
fn without_markers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('[') {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        match from.find(']') {
            Some(end)
                if ["[Image #", "[Pasted text #", "[Image:", "[image"]
                    .iter()
                    .any(|m| from.starts_with(m)) =>
            {
                rest = from[end + 1..].trim_start();
            }
            _ => {
                out.push('[');
                rest = &from[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The arguments of a slash command (`/speec-workflow "…"`), quotes removed; `None`
/// when the request is no command or a command without arguments.
fn command_args(text: &str) -> Option<&str> {
    let t = text.trim_start();
    if !t.starts_with('/') {
        return None;
    }
    let (_, args) = t.split_once(char::is_whitespace)?;
    let args = args.trim().trim_matches(['"', '\'', '“', '”']).trim();
    (!args.is_empty()).then_some(args)
}

/// Sentences of a text, on its lines and sentence punctuation.
fn split_sentences(text: &str) -> Vec<String> {
    text.lines()
        .flat_map(crate::text::line_sentences)
        .map(String::from)
        .collect()
}

/// Whether a sentence only acknowledges or sets the scene ("Fair enough.", "Thanks!"):
/// the next one says what is asked.
fn is_scene_setting(sentence: &str) -> bool {
    if tells_the_past(sentence) {
        return true;
    }
    let words = sentence.split_whitespace().count();
    let bare = sentence
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    words == 0
        || (words <= 3
            && (is_continuation(sentence)
                || PREAMBLES.contains(&bare.as_str())
                || [
                    "never mind",
                    "nevermind",
                    "no worries",
                    "thanks",
                    "thank you",
                ]
                .contains(&bare.as_str())))
}

/// Whether a sentence tells what happened before the session ("In a previous session we
/// removed the web app."), which the request after it builds on.
fn tells_the_past(sentence: &str) -> bool {
    let lower = strip_preamble(sentence).to_lowercase();
    [
        "in a previous session",
        "in the previous session",
        "in an earlier session",
        "in the last session",
        "last time",
        "previously",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
}

/// A sentence without the polite or scene-setting opening before what is asked; when a
/// remark comes first ("I didn't find those links helpful, can you please replace
/// them…"), the ask after it.
fn strip_preamble(sentence: &str) -> String {
    let mut s = sentence.trim();
    let lower = s.to_lowercase();
    if let Some(at) = [", can you", ", could you", ", would you", ", please "]
        .iter()
        .filter_map(|m| lower.find(m))
        .min()
        && s[at..].split_whitespace().count() > 4
    {
        s = s[at + 1..].trim_start();
    }
    // `[topic]: …` keeps its topic, without the brackets.
    loop {
        let lower = s.to_lowercase();
        let Some(p) = PREAMBLES.iter().find(|p| {
            lower.starts_with(*p)
                && lower[p.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !c.is_alphanumeric() && c != '\'')
        }) else {
            break;
        };
        let rest = s[p.len()..].trim_start_matches([',', '!', '.', ':', ' ', '-']);
        if rest.split_whitespace().count() < 2 {
            break;
        }
        s = rest;
    }
    s.trim_start_matches('[')
        .replacen("]:", ":", 1)
        .trim()
        .to_string()
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_lowercase() => c.to_uppercase().chain(chars).collect(),
        Some(c) => std::iter::once(c).chain(chars).collect(),
        None => String::new(),
    }
}

/// What a deictic request ("fix these", "please fix these lint errors") points at: the
/// bash-mode command run just before it and the first file its output names, or the
/// error line of the log pasted with it. `None` when it names its object itself.
fn deictic_object(request: &str, chosen: &str, bash: &[BashContext]) -> Option<String> {
    let words = words_of(chosen);
    let points = words.len() <= 8 && words.iter().any(|w| is_deictic(w));
    if !points {
        return None;
    }
    if let Some(b) = bash
        .iter()
        .rev()
        .find(|b| b.next_request.as_deref() == Some(one_line(request, 200).as_str()))
    {
        let file = b.file.as_deref();
        return Some(match file {
            Some(f) => format!("`{}`: {f}", b.command),
            None => format!("`{}`", b.command),
        });
    }
    // A log pasted after the request: its error line.
    let (_, pasted) = request.split_once('\n')?;
    crate::summary::signals::error_line(pasted)
        .map(|e| one_line(&e, 60))
        .filter(|e| e.chars().count() > 10)
}

/// The words of a text, lower-cased.
fn words_of(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether a word points at something said elsewhere.
fn is_deictic(word: &str) -> bool {
    matches!(word, "these" | "those" | "this" | "them" | "it" | "above")
}

/// The request Claude Code's compaction summary gives ("1. Primary Request and Intent:
/// …"), its first sentence.
fn summary_request(summary: &str) -> Option<String> {
    let (_, rest) = summary.split_once("Primary Request and Intent:")?;
    let text = rest.trim_start();
    let sentence = split_sentences(text).into_iter().next()?;
    let s = sentence
        .trim_start_matches("The user ")
        .trim_start_matches("User ")
        .to_string();
    (!s.is_empty()).then(|| capitalize(&s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::signals::Source;

    fn from(request: &str) -> String {
        clip_words(&from_request(request, &[]), MAX)
    }

    #[test]
    fn a_request_loses_its_preamble_escapes_and_what_follows_it() {
        assert_eq!(
            from(
                "Hey Claude, can you please add a Github Action to run tests and linting? You can test it with `act`."
            ),
            "Add a Github Action to run tests and linting"
        );
        assert_eq!(
            from(
                "I'd like your help with refactoring the timeline filtering so that we hide the group instead of all items that belong to it"
            ),
            "Refactoring the timeline filtering so that we hide the group instead of all items that belong to it"
        );
        assert_eq!(
            from(
                "Fair enough. Can you write a balanced opinion on this approach? Keep it same overall length."
            ),
            "Write a balanced opinion on this approach"
        );
        assert_eq!(
            from(
                "Never mind! But I'd like to ask you to add a `<details>` element\\\n\\\nOh, and another"
            ),
            "Add a `<details>` element"
        );
        assert_eq!(
            from(
                "/speec-workflow \"帮我实现灰度区域管理功能，参考灰度用户管理功能的数据库和前后端\""
            ),
            "帮我实现灰度区域管理功能，参考灰度用户管理功能的数据库和前后端"
        );
        assert_eq!(
            from(
                "read claude.md and docs/project-plan .  There is one ci test that keeps failing.  I suspect the root cause is the query logic."
            ),
            "There is one ci test that keeps failing."
        );
        assert_eq!(
            from("[Image #1] Can you please add margin-bottom to the details element?"),
            "Add margin-bottom to the details element"
        );
        assert_eq!(
            from("mix phx.server doesnt seem to start"),
            "mix phx.server doesnt seem to start"
        );
        assert_eq!(
            from("[engine lifecycle phase 4]: please plan and work on phase 4. only phase 4."),
            "Engine lifecycle phase 4: please plan and work on phase 4."
        );
    }

    #[test]
    fn a_lead_in_is_completed_by_the_first_item_it_introduces() {
        assert_eq!(
            from(
                "I need to understand:\n1. How Spotter.Services.Tmux.list_panes/0 works and what happens if tmux is not running\n2. How get_pane_id/1 works"
            ),
            "I need to understand: How Spotter.Services.Tmux.list_panes/0 works and what happens if tmux is not…"
        );
        assert_eq!(
            from(
                "Investigate two issues in extract-coderabbit-feedback.py:\n\n**Issue 1: \"Lines 0\" appearing in titles**\n- In test.md output, all comments show \"Lines 0:\""
            ),
            "Investigate two issues in extract-coderabbit-feedback.py: Issue 1: \"Lines 0\" appearing in titles"
        );
        assert_eq!(
            from(
                "Very thorough exploration. I need to understand:\n\n1. How `SessionLive` and `SubagentLive` currently render transcripts\n2. More"
            ),
            "I need to understand: How `SessionLive` and `SubagentLive` currently render transcripts"
        );
        // A long lead-in says what it is about; it loses its colon.
        assert_eq!(
            from(
                "Read and summarize the following files for implementing single-session bootstrap sync:\n\n1. `lib/spotter/transcripts/jobs/sync_transcripts.ex` - The existing sync_all"
            ),
            "Read and summarize the following files for implementing single-session bootstrap sync"
        );
        assert_eq!(
            from(
                "Examine the extract-coderabbit-feedback.py file to understand:\n1. Where HTML cleaning and filtering currently happens\n2. How"
            ),
            "Examine the extract-coderabbit-feedback.py file to understand: Where HTML cleaning and filtering…"
        );
        assert_eq!(
            without_bold("You are **alice** (round 2) with **bob**"),
            "You are alice (round 2) with bob"
        );
        assert_eq!(without_bold("2**8 is 256"), "2**8 is 256");
        // Nothing after it: the lead-in alone.
        assert_eq!(from("Please look at this:"), "Look at this");
    }

    #[test]
    fn the_past_sets_the_scene_and_a_bare_command_says_what_came_of_it() {
        assert_eq!(
            from(
                "yes, in a previous session we remove the react web app in favor of generating static PNG files. Can you update the README to reflect the current state of the app?"
            ),
            "Update the README to reflect the current state of the app"
        );
        let requests = vec!["/init".to_string()];
        let denied = [Refusal {
            tool: "Write".into(),
            summary: "/p/Demo/CLAUDE.md".into(),
            by: RefusedBy::Permissions,
            reason: None,
            source: Source::default(),
        }];
        let mut s = Sources {
            requests: &requests,
            refusals: &denied,
            ..Sources::default()
        };
        assert_eq!(
            headline(&s, Lang::En),
            "/init: Write CLAUDE.md was denied by the permission settings"
        );
        let modified = ["CLAUDE.md".to_string()];
        s.refusals = &[];
        s.modified = &modified;
        assert_eq!(headline(&s, Lang::En), "/init: changed CLAUDE.md");
    }

    #[test]
    fn the_ask_follows_a_remark_and_files_of_one_name_are_named_once() {
        assert_eq!(
            from(
                "oh, I didn't find those cross-session navigation links helpful, can you please replace them with a single link to the combined transcript instead?"
            ),
            "Replace them with a single link to the combined transcript instead"
        );
        assert_eq!(
            shared_stems(
                "Read @public/tokenizer.css, @public/tokenizer.js, @public/tokenizer.html and review"
            ),
            "Read @public/tokenizer.css, .js, .html and review"
        );
        assert!(is_exploration(
            "please have a look at the git diff of renderer.py and explain what it does"
        ));
        assert!(!is_exploration(
            "Read src/main.py and add a docstring to the top."
        ));
    }

    #[test]
    fn an_issue_named_by_its_id_alone_gets_the_title_the_tracker_gave() {
        let requests = vec![
            "Work on bead spotter-dov. Run bd show spotter-dov to see the issue details."
                .to_string(),
        ];
        let issues = [IssueTitle {
            id: "spotter-dov".into(),
            title: "Unified transcript visualization and debug parity for session + subagent"
                .into(),
        }];
        let mut s = Sources {
            requests: &requests,
            issues: &issues,
            ..Sources::default()
        };
        assert_eq!(
            headline(&s, Lang::En),
            "Work on bead spotter-dov: Unified transcript visualization and debug parity for session + subagent"
        );
        // A request that says what it is about keeps its words; without a title, the
        // id alone stays.
        let long = vec![
            "Fix the race in spotter-dov where the tail worker drops the first line of every new transcript"
                .to_string(),
        ];
        s.requests = &long;
        assert_eq!(headline(&s, Lang::En), long[0]);
        s.requests = &requests;
        s.issues = &[];
        assert_eq!(headline(&s, Lang::En), "Work on bead spotter-dov.");
    }

    #[test]
    fn a_long_headline_is_cut_at_a_word_end() {
        let h = clip_words(
            "We've just done a big refactoring (Phase 2 from @docs/ARCHITECTURE_REVIEW-2025-07-20.md) and a lot of the browser tests are failing",
            MAX,
        );
        assert!(h.chars().count() <= MAX, "{h}");
        assert_eq!(
            h,
            "We've just done a big refactoring (Phase 2 from @docs/ARCHITECTURE_REVIEW-2025-07-20.md) and a lot…"
        );
        assert_eq!(clip_words("short", MAX), "short");
        let cjk = "灰".repeat(150);
        assert_eq!(clip_words(&cjk, MAX).chars().count(), MAX);
    }

    #[test]
    fn a_deictic_request_takes_its_object_from_bash_mode() {
        let bash = [BashContext {
            command: "uv run ty check".into(),
            output: Some("Found 2 diagnostics".into()),
            file: Some("test/test_cache.py".into()),
            next_request: Some("please fix these".into()),
            source: Source::default(),
        }];
        assert_eq!(
            from_request("please fix these", &bash),
            "Fix these (`uv run ty check`: test/test_cache.py)"
        );
        assert_eq!(
            from_request("please fix the login page", &bash),
            "Fix the login page"
        );
    }

    #[test]
    fn the_previous_headline_stays_unless_a_new_plan_is_approved() {
        let requests = vec!["create the beads".to_string()];
        let mut s = Sources {
            previous: Some("Set up Credo, Dialyxir and mix_audit"),
            requests: &requests,
            ..Sources::default()
        };
        assert_eq!(
            headline(&s, Lang::En),
            "Set up Credo, Dialyxir and mix_audit"
        );
        let plans = [PlanOutcome::Approved {
            title: "Report corrupted archives in the manifest".into(),
            gist: None,
            source: Source::default(),
        }];
        s.plans = &plans;
        assert_eq!(
            headline(&s, Lang::En),
            "Report corrupted archives in the manifest"
        );
        let generic = [PlanOutcome::Approved {
            title: "Refactoring Plan".into(),
            gist: None,
            source: Source::default(),
        }];
        s.plans = &generic;
        s.previous = None;
        assert_eq!(headline(&s, Lang::En), "create the beads");
    }
}
