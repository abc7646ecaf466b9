//! The real `memory-stalker-mcp` spoken to line by line, as a client that sends what it
//! likes: raw JSON-RPC lines (too large, not JSON) as well as tool calls.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use super::Sandbox;

/// The MCP server beside the hook binary (`cargo test --workspace` builds it).
fn bin() -> String {
    super::binary("memory-stalker-mcp")
}

/// A running server with a reader of its stdout lines.
pub struct Mcp {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl Mcp {
    /// Starts the server in the sandbox and initializes it.
    pub fn start(s: &Sandbox) -> Mcp {
        let mut child = Command::new(bin())
            .env_clear()
            .envs(s.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .current_dir(s.project())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut mcp = Mcp {
            child,
            stdin,
            lines: rx,
        };
        mcp.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "hostile", "version": "0"}}}).to_string());
        let _ = mcp.recv(Duration::from_secs(10));
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        mcp
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        let _ = self.stdin.write_all(line.as_bytes());
        let _ = self.stdin.write_all(b"\n");
        let _ = self.stdin.flush();
    }

    /// The server's peak resident memory so far, in MiB (Linux's `VmHWM`; 0 when it
    /// cannot be read).
    pub fn peak_rss_mib(&self) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .ok()
            .and_then(|status| {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix("VmHWM:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            })
            .map_or(0, |kib| kib / 1024)
    }

    /// The next line it answers, as JSON, within `limit`.
    pub fn recv(&mut self, limit: Duration) -> Option<Value> {
        let line = self.lines.recv_timeout(limit).ok()?;
        serde_json::from_str(&line).ok()
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Calls the MCP server's tools in turn; the text of each answer (error or not).
pub fn call(s: &Sandbox, calls: &[Value]) -> Vec<String> {
    let mut mcp = Mcp::start(s);
    let mut answers = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        let id = 100 + i;
        mcp.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": call})
                .to_string(),
        );
        if let Some(v) = mcp.recv(Duration::from_secs(20)) {
            let text = v["result"]["content"][0]["text"]
                .as_str()
                .map(String::from)
                .unwrap_or_else(|| v.to_string());
            answers.push(text);
        }
    }
    answers
}
