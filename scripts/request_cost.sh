#!/usr/bin/env bash
# Instructions and heap allocations per request through a whole axum::Router: CorsModule, axum
# with tower-http's CorsLayer, and the floor (plain axum writing the same headers with values
# built at compile time); then a reloadable plan against a static one, and origins decided by an
# asynchronous predicate (a future ready at once) against tower-http's async_predicate; then a
# POST from an allowed origin under cross-origin protection against the same POST without it; then a
# thousand origins in an OriginSet against the same in a static list; then the same thousand in a
# TenantOrigins (ten for each of a hundred hosts) against the OriginSet.
# Instructions come from callgrind (counting only `drive`, one request each), allocations from a
# counting allocator in the benchmark, over 1,000 requests after one warm-up request; the
# machine's load moves neither.
#
#   bash scripts/request_cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is needed: apt-get install -y valgrind" >&2; exit 1; }

cargo bench -p cors-axum --bench requests --no-run 2>/dev/null
BIN=$(ls -t "${CARGO_TARGET_DIR:-target}"/release/deps/requests-* | grep -v '\.d$' | head -1)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

N=1000
mkdir "$OUT/counted"
count() { # router request -> "instructions allocations" per request, each case counted once
    local case="$1/$2" memo="$OUT/counted/$1.$2"
    if [ ! -f "$memo" ]; then
        REQUEST_COST_ONCE=$case valgrind --tool=callgrind --toggle-collect='requests::seed::drive' \
            --callgrind-out-file="$OUT/cg" "$BIN" >"$OUT/out" 2>"$OUT/cg.log"
        local instructions allocations
        instructions=$(grep -E '^summary:' "$OUT/cg" | awk '{print $2}')
        # Counted by the benchmark itself, outside valgrind: allocations of the 1,000 requests.
        allocations=$(REQUEST_COST_ONCE=$case "$BIN" | awk '/^allocations/ {print $2}')
        echo "$((instructions / N)) $allocations" >"$memo"
    fi
    cat "$memo"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

printf '| request | ours | tower-http | floor | ours/tower | ours/floor | allocations ours/tower/floor |\n'
printf '|---|---:|---:|---:|---:|---:|---|\n'
for request in preflight get get-refused no-origin; do
    read -r oi oa < <(count ours "$request")
    read -r ti ta < <(count tower-http "$request")
    read -r fi fa < <(count floor "$request")
    printf '| %s | %s | %s | %s | %s | %s | %s / %s / %s |\n' "$request" "$oi" "$ti" "$fi" \
        "$(ratio "$oi" "$ti")" "$(ratio "$oi" "$fi")" "$oa" "$ta" "$fa"
done

echo
printf '| request | reloadable | static | reloadable/static | async (ready) | tower-http async | ours/tower |\n'
printf '|---|---:|---:|---:|---:|---:|---:|\n'
for request in preflight get; do
    read -r ri _ < <(count ours-reloadable "$request")
    read -r si _ < <(count ours "$request")
    read -r ai _ < <(count ours-async "$request")
    read -r ti _ < <(count tower-http-async "$request")
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$request" "$ri" "$si" "$(ratio "$ri" "$si")" \
        "$ai" "$ti" "$(ratio "$ai" "$ti")"
done

# A table of router A against router B: pair "A's heading" "B's heading" "ratio's heading" A B
# requests...
pair() {
    local a_title=$1 b_title=$2 ratio_title=$3 a=$4 b=$5
    shift 5
    echo
    printf '| request | %s | %s | %s |\n|---|---:|---:|---:|\n' "$a_title" "$b_title" "$ratio_title"
    for request in "$@"; do
        read -r ai _ < <(count "$a" "$request")
        read -r bi _ < <(count "$b" "$request")
        printf '| %s | %s | %s | %s |\n' "$request" "$ai" "$bi" "$(ratio "$ai" "$bi")"
    done
}

pair protected unprotected protected/unprotected ours-protected ours-provided post
pair "1,000 origins in an OriginSet" "the same in a static list" set/list \
    ours-set-1000 ours-list-1000 preflight get get-refused
pair "1,000 origins over 100 hosts in a TenantOrigins" "1,000 in an OriginSet" tenants/set \
    ours-tenants-1000 ours-set-1000 preflight get get-refused
