//! Runs of one command: the same command (a test suite, a type checker, a build)
//! failing again and again while Claude changes code, until a change makes it pass.
//! The changes that did not make it pass are approaches that failed; the one that did
//! is what worked. A test file that existed before and was edited while its tests were
//! failing is flagged: the test may have been changed to fit the code. The cause the
//! assistant stated before a failing command passed is the root cause of what it fixed.

use serde::{Deserialize, Serialize};

use super::{Call, Source, View, first_sentence};
use crate::text::one_line;
use crate::transcript::extract::is_scratch;
use crate::transcript::outcome::{ERROR_CHARS, error_line};
use crate::transcript::record::ToolDetail;

/// Failures of one command before a change made it pass that make a failed approach:
/// what failed is what the model must not try again. A command that passes when simply
/// run again (no change between) is no approach.
const MIN_FAILURES: usize = 1;
/// Longest description of a change.
const CHANGE_CHARS: usize = 160;
/// Most changes between two failures of a run: more is development, not a fix tried.
const MAX_GAP: usize = 3;
/// Most approaches listed for one run (the latest).
const MAX_TRIED: usize = 3;

/// Whether a call's result says the command ran: not cancelled because a parallel call
/// failed, nor refused, nor a misuse of the tool that Claude Code caught.
fn ran(result: &crate::transcript::record::ToolResult) -> bool {
    let failure_said = || {
        // Only an error's head is read (most results are none).
        if !result.is_error {
            return true;
        }
        let head = crate::text::lower(crate::text::prefix_chars(
            result.text.head().trim_start(),
            300,
        ));
        [
            "exit code",
            "exited with code",
            "error",
            "fail",
            "not found",
            "denied",
            "cannot",
            "timed out",
        ]
        .iter()
        .any(|w| head.contains(w))
    };
    // An error that says nothing of a failure is the user's words (2.0 passes the
    // feedback typed at a refusal as the call's error).
    reached_the_command(result) && failure_said()
}

/// Whether a call reached its command: not refused, not cancelled because a parallel
/// call failed, not a misuse of the tool that Claude Code caught, not stopped by a hook
/// (Codex: "Command blocked by PreToolUse hook: …").
pub(super) fn reached_the_command(result: &crate::transcript::record::ToolResult) -> bool {
    let t = result.text.head().trim_start();
    !result.rejected
        && !t.starts_with("Sibling tool call errored")
        && !t.starts_with("<tool_use_error>")
        && !t.starts_with("Command blocked by ")
}

/// Whether Claude's sentence before a change says what the change is ("I'll use
/// cast() instead"), rather than only that one is coming ("Now let me fix that:").
fn says_what(sentence: &str) -> bool {
    let l = sentence.to_lowercase();
    let vague = [
        "i see",
        "now ",
        "good",
        "great",
        "perfect",
        "excellent",
        "let me check",
        "let me look",
        "let me read",
        "let me see",
        "let me run",
        "let me verify",
        "let me fix",
        "let me update",
        "let me find",
        "i need to check",
        "ok",
        "okay",
        "the file",
        "found it",
        "that ",
    ];
    sentence.chars().count() >= 25
        && !vague.iter().any(|v| l.starts_with(v))
        && !sentence.trim_end().ends_with(':')
}

/// A command that kept failing until a change made it pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedRun {
    /// The command, one line.
    pub command: String,
    /// How many times it failed before it passed.
    pub failures: usize,
    /// The most telling line of its first failure's output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The most telling line of its last failure's output, when it says something else:
    /// what still stopped it after the first error was dealt with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// What was tried between the failures: Claude's words before the change, else the
    /// files it changed.
    pub tried: Vec<String>,
    /// The change after the last failure, which made it pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worked: Option<String>,
    /// The result of its last failure (a failure's record keeps its time; the call
    /// that passed, one of thousands that worked, does not).
    pub source: Source,
}

/// An existing test file edited while a test command was failing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestEdit {
    /// The test file.
    pub file: String,
    /// The failing command.
    pub command: String,
    /// Claude's sentence before the edit, when it says what the edit does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub said: Option<String>,
    /// The edit.
    pub source: Source,
}

/// One change of code between runs.
struct Change {
    files: Vec<String>,
    said: Option<String>,
}

impl Change {
    fn describe(&self) -> String {
        let files = self.files.join(", ");
        match &self.said {
            Some(s) => format!("{s} ({files})"),
            None => format!("editing {files}"),
        }
    }
}

/// What is known of a command's run so far.
#[derive(Default)]
struct Run<'a> {
    failures: usize,
    /// Its first failure (the command as shown, the tool, the first error).
    first: Option<Call<'a>>,
    /// Its latest failure (the last error, the record kept as the source).
    last: Option<Call<'a>>,
    /// Changes made after a failure and before the next failure: they did not work.
    tried: Vec<Change>,
    /// Changes since the last failure.
    pending: Vec<Change>,
}

impl<'a> Run<'a> {
    /// The latest changes that did not make it pass, described.
    fn last_tried(&self) -> Vec<String> {
        let skip = self.tried.len().saturating_sub(MAX_TRIED);
        self.tried[skip..].iter().map(Change::describe).collect()
    }

    /// The command as it was first run.
    fn command(&self) -> &'a str {
        self.first.map_or("", |c| &*c.call.summary)
    }

    /// The record of the last failure's result (its time is kept:
    /// [`Record::is_dated`]).
    ///
    /// [`Record::is_dated`]: crate::transcript::record::Record::is_dated
    fn failed_at(&self) -> usize {
        self.last
            .map_or(0, |c| c.result.map_or(c.at, |(at, _, _)| at))
    }

    /// Whether the last failure said the command could not find what it was pointed at.
    fn missed_target(&self) -> bool {
        self.last
            .and_then(|c| c.result)
            .is_some_and(|(_, r, _)| missed_target(r.text.head()))
    }

    /// The failed run it makes, with what made it pass; the error lines are read only
    /// now, for the runs that are kept.
    fn failed_run(&self, view: &View, worked: Option<String>) -> FailedRun {
        let error = self.first.and_then(error_of);
        FailedRun {
            command: shown_command(self.command()),
            failures: self.failures,
            tried: self.last_tried(),
            last_error: other_kind(error.as_deref(), self.last.and_then(error_of)),
            error,
            worked,
            source: Source::of(
                self.first.map_or("", |c| &*c.call.name),
                &view.all()[self.failed_at()],
            ),
        }
    }
}

/// The most telling line of a failed call's output.
fn error_of(call: Call) -> Option<String> {
    call.hidden_failure()
        .map(|l| one_line(l, ERROR_CHARS))
        .or_else(|| call.result.and_then(|(_, r, _)| error_line(r.text.head())))
}

/// The last failure's error line, when it is of another kind than the first one's
/// ("Checking 1 source file ..." after "Checking 3 source files ..." says nothing new).
fn other_kind(first: Option<&str>, last: Option<String>) -> Option<String> {
    let first = first.map(line_kind);
    last.filter(|l| first.as_ref() != Some(&line_kind(l)))
}

/// The kind of an output line: its words without numbers, each cut to four letters, so
/// that counts, plurals and line numbers do not make two lines differ.
fn line_kind(line: &str) -> Vec<String> {
    line.split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().chars().take(4).collect())
        .collect()
}

/// What happened, in order: a command ran, or a file changed.
enum Event<'a> {
    Ran {
        key: String,
        call: Call<'a>,
    },
    /// `created`: the call may have created the file (a `Write` of a new file, a file a
    /// Codex patch adds), so it changed no existing one.
    Changed {
        file: &'a str,
        created: bool,
        call: Call<'a>,
    },
}

fn events<'a, 'v>(view: &'v View<'a>) -> impl Iterator<Item = Event<'a>> + 'v {
    // Lazily: a segment can hold hundreds of thousands of calls (docs/design.md §3.12).
    view.calls().filter(|c| c.result.is_some()).flat_map(|c| {
        // A shell command that only writes files (`sed -i`, a patch fed to
        // `apply_patch`) is a change, not a run.
        let ran = view
            .command_key(&c)
            .filter(|key| *key != "apply_patch")
            .map(str::to_owned);
        let changed = match (&ran, c.succeeded()) {
            (None, true) => c.call.detail.modified(),
            _ => &[],
        };
        // Claude Code's own files (a plan-mode plan) are no change of the project's.
        let changes = changed
            .iter()
            .filter(|file| !is_scratch(file))
            .map(move |file| Event::Changed {
                file,
                created: created(&c, file),
                call: c,
            });
        changes.chain(ran.map(|key| Event::Ran { key, call: c }))
    })
}

/// Whether call `c` may have created `file`, rather than changed it.
fn created(c: &Call, file: &str) -> bool {
    match &c.call.detail {
        ToolDetail::Paths { created, .. } => created.iter().any(|f| f == file),
        _ => {
            c.call.name == "Write"
                && c.result
                    .is_some_and(|(_, r, _)| r.text.head().trim_start().starts_with("File created"))
        }
    }
}

pub(super) fn failed_runs(view: &View) -> Vec<FailedRun> {
    let mut runs: std::collections::HashMap<String, Run> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for event in events(view) {
        match event {
            Event::Changed { file, call, .. } => {
                // A change counts only after a failure: described only then.
                if !runs.values().any(|r| r.failures > 0) {
                    continue;
                }
                let said = view
                    .narration_before(call.at, call.at.saturating_sub(3))
                    .map(|t| first_sentence(t, CHANGE_CHARS))
                    .filter(|s| says_what(s));
                let file = crate::transcript::extract::project_relative(file, view.cwd());
                for run in runs.values_mut().filter(|r| r.failures > 0) {
                    match run.pending.last_mut() {
                        // Several files changed in one step: one change.
                        Some(last) if said.is_none() || last.said == said => {
                            if !last.files.contains(&file) {
                                last.files.push(file.clone());
                            }
                        }
                        _ => run.pending.push(Change {
                            files: vec![file.clone()],
                            said: said.clone(),
                        }),
                    }
                }
            }
            Event::Ran { key, call } => {
                if call.result.is_some_and(|(_, r, _)| !ran(r)) {
                    continue;
                }
                let run = runs.entry(key).or_default();
                if call.failed() {
                    let pending = std::mem::take(&mut run.pending);
                    // Much work between two failures is development, not a fix that
                    // did not work: the run starts again.
                    if pending.len() > MAX_GAP {
                        *run = Run::default();
                    }
                    run.tried.extend(pending);
                    run.first.get_or_insert(call);
                    run.last = Some(call);
                    run.failures += 1;
                } else if call.succeeded() {
                    let run = std::mem::take(run);
                    let changed = !run.tried.is_empty() || !run.pending.is_empty();
                    // The same program pointed another way after it could not find its
                    // target: the failed way is the approach (a relative path from the
                    // wrong directory, then the absolute one; `pytest` not found, then
                    // `source .venv/bin/activate && pytest`), whatever was edited
                    // meanwhile — an edit does not make a missing path appear. Other
                    // arguments that pass may only test another case.
                    let other = way(&call.call.summary);
                    // A heredoc (a commit message) hides what differed.
                    let heredoc = |c: &str| c.contains("<<");
                    if run.failures >= MIN_FAILURES
                        && run.missed_target()
                        && pointed_at(&other) != pointed_at(&way(run.command()))
                        && !heredoc(run.command())
                        && !heredoc(&call.call.summary)
                    {
                        out.push(run.failed_run(view, Some(format!("`{other}`"))));
                    } else if run.failures >= MIN_FAILURES && changed {
                        out.push(run.failed_run(view, run.pending.last().map(Change::describe)));
                    }
                }
            }
        }
    }
    out
}

pub(super) fn test_edits(view: &View) -> Vec<TestEdit> {
    // Test commands the user ran in bash mode, and whether they failed: a test the
    // user saw fail counts as Claude's would.
    let by_user: Vec<(usize, String, String, bool)> = super::bash::find(view)
        .into_iter()
        .filter(|b| is_test_command(&b.command))
        .filter_map(|b| {
            let at = view
                .users()
                .find(|(_, r, _)| {
                    r.meta.uuid().is_some() && r.meta.uuid() == b.source.uuid.as_deref()
                })?
                .0;
            let failed = b.output.as_deref().is_some_and(|o| {
                o.contains("FAILED") || o.contains(" failed") || o.contains("Error")
            });
            Some((at, command_key(&b.command)?, b.command, failed))
        })
        .collect();
    // The test commands failing now, by key, with the command as run.
    let mut failing: Vec<(String, String)> = Vec::new();
    let mut out: Vec<TestEdit> = Vec::new();
    let mut user_runs = by_user.into_iter().peekable();
    for event in events(view) {
        let at = match &event {
            Event::Ran { call, .. } | Event::Changed { call, .. } => call.at,
        };
        while let Some((_, key, command, failed)) = user_runs.next_if(|(i, ..)| *i < at) {
            failing.retain(|(k, _)| *k != key);
            if failed {
                failing.push((key, command));
            }
        }
        match event {
            Event::Ran { key, call } if is_test_command(&call.call.summary) => {
                if call.result.is_some_and(|(_, r, _)| !ran(r)) {
                    continue;
                }
                failing.retain(|(k, _)| *k != key);
                if call.failed() {
                    failing.push((key, call.call.summary.to_string()));
                }
            }
            // A changed test file was written before (by this session or not): the
            // Write that creates one is not a change of it.
            Event::Changed {
                file,
                created,
                call,
            } => {
                let Some((_, command)) = failing.last() else {
                    continue;
                };
                let shown = crate::transcript::extract::project_relative(file, view.cwd());
                if is_test_file(file) && !created && !out.iter().any(|e| e.file == shown) {
                    out.push(TestEdit {
                        file: shown,
                        command: shown_command(command),
                        said: view
                            .narration_before(call.at, call.at.saturating_sub(3))
                            .map(|t| first_sentence(t, CHANGE_CHARS))
                            .filter(|s| says_what(s)),
                        source: Source::of(&call.call.name, call.record),
                    });
                }
            }
            Event::Ran { .. } => {}
        }
    }
    out
}

/// A cause the assistant stated while a command was failing, before a change made it
/// pass: the root cause of what was fixed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnosis {
    /// The sentence that states the cause.
    pub cause: String,
    /// The command that failed, then passed.
    pub command: String,
    /// The result of its first failure since it last passed.
    pub source: Source,
}

pub(super) fn diagnoses(view: &View) -> Vec<Diagnosis> {
    // Per command key: the record of its first failure since it last passed.
    let mut failing: std::collections::HashMap<String, (usize, usize)> = Default::default();
    let mut out: Vec<Diagnosis> = Vec::new();
    for event in events(view) {
        let Event::Ran { key, call } = event else {
            continue;
        };
        if call.result.is_some_and(|(_, r, _)| !ran(r)) {
            continue;
        }
        if call.failed() {
            let result_at = call.result.map_or(call.at, |(at, _, _)| at);
            failing.entry(key).or_insert((call.at, result_at));
        } else if call.succeeded()
            && let Some((from, failed_at)) = failing.remove(&key)
            && let Some(cause) = stated_cause(view, from, call.at)
            && !out.iter().any(|d| d.cause == cause)
        {
            out.push(Diagnosis {
                cause,
                command: shown_command(&call.call.summary),
                source: Source::of(&call.call.name, &view.all()[failed_at]),
            });
        }
    }
    out
}

/// The last sentence of the assistant's texts between records `from` and `to` that
/// states a cause ("The issue is that…", "root cause", "is caused by").
fn stated_cause(view: &View, from: usize, to: usize) -> Option<String> {
    const CUES: [&str; 8] = [
        "root cause",
        "the issue is",
        "the problem is",
        "the issue was",
        "the problem was",
        "the bug is",
        "is caused by",
        "was caused by",
    ];
    // Most texts state no cause: a text is cut into sentences only when it holds a cue,
    // found in one pass whatever its case (a session retries a command hundreds of
    // times, and each retry reads the texts since its failure again).
    static ANY_CUE: std::sync::OnceLock<Option<aho_corasick::AhoCorasick>> =
        std::sync::OnceLock::new();
    let any_cue = ANY_CUE.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(CUES)
            .ok()
    });
    view.all()[from..to]
        .iter()
        .rev()
        .filter(|r| !r.meta.sidechain)
        .filter_map(|r| match &r.entry {
            crate::transcript::record::Entry::Assistant(a) if !a.synthetic => Some(&a.texts),
            _ => None,
        })
        .flat_map(|texts| texts.iter().rev())
        .filter(|t| any_cue.as_ref().is_none_or(|ac| ac.is_match(t.as_str())))
        .flat_map(|t| crate::summary::sentences_of(t).into_iter().rev())
        .find(|s| {
            let l = s.to_lowercase();
            CUES.iter().any(|c| l.contains(c)) && s.chars().count() >= 30
        })
}

/// What makes two commands "the same": the program and its subcommand (with the tool a
/// runner runs: `uv run pytest`, `npx tsc`), after `cd … &&`, variable assignments and
/// pipes into `head`/`tail` are left out. `None` for commands that only look around
/// (`ls`, `cat`, `git status`).
pub(crate) fn command_key(command: &str) -> Option<String> {
    let last_step = last_step(first_line(command));
    let main = last_step.split('|').next().unwrap_or(last_step);
    // Taken as needed: only the first three words count, and a command can be long.
    let mut words = main
        .split_whitespace()
        .filter(|w| !w.contains('=') || w.starts_with('-'))
        .filter(|w| !w.starts_with("2>") && *w != ">");
    let program = words.next()?.rsplit('/').next()?;
    if matches!(
        program,
        "ls" | "cat"
            | "head"
            | "tail"
            | "echo"
            | "grep"
            | "rg"
            | "find"
            | "cd"
            | "pwd"
            | "wc"
            | "sleep"
            | "which"
            | "mkdir"
            | "rm"
            | "cp"
            | "mv"
            | "chmod"
            | "sed"
            | "awk"
    ) {
        return None;
    }
    let mut key = vec![program.to_string()];
    let runner = matches!(
        program,
        "uv" | "poetry"
            | "pipenv"
            | "npx"
            | "pnpx"
            | "bunx"
            | "npm"
            | "pnpm"
            | "yarn"
            | "bun"
            | "python"
            | "python3"
            | "bundle"
            | "go"
            | "cargo"
            | "mix"
            | "dotnet"
            | "make"
            | "just"
            | "git"
            | "gh"
            | "bd"
            | "docker"
    );
    for w in words.filter(|w| !w.starts_with('-')).take(2) {
        key.push(w.to_string());
        if !matches!(w, "run" | "exec" | "x" | "dlx" | "-m" | "tool") {
            break;
        }
    }
    if !runner {
        key.truncate(1);
    }
    if program == "git"
        && matches!(
            key.get(1).map(String::as_str),
            Some("status" | "diff" | "log" | "show")
        )
    {
        return None;
    }
    Some(key.join(" "))
}

/// A command as a failed run shows it: the last step of its first line (after `cd … &&`,
/// out of a subshell), at most 100 characters; a message given by a heredoc or a quoted
/// argument that goes on over more lines shows its first line.
pub(super) fn shown_command(command: &str) -> String {
    let step = last_step(first_line(command));
    let mut lines = command.split(" ⏎ ").skip(1);
    let (second, third) = (lines.next(), lines.next());
    match heredoc_message(step, second, third) {
        Some(shown) => one_line(&shown, 100),
        // A quoted argument that goes on over more lines (a commit message's body, a
        // script given to `python -c "`) shows its first line that says something, and
        // is closed there.
        None if step.matches('"').count() % 2 == 1 && !step.contains("<<") => {
            let start = match second.map(str::trim) {
                Some(line) if step.ends_with('"') && !line.is_empty() => line,
                _ => "",
            };
            one_line(&format!("{step}{start} …\""), 100)
        }
        None => one_line(step, 100),
    }
}

/// The way a command was run, for telling two ways apart: its first line, without a
/// subshell's parentheses and `cd` steps, its setup steps kept (`source
/// .venv/bin/activate && pytest`), on one line.
fn way(command: &str) -> String {
    let steps: Vec<&str> = steps(first_line(command)).collect();
    one_line(&steps.join(" && "), 100)
}

/// A command's first line, out of a subshell: `(source .venv/bin/activate && pytest)`
/// without its parentheses.
fn first_line(command: &str) -> &str {
    let line = crate::text::first_of_one_line(command);
    let t = line.trim();
    t.strip_prefix('(')
        .and_then(|rest| rest.strip_suffix(')'))
        .filter(|inner| !inner.contains(['(', ')']))
        .unwrap_or(line)
}

/// The steps of a command line joined by `&&`, its `cd` steps left out.
fn steps(line: &str) -> impl Iterator<Item = &str> {
    split_at_and(line)
        .map(str::trim)
        .filter(|s| !s.starts_with("cd ") && !s.is_empty())
}

/// The parts of `line` between its `&&`s, as `line.split("&&")` gives them: a search for
/// `&` (memchr) instead of the two-way searcher that `split` builds on every call, and
/// every command of a segment is split so, several times over.
fn split_at_and(line: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(line);
    std::iter::from_fn(move || {
        let part = rest?;
        let bytes = part.as_bytes();
        let mut from = 0;
        while let Some(i) = memchr::memchr(b'&', &bytes[from..]).map(|i| from + i) {
            if bytes.get(i + 1) == Some(&b'&') {
                rest = Some(&part[i + 2..]);
                return Some(&part[..i]);
            }
            from = i + 1;
        }
        rest = None;
        Some(part)
    })
}

/// The last step of a command line that does something, else the line.
fn last_step(line: &str) -> &str {
    steps(line).last().unwrap_or(line)
}

/// A step that ends by opening a heredoc as an argument (`git commit -m "$(cat <<'EOF'`,
/// how Claude Code commits), with the heredoc's first line in its place: `git commit -m
/// "feat: add retries"`, and `…` when more lines follow. `None` for any other step.
fn heredoc_message(step: &str, first: Option<&str>, second: Option<&str>) -> Option<String> {
    const OPENER: &str = "\"$(cat <<";
    let at = step.rfind(OPENER)?;
    let tag = step[at + OPENER.len()..]
        .trim_start_matches('-')
        .trim()
        .trim_matches(['\'', '"']);
    if tag.is_empty() || !tag.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let ends = |line: &str| line.trim() == tag || line.trim().starts_with(')');
    let message = first.map(str::trim).filter(|m| !m.is_empty() && !ends(m))?;
    let more = if second.is_some_and(|l| !ends(l)) {
        " …"
    } else {
        ""
    };
    Some(format!("{}\"{message}{more}\"", &step[..at]))
}

/// What a command is pointed at: the command without where its output goes (`2>&1`,
/// `| head -50`, `> log`): `npm start 2>&1 | head -50` runs what `npm start` ran.
fn pointed_at(command: &str) -> String {
    let run = command.split('|').next().unwrap_or(command);
    run.split_whitespace()
        .filter(|w| !w.starts_with("2>") && !w.starts_with("1>") && *w != ">" && *w != "&>")
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a failed command's output says it could not find what it was pointed at (a
/// file, a module, a directory, a task).
fn missed_target(output: &str) -> bool {
    let output = crate::transcript::codex::command_output(output);
    let head = crate::text::lower(crate::text::prefix_chars(output, 2000));
    [
        "not found",
        "no such file",
        "no such directory",
        "could not resolve",
        "cannot find",
        "can't find",
        "could not find",
        "does not exist",
        "unknown revision",
        "no such task",
        "not exist",
    ]
    .iter()
    .any(|m| head.contains(m))
}

/// Whether a command runs tests.
fn is_test_command(command: &str) -> bool {
    let c = command.to_lowercase();
    [
        "test",
        "pytest",
        "jest",
        "vitest",
        "rspec",
        "spec",
        "phpunit",
        "mocha",
        "playwright",
    ]
    .iter()
    .any(|w| {
        c.split(|ch: char| !ch.is_alphanumeric())
            .any(|word| word == *w)
    })
}

/// Whether a path is a test file (`tests/…`, `test_x.py`, `x_test.go`, `x.test.ts`,
/// `x_spec.rb`).
pub(crate) fn is_test_file(path: &str) -> bool {
    let p = path.replace('\\', "/").to_lowercase();
    let name = p.rsplit('/').next().unwrap_or(&p);
    let stem = name.split('.').next().unwrap_or(name);
    p.split('/')
        .any(|d| matches!(d, "test" | "tests" | "spec" | "specs" | "__tests__"))
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_spec")
        || name.contains(".test.")
        || name.contains(".spec.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_cut_at_its_ands_as_split_cuts_it() {
        for line in [
            "",
            "&&",
            "&&&",
            "a &&& b",
            "a & b && c",
            "cd /p && cargo test && ",
            "x&&y&&z",
            "& &",
            "echo 'é && ü' && ls",
        ] {
            let ours: Vec<&str> = split_at_and(line).collect();
            let split: Vec<&str> = line.split("&&").collect();
            assert_eq!(ours, split, "{line:?}");
        }
    }

    #[test]
    fn commands_are_the_same_by_program_and_subcommand() {
        assert_eq!(
            command_key("uv run pyright src/").as_deref(),
            Some("uv run pyright")
        );
        assert_eq!(
            command_key("cd /p && mix test test/a_test.exs 2>&1 | tail -30").as_deref(),
            Some("mix test")
        );
        assert_eq!(
            command_key("RUST_LOG=1 cargo test -p x").as_deref(),
            Some("cargo test")
        );
        assert_eq!(command_key("pytest -x tests/").as_deref(), Some("pytest"));
        assert_eq!(command_key("ls -la"), None);
        assert_eq!(command_key("git status"), None);
        assert_eq!(
            command_key("git commit -m x").as_deref(),
            Some("git commit")
        );
    }

    #[test]
    fn a_commit_message_given_by_a_heredoc_is_shown_in_its_place() {
        let commit =
            "git add -A && git commit -m \"$(cat <<'EOF' ⏎ feat: add retries ⏎ ⏎ Body. ⏎ EOF ⏎ )\"";
        assert_eq!(
            shown_command(commit),
            "git commit -m \"feat: add retries …\""
        );
        assert_eq!(
            shown_command("git commit -m \"$(cat <<EOF ⏎ fix: one line ⏎ EOF ⏎ )\""),
            "git commit -m \"fix: one line\""
        );
        assert_eq!(
            shown_command("gh pr create --body \"$(cat <<-\"END\" ⏎ Summary ⏎ more ⏎ END ⏎ )\""),
            "gh pr create --body \"Summary …\""
        );
        // Nothing after the opener (the summary was cut there), or another heredoc: as is.
        assert_eq!(
            shown_command("git commit -m \"$(cat <<'EOF'"),
            "git commit -m \"$(cat <<'EOF'"
        );
        assert_eq!(
            shown_command("cat > notes.md <<'EOF' ⏎ # Notes ⏎ EOF"),
            "cat > notes.md <<'EOF'"
        );
        assert_eq!(shown_command("cd /p && cargo test"), "cargo test");
        assert_eq!(
            shown_command("git add -A && git commit -m \"feat: trace ids ⏎ ⏎ - helpers\""),
            "git commit -m \"feat: trace ids …\""
        );
        assert_eq!(
            shown_command("uv run python -c \" ⏎ from app.parser import load ⏎ print(load())\""),
            "uv run python -c \"from app.parser import load …\""
        );
        assert_eq!(
            shown_command("(source .venv/bin/activate && ruff check deep_manifest/)"),
            "ruff check deep_manifest/"
        );
        assert_eq!(
            command_key("(source .venv/bin/activate && ruff check x/ && pytest)").as_deref(),
            Some("pytest")
        );
        assert_eq!(shown_command("echo $(date) (now)"), "echo $(date) (now)");
    }

    #[test]
    fn a_last_error_of_the_same_kind_as_the_first_is_not_kept() {
        let last_error = |first: &str, last: &str| other_kind(Some(first), Some(last.into()));
        assert_eq!(
            last_error("Checking 3 source files ...", "Checking 1 source file ..."),
            None
        );
        assert_eq!(
            last_error("error[E0425] at src/a.rs:12", "error[E0425] at src/a.rs:40"),
            None
        );
        assert_eq!(
            last_error(
                "pytest: command not found",
                "assert \"Error:\" in captured.err"
            )
            .as_deref(),
            Some("assert \"Error:\" in captured.err")
        );
    }

    #[test]
    fn test_files_and_commands_are_told_apart() {
        for p in [
            "tests/test_cache.py",
            "src/a_test.go",
            "web/x.test.ts",
            "spec/a_spec.rb",
        ] {
            assert!(is_test_file(p), "{p}");
        }
        for p in ["src/testing.rs", "src/contest.py", "docs/latest.md"] {
            assert!(!is_test_file(p), "{p}");
        }
        assert!(is_test_command("uv run pytest -x"));
        assert!(is_test_command("cargo test -p a"));
        assert!(!is_test_command("cargo build"));
    }
}
