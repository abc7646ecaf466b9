//! Reading a file's lines from the last to the first.
//!
//! Transcripts are append-only and can reach gigabytes, while a memory only needs the
//! records since the last compaction. Reading backwards in blocks makes the cost
//! proportional to what is read, not to the file size.
//!
//! The blocks come from a [`Blocks`] source. [`Prefetched`] reads them on a second
//! thread a few blocks ahead, so copying the file out of the page cache (a third of
//! the time a long segment takes) overlaps with parsing; [`Sequential`] reads each one
//! when it is needed. Both give the same blocks, so the lines are the same.

use std::collections::VecDeque;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::thread::JoinHandle;

/// Bytes in a block, the unit read at a time.
const BLOCK: usize = 256 * 1024;
/// Blocks a [`Prefetched`] source reads ahead of the one being parsed: enough to keep
/// the reader busy while a block is parsed, few enough to keep memory flat.
const AHEAD: usize = 3;
/// Buffers beyond those queued: the one being read into and the (at most two) the
/// parser holds. A [`Prefetched`] source allocates no more than that, so reading a
/// segment of any length touches the same few buffers.
const HELD: usize = 3;
/// How long the reader waits for a buffer to come back before it allocates one anyway
/// (the parser never keeps more than [`HELD`] minus one, so this is a safeguard).
const BUFFER_WAIT: std::time::Duration = std::time::Duration::from_millis(100);
/// A line still unfinished after this many bytes is gathered from whole blocks and
/// joined once its start is found, instead of being copied in front of every earlier
/// block.
const LONG_LINE: usize = 256 * 1024;
/// Longest line held in memory. Claude Code's records stay far below it (it cuts long
/// tool outputs), though a pasted log can make a prompt of tens of megabytes, which is
/// kept (head and tail). A longer line is skipped, not buffered: a file with no line
/// breaks at all must not be read into memory whole.
pub const MAX_LINE: usize = 64 * 1024 * 1024;

/// A byte range `[0, end)` of a file, given in blocks from the last to the first.
///
/// Block `i` is `[end - (i + 1) * block, end - i * block)`, the first block of the file
/// shorter when `end` is not a multiple of the block size.
pub trait Blocks {
    /// What a source may have made of some lines of a block already (see
    /// [`Prefetched::parsing`]).
    type Parsed;
    /// The next block (the one before those already given), or `None` at the start.
    fn next_block(&mut self) -> io::Result<Option<Vec<u8>>>;
    /// The lines of the block last given that the source has parsed: their offsets in
    /// the file, their lengths and what they gave, last line first.
    fn take_parsed(&mut self) -> Vec<(u64, usize, Self::Parsed)> {
        Vec::new()
    }
    /// Hands back a block's buffer, for a later block to reuse.
    fn recycle(&mut self, buf: Vec<u8>);
    /// Appends the `n` bytes at `offset` to `buf` (bytes of blocks already given).
    fn read_at(&mut self, offset: u64, n: usize, buf: &mut Vec<u8>) -> io::Result<()>;
}

/// A source read at given offsets without moving a shared position, so two threads
/// can read it at once.
pub trait ReadAt {
    /// Fills `buf` from `offset`; fewer bytes than asked for is an error.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// Appends the `n` bytes at `offset` to `buf`, from the one thread that does so.
    fn append_at(&self, offset: u64, n: usize, buf: &mut Vec<u8>) -> io::Result<()>;
}

/// Appends `n` bytes read from `src` at `offset` to `buf`, without first zeroing the
/// room they go to (a long line is megabytes).
fn append_from<R: Read + Seek>(
    mut src: R,
    offset: u64,
    n: usize,
    buf: &mut Vec<u8>,
) -> io::Result<()> {
    src.seek(SeekFrom::Start(offset))?;
    buf.reserve_exact(n);
    let got = src.take(n as u64).read_to_end(buf)?;
    if got < n {
        return Err(short_source());
    }
    Ok(())
}

impl ReadAt for std::fs::File {
    #[cfg(unix)]
    fn append_at(&self, offset: u64, n: usize, buf: &mut Vec<u8>) -> io::Result<()> {
        // The file's own position is used by this thread alone: the reader thread reads
        // at offsets (pread), which leaves it where it is.
        append_from(self, offset, n, buf)
    }

    #[cfg(windows)]
    fn append_at(&self, offset: u64, n: usize, buf: &mut Vec<u8>) -> io::Result<()> {
        // Windows moves the file's position on a read at an offset too: no shared cursor.
        let at = buf.len();
        buf.resize(at + n, 0);
        self.read_exact_at(&mut buf[at..], offset)
    }

    #[cfg(unix)]
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, buf, offset)
    }

    #[cfg(windows)]
    fn read_exact_at(&self, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
        while !buf.is_empty() {
            match std::os::windows::fs::FileExt::seek_read(self, buf, offset) {
                Ok(0) => return Err(short_source()),
                Ok(n) => {
                    buf = &mut buf[n..];
                    offset += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl ReadAt for [u8] {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        buf.copy_from_slice(bytes_at(self, offset, buf.len())?);
        Ok(())
    }

    fn append_at(&self, offset: u64, n: usize, buf: &mut Vec<u8>) -> io::Result<()> {
        buf.extend_from_slice(bytes_at(self, offset, n)?);
        Ok(())
    }
}

/// The `n` bytes of `bytes` at `offset`; fewer is an error, as for a file.
fn bytes_at(bytes: &[u8], offset: u64, n: usize) -> io::Result<&[u8]> {
    usize::try_from(offset)
        .ok()
        .and_then(|from| bytes.get(from..from.checked_add(n)?))
        .ok_or_else(short_source)
}

/// Room left after a block in its buffer, so the end of a line that continues in the
/// next block can be appended without growing it.
fn block_capacity(block: usize, long_line: usize) -> usize {
    block + long_line
}

/// Reads one block into `buf`: `n` bytes starting at `from`.
fn read_block<R: Read + Seek>(
    src: &mut R,
    from: u64,
    n: usize,
    buf: &mut Vec<u8>,
) -> io::Result<()> {
    // Only growth is zeroed; a reused buffer is overwritten by the read.
    buf.resize(n, 0);
    src.seek(SeekFrom::Start(from))?;
    src.read_exact(buf)
}

/// Blocks read when asked for, on the calling thread; it parses no line itself.
pub struct Sequential<R> {
    src: R,
    /// Offset where the next block ends.
    pos: u64,
    block: usize,
    capacity: usize,
    spare: Vec<Vec<u8>>,
}

impl<R: Read + Seek> Sequential<R> {
    fn new(src: R, end: u64, block: usize, capacity: usize) -> Self {
        Sequential {
            src,
            pos: end,
            block,
            capacity,
            spare: Vec::new(),
        }
    }
}

impl<R: Read + Seek> Blocks for Sequential<R> {
    type Parsed = std::convert::Infallible;

    fn next_block(&mut self) -> io::Result<Option<Vec<u8>>> {
        if self.pos == 0 {
            return Ok(None);
        }
        let n = (self.block as u64).min(self.pos) as usize;
        let from = self.pos - n as u64;
        let mut buf = self
            .spare
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(self.capacity));
        read_block(&mut self.src, from, n, &mut buf)?;
        self.pos = from;
        Ok(Some(buf))
    }

    fn recycle(&mut self, buf: Vec<u8>) {
        if self.spare.len() < 2 && buf.capacity() == self.capacity {
            self.spare.push(buf);
        }
    }

    fn read_at(&mut self, offset: u64, n: usize, buf: &mut Vec<u8>) -> io::Result<()> {
        append_from(&mut self.src, offset, n, buf)
    }
}

/// A block and the lines of it the reader thread parsed.
type BlockRead<T> = io::Result<(Vec<u8>, Vec<(u64, usize, T)>)>;

/// Blocks read ahead on a thread of their own, which may also parse some of their
/// lines (see [`Prefetched::parsing`]).
///
/// The thread stops when the file's start is reached, on a read error (given as the
/// next block), or when the source is dropped.
pub struct Prefetched<F: ?Sized, T> {
    src: Arc<F>,
    blocks: Option<Receiver<BlockRead<T>>>,
    returned: Option<SyncSender<Vec<u8>>>,
    reader: Option<JoinHandle<()>>,
    done: bool,
    parsed: Vec<(u64, usize, T)>,
}

impl<F: ReadAt + Send + Sync + ?Sized + 'static, T: Send + 'static> Prefetched<F, T> {
    /// Starts reading `[0, end)` of `src` backwards, the reader thread also handing each
    /// line that lies whole inside a block (between two line breaks) to `parse`: what it
    /// gives comes with the block ([`Blocks::take_parsed`]). Parsing on that thread
    /// while this one parses the rest puts both cores to work on a long segment. A
    /// thread that cannot be started is an error.
    pub fn parsing(
        src: Arc<F>,
        end: u64,
        parse: impl Fn(&[u8]) -> Option<T> + Send + 'static,
    ) -> io::Result<Self> {
        let capacity = block_capacity(BLOCK, LONG_LINE);
        Prefetched::with_geometry(src, end, BLOCK, capacity, AHEAD, parse)
    }

    fn with_geometry(
        src: Arc<F>,
        end: u64,
        block: usize,
        capacity: usize,
        ahead: usize,
        parse: impl Fn(&[u8]) -> Option<T> + Send + 'static,
    ) -> io::Result<Self> {
        let (give, blocks) = sync_channel(ahead);
        // Buffers come back after parsing, to be read into again.
        let buffers = ahead + HELD;
        let (returned, reuse) = sync_channel::<Vec<u8>>(buffers);
        let file = Arc::clone(&src);
        let reader = std::thread::Builder::new()
            .name("transcript-reader".into())
            .spawn(move || {
                let mut pos = end;
                let mut allocated = 0;
                while pos > 0 {
                    let n = (block as u64).min(pos) as usize;
                    let from = pos - n as u64;
                    let reused = if allocated < buffers {
                        reuse.try_recv().ok()
                    } else {
                        match reuse.recv_timeout(BUFFER_WAIT) {
                            Ok(b) => Some(b),
                            Err(RecvTimeoutError::Timeout) => None,
                            // The parser is gone: nothing more to read for.
                            Err(RecvTimeoutError::Disconnected) => return,
                        }
                    };
                    let mut buf = reused.unwrap_or_else(|| {
                        allocated += 1;
                        Vec::with_capacity(capacity)
                    });
                    // Only growth is zeroed; a reused buffer is overwritten.
                    buf.resize(n, 0);
                    let read = file.read_exact_at(&mut buf, from).map(|()| {
                        let parsed = parse_whole_lines(&buf, from, &parse);
                        (buf, parsed)
                    });
                    let failed = read.is_err();
                    if give.send(read).is_err() || failed {
                        return;
                    }
                    pos = from;
                }
            })?;
        Ok(Prefetched {
            src,
            blocks: Some(blocks),
            returned: Some(returned),
            reader: Some(reader),
            done: end == 0,
            parsed: Vec::new(),
        })
    }
}

/// What `parse` makes of the lines of `block` (which starts at file offset `from`)
/// that lie whole inside it, between two of its line breaks, last line first.
fn parse_whole_lines<T>(
    block: &[u8],
    from: u64,
    parse: &impl Fn(&[u8]) -> Option<T>,
) -> Vec<(u64, usize, T)> {
    let mut parsed = Vec::new();
    let mut breaks = memchr::memrchr_iter(b'\n', block);
    let Some(mut after) = breaks.next() else {
        return parsed;
    };
    for before in breaks {
        let line = &block[before + 1..after];
        // A line whose parsing panics is left to the parser's thread, which then fails
        // on it as it would have without this one.
        if !line.is_empty()
            && let Ok(Some(value)) =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parse(line)))
        {
            parsed.push((from + before as u64 + 1, line.len(), value));
        }
        after = before;
    }
    parsed
}

impl<F: ReadAt + ?Sized, T> Blocks for Prefetched<F, T> {
    type Parsed = T;

    fn next_block(&mut self) -> io::Result<Option<Vec<u8>>> {
        if self.done {
            return Ok(None);
        }
        let received = self.blocks.as_ref().map(Receiver::recv);
        match received {
            Some(Ok(Ok((buf, parsed)))) => {
                self.parsed = parsed;
                Ok(Some(buf))
            }
            Some(Ok(Err(e))) => {
                self.done = true;
                Err(e)
            }
            // Every block was given: the thread has ended after the file's first one.
            Some(Err(_)) | None => {
                self.done = true;
                Ok(None)
            }
        }
    }

    fn take_parsed(&mut self) -> Vec<(u64, usize, T)> {
        std::mem::take(&mut self.parsed)
    }

    fn recycle(&mut self, buf: Vec<u8>) {
        if let Some(returned) = &self.returned {
            // The queue holds every buffer there is; a reader that has stopped has
            // closed it, and the buffer is freed.
            let _ = returned.try_send(buf);
        }
    }

    fn read_at(&mut self, offset: u64, n: usize, buf: &mut Vec<u8>) -> io::Result<()> {
        self.src.append_at(offset, n, buf)
    }
}

impl<F: ?Sized, T> Drop for Prefetched<F, T> {
    fn drop(&mut self) {
        // Closing both queues stops the reader at its next block, or while it waits
        // for a buffer; it is waited for so no thread outlives the read (at most one
        // block's read).
        self.blocks = None;
        self.returned = None;
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

/// Yields the lines of a byte range `[0, end)` of a file, last line first.
///
/// Lines are split on `\n` only; a trailing `\r` is left to the JSON parser (it is
/// whitespace there). Empty lines are skipped. A last line without a final newline is
/// yielded like any other, so a partially written record reaches the caller, which
/// decides what to do with it. A line longer than [`MAX_LINE`] is yielded empty (so it
/// counts as a bad line) and its bytes are passed over without being kept.
pub struct ReverseLines<B: Blocks> {
    blocks: B,
    /// Lines the source parsed, from the blocks taken so far, last line first.
    parsed: VecDeque<(u64, usize, B::Parsed)>,
    /// File offset of `buf[0]`.
    start: u64,
    buf: Vec<u8>,
    /// Bytes of `buf` not yet handed out.
    end: usize,
    /// The last long line, joined from its blocks.
    long: Vec<u8>,
    long_line: usize,
    max_line: usize,
}

impl<R: Read + Seek> ReverseLines<Sequential<R>> {
    /// Starts reading `src` backwards from byte offset `end`, on this thread.
    pub fn new(src: R, end: u64) -> Self {
        let blocks = Sequential::new(src, end, BLOCK, block_capacity(BLOCK, LONG_LINE));
        ReverseLines::from_blocks(blocks, end)
    }
}

impl<F: ReadAt + Send + Sync + ?Sized + 'static, T: Send + 'static> ReverseLines<Prefetched<F, T>> {
    /// Starts reading `src` backwards from byte offset `end`, the blocks read ahead on
    /// a second thread, which also parses the lines that lie whole inside a block with
    /// `parse` (see [`Prefetched::parsing`]).
    pub fn prefetched_parsing(
        src: Arc<F>,
        end: u64,
        parse: impl Fn(&[u8]) -> Option<T> + Send + 'static,
    ) -> io::Result<Self> {
        Ok(ReverseLines::from_blocks(
            Prefetched::parsing(src, end, parse)?,
            end,
        ))
    }
}

impl<B: Blocks> ReverseLines<B> {
    /// Lines from the blocks of `[0, end)`.
    pub fn from_blocks(blocks: B, end: u64) -> Self {
        ReverseLines {
            blocks,
            parsed: VecDeque::new(),
            start: end,
            buf: Vec::new(),
            end: 0,
            long: Vec::new(),
            long_line: LONG_LINE,
            max_line: MAX_LINE,
        }
    }

    /// Offset of the first byte not yet handed out: everything before it is unread.
    pub fn unread(&self) -> u64 {
        self.start + self.end as u64
    }

    /// The previous line and its byte offset in the file, or `None` at the start.
    pub fn next_line(&mut self) -> io::Result<Option<(u64, &[u8])>> {
        Ok(self
            .next_line_parsed()?
            .map(|line| (line.offset, line.bytes)))
    }

    /// [`ReverseLines::next_line`], with what the source made of the line when it
    /// parsed it.
    pub fn next_line_parsed(&mut self) -> io::Result<Option<Line<'_, B::Parsed>>> {
        let Some((offset, span)) = self.advance()? else {
            return Ok(None);
        };
        let len = self.slice(span).len();
        // Lines are handed out last first, as the source parsed them: what lies after
        // this line was skipped (or is this line in another shape).
        while self.parsed.front().is_some_and(|(at, _, _)| *at > offset) {
            self.parsed.pop_front();
        }
        let value = match self.parsed.front() {
            Some((at, n, _)) if *at == offset && *n == len => {
                self.parsed.pop_front().map(|(_, _, v)| v)
            }
            _ => None,
        };
        Ok(Some(Line {
            offset,
            bytes: self.slice(span),
            parsed: value,
        }))
    }

    fn slice(&self, span: Span) -> &[u8] {
        match span {
            Span::Buf(from, to) => &self.buf[from..to],
            Span::Long => &self.long,
            Span::Skipped => &[],
        }
    }

    /// The next line's offset, and where its bytes are.
    fn advance(&mut self) -> io::Result<Option<(u64, Span)>> {
        // The last long line has been handed out and read: its memory is not held
        // while the lines before it are.
        if self.long.capacity() > 0 {
            self.long = Vec::new();
        }
        loop {
            if let Some(nl) = memchr::memrchr(b'\n', &self.buf[..self.end]) {
                let (from, to) = (nl + 1, self.end);
                self.end = nl;
                if from == to {
                    continue;
                }
                let offset = self.start + from as u64;
                return Ok(Some((offset, Span::Buf(from, to))));
            }
            if self.start == 0 {
                if self.end == 0 {
                    return Ok(None);
                }
                let to = self.end;
                self.end = 0;
                return Ok(Some((0, Span::Buf(0, to))));
            }
            if self.end >= self.long_line {
                return self.long_line().map(Some);
            }
            self.prepend_block()?;
        }
    }

    /// The source's next block, its parsed lines kept for [`ReverseLines::next_line_parsed`].
    fn fetch(&mut self) -> io::Result<Option<Vec<u8>>> {
        let block = self.blocks.next_block()?;
        self.parsed.extend(self.blocks.take_parsed());
        Ok(block)
    }

    /// Puts the block before `start` in front of the unread part of the buffer (a
    /// short line's end, copied into the block's spare room).
    fn prepend_block(&mut self) -> io::Result<()> {
        let Some(mut block) = self.fetch()? else {
            return Err(short_source());
        };
        self.start -= block.len() as u64;
        block.extend_from_slice(&self.buf[..self.end]);
        let old = std::mem::replace(&mut self.buf, block);
        self.end = self.buf.len();
        self.blocks.recycle(old);
        Ok(())
    }

    /// The rest of a line that began before `start`: the blocks before it are searched
    /// for its start and let go, then the line is read again at its own size, so it is
    /// held once. A line longer than the limit is passed over and yielded empty.
    fn long_line(&mut self) -> io::Result<(u64, Span)> {
        let mut tail = std::mem::take(&mut self.buf);
        tail.truncate(self.end);
        let tail_start = self.start;
        let mut total = tail.len();
        let (head, line_start) = loop {
            if self.start == 0 {
                break (Vec::new(), 0);
            }
            let Some(block) = self.fetch()? else {
                return Err(short_source());
            };
            self.start -= block.len() as u64;
            if let Some(nl) = memchr::memrchr(b'\n', &block) {
                total += block.len() - nl - 1;
                break (block, self.start + nl as u64 + 1);
            }
            total += block.len();
            self.blocks.recycle(block);
        };
        // The lines before this one, up to and without the break, which stays unread
        // (the line before ends there).
        let head_end = (line_start.saturating_sub(1) - self.start) as usize;
        let head_end = head_end.min(head.len());
        let head_part = if head.is_empty() {
            &[][..]
        } else {
            &head[head_end + 1..]
        };
        if total > self.max_line {
            self.blocks.recycle(tail);
            self.buf = head;
            self.end = head_end;
            return Ok((line_start, Span::Skipped));
        }
        self.long.reserve_exact(total);
        self.long.extend_from_slice(head_part);
        // The whole blocks between the line's first block and its tail.
        let middle_start = line_start + head_part.len() as u64;
        let middle = (tail_start - middle_start) as usize;
        self.blocks.read_at(middle_start, middle, &mut self.long)?;
        self.long.extend_from_slice(&tail);
        self.blocks.recycle(tail);
        self.buf = head;
        self.end = head_end;
        Ok((line_start, Span::Long))
    }
}

/// A line handed out by [`ReverseLines::next_line_parsed`].
pub struct Line<'a, T> {
    /// Where it starts in the file.
    pub offset: u64,
    /// Its bytes, without the line break.
    pub bytes: &'a [u8],
    /// What the source made of it, if it parsed it.
    pub parsed: Option<T>,
}

/// Where a line handed out lies.
#[derive(Clone, Copy)]
enum Span {
    /// In the buffer.
    Buf(usize, usize),
    /// In the long-line buffer.
    Long,
    /// Nowhere: a line over the limit, passed over.
    Skipped,
}

/// The source gave fewer bytes than its length said: the file shrank while read.
fn short_source() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "the file became shorter while it was read",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// A reader thread that parses no line.
    fn no_parse(_: &[u8]) -> Option<std::convert::Infallible> {
        None
    }

    fn collect<B: Blocks>(mut r: ReverseLines<B>) -> Vec<(u64, String)> {
        let mut out = Vec::new();
        while let Some((off, line)) = r.next_line().unwrap() {
            out.push((off, String::from_utf8_lossy(line).into_owned()));
        }
        out
    }

    fn lines(data: &[u8]) -> Vec<(u64, String)> {
        let sequential = collect(ReverseLines::new(
            Cursor::new(data.to_vec()),
            data.len() as u64,
        ));
        let prefetched = collect(
            ReverseLines::prefetched_parsing(Arc::<[u8]>::from(data), data.len() as u64, no_parse)
                .unwrap(),
        );
        assert_eq!(sequential, prefetched);
        sequential
    }

    /// Lines with small blocks and limits, so every path is taken by short inputs.
    fn small(
        data: &[u8],
        block: usize,
        long_line: usize,
        max_line: usize,
        prefetch: bool,
    ) -> Vec<(u64, String)> {
        let capacity = block_capacity(block, long_line);
        let end = data.len() as u64;
        if prefetch {
            let src: Arc<[u8]> = Arc::from(data);
            let blocks = Prefetched::with_geometry(src, end, block, capacity, 2, no_parse).unwrap();
            collect(limited(blocks, end, long_line, max_line))
        } else {
            let blocks = Sequential::new(Cursor::new(data.to_vec()), end, block, capacity);
            collect(limited(blocks, end, long_line, max_line))
        }
    }

    fn limited<B: Blocks>(
        blocks: B,
        end: u64,
        long_line: usize,
        max_line: usize,
    ) -> ReverseLines<B> {
        let mut r = ReverseLines::from_blocks(blocks, end);
        r.long_line = long_line;
        r.max_line = max_line;
        r
    }

    /// What the reader must give: every non-empty line, last first; a line over
    /// `max_line` as an empty one.
    fn naive(data: &[u8], max_line: usize) -> Vec<(u64, String)> {
        let mut out = Vec::new();
        let mut offset = 0u64;
        for line in data.split(|&c| c == b'\n') {
            if !line.is_empty() {
                let text = if line.len() > max_line {
                    String::new()
                } else {
                    String::from_utf8_lossy(line).into_owned()
                };
                out.push((offset, text));
            }
            offset += line.len() as u64 + 1;
        }
        out.reverse();
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
    fn lines_longer_than_many_blocks() {
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
        let long = vec![b'x'; MAX_LINE + 3 * BLOCK + 5];
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

    #[test]
    fn unread_stops_before_the_break_of_a_skipped_line() {
        let data = format!("ab\n{}\n", "x".repeat(40));
        let end = data.len() as u64;
        let blocks = Sequential::new(Cursor::new(data.into_bytes()), end, 4, 12);
        let mut r = limited(blocks, end, 8, 20);
        assert_eq!(
            r.next_line().unwrap().map(|(o, l)| (o, l.len())),
            Some((3, 0))
        );
        assert_eq!(r.unread(), 2);
        assert_eq!(
            r.next_line().unwrap().map(|(o, l)| (o, l.to_vec())),
            Some((0, b"ab".to_vec()))
        );
    }

    #[test]
    fn a_file_that_shrinks_while_read_is_an_error_not_a_panic() {
        // The length given is longer than the source: the first read comes up short.
        let mut r = ReverseLines::new(Cursor::new(b"a\nb\n".to_vec()), 100);
        assert!(r.next_line().is_err());
        let src: Arc<[u8]> = Arc::from(&b"a\nb\n"[..]);
        let mut r = ReverseLines::prefetched_parsing(src, 100, no_parse).unwrap();
        assert!(r.next_line().is_err());
    }

    /// Runs of one letter (the next letter for each part), each part ending a line or
    /// not.
    fn text_of(parts: &[(usize, bool)]) -> Vec<u8> {
        let mut data = Vec::new();
        for (i, (len, newline)) in parts.iter().enumerate() {
            data.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, *len));
            if *newline {
                data.push(b'\n');
            }
        }
        data
    }

    /// Lines parsed on the reader thread come back with the very line they were made
    /// from, and a line whole inside a block (between two of its breaks) always does.
    mod lines_parsed_by_the_reader {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(300))]
            #[test]
            fn match_their_lines(
                parts in proptest::collection::vec((0usize..30, any::<bool>()), 0..40),
                block in 1usize..40,
            ) {
                let data = text_of(&parts);
                let end = data.len() as u64;
                let src: Arc<[u8]> = Arc::from(data.as_slice());
                let blocks = Prefetched::with_geometry(
                    src, end, block, block_capacity(block, 8), 2, |line: &[u8]| Some(line.to_vec()),
                ).unwrap();
                let mut r = limited(blocks, end, 8, block + 8 + 100);
                let mut got = Vec::new();
                while let Some(Line { offset, bytes: line, parsed }) = r.next_line_parsed().unwrap() {
                    if let Some(p) = &parsed {
                        prop_assert_eq!(p.as_slice(), line);
                    }
                    got.push((offset, String::from_utf8_lossy(line).into_owned(), parsed.is_some()));
                }
                // The same lines as without parsing.
                let plain: Vec<(u64, String)> = got.iter().map(|(o, l, _)| (*o, l.clone())).collect();
                prop_assert_eq!(plain, naive(&data, block + 8 + 100));
                // A line between two breaks of one block was parsed.
                for (offset, line, parsed) in &got {
                    let (from, to) = (*offset as usize, *offset as usize + line.len());
                    // Block `k` holds the bytes `k * block` to `(k + 1) * block` back
                    // from the end.
                    let block_of = |at: usize| (data.len() - 1 - at) / block;
                    // (A line over the limit comes back empty: nothing to parse.)
                    let whole = !line.is_empty()
                        && from > 0
                        && to < data.len()
                        && block_of(from - 1) == block_of(to);
                    if whole {
                        prop_assert!(*parsed, "line at {} not parsed", offset);
                    }
                }
            }
        }
    }

    #[test]
    fn a_line_whose_parsing_panics_is_left_to_the_parser() {
        let data = b"first\nboom\nlast\n".to_vec();
        let end = data.len() as u64;
        let src: Arc<[u8]> = Arc::from(data);
        let blocks = Prefetched::with_geometry(src, end, 64, 64, 2, |line: &[u8]| {
            assert!(line != b"boom", "a parser bug");
            Some(line.len())
        })
        .unwrap();
        let mut r = limited(blocks, end, 8, 1000);
        let mut got = Vec::new();
        while let Some(line) = r.next_line_parsed().unwrap() {
            got.push((
                String::from_utf8_lossy(line.bytes).into_owned(),
                line.parsed,
            ));
        }
        // `first` has no break before it; `boom` and `last` lie between two, and only
        // `boom`'s parsing failed.
        assert_eq!(
            got,
            vec![
                ("last".to_string(), Some(4)),
                ("boom".to_string(), None),
                ("first".to_string(), None)
            ]
        );
    }

    /// Both sources, any block size and limits: the lines of a naive split.
    mod against_a_naive_split {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(300))]
            #[test]
            fn same_lines(
                parts in proptest::collection::vec((0usize..60, any::<bool>()), 0..40),
                block in 1usize..20,
                long_line in 1usize..30,
                // Longer than a buffer can hold, as MAX_LINE is: such a line is always
                // gathered from blocks, where the limit applies.
                max_extra in 0usize..80,
                prefetch in any::<bool>(),
            ) {
                let data = text_of(&parts);
                let max_line = block + long_line + max_extra;
                prop_assert_eq!(
                    small(&data, block, long_line, max_line, prefetch),
                    naive(&data, max_line)
                );
            }
        }
    }
}
