//! The "AI summary" part of a memory: its shape, and the summarisers that produce it.
//!
//! Every summariser returns the same [`Summary`]; the memory renders it with headings
//! in the configured language, so a model only ever supplies content, never layout.

pub mod answer;
pub mod anthropic;
pub mod breaker;
mod choices;
pub mod claude_cli;
pub mod codex_cli;
pub mod facts;
pub mod headline;
mod http;
mod instructions;
pub mod labels;
pub mod ledger;
mod markdown;
mod meaning;
pub mod offline;
pub mod openai;
mod process;
pub mod prompt;
pub mod session;
pub mod signals;

use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

pub use breaker::Breaker;
pub use prompt::SummaryInput;

use crate::config::{Backend, Config};
use crate::log::Log;
use crate::redact::redact_if;

/// A session summary (docs/design.md §5.1). This is also the JSON object a model is
/// asked to return.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// One line, at most 120 characters: what the session was about.
    pub headline: String,
    /// What was asked and what was done, a few points.
    pub task_summary: Vec<String>,
    /// The files changed, one row each.
    pub code_changes: Vec<CodeChange>,
    /// Decisions taken, with their reasons.
    pub key_decisions: Vec<Decision>,
    /// Rules the user stated for how to work.
    pub user_preferences: Vec<String>,
    /// What is left to do.
    pub follow_ups: Vec<String>,
    /// Approaches that were tried and did not work (a model may leave it out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_approaches: Vec<String>,
}

/// One row of the code changes table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeChange {
    /// The file, relative to the project.
    pub file: String,
    /// What happened to it (created, edited, deleted…).
    pub action: String,
    /// What the change was for.
    #[serde(default)]
    pub note: String,
}

/// A decision and why it was taken.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// What was decided.
    pub decision: String,
    /// Why (empty when the conversation gave no reason).
    #[serde(default)]
    pub reason: String,
}

/// The sentences of a text (outside code, list markers removed), as the offline
/// summary splits them.
pub(crate) fn sentences_of(text: &str) -> Vec<String> {
    offline::sentences(text)
}

/// Which summariser wrote a summary, as `summary_source` records it.
pub const OFFLINE_SOURCE: &str = "offline";

/// Longest `headline`, in characters (cut at the end of a word).
pub const HEADLINE_CHARS: usize = headline::MAX;

/// The system prompt given with every summary request.
pub const SYSTEM_PROMPT: &str = "You summarise coding sessions into memory files. You reply with one JSON object and nothing else.";

/// First delay between retries of a failed HTTP call; it doubles each time.
pub const RETRY_BACKOFF: Duration = Duration::from_millis(500);

/// Why a model did not produce a summary.
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    /// The backend lacks what it needs (a key, an endpoint, an executable).
    #[error("not configured: {0}")]
    NotConfigured(String),
    /// The API answered with an error status (after retries, for 429 and 5xx).
    #[error("HTTP {status}: {message}")]
    Http {
        /// The HTTP status.
        status: u16,
        /// The error the API gave, redacted and cut to a line.
        message: String,
    },
    /// The connection failed (after retries).
    #[error("connection failed: {0}")]
    Transport(String),
    /// No answer before the deadline (`MEMORY_STALKER_TIMEOUT`).
    #[error("no answer before the deadline")]
    Deadline,
    /// An answer arrived but is not a usable summary.
    #[error("unusable answer: {0}")]
    BadAnswer(String),
    /// The nested `claude -p` failed.
    #[error("claude -p failed: {0}")]
    Cli(String),
    /// The nested `codex exec` failed.
    #[error("codex exec failed: {0}")]
    CodexCli(String),
    /// The session could not be read for the summary.
    #[error("cannot read the session: {0}")]
    Input(String),
}

/// Which summariser a memory gets, after configuration and the circuit breaker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// Ask this backend.
    Model(Backend),
    /// Use the offline summary; the reason is worth telling the user (or `None` when
    /// no model was ever configured, which is normal).
    Offline(Option<String>),
}

/// Backends `auto` considers, in order, when configured.
const AUTO_ORDER: [Backend; 4] = [
    Backend::Anthropic,
    Backend::OpenAi,
    Backend::ClaudeCli,
    Backend::CodexCli,
];

/// Whether a backend has what it needs.
pub fn configured(backend: Backend, config: &Config) -> Result<(), String> {
    let ok = match backend {
        Backend::Anthropic => anthropic::configured(config),
        Backend::OpenAi => openai::configured(config),
        Backend::ClaudeCli => claude_cli::configured(config),
        Backend::CodexCli => codex_cli::configured(config),
        Backend::Offline | Backend::Auto => true,
    };
    if ok {
        return Ok(());
    }
    Err(match backend {
        Backend::Anthropic => "anthropic needs ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN",
        Backend::OpenAi => "openai needs MEMORY_STALKER_OPENAI_BASE_URL",
        Backend::CodexCli => "codex-cli needs the `codex` executable on PATH",
        _ => "claude-cli needs the `claude` executable on PATH",
    }
    .to_string())
}

/// Picks the summariser: the configured backend (or, for `auto`, the first configured
/// one) whose circuit is closed at `now`.
pub fn choose(config: &Config, breaker: &Breaker, now: SystemTime) -> Choice {
    let candidates: Vec<Backend> = match config.summarizer {
        Backend::Offline => return Choice::Offline(None),
        Backend::Auto => AUTO_ORDER
            .into_iter()
            .filter(|b| configured(*b, config).is_ok())
            .collect(),
        explicit => {
            if let Err(why) = configured(explicit, config) {
                return Choice::Offline(Some(why));
            }
            vec![explicit]
        }
    };
    let mut skipped = Vec::new();
    for b in candidates {
        match breaker.open_until(b.name(), now) {
            Some(until) => skipped.push(format!(
                "{} is skipped until {} after {} failures in a row",
                b.name(),
                chrono::DateTime::<chrono::Local>::from(until).format("%H:%M"),
                breaker::THRESHOLD
            )),
            None => return Choice::Model(b),
        }
    }
    Choice::Offline((!skipped.is_empty()).then(|| skipped.join("; ")))
}

/// A summary written by a model, and `summary_source` for it.
#[derive(Debug, Clone)]
pub struct ModelSummary {
    /// The summary, validated.
    pub summary: Summary,
    /// `backend:model`, as the memory's `summary_source` records it.
    pub source: String,
}

/// `summary_source` of a backend before its model is known for sure.
pub fn source_name(backend: Backend, config: &Config) -> String {
    match backend {
        Backend::Anthropic => format!("anthropic:{}", anthropic::model(config)),
        Backend::OpenAi => match &config.model {
            Some(m) => format!("openai:{m}"),
            None => "openai".into(),
        },
        Backend::CodexCli => codex_cli::source(config),
        other => other.name().to_string(),
    }
}

/// Asks `backend` for a summary of `input` before `deadline`, for the memories directory
/// `memories` (which the call's line in the ledger names). Everything sent is redacted
/// (unless `MEMORY_STALKER_REDACT=0`).
pub fn run_model(
    backend: Backend,
    input: &SummaryInput,
    config: &Config,
    memories: &std::path::Path,
    deadline: Instant,
    log: &Log,
) -> Result<ModelSummary, SummaryError> {
    let (template, problem) = prompt::template(config);
    if let Some(p) = problem {
        log.warn(&p);
    }
    let built = prompt::build(&template, input);
    let prompt = redact_if(config.redact, &built);
    let started = Instant::now();
    let answer = ask(backend, config, &prompt, deadline, log);
    // What the user pays, whatever came of it (summary/ledger.rs).
    let (received, error) = match &answer {
        Ok((text, _)) => (text.chars().count(), None),
        Err(e) => (0, Some(e.to_string())),
    };
    let call = ledger::Call {
        at: ledger::unix(std::time::SystemTime::now()),
        backend: backend.name().to_string(),
        source: answer
            .as_ref()
            .map_or_else(|_| source_name(backend, config), |(_, s)| s.clone()),
        memories: memories.to_string_lossy().into_owned(),
        sent: prompt.chars().count(),
        received,
        ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        error,
    };
    log.info(&format!(
        "model call: {} sent {} characters, received {} in {:.1}s{}",
        call.source,
        call.sent,
        call.received,
        started.elapsed().as_secs_f64(),
        if call.error.is_some() {
            " (failed)"
        } else {
            ""
        }
    ));
    if let Err(e) = ledger::record(&config.data_dir, call) {
        log.warn(&format!("cannot record the model call: {e}"));
    }
    let (text, source) = answer?;
    Ok(ModelSummary {
        summary: answer::parse(&text)?,
        source,
    })
}

/// Sends `prompt` to `backend`: the answer's text and its `summary_source`.
fn ask(
    backend: Backend,
    config: &Config,
    prompt: &str,
    deadline: Instant,
    log: &Log,
) -> Result<(String, String), SummaryError> {
    Ok(match backend {
        Backend::Anthropic => (
            anthropic::complete(config, prompt, deadline, RETRY_BACKOFF, log)?,
            source_name(backend, config),
        ),
        Backend::OpenAi => {
            let (text, model) = openai::complete(config, prompt, deadline, RETRY_BACKOFF, log)?;
            (text, format!("openai:{model}"))
        }
        Backend::ClaudeCli => (
            claude_cli::complete(config, prompt, deadline)?,
            "claude-cli".into(),
        ),
        Backend::CodexCli => (
            codex_cli::complete(config, prompt, deadline)?,
            codex_cli::source(config),
        ),
        Backend::Offline | Backend::Auto => {
            return Err(SummaryError::NotConfigured(
                "no model backend chosen".into(),
            ));
        }
    })
}
