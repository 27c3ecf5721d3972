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
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
package="$here/RxDiagnostics"
rxswift_url="github.com/ReactiveX/RxSwift"
# swift_test_with_failure_summary
source "$here/../../Tools/Scripts/setup.sh"

if ! command -v swift >/dev/null 2>&1; then
    echo "error: swift is not on PATH" >&2
    exit 1
fi

# SwiftPM on Linux finds its shared configuration (mirrors.json) through the password
# database, not $HOME; name it explicitly so that a HOME override is honoured like everywhere.
swiftpm=(--package-path "$package")
if [ -n "${HOME:-}" ]; then
    swiftpm+=(--config-path "$HOME/.swiftpm/configuration")
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

# 1. Our manifest must load, whether or not RxSwift can be fetched.
if ! swift package "${swiftpm[@]}" dump-package >/dev/null 2>"$log"; then
    cat "$log" >&2
    echo "error: Integrations/RxSwift/RxDiagnostics/Package.swift does not load" >&2
    exit 1
fi

# 2. Resolve. A failure whose every error names RxSwift's repository is a skip.
resolve() {
    swift package "${swiftpm[@]}" resolve >"$log" 2>&1
}
status=0
resolve || status=$?
if [ "$status" -ne 0 ] && grep -q "Package.resolved file is corrupted or malformed" "$log"; then
    # Package.resolved is machine-local (ignored by git) and can name a mirror this machine no
    # longer has (a local mirror is pinned as a path); SwiftPM's advice is to delete it.
    rm -f "$package/Package.resolved"
    status=0
    resolve || status=$?
fi
if [ "$status" -ne 0 ]; then
    errors="$(grep -E '^(error|fatal):' "$log" || true)"
    if [ -n "$errors" ] && ! grep -v -i -q "$rxswift_url" <<<"$errors"; then
        reason="$(grep -m1 -E '^\s*fatal:' "$log" | sed -E 's/^\s*fatal:\s*//' || true)"
        [ -n "$reason" ] || reason="$(head -n1 <<<"$errors" | sed -E 's/^error:\s*//')"
        echo "RxSwift integration skipped: RxSwift not resolvable (${reason:0:160})"
        exit 0
    fi
    cat "$log" >&2
    echo "error: resolving the RxSwift integration failed for another reason than RxSwift" >&2
    exit 1
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
