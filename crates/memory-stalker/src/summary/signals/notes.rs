//! Notes the user saved to Claude's memory with `#` (`<user-memory-input>`): rules they
//! meant to last ("When committing to git, never add Claude as co-author").

use serde::{Deserialize, Serialize};

use super::{Source, View};
use crate::text::one_line;
use crate::transcript::prompt::tag;

/// Longest note kept.
const CHARS: usize = 300;

/// One `#` note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryNote {
    /// What the user wrote.
    pub text: String,
    /// Its record.
    pub source: Source,
}

pub(super) fn find(view: &View) -> Vec<MemoryNote> {
    view.users()
        .filter_map(|(_, record, u)| {
            let text = u.text.trim_start();
            if !text.starts_with("<user-memory-input>") {
                return None;
            }
            let note = tag(text, "user-memory-input")?.trim();
            (!note.is_empty()).then(|| MemoryNote {
                text: one_line(note, CHARS),
                source: Source::of("#", record),
            })
        })
        .collect()
}
