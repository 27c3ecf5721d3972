#!/usr/bin/env bash
# Fuzzes the report and crash-journal readers (and the tool's views of what they accept) with
# libFuzzer, for a bounded time, starting from valid reports and journals.
#
#   Tools/Fuzz/fuzz.sh [SECONDS]       default 60; CI runs a short bound, run it longer by hand
#
# Prints how many inputs were tried; exits non-zero if any input crashed, hung or broke a
# property (the crashing input is kept under .build-fuzz/artifacts/).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds="${1:-60}"
scratch="$root/.build-fuzz"

echo "==> building the fuzzer (swift build -c release --sanitize=fuzzer)" >&2
mkdir -p "$scratch"
swift build -c release --sanitize=fuzzer --package-path "$here" --scratch-path "$scratch" \
    --product report-fuzzer >"$scratch/build.log" 2>&1 || { tail -40 "$scratch/build.log" >&2; exit 1; }
fuzzer="$(swift build -c release --package-path "$here" --scratch-path "$scratch" --show-bin-path)/report-fuzzer"

# Seeds: the committed corpus and the tool's report fixtures. New inputs libFuzzer finds
# interesting accumulate in the working corpus between runs.
corpus="$scratch/corpus"
mkdir -p "$corpus" "$scratch/artifacts"
cp "$here"/Corpus/* "$corpus"/ 2>/dev/null || true
cp "$root"/Tests/ReactiveDiagToolTests/Fixtures/*.json "$corpus"/ 2>/dev/null || true

echo "==> fuzzing for ${seconds} s" >&2
log="$scratch/fuzz.log"
status=0
"$fuzzer" "$corpus" -max_total_time="$seconds" -max_len=131072 -timeout=20 -rss_limit_mb=4096 \
    -artifact_prefix="$scratch/artifacts/" -print_final_stats=1 >"$log" 2>&1 || status=$?
runs="$(grep -E '^stat::number_of_executed_units:' "$log" | awk '{print $2}' | tail -1)"
if [ "$status" -ne 0 ]; then
    tail -60 "$log" >&2
    echo "fuzzing FAILED after ${runs:-?} inputs: see $scratch/artifacts/ and $log" >&2
    exit 1
fi
echo "fuzzed ${runs:-?} inputs in ${seconds} s: no crash, hang or broken property (corpus: $(ls "$corpus" | wc -l) inputs)"
