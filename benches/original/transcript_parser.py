"""transcript.jsonl parser of the ORIGINAL memory-stalker design.

A reimplementation for benchmarking, written from the design document (seed 003,
section 4.1 "transcript_parser.py"), not the original code: same algorithm and data
flow (every record is loaded with json.loads, then the list is searched), neither
optimised nor pessimised. Python 3 standard library only.
"""

import json
from typing import Dict, List


def parse_transcript(file_path: str) -> List[dict]:
    """Parses transcript.jsonl and returns every record, in file order."""
    records = []
    with open(file_path, "r", encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return records


def _content_blocks(record: dict) -> list:
    """message.content as a list of blocks (a plain string is one text block)."""
    message = record.get("message")
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def _user_text(record: dict) -> str:
    """The text the user wrote (tool_result blocks are not user text)."""
    parts = [b.get("text", "") for b in _content_blocks(record) if b.get("type") == "text"]
    return "\n".join(p for p in parts if p)


def _assistant_parts(record: dict, with_tools: bool) -> List[str]:
    parts = []
    for block in _content_blocks(record):
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            parts.append(block["text"])
        elif kind == "tool_use" and with_tools:
            tool_input = json.dumps(block.get("input", {}), ensure_ascii=False)
            parts.append("[工具调用: {}] {}".format(block.get("name", "?"), tool_input))
    return parts


def get_last_interaction(records: List[dict]) -> Dict[str, str]:
    """The last complete interaction (user input + assistant reply).

    1. walk the records backwards
    2. find the last type="user" record (one that carries user text: a record holding
       only tool_result blocks is the tool's answer, not a user message)
    3. collect every type="assistant" record after it
    4. merge the assistant's records (streaming writes one record per block)
    """
    index = None
    for i in range(len(records) - 1, -1, -1):
        record = records[i]
        if record.get("type") == "user" and _user_text(record):
            index = i
            break
    if index is None:
        return {"user_message": "", "assistant_message": "", "timestamp": ""}
    user = records[index]
    assistant_parts = []
    for record in records[index + 1:]:
        if record.get("type") == "assistant":
            assistant_parts.extend(_assistant_parts(record, with_tools=True))
    return {
        "user_message": _user_text(user),
        "assistant_message": "\n\n".join(assistant_parts),
        "timestamp": user.get("timestamp", ""),
    }


def get_current_todos(records: List[dict]) -> List[dict]:
    """The newest task list: tool_use.input.todos of the last TodoWrite call, or []."""
    for i in range(len(records) - 1, -1, -1):
        record = records[i]
        if record.get("type") != "assistant":
            continue
        for block in reversed(_content_blocks(record)):
            if block.get("type") == "tool_use" and block.get("name") == "TodoWrite":
                todos = block.get("input", {}).get("todos", [])
                return todos if isinstance(todos, list) else []
    return []


def extract_conversation_text(records: List[dict], max_chars: int = 50000) -> str:
    """The conversation as "User: …\\n\\nAssistant: …" text for the AI summary; when
    longer than max_chars, the earliest part is cut off."""
    parts = []
    last_role = None
    for record in records:
        kind = record.get("type")
        if kind == "user":
            text = _user_text(record)
            if text:
                parts.append("User: " + text)
                last_role = "user"
        elif kind == "assistant":
            text = "\n".join(_assistant_parts(record, with_tools=False))
            if not text:
                continue
            if last_role == "assistant":
                parts[-1] += "\n" + text
            else:
                parts.append("Assistant: " + text)
                last_role = "assistant"
    conversation = "\n\n".join(parts)
    if len(conversation) > max_chars:
        conversation = conversation[-max_chars:]
    return conversation
