# Resolves a package that uses the RxSwift integration (by default the integration's tests,
# Integrations/RxSwift/RxDiagnostics; Examples/RxConsumer too), for Integrations/RxSwift/test.sh and
# Tools/docs.sh. The integration is the root package's product RxDiagnostics, built with the root's
# trait RxSwift, which these packages enable. Source this file, then:
#
#   if resolve_rxswift_integration [package-directory]; then swift build "${rxswift_swiftpm[@]}" …; fi
#
# RxSwift is not reachable from every build machine. When resolution fails because of RxSwift,
# resolve_rxswift_integration prints exactly one line, "RxSwift integration skipped: RxSwift not
# resolvable (<reason>)", and returns 1. Anything else (the manifest does not load, another
# dependency fails) exits the script non-zero.

rxswift_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rxswift_root="$(cd "$rxswift_here/../.." && pwd)"
rxswift_package="$rxswift_here/RxDiagnostics"
rxswift_url="github.com/ReactiveX/RxSwift"

# SwiftPM on Linux finds its shared configuration (mirrors.json) through the password
# database, not $HOME; name it explicitly so that a HOME override is honoured like everywhere.
rxswift_config=()
if [ -n "${HOME:-}" ]; then
    rxswift_config+=(--config-path "$HOME/.swiftpm/configuration")
fi
# SwiftPM options for the integration's package; resolve_rxswift_integration sets them to the
# package it resolved.
rxswift_swiftpm=(--package-path "$rxswift_package" "${rxswift_config[@]}")

resolve_rxswift_integration() {
    local package="${1:-$rxswift_package}"
    rxswift_swiftpm=(--package-path "$package" "${rxswift_config[@]}")
    local name="${package#"$rxswift_root/"}"
    if ! command -v swift >/dev/null 2>&1; then
        echo "error: swift is not on PATH" >&2
        exit 1
    fi
    local log status=0
    log="$(mktemp)"

    # 1. The manifest must load, whether or not RxSwift can be fetched.
    if ! swift package "${rxswift_swiftpm[@]}" dump-package >/dev/null 2>"$log"; then
        cat "$log" >&2
        rm -f "$log"
        echo "error: $name/Package.swift does not load" >&2
        exit 1
    fi

    # 2. Resolve. A failure whose every error names RxSwift's repository is a skip.
    swift package "${rxswift_swiftpm[@]}" resolve >"$log" 2>&1 || status=$?
    if [ "$status" -ne 0 ] && grep -q "Package.resolved file is corrupted or malformed" "$log"; then
        # Package.resolved is machine-local (ignored by git) and can name a mirror this machine no
        # longer has (a local mirror is pinned as a path); SwiftPM's advice is to delete it.
        rm -f "$package/Package.resolved"
        status=0
        swift package "${rxswift_swiftpm[@]}" resolve >"$log" 2>&1 || status=$?
    fi
    if [ "$status" -ne 0 ]; then
        local errors reason
        errors="$(grep -E '^(error|fatal):' "$log" || true)"
        if [ -n "$errors" ] && ! grep -v -i -q "$rxswift_url" <<<"$errors"; then
            reason="$(grep -m1 -E '^\s*fatal:' "$log" | sed -E 's/^\s*fatal:\s*//' || true)"
            [ -n "$reason" ] || reason="$(head -n1 <<<"$errors" | sed -E 's/^error:\s*//')"
            rm -f "$log"
            echo "RxSwift integration skipped: RxSwift not resolvable (${reason:0:160})"
            return 1
        fi
        cat "$log" >&2
        rm -f "$log"
        echo "error: resolving $name failed for another reason than RxSwift" >&2
        exit 1
    fi
    rm -f "$log"
}
