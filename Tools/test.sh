#!/usr/bin/env bash
# The whole test suite, from a fresh clone. Installs what is missing (libunwind-dev, Chromium,
# xmllint and Python's jsonschema for validating the gate's SARIF and JUnit),
# then:
#   0. checks the layout of every Swift file (swift format lint --strict, .swift-format);
#   1. builds everything with zero warnings in our code (the workshop package too);
#   2. runs every test target (the demo suite included: it builds Examples/Demo);
#   1b. builds the root package again as most users add it, with RxSwift unreachable (the trait
#      RxSwift off, an empty SwiftPM configuration: Integrations/RxSwift/test.sh --without-trait);
#   3. builds and tests the RxSwift integration (the trait RxSwift on) when RxSwift can be
#      resolved (else one line says it was skipped and why);
#   3b. builds the DocC documentation of every public module with warnings as errors, and fails
#      on a public symbol without a /// comment or a landing page that leaves a symbol unplaced
#      (Tools/docs.sh);
#   4. soaks OpenCombine's and combine-schedulers' own test suites with the instrumentation on
#      (Tools/soak.sh --ci: same results as without it, every finding triaged);
#   5. runs the engine's and adapters' tests under Thread Sanitizer;
#   5b. runs them under AddressSanitizer with leak detection: no leak from our code
#      (Tools/Scripts/lsan.supp: the toolchain's and frameworks' own, each with its reason);
#   6. fuzzes the report readers for a bounded time;
#   7. walks closures capturing every kind of value with the retain-path walker in a release
#      build (optimization changes closure layouts), then random values, for a bounded time.
#
#   Tools/test.sh                 everything
#   Tools/test.sh --quick         steps 0 to 2 only (with 1b, the workshop's build and tests)
#
# Environment: REACTIVE_DIAGNOSTICS_FUZZ_SECONDS (default 60), REACTIVE_DIAGNOSTICS_STRESS_SECONDS
# (default 3 per stress test), REACTIVE_DIAGNOSTICS_STRESS_RUNS (default 100 runs per repeated
# serial-delivery stress; 10 under Thread Sanitizer), REACTIVE_DIAGNOSTICS_WALK_SECONDS (default 20).
set -euo pipefail
cd "$(dirname "$0")/.."
source Tools/Scripts/setup.sh

quick=0
[ "${1:-}" = "--quick" ] && quick=1

step() { printf '\n==> %s\n' "$*" >&2; }

ensure_swift
ensure_libunwind
ensure_chromium
ensure_schema_validators

step "layout: swift format lint --strict (Tools/format.sh --check; Tools/format.sh fixes)"
Tools/format.sh --check

step "swift build --build-tests (zero warnings in our code)"
build_without_warnings

step "the root package without the trait RxSwift, RxSwift unreachable (empty SwiftPM configuration)"
Integrations/RxSwift/test.sh --without-trait

step "swift test (all targets, the demo suite included)"
REACTIVE_DIAGNOSTICS_DEMO_SUITE=1 swift_test_with_failure_summary --skip-build

step "the workshop package (benchmarks, doc coverage, peak-rss): builds with zero warnings, its tests pass"
build_without_warnings --package-path Tools/Workshop
swift_test_with_failure_summary --package-path Tools/Workshop --skip-build

[ "$quick" -eq 1 ] && { step "quick run: done"; exit 0; }

step "RxSwift integration"
Integrations/RxSwift/test.sh

step "DocC documentation: every public module, warnings are errors; doc comments; topics"
Tools/docs.sh

step "soak: the test suites of OpenCombine and combine-schedulers with ReactiveDiagnostics switched on"
# Every test that passes without the instrumentation must pass with it, and every finding must be
# in Tools/Soak/triage.tsv (Docs/Reliability.md). Each run of a suite is bounded (SOAK_TIMEOUT, in
# seconds); the whole step took 7 to 9 minutes on 2 cores with the generated packages built
# from scratch (Docs/Reliability.md). RxSwift's suite runs on demand.
SOAK_TIMEOUT="${SOAK_TIMEOUT:-900}" timeout 3600 Tools/soak.sh --ci

step "Thread Sanitizer: engine, adapters and test glue"
mkdir -p .build-tsan
swift build --build-tests --sanitize=thread --scratch-path .build-tsan >.build-tsan/build.log 2>&1 \
    || { tail -40 .build-tsan/build.log >&2; exit 1; }
# One module at a time: the sanitizer slows everything tenfold, and tests that wait for the main
# queue would otherwise compete with every other suite for it.
for module in ReactiveDiagnosticsTests CombineDiagnosticsTests EffectDiagnosticsTests ConcurrencyDiagnosticsTests \
    ReactiveDiagnosticsXCTestTests ReactiveDiagnosticsTestingTests; do
    REACTIVE_DIAGNOSTICS_STRESS_RUNS=10 swift_test_without_tsan_reports "$module" \
        --skip-build --sanitize=thread --scratch-path .build-tsan --filter "$module" || exit 1
done

step "Thread Sanitizer: the RxSwift integration"
Integrations/RxSwift/test.sh --tsan

step "AddressSanitizer with leak detection: engine, adapters, test glue, report schema"
# A leak checker must not leak: the library's own tests under AddressSanitizer, LeakSanitizer on
# at each test process's exit (and in the child test processes the glue's tests start, which
# inherit the options). Any leak report fails the step; Tools/Scripts/lsan.supp suppresses only
# the toolchain's and frameworks' own leaks (XCTest, Foundation's Timer, the Swift runtime's weak
# side tables), each with its reason. The modules: the engine (its retain-path walker included:
# it asks the sanitizer's allocator, not glibc's chunk headers, where an allocation starts), the
# Combine, effect and concurrency adapters, the XCTest and Swift Testing glue, and the report
# schema, one at a time as under Thread Sanitizer. Left out: the offline tool's tests
# (ReactiveDiagToolTests: it reads reports and makes no resource it tracks; the fuzz step runs its
# readers) and the demo suite (it builds Examples/Demo). About 4 minutes on 2 cores with the build
# (Docs/Reliability.md).
mkdir -p .build-asan
swift build --build-tests --sanitize=address --scratch-path .build-asan >.build-asan/build.log 2>&1 \
    || { tail -40 .build-asan/build.log >&2; exit 1; }
for module in ReactiveDiagnosticsTests CombineDiagnosticsTests EffectDiagnosticsTests ConcurrencyDiagnosticsTests \
    ReactiveDiagnosticsXCTestTests ReactiveDiagnosticsTestingTests ReactiveDiagnosticsReportTests; do
    swift_test_without_leak_reports "$module" \
        --skip-build --sanitize=address --scratch-path .build-asan --filter "$module" || exit 1
done

step "fuzzing the report readers (${REACTIVE_DIAGNOSTICS_FUZZ_SECONDS:-60} s)"
Tools/Fuzz/fuzz.sh "${REACTIVE_DIAGNOSTICS_FUZZ_SECONDS:-60}"

step "retain-path walker, release build (${REACTIVE_DIAGNOSTICS_WALK_SECONDS:-20} s)"
swift build -c release --product retain-path-fuzz >.build/retain-path-fuzz-build.log 2>&1 \
    || { tail -40 .build/retain-path-fuzz-build.log >&2; exit 1; }
if grep -E "warning:" .build/retain-path-fuzz-build.log | grep -v -E "/\.build[^/]*/checkouts/" >&2; then
    echo "error: the release build has warnings in our code" >&2
    exit 1
fi
"$(swift build -c release --show-bin-path)/retain-path-fuzz" "${REACTIVE_DIAGNOSTICS_WALK_SECONDS:-20}"

step "all tests passed"
