#!/usr/bin/env bash
# Builds and tests the RxSwift integration (the nested package Integrations/RxSwift/RxDiagnostics)
# with zero warnings in our code, when RxSwift can be resolved.
#
# RxSwift is not reachable from every build machine. When resolution fails because of RxSwift,
# this prints exactly one line, "RxSwift integration skipped: RxSwift not resolvable (<reason>)",
# and exits 0. Anything else (our manifest, a compile error, a warning in our code, a failing
# test, another dependency) exits non-zero.
#
#   Integrations/RxSwift/test.sh            # from anywhere
#   Integrations/RxSwift/test.sh --tsan     # its tests under Thread Sanitizer instead: no report allowed
set -euo pipefail

tsan=0
[ "${1:-}" = "--tsan" ] && tsan=1

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# swift_test_with_failure_summary
source "$here/../../Tools/Scripts/setup.sh"
# resolve_rxswift_integration, rxswift_swiftpm: steps 1 (our manifest loads) and 2 (resolve, or
# skip when RxSwift is not resolvable)
source "$here/resolve.sh"
swiftpm=("${rxswift_swiftpm[@]}")

resolve_rxswift_integration || exit 0

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

if [ "$tsan" -eq 1 ]; then
    # The integration's tests under Thread Sanitizer, in a build directory of their own: the
    # hooks run on every thread that subscribes, and the retain-path walk reads the heap while
    # other tests run.
    echo "==> Thread Sanitizer (RxSwift integration)" >&2
    tsan_build=("${swiftpm[@]}" --scratch-path "$rxswift_package/.build-tsan")
    swift build "${tsan_build[@]}" --build-tests --sanitize=thread >"$log" 2>&1 || { tail -40 "$log" >&2; exit 1; }
    TSAN_TIMEOUT=1200 swift_test_without_tsan_reports "RxSwift integration" \
        "${tsan_build[@]}" --skip-build --sanitize=thread || exit 1
    exit 0
fi

# 3. Build everything, tests included; warnings in our code fail (dependencies' are theirs).
echo "==> swift build --build-tests (RxSwift integration, zero warnings)" >&2
if ! swift build "${swiftpm[@]}" --build-tests 2>&1 | tee "$log" >&2; then
    exit 1
fi
# Only diagnostic headers count (indented lines repeat them in the compiler's source excerpts).
own="$(grep -E "warning:" "$log" | grep -v -E "^[[:space:]]" \
    | grep -v -E "/\.build[^/]*/(checkouts|repositories)/" | sort -u || true)"
if [ -n "$own" ]; then
    echo "error: the RxSwift integration has warnings in our code:" >&2
    echo "$own" >&2
    exit 1
fi

# 4. Test.
echo "==> swift test (RxSwift integration)" >&2
swift_test_with_failure_summary "${swiftpm[@]}" --skip-build

# 5. The hooks' benchmark builds and runs (a smoke run: figures come from -c release, Docs/Performance.md).
echo "==> rx-diag-benchmark smoke run (RxSwift integration)" >&2
smoke_json="$(mktemp)"
trap 'rm -f "$log" "$smoke_json"' EXIT
swift build "${swiftpm[@]}" --product rx-diag-benchmark >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
bin="$(swift build "${swiftpm[@]}" --show-bin-path)"
"$bin/rx-diag-benchmark" --quick --repetitions 1 --json "$smoke_json" >/dev/null 2>"$log" \
    || { cat "$log" >&2; echo "error: rx-diag-benchmark smoke run failed" >&2; exit 1; }
