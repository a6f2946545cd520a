//! The seed example's routers and requests, shared by the `requests` benchmark, the allocation
//! test (`tests/it/alloc.rs`) and the load server (`examples/load_server.rs`): `CorsModule`,
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
const SEC_FETCH_SITE: header::HeaderName = header::HeaderName::from_static("sec-fetch-site");

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

/// tower-http configured as `CorsModule` answers: `origin`, the path's methods, mirrored request
/// headers.
fn tower_http(origin: tower_http::cors::AllowOrigin) -> Router {
    use tower_http::cors::{AllowHeaders, CorsLayer};
    bare().layer(
        CorsLayer::new()
            .allow_origin(origin)
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

/// The floor: the same answers written by the handlers with values built at compile time
/// (`HeaderValue::from_static` in constants), converting nothing per request.
fn floor() -> Router {
    const ALLOW_ORIGIN: HeaderValue = HeaderValue::from_static(ORIGIN);
    const VARY_ORIGIN: HeaderValue = HeaderValue::from_static("Origin");
    const ALLOW_METHODS: HeaderValue = HeaderValue::from_static("OPTIONS, GET, HEAD, POST, PATCH");
    const ALLOW_HEADERS: HeaderValue = HeaderValue::from_static("x-pingother, content-type");
    const PREFLIGHT_VARY: HeaderValue = HeaderValue::from_static(
        "Origin, Access-Control-Request-Method, Access-Control-Request-Headers, \
         Access-Control-Request-Private-Network",
    );
    fn actual(body: &'static str) -> Response {
        (
            [
                (header::ACCESS_CONTROL_ALLOW_ORIGIN, ALLOW_ORIGIN),
                (header::VARY, VARY_ORIGIN),
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
                        (header::ACCESS_CONTROL_ALLOW_ORIGIN, ALLOW_ORIGIN),
                        (header::ACCESS_CONTROL_ALLOW_METHODS, ALLOW_METHODS),
                        (header::ACCESS_CONTROL_ALLOW_HEADERS, ALLOW_HEADERS),
                        (header::VARY, PREFLIGHT_VARY),
                    ],
                )
            }),
    )
}

/// The seed module with its options provided by the application and reloadable: every
/// request loads the path's plan once.
fn reloadable() -> Router {
    // Reloading itself is not measured: the plans stay reloadable with the handle gone.
    SeedAppModule::builder()
        .provide(CorsOptions::new().origin(ORIGIN))
        .cors_reload(&cors_axum::cors::CorsReload::new())
        .router()
        .expect("the seed module builds")
}

rest_root_module! {
    struct SeedAppModule { imports: [CorsModule], controllers: [FirstController] }
}

/// Origins decided asynchronously by a future that is ready at once: `CorsModule` and
/// tower-http's `AllowOrigin::async_predicate`.
fn asynchronous(tower: bool) -> Router {
    if tower {
        use tower_http::cors::AllowOrigin;
        return tower_http(AllowOrigin::async_predicate(|origin, _| async move {
            origin == ORIGIN
        }));
    }
    let origin = cors_axum::AllowOrigin::async_predicate(|query| {
        std::future::ready(Ok(query.origin == ORIGIN))
    });
    SeedAppModule::builder()
        .provide(CorsOptions::new().origin(origin))
        .router()
        .expect("the seed module builds")
}

/// The seed module with its options provided by the application, with cross-origin protection
/// when `protected`: a protected `POST` against the same `POST` unprotected.
fn provided(protected: bool) -> Router {
    SeedAppModule::builder()
        .provide(
            CorsOptions::new()
                .origin(ORIGIN)
                .protect_cross_origin(protected),
        )
        .router()
        .expect("the seed module builds")
}

/// The router `which`, prepared as `into_make_service` prepares it for a server.
/// Origins of the list and set routers: the seed's origin among a thousand tenants.
fn thousand_origins() -> Vec<String> {
    (0..999)
        .map(|i| format!("https://tenant-{i}.customers.example"))
        .chain([ORIGIN.to_owned()])
        .collect()
}

/// The seed module with a static list of a thousand origins, or the same origins in an
/// `OriginSet` (which may change while requests are served).
fn many_origins(in_a_set: bool) -> Router {
    let options = if in_a_set {
        let set = cors_axum::cors::OriginSet::new("tenants");
        assert!(set.replace_all(thousand_origins()).is_empty());
        CorsOptions::new().origin_set(&set)
    } else {
        CorsOptions::new().origin(thousand_origins())
    };
    SeedAppModule::builder()
        .provide(options)
        .router()
        .expect("the seed module builds")
}

/// The seed module with the thousand origins of [`many_origins`] in a `TenantOrigins`, ten for
/// each of a hundred hosts, the seed's origin among those of the requests' host
/// (`api.example.com`, which [`browser_headers`] send).
fn tenants_origins() -> Router {
    let tenants = cors_axum::cors::TenantOrigins::new("tenant_hosts");
    let rows = thousand_origins()
        .into_iter()
        .enumerate()
        .map(|(i, origin)| {
            let host = match i % 100 {
                99 => "api.example.com".to_owned(),
                h => format!("api{h}.example.com"),
            };
            (host, origin)
        });
    assert!(tenants.replace_all(rows).is_empty());
    SeedAppModule::builder()
        .provide(CorsOptions::new().tenant_origins(&tenants))
        .router()
        .expect("the seed module builds")
}

pub(crate) fn router(which: &str) -> Router {
    let router = match which {
        "ours" => SeedModule::router().expect("the seed module builds"),
        "tower-http" => tower_http(HeaderValue::from_static(ORIGIN).into()),
        "floor" => floor(),
        "bare" => bare(),
        "ours-reloadable" => reloadable(),
        "ours-async" => asynchronous(false),
        "tower-http-async" => asynchronous(true),
        "ours-provided" => provided(false),
        "ours-protected" => provided(true),
        "ours-list-1000" => many_origins(false),
        "ours-set-1000" => many_origins(true),
        "ours-tenants-1000" => tenants_origins(),
        other => panic!(
            "router `{other}`: expected ours, tower-http, floor, bare, ours-reloadable, ours-async, \
             tower-http-async, ours-provided, ours-protected, ours-list-1000, ours-set-1000 or \
             ours-tenants-1000"
        ),
    };
    router.with_state(())
}

/// The request `which`, as a server hands it to the router: hyper parses a request's head out
/// of one read buffer and makes each header value a slice of it, so cloning a value shares the
/// buffer (a reference count) rather than copying or allocating.
pub(crate) fn request(which: &str) -> Request<Body> {
    let (method, headers): (Method, &[(header::HeaderName, &str)]) = match which {
        "preflight" => (
            Method::OPTIONS,
            &[
                (header::ORIGIN, ORIGIN),
                (header::ACCESS_CONTROL_REQUEST_METHOD, "POST"),
                (
                    header::ACCESS_CONTROL_REQUEST_HEADERS,
                    "x-pingother, content-type",
                ),
                (SEC_FETCH_SITE, "cross-site"),
            ],
        ),
        "get" => (
            Method::GET,
            &[(header::ORIGIN, ORIGIN), (SEC_FETCH_SITE, "cross-site")],
        ),
        "get-refused" => (
            Method::GET,
            &[
                (header::ORIGIN, "https://evil.example"),
                (SEC_FETCH_SITE, "cross-site"),
            ],
        ),
        // A same-origin `fetch`: no `Origin` on a `GET`.
        "no-origin" => (Method::GET, &[(SEC_FETCH_SITE, "same-origin")]),
        // As a browser sends it from another site: the page's origin, `Sec-Fetch-Site`.
        "post" => (
            Method::POST,
            &[(header::ORIGIN, ORIGIN), (SEC_FETCH_SITE, "cross-site")],
        ),
        other => {
            panic!("request `{other}`: expected preflight, get, get-refused, no-origin or post")
        }
    };
    // Around them, what a browser sends with every request (Chromium's order and values): a
    // map with entries, in which every lookup hashes, as on the wire.
    let headers: Vec<(header::HeaderName, &str)> = browser_headers(which)
        .iter()
        .map(|(name, value)| (header::HeaderName::from_static(name), *value))
        .chain(headers.iter().cloned())
        .collect();
    let mut buffer = bytes::BytesMut::new();
    for (_, value) in &headers {
        buffer.extend_from_slice(value.as_bytes());
    }
    let mut buffer = buffer.freeze();
    // Shared from now on, as a server's read buffer is once a request's head is split off it.
    drop(buffer.clone());
    let mut builder = Request::builder().method(method).uri("/");
    for (name, value) in headers {
        let value = buffer.split_to(value.len());
        let value = HeaderValue::from_maybe_shared(value).expect("a header value");
        builder = builder.header(name, value);
    }
    builder.body(Body::empty()).expect("a valid request")
}

/// The headers a browser sends beside the CORS ones: a preflight carries no cookie, and asks
/// for anything; a `fetch` from the page's script asks for JSON with the page's cookie.
fn browser_headers(which: &str) -> &'static [(&'static str, &'static str)] {
    const COMMON: [(&str, &str); 6] = [
        ("host", "api.example.com"),
        (
            "user-agent",
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
        ),
        ("accept-language", "en-GB,en;q=0.9"),
        ("accept-encoding", "gzip, deflate, br, zstd"),
        ("referer", "https://example.com/"),
        ("sec-fetch-dest", "empty"),
    ];
    const PREFLIGHT: [(&str, &str); 8] =
        concat(COMMON, [("accept", "*/*"), ("sec-fetch-mode", "cors")]);
    const FETCH: [(&str, &str); 9] = concat(
        COMMON,
        [
            ("accept", "application/json"),
            ("sec-fetch-mode", "cors"),
            ("cookie", "session=8f14e45fceea167a5a36dedd4bea2543"),
        ],
    );
    match which {
        "preflight" => &PREFLIGHT,
        _ => &FETCH,
    }
}

/// `a` then `b`.
const fn concat<const A: usize, const B: usize, const N: usize>(
    a: [(&'static str, &'static str); A],
    b: [(&'static str, &'static str); B],
) -> [(&'static str, &'static str); N] {
    let mut out = [("", ""); N];
    let mut i = 0;
    while i < A {
        out[i] = a[i];
        i += 1;
    }
    while i < N {
        out[i] = b[i - A];
        i += 1;
    }
    out
}

/// One request's whole life through `router`: routed, answered without waiting (these handlers
/// never block), and its answer dropped, as a server drops it once written. Returns the status.
#[inline(never)]
pub(crate) fn drive(router: &mut Router, request: Request<Body>) -> StatusCode {
    let future = Service::<Request<Body>>::call(router, request);
    let mut future = pin!(future);
    let response: Response = match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(Ok::<_, Infallible>(response)) => response,
        Poll::Ready(Err(never)) => match never {},
        Poll::Pending => panic!("the handlers answer at once"),
    };
    let status = response.status();
    drop(std::hint::black_box(response));
    status
}

/// The routers compared.
pub(crate) const ROUTERS: [&str; 3] = ["ours", "tower-http", "floor"];
/// The requests sent.
pub(crate) const REQUESTS: [&str; 4] = ["preflight", "get", "get-refused", "no-origin"];
