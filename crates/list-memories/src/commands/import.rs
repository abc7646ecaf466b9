//! `import`: the memories of past sessions still on disk, as the hooks would have saved
//! them (docs/design.md §7.11). The work is the library's (`memory_stalker::import`);
//! this reads the command line, states a model budget, draws the progress bar and
//! prints the report.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::Args;
use memory_stalker::import::{self, Options};
use memory_stalker::summary::{self, Breaker, Choice};

use super::{Context, JSON_VERSION, emit};
use crate::render::import::{Bar, report as render_report};

/// The arguments of `import`.
#[derive(Args)]
pub struct ImportArgs {
    /// Only sessions written to on or after this day (YYYY-MM-DD, YYYYMMDD, today,
    /// yesterday, or Nd for N days ago).
    #[arg(long, value_name = "DAY")]
    since: Option<String>,
    /// Only this agent's sessions: claude-code or codex.
    #[arg(long, value_name = "AGENT", value_parser = super::parse_agent)]
    agent: Option<memory_stalker::Agent>,
    /// Say what would be imported; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Have a model write the summary of at most N memories (one call each, with the
    /// summariser the hooks use); the others get the offline summary. Default 0: no model.
    #[arg(long, value_name = "N", default_value_t = 0)]
    model_summaries: usize,
    /// Sessions read at once (default: the machine's cores, at most 4).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
}

/// `import --json`.
#[derive(serde::Serialize)]
struct ImportJson<'a> {
    version: u32,
    #[serde(flatten)]
    report: &'a import::Report,
    /// Where the warnings of the saves went.
    log: &'a std::path::Path,
}

/// Imports the past sessions; exit 1 when a transcript could not be imported.
pub fn run(ctx: Context<'_>, args: ImportArgs, project_given: bool) -> anyhow::Result<ExitCode> {
    let since = match args.since.as_deref().map(since_time).transpose() {
        Ok(s) => s,
        Err(problem) => {
            eprintln!("list-memories import: {problem}");
            return Ok(ExitCode::from(2));
        }
    };
    let workers = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)));
    let options = Options {
        since,
        project: project_given.then(|| ctx.project.clone()),
        agent: args.agent,
        dry_run: args.dry_run,
        model_calls: if args.dry_run {
            0
        } else {
            args.model_summaries
        },
        workers,
    };
    if options.model_calls > 0 {
        eprintln!("{}", model_budget(&ctx.config, options.model_calls));
    }
    let mut bar = std::io::stderr()
        .is_terminal()
        .then(|| Bar::new(ctx.style.width()));
    let report = import::run(&ctx.config, &options, &mut |p| {
        if let Some(bar) = bar.as_mut() {
            bar.show(p);
        }
    });
    if let Some(bar) = bar.as_mut() {
        bar.clear();
    }
    let log = import::log_path(&ctx.config);
    if ctx.json {
        emit(
            ctx.out,
            &ImportJson {
                version: JSON_VERSION,
                report: &report,
                log: &log,
            },
        )?;
    } else {
        write!(ctx.out, "{}", render_report(&report))?;
    }
    Ok(if report.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `--since DAY` as a time.
fn since_time(day: &str) -> Result<SystemTime, String> {
    let ns = memory_stalker::search::day_start(day)?;
    Ok(if ns >= 0 {
        UNIX_EPOCH + Duration::from_nanos(ns as u64)
    } else {
        UNIX_EPOCH
    })
}

/// What `--model-summaries N` will cost, said before anything is asked: which backend,
/// how many calls at most, how much text each sends, how long each may take.
fn model_budget(config: &memory_stalker::Config, calls: usize) -> String {
    let choice = summary::choose(config, &Breaker::new(&config.data_dir), SystemTime::now());
    match choice {
        Choice::Model(backend) => format!(
            "list-memories import: asking {} for at most {calls} summaries, one call each, at most {} characters of conversation sent per call and {} s per call; every other memory gets the offline summary. Each call is recorded (list-memories status shows them).",
            summary::source_name(backend, config),
            config.max_chars,
            config.timeout.as_secs()
        ),
        Choice::Offline(reason) => format!(
            "list-memories import: no model can be asked ({}); every memory gets the offline summary.",
            reason
                .as_deref()
                .unwrap_or("MEMORY_STALKER_SUMMARIZER is offline, or no backend is configured")
        ),
    }
}
