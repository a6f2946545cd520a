//! Why a browser refused, in the server's log: with `cors_axum=debug`, every refused CORS request
//! to the example server (`examples/cors.rs`) logs one line with its route, its origin and the
//! reason; allowed and non-CORS requests log nothing, and nothing is logged at `info`.

use crate::example;

use crate::common;
use crate::support;

use common::{request, send};
use support::log::Captured;

const ALLOWED: &str = "https://example.com";

#[tokio::test]
async fn each_refused_request_logs_one_line_with_route_origin_and_reason() {
    // Built first: what the build logs at debug level (such as the controllers of this test
    // binary that the example does not list) is not the subject here.
    let router = example::AppModule::router().unwrap();
    let (captured, _guard) = Captured::on_this_thread("cors_axum=debug");

    let preflight = |origin: &'static str, method: &'static str, headers: &'static str| {
        vec![
            ("origin", origin),
            ("access-control-request-method", method),
            ("access-control-request-headers", headers),
        ]
    };
    // Method, path, request headers, the line logged.
    type Case<'a> = (&'a str, &'a str, Vec<(&'a str, &'a str)>, &'a str);
    let cases: Vec<Case<'_>> = vec![
        (
            "GET",
            "/",
            vec![("origin", "https://evil.example")],
            "CORS request refused: origin `https://evil.example` is not allowed route=\"/\" \
             method=GET origin=https://evil.example",
        ),
        (
            "OPTIONS",
            "/",
            preflight(ALLOWED, "DELETE", "content-type"),
            "CORS preflight refused: method `DELETE` is not allowed route=\"/\" method=OPTIONS \
             origin=https://example.com",
        ),
        (
            "OPTIONS",
            "/credentials",
            preflight("null", "GET", ""),
            "CORS preflight refused: origin `null` is not allowed without \
             `allow_null_origin(true)` route=\"/credentials\" method=OPTIONS origin=null",
        ),
        (
            "OPTIONS",
            "/",
            preflight(ALLOWED, "POST", "x-ok, bad header"),
            "CORS preflight refused: malformed `Access-Control-Request-Headers`: `bad header` is \
             not a header name route=\"/\" method=OPTIONS origin=https://example.com",
        ),
        (
            "GET",
            "/",
            vec![("origin", ALLOWED), ("origin", "https://evil.example")],
            "CORS request refused: several `Origin` headers route=\"/\" method=GET \
             origin=https://example.com",
        ),
        (
            "GET",
            "/",
            vec![("origin", "https://example.com.evil.example")],
            "CORS request refused: origin `https://example.com.evil.example` is not allowed \
             route=\"/\" method=GET origin=https://example.com.evil.example",
        ),
    ];
    for (method, path, headers, line) in cases {
        let answer = send(&router, request(method, path, &headers)).await;
        assert!(
            !answer.has_any_cors_header(),
            "{method} {path}: {:?}",
            answer.headers
        );
        let logged = captured.take();
        assert_eq!(logged.len(), 1, "{method} {path} {headers:?}: {logged:#?}");
        assert_eq!(
            logged[0].trim(),
            format!("DEBUG cors_axum: {line}"),
            "{method} {path} {headers:?}"
        );
    }

    // Granted and non-CORS requests log nothing.
    for (method, headers) in [
        ("GET", vec![("origin", ALLOWED)]),
        ("GET", vec![]),
        ("OPTIONS", preflight(ALLOWED, "POST", "x-pingother")),
    ] {
        send(&router, request(method, "/", &headers)).await;
        assert_eq!(
            captured.take(),
            Vec::<String>::new(),
            "{method} {headers:?}"
        );
    }
}

#[tokio::test]
async fn nothing_is_logged_per_request_at_info() {
    let (captured, _guard) = Captured::on_this_thread("info");
    let router = example::AppModule::router().unwrap();
    for origin in ["https://evil.example", ALLOWED, "null"] {
        send(
            &router,
            request("GET", "/credentials", &[("origin", origin)]),
        )
        .await;
        send(
            &router,
            request(
                "OPTIONS",
                "/",
                &[("origin", origin), ("access-control-request-method", "PUT")],
            ),
        )
        .await;
    }
    assert_eq!(captured.take(), Vec::<String>::new());
}

#[tokio::test]
async fn a_failed_origin_lookup_logs_its_reason() {
    use cors_axum::cors::CorsLayer;
    use cors_axum::{AllowOrigin, CorsOptions};

    let (captured, _guard) = Captured::on_this_thread("cors_axum=debug");
    // The error's text comes from elsewhere (a database driver, a remote service): its control
    // characters are escaped, so that it cannot forge or split a log line.
    let origin = AllowOrigin::async_predicate(|_| async {
        Err("database\tunavailable\nDEBUG forged line".into())
    });
    let router = axum::Router::new()
        .route("/", axum::routing::get(|| async { "ok" }))
        .layer(CorsLayer::new(CorsOptions::new().origin(origin)).unwrap());

    let answer = send(&router, request("GET", "/", &[("origin", ALLOWED)])).await;
    assert_eq!(answer.body, "ok");
    assert!(!answer.has_any_cors_header());
    assert_eq!(
        captured.take(),
        [format!(
            "DEBUG cors_axum: CORS request refused: the origin could not be decided: \
             `database\\tunavailable\\nDEBUG forged line` route=\"/\" method=GET origin={ALLOWED}"
        )]
    );
}

#[tokio::test]
async fn an_asynchronous_origin_is_looked_up_once_and_a_refusal_logs_its_precise_reason() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use cors_axum::cors::CorsLayer;
    use cors_axum::{AllowOrigin, CorsOptions};

    let (captured, _guard) = Captured::on_this_thread("cors_axum=debug");
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&asked);
    let origin = AllowOrigin::async_predicate(move |query| {
        counted.fetch_add(1, Ordering::SeqCst);
        let allowed = query.origin == ALLOWED;
        async move { Ok(allowed) }
    });
    let options = CorsOptions::new().origin(origin).protect_cross_origin(true);
    let router = axum::Router::new()
        .route(
            "/",
            axum::routing::get(|| async { "ok" }).post(|| async { "posted" }),
        )
        .layer(CorsLayer::new(options).unwrap());
    let evil = "https://evil.example";

    let answer = send(&router, request("GET", "/", &[("origin", evil)])).await;
    assert_eq!(answer.body, "ok");
    assert!(!answer.has_any_cors_header());
    // Protection reads the origin's one decision: refused, so an unsafe cross-site request is.
    let unsafe_post = |origin| {
        request(
            "POST",
            "/",
            &[("origin", origin), ("sec-fetch-site", "cross-site")],
        )
    };
    let answer = send(&router, unsafe_post(evil)).await;
    assert_eq!(answer.status, http::StatusCode::FORBIDDEN);
    let answer = send(&router, unsafe_post(ALLOWED)).await;
    assert_eq!(answer.body, "posted");
    assert_eq!(answer.header("access-control-allow-origin"), Some(ALLOWED));
    let preflight = [("origin", evil), ("access-control-request-method", "POST")];
    let answer = send(&router, request("OPTIONS", "/", &preflight)).await;
    assert!(!answer.has_any_cors_header());
    // One lookup per request, none asked again after its answer.
    assert_eq!(asked.load(Ordering::SeqCst), 4);
    assert_eq!(
        captured.take(),
        [
            format!(
                "DEBUG cors_axum: CORS request refused: origin `{evil}` is not allowed \
                 route=\"/\" method=GET origin={evil}"
            ),
            format!(
                "DEBUG cors_axum: CORS unsafe request refused: cross-origin protection: an unsafe \
                 request with `Sec-Fetch-Site` `cross-site` from an origin the CORS policy does \
                 not allow route=\"/\" method=POST origin={evil}"
            ),
            format!(
                "DEBUG cors_axum: CORS preflight refused: origin `{evil}` is not allowed \
                 route=\"/\" method=OPTIONS origin={evil}"
            ),
        ]
    );
}
