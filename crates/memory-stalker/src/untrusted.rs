//! The one rule for untrusted text (docs/design.md §8.3).
//!
//! Every value that came from a transcript, a hook's stdin, a file name, a path or a
//! memory file (which a person or a repository may have edited) reaches what a person or
//! the model reads only through this module, which knows where it goes:
//!
//! - a **one-line field** ([`line`], [`code`], [`cell`], [`path`]): a metadata line, a
//!   list item, a table cell, a line of the restore, the recall or the note;
//! - a **fenced block** ([`block`]) or a **quote** ([`quote`]): text kept with its lines;
//! - a **front matter value** ([`json`]): a JSON string;
//! - a **terminal** ([`terminal`], [`terminal_line`]): what `list-memories` and
//!   `save-memory inspect` print.
//!
//! In each, the value cannot start a line of ours, a heading, a list item or a fence,
//! nor end one: a one-line value has no line break left (each is shown as `⏎`), a block
//! is fenced longer than any backtick run in it, a quote's every line carries the quote
//! mark, and a front matter value is one JSON string. Control characters (C0 but tab and
//! line feed, DEL, C1), bidirectional controls, and invisible characters (zero-width,
//! word joiner, byte order mark, invisible operators, fillers, the tag block that can
//! carry hidden ASCII) are removed, except on a terminal, where the bidirectional and
//! invisible ones are shown as `<U+202E>` so that a person sees a memory that holds them.
//! Every kind of line break (CR, CR LF, VT, FF, NEL, LS, PS) is a line feed, so this
//! crate's readers and a Markdown viewer agree on where lines are.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::text::one_line;

/// Longest inline code span ([`code`]), in characters.
const CODE_MAX: usize = 2_000;
/// Longest path shown ([`path`]), in characters.
const PATH_MAX: usize = 1_000;

/// Whether some reader takes `c` for the end of a line.
pub fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{0b}' | '\u{0c}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// Whether `c` is a bidirectional control: it can make a text read in another order
/// than it is stored (a command that looks harmless, a file name that looks like
/// another).
pub fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}'
    )
}

/// Whether `c` is drawn as nothing: zero-width spaces and joiners, the word joiner and
/// invisible operators, the byte order mark, the soft hyphen, fillers, and the tag
/// block (U+E0000–U+E007F), which can spell hidden ASCII that a model still reads.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200b}'..='\u{200d}'
            | '\u{2060}'..='\u{2064}'
            | '\u{feff}'
            | '\u{00ad}'
            | '\u{034f}'
            | '\u{180e}'
            | '\u{115f}'
            | '\u{1160}'
            | '\u{3164}'
            | '\u{ffa0}'
            | '\u{e0000}'..='\u{e007f}'
    )
}

/// Whether `c` is a control character other than tab and line feed.
fn is_control(c: char) -> bool {
    c.is_control() && c != '\t' && c != '\n'
}

/// Whether `c` is kept as it is by [`clean`].
fn plain(c: char) -> bool {
    !(is_control(c) || is_line_break(c) || is_bidi_control(c) || is_invisible(c)) || c == '\n'
}

/// How [`normalise`] shows what it does not keep.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Invisible {
    Remove,
    Show,
}

/// `text` with every line break a line feed, control characters removed, and
/// bidirectional and invisible characters removed or shown.
fn normalise(text: &str, invisible: Invisible) -> Cow<'_, str> {
    // Printable ASCII with tabs and line feeds, what most text is, needs nothing: checked
    // byte by byte, without decoding characters.
    if text
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) || b == b'\n' || b == b'\t')
    {
        return Cow::Borrowed(text);
    }
    if text.chars().all(plain) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            continue;
        }
        if is_line_break(c) {
            out.push('\n');
        } else if is_control(c) {
        } else if is_bidi_control(c) || is_invisible(c) {
            if invisible == Invisible::Show {
                let _ = write!(out, "<U+{:04X}>", c as u32);
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` as data a model or a file may hold: line breaks made line feeds, control,
/// bidirectional and invisible characters removed. Borrowed when nothing changes.
pub fn clean(text: &str) -> Cow<'_, str> {
    normalise(text, Invisible::Remove)
}

/// A one-line field of at most `max` characters: [`clean`], then each line break shown
/// as `⏎`, tabs as spaces, cut with `…`. A value that starts with a task box (`[ ]`, `[x]`) has it
/// escaped (`\[ ]`): placed after a list mark of ours, it would make the item a task.
pub fn line(text: &str, max: usize) -> String {
    let mut out = one_line(&clean(text), max);
    untab(&mut out);
    if ["[ ]", "[x]", "[X]"].iter().any(|b| out.starts_with(b)) {
        out.insert(0, '\\');
    }
    out
}

/// Inline code (one line, at most 2,000 characters) that backticks in the value cannot
/// close.
pub fn code(text: &str) -> String {
    let text = line(text, CODE_MAX);
    let ticks = "`".repeat(longest_run(&text, '`') + 1);
    if text.starts_with('`') || text.ends_with('`') {
        format!("{ticks} {text} {ticks}")
    } else {
        format!("{ticks}{text}{ticks}")
    }
}

/// A Markdown table cell: one line of at most `max` characters, pipes escaped.
pub fn cell(text: &str, max: usize) -> String {
    line(text, max).replace('|', "\\|")
}

/// A path as a one-line field.
pub fn path(p: &std::path::Path) -> String {
    line(&p.to_string_lossy(), PATH_MAX)
}

/// A fenced block of `text` (cleaned), its fence longer than any backtick run in it, so
/// nothing inside can close it; `info` is ours (`text`, `markdown`).
pub fn block(info: &str, text: &str) -> String {
    let text = clean(text);
    let fence = "`".repeat(longest_run(&text, '`').max(2) + 1);
    let body = text.trim_end_matches('\n');
    format!("{fence}{info}\n{body}\n{fence}\n")
}

/// `text` (cleaned, trimmed, at most `max` characters, cut with `…`) as lines that each
/// start with `mark` (`"  > "`), so none of them can be a line of ours.
pub fn quote(text: &str, max: usize, mark: &str) -> String {
    let text = clean(text);
    let t = text.trim();
    let t = match t.char_indices().nth(max) {
        Some((end, _)) => Cow::Owned(format!("{}…", &t[..end])),
        None => Cow::Borrowed(t),
    };
    t.split('\n')
        .map(|l| format!("{mark}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A front matter value: a JSON string (valid YAML) on one line, kept whole, with every
/// character a reader could take for a line break, and every control, bidirectional
/// and invisible character, written as a `\u` escape, so the file shows them and no
/// YAML reader splits the line.
pub fn json(text: &str) -> String {
    json_of(&text).unwrap_or_else(|| "\"\"".into())
}

/// Any value as JSON on one line, escaped as [`json`] escapes a string (`None` when it
/// cannot be written as JSON).
pub fn json_of(value: &impl serde::Serialize) -> Option<String> {
    let quoted = serde_json::to_string(value).ok()?;
    Some(escape_json(&quoted).into_owned())
}

/// JSON text (as serde writes it, any layout) with every character a reader could take
/// for a line break, and every control, bidirectional and invisible character left
/// raw in its strings, written as a `\u` escape: the same value, shown (the `--json`
/// outputs, and front matter values).
pub fn escape_json(json: &str) -> Cow<'_, str> {
    // serde escapes C0 controls and quotes; what is left raw is only ever inside a
    // string, where an escape means the same. Line feeds serde writes between tokens
    // of a pretty layout are kept.
    if json.chars().all(|c| plain(c) || c == '\n') {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if plain(c) || c == '\n' {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{u:04x}");
            }
        }
    }
    Cow::Owned(out)
}

/// Text for a terminal, its lines kept: control characters removed, line breaks made
/// line feeds, bidirectional and invisible characters shown as `<U+XXXX>`.
pub fn terminal(text: &str) -> Cow<'_, str> {
    normalise(text, Invisible::Show)
}

/// A one-line field on a terminal: [`terminal`], then one line of at most `max`
/// characters.
pub fn terminal_line(text: &str, max: usize) -> String {
    let mut out = one_line(&terminal(text), max);
    untab(&mut out);
    out
}

/// Tabs as spaces: a one-line field sits in a line (or a table column) of ours.
fn untab(s: &mut String) {
    if s.contains('\t') {
        *s = s.replace('\t', " ");
    }
}

/// The longest run of `c` in `s`.
fn longest_run(s: &str, c: char) -> usize {
    s.split(|x| x != c).map(str::len).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_removes_controls_bidi_and_invisible_and_unifies_breaks() {
        assert_eq!(
            clean("a\u{1b}]0;t\u{7}b\r\nc\rd\u{2028}e\u{85}f\u{0b}g\u{0c}h\u{2029}i"),
            "a]0;tb\nc\nd\ne\nf\ng\nh\ni"
        );
        assert_eq!(
            clean(
                "x\u{202e}y\u{2066}z\u{2069}\u{200b}\u{200d}\u{feff}\u{e0041}\u{00ad}\u{7f}\u{9b}!"
            ),
            "xyz!"
        );
        assert!(matches!(clean("plain\ttext\n"), Cow::Borrowed(_)));
        assert!(matches!(clean("灰度 ✓ café"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_line_has_no_break_left() {
        assert_eq!(
            line("a\n## forged\u{2028}- item\r- x", 80),
            "a ⏎ ## forged ⏎ - item ⏎ - x"
        );
        assert_eq!(line("abcdef", 4), "abc…");
        assert_eq!(line("\n[ ] forged task", 80), "\\[ ] forged task");
    }

    #[test]
    fn code_cell_and_block_hold_their_values() {
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x\n## h"), "`` `x ⏎ ## h ``");
        assert_eq!(cell("a|b\nc", 50), "a\\|b ⏎ c");
        assert_eq!(block("text", "plain"), "```text\nplain\n```\n");
        assert_eq!(block("", "a ```` b"), "`````\na ```` b\n`````\n");
        assert_eq!(block("", "x\r```\u{2028}y"), "````\nx\n```\ny\n````\n");
    }

    #[test]
    fn a_quote_marks_every_line() {
        assert_eq!(
            quote("a\n\n- forged\r## h", 100, "  > "),
            "  > a\n  > \n  > - forged\n  > ## h"
        );
        assert_eq!(quote("abcdef", 3, "> "), "> abc…");
    }

    #[test]
    fn json_values_escape_what_could_break_a_line() {
        let v = json("a\u{2028}b\u{85}c\u{202e}d\u{e0041}\n");
        assert_eq!(v, "\"a\\u2028b\\u0085c\\u202ed\\udb40\\udc41\\n\"");
        let back: String = serde_json::from_str(&v).unwrap();
        assert_eq!(back, "a\u{2028}b\u{85}c\u{202e}d\u{e0041}\n");
        assert_eq!(json("plain 灰度"), "\"plain 灰度\"");
        let pretty = "{\n  \"p\": \"/x\u{202e}y\u{85}\"\n}";
        let escaped = escape_json(pretty);
        assert_eq!(escaped, "{\n  \"p\": \"/x\\u202ey\\u0085\"\n}");
        let v: serde_json::Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(v["p"], "/x\u{202e}y\u{85}");
    }

    #[test]
    fn a_terminal_shows_what_it_does_not_print() {
        assert_eq!(
            terminal("a\u{1b}[2Jb\u{202e}c\u{200b}"),
            "a[2Jb<U+202E>c<U+200B>"
        );
        assert_eq!(terminal_line("x\ny\u{7}", 20), "x ⏎ y");
    }
}
