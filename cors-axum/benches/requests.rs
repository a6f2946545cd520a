//! The cost of one request through a whole `axum::Router`, prepared as a server prepares it:
//! `CorsModule` against tower-http's `CorsLayer` configured the same, and against the floor, plain
//! axum whose handlers write the same response headers statically, with no decision work.
//!
//! The application is the seed example: path `/` with `GET`, `POST` and `PATCH`, origin
//! `https://example.com`. The requests: a preflight (`POST` with `X-PINGOTHER, Content-Type`), a
//! `GET` with the allowed `Origin`, a `GET` from another origin, a `GET` without `Origin`. Beside
//! them: the same module with reloadable options, and origins decided by an asynchronous
//! predicate whose future is ready at once, against tower-http's `AllowOrigin::async_predicate`;
//! a `POST` from the allowed origin (with `Sec-Fetch-Site: cross-site`, as a browser sends it)
//! under cross-origin protection, against the same `POST` without it; a thousand origins in
//! a static list against the same in an `OriginSet`; and those in a `TenantOrigins` against
//! the `OriginSet`.
//!
//! `cargo bench -p cors-axum --bench requests` measures wall-clock time with criterion.
//! `REQUEST_COST_ONCE=<router>/<request>` (routers `ours`, `tower-http`, `floor`,
//! `ours-reloadable`, `ours-async`, `tower-http-async`, `ours-provided`, `ours-protected`,
//! `ours-list-1000`, `ours-set-1000`, `ours-tenants-1000` (the same thousand origins in a
//! `TenantOrigins`, ten for each of a hundred hosts, the request's among them); requests
//! `preflight`, `get`, `get-refused`, `no-origin`, `post`) sends one warm-up request, then `REQUEST_COST_N` (1,000)
//! requests built beforehand, prints the heap allocations per request (handling and dropping
//! the response) and exits, for instruction counts under
//! `valgrind --tool=callgrind --toggle-collect=requests::seed::drive` (`scripts/request_cost.sh` runs
//! them all and prints the table).

mod seed;

use std::hint::black_box;

use axum::body::Body;
use axum::http::Request;
use criterion::{Criterion, criterion_group};
use seed::{REQUESTS, ROUTERS, drive, request, router};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

fn requests(c: &mut Criterion) {
    for which in REQUESTS {
        let mut group = c.benchmark_group(which);
        let extra: &[&str] = match which {
            "preflight" | "get" => &[
                "ours-reloadable",
                "ours-async",
                "tower-http-async",
                "ours-list-1000",
                "ours-set-1000",
                "ours-tenants-1000",
            ],
            "get-refused" => &["ours-list-1000", "ours-set-1000", "ours-tenants-1000"],
            _ => &[],
        };
        for &name in ROUTERS.iter().chain(extra) {
            let mut router = router(name);
            group.bench_function(name, |b| {
                b.iter_batched(
                    || request(which),
                    |request| black_box(drive(&mut router, request)),
                    criterion::BatchSize::SmallInput,
                );
            });
        }
        group.finish();
    }
    let mut group = c.benchmark_group("post");
    for name in ["ours-provided", "ours-protected"] {
        let mut router = router(name);
        group.bench_function(name, |b| {
            b.iter_batched(
                || request("post"),
                |request| black_box(drive(&mut router, request)),
                criterion::BatchSize::SmallInput,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, requests);

fn main() {
    // Asynchronous origin decisions are awaited with a time limit, which needs tokio's timer.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let _entered = runtime.enter();
    if let Ok(case) = std::env::var("REQUEST_COST_ONCE") {
        let (name, which) = case
            .split_once('/')
            .expect("REQUEST_COST_ONCE=<router>/<request>");
        let mut router = router(name);
        // The first request warms lazily built state; the next 1,000 are counted.
        let first = drive(&mut router, request(which));
        assert!(first.is_success(), "{case}: {first}");
        let count = std::env::var("REQUEST_COST_N").map_or(1000, |n| n.parse().expect("a count"));
        let requests: Vec<Request<Body>> = (0..count).map(|_| request(which)).collect();
        let region = Region::new(GLOBAL);
        for request in requests {
            black_box(drive(&mut router, request));
        }
        let allocations = region.change().allocations;
        // Per request, for `scripts/request_cost.sh`.
        println!("allocations {}", allocations as f64 / count as f64);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
