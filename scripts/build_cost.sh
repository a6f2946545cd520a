#!/usr/bin/env bash
# What the macros cost a user's build: two equivalent applications, generated side by side, of
# CONTROLLERS controllers x 4 routes (GET/PUT/DELETE on `{id}` with `Path`, POST with `Json`,
# serde structs, one file per controller):
#
#   ours   #[controller]/#[route], rest_root_module! and CorsModule (this checkout, by path)
#   plain  axum 0.8 handlers and Router::route, tower-http's CorsLayer
#
# Each builds in a target folder of its own. Measured, CPU seconds (user + sys) of the cargo
# process and everything it ran, the median of RUNS: the cold build of everything (dev, also
# wall seconds), then, after one controller file is touched, `cargo check`, `cargo build` and
# `cargo build --release` of the application crate alone (its dependencies already built).
# Prints a Markdown table with the ratios ours / plain.
#
#   bash scripts/build_cost.sh                 # 50 controllers, 3 runs, release included
#   CONTROLLERS=20 RUNS=1 RELEASE=0 bash scripts/build_cost.sh
#   APPS=ours bash scripts/build_cost.sh       # one side only (another checkout's, say)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
CONTROLLERS=${CONTROLLERS:-50}
RUNS=${RUNS:-3}
RELEASE=${RELEASE:-1}
APPS=${APPS:-plain ours}
WORK=${WORK:-$ROOT/target/build-cost}
rm -rf "$WORK"
mkdir -p "$WORK"

# ---- the two applications -------------------------------------------------------------------

common_deps='axum = "0.8"
tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
serde = { version = "1", features = ["derive"] }'

item() { # the serde struct of controller $1
    cat <<EOF
#[derive(Serialize, Deserialize)]
pub struct Item$1 {
    pub id: u64,
    pub name: String,
    pub tags: Vec<String>,
}
EOF
}

# The four handlers of controller $1, the same text in both applications; with $2 = ours each
# is marked with its #[route] (inside the controller's impl block).
handlers() {
    local get='' post='' put='' delete=''
    if [ "$2" = ours ]; then
        get='#[route("GET", "{id}")]' post='#[route("POST")]'
        put='#[route("PUT", "{id}")]' delete='#[route("DELETE", "{id}")]'
    fi
    cat <<EOF
$get
async fn read(Path(id): Path<u64>) -> Json<Item$1> {
    Json(Item$1 { id, name: String::new(), tags: Vec::new() })
}

$post
async fn create(Json(item): Json<Item$1>) -> Json<Item$1> {
    Json(item)
}

$put
async fn update(Path(id): Path<u64>, Json(mut item): Json<Item$1>) -> Json<Item$1> {
    item.id = id;
    Json(item)
}

$delete
async fn delete(Path(id): Path<u64>) -> String {
    id.to_string()
}
EOF
}

generate_ours() {
    local dir=$WORK/ours
    mkdir -p "$dir/src"
    cat >"$dir/Cargo.toml" <<EOF
[package]
name = "bench-ours"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
cors-axum = { path = "$ROOT/cors-axum" }
$common_deps

[workspace]
EOF
    local mods="" list=""
    for i in $(seq 0 $((CONTROLLERS - 1))); do
        mods+="mod c$i;"$'\n'
        list+="c$i::Controller$i, "
        {
            echo 'use axum::Json;'
            echo 'use axum::extract::Path;'
            echo 'use cors_axum::prelude::*;'
            echo 'use serde::{Deserialize, Serialize};'
            echo
            item "$i"
            cat <<EOF

pub struct Controller$i;

#[controller("c$i")]
impl Controller$i {
$(handlers "$i" ours)
}
EOF
        } >"$dir/src/c$i.rs"
    done
    cat >"$dir/src/main.rs" <<EOF
use cors_axum::prelude::*;

$mods
rest_root_module! {
    pub struct AppModule {
        imports: [CorsModule::with_opts(CorsOptions::new().origin("https://example.com"))],
        controllers: [$list],
    }
}

#[tokio::main]
async fn main() {
    let app: axum::Router = AppModule::router().expect("a valid module");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    axum::serve(listener, app).await.unwrap();
}
EOF
}

generate_plain() {
    local dir=$WORK/plain
    mkdir -p "$dir/src"
    cat >"$dir/Cargo.toml" <<EOF
[package]
name = "bench-plain"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
tower-http = { version = "0.7", features = ["cors"] }
$common_deps

[workspace]
EOF
    local mods="" merges=""
    for i in $(seq 0 $((CONTROLLERS - 1))); do
        mods+="mod c$i;"$'\n'
        merges+="        .merge(c$i::routes())"$'\n'
        {
            echo 'use axum::extract::Path;'
            echo 'use axum::routing::{get, post};'
            echo 'use axum::{Json, Router};'
            echo 'use serde::{Deserialize, Serialize};'
            echo
            item "$i"
            cat <<EOF

$(handlers "$i" plain)

pub fn routes() -> Router {
    Router::new()
        .route("/c$i", post(create))
        .route("/c$i/{id}", get(read).put(update).delete(delete))
}
EOF
        } >"$dir/src/c$i.rs"
    done
    cat >"$dir/src/main.rs" <<EOF
use axum::Router;
use axum::http::{HeaderValue, Method};
use tower_http::cors::CorsLayer;

$mods
#[tokio::main]
async fn main() {
    let cors = CorsLayer::new()
        .allow_origin(HeaderValue::from_static("https://example.com"))
        .allow_methods([Method::GET, Method::POST, Method::PUT, Method::DELETE]);
    let app = Router::new()
$merges        .layer(cors);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    axum::serve(listener, app).await.unwrap();
}
EOF
}

# ---- measuring ------------------------------------------------------------------------------

# Runs a command in $1 and prints "cpu wall": user + sys seconds of it and its children, wall.
measure() {
    local dir=$1
    shift
    python3 - "$dir" "$@" <<'PY'
import os, resource, subprocess, sys, time
dir, cmd = sys.argv[1], sys.argv[2:]
before = resource.getrusage(resource.RUSAGE_CHILDREN)
start = time.monotonic()
subprocess.run(cmd, cwd=dir, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
               env={**os.environ, "CARGO_TARGET_DIR": os.path.join(dir, "target")})
wall = time.monotonic() - start
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print(f"{cpu:.2f} {wall:.2f}")
PY
}

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# The touched rebuild of `$@` in app $1, RUNS times; prints the median CPU seconds.
touched() {
    local app=$1
    shift
    local runs=()
    # Once first, unmeasured: `cargo check` builds its own metadata of every dependency.
    touch "$WORK/$app/src/c1.rs"
    measure "$WORK/$app" "$@" >/dev/null
    for _ in $(seq "$RUNS"); do
        touch "$WORK/$app/src/c1.rs"
        read -r cpu _ < <(measure "$WORK/$app" "$@")
        runs+=("$cpu")
    done
    median "${runs[@]}"
}

generate_ours
generate_plain
echo "generated $CONTROLLERS controllers x 4 routes in $WORK/{ours,plain}" >&2

declare -A cold_cpu cold_wall check build release crates
for app in $APPS; do
    (cd "$WORK/$app" && cargo fetch --quiet)
    echo "$app: cold dev build of everything" >&2
    read -r cold_cpu[$app] cold_wall[$app] < <(measure "$WORK/$app" cargo build)
    crates[$app]=$(cd "$WORK/$app" && cargo tree --prefix none -e normal,build --quiet | sort -u | wc -l)
    echo "$app: touched rebuilds" >&2
    check[$app]=$(touched "$app" cargo check)
    build[$app]=$(touched "$app" cargo build)
    if [ "$RELEASE" = 1 ]; then
        release[$app]=$(touched "$app" cargo build --release)
    fi
done

if [ "$APPS" != "plain ours" ]; then
    for app in $APPS; do
        printf '%s: check %s, build %s, release %s, cold CPU %s, cold wall %s, crates %s\n' "$app" \
            "${check[$app]}" "${build[$app]}" "${release[$app]:--}" "${cold_cpu[$app]}" \
            "${cold_wall[$app]}" "${crates[$app]}"
    done
    exit 0
fi
row() { printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$(ratio "$2" "$3")"; }
echo
echo "$CONTROLLERS controllers x 4 routes; CPU seconds (user + sys), median of $RUNS"
echo
echo '| measure | ours | plain | ours/plain |'
echo '|---|---:|---:|---:|'
row '`cargo check`, one controller touched' "${check[ours]}" "${check[plain]}"
row '`cargo build` (dev), one controller touched' "${build[ours]}" "${build[plain]}"
if [ "$RELEASE" = 1 ]; then
    row '`cargo build --release`, one controller touched' "${release[ours]}" "${release[plain]}"
fi
row 'cold dev build of everything, CPU' "${cold_cpu[ours]}" "${cold_cpu[plain]}"
row 'cold dev build of everything, wall' "${cold_wall[ours]}" "${cold_wall[plain]}"
row 'crates built' "${crates[ours]}" "${crates[plain]}"
