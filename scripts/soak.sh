#!/usr/bin/env bash
# Soak: the example server (examples/cors.rs, release build) under mixed load on loopback, then
# under a load where every request has a new Origin. Checks zero 5xx, zero connection errors, and
# resident memory at the end within 5 % of where it was 10 s into the run: a run's connections
# are new ones (wrk starts again after the warm-up), and setting them up raises memory once, in
# the first seconds; a leak keeps raising it. Not part of CI.
#
#   bash scripts/soak.sh [seconds]      (needs wrk: apt-get install -y wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
warmup=10
port="${PORT:-3411}"

cargo build --release --example cors -q
PORT=$port target/release/examples/cors >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do
    curl -s -o /dev/null "http://127.0.0.1:$port/" && break
    sleep 0.1
done

rss() { awk '/^VmRSS/ {print $2}' "/proc/$server/status"; }
tmp=$(mktemp)
trap 'kill $server 2>/dev/null || true; rm -f "$tmp"' EXIT
failed=0
run() { # mode -> prints the figures, checks them
    local mode=$1
    MODE=$mode wrk -t1 -c32 -d"${warmup}s" -s scripts/soak.lua "http://127.0.0.1:$port/" >/dev/null
    local before after
    before=$(rss)
    local out samples=()
    MODE=$mode wrk -t1 -c32 -d"${seconds}s" -s scripts/soak.lua "http://127.0.0.1:$port/" >"$tmp" &
    local load=$!
    # Resident memory every 10 s, to see whether it levels off.
    while kill -0 $load 2>/dev/null; do
        sleep 10
        kill -0 $load 2>/dev/null && samples+=("$(rss)")
    done
    wait $load
    out=$(cat "$tmp")
    after=$(rss)
    local requests fivexx errors
    requests=$(awk '/^requests/ {print $2}' <<<"$out")
    fivexx=$(awk '/^5xx/ {print $2}' <<<"$out")
    errors=$(awk '/^(connect|read|write)_errors|^timeouts/ {s += $2} END {print s}' <<<"$out")
    local growth first=${samples[0]:-$before}
    growth=$(awk -v a="$first" -v b="$after" 'BEGIN { printf "%.1f", (b - a) * 100 / a }')
    printf '%-8s %3ss: %9d requests (%d/s), 5xx %d, connection errors %d, RSS %d kB after warm-up, %d kB 10 s in, %d kB at the end (%s %% from 10 s in)\n' \
        "$mode" "$seconds" "$requests" $((requests / seconds)) "$fivexx" "$errors" "$before" "$first" "$after" "$growth"
    printf '         RSS every 10 s (kB): %s\n' "${samples[*]}"
    if [ "$fivexx" -ne 0 ] || [ "$errors" -ne 0 ] || \
        awk -v g="$growth" 'BEGIN { exit !(g > 5 || g < -5) }'; then
        failed=1
    fi
}
run mixed
run origins
if [ $failed -ne 0 ]; then
    echo "soak FAILED" >&2
    exit 1
fi
echo "soak passed"
