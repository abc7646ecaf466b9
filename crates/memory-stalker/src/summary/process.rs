//! Running a nested agent CLI (`claude -p`, `codex exec`) for a summary: the prompt on
//! its stdin, its output read whole, and the process killed at the deadline.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::SummaryError;

/// What the nested process gave: its exit code (`None`: a signal), stdout, and the
/// first 64 KiB of its stderr.
pub(crate) struct Ran {
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

/// Runs `cmd` with `input` on its stdin until it exits or `deadline` passes (then it is
/// killed: [`SummaryError::Deadline`]). `what` names the program in errors, which `err`
/// makes.
pub(crate) fn run(
    mut cmd: Command,
    input: &str,
    deadline: Instant,
    what: &str,
    err: fn(String) -> SummaryError,
) -> Result<Ran, SummaryError> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| err(format!("cannot run {what}: {e}")))?;
    let mut stdin = child.stdin.take();
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            let _ = s.write_all(input.as_bytes());
        }
    });
    let mut stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(s) = stdout.as_mut() {
            let _ = s.read_to_end(&mut out);
        }
        out
    });
    let mut stderr = child.stderr.take();
    let err_reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(s) = stderr.as_mut() {
            let _ = s.take(64 * 1024).read_to_end(&mut out);
        }
        out
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(SummaryError::Deadline);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(err(format!("waiting for {what}: {e}"))),
        }
    };
    let _ = writer.join();
    Ok(Ran {
        code: status.code(),
        stdout: reader.join().unwrap_or_default(),
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned(),
    })
}
