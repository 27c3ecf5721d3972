#!/usr/bin/env bash
# Builds the DocC documentation of every public module and checks it. Fails on:
#   - any DocC warning (an unresolved or ambiguous symbol link, a parameter without
#     documentation...): the catalogs are built with --warnings-as-errors;
#   - a module landing page where DocC had to add a topic group of its own ("Structures",
#     "Classes", "Extended Modules"...) because the catalog's `## Topics` does not place a
#     top-level symbol;
#   - a public symbol without a `///` documentation comment of its own (read from the symbol
#     graphs the build extracted; see Tools/Workshop/DocCoverage);
#   - a public top-level declaration Docs/PublicAPI.md does not name, or a name of its table
#     that is no public declaration (doc-coverage public-api);
#   - a link of a catalog to a file of this repository that does not exist;
#   - a library product without a catalog.
# The RxSwift integration's module (the root package's product RxDiagnostics, with the trait
# RxSwift) is built and checked the same way when RxSwift can be resolved, from the nested package
# Integrations/RxSwift/RxDiagnostics that enables the trait; otherwise one line says it was skipped
# and why.
#
#   Tools/docs.sh            every module
#   Tools/docs.sh --root     the root package's modules only (trait RxSwift off)
#   Tools/docs.sh --rxswift  RxDiagnostics only
#
# The archives land in .build/plugins/Swift-DocC/outputs/<Module>.doccarchive (and, for
# RxDiagnostics, under Integrations/RxSwift/RxDiagnostics/.build/); to read one, run
#   swift package --disable-sandbox preview-documentation --target <Module>
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

# The public modules: every library product not marked as internal by a leading underscore (but
# RxDiagnostics, empty without the trait RxSwift: its own step, at the end).
modules=(
    ReactiveDiagnostics ReactiveDiagnosticsReport CombineDiagnostics EffectDiagnostics ConcurrencyDiagnostics
    ReactiveDiagnosticsXCTest ReactiveDiagnosticsTesting ReactiveDiagTool
)
# Links of the catalogs to this repository's files (guides) point here.
repository_files="https://github.com/reactive-diagnostics/ReactiveDiagnostics/blob/main/"

step() { printf '==> %s\n' "$*" >&2; }
fail() { echo "error: $*" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# 0. Every library product has a catalog; every catalog links only to files that exist.
for product in $(grep -oE '\.library\(name: "[^"]+"' Package.swift | sed -E 's/.*"([^"]+)"/\1/'); do
    [[ "$product" == _* || "$product" == RxDiagnostics ]] && continue
    [[ " ${modules[*]} " == *" $product "* ]] || fail "library product $product is not in Tools/docs.sh's modules"
done
catalogs=()
while IFS= read -r catalog; do catalogs+=("$catalog"); done \
    < <(find Sources Tools Integrations -name '*.docc' -type d -not -path '*/.build/*' | sort)
for module in "${modules[@]}"; do
    printf '%s\n' "${catalogs[@]}" | grep -q "/$module.docc$" \
        || fail "$module has no DocC catalog ($module.docc in its target's folder)"
done
broken=0
while IFS= read -r link; do
    file="${link#"$repository_files"}"
    file="${file%%#*}"
    [ -e "$file" ] || { echo "error: a catalog links to $link, but $file does not exist" >&2; broken=1; }
done < <(grep -rhoE "${repository_files//./\\.}[^) >]+" "${catalogs[@]}" | sort -u)
[ "$broken" -eq 0 ] || exit 1

# Runs the DocC plugin on `package` for `targets`, warnings as errors, then the two checks on
# what it produced. Arguments: package directory, targets... SwiftPM options for the package
# (its path included) come from `swiftpm`; `selector` is --target, or --product for a product of
# one of the package's dependencies.
swiftpm=(--package-path "$root")
selector=--target
build_and_check() {
    local package="$1"
    shift
    local stamp="$work/stamp-$(basename "$package")"
    touch "$stamp"
    local target_arguments=()
    for target in "$@"; do target_arguments+=("$selector" "$target"); done
    local log="$work/docc.log"
    if ! swift package "${swiftpm[@]}" --disable-sandbox generate-documentation \
        "${target_arguments[@]}" --warnings-as-errors >"$log" 2>&1; then
        grep -v -E '^\[[0-9]+/[0-9]+\]' "$log" | tail -80 >&2
        fail "DocC reported warnings or errors (above)"
    fi
    local archives=() graphs=()
    for target in "$@"; do
        local archive="$package/.build/plugins/Swift-DocC/outputs/$target.doccarchive"
        [ -d "$archive" ] || fail "no archive for $target at $archive"
        archives+=("$archive")
        # The symbol graphs the plugin extracted for this build (newer than the stamp).
        local graph
        graph="$(find "$package/.build" -path "*/extracted-symbols/*/$target" -type d -newer "$stamp" | head -1)"
        [ -n "$graph" ] || fail "no symbol graphs extracted for $target under $package/.build"
        graphs+=("$graph")
    done
    "$checker" topics "${archives[@]}"
    "$checker" symbols "${graphs[@]}"
    # Docs/PublicAPI.md names every public top-level declaration, and nothing that is gone.
    "$checker" public-api "$root/Docs/PublicAPI.md" "${graphs[@]}"
}

mode="${1:-}"

step "doc-coverage (the checker)"
swift build --package-path Tools/Workshop --product doc-coverage >"$work/build.log" 2>&1 \
    || { cat "$work/build.log" >&2; exit 1; }
checker="$(swift build --package-path Tools/Workshop --show-bin-path)/doc-coverage"

if [ "$mode" != --rxswift ]; then
    step "DocC: ${modules[*]} (warnings are errors)"
    build_and_check "$root" "${modules[@]}"
fi

[ "$mode" = --root ] && exit 0

step "DocC: RxDiagnostics (the RxSwift integration)"
source Integrations/RxSwift/resolve.sh
if resolve_rxswift_integration; then
    swiftpm=("${rxswift_swiftpm[@]}")
    selector=--product
    build_and_check "$root/Integrations/RxSwift/RxDiagnostics" RxDiagnostics
fi
