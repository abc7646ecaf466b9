//! What a command or its output says, read as plain text: whether a shell command runs
//! `git commit`, whether a Codex command was still running when its call returned.
//! Asked of records as they are read, so nothing here knows a record.

/// Whether a shell command runs `git commit` (`git add -A && git commit -m …`, after
/// git's own options: `git -C repo commit …`, `git -c user.name=x commit …`, `git
/// --no-pager commit …`), not a command that only mentions it (`echo "git commit"`
/// still does: what git printed decides).
///
/// Asked of every shell call a transcript holds, as it is read: a command without the
/// word is passed over by one substring search, with no allocation.
pub(crate) fn runs_git_commit(command: &str) -> bool {
    if !command.contains("commit") {
        return false;
    }
    let mut words = command.split_whitespace();
    while let Some(w) = words.next() {
        if w != "git" {
            continue;
        }
        // The subcommand is the first word after git's options; `-C` and `-c` take the
        // word after them.
        let mut after = words.clone();
        while let Some(a) = after.next() {
            match a {
                "-C" | "-c" => {
                    after.next();
                }
                option if option.starts_with('-') => {}
                subcommand => {
                    if subcommand == "commit" {
                        return true;
                    }
                    break;
                }
            }
        }
    }
    false
}

/// The session of a command still running when its call returned: `Process running
/// with session ID N` among the lines before `Output:`.
pub(crate) fn running_session(head: &str) -> Option<u64> {
    head.lines()
        .map(str::trim)
        .take_while(|l| *l != "Output:")
        .find_map(|l| l.strip_prefix("Process running with session ID "))
        .and_then(|n| n.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_command_that_runs_git_commit_counts() {
        assert!(runs_git_commit("git add -A && git commit -m \"x\""));
        assert!(runs_git_commit("git -C ../repo commit --amend --no-edit"));
        // Found by the real Codex CLI's end-to-end test: git's options before the
        // subcommand.
        assert!(runs_git_commit(
            "git -c user.name=Dev -c user.email=dev@example.com commit -m 'x'"
        ));
        assert!(runs_git_commit("git --no-pager commit -m x"));
        assert!(!runs_git_commit("git -c commit.gpgsign=false log"));
        assert!(!runs_git_commit("git log --oneline -5"));
        assert!(!runs_git_commit("git commit-tree abc"));
    }
}
