//! The lines between the client and the server (docs/design.md §7.9): every request
//! gets an answer. rmcp reads newline-delimited JSON-RPC, and drops a line it cannot
//! use without a word: a line over its limit, a line that is not JSON, a message that is
//! no request. The client then waits forever for its answer. So stdin goes through here
//! first: a line too large is answered with a JSON-RPC error (−32600, with the request's
//! id when its first 64 KiB name it) and skipped without being held; a line that is not
//! JSON is answered with a parse error (−32700); anything else that is no JSON-RPC
//! message is an invalid request (−32600). The rest goes on to rmcp, and one writer
//! puts rmcp's answers and these on stdout, a line at a time.

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// Longest request line: a tool call's arguments are a query, a target and a few
/// numbers. A longer line is answered with an error and skipped, never held whole.
pub const MAX_LINE: usize = 4 * 1024 * 1024;
/// How much of a line too large is kept to find its id.
const ID_PREFIX: usize = 64 * 1024;

/// What to do with one line from the client.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Hand it to the server.
    Forward,
    /// Answer it with this error, as one line of JSON.
    Reply(String),
    /// Nothing (a blank line).
    Skip,
}

/// The verdict on a whole line (without its line feed).
pub fn judge(line: &[u8]) -> Verdict {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    let Ok(v) = serde_json::from_slice::<Value>(line) else {
        return Verdict::Reply(error(
            Value::Null,
            -32700,
            "Parse error: the line is not JSON",
        ));
    };
    let is_message = v.as_object().is_some_and(|o| {
        o.get("method").is_some_and(Value::is_string)
            || o.contains_key("result")
            || o.contains_key("error")
    });
    if is_message {
        Verdict::Forward
    } else {
        let id = v.get("id").cloned().filter(is_id).unwrap_or(Value::Null);
        Verdict::Reply(error(
            id,
            -32600,
            "Invalid Request: not a JSON-RPC request object (batches are not supported)",
        ))
    }
}

/// The answer to a line of `len` bytes over [`MAX_LINE`] that starts with `prefix`.
pub fn too_large(prefix: &[u8], len: usize) -> String {
    error(
        id_in_prefix(prefix).unwrap_or(Value::Null),
        -32600,
        &format!(
            "Invalid Request: the request is {len} bytes or more, over the {MAX_LINE} this server reads; it was not read"
        ),
    )
}

/// A JSON-RPC error response as one line.
fn error(id: Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// Whether `v` can be a JSON-RPC id (a string or a number).
fn is_id(v: &Value) -> bool {
    v.is_string() || v.is_number()
}

/// The `id` of the object whose text starts with `prefix`, when the prefix holds the
/// whole of its top-level `"id": <value>`: walked token by token at the object's top
/// level (strings with their escapes, nested values skipped by depth).
fn id_in_prefix(prefix: &[u8]) -> Option<Value> {
    let mut i = prefix.iter().position(|b| !b.is_ascii_whitespace())?;
    if prefix[i] != b'{' {
        return None;
    }
    i += 1;
    let mut depth = 1usize;
    // At the top level: the key just read, waiting for its `:`.
    let mut key: Option<&[u8]> = None;
    let mut expect_value = false;
    while i < prefix.len() {
        let b = prefix[i];
        match b {
            b'"' => {
                let end = string_end(prefix, i)?;
                let text = &prefix[i + 1..end];
                if depth == 1 && !expect_value {
                    key = Some(text);
                } else if depth == 1 && key == Some(b"id") {
                    return serde_json::from_slice(&prefix[i..=end]).ok();
                }
                i = end + 1;
                continue;
            }
            b':' if depth == 1 => expect_value = true,
            b',' if depth == 1 => {
                expect_value = false;
                key = None;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return None;
                }
            }
            _ if depth == 1 && expect_value && key == Some(b"id") && !b.is_ascii_whitespace() => {
                // A number (or null): up to the next separator.
                let end = prefix[i..]
                    .iter()
                    .position(|c| matches!(c, b',' | b'}') || c.is_ascii_whitespace())
                    .map(|n| i + n)?;
                return serde_json::from_slice::<Value>(&prefix[i..end])
                    .ok()
                    .filter(is_id);
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index of the quote that ends the string starting at `start`.
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Reads the client's lines from `input`: forwards each request to `server`, and sends
/// each answer it makes itself to `replies`. Ends at the end of `input` (the server then
/// sees the end of its own input).
pub async fn filter_requests(
    mut input: impl AsyncBufRead + Unpin,
    mut server: impl AsyncWrite + Unpin,
    replies: mpsc::Sender<String>,
) -> std::io::Result<()> {
    let mut line: Vec<u8> = Vec::new();
    // Bytes of a line too large so far (its prefix is `line`), once it is one.
    let mut over: Option<usize> = None;
    loop {
        let (used, done, ended) = {
            let buf = input.fill_buf().await?;
            if buf.is_empty() {
                (0, !line.is_empty() || over.is_some(), true)
            } else {
                let nl = memchr::memchr(b'\n', buf);
                let part = &buf[..nl.unwrap_or(buf.len())];
                match over.as_mut() {
                    Some(n) => *n += part.len(),
                    None if line.len() + part.len() > MAX_LINE => {
                        let keep = ID_PREFIX.saturating_sub(line.len()).min(part.len());
                        line.extend_from_slice(&part[..keep]);
                        over = Some(line.len() - keep + part.len());
                    }
                    None => line.extend_from_slice(part),
                }
                (nl.map_or(buf.len(), |n| n + 1), nl.is_some(), false)
            }
        };
        input.consume(used);
        if done {
            if let Some(len) = over.take() {
                let _ = replies.send(too_large(&line, len)).await;
            } else {
                match judge(&line) {
                    Verdict::Forward => {
                        server.write_all(&line).await?;
                        server.write_all(b"\n").await?;
                        server.flush().await?;
                    }
                    Verdict::Reply(r) => {
                        let _ = replies.send(r).await;
                    }
                    Verdict::Skip => {}
                }
            }
            line.clear();
        }
        if ended {
            return server.shutdown().await;
        }
    }
}

/// Sends each line the server writes to `out` on `lines`.
pub async fn server_lines(
    output: impl AsyncRead + Unpin,
    lines: mpsc::Sender<String>,
) -> std::io::Result<()> {
    let mut reader = tokio::io::BufReader::new(output).lines();
    while let Some(line) = reader.next_line().await? {
        if lines.send(line).await.is_err() {
            break;
        }
    }
    Ok(())
}

/// Writes every line sent on `lines` to `out`, one whole line at a time.
pub async fn write_lines(
    mut out: impl AsyncWrite + Unpin,
    mut lines: mpsc::Receiver<String>,
) -> std::io::Result<()> {
    while let Some(line) = lines.recv().await {
        out.write_all(line.as_bytes()).await?;
        out.write_all(b"\n").await?;
        out.flush().await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_gets_a_verdict() {
        assert_eq!(judge(b"  "), Verdict::Skip);
        assert_eq!(
            judge(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            Verdict::Forward
        );
        assert_eq!(
            judge(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Verdict::Forward
        );
        let Verdict::Reply(r) = judge(b"this is not json") else {
            panic!("no reply")
        };
        let v: Value = serde_json::from_str(&r).unwrap();
        assert_eq!(
            (v["error"]["code"].as_i64(), &v["id"]),
            (Some(-32700), &Value::Null)
        );
        let Verdict::Reply(r) = judge(br#"{"jsonrpc":"2.0","id":"x","params":{}}"#) else {
            panic!("no reply")
        };
        let v: Value = serde_json::from_str(&r).unwrap();
        assert_eq!(
            (v["error"]["code"].as_i64(), v["id"].as_str()),
            (Some(-32600), Some("x"))
        );
        assert!(matches!(judge(b"[1, 2]"), Verdict::Reply(_)));
    }

    #[test]
    fn the_id_of_a_line_too_large_is_found_in_its_start() {
        let id = |p: &str| id_in_prefix(p.as_bytes());
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"q":"aaa"#),
            Some(json!(7))
        );
        assert_eq!(
            id(r#"{"method":"x","params":{"id":3,"q":"a"},"id":"r-9"}"#),
            Some(json!("r-9"))
        );
        assert_eq!(
            id(r#"{"params":{"id":3,"q":"aaaa"#),
            None,
            "a nested id is no id"
        );
        assert_eq!(id(r#"{"a":"\"id\":5","id" : 12 }"#), Some(json!(12)));
        assert_eq!(id(r#"{"id":null}"#), None);
        assert_eq!(id("not json"), None);
        let r: Value =
            serde_json::from_str(&too_large(br#"{"id":4,"method":"m"#, MAX_LINE + 1)).unwrap();
        assert_eq!(
            (r["id"].as_i64(), r["error"]["code"].as_i64()),
            (Some(4), Some(-32600))
        );
    }

    #[tokio::test]
    async fn a_huge_line_is_answered_and_the_next_forwarded() {
        let huge = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{{\"q\":\"{}\"}}}}\n",
            "x".repeat(MAX_LINE + 10)
        );
        let input =
            format!("{huge}oops\n{{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\"}}\n");
        let (tx, mut rx) = mpsc::channel(8);
        let mut forwarded = Vec::new();
        filter_requests(input.as_bytes(), &mut forwarded, tx)
            .await
            .unwrap();
        let replies: Vec<Value> = std::iter::from_fn(|| rx.try_recv().ok())
            .map(|r| serde_json::from_str(&r).unwrap())
            .collect();
        assert_eq!(replies.len(), 2);
        assert_eq!(replies[0]["id"], 5);
        assert_eq!(replies[1]["error"]["code"], -32700);
        assert_eq!(
            String::from_utf8(forwarded).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\"}\n"
        );
    }
}
