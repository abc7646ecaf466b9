#!/usr/bin/env bash
# Fuzzes the transcript extractor for SECONDS seconds (default 120) and prints
# libFuzzer's final stats. Runnable from anywhere, e.g. from the repository root:
#
#   fuzz/run.sh 300
#   fuzz/run.sh 300 -max_len=65536      (further arguments go to libFuzzer)
#
# Built without AddressSanitizer (SANITIZER=none): the code fuzzed is safe Rust, and
# ASan made the regex-heavy redaction about 7 times slower (20 instead of 150 exec/s).
# SANITIZER=address fuzz/run.sh brings it back.
#
# Needs a nightly toolchain (`rustup toolchain install nightly`); installs cargo-fuzz
# when missing. Crashes land in fuzz/artifacts/transcript/; minimise one with
#   (cd fuzz && cargo +nightly fuzz tmin transcript artifacts/transcript/crash-…)
set -euo pipefail

seconds="${1:-120}"
shift || true
sanitizer="${SANITIZER:-none}"
fuzz_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$fuzz_dir"

if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

./seed.sh >/dev/null

log="$fuzz_dir/artifacts/transcript-run.log"
mkdir -p "$(dirname "$log")"
status=0
# -jobs/-workers stay at 1: the project is fuzzed on small machines.
cargo +nightly fuzz run --sanitizer "$sanitizer" transcript corpus/transcript -- \
    -max_total_time="$seconds" -dict=transcript.dict -print_final_stats=1 "$@" \
    2>&1 | tee "$log" || status=$?

echo
echo "== final stats (full log: $log)"
# The last status line (`#N DONE cov: … exec/s: …`) and the final counters.
grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1 || true
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" || true
if grep -q 'Test unit written to' "$log"; then
    grep 'Test unit written to' "$log"
fi
exit "$status"
