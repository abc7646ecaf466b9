//! The front matter block at the head of a memory (`---` lines around `key: value`
//! lines), read and edited as lines, with no meaning given to any field: what the
//! writer key signs and verifies, and what the memory document builds its fields on.

/// Where the body of `text` starts, after its front matter; `None` when the text has
/// no front matter block (exactly when `FrontMatter::parse` gives `None`).
pub(crate) fn body_start(text: &str) -> Option<usize> {
    front_matter_lines(text, |_| {})
}

/// The raw values (the text after `key:`, as written) of `keys` in the front matter of
/// `text`: of a key on several lines, the last, which is the one
/// `FrontMatter::parse` reads; `None` for a key it does not have.
pub(crate) fn front_matter_raw<'a>(text: &'a str, keys: &[&str]) -> Vec<Option<&'a str>> {
    let mut found = vec![None; keys.len()];
    front_matter_lines(text, |line| {
        let Some(colon) = line.bytes().position(|b| b == b':') else {
            return;
        };
        let key = line[..colon].trim();
        if let Some(i) = keys.iter().position(|k| *k == key) {
            found[i] = Some(&line[colon + 1..]);
        }
    });
    found
}

/// Calls `field` with each line of the front matter at the start of `text` (an opening
/// `---` line, after a byte order mark if any, to a closing one), line ends trimmed;
/// returns where the body starts, or `None` when there is no opening or closing line.
pub(crate) fn front_matter_lines<'a>(
    text: &'a str,
    mut field: impl FnMut(&'a str),
) -> Option<usize> {
    let given = text.len();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    // An offset in the text as given, byte order mark included.
    let mut pos = given - rest.len();
    let mut start = 0;
    while start < rest.len() {
        // Lines as `split_inclusive('\n')` gives them; `\n` is ASCII, so each end is a
        // character boundary.
        let end =
            memchr::memchr(b'\n', &rest.as_bytes()[start..]).map_or(rest.len(), |i| start + i + 1);
        let line = trim_line_end(&rest[start..end]);
        pos += end - start;
        start = end;
        // Only a line that starts with `---` can be `---` once trimmed.
        if line.starts_with("---") && line.trim_end() == "---" {
            return Some(pos);
        }
        field(line);
    }
    None
}

/// `line` without the `\n` and `\r` characters at its end (both ASCII, so trimmed as
/// bytes).
fn trim_line_end(line: &str) -> &str {
    let mut end = line.len();
    while end > 0 && matches!(line.as_bytes()[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    &line[..end]
}

/// Sets one front matter field to a rendered YAML value (a JSON string or a number),
/// adding it before the closing `---` if absent.
pub fn set_front_matter_field(text: &str, key: &str, value: &str) -> String {
    let Some(body_start) = body_start(text) else {
        return text.to_string();
    };
    let (head, body) = text.split_at(body_start);
    let new_line = format!("{key}: {value}");
    // Every line of the key (a hand edit can repeat one) gives way to the one new line:
    // what readers read and what a MAC covers stay the same value.
    let is_key = |l: &str| l.split_once(':').is_some_and(|(k, _)| k.trim() == key);
    let mut lines: Vec<String> = Vec::new();
    let mut placed = false;
    for l in head.lines() {
        if is_key(l) {
            if !placed {
                lines.push(new_line.clone());
                placed = true;
            }
        } else {
            lines.push(l.to_string());
        }
    }
    if !placed {
        let close = lines.len() - 1;
        lines.insert(close, new_line);
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out.push_str(body);
    out
}
