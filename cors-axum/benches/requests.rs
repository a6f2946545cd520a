//! The cost of one request through a whole `axum::Router`, prepared as a server prepares it:
//! `CorsModule` against tower-http's `CorsLayer` configured the same, and against the floor, plain
//! axum whose handlers write the same response headers statically, with no decision work.
//!
//! The application is the seed example: path `/` with `GET`, `POST` and `PATCH`, origin
//! `https://example.com`. The requests: a preflight (`POST` with `X-PINGOTHER, Content-Type`), a
//! `GET` with the allowed `Origin`, a `GET` without `Origin`.
//!
//! `cargo bench -p cors-axum --bench requests` measures wall-clock time with criterion.
//! `REQUEST_COST_ONCE=<router>/<request>` (routers `ours`, `tower-http`, `floor`; requests
//! `preflight`, `get`, `no-origin`) sends one warm-up request, then `REQUEST_COST_N` (1,000)
//! requests built beforehand, prints the heap allocations per request (handling and dropping
//! the response) and exits, for instruction counts under
//! `valgrind --tool=callgrind --toggle-collect=requests::drive` (`scripts/request_cost.sh` runs
//! them all and prints the table).

use std::convert::Infallible;
use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Method, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use cors_axum::prelude::*;
use criterion::{Criterion, criterion_group};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use tower_service::Service;

#[global_allocator]
static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

const ORIGIN: &str = "https://example.com";

struct FirstController;

#[controller]
impl FirstController {
    #[route("GET")]
    async fn get_method() -> &'static str {
        "GET method\n"
    }

    #[route("POST")]
    async fn post_method() -> &'static str {
        "POST method\n"
    }

    #[route("PATCH")]
    async fn patch_method() -> &'static str {
        "PATCH method\n"
    }
}

rest_root_module! {
    struct SeedModule {
        imports: [CorsModule::with_opts(CorsOptions::new().origin(ORIGIN))],
        controllers: [FirstController],
    }
}

/// The routes without CORS.
fn bare() -> Router {
    Router::new().route(
        "/",
        get(|| async { "GET method\n" })
            .post(|| async { "POST method\n" })
            .patch(|| async { "PATCH method\n" }),
    )
}

/// tower-http configured as `CorsModule` answers: the exact origin, the path's methods,
/// mirrored request headers.
fn tower_http() -> Router {
    use tower_http::cors::{AllowHeaders, CorsLayer};
    bare().layer(
        CorsLayer::new()
            .allow_origin(HeaderValue::from_static(ORIGIN))
            .allow_methods([
                Method::OPTIONS,
                Method::GET,
                Method::HEAD,
                Method::POST,
                Method::PATCH,
            ])
            .allow_headers(AllowHeaders::mirror_request()),
    )
}

/// The floor: the same answers written statically by the handlers.
fn floor() -> Router {
    fn actual(body: &'static str) -> Response {
        (
            [
                (header::ACCESS_CONTROL_ALLOW_ORIGIN, ORIGIN),
                (header::VARY, "Origin"),
            ],
            body,
        )
            .into_response()
    }
    Router::new().route(
        "/",
        get(|| async { actual("GET method\n") })
            .post(|| async { actual("POST method\n") })
            .patch(|| async { actual("PATCH method\n") })
            .options(|| async {
                (
                    StatusCode::NO_CONTENT,
                    [
                        (header::ACCESS_CONTROL_ALLOW_ORIGIN, ORIGIN),
                        (
                            header::ACCESS_CONTROL_ALLOW_METHODS,
                            "OPTIONS, GET, HEAD, POST, PATCH",
                        ),
                        (
                            header::ACCESS_CONTROL_ALLOW_HEADERS,
                            "x-pingother, content-type",
                        ),
                        (
                            header::VARY,
                            "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
                        ),
                    ],
                )
            }),
    )
}

/// The router `which`, prepared as `into_make_service` prepares it for a server.
fn router(which: &str) -> Router {
    let router = match which {
        "ours" => SeedModule::router().expect("the seed module builds"),
        "tower-http" => tower_http(),
        "floor" => floor(),
        other => panic!("router `{other}`: expected ours, tower-http or floor"),
    };
    router.with_state(())
}

/// The request `which`.
fn request(which: &str) -> Request<Body> {
    let builder = Request::builder().uri("/");
    let builder = match which {
        "preflight" => builder
            .method(Method::OPTIONS)
            .header(header::ORIGIN, ORIGIN)
            .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
            .header(
                header::ACCESS_CONTROL_REQUEST_HEADERS,
                "x-pingother, content-type",
            ),
        "get" => builder.method(Method::GET).header(header::ORIGIN, ORIGIN),
        "no-origin" => builder.method(Method::GET),
        other => panic!("request `{other}`: expected preflight, get or no-origin"),
    };
    builder.body(Body::empty()).expect("a valid request")
}

/// One request through `router`, answered without waiting: these handlers never block.
#[inline(never)]
fn drive(router: &mut Router, request: Request<Body>) -> Response {
    let future = Service::<Request<Body>>::call(router, request);
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(Ok::<_, Infallible>(response)) => response,
        Poll::Ready(Err(never)) => match never {},
        Poll::Pending => panic!("the handlers answer at once"),
    }
}

const ROUTERS: [&str; 3] = ["ours", "tower-http", "floor"];
const REQUESTS: [&str; 3] = ["preflight", "get", "no-origin"];

fn requests(c: &mut Criterion) {
    for which in REQUESTS {
        let mut group = c.benchmark_group(which);
        for name in ROUTERS {
            let mut router = router(name);
            group.bench_function(name, |b| {
                b.iter_batched(
                    || request(which),
                    |request| drop(black_box(drive(&mut router, request))),
                    criterion::BatchSize::SmallInput,
                );
            });
        }
        group.finish();
    }
}

criterion_group!(benches, requests);

fn main() {
    if let Ok(case) = std::env::var("REQUEST_COST_ONCE") {
        let (name, which) = case
            .split_once('/')
            .expect("REQUEST_COST_ONCE=<router>/<request>");
        let mut router = router(name);
        // The first request warms lazily built state; the next 1,000 are counted.
        let first = drive(&mut router, request(which));
        assert!(first.status().is_success(), "{case}: {}", first.status());
        let count = std::env::var("REQUEST_COST_N").map_or(1000, |n| n.parse().expect("a count"));
        let requests: Vec<Request<Body>> = (0..count).map(|_| request(which)).collect();
        let region = Region::new(GLOBAL);
        for request in requests {
            drop(black_box(drive(&mut router, request)));
        }
        let allocations = region.change().allocations;
        // Per request, for `scripts/request_cost.sh`.
        println!("allocations {}", allocations as f64 / count as f64);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
