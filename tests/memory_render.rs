//! Snapshots of rendered memory files (English and Chinese), from the sample session
//! the repository ships, and round trips of what `list-memories` reads back.

use std::path::{Path, PathBuf};

use chrono::DateTime;
use memory_stalker::Config;
use memory_stalker::hook::{SaveRequest, render_memory};
use memory_stalker::memory::Section;
use memory_stalker::memory::document::{FrontMatter, sections};
use memory_stalker::transcript::{ReadOptions, Transcript};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/sample-session.jsonl")
}

fn render(lang: &str, instructions: Option<&str>) -> String {
    let env = [("HOME", "/nonexistent-home"), ("MEMORY_STALKER_LANG", lang)];
    let config = Config::from_lookup(|k| {
        env.iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string())
    });
    let transcript = Transcript::read(&sample(), ReadOptions::default()).unwrap();
    let req = SaveRequest {
        transcript: PathBuf::from(
            "/home/dev/.claude/projects/-home-dev-uploader/7c630e3a-5b1d-4c2e-9f47-2d8a61b0c9e5.jsonl",
        ),
        project: PathBuf::from("/home/dev/uploader"),
        session_id: Some("7c630e3a-5b1d-4c2e-9f47-2d8a61b0c9e5".into()),
        trigger: "manual".into(),
        custom_instructions: instructions.map(str::to_string),
        prompt_id: Some("a1f415a3-0000-4000-8000-000000000001".into()),
    };
    let now = DateTime::parse_from_rfc3339("2026-11-20T15:30:00+01:00").unwrap();
    render_memory(
        &req,
        &config,
        &transcript,
        "7c630e3a-5b1d-4c2e-9f47-2d8a61b0c9e5",
        &now,
        None,
    )
    .text
}

#[test]
fn english_memory_file() {
    insta::assert_snapshot!("memory_en", render("en", Some("keep the API notes")));
}

#[test]
fn chinese_memory_file() {
    insta::assert_snapshot!("memory_zh", render("zh", None));
}

#[test]
fn rendered_memory_reads_back() {
    for lang in ["en", "zh"] {
        let text = render(lang, Some("line one\nline two"));
        let (fm, _) = FrontMatter::parse(&text).unwrap();
        assert_eq!(fm.session_id, "7c630e3a-5b1d-4c2e-9f47-2d8a61b0c9e5");
        assert_eq!((fm.task_count, fm.tasks_open), (4, 2));
        assert_eq!(fm.summary_source, "offline");
        assert_eq!(
            fm.prompt_id.as_deref(),
            Some("a1f415a3-0000-4000-8000-000000000001")
        );
        let found: Vec<_> = sections(&text)
            .into_iter()
            .filter_map(|s| s.section)
            .collect();
        assert_eq!(
            found,
            [
                Section::Metadata,
                Section::LastInteraction,
                Section::Tasks,
                Section::Files,
                Section::LastAction,
                Section::AiSummary
            ],
            "{lang}"
        );
    }
}
