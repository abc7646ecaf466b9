//! The one rule for untrusted text (docs/design.md §8.3) as a property of every answer
//! of the MCP server: hostile values (line breaks of every kind, escape sequences,
//! bidirectional and invisible characters, list and heading marks, a forged
//! "project: … (this one)") in every field a memory, a file name, a path or the model's
//! own arguments give leave each answer with the lines a plain value gives, and nothing
//! a model would read but a person not see.

use std::path::PathBuf;

use memory_stalker::Lang;
use memory_stalker::memory::{MemoryEntry, Section};
use memory_stalker::store::{Found, Listing, ProjectHit, SearchHit, Target};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

use super::*;

const VALUES: usize = 28;

fn hostile() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => "[a-zA-Z ]{0,6}",
        3 => select(vec!["\n", "\r", "\r\n", "\u{2028}", "\u{85}", "\u{b}", "\u{c}"]).prop_map(String::from),
        3 => select(vec![
            "## AI summary", "- ", "- [ ] ", "> ", "1. ", "`", "```", "project: /x (this one)",
            "Read one whole: show_memory(", "\u{1b}[2J", "\u{202e}", "\u{200b}", "\u{e0041}",
            "\u{0}", "\u{7f}", "\u{9b}", "\t",
        ])
        .prop_map(String::from),
        1 => any::<char>().prop_map(String::from),
    ];
    vec(piece, 0..12).prop_map(|v| v.concat())
}

fn plain() -> Vec<String> {
    (0..VALUES).map(|i| format!("zq{i}zq")).collect()
}

fn entry(v: &[String], at: usize) -> MemoryEntry {
    MemoryEntry {
        file: v[at].clone(),
        path: PathBuf::from(format!("/p/{}", v[at + 1])),
        created: v[at + 2].clone(),
        date: v[at + 3].clone(),
        session_id: v[at + 4].clone(),
        session: v[at + 5].clone(),
        trigger: v[at + 6].clone(),
        tasks_total: 3,
        tasks_open: 1,
        summary: v[at + 7].clone(),
        summary_source: v[at + 8].clone(),
        size_bytes: 1_234,
        too_large: false,
        // The first entry Claude Code's, the second Codex's: both renderings checked.
        agent: if at == 0 {
            memory_stalker::Agent::ClaudeCode
        } else {
            memory_stalker::Agent::Codex
        },
        provenance: Default::default(),
        future: false,
        format: 1,
        lang: Lang::En,
        order: Default::default(),
    }
}

fn answers(v: &[String]) -> Vec<(&'static str, String)> {
    let entries = vec![entry(v, 0), entry(v, 9)];
    let here = PathBuf::from(format!("/p/{}", v[18]));
    let other = PathBuf::from(format!("/q/{}", v[19]));
    let hits: Vec<ProjectHit> = entries
        .iter()
        .zip([&here, &other])
        .map(|(e, p)| ProjectHit {
            hit: SearchHit::with_snippet(e.clone(), 2, &v[20]),
            project: p.clone(),
        })
        .collect();
    let all = Listing {
        memories: entries.clone(),
        total: 5,
        skipped: Vec::new(),
    };
    let dir = here.join(".claude/memories");
    let found = Found {
        target: v[21].clone(),
        kind: Target::Session(v[22].clone()),
        matches: entries.clone(),
        skipped: Vec::new(),
    };
    vec![
        ("search", search(&v[23], &hits, (2, true), true, &here)),
        ("nothing matched", nothing_matched(&v[23], &v[24])),
        ("listing", listing(&all, Some(&v[25]), &dir)),
        (
            "memory",
            memory(
                &entries[0],
                Some(Section::Tasks),
                "## Current task list\n\n- [ ] a\n",
            ),
        ),
        ("ambiguous", ambiguous(&v[26], &found)),
        ("not found", not_found(&found, &dir)),
        ("no section", no_section(&entries[1], Section::Plan)),
        ("unknown section", unknown_section(&v[27])),
    ]
}

/// Each line's indent, and for a line that is not indented its first character's
/// class (an indented line shows a value as its content).
fn skeleton(text: &str) -> Vec<String> {
    text.split('\n')
        .map(|l| {
            let t = l.trim_start();
            let indent = l.len() - t.len();
            let class = match t.chars().next() {
                None => "empty",
                Some(_) if indent > 0 => "",
                Some(c) if c.is_ascii_digit() => "digit",
                Some('-' | '*' | '+' | '>' | '#' | '|' | '`') => "mark",
                Some(_) => "text",
            };
            format!("{indent}{class}")
        })
        .collect()
}

fn acted_on(text: &str) -> Option<char> {
    text.chars().find(|c| {
        (c.is_control() && *c != '\n')
            || memory_stalker::untrusted::is_bidi_control(*c)
            || memory_stalker::untrusted::is_invisible(*c)
            || matches!(*c, '\u{2028}' | '\u{2029}')
    })
}

proptest! {
    // Random cases on a developer's machine; one fixed seed under CI unless
    // PROPTEST_RNG_SEED names another, as the library's.
    #![proptest_config(ProptestConfig {
        failure_persistence: None,
        rng_seed: if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
            && std::env::var_os("PROPTEST_RNG_SEED").is_none()
        {
            proptest::test_runner::RngSeed::Fixed(20_261_125)
        } else {
            ProptestConfig::default().rng_seed
        },
        ..ProptestConfig::default()
    })]

    #[test]
    fn no_value_adds_a_line(raw in vec(hostile(), VALUES), first in vec(any::<bool>(), VALUES)) {
        let values: Vec<String> = raw
            .iter()
            .zip(&first)
            .enumerate()
            .map(|(i, (r, f))| if *f { format!("zq{i}zq {r}") } else { format!("{r} zq{i}zq") })
            .collect();
        for ((name, want), (_, got)) in answers(&plain()).iter().zip(answers(&values)) {
            prop_assert_eq!(skeleton(want), skeleton(&got), "{}:\n{}", name, got);
            if let Some(c) = acted_on(&got) {
                prop_assert!(false, "{} holds {:?}:\n{}", name, c, got);
            }
            prop_assert!(got.chars().count() <= MAX_CHARS);
        }
    }
}
