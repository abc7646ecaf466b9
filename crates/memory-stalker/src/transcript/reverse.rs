//! Reading a file's lines from the last to the first.
//!
//! Transcripts are append-only and can reach gigabytes, while a memory only needs the
//! records since the last compaction. Reading backwards in growing chunks makes the cost
//! proportional to what is read, not to the file size.

use std::io::{self, Read, Seek, SeekFrom};

const CHUNK: usize = 64 * 1024;
/// A line still unfinished after this many bytes is read whole, at its own size, once
/// its start is found: growing a buffer chunk by chunk would copy a multi-megabyte tool
/// output many times and hold it twice.
const LONG_LINE: usize = 256 * 1024;
/// Bytes read at a time while looking back for the start of a long line.
const SCAN: usize = 1024 * 1024;
/// Longest line held in memory. Claude Code's records stay far below it (it cuts long
/// tool outputs), though a pasted log can make a prompt of tens of megabytes, which is
/// kept (head and tail). A longer line is skipped, not buffered: a file with no line
/// breaks at all must not be read into memory whole.
pub const MAX_LINE: usize = 64 * 1024 * 1024;

/// Yields the lines of a byte range `[0, end)` of a seekable source, last line first.
///
/// Lines are split on `\n` only; a trailing `\r` is left to the JSON parser (it is
/// whitespace there). Empty lines are skipped. A last line without a final newline is
/// yielded like any other, so a partially written record reaches the caller, which
/// decides what to do with it. A line longer than [`MAX_LINE`] is yielded empty (so it
/// counts as a bad line) and its bytes are passed over without being kept.
pub struct ReverseLines<R> {
    src: R,
    /// File offset of `buf[0]`.
    start: u64,
    buf: Vec<u8>,
    /// The previous buffer, reused for the next fill rather than allocated (and zeroed)
    /// anew for every chunk.
    spare: Vec<u8>,
    /// Bytes of `buf` not yet handed out.
    end: usize,
}

impl<R: Read + Seek> ReverseLines<R> {
    /// Starts reading backwards from byte offset `end`.
    pub fn new(src: R, end: u64) -> Self {
        ReverseLines {
            src,
            start: end,
            buf: Vec::new(),
            spare: Vec::new(),
            end: 0,
        }
    }

    /// Offset of the first byte not yet handed out: everything before it is unread.
    pub fn unread(&self) -> u64 {
        self.start + self.end as u64
    }

    /// The previous line and its byte offset in the file, or `None` at the start.
    pub fn next_line(&mut self) -> io::Result<Option<(u64, &[u8])>> {
        loop {
            if let Some(nl) = memchr::memrchr(b'\n', &self.buf[..self.end]) {
                let (from, to) = (nl + 1, self.end);
                self.end = nl;
                if from == to {
                    continue;
                }
                let offset = self.start + from as u64;
                return Ok(Some((offset, &self.buf[from..to])));
            }
            if self.start == 0 {
                if self.end == 0 {
                    return Ok(None);
                }
                let to = self.end;
                self.end = 0;
                return Ok(Some((0, &self.buf[..to])));
            }
            if self.end >= LONG_LINE {
                return self.long_line();
            }
            self.fill()?;
        }
    }

    /// The rest of a line that began before `start`, read at once after finding where
    /// it begins; a line longer than [`MAX_LINE`] is passed over and yielded empty.
    fn long_line(&mut self) -> io::Result<Option<(u64, &[u8])>> {
        // The buffer of an earlier long line is not needed again.
        self.spare = Vec::new();
        let mut scratch = vec![0u8; SCAN];
        let mut pos = self.start;
        let mut line_start = 0;
        while pos > 0 {
            let n = (SCAN as u64).min(pos) as usize;
            let from = pos - n as u64;
            self.src.seek(SeekFrom::Start(from))?;
            self.src.read_exact(&mut scratch[..n])?;
            if let Some(i) = memchr::memrchr(b'\n', &scratch[..n]) {
                line_start = from + i as u64 + 1;
                break;
            }
            pos = from;
        }
        let head = (self.start - line_start) as usize;
        if head + self.end > MAX_LINE {
            self.buf = Vec::new();
            self.spare = Vec::new();
            self.end = 0;
            // The break before the line stays out of what is unread: the line before
            // ends there.
            self.start = line_start.saturating_sub(1);
            return Ok(Some((line_start, &[])));
        }
        drop(scratch);
        let mut line = vec![0u8; head + self.end];
        self.src.seek(SeekFrom::Start(line_start))?;
        self.src.read_exact(&mut line[..head])?;
        line[head..].copy_from_slice(&self.buf[..self.end]);
        self.buf = line;
        self.start = line_start;
        self.end = 0;
        Ok(Some((line_start, &self.buf)))
    }

    /// Prepends the chunk before `start` to the unread part of the buffer.
    fn fill(&mut self) -> io::Result<()> {
        let n = (CHUNK as u64).min(self.start) as usize;
        let new_start = self.start - n as u64;
        let mut fresh = std::mem::take(&mut self.spare);
        if fresh.capacity() > 2 * LONG_LINE {
            // A long line's buffer: too big to keep for chunks.
            fresh = Vec::new();
        }
        // Only growth is zeroed; what the buffer held is overwritten below.
        fresh.resize(n + self.end, 0);
        self.src.seek(SeekFrom::Start(new_start))?;
        self.src.read_exact(&mut fresh[..n])?;
        fresh[n..].copy_from_slice(&self.buf[..self.end]);
        self.spare = std::mem::replace(&mut self.buf, fresh);
        self.start = new_start;
        self.end += n;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn lines(data: &[u8]) -> Vec<(u64, String)> {
        let mut r = ReverseLines::new(Cursor::new(data.to_vec()), data.len() as u64);
        let mut out = Vec::new();
        while let Some((off, line)) = r.next_line().unwrap() {
            out.push((off, String::from_utf8_lossy(line).into_owned()));
        }
        out
    }

    #[test]
    fn yields_lines_last_first_with_offsets() {
        assert_eq!(
            lines(b"a\nbb\nccc\n"),
            vec![(5, "ccc".into()), (2, "bb".into()), (0, "a".into())]
        );
    }

    #[test]
    fn partial_last_line_is_yielded() {
        assert_eq!(lines(b"a\nbb"), vec![(2, "bb".into()), (0, "a".into())]);
    }

    #[test]
    fn empty_lines_and_empty_input_are_skipped() {
        assert_eq!(lines(b"\n\na\n\n"), vec![(2, "a".into())]);
        assert!(lines(b"").is_empty());
        assert!(lines(b"\n").is_empty());
    }

    #[test]
    fn lines_longer_than_many_chunks() {
        let long = "x".repeat(3 * 1024 * 1024 + 17);
        let data = format!("first\n{long}\nlast\n");
        let got = lines(data.as_bytes());
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].1, "last");
        assert_eq!(got[1].1.len(), long.len());
        assert_eq!(got[1].0, 6);
        assert_eq!(got[2].1, "first");
    }

    /// Issue 12, defect 7: a file without line breaks was read into memory whole.
    #[test]
    fn a_line_over_the_limit_is_skipped_not_buffered() {
        let long = vec![b'x'; MAX_LINE + 3 * SCAN + 5];
        let mut data = b"first\n".to_vec();
        data.extend_from_slice(&long);
        data.extend_from_slice(b"\nlast\n");
        let got = lines(&data);
        assert_eq!(
            got,
            vec![
                (data.len() as u64 - 5, "last".into()),
                (6, String::new()),
                (0, "first".into())
            ]
        );
        // No line break at all.
        let got = lines(&long);
        assert_eq!(got, vec![(0, String::new())]);
    }

    #[test]
    fn reading_stops_at_the_given_end() {
        let data = b"one\ntwo\nthree\n";
        let mut r = ReverseLines::new(Cursor::new(data.to_vec()), 8);
        assert_eq!(
            r.next_line().unwrap().map(|(o, l)| (o, l.to_vec())),
            Some((4, b"two".to_vec()))
        );
        assert_eq!(r.unread(), 3);
    }
}
