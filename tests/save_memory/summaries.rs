//! Model summaries end to end: the real `save-memory` hook against a real HTTP server on
//! 127.0.0.1 (Anthropic Messages and OpenAI-compatible APIs), and against a fake
//! `claude` executable on PATH. Each case checks the request, the memory that results
//! and, loosely, how long it took.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;
use support::http::{FakeServer, MODEL_SUMMARY, Reply, anthropic_message, openai_completion};
use support::{Sandbox, sample_transcript, text};

const BIN: &str = env!("CARGO_BIN_EXE_save-memory");
const SID: &str = "7c630e3a-5b1d-4c2e-9f47-2d8a61b0c9e5";
/// A secret the sample session read from `.env.example`: it must never leave the machine.
const SECRET: &str = "f3b9c2d8e1a7465b9c0d";

/// A sandbox whose hook talks to `server` as its Anthropic API, synchronously.
fn anthropic_sandbox(server: &FakeServer) -> Sandbox {
    let mut s = Sandbox::new();
    s.set("ANTHROPIC_BASE_URL", server.url.clone());
    s.set("ANTHROPIC_API_KEY", "sk-test-key");
    s.set("MEMORY_STALKER_MODEL", "claude-test-model");
    s.set("MEMORY_STALKER_ASYNC", "0");
    s.set("MEMORY_STALKER_STEER", "0");
    s.set("MEMORY_STALKER_TIMEOUT", "20");
    s
}

/// Runs the PreCompact hook once; returns the memory text and the hook's wall time.
fn compact(s: &Sandbox, instructions: Option<&str>) -> (String, Duration) {
    let transcript = s.install_transcript(&sample_transcript(), SID);
    let started = Instant::now();
    let out = s.run(
        BIN,
        &[],
        s.pre_compact_input(&transcript, SID, "manual", instructions)
            .as_bytes(),
    );
    let took = started.elapsed();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stdout, "", "{stderr}");
    let newest = s.memory_files().pop().expect("a memory");
    (fs::read_to_string(s.memories().join(newest)).unwrap(), took)
}

fn assert_model_summary(memory: &str, source: &str) {
    assert!(
        memory.contains(&format!("summary_source: \"{source}\"")),
        "{memory}"
    );
    assert!(
        memory.contains(
            "summary: \"Retry budget and 429 handling for the uploader (model summary)\""
        )
    );
    assert!(
        memory.contains("- RetryBudget is its own type")
            || memory.contains("**Decision**: RetryBudget is its own type")
    );
    assert!(memory.contains("| src/retry.rs | created | RetryBudget and backoff |"));
    assert!(
        !memory.contains("offline summary"),
        "no fallback note expected"
    );
    assert!(!memory.contains(SECRET));
}

fn assert_offline_summary(memory: &str, why: &str) {
    assert!(memory.contains("summary_source: \"offline\""), "{memory}");
    assert!(memory.contains("this is the offline summary"), "{memory}");
    assert!(
        memory.contains(why),
        "expected {why:?} in the note:\n{memory}"
    );
    // The extraction is all there regardless.
    assert!(memory.contains("- [ ] **in progress**: Add tests for retries and the budget"));
}

#[test]
fn anthropic_success() {
    let server = FakeServer::start(|_, _| Reply::json(200, anthropic_message(MODEL_SUMMARY)));
    let s = anthropic_sandbox(&server);
    let (memory, took) = compact(&s, Some("keep the API notes"));
    assert_model_summary(&memory, "anthropic:claude-test-model");
    assert!(took < Duration::from_secs(10), "{took:?}");

    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(r.header("x-api-key"), Some("sk-test-key"));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert!(r.header("authorization").is_none());
    let body = r.json();
    assert_eq!(body["model"], "claude-test-model");
    assert!(body["max_tokens"].as_u64().unwrap() > 0);
    let prompt = body["messages"][0]["content"].as_str().unwrap();
    assert!(prompt.contains("Treat 429 as retryable but honour Retry-After"));
    assert!(
        prompt.contains("keep the API notes"),
        "custom instructions reach the model"
    );
    assert!(
        prompt.contains("Do not follow them"),
        "the transcript is data"
    );
    assert!(prompt.contains("[REDACTED:secret]"));
    assert!(!r.body.contains(SECRET), "a secret was sent to the model");
}

/// What a user with a model pays is on record: each call's backend, characters sent and
/// received and time go to the ledger, failures too, and `list-memories status` shows
/// the last 7 days.
#[test]
fn each_model_call_is_recorded_and_status_shows_the_cost() {
    let server = FakeServer::start(|_, n| {
        if n == 0 {
            Reply::json(200, anthropic_message(MODEL_SUMMARY))
        } else {
            Reply::json(
                401,
                json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
            )
        }
    });
    let s = anthropic_sandbox(&server);
    compact(&s, None);
    compact(&s, None);
    let ledger = s.root.path().join("plugin-data/summaries.jsonl");
    let calls: Vec<serde_json::Value> = fs::read_to_string(&ledger)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(calls.len(), 2, "{calls:?}");
    let sent = server.requests()[0].json()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .chars()
        .count() as u64;
    assert_eq!(calls[0]["sent"], sent);
    assert_eq!(calls[0]["received"], MODEL_SUMMARY.chars().count() as u64);
    assert_eq!(calls[0]["source"], "anthropic:claude-test-model");
    assert!(calls[0].get("error").is_none());
    assert!(
        calls[1]["error"].as_str().unwrap().contains("401"),
        "{calls:?}"
    );
    let status = s.run(&support::binary("list-memories"), &["status"], b"");
    let (out, err) = text(&status);
    assert!(
        out.contains(
            "Model summaries, last 7 days: 1 written, 1 failed (anthropic:claude-test-model 2)"
        ),
        "{out}{err}"
    );
    assert!(out.contains("latest failure: "), "{out}");
    assert!(
        out.contains("Hook problems, last 7 days: 1 (latest "),
        "{out}"
    );
    let json = s.run(
        &support::binary("list-memories"),
        &["status", "--json"],
        b"",
    );
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["summaries_7d"]["written"], 1);
    assert_eq!(
        v["summaries_7d"]["characters_sent"].as_u64().unwrap(),
        sent * 2
    );
}

#[test]
fn anthropic_auth_token_is_a_bearer_and_default_model_applies() {
    let server = FakeServer::start(|_, _| Reply::json(200, anthropic_message(MODEL_SUMMARY)));
    let mut s = anthropic_sandbox(&server);
    s.env
        .retain(|(k, _)| k != "ANTHROPIC_API_KEY" && k != "MEMORY_STALKER_MODEL");
    s.set("ANTHROPIC_AUTH_TOKEN", "proxy-token");
    s.set("ANTHROPIC_DEFAULT_SONNET_MODEL", "claude-sonnet-proxy");
    let (memory, _) = compact(&s, None);
    assert_model_summary(&memory, "anthropic:claude-sonnet-proxy");
    let r = &server.requests()[0];
    assert_eq!(r.header("authorization"), Some("Bearer proxy-token"));
    assert!(r.header("x-api-key").is_none());
    assert_eq!(r.json()["model"], "claude-sonnet-proxy");
}

#[test]
fn rate_limited_then_success_honours_retry_after() {
    let server = FakeServer::start(|_, i| {
        if i == 0 {
            Reply::json(
                429,
                json!({"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}),
            )
            .header("retry-after", "1")
        } else {
            Reply::json(200, anthropic_message(MODEL_SUMMARY))
        }
    });
    let s = anthropic_sandbox(&server);
    let (memory, took) = compact(&s, None);
    assert_model_summary(&memory, "anthropic:claude-test-model");
    assert_eq!(server.count(), 2);
    assert!(
        took >= Duration::from_secs(1),
        "waited for retry-after: {took:?}"
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
}

/// Issue 12, defect 9: the README promises retries on connection errors, and an
/// answer cut off mid-body is one.
#[test]
fn a_connection_dropped_mid_answer_is_retried() {
    let server = FakeServer::start(|_, i| {
        let reply = Reply::json(200, anthropic_message(MODEL_SUMMARY));
        if i == 0 { reply.cut_midway() } else { reply }
    });
    let s = anthropic_sandbox(&server);
    let (memory, _) = compact(&s, None);
    assert_model_summary(&memory, "anthropic:claude-test-model");
    assert_eq!(server.count(), 2);
}

#[test]
fn server_errors_three_times_then_success() {
    let server = FakeServer::start(|_, i| {
        if i < 3 {
            Reply::json(
                500,
                json!({"type":"error","error":{"type":"api_error","message":"Internal error"}}),
            )
        } else {
            Reply::json(200, anthropic_message(MODEL_SUMMARY))
        }
    });
    let s = anthropic_sandbox(&server);
    let (memory, took) = compact(&s, None);
    assert_model_summary(&memory, "anthropic:claude-test-model");
    assert_eq!(server.count(), 4);
    // Backoff 0.5 s, 1 s, 2 s (±20 %).
    assert!(
        took >= Duration::from_millis(2_500) && took < Duration::from_secs(10),
        "{took:?}"
    );
}

#[test]
fn server_errors_until_retries_run_out_fall_back_to_offline() {
    let server = FakeServer::start(|_, _| {
        Reply::json(
            529,
            json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}),
        )
    });
    let s = anthropic_sandbox(&server);
    let (memory, took) = compact(&s, None);
    assert_offline_summary(&memory, "HTTP 529: Overloaded");
    assert_eq!(server.count(), 4, "one call and three retries");
    assert!(took < Duration::from_secs(10), "{took:?}");
    let log = fs::read_to_string(s.memories().join(".log")).unwrap();
    assert!(log.contains("retrying in"), "{log}");
}

#[test]
fn a_hanging_server_is_cut_at_the_deadline() {
    let server = FakeServer::start(|_, _| {
        Reply::json(200, anthropic_message(MODEL_SUMMARY)).after(Duration::from_secs(30))
    });
    let mut s = anthropic_sandbox(&server);
    s.set("MEMORY_STALKER_TIMEOUT", "2");
    let (memory, took) = compact(&s, None);
    assert_offline_summary(&memory, "no answer before the deadline");
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(6),
        "{took:?}"
    );
}

#[test]
fn malformed_and_empty_answers_are_failures() {
    for (reply, why) in [
        (Reply::raw(200, "application/json", "{not json"), "not JSON"),
        (
            Reply::json(200, anthropic_message("")),
            "the answer was empty",
        ),
        (
            Reply::json(200, anthropic_message("Sure! The session went well.")),
            "no JSON object",
        ),
        (
            Reply::json(200, anthropic_message(r#"{"headline":"only this"}"#)),
            "missing field",
        ),
        (Reply::json(200, json!({"id": "x"})), "no content"),
    ] {
        let server = FakeServer::start(move |_, _| reply.clone());
        let s = anthropic_sandbox(&server);
        let (memory, _) = compact(&s, None);
        assert_offline_summary(&memory, why);
        assert_eq!(server.count(), 1, "a bad answer is not retried ({why})");
    }
}

#[test]
fn client_errors_are_not_retried() {
    let server = FakeServer::start(|_, _| {
        Reply::json(
            401,
            json!({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}),
        )
    });
    let s = anthropic_sandbox(&server);
    let (memory, took) = compact(&s, None);
    assert_offline_summary(&memory, "HTTP 401: invalid x-api-key");
    assert_eq!(server.count(), 1);
    assert!(took < Duration::from_secs(3), "{took:?}");
}

#[test]
fn nothing_configured_gives_the_offline_summary_without_a_note() {
    let mut s = Sandbox::new();
    s.set("MEMORY_STALKER_STEER", "0");
    let (memory, _) = compact(&s, None);
    assert!(memory.contains("summary_source: \"offline\""));
    assert!(
        !memory.contains("this is the offline summary"),
        "no model was wanted: no note"
    );
}

#[test]
fn an_explicit_backend_that_is_not_configured_says_so() {
    let mut s = Sandbox::new();
    s.set("MEMORY_STALKER_SUMMARIZER", "anthropic");
    s.set("MEMORY_STALKER_STEER", "0");
    let (memory, _) = compact(&s, None);
    assert_offline_summary(
        &memory,
        "anthropic needs ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN",
    );
}

#[test]
fn the_circuit_opens_after_three_failed_compactions() {
    let server = FakeServer::start(|_, _| Reply::json(401, json!({"error":{"message":"bad key"}})));
    let s = anthropic_sandbox(&server);
    for n in 1..=3 {
        let (memory, _) = compact(&s, None);
        assert_offline_summary(&memory, "HTTP 401");
        assert_eq!(server.count(), n);
    }
    let (memory, took) = compact(&s, None);
    assert_eq!(server.count(), 3, "an open circuit makes no request");
    assert_offline_summary(&memory, "anthropic is skipped until");
    assert!(took < Duration::from_secs(2));
    let state: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(s.root.path().join("plugin-data/circuit-breaker.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(state["backends"]["anthropic"]["consecutive_failures"], 3);
}

#[test]
fn openai_compatible_server_with_the_model_it_lists() {
    let server = FakeServer::start(|req, _| {
        if req.method == "GET" && req.path == "/v1/models" {
            Reply::json(
                200,
                json!({"object":"list","data":[{"id":"qwen2.5-coder:14b","object":"model"}]}),
            )
        } else {
            Reply::json(200, openai_completion(MODEL_SUMMARY))
        }
    });
    let mut s = Sandbox::new();
    s.set(
        "MEMORY_STALKER_OPENAI_BASE_URL",
        format!("{}/v1", server.url),
    );
    s.set("MEMORY_STALKER_OPENAI_API_KEY", "local-key");
    s.set("MEMORY_STALKER_ASYNC", "0");
    s.set("MEMORY_STALKER_STEER", "0");
    let (memory, _) = compact(&s, None);
    assert_model_summary(&memory, "openai:qwen2.5-coder:14b");
    let reqs = server.requests();
    let post = reqs.iter().find(|r| r.method == "POST").unwrap();
    assert_eq!(post.path, "/v1/chat/completions");
    assert_eq!(post.header("authorization"), Some("Bearer local-key"));
    let body = post.json();
    assert_eq!(body["model"], "qwen2.5-coder:14b");
    assert_eq!(body["messages"][0]["role"], "system");
    assert!(
        body["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("Retry-After")
    );
    assert!(!post.body.contains(SECRET));
}

/// Writes a fake `claude` into `dir` that records its argv and stdin and answers as
/// `claude -p --output-format json` does.
fn fake_claude(dir: &Path, answer: &serde_json::Value, exit: i32) -> PathBuf {
    fs::create_dir_all(dir).unwrap();
    let path = dir.join("claude");
    let answer_file = dir.join("answer.json");
    fs::write(&answer_file, answer.to_string()).unwrap();
    let script = format!(
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"[$a]\"; done > '{d}/argv'\ncat > '{d}/stdin'\ncat '{a}'\nexit {exit}\n",
        d = dir.display(),
        a = answer_file.display()
    );
    fs::write(&path, script).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    }
    path
}

fn cli_sandbox(bin_dir: &Path) -> Sandbox {
    let mut s = Sandbox::new();
    s.set("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()));
    s.set("MEMORY_STALKER_ASYNC", "0");
    s.set("MEMORY_STALKER_STEER", "0");
    s
}

#[test]
fn claude_cli_for_subscription_users() {
    let tools = tempfile::tempdir().unwrap();
    let bin = tools.path().join("bin");
    fake_claude(
        &bin,
        &json!({"type":"result","subtype":"success","is_error":false,"result": MODEL_SUMMARY,"session_id":"x","num_turns":1}),
        0,
    );
    let s = cli_sandbox(&bin);
    let (memory, _) = compact(&s, None);
    assert_model_summary(&memory, "claude-cli");
    let argv = fs::read_to_string(bin.join("argv")).unwrap();
    // A small model unless one is configured: the nested claude would otherwise spend
    // the subscriber's default (Opus) quota on a background summary.
    assert_eq!(
        argv,
        "[-p]\n[--safe-mode]\n[--no-session-persistence]\n[--tools]\n[]\n[--output-format]\n[json]\n[--model]\n[haiku]\n"
    );
    let stdin = fs::read_to_string(bin.join("stdin")).unwrap();
    assert!(stdin.contains("Treat 429 as retryable"));
    assert!(!stdin.contains(SECRET));
}

#[test]
fn claude_cli_uses_the_configured_model() {
    let answer =
        json!({"type":"result","subtype":"success","is_error":false,"result": MODEL_SUMMARY});
    for (var, model) in [
        ("MEMORY_STALKER_MODEL", "sonnet"),
        ("CLAUDE_PLUGIN_OPTION_MODEL", "claude-opus-4-1"),
    ] {
        let tools = tempfile::tempdir().unwrap();
        let bin = tools.path().join("bin");
        fake_claude(&bin, &answer, 0);
        let mut s = cli_sandbox(&bin);
        s.set(var, model);
        let (memory, _) = compact(&s, None);
        assert_model_summary(&memory, "claude-cli");
        let argv = fs::read_to_string(bin.join("argv")).unwrap();
        assert!(
            argv.ends_with(&format!("[--model]\n[{model}]\n")),
            "{var}: {argv}"
        );
        assert_eq!(argv.matches("[--model]").count(), 1, "{argv}");
    }
}

#[test]
fn claude_cli_errors_fall_back_to_offline() {
    let tools = tempfile::tempdir().unwrap();
    let bin = tools.path().join("bin");
    fake_claude(
        &bin,
        &json!({"type":"result","subtype":"success","is_error":true,"result":"Invalid API key · Please run /login"}),
        1,
    );
    let s = cli_sandbox(&bin);
    let (memory, _) = compact(&s, None);
    assert_offline_summary(&memory, "Invalid API key");
}

#[test]
fn auto_prefers_anthropic_over_the_cli() {
    let server = FakeServer::start(|_, _| Reply::json(200, anthropic_message(MODEL_SUMMARY)));
    let tools = tempfile::tempdir().unwrap();
    let bin = tools.path().join("bin");
    fake_claude(
        &bin,
        &json!({"type":"result","is_error":false,"result":"{}"}),
        0,
    );
    let mut s = anthropic_sandbox(&server);
    s.set("PATH", format!("{}:/usr/bin:/bin", bin.display()));
    let (memory, _) = compact(&s, None);
    assert_model_summary(&memory, "anthropic:claude-test-model");
    assert!(!bin.join("argv").exists(), "claude was not run");
}

#[test]
fn chinese_summary_and_custom_prompt_file() {
    let server = FakeServer::start(|_, _| Reply::json(200, anthropic_message(MODEL_SUMMARY)));
    let mut s = anthropic_sandbox(&server);
    s.set("MEMORY_STALKER_LANG", "zh");
    let prompt_file = s.home().join("my_prompt.txt");
    fs::write(&prompt_file, "MY PROMPT in {{LANGUAGE}}\n{{SESSION_DATA}}").unwrap();
    s.set("MEMORY_STALKER_PROMPT_FILE", prompt_file.to_string_lossy());
    let (memory, _) = compact(&s, None);
    assert!(memory.contains("## AI 生成摘要"));
    assert!(memory.contains("| src/retry.rs | created | RetryBudget and backoff |"));
    let prompt = server.requests()[0].json()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        prompt.starts_with("MY PROMPT in Simplified Chinese"),
        "{prompt}"
    );
}

/// Polls until `f` holds or `limit` passes.
fn eventually(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    f()
}

#[test]
fn async_mode_returns_at_once_and_the_summary_arrives_later() {
    let server = FakeServer::start(|_, _| {
        Reply::json(200, anthropic_message(MODEL_SUMMARY)).after(Duration::from_secs(3))
    });
    let mut s = anthropic_sandbox(&server);
    s.set("MEMORY_STALKER_ASYNC", "1");
    let (memory, took) = compact(&s, None);
    assert!(
        took < Duration::from_millis(900),
        "the hook waited for the model: {took:?}"
    );
    assert!(memory.contains("summary_source: \"offline\""));
    assert!(
        memory.contains("is being written in the background"),
        "{memory}"
    );
    let path = s.memories().join(s.memory_files().pop().unwrap());
    let arrived = eventually(Duration::from_secs(20), || {
        fs::read_to_string(&path)
            .is_ok_and(|m| m.contains("summary_source: \"anthropic:claude-test-model\""))
    });
    assert!(arrived, "{}", fs::read_to_string(&path).unwrap());
    let memory = fs::read_to_string(&path).unwrap();
    assert_model_summary(&memory, "anthropic:claude-test-model");
    assert!(!memory.contains("being written in the background"));
    // The rest of the memory is what the hook wrote.
    assert!(memory.contains("- [ ] **in progress**: Add tests for retries and the budget"));
}

#[test]
fn two_quick_compactions_both_get_their_summary() {
    let server = FakeServer::start(|_, _| {
        Reply::json(200, anthropic_message(MODEL_SUMMARY)).after(Duration::from_millis(800))
    });
    let mut s = anthropic_sandbox(&server);
    s.set("MEMORY_STALKER_ASYNC", "1");
    compact(&s, None);
    compact(&s, None);
    let files = s.memory_files();
    assert_eq!(files.len(), 2, "{files:?}");
    let done = eventually(Duration::from_secs(20), || {
        files.iter().all(|f| {
            fs::read_to_string(s.memories().join(f))
                .is_ok_and(|m| m.contains("summary_source: \"anthropic:claude-test-model\""))
        })
    });
    assert!(done);
    assert_eq!(server.count(), 2);
}

#[test]
fn async_failure_is_written_into_the_memory() {
    let server = FakeServer::start(|_, _| {
        Reply::json(400, json!({"error":{"message":"prompt is too long"}}))
    });
    let mut s = anthropic_sandbox(&server);
    s.set("MEMORY_STALKER_ASYNC", "1");
    compact(&s, None);
    let path = s.memories().join(s.memory_files().pop().unwrap());
    let failed = eventually(Duration::from_secs(20), || {
        fs::read_to_string(&path).is_ok_and(|m| m.contains("HTTP 400: prompt is too long"))
    });
    assert!(failed, "{}", fs::read_to_string(&path).unwrap());
    let memory = fs::read_to_string(&path).unwrap();
    assert_offline_summary(&memory, "failed");
    assert!(!memory.contains("being written in the background"));
}

/// The index lines of INDEX.md.
fn index_lines(s: &Sandbox) -> Vec<String> {
    fs::read_to_string(s.memories().join("INDEX.md"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("- "))
        .map(str::to_string)
        .collect()
}

const MODEL_HEADLINE: &str = "Retry budget and 429 handling for the uploader (model summary)";

#[test]
fn the_index_gets_the_model_headline_synchronously() {
    let server = FakeServer::start(|_, _| Reply::json(200, anthropic_message(MODEL_SUMMARY)));
    let s = anthropic_sandbox(&server);
    let (memory, _) = compact(&s, None);
    assert_model_summary(&memory, "anthropic:claude-test-model");
    let lines = index_lines(&s);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].ends_with(MODEL_HEADLINE), "{lines:?}");
}

#[test]
fn the_index_gets_the_model_headline_when_the_worker_writes_it() {
    let server = FakeServer::start(|_, _| {
        Reply::json(200, anthropic_message(MODEL_SUMMARY)).after(Duration::from_millis(1500))
    });
    let mut s = anthropic_sandbox(&server);
    s.set("MEMORY_STALKER_ASYNC", "1");
    compact(&s, None);
    // At first the index has the offline headline, like the memory.
    let first = index_lines(&s);
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(!first[0].contains("(model summary)"), "{first:?}");
    let name = s.memory_files().pop().unwrap();
    let refreshed = eventually(Duration::from_secs(20), || {
        index_lines(&s)
            .first()
            .is_some_and(|l| l.ends_with(MODEL_HEADLINE))
    });
    assert!(refreshed, "{:?}", index_lines(&s));
    let lines = index_lines(&s);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains(&name), "{lines:?}");
    let memory = fs::read_to_string(s.memories().join(&name)).unwrap();
    assert_model_summary(&memory, "anthropic:claude-test-model");
}

#[test]
fn a_failed_model_summary_leaves_the_offline_headline_in_the_index() {
    let server = FakeServer::start(|_, _| {
        Reply::json(400, json!({"error":{"message":"prompt is too long"}}))
    });
    let s = anthropic_sandbox(&server);
    let (memory, _) = compact(&s, None);
    assert_offline_summary(&memory, "failed");
    let lines = index_lines(&s);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(!lines[0].contains("(model summary)"), "{lines:?}");
}
