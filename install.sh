#!/usr/bin/env bash
# memory-stalker installer.
#
#   ./install.sh              build the binaries into bin/, install the plugin into Claude
#                             Code (when `claude` is on PATH) from this repository as a local
#                             marketplace, then show a memory saved from the sample session
#   ./install.sh --no-build   the same with the binaries already in bin/
#   ./install.sh --uninstall  remove the plugin and the marketplace from Claude Code
#
# It works offline (the marketplace is this directory) and can be run again at any time.
set -euo pipefail
cd "$(dirname "$0")"
root=$(pwd)
plugin=memory-stalker
marketplace=memory-stalker
claude=${CLAUDE:-claude}

build=1
case "${1:-}" in
    --no-build) build=0 ;;
    --uninstall)
        "$claude" plugin uninstall "$plugin@$marketplace" || true
        "$claude" plugin marketplace remove "$marketplace" || true
        echo "memory-stalker is uninstalled from Claude Code. Memories stay in each project's .claude/memories/."
        exit 0
        ;;
    "") ;;
    *) echo "usage: $0 [--no-build | --uninstall]" >&2; exit 2 ;;
esac

if [ "$build" = 1 ]; then
    echo "==> building release binaries (cargo build --release)"
    cargo build --release --locked -p save-memory -p list-memories
    mkdir -p bin
    install -m 0755 target/release/save-memory target/release/list-memories bin/
fi
for b in save-memory list-memories; do
    if [ ! -x "bin/$b" ]; then
        echo "bin/$b is missing: run ./install.sh without --no-build" >&2
        exit 1
    fi
done
echo "    $root/bin/save-memory"
echo "    $root/bin/list-memories"

if command -v "$claude" >/dev/null 2>&1; then
    echo "==> installing the plugin into Claude Code $("$claude" --version 2>/dev/null | head -n 1)"
    "$claude" plugin marketplace add "$root"
    "$claude" plugin install "$plugin@$marketplace"
    echo "    installed $plugin@$marketplace (it runs in place from $root: rebuild here to update it)"
    echo "    its settings (summariser, model, language, API key) are optional: /plugin configure $plugin@$marketplace"
    echo "    to uninstall: ./install.sh --uninstall"
    echo "      (claude plugin uninstall $plugin@$marketplace && claude plugin marketplace remove $marketplace)"
else
    echo "==> Claude Code ('$claude') is not on PATH, so the plugin was not installed."
    echo "    When it is, run ./install.sh again, or:"
    echo "      claude plugin marketplace add $root && claude plugin install $plugin@$marketplace"
    echo "    or load it for one session: claude --plugin-dir $root"
fi

echo "==> saving a memory from the sample session (tests/fixtures/sample-session.jsonl)"
demo="$root/target/demo-project"
rm -rf "$demo"
mkdir -p "$demo"
memory=$(MEMORY_STALKER_SUMMARIZER=offline bin/save-memory \
    --transcript tests/fixtures/sample-session.jsonl --project "$demo")
echo "    wrote $memory"
echo
sed -n '1,/^## Files/p' "$memory" | head -n 70
echo "    … the whole memory is in $memory"
echo
echo "==> list-memories --project $demo"
bin/list-memories --project "$demo"
