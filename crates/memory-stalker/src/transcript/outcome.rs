//! What a failed or refused call's result says, read as the agent wrote it: the telling
//! line of a failed command's output (the line a reader needs to know why it failed)
//! and the reason the user typed when refusing a call.

use crate::text::one_line;

/// Longest error line kept.
pub(crate) const ERROR_CHARS: usize = 200;
/// Longest refusal reason kept.
const REASON_CHARS: usize = 300;

/// The most telling line of a failed command's output: the first that names an error,
/// a failure or an assertion, else the first that is not an exit code.
pub(crate) fn error_line(output: &str) -> Option<String> {
    telling_line(output, false)
}

/// The line of a failed command's output that names an error, a failure or an
/// assertion; `None` when no line does (a command's first line of output, `On branch
/// master`, says nothing of why it failed).
pub(crate) fn named_error(output: &str) -> Option<String> {
    telling_line(output, true)
}

fn telling_line(output: &str, named_only: bool) -> Option<String> {
    const STRONG: [&str; 12] = [
        "error:",
        "error[",
        "error ",
        "Error:",
        "Error [",
        "ERROR",
        "FAILED",
        "FAIL ",
        "AssertionError",
        "panicked",
        "Exception",
        "fatal:",
    ];
    // A hook's message passed on JSON-escaped keeps its `\n`s as text.
    let output = crate::transcript::codex::command_output(output).replace("\\n", "\n");
    let lines: Vec<&str> = output
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("Exit code"))
        .filter(|l| !l.starts_with("<tool_use_error>") || l.len() > 20)
        .collect();
    // Why a call failed, named: a line naming the error says more than one that only
    // says something failed ("✗ Build failed in 1.60s" before "error during build: …").
    // A run's first telling line keeps the order of the output.
    // One automaton for the twelve: a `contains` each built a searcher per line.
    static NAMED: std::sync::LazyLock<aho_corasick::AhoCorasick> =
        std::sync::LazyLock::new(|| super::automaton(&STRONG));
    let named = |l: &&str| NAMED.is_match(l);
    let failed = |l: &&str| l.contains("failed");
    let at = if named_only {
        lines
            .iter()
            .position(named)
            .or_else(|| lines.iter().position(failed))
    } else {
        lines.iter().position(|l| named(l) || failed(l)).or(Some(0))
    }?;
    let first = lines.get(at)?;
    // "Pre-commit validation failed:" says what by its next line, and so does a bare
    // "Error".
    let bare = first
        .trim_matches(|c: char| !c.is_alphanumeric())
        .split_whitespace()
        .count()
        <= 1;
    // The next line that says something: not a rule of dashes, not a build tool's
    // `[INFO]` chatter.
    let said = |l: &&&str| {
        !l.starts_with("[INFO]") && l.chars().filter(|c| c.is_alphanumeric()).count() >= 3
    };
    let line = match lines.iter().skip(at + 1).find(said) {
        Some(next) if first.ends_with(':') || bare => format!("{first} {next}"),
        _ => (*first).to_string(),
    };
    let line = line
        .trim_start_matches("<tool_use_error>")
        .trim_end_matches("</tool_use_error>");
    Some(one_line(line, ERROR_CHARS))
}

/// The reason the user typed when refusing a call, as Claude Code passes it on.
pub(crate) fn reason(result: &str) -> Option<String> {
    const MARKERS: [&str; 3] = [
        "The user provided the following reason for the rejection:",
        "To tell you how to proceed, the user said:",
        "the user said:",
    ];
    MARKERS.iter().find_map(|m| {
        let (_, rest) = result.split_once(m)?;
        let words = one_line(rest.trim(), REASON_CHARS);
        (!words.is_empty()).then_some(words)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_line_is_the_one_that_names_the_error() {
        assert_eq!(
            error_line("Exit code 1\n============ test session starts\ncollected 3 items\n\nFAILED tests/test_a.py::test_b - AssertionError: 2 != 3\n").as_deref(),
            Some("FAILED tests/test_a.py::test_b - AssertionError: 2 != 3")
        );
        assert_eq!(
            error_line("Exit code 2\nsomething odd").as_deref(),
            Some("something odd")
        );
        assert_eq!(error_line("Exit code 2\n"), None);
        assert_eq!(
            error_line("[INFO] Scanning\n[ERROR] COMPILATION ERROR :\n[INFO] -------------\n[ERROR] /p/A.java:[3,5] cannot find symbol").as_deref(),
            Some("[ERROR] COMPILATION ERROR : [ERROR] /p/A.java:[3,5] cannot find symbol")
        );
        assert_eq!(
            error_line("Exit code 1\nError\nmodule 'app' has no attribute 'run'").as_deref(),
            Some("Error module 'app' has no attribute 'run'")
        );
        assert_eq!(
            error_line("Pre-commit validation failed:\\n\\n[FORMAT] Code is not formatted.")
                .as_deref(),
            Some("Pre-commit validation failed: [FORMAT] Code is not formatted.")
        );
    }
}
