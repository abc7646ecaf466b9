//! What a failed or refused call's result says, read as the agent wrote it: the telling
//! line of a failed command's output (the line a reader needs to know why it failed)
//! and the reason the user typed when refusing a call.

use crate::text::one_line;

/// Longest error line kept.
pub(crate) const ERROR_CHARS: usize = 200;
/// Longest refusal reason kept.
const REASON_CHARS: usize = 300;
/// Lines on either side of a telling line that belong with it.
const NEAR: usize = 5;

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

/// [`named_error`] with the lines around it (five before, itself, five after): where a
/// paste names the file its error is about (a compiler's `src/a.ts:3:1 - error …`, a
/// traceback's `File "a.py", line 3` before its last line).
pub(crate) fn named_error_near(output: &str) -> Option<(String, String)> {
    let mut near = String::new();
    let line = telling(output, true, Some(&mut near))?;
    Some((line, near))
}

fn telling_line(output: &str, named_only: bool) -> Option<String> {
    telling(output, named_only, None)
}

/// The telling line; `near`, when given, gets the lines around it, one per line.
fn telling(output: &str, named_only: bool, near: Option<&mut String>) -> Option<String> {
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
    let failed = |l: &&str| says_failed(l);
    let at = if named_only {
        lines
            .iter()
            .position(named)
            .or_else(|| lines.iter().position(failed))
    } else {
        lines.iter().position(|l| named(l) || failed(l)).or(Some(0))
    }?;
    let first = lines.get(at)?;
    if let Some(near) = near {
        *near = lines[at.saturating_sub(NEAR)..lines.len().min(at + NEAR + 1)].join("\n");
    }
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

/// Whether `line` says "failed" as a word of its own ("Build failed in 1.60s",
/// "validation failed:"), not inside a name (a config's `ci-failed:` key, `on_failed`,
/// `failedTests`), which says nothing failed.
fn says_failed(line: &str) -> bool {
    crate::text::has_words_between(line, "failed", |c| {
        c.is_alphanumeric() || matches!(c, '_' | '-')
    })
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
    fn failed_counts_as_a_word_not_inside_a_name() {
        assert!(says_failed("✗ Build failed in 1.60s"));
        assert!(says_failed("Pre-commit validation failed:"));
        assert!(says_failed("failed"));
        assert!(says_failed("3 tests failed, 2 passed"));
        assert!(!says_failed("ci-failed:"));
        assert!(!says_failed("  on_failed: retry"));
        assert!(!says_failed("failedTests = 0"));
        assert!(!says_failed("unfailed"));
        // A paste of a config is no reported failure.
        assert_eq!(
            named_error("reactions:\n  ci-failed:\n    auto: true\n    action: send-to-agent\n"),
            None
        );
        assert_eq!(
            named_error("vite v5\n✗ Build failed in 1.60s\n").as_deref(),
            Some("✗ Build failed in 1.60s")
        );
    }

    #[test]
    fn the_lines_near_a_named_error_are_those_around_it() {
        let paste = "a\nb\nc\nd\ne\nf\ng\nsrc/Layout.vue:86:67 - error TS2305: no member\nh\ni\nj\nk\nl\nm\n";
        let (line, near) = named_error_near(paste).unwrap();
        assert_eq!(line, "src/Layout.vue:86:67 - error TS2305: no member");
        assert_eq!(
            near,
            "c\nd\ne\nf\ng\nsrc/Layout.vue:86:67 - error TS2305: no member\nh\ni\nj\nk\nl"
        );
        let (_, near) = named_error_near("error: x\nat y").unwrap();
        assert_eq!(near, "error: x\nat y");
        assert_eq!(named_error_near("all good\n"), None);
    }

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
