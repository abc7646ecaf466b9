//! Fuzzes the transcript reader and everything a memory is made of: the input is a
//! JSONL transcript, read as the hook reads one, extracted, summarised offline,
//! rendered as a memory file and redacted. None of it may panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use memory_stalker::Lang;
use memory_stalker::memory::document::FORMAT_VERSION;
use memory_stalker::memory::{FrontMatter, MemoryDoc};
use memory_stalker::redact::redact;
use memory_stalker::summary::facts::SessionFacts;
use memory_stalker::summary::{HEADLINE_CHARS, OFFLINE_SOURCE, offline};
use memory_stalker::text::one_line;
use memory_stalker::transcript::{ReadOptions, Transcript};

fuzz_target!(|data: &[u8]| {
    // Both ways of reading: redacted or not, whole tool outputs or their heads.
    let options = ReadOptions {
        redact: data.len() % 3 == 0,
        output_heads_only: data.len() % 5 == 0,
        ..ReadOptions::default()
    };
    let Ok(transcript) = Transcript::from_bytes(data, options) else {
        return;
    };
    let extraction = transcript.extraction();
    let conversation = transcript.conversation_text(20_000);
    let prompts = transcript.segment_prompts();

    // As `hook::save::render_memory` does, with both heading languages.
    let lang = if data.len().is_multiple_of(2) {
        Lang::En
    } else {
        Lang::Zh
    };
    let summary = offline::summarize(&transcript, &extraction, lang);
    let facts = SessionFacts::of_segment(&transcript, &extraction, lang);
    let (task_count, tasks_open) = extraction.task_counts();
    let session_id = transcript.session_id().unwrap_or_default();
    let front = FrontMatter {
        format: FORMAT_VERSION,
        session_id,
        created: "2026-01-29T17:30:00+08:00".into(),
        trigger: "auto".into(),
        project: extraction.cwd.clone().unwrap_or_default(),
        transcript: "/tmp/transcript.jsonl".into(),
        task_count,
        tasks_open,
        summary: one_line(&summary.headline, HEADLINE_CHARS),
        summary_source: OFFLINE_SOURCE.into(),
        prompt_id: None,
        lang,
        transcript_bytes: Some(transcript.bytes_read().1),
        todos: Some(extraction.todos.clone()),
    };
    // Transcript text also goes where a hook's own input goes (custom instructions,
    // Claude Code's compaction summary), so those sections are rendered from fuzzed
    // text too.
    let doc = MemoryDoc {
        front,
        extraction: &extraction,
        facts: &facts,
        summary: &summary,
        summary_note: Some("offline summary"),
        custom_instructions: prompts.first().map(String::as_str),
        compaction_summary: Some(conversation.as_str()),
    }
    .render();
    let redacted = redact(&doc);
    // What `list-memories` reads back must be there.
    assert!(
        FrontMatter::parse(&redacted).is_some(),
        "the rendered memory has no front matter"
    );
});
