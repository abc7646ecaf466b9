#!/usr/bin/env python3
"""Pseudo-relevance feedback (PRF) on memory-stalker's search: does expanding a question
with words of its first results, searching again and fusing the two rankings, raise
hit@1 / hit@5 on the retrieval benchmark? No model; Python standard library only.

    benches/research/prf/run    (checks the store, then runs this)

The first and the second search are the release `list-memories search --json`, called
as benches/retrieval.rs `fn index` calls it, on a copy of the benchmark's store (the
search keeps its SQLite index inside the store). Expansion words come from the memory
files of the first search's top k sessions. Every parameter is chosen on the dev
questions only; the held-out questions are searched once, for the chosen variant, and
only their totals are printed. Writes target/research-prf/out/results.md and ranks.json.
"""
import itertools
import json
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "../../.."))
sys.path.insert(0, os.path.join(HERE, "../embeddings"))
from store_map import memories as store_memories  # noqa: E402  (memory file -> session)
from ranks import metrics  # noqa: E402

WORK = os.path.join(REPO, "target/research-prf")
OUT = os.path.join(WORK, "out")
STORE = os.path.join(WORK, "store")
PROJECT = os.path.join(STORE, "project")
MEM_DIR = os.path.join(PROJECT, ".claude/memories")
BIN = os.path.join(REPO, "target/release/list-memories")
SRC = os.path.join(REPO, "target/retrieval")
QUESTIONS = os.path.join(REPO, "tests/data/retrieval/questions.json")
LIMIT = 20  # as the benchmark: --limit 20

lines = []


def say(s=""):
    print(s, flush=True)
    lines.append(s)


# ---------------------------------------------------------------------------------------
# the search: the release binary on a copy of the store, memoised per query string
# ---------------------------------------------------------------------------------------
class Searcher:
    def __init__(self):
        if os.path.exists(STORE):
            shutil.rmtree(STORE)
        os.makedirs(STORE)
        shutil.copytree(os.path.join(SRC, "project"), PROJECT, symlinks=True)
        shutil.copytree(os.path.join(SRC, "data"), os.path.join(STORE, "data"), symlinks=True)
        os.makedirs(os.path.join(WORK, "home"), exist_ok=True)
        self.cache = {}
        self.calls = 0
        self.seconds = 0.0

    def __call__(self, q):
        """Hits best first: [(file, session_id)], one per session, at most LIMIT."""
        if q in self.cache:
            return self.cache[q]
        env = dict(os.environ)
        env["CLAUDE_PLUGIN_DATA"] = os.path.join(PROJECT, "../data")
        env["HOME"] = os.path.join(WORK, "home")
        t = time.perf_counter()
        out = subprocess.run(
            [BIN, "--project", PROJECT, "search", "--json", "--limit", str(LIMIT), "--", q],
            env=env, cwd=PROJECT, capture_output=True, check=False,
        )
        self.seconds += time.perf_counter() - t
        self.calls += 1
        try:
            v = json.loads(out.stdout)
        except Exception:
            v = {}
        hits = [(h["file"], h.get("session_id", "")) for h in v.get("hits", []) if "file" in h]
        self.cache[q] = hits
        return hits


# ---------------------------------------------------------------------------------------
# scoring, exactly as benches/retrieval.rs: memory files -> sessions in order (each once,
# at its best place) -> rank of the first expected transcript
# ---------------------------------------------------------------------------------------
def rank_of(mem, files, expect):
    seen, i = set(), 0
    for f in files:
        if f not in mem:
            continue
        rel, sess = mem[f]
        if sess in seen:
            continue
        seen.add(sess)
        i += 1
        if rel in expect:
            return i
    return None


def fmt(m):
    return f"{m['h1']:.1f} % | {m['h5']:.1f} % | {m['mrr']:.3f}"


# ---------------------------------------------------------------------------------------
# memory text -> words -> Porter stems (SQLite's own porter tokenizer, as the index)
# ---------------------------------------------------------------------------------------
# The query parser's stop words (crates/memory-stalker/src/search/query.rs), and the
# words of the memory template and of transcripts that say nothing about a session.
STOP = set("""
a about above after again ago all also am an and any anything are around as at back be
because been before being between both but by can could did do does doing done during
each earlier either else ever every for from get got had has have having he her here him
his how i if in into is it its itself just last me might more most my myself no nor not
now of off on once one only or other our ours out over own please previous previously
recall remember same she should so some something such than that the their them then
there these they thing things this those through to too under until up us very was we
were what when where whether which while who whom why will with would yes you your yours
let lets need needs use used using make made like want see now also well sure okay ok
true false none null yes dont doesn didn isn wasn aren won can't i'm it's that's
session memory user assistant reply input text markdown claude code task tasks summary
""".split())

WORD = re.compile(r"[^\W_]+", re.UNICODE)


def memory_text(file):
    """The memory's text as the index sees it, near enough: the body after the front
    matter, without the Metadata section (ids, paths, times)."""
    text = open(os.path.join(MEM_DIR, file), encoding="utf-8", errors="replace").read()
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end >= 0:
            text = text[end + 5:]
    text = re.sub(r"\n## Metadata\n.*?(?=\n## )", "\n", text, flags=re.S)
    return text


def words_of(text):
    out = []
    for w in WORD.findall(text.lower()):
        if len(w) < 3 or len(w) > 24 or w in STOP:
            continue
        if any(c.isdigit() for c in w):  # hashes, ids, versions, line numbers
            continue
        out.append(w)
    return out


class Stemmer:
    """Porter stems from SQLite's FTS5 'porter unicode61' tokenizer, memoised."""

    def __init__(self):
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')")
        self.db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        self.memo = {}

    def stems(self, words):
        new = sorted(set(w for w in words if w not in self.memo))
        if new:
            self.db.execute("DELETE FROM t")
            self.db.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", list(enumerate(new)))
            got = {doc: term for term, doc in self.db.execute("SELECT term, doc FROM v")}
            for i, w in enumerate(new):
                self.memo[w] = got.get(i, w)
        return [self.memo[w] for w in words]


class Docs:
    """Per memory: stem counts, length; df over the store; the most common surface
    word of each stem (what is typed into the second query)."""

    def __init__(self, files, stemmer):
        self.tf, self.len = {}, {}
        self.df = Counter()
        surface = defaultdict(Counter)
        for f in files:
            ws = words_of(memory_text(f))
            ss = stemmer.stems(ws)
            for w, s in zip(ws, ss):
                surface[s][w] += 1
            c = Counter(ss)
            self.tf[f], self.len[f] = c, max(sum(c.values()), 1)
            self.df.update(c.keys())
        self.n = len(files)
        self.surface = {s: c.most_common(1)[0][0] for s, c in surface.items()}

    def idf(self, s):
        return math.log((self.n + 1) / (self.df[s] + 0.5))


# ---------------------------------------------------------------------------------------
# PRF
# ---------------------------------------------------------------------------------------
EXP_MEMO = {}


def expansion(docs, stemmer, question, hits, k, n, scheme, maxdf):
    key = (question, k, n, scheme, maxdf)
    if key not in EXP_MEMO:
        EXP_MEMO[key] = _expansion(docs, stemmer, question, hits, k, n, scheme, maxdf)
    return EXP_MEMO[key]


def _expansion(docs, stemmer, question, hits, k, n, scheme, maxdf):
    """The n best expansion words from the memories of the first k hits (one per
    session), not already in the question. scheme 'rm': RM1 with rank weights
    (sum over d of w_d * tf/|d|); 'rmidf': the same times idf; 'tfidf': Rocchio centroid
    of tf-idf vectors. A word in more than maxdf of the memories is never used."""
    q_stems = set(stemmer.stems(words_of(question)))
    score = Counter()
    for r, (f, _) in enumerate(hits[:k]):
        wd = 1.0 / (r + 1)
        tf, ln = docs.tf[f], docs.len[f]
        for s, c in tf.items():
            if s in q_stems or docs.df[s] > maxdf * docs.n or docs.df[s] < 2:
                continue
            if scheme == "rm":
                score[s] += wd * c / ln
            elif scheme == "rmidf":
                score[s] += wd * c / ln * docs.idf(s)
            else:  # tfidf (Rocchio): log tf, idf, uniform over the k docs
                score[s] += (1 + math.log(c)) * docs.idf(s) / k
    return [docs.surface[s] for s, _ in score.most_common(n)]


def fuse(first, second, alpha, c):
    """Weighted reciprocal-rank fusion of two hit lists, by session: (1-alpha)/(c+r1) +
    alpha/(c+r2); a session keeps the file of its better-placed list. Ties: first list."""
    sc, best, pos = defaultdict(float), {}, {}
    for w, lst in ((1 - alpha, first), (alpha, second)):
        for r, (f, s) in enumerate(lst):
            sc[s] += w / (c + r + 1)
            best.setdefault(s, f)
            pos.setdefault(s, len(pos))
    order = sorted(sc, key=lambda s: (-sc[s], pos[s]))
    # The page the user sees holds LIMIT sessions, as today's: no credit beyond it.
    return [best[s] for s in order[:LIMIT]]


def run_variant(v, qs, search, docs, stemmer, mem):
    ranks = {}
    for q in qs:
        first = search(q["question"])
        if v["mode"] == "base":
            files = [f for f, _ in first]
        else:
            exp = expansion(docs, stemmer, q["question"], first, v["k"], v["n"], v["scheme"], v["maxdf"])
            if not exp:
                second = first
            elif v["mode"] == "expand":  # question + expansion words, one query
                second = search(q["question"] + " " + " ".join(exp))
            else:  # 'eonly': the expansion words alone
                second = search(" ".join(exp))
            files = fuse(first, second, v["alpha"], v["c"])
        ranks[q["id"]] = rank_of(mem, files, q["expect"])
    return ranks


def vname(v):
    if v["mode"] == "base":
        return "today's index"
    return (f"{v['mode']} k={v['k']} n={v['n']} {v['scheme']} maxdf={v['maxdf']} "
            f"α={v['alpha']} c={v['c']}")


# Settings a first implementation would take from the literature (RM3: ~3 feedback
# documents, ~10 terms, original query weight 0.5), to show what PRF does untuned.
TEXTBOOK = [
    dict(mode="expand", k=3, n=10, scheme="rmidf", maxdf=1.0, alpha=0.5, c=60),
    dict(mode="expand", k=3, n=10, scheme="rmidf", maxdf=1.0, alpha=1.0, c=60),
    dict(mode="eonly", k=3, n=10, scheme="tfidf", maxdf=1.0, alpha=0.5, c=60),
]


def grid():
    yield dict(mode="base")
    for mode, k, n, scheme, maxdf, alpha, c in itertools.product(
        ["expand", "eonly"], [1, 2, 3, 5], [3, 5, 10, 15], ["rm", "rmidf", "tfidf"],
        [0.3, 1.0], [0.2, 0.35, 0.5, 0.65, 1.0], [1, 10, 60],
    ):
        if alpha == 1.0 and c != 60:  # the second ranking alone: c does not matter
            continue
        yield dict(mode=mode, k=k, n=n, scheme=scheme, maxdf=maxdf, alpha=alpha, c=c)


def main():
    if not os.path.isdir(os.path.join(SRC, "project/.claude/memories")) or not os.access(BIN, os.X_OK):
        sys.exit("run scripts/retrieval first: it builds the store and the release binaries")
    os.makedirs(OUT, exist_ok=True)
    mem = store_memories()
    allq = json.load(open(QUESTIONS))["questions"]
    dev = [q for q in allq if q["split"] == "dev"]
    search = Searcher()
    stemmer = Stemmer()
    docs = Docs(sorted(mem), stemmer)
    say(f"# PRF on the retrieval benchmark\n\n{len(mem)} memories of "
        f"{len({s for _, s in mem.values()})} sessions; {len(dev)} dev questions for tuning.\n")

    # --- tuning: dev only -----------------------------------------------------------
    t0 = time.time()
    results = []
    for v in grid():
        m = metrics(list(run_variant(v, dev, search, docs, stemmer, mem).values()))
        results.append((v, m))
    base_v, base_dev = results[0]
    say(f"Grid: {len(results) - 1} PRF variants on dev ({search.calls} distinct searches, "
        f"{time.time() - t0:.0f} s).\n")
    # The choice: most dev questions at hit@1 plus at hit@5, then MRR; the grid's order
    # (simpler first) breaks ties.
    key = lambda vm: (round(vm[1]["h1"] + vm[1]["h5"], 6), round(vm[1]["mrr"], 6))
    ranked = sorted(results[1:], key=key, reverse=True)
    say("Dev, best 15 of the grid (hit@1 | hit@5 | MRR):\n")
    say("| variant | dev hit@1 | dev hit@5 | dev MRR |")
    say("|---|---|---|---|")
    say(f"| {vname(base_v)} | {fmt(base_dev)} |")
    for v, m in ranked[:15]:
        say(f"| {vname(v)} | {fmt(m)} |")
    # Per family: the best of each second-query mode, and the second ranking alone.
    say("\nDev, best per family:\n")
    say("| family | best variant | dev hit@1 | dev hit@5 | dev MRR |")
    say("|---|---|---|---|---|")
    fams = {
        "expand, fused": lambda v: v["mode"] == "expand" and v["alpha"] < 1,
        "expand, second ranking alone (plain RM3-style re-query)": lambda v: v["mode"] == "expand" and v["alpha"] == 1,
        "expansion words alone, fused (Rocchio-style)": lambda v: v["mode"] == "eonly" and v["alpha"] < 1,
    }
    for name, pred in fams.items():
        v, m = max((vm for vm in results[1:] if pred(vm[0])), key=key)
        say(f"| {name} | {vname(v)} | {fmt(m)} |")
    say("\nDev, textbook settings (not tuned):\n")
    say("| variant | dev hit@1 | dev hit@5 | dev MRR |")
    say("|---|---|---|---|")
    for tv in TEXTBOOK:
        m = next(m for v, m in results if v == tv)
        say(f"| {vname(tv)} | {fmt(m)} |")
    h1s = sorted(m["h1"] for _, m in results[1:])
    h5s = sorted(m["h5"] for _, m in results[1:])
    say(f"\nOver the whole grid, dev hit@1 ranges {h1s[0]:.1f}–{h1s[-1]:.1f} % (median "
        f"{h1s[len(h1s) // 2]:.1f}), hit@5 {h5s[0]:.1f}–{h5s[-1]:.1f} % (median {h5s[len(h5s) // 2]:.1f}); "
        f"one dev question is {100 / len(dev):.2f} points.")
    beats = [vm for vm in results[1:] if vm[1]["h1"] > base_dev["h1"] and vm[1]["h5"] >= base_dev["h5"]]
    worse1 = [vm for vm in results[1:] if vm[1]["h1"] < base_dev["h1"]]
    say(f"\nOf {len(results) - 1} variants: {len(beats)} raise dev hit@1 without lowering hit@5; "
        f"{len(worse1)} lower dev hit@1.")

    chosen, chosen_dev = ranked[0]
    say(f"\nChosen on dev: **{vname(chosen)}**\n")
    base_ranks = run_variant(base_v, dev, search, docs, stemmer, mem)
    ch_ranks = run_variant(chosen, dev, search, docs, stemmer, mem)
    up = [i for i in base_ranks if (ch_ranks[i] or 99) < (base_ranks[i] or 99)]
    down = [i for i in base_ranks if (ch_ranks[i] or 99) > (base_ranks[i] or 99)]
    say(f"Dev questions moved by it: {len(up)} up ({', '.join(up)}), {len(down)} down ({', '.join(down)}).")
    for i in up + down:
        say(f"- {i}: rank {base_ranks[i]} → {ch_ranks[i]}")

    # --- held out: once, for the chosen variant and today's index ----------------------
    final = {}
    for name, v in (("today's index", base_v), ("chosen PRF", chosen)):
        r = run_variant(v, allq, search, docs, stemmer, mem)
        final[name] = {sp: metrics([r[q["id"]] for q in allq if sp == "all" or q["split"] == sp])
                       for sp in ("dev", "heldout", "all")}
        final[name]["ranks"] = r
    say("\n## Result\n")
    say("| search | dev hit@1 | dev hit@5 | dev MRR | held-out hit@1 | held-out hit@5 | held-out MRR | all hit@1 | all hit@5 | all MRR |")
    say("|---|---|---|---|---|---|---|---|---|---|")
    for name in final:
        say(f"| {name} | " + " | ".join(fmt(final[name][sp]) for sp in ("dev", "heldout", "all")) + " |")
    say(f"\n(chosen PRF = {vname(chosen)})")

    # --- cost --------------------------------------------------------------------------
    probe = [q["question"] for q in dev[:20]]
    t = time.perf_counter()
    for q in probe:
        search.cache.pop(q, None)
        search(q)
    per_search = (time.perf_counter() - t) / len(probe)
    t = time.perf_counter()
    for q in probe:
        hits = search(q)
        for f, _ in hits[: chosen.get("k", 0)]:
            words_of(memory_text(f))
    per_read = (time.perf_counter() - t) / len(probe)
    sizes = [os.path.getsize(os.path.join(MEM_DIR, f)) for f in mem]
    say(f"\nCost of the chosen variant per search: 1 extra search (the binary's process "
        f"here: {1000 * per_search:.0f} ms each, start-up included), {chosen.get('k', 0)} memory "
        f"files read and tokenised ({1000 * per_read:.1f} ms; memories average "
        f"{sum(sizes) / len(sizes) / 1024:.1f} KiB), and document frequencies of the "
        f"candidate words (here computed over the whole store once; in the index, fts5vocab).")

    open(os.path.join(OUT, "results.md"), "w").write("\n".join(lines) + "\n")
    json.dump({n: {q: r for q, r in f["ranks"].items()} for n, f in final.items()},
              open(os.path.join(OUT, "ranks.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
