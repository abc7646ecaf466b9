//! The hooks Claude Code runs (SPEC §2): the stdin they receive and what each does.
//!
//! Every entry point here returns the text for stdout and never fails: errors are
//! logged (stderr and the memories log) and the compaction goes on.

mod job;
mod save;

use std::path::PathBuf;

use serde::Deserialize;

pub use job::{JOB_SUBCOMMAND, SummaryJob, apply_model_summary, run_detached};
pub use save::{RenderedMemory, SaveRequest, Saved, checkpoints, render_memory, save_memory};

use crate::Error;
use crate::config::Config;
use crate::log::Log;

/// Largest hook input read from stdin; Claude Code sends well under a kilobyte, but
/// PostCompact carries the compaction summary.
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// The JSON Claude Code writes on a hook's stdin. Unknown fields are ignored and every
/// field is optional, so a newer Claude Code cannot make the hook fail.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct HookInput {
    pub session_id: Option<String>,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    pub prompt_id: Option<String>,
    pub hook_event_name: Option<String>,
    /// PreCompact and PostCompact: `auto` or `manual`.
    pub trigger: Option<String>,
    /// PreCompact: the `/compact` arguments.
    pub custom_instructions: Option<String>,
    /// PostCompact: Claude Code's own summary, raw.
    pub compact_summary: Option<String>,
    /// SessionStart: `startup`, `resume`, `clear` or `compact`.
    pub source: Option<String>,
}

impl HookInput {
    /// Parses the hook's stdin.
    pub fn parse(bytes: &[u8]) -> Result<HookInput, Error> {
        let text = String::from_utf8_lossy(bytes);
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(Error::HookInput(
                "stdin was empty; Claude Code sends the hook's JSON there".into(),
            ));
        }
        serde_json::from_str(trimmed).map_err(|e| {
            Error::HookInput(format!(
                "stdin is not the JSON object Claude Code sends ({e}); it began with {:?}",
                crate::text::prefix_chars(trimmed, 60)
            ))
        })
    }

    /// The project directory: `cwd`, else `CLAUDE_PROJECT_DIR`, whichever exists.
    pub fn project(&self, config: &Config) -> Option<PathBuf> {
        self.cwd
            .as_deref()
            .filter(|c| !c.is_empty())
            .map(PathBuf::from)
            .into_iter()
            .chain(config.project_dir.clone())
            .find(|p| p.is_dir())
    }
}

/// Runs the hook for one stdin payload; returns what to print on stdout.
pub fn run(stdin: &[u8], config: &Config, log: &Log) -> String {
    let input = match HookInput::parse(stdin) {
        Ok(i) => i,
        Err(e) => {
            log.error(&format!("{e}; no memory was saved"));
            return String::new();
        }
    };
    if let Some(project) = input.project(config) {
        let dir = config.memories_dir(&project);
        if crate::fsutil::create_private_dir(&dir).is_ok() {
            log.set_file(dir.join(".log"));
        }
    }
    for w in &config.warnings {
        log.warn(w);
    }
    match input.hook_event_name.as_deref() {
        Some("PreCompact") | None => pre_compact(&input, config, log),
        Some(other) => {
            log.info(&format!("nothing to do for the {other} hook"));
            String::new()
        }
    }
}

fn pre_compact(input: &HookInput, config: &Config, log: &Log) -> String {
    let Some(transcript) = input.transcript_path.as_deref().filter(|t| !t.is_empty()) else {
        log.error("the hook input has no transcript_path; no memory was saved");
        return String::new();
    };
    let Some(project) = input.project(config) else {
        log.error(&format!(
            "the project directory (cwd {:?}) does not exist and CLAUDE_PROJECT_DIR names none either; no memory was saved",
            input.cwd.as_deref().unwrap_or("")
        ));
        return String::new();
    };
    let request = SaveRequest {
        transcript: PathBuf::from(transcript),
        project,
        session_id: input.session_id.clone(),
        trigger: input.trigger.clone().unwrap_or_else(|| "auto".into()),
        custom_instructions: input.custom_instructions.clone(),
        prompt_id: input.prompt_id.clone(),
    };
    match save_memory(&request, config, log) {
        Ok(saved) => {
            log.info(&format!("saved {}", saved.path.display()));
        }
        Err(e) => log.error(&format!("{e}; no memory was saved")),
    }
    String::new()
}
