#!/usr/bin/env bash
# Load comparison on loopback: CorsModule against axum + tower-http CorsLayer (and bare axum),
# same routes and configuration, alternating runs on the same machine.
#
#   bash scripts/load.sh [rounds] [seconds]      (needs wrk: apt-get install -y wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
seconds="${2:-5}"
connections="${CONNECTIONS:-32}"

cargo build --release --example load_server -q
bin=target/release/examples/load_server

declare -A port=([ours]=3301 [tower]=3302 [bare]=3303)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; }
trap cleanup EXIT
for name in ours tower bare; do
    PORT="${port[$name]}" "$bin" "$name" >/dev/null &
    pids+=($!)
done
for name in ours tower bare; do
    for _ in $(seq 50); do
        curl -s -o /dev/null "http://127.0.0.1:${port[$name]}/" && break
        sleep 0.1
    done
done

lua=$(mktemp)
cat >"$lua" <<'LUA'
wrk.method = "OPTIONS"
wrk.headers["Origin"] = "https://example.com"
wrk.headers["Access-Control-Request-Method"] = "POST"
wrk.headers["Access-Control-Request-Headers"] = "x-pingother, content-type"
LUA

rps() { # name, kind -> requests per second
    local url="http://127.0.0.1:${port[$1]}/"
    if [ "$2" = preflight ]; then
        wrk -t1 -c"$connections" -d"${seconds}s" -s "$lua" "$url"
    else
        wrk -t1 -c"$connections" -d"${seconds}s" -H "Origin: https://example.com" "$url"
    fi | awk '/Requests\/sec/ {print $2}'
}

printf '%-10s %-6s %s\n' kind server "requests/s per round"
for kind in preflight get; do
    declare -A results=()
    for round in $(seq "$rounds"); do
        for name in ours tower bare; do
            [ "$kind" = preflight ] && [ "$name" = bare ] && continue
            results[$name]+="$(rps "$name" "$kind") "
        done
    done
    for name in ours tower bare; do
        [ -n "${results[$name]:-}" ] || continue
        printf '%-10s %-6s %s\n' "$kind" "$name" "${results[$name]}"
    done
    median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    ours=$(echo "${results[ours]}" | median)
    tower=$(echo "${results[tower]}" | median)
    echo "$kind median: ours $ours, tower-http $tower, ratio ours/tower-http $(awk -v a="$ours" -v b="$tower" 'BEGIN {printf "%.3f", a/b}')"
    if [ -n "${results[bare]:-}" ]; then
        bare=$(echo "${results[bare]}" | median)
        echo "$kind median: bare axum $bare, ratio ours/bare $(awk -v a="$ours" -v b="$bare" 'BEGIN {printf "%.3f", a/b}')"
    fi
    unset results
done
rm -f "$lua"
