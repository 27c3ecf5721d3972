#!/usr/bin/env bash
# The soak: the test suites OpenCombine, combine-schedulers and RxSwift ship with their sources,
# run with ReactiveDiagnostics switched on for the whole run, against the same binary without it.
#
# For each suite it takes the test sources from the checkout SwiftPM already resolved (never
# copied into this repository), generates a package under .build-soak/<suite>-soak/ that compiles
# them with a small harness (a C constructor that switches the instrumentation on before `main`,
# as REACTIVE_DIAGNOSTICS_SOAK_MODE says: the test files stay as their authors wrote them),
# builds it once and runs the suite three times:
#   off      nothing switched on;
#   control  the framework's own hook with a handler that does nothing (OpenCombine's
#            `_Introspection` taps; RxSwift's call-stack recording): what the framework's hook
#            changes, told apart from what we change;
#   on       ReactiveDiagnostics: global instrumentation (CombineInstrumentation.start(), or
#            RxDiagnosticsHooks.install()) and the XCTest glue (ReactiveDiagnosticsXCTest.install())
#            with every finding recorded, never failed (REACTIVE_DIAGNOSTICS_POLICY=...=record).
# Then soak-check (Tools/Soak/Checker) compares the runs test by test (a test two runs end
# differently is re-run three times in every mode, to tell a difference from a flaky test) and
# checks every finding's fingerprint against Tools/Soak/triage.tsv.
#
#   Tools/soak.sh                          every suite (RxSwift where it can be resolved)
#   Tools/soak.sh opencombine rxswift      some suites (opencombine, combine-schedulers, rxswift)
#   Tools/soak.sh --ci                     what CI runs: the Combine suites
#   Tools/soak.sh --tsan opencombine       the instrumented run of a sample under Thread Sanitizer
#                                          (a package of its own: .build-soak/<suite>-soak-tsan/)
#
# Exit status 1 when a test does not finish (crash, hang), ends differently with the
# instrumentation than without, is discovered but never run, when a finding is not in the
# triage file, or when a false alarm the triage file records as fixed comes back. Everything a
# run leaves is in .build-soak/<suite>-soak/runs/: the three test logs,
# the reports of the instrumented run, results.json (the figures of Docs/Reliability.md) and
# untriaged.tsv (lines to classify and add to the triage file).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
source Tools/Scripts/setup.sh

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

suites=()
tsan=0
while [ $# -gt 0 ]; do
    case "$1" in
        --ci) suites+=(opencombine combine-schedulers) ;;
        --tsan) tsan=1 ;;
        -h|--help) usage ;;
        opencombine|combine-schedulers|rxswift) suites+=("$1") ;;
        *) echo "soak: unknown argument '$1'" >&2; usage ;;
    esac
    shift
done
[ ${#suites[@]} -gt 0 ] || suites=(opencombine combine-schedulers rxswift)

step() { printf '\n==> %s\n' "$*" >&2; }
fail() { echo "soak: $*" >&2; exit 1; }

# SwiftPM on Linux finds the user's mirrors (RxSwift) through the password database, not $HOME.
config=()
[ -n "${HOME:-}" ] && config=(--config-path "$HOME/.swiftpm/configuration")

# The version a checkout is at (its tag), for an exact requirement in the generated package.
version_of() { git -C "$1" describe --tags --exact-match 2>/dev/null || fail "$1: not at a tagged version"; }

# ---------------------------------------------------------------------------------------------
# Suites. Each configure_<suite> sets: module (the test target: assertCrashes in OpenCombine re-runs
# tests by their module name), language (Swift language mode of the test sources), dependencies
# and products (Package.swift fragments), root_traits (the root package's traits in the generated
# manifest, a fragment: empty but for RxSwift), harness (Tools/Soak/Harness/<dir>), sources (a function
# filling Tests/<module>), skipped_under_hooks (tests not run under a hook, with the reason in a
# comment). $checkout is the suite's checkout.

# Where SwiftPM checked a suite out, and how to have it do so when it has not yet.
checkout_of() {
    case "$1" in
        opencombine) echo "$root/.build/checkouts/OpenCombine" ;;
        combine-schedulers) echo "$root/.build/checkouts/combine-schedulers" ;;
        rxswift) echo "$root/Integrations/RxSwift/RxDiagnostics/.build/checkouts/RxSwift" ;;
    esac
}

resolve() {
    case "$1" in
        rxswift) swift package --package-path "$root/Integrations/RxSwift/RxDiagnostics" "${config[@]}" resolve >&2 ;;
        *) swift package "${config[@]}" resolve >&2 ;;
    esac
}

configure_opencombine() {
    module=OpenCombineTests
    language=v5
    harness=CombineSoak
    local version
    version="$(version_of "$checkout")"
    dependencies=".package(url: \"https://github.com/OpenCombine/OpenCombine.git\", exact: \"$version\"),"
    harness_products='.product(name: "CombineDiagnostics", package: "ReactiveDiagnostics"), .product(name: "OpenCombineShim", package: "OpenCombine"),'
    products='.product(name: "OpenCombine", package: "OpenCombine"), .product(name: "OpenCombineDispatch", package: "OpenCombine"), .product(name: "OpenCombineFoundation", package: "OpenCombine"),'
    # NotificationCenterTests.swift overrides NotificationCenter methods that Swift 6's Foundation
    # on Linux no longer lets a subclass override: it does not compile here, hooks or not.
    excludes='"FoundationTests/NotificationCenterTests.swift"'
    sources() { ln -sfn "$checkout/Tests/OpenCombineTests" "$package/Tests/$module"; }
    # These two look for the iterator's subscriber as `Cancellable`; under any _Introspection
    # handler OpenCombine hands the publisher its own tap instead, XCTUnwrap throws inside a task
    # group, and the group waits forever for a child blocked on an unstructured task. They hang
    # with a handler that does nothing too (shown by the control run when they are not skipped).
    skipped_under_hooks=(
        "PublisherConcurrencyTests/testNonThrowingCancelAlreadyCancelled"
        "PublisherConcurrencyTests/testThrowingCancelAlreadyCancelled"
    )
}

configure_combine_schedulers() {
    module=CombineSchedulersTests
    language=v6
    harness=CombineSoak
    local version opencombine extras
    version="$(version_of "$checkout")"
    opencombine="$(version_of "$root/.build/checkouts/OpenCombine")"
    extras="$(version_of "$root/.build/checkouts/swift-concurrency-extras")"
    dependencies=".package(url: \"https://github.com/pointfreeco/combine-schedulers\", exact: \"$version\"),
        .package(url: \"https://github.com/OpenCombine/OpenCombine.git\", exact: \"$opencombine\"),
        .package(url: \"https://github.com/pointfreeco/swift-concurrency-extras\", exact: \"$extras\"),"
    harness_products='.product(name: "CombineDiagnostics", package: "ReactiveDiagnostics"), .product(name: "OpenCombineShim", package: "OpenCombine"),'
    products='.product(name: "CombineSchedulers", package: "combine-schedulers"), .product(name: "OpenCombineShim", package: "OpenCombine"), .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),'
    excludes=''
    sources() { ln -sfn "$checkout/Tests/CombineSchedulersTests" "$package/Tests/$module"; }
    skipped_under_hooks=()
}

configure_rxswift() {
    module=AllTestz
    language=v5
    harness=RxSoak
    local version
    version="$(version_of "$checkout")"
    root_traits=', traits: ["RxSwift"]'
    dependencies=".package(url: \"https://github.com/ReactiveX/RxSwift\", exact: \"$version\"),"
    harness_products='.product(name: "RxDiagnostics", package: "ReactiveDiagnostics"), .product(name: "RxSwift", package: "RxSwift"),'
    products='"RxCocoa", .product(name: "RxSwift", package: "RxSwift"), .product(name: "RxRelay", package: "RxSwift"), .product(name: "RxBlocking", package: "RxSwift"), .product(name: "RxTest", package: "RxSwift"),'
    excludes=''
    # RxSwift's Linux test runner (Sources/AllTestz) is a directory of links to the test files
    # (and a generated main.swift, which SwiftPM's test discovery replaces). RxCocoa is built for
    # Apple platforms only: files that import it without using it compile against an empty
    # RxCocoa module; those that use it (Driver, Signal, `.rx`, Binder) are left out.
    rx_uses_rxcocoa=" Driver+Test.swift Infallible+Tests.swift NotificationCenterTests.swift Observable+Tests.swift Reactive+Tests.swift SharedSequence+Extensions.swift SharedSequence+OperatorTest.swift SharedSequence+Test.swift SharingSchedulerTests.swift Signal+Test.swift "
    sources() {
        mkdir -p "$package/Tests/$module" "$package/Sources/RxCocoa"
        local file name
        for file in "$checkout"/Sources/AllTestz/*.swift; do
            name="$(basename "$file")"
            [ "$name" = main.swift ] && continue
            case "$rx_uses_rxcocoa" in *" $name "*) continue ;; esac
            ln -sfn "$(readlink -f "$file")" "$package/Tests/$module/$name"
        done
        echo "// RxCocoa is built for Apple platforms only; test files that import it without using it compile against this empty module." \
            >"$package/Sources/RxCocoa/Empty.swift"
    }
    skipped_under_hooks=()
}

# ---------------------------------------------------------------------------------------------

# Writes the generated package: the suite's tests, the harness, soak-check.
generate() {
    rm -rf "$package/Tests" "$package/Sources"
    mkdir -p "$package/Tests" "$package/Sources"
    sources
    ln -sfn "$root/Tools/Soak/Harness/SoakStart" "$package/Sources/SoakStart"
    ln -sfn "$root/Tools/Soak/Harness/$harness" "$package/Sources/SoakHarness"
    ln -sfn "$root/Tools/Soak/Checker" "$package/Sources/soak-check"
    local rxcocoa=""
    [ -d "$package/Sources/RxCocoa" ] && rxcocoa='.target(name: "RxCocoa"),'
    cat >"$package/Package.swift" <<MANIFEST
// swift-tools-version: 6.1
// Generated by Tools/soak.sh: the $suite suite's own tests with ReactiveDiagnostics' soak harness.
import PackageDescription

let package = Package(
    name: "Soak",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ReactiveDiagnostics", path: "$root"$root_traits),
        $dependencies
    ],
    targets: [
        .target(name: "SoakStart"),
        .target(name: "SoakHarness", dependencies: [
            "SoakStart",
            .product(name: "ReactiveDiagnosticsXCTest", package: "ReactiveDiagnostics"),
            $harness_products
        ]),
        .executableTarget(name: "soak-check", dependencies: [
            .product(name: "ReactiveDiagnosticsReport", package: "ReactiveDiagnostics"),
            .product(name: "ReactiveDiagTool", package: "ReactiveDiagnostics"),
        ]),
        $rxcocoa
        .testTarget(
            name: "$module",
            dependencies: ["SoakHarness", $products],
            exclude: [$excludes],
            swiftSettings: [.swiftLanguageMode(.$language)]
        ),
    ]
)
MANIFEST
}

# Builds; warnings in our harness and checker fail it (the suites' own are theirs).
build() {
    local log="$runs/build.log" extra=("$@")
    if ! swift build --package-path "$package" "${config[@]}" --build-tests "${extra[@]}" >"$log" 2>&1; then
        grep -E "error:" "$log" | head -40 >&2 || tail -40 "$log" >&2
        fail "$suite: the generated package did not build (log: $log)"
    fi
    local own
    own="$(grep -E "warning:" "$log" | grep -v -E "^[[:space:]]" | grep -E "/Sources/(SoakStart|SoakHarness|soak-check)/" | sort -u || true)"
    [ -z "$own" ] || { echo "$own" >&2; fail "$suite: warnings in the soak harness or checker"; }
}

# `--skip REGEX` for the tests not run under a hook, or nothing.
skip_under_hooks() {
    [ ${#skipped_under_hooks[@]} -gt 0 ] || return 0
    local test pattern=""
    for test in "${skipped_under_hooks[@]}"; do pattern+="${pattern:+|}$module\\.${test//\//\\/}\$"; done
    echo "--skip $pattern"
}

# Runs the suite once in mode $1 with `swift test` arguments $2...; output in $runs/$1.log.
# Prints the wall time in seconds.
run_mode() {
    local mode="$1"; shift
    local reports="$runs/reports-$mode${label:-}"
    rm -rf "$reports"
    mkdir -p "$reports"
    local skip=()
    [ "$mode" != off ] && skip=($(skip_under_hooks))
    local start end status=0
    start="$(date +%s.%N)"
    env REACTIVE_DIAGNOSTICS_SOAK_MODE="$mode" \
        REACTIVE_DIAGNOSTICS_POLICY="error=record,warning=record,info=record" \
        REACTIVE_DIAGNOSTICS_REPORT="$reports/report-%n-%p.json" \
        REACTIVE_DIAGNOSTICS_SUMMARY=0 \
        SWIFT_BACKTRACE=enable=no \
        timeout "${SOAK_TIMEOUT:-2400}" stdbuf -oL -eL \
        swift test --package-path "$package" "${config[@]}" --skip-build --disable-swift-testing "${skip[@]}" "$@" \
        >"$runs/$mode${label:-}.log" 2>&1 || status=$?
    end="$(date +%s.%N)"
    [ "$status" -eq 124 ] && echo "soak: $suite ($mode): stopped after ${SOAK_TIMEOUT:-2400} s (a hang?)" >&2
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }'
}

soak() {
    suite="$1"
    checkout="$(checkout_of "$suite")"
    if [ ! -d "$checkout" ]; then
        step "$suite: resolving its package (the checkout is missing)"
        if ! resolve "$suite" || [ ! -d "$checkout" ]; then
            [ "$suite" = rxswift ] && { echo "soak rxswift skipped: RxSwift not resolvable"; return 0; }
            fail "$suite: resolution failed"
        fi
    fi
    root_traits=''  # the root package's traits, for the generated manifest (RxSwift's: the trait RxSwift)
    "configure_${suite//-/_}"
    # The Thread Sanitizer run has a package of its own: it can run beside the soak of the same
    # suite (CI's, say) without either rewriting the other's sources.
    package="$root/.build-soak/$suite-soak"
    [ "$tsan" -eq 1 ] && package="$root/.build-soak/$suite-soak-tsan"
    runs="$package/runs"
    rm -rf "$runs"
    mkdir -p "$runs"

    step "$suite: generating $package (tests from $checkout)"
    generate
    if [ "$tsan" -eq 1 ]; then
        soak_tsan
        return
    fi
    step "$suite: building (first time: several minutes)"
    build
    local checker
    checker="$(swift build --package-path "$package" "${config[@]}" --show-bin-path)/soak-check"

    swift test --package-path "$package" "${config[@]}" --skip-build --list-tests 2>/dev/null >"$runs/listed.txt"
    printf '%s\n' "${skipped_under_hooks[@]}" >"$runs/skipped.txt"
    step "$suite: $(wc -l <"$runs/listed.txt") tests; running them off, control and on"
    local off control on
    off="$(run_mode off)"
    control="$(run_mode control)"
    on="$(run_mode on)"
    echo "  wall time: off ${off} s, control ${control} s, on ${on} s" >&2

    local check=(
        "$checker" --suite "$suite" --listed "$runs/listed.txt" --skipped "$runs/skipped.txt"
        --off "$runs/off.log" --control "$runs/control.log" --on "$runs/on.log"
        --reports "$runs/reports-on" --triage "$root/Tools/Soak/triage.tsv"
        --wall "off=$off" --wall "control=$control" --wall "on=$on"
        --results "$runs/results.json" --untriaged "$runs/untriaged.tsv"
    )
    "${check[@]}" --differences "$runs/differences.txt" 2>/dev/null || true
    if [ -s "$runs/differences.txt" ]; then
        step "$suite: $(wc -l <"$runs/differences.txt") test(s) ended differently in two runs: re-running them 3 times in every mode"
        local filter="" test i
        while read -r test; do filter+="${filter:+|}^$module\\.${test//\//\\/}\$"; done <"$runs/differences.txt"
        for i in 1 2 3; do
            for mode in off control on; do
                label="-rerun$i" run_mode "$mode" --filter "$filter" >/dev/null
                check+=(--rerun "$mode=$runs/$mode-rerun$i.log")
            done
        done
    fi
    "${check[@]}"
}

# The instrumented run of a sample of the suite under Thread Sanitizer: no report expected.
soak_tsan() {
    local scratch="$package/.build"
    step "$suite: building under Thread Sanitizer"
    build --sanitize=thread --scratch-path "$scratch"
    local filter
    case "$suite" in
        # The classes whose tests cross threads: subjects, schedulers, timers, concurrency.
        opencombine) filter="PassthroughSubjectTests|CurrentValueSubjectTests|FlatMapTests|ReceiveOnTests|SubscribeOnTests|ShareTests|MergeTests|ZipTests|DebounceTests|FutureTests|PrintTests|DispatchQueueSchedulerTests|OperationQueueSchedulerTests|RunLoopSchedulerTests|TimerPublisherTests|PublisherConcurrencyTests|FutureConcurrencyTests" ;;
        *) filter="." ;;
    esac
    step "$suite: the instrumented run of /$filter/ under Thread Sanitizer"
    local status=0 log="$runs/tsan.log"
    env REACTIVE_DIAGNOSTICS_SOAK_MODE=on REACTIVE_DIAGNOSTICS_POLICY="error=record,warning=record,info=record" \
        REACTIVE_DIAGNOSTICS_REPORT="$runs/reports-tsan/report-%n-%p.json" REACTIVE_DIAGNOSTICS_SUMMARY=0 \
        SWIFT_BACKTRACE=enable=no TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1" \
        timeout "${SOAK_TIMEOUT:-2400}" swift test --package-path "$package" "${config[@]}" --skip-build --disable-swift-testing \
        --sanitize=thread --scratch-path "$scratch" --filter "$filter" $(skip_under_hooks) >"$log" 2>&1 || status=$?
    local reports tests
    reports="$(grep -c "WARNING: ThreadSanitizer" "$log" || true)"
    tests="$(grep -oE "Executed [0-9]+ tests?" "$log" | tail -1)"
    echo "soak $suite under Thread Sanitizer: $tests, exit $status, $reports report(s) (log: $log)" >&2
    [ "$reports" -eq 0 ] || { grep -A20 "WARNING: ThreadSanitizer" "$log" | head -80 >&2; fail "$suite: Thread Sanitizer reports"; }
}

ensure_swift
ensure_libunwind
status=0
for suite in "${suites[@]}"; do
    ( soak "$suite" ) || status=1
done
exit "$status"
