//! A fake Anthropic Messages API for driving the real Claude Code CLI offline: streamed
//! (SSE) answers from a script, Claude Code's compaction requests answered with an
//! `<analysis>`/`<summary>` text, and every request kept for assertions.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::http::{FakeServer, Recorded, Reply};

/// Text that only Claude Code's compaction prompt contains.
pub const COMPACTION_MARK: &str = "create a detailed summary of the conversation";

/// One content block of a scripted answer.
#[derive(Debug, Clone)]
pub enum Block {
    Text(String),
    Tool { name: String, input: Value },
}

/// A scripted answer: its blocks, and the usage it reports (large usage makes Claude
/// Code compact automatically).
#[derive(Debug, Clone)]
pub struct Turn {
    pub blocks: Vec<Block>,
    pub input_tokens: u64,
    /// Answer only requests whose body contains this text.
    pub only_if: Option<String>,
}

impl Turn {
    /// An answer with text only.
    pub fn text(t: &str) -> Turn {
        Turn {
            blocks: vec![Block::Text(t.into())],
            input_tokens: 1_000,
            only_if: None,
        }
    }

    /// An answer calling one tool.
    pub fn tool(name: &str, input: Value) -> Turn {
        Turn {
            blocks: vec![Block::Tool {
                name: name.into(),
                input,
            }],
            input_tokens: 1_000,
            only_if: None,
        }
    }

    /// Text, then a tool call, in one answer.
    pub fn say_and_call(text: &str, name: &str, input: Value) -> Turn {
        Turn {
            blocks: vec![
                Block::Text(text.into()),
                Block::Tool {
                    name: name.into(),
                    input,
                },
            ],
            input_tokens: 1_000,
            only_if: None,
        }
    }

    /// Reports this many input tokens.
    pub fn tokens(mut self, n: u64) -> Turn {
        self.input_tokens = n;
        self
    }

    /// Only answers a request whose body contains `text`.
    pub fn when(mut self, text: &str) -> Turn {
        self.only_if = Some(text.into());
        self
    }
}

/// The fake API: a script of turns, consumed in order.
pub struct FakeAnthropic {
    pub server: FakeServer,
    script: Arc<Mutex<VecDeque<Turn>>>,
}

/// Text only memory-stalker's own summary requests contain (its prompt's data block).
pub const MEMORY_PROMPT_MARK: &str = "<session-data-";

/// The summary Claude Code's compaction gets from the fake model.
pub const FAKE_COMPACT_SUMMARY: &str = "<analysis>\nChecking the conversation.\n</analysis>\n\n<summary>\n1. Primary Request and Intent:\n   The user asked for API notes.\n2. Pending Tasks:\n   - Review the notes\n</summary>";

impl FakeAnthropic {
    /// Starts the server.
    pub fn start() -> FakeAnthropic {
        let script: Arc<Mutex<VecDeque<Turn>>> = Arc::new(Mutex::new(VecDeque::new()));
        let s = script.clone();
        let server = FakeServer::start(move |req, _| answer(req, &s));
        FakeAnthropic { server, script }
    }

    /// Appends turns to the script.
    pub fn push(&self, turns: impl IntoIterator<Item = Turn>) {
        self.script.lock().unwrap().extend(turns);
    }

    /// The Messages API requests received (not the connectivity checks).
    pub fn message_requests(&self) -> Vec<Recorded> {
        self.server
            .requests()
            .into_iter()
            .filter(|r| r.method == "POST" && r.path.starts_with("/v1/messages"))
            .collect()
    }

    /// memory-stalker's own summary requests.
    pub fn memory_summary_requests(&self) -> Vec<Recorded> {
        self.message_requests()
            .into_iter()
            .filter(|r| r.body.contains(MEMORY_PROMPT_MARK))
            .collect()
    }

    /// The compaction requests received.
    pub fn compaction_requests(&self) -> Vec<Recorded> {
        self.message_requests()
            .into_iter()
            .filter(|r| r.body.contains(COMPACTION_MARK))
            .collect()
    }
}

fn answer(req: &Recorded, script: &Mutex<VecDeque<Turn>>) -> Reply {
    if !req.path.starts_with("/v1/messages") {
        return Reply::json(200, json!({}));
    }
    let body: Value = serde_json::from_str(&req.body).unwrap_or_default();
    let model = body["model"].as_str().unwrap_or("claude-fake").to_string();
    let streaming = body["stream"].as_bool().unwrap_or(false);
    let turn = if req.body.contains(COMPACTION_MARK) {
        Turn::text(FAKE_COMPACT_SUMMARY)
    } else if req.body.contains(MEMORY_PROMPT_MARK) {
        // memory-stalker's summariser, reaching "Anthropic" through the environment
        // Claude Code passes to hooks.
        Turn::text(super::http::MODEL_SUMMARY)
    } else {
        let mut q = script.lock().unwrap();
        let pos = q
            .iter()
            .position(|t| t.only_if.as_deref().is_none_or(|w| req.body.contains(w)));
        pos.and_then(|p| q.remove(p))
            .unwrap_or_else(|| Turn::text("done."))
    };
    if streaming {
        Reply::raw(200, "text/event-stream", &sse(&turn, &model))
    } else {
        Reply::json(200, message(&turn, &model))
    }
}

fn tool_id() -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    format!("toolu_fake_{:04}", N.fetch_add(1, Ordering::SeqCst))
}

fn stop_reason(turn: &Turn) -> &'static str {
    if turn.blocks.iter().any(|b| matches!(b, Block::Tool { .. })) {
        "tool_use"
    } else {
        "end_turn"
    }
}

/// A complete, non-streamed Messages API answer.
fn message(turn: &Turn, model: &str) -> Value {
    let content: Vec<Value> = turn
        .blocks
        .iter()
        .map(|b| match b {
            Block::Text(t) => json!({"type": "text", "text": t}),
            Block::Tool { name, input } => {
                json!({"type": "tool_use", "id": tool_id(), "name": name, "input": input})
            }
        })
        .collect();
    json!({
        "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": stop_reason(turn), "stop_sequence": null,
        "usage": {"input_tokens": turn.input_tokens, "output_tokens": 20}
    })
}

/// The same answer as a server-sent event stream.
fn sse(turn: &Turn, model: &str) -> String {
    let mut events = vec![(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": format!("msg_fake_{}", tool_id()), "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": turn.input_tokens, "output_tokens": 1,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}}),
    )];
    for (i, b) in turn.blocks.iter().enumerate() {
        match b {
            Block::Text(t) => {
                events.push(("content_block_start", json!({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})));
                events.push(("content_block_delta", json!({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": t}})));
            }
            Block::Tool { name, input } => {
                events.push(("content_block_start", json!({"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": tool_id(), "name": name, "input": {}}})));
                events.push(("content_block_delta", json!({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": input.to_string()}})));
            }
        }
        events.push((
            "content_block_stop",
            json!({"type": "content_block_stop", "index": i}),
        ));
    }
    events.push((
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason(turn), "stop_sequence": null},
               "usage": {"input_tokens": turn.input_tokens, "output_tokens": 20}}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    events
        .into_iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}
