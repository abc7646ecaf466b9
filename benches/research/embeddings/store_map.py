"""The benchmark's store as benches/support/corpus_store.rs sees it: memory file name ->
(corpus transcript relative path, session id).

The memory's front matter names its transcript copy (target/retrieval/segments/N/NAME);
segment N is the N-th cut made by build_store, walking the corpus transcripts sorted as
Rust sorts PathBufs (by components), skipping agent-acompact*/agent-aprompt_suggestion*
and empty files, one cut per main-chain compact_boundary (not at offset 0) plus the whole
file. Each mapping is verified: the segment copy must be a byte prefix of the transcript
it maps to."""
import json
import os

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
CORPUS = os.path.normpath(os.path.join(REPO, "../shared/corpus/transcripts"))
WORK = os.path.join(REPO, "target/retrieval")
MEM_DIR = os.path.join(WORK, "project/.claude/memories")


def _collect(d, out):
    for e in os.scandir(d):
        if e.is_dir():
            _collect(e.path, out)
        elif e.name.endswith(".jsonl"):
            out.append(e.path)


def _boundaries(data: bytes):
    out, at = [], 0
    for line in data.splitlines(keepends=True):
        try:
            v = json.loads(line)
        except Exception:
            v = None
        if (
            isinstance(v, dict)
            and v.get("type") == "system"
            and v.get("subtype") == "compact_boundary"
            and v.get("isSidechain") is not True
            and at > 0
        ):
            out.append(at)
        at += len(line)
    return out


def segment_map():
    ts = []
    _collect(CORPUS, ts)
    ts.sort(key=lambda p: tuple(os.fsencode(c) for c in os.path.relpath(p, CORPUS).split(os.sep)))
    by_copy = {}
    n = 0
    for t in ts:
        rel = os.path.relpath(t, CORPUS)
        name = os.path.basename(t)
        if name.startswith("agent-acompact") or name.startswith("agent-aprompt_suggestion"):
            continue
        data = open(t, "rb").read()
        if not data:
            continue
        cuts = _boundaries(data) + [len(data)]
        for cut in cuts:
            n += 1
            copy = os.path.join(WORK, "segments", str(n), name)
            by_copy[copy] = (rel, t, cut)
    return by_copy


def _field(text, key):
    for l in text.splitlines():
        if l.startswith(key):
            try:
                return json.loads(l[len(key):].strip())
            except Exception:
                return ""
    return ""


def memories(verify=True):
    """{file: (rel, session_id)} exactly as build_store builds Store.memories."""
    by_copy = segment_map()
    out = {}
    for f in sorted(os.listdir(MEM_DIR)):
        if not f.endswith(".md") or f == "INDEX.md":
            continue
        text = open(os.path.join(MEM_DIR, f), encoding="utf-8", errors="replace").read()
        tr = _field(text, "transcript: ")
        if tr not in by_copy:
            continue
        rel, src, cut = by_copy[tr]
        if verify and os.path.exists(tr):
            seg = open(tr, "rb").read()
            full = open(src, "rb").read()
            assert len(seg) == cut and full[:cut] == seg, f"segment {tr} is not {rel}[:{cut}]"
        out[f] = (rel, _field(text, "session_id: "))
    return out


if __name__ == "__main__":
    m = memories()
    print(len(m), "memories of", len({s for _, s in m.values()}), "sessions")
