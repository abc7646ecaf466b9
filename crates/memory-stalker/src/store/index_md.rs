//! `INDEX.md`: a pointer index of a project's newest memories, small enough to be read
//! whole (at most 800 tokens, counted as characters / 4, however many memories exist).

use std::fmt::Write as _;

use super::catalog::MemoryEntry;
use super::files::{INDEX_FILE, MemoryStore};
use crate::Error;
use crate::fsutil;
use crate::untrusted::line;

/// Token budget of the index.
pub const INDEX_TOKENS: usize = 800;
/// Memories read to build the index; more would never fit.
const CANDIDATES: usize = 40;
const SUMMARY_CHARS: usize = 72;

impl MemoryStore {
    /// Rewrites `INDEX.md` atomically from the newest memories.
    ///
    /// Under a lock, so that of two writers (a save and a background summary, say) the
    /// one that writes last has also listed last: the index never goes back to a
    /// memory's older headline.
    pub fn write_index(&self) -> Result<(), Error> {
        let path = self.dir().join(INDEX_FILE);
        if !self.dir().is_dir() {
            // Taking the lock would create the directory: an index of nothing is no
            // reason to.
            let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
            return Err(Error::store("cannot write", &path, missing));
        }
        let lock_path = self.lock_path(INDEX_FILE);
        let _lock = fsutil::Lock::acquire(&lock_path)
            .map_err(|e| Error::store("cannot lock", &lock_path, e))?;
        // A directory of an older version, or one the user made, gets its ignore file
        // too; without it the index is still worth writing.
        let _ = self.ensure_gitignore();
        let listing = self.list(Some(CANDIDATES), None)?;
        let text = render_index(&listing.memories, listing.total);
        let before = self.mtime_before_change();
        fsutil::replace_derived(&path, text.as_bytes())
            .map_err(|e| Error::store("cannot write", &path, e))?;
        // Not a memory, but a change of the directory the search index must know of.
        self.note_change(before, &[], &[]);
        Ok(())
    }
}

/// The index text for `newest` (newest first) out of `total` memories.
pub fn render_index(newest: &[MemoryEntry], total: usize) -> String {
    let budget = INDEX_TOKENS * 4;
    let mut out = String::from(
        "# Memory index\n\nThe newest memories saved by memory-stalker when this project's Claude Code and Codex sessions were compacted. Each line: date · file · open tasks · summary. Read a file for the details.\n\n",
    );
    let footer = |shown: usize| {
        let older = total.saturating_sub(shown);
        if older == 0 {
            String::new()
        } else {
            format!("\n{older} older memories: run `list-memories` to see them all.\n")
        }
    };
    let mut shown = 0;
    for e in newest {
        let tasks = if e.tasks_total == 0 {
            "no tasks".to_string()
        } else {
            format!("{}/{} open", e.tasks_open, e.tasks_total)
        };
        let mark = e.mark().map_or(String::new(), |m| format!("[{m}] "));
        let entry = format!(
            "- {} · {} · {} · {mark}{}\n",
            line(&e.date, 40),
            line(&e.file, 200),
            tasks,
            // Cut at a word's end, as the headline itself is.
            line(
                &crate::text::clip_words(&e.summary, SUMMARY_CHARS),
                SUMMARY_CHARS
            )
        );
        let after = out.chars().count() + entry.chars().count() + footer(shown + 1).chars().count();
        if after > budget {
            break;
        }
        out.push_str(&entry);
        shown += 1;
    }
    if shown == 0 {
        out.push_str("(no memories yet)\n");
    }
    let _ = write!(out, "{}", footer(shown));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn index_stays_under_budget_with_5000_memories() {
        let dir = tempfile::tempdir().unwrap();
        let store = MemoryStore::new(dir.path());
        for i in 0..5_000u32 {
            let (day, sec) = (1 + i / 86_400, i % 86_400);
            let name = format!(
                "202601{:02}_{:02}{:02}{:02}_abcd{:04}.md",
                day,
                sec / 3600,
                sec / 60 % 60,
                sec % 60,
                i % 10_000
            );
            let summary = format!("{i}: {}", "a long summary with 灰度 text ".repeat(8));
            fs::write(
                dir.path().join(name),
                format!("---\nmemory_stalker: 1\nsession_id: \"abcd{i:04}\"\ncreated: \"2026-01-01T00:00:00+00:00\"\ntask_count: 9\ntasks_open: {}\nsummary: {}\n---\nbody\n", i % 9, serde_json::to_string(&summary).unwrap()),
            )
            .unwrap();
        }
        store.write_index().unwrap();
        let index = fs::read_to_string(dir.path().join(INDEX_FILE)).unwrap();
        let tokens = index.chars().count() / 4;
        assert!(tokens <= INDEX_TOKENS, "{tokens} tokens:\n{index}");
        let lines = index.lines().filter(|l| l.starts_with("- ")).count();
        assert!(lines >= 15, "{lines} memories listed");
        assert!(
            index.contains("4999: a long summary"),
            "the newest first:\n{index}"
        );
        assert!(index.contains(&format!("{} older memories", 5_000 - lines)));
        // Each summary is cut at a word's end: "…with 灰度 text a long…", never "…lo…".
        for l in index.lines().filter(|l| l.starts_with("- ")) {
            let summary = l
                .rsplit(" · ")
                .next()
                .unwrap()
                .trim_start_matches("[foreign] ");
            let kept = summary.trim_end_matches('…');
            assert!(summary.chars().count() <= SUMMARY_CHARS, "{l}");
            assert!(
                "a long summary with 灰度 text "
                    .contains(&format!(" {} ", kept.rsplit(' ').next().unwrap())),
                "cut mid-word: {l}"
            );
        }
    }

    #[test]
    fn empty_index() {
        let text = render_index(&[], 0);
        assert!(text.contains("(no memories yet)"));
    }
}
