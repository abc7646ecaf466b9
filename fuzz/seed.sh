#!/usr/bin/env bash
# Seeds the fuzz corpus (fuzz/corpus/transcript/, ignored by git) with a few small real
# transcripts of different Claude Code versions from the shared corpus, plus the test
# fixture. Never commit these files: the corpus is not part of the repository.
#
# Usage: fuzz/seed.sh            (from anywhere)
#   MEMORY_STALKER_CORPUS=<dir>  the corpus's transcripts/ directory
#                                (default: ../shared/corpus/transcripts beside the repo)
set -euo pipefail

fuzz_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$fuzz_dir")"
src="${MEMORY_STALKER_CORPUS:-$repo/../shared/corpus/transcripts}"
dest="$fuzz_dir/corpus/transcript"
max_bytes=$((200 * 1024))

mkdir -p "$dest"

copy() { # copy <name> <file>: only files under 200 KB
    local name="$1" file="$2" size
    size=$(wc -c <"$file")
    if [ "$size" -ge "$max_bytes" ]; then
        echo "skip $name: $size bytes" >&2
        return
    fi
    cp "$file" "$dest/$name.jsonl"
    chmod 644 "$dest/$name.jsonl"
    echo "seed $name ($size bytes)"
}

copy fixture-sample-session "$repo/tests/fixtures/sample-session.jsonl"

if [ ! -d "$src" ]; then
    echo "corpus not found at $src (set MEMORY_STALKER_CORPUS); seeded the fixture only" >&2
    exit 0
fi

ian=iansherr__claude-code-log/test/test_data/real_projects
# name (Claude Code version, what it covers) and path inside the corpus.
while read -r name path; do
    [ -z "$name" ] && continue
    if [ -f "$src/$path" ]; then
        copy "$name" "$src/$path"
    else
        echo "missing: $path" >&2
    fi
done <<EOF_LIST
v1.0.55-todowrite          $ian/-Users-dain-workspace-claude-code-log-sample/71c9afe9-d9cc-4583-86b3-e62ba682b83a.jsonl
v1.0.98-init-errors        d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl
v1.0.108-japanese-sidechain d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl
v1.0.128-plan              $ian/-Users-dain-workspace-danieldemmel-me-next/b25638d7-b104-4f06-a797-70ac33d069ed.jsonl
v2.0.0-summaries           $ian/-Users-dain-workspace-danieldemmel-me-next/3680252d-d4e3-4416-bddd-8f5b5b4fdb7f.jsonl
v2.0.28-session            $ian/-Users-dain-workspace-danieldemmel-me-next/5ed31c36-bca8-40fd-8d24-f1a1f0af7901.jsonl
v2.0.37-agent              $ian/-Users-dain-workspace-coderabbit-review-helper/agent-1d78a5e5.jsonl
v2.0.55-agent              $ian/-Users-dain-workspace-coderabbit-review-helper/agent-659acfed.jsonl
v2.1.14-headless           DRMacIver__claude-reliability/snapshot-tests/tests/hello-world-script/transcript.jsonl
v2.1.14-errors             DRMacIver__claude-reliability/snapshot-tests/tests/coverage-test-fix/transcript.jsonl
v2.1.17-plan-todos         $ian/-src-experiments-claude_p/94604a7b-062f-4369-bdf0-da948381c3e5.jsonl
v2.1.17-errors             $ian/-src-experiments-claude_p/2b4ed4c0-b905-41de-9238-273db3ec737a.jsonl
v2.1.29-compact-agent      randlee__claude-history/docs/examples/claude-history-subagents/export/source/agents/agent-acompact-d74098.jsonl
v2.1.38-short              marot__spotter/test/fixtures/transcripts/short.jsonl
v2.1.39-tasks              marot__spotter/test/fixtures/transcripts/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-acompact-946d2b.jsonl
v2.1.42-session            $ian/-experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl
v2.1.114-tasks-plan        $ian/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-aef063ba534d73153.jsonl
EOF_LIST

# Every transcript with a compact_boundary is megabytes long: seed the lines around
# the first boundary of one of them instead (what the reader stops at).
boundary_src="$src/marot__spotter/test/fixtures/transcripts/short.jsonl"
for f in "$src"/marot__spotter/test/fixtures/transcripts/*.jsonl; do
    if grep -q '"compact_boundary"' "$f"; then
        boundary_src="$f"
        break
    fi
done
line=$(grep -n '"compact_boundary"' "$boundary_src" | head -n 1 | cut -d: -f1 || true)
if [ -n "$line" ]; then
    tmp="$(mktemp)"
    # The prompt and tool calls before the boundary, the boundary, and what follows.
    sed -n "$((line > 12 ? line - 12 : 1)),$((line + 12))p" "$boundary_src" >"$tmp"
    copy v2.1.39-compact-boundary-window "$tmp"
    rm -f "$tmp"
fi

echo "$(find "$dest" -type f | wc -l) files in $dest"
