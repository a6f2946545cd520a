//! CORS over a real socket: every placement of a path's plan (in the handler, around a route's
//! layers, around a module's layers, the generated `OPTIONS` route, passthrough, the `404`
//! answer, a reloadable plan, a plain `CorsLayer`) served by `axum::serve` on 127.0.0.1 and
//! spoken to in raw HTTP/1.1, two requests pipelined on one connection, and in HTTP/2 (h2c).
//! Every answer must be framed right, and the same as the in-process answer.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::extract::FromRequestParts;
use axum::middleware;
use common::wire::{WireAnswer, http1, http2, pipelined, serve};
use common::{Answer, request, send};
use cors_axum::AllowOrigin;
use cors_axum::cors::CorsLayer;
use cors_axum::cors::CorsReload;
use cors_axum::prelude::*;
use http::StatusCode;
use http::request::Parts;

const ALLOWED: &str = "https://a.example";
const EVIL: &str = "https://evil.example";

/// A guard that wants `Authorization: Bearer t`, refusing with a body.
struct Bearer;

impl<S: Send + Sync> FromRequestParts<S> for Bearer {
    type Rejection = (StatusCode, &'static str);

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        match parts.headers.get("authorization") {
            Some(token) if token == "Bearer t" => Ok(Bearer),
            _ => Err((StatusCode::UNAUTHORIZED, "no token\n")),
        }
    }
}

struct Placements;

#[controller]
impl Placements {
    #[route("GET", "h")]
    async fn get() -> &'static str {
        "get\n"
    }

    #[route("POST", "h")]
    async fn post(body: String) -> String {
        format!("posted {body}\n")
    }

    #[route("DELETE", "h", cors = false)]
    async fn delete() -> &'static str {
        "deleted\n"
    }

    #[route("GET", "layered", layers = [middleware::from_fn(common::pass_through)])]
    async fn layered() -> &'static str {
        "layered\n"
    }

    /// The route's own `OPTIONS` answer, with a body, behind a guard.
    #[route("OPTIONS", "pt", cors = CorsOptions::new().preflight_passthrough(true), guards = [Bearer])]
    async fn options() -> (StatusCode, &'static str) {
        (StatusCode::OK, "the route's own options answer\n")
    }

    #[route("GET", "pt")]
    async fn pt() -> &'static str {
        "pt\n"
    }

    /// A handler that sets CORS headers itself, as a proxied upstream might.
    #[route("GET", "sets-cors")]
    async fn sets_cors() -> impl IntoResponse {
        (
            [
                ("access-control-allow-origin", "*"),
                ("access-control-allow-credentials", "true"),
            ],
            "upstream\n",
        )
    }

    #[route("GET", "public")]
    async fn public() -> &'static str {
        "public\n"
    }

    #[route("GET", "off", cors = false)]
    async fn off() -> &'static str {
        "off\n"
    }
}

struct Guarded;

#[controller("in")]
impl Guarded {
    #[route("GET")]
    async fn inside() -> &'static str {
        "inside\n"
    }
}

feature_module! {
    struct LayeredModule {
        controllers: [Guarded],
        layers: [middleware::from_fn(common::pass_through)],
        guards: [Bearer],
    }
}

rest_root_module! {
    struct WireApp {
        imports: [
            CorsModule::with_opts(CorsOptions::new().origin(ALLOWED).max_age(60u64)),
            Import::at("/m", LayeredModule),
        ],
        controllers: [Placements],
    }
}

/// The in-process answer and the wire answers (HTTP/1.1 pipelined after another request, and
/// HTTP/2) agree on status, CORS headers and body.
fn assert_same(path: &str, in_process: &Answer, wire: &WireAnswer, protocol: &str) {
    assert_eq!(wire.status, in_process.status, "{protocol} {path}");
    assert_eq!(wire.text(), in_process.body, "{protocol} {path}");
    for (name, value) in &in_process.headers {
        let name = name.as_str();
        if name.starts_with("access-control-") || name == "vary" || name == "allow" {
            let wire_values: Vec<_> = wire.headers.get_all(name).iter().collect();
            let values: Vec<_> = in_process.headers.get_all(name).iter().collect();
            assert_eq!(
                wire_values, values,
                "{protocol} {path}: {name} (in process: {value:?})"
            );
        }
    }
    let wire_cors = wire
        .headers
        .keys()
        .filter(|n| n.as_str().starts_with("access-control-"))
        .count();
    let cors = in_process
        .headers
        .keys()
        .filter(|n| n.as_str().starts_with("access-control-"))
        .count();
    assert_eq!(wire_cors, cors, "{protocol} {path}: {:?}", wire.headers);
}

/// A request: method, path, headers.
type Sent<'a> = (&'a str, &'a str, Vec<(&'a str, &'a str)>);

/// Sends each request in process, then over the wire in HTTP/1.1, pipelined between two plain
/// requests, and in HTTP/2; asserts they agree, and returns the in-process answers.
async fn through_every_protocol(router: Router, requests: &[Sent<'_>]) -> Vec<Answer> {
    let addr = serve(router.clone()).await;
    let mut answers = Vec::new();
    for (method, path, headers) in requests {
        let in_process = send(&router, request(method, path, headers)).await;
        let wire = pipelined(
            addr,
            &[
                http1("GET", "/public", &[], ""),
                http1(method, path, headers, ""),
                http1("GET", "/public", &[], ""),
            ],
        )
        .await;
        assert_eq!(
            wire[0].text(),
            "public\n",
            "the request before {method} {path}"
        );
        assert_eq!(
            wire[2].text(),
            "public\n",
            "the request after {method} {path}"
        );
        assert_same(path, &in_process, &wire[1], "HTTP/1.1");
        let h2 = http2(addr, request(method, path, headers)).await;
        assert_same(path, &in_process, &h2, "HTTP/2");
        answers.push(in_process);
    }
    answers
}

fn preflight(method: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![
        ("origin", ALLOWED),
        ("access-control-request-method", method),
        (
            "access-control-request-headers",
            "x-pingother, content-type",
        ),
    ]
}

#[tokio::test]
async fn every_placement_answers_the_same_over_the_wire() {
    let router = WireApp::router().unwrap();
    let from = |origin| vec![("origin", origin)];
    let requests = [
        ("OPTIONS", "/h", vec![]),
        ("OPTIONS", "/h", from(ALLOWED)),
        ("OPTIONS", "/h", preflight("POST")),
        ("OPTIONS", "/h", preflight("DELETE")),
        ("GET", "/h", from(ALLOWED)),
        ("GET", "/h", from(EVIL)),
        ("GET", "/h", vec![]),
        ("DELETE", "/h", from(ALLOWED)),
        ("PUT", "/h", from(ALLOWED)),
        ("OPTIONS", "/layered", preflight("GET")),
        ("GET", "/layered", from(ALLOWED)),
        ("OPTIONS", "/m/in", preflight("GET")),
        ("GET", "/m/in", from(ALLOWED)),
        ("OPTIONS", "/pt", preflight("GET")),
        (
            "OPTIONS",
            "/pt",
            preflight("GET")
                .into_iter()
                .chain([("authorization", "Bearer t")])
                .collect(),
        ),
        ("OPTIONS", "/pt", vec![]),
        ("GET", "/nowhere", from(ALLOWED)),
        ("OPTIONS", "/nowhere", preflight("PUT")),
        ("GET", "/sets-cors", from(EVIL)),
        ("GET", "/sets-cors", from(ALLOWED)),
    ];
    let answers = through_every_protocol(router, &requests).await;
    let answer = |i: usize| &answers[i];

    assert_eq!(answer(2).status, StatusCode::NO_CONTENT);
    assert_eq!(
        answer(2).header("access-control-allow-origin"),
        Some(ALLOWED)
    );
    assert_eq!(
        answer(4).header("access-control-allow-origin"),
        Some(ALLOWED)
    );
    assert!(!answer(5).has_any_cors_header());
    assert_eq!(answer(8).status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(
        answer(8).header("access-control-allow-origin"),
        Some(ALLOWED)
    );
    assert_eq!(answer(10).body, "layered\n");
    assert_eq!(
        answer(11).header("access-control-allow-origin"),
        Some(ALLOWED),
        "before the module's guard"
    );
    assert_eq!(answer(12).status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        answer(12).header("access-control-allow-origin"),
        Some(ALLOWED),
        "the 401 is readable"
    );
    assert_eq!(answer(16).status, StatusCode::NOT_FOUND);
    assert_eq!(
        answer(16).header("access-control-allow-origin"),
        Some(ALLOWED)
    );
}

#[tokio::test]
async fn a_passed_on_preflight_keeps_the_handlers_framing_and_skips_its_guards() {
    let router = WireApp::router().unwrap();
    let addr = serve(router).await;
    // The reproduction of the report: a preflight passed on to a handler that answers with a
    // body, then a request pipelined after it on the same connection.
    let answers = pipelined(
        addr,
        &[
            http1(
                "OPTIONS",
                "/pt",
                &[("origin", EVIL), ("access-control-request-method", "GET")],
                "",
            ),
            http1("OPTIONS", "/pt", &preflight("GET"), ""),
            http1("GET", "/public", &[], ""),
        ],
    )
    .await;
    for answer in &answers[..2] {
        assert_eq!(
            answer.status,
            StatusCode::OK,
            "the handler's own status, no guard: {answer:?}"
        );
        assert_eq!(answer.text(), "the route's own options answer\n");
        assert_eq!(answer.header("content-length"), Some("31"));
    }
    assert!(
        !answers[0]
            .headers
            .keys()
            .any(|n| n.as_str().starts_with("access-control-"))
    );
    assert_eq!(
        answers[1].header("access-control-allow-origin"),
        Some(ALLOWED)
    );
    assert_eq!(answers[1].header("access-control-max-age"), Some("60"));
    assert!(answers[1].header("vary").unwrap().contains("Origin"));
    assert_eq!(answers[2].text(), "public\n");

    let answer = http2(addr, request("OPTIONS", "/pt", &preflight("GET"))).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.text(), "the route's own options answer\n");
    assert_eq!(answer.header("access-control-allow-origin"), Some(ALLOWED));

    // An ordinary `OPTIONS` request to the route still meets its guard.
    let answer = send(&WireApp::router().unwrap(), request("OPTIONS", "/pt", &[])).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_plain_cors_layer_with_passthrough_keeps_the_handlers_framing() {
    let layer = CorsLayer::new(
        CorsOptions::new()
            .origin(ALLOWED)
            .preflight_passthrough(true),
    )
    .unwrap();
    let router = Router::new()
        .route(
            "/pt",
            axum::routing::options(|| async { (StatusCode::OK, "own answer\n") }),
        )
        .route("/public", axum::routing::get(|| async { "public\n" }))
        .layer(layer);
    let addr = serve(router).await;
    let answers = pipelined(
        addr,
        &[
            http1("OPTIONS", "/pt", &preflight("GET"), ""),
            http1("GET", "/public", &[], ""),
        ],
    )
    .await;
    assert_eq!(answers[0].text(), "own answer\n");
    assert_eq!(
        answers[0].header("access-control-allow-origin"),
        Some(ALLOWED)
    );
    assert_eq!(answers[1].text(), "public\n");
    let answer = http2(addr, request("OPTIONS", "/pt", &preflight("GET"))).await;
    assert_eq!(answer.text(), "own answer\n");
}

#[tokio::test]
async fn a_passed_on_preflight_gets_the_configured_cache_control() {
    let layer = CorsLayer::new(
        CorsOptions::new()
            .origin(ALLOWED)
            .preflight_passthrough(true)
            .preflight_cache_control("public, max-age=600"),
    )
    .unwrap();
    let router = Router::new()
        .route(
            "/pt",
            axum::routing::options(|| async {
                (
                    StatusCode::OK,
                    [("cache-control", "private, max-age=5")],
                    "own answer\n",
                )
            }),
        )
        .route("/public", axum::routing::get(|| async { "public\n" }))
        .layer(layer);
    let addr = serve(router).await;
    let refused = [("origin", EVIL), ("access-control-request-method", "GET")];
    let answers = pipelined(
        addr,
        &[
            http1("OPTIONS", "/pt", &preflight("GET"), ""),
            http1("OPTIONS", "/pt", &refused, ""),
            http1("GET", "/public", &[], ""),
        ],
    )
    .await;
    assert_eq!(answers[0].text(), "own answer\n");
    assert_eq!(
        answers[0].header("cache-control"),
        Some("public, max-age=600")
    );
    assert_eq!(answers[1].text(), "own answer\n");
    assert_eq!(answers[1].header("cache-control"), Some("no-store"));
    assert_eq!(answers[2].text(), "public\n");
    let answer = http2(addr, request("OPTIONS", "/pt", &preflight("GET"))).await;
    assert_eq!(answer.header("cache-control"), Some("public, max-age=600"));
    let answer = http2(addr, request("OPTIONS", "/pt", &refused)).await;
    assert_eq!(answer.header("cache-control"), Some("no-store"));

    // Without the option, the handler's own stays.
    let plain = CorsLayer::new(
        CorsOptions::new()
            .origin(ALLOWED)
            .preflight_passthrough(true),
    );
    let router = Router::new()
        .route(
            "/pt",
            axum::routing::options(|| async { ([("cache-control", "max-age=5")], "own\n") }),
        )
        .layer(plain.unwrap());
    let answer = http2(
        serve(router).await,
        request("OPTIONS", "/pt", &preflight("GET")),
    )
    .await;
    assert_eq!(answer.header("cache-control"), Some("max-age=5"));
}

#[tokio::test]
async fn cors_headers_a_handler_sets_are_the_plans_on_a_path_under_cors() {
    let router = WireApp::router().unwrap();
    let answer = send(&router, request("GET", "/sets-cors", &[("origin", EVIL)])).await;
    assert_eq!(answer.body, "upstream\n");
    assert!(
        !answer.has_any_cors_header(),
        "a refused origin is not granted by the handler: {:?}",
        answer.headers
    );
    let answer = send(
        &router,
        request("GET", "/sets-cors", &[("origin", ALLOWED)]),
    )
    .await;
    assert_eq!(answer.header("access-control-allow-origin"), Some(ALLOWED));
    assert_eq!(
        answer.header("access-control-allow-credentials"),
        None,
        "the policy grants no credentials"
    );
    let answer = send(&router, request("GET", "/sets-cors", &[])).await;
    assert!(!answer.has_any_cors_header());
}

#[tokio::test]
async fn a_path_whose_every_route_switches_cors_off_has_none() {
    let app = WireApp::application().unwrap();
    assert!(
        !app.routes()
            .iter()
            .any(|r| r.path() == "/off" && r.is_generated()),
        "{}",
        app.routes()
    );
    let router = app.into_router();
    for headers in [vec![("origin", ALLOWED)], preflight("GET")] {
        let answer = send(&router, request("OPTIONS", "/off", &headers)).await;
        assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED);
        assert!(!answer.has_any_cors_header(), "{:?}", answer.headers);
    }
}

#[tokio::test]
async fn a_preflight_for_a_method_without_cors_varies_as_the_others() {
    let router = WireApp::router().unwrap();
    let off = send(&router, request("OPTIONS", "/h", &preflight("DELETE"))).await;
    let on = send(&router, request("OPTIONS", "/h", &preflight("POST"))).await;
    assert!(!off.has_any_cors_header());
    assert!(on.has_any_cors_header());
    assert!(!off.vary().is_empty(), "{:?}", off.headers);
    assert_eq!(off.vary(), on.vary());
}

// ---- The 404 answer follows the root's merged plan ------------------------------------------

struct G;

#[controller]
impl G {
    #[route("GET", "g")]
    async fn g() -> &'static str {
        "g\n"
    }

    #[route("GET", "public")]
    async fn public() -> &'static str {
        "public\n"
    }
}

rest_root_module! {
    struct Restricted {
        imports: [CorsModule],
        controllers: [G],
        providers_per_rou: [ProviderBuilder::new().use_value(
            CorsOptions::new().origin("https://only.example").credentials(true)
        )],
    }
}

rest_root_module! {
    struct Open { imports: [CorsModule], controllers: [G] }
}

/// `GET` and a preflight for `DELETE` with any header, from `origin`, to `/g` and `/nothere`.
async fn known_and_unknown(router: Router, origin: &'static str) -> [Answer; 4] {
    let preflight = vec![
        ("origin", origin),
        ("access-control-request-method", "DELETE"),
        ("access-control-request-headers", "x-anything"),
    ];
    let answers = through_every_protocol(
        router,
        &[
            ("GET", "/g", vec![("origin", origin)]),
            ("GET", "/nothere", vec![("origin", origin)]),
            ("OPTIONS", "/g", preflight.clone()),
            ("OPTIONS", "/nothere", preflight),
        ],
    )
    .await;
    answers.try_into().expect("four answers")
}

#[tokio::test]
async fn a_restricted_root_restricts_unknown_paths_too() {
    let [g, nothere, _, preflight] = known_and_unknown(Restricted::router().unwrap(), EVIL).await;
    assert!(!g.has_any_cors_header());
    assert_eq!(nothere.status, StatusCode::NOT_FOUND);
    assert!(!nothere.has_any_cors_header(), "{:?}", nothere.headers);
    assert!(!preflight.has_any_cors_header(), "{:?}", preflight.headers);
    let [g, nothere, ..] =
        known_and_unknown(Restricted::router().unwrap(), "https://only.example").await;
    assert_eq!(g.header("access-control-allow-credentials"), Some("true"));
    assert_eq!(
        nothere.header("access-control-allow-origin"),
        Some("https://only.example")
    );
    assert_eq!(
        nothere.header("access-control-allow-credentials"),
        Some("true")
    );
}

#[tokio::test]
async fn cors_switched_off_by_the_application_is_off_for_unknown_paths_too() {
    let router = Open::builder()
        .provide(CorsOptions::disabled())
        .router()
        .unwrap();
    let [g, nothere, g_preflight, preflight] = known_and_unknown(router, EVIL).await;
    for answer in [&g, &nothere, &g_preflight, &preflight] {
        assert!(!answer.has_any_cors_header(), "{:?}", answer.headers);
    }
    assert_eq!(nothere.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn reloading_to_off_switches_unknown_paths_off_too() {
    let reload = CorsReload::new();
    let router = Open::builder()
        .provide(CorsOptions::new().origin(ALLOWED))
        .cors_reload(&reload)
        .router()
        .unwrap();
    let [g, nothere, ..] = known_and_unknown(router.clone(), ALLOWED).await;
    assert_eq!(g.header("access-control-allow-origin"), Some(ALLOWED));
    assert_eq!(nothere.header("access-control-allow-origin"), Some(ALLOWED));

    reload.reload(CorsOptions::disabled()).unwrap();
    let [g, nothere, g_preflight, preflight] = known_and_unknown(router.clone(), EVIL).await;
    for answer in [&g, &nothere, &g_preflight, &preflight] {
        assert!(!answer.has_any_cors_header(), "{:?}", answer.headers);
    }

    // Switched back on explicitly: leaving `enabled` out where the options in force switch
    // CORS off would widen them, and is refused.
    assert!(
        reload
            .reload(CorsOptions::new().origin(EVIL))
            .unwrap_err()
            .widens()
    );
    reload
        .reload(CorsOptions::new().origin(EVIL).enabled(true))
        .unwrap();
    let [g, nothere, ..] = known_and_unknown(router, EVIL).await;
    assert_eq!(g.header("access-control-allow-origin"), Some(EVIL));
    assert_eq!(nothere.header("access-control-allow-origin"), Some(EVIL));
}

// ---- User code that panics ------------------------------------------------------------------

/// A guard that panics.
struct Panics;

impl<S: Send + Sync> FromRequestParts<S> for Panics {
    type Rejection = StatusCode;

    async fn from_request_parts(_: &mut Parts, _: &S) -> Result<Self, StatusCode> {
        panic!("the guard\tpanics")
    }
}

struct PanickyRoutes;

#[controller]
impl PanickyRoutes {
    #[route("GET", "guarded", guards = [Panics])]
    async fn guarded() -> &'static str {
        "unreachable\n"
    }

    #[route("GET", "public")]
    async fn public() -> &'static str {
        "public\n"
    }
}

static LOOKUPS: AtomicUsize = AtomicUsize::new(0);

fn panicking_lookup() -> CorsModuleWithOpts {
    CorsModule::with_opts(
        CorsOptions::new().origin(AllowOrigin::async_predicate(|_| async {
            LOOKUPS.fetch_add(1, Ordering::Relaxed);
            panic!("the lookup panics")
        })),
    )
}

use cors_axum::cors::CorsModuleWithOpts;

rest_root_module! {
    struct Panicky { imports: [panicking_lookup()], controllers: [PanickyRoutes] }
}

fn panicking_predicate() -> CorsModuleWithOpts {
    CorsModule::with_opts(
        CorsOptions::new().origin(AllowOrigin::request_predicate(|_, _| {
            panic!("the predicate panics")
        })),
    )
}

rest_root_module! {
    struct PanickyPredicate { imports: [panicking_predicate()], controllers: [PanickyRoutes] }
}

#[tokio::test]
async fn a_panic_in_a_lookup_or_a_guard_answers_and_the_server_keeps_serving() {
    let addr = serve(Panicky::router().unwrap()).await;
    let answers = pipelined(
        addr,
        &[
            http1("GET", "/public", &[("origin", ALLOWED)], ""),
            http1("OPTIONS", "/public", &preflight("GET"), ""),
            http1("GET", "/nothere", &[("origin", ALLOWED)], ""),
            http1("GET", "/guarded", &[], ""),
            http1("GET", "/public", &[], ""),
        ],
    )
    .await;
    assert_eq!(
        answers[0].status,
        StatusCode::OK,
        "the lookup's panic is a refusal"
    );
    assert_eq!(answers[0].text(), "public\n");
    assert!(answers[0].header("access-control-allow-origin").is_none());
    assert_eq!(answers[1].status, StatusCode::NO_CONTENT);
    assert!(answers[1].header("access-control-allow-origin").is_none());
    assert_eq!(answers[2].status, StatusCode::NOT_FOUND);
    assert!(answers[2].header("access-control-allow-origin").is_none());
    assert_eq!(
        answers[3].status,
        StatusCode::INTERNAL_SERVER_ERROR,
        "the guard's panic"
    );
    assert_eq!(answers[4].text(), "public\n");
    assert!(LOOKUPS.load(Ordering::Relaxed) >= 3);
}

#[tokio::test]
async fn a_panic_in_an_origin_predicate_is_a_refusal_and_the_server_keeps_serving() {
    let addr = serve(PanickyPredicate::router().unwrap()).await;
    let answers = pipelined(
        addr,
        &[
            http1("GET", "/public", &[("origin", ALLOWED)], ""),
            http1("OPTIONS", "/public", &preflight("GET"), ""),
            http1("GET", "/nothere", &[("origin", ALLOWED)], ""),
            http1("GET", "/public", &[], ""),
        ],
    )
    .await;
    assert_eq!(answers[0].text(), "public\n");
    assert!(answers[0].header("access-control-allow-origin").is_none());
    assert_eq!(answers[1].status, StatusCode::NO_CONTENT);
    assert!(answers[1].header("access-control-allow-origin").is_none());
    assert_eq!(answers[2].status, StatusCode::NOT_FOUND);
    assert_eq!(answers[3].text(), "public\n");
}
