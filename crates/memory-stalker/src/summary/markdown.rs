//! A line of Markdown read as plain text: without its list, quote or heading marker
//! or its ordinal. What the offline summary and the headline both take of a reply.

/// A line without its list, quote or heading marker (`- `, `* `, `• `, `> `, `## `):
/// only a marker followed by a space, so that the `**` opening bold text stays with
/// its closing one ("**Yes, it works** in print mode", not "Yes, it works** in …").
pub(crate) fn without_marker(line: &str) -> &str {
    let t = line.trim_start();
    for marker in ["- ", "* ", "• ", "> "] {
        if let Some(rest) = t.strip_prefix(marker) {
            return rest.trim_start();
        }
    }
    let unhashed = t.trim_start_matches('#');
    if unhashed.len() < t.len() && (unhashed.is_empty() || unhashed.starts_with(' ')) {
        return unhashed.trim_start();
    }
    t
}

/// A list item's text: without its marker (`- `, `* `, `• `) or ordinal (`1. `).
pub(crate) fn item_text(line: &str) -> &str {
    strip_ordinal(without_marker(line)).trim()
}

pub(crate) fn strip_ordinal(line: &str) -> &str {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && line[digits..].starts_with(". ") {
        &line[digits + 2..]
    } else {
        line
    }
}
