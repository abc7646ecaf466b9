//! Continuity benchmark: what memory-stalker hands the model right after a compaction.
//!
//! A scripted session (the real Claude Code CLI, offline against the fake Messages API of
//! `tests/support/anthropic.rs`) plants 36 facts of six kinds (a constraint the user
//! typed, a decision and its reason, an approach that failed, a modified file, a task,
//! the next step the user asked for), early, in the middle and late in each of three
//! segments, and is compacted after each segment: automatically (the fake model reports
//! a huge context) in one run, with `/compact` in another. After each compaction the
//! benchmark cuts memory-stalker's text out of the first request Claude Code sends and
//! counts the planted facts it names (each fact has distinctive phrases, all of which
//! must be there, case-insensitive).
//!
//! The facts are phrased the way the corpus's users and Claude phrase such things, not
//! in words an extractor looks for: a rule inside a request ("…, so please keep it as
//! it is", "I don't want any new dependencies", "I think we should … ?"), a choice
//! stated in passing by Claude ("A sliding window per tenant fits best here, so…",
//! "I'll sign the webhooks with HMAC-SHA256, since…", "The issue is that…"), and
//! approaches that fail in a run of the same check until a change makes it pass
//! ("Let me try preloading libfaketime through…", then "I'll inject a Clock trait
//! instead"), or once, then left ("Redis isn't reachable…, so a Redis token bucket is
//! out").
//!
//! memory-stalker's text in a request is, and nothing else is counted (not Claude Code's
//! own compaction summary, scripted here, nor the user's prompts):
//! - hook contexts, which Claude Code puts in a `role: "system"` message of `messages`
//!   as `SessionStart hook additional context: <text>` (the restore),
//!   `UserPromptSubmit hook additional context: <text>` (the note of what the summary
//!   dropped), … joined to other attachments by blank lines; each is cut out exactly
//!   by matching the copy Claude Code keeps in the transcript (`hook_additional_context`
//!   attachments);
//! - hook output that `/compact` prints, sent back inside `<local-command-stdout>`:
//!   `PreCompact [<command>] completed successfully: <stdout>`.
//!
//! Not part of the normal test run (`#[ignore]`). Run it (Claude Code is installed into
//! `target/e2e/` by `scripts/test`, and the binaries must be built) with:
//!
//! ```text
//! scripts/test --test save_memory continuity -- --ignored --nocapture
//! cargo build --workspace && cargo test -p save-memory --test save_memory continuity -- --ignored --nocapture
//! ```
//!
//! Environment: `CONTINUITY_VERBOSE=1` also prints the injected text after the last
//! compaction of each run and which facts it names; `CONTINUITY_VERSIONS="2.1.330"`
//! limits the Claude Code versions; `CONTINUITY_DUMP=DIR` writes every request body, the
//! transcript and memory-stalker's log; `CONTINUITY_NO_SETTLE=1`: see [`SETTLE`].

use crate::support;

use std::fmt::Write as _;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::anthropic::{Block, COMPACTION_MARK, MEMORY_PROMPT_MARK, Turn};
use support::claude::{Claude, Hooks, World, installed};

/// The hook under test: `SAVE_MEMORY` names another build (the list-memories and MCP
/// binaries beside it are used too), so two builds compare.
fn save_memory() -> String {
    std::env::var("SAVE_MEMORY").unwrap_or_else(|_| env!("CARGO_BIN_EXE_save-memory").into())
}

/// How many compactions each run makes.
const COMPACTIONS: usize = 3;

/// What the fake model reports when it should make Claude Code compact on its own
/// (`CLAUDE_CODE_AUTO_COMPACT_WINDOW` is 100,000 in the automatic run).
const HUGE: u64 = 990_000;

// ---------------------------------------------------------------------------------------
// The facts

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Constraint,
    Decision,
    Failed,
    File,
    Task,
    NextStep,
}

const KINDS: [Kind; 6] = [
    Kind::Constraint,
    Kind::Decision,
    Kind::Failed,
    Kind::File,
    Kind::Task,
    Kind::NextStep,
];

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::Constraint => "user constraint",
            Kind::Decision => "decision + reason",
            Kind::Failed => "failed approach",
            Kind::File => "modified file",
            Kind::Task => "task",
            Kind::NextStep => "next step asked",
        }
    }
}

/// A planted fact: present when every phrase is in the injected text (case-insensitive).
#[derive(Debug, Clone)]
struct Fact {
    kind: Kind,
    /// The segment it is planted in: before compaction `segment + 1`.
    segment: usize,
    phrases: Vec<&'static str>,
}

// ---------------------------------------------------------------------------------------
// The session script

/// One scripted assistant action.
#[derive(Debug, Clone)]
enum Act {
    /// A text answer.
    Say(&'static str),
    /// Text, then a `Write` of a new file (project-relative path).
    Write {
        say: &'static str,
        path: &'static str,
        body: &'static str,
    },
    /// Text and a Bash call of a project script that fails with `error` (the next
    /// action's text says what the failure means).
    Fail {
        say: &'static str,
        script: &'static str,
        args: &'static str,
        error: &'static str,
    },
    /// Text (may be empty) and a Bash call of a project script that fails with `error`
    /// its first `fails` times and passes after (the same command run again after a
    /// change: a run that failed until the change made it pass). Its `error` is empty
    /// for a call that passes.
    Check {
        say: &'static str,
        script: &'static str,
        args: &'static str,
        fails: usize,
        error: &'static str,
    },
    /// Text (may be empty) and a TodoWrite of the whole list: (content, status).
    Todo(&'static str, &'static [(&'static str, &'static str)]),
}

/// A user prompt and the assistant's actions that answer it.
#[derive(Debug, Clone)]
struct Step {
    prompt: &'static str,
    acts: Vec<Act>,
}

/// What happens before one compaction.
struct Segment {
    steps: Vec<Step>,
    facts: Vec<(Kind, Vec<&'static str>)>,
}

fn session() -> Vec<Segment> {
    use Act::*;
    use Kind::*;
    // Phrased as the corpus's users and Claude phrase such things (see the module
    // documentation): rules inside requests, choices stated in passing, failures
    // recovered from in a run of the same command, not in cue words.
    vec![
        // Segment 1: the invoice rounding bug.
        Segment {
            steps: vec![
                Step {
                    prompt: "Some invoice totals are off by one cent. Can you please fix the rounding in the billing module? The public API in src/api.rs is used by other teams, so please keep it as it is.",
                    acts: vec![
                        Todo(
                            "",
                            &[
                                ("Reproduce the one-cent invoice discrepancy", "in_progress"),
                                ("Add a regression test for half-cent line items", "pending"),
                            ],
                        ),
                        Check {
                            say: "Let me run the billing tests first.",
                            script: "scripts/billing_tests.sh",
                            args: "",
                            fails: 1,
                            error: "FAILED invoice::tests::half_cent_lines - assertion failed: total == 1001 (got 1000)",
                        },
                        Write {
                            say: "The issue is that every line item is rounded before the total is summed, so the half cents get lost. Rounding the invoice total once, half to even, matches how the tax office reconciles VAT.",
                            path: "src/billing/invoice_rounding.rs",
                            body: "pub fn round_total(cents: i64) -> i64 {\n    cents\n}\n",
                        },
                        Check {
                            say: "Running the billing tests again.",
                            script: "scripts/billing_tests.sh",
                            args: "",
                            fails: 1,
                            error: "",
                        },
                        Say(
                            "Totals are rounded once per invoice now, and the half-cent test passes.",
                        ),
                    ],
                },
                Step {
                    prompt: "Run the billing tests with a frozen clock. I don't want any new dependencies in Cargo.toml for this.",
                    acts: vec![
                        Check {
                            say: "Freezing the clock with libfaketime so the invoice dates are stable.",
                            script: "scripts/frozen_clock_tests.sh",
                            args: "",
                            fails: 2,
                            error: "libfaketime: cannot preload into a statically linked test binary",
                        },
                        Write {
                            say: "Let me try preloading libfaketime through the test runner's environment instead.",
                            path: "scripts/test_env.sh",
                            body: "export LD_PRELOAD=/usr/lib/faketime/libfaketime.so.1\n",
                        },
                        Check {
                            say: "",
                            script: "scripts/frozen_clock_tests.sh",
                            args: "",
                            fails: 2,
                            error: "libfaketime: cannot preload into a statically linked test binary",
                        },
                        Write {
                            say: "I'll inject a Clock trait into InvoiceBuilder instead, so the tests don't depend on global time at all.",
                            path: "src/billing/clock.rs",
                            body: "pub trait Clock {\n    fn today(&self) -> (i32, u32, u32);\n}\n",
                        },
                        Check {
                            say: "",
                            script: "scripts/frozen_clock_tests.sh",
                            args: "",
                            fails: 2,
                            error: "",
                        },
                        Say("All 14 billing tests pass."),
                    ],
                },
                Step {
                    prompt: "Good. Next, add rate limiting to the upload endpoint.",
                    acts: vec![
                        Fail {
                            say: "Checking whether a Redis token bucket is an option.",
                            script: "scripts/probe_redis.sh",
                            args: "127.0.0.1:6379",
                            error: "Could not connect to Redis at 127.0.0.1:6379: Connection refused",
                        },
                        Todo(
                            "Redis isn't reachable from the upload service, so a Redis token bucket is out.",
                            &[
                                ("Reproduce the one-cent invoice discrepancy", "completed"),
                                (
                                    "Add a regression test for half-cent line items",
                                    "in_progress",
                                ),
                            ],
                        ),
                        Say("Looking at the upload handler first."),
                    ],
                },
            ],
            facts: vec![
                (Constraint, vec!["src/api.rs", "keep it as it is"]),
                (Constraint, vec!["new dependencies"]),
                (Decision, vec!["every line item is rounded"]),
                (Decision, vec!["Clock trait"]),
                (Failed, vec!["libfaketime"]),
                (Failed, vec!["Redis"]),
                (File, vec!["src/billing/invoice_rounding.rs"]),
                (File, vec!["src/billing/clock.rs"]),
                (Task, vec!["Reproduce the one-cent invoice discrepancy"]),
                (Task, vec!["Add a regression test for half-cent line items"]),
                (NextStep, vec!["fix the rounding in the billing module"]),
                (NextStep, vec!["add rate limiting to the upload endpoint"]),
            ],
        },
        // Segment 2: rate limiting.
        Segment {
            steps: vec![
                Step {
                    prompt: "ok, let's keep the limits in config/limits.toml, not hard-coded. Wire the limiter into the upload handler.",
                    acts: vec![
                        Todo(
                            "",
                            &[
                                ("Reproduce the one-cent invoice discrepancy", "completed"),
                                (
                                    "Add a regression test for half-cent line items",
                                    "completed",
                                ),
                                ("Load per-tenant limits from config", "in_progress"),
                                ("Return 429 with a Retry-After header", "pending"),
                            ],
                        ),
                        Write {
                            say: "A sliding window per tenant fits best here, so one noisy tenant can't throttle everyone else.",
                            path: "src/upload/rate_limit.rs",
                            body: "pub struct Window {\n    pub limit: u32,\n}\n",
                        },
                        Say("The limiter is wired in."),
                    ],
                },
                Step {
                    prompt: "Make sure the counters survive a restart. We don't need to touch the database schema for this.",
                    acts: vec![
                        Check {
                            say: "Persisting the counters in an SQLite side table.",
                            script: "scripts/counters_survive_restart.sh",
                            args: "",
                            fails: 2,
                            error: "Error: unable to open database \"/var/lib/upload/limits.db\": permission denied",
                        },
                        Write {
                            say: "Let me put the side table next to the upload spool instead.",
                            path: "config/counters.toml",
                            body: "path = \"/var/lib/upload/limits.db\"\n",
                        },
                        Check {
                            say: "",
                            script: "scripts/counters_survive_restart.sh",
                            args: "",
                            fails: 2,
                            error: "Error: unable to open database \"/var/lib/upload/limits.db\": permission denied",
                        },
                        Write {
                            say: "The upload hosts mount /var/lib read-only, so I'll snapshot the counters to disk every ten seconds; losing a few seconds of counts on a restart is fine for abuse protection.",
                            path: "src/upload/limiter_snapshot.rs",
                            body: "pub const SNAPSHOT_SECS: u64 = 10;\n",
                        },
                        Check {
                            say: "",
                            script: "scripts/counters_survive_restart.sh",
                            args: "",
                            fails: 2,
                            error: "",
                        },
                        Say("Counters now survive a restart."),
                    ],
                },
                Step {
                    prompt: "Next, add an admin endpoint to reset a tenant's quota.",
                    acts: vec![
                        Fail {
                            say: "Reusing the billing auth middleware for the admin route.",
                            script: "scripts/check_admin_route.sh",
                            args: "",
                            error: "error[E0277]: the trait bound `BillingAuth: Layer<AdminRouter>` is not satisfied",
                        },
                        Todo(
                            "The billing auth middleware doesn't implement Layer for the admin router, so reusing it won't work.",
                            &[
                                ("Reproduce the one-cent invoice discrepancy", "completed"),
                                (
                                    "Add a regression test for half-cent line items",
                                    "completed",
                                ),
                                ("Load per-tenant limits from config", "completed"),
                                ("Return 429 with a Retry-After header", "in_progress"),
                            ],
                        ),
                        Say("Starting on the admin route."),
                    ],
                },
            ],
            facts: vec![
                (Constraint, vec!["config/limits.toml"]),
                (Constraint, vec!["database schema"]),
                (Decision, vec!["sliding window", "noisy tenant"]),
                (Decision, vec!["every ten seconds"]),
                (Failed, vec!["/var/lib/upload/limits.db"]),
                (Failed, vec!["billing auth middleware"]),
                (File, vec!["src/upload/rate_limit.rs"]),
                (File, vec!["src/upload/limiter_snapshot.rs"]),
                (Task, vec!["Load per-tenant limits from config"]),
                (Task, vec!["Return 429 with a Retry-After header"]),
                (NextStep, vec!["wire the limiter into the upload handler"]),
                (NextStep, vec!["admin endpoint to reset a tenant's quota"]),
            ],
        },
        // Segment 3: the admin endpoint and webhooks.
        Segment {
            steps: vec![
                Step {
                    prompt: "only callers with the quota:write scope should be able to use it. After that, emit a webhook when a tenant hits its limit.",
                    acts: vec![
                        Todo(
                            "",
                            &[
                                ("Add the POST /admin/quota/reset route", "in_progress"),
                                ("Document the quota reset in the runbook", "pending"),
                            ],
                        ),
                        Write {
                            say: "I'll sign the webhooks with HMAC-SHA256, since the receivers already verify Stripe-style signatures.",
                            path: "src/webhooks/limit_reached.rs",
                            body: "pub const EVENT: &str = \"tenant.limit_reached\";\n",
                        },
                        Say("The reset route and the webhook are in place."),
                    ],
                },
                Step {
                    prompt: "I think we should send every timestamp in the webhook payload as UTC in RFC 3339?",
                    acts: vec![
                        Fail {
                            say: "Publishing the webhooks through the billing-events Kafka topic.",
                            script: "scripts/kafka_produce.sh",
                            args: "billing-events",
                            error: "KafkaError: TOPIC_AUTHORIZATION_FAILED for billing-events",
                        },
                        Write {
                            say: "We're not authorised on billing-events, so Kafka is not an option. Failed deliveries go to a local queue and are retried with backoff capped at one hour, since receivers are often down for maintenance windows.",
                            path: "src/webhooks/delivery_queue.rs",
                            body: "pub const MAX_BACKOFF_SECS: u64 = 3600;\n",
                        },
                        Say("Timestamps are UTC in RFC 3339, and deliveries are retried now."),
                    ],
                },
                Step {
                    prompt: "Next, write the migration guide for tenants in docs/rate-limits.md.",
                    acts: vec![
                        Fail {
                            say: "Generating the guide from the OpenAPI spec.",
                            script: "scripts/openapi_to_markdown.sh",
                            args: "openapi.yaml",
                            error: "openapi.yaml: No such file (the spec lives in the api-gateway repository)",
                        },
                        Todo(
                            "The spec lives in the api-gateway repository, so generating the guide from it won't work here.",
                            &[
                                ("Add the POST /admin/quota/reset route", "completed"),
                                ("Document the quota reset in the runbook", "in_progress"),
                            ],
                        ),
                        Say("Drafting the guide by hand."),
                    ],
                },
            ],
            facts: vec![
                (Constraint, vec!["quota:write scope"]),
                (Constraint, vec!["UTC in RFC 3339"]),
                (Decision, vec!["HMAC-SHA256", "Stripe-style signatures"]),
                (Decision, vec!["capped at one hour"]),
                (Failed, vec!["Kafka"]),
                (Failed, vec!["OpenAPI spec"]),
                (File, vec!["src/webhooks/limit_reached.rs"]),
                (File, vec!["src/webhooks/delivery_queue.rs"]),
                (Task, vec!["Add the POST /admin/quota/reset route"]),
                (Task, vec!["Document the quota reset in the runbook"]),
                (
                    NextStep,
                    vec!["emit a webhook when a tenant hits its limit"],
                ),
                (NextStep, vec!["migration guide for tenants"]),
            ],
        },
    ]
}

/// Every planted fact, with its segment.
fn facts() -> Vec<Fact> {
    session()
        .into_iter()
        .enumerate()
        .flat_map(|(segment, s)| {
            s.facts.into_iter().map(move |(kind, phrases)| Fact {
                kind,
                segment,
                phrases,
            })
        })
        .collect()
}

/// The prompt sent after the last compaction: the request measured after the last
/// `/compact`, and the prompt that picks up a note left since the last automatic one.
const PROBE: &str = "Where do we stand?";

// ---------------------------------------------------------------------------------------
// Running a session

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Auto,
    Manual,
}

impl Mode {
    fn label(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Manual => "manual",
        }
    }
}

/// The failing project scripts the `Fail` actions run, with their error output.
fn write_scripts(w: &World) {
    for seg in session() {
        for step in seg.steps {
            for act in step.acts {
                let (script, error, fails) = match act {
                    Act::Fail { script, error, .. } => (script, error, None),
                    Act::Check {
                        script,
                        error,
                        fails,
                        ..
                    } if !error.is_empty() => (script, error, Some(fails)),
                    _ => continue,
                };
                let path = w.project().join(script);
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                let quoted = error.replace('\'', r"'\''");
                let body = match fails {
                    None => format!("#!/bin/sh\necho '{quoted}' >&2\nexit 1\n"),
                    // Counts its runs beside itself: the first `n` fail.
                    Some(n) => format!(
                        "#!/bin/sh\nc=\"$0.runs\"\nn=$(cat \"$c\" 2>/dev/null || echo 0)\necho $((n + 1)) > \"$c\"\nif [ \"$n\" -lt {n} ]; then echo '{quoted}' >&2; exit 1; fi\necho 'ok: all checks pass'\n"
                    ),
                };
                fs::write(&path, body).unwrap();
                fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
    }
}

/// The fake model's answers for one step, on this Claude Code.
fn turns(w: &World, step: &Step) -> Vec<Turn> {
    // Newer versions offer TodoWrite only as a deferred tool, loaded through ToolSearch.
    let deferred_todo = w.claude.at_least("2.1.300");
    let mut out = Vec::new();
    for (i, act) in step.acts.iter().enumerate() {
        match act {
            Act::Say(t) => {
                // A text-only answer ends Claude Code's agent loop.
                assert_eq!(i + 1, step.acts.len(), "only a step's last action is text");
                out.push(Turn::text(t));
            }
            Act::Write { say, path, body } => out.push(Turn::say_and_call(
                say,
                "Write",
                json!({"file_path": w.project().join(path), "content": body}),
            )),
            Act::Fail {
                say, script, args, ..
            }
            | Act::Check {
                say, script, args, ..
            } => {
                let command = format!("./{script} {args}").trim_end().to_string();
                let input = json!({"command": command, "description": "Run the check"});
                out.push(if say.is_empty() {
                    Turn::tool("Bash", input)
                } else {
                    Turn::say_and_call(say, "Bash", input)
                });
            }
            Act::Todo(say, items) => {
                if deferred_todo {
                    out.push(Turn::tool(
                        "ToolSearch",
                        json!({"query": "select:TodoWrite", "max_results": 1}),
                    ));
                }
                let todos: Vec<Value> = items
                    .iter()
                    .map(|(content, status)| {
                        json!({"content": content, "status": status, "activeForm": content})
                    })
                    .collect();
                let input = json!({"todos": todos});
                out.push(if say.is_empty() {
                    Turn::tool("TodoWrite", input)
                } else {
                    Turn::say_and_call(say, "TodoWrite", input)
                });
            }
        }
    }
    out
}

/// A finished session: the world (its fake API kept every request) and the transcript.
struct Run {
    world: World,
    transcript: String,
}

/// Claude Code writes the transcript in batches, every 100 ms. The fake model answers
/// at once, so when an automatic compaction starts right after a tool call, its
/// PreCompact hook reads a transcript that lacks a varying number of the last records
/// (up to the last two exchanges were seen). To measure the same thing on every run,
/// the automatic run pauses after each TodoWrite (the tool call that triggers every
/// automatic compaction here) with a user-level PostToolUse hook: everything up to that
/// call is on disk when compaction starts. Its result is not (Claude Code records it
/// after the PostToolUse hooks, right before compacting), so the memory says the last
/// action "had no result yet", as it does for a real session compacted after a quick
/// tool call. `CONTINUITY_NO_SETTLE=1` leaves the pause out, to see what a fast model
/// costs (varies from run to run).
const SETTLE: &str = "sleep 0.5";

/// The user-level hook that lets Claude Code write the transcript before an automatic
/// compaction (see [`SETTLE`]).
fn settle_before_compaction(w: &World) {
    if std::env::var("CONTINUITY_NO_SETTLE").is_ok_and(|v| !v.is_empty() && v != "0") {
        return;
    }
    let settings = w.home().join(".claude/settings.json");
    fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let hooks = json!({"hooks": {"PostToolUse": [
        {"matcher": "TodoWrite", "hooks": [{"type": "command", "command": SETTLE, "timeout": 10}]}
    ]}});
    fs::write(settings, hooks.to_string()).unwrap();
}

/// Runs the whole session in one mode.
fn run_session(c: &Claude, mode: Mode) -> Run {
    let mut w = World::new(c, Hooks::All, &save_memory());
    // The offline summary: deterministic, and no background model call racing the
    // next request.
    w.set("MEMORY_STALKER_SUMMARIZER", "offline");
    // TodoWrite rather than the Task tools on 2.1.197, and at all on newer versions.
    w.set("CLAUDE_CODE_ENABLE_TASKS", "0");
    w.set("CLAUDE_CODE_ENABLE_TODO_TOOLS", "1");
    if mode == Mode::Auto {
        w.set("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "100000");
        settle_before_compaction(&w);
    }
    write_scripts(&w);
    let what = format!("Claude Code {} {}", c.version, mode.label());
    let mut sid: Option<String> = None;
    let prompt = |w: &World, sid: &Option<String>, text: &str| -> String {
        let mut args = vec!["--dangerously-skip-permissions"];
        if let Some(s) = sid {
            args.extend(["--resume", s.as_str()]);
        }
        args.push(text);
        let run = w.claude_p(&args);
        run.assert_ok();
        run.session_id()
    };
    for (k, seg) in session().into_iter().enumerate() {
        let last = seg.steps.len() - 1;
        for (i, step) in seg.steps.iter().enumerate() {
            let mut t = turns(&w, step);
            if mode == Mode::Auto && i == last {
                // The segment's last tool call reports a context far over the window:
                // Claude Code compacts before its next request.
                let at = t
                    .iter()
                    .rposition(|t| t.blocks.iter().any(|b| matches!(b, Block::Tool { .. })))
                    .unwrap();
                t[at].input_tokens = HUGE;
            }
            w.api.push(t);
            let id = prompt(&w, &sid, step.prompt);
            sid.get_or_insert(id);
        }
        if mode == Mode::Manual {
            prompt(&w, &sid, "/compact");
        }
        let made = w.api.compaction_requests().len();
        if made != k + 1 {
            dump(&w, mode, &[]);
        }
        assert_eq!(
            made,
            k + 1,
            "{what}: {made} compactions after segment {}",
            k + 1
        );
    }
    // One more prompt: the request after the last manual compaction, and a chance
    // for a note waiting since the last automatic one.
    w.api.push([Turn::text("Checking the notes.")]);
    prompt(&w, &sid, PROBE);
    let sid = sid.unwrap();
    let transcript = find_file(&w.home().join(".claude/projects"), &format!("{sid}.jsonl"))
        .and_then(|p| fs::read_to_string(p).ok())
        .unwrap_or_else(|| panic!("{what}: no transcript for session {sid}"));
    check_planted(&w, mode, &transcript);
    Run {
        world: w,
        transcript,
    }
}

/// The session went as scripted: every fact is in the transcript, every failing
/// command failed, every answer came from the script, three memories of the mode's
/// trigger were saved.
fn check_planted(w: &World, mode: Mode, transcript: &str) {
    let what = format!("Claude Code {} {}", w.claude.version, mode.label());
    let lower = transcript.to_lowercase();
    for f in facts() {
        for p in &f.phrases {
            // In the JSON text an apostrophe is itself; only `"` and `\` are escaped.
            assert!(
                lower.contains(&p.to_lowercase()),
                "{what}: {p:?} was never planted"
            );
        }
    }
    for seg in session() {
        for act in seg.steps.iter().flat_map(|s| &s.acts) {
            if let Act::Fail { error, .. } | Act::Check { error, .. } = act
                && !error.is_empty()
            {
                let escaped = serde_json::to_string(error).unwrap();
                let escaped = &escaped[1..escaped.len() - 1];
                assert!(
                    transcript.contains(&format!("Exit code 1\\n{escaped}")),
                    "{what}: the command failing with {error:?} did not run"
                );
            }
        }
    }
    assert!(
        !transcript.contains("No such tool available"),
        "{what}: a tool was refused"
    );
    assert!(
        !transcript.contains("\"text\":\"done.\"") && !transcript.contains("\"text\": \"done.\""),
        "{what}: the fake API ran out of script (an answer was not the one planned)"
    );
    let memories = w.memory_files();
    assert_eq!(memories.len(), COMPACTIONS, "{what}: {memories:?}");
    for m in &memories {
        let text = fs::read_to_string(m).unwrap();
        assert!(
            text.contains(&format!("trigger: \"{}\"", mode.label())),
            "{what}: {}",
            m.display()
        );
    }
}

fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
    for e in fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        if p.is_dir() {
            if let Some(found) = find_file(&p, name) {
                return Some(found);
            }
        } else if p.file_name().is_some_and(|n| n == name) {
            return Some(p);
        }
    }
    None
}

/// With `CONTINUITY_DUMP=DIR`: every request body and the transcript, for debugging.
fn dump(w: &World, mode: Mode, transcript: &[u8]) {
    let Ok(d) = std::env::var("CONTINUITY_DUMP") else {
        return;
    };
    let dir = Path::new(&d).join(format!("{}-{}", w.claude.version, mode.label()));
    fs::create_dir_all(&dir).unwrap();
    for (i, r) in w.api.message_requests().iter().enumerate() {
        fs::write(dir.join(format!("request-{i:03}.json")), &r.body).unwrap();
    }
    fs::write(dir.join("transcript.jsonl"), transcript).unwrap();
    let _ = fs::copy(w.memories().join(".log"), dir.join("memories.log"));
}

// ---------------------------------------------------------------------------------------
// Measuring

/// One piece of text memory-stalker put in front of the model.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Piece {
    /// Where it came from (`SessionStart context`, `PreCompact output in /compact`, …).
    source: String,
    text: String,
}

/// Every text the request's messages carry (strings, text blocks, tool results).
fn message_texts(body: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for m in body["messages"].as_array().into_iter().flatten() {
        match &m["content"] {
            Value::String(s) => out.push(s.clone()),
            Value::Array(blocks) => {
                for b in blocks {
                    if let Some(t) = b["text"].as_str() {
                        out.push(t.to_string());
                    }
                    match &b["content"] {
                        Value::String(s) => out.push(s.clone()),
                        Value::Array(inner) => out.extend(
                            inner
                                .iter()
                                .filter_map(|x| x["text"].as_str().map(str::to_string)),
                        ),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The hook contexts Claude Code recorded in the transcript (`hook_additional_context`
/// attachments, and the plain stdout of `hook_success` ones): the exact texts it
/// injects, however many blank lines they hold.
fn hook_contexts(transcript: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in transcript.lines() {
        let Ok(r) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if r["type"] != "attachment" {
            continue;
        }
        let a = &r["attachment"];
        let texts: Vec<String> = match a["type"].as_str() {
            Some("hook_additional_context") => a["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c.as_str().map(str::to_string))
                .collect(),
            Some("hook_success") => a["content"]
                .as_str()
                .map(str::to_string)
                .into_iter()
                .collect(),
            _ => vec![],
        };
        for t in texts {
            if !t.trim().is_empty() && !out.contains(&t) {
                out.push(t);
            }
        }
    }
    // Longest first: a context that begins like another is matched whole.
    out.sort_by_key(|t| std::cmp::Reverse(t.len()));
    out
}

/// The hook markers Claude Code writes before a hook's context in a request:
/// `<Event> hook additional context: ` and, for plain stdout, `<Event>:<source> hook
/// success: `.
fn context_markers(text: &str) -> Vec<(usize, usize, String)> {
    let re = regex::Regex::new(r"(\w+)(?::\w+)? hook (additional context|success): ").unwrap();
    re.captures_iter(text)
        .map(|c| {
            let m = c.get(0).unwrap();
            (m.start(), m.end(), format!("{} context", &c[1]))
        })
        .collect()
}

/// Hook output that `/compact` prints and Claude Code sends to the model inside
/// `<local-command-stdout>`: `PreCompact [cmd] completed successfully: <stdout>` (or
/// `failed: <stderr>`), up to the next hook's line or the end of the block.
fn compact_outputs(text: &str) -> Vec<Piece> {
    let Some(start) = text.find("<local-command-stdout>") else {
        return vec![];
    };
    let body = &text[start + "<local-command-stdout>".len()..];
    let body = &body[..body.find("</local-command-stdout>").unwrap_or(body.len())];
    let re = regex::Regex::new(
        r"(?m)^(PreCompact|PostCompact|SessionStart)\S* \[[^\]\n]*\] (?:completed successfully|failed)(: )?",
    )
    .unwrap();
    let heads: Vec<_> = re.captures_iter(body).collect();
    let mut out = Vec::new();
    for (i, c) in heads.iter().enumerate() {
        let end = heads
            .get(i + 1)
            .map_or(body.len(), |n| n.get(0).unwrap().start());
        let head = c.get(0).unwrap();
        let text = body[head.end()..end].trim_end_matches('\n');
        if c.get(2).is_some() && !text.trim().is_empty() {
            out.push(Piece {
                source: format!("{} output in /compact", &c[1]),
                text: text.to_string(),
            });
        }
    }
    out
}

/// memory-stalker's text in one request: the hook contexts (cut out exactly, using the
/// transcript's copy of each) and its hook output echoed by `/compact`. Nothing else:
/// not Claude Code's own compaction summary, not the user's prompts.
fn injected(body: &str, contexts: &[String]) -> Vec<Piece> {
    let body: Value = serde_json::from_str(body).unwrap_or_default();
    let mut out = Vec::new();
    for text in message_texts(&body) {
        for (_, end, source) in context_markers(&text) {
            let rest = &text[end..];
            let exact = contexts.iter().find(|c| rest.starts_with(c.as_str()));
            let piece = match exact {
                Some(c) => c.clone(),
                None => {
                    // Not in the transcript (it should be): up to the next blank line.
                    eprintln!(
                        "continuity: a {source} is not in the transcript; cut at a blank line"
                    );
                    rest[..rest.find("\n\n").unwrap_or(rest.len())].to_string()
                }
            };
            out.push(Piece {
                source: source.clone(),
                text: piece,
            });
        }
        out.extend(compact_outputs(&text));
    }
    out
}

/// The text with what changes from run to run replaced by placeholders of the same
/// length, and the temporary directory by `<tmp>`, so the counts repeat.
fn normalize(text: &str, root: &Path) -> String {
    let text = text.replace(&root.to_string_lossy().into_owned(), "<tmp>");
    let stamp = regex::Regex::new(r"\b\d{8}_\d{6}_[A-Za-z0-9-]{1,8}").unwrap();
    let text = stamp.replace_all(&text, |c: &regex::Captures| {
        let sid = &c[0][16..];
        format!("YYYYMMDD_HHMMSS_{}", "s".repeat(sid.len()))
    });
    let uuid =
        regex::Regex::new(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
            .unwrap();
    uuid.replace_all(&text, "ssssssss-ssss-ssss-ssss-ssssssssssss")
        .into_owned()
}

/// What memory-stalker handed the model after one compaction.
struct AfterCompaction {
    /// In the first request after it.
    first: Vec<Piece>,
    /// In any request after it, up to the next compaction (or the end).
    window: Vec<Piece>,
}

fn measure(run: &Run) -> Vec<AfterCompaction> {
    let contexts = hook_contexts(&run.transcript);
    let requests = run.world.api.message_requests();
    let root = run.world.root.path();
    let is_compaction = |b: &str| b.contains(COMPACTION_MARK);
    let counted = |b: &str| !is_compaction(b) && !b.contains(MEMORY_PROMPT_MARK);
    let at: Vec<usize> = (0..requests.len())
        .filter(|&i| is_compaction(&requests[i].body))
        .collect();
    let mut out = Vec::new();
    for (k, &i) in at.iter().enumerate() {
        let end = at.get(k + 1).copied().unwrap_or(requests.len());
        let after: Vec<&str> = requests[i + 1..end]
            .iter()
            .map(|r| r.body.as_str())
            .filter(|b| counted(b))
            .collect();
        let pieces = |b: &str| -> Vec<Piece> {
            injected(b, &contexts)
                .into_iter()
                .map(|p| Piece {
                    source: p.source,
                    text: normalize(&p.text, root),
                })
                .collect()
        };
        let first = pieces(after.first().expect("a request after the compaction"));
        let mut window: Vec<Piece> = Vec::new();
        for b in &after {
            for p in pieces(b) {
                if !window.contains(&p) {
                    window.push(p);
                }
            }
        }
        out.push(AfterCompaction { first, window });
    }
    out
}

fn joined(pieces: &[Piece]) -> String {
    pieces
        .iter()
        .map(|p| p.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The characters memory-stalker injected.
fn chars(pieces: &[Piece]) -> usize {
    pieces.iter().map(|p| p.text.chars().count()).sum()
}

/// Whether the text names the fact: every phrase, case-insensitive.
fn names(text_lower: &str, fact: &Fact) -> bool {
    fact.phrases
        .iter()
        .all(|p| text_lower.contains(&p.to_lowercase()))
}

/// `found/planted` for the facts of `kind` (all kinds: `None`) planted before
/// compaction `k` (0-based).
fn share(text: &str, k: usize, kind: Option<Kind>) -> String {
    let lower = text.to_lowercase();
    let planted: Vec<Fact> = facts()
        .into_iter()
        .filter(|f| f.segment <= k && kind.is_none_or(|kd| f.kind == kd))
        .collect();
    let found = planted.iter().filter(|f| names(&lower, f)).count();
    format!("{found}/{}", planted.len())
}

// ---------------------------------------------------------------------------------------
// The report

fn table(version: &str, results: &[(Mode, Vec<AfterCompaction>)]) -> String {
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    let cells = |f: &dyn Fn(&AfterCompaction, usize) -> String| -> Vec<String> {
        results
            .iter()
            .flat_map(|(_, r)| r.iter().enumerate().map(|(k, a)| f(a, k)))
            .collect()
    };
    for kind in KINDS {
        rows.push((
            kind.label().into(),
            cells(&|a, k| share(&joined(&a.first), k, Some(kind))),
        ));
    }
    rows.push((
        "total".into(),
        cells(&|a, k| share(&joined(&a.first), k, None)),
    ));
    rows.push((
        "injected chars".into(),
        cells(&|a, _| chars(&a.first).to_string()),
    ));
    rows.push((
        "total, until next compaction".into(),
        cells(&|a, k| share(&joined(&a.window), k, None)),
    ));
    let label_w = rows.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
    let cell_w = 7;
    let mut out = String::new();
    let _ = writeln!(out, "Claude Code {version}");
    let mut head = format!("{:label_w$} ", "");
    let mut sub = format!("{:label_w$} ", "after compaction");
    for (mode, r) in results {
        let _ = write!(head, "| {:<w$}", mode.label(), w = cell_w * r.len());
        let _ = write!(sub, "| ");
        for k in 0..r.len() {
            let _ = write!(sub, "{:<cell_w$}", k + 1);
        }
    }
    let _ = writeln!(out, "{}", head.trim_end());
    let _ = writeln!(out, "{}", sub.trim_end());
    let _ = writeln!(out, "{}", rule(&sub));
    for (label, cells) in &rows {
        if label == "total" {
            let _ = writeln!(out, "{}", rule(&sub));
        }
        let mut line = format!("{label:label_w$} ");
        let mut c = cells.iter();
        for (_, r) in results {
            let _ = write!(line, "| ");
            for _ in 0..r.len() {
                let _ = write!(line, "{:<cell_w$}", c.next().unwrap());
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

fn rule(like: &str) -> String {
    like.chars()
        .map(|c| if c == '|' { '+' } else { '-' })
        .collect::<String>()
        .trim_end()
        .to_string()
}

/// The injected text after the last compaction, by source, and which facts it names.
fn details(version: &str, mode: Mode, after: &[AfterCompaction]) -> String {
    let mut out = String::new();
    let k = after.len() - 1;
    let last = &after[k];
    let _ = writeln!(
        out,
        "==== Claude Code {version}, {}: injected text in the first request after compaction {} ====",
        mode.label(),
        k + 1
    );
    for p in &last.first {
        let _ = writeln!(
            out,
            "---- {} ({} chars)\n{}",
            p.source,
            p.text.chars().count(),
            p.text.trim_end()
        );
    }
    let lower = joined(&last.first).to_lowercase();
    let _ = writeln!(
        out,
        "---- facts planted (segment = before which compaction):"
    );
    for f in facts() {
        let _ = writeln!(
            out,
            "  [{}] {:<18} segment {}  {}",
            if names(&lower, &f) { "x" } else { " " },
            f.kind.label(),
            f.segment + 1,
            f.phrases.join(" + ")
        );
    }
    out
}

#[test]
#[ignore = "a benchmark: cargo test -p save-memory --test save_memory continuity -- --ignored --nocapture"]
fn continuity_after_compaction() {
    let only = std::env::var("CONTINUITY_VERSIONS").ok();
    let verbose = std::env::var("CONTINUITY_VERBOSE").is_ok_and(|v| !v.is_empty() && v != "0");
    let versions: Vec<Claude> = installed()
        .into_iter()
        .filter(|c| {
            only.as_deref()
                .is_none_or(|o| o.split([' ', ',']).any(|v| v == c.version))
        })
        .collect();
    assert!(
        !versions.is_empty(),
        "no Claude Code to run (scripts/test installs it)"
    );
    let mut report = String::from(
        "memory-stalker continuity: facts named by the text memory-stalker injects into the\n\
         first request after each compaction (found / planted before that compaction)\n\n",
    );
    let mut verbose_text = String::new();
    for c in &versions {
        let mut results = Vec::new();
        for mode in [Mode::Auto, Mode::Manual] {
            let run = run_session(c, mode);
            dump(&run.world, mode, run.transcript.as_bytes());
            let after = measure(&run);
            assert_eq!(after.len(), COMPACTIONS);
            verbose_text.push_str(&details(&c.version, mode, &after));
            results.push((mode, after));
        }
        report.push_str(&table(&c.version, &results));
        report.push('\n');
    }
    report.push_str(
        "injected chars: characters of that text (restore context, notes, hook output of /compact).\n\
         total, until next compaction: facts named in any request up to the next compaction\n\
         (or the end), e.g. by a note handed over with the next prompt.\n",
    );
    if verbose {
        println!("{verbose_text}");
    }
    print!("{report}");
}
