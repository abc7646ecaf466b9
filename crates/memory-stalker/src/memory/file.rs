//! A memory file on disk: how it is named, how big it may be, where it goes in the
//! order of memories, and reading its front matter without its body. Below the store
//! (which writes memories), the catalog and the search index (which read them).

use std::io::Read;
use std::path::Path;

use super::document::FrontMatter;
use crate::fsutil;

/// Largest memory file read. Memories this tool writes stay far below it (long prompts
/// and replies are kept head and tail); a bigger file is not one of ours.
pub const MAX_MEMORY_BYTES: u64 = 8 * 1024 * 1024;

/// The first 8 characters of a session id after keeping only `[A-Za-z0-9-]`, so no id
/// can make a file name leave the directory; `unknown` when nothing is left.
pub fn sid8(session_id: &str) -> String {
    let clean: String = session_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .take(8)
        .collect();
    if clean.is_empty() {
        "unknown".into()
    } else {
        clean
    }
}

/// Whether `name` is a memory file name: `YYYYMMDD_HHMMSS_<sid8>[_N].md`.
pub fn is_memory_file_name(name: &str) -> bool {
    parse_file_name(name).is_some()
}

/// The parts of a memory file name: timestamp (`YYYYMMDD_HHMMSS`), sid8, suffix.
pub fn parse_file_name(name: &str) -> Option<(&str, &str, Option<u32>)> {
    let stem = name.strip_suffix(".md")?;
    let b = stem.as_bytes();
    if b.len() < 17
        || !b[..8].iter().all(u8::is_ascii_digit)
        || b[8] != b'_'
        || !b[9..15].iter().all(u8::is_ascii_digit)
        || b[15] != b'_'
    {
        return None;
    }
    let rest = &stem[16..];
    let (sid, suffix) = match rest.rsplit_once('_') {
        Some((sid, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => {
            (sid, Some(n.parse().ok()?))
        }
        _ => (rest, None),
    };
    let sid_ok = !sid.is_empty()
        && sid.len() <= 8
        && sid.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    sid_ok.then_some((&stem[..15], sid, suffix))
}

/// The pointer index kept beside the memories, skipped wherever memories are listed.
pub const INDEX_FILE: &str = "INDEX.md";

/// Largest front matter read; a task list of a few hundred items fits.
const MAX_FRONT_MATTER: usize = 256 * 1024;

/// Reads just the front matter of a memory file, not its body.
pub fn read_front_matter(path: &Path) -> Option<FrontMatter> {
    read_head(path).map(|(fm, _)| fm)
}

/// Reads just the front matter of a memory file and its `created_ns`, not its body.
pub fn read_head(path: &Path) -> Option<(FrontMatter, Option<u64>)> {
    let (f, _) = fsutil::open_regular(path, false, None).ok()?;
    let mut buf = Vec::new();
    let end = read_head_bytes(f, &mut buf)?;
    FrontMatter::parse_with_written_ns(&lossy(&buf[..end])).map(|(fm, ns, _)| (fm, ns))
}

/// Bytes asked for by the first read of a memory's head: a front matter with a task
/// list of a few dozen items fits, and so does a whole memory of a few KiB.
const FIRST_READ: usize = 4096;

/// Reads from `reader` into `buf` until the end of the front matter is known, and
/// returns where it ends: just after its closing `---` line, or after the first line
/// when that does not open one; the bytes read are `buf[..end]`. `None` when the text
/// ends first (within [`MAX_FRONT_MATTER`] bytes) or a read fails.
///
/// Lines are judged as `read_until(b'\n')` on the first [`MAX_FRONT_MATTER`] bytes would
/// give them, the last one possibly without its newline. Reads grow from
/// [`FIRST_READ`] bytes, so a memory's body is mostly never read, and `buf` is only
/// ever grown (never cleared), so a buffer kept from one memory to the next is not
/// zeroed again for each.
pub(crate) fn read_head_bytes(mut reader: impl Read, buf: &mut Vec<u8>) -> Option<usize> {
    let cap = MAX_FRONT_MATTER;
    // Bytes read so far, the start of the first line not judged yet, how far that line
    // is known to have no newline (so a long line read in small pieces is searched
    // once, not once a piece), and whether the text has ended (end of file, or the cap).
    let (mut filled, mut line, mut searched, mut ended) = (0, 0, 0, false);
    loop {
        while line < filled {
            let from = searched.max(line);
            let end = match memchr::memchr(b'\n', &buf[from..filled]) {
                Some(i) => from + i + 1,
                None if ended => filled,
                None => {
                    searched = filled;
                    break;
                }
            };
            // A byte order mark (Windows editors write one) before the opening line is
            // not part of it.
            let text = match &buf[line..end] {
                [0xef, 0xbb, 0xbf, rest @ ..] if line == 0 => rest,
                all => all,
            };
            let dashes = text.trim_ascii_end() == b"---";
            // The first line must be `---` to open a front matter; a later one closes it.
            if (line == 0) != dashes {
                return Some(end);
            }
            line = end;
        }
        if ended {
            return None;
        }
        let want = filled.max(FIRST_READ).min(cap - filled);
        if buf.len() < filled + want {
            buf.resize(filled + want, 0);
        }
        match reader.read(&mut buf[filled..filled + want]) {
            Ok(n) => {
                filled += n;
                ended = n == 0 || filled >= cap;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
}

/// Bytes as text, invalid UTF-8 replaced; borrowed when valid (the usual case, checked
/// by the fast validator first).
pub(crate) fn lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    /// Where the head ends read line by line with `read_until` on the first
    /// `MAX_FRONT_MATTER` bytes, as the front matter parser judges lines.
    fn head_by_lines(bytes: &[u8]) -> Option<usize> {
        use std::io::{BufRead, BufReader};
        let mut reader = BufReader::new(bytes.take(MAX_FRONT_MATTER as u64));
        let (mut head, mut line) = (0, Vec::new());
        loop {
            line.clear();
            if reader.read_until(b'\n', &mut line).ok()? == 0 {
                return None;
            }
            head += line.len();
            // The opening line may follow a byte order mark (issue 25, defect 13).
            let first = head == line.len();
            let text = line
                .strip_prefix(b"\xef\xbb\xbf".as_slice())
                .filter(|_| first)
                .unwrap_or(&line);
            let dashes = text.trim_ascii_end() == b"---";
            if first != dashes {
                return Some(head);
            }
        }
    }

    /// A reader giving at most `step` bytes a read, and interrupted before every third.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
        calls: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            self.calls += 1;
            if self.calls.is_multiple_of(3) {
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            let n = out.len().min(self.step).min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[test]
    fn the_head_ends_where_a_line_by_line_reading_ends() {
        let long_line = format!("---\nx: {}\n---\nbody", "a".repeat(300_000));
        let many_lines = format!("---\n{}---\nbody", "key: value\n".repeat(2_000));
        // The closing `---` as the last bytes under the cap, with no newline.
        let at_cap = format!("---\n{}---", "p".repeat(MAX_FRONT_MATTER - 8) + "\n");
        let texts: Vec<Vec<u8>> = [
            "",
            "-",
            "---",
            "---\n",
            "---\n---",
            "---\nx: 1\n---\nbody",
            "---\r\nx: 1\r\n---  \r\nbody",
            "---  \na\n--- \n",
            "\u{feff}---\n---\n",
            "# title\n---\n",
            "---\nunclosed: 1\n",
            "---\n\u{a0}---\n---\x0b\n---\x0c\n",
            long_line.as_str(),
            many_lines.as_str(),
            at_cap.as_str(),
        ]
        .iter()
        .map(|t| t.as_bytes().to_vec())
        .chain([b"---\nbad: \xff\xfe\n---\n".to_vec()])
        .collect();
        // One buffer for every text, as listing keeps it, dirty from the one before.
        let mut buf = Vec::new();
        for text in &texts {
            let want = head_by_lines(text);
            for step in [1, 7, 4096, usize::MAX] {
                let reader = Trickle {
                    data: text,
                    step,
                    calls: 0,
                };
                let got = read_head_bytes(reader, &mut buf);
                assert_eq!(
                    got,
                    want,
                    "{step}-byte reads of {:?}",
                    lossy(&text[..text.len().min(40)])
                );
                if let Some(end) = got {
                    assert_eq!(&buf[..end], &text[..end]);
                }
            }
        }
    }

    #[test]
    fn sid8_keeps_safe_characters_only() {
        assert_eq!(sid8("ff246da3-e969-4e32"), "ff246da3");
        assert_eq!(sid8("../../x"), "x");
        assert_eq!(sid8(""), "unknown");
        assert_eq!(sid8("日本語/..\\"), "unknown");
        assert_eq!(sid8("a/b\0c"), "abc");
    }

    #[test]
    fn file_names_parse() {
        assert_eq!(
            parse_file_name("20260129_173000_ff246da3.md"),
            Some(("20260129_173000", "ff246da3", None))
        );
        assert_eq!(
            parse_file_name("20260129_173000_ff246da3_2.md"),
            Some(("20260129_173000", "ff246da3", Some(2)))
        );
        assert_eq!(
            parse_file_name("20260129_173000_ab-1_12.md"),
            Some(("20260129_173000", "ab-1", Some(12)))
        );
        for bad in [
            "INDEX.md",
            "20260129_173000_.md",
            "2026012_173000_x.md",
            "20260129_173000_x.txt",
            "20260129_173000_abcdefghi.md",
        ] {
            assert!(parse_file_name(bad).is_none(), "{bad}");
        }
    }
}
