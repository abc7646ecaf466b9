//! The memories of a directory newest first, by the time of writing
//! ([`crate::memory::order::OrderKey`]), each read once and only as far as a caller takes them.
//!
//! Names are sorted by the wall-clock second they hold; a memory's instant lies within
//! a day of it (the key is clamped so), so once every memory whose name could still hold
//! a later instant has been read, the newest of those read is the next one. `latest`
//! over ten thousand memories reads the few named within a day of the newest name.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::files::{MemoryStore, NamedFile};
use crate::memory::entry::MemoryEntry;
use crate::memory::order::OrderKey;

/// Memories read in one go at first; each batch doubles, up to [`MAX_BATCH`], so a whole
/// listing is read in a few batches, each spread over the cores.
const FIRST_BATCH: usize = 16;
const MAX_BATCH: usize = 4_096;

/// A memory read, waiting for its turn.
struct Pending {
    key: OrderKey,
    name: String,
    read: Result<MemoryEntry, String>,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Pending) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Pending {}

impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Pending) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Pending {
    fn cmp(&self, other: &Pending) -> Ordering {
        self.key
            .cmp(&other.key)
            .then_with(|| self.name.cmp(&other.name))
    }
}

/// The memories of a store, newest first: each file name with its listing entry, or why
/// it could not be read.
pub(crate) struct Ordered<'a> {
    store: &'a MemoryStore,
    /// `(second, suffix, name)`, by the second in the name, newest first.
    names: Vec<NamedFile>,
    /// The first name not read yet.
    next: usize,
    read: BinaryHeap<Pending>,
    batch: usize,
}

impl<'a> Ordered<'a> {
    /// The memories named `names` (as [`MemoryStore::memory_names`] gives them).
    pub(crate) fn new(store: &'a MemoryStore, names: Vec<NamedFile>) -> Ordered<'a> {
        Ordered {
            store,
            names,
            next: 0,
            read: BinaryHeap::new(),
            batch: FIRST_BATCH,
        }
    }

    /// The latest instant a memory not read yet can have.
    fn unread_bound(&self) -> Option<i128> {
        let (_, _, name) = self.names.get(self.next)?;
        let (second, _, _) = super::files::parse_file_name(name)?;
        OrderKey::latest_for_name(second)
    }

    /// Reads the next batch of names into the heap.
    fn read_batch(&mut self) {
        let end = self.names.len().min(self.next + self.batch);
        let names: Vec<&str> = self.names[self.next..end]
            .iter()
            .map(|(_, _, n)| n.as_str())
            .collect();
        for (name, read) in names.iter().zip(self.store.read_entries(&names)) {
            let key = match &read {
                Ok(entry) => entry.order.clone(),
                Err(_) => OrderKey::new(name, "", None, None),
            };
            self.read.push(Pending {
                key,
                name: name.to_string(),
                read,
            });
        }
        self.next = end;
        self.batch = (self.batch * 2).min(MAX_BATCH);
    }
}

impl Iterator for Ordered<'_> {
    type Item = (String, Result<MemoryEntry, String>);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let bound = self.unread_bound();
            let ready = match (self.read.peek(), bound) {
                (Some(top), Some(b)) => top.key.instant_ns > b,
                (Some(_), None) => true,
                (None, None) => return None,
                (None, Some(_)) => false,
            };
            if ready {
                return self.read.pop().map(|p| (p.name, p.read));
            }
            self.read_batch();
        }
    }
}
