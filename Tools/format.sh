#!/usr/bin/env bash
# Formats the package's Swift code with swift-format and the repository's .swift-format.
#
#   Tools/format.sh            format every Swift file in place
#   Tools/format.sh --check    lint instead (swift format lint --strict): exits non-zero on any
#                              finding, changes nothing (what CI runs)
#
# SWIFT_FORMAT overrides the command (default: `swift format`, in the toolchain since Swift 6),
# e.g. SWIFT_FORMAT=swift-format for a standalone build.
#
# Not formatted:
# - build products and checkouts: .build*, .swiftpm, checkouts (of every nested package too);
# - the documentation snippets (Tests/DocSnippets, the RxSwift integration's
#   RxDiagnosticsDocSnippets): DocumentationSnippetTests needs each guide's ```swift block in
#   them line for line, so they keep the guides' line breaks;
# - the generated report writer and reader (Sources/ReactiveDiagnosticsReport/JSON/
#   *+JSONWriting.swift, *+JSONReading.swift): ReportFieldCodeTests compares them byte for
#   byte with what the field tables generate.
set -euo pipefail

usage() { sed -n '2,9s/^# \{0,1\}//p' "$0"; }

mode=format
case "${1:-}" in
    "") ;;
    --check) mode=check ;;
    -h | --help) usage; exit 0 ;;
    *) echo "format.sh: unknown argument '$1'" >&2; usage >&2; exit 64 ;;
esac

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
read -r -a swift_format <<< "${SWIFT_FORMAT:-swift format}"

files=()
while IFS= read -r -d '' file; do
    files+=("$file")
done < <(
    find Package.swift Sources Tests Tools Examples Integrations \
        \( -name '.build*' -o -name .swiftpm -o -name checkouts \
           -o -path Tests/DocSnippets -o -name RxDiagnosticsDocSnippets \) -prune \
        -o -type f -name '*.swift' \
           ! -path 'Sources/ReactiveDiagnosticsReport/JSON/*+JSONWriting.swift' \
           ! -path 'Sources/ReactiveDiagnosticsReport/JSON/*+JSONReading.swift' \
           -print0 | sort -z
)
if [ "${#files[@]}" -eq 0 ]; then
    echo "format.sh: no Swift files found under $root" >&2
    exit 1
fi

if [ "$mode" = check ]; then
    if "${swift_format[@]}" lint --strict --parallel --configuration .swift-format "${files[@]}"; then
        echo "format.sh: ${#files[@]} files, no findings"
    else
        echo "format.sh: findings above (run Tools/format.sh to fix what the formatter can)" >&2
        exit 1
    fi
else
    "${swift_format[@]}" format --in-place --parallel --configuration .swift-format "${files[@]}"
    echo "format.sh: formatted ${#files[@]} files"
fi
