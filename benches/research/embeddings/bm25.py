"""Our current ranking: the release list-memories, as benches/retrieval.rs `fn index` runs
it (`--project P search --json --limit N -- Q`, CLAUDE_PLUGIN_DATA=P/../data), but on a
copy of the benchmark store under target/research-embeddings/store (the search keeps
its SQLite index inside the store, and the benchmark's own store stays as it is)."""
import json
import os
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "../../.."))
WORK = os.path.join(REPO, "target/research-embeddings")
BIN = os.path.join(REPO, "target/release/list-memories")
SRC = os.path.join(REPO, "target/retrieval")
STORE = os.path.join(WORK, "store")
PROJECT = os.path.join(STORE, "project")


def fresh_copy():
    if os.path.exists(STORE):
        shutil.rmtree(STORE)
    os.makedirs(STORE)
    shutil.copytree(os.path.join(SRC, "project"), PROJECT, symlinks=True)
    shutil.copytree(os.path.join(SRC, "data"), os.path.join(STORE, "data"), symlinks=True)


def search(q, limit=50):
    env = dict(os.environ)
    env["CLAUDE_PLUGIN_DATA"] = os.path.join(PROJECT, "../data")
    env["HOME"] = os.path.join(WORK, "home")
    out = subprocess.run(
        [BIN, "--project", PROJECT, "search", "--json", "--limit", str(limit), "--", q],
        env=env, cwd=PROJECT, capture_output=True, check=False,
    )
    try:
        v = json.loads(out.stdout)
    except Exception:
        return []
    return [h["file"] for h in v.get("hits", []) if "file" in h]


def run_all(questions, limit=50):
    os.makedirs(os.path.join(WORK, "home"), exist_ok=True)
    fresh_copy()
    return {q["id"]: search(q["question"], limit) for q in questions}
