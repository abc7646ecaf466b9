#!/usr/bin/env bash
# memory-stalker installer.
#
#   ./install.sh              build the binary into bin/, install the plugin into Claude
#                             Code (when `claude` is on PATH) from this repository as a local
#                             marketplace, then show a memory saved from the sample session
#                             and count the past sessions on this machine (it never
#                             imports them: `bin/list-memories import` does, when asked)
#   ./install.sh --no-build   the same with the binaries already in bin/
#   ./install.sh --uninstall  remove the plugin, the marketplace and Claude Code's copy of
#                             the plugin, and what it added to Codex (memories stay in
#                             each project's .claude/memories/)
#
# When OpenAI's Codex CLI is on PATH (or CODEX=/path/to/codex), the same hooks and the MCP
# server are installed into it too: $CODEX_HOME/hooks.json and config.toml (default
# ~/.codex), edited in place by `bin/save-memory codex install` (docs/design.md §2.12).
#
# It works offline (the marketplace is this directory) and can be run again at any time.
#
# What Claude Code installs is dist/, not the repository: Claude Code copies a directory
# plugin's whole folder into ~/.claude/plugins/cache/ (ignoring .gitignore), and the
# repository's target/ is hundreds of MB. dist/ holds the plugin's files (copied from
# here by this script) and bin/ (a link to ../bin, so a rebuilt bin/ is used at once);
# it ignores itself in git. Set CLAUDE=/path/to/claude to use another Claude Code.
set -euo pipefail
cd "$(dirname "$0")"
root=$(pwd)
plugin=memory-stalker
marketplace=memory-stalker
id="$plugin@$marketplace"
claude=${CLAUDE:-claude}
codex=${CODEX:-codex}
config_dir=${CLAUDE_CONFIG_DIR:-$HOME/.claude}
# Claude Code's copy of the plugin (one directory per marketplace).
cache="$config_dir/plugins/cache/$marketplace"
dist="$root/dist"
demo="$root/target/demo-project"

have_claude() { command -v "$claude" >/dev/null 2>&1; }
have_codex() { command -v "$codex" >/dev/null 2>&1; }
codex_home=${CODEX_HOME:-$HOME/.codex}
plugin_installed() { "$claude" plugin list 2>/dev/null | grep -qF "$id"; }
marketplace_added() {
    "$claude" plugin marketplace list --json 2>/dev/null | grep -Eq "\"name\": *\"$marketplace\""
}
size_of() { du -sh "$1" 2>/dev/null | cut -f1; }

# Claude Code's files that name the plugin or its marketplace (for when claude is absent).
registered_in_files() {
    grep -lsF -e "\"$id\"" -e "\"$marketplace\"" \
        "$config_dir/settings.json" \
        "$config_dir/plugins/installed_plugins.json" \
        "$config_dir/plugins/known_marketplaces.json" || true
}

remove_cache() {
    if [ -e "$cache" ]; then
        local size
        size=$(size_of "$cache")
        rm -rf "$cache"
        echo "    removed Claude Code's copy of the plugin: $cache (${size:-?})"
    fi
}

# Removes what the installer added to Codex (it needs no `codex`: only its files).
# Sets codex_failed=1 when something of ours may be left there.
codex_failed=0
uninstall_codex() {
    if [ -x bin/save-memory ]; then
        echo "==> Codex ($codex_home)"
        bin/save-memory codex uninstall --launcher "$root/plugin/run" || codex_failed=1
    elif grep -qsF -e "/plugin/run' save-memory" -e "# >>> memory-stalker >>>" \
        "$codex_home/hooks.json" "$codex_home/config.toml"; then
        echo "✘ bin/save-memory is missing, so memory-stalker's entries in $codex_home/hooks.json" >&2
        echo "  and config.toml were not removed: run ./install.sh, then ./install.sh --uninstall." >&2
        codex_failed=1
    fi
}

uninstall() {
    uninstall_codex
    echo "==> Claude Code"
    if ! have_claude; then
        local files
        files=$(registered_in_files)
        if [ -n "$files" ]; then
            echo "✘ Claude Code ('$claude') is not on PATH, so memory-stalker could not be removed from it." >&2
            echo "  These files still name $id:" >&2
            printf '%s\n' "$files" | sed 's/^/    /' >&2
            echo "  Put claude on PATH (or run CLAUDE=/path/to/claude $0 --uninstall) and run this again," >&2
            echo "  or in Claude Code: /plugin uninstall $id, then /plugin marketplace remove $marketplace." >&2
            echo "  Nothing was removed." >&2
            exit 1
        fi
        echo "==> Claude Code ('$claude') is not on PATH, and nothing in $config_dir names $id."
        remove_cache
        echo "memory-stalker is not installed in Claude Code: nothing to uninstall."
        exit "$codex_failed"
    fi
    local did=0 failed=0
    if plugin_installed; then
        if "$claude" plugin uninstall "$id"; then did=1; else failed=1; fi
    else
        echo "    the plugin $id is not installed"
    fi
    if marketplace_added; then
        if "$claude" plugin marketplace remove "$marketplace"; then did=1; else failed=1; fi
    else
        echo "    the marketplace $marketplace is not configured"
    fi
    if [ "$failed" = 1 ]; then
        echo "✘ memory-stalker could not be completely uninstalled from Claude Code (see above)." >&2
        exit 1
    fi
    [ -e "$cache" ] && did=1
    remove_cache
    if [ "$did" = 1 ]; then
        echo "memory-stalker is uninstalled from Claude Code. Memories stay in each project's .claude/memories/."
    else
        echo "memory-stalker is not installed in Claude Code: nothing to uninstall."
    fi
    exit "$codex_failed"
}

# dist/: what Claude Code copies, without the build output.
make_dist() {
    local new="$dist.new.$$" old="$dist.old.$$"
    rm -rf "$new"
    mkdir -p "$new/.claude-plugin"
    printf '# Made by install.sh from the repository: edit the originals, then run it again.\n*\n' \
        >"$new/.gitignore"
    cp .claude-plugin/plugin.json "$new/.claude-plugin/"
    cp -R hooks skills prompts plugin "$new/"
    ln -s ../bin "$new/bin"
    if [ -e "$dist" ]; then mv "$dist" "$old"; fi
    mv "$new" "$dist"
    rm -rf "$old"
}

# Earlier installers registered the demo project in the hook's project list (used by
# `list-memories search --all-projects`): take it out again.
forget_demo() {
    local real registry tmp
    real=$(cd "$demo" 2>/dev/null && pwd -P) || real=$demo
    for registry in "${XDG_CACHE_HOME:-$HOME/.cache}/memory-stalker/projects.txt" \
        "$HOME/.cache/memory-stalker/projects.txt" \
        "$config_dir"/plugins/data/memory-stalker*/projects.txt; do
        [ -f "$registry" ] || continue
        grep -qxF -e "$demo" -e "$real" "$registry" || continue
        tmp="$registry.install.$$"
        (
            # The hook takes this lock (flock) to add a project.
            if command -v flock >/dev/null 2>&1; then
                exec 9>>"$(dirname "$registry")/projects.lock"
                flock 9
            fi
            grep -vxF -e "$demo" -e "$real" "$registry" >"$tmp" || true
            chmod 600 "$tmp"
            mv "$tmp" "$registry"
        )
        echo "    took the demo project out of $registry"
    done
}

build=1
case "${1:-}" in
    --no-build) build=0 ;;
    --uninstall) uninstall ;;
    "") ;;
    *) echo "usage: $0 [--no-build | --uninstall]" >&2; exit 2 ;;
esac

if [ "$build" = 1 ]; then
    echo "==> building the binary (cargo build --profile dist: a few minutes)"
    cargo build --profile dist --locked -p memory-stalker-cli
    mkdir -p bin
    # One binary and three links to it, each the name of the tool it runs (Claude Code
    # copies the links as links). Each is replaced by a rename: a hook may be running
    # the old file.
    install -m 0755 target/dist/memory-stalker bin/.memory-stalker.new
    mv -f bin/.memory-stalker.new bin/memory-stalker
    for b in save-memory list-memories memory-stalker-mcp; do
        ln -sf memory-stalker "bin/.$b.new"
        mv -f "bin/.$b.new" "bin/$b"
    done
fi
for b in save-memory list-memories memory-stalker-mcp; do
    if [ ! -x "bin/$b" ]; then
        echo "bin/$b is missing: run ./install.sh without --no-build" >&2
        exit 1
    fi
done
echo "    $root/bin/save-memory"
echo "    $root/bin/list-memories"
echo "    $root/bin/memory-stalker-mcp"
if [ -L bin/save-memory ]; then
    echo "    (links to $root/bin/memory-stalker, $(size_of bin/memory-stalker))"
fi
make_dist
echo "    $dist (the plugin as Claude Code installs it: no build output)"

if have_claude; then
    echo "==> installing the plugin into Claude Code $("$claude" --version 2>/dev/null | head -n 1)"
    "$claude" plugin marketplace add "$root"
    # An earlier installer had Claude Code copy the whole repository, target/ included.
    # Claude Code reads a directory plugin from its folder, not from this copy, and makes
    # it again on install when it is missing.
    for old in "$cache/$plugin"/*; do
        if [ -e "$old/Cargo.toml" ] || [ -d "$old/target" ]; then
            echo "    Claude Code's copy of an earlier install holds the whole repository ($(size_of "$cache")): making it again"
            rm -rf "$cache"
            break
        fi
    done
    # Claude Code reports the plugin's options as "not yet set"; they are all optional.
    out=$("$claude" plugin install "$id" 2>&1) || {
        printf '%s\n' "$out" >&2
        exit 1
    }
    printf '%s\n' "$out" | grep -v 'userConfig option.* not yet set' || true
    echo "    installed $id (it runs in place from $dist: run ./install.sh again to update it)"
    echo "    nothing to configure: its options (summariser, model, language, OpenAI-compatible"
    echo "    server, API key) are all optional, and without them it works offline"
    if "$claude" plugin --help 2>/dev/null | grep -Eq '^[[:space:]]+configure[[:space:]]'; then
        echo "    to set one anyway: /plugin configure $id in Claude Code,"
        echo "      or: claude plugin install $id --config KEY=VALUE (e.g. --config lang=zh)"
    else
        echo "    to set one anyway: claude plugin install $id --config KEY=VALUE (e.g. --config lang=zh)"
    fi
    echo "    to uninstall: ./install.sh --uninstall"
else
    echo "==> Claude Code ('$claude') is not on PATH, so the plugin was not installed."
    echo "    When it is, run ./install.sh again, or:"
    echo "      claude plugin marketplace add $root && claude plugin install $id"
    echo "    or load it for one session: claude --plugin-dir $root"
fi

if have_codex; then
    echo "==> installing memory-stalker into Codex $("$codex" --version 2>/dev/null | head -n 1) ($codex_home)"
    bin/save-memory codex install --launcher "$root/plugin/run"
    echo "    Codex runs only the hooks you trust: these entries trust exactly the commands above"
    echo "    (a changed command is untrusted again); the README says why the installer writes them."
    echo "    to uninstall: ./install.sh --uninstall"
else
    echo "==> Codex ('$codex') is not on PATH: nothing was installed into Codex."
    echo "    When it is, run ./install.sh again (or CODEX=/path/to/codex ./install.sh)."
fi

echo "==> saving a memory from the sample session (tests/fixtures/sample-session.jsonl)"
# The demo keeps its own data directory, so it never joins your projects in
# `list-memories search --all-projects`, and ignores MEMORY_STALKER_DIR.
rm -rf "$demo"
mkdir -p "$demo"
forget_demo
demo_env=(env -u MEMORY_STALKER_DIR -u CLAUDE_PROJECT_DIR "CLAUDE_PLUGIN_DATA=$demo/.plugin-data"
    MEMORY_STALKER_SUMMARIZER=offline)
memory=$("${demo_env[@]}" bin/save-memory --transcript tests/fixtures/sample-session.jsonl --project "$demo")
echo "    wrote $memory"
echo
sed -n '1,/^## Files/p' "$memory" | head -n 70
echo "    … the whole memory is in $memory"
echo
echo "==> list-memories --project $demo"
"${demo_env[@]}" bin/list-memories --project "$demo"

echo
echo "==> your past sessions (counted only: bin/list-memories import --dry-run)"
# Claude Code's transcripts and Codex's rollouts already on this machine can get their
# memories too; that is the user's call, so they are counted here and never imported.
# (It exits 1 when a transcript cannot be read; its last line still counts the others.)
past=$(bin/list-memories import --dry-run 2>/dev/null | tail -n 1 || true)
case $past in
    "") echo "    could not count them: run $root/bin/list-memories import --dry-run to see why" ;;
    "Nothing to import"*) echo "    $past" ;;
    *)
        echo "    $past"
        echo "    To import them: $root/bin/list-memories import"
        echo "    (--since 30d, --project DIR or --agent codex import fewer; nothing is imported until you run it)"
        ;;
esac
