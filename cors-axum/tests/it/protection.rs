//! Protection beyond CORS from the same policy: unsafe cross-origin requests refused before
//! their guards and handler (cross-site request forgery), and WebSocket handshakes from origins
//! the policy does not allow (cross-site WebSocket hijacking), decided by each path's plan.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};

use axum::extract::FromRequestParts;
use common::wire::{http1, pipelined, serve};
use common::{Answer, request, send};
use cors_axum::prelude::*;
use http::StatusCode;
use http::request::Parts;

const APP: &str = "https://app.example";
const EVIL: &str = "https://evil.example";

static HANDLED: AtomicUsize = AtomicUsize::new(0);

/// A guard that counts the requests it sees and lets them through.
struct Counted;

static GUARDED: AtomicUsize = AtomicUsize::new(0);

impl<S: Send + Sync> FromRequestParts<S> for Counted {
    type Rejection = StatusCode;

    async fn from_request_parts(_: &mut Parts, _: &S) -> Result<Self, StatusCode> {
        GUARDED.fetch_add(1, Ordering::SeqCst);
        Ok(Counted)
    }
}

struct Session;

#[controller]
impl Session {
    #[route("POST", "session")]
    async fn sign_in(cors: CorsService) -> &'static str {
        cors.set_cookie("session", "s");
        "signed in\n"
    }

    /// Counts the requests that reach its guard and itself; only one test sends to it.
    #[route("POST", "counted", guards = [Counted])]
    async fn counted() -> &'static str {
        HANDLED.fetch_add(1, Ordering::SeqCst);
        "counted\n"
    }

    #[route("GET", "session")]
    async fn show() -> &'static str {
        "session\n"
    }

    #[route("POST", "webhooks/github")]
    async fn github() -> &'static str {
        "hook\n"
    }

    #[route("POST", "open", cors = CorsOptions::new().protect_cross_origin(false))]
    async fn open() -> &'static str {
        "open\n"
    }

    #[route("POST", "closed", cors = false)]
    async fn closed() -> &'static str {
        "closed\n"
    }

    /// Stands for a WebSocket route: the handshake's answer is not this test's matter.
    #[route("GET", "ws")]
    async fn ws() -> &'static str {
        "would upgrade\n"
    }
}

rest_root_module! {
    struct Protected { imports: [CorsModule], controllers: [Session] }
}

fn router() -> axum::Router {
    Protected::builder()
        .provide(
            CorsOptions::new()
                .origin(APP)
                .credentials(true)
                .protect_cross_origin(true)
                .cross_origin_bypass(["/webhooks/*"]),
        )
        .router()
        .unwrap()
}

fn form_post(
    path: &str,
    headers: &[(&'static str, &'static str)],
) -> http::Request<axum::body::Body> {
    let mut all = vec![
        ("host", "api.example"),
        ("content-type", "application/x-www-form-urlencoded"),
    ];
    all.extend_from_slice(headers);
    let mut request = request("POST", path, &all);
    *request.body_mut() = axum::body::Body::from("user=a");
    request
}

async fn post(path: &str, headers: &[(&'static str, &'static str)]) -> Answer {
    send(&router(), form_post(path, headers)).await
}

#[tokio::test]
async fn a_cross_site_form_post_is_refused_before_its_guards_and_handler() {
    let before = (
        HANDLED.load(Ordering::SeqCst),
        GUARDED.load(Ordering::SeqCst),
    );
    for headers in [
        vec![("origin", EVIL), ("sec-fetch-site", "cross-site")],
        vec![
            ("origin", "https://other.app.example"),
            ("sec-fetch-site", "same-site"),
        ],
        // An older browser without Fetch Metadata: `Origin` names another host.
        vec![("origin", EVIL)],
    ] {
        let answer = post("/session", &headers).await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{headers:?}");
        assert!(answer.headers.get("set-cookie").is_none());
        assert!(
            !answer.has_any_cors_header(),
            "the 403 grants nothing: {:?}",
            answer.headers
        );
    }
    assert_eq!(
        (
            HANDLED.load(Ordering::SeqCst),
            GUARDED.load(Ordering::SeqCst)
        ),
        before,
        "neither the guard nor the handler ran"
    );
}

#[tokio::test]
async fn trusted_same_origin_and_non_browser_requests_pass() {
    for headers in [
        // The origin the policy allows.
        vec![("origin", APP), ("sec-fetch-site", "cross-site")],
        vec![("origin", APP)],
        // Same origin: by Fetch Metadata, or by `Origin` naming the request's own host (scheme
        // ignored: TLS often ends at a proxy in front of the application).
        vec![
            ("origin", "http://api.example"),
            ("sec-fetch-site", "same-origin"),
        ],
        vec![("origin", "http://api.example")],
        // A navigation typed by the user, and a client that is no browser.
        vec![("sec-fetch-site", "none")],
        vec![],
    ] {
        let answer = post("/session", &headers).await;
        assert_eq!(answer.status, StatusCode::OK, "{headers:?}");
        assert_eq!(answer.body, "signed in\n");
    }
    // Safe methods are never refused.
    let answer = send(
        &router(),
        request(
            "GET",
            "/session",
            &[("origin", EVIL), ("sec-fetch-site", "cross-site")],
        ),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
}

#[tokio::test]
async fn webhooks_and_routes_that_opt_out_pass_and_cors_off_still_protects() {
    let cross_site = [("origin", EVIL), ("sec-fetch-site", "cross-site")];
    assert_eq!(
        post("/webhooks/github", &cross_site).await.status,
        StatusCode::OK
    );
    assert_eq!(post("/open", &cross_site).await.status, StatusCode::OK);
    // CORS switched off for the route: no origin is trusted, the protection stays.
    assert_eq!(
        post("/closed", &cross_site).await.status,
        StatusCode::FORBIDDEN
    );
    let same_origin = [
        ("origin", "https://api.example"),
        ("sec-fetch-site", "same-origin"),
    ];
    assert_eq!(post("/closed", &same_origin).await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_websocket_handshake_from_an_origin_the_policy_refuses_is_refused() {
    let handshake = |origin: &'static str| {
        vec![
            ("host", "api.example"),
            ("origin", origin),
            ("upgrade", "websocket"),
            ("connection", "Upgrade"),
            ("sec-websocket-version", "13"),
            ("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ]
    };
    let answer = send(&router(), request("GET", "/ws", &handshake(EVIL))).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert!(!answer.has_any_cors_header());
    let answer = send(&router(), request("GET", "/ws", &handshake(APP))).await;
    assert_eq!(answer.body, "would upgrade\n");
    // Same origin, though the policy does not list it.
    let answer = send(
        &router(),
        request("GET", "/ws", &handshake("https://api.example")),
    )
    .await;
    assert_eq!(answer.body, "would upgrade\n");
    // An ordinary GET from the same origin is answered, without a grant.
    let answer = send(&router(), request("GET", "/ws", &[("origin", EVIL)])).await;
    assert_eq!(answer.body, "would upgrade\n");
    assert!(!answer.has_any_cors_header());
}

#[tokio::test]
async fn protection_answers_over_the_wire() {
    let addr = serve(router()).await;
    let form = |origin: &str, site: &str| {
        let mut headers = vec![
            ("content-type", "application/x-www-form-urlencoded"),
            ("origin", origin),
        ];
        if !site.is_empty() {
            headers.push(("sec-fetch-site", site));
        }
        http1("POST", "/session", &headers, "user=a")
    };
    let answers = pipelined(
        addr,
        &[
            form(EVIL, "cross-site"),
            form(APP, "cross-site"),
            form(EVIL, ""),
            http1("GET", "/session", &[], ""),
        ],
    )
    .await;
    assert_eq!(answers[0].status, StatusCode::FORBIDDEN);
    assert_eq!(answers[0].text(), "Forbidden\n");
    assert_eq!(answers[1].status, StatusCode::OK);
    assert!(answers[1].header("set-cookie").is_some());
    assert_eq!(answers[2].status, StatusCode::FORBIDDEN);
    assert_eq!(answers[3].text(), "session\n");
}
