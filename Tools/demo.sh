#!/usr/bin/env bash
# The demo, end to end, from a fresh clone:
#   1. runs the example app's tests (Examples/Demo) with ReactiveDiagnostics: they pass
#      functionally, yet the app hides seven classic reactive bugs, and the tests fail;
#   2. shows the report the way a person reads it (reactive-diag show);
#   3. writes the self-contained HTML report;
#   4. asks the CI gate for its verdict (non-zero: CI would fail), with SARIF, JUnit and GitHub
#      annotations, each finding at its file:line;
#   5. runs the fixed app (DEMO_FIXED=1): no finding, and the gate passes.
#
#   Tools/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source Tools/Scripts/setup.sh

root="$(pwd)"
out=".build/demo"          # relative, so paths in the output read well
demo="Examples/Demo"

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
    bold=$'\033[1m'; dim=$'\033[2m'; red=$'\033[31m'; green=$'\033[32m'; reset=$'\033[0m'
else
    bold=""; dim=""; red=""; green=""; reset=""
fi
step() { printf '\n%s==> %s%s\n' "$bold" "$*" "$reset"; }
fail() { printf '%sdemo failed: %s%s\n' "$red" "$*" "$reset" >&2; exit 1; }

# Runs the demo's tests with reports in $1; shows the test verdicts and the diagnostics'
# one-line findings (the full output goes to $1.log). Returns the test run's exit status.
run_tests() {
    local reports="$1"; shift
    mkdir -p "$reports"
    local status=0
    env "$@" REACTIVE_DIAGNOSTICS_REPORT="$root/$reports/report-%n-%p.json" \
        swift test --package-path "$demo" --skip-build >"$reports.log" 2>&1 || status=$?
    grep -E "Test Case '.*' (passed|failed)|✔ Test [a-zA-Z]+\(\) passed|✘ Test [a-zA-Z]+\(\) failed|ReactiveDiagnostics: [a-zA-Z]+ \[" "$reports.log" \
        | sed -E 's/^.*error: ([A-Za-z]+Tests\.[A-Za-z]+) : ReactiveDiagnostics: /  \1: /; s/^↳ ReactiveDiagnostics: /    → /; s/^/  /' \
        | cut -c1-200 || true
    printf '  %s(full test output: %s)%s\n' "$dim" "$reports.log" "$reset"
    return "$status"
}

ensure_swift
ensure_libunwind
rm -rf "$out"
mkdir -p "$out"

step "Building reactive-diag and the example app (first time: a few minutes)"
swift build --product reactive-diag >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; fail "reactive-diag did not build"; }
tool="$(swift build --show-bin-path)/reactive-diag"
swift build --package-path "$demo" --build-tests >>"$out/build.log" 2>&1 || { tail -50 "$out/build.log" >&2; fail "the example app did not build"; }

step "1. The example app's tests, with ReactiveDiagnostics (the app with its bugs)"
if run_tests "$out/buggy"; then
    fail "the tests of the buggy app passed: ReactiveDiagnostics should have failed them"
fi
printf '  %sthe tests fail: every assertion holds, but each test leaves a bug behind%s\n' "$red" "$reset"

step "2. The report, as a person reads it: reactive-diag show .build/demo/buggy"
"$tool" show "$out/buggy"

step "3. The HTML report, for a CI artifact: reactive-diag html"
"$tool" html "$out/buggy" -o "$out/report.html"
printf '  open %s\n' "$out/report.html"

step "4. The CI gate's verdict: reactive-diag gate (no baseline: every finding is new)"
gate_status=0
GITHUB_STEP_SUMMARY="$out/job-summary.md" "$tool" gate "$out/buggy" --sarif "$out/results.sarif" \
    --junit "$out/junit.xml" --github-annotations >"$out/annotations.txt" || gate_status=$?
[ "$gate_status" -eq 1 ] || fail "the gate should have exited 1 (new findings), it exited $gate_status"
printf '  %sverdict: exit 1 — CI would fail this build%s (SARIF: %s, JUnit: %s)\n' \
    "$red" "$reset" "$out/results.sarif" "$out/junit.xml"
printf '  each finding at its line (paths relative to the repository):\n'
printf '    GitHub annotations (%s):\n' "$out/annotations.txt"
cut -d: -f1-3 "$out/annotations.txt" | sed -E 's/^::([a-z]+) (file=[^,]*,line=[0-9]+(,col=[0-9]+)?).*/      \1 \2/' | head -8
printf '    SARIF results (%s):\n' "$out/results.sarif"
python3 - "$out/results.sarif" <<'PY' 2>/dev/null || true
import json, sys
for result in json.load(open(sys.argv[1]))["runs"][0]["results"]:
    location = result["locations"][0]["physicalLocation"]
    print("      %s %s:%s" % (result["ruleId"], location["artifactLocation"]["uri"], location.get("region", {}).get("startLine", "?")))
PY
printf '    JUnit test cases (%s):\n' "$out/junit.xml"
grep -o 'classname="[^"]*" file="[^"]*" line="[0-9]*"' "$out/junit.xml" | sed -E 's/^classname="([^"]*)" file="([^"]*)" line="([0-9]*)"/      \1 → \2:\3/' | head -8
printf '    job summary: %s; HTML: each finding links its file:line with the lines around it\n' "$out/job-summary.md"

step "5. The fixed app (DEMO_FIXED=1): the same tests"
run_tests "$out/fixed" DEMO_FIXED=1 || fail "the tests of the fixed app failed"
fixed_status=0
"$tool" gate "$out/fixed" || fixed_status=$?
[ "$fixed_status" -eq 0 ] || fail "the gate should pass the fixed app, it exited $fixed_status"
printf '  %sverdict: exit 0 — no finding, CI passes%s\n' "$green" "$reset"

step "Done"
cat <<TEXT
  The bugs and their fixes sit side by side in Examples/Demo/Sources/NewsApp (look for "Bug:").
  Reports:  .build/demo/buggy/  .build/demo/fixed/
  HTML:     .build/demo/report.html
  CI files: .build/demo/results.sarif  .build/demo/junit.xml  .build/demo/annotations.txt  .build/demo/job-summary.md
TEXT
