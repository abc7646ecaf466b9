//! The transcripts' tool calls: Read, Bash, Edit, Write, Grep and TodoWrite, each with
//! its `tool_use` input, its `tool_result` content and its `toolUseResult`.

use super::text::{COMMANDS, TASKS, js};
use super::transcript::{CWD, TranscriptWriter};

pub(crate) struct ToolCall {
    pub(crate) name: &'static str,
    /// `tool_use.input`, JSON.
    pub(crate) input: String,
    /// `tool_result.content`, text.
    pub(crate) content: String,
    pub(crate) is_error: bool,
    /// `toolUseResult`, JSON.
    pub(crate) result: String,
}

impl TranscriptWriter {
    pub(crate) fn read_call(&mut self, bytes: Option<usize>) -> ToolCall {
        let file = self.file_path();
        let source = match bytes {
            // The result carries the file twice (content and toolUseResult).
            Some(bytes) => self.code_bytes(bytes / 2),
            None => self.code_skewed((10, 150), (150, 600), (600, 2000)),
        };
        let lines = source.lines().count();
        let numbered: String = source
            .lines()
            .enumerate()
            .map(|(i, l)| format!("{:>6}→{l}\n", i + 1))
            .collect();
        let result = format!(
            r#"{{"type":"text","file":{{"filePath":{},"content":{},"numLines":{lines},"startLine":1,"totalLines":{lines}}}}}"#,
            js(&file),
            js(&source)
        );
        ToolCall {
            name: "Read",
            input: format!(r#"{{"file_path":{}}}"#, js(&file)),
            content: numbered,
            is_error: false,
            result,
        }
    }

    pub(crate) fn bash_call(&mut self, bytes: Option<usize>) -> ToolCall {
        let command = self.rng.pick(COMMANDS).to_string();
        let stdout = match bytes {
            Some(bytes) => self.log(bytes / 2),
            None => {
                let lines = self.skewed((1, 20), (20, 150), (150, 800));
                self.bash_output(lines)
            }
        };
        let failed = bytes.is_none() && self.rng.chance(12);
        let input = format!(
            r#"{{"command":{},"description":"Run {}"}}"#,
            js(&command),
            command.split(' ').next().unwrap()
        );
        if failed {
            let content = format!("Exit code 101\n{stdout}");
            let result = js(&format!("Error: {content}"));
            return ToolCall {
                name: "Bash",
                input,
                content,
                is_error: true,
                result,
            };
        }
        let result = format!(
            r#"{{"stdout":{},"stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}}"#,
            js(&stdout)
        );
        ToolCall {
            name: "Bash",
            input,
            content: stdout,
            is_error: false,
            result,
        }
    }

    pub(crate) fn edit_call(&mut self) -> ToolCall {
        let file = self.file_path();
        let original = self.code_skewed((30, 200), (200, 600), (600, 1500));
        let old = self.code_between(1, 6);
        let new = self.code_between(2, 12);
        let start = self.rng.range(1, 90);
        let lines: Vec<String> = old
            .lines()
            .map(|l| format!("-{l}"))
            .chain(new.lines().map(|l| format!("+{l}")))
            .collect();
        let snippet: String = new
            .lines()
            .enumerate()
            .map(|(i, l)| format!("{:>6}→{l}\n", start as usize + i))
            .collect();
        let result = format!(
            r#"{{"filePath":{},"oldString":{},"newString":{},"originalFile":{},"structuredPatch":[{{"oldStart":{start},"oldLines":{},"newStart":{start},"newLines":{},"lines":{}}}],"userModified":false,"replaceAll":false}}"#,
            js(&file),
            js(&old),
            js(&new),
            js(&original),
            old.lines().count(),
            new.lines().count(),
            serde_json::to_string(&lines).unwrap()
        );
        ToolCall {
            name: "Edit",
            input: format!(
                r#"{{"replace_all":false,"file_path":{},"old_string":{},"new_string":{}}}"#,
                js(&file),
                js(&old),
                js(&new)
            ),
            content: format!(
                "The file {file} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n{snippet}"
            ),
            is_error: false,
            result,
        }
    }

    pub(crate) fn write_call(&mut self) -> ToolCall {
        let file = self.file_path();
        let content = self.code_skewed((20, 150), (150, 400), (400, 900));
        ToolCall {
            name: "Write",
            input: format!(
                r#"{{"file_path":{},"content":{}}}"#,
                js(&file),
                js(&content)
            ),
            content: format!("File created successfully at: {file}"),
            is_error: false,
            result: format!(
                r#"{{"type":"create","filePath":{},"content":{},"structuredPatch":[],"originalFile":null,"userModified":false}}"#,
                js(&file),
                js(&content)
            ),
        }
    }

    pub(crate) fn grep_call(&mut self) -> ToolCall {
        let pattern = self
            .rng
            .pick(&["retry_budget", "fn upload", "TODO", "Retry-After", "状态"])
            .to_string();
        let hits: Vec<String> = (0..self.rng.range(1, 30))
            .map(|_| {
                format!(
                    "{}:{}: {}",
                    self.file_path(),
                    self.rng.range(1, 900),
                    self.code(1).trim_end()
                )
            })
            .collect();
        let content = hits.join("\n");
        ToolCall {
            name: "Grep",
            input: format!(
                r#"{{"pattern":{},"path":"{CWD}","output_mode":"content","-n":true}}"#,
                js(&pattern)
            ),
            result: format!(
                r#"{{"mode":"content","numFiles":0,"filenames":[],"content":{},"numLines":{}}}"#,
                js(&content),
                hits.len()
            ),
            content,
            is_error: false,
        }
    }

    /// A TodoWrite call: the next task moves on; a new list when all are done.
    pub(crate) fn todo_call(&mut self) -> ToolCall {
        let old = self.todos_json();
        if self.todo_list.iter().all(|t| t.2 == "completed") {
            self.todo_list = (0..self.rng.range(3, 8))
                .map(|_| {
                    let (content, active) = self.rng.pick(TASKS);
                    let n = self.rng.range(1, 99);
                    (
                        format!("{content} (part {n})"),
                        format!("{active} (part {n})"),
                        "pending",
                    )
                })
                .collect();
            self.todo_list[0].2 = "in_progress";
        } else if let Some(i) = self.todo_list.iter().position(|t| t.2 == "in_progress") {
            self.todo_list[i].2 = "completed";
            if let Some(next) = self.todo_list.get_mut(i + 1) {
                next.2 = "in_progress";
            }
        }
        let new = self.todos_json();
        ToolCall {
            name: "TodoWrite",
            input: format!(r#"{{"todos":{new}}}"#),
            content: "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable".into(),
            is_error: false,
            result: format!(r#"{{"oldTodos":{old},"newTodos":{new}}}"#),
        }
    }

    fn todos_json(&self) -> String {
        let items: Vec<String> = self
            .todo_list
            .iter()
            .map(|(c, a, s)| {
                format!(
                    r#"{{"content":{},"status":"{s}","activeForm":{}}}"#,
                    js(c),
                    js(a)
                )
            })
            .collect();
        format!("[{}]", items.join(","))
    }
}
