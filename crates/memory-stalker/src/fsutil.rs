//! Atomic writes and advisory locks.
//!
//! A memory is written to a temporary file in its own directory, synced, and then
//! linked or renamed into place, so a reader sees either nothing or the whole file,
//! never a torn one, and a crash leaves at most a hidden temporary file behind.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Permissions of memory files: they hold conversation text.
#[cfg(unix)]
pub const FILE_MODE: u32 = 0o600;
/// Permissions of directories we create.
#[cfg(unix)]
pub const DIR_MODE: u32 = 0o700;

/// Makes a write over the file-size limit (`ulimit -f`) fail with an error the caller
/// handles (`EFBIG`), instead of killing the process with `SIGXFSZ` and leaving a
/// partial temporary file and no memory anywhere.
pub fn ignore_file_size_signal() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to SIG_IGN installs no handler code; it is
    // done once at start-up, before any thread that could write a file exists.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// Creates `dir` and its parents; the directories we create are private.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(DIR_MODE);
    }
    builder.create(dir)
}

/// Opens `path` for reading only if it is a regular file, and returns it with its size.
///
/// Nothing that names it can make the caller wait or read forever: the open does not
/// block (a FIFO would), and a FIFO, device, socket or directory is refused before
/// anything is read. With `follow` false a symbolic link is refused too (`O_NOFOLLOW`):
/// files under a project's `.claude/memories` come from whatever a cloned repository
/// committed. A file over `max` bytes is refused.
pub fn open_regular(path: &Path, follow: bool, max: Option<u64>) -> io::Result<(File, u64)> {
    open_regular_with_metadata(path, follow, max).map(|(file, meta)| (file, meta.len()))
}

/// [`open_regular`], returning the file's metadata (read from the open file, so no
/// second lookup of the path is needed for its size or modification time).
pub fn open_regular_with_metadata(
    path: &Path,
    follow: bool,
    max: Option<u64>,
) -> io::Result<(File, fs::Metadata)> {
    let mut opts = OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let nofollow = if follow { 0 } else { libc::O_NOFOLLOW };
        opts.custom_flags(libc::O_NONBLOCK | nofollow);
    }
    #[cfg(not(unix))]
    if !follow && fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is a symbolic link",
        ));
    }
    let file = opts.open(path).map_err(|e| {
        // ELOOP is what O_NOFOLLOW gives for a link: say so in words.
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return io::Error::new(io::ErrorKind::InvalidInput, "is a symbolic link");
        }
        e
    })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "is a directory"
        } else {
            "is not a regular file (a FIFO, device or socket)"
        };
        return Err(io::Error::new(io::ErrorKind::InvalidInput, what));
    }
    if let Some(max) = max
        && meta.len() > max
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("is {} bytes, over the limit of {max}", meta.len()),
        ));
    }
    Ok((file, meta))
}

/// Reads a regular file (never a link, FIFO or device) of at most `max` bytes as text;
/// invalid UTF-8 is replaced rather than refused.
pub fn read_regular(path: &Path, max: u64) -> io::Result<String> {
    read_regular_file(path, false, max)
}

/// [`read_regular`], following a symbolic link when `follow` (for files the user names,
/// or Claude Code's own): still a regular file only, opened without blocking, capped.
pub fn read_regular_file(path: &Path, follow: bool, max: u64) -> io::Result<String> {
    use std::io::Read;
    let (file, len) = open_regular(path, follow, Some(max))?;
    let mut bytes = Vec::with_capacity(len as usize);
    // The size can grow after the check: never read past the cap.
    file.take(max).read_to_end(&mut bytes)?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// Creates the directories of `rel` under `base` one by one without following a
/// symbolic link: each that exists must be a real directory. `base` itself is trusted.
///
/// A cloned repository can commit `.claude/memories` as a link to anywhere; following it
/// would put memories, the index and the log wherever it points.
pub fn ensure_dir_no_follow(base: &Path, rel: &Path) -> io::Result<()> {
    walk_no_follow(base, rel, true)
}

/// Whether each directory of `rel` under `base` that exists is a real directory (not a
/// symbolic link); `Ok` also when some do not exist yet.
pub fn check_no_follow(base: &Path, rel: &Path) -> io::Result<()> {
    walk_no_follow(base, rel, false)
}

fn walk_no_follow(base: &Path, rel: &Path, create: bool) -> io::Result<()> {
    let mut path = base.to_path_buf();
    for part in rel.components() {
        path.push(part);
        match fs::symlink_metadata(&path) {
            Ok(_) => check_real_dir(&path)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound && !create => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let mut builder = fs::DirBuilder::new();
                #[cfg(unix)]
                {
                    use std::os::unix::fs::DirBuilderExt;
                    builder.mode(DIR_MODE);
                }
                match builder.create(&path) {
                    Ok(()) => {}
                    // Someone made it meanwhile: whatever it is must pass the check.
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => check_real_dir(&path)?,
                    Err(e) => return Err(e),
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn check_real_dir(path: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(path)?;
    if meta.file_type().is_symlink() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is a symbolic link, which memory-stalker does not follow inside a project (set MEMORY_STALKER_DIR to keep memories elsewhere)",
                path.display()
            ),
        ));
    }
    if !meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a directory", path.display()),
        ));
    }
    Ok(())
}

/// Writes `content` to a new hidden temporary file in `dir`, synced to disk when `sync`.
fn write_temp(dir: &Path, content: &[u8], sync: bool) -> io::Result<PathBuf> {
    let mut attempt = 0u32;
    loop {
        let name = format!(".tmp-{}-{}-{attempt}", std::process::id(), nanos());
        let path = dir.join(name);
        let mut opts = OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(FILE_MODE);
        }
        match opts.open(&path) {
            Ok(mut f) => {
                let mut written = f.write_all(content);
                if sync {
                    written = written.and_then(|()| f.sync_all());
                }
                if let Err(e) = written {
                    let _ = fs::remove_file(&path);
                    return Err(e);
                }
                return Ok(path);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(e),
        }
    }
}

fn nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// Atomically creates a new file under the first name from `names` that does not
/// exist yet, and returns its path. Never replaces an existing file.
pub fn create_new_atomic(
    dir: &Path,
    names: impl IntoIterator<Item = String>,
    content: &[u8],
) -> io::Result<PathBuf> {
    let tmp = write_temp(dir, content, true)?;
    let result = (|| {
        for name in names {
            let target = dir.join(&name);
            // A hard link fails if the target exists, which makes "create if absent"
            // atomic even when two hooks race for the same name.
            match fs::hard_link(&tmp, &target) {
                Ok(()) => return Ok(target),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(_) if !target.exists() => {
                    // File systems without hard links: rename, after checking.
                    fs::rename(&tmp, &target)?;
                    return Ok(target);
                }
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "every candidate name is taken",
        ))
    })();
    let _ = fs::remove_file(&tmp);
    if result.is_ok() {
        sync_dir(dir);
    }
    result
}

/// [`create_new_atomic`], with a content made for each name tried (a memory's MAC covers
/// its file name): a name already taken is passed over before anything is written for
/// it, and one taken between that look and the link costs a second temporary file.
pub fn create_new_atomic_with(
    dir: &Path,
    names: impl IntoIterator<Item = String>,
    content: impl Fn(&str) -> String,
) -> io::Result<PathBuf> {
    for name in names {
        let target = dir.join(&name);
        if fs::symlink_metadata(&target).is_ok() {
            continue;
        }
        match create_new_atomic(dir, [name.clone()], content(&name).as_bytes()) {
            Ok(p) => return Ok(p),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "every candidate name is taken",
    ))
}

/// Atomically creates `path` with `content` unless something (a file, a link, anything)
/// already has that name; returns whether it created the file.
pub fn create_if_absent(path: &Path, content: &[u8]) -> io::Result<bool> {
    // A cheap check first: the file is there on every save but the first.
    if fs::symlink_metadata(path).is_ok() {
        return Ok(false);
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?
        .to_string_lossy()
        .into_owned();
    match create_new_atomic(dir, [name], content) {
        Ok(_) => Ok(true),
        // Someone else created it between the check and the link: theirs stands.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

/// Atomically replaces `path` with `content`, keeping it private, and waits until it
/// is on disk.
pub fn replace_atomic(path: &Path, content: &[u8]) -> io::Result<()> {
    replace(path, content, true)
}

/// Atomically replaces `path` with `content` without waiting for the disk: for files
/// rebuilt from others (`INDEX.md`, the list of projects). Readers still see the old
/// file or the new one, never a mix; a power cut may lose the change, which the next
/// save makes again. Each wait for the disk costs a hook milliseconds.
pub fn replace_derived(path: &Path, content: &[u8]) -> io::Result<()> {
    replace(path, content, false)
}

fn replace(path: &Path, content: &[u8], sync: bool) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = write_temp(dir, content, sync)?;
    if let Err(e) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    if sync {
        sync_dir(dir);
    }
    Ok(())
}

fn sync_dir(dir: &Path) {
    // Makes the new directory entry durable; not every platform allows it.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// An exclusive advisory lock, released when dropped.
pub struct Lock(File);

impl Lock {
    /// Blocks until the lock file at `path` is held exclusively.
    ///
    /// Neither the lock's directory nor the lock file may be a symbolic link: a link
    /// committed in a repository would otherwise create files wherever it points.
    pub fn acquire(path: &Path) -> io::Result<Lock> {
        if let (Some(parent), Some(name)) = (
            path.parent().and_then(Path::parent),
            path.parent().and_then(Path::file_name),
        ) {
            ensure_dir_no_follow(parent, Path::new(name))?;
        }
        let mut opts = OpenOptions::new();
        opts.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(FILE_MODE);
            opts.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
        }
        let file = opts.open(path)?;
        file.lock()?;
        Ok(Lock(file))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

/// Removes the entries of `dir` last modified more than `age` ago (a session's note or
/// record nobody will read again); what cannot be read or removed is left.
pub fn remove_older_than(dir: &Path, age: std::time::Duration) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = std::time::SystemTime::now();
    for e in entries.flatten() {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|a| a > age);
        if old {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_new_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let names = || ["a.md".to_string(), "a_2.md".to_string()];
        let first = create_new_atomic(dir.path(), names(), b"one").unwrap();
        let second = create_new_atomic(dir.path(), names(), b"two").unwrap();
        assert_eq!(first.file_name().unwrap(), "a.md");
        assert_eq!(second.file_name().unwrap(), "a_2.md");
        assert_eq!(fs::read(&first).unwrap(), b"one");
        let err = create_new_atomic(dir.path(), names(), b"three").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        // No temporary files are left behind, whatever happened.
        let left: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(left.len(), 2);
    }

    #[test]
    fn create_if_absent_never_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".gitignore");
        assert!(create_if_absent(&path, b"*\n").unwrap());
        assert!(!create_if_absent(&path, b"other\n").unwrap());
        assert_eq!(fs::read(&path).unwrap(), b"*\n");
        let left: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(left.len(), 1, "no temporary file left");
    }

    #[cfg(unix)]
    #[test]
    fn files_and_dirs_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("x/y");
        create_private_dir(&sub).unwrap();
        assert_eq!(
            fs::metadata(&sub).unwrap().permissions().mode() & 0o777,
            0o700
        );
        let f = create_new_atomic(&sub, ["m.md".to_string()], b"x").unwrap();
        assert_eq!(
            fs::metadata(&f).unwrap().permissions().mode() & 0o777,
            0o600
        );
        replace_atomic(&f, b"y").unwrap();
        assert_eq!(fs::read(&f).unwrap(), b"y");
        assert_eq!(
            fs::metadata(&f).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }

    #[test]
    fn lock_serialises_holders() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.lock");
        let counter = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let path = path.clone();
                let counter = counter.clone();
                std::thread::spawn(move || {
                    let _l = Lock::acquire(&path).unwrap();
                    counter.lock().unwrap().push((i, "in"));
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    counter.lock().unwrap().push((i, "out"));
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        let events = counter.lock().unwrap();
        for pair in events.chunks(2) {
            assert_eq!(pair[0].0, pair[1].0, "no interleaving: {events:?}");
        }
    }
}
