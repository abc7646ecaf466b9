//! The secret table: every kind of secret the redactor knows, planted everywhere a
//! transcript can carry it, checked at every way out of the real binaries: the memory
//! file, INDEX.md, the log, the circuit breaker's state, stderr, each hook's stdout
//! (steering, restore, the dropped-facts note), the request to the model, `inspect`,
//! and any other file written.
//!
//! Secret-shaped strings are assembled at run time, so the repository holds nothing a
//! secret scanner would flag.

use crate::support;

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use serde_json::{Value, json};
use support::http::{FakeServer, Reply};
use support::{Sandbox, text};

const BIN: &str = env!("CARGO_BIN_EXE_save-memory");
const SID: &str = "5ec7e75a-0000-4000-8000-000000000001";

/// `n` characters cycling through letters and digits.
fn body(n: usize) -> String {
    "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY"
        .chars()
        .cycle()
        .take(n)
        .collect()
}

/// (kind, the text that carries it, the secret part that must never come out).
fn secrets() -> Vec<(&'static str, String, String)> {
    let shaped = |kind, prefix: &str, rest: String| {
        let secret = format!("{prefix}{rest}");
        (kind, format!("value {secret} end"), secret)
    };
    let ctx = |kind, text: String, secret: &str| (kind, text, secret.to_string());
    let key_lines: Vec<String> = (0..8).map(|i| format!("{}{i:02}", body(62))).collect();
    let pk = "PRIVATE KEY";
    vec![
        shaped("anthropic-key", "sk-ant-api03-", body(93)),
        shaped("openai-key", "sk-proj-", body(100)),
        shaped("github-token", "ghp_", body(36)),
        shaped("github-pat", "github_pat_", body(82)),
        shaped("gitlab-token", "glpat-", body(20)),
        shaped("slack-token", "xoxb-", format!("2637183-{}", body(24))),
        shaped("stripe-key", "sk_live_", body(24)),
        shaped("stripe-webhook", "whsec_", body(32)),
        shaped("aws-access-key", "AKIA", "IOSFODNN7EXAMPLQ".into()),
        shaped("google-api-key", "AIza", body(35)),
        shaped("google-oauth", "ya29.", body(60)),
        shaped("google-client-secret", "GOCSPX-", body(28)),
        shaped("npm-token", "npm_", body(36)),
        shaped("huggingface", "hf_", body(34)),
        shaped("sendgrid", "SG.", format!("{}.{}", body(22), body(43))),
        shaped(
            "jwt",
            "eyJ",
            format!("{}.eyJ{}.{}", body(30), body(40), body(43)),
        ),
        ctx(
            "aws-secret-key",
            format!("aws_secret_access_key = {}", body(40)),
            &body(40),
        ),
        ctx(
            "slack-webhook",
            format!("https://hooks.slack.com/services/T0000/B0000/{}", body(24)),
            &body(24),
        ),
        ctx(
            "url-password",
            "postgres://app:S3cr3tPa55w0rd@db.internal:5432/prod".into(),
            "S3cr3tPa55w0rd",
        ),
        ctx(
            "url-password-with-@",
            "redis://cache:p@ssw0rd!xyz9@redis.internal:6379/0".into(),
            "ssw0rd!xyz9",
        ),
        ctx(
            "authorization",
            "Authorization: Bearer abc123def456ghi789jkl".into(),
            "abc123def456ghi789jkl",
        ),
        ctx(
            "x-api-key",
            "x-api-key: k3y-v4lue-1234567".into(),
            "k3y-v4lue-1234567",
        ),
        ctx(
            "password=",
            "export DB_PASSWORD=hunter2isgr8".into(),
            "hunter2isgr8",
        ),
        ctx("*_PASS", "DB_PASS=Tr0ub4dor3xx".into(), "Tr0ub4dor3xx"),
        ctx(
            "*_KEY",
            "SESSION_KEY=9f8e7d6c5b4a3928".into(),
            "9f8e7d6c5b4a3928",
        ),
        ctx(
            "*_KEY (signing)",
            "SIGNING_KEY: c2lnbmluZy1rZXk".into(),
            "c2lnbmluZy1rZXk",
        ),
        ctx(
            "*_TOKEN",
            "GITHUB_TOKEN=not_a_gh_shape_12345".into(),
            "not_a_gh_shape_12345",
        ),
        ctx(
            "*_SECRET",
            "APP_SECRET=aPpS3cr3tV4lue".into(),
            "aPpS3cr3tV4lue",
        ),
        ctx(
            "PASSPHRASE",
            "PASSPHRASE=correcthorsebattery".into(),
            "correcthorsebattery",
        ),
        ctx(
            "--password X",
            "./deploy --password Sup3rS3cretX --verbose".into(),
            "Sup3rS3cretX",
        ),
        ctx(
            "--x-password=X",
            "psql --db-password=Pg_p4ss_2024 -h db".into(),
            "Pg_p4ss_2024",
        ),
        ctx(
            "mysql -pX",
            "mysql -u root -pMyR00tPw99 prod_db".into(),
            "MyR00tPw99",
        ),
        ctx(
            "curl -u user:pass",
            "curl -u admin:Adm1nPassw0rd https://api.example.com".into(),
            "Adm1nPassw0rd",
        ),
        (
            "private-key",
            format!(
                "-----BEGIN RSA {pk}-----\n{}\n-----END RSA {pk}-----",
                key_lines.join("\n")
            ),
            key_lines[4].clone(),
        ),
    ]
}

/// Text a redactor must leave alone: it reaches the memory as it was.
const NEAR_MISSES: [&str; 6] = [
    "docker run -u 1000:1000 -p 8080:80 image",
    "cargo test -p memory-stalker",
    "git push -u origin main",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
    "max_tokens: 4096",
    "deploy --password \"$DB_PASSWORD\"",
];

fn line(v: Value) -> String {
    let mut v = v;
    let obj = v.as_object_mut().unwrap();
    obj.insert("sessionId".into(), json!(SID));
    obj.insert("cwd".into(), json!("/proj"));
    obj.insert("version".into(), json!("2.1.197"));
    obj.insert("isSidechain".into(), json!(false));
    obj.entry("timestamp")
        .or_insert(json!("2026-11-20T14:00:00.000Z"));
    v.to_string()
}

/// A session that carries every secret in its last prompt, its task list, a tool call,
/// a long tool output (a key split by the cut) and the final reply.
fn transcript(secrets: &[(&str, String, String)]) -> String {
    let all: Vec<&str> = secrets.iter().map(|(_, t, _)| t.as_str()).collect();
    let prompt = format!(
        "Deploy to staging with these settings:\n{}\nAlso keep: {}",
        all.join("\n"),
        NEAR_MISSES.join(" | ")
    );
    let todos: Vec<Value> = secrets
        .iter()
        .enumerate()
        .map(|(i, (_, t, _))| {
            json!({"content": format!("use {t}"), "status": if i == 0 { "in_progress" } else { "pending" }, "activeForm": "working"})
        })
        .collect();
    let long_output = format!(
        "{}\n{}\n{}",
        "log line\n".repeat(30_000),
        all.join("\n"),
        "tail\n".repeat(50)
    );
    [
        line(json!({"type":"user","message":{"role":"user","content":prompt}})),
        line(
            json!({"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"TodoWrite","input":{"todos":todos}}]}}),
        ),
        line(
            json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Todos have been modified successfully"}]}}),
        ),
        line(
            json!({"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":all.join(" && ")}}]}}),
        ),
        line(
            json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":long_output}]}}),
        ),
        line(
            json!({"type":"assistant","message":{"id":"m3","role":"assistant","content":[{"type":"text","text":format!("Deployed. I used:\n{}", all.join("\n"))}]}}),
        ),
    ]
    .join("\n")
        + "\n"
}

fn hook(s: &Sandbox, input: Value) -> (String, String) {
    let out = s.run(BIN, &[], input.to_string().as_bytes());
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    text(&out)
}

/// Every file under `dir`, with its text.
fn files_under(dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else if let Ok(bytes) = fs::read(&p) {
            out.push((
                p.display().to_string(),
                String::from_utf8_lossy(&bytes).into_owned(),
            ));
        }
    }
}

#[test]
fn no_secret_leaves_by_any_way_out() {
    let secrets = secrets();
    assert!(secrets.len() >= 30, "{} kinds", secrets.len());
    let mut s = Sandbox::new();
    // The model refuses the call and echoes the key it was given, as some proxies do.
    let echoed: Vec<String> = secrets.iter().map(|(_, t, _)| t.clone()).collect();
    let server = FakeServer::start(move |_, _| {
        Reply::json(
            401,
            json!({"error":{"type":"authentication_error","message":format!("invalid key; you sent {}", echoed.join(" "))}}),
        )
    });
    s.set("ANTHROPIC_BASE_URL", server.url.clone());
    s.set("ANTHROPIC_API_KEY", "sk-test-key");
    s.set("MEMORY_STALKER_SUMMARIZER", "anthropic");
    s.set("MEMORY_STALKER_MODEL", "claude-test-model");
    s.set("MEMORY_STALKER_ASYNC", "0");
    s.set("MEMORY_STALKER_TIMEOUT", "20");
    let dir = s.home().join(".claude/projects/-proj");
    fs::create_dir_all(&dir).unwrap();
    let tpath = dir.join(format!("{SID}.jsonl"));
    fs::write(&tpath, transcript(&secrets)).unwrap();
    let base = json!({"session_id": SID, "transcript_path": tpath, "cwd": s.project()});
    let with = |extra: Value| {
        let mut v = base.clone();
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v
    };

    let (steering, pre_err) = hook(
        &s,
        with(json!({"hook_event_name": "PreCompact", "trigger": "manual"})),
    );
    let (restore, start_err) = hook(
        &s,
        with(json!({"hook_event_name": "SessionStart", "source": "compact"})),
    );
    let (_, post_err) = hook(
        &s,
        with(
            json!({"hook_event_name": "PostCompact", "trigger": "manual", "compact_summary": "<summary>We deployed.</summary>"}),
        ),
    );
    let note_out = s.run(
        BIN,
        &["hand-over-note"],
        with(json!({"hook_event_name": "UserPromptSubmit", "prompt": "go on"}))
            .to_string()
            .as_bytes(),
    );
    let (note, note_err) = text(&note_out);
    let tp = tpath.to_string_lossy().into_owned();
    let (inspect, inspect_err) = text(&s.run(BIN, &["inspect", &tp], b""));
    let (inspect_json, _) = text(&s.run(BIN, &["inspect", "--json", &tp], b""));
    let model_requests: String = server.requests().iter().map(|r| r.body.clone()).collect();

    let memories = s.memories();
    let memory_files = s.memory_files();
    assert_eq!(memory_files.len(), 1, "{memory_files:?}");
    let memory = fs::read_to_string(memories.join(&memory_files[0])).unwrap();
    let index = fs::read_to_string(memories.join("INDEX.md")).unwrap();
    let log = fs::read_to_string(memories.join(".log")).unwrap();
    let data = s.root.path().join("plugin-data");
    let breaker = fs::read_to_string(data.join("circuit-breaker.json")).unwrap();
    let mut others = Vec::new();
    files_under(&s.project(), &mut others);
    files_under(&data, &mut others);
    let others: String = others.into_iter().map(|(_, t)| t).collect();
    let stderr = [pre_err, start_err, post_err, note_err, inspect_err].concat();

    // Each way out must have been taken, or the table proves nothing.
    assert!(!model_requests.is_empty(), "the model was never asked");
    assert!(steering.contains("memory-stalker:"), "{steering}");
    assert!(restore.contains("additionalContext"), "{restore}");
    assert!(
        note.contains("additionalContext"),
        "no note was handed over"
    );
    assert!(log.contains("401"), "{log}");
    assert!(breaker.contains("invalid key"), "{breaker}");
    assert!(stderr.contains("401"), "{stderr}");
    assert!(inspect.contains("Deploy to staging"), "{inspect}");

    let exits: [(&str, &str); 13] = [
        ("memory", &memory),
        ("INDEX", &index),
        ("log", &log),
        ("breaker", &breaker),
        ("stderr", &stderr),
        ("steering", &steering),
        ("restore", &restore),
        ("note", &note),
        ("model", &model_requests),
        ("inspect", &inspect),
        ("insp-json", &inspect_json),
        ("all files", &others),
        ("redacted", ""),
    ];
    let mut table = format!("{:<22}", "kind");
    for (name, _) in &exits[..12] {
        let _ = write!(table, " {name:>9}");
    }
    table.push('\n');
    let mut leaks = Vec::new();
    for (kind, _, secret) in &secrets {
        let _ = write!(table, "{kind:<22}");
        for (name, out) in &exits[..12] {
            // JSON outputs escape newlines and quotes; look for the secret either way.
            let escaped = serde_json::to_string(secret).unwrap();
            let leaked = out.contains(secret.as_str()) || out.contains(escaped.trim_matches('"'));
            if leaked {
                let at = out.find(secret.as_str()).unwrap_or(0);
                let from = out[..at].char_indices().rev().nth(60).map_or(0, |(i, _)| i);
                let context: String = out[from..].chars().take(140).collect();
                leaks.push(format!("{kind} in {name}: …{context}…"));
            }
            let _ = write!(table, " {:>9}", if leaked { "LEAK" } else { "ok" });
        }
        table.push('\n');
    }
    println!("{table}");
    assert!(leaks.is_empty(), "secrets leaked: {leaks:?}\n{table}");
    assert!(memory.contains("[REDACTED:"), "{memory}");
    for near in NEAR_MISSES {
        assert!(memory.contains(near), "near miss changed: {near}");
    }
}
