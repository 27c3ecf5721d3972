#!/usr/bin/env bash
# The test suite, from a fresh clone: installs what is missing, builds with zero warnings,
# runs every test target, then the RxSwift integration when RxSwift can be resolved.
#
#   Tools/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source Tools/Scripts/setup.sh

ensure_swift
ensure_libunwind
ensure_chromium

echo "==> swift build (zero warnings)" >&2
build_without_warnings

echo "==> swift test" >&2
swift test --skip-build

echo "==> RxSwift integration" >&2
Integrations/RxSwift/test.sh

echo "==> all tests passed" >&2
