//! A fake OpenAI Responses API for driving the real Codex CLI offline: every
//! `POST /v1/responses` is answered with server-sent events from a script, Codex's
//! compaction requests with a summary, the TUI's title request with a title, and
//! memory-stalker's own summary requests with a model summary; every request is kept.
//!
//! The events are those Codex 0.169.0 accepts: `response.created`,
//! `response.output_item.added`/`.done` (a message, a `function_call` or a
//! `custom_tool_call`, or any item given whole), `response.output_text.delta`,
//! `response.completed` with `usage` (usage at or above `model_auto_compact_token_limit`
//! makes Codex compact).
//!
//! The conversation's requests are answered from a queue of turns, or, where several
//! threads ask at once (a sub-agent and its parent), by a function of each request.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::http::{FakeServer, Recorded, Reply};

/// Text only Codex's compaction prompt contains.
pub const COMPACTION_MARK: &str = "CONTEXT CHECKPOINT COMPACTION";
/// Text only memory-stalker's own summary prompt contains (its data block).
pub const MEMORY_PROMPT_MARK: &str = "<session-data-";

/// One output item of a scripted answer.
#[derive(Debug, Clone)]
pub enum Item {
    /// The assistant's text.
    Text(String),
    /// A function call (`exec_command`, `update_plan`, an MCP server's tool in its
    /// namespace…).
    Call {
        namespace: Option<String>,
        name: String,
        args: Value,
    },
    /// A free-form call (`apply_patch`).
    Custom { name: String, input: String },
    /// Any output item, sent as it is (a `tool_search_call`).
    Raw(Value),
}

/// A scripted answer: its items, and the input tokens it reports.
#[derive(Debug, Clone)]
pub struct Turn {
    pub items: Vec<Item>,
    pub input_tokens: u64,
    /// Answer only a request whose body contains this text.
    pub only_if: Option<String>,
}

impl Turn {
    pub fn text(t: &str) -> Turn {
        Turn {
            items: vec![Item::Text(t.into())],
            input_tokens: 1_000,
            only_if: None,
        }
    }

    pub fn call(name: &str, args: Value) -> Turn {
        Turn {
            items: vec![Item::Call {
                namespace: None,
                name: name.into(),
                args,
            }],
            input_tokens: 1_000,
            only_if: None,
        }
    }

    /// A call of a namespaced tool (an MCP server's: `mcp__memory_stalker`).
    pub fn call_in(namespace: &str, name: &str, args: Value) -> Turn {
        Turn {
            items: vec![Item::Call {
                namespace: Some(namespace.into()),
                name: name.into(),
                args,
            }],
            input_tokens: 1_000,
            only_if: None,
        }
    }

    pub fn patch(patch: &str) -> Turn {
        Turn {
            items: vec![Item::Custom {
                name: "apply_patch".into(),
                input: patch.into(),
            }],
            input_tokens: 1_000,
            only_if: None,
        }
    }

    /// Any output item, sent as it is.
    pub fn raw(item: Value) -> Turn {
        Turn {
            items: vec![Item::Raw(item)],
            input_tokens: 1_000,
            only_if: None,
        }
    }

    /// Reports this many input tokens (over the limit: Codex compacts after it).
    pub fn tokens(mut self, n: u64) -> Turn {
        self.input_tokens = n;
        self
    }
}

/// What answers each conversation request, in place of the queue.
type Answerer = dyn Fn(&Recorded) -> Turn + Send + Sync;

/// The fake API.
pub struct FakeResponses {
    pub server: FakeServer,
    script: Arc<Mutex<VecDeque<Turn>>>,
    answerer: Arc<Mutex<Option<Arc<Answerer>>>>,
}

/// What the fake model answers Codex's compaction requests with.
pub const FAKE_SUMMARY: &str =
    "## Progress\nThe user asked for a retry budget in the uploader.\n## Next\nKeep going.";

impl FakeResponses {
    pub fn start() -> FakeResponses {
        let script: Arc<Mutex<VecDeque<Turn>>> = Arc::new(Mutex::new(VecDeque::new()));
        let answerer: Arc<Mutex<Option<Arc<Answerer>>>> = Arc::new(Mutex::new(None));
        let (s, a) = (script.clone(), answerer.clone());
        let counter = Arc::new(AtomicUsize::new(0));
        let server = FakeServer::start(move |req, _| answer(req, &s, &a, &counter));
        FakeResponses {
            server,
            script,
            answerer,
        }
    }

    /// The API's base URL, as Codex's provider `base_url` takes it.
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.url)
    }

    pub fn push(&self, turns: impl IntoIterator<Item = Turn>) {
        self.script.lock().unwrap().extend(turns);
    }

    /// Answers every conversation request with `f` of it, not from the queue: for
    /// requests that come in no fixed order (a sub-agent's and its parent's, each
    /// answered from what its `input` already holds).
    pub fn answer_with(&self, f: impl Fn(&Recorded) -> Turn + Send + Sync + 'static) {
        *self.answerer.lock().unwrap() = Some(Arc::new(f));
    }

    /// Every `POST /v1/responses`, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.server
            .requests()
            .into_iter()
            .filter(|r| r.method == "POST" && r.path.ends_with("/responses"))
            .collect()
    }

    /// The requests of the conversation itself: not compactions, titles or
    /// memory-stalker's summaries.
    pub fn turn_requests(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| kind(r) == Kind::Turn)
            .collect()
    }

    /// Codex's compaction requests.
    pub fn compaction_requests(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| kind(r) == Kind::Compaction)
            .collect()
    }

    /// memory-stalker's own summary requests (the codex-cli backend).
    pub fn memory_summary_requests(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| kind(r) == Kind::MemorySummary)
            .collect()
    }
}

/// What a request is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Turn,
    Compaction,
    Title,
    MemorySummary,
}

/// Tells a request apart: the TUI's title request asks for a JSON schema; a compaction
/// ends with Codex's compaction prompt; memory-stalker's summary carries its data block.
pub fn kind(req: &Recorded) -> Kind {
    let body: Value = serde_json::from_str(&req.body).unwrap_or_default();
    if body["text"]["format"]["type"] == "json_schema" {
        return Kind::Title;
    }
    let last_user = body["input"]
        .as_array()
        .and_then(|items| {
            items
                .iter()
                .rev()
                .find(|i| i["role"] == "user")
                .map(|i| i.to_string())
        })
        .unwrap_or_default();
    if last_user.contains(COMPACTION_MARK) {
        Kind::Compaction
    } else if req.body.contains(MEMORY_PROMPT_MARK) {
        Kind::MemorySummary
    } else {
        Kind::Turn
    }
}

/// The texts of a request's `developer` messages, in order (hook context arrives so).
pub fn developer_texts(req: &Recorded) -> Vec<String> {
    let body: Value = serde_json::from_str(&req.body).unwrap_or_default();
    body["input"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter(|i| i["type"] == "message" && i["role"] == "developer")
                .flat_map(|i| {
                    i["content"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                        .into_iter()
                        .filter_map(|c| c["text"].as_str().map(String::from))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn answer(
    req: &Recorded,
    script: &Mutex<VecDeque<Turn>>,
    answerer: &Mutex<Option<Arc<Answerer>>>,
    counter: &AtomicUsize,
) -> Reply {
    if req.method != "POST" || !req.path.ends_with("/responses") {
        return Reply::json(404, json!({"error": {"message": "not here"}}));
    }
    let n = counter.fetch_add(1, Ordering::SeqCst);
    let turn = match kind(req) {
        Kind::Title => Turn::text(&json!({"title": "Retry budget"}).to_string()),
        Kind::Compaction => Turn::text(FAKE_SUMMARY),
        Kind::MemorySummary => Turn::text(super::http::MODEL_SUMMARY),
        Kind::Turn => {
            // Outside the lock: the function may take its time.
            let by_request = answerer.lock().unwrap().clone();
            let mut turn = match by_request {
                Some(f) => f(req),
                None => {
                    let mut q = script.lock().unwrap();
                    let pos = q
                        .iter()
                        .position(|t| t.only_if.as_deref().is_none_or(|w| req.body.contains(w)));
                    pos.and_then(|p| q.remove(p))
                        .unwrap_or_else(|| Turn::text("done."))
                }
            };
            with_session(&mut turn, &req.body);
            turn
        }
    };
    Reply::raw(
        200,
        "text/event-stream",
        &sse(&turn, &format!("resp_{n:03}")),
    )
}

/// A call's argument written `"{{session}}"` takes the number of the last session
/// Codex reported running in the request ("Process running with session ID N"): a
/// script cannot know it beforehand.
pub const SESSION: &str = "{{session}}";

fn with_session(turn: &mut Turn, body: &str) {
    const MARK: &str = "Process running with session ID ";
    let Some(id) = body.rmatch_indices(MARK).next().and_then(|(at, _)| {
        let digits: String = body[at + MARK.len()..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse::<u64>().ok()
    }) else {
        return;
    };
    for item in &mut turn.items {
        if let Item::Call { args, .. } = item
            && let Some(map) = args.as_object_mut()
        {
            for v in map.values_mut() {
                if v == SESSION {
                    *v = json!(id);
                }
            }
        }
    }
}

/// The answer as server-sent events.
fn sse(turn: &Turn, id: &str) -> String {
    let mut events: Vec<(&str, Value)> = vec![(
        "response.created",
        json!({"type": "response.created", "response": {"id": id}}),
    )];
    for (i, item) in turn.items.iter().enumerate() {
        let done = match item {
            Item::Text(t) => {
                let msg = format!("msg_{id}_{i}");
                events.push((
                    "response.output_item.added",
                    json!({"type": "response.output_item.added", "output_index": i, "item": {"type": "message", "role": "assistant", "id": msg, "status": "in_progress", "content": []}}),
                ));
                events.push((
                    "response.output_text.delta",
                    json!({"type": "response.output_text.delta", "output_index": i, "content_index": 0, "item_id": msg, "delta": t}),
                ));
                json!({"type": "message", "role": "assistant", "id": msg, "status": "completed", "content": [{"type": "output_text", "text": t, "annotations": []}]})
            }
            Item::Call {
                namespace,
                name,
                args,
            } => {
                let mut call = json!({"type": "function_call", "id": format!("fc_{id}_{i}"), "call_id": format!("call_{id}_{i}"), "name": name, "arguments": args.to_string(), "status": "completed"});
                if let Some(ns) = namespace {
                    call["namespace"] = json!(ns);
                }
                call
            }
            Item::Custom { name, input } => {
                json!({"type": "custom_tool_call", "id": format!("ctc_{id}_{i}"), "call_id": format!("call_{id}_{i}"), "name": name, "input": input, "status": "completed"})
            }
            Item::Raw(item) => item.clone(),
        };
        if !matches!(item, Item::Text(_)) {
            events.push((
                "response.output_item.added",
                json!({"type": "response.output_item.added", "output_index": i, "item": done}),
            ));
        }
        events.push((
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": i, "item": done}),
        ));
    }
    events.push((
        "response.completed",
        json!({"type": "response.completed", "response": {"id": id, "usage": {
            "input_tokens": turn.input_tokens, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": turn.input_tokens + 10}}}),
    ));
    events
        .into_iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}
