//! A real HTTP/1.1 server on 127.0.0.1 for the tests: it records every request and
//! answers from a script. No HTTP mocking: clients talk to it over a socket exactly as
//! they would to an API (keep-alive, Content-Length or chunked bodies, SSE replies).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Recorded {
    /// A header's value (names are case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON (`Null` if it is not JSON).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_default()
    }
}

/// What to answer.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// Wait this long before answering.
    pub delay: Duration,
    /// Close the connection after half the body (a connection dropped mid-answer).
    pub cut: bool,
}

impl Reply {
    /// A JSON answer.
    pub fn json(status: u16, body: serde_json::Value) -> Reply {
        Reply::raw(status, "application/json", &body.to_string())
    }

    /// Any answer.
    pub fn raw(status: u16, content_type: &str, body: &str) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: body.into(),
            delay: Duration::ZERO,
            cut: false,
        }
    }

    /// Adds a header.
    pub fn header(mut self, k: &str, v: &str) -> Reply {
        self.headers.push((k.into(), v.into()));
        self
    }

    /// Sends the headers and half the body, then closes the connection.
    pub fn cut_midway(mut self) -> Reply {
        self.cut = true;
        self
    }

    /// Answers only after `d`.
    pub fn after(mut self, d: Duration) -> Reply {
        self.delay = d;
        self
    }
}

type Responder = dyn Fn(&Recorded, usize) -> Reply + Send + Sync;

/// The running server; it stops answering when dropped.
pub struct FakeServer {
    pub url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
}

impl FakeServer {
    /// Starts a server; `respond` gets each request and its index (0 for the first).
    pub fn start(
        respond: impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static,
    ) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let respond: Arc<Responder> = Arc::new(respond);
        let counter = Arc::new(AtomicUsize::new(0));
        {
            let requests = requests.clone();
            let stop = stop.clone();
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let (requests, respond, counter, stop) = (
                        requests.clone(),
                        respond.clone(),
                        counter.clone(),
                        stop.clone(),
                    );
                    std::thread::spawn(move || serve(conn, &requests, &*respond, &counter, &stop));
                }
            });
        }
        FakeServer {
            url,
            requests,
            stop,
        }
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    /// Requests received so far, other than connectivity checks (`HEAD /`).
    pub fn count(&self) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.method != "HEAD")
            .count()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.url.trim_start_matches("http://"));
    }
}

fn serve(
    conn: TcpStream,
    requests: &Mutex<Vec<Recorded>>,
    respond: &Responder,
    counter: &AtomicUsize,
    stop: &AtomicBool,
) {
    let mut writer = match conn.try_clone() {
        Ok(w) => w,
        Err(_) => return,
    };
    let mut reader = BufReader::new(conn);
    loop {
        let Some(req) = read_request(&mut reader) else {
            return;
        };
        requests.lock().unwrap().push(req.clone());
        let reply = if req.method == "HEAD" {
            Reply::raw(200, "text/plain", "")
        } else {
            respond(&req, counter.fetch_add(1, Ordering::SeqCst))
        };
        // A long delay stands for a server that hangs: sleep in slices so a dropped
        // server stops promptly.
        let mut left = reply.delay;
        while !left.is_zero() {
            if stop.load(Ordering::SeqCst) {
                return;
            }
            let step = left.min(Duration::from_millis(50));
            std::thread::sleep(step);
            left -= step;
        }
        let mut head = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
        for (k, v) in &reply.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str(&format!("content-length: {}\r\n\r\n", reply.body.len()));
        let body = if req.method == "HEAD" {
            ""
        } else {
            reply.body.as_str()
        };
        let body = if reply.cut {
            &body[..body.len() / 2]
        } else {
            body
        };
        if writer.write_all(head.as_bytes()).is_err() || writer.write_all(body.as_bytes()).is_err()
        {
            return;
        }
        if reply.cut {
            let _ = writer.flush();
            let _ = writer.shutdown(std::net::Shutdown::Both);
            return;
        }
        let _ = writer.flush();
    }
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Recorded> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let get = |name: &str| {
        headers
            .iter()
            .find(|(k, _): &&(String, String)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if get("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let n = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk).ok()?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    } else if let Some(len) = get("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body.resize(len, 0);
        reader.read_exact(&mut body).ok()?;
    }
    Some(Recorded {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        529 => "Overloaded",
        _ => "Status",
    }
}

/// A Messages API answer whose text is `text`.
pub fn anthropic_message(text: &str) -> serde_json::Value {
    serde_json::json!({
        "id": "msg_test_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test-model",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1000, "output_tokens": 200}
    })
}

/// A chat completions answer whose text is `text`.
pub fn openai_completion(text: &str) -> serde_json::Value {
    serde_json::json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]
    })
}

/// A summary a model could write for the sample session.
pub const MODEL_SUMMARY: &str = r#"{
  "headline": "Retry budget and 429 handling for the uploader (model summary)",
  "task_summary": ["Added per-chunk retries with exponential backoff and a per-upload budget", "429 now honours Retry-After without spending the budget"],
  "code_changes": [{"file": "src/retry.rs", "action": "created", "note": "RetryBudget and backoff"}, {"file": "src/upload.rs", "action": "modified", "note": "retry loop"}],
  "key_decisions": [{"decision": "RetryBudget is its own type", "reason": "the loop and the tests both inspect it"}],
  "user_preferences": ["Use thiserror for new error variants"],
  "follow_ups": ["Document retries in the README", "Test a budget exhausted mid-upload"]
}"#;
