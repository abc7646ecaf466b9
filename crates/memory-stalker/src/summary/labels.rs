//! Headings and fixed phrases of a memory file, in each language.

use std::fmt::Write as _;

use crate::agent::Agent;
use crate::lang::Lang;
use crate::transcript::{TaskLine, TaskStatus, TodoItem, TodoList};

/// Section of a memory file, whatever language its heading is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Section {
    /// Session, project, time, trigger, Claude Code version, transcript.
    Metadata,
    /// The last real prompt and the whole reply to it.
    LastInteraction,
    /// The current task list.
    Tasks,
    /// The plan of the last accepted `ExitPlanMode`.
    Plan,
    /// Files modified and read.
    Files,
    /// The last tool call and its outcome.
    LastAction,
    /// What outlives every compaction: standing instructions, decisions, failed
    /// approaches, files changed earlier (see `summary::facts`).
    Session,
    /// The summary: a model's, or the offline one.
    AiSummary,
    /// Claude Code's own summary, added by PostCompact.
    CompactionSummary,
}

impl Section {
    /// All sections in document order.
    pub const ALL: [Section; 9] = [
        Section::Metadata,
        Section::LastInteraction,
        Section::Tasks,
        Section::Plan,
        Section::Files,
        Section::LastAction,
        Section::Session,
        Section::AiSummary,
        Section::CompactionSummary,
    ];

    /// Where the section comes in a memory our writer wrote (0 first).
    pub fn order(self) -> usize {
        Section::ALL.iter().position(|s| *s == self).unwrap_or(0)
    }

    /// The stable key a user or skill names a section by (`show --section KEY`).
    pub fn key(self) -> &'static str {
        match self {
            Section::Metadata => "metadata",
            Section::LastInteraction => "last-interaction",
            Section::Tasks => "tasks",
            Section::Plan => "plan",
            Section::Files => "files",
            Section::LastAction => "last-action",
            Section::Session => "session",
            Section::AiSummary => "summary",
            Section::CompactionSummary => "compaction-summary",
        }
    }

    /// Finds a section by key, by a heading in any language, or by a few aliases.
    pub fn parse(name: &str) -> Option<Section> {
        let n = name.trim().trim_start_matches('#').trim().to_lowercase();
        let n = n.replace(['_', ' '], "-");
        Section::ALL.into_iter().find(|s| {
            s.key() == n
                || [Lang::En, Lang::Zh]
                    .iter()
                    .any(|l| Labels::of(*l).heading(*s).to_lowercase().replace(' ', "-") == n)
                || match s {
                    Section::LastInteraction => matches!(n.as_str(), "interaction" | "last"),
                    Section::Tasks => matches!(n.as_str(), "todos" | "task-list" | "todo"),
                    Section::AiSummary => matches!(n.as_str(), "ai-summary" | "ai"),
                    Section::CompactionSummary => {
                        matches!(
                            n.as_str(),
                            "compact-summary" | "claude-summary" | "codex-summary"
                        ) || CODEX_HEADINGS
                            .iter()
                            .any(|(_, h)| h.to_lowercase().replace(' ', "-") == n)
                    }
                    _ => false,
                }
        })
    }

    /// The section a `## ` heading (in any language) starts, if it is one of ours.
    pub fn from_heading(heading: &str) -> Option<Section> {
        let h = heading.trim();
        Section::ALL.into_iter().find(|s| {
            [Lang::En, Lang::Zh]
                .iter()
                .any(|l| Labels::of(*l).heading(*s) == h)
                || LEGACY_HEADINGS
                    .iter()
                    .chain(&CODEX_HEADINGS)
                    .any(|(sec, text)| sec == s && *text == h)
        })
    }
}

/// Headings used by the original design that differ from today's.
const LEGACY_HEADINGS: [(Section, &str); 2] = [
    (Section::AiSummary, "AI Summary"),
    (Section::Tasks, "Task List"),
];

/// The headings of a Codex memory's sections that name the agent, in each language.
const CODEX_HEADINGS: [(Section, &str); 2] = [
    (Section::CompactionSummary, "Codex compaction summary"),
    (Section::CompactionSummary, "Codex 压缩摘要"),
];

/// Every fixed text of a memory file in one language.
// Each field is named for the text it holds; the English values (`EN` below) say what
// each one is better than a comment on the field would.
#[allow(missing_docs)]
pub struct Labels {
    pub title: &'static str,
    pub metadata: &'static str,
    pub session_id: &'static str,
    pub project: &'static str,
    pub time: &'static str,
    pub trigger: &'static str,
    pub custom_instructions: &'static str,
    pub claude_code: &'static str,
    pub branch: &'static str,
    pub transcript: &'static str,
    pub last_interaction: &'static str,
    pub user_input: &'static str,
    pub assistant_reply: &'static str,
    pub tool_calls: &'static str,
    pub earlier_calls: &'static str,
    pub no_prompt: &'static str,
    /// Over the request a continuation ("continue", "thanks") carries on.
    pub continues: &'static str,
    pub no_reply: &'static str,
    pub tasks: &'static str,
    pub in_progress: &'static str,
    pub no_tasks: &'static str,
    pub tasks_cleared: &'static str,
    pub more_tasks: &'static str,
    pub plan: &'static str,
    pub files: &'static str,
    pub modified: &'static str,
    pub read: &'static str,
    /// Under "Read" when nothing but modified files was read: docs/design.md §3.8 lists a
    /// file read and then modified only as modified, so a bare "(none)" would be untrue.
    pub read_only_modified: &'static str,
    /// Under a "Read" list when files were also modified, for the same reason.
    pub read_and_modified: &'static str,
    pub none: &'static str,
    pub last_action: &'static str,
    pub ok: &'static str,
    pub failed: &'static str,
    pub no_result: &'static str,
    /// The outcome of a tool call the user refused.
    pub rejected: &'static str,
    /// Under an offline summary's code changes: they are the Files section's.
    pub changes_in_files: &'static str,
    /// Under an offline summary's preferences and decisions: they are Session so far's.
    pub in_session_so_far: &'static str,
    pub session: &'static str,
    pub your_requests: &'static str,
    pub standing: &'static str,
    pub decisions_taken: &'static str,
    pub failed_approaches: &'static str,
    /// The user's answers to the assistant's questions (`AskUserQuestion`, a question
    /// a turn ended with).
    pub your_answers: &'static str,
    /// Commands the user ran themselves (Claude Code's bash mode, Codex's `!`), and
    /// what they printed.
    pub bash_context: &'static str,
    /// What hooks (a Stop hook) required.
    pub hook_requirements: &'static str,
    /// The same three lists as a model's summary gave them, marked as such.
    pub model_preferences: &'static str,
    pub model_decisions: &'static str,
    pub model_failed: &'static str,
    /// Under an offline summary's preferences or decisions when Session so far has none
    /// either: a pointer to an empty section would mislead.
    pub none_found: &'static str,
    pub commits: &'static str,
    /// Session so far: the commands run again and again.
    pub checks: &'static str,
    pub earlier_files: &'static str,
    pub earlier_tasks: &'static str,
    pub left_open: &'static str,
    pub nothing_lasting: &'static str,
    pub ai_summary: &'static str,
    pub task_summary: &'static str,
    pub code_changes: &'static str,
    pub table_header: &'static str,
    pub key_decisions: &'static str,
    pub decision: &'static str,
    pub reason: &'static str,
    pub preferences: &'static str,
    pub follow_ups: &'static str,
    pub summary_by: &'static str,
    pub compaction_summary: &'static str,
}

const EN: Labels = Labels {
    title: "Session memory",
    metadata: "Metadata",
    session_id: "Session ID",
    project: "Project",
    time: "Saved at",
    trigger: "Trigger",
    custom_instructions: "Custom instructions",
    claude_code: "Claude Code",
    branch: "branch",
    transcript: "Transcript",
    last_interaction: "Last complete interaction",
    user_input: "User input",
    assistant_reply: "Assistant reply",
    tool_calls: "Tool calls",
    earlier_calls: "earlier calls not listed",
    no_prompt: "(no user prompt found in the transcript)",
    continues: "The request this continues",
    no_reply: "(no reply yet)",
    tasks: "Current task list",
    in_progress: "in progress",
    no_tasks: "(no task list in this session)",
    tasks_cleared: "(the task list was cleared)",
    more_tasks: "more tasks not listed",
    plan: "Plan",
    files: "Files",
    modified: "Modified",
    read: "Read",
    read_only_modified: "(none besides the modified files)",
    read_and_modified: "(files read and then modified are listed under Modified only)",
    none: "(none)",
    last_action: "Last action",
    ok: "succeeded",
    failed: "failed",
    no_result: "no result yet",
    rejected: "refused by the user",
    changes_in_files: "(the files changed are listed under Files above)",
    in_session_so_far: "(listed under Session so far above)",
    session: "Session so far",
    your_requests: "Your requests",
    standing: "Your standing instructions",
    decisions_taken: "Decisions",
    failed_approaches: "Approaches that failed",
    your_answers: "Your answers to the assistant's questions",
    bash_context: "Commands you ran yourself",
    hook_requirements: "What hooks required",
    model_preferences: "Your standing instructions (from a model's summary)",
    model_decisions: "Decisions (from a model's summary)",
    model_failed: "Approaches that failed (from a model's summary)",
    none_found: "(none found)",
    commits: "Commits made in this session",
    checks: "Commands run again and again (as last run)",
    earlier_files: "Files changed earlier in this session",
    earlier_tasks: "Tasks done earlier in this session",
    left_open: "Tasks left open on an earlier task list",
    nothing_lasting: "(no request, standing instruction, answer, decision or failed approach found yet)",
    ai_summary: "AI summary",
    task_summary: "Task summary",
    code_changes: "Code changes",
    table_header: "| file | action | note |",
    key_decisions: "Key decisions",
    decision: "Decision",
    reason: "Reason",
    preferences: "User preferences",
    follow_ups: "Follow-ups",
    summary_by: "Summary by",
    compaction_summary: "Claude Code compaction summary",
};

const ZH: Labels = Labels {
    title: "会话记忆",
    metadata: "元数据",
    session_id: "Session ID",
    project: "项目路径",
    time: "生成时间",
    trigger: "触发方式",
    custom_instructions: "自定义指令",
    claude_code: "Claude Code",
    branch: "分支",
    transcript: "会话记录",
    last_interaction: "最后一轮完整交互",
    user_input: "用户输入",
    assistant_reply: "助手回复",
    tool_calls: "工具调用",
    earlier_calls: "更早的调用未列出",
    no_prompt: "（会话记录中没有找到用户输入）",
    continues: "所继续的请求",
    no_reply: "（尚无回复）",
    tasks: "当前任务列表",
    in_progress: "进行中",
    no_tasks: "（本会话没有任务列表）",
    tasks_cleared: "（任务列表已清空）",
    more_tasks: "个任务未列出",
    plan: "执行计划",
    files: "文件",
    modified: "已修改",
    read: "已读取",
    read_only_modified: "（除已修改的文件外无）",
    read_and_modified: "（读取后又修改的文件只列在“已修改”下）",
    none: "（无）",
    last_action: "最后操作",
    ok: "成功",
    failed: "失败",
    no_result: "尚无结果",
    rejected: "被用户拒绝",
    changes_in_files: "（修改的文件见上方“文件”一节）",
    in_session_so_far: "（见上方“会话至今”一节）",
    session: "会话至今",
    your_requests: "用户的请求",
    standing: "用户的长期要求",
    decisions_taken: "已做的决策",
    failed_approaches: "失败的尝试",
    your_answers: "用户对助手提问的回答",
    bash_context: "用户自己运行的命令",
    hook_requirements: "钩子提出的要求",
    model_preferences: "用户的长期要求（来自模型摘要）",
    model_decisions: "已做的决策（来自模型摘要）",
    model_failed: "失败的尝试（来自模型摘要）",
    none_found: "（未发现）",
    commits: "本会话的提交",
    checks: "反复运行的命令（按最后一次的写法）",
    earlier_files: "本会话更早修改的文件",
    earlier_tasks: "本会话更早完成的任务",
    left_open: "更早的任务列表中未完成的任务",
    nothing_lasting: "（尚未发现请求、长期要求、回答、决策或失败的尝试）",
    ai_summary: "AI 生成摘要",
    task_summary: "任务摘要",
    code_changes: "代码变更",
    table_header: "| 文件 | 操作 | 说明 |",
    key_decisions: "关键决策",
    decision: "决策",
    reason: "原因",
    preferences: "用户偏好",
    follow_ups: "待办/后续",
    summary_by: "摘要来源",
    compaction_summary: "Claude Code 压缩摘要",
};

impl Labels {
    /// The labels of a language.
    pub fn of(lang: Lang) -> &'static Labels {
        match lang {
            Lang::En => &EN,
            Lang::Zh => &ZH,
        }
    }

    /// The heading of the agent's own compaction summary: Claude Code's, or Codex's.
    pub fn compaction_heading(&self, agent: Agent) -> &'static str {
        match (agent, self.title) {
            (Agent::ClaudeCode, _) => self.compaction_summary,
            (Agent::Codex, t) if t == ZH.title => CODEX_HEADINGS[1].1,
            (Agent::Codex, _) => CODEX_HEADINGS[0].1,
        }
    }

    /// The `## ` heading text of a section.
    pub fn heading(&self, s: Section) -> &'static str {
        match s {
            Section::Metadata => self.metadata,
            Section::LastInteraction => self.last_interaction,
            Section::Tasks => self.tasks,
            Section::Plan => self.plan,
            Section::Files => self.files,
            Section::LastAction => self.last_action,
            Section::Session => self.session,
            Section::AiSummary => self.ai_summary,
            Section::CompactionSummary => self.compaction_summary,
        }
    }
}

/// The note of a memory whose model summary is still being written.
pub fn pending_note(source: &str, lang: Lang) -> String {
    match lang {
        Lang::En => format!(
            "A summary by {source} is being written in the background; until it arrives, this is the offline summary."
        ),
        Lang::Zh => format!("{source} 正在后台生成摘要；在此之前，以下是离线摘要。"),
    }
}

/// Whether a memory's text still says its model summary is on its way ([`pending_note`],
/// in either language).
pub fn summary_pending(text: &str) -> bool {
    text.contains("is being written in the background; until it arrives")
        || text.contains("正在后台生成摘要")
}

/// The note of a memory whose model summary failed.
pub fn failed_note(source: &str, error: &str, lang: Lang) -> String {
    match lang {
        Lang::En => {
            format!("The summary by {source} failed ({error}); this is the offline summary.")
        }
        Lang::Zh => format!("{source} 生成摘要失败（{error}）；以下是离线摘要。"),
    }
}

/// The note of a memory that got the offline summary although a model was wanted.
pub fn offline_note(reason: &str, lang: Lang) -> String {
    match lang {
        Lang::En => format!("{reason}; this is the offline summary."),
        Lang::Zh => format!("{reason}；以下是离线摘要。"),
    }
}

/// The task list as Markdown check boxes, in `lang`: the memory's Tasks section, and
/// the summary prompt's.
pub fn task_list(todos: Option<&TodoList>, lang: Lang) -> String {
    let l = Labels::of(lang);
    let Some(todos) = todos else {
        return format!("{}\n", l.no_tasks);
    };
    if todos.items.is_empty() {
        return format!("{}\n", l.tasks_cleared);
    }
    let style = TaskLine::Memory {
        in_progress: l.in_progress,
    };
    let mut out = String::new();
    for t in todos.items.iter().take(MAX_TASKS_SHOWN) {
        let _ = writeln!(out, "{}", t.line(style, crate::transcript::TASK_CHARS));
    }
    let rest = todos.items.len().saturating_sub(MAX_TASKS_SHOWN);
    if rest > 0 {
        let _ = writeln!(out, "- … {rest} {}", l.more_tasks);
    }
    out
}

/// The tasks a memory's task list section shows (what [`task_list`] wrote, in either
/// language; the count of the rest is not a task): the list of a memory whose front
/// matter could not hold it.
pub fn tasks_shown(section: &str) -> Vec<TodoItem> {
    let item = |content: &str, status| {
        // `untrusted::line` escapes a task box that starts the content.
        let content = content
            .strip_prefix('\\')
            .filter(|c| c.starts_with('['))
            .unwrap_or(content);
        TodoItem {
            content: content.to_string(),
            status,
            active_form: None,
        }
    };
    section
        .lines()
        .filter_map(|l| {
            let l = l.trim_end();
            if let Some(c) = l.strip_prefix("- [x] ") {
                return Some(item(c, TaskStatus::Completed));
            }
            let rest = l.strip_prefix("- [ ] ")?;
            let in_progress = [EN.in_progress, ZH.in_progress].iter().find_map(|label| {
                rest.strip_prefix("**")?
                    .strip_prefix(label)?
                    .strip_prefix("**: ")
            });
            Some(match in_progress {
                Some(c) => item(c, TaskStatus::InProgress),
                None => item(rest, TaskStatus::Pending),
            })
        })
        .collect()
}

/// Most tasks a memory's task list shows; a longer list ends with a count of the rest,
/// so a memory stays within what the tools read (docs/design.md §4.2).
const MAX_TASKS_SHOWN: usize = 200;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pending_note_is_known_in_both_languages() {
        for lang in [Lang::En, Lang::Zh] {
            assert!(summary_pending(&pending_note("claude-cli", lang)));
            assert!(!summary_pending(&failed_note(
                "claude-cli",
                "timeout",
                lang
            )));
        }
    }

    #[test]
    fn a_task_list_reads_back_in_both_languages() {
        let todos = TodoList {
            source: crate::transcript::TodoSource::TodoWrite,
            items: [
                ("Ship it", TaskStatus::Completed),
                ("Write **the** tests", TaskStatus::InProgress),
                ("[ ] looks like a box", TaskStatus::Pending),
            ]
            .into_iter()
            .map(|(c, status)| TodoItem {
                content: c.to_string(),
                status,
                active_form: None,
            })
            .collect(),
        };
        for lang in [Lang::En, Lang::Zh] {
            let shown = task_list(Some(&todos), lang);
            assert_eq!(tasks_shown(&shown), todos.items, "{shown}");
        }
        let mut long = todos.clone();
        long.items = (0..MAX_TASKS_SHOWN + 5)
            .map(|i| TodoItem {
                content: format!("task {i}"),
                status: TaskStatus::Pending,
                active_form: None,
            })
            .collect();
        let shown = task_list(Some(&long), Lang::En);
        assert!(shown.ends_with("- … 5 more tasks not listed\n"), "{shown}");
        assert_eq!(tasks_shown(&shown).len(), MAX_TASKS_SHOWN);
    }

    #[test]
    fn sections_parse_from_keys_and_headings_in_both_languages() {
        for s in Section::ALL {
            assert_eq!(Section::parse(s.key()), Some(s));
            assert_eq!(Section::from_heading(EN.heading(s)), Some(s));
            assert_eq!(Section::from_heading(ZH.heading(s)), Some(s));
        }
        assert_eq!(Section::parse("当前任务列表"), Some(Section::Tasks));
        assert_eq!(
            Section::parse("Last complete interaction"),
            Some(Section::LastInteraction)
        );
        assert_eq!(Section::parse("todos"), Some(Section::Tasks));
        for lang in [Lang::En, Lang::Zh] {
            let codex = Labels::of(lang).compaction_heading(Agent::Codex);
            assert_eq!(
                Section::from_heading(codex),
                Some(Section::CompactionSummary)
            );
            assert_eq!(Section::parse(codex), Some(Section::CompactionSummary));
        }
        assert_eq!(
            Labels::of(Lang::En).compaction_heading(Agent::ClaudeCode),
            "Claude Code compaction summary"
        );
        assert_eq!(Section::parse("nope"), None);
    }
}
