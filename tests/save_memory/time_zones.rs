//! The time-zone and clock table (issue 25, defects 5 and 6), on the real binaries with
//! `TZ` set: memories saved under one time zone, then another (a laptop that travels,
//! summer time that ends), are ordered by when they were written, not by the wall clock
//! in their names; and one compaction is one memory whatever the wall clock does.
//!
//! Each row saves memories of several sessions in turn, each under its own `TZ`, then
//! checks every place "newest" is used: the listing's order, `find latest`, `#1`,
//! `INDEX.md`'s first line, the recall at session start, the MCP `show_memory latest`,
//! and `prune --keep 1`.

use std::fs;
use std::io::Write;

use serde_json::{Value, json};

use crate::support::{Sandbox, sample_transcript, text};

/// The hook under test (`MEMORY_STALKER_TEST_BINARIES` chooses another build).
fn hook_bin() -> String {
    crate::support::binary("save-memory")
}

fn list_bin() -> String {
    crate::support::binary("list-memories")
}

struct Row {
    name: &'static str,
    /// The `TZ` of each save, in the order they are made.
    zones: &'static [&'static str],
}

const ROWS: [Row; 6] = [
    Row {
        name: "Tokyo, then Los Angeles (the wall clock goes back 17 h)",
        zones: &["Asia/Tokyo", "America/Los_Angeles"],
    },
    Row {
        name: "Los Angeles, then Tokyo (the wall clock jumps ahead)",
        zones: &["America/Los_Angeles", "Asia/Tokyo"],
    },
    Row {
        name: "summer time ends: UTC+2, then UTC+1",
        zones: &["CEST-2", "CET-1"],
    },
    Row {
        name: "UTC+14, then UTC-12, then UTC (the widest offsets)",
        zones: &["LINT-14", "AOE+12", "UTC"],
    },
    Row {
        name: "back and forth: UTC+5:30, UTC-3, UTC+5:30",
        zones: &["IST-5:30", "BRT+3", "IST-5:30"],
    },
    Row {
        name: "one zone, for reference",
        zones: &["Europe/Paris", "Europe/Paris", "Europe/Paris"],
    },
];

fn sandbox() -> Sandbox {
    let mut s = Sandbox::new();
    s.set("MEMORY_STALKER_SUMMARIZER", "offline");
    s
}

fn hook(s: &Sandbox, input: &Value) -> (String, String) {
    let out = s.run(&hook_bin(), &[], input.to_string().as_bytes());
    assert_eq!(out.status.code(), Some(0));
    text(&out)
}

fn list(s: &Sandbox, args: &[&str]) -> (i32, String) {
    let project = s.project().to_string_lossy().into_owned();
    let mut all = vec!["--project", project.as_str()];
    all.extend_from_slice(args);
    let out = s.run(&list_bin(), &all, b"");
    (out.status.code().unwrap_or(-1), text(&out).0)
}

fn json(s: &Sandbox, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    serde_json::from_str(&list(s, &all).1).unwrap_or(Value::Null)
}

/// The session id of the `i`-th save of a row.
fn session(i: usize) -> String {
    format!("{:04x}{i:04}-travel", 0xabcd_u32)
}

/// Runs one row; what went wrong.
fn run_row(row: &Row) -> Vec<String> {
    let mut s = sandbox();
    let t = s.install_transcript(&sample_transcript(), "7c630e3a-5b1d-4c2e-9f47-2d8a61b0c9e5");
    let mut written = Vec::new();
    for (i, zone) in row.zones.iter().enumerate() {
        s.set("TZ", *zone);
        let sid = session(i);
        hook(
            &s,
            &json!({"session_id": sid, "transcript_path": t, "cwd": s.project(), "hook_event_name": "PreCompact", "trigger": "auto"}),
        );
        let newest = s
            .memory_files()
            .into_iter()
            .find(|n| n.contains(&sid[..8]))
            .unwrap_or_default();
        written.push(newest);
    }
    let mut failures = Vec::new();
    let newest_first: Vec<String> = written.iter().rev().cloned().collect();
    // Looked at from yet another zone.
    s.set("TZ", "Pacific/Chatham");
    let listed: Vec<String> = json(&s, &["list"])["memories"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|m| m["file"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    if listed != newest_first {
        failures.push(format!("list order {listed:?}, written {newest_first:?}"));
    }
    let newest = &newest_first[0];
    let first = |v: Value| v["matches"][0]["file"].as_str().unwrap_or("").to_string();
    if first(json(&s, &["find", "latest"])) != *newest {
        failures.push("find latest is not the last written".into());
    }
    if first(json(&s, &["find", "#1"])) != *newest {
        failures.push("#1 is not the last written".into());
    }
    list(&s, &["index"]);
    let index = fs::read_to_string(s.memories().join("INDEX.md")).unwrap_or_default();
    let first_line = index.lines().find(|l| l.starts_with("- ")).unwrap_or("");
    if !first_line.contains(newest.as_str()) {
        failures.push(format!("INDEX.md starts with {first_line:?}"));
    }
    let (out, _) = hook(
        &s,
        &json!({"session_id": "ffff0000-new", "transcript_path": t, "cwd": s.project(), "hook_event_name": "SessionStart", "source": "startup"}),
    );
    if !out.contains(newest.as_str()) {
        failures.push(format!("the recall names another memory: {out}"));
    }
    let mcp = crate::support::mcp::call(
        &s,
        &[json!({"name": "show_memory", "arguments": {"target": "latest"}})],
    );
    if !mcp.first().is_some_and(|a| {
        a.lines()
            .next()
            .is_some_and(|l| l.contains(newest.as_str()))
    }) {
        failures.push(format!(
            "MCP latest: {:?}",
            mcp.first().map(|a| &a[..a.len().min(80)])
        ));
    }
    list(&s, &["prune", "--keep", "1"]);
    if s.memory_files() != [newest.clone()] {
        failures.push(format!("prune --keep 1 left {:?}", s.memory_files()));
    }
    failures
}

#[test]
fn memories_saved_across_time_zones_keep_the_order_of_writing() {
    let mut report =
        String::from("row                                                     result\n");
    let mut failures = Vec::new();
    for row in &ROWS {
        let found = run_row(row);
        report.push_str(&format!(
            "{:<55} {}\n",
            row.name,
            if found.is_empty() { "ok" } else { "FAIL" }
        ));
        failures.extend(found.into_iter().map(|f| format!("{}: {f}", row.name)));
    }
    println!("{report}");
    assert!(failures.is_empty(), "{}\n{report}", failures.join("\n"));
}

/// One session compacted three times while its wall clock goes back (summer time ends
/// between the first two compactions) and then ahead: each compaction is one memory,
/// found by SessionStart and PostCompact without a backfill, and Claude Code's summary
/// lands in the memory of its own compaction.
#[test]
fn one_compaction_is_one_memory_whatever_the_wall_clock_does() {
    let mut s = sandbox();
    let sid = "7c630e3a-5b1d-4c2e-9f47-2d8a61b0c9e5";
    let t = s.install_transcript(&sample_transcript(), sid);
    let mut failures = Vec::new();
    for (round, zone) in ["CEST-2", "CET-1", "EET-2"].iter().enumerate() {
        s.set("TZ", *zone);
        if round > 0 {
            // The conversation went on since the last compaction.
            let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            let more = [
                json!({"type": "system", "subtype": "compact_boundary", "sessionId": sid, "uuid": format!("b{round}"), "timestamp": now, "isSidechain": false}),
                json!({"type": "user", "sessionId": sid, "uuid": format!("p{round}"), "timestamp": now, "isSidechain": false, "message": {"role": "user", "content": format!("Round {round}: carry on with the tests")}}),
                json!({"type": "assistant", "sessionId": sid, "uuid": format!("a{round}"), "timestamp": now, "isSidechain": false, "message": {"id": format!("m{round}"), "role": "assistant", "content": [{"type": "text", "text": "Working on it."}]}}),
            ];
            let mut f = fs::OpenOptions::new().append(true).open(&t).unwrap();
            for l in more {
                writeln!(f, "{l}").unwrap();
            }
            drop(f);
            std::thread::sleep(std::time::Duration::from_millis(1_100));
        }
        let pre = json!({"session_id": sid, "transcript_path": t, "cwd": s.project(), "hook_event_name": "PreCompact", "trigger": "auto"});
        hook(&s, &pre);
        let (_, start_err) = hook(
            &s,
            &json!({"session_id": sid, "transcript_path": t, "cwd": s.project(), "hook_event_name": "SessionStart", "source": "compact"}),
        );
        let (_, post_err) = hook(
            &s,
            &json!({"session_id": sid, "transcript_path": t, "cwd": s.project(), "hook_event_name": "PostCompact", "trigger": "auto", "compact_summary": format!("<summary>SUMMARY-{round}</summary>")}),
        );
        for (what, err) in [("SessionStart", &start_err), ("PostCompact", &post_err)] {
            if err.contains("did not run") {
                failures.push(format!("round {round} ({zone}), {what}: {err}"));
            }
        }
        let memories = s.memory_files();
        if memories.len() != round + 1 {
            failures.push(format!("round {round} ({zone}): {memories:?}"));
        }
        let holding: Vec<String> = memories
            .iter()
            .filter(|m| {
                fs::read_to_string(s.memories().join(m))
                    .unwrap_or_default()
                    .contains(&format!("SUMMARY-{round}"))
            })
            .cloned()
            .collect();
        let newest = json(&s, &["find", "latest"])["matches"][0]["file"]
            .as_str()
            .unwrap_or("")
            .to_string();
        if holding != [newest.clone()] {
            failures.push(format!(
                "round {round} ({zone}): the summary is in {holding:?}, the compaction's memory is {newest}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
