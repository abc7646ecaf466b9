"""PreCompact hook of the ORIGINAL memory-stalker design (enhanced compaction script).

A reimplementation for benchmarking, written from the design document (seed 003,
sections 4.2, 6, 10 and 12), not the original code: same algorithm and data flow,
neither optimised nor pessimised. Python 3 standard library only (the design's
`anthropic` SDK call is made with urllib, the same Messages API request).

Flow (design 4.2): read the hook input from stdin, parse the whole transcript, take
the last interaction, the current TodoWrite list and the conversation text, ask the
model for the summary part, assemble the memory, save it to
{project}/.claude/memories/{YYYYMMDD}_{HHMMSS}_{session_id[:8]}.md and print
{"continue": true}. With no ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN, no model is
called and the summary part says so (the offline case).
"""

import json
import os
import sys
import urllib.request
from datetime import datetime
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from transcript_parser import (  # noqa: E402
    extract_conversation_text,
    get_current_todos,
    get_last_interaction,
    parse_transcript,
)

DEFAULT_MODEL = "claude-sonnet-4-20250514"

SUMMARY_PROMPT = """请根据下面的 Claude Code 对话记录生成记忆摘要，使用 Markdown，包含以下小节：
### 任务摘要
### 代码变更
### 关键决策
### 用户偏好
### 待办/后续
{custom}
对话记录：

{conversation}"""


def format_todos_markdown(todos: List[dict]) -> str:
    lines = []
    for todo in todos:
        content = todo.get("content", "")
        status = todo.get("status", "pending")
        if status == "completed":
            lines.append("- [x] " + content)
        elif status == "in_progress":
            lines.append("- [ ] **进行中**: " + content)
        else:
            lines.append("- [ ] " + content)
    return "\n".join(lines) if lines else "(无任务列表)"


def format_last_interaction(interaction: Dict[str, str]) -> str:
    return (
        "### 用户输入\n```\n{}\n```\n\n### 助手回复\n```\n{}\n```".format(
            interaction.get("user_message", ""), interaction.get("assistant_message", "")
        )
    )


def get_api_config() -> dict:
    return {
        "key": os.environ.get("ANTHROPIC_API_KEY"),
        "auth_token": os.environ.get("ANTHROPIC_AUTH_TOKEN"),
        "base_url": os.environ.get("ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
        "model": os.environ.get("ANTHROPIC_DEFAULT_SONNET_MODEL", DEFAULT_MODEL),
    }


def generate_ai_summary(conversation_text: str, api_config: dict, custom: str = "") -> str:
    if not (api_config.get("key") or api_config.get("auth_token")):
        return "_(AI 摘要未生成：未配置 ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN)_"
    headers = {"content-type": "application/json", "anthropic-version": "2023-06-01"}
    if api_config.get("key"):
        headers["x-api-key"] = api_config["key"]
    else:
        headers["authorization"] = "Bearer " + api_config["auth_token"]
    prompt = SUMMARY_PROMPT.format(
        custom=("\n额外要求：" + custom + "\n") if custom else "", conversation=conversation_text
    )
    body = json.dumps(
        {
            "model": api_config["model"],
            "max_tokens": 4096,
            "messages": [{"role": "user", "content": prompt}],
        }
    ).encode("utf-8")
    request = urllib.request.Request(
        api_config["base_url"].rstrip("/") + "/v1/messages", data=body, headers=headers
    )
    try:
        with urllib.request.urlopen(request, timeout=110) as response:
            answer = json.loads(response.read().decode("utf-8"))
        return "".join(
            b.get("text", "") for b in answer.get("content", []) if b.get("type") == "text"
        )
    except Exception as e:  # the memory is saved without the summary
        return "_(AI 摘要生成失败：{})_".format(e)


def assemble_memory_content(
    session_id: str,
    project_path: str,
    trigger: str,
    last_interaction: Dict[str, str],
    todos: List[dict],
    ai_summary: str,
    now: datetime,
) -> str:
    stamp = now.strftime("%Y-%m-%d %H:%M:%S")
    return "\n".join(
        [
            "# 会话记忆 - " + stamp,
            "",
            "## 元数据",
            "- Session ID: " + session_id,
            "- 项目路径: " + project_path,
            "- 生成时间: " + stamp,
            "- 触发方式: " + trigger,
            "",
            "## 最后一轮完整交互",
            "",
            format_last_interaction(last_interaction),
            "",
            "## 当前任务列表",
            format_todos_markdown(todos),
            "",
            "---",
            "",
            "## AI 生成摘要",
            "",
            ai_summary,
            "",
        ]
    )


def main():
    hook_input = json.load(sys.stdin)
    session_id = hook_input.get("session_id") or "unknown"
    transcript_path = hook_input.get("transcript_path")
    project_path = hook_input.get("cwd") or os.getcwd()
    trigger = hook_input.get("trigger") or "auto"
    custom = hook_input.get("custom_instructions") or ""

    records = parse_transcript(transcript_path)
    last_interaction = get_last_interaction(records)
    todos = get_current_todos(records)
    conversation_text = extract_conversation_text(records)

    ai_summary = generate_ai_summary(conversation_text, get_api_config(), custom)

    now = datetime.now()
    content = assemble_memory_content(
        session_id, project_path, trigger, last_interaction, todos, ai_summary, now
    )
    memories_dir = Path(project_path) / ".claude" / "memories"
    memories_dir.mkdir(parents=True, exist_ok=True)
    path = memories_dir / "{}_{}.md".format(now.strftime("%Y%m%d_%H%M%S"), session_id[:8])
    path.write_text(content, encoding="utf-8")

    print(json.dumps({"continue": True}))


if __name__ == "__main__":
    main()
