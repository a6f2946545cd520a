//! Origins decided from the whole request (a tenant header) and asynchronously (a database of
//! tenants): what each allows, the `Vary` it needs, and that a failed or slow decision refuses,
//! never errors, on every kind of route CORS covers.

use crate::common;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::Router;
use axum::middleware;
use common::{request, send};
use cors_axum::AllowOrigin;
use cors_axum::cors::CorsLayer;
use cors_axum::prelude::*;
use http::StatusCode;

const ALLOWED: &str = "https://allowed.example";
const REFUSED: &str = "https://refused.example";
const BROKEN: &str = "https://broken.example";
const SLOW: &str = "https://slow.example";

fn preflight(origin: &str) -> Vec<(&str, &str)> {
    vec![("origin", origin), ("access-control-request-method", "PUT")]
}

// ---- Decided by the request ----------------------------------------------------------------

/// Tenant `acme` may call from `https://acme.example`, tenant `globex` from
/// `https://globex.example`; nothing else.
fn tenant_origins() -> CorsOptions {
    let origin = AllowOrigin::request_predicate(|origin, request| {
        let tenant = request.headers().get("x-tenant").map(|t| t.as_bytes());
        match tenant {
            Some(b"acme") => origin == "https://acme.example",
            Some(b"globex") => origin == "https://globex.example",
            _ => false,
        }
    })
    .varying_on(["x-tenant"]);
    CorsOptions::new().origin(origin)
}

/// The routes of every test: a plain route, one with a layer, and the method a preflight asks for.
struct Orders;

#[controller("orders")]
impl Orders {
    #[route("GET")]
    async fn list() -> &'static str {
        "orders"
    }

    #[route("PUT")]
    async fn put() -> &'static str {
        "put"
    }

    #[route("GET", "layered", layers = [middleware::from_fn(common::pass_through)])]
    async fn layered() -> &'static str {
        "layered"
    }
}

rest_root_module! {
    struct Tenants {
        imports: [CorsModule::with_opts(tenant_origins())],
        controllers: [Orders],
    }
}

#[tokio::test]
async fn a_request_predicate_decides_by_the_tenant_and_varies_on_its_header() {
    let router = Tenants::router().unwrap();
    for uri in ["/orders", "/orders/layered"] {
        let acme = [("origin", "https://acme.example"), ("x-tenant", "acme")];
        let answer = send(&router, request("GET", uri, &acme)).await;
        assert_eq!(answer.status, StatusCode::OK, "{uri}");
        assert_eq!(
            answer.header("access-control-allow-origin"),
            Some("https://acme.example"),
            "{uri}"
        );
        assert_eq!(answer.vary(), ["origin", "x-tenant"], "{uri}");

        // The same origin for another tenant: refused, and still varying on both.
        let other = [("origin", "https://acme.example"), ("x-tenant", "globex")];
        let answer = send(&router, request("GET", uri, &other)).await;
        assert_eq!(answer.status, StatusCode::OK, "{uri}");
        assert!(!answer.has_any_cors_header(), "{uri}");
        assert_eq!(answer.vary(), ["origin", "x-tenant"], "{uri}");

        // Without `Origin` the answer still depends on both headers.
        let answer = send(&router, request("GET", uri, &[("x-tenant", "acme")])).await;
        assert!(!answer.has_any_cors_header(), "{uri}");
        assert_eq!(answer.vary(), ["origin", "x-tenant"], "{uri}");
    }
}

#[tokio::test]
async fn a_request_predicate_decides_preflights_with_the_preflights_headers() {
    let router = Tenants::router().unwrap();
    let mut headers = preflight("https://globex.example");
    headers.push(("x-tenant", "globex"));
    let answer = send(&router, request("OPTIONS", "/orders", &headers)).await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT);
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some("https://globex.example")
    );
    assert_eq!(
        answer.vary(),
        [
            "origin",
            "access-control-request-method",
            "access-control-request-headers",
            "access-control-request-private-network",
            "x-tenant"
        ]
    );

    headers[2] = ("x-tenant", "acme");
    let answer = send(&router, request("OPTIONS", "/orders", &headers)).await;
    assert!(!answer.has_any_cors_header());
    assert!(answer.vary().contains(&"x-tenant".to_owned()));
}

#[test]
fn an_invalid_vary_name_is_a_build_error_naming_the_origin_option() {
    let options = CorsOptions::new()
        .origin(AllowOrigin::request_predicate(|_, _| true).varying_on(["x tenant"]));
    let error = CorsLayer::new(options).unwrap_err().to_string();
    assert!(error.contains("origin"), "{error}");
    assert!(error.contains("x tenant"), "{error}");
}

// ---- Decided asynchronously ----------------------------------------------------------------

/// Every origin the database was asked about, in order.
static ASKED: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn asked(origin: &str) -> usize {
    ASKED
        .lock()
        .unwrap()
        .iter()
        .filter(|asked| *asked == origin)
        .count()
}

/// A database of tenants' origins: one allowed, one refused, one whose lookup fails and one
/// that answers too late; any other origin is refused. Each test uses its own origins, so
/// that the counts of concurrent tests do not mix.
async fn lookup(origin: String) -> Result<bool, cors_axum::cors::BoxError> {
    ASKED.lock().unwrap().push(origin.clone());
    tokio::task::yield_now().await;
    match origin.trim_end_matches(char::is_numeric) {
        ALLOWED => Ok(true),
        BROKEN => Err("database unavailable".into()),
        SLOW => {
            tokio::time::sleep(Duration::from_secs(30)).await;
            Ok(true)
        }
        _ => Ok(false),
    }
}

fn database_origins() -> CorsOptions {
    let origin = AllowOrigin::async_predicate(|query| {
        lookup(query.origin.to_str().unwrap_or_default().to_owned())
    })
    .lookup_timeout(Duration::from_millis(200));
    CorsOptions::new().origin(origin).credentials(true)
}

rest_root_module! {
    struct Database {
        imports: [CorsModule::with_opts(database_origins())],
        controllers: [Orders],
    }
}

/// The same paths behind a plain `CorsLayer`.
fn layered_router() -> Router {
    Router::new()
        .route("/orders", axum::routing::get(|| async { "orders" }))
        .layer(CorsLayer::new(database_origins()).unwrap())
}

/// Every way a request meets CORS: the handler's own CORS, a route with layers, the
/// generated `OPTIONS` route, the `404` answer, and a plain `CorsLayer`.
fn surfaces() -> Vec<(&'static str, Router, &'static str)> {
    let module = Database::router().unwrap();
    vec![
        ("handler", module.clone(), "/orders"),
        ("route with layers", module.clone(), "/orders/layered"),
        ("404", module, "/nowhere"),
        ("CorsLayer", layered_router(), "/orders"),
    ]
}

#[tokio::test]
async fn an_async_decision_allows_and_refuses_actual_requests_everywhere() {
    for (i, (surface, router, uri)) in surfaces().into_iter().enumerate() {
        let allowed = format!("{ALLOWED}{i}");
        let answer = send(&router, request("GET", uri, &[("origin", &allowed)])).await;
        assert_eq!(
            answer.header("access-control-allow-origin"),
            Some(allowed.as_str()),
            "{surface}"
        );
        assert_eq!(
            answer.header("access-control-allow-credentials"),
            Some("true"),
            "{surface}"
        );
        assert_eq!(answer.vary(), ["origin"], "{surface}");

        let refused = format!("{REFUSED}{i}");
        let answer = send(&router, request("GET", uri, &[("origin", &refused)])).await;
        assert!(!answer.has_any_cors_header(), "{surface}");
        assert_eq!(answer.vary(), ["origin"], "{surface}");
        assert_ne!(
            answer.status,
            StatusCode::INTERNAL_SERVER_ERROR,
            "{surface}"
        );

        // Asked exactly once for each request.
        assert_eq!(asked(&allowed), 1, "{surface}");
        assert_eq!(asked(&refused), 1, "{surface}");
    }
}

#[tokio::test]
async fn an_async_decision_answers_preflights_on_the_generated_options_route() {
    let router = Database::router().unwrap();
    let origin = format!("{ALLOWED}90");
    let answer = send(&router, request("OPTIONS", "/orders", &preflight(&origin))).await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT);
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some(origin.as_str())
    );
    let methods = answer.header("access-control-allow-methods").unwrap();
    assert!(methods.split(", ").any(|m| m == "PUT"), "{methods}");

    // The preflight and the request it announces get the same decision.
    let answer = send(&router, request("PUT", "/orders", &[("origin", &origin)])).await;
    assert_eq!(answer.body, "put");
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some(origin.as_str())
    );

    let refused = format!("{REFUSED}90");
    let answer = send(&router, request("OPTIONS", "/orders", &preflight(&refused))).await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT);
    assert!(!answer.has_any_cors_header());
}

#[tokio::test]
async fn a_failed_or_late_decision_refuses_and_never_errors() {
    for (i, (surface, router, uri)) in surfaces().into_iter().enumerate() {
        for origin in [format!("{BROKEN}{i}"), format!("{SLOW}{i}")] {
            let started = Instant::now();
            let answer = send(&router, request("GET", uri, &[("origin", &origin)])).await;
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "{surface} {origin}: the timeout did not apply"
            );
            assert!(!answer.has_any_cors_header(), "{surface} {origin}");
            assert!(
                !answer.status.is_server_error(),
                "{surface} {origin}: {}",
                answer.status
            );

            let answer = send(&router, request("OPTIONS", uri, &preflight(&origin))).await;
            assert!(!answer.has_any_cors_header(), "{surface} {origin}");
            assert!(!answer.status.is_server_error(), "{surface} {origin}");
        }
    }
}

#[tokio::test]
async fn requests_that_need_no_decision_do_not_ask() {
    let router = Database::router().unwrap();
    let before = ASKED.lock().unwrap().len();
    // Not CORS, `null`, malformed, and two `Origin` lines: all refused or untouched without
    // a lookup.
    let cases: [&[(&str, &str)]; 4] = [
        &[],
        &[("origin", "null")],
        &[("origin", "https://bad.example/path")],
        &[("origin", ALLOWED), ("origin", ALLOWED)],
    ];
    for headers in cases {
        let answer = send(&router, request("GET", "/orders", headers)).await;
        assert_eq!(answer.body, "orders");
        assert!(!answer.has_any_cors_header(), "{headers:?}");
    }
    let plain = send(&router, request("OPTIONS", "/orders", &[])).await;
    assert_eq!(plain.status, StatusCode::NO_CONTENT);
    let asked: Vec<String> = ASKED.lock().unwrap()[before..].to_vec();
    assert!(
        asked.iter().all(|origin| !origin.contains("bad.example")),
        "{asked:?}"
    );
    assert!(!asked.contains(&"null".to_owned()), "{asked:?}");
    assert!(!asked.contains(&ALLOWED.to_owned()), "{asked:?}");
}

// ---- A list and a lookup together; a lookup that takes the application's values ------------

/// A stand-in for a pool of database connections: the origins of the tenants, and how often it
/// was asked.
#[derive(Clone, Default)]
struct Pool(std::sync::Arc<(Vec<&'static str>, std::sync::atomic::AtomicUsize)>);

impl Pool {
    fn of(origins: Vec<&'static str>) -> Self {
        Pool(std::sync::Arc::new((origins, Default::default())))
    }

    fn asked(&self) -> usize {
        self.0.1.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// The tenants' origins, looked up in the pool the application provides.
fn tenants_in_the_pool() -> AllowOrigin {
    AllowOrigin::async_predicate_with(|pool: Pool, query| async move {
        pool.0.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(pool.0.0.iter().any(|origin| query.origin == *origin))
    })
}

rest_root_module! {
    struct PoolApp { imports: [CorsModule], controllers: [Orders] }
}

#[tokio::test]
async fn listed_origins_skip_the_lookup_which_uses_the_applications_pool() {
    let pool = Pool::of(vec!["https://tenant.example"]);
    // The list from a configuration file; the lookup from code.
    let from_file: CorsOptions =
        serde_json::from_str(r#"{"origin": ["https://app.example"]}"#).unwrap();
    let router = PoolApp::builder()
        .provide(from_file.origin_fallback(tenants_in_the_pool()))
        .provide(pool.clone())
        .router()
        .unwrap();
    let get = |origin| request("GET", "/orders", &[("origin", origin)]);

    let answer = send(&router, get("https://app.example")).await;
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some("https://app.example")
    );
    assert_eq!(
        pool.asked(),
        0,
        "a listed origin is answered without the lookup"
    );

    let answer = send(&router, get("https://tenant.example")).await;
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some("https://tenant.example")
    );
    let answer = send(&router, get("https://stranger.example")).await;
    assert_eq!(answer.header("access-control-allow-origin"), None);
    assert_eq!(
        pool.asked(),
        2,
        "the pool the application provided answered the rest"
    );
}

#[test]
fn a_lookup_whose_value_is_not_provided_is_a_build_error_naming_the_type() {
    let err = PoolApp::builder()
        .provide(
            CorsOptions::new()
                .origin(AllowOrigin::list(["https://app.example"]).or_else(tenants_in_the_pool())),
        )
        .router()
        .unwrap_err();
    assert!(
        matches!(err, cors_axum::BuildError::MissingCorsValue { .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("takes a `it::origin_decisions::Pool`"),
        "{message}"
    );
    assert!(message.contains(".provide(..)"), "{message}");
}
