//! A model replayed: a real HTTP server on 127.0.0.1 that answers as the Anthropic
//! Messages API with the answers a capable model once wrote to the very prompts
//! memory-stalker sends (`tests/data/model-answers/`, docs/testing.md "The model path").
//!
//! A prompt is keyed by the SHA-256 of its text with the per-call nonce taken out
//! (`session-data-<nonce>` → `session-data-NONCE`), first 16 hex digits: the key
//! `../shared/model-answers/standin.py` uses, so answers recorded either way replay here.
//! A prompt with no answer is refused (HTTP 400, as an API refuses a bad request), written
//! with its system prompt under the record directory for re-recording, and counted as a
//! miss that the caller reports by its key: a report on the model path never falls back
//! to the offline summary in silence.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

use super::http::{FakeServer, Reply, anthropic_message};

/// The running replay.
pub struct ModelReplay {
    /// The server's base URL (`ANTHROPIC_BASE_URL`).
    pub url: String,
    misses: Arc<Mutex<Vec<String>>>,
    answered: Arc<Mutex<usize>>,
    _server: FakeServer,
}

/// The prompt with its nonce set aside, as it is keyed.
pub fn normalized(prompt: &str) -> String {
    const TAG: &str = "session-data-";
    let mut out = String::with_capacity(prompt.len());
    let mut rest = prompt;
    while let Some(at) = rest.find(TAG) {
        out.push_str(&rest[..at + TAG.len()]);
        let after = &rest[at + TAG.len()..];
        let len = after
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(after.len());
        if len > 0 {
            out.push_str("NONCE");
        }
        rest = &after[len..];
    }
    out.push_str(rest);
    out
}

/// The key of a prompt: the first 16 hex digits of the SHA-256 of [`normalized`].
pub fn key_of(prompt: &str) -> String {
    Sha256::digest(normalized(prompt).as_bytes())
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A message's content as text: a string, or its blocks' text joined.
fn text_of(content: &serde_json::Value) -> String {
    match content {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<String>(),
        _ => String::new(),
    }
}

/// The last message's text of a Messages API request body.
fn prompt_of(body: &serde_json::Value) -> String {
    body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .map_or_else(String::new, |m| text_of(&m["content"]))
}

impl ModelReplay {
    /// Starts a replay answering from the `answers` directories (first match wins),
    /// recording the prompts it cannot answer under `record`.
    pub fn start(answers: Vec<PathBuf>, record: PathBuf) -> ModelReplay {
        let misses = Arc::new(Mutex::new(Vec::new()));
        let answered = Arc::new(Mutex::new(0));
        let (m, a) = (misses.clone(), answered.clone());
        let server = FakeServer::start(move |req, _| {
            if req.method != "POST" {
                return Reply::json(200, serde_json::json!({}));
            }
            let body = req.json();
            let prompt = prompt_of(&body);
            let key = key_of(&prompt);
            let answer = answers
                .iter()
                .find_map(|d| std::fs::read_to_string(d.join(format!("{key}.json"))).ok());
            if let Some(text) = answer {
                *a.lock().unwrap() += 1;
                return Reply::json(200, anthropic_message(&text));
            }
            let _ = std::fs::create_dir_all(&record);
            let _ = std::fs::write(record.join(format!("{key}.txt")), normalized(&prompt));
            let _ = std::fs::write(
                record.join(format!("{key}.system.txt")),
                text_of(&body["system"]),
            );
            m.lock().unwrap().push(key.clone());
            Reply::json(
                400,
                serde_json::json!({"type": "error", "error": {
                    "type": "invalid_request_error",
                    "message": format!("no recorded answer for prompt {key}"),
                }}),
            )
        });
        ModelReplay {
            url: server.url.clone(),
            misses,
            answered,
            _server: server,
        }
    }

    /// The keys of the prompts that had no recorded answer, in the order asked.
    pub fn misses(&self) -> Vec<String> {
        self.misses.lock().unwrap().clone()
    }

    /// How many prompts were answered.
    pub fn answered(&self) -> usize {
        *self.answered.lock().unwrap()
    }

    /// The environment that points the `anthropic` summariser at this replay.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("ANTHROPIC_API_KEY".into(), "replay".into()),
            ("ANTHROPIC_BASE_URL".into(), self.url.clone()),
        ]
    }
}

/// The recorded answers of one set (`meaning`, `retrieval`) in the repository.
pub fn answers_dir(repo: &Path, set: &str) -> PathBuf {
    repo.join("tests/data/model-answers").join(set)
}
