//! Each signal over a whole hand-written transcript, in the record shapes real Claude
//! Code sessions have (taken from the corpus: 1.0.x to 2.1.x).

use serde_json::json;

use super::*;
use crate::transcript::ReadOptions;
use crate::transcript::tests::T;

fn signals(t: &T) -> Signals {
    t.read(ReadOptions::default()).signals()
}

/// A user record carrying a tool result and a `toolUseResult`.
fn result_with(t: &mut T, id: &str, text: &str, is_error: bool, tur: serde_json::Value) {
    t.push(json!({"type":"user","message":{"role":"user","content":[
        {"type":"tool_result","tool_use_id":id,"content":text,"is_error":is_error}]},
        "toolUseResult":tur}));
}

#[test]
fn an_answer_to_ask_user_question_is_the_users_decision() {
    let mut t = T::default();
    t.prompt("Set up linting for the project");
    t.call(
        "q1",
        "AskUserQuestion",
        json!({"questions":[
            {"question":"Which rig do these beads belong to?","header":"Rig prefix",
             "options":[{"label":"spotter","description":"Use spotter"},{"label":"No rig","description":"None"}],"multiSelect":false},
            {"question":"Which tools should we set up?","header":"Tools",
             "options":[{"label":"Credo + Dialyxir + mix_audit"},{"label":"All four"}],"multiSelect":false}]}),
    );
    result_with(
        &mut t,
        "q1",
        "User has answered your questions: \"Which rig do these beads belong to?\"=\"No rig\", \"Which tools should we set up?\"=\"only credo, no dialyzer\". You can now continue with the user's answers in mind.",
        false,
        json!({"questions":[],"answers":{
            "Which rig do these beads belong to?":"No rig",
            "Which tools should we set up?":"only credo, no dialyzer"}}),
    );
    let s = signals(&t);
    assert_eq!(s.answers.len(), 2);
    assert_eq!(s.answers[0].answer, "No rig");
    assert_eq!(s.answers[0].header.as_deref(), Some("Rig prefix"));
    assert!(s.answers[0].chosen);
    assert_eq!(s.answers[1].answer, "only credo, no dialyzer");
    assert!(!s.answers[1].chosen, "typed by the user, not an option");
    assert_eq!(s.answers[1].source.tool, "AskUserQuestion");
    assert!(s.answers[1].source.uuid.is_some());
}

/// Conductor asks through its own MCP tool, with the built-in one's input; the answers
/// come back as numbered lines, in the order of the questions.
#[test]
fn conductors_question_tool_gives_the_users_answers() {
    let mut t = T::default();
    t.prompt("Turn the docs command into a skill");
    t.call(
        "q1",
        "mcp__conductor__AskUserQuestion",
        json!({"questions":[
            {"question":"What's the primary use case for this skill?","options":["Mostly writing new pages","Full lifecycle: write, edit, reorganize, delete"]},
            {"question":"Is this skill just for chkit?","options":["Just for chkit","Make it generalizable"]},
            {"question":"Should I delete the old command?","options":["Yes, delete the old command","Keep both for now"]}]}),
    );
    result_with(
        &mut t,
        "q1",
        "User responses:\n1. Full lifecycle: write, edit, reorganize, delete\n2. only chkit, but keep the config separate\n9. out of range\n1. said twice",
        false,
        json!([{"type":"text","text":"User responses:\n1. …"}]),
    );
    let s = signals(&t);
    let got: Vec<(&str, &str, bool)> = s
        .answers
        .iter()
        .map(|a| (a.question.as_str(), a.answer.as_str(), a.chosen))
        .collect();
    assert_eq!(
        got,
        [
            (
                "What's the primary use case for this skill?",
                "Full lifecycle: write, edit, reorganize, delete",
                true
            ),
            (
                "Is this skill just for chkit?",
                "only chkit, but keep the config separate",
                false
            ),
        ]
    );
    assert_eq!(s.answers[0].source.tool, "AskUserQuestion");
    // Its refusal (too many questions) is a tool error, not an answer.
    let mut t = T::default();
    t.prompt("Turn the docs command into a skill");
    t.call(
        "q2",
        "mcp__conductor__AskUserQuestion",
        json!({"questions":[{"question":"Which?","options":["a","b"]}]}),
    );
    t.result("q2", "MCP error -32602: Input validation error", true);
    assert!(signals(&t).answers.is_empty());
}

#[test]
fn a_question_the_tool_could_not_ask_gives_no_answer() {
    let mut t = T::default();
    t.prompt("Make it installable");
    t.call(
        "q",
        "AskUserQuestion",
        json!({"question":"Global tool or library?"}),
    );
    t.result(
        "q",
        "<tool_use_error>Error: No such tool available: AskUserQuestion</tool_use_error>",
        true,
    );
    let s = signals(&t);
    assert!(s.answers.is_empty());
    assert_eq!(
        s.refusals.len(),
        1,
        "the tool was not there: asked another way"
    );
    assert_eq!(s.refusals[0].by, RefusedBy::Unavailable);
}

#[test]
fn a_cause_stated_right_before_a_fix_is_found_and_a_guess_is_not() {
    let mut t = T::default();
    t.prompt("The server does not start");
    t.say("The issue might be the logger. Let me check:");
    t.call("r1", "Read", json!({"file_path":"/proj/src/db.ts"}));
    t.result("r1", "1 import sqlite3", false);
    t.say("The issue is on line 42. `sqlite3.verbose()` is being called incorrectly. Let me fix this:");
    t.call(
        "e1",
        "Edit",
        json!({"file_path":"/proj/src/db.ts","old_string":"a","new_string":"b"}),
    );
    t.result("e1", "The file /proj/src/db.ts has been updated.", false);
    let s = signals(&t);
    assert_eq!(s.causes.len(), 1, "{:?}", s.causes);
    assert_eq!(
        s.causes[0].cause,
        "The issue is on line 42. `sqlite3.verbose()` is being called incorrectly."
    );
    assert_eq!(s.causes[0].file, "src/db.ts");
    // Said before more looking around, a cause is not yet found.
    let mut t = T::default();
    t.prompt("The server does not start");
    t.say("I see the issue - the logger is exported as a function, not an instance.");
    t.call("r1", "Read", json!({"file_path":"/proj/src/log.ts"}));
    t.result("r1", "1 export function createLogger", false);
    t.call(
        "e1",
        "Edit",
        json!({"file_path":"/proj/src/log.ts","old_string":"a","new_string":"b"}),
    );
    t.result("e1", "The file /proj/src/log.ts has been updated.", false);
    assert!(signals(&t).causes.is_empty());
    // A fix the next run refutes was a guess.
    let mut t = T::default();
    t.prompt("The server does not start");
    t.say("I see the issue. The logger is exported as a function but used as an instance.");
    t.call(
        "e1",
        "Edit",
        json!({"file_path":"/proj/src/log.ts","old_string":"a","new_string":"b"}),
    );
    t.result("e1", "The file /proj/src/log.ts has been updated.", false);
    t.call("b1", "Bash", json!({"command":"npm start"}));
    t.result(
        "b1",
        "Exit code 1\nTypeError: Class constructors cannot be invoked without 'new'",
        true,
    );
    assert!(signals(&t).causes.is_empty());
}

#[test]
fn a_command_that_passed_when_run_another_way_is_a_failed_approach() {
    let mut t = T::default();
    t.prompt("Run the e2e test");
    t.call(
        "b1",
        "Bash",
        json!({"command":"./gradlew connectedDebugAndroidTest"}),
    );
    t.result(
        "b1",
        "Exit code 1\nFAILURE: Build failed with an exception.\nTask 'connectedDebugAndroidTest' not found in root project",
        true,
    );
    t.call(
        "b2",
        "Bash",
        json!({"command":"./gradlew :app:connectedDebugAndroidTest"}),
    );
    t.result("b2", "BUILD SUCCESSFUL in 3m", false);
    // Another case that passes is no approach replaced.
    t.call("b5", "Bash", json!({"command":"mytool"}));
    t.result("b5", "Exit code 1\nNo PR for the current branch", true);
    t.call("b6", "Bash", json!({"command":"mytool 2"}));
    t.result("b6", "PR 2", false);
    // Run again unchanged, a command that passes is no approach.
    t.call("b3", "Bash", json!({"command":"npm test"}));
    t.result("b3", "Exit code 1\nError: flaky", true);
    t.call("b4", "Bash", json!({"command":"npm test"}));
    t.result("b4", "ok", false);
    let s = signals(&t);
    assert_eq!(s.failed_runs.len(), 1, "{:?}", s.failed_runs);
    assert_eq!(
        s.failed_runs[0].command,
        "./gradlew connectedDebugAndroidTest"
    );
    assert_eq!(
        s.failed_runs[0].worked.as_deref(),
        Some("`./gradlew :app:connectedDebugAndroidTest`")
    );
    assert_eq!(
        s.failed_runs[0].error.as_deref(),
        Some("FAILURE: Build failed with an exception.")
    );
}

#[test]
fn a_commit_blocked_by_one_check_then_another_says_both_and_shows_its_message() {
    let mut t = T::default();
    t.prompt("Commit the epic");
    let commit = "git commit -m \"$(cat <<'EOF'\nfeat: unified transcript view\n\nBody.\nEOF\n)\"";
    t.call("c1", "Bash", json!({ "command": commit }));
    t.result(
        "c1",
        "Exit code 1\nPre-commit validation failed: [FORMAT] Code is not formatted.",
        true,
    );
    t.call(
        "e1",
        "Edit",
        json!({"file_path":"/p/lib/a.ex","old_string":"a","new_string":"b"}),
    );
    t.result("e1", "The file /p/lib/a.ex has been updated.", false);
    t.call("c2", "Bash", json!({ "command": commit }));
    t.result(
        "c2",
        "Exit code 1\nPre-commit validation failed: [DIALYZER] pattern can never match",
        true,
    );
    t.call(
        "e2",
        "Edit",
        json!({"file_path":"/p/lib/b.ex","old_string":"a","new_string":"b"}),
    );
    t.result("e2", "The file /p/lib/b.ex has been updated.", false);
    t.call("c3", "Bash", json!({ "command": commit }));
    t.result("c3", "[main 64f1b9a] feat: unified transcript view", false);
    let s = signals(&t);
    let [run] = s.failed_runs.as_slice() else {
        panic!("{:#?}", s.failed_runs)
    };
    assert_eq!(
        run.command,
        "git commit -m \"feat: unified transcript view …\""
    );
    assert_eq!(run.failures, 2);
    assert_eq!(
        run.error.as_deref(),
        Some("Pre-commit validation failed: [FORMAT] Code is not formatted.")
    );
    assert_eq!(
        run.last_error.as_deref(),
        Some("Pre-commit validation failed: [DIALYZER] pattern can never match")
    );
}

#[test]
fn a_command_not_found_until_its_environment_was_set_up_is_a_failed_approach() {
    let mut t = T::default();
    t.prompt("Run the tests");
    t.call("p1", "Bash", json!({"command":"pytest"}));
    t.result(
        "p1",
        "Exit code 127\n/bin/bash: line 1: pytest: command not found",
        true,
    );
    t.call(
        "p2",
        "Bash",
        json!({"command":"(source .venv/bin/activate && pytest)"}),
    );
    t.result("p2", "12 passed in 0.4s", false);
    // Only the directory differs: not another way.
    t.call("n1", "Bash", json!({"command":"npm test"}));
    t.result("n1", "Exit code 1\nError: flaky", true);
    t.call("n2", "Bash", json!({"command":"cd /p && npm test"}));
    t.result("n2", "ok", false);
    let s = signals(&t);
    let [run] = s.failed_runs.as_slice() else {
        panic!("{:#?}", s.failed_runs)
    };
    assert_eq!(run.command, "pytest");
    assert_eq!(
        run.error.as_deref(),
        Some("/bin/bash: line 1: pytest: command not found")
    );
    assert_eq!(
        run.worked.as_deref(),
        Some("`source .venv/bin/activate && pytest`")
    );
}

#[test]
fn writing_a_plan_mode_plan_is_no_change_that_was_tried() {
    let mut t = T::default();
    t.prompt("Add tar support");
    t.call("p1", "Bash", json!({"command":"pytest"}));
    t.result(
        "p1",
        "Exit code 1\nFAILED tests/test_a.py::test_tar - AssertionError",
        true,
    );
    t.call(
        "w1",
        "Write",
        json!({"file_path":"/home/u/.claude/plans/humble-doodling-wolf.md","content":"# Plan"}),
    );
    t.result(
        "w1",
        "File created successfully at: /home/u/.claude/plans/humble-doodling-wolf.md",
        false,
    );
    t.call("p2", "Bash", json!({"command":"pytest"}));
    t.result(
        "p2",
        "Exit code 1\nFAILED tests/test_a.py::test_tar - AssertionError",
        true,
    );
    t.call(
        "e1",
        "Edit",
        json!({"file_path":"/p/src/a.py","old_string":"a","new_string":"b"}),
    );
    t.result("e1", "The file /p/src/a.py has been updated.", false);
    t.call("p3", "Bash", json!({"command":"pytest"}));
    t.result("p3", "3 passed", false);
    let s = signals(&t);
    let [run] = s.failed_runs.as_slice() else {
        panic!("{:#?}", s.failed_runs)
    };
    assert!(run.tried.is_empty(), "{run:#?}");
    assert_eq!(run.worked.as_deref(), Some("editing /p/src/a.py"));
}

#[test]
fn plans_approved_and_refused_keep_their_titles_and_the_users_words() {
    let mut t = T::default();
    t.prompt("Make the project installable as a uv tool");
    t.call(
        "p1",
        "ExitPlanMode",
        json!({"plan":"## Plan: Make Project Installable as UV Tool\n\n1. Rename the script"}),
    );
    t.result("p1", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  Let's keep the name of the py file", true);
    t.call(
        "p2",
        "ExitPlanMode",
        json!({"plan":"## Web Worker Analysis\n\nWorkers need a file"}),
    );
    t.result("p2", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.", true);
    t.prompt_raw_interrupt();
    t.prompt("Never mind! Add a details element instead");
    // A plan kept in a file the transcript wrote (2.1: `ExitPlanMode` with no input).
    t.call(
        "w",
        "Write",
        json!({"file_path":"/home/u/.claude/plans/humble-seeking-umbrella.md","content":"# Plan: Setup Code Quality Tools (Credo, Dialyxir, mix_audit)\n\n## Epic"}),
    );
    t.result("w", "File created successfully", false);
    t.call("p3", "ExitPlanMode", json!({}));
    result_with(
        &mut t,
        "p3",
        "User has approved exiting plan mode. You can now proceed.",
        false,
        json!({"plan":null,"isAgent":false,"filePath":"/home/u/.claude/plans/humble-seeking-umbrella.md"}),
    );
    let s = signals(&t);
    assert_eq!(s.plans.len(), 3, "{:#?}", s.plans);
    assert!(
        matches!(&s.plans[0], PlanOutcome::Refused { title: Some(t), words: Some(w), .. }
        if t == "Make Project Installable as UV Tool" && w == "Let's keep the name of the py file")
    );
    assert!(
        matches!(&s.plans[1], PlanOutcome::Refused { title: Some(t), words: Some(w), .. }
        if t == "Web Worker Analysis" && w == "Never mind! Add a details element instead")
    );
    assert!(matches!(&s.plans[2], PlanOutcome::Approved { title, .. }
        if title == "Setup Code Quality Tools (Credo, Dialyxir, mix_audit)"));
    // A refused plan is no refused call: it is counted once.
    assert!(s.refusals.is_empty());
}

#[test]
fn refused_and_denied_calls_keep_the_reason() {
    let mut t = T::default();
    t.prompt("Install the dependencies");
    t.call("b1", "Bash", json!({"command":"npm install"}));
    t.result("b1", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  use pnpm", true);
    t.call("w1", "WebSearch", json!({"query":"pnpm workspaces"}));
    t.result(
        "w1",
        "Claude requested permissions to use WebSearch, but you haven't granted it yet.",
        true,
    );
    t.call("e1", "Edit", json!({"file_path":"/proj/a.rs"}));
    t.result("e1", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.", true);
    t.prompt_raw_interrupt();
    t.prompt("not that file, the one in lib/");
    t.call("b2", "Bash", json!({"command":"./run.sh"}));
    t.result(
        "b2",
        "Exit code 1\n(eval):1: permission denied: ./run.sh",
        true,
    );
    let s = signals(&t);
    let r: Vec<_> = s
        .refusals
        .iter()
        .map(|r| (r.tool.as_str(), r.by, r.reason.as_deref()))
        .collect();
    assert_eq!(
        r,
        vec![
            ("Bash", RefusedBy::User, Some("use pnpm")),
            ("WebSearch", RefusedBy::Permissions, None),
            (
                "Edit",
                RefusedBy::User,
                Some("not that file, the one in lib/")
            ),
        ]
    );
}

/// "Chat about this" at a question answers the call with Claude Code's words, not the
/// user's: the question was talked over, and nothing was refused.
#[test]
fn a_question_talked_over_is_no_refusal() {
    let mut t = T::default();
    t.prompt("Plan the session phases");
    t.call(
        "q1",
        "AskUserQuestion",
        json!({"questions":[{"question":"Which phase first?","options":[{"label":"Idle"}]}]}),
    );
    t.result("q1", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nThe user wants to clarify these questions.\n    This means they may have additional information, context or questions for you.", true);
    t.call("b1", "Bash", json!({"command":"npm install"}));
    t.result("b1", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  use pnpm", true);
    let s = signals(&t);
    let r: Vec<_> = s
        .refusals
        .iter()
        .map(|r| (r.tool.as_str(), r.reason.as_deref()))
        .collect();
    assert_eq!(r, vec![("Bash", Some("use pnpm"))]);
}

/// A type checker failing while two approaches are tried, until a third makes it pass;
/// a command that passes when simply run again is no failed approach.
#[test]
fn a_run_of_failures_until_a_change_passes_is_a_failed_approach() {
    let mut t = T::default();
    t.prompt("Please fix these lint errors");
    t.call("c1", "Bash", json!({"command":"uv run pyright"}));
    t.result(
        "c1",
        "Exit code 1\n/p/test/t.py:52:9 - error: Cannot assign member \"styles\" for type \"Widget\"\n1 error",
        true,
    );
    t.say("Let me add a type: ignore comment on the assignment.");
    t.call("e1", "Edit", json!({"file_path":"/proj/test/t.py"}));
    t.result(
        "e1",
        "The file /proj/test/t.py has been updated successfully.",
        false,
    );
    t.call("c2", "Bash", json!({"command":"uv run pyright test/"}));
    t.result(
        "c2",
        "Exit code 1\nerror: Unnecessary type: ignore comment",
        true,
    );
    t.say("I'll use cast() to give the mock the widget's type instead.");
    t.call("e2", "Edit", json!({"file_path":"/proj/test/t.py"}));
    t.result(
        "e2",
        "The file /proj/test/t.py has been updated successfully.",
        false,
    );
    t.call("c3", "Bash", json!({"command":"uv run pyright"}));
    t.result("c3", "0 errors, 0 warnings", false);
    // Run again with no change between: no approach failed.
    t.call("m1", "Bash", json!({"command":"cargo build"}));
    t.result(
        "m1",
        "Exit code 101\nerror: could not lock the build directory",
        true,
    );
    t.call("m2", "Bash", json!({"command":"cargo build"}));
    t.result("m2", "Finished", false);
    // One failure, then a change that made it pass: what failed is worth knowing.
    t.call("m3", "Bash", json!({"command":"cargo build"}));
    t.result(
        "m3",
        "Exit code 101\nerror[E0425]: cannot find value `x`",
        true,
    );
    t.call("e3", "Edit", json!({"file_path":"/proj/src/main.rs"}));
    t.result("e3", "ok", false);
    t.call("m4", "Bash", json!({"command":"cargo build"}));
    t.result("m4", "Finished", false);
    let s = signals(&t);
    assert_eq!(s.failed_runs.len(), 2, "{:#?}", s.failed_runs);
    assert_eq!(s.failed_runs[1].failures, 1);
    assert_eq!(
        s.failed_runs[1].error.as_deref(),
        Some("error[E0425]: cannot find value `x`")
    );
    let run = &s.failed_runs[0];
    assert_eq!(run.command, "uv run pyright");
    assert_eq!(run.failures, 2);
    assert_eq!(
        run.error.as_deref(),
        Some("/p/test/t.py:52:9 - error: Cannot assign member \"styles\" for type \"Widget\"")
    );
    assert_eq!(
        run.tried,
        vec!["Let me add a type: ignore comment on the assignment. (test/t.py)"]
    );
    assert_eq!(
        run.worked.as_deref(),
        Some("I'll use cast() to give the mock the widget's type instead. (test/t.py)")
    );
    assert_eq!(run.source.tool, "Bash");
}

#[test]
fn a_test_edited_while_its_tests_fail_is_flagged_and_its_creation_is_not() {
    let mut t = T::default();
    t.prompt("The tests fail after the refactor");
    t.call(
        "w0",
        "Write",
        json!({"file_path":"/proj/tests/test_new.py","content":"x"}),
    );
    t.result(
        "w0",
        "File created successfully at: /proj/tests/test_new.py",
        false,
    );
    t.call("r1", "Bash", json!({"command":"uv run pytest"}));
    t.result(
        "r1",
        "FAILED tests/test_utils.py::test_display_name - AssertionError",
        true,
    );
    t.call(
        "e1",
        "Edit",
        json!({"file_path":"/proj/tests/test_utils.py"}),
    );
    t.result("e1", "updated", false);
    t.call("e2", "Edit", json!({"file_path":"/proj/tests/test_new.py"}));
    t.result("e2", "updated", false);
    t.call("e3", "Edit", json!({"file_path":"/proj/src/utils.py"}));
    t.result("e3", "updated", false);
    t.call("r2", "Bash", json!({"command":"uv run pytest -x"}));
    t.result("r2", "3 passed", false);
    // After the pass, editing a test is writing one.
    t.call(
        "e4",
        "Edit",
        json!({"file_path":"/proj/tests/test_more.py"}),
    );
    t.result("e4", "updated", false);
    let s = signals(&t);
    let files: Vec<_> = s.test_edits.iter().map(|e| e.file.as_str()).collect();
    assert_eq!(files, vec!["tests/test_utils.py", "tests/test_new.py"]);
    assert_eq!(s.test_edits[0].command, "uv run pytest");
}

#[test]
fn bash_mode_gives_the_context_of_the_next_request() {
    let mut t = T::default();
    t.push(json!({"type":"user","isMeta":true,"message":{"role":"user","content":"Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to."}}));
    t.prompt("<bash-input>uv run ty check</bash-input>");
    t.prompt("<bash-stdout>error[invalid-assignment]: Object of type `MockStyles` is not assignable\n  --> test/test_tui.py:52:9\n\nFound 5 diagnostics\n</bash-stdout><bash-stderr></bash-stderr>");
    t.prompt("please fix these");
    let s = signals(&t);
    assert_eq!(s.bash.len(), 1);
    let b = &s.bash[0];
    assert_eq!(b.command, "uv run ty check");
    assert_eq!(
        b.output.as_deref(),
        Some(
            "error[invalid-assignment]: Object of type `MockStyles` is not assignable ⏎ --> test/test_tui.py:52:9 ⏎ Found 5 diagnostics"
        )
    );
    assert_eq!(b.next_request.as_deref(), Some("please fix these"));
    assert_eq!(b.file.as_deref(), Some("test/test_tui.py"));
    assert_eq!(b.source.tool, "bash mode");
}

#[test]
fn hook_feedback_is_a_requirement_said_once() {
    let mut t = T::default();
    t.prompt("Port the script to Rust");
    let stop = "Stop hook feedback:\n[${CLAUDE_PLUGIN_ROOT}/scripts/hooks/stop.sh]: # Running Quality Checks...\n\n# Uncommitted Changes Detected\n\nCannot exit with unstaged changes.\n\nBefore stopping, please commit your work.";
    t.push(json!({"type":"user","isMeta":true,"message":{"role":"user","content":stop}}));
    t.say("Committing now.");
    t.push(json!({"type":"user","isMeta":true,"message":{"role":"user","content":stop}}));
    let s = signals(&t);
    assert_eq!(s.hooks.len(), 1);
    assert_eq!(s.hooks[0].event, "Stop");
    assert_eq!(
        s.hooks[0].requirement,
        "Cannot exit with unstaged changes. ⏎ Before stopping, please commit your work."
    );
    assert_eq!(s.hooks[0].source.tool, "Stop hook");
}

#[test]
fn memory_notes_are_the_users_lasting_rules() {
    let mut t = T::default();
    t.prompt("<user-memory-input>When committing to git, never add Claude as co-author</user-memory-input>");
    let s = signals(&t);
    assert_eq!(s.notes.len(), 1);
    assert_eq!(
        s.notes[0].text,
        "When committing to git, never add Claude as co-author"
    );
}

#[test]
fn only_the_segments_main_chain_counts() {
    let mut t = T::default();
    t.prompt("<bash-input>git pull</bash-input>");
    t.boundary();
    t.push(json!({"type":"user","isSidechain":true,"message":{"role":"user","content":"<bash-input>ls</bash-input>"}}));
    t.prompt("continue");
    assert!(signals(&t).is_empty());
}

#[test]
fn a_reply_to_the_question_a_turn_ended_with_is_an_answer() {
    let mut t = T::default();
    t.prompt("Make the recorder run locally");
    t.say("Python's http.server would work.\n\nWhich local dev server would you prefer (Vite, serve, http-server)? Or shall I just go with Vite?");
    t.prompt("ok, fine, let's do vite");
    t.say("Done. Want me to commit?");
    t.prompt("yes");
    t.say("Should I run the tests?");
    t.call("b", "Bash", json!({"command":"ls"}));
    t.result("b", "a", false);
    t.prompt("no, just push the branch");
    t.say("Phase 9 is planned. What would you like to prioritize?");
    t.prompt("what is left of the phase 7 work?");
    let s = signals(&t);
    assert_eq!(s.replies.len(), 1, "{:#?}", s.replies);
    assert_eq!(
        s.replies[0].question,
        "Which local dev server would you prefer (Vite, serve, http-server)? Or shall I just go with Vite?"
    );
    assert_eq!(s.replies[0].answer, "ok, fine, let's do vite");
    assert_eq!(s.replies[0].source.tool, "reply");
}

/// A reply to a numbered list of questions answers the list, not its last item.
#[test]
fn a_reply_to_numbered_questions_answers_the_whole_list() {
    let mut t = T::default();
    t.prompt("Rank the open issues by staleness");
    t.say("Answer these in order:\n\n1. What close policy do you want for stale issues?\n- age-only cutoff, or age + label rules?\n\n2. How should I treat issues with no comments?\n- auto-close, or keep?\n\n3. For #386 specifically, should it stay open?");
    t.prompt("i mean specific to content not policy");
    // Steps numbered earlier in the text do not make a list of the last question.
    t.say("I did this:\n\n1. Read the issues.\n2. Ranked them.\n\n5. Shall I close #12?");
    t.prompt("yes close it and tell me which others are stale");
    let s = signals(&t);
    let asked: Vec<&str> = s.replies.iter().map(|r| r.question.as_str()).collect();
    assert_eq!(
        asked,
        [
            "1. What close policy do you want for stale issues? ⏎ 2. How should I treat issues with no comments? ⏎ 3. For #386 specifically, should it stay open?",
            "5. Shall I close #12?",
        ]
    );
}

#[test]
fn a_test_the_user_saw_fail_in_bash_mode_counts_as_failing() {
    let mut t = T::default();
    t.prompt("<bash-input>uv run pytest -v</bash-input>");
    t.prompt("<bash-stdout>FAILED test/test_names.py::test_last - AssertionError\n5 failed, 6 passed</bash-stdout><bash-stderr></bash-stderr>");
    t.prompt("Can you please update these tests? We just pick the latest one now");
    t.say("These tests expect the old behaviour; I'll update them to expect the last directory.");
    t.call(
        "e1",
        "Edit",
        json!({"file_path":"/proj/test/test_names.py"}),
    );
    t.result("e1", "updated", false);
    let s = signals(&t);
    assert_eq!(s.test_edits.len(), 1, "{s:#?}");
    assert_eq!(s.test_edits[0].command, "uv run pytest -v");
    assert_eq!(
        s.test_edits[0].said.as_deref(),
        Some(
            "These tests expect the old behaviour; I'll update them to expect the last directory."
        )
    );
}

#[test]
fn the_cause_stated_before_a_failing_command_passes_is_a_root_cause() {
    let mut t = T::default();
    t.prompt("CI fails on PR 18");
    t.call("b1", "Bash", json!({"command":"cd /proj && go test ./..."}));
    t.result("b1", "Exit code 1\ngo: go.mod requires go >= 1.24.0", true);
    t.say("The issue is clear: x/net v0.49.0 requires Go 1.24.0 while CI runs Go 1.23.");
    t.call("e1", "Edit", json!({"file_path":"/proj/go.mod"}));
    t.result("e1", "updated", false);
    t.call("b2", "Bash", json!({"command":"cd /proj && go test ./..."}));
    t.result("b2", "ok", false);
    let s = signals(&t);
    assert_eq!(s.diagnoses.len(), 1);
    // Shown as the failed runs show it: without the `cd`.
    assert_eq!(s.diagnoses[0].command, "go test ./...");
    assert_eq!(
        s.diagnoses[0].cause,
        "The issue is clear: x/net v0.49.0 requires Go 1.24.0 while CI runs Go 1.23."
    );
}

#[test]
fn an_issue_looked_up_in_a_tracker_gives_its_title() {
    let mut t = T::default();
    t.prompt("Work on bead spotter-dov. Run bd show spotter-dov to see the issue details.");
    t.call("b1", "Bash", json!({"command":"bd show spotter-dov"}));
    t.result(
        "b1",
        "○ spotter-dov [EPIC] · Unified transcript visualization   [● P1 · OPEN]\nOwner: M · Type: epic",
        false,
    );
    // A failed lookup says nothing of the issue.
    t.call("b2", "Bash", json!({"command":"bd show spotter-xyz"}));
    t.result("b2", "spotter-xyz: no such issue here", true);
    let s = signals(&t);
    assert_eq!(
        s.issues,
        vec![IssueTitle {
            id: "spotter-dov".into(),
            title: "Unified transcript visualization".into()
        }]
    );
}

#[test]
fn a_command_that_missed_its_target_worked_when_pointed_another_way_whatever_was_edited() {
    let mut t = T::default();
    t.prompt("Add a test for the combined link");
    t.call(
        "r1",
        "Bash",
        json!({"command":"uv run pytest test/test_link.py -v"}),
    );
    t.result(
        "r1",
        "ERROR: file or directory not found: test/test_link.py",
        true,
    );
    t.say("The test is looking for the literal variable name in the HTML.");
    t.call("e1", "Edit", json!({"file_path":"/proj/test/test_link.py"}));
    t.result("e1", "updated", false);
    t.call(
        "r2",
        "Bash",
        json!({"command":"uv run pytest /proj/test/test_link.py -v"}),
    );
    t.result("r2", "1 passed", false);
    // A module that is missing is made by an edit: the same command, its output piped,
    // passing after it is no other way.
    t.call("n1", "Bash", json!({"command":"npm start"}));
    t.result(
        "n1",
        "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/proj/src/config.js'",
        true,
    );
    t.say("I'll export the config from src/config.ts instead.");
    t.call("e2", "Edit", json!({"file_path":"/proj/src/index.ts"}));
    t.result("e2", "updated", false);
    t.call("n2", "Bash", json!({"command":"npm start 2>&1 | head -50"}));
    t.result("n2", "listening on 3000", false);
    let s = signals(&t);
    let worked: Vec<_> = s.failed_runs.iter().map(|r| r.worked.as_deref()).collect();
    assert_eq!(
        worked,
        vec![
            Some("`uv run pytest /proj/test/test_link.py -v`"),
            Some("I'll export the config from src/config.ts instead. (src/index.ts)"),
        ],
        "{s:#?}"
    );
}

#[test]
fn a_way_given_up_after_a_failure_is_an_abandoned_approach() {
    let mut t = T::default();
    t.prompt("Add rate limiting to the upload endpoint");
    t.say("Checking whether a Redis token bucket is an option.");
    t.call(
        "p1",
        "Bash",
        json!({"command":"./scripts/probe_redis.sh 127.0.0.1:6379"}),
    );
    t.result(
        "p1",
        "Exit code 1\nCould not connect to Redis at 127.0.0.1:6379: Connection refused",
        true,
    );
    // Claude Code 2.1 loads a deferred tool before the next call: no work of its own.
    t.call("s1", "ToolSearch", json!({"query":"select:TodoWrite"}));
    t.result("s1", "TodoWrite", false);
    t.say("Redis isn't reachable from the upload service, so a Redis token bucket is out.");
    // A way given up, then made to work after all, was not given up.
    t.call(
        "k1",
        "Bash",
        json!({"command":"./scripts/kafka_produce.sh events"}),
    );
    t.result("k1", "KafkaError: TOPIC_AUTHORIZATION_FAILED", true);
    t.say("Kafka is not an option without the ACL.");
    t.call(
        "k2",
        "Bash",
        json!({"command":"./scripts/kafka_produce.sh events"}),
    );
    t.result("k2", "produced 1 message", false);
    // A failure followed by anything but giving up is no abandoned approach.
    t.call("c1", "Bash", json!({"command":"cargo test"}));
    t.result("c1", "error[E0425]: cannot find value `x`", true);
    t.say("Let me look at the handler.");
    let s = signals(&t);
    assert_eq!(s.abandoned.len(), 1, "{s:#?}");
    let a = &s.abandoned[0];
    assert_eq!(a.command, "./scripts/probe_redis.sh 127.0.0.1:6379");
    assert_eq!(
        a.error.as_deref(),
        Some("Could not connect to Redis at 127.0.0.1:6379: Connection refused")
    );
    assert_eq!(
        a.why,
        "Redis isn't reachable from the upload service, so a Redis token bucket is out."
    );
    assert_eq!(a.source.tool, "Bash");
}

/// Output the user pasted that names a file Claude changed: Claude's change failed
/// where the user ran it.
#[test]
fn a_failure_the_user_pasted_naming_a_changed_file_is_a_failed_approach() {
    let mut t = T::default();
    t.prompt("Add a location icon to the menu");
    t.call(
        "e1",
        "Edit",
        json!({"file_path":"/proj/src/components/Layout.vue"}),
    );
    t.result("e1", "The file has been updated.", false);
    t.say("Done: the menu has a location entry.");
    // Typed words that mention an error are a request, not a paste.
    t.prompt("the error handling in Layout.vue looks odd");
    t.say("It is fine.");
    // A paste that names no file Claude changed is someone else's failure.
    t.prompt("> npm run lint\nsrc/other/Menu.vue:3:1 - error TS2305: no member");
    t.say("That file is not mine.");
    // A long paste (research notes, a config) that names the changed file far from the
    // line that says something failed reports nothing about it.
    let notes = format!(
        "is this aligned with the research below?\n\nSee Layout.vue for the menu.\n{}```go\nlogging.Warn(ctx, \"remote: failed to fetch metadata branch\")\n```\n",
        "- a note of the research\n".repeat(12)
    );
    t.prompt(&notes);
    t.say("Yes, it is aligned.");
    t.prompt("> vue-tsc -b && vite build\n\nsrc/components/Layout.vue:86:67 - error TS2305: Module '\"@element-plus/icons-vue\"' has no exported member 'LocationOutlined'.\n\nFound 1 error.");
    t.call(
        "e2",
        "Edit",
        json!({"file_path":"/proj/src/components/Layout.vue"}),
    );
    t.result("e2", "The file has been updated.", false);
    // A paste that answers a refused call is the refusal's reason, said there.
    t.call("b1", "Bash", json!({"command":"npm run build"}));
    t.result("b1", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.", true);
    t.prompt_raw_interrupt();
    t.prompt("error during build:\nCould not load src/components/Layout.vue: ENOENT");
    let s = signals(&t);
    let r: Vec<_> = s
        .reported
        .iter()
        .map(|r| (r.file.as_str(), r.error.as_str(), r.source.tool.as_str()))
        .collect();
    assert_eq!(
        r,
        vec![(
            "src/components/Layout.vue",
            "src/components/Layout.vue:86:67 - error TS2305: Module '\"@element-plus/icons-vue\"' has no exported member 'LocationOutlined'.",
            "pasted"
        )]
    );
    assert!(
        s.refusals[0]
            .reason
            .as_deref()
            .is_some_and(|w| w.contains("ENOENT"))
    );
}

/// What git printed of a commit, however the message was passed; a commit that failed
/// (a pre-commit hook) or a command that only looks at history gives none.
#[test]
fn commits_are_read_from_what_git_printed() {
    let mut t = T::default();
    t.prompt("Commit the rounding fix");
    t.call(
        "c1",
        "Bash",
        json!({"command": "git add -A && git commit -m \"$(cat <<'EOF'\nfix: round invoice totals once\n\nHalf cents were lost per line.\nEOF\n)\""}),
    );
    t.result(
        "c1",
        "[main 3f2a1c9] fix: round invoice totals once\n 2 files changed, 14 insertions(+), 3 deletions(-)",
        false,
    );
    t.call("c2", "Bash", json!({"command": "git commit -m \"wip\""}));
    t.result(
        "c2",
        "Pre-commit validation failed: [FORMAT] Code is not formatted.",
        true,
    );
    // Amended: the same message again, a new hash, which replaces the first.
    t.call(
        "c4",
        "Bash",
        json!({"command": "git commit --amend --no-edit"}),
    );
    t.result("c4", "[main 9a8b7c6] fix: round invoice totals once", false);
    t.call("c3", "Bash", json!({"command": "git log --oneline -3"}));
    t.result("c3", "[main 0c1d2e3] looks like a report", false);
    let s = signals(&t);
    let commits: Vec<_> = s
        .commits
        .iter()
        .map(|c| (c.hash.as_str(), c.subject.as_str(), c.source.tool.as_str()))
        .collect();
    assert_eq!(
        commits,
        vec![("9a8b7c6", "fix: round invoice totals once", "Bash")]
    );
}

/// The commands run again and again are kept as last run, with how many runs and the
/// last outcome; one run, or commands that only look around, are not.
#[test]
fn commands_run_again_and_again_are_kept_as_last_run() {
    let mut t = T::default();
    t.prompt("Make the tests pass");
    let runs = [
        ("a1", "cd /p && mix test 2>&1 | tail -20", true),
        ("a2", "mix compile --warnings-as-errors", false),
        ("a3", "ls lib", false),
        ("a4", "mix test test/spotter_web", false),
        ("a5", "mix credo --strict", false),
        ("a6", "mix compile --warnings-as-errors", false),
        ("a7", "ls lib", false),
    ];
    for (id, command, failed) in runs {
        t.call(id, "Bash", json!({ "command": command }));
        t.result(id, if failed { "1 failure" } else { "ok" }, failed);
    }
    let s = signals(&t);
    let checks: Vec<_> = s
        .checks
        .iter()
        .map(|c| (c.command.as_str(), c.runs, c.passed))
        .collect();
    assert_eq!(
        checks,
        vec![
            ("mix test test/spotter_web", 2, Some(true)),
            ("mix compile --warnings-as-errors", 2, Some(true)),
        ]
    );
}

/// A command piped into `tail` exits as `tail` does: its last lines say whether it
/// failed.
#[test]
fn a_failure_a_pipe_into_tail_hid_is_a_failure() {
    let mut t = T::default();
    t.prompt("Make the tests pass");
    t.call("c1", "Bash", json!({"command":"cargo test 2>&1 | tail -5"}));
    t.result(
        "c1",
        "failures:\n    upload::retries_three_times\n\ntest result: FAILED. 3 passed; 1 failed; 0 ignored\n\nerror: test failed, to rerun pass `--lib`",
        false,
    );
    t.say("The retry counter starts at one; I'll start it at zero.");
    t.call("e1", "Edit", json!({"file_path":"/proj/src/upload.rs"}));
    t.result("e1", "ok", false);
    t.call("c2", "Bash", json!({"command":"cargo test 2>&1 | tail -5"}));
    t.result(
        "c2",
        "test result: ok. 4 passed; 0 failed; 0 ignored",
        false,
    );
    // Piped into `head`, the verdict is cut off: nothing is concluded from it.
    t.call("h1", "Bash", json!({"command":"npm test 2>&1 | head -20"}));
    t.result("h1", "FAILED src/a.test.ts", false);
    t.call("e2", "Edit", json!({"file_path":"/proj/src/a.ts"}));
    t.result("e2", "ok", false);
    t.call("h2", "Bash", json!({"command":"npm test 2>&1 | head -20"}));
    t.result("h2", "ok", false);
    let s = signals(&t);
    let [run] = s.failed_runs.as_slice() else {
        panic!("{:#?}", s.failed_runs)
    };
    assert_eq!(run.command, "cargo test 2>&1 | tail -5");
    assert_eq!(
        run.error.as_deref(),
        Some("error: test failed, to rerun pass `--lib`")
    );
    assert_eq!(
        run.worked.as_deref(),
        Some("The retry counter starts at one; I'll start it at zero. (src/upload.rs)")
    );
}

#[test]
fn a_last_line_says_whether_a_run_failed() {
    for line in [
        "BUILD FAILED in 2m 12s",
        "FAILURE: Build failed with an exception.",
        "test result: FAILED. 3 passed; 1 failed",
        "=== 2 failed, 10 passed in 3.1s ===",
        "Tests: 1 failed, 3 passed, 4 total",
        "error: test failed, to rerun pass `--lib`",
        "npm ERR! Test failed.",
    ] {
        assert!(says_it_failed(line), "{line}");
    }
    for line in [
        "test result: ok. 4 passed; 0 failed; 0 ignored",
        "=== 10 passed in 1.2s ===",
        "BUILD SUCCESSFUL in 1m 58s",
        "0 errors, 0 warnings",
        "the error: handling is documented",
    ] {
        assert!(!says_it_failed(line), "{line}");
    }
}

/// A command sent to the background ends where `TaskOutput` reports its exit: a test
/// run that failed there, then passed after a change, is a failed approach.
#[test]
fn a_background_run_ends_where_its_output_reports_the_exit() {
    let mut t = T::default();
    t.prompt("Make the tests pass");
    t.call(
        "c1",
        "Bash",
        json!({"command":"cargo test","run_in_background":true}),
    );
    t.result(
        "c1",
        "Command running in background with ID: b67dc5c. Output is being written to: /tmp/claude/tasks/b67dc5c.output",
        false,
    );
    t.call(
        "w1",
        "TaskOutput",
        json!({"task_id":"b67dc5c","block":true,"timeout":60000}),
    );
    t.result(
        "w1",
        "<retrieval_status>success</retrieval_status>\n\n<task_id>b67dc5c</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>failed</status>\n\n<exit_code>101</exit_code>\n\n<output>\nerror[E0425]: cannot find value `budget` in this scope\n</output>",
        false,
    );
    t.call("e1", "Edit", json!({"file_path":"/proj/src/upload.rs"}));
    t.result("e1", "ok", false);
    t.call("c2", "Bash", json!({"command":"cargo test"}));
    t.result("c2", "test result: ok. 4 passed; 0 failed", false);
    let s = signals(&t);
    let [run] = s.failed_runs.as_slice() else {
        panic!("{:#?}", s.failed_runs)
    };
    assert_eq!(run.command, "cargo test");
    assert_eq!(
        run.error.as_deref(),
        Some("error[E0425]: cannot find value `budget` in this scope")
    );
    assert_eq!(run.worked.as_deref(), Some("editing src/upload.rs"));
}
