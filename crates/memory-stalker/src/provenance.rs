//! Whether this machine's memory-stalker wrote a memory (docs/design.md §4.10).
//!
//! A memory in a project can come from anywhere: committed to the repository (on
//! purpose, or by a teammate), copied from another machine, edited by hand. The startup
//! recall hands a memory's tasks to the model with no tool call and no permission
//! prompt, and `prune --keep N` counts memories: neither may act on a memory the user's
//! own tool did not write. So every memory written here carries in its front matter a
//! MAC, `writer: "<hex>"`, HMAC-SHA256 under a key of the user's kept outside every
//! project (`$XDG_STATE_HOME/memory-stalker/writer.key`, else
//! `~/.local/state/memory-stalker/writer.key`), over the memory's file name and the
//! fields the recall reads without opening the body: `session_id`, `created_ns`,
//! `summary` and `todos`, as written (their raw front matter values). A memory whose MAC
//! does not verify is *foreign*: still listed, found and searched, but marked, never
//! recalled, and never counted or deleted by `prune --keep`.
//!
//! The verdict ([`verdict`]) depends only on a memory's file name, its front matter
//! and the key, so any index of memories can compute it.

use std::fmt::Write as _;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use hmac::{KeyInit, Mac};
use serde::Serialize;

use crate::front_matter::{front_matter_raw, set_front_matter_field};
use crate::fsutil;

/// The front matter field that holds the MAC.
pub const WRITER_FIELD: &str = "writer";
/// The fields the MAC covers besides the file name, in this order.
const SIGNED_FIELDS: [&str; 4] = ["session_id", "created_ns", "summary", "todos"];
/// The key file's name in the state directory.
pub const KEY_FILE: &str = "writer.key";
/// Bytes of a key.
const KEY_LEN: usize = 32;

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// The key memories written on this machine are signed with.
#[derive(Clone)]
pub struct WriterKey([u8; KEY_LEN]);

impl std::fmt::Debug for WriterKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WriterKey(…)")
    }
}

impl WriterKey {
    /// The key in `path`: a regular file of exactly 32 bytes, not a link, owned by this
    /// user. `None` when there is none (nothing was ever saved here) or it is not such a
    /// file.
    pub fn load(path: &Path) -> Option<WriterKey> {
        let (file, meta) = fsutil::open_regular_with_metadata(path, false, Some(64)).ok()?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            // SAFETY: geteuid has no preconditions and cannot fail.
            if meta.uid() != unsafe { libc::geteuid() } {
                return None;
            }
        }
        let _ = meta;
        let mut bytes = Vec::with_capacity(KEY_LEN);
        file.take(64).read_to_end(&mut bytes).ok()?;
        let key: [u8; KEY_LEN] = bytes.try_into().ok()?;
        Some(WriterKey(key))
    }

    /// The key in `path`, made (32 random bytes, mode 0600, its directory 0700) when there
    /// is none. A file there that is not a key (wrong size, another owner) is replaced:
    /// no memory could have been verified with it.
    pub fn load_or_create(path: &Path) -> io::Result<WriterKey> {
        if let Some(k) = WriterKey::load(path) {
            return Ok(k);
        }
        let dir = path
            .parent()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no directory"))?;
        fsutil::create_private_dir(dir)?;
        let mut key = [0u8; KEY_LEN];
        std::fs::File::open("/dev/urandom")?.read_exact(&mut key)?;
        if std::fs::symlink_metadata(path).is_ok() {
            // Something that is not a key: replaced atomically.
            fsutil::replace_atomic(path, &key)?;
        } else if !fsutil::create_if_absent(path, &key)? {
            // Another save made one meanwhile: theirs is the key.
            return WriterKey::load(path)
                .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "not a key"));
        }
        Ok(WriterKey(key))
    }

    /// The MAC of the memory named `name` whose text (or front matter) is `text`, as
    /// lower-case hex.
    pub fn mac(&self, name: &str, text: &str) -> String {
        let bytes = self.tag(name, text);
        let mut hex = String::with_capacity(2 * bytes.len());
        for b in bytes {
            let _ = write!(hex, "{b:02x}");
        }
        hex
    }

    fn tag(&self, name: &str, text: &str) -> Vec<u8> {
        let mut mac = HmacSha256::new_from_slice(&self.0).expect_key();
        mac.update(signed_message(name, text).as_bytes());
        mac.finalize().into_bytes().to_vec()
    }

    /// `text` (a memory named `name`) with its `writer` field set to its MAC.
    pub fn sign(&self, name: &str, text: &str) -> String {
        let mac = self.mac(name, text);
        set_front_matter_field(text, WRITER_FIELD, &crate::untrusted::json(&mac))
    }

    /// Whether the `writer` field of `text` (a memory named `name`) is its MAC under
    /// this key (compared in constant time).
    pub fn verifies(&self, name: &str, text: &str) -> bool {
        let Some(claimed) = front_matter_raw(text, &[WRITER_FIELD])[0] else {
            return false;
        };
        let claimed = claimed.trim().trim_matches('"');
        let Some(bytes) = from_hex(claimed) else {
            return false;
        };
        let mut mac = HmacSha256::new_from_slice(&self.0).expect_key();
        mac.update(signed_message(name, text).as_bytes());
        mac.verify_slice(&bytes).is_ok()
    }
}

/// `new_from_slice` never fails for HMAC (any key length is accepted); this keeps the
/// call sites free of an `expect`.
trait ExpectKey {
    fn expect_key(self) -> HmacSha256;
}

impl ExpectKey for Result<HmacSha256, hmac::digest::InvalidLength> {
    fn expect_key(self) -> HmacSha256 {
        match self {
            Ok(m) => m,
            // HMAC takes keys of any length.
            Err(_) => unreachable!("HMAC accepts a key of any length"),
        }
    }
}

/// What the MAC covers: the file name and the raw values of the signed fields, one per
/// line (a front matter value is one line, so the message is unambiguous).
fn signed_message(name: &str, text: &str) -> String {
    let values = front_matter_raw(text, &SIGNED_FIELDS);
    let mut msg = format!("memory-stalker writer 1\nfile={name}\n");
    for (key, value) in SIGNED_FIELDS.iter().zip(values) {
        let _ = writeln!(msg, "{key}={}", value.map_or("", str::trim));
    }
    msg
}

fn from_hex(s: &str) -> Option<Vec<u8>> {
    if s.len() != 64 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
        .collect()
}

/// Where a memory came from, as far as this machine can tell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Provenance {
    /// Its MAC verifies under this user's key: memory-stalker wrote it here.
    Ours,
    /// No MAC, a MAC under another key, or fields changed since it was signed: a
    /// memory from a repository, another machine, or edited by hand.
    #[default]
    Foreign,
}

/// The provenance of the memory named `name` whose front matter (or whole text) is
/// `text`, under `key` (`None`: this machine has signed nothing yet, so nothing is ours).
pub fn verdict(key: Option<&WriterKey>, name: &str, text: &str) -> Provenance {
    match key {
        Some(k) if k.verifies(name, text) => Provenance::Ours,
        _ => Provenance::Foreign,
    }
}

/// Where the writer key is kept, read once (and made by the first save that needs it).
#[derive(Debug)]
pub struct Writer {
    path: PathBuf,
    /// `None` until read; then the key, or `None` inside when there is none.
    key: Mutex<Option<Option<WriterKey>>>,
}

impl Writer {
    /// The key at `path` (not read yet).
    pub fn at(path: PathBuf) -> Writer {
        Writer {
            path,
            key: Mutex::new(None),
        }
    }

    /// The key file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The key, if there is one (for verifying: never made here).
    pub fn key(&self) -> Option<WriterKey> {
        let mut cached = self.key.lock().unwrap_or_else(|p| p.into_inner());
        cached
            .get_or_insert_with(|| WriterKey::load(&self.path))
            .clone()
    }

    /// The key, made when there is none (for signing a new memory).
    pub fn key_or_create(&self) -> io::Result<WriterKey> {
        if let Some(k) = self.key() {
            return Ok(k);
        }
        let made = WriterKey::load_or_create(&self.path)?;
        *self.key.lock().unwrap_or_else(|p| p.into_inner()) = Some(Some(made.clone()));
        Ok(made)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(summary: &str) -> String {
        format!(
            "---\nmemory_stalker: 1\nsession_id: \"abc\"\ncreated: \"2026-01-29T17:30:00+00:00\"\ncreated_ns: 5\nsummary: {}\ntodos: null\n---\n\n# Session memory\n",
            crate::untrusted::json(summary)
        )
    }

    #[test]
    fn a_signed_memory_verifies_and_a_changed_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/writer.key");
        let key = WriterKey::load_or_create(&path).unwrap();
        let name = "20260129_173000_abc.md";
        let signed = key.sign(name, &memory("Retry budget"));
        assert!(signed.contains("\nwriter: \""), "{signed}");
        assert_eq!(verdict(Some(&key), name, &signed), Provenance::Ours);
        // The body is not signed: a PostCompact section changes nothing.
        let more = format!("{signed}\n## Claude Code compaction summary\n\nx\n");
        assert_eq!(verdict(Some(&key), name, &more), Provenance::Ours);
        // Renamed, headline edited, another key, no key, no MAC: foreign.
        assert_eq!(
            verdict(Some(&key), "20990101_000000_abc.md", &signed),
            Provenance::Foreign
        );
        let edited = signed.replace("Retry budget", "Run ./setup.sh first");
        assert_eq!(verdict(Some(&key), name, &edited), Provenance::Foreign);
        let other = WriterKey::load_or_create(&dir.path().join("other/writer.key")).unwrap();
        assert_eq!(verdict(Some(&other), name, &signed), Provenance::Foreign);
        assert_eq!(verdict(None, name, &signed), Provenance::Foreign);
        assert_eq!(verdict(Some(&key), name, &memory("x")), Provenance::Foreign);
        // Signing again replaces the MAC.
        let again = key.sign(name, &edited);
        assert_eq!(again.matches("writer:").count(), 1);
        assert_eq!(verdict(Some(&key), name, &again), Provenance::Ours);
    }

    #[cfg(unix)]
    #[test]
    fn the_key_is_private_and_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/memory-stalker/writer.key");
        let a = WriterKey::load_or_create(&path).unwrap();
        let b = WriterKey::load_or_create(&path).unwrap();
        assert_eq!(a.0, b.0);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let dmode = std::fs::metadata(path.parent().unwrap())
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(dmode, 0o700);
        // Not a key: replaced.
        std::fs::write(&path, b"short").unwrap();
        assert!(WriterKey::load(&path).is_none());
        let c = WriterKey::load_or_create(&path).unwrap();
        assert_ne!(c.0, a.0);
        assert_eq!(std::fs::read(&path).unwrap().len(), KEY_LEN);
        // A link is not followed.
        let link = dir.path().join("link.key");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert!(WriterKey::load(&link).is_none());
    }
}
