//! The real `list-memories` binary on temporary projects holding many memories: English
//! and Chinese ones, memories of the original design (no front matter), corrupt files,
//! files that are not memories, and names with collision suffixes.

use crate::support;

use std::fs;

use serde_json::Value;
use support::{Sandbox, text, write_memory as memory};

const BIN: &str = env!("CARGO_BIN_EXE_list-memories");

const EN_BODY: &str = "# Session memory — 2026-01-29 17:30:00 +08:00\n\n## Metadata\n\n- Session ID: `x`\n\n## Last complete interaction\n\n### User input\n\n```text\nAdd a retry budget to the uploader.\n```\n\n## Current task list\n\n- [x] Add RetryBudget type\n- [ ] **in progress**: Add retry tests\n\n## Files\n\n### Modified\n\n(none)\n\n## Last action\n\n(none)\n\n---\n\n## AI summary\n\n### Task summary\n\n- Added the retry budget; the budget caps retries at 10 per upload.\n";

const ZH_BODY: &str = "# 会话记忆 — 2026-01-30 09:15:00 +08:00\n\n## 元数据\n\n- Session ID: `y`\n\n## 最后一轮完整交互\n\n### 用户输入\n\n```text\n首页和登录页需要加一个灰度区域管理，café 也要支持。\n```\n\n## 当前任务列表\n\n- [x] 在首页添加灰度区域管理功能卡片\n- [ ] 检查登录页\n\n---\n\n## AI 生成摘要\n\n### 任务摘要\n\n- 添加了灰度区域管理；灰度区域管理需要测试。\n";

/// The original design's format: no front matter.
const LEGACY: &str = "# 会话记忆 - 2026-01-28 10:00:00\n\n## 元数据\n- Session ID: ab12cd34-0000-4000-8000-000000000000\n- 项目路径: /data/old\n- 生成时间: 2026-01-28 10:00:00\n- 触发方式: manual\n\n## 最后一轮完整交互\n\n### 用户输入\n```\n旧的请求\n```\n\n## 当前任务列表\n- [x] 完成旧任务\n- [ ] **进行中**: 写文档\n- [ ] 发布\n\n---\n\n## AI 生成摘要\n\n### 任务摘要\n- 完成了旧版本的功能开发\n- 实现了模块\n";

/// A project with seven memories and three files that are not.
fn project() -> Sandbox {
    let s = Sandbox::new();
    let dir = s.memories();
    fs::create_dir_all(&dir).unwrap();
    memory(
        &dir,
        "20260129_173000_ff246da3.md",
        "ff246da3-e969-4e32-aedc-3d096a93020a",
        "2026-01-29T17:30:00+08:00",
        (2, 1),
        "Retry budget for the uploader",
        "en",
        EN_BODY,
    );
    memory(
        &dir,
        "20260129_173000_ff246da3_2.md",
        "ff246da3-e969-4e32-aedc-3d096a93020a",
        "2026-01-29T17:30:00+08:00",
        (2, 0),
        "Retry budget, second compaction in the same second",
        "en",
        EN_BODY,
    );
    memory(
        &dir,
        "20260130_091500_9b7282f9.md",
        "9b7282f9-1111-4222-8333-444455556666",
        "2026-01-30T09:15:00+08:00",
        (2, 1),
        "首页和登录页的灰度区域管理",
        "zh",
        ZH_BODY,
    );
    memory(
        &dir,
        "20260130_120000_9b7282f9.md",
        "9b7282f9-1111-4222-8333-444455556666",
        "2026-01-30T12:00:00+08:00",
        (0, 0),
        "Follow-up: 灰度 rollout notes",
        "en",
        "## AI summary\n\n- rollout 灰度\n",
    );
    memory(
        &dir,
        "20260201_080000_c0ffee00.md",
        "c0ffee00-aaaa-bbbb-cccc-000000000000",
        "2026-02-01T08:00:00+08:00",
        (5, 3),
        "Newest: café menu | pipes and `ticks`",
        "en",
        "## AI summary\n\n- café café café retry\n",
    );
    memory(
        &dir,
        "20250101_000000_old00000.md",
        "old00000-0000-0000-0000-000000000000",
        "2025-01-01T00:00:00+08:00",
        (0, 0),
        "A year-old memory",
        "en",
        "## AI summary\n\n- nothing\n",
    );
    fs::write(dir.join("20260128_100000_ab12cd34.md"), LEGACY).unwrap();
    // Not memories:
    fs::write(
        dir.join("20260131_000000_badbad00.md"),
        "---\nmemory_stalker: 1\nsession_id: \"bad\"\n",
    )
    .unwrap();
    fs::write(dir.join("notes.md"), "# my notes\n").unwrap();
    fs::write(dir.join("INDEX.md"), "# Memory index\n").unwrap();
    fs::write(dir.join(".log"), "log\n").unwrap();
    // The user's own memories (the legacy one has no front matter to sign: foreign).
    support::sign_memories(&s, &dir);
    s
}

fn run(s: &Sandbox, args: &[&str]) -> (i32, String, String) {
    let project = s.project();
    let mut full = vec!["--project", project.to_str().unwrap()];
    full.extend_from_slice(args);
    let out = std::process::Command::new(BIN)
        .args(&full)
        .env_clear()
        .envs(s.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .current_dir(s.project())
        .output()
        .unwrap();
    let (o, e) = text(&out);
    let root = s.root.path().to_string_lossy().into_owned();
    (
        out.status.code().unwrap_or(-1),
        o.replace(&root, "<root>"),
        e.replace(&root, "<root>"),
    )
}

fn json(s: &Sandbox, args: &[&str]) -> (i32, Value) {
    let mut a = args.to_vec();
    a.push("--json");
    let (code, out, err) = run(s, &a);
    (
        code,
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}")),
    )
}

fn files(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["file"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn list_table_snapshot() {
    let s = project();
    let (code, out, err) = run(&s, &[]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("list_table", out);
    assert!(
        err.contains("skipped 20260131_000000_badbad00.md: its front matter is not closed"),
        "{err}"
    );
    assert!(
        err.contains("skipped notes.md: not a memory file name"),
        "{err}"
    );
    assert!(!err.contains("INDEX.md"));
}

#[test]
fn list_json_snapshot() {
    let s = project();
    let (code, v) = json(&s, &[]);
    assert_eq!(code, 0);
    insta::assert_json_snapshot!("list_json", v);
}

#[test]
fn list_limit_and_filter() {
    let s = project();
    let (_, v) = json(&s, &["--limit", "2"]);
    assert_eq!(
        files(&v, "memories"),
        ["20260201_080000_c0ffee00.md", "20260130_120000_9b7282f9.md"]
    );
    assert_eq!(v["total"], 7);
    let (_, v) = json(&s, &["list", "--filter", "灰度"]);
    assert_eq!(
        files(&v, "memories"),
        ["20260130_120000_9b7282f9.md", "20260130_091500_9b7282f9.md"]
    );
    assert_eq!(v["total"], 2);
}

#[test]
fn legacy_memories_are_read_from_their_header() {
    let s = project();
    let (_, v) = json(&s, &["find", "ab12"]);
    let m = &v["matches"][0];
    assert_eq!(m["format"], 0);
    assert_eq!(m["session_id"], "ab12cd34-0000-4000-8000-000000000000");
    assert_eq!(m["created"], "2026-01-28T10:00:00");
    assert_eq!(m["trigger"], "manual");
    assert_eq!(
        (m["tasks_total"].as_u64(), m["tasks_open"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(m["summary"], "完成了旧版本的功能开发");
    assert_eq!(m["lang"], "zh");
}

#[test]
fn find_every_target_form() {
    let s = project();
    let cases: &[(&str, &[&str])] = &[
        ("latest", &["20260201_080000_c0ffee00.md"]),
        ("#3", &["20260130_091500_9b7282f9.md"]),
        (
            "20260129",
            &[
                "20260129_173000_ff246da3_2.md",
                "20260129_173000_ff246da3.md",
            ],
        ),
        (
            "2026-01-29",
            &[
                "20260129_173000_ff246da3_2.md",
                "20260129_173000_ff246da3.md",
            ],
        ),
        ("2026-01-30 12:00", &["20260130_120000_9b7282f9.md"]),
        ("202602", &["20260201_080000_c0ffee00.md"]),
        (
            "9b72",
            &["20260130_120000_9b7282f9.md", "20260130_091500_9b7282f9.md"],
        ),
        (
            "9B7282F9-1111-4222",
            &["20260130_120000_9b7282f9.md", "20260130_091500_9b7282f9.md"],
        ),
        ("c0ffee00-aaaa", &["20260201_080000_c0ffee00.md"]),
        (
            "20260129_173000_ff246da3_2.md",
            &["20260129_173000_ff246da3_2.md"],
        ),
        ("20260129_173000_ff246da3", &["20260129_173000_ff246da3.md"]),
    ];
    for (target, want) in cases {
        let (code, v) = json(&s, &["find", target]);
        assert_eq!(code, 0, "{target}");
        assert_eq!(files(&v, "matches"), *want, "{target}");
    }
    let (_, v) = json(&s, &["find", "2026-01-29"]);
    assert_eq!(
        v["kind"],
        serde_json::json!({"kind": "date", "value": "20260129"})
    );
    assert_eq!(v["matches"][1]["index"], 2);
}

#[test]
fn find_nothing_and_usage_errors() {
    let s = project();
    let (code, out, err) = run(&s, &["find", "deadbeef"]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(
        err.trim_end().lines().last().unwrap(),
        "No memory matches \"deadbeef\": no memory whose session id starts with \"deadbeef\" in <root>/project/.claude/memories."
    );
    let (code, _, err) = run(&s, &["find", "2027-05-01"]);
    assert_eq!(code, 1);
    assert!(err.contains("no memory dated 20270501"), "{err}");
    let (code, v) = json(&s, &["find", "#99"]);
    assert_eq!(code, 1);
    assert_eq!(v["matches"], serde_json::json!([]));
    let (code, _, err) = run(&s, &["find"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, _) = run(&s, &["prune"]);
    assert_eq!(code, 2);
    let (code, _, _) = run(&s, &["--bogus"]);
    assert_eq!(code, 2);
}

#[test]
fn empty_and_missing_directories_are_not_errors() {
    let s = Sandbox::new();
    let (code, out, _) = run(&s, &[]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("No memories in <root>/project/.claude/memories yet."),
        "{out}"
    );
    let (code, _, err) = run(&s, &["find", "latest"]);
    assert_eq!(code, 1);
    assert!(err.contains("there are no memories"), "{err}");
}

#[test]
fn show_a_memory_or_a_section() {
    let s = project();
    let (code, out, _) = run(&s, &["show", "20260129_173000_ff246da3.md"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("---\nmemory_stalker: 1\n") && out.contains("## AI summary"));
    let (code, out, _) = run(&s, &["show", "9b7282f9-1111", "--section", "tasks"]);
    assert_eq!(code, 1, "two memories match: ambiguous");
    assert_eq!(out, "");
    let (code, out, _) = run(
        &s,
        &["show", "20260130_091500_9b7282f9", "--section", "tasks"],
    );
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "## 当前任务列表\n\n- [x] 在首页添加灰度区域管理功能卡片\n- [ ] 检查登录页\n"
    );
    let (_, out, _) = run(
        &s,
        &[
            "show",
            "20260130_091500_9b7282f9",
            "--section",
            "当前任务列表",
        ],
    );
    assert!(out.starts_with("## 当前任务列表"));
    let (code, v) = json(&s, &["show", "latest", "--section", "summary"]);
    assert_eq!(code, 0);
    assert_eq!(v["section"], "summary");
    assert_eq!(v["memory"]["file"], "20260201_080000_c0ffee00.md");
    assert!(v["text"].as_str().unwrap().starts_with("## AI summary"));
    let (code, _, err) = run(&s, &["show", "latest", "--section", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown section"));
    let (code, _, err) = run(&s, &["show", "latest", "--section", "plan"]);
    assert_eq!(code, 1);
    assert!(err.contains("has no plan section"));
}

/// Ranked search (docs/design.md §7.10): one answer a session (its best memory, the
/// others named), Chinese by character pairs, accents and case folded, snippets from
/// the part that matched with the words marked.
#[test]
fn search_ranks_groups_sessions_and_matches_cjk_and_accents() {
    let s = project();
    let (code, v) = json(&s, &["search", "灰度"]);
    assert_eq!(code, 0);
    let hits = v["hits"].as_array().unwrap();
    // Two memories of one session: one answer, the other named.
    let session: Vec<&serde_json::Value> =
        hits.iter().filter(|h| h["session"] == "9b7282f9").collect();
    assert_eq!(session.len(), 1, "{v:#}");
    assert_eq!(session[0]["more_in_session"].as_array().unwrap().len(), 1);
    let snippet = session[0]["snippet"].as_str().unwrap();
    assert!(snippet.contains("**灰度**"), "{snippet}");
    assert_eq!(v["total"], 2, "{v:#}");
    let (_, v) = json(&s, &["search", "CAFÉ"]);
    let hits = v["hits"].as_array().unwrap();
    assert_eq!(hits[0]["file"], "20260201_080000_c0ffee00.md");
    assert!(
        hits[0]["snippet"].as_str().unwrap().contains("**café**"),
        "{v:#}"
    );
    assert!(files(&v, "hits").contains(&"20260130_091500_9b7282f9.md".to_string()));
    // A natural question finds the memory by its words, not all of them.
    let (_, v) = json(
        &s,
        &[
            "search", "What", "did", "we", "cap", "the", "retries", "at?",
        ],
    );
    let hits = v["hits"].as_array().unwrap();
    assert_eq!(hits[0]["session"], "ff246da3", "{v:#}");
    assert!(
        hits[0]["snippet"]
            .as_str()
            .unwrap()
            .contains("**caps** **retries**")
    );
    let (code, out, _) = run(&s, &["search", "retry", "budget"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("search_table", out);
    let (code, _, err) = run(&s, &["search", "nothing-like-this"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("No memory matches \"nothing-like-this\""),
        "{err}"
    );
}

/// Issue 23: words are whole words (stemmed), never substrings, and our own labels and
/// metadata are not searched: "rig" is not in "trigger", "ci" not in "specific",
/// "action" not in "interaction", and "trigger" does not match every memory through
/// its "- Trigger: auto" line.
#[test]
fn search_matches_whole_words_not_substrings_nor_our_labels() {
    let s = Sandbox::new();
    let dir = s.memories();
    fs::create_dir_all(&dir).unwrap();
    let body = |words: &str| {
        format!(
            "# Session memory — 2026-01-29 17:30:00 +08:00\n\n## Metadata\n\n- Session ID: `x`\n- Trigger: auto\n\n## Last complete interaction\n\n### User input\n\n```text\n{words}\n```\n"
        )
    };
    for (name, sid, words) in [
        (
            "20260101_100000_aaaa0000.md",
            "aaaa0000-x",
            "the specific interaction triggered a rebuild",
        ),
        (
            "20260101_110000_bbbb0000.md",
            "bbbb0000-x",
            "set up the CI workflow and a GitHub action",
        ),
        (
            "20260101_120000_cccc0000.md",
            "cccc0000-x",
            "the oil rig simulation, triggers deferred",
        ),
    ] {
        memory(
            &dir,
            name,
            sid,
            "2026-01-01T10:00:00+00:00",
            (0, 0),
            "work",
            "en",
            &body(words),
        );
    }
    let sessions = |q: &[&str]| {
        let mut args = vec!["search"];
        args.extend(q);
        let (_, v) = json(&s, &args);
        v["hits"]
            .as_array()
            .map(|h| {
                h.iter()
                    .map(|h| h["session"].as_str().unwrap().to_string())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    assert_eq!(sessions(&["rig"]), ["cccc0000"]);
    assert_eq!(sessions(&["ci"]), ["bbbb0000"]);
    assert_eq!(sessions(&["action"]), ["bbbb0000"]);
    // "triggered" and "triggers" are forms of "trigger"; the metadata line is not text.
    let mut trigger = sessions(&["trigger"]);
    trigger.sort();
    assert_eq!(trigger, ["aaaa0000", "cccc0000"]);
    // Continuous integration is CI.
    assert_eq!(sessions(&["continuous", "integration"]), ["bbbb0000"]);
    // A memory found through a related word alone says so, not "0/1 terms".
    assert_eq!(sessions(&["pipeline"]), ["bbbb0000"]);
    let (_, out, _) = run(&s, &["search", "pipeline"]);
    assert!(
        out.contains("session bbbb0000 · related words only"),
        "{out}"
    );
    let (_, out, _) = run(&s, &["search", "ci", "pipeline"]);
    assert!(out.contains("session bbbb0000 · 1/2 terms"), "{out}");
}

#[test]
fn search_across_all_projects() {
    let mut s = project();
    // A second project known only from a transcript's cwd, a third from the registry.
    let other = s.root.path().join("other");
    fs::create_dir_all(other.join(".claude/memories")).unwrap();
    memory(
        &other.join(".claude/memories"),
        "20260301_100000_11112222.md",
        "11112222-x",
        "2026-03-01T10:00:00+00:00",
        (0, 0),
        "Other project",
        "en",
        "## AI summary\n\n- uploader retry budget elsewhere\n",
    );
    let projects = s.home().join(".claude/projects/-other");
    fs::create_dir_all(&projects).unwrap();
    fs::write(
        projects.join("s.jsonl"),
        format!(
            "{{\"type\":\"permission-mode\"}}\n{{\"type\":\"user\",\"cwd\":{}}}\n",
            serde_json::to_string(&other).unwrap()
        ),
    )
    .unwrap();
    let third = s.root.path().join("third");
    fs::create_dir_all(third.join(".claude/memories")).unwrap();
    memory(
        &third.join(".claude/memories"),
        "20260302_100000_33334444.md",
        "33334444-x",
        "2026-03-02T10:00:00+00:00",
        (0, 0),
        "Third project",
        "en",
        "## AI summary\n\n- retry budget in the third\n",
    );
    let data = s.root.path().join("plugin-data");
    fs::create_dir_all(&data).unwrap();
    fs::write(
        data.join("projects.txt"),
        format!("{}\n/gone/project\n", third.display()),
    )
    .unwrap();
    s.set("CLAUDE_PLUGIN_DATA", data.to_string_lossy());
    let (code, v) = json(&s, &["search", "retry budget", "--all-projects"]);
    assert_eq!(code, 0);
    let projects: Vec<String> = v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["project"].as_str().unwrap().to_string())
        .collect();
    assert!(
        projects.iter().any(|p| p.ends_with("/other")),
        "{projects:?}"
    );
    assert!(
        projects.iter().any(|p| p.ends_with("/third")),
        "{projects:?}"
    );
    // This project first (known or not), then the others with memories; not the
    // registered one that is gone.
    let searched: Vec<&str> = v["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(searched.len(), 3, "{searched:?}");
    assert!(searched[0].ends_with("/project"), "{searched:?}");
    assert!(
        projects.iter().any(|p| p.ends_with("/project")),
        "this project's own memories are searched too: {projects:?}"
    );
    // Without --all-projects only the current project is searched.
    let (_, v) = json(&s, &["search", "retry budget"]);
    assert!(
        v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["project"].as_str().unwrap().ends_with("/project"))
    );
}

#[test]
fn prune_keeps_the_newest_and_never_touches_other_files() {
    let s = project();
    // The user's own beyond their newest 3; the legacy memory (no front matter, no
    // MAC: foreign) is neither counted nor deleted by --keep.
    let (code, v) = json(&s, &["prune", "--keep", "3", "--dry-run"]);
    assert_eq!(code, 0);
    assert_eq!(v["deleted"].as_array().unwrap().len(), 3);
    assert_eq!(s.memory_files().len(), 9, "a dry run deletes nothing");
    let (code, out, _) = run(&s, &["prune", "--keep", "3"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("Deleted 3 memories:"), "{out}");
    let mut left = s.memory_files();
    left.sort();
    assert_eq!(
        left,
        [
            "20260128_100000_ab12cd34.md",
            "20260130_091500_9b7282f9.md",
            "20260130_120000_9b7282f9.md",
            "20260131_000000_badbad00.md",
            "20260201_080000_c0ffee00.md",
            "notes.md"
        ]
    );
    let index = fs::read_to_string(s.memories().join("INDEX.md")).unwrap();
    assert!(index.contains("20260201_080000_c0ffee00.md") && !index.contains("ff246da3"));
    // Everything is older than a day by now, foreign or not.
    let (_, v) = json(&s, &["prune", "--older-than", "1"]);
    assert_eq!(v["deleted"].as_array().unwrap().len(), 4);
    assert_eq!(
        s.memory_files(),
        ["20260131_000000_badbad00.md", "notes.md"]
    );
}

#[test]
fn default_project_is_the_nearest_with_claude() {
    let s = project();
    let deep = s.project().join("src/deep");
    fs::create_dir_all(&deep).unwrap();
    let out = std::process::Command::new(BIN)
        .args(["find", "latest", "--json"])
        .current_dir(&deep)
        .env_clear()
        .envs(s.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["matches"][0]["file"], "20260201_080000_c0ffee00.md");
}

#[test]
fn colors_only_when_asked_for() {
    let s = project();
    let (_, out, _) = run(&s, &[]);
    assert!(
        !out.contains('\u{1b}'),
        "no escape codes when piped or NO_COLOR is set"
    );
}

/// A memory's text in the current format, as the hook renders it (no `created_ns`).
fn memory_text(session: &str, created: &str, summary: &str) -> String {
    format!(
        "---\nmemory_stalker: 1\nsession_id: \"{session}\"\ncreated: \"{created}\"\ntrigger: \"auto\"\nproject: \"/p\"\ntranscript: \"/t.jsonl\"\ntask_count: 0\ntasks_open: 0\nsummary: \"{summary}\"\nsummary_source: \"offline\"\nlang: \"en\"\n---\n\n## AI summary\n\n- uploader work\n"
    )
}

/// Sessions whose names sort in the reverse of the order they were saved in, all in
/// one second, and one written last under the second before: `list`, `find latest`,
/// `search`, `INDEX.md` and `prune` follow the order of writing (its UTC time), not the
/// session ids, nor the local time in the names (issue 25, defect 5).
#[test]
fn memories_of_one_second_are_ordered_by_the_time_of_writing() {
    use chrono::Timelike;
    use memory_stalker::store::MemoryStore;
    let s = Sandbox::new();
    let store = MemoryStore::new(s.memories()).with_writer(Some(support::writer(&s)));
    // Today, as the writer's clock says: an instant is only trusted within a day of its
    // name's wall time (memory/order.rs).
    let tz = chrono::FixedOffset::east_opt(8 * 3600).unwrap();
    let second = chrono::Utc::now()
        .with_timezone(&tz)
        .with_nanosecond(0)
        .unwrap()
        - chrono::Duration::minutes(1);
    let earlier = second - chrono::Duration::seconds(1);
    let stamp = |t: &chrono::DateTime<chrono::FixedOffset>| t.format("%Y%m%d_%H%M%S").to_string();
    let (now_s, earlier_s) = (stamp(&second), stamp(&earlier));
    let mut written = Vec::new();
    for (sid, summary) in [
        ("ffff0000-0000-4000-8000-000000000000", "first written"),
        ("88880000-0000-4000-8000-000000000000", "second written"),
        ("11110000-0000-4000-8000-000000000000", "third written"),
    ] {
        let text = memory_text(sid, &second.to_rfc3339(), summary);
        written.push(store.save_new(&second, sid, &text).unwrap());
    }
    // Written last, under an earlier second (the clock went back): still the newest.
    let sid = "00000000-0000-4000-8000-000000000000";
    // As many words in every summary: equal hits, which the newest wins.
    let text = memory_text(sid, &earlier.to_rfc3339(), "earlier second");
    store.save_new(&earlier, sid, &text).unwrap();
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            format!("{now_s}_ffff0000.md"),
            format!("{now_s}_88880000.md"),
            format!("{now_s}_11110000.md")
        ]
    );
    let saved = fs::read_to_string(&written[2]).unwrap();
    assert!(
        regex::Regex::new(&format!(
            r#"\ncreated: "{}"\ncreated_ns: \d{{19}}\n"#,
            regex::escape(&second.to_rfc3339())
        ))
        .unwrap()
        .is_match(&saved),
        "created is kept, created_ns follows it:\n{saved}"
    );

    let newest_first = [
        format!("{earlier_s}_00000000.md"),
        format!("{now_s}_11110000.md"),
        format!("{now_s}_88880000.md"),
        format!("{now_s}_ffff0000.md"),
    ];
    let (code, v) = json(&s, &["list"]);
    assert_eq!(code, 0);
    assert_eq!(files(&v, "memories"), newest_first);
    let (_, out, _) = run(&s, &["list"]);
    let summaries: Vec<&str> = out
        .lines()
        .filter_map(|l| {
            l.split("  ")
                .find(|c| c.contains("written") || c.contains("earlier"))
        })
        .map(str::trim)
        .collect();
    assert_eq!(
        summaries,
        [
            "earlier second",
            "third written",
            "second written",
            "first written"
        ],
        "{out}"
    );
    let (code, v) = json(&s, &["find", "latest"]);
    assert_eq!(code, 0);
    assert_eq!(files(&v, "matches"), [newest_first[0].clone()]);
    let (_, v) = json(&s, &["find", "#2"]);
    assert_eq!(files(&v, "matches"), [newest_first[1].clone()]);
    let (_, v) = json(
        &s,
        &["find", &second.format("%Y-%m-%d %H:%M:%S").to_string()],
    );
    assert_eq!(files(&v, "matches"), newest_first[1..]);
    let (_, v) = json(&s, &["search", "uploader"]);
    assert_eq!(files(&v, "hits"), newest_first, "equal hits: newest first");
    let (code, _, _) = run(&s, &["index"]);
    assert_eq!(code, 0);
    let index = fs::read_to_string(s.memories().join("INDEX.md")).unwrap();
    let positions: Vec<usize> = newest_first
        .iter()
        .map(|f| index.find(f).unwrap_or_else(|| panic!("{f} in\n{index}")))
        .collect();
    assert!(positions.is_sorted(), "{index}");

    let (code, v) = json(&s, &["prune", "--keep", "1"]);
    assert_eq!(code, 0);
    let mut deleted = files(&v, "deleted");
    deleted.sort();
    let mut expected = newest_first[1..].to_vec();
    expected.sort();
    assert_eq!(deleted, expected, "the last written is kept");
    assert_eq!(s.memory_files(), [newest_first[0].clone()]);
    let (_, v) = json(&s, &["find", "latest"]);
    assert_eq!(files(&v, "matches"), [newest_first[0].clone()]);
}

/// Memories written directly with `created_ns`, and memories of an older version
/// without it: `created_ns` decides; without it, the `_N` suffixes of one session keep
/// their order, then the file's modification time decides; a memory without the field
/// is older than one with it in the same second.
#[test]
fn order_within_a_second_with_and_without_created_ns() {
    let s = Sandbox::new();
    let dir = s.memories();
    fs::create_dir_all(&dir).unwrap();
    let with_ns = |name: &str, sid: &str, ns: u64| {
        let text = memory_text(sid, "2026-03-02T08:00:00+08:00", name).replacen(
            "\ntrigger:",
            &format!("\ncreated_ns: {ns}\ntrigger:"),
            1,
        );
        fs::write(dir.join(name), text).unwrap();
        support::sign_memory(&s, &dir.join(name));
    };
    // Written in this order; created_ns says so, the names say the reverse.
    with_ns(
        "20260302_080000_ffff0000.md",
        "ffff0000-x",
        1_772_409_600_000_000_100,
    );
    with_ns(
        "20260302_080000_aaaa0000.md",
        "aaaa0000-x",
        1_772_409_600_000_000_200,
    );
    with_ns(
        "20260302_080000_aaaa0000_2.md",
        "aaaa0000-x",
        1_772_409_600_000_000_300,
    );
    with_ns(
        "20260302_080000_0000aaaa.md",
        "0000aaaa-x",
        1_772_409_600_000_000_400,
    );
    // An older version's memories, in another second: no created_ns.
    let old = |name: &str, sid: &str, mtime_s: u64| {
        let path = dir.join(name);
        fs::write(&path, memory_text(sid, "2026-03-01T08:00:00+08:00", name)).unwrap();
        support::sign_memory(&s, &path);
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(mtime_s);
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(t)
            .unwrap();
    };
    // The suffix beats the modification time (the first was updated later)...
    old("20260301_080000_bbbb0000.md", "bbbb0000-x", 1_800_000_300);
    old("20260301_080000_bbbb0000_2.md", "bbbb0000-x", 1_800_000_100);
    // ...which decides between sessions.
    old("20260301_080000_ffff0000.md", "ffff0000-x", 1_800_000_100);
    old("20260301_080000_1111aaaa.md", "1111aaaa-x", 1_800_000_200);
    // Same second as the last two, with created_ns: newer than both.
    with_ns(
        "20260301_080000_0000bbbb.md",
        "0000bbbb-x",
        1_772_323_200_000_000_000,
    );
    let (_, v) = json(&s, &["list"]);
    assert_eq!(
        files(&v, "memories"),
        [
            "20260302_080000_0000aaaa.md",
            "20260302_080000_aaaa0000_2.md",
            "20260302_080000_aaaa0000.md",
            "20260302_080000_ffff0000.md",
            "20260301_080000_0000bbbb.md",
            "20260301_080000_bbbb0000_2.md",
            "20260301_080000_bbbb0000.md",
            "20260301_080000_1111aaaa.md",
            "20260301_080000_ffff0000.md",
        ]
    );
    let (_, v) = json(&s, &["find", "latest"]);
    assert_eq!(files(&v, "matches"), ["20260302_080000_0000aaaa.md"]);
    let (_, v) = json(&s, &["prune", "--keep", "1", "--dry-run"]);
    assert!(!files(&v, "deleted").contains(&"20260302_080000_0000aaaa.md".to_string()));
    assert_eq!(files(&v, "deleted").len(), 8);
}

/// Issue 12, defect 9: an I/O error exited 2 (clap's usage-error code) and said its
/// cause twice; a memory too large to be ours is skipped, not read (a 200 MB file
/// made `search` take 20 s and 2 GB).
#[test]
fn io_errors_exit_1_once_and_oversized_memories_are_not_read() {
    let s = project();
    let elsewhere = s.root.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::rename(s.memories(), elsewhere.join("memories")).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("memories"), s.memories()).unwrap();
    let (code, out, err) = run(&s, &["list"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("is a symbolic link"), "{err}");
    assert_eq!(
        err.matches("memory-stalker does not follow").count(),
        1,
        "{err}"
    );

    let s = project();
    let big = s.memories().join("20260201_000000_bigbig00.md");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(200 << 20).unwrap();
    drop(f);
    let started = std::time::Instant::now();
    let (code, out, err) = run(&s, &["search", "retry"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("retry"), "{out}");
}

/// `status`, `off` and `on`: each answer as the user reads it, in one transcript of
/// commands, and the switch file they leave.
#[test]
fn status_off_and_on() {
    let mut s = project();
    let mut session = String::new();
    let mut step = |s: &Sandbox, args: &[&str]| {
        let (code, out, err) = run(s, args);
        session.push_str(&format!(
            "$ list-memories {}\n{out}{err}[exit {code}]\n\n",
            args.join(" ")
        ));
    };
    step(&s, &["status"]);
    step(&s, &["off"]);
    step(&s, &["off"]);
    step(&s, &["status"]);
    step(&s, &["on"]);
    s.set("MEMORY_STALKER_ENABLED", "0");
    s.set("MEMORY_STALKER_RECALL_DAYS", "30");
    fs::remove_file(s.project().join(".claude/memory-stalker.json")).unwrap();
    step(&s, &["status"]);
    step(&s, &["on"]);
    fs::write(
        s.project().join(".claude/memory-stalker.json"),
        "{\"enabled\": tru",
    )
    .unwrap();
    step(&s, &["status"]);
    s.set("MEMORY_STALKER_RECALL", "0");
    step(&s, &["on"]);
    step(&s, &["status"]);
    insta::assert_snapshot!(session);

    let (code, v) = json(&s, &["status"]);
    assert_eq!(code, 0);
    let root = s.root.path().to_string_lossy().into_owned();
    insta::assert_snapshot!(
        serde_json::to_string_pretty(&v).unwrap().replace(&root, "<root>"),
        @r#"
    {
      "compactions": 7,
      "decided_by": "file",
      "dir": "<root>/project/.claude/memories",
      "enabled": true,
      "file": "<root>/project/.claude/memory-stalker.json",
      "ignored": [],
      "imported": 0,
      "last_import": null,
      "last_problem": null,
      "last_save": {
        "date": "2026-02-01 08:00",
        "file": "20260201_080000_c0ffee00.md"
      },
      "memories": 7,
      "newest": "20260201_080000_c0ffee00.md",
      "problems_7d": 0,
      "project": "<root>/project",
      "recall": false,
      "recall_days": 30,
      "saved": 7,
      "sessions": 5,
      "sessions_imported": 0,
      "sessions_saved": 5,
      "summaries_7d": {
        "by_source": {},
        "characters_sent": 0,
        "failed": 0,
        "last_error": null,
        "median_ms": null,
        "written": 0
      },
      "version": 1
    }
    "#
    );
}

/// `list-memories | head -1`, the table and `--json`: the reader goes after one line,
/// the rest of the answer (far more than a pipe holds) meets a closed pipe, and that
/// is a success, said nowhere.
#[test]
fn a_reader_that_goes_early_is_not_an_error() {
    use std::io::{BufRead, Read};
    let s = Sandbox::new();
    let dir = s.memories();
    fs::create_dir_all(&dir).unwrap();
    for i in 0..5000 {
        let sid = format!("{:08x}-0000-4000-8000-000000000000", 0x2000_0000 + i);
        let (day, second) = (1 + i % 28, i % 3600);
        memory(
            &dir,
            &format!(
                "202601{day:02}_10{:02}{:02}_{}.md",
                second / 60,
                second % 60,
                &sid[..8]
            ),
            &sid,
            &format!(
                "2026-01-{day:02}T10:{:02}:{:02}+00:00",
                second / 60,
                second % 60
            ),
            (1, 0),
            &format!("Memory {i}, with a summary long enough to fill its row of the table"),
            "en",
            "## AI summary\n\n- one of many\n",
        );
    }
    let project = s.project();
    for json in [false, true] {
        let mut args = vec!["--project", project.to_str().unwrap()];
        if json {
            args.push("--json");
        }
        let mut child = std::process::Command::new(BIN)
            .args(&args)
            .env_clear()
            .envs(s.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env("NO_COLOR", "1")
            .current_dir(&project)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        reader.read_line(&mut first).unwrap();
        // Closes the read end: the child's next write fails with EPIPE.
        drop(reader);
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(
            first.starts_with(if json { "{" } else { "5000 memories in " }),
            "json: {json}: {first}"
        );
        assert_eq!((status.code(), err.as_str()), (Some(0), ""), "json: {json}");
    }
}

/// A run as a person reads it, for a snapshot: the exit code, stdout and stderr.
fn seen(s: &Sandbox, args: &[&str]) -> String {
    let (code, out, err) = run(s, args);
    let command: String = args.iter().map(|a| format!(" {a}")).collect();
    // A memory's MAC depends on the sandbox's random key.
    let mac = regex::Regex::new(r#"writer: "[0-9a-f]{64}""#).unwrap();
    let out = mac.replace_all(&out, r#"writer: "<mac>""#);
    format!("$ list-memories{command}\nexit: {code}\n--- stdout\n{out}--- stderr\n{err}")
}

#[test]
fn error_messages_snapshot() {
    let empty = Sandbox::new();
    let s = project();
    let runs = [
        seen(&empty, &[]),
        seen(&empty, &["find", "latest"]),
        seen(&s, &["find", "deadbeef"]),
        seen(&s, &["search", "nothing-like-this"]),
        seen(&s, &["show", "9b7282f9-1111", "--section", "tasks"]),
        seen(&s, &["show", "latest", "--section", "nope"]),
        seen(&s, &["show", "latest", "--section", "plan"]),
    ];
    insta::assert_snapshot!("errors", runs.join("\n"));
}

/// What `find`, `show`, `prune` and `index` print when they succeed, as a person reads
/// it (the list, search and status answers have snapshots of their own).
#[test]
fn answers_snapshot() {
    let s = project();
    let runs = [
        seen(&s, &["find", "2026-01-29"]),
        seen(
            &s,
            &["show", "20260129_173000_ff246da3.md", "--section", "tasks"],
        ),
        seen(&s, &["show", "20260129_173000_ff246da3.md"]),
        seen(&s, &["prune", "--keep", "5", "--dry-run"]),
        seen(&s, &["prune", "--keep", "6"]),
        seen(&s, &["index"]),
    ];
    // How long the index took depends on the machine's load, not on the code.
    let took = regex::Regex::new(r"up to date \([0-9.]+ s\)").unwrap();
    let out = runs.join("\n");
    let out = took.replace_all(&out, "up to date (<secs> s)");
    insta::assert_snapshot!("answers", out);
}

/// A project with memories of both agents: the table says which, `--agent` keeps one.
#[test]
fn memories_of_both_agents_are_told_apart_and_filtered() {
    let s = Sandbox::new();
    let dir = s.memories();
    fs::create_dir_all(&dir).unwrap();
    memory(
        &dir,
        "20260301_090000_c1a0de00.md",
        "c1a0de00-0000-4000-8000-000000000000",
        "2026-03-01T09:00:00+00:00",
        (2, 1),
        "Retry budget (Claude Code)",
        "en",
        "## AI summary\n\n- retry budget in the uploader\n",
    );
    // A Codex memory: `agent: "codex"` after `trigger`.
    let codex = "---\nmemory_stalker: 1\nsession_id: \"0c0de000-0000-7000-8000-000000000000\"\ncreated: \"2026-03-01T10:00:00+00:00\"\ntrigger: \"auto\"\nagent: \"codex\"\nproject: \"/p\"\ntranscript: \"/r.jsonl\"\ntask_count: 1\ntasks_open: 1\nsummary: \"Retry budget docs (Codex)\"\nsummary_source: \"offline\"\nlang: \"en\"\n---\n\n## AI summary\n\n- retry budget in the README\n";
    fs::write(dir.join("20260301_100000_0c0de000.md"), codex).unwrap();
    // Both ours (signed as save-memory signs), so the table is about agents alone.
    support::sign_memories(&s, &dir);

    let (code, table, _) = run(&s, &["list"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(table, @r"
    2 memories in <root>/project/.claude/memories:
      #  date              session   agent        open/total  summary                            size
      1  2026-03-01 10:00  0c0de000  Codex        1/1         Retry budget docs (Codex)          404 B
      2  2026-03-01 09:00  c1a0de00  Claude Code  1/2         Retry budget (Claude Code)         392 B
    ");
    let (_, v) = json(&s, &["list"]);
    let agents: Vec<&str> = v["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["agent"].as_str().unwrap())
        .collect();
    assert_eq!(agents, ["codex", "claude-code"]);

    let (_, v) = json(&s, &["list", "--agent", "codex"]);
    assert_eq!(files(&v, "memories"), ["20260301_100000_0c0de000.md"]);
    assert_eq!(v["total"], 1);
    let (_, v) = json(&s, &["list", "--agent", "claude-code", "--limit", "1"]);
    assert_eq!(files(&v, "memories"), ["20260301_090000_c1a0de00.md"]);
    // `latest` of one agent is that agent's newest.
    let (code, v) = json(&s, &["find", "latest", "--agent", "claude"]);
    assert_eq!(code, 0);
    assert_eq!(files(&v, "matches"), ["20260301_090000_c1a0de00.md"]);
    let (_, v) = json(&s, &["search", "retry", "budget", "--agent", "codex"]);
    let hits: Vec<&str> = v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["file"].as_str().unwrap())
        .collect();
    assert_eq!(hits, ["20260301_100000_0c0de000.md"]);
    let (code, _, err) = run(&s, &["list", "--agent", "gemini"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(r#"agent "gemini" is not one of "claude-code" and "codex"."#),
        "{err}"
    );
    // The search reads the name as list does (one reading, Agent::from_arg).
    let (code, _, err) = run(&s, &["search", "retry", "--agent", "gemini"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(r#"agent "gemini" is not one of "claude-code" and "codex"."#),
        "{err}"
    );
    let (code, _, err) = run(&s, &["--agent", "codex", "find", "latest"]);
    assert_eq!(code, 2, "{err}");
}

/// Issue 25, defect 4: a memory larger than the tools read is listed (marked), found
/// and searched, and `show` says why it does not print it, instead of failing on it.
#[test]
fn a_memory_too_large_to_show_is_listed_and_said_so() {
    let s = Sandbox::new();
    fs::create_dir_all(s.memories()).unwrap();
    let body = format!(
        "# Session memory\n\n## Last complete interaction\n\n```text\nneedle {}\n```\n",
        "x".repeat(9 << 20)
    );
    memory(
        &s.memories(),
        "20260129_173000_big00001.md",
        "big00001-aaaa",
        "2026-01-29T17:30:00+00:00",
        (0, 0),
        "A huge one",
        "en",
        &body,
    );
    let project = s.project().to_string_lossy().into_owned();
    let run = |args: &[&str]| {
        let mut all = vec!["--project", project.as_str()];
        all.extend_from_slice(args);
        let out = s.run(BIN, &all, b"");
        let (stdout, stderr) = text(&out);
        (out.status.code(), stdout, stderr)
    };
    let (code, table, _) = run(&[]);
    assert_eq!(code, Some(0));
    assert!(table.contains("(too large to show)"), "{table}");
    let (_, json, _) = run(&["--json"]);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["memories"][0]["too_large"], true, "{json}");
    let (code, out, err) = run(&["show", "latest"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(err.contains("over the 8 MiB list-memories reads"), "{err}");
    // Only its front matter is indexed (the body is past what the tools read): found
    // by its headline, not by a word deep in the body.
    let (code, found, _) = run(&["search", "huge"]);
    assert_eq!(code, Some(0), "{found}");
    assert!(found.contains("20260129_173000_big00001.md"), "{found}");
    let (code, _, _) = run(&["search", "needle"]);
    assert_eq!(code, Some(1));
}
