//! Any OpenAI-compatible `/v1/chat/completions` endpoint: Ollama, llama.cpp, vLLM,
//! LM Studio (`MEMORY_STALKER_OPENAI_BASE_URL`, optional `MEMORY_STALKER_OPENAI_API_KEY`).

use std::time::{Duration, Instant};

use super::http::{Post, endpoint, post_for_json};
use super::{SYSTEM_PROMPT, SummaryError};
use crate::config::Config;
use crate::log::Log;

/// Whether an endpoint is set.
pub fn configured(config: &Config) -> bool {
    config.openai_base_url.is_some()
}

/// The model: `MEMORY_STALKER_MODEL`, else the first one the server lists.
pub fn model(config: &Config, deadline: Instant) -> Result<String, SummaryError> {
    if let Some(m) = &config.model {
        return Ok(m.clone());
    }
    let base = config
        .openai_base_url
        .as_deref()
        .ok_or_else(|| SummaryError::NotConfigured("set MEMORY_STALKER_OPENAI_BASE_URL".into()))?;
    let remaining = deadline.saturating_duration_since(Instant::now());
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(remaining.min(Duration::from_secs(10))))
        .build()
        .into();
    let mut req = agent.get(endpoint(base, "v1/models"));
    if let Some(key) = &config.openai_api_key {
        req = req.header("authorization", format!("Bearer {key}"));
    }
    let listed = req
        .call()
        .ok()
        .and_then(|r| r.into_body().read_to_string().ok())
        .and_then(|b| serde_json::from_str::<serde_json::Value>(&b).ok())
        .and_then(|v| {
            v.pointer("/data/0/id")
                .and_then(|m| m.as_str())
                .map(str::to_string)
        });
    listed.ok_or_else(|| {
        SummaryError::NotConfigured(
            "set MEMORY_STALKER_MODEL (the server did not list a model at /v1/models)".into(),
        )
    })
}

/// Sends the prompt and returns the answer's text and the model used.
pub fn complete(
    config: &Config,
    prompt: &str,
    deadline: Instant,
    backoff: Duration,
    log: &Log,
) -> Result<(String, String), SummaryError> {
    let model = model(config, deadline)?;
    let base = config.openai_base_url.as_deref().unwrap_or_default();
    let body = serde_json::json!({
        "model": model,
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": prompt},
        ],
        "temperature": 0.2,
        "stream": false,
    })
    .to_string();
    let mut headers = Vec::new();
    if let Some(key) = &config.openai_api_key {
        headers.push(("authorization", format!("Bearer {key}")));
    }
    let post = Post {
        url: endpoint(base, "v1/chat/completions"),
        headers,
        body: &body,
        backoff,
    };
    let v = post_for_json(&post, deadline, log)?;
    let text = v
        .pointer("/choices/0/message/content")
        .and_then(|c| c.as_str())
        .ok_or_else(|| {
            SummaryError::BadAnswer("the API answer has no choices[0].message.content".into())
        })?;
    Ok((text.to_string(), model))
}
