//! `save-memory`: the memory-stalker hook binary.
//!
//! Without arguments it is a Claude Code hook: it reads the hook's JSON on stdin and
//! always exits 0, whatever happens, so compaction is never blocked. With
//! `--transcript` it saves a memory from a transcript by hand, and `inspect` prints
//! what it extracts from a transcript.

use std::ffi::OsString;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser as _};
use clap::{Args, Parser, Subcommand, ValueEnum};
use memory_stalker::Config;
use memory_stalker::config::Backend;
use memory_stalker::hook;
use memory_stalker::log::Log;
use memory_stalker::memory::Trigger;
use memory_stalker::pipeline::{self, SaveRequest, SummaryJob};
use memory_stalker::summary::signals::Signals;
use memory_stalker::transcript::{ReadOptions, Transcript};

#[derive(Parser)]
#[command(
    name = "save-memory",
    version,
    about = "Save a memory of a Claude Code session when its context is compacted",
    long_about = "Save a memory of a Claude Code session when its context is compacted.\n\n\
        Run without arguments as a Claude Code hook: the hook's JSON is read from stdin \
        and the command always exits 0. Use --transcript to save a memory by hand, and \
        `inspect` to see what is extracted from a transcript.",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    by_hand: ByHand,
}

#[derive(Args)]
struct ByHand {
    /// Save a memory from this transcript (JSONL) instead of reading hook input.
    #[arg(long, value_name = "FILE", requires = "project")]
    transcript: Option<PathBuf>,
    /// The project whose .claude/memories/ receives the memory.
    #[arg(long, value_name = "DIR", requires = "transcript")]
    project: Option<PathBuf>,
    /// Session id to record (default: the transcript's).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Trigger to record.
    #[arg(long, default_value = "manual", value_parser = PossibleValuesParser::new(["manual", "auto"]).map(Trigger::from))]
    trigger: Trigger,
    /// Custom compaction instructions to record.
    #[arg(long, value_name = "TEXT")]
    instructions: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Print what would be extracted from a transcript, without writing anything.
    Inspect {
        /// The transcript (JSONL).
        file: PathBuf,
        /// Print the extraction as JSON (the shape of docs/design.md §3.11).
        #[arg(long)]
        json: bool,
        /// Session id for Claude Code's task files (default: the transcript's).
        #[arg(long, value_name = "ID")]
        session: Option<String>,
    },
    /// Install memory-stalker's hooks and MCP server into OpenAI's Codex CLI, or remove
    /// them (what `./install.sh` runs when `codex` is on PATH).
    #[command(subcommand)]
    Codex(CodexCommand),
    /// Hook for UserPromptSubmit and PostToolUse: hand a note PostCompact left to the
    /// model (prints nothing when none waits).
    #[command(name = "hand-over-note", hide = true)]
    HandOverNote,
    /// Hook for PreToolUse of the edit tools and PostToolUseFailure of Bash: a note
    /// from an earlier memory about the file or the error (prints nothing otherwise).
    #[command(name = "action-note", hide = true)]
    ActionNote,
    /// Write a model's summary into a saved memory (started by the hook, detached).
    #[command(name = "summarize-job", hide = true)]
    SummarizeJob {
        #[arg(long)]
        memory: PathBuf,
        #[arg(long)]
        transcript: PathBuf,
        #[arg(long)]
        bytes: u64,
        #[arg(long)]
        session: String,
        #[arg(long)]
        backend: JobBackend,
        #[arg(long)]
        instructions: Option<String>,
    },
}

/// `save-memory codex …`.
#[derive(Subcommand)]
enum CodexCommand {
    /// Add the hooks to $CODEX_HOME/hooks.json, and their trust and the MCP server to
    /// $CODEX_HOME/config.toml (in a block of its own); run again, it changes nothing.
    Install {
        /// The plugin's launcher (`<repository>/plugin/run`), an absolute path.
        #[arg(long, value_name = "PATH")]
        launcher: PathBuf,
        /// Codex's home (default: $CODEX_HOME, else ~/.codex).
        #[arg(long, value_name = "DIR")]
        codex_home: Option<PathBuf>,
    },
    /// Remove what `install` added, and nothing else.
    Uninstall {
        /// The launcher of the copy whose hooks to remove (`<repository>/plugin/run`);
        /// default: the one beside this binary (`../plugin/run`), else every copy's.
        #[arg(long, value_name = "PATH")]
        launcher: Option<PathBuf>,
        /// Codex's home (default: $CODEX_HOME, else ~/.codex).
        #[arg(long, value_name = "DIR")]
        codex_home: Option<PathBuf>,
    },
}

/// `summarize-job --backend`: exactly the names [`Backend::name`] gives the job when the
/// hook starts it, so a misspelt one is a usage error instead of an offline summary
/// (the lenient [`Backend::parse`] is for `MEMORY_STALKER_SUMMARIZER`).
#[derive(Debug, Clone, Copy)]
struct JobBackend(Backend);

impl ValueEnum for JobBackend {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            JobBackend(Backend::Auto),
            JobBackend(Backend::Anthropic),
            JobBackend(Backend::OpenAi),
            JobBackend(Backend::ClaudeCli),
            JobBackend(Backend::CodexCli),
            JobBackend(Backend::Offline),
        ]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()))
    }
}

/// Runs `save-memory` with these arguments (the first is the program's name).
pub fn main_from(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    memory_stalker::fsutil::ignore_file_size_signal();
    let cli = Cli::parse_from(args);
    let result = match cli.command {
        Some(Command::Inspect {
            file,
            json,
            session,
        }) => inspect(&file, json, session.as_deref()),
        Some(Command::SummarizeJob {
            memory,
            transcript,
            bytes,
            session,
            backend,
            instructions,
        }) => summarize_job(SummaryJob {
            memory,
            transcript,
            transcript_bytes: bytes,
            session_id: session,
            custom_instructions: instructions,
            backend: backend.0,
        }),
        Some(Command::HandOverNote) => return hand_over_note(),
        Some(Command::ActionNote) => return action_note(),
        Some(Command::Codex(c)) => codex(c),
        None if cli.by_hand.transcript.is_some() => by_hand(cli.by_hand),
        None => return run_hook(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("save-memory: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Hook mode: whatever happens, exit 0 and keep stdout for what Claude Code should see.
fn run_hook() -> ExitCode {
    if std::io::stdin().is_terminal() {
        eprintln!(
            "save-memory: this is a Claude Code hook and reads its JSON from stdin.\n\
             To save a memory by hand: save-memory --transcript FILE --project DIR\n\
             To see what is extracted: save-memory inspect FILE"
        );
        return ExitCode::from(2);
    }
    let config = Config {
        in_hook: true,
        ..Config::from_env()
    };
    // Claude Code kills a hook at its timeout; leaving on our own first keeps the exit
    // code 0 and the log honest. Until the event is known, the shortest budget holds.
    let started = Instant::now();
    let budget = Arc::new(AtomicU64::new(
        hook::time_budget(Some("SessionStart"), &config).as_millis() as u64,
    ));
    {
        let budget = budget.clone();
        std::thread::spawn(move || {
            loop {
                let limit = Duration::from_millis(budget.load(Ordering::Relaxed));
                let left = limit.saturating_sub(started.elapsed());
                if left.is_zero() {
                    eprintln!(
                        "memory-stalker: gave up after {}s; compaction continues",
                        limit.as_secs()
                    );
                    std::process::exit(0);
                }
                std::thread::sleep(left.min(Duration::from_millis(200)));
            }
        });
    }
    std::panic::set_hook(Box::new(|info| {
        eprintln!("memory-stalker: internal error ({info}); compaction continues");
    }));
    let out = std::panic::catch_unwind(|| {
        let log = Log::stderr();
        let mut input = Vec::new();
        if let Err(e) = std::io::stdin()
            .take(hook::MAX_INPUT_BYTES + 1)
            .read_to_end(&mut input)
        {
            log.error(&format!("cannot read the hook input from stdin: {e}"));
            return String::new();
        }
        if input.len() as u64 > hook::MAX_INPUT_BYTES {
            // Read and dropped, so Claude Code's write does not fail.
            let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
            log.error(&format!(
                "the hook input is over {} MiB, more than Claude Code sends; it was not read, and memories already saved are kept",
                hook::MAX_INPUT_BYTES / (1024 * 1024)
            ));
            return String::new();
        }
        let parsed = hook::HookInput::parse(&input);
        if let Ok(p) = &parsed {
            let limit = hook::time_budget(p.hook_event_name.as_deref(), &config);
            budget.store(limit.as_millis() as u64, Ordering::Relaxed);
        }
        hook::run_parsed(parsed, &config, &log)
    })
    .unwrap_or_default();
    print_out(&out);
    ExitCode::SUCCESS
}

/// Runs on every prompt and tool call: when no note waits (nearly always), it only
/// drains stdin, so Claude Code's write never fails, and exits 0 without parsing it.
fn hand_over_note() -> ExitCode {
    let config = Config::from_env();
    // Checked before reading: with no note waiting, the input (a tool call's whole
    // result, often megabytes) is drained without being held in memory.
    let mut input = Vec::new();
    if hook::note::any_waiting(&config)
        && std::io::stdin()
            .take(hook::MAX_INPUT_BYTES)
            .read_to_end(&mut input)
            .is_ok()
    {
        let out = hook::note::hand_over(&input, &config);
        print_out(&out);
    }
    // Whatever was not read (all of it, or what is past the cap) is read and dropped.
    let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
    ExitCode::SUCCESS
}

/// Writes what a hook says on stdout (nothing when it has nothing to say); a closed
/// stdout is no failure of the hook.
fn print_out(out: &str) {
    if !out.is_empty() {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(out.as_bytes());
        let _ = stdout.flush();
    }
}

/// Most time the action note may take: it runs before an edit, which waits for it.
const ACTION_NOTE_BUDGET: Duration = Duration::from_secs(3);

/// Runs before an edit and after a failed command: a note from an earlier memory, or
/// nothing; exit 0 whatever happens, within [`ACTION_NOTE_BUDGET`].
fn action_note() -> ExitCode {
    std::thread::spawn(|| {
        std::thread::sleep(ACTION_NOTE_BUDGET);
        eprintln!(
            "memory-stalker: the action note gave up after {}s",
            ACTION_NOTE_BUDGET.as_secs()
        );
        std::process::exit(0);
    });
    std::panic::set_hook(Box::new(|info| {
        eprintln!("memory-stalker: internal error ({info}); no note");
    }));
    let config = Config {
        in_hook: true,
        ..Config::from_env()
    };
    let mut input = Vec::new();
    if std::io::stdin()
        .take(hook::MAX_INPUT_BYTES)
        .read_to_end(&mut input)
        .is_ok()
    {
        let out = std::panic::catch_unwind(|| hook::action::run(&input, &config, &Log::stderr()))
            .unwrap_or_default();
        print_out(&out);
    }
    let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
    ExitCode::SUCCESS
}

/// The background half of a PreCompact hook: no terminal, no stdio, its own session.
fn summarize_job(job: SummaryJob) -> anyhow::Result<()> {
    let config = Config::from_env();
    // The job's calls have their own deadline; this only guards against the unforeseen.
    let limit = config.timeout + Duration::from_secs(60);
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        std::process::exit(0);
    });
    pipeline::run_detached(&job, &config);
    Ok(())
}

/// `save-memory codex install|uninstall`: prints what was done, one line each.
fn codex(command: CodexCommand) -> anyhow::Result<()> {
    use memory_stalker::codex;
    let home_of = |given: Option<PathBuf>| {
        given
            .or_else(|| {
                let env = std::env::var("CODEX_HOME").ok();
                let home = std::env::var_os("HOME").map(PathBuf::from);
                codex::codex_home(env.as_deref(), home.as_deref())
            })
            .context("neither --codex-home, CODEX_HOME nor HOME says where Codex's home is")
    };
    let outcome = match command {
        CodexCommand::Install {
            launcher,
            codex_home,
        } => codex::install(&home_of(codex_home)?, &launcher)?,
        CodexCommand::Uninstall {
            launcher,
            codex_home,
        } => {
            let home = home_of(codex_home)?;
            let out = codex::uninstall(&home, launcher.or_else(own_launcher).as_deref())?;
            if !out.changed {
                println!(
                    "memory-stalker is not installed in Codex ({}): nothing to uninstall",
                    home.display()
                );
            }
            out
        }
    };
    for line in &outcome.lines {
        println!("    {line}");
    }
    for line in &outcome.left {
        eprintln!("    {line}");
    }
    Ok(())
}

/// The launcher of the copy this binary belongs to: `<repository>/plugin/run` beside
/// `<repository>/bin/save-memory` (where `install.sh` puts it), when it is there.
fn own_launcher() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let launcher = exe.parent()?.parent()?.join("plugin/run");
    launcher.is_file().then_some(launcher)
}

fn by_hand(args: ByHand) -> anyhow::Result<()> {
    let (Some(transcript), Some(project)) = (args.transcript, args.project) else {
        bail!("--transcript and --project go together");
    };
    if !project.is_dir() {
        bail!("--project {} is not a directory", project.display());
    }
    let project = project
        .canonicalize()
        .with_context(|| format!("resolving {}", project.display()))?;
    let transcript = transcript
        .canonicalize()
        .with_context(|| format!("cannot read transcript {}", transcript.display()))?;
    let config = Config::from_env();
    let log = Log::stderr();
    for w in &config.warnings {
        log.warn(w);
    }
    let request = SaveRequest {
        transcript,
        project,
        session_id: args.session,
        trigger: args.trigger,
        custom_instructions: args.instructions,
        prompt_id: None,
    };
    let now = chrono::Local::now().fixed_offset();
    let saved = pipeline::save_memory(&request, now, &config, &log)?;
    println!(
        "{}",
        memory_stalker::untrusted::terminal_line(&saved.path.to_string_lossy(), usize::MAX)
    );
    Ok(())
}

fn inspect(file: &Path, json: bool, session: Option<&str>) -> anyhow::Result<()> {
    let config = Config::from_env();
    let started = Instant::now();
    let mut transcript = Transcript::read(
        file,
        ReadOptions {
            tasks_dir: session.and_then(|s| config.tasks_dir(s)),
            plans_dir: config.plans_dir(),
            redact: config.redact,
            output_heads_only: true,
            ..ReadOptions::default()
        },
    )?;
    if session.is_none()
        && let Some(dir) = transcript.session_id().and_then(|s| config.tasks_dir(&s))
    {
        transcript.use_task_files(&dir);
    }
    let extraction = transcript.extraction();
    let elapsed = started.elapsed();
    let mut out = std::io::stdout().lock();
    // `inspect` prints transcript text to a terminal (or a file): the transcript was
    // read with redaction on (as configured), and the text view is redacted once more.
    if json {
        // The structural signals (docs/design.md §3.12) go after the extraction's
        // fields, under a key of their own, when there are any. Escaped where a
        // terminal would act on a character or hide it (docs/design.md §8.3): the same
        // JSON value.
        #[derive(serde::Serialize)]
        struct Inspected<'a> {
            #[serde(flatten)]
            extraction: &'a memory_stalker::transcript::Extraction,
            #[serde(skip_serializing_if = "Signals::is_empty")]
            signals: Signals,
        }
        let shown = Inspected {
            extraction: &extraction,
            signals: transcript.signals(),
        };
        let text = serde_json::to_string_pretty(&shown).context("writing JSON")?;
        writeln!(out, "{}", memory_stalker::untrusted::escape_json(&text))?;
        return Ok(());
    }
    let (read, size) = transcript.bytes_read();
    let described = memory_stalker::transcript::describe(&extraction, read, size, elapsed);
    write!(
        out,
        "{}",
        memory_stalker::redact::redact_if(config.redact, &described)
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the hook passes a job parses back to the same job; a misspelt backend is a
    /// usage error.
    #[test]
    fn a_job_parses_back_from_its_arguments() {
        for backend in JobBackend::value_variants().iter().map(|b| b.0) {
            let job = SummaryJob {
                memory: "/m.md".into(),
                transcript: "/t.jsonl".into(),
                transcript_bytes: 42,
                session_id: "s".into(),
                custom_instructions: Some("keep it short".into()),
                backend,
            };
            let args = std::iter::once("save-memory".into()).chain(job.to_args());
            let Some(Command::SummarizeJob {
                backend: parsed, ..
            }) = Cli::try_parse_from(args).unwrap().command
            else {
                panic!("not a summarize-job");
            };
            assert_eq!(parsed.0, backend);
        }
        let typo = Cli::try_parse_from([
            "save-memory",
            "summarize-job",
            "--memory",
            "m",
            "--transcript",
            "t",
            "--bytes",
            "1",
            "--session",
            "s",
            "--backend",
            "anthropc",
        ]);
        assert_eq!(typo.err().map(|e| e.exit_code()), Some(2));
    }
}
