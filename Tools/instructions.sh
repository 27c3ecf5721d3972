#!/usr/bin/env bash
# Instructions per operation of a benchmark profile case, counted by callgrind: repeatable
# whatever the machine's load, so design decisions can be made on a busy machine.
#
#   Tools/instructions.sh CASE [OPERATIONS]      # e.g. Tools/instructions.sh subscribeCancelOnce 20000
#
# Runs `reactive-diag-benchmark --profile CASE` under `valgrind --tool=callgrind` at N and at
# 2N operations and prints (instructions(2N) - instructions(N)) / N: start-up, first-use
# caches and the case's set-up cancel out. The 2N run's profile is kept for callgrind_annotate.
set -euo pipefail
cd "$(dirname "$0")/.."
case_name="${1:?usage: Tools/instructions.sh CASE [OPERATIONS]}"
operations="${2:-20000}"
binary="${BENCHMARK_BINARY:-Tools/Workshop/.build/release/reactive-diag-benchmark}"
[ -x "$binary" ] || swift build --package-path Tools/Workshop -c release --product reactive-diag-benchmark >&2
out="${INSTRUCTIONS_DIR:-.build/instructions}"
mkdir -p "$out"
# Valgrind 3.19 cannot read the DWARF 5 the Swift toolchain emits: profile a copy without it
# (symbols stay, so callgrind_annotate still names every function).
stripped="$out/reactive-diag-benchmark.stripped"
if [ ! -x "$stripped" ] || [ "$binary" -nt "$stripped" ]; then
    cp "$binary" "$stripped"
    strip --strip-debug "$stripped"
fi

count() {
    valgrind --tool=callgrind --callgrind-out-file="$2" "$stripped" --profile "$case_name" --operations "$1" \
        2>&1 >/dev/null | sed -nE 's/^==[0-9]+== Collected : ([0-9]+).*/\1/p'
}
single="$(count "$operations" "$out/$case_name.1.out")"
double="$(count "$((operations * 2))" "$out/$case_name.out")"
# Calls to malloc, from callgrind's call graph: the callers of malloc and how often each called.
mallocs() {
    callgrind_annotate --tree=caller --threshold=100 "$1" 2>/dev/null | awk '
        /^$/ { if (found) { print total; exit } total = 0; next }
        /\*  .*malloc\.c:malloc / { found = 1 }
        /</ { if (match($0, /\(([0-9,]+)x\)/)) { count = substr($0, RSTART + 1, RLENGTH - 3); gsub(",", "", count); total += count } }
        END { if (!found) print 0 }'
}
awk -v a="$single" -v b="$double" -v n="$operations" -v name="$case_name" \
    -v ma="$(mallocs "$out/$case_name.1.out")" -v mb="$(mallocs "$out/$case_name.out")" \
    'BEGIN { printf "%s: %.1f instructions/operation, %.2f mallocs/operation (callgrind, %d vs %d operations)\n",
                    name, (b - a) / n, (mb - ma) / n, n, 2 * n }'
# With TOP=n: the n functions whose own instructions per operation grew most.
if [ -n "${TOP:-}" ]; then
    per_function() { callgrind_annotate --threshold=100 "$1" 2>/dev/null | sed -nE 's/^ *([0-9,]+) \([ 0-9.]+%\)  (.*)$/\1\t\2/p' | tr -d ','; }
    join -t $'\t' -1 2 -2 2 -a 2 -e 0 -o 0,1.1,2.1 \
        <(per_function "$out/$case_name.1.out" | sort -t $'\t' -k2,2) \
        <(per_function "$out/$case_name.out" | sort -t $'\t' -k2,2) \
        | awk -F '\t' -v n="$operations" '{ d = ($3 - $2) / n; if (d > 0.5) printf "%9.1f  %s\n", d, substr($1, 1, 160) }' \
        | sort -rn | head -n "$TOP"
fi
echo "profiles: $out/$case_name.1.out ($operations operations), $out/$case_name.out ($((operations * 2)))" >&2
