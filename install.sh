#!/usr/bin/env bash
# Builds memory-stalker, puts its binaries in bin/ (where the plugin's hooks look for
# them), and shows the main job: a memory saved from the sample session, with the
# offline summary (no API key needed).
set -euo pipefail
cd "$(dirname "$0")"
root=$(pwd)

echo "==> building release binaries"
cargo build --release --locked -p save-memory
mkdir -p bin
install -m 0755 target/release/save-memory bin/save-memory
echo "    bin/save-memory"

echo "==> saving a memory from the sample session (tests/fixtures/sample-session.jsonl)"
demo="$root/target/demo-project"
rm -rf "$demo"
mkdir -p "$demo"
memory=$(MEMORY_STALKER_SUMMARIZER=offline bin/save-memory \
    --transcript tests/fixtures/sample-session.jsonl --project "$demo")
echo "    wrote $memory"
echo
sed -n '1,/^## Files/p' "$memory" | head -n 70
echo "    … (the whole memory is in $memory)"
