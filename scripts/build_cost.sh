#!/usr/bin/env bash
# What the macros cost a user's build: equivalent applications, generated side by side, of
# CONTROLLERS controllers x 4 routes (GET/PUT/DELETE on `{id}` with `Path`, POST with `Json`,
# serde structs, one file per controller), the four handlers' text the same in every app:
#
#   plain   axum 0.8 handlers and Router::route, tower-http's CorsLayer
#   spring  spring-web 0.4 (crates.io): `#[get("/c1/{id}")]` on free functions, each route an
#           `inventory` entry, the router from `spring_web::handler::auto_router()`, CorsLayer
#   ours    #[controller]/#[route], rest_root_module! and CorsModule, from a cors-axum checkout
#
# APPS lists the apps, in the order they alternate: `plain`, `spring`, `ours`, or LABEL=PATH, an
# `ours` app labelled LABEL built from the cors-axum checkout at PATH. `ours` stands for every
# checkout in OURS: space-separated PATH or LABEL=PATH entries (default: this checkout, labelled
# `ours`; an entry without a label is labelled ours-<folder name>). Each checkout is copied into
# WORK first, its HEAD commit's files (uncommitted changes are left out; out of git, its files),
# so that work going on in it while the script runs does not reach the figures; the commit is
# printed beside them.
#
# Each app builds in a target folder of its own. Measured: CPU seconds (user + sys) of cargo and
# everything it ran (`perf stat -e instructions` is not available on every machine), medians of
# RUNS; the apps alternate run by run (plain, ours, spring, plain, ...), so that a machine busy
# with other work slows every app alike:
#   - check: `cargo check` after one controller file is touched (incremental reuses almost all);
#   - dev: `cargo build` after the same touch;
#   - edit: a real edit, the string of one handler's body changed (a new one each run), then
#     `cargo build`: a user's everyday loop; EDIT_RUNS runs;
#   - release: `cargo build --release` after a touch. Release is not incremental: the app crate
#     is compiled whole after a touch as after an edit (RELEASE_EDIT=1 measures the edit too);
#   - cold: the dev build of everything from an empty target folder, CPU and wall seconds;
#   - crates: the packages built (`cargo tree`, normal and build dependencies, the app included).
# Printed: a Markdown table of each app's medians with the ratio to plain, then each figure's
# runs (min-max), the machine's load before and after, and each checkout's commit.
#
# The checkouts' crates are path dependencies of the `ours` apps. Cargo builds path dependencies
# incrementally in dev, registry ones not: the apps set `incremental = false` for the three
# cors-axum crates, so that they build as they would from crates.io.
#
#   bash scripts/build_cost.sh                       # plain, spring, this checkout: 50 controllers
#   CONTROLLERS=20 RUNS=1 RELEASE=0 bash scripts/build_cost.sh        # quick: one run of each
#   OURS="base=/work/base lean=../wt-lean" bash scripts/build_cost.sh  # two checkouts side by side
#   APPS="plain ours=../other" bash scripts/build_cost.sh             # a subset, another checkout
#
# Knobs: CONTROLLERS (50), RUNS (3; the edit's default 5, or RUNS when given), EDIT_RUNS,
# RELEASE (1; 0 skips the release builds), RELEASE_EDIT (0), WORK (target/build-cost; emptied).
# Needs bash, cargo and python3 (and git for a checkout in git); the network only for `cargo fetch`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
CONTROLLERS=${CONTROLLERS:-50}
EDIT_RUNS=${EDIT_RUNS:-${RUNS:-5}}
RUNS=${RUNS:-3}
RELEASE=${RELEASE:-1}
RELEASE_EDIT=${RELEASE_EDIT:-0}
OURS=${OURS:-ours=$ROOT}
APPS=${APPS:-plain ours spring}
WORK=${WORK:-$ROOT/target/build-cost}
rm -rf "$WORK"
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

# ---- the applications -----------------------------------------------------------------------

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

# The four handlers of controller $1, the same text in every application; $2 (ours, spring)
# marks each with its route attribute. The edit changes the `delete` handler's string.
handlers() {
    local get='' post='' put='' delete=''
    case $2 in
    ours)
        get='#[route("GET", "{id}")]' post='#[route("POST")]'
        put='#[route("PUT", "{id}")]' delete='#[route("DELETE", "{id}")]'
        ;;
    spring)
        get="#[get(\"/c$1/{id}\")]" post="#[post(\"/c$1\")]"
        put="#[put(\"/c$1/{id}\")]" delete="#[delete(\"/c$1/{id}\")]"
        ;;
    esac
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
    format!("item {id} deleted")
}
EOF
}

manifest() { # the Cargo.toml of app $1, its own dependencies in $2
    cat <<EOF
[package]
name = "bench-$1"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
$2
$common_deps

[workspace]
EOF
}

cors_layer='let cors = CorsLayer::new()
        .allow_origin(HeaderValue::from_static("https://example.com"))
        .allow_methods([Method::GET, Method::POST, Method::PUT, Method::DELETE]);'

generate_ours() { # app $1 from the cors-axum crate at $2
    local dir=$WORK/$1
    mkdir -p "$dir/src"
    {
        manifest "$1" "cors-axum = { path = \"$2\" }"
        for crate in cors-axum cors-axum-core cors-axum-macros; do
            printf '\n[profile.dev.package.%s]\nincremental = false\n' "$crate"
        done
    } >"$dir/Cargo.toml"
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
    manifest plain 'tower-http = { version = "0.7", features = ["cors"] }' >"$dir/Cargo.toml"
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
    $cors_layer
    let app = Router::new()
$merges        .layer(cors);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    axum::serve(listener, app).await.unwrap();
}
EOF
}

# spring-web 0.4 without its default feature (`http2`, which the other apps do not build); what
# remains is what spring-web itself requires (spring: tokio and tower-http with all features,
# tracing-subscriber, toml, schemars, dashmap, ...). tower-http 0.6 is the version spring-web
# builds already, so that its CorsLayer adds no second tower-http.
generate_spring() {
    local dir=$WORK/spring
    mkdir -p "$dir/src"
    manifest spring 'spring-web = { version = "0.4", default-features = false }
tower-http = { version = "0.6", features = ["cors"] }' >"$dir/Cargo.toml"
    local mods=""
    for i in $(seq 0 $((CONTROLLERS - 1))); do
        mods+="mod c$i;"$'\n'
        {
            echo 'use axum::Json;'
            echo 'use axum::extract::Path;'
            echo 'use serde::{Deserialize, Serialize};'
            echo 'use spring_web::{delete, get, post, put};'
            echo
            item "$i"
            echo
            handlers "$i" spring
        } >"$dir/src/c$i.rs"
    done
    cat >"$dir/src/main.rs" <<EOF
use axum::http::{HeaderValue, Method};
use tower_http::cors::CorsLayer;

$mods
#[tokio::main]
async fn main() {
    $cors_layer
    let app = spring_web::handler::auto_router().layer(cors);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    axum::serve(listener, app).await.unwrap();
}
EOF
}

# ---- the apps asked for ---------------------------------------------------------------------

apps=()
declare -A source commit
add_ours() { # label $1, checkout $2 (the workspace or its cors-axum folder)
    local label=$1 path=$2
    [[ $label =~ ^[A-Za-z0-9_-]+$ ]] || { echo "bad app label: $label" >&2; exit 2; }
    [ -d "$path/cors-axum" ] && path=$path/cors-axum
    [ -f "$path/Cargo.toml" ] || { echo "no cors-axum crate at $2" >&2; exit 2; }
    path=$(cd "$path/.." && pwd) # the workspace, whose Cargo.toml the crates inherit from
    apps+=("$label")
    source[$label]=$path
    if git -C "$path" rev-parse --git-dir >/dev/null 2>&1; then
        commit[$label]="commit $(git -C "$path" log -1 --format='%h %s' | cut -c1-80)"
        if [ -n "$(git -C "$path" status --porcelain --untracked-files=no)" ]; then
            commit[$label]+=' (its uncommitted changes left out)'
        fi
    else
        commit[$label]='its files (no git)'
    fi
}
# Copies checkout $1 to $2: its HEAD commit's files, or, out of git, its files but target/.
copy_checkout() {
    if git -C "$1" rev-parse --git-dir >/dev/null 2>&1; then
        mkdir -p "$2"
        git -C "$1" archive --format=tar HEAD:./ |
            python3 -c 'import sys, tarfile
tarfile.open(fileobj=sys.stdin.buffer, mode="r|").extractall(sys.argv[1])' "$2"
    else
        python3 -c 'import shutil, sys
shutil.copytree(sys.argv[1], sys.argv[2], ignore=shutil.ignore_patterns("target"))' "$1" "$2"
    fi
}
read -ra ours_entries <<<"$OURS"
for entry in $APPS; do
    case $entry in
    plain | spring) apps+=("$entry") ;;
    ours)
        for o in "${ours_entries[@]}"; do
            if [[ $o == *=* ]]; then
                add_ours "${o%%=*}" "${o#*=}"
            else
                add_ours "ours-$(basename "$o")" "$o"
            fi
        done
        ;;
    *=*) add_ours "${entry%%=*}" "${entry#*=}" ;;
    *) echo "unknown app: $entry (plain, spring, ours or LABEL=PATH)" >&2; exit 2 ;;
    esac
done

for app in "${apps[@]}"; do
    case $app in
    plain) generate_plain ;;
    spring) generate_spring ;;
    *)
        copy_checkout "${source[$app]}" "$WORK/checkouts/$app"
        generate_ours "$app" "$WORK/checkouts/$app/cors-axum"
        ;;
    esac
    (cd "$WORK/$app" && cargo fetch --quiet)
done
(IFS=,; echo "generated $CONTROLLERS controllers x 4 routes in $WORK/{${apps[*]}}" >&2)

# ---- measuring ------------------------------------------------------------------------------

# Runs a command in app $1 and prints "cpu wall": user + sys seconds of it and its children, and
# wall seconds. On failure, prints the command's last lines of output and fails.
measure() {
    local dir=$WORK/$1
    shift
    python3 - "$dir" "$@" <<'PY'
import os, resource, subprocess, sys, time
dir, cmd = sys.argv[1], sys.argv[2:]
before = resource.getrusage(resource.RUSAGE_CHILDREN)
start = time.monotonic()
run = subprocess.run(cmd, cwd=dir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                     env={**os.environ, "CARGO_TARGET_DIR": os.path.join(dir, "target")})
wall = time.monotonic() - start
after = resource.getrusage(resource.RUSAGE_CHILDREN)
if run.returncode != 0:
    tail = "\n".join(run.stderr.splitlines()[-40:])
    sys.stderr.write(f"{dir}: {' '.join(cmd)} failed:\n{tail}\n")
    sys.exit(1)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print(f"{cpu:.2f} {wall:.2f}")
PY
}

edits=0
# The real edit of app $1: the string of controller 1's `delete` handler, a new one each time.
edit() {
    local file=$WORK/$1/src/c1.rs
    edits=$((edits + 1))
    awk -v n="$edits" '/deleted/ { sub(/deleted[^"]*"/, "deleted (edit " n ")\"") } { print }' \
        "$file" >"$file.new"
    mv "$file.new" "$file"
}
touch_one() { touch "$WORK/$1/src/c1.rs"; }

declare -A cpu wall # "measure app" -> the runs' seconds, space-separated
# measure_all NAME RUNS BEFORE CARGO-ARGS...: RUNS rounds, each app in turn; before each run,
# the command BEFORE is given the app.
measure_all() {
    local name=$1 runs=$2 before=$3 out
    shift 3
    for round in $(seq "$runs"); do
        for app in "${apps[@]}"; do
            "$before" "$app"
            out=$(measure "$app" "$@")
            cpu[$name $app]+="${out% *} "
            wall[$name $app]+="${out#* } "
            echo "  $name, run $round, $app: ${out% *} s CPU, ${out#* } s wall" >&2
        done
    done
}
warm_up() { # an unmeasured touched build of every app, to bring its state in line
    for app in "${apps[@]}"; do
        touch_one "$app"
        measure "$app" "$@" >/dev/null
    done
}
clean() { rm -rf "$WORK/$1/target"; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
echo "cold dev builds" >&2
measure_all cold "$RUNS" clean cargo build
declare -A crates
for app in "${apps[@]}"; do
    crates[$app]=$(cd "$WORK/$app" && cargo tree --prefix none -e normal,build --quiet |
        sed 's/ (\*)$//' | sort -u | wc -l)
done
echo "touched cargo check" >&2
warm_up cargo check # `cargo check` builds its own metadata of every dependency
measure_all check "$RUNS" touch_one cargo check
echo "touched cargo build" >&2
warm_up cargo build
measure_all dev "$RUNS" touch_one cargo build
echo "real edit, cargo build" >&2
measure_all edit "$EDIT_RUNS" edit cargo build
if [ "$RELEASE" = 1 ]; then
    echo "touched cargo build --release" >&2
    warm_up cargo build --release # every dependency's release build
    measure_all release "$RUNS" touch_one cargo build --release
    if [ "$RELEASE_EDIT" = 1 ]; then
        echo "real edit, cargo build --release" >&2
        measure_all release-edit "$RUNS" edit cargo build --release
    fi
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')

# ---- the report -----------------------------------------------------------------------------

sorted() { local v; read -ra v <<<"$1"; printf '%s\n' "${v[@]}" | sort -g; }
median() { sorted "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
spread() { sorted "$1" | awk 'NR == 1 { a = $1 } { b = $1 } END { print a "-" b }'; }
# The cell of app $1's runs $2 of figure $3: their median, and its ratio to plain's median when
# plain ran.
cell() {
    local m base
    m=$(median "$2")
    if [ -n "${plain_of[$3]:-}" ] && [ "$1" != plain ]; then
        base=$(median "${plain_of[$3]}")
        awk -v a="$m" -v b="$base" 'BEGIN { printf "%s (%.2fx)", a, a / b }'
    else
        printf '%s' "$m"
    fi
}
columns=(check dev edit)
titles=('check, touched' 'dev, touched' 'real edit, dev')
if [ "$RELEASE" = 1 ]; then
    columns+=(release)
    titles+=('release, touched')
    if [ "$RELEASE_EDIT" = 1 ]; then
        columns+=(release-edit)
        titles+=('real edit, release')
    fi
fi
declare -A plain_of
if [[ " ${apps[*]} " == *" plain "* ]]; then
    for c in "${columns[@]}" cold; do plain_of[$c]=${cpu[$c plain]}; done
    plain_of[cold-wall]=${wall[cold plain]}
    plain_of[crates]=${crates[plain]}
fi

echo
echo "$CONTROLLERS controllers x 4 routes; CPU seconds (user + sys), medians of $RUNS runs" \
    "($EDIT_RUNS for the edit); the ratio to plain in parentheses"
echo
header='| app |' rule='|---|'
for t in "${titles[@]}" 'cold dev, CPU' 'cold dev, wall' crates; do
    header+=" $t |" rule+='---:|'
done
echo "$header"
echo "$rule"
for app in "${apps[@]}"; do
    line="| $app |"
    for c in "${columns[@]}" cold; do line+=" $(cell "$app" "${cpu[$c $app]}" "$c") |"; done
    line+=" $(cell "$app" "${wall[cold $app]}" cold-wall) |"
    line+=" $(cell "$app" "${crates[$app]}" crates) |"
    echo "$line"
done
echo
echo 'Runs, min-max of CPU seconds:'
echo
for app in "${apps[@]}"; do
    line="- $app:"
    for c in "${columns[@]}" cold; do line+=" $c $(spread "${cpu[$c $app]}");"; done
    echo "${line%;}"
done
echo
echo "Load average (1, 5, 15 min) before: $load_before; after: $load_after."
for app in "${apps[@]}"; do
    if [ -n "${source[$app]:-}" ]; then echo "$app: ${source[$app]} at ${commit[$app]}"; fi
done
