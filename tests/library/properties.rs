//! Property tests (proptest) of the parsers and writers whose input is untrusted.
//!
//! Everything here is fed with text a transcript can contain: arbitrary bytes for the
//! line reader, hostile Markdown for the fences, hostile YAML values for the front
//! matter, and planted secrets for the redaction.
//!
//! Failure persistence is off (the regression files would land outside `tests/`); the
//! counterexamples found so far are kept as plain `#[test]`s at the end of the file.

use std::io::Cursor;

use memory_stalker::memory::FrontMatter;
use memory_stalker::memory::document::{sections, set_front_matter_field, set_written_ns};
use memory_stalker::redact::{Clipped, redact};
use memory_stalker::transcript::{ReverseLines, TodoItem, TodoList, TodoSource};
use memory_stalker::untrusted::{block, clean, code, line};
use memory_stalker::{Agent, Lang};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::test_runner::{Config as ProptestConfig, RngSeed};

// ---------------------------------------------------------------------------------
// Helpers and strategies
// ---------------------------------------------------------------------------------

/// Random cases on a developer's machine, where a new counterexample is welcome; one
/// fixed seed under CI, so that a build passes or fails the same way every time
/// (`PROPTEST_RNG_SEED` chooses another anywhere).
fn config() -> ProptestConfig {
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    let seed_given = std::env::var_os("PROPTEST_RNG_SEED").is_some();
    let defaults = ProptestConfig::default();
    ProptestConfig {
        failure_persistence: None,
        rng_seed: if in_ci && !seed_given {
            RngSeed::Fixed(20_261_123)
        } else {
            defaults.rng_seed
        },
        ..defaults
    }
}

/// The lines of `data` as a forward reader sees them: `(offset, line)`, empty ones
/// skipped.
fn forward_lines(data: &[u8]) -> Vec<(u64, Vec<u8>)> {
    let mut out = Vec::new();
    let mut start = 0usize;
    for piece in data.split(|b| *b == b'\n') {
        if !piece.is_empty() {
            out.push((start as u64, piece.to_vec()));
        }
        start += piece.len() + 1;
    }
    out
}

/// Everything `ReverseLines` yields for `data[..end]`, in the order it yields it.
fn reverse_lines(data: &[u8], end: u64) -> Result<Vec<(u64, Vec<u8>)>, String> {
    let mut r = ReverseLines::new(Cursor::new(data), end);
    let mut out = Vec::new();
    loop {
        let unread_before = r.unread();
        match r.next_line() {
            Ok(Some((off, line))) => {
                let line = line.to_vec();
                let unread = r.unread();
                if off + line.len() as u64 > unread_before || unread > off {
                    return Err(format!(
                        "line at {off} (len {}) not inside the unread range 0..{unread_before} \
                         or unread() = {unread} after it",
                        line.len()
                    ));
                }
                out.push((off, line));
            }
            Ok(None) => break,
            Err(e) => return Err(format!("I/O error on an in-memory source: {e}")),
        }
    }
    if r.unread() != 0 {
        return Err(format!("unread() = {} at the start", r.unread()));
    }
    Ok(out)
}

/// A byte line without `\n`: mostly short, sometimes longer than the reader's 64 KiB
/// first chunk (but well under 1 MiB), with bytes that depend on the position so a
/// misplaced chunk boundary shows.
fn byte_line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        30 => vec(any::<u8>().prop_map(|b| if b == b'\n' { b'\r' } else { b }), 0..60),
        1 => (60_000usize..300_000, any::<u8>()).prop_map(|(n, seed)| {
            (0..n)
                .map(|i| b'!' + ((i + seed as usize) % 90) as u8)
                .collect()
        }),
    ]
}

/// Lines joined by runs of 0 to 3 newlines, with or without a final newline.
fn line_file() -> impl Strategy<Value = Vec<u8>> {
    vec((byte_line(), 0usize..=3), 0..40).prop_map(|parts| {
        let mut out = Vec::new();
        for (line, newlines) in parts {
            out.extend_from_slice(&line);
            out.extend(std::iter::repeat_n(b'\n', newlines));
        }
        out
    })
}

/// Arbitrary bytes, a third of them newlines.
fn newline_heavy_bytes() -> impl Strategy<Value = Vec<u8>> {
    vec(prop_oneof![1 => Just(b'\n'), 2 => any::<u8>()], 0..400)
}

/// Markdown-ish text: backtick runs of any length, line breaks of every kind, fence
/// and heading look-alikes, and any character.
fn markdownish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[a-z #:|*_>-]{0,8}",
        3 => (1usize..=12).prop_map(|n| "`".repeat(n)),
        2 => Just("\n".to_string()),
        1 => select(vec!["\r", "\r\n", "   ", "    ", "\t", "~~~", "~~~~~", "## AI summary",
                         "## Metadata", "```text", " ``` ", "\u{2028}", "\u{85}"])
            .prop_map(String::from),
        1 => any::<char>().prop_map(String::from),
    ];
    vec(piece, 0..24).prop_map(|v| v.concat())
}

/// Length of the run of `c` at the start of `s`.
fn leading(s: &str, c: char) -> usize {
    s.chars().take_while(|x| *x == c).count()
}

fn longest_backtick_run(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Text a YAML/JSON writer must quote: quotes, backslashes, colons, `---`, comment
/// marks, line breaks, control characters, BOMs and other unicode.
fn hostile() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => "[a-zA-Z0-9 ./-]{0,8}",
        2 => select(vec![
            "\"", "\\", ":", ": ", "---", "\n", "\r", "\r\n", "#", " # ", "'", "\t", "\u{0}",
            "\u{1b}", "\u{7f}", "\u{85}", "\u{a0}", "\u{2028}", "\u{3000}", "\u{feff}", "é",
            "日本語", "🦀", "\\u0000", "\\n", "null", "{}", "[", "- ", "|", ">", "&a", "*a", "!!str",
        ])
        .prop_map(String::from),
        1 => any::<char>().prop_map(String::from),
    ];
    vec(piece, 0..10).prop_map(|v| v.concat())
}

fn todo_list() -> impl Strategy<Value = TodoList> {
    (
        prop_oneof![Just(TodoSource::TodoWrite), Just(TodoSource::Tasks)],
        vec((hostile(), hostile(), option::of(hostile())), 0..4),
    )
        .prop_map(|(source, items)| TodoList {
            source,
            items: items
                .into_iter()
                .map(|(content, status, active_form)| TodoItem {
                    content,
                    status: status.as_str().into(),
                    active_form,
                })
                .collect(),
        })
}

fn front_matter() -> impl Strategy<Value = FrontMatter> {
    (
        (
            any::<u32>(),
            hostile(),
            hostile(),
            hostile(),
            hostile(),
            hostile(),
        ),
        (any::<usize>(), any::<usize>(), hostile(), hostile()),
        (
            option::of(hostile()),
            prop_oneof![Just(Lang::En), Just(Lang::Zh)],
            option::of(any::<u64>()),
            option::of(option::of(todo_list())),
            prop_oneof![Just(Agent::ClaudeCode), Just(Agent::Codex)],
        ),
    )
        .prop_map(
            |(
                (format, session_id, created, trigger, project, transcript),
                (task_count, tasks_open, summary, summary_source),
                (prompt_id, lang, transcript_bytes, todos, agent),
            )| FrontMatter {
                format,
                session_id,
                created,
                trigger: trigger.into(),
                agent,
                project,
                transcript,
                task_count,
                tasks_open,
                summary,
                summary_source,
                prompt_id,
                lang,
                transcript_bytes,
                todos,
            },
        )
}

/// Text that looks like a front matter block, often almost: optional BOM, the opening
/// line, `key: value` lines with hostile values, and a closing line with odd trailing
/// whitespace.
fn front_matter_like() -> impl Strategy<Value = String> {
    let key = select(vec![
        "memory_stalker",
        "session_id",
        "created",
        "created_ns",
        "summary",
        "task_count",
        "prompt_id",
        "lang",
        "transcript_bytes",
        "agent",
        "todos",
        "x",
    ]);
    let line = prop_oneof![
        3 => (key, select(vec![": ", ":", " : "]), hostile())
            .prop_map(|(k, s, v)| format!("{k}{s}{v}\n")),
        1 => hostile().prop_map(|v| format!("{v}\n")),
    ];
    let close = select(vec![
        "---",
        "---\n",
        "---\r\n",
        "--- \n",
        "---\u{a0}\n",
        "---\u{a0}\r\n",
        "---\u{3000}\n",
        "---\u{2028}\n",
        "---\u{85}\n",
        "",
        "--\n",
    ]);
    (
        select(vec!["", "\u{feff}"]),
        select(vec!["---\n", "---\r\n", "--\n", ""]),
        vec(line, 0..6),
        close,
        hostile(),
    )
        .prop_map(|(bom, open, lines, close, body)| {
            format!("{bom}{open}{}{close}{body}", lines.concat())
        })
}

// --- Redaction -------------------------------------------------------------------

/// A planted secret: the text planted, and the parts of it that must not survive.
#[derive(Debug, Clone)]
struct Secret {
    text: String,
    bodies: Vec<String>,
}

fn secret(text: String, bodies: Vec<String>) -> Secret {
    Secret { text, bodies }
}

fn pem_key() -> impl Strategy<Value = Secret> {
    (
        select(vec!["", "RSA ", "EC ", "DSA ", "OPENSSH ", "ENCRYPTED "]),
        vec("[A-Za-z0-9+/]{64}", 5..30),
        "[A-Za-z0-9+/]{4,63}={0,2}",
        select(vec!["\n", "\r\n", "\\n"]),
        any::<bool>(),
    )
        .prop_map(|(kind, lines, last, nl, with_end)| {
            let mut text = format!("-----BEGIN {kind}PRIVATE KEY-----");
            for l in &lines {
                text.push_str(nl);
                text.push_str(l);
            }
            let mut bodies = lines;
            if with_end {
                // A complete block ends with a short line; a truncated one (an output
                // cut short) is cut after a full line.
                text.push_str(nl);
                text.push_str(&last);
                text.push_str(nl);
                text.push_str(&format!("-----END {kind}PRIVATE KEY-----"));
                if last.len() >= 12 {
                    bodies.push(last);
                }
            }
            secret(text, bodies)
        })
}

fn planted_secret() -> impl Strategy<Value = Secret> {
    prop_oneof![
        "[A-Za-z0-9]{40}".prop_map(|b| secret(format!("sk-ant-api03-{b}"), vec![b])),
        "[A-Za-z0-9]{36}".prop_map(|b| secret(format!("ghp_{b}"), vec![b])),
        "[A-Z0-9]{16}".prop_map(|b| secret(format!("AKIA{b}"), vec![format!("AKIA{b}")])),
        ("[0-9]{10,13}", "[0-9]{10,13}", "[A-Za-z0-9]{23}[A-Za-z]").prop_map(|(a, b, c)| {
            let body = format!("{a}-{b}-{c}");
            secret(format!("xoxb-{body}"), vec![body])
        }),
        (
            "[A-Za-z0-9_-]{8,30}",
            "[A-Za-z0-9_-]{8,60}",
            "[A-Za-z0-9_-]{12,43}"
        )
            .prop_map(|(h, p, s)| {
                secret(format!("eyJ{h}.eyJ{p}.{s}"), vec![format!("eyJ{p}"), s])
            }),
        (
            select(vec![
                "password=",
                "password: ",
                "PASSWORD = ",
                "DB_PASSWORD=",
                "\"password\": \"",
                "api_key=",
                "client_secret: '",
            ]),
            "[A-Za-z0-9]{8,20}",
        )
            .prop_map(|(key, v)| {
                let close = match key.chars().last() {
                    Some('"') => "\"",
                    Some('\'') => "'",
                    _ => "",
                };
                secret(format!("{key}{v}{close}"), vec![v])
            }),
        pem_key(),
        (
            "[a-z]{3,10}",
            "[A-Z][A-Za-z0-9]{6,14}[0-9]",
            "[a-z]{3,10}(\\.[a-z]{2,5})?",
            "[a-z]{2,8}"
        )
            .prop_map(|(user, pass, host, db)| {
                secret(format!("postgres://{user}:{pass}@{host}/{db}"), vec![pass])
            }),
    ]
}

/// What separates a planted secret from the text around it: never a word character
/// (a key glued to a word is not a key) and never `(` (`token=f(` is a call).
fn separator() -> BoxedStrategy<&'static str> {
    select(vec![
        " ", "\n", "\t", "\r\n", "\"", "'", ", ", "; ", ")", "<", ">", "`", " | ", "\n\n", "\\\"",
    ])
    .boxed()
}

/// Line breaks as they appear in JSON-escaped text (a tool result holding JSON, a
/// `.env` file printed by a tool and quoted): `\n`, `\r\n`, `\t`, written out.
fn escaped_separator() -> BoxedStrategy<&'static str> {
    select(vec!["\\n", "\\r\\n", "\\t", "\\n\\n"]).boxed()
}

/// Text around the secrets: arbitrary characters, and fragments of the patterns the
/// redaction looks for, so that rules meet each other's output.
fn filler() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => "\\PC{0,12}",
        2 => select(vec![
            "password=", "token: ", "Authorization: Bearer ", "authorization=", "x-api-key: ",
            "aws_secret_access_key=", "://", "https://u:", "@", ":", "=", "\"", "'", "(", ")",
            "\\n", "\n", " ", "-----END PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----",
            "[REDACTED:secret]", "eyJ", "sk-", "ghp_", "AKIA", "xoxb-", "secret", "-", "_", ".",
        ])
        .prop_map(String::from),
        1 => any::<char>().prop_map(String::from),
    ];
    vec(piece, 0..6).prop_map(|v| v.concat())
}

/// Filler and planted secrets, each secret between separators.
fn text_with_secrets(
    sep: fn() -> BoxedStrategy<&'static str>,
) -> impl Strategy<Value = (String, Vec<Secret>)> {
    (
        vec((filler(), sep(), planted_secret(), sep()), 1..5),
        filler(),
    )
        .prop_map(|(parts, tail)| {
            let mut text = String::new();
            let mut secrets = Vec::new();
            for (before, open, s, close) in parts {
                // A backslash just before a separator would escape it (`\\n` is a
                // backslash and an `n` in JSON text, not a line break): no separator then.
                text.push_str(before.trim_end_matches('\\'));
                text.push_str(open);
                text.push_str(&s.text);
                text.push_str(close);
                secrets.push(s);
            }
            text.push_str(&tail);
            (text, secrets)
        })
}

// ---------------------------------------------------------------------------------
// 1. Reverse line reader
// ---------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config())]

    /// The whole extraction rests on this reader: a line dropped, split at a chunk
    /// boundary or given a wrong offset would lose a record or misplace a checkpoint.
    /// Its lines, reversed, must be exactly the non-empty `\n`-separated pieces of the
    /// range read, at their offsets, also across lines longer than a chunk.
    #[test]
    fn reverse_lines_are_the_forward_lines_reversed(data in line_file(), at in any::<Index>()) {
        let end = at.index(data.len() + 1);
        for end in [data.len(), end] {
            let mut got = reverse_lines(&data, end as u64).map_err(TestCaseError::fail)?;
            got.reverse();
            prop_assert!(got == forward_lines(&data[..end]), "end = {end}");
        }
    }

    /// Same as above for byte soup where a third of the bytes are newlines: empty
    /// lines, lines of one byte, `\r`, invalid UTF-8.
    #[test]
    fn reverse_lines_on_newline_heavy_bytes(data in newline_heavy_bytes(), at in any::<Index>()) {
        let end = at.index(data.len() + 1);
        let mut got = reverse_lines(&data, end as u64).map_err(TestCaseError::fail)?;
        got.reverse();
        prop_assert_eq!(got, forward_lines(&data[..end]));
    }
}

// ---------------------------------------------------------------------------------
// 2. Fences and inline code
// ---------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config())]

    /// Untrusted text (prompts, replies, plans, compaction summaries) is only ever
    /// written inside these fences: if a line of it could close the fence, a
    /// transcript could forge headings and sections of the memory file. The fence must
    /// be at least three backticks, the same at both ends, longer than any run a body
    /// line starts with (after up to three spaces of indent, as CommonMark allows),
    /// and give back the body (trailing newlines trimmed) when stripped.
    #[test]
    fn fenced_blocks_cannot_be_closed_from_inside(info in "[a-z]{0,10}", body in markdownish()) {
        let out = block(&info, &body);
        let Some(first_nl) = out.find('\n') else {
            return Err(TestCaseError::fail(format!("no newline in {out:?}")));
        };
        let open = &out[..first_nl];
        let n = leading(open, '`');
        prop_assert!(n >= 3, "fence {open:?}");
        prop_assert_eq!(&open[n..], info.as_str());
        let fence = "`".repeat(n);
        let close = format!("\n{fence}\n");
        prop_assert!(out.ends_with(&close), "{out:?} does not end with {close:?}");
        let inner = &out[first_nl + 1..out.len() - close.len()];
        // The body as the one rule keeps it: every line break a line feed, controls,
        // bidirectional and invisible characters out.
        let cleaned = clean(&body);
        prop_assert_eq!(inner, cleaned.trim_end_matches('\n'));
        // CommonMark line endings are \n, \r\n and \r.
        for line in inner.split(['\n', '\r']) {
            let indent = line.len() - line.trim_start_matches(' ').len();
            if indent <= 3 {
                prop_assert!(
                    leading(&line[indent..], '`') < n,
                    "line {line:?} closes the {n}-backtick fence"
                );
            }
        }
        prop_assert!(longest_backtick_run(inner) < n);
    }

    /// The reason for the fences: the memory's own section finder must not see a
    /// heading written inside one, whatever the body holds.
    #[test]
    fn headings_inside_fences_are_not_sections(body in markdownish()) {
        let text = format!(
            "## Metadata\n\n{}\n## AI summary\n\nz\n",
            block("text", &body)
        );
        let headings: Vec<String> = sections(&text).into_iter().map(|s| s.heading).collect();
        prop_assert_eq!(headings, vec!["Metadata".to_string(), "AI summary".to_string()]);
    }

    /// `code` promises "inline code that survives backticks in the text": read back as
    /// a CommonMark code span (opening run of K backticks, closing run of exactly K,
    /// one space stripped from each side when both are there) it must give the text
    /// collapsed to one line, and contain no `\n` that could end the list item it is in.
    #[test]
    fn code_spans_read_back_as_the_one_line_text(text in markdownish()) {
        let expected = line(&text, 2_000);
        prop_assume!(!expected.is_empty());
        let out = code(&text);
        prop_assert!(!out.contains('\n'), "{out:?}");
        let k = leading(&out, '`');
        prop_assert!(k >= 1 && out.len() > 2 * k, "{out:?}");
        prop_assert!(out.ends_with(&"`".repeat(k)), "{out:?}");
        let inner = &out[k..out.len() - k];
        prop_assert!(
            !inner.starts_with('`') && !inner.ends_with('`'),
            "the opening or closing run of {out:?} is longer than {k}"
        );
        prop_assert!(longest_backtick_run(inner) < k, "{inner:?} closes the span early");
        let content = if inner.len() >= 2
            && inner.starts_with(' ')
            && inner.ends_with(' ')
            && !inner.chars().all(|c| c == ' ')
        {
            &inner[1..inner.len() - 1]
        } else {
            inner
        };
        prop_assert_eq!(content, expected.as_str());
    }

    /// Inline code goes into single list-item lines ("collapsed into single list-item
    /// lines, so nothing in a transcript can forge a heading"). CommonMark also ends a
    /// line at a lone `\r`, so a `\r` left in the span lets a transcript value (a git
    /// branch, a session id, a project path) start a new block, e.g. a heading.
    #[test]
    fn code_spans_hold_no_line_ending(text in markdownish()) {
        let out = code(&text);
        prop_assert!(!out.contains(['\n', '\r']), "{out:?}");
    }
}

// ---------------------------------------------------------------------------------
// 3. Front matter
// ---------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config())]

    /// `list-memories`, the checkpoints and the background summary all read back what
    /// the hook wrote; a value that does not survive `render` then `parse` (a quote, a
    /// `---`, a newline in a project path or a prompt) silently corrupts the listing or
    /// cuts the front matter short. Every field must come back as written, and the
    /// body must start right after the block.
    ///
    /// Two normalisations are by design: `format` 0 (no front matter) is written as the
    /// current version, and an empty `prompt_id` is read as none.
    #[test]
    fn front_matter_scalars_round_trip(fm in front_matter(), body in hostile()) {
        let rendered = fm.render();
        let text = format!("{rendered}{body}");
        let Some((back, at)) = FrontMatter::parse(&text) else {
            return Err(TestCaseError::fail(format!("no front matter in {text:?}")));
        };
        prop_assert_eq!(at, rendered.len());
        prop_assert_eq!(&text[at..], body.as_str());
        prop_assert_eq!(back.format, fm.format.max(1));
        prop_assert_eq!(&back.session_id, &fm.session_id);
        prop_assert_eq!(&back.created, &fm.created);
        prop_assert_eq!(&back.trigger, &fm.trigger);
        prop_assert_eq!(&back.project, &fm.project);
        prop_assert_eq!(&back.transcript, &fm.transcript);
        prop_assert_eq!(back.task_count, fm.task_count);
        prop_assert_eq!(back.tasks_open, fm.tasks_open);
        prop_assert_eq!(&back.summary, &fm.summary);
        prop_assert_eq!(&back.summary_source, &fm.summary_source);
        prop_assert_eq!(&back.prompt_id, &fm.prompt_id.clone().filter(|p| !p.is_empty()));
        prop_assert_eq!(back.lang, fm.lang);
        prop_assert_eq!(back.transcript_bytes, fm.transcript_bytes);
    }

    /// The task list checkpoint: `todos` is `None` (not recorded), `Some(None)` ("the
    /// transcript had no task list at this size", which lets a later reading stop
    /// there) or `Some(Some(list))`. All three must read back as written, or the
    /// checkpoint is lost and a later save searches the whole transcript again.
    #[test]
    fn front_matter_todos_round_trip(todos in option::of(option::of(todo_list()))) {
        let fm = FrontMatter { todos, ..FrontMatter::default() };
        let text = fm.render();
        let Some((back, _)) = FrontMatter::parse(&text) else {
            return Err(TestCaseError::fail(format!("no front matter in {text:?}")));
        };
        prop_assert_eq!(back.todos, fm.todos);
    }

    /// Memory files can be edited by hand or truncated; reading one must never panic.
    #[test]
    fn front_matter_parse_never_panics(text in prop_oneof![any::<String>(), front_matter_like()]) {
        let _ = FrontMatter::parse(&text);
        let _ = FrontMatter::parse_with_written_ns(&text);
    }

    /// Callers slice the text at the returned body offset (`&text[start..]` in the
    /// catalog, `split_at` in `set_front_matter_field`), so it must be a char boundary
    /// of the text given, right after the closing `---` line.
    #[test]
    fn front_matter_body_offset_is_in_the_given_text(text in front_matter_like()) {
        if let Some((_, at)) = FrontMatter::parse(&text) {
            prop_assert!(at <= text.len() && text.is_char_boundary(at), "offset {at} in {text:?}");
            let head = text[..at].trim_end_matches(['\n', '\r']);
            prop_assert!(
                head.trim_end().ends_with("---"),
                "the head {head:?} does not end with the closing line"
            );
        }
    }

    /// A byte order mark (added by some editors) must not change what is read: the
    /// same fields, and the body at the same place in the text.
    #[test]
    fn front_matter_ignores_a_byte_order_mark(fm in front_matter(), body in hostile()) {
        let text = format!("{}{body}", fm.render());
        let with_bom = format!("\u{feff}{text}");
        let plain = FrontMatter::parse(&text);
        let bom = FrontMatter::parse(&with_bom);
        prop_assert_eq!(
            bom.map(|(f, at)| (f, at - '\u{feff}'.len_utf8())),
            plain
        );
    }

    /// The writers that patch a saved memory in place (`created_ns`, the model's
    /// summary source) must not panic on any file they are given, and must leave a
    /// file whose front matter still parses.
    #[test]
    fn front_matter_patching_never_panics(text in front_matter_like(), ns in any::<u64>()) {
        let had = FrontMatter::parse(&text).is_some();
        let t = set_written_ns(&text, ns);
        prop_assert_eq!(FrontMatter::parse(&t).is_some(), had, "{:?}", t);
        let t = set_front_matter_field(&text, "summary_source", "\"anthropic:x\"");
        prop_assert_eq!(FrontMatter::parse(&t).is_some(), had, "{:?}", t);
    }
}

// ---------------------------------------------------------------------------------
// 4. Redaction
// ---------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config())]

    /// Redaction runs more than once on the same text (a memory is redacted when
    /// written, its sections again when a model's summary is merged in); a second pass
    /// that changes the text would mean a rule matched another rule's output.
    #[test]
    fn redaction_is_idempotent_on_any_text(text in prop_oneof![any::<String>(), filler()]) {
        let once = redact(&text).into_owned();
        let twice = redact(&once);
        prop_assert_eq!(twice.as_ref(), once.as_str());
    }

    /// Same, for text full of secrets and of fragments of the patterns.
    #[test]
    fn redaction_is_idempotent_with_secrets((text, _) in text_with_secrets(separator)) {
        let once = redact(&text).into_owned();
        let twice = redact(&once);
        prop_assert_eq!(twice.as_ref(), once.as_str());
    }

    /// The point of redaction: whatever surrounds it, no planted secret survives into
    /// what is written to disk or sent to a model.
    #[test]
    fn planted_secrets_never_survive((text, secrets) in text_with_secrets(separator)) {
        survivors(&redact(&text), &secrets)?;
    }

    /// Redaction survives any cut: a long output is kept as its head and tail, and
    /// whatever the sizes, no piece of a planted secret is shown (the cut comes after
    /// the redaction, with a margin of context on each side of it). Filler pads the
    /// text so that secrets land on both sides of the cut and across it.
    #[test]
    fn redaction_survives_any_cut(
        (text, secrets) in text_with_secrets(separator),
        pad in 0usize..12_000,
        keep in 0usize..3_000,
        max in 0usize..3_000,
    ) {
        let padded = format!("{}\n{text}\n{}", "x".repeat(pad), "y".repeat(pad / 2));
        let shown = Clipped::new(&padded, keep).render(max, true);
        for s in &secrets {
            for body in &s.bodies {
                // A body's own characters can appear by chance in short pieces; eight
                // or more in a row would be a leak.
                let leaked = body.len() >= 8
                    && (0..=body.len() - 8)
                        .filter(|i| body.is_char_boundary(*i) && body.is_char_boundary(i + 8))
                        .any(|i| shown.contains(&body[i..i + 8]) && !padded_has_elsewhere(&padded, &body[i..i + 8], body));
                prop_assert!(!leaked, "a piece of {:?} is shown in {:?}", body, shown);
            }
        }
    }

    /// Text is not always unescaped when it is redacted: a tool result can hold JSON
    /// or quoted source whose line breaks are written `\n`. A secret at the start of
    /// such a line follows the letter `n` (or `t`, `r`), so a rule anchored on a word
    /// boundary (`\bsk-ant-`, `\bAKIA`, `\beyJ`, …) does not see it.
    #[test]
    fn planted_secrets_after_escaped_line_breaks_never_survive(
        (text, secrets) in text_with_secrets(escaped_separator)
    ) {
        survivors(&redact(&text), &secrets)?;
    }
}

// ---------------------------------------------------------------------------------
// Counterexamples found by the properties above, kept as plain regression tests.
// ---------------------------------------------------------------------------------

/// From `code_spans_hold_no_line_ending`: a lone `\r` (a CommonMark line ending)
/// stays in inline code, so a branch name such as `main\r## Forged` renders as a
/// heading in any CommonMark viewer.
#[test]
fn regression_code_keeps_a_lone_carriage_return() {
    let out = code("main\r## Forged");
    assert!(!out.contains('\r'), "{out:?}");
}

/// From `front_matter_body_offset_is_in_the_given_text` and
/// `front_matter_ignores_a_byte_order_mark`: with a BOM the body offset is counted
/// from after the BOM, three bytes short.
#[test]
fn regression_front_matter_offset_after_a_bom() {
    let text = "\u{feff}---\n---\nbody";
    let at = FrontMatter::parse(text).map(|(_, at)| at);
    assert_eq!(at, Some(text.len() - "body".len()));
}

/// From `front_matter_patching_never_panics`: the short offset makes `set_written_ns`
/// break the closing line of a BOM-prefixed memory, which then has no front matter.
#[test]
fn regression_set_written_ns_after_a_bom() {
    let text = "\u{feff}---\n---\n";
    let t = set_written_ns(text, 0);
    assert!(FrontMatter::parse(&t).is_some(), "{t:?}");
}

/// With a three-byte space after the closing `---` (accepted by `trim_end`), the short
/// offset falls inside a character: slicing there panics (here in `set_written_ns`;
/// `catalog.rs` slices `&text[start..]` the same way).
#[test]
fn regression_set_written_ns_panics_after_a_bom() {
    let text = "\u{feff}---\n---\u{3000}\nbody";
    let result = std::panic::catch_unwind(|| set_written_ns(text, 0));
    assert!(result.is_ok(), "set_written_ns panicked on {text:?}");
}

/// From `planted_secrets_after_escaped_line_breaks_never_survive`: behind an escaped
/// line break (`\n` written out, as in JSON), the rules anchored on `\b` miss.
#[test]
fn regression_secrets_after_escaped_newlines() {
    let secrets = [
        "sk-ant-api03-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "AKIAAAAAAAAAAAAAAAAA",
        "xoxb-1234567890-1234567890-aaaaaaaaaaaaaaaaaaaaaaaa",
        "eyJaaaaaaaaa.eyJaaaaaaaaa.aaaaaaaaaaaa",
    ];
    let leaked: Vec<&str> = secrets
        .iter()
        .copied()
        .filter(|s| redact(&format!("line\\n{s}\\n")).contains(s))
        .collect();
    assert!(leaked.is_empty(), "not redacted after \\n: {leaked:?}");
}

/// From `planted_secrets_never_survive`: `\s*` after a key's `:` crosses line breaks,
/// so a key with an empty value takes the next line's key name as its value, and the
/// next line's secret is left in clear (YAML with an empty field, for example).
#[test]
fn regression_empty_key_swallows_the_next_key() {
    for text in [
        "password:\napi_key: abc123def456",
        "x-api-key: \n\npassword: abc123def456",
        "password= client_secret: 'abc123def456'",
    ] {
        let out = redact(text);
        assert!(!out.contains("abc123def456"), "{text:?} -> {out:?}");
    }
}

/// Whether `piece` occurs in `text` outside every occurrence of `body` (then showing it
/// is no leak of the secret: the filler happens to hold it too).
fn padded_has_elsewhere(text: &str, piece: &str, body: &str) -> bool {
    text.replace(body, "\u{0}").contains(piece)
}

/// Fails the property when a planted secret's body is in `out`.
fn survivors(out: &str, secrets: &[Secret]) -> Result<(), TestCaseError> {
    for s in secrets {
        for body in &s.bodies {
            prop_assert!(
                !out.contains(body.as_str()),
                "{body:?} of {:?} survived in {out:?}",
                s.text
            );
        }
    }
    Ok(())
}
