//! POSTing JSON to a model API within one deadline: 429, 5xx and connection errors are
//! retried with exponential backoff (or after `retry-after`) while time remains.

use std::time::{Duration, Instant, SystemTime};

use super::SummaryError;
use crate::log::Log;

/// Attempts per call, the first included.
const MAX_ATTEMPTS: u32 = 4;
/// Largest response body read.
const MAX_BODY: u64 = 8 * 1024 * 1024;

/// A request to send.
pub(crate) struct Post<'a> {
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: &'a str,
    /// First backoff delay; doubled on each retry.
    pub backoff: Duration,
}

/// Sends `post`, retrying as described above, and returns the body of a 2xx answer.
pub(crate) fn post_json(post: &Post, deadline: Instant, log: &Log) -> Result<String, SummaryError> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        let Some(remaining) = deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
        else {
            return Err(SummaryError::Deadline);
        };
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(remaining))
            .user_agent(concat!("memory-stalker/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        let mut req = agent
            .post(&post.url)
            .header("content-type", "application/json");
        for (k, v) in &post.headers {
            req = req.header(*k, v);
        }
        let (retry_in, failure) = match req.send(post.body) {
            Ok(resp) => {
                let status = resp.status().as_u16();
                let retry_after = retry_after(resp.headers());
                let body = resp
                    .into_body()
                    .with_config()
                    .limit(MAX_BODY)
                    .read_to_string()
                    .map_err(|e| transport(e, deadline));
                match body {
                    Ok(body) if (200..300).contains(&status) => return Ok(body),
                    Err(SummaryError::Deadline) => return Err(SummaryError::Deadline),
                    // The connection dropped in the middle of an answer: a transport
                    // failure like any other, tried again.
                    Err(e) if (200..300).contains(&status) => {
                        (Some(backoff(post.backoff, attempt)), e)
                    }
                    body => {
                        let message = error_message(&body.unwrap_or_default());
                        let err = SummaryError::Http { status, message };
                        if status == 429 || (500..600).contains(&status) {
                            (
                                Some(retry_after.unwrap_or_else(|| backoff(post.backoff, attempt))),
                                err,
                            )
                        } else {
                            return Err(err);
                        }
                    }
                }
            }
            Err(e) => {
                let err = transport(e, deadline);
                if matches!(err, SummaryError::Deadline) {
                    return Err(err);
                }
                (Some(backoff(post.backoff, attempt)), err)
            }
        };
        let Some(wait) = retry_in else {
            return Err(failure);
        };
        let fits = Instant::now() + wait < deadline;
        if attempt >= MAX_ATTEMPTS || !fits {
            return Err(failure);
        }
        log.info(&format!(
            "{failure}; retrying in {:.1}s (attempt {} of {MAX_ATTEMPTS})",
            wait.as_secs_f64(),
            attempt + 1
        ));
        std::thread::sleep(wait);
    }
}

/// [`post_json`], and the answer parsed as JSON.
pub(crate) fn post_for_json(
    post: &Post,
    deadline: Instant,
    log: &Log,
) -> Result<serde_json::Value, SummaryError> {
    let answer = post_json(post, deadline, log)?;
    serde_json::from_str(&answer)
        .map_err(|e| SummaryError::BadAnswer(format!("the API answer is not JSON: {e}")))
}

fn transport(e: ureq::Error, deadline: Instant) -> SummaryError {
    match e {
        ureq::Error::Timeout(_) => SummaryError::Deadline,
        _ if Instant::now() >= deadline => SummaryError::Deadline,
        other => SummaryError::Transport(crate::redact::redact(&other.to_string()).into_owned()),
    }
}

/// `base · 2^(attempt-1)`, capped at 8 s, with ±20 % jitter so retries spread out.
fn backoff(base: Duration, attempt: u32) -> Duration {
    let exp = base
        .saturating_mul(1 << (attempt - 1).min(6))
        .min(Duration::from_secs(8));
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let jitter = 0.8 + 0.4 * (f64::from(nanos % 1000) / 1000.0);
    exp.mul_f64(jitter)
}

/// `retry-after-ms`, or `retry-after` in seconds or as an HTTP date.
fn retry_after(headers: &ureq::http::HeaderMap) -> Option<Duration> {
    let get = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return (ms >= 0.0).then(|| Duration::from_secs_f64(ms / 1000.0));
    }
    let v = get("retry-after")?;
    if let Ok(secs) = v.parse::<f64>() {
        return (secs >= 0.0 && secs.is_finite()).then(|| Duration::from_secs_f64(secs));
    }
    let when = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let wait = when.timestamp() - chrono::Utc::now().timestamp();
    Some(Duration::from_secs(wait.max(0) as u64))
}

/// The message of an API error body (Anthropic and OpenAI shapes), else its start;
/// redacted before it is cut, since a server may echo the key it refused.
fn error_message(body: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    let (message, max) = v
        .pointer("/error/message")
        .or_else(|| v.pointer("/message"))
        .and_then(|m| m.as_str())
        .map_or((body, 200), |m| (m, 300));
    // Only the start is kept: the redactor need not read a megabyte of HTML.
    let start = crate::text::prefix_chars(message, 4 * max);
    crate::text::one_line(&crate::redact::redact(start), max)
}

/// Joins a base URL and an API path, without doubling `/v1`.
pub(crate) fn endpoint(base: &str, path: &str) -> String {
    let base = base.trim().trim_end_matches('/');
    let path = path.trim_start_matches('/');
    if base.ends_with(path) {
        return base.to_string();
    }
    match (base.strip_suffix("/v1"), path.strip_prefix("v1/")) {
        (Some(_), Some(rest)) => format!("{base}/{rest}"),
        _ => format!("{base}/{path}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_join_without_doubling() {
        assert_eq!(
            endpoint("https://api.anthropic.com", "v1/messages"),
            "https://api.anthropic.com/v1/messages"
        );
        assert_eq!(
            endpoint("http://h:1/", "/v1/messages"),
            "http://h:1/v1/messages"
        );
        assert_eq!(
            endpoint("http://h:11434/v1", "v1/chat/completions"),
            "http://h:11434/v1/chat/completions"
        );
        assert_eq!(
            endpoint("http://h/v1/chat/completions", "v1/chat/completions"),
            "http://h/v1/chat/completions"
        );
        assert_eq!(
            endpoint("http://proxy/anthropic", "v1/messages"),
            "http://proxy/anthropic/v1/messages"
        );
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let b = Duration::from_millis(500);
        assert!(backoff(b, 1) <= Duration::from_millis(600));
        assert!(backoff(b, 3) >= Duration::from_millis(1600));
        assert!(backoff(b, 20) <= Duration::from_millis(9600));
    }

    #[test]
    fn retry_after_forms() {
        let mut h = ureq::http::HeaderMap::new();
        h.insert("retry-after", "2".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", "150".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_millis(150)));
        let mut h = ureq::http::HeaderMap::new();
        h.insert(
            "retry-after",
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
        h.insert("retry-after", "soon".parse().unwrap());
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn error_messages_are_extracted() {
        assert_eq!(
            error_message(
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
            ),
            "Overloaded"
        );
        assert_eq!(
            error_message("<html>bad gateway</html>"),
            "<html>bad gateway</html>"
        );
    }
}
