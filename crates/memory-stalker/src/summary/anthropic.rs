//! The Anthropic Messages API (`ANTHROPIC_API_KEY` or `ANTHROPIC_AUTH_TOKEN`,
//! `ANTHROPIC_BASE_URL`), non-streaming.

use std::time::{Duration, Instant};

use super::http::{Post, endpoint, post_for_json};
use super::{SYSTEM_PROMPT, SummaryError};
use crate::config::{Config, DEFAULT_ANTHROPIC_MODEL};
use crate::log::Log;

/// Tokens the summary may use.
const MAX_TOKENS: u32 = 4_096;
const API_VERSION: &str = "2023-06-01";

/// The model used: `MEMORY_STALKER_MODEL`, `ANTHROPIC_DEFAULT_SONNET_MODEL`, or a current Sonnet.
pub fn model(config: &Config) -> String {
    config
        .model
        .clone()
        .or_else(|| config.anthropic_default_model.clone())
        .unwrap_or_else(|| DEFAULT_ANTHROPIC_MODEL.to_string())
}

/// Whether credentials are set.
pub fn configured(config: &Config) -> bool {
    config.anthropic_api_key.is_some() || config.anthropic_auth_token.is_some()
}

/// Sends the prompt and returns the answer's text.
pub fn complete(
    config: &Config,
    prompt: &str,
    deadline: Instant,
    backoff: Duration,
    log: &Log,
) -> Result<String, SummaryError> {
    let auth = match (&config.anthropic_api_key, &config.anthropic_auth_token) {
        (Some(key), _) => ("x-api-key", key.clone()),
        (None, Some(token)) => ("authorization", format!("Bearer {token}")),
        (None, None) => {
            return Err(SummaryError::NotConfigured(
                "set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN".into(),
            ));
        }
    };
    let body = serde_json::json!({
        "model": model(config),
        "max_tokens": MAX_TOKENS,
        "system": SYSTEM_PROMPT,
        "messages": [{"role": "user", "content": prompt}],
    })
    .to_string();
    let post = Post {
        url: endpoint(&config.anthropic_base_url, "v1/messages"),
        headers: vec![auth, ("anthropic-version", API_VERSION.into())],
        body: &body,
        backoff,
    };
    let v = post_for_json(&post, deadline, log)?;
    let blocks = v
        .get("content")
        .and_then(|c| c.as_array())
        .ok_or_else(|| SummaryError::BadAnswer("the API answer has no content".into()))?;
    Ok(blocks
        .iter()
        .filter(|b| b.get("type").and_then(|t| t.as_str()) == Some("text"))
        .filter_map(|b| b.get("text").and_then(|t| t.as_str()))
        .collect::<Vec<_>>()
        .join(""))
}
