#!/usr/bin/env bash
# The demo, end to end, from a fresh clone:
#   1. runs the example app's tests (Examples/Demo) with ReactiveDiagnostics: they pass
#      functionally, yet the app hides seven classic reactive bugs, and the tests fail;
#   2. shows the report the way a person reads it (reactive-diag show);
#   3. writes the self-contained HTML report;
#   4. asks the CI gate for its verdict (non-zero: CI would fail), with SARIF, JUnit and GitHub
#      annotations, each finding at its file:line;
#   5. runs the fixed app (DEMO_FIXED=1): no finding, and the gate passes;
#   6. reactive-diag fix --apply on a copy of the buggy app, then its tests again: every finding
#      with a mechanical fix is gone, every assertion still holds, and what remains is listed
#      with the reason it has no mechanical fix (DEMO_SKIP_FIX=1 skips this step).
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
# The package is $test_package (the demo unless step 6 sets it), built in $test_scratch.
test_package="$demo"
test_scratch="$demo/.build"
run_tests() {
    local reports="$1"; shift
    mkdir -p "$reports"
    local status=0
    env "$@" REACTIVE_DIAGNOSTICS_REPORT="$root/$reports/report-%n-%p.json" \
        swift test --package-path "$test_package" --scratch-path "$test_scratch" --skip-build >"$reports.log" 2>&1 \
        || status=$?
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

if [ -z "${DEMO_SKIP_FIX:-}" ]; then
step "6. reactive-diag fix --apply on a copy of the buggy app, then its tests again"
# The copy builds in the demo's own build directory: only the app and its tests recompile.
copy="$(mktemp -d)"
trap 'rm -rf "$copy"' EXIT
app="$copy/Demo"
mkdir -p "$app"
cp -R "$demo/Package.swift" "$demo/Sources" "$demo/Tests" "$app/"
[ -f "$demo/Package.resolved" ] && cp "$demo/Package.resolved" "$app/"
sed -i.orig "s|path: \"\.\./\.\.\"|path: \"$root\"|" "$app/Package.swift" && rm -f "$app/Package.swift.orig"
fix_status=0
"$tool" fix "$out/buggy" --apply --map-prefix "$root/$demo/=$app/" --source-root "$copy" \
    >"$out/fixes.diff" 2>"$out/fix.log" || fix_status=$?
[ "$fix_status" -eq 0 ] || { cat "$out/fix.log" >&2; fail "reactive-diag fix exited $fix_status"; }
printf '  %s\n' "$(head -1 "$out/fixes.diff" | sed 's/^# //')"
grep -E '^# .*: fix: ' "$out/fixes.diff" \
    | sed -E 's/^# ([a-zA-Z]+) .* @ [^:]*\.([A-Za-z]+\/[^:]*): fix: (.*)$/    \1 @ \2\n      fix: \3/' | cut -c1-160
printf '  the diff (%s):\n' "$out/fixes.diff"
grep -vE '^# ' "$out/fixes.diff" | sed 's/^/    /'
swift build --package-path "$app" --scratch-path "$test_scratch" --build-tests >>"$out/build.log" 2>&1 \
    || { tail -50 "$out/build.log" >&2; fail "the fixed copy did not build"; }
test_package="$app"
run_tests "$out/after-fix" || true
test_package="$demo"
grep -qE "Expectation failed|XCTAssert[A-Za-z]* failed" "$out/after-fix.log" \
    && fail "an assertion of the app's tests failed after the fixes"
python3 - "$out/buggy" "$out/after-fix" "$out/fixes.diff" <<'PY' || fail "a finding with a mechanical fix is still there"
import glob, json, re, sys
def findings(directory):
    found = set()
    for path in glob.glob(directory + "/*.json"):
        for finding in json.load(open(path))["findings"]:
            found.add((finding["kind"], finding.get("test") or "?"))
    return found
before, after = findings(sys.argv[1]), findings(sys.argv[2])
fixed, reasons = set(), {}
for line in open(sys.argv[3]):
    match = re.match(r'^# ([A-Za-z]+)(?: "[^"]*")? @ (\S+?)(?: \(×\d+\))?: (fix|no mechanical fix|refused|already fixed): (.*)$', line.rstrip("\n"))
    if match:
        key = (match.group(1), match.group(2))
        if match.group(3) == "fix": fixed.add(key)
        else: reasons[key] = match.group(3) + ": " + match.group(4)
still = fixed & after
print("  %d findings before, %d fixed mechanically, %d after the fixes" % (len(before), len(fixed), len(after)))
if still:
    for kind, test in sorted(still): print("    STILL THERE: %s @ %s" % (kind, test))
    sys.exit(1)
print("  every finding with a mechanical fix is gone; what remains, and why:")
for kind, test in sorted(after):
    print("    %s @ %s\n      %s" % (kind, test.split(".")[-1], reasons.get((kind, test), "new after the fixes")[:150]))
sys.exit(0 if after <= set(reasons) else 1)
PY
printf '  %severy assertion of the app'"'"'s tests still holds%s (full output: %s)\n' "$green" "$reset" "$out/after-fix.log"
fi

step "Done"
cat <<TEXT
  The bugs and their fixes sit side by side in Examples/Demo/Sources/NewsApp (look for "Bug:").
  Reports:  .build/demo/buggy/  .build/demo/fixed/
  HTML:     .build/demo/report.html
  CI files: .build/demo/results.sarif  .build/demo/junit.xml  .build/demo/annotations.txt  .build/demo/job-summary.md
  Fixes:    .build/demo/fixes.diff (reactive-diag fix), the copy's reports in .build/demo/after-fix/
TEXT
