//! Failures the user reported: output the user pasted into a prompt ("> vue-tsc -b &&
//! vite build ⏎ src/components/Layout.vue:86:67 - error TS2305: Module … has no exported
//! member 'LocationOutlined'") whose error names a file Claude changed earlier in the
//! segment, in its line or the five lines on either side. Claude's change failed where
//! the user ran it, outside the session's own calls, so no failed run records it; the
//! model after a compaction must not write the same thing again.
//!
//! A paste that answers a refused call is that refusal's reason ([`super::Refusal`])
//! and is said there. Typed words alone ("fix the error handling in app.rs") are no
//! report: the prompt must hold more than one line, as pasted output does.

use serde::{Deserialize, Serialize};

use super::{Source, View};
use crate::transcript::extract::{is_scratch, project_relative};
use crate::transcript::outcome::named_error_near;
use crate::transcript::record::Entry;

/// A failure the user pasted after Claude changed a file it names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reported {
    /// The file Claude changed that the output names, relative to the project.
    pub file: String,
    /// The output's most telling error line.
    pub error: String,
    /// The prompt's record.
    pub source: Source,
}

pub(super) fn find(view: &View) -> Vec<Reported> {
    // Files changed so far (newest last), and whether the last thing that happened was
    // a refusal that the next prompt answers.
    // Each file changed so far by its name, with when it last was: a prompt names a
    // file by its name, and the most recently changed of that name is the one meant.
    let mut changed: std::collections::HashMap<&str, (usize, &str)> = Default::default();
    let mut changes = 0usize;
    let mut refused_at: Option<usize> = None;
    let mut calls = view.calls().peekable();
    let mut out: Vec<Reported> = Vec::new();
    for (at, prompt) in view.prompts.iter().filter(|(i, _)| *i >= view.start) {
        while let Some(c) = calls.next_if(|c| c.at < *at) {
            if c.succeeded() {
                for path in c.call.detail.modified().iter().map(String::as_str) {
                    let name = file_name(path);
                    if is_file_name(name) && !is_scratch(path) {
                        changes += 1;
                        changed.insert(name, (changes, path));
                    }
                }
            }
            match c.result {
                Some((r, result, _)) if result.rejected => refused_at = Some(r),
                Some(_) => refused_at = None,
                None => {}
            }
        }
        let answers_a_refusal = refused_at.is_some_and(|r| r < *at && !said_between(view, r, *at));
        refused_at = None;
        if answers_a_refusal || prompt.lines().filter(|l| !l.trim().is_empty()).count() < 2 {
            continue;
        }
        // pytest's `E               AssertionError: …` keeps one space.
        let Some((error, near)) = named_error_near(prompt) else {
            continue;
        };
        let error = error.split_whitespace().collect::<Vec<_>>().join(" ");
        // The file is named by the error or the lines around it: a long paste (a
        // document, a config) that names a changed file somewhere and says "failed"
        // elsewhere reports nothing about that file.
        let Some(&(_, file)) = file_names(&near)
            .iter()
            .filter_map(|name| changed.get(name))
            .max()
        else {
            continue;
        };
        let file = project_relative(file, view.cwd());
        if out.iter().any(|o| o.file == file && o.error == error) {
            continue;
        }
        out.push(Reported {
            file,
            error,
            source: Source::of("pasted", &view.all()[*at]),
        });
    }
    out
}

/// Whether Claude said or did anything between records `from` and `to`: a prompt
/// right after a refusal, with nothing between, answers it.
fn said_between(view: &View, from: usize, to: usize) -> bool {
    view.all()[from + 1..to]
        .iter()
        .any(|r| !r.meta.sidechain && matches!(r.entry, Entry::Assistant(_)))
}

/// The file names `text` holds as words of their own (`src/components/Layout.vue:86:67`
/// gives `Layout.vue`, `(imported by src/views/AreaManagement.vue)` gives
/// `AreaManagement.vue`; `MyLayout.vue` and `Layout.vue.bak` are other names): one pass
/// over a paste that may be megabytes long, whatever the number of files changed.
fn file_names(text: &str) -> std::collections::HashSet<&str> {
    let part = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '\\');
    text.split(|c: char| !part(c))
        .filter_map(|w| w.rsplit(['/', '\\']).next())
        // A sentence's full stop may follow the name.
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| is_file_name(w))
        .collect()
}

/// Whether a name is specific enough to stand for a file: it has an extension and four
/// characters at least (`Makefile` or `src` could be any word).
fn is_file_name(name: &str) -> bool {
    name.chars().count() >= 4 && name.contains('.') && !name.starts_with('.')
}

/// Whether a path's file name is among `names`.
/// The file name of `path` (its last part).
fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

#[cfg(test)]
fn names(names: &std::collections::HashSet<&str>, path: &str) -> bool {
    let name = file_name(path);
    is_file_name(name) && names.contains(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_named_by_its_whole_file_name() {
        let named = |text: &str, path: &str| names(&file_names(text), path);
        let out = "src/components/Layout.vue:86:67 - error TS2305: no member";
        assert!(named(out, "/p/src/components/Layout.vue"));
        assert!(named(
            "(imported by src/views/AreaManagement.vue): ENOENT",
            "/p/src/views/AreaManagement.vue"
        ));
        assert!(named("failed in Layout.vue.", "/p/Layout.vue"));
        assert!(named(r"at C:\app\Main.cs:line 3", r"C:\app\Main.cs"));
        assert!(!named("src/MyLayout.vue:1 error", "/p/Layout.vue"));
        assert!(!named("Layout.vue.bak: error", "/p/Layout.vue"));
        assert!(!named("error in src: bad", "/p/src"));
        assert!(!named("Makefile:3: error", "/p/Makefile"));
    }
}
