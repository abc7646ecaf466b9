//! Finding the parts of a JSON line without decoding the rest.
//!
//! A transcript line is mostly bulk a memory never shows: tool outputs and their
//! `toolUseResult` copies, file snapshots, written file contents, thinking. Decoding all
//! of it (or even validating it the way a JSON parser skips a value) costs far more than
//! reading it. Here a value is passed over by finding its closing quote or bracket (a
//! string's unescaped quotes found 64 bytes at a time, see [`string_end`]), and only the
//! small values extraction uses are decoded (by serde_json).
//! Long strings whose head and tail are kept are decoded at their ends only
//! ([`clip_string`]). See `docs/performance.md`, "Reading a segment".
//!
//! The walk checks the structure it passes through (quotes, brackets, separators), so a
//! line cut short by a crash or a concurrent write is still a bad line. It does not
//! check what it skips inside strings (escapes, UTF-8): that is data extraction never
//! reads.

use std::borrow::Cow;

use crate::redact::Clipped;

/// Counts the bytes handed to the JSON decoder, so tests can tell that a large line was
/// skimmed rather than parsed.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Cost {
    /// Bytes given to serde_json or decoded as JSON string text.
    pub json_bytes: u64,
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(c) = b.get(i) {
        if !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
            break;
        }
        i += 1;
    }
    i
}

/// The index after the string that opens at `b[open]` (a `"`).
///
/// 64 bytes at a time: a bit mask of the block's quotes, less those an odd run of
/// backslashes escapes (found for the whole block at once, see [`escaped_bits`]). A long
/// tool output has an escaped quote every few dozen bytes, and testing each on its own
/// cost more than reading the bytes.
fn string_end(b: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    // Whether the first byte of the next block is escaped by a backslash before it.
    let mut carry = 0u64;
    while let Some(block) = b.get(i..i + 64) {
        let (quotes, backslashes) = quote_and_backslash_bits(block);
        let closing = quotes & !escaped_bits(backslashes, &mut carry);
        if closing != 0 {
            return Some(i + closing.trailing_zeros() as usize + 1);
        }
        i += 64;
    }
    let mut escaped = carry != 0;
    for (n, &c) in b.get(i..)?.iter().enumerate() {
        if escaped {
            escaped = false;
        } else if c == b'\\' {
            escaped = true;
        } else if c == b'"' {
            return Some(i + n + 1);
        }
    }
    None
}

/// The bits of a block's bytes that a backslash escapes, given its backslashes and
/// whether its first byte is escaped (`carry`, updated for the next block). A run of
/// backslashes escapes the byte after it when the run is odd; the run's own bytes
/// alternate. This is the branch-free method of simdjson (Langdale and Lemire,
/// "Parsing gigabytes of JSON per second", 2019), written here from its description.
fn escaped_bits(backslashes: u64, carry: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    // A backslash that is itself escaped starts nothing.
    let backslashes = backslashes & !*carry;
    let follows_escape = (backslashes << 1) | *carry;
    let odd_starts = backslashes & !EVEN & !follows_escape;
    let (even_series, overflow) = odd_starts.overflowing_add(backslashes);
    *carry = u64::from(overflow);
    (EVEN ^ (even_series << 1)) & follows_escape
}

/// Bits `n` set where `block[n]` is a quote, and where it is a backslash, for a block
/// of 64 bytes.
#[cfg(target_arch = "x86_64")]
fn quote_and_backslash_bits(block: &[u8]) -> (u64, u64) {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
    debug_assert_eq!(block.len(), 64);
    let (mut quotes, mut backslashes) = (0u64, 0u64);
    // SAFETY: SSE2 is part of every x86-64 CPU (the intrinsics are `unsafe` only for
    // that); each load reads the 16 bytes of one `chunks_exact` chunk, unaligned.
    unsafe {
        let quote = _mm_set1_epi8(b'"' as i8);
        let backslash = _mm_set1_epi8(b'\\' as i8);
        for (n, chunk) in block.chunks_exact(16).enumerate() {
            let v = _mm_loadu_si128(chunk.as_ptr().cast());
            let q = _mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) as u16;
            let s = _mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)) as u16;
            quotes |= u64::from(q) << (16 * n);
            backslashes |= u64::from(s) << (16 * n);
        }
    }
    (quotes, backslashes)
}

/// Bits `n` set where `block[n]` is a quote, and where it is a backslash, for a block
/// of 64 bytes.
#[cfg(not(target_arch = "x86_64"))]
fn quote_and_backslash_bits(block: &[u8]) -> (u64, u64) {
    block.iter().enumerate().fold((0, 0), |(q, s), (n, &c)| {
        (
            q | (u64::from(c == b'"') << n),
            s | (u64::from(c == b'\\') << n),
        )
    })
}

/// The index after the value that starts at `b[i]`.
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match *b.get(j)? {
                    b'"' => {
                        j = string_end(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let end = b[i..]
                .iter()
                .position(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .map_or(b.len(), |p| i + p);
            (end > i).then_some(end)
        }
    }
}

/// A walk over one JSON text that decodes nothing it is not asked to: each value is
/// either passed over (its end found, its bytes kept as a slice) or walked into, so every
/// byte of a line is scanned once however deep the wanted values lie.
#[derive(Clone)]
pub(crate) struct Cursor<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `b`.
    pub(crate) fn new(b: &'a [u8]) -> Cursor<'a> {
        Cursor { b, pos: 0 }
    }

    /// Whether only white space is left.
    pub(crate) fn at_end(&mut self) -> bool {
        self.pos = skip_ws(self.b, self.pos);
        self.pos == self.b.len()
    }

    /// The first byte of the next value.
    pub(crate) fn peek(&mut self) -> Option<u8> {
        self.pos = skip_ws(self.b, self.pos);
        self.b.get(self.pos).copied()
    }

    /// Passes over the next value and returns its bytes.
    pub(crate) fn raw(&mut self) -> Option<&'a [u8]> {
        let start = skip_ws(self.b, self.pos);
        let end = value_end(self.b, start)?;
        self.pos = end;
        Some(&self.b[start..end])
    }

    /// Walks the next value if it is an object, calling `f` with each key and the
    /// cursor at that key's value; a value `f` does not consume is passed over. Another
    /// kind of value is passed over and gives `Some(false)`; broken JSON gives `None`.
    pub(crate) fn object(
        &mut self,
        mut f: impl FnMut(&mut Cursor<'a>, &[u8]) -> Option<()>,
    ) -> Option<bool> {
        let b = self.b;
        let mut i = skip_ws(b, self.pos);
        if b.get(i) != Some(&b'{') {
            self.pos = i;
            self.raw()?;
            return Some(false);
        }
        i = skip_ws(b, i + 1);
        if b.get(i) == Some(&b'}') {
            self.pos = i + 1;
            return Some(true);
        }
        loop {
            if b.get(i) != Some(&b'"') {
                return None;
            }
            let key_end = string_end(b, i)?;
            let key = key_text(&b[i..key_end])?;
            i = skip_ws(b, key_end);
            if b.get(i) != Some(&b':') {
                return None;
            }
            self.pos = i + 1;
            f(self, &key)?;
            if self.pos == i + 1 {
                self.raw()?;
            }
            i = skip_ws(b, self.pos);
            match b.get(i)? {
                b',' => i = skip_ws(b, i + 1),
                b'}' => {
                    self.pos = i + 1;
                    return Some(true);
                }
                _ => return None,
            }
        }
    }

    /// Walks the next value if it is an array, calling `f` with the cursor at each
    /// element; an element `f` does not consume is passed over. Otherwise as
    /// [`Cursor::object`].
    pub(crate) fn array(
        &mut self,
        mut f: impl FnMut(&mut Cursor<'a>) -> Option<()>,
    ) -> Option<bool> {
        let b = self.b;
        let mut i = skip_ws(b, self.pos);
        if b.get(i) != Some(&b'[') {
            self.pos = i;
            self.raw()?;
            return Some(false);
        }
        i = skip_ws(b, i + 1);
        if b.get(i) == Some(&b']') {
            self.pos = i + 1;
            return Some(true);
        }
        loop {
            self.pos = i;
            f(self)?;
            if self.pos == i {
                self.raw()?;
            }
            i = skip_ws(b, self.pos);
            match b.get(i)? {
                b',' => i = skip_ws(b, i + 1),
                b']' => {
                    self.pos = i + 1;
                    return Some(true);
                }
                _ => return None,
            }
        }
    }
}

/// A key's bytes, decoded when it has escapes (rare but legal: `"\u0074ype"` is
/// `type`). Keys are compared as bytes: no key extraction reads is other than ASCII.
fn key_text(raw: &[u8]) -> Option<Cow<'_, [u8]>> {
    let inner = &raw[1..raw.len() - 1];
    if memchr::memchr(b'\\', inner).is_none() {
        return Some(Cow::Borrowed(inner));
    }
    serde_json::from_slice::<String>(raw)
        .ok()
        .map(|k| Cow::Owned(k.into_bytes()))
}

/// A raw value that is a JSON string, decoded; `None` for any other value. Invalid
/// UTF-8 inside it becomes U+FFFD rather than losing the text.
pub(crate) fn str_value<'a>(raw: &'a [u8], cost: &mut Cost) -> Option<Cow<'a, str>> {
    // Not a string at all: nothing to decode.
    raw.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    if let Some(inner) = unescaped(raw)
        && let Ok(s) = std::str::from_utf8(inner)
        && !s.bytes().any(|c| c < 0x20)
    {
        return Some(Cow::Borrowed(s));
    }
    cost.json_bytes += raw.len() as u64;
    match serde_json::from_slice::<String>(raw) {
        Ok(s) => Some(Cow::Owned(s)),
        Err(_) => serde_json::from_str::<String>(&String::from_utf8_lossy(raw))
            .ok()
            .map(Cow::Owned),
    }
}

/// The bytes between a raw JSON string's quotes when it has no escape (as its text
/// would give them, unchecked); `None` for an escaped string or another value.
pub(crate) fn unescaped(raw: &[u8]) -> Option<&[u8]> {
    let inner = raw.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    memchr::memchr(b'\\', inner).is_none().then_some(inner)
}

/// Decodes a small raw value with serde (task lists, todo items, ids).
pub(crate) fn decode<'a, T: serde::Deserialize<'a>>(raw: &'a [u8], cost: &mut Cost) -> Option<T> {
    cost.json_bytes += raw.len() as u64;
    serde_json::from_slice(raw).ok()
}

/// Whether a raw value is the literal `true`.
pub(crate) fn is_true(raw: Option<&[u8]>) -> bool {
    raw == Some(b"true")
}

/// The head and tail of a JSON string that [`Clipped::new`] would keep of its decoded
/// text, decoding only those ends: a multi-megabyte tool output costs a count of its
/// characters, not a decode. `None` when `raw` is not a string.
pub(crate) fn clip_string(raw: &[u8], keep: usize, cost: &mut Cost) -> Option<Clipped> {
    let inner = raw.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    let window = keep / 2 + Clipped::MARGIN;
    // A decoded character takes at least one byte: a short string is decoded whole.
    if inner.len() <= 2 * window {
        return str_value(raw, cost).map(|s| Clipped::new(&s, keep));
    }
    let total = decoded_chars(inner);
    if total <= 2 * window {
        return str_value(raw, cost).map(|s| Clipped::new(&s, keep));
    }
    // The head: decoding stops after `window` characters.
    let (head, head_bytes) = unescape(inner, window);
    // The tail: decode from a point far enough back, then keep the last `window`
    // characters. The point is moved past any backslashes, so it never splits an escape
    // from its backslash; it may still fall inside a `\uXXXX` or a UTF-8 sequence, which
    // garbles at most the first few characters decoded, never those kept.
    // Most text is one byte a character: start with twice that, go further when short.
    let mut back = 2 * window + 64;
    let tail = loop {
        let mut from = inner.len().saturating_sub(back);
        while from > 0 && from < inner.len() && inner[from - 1] == b'\\' {
            from += 1;
        }
        let (text, _) = unescape(&inner[from..], usize::MAX);
        let chars = text.chars().count();
        if chars >= window + 8 || back >= inner.len() {
            let start = text
                .char_indices()
                .nth(chars.saturating_sub(window))
                .map_or(text.len(), |(i, _)| i);
            break text[start..].to_string();
        }
        back *= 2;
    };
    cost.json_bytes += (head_bytes + back.min(inner.len())) as u64;
    Some(Clipped::from_parts(head, tail, total))
}

/// The first `chars` characters of a JSON string's text, decoding no more of it. `None`
/// when `raw` is not a string.
pub(crate) fn string_head(raw: &[u8], chars: usize, cost: &mut Cost) -> Option<String> {
    let inner = raw.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    let (head, bytes) = unescape(inner, chars);
    cost.json_bytes += bytes as u64;
    Some(head)
}

/// Characters in the decoded text of a JSON string's inner bytes: UTF-8 lead bytes,
/// less what escapes take beyond the one character each stands for.
fn decoded_chars(inner: &[u8]) -> usize {
    let leads = inner.iter().filter(|&&c| (c as i8) >= -0x40).count();
    let mut extra = 0;
    let mut i = 0;
    while let Some(p) = memchr::memchr(b'\\', &inner[i..]) {
        let at = i + p;
        if inner.get(at + 1) == Some(&b'u') {
            let high = hex4(inner.get(at + 2..at + 6));
            let pair = matches!(high, Some(0xD800..=0xDBFF))
                && inner.get(at + 6..at + 8) == Some(b"\\u")
                && matches!(hex4(inner.get(at + 8..at + 12)), Some(0xDC00..=0xDFFF));
            let len = if pair { 12 } else { 6 };
            extra += len - 1;
            i = at + len;
        } else {
            extra += 1;
            i = at + 2;
        }
        if i >= inner.len() {
            break;
        }
    }
    leads.saturating_sub(extra)
}

fn hex4(b: Option<&[u8]>) -> Option<u32> {
    let b = b?;
    if b.len() != 4 {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(b).ok()?, 16).ok()
}

/// Decodes the inner bytes of a JSON string (or a piece of them), up to `limit`
/// characters: escapes resolved, invalid UTF-8 and lone surrogates as U+FFFD, an escape
/// cut off at the end dropped. Returns the text and how many bytes it took.
fn unescape(b: &[u8], limit: usize) -> (String, usize) {
    let mut out = String::with_capacity(b.len().min(limit.saturating_mul(2)));
    let mut chars = 0;
    let mut i = 0;
    while i < b.len() && chars < limit {
        let run_end = memchr::memchr(b'\\', &b[i..]).map_or(b.len(), |p| i + p);
        if run_end > i {
            let run = String::from_utf8_lossy(&b[i..run_end]);
            // A run no longer in bytes than the characters still wanted fits whole.
            if run.len() <= limit - chars {
                chars += run.chars().count();
                out.push_str(&run);
                i = run_end;
                continue;
            }
            let taken = crate::text::prefix_chars(&run, limit - chars);
            chars += taken.chars().count();
            out.push_str(taken);
            if taken.len() < run.len() {
                return (out, i + taken.len().min(run_end - i));
            }
            i = run_end;
            continue;
        }
        let Some(&e) = b.get(i + 1) else { break };
        let simple = match e {
            b'n' => Some('\n'),
            b't' => Some('\t'),
            b'r' => Some('\r'),
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'"' => Some('"'),
            b'\\' => Some('\\'),
            b'/' => Some('/'),
            _ => None,
        };
        chars += 1;
        if let Some(c) = simple {
            out.push(c);
            i += 2;
            continue;
        }
        if e != b'u' {
            out.push('\u{fffd}');
            i += 2;
            continue;
        }
        let Some(high) = hex4(b.get(i + 2..i + 6)) else {
            break;
        };
        if (0xD800..=0xDBFF).contains(&high)
            && b.get(i + 6..i + 8) == Some(b"\\u")
            && let Some(low @ 0xDC00..=0xDFFF) = hex4(b.get(i + 8..i + 12))
        {
            let c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
            out.push(char::from_u32(c).unwrap_or('\u{fffd}'));
            i += 12;
        } else {
            out.push(char::from_u32(high).unwrap_or('\u{fffd}'));
            i += 6;
        }
    }
    (out, i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The top-level keys and raw values of `line`, as a walk that consumes none of them
    /// sees them.
    fn fields_of(line: &str) -> Option<Vec<(String, String)>> {
        let mut out = Vec::new();
        let mut cur = Cursor::new(line.as_bytes());
        let mut keys = Vec::new();
        if !cur.object(|_, k| {
            keys.push(String::from_utf8_lossy(k).into_owned());
            Some(())
        })? || !cur.at_end()
        {
            return None;
        }
        // The same walk, taking each value raw.
        let mut cur = Cursor::new(line.as_bytes());
        cur.object(|c, k| {
            out.push((
                String::from_utf8_lossy(k).into_owned(),
                String::from_utf8_lossy(c.raw()?).into_owned(),
            ));
            Some(())
        })?;
        assert_eq!(keys, out.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>());
        Some(out)
    }

    #[test]
    fn top_level_fields_are_found_with_their_raw_values() {
        let got = fields_of(
            r#" { "type" : "user", "n":-1.5e3,"o":{"a":[1,{"b":"}]\"\\"}]}, "t":true ,"s":"x\"y"} "#,
        )
        .unwrap();
        assert_eq!(
            got,
            vec![
                ("type".into(), r#""user""#.into()),
                ("n".into(), "-1.5e3".into()),
                ("o".into(), r#"{"a":[1,{"b":"}]\"\\"}]}"#.into()),
                ("t".into(), "true".into()),
                ("s".into(), r#""x\"y""#.into()),
            ]
        );
        assert_eq!(
            fields_of(r#"{"\u0074ype":"user"}"#).unwrap()[0].0,
            "type".to_string()
        );
        assert_eq!(fields_of("{}").unwrap(), vec![]);
    }

    #[test]
    fn nested_values_are_walked_in_one_pass() {
        let line = br#"{"message":{"content":[{"type":"text","text":"hi"},7,{"type":"x","big":"skip me"}]},"after":1}"#;
        let mut cur = Cursor::new(line);
        let mut seen = Vec::new();
        let walked = cur.object(|c, k| {
            if k == b"message" {
                c.object(|c, k| {
                    if k == b"content" {
                        c.array(|c| {
                            c.object(|c, k| {
                                if k == b"type" {
                                    seen.push(String::from_utf8_lossy(c.raw()?).into_owned());
                                }
                                Some(())
                            })?;
                            Some(())
                        })?;
                    }
                    Some(())
                })?;
            } else {
                seen.push(String::from_utf8_lossy(k).into_owned());
            }
            Some(())
        });
        assert_eq!(walked, Some(true));
        assert!(cur.at_end());
        assert_eq!(seen, vec![r#""text""#, r#""x""#, "after"]);
        // Values of another kind are passed over.
        let mut cur = Cursor::new(br#"[1, "a", {"b": 2}]"#);
        assert_eq!(cur.object(|_, _| Some(())), Some(false));
        assert!(cur.at_end());
    }

    #[test]
    fn cut_or_broken_lines_are_not_objects() {
        for bad in [
            r#"{"type":"user","message":{"content":"abc"#,
            r#"{"type":"user","message":{"content":"abc"}"#,
            r#"{"type" "user"}"#,
            r#"{"type":"user",}"#,
            r#"["type"]"#,
            "not json",
            "",
            r#"{"a":"b\"}"#,
        ] {
            assert!(fields_of(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn array_items() {
        let mut got = Vec::new();
        let mut cur = Cursor::new(br#"[ "a" , {"b":[1,2]}, 3 ]"#);
        cur.array(|c| {
            got.push(c.raw()?.to_vec());
            Some(())
        })
        .unwrap();
        assert_eq!(
            got,
            vec![b"\"a\"".to_vec(), br#"{"b":[1,2]}"#.to_vec(), b"3".to_vec()]
        );
        assert!(Cursor::new(b"[1,").array(|_| Some(())).is_none());
    }

    /// The block scan finds the same closing quote as a byte-by-byte walk, whatever the
    /// runs of backslashes and wherever blocks begin.
    #[test]
    fn string_ends_match_a_byte_walk() {
        fn walk(b: &[u8], open: usize) -> Option<usize> {
            let mut escaped = false;
            for (n, &c) in b[open + 1..].iter().enumerate() {
                if escaped {
                    escaped = false;
                } else if c == b'\\' {
                    escaped = true;
                } else if c == b'"' {
                    return Some(open + 1 + n + 1);
                }
            }
            None
        }
        let alphabet = [b'a', b'\\', b'"', b'\\', b'x'];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for len in (1..400).chain([1_000, 5_000]) {
            for _ in 0..20 {
                let mut b = vec![b'"'];
                for _ in 0..len {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    // Mostly runs of one byte, to make long backslash runs likely.
                    let c = alphabet[(seed % 5) as usize];
                    let run = 1 + (seed >> 8) % 9;
                    b.extend(std::iter::repeat_n(c, run as usize));
                }
                assert_eq!(
                    string_end(&b, 0),
                    walk(&b, 0),
                    "{}",
                    String::from_utf8_lossy(&b)
                );
            }
        }
    }

    /// The walk rebuilds any JSON value serde_json writes (compact or pretty): objects
    /// and arrays walked into, everything else taken raw and decoded.
    mod walk_matches_serde {
        use super::*;
        use proptest::prelude::*;
        use proptest::test_runner::{Config, RngSeed};
        use serde_json::Value;

        fn rebuild(c: &mut Cursor) -> Option<Value> {
            match c.peek()? {
                b'{' => {
                    let mut map = serde_json::Map::new();
                    c.object(|c, k| {
                        let v = rebuild(c)?;
                        map.insert(String::from_utf8(k.to_vec()).ok()?, v);
                        Some(())
                    })?;
                    Some(Value::Object(map))
                }
                b'[' => {
                    let mut items = Vec::new();
                    c.array(|c| {
                        items.push(rebuild(c)?);
                        Some(())
                    })?;
                    Some(Value::Array(items))
                }
                _ => {
                    let raw = c.raw()?;
                    if raw.starts_with(b"\"") {
                        let decoded = str_value(raw, &mut Cost::default())?;
                        return Some(Value::String(decoded.into_owned()));
                    }
                    serde_json::from_slice(raw).ok()
                }
            }
        }

        fn json() -> impl Strategy<Value = Value> {
            let text = prop_oneof![
                any::<String>(),
                "[\"\\\\/a-z\u{0}-\u{1f}é😀{}\\[\\]:,]{0,40}",
            ];
            let leaf = prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::Bool),
                any::<i64>().prop_map(Value::from),
                (-1e9f64..1e9).prop_map(Value::from),
                text.prop_map(Value::String),
            ];
            leaf.prop_recursive(4, 64, 8, |inner| {
                prop_oneof![
                    proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                    proptest::collection::btree_map("[a-z\"\\\\]{0,6}", inner, 0..8)
                        .prop_map(|m| Value::Object(m.into_iter().collect())),
                ]
            })
        }

        fn config() -> Config {
            Config {
                // Random cases locally, one fixed seed under CI (as tests/library/properties.rs).
                rng_seed: if std::env::var_os("CI").is_some() {
                    RngSeed::Fixed(20_261_124)
                } else {
                    RngSeed::Random
                },
                ..Config::default()
            }
        }

        proptest! {
            #![proptest_config(config())]
            #[test]
            fn any_value(v in json(), pretty in any::<bool>()) {
                let text = if pretty {
                    serde_json::to_string_pretty(&v).unwrap()
                } else {
                    serde_json::to_string(&v).unwrap()
                };
                // What serde reads back (a float may not round-trip exactly).
                let want: Value = serde_json::from_str(&text).unwrap();
                let mut c = Cursor::new(text.as_bytes());
                prop_assert_eq!(rebuild(&mut c), Some(want));
                prop_assert!(c.at_end());
                let mut c = Cursor::new(text.as_bytes());
                prop_assert_eq!(c.raw(), Some(text.trim().as_bytes()));
            }
        }
    }

    #[test]
    fn strings_decode_like_serde() {
        let mut cost = Cost::default();
        for raw in [
            r#""plain""#,
            r#""tab\tquote\"slash\\\/ é \u00e9 \ud83d\ude00""#,
            r#""""#,
        ] {
            let want: String = serde_json::from_str(raw).unwrap();
            assert_eq!(str_value(raw.as_bytes(), &mut cost).unwrap(), want);
            assert_eq!(
                unescape(&raw.as_bytes()[1..raw.len() - 1], usize::MAX).0,
                want
            );
            assert_eq!(
                decoded_chars(&raw.as_bytes()[1..raw.len() - 1]),
                want.chars().count()
            );
        }
        assert_eq!(str_value(b"12", &mut cost), None);
        let mut invalid = b"\"caf".to_vec();
        invalid.extend_from_slice(b"\xff\"");
        assert_eq!(str_value(&invalid, &mut cost).unwrap(), "caf\u{fffd}");
    }

    /// The clipped ends of a long JSON string are those of its decoded text, whatever
    /// escapes fall at the cuts.
    #[test]
    fn clipping_a_long_string_matches_clipping_its_decoded_text() {
        let pieces = [
            "line of code \"quoted\" \\ back\n",
            "中文字符和表情😀\t",
            "plain ascii text without escapes ",
            "\u{1}\u{1f}",
        ];
        for n in [10usize, 400, 3_000, 9_000] {
            for rot in 0..pieces.len() {
                let text: String = (0..n).map(|i| pieces[(i + rot) % pieces.len()]).collect();
                let raw = serde_json::to_string(&text).unwrap();
                let mut cost = Cost::default();
                let got = clip_string(raw.as_bytes(), 2_000, &mut cost).unwrap();
                assert_eq!(got, Clipped::new(&text, 2_000), "n={n} rot={rot}");
                if raw.len() > 1_000_000 {
                    assert!(cost.json_bytes < 200_000, "{}", cost.json_bytes);
                }
            }
        }
    }
}
