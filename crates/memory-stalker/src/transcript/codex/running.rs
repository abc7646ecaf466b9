//! Codex's commands still running when their call returned (docs/design.md §3.13).
//!
//! Codex's `exec_command` returns after a while (its `yield_time_ms`) whether or not the
//! command has finished: a long test run answers "Process running with session ID N",
//! and the model later waits on it with `write_stdin` on session N, whose output reports
//! "Process exited with code C" once it ends. Each such command takes the outcome and
//! output of the first exit its session reports after it ([`super::super::settle`]), and
//! each wait names the command it waits on.

use super::super::commands::running_session;
use super::super::record::{Record, ToolDetail, is_shell};
use super::super::settle::{Later, settle as settle_later};
use super::tools::reports_exit;

/// Settles the commands of `records` (in file order) that were still running when
/// their call returned.
pub(crate) fn settle(records: &mut [Record]) {
    settle_later(
        records,
        &Later {
            waited_on: &|c| match c.detail {
                ToolDetail::Poll(session) => Some(session),
                _ => None,
            },
            may_start: &|c| is_shell(&c.name),
            started: &running_session,
            ended: &|r| reports_exit(r.text.head()).then(|| (r.is_error, r.text.clone())),
            name_waits: true,
        },
    );
}
