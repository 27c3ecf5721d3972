# Shared set-up for Tools/test.sh and Tools/demo.sh: installs what a fresh Debian/Ubuntu
# machine with Swift 6 lacks. Source it; it defines functions and changes nothing by itself.

# Runs a command as root: directly when we are root, through sudo otherwise.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "error: '$*' needs root and sudo is not installed" >&2
        return 1
    fi
}

APT_UPDATED=0
apt_install() {
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "error: apt-get not found; install these packages by hand: $*" >&2
        return 1
    fi
    if [ "$APT_UPDATED" -eq 0 ]; then
        echo "==> apt-get update" >&2
        as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
        APT_UPDATED=1
    fi
    echo "==> apt-get install $*" >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

# libunwind (the capture layer) and pkg-config (how SwiftPM finds it).
ensure_libunwind() {
    if ! command -v pkg-config >/dev/null 2>&1; then
        apt_install pkg-config
    fi
    if ! pkg-config --exists libunwind; then
        apt_install libunwind-dev
    fi
}

# Headless Chromium, for the test that opens the HTML report in a real browser.
ensure_chromium() {
    if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
        return 0
    fi
    apt_install chromium || apt_install chromium-browser
}

# The validators the tests check the gate's output with: Python's jsonschema (SARIF against the
# official SARIF 2.1.0 schema) and xmllint (JUnit against Jenkins' JUnit XSD).
ensure_schema_validators() {
    if ! command -v xmllint >/dev/null 2>&1; then
        apt_install libxml2-utils
    fi
    if ! command -v python3 >/dev/null 2>&1; then
        apt_install python3
    fi
    if ! python3 -c 'import jsonschema' >/dev/null 2>&1; then
        echo "==> pip install jsonschema" >&2
        python3 -m pip install --quiet jsonschema >&2 2>/dev/null \
            || python3 -m pip install --quiet --break-system-packages jsonschema >&2 \
            || apt_install python3-jsonschema
    fi
}

# The Swift toolchain itself is a prerequisite, not something we install.
ensure_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        echo "error: swift is not on PATH; install Swift 6 from https://swift.org/install first" >&2
        return 1
    fi
}

# Builds with --build-tests and fails when the compiler warns about our own code
# (dependencies' warnings are theirs).
build_without_warnings() {
    local log
    log="$(mktemp)"
    if ! swift build --build-tests "$@" 2>&1 | tee "$log" >&2; then
        rm -f "$log"
        return 1
    fi
    local own
    own="$(grep -E "warning:" "$log" | grep -v -E "/\.build[^/]*/checkouts/|/\.build[^/]*/repositories/" | sort -u || true)"
    rm -f "$log"
    if [ -n "$own" ]; then
        echo "error: the build has warnings in our code:" >&2
        echo "$own" >&2
        return 1
    fi
}

# Runs `swift test "$@"`, its output shown as it comes. When it fails, the failures are printed
# again at the very end, so a CI log cut to its last lines still says what failed and where.
swift_test_with_failure_summary() {
    local log status=0
    log="$(mktemp)"
    swift test "$@" 2>&1 | tee "$log" || status=$?
    if [ "$status" -ne 0 ]; then
        echo "" >&2
        echo "==> swift test failed (exit $status); what failed:" >&2
        grep -E "✘|error: |: error -|Fatal error|Test Case .* failed|signal [0-9]+|Exited with" "$log" \
            | grep -v "known issue" | head -60 >&2 || true
    fi
    rm -f "$log"
    return "$status"
}

# Runs `swift test "$@"` under Thread Sanitizer (the caller passes --sanitize=thread and its
# build), quietly. Fails, showing the reports and failed tests, when the run fails or TSan
# reports anything; otherwise prints one line for `name` with the number of tests.
swift_test_without_tsan_reports() {
    local name="$1" log status=0 reports
    shift
    log="$(mktemp)"
    TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1" timeout "${TSAN_TIMEOUT:-900}" \
        swift test "$@" >"$log" 2>&1 || status=$?
    reports="$(grep -c "WARNING: ThreadSanitizer" "$log" || true)"
    if [ "$status" -ne 0 ] || [ "$reports" -ne 0 ]; then
        grep -A30 "WARNING: ThreadSanitizer" "$log" | head -120 >&2 || true
        grep -E "✘ Test .* recorded|error:" "$log" | head -20 >&2 || true
        echo "error: Thread Sanitizer, $name: exit $status, $reports reports" >&2
        rm -f "$log"
        return 1
    fi
    echo "Thread Sanitizer, $name: no report ($(grep -E "Test run with [0-9]+ tests" "$log" | tail -1 | sed -E 's/.*(Test run with [0-9]+ tests).*/\1/'))" >&2
    rm -f "$log"
}

# Runs `swift test "$@"` under AddressSanitizer (the caller passes --sanitize=address and its
# build) with LeakSanitizer on and Tools/Scripts/lsan.supp, quietly. Fails, showing the reports
# and failed tests, when the run fails or any AddressSanitizer or leak report is left; otherwise
# prints one line for `name` with the number of tests.
swift_test_without_leak_reports() {
    local name="$1" log status=0 reports
    shift
    log="$(mktemp)"
    ASAN_OPTIONS="detect_leaks=1" LSAN_OPTIONS="suppressions=$PWD/Tools/Scripts/lsan.supp:print_suppressions=0" \
        timeout "${ASAN_TIMEOUT:-900}" swift test "$@" >"$log" 2>&1 || status=$?
    reports="$(grep -c -E "ERROR: (AddressSanitizer|LeakSanitizer)" "$log" || true)"
    if [ "$status" -ne 0 ] || [ "$reports" -ne 0 ]; then
        grep -A24 -E "ERROR: (AddressSanitizer|LeakSanitizer)|^(Direct|Indirect) leak" "$log" | head -200 >&2 || true
        grep -E "SUMMARY: AddressSanitizer" "$log" >&2 || true
        grep -E "✘ Test .* recorded|error:" "$log" | head -20 >&2 || true
        echo "error: AddressSanitizer, $name: exit $status, $reports reports" >&2
        rm -f "$log"
        return 1
    fi
    echo "AddressSanitizer, $name: no report, no leak ($(grep -E "Test run with [0-9]+ tests" "$log" | tail -1 | sed -E 's/.*(Test run with [0-9]+ tests).*/\1/'))" >&2
    rm -f "$log"
}
