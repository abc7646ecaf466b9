//! Lasting facts from what is sure: the segment's structural signals (the user's answers,
//! plans, refusals, failing runs, tests changed, bash-mode commands, hook feedback, `#`
//! notes) as one-line items of Session so far, each with its source; and what a model's
//! summary of an earlier memory found, carried into the next one as the model's.

use crate::agent::Agent;
use crate::lang::Lang;
use crate::summary::signals::{
    Abandoned, Answer, BashContext, Cause, Diagnosis, FailedRun, HookFeedback, PlanOutcome,
    Refusal, RefusedBy, Reported, Signals, Source, TestEdit,
};
use crate::text::{clip_words, one_line};

use super::instructions;

/// Longest part of an item quoted from the transcript. Prose (a sentence, the user's
/// words) is cut at a word's end; a command, a path or a line of output, whose long
/// tokens are the information, where the room ends.
const PART_CHARS: usize = 160;

/// The facts the signals give, by kind, oldest first.
#[derive(Debug, Default)]
pub(crate) struct Found {
    pub constraints: Vec<String>,
    pub answers: Vec<String>,
    pub context: Vec<String>,
    pub requirements: Vec<String>,
    pub decisions: Vec<String>,
    pub failed: Vec<String>,
    pub left_open: Vec<String>,
    pub commits: Vec<String>,
    pub checks: Vec<String>,
}

/// The facts of the segment's signals, in `lang`.
pub(crate) fn from_signals(s: &Signals, lang: Lang, agent: Agent) -> Found {
    let mut f = Found::default();
    for a in &s.answers {
        f.answers.push(answer(a, lang));
        f.decisions.push(answered(a, lang));
    }
    for a in &s.replies {
        f.answers.push(reply(a, lang, agent));
    }
    for p in &s.plans {
        f.decisions.push(plan(p, lang));
        // The words a refused plan got are the user's answer to it.
        if matches!(p, PlanOutcome::Refused { words: Some(_), .. }) {
            f.answers.push(plan(p, lang));
        }
    }
    // Refusing to wait on a background task's output ("check again") stops a wait, not
    // an approach, and chooses nothing (a question talked over is no refusal at all:
    // `signals::refusals` leaves it out).
    for r in s.refusals.iter().filter(|r| !waits(&r.tool)) {
        // Words the user typed for the work, not a pasted log nor "ok, go on": a rule
        // for the rest of the work ("use pnpm") is an instruction, anything else a
        // decision about this call.
        if let Some(reason) = r.reason.as_deref().filter(|w| is_said(w)) {
            let rules = instructions::from_words(reason);
            if rules.is_empty() {
                f.decisions.push(refused_with(r, reason, lang));
            }
            f.constraints
                .extend(rules.into_iter().map(|i| sourced(&i, &r.source, lang)));
        }
        f.failed.push(refusal(r, lang));
    }
    for p in &s.plans {
        if let PlanOutcome::Refused {
            words: Some(w),
            source,
            ..
        } = p
            && source.tool == "ExitPlanMode"
            && !w.is_empty()
        {
            f.constraints.extend(
                instructions::from_words(w)
                    .into_iter()
                    .map(|i| sourced(&i, source, lang)),
            );
        }
    }
    for run in &s.failed_runs {
        f.failed.push(failed_run(run, lang));
    }
    for a in &s.abandoned {
        f.failed.push(abandoned(a, lang));
    }
    for r in &s.reported {
        f.failed.push(reported(r, lang, agent));
    }
    for e in &s.test_edits {
        f.decisions.push(test_edit(e, lang));
    }
    for d in &s.diagnoses {
        f.decisions.push(diagnosis(d, lang));
    }
    // A cause stated before a fix that a failing run already gave is said once.
    for c in s
        .causes
        .iter()
        .filter(|c| !s.diagnoses.iter().any(|d| d.cause == c.cause))
    {
        f.decisions.push(cause(c, lang));
    }
    for b in &s.bash {
        f.context.push(bash(b, lang));
    }
    for h in &s.hooks {
        f.requirements.push(hook(h, lang));
    }
    f.left_open.clone_from(&s.left_open);
    // The hash is git's, hexadecimal; the subject is the message's, kept as text.
    f.commits = s
        .commits
        .iter()
        .map(|c| sourced(&format!("`{}` {}", c.hash, c.subject), &c.source, lang))
        .collect();
    for n in &s.notes {
        f.constraints.push(sourced(&n.text, &n.source, lang));
    }
    // As the command was last run: the way that works here, not the first try.
    f.checks = s.checks.iter().map(|c| c.command.clone()).collect();
    f
}

/// Whether a tool only waits on the output of work already started.
fn waits(tool: &str) -> bool {
    matches!(tool, "TaskOutput" | "BashOutput" | "AgentOutputTool")
}

/// Whether words given after a refusal say something of the user's own: not pasted
/// output (several lines, a prompt sign), not a mere go-ahead ("ok, continue").
fn is_said(words: &str) -> bool {
    !is_pasted(words) && !crate::transcript::is_continuation(words) && !goes_on_zh(words)
}

/// Whether words given after a refusal look pasted: several lines, a prompt sign.
fn is_pasted(words: &str) -> bool {
    let first = crate::text::first_of_one_line(words).trim_start();
    words.matches(" ⏎ ").count() >= 3 || first.starts_with(['>', '$', '#'])
}

/// Whether short Chinese words tell Claude to go on ("可以正常启动，继续后面的任务吧": it
/// starts fine, carry on with the next tasks): a go-ahead, as "ok, continue" is.
fn goes_on_zh(words: &str) -> bool {
    words.chars().count() <= 24 && ["继续", "接着"].iter().any(|w| words.contains(w))
}

/// `text (source)`.
fn sourced(text: &str, source: &Source, lang: Lang) -> String {
    let label = match (source.tool.as_str(), lang) {
        // The user's, never "your" (see `answer`).
        ("#", Lang::En) => source.label().replacen('#', "the user's # note", 1),
        ("#", Lang::Zh) => source.label().replacen('#', "# 备忘", 1),
        _ => source.label(),
    };
    // The text gives way, cut at a word, so that the source stays whole in the item.
    let room = crate::summary::session::ITEM_CHARS.saturating_sub(label.chars().count() + 3);
    format!("{} ({label})", clip_words(text.trim(), room))
}

fn quote(text: &str) -> String {
    format!("“{}”", clip_words(text, PART_CHARS))
}

fn answer(a: &Answer, lang: Lang) -> String {
    let own = match (a.chosen, lang) {
        (true, _) => "",
        // The user's, never "your": the item reaches the model too, for which "you"
        // is itself.
        (false, Lang::En) => " (in the user's own words)",
        (false, Lang::Zh) => "（用户自己的话）",
    };
    let text = format!(
        "{} → {}{own}",
        quote(&a.question),
        clip_words(&a.answer, PART_CHARS)
    );
    sourced(&text, &a.source, lang)
}

fn reply(a: &Answer, lang: Lang, agent: Agent) -> String {
    let who = agent.speaker();
    let text = match lang {
        Lang::En => format!(
            "{who} asked {} → user answered {}",
            quote(&a.question),
            quote(&a.answer)
        ),
        Lang::Zh => format!(
            "{who} 问 {} → 用户回答 {}",
            quote(&a.question),
            quote(&a.answer)
        ),
    };
    sourced(&text, &a.source, lang)
}

fn answered(a: &Answer, lang: Lang) -> String {
    let topic = a.header.as_deref().unwrap_or(&a.question);
    let text = match lang {
        Lang::En => format!(
            "User chose {} when asked {}",
            quote(&a.answer),
            quote(if topic.chars().count() < 12 {
                &a.question
            } else {
                topic
            })
        ),
        Lang::Zh => format!(
            "用户在被问到 {} 时选择了 {}",
            quote(&a.question),
            quote(&a.answer)
        ),
    };
    sourced(&text, &a.source, lang)
}

fn plan(p: &PlanOutcome, lang: Lang) -> String {
    match (p, lang) {
        (
            PlanOutcome::Approved {
                title,
                gist,
                source,
            },
            _,
        ) => {
            let gist = gist
                .as_deref()
                .map(|g| format!(" ({})", clip_words(g, PART_CHARS)))
                .unwrap_or_default();
            let title = clip_words(title, PART_CHARS);
            let text = match lang {
                Lang::En => format!("Plan approved: {title}{gist}"),
                Lang::Zh => format!("已批准的计划：{title}{gist}"),
            };
            sourced(&text, source, lang)
        }
        (
            PlanOutcome::Refused {
                title,
                words,
                source,
            },
            _,
        ) => {
            let title = title
                .as_deref()
                .map_or_else(String::new, |t| clip_words(t, PART_CHARS));
            let text = match (lang, words) {
                (Lang::En, Some(w)) => format!("Plan refused: {title}; user said {}", quote(w)),
                (Lang::En, None) => format!("Plan refused: {title}"),
                (Lang::Zh, Some(w)) => format!("被拒绝的计划：{title}；用户说 {}", quote(w)),
                (Lang::Zh, None) => format!("被拒绝的计划：{title}"),
            };
            sourced(&text, source, lang)
        }
    }
}

/// The plan's title in an item [`plan`] wrote for a refusal ("Plan refused: <title>;
/// user said “…” (<source>)", "被拒绝的计划：<title>；用户说 “…”", or without the
/// user's words "Plan refused: <title> (<source>)"); `None` for any other item.
pub(crate) fn refused_plan_title(item: &str) -> Option<&str> {
    let rest = item
        .strip_prefix("Plan refused: ")
        .or_else(|| item.strip_prefix("被拒绝的计划："))?;
    let title = match rest
        .split_once("; user said ")
        .or_else(|| rest.split_once("；用户说 "))
    {
        Some((title, _)) => title,
        // Without the user's words, the source follows the title.
        None => rest.rsplit_once(" (").map_or(rest, |(title, _)| title),
    };
    Some(title.trim())
}

/// What a refused call would have done: `Bash npm install`.
fn call(r: &Refusal) -> String {
    one_line(format!("{} {}", r.tool, r.summary).trim(), PART_CHARS)
}

fn abandoned(a: &Abandoned, lang: Lang) -> String {
    let error = a
        .error
        .as_deref()
        .map(|e| format!(" ({})", one_line(e, PART_CHARS)))
        .unwrap_or_default();
    let text = match lang {
        Lang::En => format!(
            "`{}` failed{error} and was given up: {}",
            a.command,
            quote(&a.why)
        ),
        Lang::Zh => format!("`{}` 失败{error}，已放弃：{}", a.command, quote(&a.why)),
    };
    sourced(&text, &a.source, lang)
}

fn reported(r: &Reported, lang: Lang, agent: Agent) -> String {
    let error = one_line(&r.error, PART_CHARS);
    let who = agent.speaker();
    let text = match lang {
        Lang::En => format!("After {who} changed {}, user's run failed: {error}", r.file),
        Lang::Zh => format!("{who} 修改 {} 后，用户的运行失败：{error}", r.file),
    };
    sourced(&text, &r.source, lang)
}

fn refused_with(r: &Refusal, reason: &str, lang: Lang) -> String {
    let text = match lang {
        Lang::En => format!("User refused {}: {}", call(r), quote(reason)),
        Lang::Zh => format!("用户拒绝了 {}：{}", call(r), quote(reason)),
    };
    sourced(&text, &r.source, lang)
}

fn refusal(r: &Refusal, lang: Lang) -> String {
    // Pasted output after a refusal is the user's: its error line says why, else its
    // first line.
    let reason = r.reason.as_ref().map(|w| {
        if !is_pasted(w) {
            w.clone()
        } else {
            let lines = w.replace(" ⏎ ", "\n");
            crate::summary::signals::named_error(&lines).map_or_else(
                || crate::text::first_of_one_line(w).to_string() + " …",
                |e| format!("… {e}"),
            )
        }
    });
    let text = match (r.by, lang, &reason) {
        (RefusedBy::User, Lang::En, Some(reason)) => {
            format!("{} was refused by user: {}", call(r), quote(reason))
        }
        (RefusedBy::User, Lang::En, None) => format!("{} was refused by user", call(r)),
        (RefusedBy::Permissions, Lang::En, _) => {
            format!("{} was denied by the permission settings", call(r))
        }
        (RefusedBy::User, Lang::Zh, Some(reason)) => {
            format!("{} 被用户拒绝：{}", call(r), quote(reason))
        }
        (RefusedBy::User, Lang::Zh, None) => format!("{} 被用户拒绝", call(r)),
        (RefusedBy::Permissions, Lang::Zh, _) => format!("{} 被权限设置拒绝", call(r)),
        (RefusedBy::Unavailable, Lang::En, _) => {
            format!("{} could not run: the tool is not available", r.tool)
        }
        (RefusedBy::Unavailable, Lang::Zh, _) => format!("{} 无法运行：该工具不可用", r.tool),
    };
    sourced(&text, &r.source, lang)
}

fn failed_run(run: &FailedRun, lang: Lang) -> String {
    // What worked first: it is what the model must not undo; then the error and what
    // was tried before, which it must not try again.
    let error = match (run.error.as_deref(), run.last_error.as_deref(), lang) {
        (Some(first), Some(last), Lang::En) => {
            format!(" ({}; last: {})", one_line(first, 140), one_line(last, 100))
        }
        (Some(first), Some(last), Lang::Zh) => {
            format!(" ({}；最后：{})", one_line(first, 140), one_line(last, 100))
        }
        (Some(e), _, _) | (None, Some(e), _) => format!(" ({})", one_line(e, 140)),
        (None, None, _) => String::new(),
    };
    let tried = run
        .tried
        .iter()
        .map(|t| clip_words(t, 90))
        .collect::<Vec<_>>()
        .join("; ");
    let times = match (lang, run.failures) {
        (Lang::En, 1) => "once".to_string(),
        (Lang::En, n) => format!("{n} times"),
        (Lang::Zh, n) => format!("{n} 次"),
    };
    let mut text = match lang {
        Lang::En => format!("`{}` failed {times}{error}", run.command),
        Lang::Zh => format!("`{}` 失败 {times}{error}", run.command),
    };
    if let Some(w) = &run.worked {
        let w = clip_words(w, 140);
        text.push_str(&match lang {
            Lang::En => format!(" until: {w}"),
            Lang::Zh => format!("，直到：{w}"),
        });
    }
    if !tried.is_empty() {
        text.push_str(&match lang {
            Lang::En => format!("; tried before: {tried}"),
            Lang::Zh => format!("；之前尝试过：{tried}"),
        });
    }
    sourced(&text, &run.source, lang)
}

fn test_edit(e: &TestEdit, lang: Lang) -> String {
    let said = e
        .said
        .as_deref()
        .map(|s| format!(": {}", clip_words(s, PART_CHARS)))
        .unwrap_or_default();
    let text = match lang {
        Lang::En => format!(
            "Test changed to fit the code: {} was edited while `{}` failed{said}",
            e.file, e.command
        ),
        Lang::Zh => format!(
            "测试被改得迁就代码：`{}` 失败时修改了 {}{said}",
            e.command, e.file
        ),
    };
    sourced(&text, &e.source, lang)
}

fn diagnosis(d: &Diagnosis, lang: Lang) -> String {
    let cause = clip_words(&d.cause, PART_CHARS);
    let text = match lang {
        Lang::En => format!("Root cause found while `{}` failed: {cause}", d.command),
        Lang::Zh => format!("`{}` 失败时找到的根因：{cause}", d.command),
    };
    sourced(&text, &d.source, lang)
}

fn cause(c: &Cause, lang: Lang) -> String {
    let cause = clip_words(&c.cause, PART_CHARS);
    let text = match lang {
        Lang::En => format!("Cause found and fixed in {}: {cause}", c.file),
        Lang::Zh => format!("找到并在 {} 中修复的原因：{cause}", c.file),
    };
    sourced(&text, &c.source, lang)
}

fn bash(b: &BashContext, lang: Lang) -> String {
    let output = b
        .output
        .as_deref()
        .map(|o| format!(" → {o}"))
        .unwrap_or_default();
    let next = match (&b.next_request, lang) {
        (Some(r), Lang::En) => format!("; then user asked {}", quote(r)),
        (Some(r), Lang::Zh) => format!("；随后用户请求 {}", quote(r)),
        (None, _) => String::new(),
    };
    sourced(&format!("`{}`{output}{next}", b.command), &b.source, lang)
}

fn hook(h: &HookFeedback, lang: Lang) -> String {
    sourced(&h.requirement, &h.source, lang)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::signals::MemoryNote;

    fn source(tool: &str) -> Source {
        Source {
            tool: tool.into(),
            timestamp: Some("2026-02-12T20:58:52.928Z".into()),
            uuid: Some("u".into()),
        }
    }

    #[test]
    fn each_signal_becomes_a_line_with_its_source() {
        let signals = Signals {
            answers: vec![Answer {
                question: "Which rig do these beads belong to?".into(),
                header: Some("Rig prefix".into()),
                answer: "No rig".into(),
                chosen: true,
                source: source("AskUserQuestion"),
            }],
            refusals: vec![Refusal {
                tool: "Bash".into(),
                summary: "npm install".into(),
                by: RefusedBy::User,
                reason: Some("use pnpm".into()),
                source: source("Bash"),
            }],
            notes: vec![MemoryNote {
                text: "always use conventional commits".into(),
                source: source("#"),
            }],
            ..Signals::default()
        };
        let f = from_signals(&signals, Lang::En, Agent::ClaudeCode);
        assert_eq!(
            f.answers,
            ["“Which rig do these beads belong to?” → No rig (AskUserQuestion, 2026-02-12 20:58)"]
        );
        assert_eq!(
            f.decisions,
            [
                "User chose “No rig” when asked “Which rig do these beads belong to?” (AskUserQuestion, 2026-02-12 20:58)"
            ],
            "a rule given with a refusal is an instruction, not a decision"
        );
        assert_eq!(
            f.failed,
            ["Bash npm install was refused by user: “use pnpm” (Bash, 2026-02-12 20:58)"]
        );
        assert_eq!(
            f.constraints,
            [
                "use pnpm (Bash, 2026-02-12 20:58)",
                "always use conventional commits (the user's # note, 2026-02-12 20:58)"
            ]
        );
    }

    #[test]
    fn a_run_that_failed_two_ways_names_the_first_error_and_the_last() {
        let run = |last_error: Option<&str>| FailedRun {
            command: "git commit -m \"feat: view …\"".into(),
            failures: 3,
            error: Some("Pre-commit validation failed: [FORMAT] Code is not formatted.".into()),
            last_error: last_error.map(str::to_string),
            tried: vec![],
            worked: Some("editing lib/b.ex".into()),
            source: source("Bash"),
        };
        assert_eq!(
            failed_run(
                &run(Some("Pre-commit validation failed: [DIALYZER]")),
                Lang::En
            ),
            "`git commit -m \"feat: view …\"` failed 3 times (Pre-commit validation failed: [FORMAT] Code is not formatted.; last: Pre-commit validation failed: [DIALYZER]) until: editing lib/b.ex (Bash, 2026-02-12 20:58)"
        );
        assert_eq!(
            failed_run(&run(None), Lang::En),
            "`git commit -m \"feat: view …\"` failed 3 times (Pre-commit validation failed: [FORMAT] Code is not formatted.) until: editing lib/b.ex (Bash, 2026-02-12 20:58)"
        );
        assert!(failed_run(&run(Some("[DIALYZER]")), Lang::Zh).contains(
            "(Pre-commit validation failed: [FORMAT] Code is not formatted.；最后：[DIALYZER])"
        ));
    }

    #[test]
    fn a_go_ahead_is_no_decision_and_a_wait_refused_is_no_approach() {
        let refusal = |tool: &str, reason: &str| Refusal {
            tool: tool.into(),
            summary: "x".into(),
            by: RefusedBy::User,
            reason: Some(reason.into()),
            source: source(tool),
        };
        let signals = Signals {
            refusals: vec![
                refusal("Bash", "可以正常启动，继续后面的任务吧"),
                refusal("TaskOutput", "check again"),
            ],
            ..Signals::default()
        };
        let pasted = Signals {
            refusals: vec![refusal(
                "Bash",
                "> frontend@0.0.0 build ⏎ > vite build ⏎ ✗ Build failed in 1.60s ⏎ error during build: ⏎ [vite:load-fallback] Could not load src/x.vue: ENOENT",
            )],
            ..Signals::default()
        };
        assert_eq!(
            from_signals(&pasted, Lang::En, Agent::ClaudeCode).failed,
            [
                "Bash x was refused by user: “… error during build: [vite:load-fallback] Could not load src/x.vue: ENOENT” (Bash, 2026-02-12 20:58)"
            ]
        );
        let f = from_signals(&signals, Lang::Zh, Agent::ClaudeCode);
        assert!(f.decisions.is_empty(), "{:?}", f.decisions);
        assert_eq!(f.failed.len(), 1, "{:?}", f.failed);
        assert!(
            f.failed[0].starts_with("Bash x 被用户拒绝"),
            "{:?}",
            f.failed
        );
    }

    #[test]
    fn the_assistant_is_named_as_the_agent_the_session_ran() {
        let signals = Signals {
            replies: vec![Answer {
                question: "Shall I also migrate to AudioWorklet?".into(),
                header: None,
                answer: "yes, and make it cross-browser".into(),
                chosen: false,
                source: Source::default(),
            }],
            ..Signals::default()
        };
        for (agent, en, zh) in [
            (Agent::ClaudeCode, "Claude asked “", "Claude 问 “"),
            (Agent::Codex, "Codex asked “", "Codex 问 “"),
        ] {
            let f = from_signals(&signals, Lang::En, agent);
            assert!(f.answers[0].starts_with(en), "{:?}", f.answers);
            let f = from_signals(&signals, Lang::Zh, agent);
            assert!(f.answers[0].starts_with(zh), "{:?}", f.answers);
        }
    }
}
