"""list_memories.py of the ORIGINAL memory-stalker design: list, find and parse memories.

A reimplementation for benchmarking, written from the design document (seed 003,
sections 4.3, 5 and 12), not the original code: same algorithm and data flow, neither
optimised nor pessimised. Python 3 standard library only.

The design has list_memories (newest first, an optional filter on date / session id,
an optional limit; each listed file is parsed for its metadata), find_memory
("latest", a date, a session-id prefix or a file name) and parse_memory_file. It has
no full-text search. The command line (the design leaves it to the skills) is:

    list_memories.py [--project DIR] [--filter TEXT] [--limit N] [--json]
    list_memories.py [--project DIR] find TARGET [--json]

parse_memory_file reads the design's headings (section 6) and their English
equivalents, so it also reads the memories the Rust hook writes.
"""

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Dict, List, Optional

# {YYYYMMDD}_{HHMMSS}_{session_id[:8]}.md (design section 12)
MEMORY_NAME = re.compile(r"^(\d{8})_(\d{6})_(.+)\.md$")

TASK_HEADINGS = ("## 当前任务列表", "## Current task list")
SUMMARY_HEADINGS = ("### 任务摘要", "### Task summary")


def get_memories_dir(project_path: str) -> Path:
    return Path(project_path) / ".claude" / "memories"


def parse_memory_file(file_path: str) -> dict:
    """Date, session id, task count and summary (the first task-summary item)."""
    path = Path(file_path)
    text = path.read_text(encoding="utf-8", errors="replace")
    match = MEMORY_NAME.match(path.name)
    date = ""
    session_id = ""
    if match:
        d, t, session_id = match.groups()
        date = "{}-{}-{} {}:{}:{}".format(d[:4], d[4:6], d[6:], t[:2], t[2:4], t[4:])
    task_count = 0
    summary = ""
    section = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            if stripped.startswith(TASK_HEADINGS):
                section = "tasks"
            elif stripped.startswith(SUMMARY_HEADINGS):
                section = "summary"
            else:
                section = None
            continue
        if stripped.startswith("- Session ID:"):
            session_id = stripped.split(":", 1)[1].strip().strip("`")
        elif section == "tasks" and stripped.startswith("- ["):
            task_count += 1
        elif section == "summary" and not summary and stripped.startswith("- "):
            summary = stripped[2:]
    return {
        "filename": path.name,
        "path": str(path),
        "date": date,
        "session_id": session_id[:8],
        "summary": summary,
        "task_count": task_count,
        "size_bytes": path.stat().st_size,
    }


def _memory_files(project_path: str) -> List[Path]:
    directory = get_memories_dir(project_path)
    if not directory.is_dir():
        return []
    files = [p for p in directory.iterdir() if MEMORY_NAME.match(p.name)]
    # The name starts with the time of writing: newest first.
    files.sort(key=lambda p: p.name, reverse=True)
    return files


def list_memories(
    project_path: str, filter_pattern: str = None, limit: int = None
) -> List[dict]:
    """Memory files, newest first, each parsed for its metadata."""
    files = _memory_files(project_path)
    if filter_pattern:
        pattern = filter_pattern.lower()
        files = [p for p in files if pattern in p.name.lower()]
    if limit is not None:
        files = files[:limit]
    return [parse_memory_file(str(p)) for p in files]


def find_memory(project_path: str, target: str) -> Optional[dict]:
    """"latest", a date (20260129), a session-id prefix, or a whole file name."""
    if target == "latest":
        memories = list_memories(project_path, limit=1)
        return memories[0] if memories else None
    for p in _memory_files(project_path):
        match = MEMORY_NAME.match(p.name)
        date, _, session = match.groups()
        if p.name == target or date.startswith(target) or session.startswith(target):
            return parse_memory_file(str(p))
    return None


def _table(memories: List[Dict]) -> str:
    lines = ["| # | 日期 | Session | 任务数 | 摘要 |", "|---|------|---------|--------|------|"]
    for i, m in enumerate(memories, 1):
        summary = m["summary"] if len(m["summary"]) <= 40 else m["summary"][:40] + "..."
        lines.append(
            "| {} | {} | {} | {} | {} |".format(
                i, m["date"][:16], m["session_id"], m["task_count"], summary
            )
        )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description="List memory-stalker memories")
    parser.add_argument("--project", default=os.getcwd())
    parser.add_argument("--filter")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("command", nargs="?", choices=["list", "find"], default="list")
    parser.add_argument("target", nargs="?")
    args = parser.parse_args()

    if args.command == "find":
        memory = find_memory(args.project, args.target or "latest")
        if memory is None:
            print("没有找到记忆文件", file=sys.stderr)
            sys.exit(1)
        print(json.dumps(memory, ensure_ascii=False, indent=2) if args.json else _table([memory]))
        return
    memories = list_memories(args.project, args.filter, args.limit)
    print(json.dumps(memories, ensure_ascii=False, indent=2) if args.json else _table(memories))


if __name__ == "__main__":
    main()
