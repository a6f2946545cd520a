//! The seed example's routers and requests, shared by the `requests` benchmark, the allocation
//! test (`tests/alloc.rs`) and the load server (`examples/load_server.rs`): `CorsModule`,
//! tower-http's `CorsLayer` configured the same, the floor (plain axum whose handlers write the
//! same headers statically), and bare axum without CORS.

use std::convert::Infallible;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Method, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use cors_axum::prelude::*;
use tower::Service;

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
pub(crate) fn router(which: &str) -> Router {
    let router = match which {
        "ours" => SeedModule::router().expect("the seed module builds"),
        "tower-http" => tower_http(),
        "floor" => floor(),
        "bare" => bare(),
        other => panic!("router `{other}`: expected ours, tower-http, floor or bare"),
    };
    router.with_state(())
}

/// The request `which`.
pub(crate) fn request(which: &str) -> Request<Body> {
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
pub(crate) fn drive(router: &mut Router, request: Request<Body>) -> Response {
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

/// The routers compared.
pub(crate) const ROUTERS: [&str; 3] = ["ours", "tower-http", "floor"];
/// The requests sent.
pub(crate) const REQUESTS: [&str; 3] = ["preflight", "get", "no-origin"];
