//! The files a Codex shell command clearly reads or writes (docs/design.md §3.12).
//!
//! Codex works through a shell (`exec_command`), so a memory that only counted
//! `apply_patch` would miss most of the files a session read. The rules are deliberately
//! narrow: a file is named only when the command leaves no doubt, and anything this
//! reader does not understand names nothing.
//!
//! - read: the file arguments of `cat`, `nl`, `head`, `tail`, `sed -n`; the files given
//!   to `rg`/`grep` (after the pattern) when they look like files (a name with an
//!   extension: `src/main.rs`, not `src`); the file of an input redirect (`< f`);
//! - modified: the files of `sed -i`; the target of an output redirect (`> f`, `>> f`,
//!   `&> f`, not `2> f` and not `/dev/…`); the files of `tee`;
//! - a word with a variable, a command substitution, a glob or a `~` is never a path;
//!   `cd DIR` makes later relative paths of the same command relative to DIR;
//!   a here-document's body is skipped.

/// Files a command reads and modifies, in the order it names them.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct ShellFiles {
    pub read: Vec<String>,
    pub modified: Vec<String>,
}

/// A word of the command, quotes removed; `literal` is false when the shell would
/// expand it (a variable, a substitution, a glob, a leading `~`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Word {
    text: String,
    literal: bool,
}

/// A token: a word, or an operator (`;`, `&&`, `|`, `>`, `2>`, `<<`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(Word),
    Op(String),
}

/// The files `cmd` (a shell script, as Codex runs it with `bash -lc`) reads and
/// modifies; relative paths are taken from `workdir` when it is given.
pub(super) fn files(cmd: &str, workdir: Option<&str>) -> ShellFiles {
    let mut out = ShellFiles::default();
    // Where relative paths are: `None` once a `cd` went somewhere this reader cannot
    // follow.
    let mut dir: Option<String> = Some(workdir.unwrap_or("").to_string());
    for simple in split_commands(&lex(cmd)) {
        judge(&simple, &mut dir, &mut out);
    }
    out
}

/// One simple command: its words, and its redirects (operator, target).
#[derive(Debug, Default)]
struct Simple {
    words: Vec<Word>,
    redirects: Vec<(String, Word)>,
}

fn split_commands(tokens: &[Token]) -> Vec<Simple> {
    let mut out = Vec::new();
    let mut cur = Simple::default();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Word(w) => cur.words.push(w.clone()),
            Token::Op(op) if is_redirect(op) => {
                if let Some(Token::Word(target)) = tokens.get(i + 1) {
                    cur.redirects.push((op.clone(), target.clone()));
                    i += 1;
                }
            }
            Token::Op(_) => out.push(std::mem::take(&mut cur)),
        }
        i += 1;
    }
    out.push(cur);
    out.retain(|s| !s.words.is_empty() || !s.redirects.is_empty());
    out
}

fn is_redirect(op: &str) -> bool {
    op.contains('>') || op.contains('<')
}

/// Adds what one simple command reads and modifies to `out`.
fn judge(cmd: &Simple, dir: &mut Option<String>, out: &mut ShellFiles) {
    let path = |w: &Word, dir: &Option<String>| -> Option<String> {
        if !w.literal || w.text.is_empty() || w.text == "-" {
            return None;
        }
        resolve(&w.text, dir.as_deref())
    };
    for (op, target) in &cmd.redirects {
        let Some(p) = path(target, dir) else { continue };
        if p.starts_with("/dev/") || target.text.starts_with('&') {
            continue;
        }
        match op.as_str() {
            "<" => push(&mut out.read, p),
            ">" | ">>" | ">|" | "1>" | "1>>" | "&>" | "&>>" => push(&mut out.modified, p),
            _ => {}
        }
    }
    // Variable assignments before the program (`LC_ALL=C sed …`) are not the program.
    let words: Vec<&Word> = cmd
        .words
        .iter()
        .skip_while(|w| is_assignment(&w.text))
        .collect();
    let Some(program) = words.first() else {
        return;
    };
    if !program.literal {
        return;
    }
    let name = program.text.rsplit('/').next().unwrap_or("");
    let args = &words[1..];
    match name {
        "cd" => {
            *dir = match args.first() {
                Some(w) if w.literal && w.text != "-" => resolve(&w.text, dir.as_deref()),
                _ => None,
            };
        }
        "cat" | "nl" => {
            for a in args.iter().filter(|a| !a.text.starts_with('-')) {
                if let Some(p) = path(a, dir) {
                    push(&mut out.read, p);
                }
            }
        }
        "head" | "tail" => {
            for a in operands(args, &["-n", "-c", "--lines", "--bytes"], &[]) {
                if let Some(p) = path(a, dir) {
                    push(&mut out.read, p);
                }
            }
        }
        "tee" => {
            for a in args.iter().filter(|a| !a.text.starts_with('-')) {
                if let Some(p) = path(a, dir) {
                    push(&mut out.modified, p);
                }
            }
        }
        "sed" => {
            let Some(sed) = sed(args) else { return };
            let list = if sed.in_place {
                &mut out.modified
            } else if sed.quiet {
                &mut out.read
            } else {
                return;
            };
            for a in sed.files {
                if let Some(p) = path(a, dir) {
                    push(list, p);
                }
            }
        }
        "grep" | "egrep" | "fgrep" | "rg" => {
            let values: &[&str] = if name == "rg" {
                &[
                    "-e", "-f", "-A", "-B", "-C", "-m", "-g", "-t", "-T", "-M", "-j", "-r", "-E",
                ]
            } else {
                &["-e", "-f", "-A", "-B", "-C", "-m", "-d", "-D"]
            };
            let long = [
                "--regexp",
                "--file",
                "--glob",
                "--iglob",
                "--type",
                "--type-not",
                "--max-count",
                "--context",
                "--after-context",
                "--before-context",
                "--max-depth",
                "--replace",
                "--encoding",
                "--color",
                "--colors",
                "--sort",
                "--sortr",
                "--threads",
            ];
            let pattern_given = args.iter().any(|a| {
                matches!(a.text.as_str(), "-e" | "-f" | "--regexp" | "--file")
                    || a.text.starts_with("--regexp=")
                    || a.text.starts_with("--file=")
            });
            let rest = operands(args, values, &long);
            for a in rest.into_iter().skip(usize::from(!pattern_given)) {
                if looks_like_file(&a.text)
                    && let Some(p) = path(a, dir)
                {
                    push(&mut out.read, p);
                }
            }
        }
        _ => {}
    }
}

/// What a `sed` command does to which files.
struct Sed<'a> {
    quiet: bool,
    in_place: bool,
    files: Vec<&'a Word>,
}

/// Reads `sed`'s arguments; `None` when an option is not one this reader knows.
fn sed<'a>(args: &[&'a Word]) -> Option<Sed<'a>> {
    let mut sed = Sed {
        quiet: false,
        in_place: false,
        files: Vec::new(),
    };
    let mut script_given = false;
    let mut operands: Vec<&Word> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i].text;
        i += 1;
        if a == "--" {
            operands.extend(&args[i..]);
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            match long.split('=').next().unwrap_or("") {
                "quiet" | "silent" => sed.quiet = true,
                "in-place" => sed.in_place = true,
                "expression" | "file" => {
                    script_given = true;
                    if !long.contains('=') {
                        i += 1;
                    }
                }
                "regexp-extended" | "separate" | "unbuffered" | "null-data" | "posix" | "debug"
                | "sandbox" => {}
                _ => return None,
            }
            continue;
        }
        let Some(flags) = a.strip_prefix('-').filter(|f| !f.is_empty()) else {
            operands.push(args[i - 1]);
            continue;
        };
        for (at, c) in flags.char_indices() {
            match c {
                'n' => sed.quiet = true,
                'E' | 'r' | 's' | 'u' | 'z' => {}
                // The rest of the cluster is a backup suffix.
                'i' => {
                    sed.in_place = true;
                    break;
                }
                'e' | 'f' => {
                    script_given = true;
                    // The value is the rest of the cluster, else the next word.
                    if at + 1 == flags.len() {
                        i += 1;
                    }
                    break;
                }
                _ => return None,
            }
        }
    }
    sed.files = operands
        .into_iter()
        .skip(usize::from(!script_given))
        .collect();
    Some(sed)
}

/// The operands among `args`: options (and the values of those in `short` and `long`)
/// left out; everything after `--` is an operand.
fn operands<'a>(args: &[&'a Word], short: &[&str], long: &[&str]) -> Vec<&'a Word> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].text.as_str();
        i += 1;
        if a == "--" {
            out.extend(&args[i..]);
            break;
        }
        if a.starts_with("--") {
            if !a.contains('=') && long.contains(&a) {
                i += 1;
            }
            continue;
        }
        if a.starts_with('-') && a.len() > 1 {
            // `-n 20` takes the next word; `-n20`, `-20` and clusters do not.
            if short.contains(&a) {
                i += 1;
            }
            continue;
        }
        out.push(args[i - 1]);
    }
    out
}

/// Whether a search operand names a file rather than a directory: a last component
/// with an extension (`src/main.rs`, `README.md`), not `src`, `.` or `..`.
fn looks_like_file(p: &str) -> bool {
    if p.ends_with('/') {
        return false;
    }
    let last = p.rsplit('/').next().unwrap_or(p);
    last.char_indices()
        .any(|(i, c)| c == '.' && i > 0 && i + 1 < last.len())
}

fn is_assignment(w: &str) -> bool {
    let Some((name, _)) = w.split_once('=') else {
        return false;
    };
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
}

/// `p` joined to `dir` when relative (and `dir` is known and not empty), `./` dropped.
fn resolve(p: &str, dir: Option<&str>) -> Option<String> {
    let p = p.strip_prefix("./").unwrap_or(p);
    if p.starts_with('/') {
        return Some(p.to_string());
    }
    match dir {
        None => None,
        Some("") => Some(p.to_string()),
        Some(d) => Some(format!("{}/{p}", d.trim_end_matches('/'))),
    }
}

fn push(list: &mut Vec<String>, p: String) {
    if !list.contains(&p) {
        list.push(p);
    }
}

/// Splits a shell script into words and operators, as far as this reader needs:
/// quotes and escapes are undone, a word the shell would expand is marked, and the
/// body of a here-document is skipped.
fn lex(s: &str) -> Vec<Token> {
    let chars: Vec<char> = s.chars().collect();
    let mut tokens = Vec::new();
    // Delimiters of the here-documents whose bodies start at the next line.
    let mut heredocs: Vec<String> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\r' => i += 1,
            '\n' => {
                tokens.push(Token::Op("\n".into()));
                i += 1;
                for delim in std::mem::take(&mut heredocs) {
                    // Skip lines up to the delimiter's own line.
                    loop {
                        let end = chars[i..]
                            .iter()
                            .position(|c| *c == '\n')
                            .map_or(chars.len(), |p| i + p);
                        let line: String = chars[i..end].iter().collect();
                        i = (end + 1).min(chars.len());
                        if line.trim() == delim || end >= chars.len() {
                            break;
                        }
                    }
                }
            }
            '#' => {
                // At the start of a word: a comment, to the end of the line.
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ';' | '&' | '|' | '<' | '>' | '(' | ')' => {
                let op = operator(&chars, i, "");
                i += op.chars().count();
                if op == "<<" || op == "<<-" {
                    // The delimiter word follows; its body starts at the next line.
                    let (word, next) = word(&chars, skip_blanks(&chars, i));
                    i = next;
                    heredocs.push(word.text);
                }
                tokens.push(Token::Op(op));
            }
            '0'..='9'
                if {
                    let digits = chars[i..].iter().take_while(|c| c.is_ascii_digit()).count();
                    matches!(chars.get(i + digits), Some('>' | '<'))
                } =>
            {
                let digits: String = chars[i..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .collect();
                let op = operator(&chars, i + digits.len(), &digits);
                i += op.chars().count();
                tokens.push(Token::Op(op));
            }
            _ => {
                let (w, next) = word(&chars, i);
                i = next;
                tokens.push(Token::Word(w));
            }
        }
    }
    tokens
}

fn skip_blanks(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && matches!(chars[i], ' ' | '\t') {
        i += 1;
    }
    i
}

/// The operator starting at `i` (after an fd number `prefix`), longest first.
fn operator(chars: &[char], i: usize, prefix: &str) -> String {
    const OPS: [&str; 15] = [
        "<<<", "<<-", "&>>", "&&", "||", ";;", ">>", ">|", ">&", "<<", "&>", "<&", "<>", ";", "|",
    ];
    let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
    let op = OPS
        .iter()
        .find(|op| rest.starts_with(**op))
        .map_or_else(|| rest.chars().take(1).collect(), |op| (*op).to_string());
    format!("{prefix}{op}")
}

/// The word starting at `i` and where it ends.
fn word(chars: &[char], mut i: usize) -> (Word, usize) {
    let mut text = String::new();
    let mut literal = true;
    let start = i;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')' => break,
            '\\' => {
                match chars.get(i + 1) {
                    Some('\n') => {}
                    Some(n) => text.push(*n),
                    None => {}
                }
                i += 2;
            }
            '\'' => {
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    text.push(chars[i]);
                    i += 1;
                }
                i += 1;
            }
            '"' => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    match chars[i] {
                        '\\' if matches!(chars.get(i + 1), Some('"' | '\\' | '$' | '`')) => {
                            text.push(chars[i + 1]);
                            i += 2;
                            continue;
                        }
                        '$' | '`' => literal = false,
                        _ => {}
                    }
                    text.push(chars[i]);
                    i += 1;
                }
                i += 1;
            }
            '$' | '`' | '*' | '?' | '[' | '{' => {
                literal = false;
                text.push(c);
                i += 1;
            }
            '~' if i == start => {
                literal = false;
                text.push(c);
                i += 1;
            }
            _ => {
                text.push(c);
                i += 1;
            }
        }
    }
    (Word { text, literal }, i.min(chars.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(cmd: &str) -> (Vec<String>, Vec<String>) {
        let f = files(cmd, None);
        (f.read, f.modified)
    }

    fn read(cmd: &str) -> Vec<String> {
        of(cmd).0
    }

    fn modified(cmd: &str) -> Vec<String> {
        of(cmd).1
    }

    #[test]
    fn reading_commands_name_their_files() {
        assert_eq!(read("cat src/lib.rs"), ["src/lib.rs"]);
        assert_eq!(read("cat -n a.rs b.rs"), ["a.rs", "b.rs"]);
        assert_eq!(read("nl -ba src/main.rs | sed -n '1,40p'"), ["src/main.rs"]);
        assert_eq!(
            read("sed -n '120,200p' crates/x/src/y.rs"),
            ["crates/x/src/y.rs"]
        );
        assert_eq!(read("sed -n -e 5p README.md"), ["README.md"]);
        assert_eq!(read("head -n 20 Cargo.toml"), ["Cargo.toml"]);
        assert_eq!(read("tail -50 log.txt"), ["log.txt"]);
        assert_eq!(read("head -c20 a.bin"), ["a.bin"]);
        assert_eq!(read("rg -n 'fn main' src/main.rs"), ["src/main.rs"]);
        assert_eq!(
            read("grep -rn TODO src/lib.rs docs/design.md"),
            ["src/lib.rs", "docs/design.md"]
        );
        assert_eq!(read("rg -e foo -e bar src/a.rs"), ["src/a.rs"]);
        assert_eq!(read("wc -l < input.txt"), ["input.txt"]);
    }

    #[test]
    fn searches_of_directories_and_plain_sed_name_nothing() {
        assert!(read("rg -n foo src").is_empty());
        assert!(read("grep -rn foo .").is_empty());
        assert!(read("rg --files").is_empty());
        assert!(read("rg foo").is_empty(), "the pattern is not a path");
        assert!(
            read("grep -A 3 foo.bar").is_empty(),
            "a pattern that looks like a file"
        );
        assert!(
            read("sed 's/a/b/' x.txt").is_empty(),
            "sed without -n or -i"
        );
        assert!(read("ls -la src").is_empty());
        assert!(read("cargo test").is_empty());
        assert!(read("cat").is_empty());
    }

    #[test]
    fn edits_name_their_files() {
        assert_eq!(modified("sed -i 's/a/b/' src/x.rs"), ["src/x.rs"]);
        assert_eq!(
            modified("sed -i.bak -e 's/a/b/' a.txt b.txt"),
            ["a.txt", "b.txt"]
        );
        assert_eq!(modified("echo hi > notes.md"), ["notes.md"]);
        assert_eq!(
            modified("printf 'x' >> log/out.txt 2> err.txt"),
            ["log/out.txt"]
        );
        assert_eq!(modified("cargo test &> test.log"), ["test.log"]);
        assert_eq!(modified("echo x | tee -a a.txt b.txt"), ["a.txt", "b.txt"]);
        assert!(modified("cargo build 2>/dev/null > /dev/null").is_empty());
        assert!(modified("echo x >&2").is_empty());
        assert!(
            modified("sed --in-place=.orig 1d").is_empty(),
            "the script, no file"
        );
    }

    #[test]
    fn a_here_document_writes_its_target_and_its_body_is_not_read() {
        let cmd =
            "cat > notes.md <<'EOF'\n# Notes\ncat secret.txt > other.md\nEOF\nhead -5 notes.md";
        assert_eq!(
            of(cmd),
            (vec!["notes.md".to_string()], vec!["notes.md".to_string()])
        );
    }

    #[test]
    fn expansions_are_never_paths() {
        assert!(read("cat $FILE").is_empty());
        assert!(read("cat \"$HOME/x.txt\"").is_empty());
        assert!(read("cat src/*.rs").is_empty());
        assert!(read("cat ~/x.txt").is_empty());
        assert!(modified("echo x > $(mktemp)").is_empty());
        assert_eq!(
            read("cat 'a b.txt' \"c d.txt\" e\\ f.txt"),
            ["a b.txt", "c d.txt", "e f.txt"]
        );
    }

    #[test]
    fn cd_moves_later_relative_paths() {
        let f = files(
            "cd crates/core && sed -n 1,20p src/lib.rs; cat /etc/hosts",
            Some("/repo"),
        );
        assert_eq!(f.read, ["/repo/crates/core/src/lib.rs", "/etc/hosts"]);
        let f = files("cd \"$DIR\" && cat a.txt", Some("/repo"));
        assert!(f.read.is_empty(), "after a cd it cannot follow: {f:?}");
        assert_eq!(files("cat ./a.txt", Some("/w")).read, ["/w/a.txt"]);
    }

    #[test]
    fn unknown_options_and_assignments() {
        assert_eq!(read("LC_ALL=C sed -n 1p a.txt"), ["a.txt"]);
        assert!(
            read("sed -x 1p a.txt").is_empty(),
            "an option sed has not: nothing"
        );
        assert_eq!(read("# a comment\ncat a.txt # cat b.txt"), ["a.txt"]);
    }
}
