//! The files a Codex `apply_patch` changes (docs/design.md §3.13).
//!
//! A patch is plain text between `*** Begin Patch` and `*** End Patch`; each file it
//! touches has a header line of its own. Only those headers are read: the hunks are the
//! files' contents, which a memory never shows.

/// The headers that name a file the patch changes.
const HEADERS: [&str; 4] = [
    "*** Add File:",
    "*** Update File:",
    "*** Delete File:",
    "*** Move to:",
];

/// Whether `text` holds a patch (a call of `apply_patch`, or a shell command feeding
/// one to it).
pub(super) fn is_patch(text: &str) -> bool {
    text.contains("*** Begin Patch")
}

/// The files `patch` adds, updates, deletes or moves (the source and the destination of
/// a move), in the order the patch names them, each once.
pub(super) fn changed_files(patch: &str) -> Vec<String> {
    files_under(patch, &HEADERS)
}

/// The files `patch` adds (`*** Add File:`), each once.
pub(super) fn added_files(patch: &str) -> Vec<String> {
    files_under(patch, &HEADERS[..1])
}

/// The files named by the `headers` lines of `patch`, in order, each once.
fn files_under(patch: &str, headers: &[&str]) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for line in patch.lines() {
        // Headers start their line; a hunk's lines start with `+`, `-` or a space.
        let line = line.trim_end_matches('\r');
        let Some(path) = headers
            .iter()
            .find_map(|h| line.strip_prefix(h))
            .map(str::trim)
            .filter(|p| !p.is_empty())
        else {
            continue;
        };
        if !files.iter().any(|f| f == path) {
            files.push(path.to_string());
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_header_names_a_file_once() {
        let patch = "*** Begin Patch\n*** Add File: docs/new.md\n+hello\n*** Update File: src/lib.rs\n@@\n-a\n+b\n*** Update File: src/old.rs\n*** Move to: src/new.rs\n@@\n-x\n+y\n*** Delete File: tmp.txt\n*** Update File: src/lib.rs\n@@\n-c\n+d\n*** End Patch\n";
        assert!(is_patch(patch));
        assert_eq!(added_files(patch), ["docs/new.md"]);
        assert_eq!(
            changed_files(patch),
            [
                "docs/new.md",
                "src/lib.rs",
                "src/old.rs",
                "src/new.rs",
                "tmp.txt"
            ]
        );
    }

    #[test]
    fn a_hunk_line_is_not_a_header() {
        let patch = "*** Begin Patch\n*** Add File: a.md\n+*** Add File: not-a-file.md\n*** Update File: b.md\n@@\n *** Delete File: context.md\n*** End Patch";
        assert_eq!(changed_files(patch), ["a.md", "b.md"]);
        assert!(changed_files("no patch here").is_empty());
        assert!(changed_files("*** Add File:   \n").is_empty());
    }
}
