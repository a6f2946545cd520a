//! Heap allocations per request through the whole `axum::Router` of the seed example, counted
//! by a counting allocator: `CorsModule` allocates at most one more than the floor (plain axum
//! whose handlers write the same headers statically) on any request: axum boxes a copy of a
//! route's handler for every request, and ours holds its setup behind a pointer, where a plain
//! function has no size. The CORS handling itself adds none. The figures are printed for
//! `docs/PERFORMANCE.md`.

use crate::{alone, seed};

use std::hint::black_box;

use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

/// The allocator of the whole test binary, counting; the tests that read it run in a process
/// of their own ([`alone`]).
#[global_allocator]
pub(crate) static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// Allocations per request of `which` through `router`, over 100 requests after as many to warm up.
fn allocations(router: &mut axum::Router, which: &str) -> f64 {
    const N: usize = 100;
    // Warm up: what is made once per process (log callsites, pools) is not per request.
    for _ in 0..N {
        let first = seed::drive(router, seed::request(which));
        assert!(first.is_success(), "{which}: {first}");
    }
    let requests: Vec<_> = (0..N).map(|_| seed::request(which)).collect();
    let region = Region::new(GLOBAL);
    for request in requests {
        black_box(seed::drive(router, request));
    }
    region.change().allocations as f64 / N as f64
}

// In a process of its own: the allocator counts every thread.
#[test]
fn the_cors_module_allocates_at_most_one_more_than_the_floor() {
    if !alone::in_own_process(
        module_path!(),
        "the_cors_module_allocates_at_most_one_more_than_the_floor",
    ) {
        return;
    }
    let mut routers = ["ours", "floor", "tower-http"].map(seed::router);
    for which in seed::REQUESTS {
        let [ours, floor, tower] = routers.each_mut().map(|router| allocations(router, which));
        println!("{which}: ours {ours}, tower-http {tower}, floor {floor}");
        assert!(
            ours <= floor + 1.0,
            "{which}: ours {ours} > floor {floor} + 1"
        );
        assert!(ours < tower, "{which}: ours {ours} >= tower-http {tower}");
    }
}

/// Allocations of extracting a `RequestContext` from `parts`.
fn context_allocations(parts: &mut http::request::Parts) -> usize {
    use axum::extract::FromRequestParts;
    use std::future::Future;
    use std::task::{Context, Poll, Waker};

    let region = Region::new(GLOBAL);
    let mut extract = std::pin::pin!(cors_axum::RequestContext::from_request_parts(parts, &()));
    let Poll::Ready(Ok(ctx)) = extract
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    else {
        panic!("the context is ready at once and never rejects");
    };
    let stats = region.change();
    assert_eq!(ctx.query(), Some("page=2"));
    assert_eq!(ctx.send("sent").status(), http::StatusCode::OK);
    stats.allocations + stats.reallocations
}

// In a process of its own: the allocator counts every thread.
#[test]
fn a_request_context_copies_nothing_of_the_request() {
    if !alone::in_own_process(
        module_path!(),
        "a_request_context_copies_nothing_of_the_request",
    ) {
        return;
    }
    let request = http::Request::get("https://api.example/items?page=2")
        .header("origin", "https://app.example")
        .header("accept", "application/json")
        .header("user-agent", "test")
        .body(())
        .unwrap();
    let (mut parts, ()) = request.into_parts();
    // The URI's bytes shared once, as hyper's are when it parses a request.
    drop(black_box(parts.uri.clone()));
    // Headers, method, URI and query: nothing copied.
    assert_eq!(context_allocations(&mut parts), 0);
}
