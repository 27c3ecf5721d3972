#!/usr/bin/env bash
# Builds and tests the RxSwift integration with zero warnings in our code, when RxSwift can be
# resolved. The integration is the root package's product RxDiagnostics, built with the root's trait
# RxSwift; its tests, benchmark and guide snippets are the nested package
# Integrations/RxSwift/RxDiagnostics, which enables the trait, and Examples/RxConsumer is a user's
# package that does the same (`.package(path: "../..", traits: ["RxSwift"])`).
#
# RxSwift is not reachable from every build machine. When resolution fails because of RxSwift,
# this prints exactly one line, "RxSwift integration skipped: RxSwift not resolvable (<reason>)",
# and exits 0. Anything else (our manifest, a compile error, a warning in our code, a failing
# test, another dependency) exits non-zero.
#
#   Integrations/RxSwift/test.sh                  # from anywhere
#   Integrations/RxSwift/test.sh --tsan           # its tests under Thread Sanitizer instead: no report allowed
#   Integrations/RxSwift/test.sh --without-trait  # instead: the root package as most users add it
#       (trait off), with RxSwift unreachable (an empty SwiftPM configuration: no mirror), builds
#       with its tests and RxSwift is not in its dependency graph. Needs no RxSwift; never skipped.
set -euo pipefail

mode=test
case "${1:-}" in
    "") ;;
    --tsan) mode=tsan ;;
    --without-trait) mode=without-trait ;;
    *) echo "test.sh: unknown argument '$1'" >&2; exit 64 ;;
esac

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# swift_test_with_failure_summary
source "$here/../../Tools/Scripts/setup.sh"
# resolve_rxswift_integration, rxswift_swiftpm: steps 1 (our manifest loads) and 2 (resolve, or
# skip when RxSwift is not resolvable)
source "$here/resolve.sh"

if [ "$mode" = without-trait ]; then
    # SwiftPM leaves a dependency that only a disabled trait uses out of resolution, unless the
    # package's Package.resolved pins it (then it fetches it anyway): that pin comes from resolving
    # the root package itself with --traits RxSwift, which nothing here does.
    if [ -f "$rxswift_root/Package.resolved" ] && grep -q '"identity" : "rxswift"' "$rxswift_root/Package.resolved"; then
        echo "error: $rxswift_root/Package.resolved pins RxSwift (the root was resolved with --traits RxSwift):" \
            "SwiftPM would fetch RxSwift even with the trait off; delete the file and resolve again" >&2
        exit 1
    fi
    empty="$(mktemp -d)"
    trap 'rm -rf "$empty"' EXIT
    unreachable=(--package-path "$rxswift_root" --config-path "$empty/configuration")
    echo "==> swift build --build-tests (the root package, trait RxSwift off, RxSwift unreachable)" >&2
    log="$empty/build.log"
    HOME="$empty" swift build "${unreachable[@]}" --build-tests >"$log" 2>&1 || { tail -40 "$log" >&2; exit 1; }
    HOME="$empty" swift package "${unreachable[@]}" show-dependencies --format flatlist >"$log" 2>&1 \
        || { cat "$log" >&2; exit 1; }
    if grep -i -q rxswift "$log"; then
        echo "error: RxSwift is in the root package's dependency graph with the trait off" >&2
        exit 1
    fi
    exit 0
fi

resolve_rxswift_integration || exit 0
swiftpm=("${rxswift_swiftpm[@]}")

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

if [ "$mode" = tsan ]; then
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

# 6. A user's package: Examples/RxConsumer adds the root with the trait RxSwift and tests an RxSwift
# view model under RxDiagnosticsHooks (its test fails if the view model leaks its subscription).
consumer="$rxswift_root/Examples/RxConsumer"
resolve_rxswift_integration "$consumer" || exit 0
echo "==> swift build --build-tests, swift test (Examples/RxConsumer, zero warnings)" >&2
if ! swift build "${rxswift_swiftpm[@]}" --build-tests 2>&1 | tee "$log" >&2; then
    exit 1
fi
own="$(grep -E "warning:" "$log" | grep -v -E "^[[:space:]]" \
    | grep -v -E "/\.build[^/]*/(checkouts|repositories)/" | sort -u || true)"
if [ -n "$own" ]; then
    echo "error: Examples/RxConsumer has warnings in our code:" >&2
    echo "$own" >&2
    exit 1
fi
swift_test_with_failure_summary "${rxswift_swiftpm[@]}" --skip-build
